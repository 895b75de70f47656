//! Bounded caches of complete results: the parameter server's
//! [`FifoCache`] of [`CachedResult`]s, keyed by job and key (to answer late
//! resends of any job), and the worker's [`ResultLog`] of its own job's
//! last results as they arrived (to answer `QUERY`s; it reuses its storage,
//! since the worker's receive path allocates nothing in steady state).

use crate::job::full_bitmap;
use crate::wire::{EsaRepr, Flags, Key, PacketType};
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// A bounded first-in-first-out map: inserting beyond capacity forgets the
/// oldest insertion. Re-inserting a key replaces its value and makes it new.
#[derive(Debug, Clone)]
pub(crate) struct FifoCache<K, V> {
    capacity: usize,
    entries: HashMap<K, (u64, V)>,
    order: VecDeque<(K, u64)>,
    next_generation: u64,
}

impl<K: Copy + Eq + Hash, V> FifoCache<K, V> {
    pub(crate) fn new(capacity: usize) -> Self {
        FifoCache {
            capacity,
            entries: HashMap::new(),
            order: VecDeque::new(),
            next_generation: 0,
        }
    }

    pub(crate) fn insert(&mut self, key: K, value: V) {
        if self.capacity == 0 {
            return;
        }
        let generation = self.next_generation;
        self.next_generation += 1;
        self.entries.insert(key, (generation, value));
        self.order.push_back((key, generation));
        // `order` may hold stale pairs of replaced keys; bounding it bounds
        // `entries` too.
        while self.order.len() > self.capacity {
            if let Some((old, old_generation)) = self.order.pop_front()
                && self
                    .entries
                    .get(&old)
                    .is_some_and(|(g, _)| *g == old_generation)
            {
                self.entries.remove(&old);
            }
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.entries.get(key).map(|(_, v)| v)
    }

    pub(crate) fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }
}

/// A complete sum of a chunk, as sent or received.
#[derive(Debug, Clone)]
pub(crate) struct CachedResult {
    pub(crate) key: Key,
    pub(crate) slot: u16,
    pub(crate) flags: Flags,
    pub(crate) exponent: i8,
    pub(crate) values: Vec<i32>,
}

impl CachedResult {
    /// The `RESULT` payload carrying this sum for a job of `fan_in`
    /// workers, sent by `worker` (a worker id or `PS_WORKER_ID`).
    pub(crate) fn result_payload(&self, fan_in: u8, worker: u8, lanes: usize) -> Vec<u8> {
        EsaRepr {
            packet_type: PacketType::Result,
            flags: self.flags,
            slot: self.slot,
            key: self.key,
            bitmap: full_bitmap(fan_in),
            fan_in,
            count: fan_in,
            exponent: self.exponent,
            worker,
        }
        .to_payload(&self.values, lanes)
    }
}

/// A result as accepted: its header and its lanes as they arrived.
#[derive(Debug, Clone)]
pub(crate) struct LoggedResult {
    pub(crate) header: EsaRepr,
    /// Big-endian lanes.
    pub(crate) lanes: Vec<u8>,
}

/// The last `capacity` results accepted, oldest first. Appending reuses
/// the storage of the entry it pushes out; a lookup scans from the newest,
/// which is cheap next to the `QUERY` that asks.
#[derive(Debug, Clone)]
pub(crate) struct ResultLog {
    capacity: usize,
    entries: VecDeque<LoggedResult>,
}

impl ResultLog {
    pub(crate) fn new(capacity: usize) -> ResultLog {
        ResultLog {
            capacity,
            entries: VecDeque::new(),
        }
    }

    pub(crate) fn push(&mut self, header: EsaRepr, lanes: &[u8]) {
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
    pub(crate) fn get(&self, seq: u16) -> Option<&LoggedResult> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.header.key.seq() == seq)
    }
}
