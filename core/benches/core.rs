//! Per-packet costs of the core: wire parse and emit, the pool's decision,
//! the PS's exact cover, and quantization throughput. `cargo bench -p
//! esa-core`.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use esa_core::constants::DEFAULT_LANES;
use esa_core::job::Mode;
use esa_core::job::TreeShape;
use esa_core::pool::{Pool, PoolConfig};
use esa_core::ps::{JobOptions, ParameterServer, PsConfig};
use esa_core::quant;
use esa_core::rng::Rng;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType, ParsedFrame};
use std::hint::black_box;

const LANES: usize = DEFAULT_LANES;

fn data_frame(job: u16, worker: u8, seq: u16, priority: u8, slot: u16, fan_in: u8) -> Vec<u8> {
    FrameRepr {
        src_mac: MacAddr::local(u32::from(worker) + 1),
        dst_mac: MacAddr::local(0xffff),
        src_ip: Ipv4Addr::new(10, 0, job as u8, worker),
        dst_ip: Ipv4Addr::new(10, 0, 0, 254),
        esa: EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::NONE,
            slot,
            key: Key::new(priority, job, seq),
            bitmap: 1 << worker,
            fan_in,
            count: 1,
            exponent: 16,
            worker,
        },
    }
    .emit(&[7; LANES], LANES)
}

fn wire(c: &mut Criterion) {
    let frame = data_frame(1, 2, 7, 3, 5, 4);
    let mut g = c.benchmark_group("wire");
    g.throughput(Throughput::Elements(1));
    g.bench_function("parse_frame_k32", |b| {
        b.iter(|| {
            let p = ParsedFrame::parse(black_box(&frame), LANES).unwrap();
            black_box(p.payload.values().fold(0i32, |a, v| a.wrapping_add(v)))
        })
    });
    let repr = FrameRepr {
        src_mac: MacAddr::local(1),
        dst_mac: MacAddr::local(2),
        src_ip: Ipv4Addr::new(10, 0, 0, 1),
        dst_ip: Ipv4Addr::new(10, 0, 0, 2),
        esa: ParsedFrame::parse(&frame, LANES).unwrap().esa,
    };
    let values = [5i32; LANES];
    g.bench_function("emit_frame_k32", |b| {
        b.iter(|| black_box(repr.emit(black_box(&values), LANES)))
    });
    g.finish();
}

/// A multi-job mix: 4 jobs of 4 workers, priorities 0..4, on a 64-slot pool,
/// so claims, aggregation, completion, fallback and preemption all happen.
fn pool(c: &mut Criterion) {
    let mut rng = Rng::new(9);
    let mut frames = vec![];
    for seq in 0..256u16 {
        for job in 1..=4u16 {
            for worker in 0..4u8 {
                let slot = (rng.below(64)) as u16;
                frames.push((
                    data_frame(job, worker, seq, job as u8, slot, 4),
                    u16::from(worker) + 1 + (job - 1) * 5,
                ));
            }
        }
    }
    let mut base = Pool::new(PoolConfig {
        slots: 64,
        lanes: LANES,
        stale_after_us: 1_000,
    })
    .unwrap();
    for job in 1..=4u16 {
        let ps = job * 5;
        let entry = base.shared_entry(4, Mode::Esa, job, ps);
        base.insert_job(job, entry).unwrap();
        let workers: Vec<u16> = (ps - 4..ps).collect();
        base.authorize_members(job, &workers);
    }
    let mut g = c.benchmark_group("pool");
    g.throughput(Throughput::Elements(frames.len() as u64));
    g.bench_function("process_mix_k32", |b| {
        b.iter_batched(
            || base.clone(),
            |mut pool| {
                for (i, (f, port)) in frames.iter().enumerate() {
                    black_box(pool.process(f, *port, i as u64));
                }
                pool
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// Completes one chunk per iteration from `parts` (payloads of chunk 0;
/// each iteration's chunk gets the next seq).
fn complete_chunks(b: &mut criterion::Bencher, ps: &mut ParameterServer, parts: &[Vec<u8>]) {
    let mut parts = parts.to_vec();
    let mut seq = 0u16;
    b.iter(|| {
        seq = seq.wrapping_add(1);
        for part in &mut parts {
            part[6..8].copy_from_slice(&seq.to_be_bytes());
            let _ = ps.handle_payload(black_box(part), 0);
        }
        while let Some(out) = ps.poll_transmit() {
            black_box(out);
        }
    })
}

/// A part of job 1: `bitmap` of the sender `worker` at the level `flags`
/// says, with the job's `fan_in` there.
fn part(flags: Flags, bitmap: u32, fan_in: u8, worker: u8) -> Vec<u8> {
    EsaRepr {
        packet_type: PacketType::Fallback,
        flags,
        slot: 0,
        key: Key::new(0, 1, 0),
        bitmap,
        fan_in,
        count: bitmap.count_ones() as u8,
        exponent: 16,
        worker,
    }
    .to_payload(&[3; LANES], LANES)
}

/// The PS's exact cover per chunk: a flat job of 32 workers falling back
/// worker by worker, one of 16 with partials that all overlap first, and a
/// tree job of 8 racks of 4 with root partials that all overlap, then each
/// rack in two halves.
fn ps_cover(c: &mut Criterion) {
    let cfg = PsConfig {
        lanes: LANES,
        ..PsConfig::default()
    };
    let mut g = c.benchmark_group("ps");
    let singles: Vec<Vec<u8>> = (0..32).map(|w| part(Flags::NONE, 1 << w, 32, w)).collect();
    g.bench_function("cover_singles_f32_k32", |b| {
        let mut ps = ParameterServer::new(cfg.clone()).unwrap();
        ps.add_job(1, 32).unwrap();
        complete_chunks(b, &mut ps, &singles)
    });
    let mut overlap: Vec<Vec<u8>> = [0x00ff, 0x0f0f, 0x3333, 0x5555, 0x8001, 0x0ff1]
        .into_iter()
        .map(|bitmap| part(Flags::NONE, bitmap, 16, 0))
        .collect();
    overlap.extend((0..16).map(|w| part(Flags::NONE, 1 << w, 16, w)));
    g.bench_function("cover_overlap_f16_k32", |b| {
        let mut ps = ParameterServer::new(cfg.clone()).unwrap();
        ps.add_job(1, 16).unwrap();
        complete_chunks(b, &mut ps, &overlap)
    });
    let shape = TreeShape::new(&[4; 8]).unwrap();
    let mut tree: Vec<Vec<u8>> = [0x0f, 0x33, 0x55]
        .into_iter()
        .map(|racks| part(Flags::UPPER, racks, 8, 0))
        .collect();
    tree.extend((0..8).map(|rack| part(Flags::NONE, 0b0011, 4, rack)));
    tree.extend((0..8).map(|rack| part(Flags::NONE, 0b1100, 4, rack)));
    g.bench_function("cover_tree_8x4_k32", |b| {
        let mut ps = ParameterServer::new(cfg.clone()).unwrap();
        let options = JobOptions {
            tree: Some(shape),
            ..JobOptions::default()
        };
        ps.add_job_with(1, 8, options).unwrap();
        complete_chunks(b, &mut ps, &tree)
    });
    g.finish();
}

fn quantization(c: &mut Criterion) {
    let n = 1 << 20;
    let mut rng = Rng::new(1);
    let src: Vec<f32> = (0..n).map(|_| (rng.unit() as f32 - 0.5) * 4.0).collect();
    let mut q = vec![0i32; n];
    let mut back = vec![0f32; n];
    let mut g = c.benchmark_group("quant");
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.bench_function("quantize_4MiB", |b| {
        b.iter(|| black_box(quant::quantize_into(black_box(&src), 16, 8, &mut q)))
    });
    g.bench_function("dequantize_4MiB", |b| {
        b.iter(|| quant::dequantize_into(black_box(&q), 16, &mut back))
    });
    g.finish();
}

/// What a checked all-reduce of 2²⁰ floats adds twice in a worker: the
/// checksum of every chunk's lanes (once as sent, once as received).
fn integrity(c: &mut Criterion) {
    let (n, lanes) = (1usize << 20, 32);
    let chunks = n / lanes;
    let mut rng = Rng::new(2);
    let mut coefficients = esa_core::integrity::Coefficients::default();
    coefficients.refill(chunks, lanes, || rng.next_u64());
    let wire: Vec<u8> = (0..n)
        .flat_map(|_| (rng.next_u64() as i32 >> 4).to_be_bytes())
        .collect();
    let mut g = c.benchmark_group("integrity");
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.bench_function("checksum_4MiB", |b| {
        b.iter(|| {
            wire.chunks_exact(4 * lanes)
                .enumerate()
                .map(|(i, chunk)| coefficients.chunk_checksum(i, black_box(chunk)))
                .fold(0u64, |acc, x| acc ^ x)
        })
    });
    g.finish();
}

criterion_group!(benches, wire, pool, ps_cover, quantization, integrity);
criterion_main!(benches);
