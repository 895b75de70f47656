//! Several jobs × workers × parameter servers through the model switch, on
//! in-memory links with seeded faults and on real UDP sockets. Gradients
//! are integers, so every result must equal the exact sum.

use crate::support::*;
use esa_core::faults::FaultConfig;
use esa_core::integrity;
use esa_core::job::Mode;
use esa_core::policy::Policy;
use esa_host::integrity::IntegrityKey;
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::{MemNetwork, MemTransport, UdpTransport};
use esa_host::worker::{Worker, WorkerOptions};
use std::time::Duration;

fn mixed_jobs() -> Vec<JobSpec> {
    let mut a = JobSpec::new(1, 3, 32 * 40 - 5, 3);
    a.policy = Policy::Static { priority: 2 };
    let mut b = JobSpec::new(2, 2, 32 * 25, 3);
    b.policy = Policy::Las {
        aging_interval_us: 5_000,
    };
    let mut c = JobSpec::new(3, 4, 32 * 30 + 1, 2);
    c.mode = Mode::Atp;
    vec![a, b, c]
}

#[test]
fn jobs_through_the_model_switch_on_lossy_in_memory_links() {
    for seed in [1, 2] {
        let net = MemNetwork::new();
        let faults = FaultConfig {
            seed,
            loss: 0.03,
            duplicate: 0.03,
            max_delay: Duration::from_micros(300),
        };
        let jobs = mixed_jobs();
        // 16 slots for three jobs with windows of 8: collisions, preemption
        // and fallback all happen.
        let report = run_cluster(&jobs, pool(16, 32), true, || net.bind_any(faults).unwrap());
        report.assert_exact(&jobs);
        let lost: u64 = report
            .counters
            .iter()
            .map(|c| c.fallbacks + c.flushed)
            .sum();
        assert!(lost > 0, "seed {seed}: the PS path was never exercised");
    }
}

#[test]
fn switchml_jobs_use_their_own_slot_ranges() {
    let net = MemNetwork::new();
    let faults = FaultConfig {
        seed: 3,
        loss: 0.02,
        duplicate: 0.02,
        max_delay: Duration::from_micros(200),
    };
    let mut jobs = vec![
        JobSpec::new(5, 2, 32 * 20, 2),
        JobSpec::new(6, 3, 32 * 20, 2),
    ];
    for (k, j) in jobs.iter_mut().enumerate() {
        j.mode = Mode::SwitchMl;
        j.slot_base = (k * 8) as u16;
        j.slot_mask = 7;
        j.window = 8;
    }
    let report = run_cluster(&jobs, pool(16, 32), true, || net.bind_any(faults).unwrap());
    report.assert_exact(&jobs);
}

#[test]
fn host_only_baseline_sums_everything_at_the_ps() {
    let net = MemNetwork::new();
    let jobs = vec![JobSpec::new(1, 3, 32 * 10, 2)];
    let report = run_cluster(&jobs, pool(16, 32), false, || {
        net.bind_any(FaultConfig::NONE).unwrap()
    });
    report.assert_exact(&jobs);
    let v = report.outcomes[0].fallback.clone().unwrap();
    // Every DATA reaches the PS (resends too, if a slow thread made one).
    assert!(v.fallback_parts >= 3 * 10 * 2, "{v:?}");
    assert_eq!((v.evicted_parts, v.flush_parts), (0, 0));
    assert_eq!(v.chunks_completed, 10 * 2);
}

#[test]
fn jobs_through_the_model_switch_over_udp_on_localhost() {
    let mut jobs = vec![
        JobSpec::new(1, 3, 32 * 64, 3),
        JobSpec::new(2, 2, 32 * 50 + 7, 3),
    ];
    jobs[1].policy = Policy::Static { priority: 9 };
    let report = run_cluster(&jobs, pool(64, 32), true, || {
        UdpTransport::bind(localhost0()).unwrap()
    });
    report.assert_exact(&jobs);
}

/// The model switch with one job of `workers` workers and its PS, each
/// served by a thread, on an in-memory network with `faults`; each worker
/// runs `run` with its id and options on a thread of its own, then
/// lingers, answering its peers' `QUERY`s, until every worker is done (as
/// the harness's and `esa worker`'s do). A worker that lost a `RESULT` the
/// PS never saw either, from a slot that no longer holds it (a late first
/// copy of an earlier chunk may claim a complete slot), gets it only from
/// a peer's result cache (docs/protocol.md §6.1, §6.2): without the
/// linger, peers that finished first had gone, and CI once saw worker 2
/// time out on seq 151 of the last all-reduce, answered `PENDING` by a PS
/// whose `QUERY`s nobody was left to answer.
fn one_job_through_the_model_switch<R: Send + 'static>(
    spec: &JobSpec,
    lanes: usize,
    faults: FaultConfig,
    options: impl Fn(u8, WorkerOptions) -> WorkerOptions,
    run: impl Fn(u8, &mut Worker<MemTransport>) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let net = MemNetwork::new();
    let pool_cfg = pool(16, lanes);
    let mut switch = ModelSwitch::new(pool_cfg, net.bind_any(faults).unwrap()).unwrap();
    let ts: Vec<_> = (0..spec.workers)
        .map(|_| net.bind_any(faults).unwrap())
        .collect();
    let ps = net.bind_any(faults).unwrap();
    switch
        .add_job(ModelJob::new(
            spec.id,
            ts.iter().map(|t| t.local_addr()).collect(),
            ps.local_addr(),
        ))
        .unwrap();
    let addr = switch.local_addr();
    let switch = switch.spawn();
    // A resend (a slow thread is enough) flushes to the PS: it must run.
    let mut ps = esa_host::ps::ParameterServer::new(
        esa_core::ps::PsConfig {
            lanes,
            ..Default::default()
        },
        addr,
        ps,
    )
    .unwrap();
    ps.add_job(spec.id, spec.workers, Default::default())
        .unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ps_stop = std::sync::Arc::clone(&stop);
    let ps = std::thread::spawn(move || {
        while !ps_stop.load(std::sync::atomic::Ordering::Relaxed) {
            ps.step(Duration::from_millis(10)).unwrap();
        }
    });
    let run = std::sync::Arc::new(run);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers = spec.workers;
    let threads: Vec<_> = ts
        .into_iter()
        .enumerate()
        .map(|(id, t)| {
            let id = id as u8;
            let opts = options(
                id,
                WorkerOptions::new(worker_config(spec, id, &pool_cfg), addr),
            );
            let run = std::sync::Arc::clone(&run);
            let done = std::sync::Arc::clone(&done);
            std::thread::spawn(move || {
                let mut worker = Worker::new(opts, t).unwrap();
                // Counted done even if `run` panics, so the peers stop
                // lingering and the panic reaches the join below.
                struct Done(std::sync::Arc<std::sync::atomic::AtomicUsize>);
                impl Drop for Done {
                    fn drop(&mut self) {
                        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                }
                let result = {
                    let _done = Done(done.clone());
                    run(id, &mut worker)
                };
                linger(&mut worker, &done, workers);
                result
            })
        })
        .collect();
    let results = threads.into_iter().map(|t| t.join().unwrap()).collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    ps.join().unwrap();
    switch.stop().unwrap();
    results
}

#[test]
fn mean_is_the_sum_divided_by_the_fan_in() {
    let spec = JobSpec::new(9, 2, 100, 1);
    let gradients = spec.clone();
    let results = one_job_through_the_model_switch(
        &spec,
        8,
        FaultConfig::NONE,
        |_, opts| WorkerOptions {
            average: true,
            ..opts
        },
        move |id, w| {
            let mut data = gradients.gradient(id, 0);
            w.allreduce(&mut data).unwrap();
            data
        },
    );
    let want: Vec<f32> = spec.expected_sum(0, 100).iter().map(|x| x / 2.0).collect();
    for data in results {
        assert_eq!(data, want);
    }
}

#[test]
fn checked_all_reduces_checksums_add_up_across_the_job_on_lossy_links() {
    let spec = JobSpec::new(9, 3, 32 * 40 - 3, 4);
    let gradients = spec.clone();
    let faults = FaultConfig {
        seed: 4,
        loss: 0.03,
        duplicate: 0.03,
        max_delay: Duration::from_micros(300),
    };
    let key = IntegrityKey::new([0x5a; esa_host::integrity::KEY_LEN]);
    let results = one_job_through_the_model_switch(
        &spec,
        32,
        faults,
        |_, opts| WorkerOptions {
            integrity: Some(key.clone()),
            ..opts
        },
        move |id, w| {
            (0..gradients.iterations)
                .map(|it| {
                    let mut data = gradients.gradient(id, it);
                    let stats = w.allreduce(&mut data).unwrap();
                    assert_eq!(data, gradients.expected_sum(it, data.len()));
                    stats.checksums.expect("a worker with a key checks")
                })
                .collect::<Vec<_>>()
        },
    );
    for it in 0..spec.iterations as usize {
        let contributed = integrity::sum(results.iter().map(|w| w[it].contributed));
        for (id, w) in results.iter().enumerate() {
            assert_eq!(w[it].received, contributed, "worker {id}, iteration {it}");
        }
    }
    // Each all-reduce draws coefficients of its own.
    assert_ne!(results[0][0].received, results[0][1].received);
}

use esa_host::transport::Transport as _;

/// The non-blocking API: one thread steps the switch, the PS and three
/// workers with zero waits until every all-reduce is done.
#[test]
fn one_thread_drives_everything_with_poll_allreduce() {
    use esa_core::ps::{JobOptions, PsConfig};
    use esa_host::ps::ParameterServer;
    let net = MemNetwork::new();
    let faults = FaultConfig {
        seed: 9,
        loss: 0.05,
        duplicate: 0.05,
        max_delay: Duration::from_micros(100),
    };
    let pool_cfg = pool(8, 16);
    let mut switch = ModelSwitch::new(pool_cfg, net.bind_any(faults).unwrap()).unwrap();
    let spec = JobSpec::new(12, 3, 16 * 30 + 3, 2);
    let ts: Vec<_> = (0..3).map(|_| net.bind_any(faults).unwrap()).collect();
    let ps_t = net.bind_any(faults).unwrap();
    switch
        .add_job(ModelJob::new(
            12,
            ts.iter().map(|t| t.local_addr()).collect(),
            ps_t.local_addr(),
        ))
        .unwrap();
    let addr = switch.local_addr();
    let ps_cfg = PsConfig {
        lanes: 16,
        ..PsConfig::default()
    };
    let mut ps = ParameterServer::new(ps_cfg, addr, ps_t).unwrap();
    ps.add_job(12, 3, JobOptions::default()).unwrap();
    let mut workers: Vec<_> = ts
        .into_iter()
        .enumerate()
        .map(|(id, t)| {
            let cfg = worker_config(&spec, id as u8, &pool_cfg);
            Worker::new(WorkerOptions::new(cfg, addr), t).unwrap()
        })
        .collect();
    for iteration in 0..spec.iterations {
        let mut data: Vec<Vec<f32>> = (0..3).map(|id| spec.gradient(id, iteration)).collect();
        for (w, d) in workers.iter_mut().zip(&data) {
            w.start_allreduce(d).unwrap();
        }
        let mut done = [false; 3];
        // Bounded: the workers' retry budget ends every all-reduce long
        // before this many rounds.
        for _round in 0..10_000_000u64 {
            if done.iter().all(|d| *d) {
                break;
            }
            switch.step(Duration::ZERO).unwrap();
            ps.step(Duration::ZERO).unwrap();
            for (k, w) in workers.iter_mut().enumerate() {
                if !done[k] {
                    done[k] = w
                        .poll_allreduce(&mut data[k], Duration::ZERO)
                        .unwrap()
                        .is_some();
                } else {
                    w.serve_queries(Duration::ZERO).unwrap();
                }
            }
        }
        assert_eq!(done, [true; 3], "iteration {iteration} did not finish");
        for (id, d) in data.iter().enumerate() {
            assert_eq!(spec.mismatches(iteration, d), 0, "worker {id}");
        }
    }
    let c = switch.counters(12);
    assert_eq!(c.data_outcomes(), c.data_rx);
}

/// `seq` wraps at 2^16: an all-reduce of more than 2^15 chunks (real model
/// sizes: vgg16 at a tenth of its size is 430 k chunks a worker) must not
/// look to its own workers as if the job were ahead of them.
#[test]
fn an_allreduce_longer_than_half_the_seq_space_completes() {
    let net = MemNetwork::new();
    let mut job = JobSpec::new(7, 2, 32 * 33_000, 2);
    job.window = 32;
    let jobs = vec![job];
    let report = run_cluster(&jobs, pool(64, 32), true, || {
        net.bind_any(FaultConfig::NONE).unwrap()
    });
    report.assert_exact(&jobs);
}
