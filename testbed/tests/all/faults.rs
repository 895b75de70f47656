//! `esa run --fault switch-restart`: restart.toml with the switch crashed
//! a second in and back, empty, half a second later — in process (hosts on
//! in-memory ports, which follow the switch to its new ports) and on the
//! namespace fabric (kernel UDP in namespaces, esa-switch on the veths
//! again; root, `ESA_NETNS_TESTS=1`). Every job verifies, the fault is
//! reported with its stall, and each job's accounting is exact across the
//! reset: chunks in the switch plus chunks at the PS is every chunk. And
//! `--fault link-down`: a worker's veth pulled for half a second on the
//! namespace fabric; refused on a fabric without links to pull.

use std::path::Path;
use std::time::Duration;

use esa_testbed::fault::{Fault, FaultKind};
use esa_testbed::{Experiment, ExperimentReport, FabricKind, RunOptions, run_experiment};

use crate::common;

fn restart_at_one_second() -> Vec<Fault> {
    vec![Fault {
        at: Duration::from_secs(1),
        kind: FaultKind::SwitchRestart {
            down: Duration::from_millis(500),
        },
    }]
}

fn run(fabric: Option<FabricKind>) -> (Experiment, ExperimentReport) {
    run_with(fabric, restart_at_one_second())
}

fn run_with(fabric: Option<FabricKind>, faults: Vec<Fault>) -> (Experiment, ExperimentReport) {
    let (experiment, options) = setup(fabric, faults);
    let report = run_experiment(&experiment, &options).unwrap();
    print!("{}", report.table());
    (experiment, report)
}

fn setup(fabric: Option<FabricKind>, faults: Vec<Fault>) -> (Experiment, RunOptions) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/restart.toml");
    let experiment = Experiment::load(&path).unwrap();
    let options = RunOptions {
        progress: false,
        fabric,
        faults,
        ..RunOptions::default()
    };
    (experiment, options)
}

fn link_down_at_one_second() -> Vec<Fault> {
    vec!["link-down@1s,port=1,down=500ms".parse().unwrap()]
}

fn assert_survived(experiment: &Experiment, report: &ExperimentReport) {
    let variant = &report.variants[0];
    common::assert_every_job_finished(&variant.jobs, experiment);
    let [fault] = variant.faults.as_slice() else {
        panic!("one fault reported: {:?}", variant.faults);
    };
    assert_eq!(fault.error, None);
    assert!(fault.at_ms >= 1000.0, "{fault:?}");
    assert!(fault.down_ms >= 500.0, "{fault:?}");
    let back = fault.reprogrammed_ms.expect("programmed again");
    assert!(back >= fault.down_ms, "{fault:?}");
    for job in &variant.jobs {
        assert_eq!(job.switch_restarts, 1, "{}: struck while it ran", job.name);
        assert_eq!(
            job.chunks_in_switch + job.chunks_at_ps,
            job.chunks_total,
            "{}: every chunk once, across the reset",
            job.name
        );
        // The hosts saw the same: each worker got every result once.
        let workers = u64::from(job.workers);
        assert_eq!(
            job.results_from_switch + job.results_from_ps,
            job.chunks_total * workers,
            "{}",
            job.name
        );
        assert!(job.chunks_in_switch > job.chunks_total / 2, "{}", job.name);
    }
    let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
    assert_eq!(
        json["summary"][0]["faults"][0]["fault"],
        "switch-restart@1000ms,down=500ms"
    );
}

#[test]
fn jobs_in_process_survive_a_switch_restart_with_exact_accounting() {
    let (experiment, report) = run(None);
    assert_survived(&experiment, &report);
}

#[test]
fn jobs_in_namespaces_survive_a_switch_restart_with_exact_accounting() {
    if !esa_netns::tests_enabled("namespace test") {
        return;
    }
    let _one = crate::netns::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let (experiment, report) = run(Some(FabricKind::Netns));
    assert_survived(&experiment, &report);
    assert_eq!(
        esa_netns::namespaces_of(std::process::id()),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}

#[test]
fn jobs_in_namespaces_ride_out_a_link_going_down() {
    if !esa_netns::tests_enabled("namespace test") {
        return;
    }
    let _one = crate::netns::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let (experiment, report) = run_with(Some(FabricKind::Netns), link_down_at_one_second());
    let variant = &report.variants[0];
    common::assert_every_job_finished(&variant.jobs, &experiment);
    let [fault] = variant.faults.as_slice() else {
        panic!("one fault reported: {:?}", variant.faults);
    };
    assert_eq!(fault.error, None);
    assert!(fault.down_ms >= 500.0, "{fault:?}");
    // Port 1 is job a's first worker: what it lost, it sent again.
    let a = variant.jobs.iter().find(|j| j.name == "a").unwrap();
    assert!(a.retransmissions > 0, "{a:?}");
    for job in &variant.jobs {
        assert_eq!(job.switch_restarts, 0);
        assert_eq!(job.chunks_in_switch + job.chunks_at_ps, job.chunks_total);
    }
    assert_eq!(
        esa_netns::namespaces_of(std::process::id()),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}

#[test]
fn a_link_fault_needs_links_to_pull() {
    let (experiment, options) = setup(None, link_down_at_one_second());
    let err = esa_testbed::preflight(&experiment, &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("use --fabric netns"), "{err}");
}
