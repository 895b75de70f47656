//! Racks under spines (`[topology]`): the experiment file's section
//! becomes the simulator's leaf-spine fabric and each job's placement, and
//! the report gains the spine links and each level's share.

use std::path::Path;

use esa_core::sim::LeafSpine;
use esa_testbed::Experiment;
use esa_testbed::virtual_time::sim_config;

use crate::common::run_verified as run;

/// Four small jobs on `racks` racks of `hosts` hosts under two spines.
fn experiment(racks: u16, hosts: u16, topology: &str, compare: &str) -> Experiment {
    let text = format!(
        r#"
name = "racks"
seed = 9
scale = 0.002

[switch]
lanes = 32
pool_slots = 1024

[fabric]
kind = "sim"
bundle = 4

[topology]
racks = {racks}
hosts_per_rack = {hosts}
spines = 2
{topology}

[[jobs]]
name = "a"
workers = 4
model = "resnet50"
iterations = 2
window = 64

[[jobs]]
name = "b"
arrival_us = 200
workers = 6
model = "vgg16"
iterations = 2
window = 64

[[jobs]]
name = "c"
arrival_us = 400
workers = 2
model = "alexnet"
iterations = 2
window = 64

[[jobs]]
name = "d"
arrival_us = 600
workers = 8
model = "bert-base"
iterations = 2
window = 64

[compare]
{compare}
"#
    );
    Experiment::parse(&text, "racks").unwrap()
}

#[test]
fn a_topology_becomes_the_simulators_fabric_and_placements() {
    let e = experiment(
        4,
        8,
        "oversubscription = 2.0\nplacement = \"spread\"\nmax_racks_per_job = 3",
        "variants = [\"esa\", \"none\"]\nsecond_level = [true, false]",
    );
    let labels: Vec<&str> = e.variants.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(labels, ["esa", "esa (one level)", "none"]);
    for (variant, second_level) in [(&e.variants[0], true), (&e.variants[1], false)] {
        let jobs = e.jobs_for(variant);
        let config = sim_config(&e, &jobs, variant, &e.fabric.sim);
        assert_eq!(
            config.fabric,
            Some(LeafSpine {
                racks: 4,
                spines: 2,
                // 8 hosts x 100 Gbit/s / 2 over 2 spines.
                uplink_gbps: Some(200.0),
                second_level,
            })
        );
        let placements: Vec<Vec<(u16, u8)>> =
            config.jobs.iter().map(|j| j.placement.clone()).collect();
        // Spread: a rack per worker, at most three, round robin from where
        // the previous job's racks ended; every job fits at its arrival.
        assert_eq!(
            placements,
            [
                vec![(0, 2), (1, 1), (2, 1)],
                vec![(3, 2), (0, 2), (1, 2)],
                vec![(2, 1), (3, 1)],
                vec![(0, 3), (1, 3), (2, 2)],
            ]
            .map(|p| p.to_vec())
        );
        for (job, spec) in config.jobs.iter().zip(&e.jobs) {
            assert_eq!(job.start_us, spec.arrival_us, "{}", spec.name);
            let workers: u32 = job.placement.iter().map(|&(_, w)| u32::from(w)).sum();
            assert_eq!(workers, u32::from(job.workers));
        }
    }
}

#[test]
fn one_switch_is_unchanged_without_a_topology() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/cluster.toml"),
    )
    .unwrap();
    let e = Experiment::parse(&text, "cluster").unwrap();
    assert!(e.topology.is_none() && e.placements.is_empty());
    let config = sim_config(&e, &e.jobs, &e.variants[0], &e.fabric.sim);
    assert_eq!(config.fabric, None);
    assert!(config.jobs.iter().all(|j| j.placement.is_empty()));
}

#[test]
fn jobs_in_one_rack_each_run_on_the_leaf_spine_fabric() {
    // Packed on racks of 8 hosts: every job fits one rack, so every job is
    // flat on its ToR and no byte crosses a spine link.
    let e = experiment(
        4,
        8,
        "placement = \"packed\"",
        "variants = [\"esa\", \"atp\", \"switchml\", \"none\"]",
    );
    assert!(e.placements.iter().all(|p| p.racks.len() == 1));
    let report = run(&e);
    for v in &report.variants {
        let c = v.cluster.as_ref().unwrap();
        let r = c.racks.as_ref().expect("rack figures");
        assert_eq!((r.racks, r.spines, r.jobs_across_racks), (4, 2, 0));
        assert_eq!(r.spine_bytes(), 0, "{}", v.variant);
        assert_eq!(r.mean_racks_per_job, 1.0);
        assert_eq!(r.spine_share, None);
        let want = if v.host_only() { 0.0 } else { 1.0 };
        assert!(
            (r.rack_share - want).abs() < 1e-9,
            "{}: {}",
            v.variant,
            r.rack_share
        );
        assert!(v.jobs.iter().all(|j| j.racks == 1));
    }
    assert!(report.table().contains("4 racks of 8 hosts under 2 spines"));
    assert!(report.markdown().contains("## Racks"));
}

#[test]
fn a_job_waits_for_hosts_and_its_start_moves() {
    // Two racks of 4 hosts: d (8 workers) waits until a, b and c have
    // released theirs; the report counts its wait apart from its JCT.
    let e = experiment(2, 4, "placement = \"packed\"", "variants = [\"esa\"]");
    let d = &e.placements[3];
    assert!(d.start_us > e.jobs[3].arrival_us, "{d:?}");
    let released = e.placements[..3]
        .iter()
        .map(|p| p.held_until_us)
        .max()
        .unwrap();
    assert_eq!(d.start_us, released);
    let jobs = e.jobs_for(&e.variants[0]);
    let config = sim_config(&e, &jobs, &e.variants[0], &e.fabric.sim);
    assert_eq!(config.jobs[3].start_us, d.start_us);
}

#[test]
fn the_shipped_racks_cluster_is_issue_41s() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/cluster-racks.toml");
    let e = Experiment::load(&path).unwrap();
    let t = e.topology.as_ref().unwrap();
    // At least 512 hosts in at least 16 racks.
    assert!(t.hosts() >= 512 && t.racks >= 16, "{t:?}");
    assert_eq!(t.oversubscription(e.fabric.sim.link_gbps), 2.0);
    // Jobs of 8 to 64 workers, across up to 8 racks; most across several.
    assert!(e.jobs.iter().all(|j| (8..=64).contains(&j.workers)));
    assert!(e.jobs.iter().any(|j| j.workers == 64));
    assert!(e.placements.iter().all(|p| p.racks.len() <= 8));
    assert!(e.placements.iter().all(|p| p.racks.len() > 1));
    // ESA, ATP and SwitchML with and without the second level, and none.
    let labels: Vec<&str> = e.variants.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "esa/srpt",
            "esa/srpt (one level)",
            "atp",
            "atp (one level)",
            "switchml",
            "switchml (one level)",
            "none"
        ]
    );
    // The load leaves hosts free: no job waits.
    assert!(
        e.placements
            .iter()
            .zip(&e.jobs)
            .all(|(p, j)| p.start_us == j.arrival_us)
    );
}

#[test]
fn jobs_across_racks_aggregate_at_both_levels_and_save_spine_bytes() {
    // Spread over racks of 8: every job is a tree of two or three racks.
    let e = experiment(
        4,
        8,
        "placement = \"spread\"\nmax_racks_per_job = 3",
        "variants = [\"esa/srpt\", \"atp\", \"switchml\", \"none\"]\nsecond_level = [true, false]",
    );
    assert!(e.placements.iter().all(|p| p.racks.len() > 1));
    let report = run(&e);
    let racks = |label: &str| {
        let v = report.variants.iter().find(|v| v.variant == label).unwrap();
        (v, v.cluster.as_ref().unwrap().racks.clone().unwrap())
    };
    let (_, none) = racks("none");
    assert!(none.spine_bytes() > 0);
    assert_eq!(none.rack_share, 0.0);
    for scheme in ["esa/srpt", "atp", "switchml"] {
        let (two, both) = racks(scheme);
        let (one, leaves) = racks(&format!("{scheme} (one level)"));
        assert_eq!(both.jobs_across_racks, 4, "{scheme}");
        assert!(both.second_level && !leaves.second_level);
        // A rack sends one partial per chunk up, not one per worker: the
        // spine links carry less than without in-network aggregation.
        for r in [&both, &leaves] {
            assert!(r.rack_share > 0.99, "{scheme}: {r:?}\n{}", report.table());
            assert!(r.spine_bytes() < none.spine_bytes(), "{scheme}: {r:?}");
        }
        assert!(both.spine_share.unwrap() > 0.99, "{scheme}: {both:?}");
        assert_eq!(leaves.spine_share, Some(0.0), "{scheme}: {leaves:?}");
        // Without the second level the PS receives every rack's partial.
        assert!(
            one.ps_bytes_per_chunk().0 > 1.5 * two.ps_bytes_per_chunk().0,
            "{scheme}\n{}",
            report.table()
        );
        assert!(
            two.jobs
                .iter()
                .all(|j| j.racks > 1 && j.rack_share.is_some())
        );
    }
    assert!(report.markdown().contains("| esa/srpt (one level) | 1 |"));
}
