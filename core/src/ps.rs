//! The parameter server's protocol state machine (`docs/protocol.md` §6.2).
//!
//! A [`ParameterServer`] serves any number of jobs. It receives the *parts*
//! the switch hands over (`FALLBACK`, `EVICTED`, `FLUSH`) and the `RESULT`s
//! that pass by, completes chunks the switch could not, and answers late
//! resends from a bounded result cache. What it sends — `RESULT`s and
//! `QUERY`s, to the job's group through the switch — comes out of
//! [`ParameterServer::poll_transmit`].
//!
//! Parts are merged by *exact cover*: a partial sum cannot be split, so the
//! PS waits for a set of stored parts whose bitmaps are pairwise disjoint and
//! together name every worker. After each new part it searches for such a
//! set Algorithm-X style (branch on the lowest uncovered worker, try every
//! part holding it). A cover found earlier would have completed the chunk,
//! so only covers containing the new part are searched.
//!
//! **Exponents.** Every part carries its chunk's exponent: `FALLBACK` the
//! worker's own, and `FLUSH` and `EVICTED` the slot's (`slot_exponent`,
//! `docs/protocol.md` §3.2), even when another job's packet carries an
//! `EVICTED` partial out. The first part of a chunk fixes its exponent; a
//! part with another one is refused.
//!
//! No sockets, no clocks: payloads are ESA headers plus lanes and time is the
//! `now_us` argument.

use crate::cache::{CachedResult, FifoCache};
use crate::constants::{DEFAULT_LANES, MAX_FAN_IN, MAX_JOB_ID, MAX_LANES, PS_WORKER_ID};
use crate::wire::{EsaRepr, Flags, Key, PacketType, WireError};
use crate::worker::{MAX_WINDOW, full_bitmap};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// The largest `max_parts_per_chunk`, which bounds the cover search.
pub const MAX_PARTS_PER_CHUNK: usize = 256;

/// Nodes one cover search may visit before it gives up (and counts it).
const COVER_SEARCH_BUDGET: u32 = 100_000;

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
    /// job's fan-in; beyond it the oldest multi-worker part is dropped
    /// (workers keep resending single-worker parts, so the chunk still
    /// completes).
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

/// Counters of one job at the PS.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PsJobStats {
    /// `FALLBACK` parts received (valid or not).
    pub fallback_parts: u64,
    /// `EVICTED` parts received (valid or not).
    pub evicted_parts: u64,
    /// `FLUSH` parts received (valid or not).
    pub flush_parts: u64,
    /// Parts whose bitmap was already stored for the chunk.
    pub duplicate_parts: u64,
    /// Parts without `RESEND` for a chunk whose result is cached.
    pub late_parts_ignored: u64,
    /// Stored parts dropped because a chunk reached `max_parts_per_chunk`.
    pub parts_dropped: u64,
    /// Incomplete chunks dropped because `max_pending_chunks` was reached.
    pub pending_chunks_dropped: u64,
    /// Chunks completed here by an exact cover.
    pub results_completed: u64,
    /// Sums that did not fit int32 and were saturated (`OVERFLOW` set).
    pub results_saturated: u64,
    /// Cached results sent again for a resend.
    pub results_resent: u64,
    /// Results learned from `RESULT` packets (not yet cached).
    pub results_learned: u64,
    /// `RESULT` packets for chunks already cached (echoes included).
    pub duplicate_results: u64,
    /// `RESULT`s forwarded to the group ([`JobOptions::forward_results`]).
    pub results_forwarded: u64,
    /// `QUERY`s sent.
    pub queries_sent: u64,
    /// `QUERY`s received (the PS's own, relayed back); ignored.
    pub queries_received: u64,
    /// Cover searches that hit the node budget (should stay 0).
    pub cover_searches_abandoned: u64,
    /// Packets of this job rejected with an error.
    pub invalid_packets: u64,
}

/// Counters of packets that belong to no served job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PsStats {
    /// Payloads that are not ESA with the configured lanes.
    pub malformed: u64,
    /// Packets for jobs not served.
    pub unknown_job: u64,
    /// Packets of a type a PS never receives (`DATA`).
    pub unexpected_type: u64,
}

/// A stored part of a chunk.
#[derive(Debug, Clone)]
struct Part {
    bitmap: u32,
    flags: Flags,
    values: Vec<i32>,
}

/// The parts of a chunk not yet complete.
#[derive(Debug, Clone)]
struct PendingChunk {
    parts: Vec<Part>,
    /// From the first part.
    exponent: i8,
    /// Position in the job's creation order.
    order: u64,
    last_query_us: Option<u64>,
}

/// What the PS knows of one job.
#[derive(Debug, Clone)]
struct JobState {
    job: u16,
    fan_in: u8,
    full: u32,
    options: JobOptions,
    pending: HashMap<u32, PendingChunk>,
    /// Creation order of `pending`, oldest first.
    pending_order: BTreeMap<u64, u32>,
    next_order: u64,
    results: FifoCache<u32, CachedResult>,
    stats: PsJobStats,
}

/// A parameter server for any number of jobs: the sans-IO state machine of
/// `docs/protocol.md` §6.2.
#[derive(Debug, Clone)]
pub struct ParameterServer {
    cfg: PsConfig,
    jobs: BTreeMap<u16, JobState>,
    outbox: VecDeque<Vec<u8>>,
    stats: PsStats,
}

impl ParameterServer {
    /// A PS with a validated configuration and no jobs.
    pub fn new(cfg: PsConfig) -> Result<ParameterServer, PsError> {
        cfg.validate()?;
        Ok(ParameterServer {
            cfg,
            jobs: BTreeMap::new(),
            outbox: VecDeque::new(),
            stats: PsStats::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PsConfig {
        &self.cfg
    }

    /// Starts serving `job` with `fan_in` workers and default options.
    pub fn add_job(&mut self, job: u16, fan_in: u8) -> Result<(), PsError> {
        self.add_job_with(job, fan_in, JobOptions::default())
    }

    /// Starts serving `job` with `fan_in` workers and `options`.
    pub fn add_job_with(
        &mut self,
        job: u16,
        fan_in: u8,
        options: JobOptions,
    ) -> Result<(), PsError> {
        if job == 0 || job > MAX_JOB_ID {
            return Err(PsError::Job(job));
        }
        if fan_in == 0 || fan_in > MAX_FAN_IN {
            return Err(PsError::FanIn(fan_in));
        }
        if usize::from(fan_in) > self.cfg.max_parts_per_chunk {
            return Err(PsError::FanInExceedsMaxParts {
                fan_in,
                max_parts: self.cfg.max_parts_per_chunk,
            });
        }
        if self.jobs.contains_key(&job) {
            return Err(PsError::JobExists(job));
        }
        self.jobs.insert(
            job,
            JobState {
                job,
                fan_in,
                full: full_bitmap(fan_in),
                options,
                pending: HashMap::new(),
                pending_order: BTreeMap::new(),
                next_order: 0,
                results: FifoCache::new(self.cfg.result_cache),
                stats: PsJobStats::default(),
            },
        );
        Ok(())
    }

    /// Stops serving `job` and forgets its state; returns whether it was
    /// served. Payloads already queued for it stay queued.
    pub fn remove_job(&mut self, job: u16) -> bool {
        self.jobs.remove(&job).is_some()
    }

    /// Takes one payload the switch sent to the PS. Errors change no state
    /// and are counted: malformed payloads, unknown jobs and `DATA` in
    /// [`PsStats`], everything else in the job's `invalid_packets`.
    pub fn handle_payload(&mut self, payload: &[u8], now_us: u64) -> Result<(), PsError> {
        let (repr, values) = match EsaRepr::from_payload(payload, self.cfg.lanes) {
            Ok(parsed) => parsed,
            Err(error) => {
                self.stats.malformed += 1;
                return Err(error.into());
            }
        };
        let job_id = repr.key.job();
        let Some(job) = self.jobs.get_mut(&job_id) else {
            self.stats.unknown_job += 1;
            return Err(PsError::UnknownJob(job_id));
        };
        let outcome = match repr.packet_type {
            PacketType::Data => {
                self.stats.unexpected_type += 1;
                return Err(PsError::UnexpectedType(PacketType::Data));
            }
            PacketType::Query => {
                job.stats.queries_received += 1;
                Ok(())
            }
            PacketType::Result => job.on_result(&repr, values, self.cfg.lanes, &mut self.outbox),
            PacketType::Fallback | PacketType::Evicted | PacketType::Flush => {
                job.on_part(&repr, values, now_us, &self.cfg, &mut self.outbox)
            }
        };
        if outcome.is_err() {
            job.stats.invalid_packets += 1;
        }
        outcome
    }

    /// The next payload to send to the switch: a `RESULT` or a `QUERY`.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.outbox.pop_front()
    }

    /// Counters of `job`, if served.
    pub fn job_stats(&self, job: u16) -> Option<&PsJobStats> {
        self.jobs.get(&job).map(|j| &j.stats)
    }

    /// Counters of packets that belong to no served job.
    pub fn stats(&self) -> &PsStats {
        &self.stats
    }

    /// Incomplete chunks of `job`, if served.
    pub fn pending_chunks(&self, job: u16) -> Option<usize> {
        self.jobs.get(&job).map(|j| j.pending.len())
    }

    /// The cached result lanes of chunk `seq` of `job`, if any.
    pub fn cached_result(&self, job: u16, seq: u16) -> Option<&[i32]> {
        let chunk = Key::new(0, job, seq).chunk();
        self.jobs
            .get(&job)?
            .results
            .get(&chunk)
            .map(|r| &r.values[..])
    }
}

impl JobState {
    fn check_fan_in(&self, repr: &EsaRepr) -> Result<(), PsError> {
        if repr.fan_in != self.fan_in {
            return Err(PsError::FanInMismatch {
                job: self.job,
                expected: self.fan_in,
                found: repr.fan_in,
            });
        }
        Ok(())
    }

    fn on_result(
        &mut self,
        repr: &EsaRepr,
        values: Vec<i32>,
        lanes: usize,
        outbox: &mut VecDeque<Vec<u8>>,
    ) -> Result<(), PsError> {
        self.check_fan_in(repr)?;
        if repr.bitmap != self.full || repr.count != self.fan_in {
            return Err(PsError::IncompleteResult {
                job: self.job,
                seq: repr.key.seq(),
                bitmap: repr.bitmap,
                count: repr.count,
            });
        }
        let chunk = repr.key.chunk();
        let result = CachedResult {
            key: repr.key,
            slot: repr.slot,
            flags: repr.flags.without(Flags::RESEND),
            exponent: repr.exponent,
            values,
        };
        if self.options.forward_results && repr.worker != PS_WORKER_ID {
            outbox.push_back(self.result_payload(&result, lanes));
            self.stats.results_forwarded += 1;
        }
        if self.results.contains(&chunk) {
            self.stats.duplicate_results += 1;
        } else {
            self.stats.results_learned += 1;
            self.remove_pending(chunk);
            self.results.insert(chunk, result);
        }
        Ok(())
    }

    fn on_part(
        &mut self,
        repr: &EsaRepr,
        values: Vec<i32>,
        now_us: u64,
        cfg: &PsConfig,
        outbox: &mut VecDeque<Vec<u8>>,
    ) -> Result<(), PsError> {
        match repr.packet_type {
            PacketType::Fallback => self.stats.fallback_parts += 1,
            PacketType::Evicted => self.stats.evicted_parts += 1,
            _ => self.stats.flush_parts += 1,
        }
        self.check_fan_in(repr)?;
        let seq = repr.key.seq();
        if repr.bitmap == 0 || repr.bitmap & !self.full != 0 {
            return Err(PsError::BadBitmap {
                job: self.job,
                seq,
                bitmap: repr.bitmap,
                full: self.full,
            });
        }
        if u32::from(repr.count) != repr.bitmap.count_ones() {
            return Err(PsError::CountMismatch {
                job: self.job,
                seq,
                bitmap: repr.bitmap,
                count: repr.count,
            });
        }
        let chunk = repr.key.chunk();
        let resend = repr.flags.contains(Flags::RESEND);
        if let Some(result) = self.results.get(&chunk) {
            if resend {
                outbox.push_back(self.result_payload(result, cfg.lanes));
                self.stats.results_resent += 1;
            } else {
                self.stats.late_parts_ignored += 1;
            }
            return Ok(());
        }
        if let Some(expected) = self.pending.get(&chunk).map(|p| p.exponent)
            && expected != repr.exponent
        {
            return Err(PsError::ExponentMismatch {
                job: self.job,
                seq,
                expected,
                found: repr.exponent,
            });
        }

        if !self.pending.contains_key(&chunk) {
            if self.pending.len() >= cfg.max_pending_chunks
                && let Some((_, oldest)) = self.pending_order.pop_first()
            {
                self.pending.remove(&oldest);
                self.stats.pending_chunks_dropped += 1;
            }
            let order = self.next_order;
            self.next_order += 1;
            self.pending_order.insert(order, chunk);
            self.pending.insert(
                chunk,
                PendingChunk {
                    parts: Vec::new(),
                    exponent: repr.exponent,
                    order,
                    last_query_us: None,
                },
            );
        }
        let Some(pending) = self.pending.get_mut(&chunk) else {
            return Ok(());
        };

        let mut budget = COVER_SEARCH_BUDGET;
        let cover = if pending.parts.iter().any(|p| p.bitmap == repr.bitmap) {
            self.stats.duplicate_parts += 1;
            None
        } else {
            if pending.parts.len() >= cfg.max_parts_per_chunk {
                // Drop the oldest multi-worker part: single-worker parts are
                // what resends produce, and with `fan_in <= max_parts` they
                // alone always reach a cover.
                let victim = pending.parts.iter().position(|p| p.bitmap.count_ones() > 1);
                pending.parts.remove(victim.unwrap_or(0));
                self.stats.parts_dropped += 1;
            }
            pending.parts.push(Part {
                bitmap: repr.bitmap,
                flags: repr.flags,
                values,
            });
            exact_cover(
                &pending.parts,
                pending.parts.len() - 1,
                self.full,
                &mut budget,
            )
        };
        if cover.is_none() && budget == 0 {
            self.stats.cover_searches_abandoned += 1;
        }

        if let Some(cover) = cover {
            let result = sum_cover(&pending.parts, &cover, repr, pending.exponent, cfg.lanes);
            if result.saturated {
                self.stats.results_saturated += 1;
            }
            outbox.push_back(self.result_payload(&result.result, cfg.lanes));
            self.remove_pending(chunk);
            self.results.insert(chunk, result.result);
            self.stats.results_completed += 1;
            return Ok(());
        }

        if resend {
            let due = pending
                .last_query_us
                .is_none_or(|t| now_us.saturating_sub(t) >= cfg.query_interval_us);
            if due {
                pending.last_query_us = Some(now_us);
                let query = EsaRepr {
                    packet_type: PacketType::Query,
                    flags: Flags::NONE,
                    slot: repr.slot,
                    key: repr.key,
                    bitmap: 0,
                    fan_in: self.fan_in,
                    count: 0,
                    exponent: repr.exponent,
                    worker: PS_WORKER_ID,
                };
                outbox.push_back(query.to_payload(&[], cfg.lanes));
                self.stats.queries_sent += 1;
            }
        }
        Ok(())
    }

    fn remove_pending(&mut self, chunk: u32) {
        if let Some(pending) = self.pending.remove(&chunk) {
            self.pending_order.remove(&pending.order);
        }
    }

    /// A `RESULT` payload for `result`, from the PS.
    fn result_payload(&self, result: &CachedResult, lanes: usize) -> Vec<u8> {
        result.result_payload(self.fan_in, PS_WORKER_ID, lanes)
    }
}

/// A completed sum and whether it had to be saturated.
struct Completion {
    result: CachedResult,
    saturated: bool,
}

/// Sums the parts of `cover` in i64; a lane beyond int32 saturates and sets
/// `OVERFLOW`, as does any part's `OVERFLOW`. The key and slot are those of
/// the part that completed the chunk (`last`).
fn sum_cover(
    parts: &[Part],
    cover: &[usize],
    last: &EsaRepr,
    exponent: i8,
    lanes: usize,
) -> Completion {
    let mut sums = vec![0i64; lanes];
    let mut flags = Flags::NONE;
    for part in cover.iter().filter_map(|&i| parts.get(i)) {
        for (sum, value) in sums.iter_mut().zip(&part.values) {
            *sum += i64::from(*value);
        }
        if part.flags.contains(Flags::OVERFLOW) {
            flags = flags | Flags::OVERFLOW;
        }
    }
    let mut saturated = false;
    let values = sums
        .into_iter()
        .map(|sum| {
            i32::try_from(sum).unwrap_or_else(|_| {
                saturated = true;
                if sum > 0 { i32::MAX } else { i32::MIN }
            })
        })
        .collect();
    if saturated {
        flags = flags | Flags::OVERFLOW;
    }
    Completion {
        result: CachedResult {
            key: last.key,
            slot: last.slot,
            flags,
            exponent,
            values,
        },
        saturated,
    }
}

/// Indices of stored parts whose bitmaps are disjoint and cover `full`,
/// containing `start` when given. Visits at most `budget` search nodes
/// (decremented as it goes).
fn exact_cover(parts: &[Part], start: usize, full: u32, budget: &mut u32) -> Option<Vec<usize>> {
    let mut chosen = vec![start];
    let covered = parts.get(start)?.bitmap;
    cover_from(parts, covered, full, &mut chosen, budget).then_some(chosen)
}

fn cover_from(
    parts: &[Part],
    covered: u32,
    full: u32,
    chosen: &mut Vec<usize>,
    budget: &mut u32,
) -> bool {
    if covered == full {
        return true;
    }
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    // Every cover holds exactly one part with the lowest uncovered worker.
    let lowest = 1u32 << (full & !covered).trailing_zeros();
    for (i, part) in parts.iter().enumerate() {
        if part.bitmap & lowest != 0 && part.bitmap & covered == 0 {
            chosen.push(i);
            if cover_from(parts, covered | part.bitmap, full, chosen, budget) {
                return true;
            }
            chosen.pop();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LANES: usize = 2;
    const JOB: u16 = 3;

    /// A PS serving job 3 with three workers.
    fn ps_with(cfg: PsConfig) -> ParameterServer {
        let mut ps = ParameterServer::new(cfg).unwrap();
        ps.add_job(JOB, 3).unwrap();
        ps
    }

    fn ps() -> ParameterServer {
        ps_with(PsConfig {
            lanes: LANES,
            ..PsConfig::default()
        })
    }

    fn packet(
        packet_type: PacketType,
        seq: u16,
        bitmap: u32,
        values: [i32; 2],
        flags: Flags,
    ) -> Vec<u8> {
        EsaRepr {
            packet_type,
            flags,
            slot: 7,
            key: Key::new(2, JOB, seq),
            bitmap,
            fan_in: 3,
            count: bitmap.count_ones() as u8,
            exponent: 16,
            worker: 0,
        }
        .to_payload(&values, LANES)
    }

    fn fallback(seq: u16, bitmap: u32, values: [i32; 2]) -> Vec<u8> {
        packet(PacketType::Fallback, seq, bitmap, values, Flags::NONE)
    }

    fn resend(seq: u16, bitmap: u32, values: [i32; 2]) -> Vec<u8> {
        packet(PacketType::Fallback, seq, bitmap, values, Flags::RESEND)
    }

    fn drain(ps: &mut ParameterServer) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| ps.poll_transmit()).collect()
    }

    fn parse(payload: &[u8]) -> (EsaRepr, Vec<i32>) {
        EsaRepr::from_payload(payload, LANES).unwrap()
    }

    /// Per-worker values of the tests: worker w has [w+1, 10·(w+1)]·2^w-ish.
    const W: [[i32; 2]; 3] = [[1, 10], [2, 20], [4, 40]];

    fn sum_of(bitmap: u32) -> [i32; 2] {
        let mut s = [0; 2];
        for (w, v) in W.iter().enumerate() {
            if bitmap & (1 << w) != 0 {
                s[0] += v[0];
                s[1] += v[1];
            }
        }
        s
    }

    #[test]
    fn disjoint_parts_complete_with_the_exact_packet() {
        let mut ps = ps();
        let evicted = packet(PacketType::Evicted, 5, 0b011, [10, -5], Flags::NONE);
        ps.handle_payload(&evicted, 0).unwrap();
        assert!(drain(&mut ps).is_empty());
        ps.handle_payload(&fallback(5, 0b100, [1, 2]), 1).unwrap();
        #[rustfmt::skip]
        let expected: [u8; 24] = [
            0x12, 0x00, 0x00, 0x07,  // RESULT, no flags, slot 7
            0x20, 0x03, 0x00, 0x05,  // priority 2, job 3, seq 5
            0x00, 0x00, 0x00, 0x07,  // bitmap full
            0x03, 0x03, 0x10, 0xff,  // fan_in 3, count 3, exponent 16, worker PS
            0x00, 0x00, 0x00, 0x0b,  // 11
            0xff, 0xff, 0xff, 0xfd,  // -3
        ];
        assert_eq!(drain(&mut ps), vec![expected.to_vec()]);
        let stats = ps.job_stats(JOB).unwrap();
        assert_eq!(
            (
                stats.evicted_parts,
                stats.fallback_parts,
                stats.results_completed
            ),
            (1, 1, 1)
        );
        assert_eq!(ps.pending_chunks(JOB), Some(0));
        assert_eq!(ps.cached_result(JOB, 5), Some(&[11, -3][..]));
    }

    #[test]
    fn overlapping_parts_wait_for_an_exact_cover() {
        // {A,C}, {A,B}, then the singles {B}, {C}: complete exactly once.
        let mut ps = ps();
        ps.handle_payload(&fallback(1, 0b101, sum_of(0b101)), 0)
            .unwrap();
        ps.handle_payload(&fallback(1, 0b011, sum_of(0b011)), 0)
            .unwrap();
        assert!(drain(&mut ps).is_empty());
        ps.handle_payload(&fallback(1, 0b010, sum_of(0b010)), 0)
            .unwrap();
        let out = drain(&mut ps);
        assert_eq!(out.len(), 1);
        let (repr, values) = parse(&out[0]);
        assert_eq!(
            (repr.packet_type, repr.bitmap, repr.count),
            (PacketType::Result, 0b111, 3)
        );
        assert_eq!(values, [7, 70]);
        ps.handle_payload(&fallback(1, 0b100, sum_of(0b100)), 0)
            .unwrap();
        assert!(drain(&mut ps).is_empty());
        let stats = ps.job_stats(JOB).unwrap();
        assert_eq!((stats.results_completed, stats.late_parts_ignored), (1, 1));

        // Another order: {A,C}, {A,B}, {C} completes with {A,B} + {C}.
        ps.handle_payload(&fallback(2, 0b101, sum_of(0b101)), 0)
            .unwrap();
        ps.handle_payload(&fallback(2, 0b011, sum_of(0b011)), 0)
            .unwrap();
        ps.handle_payload(&fallback(2, 0b100, sum_of(0b100)), 0)
            .unwrap();
        let out = drain(&mut ps);
        assert_eq!(out.len(), 1);
        assert_eq!(parse(&out[0]).1, [7, 70]);
        ps.handle_payload(&fallback(2, 0b010, sum_of(0b010)), 0)
            .unwrap();
        assert!(drain(&mut ps).is_empty());
        assert_eq!(ps.job_stats(JOB).unwrap().results_completed, 2);
        assert_eq!(ps.pending_chunks(JOB), Some(0));
    }

    #[test]
    fn duplicate_parts_count_once() {
        let mut ps = ps();
        ps.handle_payload(&fallback(4, 0b001, W[0]), 0).unwrap();
        ps.handle_payload(&fallback(4, 0b001, W[0]), 0).unwrap();
        ps.handle_payload(&packet(PacketType::Flush, 4, 0b001, W[0], Flags::RESEND), 0)
            .unwrap();
        ps.handle_payload(&fallback(4, 0b010, W[1]), 0).unwrap();
        // Only the FLUSH carried RESEND: one QUERY so far.
        let out = drain(&mut ps);
        assert_eq!(out.len(), 1);
        assert_eq!(parse(&out[0]).0.packet_type, PacketType::Query);
        ps.handle_payload(&fallback(4, 0b100, W[2]), 0).unwrap();
        let out = drain(&mut ps);
        assert_eq!(out.len(), 1);
        assert_eq!(parse(&out[0]).1, [7, 70]);
        let stats = ps.job_stats(JOB).unwrap();
        assert_eq!(
            (
                stats.duplicate_parts,
                stats.flush_parts,
                stats.fallback_parts
            ),
            (2, 1, 4)
        );
    }

    #[test]
    fn resend_for_a_cached_chunk_resends_the_result() {
        let mut ps = ps();
        ps.handle_payload(&fallback(9, 0b011, sum_of(0b011)), 0)
            .unwrap();
        ps.handle_payload(&fallback(9, 0b100, sum_of(0b100)), 0)
            .unwrap();
        let first = drain(&mut ps);
        assert_eq!(first.len(), 1);
        ps.handle_payload(&resend(9, 0b001, W[0]), 10).unwrap();
        assert_eq!(drain(&mut ps), first);
        ps.handle_payload(&fallback(9, 0b001, W[0]), 10).unwrap();
        assert!(drain(&mut ps).is_empty());
        let stats = ps.job_stats(JOB).unwrap();
        assert_eq!(
            (
                stats.results_resent,
                stats.late_parts_ignored,
                stats.queries_sent
            ),
            (1, 1, 0)
        );
    }

    #[test]
    fn resend_for_an_incomplete_chunk_queries_at_a_limited_rate() {
        let mut ps = ps_with(PsConfig {
            lanes: LANES,
            query_interval_us: 1_000,
            ..PsConfig::default()
        });
        ps.handle_payload(&resend(6, 0b001, W[0]), 100).unwrap();
        #[rustfmt::skip]
        let query: [u8; 24] = [
            0x16, 0x00, 0x00, 0x07,  // QUERY, slot 7
            0x20, 0x03, 0x00, 0x06,  // the part's key
            0x00, 0x00, 0x00, 0x00,  // bitmap 0
            0x03, 0x00, 0x10, 0xff,  // fan_in 3, count 0, exponent 16, worker PS
            0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(drain(&mut ps), vec![query.to_vec()]);
        ps.handle_payload(&resend(6, 0b010, W[1]), 600).unwrap();
        ps.handle_payload(&resend(6, 0b010, W[1]), 1_099).unwrap();
        assert!(drain(&mut ps).is_empty());
        ps.handle_payload(&resend(6, 0b010, W[1]), 1_100).unwrap();
        assert_eq!(drain(&mut ps), vec![query.to_vec()]);
        // Not a resend: no query however late.
        ps.handle_payload(&fallback(7, 0b001, W[0]), 9_000).unwrap();
        assert!(drain(&mut ps).is_empty());
        // Another chunk has its own clock.
        ps.handle_payload(&resend(7, 0b001, W[0]), 9_001).unwrap();
        assert_eq!(drain(&mut ps).len(), 1);
        assert_eq!(ps.job_stats(JOB).unwrap().queries_sent, 3);
        // The own QUERY relayed back is ignored.
        ps.handle_payload(&query, 9_002).unwrap();
        assert!(drain(&mut ps).is_empty());
        assert_eq!(ps.job_stats(JOB).unwrap().queries_received, 1);
    }

    #[test]
    fn malformed_input_is_rejected_and_other_state_survives() {
        let mut ps = ps();
        ps.add_job(4, 2).unwrap();
        ps.handle_payload(&fallback(5, 0b001, W[0]), 0).unwrap();
        let mut other = fallback(5, 0b01, [100, 200]);
        other[5] = 4;
        other[12] = 2;
        ps.handle_payload(&other, 0).unwrap();

        let with = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut p = fallback(5, 0b010, W[1]);
            f(&mut p);
            p
        };
        let cases: Vec<(Vec<u8>, PsError)> = vec![
            (
                with(&|p| {
                    p[11] = 0;
                    p[13] = 0;
                }),
                PsError::BadBitmap {
                    job: JOB,
                    seq: 5,
                    bitmap: 0,
                    full: 0b111,
                },
            ),
            (
                with(&|p| p[11] = 0b1010),
                PsError::BadBitmap {
                    job: JOB,
                    seq: 5,
                    bitmap: 0b1010,
                    full: 0b111,
                },
            ),
            (
                with(&|p| p[13] = 2),
                PsError::CountMismatch {
                    job: JOB,
                    seq: 5,
                    bitmap: 0b010,
                    count: 2,
                },
            ),
            (
                with(&|p| p[12] = 4),
                PsError::FanInMismatch {
                    job: JOB,
                    expected: 3,
                    found: 4,
                },
            ),
            (
                with(&|p| p[14] = 8),
                PsError::ExponentMismatch {
                    job: JOB,
                    seq: 5,
                    expected: 16,
                    found: 8,
                },
            ),
            (
                with(&|p| {
                    p[0] = 0x12;
                    p[11] = 0b011;
                    p[13] = 2;
                }),
                PsError::IncompleteResult {
                    job: JOB,
                    seq: 5,
                    bitmap: 0b011,
                    count: 2,
                },
            ),
        ];
        let n = cases.len() as u64;
        for (payload, expected) in cases {
            assert_eq!(ps.handle_payload(&payload, 1), Err(expected));
        }
        let global: Vec<(Vec<u8>, PsError)> = vec![
            (with(&|p| p[5] = 9), PsError::UnknownJob(9)),
            (
                with(&|p| p[0] = 0x11),
                PsError::UnexpectedType(PacketType::Data),
            ),
            (
                with(&|p| p[0] = 0x19),
                PsError::Malformed(WireError::UnknownType(9)),
            ),
            (
                with(&|p| p.truncate(20)),
                PsError::Malformed(WireError::BadLanes { lanes: 2, have: 20 }),
            ),
        ];
        for (payload, expected) in global {
            assert_eq!(ps.handle_payload(&payload, 1), Err(expected));
        }
        assert_eq!(
            ps.handle_payload(&[], 1)
                .map_err(|e| matches!(e, PsError::Malformed(_))),
            Err(true)
        );
        assert_eq!(ps.job_stats(JOB).unwrap().invalid_packets, n);
        assert_eq!(ps.job_stats(4).unwrap().invalid_packets, 0);
        assert_eq!(
            ps.stats(),
            &PsStats {
                malformed: 3,
                unknown_job: 1,
                unexpected_type: 1
            }
        );
        assert!(drain(&mut ps).is_empty());

        // Both jobs' chunks complete as if nothing had happened.
        ps.handle_payload(&fallback(5, 0b010, W[1]), 2).unwrap();
        ps.handle_payload(&fallback(5, 0b100, W[2]), 2).unwrap();
        let mut other2 = fallback(5, 0b10, [1, 2]);
        other2[5] = 4;
        other2[12] = 2;
        ps.handle_payload(&other2, 2).unwrap();
        let out: Vec<(EsaRepr, Vec<i32>)> = drain(&mut ps).iter().map(|p| parse(p)).collect();
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].0.key.job(), &out[0].1[..]), (JOB, &[7, 70][..]));
        assert_eq!(
            (out[1].0.key.job(), out[1].0.bitmap, &out[1].1[..]),
            (4, 0b11, &[101, 202][..])
        );
    }

    #[test]
    fn a_result_passing_by_is_cached_and_drops_parts() {
        let mut ps = ps();
        ps.handle_payload(&fallback(8, 0b001, W[0]), 0).unwrap();
        let mut result = packet(PacketType::Result, 8, 0b111, [7, 70], Flags::OVERFLOW);
        result[15] = 1; // completed in the switch
        ps.handle_payload(&result, 1).unwrap();
        assert_eq!(ps.pending_chunks(JOB), Some(0));
        assert!(drain(&mut ps).is_empty(), "no forwarding by default");
        ps.handle_payload(&result, 2).unwrap();
        result[15] = PS_WORKER_ID;
        ps.handle_payload(&result, 2).unwrap();
        // A late resend is answered from the learned result.
        ps.handle_payload(&resend(8, 0b010, W[1]), 3).unwrap();
        assert_eq!(drain(&mut ps), vec![result]);
        let stats = ps.job_stats(JOB).unwrap();
        assert_eq!(
            (
                stats.results_learned,
                stats.duplicate_results,
                stats.results_resent
            ),
            (1, 2, 1)
        );
        assert_eq!(stats.results_completed, 0);
    }

    #[test]
    fn forwarding_sends_foreign_results_on_once() {
        let mut ps = ParameterServer::new(PsConfig {
            lanes: LANES,
            ..PsConfig::default()
        })
        .unwrap();
        ps.add_job_with(
            JOB,
            3,
            JobOptions {
                forward_results: true,
            },
        )
        .unwrap();
        let mut result = packet(PacketType::Result, 8, 0b111, [7, 70], Flags::NONE);
        result[15] = 2;
        ps.handle_payload(&result, 1).unwrap();
        let mut forwarded = result.clone();
        forwarded[15] = PS_WORKER_ID;
        assert_eq!(drain(&mut ps), vec![forwarded.clone()]);
        // Its own echo is not forwarded again.
        ps.handle_payload(&forwarded, 2).unwrap();
        assert!(drain(&mut ps).is_empty());
        // A re-emission from the switch (ATP D5) is, so the waiting worker hears it.
        ps.handle_payload(&result, 3).unwrap();
        assert_eq!(drain(&mut ps), vec![forwarded]);
        assert_eq!(ps.job_stats(JOB).unwrap().results_forwarded, 2);
    }

    #[test]
    fn evicted_parts_complete_with_their_own_exponent_and_mismatches_are_refused() {
        let mut ps = ps();
        let evicted = |bitmap: u32, exponent: i8| {
            let mut p = packet(PacketType::Evicted, 2, bitmap, sum_of(bitmap), Flags::NONE);
            p[14] = exponent as u8;
            p
        };
        ps.handle_payload(&evicted(0b011, -8), 0).unwrap();
        // A part of the same chunk at another scale cannot be added to it.
        assert!(matches!(
            ps.handle_payload(&evicted(0b100, 16), 0),
            Err(PsError::ExponentMismatch {
                expected: -8,
                found: 16,
                ..
            })
        ));
        assert!(drain(&mut ps).is_empty());
        ps.handle_payload(&evicted(0b100, -8), 1).unwrap();
        let out = drain(&mut ps);
        assert_eq!(out.len(), 1);
        let (repr, values) = parse(&out[0]);
        assert_eq!(
            (repr.packet_type, repr.exponent, values),
            (PacketType::Result, -8, vec![7, 70])
        );
    }

    #[test]
    fn sums_beyond_int32_saturate_and_flag_overflow() {
        let mut ps = ps();
        ps.handle_payload(&fallback(1, 0b011, [i32::MAX, i32::MIN]), 0)
            .unwrap();
        ps.handle_payload(&fallback(1, 0b100, [1, -1]), 0).unwrap();
        let (repr, values) = parse(&drain(&mut ps)[0]);
        assert_eq!(
            (repr.flags, values),
            (Flags::OVERFLOW, vec![i32::MAX, i32::MIN])
        );
        // OVERFLOW of a part survives into the result.
        ps.handle_payload(
            &packet(PacketType::Flush, 2, 0b011, [1, 1], Flags::OVERFLOW),
            0,
        )
        .unwrap();
        ps.handle_payload(&fallback(2, 0b100, [1, 1]), 0).unwrap();
        let (repr, values) = parse(&drain(&mut ps)[0]);
        assert_eq!((repr.flags, values), (Flags::OVERFLOW, vec![2, 2]));
        assert_eq!(ps.job_stats(JOB).unwrap().results_saturated, 1);
    }

    #[test]
    fn limits_drop_the_oldest_and_still_complete() {
        let cfg = PsConfig {
            lanes: LANES,
            max_pending_chunks: 2,
            max_parts_per_chunk: 4,
            ..PsConfig::default()
        };
        let mut ps = ParameterServer::new(cfg).unwrap();
        ps.add_job(JOB, 3).unwrap();
        assert_eq!(
            ps.add_job(5, 5),
            Err(PsError::FanInExceedsMaxParts {
                fan_in: 5,
                max_parts: 4
            })
        );
        for seq in 1..=3 {
            ps.handle_payload(&fallback(seq, 0b001, W[0]), 0).unwrap();
        }
        assert_eq!(ps.pending_chunks(JOB), Some(2));
        assert_eq!(ps.job_stats(JOB).unwrap().pending_chunks_dropped, 1);
        ps.handle_payload(&fallback(3, 0b010, W[1]), 0).unwrap();
        ps.handle_payload(&fallback(3, 0b100, W[2]), 0).unwrap();
        assert_eq!(parse(&drain(&mut ps)[0]).1, [7, 70]);

        // Three parts that all hold worker 0 fill the chunk; the fourth drops
        // the oldest multi-worker part ({0,1}, not the single {0}) and
        // completes with {0,2} + {1}.
        let mut ps = ParameterServer::new(PsConfig {
            lanes: LANES,
            max_parts_per_chunk: 3,
            ..PsConfig::default()
        })
        .unwrap();
        ps.add_job(JOB, 3).unwrap();
        for bitmap in [0b011, 0b101, 0b001] {
            ps.handle_payload(&fallback(1, bitmap, sum_of(bitmap)), 0)
                .unwrap();
        }
        assert!(drain(&mut ps).is_empty());
        ps.handle_payload(&fallback(1, 0b010, sum_of(0b010)), 0)
            .unwrap();
        let out = drain(&mut ps);
        assert_eq!(out.len(), 1);
        assert_eq!(parse(&out[0]).1, [7, 70]);
        assert_eq!(ps.job_stats(JOB).unwrap().parts_dropped, 1);
    }

    #[test]
    fn config_and_job_validation() {
        assert_eq!(PsConfig::default().validate(), Ok(()));
        let bad = [
            (
                PsConfig {
                    lanes: 0,
                    ..PsConfig::default()
                },
                PsError::Lanes(0),
            ),
            (
                PsConfig {
                    lanes: 65,
                    ..PsConfig::default()
                },
                PsError::Lanes(65),
            ),
            (
                PsConfig {
                    result_cache: 0,
                    ..PsConfig::default()
                },
                PsError::ResultCache(0),
            ),
            (
                PsConfig {
                    max_parts_per_chunk: 0,
                    ..PsConfig::default()
                },
                PsError::MaxParts(0),
            ),
            (
                PsConfig {
                    max_parts_per_chunk: 257,
                    ..PsConfig::default()
                },
                PsError::MaxParts(257),
            ),
            (
                PsConfig {
                    max_pending_chunks: 0,
                    ..PsConfig::default()
                },
                PsError::MaxPendingChunks(0),
            ),
        ];
        for (cfg, expected) in bad {
            assert_eq!(ParameterServer::new(cfg).err(), Some(expected));
        }
        let mut ps = ParameterServer::new(PsConfig::default()).unwrap();
        assert_eq!(ps.add_job(0, 2), Err(PsError::Job(0)));
        assert_eq!(ps.add_job(4096, 2), Err(PsError::Job(4096)));
        assert_eq!(ps.add_job(1, 0), Err(PsError::FanIn(0)));
        assert_eq!(ps.add_job(1, 33), Err(PsError::FanIn(33)));
        assert_eq!(ps.add_job(1, 32), Ok(()));
        assert_eq!(ps.add_job(1, 2), Err(PsError::JobExists(1)));
        assert!(ps.remove_job(1));
        assert!(!ps.remove_job(1));
        assert_eq!(ps.job_stats(1), None);
    }

    #[test]
    fn fan_in_32_uses_every_bit() {
        let mut ps = ParameterServer::new(PsConfig {
            lanes: 1,
            ..PsConfig::default()
        })
        .unwrap();
        ps.add_job(1, 32).unwrap();
        let part = |bitmap: u32, v: i32| {
            EsaRepr {
                packet_type: PacketType::Evicted,
                flags: Flags::NONE,
                slot: 0,
                key: Key::new(0, 1, 0),
                bitmap,
                fan_in: 32,
                count: bitmap.count_ones() as u8,
                exponent: 0,
                worker: 0,
            }
            .to_payload(&[v], 1)
        };
        ps.handle_payload(&part(0x8000_0000, 1), 0).unwrap();
        let mut last = part(0x7fff_ffff, 2);
        last[0] = 0x13; // FALLBACK
        ps.handle_payload(&last, 0).unwrap();
        let (repr, values) = EsaRepr::from_payload(&ps.poll_transmit().unwrap(), 1).unwrap();
        assert_eq!((repr.bitmap, repr.count, values), (u32::MAX, 32, vec![3]));
    }

    /// One part of the proptest: a bitmap, its type and whether it is a resend.
    #[derive(Debug, Clone)]
    struct GenPart {
        bitmap: u32,
        packet_type: PacketType,
        resend: bool,
    }

    fn part_type() -> impl Strategy<Value = PacketType> {
        prop_oneof![
            Just(PacketType::Fallback),
            Just(PacketType::Evicted),
            Just(PacketType::Flush)
        ]
    }

    prop_compose! {
        /// A job, its workers' values and a shuffled list of parts holding a
        /// partition of the workers (so a cover exists), extra overlapping
        /// parts and duplicates.
        fn scenario()(fan_in in 1u8..=8)(
            fan_in in Just(fan_in),
            values in prop::collection::vec(prop::collection::vec(-1_000_000i32..1_000_000, LANES), fan_in as usize),
            groups in prop::collection::vec(0usize..8, fan_in as usize),
            types in prop::collection::vec(part_type(), 8),
            extra in prop::collection::vec((1u32..=255, part_type(), any::<bool>()), 0..8),
            duplicates in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
            order in any::<u64>(),
        ) -> (u8, Vec<Vec<i32>>, Vec<GenPart>) {
            let full = full_bitmap(fan_in);
            let mut parts = Vec::new();
            let mut partition = [0u32; 8];
            for (w, g) in groups.iter().enumerate() {
                partition[*g] |= 1 << w;
            }
            for (g, bitmap) in partition.into_iter().enumerate().filter(|(_, b)| *b != 0) {
                parts.push(GenPart { bitmap, packet_type: types[g], resend: false });
            }
            for (bits, packet_type, resend) in extra {
                if bits & full != 0 {
                    parts.push(GenPart { bitmap: bits & full, packet_type, resend });
                }
            }
            for d in duplicates {
                let copy = parts[d.index(parts.len())].clone();
                parts.push(copy);
            }
            // A deterministic shuffle from `order`.
            let mut state = order | 1;
            for i in (1..parts.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                parts.swap(i, (state % (i as u64 + 1)) as usize);
            }
            (fan_in, values, parts)
        }
    }

    proptest! {
        #[test]
        fn any_split_completes_exactly_once_with_the_exact_sum((fan_in, values, parts) in scenario()) {
            let mut ps = ParameterServer::new(PsConfig { lanes: LANES, ..PsConfig::default() }).unwrap();
            ps.add_job(JOB, fan_in).unwrap();
            let mut exact = [0i32; LANES];
            for v in &values {
                for (s, x) in exact.iter_mut().zip(v) {
                    *s += x;
                }
            }
            let mut results = Vec::new();
            for (t, part) in parts.iter().enumerate() {
                let mut sum = [0i32; LANES];
                for (w, v) in values.iter().enumerate() {
                    if part.bitmap & (1 << w) != 0 {
                        for (s, x) in sum.iter_mut().zip(v) {
                            *s += x;
                        }
                    }
                }
                let flags = if part.resend { Flags::RESEND } else { Flags::NONE };
                let payload = EsaRepr {
                    packet_type: part.packet_type,
                    flags,
                    slot: 3,
                    key: Key::new(1, JOB, 77),
                    bitmap: part.bitmap,
                    fan_in,
                    count: part.bitmap.count_ones() as u8,
                    exponent: 12,
                    worker: 0,
                }
                .to_payload(&sum, LANES);
                prop_assert_eq!(ps.handle_payload(&payload, t as u64 * 10), Ok(()));
                for out in drain(&mut ps) {
                    let (repr, lanes) = parse(&out);
                    if repr.packet_type == PacketType::Result {
                        results.push((repr, lanes));
                    }
                }
            }
            let stats = ps.job_stats(JOB).unwrap();
            prop_assert_eq!(stats.results_completed, 1);
            prop_assert_eq!(results.len() as u64, 1 + stats.results_resent);
            for (repr, lanes) in &results {
                prop_assert_eq!(&lanes[..], &exact[..]);
                prop_assert_eq!(repr.bitmap, full_bitmap(fan_in));
                prop_assert_eq!(repr.count, fan_in);
                prop_assert_eq!(repr.exponent, 12);
                prop_assert_eq!(repr.worker, PS_WORKER_ID);
                prop_assert_eq!(repr.key.chunk(), Key::new(0, JOB, 77).chunk());
            }
            prop_assert_eq!(ps.pending_chunks(JOB), Some(0));
            prop_assert_eq!(stats.invalid_packets, 0);
        }
    }
}
