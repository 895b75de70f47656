//! p4sim's fast engines on ESA's program against its reference
//! interpreter: the closure engine at K = 4, 32 and 64, and the native
//! engine (the code this crate generated) at the configurations it was
//! generated for. Each runs the benchmark stream (`esa_p4::bench`), then
//! random packets of every class, bad input included
//! (`support::random_packet`), some with flipped bytes, over jobs
//! installed as the controller does, with time jumps that make slots go
//! stale; then every STF scenario of `esa_small.p4`. Output frames (port
//! and bytes, in order) and run-time state (registers, counters, direct
//! counters) must be identical after every packet
//! (`V1Switch::lockstep`).

use std::sync::Arc;

use esa_core::pool::{Pool, PoolConfig};
use esa_core::rng::Rng;
use esa_p4::{Arch, Defines, bench};
use p4sim::ir::Compiled;
use p4sim::v1switch::{Engine, V1Switch};

use crate::support;

/// Stale bound of the pool, µs: short, so the time jumps evict slots.
const STALE_US: u64 = 40;

fn compile(lanes: usize, slots: u32) -> Arc<Compiled> {
    esa_p4::program::compile(&Arch::V1model.program(), &Defines::new(lanes, slots))
        .unwrap_or_else(|e| panic!("esa.p4 K={lanes}, {slots} slots: {e}"))
}

/// The reference and `engine` on `c`, both programmed with `jobs`. The
/// engine under test starts each packet with garbage in its scratch slots
/// (`V1Switch::fill_scratch`), where the reference keeps the last
/// packet's values: reading one before writing it would show.
fn pair(c: &Arc<Compiled>, lanes: usize, engine: Engine) -> (V1Switch, V1Switch) {
    esa_p4::register();
    let jobs = bench::jobs();
    let (mut r, _) = bench::program(&jobs, c, lanes, Engine::Reference).unwrap();
    let (mut f, _) = bench::program(&jobs, c, lanes, engine).unwrap();
    assert_eq!(f.engine(), engine, "no code for this configuration");
    f.fill_scratch(0x5a5a_a5a5_5a5a_a5a5);
    for sw in [&mut r, &mut f] {
        esa_p4::sim::set_stale_after(sw, Arch::V1model, STALE_US).unwrap();
    }
    (r, f)
}

/// A switch on `engine` with `jobs` installed as the controller does.
fn random_jobs_on(
    c: &Arc<Compiled>,
    engine: Engine,
    jobs: &[support::Job],
    lanes: usize,
    slots: u32,
) -> V1Switch {
    let mut sw = V1Switch::with_engine(Arc::clone(c), engine);
    assert_eq!(sw.engine(), engine, "no code for this configuration");
    esa_p4::sim::set_stale_after(&mut sw, Arch::V1model, STALE_US).unwrap();
    let mut pool = Pool::new(PoolConfig {
        slots: slots as usize,
        lanes,
        stale_after_us: STALE_US,
    })
    .unwrap();
    support::install_jobs(&mut pool, &mut sw, Arch::V1model, jobs);
    sw
}

fn agrees(lanes: usize, slots: u32, engine: Engine) {
    let c = compile(lanes, slots);
    let what = format!("esa.p4 K={lanes}, {slots} slots, on {engine:?}");
    let (mut r, mut f) = pair(&c, lanes, engine);
    let mut now = 0u64;
    let step = |r: &mut V1Switch, f: &mut V1Switch, i: usize, port: u16, pkt: &[u8]| {
        r.lockstep(f, port, pkt)
            .unwrap_or_else(|e| panic!("{what}: packet {i}: {e}"));
    };
    let stream = bench::trace(&bench::jobs(), lanes, 1500);
    for (i, (port, pkt)) in stream.iter().enumerate() {
        now += 1;
        r.set_time_us(now);
        f.set_time_us(now);
        step(&mut r, &mut f, i, *port, pkt);
    }
    // Then random jobs on fresh switches, and every kind of packet.
    let mut rng = Rng::new(lanes as u64 ^ (u64::from(slots) << 8));
    let jobs = support::random_jobs(&mut rng, slots as usize);
    let (mut r, mut f) = (
        random_jobs_on(&c, Engine::Reference, &jobs, lanes, slots),
        random_jobs_on(&c, engine, &jobs, lanes, slots),
    );
    for i in 0..3000 {
        let (port, mut pkt) = support::random_packet(&mut rng, &jobs, lanes);
        if rng.chance(0.08) && !pkt.is_empty() {
            for _ in 0..=rng.below(3) {
                let at = rng.below(pkt.len() as u64) as usize;
                pkt[at] ^= 1 << rng.below(8);
            }
        }
        now += match rng.below(10) {
            0 => 1000,
            1 => rng.below(100_000),
            _ => rng.below(10),
        };
        r.set_time_us(now);
        f.set_time_us(now);
        step(&mut r, &mut f, stream.len() + i, port, &pkt);
    }
    if engine == Engine::Compiled {
        // Nothing of esa.p4 falls back to the interpreter.
        let lowered = f.compiled_program().unwrap().stats();
        assert_eq!(lowered.statements_interpreted, 0, "{what}: {lowered:?}");
        assert_eq!(lowered.expressions_interpreted, 0, "{what}: {lowered:?}");
    }
}

#[test]
fn closures_match_reference_with_4_lanes() {
    agrees(4, 64, Engine::Compiled);
}

#[test]
fn closures_match_reference_with_32_lanes() {
    agrees(32, 64, Engine::Compiled);
}

#[test]
fn closures_match_reference_with_64_lanes() {
    agrees(64, 64, Engine::Compiled);
}

#[test]
fn native_matches_reference_with_32_lanes() {
    agrees(32, 4096, Engine::Native);
}

#[test]
fn native_matches_reference_with_64_lanes() {
    agrees(64, 4096, Engine::Native);
}

#[test]
fn native_matches_reference_on_the_contention_pool() {
    agrees(32, 64, Engine::Native);
}

#[test]
fn another_configuration_runs_on_the_closures() {
    esa_p4::register();
    let sw = V1Switch::with_engine(compile(32, 128), Engine::Native);
    assert_eq!(sw.engine(), Engine::Compiled);
}

#[test]
fn both_engines_match_reference_on_every_stf_scenario() {
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
        for engine in [Engine::Compiled, Engine::Native] {
            let what = format!("{} on {engine:?}", p.display());
            let r = V1Switch::with_engine(Arc::clone(&c), Engine::Reference);
            let f = V1Switch::with_engine(Arc::clone(&c), engine);
            assert_eq!(f.engine(), engine, "{what}: no code");
            let (ra, r) = p4sim::stf::runner::run_stf_on(r, &stf).unwrap();
            let (fa, f) = p4sim::stf::runner::run_stf_on(f, &stf).unwrap();
            assert!(fa.passed, "{what}: fails:\n{fa}");
            assert_eq!(ra.sequence, fa.sequence, "{what}");
            assert_eq!(ra.failures, fa.failures, "{what}");
            assert_eq!(ra.notes, fa.notes, "{what}");
            r.compare_state(&f)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} STF files");
}

/// `process_batch` sends what `process` sends on ESA's program, packet
/// for packet, and leaves the same state.
#[test]
fn process_batch_sends_what_process_sends() {
    let lanes = 8;
    let c = compile(lanes, 64);
    let mut rng = Rng::new(99);
    let jobs = support::random_jobs(&mut rng, 64);
    let mut one = random_jobs_on(&c, Engine::Compiled, &jobs, lanes, 64);
    let mut batched = random_jobs_on(&c, Engine::Compiled, &jobs, lanes, 64);
    let packets: Vec<(u16, Vec<u8>)> = (0..600)
        .map(|_| support::random_packet(&mut rng, &jobs, lanes))
        .collect();
    for (n, chunk) in packets.chunks(37).enumerate() {
        one.set_time_us(n as u64 * 50);
        batched.set_time_us(n as u64 * 50);
        one.lockstep_batch(&mut batched, chunk)
            .unwrap_or_else(|e| panic!("batch {n}: {e}"));
    }
}
