//! The data plane on p4sim and on BMv2, packet for packet.
//!
//! Seeded random multi-job traces — two or three jobs in every mode, random
//! priorities on a 16-slot pool so that collisions and preemptions are
//! constant, resends, results and queries from the PS, and malformed frames
//! of every kind — run as one STF file through `esa.p4` (4 and 32 lanes) in
//! p4sim and, compiled by the real p4c, on the real `simple_switch`. Every
//! port's output must be the same frames in the same order, and every slot
//! register, lane register and per-job counter must end equal. The
//! exception is `slot_timestamp`, which holds each target's own clock
//! (p4sim's is the test's, BMv2's is real time); the stale bound is set far
//! beyond both so ageing never decides anything here (ageing is compared with
//! the model in `tests/p4_differential.rs`, where time is the test's).
//!
//! Needs p4c, BMv2 and Python's `thrift`; skipped with a message without
//! them, unless `ESA_BMV2_REQUIRED=1` (CI).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use crate::support;

use esa_bmv2::Tools;
use esa_core::pool::{GlobalCounters, JobCounters};
use esa_core::rng::Rng;
use esa_core::wire::PacketType;
use esa_p4::{Arch, counters};
use support::{
    Job, has_host_entry, hex, host, random_jobs, random_packet, random_tree_jobs,
    random_tree_packet,
};

/// The jobs of a trace, and its packets for them.
type Traffic = (
    fn(&mut Rng, usize) -> Vec<Job>,
    fn(&mut Rng, &[Job], usize) -> (u16, Vec<u8>),
);

/// Flat jobs.
const FLAT: Traffic = (random_jobs, random_packet);
/// Jobs in random places on job trees (`docs/protocol.md` §9).
const TREES: Traffic = (random_tree_jobs, random_tree_packet);

const SLOTS: usize = 16;
/// Far beyond any run's length on either clock.
const STALE_AFTER_US: u64 = 100_000_000_000;

/// Job tables, hosts and groups as the controller programs them, as STF.
fn setup(rng: &mut Rng, stf: &mut String, draw: Traffic) -> Vec<Job> {
    let jobs = (draw.0)(rng, SLOTS);
    for (k, job) in jobs.iter().enumerate() {
        let host = |p| has_host_entry(p).then(|| host(p));
        support::stf_job(
            stf,
            Arch::V1model,
            &job.entries(Arch::V1model),
            (job.entry.mcast_group, &job.members()),
            host,
            k as u32,
        );
    }
    let value = esa_p4::tables::pool_config(Arch::V1model).value(STALE_AFTER_US);
    let _ = writeln!(
        stf,
        "{}",
        esa_p4::text::stf_stale_param(Arch::V1model, value)
    );
    jobs
}

/// The whole trace as STF: set-up, packets, then reads of every compared
/// register cell and counter.
fn trace(seed: u64, lanes: usize, packets: usize, traffic: Traffic) -> String {
    let mut rng = Rng::new(seed);
    let mut stf = format!("# bmv2_differential seed {seed}, {lanes} lanes\n");
    let jobs = setup(&mut rng, &mut stf, traffic);
    for _ in 0..packets {
        let (port, frame) = (traffic.1)(&mut rng, &jobs, lanes);
        let _ = writeln!(stf, "packet {port} {}", hex(&frame));
    }
    let mut registers: Vec<String> = [
        "slot_key",
        "slot_bitmap",
        "slot_count",
        "slot_flags",
        "slot_tombstone",
        "slot_exponent",
    ]
    .iter()
    .map(|r| counters::slot_register(Arch::V1model, r))
    .collect();
    registers.extend((0..lanes).map(|l| counters::lane_register(Arch::V1model, l)));
    for slot in 0..SLOTS {
        for r in &registers {
            let _ = writeln!(stf, "register_read {r} {slot}");
        }
    }
    for job in &jobs {
        for (name, _) in JobCounters::default().by_name() {
            let cell = counters::job_counter(Arch::V1model, name).unwrap();
            let _ = writeln!(stf, "counter_read {} {}", cell.name, cell.index(job.id));
        }
        // The tree rows' counters, in the v1model program only so far.
        for name in ["parts_relayed", "pulls_relayed"] {
            let _ = writeln!(stf, "counter_read EsaIngress.aggregation.{name} {}", job.id);
        }
    }
    for (index, _) in GlobalCounters::default().by_index() {
        let global = counters::global_counter(Arch::V1model);
        let _ = writeln!(stf, "counter_read {global} {index}");
    }
    stf
}

fn program() -> PathBuf {
    Arch::V1model.program()
}

fn defines(lanes: usize) -> Vec<(String, String)> {
    esa_p4::Defines::new(lanes, SLOTS as u32).pairs()
}

/// Runs `traces` seeded traces of `packets` packets at `lanes` lanes on
/// both targets; returns (packets, frames out, EVICTED frames out, the
/// per-job counters BMv2 kept, added up by name).
fn compare(
    tools: &Tools,
    lanes: usize,
    seeds: &[u64],
    packets: usize,
    traffic: Traffic,
) -> (usize, usize, usize, std::collections::BTreeMap<String, u64>) {
    let options = p4sim::front::FrontendOptions {
        include_dirs: vec![],
        defines: defines(lanes),
    };
    let ast = p4sim::front::parse_program_with(&program(), &options).unwrap();
    let compiled = Arc::new(p4sim::check::compile(&ast).unwrap());
    let out = tempfile::tempdir().unwrap();
    let json = esa_bmv2::compile(tools, &program(), &[], &defines(lanes), out.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .json;
    let (mut sent, mut frames, mut evicted) = (0, 0, 0);
    let mut totals = std::collections::BTreeMap::new();
    for &seed in seeds {
        let stf = trace(seed, lanes, packets, traffic);
        if let Ok(dir) = std::env::var("ESA_BMV2_DIFF_DUMP") {
            std::fs::write(format!("{dir}/seed{seed}-{lanes}.stf"), &stf).unwrap();
        }
        let started = std::time::Instant::now();
        let ours = p4sim::stf::runner::run_stf_compiled(Arc::clone(&compiled), &stf).unwrap();
        let p4sim_time = started.elapsed();
        let theirs = esa_bmv2::stf::run_stf(tools, &json, &stf).unwrap_or_else(|e| panic!("{e}"));
        // There are no `expect` lines: every output is "unexpected"; any
        // other failure is a command a target refused.
        let refused = |failures: &[String]| -> Vec<String> {
            failures
                .iter()
                .filter(|f| !f.contains(": unexpected packet #"))
                .cloned()
                .collect()
        };
        let (a, b) = (refused(&ours.failures), refused(&theirs.failures));
        assert!(
            a.is_empty() && b.is_empty(),
            "seed {seed}: a target refused commands\np4sim: {a:?}\nbmv2: {b:?}"
        );
        let ports: std::collections::BTreeSet<u32> = ours
            .outputs
            .keys()
            .chain(theirs.outputs.keys())
            .copied()
            .collect();
        for port in ports {
            let a = ours.outputs.get(&port).map(Vec::as_slice).unwrap_or(&[]);
            let b = theirs.outputs.get(&port).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
                let show = |f: Option<&Vec<u8>>| f.map_or("(none)".to_string(), |f| hex(f));
                panic!(
                    "seed {seed}, {lanes} lanes: port {port} frame #{} differs ({} vs {} frames)\n\
                     p4sim: {}\nbmv2:  {}",
                    i + 1,
                    a.len(),
                    b.len(),
                    show(a.get(i)),
                    show(b.get(i))
                );
            }
            frames += a.len();
            evicted += a
                .iter()
                .filter(|f| f.len() > 42 && f[42] & 0x0f == PacketType::Evicted as u8)
                .count();
        }
        // The reads; p4sim also notes multicast node handles.
        let reads = |notes: &[String]| -> Vec<String> {
            notes
                .iter()
                .filter(|n| n.starts_with("EsaIngress."))
                .cloned()
                .collect()
        };
        let (ours_reads, theirs_reads) = (reads(&ours.notes), reads(&theirs.notes));
        assert_eq!(ours_reads.len(), theirs_reads.len(), "seed {seed}");
        for (a, b) in ours_reads.iter().zip(&theirs_reads) {
            assert_eq!(a, b, "seed {seed}, {lanes} lanes: end state differs");
        }
        // The per-job counters BMv2 kept (`EsaIngress.aggregation.NAME[job]
        // = (packets N, ...)`).
        for r in &theirs_reads {
            let Some(rest) = r.strip_prefix("EsaIngress.aggregation.") else {
                continue;
            };
            // Register reads (`= VALUE`) share the prefix.
            let (Some((name, _)), Some((_, n))) = (rest.split_once('['), r.split_once("(packets "))
            else {
                continue;
            };
            let n = n
                .split(',')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("a counter read: {r}"));
            *totals.entry(name.to_string()).or_insert(0) += n;
        }
        sent += packets;
        println!(
            "seed {seed}, {lanes} lanes: {packets} packets, {} reads equal; p4sim {:.2} s, \
             BMv2 {:.1} s",
            ours_reads.len(),
            p4sim_time.as_secs_f64(),
            (started.elapsed() - p4sim_time).as_secs_f64()
        );
    }
    (sent, frames, evicted, totals)
}

/// Packets per trace: `ESA_BMV2_DIFF_PACKETS` (for a quick look), else
/// 2,500.
fn packets_per_trace() -> usize {
    std::env::var("ESA_BMV2_DIFF_PACKETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_500)
}

#[test]
fn p4sim_and_bmv2_agree_on_random_multi_job_traces() {
    let Some(tools) = Tools::for_test("p4sim_and_bmv2_agree_on_random_multi_job_traces", true)
    else {
        return;
    };
    // ESA_BMV2_DIFF_PACKETS shortens the traces for a quick look.
    let scale = packets_per_trace();
    let (a, fa, ea, ta) = compare(&tools, 4, &[1, 2, 3, 4], scale, FLAT);
    let (b, fb, eb, tb) = compare(&tools, 32, &[5, 6], scale / 2, FLAT);
    let (pa, pb) = (ta["preemptions"], tb["preemptions"]);
    println!(
        "{} packets in, {} frames out, {} of them EVICTED; {} preemptions on BMv2",
        a + b,
        fa + fb,
        ea + eb,
        pa + pb
    );
    assert!(a + b >= 5 * scale);
    // The traces exercised what they are for.
    assert!(
        fa + fb > (a + b) / 2 && ea + eb > (a + b) / 100,
        "{fa} {fb} {ea} {eb}"
    );
    // Preemption (D11) happened on BMv2, equal to p4sim's count above.
    assert!(
        pa > 0 && pb > 0,
        "preemptions on BMv2: {pa} (4 lanes), {pb} (32 lanes)"
    );
}

/// The same on job trees: the rows of a tree's leaves and roots
/// (`docs/protocol.md` §9.3) on the real `simple_switch` equal p4sim's,
/// which `p4_differential.rs` holds to the model.
#[test]
fn p4sim_and_bmv2_agree_on_random_job_tree_traces() {
    let Some(tools) = Tools::for_test("p4sim_and_bmv2_agree_on_random_job_tree_traces", true)
    else {
        return;
    };
    let scale = packets_per_trace();
    let (sent, frames, _, totals) = compare(&tools, 4, &[11, 12, 13], scale, TREES);
    println!("{sent} packets in, {frames} frames out; BMv2's counters: {totals:?}");
    // Racks' partials went up and leaves' parts and probes through roots.
    for name in [
        "completed",
        "parts_relayed",
        "pulls_relayed",
        "flushed",
        "pulled",
    ] {
        assert!(
            totals.get(name).is_some_and(|&n| n > 0),
            "{name}: {totals:?}"
        );
    }
}
