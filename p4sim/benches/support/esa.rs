//! ESA's data plane (`p4/v1model/esa.p4`) at a chosen lane count, with its
//! tables programmed as the controller does for four jobs (the mix of
//! `p4/benches/dataplane.rs`), and packet generators: a stream of
//! well-formed DATA/RESULT/L2 packets and random or mutated ones. Shared by
//! `tests/all/engines.rs`, `examples/esa_pps.rs` and esa-p4's `tests/all/native.rs`
//! through `#[path]`; `step` runs one packet through two engines.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use p4sim::exec::bits::{BitType, Bits};
use p4sim::ir::Compiled;
use p4sim::v1switch::{MatchValue, TableEntry, V1Switch};

/// (job id, mode, fan-in, priority, slot base, slot mask)
pub const JOBS: [(u16, u8, u8, u8, u16, u16); 4] = [
    (1, 0, 4, 7, 0, 4095),
    (2, 0, 4, 3, 0, 4095),
    (3, 1, 2, 5, 0, 4095),
    (4, 2, 2, 5, 3072, 1023),
];

/// The worker ports of job `k` (index into [`JOBS`]) and its PS port.
pub fn ports(k: usize) -> (Vec<u16>, u16) {
    let mut port = 1u16;
    for (i, j) in JOBS.iter().enumerate() {
        let workers: Vec<u16> = (port..port + u16::from(j.2)).collect();
        let ps = port + u16::from(j.2);
        if i == k {
            return (workers, ps);
        }
        port = ps + 1;
    }
    unreachable!()
}

pub fn compile(lanes: usize, slots: usize) -> Arc<Compiled> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../p4/v1model/esa.p4");
    let options = p4sim::front::FrontendOptions {
        include_dirs: vec![],
        defines: vec![
            ("ESA_LANES".into(), lanes.to_string()),
            ("ESA_POOL_SLOTS".into(), slots.to_string()),
        ],
    };
    let program =
        p4sim::front::parse_program_with(&path, &options).unwrap_or_else(|d| panic!("{d}"));
    Arc::new(p4sim::check::compile(&program).unwrap_or_else(|d| panic!("{d}")))
}

fn b(width: u32, value: u64) -> Bits {
    Bits::from_u64(BitType::unsigned(width).unwrap(), value)
}

fn add(
    sw: &mut V1Switch,
    table: &str,
    matches: Vec<MatchValue>,
    action: &str,
    args: &[(&str, Bits)],
) {
    let entry = TableEntry {
        matches,
        priority: None,
        action: action.to_string(),
        args: args
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
    };
    sw.table_add(table, entry)
        .unwrap_or_else(|e| panic!("{table}: {e}"));
}

pub fn mac(port: u16) -> u64 {
    0x0200_0000_0000 | u64::from(port)
}

/// Programs the tables and multicast groups; `stale_after_us` for the pool.
pub fn program(sw: &mut V1Switch, stale_after_us: u64) {
    sw.table_set_default(
        "EsaIngress.aggregation.pool_config",
        "EsaIngress.aggregation.set_stale_after",
        &[("us".to_string(), b(48, stale_after_us))],
    )
    .unwrap();
    for (k, &(id, mode, fan_in, _prio, base, mask)) in JOBS.iter().enumerate() {
        let (workers, ps) = ports(k);
        let group = k as u64 + 1;
        let key = vec![MatchValue::Exact(b(12, id.into()))];
        add(
            sw,
            "EsaIngress.admission.jobs",
            key.clone(),
            "EsaIngress.admission.set_job",
            &[
                ("fan_in", b(8, fan_in.into())),
                ("mode", b(2, mode.into())),
                ("max_priority", b(4, 7)),
                ("mcast_group", b(16, group)),
                ("ps_port", b(9, ps.into())),
                ("slot_base", b(16, base.into())),
                ("slot_mask", b(16, mask.into())),
            ],
        );
        add(
            sw,
            "EsaIngress.aggregation.job_route",
            key,
            "EsaIngress.aggregation.set_route",
            &[
                ("ps_port", b(9, ps.into())),
                ("fan_in", b(8, fan_in.into())),
                ("slot_base", b(16, base.into())),
                ("slot_mask", b(16, mask.into())),
            ],
        );
        let mut members = workers.clone();
        members.push(ps);
        for &p in &members {
            add(
                sw,
                "EsaIngress.admission.job_ports",
                vec![
                    MatchValue::Exact(b(12, id.into())),
                    MatchValue::Exact(b(9, p.into())),
                ],
                "EsaIngress.admission.allow",
                &[],
            );
            add(
                sw,
                "EsaEgress.egress_host",
                vec![MatchValue::Exact(b(9, p.into()))],
                "EsaEgress.set_host",
                &[
                    ("mac", b(48, mac(p))),
                    ("ip", b(32, 0x0a00_0000 | u64::from(p))),
                ],
            );
            add(
                sw,
                "EsaIngress.l2.l2",
                vec![MatchValue::Exact(b(48, mac(p)))],
                "EsaIngress.l2.forward",
                &[("port", b(9, p.into()))],
            );
        }
        let pre = sw.pre_mut();
        let ports: Vec<u32> = members.iter().map(|&p| p.into()).collect();
        pre.mc_mgrp_create(group as u32).unwrap();
        let node = pre.mc_node_create(0, &ports, &[]).unwrap();
        pre.mc_node_associate(group as u32, node).unwrap();
    }
}

/// The fields of an ESA header.
#[derive(Debug, Clone, Copy)]
pub struct Esa {
    pub packet_type: u8,
    pub flags: u8,
    pub slot: u16,
    pub priority: u8,
    pub job: u16,
    pub seq: u16,
    pub bitmap: u32,
    pub fan_in: u8,
    pub count: u8,
    pub exponent: u8,
    pub worker: u8,
}

fn csum16(bytes: &[u8]) -> u16 {
    let mut s = 0u32;
    for c in bytes.chunks(2) {
        s += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
    }
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// An Ethernet/IPv4/UDP/ESA frame from `port` with `values` (one per lane).
pub fn frame(port: u16, e: &Esa, values: &[u32]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&mac(0xfffe).to_be_bytes()[2..]);
    f.extend_from_slice(&mac(port).to_be_bytes()[2..]);
    f.extend_from_slice(&0x0800u16.to_be_bytes());
    let udp_len = 8 + 16 + 4 * values.len() as u16;
    let mut ip = vec![0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0];
    ip[2..4].copy_from_slice(&(20 + udp_len).to_be_bytes());
    ip.extend_from_slice(&[10, 0, 0, port as u8]);
    ip.extend_from_slice(&[10, 0, 0, 254]);
    let c = csum16(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&40000u16.to_be_bytes());
    f.extend_from_slice(&17747u16.to_be_bytes());
    f.extend_from_slice(&udp_len.to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.push(0x10 | (e.packet_type & 0xf));
    f.push(e.flags);
    f.extend_from_slice(&e.slot.to_be_bytes());
    f.extend_from_slice(&((u16::from(e.priority & 0xf) << 12) | (e.job & 0xfff)).to_be_bytes());
    f.extend_from_slice(&e.seq.to_be_bytes());
    f.extend_from_slice(&e.bitmap.to_be_bytes());
    f.extend_from_slice(&[e.fan_in, e.count, e.exponent, e.worker]);
    for v in values {
        f.extend_from_slice(&v.to_be_bytes());
    }
    f
}

/// A small deterministic generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn l2_frame(from: u16, to: u16) -> Vec<u8> {
    let mut l2 = vec![0u8; 60];
    l2[..6].copy_from_slice(&mac(to).to_be_bytes()[2..]);
    l2[6..12].copy_from_slice(&mac(from).to_be_bytes()[2..]);
    l2[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
    l2
}

/// The benchmark stream: every job's workers send one DATA packet per
/// chunk in a window of 256 slots (2 % resent), ATP's PS returns each
/// RESULT, one packet in fifty is L2. `(ingress port, frame)`.
pub fn trace(lanes: usize, rounds: u16, seed: u64) -> Vec<(u16, Vec<u8>)> {
    let mut rng = Rng(seed | 1);
    let mut out = vec![];
    for seq in 0..rounds {
        for (k, &(id, mode, fan_in, prio, _base, mask)) in JOBS.iter().enumerate() {
            let (workers, ps) = ports(k);
            let slot = if mode == 2 {
                seq & mask
            } else {
                ((u32::from(seq).wrapping_mul(2_654_435_761) ^ u32::from(id)) % 256) as u16 & mask
            };
            let mut e = Esa {
                packet_type: 1,
                flags: 0,
                slot,
                priority: prio,
                job: id,
                seq,
                bitmap: 0,
                fan_in,
                count: 1,
                exponent: 8,
                worker: 0,
            };
            for (w, &port) in workers.iter().enumerate() {
                e.worker = w as u8;
                e.bitmap = 1 << w;
                let values: Vec<u32> = (0..lanes)
                    .map(|_| (rng.below(2000) as i32 - 1000) as u32)
                    .collect();
                if rng.chance(2) {
                    let mut r = e;
                    r.flags = 1;
                    out.push((port, frame(port, &r, &values)));
                }
                out.push((port, frame(port, &e, &values)));
                if rng.chance(2) {
                    out.push((port, l2_frame(port, if port == 1 { 2 } else { 1 })));
                }
            }
            if mode == 1 {
                e.packet_type = 2;
                e.bitmap = (1 << fan_in) - 1;
                e.count = fan_in;
                e.worker = 255;
                out.push((ps, frame(ps, &e, &vec![0; lanes])));
            }
        }
    }
    out
}

/// Random packets over a small space of jobs, slots, sequence numbers and
/// types (so that every decision row is taken), and some mutated or
/// truncated ones. Each comes with a clock advance in microseconds.
pub fn random_packets(lanes: usize, n: usize, seed: u64) -> Vec<(u64, u16, Vec<u8>)> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let k = rng.below(JOBS.len() as u64) as usize;
        let (id, _mode, fan_in, _prio, _base, _mask) = JOBS[k];
        let (workers, ps) = ports(k);
        let worker = rng.below(u64::from(fan_in) + 1) as u8;
        let port = match rng.below(10) {
            0 => ps,
            1 => rng.below(20) as u16,
            _ => workers[usize::from(worker).min(workers.len() - 1)],
        };
        let packet_type = match rng.below(20) {
            0..=13 => 1,
            14 | 15 => 2,
            16 => 6,
            _ => rng.below(16) as u8,
        };
        let flags = match rng.below(10) {
            0 | 1 => 1,
            2 => 4,
            3 => 5,
            4 => rng.below(256) as u8,
            _ => 0,
        };
        let e = Esa {
            packet_type,
            flags,
            slot: rng.below(6) as u16,
            priority: rng.below(16) as u8,
            job: if rng.chance(5) {
                rng.below(8) as u16
            } else {
                id
            },
            seq: rng.below(5) as u16,
            bitmap: if rng.chance(95) {
                1u32.wrapping_shl(u32::from(worker))
            } else {
                rng.next() as u32
            },
            fan_in,
            count: rng.below(4) as u8,
            exponent: rng.below(256) as u8,
            worker,
        };
        let values: Vec<u32> = (0..lanes).map(|_| rng.next() as u32).collect();
        let mut f = if rng.chance(5) {
            l2_frame(port, rng.below(20) as u16)
        } else {
            frame(port, &e, &values)
        };
        if rng.chance(8) {
            // mutate: flip bytes, or truncate
            for _ in 0..=rng.below(3) {
                let i = rng.below(f.len() as u64) as usize;
                f[i] ^= 1 << rng.below(8);
            }
        }
        if rng.chance(3) {
            let l = rng.below(f.len() as u64) as usize;
            f.truncate(l);
        }
        let dt = match rng.below(10) {
            0 => 1000,
            1 => rng.below(100_000),
            _ => rng.below(10),
        };
        out.push((dt, port, f));
    }
    out
}

/// Runs one packet through a reference switch `r` and another engine `f`;
/// panics on any difference in the outputs or the state after it, and
/// returns the output frames.
pub fn step(
    what: &str,
    i: usize,
    r: &mut V1Switch,
    f: &mut V1Switch,
    port: u16,
    pkt: &[u8],
) -> Vec<Vec<u8>> {
    let a = r.process(port, pkt);
    let b = f.process(port, pkt);
    assert_eq!(
        a,
        b,
        "{what}: packet {i} (port {port}, {} bytes): outputs differ",
        pkt.len()
    );
    if let Err(e) = r.compare_state(f) {
        panic!("{what}: packet {i}: state differs after the packet: {e}");
    }
    a.into_iter().map(|o| o.data).collect()
}
