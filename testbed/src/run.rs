//! Running an experiment: [`run_experiment`] settles where it runs (a
//! [`VariantRunner`]: emulated, a switch target and a fabric, or
//! simulated, in virtual time), checks before anything starts that it can
//! run there, and runs each variant.
//!
//! - [`Emulated`]: a switch ([`crate::switch_target`]: esa-switch in
//!   process, BMv2, or an external one), the controller against it over
//!   P4Runtime, and every job's parameter server and workers on threads
//!   of this process, on the hosts' links ([`crate::fabric`]: in-memory
//!   ports, namespaces, a hosts file's addresses). One variant runs at a
//!   time, each on a fresh switch, fresh links and a fresh controller.
//! - [`Simulated`]: the pool model in virtual time
//!   ([`crate::virtual_time`]).
//!
//! A job's run (its PS and workers on threads, the synthetic sums and the
//! training loop, checked against the exact result) and the progress bars
//! live here too.

mod emulated;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use esa_controller::jobs::Job;
use esa_controller::{Controller, GrpcSwitch};
use esa_core::job::Mode;
use esa_core::job::SlotMapping;
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::synthetic::gradient_value;
use esa_core::worker::WorkerConfig;
use esa_host::ParameterServer;
use esa_host::transport::Transport;
use esa_host::worker::{Worker, WorkerOptions};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::error::TestbedError;
use crate::experiment::{Experiment, FabricKind, JobSpec, Variant};
use crate::fabric::{self, LossMeter};
use crate::report::{ExperimentReport, JobReport, TrainingReport, VariantReport};
use crate::switch_target::{EmbeddedTarget, StartOptions, SwitchTarget};
use crate::train::{self, Dataset};
use crate::virtual_time::Simulated;

pub use emulated::{Emulated, program_path};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Draw a progress bar per job on stderr (when it is a terminal).
    pub progress: bool,
    /// How long the controller may take to push the pipeline and sync
    /// (and a started BMv2 to serve P4Runtime).
    pub setup_timeout: Duration,
    /// The switch that runs the data plane (default: the embedded
    /// esa-switch).
    pub switch: Arc<dyn SwitchTarget>,
    /// The fabric asked for in place of the experiment's `[fabric] kind`
    /// (`esa run --fabric`; load the experiment with
    /// [`Experiment::load_as`] and the same fabric, whose defaults it
    /// decides). `None`: the file's, when it names one; else the switch's
    /// default (in-process; the netns fabric for BMv2; the hosts file for
    /// an external switch).
    pub fabric: Option<FabricKind>,
    /// Where BMv2's build products and log go (default: a folder under
    /// the system's temporary folder).
    pub work_dir: Option<PathBuf>,
    /// How long the controller may go without a programmed switch (the
    /// connection lost, not primary, or out of sync) while jobs run before
    /// the run stops with [`TestbedError::SwitchLost`]. A switch that
    /// restarts within it gets its pipeline and jobs back, and the workers'
    /// retransmissions carry the jobs on.
    pub switch_lost_after: Duration,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            progress: true,
            setup_timeout: Duration::from_secs(60),
            switch: Arc::new(EmbeddedTarget),
            fabric: None,
            work_dir: None,
            switch_lost_after: Duration::from_secs(10),
        }
    }
}

impl RunOptions {
    /// What the switch target may use for `experiment`.
    fn start_options(&self, experiment: &str) -> StartOptions {
        StartOptions {
            work_dir: self.work_dir.clone().unwrap_or_else(|| {
                std::env::temp_dir().join(format!("esa-run-{experiment}-{}", std::process::id()))
            }),
            timeout: self.setup_timeout,
            progress: self.progress,
        }
    }
}

/// What runs an experiment's variants.
pub trait VariantRunner {
    /// What runs where, for the report.
    fn setup(&self) -> Setup;

    /// What `esa run` says it is about to do, after the experiment's name.
    fn headline(&self, _experiment: &Experiment) -> String {
        self.setup().description
    }

    /// Whether running makes network namespaces, which a process
    /// interrupted outright must remove itself
    /// (`esa_netns::remove_this_process`).
    fn makes_namespaces(&self) -> bool {
        false
    }

    /// Checks, before anything starts, that `experiment` can run here;
    /// the error names what is missing. By default there is nothing to
    /// check.
    fn preflight(&self, _experiment: &Experiment) -> Result<(), TestbedError> {
        Ok(())
    }

    /// Runs one variant of `experiment`.
    fn run_variant(
        &mut self,
        experiment: &Experiment,
        variant: &Variant,
    ) -> Result<VariantReport, TestbedError>;
}

/// What runs where: the report's `setup`, `switch` and `fabric`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// In words: `esa-switch (p4sim, in process); hosts on in-memory
    /// ports`.
    pub description: String,
    /// `embedded`, `bmv2`, `external`, or `model` (the sim fabric).
    pub switch: &'static str,
    /// `inprocess`, `netns`, `external` or `sim`.
    pub fabric: &'static str,
}

/// Where `experiment` runs with `options`: the fabric asked for (the
/// options', else the file's when it names one), on the sim fabric the
/// pool model in virtual time, else the switch target with the fabric it
/// settles on. Starts and checks nothing; a fabric the switch cannot be
/// reached over is an error naming the flags.
pub fn variant_runner(
    experiment: &Experiment,
    options: &RunOptions,
) -> Result<Box<dyn VariantRunner>, TestbedError> {
    let file = Some(experiment.fabric.kind).filter(|kind| *kind != FabricKind::default());
    let asked = options.fabric.or(file);
    if asked == Some(FabricKind::Sim) {
        if !options.switch.modelled_by_sim() {
            return Err(setup(
                "the sim fabric runs on the pool model: --switch does not apply",
            ));
        }
        return Ok(Box::new(Simulated::new(
            experiment.fabric.sim,
            options.progress,
        )));
    }
    let fabric = options.switch.fabric(asked.and_then(fabric::emulated))?;
    Ok(Box::new(Emulated::new(
        Arc::clone(&options.switch),
        fabric,
        experiment,
        options,
    )))
}

/// Checks, before anything starts, that the experiment can run on the
/// chosen switch and fabric: root and iproute2 for namespaces, nftables
/// for loss on them, BMv2 and its compiler, no loss injection on an
/// external switch, enough hosts in the hosts file.
pub fn preflight(experiment: &Experiment, options: &RunOptions) -> Result<(), TestbedError> {
    variant_runner(experiment, options)?.preflight(experiment)
}

/// Whether running `experiment` with `options` makes network namespaces
/// (which an interrupted process must remove itself:
/// `esa_netns::remove_this_process`).
pub fn makes_namespaces(experiment: &Experiment, options: &RunOptions) -> bool {
    variant_runner(experiment, options).is_ok_and(|runner| runner.makes_namespaces())
}

/// Runs every variant of `experiment` where `options` say, and reports on
/// each.
pub fn run_experiment(
    experiment: &Experiment,
    options: &RunOptions,
) -> Result<ExperimentReport, TestbedError> {
    let mut runner = variant_runner(experiment, options)?;
    if options.progress {
        eprintln!("{}: {}", experiment.name, runner.headline(experiment));
    }
    runner.preflight(experiment)?;
    let mut variants = Vec::new();
    for variant in &experiment.variants {
        variants.push(runner.run_variant(experiment, variant)?);
    }
    let setup = runner.setup();
    Ok(ExperimentReport {
        experiment: experiment.name.clone(),
        lanes: experiment.switch.lanes,
        pool_slots: experiment.switch.pool_slots,
        setup: setup.description,
        switch: setup.switch.into(),
        fabric: setup.fabric.into(),
        variants,
    })
}

/// Where a job is, for the progress bars.
#[derive(Debug)]
struct Progress {
    name: String,
    iterations: u32,
    /// Iterations worker 0 has finished.
    done: AtomicU32,
    /// Chunks whose completion the job's PS has seen (a RESULT from the
    /// switch, or completed itself), of `chunks_total`.
    chunks: AtomicU64,
    chunks_total: u64,
    /// 0 waiting, 1 running, 2 finished, 3 failed.
    state: AtomicU8,
}

const WAITING: u8 = 0;
const RUNNING: u8 = 1;
const FINISHED: u8 = 2;
const FAILED: u8 = 3;

impl Progress {
    /// What the job's bar shows now: chunks done (of `chunks_total`) and
    /// `done/iterations iterations (state)`.
    fn shown(&self) -> (u64, String) {
        let state = self.state.load(Ordering::Relaxed);
        // A finished job's bar is full even when a RESULT toward its PS
        // was lost (the workers got it).
        let chunks = if state == FINISHED {
            self.chunks_total
        } else {
            self.chunks.load(Ordering::Relaxed).min(self.chunks_total)
        };
        let state = match state {
            WAITING => "waiting",
            RUNNING => "running",
            FINISHED => "finished",
            _ => "failed",
        };
        let done = self.done.load(Ordering::Relaxed);
        (
            chunks,
            format!("{done}/{} iterations ({state})", self.iterations),
        )
    }
}

/// A job's line: elapsed time, variant and job, bar, share, and what
/// [`Progress::shown`] says.
const BAR_TEMPLATE: &str = "[{elapsed:>5}] {prefix} [{bar:24}] {percent:>3}% {msg}";

/// Draws a bar per job on stderr (plain lines every 2 s when it is not a
/// terminal), updated ten times
/// a second from the jobs' counters, until `stop`.
fn spawn_progress(
    label: String,
    jobs: Arc<Vec<Progress>>,
    stop: Arc<AtomicBool>,
) -> Option<JoinHandle<()>> {
    let style = ProgressStyle::with_template(BAR_TEMPLATE)
        .ok()?
        .progress_chars("#.");
    let all = MultiProgress::new();
    let bars: Vec<ProgressBar> = jobs
        .iter()
        .map(|p| {
            all.add(ProgressBar::new(p.chunks_total))
                .with_style(style.clone())
                .with_prefix(format!("{label:>12} {:>12}", p.name))
        })
        .collect();
    std::thread::Builder::new()
        .name("esa-testbed-progress".into())
        .spawn(move || {
            // indicatif draws nothing when stderr is not a terminal (a log
            // file, CI): there, a plain line per job that moved, every 2 s.
            let plain = !std::io::IsTerminal::is_terminal(&std::io::stderr());
            let mut printed: Vec<Option<(u64, String)>> = vec![None; jobs.len()];
            let started = Instant::now();
            let mut update = |force: bool| {
                for (i, (p, bar)) in jobs.iter().zip(&bars).enumerate() {
                    let (chunks, message) = p.shown();
                    bar.set_position(chunks);
                    bar.set_message(message.clone());
                    let now = Some((chunks, message));
                    if plain && (force || printed[i] != now) {
                        if let Some((chunks, message)) = &now {
                            eprintln!(
                                "[{:>7.1}s] {label:>12} {:>12} {chunks}/{} chunks, {message}",
                                started.elapsed().as_secs_f64(),
                                p.name,
                                p.chunks_total
                            );
                        }
                        printed[i] = now;
                    }
                }
            };
            let mut tick = 0u32;
            while !stop.load(Ordering::Relaxed) {
                if !plain || tick.is_multiple_of(20) {
                    update(false);
                }
                tick += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            // Where every job ended.
            update(true);
            // abandon, not finish: finish would fill a failed job's bar.
            bars.iter().for_each(ProgressBar::abandon);
        })
        .ok()
}

fn setup(message: impl std::fmt::Display) -> TestbedError {
    TestbedError::Setup(message.to_string())
}

/// Runs a job on its own thread; `links` holds its workers' then its PS's.
fn spawn_job<T: Transport + 'static>(
    ctx: JobContext,
    mut links: Vec<T>,
) -> Result<JoinHandle<JobReport>, TestbedError> {
    let name = format!("esa-testbed-job-{}", ctx.index + 1);
    let ps = links
        .pop()
        .ok_or_else(|| setup("a job without a parameter server link"))?;
    std::thread::Builder::new()
        .name(name)
        .spawn(move || run_job(ctx, links, ps))
        .map_err(|e| TestbedError::start("cannot start a job thread", e))
}

/// Milliseconds as a float.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Everything a job's thread needs.
struct JobContext {
    spec: JobSpec,
    job: Job,
    seed: u64,
    lanes: usize,
    /// Where the job's hosts send ESA packets.
    switch_addr: SocketAddr,
    start: Instant,
    arrived: Instant,
    report: JobReport,
    progress: Arc<Vec<Progress>>,
    index: usize,
    controller: Arc<Controller<GrpcSwitch>>,
    runtime: tokio::runtime::Handle,
    /// Set when the switch is lost: the workers stop.
    abort: Arc<AtomicBool>,
    /// The job's hosts' links' lost frames.
    meters: Vec<LossMeter>,
}

/// What one worker did.
#[derive(Debug, Default)]
struct WorkerOutcome {
    iterations: u32,
    wrong_elements: u64,
    finished: Option<Instant>,
    resends: u64,
    results_from_switch: u64,
    results_from_ps: u64,
    error: Option<String>,
    /// Training: the final parameters.
    params: Option<Vec<f64>>,
    /// Training, worker 0: the loss before the first step and after each.
    loss_curve: Vec<f64>,
    /// Training, worker 0: the largest difference between an all-reduced
    /// gradient element and the float64 full-batch gradient.
    max_gradient_error: f64,
}

fn worker_config(ctx: &JobContext, worker_id: u8) -> WorkerConfig {
    let spec = &ctx.spec;
    let mut c = WorkerConfig::new(ctx.job.id, worker_id, spec.workers);
    c.lanes = ctx.lanes;
    c.window = spec.window;
    c.result_cache = 4 * spec.window;
    c.policy = spec.policy;
    c.slot_mapping = match spec.mode {
        Mode::SwitchMl => SlotMapping::Direct,
        Mode::Esa | Mode::Atp => SlotMapping::Hashed,
    };
    c.slot_mask = ctx.job.slot_mask;
    if spec.mode == Mode::SwitchMl {
        // SwitchML keeps one chunk per slot of its own range in flight.
        c.window = c.window.min(ctx.job.slot_count() as usize).max(1);
        c.result_cache = 4 * c.window;
    }
    c.chunks_total = Some(spec.chunks_per_iteration(ctx.lanes) * u64::from(spec.iterations));
    // A software switch on a loaded laptop: round trips of milliseconds.
    // The RTO adapts upward from here; correctness never depends on it.
    c.rto_initial_us = 20_000;
    c.rto_max_us = 500_000;
    c.max_retries = 200;
    c
}

fn run_job<T: Transport + 'static>(ctx: JobContext, worker_links: Vec<T>, ps_link: T) -> JobReport {
    let job_id = ctx.job.id;
    let fan_in = ctx.spec.workers;
    let lanes = ctx.lanes;
    let mut report = ctx.report.clone();

    // The parameter server.
    let stop_ps = Arc::new(AtomicBool::new(false));
    let ps_thread = {
        let transport = ps_link;
        let switch_addr = ctx.switch_addr;
        let stop = Arc::clone(&stop_ps);
        let forward_results = ctx.spec.mode == Mode::Atp;
        let start = ctx.start;
        let progress = Arc::clone(&ctx.progress);
        let index = ctx.index;
        std::thread::Builder::new()
            .name(format!("esa-ps-{job_id}"))
            .spawn(move || -> Result<_, String> {
                let config = PsConfig {
                    lanes,
                    ..PsConfig::default()
                };
                let mut ps = ParameterServer::new(config, switch_addr, transport)
                    .map_err(|e| e.to_string())?;
                ps.add_job(job_id, fan_in, JobOptions { forward_results })
                    .map_err(|e| e.to_string())?;
                // Every chunk completes at the PS: either the switch's
                // RESULT reaches it (the job's group includes the PS) or
                // the PS completes it from parts.
                let mut timeline: Vec<[f64; 3]> = Vec::new();
                let sample = |ps: &ParameterServer<_>, timeline: &mut Vec<[f64; 3]>| {
                    if let Some(s) = ps.job_stats(job_id) {
                        progress[index]
                            .chunks
                            .store(s.results_learned + s.results_completed, Ordering::Relaxed);
                        let point = [
                            ms(start.elapsed()),
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
                Ok((ps.fallback_volume(job_id), timeline))
            })
    };

    // The workers.
    let done = Arc::new(AtomicUsize::new(0));
    let mut threads = Vec::new();
    for (w, transport) in worker_links.into_iter().enumerate() {
        let worker_id = u8::try_from(w).unwrap_or(u8::MAX);
        let config = worker_config(&ctx, worker_id);
        let switch_addr = ctx.switch_addr;
        let abort = Arc::clone(&ctx.abort);
        let done_here = Arc::clone(&done);
        let spec = ctx.spec.clone();
        let seed = ctx.seed;
        let progress = Arc::clone(&ctx.progress);
        let index = ctx.index;
        let spawned = std::thread::Builder::new()
            .name(format!("esa-worker-{job_id}-{w}"))
            .spawn(move || {
                let done = done_here;
                let mut out = WorkerOutcome::default();
                match Worker::new(WorkerOptions::new(config, switch_addr), transport) {
                    Ok(mut worker) => {
                        worker.set_shutdown_flag(Arc::clone(&abort));
                        let run = WorkerRun {
                            spec: &spec,
                            job: job_id,
                            worker_id,
                            seed,
                            progress: &progress[index],
                        };
                        if let Some(t) = spec.train {
                            train_model(&mut worker, &run, &t, &mut out);
                        } else {
                            sum_synthetic(&mut worker, &run, &mut out);
                        }
                        done.fetch_add(1, Ordering::SeqCst);
                        // Answer peers' QUERYs until every worker is done.
                        let end = Instant::now() + Duration::from_secs(30);
                        while done.load(Ordering::SeqCst) < usize::from(spec.workers)
                            && Instant::now() < end
                        {
                            let _ = worker.serve_queries(Duration::from_millis(5));
                        }
                        let s = worker.stats();
                        out.resends = s.resends;
                        out.results_from_switch = s.results_from_switch;
                        out.results_from_ps = s.results_from_ps;
                    }
                    Err(e) => {
                        done.fetch_add(1, Ordering::SeqCst);
                        out.error = Some(e.to_string());
                    }
                }
                out
            });
        match spawned {
            Ok(t) => threads.push(t),
            Err(e) => {
                done.fetch_add(1, Ordering::SeqCst);
                report.error = Some(format!("cannot start a worker thread: {e}"));
            }
        }
    }
    let outcomes: Vec<WorkerOutcome> = threads
        .into_iter()
        .map(|t| {
            t.join().unwrap_or_else(|_| WorkerOutcome {
                error: Some("worker thread panicked".into()),
                ..WorkerOutcome::default()
            })
        })
        .collect();
    stop_ps.store(true, Ordering::Relaxed);
    let volume = match ps_thread {
        Ok(t) => match t.join() {
            Ok(Ok((v, timeline))) => {
                report.results_timeline = timeline;
                v
            }
            Ok(Err(e)) => {
                report.error.get_or_insert(format!("parameter server: {e}"));
                None
            }
            Err(_) => {
                report
                    .error
                    .get_or_insert("parameter server thread panicked".into());
                None
            }
        },
        Err(e) => {
            report
                .error
                .get_or_insert(format!("cannot start the PS thread: {e}"));
            None
        }
    };

    // Results.
    let finished = outcomes.iter().filter_map(|o| o.finished).max();
    let all_done = outcomes.len() == usize::from(fan_in)
        && outcomes
            .iter()
            .all(|o| o.iterations == ctx.spec.iterations && o.error.is_none());
    report.iterations_done = outcomes.iter().map(|o| o.iterations).min().unwrap_or(0);
    if let Some(f) = finished {
        report.jct_ms = ms(f - ctx.arrived);
        report.finish_ms = ms(f - ctx.start);
    }
    report.wrong_elements = outcomes.iter().map(|o| o.wrong_elements).sum();
    if let Some(t) = ctx.spec.train {
        let params = outcomes.first().and_then(|o| o.params.clone());
        // Every worker applied the same results: the same parameters, bit
        // for bit.
        if let Some(p0) = &params {
            for o in &outcomes[1..] {
                report.wrong_elements += match &o.params {
                    Some(p) => p.iter().zip(p0).filter(|(a, b)| a != b).count() as u64,
                    None => p0.len() as u64,
                };
            }
        }
        let data = Dataset::generate(&t, training_seed(ctx.seed, job_id));
        let local = train::train_locally(&t, &data, ctx.spec.iterations);
        let curve = outcomes
            .first()
            .map(|o| o.loss_curve.clone())
            .unwrap_or_default();
        if !curve.iter().all(|l| l.is_finite()) {
            report
                .error
                .get_or_insert("the training loss is not finite".into());
        }
        report.training = Some(TrainingReport::new(
            &t,
            curve,
            local,
            outcomes.first().map_or(0.0, |o| o.max_gradient_error),
        ));
    }
    report.frames_lost = ctx.meters.iter().map(LossMeter::count).sum();
    report.retransmissions = outcomes.iter().map(|o| o.resends).sum();
    report.results_from_switch = outcomes.iter().map(|o| o.results_from_switch).sum();
    report.results_from_ps = outcomes.iter().map(|o| o.results_from_ps).sum();
    if let Some(e) = outcomes.iter().find_map(|o| o.error.clone()) {
        report.error.get_or_insert(e);
    }
    if let Some(v) = volume {
        report.chunks_at_ps = v.chunks_completed;
        report.fallback_parts = v.fallback_parts;
        report.evicted_parts = v.evicted_parts;
        report.flush_parts = v.flush_parts;
    }
    match ctx
        .runtime
        .block_on(ctx.controller.stats(&[u32::from(job_id)]))
    {
        Ok(stats) => {
            for s in stats {
                report.switch_counters = s.counters.into_iter().collect();
            }
            report.chunks_in_switch = report.counter("completed");
            report.evictions_suffered = report.counter("evictions_suffered");
            report.preemptions = report.counter("preemptions");
        }
        Err(e) => {
            report
                .error
                .get_or_insert(format!("cannot read the switch counters: {e}"));
        }
    }
    if let Err(e) = ctx
        .runtime
        .block_on(ctx.controller.release(u32::from(job_id)))
    {
        report.error.get_or_insert(format!("release failed: {e}"));
    }
    report.finish_shares();
    report.verified = all_done && report.wrong_elements == 0 && report.error.is_none();
    let state = if report.verified { FINISHED } else { FAILED };
    ctx.progress[ctx.index]
        .state
        .store(state, Ordering::Relaxed);
    report
}

/// What a worker thread runs for.
struct WorkerRun<'a> {
    spec: &'a JobSpec,
    job: u16,
    worker_id: u8,
    seed: u64,
    progress: &'a Progress,
}

/// How often the PS samples its counters for the results timeline.
const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// The seed of job `job`'s training data set.
pub fn training_seed(seed: u64, job: u16) -> u64 {
    seed ^ (u64::from(job) << 32)
}

fn iteration_done(run: &WorkerRun<'_>, it: u32, out: &mut WorkerOutcome) {
    out.iterations = it + 1;
    out.finished = Some(Instant::now());
    if run.worker_id == 0 {
        run.progress.done.store(it + 1, Ordering::Relaxed);
    }
}

/// Trains the job's model on one worker: each iteration computes the
/// gradient of its shard, all-reduces it (the sum of shard sums over the
/// sample count: the full-batch mean) and takes a descent step. Worker 0
/// also evaluates the full-data loss and the all-reduce's error against
/// the float64 gradient.
fn train_model<T: esa_host::transport::Transport>(
    worker: &mut Worker<T>,
    run: &WorkerRun<'_>,
    spec: &train::TrainSpec,
    out: &mut WorkerOutcome,
) {
    let data = Dataset::generate(spec, training_seed(run.seed, run.job));
    let workers = usize::from(run.spec.workers);
    let w = usize::from(run.worker_id);
    let mut params = vec![0.0f64; spec.params()];
    let mut gradient = vec![0f32; spec.params()];
    let first = run.worker_id == 0;
    if first {
        out.loss_curve.push(data.loss(&params));
    }
    for it in 0..run.spec.iterations {
        std::thread::sleep(Duration::from_micros(run.spec.compute_us));
        train::shard_gradient(&data, &params, w, workers, &mut gradient);
        if let Err(e) = worker.allreduce(&mut gradient) {
            out.error = Some(format!("worker {w}, iteration {it}: {e}"));
            return;
        }
        if first {
            let exact = train::full_gradient(&data, &params);
            let error = gradient
                .iter()
                .zip(&exact)
                .map(|(g, e)| (f64::from(*g) - e).abs())
                .fold(0.0, f64::max);
            out.max_gradient_error = out.max_gradient_error.max(error);
        }
        train::step(
            &mut params,
            gradient.iter().map(|g| f64::from(*g)),
            spec.learning_rate,
        );
        if first {
            out.loss_curve.push(data.loss(&params));
        }
        iteration_done(run, it, out);
    }
    out.params = Some(params);
}

/// Runs the job's iterations on one worker: compute, then all-reduce
/// integer-valued gradients and compare with the exact sum.
fn sum_synthetic<T: esa_host::transport::Transport>(
    worker: &mut Worker<T>,
    run: &WorkerRun<'_>,
    out: &mut WorkerOutcome,
) {
    let spec = run.spec;
    let (job, worker_id, seed) = (run.job, run.worker_id, run.seed);
    let n = spec.gradient_elems;
    let mut data = vec![0f32; n];
    for it in 0..spec.iterations {
        std::thread::sleep(Duration::from_micros(spec.compute_us));
        for (i, x) in data.iter_mut().enumerate() {
            *x = gradient_value(seed, job, worker_id, it, i);
        }
        if let Err(e) = worker.allreduce(&mut data) {
            out.error = Some(format!("worker {worker_id}, iteration {it}: {e}"));
            return;
        }
        let wrong = data
            .iter()
            .enumerate()
            .filter(|(i, got)| {
                let want: f32 = (0..spec.workers)
                    .map(|w| gradient_value(seed, job, w, it, *i))
                    .sum();
                want != **got
            })
            .count();
        out.wrong_elements += wrong as u64;
        iteration_done(run, it, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(state: u8, done: u32, chunks: u64) -> Progress {
        Progress {
            name: "a".into(),
            iterations: 10,
            done: AtomicU32::new(done),
            chunks: AtomicU64::new(chunks),
            chunks_total: 40,
            state: AtomicU8::new(state),
        }
    }

    #[test]
    fn bars_show_chunks_iterations_and_state() {
        assert_eq!(
            job(WAITING, 0, 0).shown(),
            (0, "0/10 iterations (waiting)".into())
        );
        assert_eq!(
            job(RUNNING, 3, 13).shown(),
            (13, "3/10 iterations (running)".into())
        );
        // Chunks seen twice never overflow the bar.
        assert_eq!(
            job(RUNNING, 9, 45).shown(),
            (40, "9/10 iterations (running)".into())
        );
        // A finished job is full even when its PS missed a RESULT.
        assert_eq!(
            job(FINISHED, 10, 38).shown(),
            (40, "10/10 iterations (finished)".into())
        );
        assert_eq!(
            job(FAILED, 2, 9).shown(),
            (9, "2/10 iterations (failed)".into())
        );
        // spawn_progress draws nothing if the template does not parse.
        assert!(ProgressStyle::with_template(BAR_TEMPLATE).is_ok());
    }

    #[test]
    fn progress_thread_stops_when_told() {
        let jobs = Arc::new(vec![job(RUNNING, 1, 4), job(WAITING, 0, 0)]);
        let stop = Arc::new(AtomicBool::new(false));
        let thread = spawn_progress("esa".into(), Arc::clone(&jobs), Arc::clone(&stop)).unwrap();
        jobs[0].state.store(FINISHED, Ordering::Relaxed);
        stop.store(true, Ordering::Relaxed);
        thread.join().unwrap();
    }
}
