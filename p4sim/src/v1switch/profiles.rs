//! Action profiles in the control-plane API: members (an action and its
//! arguments) the control plane creates in a profile, and entries of the
//! tables whose `implementation` the profile is, which name a member
//! instead of an action (simple_switch's `act_prof_create_member`,
//! `table_indirect_add`, `table_indirect_set_default`). An entry keeps a
//! copy of its member's action and arguments, so the data plane runs an
//! indirect entry as it runs a direct one; changing a member changes every
//! entry that names it.

use std::collections::BTreeMap;

use super::{EntryHandle, RuntimeError, TableEntry, V1Switch};
use crate::exec::bits::Bits;

/// A member of an action profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemberHandle(pub u32);

/// The members of every action profile, by profile name.
#[derive(Debug, Clone, Default)]
pub(super) struct Profiles {
    by_name: BTreeMap<String, Profile>,
}

#[derive(Debug, Clone, Default)]
struct Profile {
    next: u32,
    members: BTreeMap<u32, Member>,
    /// Entries (table, handle) naming a member, and tables whose default
    /// action is one.
    entries: BTreeMap<(usize, u32), u32>,
    defaults: BTreeMap<usize, u32>,
}

#[derive(Debug, Clone)]
struct Member {
    action: String,
    args: Vec<(String, Bits)>,
}

impl Profiles {
    /// Forgets an entry that was removed.
    pub(super) fn entry_removed(&mut self, table: usize, handle: u32) {
        for p in self.by_name.values_mut() {
            p.entries.remove(&(table, handle));
        }
    }

    /// Forgets every entry (the tables were cleared).
    pub(super) fn entries_cleared(&mut self) {
        for p in self.by_name.values_mut() {
            p.entries.clear();
        }
    }
}

impl V1Switch {
    /// The action profile table `table` takes its actions from, if any.
    pub fn table_profile(&self, table: &str) -> Result<Option<String>, RuntimeError> {
        let t = self.table_id(table)?;
        Ok(self.prog.tables[t].profile.as_ref().map(|p| p.name.clone()))
    }

    /// The tables that use profile `name` (its full name or a unique
    /// suffix), and its full name and size.
    fn profile_tables(&self, name: &str) -> Result<(String, u64, Vec<usize>), RuntimeError> {
        let mut full: Vec<&crate::ir::ProfileIr> = Vec::new();
        for t in &self.prog.tables {
            if let Some(p) = &t.profile
                && (p.name == name || p.name.ends_with(&format!(".{name}")))
                && !full.iter().any(|f| f.name == p.name)
            {
                full.push(p);
            }
        }
        let p = match full.as_slice() {
            [p] => *p,
            [] => {
                return Err(RuntimeError::Unknown {
                    kind: "action profile",
                    name: name.to_string(),
                });
            }
            many => {
                return Err(RuntimeError::Ambiguous {
                    kind: "action profile",
                    name: name.to_string(),
                    candidates: many
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        };
        let tables = (0..self.prog.tables.len())
            .filter(|&t| self.prog.tables[t].profile.as_ref() == Some(p))
            .collect();
        Ok((p.name.clone(), p.size, tables))
    }

    /// Checks that `action(args)` suits every table of the profile.
    fn check_member(
        &self,
        tables: &[usize],
        action: &str,
        args: &[(String, Bits)],
    ) -> Result<(), RuntimeError> {
        for &t in tables {
            let pos = self.action_pos(t, action)?;
            if self.prog.tables[t].actions[pos].default_only {
                return Err(RuntimeError::ActionScope(action.to_string()));
            }
            self.args(t, pos, args)?;
        }
        Ok(())
    }

    /// Creates a member of action profile `profile`: `action(args)`.
    pub fn act_prof_create_member(
        &mut self,
        profile: &str,
        action: &str,
        args: &[(String, Bits)],
    ) -> Result<MemberHandle, RuntimeError> {
        let (name, size, tables) = self.profile_tables(profile)?;
        self.check_member(&tables, action, args)?;
        let p = self.profiles.by_name.entry(name.clone()).or_default();
        if p.members.len() as u64 >= size {
            return Err(RuntimeError::TableFull(name));
        }
        let m = p.next;
        p.next += 1;
        p.members.insert(
            m,
            Member {
                action: action.to_string(),
                args: args.to_vec(),
            },
        );
        Ok(MemberHandle(m))
    }

    /// Changes a member's action; every entry naming it runs the new one.
    pub fn act_prof_modify_member(
        &mut self,
        profile: &str,
        member: MemberHandle,
        action: &str,
        args: &[(String, Bits)],
    ) -> Result<(), RuntimeError> {
        let (name, _, tables) = self.profile_tables(profile)?;
        self.check_member(&tables, action, args)?;
        let p = self.profiles.by_name.entry(name.clone()).or_default();
        let Some(m) = p.members.get_mut(&member.0) else {
            return Err(RuntimeError::NoSuchMember {
                profile: name,
                member: member.0,
            });
        };
        m.action = action.to_string();
        m.args = args.to_vec();
        let users: Vec<(usize, u32)> = p
            .entries
            .iter()
            .filter(|(_, m)| **m == member.0)
            .map(|(k, _)| *k)
            .collect();
        let defaults: Vec<usize> = p
            .defaults
            .iter()
            .filter(|(_, m)| **m == member.0)
            .map(|(t, _)| *t)
            .collect();
        for (t, h) in users {
            let pos = self.action_pos(t, action)?;
            let args = self.args(t, pos, args)?;
            if let Some(e) = self.rt.tables[t].get_mut(h) {
                e.entry.action = pos;
                e.entry.args = args;
            }
        }
        for t in defaults {
            let pos = self.action_pos(t, action)?;
            let args = self.args(t, pos, args)?;
            self.rt.tables[t].default_action = Some((pos, args));
        }
        Ok(())
    }

    /// Deletes a member no entry and no default action names.
    pub fn act_prof_delete_member(
        &mut self,
        profile: &str,
        member: MemberHandle,
    ) -> Result<(), RuntimeError> {
        let (name, _, _) = self.profile_tables(profile)?;
        let p = self.profiles.by_name.entry(name.clone()).or_default();
        if !p.members.contains_key(&member.0) {
            return Err(RuntimeError::NoSuchMember {
                profile: name,
                member: member.0,
            });
        }
        if p.entries
            .values()
            .chain(p.defaults.values())
            .any(|m| *m == member.0)
        {
            return Err(RuntimeError::MemberInUse {
                profile: name,
                member: member.0,
            });
        }
        p.members.remove(&member.0);
        Ok(())
    }

    /// The member `member` of the profile of table `t`.
    fn member_of(&self, t: usize, member: MemberHandle) -> Result<(String, Member), RuntimeError> {
        let ti = &self.prog.tables[t];
        let Some(profile) = &ti.profile else {
            return Err(RuntimeError::NotIndirect(ti.name.clone()));
        };
        self.profiles
            .by_name
            .get(&profile.name)
            .and_then(|p| p.members.get(&member.0))
            .map(|m| (profile.name.clone(), m.clone()))
            .ok_or_else(|| RuntimeError::NoSuchMember {
                profile: profile.name.clone(),
                member: member.0,
            })
    }

    /// Installs an entry of a table with an action profile: on a match it
    /// runs member `member`'s action.
    pub fn table_indirect_add(
        &mut self,
        table: &str,
        matches: Vec<super::MatchValue>,
        priority: Option<i32>,
        member: MemberHandle,
    ) -> Result<EntryHandle, RuntimeError> {
        let t = self.table_id(table)?;
        let (profile, m) = self.member_of(t, member)?;
        let entry = TableEntry {
            matches,
            priority,
            action: m.action,
            args: m.args,
        };
        let e = self.entry_ir(t, &entry)?;
        let h = match self.rt.tables[t].insert(e, false) {
            Ok(h) => h,
            Err(err) => return Err(self.change_error(t, err)),
        };
        if let Some(p) = self.profiles.by_name.get_mut(&profile) {
            p.entries.insert((t, h), member.0);
        }
        Ok(EntryHandle(h))
    }

    /// Makes member `member`'s action the table's default action.
    pub fn table_indirect_set_default(
        &mut self,
        table: &str,
        member: MemberHandle,
    ) -> Result<(), RuntimeError> {
        let t = self.table_id(table)?;
        let (profile, m) = self.member_of(t, member)?;
        self.set_default_at(t, &m.action, &m.args)?;
        if let Some(p) = self.profiles.by_name.get_mut(&profile) {
            p.defaults.insert(t, member.0);
        }
        Ok(())
    }
}
