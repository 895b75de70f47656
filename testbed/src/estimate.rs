//! How long an experiment will take, in wall time, before it starts: what
//! `esa run` prints, and refuses above a limit unless told to go ahead.
//!
//! The estimate is arithmetic on the workload, not a trial run. Every
//! worker sends each chunk of each iteration once as a DATA frame, and one
//! switch (or one simulator thread) handles them all, so a variant takes
//! at least its jobs' frames over the switch's rate, and each job at least
//! its arrival, its compute time and its own frames over that rate; the
//! variant takes the larger, and variants run one after another. Rates are
//! DATA frames per second of wall time, calibrated from measured runs
//! (docs/results.md) and rounded down, so that the estimate leans long:
//!
//! | where | rate | from |
//! |---|---:|---|
//! | esa-switch, in process or on veths, or an external switch | 20,000 | contention-bmv2.toml on esa-switch: 19,485–21,542 frames/s |
//! | BMv2 | 400 | contention-bmv2.toml on BMv2: 343–828 frames/s |
//! | the sim fabric | 40 M | cluster.toml: 62.9 G frames (of 32 lanes) for its four variants in 26 min |
//!
//! Retransmissions, a loaded machine and a slow external switch make runs
//! longer; the estimate says so in its text.

use std::fmt;
use std::time::Duration;

use crate::error::TestbedError;
use crate::experiment::{Experiment, JobSpec};
use crate::run::{RunOptions, variant_runner};

/// A run's estimated wall time and how it was estimated.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Every variant's estimate, summed.
    pub wall: Duration,
    /// DATA frames the switch takes, over every variant.
    pub frames: u64,
    /// The rate assumed: DATA frames per second of wall time.
    pub frames_per_s: f64,
    /// What the rate is of: `esa-switch`, `BMv2`, `the simulator`.
    pub of: &'static str,
}

/// esa-switch's DATA frames per second of wall time (p4sim in process, on
/// in-memory ports or veths).
pub const ESA_SWITCH_FRAMES_PER_S: f64 = 20_000.0;
/// BMv2's (`simple_switch_grpc` on veths).
pub const BMV2_FRAMES_PER_S: f64 = 400.0;
/// The sim fabric's: frames of the simulated jobs per second of wall time.
pub const SIM_FRAMES_PER_S: f64 = 40_000_000.0;
/// What starting a variant costs (switch, controller, pipeline push).
const SETUP_PER_VARIANT: Duration = Duration::from_secs(1);

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "about {} ({} DATA frames at {} frames/s of {}, with compute times and arrivals; \
             retransmissions and a loaded machine add to it)",
            human(self.wall),
            self.frames,
            self.frames_per_s,
            self.of
        )
    }
}

/// Runs estimated above this are refused unless confirmed (`esa run
/// --yes`).
pub const CONFIRM_ABOVE: Duration = Duration::from_secs(3600);

impl Estimate {
    /// [`TestbedError::TooLong`] when the estimate is above `limit`.
    pub fn within(&self, limit: Duration) -> Result<(), TestbedError> {
        if self.wall > limit {
            return Err(TestbedError::TooLong {
                estimate: self.to_string(),
                limit: human(limit),
            });
        }
        Ok(())
    }
}

/// "1 h 12 min", "3 min 5 s", "12 s".
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// Estimates how long `experiment` takes where `options` run it.
pub fn estimate(experiment: &Experiment, options: &RunOptions) -> Result<Estimate, TestbedError> {
    let switch = variant_runner(experiment, options)?.setup().switch;
    let (frames_per_s, of) = match switch {
        "model" => (SIM_FRAMES_PER_S, "the simulator"),
        "bmv2" => (BMV2_FRAMES_PER_S, "BMv2"),
        _ => (ESA_SWITCH_FRAMES_PER_S, "esa-switch"),
    };
    let setup = if switch == "model" {
        Duration::ZERO
    } else {
        SETUP_PER_VARIANT
    };
    let lanes = experiment.switch.lanes;
    let mut wall = Duration::ZERO;
    let mut frames = 0;
    for variant in &experiment.variants {
        let jobs = experiment.jobs_for(variant);
        let (variant_wall, variant_frames) = variant_time(&jobs, lanes, frames_per_s);
        wall += setup + variant_wall;
        frames += variant_frames;
    }
    Ok(Estimate {
        wall,
        frames,
        frames_per_s,
        of,
    })
}

/// A variant's jobs at `frames_per_s`: the larger of all their frames
/// through the switch and the longest job (arrival, compute, its frames);
/// and the frames.
fn variant_time(jobs: &[JobSpec], lanes: usize, frames_per_s: f64) -> (Duration, u64) {
    let frames_of = |j: &JobSpec| {
        j.chunks_per_iteration(lanes)
            .saturating_mul(u64::from(j.iterations))
            .saturating_mul(u64::from(j.workers))
    };
    let frames: u64 = jobs.iter().map(frames_of).fold(0, u64::saturating_add);
    let through_switch = frames as f64 / frames_per_s;
    let longest_job = jobs
        .iter()
        .map(|j| {
            let compute = j.compute_us as f64 * f64::from(j.iterations) / 1e6;
            j.arrival_us as f64 / 1e6 + compute + frames_of(j) as f64 / frames_per_s
        })
        .fold(0.0, f64::max);
    let seconds = through_switch.max(longest_job);
    (
        Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX),
        frames,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::experiment::FabricKind;

    fn experiment(name: &str, fabric: Option<FabricKind>) -> Experiment {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("experiments")
            .join(name);
        Experiment::load_as(&path, fabric).unwrap()
    }

    fn options(fabric: Option<FabricKind>) -> RunOptions {
        RunOptions {
            fabric,
            ..RunOptions::default()
        }
    }

    #[test]
    fn quick_is_estimated_in_seconds_and_cluster_in_minutes() {
        let quick = estimate(&experiment("quick.toml", None), &options(None)).unwrap();
        // a: 2,048 chunks x 3 iterations x 2 workers; b: 1,024 x 3 x 2.
        assert_eq!(quick.frames, 18_432);
        assert_eq!(quick.of, "esa-switch");
        assert!(quick.wall < Duration::from_secs(5), "{quick}");
        assert!(quick.to_string().starts_with("about 1 s ("), "{quick}");

        // The calibration run: about 6.5 minutes per variant, 4 variants.
        let cluster = estimate(&experiment("cluster.toml", None), &options(None)).unwrap();
        assert_eq!(cluster.of, "the simulator");
        let per_variant = cluster.wall.as_secs_f64() / 4.0 / 60.0;
        assert!((4.0..10.0).contains(&per_variant), "{cluster}");
    }

    #[test]
    fn a_million_iterations_take_days() {
        let text = "name = \"long\"\n[switch]\nlanes = 32\npool_slots = 256\n[[jobs]]\nname = \"a\"\nworkers = 2\n\
                    gradient_elems = 65536\niterations = 1000000\n";
        let long = Experiment::parse(text, "long").unwrap();
        let e = estimate(&long, &options(None)).unwrap();
        assert!(e.wall > Duration::from_secs(24 * 3600), "{e}");
        let refused = e.within(CONFIRM_ABOVE).unwrap_err().to_string();
        assert!(refused.contains("above 1 h 0 min"), "{refused}");
        assert!(refused.contains("--yes"), "{refused}");
        assert_eq!(human(Duration::from_secs(4000)), "1 h 6 min");
        assert_eq!(human(Duration::from_secs(185)), "3 min 5 s");
    }
}
