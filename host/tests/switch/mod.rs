//! esa-switch running `p4/v1model/esa.p4`, programmed by esa-controller over
//! P4Runtime on 127.0.0.1, the way `esa-testbed`'s `run.rs` wires them; plus
//! a seeded fault-injecting [`FrameLink`] for the hosts' side of a port.
//!
//! Shared by `through_switch.rs`, `netns.rs` and the host bench.

#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use esa_controller::jobs::{Endpoint, Job, JobRequest};
use esa_controller::topology::Host;
use esa_controller::{Controller, ControllerConfig, GrpcSwitch, Pipeline, Role, Topology};
use esa_core::job::Mode;
use esa_core::job::SlotMapping;
use esa_core::policy::Policy;
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::rng::Rng;
use esa_core::synthetic::gradient_value;
use esa_core::worker::WorkerConfig;
use esa_host::ParameterServer;
use esa_host::transport::{FaultConfig, FrameLink, LinkClosed, Transport};
use esa_host::worker::{Worker, WorkerOptions};
use esa_switch::{MemoryPort, Switch, SwitchConfig};
use tokio::sync::watch;

pub use esa_host::addressing::{port_host as host_address, switch_addr};

/// The name of host `n` in the controller's topology.
pub fn host_name(n: u16) -> String {
    format!("h{n}")
}

/// The switch's ports.
#[derive(Debug, Clone)]
pub enum Ports {
    /// In-memory ports 1..=n.
    Memory(u16),
    /// AF_PACKET ports: port `i + 1` on interface `names[i]`.
    Interfaces(Vec<String>),
}

/// A running switch and controller; stopped on drop.
#[derive(Debug)]
pub struct SwitchHarness {
    runtime: Option<tokio::runtime::Runtime>,
    controller: Arc<Controller<GrpcSwitch>>,
    stop: watch::Sender<bool>,
    switch: Arc<Switch>,
    /// Memory ports not yet taken, port 1 first.
    memory_ports: Vec<Option<MemoryPort>>,
    /// Lanes per packet the program was built with.
    pub lanes: usize,
}

async fn stopped(mut rx: watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// `p4/v1model/esa.p4` of this source tree.
pub fn program_path() -> PathBuf {
    esa_p4::Arch::V1model.program()
}

impl SwitchHarness {
    /// Builds the switch on `ports`, serves P4Runtime on 127.0.0.1, and
    /// waits until the controller has pushed the pipeline and synced.
    pub fn start(ports: Ports, lanes: usize, pool_slots: u32) -> SwitchHarness {
        let defines = esa_p4::Defines::new(lanes, pool_slots).pairs();
        let pipeline = Pipeline::from_p4_source(&program_path(), &defines)
            .unwrap_or_else(|e| panic!("loading esa.p4: {e}"));
        let count = match &ports {
            Ports::Memory(n) => *n,
            Ports::Interfaces(names) => names.len() as u16,
        };
        let mut builder = Switch::builder(SwitchConfig::default());
        match &ports {
            Ports::Memory(n) => builder = builder.memory_ports((1..=*n).map(u32::from)),
            Ports::Interfaces(names) => {
                for (i, name) in names.iter().enumerate() {
                    builder = builder.interface(i as u32 + 1, name.clone());
                }
            }
        }
        let (switch, memory_ports) = builder.build().expect("building the switch");
        let switch = Arc::new(switch);
        let mut topology = Topology::default();
        for n in 1..=count {
            let a = host_address(n);
            topology.ports.insert(n);
            topology.hosts.insert(
                host_name(n),
                Host {
                    name: host_name(n),
                    mac: a.mac,
                    ip: a.ip,
                    port: n,
                },
            );
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let (stop, stop_rx) = watch::channel(false);
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("P4Runtime listener");
        let addr = listener.local_addr().expect("listener address");
        // The switch stays ours (for its port counters), so serve its
        // service rather than `Switch::serve`, which consumes it.
        let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
        runtime.spawn(
            p4runtime_proto::tonic::transport::Server::builder()
                .add_service(switch.service())
                .serve_with_incoming_shutdown(incoming, stopped(stop_rx.clone())),
        );
        let backend = GrpcSwitch::new(&addr.to_string(), 0, 1);
        let config = ControllerConfig {
            pool_slots: Some(pool_slots),
            check_interval: Duration::from_secs(2),
            retry_interval: Duration::from_millis(200),
            stale_after_us: None,
        };
        let controller =
            Controller::new(backend, pipeline, topology, config).expect("the controller");
        runtime.spawn(Arc::clone(&controller).run(stopped(stop_rx)));
        let mut health = controller.health();
        let synced = runtime.block_on(async {
            tokio::time::timeout(
                Duration::from_secs(60),
                health.wait_for(|h| h.role == Role::Primary && h.synced),
            )
            .await
            .map(|r| r.is_ok())
        });
        assert_eq!(
            synced,
            Ok(true),
            "the controller did not program the switch: {:?}",
            health.borrow().clone()
        );
        SwitchHarness {
            runtime: Some(runtime),
            controller,
            stop,
            switch,
            memory_ports: memory_ports.into_iter().map(Some).collect(),
            lanes,
        }
    }

    /// Takes memory port `n` (1-based) as a frame link.
    pub fn take_port(&mut self, n: u16) -> PortLink {
        let port = self.memory_ports[usize::from(n) - 1]
            .take()
            .unwrap_or_else(|| panic!("memory port {n} taken or missing"));
        PortLink(port)
    }

    /// The switch.
    pub fn switch(&self) -> &Switch {
        &self.switch
    }

    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.as_ref().expect("running").block_on(f)
    }

    /// Admits a job of `mode` with workers on `workers` and the PS on `ps`
    /// (switch ports = host numbers).
    pub fn admit(
        &self,
        job_id: u16,
        mode: Mode,
        max_priority: u8,
        workers: &[u16],
        ps: u16,
    ) -> Job {
        let request = JobRequest {
            job_id: u32::from(job_id),
            workers: workers
                .iter()
                .map(|n| Endpoint::Host(host_name(*n)))
                .collect(),
            ps: Some(Endpoint::Host(host_name(ps))),
            max_priority: u32::from(max_priority),
            mode: Some(mode),
            slots: None,
        };
        self.block_on(self.controller.admit(&request))
            .unwrap_or_else(|e| panic!("admitting job {job_id}: {e}"))
    }

    /// The job's switch counters by P4 name.
    pub fn counters(&self, job: u16) -> Vec<(String, u64)> {
        self.block_on(self.controller.stats(&[u32::from(job)]))
            .unwrap_or_else(|e| panic!("counters of job {job}: {e}"))
            .into_iter()
            .flat_map(|s| s.counters)
            .collect()
    }

    /// One counter of a job (0 if the program has no such counter).
    pub fn counter(&self, job: u16, name: &str) -> u64 {
        self.counters(job)
            .into_iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, v)| v)
    }

    /// Releases a job.
    pub fn release(&self, job: u16) {
        self.block_on(self.controller.release(u32::from(job)))
            .unwrap_or_else(|e| panic!("releasing job {job}: {e}"));
    }
}

impl Drop for SwitchHarness {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(Duration::from_secs(2));
        }
    }
}

/// A memory port as a frame link.
#[derive(Debug)]
pub struct PortLink(MemoryPort);

impl FrameLink for PortLink {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        self.0.send(frame).map_err(|_| LinkClosed)
    }
    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        self.0.try_recv()
    }
    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        self.0.recv_timeout(timeout)
    }
}

/// What the fault injectors did, summed over every link that shares it.
#[derive(Debug, Default)]
pub struct FaultCounters {
    /// Frames dropped.
    pub lost: AtomicU64,
    /// Extra copies made.
    pub duplicated: AtomicU64,
    /// Frames delivered after a frame that entered the link later.
    pub reordered: AtomicU64,
    /// Frames that crossed the link.
    pub delivered: AtomicU64,
}

impl FaultCounters {
    /// `(lost, duplicated, reordered, delivered)`.
    pub fn snapshot(&self) -> (u64, u64, u64, u64) {
        (
            self.lost.load(Ordering::Relaxed),
            self.duplicated.load(Ordering::Relaxed),
            self.reordered.load(Ordering::Relaxed),
            self.delivered.load(Ordering::Relaxed),
        )
    }
}

/// Frames held back until their delivery time, in the order they are due.
#[derive(Debug, Default)]
struct Delayed {
    heap: BinaryHeap<Reverse<(Instant, u64, Vec<u8>)>>,
    /// Entry order of the last frame let out.
    last_out: u64,
}

impl Delayed {
    fn next_due(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    /// The next frame due by `now`, counting it as reordered when a later
    /// frame already went out.
    fn pop_due(&mut self, now: Instant, counters: &FaultCounters) -> Option<Vec<u8>> {
        if self.next_due()? > now {
            return None;
        }
        let Reverse((_, order, frame)) = self.heap.pop()?;
        if order < self.last_out {
            counters.reordered.fetch_add(1, Ordering::Relaxed);
        }
        self.last_out = self.last_out.max(order);
        counters.delivered.fetch_add(1, Ordering::Relaxed);
        Some(frame)
    }
}

/// A [`FrameLink`] that loses, duplicates and delays (so reorders) frames
/// in both directions with [`FaultConfig`]'s semantics: each frame is
/// duplicated with probability `duplicate`, each copy lost with probability
/// `loss`, and each surviving copy delayed by a uniform `0..=max_delay`.
#[derive(Debug)]
pub struct FaultyLink<L: FrameLink> {
    inner: L,
    faults: FaultConfig,
    rng: Rng,
    order: u64,
    outbound: Delayed,
    inbound: Delayed,
    counters: Arc<FaultCounters>,
}

impl<L: FrameLink> FaultyLink<L> {
    /// Wraps `inner`; `stream` separates the choices of links that share a
    /// seed.
    pub fn new(
        inner: L,
        faults: FaultConfig,
        stream: u64,
        counters: Arc<FaultCounters>,
    ) -> FaultyLink<L> {
        FaultyLink {
            inner,
            faults,
            rng: Rng::new(faults.seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            order: 0,
            outbound: Delayed::default(),
            inbound: Delayed::default(),
            counters,
        }
    }

    /// Puts a frame through the injector into `outbound` or `inbound`.
    fn inject(&mut self, frame: Vec<u8>, outbound: bool) {
        let copies = if self.rng.chance(self.faults.duplicate) {
            self.counters.duplicated.fetch_add(1, Ordering::Relaxed);
            2
        } else {
            1
        };
        let now = Instant::now();
        for _ in 0..copies {
            if self.rng.chance(self.faults.loss) {
                self.counters.lost.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let max_us = self.faults.max_delay.as_micros() as u64;
            let at = now + Duration::from_micros(self.rng.range(0, max_us));
            self.order += 1;
            let queue = if outbound {
                &mut self.outbound
            } else {
                &mut self.inbound
            };
            queue.heap.push(Reverse((at, self.order, frame.clone())));
        }
    }

    /// Sends every outbound frame that is due; pulls in every frame waiting
    /// on the inner link.
    fn pump(&mut self) -> Result<(), LinkClosed> {
        let now = Instant::now();
        while let Some(frame) = self.outbound.pop_due(now, &self.counters) {
            self.inner.send_frame(&frame)?;
        }
        while let Some(frame) = self.inner.try_recv_frame() {
            self.inject(frame, false);
        }
        Ok(())
    }
}

impl<L: FrameLink> FrameLink for FaultyLink<L> {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        self.inject(frame.to_vec(), true);
        self.pump()
    }

    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        let _ = self.pump();
        self.inbound.pop_due(Instant::now(), &self.counters)
    }

    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        let deadline = Instant::now() + timeout;
        loop {
            let _ = self.pump();
            let now = Instant::now();
            if let Some(frame) = self.inbound.pop_due(now, &self.counters) {
                return Some(frame);
            }
            if now >= deadline {
                return None;
            }
            let until = [self.inbound.next_due(), self.outbound.next_due()]
                .into_iter()
                .flatten()
                .fold(deadline, Instant::min);
            let wait = until.saturating_duration_since(now);
            if wait.is_zero() {
                continue;
            }
            if let Some(frame) = self.inner.recv_frame_timeout(wait) {
                self.inject(frame, false);
            }
        }
    }
}

/// One job of a test: who, how, and how much.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// Job id (as admitted).
    pub id: u16,
    /// Sharing mode.
    pub mode: Mode,
    /// Priority policy of the workers.
    pub policy: Policy,
    /// Number of workers.
    pub workers: u8,
    /// Gradient elements per iteration.
    pub elements: usize,
    /// Iterations.
    pub iterations: u32,
    /// Outstanding chunks per worker.
    pub window: usize,
    /// Seed of the synthetic gradients.
    pub seed: u64,
}

/// What a job's hosts did.
#[derive(Debug, Default)]
pub struct JobOutcome {
    /// Elements that differed from the exact integer sum, over all
    /// iterations and workers.
    pub wrong_elements: u64,
    /// Elements checked.
    pub checked_elements: u64,
    /// Iterations each worker finished.
    pub iterations_done: Vec<u32>,
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
    /// Chunks the PS completed.
    pub chunks_at_ps: u64,
    /// Errors of any host.
    pub errors: Vec<String>,
    /// Wall time from the first worker start to the last finish.
    pub elapsed: Duration,
}

/// Makes a host's transport on the host's own thread (so it can enter a
/// network namespace first).
pub type MakeTransport<T> = Box<dyn FnOnce() -> T + Send>;

fn worker_config(spec: &JobSpec, lanes: usize, slot_mask: u16, worker_id: u8) -> WorkerConfig {
    let mut c = WorkerConfig::new(spec.id, worker_id, spec.workers);
    c.lanes = lanes;
    c.window = spec.window;
    c.result_cache = 4 * spec.window;
    c.policy = spec.policy;
    c.slot_mapping = SlotMapping::Hashed;
    c.slot_mask = slot_mask;
    c.chunks_total = Some(spec.elements.div_ceil(lanes) as u64 * u64::from(spec.iterations));
    // The software switch on a shared machine: round trips of milliseconds.
    // The RTO adapts upward; correctness never depends on it.
    c.rto_initial_us = 20_000;
    c.rto_max_us = 200_000;
    c.max_retries = 200;
    c
}

impl JobOutcome {
    /// Every worker finished every iteration, every element of every
    /// result was checked, and none differed from the exact sum.
    pub fn assert_exact(&self, spec: &JobSpec) {
        assert_eq!(
            self.iterations_done,
            vec![spec.iterations; usize::from(spec.workers)],
            "job {}",
            spec.id
        );
        assert_eq!(
            self.checked_elements,
            spec.elements as u64 * u64::from(spec.iterations) * u64::from(spec.workers),
            "job {}",
            spec.id
        );
        assert_eq!(
            self.wrong_elements, 0,
            "job {}: results differ from the exact sum",
            spec.id
        );
    }
}

/// One job to run: its spec, slot mask, worker transports and PS transport.
pub type JobRun<T, P> = (JobSpec, u16, Vec<MakeTransport<T>>, MakeTransport<P>);

/// Runs every job at once, each with [`run_job`], and returns each spec
/// with its outcome, in order.
pub fn run_jobs<T, P>(lanes: usize, runs: Vec<JobRun<T, P>>) -> Vec<(JobSpec, JobOutcome)>
where
    T: Transport + 'static,
    P: Transport + 'static,
{
    std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .into_iter()
            .map(|(spec, mask, workers, ps)| {
                s.spawn(move || {
                    let o = run_job(&spec, lanes, mask, workers, ps);
                    (spec, o)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Runs a job: its PS and workers on threads, each worker all-reducing
/// integer gradients and comparing every element with the exact sum.
pub fn run_job<T, P>(
    spec: &JobSpec,
    lanes: usize,
    slot_mask: u16,
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
            .spawn(move || -> Result<u64, String> {
                let config = PsConfig {
                    lanes,
                    ..PsConfig::default()
                };
                let mut ps =
                    ParameterServer::new(config, switch_addr(), ps()).map_err(|e| e.to_string())?;
                ps.add_job(job, fan_in, JobOptions { forward_results })
                    .map_err(|e| e.to_string())?;
                while !stop.load(Ordering::Relaxed) {
                    ps.step(Duration::from_millis(10))
                        .map_err(|e| e.to_string())?;
                }
                Ok(ps.fallback_volume(job).map_or(0, |v| v.chunks_completed))
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
            let config = worker_config(spec, lanes, slot_mask, worker_id);
            let spec = spec.clone();
            let done = Arc::clone(&done);
            std::thread::Builder::new()
                .name(format!("worker-{}-{w}", spec.id))
                .spawn(move || {
                    let mut out = JobOutcome::default();
                    let mut iterations = 0;
                    match Worker::new(WorkerOptions::new(config, switch_addr()), make()) {
                        Ok(mut worker) => {
                            let mut data = vec![0f32; spec.elements];
                            for it in 0..spec.iterations {
                                for (i, x) in data.iter_mut().enumerate() {
                                    *x = gradient_value(spec.seed, spec.id, worker_id, it, i);
                                }
                                if let Err(e) = worker.allreduce(&mut data) {
                                    out.errors.push(format!(
                                        "job {} worker {worker_id} iteration {it}: {e}",
                                        spec.id
                                    ));
                                    break;
                                }
                                for (i, got) in data.iter().enumerate() {
                                    let want: f32 = (0..spec.workers)
                                        .map(|w| gradient_value(spec.seed, spec.id, w, it, i))
                                        .sum();
                                    if want != *got {
                                        out.wrong_elements += 1;
                                    }
                                }
                                out.checked_elements += spec.elements as u64;
                                iterations = it + 1;
                            }
                            done.fetch_add(1, Ordering::SeqCst);
                            // Answer peers' QUERYs until every worker is done.
                            let end = Instant::now() + Duration::from_secs(20);
                            while done.load(Ordering::SeqCst) < usize::from(spec.workers)
                                && Instant::now() < end
                            {
                                let _ = worker.serve_queries(Duration::from_millis(5));
                            }
                            let s = worker.stats();
                            out.resends = s.resends;
                            out.results_from_switch = s.results_from_switch;
                            out.results_from_ps = s.results_from_ps;
                            out.invalid_packets = s.invalid_packets;
                            out.duplicate_results = s.duplicate_results;
                        }
                        Err(e) => {
                            done.fetch_add(1, Ordering::SeqCst);
                            out.errors.push(format!("job {} worker {w}: {e}", spec.id));
                        }
                    }
                    out.iterations_done.push(iterations);
                    out
                })
                .expect("worker thread")
        })
        .collect();
    let mut outcome = JobOutcome::default();
    for t in threads {
        let o = t.join().unwrap_or_else(|_| JobOutcome {
            errors: vec!["a worker thread panicked".into()],
            iterations_done: vec![0],
            ..JobOutcome::default()
        });
        outcome.wrong_elements += o.wrong_elements;
        outcome.checked_elements += o.checked_elements;
        outcome.iterations_done.extend(o.iterations_done);
        outcome.resends += o.resends;
        outcome.results_from_switch += o.results_from_switch;
        outcome.results_from_ps += o.results_from_ps;
        outcome.invalid_packets += o.invalid_packets;
        outcome.duplicate_results += o.duplicate_results;
        outcome.errors.extend(o.errors);
    }
    outcome.elapsed = start.elapsed();
    stop_ps.store(true, Ordering::Relaxed);
    match ps_thread.join() {
        Ok(Ok(chunks)) => outcome.chunks_at_ps = chunks,
        Ok(Err(e)) => outcome.errors.push(format!("PS of job {}: {e}", spec.id)),
        Err(_) => outcome
            .errors
            .push(format!("PS of job {} panicked", spec.id)),
    }
    outcome
}
