//! ESA's controller: programs one P4Runtime switch (esa-switch or BMv2's
//! `simple_switch_grpc`) for in-network aggregation and serves a job API.
//!
//! # Layout
//!
//! - [`entries`]: the typed table entries of `esa_p4::tables` (bound there
//!   to both programs' P4 names) and multicast groups, as P4Runtime
//!   entities.
//! - [`pipeline`]: P4Info loading (text or binary), device config, and the
//!   [`pipeline::Bindings`] of names to ids, resolved once.
//! - [`topology`]: the topology file (switch ports, hosts).
//! - [`config_file`]: reading a config file, bounded in size (the topology,
//!   the testbed's experiment and hosts files).
//! - [`jobs`]: admission without I/O: validation, id and slot allocation,
//!   the entities of a job, rebuilding the job view from the switch.
//! - [`backend`]: the [`backend::SwitchBackend`] trait and its P4Runtime
//!   implementation [`backend::GrpcSwitch`] (arbitration, pipeline, Write,
//!   Read).
//! - [`controller`]: [`controller::Controller`]: admission with rollback,
//!   release, counters, and the supervisor loop that keeps the switch
//!   converged across switch and controller restarts.
//! - [`registry`]: the controller's own record of its jobs, in a redb
//!   file, restored whenever it becomes primary again.
//! - [`api`]: the `esa.controller.v1.Jobs` gRPC service, served with TLS
//!   and tokens, and its client's connection.
//! - [`auth`]: per-tenant bearer tokens: the tokens file, the server's
//!   and the client's interceptors, the count of refused calls.
//! - [`certs`]: a lab CA and a server certificate (`esa certs`).
//! - [`metrics`]: per-job counters in Prometheus text format over HTTP.
//! - [`run`]: the controller as a process (`esa controller`) and its
//!   client (`esa jobs`), from typed requests (the flags are the `esa`
//!   binary's).
//!
//! Registers are never read or written over P4Runtime (BMv2 cannot):
//! slot state is managed in-band by the data plane.

pub mod api;
pub mod auth;
pub mod backend;
pub mod certs;
pub mod config_file;
pub mod controller;
pub mod counters;
pub mod entries;
pub mod error;
pub mod fabric;
pub mod jobs;
pub mod metrics;
pub mod pipeline;
pub mod registry;
pub mod run;
pub mod topology;

pub use backend::{GrpcSwitch, Role, SwitchBackend, error_chain};
pub use controller::{Controller, ControllerConfig, Health, JobStats};
pub use error::{AdmitError, Error, P4RuntimeError, PipelineError, TopologyError};
pub use pipeline::Pipeline;
pub use topology::Topology;
