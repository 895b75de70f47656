//! The native engine (the code this crate generated) against p4sim's
//! reference interpreter on ESA's program: the benchmark stream, then
//! random and mutated packets, and every STF scenario; output frames
//! (port and bytes, in order) and run-time state (registers, counters,
//! direct counters) must be identical after every packet.

use std::sync::Arc;

use esa_p4::Arch;
use p4sim::v1switch::{Engine, V1Switch};

#[path = "../../../p4sim/benches/support/esa.rs"]
mod esa;

fn agrees(lanes: usize, slots: usize) {
    esa_p4::register();
    let c = esa::compile(lanes, slots);
    let mut r = V1Switch::with_engine(Arc::clone(&c), Engine::Reference);
    let mut n = V1Switch::with_engine(Arc::clone(&c), Engine::Native);
    assert_eq!(n.engine(), Engine::Native, "no generated code matched");
    esa::program(&mut r, 40);
    esa::program(&mut n, 40);
    let what = format!("esa.p4 K={lanes}, {slots} slots");
    let mut now = 0u64;
    let mut count = 0;
    for (i, (port, pkt)) in esa::trace(lanes, 64, 7).iter().enumerate() {
        now += 1;
        r.set_time_us(now);
        n.set_time_us(now);
        esa::step(&what, i, &mut r, &mut n, *port, pkt);
        count += 1;
    }
    for (i, (dt, port, pkt)) in esa::random_packets(lanes, 3000, lanes as u64)
        .iter()
        .enumerate()
    {
        now += dt;
        r.set_time_us(now);
        n.set_time_us(now);
        esa::step(&what, i, &mut r, &mut n, *port, pkt);
        count += 1;
    }
    assert!(count > 3000, "{what}: only {count} packets");
}

#[test]
fn native_matches_reference_on_esa_p4_with_32_lanes() {
    agrees(32, 4096);
}

#[test]
fn native_matches_reference_on_esa_p4_with_64_lanes() {
    agrees(64, 4096);
}

#[test]
fn native_matches_reference_on_the_contention_pool() {
    agrees(32, 64);
}

#[test]
fn another_configuration_runs_on_the_closures() {
    esa_p4::register();
    let c = esa::compile(32, 128);
    let sw = V1Switch::with_engine(c, Engine::Native);
    assert_eq!(sw.engine(), Engine::Compiled);
}

#[test]
fn native_matches_reference_on_every_stf_scenario() {
    esa_p4::register();
    let dir = Arch::V1model.test_dir();
    let c = Arc::new(
        p4sim::check::compile_file(&dir.join("esa_small.p4"), &[])
            .unwrap_or_else(|d| panic!("esa_small.p4: {d}")),
    );
    let mut ran = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "stf") {
            continue;
        }
        let stf = std::fs::read_to_string(&p).unwrap();
        let r = V1Switch::with_engine(Arc::clone(&c), Engine::Reference);
        let n = V1Switch::with_engine(Arc::clone(&c), Engine::Native);
        assert_eq!(
            n.engine(),
            Engine::Native,
            "esa_small.p4: no generated code"
        );
        let (ra, r) = p4sim::stf::runner::run_stf_on(r, &stf).unwrap();
        let (na, n) = p4sim::stf::runner::run_stf_on(n, &stf).unwrap();
        assert!(
            na.passed,
            "{}: fails on the native engine:\n{na}",
            p.display()
        );
        assert_eq!(ra.sequence, na.sequence, "{}", p.display());
        assert_eq!(ra.failures, na.failures, "{}", p.display());
        r.compare_state(&n)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} STF files");
}
