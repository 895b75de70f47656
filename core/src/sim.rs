//! A deterministic multi-job simulation: workers, parameter servers and the
//! switch's pool model, joined by lossy, duplicating, reordering links, in
//! virtual time.
//!
//! Every run is a function of its [`SimConfig`] (seed included): the same
//! config gives the same report, bit for bit. [`SimReport::violations`] lists
//! every broken invariant — a job that did not finish, a result that is not
//! the exact sum, counters that do not add up — so tests can assert on it and
//! a failure names its seed.

use crate::constants::{MAX_PRIORITY, esa_payload_len};
use crate::policy::Policy;
use crate::pool::{JobCounters, JobEntry, Mode, Pool, PoolConfig};
use crate::ps::{JobOptions, ParameterServer, PsConfig};
use crate::rng::Rng;
use crate::wire::frame::ESA_OFFSET;
use crate::wire::{EsaRepr, FrameRepr, Ipv4Addr, MacAddr, ParsedFrame};
use crate::worker::{SlotMapping, Worker, WorkerConfig, WorkerEvent};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;

/// Behaviour of every link, host to switch and switch to host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConfig {
    /// One-way latency in µs.
    pub latency_us: u64,
    /// Extra delay, uniform in `0..=jitter_us`; packets overtake each other.
    pub jitter_us: u64,
    /// Probability a packet is lost.
    pub loss: f64,
    /// Probability a packet is delivered twice.
    pub duplicate: f64,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            latency_us: 5,
            jitter_us: 2,
            loss: 0.0,
            duplicate: 0.0,
        }
    }
}

/// One training job.
#[derive(Debug, Clone, PartialEq)]
pub struct SimJob {
    /// Job id, 1..=4095.
    pub job: u16,
    /// Number of workers, 2..=32.
    pub workers: u8,
    /// Sharing mode in the switch.
    pub mode: Mode,
    /// Priority policy of the workers.
    pub policy: Policy,
    /// Highest priority the switch lets the job use.
    pub max_priority: u8,
    /// Gradient elements per iteration.
    pub elements: usize,
    /// Iterations (compute, then all-reduce).
    pub iterations: u32,
    /// Compute time per iteration, µs.
    pub compute_us: u64,
    /// Each worker's compute time is longer by a uniform `0..=compute_jitter_us`
    /// per iteration: stragglers, which keep partial sums waiting in slots.
    pub compute_jitter_us: u64,
    /// When the job arrives, µs.
    pub start_us: u64,
    /// Chunks outstanding per worker.
    pub window: usize,
    /// Quantization exponent of the workers.
    pub exponent: i8,
    /// For `switchml`: the job's slot range; ignored by the other modes,
    /// which share the whole pool.
    pub slot_base: u16,
    /// For `switchml`: `slot_mask + 1` slots from `slot_base`.
    pub slot_mask: u16,
}

impl SimJob {
    /// A job with `workers` workers doing `iterations` all-reduces of
    /// `elements` values, arriving at time 0, ESA mode, fcfs.
    pub fn new(job: u16, workers: u8, elements: usize, iterations: u32) -> SimJob {
        SimJob {
            job,
            workers,
            mode: Mode::Esa,
            policy: Policy::Fcfs,
            max_priority: MAX_PRIORITY,
            elements,
            iterations,
            compute_us: 100,
            compute_jitter_us: 0,
            start_us: 0,
            window: 8,
            exponent: crate::quant::DEFAULT_EXPONENT,
            slot_base: 0,
            slot_mask: 0,
        }
    }
}

/// A whole simulated experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Seed of every random choice.
    pub seed: u64,
    /// The switch's pool.
    pub pool: PoolConfig,
    /// The jobs.
    pub jobs: Vec<SimJob>,
    /// Link behaviour.
    pub link: LinkConfig,
    /// Workers' first retransmission timeout.
    pub rto_initial_us: u64,
    /// Workers' largest retransmission timeout.
    pub rto_max_us: u64,
    /// Resends of a chunk before a worker gives up.
    pub max_retries: u32,
    /// Virtual time after which the run stops, finished or not.
    pub time_limit_us: u64,
}

impl SimConfig {
    /// The built-in two-job scenario of `esa sim`: a long, low-priority job
    /// and a shorter one arriving later with a higher priority, on a pool
    /// too small for both, 1% loss.
    pub fn two_jobs(mode: Mode) -> SimConfig {
        let mut long = SimJob::new(1, 4, 32 * 48, 6);
        long.policy = Policy::Static { priority: 2 };
        long.window = 16;
        long.compute_jitter_us = 400;
        let mut short = SimJob::new(2, 4, 32 * 48, 3);
        short.policy = Policy::Static { priority: 9 };
        short.start_us = 300;
        short.window = 16;
        short.compute_jitter_us = 400;
        if mode == Mode::SwitchMl {
            (long.slot_base, long.slot_mask) = (0, 15);
            (short.slot_base, short.slot_mask) = (16, 15);
        }
        for j in [&mut long, &mut short] {
            j.mode = mode;
            if mode != Mode::Esa {
                j.policy = Policy::Fcfs;
            }
        }
        SimConfig {
            seed: 1,
            pool: PoolConfig {
                slots: 32,
                lanes: 32,
                stale_after_us: 2_000,
            },
            jobs: vec![long, short],
            link: LinkConfig {
                latency_us: 5,
                jitter_us: 3,
                loss: 0.01,
                duplicate: 0.0,
            },
            // Above the straggler spread, so a resend means loss, not a
            // slow peer (a resend flushes the partial to the PS, D2).
            rto_initial_us: 1_000,
            rto_max_us: 8_000,
            max_retries: 400,
            time_limit_us: 10_000_000,
        }
    }

    /// A random scenario for `seed`: 2–4 jobs of 2–4 workers, mixed modes
    /// and policies, a pool of 4–16 slots so that collisions, preemption and
    /// fallback are constant, loss up to `max_loss`, duplication up to 5%.
    pub fn random(seed: u64, max_loss: f64) -> SimConfig {
        let mut rng = Rng::new(seed);
        let slots = 1usize << rng.range(2, 4);
        let lanes = [4, 4, 8, 32][rng.below(4) as usize];
        let n_jobs = rng.range(2, 4) as u16;
        let uniform_mode = rng.chance(0.5);
        let mut mode = random_mode(&mut rng);
        // SwitchML needs disjoint ranges: split the pool evenly.
        let range = (slots / 4).max(1);
        let mut jobs = vec![];
        for k in 0..n_jobs {
            if !uniform_mode {
                mode = random_mode(&mut rng);
            }
            let mut job = SimJob::new(
                k + 1,
                rng.range(2, 4) as u8,
                rng.range(1, 24) as usize * lanes - rng.below(lanes as u64) as usize,
                rng.range(1, 3) as u32,
            );
            job.mode = mode;
            job.policy = match rng.below(4) {
                0 => Policy::Fcfs,
                1 => Policy::Static {
                    priority: rng.below(16) as u8,
                },
                2 => Policy::Srpt {
                    aging_interval_us: rng.range(0, 1) * 500,
                },
                _ => Policy::Las {
                    aging_interval_us: rng.range(0, 1) * 500,
                },
            };
            job.max_priority = rng.range(4, 15) as u8;
            job.compute_us = rng.range(0, 200);
            job.compute_jitter_us = rng.range(0, 300);
            // Jobs at different scales: an evicted partial must keep its own.
            job.exponent = rng.range(8, 16) as i8;
            job.start_us = rng.range(0, 300);
            job.slot_base = (usize::from(k) * range % slots) as u16;
            job.slot_mask = (range - 1) as u16;
            // A switchml window beyond its range would collide with itself.
            job.window = if mode == Mode::SwitchMl {
                rng.range(1, range as u64) as usize
            } else {
                rng.range(1, 8) as usize
            };
            jobs.push(job);
        }
        SimConfig {
            seed,
            // Down to below one round trip, so stale reclaim happens often.
            pool: PoolConfig {
                slots,
                lanes,
                stale_after_us: rng.range(30, 3_000),
            },
            jobs,
            link: LinkConfig {
                latency_us: rng.range(2, 20),
                jitter_us: rng.range(0, 15),
                loss: rng.unit() * max_loss,
                duplicate: rng.unit() * 0.05,
            },
            rto_initial_us: 150,
            rto_max_us: 2_400,
            max_retries: 1_000,
            time_limit_us: 60_000_000,
        }
    }
}

fn random_mode(rng: &mut Rng) -> Mode {
    [Mode::Esa, Mode::Atp, Mode::SwitchMl][rng.below(3) as usize]
}

/// What one job did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobReport {
    /// Job id.
    pub job: u16,
    /// Mode.
    pub mode: Mode,
    /// Policy name.
    pub policy: String,
    /// Workers.
    pub workers: u8,
    /// Iterations every worker finished.
    pub iterations_done: u32,
    /// Iterations asked for.
    pub iterations: u32,
    /// Chunks per iteration.
    pub chunks_per_iteration: u64,
    /// Time from arrival to the last worker's last result, µs (None if
    /// unfinished).
    pub jct_us: Option<u64>,
    /// Chunks completed in the switch (its `completed` counter).
    pub chunks_in_switch: u64,
    /// Chunks the PS completed from parts.
    pub chunks_at_ps: u64,
    /// Retransmissions by all workers.
    pub resends: u64,
    /// Chunks worker 0 re-ran at a smaller exponent after an overflow.
    pub overflow_retries: u64,
    /// Every result of every worker was the exact sum, and the job finished.
    pub verified: bool,
    /// The switch's counters for the job.
    pub switch: JobCounters,
}

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimReport {
    /// The seed.
    pub seed: u64,
    /// Per job, in config order.
    pub jobs: Vec<JobReport>,
    /// Virtual time at the end, µs.
    pub end_us: u64,
    /// Events processed.
    pub events: u64,
    /// Frames the links dropped.
    pub frames_lost: u64,
    /// Invariant violations (empty when all is well).
    pub violations: Vec<String>,
}

impl SimReport {
    /// Broken invariants, each a sentence naming the seed.
    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    /// A table of the jobs, for people.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:>4} {:>8} {:>9} {:>3} {:>9} {:>9} {:>7} {:>9} {:>9} {:>8} {:>10} {:>8}",
            "job",
            "mode",
            "policy",
            "wk",
            "iters",
            "in-switch",
            "at-PS",
            "evictions",
            "preempts",
            "resends",
            "JCT (ms)",
            "verified"
        );
        for j in &self.jobs {
            let jct = j
                .jct_us
                .map_or("-".to_string(), |t| format!("{:.3}", t as f64 / 1000.0));
            let _ = writeln!(
                s,
                "{:>4} {:>8} {:>9} {:>3} {:>4}/{:<4} {:>9} {:>7} {:>9} {:>9} {:>8} {:>10} {:>8}",
                j.job,
                j.mode.to_string(),
                j.policy,
                j.workers,
                j.iterations_done,
                j.iterations,
                j.chunks_in_switch,
                j.chunks_at_ps,
                j.switch.evictions_suffered,
                j.switch.preemptions,
                j.resends,
                jct,
                j.verified
            );
        }
        s
    }
}

/// A value of the gradient of `worker` in `iteration` at `element`: a
/// nonzero integer in `-500..=500`, so sums are exact in f32 and a missing or
/// doubled contribution always changes the sum. The hosts' synthetic
/// training loops (`esa worker`) use it too.
pub fn gradient_value(seed: u64, job: u16, worker: u8, iteration: u32, element: usize) -> f32 {
    let mut x = seed
        ^ (u64::from(job) << 48)
        ^ (u64::from(worker) << 40)
        ^ (u64::from(iteration) << 32)
        ^ element as u64;
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    let v = (x % 1000) as i32 - 500;
    (if v == 0 { 1 } else { v }) as f32
}

#[derive(Debug)]
enum Event {
    /// A frame reaches the switch on a port.
    ToSwitch { port: u16, frame: Vec<u8> },
    /// A frame reaches the host on a port.
    ToHost { port: u16, frame: Vec<u8> },
    /// A worker's retransmission timer.
    Timer { port: u16 },
    /// A worker finished computing its next gradient.
    ComputeDone { port: u16 },
}

#[derive(Debug)]
struct Scheduled {
    at: u64,
    order: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.order) == (other.at, other.order)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.order).cmp(&(other.at, other.order))
    }
}

#[derive(Debug)]
struct WorkerHost {
    job: usize,
    id: u8,
    worker: Worker,
    iteration: u32,
    timer_at: Option<u64>,
    done_at: Option<u64>,
    wrong_results: u32,
}

#[derive(Debug)]
enum Host {
    Worker(Box<WorkerHost>),
    Ps {
        job: usize,
        ps: Box<ParameterServer>,
    },
}

/// The running simulation.
#[derive(Debug)]
struct Sim {
    config: SimConfig,
    rng: Rng,
    pool: Pool,
    /// Indexed by port; port 0 is unused.
    hosts: Vec<Option<Host>>,
    queue: BinaryHeap<Reverse<Scheduled>>,
    order: u64,
    now: u64,
    frames_lost: u64,
    events: u64,
    violations: Vec<String>,
    workers_left: usize,
}

fn mac(port: u16) -> MacAddr {
    MacAddr::local(u32::from(port))
}

fn ip(port: u16) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, (port >> 8) as u8, port as u8)
}

const SWITCH_MAC: MacAddr = MacAddr([0x02, 0xff, 0, 0, 0, 1]);
const SWITCH_IP: Ipv4Addr = Ipv4Addr::new(10, 255, 255, 254);

impl Sim {
    fn new(config: SimConfig) -> Result<Sim, String> {
        let mut pool = Pool::new(config.pool).map_err(|e| e.to_string())?;
        let mut hosts: Vec<Option<Host>> = vec![None];
        let mut queue = BinaryHeap::new();
        let mut order = 0;
        let mut workers_left = 0;
        let mut rng = Rng::new(config.seed);
        for (k, job) in config.jobs.iter().enumerate() {
            let first_port = hosts.len() as u16;
            let ps_port = first_port + u16::from(job.workers);
            let (slot_base, slot_mask) = match job.mode {
                Mode::SwitchMl => (job.slot_base, job.slot_mask),
                Mode::Esa | Mode::Atp => (0, (config.pool.slots - 1) as u16),
            };
            let entry = JobEntry {
                fan_in: job.workers,
                mode: job.mode,
                max_priority: job.max_priority,
                mcast_group: job.job,
                ps_port,
                slot_base,
                slot_mask,
            };
            pool.insert_job(job.job, entry).map_err(|e| e.to_string())?;
            let chunks = job.elements.div_ceil(config.pool.lanes) as u64;
            for id in 0..job.workers {
                let mut wc = WorkerConfig::new(job.job, id, job.workers);
                wc.lanes = config.pool.lanes;
                wc.window = job.window;
                wc.exponent = job.exponent;
                wc.slot_mapping = match job.mode {
                    Mode::SwitchMl => SlotMapping::Direct,
                    Mode::Esa | Mode::Atp => SlotMapping::Hashed,
                };
                wc.slot_mask = slot_mask;
                wc.rto_initial_us = config.rto_initial_us;
                wc.rto_max_us = config.rto_max_us;
                wc.max_retries = config.max_retries;
                wc.policy = job.policy;
                wc.chunks_total = Some(chunks * u64::from(job.iterations));
                let worker = Worker::new(wc).map_err(|e| format!("job {}: {e}", job.job))?;
                let port = hosts.len() as u16;
                hosts.push(Some(Host::Worker(Box::new(WorkerHost {
                    job: k,
                    id,
                    worker,
                    iteration: 0,
                    timer_at: None,
                    done_at: None,
                    wrong_results: 0,
                }))));
                workers_left += 1;
                order += 1;
                queue.push(Reverse(Scheduled {
                    at: job.start_us + job.compute_us + rng.range(0, job.compute_jitter_us),
                    order,
                    event: Event::ComputeDone { port },
                }));
            }
            let mut ps = ParameterServer::new(PsConfig {
                lanes: config.pool.lanes,
                ..PsConfig::default()
            })
            .map_err(|e| e.to_string())?;
            // In atp mode the switch hands completions to the PS, which
            // multicasts them back through the switch (releasing the slot).
            let options = JobOptions {
                forward_results: job.mode == Mode::Atp,
            };
            ps.add_job_with(job.job, job.workers, options)
                .map_err(|e| e.to_string())?;
            hosts.push(Some(Host::Ps {
                job: k,
                ps: Box::new(ps),
            }));
            let members: Vec<u16> = (first_port..=ps_port).collect();
            for &p in &members {
                pool.authorize(job.job, p);
                pool.set_host(p, mac(p), ip(p));
            }
            pool.set_group(job.job, members);
        }
        Ok(Sim {
            rng,
            config,
            pool,
            hosts,
            queue,
            order,
            now: 0,
            frames_lost: 0,
            events: 0,
            violations: vec![],
            workers_left,
        })
    }

    fn schedule(&mut self, at: u64, event: Event) {
        self.order += 1;
        self.queue.push(Reverse(Scheduled {
            at,
            order: self.order,
            event,
        }));
    }

    /// Puts a frame on a link: lost, delayed, maybe duplicated.
    fn transmit(&mut self, frame: Vec<u8>, make: impl Fn(Vec<u8>) -> Event) {
        let link = self.config.link;
        let copies = if self.rng.chance(link.duplicate) {
            2
        } else {
            1
        };
        for _ in 0..copies {
            if self.rng.chance(link.loss) {
                self.frames_lost += 1;
                continue;
            }
            let at = self.now + link.latency_us + self.rng.range(0, link.jitter_us);
            self.schedule(at, make(frame.clone()));
        }
    }

    fn send_from_host(&mut self, port: u16, payload: &[u8]) {
        let lanes = self.config.pool.lanes;
        let Ok((esa, values)) = EsaRepr::from_payload(payload, lanes) else {
            self.violations.push(format!(
                "seed {}: host {port} emitted a malformed payload",
                self.config.seed
            ));
            return;
        };
        let frame = FrameRepr {
            src_mac: mac(port),
            dst_mac: SWITCH_MAC,
            src_ip: ip(port),
            dst_ip: SWITCH_IP,
            esa,
        }
        .emit(&values, lanes);
        self.transmit(frame, |frame| Event::ToSwitch { port, frame });
    }

    fn run(&mut self) {
        let mut events = 0u64;
        while let Some(Reverse(next)) = self.queue.pop() {
            if next.at > self.config.time_limit_us || self.workers_left == 0 {
                break;
            }
            self.now = next.at;
            events += 1;
            match next.event {
                Event::ToSwitch { port, frame } => self.at_switch(port, &frame),
                Event::ToHost { port, frame } => self.at_host(port, &frame),
                Event::Timer { port } => self.on_timer(port),
                Event::ComputeDone { port } => self.on_compute_done(port),
            }
        }
        self.events = events;
    }

    fn at_switch(&mut self, port: u16, frame: &[u8]) {
        let decision = self.pool.process(frame, port, self.now);
        if let Some(emit) = decision.emit {
            for (out_port, out) in self.pool.egress(&emit) {
                self.transmit(out, |frame| Event::ToHost {
                    port: out_port,
                    frame,
                });
            }
        }
    }

    fn at_host(&mut self, port: u16, frame: &[u8]) {
        let lanes = self.config.pool.lanes;
        if let Err(e) = ParsedFrame::parse(frame, lanes) {
            self.violations.push(format!(
                "seed {}: host {port} got a bad frame: {e}",
                self.config.seed
            ));
            return;
        }
        let payload = &frame[ESA_OFFSET..ESA_OFFSET + esa_payload_len(lanes)];
        let now = self.now;
        match self.hosts[usize::from(port)].as_mut() {
            Some(Host::Worker(w)) => {
                // Errors are counted in the worker's stats and checked at the end.
                let _ = w.worker.handle_payload(payload, now);
            }
            Some(Host::Ps { ps, .. }) => {
                let _ = ps.handle_payload(payload, now);
            }
            None => {}
        }
        self.pump(port);
    }

    /// A worker's straggling time for one iteration.
    fn compute_jitter(&mut self, port: u16) -> u64 {
        match self.hosts[usize::from(port)].as_ref() {
            Some(Host::Worker(w)) => {
                let jitter = self.config.jobs[w.job].compute_jitter_us;
                self.rng.range(0, jitter)
            }
            _ => 0,
        }
    }

    fn on_timer(&mut self, port: u16) {
        let now = self.now;
        if let Some(Host::Worker(w)) = self.hosts[usize::from(port)].as_mut() {
            if w.timer_at == Some(now) {
                w.timer_at = None;
            }
            if w.worker.poll_timeout().is_some_and(|t| t <= now) {
                w.worker.handle_timeout(now);
            }
        }
        self.pump(port);
    }

    fn on_compute_done(&mut self, port: u16) {
        let now = self.now;
        let seed = self.config.seed;
        if let Some(Host::Worker(w)) = self.hosts[usize::from(port)].as_mut() {
            let job = &self.config.jobs[w.job];
            let data: Vec<f32> = (0..job.elements)
                .map(|i| gradient_value(seed, job.job, w.id, w.iteration, i))
                .collect();
            if let Err(e) = w.worker.start_allreduce(&data, now) {
                self.violations
                    .push(format!("seed {seed}: job {} worker {}: {e}", job.job, w.id));
            }
        }
        self.pump(port);
    }

    /// Sends what a host has to send, handles its events, arms its timer.
    fn pump(&mut self, port: u16) {
        let now = self.now;
        let mut out = vec![];
        let mut next_compute = None;
        let mut timer = None;
        let seed = self.config.seed;
        match self.hosts[usize::from(port)].as_mut() {
            Some(Host::Worker(w)) => {
                while let Some(p) = w.worker.poll_transmit(now) {
                    out.push(p);
                }
                while let Some(event) = w.worker.poll_event() {
                    let job = &self.config.jobs[w.job];
                    match event {
                        WorkerEvent::Completed { .. } => {
                            let result = w.worker.take_result().unwrap_or_default();
                            let exact = (0..job.elements).all(|i| {
                                let want: f32 = (0..job.workers)
                                    .map(|k| gradient_value(seed, job.job, k, w.iteration, i))
                                    .sum();
                                result.get(i) == Some(&want)
                            });
                            if !exact || result.len() != job.elements {
                                w.wrong_results += 1;
                                self.violations.push(format!(
                                    "seed {seed}: job {} worker {} iteration {}: result is not the exact sum",
                                    job.job, w.id, w.iteration
                                ));
                            }
                            w.iteration += 1;
                            if w.iteration < job.iterations {
                                next_compute = Some(now + job.compute_us);
                            } else {
                                w.done_at = Some(now);
                                self.workers_left -= 1;
                            }
                        }
                        WorkerEvent::Failed(e) => {
                            self.violations.push(format!(
                                "seed {seed}: job {} worker {} failed: {e}",
                                job.job, w.id
                            ));
                        }
                    }
                }
                // Arm the timer unless an earlier one is queued; a timer
                // that fires early re-arms here.
                if let Some(t) = w.worker.poll_timeout().map(|t| t.max(now))
                    && w.timer_at.is_none_or(|armed| t < armed)
                {
                    w.timer_at = Some(t);
                    timer = Some(t);
                }
            }
            Some(Host::Ps { ps, .. }) => {
                while let Some(p) = ps.poll_transmit() {
                    out.push(p);
                }
            }
            None => {}
        }
        if let Some(t) = timer {
            self.schedule(t, Event::Timer { port });
        }
        if let Some(at) = next_compute {
            let jitter = self.compute_jitter(port);
            self.schedule(at + jitter, Event::ComputeDone { port });
        }
        for p in out {
            self.send_from_host(port, &p);
        }
    }

    fn report(mut self) -> SimReport {
        let seed = self.config.seed;
        let mut jobs = vec![];
        for (k, job) in self.config.jobs.iter().enumerate() {
            let mut iterations_done = u32::MAX;
            let mut done = Some(0u64);
            let mut resends = 0;
            let mut overflow_retries = 0;
            let mut wrong = 0;
            let mut ps_completed = 0;
            for host in self.hosts.iter().flatten() {
                match host {
                    Host::Worker(w) if w.job == k => {
                        iterations_done = iterations_done.min(w.iteration);
                        done = match (done, w.done_at) {
                            (Some(a), Some(b)) => Some(a.max(b)),
                            _ => None,
                        };
                        let stats = w.worker.stats();
                        resends += stats.resends;
                        if w.id == 0 {
                            overflow_retries = stats.overflow_retries;
                        }
                        wrong += w.wrong_results;
                        if stats.invalid_packets > 0 {
                            self.violations.push(format!(
                                "seed {seed}: job {} worker {} rejected {} packets",
                                job.job, w.id, stats.invalid_packets
                            ));
                        }
                    }
                    Host::Ps { job: j, ps } if *j == k => {
                        if let Some(s) = ps.job_stats(job.job) {
                            ps_completed = s.results_completed;
                            if s.invalid_packets > 0 {
                                self.violations.push(format!(
                                    "seed {seed}: job {}: the PS rejected {} packets",
                                    job.job, s.invalid_packets
                                ));
                            }
                        }
                    }
                    _ => {}
                }
            }
            let counters = self.pool.counters(job.job);
            if counters.data_outcomes() != counters.data_rx {
                self.violations.push(format!(
                    "seed {seed}: job {}: switch counters do not add up: {counters:?}",
                    job.job
                ));
            }
            let finished = iterations_done == job.iterations;
            if !finished {
                self.violations.push(format!(
                    "seed {seed}: job {} finished {iterations_done} of {} iterations by {} µs",
                    job.job, job.iterations, self.now
                ));
            }
            jobs.push(JobReport {
                job: job.job,
                mode: job.mode,
                policy: job.policy.to_string(),
                workers: job.workers,
                iterations_done,
                iterations: job.iterations,
                chunks_per_iteration: job.elements.div_ceil(self.config.pool.lanes) as u64,
                jct_us: done.filter(|_| finished).map(|t| t - job.start_us),
                chunks_in_switch: counters.completed,
                chunks_at_ps: ps_completed,
                resends,
                overflow_retries,
                verified: finished && wrong == 0,
                switch: counters,
            });
        }
        SimReport {
            seed,
            jobs,
            end_us: self.now,
            events: self.events,
            frames_lost: self.frames_lost,
            violations: self.violations,
        }
    }
}

/// Runs a simulation to the end (every worker done, or the time limit).
///
/// A config the pool or a worker refuses is reported as a violation.
pub fn run(config: &SimConfig) -> SimReport {
    match Sim::new(config.clone()) {
        Ok(mut sim) => {
            sim.run();
            sim.report()
        }
        Err(e) => SimReport {
            seed: config.seed,
            jobs: vec![],
            end_us: 0,
            events: 0,
            frames_lost: 0,
            violations: vec![format!("seed {}: bad config: {e}", config.seed)],
        },
    }
}
