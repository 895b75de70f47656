//! The errors of the library boundary.

use crate::config::ConfigError;
use esa_core::ps::PsError;
use esa_core::worker::WorkerError;
use std::net::SocketAddr;

/// A transport (socket or in-memory link) failed.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// Binding a UDP socket failed.
    #[error("cannot bind UDP socket to {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A socket call failed in a way that is not about one datagram.
    #[error("UDP socket {addr}: {op} failed: {source}")]
    Io {
        /// The socket's local address.
        addr: SocketAddr,
        /// The call that failed.
        op: &'static str,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// An in-memory endpoint with this address already exists.
    #[error("in-memory address {0} is already in use")]
    AddrInUse(SocketAddr),
    /// `AF_XDP` was asked for (`transport = "xdp"`) and could not be set
    /// up; the reason.
    #[error("{0}")]
    Xdp(String),
    /// The frame link under a switch-port transport is gone (the switch
    /// stopped).
    #[error("{0}: the switch port is closed")]
    LinkClosed(SocketAddr),
}

/// Errors of the worker and parameter-server runtimes.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The transport failed.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The worker configuration was refused by the protocol state machine.
    #[error("invalid worker configuration: {0}")]
    WorkerConfig(#[source] WorkerError),
    /// The parameter-server configuration or a job was refused.
    #[error("invalid parameter server configuration: {0}")]
    PsConfig(#[source] PsError),
    /// A configuration file or flag is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A chunk timed out `max_retries` times and no `RESULT` came back.
    #[error(
        "job {job}: no RESULT for chunk seq {seq} from the switch at {switch} after {timeouts} \
         timeouts ({resends} resends) — is the switch running and the job admitted? (A \
         worker of the job that stopped, or its PS when chunks fall back, leaves the others \
         here too.){hint}"
    )]
    NoResult {
        /// The job.
        job: u16,
        /// The chunk that waited.
        seq: u16,
        /// Timeouts (each sent a probe or a resend).
        timeouts: u32,
        /// Resends made.
        resends: u32,
        /// Where the worker sent its chunks.
        switch: SocketAddr,
        /// Extra diagnosis (empty or starting with a space), e.g. the last
        /// send error or evidence that the job is ahead of this worker.
        hint: String,
    },
    /// Packets of the job name seqs this worker has not reached: it was
    /// restarted (or started late) and would otherwise sum stale chunks.
    #[error(
        "job {job} worker {worker_id}: the job is at seq {job_seq} but this worker is at seq \
         {own_seq} — was it restarted? Restart it with start_seq (WorkerConfig::first_seq) \
         set to the seq of the iteration to rejoin"
    )]
    BehindJob {
        /// The job.
        job: u16,
        /// This worker.
        worker_id: u8,
        /// A seq seen in a `RESULT` or `QUERY` of the job.
        job_seq: u16,
        /// The next seq of this worker.
        own_seq: u16,
    },
    /// The all-reduce failed for another protocol reason (overflow at the
    /// exponent floor).
    #[error("job {job}: all-reduce failed: {source}")]
    Allreduce {
        /// The job.
        job: u16,
        /// The state machine's reason.
        #[source]
        source: WorkerError,
    },
    /// The shutdown flag was raised (SIGINT, SIGTERM or the caller). The
    /// worker cannot run another all-reduce afterwards.
    #[error("interrupted")]
    Interrupted,
    /// An all-reduce is already running (or was interrupted).
    #[error("an all-reduce is already running on this worker")]
    Busy,
    /// `poll_allreduce` got a buffer of another length than `start_allreduce`.
    #[error("the buffer has {found} elements, the all-reduce was started with {expected}")]
    LengthMismatch {
        /// Elements given to `start_allreduce`.
        expected: usize,
        /// Elements of the buffer passed now.
        found: usize,
    },
    /// `poll_allreduce` without a running all-reduce.
    #[error("no all-reduce is running")]
    Idle,
    /// A test-support switch refused its configuration.
    #[error("model switch: {0}")]
    ModelSwitch(String),
}
