//! Match-action table state and lookup.
//!
//! Entries are kept in a slot vector (the index is the entry handle) and
//! indexed for lookup by the shape of the key:
//!
//! * all keys `exact`: one hash map from the packed key to the handle;
//! * `exact` keys plus one `lpm` key: one hash map per distinct mask,
//!   searched from the longest prefix down (the first hit wins);
//! * anything with `ternary`, `range` or `optional` keys: a list sorted by
//!   priority (larger first, then older first), scanned in order.
//!
//! Packed keys concatenate the key fields, first key most significant;
//! the hash indexes need the total to fit in 128 bits, otherwise the table
//! falls back to the scan.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::ir::{ArgValue, EntryIr, KeyMatch, MatchKind, TableIr};

/// A fast hasher for packed `u128` keys (multiply-rotate, as FxHash does).
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u128(&mut self, v: u128) {
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }
}

type KeyMap = HashMap<u128, u32, BuildHasherDefault<KeyHasher>>;

/// Per-entry state kept next to the entry.
#[derive(Debug, Clone)]
pub struct StoredEntry {
    /// The entry.
    pub entry: EntryIr,
    /// Direct counter: packets and bytes.
    pub counter: (u64, u64),
    /// Direct meter cell.
    pub meter: crate::exec::cells::MeterCell,
    /// Installed by the program's `entries` (cannot be changed at run time
    /// when they are `const`).
    pub from_program: bool,
}

#[derive(Debug, Clone)]
enum Index {
    Exact(KeyMap),
    Lpm(Vec<(u128, KeyMap)>),
    Scan(Vec<u32>),
}

/// Why a table change was refused (mapped to `RuntimeError` by the switch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableChangeError {
    /// An entry with the same key (and priority) exists, with this handle.
    Duplicate(u32),
    /// The table is full.
    Full,
    /// No entry with this handle.
    NoSuchEntry(u32),
    /// The entry came from a `const entries` list.
    ConstEntry(u32),
}

/// A table's entries, default action and lookup index.
#[derive(Debug, Clone)]
pub struct TableState {
    widths: Vec<u32>,
    packable: bool,
    lpm_key: Option<usize>,
    entries: Vec<Option<StoredEntry>>,
    free: Vec<u32>,
    live: usize,
    size: u64,
    index: Index,
    /// The default action (position in the table's action list, arguments).
    pub default_action: Option<(usize, Vec<ArgValue>)>,
}

impl TableState {
    /// An empty table for `t`, with its program entries installed.
    pub fn new(t: &TableIr) -> TableState {
        let widths: Vec<u32> = t.keys.iter().map(|k| k.width).collect();
        let total: u32 = widths.iter().sum();
        let packable = total <= 128;
        let lpm_key = t.keys.iter().position(|k| k.kind == MatchKind::Lpm);
        let index = if Self::packs(t) {
            if lpm_key.is_some() {
                Index::Lpm(Vec::new())
            } else {
                Index::Exact(KeyMap::default())
            }
        } else {
            Index::Scan(Vec::new())
        };
        let mut s = TableState {
            widths,
            packable,
            lpm_key,
            entries: Vec::new(),
            free: Vec::new(),
            live: 0,
            size: t.size.max(t.const_entries.len() as u64),
            index,
            default_action: t.default_action.clone(),
        };
        for e in &t.const_entries {
            // duplicates among program entries: the first one wins
            let _ = s.insert(e.clone(), true);
        }
        s
    }

    /// Whether `t`'s lookups go through a hash index on its key values
    /// packed into one `u128` (each masked to its width, the first key
    /// most significant): every key exact or lpm, 128 bits in all. Then
    /// [`TableState::lookup_packed`] takes the packed key.
    pub fn packs(t: &TableIr) -> bool {
        t.keys.iter().map(|k| k.width).sum::<u32>() <= 128
            && t.keys
                .iter()
                .all(|k| matches!(k.kind, MatchKind::Exact | MatchKind::Lpm))
    }

    /// Number of installed entries.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no entry is installed.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The entry with this handle.
    pub fn get(&self, handle: u32) -> Option<&StoredEntry> {
        self.entries.get(handle as usize).and_then(Option::as_ref)
    }

    /// The entry with this handle, mutably.
    pub fn get_mut(&mut self, handle: u32) -> Option<&mut StoredEntry> {
        self.entries
            .get_mut(handle as usize)
            .and_then(Option::as_mut)
    }

    /// Handles and entries in handle order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &StoredEntry)> {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_ref().map(|e| (i as u32, e)))
    }

    /// Every entry, mutably (to reset counters).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut StoredEntry> {
        self.entries.iter_mut().filter_map(Option::as_mut)
    }

    fn pack(&self, keys: &[KeyMatch]) -> (u128, u128) {
        let mut v = 0u128;
        let mut m = 0u128;
        for (k, &w) in keys.iter().zip(&self.widths) {
            let (kv, km) = match k {
                KeyMatch::Masked(a, b) => (*a, *b),
                KeyMatch::Range(a, _) => (*a, u128::MAX),
            };
            let wm = width_mask(w);
            v = shl(v, w) | (kv & wm);
            m = shl(m, w) | (km & wm);
        }
        (v, m)
    }

    fn pack_values(&self, values: &[u128]) -> u128 {
        let mut v = 0u128;
        for (x, &w) in values.iter().zip(&self.widths) {
            v = shl(v, w) | (x & width_mask(w));
        }
        v
    }

    fn same_key(a: &EntryIr, b: &EntryIr, scan: bool) -> bool {
        a.keys == b.keys && (!scan || a.priority == b.priority)
    }

    /// Adds an entry; its handle on success.
    pub fn insert(&mut self, entry: EntryIr, from_program: bool) -> Result<u32, TableChangeError> {
        let scan = matches!(self.index, Index::Scan(_));
        if let Some((h, _)) = self
            .iter()
            .find(|(_, e)| Self::same_key(&e.entry, &entry, scan))
        {
            return Err(TableChangeError::Duplicate(h));
        }
        if self.live as u64 >= self.size {
            return Err(TableChangeError::Full);
        }
        let handle = match self.free.pop() {
            Some(h) => h,
            None => {
                self.entries.push(None);
                (self.entries.len() - 1) as u32
            }
        };
        let (packed, mask) = if self.packable {
            self.pack(&entry.keys)
        } else {
            (0, 0)
        };
        let stored = StoredEntry {
            entry,
            counter: (0, 0),
            meter: crate::exec::cells::MeterCell::default(),
            from_program,
        };
        if let Some(slot) = self.entries.get_mut(handle as usize) {
            *slot = Some(stored);
        }
        self.live += 1;
        match &mut self.index {
            Index::Exact(map) => {
                map.insert(packed, handle);
            }
            Index::Lpm(groups) => {
                let pos = groups.iter().position(|(m, _)| *m == mask);
                match pos {
                    Some(p) => {
                        groups[p].1.insert(packed & mask, handle);
                    }
                    None => {
                        let mut map = KeyMap::default();
                        map.insert(packed & mask, handle);
                        groups.push((mask, map));
                        // longest prefix first
                        groups.sort_by_key(|g| std::cmp::Reverse(g.0.count_ones()));
                    }
                }
            }
            Index::Scan(_) => self.rebuild_scan(),
        }
        Ok(handle)
    }

    fn rebuild_scan(&mut self) {
        let mut order: Vec<u32> = self.iter().map(|(h, _)| h).collect();
        order.sort_by(|a, b| {
            let pa = self.get(*a).map_or(0, |e| e.entry.priority);
            let pb = self.get(*b).map_or(0, |e| e.entry.priority);
            pb.cmp(&pa).then(a.cmp(b))
        });
        self.index = Index::Scan(order);
    }

    /// Removes the entry with this handle.
    pub fn remove(
        &mut self,
        handle: u32,
        allow_program: bool,
    ) -> Result<StoredEntry, TableChangeError> {
        match self.get(handle) {
            None => return Err(TableChangeError::NoSuchEntry(handle)),
            Some(e) if e.from_program && !allow_program => {
                return Err(TableChangeError::ConstEntry(handle));
            }
            Some(_) => {}
        }
        let Some(stored) = self.entries.get_mut(handle as usize).and_then(Option::take) else {
            return Err(TableChangeError::NoSuchEntry(handle));
        };
        self.live -= 1;
        self.free.push(handle);
        let (packed, mask) = if self.packable {
            self.pack(&stored.entry.keys)
        } else {
            (0, 0)
        };
        match &mut self.index {
            Index::Exact(map) => {
                map.remove(&packed);
            }
            Index::Lpm(groups) => {
                if let Some(p) = groups.iter().position(|(m, _)| *m == mask) {
                    groups[p].1.remove(&(packed & mask));
                    if groups[p].1.is_empty() {
                        groups.remove(p);
                    }
                }
            }
            Index::Scan(_) => self.rebuild_scan(),
        }
        Ok(stored)
    }

    /// Removes every entry not installed by the program.
    pub fn clear_runtime_entries(&mut self) {
        let handles: Vec<u32> = self
            .iter()
            .filter(|(_, e)| !e.from_program)
            .map(|(h, _)| h)
            .collect();
        for h in handles {
            let _ = self.remove(h, false);
        }
    }

    /// The handle of the entry matching the key values, if any.
    #[inline]
    pub fn lookup(&self, values: &[u128]) -> Option<u32> {
        match &self.index {
            Index::Exact(_) | Index::Lpm(_) => self.lookup_packed(self.pack_values(values)),
            Index::Scan(order) => order.iter().copied().find(|&h| {
                self.get(h).is_some_and(|e| {
                    e.entry.keys.iter().zip(values).all(|(k, &v)| match k {
                        KeyMatch::Masked(val, m) => v & m == *val,
                        KeyMatch::Range(lo, hi) => *lo <= v && v <= *hi,
                    })
                })
            }),
        }
    }

    /// The handle of the entry matching `packed`, the key values packed
    /// as [`TableState::packs`] says; `None` also for a table that does
    /// not pack.
    #[inline]
    pub fn lookup_packed(&self, packed: u128) -> Option<u32> {
        match &self.index {
            Index::Exact(map) => map.get(&packed).copied(),
            Index::Lpm(groups) => groups
                .iter()
                .find_map(|(m, map)| map.get(&(packed & m)).copied()),
            Index::Scan(_) => None,
        }
    }

    /// Position of the lpm key, if the table has one.
    pub fn lpm_key(&self) -> Option<usize> {
        self.lpm_key
    }
}

/// The mask of a `w`-bit key value.
pub(crate) fn width_mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

fn shl(v: u128, w: u32) -> u128 {
    if w >= 128 { 0 } else { v << w }
}
