//! # esa-testbed
//!
//! Experiments: multi-job training workloads on ESA's switches (esa-switch
//! in process by default, BMv2, or an external switch; or in virtual time),
//! with a report of each job's completion time (JCT), how much of its
//! aggregation the switch did, and plots. This is what
//! `esa run EXPERIMENT.toml` runs.
//!
//! ## Layout
//! - [`experiment`]: the experiment file (TOML): the switch (lanes, pool),
//!   the jobs (arrival, workers, model profile, iterations, mode, policy),
//!   the variants to compare and the fabric ([`FabricKind`]).
//! - [`run`]: [`run_experiment`]: where the experiment runs (a
//!   [`VariantRunner`]: emulated on a switch target and a fabric, one
//!   switch or one per ToR and spine, or simulated in virtual time),
//!   checked before anything starts, then each variant; a job's run (its PS and workers on threads through
//!   `esa_harness::runner`, each on its own link) and the progress bars.
//! - [`counters`]: a job's switch counters over one run, as deltas (the
//!   rule for a counter the switch reset mid-run).
//! - [`estimate`]: an experiment's wall time, estimated before it starts
//!   from its workload and a calibrated rate per switch.
//! - [`switch_target`]: switch targets ([`SwitchTarget`]): esa-switch in
//!   process, BMv2's `simple_switch_grpc`, a switch somebody else runs.
//! - [`fabric`]: where the hosts run and how they reach the switch
//!   ([`Fabric`]): in-memory ports, network namespaces on veth pairs, a
//!   hosts file's addresses.
//! - [`virtual_time`]: the sim fabric, the pool model in virtual time.
//! - [`topology`]: racks under spines (`[topology]`): the cluster's shape
//!   and the placement policies (packed, spread, random) that put each
//!   job's workers in racks; in virtual time, or emulated with a switch
//!   per ToR and spine.
//! - [`netns`]: the namespace fabric's checks and sockets (on `esa-netns`).
//! - [`report`]: per-job results, the summary table, `report.json`,
//!   `report.md`; [`svg`]: the plots.
//! - [`workload`]: generated jobs: Poisson arrivals at a target offered
//!   load, trace files (CSV), and the load arithmetic.
//! - [`train`]: the real model training jobs run (softmax regression on a
//!   seeded synthetic data set), as the workload of their workers, and its
//!   single-process reference.
//! - [`local`]: `esa local`, a switch and its controller for hosts started
//!   elsewhere.
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

pub mod counters;
mod error;
pub mod estimate;
pub mod experiment;
pub mod fabric;
pub mod fault;
pub mod local;
pub mod netns;
pub mod report;
pub mod run;
pub mod svg;
pub mod switch_target;
pub mod topology;
pub mod train;
pub mod virtual_time;
pub mod workload;

pub use error::TestbedError;
pub use experiment::{
    Experiment, FabricKind, FabricSpec, JobSpec, LossLinks, Profile, SimParams, Variant,
};
pub use fabric::{Fabric, HostsFile};
pub use report::{ExperimentReport, JobReport, VariantReport};
pub use run::{
    RunOptions, VariantRunner, cleans_up_on_interrupt, makes_namespaces, preflight, run_experiment,
};
pub use switch_target::{Bmv2Target, EmbeddedTarget, ExternalTarget, SwitchTarget};
