//! The emulated variant runner: a switch target and a fabric. Each variant
//! gets a fresh switch on freshly laid links (and, on the netns fabric,
//! fresh namespaces) and a fresh controller; jobs are admitted at their
//! arrival times and run on threads of this process
//! ([`super::spawn_job`]: this is a child of [`crate::run`] to reach the
//! job's run).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use esa_controller::fabric::FabricController;
use esa_controller::jobs::{Endpoint, JobRequest, SlotRequest};
use esa_controller::{ControllerConfig, GrpcSwitch, Health, Pipeline, Role};
use esa_harness::control::{self, stopped};
use tokio::sync::watch;

use super::control::{Admitted, Control};
use super::layout::HostPlan;
use super::{
    FAILED, JobContext, Progress, RUNNING, RunOptions, Setup, VariantRunner, WAITING, ms,
    spawn_job, spawn_progress,
};
use crate::counters::{CounterDeltas, SAMPLE_EVERY};
use crate::error::TestbedError;
use crate::experiment::{Experiment, Variant};
use crate::fabric::{AttachedHosts, Cabling, Fabric, PortKind};
use crate::fault::{Fault, FaultKind, FaultReport};
use crate::report::{JobReport, VariantReport};
use crate::switch_target::{RunningSwitch, StartOptions, SwitchTarget};

/// Variants on a switch `target` starts, its hosts on `fabric`.
#[derive(Debug)]
pub struct Emulated {
    target: Arc<dyn SwitchTarget>,
    fabric: Arc<dyn Fabric>,
    options: RunOptions,
    start: StartOptions,
    /// With a `[topology]`: its racks and spines, a switch each.
    racks: Option<(u16, u16)>,
    /// Loaded (for BMv2, compiled) at the first variant, pushed to each
    /// variant's switch.
    pipeline: Option<Pipeline>,
}

impl Emulated {
    /// Runs `experiment`'s variants on switches `target` starts, its hosts
    /// on `fabric`.
    pub fn new(
        target: Arc<dyn SwitchTarget>,
        fabric: Arc<dyn Fabric>,
        experiment: &Experiment,
        options: &RunOptions,
    ) -> Emulated {
        Emulated {
            target,
            fabric,
            start: options.start_options(&experiment.name),
            options: options.clone(),
            racks: experiment.topology.as_ref().map(|t| (t.racks, t.spines)),
            pipeline: None,
        }
    }

    /// The pipeline, loaded or compiled once.
    fn pipeline(&mut self, experiment: &Experiment) -> Result<Pipeline, TestbedError> {
        if let Some(pipeline) = &self.pipeline {
            return Ok(pipeline.clone());
        }
        let defines =
            esa_p4::Defines::new(experiment.switch.lanes, experiment.switch.pool_slots).pairs();
        let pipeline = self
            .target
            .pipeline(&program_path(experiment), &defines, &self.start)?;
        Ok(self.pipeline.insert(pipeline).clone())
    }

    /// The variant's links and switches: the fabric cables the hosts and
    /// the switches' links, the target starts each switch on its far ends
    /// (several each in a folder of the work folder named after it), the
    /// hosts attach to them.
    fn stage(&self, experiment: &Experiment, plan: &HostPlan) -> Result<Stage, TestbedError> {
        let mut cabling = self.fabric.cable(experiment, &plan.wiring())?;
        let mut switches = Vec::new();
        for (i, planned) in plan.switches.iter().enumerate() {
            let start = match plan.switches.len() {
                1 => self.start.clone(),
                _ => StartOptions {
                    work_dir: self.start.work_dir.join(&planned.name),
                    ..self.start.clone()
                },
            };
            switches.push(self.target.start(cabling.switch_ports(i), &start)?);
        }
        let hosts = cabling.attach(&mut switches)?;
        Ok(Stage {
            hosts,
            switches,
            cabling,
        })
    }

    /// What racks under spines need here: switches this process starts
    /// (one each), kept running (a cable between two in-memory ports does
    /// not follow a restart).
    fn check_racks(&self, restarts: bool) -> Result<(), TestbedError> {
        if self.fabric.port_kind() == PortKind::Own {
            return Err(TestbedError::Setup(format!(
                "[topology]: racks under spines need a switch per ToR and spine, started here; \
                 --switch {} is one switch somebody else runs",
                self.target.name()
            )));
        }
        if restarts {
            return Err(TestbedError::Setup(
                "--fault switch-restart: with a [topology] there are several switches, and \
                 restarting one is not offered yet"
                    .into(),
            ));
        }
        Ok(())
    }
}

impl VariantRunner for Emulated {
    fn setup(&self) -> Setup {
        let switch = self.target.describe(self.fabric.port_kind());
        let switches = match self.racks {
            None => switch,
            Some((racks, spines)) => {
                let plural = |n: u16, one: &str| match n {
                    1 => format!("1 {one}"),
                    n => format!("{n} {one}s"),
                };
                format!(
                    "{} and {}, each {switch}",
                    plural(racks, "ToR"),
                    plural(spines, "spine")
                )
            }
        };
        Setup {
            description: format!("{switches}; {}", self.fabric.hosts_description()),
            switch: self.target.name(),
            fabric: self.fabric.name(),
        }
    }

    fn makes_namespaces(&self) -> bool {
        self.fabric.makes_namespaces()
    }

    fn cleans_up_on_interrupt(&self) -> bool {
        true
    }

    fn preflight(&self, experiment: &Experiment) -> Result<(), TestbedError> {
        let restarts = self
            .options
            .faults
            .iter()
            .any(|f| matches!(f.kind, FaultKind::SwitchRestart { .. }));
        let link_faults = self
            .options
            .faults
            .iter()
            .any(|f| matches!(f.kind, FaultKind::LinkDown { .. }));
        if link_faults && !self.fabric.links_go_down() {
            return Err(TestbedError::Setup(format!(
                "--fault link-down: the {} fabric's links cannot be taken down; use --fabric \
                 netns",
                self.fabric.name()
            )));
        }
        if restarts && !self.target.restartable() {
            return Err(TestbedError::Setup(
                "--fault switch-restart: esa run cannot crash a switch it did not start \
                 (--switch external); restart that switch yourself while the run goes on: the \
                 controller programs it again and the hosts carry on"
                    .into(),
            ));
        }
        if let Some(f) = self.options.faults.iter().find(|f| match f.kind {
            FaultKind::SwitchRestart { down } => down >= self.options.switch_lost_after,
            FaultKind::LinkDown { .. } => false,
        }) {
            return Err(TestbedError::Setup(format!(
                "--fault {f}: the switch would stay down past the {:?} after which a run gives \
                 a lost switch up",
                self.options.switch_lost_after
            )));
        }
        if experiment.topology.is_some() {
            self.check_racks(restarts)?;
        }
        self.target.preflight(experiment)?;
        self.fabric.preflight(experiment)?;
        if let Some(v) = experiment.variants.iter().find(|v| !v.in_network) {
            return Err(TestbedError::Invalid(format!(
                "variant {:?} (no in-network aggregation) runs on the sim fabric only",
                v.label
            )));
        }
        let program = program_path(experiment);
        if experiment.switch.program.is_none() && !program.is_file() {
            return Err(TestbedError::Setup(format!(
                "the built-in P4 program {} is not there (was the source tree moved?): \
                 give its path as `program` in [switch]",
                program.display()
            )));
        }
        Ok(())
    }

    fn run_variant(
        &mut self,
        experiment: &Experiment,
        variant: &Variant,
    ) -> Result<VariantReport, TestbedError> {
        let pipeline = self.pipeline(experiment)?;
        let options = &self.options;
        if options.progress {
            eprintln!("== {}: variant {}", experiment.name, variant.label);
        }
        let jobs = experiment.jobs_for(variant);
        let plan = HostPlan::place(&*self.fabric, experiment, variant, &jobs)?;

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("esa-testbed-rt")
            .enable_all()
            .build()
            .map_err(|e| TestbedError::start("tokio runtime", e))?;
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut stage = self.stage(experiment, &plan)?;
        let config = control::controller_config(
            experiment.switch.pool_slots,
            experiment.switch.stale_after_ms.map(|ms| ms * 1000),
        );
        let started = start_control(
            &runtime,
            &plan,
            &stage.switches,
            &pipeline,
            &config,
            &stop_rx,
            options.setup_timeout,
        );
        let (control, supervisors) = match started {
            Ok(started) => started,
            Err(e) => {
                let _ = stop_tx.send(true);
                return Err(e);
            }
        };

        // Stops every worker when a switch stays out of reach or the run
        // is interrupted; its result says which.
        let abort = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let abort = Arc::clone(&abort);
            let switches = stage.switches.iter().map(|s| s.p4runtime.clone());
            let healths: Vec<_> = switches.zip(control.healths()).collect();
            let after = options.switch_lost_after;
            let interrupt = Arc::clone(&options.interrupt);
            runtime.spawn(async move {
                let stopped = tokio::select! {
                    (p4runtime, last_error) = any_switch_lost(healths, after) => {
                        Stopped::SwitchLost { p4runtime, last_error }
                    }
                    () = interrupted(interrupt) => Stopped::Interrupted,
                };
                abort.store(true, Ordering::SeqCst);
                stopped
            })
        };
        let counters: RunCounters = Arc::default();
        let sampler = runtime.spawn(sample_counters(Arc::clone(&control), Arc::clone(&counters)));

        let progress: Arc<Vec<Progress>> = Arc::new(
            jobs.iter()
                .map(|j| Progress {
                    name: j.name.clone(),
                    iterations: j.iterations,
                    done: AtomicU32::new(0),
                    chunks: AtomicU64::new(0),
                    chunks_total: j.chunks_per_iteration(experiment.switch.lanes)
                        * u64::from(j.iterations),
                    state: AtomicU8::new(WAITING),
                })
                .collect(),
        );
        let stop_progress = Arc::new(AtomicBool::new(false));
        let progress_thread = options
            .progress
            .then(|| {
                spawn_progress(
                    variant.label.clone(),
                    Arc::clone(&progress),
                    Arc::clone(&stop_progress),
                )
            })
            .flatten();

        let start = Instant::now();
        let switch_addr = stage.switches[0].switch_addr;
        let restarts = Arc::new(AtomicU32::new(0));
        let Stage {
            hosts: hosts_of_stage,
            switches: running_switches,
            cabling,
        } = &mut stage;
        let mut admitted: Vec<u16> = Vec::new();
        let (reports, faults) = std::thread::scope(|scope| {
            // Closed when the jobs are over: a fault not struck by then
            // never strikes.
            let (jobs_over, over) = mpsc::channel::<()>();
            let injector = {
                let (health, runtime) = (control.healths().remove(0), runtime.handle().clone());
                let (faults, timeout) = (&options.faults, options.setup_timeout);
                let restarts = Arc::clone(&restarts);
                scope.spawn(move || {
                    let injector = Injector {
                        switch: &mut running_switches[0],
                        cabling,
                        start,
                        over: &over,
                        runtime: &runtime,
                        health,
                        timeout,
                        restarts: &restarts,
                    };
                    injector.inject(faults)
                })
            };
            let mut order: Vec<usize> = (0..jobs.len()).collect();
            order.sort_by_key(|&i| jobs[i].arrival_us);
            let mut running: Vec<(usize, JoinHandle<JobReport>)> = Vec::new();
            let mut reports: Vec<Option<JobReport>> = vec![None; jobs.len()];
            for i in order {
                let spec = jobs[i].clone();
                let at = start + Duration::from_micros(spec.arrival_us);
                while let Some(wait) = at.checked_duration_since(Instant::now()) {
                    if abort.load(Ordering::SeqCst) {
                        break;
                    }
                    std::thread::sleep(wait.min(Duration::from_millis(100)));
                }
                if abort.load(Ordering::SeqCst) {
                    progress[i].state.store(FAILED, Ordering::Relaxed);
                    continue;
                }
                let arrived = Instant::now();
                let hosts = &plan.jobs[i];
                let request = JobRequest {
                    job_id: u32::try_from(i + 1).unwrap_or(0),
                    workers: hosts
                        .workers
                        .iter()
                        .map(|h| Endpoint::Host(h.host.name.clone()))
                        .collect(),
                    ps: Some(Endpoint::Host(hosts.ps.host.name.clone())),
                    max_priority: u32::from(spec.priority),
                    mode: Some(spec.mode),
                    slots: spec.slots.map(|count| SlotRequest {
                        base: spec.slot_base,
                        count,
                    }),
                };
                let mut report = JobReport::new(&variant.label, &spec, experiment.switch.lanes);
                report.arrival_ms = ms(arrived - start);
                let admission = runtime
                    .block_on(admit(&control, &request, &counters))
                    .map_err(|e| report.error = Some(e));
                let Ok(Admitted { job, tree }) = admission else {
                    progress[i].state.store(FAILED, Ordering::Relaxed);
                    reports[i] = Some(report);
                    continue;
                };
                admitted.push(job.id);
                progress[i].state.store(RUNNING, Ordering::Relaxed);
                let ports: Vec<u16> = hosts
                    .workers
                    .iter()
                    .chain([&hosts.ps])
                    .map(|h| h.host.port)
                    .collect();
                report.racks = experiment
                    .placements
                    .get(i)
                    .map_or(0, |p| u8::try_from(p.racks.len()).unwrap_or(u8::MAX));
                let ctx = JobContext {
                    spec,
                    job,
                    tree,
                    seed: experiment.seed,
                    lanes: experiment.switch.lanes,
                    switch_addr,
                    start,
                    arrived,
                    report,
                    progress: Arc::clone(&progress),
                    index: i,
                    control: Arc::clone(&control),
                    counters: Arc::clone(&counters),
                    runtime: runtime.handle().clone(),
                    abort: Arc::clone(&abort),
                    meters: ports
                        .iter()
                        .filter_map(|p| hosts_of_stage.meters.get(p).cloned())
                        .collect(),
                    restarts: Arc::clone(&restarts),
                };
                let links = take_links(&mut hosts_of_stage.transports, &ports)?;
                running.push((i, spawn_job(ctx, links)?));
            }
            for (i, handle) in running {
                let report = handle.join().unwrap_or_else(|_| {
                    let mut r = JobReport::new(&variant.label, &jobs[i], experiment.switch.lanes);
                    r.error = Some("the job's thread panicked".into());
                    r
                });
                reports[i] = Some(report);
            }
            drop(jobs_over);
            let faults = injector.join().unwrap_or_default();
            Ok::<_, TestbedError>((reports, faults))
        })?;

        let wall_ms = (ms(start.elapsed()) * 1000.0).round() / 1000.0;
        sampler.abort();
        watchdog.abort();
        // `Ok` only if it had finished: the switch was lost or the run
        // interrupted.
        let stopped = runtime.block_on(watchdog).ok();
        if stopped == Some(Stopped::Interrupted) {
            runtime.block_on(control.clean_up_interrupted(&admitted));
        }
        stop_progress.store(true, Ordering::Relaxed);
        if let Some(t) = progress_thread {
            let _ = t.join();
        }
        let _ = stop_tx.send(true);
        runtime.block_on(async {
            for supervisor in supervisors {
                let _ = supervisor.await;
            }
        });
        runtime.shutdown_timeout(Duration::from_secs(2));
        // The switch processes, then the namespaces their ports were in.
        drop(stage);
        match stopped {
            Some(Stopped::SwitchLost {
                p4runtime,
                last_error,
            }) => {
                return Err(TestbedError::SwitchLost {
                    p4runtime,
                    after: options.switch_lost_after,
                    last_error,
                });
            }
            Some(Stopped::Interrupted) => return Err(TestbedError::Interrupted),
            None => {}
        }
        Ok(VariantReport {
            variant: variant.label.clone(),
            wall_ms,
            jobs: reports.into_iter().flatten().collect(),
            cluster: None,
            faults,
        })
    }
}

/// A controller per switch of `plan` (running as `switches`), each with
/// the hosts behind it and `pipeline` and `config`, stopping when `stop`
/// says so; several under a fabric controller. Returns once every one has
/// programmed its switch (or the first that has not after `timeout`, as
/// an error), with their supervising tasks.
fn start_control(
    runtime: &tokio::runtime::Runtime,
    plan: &HostPlan,
    switches: &[RunningSwitch],
    pipeline: &Pipeline,
    config: &ControllerConfig,
    stop: &watch::Receiver<bool>,
    timeout: Duration,
) -> Result<(Arc<Control>, Vec<tokio::task::JoinHandle<()>>), TestbedError> {
    let fabric = plan.fabric_topology(switches)?;
    let mut controllers = BTreeMap::new();
    let mut supervisors = Vec::new();
    for (planned, switch) in plan.switches.iter().zip(switches) {
        let hosts = match &fabric {
            Some(fabric) => fabric.switch_topology(&planned.name).ok_or_else(|| {
                TestbedError::Setup(format!("no switch {} in the fabric", planned.name))
            })?,
            None => plan.topology(),
        };
        let control::Supervised { controller, task } = control::start_controller(
            runtime,
            GrpcSwitch::new(&switch.p4runtime, switch.device_id, 1)
                .with_security(switch.security.clone())
                .with_role(&switch.role),
            pipeline.clone(),
            hosts,
            config.clone(),
            stopped(stop.clone()),
        )?;
        supervisors.push(task);
        controllers.insert(planned.name.clone(), controller);
    }
    for (planned, switch) in plan.switches.iter().zip(switches) {
        if let Err(last) = control::wait_programmed(runtime, &controllers[&planned.name], timeout) {
            return Err(control::not_programmed(&switch.p4runtime, timeout, last).into());
        }
    }
    let control = match fabric {
        None => Control::Switch(
            controllers
                .into_values()
                .next()
                .ok_or_else(|| TestbedError::Setup("a variant without a switch".into()))?,
        ),
        Some(fabric) => Control::Fabric {
            fabric: Arc::new(
                FabricController::new(fabric, controllers)
                    .map_err(|e| TestbedError::start("the fabric controller", e))?,
            ),
            order: plan.switches.iter().map(|s| s.name.clone()).collect(),
        },
    };
    Ok((Arc::new(control), supervisors))
}

/// The P4 program the experiment names, or `p4/v1model/esa.p4` of this
/// source tree (`p4/tna/esa.p4` for `arch = "tna"`).
pub fn program_path(experiment: &Experiment) -> PathBuf {
    experiment
        .switch
        .program
        .clone()
        .unwrap_or_else(|| experiment.switch.arch.program())
}

/// A variant's switches and the links to them. Fields drop in order: the
/// hosts' ends, the switches (processes), then the cabling (the
/// namespaces their ports were in).
#[derive(Debug)]
struct Stage {
    hosts: AttachedHosts,
    switches: Vec<RunningSwitch>,
    /// Held for its Drop (removes the links); takes one down for a fault.
    cabling: Box<dyn Cabling>,
}

/// Takes the links of `ports` (workers first, the PS last).
fn take_links<T>(links: &mut BTreeMap<u16, T>, ports: &[u16]) -> Result<Vec<T>, TestbedError> {
    ports
        .iter()
        .map(|p| {
            links
                .remove(p)
                .ok_or_else(|| TestbedError::Setup(format!("no link for switch port {p}")))
        })
        .collect()
}

/// What injects a variant's faults: the switch, the clock, and how to
/// see the controller programming it again.
struct Injector<'a> {
    switch: &'a mut RunningSwitch,
    /// The links, to take one down.
    cabling: &'a mut Box<dyn Cabling>,
    /// The variant's start: faults are timed from it.
    start: Instant,
    /// Closes when the jobs are over: later faults never strike.
    over: &'a mpsc::Receiver<()>,
    runtime: &'a tokio::runtime::Handle,
    health: watch::Receiver<Health>,
    /// How long the controller may take to program a restarted switch.
    timeout: Duration,
    /// Restarts so far, for the jobs' reports.
    restarts: &'a AtomicU32,
}

impl Injector<'_> {
    /// Injects `faults` in time order; after a restart, waits for the
    /// controller to have pushed the pipeline and synced the jobs again.
    fn inject(mut self, faults: &[Fault]) -> Vec<FaultReport> {
        let mut faults = faults.to_vec();
        faults.sort_by_key(|f| f.at);
        let mut reports = Vec::new();
        for fault in &faults {
            let wait = (self.start + fault.at).saturating_duration_since(Instant::now());
            if !matches!(
                self.over.recv_timeout(wait),
                Err(mpsc::RecvTimeoutError::Timeout)
            ) {
                reports.push(FaultReport::not_struck(fault, "the jobs were over first"));
                continue;
            }
            reports.push(self.strike(fault));
        }
        reports
    }

    fn strike(&mut self, fault: &Fault) -> FaultReport {
        let struck = Instant::now();
        let mut report = FaultReport::struck(fault, self.start, struck);
        let pushes = self.health.borrow().pipeline_pushes;
        match fault.kind {
            FaultKind::SwitchRestart { down } => {
                eprintln!("fault: {fault}: the switch crashes");
                self.restarts.fetch_add(1, Ordering::SeqCst);
                if let Err(e) = self.switch.restart(down) {
                    report.error = Some(format!("the switch did not come back: {e}"));
                    return report;
                }
            }
            FaultKind::LinkDown { port, down } => {
                eprintln!("fault: {fault}: the link goes down");
                let flapped = self.cabling.set_link(port, false).and_then(|()| {
                    std::thread::sleep(down);
                    self.cabling.set_link(port, true)
                });
                report.down_ms = ms(struck.elapsed());
                if let Err(e) = flapped {
                    report.error = Some(e.to_string());
                } else {
                    eprintln!(
                        "fault: {fault}: the link was up again after {:.0} ms",
                        report.down_ms
                    );
                }
                return report;
            }
        }
        report.down_ms = ms(struck.elapsed());
        let mut health = self.health.clone();
        let timeout = self.timeout;
        let programmed = self.runtime.block_on(async move {
            tokio::time::timeout(
                timeout,
                health.wait_for(|h| {
                    h.role == Role::Primary && h.synced && h.pipeline_pushes > pushes
                }),
            )
            .await
            .is_ok_and(|r| r.is_ok())
        });
        if programmed {
            report.reprogrammed_ms = Some(ms(struck.elapsed()));
            eprintln!(
                "fault: {fault}: the switch was back after {:.0} ms, programmed again after \
                 {:.0} ms",
                report.down_ms,
                ms(struck.elapsed())
            );
        } else {
            report.error = Some(format!(
                "the controller had not programmed the switch again {timeout:?} after it came \
                 back"
            ));
        }
        report
    }
}

/// Why a variant stopped before its jobs finished.
#[derive(Debug, PartialEq, Eq)]
enum Stopped {
    /// A switch (at its P4Runtime address) stayed out of reach; its
    /// controller's last error.
    SwitchLost {
        p4runtime: String,
        last_error: String,
    },
    /// [`RunOptions::interrupt`] was raised.
    Interrupted,
}

/// Completes once `interrupt` is raised.
async fn interrupted(interrupt: Arc<AtomicBool>) {
    while !interrupt.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every admitted job's counters since its admission, by job id; a job's
/// entry goes when its thread takes the final reading.
pub(super) type RunCounters = Arc<Mutex<BTreeMap<u16, CounterDeltas>>>;

/// Admits `request`'s job and takes its counters' starting values (what
/// an earlier run on the same switch left there). A job whose counters
/// cannot be read is released again: its report could not be told apart
/// from the earlier run's.
async fn admit(
    control: &Control,
    request: &JobRequest,
    counters: &RunCounters,
) -> Result<Admitted, String> {
    let admitted = control
        .admit(request)
        .await
        .map_err(|e| format!("admission refused: {e}"))?;
    let id = admitted.job.id;
    let read = async {
        let stats = control.stats(&[u32::from(id)]).await?;
        let mut admitted = admitted;
        if let Some(tree) = &mut admitted.tree {
            tree.completed_at_admission = control.completed_by_level(id, tree).await?;
        }
        Ok::<_, String>((stats, admitted))
    };
    match read.await {
        Ok((stats, admitted)) => {
            let start = stats.iter().flat_map(|s| &s.counters);
            let start = CounterDeltas::starting_at(start.map(|(n, v)| (n.as_str(), *v)));
            lock(counters).insert(id, start);
            Ok(admitted)
        }
        Err(e) => {
            let _ = control.release(id).await;
            Err(format!("cannot read the switch counters at admission: {e}"))
        }
    }
}

/// Reads every admitted job's counters every [`SAMPLE_EVERY`] into
/// `counters`, so that a reset of the switch's counters mid-run loses at
/// most one interval's counts (`crate::counters`); runs until aborted.
async fn sample_counters(control: Arc<Control>, counters: RunCounters) {
    loop {
        tokio::time::sleep(SAMPLE_EVERY).await;
        // A switch out of reach is the watchdog's business.
        let Ok(stats) = control.stats(&[]).await else {
            continue;
        };
        let mut counters = lock(&counters);
        for s in stats {
            if let Some(job) = counters.get_mut(&s.job) {
                job.observe(s.counters.iter().map(|(n, v)| (n.as_str(), *v)));
            }
        }
    }
}

/// The map, even if a job's thread panicked holding it (its entries are
/// whole: each update is one `observe`).
pub(super) fn lock(counters: &RunCounters) -> MutexGuard<'_, BTreeMap<u16, CounterDeltas>> {
    counters.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Completes when one of the controllers (each beside its switch's
/// P4Runtime address) has gone `after` in a row without a programmed
/// switch, with that address and the controller's last error; never while
/// every switch stays reachable.
async fn any_switch_lost(
    healths: Vec<(String, watch::Receiver<Health>)>,
    after: Duration,
) -> (String, String) {
    let mut watching = tokio::task::JoinSet::new();
    for (p4runtime, health) in healths {
        watching.spawn(async move { (p4runtime, switch_lost(health, after).await) });
    }
    match watching.join_next().await {
        Some(Ok(lost)) => lost,
        _ => std::future::pending().await,
    }
}

/// Completes when the controller has gone `after` in a row without a
/// programmed switch (primary and in sync), with its last error; never
/// while the switch stays reachable.
async fn switch_lost(mut health: watch::Receiver<Health>, after: Duration) -> String {
    let ready = |h: &Health| h.role == Role::Primary && h.synced;
    loop {
        if health.wait_for(|h| !ready(h)).await.is_err() {
            return std::future::pending().await;
        }
        let back = tokio::time::timeout(after, health.wait_for(ready))
            .await
            .map(|r| r.is_ok());
        match back {
            Ok(true) => continue,
            Ok(false) => return std::future::pending().await,
            Err(_) => {
                let last = health.borrow();
                return last
                    .last_error
                    .clone()
                    .unwrap_or_else(|| format!("{:?}", last.role));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(role: Role, synced: bool, last_error: Option<&str>) -> Health {
        Health {
            role,
            synced,
            syncs: 1,
            pipeline_pushes: 1,
            last_error: last_error.map(String::from),
            primary_lost: 0,
        }
    }

    #[test]
    fn a_switch_is_lost_only_when_it_stays_out_of_reach() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let (tx, rx) = watch::channel(health(Role::Primary, true, None));
        let after = Duration::from_millis(300);
        let lost = rt.spawn(switch_lost(rx, after));
        rt.block_on(async {
            // Flaps shorter than `after` are forgiven.
            for _ in 0..3 {
                tx.send_replace(health(Role::Disconnected, false, Some("refused")));
                tokio::time::sleep(Duration::from_millis(100)).await;
                tx.send_replace(health(Role::Primary, true, None));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            assert!(!lost.is_finished(), "a reconnecting switch is not lost");
            // Primary but out of sync counts as out of reach too.
            tx.send_replace(health(Role::Primary, false, Some("sync failed")));
            tokio::time::sleep(Duration::from_millis(100)).await;
            tx.send_replace(health(Role::Disconnected, false, Some("refused")));
            let started = Instant::now();
            let last = lost.await.unwrap();
            assert_eq!(last, "refused");
            assert!(started.elapsed() >= Duration::from_millis(150));
        });
    }

    #[test]
    fn the_first_switch_lost_of_several_stops_the_run_and_is_named() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let (a, a_rx) = watch::channel(health(Role::Primary, true, None));
        let (b, b_rx) = watch::channel(health(Role::Primary, true, None));
        let healths = vec![("a:1".to_string(), a_rx), ("b:2".to_string(), b_rx)];
        let lost = rt.spawn(any_switch_lost(healths, Duration::from_millis(200)));
        rt.block_on(async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(!lost.is_finished(), "every switch is reachable");
            b.send_replace(health(Role::Disconnected, false, Some("refused")));
            let (p4runtime, last_error) = lost.await.unwrap();
            assert_eq!(
                (p4runtime.as_str(), last_error.as_str()),
                ("b:2", "refused")
            );
        });
        drop(a);
    }
}
