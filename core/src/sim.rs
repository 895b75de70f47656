//! A deterministic multi-job simulation: workers, parameter servers and the
//! switch's pool model, joined by lossy, duplicating, reordering links, in
//! virtual time.
//!
//! Every run is a function of its [`SimConfig`] (seed included): the same
//! config gives the same report, bit for bit. [`SimReport::violations`] lists
//! every broken invariant — a job that did not finish, a result that is not
//! the exact sum, counters that do not add up — so tests can assert on it and
//! a failure names its seed.

use crate::constants::MAX_FAN_IN;
use crate::constants::{MAX_PRIORITY, esa_frame_len, esa_payload_len};
use crate::faults::FaultConfig;
use crate::job::{JobEntry, Mode, SlotRange, TreeRole, TreeShape, Uplink, chunks};
use crate::plan::JobPlan;
use crate::policy::Policy;
use crate::pool::{HostOnlyRoute, JobCounters, Pool, PoolConfig, SlotPhase, host_only_route};
use crate::ps::ParameterServer;
use crate::rng::Rng;
use crate::rtt::Rto;
use crate::synthetic::gradient_value;
use crate::wire::frame::ESA_OFFSET;
use crate::wire::{EsaPacket, EsaRepr, FrameRepr, ParsedFrame};
use crate::worker::{Worker, WorkerEvent};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;
use std::time::Duration;

/// Behaviour of every link, host to switch and switch to host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConfig {
    /// One-way propagation delay, ns.
    pub latency_ns: u64,
    /// Extra delay, uniform in `0..=jitter_ns`; packets overtake each other.
    pub jitter_ns: u64,
    /// Probability a (simulated) packet is lost.
    pub loss: f64,
    /// Probability a packet is delivered twice.
    pub duplicate: f64,
    /// Bandwidth of every link in each direction, Gbit/s; `None` means
    /// unlimited (a packet takes no time to send, only to propagate).
    pub gbps: Option<f64>,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            latency_ns: 5_000,
            jitter_ns: 2_000,
            loss: 0.0,
            duplicate: 0.0,
            gbps: None,
        }
    }
}

/// Racks under spines (`docs/protocol.md` §9): hosts under top-of-rack
/// switches, every ToR linked to every spine. A job placed in one rack is
/// a flat job on its ToR, with its PS there; a job across racks is a tree
/// whose leaves are its racks' ToRs and whose root is spine
/// `job % spines`, where its PS hangs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeafSpine {
    /// Racks (ToRs), 1..=1024.
    pub racks: u16,
    /// Spines, 1..=64.
    pub spines: u16,
    /// Bandwidth of each ToR–spine link, each way, Gbit/s (`None`: the
    /// hosts' links').
    pub uplink_gbps: Option<f64>,
    /// Aggregate at the spines too. Without the second level the racks'
    /// partials go to the PS, which adds them (§9.6's root without memory).
    pub second_level: bool,
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
    /// Aggregate in the switch. `false` is the host-only baseline: the
    /// switch forwards every `DATA` to the job's PS as `FALLBACK` and the
    /// PS's results to the group, as [`crate::pool`]'s tables never see them.
    pub in_network: bool,
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
    /// Chunks outstanding per worker (real packets; divided by
    /// [`SimConfig::bundle`]).
    pub window: usize,
    /// Quantization exponent of the workers.
    pub exponent: i8,
    /// For `switchml`: the job's slot range; ignored by the other modes,
    /// which share the whole pool.
    pub slot_base: u16,
    /// For `switchml`: `slot_mask + 1` slots from `slot_base`.
    pub slot_mask: u16,
    /// On a [`LeafSpine`] fabric: `(rack, workers)` for each rack the job
    /// has workers in, workers numbered in this order; the counts add up
    /// to `workers`. Empty on one switch.
    pub placement: Vec<(u16, u8)>,
}

impl SimJob {
    /// A job with `workers` workers doing `iterations` all-reduces of
    /// `elements` values, arriving at time 0, ESA mode, fcfs.
    pub fn new(job: u16, workers: u8, elements: usize, iterations: u32) -> SimJob {
        SimJob {
            job,
            workers,
            mode: Mode::Esa,
            in_network: true,
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
            placement: vec![],
        }
    }
}

/// A whole simulated experiment.
///
/// **Bundles.** With `bundle = C > 1` one simulated packet stands for `C`
/// consecutive real packets of one worker, and one simulated slot for `C`
/// real slots: a job's packets per iteration, its window, the pool and
/// SwitchML ranges are all divided by `C`, and a simulated packet occupies
/// a link for `C` packet times (a PS for `C` service times). Each hop is
/// modelled as cut-through for the bundle: a bundle that arrives at the
/// switch (or PS) streams out as its packets arrive, so its last packet
/// leaves one packet time after the last one came in, unless the output is
/// busy. `C = 1` is packet level. Every simulated packet still carries
/// `pool.lanes` real values, summed and checked exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Seed of every random choice.
    pub seed: u64,
    /// The switch's pool, in real slots (divided by `bundle`), and the
    /// lanes each simulated packet carries.
    pub pool: PoolConfig,
    /// The jobs.
    pub jobs: Vec<SimJob>,
    /// Link behaviour.
    pub link: LinkConfig,
    /// Cap on each host's send rate, Gbit/s (`None`: the link's).
    pub host_gbps: Option<f64>,
    /// Time a PS spends on each packet it receives, ns.
    pub ps_service_ns: u64,
    /// Real packets per simulated packet (a power of two; 1 = packet level).
    pub bundle: u32,
    /// Lanes of the real packets: their size on the wire, and how many
    /// real packets a job's gradient takes; 0 means `pool.lanes`. Larger
    /// than `pool.lanes` when the simulation carries fewer values than the
    /// wire (to verify sums without the memory of a real model).
    pub wire_lanes: usize,
    /// Workers' retransmission timing.
    pub rto: Rto,
    /// Virtual time after which the run stops, finished or not.
    pub time_limit_us: u64,
    /// Width of the buckets of [`SimReport::timeline`], µs (0: no timeline).
    pub timeline_bucket_us: u64,
    /// Racks under spines; `None`: every host behind one switch.
    pub fabric: Option<LeafSpine>,
}

impl Default for SimConfig {
    /// No jobs; a 4096-slot, 32-lane pool; the default link; packet level.
    fn default() -> Self {
        SimConfig {
            seed: 1,
            pool: PoolConfig {
                slots: 4096,
                lanes: 32,
                stale_after_us: 100_000,
            },
            jobs: vec![],
            link: LinkConfig::default(),
            host_gbps: None,
            ps_service_ns: 0,
            bundle: 1,
            wire_lanes: 0,
            rto: Rto {
                initial_us: 10_000,
                min_us: None,
                max_us: 80_000,
                retries: 400,
            },
            time_limit_us: 60_000_000,
            timeline_bucket_us: 0,
            fabric: None,
        }
    }
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
        if mode.has_own_slots() {
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
                // Above a lost DATA's recovery when its probe is lost too
                // (a probe at 1 ms, the resend at the next timeout, 3 ms),
                // so a slot goes stale only when its job stalls.
                stale_after_us: 5_000,
            },
            jobs: vec![long, short],
            link: LinkConfig {
                latency_ns: 5_000,
                jitter_ns: 3_000,
                loss: 0.01,
                duplicate: 0.0,
                gbps: None,
            },
            // Above the straggler spread, so a resend means loss, not a
            // slow peer (a resend flushes the partial to the PS, D2).
            rto: Rto {
                initial_us: 1_000,
                min_us: None,
                max_us: 8_000,
                retries: 400,
            },
            time_limit_us: 10_000_000,
            ..SimConfig::default()
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
            job.window = if mode.has_own_slots() {
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
                latency_ns: rng.range(2, 20) * 1_000,
                jitter_ns: rng.range(0, 15) * 1_000,
                loss: rng.unit() * max_loss,
                duplicate: rng.unit() * 0.05,
                gbps: None,
            },
            rto: Rto {
                initial_us: 150,
                min_us: None,
                max_us: 2_400,
                retries: 1_000,
            },
            time_limit_us: 60_000_000,
            ..SimConfig::default()
        }
    }
}

impl SimConfig {
    /// [`SimConfig::random`]'s scenario for `seed` on racks under spines:
    /// 2–3 racks, 1–2 spines, each job's workers spread over 1–3 racks
    /// (mostly more than one, so most jobs are trees), the second level on
    /// in most runs. Loss, duplication and reordering hit the links between
    /// switches too, and the small pools make collisions, preemption and
    /// stale reclaim constant at both levels.
    pub fn random_tree(seed: u64, max_loss: f64) -> SimConfig {
        let mut config = SimConfig::random(seed, max_loss);
        let mut rng = Rng::new(seed ^ 0x7472_6565);
        let racks = rng.range(2, 3) as u16;
        config.fabric = Some(LeafSpine {
            racks,
            spines: rng.range(1, 2) as u16,
            uplink_gbps: None,
            second_level: !rng.chance(0.2),
        });
        for job in &mut config.jobs {
            // A job in one rack needs two workers there (a flat job).
            let most = usize::from(racks).min(usize::from(job.workers));
            let spread = if rng.chance(0.15) {
                1
            } else {
                rng.range(2, most as u64) as usize
            };
            let mut order: Vec<u16> = (0..racks).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            // One worker in each rack, the rest at random.
            let mut counts = vec![1u8; spread];
            for _ in spread..usize::from(job.workers) {
                counts[rng.below(spread as u64) as usize] += 1;
            }
            job.placement = order.into_iter().zip(counts).collect();
        }
        config
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
    /// Aggregated in the switch (`false`: host-only).
    pub in_network: bool,
    /// Policy name.
    pub policy: String,
    /// Workers.
    pub workers: u8,
    /// Iterations every worker finished.
    pub iterations_done: u32,
    /// Iterations asked for.
    pub iterations: u32,
    /// Simulated chunks per iteration (real packets / bundle).
    pub chunks_per_iteration: u64,
    /// Arrival, µs.
    pub start_us: u64,
    /// Time from arrival to the last worker's last result, µs (None if
    /// unfinished).
    pub jct_us: Option<u64>,
    /// Chunks completed in the switch (its `completed` counter; a tree
    /// job's root's).
    pub chunks_in_switch: u64,
    /// Racks the job spans (1: a flat job).
    pub racks: u8,
    /// A tree job's leaves' counters, added (zero for a flat job): their
    /// `completed` counts the racks' partials sent up (D1′, D0).
    pub leaf_switches: JobCounters,
    /// A tree job's root's counters (zero for a flat job).
    pub root_switch: JobCounters,
    /// Chunks the PS completed from parts.
    pub chunks_at_ps: u64,
    /// Parts that reached the PS as `EVICTED` (preempted or stale partials,
    /// a leaf's held partial among them) and as `FLUSH`.
    pub evicted_parts: u64,
    /// See [`JobReport::evicted_parts`].
    pub flush_parts: u64,
    /// Retransmissions by all workers.
    pub resends: u64,
    /// Probes sent by all workers at timeouts (not retransmissions).
    pub probes: u64,
    /// Bytes of ESA frames the job's PS received, at real size (a
    /// simulated frame counts for a bundle of real ones).
    pub ps_bytes_received: u64,
    /// Bytes of ESA frames the job's PS sent, at real size.
    pub ps_bytes_sent: u64,
    /// Chunks worker 0 re-ran at a smaller exponent after an overflow.
    pub overflow_retries: u64,
    /// Every result of every worker was the exact sum, and the job finished.
    pub verified: bool,
    /// The switch's counters for the job (every switch of its tree, added).
    pub switch: JobCounters,
}

impl JobReport {
    /// Share of a tree job's rack partials completed in their ToRs (the
    /// first level), 0..=1: of every chunk's `racks` partials; 1 for a flat
    /// job that completed in the switch whatever it could (see
    /// [`JobReport::in_switch_share`]).
    pub fn rack_level_share(&self) -> f64 {
        if self.racks <= 1 {
            return self.in_switch_share();
        }
        let total = self.chunks_per_iteration * u64::from(self.iterations) * u64::from(self.racks);
        if total == 0 {
            0.0
        } else {
            (self.leaf_switches.completed as f64 / total as f64).min(1.0)
        }
    }

    /// Share of the job's chunks completed in the switch, 0..=1.
    pub fn in_switch_share(&self) -> f64 {
        let total = self.chunks_in_switch + self.chunks_at_ps;
        if total == 0 {
            0.0
        } else {
            self.chunks_in_switch as f64 / total as f64
        }
    }
}

/// How the pool's slots spent the run (simulated slots; ratios are the
/// same in real slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SlotUsage {
    /// Simulated slots in the pool.
    pub slots: u64,
    /// Slot-ns spent aggregating: from a claim to the chunk's completion,
    /// preemption or stale reclaim.
    pub aggregating_ns: u64,
    /// Slot-ns held after completion, until the PS released it (ATP).
    pub held_ns: u64,
    /// Claims (a slot taken by a chunk, fresh or by preemption).
    pub uses: u64,
    /// Slot-ns in the run: `slots × end`.
    pub total_ns: u64,
}

impl SlotUsage {
    /// Aggregating slot-time over total slot-time.
    pub fn utilization(&self) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            self.aggregating_ns as f64 / self.total_ns as f64
        }
    }

    /// Average time a slot stayed held after its chunk completed, per use, µs.
    pub fn held_us_per_use(&self) -> f64 {
        if self.uses == 0 {
            0.0
        } else {
            self.held_ns as f64 / self.uses as f64 / 1000.0
        }
    }
}

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq)]
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
    /// How the slots were used (every switch's together).
    pub slots: SlotUsage,
    /// Bytes sent on ToR-to-spine links, at real size (0 on one switch).
    pub uplink_bytes: u64,
    /// Bytes sent on spine-to-ToR links, at real size.
    pub downlink_bytes: u64,
    /// Fraction of the pool aggregating, per [`SimConfig::timeline_bucket_us`]
    /// bucket from time 0 (empty when off).
    pub timeline: Vec<f64>,
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
            let mode = if j.in_network {
                j.mode.to_string()
            } else {
                "none".to_string()
            };
            let _ = writeln!(
                s,
                "{:>4} {:>8} {:>9} {:>3} {:>4}/{:<4} {:>9} {:>7} {:>9} {:>9} {:>8} {:>10} {:>8}",
                j.job,
                mode,
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

/// Progress of a running simulation, for [`run_with_progress`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Virtual time, µs.
    pub now_us: u64,
    /// Events processed so far.
    pub events: u64,
    /// Jobs whose every worker finished.
    pub jobs_done: usize,
    /// Jobs in the run.
    pub jobs: usize,
}

#[derive(Debug)]
enum Event {
    /// A frame reaches the switch on a port: the last packet of its bundle
    /// arrived. `job` and `slot` are its header's.
    ToSwitch {
        port: u16,
        frame: Vec<u8>,
        job: u16,
        slot: u16,
    },
    /// A frame reaches the host on a port.
    ToHost { port: u16, frame: Vec<u8> },
    /// The PS on a port finished serving a frame.
    PsServed { port: u16, frame: Vec<u8> },
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

/// What a simulated slot is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Free,
    Aggregating,
    Held,
}

/// A slot's phase since when, to account slot-time.
#[derive(Debug, Clone, Copy)]
struct SlotTrack {
    key: u32,
    phase: Phase,
    since: u64,
}

/// One direction of a link: when it is next free, in ns (fractional, so
/// that packet times well below 1 ns add up).
#[derive(Debug, Clone, Copy, Default)]
struct Wire {
    free_at: f64,
}

impl Wire {
    /// Sends a bundle of `packets` packets of `packet_ns` each and returns
    /// when its last packet has left. `streamed`: the bundle arrived at
    /// `now` (its last packet) while its first ones were already leaving
    /// (cut-through); otherwise it was all ready at `now` (a host's own).
    fn send(&mut self, now: u64, packet_ns: f64, packets: f64, streamed: bool) -> u64 {
        let now = now as f64;
        let end = if streamed {
            (now + packet_ns).max(self.free_at + packets * packet_ns)
        } else {
            now.max(self.free_at) + packets * packet_ns
        };
        self.free_at = end;
        end.ceil() as u64
    }
}

/// Per job, as the simulation runs it.
#[derive(Debug, Clone)]
struct JobSetup {
    /// Values per iteration in the simulation.
    elements: usize,
    /// Ports of the workers and the PS (the host-only group).
    members: Vec<u16>,
    ps_port: u16,
    /// Workers still running.
    workers_left: usize,
    /// The switches holding the job's entries: a flat job's one, or a
    /// tree's root first, then its leaves.
    switches: Vec<usize>,
    /// Whether the job is a tree (its first switch is the root).
    tree: bool,
}

/// Where a job's hosts went: its racks' switches with their workers, and
/// a tree's root.
struct Placed {
    racks: Vec<(usize, u8)>,
    root: Option<usize>,
}

/// The switches, ports and hosts as [`Sim::new`] builds them.
struct Fabric {
    pools: Vec<Pool>,
    port_switch: Vec<usize>,
    port_peer: Vec<Option<u16>>,
    hosts: Vec<Option<Host>>,
    /// ToRs (1 on one switch).
    racks: usize,
    spines: usize,
    leaf_spine: bool,
    second_level: bool,
    /// Per (switch, switch) linked: the port at the first one.
    links: std::collections::BTreeMap<(usize, usize), u16>,
}

impl Fabric {
    fn new(shape: Option<LeafSpine>, pool: PoolConfig) -> Result<Fabric, String> {
        let (racks, spines) = match shape {
            None => (1, 0),
            Some(f) if (1..=1024).contains(&f.racks) && (1..=64).contains(&f.spines) => {
                (usize::from(f.racks), usize::from(f.spines))
            }
            Some(f) => {
                return Err(format!(
                    "{} racks under {} spines: want 1..=1024 racks and 1..=64 spines",
                    f.racks, f.spines
                ));
            }
        };
        let pools = (0..racks + spines)
            .map(|_| Pool::new(pool).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut fabric = Fabric {
            pools,
            port_switch: vec![usize::MAX],
            port_peer: vec![None],
            hosts: vec![None],
            racks,
            spines,
            leaf_spine: shape.is_some(),
            second_level: shape.is_some_and(|f| f.second_level),
            links: Default::default(),
        };
        for tor in 0..racks {
            for spine in racks..racks + spines {
                let down = fabric.host_port(tor)?;
                let up = fabric.host_port(spine)?;
                fabric.port_peer[usize::from(down)] = Some(up);
                fabric.port_peer[usize::from(up)] = Some(down);
                fabric.links.insert((tor, spine), down);
                fabric.links.insert((spine, tor), up);
            }
        }
        Ok(fabric)
    }

    /// A new port on `switch`.
    fn host_port(&mut self, switch: usize) -> Result<u16, String> {
        let port = u16::try_from(self.hosts.len())
            .map_err(|_| "more ports than the simulation numbers (65,535)".to_string())?;
        self.port_switch.push(switch);
        self.port_peer.push(None);
        self.hosts.push(None);
        Ok(port)
    }

    /// The port at `from` of its link to `to`.
    fn uplink(&self, from: usize, to: usize) -> u16 {
        self.links[&(from, to)]
    }

    /// Checks a job's placement and picks its root.
    fn place(&self, job: &SimJob) -> Result<Placed, String> {
        if !self.leaf_spine {
            if !job.placement.is_empty() {
                return Err(format!(
                    "job {}: a placement needs a leaf-spine fabric",
                    job.job
                ));
            }
            return Ok(Placed {
                racks: vec![(0, job.workers)],
                root: None,
            });
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut total = 0usize;
        for &(rack, workers) in &job.placement {
            if usize::from(rack) >= self.racks || workers == 0 || !seen.insert(rack) {
                return Err(format!(
                    "job {}: placement {:?} names a rack twice, a rack beyond {} or an empty one",
                    job.job, job.placement, self.racks
                ));
            }
            total += usize::from(workers);
        }
        if total != usize::from(job.workers) || job.placement.is_empty() {
            return Err(format!(
                "job {}: placement {:?} holds {total} workers, not {}",
                job.job, job.placement, job.workers
            ));
        }
        let tree = job.placement.len() > 1;
        if tree && job.placement.len() > usize::from(MAX_FAN_IN) {
            return Err(format!("job {}: more than 32 racks", job.job));
        }
        if job.placement.iter().any(|&(_, w)| w > MAX_FAN_IN) {
            return Err(format!("job {}: more than 32 workers in a rack", job.job));
        }
        Ok(Placed {
            racks: job
                .placement
                .iter()
                .map(|&(rack, workers)| (usize::from(rack), workers))
                .collect(),
            root: tree.then(|| self.racks + usize::from(job.job) % self.spines),
        })
    }

    /// Writes a job's entry into `switch`: senders bound in `senders`'
    /// order (the PS's id on the entry's `ps_port`), the group, and the
    /// hosts behind the group's host ports.
    fn install(
        &mut self,
        switch: usize,
        job: u16,
        entry: JobEntry,
        senders: &[u16],
        group: Vec<u16>,
    ) -> Result<(), String> {
        let pool = &mut self.pools[switch];
        pool.insert_job(job, entry).map_err(|e| e.to_string())?;
        // A leaf's `ps_port` is its uplink, which this authorizes too.
        pool.authorize_members(job, senders);
        for &p in &group {
            if self.port_peer[usize::from(p)].is_none() {
                pool.set_host(p, mac(p), ip(p));
            }
        }
        pool.set_group(job, group);
        Ok(())
    }

    fn set_host(&mut self, port: u16, host: Host) {
        self.hosts[usize::from(port)] = Some(host);
    }
}

/// The running simulation.
#[derive(Debug)]
struct Sim {
    config: SimConfig,
    rng: Rng,
    /// One per switch: a leaf–spine fabric's ToRs, then its spines.
    pools: Vec<Pool>,
    /// Ports are numbered across the fabric; per port, the switch that
    /// owns it and, on a link between switches, the port at the other end.
    port_switch: Vec<usize>,
    port_peer: Vec<Option<u16>>,
    /// Switches below this index are ToRs (the rest spines).
    racks: usize,
    /// Indexed by port; port 0 is unused, as are ports between switches.
    hosts: Vec<Option<Host>>,
    setups: Vec<JobSetup>,
    /// Index in `config.jobs` by job id.
    job_index: std::collections::BTreeMap<u16, usize>,
    /// Per port: host to switch, switch to host.
    up: Vec<Wire>,
    down: Vec<Wire>,
    /// Per port: when its PS is next free, ns.
    ps_free: Vec<f64>,
    /// Frames each port's PS received and sent.
    ps_frames: Vec<(u64, u64)>,
    /// Time of one real packet on a link (`None`: unlimited), and at a
    /// host's send cap, ns.
    link_packet_ns: Option<f64>,
    host_packet_ns: Option<f64>,
    /// Time of one real packet on a ToR–spine link, ns.
    uplink_packet_ns: Option<f64>,
    /// Real bytes sent up (ToR to spine) and down between switches.
    link_bytes: (u64, u64),
    /// Expected sums of the iteration each job is on, cached.
    expected: Vec<Option<(u32, Vec<f32>)>>,
    queue: BinaryHeap<Reverse<Scheduled>>,
    order: u64,
    /// Virtual time, ns.
    now: u64,
    frames_lost: u64,
    events: u64,
    violations: Vec<String>,
    workers_left: usize,
    jobs_done: usize,
    /// Per switch and slot (`switch × pool_slots + slot`).
    slots: Vec<SlotTrack>,
    pool_slots: usize,
    usage: SlotUsage,
    timeline: Vec<f64>,
}

use crate::addressing::{SWITCH_IP, SWITCH_MAC, host_ip as ip, host_mac as mac};

/// Ethernet frame check sequence, bytes.
pub const FCS_LEN: usize = 4;
/// Ethernet preamble, start-of-frame delimiter and inter-frame gap: the
/// bytes of line time a frame takes besides the frame itself.
pub const PREAMBLE_IFG_LEN: usize = 20;
/// Smallest Ethernet frame (with FCS).
pub const MIN_FRAME_LEN: usize = 64;

/// Bytes of line time one ESA packet with `lanes` lanes takes: the frame
/// and its FCS, padded to 64 bytes, plus preamble and inter-frame gap. 210
/// bytes at 32 lanes.
pub const fn wire_bytes(lanes: usize) -> usize {
    let frame = esa_frame_len(lanes) + FCS_LEN;
    let frame = if frame < MIN_FRAME_LEN {
        MIN_FRAME_LEN
    } else {
        frame
    };
    frame + PREAMBLE_IFG_LEN
}

/// Time one packet of `lanes` lanes takes at `gbps`, ns.
pub fn packet_ns(lanes: usize, gbps: f64) -> f64 {
    wire_bytes(lanes) as f64 * 8.0 / gbps
}

impl SimConfig {
    /// Lanes of the real packets.
    pub fn real_lanes(&self) -> usize {
        if self.wire_lanes == 0 {
            self.pool.lanes
        } else {
            self.wire_lanes
        }
    }

    /// Simulated chunks per iteration of a job of `elements` values.
    pub fn sim_chunks(&self, elements: usize) -> u64 {
        chunks(elements, self.real_lanes()).div_ceil(u64::from(self.bundle.max(1)))
    }

    /// Values per iteration the simulation carries for a job of `elements`
    /// real values: all of them at packet level with the wire's lanes,
    /// otherwise a full simulated packet per simulated chunk.
    pub fn sim_elements(&self, elements: usize) -> usize {
        if self.bundle <= 1 && self.real_lanes() == self.pool.lanes {
            elements
        } else {
            self.sim_chunks(elements) as usize * self.pool.lanes
        }
    }
}

impl Sim {
    fn new(config: SimConfig) -> Result<Sim, String> {
        let bundle = config.bundle.max(1) as usize;
        if !bundle.is_power_of_two() || bundle > config.pool.slots {
            return Err(format!(
                "bundle {bundle}: must be a power of two no larger than the pool ({} slots)",
                config.pool.slots
            ));
        }
        let pool_config = PoolConfig {
            slots: config.pool.slots / bundle,
            ..config.pool
        };
        let mut fabric = Fabric::new(config.fabric, pool_config)?;
        let mut queue = BinaryHeap::new();
        let mut order = 0;
        let mut workers_left = 0;
        let mut setups = vec![];
        let mut job_index = std::collections::BTreeMap::new();
        let mut rng = Rng::new(config.seed);
        for (k, job) in config.jobs.iter().enumerate() {
            if job_index.insert(job.job, k).is_some() {
                return Err(format!("job id {} used twice", job.job));
            }
            let slots = if job.mode.has_own_slots() {
                let range = (usize::from(job.slot_mask) + 1) / bundle;
                if range == 0 {
                    return Err(format!(
                        "job {}: a switchml range of {} slots is smaller than a bundle ({bundle})",
                        job.job,
                        usize::from(job.slot_mask) + 1
                    ));
                }
                SlotRange {
                    base: (usize::from(job.slot_base) / bundle) as u16,
                    mask: (range - 1) as u16,
                }
            } else {
                SlotRange::whole_pool(pool_config.slots)
            };
            let plan_for = |fan_in: u8| {
                let mut plan = JobPlan::new(job.job, fan_in, job.mode, slots);
                plan.lanes = config.pool.lanes;
                plan.window = job.window.div_ceil(bundle).max(1);
                plan.exponent = job.exponent;
                plan.policy = job.policy;
                plan.rto = config.rto;
                plan.chunks_total =
                    Some(config.sim_chunks(job.elements) * u64::from(job.iterations));
                plan
            };
            let placed = fabric.place(job)?;
            let racks = placed.racks.len();
            // A tree job's plan: the root's fan-in and the racks' shape,
            // from which its workers' and PS's settings come.
            let tree_plan = placed.root.map(|_| {
                let mut plan = plan_for(racks as u8);
                let workers: Vec<u8> = placed.racks.iter().map(|r| r.1).collect();
                plan.tree = TreeShape::new(&workers);
                plan
            });
            let mut members = vec![];
            let mut hosts_of_job = vec![];
            for (bit, &(switch, workers)) in placed.racks.iter().enumerate() {
                let rack_plan = plan_for(workers);
                let mut ports = vec![];
                for local in 0..workers {
                    let wc = match &tree_plan {
                        Some(plan) => plan
                            .tree_worker_config(bit as u8, local)
                            .ok_or_else(|| format!("job {}: no rack {bit}", job.job))?,
                        None => rack_plan.worker_config(local),
                    };
                    let worker = Worker::new(wc).map_err(|e| format!("job {}: {e}", job.job))?;
                    let id = hosts_of_job.len() as u8;
                    let port = fabric.host_port(switch)?;
                    hosts_of_job.push((
                        port,
                        Host::Worker(Box::new(WorkerHost {
                            job: k,
                            id,
                            worker,
                            iteration: 0,
                            timer_at: None,
                            done_at: None,
                            wrong_results: 0,
                        })),
                    ));
                    ports.push(port);
                    workers_left += 1;
                    order += 1;
                    let first = job.start_us + job.compute_us + rng.range(0, job.compute_jitter_us);
                    queue.push(Reverse(Scheduled {
                        at: first * 1000,
                        order,
                        event: Event::ComputeDone { port },
                    }));
                }
                members.extend(&ports);
                if let Some(root) = placed.root {
                    let uplink = Uplink {
                        port: fabric.uplink(switch, root),
                        bit: bit as u8,
                        root_fan_in: racks as u8,
                    };
                    let mut entry = rack_plan.entry(job.max_priority, job.job, uplink.port);
                    entry.tree = TreeRole::Leaf {
                        uplink,
                        aggregate: job.in_network,
                    };
                    let mut group = ports.clone();
                    group.push(uplink.port);
                    fabric.install(switch, job.job, entry, &ports, group)?;
                }
            }
            let ps_switch = placed.root.unwrap_or(placed.racks[0].0);
            let ps_port = fabric.host_port(ps_switch)?;
            let (ps_fan_in, mut options) = match (placed.root, &tree_plan) {
                (Some(root), Some(plan)) => {
                    let children: Vec<u16> = placed
                        .racks
                        .iter()
                        .map(|&(leaf, _)| fabric.uplink(root, leaf))
                        .collect();
                    let mut entry = plan.entry(job.max_priority, job.job, ps_port);
                    entry.tree = TreeRole::Root {
                        aggregate: job.in_network && fabric.second_level,
                        racks: racks as u8,
                    };
                    let mut group = children.clone();
                    group.push(ps_port);
                    fabric.install(root, job.job, entry, &children, group)?;
                    (racks as u8, plan.ps_options())
                }
                _ => {
                    let plan = plan_for(job.workers);
                    let entry = plan.entry(job.max_priority, job.job, ps_port);
                    let mut group = members.clone();
                    group.push(ps_port);
                    fabric.install(ps_switch, job.job, entry, &members, group)?;
                    (job.workers, plan.ps_options())
                }
            };
            let mut ps =
                ParameterServer::new(plan_for(ps_fan_in).ps_config()).map_err(|e| e.to_string())?;
            // In atp mode the switch hands completions to the PS, which
            // multicasts them back through the switch (releasing the slot).
            // The host-only baseline's PS forwards them too.
            options.forward_results |= !job.in_network;
            ps.add_job_with(job.job, ps_fan_in, options)
                .map_err(|e| e.to_string())?;
            hosts_of_job.push((
                ps_port,
                Host::Ps {
                    job: k,
                    ps: Box::new(ps),
                },
            ));
            for (port, host) in hosts_of_job {
                fabric.set_host(port, host);
            }
            members.push(ps_port);
            let mut switches: Vec<usize> = placed.root.into_iter().collect();
            switches.extend(
                placed
                    .racks
                    .iter()
                    .map(|r| r.0)
                    .filter(|_| placed.root.is_some()),
            );
            if placed.root.is_none() {
                switches.push(ps_switch);
            }
            setups.push(JobSetup {
                elements: config.sim_elements(job.elements),
                members,
                ps_port,
                workers_left: usize::from(job.workers),
                switches,
                tree: placed.root.is_some(),
            });
        }
        let lanes = config.real_lanes();
        let link_packet_ns = config.link.gbps.map(|g| packet_ns(lanes, g));
        let host_gbps = match (config.link.gbps, config.host_gbps) {
            (Some(l), Some(h)) => Some(l.min(h)),
            (l, h) => l.or(h),
        };
        let host_packet_ns = host_gbps.map(|g| packet_ns(lanes, g));
        let uplink_packet_ns = config
            .fabric
            .and_then(|f| f.uplink_gbps)
            .map(|g| packet_ns(lanes, g))
            .or(link_packet_ns);
        let ports = fabric.hosts.len();
        let jobs = config.jobs.len();
        let switches = fabric.pools.len();
        Ok(Sim {
            rng,
            pools: fabric.pools,
            port_switch: fabric.port_switch,
            port_peer: fabric.port_peer,
            racks: fabric.racks,
            hosts: fabric.hosts,
            setups,
            job_index,
            up: vec![Wire::default(); ports],
            down: vec![Wire::default(); ports],
            ps_free: vec![0.0; ports],
            ps_frames: vec![(0, 0); ports],
            link_packet_ns,
            host_packet_ns,
            uplink_packet_ns,
            link_bytes: (0, 0),
            expected: vec![None; jobs],
            queue,
            order,
            now: 0,
            frames_lost: 0,
            events: 0,
            violations: vec![],
            workers_left,
            jobs_done: 0,
            slots: vec![
                SlotTrack {
                    key: 0,
                    phase: Phase::Free,
                    since: 0,
                };
                pool_config.slots * switches
            ],
            pool_slots: pool_config.slots,
            usage: SlotUsage {
                slots: (pool_config.slots * switches) as u64,
                ..SlotUsage::default()
            },
            timeline: vec![],
            config,
        })
    }

    fn bundle(&self) -> f64 {
        f64::from(self.config.bundle.max(1))
    }

    fn schedule(&mut self, at: u64, event: Event) {
        self.order += 1;
        self.queue.push(Reverse(Scheduled {
            at,
            order: self.order,
            event,
        }));
    }

    /// Puts a frame on a link that is free from `sent` (when its last
    /// packet left): lost, delayed, maybe duplicated.
    fn transmit(&mut self, sent: u64, frame: Vec<u8>, make: impl Fn(Vec<u8>) -> Event) {
        let link = self.config.link;
        let faults = FaultConfig {
            seed: self.config.seed,
            loss: link.loss,
            duplicate: link.duplicate,
            max_delay: Duration::from_nanos(link.jitter_ns),
        };
        let fate = faults.apply(&mut self.rng);
        self.frames_lost += u64::from(fate.lost);
        for delay in fate.delays.into_iter().flatten() {
            let at = sent + link.latency_ns + delay.as_nanos() as u64;
            self.schedule(at, make(frame.clone()));
        }
    }

    /// A host sends a payload: on its uplink, `streamed` when it answers a
    /// bundle that is still arriving.
    fn send_from_host(&mut self, port: u16, payload: &[u8], streamed: bool) {
        let lanes = self.config.pool.lanes;
        let Ok((esa, values)) = EsaRepr::from_payload(payload, lanes) else {
            self.violations.push(format!(
                "seed {}: host {port} emitted a malformed payload",
                self.config.seed
            ));
            return;
        };
        let (job, slot) = (esa.key.job(), esa.slot);
        let frame = FrameRepr {
            src_mac: mac(port),
            dst_mac: SWITCH_MAC,
            src_ip: ip(port),
            dst_ip: SWITCH_IP,
            esa,
        }
        .emit(&values, lanes);
        let bundle = self.bundle();
        let sent = match self.host_packet_ns {
            Some(t) => self.up[usize::from(port)].send(self.now, t, bundle, streamed),
            None => self.now,
        };
        self.transmit(sent, frame, |frame| Event::ToSwitch {
            port,
            frame,
            job,
            slot,
        });
    }

    /// A switch sends a frame out of a port (cut-through): to the host
    /// behind it, or across a link to another switch.
    fn send_from_switch(&mut self, port: u16, frame: Vec<u8>) {
        let bundle = self.bundle();
        let Some(peer) = self.port_peer[usize::from(port)] else {
            let sent = match self.link_packet_ns {
                Some(t) => self.down[usize::from(port)].send(self.now, t, bundle, true),
                None => self.now,
            };
            self.transmit(sent, frame, |frame| Event::ToHost { port, frame });
            return;
        };
        let bytes = esa_frame_len(self.config.real_lanes()) as u64 * bundle as u64;
        if self.port_switch[usize::from(port)] < self.racks {
            self.link_bytes.0 += bytes;
        } else {
            self.link_bytes.1 += bytes;
        }
        let sent = match self.uplink_packet_ns {
            Some(t) => self.down[usize::from(port)].send(self.now, t, bundle, true),
            None => self.now,
        };
        let lanes = self.config.pool.lanes;
        let payload = &frame[ESA_OFFSET..ESA_OFFSET + esa_payload_len(lanes)];
        let (job, slot) = match EsaPacket::new_checked(payload, lanes) {
            Ok(p) => (p.key().job(), p.slot()),
            Err(_) => return,
        };
        self.transmit(sent, frame, |frame| Event::ToSwitch {
            port: peer,
            frame,
            job,
            slot,
        });
    }

    fn run(&mut self, progress: &mut dyn FnMut(Progress)) {
        let limit = self.config.time_limit_us.saturating_mul(1000);
        let mut next_report = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while let Some(Reverse(next)) = self.queue.pop() {
            if next.at > limit || self.workers_left == 0 {
                break;
            }
            self.now = next.at;
            self.events += 1;
            match next.event {
                Event::ToSwitch {
                    port,
                    frame,
                    job,
                    slot,
                } => self.at_switch(port, frame, job, slot),
                Event::ToHost { port, frame } => self.at_host(port, frame),
                Event::PsServed { port, frame } => self.ps_serve(port, &frame),
                Event::Timer { port } => self.on_timer(port),
                Event::ComputeDone { port } => self.on_compute_done(port),
            }
            if self.events.is_multiple_of(65_536) && std::time::Instant::now() >= next_report {
                next_report += std::time::Duration::from_secs(1);
                progress(self.progress());
            }
        }
        progress(self.progress());
    }

    fn progress(&self) -> Progress {
        Progress {
            now_us: self.now / 1000,
            events: self.events,
            jobs_done: self.jobs_done,
            jobs: self.config.jobs.len(),
        }
    }

    fn at_switch(&mut self, port: u16, frame: Vec<u8>, job: u16, slot: u16) {
        // A tree job without in-network aggregation runs through its
        // switches with aggregation off (§9.6); a flat one bypasses them.
        let bypass = self
            .job_index
            .get(&job)
            .is_some_and(|&k| !self.config.jobs[k].in_network && !self.setups[k].tree);
        if bypass {
            self.bypass(port, &frame);
            return;
        }
        let switch = self.port_switch[usize::from(port)];
        let decision = self.pools[switch].process(&frame, port, self.now / 1000);
        self.track_slot(switch, job, slot);
        if let Some(emit) = decision.emit {
            for (out_port, out) in self.pools[switch].egress(&emit) {
                self.send_from_switch(out_port, out);
            }
        }
    }

    /// Host-only forwarding: `DATA` to the job's PS as `FALLBACK`, the PS's
    /// `RESULT` and `QUERY` to the group.
    fn bypass(&mut self, port: u16, frame: &[u8]) {
        let lanes = self.config.pool.lanes;
        let payload = &frame[ESA_OFFSET..ESA_OFFSET + esa_payload_len(lanes)];
        let Ok((mut esa, values)) = EsaRepr::from_payload(payload, lanes) else {
            return;
        };
        let Some(&k) = self.job_index.get(&esa.key.job()) else {
            return;
        };
        let setup = &self.setups[k];
        if !setup.members.contains(&port) {
            return;
        }
        let Some((route, packet_type)) = host_only_route(esa.packet_type) else {
            return;
        };
        esa.packet_type = packet_type;
        let ports = match route {
            HostOnlyRoute::Ps => vec![setup.ps_port],
            // As the switch relays (docs/protocol.md §4.3): never back to
            // the sender.
            HostOnlyRoute::Group => setup
                .members
                .iter()
                .copied()
                .filter(|&p| p != port)
                .collect(),
        };
        for p in ports {
            let out = FrameRepr {
                src_mac: SWITCH_MAC,
                dst_mac: mac(p),
                src_ip: SWITCH_IP,
                dst_ip: ip(p),
                esa,
            }
            .emit(&values, lanes);
            self.send_from_switch(p, out);
        }
    }

    /// Accounts the slot of `switch` a packet of `job` for `slot` touched.
    fn track_slot(&mut self, switch: usize, job: u16, slot: u16) {
        let pool = &self.pools[switch];
        let Some(entry) = pool.job(job) else {
            return;
        };
        let local = (usize::from(entry.slot_base) + usize::from(slot)) & (self.pool_slots - 1);
        let state = pool.slot_phase(local);
        let i = switch * self.pool_slots + local;
        let phase = match state.1 {
            SlotPhase::Free => Phase::Free,
            SlotPhase::Aggregating => Phase::Aggregating,
            SlotPhase::Held => Phase::Held,
        };
        let track = self.slots[i];
        if track.phase == phase && (phase == Phase::Free || track.key == state.0) {
            return;
        }
        self.close_phase(i);
        if phase == Phase::Aggregating
            && (track.phase != Phase::Aggregating || track.key != state.0)
        {
            self.usage.uses += 1;
        }
        self.slots[i] = SlotTrack {
            key: state.0,
            phase,
            since: self.now,
        };
    }

    /// Adds slot `i`'s time in its current phase to the totals.
    fn close_phase(&mut self, i: usize) {
        let track = self.slots[i];
        let span = self.now - track.since;
        match track.phase {
            Phase::Free => {}
            Phase::Held => self.usage.held_ns += span,
            Phase::Aggregating => {
                self.usage.aggregating_ns += span;
                let bucket = self.config.timeline_bucket_us * 1000;
                let slots = self.slots.len() as f64;
                let mut t = track.since;
                while let Some(b) = t.checked_div(bucket).filter(|_| t < self.now) {
                    let end = ((b + 1) * bucket).min(self.now);
                    let b = b as usize;
                    if self.timeline.len() <= b {
                        self.timeline.resize(b + 1, 0.0);
                    }
                    self.timeline[b] += (end - t) as f64 / (bucket as f64 * slots);
                    t = end;
                }
            }
        }
        self.slots[i].since = self.now;
    }

    fn at_host(&mut self, port: u16, frame: Vec<u8>) {
        let lanes = self.config.pool.lanes;
        if let Err(e) = ParsedFrame::parse(&frame, lanes) {
            self.violations.push(format!(
                "seed {}: host {port} got a bad frame: {e}",
                self.config.seed
            ));
            return;
        }
        if matches!(self.hosts[usize::from(port)], Some(Host::Ps { .. })) {
            self.ps_frames[usize::from(port)].0 += 1;
            // The PS serves one packet at a time; a bundle streams through.
            let service = self.config.ps_service_ns as f64;
            if service > 0.0 {
                let bundle = self.bundle();
                let free = &mut self.ps_free[usize::from(port)];
                let now = self.now as f64;
                let end = (now + service).max(*free + bundle * service);
                *free = end;
                self.schedule(end.ceil() as u64, Event::PsServed { port, frame });
                return;
            }
            self.ps_serve(port, &frame);
            return;
        }
        let payload = &frame[ESA_OFFSET..ESA_OFFSET + esa_payload_len(lanes)];
        let now = self.now / 1000;
        if let Some(Host::Worker(w)) = self.hosts[usize::from(port)].as_mut() {
            // Errors are counted in the worker's stats and checked at the end.
            let _ = w.worker.handle_payload(payload, now);
        }
        self.pump(port, true);
    }

    fn ps_serve(&mut self, port: u16, frame: &[u8]) {
        let lanes = self.config.pool.lanes;
        let payload = &frame[ESA_OFFSET..ESA_OFFSET + esa_payload_len(lanes)];
        let now = self.now / 1000;
        if let Some(Host::Ps { ps, .. }) = self.hosts[usize::from(port)].as_mut() {
            let _ = ps.handle_payload(payload, now);
        }
        self.pump(port, true);
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
            if w.worker.poll_timeout().is_some_and(|t| t * 1000 <= now) {
                w.worker.handle_timeout(now / 1000);
            }
        }
        self.pump(port, false);
    }

    fn on_compute_done(&mut self, port: u16) {
        let now = self.now;
        let seed = self.config.seed;
        if let Some(Host::Worker(w)) = self.hosts[usize::from(port)].as_mut() {
            let job = &self.config.jobs[w.job];
            let data: Vec<f32> = (0..self.setups[w.job].elements)
                .map(|i| gradient_value(seed, job.job, w.id, w.iteration, i))
                .collect();
            if let Err(e) = w.worker.start_allreduce(&data, now / 1000) {
                self.violations
                    .push(format!("seed {seed}: job {} worker {}: {e}", job.job, w.id));
            }
        }
        self.pump(port, false);
    }

    /// The exact sum of job `k`'s gradients in `iteration`, computed once.
    fn expected(&mut self, k: usize, iteration: u32) -> &[f32] {
        let stale = self.expected[k]
            .as_ref()
            .is_none_or(|(it, _)| *it != iteration);
        if stale {
            let job = &self.config.jobs[k];
            let seed = self.config.seed;
            let sums = (0..self.setups[k].elements)
                .map(|i| {
                    (0..job.workers)
                        .map(|w| gradient_value(seed, job.job, w, iteration, i))
                        .sum()
                })
                .collect();
            self.expected[k] = Some((iteration, sums));
        }
        self.expected[k].as_ref().map_or(&[], |(_, v)| v.as_slice())
    }

    /// Sends what a host has to send, handles its events, arms its timer.
    /// `streamed`: the host is answering a bundle that is still arriving.
    fn pump(&mut self, port: u16, streamed: bool) {
        let now = self.now;
        let mut out = vec![];
        let mut next_compute = None;
        let mut timer = None;
        let mut completed = vec![];
        match self.hosts[usize::from(port)].as_mut() {
            Some(Host::Worker(w)) => {
                while let Some(p) = w.worker.poll_transmit(now / 1000) {
                    out.push(p);
                }
                while let Some(event) = w.worker.poll_event() {
                    match event {
                        WorkerEvent::Completed { .. } => {
                            let result = w.worker.take_result().unwrap_or_default();
                            completed.push((w.job, w.iteration, result));
                            w.iteration += 1;
                        }
                        WorkerEvent::Failed(e) => {
                            let job = &self.config.jobs[w.job];
                            self.violations.push(format!(
                                "seed {}: job {} worker {} failed: {e}",
                                self.config.seed, job.job, w.id
                            ));
                        }
                    }
                }
                // Arm the timer unless an earlier one is queued; a timer
                // that fires early re-arms here.
                if let Some(t) = w.worker.poll_timeout().map(|t| (t * 1000).max(now))
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
                self.ps_frames[usize::from(port)].1 += out.len() as u64;
            }
            None => {}
        }
        for (k, iteration, result) in completed {
            let exact = result.as_slice() == self.expected(k, iteration);
            let seed = self.config.seed;
            let job = &self.config.jobs[k];
            let (job_id, iterations, compute_us) = (job.job, job.iterations, job.compute_us);
            let Some(Host::Worker(w)) = self.hosts[usize::from(port)].as_mut() else {
                continue;
            };
            if !exact {
                w.wrong_results += 1;
                self.violations.push(format!(
                    "seed {seed}: job {job_id} worker {} iteration {iteration}: result is not the exact sum",
                    w.id
                ));
            }
            if iteration + 1 < iterations {
                next_compute = Some(now + compute_us * 1000);
            } else {
                w.done_at = Some(now / 1000);
                self.workers_left -= 1;
                self.setups[k].workers_left -= 1;
                if self.setups[k].workers_left == 0 {
                    self.jobs_done += 1;
                }
            }
        }
        if let Some(t) = timer {
            self.schedule(t, Event::Timer { port });
        }
        if let Some(at) = next_compute {
            let jitter = self.compute_jitter(port);
            self.schedule(at + jitter * 1000, Event::ComputeDone { port });
        }
        for p in out {
            self.send_from_host(port, &p, streamed);
        }
    }

    fn report(mut self) -> SimReport {
        let seed = self.config.seed;
        for i in 0..self.slots.len() {
            self.close_phase(i);
        }
        let mut jobs = vec![];
        // A simulated frame stands for a bundle of real ones.
        let real_frame =
            esa_frame_len(self.config.real_lanes()) as u64 * u64::from(self.config.bundle.max(1));
        for (k, job) in self.config.jobs.iter().enumerate() {
            let mut iterations_done = u32::MAX;
            let mut done = Some(0u64);
            let mut resends = 0;
            let mut probes = 0;
            let mut ps_frames = (0, 0);
            let mut overflow_retries = 0;
            let mut wrong = 0;
            let mut ps_completed = 0;
            let mut ps_parts = (0, 0);
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
                        probes += stats.probes;
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
                        ps_frames = self.ps_frames[usize::from(self.setups[k].ps_port)];
                        if let Some(s) = ps.job_stats(job.job) {
                            ps_completed = s.results_completed;
                            ps_parts = (s.evicted_parts, s.flush_parts);
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
            let setup = &self.setups[k];
            let mut counters = JobCounters::default();
            let mut leaf_switches = JobCounters::default();
            let mut root_switch = JobCounters::default();
            for (n, &switch) in setup.switches.iter().enumerate() {
                let c = self.pools[switch].counters(job.job);
                if c.data_outcomes() != c.data_rx {
                    self.violations.push(format!(
                        "seed {seed}: job {}: switch {switch}'s counters do not add up: {c:?}",
                        job.job
                    ));
                }
                match (setup.tree, n) {
                    (false, _) => {}
                    (true, 0) => root_switch = c,
                    (true, _) => leaf_switches += c,
                }
                counters += c;
            }
            let chunks_in_switch = self.pools[setup.switches[0]].counters(job.job).completed;
            let racks = if setup.tree {
                (setup.switches.len() - 1) as u8
            } else {
                1
            };
            let finished = iterations_done == job.iterations;
            if !finished {
                self.violations.push(format!(
                    "seed {seed}: job {} finished {iterations_done} of {} iterations by {} µs",
                    job.job,
                    job.iterations,
                    self.now / 1000
                ));
            }
            jobs.push(JobReport {
                job: job.job,
                mode: job.mode,
                in_network: job.in_network,
                policy: job.policy.to_string(),
                workers: job.workers,
                iterations_done,
                iterations: job.iterations,
                chunks_per_iteration: self.config.sim_chunks(job.elements),
                start_us: job.start_us,
                jct_us: done.filter(|_| finished).map(|t| t - job.start_us),
                chunks_in_switch,
                racks,
                leaf_switches,
                root_switch,
                chunks_at_ps: ps_completed,
                evicted_parts: ps_parts.0,
                flush_parts: ps_parts.1,
                resends,
                probes,
                ps_bytes_received: ps_frames.0 * real_frame,
                ps_bytes_sent: ps_frames.1 * real_frame,
                overflow_retries,
                verified: finished && wrong == 0,
                switch: counters,
            });
        }
        self.usage.total_ns = self.usage.slots * self.now;
        SimReport {
            seed,
            jobs,
            end_us: self.now / 1000,
            events: self.events,
            frames_lost: self.frames_lost,
            slots: self.usage,
            uplink_bytes: self.link_bytes.0,
            downlink_bytes: self.link_bytes.1,
            timeline: self.timeline,
            violations: self.violations,
        }
    }
}

/// Runs a simulation to the end (every worker done, or the time limit).
///
/// A config the pool or a worker refuses is reported as a violation.
pub fn run(config: &SimConfig) -> SimReport {
    run_with_progress(config, &mut |_| {})
}

/// [`run`], calling `progress` about once a second of wall time and at the end.
pub fn run_with_progress(config: &SimConfig, progress: &mut dyn FnMut(Progress)) -> SimReport {
    match Sim::new(config.clone()) {
        Ok(mut sim) => {
            sim.run(progress);
            sim.report()
        }
        Err(e) => SimReport {
            seed: config.seed,
            jobs: vec![],
            end_us: 0,
            events: 0,
            frames_lost: 0,
            slots: SlotUsage::default(),
            uplink_bytes: 0,
            downlink_bytes: 0,
            timeline: vec![],
            violations: vec![format!("seed {}: bad config: {e}", config.seed)],
        },
    }
}
