//! What a run produced: per-job results, the summary table, `report.json`,
//! `report.md` and the SVG plots.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::error::TestbedError;
use crate::experiment::JobSpec;
use crate::svg;
use crate::train::TrainSpec;

/// What a training job learnt, beside the same descent in one process.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TrainingReport {
    /// Input features.
    pub features: usize,
    /// Classes.
    pub classes: usize,
    /// Samples in the data set (all workers).
    pub samples: usize,
    /// Step size.
    pub learning_rate: f64,
    /// Model parameters (= gradient elements).
    pub params: usize,
    /// Full-data loss before the first step and after each, trained
    /// through the switch (worker 0's parameters).
    pub loss_curve: Vec<f64>,
    /// The same, trained in one process on float64 sums.
    pub local_loss_curve: Vec<f64>,
    /// The last of `loss_curve`.
    pub final_loss: f64,
    /// The last of `local_loss_curve`.
    pub local_final_loss: f64,
    /// Largest difference between an all-reduced gradient element and the
    /// float64 full-batch gradient, over every iteration.
    pub max_gradient_error: f64,
}

impl TrainingReport {
    /// A report of `spec` with both curves.
    pub fn new(
        spec: &TrainSpec,
        loss_curve: Vec<f64>,
        local_loss_curve: Vec<f64>,
        max_gradient_error: f64,
    ) -> TrainingReport {
        TrainingReport {
            features: spec.features,
            classes: spec.classes,
            samples: spec.samples,
            learning_rate: spec.learning_rate,
            params: spec.params(),
            final_loss: loss_curve.last().copied().unwrap_or(f64::NAN),
            local_final_loss: local_loss_curve.last().copied().unwrap_or(f64::NAN),
            loss_curve,
            local_loss_curve,
            max_gradient_error,
        }
    }
}

/// One job of one variant.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JobReport {
    /// The job's name.
    pub name: String,
    /// The variant it ran under.
    pub variant: String,
    /// Sharing mode (`esa`, `atp`, `switchml`).
    pub mode: String,
    /// Priority policy of its workers.
    pub policy: String,
    /// Workers.
    pub workers: u8,
    /// Gradient elements per iteration.
    pub gradient_elems: usize,
    /// Compute time per iteration, ms (µs precision).
    pub compute_ms: f64,
    /// Iterations planned.
    pub iterations: u32,
    /// Iterations every worker completed.
    pub iterations_done: u32,
    /// When it was admitted, ms from the start of the variant.
    pub arrival_ms: f64,
    /// When its last worker finished, ms from the start of the variant.
    pub finish_ms: f64,
    /// Job completion time: admission to the last worker's last result, ms.
    pub jct_ms: f64,
    /// JCT over the JCT the job has alone (sim fabric).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    /// With a `[topology]`: racks the job's workers sit in.
    #[serde(skip_serializing_if = "is_zero_u8")]
    pub racks: u8,
    /// With a `[topology]`: how long the job waited for free hosts before
    /// it started (at `arrival_ms`), ms.
    #[serde(skip_serializing_if = "is_zero_f64")]
    pub queued_ms: f64,
    /// With a `[topology]`: the share of its rack partials its racks' ToRs
    /// completed (the first level; a one-rack job's in-switch share). Its
    /// `in_switch_share` is then the spine's (the second level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rack_share: Option<f64>,
    /// Chunks the workers sent in all (`iterations × ⌈elems / lanes⌉`).
    pub chunks_total: u64,
    /// Chunks completed in the switch: its `completed` counter, or, when
    /// the switch restarted under the job (and so counted from zero
    /// again), the chunks done less those the PS completed.
    pub chunks_in_switch: u64,
    /// Times the switch restarted while the job ran: restarts `esa run
    /// --fault` injected, or, if more, the times the controller had to
    /// program the switch again (a switch somebody else restarted).
    #[serde(skip_serializing_if = "is_zero")]
    pub switch_restarts: u32,
    /// Chunks the parameter server completed.
    pub chunks_at_ps: u64,
    /// `chunks_in_switch / (chunks_in_switch + chunks_at_ps)`.
    pub in_switch_share: f64,
    /// Single contributions the switch sent to the PS unaggregated.
    pub fallback_parts: u64,
    /// Partial sums the PS received after an eviction.
    pub evicted_parts: u64,
    /// Partial sums the PS received on a resend.
    pub flush_parts: u64,
    /// Slots this job lost while aggregating in them (switch counter
    /// `evictions_suffered`): preempted by a higher priority (D11) or
    /// reclaimed as stale (D10, the only kind under ATP, which never
    /// preempts). Either way the partial sum went to the job's PS.
    pub evictions_suffered: u64,
    /// Times this job preempted another (switch counter, D11).
    pub preemptions: u64,
    /// DATA retransmissions by all workers.
    pub retransmissions: u64,
    /// Probes sent by all workers at timeouts: a timeout asks before it
    /// resends (not retransmissions).
    pub probes: u64,
    /// Bytes of ESA frames the job's PS received (on the sim fabric at
    /// real size).
    pub ps_bytes_received: u64,
    /// Bytes of ESA frames the job's PS sent.
    pub ps_bytes_sent: u64,
    /// Frames the job's host links lost (`switch.loss`), both directions.
    pub frames_lost: u64,
    /// Results the workers accepted from the switch (summed over workers).
    pub results_from_switch: u64,
    /// Results the workers accepted from the PS (summed over workers).
    pub results_from_ps: u64,
    /// Result elements that differed from the exact sum.
    pub wrong_elements: u64,
    /// Every iteration of every worker finished and matched the exact sum.
    pub verified: bool,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// Every per-job switch counter by short name, in packets.
    pub switch_counters: BTreeMap<String, u64>,
    /// Training jobs: the loss curves.
    pub training: Option<TrainingReport>,
    /// Chunk completions over time, as the job's PS saw them: `[ms from
    /// the start of the variant, RESULTs of the switch it received, chunks
    /// it completed itself]`, cumulative, sampled every 10 ms when they
    /// change.
    pub results_timeline: Vec<[f64; 3]>,
}

impl JobReport {
    /// An empty report for `spec` under `variant`.
    pub fn new(variant: &str, spec: &JobSpec, lanes: usize) -> JobReport {
        JobReport {
            name: spec.name.clone(),
            variant: variant.to_string(),
            mode: spec.mode.to_string(),
            policy: spec.policy.to_string(),
            workers: spec.workers,
            gradient_elems: spec.gradient_elems,
            compute_ms: spec.compute_us as f64 / 1000.0,
            iterations: spec.iterations,
            chunks_total: spec.chunks_per_iteration(lanes) * u64::from(spec.iterations),
            ..JobReport::default()
        }
    }

    /// A switch counter by short name (0 when absent).
    pub fn counter(&self, name: &str) -> u64 {
        self.switch_counters
            .iter()
            .find(|(n, _)| n.as_str() == name || n.rsplit('.').next() == Some(name))
            .map_or(0, |(_, v)| *v)
    }

    /// Computes the derived fields and rounds times to microseconds.
    pub fn finish_shares(&mut self) {
        let round = |ms: f64| (ms * 1000.0).round() / 1000.0;
        self.arrival_ms = round(self.arrival_ms);
        self.finish_ms = round(self.finish_ms);
        self.jct_ms = round(self.jct_ms);
        let all = self.chunks_in_switch + self.chunks_at_ps;
        self.in_switch_share = if all == 0 {
            0.0
        } else {
            (self.chunks_in_switch as f64 / all as f64 * 10_000.0).round() / 10_000.0
        };
    }
}

/// The jobs of one variant.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VariantReport {
    /// The variant's label.
    pub variant: String,
    /// Wall time of the variant, ms.
    pub wall_ms: f64,
    /// Its jobs, in file order.
    pub jobs: Vec<JobReport>,
    /// Cluster figures (sim fabric).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<crate::virtual_time::ClusterStats>,
    /// The faults injected (`esa run --fault`), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<crate::fault::FaultReport>,
}

impl VariantReport {
    /// Mean JCT of the jobs that finished, ms.
    pub fn mean_jct_ms(&self) -> f64 {
        let done: Vec<f64> = self
            .jobs
            .iter()
            .filter(|j| j.jct_ms > 0.0)
            .map(|j| j.jct_ms)
            .collect();
        if done.is_empty() {
            0.0
        } else {
            done.iter().sum::<f64>() / done.len() as f64
        }
    }

    /// DATA retransmissions of every job.
    pub fn retransmissions(&self) -> u64 {
        self.jobs.iter().map(|j| j.retransmissions).sum()
    }

    /// Probes of every job.
    pub fn probes(&self) -> u64 {
        self.jobs.iter().map(|j| j.probes).sum()
    }

    /// Bytes the jobs' PSes received and sent per chunk the jobs sent:
    /// what a scheme costs the PS's link (an ESA or SwitchML PS receives
    /// each RESULT the switch completes; an ATP PS receives each
    /// completion and sends each result back; without in-network
    /// aggregation it receives every worker's DATA).
    pub fn ps_bytes_per_chunk(&self) -> (f64, f64) {
        let chunks: u64 = self.jobs.iter().map(|j| j.chunks_total).sum();
        if chunks == 0 {
            return (0.0, 0.0);
        }
        let per =
            |f: fn(&JobReport) -> u64| self.jobs.iter().map(f).sum::<u64>() as f64 / chunks as f64;
        (per(|j| j.ps_bytes_received), per(|j| j.ps_bytes_sent))
    }

    /// Whether this is the host-only baseline (`none`).
    pub fn host_only(&self) -> bool {
        !self.jobs.is_empty() && self.jobs.iter().all(|j| j.mode == "none")
    }

    /// Share of all chunks completed in the switch.
    pub fn in_switch_share(&self) -> f64 {
        let s: u64 = self.jobs.iter().map(|j| j.chunks_in_switch).sum();
        let p: u64 = self.jobs.iter().map(|j| j.chunks_at_ps).sum();
        if s + p == 0 {
            0.0
        } else {
            s as f64 / (s + p) as f64
        }
    }
}

/// A whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExperimentReport {
    /// The experiment's name.
    pub experiment: String,
    /// Lanes per packet.
    pub lanes: usize,
    /// Aggregator slots.
    pub pool_slots: u32,
    /// What ran where, in words.
    pub setup: String,
    /// The switch: `embedded`, `bmv2` or `external`.
    pub switch: String,
    /// The hosts' fabric: `inprocess`, `netns` or `external`.
    pub fabric: String,
    /// One entry per variant.
    pub variants: Vec<VariantReport>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    experiment: &'a str,
    lanes: usize,
    pool_slots: u32,
    switch: &'a str,
    fabric: &'a str,
    setup: &'a str,
    summary: Vec<JsonSummary<'a>>,
    jobs: Vec<&'a JobReport>,
}

#[derive(Serialize)]
struct JsonSummary<'a> {
    variant: &'a str,
    wall_ms: f64,
    mean_jct_ms: f64,
    in_switch_share: f64,
    retransmissions: u64,
    probes: u64,
    ps_bytes_received_per_chunk: f64,
    ps_bytes_sent_per_chunk: f64,
    verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<&'a crate::virtual_time::ClusterStats>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    faults: &'a [crate::fault::FaultReport],
}

impl ExperimentReport {
    /// Every job of every variant.
    pub fn jobs(&self) -> impl Iterator<Item = &JobReport> {
        self.variants.iter().flat_map(|v| v.jobs.iter())
    }

    /// Whether every job of every variant finished and verified.
    pub fn all_verified(&self) -> bool {
        self.jobs().all(|j| j.verified)
    }

    /// The summary table printed on stdout.
    pub fn table(&self) -> String {
        let mut out = String::new();
        // Labels such as `esa/srpt (one level)` widen the variant column.
        let w = self
            .variants
            .iter()
            .map(|v| v.variant.len())
            .fold(12, usize::max);
        let _ = writeln!(
            out,
            "{:<w$} {:<10} {:<8} {:<7} {:>10} {:>7} {:>9} {:>8} {:>7} {:>7} {:>7} {:>8}",
            "variant",
            "job",
            "mode",
            "policy",
            "JCT ms",
            "iters",
            "in-switch",
            "at PS",
            "share",
            "lost",
            "preempt",
            "verified"
        );
        for j in self.jobs() {
            let _ = writeln!(
                out,
                "{:<w$} {:<10} {:<8} {:<7} {:>10.1} {:>7} {:>9} {:>8} {:>6.1}% {:>7} {:>7} {:>8}",
                j.variant,
                j.name,
                j.mode,
                j.policy,
                j.jct_ms,
                format!("{}/{}", j.iterations_done, j.iterations),
                j.chunks_in_switch,
                j.chunks_at_ps,
                j.in_switch_share * 100.0,
                j.evictions_suffered,
                j.preemptions,
                if j.verified { "yes" } else { "NO" }
            );
        }
        let _ = writeln!(
            out,
            "(lost: slots the job lost mid-aggregation, preempted or reclaimed as stale; \
             preempt: preemptions it made)"
        );
        let _ = writeln!(out);
        for v in &self.variants {
            let (rx, tx) = v.ps_bytes_per_chunk();
            let _ = writeln!(
                out,
                "{:<w$} mean JCT {:>10.1} ms, in-switch {:>5.1}%, wall {:>8.1} ms, \
                 {} retransmissions, {} probes, PS bytes per chunk in {:.0} / out {:.0}",
                v.variant,
                v.mean_jct_ms(),
                v.in_switch_share() * 100.0,
                v.wall_ms,
                v.retransmissions(),
                v.probes(),
                rx,
                tx
            );
        }
        if self.variants.iter().any(|v| v.cluster.is_some()) {
            let _ = writeln!(
                out,
                "\n{:<w$} {:>10} {:>10} {:>9} {:>9} {:>6} {:>8} {:>9} {:>9}",
                "variant",
                "mean JCT",
                "p95 JCT",
                "slowdown",
                "max slow",
                "Jain",
                "util",
                "held/use",
                "events/s"
            );
            for v in &self.variants {
                let Some(c) = &v.cluster else { continue };
                let _ = writeln!(
                    out,
                    "{:<w$} {:>10.1} {:>10.1} {:>9.3} {:>9.3} {:>6.3} {:>7.2}% {:>7.1}us {:>8.2}M",
                    v.variant,
                    c.mean_jct_ms,
                    c.p95_jct_ms,
                    c.mean_slowdown,
                    c.max_slowdown,
                    c.jain_fairness,
                    c.aggregator_utilization * 100.0,
                    c.held_us_per_use,
                    c.events_per_s / 1e6
                );
            }
            let _ = writeln!(
                out,
                "(JCTs in ms; slowdown: JCT over the JCT alone; Jain: fairness of 1/slowdown; \
                 util: slot-time aggregating; held/use: slot-time held after completion per use)"
            );
        }
        if let Some(topology) = self.topology_line() {
            let _ = writeln!(out, "\n{topology}");
            let _ = writeln!(
                out,
                "{:<w$} {:>6} {:>10} {:>10} {:>10} {:>7} {:>7} {:>7} {:>6} {:>8}",
                "variant",
                "levels",
                "mean JCT",
                "p95 JCT",
                "spine GB",
                "saved",
                "rack",
                "spine",
                "racks",
                "queued"
            );
            for row in self.rack_rows() {
                let cells = row.cells();
                let _ = write!(out, "{:<w$}", cells[0]);
                for (cell, width) in cells[1..].iter().zip([6, 10, 10, 10, 7, 7, 7, 6, 8]) {
                    let _ = write!(out, " {cell:>width$}");
                }
                let _ = writeln!(out);
            }
            let _ = writeln!(
                out,
                "(spine GB: bytes on ToR-spine links both ways; saved: against none; rack / \
                 spine: share aggregated at each level; racks: per job; queued: ms waiting for \
                 hosts, mean)"
            );
        }
        for j in self.jobs() {
            if let Some(t) = &j.training {
                let _ = writeln!(
                    out,
                    "{} / {}: loss {:.4} -> {:.4} through the switch, {:.4} locally (max gradient error {:.2e})",
                    j.variant,
                    j.name,
                    t.loss_curve.first().copied().unwrap_or(f64::NAN),
                    t.final_loss,
                    t.local_final_loss,
                    t.max_gradient_error
                );
            }
            if j.frames_lost > 0 {
                let _ = writeln!(
                    out,
                    "{} / {}: {} frames lost on its links, {} retransmissions",
                    j.variant, j.name, j.frames_lost, j.retransmissions
                );
            }
        }
        for v in &self.variants {
            for f in &v.faults {
                let outcome = match (&f.error, f.reprogrammed_ms) {
                    (Some(e), _) => e.clone(),
                    (None, Some(back)) => format!(
                        "struck at {:.0} ms; the switch was dark {:.0} ms and programmed again \
                         {back:.0} ms after the crash",
                        f.at_ms, f.down_ms
                    ),
                    (None, None) => {
                        format!("struck at {:.0} ms; down {:.0} ms", f.at_ms, f.down_ms)
                    }
                };
                let _ = writeln!(out, "{} / fault {}: {outcome}", v.variant, f.fault);
            }
        }
        for j in self.jobs().filter(|j| j.error.is_some()) {
            let _ = writeln!(
                out,
                "{} / {}: {}",
                j.variant,
                j.name,
                j.error.as_deref().unwrap_or_default()
            );
        }
        out
    }

    /// `report.json`: a `summary` per variant and a flat `jobs` list.
    pub fn json(&self) -> String {
        let report = JsonReport {
            experiment: &self.experiment,
            lanes: self.lanes,
            pool_slots: self.pool_slots,
            switch: &self.switch,
            fabric: &self.fabric,
            setup: &self.setup,
            summary: self
                .variants
                .iter()
                .map(|v| JsonSummary {
                    variant: &v.variant,
                    wall_ms: v.wall_ms,
                    mean_jct_ms: v.mean_jct_ms(),
                    in_switch_share: v.in_switch_share(),
                    retransmissions: v.retransmissions(),
                    probes: v.probes(),
                    ps_bytes_received_per_chunk: v.ps_bytes_per_chunk().0,
                    ps_bytes_sent_per_chunk: v.ps_bytes_per_chunk().1,
                    verified: v.jobs.iter().all(|j| j.verified),
                    cluster: v.cluster.as_ref(),
                    faults: &v.faults,
                })
                .collect(),
            jobs: self.jobs().collect(),
        };
        serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// `report.md`.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Experiment `{}`\n", self.experiment);
        let _ = writeln!(
            out,
            "esa.p4 with {} lanes and {} aggregator slots; {}.\n",
            self.lanes, self.pool_slots, self.setup
        );
        let _ = writeln!(out, "## Summary\n");
        let _ = writeln!(
            out,
            "| variant | mean JCT (ms) | in-switch share | wall (ms) | retransmissions | probes | PS bytes per chunk in / out | all verified |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---|");
        for v in &self.variants {
            let (rx, tx) = v.ps_bytes_per_chunk();
            let _ = writeln!(
                out,
                "| {} | {:.1} | {:.1}% | {:.1} | {} | {} | {:.0} / {:.0} | {} |",
                v.variant,
                v.mean_jct_ms(),
                v.in_switch_share() * 100.0,
                v.wall_ms,
                v.retransmissions(),
                v.probes(),
                rx,
                tx,
                if v.jobs.iter().all(|j| j.verified) {
                    "yes"
                } else {
                    "**no**"
                }
            );
        }
        if self.variants.iter().any(|v| v.cluster.is_some()) {
            let _ = writeln!(out, "\n## Cluster\n");
            let _ = writeln!(
                out,
                "| variant | mean JCT (ms) | p95 JCT (ms) | mean slowdown | max slowdown | Jain (1/slowdown) | aggregator utilization | held per use (µs) | bundle | events | events/s |"
            );
            let _ = writeln!(
                out,
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
            for v in &self.variants {
                let Some(c) = &v.cluster else { continue };
                let _ = writeln!(
                    out,
                    "| {} | {:.1} | {:.1} | {:.3} | {:.3} | {:.3} | {:.2}% | {:.1} | {} | {} | {:.2} M |",
                    v.variant,
                    c.mean_jct_ms,
                    c.p95_jct_ms,
                    c.mean_slowdown,
                    c.max_slowdown,
                    c.jain_fairness,
                    c.aggregator_utilization * 100.0,
                    c.held_us_per_use,
                    c.bundle,
                    c.events,
                    c.events_per_s / 1e6
                );
            }
        }
        if let Some(topology) = self.topology_line() {
            let _ = writeln!(out, "\n## Racks\n");
            let _ = writeln!(out, "{topology}\n");
            let _ = writeln!(
                out,
                "| variant | levels | mean JCT (ms) | p95 JCT (ms) | spine-link GB | saved against none | rack-level share | spine-level share | racks per job | queued for hosts (ms, mean) |"
            );
            let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for row in self.rack_rows() {
                let _ = writeln!(out, "| {} |", row.cells().join(" | "));
            }
            let _ = writeln!(
                out,
                "\nSpine-link bytes: every frame on a ToR-spine link, both ways, at real size; \
                 saved: their reduction against `none`. Rack-level share: of every chunk's rack \
                 partials, those its ToR completed (a one-rack job's in-switch share); \
                 spine-level share: of the chunks of jobs across racks, those the spine \
                 completed."
            );
        }
        let _ = writeln!(out, "\n## Jobs\n");
        let _ = writeln!(
            out,
            "| variant | job | mode | policy | workers | elems | iterations | JCT (ms) | chunks in switch | at PS | share | fallback parts | slots lost (preempted or reclaimed) | preemptions made | retransmissions | frames lost | verified |"
        );
        let _ = writeln!(
            out,
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        );
        for j in self.jobs() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {}/{} | {:.1} | {} | {} | {:.1}% | {} | {} | {} | {} | {} | {} |",
                j.variant,
                j.name,
                j.mode,
                j.policy,
                j.workers,
                j.gradient_elems,
                j.iterations_done,
                j.iterations,
                j.jct_ms,
                j.chunks_in_switch,
                j.chunks_at_ps,
                j.in_switch_share * 100.0,
                j.fallback_parts,
                j.evictions_suffered,
                j.preemptions,
                j.retransmissions,
                j.frames_lost,
                if j.verified { "yes" } else { "**no**" }
            );
        }
        let trained: Vec<&JobReport> = self.jobs().filter(|j| j.training.is_some()).collect();
        if !trained.is_empty() {
            let _ = writeln!(out, "\n## Training\n");
            let _ = writeln!(
                out,
                "Softmax regression on a seeded synthetic data set; full-data cross-entropy \
                 before the first step and after each, trained through the switch and in \
                 one process on float64 sums.\n"
            );
            for j in &trained {
                let Some(t) = &j.training else { continue };
                let _ = writeln!(
                    out,
                    "### {} / {} ({} features, {} classes, {} samples, {} parameters, step {})\n",
                    j.variant, j.name, t.features, t.classes, t.samples, t.params, t.learning_rate
                );
                let _ = writeln!(
                    out,
                    "Largest all-reduced gradient error against float64: {:.3e}.\n",
                    t.max_gradient_error
                );
                let _ = writeln!(
                    out,
                    "| iteration | loss (switch) | loss (local) | difference |"
                );
                let _ = writeln!(out, "|---:|---:|---:|---:|");
                for (i, (a, b)) in t.loss_curve.iter().zip(&t.local_loss_curve).enumerate() {
                    let _ = writeln!(out, "| {i} | {a:.6} | {b:.6} | {:.2e} |", a - b);
                }
                let _ = writeln!(out);
            }
        }
        let errors: Vec<&JobReport> = self.jobs().filter(|j| j.error.is_some()).collect();
        if !errors.is_empty() {
            let _ = writeln!(out, "\n## Errors\n");
            for j in errors {
                let _ = writeln!(
                    out,
                    "- {} / {}: {}",
                    j.variant,
                    j.name,
                    j.error.as_deref().unwrap_or_default()
                );
            }
        }
        let _ = writeln!(out, "\n## Plots\n");
        let _ = writeln!(out, "![JCT per job](jct_bars.svg)\n");
        let _ = writeln!(out, "![JCT CDF](jct_cdf.svg)\n");
        let _ = writeln!(out, "![In-switch share over time](share_over_time.svg)");
        if self.topology_line().is_some() {
            let _ = writeln!(out, "\n![Bytes on ToR-spine links](spine_bytes.svg)");
        }
        if self.jobs().any(|j| j.training.is_some()) {
            let _ = writeln!(out, "\n![Loss curves](loss_curve.svg)");
        }
        out
    }

    /// Checks, before an experiment starts, that its report can be written
    /// to `dir`: creates the folder if needed and writes (and removes) a
    /// probe file there, so a wrong `--out` fails at once rather than after
    /// the whole run.
    pub fn prepare_dir(dir: &Path) -> Result<(), TestbedError> {
        if dir.exists() && !dir.is_dir() {
            return Err(TestbedError::Io {
                path: dir.to_path_buf(),
                error: std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "exists and is not a folder (the report is a folder of files)",
                ),
            });
        }
        let io = |error| TestbedError::Io {
            path: dir.to_path_buf(),
            error,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let probe = dir.join(format!(".esa-write-probe-{}", std::process::id()));
        std::fs::write(&probe, b"").map_err(io)?;
        std::fs::remove_file(&probe).map_err(io)
    }

    /// Writes `report.json`, `report.md`, `jct_bars.svg`, `jct_cdf.svg`,
    /// `share_over_time.svg`, on the sim fabric `utilization.svg`, with a
    /// topology `spine_bytes.svg` and, with training jobs, `loss_curve.svg`
    /// into `dir` (created if missing).
    pub fn write(&self, dir: &Path) -> Result<(), TestbedError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| TestbedError::Io { path, error }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut files = vec![
            ("report.json", self.json()),
            ("report.md", self.markdown()),
            ("jct_bars.svg", svg::jct_bars(self)),
            ("jct_cdf.svg", svg::jct_cdf(self)),
            ("share_over_time.svg", svg::share_over_time(self)),
        ];
        if self.variants.iter().any(|v| v.cluster.is_some()) {
            files.push(("utilization.svg", svg::utilization_over_time(self)));
        }
        if self.topology_line().is_some() {
            files.push(("spine_bytes.svg", svg::spine_bytes(self)));
        }
        if self.jobs().any(|j| j.training.is_some()) {
            files.push(("loss_curve.svg", svg::loss_curves(self)));
        }
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(io(&path))?;
        }
        Ok(())
    }
}

/// One variant's line of the racks table.
struct RackRow<'a> {
    variant: &'a str,
    /// `2`, or `1` without the second level; `-` for `none`.
    levels: &'static str,
    mean_jct_ms: f64,
    p95_jct_ms: f64,
    spine_bytes: u64,
    /// Against `none`'s spine bytes (`None`: no `none` variant).
    saved: Option<f64>,
    rack_share: f64,
    spine_share: Option<f64>,
    racks_per_job: f64,
    queued_ms: f64,
}

impl ExperimentReport {
    /// The topology in words, if the run had one.
    fn topology_line(&self) -> Option<String> {
        let r = self
            .variants
            .iter()
            .find_map(|v| v.cluster.as_ref()?.racks.as_ref())?;
        Some(format!(
            "{} racks of {} hosts under {} spine{}, {} Gbit/s per ToR-spine link \
             (oversubscription {}:1), {} placement",
            r.racks,
            r.hosts_per_rack,
            r.spines,
            if r.spines == 1 { "" } else { "s" },
            r.uplink_gbps,
            (r.oversubscription * 100.0).round() / 100.0,
            r.placement
        ))
    }

    fn rack_rows(&self) -> Vec<RackRow<'_>> {
        let none = self
            .variants
            .iter()
            .filter(|v| v.host_only())
            .find_map(|v| v.cluster.as_ref()?.racks.as_ref())
            .map(|r| r.spine_bytes());
        self.variants
            .iter()
            .filter_map(|v| {
                let c = v.cluster.as_ref()?;
                let r = c.racks.as_ref()?;
                Some(RackRow {
                    variant: &v.variant,
                    levels: match (v.host_only(), r.second_level) {
                        (true, _) => "-",
                        (false, true) => "2",
                        (false, false) => "1",
                    },
                    mean_jct_ms: c.mean_jct_ms,
                    p95_jct_ms: c.p95_jct_ms,
                    spine_bytes: r.spine_bytes(),
                    saved: none
                        .filter(|&n| n > 0 && !v.host_only())
                        .map(|n| 1.0 - r.spine_bytes() as f64 / n as f64),
                    rack_share: r.rack_share,
                    spine_share: r.spine_share,
                    racks_per_job: r.mean_racks_per_job,
                    queued_ms: r.mean_queued_ms,
                })
            })
            .collect()
    }
}

impl RackRow<'_> {
    /// The row's cells, as the table and report.md show them.
    fn cells(&self) -> [String; 10] {
        [
            self.variant.to_string(),
            self.levels.to_string(),
            format!("{:.1}", self.mean_jct_ms),
            format!("{:.1}", self.p95_jct_ms),
            format!("{:.3}", self.spine_bytes as f64 / 1e9),
            percent(self.saved),
            percent(Some(self.rack_share)),
            percent(self.spine_share),
            format!("{:.2}", self.racks_per_job),
            format!("{:.1}", self.queued_ms),
        ]
    }
}

/// A share as `12.3%`, or `-`.
fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "-".into(), |s| format!("{:.1}%", s * 100.0))
}

/// For serde: a zero count is left out of the report.
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// For serde: no racks (one switch) are left out of the report.
fn is_zero_u8(n: &u8) -> bool {
    *n == 0
}

/// For serde: no wait is left out of the report.
fn is_zero_f64(x: &f64) -> bool {
    *x == 0.0
}
