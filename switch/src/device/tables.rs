//! Table entries and default entries: matches and action calls checked
//! and put in canonical form, installed in p4sim's tables, and read back
//! as they were canonicalised.

use std::collections::BTreeMap;

use p4runtime_proto::bytestring;
use p4runtime_proto::p4::v1;
use p4runtime_proto::p4::v1::field_match;
use p4runtime_proto::prost::Message;
use p4runtime_proto::tonic::Code;
use p4sim::exec::bits::{BitType, Bits};
use p4sim::p4info::{ActionScope, MatchType, TableActionCall};
use p4sim::v1switch::{EntryHandle, MatchValue};

use super::Device;
use super::error::{
    Result, UpdateError, invalid, not_found, runtime_error, unimplemented, value_error,
};
use crate::codec;
use crate::program::TableInfo;

/// An entry the control plane installed.
#[derive(Debug, Clone)]
pub(super) struct Stored {
    handle: EntryHandle,
    /// The entry in canonical form, as a read returns it.
    entry: v1::TableEntry,
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
    /// The table with id `id` (`NOT_FOUND` if there is none).
    pub(super) fn table(&self, id: u32) -> Result<&TableInfo> {
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

    pub(super) fn write_entry(&mut self, kind: v1::update::Type, t: &v1::TableEntry) -> Result<()> {
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
                self.set_direct_counter(table, handle, t.counter_data.as_ref());
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
                self.set_direct_counter(table, handle, t.counter_data.as_ref());
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

    pub(super) fn write_default(
        &mut self,
        kind: v1::update::Type,
        t: &v1::TableEntry,
    ) -> Result<()> {
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
                let action = initial_action(&call, <[u8]>::to_vec);
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
            action: table
                .initial_default
                .as_ref()
                .map(|call| initial_action(call, bytestring::canonical)),
            is_default_action: true,
            ..Default::default()
        }
    }

    pub(super) fn read_entries(&mut self, t: &v1::TableEntry) -> Result<Vec<v1::TableEntry>> {
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

    pub(super) fn find_entry(
        &self,
        t: &v1::TableEntry,
    ) -> Result<(TableInfo, EntryHandle, v1::TableEntry)> {
        let table = self.table(t.table_id)?.clone();
        let parsed = self.parse_match(t)?;
        let s = self
            .entries
            .get(&t.table_id)
            .and_then(|m| m.get(&parsed.key))
            .ok_or_else(|| not_found(format!("table `{}` has no such entry", table.name)))?;
        Ok((table, s.handle, s.entry.clone()))
    }
}

/// The program's default action call as a P4Runtime action, each
/// argument's bytes as `value` gives them.
fn initial_action(call: &TableActionCall, value: impl Fn(&[u8]) -> Vec<u8>) -> v1::TableAction {
    v1::TableAction {
        r#type: Some(v1::table_action::Type::Action(v1::Action {
            action_id: call.action_id,
            params: call
                .arguments
                .iter()
                .map(|(param_id, bytes)| v1::action::Param {
                    param_id: *param_id,
                    value: value(bytes),
                })
                .collect(),
        })),
    }
}
