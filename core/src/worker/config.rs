//! A worker's settings and its errors.

use super::*;

/// Chunks in flight of a worker whose job does not say.
pub const DEFAULT_WINDOW: usize = 64;

/// A worker's result cache in windows: enough for the span bound
/// ([`WorkerConfig::max_span`]: two windows, and a cache of at least twice
/// the span less one).
pub const RESULT_CACHE_WINDOWS: usize = 4;

/// Settings of one worker of one job; [`crate::plan::JobPlan`] derives
/// them from a job's recipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerConfig {
    /// Job id, 1..=4095.
    pub job: u16,
    /// This worker's id, `0..fan_in`; its bit in the bitmap. In a tree job,
    /// its id in its rack.
    pub worker_id: u8,
    /// Number of workers of the job, 1..=32. In a tree job, the workers of
    /// its rack.
    pub fan_in: u8,
    /// int32 lanes per packet (K); must be what the switch was built for.
    pub lanes: usize,
    /// Chunks outstanding at most, 1..=[`MAX_WINDOW`].
    pub window: usize,
    /// How seqs map to slots.
    pub slot_mapping: SlotMapping,
    /// atp: a `RESULT` with `COLLISION` moves its chunk's window position
    /// to another slot ([`crate::job::remapped_slot`]), as ATP's workers
    /// take the fresh aggregator their PS hands out after a collision.
    /// Needs [`SlotMapping::Hashed`] and a self-clocked window
    /// (`max_span() == window`), so that every worker has the `RESULT`
    /// before it sends the position's next chunk.
    pub remap_on_collision: bool,
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
    /// Timeouts of one chunk (each a probe or a resend) before the
    /// all-reduce fails.
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
    /// The worker's place in a job across racks (`docs/protocol.md` §9.5):
    /// its `DATA` is a flat job's in its rack, but it clamps by the job's
    /// workers in every rack and takes the root's results (`UPPER`, every
    /// rack) and the answers addressed to its rack and bit. `None`: a flat
    /// job.
    pub tree: Option<TreePlace>,
}

impl WorkerConfig {
    /// Defaults for worker `worker_id` of a job of `fan_in` workers:
    /// [`DEFAULT_LANES`] lanes, a window of [`DEFAULT_WINDOW`], hashed slots
    /// over the whole default pool, exponent 16, [`Rto::DEFAULT`] (1 ms at
    /// first, then measured, never below 1 ms, and doubling per resend up
    /// to 64 ms; 50 retries), a result cache of [`RESULT_CACHE_WINDOWS`]
    /// windows, the `fcfs` policy and seqs from 0.
    pub fn new(job: u16, worker_id: u8, fan_in: u8) -> WorkerConfig {
        let rto = Rto::DEFAULT;
        WorkerConfig {
            job,
            worker_id,
            fan_in,
            lanes: DEFAULT_LANES,
            window: DEFAULT_WINDOW,
            slot_mapping: SlotMapping::Hashed,
            remap_on_collision: false,
            slot_mask: (DEFAULT_POOL_SLOTS - 1) as u16,
            exponent: quant::DEFAULT_EXPONENT,
            rto_initial_us: rto.initial_us,
            rto_min_us: rto.min_us,
            rto_max_us: rto.max_us,
            max_retries: rto.retries,
            result_cache: RESULT_CACHE_WINDOWS * DEFAULT_WINDOW,
            policy: Policy::Fcfs,
            chunks_total: None,
            first_seq: 0,
            tree: None,
        }
    }

    /// The fan-in of the job's results: the racks of a tree job (the
    /// root's), else the job's workers.
    pub fn result_fan_in(&self) -> u8 {
        self.tree.map_or(self.fan_in, |place| place.racks)
    }

    /// The largest magnitude of one contribution (`docs/protocol.md` §6.3):
    /// bounded by every worker whose contributions the top of the job's
    /// tree adds, so no sum overflows int32 there.
    pub fn saturation_limit(&self) -> i32 {
        match self.tree {
            None => quant::saturation_limit(self.fan_in),
            Some(place) => quant::job_saturation_limit(place.total_workers),
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
        if let Some(place) = self.tree {
            if place.racks == 0 || place.racks > MAX_FAN_IN {
                return Err(WorkerError::Racks(place.racks));
            }
            if place.rack >= place.racks {
                return Err(WorkerError::Rack {
                    rack: place.rack,
                    racks: place.racks,
                });
            }
            let most = u16::from(place.racks) * u16::from(MAX_FAN_IN);
            if place.total_workers < u16::from(self.fan_in) || place.total_workers > most {
                return Err(WorkerError::TotalWorkers {
                    total_workers: place.total_workers,
                    fan_in: self.fan_in,
                    racks: place.racks,
                });
            }
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
    /// A tree job's racks are 0 or above 32.
    #[error("{0} racks is not in 1..=32")]
    Racks(u8),
    /// A tree worker's rack is not below the job's racks.
    #[error("rack {rack} is not below the job's {racks} racks")]
    Rack {
        /// The configured rack.
        rack: u8,
        /// The job's racks.
        racks: u8,
    },
    /// A tree job's workers are fewer than this worker's rack holds, or
    /// more than its racks hold (32 each).
    #[error(
        "{total_workers} workers in the job is below the rack's fan-in {fan_in} \
         or above 32 in each of {racks} racks"
    )]
    TotalWorkers {
        /// The configured total.
        total_workers: u16,
        /// The rack's workers.
        fan_in: u8,
        /// The job's racks.
        racks: u8,
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
    /// slot range holds in flight (one chunk per slot; a switchml plan
    /// keeps one per two, `esa_core::job::SlotRange::window_for`).
    #[error(
        "window {window} is larger than the {slots} chunks the job's slot range holds in flight"
    )]
    WindowExceedsSlots {
        /// The configured window.
        window: usize,
        /// Chunks in flight the job's range holds.
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
    /// Checksum coefficients drawn for another shape than the tensor's.
    #[error(
        "checksum coefficients for {coefficient_chunks} chunks of {coefficient_lanes} lanes, \
         the tensor has {chunks} of {lanes}"
    )]
    ChecksumShape {
        /// Chunks of the tensor.
        chunks: usize,
        /// Lanes per chunk.
        lanes: usize,
        /// Chunks the coefficients cover.
        coefficient_chunks: usize,
        /// Lanes the coefficients cover.
        coefficient_lanes: usize,
    },
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
    /// A tree job's `RESULT` without the root's header (`UPPER`): a rack's
    /// partial or a flat result, not the job's sum.
    #[error("RESULT for seq {seq} lacks UPPER: not the root's result of the tree job")]
    NotRootResult {
        /// Seq of the result.
        seq: u16,
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
    /// A chunk timed out `max_retries` times and its `RESULT` never came.
    #[error(
        "job {job}: chunk seq {seq} got no RESULT after {timeouts} timeouts ({resends} resends)"
    )]
    ResultTimeout {
        /// The job.
        job: u16,
        /// The chunk that waited.
        seq: u16,
        /// Timeouts (each sent a probe or a resend).
        timeouts: u32,
        /// Resends among them.
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
