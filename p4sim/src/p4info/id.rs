//! P4Runtime id assignment exactly as p4c does it.
//!
//! A P4Info id is 32 bits: the resource type's prefix (P4Runtime
//! `p4info.proto`, `P4Ids.Prefix`) in the top 8 bits and 24 bits derived
//! from the Jenkins one-at-a-time hash of the object's fully qualified
//! control-plane name, e.g. `MyIngress.ipv4_lpm` (p4c uses
//! `controlPlaneName()`, i.e. the `@name` with any leading `.` removed, so
//! `NoAction` rather than `.NoAction`).
//!
//! The procedure (p4c `control-plane/p4RuntimeSymbolTable.cpp`):
//!
//! 1. Symbols are collected per resource type. A second symbol with the
//!    same type and name is ignored.
//! 2. An `@id` annotation is taken as given if its top byte is 0 or equals
//!    the type prefix (the prefix is ORed in); any other top byte is an
//!    error. Two declarations with the same `@id` are an error.
//! 3. Then, per type, the names without an `@id` are visited in sorted
//!    (bytewise) order; each gets `prefix << 24 | (hash & 0xFFFFFF)`, and on
//!    a collision with any id already assigned the hash is incremented
//!    (linear probing) until a free id is found.
//!
//! Older p4c releases masked the hash with `0xFFFF` instead; ids in old
//! committed `.p4info.txt` files therefore differ in bits 16..23.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// P4Runtime resource types and their id prefixes (`P4Ids.Prefix`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceType {
    /// `ACTION` (0x01).
    Action,
    /// `TABLE` (0x02).
    Table,
    /// `VALUE_SET` (0x03).
    ValueSet,
    /// `CONTROLLER_HEADER` (0x04).
    ControllerHeader,
    /// `ACTION_PROFILE` (0x11).
    ActionProfile,
    /// `COUNTER` (0x12).
    Counter,
    /// `DIRECT_COUNTER` (0x13).
    DirectCounter,
    /// `METER` (0x14).
    Meter,
    /// `DIRECT_METER` (0x15).
    DirectMeter,
    /// `REGISTER` (0x16).
    Register,
    /// `DIGEST` (0x17).
    Digest,
    /// `GENERIC_TABLE` (0x18).
    GenericTable,
    /// An architecture-specific extern type with the given prefix
    /// (`OTHER_EXTERNS_START` 0x80 and above).
    Other(u8),
}

impl ResourceType {
    /// The 8-bit id prefix.
    pub fn prefix(self) -> u8 {
        match self {
            ResourceType::Action => 0x01,
            ResourceType::Table => 0x02,
            ResourceType::ValueSet => 0x03,
            ResourceType::ControllerHeader => 0x04,
            ResourceType::ActionProfile => 0x11,
            ResourceType::Counter => 0x12,
            ResourceType::DirectCounter => 0x13,
            ResourceType::Meter => 0x14,
            ResourceType::DirectMeter => 0x15,
            ResourceType::Register => 0x16,
            ResourceType::Digest => 0x17,
            ResourceType::GenericTable => 0x18,
            ResourceType::Other(prefix) => prefix,
        }
    }

    /// The resource type an id belongs to, from its top byte.
    pub fn of_id(id: u32) -> Option<ResourceType> {
        Some(match (id >> 24) as u8 {
            0x01 => ResourceType::Action,
            0x02 => ResourceType::Table,
            0x03 => ResourceType::ValueSet,
            0x04 => ResourceType::ControllerHeader,
            0x11 => ResourceType::ActionProfile,
            0x12 => ResourceType::Counter,
            0x13 => ResourceType::DirectCounter,
            0x14 => ResourceType::Meter,
            0x15 => ResourceType::DirectMeter,
            0x16 => ResourceType::Register,
            0x17 => ResourceType::Digest,
            0x18 => ResourceType::GenericTable,
            p if p >= 0x80 => ResourceType::Other(p),
            _ => return None,
        })
    }
}

/// Errors from id assignment, mirroring p4c's diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// An `@id` value that does not fit in 32 bits.
    #[error("{name}: @id should be an unsigned 32-bit integer, got {id}")]
    IdOutOfRange {
        /// The annotated object.
        name: String,
        /// The annotation's value.
        id: u64,
    },
    /// An `@id` whose top byte is neither 0 nor the resource type's prefix.
    #[error("{name}: @id {id:#010x} has the wrong 8-bit prefix (expected {expected:#04x})")]
    WrongPrefix {
        /// The annotated object.
        name: String,
        /// The annotation's value.
        id: u32,
        /// The prefix of the object's resource type.
        expected: u8,
    },
    /// Two declarations carry the same `@id`.
    #[error("@id {id:#010x} is assigned to multiple declarations ({first} and {second})")]
    DuplicateId {
        /// The shared id (with its prefix).
        id: u32,
        /// The declaration that got the id first.
        first: String,
        /// The declaration that asked for it again.
        second: String,
    },
    /// A symbol with an empty name.
    #[error("empty symbol name")]
    EmptyName,
    /// Every id of a resource type is taken.
    #[error("no available id to represent {name} in P4Runtime")]
    Exhausted {
        /// The object that could not get an id.
        name: String,
    },
}

/// The Jenkins one-at-a-time hash p4c applies to control-plane names.
pub fn jenkins_one_at_a_time(key: &[u8]) -> u32 {
    let mut hash: u32 = 0;
    for &b in key {
        hash = hash.wrapping_add(u32::from(b));
        hash = hash.wrapping_add(hash << 10);
        hash ^= hash >> 6;
    }
    hash = hash.wrapping_add(hash << 3);
    hash ^= hash >> 11;
    hash.wrapping_add(hash << 15)
}

#[derive(Debug, Clone)]
struct Symbol {
    ty: ResourceType,
    name: String,
    id: Option<u32>,
}

/// Collects P4Runtime symbols and assigns their ids as p4c does.
#[derive(Debug, Clone, Default)]
pub struct IdAllocator {
    symbols: Vec<Symbol>,
    index: HashMap<(ResourceType, String), usize>,
    /// Ids claimed by `@id` so far, with the claiming symbol's name.
    claimed: BTreeMap<u32, String>,
}

impl IdAllocator {
    /// An allocator with no symbols.
    pub fn new() -> IdAllocator {
        IdAllocator::default()
    }

    /// Adds the object `name` of type `ty` with its optional `@id` value.
    /// Adding the same type and name again is ignored, as in p4c.
    pub fn add(
        &mut self,
        ty: ResourceType,
        name: &str,
        id_annotation: Option<u64>,
    ) -> Result<(), IdError> {
        if name.is_empty() {
            return Err(IdError::EmptyName);
        }
        let key = (ty, name.to_string());
        if self.index.contains_key(&key) {
            return Ok(());
        }
        let id = match id_annotation {
            None => None,
            Some(raw) => {
                let raw = u32::try_from(raw).map_err(|_| IdError::IdOutOfRange {
                    name: name.to_string(),
                    id: raw,
                })?;
                let prefix = u32::from(ty.prefix()) << 24;
                let given = raw & 0xFF00_0000;
                if given != 0 && given != prefix {
                    return Err(IdError::WrongPrefix {
                        name: name.to_string(),
                        id: raw,
                        expected: ty.prefix(),
                    });
                }
                let id = raw | prefix;
                if let Some(first) = self.claimed.get(&id) {
                    return Err(IdError::DuplicateId {
                        id,
                        first: first.clone(),
                        second: name.to_string(),
                    });
                }
                self.claimed.insert(id, name.to_string());
                Some(id)
            }
        };
        self.index.insert(key, self.symbols.len());
        self.symbols.push(Symbol {
            ty,
            name: name.to_string(),
            id,
        });
        Ok(())
    }

    /// Assigns an id to every symbol without an `@id`.
    pub fn assign(self) -> Result<AssignedIds, IdError> {
        let mut taken: BTreeSet<u32> = self.claimed.keys().copied().collect();
        let mut ids: HashMap<(ResourceType, String), u32> = HashMap::new();
        let mut pending: BTreeMap<ResourceType, BTreeSet<&str>> = BTreeMap::new();
        for s in &self.symbols {
            match s.id {
                Some(id) => {
                    ids.insert((s.ty, s.name.clone()), id);
                }
                None => {
                    pending.entry(s.ty).or_default().insert(&s.name);
                }
            }
        }
        for (ty, names) in pending {
            let prefix = u32::from(ty.prefix()) << 24;
            for name in names {
                let start = jenkins_one_at_a_time(name.as_bytes());
                // p4c probes until the 32-bit hash wraps around; only the
                // low 24 bits matter, so 2^24 probes cover every id.
                let id = (0..=0x00FF_FFFFu32)
                    .map(|step| prefix | (start.wrapping_add(step) & 0x00FF_FFFF))
                    .find(|id| !taken.contains(id))
                    .ok_or_else(|| IdError::Exhausted {
                        name: name.to_string(),
                    })?;
                taken.insert(id);
                ids.insert((ty, name.to_string()), id);
            }
        }
        let names: BTreeSet<String> = self.symbols.into_iter().map(|s| s.name).collect();
        Ok(AssignedIds {
            ids,
            aliases: Aliases::new(&names),
        })
    }
}

/// Shortest unique dotted suffix of each name, p4c's default P4Info alias.
#[derive(Debug, Clone, Default)]
struct Aliases {
    /// Number of distinct names ending with each dotted suffix.
    suffix_counts: HashMap<String, usize>,
}

impl Aliases {
    fn new(names: &BTreeSet<String>) -> Aliases {
        let mut suffix_counts: HashMap<String, usize> = HashMap::new();
        for name in names {
            for suffix in suffixes(name) {
                *suffix_counts.entry(suffix.to_string()).or_default() += 1;
            }
        }
        Aliases { suffix_counts }
    }

    fn alias(&self, name: &str) -> String {
        let mut last = name;
        for suffix in suffixes(name) {
            last = suffix;
            if self.suffix_counts.get(suffix).copied().unwrap_or(0) < 2 {
                break;
            }
        }
        last.to_string()
    }
}

/// `a.b.c` gives `c`, `b.c`, `a.b.c`.
fn suffixes(name: &str) -> impl Iterator<Item = &str> {
    name.rmatch_indices('.')
        .map(move |(i, _)| &name[i + 1..])
        .chain(std::iter::once(name))
}

/// The result of [`IdAllocator::assign`].
#[derive(Debug, Clone)]
pub struct AssignedIds {
    ids: HashMap<(ResourceType, String), u32>,
    aliases: Aliases,
}

impl AssignedIds {
    /// The id of the object `name` of type `ty`.
    pub fn get(&self, ty: ResourceType, name: &str) -> Option<u32> {
        self.ids.get(&(ty, name.to_string())).copied()
    }

    /// The default P4Info alias of `name`: its shortest dotted suffix that
    /// no other collected name (of any type) shares.
    pub fn alias(&self, name: &str) -> String {
        self.aliases.alias(name)
    }

    /// Every (type, name, id), sorted by id.
    pub fn entries(&self) -> Vec<(ResourceType, &str, u32)> {
        let mut v: Vec<_> = self
            .ids
            .iter()
            .map(|((ty, name), id)| (*ty, name.as_str(), *id))
            .collect();
        v.sort_by_key(|e| e.2);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids from the p4info of p4lang/tutorials `basic_tunnel.p4` as printed
    /// by a recent p4c.
    #[test]
    fn reproduces_p4c_ids_for_basic_tunnel() {
        let mut alloc = IdAllocator::new();
        let symbols = [
            (ResourceType::Table, "MyIngress.ipv4_lpm", 37_375_156),
            (ResourceType::Table, "MyIngress.myTunnel_exact", 35_862_311),
            (ResourceType::Action, "NoAction", 21_257_015),
            (ResourceType::Action, "MyIngress.drop", 25_652_968),
            (ResourceType::Action, "MyIngress.ipv4_forward", 28_792_405),
            (
                ResourceType::Action,
                "MyIngress.myTunnel_ingress",
                24_181_246,
            ),
            (
                ResourceType::Counter,
                "MyIngress.ingressTunnelCounter",
                315_557_958,
            ),
            (
                ResourceType::Counter,
                "MyIngress.egressTunnelCounter",
                312_374_841,
            ),
        ];
        for (ty, name, _) in symbols {
            alloc.add(ty, name, None).unwrap();
        }
        let ids = alloc.assign().unwrap();
        for (ty, name, id) in symbols {
            assert_eq!(ids.get(ty, name), Some(id), "{name}");
        }
        assert_eq!(ids.alias("MyIngress.ipv4_lpm"), "ipv4_lpm");
        assert_eq!(ids.alias("NoAction"), "NoAction");
        assert_eq!(ids.entries().len(), symbols.len());
        assert_eq!(
            ResourceType::of_id(315_557_958),
            Some(ResourceType::Counter)
        );
    }

    #[test]
    fn jenkins_hash_values() {
        assert_eq!(jenkins_one_at_a_time(b""), 0);
        assert_eq!(jenkins_one_at_a_time(b"a"), 0xCA2E_9442);
        assert_eq!(
            jenkins_one_at_a_time(b"The quick brown fox jumps over the lazy dog"),
            0x519E_91F5
        );
        assert_eq!(jenkins_one_at_a_time(b"MyIngress.ipv4_lpm"), 0x263A_4CB4);
    }

    #[test]
    fn id_annotations() {
        let mut alloc = IdAllocator::new();
        alloc.add(ResourceType::Table, "c.t1", Some(5)).unwrap();
        alloc
            .add(ResourceType::Table, "c.t2", Some(0x0200_0006))
            .unwrap();
        assert_eq!(
            alloc.add(ResourceType::Table, "c.t3", Some(0x0100_0007)),
            Err(IdError::WrongPrefix {
                name: "c.t3".into(),
                id: 0x0100_0007,
                expected: 2
            })
        );
        assert_eq!(
            alloc.add(ResourceType::Table, "c.t4", Some(0x0200_0005)),
            Err(IdError::DuplicateId {
                id: 0x0200_0005,
                first: "c.t1".into(),
                second: "c.t4".into()
            })
        );
        assert!(matches!(
            alloc.add(ResourceType::Table, "c.t5", Some(1 << 40)),
            Err(IdError::IdOutOfRange { .. })
        ));
        // Re-adding a known symbol is ignored, even with another @id.
        alloc.add(ResourceType::Table, "c.t1", Some(9)).unwrap();
        // The same @id value for another resource type is a different id.
        alloc.add(ResourceType::Action, "c.a", Some(5)).unwrap();
        assert_eq!(
            alloc.add(ResourceType::Table, "", None),
            Err(IdError::EmptyName)
        );
        let ids = alloc.assign().unwrap();
        assert_eq!(ids.get(ResourceType::Table, "c.t1"), Some(0x0200_0005));
        assert_eq!(ids.get(ResourceType::Table, "c.t2"), Some(0x0200_0006));
        assert_eq!(ids.get(ResourceType::Action, "c.a"), Some(0x0100_0005));
        assert_eq!(ids.get(ResourceType::Table, "c.t3"), None);
    }

    #[test]
    fn collisions_probe_linearly_in_name_order() {
        // Claim the hashed id of one name with @id; it and the name sorted
        // after it move up by one each time.
        let name = "MyIngress.ipv4_lpm";
        let base = 0x0200_0000 | (jenkins_one_at_a_time(name.as_bytes()) & 0x00FF_FFFF);
        let mut alloc = IdAllocator::new();
        alloc.add(ResourceType::Table, name, None).unwrap();
        alloc
            .add(ResourceType::Table, "other", Some(u64::from(base)))
            .unwrap();
        alloc
            .add(ResourceType::Table, "other2", Some(u64::from(base + 1)))
            .unwrap();
        let ids = alloc.assign().unwrap();
        assert_eq!(ids.get(ResourceType::Table, name), Some(base + 2));

        // Probing wraps within the low 24 bits.
        let mut alloc = IdAllocator::new();
        let hash = jenkins_one_at_a_time(b"x") & 0x00FF_FFFF;
        for k in 0..3u32 {
            let id = 0x1600_0000 | ((hash + k) & 0x00FF_FFFF);
            alloc
                .add(
                    ResourceType::Register,
                    &format!("r{k}"),
                    Some(u64::from(id)),
                )
                .unwrap();
        }
        alloc.add(ResourceType::Register, "x", None).unwrap();
        let ids = alloc.assign().unwrap();
        assert_eq!(
            ids.get(ResourceType::Register, "x"),
            Some(0x1600_0000 | ((hash + 3) & 0x00FF_FFFF))
        );
    }

    #[test]
    fn aliases_are_shortest_unique_suffixes() {
        let mut alloc = IdAllocator::new();
        for name in ["s.c1.t", "s.c2.t", "s.c1.u", "t2"] {
            alloc.add(ResourceType::Table, name, None).unwrap();
        }
        alloc.add(ResourceType::Action, "u", None).unwrap();
        let ids = alloc.assign().unwrap();
        assert_eq!(ids.alias("s.c1.t"), "c1.t");
        assert_eq!(ids.alias("s.c2.t"), "c2.t");
        assert_eq!(ids.alias("s.c1.u"), "c1.u");
        assert_eq!(ids.alias("u"), "u");
        assert_eq!(ids.alias("t2"), "t2");
    }
}
