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

use esa_bmv2::Tools;
use esa_core::pool::{GlobalCounters, JobCounters, JobEntry, Mode};
use esa_core::rng::Rng;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType};

const SLOTS: usize = 16;
/// Far beyond any run's length on either clock.
const STALE_AFTER_US: u64 = 100_000_000_000;

struct Job {
    id: u16,
    entry: JobEntry,
    worker_ports: Vec<u16>,
}

/// Job tables, hosts and groups as the controller programs them.
fn setup(rng: &mut Rng, stf: &mut String) -> Vec<Job> {
    let mut jobs = vec![];
    let mut port = 1u16;
    for k in 0..rng.range(2, 3) as u16 {
        let id = [1, 7, 4095][usize::from(k)];
        let fan_in = rng.range(2, 3) as u8;
        let mode = [Mode::Esa, Mode::Esa, Mode::Atp, Mode::SwitchMl][rng.below(4) as usize];
        let (slot_base, slot_mask) = match mode {
            Mode::SwitchMl => (k * 4, 3),
            Mode::Esa | Mode::Atp => (0, (SLOTS - 1) as u16),
        };
        let worker_ports: Vec<u16> = (port..port + u16::from(fan_in)).collect();
        let ps_port = port + u16::from(fan_in);
        port = ps_port + 1;
        let e = JobEntry {
            fan_in,
            mode,
            max_priority: rng.range(3, 15) as u8,
            mcast_group: k + 1,
            ps_port,
            slot_base,
            slot_mask,
        };
        let _ = writeln!(
            stf,
            "add EsaIngress.admission.jobs hdr.esa.job:{id} EsaIngress.admission.set_job(\
             fan_in:{}, mode:{}, max_priority:{}, mcast_group:{}, ps_port:{}, slot_base:{}, \
             slot_mask:{})",
            e.fan_in,
            e.mode.code(),
            e.max_priority,
            e.mcast_group,
            e.ps_port,
            e.slot_base,
            e.slot_mask
        );
        let _ = writeln!(
            stf,
            "add EsaIngress.aggregation.job_route route_job:{id} EsaIngress.aggregation.set_route(\
             ps_port:{}, fan_in:{}, slot_base:{}, slot_mask:{})",
            e.ps_port, e.fan_in, e.slot_base, e.slot_mask
        );
        let mut members = worker_ports.clone();
        members.push(ps_port);
        for &p in &members {
            let _ = writeln!(
                stf,
                "add EsaIngress.admission.job_ports hdr.esa.job:{id} sm.ingress_port:{p} \
                 EsaIngress.admission.allow()"
            );
            // Some ports have no host entry: their copies keep the addresses
            // they came with.
            if p % 3 != 0 {
                let _ = writeln!(
                    stf,
                    "add EsaEgress.egress_host sm.egress_port:{p} \
                     EsaEgress.set_host(mac:0x{:012x}, ip:0x0a0000{:02x})",
                    0x0200_0000_0000u64 | u64::from(p),
                    p
                );
            }
        }
        let ports: Vec<String> = members.iter().map(u16::to_string).collect();
        let _ = writeln!(stf, "mc_mgrp_create {}", e.mcast_group);
        let _ = writeln!(stf, "mc_node_create 0 {}", ports.join(" "));
        let _ = writeln!(stf, "mc_node_associate {} {}", e.mcast_group, k);
        jobs.push(Job {
            id,
            entry: e,
            worker_ports,
        });
    }
    let _ = writeln!(
        stf,
        "setdefault EsaIngress.aggregation.pool_config \
         EsaIngress.aggregation.set_stale_after(us:{STALE_AFTER_US})"
    );
    jobs
}

/// One packet: mostly DATA at random priorities, slots and seqs, some PS
/// traffic, some bad input.
fn packet(rng: &mut Rng, jobs: &[Job], lanes: usize) -> (u16, Vec<u8>) {
    let job = &jobs[rng.below(jobs.len() as u64) as usize];
    let worker = rng.below(job.worker_ports.len() as u64) as u8;
    let mut port = job.worker_ports[usize::from(worker)];
    let seq = rng.below(6) as u16;
    let mut esa = EsaRepr {
        packet_type: PacketType::Data,
        flags: Flags::NONE,
        slot: rng.below(u64::from(job.entry.slot_mask) + 1) as u16,
        key: Key::new(rng.below(16) as u8, job.id, seq),
        bitmap: 1 << worker,
        fan_in: job.entry.fan_in,
        count: 1,
        exponent: rng.range(0, 20) as i8,
        worker,
    };
    if rng.chance(0.3) {
        esa.flags = esa.flags | Flags::RESEND;
    }
    if rng.chance(0.05) {
        esa.flags = esa.flags | Flags::OVERFLOW;
    }
    match rng.below(100) {
        0..=7 => {
            esa.packet_type = PacketType::Result;
            esa.bitmap = job.entry.full_bitmap();
            esa.count = job.entry.fan_in;
            esa.worker = 255;
            port = job.entry.ps_port;
        }
        8..=10 => {
            esa.packet_type = PacketType::Query;
            port = job.entry.ps_port;
        }
        11..=12 => esa.key = Key::new(1, 99, seq), // unknown job
        13..=14 => port = 200,                     // unauthorized port
        15..=16 => esa.packet_type = PacketType::Evicted,
        17 => esa.slot = job.entry.slot_mask + 1,
        18..=19 => {
            esa.worker = job.entry.fan_in; // worker out of range
            esa.bitmap = 1u32.checked_shl(u32::from(esa.worker)).unwrap_or(0);
        }
        _ => {}
    }
    // Values large enough that sums overflow now and then.
    let values: Vec<i32> = (0..lanes)
        .map(|_| {
            if rng.chance(0.02) {
                i32::MAX - rng.range(0, 10) as i32
            } else {
                rng.range(0, 2000) as i32 - 1000
            }
        })
        .collect();
    let mut frame = FrameRepr {
        src_mac: MacAddr::local(port.into()),
        dst_mac: MacAddr::local(0xfffe),
        src_ip: Ipv4Addr::new(10, 0, 0, port as u8),
        dst_ip: Ipv4Addr::new(10, 0, 0, 254),
        esa,
    }
    .emit(&values, lanes);
    match rng.below(100) {
        0..=1 => frame.truncate(rng.range(14, frame.len() as u64 - 1) as usize),
        2 => frame[24] ^= 0x40,                     // IPv4 checksum
        3 => frame[42] = 0x20 | (frame[42] & 0x0f), // ESA version
        4 => frame[42] = 0x10 | 0x09,               // ESA type 9
        5 => frame[12] = 0x86,                      // not IPv4: L2, dropped by the empty table
        6 => frame.extend_from_slice(&[0; 6]),      // Ethernet padding
        _ => {}
    }
    (port, frame)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The whole trace as STF: set-up, packets, then reads of every compared
/// register cell and counter.
fn trace(seed: u64, lanes: usize, packets: usize) -> String {
    let mut rng = Rng::new(seed);
    let mut stf = format!("# bmv2_differential seed {seed}, {lanes} lanes\n");
    let jobs = setup(&mut rng, &mut stf);
    for _ in 0..packets {
        let (port, frame) = packet(&mut rng, &jobs, lanes);
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
    .map(|r| format!("EsaIngress.aggregation.{r}"))
    .collect();
    registers.extend((0..lanes).map(|l| format!("EsaIngress.aggregation.lane{l}.lane")));
    for slot in 0..SLOTS {
        for r in &registers {
            let _ = writeln!(stf, "register_read {r} {slot}");
        }
    }
    for job in &jobs {
        for (name, _) in JobCounters::default().by_p4_name() {
            let _ = writeln!(stf, "counter_read {name} {}", job.id);
        }
    }
    for (index, _) in GlobalCounters::default().by_p4_index() {
        let _ = writeln!(stf, "counter_read {} {index}", GlobalCounters::P4_NAME);
    }
    stf
}

fn program() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("p4/v1model/esa.p4")
}

fn defines(lanes: usize) -> Vec<(String, String)> {
    vec![
        ("ESA_LANES".into(), lanes.to_string()),
        ("ESA_POOL_SLOTS".into(), SLOTS.to_string()),
    ]
}

/// Runs `traces` seeded traces of `packets` packets at `lanes` lanes on
/// both targets; returns (packets, frames out, EVICTED frames out).
fn compare(tools: &Tools, lanes: usize, seeds: &[u64], packets: usize) -> (usize, usize, usize) {
    let options = p4sim::frontend::FrontendOptions {
        include_dirs: vec![],
        defines: defines(lanes),
    };
    let ast = p4sim::frontend::parse_program_with(&program(), &options).unwrap();
    let compiled = Arc::new(p4sim::check::compile(&ast).unwrap());
    let out = tempfile::tempdir().unwrap();
    let json = esa_bmv2::compile(tools, &program(), &[], &defines(lanes), out.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .json;
    let (mut sent, mut frames, mut evicted) = (0, 0, 0);
    for &seed in seeds {
        let stf = trace(seed, lanes, packets);
        if let Ok(dir) = std::env::var("ESA_BMV2_DIFF_DUMP") {
            std::fs::write(format!("{dir}/seed{seed}-{lanes}.stf"), &stf).unwrap();
        }
        let started = std::time::Instant::now();
        let ours = p4sim::stf_runner::run_stf_compiled(Arc::clone(&compiled), &stf).unwrap();
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
        sent += packets;
        println!(
            "seed {seed}, {lanes} lanes: {packets} packets, {} reads equal; p4sim {:.2} s, \
             BMv2 {:.1} s",
            ours_reads.len(),
            p4sim_time.as_secs_f64(),
            (started.elapsed() - p4sim_time).as_secs_f64()
        );
    }
    (sent, frames, evicted)
}

#[test]
fn p4sim_and_bmv2_agree_on_random_multi_job_traces() {
    let Some(tools) = Tools::for_test("p4sim_and_bmv2_agree_on_random_multi_job_traces", true)
    else {
        return;
    };
    // ESA_BMV2_DIFF_PACKETS shortens the traces for a quick look.
    let scale: usize = std::env::var("ESA_BMV2_DIFF_PACKETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_500);
    let (a, fa, ea) = compare(&tools, 4, &[1, 2, 3, 4], scale);
    let (b, fb, eb) = compare(&tools, 32, &[5, 6], scale / 2);
    println!(
        "{} packets in, {} frames out, {} of them EVICTED",
        a + b,
        fa + fb,
        ea + eb
    );
    assert!(a + b >= 5 * scale);
    // The traces exercised what they are for.
    assert!(
        fa + fb > (a + b) / 2 && ea + eb > (a + b) / 100,
        "{fa} {fb} {ea} {eb}"
    );
}
