//! Typed table entries and multicast groups: one Rust type per table key and
//! per action, bound to the P4 names of `p4/include/*.p4` (v1model) and
//! `p4/tna/esa.p4` (Tofino) here and nowhere else.
//!
//! [`TableKind::spec`] lists every table, key width, action and parameter
//! the controller writes; [`crate::pipeline::Bindings`] resolves them to
//! P4Info ids once, and [`Entity::to_proto`] / [`Entity::from_proto`] are the
//! only places where entries meet protobuf.

use std::collections::BTreeSet;

use esa_core::pool::Mode;
use esa_core::wire::{Ipv4Addr, MacAddr};
use p4runtime_proto::p4::v1 as p4v1;

use crate::pipeline::Bindings;

/// Which of the ESA programs the switch runs, from its P4Info's
/// `pkg_info.arch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// `p4/v1model/esa.p4` (esa-switch, BMv2).
    V1model,
    /// `p4/tna/esa.p4` (Tofino 1, or p4sim's TNA).
    Tna,
}

impl Arch {
    /// The program's architecture: `tna` for the Tofino program, v1model
    /// otherwise.
    pub fn of(p4info: &p4runtime_proto::p4::config::v1::P4Info) -> Arch {
        match p4info.pkg_info.as_ref().map(|p| p.arch.as_str()) {
            Some("tna") => Arch::Tna,
            _ => Arch::V1model,
        }
    }
}

/// The tables the controller programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableKind {
    /// `EsaIngress.admission.jobs`: job id → `set_job`.
    Jobs,
    /// `EsaIngress.admission.job_ports`: (job, ingress port) → `allow`.
    JobPorts,
    /// `EsaIngress.aggregation.job_route`: job id → `set_route`.
    JobRoute,
    /// `EsaEgress.egress_host`: egress port → `set_host`.
    EgressHost,
    /// `EsaIngress.l2.l2`: destination MAC → `forward`.
    L2,
    /// TNA only, `EsaIngress.job_ids`: job id → `known` (tells an unknown
    /// job from a slot outside its range, which `jobs` matches).
    JobIds,
}

/// The P4 names and widths of one table and the one action the controller
/// writes into it.
#[derive(Debug, Clone, Copy)]
pub struct TableSpec {
    /// Fully qualified table name.
    pub name: &'static str,
    /// Widths of the exact-match key fields, in key order.
    pub key_widths: &'static [u32],
    /// Fully qualified action name.
    pub action: &'static str,
    /// The action's parameters and widths, in declaration order.
    pub params: &'static [(&'static str, u32)],
    /// TNA `jobs`: one more key field, the 16-bit slot, ternary (value 0,
    /// mask `~slot_mask`), so entries carry a priority.
    pub ternary_slot: bool,
}

impl TableKind {
    /// Every table, in the order entries are written (jobs before the
    /// entries that refer to them).
    pub const ALL: [TableKind; 6] = [
        TableKind::L2,
        TableKind::EgressHost,
        TableKind::Jobs,
        TableKind::JobRoute,
        TableKind::JobPorts,
        TableKind::JobIds,
    ];

    /// The table's P4 names and widths in `arch`'s program; `None` when
    /// that program has no such table.
    pub const fn spec_for(self, arch: Arch) -> Option<TableSpec> {
        match arch {
            Arch::V1model => match self {
                TableKind::JobIds => None,
                _ => Some(self.spec()),
            },
            Arch::Tna => Some(match self {
                TableKind::Jobs => TableSpec {
                    name: "EsaIngress.jobs",
                    key_widths: &[12],
                    action: "EsaIngress.set_job",
                    params: &[
                        ("fan_in", 8),
                        ("mode", 2),
                        ("max_priority", 4),
                        ("mcast_group", 16),
                        ("ps_port", 9),
                        ("slot_base", 16),
                        ("slot_mask", 16),
                    ],
                    ternary_slot: true,
                },
                TableKind::JobPorts => TableSpec {
                    name: "EsaIngress.job_ports",
                    key_widths: &[12, 9],
                    action: "EsaIngress.allow",
                    params: &[],
                    ternary_slot: false,
                },
                TableKind::JobRoute => TableSpec {
                    name: "EsaIngress.job_route",
                    key_widths: &[12],
                    action: "EsaIngress.set_route",
                    params: &[
                        ("ps_port", 9),
                        ("fan_in", 8),
                        ("slot_base", 16),
                        ("slot_mask", 16),
                    ],
                    ternary_slot: false,
                },
                TableKind::EgressHost => TableSpec {
                    name: "EsaEgress.egress_host",
                    key_widths: &[9],
                    action: "EsaEgress.set_host",
                    params: &[("mac", 48), ("ip", 32)],
                    ternary_slot: false,
                },
                TableKind::L2 => TableSpec {
                    name: "EsaIngress.l2",
                    key_widths: &[48],
                    action: "EsaIngress.forward",
                    params: &[("port", 9)],
                    ternary_slot: false,
                },
                TableKind::JobIds => TableSpec {
                    name: "EsaIngress.job_ids",
                    key_widths: &[12],
                    action: "EsaIngress.known",
                    params: &[],
                    ternary_slot: false,
                },
            }),
        }
    }

    /// The table's P4 names and widths in the v1model program (`JobIds`:
    /// the TNA program's).
    pub const fn spec(self) -> TableSpec {
        match self {
            TableKind::Jobs => TableSpec {
                name: "EsaIngress.admission.jobs",
                key_widths: &[12],
                action: "EsaIngress.admission.set_job",
                params: &[
                    ("fan_in", 8),
                    ("mode", 2),
                    ("max_priority", 4),
                    ("mcast_group", 16),
                    ("ps_port", 9),
                    ("slot_base", 16),
                    ("slot_mask", 16),
                ],
                ternary_slot: false,
            },
            TableKind::JobPorts => TableSpec {
                name: "EsaIngress.admission.job_ports",
                key_widths: &[12, 9],
                action: "EsaIngress.admission.allow",
                params: &[],
                ternary_slot: false,
            },
            TableKind::JobRoute => TableSpec {
                name: "EsaIngress.aggregation.job_route",
                key_widths: &[12],
                action: "EsaIngress.aggregation.set_route",
                params: &[
                    ("ps_port", 9),
                    ("fan_in", 8),
                    ("slot_base", 16),
                    ("slot_mask", 16),
                ],
                ternary_slot: false,
            },
            TableKind::EgressHost => TableSpec {
                name: "EsaEgress.egress_host",
                key_widths: &[9],
                action: "EsaEgress.set_host",
                params: &[("mac", 48), ("ip", 32)],
                ternary_slot: false,
            },
            TableKind::L2 => TableSpec {
                name: "EsaIngress.l2.l2",
                key_widths: &[48],
                action: "EsaIngress.l2.forward",
                params: &[("port", 9)],
                ternary_slot: false,
            },
            TableKind::JobIds => match self.spec_for(Arch::Tna) {
                Some(spec) => spec,
                None => unreachable!(),
            },
        }
    }

    /// Position in [`TableKind::ALL`] order of the spec list (stable index).
    pub(crate) const fn index(self) -> usize {
        match self {
            TableKind::L2 => 0,
            TableKind::EgressHost => 1,
            TableKind::Jobs => 2,
            TableKind::JobRoute => 3,
            TableKind::JobPorts => 4,
            TableKind::JobIds => 5,
        }
    }
}

/// Key of `jobs` and `job_route`: the job id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobKey {
    /// 1..=4095.
    pub job: u16,
}

/// Action `set_job` of the job table (docs/protocol.md §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SetJob {
    /// Number of workers.
    pub fan_in: u8,
    /// Sharing mode.
    pub mode: Mode,
    /// Highest priority the job may use.
    pub max_priority: u8,
    /// The job's multicast group.
    pub mcast_group: u16,
    /// Port of the job's PS.
    pub ps_port: u16,
    /// First slot of the job's range.
    pub slot_base: u16,
    /// Slots are `slot_base ..= slot_base + slot_mask`.
    pub slot_mask: u16,
}

/// Key of `job_ports`: a port allowed to send for a job (action `allow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobPortKey {
    /// The job.
    pub job: u16,
    /// The ingress port.
    pub port: u16,
}

/// Action `set_route` of `job_route`: where a job's evicted partials go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SetRoute {
    /// Port of the job's PS.
    pub ps_port: u16,
    /// Number of workers.
    pub fan_in: u8,
    /// First slot of the job's range.
    pub slot_base: u16,
    /// Range mask.
    pub slot_mask: u16,
}

/// Key of `egress_host`: an egress port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortKey {
    /// The port.
    pub port: u16,
}

/// Action `set_host` of `egress_host`: the host behind the port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SetHost {
    /// Its MAC address.
    pub mac: MacAddr,
    /// Its IPv4 address.
    pub ip: Ipv4Addr,
}

/// Key of `l2`: a destination MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MacKey {
    /// The address.
    pub mac: MacAddr,
}

/// Action `forward` of `l2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Forward {
    /// The egress port.
    pub port: u16,
}

/// One entry of a table the controller programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableEntry {
    /// `jobs`.
    Job(JobKey, SetJob),
    /// `job_ports` (action `allow`).
    JobPort(JobPortKey),
    /// `job_route`.
    JobRoute(JobKey, SetRoute),
    /// `egress_host`.
    EgressHost(PortKey, SetHost),
    /// `l2`.
    L2(MacKey, Forward),
    /// TNA `job_ids` (action `known`).
    JobId(JobKey),
}

/// A multicast group of the packet replication engine, one replica
/// (instance 0) per port.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MulticastGroup {
    /// Group id.
    pub group: u16,
    /// Member ports.
    pub ports: BTreeSet<u16>,
}

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

fn mac_u64(mac: MacAddr) -> u64 {
    mac.0.iter().fold(0, |a, x| a << 8 | u64::from(*x))
}

fn u64_mac(v: u64) -> MacAddr {
    let b = v.to_be_bytes();
    MacAddr([b[2], b[3], b[4], b[5], b[6], b[7]])
}

fn narrow<T: TryFrom<u64>>(v: u64, what: &str) -> Result<T, String> {
    T::try_from(v).map_err(|_| format!("{what} {v} out of range"))
}

impl TableEntry {
    /// The entry's table.
    pub const fn table(&self) -> TableKind {
        match self {
            TableEntry::Job(..) => TableKind::Jobs,
            TableEntry::JobPort(_) => TableKind::JobPorts,
            TableEntry::JobRoute(..) => TableKind::JobRoute,
            TableEntry::EgressHost(..) => TableKind::EgressHost,
            TableEntry::L2(..) => TableKind::L2,
            TableEntry::JobId(_) => TableKind::JobIds,
        }
    }

    /// Key field values, in [`TableSpec::key_widths`] order.
    pub fn key_values(&self) -> Vec<u64> {
        match *self {
            TableEntry::Job(k, _) | TableEntry::JobRoute(k, _) | TableEntry::JobId(k) => {
                vec![k.job.into()]
            }
            TableEntry::JobPort(k) => vec![k.job.into(), k.port.into()],
            TableEntry::EgressHost(k, _) => vec![k.port.into()],
            TableEntry::L2(k, _) => vec![mac_u64(k.mac)],
        }
    }

    /// Action parameter values, in [`TableSpec::params`] order.
    pub fn param_values(&self) -> Vec<u64> {
        match *self {
            TableEntry::Job(_, a) => vec![
                a.fan_in.into(),
                a.mode.code().into(),
                a.max_priority.into(),
                a.mcast_group.into(),
                a.ps_port.into(),
                a.slot_base.into(),
                a.slot_mask.into(),
            ],
            TableEntry::JobPort(_) | TableEntry::JobId(_) => vec![],
            TableEntry::JobRoute(_, a) => vec![
                a.ps_port.into(),
                a.fan_in.into(),
                a.slot_base.into(),
                a.slot_mask.into(),
            ],
            TableEntry::EgressHost(_, a) => {
                vec![mac_u64(a.mac), u32::from_be_bytes(a.ip.0).into()]
            }
            TableEntry::L2(_, a) => vec![a.port.into()],
        }
    }

    /// Rebuilds an entry from its values (lengths as in the table's spec).
    pub fn from_values(
        table: TableKind,
        key: &[u64],
        params: &[u64],
    ) -> Result<TableEntry, String> {
        let spec = table.spec();
        if key.len() != spec.key_widths.len() || params.len() != spec.params.len() {
            return Err(format!("{}: wrong number of fields", spec.name));
        }
        Ok(match table {
            TableKind::Jobs => TableEntry::Job(
                JobKey {
                    job: narrow(key[0], "job")?,
                },
                SetJob {
                    fan_in: narrow(params[0], "fan_in")?,
                    mode: mode_from_code(params[1])?,
                    max_priority: narrow(params[2], "max_priority")?,
                    mcast_group: narrow(params[3], "mcast_group")?,
                    ps_port: narrow(params[4], "ps_port")?,
                    slot_base: narrow(params[5], "slot_base")?,
                    slot_mask: narrow(params[6], "slot_mask")?,
                },
            ),
            TableKind::JobPorts => TableEntry::JobPort(JobPortKey {
                job: narrow(key[0], "job")?,
                port: narrow(key[1], "port")?,
            }),
            TableKind::JobRoute => TableEntry::JobRoute(
                JobKey {
                    job: narrow(key[0], "job")?,
                },
                SetRoute {
                    ps_port: narrow(params[0], "ps_port")?,
                    fan_in: narrow(params[1], "fan_in")?,
                    slot_base: narrow(params[2], "slot_base")?,
                    slot_mask: narrow(params[3], "slot_mask")?,
                },
            ),
            TableKind::EgressHost => TableEntry::EgressHost(
                PortKey {
                    port: narrow(key[0], "port")?,
                },
                SetHost {
                    mac: u64_mac(params[0]),
                    ip: Ipv4Addr(narrow::<u32>(params[1], "ip")?.to_be_bytes()),
                },
            ),
            TableKind::L2 => TableEntry::L2(
                MacKey {
                    mac: u64_mac(key[0]),
                },
                Forward {
                    port: narrow(params[0], "port")?,
                },
            ),
            TableKind::JobIds => TableEntry::JobId(JobKey {
                job: narrow(key[0], "job")?,
            }),
        })
    }
}

/// The mode for a `set_job` mode code.
pub fn mode_from_code(code: u64) -> Result<Mode, String> {
    [Mode::Esa, Mode::Atp, Mode::SwitchMl]
        .into_iter()
        .find(|m| u64::from(m.code()) == code)
        .ok_or_else(|| format!("unknown mode code {code}"))
}

/// The canonical P4Runtime byte string of `value`: big-endian, no leading
/// zero bytes, at least one byte.
pub fn encode_value(value: u64) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(7);
    bytes[first..].to_vec()
}

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
            decode_value(&exact.value, spec.key_widths[i])
                .map_err(|e| format!("{}: {e}", spec.name))?,
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
    let group = narrow(g.multicast_group_id.into(), "multicast group")?;
    let mut ports = BTreeSet::new();
    for r in &g.replicas {
        let port = match &r.port_kind {
            Some(p4v1::replica::PortKind::EgressPort(p)) => u64::from(*p),
            Some(p4v1::replica::PortKind::Port(bytes)) => decode_value(bytes, 9)?,
            None => return Err(format!("multicast group {group}: replica without a port")),
        };
        ports.insert(narrow(port, "port")?);
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

    #[test]
    fn values_round_trip() {
        let entries = [
            TableEntry::Job(
                JobKey { job: 7 },
                SetJob {
                    fan_in: 3,
                    mode: Mode::SwitchMl,
                    max_priority: 9,
                    mcast_group: 7,
                    ps_port: 4,
                    slot_base: 64,
                    slot_mask: 63,
                },
            ),
            TableEntry::JobPort(JobPortKey {
                job: 4095,
                port: 511,
            }),
            TableEntry::EgressHost(
                PortKey { port: 3 },
                SetHost {
                    mac: MacAddr([2, 0, 0, 0, 0, 3]),
                    ip: Ipv4Addr([10, 0, 0, 3]),
                },
            ),
            TableEntry::L2(
                MacKey {
                    mac: MacAddr([0xff, 1, 2, 3, 4, 5]),
                },
                Forward { port: 0 },
            ),
        ];
        for e in entries {
            let back = TableEntry::from_values(e.table(), &e.key_values(), &e.param_values());
            assert_eq!(back, Ok(e));
        }
    }
}
