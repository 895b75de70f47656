//! The parameter server's protocol state machine (`docs/protocol.md` §6.2).
//!
//! A [`ParameterServer`] serves any number of jobs. It receives the *parts*
//! the switch hands over (`FALLBACK`, `EVICTED`, `FLUSH`), the `RESULT`s
//! that pass by and the `PROBE`s the switch could not answer, completes
//! chunks the switch could not, and answers late resends and probes from a
//! bounded result cache. What it sends — `RESULT`s, `QUERY`s and answers to
//! probes, to the job's group through the switch, and `PULL`s to the switch
//! — comes out of [`ParameterServer::poll_transmit`].
//!
//! Parts are merged by *exact cover*: a partial sum cannot be split, so the
//! PS waits for a set of stored parts whose bitmaps are pairwise disjoint and
//! together name every worker. After each new part it searches for such a
//! set Algorithm-X style (branch on the lowest uncovered worker, try every
//! part holding it). A cover found earlier would have completed the chunk,
//! so only covers containing the new part are searched.
//!
//! **Tree jobs** ([`JobOptions::tree`], `docs/protocol.md` §9.4): a job
//! across racks is served at its root's level. Its fan-in here is its
//! number of racks; a part is read as a set of (rack, worker) *leaves* —
//! rack `worker`'s workers `bitmap`, or with `UPPER` every worker of the
//! racks `bitmap` — and the exact cover works on leaves, so a rack's
//! partial that arrives both from its leaf and inside the root's is
//! counted once. Its results, queries and one of each pair of pulls carry
//! the root's header (`UPPER`, `fan_in` = racks); probes and their answers
//! name the rack in `worker` and the worker's bit in `bitmap`.
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
use crate::job::{MAX_WINDOW, Mode, TreeShape, full_bitmap};
use crate::wire::{EsaRepr, Flags, Key, PacketType, WireError};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// The largest `max_parts_per_chunk`, which bounds the cover search.
pub const MAX_PARTS_PER_CHUNK: usize = 256;

/// Nodes one cover search may visit before it gives up (and counts it).
const COVER_SEARCH_BUDGET: u32 = 100_000;

mod config;
mod cover;
#[cfg(test)]
mod tests;

pub use config::{JobOptions, PsConfig, PsError};
use cover::{Completing, Leaves, PartSet, Parts, Stored};

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
    /// `QUERY`s received (a peer PS's, relayed); ignored.
    pub queries_received: u64,
    /// `PROBE`s received (the switch could not answer them).
    pub probes_received: u64,
    /// Probes answered with the cached `RESULT`.
    pub probes_answered_result: u64,
    /// Probes answered `PENDING`: the worker's part is stored here.
    pub probes_answered_pending: u64,
    /// Probes answered `MISSING`: the worker's contribution is not here.
    pub probes_answered_missing: u64,
    /// `PULL`s sent for a chunk split between a slot and the PS.
    pub pulls_sent: u64,
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
    /// Packets of a type a PS never receives (`DATA`, `PENDING`,
    /// `MISSING`, `PULL`).
    pub unexpected_type: u64,
}

/// The parts of a chunk not yet complete.
#[derive(Debug, Clone)]
struct PendingChunk {
    parts: Parts,
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
    /// A tree job's: the root's (its racks).
    fan_in: u8,
    full: u32,
    /// A tree job's racks; `None` for a flat job.
    tree: Option<TreeShape>,
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

    /// Starts serving `job` with `fan_in` workers and `options`. A tree
    /// job's ([`JobOptions::tree`]) `fan_in` is the root's, its number of
    /// racks, and every worker of the job must fit `max_parts_per_chunk`.
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
        if let Some(shape) = options.tree {
            if shape.racks() != fan_in {
                return Err(PsError::TreeFanIn {
                    job,
                    fan_in,
                    racks: shape.racks(),
                });
            }
            // Single-worker parts are what resends produce: a tree job's
            // come from every worker of every rack.
            if shape.total_workers() > self.cfg.max_parts_per_chunk {
                return Err(PsError::WorkersExceedMaxParts {
                    workers: shape.total_workers(),
                    max_parts: self.cfg.max_parts_per_chunk,
                });
            }
        } else if usize::from(fan_in) > self.cfg.max_parts_per_chunk {
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
                tree: options.tree,
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
            kind @ (PacketType::Data
            | PacketType::Pending
            | PacketType::Missing
            | PacketType::Pull) => {
                self.stats.unexpected_type += 1;
                return Err(PsError::UnexpectedType(kind));
            }
            PacketType::Probe => job.on_probe(&repr, now_us, &self.cfg, &mut self.outbox),
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

    /// The next payload to send to the switch: a `RESULT`, a `QUERY`, a
    /// `PENDING` or `MISSING` answer, or a `PULL`.
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
        if self.tree.is_some() && !repr.flags.contains(Flags::UPPER) {
            return Err(PsError::NotRootResult {
                job: self.job,
                seq: repr.key.seq(),
            });
        }
        if repr.bitmap != self.full || repr.count != self.fan_in {
            return Err(PsError::IncompleteResult {
                job: self.job,
                seq: repr.key.seq(),
                bitmap: repr.bitmap,
                count: repr.count,
            });
        }
        let chunk = repr.key.chunk();
        let mut flags = repr.flags.without(Flags::RESEND);
        if self.collided(chunk) {
            flags = flags | Flags::COLLISION;
        }
        let result = CachedResult {
            key: repr.key,
            slot: repr.slot,
            flags,
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
        let set = self.read_part(repr)?;
        let seq = repr.key.seq();
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
                    parts: Parts::default(),
                    exponent: repr.exponent,
                    order,
                    last_query_us: None,
                },
            );
        }
        let Some(pending) = self.pending.get_mut(&chunk) else {
            return Ok(());
        };

        let mut how = Completing {
            max_parts: cfg.max_parts_per_chunk,
            last: repr,
            exponent: pending.exponent,
            lanes: cfg.lanes,
            budget: COVER_SEARCH_BUDGET,
        };
        let completion = match pending.parts.store(set, repr.flags, values, &mut how) {
            Stored::Duplicate => {
                self.stats.duplicate_parts += 1;
                None
            }
            Stored::Kept {
                dropped,
                completion,
            } => {
                if dropped {
                    self.stats.parts_dropped += 1;
                }
                completion
            }
        };
        if completion.is_none() && how.budget == 0 {
            self.stats.cover_searches_abandoned += 1;
        }

        if let Some(mut result) = completion {
            if result.saturated {
                self.stats.results_saturated += 1;
            }
            if pending.parts.any_flag(Flags::COLLISION) {
                result.result.flags = result.result.flags | Flags::COLLISION;
            }
            if self.tree.is_some() {
                result.result.flags = result.result.flags | Flags::UPPER;
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
                    flags: self.level(),
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

    /// Whether a stored part of `chunk` collided in the switch (D12): its
    /// `RESULT` then carries `COLLISION`, on which atp workers move the
    /// chunk's window position to another slot (`docs/protocol.md` §6.1).
    fn collided(&self, chunk: u32) -> bool {
        self.pending
            .get(&chunk)
            .is_some_and(|p| p.parts.any_flag(Flags::COLLISION))
    }

    /// A worker's `PROBE` the switch forwarded (P2): the cached `RESULT`
    /// again if the chunk is complete; `PENDING` if a stored part holds the
    /// worker's contribution, or the switch says a slot does (`HELD`) —
    /// with a `PULL` for the slot's partial when the chunk is split
    /// between slot and PS, and a `QUERY` when the PS knows nothing of the
    /// chunk (the slot's partial may be an orphan of a chunk whose result
    /// this cache dropped) or, as for a resent part, when the worker asks
    /// again about a part stored here; otherwise `MISSING`, and the worker
    /// resends (`docs/protocol.md` §6.2).
    fn on_probe(
        &mut self,
        repr: &EsaRepr,
        now_us: u64,
        cfg: &PsConfig,
        outbox: &mut VecDeque<Vec<u8>>,
    ) -> Result<(), PsError> {
        let lanes = cfg.lanes;
        self.stats.probes_received += 1;
        let probed = self.read_probe(repr)?;
        let (level, root_fan_in, tree) = (self.level(), self.fan_in, self.tree.is_some());
        let chunk = repr.key.chunk();
        if let Some(result) = self.results.get(&chunk) {
            outbox.push_back(self.result_payload(result, lanes));
            self.stats.probes_answered_result += 1;
            return Ok(());
        }
        let pending = self
            .pending
            .get_mut(&chunk)
            .filter(|p| p.exponent == repr.exponent);
        let has_parts = pending.is_some();
        let here = pending.as_ref().is_some_and(|p| p.parts.holds(probed));
        let in_slot = repr.flags.contains(Flags::HELD);
        let resend = repr.flags.contains(Flags::RESEND);
        // The answers keep the probe's address: a tree job's rack and the
        // worker's bit in it (`docs/protocol.md` §9.2).
        let header = |packet_type| EsaRepr {
            packet_type,
            flags: Flags::NONE,
            ..*repr
        };
        let from_ps = |packet_type| EsaRepr {
            bitmap: 0,
            count: 0,
            worker: PS_WORKER_ID,
            ..header(packet_type)
        };
        // What the whole job's hosts read, or the root's slot: a tree
        // job's at the root's level.
        let to_root = |packet_type| EsaRepr {
            flags: level,
            fan_in: root_fan_in,
            ..from_ps(packet_type)
        };
        // A tree job's leaf says HELD also when the rack's partial went
        // up; a repeated probe then pulls it wherever it waits (§9.4).
        if here || (in_slot && (has_parts || (tree && resend))) {
            // Parts here and (maybe) a partial in a slot: pull it, from
            // the root's slot and, relayed by the root, from the leaves'.
            if tree {
                outbox.push_back(to_root(PacketType::Pull).to_payload(&[], lanes));
                self.stats.pulls_sent += 1;
            }
            outbox.push_back(from_ps(PacketType::Pull).to_payload(&[], lanes));
            self.stats.pulls_sent += 1;
        }
        // A worker asking again about a chunk the PS cannot complete: as
        // for a resent part, a peer may hold a result nobody else has.
        let query = if here && resend {
            pending.is_some_and(|p| {
                let due = p
                    .last_query_us
                    .is_none_or(|t| now_us.saturating_sub(t) >= cfg.query_interval_us);
                if due {
                    p.last_query_us = Some(now_us);
                }
                due
            })
        } else {
            in_slot && !has_parts && !(tree && resend)
        };
        if query {
            outbox.push_back(to_root(PacketType::Query).to_payload(&[], lanes));
            self.stats.queries_sent += 1;
        }
        let answer = if here || in_slot {
            self.stats.probes_answered_pending += 1;
            PacketType::Pending
        } else {
            self.stats.probes_answered_missing += 1;
            PacketType::Missing
        };
        outbox.push_back(header(answer).to_payload(&[], lanes));
        Ok(())
    }

    fn remove_pending(&mut self, chunk: u32) {
        if let Some(pending) = self.pending.remove(&chunk) {
            self.pending_order.remove(&pending.order);
        }
    }

    /// A `RESULT` payload for `result`, from the PS: a tree job's has the
    /// root's header, whose flags the cached result carries.
    fn result_payload(&self, result: &CachedResult, lanes: usize) -> Vec<u8> {
        result.result_payload(self.fan_in, PS_WORKER_ID, lanes)
    }

    /// The flag of the job's top level: `UPPER` for a tree job.
    fn level(&self) -> Flags {
        if self.tree.is_some() {
            Flags::UPPER
        } else {
            Flags::NONE
        }
    }

    /// What a part covers (`docs/protocol.md` §6.2, §9.4), or why it is
    /// refused: a flat job's workers; a tree job's rack `worker`'s workers
    /// `bitmap`, or with `UPPER` every worker of the racks `bitmap`.
    fn read_part(&self, repr: &EsaRepr) -> Result<PartSet, PsError> {
        let Some(tree) = &self.tree else {
            self.check_fan_in(repr)?;
            self.check_bitmap(repr, self.full)?;
            return Ok(PartSet::Workers {
                bitmap: repr.bitmap,
                all: self.full,
            });
        };
        let leaves = if repr.flags.contains(Flags::UPPER) {
            self.check_fan_in(repr)?;
            self.check_bitmap(repr, self.full)?;
            Leaves::racks(tree, repr.bitmap)
        } else {
            let rack_full = self.check_rack(tree, repr)?;
            self.check_bitmap(repr, rack_full)?;
            Leaves::rack(repr.worker, repr.bitmap)
        };
        Ok(PartSet::Leaves {
            leaves,
            shape: *tree,
        })
    }

    /// The one worker a `PROBE` asks for (a tree job's: rack `worker`,
    /// local bit `bitmap`), or why it is refused.
    fn read_probe(&self, repr: &EsaRepr) -> Result<PartSet, PsError> {
        let (full, single) = match &self.tree {
            None => {
                self.check_fan_in(repr)?;
                let single = repr.worker < self.fan_in && repr.bitmap == 1u32 << repr.worker;
                (self.full, single)
            }
            Some(tree) => {
                let rack_full = self.check_rack(tree, repr)?;
                let single = repr.bitmap.is_power_of_two() && repr.bitmap & !rack_full == 0;
                (rack_full, single)
            }
        };
        if !single {
            return Err(self.bad_bitmap(repr, full));
        }
        Ok(match &self.tree {
            None => PartSet::Workers {
                bitmap: repr.bitmap,
                all: self.full,
            },
            Some(tree) => PartSet::Leaves {
                leaves: Leaves::rack(repr.worker, repr.bitmap),
                shape: *tree,
            },
        })
    }

    /// A tree job's packet read at a leaf's level: its rack (`worker`)
    /// must be the job's and its `fan_in` the rack's workers. Returns the
    /// rack's full bitmap.
    fn check_rack(&self, tree: &TreeShape, repr: &EsaRepr) -> Result<u32, PsError> {
        let Some(&workers) = tree.rack_workers().get(usize::from(repr.worker)) else {
            return Err(PsError::UnknownRack {
                job: self.job,
                rack: repr.worker,
                racks: tree.racks(),
            });
        };
        if repr.fan_in != workers {
            return Err(PsError::FanInMismatch {
                job: self.job,
                expected: workers,
                found: repr.fan_in,
            });
        }
        Ok(full_bitmap(workers))
    }

    /// A part's bitmap must name someone and no one outside `full`.
    fn check_bitmap(&self, repr: &EsaRepr, full: u32) -> Result<(), PsError> {
        if repr.bitmap == 0 || repr.bitmap & !full != 0 {
            return Err(self.bad_bitmap(repr, full));
        }
        Ok(())
    }

    fn bad_bitmap(&self, repr: &EsaRepr, full: u32) -> PsError {
        PsError::BadBitmap {
            job: self.job,
            seq: repr.key.seq(),
            bitmap: repr.bitmap,
            full,
        }
    }
}
