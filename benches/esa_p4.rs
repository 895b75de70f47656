//! Packets per second of the ESA data plane (`p4/v1model/esa.p4`, K = 32
//! lanes, 4096 slots; then K = 64) in p4sim under a multi-job mix — on
//! p4sim's compiled engine (the default), on its reference interpreter, and
//! through `process_batch` — and of esa-core's pool model on the same trace
//! in the same run, as a baseline.
//!
//! The mix: four jobs sharing the pool — two `esa` jobs of four workers at
//! priorities 7 and 3, an `atp` job of two workers whose PS returns each
//! RESULT through the switch (the release), and a `switchml` job of two
//! workers in its own 1024-slot range — each streaming a window of chunks
//! with workers interleaved, 2 % of DATA packets resent, and one packet in
//! fifty that is not ESA (L2). Run with `cargo bench --bench esa_p4`; the
//! medians and the ratios are printed at the end. p4sim's generic benchmark
//! (`cargo bench -p p4sim`) measures the interpreter on a synthetic program.

use std::cell::RefCell;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use esa_core::pool::{JobEntry, Mode, Pool, PoolConfig};
use esa_core::rng::Rng;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType};
use esa_core::worker::{SlotMapping, slot_for};
use p4sim::bits::{BitType, Bits};
use p4sim::v1switch::{Engine, MatchValue, OutputArena, TableEntry, V1Switch};

const SLOTS: usize = 4096;
const WINDOW: usize = 256;
const ROUNDS: u16 = 512;

struct Job {
    id: u16,
    entry: JobEntry,
    workers: Vec<u16>,
    priority: u8,
}

fn jobs() -> Vec<Job> {
    let spec = [
        (1u16, Mode::Esa, 4u8, 7u8, 0u16, 4095u16),
        (2, Mode::Esa, 4, 3, 0, 4095),
        (3, Mode::Atp, 2, 5, 0, 4095),
        (4, Mode::SwitchMl, 2, 5, 3072, 1023),
    ];
    let mut port = 1;
    let mut out = vec![];
    for (k, (id, mode, fan_in, priority, slot_base, slot_mask)) in spec.into_iter().enumerate() {
        let workers: Vec<u16> = (port..port + u16::from(fan_in)).collect();
        let ps_port = port + u16::from(fan_in);
        port = ps_port + 1;
        let entry = JobEntry {
            fan_in,
            mode,
            max_priority: 7,
            mcast_group: k as u16 + 1,
            ps_port,
            slot_base,
            slot_mask,
        };
        out.push(Job {
            id,
            entry,
            workers,
            priority,
        });
    }
    out
}

fn b(width: u32, value: u64) -> Bits {
    Bits::from_u64(BitType::unsigned(width).unwrap(), value)
}

fn mac_value(mac: MacAddr) -> u64 {
    mac.0.iter().fold(0, |a, x| a << 8 | u64::from(*x))
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

/// esa.p4 compiled for `lanes` lanes.
fn compile(lanes: usize) -> Arc<p4sim::ir::Compiled> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("p4/v1model/esa.p4");
    let options = p4sim::frontend::FrontendOptions {
        include_dirs: vec![],
        defines: vec![("ESA_LANES".into(), lanes.to_string())],
    };
    let program =
        p4sim::frontend::parse_program_with(&path, &options).unwrap_or_else(|d| panic!("{d}"));
    Arc::new(p4sim::check::compile(&program).unwrap_or_else(|d| panic!("{d}")))
}

/// Both switches, programmed alike.
fn program(
    jobs: &[Job],
    compiled: &Arc<p4sim::ir::Compiled>,
    lanes: usize,
    engine: Engine,
) -> (V1Switch, Pool) {
    let mut sw = V1Switch::with_engine(Arc::clone(compiled), engine);
    let mut pool = Pool::new(PoolConfig {
        slots: SLOTS,
        lanes,
        stale_after_us: 1_000_000,
    })
    .unwrap();
    sw.table_set_default(
        "EsaIngress.aggregation.pool_config",
        "EsaIngress.aggregation.set_stale_after",
        &[("us".to_string(), b(48, 1_000_000))],
    )
    .unwrap();
    for job in jobs {
        let e = &job.entry;
        let key = vec![MatchValue::Exact(b(12, job.id.into()))];
        add(
            &mut sw,
            "EsaIngress.admission.jobs",
            key.clone(),
            "EsaIngress.admission.set_job",
            &[
                ("fan_in", b(8, e.fan_in.into())),
                ("mode", b(2, e.mode.code().into())),
                ("max_priority", b(4, e.max_priority.into())),
                ("mcast_group", b(16, e.mcast_group.into())),
                ("ps_port", b(9, e.ps_port.into())),
                ("slot_base", b(16, e.slot_base.into())),
                ("slot_mask", b(16, e.slot_mask.into())),
            ],
        );
        add(
            &mut sw,
            "EsaIngress.aggregation.job_route",
            key,
            "EsaIngress.aggregation.set_route",
            &[
                ("ps_port", b(9, e.ps_port.into())),
                ("fan_in", b(8, e.fan_in.into())),
                ("slot_base", b(16, e.slot_base.into())),
                ("slot_mask", b(16, e.slot_mask.into())),
            ],
        );
        pool.insert_job(job.id, *e).unwrap();
        let mut members = job.workers.clone();
        members.push(e.ps_port);
        for &p in &members {
            let (mac, ip) = (MacAddr::local(p.into()), Ipv4Addr::new(10, 0, 0, p as u8));
            pool.authorize(job.id, p);
            pool.set_host(p, mac, ip);
            add(
                &mut sw,
                "EsaIngress.admission.job_ports",
                vec![
                    MatchValue::Exact(b(12, job.id.into())),
                    MatchValue::Exact(b(9, p.into())),
                ],
                "EsaIngress.admission.allow",
                &[],
            );
            add(
                &mut sw,
                "EsaEgress.egress_host",
                vec![MatchValue::Exact(b(9, p.into()))],
                "EsaEgress.set_host",
                &[
                    ("mac", b(48, mac_value(mac))),
                    ("ip", b(32, u32::from_be_bytes(ip.0).into())),
                ],
            );
            // Every host is reachable by L2 too.
            add(
                &mut sw,
                "EsaIngress.l2.l2",
                vec![MatchValue::Exact(b(48, mac_value(mac)))],
                "EsaIngress.l2.forward",
                &[("port", b(9, p.into()))],
            );
        }
        let pre = sw.pre_mut();
        let ports: Vec<u32> = members.iter().map(|&p| p.into()).collect();
        pre.mc_mgrp_create(e.mcast_group.into()).unwrap();
        let node = pre.mc_node_create(0, &ports, &[]).unwrap();
        pre.mc_node_associate(e.mcast_group.into(), node).unwrap();
        pool.set_group(e.mcast_group, members);
    }
    (sw, pool)
}

/// The trace: `(ingress port, frame)` in arrival order.
fn trace(jobs: &[Job], lanes: usize) -> Vec<(u16, Vec<u8>)> {
    let mut rng = Rng::new(42);
    let mut out = vec![];
    let frame = |port: u16, esa: EsaRepr, values: &[i32]| {
        FrameRepr {
            src_mac: MacAddr::local(port.into()),
            dst_mac: MacAddr::local(0xfffe),
            src_ip: Ipv4Addr::new(10, 0, 0, port as u8),
            dst_ip: Ipv4Addr::new(10, 0, 0, 254),
            esa,
        }
        .emit(values, lanes)
    };
    for seq in 0..ROUNDS {
        for job in jobs {
            let mapping = match job.entry.mode {
                Mode::SwitchMl => SlotMapping::Direct,
                Mode::Esa | Mode::Atp => SlotMapping::Hashed,
            };
            let slot = slot_for(mapping, job.id, seq, WINDOW, job.entry.slot_mask);
            let mut esa = EsaRepr {
                packet_type: PacketType::Data,
                flags: Flags::NONE,
                slot,
                key: Key::new(job.priority, job.id, seq),
                bitmap: 0,
                fan_in: job.entry.fan_in,
                count: 1,
                exponent: 8,
                worker: 0,
            };
            for (w, &port) in job.workers.iter().enumerate() {
                esa.worker = w as u8;
                esa.bitmap = 1 << w;
                let values: Vec<i32> = (0..lanes)
                    .map(|_| rng.range(0, 2000) as i32 - 1000)
                    .collect();
                let data = frame(port, esa, &values);
                if rng.chance(0.02) {
                    let mut resend = esa;
                    resend.flags = Flags::RESEND;
                    out.push((port, frame(port, resend, &values)));
                }
                out.push((port, data));
                if rng.chance(0.02) {
                    // An ARP-sized L2 frame to another host (egress
                    // drops hairpins).
                    let to = if port == 1 { 2 } else { 1 };
                    let mut l2 = vec![0u8; 60];
                    l2[..6].copy_from_slice(&MacAddr::local(to).0);
                    l2[6..12].copy_from_slice(&MacAddr::local(port.into()).0);
                    l2[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
                    out.push((port, l2));
                }
            }
            if job.entry.mode == Mode::Atp {
                esa.packet_type = PacketType::Result;
                esa.bitmap = job.entry.full_bitmap();
                esa.count = job.entry.fan_in;
                esa.worker = 255;
                out.push((
                    job.entry.ps_port,
                    frame(job.entry.ps_port, esa, &vec![0; lanes]),
                ));
            }
        }
    }
    out
}

/// Runs the trace on both switches once and checks they emit the same
/// packets (the model has no L2 table: each L2 frame must leave esa.p4
/// once), so the figures below are for the intended work.
fn check_same_work(
    trace: &[(u16, Vec<u8>)],
    jobs: &[Job],
    compiled: &Arc<p4sim::ir::Compiled>,
    lanes: usize,
    engine: Engine,
) {
    let (mut sw, mut pool) = program(jobs, compiled, lanes, engine);
    let mut p4_out = 0;
    for (i, (port, frame)) in trace.iter().enumerate() {
        sw.set_time_us(i as u64);
        let mut have: Vec<(u16, Vec<u8>)> = sw
            .process(*port, frame)
            .into_iter()
            .map(|p| (p.port, p.data))
            .collect();
        p4_out += have.len();
        let d = pool.process(frame, *port, i as u64);
        let mut want = d.emit.map(|e| pool.egress(&e)).unwrap_or_default();
        if d.rule == "not-esa" {
            assert_eq!(have.len(), 1, "L2 frame {i} not forwarded once");
            continue;
        }
        have.sort();
        want.sort();
        assert!(
            have == want,
            "esa.p4 and the pool model disagree on packet {i} (rule {})",
            d.rule
        );
    }
    let completed: u64 = jobs.iter().map(|j| pool.counters(j.id).completed).sum();
    println!(
        "K={lanes} {engine:?}: trace of {} packets, {} emitted, {completed} chunks completed in the switch",
        trace.len(),
        p4_out
    );
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Times `run` (one pass over the trace per iteration) under criterion
/// and keeps the per-pass durations for the medians.
fn bench_pass(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    samples: &RefCell<Vec<Duration>>,
    mut run: impl FnMut(),
) {
    g.bench_function(name, |bench| {
        bench.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                run();
            }
            let took = start.elapsed();
            samples.borrow_mut().push(took / iters as u32);
            took
        });
    });
}

/// The medians in packets per second, by name, in the order run.
type Results = Vec<(String, f64)>;

fn bench_lanes(c: &mut Criterion, lanes: usize, with_model: bool, results: &mut Results) {
    let jobs = jobs();
    let trace = trace(&jobs, lanes);
    let compiled = compile(lanes);
    let lowering = Instant::now();
    let lowered = p4sim::engine::CompiledProgram::new(&compiled);
    println!(
        "K={lanes}: lowering esa.p4 to closures took {:?} ({:?})",
        lowering.elapsed(),
        lowered.stats()
    );
    check_same_work(&trace, &jobs, &compiled, lanes, Engine::Compiled);
    check_same_work(&trace, &jobs, &compiled, lanes, Engine::Reference);
    let mut g = c.benchmark_group(format!("esa_p4 K={lanes}"));
    g.throughput(Throughput::Elements(trace.len() as u64));
    g.measurement_time(Duration::from_secs(10));
    g.sample_size(20);

    let mut names = vec![];
    let mut all = vec![];
    for engine in [Engine::Compiled, Engine::Reference] {
        let samples = RefCell::new(vec![]);
        let (mut sw, _) = program(&jobs, &compiled, lanes, engine);
        let mut now = 0u64;
        let name = format!("p4sim {engine:?} esa.p4 K={lanes}");
        bench_pass(&mut g, &name, &samples, || {
            for (port, frame) in &trace {
                now += 1;
                sw.set_time_us(now);
                black_box(sw.process(*port, frame));
            }
        });
        names.push(name);
        all.push(samples);
    }
    {
        // the compiled engine through process_batch, 64 packets a call
        let samples = RefCell::new(vec![]);
        let (mut sw, _) = program(&jobs, &compiled, lanes, Engine::Compiled);
        let mut arena = OutputArena::new();
        let mut now = 0u64;
        let name = format!("p4sim Compiled process_batch(64) esa.p4 K={lanes}");
        bench_pass(&mut g, &name, &samples, || {
            for chunk in trace.chunks(64) {
                now += 64;
                sw.set_time_us(now);
                arena.clear();
                sw.process_batch(chunk.iter().map(|(p, f)| (*p, f.as_slice())), &mut arena);
                black_box(&arena);
            }
        });
        names.push(name);
        all.push(samples);
    }
    if with_model {
        let samples = RefCell::new(vec![]);
        let (_, mut pool) = program(&jobs, &compiled, lanes, Engine::Reference);
        let mut now = 0u64;
        let name = format!("pool model K={lanes}");
        bench_pass(&mut g, &name, &samples, || {
            for (port, frame) in &trace {
                now += 1;
                let d = pool.process(frame, *port, now);
                black_box(d.emit.map(|e| pool.egress(&e)));
            }
        });
        names.push(name);
        all.push(samples);
    }
    g.finish();
    for (name, samples) in names.into_iter().zip(all) {
        let mut s = samples.into_inner();
        if s.is_empty() {
            continue; // `cargo bench -- --list` or a filter that skipped it
        }
        let pps = trace.len() as f64 / median(&mut s).as_secs_f64();
        results.push((name, pps));
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut results = vec![];
    bench_lanes(&mut c, 32, true, &mut results);
    bench_lanes(&mut c, 64, true, &mut results);
    c.final_summary();
    for (name, pps) in &results {
        println!("{name:<48} median {pps:>10.0} packets/s");
    }
    let get = |n: &str| results.iter().find(|(x, _)| x == n).map(|r| r.1);
    for k in [32, 64] {
        let fast = get(&format!("p4sim Compiled esa.p4 K={k}"));
        let slow = get(&format!("p4sim Reference esa.p4 K={k}"));
        let model = get(&format!("pool model K={k}"));
        if let (Some(f), Some(r)) = (fast, slow) {
            println!("K={k}: compiled / reference: {:.2}x", f / r);
        }
        if let (Some(f), Some(m)) = (fast, model) {
            println!("K={k}: compiled / pool model: {:.3}x", f / m);
        }
    }
}
