//! A test job: its spec, its synthetic gradients and their exact sums, and
//! its parameter server and workers on threads, every element of every
//! result checked against the exact integer sum.
//!
//! The gradients are [`esa_core::synthetic::gradient_value`]'s small
//! integers, so a sum in f32 is exact whatever the order of addition, and
//! "exact" means equal, not close.

use std::net::SocketAddr;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use esa_core::job::{Mode, SlotMapping};
use esa_core::policy::Policy;
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::synthetic::gradient_value;
use esa_core::worker::WorkerConfig;
use esa_host::HostError;
use esa_host::ps::{FallbackVolume, ParameterServer};
use esa_host::transport::Transport;
use esa_host::worker::{Worker, WorkerOptions};

/// The gradients' seed unless a spec says otherwise.
pub const SEED: u64 = 7;

/// Upper bound on how long a finished worker keeps answering its peers'
/// `QUERY`s; a safety net, not a timing assertion.
pub const LINGER_LIMIT: Duration = Duration::from_secs(30);

/// One job of a test: who, how, and how much.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Job id (as admitted).
    pub id: u16,
    /// Number of workers (the fan-in).
    pub workers: u8,
    /// Sharing mode.
    pub mode: Mode,
    /// Priority policy of the workers.
    pub policy: Policy,
    /// Gradient elements per iteration.
    pub elements: usize,
    /// Iterations.
    pub iterations: u32,
    /// Outstanding chunks per worker.
    pub window: usize,
    /// Seed of the synthetic gradients.
    pub seed: u64,
    /// SwitchML: the first slot of the job's range.
    pub slot_base: u16,
    /// SwitchML: the job's slot mask.
    pub slot_mask: u16,
}

impl JobSpec {
    /// An ESA job with the `fcfs` policy, a window of 8 and seed [`SEED`].
    pub fn new(id: u16, workers: u8, elements: usize, iterations: u32) -> JobSpec {
        JobSpec {
            id,
            workers,
            mode: Mode::Esa,
            policy: Policy::Fcfs,
            elements,
            iterations,
            window: 8,
            seed: SEED,
            slot_base: 0,
            slot_mask: 0,
        }
    }

    /// Worker `worker`'s gradient in `iteration`.
    pub fn gradient(&self, worker: u8, iteration: u32) -> Vec<f32> {
        (0..self.elements)
            .map(|i| gradient_value(self.seed, self.id, worker, iteration, i))
            .collect()
    }

    /// The exact sum of every worker's gradient in `iteration`, first
    /// `elements` elements.
    pub fn expected_sum(&self, iteration: u32, elements: usize) -> Vec<f32> {
        (0..elements)
            .map(|i| {
                (0..self.workers)
                    .map(|w| gradient_value(self.seed, self.id, w, iteration, i))
                    .sum()
            })
            .collect()
    }

    /// Elements of `got` that differ from the exact sum of `iteration`.
    pub fn mismatches(&self, iteration: u32, got: &[f32]) -> usize {
        let want = self.expected_sum(iteration, got.len());
        want.iter().zip(got).filter(|(a, b)| a != b).count()
    }

    /// Worker `worker_id`'s configuration: `lanes` lanes, the job's window
    /// (and a result cache of four windows), slots hashed under
    /// `slot_mask` (or, for a SwitchML job, its own range, direct), the
    /// total chunk count for `srpt`, and `rto`'s timeouts.
    pub fn worker_config(
        &self,
        worker_id: u8,
        lanes: usize,
        slot_mask: u16,
        rto: Rto,
    ) -> WorkerConfig {
        let mut c = WorkerConfig::new(self.id, worker_id, self.workers);
        c.lanes = lanes;
        c.window = self.window;
        c.result_cache = 4 * self.window;
        c.policy = self.policy;
        (c.slot_mapping, c.slot_mask) = match self.mode {
            Mode::SwitchMl => (SlotMapping::Direct, self.slot_mask),
            Mode::Esa | Mode::Atp => (SlotMapping::Hashed, slot_mask),
        };
        c.chunks_total = Some(self.elements.div_ceil(lanes) as u64 * u64::from(self.iterations));
        c.rto_initial_us = rto.initial_us;
        c.rto_max_us = rto.max_us;
        c.max_retries = rto.retries;
        c
    }
}

/// Retransmission timing for where the hosts run. Correctness never
/// depends on it, only how soon a dead peer is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rto {
    /// First timeout, µs.
    pub initial_us: u64,
    /// Ceiling, µs.
    pub max_us: u64,
    /// Resends of one chunk before the all-reduce fails.
    pub retries: u32,
}

impl Rto {
    /// Hosts and the model switch as threads sharing two cores.
    pub const THREADS: Rto = Rto {
        initial_us: 2_000,
        max_us: 20_000,
        retries: 400,
    };

    /// The software switch on a shared machine: round trips of
    /// milliseconds; the timeout adapts upward.
    pub const SOFTWARE_SWITCH: Rto = Rto {
        initial_us: 20_000,
        max_us: 200_000,
        retries: 200,
    };
}

/// Runs `iterations` all-reduces of `spec`'s gradients as worker `id`;
/// returns (iterations done, elements that differed from the exact sum).
pub fn run_iterations<T: Transport>(
    worker: &mut Worker<T>,
    spec: &JobSpec,
    id: u8,
    iterations: Range<u32>,
) -> Result<(u32, usize), HostError> {
    let mut wrong = 0;
    let mut done = 0;
    for it in iterations {
        let mut data = spec.gradient(id, it);
        worker.allreduce(&mut data)?;
        wrong += spec.mismatches(it, &data);
        done += 1;
    }
    Ok((done, wrong))
}

/// Answers peers' `QUERY`s until `done` counts every one of `workers`
/// workers (or [`LINGER_LIMIT`] passes).
pub fn linger<T: Transport>(worker: &mut Worker<T>, done: &AtomicUsize, workers: u8) {
    let end = Instant::now() + LINGER_LIMIT;
    while done.load(Ordering::SeqCst) < usize::from(workers) && Instant::now() < end {
        let _ = worker.serve_queries(Duration::from_millis(5));
    }
}

/// Where a job's hosts send, and how.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// Where workers and PS send ESA packets.
    pub switch: SocketAddr,
    /// Lanes per packet.
    pub lanes: usize,
    /// Slot mask of hashed (ESA, ATP) jobs.
    pub slot_mask: u16,
    /// Retransmission timing.
    pub rto: Rto,
}

/// What a job's hosts did.
#[derive(Debug, Default)]
pub struct JobOutcome {
    /// Per worker, in worker-id order: iterations finished and elements
    /// that differed from the exact sum, or why it stopped.
    pub workers: Vec<Result<(u32, usize), String>>,
    /// Elements checked.
    pub checked_elements: u64,
    /// Resends, summed over workers.
    pub resends: u64,
    /// Results that came from the switch (in-switch aggregation), summed.
    pub results_from_switch: u64,
    /// Results that came from the PS, summed.
    pub results_from_ps: u64,
    /// Packets the workers could not use (malformed, foreign, unexpected).
    pub invalid_packets: u64,
    /// Results received again after one was accepted.
    pub duplicate_results: u64,
    /// What reached the PS.
    pub fallback: Option<FallbackVolume>,
    /// Errors of the PS.
    pub ps_errors: Vec<String>,
    /// Wall time from the first worker start to the last finish.
    pub elapsed: Duration,
}

impl JobOutcome {
    /// Chunks the PS completed.
    pub fn chunks_at_ps(&self) -> u64 {
        self.fallback.as_ref().map_or(0, |v| v.chunks_completed)
    }

    /// Every error of any host.
    pub fn errors(&self) -> Vec<String> {
        self.workers
            .iter()
            .filter_map(|w| w.as_ref().err().cloned())
            .chain(self.ps_errors.iter().cloned())
            .collect()
    }

    /// Every worker finished every iteration, every element of every
    /// result was checked, and none differed from the exact sum.
    pub fn assert_exact(&self, spec: &JobSpec) {
        assert_eq!(
            self.workers.len(),
            usize::from(spec.workers),
            "job {}",
            spec.id
        );
        for (id, w) in self.workers.iter().enumerate() {
            match w {
                Ok((done, wrong)) => {
                    assert_eq!(*done, spec.iterations, "job {} worker {id}", spec.id);
                    assert_eq!(
                        *wrong, 0,
                        "job {} worker {id}: results differ from the exact sum",
                        spec.id
                    );
                }
                Err(e) => panic!("job {} worker {id} failed: {e}", spec.id),
            }
        }
        assert_eq!(
            self.checked_elements,
            spec.elements as u64 * u64::from(spec.iterations) * u64::from(spec.workers),
            "job {}",
            spec.id
        );
    }
}

/// Makes a host's transport on the host's own thread (so it can enter a
/// network namespace first).
pub type MakeTransport<T> = Box<dyn FnOnce() -> T + Send>;

/// One job to run: its spec, its setup, worker transports and PS transport.
pub type JobRun<T, P> = (JobSpec, Setup, Vec<MakeTransport<T>>, MakeTransport<P>);

/// Runs every job at once, each with [`run_job`], and returns each spec
/// with its outcome, in order.
pub fn run_jobs<T, P>(runs: Vec<JobRun<T, P>>) -> Vec<(JobSpec, JobOutcome)>
where
    T: Transport + 'static,
    P: Transport + 'static,
{
    std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .into_iter()
            .map(|(spec, setup, workers, ps)| {
                s.spawn(move || {
                    let o = run_job(&spec, setup, workers, ps);
                    (spec, o)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a job's thread panicked"))
            .collect()
    })
}

/// Runs a job: its PS and workers on threads, each worker all-reducing
/// the spec's gradients and comparing every element with the exact sum,
/// then answering its peers' `QUERY`s until all are done.
pub fn run_job<T, P>(
    spec: &JobSpec,
    setup: Setup,
    workers: Vec<MakeTransport<T>>,
    ps: MakeTransport<P>,
) -> JobOutcome
where
    T: Transport + 'static,
    P: Transport + 'static,
{
    assert_eq!(workers.len(), usize::from(spec.workers));
    let stop_ps = Arc::new(AtomicBool::new(false));
    let ps_thread = {
        let stop = Arc::clone(&stop_ps);
        let (job, fan_in) = (spec.id, spec.workers);
        let forward_results = spec.mode == Mode::Atp;
        std::thread::Builder::new()
            .name(format!("ps-{job}"))
            .spawn(move || -> Result<Option<FallbackVolume>, String> {
                let config = PsConfig {
                    lanes: setup.lanes,
                    ..PsConfig::default()
                };
                let mut ps =
                    ParameterServer::new(config, setup.switch, ps()).map_err(|e| e.to_string())?;
                ps.add_job(job, fan_in, JobOptions { forward_results })
                    .map_err(|e| e.to_string())?;
                while !stop.load(Ordering::Relaxed) {
                    ps.step(Duration::from_millis(10))
                        .map_err(|e| e.to_string())?;
                }
                Ok(ps.fallback_volume(job))
            })
            .expect("PS thread")
    };
    let start = Instant::now();
    let done = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = workers
        .into_iter()
        .enumerate()
        .map(|(w, make)| {
            let worker_id = w as u8;
            let config = spec.worker_config(worker_id, setup.lanes, setup.slot_mask, setup.rto);
            let spec = spec.clone();
            let done = Arc::clone(&done);
            std::thread::Builder::new()
                .name(format!("worker-{}-{w}", spec.id))
                .spawn(move || {
                    let mut worker =
                        match Worker::new(WorkerOptions::new(config, setup.switch), make()) {
                            Ok(worker) => worker,
                            Err(e) => {
                                done.fetch_add(1, Ordering::SeqCst);
                                return (Err(e.to_string()), None);
                            }
                        };
                    let outcome = run_iterations(&mut worker, &spec, worker_id, 0..spec.iterations)
                        .map_err(|e| format!("job {} worker {worker_id}: {e}", spec.id));
                    done.fetch_add(1, Ordering::SeqCst);
                    linger(&mut worker, &done, spec.workers);
                    (outcome, Some(worker.stats().clone()))
                })
                .expect("worker thread")
        })
        .collect();
    let mut outcome = JobOutcome::default();
    for t in threads {
        let (result, stats) = t
            .join()
            .unwrap_or_else(|_| (Err("a worker thread panicked".into()), None));
        if let Ok((done, _)) = &result {
            outcome.checked_elements += spec.elements as u64 * u64::from(*done);
        }
        if let Some(s) = stats {
            outcome.resends += s.resends;
            outcome.results_from_switch += s.results_from_switch;
            outcome.results_from_ps += s.results_from_ps;
            outcome.invalid_packets += s.invalid_packets;
            outcome.duplicate_results += s.duplicate_results;
        }
        outcome.workers.push(result);
    }
    outcome.elapsed = start.elapsed();
    stop_ps.store(true, Ordering::Relaxed);
    match ps_thread.join() {
        Ok(Ok(volume)) => outcome.fallback = volume,
        Ok(Err(e)) => outcome
            .ps_errors
            .push(format!("PS of job {}: {e}", spec.id)),
        Err(_) => outcome
            .ps_errors
            .push(format!("PS of job {} panicked", spec.id)),
    }
    outcome
}
