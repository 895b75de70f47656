//! Restarts and dead peers: a parameter server restarted mid-job, a worker
//! restarted mid-job (rejoining by seq, or failing clearly), and a worker
//! whose switch never answers.

use crate::support::*;
use esa_core::faults::FaultConfig;
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::worker::WorkerConfig;
use esa_host::HostError;
use esa_host::ps::ParameterServer;
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::{MemNetwork, MemTransport, Transport, UdpTransport};
use esa_host::worker::{Worker, WorkerOptions};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One job on in-memory links: the switch running, transports for the
/// workers and the PS address.
struct OneJob {
    net: MemNetwork,
    switch: esa_host::testing::ModelSwitchHandle<MemTransport>,
    workers: Vec<MemTransport>,
    ps_addr: SocketAddr,
    spec: JobSpec,
    pool: esa_core::pool::PoolConfig,
}

fn one_job(spec: JobSpec, slots: usize, faults: FaultConfig) -> OneJob {
    let net = MemNetwork::new();
    let pool_cfg = pool(slots, 32);
    let mut switch = ModelSwitch::new(pool_cfg, net.bind_any(faults).unwrap()).unwrap();
    let workers: Vec<_> = (0..spec.workers)
        .map(|_| net.bind_any(faults).unwrap())
        .collect();
    let ps_addr: SocketAddr = "127.0.0.2:17747".parse().unwrap();
    switch
        .add_job(ModelJob::new(
            spec.id,
            workers.iter().map(|t| t.local_addr()).collect(),
            ps_addr,
        ))
        .unwrap();
    OneJob {
        net,
        switch: switch.spawn(),
        workers,
        ps_addr,
        spec,
        pool: pool_cfg,
    }
}

fn ps_config(result_cache: usize) -> PsConfig {
    PsConfig {
        lanes: 32,
        result_cache,
        ..PsConfig::default()
    }
}

/// A PS thread that serves until `stop`, or until it has completed
/// `crash_after` chunks (then it drops everything it knew).
fn spawn_ps(
    job: &OneJob,
    faults: FaultConfig,
    result_cache: usize,
    crash_after: Option<u64>,
    stop: Arc<AtomicBool>,
) -> JoinHandle<u64> {
    // The previous instance may still be releasing the address.
    let transport = loop {
        match job.net.bind_with_faults(job.ps_addr, faults) {
            Ok(t) => break t,
            Err(_) => std::thread::sleep(Duration::from_millis(1)),
        }
    };
    let mut ps =
        ParameterServer::new(ps_config(result_cache), job.switch.addr(), transport).unwrap();
    ps.add_job(job.spec.id, job.spec.workers, JobOptions::default())
        .unwrap();
    let id = job.spec.id;
    std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(60);
        while !stop.load(Ordering::Relaxed) && Instant::now() < end {
            ps.step(Duration::from_millis(5)).unwrap();
            let completed = ps.job_stats(id).map_or(0, |s| s.results_completed);
            if crash_after.is_some_and(|n| completed >= n) {
                return completed;
            }
        }
        ps.job_stats(id).map_or(0, |s| s.results_completed)
    })
}

fn spawn_workers(
    job: &mut OneJob,
    done: &Arc<AtomicUsize>,
) -> Vec<JoinHandle<Result<(u32, usize), String>>> {
    let transports = std::mem::take(&mut job.workers);
    transports
        .into_iter()
        .enumerate()
        .map(|(id, t)| {
            let spec = job.spec.clone();
            let cfg = worker_config(&spec, id as u8, &job.pool);
            let switch = job.switch.addr();
            let done = Arc::clone(done);
            std::thread::spawn(move || {
                let mut w =
                    Worker::new(WorkerOptions::new(cfg, switch), t).map_err(|e| e.to_string())?;
                let r = run_iterations(&mut w, &spec, id as u8, 0..spec.iterations);
                done.fetch_add(1, Ordering::SeqCst);
                linger(&mut w, &done, spec.workers);
                r.map_err(|e| e.to_string())
            })
        })
        .collect()
}

#[test]
fn a_restarted_parameter_server_loses_nothing() {
    let faults = FaultConfig {
        seed: 11,
        loss: 0.01,
        duplicate: 0.01,
        max_delay: Duration::from_micros(100),
    };
    let mut spec = JobSpec::new(4, 3, 32 * 60, 3);
    spec.window = 16;
    // Four slots for a window of 16: most chunks fall back to the PS.
    let mut job = one_job(spec.clone(), 4, faults);
    let stop = Arc::new(AtomicBool::new(false));
    let first = spawn_ps(&job, faults, 4096, Some(20), Arc::clone(&stop));
    let done = Arc::new(AtomicUsize::new(0));
    let workers = spawn_workers(&mut job, &done);
    let completed_by_first = first.join().unwrap();
    assert!(completed_by_first >= 20);
    // The first instance is gone with its parts and cache; a new one takes
    // its address.
    let second = spawn_ps(&job, faults, 4096, None, Arc::clone(&stop));
    for (id, w) in workers.into_iter().enumerate() {
        let (iterations, wrong) = w
            .join()
            .unwrap()
            .unwrap_or_else(|e| panic!("worker {id}: {e}"));
        assert_eq!((iterations, wrong), (spec.iterations, 0), "worker {id}");
    }
    stop.store(true, Ordering::Relaxed);
    let completed_by_second = second.join().unwrap();
    assert!(completed_by_second > 0, "the second PS completed nothing");
    let switch = job.switch.stop().unwrap();
    let c = switch.counters(spec.id);
    assert_eq!(c.data_outcomes(), c.data_rx);
}

/// Worker 1 of a two-worker job crashes; a new worker 1 on the same address
/// rejoins at the seq of the iteration it redoes.
fn restart_worker_1(crash_mid_allreduce: bool) {
    let mut spec = JobSpec::new(8, 2, 32 * 24, 4);
    spec.window = 8;
    let chunks = spec.elements.div_ceil(32) as u16;
    let mut job = one_job(spec.clone(), 64, FaultConfig::NONE);
    let stop = Arc::new(AtomicBool::new(false));
    let ps = spawn_ps(&job, FaultConfig::NONE, 4096, None, Arc::clone(&stop));
    let switch = job.switch.addr();
    let mut transports = std::mem::take(&mut job.workers).into_iter();
    let (t0, t1) = (transports.next().unwrap(), transports.next().unwrap());
    let addr1 = t1.local_addr();

    let spec0 = spec.clone();
    let cfg0 = worker_config(&spec, 0, &job.pool);
    let w0 = std::thread::spawn(move || {
        let mut w = Worker::new(WorkerOptions::new(cfg0, switch), t0).unwrap();
        run_iterations(&mut w, &spec0, 0, 0..spec0.iterations)
    });

    // First incarnation: iteration 0, then (optionally) part of iteration 1.
    let cfg1 = worker_config(&spec, 1, &job.pool);
    let mut first = Worker::new(WorkerOptions::new(cfg1.clone(), switch), t1).unwrap();
    assert_eq!(run_iterations(&mut first, &spec, 1, 0..1).unwrap(), (1, 0));
    if crash_mid_allreduce {
        let mut data = spec.gradient(1, 1);
        first.start_allreduce(&data).unwrap();
        // Some chunks go out and complete; then the process "dies".
        let _ = first
            .poll_allreduce(&mut data, Duration::from_millis(2))
            .unwrap();
    }
    drop(first);

    // Second incarnation on the same address, told where to rejoin.
    let t1 = loop {
        match job.net.bind(addr1) {
            Ok(t) => break t,
            Err(_) => std::thread::sleep(Duration::from_millis(1)),
        }
    };
    let cfg1 = WorkerConfig {
        first_seq: chunks,
        ..cfg1
    };
    let mut second = Worker::new(WorkerOptions::new(cfg1, switch), t1).unwrap();
    assert_eq!(second.next_seq(), chunks);
    let r = run_iterations(&mut second, &spec, 1, 1..spec.iterations).unwrap();
    assert_eq!(r, (spec.iterations - 1, 0));
    let r0 = w0.join().unwrap().unwrap();
    assert_eq!(r0, (spec.iterations, 0));
    stop.store(true, Ordering::Relaxed);
    ps.join().unwrap();
}

#[test]
fn a_restarted_worker_rejoins_between_iterations() {
    restart_worker_1(false);
}

#[test]
fn a_restarted_worker_rejoins_mid_allreduce() {
    restart_worker_1(true);
}

#[test]
fn a_restarted_worker_without_start_seq_fails_clearly() {
    let mut spec = JobSpec::new(8, 2, 32 * 16, 6);
    spec.window = 8;
    let mut job = one_job(spec.clone(), 64, FaultConfig::NONE);
    let stop = Arc::new(AtomicBool::new(false));
    // A small result cache, so no stale result of seq 0 survives anywhere.
    let ps = spawn_ps(&job, FaultConfig::NONE, 4, None, Arc::clone(&stop));
    let switch = job.switch.addr();
    let mut transports = std::mem::take(&mut job.workers).into_iter();
    let (t0, t1) = (transports.next().unwrap(), transports.next().unwrap());
    let addr1 = t1.local_addr();

    let stop0 = Arc::new(AtomicBool::new(false));
    let spec0 = spec.clone();
    let cfg0 = worker_config(&spec, 0, &job.pool);
    let flag0 = Arc::clone(&stop0);
    let w0 = std::thread::spawn(move || {
        let mut w = Worker::new(WorkerOptions::new(cfg0, switch), t0).unwrap();
        w.set_shutdown_flag(flag0);
        run_iterations(&mut w, &spec0, 0, 0..spec0.iterations)
    });
    let cfg1 = worker_config(&spec, 1, &job.pool);
    let mut first = Worker::new(WorkerOptions::new(cfg1.clone(), switch), t1).unwrap();
    assert_eq!(run_iterations(&mut first, &spec, 1, 0..3).unwrap(), (3, 0));
    drop(first);

    let t1 = loop {
        match job.net.bind(addr1) {
            Ok(t) => break t,
            Err(_) => std::thread::sleep(Duration::from_millis(1)),
        }
    };
    // Restarted from scratch: it believes the job is at seq 0.
    let mut second = Worker::new(WorkerOptions::new(cfg1, switch), t1).unwrap();
    let mut data = spec.gradient(1, 0);
    let err = second.allreduce(&mut data).unwrap_err();
    eprintln!("restarted worker: {err}");
    match &err {
        HostError::BehindJob {
            job,
            worker_id,
            own_seq,
            job_seq,
        } => {
            assert_eq!((*job, *worker_id), (8, 1));
            assert!(job_seq > own_seq, "{err}");
            assert!(err.to_string().contains("start_seq"), "{err}");
        }
        HostError::NoResult { hint, .. } => assert!(hint.contains("start_seq"), "{err}"),
        other => panic!("unexpected error: {other}"),
    }
    // Worker 0 is stuck waiting for worker 1: stop it.
    stop0.store(true, Ordering::Relaxed);
    assert!(matches!(w0.join().unwrap(), Err(HostError::Interrupted)));
    stop.store(true, Ordering::Relaxed);
    ps.join().unwrap();
    drop(job.switch);
}

/// Five timeouts, every other one a resend: a probe first, the resend when
/// nothing answered it, a probe again, ...
fn assert_no_result(err: &HostError, switch: SocketAddr) {
    match err {
        HostError::NoResult {
            job: 3,
            seq: 0,
            timeouts,
            resends,
            switch: s,
            ..
        } => {
            assert_eq!((*timeouts, *resends, *s), (5, 2, switch));
        }
        other => panic!("unexpected error: {other}"),
    }
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "job 3: no RESULT for chunk seq 0 from the switch at {switch} after 5 timeouts \
             (2 resends)"
        )),
        "{text}"
    );
    assert!(text.contains("is the switch running and the job admitted?"));
    assert!(text.contains("A worker of the job that stopped"));
}

fn silent_switch_config() -> WorkerConfig {
    let mut c = WorkerConfig::new(3, 0, 2);
    c.rto_initial_us = 1_000;
    c.rto_max_us = 4_000;
    c.max_retries = 5;
    c
}

#[test]
fn a_worker_whose_switch_never_answers_times_out_in_memory() {
    let net = MemNetwork::new();
    let nobody: SocketAddr = "127.0.0.9:17747".parse().unwrap();
    let t = net.bind_any(FaultConfig::NONE).unwrap();
    let mut w = Worker::new(WorkerOptions::new(silent_switch_config(), nobody), t).unwrap();
    let err = w.allreduce(&mut [1.0; 100]).unwrap_err();
    assert_no_result(&err, nobody);
    assert_eq!(
        (w.stats().probes, w.stats().resends),
        (3 * 4, 2 * 4),
        "every outstanding chunk was probed and resent"
    );
    // A timed-out worker can try again, on fresh seqs.
    match w.allreduce(&mut [1.0]) {
        Err(HostError::NoResult { seq: 4, .. }) => {}
        other => panic!("unexpected outcome: {other:?}"),
    }
}

#[test]
fn a_worker_whose_switch_never_answers_times_out_over_udp() {
    // A socket that receives and never answers (no ICMP either).
    let silent = UdpTransport::bind(localhost0()).unwrap();
    let t = UdpTransport::bind(localhost0()).unwrap();
    let mut w = Worker::new(
        WorkerOptions::new(silent_switch_config(), silent.local_addr()),
        t,
    )
    .unwrap();
    let err = w.allreduce(&mut [1.0; 10]).unwrap_err();
    assert_no_result(&err, silent.local_addr());
    drop(silent);
}
