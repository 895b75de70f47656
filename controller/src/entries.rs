//! What the controller writes to a switch, as P4Runtime: the typed table
//! entries of [`esa_p4::tables`] (one Rust type per key and action, bound
//! there to both programs' P4 names) and multicast groups, turned into
//! protobuf and back.
//!
//! [`Entity::to_proto`] / [`Entity::from_proto`] are the only places where
//! entries meet protobuf; [`crate::pipeline::Bindings`] resolves the names
//! to P4Info ids once.

use std::collections::BTreeSet;

pub use esa_p4::Arch;
pub use esa_p4::tables::{
    Forward, JobKey, JobPortKey, MacKey, MulticastGroup, PortKey, SetHost, SetRoute, TableEntry,
    TableKind, TableSpec, WorkerPortKey, mode_from_code,
};
use p4runtime_proto::p4::v1 as p4v1;

use crate::pipeline::Bindings;

/// Anything the controller writes to the switch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Entity {
    /// A table entry.
    Table(TableEntry),
    /// A multicast group.
    Group(MulticastGroup),
}

/// What identifies an entity on the switch (its table and key, or its group
/// id), so two entities with the same identity are one insert or modify.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityKey {
    /// Table and key field values.
    Table(TableKind, Vec<u64>),
    /// Group id.
    Group(u16),
}

/// The canonical P4Runtime byte string of `value`: big-endian, no leading
/// zero bytes, at least one byte.
pub use p4runtime_proto::bytestring::from_u64 as encode_value;

/// Reads a big-endian byte string of a field `width` bits wide, padded or
/// not; refuses a value that does not fit.
pub fn decode_value(bytes: &[u8], width: u32) -> Result<u64, String> {
    let significant: &[u8] = match bytes.iter().position(|b| *b != 0) {
        Some(first) => &bytes[first..],
        None => &[],
    };
    if significant.len() > 8 {
        return Err(format!("value of {} bytes is too wide", bytes.len()));
    }
    let value = significant.iter().fold(0u64, |a, b| a << 8 | u64::from(*b));
    if width < 64 && value >> width != 0 {
        return Err(format!("value {value} does not fit in {width} bits"));
    }
    Ok(value)
}

impl Entity {
    /// The entity's identity on the switch.
    pub fn key(&self) -> EntityKey {
        match self {
            Entity::Table(e) => EntityKey::Table(e.table(), e.key_values()),
            Entity::Group(g) => EntityKey::Group(g.group),
        }
    }

    /// The P4Runtime entity.
    pub fn to_proto(&self, bindings: &Bindings) -> p4v1::Entity {
        use p4v1::entity::Entity as E;
        let inner = match self {
            Entity::Table(entry) => E::TableEntry(table_entry_proto(entry, bindings)),
            Entity::Group(group) => E::PacketReplicationEngineEntry(group_proto(group)),
        };
        p4v1::Entity {
            entity: Some(inner),
        }
    }

    /// The typed entity for a P4Runtime entity read from the switch; `None`
    /// for entities of tables the controller does not program (and for
    /// default entries and clone sessions).
    pub fn from_proto(
        entity: &p4v1::Entity,
        bindings: &Bindings,
    ) -> Result<Option<Entity>, String> {
        use p4v1::entity::Entity as E;
        match &entity.entity {
            Some(E::TableEntry(t)) => {
                if t.is_default_action {
                    return Ok(None);
                }
                let Some(table) = bindings.table_kind(t.table_id) else {
                    return Ok(None);
                };
                table_entry_from_proto(table, t, bindings).map(|e| Some(Entity::Table(e)))
            }
            Some(E::PacketReplicationEngineEntry(pre)) => match &pre.r#type {
                Some(p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(g)) => {
                    group_from_proto(g).map(|g| Some(Entity::Group(g)))
                }
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }
}

fn table_entry_proto(entry: &TableEntry, bindings: &Bindings) -> p4v1::TableEntry {
    let table = entry.table();
    // (a table the program lacks: id 0, which the switch refuses)
    let Some(binding) = bindings.table(table) else {
        return p4v1::TableEntry::default();
    };
    let mut matches: Vec<p4v1::FieldMatch> = binding
        .match_ids
        .iter()
        .zip(entry.key_values())
        .map(|(&field_id, value)| p4v1::FieldMatch {
            field_id,
            field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(
                p4v1::field_match::Exact {
                    value: encode_value(value),
                },
            )),
        })
        .collect();
    let mut priority = 0;
    if let (Some(field_id), TableEntry::Job(_, set)) = (binding.slot_field, entry) {
        // TNA `jobs`: the job's slots are the ones with no bit outside
        // slot_mask
        matches.push(p4v1::FieldMatch {
            field_id,
            field_match_type: Some(p4v1::field_match::FieldMatchType::Ternary(
                p4v1::field_match::Ternary {
                    value: encode_value(0),
                    mask: encode_value(u64::from(!set.slot_mask)),
                },
            )),
        });
        priority = 1;
    }
    let params = binding
        .param_ids
        .iter()
        .zip(entry.param_values())
        .map(|(&param_id, value)| p4v1::action::Param {
            param_id,
            value: encode_value(value),
        })
        .collect();
    p4v1::TableEntry {
        table_id: binding.table_id,
        r#match: matches,
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
                action_id: binding.action_id,
                params,
            })),
        }),
        priority,
        ..Default::default()
    }
}

/// The identity of a P4Runtime entity in one of the controller's tables,
/// even when its action is not the controller's (so the controller can
/// overwrite it instead of failing to insert over it).
pub fn key_from_proto(entity: &p4v1::Entity, bindings: &Bindings) -> Option<EntityKey> {
    match &entity.entity {
        Some(p4v1::entity::Entity::TableEntry(t)) if !t.is_default_action => {
            let table = bindings.table_kind(t.table_id)?;
            let key = table_key_from_proto(table, t, bindings).ok()?;
            Some(EntityKey::Table(table, key))
        }
        Some(p4v1::entity::Entity::PacketReplicationEngineEntry(
            p4v1::PacketReplicationEngineEntry {
                r#type: Some(p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(g)),
            },
        )) => u16::try_from(g.multicast_group_id)
            .ok()
            .map(EntityKey::Group),
        _ => None,
    }
}

fn table_key_from_proto(
    table: TableKind,
    t: &p4v1::TableEntry,
    bindings: &Bindings,
) -> Result<Vec<u64>, String> {
    let binding = bindings
        .table(table)
        .ok_or_else(|| format!("the program has no table for {table:?}"))?;
    let spec = &binding.spec;
    let mut key = Vec::with_capacity(binding.match_ids.len());
    for (i, &field_id) in binding.match_ids.iter().enumerate() {
        let m = t
            .r#match
            .iter()
            .find(|m| m.field_id == field_id)
            .ok_or_else(|| format!("{}: entry without key field {field_id}", spec.name))?;
        let Some(p4v1::field_match::FieldMatchType::Exact(exact)) = &m.field_match_type else {
            return Err(format!("{}: key field {field_id} is not exact", spec.name));
        };
        key.push(
            decode_value(&exact.value, spec.key[i].1).map_err(|e| format!("{}: {e}", spec.name))?,
        );
    }
    Ok(key)
}

fn table_entry_from_proto(
    table: TableKind,
    t: &p4v1::TableEntry,
    bindings: &Bindings,
) -> Result<TableEntry, String> {
    let binding = bindings
        .table(table)
        .ok_or_else(|| format!("the program has no table for {table:?}"))?;
    let spec = &binding.spec;
    let key = table_key_from_proto(table, t, bindings)?;
    let action = match t.action.as_ref().and_then(|a| a.r#type.as_ref()) {
        Some(p4v1::table_action::Type::Action(a)) => a,
        _ => return Err(format!("{}: entry without a direct action", spec.name)),
    };
    if action.action_id != binding.action_id {
        return Err(format!(
            "{}: entry with action id {} instead of {}",
            spec.name, action.action_id, spec.action
        ));
    }
    let mut params = Vec::with_capacity(binding.param_ids.len());
    for (i, &param_id) in binding.param_ids.iter().enumerate() {
        let p = action
            .params
            .iter()
            .find(|p| p.param_id == param_id)
            .ok_or_else(|| {
                format!(
                    "{}: action without parameter {}",
                    spec.name, spec.params[i].0
                )
            })?;
        params.push(
            decode_value(&p.value, spec.params[i].1).map_err(|e| format!("{}: {e}", spec.name))?,
        );
    }
    TableEntry::from_values(table, &key, &params)
}

#[allow(deprecated)] // `egress_port`: what BMv2's P4Runtime server understands.
fn group_proto(group: &MulticastGroup) -> p4v1::PacketReplicationEngineEntry {
    let replicas = group
        .ports
        .iter()
        .map(|&port| p4v1::Replica {
            port_kind: Some(p4v1::replica::PortKind::EgressPort(port.into())),
            instance: 0,
            backup_replicas: vec![],
        })
        .collect();
    p4v1::PacketReplicationEngineEntry {
        r#type: Some(
            p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(
                p4v1::MulticastGroupEntry {
                    multicast_group_id: group.group.into(),
                    replicas,
                    metadata: vec![],
                },
            ),
        ),
    }
}

#[allow(deprecated)]
fn group_from_proto(g: &p4v1::MulticastGroupEntry) -> Result<MulticastGroup, String> {
    let group = u16::try_from(g.multicast_group_id)
        .map_err(|_| format!("multicast group {} out of range", g.multicast_group_id))?;
    let mut ports = BTreeSet::new();
    for r in &g.replicas {
        let port = match &r.port_kind {
            Some(p4v1::replica::PortKind::EgressPort(p)) => u64::from(*p),
            Some(p4v1::replica::PortKind::Port(bytes)) => decode_value(bytes, 9)?,
            None => return Err(format!("multicast group {group}: replica without a port")),
        };
        ports.insert(u16::try_from(port).map_err(|_| format!("port {port} out of range"))?);
    }
    Ok(MulticastGroup { group, ports })
}

/// The entity that identifies a whole table (or every multicast group) in a
/// wildcard Read.
pub fn wildcard_table(table_id: u32) -> p4v1::Entity {
    p4v1::Entity {
        entity: Some(p4v1::entity::Entity::TableEntry(p4v1::TableEntry {
            table_id,
            ..Default::default()
        })),
    }
}

/// Wildcard Read of every multicast group.
pub fn wildcard_groups() -> p4v1::Entity {
    p4v1::Entity {
        entity: Some(p4v1::entity::Entity::PacketReplicationEngineEntry(
            p4v1::PacketReplicationEngineEntry {
                r#type: Some(
                    p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(
                        p4v1::MulticastGroupEntry::default(),
                    ),
                ),
            },
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_values() {
        assert_eq!(encode_value(0), vec![0]);
        assert_eq!(encode_value(0x1ff), vec![1, 0xff]);
        assert_eq!(decode_value(&[0, 0, 1, 0xff], 9), Ok(0x1ff));
        assert_eq!(decode_value(&[], 9), Ok(0));
        assert!(decode_value(&[2, 0], 9).is_err());
        assert!(decode_value(&[1; 9], 64).is_err());
    }
}
