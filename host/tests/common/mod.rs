//! A cluster of workers, parameter servers and the model switch, each on its
//! own thread, for the end-to-end tests.

#![allow(dead_code)]

use esa_core::job::Mode;
use esa_core::job::SlotMapping;
use esa_core::policy::Policy;
use esa_core::pool::{JobCounters, PoolConfig};
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::synthetic::gradient_value;
use esa_core::worker::WorkerConfig;
use esa_host::HostError;
use esa_host::ps::{FallbackVolume, ParameterServer};
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::Transport;
use esa_host::worker::{Worker, WorkerOptions};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Upper bound on how long helper threads linger; a safety net, not a
/// timing assertion.
pub const LINGER_LIMIT: Duration = Duration::from_secs(30);

pub const SEED: u64 = 7;

#[derive(Debug, Clone)]
pub struct JobSpec {
    pub job: u16,
    pub fan_in: u8,
    pub mode: Mode,
    pub policy: Policy,
    pub elements: usize,
    pub iterations: u32,
    pub window: usize,
    /// switchml: the job's slot range.
    pub slot_base: u16,
    pub slot_mask: u16,
}

impl JobSpec {
    pub fn new(job: u16, fan_in: u8, elements: usize, iterations: u32) -> JobSpec {
        JobSpec {
            job,
            fan_in,
            mode: Mode::Esa,
            policy: Policy::Fcfs,
            elements,
            iterations,
            window: 8,
            slot_base: 0,
            slot_mask: 0,
        }
    }
}

pub fn worker_config(spec: &JobSpec, id: u8, pool: &PoolConfig) -> WorkerConfig {
    let mut c = WorkerConfig::new(spec.job, id, spec.fan_in);
    c.lanes = pool.lanes;
    c.window = spec.window;
    c.policy = spec.policy;
    (c.slot_mapping, c.slot_mask) = match spec.mode {
        Mode::SwitchMl => (SlotMapping::Direct, spec.slot_mask),
        Mode::Esa | Mode::Atp => (SlotMapping::Hashed, (pool.slots - 1) as u16),
    };
    // Generous for threads sharing two cores; correctness does not depend
    // on it, only how soon a dead peer is reported.
    c.rto_initial_us = 2_000;
    c.rto_max_us = 20_000;
    c.max_retries = 400;
    c
}

pub fn gradient(job: u16, worker: u8, iteration: u32, elements: usize) -> Vec<f32> {
    (0..elements)
        .map(|i| gradient_value(SEED, job, worker, iteration, i))
        .collect()
}

pub fn expected_sum(job: u16, fan_in: u8, iteration: u32, elements: usize) -> Vec<f32> {
    (0..elements)
        .map(|i| {
            (0..fan_in)
                .map(|w| gradient_value(SEED, job, w, iteration, i))
                .sum()
        })
        .collect()
}

/// Number of elements where `got` differs from the exact sum.
pub fn mismatches(job: u16, fan_in: u8, iteration: u32, got: &[f32]) -> usize {
    let want = expected_sum(job, fan_in, iteration, got.len());
    want.iter().zip(got).filter(|(a, b)| a != b).count()
}

pub fn pool(slots: usize, lanes: usize) -> PoolConfig {
    PoolConfig {
        slots,
        lanes,
        stale_after_us: 5_000,
    }
}

#[derive(Debug)]
pub struct ClusterReport {
    /// Per job: (worker id, iterations done, wrong elements in all).
    pub workers: Vec<Vec<Result<(u32, usize), String>>>,
    pub counters: Vec<JobCounters>,
    pub volumes: Vec<Option<FallbackVolume>>,
}

impl ClusterReport {
    pub fn assert_exact(&self, jobs: &[JobSpec]) {
        for (spec, workers) in jobs.iter().zip(&self.workers) {
            assert_eq!(workers.len(), usize::from(spec.fan_in));
            for (id, w) in workers.iter().enumerate() {
                match w {
                    Ok((done, wrong)) => {
                        assert_eq!(*done, spec.iterations, "job {} worker {id}", spec.job);
                        assert_eq!(*wrong, 0, "job {} worker {id}: wrong elements", spec.job);
                    }
                    Err(e) => panic!("job {} worker {id} failed: {e}", spec.job),
                }
            }
        }
        for (spec, c) in jobs.iter().zip(&self.counters) {
            assert_eq!(
                c.data_outcomes(),
                c.data_rx,
                "job {} counters: {c:?}",
                spec.job
            );
        }
    }
}

/// Runs every job to the end through one model switch; `bind` makes each
/// host's transport (the switch's first).
pub fn run_cluster<T, F>(
    jobs: &[JobSpec],
    pool_cfg: PoolConfig,
    aggregate: bool,
    mut bind: F,
) -> ClusterReport
where
    T: Transport + 'static,
    F: FnMut() -> T,
{
    let switch_transport = bind();
    let mut switch = if aggregate {
        ModelSwitch::new(pool_cfg, switch_transport).unwrap()
    } else {
        ModelSwitch::host_only(pool_cfg, switch_transport).unwrap()
    };
    let switch_addr = switch.local_addr();
    let mut worker_transports: Vec<Vec<T>> = vec![];
    let mut ps_transports = vec![];
    for spec in jobs {
        let ts: Vec<T> = (0..spec.fan_in).map(|_| bind()).collect();
        let ps = bind();
        let mut mj = ModelJob::new(
            spec.job,
            ts.iter().map(|t| t.local_addr()).collect(),
            ps.local_addr(),
        );
        mj.mode = spec.mode;
        mj.slot_base = spec.slot_base;
        mj.slot_mask = spec.slot_mask;
        switch.add_job(mj).unwrap();
        worker_transports.push(ts);
        ps_transports.push(ps);
    }
    let switch = switch.spawn();

    let stop_ps = Arc::new(AtomicBool::new(false));
    let ps_threads: Vec<_> = jobs
        .iter()
        .zip(ps_transports)
        .map(|(spec, t)| {
            let mut ps = ParameterServer::new(
                PsConfig {
                    lanes: pool_cfg.lanes,
                    ..PsConfig::default()
                },
                switch_addr,
                t,
            )
            .unwrap();
            ps.add_job(
                spec.job,
                spec.fan_in,
                JobOptions {
                    forward_results: spec.mode == Mode::Atp,
                },
            )
            .unwrap();
            let stop = Arc::clone(&stop_ps);
            let job = spec.job;
            std::thread::spawn(move || {
                let end = Instant::now() + Duration::from_secs(120);
                while !stop.load(Ordering::Relaxed) && Instant::now() < end {
                    ps.step(Duration::from_millis(20)).unwrap();
                }
                ps.fallback_volume(job)
            })
        })
        .collect();

    let mut worker_threads = vec![];
    for (spec, ts) in jobs.iter().zip(worker_transports) {
        let done = Arc::new(AtomicUsize::new(0));
        let mut threads = vec![];
        for (id, t) in ts.into_iter().enumerate() {
            let id = id as u8;
            let spec = spec.clone();
            let cfg = worker_config(&spec, id, &pool_cfg);
            let done = Arc::clone(&done);
            threads.push(std::thread::spawn(move || {
                let mut w = Worker::new(WorkerOptions::new(cfg, switch_addr), t)
                    .map_err(|e| e.to_string())?;
                let outcome = run_iterations(&mut w, &spec, id, 0..spec.iterations);
                done.fetch_add(1, Ordering::SeqCst);
                linger(&mut w, &done, spec.fan_in);
                outcome.map_err(|e| e.to_string())
            }));
        }
        worker_threads.push(threads);
    }
    let workers: Vec<Vec<_>> = worker_threads
        .into_iter()
        .map(|ts| ts.into_iter().map(|t| t.join().unwrap()).collect())
        .collect();
    stop_ps.store(true, Ordering::Relaxed);
    let volumes = ps_threads.into_iter().map(|t| t.join().unwrap()).collect();
    let switch = switch.stop().unwrap();
    let counters = jobs.iter().map(|j| switch.counters(j.job)).collect();
    ClusterReport {
        workers,
        counters,
        volumes,
    }
}

/// Runs `iterations` all-reduces; returns (iterations done, wrong elements).
pub fn run_iterations<T: Transport>(
    w: &mut Worker<T>,
    spec: &JobSpec,
    id: u8,
    iterations: std::ops::Range<u32>,
) -> Result<(u32, usize), HostError> {
    let mut wrong = 0;
    let mut done = 0;
    for it in iterations {
        let mut data = gradient(spec.job, id, it, spec.elements);
        w.allreduce(&mut data)?;
        wrong += mismatches(spec.job, spec.fan_in, it, &data);
        done += 1;
    }
    Ok((done, wrong))
}

/// Answers peers' QUERYs until every worker of the job is done.
pub fn linger<T: Transport>(w: &mut Worker<T>, done: &AtomicUsize, fan_in: u8) {
    let end = Instant::now() + LINGER_LIMIT;
    while done.load(Ordering::SeqCst) < usize::from(fan_in) && Instant::now() < end {
        let _ = w.serve_queries(Duration::from_millis(5));
    }
}

pub fn localhost0() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}
