//! The Tofino program (`p4/tna/tests/esa_small.p4`, TNA, in p4sim) against
//! the reference model `esa_core::pool`, on the seeded random multi-job
//! traces of `tests/p4_differential.rs`: every emitted packet and its port,
//! every counter, and each slot's key, bitmap, tombstone, exponent and lanes
//! must be identical, up to the differences docs/protocol.md ("On Tofino")
//! lists, which this test checks instead of skipping:
//!
//! - time runs in 65.536 µs units on Tofino: the model's clock and
//!   `stale_after` are read in those units here (the switch clock is set
//!   in ns, model time << 16);
//! - `released` is not counted on Tofino;
//! - a resend whose own contribution completes the chunk is flushed to the
//!   PS (D2, complete sum and full bitmap) instead of completed in the slot
//!   (D1); the slot is then free on Tofino and taken on the model, so the
//!   trace ends there after checking the FLUSH;
//! - a free slot's registers other than the tombstone keep what the last
//!   chunk left on Tofino.
//!
//! The job-tree traces (`random_tree_jobs`, `random_tree_packet`, the
//! v1model program's) run a tree's rows at a leaf, at a root and at a
//! level without memory (`docs/protocol.md` §9.3, §9.6). There a RESULT or
//! a part from a root's child port, or a RESULT from a leaf's uplink, with a
//! slot out of range is counted as a flat job's check would count it
//! (`drop_spoofed`, `drop_bad_type`) rather than `drop_bad_slot`
//! (docs/protocol.md "On Tofino"); the test moves the model's count to
//! that reason. A resend that completes a leaf's chunk is flushed as a
//! flat job's is (above), where the model sends the rack's partial up (D1′).
//!
//! The passes of D2, D10, D11, L1 and atp's D5 are atomic here (one packet
//! at a time), so the interleavings docs/protocol.md describes between them
//! do not arise.
//!
//! `ESA_DIFF_TRACE=<seed>` prints that trace's DATA packets and rows;
//! `ESA_DIFF_TRACES=<n>` runs n traces (500 by default).

use crate::support;

use esa_core::constants::PS_WORKER_ID;
use esa_core::job::TreeRole;
use esa_core::pool::{Decision, DropReason, Outcome, Pool, PoolConfig, SlotPhase};
use esa_core::rng::Rng;
use esa_p4::{Arch, Defines, counters};
use p4sim::v1switch::V1Switch;
use std::collections::BTreeSet;
use std::sync::Arc;
use support::{Job, hex, random_jobs, random_packet, random_tree_jobs, random_tree_packet};

const LANES: usize = 4;
const SLOTS: usize = 16;

/// Every p4sim call of this test.
struct Tna {
    switch: V1Switch,
}

impl Tna {
    /// `now` in 65.536 µs units.
    fn process(&mut self, port: u16, frame: &[u8], now: u64) -> Vec<(u16, Vec<u8>)> {
        self.switch.set_time_ns(now << 16);
        support::outputs(&mut self.switch, port, frame)
    }

    fn counter(&mut self, name: &str, index: u32) -> u64 {
        support::counter(&mut self.switch, name, index)
    }

    /// The model's per-job counter `name`, read from the TNA program
    /// (`None`: not counted there).
    fn job_counter(&mut self, name: &str, job: u16) -> Option<u64> {
        let cell = counters::job_counter(Arch::Tna, name)?;
        Some(self.counter(cell.name, cell.index(job)))
    }

    fn register(&self, name: &str, index: usize) -> u64 {
        support::register(&self.switch, name, index)
    }
}

/// What a DATA frame says, for the trace and the resend difference.
struct DataInfo {
    job: u16,
    worker: u8,
    slot: u16,
    chunk: u32,
    resend: bool,
}

fn data_info(frame: &[u8]) -> Option<DataInfo> {
    // Ethernet 14 + IPv4 20 + UDP 8, then ESA: type (low nibble of byte 0),
    // flags, slot, key (priority 4 ++ job 12 ++ seq 16), ..., worker.
    let esa = frame.get(42..60)?;
    if esa[0] & 0x0f != 1 {
        return None;
    }
    let key = u32::from_be_bytes([esa[4], esa[5], esa[6], esa[7]]);
    Some(DataInfo {
        job: ((key >> 16) & 0xfff) as u16,
        worker: esa[15],
        slot: u16::from_be_bytes([esa[2], esa[3]]),
        chunk: key & 0x0fff_ffff,
        resend: esa[1] & 1 == 1,
    })
}

/// The jobs of a trace: flat ones, or jobs in random places on trees.
type Draw = fn(&mut Rng, usize) -> Vec<Job>;

/// A trace's packets, for its jobs.
type Packets = fn(&mut Rng, &[Job], usize) -> (u16, Vec<u8>);

const FLAT: (Draw, Packets) = (random_jobs, random_packet);

const TREE: (Draw, Packets) = (random_tree_jobs, random_tree_packet);

fn run_trace(
    seed: u64,
    steps: usize,
    compiled: &Arc<p4sim::ir::Compiled>,
    (draw, packets): (Draw, Packets),
    seen: &mut BTreeSet<&'static str>,
    ended_early: &mut u64,
) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let stale_after = rng.range(0, 60);
    let mut pool = Pool::new(PoolConfig {
        slots: SLOTS,
        lanes: LANES,
        stale_after_us: stale_after,
    })
    .unwrap();
    // on the native engine (esa_small.p4 is one of esa_p4's programs)
    esa_p4::register();
    let mut p4 = Tna {
        switch: V1Switch::new(Arc::clone(compiled)),
    };
    assert_eq!(p4.switch.engine(), p4sim::v1switch::Engine::Native);
    esa_p4::sim::set_stale_param(&mut p4.switch, Arch::Tna, stale_after).unwrap();
    let jobs: Vec<Job> = draw(&mut rng, SLOTS);
    support::install_jobs(&mut pool, &mut p4.switch, Arch::Tna, &jobs);
    let mut now = 1_000u64;
    // drop_bad_slot counts the TNA program moves to another reason
    let mut moved_drops: Vec<(&'static str, u16)> = Vec::new();
    for step in 0..steps {
        now += rng.range(0, 25);
        let (port, frame) = packets(&mut rng, &jobs, LANES);
        let held_before = slot_held(&pool, &jobs, &frame);
        let decision = pool.process(&frame, port, now);
        if let Some(reason) = child_bad_slot(&jobs, port, &frame, &decision.outcome) {
            moved_drops.push((reason, esa_job(&frame)));
        }
        let mut want = decision
            .emit
            .as_ref()
            .map(|e| pool.egress(e))
            .unwrap_or_default();
        let mut have = p4.process(port, &frame, now);
        want.sort();
        have.sort();
        let info = data_info(&frame);
        if std::env::var("ESA_DIFF_TRACE").is_ok_and(|v| v == seed.to_string())
            && let Some(d) = &info
        {
            eprintln!(
                "step {step}: port {port} job {} worker {} slot {} chunk {:#x} resend {} -> model {} ({} out, tna {} out)",
                d.job,
                d.worker,
                d.slot,
                d.chunk,
                d.resend,
                decision.rule,
                want.len(),
                have.len()
            );
        }
        if want != have {
            // a resend that completes the chunk: D2's FLUSH with the
            // complete sum to the job's PS instead of D1 (at a leaf D1′,
            // the rack's partial up: its ps_port too); the slot is freed,
            // so the two differ from here on: the trace ends
            let ps = info
                .as_ref()
                .and_then(|d| jobs.iter().find(|j| j.id == d.job))
                .map(|j| j.entry.ps_port);
            let same = match decision.rule {
                "D1" => same_part,
                "D1'" => same_sum,
                _ => |_: &[u8], _: &[u8]| false,
            };
            let flushed_completion = info.as_ref().is_some_and(|d| d.resend)
                && have.len() == 1
                && Some(have[0].0) == ps
                && have[0].1.get(42).is_some_and(|b| b & 0x0f == 5)
                && want.iter().any(|(_, f)| same(f, &have[0].1));
            if flushed_completion {
                seen.insert("resend completion flushed");
                *ended_early += 1;
                return Ok(());
            }
            let show = |v: &[(u16, Vec<u8>)]| {
                v.iter()
                    .map(|(p, f)| format!("  port {p}: {}", hex(f)))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let counters = counters_match(&pool, &mut p4, &jobs, &moved_drops)
                .err()
                .unwrap_or_default();
            return Err(format!(
                "seed {seed} step {step}: packet on port {port} (model row {}):\n  {}\nmodel emits:\n{}\ntna emits:\n{}\n{counters}",
                decision.rule,
                hex(&frame),
                show(&want),
                show(&have)
            ));
        }
        seen.insert(tree_row(&jobs, &frame, &decision, held_before));
        if let Err(e) = counters_match(&pool, &mut p4, &jobs, &moved_drops)
            .and_then(|()| slots_match(&pool, &p4))
        {
            return Err(format!(
                "seed {seed} step {step}: packet on port {port} (model row {}):\n  {}\n{e}",
                decision.rule,
                hex(&frame)
            ));
        }
    }
    counters_match(&pool, &mut p4, &jobs, &moved_drops).map_err(|e| format!("seed {seed}: {e}"))?;
    for (index, want) in pool.global_counters().by_index() {
        let have = p4.counter(counters::global_counter(Arch::Tna), index);
        if have != want {
            return Err(format!(
                "seed {seed}: global counter {index}: model {want}, tna {have}"
            ));
        }
    }
    slots_match(&pool, &p4).map_err(|e| format!("seed {seed}: {e}"))?;
    Ok(())
}

/// Each slot's tombstone, and for a slot in use its key, bitmap, exponent
/// and lanes, equal the TNA program's registers.
fn slots_match(pool: &Pool, p4: &Tna) -> Result<(), String> {
    for i in 0..SLOTS {
        let slot = pool.slot(i);
        let tombstone = p4.register(&counters::slot_register(Arch::Tna, "slot_tombstone"), i);
        if u64::from(slot.tombstone.0 & 0x0fff_ffff) != tombstone {
            return Err(format!(
                "slot {i} tombstone: model {:#x}, tna {tombstone:#x}",
                slot.tombstone.0
            ));
        }
        // A free slot's other registers keep what the last chunk left
        // on Tofino (the owner register says it is free); the model
        // clears the key.
        if slot.key.0 == 0 {
            continue;
        }
        let meta = p4.register(&counters::slot_register(Arch::Tna, "slot_meta"), i);
        let checks = [
            (
                "bitmap",
                u64::from(slot.bitmap),
                p4.register(&counters::slot_register(Arch::Tna, "slot_bitmap"), i),
            ),
            (
                "key",
                u64::from(slot.key.0),
                p4.register(&counters::slot_register(Arch::Tna, "slot_key"), i),
            ),
            ("exponent", u64::from(slot.exponent as u8), meta >> 8),
        ];
        for (what, want, have) in checks {
            if want != have {
                return Err(format!("slot {i} {what}: model {want:#x}, tna {have:#x}"));
            }
        }
        for (lane, want) in slot.values.iter().enumerate() {
            let have = p4.register(&counters::lane_register(Arch::Tna, lane), i);
            if have != u64::from(*want as u32) {
                return Err(format!("slot {i} lane {lane}: model {want}, tna {have}"));
            }
        }
    }
    Ok(())
}

/// Whether the FLUSH `flush` carries what `completed`, the model's D1
/// packet, does: the bitmap, count, exponent, worker and lanes. The fan-in
/// is the switch's own in a FLUSH; a root short of racks (§9.6) sends D1's
/// sum to the PS over the job's racks.
fn same_part(completed: &[u8], flush: &[u8]) -> bool {
    completed.get(50..54) == flush.get(50..54) && completed.get(55..) == flush.get(55..)
}

/// Whether the slot a packet of one of `jobs` addresses holds a complete
/// chunk (held: an atp chunk, or a leaf's partial that went up).
fn slot_held(pool: &Pool, jobs: &[Job], frame: &[u8]) -> bool {
    let (Some(job), Some(slot)) = (
        jobs.iter().find(|j| j.id == esa_job(frame)),
        frame.get(44..46),
    ) else {
        return false;
    };
    let slot = u16::from_be_bytes([slot[0], slot[1]]) & job.entry.slot_mask;
    let index = usize::from(job.entry.slot_base + slot) & (SLOTS - 1);
    pool.slot_phase(index).1 == SlotPhase::Held
}

/// Whether the FLUSH `flush` carries the sum a leaf's D1′ partial `up`
/// does: the exponent, the rack (`worker`) and the lanes (its bitmap and
/// count are the rack's workers, the partial's the rack's bit).
fn same_sum(up: &[u8], flush: &[u8]) -> bool {
    up.get(56..) == flush.get(56..)
}

/// The job of an ESA frame.
fn esa_job(frame: &[u8]) -> u16 {
    frame
        .get(46..48)
        .map_or(0, |k| u16::from_be_bytes([k[0], k[1]]) & 0xfff)
}

/// For a packet the model drops as `drop_bad_slot` that arrived at a root
/// from a child port as a RESULT or a part, or at a leaf from its uplink
/// as a RESULT: the reason the TNA program counts it under, whose tree
/// entry did not match (docs/protocol.md "On Tofino").
fn child_bad_slot(
    jobs: &[Job],
    port: u16,
    frame: &[u8],
    outcome: &Outcome,
) -> Option<&'static str> {
    let job = jobs.iter().find(|j| j.id == esa_job(frame))?;
    let between_switches = match job.entry.tree {
        TreeRole::Flat => false,
        TreeRole::Leaf { uplink, .. } => port == uplink.port,
        TreeRole::Root { .. } => port != job.entry.ps_port,
    };
    if *outcome != Outcome::Dropped(DropReason::BadSlot) || !between_switches {
        return None;
    }
    let worker = *frame.get(57)?;
    let beyond = job.beyond_fan_in();
    let bound = job.worker_ports.get(usize::from(worker)) == Some(&port)
        || (beyond.port, beyond.worker) == (port, worker)
        || (job.entry.ps_port, PS_WORKER_ID) == (port, worker);
    match frame.get(42)? & 0x0f {
        2 if !bound => Some("drop_spoofed"),
        3..=5 if job.entry.tree.is_upper() => Some("drop_bad_type"),
        _ => None,
    }
}

/// Every per-job counter of the model equals the TNA program's, the
/// model's `drop_bad_slot` counts in `moved` taken as their TNA reason.
fn counters_match(
    pool: &Pool,
    p4: &mut Tna,
    jobs: &[Job],
    moved: &[(&'static str, u16)],
) -> Result<(), String> {
    for job in jobs {
        let c = pool.counters(job.id);
        let tree = [
            ("parts_relayed", c.parts_relayed),
            ("pulls_relayed", c.pulls_relayed),
        ];
        for (name, mut want) in c.by_name() {
            let moved_here = |reason: &str| {
                moved
                    .iter()
                    .filter(|&&(r, j)| j == job.id && (reason == "drop_bad_slot" || r == reason))
                    .count() as u64
            };
            if name == "drop_bad_slot" {
                want -= moved_here(name);
            } else if name == "drop_spoofed" || name == "drop_bad_type" {
                want += moved_here(name);
            }
            if let Some(have) = p4.job_counter(name, job.id)
                && have != want
            {
                return Err(format!(
                    "job {} counter {name}: model {want}, tna {have}",
                    job.id
                ));
            }
        }
        for (row, (name, want)) in tree.into_iter().enumerate() {
            let have = p4.counter("EsaIngress.tree_rows", u32::from(job.id) << 1 | row as u32);
            if have != want {
                return Err(format!(
                    "job {} counter {name}: model {want}, tna {have}",
                    job.id
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn tna_program_equals_the_reference_model_on_random_traces() {
    run_traces(FLAT, &support::ROWS);
}

/// The rows of a tree's switches (`docs/protocol.md` §9.3) a long run of
/// tree traces must reach: the v1model program's list
/// (`p4_differential.rs`), and at a leaf the rows that name its rack
/// (`P1′`, a `FLUSH`, a `FALLBACK`), R1′ and L1′, D0's partial up and U1's
/// `HELD` mark as [`tree_row`] names them.
const TREE_ROWS: [&str; 22] = [
    "D0", "D1", "D1'", "D5'", "D5''", "D7", "D8", "D11", "U1", "U2", "L1", "L2", "P1", "P2 held",
    "D0 up", "U1 held", "P1'", "P2'", "R1'", "L1'", "D2'", "D8'",
];

#[test]
fn tna_program_equals_the_reference_model_on_job_tree_traces() {
    run_traces(TREE, &TREE_ROWS);
}

/// [`support::row`], with a tree's variants of rows that the row name
/// alone does not tell apart: D0's partial sent up (`D0 up`, a rack of
/// one worker), a leaf's probe a root marks `HELD` (`U1 held`) and at a leaf its probe answers (P1′, and P2′ for a probe
/// marked `HELD` because the rack's partial went up: `held_before`, the
/// slot held a complete chunk), R1′ and L1′ of a held slot, and its parts
/// to the PS (`D2'`, `D8'`: `worker` = the rack).
fn tree_row(jobs: &[Job], frame: &[u8], decision: &Decision, held_before: bool) -> &'static str {
    let row = support::row(jobs, frame, decision);
    if row == "D0" && decision.outcome == Outcome::SentUp {
        return "D0 up";
    }
    let marked_held = |f: &[u8]| f.get(43).is_some_and(|flags| flags & 0x20 != 0);
    if row == "U1"
        && !marked_held(frame)
        && decision
            .emit
            .as_ref()
            .is_some_and(|e| marked_held(&e.frame))
    {
        return "U1 held";
    }
    let leaf = jobs
        .iter()
        .any(|j| j.id == esa_job(frame) && matches!(j.entry.tree, TreeRole::Leaf { .. }));
    if !leaf {
        return row;
    }
    match (row, held_before) {
        ("P1", _) => "P1'",
        ("P2 held", true) => "P2'",
        ("R1", true) => "R1'",
        ("L1", true) => "L1'",
        ("D2", _) => "D2'",
        ("D8", _) => "D8'",
        (row, _) => row,
    }
}

fn run_traces(kind: (Draw, Packets), rows: &[&str]) {
    let compiled = esa_p4::program::compile(&Arch::Tna.test_program(), &Defines::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let traces: u64 = std::env::var("ESA_DIFF_TRACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let mut seen = BTreeSet::new();
    let mut ended_early = 0;
    let failures: Vec<String> = (0..traces)
        .filter_map(|seed| run_trace(seed, 150, &compiled, kind, &mut seen, &mut ended_early).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {traces} traces differ; the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    if traces >= 200 {
        let missed: Vec<&str> = rows.iter().copied().filter(|r| !seen.contains(r)).collect();
        assert!(missed.is_empty(), "the traces never reached {missed:?}");
    }
    eprintln!("rows reached: {seen:?}; {ended_early} of {traces} traces ended early");
}
