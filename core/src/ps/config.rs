//! The PS's settings, a job's options, and the PS's errors.

use super::*;

/// Settings of a parameter server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PsConfig {
    /// int32 lanes per packet (K), as the switch was built.
    pub lanes: usize,
    /// Results kept per job to answer late resends, 1..=32768.
    pub result_cache: usize,
    /// At most one `QUERY` per chunk per this many microseconds.
    pub query_interval_us: u64,
    /// Parts stored per chunk, 1..=[`MAX_PARTS_PER_CHUNK`], at least every
    /// job's fan-in (a tree job's workers in all its racks); beyond it the
    /// oldest multi-worker part is dropped (workers keep resending
    /// single-worker parts, so the chunk still completes).
    pub max_parts_per_chunk: usize,
    /// Incomplete chunks kept per job; beyond it the oldest is dropped.
    pub max_pending_chunks: usize,
}

impl Default for PsConfig {
    /// [`DEFAULT_LANES`] lanes, 4096 cached results per job, a query per
    /// chunk per millisecond, 64 parts per chunk and 4096 pending chunks per
    /// job.
    fn default() -> PsConfig {
        PsConfig {
            lanes: DEFAULT_LANES,
            result_cache: 4096,
            query_interval_us: 1_000,
            max_parts_per_chunk: 64,
            max_pending_chunks: 4096,
        }
    }
}

impl PsConfig {
    /// Checks every field; the first bad one is the error.
    pub fn validate(&self) -> Result<(), PsError> {
        if self.lanes == 0 || self.lanes > MAX_LANES {
            return Err(PsError::Lanes(self.lanes));
        }
        if self.result_cache == 0 || self.result_cache > MAX_WINDOW {
            return Err(PsError::ResultCache(self.result_cache));
        }
        if self.max_parts_per_chunk == 0 || self.max_parts_per_chunk > MAX_PARTS_PER_CHUNK {
            return Err(PsError::MaxParts(self.max_parts_per_chunk));
        }
        if self.max_pending_chunks == 0 {
            return Err(PsError::MaxPendingChunks(self.max_pending_chunks));
        }
        Ok(())
    }
}

/// Per-job options beyond the fan-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobOptions {
    /// Send every `RESULT` that arrives from elsewhere (`worker !=
    /// PS_WORKER_ID`) on to the group, stamped `worker = PS_WORKER_ID`.
    /// This is the PS's part in `atp` mode, where the switch sends its
    /// completions (D1) and re-emissions (D5) to the PS only
    /// (`docs/protocol.md` §5). The stamp keeps the PS from forwarding its
    /// own echo again.
    pub forward_results: bool,
    /// A job across racks (`docs/protocol.md` §9.4): the workers of each
    /// rack. Its fan-in at the PS is the number of racks (the root's), its
    /// parts are read as sets of (rack, worker) and its results carry the
    /// root's header. `None`: a flat job.
    pub tree: Option<TreeShape>,
}

impl JobOptions {
    /// The options of a `mode` job: results forwarded in `atp` mode only
    /// ([`Mode::ps_forwards_results`]).
    pub const fn for_mode(mode: Mode) -> JobOptions {
        JobOptions {
            forward_results: mode.ps_forwards_results(),
            tree: None,
        }
    }
}

/// Errors of the parameter server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PsError {
    /// `lanes` is 0 or above [`MAX_LANES`].
    #[error("{0} lanes is not in 1..=64")]
    Lanes(usize),
    /// `result_cache` is 0 or above 32768.
    #[error("result cache of {0} is not in 1..=32768")]
    ResultCache(usize),
    /// `max_parts_per_chunk` is 0 or above [`MAX_PARTS_PER_CHUNK`].
    #[error("max parts per chunk {0} is not in 1..=256")]
    MaxParts(usize),
    /// `max_pending_chunks` is 0.
    #[error("max pending chunks {0} is not positive")]
    MaxPendingChunks(usize),
    /// A job id of 0 or above [`MAX_JOB_ID`].
    #[error("job id {0} is not in 1..=4095")]
    Job(u16),
    /// A fan-in of 0 or above [`MAX_FAN_IN`].
    #[error("fan-in {0} is not in 1..=32")]
    FanIn(u8),
    /// A fan-in above `max_parts_per_chunk`: the single-worker parts of
    /// resends could not all be stored, so a chunk might never complete.
    #[error("fan-in {fan_in} is above max parts per chunk {max_parts}")]
    FanInExceedsMaxParts {
        /// The job's fan-in.
        fan_in: u8,
        /// The configured maximum.
        max_parts: usize,
    },
    /// A tree job whose every worker does not fit `max_parts_per_chunk`:
    /// the single-worker parts of resends could not all be stored.
    #[error("{workers} workers in the job's racks are above max parts per chunk {max_parts}")]
    WorkersExceedMaxParts {
        /// The job's workers in all its racks.
        workers: usize,
        /// The configured maximum.
        max_parts: usize,
    },
    /// A tree job added with another fan-in than its number of racks (the
    /// root's fan-in).
    #[error("job {job}: fan-in {fan_in} is not the tree's {racks} racks")]
    TreeFanIn {
        /// The job.
        job: u16,
        /// The fan-in given.
        fan_in: u8,
        /// The tree's racks.
        racks: u8,
    },
    /// `add_job` for a job already served.
    #[error("job {0} is already served")]
    JobExists(u16),
    /// The payload is not an ESA header with the configured lanes.
    #[error("malformed payload: {0}")]
    Malformed(#[from] WireError),
    /// A packet for a job this PS does not serve.
    #[error("packet for unknown job {0}")]
    UnknownJob(u16),
    /// A packet type a PS never receives (`DATA`).
    #[error("a parameter server does not accept {0:?} packets")]
    UnexpectedType(PacketType),
    /// The packet's `fan_in` differs from the job's.
    #[error("job {job}: packet says fan-in {found}, the job has {expected}")]
    FanInMismatch {
        /// The job.
        job: u16,
        /// The job's fan-in.
        expected: u8,
        /// The packet's fan-in.
        found: u8,
    },
    /// A tree job's part or probe from a rack the job does not have.
    #[error("job {job}: rack {rack} is not one of the job's {racks} racks")]
    UnknownRack {
        /// The job.
        job: u16,
        /// The packet's rack (its `worker` field).
        rack: u8,
        /// The job's racks.
        racks: u8,
    },
    /// A part's bitmap is empty or names workers beyond the fan-in.
    #[error("job {job} seq {seq}: part bitmap {bitmap:#x} is empty or outside {full:#x}")]
    BadBitmap {
        /// The job.
        job: u16,
        /// The chunk.
        seq: u16,
        /// The part's bitmap.
        bitmap: u32,
        /// The job's full bitmap.
        full: u32,
    },
    /// A part's `count` is not the popcount of its bitmap.
    #[error("job {job} seq {seq}: count {count} does not match bitmap {bitmap:#x}")]
    CountMismatch {
        /// The job.
        job: u16,
        /// The chunk.
        seq: u16,
        /// The part's bitmap.
        bitmap: u32,
        /// The part's count.
        count: u8,
    },
    /// A `FALLBACK` or `FLUSH` part with another exponent than the chunk's
    /// earlier parts.
    #[error("job {job} seq {seq}: part exponent {found}, the chunk's parts have {expected}")]
    ExponentMismatch {
        /// The job.
        job: u16,
        /// The chunk.
        seq: u16,
        /// The chunk's exponent so far.
        expected: i8,
        /// The part's exponent.
        found: i8,
    },
    /// A tree job's `RESULT` without the root's header (`UPPER`).
    #[error("job {job} seq {seq}: RESULT of a tree job without UPPER")]
    NotRootResult {
        /// The job.
        job: u16,
        /// The chunk.
        seq: u16,
    },
    /// A `RESULT` that does not hold every worker's contribution.
    #[error(
        "job {job} seq {seq}: RESULT has bitmap {bitmap:#x} and count {count}, not all workers"
    )]
    IncompleteResult {
        /// The job.
        job: u16,
        /// The chunk.
        seq: u16,
        /// The packet's bitmap.
        bitmap: u32,
        /// The packet's count.
        count: u8,
    },
}
