//! The P4 program against its reference model, packet by packet.
//!
//! Seeded random multi-job traces — several jobs and modes, priorities, a
//! 16-slot pool so that collisions, preemption and stale reclaim are
//! constant, resends, duplicates, first and repeated probes, results,
//! queries, pulls and answers from the PS, and every class of bad input —
//! run through `esa_core::pool` and through `p4/tests/esa_small.p4` in
//! p4sim. Every emitted packet and its port, every counter and every slot
//! register must be identical. A failure prints the seed, the step and the
//! packets in hex.

use crate::support;

use esa_core::pool::{Pool, PoolConfig};
use esa_core::rng::Rng;
use esa_p4::{Arch, Defines, counters};
use p4sim::v1switch::V1Switch;
use std::sync::Arc;
use support::{Job, hex, random_jobs, random_packet, random_tree_jobs, random_tree_packet};

const FLAT: (Draw, Packets) = (random_jobs, random_packet);

const LANES: usize = 4;
const SLOTS: usize = 16;

/// Every p4sim call of this test, in one place.
struct P4Target {
    switch: V1Switch,
}

impl P4Target {
    /// On the native engine (esa_small.p4 is one of `esa_p4`'s programs).
    fn new(compiled: &Arc<p4sim::ir::Compiled>) -> P4Target {
        esa_p4::register();
        let switch = V1Switch::new(Arc::clone(compiled));
        assert_eq!(switch.engine(), p4sim::v1switch::Engine::Native);
        P4Target { switch }
    }

    fn set_stale_after(&mut self, us: u64) {
        esa_p4::sim::set_stale_after(&mut self.switch, Arch::V1model, us).unwrap();
    }

    fn process(&mut self, port: u16, frame: &[u8], now_us: u64) -> Vec<(u16, Vec<u8>)> {
        self.switch.set_time_us(now_us);
        support::outputs(&mut self.switch, port, frame)
    }

    fn counter(&mut self, name: &str, index: u16) -> u64 {
        support::counter(&mut self.switch, name, index.into())
    }

    fn register(&self, name: &str, index: usize) -> u64 {
        support::register(&self.switch, name, index)
    }
}

/// The jobs of a trace: flat ones, or jobs in random places on trees.
type Draw = fn(&mut Rng, usize) -> Vec<Job>;

/// A trace's packets, for its jobs.
type Packets = fn(&mut Rng, &[Job], usize) -> (u16, Vec<u8>);

fn setup(
    rng: &mut Rng,
    compiled: &Arc<p4sim::ir::Compiled>,
    draw: Draw,
) -> (Pool, P4Target, Vec<Job>) {
    let stale_after_us = rng.range(0, 60);
    let mut pool = Pool::new(PoolConfig {
        slots: SLOTS,
        lanes: LANES,
        stale_after_us,
    })
    .unwrap();
    let mut p4 = P4Target::new(compiled);
    p4.set_stale_after(stale_after_us);
    let jobs = draw(rng, SLOTS);
    support::install_jobs(&mut pool, &mut p4.switch, Arch::V1model, &jobs);
    (pool, p4, jobs)
}

/// Runs one trace; returns a description of the first difference. `seen`
/// collects the model rows the trace reached.
fn run_trace(
    seed: u64,
    steps: usize,
    compiled: &Arc<p4sim::ir::Compiled>,
    (draw, packets): (Draw, Packets),
    seen: &mut std::collections::BTreeSet<&'static str>,
) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let (mut pool, mut p4, jobs) = setup(&mut rng, compiled, draw);
    let mut now = 1_000u64;
    for step in 0..steps {
        now += rng.range(0, 25);
        let (port, frame) = packets(&mut rng, &jobs, LANES);
        let decision = pool.process(&frame, port, now);
        seen.insert(support::row(&jobs, &frame, &decision));
        if decision.emit.is_some() {
            seen.insert("emitted");
        }
        let mut want = decision
            .emit
            .as_ref()
            .map(|e| pool.egress(e))
            .unwrap_or_default();
        let mut have = p4.process(port, &frame, now);
        want.sort();
        have.sort();
        if want != have {
            let show = |v: &[(u16, Vec<u8>)]| {
                v.iter()
                    .map(|(p, f)| format!("  port {p}: {}", hex(f)))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            return Err(format!(
                "seed {seed} step {step}: packet on port {port} (model row {}):\n  {}\nmodel emits:\n{}\np4 emits:\n{}",
                decision.rule,
                hex(&frame),
                show(&want),
                show(&have)
            ));
        }
    }
    for job in &jobs {
        let c = pool.counters(job.id);
        // The tree rows' counters, which only this program has so far.
        let tree = [
            ("parts_relayed", c.parts_relayed),
            ("pulls_relayed", c.pulls_relayed),
        ];
        for (name, want) in c.by_name().into_iter().chain(tree) {
            let have = match counters::job_counter(Arch::V1model, name) {
                Some(cell) => p4.counter(cell.name, job.id),
                None => p4.counter(&format!("EsaIngress.aggregation.{name}"), job.id),
            };
            if have != want {
                return Err(format!(
                    "seed {seed}: job {} counter {name}: model {want}, p4 {have}",
                    job.id
                ));
            }
        }
    }
    let global = pool.global_counters();
    for (index, want) in global.by_index() {
        let have = p4.counter(counters::global_counter(Arch::V1model), index as u16);
        if have != want {
            return Err(format!(
                "seed {seed}: global counter {index}: model {want}, p4 {have}"
            ));
        }
    }
    for i in 0..SLOTS {
        let slot = pool.slot(i);
        let registers = [
            ("slot_key", u64::from(slot.key.0)),
            ("slot_bitmap", u64::from(slot.bitmap)),
            ("slot_count", u64::from(slot.count)),
            ("slot_flags", u64::from(slot.flags)),
            ("slot_timestamp", slot.timestamp),
            ("slot_tombstone", u64::from(slot.tombstone.0)),
            ("slot_exponent", u64::from(slot.exponent as u8)),
        ];
        for (name, want) in registers {
            let have = p4.register(&counters::slot_register(Arch::V1model, name), i);
            if have != want {
                return Err(format!(
                    "seed {seed}: slot {i} {name}: model {want:#x}, p4 {have:#x}"
                ));
            }
        }
        for (lane, want) in slot.values.iter().enumerate() {
            let have = p4.register(&counters::lane_register(Arch::V1model, lane), i);
            if have != u64::from(*want as u32) {
                return Err(format!(
                    "seed {seed}: slot {i} lane {lane}: model {want}, p4 {have}"
                ));
            }
        }
    }
    Ok(())
}

fn compiled() -> Arc<p4sim::ir::Compiled> {
    esa_p4::program::compile(&Arch::V1model.test_program(), &Defines::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `ESA_DIFF_TRACES` (default 2000) seeded traces of `traffic`:
/// none may differ, and a run of at least 200 must reach every row of
/// `rows`.
fn differential(traffic: (Draw, Packets), rows: &[&str]) {
    let compiled = compiled();
    let traces: u64 = std::env::var("ESA_DIFF_TRACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut seen = std::collections::BTreeSet::new();
    let failures: Vec<String> = (0..traces)
        .filter_map(|seed| run_trace(seed, 150, &compiled, traffic, &mut seen).err())
        .take(3)
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if traces >= 200 {
        let missed: Vec<&str> = rows.iter().copied().filter(|r| !seen.contains(r)).collect();
        assert!(missed.is_empty(), "the traces never reached {missed:?}");
    }
}

#[test]
fn p4_program_equals_the_reference_model_on_random_traces() {
    // every decision row, and a packet emitted
    let mut rows = support::ROWS.to_vec();
    rows.push("emitted");
    differential(FLAT, &rows);
}

/// The rows of a job tree's switches (`docs/protocol.md` §9.3) a long run
/// of tree traces must reach.
const TREE_ROWS: [&str; 14] = [
    "D0", "D1", "D1'", "D5'", "D5''", "D7", "D8", "D11", "U1", "U2", "L1", "L2", "P1", "P2 held",
];

#[test]
fn p4_program_equals_the_reference_model_on_job_tree_traces() {
    differential((random_tree_jobs, random_tree_packet), &TREE_ROWS);
}
