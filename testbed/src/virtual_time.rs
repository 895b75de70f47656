//! The `sim` fabric: an experiment in virtual time ([`Simulated`], the
//! variant runner `esa_testbed::run_experiment` picks for it).
//!
//! The same experiment file that runs on the embedded switch runs here
//! through [`esa_core::sim`]: the same worker and PS state machines and the
//! pool model the P4 program is tested equal to, joined by links with
//! bandwidth and propagation delay (`[fabric]`'s parameters). Nothing runs
//! on a clock, so a cluster of real model sizes at 100 Gbit/s takes minutes
//! of CPU rather than hours, and every run is a function of the file.
//!
//! Besides the per-job report of the other fabrics, each variant gets the
//! cluster figures of [`ClusterStats`]; a job's slowdown is its JCT over
//! the JCT it has alone on the same fabric (simulated once per distinct
//! job shape and reused). With a `[topology]` the fabric is racks under
//! spines (`esa_core::sim::LeafSpine`), each job placed as
//! [`crate::topology`] decided, and [`RackStats`] adds the spine links'
//! bytes and each level's share.

use std::collections::HashMap;
use std::time::Instant;

use esa_core::job::{Mode, SlotRange};
use esa_core::pool::PoolConfig;
use esa_core::rtt::Rto;
use esa_core::sim::{self, LeafSpine, LinkConfig, SimConfig, SimJob, SimReport};
use serde::Serialize;

use crate::error::TestbedError;
use crate::experiment::{Experiment, JobSpec, SimParams, Variant};
use crate::report::{JobReport, VariantReport};
use crate::run::{Setup, VariantRunner};
use crate::topology::Topology;

/// Lanes each simulated packet carries: the sums are checked exactly on
/// these, while the wire carries the experiment's `lanes` (see
/// [`SimConfig::wire_lanes`]).
const SIM_LANES: usize = 4;

/// Stale bound when the file gives none: far beyond any round trip of the
/// simulated fabric, so slots are reclaimed only from jobs that left them.
const DEFAULT_STALE_MS: u64 = 100;

/// Width of the utilization timeline's buckets.
const TIMELINE_BUCKET_MS: u64 = 10;

/// Iterations of a job simulated alone to estimate its JCT alone.
const ALONE_ITERATIONS: u32 = 2;

/// Cluster figures of one variant.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClusterStats {
    /// Mean JCT, ms.
    pub mean_jct_ms: f64,
    /// 95th percentile JCT (nearest rank), ms.
    pub p95_jct_ms: f64,
    /// Mean slowdown against running alone.
    pub mean_slowdown: f64,
    /// Largest slowdown.
    pub max_slowdown: f64,
    /// Jain's fairness index of `1 / slowdown` over the jobs (1 = equal).
    pub jain_fairness: f64,
    /// Slot-time spent aggregating over all slot-time.
    pub aggregator_utilization: f64,
    /// Slot-time held after completion (waiting for the PS), per slot use, µs.
    pub held_us_per_use: f64,
    /// Fraction of the pool aggregating per bucket of `timeline_bucket_ms`.
    pub utilization_timeline: Vec<f64>,
    /// Width of a timeline bucket, ms.
    pub timeline_bucket_ms: f64,
    /// Virtual time at the end, ms.
    pub simulated_ms: f64,
    /// Events simulated.
    pub events: u64,
    /// Events per second of wall time.
    pub events_per_s: f64,
    /// Real packets per simulated packet in this variant.
    pub bundle: u32,
    /// With a `[topology]`: the spine links and each level's share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub racks: Option<RackStats>,
}

/// A variant's figures on racks under spines.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RackStats {
    /// Racks (ToRs).
    pub racks: u16,
    /// Hosts per rack.
    pub hosts_per_rack: u16,
    /// Spines.
    pub spines: u16,
    /// Each ToR-spine link's rate, Gbit/s.
    pub uplink_gbps: f64,
    /// A rack's hosts' capacity over its uplinks'.
    pub oversubscription: f64,
    /// The placement policy.
    pub placement: String,
    /// Whether jobs across racks aggregated at the spine too.
    pub second_level: bool,
    /// Jobs with workers in more than one rack (trees).
    pub jobs_across_racks: usize,
    /// Racks per job, mean.
    pub mean_racks_per_job: f64,
    /// Time jobs waited for free hosts, mean, ms.
    pub mean_queued_ms: f64,
    /// Bytes sent on ToR-to-spine links, at real size.
    pub spine_bytes_up: u64,
    /// Bytes sent on spine-to-ToR links, at real size.
    pub spine_bytes_down: u64,
    /// First level: of every job's rack partials (a rack's sum of one
    /// chunk), the share its ToR completed; a one-rack job's is its
    /// in-switch share. Weighted by chunks × racks.
    pub rack_share: f64,
    /// Second level: of the chunks of jobs across racks, the share their
    /// spine completed (`None`: no such job).
    pub spine_share: Option<f64>,
}

impl RackStats {
    /// Bytes on the spine links, both ways.
    pub fn spine_bytes(&self) -> u64 {
        self.spine_bytes_up + self.spine_bytes_down
    }
}

/// Jain's index of `values`: `(Σx)² / (n Σx²)`.
pub fn jain(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    let squares: f64 = values.iter().map(|x| x * x).sum();
    if squares == 0.0 {
        0.0
    } else {
        sum * sum / (n * squares)
    }
}

/// The nearest-rank `p` percentile of `values` (0 when empty).
pub fn percentile(values: &[f64], p: f64) -> f64 {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v[rank.min(v.len()) - 1]
}

/// The simulator's configuration for `jobs` (already resolved for a
/// variant) of `experiment` on `params`.
pub fn sim_config(
    experiment: &Experiment,
    jobs: &[JobSpec],
    variant: &Variant,
    params: &SimParams,
) -> SimConfig {
    let pool_slots = experiment.switch.pool_slots as usize;
    let mut next_base = 0usize;
    let sim_jobs: Vec<SimJob> = jobs
        .iter()
        .enumerate()
        .map(|(k, spec)| {
            let mut job = SimJob::new(
                (k + 1) as u16,
                spec.workers,
                spec.gradient_elems,
                spec.iterations,
            );
            job.mode = spec.mode;
            job.in_network = variant.in_network;
            job.policy = spec.policy;
            job.max_priority = spec.priority;
            job.compute_us = spec.compute_us;
            job.compute_jitter_us = (spec.compute_us as f64 * params.compute_jitter).round() as u64;
            job.start_us = spec.arrival_us;
            job.window = spec.window;
            if let Some(placed) = experiment.placements.get(k) {
                job.start_us = placed.start_us;
                job.placement = placed.racks.clone();
            }
            if spec.mode.has_own_slots() {
                // Ranges side by side around the pool, as the controller
                // hands them out to jobs that arrive one after another.
                let slots = spec.slots.unwrap_or(pool_slots as u32) as usize;
                let slots = slots.clamp(1, pool_slots);
                let base = match spec.slot_base {
                    Some(b) => b as usize,
                    None => {
                        let b = next_base;
                        next_base = (next_base + slots) % pool_slots;
                        b
                    }
                };
                let range = SlotRange {
                    base: base as u16,
                    mask: (slots - 1) as u16,
                };
                (job.slot_base, job.slot_mask) = (range.base, range.mask);
                job.window = range.window_for(spec.mode, job.window);
            }
            job
        })
        .collect();
    let stale_ms = experiment.switch.stale_after_ms.unwrap_or(DEFAULT_STALE_MS);
    let bundle = effective_bundle(params.bundle, pool_slots, &sim_jobs);
    SimConfig {
        seed: experiment.seed,
        pool: PoolConfig {
            slots: pool_slots,
            lanes: SIM_LANES,
            stale_after_us: stale_ms * 1000,
        },
        jobs: sim_jobs,
        link: LinkConfig {
            latency_ns: params.propagation_ns,
            jitter_ns: 0,
            loss: experiment.switch.loss,
            duplicate: 0.0,
            gbps: Some(params.link_gbps),
        },
        host_gbps: Some(params.host_gbps),
        ps_service_ns: params.ps_service_ns,
        bundle,
        wire_lanes: experiment.switch.lanes,
        // A microsecond fabric: the first timeout before any round trip is
        // measured, and its floor, well above a round trip through a PS.
        rto: Rto {
            initial_us: 1_000,
            min_us: None,
            max_us: 64_000,
            retries: 1_000,
        },
        time_limit_us: u64::MAX / 2_000,
        timeline_bucket_us: TIMELINE_BUCKET_MS * 1000,
        fabric: experiment.topology.as_ref().map(|t| LeafSpine {
            racks: t.racks,
            spines: t.spines,
            uplink_gbps: Some(t.uplink_gbps),
            second_level: variant.second_level,
        }),
    }
}

/// The bundle a run uses: the one asked for, made smaller (a power of two,
/// at least 1) where it would be coarser than the run: no larger than the
/// pool or any SwitchML range, and at most a quarter of every window, so
/// that each worker keeps at least four simulated packets in flight.
pub fn effective_bundle(asked: u32, pool_slots: usize, jobs: &[SimJob]) -> u32 {
    let mut limit = pool_slots;
    for j in jobs {
        if j.mode.has_own_slots() {
            limit = limit.min(usize::from(j.slot_mask) + 1);
        }
        limit = limit.min((j.window / 4).max(1));
    }
    let limit = 1u32 << (usize::BITS - 1 - limit.max(1).leading_zeros());
    asked.max(1).min(limit)
}

/// What a job's JCT alone depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Shape {
    workers: u8,
    elements: usize,
    compute_us: u64,
    compute_jitter_us: u64,
    window: usize,
    mode: Mode,
    in_network: bool,
    policy: String,
    slots: u16,
    /// Workers per rack (one entry on one switch).
    racks: Vec<u8>,
}

impl Shape {
    fn of(job: &SimJob) -> Shape {
        Shape {
            workers: job.workers,
            elements: job.elements,
            compute_us: job.compute_us,
            compute_jitter_us: job.compute_jitter_us,
            window: job.window,
            mode: job.mode,
            in_network: job.in_network,
            policy: job.policy.to_string(),
            slots: job.slot_mask,
            racks: job.placement.iter().map(|&(_, workers)| workers).collect(),
        }
    }
}

/// JCTs of jobs alone, µs per iteration, by shape.
#[derive(Debug, Default)]
pub struct AloneCache {
    per_iteration_us: HashMap<Shape, f64>,
}

impl AloneCache {
    /// The JCT `job` has alone on `config`'s fabric, µs: up to two
    /// iterations simulated alone (alone, every iteration is compute, the
    /// slowest worker's straggle, then the all-reduce on an idle pool),
    /// scaled to its iterations.
    fn alone_us(&mut self, config: &SimConfig, job: &SimJob) -> Option<f64> {
        let shape = Shape::of(job);
        if let Some(t) = self.per_iteration_us.get(&shape) {
            return Some(t * f64::from(job.iterations));
        }
        let mut solo = job.clone();
        solo.job = 1;
        solo.start_us = 0;
        let iterations = job.iterations.min(ALONE_ITERATIONS);
        solo.iterations = iterations;
        solo.slot_base = 0;
        let alone = SimConfig {
            jobs: vec![solo],
            ..config.clone()
        };
        let report = sim::run(&alone);
        let t = report.jobs.first()?.jct_us? as f64 / f64::from(iterations);
        self.per_iteration_us.insert(shape, t);
        Some(t * f64::from(job.iterations))
    }
}

/// The variant runner of the sim fabric: every variant in virtual time.
#[derive(Debug)]
pub struct Simulated {
    params: SimParams,
    progress: bool,
    alone: AloneCache,
}

impl Simulated {
    /// Runs variants on the simulated network `params`, printing a line
    /// per second of wall time with `progress`.
    pub fn new(params: SimParams, progress: bool) -> Simulated {
        Simulated {
            params,
            progress,
            alone: AloneCache::default(),
        }
    }
}

impl VariantRunner for Simulated {
    fn setup(&self) -> Setup {
        let params = &self.params;
        Setup {
            description: format!(
                "virtual time: {} Gbit/s links (hosts capped at {} Gbit/s), {} ns propagation, \
                 PS {} ns per packet, bundles of up to {} packets; the pool model esa_core::pool",
                params.link_gbps,
                params.host_gbps,
                params.propagation_ns,
                params.ps_service_ns,
                params.bundle
            ),
            switch: "model",
            fabric: "sim",
        }
    }

    fn headline(&self, experiment: &Experiment) -> String {
        format!("{} jobs in virtual time", experiment.jobs.len())
    }

    fn run_variant(
        &mut self,
        experiment: &Experiment,
        variant: &Variant,
    ) -> Result<VariantReport, TestbedError> {
        let progress = self.progress;
        if progress {
            eprintln!(
                "== {}: variant {} (virtual time)",
                experiment.name, variant.label
            );
        }
        let jobs = experiment.jobs_for(variant);
        let config = sim_config(experiment, &jobs, variant, &self.params);
        let started = Instant::now();
        let label = variant.label.clone();
        let report = sim::run_with_progress(&config, &mut |p| {
            if progress {
                let wall = started.elapsed().as_secs_f64().max(1e-9);
                eprintln!(
                    "  {label}: simulated {:.1} ms, {}/{} jobs done, {} events ({:.2} M/s)",
                    p.now_us as f64 / 1000.0,
                    p.jobs_done,
                    p.jobs,
                    p.events,
                    p.events as f64 / wall / 1e6
                );
            }
        });
        let wall = started.elapsed();
        if let Some(v) = report.violations().first() {
            return Err(TestbedError::Setup(format!(
                "variant {}: the simulation broke an invariant ({} in all): {v}",
                variant.label,
                report.violations().len()
            )));
        }
        Ok(variant_report(
            experiment,
            variant,
            &jobs,
            &config,
            &report,
            wall,
            &mut self.alone,
        ))
    }
}

fn variant_report(
    experiment: &Experiment,
    variant: &Variant,
    jobs: &[JobSpec],
    config: &SimConfig,
    report: &SimReport,
    wall: std::time::Duration,
    alone: &mut AloneCache,
) -> VariantReport {
    let bundle = u64::from(config.bundle.max(1));
    let lanes = experiment.switch.lanes;
    let mut out = vec![];
    let mut slowdowns = vec![];
    for ((spec, job), r) in jobs.iter().zip(&config.jobs).zip(&report.jobs) {
        let mut j = JobReport::new(&variant.label, spec, lanes);
        if !variant.in_network {
            j.mode = "none".into();
        }
        j.iterations_done = r.iterations_done;
        j.arrival_ms = r.start_us as f64 / 1000.0;
        if let Some(jct) = r.jct_us {
            j.jct_ms = jct as f64 / 1000.0;
            j.finish_ms = j.arrival_ms + j.jct_ms;
            if let Some(t) = alone.alone_us(config, job) {
                let s = jct as f64 / t;
                j.slowdown = Some((s * 1000.0).round() / 1000.0);
                slowdowns.push(s);
            }
        }
        // Simulated packets stand for `bundle` real ones each.
        j.chunks_in_switch = r.chunks_in_switch * bundle;
        j.chunks_at_ps = r.chunks_at_ps * bundle;
        j.fallback_parts = r.switch.fallbacks * bundle;
        j.evicted_parts = r.evicted_parts * bundle;
        j.flush_parts = r.flush_parts * bundle;
        j.evictions_suffered = r.switch.evictions_suffered * bundle;
        j.preemptions = r.switch.preemptions * bundle;
        j.retransmissions = r.resends * bundle;
        j.probes = r.probes * bundle;
        j.ps_bytes_received = r.ps_bytes_received;
        j.ps_bytes_sent = r.ps_bytes_sent;
        j.verified = r.verified;
        if experiment.topology.is_some() {
            j.racks = r.racks;
            j.queued_ms = r.start_us.saturating_sub(spec.arrival_us) as f64 / 1000.0;
            j.rack_share = Some((r.rack_level_share() * 10_000.0).round() / 10_000.0);
        }
        j.switch_counters = r
            .switch
            .by_name()
            .into_iter()
            .map(|(name, v)| (name.to_string(), v * bundle))
            .collect();
        j.finish_shares();
        out.push(j);
    }
    let jcts: Vec<f64> = out
        .iter()
        .filter(|j| j.jct_ms > 0.0)
        .map(|j| j.jct_ms)
        .collect();
    let inverse: Vec<f64> = slowdowns.iter().map(|s| 1.0 / s).collect();
    let wall_s = wall.as_secs_f64().max(1e-9);
    let cluster = ClusterStats {
        mean_jct_ms: jcts.iter().sum::<f64>() / jcts.len().max(1) as f64,
        p95_jct_ms: percentile(&jcts, 95.0),
        mean_slowdown: slowdowns.iter().sum::<f64>() / slowdowns.len().max(1) as f64,
        max_slowdown: slowdowns.iter().copied().fold(0.0, f64::max),
        jain_fairness: jain(&inverse),
        aggregator_utilization: report.slots.utilization(),
        held_us_per_use: report.slots.held_us_per_use(),
        utilization_timeline: report.timeline.clone(),
        timeline_bucket_ms: config.timeline_bucket_us as f64 / 1000.0,
        simulated_ms: report.end_us as f64 / 1000.0,
        events: report.events,
        events_per_s: report.events as f64 / wall_s,
        bundle: config.bundle,
        racks: experiment.topology.as_ref().map(|t| {
            let queued: Vec<f64> = out.iter().map(|j| j.queued_ms).collect();
            rack_stats(t, variant, &experiment.fabric.sim, report, &queued)
        }),
    };
    VariantReport {
        variant: variant.label.clone(),
        wall_ms: wall.as_secs_f64() * 1000.0,
        jobs: out,
        cluster: Some(cluster),
        faults: Vec::new(),
    }
}

/// The spine links' bytes and each level's share over `report`'s jobs;
/// `queued_ms` is each job's wait for hosts.
fn rack_stats(
    topology: &Topology,
    variant: &Variant,
    params: &SimParams,
    report: &SimReport,
    queued_ms: &[f64],
) -> RackStats {
    let jobs = &report.jobs;
    // Rack partials: a chunk of a job across n racks is n of them.
    let partials = |j: &sim::JobReport| {
        (j.chunks_per_iteration * u64::from(j.iterations) * u64::from(j.racks)) as f64
    };
    let all_partials: f64 = jobs.iter().map(partials).sum();
    let rack_share = if all_partials == 0.0 {
        0.0
    } else {
        jobs.iter()
            .map(|j| j.rack_level_share() * partials(j))
            .sum::<f64>()
            / all_partials
    };
    let trees: Vec<&sim::JobReport> = jobs.iter().filter(|j| j.racks > 1).collect();
    let at_root: u64 = trees.iter().map(|j| j.chunks_in_switch).sum();
    let at_ps: u64 = trees.iter().map(|j| j.chunks_at_ps).sum();
    RackStats {
        racks: topology.racks,
        hosts_per_rack: topology.hosts_per_rack,
        spines: topology.spines,
        uplink_gbps: topology.uplink_gbps,
        oversubscription: topology.oversubscription(params.link_gbps),
        placement: topology.placement.to_string(),
        second_level: variant.second_level,
        jobs_across_racks: trees.len(),
        mean_racks_per_job: jobs.iter().map(|j| f64::from(j.racks)).sum::<f64>()
            / jobs.len().max(1) as f64,
        mean_queued_ms: queued_ms.iter().sum::<f64>() / queued_ms.len().max(1) as f64,
        spine_bytes_up: report.uplink_bytes,
        spine_bytes_down: report.downlink_bytes,
        rack_share,
        spine_share: (at_root + at_ps > 0).then(|| at_root as f64 / (at_root + at_ps) as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_one_taker() {
        assert!((jain(&[2.0, 2.0, 2.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn percentile_is_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&v, 95.0), 19.0);
        assert_eq!(percentile(&v, 100.0), 20.0);
        assert_eq!(percentile(&[5.0], 95.0), 5.0);
        assert_eq!(percentile(&[], 95.0), 0.0);
    }
}
