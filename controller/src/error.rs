//! Errors at the controller's boundaries, one enum per concern.

use std::path::PathBuf;

/// The pipeline (P4Info, device config) could not be loaded or does not have
/// what the controller needs.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The P4 program did not compile in p4sim.
    #[error("the P4 program does not compile: {0}")]
    Compile(String),
    /// The P4Info file is neither valid text nor valid binary protobuf.
    #[error("{path}: not a P4Info in protobuf text or binary format: {message}")]
    P4InfoFormat {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// The P4Info lacks a table the controller programs.
    #[error("the P4Info has no table `{0}`")]
    MissingTable(String),
    /// A table's key is not what the controller expects.
    #[error("table `{table}`: {message}")]
    BadKey {
        /// The table.
        table: String,
        /// What differs.
        message: String,
    },
    /// The P4Info lacks an action, or the table does not list it.
    #[error("the P4Info has no action `{action}` in table `{table}`")]
    MissingAction {
        /// The table.
        table: String,
        /// The action.
        action: String,
    },
    /// An action lacks a parameter.
    #[error("action `{action}` has no parameter `{param}`")]
    MissingParam {
        /// The action.
        action: String,
        /// The parameter.
        param: String,
    },
    /// A key field or parameter has another width than the controller's.
    #[error("{what} is {found} bits wide in the P4Info, the controller expects {expected}")]
    Width {
        /// Which field.
        what: String,
        /// The controller's width.
        expected: u32,
        /// The P4Info's width.
        found: i32,
    },
    /// The P4Info lacks a per-job counter.
    #[error("the P4Info has no counter `{0}`")]
    MissingCounter(String),
    /// The pool size is unknown or unusable.
    #[error("{0}")]
    PoolSize(String),
    /// The stale bound cannot be set on this program.
    #[error("{0}")]
    StaleBound(String),
    /// A per-job counter cannot be indexed by every job id.
    #[error("counter `{name}` has {size} cells; the jobs need cells up to {needed}")]
    CounterSize {
        /// The counter.
        name: String,
        /// Its size.
        size: i64,
        /// The largest cell index a job needs (the largest job id, for a
        /// counter indexed by job).
        needed: u32,
    },
}

/// The topology file is unreadable or inconsistent.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown / missing fields.
    #[error("topology: {0}")]
    Parse(String),
    /// A semantic problem: duplicate names or ports, bad address, ...
    #[error("topology: {0}")]
    Invalid(String),
}

/// A job request was refused; nothing was installed. Each variant maps to
/// one gRPC status code ([`AdmitError::code`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdmitError {
    /// A malformed request (`INVALID_ARGUMENT`).
    #[error("{0}")]
    Invalid(String),
    /// An unknown job or host (`NOT_FOUND`).
    #[error("{0}")]
    NotFound(String),
    /// The job id or a slot range is taken (`ALREADY_EXISTS`).
    #[error("{0}")]
    AlreadyExists(String),
    /// No job id or slot range is free (`RESOURCE_EXHAUSTED`).
    #[error("{0}")]
    Exhausted(String),
}

impl AdmitError {
    /// The gRPC status code of the refusal.
    pub fn code(&self) -> tonic::Code {
        match self {
            AdmitError::Invalid(_) => tonic::Code::InvalidArgument,
            AdmitError::NotFound(_) => tonic::Code::NotFound,
            AdmitError::AlreadyExists(_) => tonic::Code::AlreadyExists,
            AdmitError::Exhausted(_) => tonic::Code::ResourceExhausted,
        }
    }
}

/// Talking to the switch over P4Runtime failed (the switch's own errors are
/// `esa_switch::SwitchError`).
#[derive(Debug, thiserror::Error)]
pub enum P4RuntimeError {
    /// No connection could be made.
    #[error("cannot connect to the switch at {addr}: {message}")]
    Connect {
        /// The address.
        addr: String,
        /// Why.
        message: String,
    },
    /// An RPC failed (the switch's status, with its message).
    #[error("{rpc} failed: {code:?}: {message}")]
    Rpc {
        /// Which RPC.
        rpc: &'static str,
        /// The gRPC code.
        code: tonic::Code,
        /// The switch's message.
        message: String,
        /// For a Write: the canonical code of each update, when the switch
        /// reported them (P4Runtime's `p4.v1.Error` details).
        update_codes: Vec<i32>,
    },
    /// The arbitration stream ended or was never answered.
    #[error("the arbitration stream to the switch closed: {0}")]
    StreamClosed(String),
    /// Another controller is primary; this one may not write.
    #[error("this controller is a backup (election id {ours}); the primary has {primary}")]
    NotPrimary {
        /// Our election id.
        ours: u128,
        /// The primary's, when the switch said.
        primary: u128,
    },
    /// The switch answered something the controller cannot interpret.
    #[error("unexpected answer from the switch: {0}")]
    Protocol(String),
}

impl P4RuntimeError {
    /// Builds [`P4RuntimeError::Rpc`] from a tonic status.
    pub fn rpc(rpc: &'static str, status: &tonic::Status) -> P4RuntimeError {
        P4RuntimeError::Rpc {
            rpc,
            code: status.code(),
            message: status.message().to_string(),
            update_codes: crate::backend::update_codes(status),
        }
    }

    /// Whether a one-update Write failed because the entity was not there.
    pub fn is_not_found(&self) -> bool {
        match self {
            P4RuntimeError::Rpc {
                code, update_codes, ..
            } => {
                let not_found = tonic::Code::NotFound as i32;
                *code == tonic::Code::NotFound
                    || (!update_codes.is_empty()
                        && update_codes.iter().all(|c| *c == not_found || *c == 0))
            }
            _ => false,
        }
    }

    /// Whether the error means the switch (or the connection) is gone, as
    /// opposed to a refused request.
    pub fn is_connection_loss(&self) -> bool {
        match self {
            P4RuntimeError::Connect { .. } | P4RuntimeError::StreamClosed(_) => true,
            P4RuntimeError::Rpc { code, .. } => {
                matches!(code, tonic::Code::Unavailable | tonic::Code::Cancelled)
            }
            P4RuntimeError::NotPrimary { .. } | P4RuntimeError::Protocol(_) => false,
        }
    }
}

/// Any controller error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// See [`PipelineError`].
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// See [`TopologyError`].
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// See [`AdmitError`].
    #[error(transparent)]
    Admit(#[from] AdmitError),
    /// See [`P4RuntimeError`].
    #[error(transparent)]
    Switch(#[from] P4RuntimeError),
    /// A write failed part-way; what had been written was removed again.
    #[error("{source} (rolled back: nothing of the request stays installed)")]
    RolledBack {
        /// The failure.
        source: P4RuntimeError,
    },
    /// A write failed part-way and removing the written part failed too; the
    /// controller repairs the switch at its next resynchronisation.
    #[error("{source}; rolling back failed too ({rollback}); the next resync repairs the switch")]
    RollbackFailed {
        /// The failure.
        source: P4RuntimeError,
        /// Why the rollback failed.
        rollback: Box<P4RuntimeError>,
    },
    /// The controller is (re)synchronising with the switch or has no
    /// connection; try again shortly.
    #[error("the controller is not ready: {0}")]
    NotReady(String),
    /// The switch holds entries the controller cannot interpret.
    #[error("the switch holds an entry the controller cannot read: {0}")]
    Decode(String),
    /// The job record (`--state FILE`) could not be read or written.
    #[error("job record: {0}")]
    Registry(String),
    /// One switch of a fabric refused or failed (`crate::fabric`).
    #[error("switch `{switch}`: {source}")]
    OnSwitch {
        /// The switch's name in the fabric topology.
        switch: String,
        /// What it said.
        source: Box<Error>,
    },
}

impl Error {
    /// The gRPC code the job API answers it with.
    pub fn code(&self) -> tonic::Code {
        match self {
            Error::Admit(a) => a.code(),
            Error::OnSwitch { source, .. } => source.code(),
            Error::Switch(P4RuntimeError::NotPrimary { .. }) => tonic::Code::FailedPrecondition,
            Error::Switch(_)
            | Error::RolledBack { .. }
            | Error::RollbackFailed { .. }
            | Error::NotReady(_) => tonic::Code::Unavailable,
            Error::Pipeline(_) | Error::Topology(_) | Error::Decode(_) | Error::Registry(_) => {
                tonic::Code::Internal
            }
        }
    }
}

impl From<Error> for tonic::Status {
    fn from(e: Error) -> tonic::Status {
        tonic::Status::new(e.code(), e.to_string())
    }
}
