//! `esa run` on the namespace fabric: every host in its own network
//! namespace on a kernel UDP socket, esa-switch on the root-side veth ends
//! through AF_PACKET. Needs root; opt in with `ESA_NETNS_TESTS=1` (CI
//! does), otherwise skipped with a note.

#![cfg(target_os = "linux")]

use crate::common;

use std::path::Path;
use std::sync::Mutex;

use esa_testbed::{Experiment, FabricKind, RunOptions, run_experiment};

/// One namespace run at a time, so that "nothing left behind" sees only
/// the run that just ended.
pub(crate) static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn enabled() -> bool {
    esa_netns::tests_enabled("namespace test")
}

fn netns_options() -> RunOptions {
    RunOptions {
        progress: false,
        fabric: Some(FabricKind::Netns),
        ..RunOptions::default()
    }
}

/// Namespaces this process made and left behind.
fn our_namespaces() -> Vec<String> {
    esa_netns::namespaces_of(std::process::id())
}

fn experiment(name: &str) -> Experiment {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("experiments")
        .join(name);
    Experiment::load(&path).unwrap()
}

#[test]
fn quick_experiment_in_namespaces_finishes_verified() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let experiment = experiment("quick.toml");
    let report = run_experiment(&experiment, &netns_options()).unwrap();
    print!("{}", report.table());
    assert_eq!(report.fabric, "netns");
    assert!(report.setup.contains("namespaces"), "{}", report.setup);
    let jobs = &report.variants[0].jobs;
    common::assert_every_job_finished(jobs, &experiment);
    for job in jobs {
        assert_eq!(job.wrong_elements, 0, "{}", job.name);
        // Nothing was lost on purpose, and nothing counted as lost.
        assert_eq!(job.frames_lost, 0, "{}", job.name);
    }
    let dir = std::env::temp_dir().join(format!("esa-testbed-netns-{}", std::process::id()));
    report.write(&dir).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["fabric"], "netns");
    assert!(
        json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|j| j["verified"] == serde_json::Value::Bool(true))
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        our_namespaces(),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}

/// Loss on the namespace fabric comes from nftables rules in the hosts'
/// namespaces; their drop counters are the report's lost frames, and the
/// sums stay exact.
#[test]
fn loss_in_namespaces_is_counted_and_recovered() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut experiment = experiment("loss.toml");
    // One variant is enough here; tests/loss.rs covers the rest in process.
    experiment.variants.truncate(1);
    experiment.switch.loss = 0.03;
    let report = run_experiment(&experiment, &netns_options()).unwrap();
    print!("{}", report.table());
    let mut lost = 0;
    for job in report.jobs() {
        assert!(job.verified, "{}: {:?}", job.name, job.error);
        assert_eq!(job.wrong_elements, 0, "{}", job.name);
        lost += job.frames_lost;
        assert!(
            job.frames_lost == 0 || job.retransmissions > 0,
            "{}: {} frames lost and no retransmission",
            job.name,
            job.frames_lost
        );
    }
    assert!(
        lost > 0,
        "the loss rules dropped nothing: the test proves nothing"
    );
    assert_eq!(
        our_namespaces(),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}
