//! The one job runner: a job's parameter server and workers on threads of
//! this process, configured from its [`JobPlan`] (a tree job's workers at
//! their places in its racks, [`Hosts::places`]). Each worker runs the
//! job's [`Workload`] (synthetic gradients checked against their exact
//! sums, [`crate::jobs::SyntheticSums`]; `esa run`'s model training), then
//! answers its peers' `QUERY`s until every worker is done; the PS samples
//! its counters into a results timeline. A [`JobObserver`] sees the job
//! progress, an abort flag stops its workers, and [`HostsOutcome`] says
//! what every host did. `esa run` runs its experiments' jobs with it, the
//! tests their exact-sum jobs ([`crate::jobs::run_jobs`]).

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use esa_core::plan::JobPlan;
use esa_core::worker::{WorkerConfig, WorkerStats};
use esa_host::ps::{FallbackVolume, ParameterServer};
use esa_host::transport::{Transport, TransportStats};
use esa_host::worker::{Worker, WorkerOptions};

/// Upper bound on how long a finished worker keeps answering its peers'
/// `QUERY`s; a safety net, not a timing assertion.
pub const LINGER_LIMIT: Duration = Duration::from_secs(30);

/// How often the PS samples its counters for the results timeline (and
/// the observer).
pub const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// Makes a host's transport on the host's own thread (so it can enter a
/// network namespace first).
pub type MakeTransport<T> = Box<dyn FnOnce() -> T + Send>;

/// What every worker of a job runs: its iterations, on its own thread.
pub trait Workload: Sync {
    /// What a worker's run leaves beyond its counters (a trained model's
    /// parameters, ...).
    type Extra: Default + Send;

    /// Runs worker `run.worker_id()`'s iterations on `worker`, telling
    /// `run` of each one done, or of the failure that ends them.
    fn run<T: Transport>(&self, worker: &mut Worker<T>, run: &mut WorkerRun<'_, Self::Extra>);
}

/// Watches a running job (progress bars); called from its hosts' threads.
pub trait JobObserver: Sync {
    /// Worker 0 has finished `iterations` iterations.
    fn iterations_done(&self, iterations: u32);
    /// The job's PS has seen `chunks` chunks complete: a `RESULT` from the
    /// switch passing by (the job's group includes the PS), or one it
    /// completed itself. A `RESULT` lost toward the PS is never seen.
    fn chunks_seen(&self, chunks: u64);
}

/// Who watches a job's run, and what may stop it.
#[derive(Clone, Default)]
pub struct Watch<'a> {
    /// Told of the job's progress.
    pub observer: Option<&'a dyn JobObserver>,
    /// When set, the workers stop (their all-reduces fail as interrupted).
    pub abort: Option<Arc<AtomicBool>>,
    /// Time 0 of the results timeline (default: when the job starts).
    pub timeline_origin: Option<Instant>,
}

impl fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watch")
            .field("observer", &self.observer.is_some())
            .field("abort", &self.abort)
            .field("timeline_origin", &self.timeline_origin)
            .finish()
    }
}

/// A job's hosts' transports, each made on its host's thread.
pub struct Hosts<T, P> {
    /// The workers', in worker-id order.
    pub workers: Vec<MakeTransport<T>>,
    /// The PS's.
    pub ps: MakeTransport<P>,
    /// A tree job's workers' places, in worker order: (rack bit at the
    /// root, local id in the rack), as the plan's
    /// [`JobPlan::tree_worker_config`] takes them. Empty for a flat job.
    pub places: Vec<(u8, u8)>,
}

impl<T, P> fmt::Debug for Hosts<T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hosts")
            .field("workers", &self.workers.len())
            .finish_non_exhaustive()
    }
}

impl<T: Send + 'static, P: Send + 'static> Hosts<T, P> {
    /// Hosts whose transports are made already.
    pub fn given(workers: Vec<T>, ps: P) -> Hosts<T, P> {
        Hosts {
            workers: workers.into_iter().map(given).collect(),
            ps: given(ps),
            places: Vec::new(),
        }
    }

    /// The same hosts as a tree job's, worker *w* at `places[w]` (rack
    /// bit, local id).
    pub fn placed(self, places: Vec<(u8, u8)>) -> Hosts<T, P> {
        Hosts { places, ..self }
    }
}

/// A transport made already, as a host's thread takes it.
pub fn given<T: Send + 'static>(transport: T) -> MakeTransport<T> {
    Box::new(move || transport)
}

/// A worker's run as its [`Workload`] records it.
pub struct WorkerRun<'a, E> {
    worker_id: u8,
    outcome: WorkerOutcome<E>,
    observer: Option<&'a dyn JobObserver>,
}

impl<E: fmt::Debug> fmt::Debug for WorkerRun<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkerRun")
            .field("worker_id", &self.worker_id)
            .field("outcome", &self.outcome)
            .finish_non_exhaustive()
    }
}

impl<E> WorkerRun<'_, E> {
    /// The worker's id.
    pub fn worker_id(&self) -> u8 {
        self.worker_id
    }

    /// The iteration under way: how many are done.
    pub fn iteration(&self) -> u32 {
        self.outcome.iterations
    }

    /// The iteration under way is done, with `wrong_elements` elements of
    /// its result differing from what they should be.
    pub fn iteration_done(&mut self, wrong_elements: u64) {
        let o = &mut self.outcome;
        o.iterations += 1;
        o.wrong_elements += wrong_elements;
        o.finished = Some(Instant::now());
        if self.worker_id == 0
            && let Some(observer) = self.observer
        {
            observer.iterations_done(o.iterations);
        }
    }

    /// The iteration under way failed with `error`; the worker stops.
    pub fn fail(&mut self, error: impl fmt::Display) {
        self.outcome.error = Some(format!(
            "worker {}, iteration {}: {error}",
            self.worker_id, self.outcome.iterations
        ));
    }

    /// What the workload keeps beyond the counters.
    pub fn extra(&mut self) -> &mut E {
        &mut self.outcome.extra
    }
}

/// What one worker did.
#[derive(Debug, Default)]
pub struct WorkerOutcome<E> {
    /// Iterations finished.
    pub iterations: u32,
    /// Elements of its results that differed from what they should be.
    pub wrong_elements: u64,
    /// When its last iteration finished.
    pub finished: Option<Instant>,
    /// Why it stopped early.
    pub error: Option<String>,
    /// Its state machine's counters (`None`: it never started).
    pub stats: Option<WorkerStats>,
    /// What its workload kept.
    pub extra: E,
}

/// What a job's PS did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PsOutcome {
    /// What reached it.
    pub volume: Option<FallbackVolume>,
    /// `[ms since the timeline's origin, results learned, chunks
    /// completed]`, a point whenever either count moved.
    pub timeline: Vec<[f64; 3]>,
    /// Its link's datagrams in and out.
    pub transport: TransportStats,
}

/// Why a job's PS did not run to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PsFailure {
    /// Its thread could not be started.
    NotStarted(String),
    /// It failed.
    Failed(String),
    /// Its thread panicked.
    Panicked,
}

/// What a job's hosts did.
#[derive(Debug)]
pub struct HostsOutcome<E> {
    /// Per worker, in worker-id order.
    pub workers: Vec<WorkerOutcome<E>>,
    /// The PS.
    pub ps: Result<PsOutcome, PsFailure>,
    /// Wall time from the first worker's start to the last one's end.
    pub elapsed: Duration,
}

/// Answers `worker`'s peers' `QUERY`s until `done` counts every one of
/// `workers` workers (or [`LINGER_LIMIT`] passes).
pub fn linger<T: Transport>(worker: &mut Worker<T>, done: &AtomicUsize, workers: u8) {
    let end = Instant::now() + LINGER_LIMIT;
    while done.load(Ordering::SeqCst) < usize::from(workers) && Instant::now() < end {
        let _ = worker.serve_queries(Duration::from_millis(5));
    }
}

/// Runs `plan`'s job: its PS and one worker per transport of `hosts` (the
/// plan's fan-in; a tree job's every worker, each at its place) on
/// threads, every host sending to `switch`, each worker running
/// `workload`, then lingering for its peers. Returns when every host has
/// stopped.
pub fn run_job<T, P, W>(
    plan: &JobPlan,
    switch: SocketAddr,
    hosts: Hosts<T, P>,
    workload: &W,
    watch: &Watch<'_>,
) -> HostsOutcome<W::Extra>
where
    T: Transport + 'static,
    P: Transport + 'static,
    W: Workload,
{
    let workers = match plan.tree {
        Some(shape) => shape.total_workers(),
        None => usize::from(plan.fan_in),
    };
    assert_eq!(
        hosts.workers.len(),
        workers,
        "job {}: one transport per worker",
        plan.job
    );
    let configs: Vec<WorkerConfig> = (0..workers)
        .map(|w| worker_config(plan, &hosts.places, w))
        .collect();
    let worker_count = u8::try_from(workers).unwrap_or(u8::MAX);
    let origin = watch.timeline_origin.unwrap_or_else(Instant::now);
    let stop_ps = AtomicBool::new(false);
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let ps = std::thread::Builder::new()
            .name(format!("esa-ps-{}", plan.job))
            .spawn_scoped(s, || {
                serve(plan, switch, hosts.ps, &stop_ps, watch.observer, origin)
            });
        let start = Instant::now();
        let mut threads = Vec::new();
        let mut workers = Vec::new();
        for ((w, make), config) in hosts.workers.into_iter().enumerate().zip(configs) {
            let worker_id = u8::try_from(w).unwrap_or(u8::MAX);
            let done = &done;
            let spawned = std::thread::Builder::new()
                .name(format!("esa-worker-{}-{w}", plan.job))
                .spawn_scoped(s, move || {
                    let run = WorkerRun {
                        worker_id,
                        outcome: WorkerOutcome::default(),
                        observer: watch.observer,
                    };
                    let options = WorkerOptions::new(config, switch);
                    work(options, make, workload, watch, run, (done, worker_count))
                });
            match spawned {
                Ok(t) => threads.push(t),
                Err(e) => {
                    done.fetch_add(1, Ordering::SeqCst);
                    workers.push(WorkerOutcome {
                        error: Some(format!("cannot start a worker thread: {e}")),
                        ..WorkerOutcome::default()
                    });
                }
            }
        }
        for t in threads {
            workers.push(t.join().unwrap_or_else(|_| WorkerOutcome {
                error: Some("worker thread panicked".into()),
                ..WorkerOutcome::default()
            }));
        }
        let elapsed = start.elapsed();
        stop_ps.store(true, Ordering::Relaxed);
        let ps = match ps {
            Ok(t) => match t.join() {
                Ok(result) => result.map_err(PsFailure::Failed),
                Err(_) => Err(PsFailure::Panicked),
            },
            Err(e) => Err(PsFailure::NotStarted(e.to_string())),
        };
        HostsOutcome {
            workers,
            ps,
            elapsed,
        }
    })
}

/// Worker `w`'s configuration: its place in a tree job (`places[w]`), else
/// worker `w` of a flat one. A tree job's worker without a place panics:
/// the caller's mistake, as a missing transport is.
fn worker_config(plan: &JobPlan, places: &[(u8, u8)], w: usize) -> WorkerConfig {
    if plan.tree.is_none() {
        return plan.worker_config(u8::try_from(w).unwrap_or(u8::MAX));
    }
    let &(rack, local) = places
        .get(w)
        .unwrap_or_else(|| panic!("job {}: tree worker {w} has no place", plan.job));
    plan.tree_worker_config(rack, local)
        .unwrap_or_else(|| panic!("job {}: no rack {rack} for worker {w}", plan.job))
}

/// A worker's thread: its workload, then its peers' `QUERY`s until every
/// one of the job's workers is done (`done` counts them, of the second).
fn work<T: Transport, W: Workload>(
    options: WorkerOptions,
    make: MakeTransport<T>,
    workload: &W,
    watch: &Watch<'_>,
    mut run: WorkerRun<'_, W::Extra>,
    (done, workers): (&AtomicUsize, u8),
) -> WorkerOutcome<W::Extra> {
    match Worker::new(options, make()) {
        Ok(mut worker) => {
            if let Some(flag) = &watch.abort {
                worker.set_shutdown_flag(Arc::clone(flag));
            }
            workload.run(&mut worker, &mut run);
            done.fetch_add(1, Ordering::SeqCst);
            linger(&mut worker, done, workers);
            run.outcome.stats = Some(worker.stats().clone());
        }
        Err(e) => {
            done.fetch_add(1, Ordering::SeqCst);
            run.outcome.error = Some(e.to_string());
        }
    }
    run.outcome
}

/// The PS's thread: serves the job until `stop`, sampling its counters
/// every [`SAMPLE_EVERY`].
fn serve<P: Transport>(
    plan: &JobPlan,
    switch: SocketAddr,
    make: MakeTransport<P>,
    stop: &AtomicBool,
    observer: Option<&dyn JobObserver>,
    origin: Instant,
) -> Result<PsOutcome, String> {
    let job = plan.job;
    let mut ps =
        ParameterServer::new(plan.ps_config(), switch, make()).map_err(|e| e.to_string())?;
    ps.add_job(job, plan.fan_in, plan.ps_options())
        .map_err(|e| e.to_string())?;
    let mut timeline: Vec<[f64; 3]> = Vec::new();
    let sample = |ps: &ParameterServer<P>, timeline: &mut Vec<[f64; 3]>| {
        if let Some(s) = ps.job_stats(job) {
            if let Some(observer) = observer {
                observer.chunks_seen(s.results_learned + s.results_completed);
            }
            let point = [
                origin.elapsed().as_secs_f64() * 1000.0,
                s.results_learned as f64,
                s.results_completed as f64,
            ];
            if timeline.last().is_none_or(|p| p[1..] != point[1..]) {
                timeline.push(point);
            }
        }
    };
    let mut next_sample = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        ps.step(SAMPLE_EVERY).map_err(|e| e.to_string())?;
        if Instant::now() >= next_sample {
            sample(&ps, &mut timeline);
            next_sample = Instant::now() + SAMPLE_EVERY;
        }
    }
    sample(&ps, &mut timeline);
    Ok(PsOutcome {
        volume: ps.fallback_volume(job),
        timeline,
        transport: ps.transport_stats(),
    })
}
