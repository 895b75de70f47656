//! The P4 program against its reference model, packet by packet.
//!
//! Seeded random multi-job traces — several jobs and modes, priorities, a
//! 16-slot pool so that collisions, preemption and stale reclaim are constant,
//! resends, duplicates, results and queries from the PS, and every class of
//! bad input — run through `esa_core::pool` and through `p4/tests/esa_small.p4`
//! in p4sim. Every emitted packet and its port, every counter and every slot
//! register must be identical. A failure prints the seed, the step and the
//! packets in hex.

use esa_core::pool::{GlobalCounters, JobEntry, Mode, Pool, PoolConfig};
use esa_core::rng::Rng;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType};
use p4sim::bits::Bits;
use p4sim::v1switch::{MatchValue, TableEntry, V1Switch};
use std::path::PathBuf;
use std::sync::Arc;

const LANES: usize = 4;
const SLOTS: usize = 16;

/// Every p4sim call of this test, in one place.
struct P4Target {
    switch: V1Switch,
}

fn b(width: u32, value: u64) -> Bits {
    Bits::from_u64(p4sim::bits::BitType::unsigned(width).unwrap(), value)
}

impl P4Target {
    fn new(compiled: &Arc<p4sim::ir::Compiled>) -> P4Target {
        P4Target {
            switch: V1Switch::new(Arc::clone(compiled)),
        }
    }

    fn add(
        &mut self,
        table: &str,
        matches: Vec<MatchValue>,
        action: &str,
        args: Vec<(&str, Bits)>,
    ) {
        let entry = TableEntry {
            matches,
            priority: None,
            action: action.to_string(),
            args: args.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        };
        if let Err(e) = self.switch.table_add(table, entry) {
            panic!("{table}: {e}");
        }
    }

    fn insert_job(&mut self, job: u16, e: &JobEntry) {
        let key = vec![MatchValue::Exact(b(12, job.into()))];
        let mode = u64::from(e.mode.code());
        self.add(
            "EsaIngress.admission.jobs",
            key.clone(),
            "EsaIngress.admission.set_job",
            vec![
                ("fan_in", b(8, e.fan_in.into())),
                ("mode", b(2, mode)),
                ("max_priority", b(4, e.max_priority.into())),
                ("mcast_group", b(16, e.mcast_group.into())),
                ("ps_port", b(9, e.ps_port.into())),
                ("slot_base", b(16, e.slot_base.into())),
                ("slot_mask", b(16, e.slot_mask.into())),
            ],
        );
        self.add(
            "EsaIngress.aggregation.job_route",
            key,
            "EsaIngress.aggregation.set_route",
            vec![
                ("ps_port", b(9, e.ps_port.into())),
                ("fan_in", b(8, e.fan_in.into())),
                ("slot_base", b(16, e.slot_base.into())),
                ("slot_mask", b(16, e.slot_mask.into())),
            ],
        );
    }

    fn authorize(&mut self, job: u16, port: u16) {
        self.add(
            "EsaIngress.admission.job_ports",
            vec![
                MatchValue::Exact(b(12, job.into())),
                MatchValue::Exact(b(9, port.into())),
            ],
            "EsaIngress.admission.allow",
            vec![],
        );
    }

    fn set_host(&mut self, port: u16, mac: MacAddr, ip: Ipv4Addr) {
        let mac = mac.0.iter().fold(0u64, |a, x| a << 8 | u64::from(*x));
        let ip = u32::from_be_bytes(ip.0);
        self.add(
            "EsaEgress.egress_host",
            vec![MatchValue::Exact(b(9, port.into()))],
            "EsaEgress.set_host",
            vec![("mac", b(48, mac)), ("ip", b(32, ip.into()))],
        );
    }

    fn set_group(&mut self, group: u16, ports: &[u16]) {
        let pre = self.switch.pre_mut();
        pre.mc_mgrp_create(group.into()).unwrap();
        let ports: Vec<u32> = ports.iter().map(|&p| p.into()).collect();
        let node = pre.mc_node_create(0, &ports, &[]).unwrap();
        pre.mc_node_associate(group.into(), node).unwrap();
    }

    fn set_stale_after(&mut self, us: u64) {
        self.switch
            .table_set_default(
                "EsaIngress.aggregation.pool_config",
                "EsaIngress.aggregation.set_stale_after",
                &[("us".to_string(), b(48, us))],
            )
            .unwrap();
    }

    fn process(&mut self, port: u16, frame: &[u8], now_us: u64) -> Vec<(u16, Vec<u8>)> {
        self.switch.set_time_us(now_us);
        self.switch
            .process(port, frame)
            .into_iter()
            .map(|p| (p.port, p.data))
            .collect()
    }

    fn counter(&mut self, name: &str, index: u16) -> u64 {
        self.switch.counter_read(name, index.into()).unwrap().0
    }

    fn register(&self, name: &str, index: usize) -> u64 {
        self.switch
            .register_read(name, index as u64)
            .unwrap()
            .to_u64()
            .unwrap()
    }
}

struct Job {
    id: u16,
    entry: JobEntry,
    worker_ports: Vec<u16>,
}

/// A random experiment: the jobs, and both switches programmed alike.
fn setup(rng: &mut Rng, compiled: &Arc<p4sim::ir::Compiled>) -> (Pool, P4Target, Vec<Job>) {
    let stale_after_us = rng.range(0, 60);
    let mut pool = Pool::new(PoolConfig {
        slots: SLOTS,
        lanes: LANES,
        stale_after_us,
    })
    .unwrap();
    let mut p4 = P4Target::new(compiled);
    p4.set_stale_after(stale_after_us);
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
        let entry = JobEntry {
            fan_in,
            mode,
            max_priority: rng.range(3, 15) as u8,
            mcast_group: k + 1,
            ps_port,
            slot_base,
            slot_mask,
        };
        pool.insert_job(id, entry).unwrap();
        p4.insert_job(id, &entry);
        let mut members = worker_ports.clone();
        members.push(ps_port);
        for &p in &members {
            pool.authorize(id, p);
            p4.authorize(id, p);
            // Some ports have a host entry, some do not.
            if p % 3 != 0 {
                let (mac, ip) = (MacAddr::local(p.into()), Ipv4Addr::new(10, 0, 0, p as u8));
                pool.set_host(p, mac, ip);
                p4.set_host(p, mac, ip);
            }
        }
        pool.set_group(entry.mcast_group, members.clone());
        p4.set_group(entry.mcast_group, &members);
        jobs.push(Job {
            id,
            entry,
            worker_ports,
        });
    }
    (pool, p4, jobs)
}

/// One random packet of the trace and the port it arrives on.
fn packet(rng: &mut Rng, jobs: &[Job]) -> (u16, Vec<u8>) {
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
    let roll = rng.below(100);
    match roll {
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
    let values: Vec<i32> = (0..LANES)
        .map(|_| rng.range(0, 2000) as i32 - 1000)
        .collect();
    let mut frame = FrameRepr {
        src_mac: MacAddr::local(port.into()),
        dst_mac: MacAddr::local(0xfffe),
        src_ip: Ipv4Addr::new(10, 0, 0, port as u8),
        dst_ip: Ipv4Addr::new(10, 0, 0, 254),
        esa,
    }
    .emit(&values, LANES);
    match rng.below(100) {
        0..=1 => frame.truncate(rng.below(frame.len() as u64) as usize),
        2 => frame[24] ^= 0x40,                     // IPv4 checksum
        3 => frame[42] = 0x20 | (frame[42] & 0x0f), // ESA version
        4 => frame[42] = 0x10 | 0x09,               // ESA type 9
        5 => frame[12] = 0x86,                      // not IPv4: L2 (dropped by the empty table)
        6 => frame.extend_from_slice(&[0; 6]),      // Ethernet padding
        _ => {}
    }
    (port, frame)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every row of the decision table (`docs/protocol.md` §5) plus the
/// admission and not-ESA outcomes; the traces must reach each of them.
const ROWS: [&str; 18] = [
    "admission",
    "not-esa",
    "Q1",
    "D1",
    "D2",
    "D3",
    "D4",
    "D5",
    "D6",
    "D7",
    "D8",
    "D9",
    "D10",
    "D11",
    "D12",
    "R1",
    "R2",
    "emitted",
];

/// Runs one trace; returns a description of the first difference. `seen`
/// collects the model rows the trace reached.
fn run_trace(
    seed: u64,
    steps: usize,
    compiled: &Arc<p4sim::ir::Compiled>,
    seen: &mut std::collections::BTreeSet<&'static str>,
) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let (mut pool, mut p4, jobs) = setup(&mut rng, compiled);
    let mut now = 1_000u64;
    for step in 0..steps {
        now += rng.range(0, 25);
        let (port, frame) = packet(&mut rng, &jobs);
        let decision = pool.process(&frame, port, now);
        seen.insert(decision.rule);
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
        for (name, want) in pool.counters(job.id).by_p4_name() {
            let have = p4.counter(name, job.id);
            if have != want {
                return Err(format!(
                    "seed {seed}: job {} counter {name}: model {want}, p4 {have}",
                    job.id
                ));
            }
        }
    }
    let global = pool.global_counters();
    for (index, want) in global.by_p4_index() {
        let have = p4.counter(GlobalCounters::P4_NAME, index as u16);
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
            let have = p4.register(&format!("EsaIngress.aggregation.{name}"), i);
            if have != want {
                return Err(format!(
                    "seed {seed}: slot {i} {name}: model {want:#x}, p4 {have:#x}"
                ));
            }
        }
        for (lane, want) in slot.values.iter().enumerate() {
            let have = p4.register(&format!("EsaIngress.aggregation.lane{lane}.lane"), i);
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
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("p4/tests/esa_small.p4");
    Arc::new(p4sim::check::compile_file(&path, &[]).unwrap_or_else(|d| panic!("{d}")))
}

#[test]
fn p4_program_equals_the_reference_model_on_random_traces() {
    let compiled = compiled();
    let traces: u64 = std::env::var("ESA_DIFF_TRACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut seen = std::collections::BTreeSet::new();
    let failures: Vec<String> = (0..traces)
        .filter_map(|seed| run_trace(seed, 150, &compiled, &mut seen).err())
        .take(3)
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if traces >= 200 {
        let missed: Vec<&str> = ROWS.iter().copied().filter(|r| !seen.contains(r)).collect();
        assert!(missed.is_empty(), "the traces never reached {missed:?}");
    }
}
