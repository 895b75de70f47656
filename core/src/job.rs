//! A job as every part sees it: its sharing [`Mode`] and what the mode
//! implies (its slots, how seqs map onto them, the PS's part), its entry in
//! the switch's job table ([`JobEntry`], also the P4 action's parameters),
//! its [`SlotRange`], the worker bitmap, and how a chunk's seq becomes a
//! slot of the job's range ([`slot_for`]), which workers, the PS, the model
//! and the switch must agree on. [`crate::plan`] derives a job's hosts'
//! settings from these.

use crate::constants::MAX_FAN_IN;
use std::fmt;

/// How a job shares the pool (`docs/protocol.md` §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Preemptive, priority-based sharing; release on completion.
    Esa,
    /// No preemption; a slot is held until the result passes back from the PS.
    Atp,
    /// No preemption; a static slot range per job.
    SwitchMl,
}

impl Mode {
    /// The mode's code in the P4 job table.
    pub const fn code(self) -> u8 {
        match self {
            Mode::Esa => 0,
            Mode::Atp => 1,
            Mode::SwitchMl => 2,
        }
    }

    /// Whether a job of this mode has a slot range of its own (SwitchML's
    /// static partition) rather than sharing the whole pool (`esa`, `atp`).
    pub const fn has_own_slots(self) -> bool {
        matches!(self, Mode::SwitchMl)
    }

    /// How a job's seqs map onto its slots: directly onto a range of its
    /// own, hashed over the shared pool.
    pub const fn slot_mapping(self) -> SlotMapping {
        if self.has_own_slots() {
            SlotMapping::Direct
        } else {
            SlotMapping::Hashed
        }
    }

    /// Whether the job's PS sends the `RESULT`s it receives on to the
    /// group: in `atp` mode the switch hands its completions to the PS
    /// only, and the PS's `RESULT` passing back through the switch releases
    /// the slot (`docs/protocol.md` §5).
    pub const fn ps_forwards_results(self) -> bool {
        matches!(self, Mode::Atp)
    }

    /// Whether a worker sends the next chunk at a window position only
    /// after the position's last chunk has its result, as ATP's and
    /// SwitchML's workers do (in-ATP/ATP `client/p4ml_manager.cc`: seq +
    /// window goes out when seq's ACK arrives; p4app-switchML
    /// `dpdk_worker_thread.cc`: a slot's next packet when its result
    /// comes back). ESA's workers keep up to two windows' span instead
    /// (`docs/protocol.md` §6.1).
    pub const fn self_clocked(self) -> bool {
        matches!(self, Mode::Atp | Mode::SwitchMl)
    }

    /// Whether a collision moves a window position to another slot, as
    /// ATP's PS hands its workers a fresh aggregator after one
    /// (`esa_core::worker::WorkerConfig::remap_on_collision`).
    pub const fn remaps_on_collision(self) -> bool {
        matches!(self, Mode::Atp)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Esa => "esa",
            Mode::Atp => "atp",
            Mode::SwitchMl => "switchml",
        })
    }
}

/// A mode name that is none of `esa`, `atp`, `switchml`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?} (esa, atp or switchml)")]
pub struct UnknownMode(pub String);

impl std::str::FromStr for Mode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Mode, UnknownMode> {
        match s {
            "esa" => Ok(Mode::Esa),
            "atp" => Ok(Mode::Atp),
            "switchml" => Ok(Mode::SwitchMl),
            _ => Err(UnknownMode(s.to_string())),
        }
    }
}

/// One entry of the job table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobEntry {
    /// Number of workers, 2..=32.
    pub fan_in: u8,
    /// Sharing mode.
    pub mode: Mode,
    /// Highest priority the job's packets may carry; higher ones are clamped.
    pub max_priority: u8,
    /// Multicast group of the job's workers and PS.
    pub mcast_group: u16,
    /// Port of the job's parameter server.
    pub ps_port: u16,
    /// First slot of the job's range.
    pub slot_base: u16,
    /// The job's range is `slot_base ..= slot_base + slot_mask`.
    pub slot_mask: u16,
    /// Where this switch sits on the job's aggregation tree
    /// (`docs/protocol.md` §9); [`TreeRole::Flat`] for a job on one switch.
    pub tree: TreeRole,
}

/// A switch's place on a job's aggregation tree (`docs/protocol.md` §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TreeRole {
    /// The job lives behind this switch alone.
    #[default]
    Flat,
    /// A rack's switch (level 0): it sums the rack's workers and sends the
    /// rack's partial up.
    Leaf {
        /// The way up.
        uplink: Uplink,
        /// Whether the switch aggregates the job at all; without memory
        /// (§9.6) every `DATA` goes to the PS as `FALLBACK`.
        aggregate: bool,
    },
    /// The switch above the racks (level 1): it sums the racks' partials.
    /// Its entry's `fan_in` counts the racks that aggregate below it,
    /// numbered first; fewer than `racks` when some rack's leaf has no
    /// memory (§9.6) and falls back to the PS: a completion here then
    /// lacks that rack and goes to the PS as a part, not to the group as
    /// the result.
    Root {
        /// Whether the switch aggregates the job; without memory every
        /// rack's partial goes to the PS as `FALLBACK`.
        aggregate: bool,
        /// The job's racks (what its hosts' headers count).
        racks: u8,
    },
}

impl TreeRole {
    /// A leaf that aggregates.
    pub const fn leaf(uplink: Uplink) -> TreeRole {
        TreeRole::Leaf {
            uplink,
            aggregate: true,
        }
    }

    /// A root that aggregates the job's `racks` racks.
    pub const fn root(racks: u8) -> TreeRole {
        TreeRole::Root {
            aggregate: true,
            racks,
        }
    }

    /// The role's code in a P4 job table's `tree_role`: 0 flat, 1 leaf,
    /// 2 root.
    pub const fn code(self) -> u8 {
        match self {
            TreeRole::Flat => 0,
            TreeRole::Leaf { .. } => 1,
            TreeRole::Root { .. } => 2,
        }
    }

    /// Whether the entry's bitmaps count racks (level 1), not workers.
    pub const fn is_upper(self) -> bool {
        matches!(self, TreeRole::Root { .. })
    }

    /// The uplink of a leaf.
    pub const fn uplink(self) -> Option<Uplink> {
        match self {
            TreeRole::Leaf { uplink, .. } => Some(uplink),
            _ => None,
        }
    }

    /// Whether the switch aggregates the job (false for a level without
    /// memory, §9.6).
    pub const fn aggregates(self) -> bool {
        match self {
            TreeRole::Flat => true,
            TreeRole::Leaf { aggregate, .. } | TreeRole::Root { aggregate, .. } => aggregate,
        }
    }
}

/// A leaf's way up its job's tree (`docs/protocol.md` §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uplink {
    /// Port towards the root; also the leaf's `ps_port` for the job.
    pub port: u16,
    /// The rack's bit at the root (its sender id there), 0..32.
    pub bit: u8,
    /// The root's fan-in: the job's racks.
    pub root_fan_in: u8,
}

/// A worker's place in a tree job (`docs/protocol.md` §9.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TreePlace {
    /// The worker's rack: its leaf's `uplink.bit`.
    pub rack: u8,
    /// The job's racks (the root's fan-in).
    pub racks: u8,
    /// The job's workers in every rack together: quantization bounds each
    /// contribution by this, not by the rack's fan-in, so the root's sum
    /// cannot overflow (§6.3).
    pub total_workers: u16,
}

/// The shape of a tree job as its hosts know it: the number of workers in
/// each of its racks (`docs/protocol.md` §9.4, §9.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TreeShape {
    racks: u8,
    workers: [u8; 32],
}

impl TreeShape {
    /// The shape with `workers[r]` workers in rack `r`; `None` unless there
    /// are 1..=32 racks of 1..=32 workers each.
    pub fn new(workers: &[u8]) -> Option<TreeShape> {
        if workers.is_empty()
            || workers.len() > 32
            || workers.iter().any(|&w| w == 0 || w > MAX_FAN_IN)
        {
            return None;
        }
        let mut shape = TreeShape {
            racks: workers.len() as u8,
            workers: [0; 32],
        };
        shape.workers[..workers.len()].copy_from_slice(workers);
        Some(shape)
    }

    /// Number of racks (the root's fan-in).
    pub const fn racks(&self) -> u8 {
        self.racks
    }

    /// Workers in each rack.
    pub fn rack_workers(&self) -> &[u8] {
        &self.workers[..usize::from(self.racks)]
    }

    /// Workers in the whole job.
    pub fn total_workers(&self) -> usize {
        self.rack_workers().iter().map(|&w| usize::from(w)).sum()
    }
}

impl JobEntry {
    /// Bitmap with one bit per worker.
    pub const fn full_bitmap(&self) -> u32 {
        full_bitmap(self.fan_in)
    }

    /// The job's slot range.
    pub const fn slots(&self) -> SlotRange {
        SlotRange {
            base: self.slot_base,
            mask: self.slot_mask,
        }
    }
}

/// A job's slots in the pool: `base ..= base + mask`, where `mask + 1` is
/// a power of two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SlotRange {
    /// First slot.
    pub base: u16,
    /// The range is `base ..= base + mask`.
    pub mask: u16,
}

impl SlotRange {
    /// The whole pool of `pool_slots` slots (a power of two, at most
    /// 2¹⁶): where `esa` and `atp` jobs hash their chunks.
    pub const fn whole_pool(pool_slots: usize) -> SlotRange {
        SlotRange {
            base: 0,
            mask: pool_slots.saturating_sub(1) as u16,
        }
    }

    /// The slots a job of `mode` uses: `own` (its static range) for
    /// `switchml`, the shared `pool` for `esa` and `atp`.
    pub const fn for_mode(mode: Mode, pool: SlotRange, own: SlotRange) -> SlotRange {
        if mode.has_own_slots() { own } else { pool }
    }

    /// Slots in the range.
    pub const fn count(self) -> u32 {
        self.mask as u32 + 1
    }

    /// Chunks a worker of a `mode` job on these slots keeps in flight when
    /// it asks for `window`: on a range of its own at most one per *two*
    /// slots — SwitchML's shadow copies: a chunk's slot is next used two
    /// windows later, so a late resend still finds the chunk's sum there
    /// (p4app-switchML `dpdk_worker_thread.cc`: a pool of twice the
    /// packets in flight, `switch_pool_index_shift`); hashed over the
    /// pool, any number (a collision falls back to the PS).
    pub fn window_for(self, mode: Mode, window: usize) -> usize {
        if mode.has_own_slots() {
            window.min((self.count() as usize / 2).max(1))
        } else {
            window
        }
    }
}

/// Chunks of one all-reduce of `elements` values at `lanes` values per
/// packet.
pub const fn chunks(elements: usize, lanes: usize) -> u64 {
    let lanes = if lanes == 0 { 1 } else { lanes };
    elements.div_ceil(lanes) as u64
}

/// Bitmap with the low `fan_in` bits set.
pub const fn full_bitmap(fan_in: u8) -> u32 {
    if fan_in >= 32 {
        u32::MAX
    } else {
        (1u32 << fan_in) - 1
    }
}

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
#[inline]
pub fn slot_for(mapping: SlotMapping, job: u16, seq: u16, window: usize, slot_mask: u16) -> u16 {
    match mapping {
        SlotMapping::Direct => seq & slot_mask,
        SlotMapping::Hashed => {
            let window = window.clamp(1, 1 << 16) as u32;
            // A power of two (every usual window) by a mask: the same
            // index without a division per packet.
            let index = if window.is_power_of_two() {
                u32::from(seq) & (window - 1)
            } else {
                u32::from(seq) % window
            };
            let slot = mix32(u32::from(job)).wrapping_add(index) & u32::from(slot_mask);
            slot as u16
        }
    }
}

/// The slot of window position `position` (`seq mod window`) of `job`
/// after `generation` collisions there: where an atp job moves a position
/// whose chunk collided (ATP's PS hands its workers a fresh aggregator for
/// it; in-ATP/ATP `server/ParameterServer.cc`, `HashNew_predefine`). Every
/// worker computes the same slot from the same `RESULT`s.
pub fn remapped_slot(job: u16, position: u32, generation: u32, slot_mask: u16) -> u16 {
    let seed = mix32(u32::from(job)) ^ position ^ generation.wrapping_mul(0x9e37_79b9);
    (mix32(seed) & u32::from(slot_mask)) as u16
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
