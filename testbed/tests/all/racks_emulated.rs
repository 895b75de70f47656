//! Racks under spines, emulated: `racks-three-switch.toml`'s two ToRs and
//! spine as three switches of their own, a controller each under the
//! fabric controller. In process always; on the namespace fabric with
//! `ESA_NETNS_TESTS=1`; on three BMv2 `simple_switch_grpc`s when BMv2 is
//! found (required with `ESA_BMV2_REQUIRED=1`). Every job's sums are
//! exact, and the job across racks shows the spine's work: its root
//! completed chunks (a flat setup completes none there) and its ToRs sent
//! their racks' partials up.

use std::path::Path;
use std::sync::Arc;

use esa_testbed::{
    Bmv2Target, Experiment, ExperimentReport, FabricKind, RunOptions, run_experiment,
};

use crate::common::run_verified;
use crate::netns::ONE_AT_A_TIME;

fn three_switches() -> Experiment {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/racks-three-switch.toml");
    Experiment::load(&path).unwrap()
}

/// The job across racks aggregated at both levels where the variant has
/// the second level, at its ToRs only (the PS adding the racks) where it
/// has not; the job in one rack is flat on its ToR.
fn assert_both_levels(report: &ExperimentReport) {
    assert!(report.all_verified(), "{}", report.table());
    for v in &report.variants {
        let job = |name: &str| v.jobs.iter().find(|j| j.name == name).unwrap();
        let (wide, narrow) = (job("wide"), job("narrow"));
        let second_level = !v.variant.ends_with("(one level)");
        assert_eq!(wide.racks, 2, "{}", v.variant);
        assert_eq!(narrow.racks, 1, "{}", v.variant);
        assert!(narrow.chunks_in_switch > 0, "{}", v.variant);
        // The ToRs sent their racks' partials up.
        let rack_share = wide.rack_share.unwrap_or(0.0);
        assert!(rack_share > 0.0, "{}: no rack partial", v.variant);
        // Every chunk completed somewhere: at the spine or at the PS.
        assert!(
            wide.chunks_in_switch + wide.chunks_at_ps >= wide.chunks_total,
            "{}",
            v.variant
        );
        if second_level {
            assert!(
                wide.chunks_in_switch > 0,
                "{}: the spine completed nothing\n{}",
                v.variant,
                report.table()
            );
        } else {
            assert_eq!(wide.chunks_in_switch, 0, "{}", v.variant);
            assert!(wide.fallback_parts > 0, "{}", v.variant);
        }
    }
}

#[test]
fn three_switches_in_process_aggregate_at_both_levels() {
    let e = three_switches();
    let labels: Vec<&str> = e.variants.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "esa",
            "esa (one level)",
            "atp",
            "atp (one level)",
            "switchml",
            "switchml (one level)"
        ]
    );
    let report = run_verified(&e);
    assert_eq!(report.fabric, "inprocess");
    assert_eq!(
        report.setup,
        "2 ToRs and 1 spine, each esa-switch (p4sim, in process); hosts on in-memory ports"
    );
    assert_both_levels(&report);
}

#[test]
fn what_several_switches_cannot_do_is_refused_before_anything_starts() {
    let refused = |e: &Experiment, options: &RunOptions| {
        esa_testbed::preflight(e, options).unwrap_err().to_string()
    };
    let options = RunOptions {
        progress: false,
        faults: vec!["switch-restart@1s".parse().unwrap()],
        ..RunOptions::default()
    };
    let err = refused(&three_switches(), &options);
    assert!(
        err.contains("with a [topology] there are several switches"),
        "{err}"
    );
}

/// The Tofino program at both levels, in p4sim: its leaf rows at the ToRs
/// and its root rows at the spine.
#[test]
fn three_tofino_switches_in_process_aggregate_at_both_levels() {
    let mut e = three_switches();
    e.switch.arch = esa_testbed::experiment::Arch::Tna;
    let program = esa_testbed::run::program_path(&e);
    assert!(program.ends_with("p4/tna/esa.p4"), "{}", program.display());
    let report = run_verified(&e);
    assert_both_levels(&report);
}

/// Runs `e` with `options`, one namespace run at a time, and checks that
/// it left no namespace, interface or switch process behind.
fn run_cleanly(e: &Experiment, options: &RunOptions) -> ExperimentReport {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let report = run_experiment(e, options).unwrap();
    print!("{}", report.table());
    let me = std::process::id();
    let left = esa_netns::namespaces_of(me);
    assert_eq!(left, Vec::<String>::new(), "namespaces left behind");
    let left = esa_netns::switch_links_of(me);
    assert_eq!(
        left,
        Vec::<String>::new(),
        "links between switches left behind"
    );
    assert_eq!(
        switch_children(),
        0,
        "a simple_switch_grpc outlived the run"
    );
    report
}

/// This process's children that are `simple_switch_grpc`.
fn switch_children() -> usize {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // pid (comm) state ppid ...
            let Some((comm, rest)) = stat.split_once(") ") else {
                return false;
            };
            comm.ends_with("simple_switch_g") && rest.split(' ').nth(1) == Some(me.as_str())
        })
        .count()
}

#[test]
fn three_switches_on_namespaces_aggregate_at_both_levels() {
    if !esa_netns::tests_enabled("three switches on namespaces") {
        return;
    }
    let mut e = three_switches();
    // The in-process test runs every variant; here one is enough.
    e.variants.retain(|v| v.label == "esa");
    let options = RunOptions {
        progress: false,
        fabric: Some(FabricKind::Netns),
        ..RunOptions::default()
    };
    let report = run_cleanly(&e, &options);
    assert_eq!(report.fabric, "netns");
    assert_both_levels(&report);
}

/// A size three BMv2s carry in seconds: a job of three workers over both
/// racks and one of two in the second rack, small windows.
const BMV2_RACKS: &str = r#"
name = "racks-bmv2"
seed = 41

[switch]
lanes = 32
pool_slots = 64

[topology]
racks = 2
hosts_per_rack = 2
spines = 1
placement = "packed"

[[jobs]]
name = "wide"
workers = 3
gradient_elems = 2048
compute_ms = 5
iterations = 2
window = 4

[[jobs]]
name = "narrow"
arrival_ms = 0
workers = 2
gradient_elems = 1024
compute_ms = 5
iterations = 2
window = 4

[compare]
variants = ["esa"]
second_level = [true, false]
"#;

#[test]
fn three_bmv2_switches_aggregate_at_both_levels() {
    if !esa_netns::tests_enabled("three BMv2 switches")
        || esa_bmv2::Tools::for_test("three_bmv2_switches", false).is_none()
    {
        return;
    }
    let e = Experiment::parse(BMV2_RACKS, "racks-bmv2").unwrap();
    let work = std::env::temp_dir().join(format!("esa-racks-bmv2-{}", std::process::id()));
    let options = RunOptions {
        progress: false,
        switch: Arc::new(Bmv2Target::default()),
        work_dir: Some(work.clone()),
        ..RunOptions::default()
    };
    let report = run_cleanly(&e, &options);
    assert_eq!(
        (report.switch.as_str(), report.fabric.as_str()),
        ("bmv2", "netns")
    );
    assert_both_levels(&report);
    // Each switch wrote its log in a folder of its own.
    for switch in ["tor0", "tor1", "spine0"] {
        assert!(work.join(switch).join("simple_switch_grpc.log").is_file());
    }
    let _ = std::fs::remove_dir_all(&work);
}
