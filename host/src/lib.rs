//! # esa-host
//!
//! Thin I/O shells around esa-core's worker and parameter-server state
//! machines: this crate moves ESA payloads and keeps time, the state
//! machines decide everything else.
//!
//! ## Layout
//! - [`addressing`]: host *n* behind switch port *n* (generated
//!   topologies: `esa run`, `esa local`, `esa_torch`).
//! - [`transport`]: the [`Transport`](transport::Transport) trait, kernel
//!   UDP sockets (batched with `recvmmsg`/`sendmmsg` on Linux) and in-memory
//!   links with a seeded fault injector.
//! - [`worker`]: [`Worker::allreduce`](worker::Worker::allreduce), blocking,
//!   and a non-blocking `start_allreduce` / `poll_allreduce` pair.
//! - [`integrity`]: the key a job's workers share to check their results
//!   (the checksum coefficients of each all-reduce).
//! - [`ps`]: the parameter-server runtime for one or many jobs.
//! - [`config`]: TOML files and their overrides, validated with errors
//!   that name the key; the `esa` binary turns its flags into the same
//!   sections (the library parses no command line).
//! - [`cli`]: the `esa worker` and `esa ps` commands, run from a
//!   [`cli::WorkerCommand`] / [`cli::PsCommand`].
//! - [`testing`]: a model switch (esa-core's pool reference model behind a
//!   transport) for tests and benchmarks until esa-switch exists.
//!
//! `docs/protocol.md` §6 is the protocol the runtimes drive.

pub mod addressing;
pub mod cli;
mod clock;
pub mod config;
mod error;
pub mod integrity;
pub mod ps;
pub mod testing;
pub mod transport;
pub mod worker;

pub use error::{HostError, TransportError};
pub use ps::ParameterServer;
pub use worker::{AllreduceStats, Worker};
