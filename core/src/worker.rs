//! The worker's protocol state machine (`docs/protocol.md` §6.1).
//!
//! A [`Worker`] sums one tensor at a time with the other workers of its job:
//! [`Worker::start_allreduce`] cuts the tensor into chunks of `lanes` values,
//! [`Worker::poll_transmit_into`] writes `DATA` payloads into the caller's
//! buffer while fewer than `window` chunks are outstanding,
//! [`Worker::handle_payload`] takes `RESULT` and `QUERY` payloads, and
//! [`Worker::handle_timeout`] schedules resends. When every chunk has its
//! result, [`Worker::poll_event`] reports [`WorkerEvent::Completed`] and
//! [`Worker::result`] (in place) or [`Worker::take_result`] gives the sum.
//!
//! Nothing here opens a socket or reads a clock: payloads are ESA headers plus
//! lanes (the embedding program adds Ethernet, IPv4 and UDP) and time is the
//! `now_us` argument.
//!
//! The send path allocates nothing in steady state: a payload is quantized
//! straight into the caller's buffer, chunks in flight live in a ring that
//! keeps its storage, a resend quantizes its chunk again instead of keeping
//! the lanes, and the tensor buffer is reused by the next all-reduce unless
//! the result is taken.
//!
//! Sequence numbers are the job's shared clock: every all-reduce (overflow
//! re-runs included) advances the seq counter by the chunks it used, the same
//! on every worker, so chunk `c` of the *n*-th all-reduce has the same `seq`
//! everywhere. A worker that (re)joins a running job starts its counter at
//! [`WorkerConfig::first_seq`].

use crate::constants::PS_WORKER_ID;
use crate::constants::{
    DEFAULT_LANES, DEFAULT_POOL_SLOTS, HEADER_LEN, MAX_FAN_IN, MAX_JOB_ID, MAX_LANES,
    esa_payload_len,
};
use crate::policy::{Policy, PolicyInput};
use crate::quant::{self, MAX_EXPONENT, MIN_EXPONENT, OVERFLOW_EXPONENT_STEP};
use crate::rtt::RttEstimator;
use crate::wire::{EsaPacket, EsaRepr, Flags, Key, PacketType, WireError};
use std::collections::VecDeque;

/// The largest window: half the 16-bit seq space, so a seq never has a
/// namesake among the chunks in flight or just completed.
pub const MAX_WINDOW: usize = 1 << 15;

/// How a chunk's seq becomes a slot index (`docs/protocol.md` §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlotMapping {
    /// `esa` and `atp` modes: a job-dependent hashed offset plus `seq mod
    /// window`, masked to the job's slot range (see [`slot_for`]).
    #[default]
    Hashed,
    /// `switchml` mode: `seq mod (slot_mask + 1)` in the job's own range.
    Direct,
}

/// The slot of chunk `seq` of `job`, relative to the job's slot range.
///
/// - [`SlotMapping::Hashed`]: `(mix32(job) + seq mod window) & slot_mask`,
///   where `mix32` is the integer hash "lowbias32" (C. Wellons):
///   `x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16`
///   on the job id as a `u32` (wrapping multiplication). The chunks of one
///   window of one job therefore use `window` consecutive (modulo the range)
///   and distinct slots whenever `window <= slot_mask + 1`, and two jobs
///   overlap as far as their hashed offsets say. When `window` does not divide
///   2¹⁶ the chunks around the seq wrap may share a slot; that is a
///   performance matter only (the switch falls back to the PS).
/// - [`SlotMapping::Direct`]: `seq & slot_mask`, which is `seq mod (slot_mask
///   + 1)` for the power-of-two ranges the switch uses (SwitchML).
///
/// A `window` of 0 is treated as 1. The result is the same on every host.
pub fn slot_for(mapping: SlotMapping, job: u16, seq: u16, window: usize, slot_mask: u16) -> u16 {
    match mapping {
        SlotMapping::Direct => seq & slot_mask,
        SlotMapping::Hashed => {
            let window = window.clamp(1, 1 << 16) as u32;
            let index = u32::from(seq) % window;
            let slot = mix32(u32::from(job)).wrapping_add(index) & u32::from(slot_mask);
            slot as u16
        }
    }
}

/// lowbias32: a 32-bit integer finalizer with good avalanche.
const fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

pub use crate::pool::full_bitmap;

/// Settings of one worker of one job.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Job id, 1..=4095.
    pub job: u16,
    /// This worker's id, `0..fan_in`; its bit in the bitmap.
    pub worker_id: u8,
    /// Number of workers of the job, 1..=32.
    pub fan_in: u8,
    /// int32 lanes per packet (K); must be what the switch was built for.
    pub lanes: usize,
    /// Chunks outstanding at most, 1..=[`MAX_WINDOW`].
    pub window: usize,
    /// How seqs map to slots.
    pub slot_mapping: SlotMapping,
    /// The job's slot range is `0..=slot_mask`; `slot_mask + 1` is a power
    /// of two.
    pub slot_mask: u16,
    /// Quantization exponent of the first try (`value = lane × 2^−exponent`).
    pub exponent: i8,
    /// The retransmission timeout before the first round trip is measured.
    pub rto_initial_us: u64,
    /// The floor of the measured timeout; `None`: `rto_initial_us`, so the
    /// timeout only adapts upward (set it lower for a hardware switch whose
    /// round trips are microseconds).
    pub rto_min_us: Option<u64>,
    /// The ceiling of the measured timeout; a chunk's timeout doubles per
    /// resend up to this.
    pub rto_max_us: u64,
    /// Resends of one chunk before the all-reduce fails.
    pub max_retries: u32,
    /// Accepted results kept to answer `QUERY` packets.
    pub result_cache: usize,
    /// Priority policy.
    pub policy: Policy,
    /// Chunks the job will send in all, when known (for `srpt`).
    pub chunks_total: Option<u64>,
    /// The seq counter's start: 0 for a fresh job; for a worker that
    /// (re)joins a running job, the `seq_base` of the all-reduce it joins
    /// (the job's seqs used so far, modulo 2¹⁶). Every worker of the job
    /// must be at the same seq for the same all-reduce
    /// (`docs/protocol.md` §6.1).
    pub first_seq: u16,
}

impl WorkerConfig {
    /// Defaults for worker `worker_id` of a job of `fan_in` workers:
    /// [`DEFAULT_LANES`] lanes, a window of 64, hashed slots over the whole
    /// default pool, exponent 16, RTO 1 ms at first, then measured (never
    /// below 1 ms) and doubling per resend up to 64 ms, 50 retries,
    /// a result cache of four windows, the `fcfs` policy and seqs from 0.
    pub fn new(job: u16, worker_id: u8, fan_in: u8) -> WorkerConfig {
        let window = 64;
        WorkerConfig {
            job,
            worker_id,
            fan_in,
            lanes: DEFAULT_LANES,
            window,
            slot_mapping: SlotMapping::Hashed,
            slot_mask: (DEFAULT_POOL_SLOTS - 1) as u16,
            exponent: quant::DEFAULT_EXPONENT,
            rto_initial_us: 1_000,
            rto_min_us: None,
            rto_max_us: 64_000,
            max_retries: 50,
            result_cache: 4 * window,
            policy: Policy::Fcfs,
            chunks_total: None,
            first_seq: 0,
        }
    }

    /// The most seqs the chunks in flight may span, from the oldest one
    /// still waiting to the newest sent (finished ones in between
    /// included): `(result_cache + 1) / 2`, at least `window`, at most
    /// [`MAX_WINDOW`].
    ///
    /// While this worker waits for chunk *X*, no chunk at or beyond *X* +
    /// span can complete (it needs this worker's contribution), and every
    /// peer's chunks in flight span at most as much, so a peer accepts at
    /// most `2 × span − 2` other results after *X*'s. With every worker's
    /// `result_cache ≥ 2 × span − 1` (the default, four windows, gives
    /// `span = 2 × window`), a peer that accepted *X* still holds it when
    /// the PS's `QUERY` for *X* arrives: the only copy left when the
    /// `RESULT` was lost both toward this worker and toward the PS
    /// (`docs/protocol.md` §6.1). Without the bound, the rest of the job
    /// could complete so many chunks before this worker's resend that
    /// every cache had dropped *X*, and the chunk could never finish.
    pub fn max_span(&self) -> usize {
        self.result_cache
            .div_ceil(2)
            .max(self.window)
            .min(MAX_WINDOW)
    }

    /// Checks every field; the first bad one is the error.
    pub fn validate(&self) -> Result<(), WorkerError> {
        if self.fan_in == 0 || self.fan_in > MAX_FAN_IN {
            return Err(WorkerError::FanIn(self.fan_in));
        }
        if self.worker_id >= self.fan_in {
            return Err(WorkerError::WorkerId {
                worker_id: self.worker_id,
                fan_in: self.fan_in,
            });
        }
        if self.job == 0 || self.job > MAX_JOB_ID {
            return Err(WorkerError::Job(self.job));
        }
        if self.lanes == 0 || self.lanes > MAX_LANES {
            return Err(WorkerError::Lanes(self.lanes));
        }
        if self.window == 0 || self.window > MAX_WINDOW {
            return Err(WorkerError::Window(self.window));
        }
        let slots = u32::from(self.slot_mask) + 1;
        if !slots.is_power_of_two() {
            return Err(WorkerError::SlotMask(self.slot_mask));
        }
        if self.slot_mapping == SlotMapping::Direct && self.window as u32 > slots {
            return Err(WorkerError::WindowExceedsSlots {
                window: self.window,
                slots,
            });
        }
        if !(MIN_EXPONENT..=MAX_EXPONENT).contains(&self.exponent) {
            return Err(WorkerError::Exponent(self.exponent));
        }
        if self.rto_initial_us == 0 || self.rto_max_us < self.rto_initial_us {
            return Err(WorkerError::Rto {
                initial_us: self.rto_initial_us,
                max_us: self.rto_max_us,
            });
        }
        if let Some(min_us) = self.rto_min_us
            && (min_us == 0 || min_us > self.rto_max_us)
        {
            return Err(WorkerError::RtoMin {
                min_us,
                max_us: self.rto_max_us,
            });
        }
        Ok(())
    }
}

/// Errors of the worker: bad configuration, bad input packets and failed
/// all-reduces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkerError {
    /// `fan_in` is 0 or above [`MAX_FAN_IN`].
    #[error("fan-in {0} is not in 1..=32")]
    FanIn(u8),
    /// `worker_id` is not below `fan_in`.
    #[error("worker id {worker_id} is not below the fan-in {fan_in}")]
    WorkerId {
        /// The configured worker id.
        worker_id: u8,
        /// The configured fan-in.
        fan_in: u8,
    },
    /// The job id is 0 (reserved) or above [`MAX_JOB_ID`].
    #[error("job id {0} is not in 1..=4095")]
    Job(u16),
    /// `lanes` is 0 or above [`MAX_LANES`].
    #[error("{0} lanes is not in 1..=64")]
    Lanes(usize),
    /// `window` is 0 or above [`MAX_WINDOW`].
    #[error("window {0} is not in 1..=32768")]
    Window(usize),
    /// `slot_mask + 1` is not a power of two.
    #[error("slot mask {0:#x} is not one less than a power of two")]
    SlotMask(u16),
    /// In [`SlotMapping::Direct`] mode the window is larger than the job's
    /// slot range, so chunks in flight would share slots.
    #[error("window {window} is larger than the job's {slots} slots")]
    WindowExceedsSlots {
        /// The configured window.
        window: usize,
        /// Slots in the job's range.
        slots: u32,
    },
    /// The exponent is outside `MIN_EXPONENT..=MAX_EXPONENT`.
    #[error("exponent {0} is outside the supported range")]
    Exponent(i8),
    /// The initial RTO is 0 or the maximum is below it.
    #[error("retransmission timeout {initial_us} µs initial / {max_us} µs max is invalid")]
    Rto {
        /// Configured initial timeout.
        initial_us: u64,
        /// Configured maximum timeout.
        max_us: u64,
    },
    /// The buffer given to [`Worker::poll_transmit_into`] cannot hold a
    /// payload.
    #[error("transmit buffer of {have} bytes is shorter than a payload ({need} bytes)")]
    BufferTooSmall {
        /// Bytes of a payload ([`Worker::payload_len`]).
        need: usize,
        /// Bytes of the buffer.
        have: usize,
    },
    /// The RTO floor is 0 or above the maximum.
    #[error("retransmission timeout floor {min_us} µs is 0 or above the maximum {max_us} µs")]
    RtoMin {
        /// Configured floor.
        min_us: u64,
        /// Configured maximum timeout.
        max_us: u64,
    },
    /// `start_allreduce` while another all-reduce runs.
    #[error("an all-reduce is already running")]
    Busy,
    /// The payload is not an ESA header with the configured lanes.
    #[error("malformed payload: {0}")]
    Malformed(#[from] WireError),
    /// The packet is for another job.
    #[error("packet for job {found}, this worker belongs to job {expected}")]
    WrongJob {
        /// This worker's job.
        expected: u16,
        /// The packet's job.
        found: u16,
    },
    /// A packet type a worker never receives (`DATA`, `FALLBACK`, `EVICTED`,
    /// `FLUSH`).
    #[error("a worker does not accept {0:?} packets")]
    UnexpectedType(PacketType),
    /// A `RESULT` whose `fan_in` differs from the job's.
    #[error("RESULT for seq {seq} says fan-in {found}, the job has {expected}")]
    ResultFanIn {
        /// Seq of the result.
        seq: u16,
        /// The job's fan-in.
        expected: u8,
        /// The packet's fan-in.
        found: u8,
    },
    /// A `RESULT` that does not hold every worker's contribution.
    #[error("RESULT for seq {seq} has bitmap {bitmap:#x} and count {count}, not all workers")]
    IncompleteResult {
        /// Seq of the result.
        seq: u16,
        /// The packet's bitmap.
        bitmap: u32,
        /// The packet's count.
        count: u8,
    },
    /// A `RESULT` with another exponent than the chunk was sent with.
    #[error("RESULT for seq {seq} has exponent {found}, the chunk was sent with {expected}")]
    ResultExponent {
        /// Seq of the result.
        seq: u16,
        /// The chunk's exponent.
        expected: i8,
        /// The packet's exponent.
        found: i8,
    },
    /// A chunk was resent `max_retries` times and its `RESULT` never came.
    #[error("job {job}: chunk seq {seq} got no RESULT after {resends} resends")]
    ResultTimeout {
        /// The job.
        job: u16,
        /// The chunk that waited.
        seq: u16,
        /// Resends made.
        resends: u32,
    },
    /// Chunks still overflow and the exponent cannot drop further.
    #[error(
        "job {job}: {chunks} chunks overflow at exponent {exponent}, \
         and the next step would go below the minimum exponent"
    )]
    ExponentFloor {
        /// The job.
        job: u16,
        /// The exponent of the last try.
        exponent: i8,
        /// Chunks that still overflowed.
        chunks: usize,
    },
}

/// What happened to an all-reduce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerEvent {
    /// Every chunk has its result; [`Worker::take_result`] gives the sum.
    Completed {
        /// Seq of the first chunk.
        seq_base: u16,
        /// Seqs used, overflow re-runs included (the seq counter advanced by
        /// this much, modulo 2¹⁶).
        chunks: u64,
    },
    /// The all-reduce was abandoned.
    Failed(WorkerError),
}

/// Counters of a worker, over its lifetime.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Payloads handed out by [`Worker::poll_transmit`], of every kind.
    pub packets_sent: u64,
    /// First transmissions of `DATA`.
    pub data_sent: u64,
    /// Retransmissions of `DATA` (with `RESEND`).
    pub resends: u64,
    /// `RESULT`s accepted.
    pub results_accepted: u64,
    /// Accepted results a PS originated (`worker == PS_WORKER_ID`).
    pub results_from_ps: u64,
    /// Accepted results completed in the switch (or relayed by a worker).
    pub results_from_switch: u64,
    /// Valid `RESULT`s for chunks not outstanding.
    pub duplicate_results: u64,
    /// Payloads rejected with an error.
    pub invalid_packets: u64,
    /// `QUERY`s answered from the result cache.
    pub queries_answered: u64,
    /// `QUERY`s for results not in the cache.
    pub queries_unanswered: u64,
    /// Chunks re-run with a smaller exponent after an overflow.
    pub overflow_retries: u64,
}

/// A chunk sent and waiting for its result, or a finished chunk still in
/// the ring behind an older one that waits.
///
/// The lanes are not kept: a resend quantizes the chunk again from the
/// input, which gives the same bytes (same values, same exponent).
#[derive(Debug, Clone, Copy)]
struct Outstanding {
    /// Chunk index in the tensor.
    index: usize,
    key: Key,
    slot: u16,
    exponent: i8,
    /// `OVERFLOW` if quantization saturated, else empty.
    flags: Flags,
    resends: u32,
    /// When it was first sent, for the round-trip sample.
    sent_us: u64,
    rto_us: u64,
    deadline_us: u64,
    /// A resend is queued and not yet handed out.
    resend_queued: bool,
    /// Resent early because it alone held the span bound (once per chunk).
    resent_at_span: bool,
    /// Its result was accepted.
    done: bool,
}

/// The chunks in flight, in sending order: entry `i` has seq `front_seq +
/// i`. Finished entries stay until every older one has finished, so a seq
/// is found by subtraction and nothing is allocated per chunk once the
/// ring has grown to the window.
#[derive(Debug, Clone, Default)]
struct Ring {
    entries: VecDeque<Outstanding>,
    front_seq: u16,
    /// Entries not `done`.
    waiting: usize,
}

impl Ring {
    /// The entry of `seq`, if it is in the ring and still waits.
    fn waiting_mut(&mut self, seq: u16) -> Option<&mut Outstanding> {
        let at = usize::from(seq.wrapping_sub(self.front_seq));
        self.entries.get_mut(at).filter(|c| !c.done)
    }

    /// Seqs the ring spans, finished ones included.
    fn span(&self) -> usize {
        self.entries.len()
    }

    fn push(&mut self, seq: u16, chunk: Outstanding) {
        if self.entries.is_empty() {
            self.front_seq = seq;
        }
        self.entries.push_back(chunk);
        self.waiting += 1;
    }

    /// Marks `seq` done; returns its entry if it was waiting.
    fn finish(&mut self, seq: u16) -> Option<Outstanding> {
        let chunk = self.waiting_mut(seq)?;
        chunk.done = true;
        let chunk = *chunk;
        self.waiting -= 1;
        while self.entries.front().is_some_and(|c| c.done) {
            self.entries.pop_front();
            self.front_seq = self.front_seq.wrapping_add(1);
        }
        Some(chunk)
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.waiting = 0;
    }
}

/// A result as accepted: its header and its lanes as they arrived.
#[derive(Debug, Clone)]
struct LoggedResult {
    header: EsaRepr,
    /// Big-endian lanes.
    lanes: Vec<u8>,
}

/// The last `capacity` results accepted, oldest first. Appending reuses
/// the storage of the entry it pushes out; a lookup scans from the newest,
/// which is cheap next to the `QUERY` that asks.
#[derive(Debug, Clone)]
struct ResultLog {
    capacity: usize,
    entries: VecDeque<LoggedResult>,
}

impl ResultLog {
    fn new(capacity: usize) -> ResultLog {
        ResultLog {
            capacity,
            entries: VecDeque::new(),
        }
    }

    fn push(&mut self, header: EsaRepr, lanes: &[u8]) {
        if self.capacity == 0 {
            return;
        }
        let mut entry = if self.entries.len() >= self.capacity {
            self.entries.pop_front()
        } else {
            None
        }
        .unwrap_or(LoggedResult {
            header,
            lanes: Vec::new(),
        });
        entry.header = header;
        entry.lanes.clear();
        entry.lanes.extend_from_slice(lanes);
        self.entries.push_back(entry);
    }

    /// The newest result accepted for `seq`.
    fn get(&self, seq: u16) -> Option<&LoggedResult> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.header.key.seq() == seq)
    }
}

/// The all-reduce in progress.
#[derive(Debug, Clone)]
struct AllReduce {
    /// The input; a chunk's values are replaced by its sum when its result
    /// is accepted (an `OVERFLOW` result keeps the input for the re-run), so
    /// at the end this is the result.
    data: Vec<f32>,
    seq_base: u16,
    seqs_used: u64,
    /// Exponent of the current round.
    exponent: i8,
    /// Chunks in the current round.
    round_len: usize,
    /// Chunk indices of a re-run round, in sending order; empty for the
    /// first round, whose position `i` is chunk `i`.
    rerun: Vec<usize>,
    /// Seq of the round's first chunk; position `i` gets `round_seq_base + i`.
    round_seq_base: u16,
    /// Next position in the round to send.
    next: usize,
    /// Chunks of this round whose result carried `OVERFLOW`.
    overflowed: Vec<usize>,
}

impl AllReduce {
    /// The chunk index at position `at` of the current round.
    fn chunk_at(&self, at: usize) -> usize {
        self.rerun.get(at).copied().unwrap_or(at)
    }
}

/// One worker of one job: the sans-IO state machine of `docs/protocol.md` §6.1.
///
/// The policy sees: `start_us` = the `now_us` of this worker's first
/// all-reduce, `chunks_done` = results accepted so far (re-runs included)
/// plus [`WorkerConfig::first_seq`], `last_switch_completion_us` = when the
/// last accepted result not made by a PS arrived.
#[derive(Debug, Clone)]
pub struct Worker {
    cfg: WorkerConfig,
    full_bitmap: u32,
    next_seq: u16,
    run: Option<AllReduce>,
    /// Kept across all-reduces, so its storage is reused.
    ring: Ring,
    /// The buffer of an aborted all-reduce, reused by the next.
    spare_input: Vec<f32>,
    resend_queue: VecDeque<u16>,
    answers: VecDeque<Vec<u8>>,
    events: VecDeque<WorkerEvent>,
    result: Option<Vec<f32>>,
    /// The last `result_cache` results accepted, to answer `QUERY`s.
    accepted: ResultLog,
    stats: WorkerStats,
    rtt: RttEstimator,
    job_start_us: Option<u64>,
    chunks_done: u64,
    last_switch_completion_us: Option<u64>,
}

impl Worker {
    /// A worker with a validated configuration, its seq counter at
    /// [`WorkerConfig::first_seq`].
    pub fn new(cfg: WorkerConfig) -> Result<Worker, WorkerError> {
        cfg.validate()?;
        Ok(Worker {
            full_bitmap: full_bitmap(cfg.fan_in),
            next_seq: cfg.first_seq,
            run: None,
            ring: Ring::default(),
            spare_input: Vec::new(),
            resend_queue: VecDeque::new(),
            answers: VecDeque::new(),
            events: VecDeque::new(),
            result: None,
            accepted: ResultLog::new(cfg.result_cache),
            stats: WorkerStats::default(),
            rtt: RttEstimator::new(
                cfg.rto_initial_us,
                cfg.rto_min_us.unwrap_or(cfg.rto_initial_us),
                cfg.rto_max_us,
            ),
            job_start_us: None,
            chunks_done: u64::from(cfg.first_seq),
            last_switch_completion_us: None,
            cfg,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &WorkerConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> &WorkerStats {
        &self.stats
    }

    /// The round-trip estimator whose RTO new chunks get.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// Seq the next chunk (of this or the next all-reduce) will get.
    pub fn next_seq(&self) -> u16 {
        self.next_seq
    }

    /// Seq of the next chunk this worker sends for the first time: inside
    /// a running all-reduce, the position it has reached (the seqs after
    /// it are not sent yet, even though [`Worker::next_seq`] is already
    /// past the whole tensor); otherwise [`Worker::next_seq`].
    pub fn send_seq(&self) -> u16 {
        match &self.run {
            Some(run) => run.round_seq_base.wrapping_add(run.next as u16),
            None => self.next_seq,
        }
    }

    /// Whether an all-reduce is running.
    pub fn is_busy(&self) -> bool {
        self.run.is_some()
    }

    /// Chunks sent and waiting for their result.
    pub fn outstanding(&self) -> usize {
        self.ring.waiting
    }

    /// Bytes of every payload this worker sends: the header and `lanes`
    /// lanes. [`Worker::poll_transmit_into`] needs a buffer this long.
    pub fn payload_len(&self) -> usize {
        esa_payload_len(self.cfg.lanes)
    }

    /// Starts summing `data` with the other workers of the job. A result not
    /// yet taken with [`Worker::take_result`] is dropped (its buffer holds
    /// the new input: reading results with [`Worker::result`] instead of
    /// taking them keeps all-reduces free of allocation). An empty tensor
    /// completes at once.
    pub fn start_allreduce(&mut self, data: &[f32], now_us: u64) -> Result<(), WorkerError> {
        if self.run.is_some() {
            return Err(WorkerError::Busy);
        }
        self.job_start_us.get_or_insert(now_us);
        let chunks = data.len().div_ceil(self.cfg.lanes);
        let seq_base = self.next_seq;
        if chunks == 0 {
            self.events.push_back(WorkerEvent::Completed {
                seq_base,
                chunks: 0,
            });
            self.result = Some(Vec::new());
            return Ok(());
        }
        self.next_seq = seq_base.wrapping_add(chunks as u16);
        self.ring.clear();
        self.ring
            .entries
            .reserve(chunks.min(self.cfg.window).min(MAX_WINDOW));
        // An untaken result's buffer (or an aborted run's) is reused.
        let mut input = match self.result.take() {
            Some(r) if r.capacity() >= self.spare_input.capacity() => r,
            _ => std::mem::take(&mut self.spare_input),
        };
        input.clear();
        input.extend_from_slice(data);
        self.run = Some(AllReduce {
            data: input,
            seq_base,
            seqs_used: chunks as u64,
            exponent: self.cfg.exponent,
            round_len: chunks,
            rerun: Vec::new(),
            round_seq_base: seq_base,
            next: 0,
            overflowed: Vec::new(),
        });
        Ok(())
    }

    /// The next payload to send, if any, in a new buffer; see
    /// [`Worker::poll_transmit_into`], which writes into the caller's.
    pub fn poll_transmit(&mut self, now_us: u64) -> Option<Vec<u8>> {
        let mut payload = vec![0; self.payload_len()];
        match self.poll_transmit_into(now_us, &mut payload) {
            Ok(Some(len)) => {
                payload.truncate(len);
                Some(payload)
            }
            Ok(None) | Err(_) => None,
        }
    }

    /// Writes the next payload to send, if any, into the front of `buf` and
    /// returns its length ([`Worker::payload_len`]): `RESULT` answers to
    /// `QUERY`s first, then resends due, then `DATA` for new chunks while
    /// fewer than `window` are outstanding.
    ///
    /// A `DATA` payload is built in place — the header, then the chunk's
    /// values quantized straight into big-endian lanes — so sending
    /// allocates nothing once the worker has run a window. A `buf` shorter
    /// than [`Worker::payload_len`] is an error and changes nothing.
    pub fn poll_transmit_into(
        &mut self,
        now_us: u64,
        buf: &mut [u8],
    ) -> Result<Option<usize>, WorkerError> {
        let len = self.payload_len();
        let Some(buf) = buf.get_mut(..len) else {
            return Err(WorkerError::BufferTooSmall {
                need: len,
                have: buf.len(),
            });
        };
        if let Some(answer) = self.answers.pop_front() {
            // Answers are built with the same lanes, so the lengths agree.
            let n = answer.len().min(len);
            buf[..n].copy_from_slice(&answer[..n]);
            self.stats.packets_sent += 1;
            return Ok(Some(n));
        }
        let Some(run) = self.run.as_mut() else {
            return Ok(None);
        };
        while let Some(seq) = self.resend_queue.pop_front() {
            if let Some(chunk) = self.ring.waiting_mut(seq) {
                chunk.resend_queued = false;
                self.stats.resends += 1;
                self.stats.packets_sent += 1;
                write_data(&self.cfg, &run.data, chunk, true, buf);
                return Ok(Some(len));
            }
        }
        if self.ring.waiting >= self.cfg.window || run.next >= run.round_len {
            return Ok(None);
        }
        // The span bound keeps the job from running further ahead of this
        // worker's oldest waiting chunk than its peers' result caches reach
        // (and every seq in flight distinct in 16 bits).
        if self.ring.span() >= self.cfg.max_span() {
            // Only the span holds the next chunk back: more than `max_span −
            // window` later chunks completed while the oldest waits, so its
            // RESULT (or a DATA) was lost. Resend it now, once, rather than
            // idle until its timeout.
            let max_retries = self.cfg.max_retries;
            if let Some(chunk) = self.ring.entries.front_mut().filter(|c| {
                !c.done && !c.resent_at_span && !c.resend_queued && c.resends < max_retries
            }) {
                chunk.resent_at_span = true;
                chunk.resends += 1;
                chunk.deadline_us = now_us.saturating_add(chunk.rto_us);
                self.stats.resends += 1;
                self.stats.packets_sent += 1;
                write_data(&self.cfg, &run.data, chunk, true, buf);
                return Ok(Some(len));
            }
            return Ok(None);
        }
        let index = run.chunk_at(run.next);
        let seq = run.round_seq_base.wrapping_add(run.next as u16);
        run.next += 1;

        let priority = self.cfg.policy.priority(&PolicyInput {
            now_us,
            start_us: self.job_start_us.unwrap_or(now_us),
            chunks_done: self.chunks_done,
            chunks_total: self.cfg.chunks_total,
            last_switch_completion_us: self.last_switch_completion_us,
        });
        let mut chunk = Outstanding {
            index,
            key: Key::new(priority, self.cfg.job, seq),
            slot: slot_for(
                self.cfg.slot_mapping,
                self.cfg.job,
                seq,
                self.cfg.window,
                self.cfg.slot_mask,
            ),
            exponent: run.exponent,
            flags: Flags::NONE,
            resends: 0,
            sent_us: now_us,
            rto_us: self.rtt.rto_us(),
            deadline_us: now_us.saturating_add(self.rtt.rto_us()),
            resend_queued: false,
            resent_at_span: false,
            done: false,
        };
        if write_data(&self.cfg, &run.data, &chunk, false, buf) {
            chunk.flags = Flags::OVERFLOW;
        }
        self.ring.push(seq, chunk);
        self.stats.data_sent += 1;
        self.stats.packets_sent += 1;
        Ok(Some(len))
    }

    /// The earliest retransmission deadline, if any chunk is outstanding.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.run.as_ref()?;
        self.ring
            .entries
            .iter()
            .filter(|c| !c.done)
            .map(|c| c.deadline_us)
            .min()
    }

    /// Handles every deadline at or before `now_us`: queues a resend (the
    /// chunk's timeout doubles, up to `rto_max_us`), or fails the all-reduce
    /// when the chunk was already resent `max_retries` times.
    pub fn handle_timeout(&mut self, now_us: u64) {
        if self.run.is_none() {
            return;
        }
        let mut failure = None;
        let front_seq = self.ring.front_seq;
        for (at, chunk) in self.ring.entries.iter_mut().enumerate() {
            if chunk.done || chunk.deadline_us > now_us {
                continue;
            }
            let seq = front_seq.wrapping_add(at as u16);
            if chunk.resends >= self.cfg.max_retries {
                failure = Some(WorkerError::ResultTimeout {
                    job: self.cfg.job,
                    seq,
                    resends: chunk.resends,
                });
                break;
            }
            chunk.resends += 1;
            chunk.rto_us = chunk.rto_us.saturating_mul(2).min(self.cfg.rto_max_us);
            chunk.deadline_us = now_us.saturating_add(chunk.rto_us);
            if !chunk.resend_queued {
                chunk.resend_queued = true;
                self.resend_queue.push_back(seq);
            }
        }
        if let Some(error) = failure {
            self.fail(error);
        }
    }

    /// Takes one `RESULT` or `QUERY` payload. Anything else, or a result that
    /// fails the checks of §6.1, is an error and counted in
    /// `invalid_packets`; it changes no other state.
    pub fn handle_payload(&mut self, payload: &[u8], now_us: u64) -> Result<(), WorkerError> {
        let outcome = self.dispatch(payload, now_us);
        if outcome.is_err() {
            self.stats.invalid_packets += 1;
        }
        outcome
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<WorkerEvent> {
        self.events.pop_front()
    }

    /// The sum of the last completed all-reduce, as long as the input.
    pub fn take_result(&mut self) -> Option<Vec<f32>> {
        self.result.take()
    }

    /// The sum of the last completed all-reduce, left in place until it is
    /// taken or the next all-reduce starts.
    pub fn result(&self) -> Option<&[f32]> {
        self.result.as_deref()
    }

    fn dispatch(&mut self, payload: &[u8], now_us: u64) -> Result<(), WorkerError> {
        let packet = EsaPacket::new_checked(payload, self.cfg.lanes)?;
        let repr = EsaRepr::parse(&packet)?;
        if repr.key.job() != self.cfg.job {
            return Err(WorkerError::WrongJob {
                expected: self.cfg.job,
                found: repr.key.job(),
            });
        }
        match repr.packet_type {
            PacketType::Result => self.on_result(&repr, &packet, now_us),
            PacketType::Query => {
                self.on_query(&repr);
                Ok(())
            }
            other => Err(WorkerError::UnexpectedType(other)),
        }
    }

    fn on_result(
        &mut self,
        repr: &EsaRepr,
        packet: &EsaPacket<&[u8]>,
        now_us: u64,
    ) -> Result<(), WorkerError> {
        let seq = repr.key.seq();
        if repr.fan_in != self.cfg.fan_in {
            return Err(WorkerError::ResultFanIn {
                seq,
                expected: self.cfg.fan_in,
                found: repr.fan_in,
            });
        }
        if repr.bitmap != self.full_bitmap || repr.count != self.cfg.fan_in {
            return Err(WorkerError::IncompleteResult {
                seq,
                bitmap: repr.bitmap,
                count: repr.count,
            });
        }
        let Some(run) = self.run.as_mut() else {
            self.stats.duplicate_results += 1;
            return Ok(());
        };
        let Some(chunk) = self.ring.waiting_mut(seq) else {
            self.stats.duplicate_results += 1;
            return Ok(());
        };
        if repr.exponent != chunk.exponent {
            return Err(WorkerError::ResultExponent {
                seq,
                expected: chunk.exponent,
                found: repr.exponent,
            });
        }
        let Some(chunk) = self.ring.finish(seq) else {
            return Ok(());
        };
        let index = chunk.index;
        if chunk.resends == 0 {
            // Karn's rule: a resent chunk's result may answer either copy.
            self.rtt.sample(now_us.saturating_sub(chunk.sent_us));
        }

        let lanes = packet.lanes_bytes();
        if repr.flags.contains(Flags::OVERFLOW) {
            // The sum is not exact: the chunk is re-run from its input.
            run.overflowed.push(index);
        } else {
            let start = index.saturating_mul(self.cfg.lanes).min(run.data.len());
            let end = start.saturating_add(self.cfg.lanes).min(run.data.len());
            quant::dequantize_be_into(lanes, repr.exponent, &mut run.data[start..end]);
        }

        self.stats.results_accepted += 1;
        if repr.worker == PS_WORKER_ID {
            self.stats.results_from_ps += 1;
        } else {
            self.stats.results_from_switch += 1;
            self.last_switch_completion_us = Some(now_us);
        }
        self.chunks_done += 1;
        self.accepted.push(
            EsaRepr {
                flags: repr.flags.without(Flags::RESEND),
                ..*repr
            },
            lanes,
        );
        self.finish_round_if_done();
        Ok(())
    }

    fn on_query(&mut self, repr: &EsaRepr) {
        let Some(logged) = self.accepted.get(repr.key.seq()) else {
            self.stats.queries_unanswered += 1;
            return;
        };
        let mut answer = vec![0; esa_payload_len(self.cfg.lanes)];
        if let Ok(mut packet) = EsaPacket::new_checked(&mut answer[..], self.cfg.lanes) {
            EsaRepr {
                packet_type: PacketType::Result,
                bitmap: self.full_bitmap,
                fan_in: self.cfg.fan_in,
                count: self.cfg.fan_in,
                worker: self.cfg.worker_id,
                ..logged.header
            }
            .emit(&mut packet);
        }
        answer[HEADER_LEN..].copy_from_slice(&logged.lanes);
        self.answers.push_back(answer);
        self.stats.queries_answered += 1;
    }

    /// After the last result of a round: complete, re-run the overflowed
    /// chunks with a smaller exponent, or fail at the exponent floor.
    fn finish_round_if_done(&mut self) {
        let Some(run) = self.run.as_mut() else {
            return;
        };
        if run.next < run.round_len || self.ring.waiting > 0 {
            return;
        }
        self.ring.clear();
        if run.overflowed.is_empty() {
            if let Some(run) = self.run.take() {
                self.resend_queue.clear();
                self.events.push_back(WorkerEvent::Completed {
                    seq_base: run.seq_base,
                    chunks: run.seqs_used,
                });
                self.result = Some(run.data);
            }
            return;
        }
        let next_exponent = run.exponent.checked_sub(OVERFLOW_EXPONENT_STEP);
        let Some(next_exponent) = next_exponent.filter(|e| *e >= MIN_EXPONENT) else {
            let error = WorkerError::ExponentFloor {
                job: self.cfg.job,
                exponent: run.exponent,
                chunks: run.overflowed.len(),
            };
            self.fail(error);
            return;
        };
        let mut round = std::mem::take(&mut run.overflowed);
        round.sort_unstable();
        round.dedup();
        self.stats.overflow_retries += round.len() as u64;
        run.round_seq_base = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(round.len() as u16);
        run.seqs_used += round.len() as u64;
        run.exponent = next_exponent;
        run.round_len = round.len();
        run.rerun = round;
        run.next = 0;
    }

    /// Abandons the all-reduce. The seq counter stays past every seq handed
    /// out, so a retry starts on fresh seqs.
    fn fail(&mut self, error: WorkerError) {
        self.abort_allreduce();
        self.events.push_back(WorkerEvent::Failed(error));
    }

    /// Drops the running all-reduce, if any, without an event; returns
    /// whether one was running. Its seqs stay used: the next all-reduce
    /// starts past every seq handed out, so the job's other workers must
    /// abandon theirs too (or this worker rejoins them as a restarted one
    /// would, with [`WorkerConfig::first_seq`]).
    pub fn abort_allreduce(&mut self) -> bool {
        self.ring.clear();
        self.resend_queue.clear();
        match self.run.take() {
            Some(run) => {
                self.spare_input = run.data;
                true
            }
            None => false,
        }
    }
}

/// Writes the `DATA` payload of `chunk` into `buf` (exactly
/// [`esa_payload_len`] bytes): the chunk's values of `input` quantized into
/// big-endian lanes (the last chunk zero-padded), then the header in place,
/// with `OVERFLOW` if quantization saturated. Returns whether it did.
fn write_data(
    cfg: &WorkerConfig,
    input: &[f32],
    chunk: &Outstanding,
    resend: bool,
    buf: &mut [u8],
) -> bool {
    let start = chunk.index.saturating_mul(cfg.lanes).min(input.len());
    let end = start.saturating_add(cfg.lanes).min(input.len());
    let Some(lanes) = buf.get_mut(HEADER_LEN..) else {
        return false;
    };
    let saturated = quant::quantize_be_into(&input[start..end], chunk.exponent, cfg.fan_in, lanes);
    let Ok(mut packet) = EsaPacket::new_checked(&mut *buf, cfg.lanes) else {
        // Not reached: callers pass exactly `esa_payload_len(cfg.lanes)`.
        return saturated;
    };
    let mut flags = chunk.flags;
    if saturated {
        flags = flags | Flags::OVERFLOW;
    }
    if resend {
        flags = flags | Flags::RESEND;
    }
    EsaRepr {
        packet_type: PacketType::Data,
        flags,
        slot: chunk.slot,
        key: chunk.key,
        bitmap: 1u32 << cfg.worker_id,
        fan_in: cfg.fan_in,
        count: 1,
        exponent: chunk.exponent,
        worker: cfg.worker_id,
    }
    .emit(&mut packet);
    saturated
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(job: u16, worker_id: u8, fan_in: u8, lanes: usize, window: usize) -> WorkerConfig {
        WorkerConfig {
            lanes,
            window,
            ..WorkerConfig::new(job, worker_id, fan_in)
        }
    }

    fn parse(payload: &[u8], lanes: usize) -> (EsaRepr, Vec<i32>) {
        EsaRepr::from_payload(payload, lanes).expect("worker emitted a malformed payload")
    }

    /// A complete `RESULT` for chunk `seq` of `job` with these lanes.
    fn result(
        job: u16,
        seq: u16,
        fan_in: u8,
        exponent: i8,
        values: &[i32],
        lanes: usize,
    ) -> Vec<u8> {
        EsaRepr {
            packet_type: PacketType::Result,
            flags: Flags::NONE,
            slot: 0,
            key: Key::new(0, job, seq),
            bitmap: full_bitmap(fan_in),
            fan_in,
            count: fan_in,
            exponent,
            worker: 0,
        }
        .to_payload(values, lanes)
    }

    fn drain(worker: &mut Worker, now_us: u64) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| worker.poll_transmit(now_us)).collect()
    }

    /// The smallest switch there is: sums `DATA` per seq and emits the
    /// `RESULT` (OR-ing `OVERFLOW`) when every worker has contributed.
    struct TinySwitch {
        fan_in: u8,
        lanes: usize,
        partial: HashMap<u16, (EsaRepr, Vec<i64>)>,
    }

    impl TinySwitch {
        fn new(fan_in: u8, lanes: usize) -> Self {
            TinySwitch {
                fan_in,
                lanes,
                partial: HashMap::new(),
            }
        }

        fn data(&mut self, payload: &[u8]) -> Option<Vec<u8>> {
            let (repr, values) = parse(payload, self.lanes);
            assert_eq!(repr.packet_type, PacketType::Data);
            let entry = self.partial.entry(repr.key.seq()).or_insert_with(|| {
                let mut first = repr;
                first.bitmap = 0;
                first.count = 0;
                first.flags = Flags::NONE;
                (first, vec![0; values.len()])
            });
            assert_eq!(
                entry.0.exponent, repr.exponent,
                "workers disagree on the exponent"
            );
            if entry.0.bitmap & repr.bitmap != 0 {
                return None;
            }
            entry.0.bitmap |= repr.bitmap;
            entry.0.count += 1;
            entry.0.flags = entry.0.flags | repr.flags.without(Flags::RESEND);
            for (s, v) in entry.1.iter_mut().zip(&values) {
                *s += i64::from(*v);
            }
            if entry.0.count < self.fan_in {
                return None;
            }
            let (mut out, sums) = self.partial.remove(&repr.key.seq())?;
            out.packet_type = PacketType::Result;
            out.worker = repr.worker;
            let sums: Vec<i32> = sums.iter().map(|s| i32::try_from(*s).unwrap()).collect();
            Some(out.to_payload(&sums, self.lanes))
        }
    }

    #[test]
    fn slot_for_is_pinned_and_spreads_a_window() {
        // Golden values: hosts built at different times must agree.
        assert_eq!(slot_for(SlotMapping::Hashed, 1, 0, 64, 4095), 192);
        assert_eq!(slot_for(SlotMapping::Hashed, 1, 5, 64, 4095), 197);
        assert_eq!(slot_for(SlotMapping::Hashed, 1, 69, 64, 4095), 197);
        assert_eq!(slot_for(SlotMapping::Hashed, 2, 63, 64, 255), 192);
        assert_eq!(slot_for(SlotMapping::Hashed, 4095, 5, 64, 4095), 2553);
        assert_eq!(slot_for(SlotMapping::Hashed, 7, 9, 0, 4095), 486);
        assert_eq!(slot_for(SlotMapping::Direct, 7, 0x1234, 64, 0xff), 0x34);
        assert_eq!(slot_for(SlotMapping::Direct, 7, 300, 64, 4095), 300);
        for job in 1..200u16 {
            for (window, mask) in [(64usize, 4095u16), (16, 15), (100, 127)] {
                let mut seen = std::collections::HashSet::new();
                for seq in 1000..1000 + window as u16 {
                    let slot = slot_for(SlotMapping::Hashed, job, seq, window, mask);
                    assert!(slot <= mask);
                    assert!(
                        seen.insert(slot),
                        "job {job} window {window}: slot {slot} twice"
                    );
                }
            }
        }
    }

    #[test]
    fn config_validation_names_the_bad_field() {
        assert_eq!(WorkerConfig::new(1, 0, 1).validate(), Ok(()));
        let cases: Vec<(WorkerConfig, WorkerError)> = vec![
            (WorkerConfig::new(1, 0, 0), WorkerError::FanIn(0)),
            (WorkerConfig::new(1, 0, 33), WorkerError::FanIn(33)),
            (
                WorkerConfig::new(1, 4, 4),
                WorkerError::WorkerId {
                    worker_id: 4,
                    fan_in: 4,
                },
            ),
            (WorkerConfig::new(0, 0, 4), WorkerError::Job(0)),
            (WorkerConfig::new(4096, 0, 4), WorkerError::Job(4096)),
            (config(1, 0, 4, 0, 8), WorkerError::Lanes(0)),
            (config(1, 0, 4, 65, 8), WorkerError::Lanes(65)),
            (config(1, 0, 4, 32, 0), WorkerError::Window(0)),
            (
                config(1, 0, 4, 32, MAX_WINDOW + 1),
                WorkerError::Window(MAX_WINDOW + 1),
            ),
            (
                WorkerConfig {
                    slot_mask: 100,
                    ..WorkerConfig::new(1, 0, 4)
                },
                WorkerError::SlotMask(100),
            ),
            (
                WorkerConfig {
                    slot_mapping: SlotMapping::Direct,
                    slot_mask: 31,
                    ..config(1, 0, 4, 32, 33)
                },
                WorkerError::WindowExceedsSlots {
                    window: 33,
                    slots: 32,
                },
            ),
            (
                WorkerConfig {
                    exponent: MIN_EXPONENT - 1,
                    ..WorkerConfig::new(1, 0, 4)
                },
                WorkerError::Exponent(MIN_EXPONENT - 1),
            ),
            (
                WorkerConfig {
                    rto_initial_us: 0,
                    ..WorkerConfig::new(1, 0, 4)
                },
                WorkerError::Rto {
                    initial_us: 0,
                    max_us: 64_000,
                },
            ),
            (
                WorkerConfig {
                    rto_max_us: 10,
                    ..WorkerConfig::new(1, 0, 4)
                },
                WorkerError::Rto {
                    initial_us: 1_000,
                    max_us: 10,
                },
            ),
        ];
        let cases = cases.into_iter().chain([
            (
                WorkerConfig {
                    rto_min_us: Some(0),
                    ..WorkerConfig::new(1, 0, 4)
                },
                WorkerError::RtoMin {
                    min_us: 0,
                    max_us: 64_000,
                },
            ),
            (
                WorkerConfig {
                    rto_min_us: Some(64_001),
                    ..WorkerConfig::new(1, 0, 4)
                },
                WorkerError::RtoMin {
                    min_us: 64_001,
                    max_us: 64_000,
                },
            ),
        ]);
        for (cfg, expected) in cases {
            assert_eq!(cfg.validate(), Err(expected.clone()));
            assert_eq!(Worker::new(cfg).err(), Some(expected));
        }
        // Hashed mode may use a window larger than its range (chunks collide).
        let big = WorkerConfig {
            slot_mask: 31,
            ..config(1, 0, 4, 32, 64)
        };
        assert_eq!(big.validate(), Ok(()));
        let full_range = WorkerConfig {
            slot_mask: u16::MAX,
            ..WorkerConfig::new(1, 0, 4)
        };
        assert_eq!(full_range.validate(), Ok(()));
    }

    #[test]
    fn data_packet_bytes_are_exact() {
        let cfg = WorkerConfig {
            exponent: 0,
            slot_mapping: SlotMapping::Direct,
            ..config(5, 1, 2, 2, 4)
        };
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&[1.0, -2.0, 3.0], 0).unwrap();
        let packets = drain(&mut w, 0);
        assert_eq!(packets.len(), 2);
        #[rustfmt::skip]
        let first: [u8; 24] = [
            0x11, 0x00, 0x00, 0x00,  // version 1 | DATA, no flags, slot 0
            0x00, 0x05, 0x00, 0x00,  // key: priority 0, job 5, seq 0
            0x00, 0x00, 0x00, 0x02,  // bitmap: worker 1
            0x02, 0x01, 0x00, 0x01,  // fan_in 2, count 1, exponent 0, worker 1
            0x00, 0x00, 0x00, 0x01,  // 1
            0xff, 0xff, 0xff, 0xfe,  // -2
        ];
        assert_eq!(packets[0], first);
        #[rustfmt::skip]
        let second: [u8; 24] = [
            0x11, 0x00, 0x00, 0x01,  // slot 1 (Direct: seq & mask)
            0x00, 0x05, 0x00, 0x01,  // seq 1
            0x00, 0x00, 0x00, 0x02,
            0x02, 0x01, 0x00, 0x01,
            0x00, 0x00, 0x00, 0x03,  // 3
            0x00, 0x00, 0x00, 0x00,  // zero padding
        ];
        assert_eq!(packets[1], second);
    }

    #[test]
    fn sends_exactly_window_then_waits() {
        let mut w = Worker::new(config(9, 0, 2, 4, 3)).unwrap();
        w.start_allreduce(&[0.5; 40], 100).unwrap();
        let first = drain(&mut w, 100);
        assert_eq!(first.len(), 3);
        let seqs: Vec<u16> = first.iter().map(|p| parse(p, 4).0.key.seq()).collect();
        assert_eq!(seqs, [0, 1, 2]);
        for (i, p) in first.iter().enumerate() {
            let (repr, values) = parse(p, 4);
            assert_eq!(
                repr.slot,
                slot_for(SlotMapping::Hashed, 9, i as u16, 3, 4095)
            );
            assert_eq!(repr.flags, Flags::NONE);
            assert_eq!(values, [32768; 4]);
        }
        assert_eq!(w.poll_transmit(100), None);
        assert_eq!(w.outstanding(), 3);
        assert_eq!(w.poll_timeout(), Some(1_100));

        // One result opens one place in the window.
        w.handle_payload(&result(9, 1, 2, 16, &[65536; 4], 4), 150)
            .unwrap();
        let next = drain(&mut w, 150);
        assert_eq!(next.len(), 1);
        assert_eq!(parse(&next[0], 4).0.key.seq(), 3);
        assert_eq!(w.stats().data_sent, 4);
        assert_eq!(w.stats().packets_sent, 4);
    }

    #[test]
    fn resend_after_timeout_sets_flag_and_doubles_rto() {
        let cfg = WorkerConfig {
            rto_initial_us: 1_000,
            rto_max_us: 2_500,
            ..config(3, 0, 2, 2, 1)
        };
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&[1.0, 2.0], 0).unwrap();
        let original = w.poll_transmit(0).unwrap();
        assert_eq!(w.poll_timeout(), Some(1_000));

        w.handle_timeout(999);
        assert_eq!(w.poll_transmit(999), None);

        w.handle_timeout(1_000);
        let resent = w.poll_transmit(1_000).unwrap();
        assert_eq!(w.poll_transmit(1_000), None);
        let mut expected = original.clone();
        expected[1] = Flags::RESEND.0;
        assert_eq!(resent, expected);
        assert_eq!(w.poll_timeout(), Some(3_000), "RTO doubled to 2000");

        w.handle_timeout(3_000);
        assert_eq!(w.poll_transmit(3_000), Some(expected.clone()));
        assert_eq!(w.poll_timeout(), Some(5_500), "RTO capped at 2500");

        // Two timeouts without a poll in between queue one resend.
        w.handle_timeout(5_500);
        w.handle_timeout(8_000);
        assert_eq!(w.poll_transmit(8_000), Some(expected));
        assert_eq!(w.poll_transmit(8_000), None);
        assert_eq!(w.stats().resends, 3);
        assert_eq!(w.stats().data_sent, 1);
    }

    #[test]
    fn result_is_accepted_once_and_gives_the_exact_sum() {
        let lanes = 2;
        let cfg = WorkerConfig {
            exponent: 4,
            ..config(6, 0, 2, lanes, 8)
        };
        let mut w = Worker::new(cfg).unwrap();
        // The other worker contributes [0.5, 0.25, -1.0]: q = [8, 4], [-16, 0].
        w.start_allreduce(&[1.5, -0.25, 2.0], 0).unwrap();
        let sent: Vec<(EsaRepr, Vec<i32>)> =
            drain(&mut w, 0).iter().map(|p| parse(p, lanes)).collect();
        assert_eq!(sent[0].1, [24, -4]);
        assert_eq!(sent[1].1, [32, 0]);

        w.handle_payload(&result(6, 0, 2, 4, &[32, 0], lanes), 10)
            .unwrap();
        assert_eq!(w.poll_event(), None);
        let mut from_ps = result(6, 1, 2, 4, &[16, 0], lanes);
        from_ps[15] = PS_WORKER_ID;
        w.handle_payload(&from_ps, 20).unwrap();
        assert_eq!(
            w.poll_event(),
            Some(WorkerEvent::Completed {
                seq_base: 0,
                chunks: 2
            })
        );
        assert_eq!(w.take_result(), Some(vec![2.0, 0.0, 1.0]));
        assert_eq!(w.take_result(), None);

        // The same results again are duplicates and change nothing.
        w.handle_payload(&result(6, 0, 2, 4, &[99, 99], lanes), 30)
            .unwrap();
        w.handle_payload(&from_ps, 30).unwrap();
        let s = w.stats();
        assert_eq!(
            (
                s.results_accepted,
                s.results_from_switch,
                s.results_from_ps,
                s.duplicate_results
            ),
            (2, 1, 1, 2)
        );
        assert_eq!(w.poll_event(), None);
        assert_eq!(w.poll_timeout(), None);

        // The next all-reduce continues the seq counter.
        w.start_allreduce(&[1.0], 40).unwrap();
        assert_eq!(w.start_allreduce(&[1.0], 40), Err(WorkerError::Busy));
        assert_eq!(parse(&w.poll_transmit(40).unwrap(), lanes).0.key.seq(), 2);
    }

    #[test]
    fn invalid_results_are_rejected_without_damage() {
        let lanes = 2;
        let mut w = Worker::new(config(6, 1, 3, lanes, 8)).unwrap();
        w.start_allreduce(&[1.0, 1.0], 0).unwrap();
        drain(&mut w, 0);
        let good = result(6, 0, 3, 16, &[3 << 16, 3 << 16], lanes);

        let mut partial = good.clone();
        partial[11] = 0b011;
        let mut bad_count = good.clone();
        bad_count[13] = 2;
        let mut bad_exponent = good.clone();
        bad_exponent[14] = 8;
        let mut bad_fan_in = good.clone();
        bad_fan_in[12] = 4;
        let mut other_job = good.clone();
        other_job[5] = 7;
        let mut data = good.clone();
        data[0] = 0x11;
        let mut bad_version = good.clone();
        bad_version[0] = 0x22;
        let mut bad_type = good.clone();
        bad_type[0] = 0x17;
        let cases: Vec<(Vec<u8>, WorkerError)> = vec![
            (
                partial,
                WorkerError::IncompleteResult {
                    seq: 0,
                    bitmap: 0b011,
                    count: 3,
                },
            ),
            (
                bad_count,
                WorkerError::IncompleteResult {
                    seq: 0,
                    bitmap: 0b111,
                    count: 2,
                },
            ),
            (
                bad_exponent,
                WorkerError::ResultExponent {
                    seq: 0,
                    expected: 16,
                    found: 8,
                },
            ),
            (
                bad_fan_in,
                WorkerError::ResultFanIn {
                    seq: 0,
                    expected: 3,
                    found: 4,
                },
            ),
            (
                other_job,
                WorkerError::WrongJob {
                    expected: 6,
                    found: 7,
                },
            ),
            (data, WorkerError::UnexpectedType(PacketType::Data)),
            (
                bad_version,
                WorkerError::Malformed(WireError::BadVersion(2)),
            ),
            (bad_type, WorkerError::Malformed(WireError::UnknownType(7))),
            (
                good[..20].to_vec(),
                WorkerError::Malformed(WireError::BadLanes { lanes: 2, have: 20 }),
            ),
            (
                good[..3].to_vec(),
                WorkerError::Malformed(WireError::Truncated {
                    layer: crate::wire::Layer::Esa,
                    need: 16,
                    have: 3,
                }),
            ),
        ];
        let n = cases.len() as u64;
        for (payload, expected) in cases {
            assert_eq!(w.handle_payload(&payload, 5), Err(expected));
        }
        assert_eq!(w.stats().invalid_packets, n);
        assert_eq!(w.stats().results_accepted, 0);
        assert_eq!(w.outstanding(), 1);
        assert_eq!(w.poll_event(), None);

        w.handle_payload(&good, 6).unwrap();
        assert_eq!(
            w.poll_event(),
            Some(WorkerEvent::Completed {
                seq_base: 0,
                chunks: 1
            })
        );
        assert_eq!(w.take_result(), Some(vec![3.0, 3.0]));
    }

    #[test]
    fn query_is_answered_from_the_cache() {
        let lanes = 2;
        let cfg = WorkerConfig {
            result_cache: 2,
            ..config(6, 2, 3, lanes, 8)
        };
        let mut w = Worker::new(cfg).unwrap();
        // Four chunks, three results: the all-reduce is still running, so
        // the OVERFLOW flags below trigger no re-run during the test.
        w.start_allreduce(&[1.0; 8], 0).unwrap();
        drain(&mut w, 0);
        for seq in 0..3u16 {
            let mut r = result(6, seq, 3, 16, &[i32::from(seq) + 10, -1], lanes);
            r[1] = Flags::OVERFLOW.0 | Flags::RESEND.0;
            r[2..4].copy_from_slice(&(seq + 40).to_be_bytes());
            r[4] = 0x30; // priority 3
            w.handle_payload(&r, 1).unwrap();
        }
        let query = |seq: u16| {
            EsaRepr {
                packet_type: PacketType::Query,
                flags: Flags::NONE,
                slot: 0,
                key: Key::new(0, 6, seq),
                bitmap: 0,
                fan_in: 3,
                count: 0,
                exponent: 16,
                worker: PS_WORKER_ID,
            }
            .to_payload(&[], lanes)
        };
        w.handle_payload(&query(2), 5).unwrap();
        #[rustfmt::skip]
        let answer: [u8; 24] = [
            0x12, 0x04, 0x00, 42,    // RESULT, OVERFLOW kept, RESEND dropped, slot 42
            0x30, 0x06, 0x00, 0x02,  // the cached key: priority 3, job 6, seq 2
            0x00, 0x00, 0x00, 0x07,  // bitmap full
            0x03, 0x03, 0x10, 0x02,  // fan_in 3, count 3, exponent 16, worker 2 (own id)
            0x00, 0x00, 0x00, 12,
            0xff, 0xff, 0xff, 0xff,
        ];
        assert_eq!(w.poll_transmit(5), Some(answer.to_vec()));
        assert_eq!(w.poll_transmit(5), None);
        // Seq 0 fell out of the two-entry cache; seq 9 was never seen.
        w.handle_payload(&query(0), 6).unwrap();
        w.handle_payload(&query(9), 6).unwrap();
        assert_eq!(w.poll_transmit(6), None);
        w.handle_payload(&query(1), 7).unwrap();
        assert_eq!(parse(&w.poll_transmit(7).unwrap(), lanes).1, [11, -1]);
        assert_eq!(
            (w.stats().queries_answered, w.stats().queries_unanswered),
            (2, 2)
        );
    }

    #[test]
    fn max_retries_fails_naming_the_seq() {
        let cfg = WorkerConfig {
            max_retries: 2,
            ..config(12, 0, 2, 2, 4)
        };
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&[1.0; 4], 0).unwrap();
        drain(&mut w, 0);
        // Seq 0 gets its result, seq 1 never does.
        w.handle_payload(&result(12, 0, 2, 16, &[0, 0], 2), 10)
            .unwrap();
        let mut now = 0;
        for resend in 1..=2 {
            now = w.poll_timeout().unwrap();
            w.handle_timeout(now);
            let (repr, _) = parse(&w.poll_transmit(now).unwrap(), 2);
            assert_eq!(
                (repr.key.seq(), repr.flags),
                (1, Flags::RESEND),
                "resend {resend}"
            );
            assert_eq!(w.poll_event(), None);
        }
        assert_eq!(now, 3_000);
        assert_eq!(w.poll_timeout(), Some(7_000));
        w.handle_timeout(7_000);
        let expected = WorkerError::ResultTimeout {
            job: 12,
            seq: 1,
            resends: 2,
        };
        assert_eq!(
            expected.to_string(),
            "job 12: chunk seq 1 got no RESULT after 2 resends"
        );
        assert_eq!(w.poll_event(), Some(WorkerEvent::Failed(expected)));
        assert_eq!(w.poll_transmit(7_000), None);
        assert_eq!(w.poll_timeout(), None);
        assert_eq!(w.take_result(), None);
        assert!(!w.is_busy());
        assert_eq!(w.next_seq(), 2, "a retry starts on fresh seqs");
    }

    #[test]
    fn priority_is_fixed_at_first_send() {
        let cfg = WorkerConfig {
            policy: Policy::Las {
                aging_interval_us: 0,
            },
            ..config(4, 0, 2, 1, 4)
        };
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&[1.0; 5], 0).unwrap();
        let first: Vec<u8> = drain(&mut w, 0)
            .iter()
            .map(|p| parse(p, 1).0.key.priority())
            .collect();
        assert_eq!(first, [15; 4]);
        for seq in 0..3 {
            w.handle_payload(&result(4, seq, 2, 16, &[0], 1), 10)
                .unwrap();
        }
        // Three chunks done: las drops to 14 for the new chunk only.
        let (repr, _) = parse(&w.poll_transmit(10).unwrap(), 1);
        assert_eq!((repr.key.seq(), repr.key.priority()), (4, 14));
        w.handle_timeout(1_000);
        let (repr, _) = parse(&w.poll_transmit(1_000).unwrap(), 1);
        assert_eq!(
            (repr.key.seq(), repr.key.priority(), repr.flags),
            (3, 15, Flags::RESEND)
        );
    }

    /// The payload the old emit path made for a chunk: quantize into a
    /// vector, then `FrameRepr::emit` (cut to its ESA payload).
    fn reference_payload(
        cfg: &WorkerConfig,
        chunk: &[f32],
        seq: u16,
        exponent: i8,
        resend: bool,
    ) -> Vec<u8> {
        use crate::wire::frame::ESA_OFFSET;
        use crate::wire::{FrameRepr, Ipv4Addr, MacAddr};
        let mut values = vec![0i32; cfg.lanes];
        let saturated = quant::quantize_into(chunk, exponent, cfg.fan_in, &mut values);
        let mut flags = if saturated {
            Flags::OVERFLOW
        } else {
            Flags::NONE
        };
        if resend {
            flags = flags | Flags::RESEND;
        }
        let esa = EsaRepr {
            packet_type: PacketType::Data,
            flags,
            slot: slot_for(cfg.slot_mapping, cfg.job, seq, cfg.window, cfg.slot_mask),
            key: Key::new(0, cfg.job, seq),
            bitmap: 1 << cfg.worker_id,
            fan_in: cfg.fan_in,
            count: 1,
            exponent,
            worker: cfg.worker_id,
        };
        let frame = FrameRepr {
            src_mac: MacAddr::local(1),
            dst_mac: MacAddr::local(2),
            src_ip: Ipv4Addr::new(10, 0, 0, 1),
            dst_ip: Ipv4Addr::new(10, 0, 0, 2),
            esa,
        }
        .emit(&values, cfg.lanes);
        let payload = frame[ESA_OFFSET..].to_vec();
        assert_eq!(payload, esa.to_payload(&values, cfg.lanes));
        payload
    }

    #[test]
    fn transmit_into_is_byte_exact_with_the_emit_path() {
        let mut rng = crate::rng::Rng::new(77);
        for case in 0..300 {
            let fan_in = 1 + rng.below(32) as u8;
            let lanes = 1 + rng.below(64) as usize;
            let cfg = WorkerConfig {
                lanes,
                window: 1 + rng.below(40) as usize,
                exponent: (rng.below(40) as i64 - 10) as i8,
                slot_mapping: if rng.chance(0.5) {
                    SlotMapping::Hashed
                } else {
                    SlotMapping::Direct
                },
                slot_mask: 63,
                first_seq: rng.next_u64() as u16,
                ..WorkerConfig::new(
                    1 + rng.below(4095) as u16,
                    rng.below(u64::from(fan_in)) as u8,
                    fan_in,
                )
            };
            let n = rng.below(40 * lanes as u64) as usize;
            let data: Vec<f32> = (0..n)
                .map(|_| match rng.below(50) {
                    0 => f32::NAN,
                    1 => 1e12,
                    2 => -f32::INFINITY,
                    _ => (rng.unit() as f32 - 0.5) * 100.0,
                })
                .collect();
            let mut w = Worker::new(cfg.clone()).unwrap();
            w.start_allreduce(&data, 0).unwrap();
            // Garbage before, and a tail the worker must not touch.
            let len = w.payload_len();
            let mut buf = vec![0xa5u8; len + 7];
            let mut seq = cfg.first_seq;
            let mut sent = 0;
            while let Some(written) = w.poll_transmit_into(0, &mut buf).unwrap() {
                assert_eq!(written, len);
                let chunk = &data[sent * lanes..((sent + 1) * lanes).min(n)];
                let expected = reference_payload(&cfg, chunk, seq, cfg.exponent, false);
                assert_eq!(&buf[..len], &expected[..], "case {case} seq {seq}");
                assert_eq!(
                    &buf[len..],
                    &[0xa5; 7],
                    "case {case}: wrote past the payload"
                );
                buf.fill(0xa5);
                seq = seq.wrapping_add(1);
                sent += 1;
            }
            assert_eq!(sent, n.div_ceil(lanes).min(cfg.window));
            // Resends quantize again: the same bytes, with RESEND.
            w.handle_timeout(u64::MAX / 2);
            let mut resent = 0;
            while let Some(written) = w.poll_transmit_into(1, &mut buf).unwrap() {
                let p = EsaPacket::new_checked(&buf[..written], lanes).unwrap();
                let at = usize::from(p.key().seq().wrapping_sub(cfg.first_seq));
                let chunk = &data[at * lanes..((at + 1) * lanes).min(n)];
                let expected = reference_payload(&cfg, chunk, p.key().seq(), cfg.exponent, true);
                assert_eq!(&buf[..written], &expected[..], "case {case} resend {at}");
                resent += 1;
            }
            assert_eq!(resent, sent);
        }
    }

    #[test]
    fn a_short_transmit_buffer_is_an_error_and_consumes_nothing() {
        let mut w = Worker::new(config(2, 0, 2, 4, 8)).unwrap();
        w.start_allreduce(&[1.0; 4], 0).unwrap();
        let mut short = [0u8; 31];
        assert_eq!(
            w.poll_transmit_into(0, &mut short),
            Err(WorkerError::BufferTooSmall { need: 32, have: 31 })
        );
        assert_eq!(w.outstanding(), 0);
        assert_eq!(w.stats().packets_sent, 0);
        let mut long = [0u8; 100];
        assert_eq!(w.poll_transmit_into(0, &mut long), Ok(Some(32)));
        assert_eq!(parse(&long[..32], 4).1, [1 << 16; 4]);
        assert_eq!(w.poll_transmit_into(0, &mut long), Ok(None));
    }

    #[test]
    fn first_seq_starts_the_counter_and_wraps() {
        let cfg = WorkerConfig {
            first_seq: u16::MAX - 1,
            policy: Policy::Las {
                aging_interval_us: 0,
            },
            ..config(7, 1, 2, 1, 8)
        };
        let mut w = Worker::new(cfg).unwrap();
        assert_eq!(w.next_seq(), u16::MAX - 1);
        w.start_allreduce(&[1.0, 2.0, 3.0], 0).unwrap();
        let sent: Vec<(u16, u16, u8)> = drain(&mut w, 0)
            .iter()
            .map(|p| {
                let r = parse(p, 1).0;
                (r.key.seq(), r.slot, r.key.priority())
            })
            .collect();
        // The policy counts the seqs before first_seq as the job's attained
        // service, as a worker that ran from seq 0 would.
        let las = 15 - (u64::from(u16::MAX) - 1).ilog2() as u8 / 2;
        let slot = |seq| slot_for(SlotMapping::Hashed, 7, seq, 8, 4095);
        assert_eq!(
            sent,
            [
                (u16::MAX - 1, slot(u16::MAX - 1), las),
                (u16::MAX, slot(u16::MAX), las),
                (0, slot(0), las)
            ]
        );
        // Results across the wrap are matched to their chunks.
        for (seq, v) in [(0u16, 30), (u16::MAX, 20), (u16::MAX - 1, 10)] {
            w.handle_payload(&result(7, seq, 2, 16, &[v << 16], 1), 5)
                .unwrap();
        }
        assert_eq!(
            w.poll_event(),
            Some(WorkerEvent::Completed {
                seq_base: u16::MAX - 1,
                chunks: 3
            })
        );
        assert_eq!(w.result(), Some(&[10.0, 20.0, 30.0][..]));
        assert_eq!(w.next_seq(), 1);
        // A QUERY for a seq before first_seq finds nothing to answer.
        let query = EsaRepr {
            packet_type: PacketType::Query,
            flags: Flags::NONE,
            slot: 0,
            key: Key::new(0, 7, 100),
            bitmap: 0,
            fan_in: 2,
            count: 0,
            exponent: 16,
            worker: PS_WORKER_ID,
        }
        .to_payload(&[], 1);
        w.handle_payload(&query, 6).unwrap();
        assert_eq!(w.poll_transmit(6), None);
        assert_eq!(w.stats().queries_unanswered, 1);
    }

    #[test]
    fn a_result_is_accepted_once_even_behind_a_waiting_chunk() {
        let lanes = 1;
        let mut w = Worker::new(config(3, 0, 1, lanes, 4)).unwrap();
        w.start_allreduce(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 0)
            .unwrap();
        assert_eq!(drain(&mut w, 0).len(), 4);
        // Seq 0 waits; 1 and 2 complete, and their duplicates are ignored
        // while they sit in the ring behind seq 0.
        for seq in [1u16, 2, 1, 2] {
            let v = (i32::from(seq) + 1) << 16;
            w.handle_payload(&result(3, seq, 1, 16, &[v * 100], lanes), 1)
                .unwrap();
        }
        assert_eq!(
            (w.stats().results_accepted, w.stats().duplicate_results),
            (2, 2)
        );
        assert_eq!(w.outstanding(), 2);
        let next: Vec<u16> = drain(&mut w, 1)
            .iter()
            .map(|p| parse(p, lanes).0.key.seq())
            .collect();
        assert_eq!(next, [4, 5]);
        for seq in [0u16, 3, 4, 5, 0] {
            let v = (i32::from(seq) + 1) << 16;
            w.handle_payload(&result(3, seq, 1, 16, &[v], lanes), 2)
                .unwrap();
        }
        assert_eq!(w.stats().duplicate_results, 3);
        assert_eq!(
            w.take_result(),
            Some(vec![1.0, 200.0, 300.0, 4.0, 5.0, 6.0])
        );
    }

    #[test]
    fn a_chunk_that_never_completes_bounds_the_seqs_in_flight() {
        // Window 2, every chunk but seq 0 completes at once: sending stops
        // when the chunks since seq 0 span half the seq space, even with a
        // result cache that would allow more.
        let cfg = WorkerConfig {
            result_cache: 4 * MAX_WINDOW,
            ..config(3, 0, 1, 1, 2)
        };
        assert_eq!(cfg.max_span(), MAX_WINDOW);
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&vec![1.0; MAX_WINDOW + 100], 0).unwrap();
        let mut buf = vec![0u8; w.payload_len()];
        let mut sent = 0;
        while let Some(n) = w.poll_transmit_into(0, &mut buf).unwrap() {
            sent += 1;
            let seq = parse(&buf[..n], 1).0.key.seq();
            if seq != 0 {
                buf[0] = 0x12;
                w.handle_payload(&buf[..n], 0).unwrap();
            }
        }
        assert_eq!(sent, MAX_WINDOW + 1, "then seq 0 is resent once");
        assert_eq!(w.outstanding(), 1);
        w.handle_payload(&result(3, 0, 1, 16, &[1 << 16], 1), 0)
            .unwrap();
        assert_eq!(drain(&mut w, 0).len(), 2, "the window moves on");
    }

    #[test]
    fn a_waiting_chunk_holds_the_job_within_reach_of_the_result_caches() {
        // Window 4, the default cache of four windows: while seq 0 waits,
        // the worker sends no chunk 8 or more seqs past it, so no peer can
        // accept more than 2 × 8 − 2 = 14 results after seq 0's and push
        // it out of its 16-entry cache before the PS asks for it.
        let cfg = WorkerConfig {
            result_cache: 16,
            ..config(3, 0, 2, 1, 4)
        };
        assert_eq!(cfg.max_span(), 8);
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&[1.0; 40], 0).unwrap();
        let mut buf = vec![0u8; w.payload_len()];
        let mut sent = vec![];
        while let Some(n) = w.poll_transmit_into(0, &mut buf).unwrap() {
            let seq = parse(&buf[..n], 1).0.key.seq();
            sent.push(seq);
            if seq != 0 {
                w.handle_payload(&result(3, seq, 2, 16, &[2 << 16], 1), 0)
                    .unwrap();
            }
        }
        // Reaching the bound resends seq 0 at once (a window of later
        // chunks completed without it: its RESULT was lost), then waits.
        assert_eq!(sent, [0, 1, 2, 3, 4, 5, 6, 7, 0]);
        assert_eq!(w.outstanding(), 1);
        assert_eq!(w.stats().resends, 1);
        assert_eq!(w.poll_transmit(0), None, "only once");
        // After that, its timeout resends it as usual.
        w.handle_timeout(w.poll_timeout().unwrap());
        let resent = drain(&mut w, 1_000_000);
        assert_eq!(resent.len(), 1);
        assert!(parse(&resent[0], 1).0.flags.contains(Flags::RESEND));
        w.handle_payload(&result(3, 0, 2, 16, &[2 << 16], 1), 1_000_001)
            .unwrap();
        let next: Vec<u16> = drain(&mut w, 1_000_001)
            .iter()
            .map(|p| parse(p, 1).0.key.seq())
            .collect();
        assert_eq!(next, [8, 9, 10, 11], "a full window moves on");
    }

    #[test]
    fn max_span_follows_the_result_cache() {
        let span = |window, result_cache| {
            WorkerConfig {
                result_cache,
                ..config(3, 0, 2, 1, window)
            }
            .max_span()
        };
        assert_eq!(span(64, 256), 128);
        assert_eq!(span(64, 5), 64, "never below the window");
        assert_eq!(span(4, 9), 5, "2 × 5 − 1 ≤ 9");
        assert_eq!(span(4, 0), 4);
        assert_eq!(span(MAX_WINDOW, 4 * MAX_WINDOW), MAX_WINDOW);
    }

    #[test]
    fn buffers_are_reused_and_results_stay_exact() {
        let lanes = 4;
        let mut workers: Vec<Worker> = (0..3)
            .map(|id| Worker::new(config(8, id, 3, lanes, 4)).unwrap())
            .collect();
        for round in 0..4 {
            let inputs: Vec<Vec<f32>> = (0..3)
                .map(|id| {
                    (0..37)
                        .map(|i| (i * (id + 1) + round) as f32 * 0.25)
                        .collect()
                })
                .collect();
            allreduce_via_switch(&mut workers, &inputs, lanes);
            let expected: Vec<f32> = (0..37)
                .map(|i| (0..3).map(|id| (i * (id + 1) + round) as f32 * 0.25).sum())
                .collect();
            for w in &mut workers {
                assert!(matches!(
                    w.poll_event(),
                    Some(WorkerEvent::Completed { .. })
                ));
                // Read in place; the next start_allreduce reuses the buffer.
                assert_eq!(w.result(), Some(&expected[..]), "round {round}");
            }
        }
    }

    #[test]
    fn the_rto_follows_measured_round_trips_of_chunks_sent_once() {
        let lanes = 1;
        let cfg = WorkerConfig {
            rto_initial_us: 1_000,
            rto_max_us: 64_000,
            ..config(5, 0, 1, lanes, 2)
        };
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&[1.0; 40], 0).unwrap();
        assert!(w.poll_transmit(0).is_some());
        assert!(w.poll_transmit(500).is_some());
        assert_eq!(w.poll_timeout(), Some(1_000), "initial RTO");
        // Seq 0 times out and is resent; its late result is no sample.
        w.handle_timeout(1_000);
        assert_eq!(drain(&mut w, 1_000).len(), 1);
        w.handle_payload(&result(5, 0, 1, 16, &[1], lanes), 4_000)
            .unwrap();
        assert_eq!(w.rtt().srtt_us(), None, "Karn's rule");
        // Seq 1, sent once at 500, answered at 5000: SRTT 4500, RTTVAR
        // 2250, RTO 13500 for the chunks sent from now on.
        w.handle_payload(&result(5, 1, 1, 16, &[1], lanes), 5_000)
            .unwrap();
        assert_eq!(
            (w.rtt().srtt_us(), w.rtt().rttvar_us(), w.rtt().rto_us()),
            (Some(4_500), 2_250, 13_500)
        );
        let next = drain(&mut w, 5_000);
        assert_eq!(next.len(), 2);
        assert_eq!(w.poll_timeout(), Some(18_500));
        // A sudden drop raises RTTVAR first (RFC 6298 updates it from the
        // old SRTT); steady 10 µs round trips then bring the RTO down to
        // its floor, rto_initial_us.
        w.handle_payload(&result(5, 2, 1, 16, &[1], lanes), 5_010)
            .unwrap();
        assert_eq!(
            (w.rtt().srtt_us(), w.rtt().rttvar_us(), w.rtt().rto_us()),
            (Some(3_938), 2_810, 15_178)
        );
        let mut now = 5_010;
        while let Some(p) = w.poll_transmit(now).or_else(|| {
            let seq = w.ring.entries.iter().position(|c| !c.done)?;
            Some(result(
                5,
                w.ring.front_seq.wrapping_add(seq as u16),
                1,
                16,
                &[1],
                lanes,
            ))
        }) {
            let (repr, _) = parse(&p, lanes);
            if repr.packet_type == PacketType::Result {
                now += 10;
                w.handle_payload(&p, now).unwrap();
            }
        }
        assert_eq!(w.rtt().rto_us(), 1_000);
        assert_eq!(w.take_result(), Some(vec![1.0 / 65536.0; 40]));
    }

    #[test]
    fn an_rto_floor_below_the_initial_one_lets_it_shrink() {
        let cfg = WorkerConfig {
            rto_initial_us: 1_000,
            rto_min_us: Some(50),
            ..config(5, 0, 1, 1, 1)
        };
        let mut w = Worker::new(cfg).unwrap();
        w.start_allreduce(&[1.0; 2], 0).unwrap();
        drain(&mut w, 0);
        w.handle_payload(&result(5, 0, 1, 16, &[1], 1), 10).unwrap();
        // SRTT 10, RTTVAR 5: 30 µs, raised to the 50 µs floor.
        assert_eq!(w.rtt().rto_us(), 50);
        drain(&mut w, 10);
        assert_eq!(w.poll_timeout(), Some(60));
    }

    #[test]
    fn empty_tensor_completes_at_once() {
        let mut w = Worker::new(WorkerConfig::new(1, 0, 1)).unwrap();
        w.start_allreduce(&[], 0).unwrap();
        assert_eq!(
            w.poll_event(),
            Some(WorkerEvent::Completed {
                seq_base: 0,
                chunks: 0
            })
        );
        assert_eq!(w.take_result(), Some(vec![]));
        assert_eq!(w.poll_transmit(0), None);
        assert!(!w.is_busy());
    }

    /// Runs one all-reduce over the tiny switch without loss.
    fn allreduce_via_switch(workers: &mut [Worker], inputs: &[Vec<f32>], lanes: usize) {
        let mut switch = TinySwitch::new(workers.len() as u8, lanes);
        for (w, input) in workers.iter_mut().zip(inputs) {
            w.start_allreduce(input, 0).unwrap();
        }
        for _round in 0..100 {
            let mut results = Vec::new();
            for w in workers.iter_mut() {
                for p in drain(w, 0) {
                    results.extend(switch.data(&p));
                }
            }
            if results.is_empty() {
                return;
            }
            for r in &results {
                for w in workers.iter_mut() {
                    w.handle_payload(r, 0).unwrap();
                }
            }
        }
        panic!("the all-reduce did not settle");
    }

    #[test]
    fn overflow_reruns_the_chunk_with_a_smaller_exponent() {
        let lanes = 2;
        let mut workers: Vec<Worker> = (0..2)
            .map(|id| Worker::new(config(8, id, 2, lanes, 2)).unwrap())
            .collect();
        // 20000 · 2^16 exceeds ⌊(2^31 − 1)/2⌋; at 2^8 it does not.
        let inputs = vec![
            vec![1.5, -2.25, 20000.0, 3.0, 7.0],
            vec![0.5, 0.25, 1.0, 0.5, -7.0],
        ];
        allreduce_via_switch(&mut workers, &inputs, lanes);
        for w in &mut workers {
            assert_eq!(
                w.poll_event(),
                Some(WorkerEvent::Completed {
                    seq_base: 0,
                    chunks: 4
                })
            );
            assert_eq!(w.take_result(), Some(vec![2.0, -2.0, 20001.0, 3.5, 0.0]));
            assert_eq!(w.stats().overflow_retries, 1);
            assert_eq!(w.stats().data_sent, 4);
            assert_eq!(w.next_seq(), 4);
        }
        // The re-run went out as seq 3 with exponent 8; seq 1 had OVERFLOW.
        let sent = &workers[0].accepted;
        assert_eq!(
            sent.get(1).map(|c| (c.header.exponent, c.header.flags)),
            Some((16, Flags::OVERFLOW))
        );
        assert_eq!(
            sent.get(3).map(|c| (c.header.exponent, c.header.flags)),
            Some((8, Flags::NONE))
        );
        let bytes: Vec<u8> = [20001 << 8, 7 << 7]
            .iter()
            .flat_map(|v: &i32| v.to_be_bytes())
            .collect();
        assert_eq!(sent.get(3).map(|c| c.lanes.clone()), Some(bytes));

        // The next all-reduce of both starts at seq 4.
        allreduce_via_switch(&mut workers, &[vec![1.0], vec![2.0]], lanes);
        for w in &mut workers {
            assert_eq!(
                w.poll_event(),
                Some(WorkerEvent::Completed {
                    seq_base: 4,
                    chunks: 1
                })
            );
            assert_eq!(w.take_result(), Some(vec![3.0]));
        }
    }

    #[test]
    fn overflow_below_the_exponent_floor_fails() {
        let lanes = 1;
        let mut workers: Vec<Worker> = (0..2)
            .map(|id| Worker::new(config(8, id, 2, lanes, 2)).unwrap())
            .collect();
        allreduce_via_switch(&mut workers, &[vec![1.0, 1e30], vec![1.0, 1.0]], lanes);
        for w in &mut workers {
            // 16, 8, 0, −8, −16, −24; −32 is below the floor.
            let expected = WorkerError::ExponentFloor {
                job: 8,
                exponent: -24,
                chunks: 1,
            };
            assert_eq!(w.poll_event(), Some(WorkerEvent::Failed(expected)));
            assert_eq!(w.stats().overflow_retries, 5);
            assert_eq!(w.next_seq(), 7);
            assert_eq!(w.take_result(), None);
        }
    }
}
