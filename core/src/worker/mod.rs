//! The worker's protocol state machine (`docs/protocol.md` §6.1).
//!
//! A [`Worker`] sums one tensor at a time with the other workers of its job:
//! [`Worker::start_allreduce`] cuts the tensor into chunks of `lanes` values,
//! [`Worker::poll_transmit_into`] writes `DATA` payloads into the caller's
//! buffer while fewer than `window` chunks are outstanding
//! ([`Worker::poll_transmit_batch_into`] a batch of them at once, their lanes
//! quantized in one call),
//! [`Worker::handle_payload`] takes `RESULT`, `QUERY`, `PENDING` and
//! `MISSING` payloads, and [`Worker::handle_timeout`] schedules probes and
//! resends. When every chunk has its
//! result, [`Worker::poll_event`] reports [`WorkerEvent::Completed`] and
//! [`Worker::result`] (in place) or [`Worker::take_result`] gives the sum.
//! [`Worker::start_checked_allreduce`] also keeps the keyed checksums
//! ([`crate::integrity`]) of what it sent and what it accepted, which
//! [`Worker::checksums`] gives for the embedding program to compare across
//! the job.
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
//! A worker of a job across racks ([`WorkerConfig::tree`],
//! `docs/protocol.md` §9.5) sends its rack's `DATA` (its local id, its
//! rack's fan-in) but clamps by every worker of the job, accepts only the
//! root's results (`UPPER`, every rack) and takes the `PENDING` and
//! `MISSING` addressed to its rack and bit.
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
use crate::integrity::{ChecksumState, Checksums, Coefficients};
use crate::policy::{Policy, PolicyInput};
use crate::quant::{self, MAX_EXPONENT, MIN_EXPONENT, OVERFLOW_EXPONENT_STEP};
use crate::rtt::{Rto, RttEstimator};
use crate::wire::{EsaPacket, EsaRepr, Flags, Key, PacketType, WireError};
use std::collections::VecDeque;

use crate::job::{MAX_WINDOW, SlotMapping, TreePlace, full_bitmap, remapped_slot, slot_for};

mod config;
mod ring;
#[cfg(test)]
mod tests;

use crate::cache::ResultLog;
pub use config::{DEFAULT_WINDOW, RESULT_CACHE_WINDOWS, WorkerConfig, WorkerError};
use ring::{Followup, Outstanding, Ring};

/// A tensor [`Worker::start_allreduce_owned`] did not take, given back.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// Why.
    pub error: WorkerError,
    /// The caller's buffer, unchanged.
    pub data: Vec<f32>,
}

/// Proof that a worker's job is ahead of it ([`Worker::check_behind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Behind {
    /// The seq the job's packet carried.
    pub job_seq: u16,
    /// Where this worker is: the seq it sends next, or (against a `QUERY`)
    /// the end of its all-reduce.
    pub own_seq: u16,
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
    /// `PROBE`s sent (at a timeout, or for the chunk holding the span
    /// bound); not retransmissions.
    pub probes: u64,
    /// `PENDING` answers taken: the contribution was held, the chunk still
    /// aggregating.
    pub pending_answers: u64,
    /// `MISSING` answers taken: the contribution was lost and is resent.
    pub missing_answers: u64,
    /// `PENDING`/`MISSING` answers addressed to another worker of the job
    /// (the PS's answers reach the whole group).
    pub answers_for_peers: u64,
    /// Answers for chunks no longer waiting.
    pub stale_answers: u64,
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
    /// The all-reduce this worker (re)joined at [`WorkerConfig::first_seq`]
    /// (its first with chunks), which an earlier incarnation of the worker
    /// may have sent chunks of already.
    joined: bool,
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
    /// The bitmap of a complete result: every rack of a tree job.
    full_bitmap: u32,
    /// [`WorkerConfig::saturation_limit`].
    saturation_limit: i32,
    next_seq: u16,
    run: Option<AllReduce>,
    /// Kept across all-reduces, so its storage is reused.
    ring: Ring,
    /// The buffer of a failed or aborted all-reduce (or of a result read
    /// in place), reused by the next.
    spare_input: Option<Vec<f32>>,
    /// Seqs with a probe or resend queued ([`Outstanding::queued`]).
    followups: VecDeque<u16>,
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
    /// Chunks of the last all-reduce started.
    tensor_chunks: usize,
    /// The furthest seq seen ahead of this worker in a `QUERY` since then.
    query_ahead: Option<u16>,
    /// No all-reduce with chunks has started: the next one is the one this
    /// worker (re)joins at [`WorkerConfig::first_seq`].
    joining: bool,
    /// [`WorkerConfig::remap_on_collision`]: collisions seen per window
    /// position (empty otherwise).
    remaps: Vec<u32>,
    /// The running all-reduce keeps checksums in `checks`
    /// ([`Worker::start_checked_allreduce`]).
    checking: bool,
    /// Kept across all-reduces, so its storage is reused.
    checks: ChecksumState,
    /// The checksums of the last completed all-reduce, if it was checked.
    checksums: Option<Checksums>,
}

impl Worker {
    /// A worker with a validated configuration, its seq counter at
    /// [`WorkerConfig::first_seq`].
    pub fn new(cfg: WorkerConfig) -> Result<Worker, WorkerError> {
        cfg.validate()?;
        Ok(Worker {
            full_bitmap: full_bitmap(cfg.result_fan_in()),
            saturation_limit: cfg.saturation_limit(),
            next_seq: cfg.first_seq,
            run: None,
            ring: Ring::default(),
            spare_input: None,
            followups: VecDeque::new(),
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
            tensor_chunks: 0,
            query_ahead: None,
            joining: true,
            chunks_done: u64::from(cfg.first_seq),
            last_switch_completion_us: None,
            remaps: if cfg.remap_on_collision {
                vec![0; cfg.window]
            } else {
                Vec::new()
            },
            checking: false,
            checks: ChecksumState::default(),
            checksums: None,
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

    /// Whether `payload`, a packet of this worker's job, proves that the
    /// job is ahead of this worker, as after a restart without
    /// [`WorkerConfig::first_seq`]: a complete `RESULT` for a seq this
    /// worker has not sent (an earlier incarnation contributed to it) that
    /// is no chunk of the all-reduce it (re)joined, or a `QUERY` further
    /// ahead than the running all-reduce (an overflow re-run included)
    /// could reach. A `QUERY` ahead is remembered ([`Worker::query_ahead`])
    /// either way. Other packets, other jobs' and unreadable ones prove
    /// nothing.
    ///
    /// A worker rejoining at `first_seq` resends the chunks its earlier
    /// incarnation sent before it died, and the job completes the ones
    /// that incarnation sent past the point the new one has reached as
    /// soon as their other contributions arrive, so their `RESULT`s can
    /// come before the worker sends them. Inside the all-reduce it joined
    /// (its first), a complete `RESULT` therefore proves the job ahead
    /// only past what that all-reduce can send: past the end of the
    /// running round at its exponent, or past a later overflow re-run at
    /// that re-run's exponent. After it, no earlier incarnation can have
    /// sent a seq this worker has not.
    pub fn check_behind(&mut self, payload: &[u8]) -> Option<Behind> {
        let packet = EsaPacket::new_checked(payload, self.cfg.lanes).ok()?;
        let key = packet.key();
        if key.job() != self.cfg.job || packet.version() != crate::constants::ESA_VERSION {
            return None;
        }
        // A complete RESULT is compared with the position this worker has
        // reached (this incarnation cannot have contributed to a chunk it
        // has not sent; an earlier one only to the all-reduce it joined);
        // a QUERY with the end of the running all-reduce. With the end in
        // both, a tensor of 2^15 chunks or more put the first RESULTs
        // "ahead" of the worker.
        let kind = PacketType::from_code(packet.type_code());
        let query = matches!(kind, Ok(PacketType::Query));
        let own = if query {
            self.next_seq()
        } else {
            self.send_seq()
        };
        let ahead = key.seq().wrapping_sub(own);
        if ahead >= 1 << 15 {
            return None;
        }
        let behind = match kind {
            Ok(PacketType::Result) => {
                self.is_complete(packet.flags(), packet.bitmap(), packet.count())
                    && !self.sent_before_joining(usize::from(ahead), packet.exponent())
            }
            Ok(PacketType::Query) => {
                self.query_ahead = Some(key.seq());
                usize::from(ahead) >= self.tensor_chunks
            }
            _ => false,
        };
        behind.then_some(Behind {
            job_seq: key.seq(),
            own_seq: own,
        })
    }

    /// Whether a complete `RESULT` at `ahead` seqs past
    /// [`Worker::send_seq`] with `exponent` can be a chunk of the all-reduce
    /// this worker (re)joined at [`WorkerConfig::first_seq`], sent by an
    /// earlier incarnation of it: a later seq of the running round at the
    /// round's exponent, or a seq past the round's end at the exponent of
    /// the *k*-th overflow re-run after it, `k × OVERFLOW_EXPONENT_STEP`
    /// less (each re-run has at most as many chunks as the round before
    /// it, so that re-run ends within `k` of this round's lengths past this
    /// round's end). Both incarnations re-run the same chunks: the results
    /// say which.
    fn sent_before_joining(&self, ahead: usize, exponent: i8) -> bool {
        let Some(run) = self.run.as_ref().filter(|run| run.joined) else {
            return false;
        };
        let below = i16::from(run.exponent) - i16::from(exponent);
        let step = i16::from(OVERFLOW_EXPONENT_STEP);
        if below < 0 || below % step != 0 || exponent < MIN_EXPONENT {
            return false;
        }
        let rounds_later = usize::from(below.unsigned_abs() / step.unsigned_abs());
        let past_round = ahead.checked_sub(run.round_len - run.next);
        match rounds_later {
            0 => past_round.is_none(),
            k => past_round.is_some_and(|past| past < k * run.round_len),
        }
    }

    /// The furthest seq a `QUERY` of the job was seen at ahead of this
    /// worker since the last all-reduce started ([`Worker::check_behind`]).
    pub fn query_ahead(&self) -> Option<u16> {
        self.query_ahead
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
    ///
    /// `data` is copied; [`Worker::start_allreduce_owned`] sums in the
    /// caller's buffer instead.
    pub fn start_allreduce(&mut self, data: &[f32], now_us: u64) -> Result<(), WorkerError> {
        if self.run.is_some() {
            return Err(WorkerError::Busy);
        }
        let input = self.copy_input(data);
        self.start(input, now_us);
        Ok(())
    }

    /// [`Worker::start_allreduce`] on the caller's buffer, without a copy:
    /// the worker quantizes straight from `data` and writes each chunk's
    /// sum into it as the chunk's result arrives (as a bucket of gradients
    /// is all-reduced in place), and [`Worker::take_result`] gives the same
    /// buffer back holding the sum. A failed or aborted all-reduce's buffer
    /// comes back with [`Worker::reclaim_input`]. The packets and sums are
    /// those of [`Worker::start_allreduce`] on the same values.
    ///
    /// A worker that is busy refuses `data` and gives it back, unchanged.
    pub fn start_allreduce_owned(&mut self, data: Vec<f32>, now_us: u64) -> Result<(), Refused> {
        if self.run.is_some() {
            return Err(Refused {
                error: WorkerError::Busy,
                data,
            });
        }
        self.keep_spare();
        self.start(data, now_us);
        Ok(())
    }

    /// The buffer a new all-reduce copies its input into: an untaken
    /// result's (or a failed or aborted run's), so no allocation.
    fn copy_input(&mut self, data: &[f32]) -> Vec<f32> {
        self.keep_spare();
        let mut input = self.spare_input.take().unwrap_or_default();
        input.clear();
        input.extend_from_slice(data);
        input
    }

    /// Keeps the larger of an untaken result's buffer and the spare one,
    /// for [`Worker::copy_input`].
    fn keep_spare(&mut self) {
        if let Some(r) = self.result.take()
            && self
                .spare_input
                .as_ref()
                .is_none_or(|spare| r.capacity() >= spare.capacity())
        {
            self.spare_input = Some(r);
        }
    }

    /// Starts the all-reduce of `input`, which holds the tensor.
    fn start(&mut self, input: Vec<f32>, now_us: u64) {
        self.checking = false;
        self.checksums = None;
        self.job_start_us.get_or_insert(now_us);
        let chunks = input.len().div_ceil(self.cfg.lanes);
        self.tensor_chunks = chunks;
        self.query_ahead = None;
        let seq_base = self.next_seq;
        if chunks == 0 {
            self.events.push_back(WorkerEvent::Completed {
                seq_base,
                chunks: 0,
            });
            self.result = Some(input);
            return;
        }
        self.next_seq = seq_base.wrapping_add(chunks as u16);
        self.ring.clear();
        self.ring
            .entries
            .reserve(chunks.min(self.cfg.window).min(MAX_WINDOW));
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
            joined: std::mem::replace(&mut self.joining, false),
        });
    }

    /// [`Worker::start_allreduce`], keeping the checksums of the lanes this
    /// worker sends and of the results it accepts with `coefficients`, drawn
    /// for this tensor's chunks and the job's lanes; [`Worker::checksums`]
    /// gives them once the all-reduce completes.
    pub fn start_checked_allreduce(
        &mut self,
        data: &[f32],
        now_us: u64,
        coefficients: &Coefficients,
    ) -> Result<(), WorkerError> {
        self.check_shape(data.len(), coefficients)?;
        self.start_allreduce(data, now_us)?;
        self.start_checking(coefficients);
        Ok(())
    }

    /// [`Worker::start_checked_allreduce`] on the caller's buffer, as
    /// [`Worker::start_allreduce_owned`].
    pub fn start_checked_allreduce_owned(
        &mut self,
        data: Vec<f32>,
        now_us: u64,
        coefficients: &Coefficients,
    ) -> Result<(), Refused> {
        if let Err(error) = self.check_shape(data.len(), coefficients) {
            return Err(Refused { error, data });
        }
        self.start_allreduce_owned(data, now_us)?;
        self.start_checking(coefficients);
        Ok(())
    }

    /// Whether `coefficients` fit a tensor of `elements` values.
    fn check_shape(&self, elements: usize, coefficients: &Coefficients) -> Result<(), WorkerError> {
        let chunks = elements.div_ceil(self.cfg.lanes);
        if coefficients.chunks() != chunks || coefficients.lanes() != self.cfg.lanes {
            return Err(WorkerError::ChecksumShape {
                chunks,
                lanes: self.cfg.lanes,
                coefficient_chunks: coefficients.chunks(),
                coefficient_lanes: coefficients.lanes(),
            });
        }
        Ok(())
    }

    /// Keeps checksums for the all-reduce just started.
    fn start_checking(&mut self, coefficients: &Coefficients) {
        self.checks.reset(coefficients);
        if self.run.is_some() {
            self.checking = true;
        } else {
            // An empty tensor completed at once.
            self.checksums = Some(self.checks.totals());
        }
    }

    /// The checksums of the last completed all-reduce, if it was started
    /// with [`Worker::start_checked_allreduce`]: of this worker's
    /// contribution and of the result it accepted. The result is intact
    /// when its checksum equals the sum
    /// ([`integrity::sum`](crate::integrity::sum)) of every worker's
    /// contribution checksum.
    pub fn checksums(&self) -> Option<Checksums> {
        self.checksums
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
    /// `QUERY`s first, then probes and resends due, then `DATA` for new
    /// chunks while fewer than `window` are outstanding.
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
        Ok(match self.transmit_one(now_us, buf, false) {
            Sent::Nothing => None,
            Sent::Payload(n) => Some(n),
            // Not reached: only a deferring call leaves the lanes.
            Sent::Header { .. } => Some(len),
        })
    }

    /// [`Worker::poll_transmit_into`] for a batch: writes the payloads due,
    /// back to back, into `buf` — each [`Worker::payload_len`] bytes, as
    /// many as `buf` holds whole — and returns how many. They are, byte for
    /// byte, the payloads as many [`Worker::poll_transmit_into`] calls
    /// would write, but the lanes of consecutive new chunks are quantized
    /// in one call ([`quant::quantize_be_packets_within`]), which pays the
    /// quantizer's per-call work once per batch rather than per packet.
    /// Resends quantize their chunk again from the input, one by one. A
    /// `buf` shorter than one payload is an error and changes nothing.
    pub fn poll_transmit_batch_into(
        &mut self,
        now_us: u64,
        buf: &mut [u8],
    ) -> Result<usize, WorkerError> {
        let len = self.payload_len();
        if buf.len() < len {
            return Err(WorkerError::BufferTooSmall {
                need: len,
                have: buf.len(),
            });
        }
        let mut filled = 0;
        let mut pending: Option<DataRun> = None;
        for slot in 0..buf.len() / len {
            let payload = &mut buf[slot * len..(slot + 1) * len];
            match self.transmit_one(now_us, payload, true) {
                Sent::Nothing => break,
                Sent::Payload(_) => {}
                Sent::Header {
                    seq,
                    index,
                    exponent,
                } => match pending
                    .as_mut()
                    .filter(|r| r.extends(slot, seq, index, exponent))
                {
                    Some(run) => run.count += 1,
                    None => {
                        if let Some(run) = pending.take() {
                            self.quantize_data_run(&run, buf);
                        }
                        pending = Some(DataRun {
                            slot,
                            seq,
                            index,
                            exponent,
                            count: 1,
                        });
                    }
                },
            }
            filled += 1;
        }
        if let Some(run) = pending {
            self.quantize_data_run(&run, buf);
        }
        Ok(filled)
    }

    /// Quantizes the lanes of `data_run`'s `DATA` payloads in `buf`, whose
    /// headers [`Worker::transmit_one`] wrote: the chunks' values in one
    /// call per [`DATA_RUN_MAX`] payloads, then `OVERFLOW` into the header
    /// and the chunk of those that saturated, and their checksums. Each
    /// payload ends as the one `write_data` would have written at once.
    fn quantize_data_run(&mut self, data_run: &DataRun, buf: &mut [u8]) {
        let Some(run) = self.run.as_ref() else {
            return;
        };
        let len = self.payload_len();
        let lanes = self.cfg.lanes;
        let input = &run.data;
        let mut done = 0;
        while done < data_run.count {
            let n = (data_run.count - done).min(DATA_RUN_MAX);
            let first = data_run.index + done;
            let start = first.saturating_mul(lanes).min(input.len());
            let end = (first + n).saturating_mul(lanes).min(input.len());
            let payloads = (data_run.slot + done) * len..(data_run.slot + done + n) * len;
            let Some(out) = buf.get_mut(payloads.start + HEADER_LEN..payloads.end) else {
                // Not reached: the run's payloads are in `buf`.
                return;
            };
            let mut saturated = [false; DATA_RUN_MAX];
            quant::quantize_be_packets_within(
                &input[start..end],
                lanes,
                data_run.exponent,
                self.saturation_limit,
                out,
                len,
                &mut saturated[..n],
            );
            for (k, &saturated) in saturated[..n].iter().enumerate() {
                let at = payloads.start + k * len;
                let payload = &mut buf[at..at + len];
                let seq = data_run.seq.wrapping_add((done + k) as u16);
                if saturated && let Some(chunk) = self.ring.waiting_mut(seq) {
                    write_data_header(&self.cfg, chunk, chunk.flags | Flags::OVERFLOW, payload);
                    chunk.flags = Flags::OVERFLOW;
                }
                if self.checking {
                    self.checks.contribute(first + k, &payload[HEADER_LEN..]);
                }
            }
            done += n;
        }
    }

    /// The body of [`Worker::poll_transmit_into`] on a buffer of exactly
    /// [`Worker::payload_len`] bytes. With `defer_lanes`, a new chunk's
    /// `DATA` gets its header only ([`Sent::Header`]), and the caller
    /// quantizes its lanes ([`Worker::quantize_data_run`]) before anything
    /// reads them or the chunk's flags.
    #[inline(always)]
    fn transmit_one(&mut self, now_us: u64, buf: &mut [u8], defer_lanes: bool) -> Sent {
        let len = buf.len();
        if let Some(answer) = self.answers.pop_front() {
            // Answers are built with the same lanes, so the lengths agree.
            let n = answer.len().min(len);
            buf[..n].copy_from_slice(&answer[..n]);
            self.stats.packets_sent += 1;
            return Sent::Payload(n);
        }
        let Some(run) = self.run.as_mut() else {
            return Sent::Nothing;
        };
        while let Some(seq) = self.followups.pop_front() {
            let Some(chunk) = self.ring.waiting_mut(seq) else {
                continue;
            };
            match chunk.queued.take() {
                Some(Followup::Probe) => {
                    write_probe(&self.cfg, chunk, buf);
                    chunk.probe_unanswered = true;
                    chunk.probed = true;
                    self.stats.probes += 1;
                }
                Some(Followup::Resend) => {
                    chunk.probe_unanswered = false;
                    chunk.resends += 1;
                    self.stats.resends += 1;
                    write_data(
                        &self.cfg,
                        self.saturation_limit,
                        &run.data,
                        chunk,
                        true,
                        buf,
                    );
                }
                None => continue,
            }
            self.stats.packets_sent += 1;
            return Sent::Payload(len);
        }
        if self.ring.waiting >= self.cfg.window || run.next >= run.round_len {
            return Sent::Nothing;
        }
        // The span bound keeps the job from running further ahead of this
        // worker's oldest waiting chunk than its peers' result caches reach
        // (and every seq in flight distinct in 16 bits).
        if self.ring.span() >= self.cfg.max_span() {
            // Only the span holds the next chunk back: more than `max_span −
            // window` later chunks completed while the oldest waits. Its
            // RESULT (or a DATA) may be lost, or it may be completing at
            // the PS; ask now, once, rather than idle until its timeout.
            if let Some(chunk) = self.ring.entries.front_mut().filter(|c| {
                !c.done && !c.probed_at_span && c.queued.is_none() && !c.probe_unanswered
            }) {
                write_probe(&self.cfg, chunk, buf);
                chunk.probed_at_span = true;
                chunk.probe_unanswered = true;
                chunk.probed = true;
                chunk.deadline_us = now_us.saturating_add(chunk.rto_us);
                self.stats.probes += 1;
                self.stats.packets_sent += 1;
                return Sent::Payload(len);
            }
            return Sent::Nothing;
        }
        let index = run.chunk_at(run.next);
        let seq = run.round_seq_base.wrapping_add(run.next as u16);
        run.next += 1;
        let exponent = run.exponent;
        let slot = slot_of(&self.cfg, &self.remaps, seq);

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
            slot,
            exponent,
            flags: Flags::NONE,
            resends: 0,
            timeouts: 0,
            sent_us: now_us,
            rto_us: self.rtt.rto_us(),
            deadline_us: now_us.saturating_add(self.rtt.rto_us()),
            queued: None,
            probe_unanswered: false,
            probed_at_span: false,
            probed: false,
            done: false,
        };
        if defer_lanes {
            write_data_header(&self.cfg, &chunk, chunk.flags, buf);
            self.ring.push(seq, chunk);
            self.stats.data_sent += 1;
            self.stats.packets_sent += 1;
            return Sent::Header {
                seq,
                index,
                exponent,
            };
        }
        if write_data(
            &self.cfg,
            self.saturation_limit,
            &run.data,
            &chunk,
            false,
            buf,
        ) {
            chunk.flags = Flags::OVERFLOW;
        }
        if self.checking {
            // Resends quantize the same values again: the first send's
            // lanes are the contribution, until an overflow re-run.
            self.checks.contribute(index, &buf[HEADER_LEN..]);
        }
        self.ring.push(seq, chunk);
        self.stats.data_sent += 1;
        self.stats.packets_sent += 1;
        Sent::Payload(len)
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

    /// Handles every deadline at or before `now_us` (the chunk's timeout
    /// doubles, up to `rto_max_us`): queues a `PROBE`, or a resend when the
    /// last probe got no answer, or fails the all-reduce when the chunk
    /// timed out `max_retries` times (`docs/protocol.md` §6.1).
    ///
    /// A timeout alone is no evidence of loss — the chunk may wait for a
    /// slow peer, in a slot or at the PS — so it asks first; only an
    /// unanswered probe or a `MISSING` answer makes it resend.
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
            if chunk.timeouts >= self.cfg.max_retries {
                failure = Some(WorkerError::ResultTimeout {
                    job: self.cfg.job,
                    seq,
                    timeouts: chunk.timeouts,
                    resends: chunk.resends,
                });
                break;
            }
            chunk.timeouts += 1;
            chunk.rto_us = chunk.rto_us.saturating_mul(2).min(self.cfg.rto_max_us);
            chunk.deadline_us = now_us.saturating_add(chunk.rto_us);
            let next = if chunk.probe_unanswered {
                Followup::Resend
            } else {
                Followup::Probe
            };
            queue_followup(&mut self.followups, seq, chunk, next);
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
            PacketType::Pending | PacketType::Missing => {
                self.on_answer(&repr, now_us);
                Ok(())
            }
            other => Err(WorkerError::UnexpectedType(other)),
        }
    }

    /// A `PENDING` or `MISSING` answer to a probe. Answers to a peer (the
    /// PS's reach the whole group) and answers for chunks no longer
    /// waiting are counted and ignored.
    fn on_answer(&mut self, repr: &EsaRepr, now_us: u64) {
        // A tree job's answers name the rack and the worker's bit in it
        // (`docs/protocol.md` §9.2).
        let mine = match self.cfg.tree {
            None => repr.worker == self.cfg.worker_id,
            Some(place) => repr.worker == place.rack && repr.bitmap == 1u32 << self.cfg.worker_id,
        };
        if !mine {
            self.stats.answers_for_peers += 1;
            return;
        }
        let seq = repr.key.seq();
        let Some(chunk) = self
            .ring
            .waiting_mut(seq)
            .filter(|c| self.run.is_some() && c.exponent == repr.exponent)
        else {
            self.stats.stale_answers += 1;
            return;
        };
        chunk.probe_unanswered = false;
        if repr.packet_type == PacketType::Missing {
            // Neither the switch nor the PS holds the contribution.
            self.stats.missing_answers += 1;
            chunk.deadline_us = now_us.saturating_add(chunk.rto_us);
            queue_followup(&mut self.followups, seq, chunk, Followup::Resend);
        } else {
            // Held; the timer already runs for the next look.
            self.stats.pending_answers += 1;
        }
    }

    fn on_result(
        &mut self,
        repr: &EsaRepr,
        packet: &EsaPacket<&[u8]>,
        now_us: u64,
    ) -> Result<(), WorkerError> {
        let seq = repr.key.seq();
        if self.cfg.tree.is_some() && !repr.flags.contains(Flags::UPPER) {
            return Err(WorkerError::NotRootResult { seq });
        }
        if repr.fan_in != self.cfg.result_fan_in() {
            return Err(WorkerError::ResultFanIn {
                seq,
                expected: self.cfg.result_fan_in(),
                found: repr.fan_in,
            });
        }
        if !self.is_complete(repr.flags, repr.bitmap, repr.count) {
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
        if chunk.timeouts == 0 && !chunk.probed_at_span {
            // Karn's rule: a resent chunk's result may answer either copy;
            // and a chunk that outlived its timeout waited for more than
            // the network (a slow peer, the PS).
            self.rtt.sample(now_us.saturating_sub(chunk.sent_us));
        }

        if repr.flags.contains(Flags::COLLISION)
            && let Some(generation) = self.remaps.get_mut(usize::from(seq) % self.cfg.window)
        {
            *generation = generation.wrapping_add(1);
        }
        let lanes = packet.lanes_bytes();
        if repr.flags.contains(Flags::OVERFLOW) {
            // The sum is not exact: the chunk is re-run from its input.
            run.overflowed.push(index);
        } else {
            let start = index.saturating_mul(self.cfg.lanes).min(run.data.len());
            let end = start.saturating_add(self.cfg.lanes).min(run.data.len());
            quant::dequantize_be_into(lanes, repr.exponent, &mut run.data[start..end]);
            if self.checking {
                self.checks.receive(index, lanes);
            }
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

    /// Whether a `RESULT` with these fields holds every contribution: every
    /// worker, or for a tree job every rack at the root's level.
    fn is_complete(&self, flags: Flags, bitmap: u32, count: u8) -> bool {
        bitmap == self.full_bitmap
            && count == self.cfg.result_fan_in()
            && (self.cfg.tree.is_none() || flags.contains(Flags::UPPER))
    }

    fn on_query(&mut self, repr: &EsaRepr) {
        let Some(logged) = self.accepted.get(repr.key.seq()) else {
            self.stats.queries_unanswered += 1;
            return;
        };
        let mut answer = vec![0; esa_payload_len(self.cfg.lanes)];
        if let Ok(mut packet) = EsaPacket::new_checked(&mut answer[..], self.cfg.lanes) {
            // The header accepted (a tree job's: the root's, `UPPER`
            // kept), sent in this worker's name.
            EsaRepr {
                packet_type: PacketType::Result,
                bitmap: self.full_bitmap,
                fan_in: self.cfg.result_fan_in(),
                count: self.cfg.result_fan_in(),
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
                self.followups.clear();
                self.events.push_back(WorkerEvent::Completed {
                    seq_base: run.seq_base,
                    chunks: run.seqs_used,
                });
                self.result = Some(run.data);
                if std::mem::take(&mut self.checking) {
                    self.checksums = Some(self.checks.totals());
                }
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

    /// The buffer of the last all-reduce that failed or was aborted, unless
    /// the next one took it: the input, with the sums of the chunks whose
    /// results were accepted. For callers of
    /// [`Worker::start_allreduce_owned`], whose buffer it is.
    pub fn reclaim_input(&mut self) -> Option<Vec<f32>> {
        self.spare_input.take()
    }

    /// Drops the running all-reduce, if any, without an event; returns
    /// whether one was running. Its seqs stay used: the next all-reduce
    /// starts past every seq handed out, so the job's other workers must
    /// abandon theirs too (or this worker rejoins them as a restarted one
    /// would, with [`WorkerConfig::first_seq`]).
    pub fn abort_allreduce(&mut self) -> bool {
        self.ring.clear();
        self.followups.clear();
        self.checking = false;
        match self.run.take() {
            Some(run) => {
                self.spare_input = Some(run.data);
                true
            }
            None => false,
        }
    }
}

/// The slot a new chunk `seq` goes to: its position's remapped slot after a
/// collision ([`WorkerConfig::remap_on_collision`]), else [`slot_for`].
fn slot_of(cfg: &WorkerConfig, remaps: &[u32], seq: u16) -> u16 {
    // The window position (a division) only where positions can move.
    if !remaps.is_empty() {
        let position = usize::from(seq) % cfg.window;
        if let Some(&generation) = remaps.get(position).filter(|g| **g > 0) {
            return remapped_slot(cfg.job, position as u32, generation, cfg.slot_mask);
        }
    }
    slot_for(cfg.slot_mapping, cfg.job, seq, cfg.window, cfg.slot_mask)
}

/// Queues `followup` for `chunk` (seq `seq`): a resend replaces a queued
/// probe; a chunk is queued once.
fn queue_followup(
    queue: &mut VecDeque<u16>,
    seq: u16,
    chunk: &mut Outstanding,
    followup: Followup,
) {
    match chunk.queued {
        None => {
            chunk.queued = Some(followup);
            queue.push_back(seq);
        }
        Some(Followup::Probe) => chunk.queued = Some(followup),
        Some(Followup::Resend) => {}
    }
}

/// Writes the `PROBE` of `chunk` into `buf` (exactly [`esa_payload_len`]
/// bytes): the chunk's header as its `DATA` carries it, lanes zero, and
/// `RESEND` on every probe after the chunk's first.
fn write_probe(cfg: &WorkerConfig, chunk: &Outstanding, buf: &mut [u8]) {
    if let Some(lanes) = buf.get_mut(HEADER_LEN..) {
        lanes.fill(0);
    }
    let Ok(mut packet) = EsaPacket::new_checked(&mut *buf, cfg.lanes) else {
        // Not reached: callers pass exactly `esa_payload_len(cfg.lanes)`.
        return;
    };
    let flags = if chunk.probed {
        Flags::RESEND
    } else {
        Flags::NONE
    };
    chunk_header(cfg, chunk, PacketType::Probe, flags).emit(&mut packet);
}

/// The header this worker puts on `chunk`'s packets of `packet_type`: its
/// own bit, a count of one, the chunk's slot, key and exponent.
fn chunk_header(
    cfg: &WorkerConfig,
    chunk: &Outstanding,
    packet_type: PacketType,
    flags: Flags,
) -> EsaRepr {
    EsaRepr {
        packet_type,
        flags,
        slot: chunk.slot,
        key: chunk.key,
        bitmap: 1u32 << cfg.worker_id,
        fan_in: cfg.fan_in,
        count: 1,
        exponent: chunk.exponent,
        worker: cfg.worker_id,
    }
}

/// Writes the `DATA` payload of `chunk` into `buf` (exactly
/// [`esa_payload_len`] bytes): the chunk's values of `input` quantized into
/// big-endian lanes (the last chunk zero-padded, each value within
/// `±saturation_limit`), then the header in place, with `OVERFLOW` if
/// quantization saturated. Returns whether it did.
fn write_data(
    cfg: &WorkerConfig,
    saturation_limit: i32,
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
    let saturated =
        quant::quantize_be_into_within(&input[start..end], chunk.exponent, saturation_limit, lanes);
    let mut flags = chunk.flags;
    if saturated {
        flags = flags | Flags::OVERFLOW;
    }
    if resend {
        flags = flags | Flags::RESEND;
    }
    write_data_header(cfg, chunk, flags, buf);
    saturated
}

/// Writes the header of `chunk`'s `DATA` with `flags` into `buf` (exactly
/// [`esa_payload_len`] bytes), leaving the lanes.
fn write_data_header(cfg: &WorkerConfig, chunk: &Outstanding, flags: Flags, buf: &mut [u8]) {
    let Ok(mut packet) = EsaPacket::new_checked(&mut *buf, cfg.lanes) else {
        // Not reached: callers pass exactly `esa_payload_len(cfg.lanes)`.
        return;
    };
    chunk_header(cfg, chunk, PacketType::Data, flags).emit(&mut packet);
}

/// What [`Worker::transmit_one`] wrote.
enum Sent {
    /// Nothing: no payload is due.
    Nothing,
    /// A whole payload of this many bytes.
    Payload(usize),
    /// A new chunk's `DATA` header, its lanes left for
    /// [`Worker::quantize_data_run`].
    Header {
        seq: u16,
        index: usize,
        exponent: i8,
    },
}

/// The most payloads quantized in one call: a flag each on the stack.
const DATA_RUN_MAX: usize = 64;

/// New chunks' `DATA` payloads in consecutive slots of a batch buffer,
/// their headers written, their lanes not yet: consecutive chunks of the
/// input at one exponent, so their values are one slice.
struct DataRun {
    /// The first payload's slot in the buffer.
    slot: usize,
    /// The first payload's seq.
    seq: u16,
    /// The first payload's chunk.
    index: usize,
    exponent: i8,
    /// Payloads in the run.
    count: usize,
}

impl DataRun {
    /// Whether the `DATA` of `seq` (chunk `index`) written at `slot`
    /// continues the run.
    fn extends(&self, slot: usize, seq: u16, index: usize, exponent: i8) -> bool {
        slot == self.slot + self.count
            && seq == self.seq.wrapping_add(self.count as u16)
            && index == self.index + self.count
            && exponent == self.exponent
    }
}
