//! # esa-harness
//!
//! ESA's cluster in one process, as `esa run`'s in-process fabric, `esa
//! local` and the tests of esa-host, esa-controller and esa-switch build
//! it:
//! - [`switch`]: esa-switch on in-memory ports or Linux interfaces, serving
//!   P4Runtime on loopback from a runtime of its own ([`EmbeddedSwitch`]),
//!   an in-memory port as a host's frame link ([`PortLink`]), and two
//!   switches' in-memory ports joined as by a cable ([`Cable`]);
//! - [`control`]: the controller started against it and waited for until
//!   it has programmed the switch; the generated topology (host *n* behind
//!   port *n*, at [`esa_host::addressing`]'s addresses);
//! - [`cluster`]: both together on esa.p4, with jobs admitted by host
//!   number, as the host tests and the host bench drive them;
//! - [`runner`]: the one job runner, for `esa run` and the tests: a job's
//!   PS and workers on threads, configured from its `esa_core` plan, each
//!   worker running a pluggable workload and lingering for its peers'
//!   `QUERY`s, with a progress observer, an abort flag and the PS's results
//!   timeline;
//! - [`jobs`]: synthetic gradients with their exact sums (the workload of
//!   the tests and of `esa run`'s summing jobs), and a test job's spec run
//!   by the runner, every element checked against the exact sum.
//!
//! Faults follow one rule, [`esa_core::faults::FaultConfig::apply`], for
//! frames ([`esa_host::transport::FaultyLink`]), the in-memory network's
//! datagrams and the simulator's links.

pub mod cluster;
pub mod control;
pub mod jobs;
pub mod runner;
pub mod switch;

pub use cluster::Cluster;
pub use switch::{Cable, EmbeddedSwitch, PortLink, Ports};

use std::time::Duration;

/// Why the harness could not start something.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// An I/O step failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The failure.
        #[source]
        source: std::io::Error,
    },
    /// The switch could not be built.
    #[error("building the switch: {0}")]
    Switch(#[from] esa_switch::SwitchError),
    /// The controller refused its configuration.
    #[error("starting the controller: {0}")]
    Controller(#[from] esa_controller::Error),
    /// The controller did not program the switch in time.
    #[error(
        "the controller did not program the switch at {p4runtime} within {timeout:?} \
         (last state: {role:?}, last error: {last_error})"
    )]
    NotProgrammed {
        /// The switch's P4Runtime address.
        p4runtime: String,
        /// How long it had.
        timeout: Duration,
        /// Its last arbitration role.
        role: esa_controller::Role,
        /// Its last error.
        last_error: String,
    },
}

impl HarnessError {
    /// An [`HarnessError::Io`].
    pub fn io(what: impl Into<String>, source: std::io::Error) -> HarnessError {
        HarnessError::Io {
            what: what.into(),
            source,
        }
    }
}
