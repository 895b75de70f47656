//! Generated workloads: jobs from a Poisson arrival process at a target
//! offered load, or from a trace file (CSV), and the arithmetic both use.
//!
//! **Offered load.** A job's estimated time alone is
//! `T_alone = iterations × (compute + packets × packet_time + 2 × propagation)`,
//! where `packets` is the chunks of one all-reduce (`⌈gradient_elems /
//! lanes⌉`: each worker sends one packet per chunk and receives one result;
//! the two directions of a link overlap), `packet_time` is the wire time of
//! one ESA frame on a `link_gbps` link ([`wire_bytes`]) and the propagation
//! is one-way per link (worker to switch, switch to worker). The pool serves
//! `pool_slots / window` jobs at once, so with arrival rate λ the offered
//! load is `ρ = λ · E[T_alone] · window / pool_slots`, and the generator
//! draws exponential inter-arrival times with rate
//! `λ = ρ · pool_slots / (window · E[T_alone])` (models and iterations are
//! drawn independently and uniformly, so `E[T_alone]` is the mean over the
//! models of one iteration's time times the mean iterations).
//!
//! **Trace files** (CSV): a header `arrival_ms,model,workers,iterations`
//! with an optional fifth column `name`, then one job per line; `#` starts
//! a comment line. `arrival_ms` may have a fraction (microseconds:
//! `12.345`). See testbed/README.md.

use std::fmt::Write as _;

use esa_core::constants::MAX_FAN_IN;
use esa_core::rng::Rng;

use crate::experiment::{PROFILES, Profile, profile};

/// Bytes of line time of one ESA packet: the simulator's own count.
pub use esa_core::sim::wire_bytes;

/// Seconds one packet with `lanes` lanes takes on a `link_gbps` link.
pub fn packet_time_s(lanes: usize, link_gbps: f64) -> f64 {
    (wire_bytes(lanes) * 8) as f64 / (link_gbps * 1e9)
}

/// A profile's gradient elements and compute time (µs) per iteration:
/// with `scale`, `round(real_params × scale)` (at least 1) and
/// `real_compute_ms × scale`; without, the emulator's numbers.
pub fn profile_cost(p: &Profile, scale: Option<f64>) -> (usize, u64) {
    match scale {
        None => (p.gradient_elems, p.compute_ms * 1000),
        Some(s) => {
            let elems = ((p.real_params as f64) * s).round().max(1.0) as usize;
            let us = (p.real_compute_ms * 1000.0 * s).round() as u64;
            (elems, us)
        }
    }
}

/// The network the load estimate assumes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkModel {
    /// Value lanes per packet.
    pub lanes: usize,
    /// Link rate, Gbit/s.
    pub link_gbps: f64,
    /// One-way propagation delay per link, ns.
    pub propagation_ns: u64,
}

/// Seconds of one iteration of a job alone: compute, then every chunk's
/// packet on the link, plus a round trip of propagation.
pub fn iteration_time_s(gradient_elems: usize, compute_us: u64, link: &LinkModel) -> f64 {
    let packets = gradient_elems.div_ceil(link.lanes.max(1)) as f64;
    compute_us as f64 * 1e-6
        + packets * packet_time_s(link.lanes, link.link_gbps)
        + 2.0 * link.propagation_ns as f64 * 1e-9
}

/// What a Poisson workload is drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct PoissonSpec {
    /// Jobs to generate.
    pub jobs: usize,
    /// Offered load ρ (see the module documentation), above 0.
    pub load: f64,
    /// The switch's aggregator slots.
    pub pool_slots: u32,
    /// Chunks outstanding per worker.
    pub window: usize,
    /// Model profiles to choose from, uniformly.
    pub models: Vec<&'static str>,
    /// Worker counts to choose from, uniformly.
    pub workers: Vec<u8>,
    /// Iterations, uniform in `min..=max`.
    pub iterations: (u32, u32),
    /// Model scale (`None`: the emulator's profile numbers).
    pub scale: Option<f64>,
    /// The network.
    pub link: LinkModel,
    /// Seed of the draws.
    pub seed: u64,
}

impl PoissonSpec {
    /// Expected time alone of a job, seconds.
    pub fn mean_time_alone_s(&self) -> f64 {
        let per_iteration: f64 = self
            .models
            .iter()
            .filter_map(|m| profile(m))
            .map(|p| {
                let (elems, us) = profile_cost(&p, self.scale);
                iteration_time_s(elems, us, &self.link)
            })
            .sum::<f64>()
            / self.models.len().max(1) as f64;
        let (lo, hi) = self.iterations;
        per_iteration * (f64::from(lo) + f64::from(hi)) / 2.0
    }

    /// Arrival rate λ, jobs per second, for the target load.
    pub fn arrival_rate(&self) -> f64 {
        self.load * f64::from(self.pool_slots) / (self.window as f64 * self.mean_time_alone_s())
    }

    /// Checks the values; the message names the offending one.
    pub fn check(&self) -> Result<(), String> {
        self.check_up_to(MAX_FAN_IN)
    }

    /// [`PoissonSpec::check`] with jobs of up to `max_workers` workers (a
    /// `[topology]`'s jobs span racks; one switch takes 32).
    pub fn check_up_to(&self, max_workers: u8) -> Result<(), String> {
        if self.jobs == 0 || self.jobs > usize::from(esa_core::constants::MAX_JOB_ID) {
            return Err(format!(
                "jobs = {}: must be 1..={}",
                self.jobs,
                esa_core::constants::MAX_JOB_ID
            ));
        }
        if !(self.load > 0.0 && self.load <= 100.0) {
            return Err(format!(
                "load = {}: must be above 0 (and at most 100)",
                self.load
            ));
        }
        if self.models.is_empty() {
            return Err("models is empty".into());
        }
        for m in &self.models {
            if profile(m).is_none() {
                return Err(format!(
                    "models: unknown profile {m:?} (known: {})",
                    known()
                ));
            }
        }
        check_workers(&self.workers, max_workers)?;
        let (lo, hi) = self.iterations;
        if lo == 0 || hi < lo {
            return Err(format!("iterations = [{lo}, {hi}]: need 1 <= min <= max"));
        }
        if !(self.link.link_gbps > 0.0 && self.link.link_gbps.is_finite()) {
            return Err(format!(
                "link_gbps = {}: must be above 0",
                self.link.link_gbps
            ));
        }
        if ![4, 8, 16, 32, 64].contains(&self.link.lanes) {
            return Err(format!(
                "lanes = {}: must be 4, 8, 16, 32 or 64",
                self.link.lanes
            ));
        }
        if self.window == 0 || self.pool_slots == 0 {
            return Err("window and pool_slots must be above 0".into());
        }
        Ok(())
    }

    /// Draws the jobs: the first arrives at 0, then exponential gaps of
    /// rate [`PoissonSpec::arrival_rate`]; model, workers and iterations
    /// uniformly, from a generator seeded by `seed` (its own sub-streams
    /// for arrivals and for choices). Names `j001`, `j002`, ...
    pub fn generate(&self) -> Result<Vec<TraceRow>, String> {
        self.generate_up_to(MAX_FAN_IN)
    }

    /// [`PoissonSpec::generate`] with jobs of up to `max_workers` workers.
    pub fn generate_up_to(&self, max_workers: u8) -> Result<Vec<TraceRow>, String> {
        self.check_up_to(max_workers)?;
        let rate = self.arrival_rate();
        let mut root = Rng::new(self.seed ^ WORKLOAD_SEED);
        let mut gaps = root.fork();
        let mut picks = root.fork();
        let mut t = 0.0f64;
        let mut rows = Vec::with_capacity(self.jobs);
        for i in 0..self.jobs {
            if i > 0 {
                t += -(1.0 - gaps.unit()).ln() / rate;
            }
            let model = self.models[picks.below(self.models.len() as u64) as usize];
            let workers = self.workers[picks.below(self.workers.len() as u64) as usize];
            let iterations =
                picks.range(u64::from(self.iterations.0), u64::from(self.iterations.1)) as u32;
            rows.push(TraceRow {
                arrival_us: (t * 1e6).round() as u64,
                model: model.to_string(),
                workers,
                iterations,
                name: Some(job_name(i, self.jobs)),
            });
        }
        Ok(rows)
    }
}

/// Mixed into the experiment seed so the workload's draws differ from the
/// gradients' ("workload" in ASCII).
const WORKLOAD_SEED: u64 = 0x776f_726b_6c6f_6164;

/// `j001`, `j002`, ...: at least three digits, more when there are more jobs.
pub fn job_name(index: usize, total: usize) -> String {
    let width = total.to_string().len().max(3);
    format!("j{:0width$}", index + 1)
}

fn known() -> String {
    PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_workers(workers: &[u8], max_workers: u8) -> Result<(), String> {
    if workers.is_empty() {
        return Err("workers is empty".into());
    }
    for &w in workers {
        if !(2..=max_workers).contains(&w) {
            return Err(format!("workers = {w}: must be 2..={max_workers}"));
        }
    }
    Ok(())
}

/// `resnet50,vgg16` (comma-separated profile names) as the profiles' names.
pub fn parse_models(list: &str) -> Result<Vec<&'static str>, String> {
    list.split(',')
        .map(str::trim)
        .map(|m| {
            profile(m)
                .map(|p| p.name)
                .ok_or_else(|| format!("unknown model {m:?} (known: {})", known()))
        })
        .collect()
}

/// `8` or `2,4,8`: worker counts to choose from.
pub fn parse_workers(list: &str) -> Result<Vec<u8>, String> {
    let workers = list
        .split(',')
        .map(|w| {
            w.trim()
                .parse::<u8>()
                .map_err(|_| format!("workers: {w:?} is not a number"))
        })
        .collect::<Result<Vec<u8>, String>>()?;
    check_workers(&workers, MAX_FAN_IN)?;
    Ok(workers)
}

/// `20` or `10-30` (uniform, inclusive): iterations per job.
pub fn parse_iterations(text: &str) -> Result<(u32, u32), String> {
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("iterations: {s:?} is not a number"))
    };
    let (lo, hi) = match text.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => {
            let n = number(text)?;
            (n, n)
        }
    };
    if lo == 0 || hi < lo {
        return Err(format!("iterations = {text}: need 1 <= min <= max"));
    }
    Ok((lo, hi))
}

/// One job of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRow {
    /// Arrival, µs from the start of the run.
    pub arrival_us: u64,
    /// A profile name.
    pub model: String,
    /// Workers, 2..=32 (up to 255 with a `[topology]`).
    pub workers: u8,
    /// Iterations, at least 1.
    pub iterations: u32,
    /// The job's name (`None`: `j001`, ... by position).
    pub name: Option<String>,
}

/// The header of a trace file (the `name` column is optional).
pub const TRACE_HEADER: &str = "arrival_ms,model,workers,iterations,name";

/// Writes rows as a trace file (with the `name` column when any row has a
/// name). Arrival times are printed in ms with three decimals (exact µs).
pub fn write_trace(rows: &[TraceRow]) -> String {
    let named = rows.iter().any(|r| r.name.is_some());
    let mut out = String::new();
    out.push_str(if named {
        TRACE_HEADER
    } else {
        "arrival_ms,model,workers,iterations"
    });
    out.push('\n');
    for (i, r) in rows.iter().enumerate() {
        let _ = write!(
            out,
            "{}.{:03},{},{},{}",
            r.arrival_us / 1000,
            r.arrival_us % 1000,
            r.model,
            r.workers,
            r.iterations
        );
        if named {
            let name = r.name.clone().unwrap_or_else(|| job_name(i, rows.len()));
            let _ = write!(out, ",{name}");
        }
        out.push('\n');
    }
    out
}

/// Parses a trace file; `file` names it in errors (`file:line: ...`).
/// Rows may come in any order; blank lines and lines starting with `#` are
/// skipped.
pub fn parse_trace(text: &str, file: &str) -> Result<Vec<TraceRow>, String> {
    parse_trace_up_to(text, file, MAX_FAN_IN)
}

/// [`parse_trace`] with jobs of up to `max_workers` workers (a
/// `[topology]`'s jobs span racks; one switch takes 32).
pub fn parse_trace_up_to(text: &str, file: &str, max_workers: u8) -> Result<Vec<TraceRow>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((hn, header)) = lines.next() else {
        return Err(format!(
            "{file}: empty; expected the header `{TRACE_HEADER}`"
        ));
    };
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let named = match cols.as_slice() {
        ["arrival_ms", "model", "workers", "iterations"] => false,
        ["arrival_ms", "model", "workers", "iterations", "name"] => true,
        _ => {
            return Err(format!(
                "{file}:{hn}: header {header:?}: expected `arrival_ms,model,workers,iterations` \
                 and optionally `,name`"
            ));
        }
    };
    let mut rows = Vec::new();
    for (n, line) in lines {
        let at = |msg: String| format!("{file}:{n}: {msg}");
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != cols.len() {
            return Err(at(format!(
                "{} fields, expected {} ({})",
                fields.len(),
                cols.len(),
                cols.join(",")
            )));
        }
        let arrival_us = parse_ms(fields[0]).ok_or_else(|| {
            at(format!(
                "arrival_ms = {:?}: expected milliseconds, 0 or more (up to 3 decimals)",
                fields[0]
            ))
        })?;
        let model = fields[1];
        if profile(model).is_none() {
            return Err(at(format!(
                "model = {model:?}: unknown profile (known: {})",
                known()
            )));
        }
        let workers: u8 = fields[2]
            .parse()
            .ok()
            .filter(|w| (2..=max_workers).contains(w))
            .ok_or_else(|| {
                at(format!(
                    "workers = {:?}: must be 2..={max_workers}",
                    fields[2]
                ))
            })?;
        let iterations: u32 = fields[3]
            .parse()
            .ok()
            .filter(|&i| i >= 1)
            .ok_or_else(|| at(format!("iterations = {:?}: must be at least 1", fields[3])))?;
        let name = if named {
            let s = fields[4];
            if s.is_empty()
                || !s
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(at(format!(
                    "name = {s:?}: use letters, digits, '-' and '_'"
                )));
            }
            Some(s.to_string())
        } else {
            None
        };
        rows.push(TraceRow {
            arrival_us,
            model: model.to_string(),
            workers,
            iterations,
            name,
        });
    }
    if rows.is_empty() {
        return Err(format!("{file}: no jobs after the header"));
    }
    Ok(rows)
}

/// `12`, `12.5`, `12.345` milliseconds as microseconds, exactly (no
/// floating point); more than three decimals, signs and exponents are
/// refused.
fn parse_ms(s: &str) -> Option<u64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ms: u64 = int.parse().ok()?;
    let mut frac_us: u64 = 0;
    for (i, b) in frac.bytes().enumerate() {
        frac_us += u64::from(b - b'0') * 10u64.pow(2 - i as u32);
    }
    ms.checked_mul(1000)?.checked_add(frac_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(jobs: usize) -> PoissonSpec {
        PoissonSpec {
            jobs,
            load: 0.6,
            pool_slots: 4096,
            window: 32,
            models: PROFILES.iter().map(|p| p.name).collect(),
            workers: vec![2, 4, 8],
            iterations: (10, 30),
            scale: Some(1.0),
            link: LinkModel {
                lanes: 32,
                link_gbps: 100.0,
                propagation_ns: 1000,
            },
            seed: 5,
        }
    }

    #[test]
    fn a_packet_on_the_wire() {
        // 14 + 20 + 8 + 16 + 4 × 32 = 186, + FCS 4 + preamble/IFG 20.
        assert_eq!(wire_bytes(32), 210);
        // 4 lanes: 74 + 4 = 78 (above 64), + 20.
        assert_eq!(wire_bytes(4), 98);
        assert!((packet_time_s(32, 100.0) - 16.8e-9).abs() < 1e-15);
    }

    #[test]
    fn scale_arithmetic() {
        let vgg = profile("vgg16").unwrap();
        assert_eq!(profile_cost(&vgg, None), (135_000, 60_000));
        assert_eq!(profile_cost(&vgg, Some(1.0)).0, 138_357_544);
        let (elems, us) = profile_cost(&vgg, Some(0.1));
        assert_eq!(elems, 13_835_754); // 13,835,754.4 rounded
        assert_eq!(us, (vgg.real_compute_ms * 100.0).round() as u64);
        assert_eq!(profile_cost(&vgg, Some(1e-12)).0, 1);
    }

    #[test]
    fn the_rate_follows_the_load_definition() {
        let s = spec(10);
        let t = s.mean_time_alone_s();
        let lambda = s.arrival_rate();
        let rho = lambda * t * s.window as f64 / f64::from(s.pool_slots);
        assert!((rho - 0.6).abs() < 1e-12, "{rho}");
        // By hand for one model: resnet50 at scale 1, 20 iterations.
        let r = profile("resnet50").unwrap();
        let packets = 25_557_032usize.div_ceil(32) as f64;
        let by_hand = 20.0 * (r.real_compute_ms * 1e-3 + packets * 210.0 * 8.0 / 100e9 + 2e-6);
        let one = PoissonSpec {
            models: vec!["resnet50"],
            iterations: (20, 20),
            ..spec(1)
        };
        assert!((one.mean_time_alone_s() - by_hand).abs() < 1e-9);
    }

    #[test]
    fn poisson_mean_gap_within_tolerance() {
        // n exponential gaps: the sample mean has relative standard error
        // 1/sqrt(n); allow 4 of them (deterministic seed, so no flakes).
        let n = 4000;
        let s = spec(n + 1);
        let rows = s.generate().unwrap();
        let mean_gap_s = rows.last().unwrap().arrival_us as f64 * 1e-6 / n as f64;
        let expected = 1.0 / s.arrival_rate();
        let tolerance = 4.0 / (n as f64).sqrt();
        assert!(
            ((mean_gap_s - expected) / expected).abs() < tolerance,
            "mean gap {mean_gap_s} s, expected {expected} s"
        );
        // Arrivals are ordered, choices cover the lists, same seed same rows.
        assert!(rows.windows(2).all(|w| w[0].arrival_us <= w[1].arrival_us));
        for m in &s.models {
            assert!(rows.iter().any(|r| &r.model.as_str() == m), "{m}");
        }
        assert!(rows.iter().all(|r| (10..=30).contains(&r.iterations)));
        assert_eq!(rows, s.generate().unwrap());
        assert_ne!(rows, PoissonSpec { seed: 6, ..s }.generate().unwrap());
        assert_eq!(rows[0].name.as_deref(), Some("j0001"));
        assert_eq!(job_name(0, 64), "j001");
    }

    #[test]
    fn trace_round_trip() {
        let rows = spec(50).generate().unwrap();
        let text = write_trace(&rows);
        assert!(text.starts_with(TRACE_HEADER));
        assert_eq!(parse_trace(&text, "t.csv").unwrap(), rows);
        let unnamed: Vec<TraceRow> = rows
            .iter()
            .map(|r| TraceRow {
                name: None,
                ..r.clone()
            })
            .collect();
        let text = write_trace(&unnamed);
        assert!(text.starts_with("arrival_ms,model,workers,iterations\n"));
        assert_eq!(parse_trace(&text, "t.csv").unwrap(), unnamed);
    }

    #[test]
    fn bad_rows_name_the_file_and_line() {
        let head = "# a comment\narrival_ms,model,workers,iterations\n0,resnet50,2,3\n";
        for (row, what) in [
            ("5,resnet5,2,3", "model"),
            ("5,resnet50,1,3", "workers"),
            ("5,resnet50,33,3", "workers"),
            ("5,resnet50,2,0", "iterations"),
            ("-5,resnet50,2,3", "arrival_ms"),
            ("5.1234,resnet50,2,3", "arrival_ms"),
            ("1e3,resnet50,2,3", "arrival_ms"),
            ("5,resnet50,2", "3 fields"),
        ] {
            let err = parse_trace(&format!("{head}{row}\n"), "t.csv").unwrap_err();
            assert!(err.starts_with("t.csv:4: "), "{row}: {err}");
            assert!(err.contains(what), "{row}: {err}");
        }
        let err = parse_trace("arrival,model\n", "t.csv").unwrap_err();
        assert!(err.starts_with("t.csv:1: header"), "{err}");
        let err = parse_trace(
            "arrival_ms,model,workers,iterations,name\n1,alexnet,2,2,a b\n",
            "t.csv",
        )
        .unwrap_err();
        assert!(err.starts_with("t.csv:2: name"), "{err}");
        assert!(parse_trace("arrival_ms,model,workers,iterations\n", "t.csv").is_err());
        assert_eq!(parse_ms("12.5"), Some(12_500));
        assert_eq!(parse_ms("0.001"), Some(1));
    }

    #[test]
    fn command_line_lists() {
        assert_eq!(
            parse_models("vgg16, alexnet").unwrap(),
            ["vgg16", "alexnet"]
        );
        assert!(parse_models("vgg16,vgg19").unwrap_err().contains("vgg19"));
        assert_eq!(parse_workers("8").unwrap(), [8]);
        assert_eq!(parse_workers("2,4").unwrap(), [2, 4]);
        assert!(parse_workers("1").is_err() && parse_workers("x").is_err());
        assert_eq!(parse_iterations("20").unwrap(), (20, 20));
        assert_eq!(parse_iterations("10-30").unwrap(), (10, 30));
        assert!(parse_iterations("30-10").is_err() && parse_iterations("0").is_err());
    }
}
