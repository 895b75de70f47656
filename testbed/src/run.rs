//! Running an experiment: [`run_experiment`] settles where it runs (a
//! [`VariantRunner`]: emulated, a switch target and a fabric, or
//! simulated, in virtual time), checks before anything starts that it can
//! run there, and runs each variant.
//!
//! - [`Emulated`]: a switch ([`crate::switch_target`]: esa-switch in
//!   process, BMv2, or an external one), the controller against it over
//!   P4Runtime, and every job's parameter server and workers on threads
//!   of this process, on the hosts' links ([`crate::fabric`]: in-memory
//!   ports, namespaces, a hosts file's addresses). With a `[topology]`, a
//!   switch per ToR and spine (`layout`), a controller each and the
//!   fabric controller over them (`control`): a job across racks runs as
//!   an aggregation tree. One variant runs at a time, each on fresh
//!   switches, fresh links and fresh controllers.
//! - [`Simulated`]: the pool model in virtual time
//!   ([`crate::virtual_time`]).
//!
//! A job's run (its PS and workers on threads, the synthetic sums and the
//! training loop, checked against the exact result) and the progress bars
//! live here too.

mod control;
mod emulated;
mod layout;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use esa_controller::jobs::Job;
use esa_core::constants::esa_frame_len;
use esa_core::plan::JobPlan;
use esa_core::rtt::Rto;
use esa_harness::jobs::SyntheticSums;
use esa_harness::runner::{self, Hosts, JobObserver, PsFailure, Watch, WorkerRun, Workload};
use esa_host::transport::Transport;
use esa_host::worker::Worker;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::error::TestbedError;
use crate::experiment::{Experiment, FabricKind, JobSpec, Variant};
use crate::fabric::{self, LossMeter};
use crate::report::{ExperimentReport, JobReport, TrainingReport, VariantReport};
use crate::switch_target::{EmbeddedTarget, StartOptions, SwitchTarget};
use crate::train::{self, Dataset, Training, TrainingOutcome, training_seed};
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
    /// Faults to inject while the jobs run (`esa run --fault`), each in
    /// every variant, timed from the variant's start.
    pub faults: Vec<crate::fault::Fault>,
    /// Raised (by a SIGINT or SIGTERM handler, say) to stop the run: the
    /// workers stop, every job admitted is released through the
    /// controller, the switch and the links (namespaces) are torn down,
    /// and the run ends with [`TestbedError::Interrupted`]. Emulated runs
    /// only ([`cleans_up_on_interrupt`]).
    pub interrupt: Arc<AtomicBool>,
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
            faults: Vec::new(),
            interrupt: Arc::default(),
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

    /// Whether it stops on [`RunOptions::interrupt`], releasing what it
    /// admitted; a runner that does not leaves nothing behind but the
    /// namespaces it made, and may be stopped outright.
    fn cleans_up_on_interrupt(&self) -> bool {
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
        if !options.faults.is_empty() {
            return Err(setup(
                "--fault needs a running switch to crash: the sim fabric runs the pool model",
            ));
        }
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

/// Whether running `experiment` with `options` stops on
/// [`RunOptions::interrupt`] (cleaning up after itself), so that a signal
/// handler should raise it and wait rather than exit.
pub fn cleans_up_on_interrupt(experiment: &Experiment, options: &RunOptions) -> bool {
    variant_runner(experiment, options).is_ok_and(|runner| runner.cleans_up_on_interrupt())
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
        if options.interrupt.load(Ordering::SeqCst) {
            return Err(TestbedError::Interrupted);
        }
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
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Everything a job's thread needs.
struct JobContext {
    spec: JobSpec,
    /// As admitted: a flat job's entry, a tree job's root's.
    job: Job,
    /// A job across racks: its tree.
    tree: Option<control::Tree>,
    seed: u64,
    lanes: usize,
    /// Where the job's hosts send ESA packets.
    switch_addr: SocketAddr,
    start: Instant,
    arrived: Instant,
    report: JobReport,
    progress: Arc<Vec<Progress>>,
    index: usize,
    /// The switches' controllers.
    control: Arc<control::Control>,
    /// Where the job's counters since admission are kept.
    counters: emulated::RunCounters,
    runtime: tokio::runtime::Handle,
    /// Set when the switch is lost or the run is interrupted: the workers
    /// stop.
    abort: Arc<AtomicBool>,
    /// The job's hosts' links' lost frames.
    meters: Vec<LossMeter>,
    /// Switch restarts so far in the variant (`--fault switch-restart`).
    restarts: Arc<AtomicU32>,
}

/// What a testbed job's workers run: synthetic gradients checked against
/// their exact sums, or the job's model trained through the switch.
#[derive(Debug)]
enum JobWork {
    Sums(SyntheticSums),
    Training(Training),
}

impl JobWork {
    fn of(ctx: &JobContext) -> JobWork {
        let spec = &ctx.spec;
        let compute = Duration::from_micros(spec.compute_us);
        match spec.train {
            Some(t) => JobWork::Training(Training {
                spec: t,
                data: Dataset::generate(&t, training_seed(ctx.seed, ctx.job.id)),
                workers: spec.workers,
                iterations: spec.iterations,
                compute,
            }),
            None => JobWork::Sums(SyntheticSums {
                job: ctx.job.id,
                workers: spec.workers,
                elements: spec.gradient_elems,
                iterations: spec.iterations,
                seed: ctx.seed,
                compute,
            }),
        }
    }
}

impl Workload for JobWork {
    type Extra = TrainingOutcome;

    fn run<T: Transport>(&self, worker: &mut Worker<T>, run: &mut WorkerRun<'_, TrainingOutcome>) {
        match self {
            JobWork::Sums(sums) => sums.run_iterations(worker, run),
            JobWork::Training(training) => training.run(worker, run),
        }
    }
}

impl JobObserver for Progress {
    fn iterations_done(&self, iterations: u32) {
        self.done.store(iterations, Ordering::Relaxed);
    }

    fn chunks_seen(&self, chunks: u64) {
        self.chunks.store(chunks, Ordering::Relaxed);
    }
}

/// The job's recipe: its admitted slots, the experiment's lanes, the
/// spec's window, policy and chunk total, and an experiment's timeouts.
fn job_plan(ctx: &JobContext) -> JobPlan {
    let spec = &ctx.spec;
    let mut plan = JobPlan::for_entry(ctx.job.id, &ctx.job.entry());
    plan.lanes = ctx.lanes;
    plan.window = spec.window;
    plan.policy = spec.policy;
    plan.chunks_total = Some(plan.chunks_for(spec.gradient_elems, spec.iterations));
    plan.rto = Rto::EXPERIMENT;
    plan.tree = ctx.tree.as_ref().map(|t| t.shape);
    plan
}

fn run_job<T: Transport + 'static>(ctx: JobContext, worker_links: Vec<T>, ps_link: T) -> JobReport {
    let job_id = ctx.job.id;
    let fan_in = ctx.spec.workers;
    let mut report = ctx.report.clone();
    let restarts_before = ctx.restarts.load(Ordering::SeqCst);
    let pushes_before = ctx.control.pipeline_pushes();
    let work = JobWork::of(&ctx);
    let watch = Watch {
        observer: Some(&ctx.progress[ctx.index]),
        abort: Some(Arc::clone(&ctx.abort)),
        timeline_origin: Some(ctx.start),
    };
    let places = ctx.tree.as_ref().map(|t| t.places.clone());
    let run = runner::run_job(
        &job_plan(&ctx),
        ctx.switch_addr,
        Hosts::given(worker_links, ps_link).placed(places.unwrap_or_default()),
        &work,
        &watch,
    );
    let volume = match run.ps {
        Ok(ps) => {
            report.results_timeline = ps.timeline;
            // Every ESA packet is one frame of the experiment's lanes.
            let frame = esa_frame_len(ctx.lanes) as u64;
            report.ps_bytes_received = ps.transport.received * frame;
            report.ps_bytes_sent = ps.transport.sent * frame;
            ps.volume
        }
        Err(failure) => {
            report.error.get_or_insert(match failure {
                PsFailure::Failed(e) => format!("parameter server: {e}"),
                PsFailure::Panicked => "parameter server thread panicked".into(),
                PsFailure::NotStarted(e) => format!("cannot start the PS thread: {e}"),
            });
            None
        }
    };
    let outcomes = run.workers;

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
    if let (Some(t), JobWork::Training(training)) = (ctx.spec.train, &work) {
        let params = outcomes.first().and_then(|o| o.extra.params.clone());
        // Every worker applied the same results: the same parameters, bit
        // for bit.
        if let Some(p0) = &params {
            for o in &outcomes[1..] {
                report.wrong_elements += match &o.extra.params {
                    Some(p) => p.iter().zip(p0).filter(|(a, b)| a != b).count() as u64,
                    None => p0.len() as u64,
                };
            }
        }
        let local = train::train_locally(&t, &training.data, ctx.spec.iterations);
        let curve = outcomes
            .first()
            .map(|o| o.extra.loss_curve.clone())
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
            outcomes.first().map_or(0.0, |o| o.extra.max_gradient_error),
        ));
    }
    report.frames_lost = ctx.meters.iter().map(LossMeter::count).sum();
    let stats = || outcomes.iter().filter_map(|o| o.stats.as_ref());
    report.retransmissions = stats().map(|s| s.resends).sum();
    report.probes = stats().map(|s| s.probes).sum();
    report.results_from_switch = stats().map(|s| s.results_from_switch).sum();
    report.results_from_ps = stats().map(|s| s.results_from_ps).sum();
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
        .block_on(ctx.control.stats(&[u32::from(job_id)]))
    {
        Ok(stats) => {
            let mut counters = emulated::lock(&ctx.counters);
            let mut deltas = counters.remove(&job_id).unwrap_or_default();
            for s in &stats {
                deltas.observe(s.counters.iter().map(|(n, v)| (n.as_str(), *v)));
            }
            report.switch_counters = deltas.deltas();
            report.chunks_in_switch = report.counter("completed");
            // A restart this run injected, or one the controller saw and
            // answered by programming the switch again (an external switch
            // somebody restarted; a crash whose re-push came after the job).
            let injected = ctx.restarts.load(Ordering::SeqCst) - restarts_before;
            let pushes = ctx.control.pipeline_pushes() - pushes_before;
            report.switch_restarts = injected.max(u32::try_from(pushes).unwrap_or(u32::MAX));
            if report.switch_restarts > 0 {
                // The switch's counters started again from zero: what it
                // completed is every chunk done but those the PS did (each
                // chunk completes once; the job's sums say so).
                let done =
                    ctx.spec.chunks_per_iteration(ctx.lanes) * u64::from(report.iterations_done);
                report.chunks_in_switch = done.saturating_sub(report.chunks_at_ps);
            }
            report.evictions_suffered = report.counter("evictions_suffered");
            report.preemptions = report.counter("preemptions");
            if let Some(tree) = &ctx.tree {
                levels(&ctx, tree, &mut report);
            }
        }
        Err(e) => {
            report
                .error
                .get_or_insert(format!("cannot read the switch counters: {e}"));
        }
    }
    if let Err(e) = ctx.runtime.block_on(ctx.control.release(job_id)) {
        report.error.get_or_insert(format!("release failed: {e}"));
    }
    report.finish_shares();
    if report.racks == 1 {
        report.rack_share = Some(report.in_switch_share);
    }
    report.verified = all_done && report.wrong_elements == 0 && report.error.is_none();
    let state = if report.verified { FINISHED } else { FAILED };
    ctx.progress[ctx.index]
        .state
        .store(state, Ordering::Relaxed);
    report
}

/// A tree job's figures by level, as the sim fabric reports them: the
/// chunks its root completed (its `chunks_in_switch`), the share of its
/// rack partials its leaves completed, and its racks.
fn levels(ctx: &JobContext, tree: &control::Tree, report: &mut JobReport) {
    let counts = ctx
        .runtime
        .block_on(ctx.control.completed_by_level(ctx.job.id, tree));
    match counts {
        Ok(now) => {
            let before = tree.completed_at_admission;
            let racks = tree.shape.racks();
            report.racks = racks;
            report.chunks_in_switch = now.root.saturating_sub(before.root);
            let partials = report.chunks_total * u64::from(racks);
            let leaves = now.leaves.saturating_sub(before.leaves);
            report.rack_share = (partials > 0).then(|| {
                let share = (leaves as f64 / partials as f64).min(1.0);
                (share * 10_000.0).round() / 10_000.0
            });
        }
        Err(e) => {
            report
                .error
                .get_or_insert(format!("cannot read the tree's counters: {e}"));
        }
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
