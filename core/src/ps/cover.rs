//! Completing a chunk from stored parts: an exact cover of the job's leaves
//! by disjoint parts, and their saturating sum.
//!
//! A flat job's leaves are its workers, a part's set its `u32` bitmap; a
//! tree job's leaves are (rack, local worker) pairs, a part's set a
//! [`Leaves`] bitset (`docs/protocol.md` §9.4). The search is one generic
//! code path over [`LeafSet`], so a flat job's cover costs what it did.

use crate::cache::CachedResult;
use crate::job::{TreeShape, full_bitmap};
use crate::wire::{EsaRepr, Flags};

/// A set of leaves the cover search can work on.
pub(super) trait LeafSet: Copy + Eq {
    /// The leaves of either set.
    fn union(self, other: Self) -> Self;
    /// Whether the sets share a leaf.
    fn intersects(self, other: Self) -> bool;
    /// The lowest leaf of `self` outside `covered`, as a set of one (empty
    /// when there is none).
    fn lowest_outside(self, covered: Self) -> Self;
    /// Whether the set names more than one leaf.
    fn several(self) -> bool;
}

impl LeafSet for u32 {
    fn union(self, other: u32) -> u32 {
        self | other
    }

    fn intersects(self, other: u32) -> bool {
        self & other != 0
    }

    fn lowest_outside(self, covered: u32) -> u32 {
        let outside = self & !covered;
        outside & outside.wrapping_neg()
    }

    fn several(self) -> bool {
        self.count_ones() > 1
    }
}

/// Workers per rack in a [`Leaves`] index: leaf (rack *r*, local *w*) is
/// bit `32 r + w`.
const RACK_STRIDE: usize = 32;

/// A set of a tree job's leaves: up to 32 racks of 32 workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Leaves([u64; 16]);

impl Leaves {
    pub(super) const EMPTY: Leaves = Leaves([0; 16]);

    /// Workers `bitmap` of rack `rack` (`rack < 32`).
    pub(super) fn rack(rack: u8, bitmap: u32) -> Leaves {
        let mut leaves = Leaves::EMPTY;
        let at = usize::from(rack) * RACK_STRIDE;
        leaves.0[at / 64] = u64::from(bitmap) << (at % 64);
        leaves
    }

    /// Every worker of the racks in `racks` (a root-level bitmap).
    pub(super) fn racks(shape: &TreeShape, racks: u32) -> Leaves {
        shape
            .rack_workers()
            .iter()
            .zip(0u8..)
            .filter(|&(_, rack)| racks & (1 << rack) != 0)
            .fold(Leaves::EMPTY, |all, (&workers, rack)| {
                all.union(Leaves::rack(rack, full_bitmap(workers)))
            })
    }

    /// Every worker of every rack.
    pub(super) fn every(shape: &TreeShape) -> Leaves {
        Leaves::racks(shape, full_bitmap(shape.racks()))
    }
}

impl LeafSet for Leaves {
    fn union(mut self, other: Leaves) -> Leaves {
        for (word, o) in self.0.iter_mut().zip(other.0) {
            *word |= o;
        }
        self
    }

    fn intersects(self, other: Leaves) -> bool {
        self.0.iter().zip(other.0).any(|(word, o)| word & o != 0)
    }

    fn lowest_outside(self, covered: Leaves) -> Leaves {
        let mut lowest = Leaves::EMPTY;
        if let Some((i, outside)) = self
            .0
            .iter()
            .zip(covered.0)
            .map(|(word, c)| word & !c)
            .enumerate()
            .find(|&(_, outside)| outside != 0)
        {
            lowest.0[i] = outside & outside.wrapping_neg();
        }
        lowest
    }

    fn several(self) -> bool {
        self.0.iter().map(|word| word.count_ones()).sum::<u32>() > 1
    }
}

/// A stored part of a chunk.
#[derive(Debug, Clone)]
pub(super) struct Part<L> {
    pub(super) leaves: L,
    pub(super) flags: Flags,
    pub(super) values: Vec<i32>,
}

/// What a part covers, read from its header (`docs/protocol.md` §6.2,
/// §9.4).
#[derive(Debug, Clone, Copy)]
pub(super) enum PartSet {
    /// A flat job's workers, with every worker of the job.
    Workers {
        /// The part's bitmap.
        bitmap: u32,
        /// The job's full bitmap.
        all: u32,
    },
    /// A tree job's leaves, with the job's shape (every leaf of it is what
    /// a cover must hold).
    Leaves {
        /// The part's leaves.
        leaves: Leaves,
        /// The job's racks.
        shape: TreeShape,
    },
}

/// The stored parts of a chunk: a flat job's by workers, a tree job's by
/// leaves (the other list stays empty and unallocated).
#[derive(Debug, Clone, Default)]
pub(super) struct Parts {
    workers: Vec<Part<u32>>,
    leaves: Vec<Part<Leaves>>,
}

/// What storing a part did.
pub(super) enum Stored {
    /// A part with the same set is stored already.
    Duplicate,
    /// Stored; `dropped` says whether an older part made room for it.
    Kept {
        dropped: bool,
        completion: Option<Completion>,
    },
}

/// How to store and complete: the limits and the completing header.
pub(super) struct Completing<'a> {
    pub(super) max_parts: usize,
    pub(super) last: &'a EsaRepr,
    pub(super) exponent: i8,
    pub(super) lanes: usize,
    /// Search nodes left (decremented as the search goes).
    pub(super) budget: u32,
}

impl Parts {
    /// Stores a part of `set` and completes the chunk when a cover holding
    /// it exists.
    pub(super) fn store(
        &mut self,
        set: PartSet,
        flags: Flags,
        values: Vec<i32>,
        how: &mut Completing,
    ) -> Stored {
        match set {
            PartSet::Workers { bitmap, all } => store_in(
                &mut self.workers,
                Part {
                    leaves: bitmap,
                    flags,
                    values,
                },
                all,
                how,
            ),
            PartSet::Leaves { leaves, shape } => store_in(
                &mut self.leaves,
                Part {
                    leaves,
                    flags,
                    values,
                },
                Leaves::every(&shape),
                how,
            ),
        }
    }

    /// Whether a stored part shares a leaf with `set`.
    pub(super) fn holds(&self, set: PartSet) -> bool {
        match set {
            PartSet::Workers { bitmap, .. } => {
                self.workers.iter().any(|p| p.leaves.intersects(bitmap))
            }
            PartSet::Leaves { leaves, .. } => {
                self.leaves.iter().any(|p| p.leaves.intersects(leaves))
            }
        }
    }

    /// Whether a stored part carries `flag`.
    pub(super) fn any_flag(&self, flag: Flags) -> bool {
        self.workers.iter().any(|p| p.flags.contains(flag))
            || self.leaves.iter().any(|p| p.flags.contains(flag))
    }
}

/// [`Parts::store`] on one kind of set.
fn store_in<L: LeafSet>(
    parts: &mut Vec<Part<L>>,
    part: Part<L>,
    all: L,
    how: &mut Completing,
) -> Stored {
    if parts.iter().any(|p| p.leaves == part.leaves) {
        return Stored::Duplicate;
    }
    let dropped = parts.len() >= how.max_parts;
    if dropped {
        // Drop the oldest part naming more than one leaf: single-leaf
        // parts are what resends produce, and with every leaf within
        // `max_parts` they alone always reach a cover.
        let victim = parts.iter().position(|p| p.leaves.several());
        parts.remove(victim.unwrap_or(0));
    }
    parts.push(part);
    let completion = exact_cover(parts, parts.len() - 1, all, &mut how.budget)
        .map(|cover| sum_cover(parts, &cover, how.last, how.exponent, how.lanes));
    Stored::Kept {
        dropped,
        completion,
    }
}

/// A completed sum and whether it had to be saturated.
pub(super) struct Completion {
    pub(super) result: CachedResult,
    pub(super) saturated: bool,
}

/// Sums the parts of `cover` in i64; a lane beyond int32 saturates and sets
/// `OVERFLOW`, as does any part's `OVERFLOW`. The key and slot are those of
/// the part that completed the chunk (`last`).
fn sum_cover<L>(
    parts: &[Part<L>],
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

/// Indices of stored parts whose sets are disjoint and cover `all`,
/// containing `start`. Visits at most `budget` search nodes (decremented as
/// it goes).
fn exact_cover<L: LeafSet>(
    parts: &[Part<L>],
    start: usize,
    all: L,
    budget: &mut u32,
) -> Option<Vec<usize>> {
    let mut chosen = vec![start];
    let covered = parts.get(start)?.leaves;
    cover_from(parts, covered, all, &mut chosen, budget).then_some(chosen)
}

fn cover_from<L: LeafSet>(
    parts: &[Part<L>],
    covered: L,
    all: L,
    chosen: &mut Vec<usize>,
    budget: &mut u32,
) -> bool {
    if covered == all {
        return true;
    }
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    // Every cover holds exactly one part with the lowest uncovered leaf.
    let lowest = all.lowest_outside(covered);
    for (i, part) in parts.iter().enumerate() {
        if part.leaves.intersects(lowest) && !part.leaves.intersects(covered) {
            chosen.push(i);
            if cover_from(parts, covered.union(part.leaves), all, chosen, budget) {
                return true;
            }
            chosen.pop();
        }
    }
    false
}
