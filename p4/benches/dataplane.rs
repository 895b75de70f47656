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
//! fifty that is not ESA (L2). Run with `cargo bench -p esa-p4 --bench dataplane`; the
//! medians and the ratios are printed at the end. p4sim's generic benchmark
//! (`cargo bench -p p4sim`) measures the interpreter on a synthetic program.

use std::cell::RefCell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use esa_p4::bench::{check_same_work, compile, default_program, jobs, program, trace};
use p4sim::v1switch::{Engine, OutputArena};

/// Packets in one pass of the trace.
const TRACE_PACKETS: usize = 8_192;

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
    let trace = trace(&jobs, lanes, TRACE_PACKETS);
    let compiled = compile(&default_program(), lanes).unwrap_or_else(|e| panic!("{e}"));
    let lowering = Instant::now();
    let lowered = p4sim::exec::engine::CompiledProgram::new(&compiled);
    println!(
        "K={lanes}: lowering esa.p4 to closures took {:?} ({:?})",
        lowering.elapsed(),
        lowered.stats()
    );
    for engine in [Engine::Compiled, Engine::Reference] {
        let work = check_same_work(&trace, &jobs, &compiled, lanes, engine)
            .unwrap_or_else(|e| panic!("{e}"));
        println!("K={lanes} {engine:?}: {work:?}");
    }
    let mut g = c.benchmark_group(format!("esa_p4 K={lanes}"));
    g.throughput(Throughput::Elements(trace.len() as u64));
    g.measurement_time(Duration::from_secs(10));
    g.sample_size(20);

    let mut names = vec![];
    let mut all = vec![];
    for engine in [Engine::Compiled, Engine::Reference] {
        let samples = RefCell::new(vec![]);
        let (mut sw, _) = program(&jobs, &compiled, lanes, engine).unwrap();
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
        let (mut sw, _) = program(&jobs, &compiled, lanes, Engine::Compiled).unwrap();
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
        let (_, mut pool) = program(&jobs, &compiled, lanes, Engine::Reference).unwrap();
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
