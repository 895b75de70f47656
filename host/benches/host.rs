//! Host-path benchmarks. `cargo bench -p esa-host`.
//!
//! - `packetize`: what one core turns float32 gradients into DATA payloads
//!   at — `Worker::start_allreduce` plus `Worker::poll_transmit_into` (one
//!   reused buffer) over a 4 MiB tensor, the real path (quantization,
//!   policy, bookkeeping, payload encoding); `_owned` is the same on the
//!   caller's buffer (`Worker::start_allreduce_owned`, no input copy);
//!   `poll_transmit_batch` is `_owned` in batches of 64 payloads
//!   (`Worker::poll_transmit_batch_into`, one quantizer call per batch);
//!   `poll_transmit_vec` is the same through the allocating
//!   `Worker::poll_transmit`. Same-run baselines:
//!   `quantize_only` (the arithmetic alone) and `old_emit_path` (quantize
//!   into a Vec, `EsaRepr::to_payload` per chunk). `frames` wraps the
//!   payloads in whole Ethernet frames as a worker on a switch port does
//!   (`SwitchPortTransport::send_packed` to a link that drops them);
//!   `dequantize_only` is the result path's arithmetic (big-endian lanes to
//!   float32). Medians and their ratios are printed at the end.
//! - `allreduce`: end-to-end goodput of four workers, one PS and the model
//!   switch on in-memory links, with in-switch aggregation and host-only
//!   (every DATA summed at the PS), in the same run; the ratio of the
//!   medians is printed at the end. `esa_switch` is the same four workers
//!   and PS through esa-switch running `p4/v1model/esa.p4` on in-memory
//!   ports, programmed by esa-controller (as `esa run` wires them), with
//!   its goodput ratio to `host_only` printed too.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use esa_core::faults::FaultConfig;
use esa_core::job::{MAX_WINDOW, Mode, SlotRange};
use esa_core::plan::JobPlan;
use esa_core::pool::PoolConfig;
use esa_core::quant;
use esa_core::synthetic::gradient_value;
use esa_core::wire::{EsaRepr, Flags, Key, PacketType};
use esa_core::worker::{Worker as CoreWorker, WorkerConfig};
use esa_host::ps::ParameterServer;
use esa_host::testing::{ModelJob, ModelSwitch, ModelSwitchHandle};
use esa_host::transport::{
    FrameLink, LinkClosed, MemNetwork, MemTransport, SwitchPortTransport, Transport,
};
use esa_host::worker::{Worker, WorkerOptions};
use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const TENSOR: usize = 1 << 20;

/// Times `routine` once per iteration and keeps every sample, so the
/// median can be printed next to criterion's estimates.
fn timed(
    b: &mut criterion::Bencher<'_>,
    samples: &Arc<Mutex<Vec<Duration>>>,
    mut routine: impl FnMut() -> Duration,
) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let t = routine();
            samples.lock().unwrap().push(t);
            total += t;
        }
        total
    })
}

fn packetize(c: &mut Criterion) {
    let data: Vec<f32> = (0..TENSOR).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
    let mut g = c.benchmark_group("packetize");
    g.throughput(Throughput::Bytes((TENSOR * 4) as u64));
    g.sample_size(20);
    let mut medians: Vec<(String, Duration)> = vec![];
    let mut bench = |g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
                     name: String,
                     routine: &mut dyn FnMut() -> Duration| {
        let samples = Arc::new(Mutex::new(Vec::new()));
        g.bench_function(&name, |b| timed(b, &samples, &mut *routine));
        let mut s = samples.lock().unwrap().clone();
        // Benchmarks filtered out on the command line leave no samples.
        if !s.is_empty() {
            medians.push((name, median(&mut s)));
        }
    };
    for lanes in [32usize, 64] {
        let cfg = WorkerConfig {
            lanes,
            window: MAX_WINDOW,
            result_cache: 1,
            ..WorkerConfig::new(1, 0, 4)
        };
        let payload_len = 16 + 4 * lanes;
        let expected_bytes = TENSOR.div_ceil(lanes) * payload_len;
        // The send path: every DATA payload written into one reused buffer
        // by a reused worker (its all-reduce dropped after the last DATA),
        // so this is the steady state.
        let mut buf = vec![0u8; payload_len];
        let mut w = CoreWorker::new(cfg.clone()).unwrap();
        // Every DATA payload of the all-reduce started at `start`, each
        // call of `send` writing the next (0 bytes: none left): the time
        // since, then the all-reduce dropped (not timed).
        let drain =
            |w: &mut CoreWorker, send: &mut dyn FnMut(&mut CoreWorker) -> usize, start: Instant| {
                let mut bytes = 0;
                loop {
                    let n = send(w);
                    if n == 0 {
                        break;
                    }
                    bytes += n;
                }
                let t = start.elapsed();
                assert_eq!(bytes, expected_bytes);
                assert!(w.abort_allreduce());
                t
            };
        // On the caller's buffer (`start_allreduce_owned`, the all-reduce in
        // place): no copy of the input, which comes back after the drain.
        let drain_owned = |w: &mut CoreWorker,
                           send: &mut dyn FnMut(&mut CoreWorker) -> usize,
                           owned: &mut Vec<f32>| {
            let start = Instant::now();
            w.start_allreduce_owned(std::mem::take(owned), 0).unwrap();
            let t = drain(w, send, start);
            *owned = w.reclaim_input().unwrap();
            t
        };
        // One payload a call into the reused buffer.
        let mut one = |w: &mut CoreWorker| {
            w.poll_transmit_into(0, &mut buf)
                .unwrap()
                .map_or(0, |n| black_box(&buf[..n]).len())
        };
        // Batches of 64 payloads (`Worker::poll_transmit_batch_into`, what
        // the host worker's `flush` calls): one quantizer call per batch of
        // consecutive chunks.
        let mut batch = vec![0u8; 64 * payload_len];
        let mut batched = |w: &mut CoreWorker| {
            let n = w.poll_transmit_batch_into(0, &mut batch).unwrap();
            black_box(&batch[..n * payload_len]).len()
        };
        bench(
            &mut g,
            format!("poll_transmit_into_k{lanes}_4MiB"),
            &mut || {
                let start = Instant::now();
                w.start_allreduce(&data, 0).unwrap();
                drain(&mut w, &mut one, start)
            },
        );
        let mut owned = data.clone();
        bench(
            &mut g,
            format!("poll_transmit_into_k{lanes}_owned_4MiB"),
            &mut || drain_owned(&mut w, &mut one, &mut owned),
        );
        bench(
            &mut g,
            format!("poll_transmit_batch_k{lanes}_owned_4MiB"),
            &mut || drain_owned(&mut w, &mut batched, &mut owned),
        );
        assert_eq!(owned, data, "an aborted all-reduce leaves its input");
        // The same through the allocating API (one Vec per payload).
        bench(
            &mut g,
            format!("poll_transmit_vec_k{lanes}_4MiB"),
            &mut || {
                let start = Instant::now();
                w.start_allreduce(&data, 0).unwrap();
                let mut vec =
                    |w: &mut CoreWorker| w.poll_transmit(0).map_or(0, |p| black_box(p).len());
                drain(&mut w, &mut vec, start)
            },
        );
        // A fresh worker per all-reduce (what this benchmark measured
        // before the worker kept its buffers): first-touch page faults of
        // the input copy and the ring included.
        bench(
            &mut g,
            format!("fresh_worker_into_k{lanes}_4MiB"),
            &mut || {
                let mut w = CoreWorker::new(cfg.clone()).unwrap();
                let start = Instant::now();
                w.start_allreduce(&data, 0).unwrap();
                drain(&mut w, &mut one, start)
            },
        );
    }
    // The steady state of a real worker: a window of 64, each DATA answered
    // at once by its RESULT (fan-in 1, so the DATA with its type changed
    // is a valid RESULT), which is parsed and dequantized. The whole CPU
    // cost of one all-reduce on the host, without the network.
    {
        let cfg = WorkerConfig {
            lanes: 32,
            window: 64,
            ..WorkerConfig::new(1, 0, 1)
        };
        let mut w = CoreWorker::new(cfg).unwrap();
        let mut buf = vec![0u8; w.payload_len()];
        bench(&mut g, "worker_cycle_w64_k32_4MiB".into(), &mut || {
            let start = Instant::now();
            w.start_allreduce(&data, 0).unwrap();
            while let Some(n) = w.poll_transmit_into(0, &mut buf).unwrap() {
                buf[0] = 0x12;
                w.handle_payload(&buf[..n], 0).unwrap();
            }
            // Read in place, as the host runtime does, so the next
            // all-reduce reuses the buffer.
            black_box(w.result().unwrap().len());
            start.elapsed()
        });
    }
    // Whole frames, as a worker on a switch port sends them: payloads
    // written in batches of 64 into one buffer (the host worker's `flush`,
    // `poll_transmit_batch_into`),
    // each wrapped in its Ethernet / IPv4 / UDP frame by the port transport
    // and handed to a link that drops it.
    {
        const BATCH: usize = 64;
        let cfg = WorkerConfig {
            lanes: 32,
            window: MAX_WINDOW,
            result_cache: 1,
            ..WorkerConfig::new(1, 0, 4)
        };
        let mut w = CoreWorker::new(cfg).unwrap();
        let len = w.payload_len();
        let mut tx = vec![0u8; BATCH * len];
        let mut port =
            SwitchPortTransport::new(DroppedFrames(0), esa_host::addressing::port_host(1), 32);
        let switch = esa_host::addressing::switch_addr();
        bench(&mut g, "frames_k32_4MiB".into(), &mut || {
            let sent_before = port.link().0;
            let start = Instant::now();
            w.start_allreduce(&data, 0).unwrap();
            loop {
                let filled = w.poll_transmit_batch_into(0, &mut tx).unwrap();
                if filled == 0 {
                    break;
                }
                port.send_packed(switch, &tx[..filled * len], len).unwrap();
            }
            let t = start.elapsed();
            assert_eq!(port.link().0 - sent_before, TENSOR.div_ceil(32) as u64);
            assert!(w.abort_allreduce());
            t
        });
    }
    // The result path alone: big-endian lanes back to float32.
    let mut lanes = vec![0u8; TENSOR * 4];
    quant::quantize_be_into(&data, 16, 4, &mut lanes);
    let mut back = vec![0f32; TENSOR];
    bench(&mut g, "dequantize_only_4MiB".into(), &mut || {
        let start = Instant::now();
        quant::dequantize_be_into(black_box(&lanes), 16, &mut back);
        black_box(&back);
        start.elapsed()
    });
    // Baselines in the same run: the arithmetic alone, and the emit path
    // the worker used before (quantize into a Vec, then
    // `EsaRepr::to_payload` per chunk).
    let mut out = vec![0i32; TENSOR];
    bench(&mut g, "quantize_only_4MiB".into(), &mut || {
        let start = Instant::now();
        black_box(quant::quantize_into(black_box(&data), 16, 4, &mut out));
        start.elapsed()
    });
    bench(&mut g, "old_emit_path_k32_4MiB".into(), &mut || {
        let start = Instant::now();
        let mut bytes = 0;
        for (seq, chunk) in data.chunks(32).enumerate() {
            let mut values = vec![0i32; 32];
            let saturated = quant::quantize_into(chunk, 16, 4, &mut values);
            let repr = EsaRepr {
                packet_type: PacketType::Data,
                flags: if saturated {
                    Flags::OVERFLOW
                } else {
                    Flags::NONE
                },
                slot: seq as u16,
                key: Key::new(0, 1, seq as u16),
                bitmap: 1,
                fan_in: 4,
                count: 1,
                exponent: 16,
                worker: 0,
            };
            bytes += black_box(repr.to_payload(&values, 32)).len();
        }
        black_box(bytes);
        start.elapsed()
    });
    g.finish();
    let gib = (TENSOR * 4) as f64 / f64::from(1u32 << 30);
    for (name, m) in &medians {
        println!(
            "packetize {name}: median {:.3} ms, {:.2} GiB/s of float32",
            m.as_secs_f64() * 1e3,
            gib / m.as_secs_f64()
        );
    }
    let find = |name: &str| medians.iter().find(|(n, _)| n == name).map(|(_, m)| *m);
    let ratios = [
        ("poll_transmit_into_k32_4MiB", "quantize_only_4MiB"),
        (
            "poll_transmit_into_k32_owned_4MiB",
            "poll_transmit_into_k32_4MiB",
        ),
        (
            "poll_transmit_batch_k32_owned_4MiB",
            "poll_transmit_into_k32_owned_4MiB",
        ),
        (
            "poll_transmit_batch_k64_owned_4MiB",
            "poll_transmit_into_k64_owned_4MiB",
        ),
        ("poll_transmit_into_k32_4MiB", "old_emit_path_k32_4MiB"),
        ("poll_transmit_into_k32_4MiB", "poll_transmit_vec_k32_4MiB"),
        ("frames_k32_4MiB", "poll_transmit_into_k32_4MiB"),
    ];
    for (new, base) in ratios {
        if let (Some(n), Some(b)) = (find(new), find(base)) {
            println!(
                "packetize throughput ratio {new} / {base} (medians): {:.2}x",
                b.as_secs_f64() / n.as_secs_f64()
            );
        }
    }
}

/// A frame link that counts the frames it is given and drops them.
#[derive(Debug)]
struct DroppedFrames(u64);

impl FrameLink for DroppedFrames {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        black_box(frame);
        self.0 += 1;
        Ok(())
    }

    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        None
    }

    fn recv_frame_timeout(&mut self, _timeout: Duration) -> Option<Vec<u8>> {
        None
    }
}

/// Four workers, a PS and the model switch, on threads, waiting for "go".
struct Cluster {
    go: Vec<mpsc::Sender<()>>,
    done: mpsc::Receiver<Result<(), String>>,
    threads: Vec<JoinHandle<()>>,
    stop_ps: Arc<AtomicBool>,
    ps: Option<JoinHandle<()>>,
    switch: Option<ModelSwitchHandle<MemTransport>>,
    /// esa-switch and its controller, for `Cluster::through_esa_switch`.
    harness: Option<esa_harness::Cluster>,
}

const FAN_IN: u8 = 4;
const ELEMENTS: usize = 1 << 16;

impl Cluster {
    fn new(aggregate: bool) -> Cluster {
        let net = MemNetwork::new();
        let bind = || net.bind_any(FaultConfig::NONE).unwrap();
        let pool = PoolConfig::default();
        let switch_t = bind();
        let mut switch = if aggregate {
            ModelSwitch::new(pool, switch_t).unwrap()
        } else {
            ModelSwitch::host_only(pool, switch_t).unwrap()
        };
        let workers: Vec<MemTransport> = (0..FAN_IN).map(|_| bind()).collect();
        let ps_t = bind();
        switch
            .add_job(ModelJob::new(
                1,
                workers.iter().map(|t| t.local_addr()).collect(),
                ps_t.local_addr(),
            ))
            .unwrap();
        let addr = switch.local_addr();
        let switch = switch.spawn();
        let plan = JobPlan::new(1, FAN_IN, Mode::Esa, SlotRange::whole_pool(pool.slots));
        let mut cluster = Cluster::spawn(addr, workers, ps_t, plan);
        cluster.switch = Some(switch);
        cluster
    }

    /// The same hosts through esa-switch running esa.p4 on in-memory ports.
    fn through_esa_switch() -> Cluster {
        const LANES: usize = 32;
        let ports = u16::from(FAN_IN) + 1;
        let mut harness =
            esa_harness::Cluster::start(esa_harness::Ports::memory(ports), LANES, 256);
        let workers: Vec<u16> = (1..=u16::from(FAN_IN)).collect();
        let job = harness.admit(1, Mode::Esa, 15, &workers, ports);
        let mut host = |n: u16| {
            SwitchPortTransport::new(
                harness.take_port(n),
                esa_host::addressing::port_host(n),
                LANES,
            )
        };
        let worker_t: Vec<_> = workers.iter().map(|n| host(*n)).collect();
        let ps_t = host(ports);
        let mut plan = JobPlan::for_entry(1, &job.entry());
        plan.lanes = LANES;
        let mut cluster = Cluster::spawn(esa_host::addressing::switch_addr(), worker_t, ps_t, plan);
        cluster.harness = Some(harness);
        cluster
    }

    /// Starts `plan`'s PS and workers on threads, waiting for "go".
    fn spawn<W: Transport + 'static, P: Transport + 'static>(
        addr: SocketAddr,
        workers: Vec<W>,
        ps_t: P,
        mut plan: JobPlan,
    ) -> Cluster {
        // Above any scheduling delay of six threads on two cores, so the
        // numbers measure the path, not spurious resends.
        plan.rto.initial_us = 50_000;
        plan.rto.max_us = 200_000;
        let mut ps = ParameterServer::new(plan.ps_config(), addr, ps_t).unwrap();
        ps.add_job(plan.job, plan.fan_in, plan.ps_options())
            .unwrap();
        let stop_ps = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stop_ps);
        let ps = std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                ps.step(Duration::from_millis(20)).unwrap();
            }
        });
        let (done_tx, done) = mpsc::channel();
        let mut go = vec![];
        let mut threads = vec![];
        for (id, t) in workers.into_iter().enumerate() {
            let (tx, rx) = mpsc::channel::<()>();
            go.push(tx);
            let done_tx = done_tx.clone();
            let cfg = plan.worker_config(id as u8);
            threads.push(std::thread::spawn(move || {
                let mut w = Worker::new(WorkerOptions::new(cfg, addr), t).unwrap();
                let input: Vec<f32> = (0..ELEMENTS)
                    .map(|i| gradient_value(1, 1, id as u8, 0, i))
                    .collect();
                let mut data = input.clone();
                while rx.recv().is_ok() {
                    data.copy_from_slice(&input);
                    let r = w
                        .allreduce(&mut data)
                        .map(|_| ())
                        .map_err(|e| e.to_string());
                    if done_tx.send(r).is_err() {
                        break;
                    }
                }
            }));
        }
        Cluster {
            go,
            done,
            threads,
            stop_ps,
            ps: Some(ps),
            switch: None,
            harness: None,
        }
    }

    fn allreduce(&self) -> Duration {
        let start = Instant::now();
        for g in &self.go {
            g.send(()).unwrap();
        }
        for _ in 0..FAN_IN {
            self.done.recv().unwrap().unwrap();
        }
        start.elapsed()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.go.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.stop_ps.store(true, Ordering::Relaxed);
        if let Some(ps) = self.ps.take() {
            let _ = ps.join();
        }
        if let Some(s) = self.switch.take() {
            let _ = s.stop();
        }
        self.harness.take();
    }
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn allreduce(c: &mut Criterion) {
    let mut g = c.benchmark_group("allreduce");
    g.throughput(Throughput::Bytes((ELEMENTS * 4) as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(8));
    let mut medians = vec![];
    for name in ["in_switch", "host_only", "esa_switch"] {
        let cluster = match name {
            "in_switch" => Cluster::new(true),
            "host_only" => Cluster::new(false),
            _ => Cluster::through_esa_switch(),
        };
        let samples = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&samples);
        g.bench_function(format!("{name}_4x256KiB"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = cluster.allreduce();
                    record.lock().unwrap().push(t);
                    total += t;
                }
                total
            })
        });
        drop(cluster);
        let mut s = samples.lock().unwrap().clone();
        // a benchmark left out by a filter has no samples, and no figure
        if !s.is_empty() {
            medians.push((name, median(&mut s)));
        }
    }
    g.finish();
    let bytes = (ELEMENTS * 4) as f64;
    for (name, m) in &medians {
        println!(
            "allreduce {name}: median {:.3} ms per all-reduce, goodput {:.1} MB/s per worker",
            m.as_secs_f64() * 1e3,
            bytes / m.as_secs_f64() / 1e6
        );
    }
    if let [
        ("in_switch", model),
        ("host_only", host),
        ("esa_switch", esa),
    ] = medians[..]
    {
        println!(
            "allreduce goodput ratio in-switch / host-only (medians): {:.2}x",
            host.as_secs_f64() / model.as_secs_f64()
        );
        println!(
            "allreduce goodput ratio esa-switch / host-only (medians): {:.2}x",
            host.as_secs_f64() / esa.as_secs_f64()
        );
    }
}

criterion_group!(benches, packetize, allreduce);
criterion_main!(benches);
