//! Completing a chunk from stored parts: an exact cover of the workers by
//! disjoint parts, and their saturating sum.

use crate::cache::CachedResult;
use crate::wire::{EsaRepr, Flags};

/// A stored part of a chunk.
#[derive(Debug, Clone)]
pub(super) struct Part {
    pub(super) bitmap: u32,
    pub(super) flags: Flags,
    pub(super) values: Vec<i32>,
}

/// A completed sum and whether it had to be saturated.
pub(super) struct Completion {
    pub(super) result: CachedResult,
    pub(super) saturated: bool,
}

/// Sums the parts of `cover` in i64; a lane beyond int32 saturates and sets
/// `OVERFLOW`, as does any part's `OVERFLOW`. The key and slot are those of
/// the part that completed the chunk (`last`).
pub(super) fn sum_cover(
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
pub(super) fn exact_cover(
    parts: &[Part],
    start: usize,
    full: u32,
    budget: &mut u32,
) -> Option<Vec<usize>> {
    let mut chosen = vec![start];
    let covered = parts.get(start)?.bitmap;
    cover_from(parts, covered, full, &mut chosen, budget).then_some(chosen)
}

pub(super) fn cover_from(
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
