//! The testbed's errors.

use std::path::PathBuf;
use std::time::Duration;

/// What can go wrong loading or running an experiment.
#[derive(Debug, thiserror::Error)]
pub enum TestbedError {
    /// A file could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// The experiment file is not valid TOML or has an unknown or
    /// mistyped key (the message names the key and its line).
    #[error("{path}: {message}")]
    Parse {
        /// The file (or the name given to the text).
        path: String,
        /// toml's message, with line and column.
        message: String,
    },
    /// A value in the experiment is out of range or inconsistent.
    #[error("invalid experiment: {0}")]
    Invalid(String),
    /// The testbed cannot start as asked (a missing tool, a target that
    /// cannot run the experiment, ...).
    #[error("cannot start the testbed: {0}")]
    Setup(String),
    /// Starting a part of the testbed (the switch, the controller, a
    /// runtime, a socket) failed, for the reason in `source`.
    #[error("cannot start the testbed: {what}")]
    Start {
        /// What was being started.
        what: String,
        /// Why it failed.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The in-process switch or its controller did not start.
    #[error("cannot start the testbed: {0}")]
    Harness(#[from] esa_harness::HarnessError),
    /// p4c did not compile the program for BMv2, or `simple_switch_grpc`
    /// did not start.
    #[error("cannot start the testbed: {0}")]
    Bmv2(#[from] esa_bmv2::Error),
    /// The switch went out of reach while jobs ran and did not come back:
    /// the run was stopped and reports no job.
    #[error(
        "the switch at {p4runtime} is gone: the controller could not reach and program it for \
         {after:?} (last error: {last_error}); the run was stopped and reports no job"
    )]
    SwitchLost {
        /// The switch's P4Runtime address.
        p4runtime: String,
        /// How long it was out of reach.
        after: Duration,
        /// The controller's last error.
        last_error: String,
    },
    /// The run is estimated to take longer than the limit
    /// ([`crate::estimate`]); `esa run --yes` runs it anyway.
    #[error(
        "the run would take {estimate}, above {limit}: pass --yes to run it anyway, or lower \
         the iterations"
    )]
    TooLong {
        /// The estimate and how it was made.
        estimate: String,
        /// The limit, in words.
        limit: String,
    },
    /// The run was interrupted ([`crate::RunOptions::interrupt`], a SIGINT
    /// or SIGTERM): its workers were stopped, its jobs released and its
    /// switch and links torn down; it reports no job.
    #[error(
        "interrupted: the run was stopped, its admitted jobs released and its switch and links \
         torn down; no report"
    )]
    Interrupted,
}

impl TestbedError {
    /// [`TestbedError::Start`]: starting `what` failed because of `source`.
    pub fn start(
        what: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> TestbedError {
        TestbedError::Start {
            what: what.into(),
            source: source.into(),
        }
    }
}
