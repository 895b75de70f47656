//! `testbed/experiments/quick.toml` end to end, in process: esa-switch,
//! the controller over P4Runtime, workers and parameter servers.

use crate::common;

use std::path::Path;

use esa_testbed::{Experiment, RunOptions, run_experiment};

fn options() -> RunOptions {
    RunOptions {
        progress: false,
        ..RunOptions::default()
    }
}

#[test]
fn quick_experiment_finishes_verified_with_in_switch_aggregation() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/quick.toml");
    let experiment = Experiment::load(&path).unwrap();
    let report = run_experiment(&experiment, &options()).unwrap();
    print!("{}", report.table());
    assert_eq!(report.variants.len(), 1);
    let jobs = &report.variants[0].jobs;
    common::assert_every_job_finished(jobs, &experiment);
    for job in jobs {
        // The timeline ends where the PS's counters ended.
        let last = job.results_timeline.last().expect("a results timeline");
        assert_eq!(last[2], job.chunks_at_ps as f64, "{}", job.name);
        assert!(last[1] <= job.chunks_in_switch as f64, "{}", job.name);
        assert!(last[1] > 0.0, "{}", job.name);
    }
    let dir = std::env::temp_dir().join(format!("esa-testbed-quick-{}", std::process::id()));
    report.write(&dir).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let listed = json["jobs"].as_array().unwrap();
    assert_eq!(listed.len(), jobs.len());
    assert!(
        listed
            .iter()
            .all(|j| j["verified"] == serde_json::Value::Bool(true))
    );
    for name in [
        "report.md",
        "jct_bars.svg",
        "jct_cdf.svg",
        "share_over_time.svg",
    ] {
        assert!(dir.join(name).is_file(), "{name}");
    }
    // No training job: no loss curve.
    assert!(!dir.join("loss_curve.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A job the controller refuses (its switchml range overlaps a running
/// job's) is reported as failed; the run itself goes on.
#[test]
fn a_refused_admission_is_reported_not_fatal() {
    let text = r#"
[switch]
lanes = 32
pool_slots = 256

[[jobs]]
name = "first"
workers = 2
gradient_elems = 4096
compute_ms = 150
iterations = 3
mode = "switchml"
slots = 128
slot_base = 0

[[jobs]]
name = "overlapping"
arrival_ms = 50
workers = 2
gradient_elems = 4096
iterations = 1
mode = "switchml"
slots = 128
slot_base = 0
"#;
    let experiment = Experiment::parse(text, "refused").unwrap();
    let report = run_experiment(&experiment, &options()).unwrap();
    let jobs = &report.variants[0].jobs;
    assert!(jobs[0].verified, "{:?}", jobs[0].error);
    assert!(!jobs[1].verified);
    let error = jobs[1].error.as_deref().unwrap_or_default();
    assert!(error.contains("admission refused"), "{error}");
    assert!(!report.all_verified());
}

/// `contention.toml`: more work in flight than the pool holds, under ESA,
/// ATP and SwitchML. Only correctness is asserted (timings are not).
#[test]
fn contention_experiment_verifies_under_every_variant() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/contention.toml");
    let experiment = Experiment::load(&path).unwrap();
    let report = run_experiment(&experiment, &options()).unwrap();
    print!("{}", report.table());
    let labels: Vec<&str> = report.variants.iter().map(|v| v.variant.as_str()).collect();
    assert_eq!(labels, ["esa/srpt", "atp", "switchml"]);
    for job in report.jobs() {
        assert!(
            job.verified,
            "{} / {}: {:?}",
            job.variant, job.name, job.error
        );
        assert!(
            job.chunks_in_switch + job.chunks_at_ps >= job.chunks_total,
            "{} / {}",
            job.variant,
            job.name
        );
    }
    // SwitchML does not preempt.
    let switchml = &report.variants[2];
    assert!(switchml.jobs.iter().all(|j| j.preemptions == 0));
}

/// `quick.toml` on the Tofino program (`arch = "tna"`): esa-switch runs
/// p4/tna/esa.p4 in p4sim's TNA architecture, the controller programs its
/// tables (the ternary slot range, `job_ids`) and reads its counters
/// (`job_rows_N[job ++ row % 4]`) over P4Runtime, and every job verifies with
/// its chunks aggregated in the switch.
#[test]
fn quick_experiment_verifies_on_the_tofino_program() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/quick.toml");
    let mut experiment = Experiment::load(&path).unwrap();
    experiment.switch.arch = esa_testbed::experiment::Arch::Tna;
    assert!(
        esa_testbed::run::program_path(&experiment).ends_with("p4/tna/esa.p4"),
        "{}",
        esa_testbed::run::program_path(&experiment).display()
    );
    let report = run_experiment(&experiment, &options()).unwrap();
    print!("{}", report.table());
    let jobs = &report.variants[0].jobs;
    common::assert_every_job_finished(jobs, &experiment);
}

/// `quick.toml` on the Tofino program at its full pool, 32,768 slots (4 MiB
/// of lanes, the size bf-p4c places in 12 stages: p4/tna/README.md,
/// "Resources"): the controller reads the same counters, every job
/// verifies.
#[test]
fn quick_experiment_verifies_on_the_tofino_program_at_full_size() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/quick.toml");
    let mut experiment = Experiment::load(&path).unwrap();
    experiment.switch.arch = esa_testbed::experiment::Arch::Tna;
    experiment.switch.pool_slots = 32_768;
    let report = run_experiment(&experiment, &options()).unwrap();
    print!("{}", report.table());
    let jobs = &report.variants[0].jobs;
    common::assert_every_job_finished(jobs, &experiment);
}

/// `contention.toml` on the Tofino program: preemption, stale reclaim,
/// ATP's held slots and SwitchML's ranges through the second passes of
/// p4/tna/esa.p4, every job exact.
#[test]
fn contention_experiment_verifies_on_the_tofino_program() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/contention.toml");
    let mut experiment = Experiment::load(&path).unwrap();
    experiment.switch.arch = esa_testbed::experiment::Arch::Tna;
    let report = run_experiment(&experiment, &options()).unwrap();
    print!("{}", report.table());
    for job in report.jobs() {
        assert!(
            job.verified,
            "{} / {}: {:?}",
            job.variant, job.name, job.error
        );
    }
    // ESA preempted: the D11 second pass ran
    assert!(report.variants[0].jobs.iter().any(|j| j.preemptions > 0));
}

/// `RunOptions::interrupt` raised while a long job runs: the run stops
/// within a bound and ends with `TestbedError::Interrupted`, reporting no
/// job (tests/all/kill_processes.rs checks, through `esa run` and SIGINT,
/// that an external switch is left holding no job).
#[test]
fn an_interrupted_run_stops_and_says_so() {
    let experiment = Experiment::parse(
        "name = \"long\"\n[switch]\nlanes = 32\npool_slots = 256\n[[jobs]]\nname = \"a\"\n\
         workers = 2\ngradient_elems = 65536\niterations = 100000\n",
        "long",
    )
    .unwrap();
    let options = options();
    let interrupt = std::sync::Arc::clone(&options.interrupt);
    let raised = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(2));
        interrupt.store(true, std::sync::atomic::Ordering::SeqCst);
        std::time::Instant::now()
    });
    let result = run_experiment(&experiment, &options);
    let stopped_after = raised.join().unwrap().elapsed();
    assert!(
        matches!(result, Err(esa_testbed::TestbedError::Interrupted)),
        "{result:?}"
    );
    assert!(
        stopped_after < std::time::Duration::from_secs(10),
        "stopped {stopped_after:?} after the interrupt"
    );
}
