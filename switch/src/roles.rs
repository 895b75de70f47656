//! Which P4Runtime role may write what: esa-switch's role policy (P4Runtime
//! spec §15 leaves a role's scope to the target).
//!
//! Without a policy every client is in the default role and may write
//! everything, as the spec's default role does. A policy names roles, each
//! owning the P4 objects whose names start with one of its prefixes, and
//! optionally the packet replication engine (multicast groups and clone
//! sessions) and the pipeline (SetForwardingPipelineConfig). Then:
//! - a named role writes only what it owns, with its own primary (each role
//!   elects one: `p4runtime_proto::arbitration`);
//! - the default role writes only what no named role owns, so a client of
//!   the default role with a higher election id cannot touch ESA's tables;
//! - a role with `clients` is open only to clients whose certificate (mutual
//!   TLS, `--tls-client-ca`) names one of them, so a client that merely
//!   knows the role's name and election id cannot take it;
//! - reads stay open to every role.
//!
//! Every refusal is logged and counted (`Switch::role_refusals`).
//!
//! The policy comes from a TOML file (`esa switch --roles FILE`):
//!
//! ```toml
//! [[role]]
//! name = "esa"
//! entities = ["EsaIngress.", "EsaEgress."]
//! replication = true
//! pipeline = true
//! clients = ["esa-controller"]
//! ```

use p4runtime_proto::p4::config::v1::{P4Info, Preamble};
use p4runtime_proto::p4::v1::{self as v1, entity::Entity};
use p4runtime_proto::tonic::Status;
use serde::Deserialize;

/// What one named role owns and who may take it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleGrant {
    /// The role's name, as clients give it in `Role.name`.
    pub name: String,
    /// Prefixes of the P4 names (tables, action profiles, counters, meters,
    /// registers, value sets, digests, extern instances) the role owns; the
    /// longest matching prefix of any role decides.
    #[serde(default)]
    pub entities: Vec<String>,
    /// The role owns the packet replication engine.
    #[serde(default)]
    pub replication: bool,
    /// The role owns the pipeline: only its primary may set it.
    #[serde(default)]
    pub pipeline: bool,
    /// Names a client's certificate must carry (subject common name or DNS
    /// name) to take the role; empty: any client.
    #[serde(default)]
    pub clients: Vec<String>,
}

/// The roles of one switch; the default (empty) policy has none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RolePolicy {
    /// The named roles.
    #[serde(default, rename = "role")]
    pub roles: Vec<RoleGrant>,
}

/// Why a role policy file was refused.
#[derive(Debug, thiserror::Error)]
pub enum RolePolicyError {
    /// Not TOML of the policy's shape.
    #[error("not a role policy: {0}")]
    Parse(String),
    /// A role without a name (the default role is not configured).
    #[error("role {0} has no name: the default role needs no entry")]
    Unnamed(usize),
    /// Two roles of one name.
    #[error("role {0:?} is named twice")]
    Duplicate(String),
    /// Two roles claim one prefix, or both claim the replication engine or
    /// the pipeline.
    #[error("{what} is claimed by both role {first:?} and role {second:?}")]
    Overlap {
        /// The prefix or object.
        what: String,
        /// One role.
        first: String,
        /// The other.
        second: String,
    },
}

/// Whose an object is under a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner<'a> {
    /// No named role's: the default role's.
    Default,
    /// This named role's.
    Role(&'a str),
}

impl RolePolicy {
    /// Parses and checks a policy file's text.
    pub fn from_toml(text: &str) -> Result<RolePolicy, RolePolicyError> {
        let policy: RolePolicy =
            toml::from_str(text).map_err(|e| RolePolicyError::Parse(e.to_string()))?;
        policy.check()?;
        Ok(policy)
    }

    fn check(&self) -> Result<(), RolePolicyError> {
        let mut claims: Vec<(String, &str)> = Vec::new();
        for (i, role) in self.roles.iter().enumerate() {
            if role.name.is_empty() {
                return Err(RolePolicyError::Unnamed(i + 1));
            }
            if self.roles[..i].iter().any(|r| r.name == role.name) {
                return Err(RolePolicyError::Duplicate(role.name.clone()));
            }
            let mut mine: Vec<String> = role.entities.iter().map(|p| format!("{p:?}")).collect();
            if role.replication {
                mine.push("the packet replication engine".into());
            }
            if role.pipeline {
                mine.push("the pipeline".into());
            }
            for what in mine {
                if let Some((_, first)) = claims.iter().find(|(w, _)| *w == what) {
                    return Err(RolePolicyError::Overlap {
                        what,
                        first: first.to_string(),
                        second: role.name.clone(),
                    });
                }
                claims.push((what, &role.name));
            }
        }
        Ok(())
    }

    /// Whether any role admits only some clients (then the server must
    /// ask clients for certificates).
    pub fn binds_clients(&self) -> bool {
        self.roles.iter().any(|r| !r.clients.is_empty())
    }

    fn grant(&self, role: &str) -> Option<&RoleGrant> {
        self.roles.iter().find(|r| r.name == role)
    }

    /// Lets a client whose certificate names `peer` act in `role`:
    /// `PERMISSION_DENIED` for a role the policy does not name, or one
    /// bound to other clients.
    pub fn check_client(&self, role: &str, peer: &[String]) -> Result<(), Status> {
        if role.is_empty() {
            return Ok(());
        }
        let grant = self.grant(role).ok_or_else(|| {
            Status::permission_denied(format!(
                "this switch has no role {role:?}{}",
                self.known_roles()
            ))
        })?;
        if grant.clients.is_empty() || grant.clients.iter().any(|c| peer.contains(c)) {
            return Ok(());
        }
        Err(Status::permission_denied(format!(
            "role {role:?} is open only to clients whose certificate names one of {:?}; {}",
            grant.clients,
            if peer.is_empty() {
                "this client presented none".to_string()
            } else {
                format!("this client's names {peer:?}")
            }
        )))
    }

    fn known_roles(&self) -> String {
        if self.roles.is_empty() {
            " (it has only the default role)".to_string()
        } else {
            let names: Vec<&str> = self.roles.iter().map(|r| r.name.as_str()).collect();
            format!(" (its roles: {})", names.join(", "))
        }
    }

    fn owner_of_name(&self, name: &str) -> Owner<'_> {
        self.roles
            .iter()
            .flat_map(|r| r.entities.iter().map(move |p| (p, r)))
            .filter(|(prefix, _)| name.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map_or(Owner::Default, |(_, r)| Owner::Role(&r.name))
    }

    fn owner_of_flag(&self, flag: impl Fn(&RoleGrant) -> bool) -> Owner<'_> {
        self.roles
            .iter()
            .find(|r| flag(r))
            .map_or(Owner::Default, |r| Owner::Role(&r.name))
    }

    /// Lets `role` write `entity` of a pipeline described by `p4info`.
    pub fn check_write(
        &self,
        role: &str,
        p4info: &P4Info,
        entity: &v1::Entity,
    ) -> Result<(), Status> {
        if self.roles.is_empty() {
            return Ok(());
        }
        let (what, owner) = match &entity.entity {
            Some(Entity::PacketReplicationEngineEntry(_)) => (
                "the packet replication engine".to_string(),
                self.owner_of_flag(|r| r.replication),
            ),
            Some(e) => match object_id(e).and_then(|id| name_of(p4info, id)) {
                Some(name) => (name.to_string(), self.owner_of_name(name)),
                // Unknown ids are the device's to refuse, with its own error.
                None => return Ok(()),
            },
            None => return Ok(()),
        };
        allowed(role, owner, &what)
    }

    /// Lets `role` set the forwarding pipeline.
    pub fn check_pipeline(&self, role: &str) -> Result<(), Status> {
        allowed(role, self.owner_of_flag(|r| r.pipeline), "the pipeline")
    }
}

fn allowed(role: &str, owner: Owner<'_>, what: &str) -> Result<(), Status> {
    match owner {
        Owner::Role(r) if r == role => Ok(()),
        Owner::Default if role.is_empty() => Ok(()),
        Owner::Role(r) => Err(Status::permission_denied(format!(
            "{what} belongs to role {r:?}; {} may not write it",
            describe(role)
        ))),
        Owner::Default => Err(Status::permission_denied(format!(
            "{what} belongs to the default role; {} may not write it",
            describe(role)
        ))),
    }
}

fn describe(role: &str) -> String {
    if role.is_empty() {
        "the default role".to_string()
    } else {
        format!("role {role:?}")
    }
}

/// The P4Info id of the object an entity writes, if it names one.
fn object_id(entity: &Entity) -> Option<u32> {
    Some(match entity {
        Entity::ExternEntry(e) => e.extern_id,
        Entity::TableEntry(e) => e.table_id,
        Entity::ActionProfileMember(e) => e.action_profile_id,
        Entity::ActionProfileGroup(e) => e.action_profile_id,
        Entity::MeterEntry(e) => e.meter_id,
        Entity::DirectMeterEntry(e) => e.table_entry.as_ref()?.table_id,
        Entity::CounterEntry(e) => e.counter_id,
        Entity::DirectCounterEntry(e) => e.table_entry.as_ref()?.table_id,
        Entity::ValueSetEntry(e) => e.value_set_id,
        Entity::RegisterEntry(e) => e.register_id,
        Entity::DigestEntry(e) => e.digest_id,
        Entity::PacketReplicationEngineEntry(_) => return None,
    })
}

/// The name of the P4 object with `id` (P4Info ids are unique across
/// object kinds: their top byte is the kind).
fn name_of(p4info: &P4Info, id: u32) -> Option<&str> {
    let preambles = p4info
        .tables
        .iter()
        .map(|t| t.preamble.as_ref())
        .chain(p4info.action_profiles.iter().map(|a| a.preamble.as_ref()))
        .chain(p4info.counters.iter().map(|c| c.preamble.as_ref()))
        .chain(p4info.direct_counters.iter().map(|c| c.preamble.as_ref()))
        .chain(p4info.meters.iter().map(|m| m.preamble.as_ref()))
        .chain(p4info.direct_meters.iter().map(|m| m.preamble.as_ref()))
        .chain(p4info.registers.iter().map(|r| r.preamble.as_ref()))
        .chain(p4info.value_sets.iter().map(|v| v.preamble.as_ref()))
        .chain(p4info.digests.iter().map(|d| d.preamble.as_ref()))
        .chain(
            p4info
                .externs
                .iter()
                .flat_map(|e| e.instances.iter().map(|i| i.preamble.as_ref())),
        );
    preambles
        .flatten()
        .find(|p: &&Preamble| p.id == id)
        .map(|p| p.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4runtime_proto::p4::config::v1::{Register, Table};
    use p4runtime_proto::tonic::Code;

    const ESA: &str = r#"
        [[role]]
        name = "esa"
        entities = ["EsaIngress.", "EsaEgress."]
        replication = true
        pipeline = true
        clients = ["esa-controller"]

        [[role]]
        name = "monitor"
        entities = ["EsaIngress.telemetry."]
    "#;

    fn p4info() -> P4Info {
        let preamble = |id, name: &str| {
            Some(Preamble {
                id,
                name: name.into(),
                ..Preamble::default()
            })
        };
        P4Info {
            tables: vec![
                Table {
                    preamble: preamble(0x0200_0001, "EsaIngress.admission.jobs"),
                    ..Table::default()
                },
                Table {
                    preamble: preamble(0x0200_0002, "L2.forward"),
                    ..Table::default()
                },
            ],
            registers: vec![Register {
                preamble: preamble(0x0500_0001, "EsaIngress.telemetry.seen"),
                ..Register::default()
            }],
            ..P4Info::default()
        }
    }

    fn table(id: u32) -> v1::Entity {
        v1::Entity {
            entity: Some(Entity::TableEntry(v1::TableEntry {
                table_id: id,
                ..v1::TableEntry::default()
            })),
        }
    }

    #[test]
    fn each_object_is_written_by_its_owner_only() {
        let policy = RolePolicy::from_toml(ESA).unwrap();
        let info = p4info();
        let jobs = table(0x0200_0001);
        let l2 = table(0x0200_0002);
        let seen = v1::Entity {
            entity: Some(Entity::RegisterEntry(v1::RegisterEntry {
                register_id: 0x0500_0001,
                ..v1::RegisterEntry::default()
            })),
        };
        let group = v1::Entity {
            entity: Some(Entity::PacketReplicationEngineEntry(
                v1::PacketReplicationEngineEntry::default(),
            )),
        };
        policy.check_write("esa", &info, &jobs).unwrap();
        policy.check_write("esa", &info, &group).unwrap();
        let e = policy.check_write("", &info, &jobs).unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied);
        assert!(
            e.message()
                .contains("EsaIngress.admission.jobs belongs to role \"esa\"; the default role"),
            "{e:?}"
        );
        policy.check_write("", &info, &group).unwrap_err();
        // Everything no role claims stays the default role's.
        policy.check_write("", &info, &l2).unwrap();
        policy.check_write("esa", &info, &l2).unwrap_err();
        // The longest prefix decides.
        policy.check_write("monitor", &info, &seen).unwrap();
        policy.check_write("esa", &info, &seen).unwrap_err();
        policy.check_write("monitor", &info, &jobs).unwrap_err();
        // Ids the pipeline lacks are the device's to refuse.
        policy.check_write("monitor", &info, &table(7)).unwrap();
        policy.check_pipeline("esa").unwrap();
        policy.check_pipeline("").unwrap_err();
        policy.check_pipeline("monitor").unwrap_err();
        // No policy: the default role writes everything.
        let open = RolePolicy::default();
        open.check_write("", &info, &jobs).unwrap();
        open.check_pipeline("").unwrap();
        assert!(policy.binds_clients() && !open.binds_clients());
    }

    #[test]
    fn a_bound_role_needs_a_client_certificate_naming_it() {
        let policy = RolePolicy::from_toml(ESA).unwrap();
        policy
            .check_client("esa", &["esa-controller".to_string()])
            .unwrap();
        let e = policy.check_client("esa", &[]).unwrap_err();
        assert!(e.message().contains("presented none"), "{e:?}");
        let e = policy
            .check_client("esa", &["intruder".to_string()])
            .unwrap_err();
        assert!(e.message().contains("[\"intruder\"]"), "{e:?}");
        policy.check_client("monitor", &[]).unwrap();
        policy.check_client("", &[]).unwrap();
        let e = policy.check_client("root", &[]).unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied);
        assert!(e.message().contains("its roles: esa, monitor"), "{e:?}");
    }

    #[test]
    fn bad_policies_are_refused_with_the_reason() {
        let cases = [
            ("[[role]]\nname = \"\"", "has no name"),
            (
                "[[role]]\nname = \"a\"\n[[role]]\nname = \"a\"",
                "named twice",
            ),
            (
                "[[role]]\nname = \"a\"\nentities = [\"X.\"]\n[[role]]\nname = \"b\"\nentities = [\"X.\"]",
                "\"X.\" is claimed by both role \"a\" and role \"b\"",
            ),
            (
                "[[role]]\nname = \"a\"\npipeline = true\n[[role]]\nname = \"b\"\npipeline = true",
                "the pipeline is claimed",
            ),
            ("[[role]]\nname = \"a\"\nwrites = [\"X.\"]", "unknown field"),
            ("role = 3", "not a role policy"),
        ];
        for (text, want) in cases {
            let e = RolePolicy::from_toml(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        assert_eq!(RolePolicy::from_toml("").unwrap(), RolePolicy::default());
    }
}
