//! P4Runtime entities on a p4sim [`V1Switch`]: the translation of
//! `Write` updates and `Read` queries into p4sim's control-plane API, with
//! the validation and error codes the P4Runtime specification asks for.
//!
//! Everything here is synchronous and holds no lock; the server wraps a
//! [`Device`] in a mutex shared with the packet thread.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use p4runtime_proto::bytestring;
use p4runtime_proto::p4::v1;
use p4runtime_proto::p4::v1::{entity, field_match, p4_data, packet_replication_engine_entry};
use p4runtime_proto::prost::Message;
use p4runtime_proto::tonic::Code;
use p4sim::exec::bits::{BitType, Bits};
use p4sim::v1switch::pre::NodeHandle;
use p4sim::v1switch::{EntryHandle, MatchValue, OutputPacket, RuntimeError, V1Switch};

use crate::codec::{self, ValueError};
use crate::program::{Program, TableInfo};
use p4sim::p4info::{ActionScope, MatchType};

/// Why one update or read failed: a canonical gRPC code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateError {
    /// The canonical code.
    pub code: Code,
    /// What was wrong.
    pub message: String,
}

impl UpdateError {
    /// An error with this code.
    pub fn new(code: Code, message: impl Into<String>) -> UpdateError {
        UpdateError {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for UpdateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

type Result<T> = std::result::Result<T, UpdateError>;

fn invalid(message: impl Into<String>) -> UpdateError {
    UpdateError::new(Code::InvalidArgument, message)
}

fn not_found(message: impl Into<String>) -> UpdateError {
    UpdateError::new(Code::NotFound, message)
}

fn unimplemented(message: impl Into<String>) -> UpdateError {
    UpdateError::new(Code::Unimplemented, message)
}

fn value_error(what: &str, e: ValueError) -> UpdateError {
    match e {
        ValueError::Empty => invalid(format!("{what}: empty bytestring")),
        ValueError::TooWide { .. } => UpdateError::new(Code::OutOfRange, format!("{what}: {e}")),
    }
}

fn runtime_error(e: RuntimeError) -> UpdateError {
    let code = match &e {
        RuntimeError::DuplicateEntry { .. } => Code::AlreadyExists,
        RuntimeError::NoSuchEntry { .. } => Code::NotFound,
        RuntimeError::TableFull(_) => Code::ResourceExhausted,
        RuntimeError::TooWide { .. } | RuntimeError::IndexOutOfRange { .. } => Code::OutOfRange,
        RuntimeError::Const(..) => Code::PermissionDenied,
        RuntimeError::Pre(p4sim::v1switch::pre::PreError::GroupTableFull(_))
        | RuntimeError::Pre(p4sim::v1switch::pre::PreError::NodeTableFull(_)) => {
            Code::ResourceExhausted
        }
        _ => Code::InvalidArgument,
    };
    UpdateError::new(code, e.to_string())
}

/// An entry the control plane installed.
#[derive(Debug, Clone)]
struct Stored {
    handle: EntryHandle,
    /// The entry in canonical form, as a read returns it.
    entry: v1::TableEntry,
}

/// A multicast group or clone session and the PRE nodes that make it.
#[derive(Debug, Clone)]
struct Group<T> {
    entry: T,
    nodes: Vec<NodeHandle>,
}

/// Clone sessions with several replicas use a multicast group of their own,
/// numbered above the 16 bits of v1model's `mcast_grp` so the program can
/// never name it.
const CLONE_GROUP_BASE: u32 = 1 << 20;

/// A switch running a program, with the P4Runtime view of its state.
#[derive(Debug)]
pub struct Device {
    program: Arc<Program>,
    switch: V1Switch,
    /// Entries per table id, by encoded key (match and priority).
    entries: HashMap<u32, BTreeMap<Vec<u8>, Stored>>,
    /// Default entries the control plane set, by table id.
    defaults: HashMap<u32, v1::TableEntry>,
    groups: BTreeMap<u32, Group<v1::MulticastGroupEntry>>,
    clones: BTreeMap<u32, Group<v1::CloneSessionEntry>>,
}

/// An action call checked: p4sim's action name and arguments, and the
/// canonical form.
type CheckedAction = (String, Vec<(String, Bits)>, v1::Action);

/// A table entry taken apart: what p4sim needs, and the canonical form.
struct Parsed {
    key: Vec<u8>,
    matches: Vec<MatchValue>,
    canonical: v1::TableEntry,
}

impl Device {
    /// A fresh switch running `program`: empty tables, zeroed state. When
    /// the program is one `esa_p4` generated Rust for (esa.p4 at its
    /// built configurations), that code runs it; anything else runs on
    /// p4sim's closure engine, with the same results.
    pub fn new(program: Arc<Program>) -> Device {
        esa_p4::register();
        let switch = V1Switch::new(program.compiled.clone());
        tracing::debug!(engine = ?switch.engine(), "pipeline ready");
        Device {
            program,
            switch,
            entries: HashMap::new(),
            defaults: HashMap::new(),
            groups: BTreeMap::new(),
            clones: BTreeMap::new(),
        }
    }

    /// The program.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The p4sim switch (for tests and tools that bypass P4Runtime).
    pub fn switch_mut(&mut self) -> &mut V1Switch {
        &mut self.switch
    }

    /// Runs one packet through the pipeline at time `now_us`, appending
    /// the packets it sends to `out`.
    pub fn process(&mut self, now_us: u64, port: u16, data: &[u8], out: &mut Vec<OutputPacket>) {
        self.switch.set_time_us(now_us);
        self.switch.process_append(port, data, out);
    }

    /// As [`Device::process`], the packets sent taking their buffers from
    /// `spare` rather than being copied into new ones
    /// ([`V1Switch::process_append_reusing`]).
    pub fn process_reusing(
        &mut self,
        now_us: u64,
        port: u16,
        data: &[u8],
        out: &mut Vec<OutputPacket>,
        spare: &mut Vec<Vec<u8>>,
    ) {
        self.switch.set_time_us(now_us);
        self.switch.process_append_reusing(port, data, out, spare);
    }

    /// Applies one update of a `Write`.
    pub fn write(&mut self, kind: v1::update::Type, entity: &v1::Entity) -> Result<()> {
        use v1::update::Type;
        if kind == Type::Unspecified {
            return Err(invalid("update type is UNSPECIFIED"));
        }
        match &entity.entity {
            None => Err(invalid("update without an entity")),
            Some(entity::Entity::TableEntry(t)) => {
                if t.is_default_action {
                    self.write_default(kind, t)
                } else {
                    self.write_entry(kind, t)
                }
            }
            Some(entity::Entity::PacketReplicationEngineEntry(p)) => match &p.r#type {
                Some(packet_replication_engine_entry::Type::MulticastGroupEntry(g)) => {
                    self.write_group(kind, g)
                }
                Some(packet_replication_engine_entry::Type::CloneSessionEntry(c)) => {
                    self.write_clone(kind, c)
                }
                None => Err(invalid("PacketReplicationEngineEntry without a type")),
            },
            Some(entity::Entity::CounterEntry(c)) => self.write_counter(kind, c),
            Some(entity::Entity::DirectCounterEntry(c)) => self.write_direct_counter(kind, c),
            Some(entity::Entity::RegisterEntry(r)) => self.write_register(kind, r),
            Some(other) => Err(unimplemented(format!(
                "{} is not supported by esa-switch",
                entity_name(other)
            ))),
        }
    }

    /// Answers one entity of a `Read` (wildcards expanded).
    pub fn read(&mut self, entity: &v1::Entity) -> Result<Vec<v1::Entity>> {
        let wrap = |e: entity::Entity| v1::Entity { entity: Some(e) };
        match &entity.entity {
            None => Err(invalid("read of an empty entity")),
            Some(entity::Entity::TableEntry(t)) => Ok(self
                .read_entries(t)?
                .into_iter()
                .map(|t| wrap(entity::Entity::TableEntry(t)))
                .collect()),
            Some(entity::Entity::PacketReplicationEngineEntry(p)) => {
                use packet_replication_engine_entry::Type;
                let pre = |t: Type| {
                    wrap(entity::Entity::PacketReplicationEngineEntry(
                        v1::PacketReplicationEngineEntry { r#type: Some(t) },
                    ))
                };
                match &p.r#type {
                    Some(Type::MulticastGroupEntry(g)) => Ok(self
                        .groups
                        .iter()
                        .filter(|(id, _)| g.multicast_group_id == 0 || **id == g.multicast_group_id)
                        .map(|(_, g)| pre(Type::MulticastGroupEntry(g.entry.clone())))
                        .collect()),
                    Some(Type::CloneSessionEntry(c)) => Ok(self
                        .clones
                        .iter()
                        .filter(|(id, _)| c.session_id == 0 || **id == c.session_id)
                        .map(|(_, c)| pre(Type::CloneSessionEntry(c.entry.clone())))
                        .collect()),
                    None => Err(invalid("PacketReplicationEngineEntry without a type")),
                }
            }
            Some(entity::Entity::CounterEntry(c)) => Ok(self
                .read_counters(c)?
                .into_iter()
                .map(|c| wrap(entity::Entity::CounterEntry(c)))
                .collect()),
            Some(entity::Entity::DirectCounterEntry(c)) => Ok(self
                .read_direct_counters(c)?
                .into_iter()
                .map(|c| wrap(entity::Entity::DirectCounterEntry(c)))
                .collect()),
            Some(entity::Entity::RegisterEntry(r)) => Ok(self
                .read_registers(r)?
                .into_iter()
                .map(|r| wrap(entity::Entity::RegisterEntry(r)))
                .collect()),
            Some(other) => Err(unimplemented(format!(
                "{} is not supported by esa-switch",
                entity_name(other)
            ))),
        }
    }

    // ---- tables ------------------------------------------------------

    fn table(&self, id: u32) -> Result<&TableInfo> {
        self.program
            .tables
            .get(&id)
            .ok_or_else(|| not_found(format!("no table with id {id}")))
    }

    /// Validates the match of an entry and returns p4sim's values, the
    /// canonical field matches and the key under which it is stored.
    fn parse_match(&self, t: &v1::TableEntry) -> Result<Parsed> {
        let table = self.table(t.table_id)?;
        let mut given: BTreeMap<u32, &v1::FieldMatch> = BTreeMap::new();
        for m in &t.r#match {
            if !table.fields.iter().any(|f| f.id == m.field_id) {
                return Err(invalid(format!(
                    "table `{}` has no match field with id {}",
                    table.name, m.field_id
                )));
            }
            if given.insert(m.field_id, m).is_some() {
                return Err(invalid(format!(
                    "match field id {} given twice",
                    m.field_id
                )));
            }
        }
        let mut matches = Vec::new();
        let mut canonical = Vec::new();
        for f in &table.fields {
            let what = format!("match field `{}`", f.name);
            let m = given.get(&f.id).and_then(|m| m.field_match_type.as_ref());
            let bits = |b: &[u8]| codec::to_bits(b, f.bitwidth).map_err(|e| value_error(&what, e));
            let canon = |b: &[u8]| codec::check(b, f.bitwidth).map_err(|e| value_error(&what, e));
            let zero = || Bits::zero(BitType::unsigned(f.bitwidth.max(1)).unwrap_or(BitType::BIT1));
            use field_match::FieldMatchType as M;
            let (value, kept) = match (&f.match_type, m) {
                (MatchType::Other(_), _) | (_, Some(M::Other(_))) => {
                    return Err(unimplemented(format!(
                        "{what}: match kinds other than exact, lpm, ternary, range and optional"
                    )));
                }
                (MatchType::Exact, None) => {
                    return Err(invalid(format!("{what} is exact and cannot be omitted")));
                }
                (MatchType::Exact, Some(M::Exact(e))) => (
                    MatchValue::Exact(bits(&e.value)?),
                    Some(M::Exact(field_match::Exact {
                        value: canon(&e.value)?,
                    })),
                ),
                (MatchType::Lpm, None) => (MatchValue::Lpm(zero(), 0), None),
                (MatchType::Lpm, Some(M::Lpm(l))) => {
                    let len = u32::try_from(l.prefix_len).unwrap_or(u32::MAX);
                    if len == 0 {
                        return Err(invalid(format!(
                            "{what}: a prefix length of 0 must be sent as an omitted field"
                        )));
                    }
                    if len > f.bitwidth {
                        return Err(invalid(format!(
                            "{what}: prefix length {} exceeds the width {}",
                            l.prefix_len, f.bitwidth
                        )));
                    }
                    let value = canon(&l.value)?;
                    if codec::cmp(
                        &codec::and(&value, &codec::prefix_mask(f.bitwidth, len)),
                        &value,
                    ) != std::cmp::Ordering::Equal
                    {
                        return Err(invalid(format!(
                            "{what}: value has bits set beyond the prefix length {len}"
                        )));
                    }
                    (
                        MatchValue::Lpm(bits(&value)?, len),
                        Some(M::Lpm(field_match::Lpm {
                            value,
                            prefix_len: l.prefix_len,
                        })),
                    )
                }
                (MatchType::Ternary, None) => (MatchValue::Ternary(zero(), zero()), None),
                (MatchType::Ternary, Some(M::Ternary(x))) => {
                    let value = canon(&x.value)?;
                    let mask = canon(&x.mask)?;
                    if mask == [0] {
                        return Err(invalid(format!(
                            "{what}: an all-zero mask must be sent as an omitted field"
                        )));
                    }
                    if codec::cmp(&codec::and(&value, &mask), &value) != std::cmp::Ordering::Equal {
                        return Err(invalid(format!("{what}: value has bits outside the mask")));
                    }
                    (
                        MatchValue::Ternary(bits(&value)?, bits(&mask)?),
                        Some(M::Ternary(field_match::Ternary { value, mask })),
                    )
                }
                (MatchType::Range, None) => (
                    MatchValue::Range(zero(), bits(&codec::ones(f.bitwidth))?),
                    None,
                ),
                (MatchType::Range, Some(M::Range(r))) => {
                    let low = canon(&r.low)?;
                    let high = canon(&r.high)?;
                    if codec::cmp(&low, &high) == std::cmp::Ordering::Greater {
                        return Err(invalid(format!("{what}: low is above high")));
                    }
                    if low == [0] && high == codec::ones(f.bitwidth) {
                        return Err(invalid(format!(
                            "{what}: a full range must be sent as an omitted field"
                        )));
                    }
                    (
                        MatchValue::Range(bits(&low)?, bits(&high)?),
                        Some(M::Range(field_match::Range { low, high })),
                    )
                }
                (MatchType::Optional, None) => (MatchValue::Optional(None), None),
                (MatchType::Optional, Some(M::Optional(o))) => (
                    MatchValue::Optional(Some(bits(&o.value)?)),
                    Some(M::Optional(field_match::Optional {
                        value: canon(&o.value)?,
                    })),
                ),
                (kind, Some(_)) => {
                    return Err(invalid(format!(
                        "{what} is {kind:?}; the value given is of another kind"
                    )));
                }
            };
            matches.push(value);
            if let Some(kept) = kept {
                canonical.push(v1::FieldMatch {
                    field_id: f.id,
                    field_match_type: Some(kept),
                });
            }
        }
        if table.needs_priority && t.priority <= 0 {
            return Err(invalid(format!(
                "table `{}` has ternary, range or optional fields: entries need a priority > 0",
                table.name
            )));
        }
        if !table.needs_priority && t.priority != 0 {
            return Err(invalid(format!(
                "table `{}` has only exact and lpm fields: the priority must be 0",
                table.name
            )));
        }
        let key = v1::TableEntry {
            table_id: t.table_id,
            r#match: canonical.clone(),
            priority: t.priority,
            ..Default::default()
        }
        .encode_to_vec();
        Ok(Parsed {
            key,
            matches,
            canonical: v1::TableEntry {
                table_id: t.table_id,
                r#match: canonical,
                priority: t.priority,
                ..Default::default()
            },
        })
    }

    /// Validates an action call: returns p4sim's action name and arguments
    /// and the canonical form.
    fn parse_action(
        &self,
        table: &TableInfo,
        action: Option<&v1::TableAction>,
        for_default: bool,
    ) -> Result<CheckedAction> {
        let a = match action.and_then(|a| a.r#type.as_ref()) {
            Some(v1::table_action::Type::Action(a)) => a,
            Some(_) => {
                return Err(unimplemented(
                    "action profiles (members, groups, action sets) are not supported",
                ));
            }
            None => return Err(invalid("the entry has no action")),
        };
        let scope = table.actions.get(&a.action_id).ok_or_else(|| {
            invalid(format!(
                "action id {} is not an action of table `{}`",
                a.action_id, table.name
            ))
        })?;
        match (scope, for_default) {
            (ActionScope::DefaultOnly, false) => {
                return Err(invalid("this action is @defaultonly in this table"));
            }
            (ActionScope::TableOnly, true) => {
                return Err(invalid("this action is @tableonly in this table"));
            }
            _ => {}
        }
        let info = self
            .program
            .actions
            .get(&a.action_id)
            .ok_or_else(|| not_found(format!("no action with id {}", a.action_id)))?;
        let mut args = Vec::new();
        let mut params = Vec::new();
        for p in &info.params {
            let given: Vec<_> = a.params.iter().filter(|x| x.param_id == p.id).collect();
            let value = match given.as_slice() {
                [one] => &one.value,
                [] => {
                    return Err(invalid(format!(
                        "action `{}`: parameter `{}` (id {}) is missing",
                        info.preamble.name, p.name, p.id
                    )));
                }
                _ => {
                    return Err(invalid(format!(
                        "action `{}`: parameter id {} given twice",
                        info.preamble.name, p.id
                    )));
                }
            };
            let what = format!("action `{}` parameter `{}`", info.preamble.name, p.name);
            let canon = codec::check(value, p.bitwidth).map_err(|e| value_error(&what, e))?;
            args.push((
                p.name.clone(),
                codec::to_bits(&canon, p.bitwidth).map_err(|e| value_error(&what, e))?,
            ));
            params.push(v1::action::Param {
                param_id: p.id,
                value: canon,
            });
        }
        if let Some(extra) = a
            .params
            .iter()
            .find(|x| !info.params.iter().any(|p| p.id == x.param_id))
        {
            return Err(invalid(format!(
                "action `{}` has no parameter with id {}",
                info.preamble.name, extra.param_id
            )));
        }
        Ok((
            info.preamble.name.clone(),
            args,
            v1::Action {
                action_id: a.action_id,
                params,
            },
        ))
    }

    fn write_entry(&mut self, kind: v1::update::Type, t: &v1::TableEntry) -> Result<()> {
        use v1::update::Type;
        let program = self.program.clone();
        let table = program
            .tables
            .get(&t.table_id)
            .ok_or_else(|| not_found(format!("no table with id {}", t.table_id)))?;
        if table.is_const {
            return Err(UpdateError::new(
                Code::PermissionDenied,
                format!("table `{}` has const entries", table.name),
            ));
        }
        if t.meter_config.is_some() || t.meter_counter_data.is_some() {
            return Err(unimplemented("meters are not supported"));
        }
        if t.idle_timeout_ns != 0 {
            return Err(unimplemented("idle timeouts are not supported"));
        }
        let parsed = self.parse_match(t)?;
        let stored = self.entries.entry(t.table_id).or_default();
        match kind {
            Type::Insert => {
                if stored.contains_key(&parsed.key) {
                    return Err(UpdateError::new(
                        Code::AlreadyExists,
                        format!(
                            "table `{}` already has an entry with this match",
                            table.name
                        ),
                    ));
                }
                let (action, args, canonical_action) =
                    self.parse_action(table, t.action.as_ref(), false)?;
                let handle = self
                    .switch
                    .table_add(
                        &table.name,
                        p4sim::v1switch::TableEntry {
                            matches: parsed.matches,
                            priority: Some(t.priority),
                            action,
                            args,
                        },
                    )
                    .map_err(runtime_error)?;
                let mut entry = parsed.canonical;
                entry.action = Some(v1::TableAction {
                    r#type: Some(v1::table_action::Type::Action(canonical_action)),
                });
                entry.metadata = t.metadata.clone();
                #[allow(deprecated)]
                {
                    entry.controller_metadata = t.controller_metadata;
                }
                if let (Some(data), Some((_, counter))) = (&t.counter_data, &table.direct_counter) {
                    let _ = self.switch.counter_write(
                        counter,
                        u64::from(handle.0),
                        data.packet_count.max(0) as u64,
                        data.byte_count.max(0) as u64,
                    );
                }
                self.entries
                    .entry(t.table_id)
                    .or_default()
                    .insert(parsed.key, Stored { handle, entry });
                Ok(())
            }
            Type::Modify => {
                let handle = stored.get(&parsed.key).map(|s| s.handle).ok_or_else(|| {
                    not_found(format!("table `{}` has no such entry", table.name))
                })?;
                let (action, args, canonical_action) =
                    self.parse_action(table, t.action.as_ref(), false)?;
                self.switch
                    .table_modify(&table.name, handle, &action, &args)
                    .map_err(runtime_error)?;
                if let (Some(data), Some((_, counter))) = (&t.counter_data, &table.direct_counter) {
                    let _ = self.switch.counter_write(
                        counter,
                        u64::from(handle.0),
                        data.packet_count.max(0) as u64,
                        data.byte_count.max(0) as u64,
                    );
                }
                if let Some(s) = self
                    .entries
                    .get_mut(&t.table_id)
                    .and_then(|m| m.get_mut(&parsed.key))
                {
                    s.entry.action = Some(v1::TableAction {
                        r#type: Some(v1::table_action::Type::Action(canonical_action)),
                    });
                    s.entry.metadata = t.metadata.clone();
                }
                Ok(())
            }
            Type::Delete => {
                let handle = stored.get(&parsed.key).map(|s| s.handle).ok_or_else(|| {
                    not_found(format!("table `{}` has no such entry", table.name))
                })?;
                self.switch
                    .table_delete(&table.name, handle)
                    .map_err(runtime_error)?;
                if let Some(m) = self.entries.get_mut(&t.table_id) {
                    m.remove(&parsed.key);
                }
                Ok(())
            }
            Type::Unspecified => Err(invalid("update type is UNSPECIFIED")),
        }
    }

    fn write_default(&mut self, kind: v1::update::Type, t: &v1::TableEntry) -> Result<()> {
        let program = self.program.clone();
        let table = program
            .tables
            .get(&t.table_id)
            .ok_or_else(|| not_found(format!("no table with id {}", t.table_id)))?;
        if kind != v1::update::Type::Modify {
            return Err(invalid(
                "a default entry can only be modified (INSERT and DELETE are not allowed)",
            ));
        }
        if !t.r#match.is_empty() || t.priority != 0 {
            return Err(invalid("a default entry has no match and no priority"));
        }
        if table.const_default_action_id != 0 {
            return Err(UpdateError::new(
                Code::PermissionDenied,
                format!("table `{}` has a const default action", table.name),
            ));
        }
        if t.action.is_none() {
            // Reset to the program's default action.
            let initial = table.initial_default.clone();
            if let Some(call) = initial {
                let action = v1::TableAction {
                    r#type: Some(v1::table_action::Type::Action(v1::Action {
                        action_id: call.action_id,
                        params: call
                            .arguments
                            .iter()
                            .map(|(param_id, value)| v1::action::Param {
                                param_id: *param_id,
                                value: value.clone(),
                            })
                            .collect(),
                    })),
                };
                let (name, args, _) = self.parse_action(table, Some(&action), true)?;
                self.switch
                    .table_set_default(&table.name, &name, &args)
                    .map_err(runtime_error)?;
            }
            self.defaults.remove(&t.table_id);
            return Ok(());
        }
        let (name, args, canonical_action) = self.parse_action(table, t.action.as_ref(), true)?;
        self.switch
            .table_set_default(&table.name, &name, &args)
            .map_err(runtime_error)?;
        self.defaults.insert(
            t.table_id,
            v1::TableEntry {
                table_id: t.table_id,
                action: Some(v1::TableAction {
                    r#type: Some(v1::table_action::Type::Action(canonical_action)),
                }),
                is_default_action: true,
                ..Default::default()
            },
        );
        Ok(())
    }

    fn default_entry(&self, table_id: u32, table: &TableInfo) -> v1::TableEntry {
        if let Some(e) = self.defaults.get(&table_id) {
            return e.clone();
        }
        v1::TableEntry {
            table_id,
            action: table.initial_default.as_ref().map(|call| v1::TableAction {
                r#type: Some(v1::table_action::Type::Action(v1::Action {
                    action_id: call.action_id,
                    params: call
                        .arguments
                        .iter()
                        .map(|(param_id, value)| v1::action::Param {
                            param_id: *param_id,
                            value: bytestring::canonical(value),
                        })
                        .collect(),
                })),
            }),
            is_default_action: true,
            ..Default::default()
        }
    }

    fn direct_counter_data(
        &mut self,
        table: &TableInfo,
        handle: EntryHandle,
    ) -> Option<v1::CounterData> {
        let (_, name) = table.direct_counter.as_ref()?;
        let (packets, bytes) = self.switch.counter_read(name, u64::from(handle.0)).ok()?;
        Some(v1::CounterData {
            byte_count: i64::try_from(bytes).unwrap_or(i64::MAX),
            packet_count: i64::try_from(packets).unwrap_or(i64::MAX),
        })
    }

    fn read_entries(&mut self, t: &v1::TableEntry) -> Result<Vec<v1::TableEntry>> {
        let program = self.program.clone();
        let want_counters = t.counter_data.is_some();
        if t.is_default_action {
            let table = program
                .tables
                .get(&t.table_id)
                .ok_or_else(|| not_found(format!("no table with id {}", t.table_id)))?;
            return Ok(vec![self.default_entry(t.table_id, table)]);
        }
        let table_ids: Vec<u32> = if t.table_id == 0 {
            let mut ids: Vec<u32> = program.tables.keys().copied().collect();
            ids.sort_unstable();
            ids
        } else {
            self.table(t.table_id)?;
            vec![t.table_id]
        };
        // A read with a match names one entry.
        let only = if t.table_id != 0 && !t.r#match.is_empty() {
            Some(self.parse_match(t)?.key)
        } else {
            None
        };
        let mut out = Vec::new();
        for id in table_ids {
            let Some(table) = program.tables.get(&id) else {
                continue;
            };
            let stored: Vec<Stored> = match self.entries.get(&id) {
                None => continue,
                Some(m) => match &only {
                    Some(k) => m.get(k).cloned().into_iter().collect(),
                    None => m.values().cloned().collect(),
                },
            };
            for s in stored {
                let mut entry = s.entry;
                if want_counters {
                    entry.counter_data = self.direct_counter_data(table, s.handle);
                }
                out.push(entry);
            }
        }
        Ok(out)
    }

    fn find_entry(&self, t: &v1::TableEntry) -> Result<(TableInfo, EntryHandle, v1::TableEntry)> {
        let table = self.table(t.table_id)?.clone();
        let parsed = self.parse_match(t)?;
        let s = self
            .entries
            .get(&t.table_id)
            .and_then(|m| m.get(&parsed.key))
            .ok_or_else(|| not_found(format!("table `{}` has no such entry", table.name)))?;
        Ok((table, s.handle, s.entry.clone()))
    }

    // ---- counters and registers ----------------------------------------

    fn write_direct_counter(
        &mut self,
        kind: v1::update::Type,
        c: &v1::DirectCounterEntry,
    ) -> Result<()> {
        if kind != v1::update::Type::Modify {
            return Err(invalid("direct counter entries can only be modified"));
        }
        let t = c
            .table_entry
            .as_ref()
            .ok_or_else(|| invalid("DirectCounterEntry without a table entry"))?;
        let (table, handle, _) = self.find_entry(t)?;
        let (_, name) = table
            .direct_counter
            .as_ref()
            .ok_or_else(|| invalid(format!("table `{}` has no direct counter", table.name)))?;
        let data = c.data.unwrap_or_default();
        self.switch
            .counter_write(
                name,
                u64::from(handle.0),
                data.packet_count.max(0) as u64,
                data.byte_count.max(0) as u64,
            )
            .map_err(runtime_error)
    }

    fn read_direct_counters(
        &mut self,
        c: &v1::DirectCounterEntry,
    ) -> Result<Vec<v1::DirectCounterEntry>> {
        let t = c.table_entry.clone().unwrap_or_default();
        if t.table_id != 0 {
            let table = self.table(t.table_id)?;
            if table.direct_counter.is_none() {
                return Err(invalid(format!(
                    "table `{}` has no direct counter",
                    table.name
                )));
            }
        }
        let query = v1::TableEntry {
            counter_data: Some(v1::CounterData::default()),
            ..t
        };
        Ok(self
            .read_entries(&query)?
            .into_iter()
            .filter(|e| {
                self.program
                    .tables
                    .get(&e.table_id)
                    .is_some_and(|t| t.direct_counter.is_some())
            })
            .map(|mut e| {
                let data = e.counter_data.take();
                v1::DirectCounterEntry {
                    table_entry: Some(e),
                    data,
                }
            })
            .collect())
    }

    fn write_counter(&mut self, kind: v1::update::Type, c: &v1::CounterEntry) -> Result<()> {
        if kind != v1::update::Type::Modify {
            return Err(invalid("counter entries can only be modified"));
        }
        let info = self
            .program
            .counters
            .get(&c.counter_id)
            .ok_or_else(|| not_found(format!("no counter with id {}", c.counter_id)))?
            .clone();
        let data = c.data.unwrap_or_default();
        let indexes = indexes(c.index, info.size, &info.name)?;
        for i in indexes {
            self.switch
                .counter_write(
                    &info.name,
                    i,
                    data.packet_count.max(0) as u64,
                    data.byte_count.max(0) as u64,
                )
                .map_err(runtime_error)?;
        }
        Ok(())
    }

    fn read_counters(&mut self, c: &v1::CounterEntry) -> Result<Vec<v1::CounterEntry>> {
        let ids = selected_ids(&self.program.counters, c.counter_id, "counter")?;
        let program = self.program.clone();
        let mut out = Vec::new();
        for id in ids {
            let Some(info) = program.counters.get(&id) else {
                continue;
            };
            let indexes = indexes(c.index, info.size, &info.name)?;
            for i in indexes {
                let (packets, bytes) = self
                    .switch
                    .counter_read(&info.name, i)
                    .map_err(runtime_error)?;
                out.push(v1::CounterEntry {
                    counter_id: id,
                    index: Some(v1::Index { index: i as i64 }),
                    data: Some(v1::CounterData {
                        byte_count: i64::try_from(bytes).unwrap_or(i64::MAX),
                        packet_count: i64::try_from(packets).unwrap_or(i64::MAX),
                    }),
                });
            }
        }
        Ok(out)
    }

    fn write_register(&mut self, kind: v1::update::Type, r: &v1::RegisterEntry) -> Result<()> {
        if kind != v1::update::Type::Modify {
            return Err(invalid("register entries can only be modified"));
        }
        let info = self
            .program
            .registers
            .get(&r.register_id)
            .ok_or_else(|| not_found(format!("no register with id {}", r.register_id)))?
            .clone();
        let bytes = match r.data.as_ref().and_then(|d| d.data.as_ref()) {
            Some(p4_data::Data::Bitstring(b)) => b,
            Some(_) => return Err(invalid("register data must be a bitstring")),
            None => return Err(invalid("RegisterEntry without data")),
        };
        let what = format!("register `{}`", info.name);
        let value = codec::to_bits(bytes, info.width).map_err(|e| value_error(&what, e))?;
        let indexes = indexes(r.index, info.size, &info.name)?;
        for i in indexes {
            self.switch
                .register_write(&info.name, i, &value)
                .map_err(runtime_error)?;
        }
        Ok(())
    }

    fn read_registers(&mut self, r: &v1::RegisterEntry) -> Result<Vec<v1::RegisterEntry>> {
        let ids = selected_ids(&self.program.registers, r.register_id, "register")?;
        let mut out = Vec::new();
        for id in ids {
            let Some(info) = self.program.registers.get(&id) else {
                continue;
            };
            let indexes = indexes(r.index, info.size, &info.name)?;
            for i in indexes {
                let value = self
                    .switch
                    .register_read(&info.name, i)
                    .map_err(runtime_error)?;
                out.push(v1::RegisterEntry {
                    register_id: id,
                    index: Some(v1::Index { index: i as i64 }),
                    data: Some(v1::P4Data {
                        data: Some(p4_data::Data::Bitstring(codec::from_bits(&value))),
                    }),
                });
            }
        }
        Ok(out)
    }

    // ---- packet replication engine -------------------------------------

    /// Port and instance of each replica, checked.
    #[allow(deprecated)]
    fn replicas(replicas: &[v1::Replica]) -> Result<Vec<(u32, u32)>> {
        let mut out = Vec::new();
        for r in replicas {
            if !r.backup_replicas.is_empty() {
                return Err(unimplemented("backup replicas are not supported"));
            }
            let port = match &r.port_kind {
                Some(v1::replica::PortKind::EgressPort(p)) => *p,
                Some(v1::replica::PortKind::Port(bytes)) => codec::to_u64(bytes)
                    .and_then(|p| u32::try_from(p).ok())
                    .ok_or_else(|| invalid("replica port is not a number below 2^32"))?,
                None => return Err(invalid("replica without a port")),
            };
            if port >= p4sim::v1switch::pre::PORT_LIMIT {
                return Err(UpdateError::new(
                    Code::OutOfRange,
                    format!("replica port {port} is out of range (ports are below 512)"),
                ));
            }
            if out.contains(&(port, r.instance)) {
                return Err(invalid(format!(
                    "replica (port {port}, instance {}) given twice",
                    r.instance
                )));
            }
            out.push((port, r.instance));
        }
        Ok(out)
    }

    /// Creates PRE nodes (one per instance) for `replicas` in `group`.
    fn make_nodes(&mut self, group: u32, replicas: &[(u32, u32)]) -> Result<Vec<NodeHandle>> {
        let mut by_rid: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (port, rid) in replicas {
            by_rid.entry(*rid).or_default().push(*port);
        }
        let pre = self.switch.pre_mut();
        pre.mc_mgrp_create(group)
            .map_err(|e| runtime_error(e.into()))?;
        let mut nodes = Vec::new();
        for (rid, ports) in by_rid {
            let made = pre
                .mc_node_create(rid, &ports, &[])
                .and_then(|n| pre.mc_node_associate(group, n).map(|()| n));
            match made {
                Ok(n) => nodes.push(n),
                Err(e) => {
                    for n in nodes {
                        let _ = pre.mc_node_destroy(n);
                    }
                    return Err(runtime_error(e.into()));
                }
            }
        }
        Ok(nodes)
    }

    fn drop_nodes(&mut self, nodes: &[NodeHandle]) {
        for n in nodes {
            let _ = self.switch.pre_mut().mc_node_destroy(*n);
        }
    }

    fn write_group(&mut self, kind: v1::update::Type, g: &v1::MulticastGroupEntry) -> Result<()> {
        use v1::update::Type;
        let id = g.multicast_group_id;
        if id == 0 {
            return Err(invalid("multicast group id 0 is not allowed"));
        }
        if id >= CLONE_GROUP_BASE {
            return Err(UpdateError::new(
                Code::OutOfRange,
                format!(
                    "multicast group id {id} is too large (esa-switch allows up to {})",
                    CLONE_GROUP_BASE - 1
                ),
            ));
        }
        let exists = self.groups.contains_key(&id);
        match kind {
            Type::Insert | Type::Modify => {
                check_presence(kind, exists, &format!("multicast group {id}"))?;
                let replicas = Self::replicas(&g.replicas)?;
                if let Some(old) = self.groups.remove(&id) {
                    self.drop_nodes(&old.nodes);
                }
                let nodes = self.make_nodes(id, &replicas)?;
                self.groups.insert(
                    id,
                    Group {
                        entry: g.clone(),
                        nodes,
                    },
                );
                Ok(())
            }
            Type::Delete => {
                let old = self
                    .groups
                    .remove(&id)
                    .ok_or_else(|| not_found(format!("no multicast group {id}")))?;
                self.drop_nodes(&old.nodes);
                let _ = self.switch.pre_mut().mc_mgrp_destroy(id);
                Ok(())
            }
            Type::Unspecified => Err(invalid("update type is UNSPECIFIED")),
        }
    }

    fn write_clone(&mut self, kind: v1::update::Type, c: &v1::CloneSessionEntry) -> Result<()> {
        use v1::update::Type;
        let id = c.session_id;
        if id == 0 || id > p4sim::v1switch::pre::MAX_SESSION_ID {
            return Err(invalid(format!(
                "clone session id {id} is outside 1..={}",
                p4sim::v1switch::pre::MAX_SESSION_ID
            )));
        }
        if c.class_of_service != 0 {
            return Err(unimplemented("clone session class of service"));
        }
        if c.packet_length_bytes < 0 {
            return Err(invalid("packet_length_bytes is negative"));
        }
        let exists = self.clones.contains_key(&id);
        let hidden_group = CLONE_GROUP_BASE + id;
        match kind {
            Type::Insert | Type::Modify => {
                check_presence(kind, exists, &format!("clone session {id}"))?;
                let replicas = Self::replicas(&c.replicas)?;
                if let Some(old) = self.clones.remove(&id) {
                    self.drop_nodes(&old.nodes);
                    let _ = self.switch.pre_mut().mc_mgrp_destroy(hidden_group);
                }
                let truncate_to =
                    (c.packet_length_bytes > 0).then_some(c.packet_length_bytes as u32);
                let (config, nodes) = match replicas.as_slice() {
                    [(port, 0)] => (
                        p4sim::v1switch::pre::CloneSession {
                            egress_port: Some(*port),
                            group: None,
                            truncate_to,
                        },
                        Vec::new(),
                    ),
                    _ => (
                        p4sim::v1switch::pre::CloneSession {
                            egress_port: None,
                            group: Some(hidden_group),
                            truncate_to,
                        },
                        self.make_nodes(hidden_group, &replicas)?,
                    ),
                };
                self.switch
                    .pre_mut()
                    .set_clone_session(id, config)
                    .map_err(|e| runtime_error(e.into()))?;
                self.clones.insert(
                    id,
                    Group {
                        entry: c.clone(),
                        nodes,
                    },
                );
                Ok(())
            }
            Type::Delete => {
                let old = self
                    .clones
                    .remove(&id)
                    .ok_or_else(|| not_found(format!("no clone session {id}")))?;
                self.drop_nodes(&old.nodes);
                let _ = self.switch.pre_mut().mc_mgrp_destroy(hidden_group);
                let _ = self.switch.pre_mut().mirroring_delete(id);
                Ok(())
            }
            Type::Unspecified => Err(invalid("update type is UNSPECIFIED")),
        }
    }
}

/// The indexes a counter or register entry names: its index, or every
/// index when it has none (a wildcard read or write).
fn indexes(i: Option<v1::Index>, size: u64, name: &str) -> Result<Vec<u64>> {
    match i {
        Some(i) => Ok(vec![index(i.index, size, name)?]),
        None => Ok((0..size).collect()),
    }
}

/// The ids a read of `kind` entries selects, in order: `id`, or every one
/// when `id` is 0 (a wildcard); an unknown id is `NOT_FOUND`.
fn selected_ids<T>(known: &HashMap<u32, T>, id: u32, kind: &str) -> Result<Vec<u32>> {
    if id == 0 {
        let mut ids: Vec<u32> = known.keys().copied().collect();
        ids.sort_unstable();
        Ok(ids)
    } else if known.contains_key(&id) {
        Ok(vec![id])
    } else {
        Err(not_found(format!("no {kind} with id {id}")))
    }
}

/// An insert of something that exists is `ALREADY_EXISTS`; a modify of
/// something that does not is `NOT_FOUND`.
fn check_presence(kind: v1::update::Type, exists: bool, what: &str) -> Result<()> {
    match kind {
        v1::update::Type::Insert if exists => Err(UpdateError::new(
            Code::AlreadyExists,
            format!("{what} exists"),
        )),
        v1::update::Type::Modify if !exists => Err(not_found(format!("no {what}"))),
        _ => Ok(()),
    }
}

fn index(i: i64, size: u64, name: &str) -> Result<u64> {
    u64::try_from(i).ok().filter(|i| *i < size).ok_or_else(|| {
        UpdateError::new(
            Code::OutOfRange,
            format!("index {i} is out of range for `{name}` (size {size})"),
        )
    })
}

fn entity_name(e: &entity::Entity) -> &'static str {
    match e {
        entity::Entity::ExternEntry(_) => "ExternEntry",
        entity::Entity::TableEntry(_) => "TableEntry",
        entity::Entity::ActionProfileMember(_) => "ActionProfileMember",
        entity::Entity::ActionProfileGroup(_) => "ActionProfileGroup",
        entity::Entity::MeterEntry(_) => "MeterEntry",
        entity::Entity::DirectMeterEntry(_) => "DirectMeterEntry",
        entity::Entity::CounterEntry(_) => "CounterEntry",
        entity::Entity::DirectCounterEntry(_) => "DirectCounterEntry",
        entity::Entity::PacketReplicationEngineEntry(_) => "PacketReplicationEngineEntry",
        entity::Entity::ValueSetEntry(_) => "ValueSetEntry",
        entity::Entity::RegisterEntry(_) => "RegisterEntry",
        entity::Entity::DigestEntry(_) => "DigestEntry",
    }
}
