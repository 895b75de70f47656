//! Running an experiment: a switch (esa-switch in process, BMv2, or an
//! external one; see [`crate::target`]), the controller against it over
//! P4Runtime, and every job's parameter server and workers on threads of
//! this process. On the in-process fabric each host is on its own
//! in-memory switch port through a [`SwitchPortTransport`]; on the netns
//! fabric (and with an external switch) each host has a kernel UDP socket,
//! in its own network namespace.
//!
//! One variant runs at a time, each on a fresh switch, fresh namespaces
//! and a fresh controller.

use std::collections::BTreeMap;
use std::net::{SocketAddr, SocketAddrV4};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use esa_controller::jobs::{Endpoint, Job, JobRequest, SlotRequest};
use esa_controller::{Controller, GrpcSwitch, Health, Pipeline, Role, Topology};
use esa_core::constants::ESA_UDP_PORT;
use esa_core::faults::FaultConfig;
use esa_core::job::Mode;
use esa_core::job::SlotMapping;
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::synthetic::gradient_value;
use esa_core::worker::WorkerConfig;
use esa_harness::control::{self, add_host, stopped};
use esa_harness::{EmbeddedSwitch, PortLink, Ports};
use esa_host::ParameterServer;
use esa_host::transport::{
    FaultCounters, FaultyLink, HostAddress, SwitchPortTransport, Transport, UdpTransport,
};
use esa_host::worker::{Worker, WorkerOptions};
use esa_switch::SwitchConfig;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use tokio::sync::watch;

use crate::error::TestbedError;
use crate::experiment::{Experiment, JobSpec, Variant};
use crate::netns::{self, NamespaceHost, Namespaces};
use crate::report::{ExperimentReport, JobReport, TrainingReport, VariantReport};
use crate::target::{Fabric, HostsFile, SwitchProcess, SwitchTarget};
use crate::train::{self, Dataset};

use esa_host::addressing::{SWITCH_IP, SWITCH_MAC, port_host};

fn switch_addr(ip: std::net::Ipv4Addr) -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(ip, ESA_UDP_PORT))
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Draw a progress bar per job on stderr (when it is a terminal).
    pub progress: bool,
    /// How long the controller may take to push the pipeline and sync
    /// (and a started BMv2 to serve P4Runtime).
    pub setup_timeout: Duration,
    /// The switch that runs the data plane.
    pub switch: SwitchTarget,
    /// Where the hosts run (ignored with an external switch: the hosts
    /// file says); settle it with [`crate::target::resolve_fabric`].
    pub fabric: Fabric,
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
            switch: SwitchTarget::Embedded,
            fabric: Fabric::InProcess,
            work_dir: None,
            switch_lost_after: Duration::from_secs(10),
        }
    }
}

impl RunOptions {
    /// What runs where, for reports: `esa-switch (in process) on in-memory
    /// ports`, ...
    pub fn setup_description(&self) -> String {
        match (&self.switch, self.fabric) {
            (SwitchTarget::Embedded, Fabric::InProcess) => {
                "esa-switch (p4sim, in process); hosts on in-memory ports".into()
            }
            (SwitchTarget::Embedded, Fabric::Netns) => {
                "esa-switch (p4sim, in process) on AF_PACKET veth ports; hosts in network \
                 namespaces on kernel UDP"
                    .into()
            }
            (SwitchTarget::Bmv2(_), _) => {
                "BMv2 simple_switch_grpc on veth ports; hosts in network namespaces on kernel UDP"
                    .into()
            }
            (SwitchTarget::External(x), _) => format!(
                "external switch at {} (device {}); hosts on kernel UDP at the hosts file's \
                 addresses",
                x.p4runtime, x.device_id
            ),
        }
    }

    fn work_dir(&self, experiment: &str) -> PathBuf {
        self.work_dir.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!("esa-run-{experiment}-{}", std::process::id()))
        })
    }
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

/// Checks, before anything starts, that the experiment can run on the
/// chosen switch and fabric: root and iproute2 for namespaces, nftables
/// for loss on them, no loss injection on an external switch, enough
/// hosts in the hosts file.
pub fn preflight(experiment: &Experiment, options: &RunOptions) -> Result<(), TestbedError> {
    let loss = experiment.switch.loss > 0.0;
    if experiment.switch.arch == crate::experiment::Arch::Tna
        && matches!(options.switch, SwitchTarget::Bmv2(_))
    {
        return Err(setup(
            "switch.arch = \"tna\": BMv2 runs v1model programs only; run the Tofino program \
             on the embedded switch (p4sim's TNA) or an external Tofino",
        ));
    }
    match &options.switch {
        SwitchTarget::External(x) => {
            if loss {
                return Err(setup(
                    "switch.loss cannot be injected on an external switch's links (the \
                     testbed does not own them): remove it, or lose frames on the links \
                     yourself",
                ));
            }
            let needed = hosts_needed(&experiment.jobs);
            if x.hosts.hosts.len() < needed {
                return Err(setup(format!(
                    "the hosts file lists {} hosts; the experiment needs {needed} (every \
                     job's workers and one PS each)",
                    x.hosts.hosts.len()
                )));
            }
            if x.hosts.hosts.iter().any(|h| h.netns.is_some()) && !netns::is_root() {
                return Err(setup(
                    "the hosts file puts hosts in network namespaces; entering them needs root",
                ));
            }
            Ok(())
        }
        _ if makes_namespaces(options) => netns::preflight(loss),
        _ => Ok(()),
    }
}

/// Runs every variant of `experiment` and reports on each.
pub fn run_experiment(
    experiment: &Experiment,
    options: &RunOptions,
) -> Result<ExperimentReport, TestbedError> {
    preflight(experiment, options)?;
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
    let defines =
        esa_p4::Defines::new(experiment.switch.lanes, experiment.switch.pool_slots).pairs();
    let pipeline = match &options.switch {
        SwitchTarget::Bmv2(bmv2) => {
            let dir = options.work_dir(&experiment.name);
            if options.progress {
                eprintln!(
                    "compiling {} for BMv2 into {}",
                    program.display(),
                    dir.display()
                );
            }
            bmv2.compile(&program, &defines, &dir)?
        }
        SwitchTarget::External(x) if x.pipeline_files.is_some() => {
            let (config, p4info) = x.pipeline_files.clone().unwrap_or_default();
            Pipeline::from_files(&config, &p4info)
                .map_err(|e| TestbedError::start("loading the pipeline", e))?
        }
        _ => Pipeline::from_p4_source(&program, &defines)
            .map_err(|e| TestbedError::start("loading the P4 program", e))?,
    };
    let mut variants = Vec::new();
    for variant in &experiment.variants {
        if options.progress {
            eprintln!("== {}: variant {}", experiment.name, variant.label);
        }
        variants.push(run_variant(experiment, variant, &pipeline, options)?);
    }
    Ok(ExperimentReport {
        experiment: experiment.name.clone(),
        lanes: experiment.switch.lanes,
        pool_slots: experiment.switch.pool_slots,
        setup: options.setup_description(),
        switch: options.switch.name().into(),
        fabric: match options.switch {
            SwitchTarget::External(_) => "external".into(),
            _ => options.fabric.to_string(),
        },
        variants,
    })
}

/// Whether the run creates network namespaces.
/// Whether the run makes network namespaces (which an interrupted
/// process must remove itself: `esa_netns::remove_this_process`).
pub fn makes_namespaces(options: &RunOptions) -> bool {
    match options.switch {
        SwitchTarget::Embedded => options.fabric == Fabric::Netns,
        SwitchTarget::Bmv2(_) => true,
        SwitchTarget::External(_) => false,
    }
}

/// Hosts an experiment needs: every job's workers and one PS each.
fn hosts_needed(jobs: &[JobSpec]) -> usize {
    jobs.iter().map(|j| usize::from(j.workers) + 1).sum()
}

/// A host of the experiment's topology.
#[derive(Debug, Clone)]
struct HostPlan {
    name: String,
    address: HostAddress,
    port: u16,
    /// The namespace its socket is bound in (hosts file of an external
    /// switch; the netns fabric makes its own).
    netns: Option<String>,
}

/// Host `n` (1-based, also its switch port) of a generated topology.
fn host_plan(name: String, n: u16) -> HostPlan {
    HostPlan {
        name,
        address: port_host(n),
        port: n,
        netns: None,
    }
}

/// Job `i`'s workers and PS.
#[derive(Debug, Clone)]
struct JobHosts {
    workers: Vec<HostPlan>,
    ps: HostPlan,
}

/// The hosts of every job: generated (host *n* on port *n*), or taken in
/// order from an external switch's hosts file.
fn plan_hosts(jobs: &[JobSpec], given: Option<&HostsFile>) -> (Vec<JobHosts>, Topology) {
    let mut next: u16 = 1;
    let mut given_hosts = given.map(|f| f.hosts.iter());
    let mut take = |name: String| {
        if let Some(h) = given_hosts.as_mut().and_then(Iterator::next) {
            return HostPlan {
                name: h.host.name.clone(),
                address: HostAddress {
                    mac: h.host.mac,
                    ip: h.host.ip,
                    gateway_mac: SWITCH_MAC,
                },
                port: h.host.port,
                netns: h.netns.clone(),
            };
        }
        let h = host_plan(name, next);
        next += 1;
        h
    };
    let mut plans = Vec::new();
    for j in jobs {
        let workers = (0..j.workers)
            .map(|w| take(format!("{}-w{w}", j.name)))
            .collect();
        let ps = take(format!("{}-ps", j.name));
        plans.push(JobHosts { workers, ps });
    }
    let mut topology = Topology::default();
    for (h, _) in all_hosts(&plans) {
        add_host(&mut topology, &h.name, h.address, h.port);
    }
    (plans, topology)
}

/// The hosts' ends of their links, by switch port.
#[derive(Debug)]
enum HostLinks {
    Memory(BTreeMap<u16, SwitchPortTransport<FaultyLink<PortLink>>>),
    Udp(BTreeMap<u16, UdpTransport>),
}

/// How the frames a host's link lost are counted.
#[derive(Debug, Clone)]
enum LossMeter {
    /// The in-memory link counts them.
    Memory(Arc<FaultCounters>),
    /// The nftables rules in the host's namespace count them.
    Namespace(Arc<Namespaces>, u16),
}

impl LossMeter {
    fn count(&self) -> u64 {
        match self {
            LossMeter::Memory(n) => n.lost.load(Ordering::Relaxed),
            LossMeter::Namespace(ns, port) => ns.frames_lost(*port),
        }
    }
}

/// A variant's switch and the hosts' links to it. Fields drop in order:
/// the switch process before the namespaces its ports are in.
#[derive(Debug)]
struct Stage {
    /// Where the controller reaches the switch.
    p4runtime: String,
    device_id: u64,
    /// Where hosts send ESA packets.
    switch_addr: SocketAddr,
    hosts: HostLinks,
    /// Lost-frame counters of the links that lose frames on purpose, by
    /// port (none with an external switch).
    meters: BTreeMap<u16, LossMeter>,
    #[expect(dead_code, reason = "held for its Drop: stops the embedded switch")]
    embedded: Option<EmbeddedSwitch>,
    #[expect(dead_code, reason = "held for its Drop: kills the switch process")]
    process: Option<SwitchProcess>,
    #[expect(dead_code, reason = "held for its Drop: removes the namespaces")]
    namespaces: Option<Arc<Namespaces>>,
}

/// The loss probability of a host's link.
fn link_loss(experiment: &Experiment, ps: bool) -> f64 {
    if experiment.switch.loss_links.covers(ps) {
        experiment.switch.loss
    } else {
        0.0
    }
}

/// Every host of the plan with whether it is a PS.
fn all_hosts(plans: &[JobHosts]) -> Vec<(&HostPlan, bool)> {
    plans
        .iter()
        .flat_map(|p| p.workers.iter().map(|h| (h, false)).chain([(&p.ps, true)]))
        .collect()
}

/// Binds every host's UDP socket (in its namespace), so that an address
/// in use is an error before any job starts.
fn bind_hosts(
    hosts: &[(&HostPlan, bool)],
    namespace_of: impl Fn(&HostPlan) -> Option<String>,
) -> Result<BTreeMap<u16, UdpTransport>, TestbedError> {
    let mut links = BTreeMap::new();
    for (h, _) in hosts {
        let ip = std::net::Ipv4Addr::from(h.address.ip.0);
        let transport = netns::bind_udp(namespace_of(h).as_deref(), ip).map_err(|e| {
            TestbedError::start(format!("host {} cannot bind its socket", h.name), e)
        })?;
        links.insert(h.port, transport);
    }
    Ok(links)
}

/// Creates a namespace per host, with the experiment's loss rules.
fn make_namespaces(
    experiment: &Experiment,
    hosts: &[(&HostPlan, bool)],
) -> Result<Arc<Namespaces>, TestbedError> {
    let wanted: Vec<NamespaceHost> = hosts
        .iter()
        .map(|(h, ps)| NamespaceHost {
            port: h.port,
            mac: h.address.mac.0,
            ip: Some(std::net::Ipv4Addr::from(h.address.ip.0)),
            loss: link_loss(experiment, *ps),
        })
        .collect();
    let switch = netns::SwitchAddress {
        ip: SWITCH_IP,
        mac: SWITCH_MAC.0,
    };
    Namespaces::create(&wanted, Some(switch))
        .map(Arc::new)
        .map_err(|e| TestbedError::start("network namespaces", e))
}

/// Starts the variant's switch and links its hosts to it.
fn build_stage(
    experiment: &Experiment,
    options: &RunOptions,
    plans: &[JobHosts],
) -> Result<Stage, TestbedError> {
    let hosts = all_hosts(plans);
    let lanes = experiment.switch.lanes;
    match (&options.switch, options.fabric) {
        (SwitchTarget::Embedded, Fabric::InProcess) => {
            let ports: Vec<u32> = hosts.iter().map(|(h, _)| u32::from(h.port)).collect();
            let mut embedded =
                EmbeddedSwitch::start(SwitchConfig::default(), Ports::Memory(ports), loopback())?;
            let mut links = BTreeMap::new();
            let mut meters = BTreeMap::new();
            for (h, ps) in &hosts {
                let port = embedded
                    .take_port(u32::from(h.port))
                    .ok_or_else(|| setup(format!("no memory port {}", h.port)))?;
                let counters = Arc::new(FaultCounters::default());
                let faults =
                    FaultConfig::loss(experiment.seed ^ 0x6c6f_7373, link_loss(experiment, *ps));
                let link = FaultyLink::new(port, faults, u64::from(h.port), Arc::clone(&counters));
                links.insert(h.port, SwitchPortTransport::new(link, h.address, lanes));
                meters.insert(h.port, LossMeter::Memory(counters));
            }
            Ok(Stage {
                p4runtime: embedded.addr().to_string(),
                device_id: embedded.device_id(),
                switch_addr: switch_addr(SWITCH_IP),
                hosts: HostLinks::Memory(links),
                meters,
                embedded: Some(embedded),
                process: None,
                namespaces: None,
            })
        }
        (SwitchTarget::Embedded, Fabric::Netns) | (SwitchTarget::Bmv2(_), _) => {
            let namespaces = make_namespaces(experiment, &hosts)?;
            let interfaces = namespaces.interfaces();
            let (p4runtime, embedded, process) = match &options.switch {
                SwitchTarget::Bmv2(bmv2) => {
                    let dir = options.work_dir(&experiment.name);
                    std::fs::create_dir_all(&dir).map_err(|error| TestbedError::Io {
                        path: dir.clone(),
                        error,
                    })?;
                    let process = bmv2.start(
                        &interfaces,
                        &dir.join("simple_switch_grpc.log"),
                        options.setup_timeout,
                    )?;
                    (process.addr.to_string(), None, Some(process))
                }
                _ => {
                    let embedded = EmbeddedSwitch::start(
                        SwitchConfig::default(),
                        Ports::Interfaces(interfaces),
                        loopback(),
                    )?;
                    (embedded.addr().to_string(), Some(embedded), None)
                }
            };
            let links = bind_hosts(&hosts, |h| namespaces.namespace(h.port).map(str::to_owned))?;
            let meters = hosts
                .iter()
                .map(|(h, _)| {
                    (
                        h.port,
                        LossMeter::Namespace(Arc::clone(&namespaces), h.port),
                    )
                })
                .collect();
            Ok(Stage {
                p4runtime,
                device_id: 0,
                switch_addr: switch_addr(SWITCH_IP),
                hosts: HostLinks::Udp(links),
                meters,
                embedded,
                process,
                namespaces: Some(namespaces),
            })
        }
        (SwitchTarget::External(x), _) => {
            let links = bind_hosts(&hosts, |h| h.netns.clone())?;
            Ok(Stage {
                p4runtime: x.p4runtime.clone(),
                device_id: x.device_id,
                switch_addr: switch_addr(x.hosts.switch_ip),
                hosts: HostLinks::Udp(links),
                meters: BTreeMap::new(),
                embedded: None,
                process: None,
                namespaces: None,
            })
        }
    }
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

fn setup(message: impl std::fmt::Display) -> TestbedError {
    TestbedError::Setup(message.to_string())
}

/// Any free port on 127.0.0.1, for an embedded switch's P4Runtime.
fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

fn run_variant(
    experiment: &Experiment,
    variant: &Variant,
    pipeline: &Pipeline,
    options: &RunOptions,
) -> Result<VariantReport, TestbedError> {
    let jobs = experiment.jobs_for(variant);
    let external_hosts = match &options.switch {
        SwitchTarget::External(x) => Some(&x.hosts),
        _ => None,
    };
    let (plans, topology) = plan_hosts(&jobs, external_hosts);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("esa-testbed-rt")
        .enable_all()
        .build()
        .map_err(|e| TestbedError::start("tokio runtime", e))?;
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut stage = build_stage(experiment, options, &plans)?;
    let config = control::controller_config(
        experiment.switch.pool_slots,
        experiment.switch.stale_after_ms.map(|ms| ms * 1000),
    );
    let control::Supervised {
        controller,
        task: supervisor,
    } = control::start_controller(
        &runtime,
        GrpcSwitch::new(&stage.p4runtime, stage.device_id, 1),
        pipeline.clone(),
        topology,
        config,
        stopped(stop_rx.clone()),
    )?;
    if let Err(last) = control::wait_programmed(&runtime, &controller, options.setup_timeout) {
        let _ = stop_tx.send(true);
        return Err(control::not_programmed(&stage.p4runtime, options.setup_timeout, last).into());
    }

    // Stops every worker when the switch stays out of reach; its result
    // is the controller's last error then.
    let abort = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let abort = Arc::clone(&abort);
        let (health, after) = (controller.health(), options.switch_lost_after);
        runtime.spawn(async move {
            let last_error = switch_lost(health, after).await;
            abort.store(true, Ordering::SeqCst);
            last_error
        })
    };

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

    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].arrival_us);
    let start = Instant::now();
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
        let hosts = &plans[i];
        let request = JobRequest {
            job_id: u32::try_from(i + 1).unwrap_or(0),
            workers: hosts
                .workers
                .iter()
                .map(|h| Endpoint::Host(h.name.clone()))
                .collect(),
            ps: Some(Endpoint::Host(hosts.ps.name.clone())),
            max_priority: u32::from(spec.priority),
            mode: Some(spec.mode),
            slots: spec.slots.map(|count| SlotRequest {
                base: spec.slot_base,
                count,
            }),
        };
        let mut report = JobReport::new(&variant.label, &spec, experiment.switch.lanes);
        report.arrival_ms = ms(arrived - start);
        let job = match runtime.block_on(controller.admit(&request)) {
            Ok(job) => job,
            Err(e) => {
                report.error = Some(format!("admission refused: {e}"));
                progress[i].state.store(FAILED, Ordering::Relaxed);
                reports[i] = Some(report);
                continue;
            }
        };
        progress[i].state.store(RUNNING, Ordering::Relaxed);
        let ports: Vec<u16> = hosts
            .workers
            .iter()
            .chain([&hosts.ps])
            .map(|h| h.port)
            .collect();
        let ctx = JobContext {
            spec,
            job,
            seed: experiment.seed,
            lanes: experiment.switch.lanes,
            switch_addr: stage.switch_addr,
            start,
            arrived,
            report,
            progress: Arc::clone(&progress),
            index: i,
            controller: Arc::clone(&controller),
            runtime: runtime.handle().clone(),
            abort: Arc::clone(&abort),
            meters: ports
                .iter()
                .filter_map(|p| stage.meters.get(p).cloned())
                .collect(),
        };
        let spawned = match &mut stage.hosts {
            HostLinks::Memory(links) => spawn_job(ctx, take_links(links, &ports)?),
            HostLinks::Udp(links) => spawn_job(ctx, take_links(links, &ports)?),
        };
        running.push((i, spawned?));
    }
    for (i, handle) in running {
        let report = handle.join().unwrap_or_else(|_| {
            let mut r = JobReport::new(&variant.label, &jobs[i], experiment.switch.lanes);
            r.error = Some("the job's thread panicked".into());
            r
        });
        reports[i] = Some(report);
    }
    let wall_ms = (ms(start.elapsed()) * 1000.0).round() / 1000.0;
    watchdog.abort();
    // `Ok` only if it had finished: the switch was lost.
    let lost = runtime.block_on(watchdog).ok();
    stop_progress.store(true, Ordering::Relaxed);
    if let Some(t) = progress_thread {
        let _ = t.join();
    }
    let _ = stop_tx.send(true);
    runtime.block_on(async {
        let _ = supervisor.await;
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    // The switch process, then the namespaces its ports were in.
    let p4runtime = stage.p4runtime.clone();
    drop(stage);
    if let Some(last_error) = lost {
        return Err(TestbedError::SwitchLost {
            p4runtime,
            after: options.switch_lost_after,
            last_error,
        });
    }
    Ok(VariantReport {
        variant: variant.label.clone(),
        wall_ms,
        jobs: reports.into_iter().flatten().collect(),
        cluster: None,
    })
}

/// Takes the links of `ports` (workers first, the PS last).
fn take_links<T>(links: &mut BTreeMap<u16, T>, ports: &[u16]) -> Result<Vec<T>, TestbedError> {
    ports
        .iter()
        .map(|p| {
            links
                .remove(p)
                .ok_or_else(|| setup(format!("no link for switch port {p}")))
        })
        .collect()
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

    fn health(role: Role, synced: bool, last_error: Option<&str>) -> Health {
        Health {
            role,
            synced,
            syncs: 1,
            pipeline_pushes: 1,
            last_error: last_error.map(String::from),
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
