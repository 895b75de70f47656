//! The chunks a worker has in flight.

use crate::wire::{Flags, Key};
use std::collections::VecDeque;

/// A chunk sent and waiting for its result, or a finished chunk still in
/// the ring behind an older one that waits.
///
/// The lanes are not kept: a resend quantizes the chunk again from the
/// input, which gives the same bytes (same values, same exponent).
#[derive(Debug, Clone, Copy)]
pub(super) struct Outstanding {
    /// Chunk index in the tensor.
    pub(super) index: usize,
    pub(super) key: Key,
    pub(super) slot: u16,
    pub(super) exponent: i8,
    /// `OVERFLOW` if quantization saturated, else empty.
    pub(super) flags: Flags,
    /// Retransmissions of its `DATA`.
    pub(super) resends: u32,
    /// Timer expiries (each sent a `PROBE` or a resend); the all-reduce
    /// fails when they reach `max_retries`.
    pub(super) timeouts: u32,
    /// When it was first sent, for the round-trip sample.
    pub(super) sent_us: u64,
    pub(super) rto_us: u64,
    pub(super) deadline_us: u64,
    /// A probe or a resend is queued and not yet handed out.
    pub(super) queued: Option<Followup>,
    /// A `PROBE` went out and nothing has answered it yet: at the next
    /// timeout the chunk is resent (the probe or its answer was lost).
    pub(super) probe_unanswered: bool,
    /// Probed early because it alone held the span bound (once per chunk).
    pub(super) probed_at_span: bool,
    /// A probe went out before: the next ones carry `RESEND`, so the switch
    /// passes them to the PS (`docs/protocol.md` §4.4, P2).
    pub(super) probed: bool,
    /// Its result was accepted.
    pub(super) done: bool,
}

/// What a waiting chunk sends next, after a timeout or an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Followup {
    /// Ask whether the contribution is held (`PROBE`).
    Probe,
    /// Retransmit the `DATA` (with `RESEND`).
    Resend,
}

/// The chunks in flight, in sending order: entry `i` has seq `front_seq +
/// i`. Finished entries stay until every older one has finished, so a seq
/// is found by subtraction and nothing is allocated per chunk once the
/// ring has grown to the window.
#[derive(Debug, Clone, Default)]
pub(super) struct Ring {
    pub(super) entries: VecDeque<Outstanding>,
    pub(super) front_seq: u16,
    /// Entries not `done`.
    pub(super) waiting: usize,
}

impl Ring {
    /// The entry of `seq`, if it is in the ring and still waits.
    pub(super) fn waiting_mut(&mut self, seq: u16) -> Option<&mut Outstanding> {
        let at = usize::from(seq.wrapping_sub(self.front_seq));
        self.entries.get_mut(at).filter(|c| !c.done)
    }

    /// Seqs the ring spans, finished ones included.
    pub(super) fn span(&self) -> usize {
        self.entries.len()
    }

    #[inline]
    pub(super) fn push(&mut self, seq: u16, chunk: Outstanding) {
        if self.entries.is_empty() {
            self.front_seq = seq;
        }
        self.entries.push_back(chunk);
        self.waiting += 1;
    }

    /// Marks `seq` done; returns its entry if it was waiting.
    pub(super) fn finish(&mut self, seq: u16) -> Option<Outstanding> {
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

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.waiting = 0;
    }
}
