//! # esa-testbed
//!
//! Experiments: multi-job training workloads on ESA's embedded switch, in
//! one process, with a report of each job's completion time (JCT), how much
//! of its aggregation the switch did, and plots. This is what
//! `esa run EXPERIMENT.toml` runs.
//!
//! ## Layout
//! - [`experiment`]: the experiment file (TOML): the switch (lanes, pool),
//!   the jobs (arrival, workers, model profile, iterations, mode, policy),
//!   and the variants to compare.
//! - [`run`]: one variant at a time: esa-switch with in-memory ports, the
//!   controller over P4Runtime on 127.0.0.1, each job admitted at its
//!   arrival time, its PS and workers on threads, each host on its own
//!   switch port (`esa_host::transport::SwitchPortTransport`).
//! - [`report`]: per-job results, the summary table, `report.json`,
//!   `report.md`; [`svg`]: the plots.
//! - [`workload`]: generated jobs: Poisson arrivals at a target offered
//!   load, trace files (CSV), and the load arithmetic.
//! - [`train`]: the real model training jobs run (softmax regression on a
//!   seeded synthetic data set) and its single-process reference.
//!
//! ## Use
//! ```no_run
//! # fn demo() -> Result<(), esa_testbed::TestbedError> {
//! use esa_testbed::{Experiment, RunOptions, run_experiment};
//! let experiment = Experiment::load("testbed/experiments/quick.toml".as_ref())?;
//! let report = run_experiment(&experiment, &RunOptions::default())?;
//! print!("{}", report.table());
//! report.write("out".as_ref())?;
//! # Ok(()) }
//! ```

mod error;
pub mod experiment;
pub mod local;
pub mod netns;
pub mod report;
pub mod run;
pub mod svg;
pub mod target;
pub mod train;
pub mod virtual_time;
pub mod workload;

pub use error::TestbedError;
pub use experiment::{
    Experiment, FabricKind, FabricSpec, JobSpec, LossLinks, Profile, SimParams, Variant,
};
pub use report::{ExperimentReport, JobReport, VariantReport};
pub use run::{RunOptions, preflight, run_experiment};
pub use target::{Bmv2, ExternalSwitch, Fabric, HostsFile, SwitchTarget};
