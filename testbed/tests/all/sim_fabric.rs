//! The sim fabric: experiment files in virtual time, with every job's sums
//! checked, the cluster figures, the host-only baseline, and what the
//! emulator fabrics refuse.

use esa_testbed::virtual_time::effective_bundle;
use esa_testbed::{Experiment, ExperimentReport, RunOptions, TestbedError, run_experiment};

use crate::common::run_verified as run;

/// Four jobs at 1/100 of real sizes sharing a pool of `pool` slots.
fn experiment(pool: u32, variants: &str) -> Experiment {
    let text = format!(
        r#"
name = "small-cluster"
seed = 5
scale = 0.01

[switch]
lanes = 32
pool_slots = {pool}

[fabric]
kind = "sim"
bundle = 8

[[jobs]]
name = "vgg"
workers = 4
model = "vgg16"
iterations = 3
window = 256

[[jobs]]
name = "bert"
arrival_us = 300
workers = 8
model = "bert-base"
iterations = 3
window = 256

[[jobs]]
name = "resnet"
arrival_us = 600
workers = 4
model = "resnet50"
iterations = 4
window = 256

[[jobs]]
name = "alexnet"
arrival_us = 900
workers = 2
model = "alexnet"
iterations = 4
window = 256

[compare]
variants = {variants}
"#
    );
    Experiment::parse(&text, "small-cluster").unwrap()
}

#[test]
fn every_variant_finishes_exact_with_its_cluster_figures() {
    let e = experiment(
        2048,
        r#"["esa/srpt", "esa/las", "atp", "switchml", "none"]"#,
    );
    let report = run(&e);
    assert_eq!(report.fabric, "sim");
    for v in &report.variants {
        let c = v.cluster.as_ref().expect("cluster figures");
        assert_eq!(v.jobs.len(), 4);
        for j in &v.jobs {
            assert_eq!(
                j.iterations_done, j.iterations,
                "{} / {}",
                v.variant, j.name
            );
            // Chunks are reported in real packets: whole bundles of 8, so
            // each iteration's last bundle may count up to 7 beyond.
            let done = j.chunks_in_switch + j.chunks_at_ps;
            assert!(
                done >= j.chunks_total && done < j.chunks_total + 8 * u64::from(j.iterations),
                "{} / {}: {} + {} of {}",
                v.variant,
                j.name,
                j.chunks_in_switch,
                j.chunks_at_ps,
                j.chunks_total
            );
            let s = j.slowdown.expect("slowdown");
            assert!(s > 0.9, "{} / {}: slowdown {s}", v.variant, j.name);
        }
        assert!(c.mean_jct_ms > 0.0 && c.p95_jct_ms >= c.mean_jct_ms * 0.5);
        assert!(c.max_slowdown >= c.mean_slowdown);
        assert!(c.jain_fairness > 0.0 && c.jain_fairness <= 1.0 + 1e-9);
        match v.variant.as_str() {
            "none" => {
                assert_eq!(c.aggregator_utilization, 0.0);
                assert!(c.utilization_timeline.is_empty());
                assert!(v.jobs.iter().all(|j| j.chunks_in_switch == 0));
            }
            _ => {
                assert!(c.aggregator_utilization > 0.0, "{}", v.variant);
                assert!(!c.utilization_timeline.is_empty(), "{}", v.variant);
            }
        }
        if v.variant != "atp" {
            assert_eq!(
                c.held_us_per_use, 0.0,
                "{} holds no slot after completion",
                v.variant
            );
        }
    }
    // No frame is lost, so nothing is resent: a chunk that waits (for a
    // slow peer, the PS, a slot split with the PS) is probed, not resent.
    for v in &report.variants {
        assert_eq!(v.retransmissions(), 0, "{}\n{}", v.variant, report.table());
    }
    // Held slots are ATP's: each waits for the PS's result to come back.
    let atp = report.variants.iter().find(|v| v.variant == "atp").unwrap();
    assert!(atp.cluster.as_ref().unwrap().held_us_per_use > 0.0);
    // No in-network aggregation sends every worker's packets through the
    // PS's one link: every job is slower than with ESA.
    let esa = &report.variants[0];
    let none = report
        .variants
        .iter()
        .find(|v| v.variant == "none")
        .unwrap();
    for (a, b) in esa.jobs.iter().zip(&none.jobs) {
        assert!(
            b.jct_ms > a.jct_ms,
            "{}: none {} ms, esa {} ms",
            a.name,
            b.jct_ms,
            a.jct_ms
        );
    }
}

#[test]
fn the_same_file_gives_the_same_report() {
    let e = experiment(256, r#"["esa/srpt", "atp"]"#);
    let strip = |mut r: ExperimentReport| {
        for v in &mut r.variants {
            v.wall_ms = 0.0;
            if let Some(c) = &mut v.cluster {
                c.events_per_s = 0.0;
            }
        }
        r
    };
    assert_eq!(strip(run(&e)), strip(run(&e)));
}

#[test]
fn a_pool_too_small_for_the_windows_sends_work_to_the_ps_and_esa_preempts() {
    // 64 slots for four jobs of 256-packet windows, SRPT priorities.
    let report = run(&experiment(64, r#"["esa/srpt:aging_ms=0", "atp"]"#));
    let esa = &report.variants[0];
    let atp = &report.variants[1];
    assert!(
        esa.jobs.iter().map(|j| j.preemptions).sum::<u64>() > 0,
        "{}",
        report.table()
    );
    assert!(atp.jobs.iter().all(|j| j.preemptions == 0));
    assert!(atp.in_switch_share() < 1.0);
}

#[test]
fn the_emulator_fabrics_refuse_the_host_only_variant() {
    let mut e = experiment(2048, r#"["esa", "none"]"#);
    e.fabric.kind = esa_testbed::experiment::FabricKind::InProcess;
    match run_experiment(&e, &RunOptions::default()) {
        Err(TestbedError::Invalid(m)) => assert!(m.contains("sim fabric only"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn bundles_are_no_coarser_than_a_quarter_window_a_range_or_the_pool() {
    let e = experiment(2048, r#"["switchml"]"#);
    let jobs = e.jobs_for(&e.variants[0]);
    let config = esa_testbed::virtual_time::sim_config(&e, &jobs, &e.variants[0], &e.fabric.sim);
    // Four jobs share 2048 slots: 512 each; windows of 256 allow 64.
    assert_eq!(config.bundle, 8, "asked for 8");
    assert_eq!(effective_bundle(1024, 2048, &config.jobs), 64);
    assert_eq!(effective_bundle(1024, 16, &config.jobs), 16);
    assert_eq!(effective_bundle(0, 2048, &config.jobs), 1);
}

/// One job alone on a pool it does not fill, at packet level.
fn lone(mode: &str) -> ExperimentReport {
    let text = format!(
        r#"
name = "lone"
seed = 3

[switch]
lanes = 32
pool_slots = 1024

[fabric]
kind = "sim"
bundle = 1

[[jobs]]
name = "a"
workers = 4
gradient_elems = 32768
iterations = 3
window = 64

[compare]
variants = ["{mode}"]
"#
    );
    run(&Experiment::parse(&text, "lone").unwrap())
}

#[test]
fn a_ps_link_carries_one_frame_per_chunk_in_and_under_atp_one_out() {
    // ESA and SwitchML: the switch's completion reaches the PS (it caches
    // results for late resends); the PS sends nothing. ATP: the completion
    // goes to the PS only, and its result goes back out once, to the
    // workers through the switch, never back to the PS.
    let frame = esa_core::constants::esa_frame_len(32) as f64;
    for (mode, sent) in [("esa", 0.0), ("switchml", 0.0), ("atp", frame)] {
        let report = lone(mode);
        let v = &report.variants[0];
        assert_eq!(v.jobs[0].chunks_total, 3 * 1024);
        assert_eq!(v.in_switch_share(), 1.0, "{mode}");
        // The run ends with the workers' last results; the PS's copy of the
        // last few may still be on its link.
        let (rx, tx) = v.ps_bytes_per_chunk();
        let near = |got: f64, want: f64| (got - want).abs() <= frame * 4.0 / 3072.0;
        assert!(
            near(rx, frame) && near(tx, sent),
            "{mode}: in {rx} out {tx}\n{}",
            report.table()
        );
        assert_eq!(v.retransmissions(), 0, "{mode}");
    }
}
