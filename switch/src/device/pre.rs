//! The packet replication engine: multicast groups and clone sessions as
//! P4Runtime writes them, each made of p4sim PRE nodes (one per replica
//! instance).

use std::collections::BTreeMap;

use p4runtime_proto::p4::v1;
use p4runtime_proto::p4::v1::packet_replication_engine_entry::Type as PreType;
use p4runtime_proto::tonic::Code;
use p4sim::v1switch::pre::NodeHandle;

use super::Device;
use super::error::{Result, UpdateError, invalid, not_found, runtime_error, unimplemented};
use crate::codec;

/// A multicast group or clone session and the PRE nodes that make it.
#[derive(Debug, Clone)]
pub(super) struct Group<T> {
    entry: T,
    nodes: Vec<NodeHandle>,
}

/// Clone sessions with several replicas use a multicast group of their own,
/// numbered above the 16 bits of v1model's `mcast_grp` so the program can
/// never name it.
const CLONE_GROUP_BASE: u32 = 1 << 20;

impl Device {
    /// Applies a `Write` of a multicast group or clone session.
    pub(super) fn write_pre(
        &mut self,
        kind: v1::update::Type,
        p: &v1::PacketReplicationEngineEntry,
    ) -> Result<()> {
        match &p.r#type {
            Some(PreType::MulticastGroupEntry(g)) => self.write_group(kind, g),
            Some(PreType::CloneSessionEntry(c)) => self.write_clone(kind, c),
            None => Err(invalid("PacketReplicationEngineEntry without a type")),
        }
    }

    /// The multicast groups (or clone sessions) a `Read` names: one by id,
    /// or all when the id is 0.
    pub(super) fn read_pre(
        &self,
        p: &v1::PacketReplicationEngineEntry,
    ) -> Result<Vec<v1::PacketReplicationEngineEntry>> {
        let pre = |t: PreType| v1::PacketReplicationEngineEntry { r#type: Some(t) };
        match &p.r#type {
            Some(PreType::MulticastGroupEntry(g)) => Ok(self
                .groups
                .iter()
                .filter(|(id, _)| g.multicast_group_id == 0 || **id == g.multicast_group_id)
                .map(|(_, g)| pre(PreType::MulticastGroupEntry(g.entry.clone())))
                .collect()),
            Some(PreType::CloneSessionEntry(c)) => Ok(self
                .clones
                .iter()
                .filter(|(id, _)| c.session_id == 0 || **id == c.session_id)
                .map(|(_, c)| pre(PreType::CloneSessionEntry(c.entry.clone())))
                .collect()),
            None => Err(invalid("PacketReplicationEngineEntry without a type")),
        }
    }

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
