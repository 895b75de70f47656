//! BMv2 simple_switch's packet replication engine (PRE) and clone sessions.
//!
//! Multicast follows bmv2 `McSimplePreLAG` (`src/bm_sim/simple_pre.cpp`,
//! `simple_pre_lag.cpp`): a group holds a list of nodes in association
//! order; a node has a replication id (rid), a set of ports and a set of
//! LAGs. [`Pre::replicate`] yields, node by node in association order,
//! one copy per port in ascending port order and then one copy per LAG in
//! ascending LAG order (the member chosen by `hash % member_count` among the
//! LAG's ports in ascending order). Node handles are the lowest free
//! integers, starting at 0, as bmv2's `HandleMgr` hands them out; a group's
//! handle is its group id. Ports and LAG indexes are below 512 (bmv2
//! `PORT_MAP_SIZE`, `LAG_MAP_SIZE`), and the tables hold 4096 groups and 4096
//! nodes by default.
//!
//! Where bmv2 silently accepts an operation on something that does not
//! exist (destroying an unknown group, replicating it) this model returns a
//! typed error or an empty result, as documented on each method.
//!
//! Clone sessions follow simple_switch's `MirroringSessionConfig`: a session
//! id (0..=32767, bmv2 `MAX_MIRROR_SESSION_ID`) maps to an egress port, a
//! multicast group, or both. A clone to a session with both produces the
//! multicast copies first and then the port copy (simple_switch
//! `ingress_thread`). An optional truncation length models P4Runtime's
//! `CloneSessionEntry.packet_length_bytes`.

use std::collections::{BTreeMap, BTreeSet};

/// Ports and LAG indexes must be below this (bmv2 `PORT_MAP_SIZE`).
pub const PORT_LIMIT: u32 = 512;
/// Largest clone session id (bmv2 `MAX_MIRROR_SESSION_ID`).
pub const MAX_SESSION_ID: u32 = (1 << 15) - 1;
/// Default number of multicast groups (bmv2 `DEFAULT_MGID_TABLE_SIZE`).
pub const DEFAULT_MAX_GROUPS: usize = 4096;
/// Default number of nodes (bmv2 `DEFAULT_L1_MAX_ENTRIES`).
pub const DEFAULT_MAX_NODES: usize = 4096;

/// A node handle as returned by [`Pre::mc_node_create`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeHandle(pub u32);

/// One copy made by the PRE: the egress port and `egress_rid` it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Replica {
    /// Egress port of the copy.
    pub port: u32,
    /// Replication id (`standard_metadata.egress_rid`) of the copy.
    pub rid: u32,
}

/// Errors from PRE and clone-session configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PreError {
    /// No multicast group with this id exists.
    #[error("unknown multicast group {0}")]
    UnknownGroup(u32),
    /// No node with this handle exists.
    #[error("unknown multicast node handle {0}")]
    UnknownNode(u32),
    /// The node already belongs to a group (bmv2 allows one group per node).
    #[error("node {node} is already associated with group {group}")]
    NodeAlreadyAssociated {
        /// The node.
        node: u32,
        /// The group it belongs to.
        group: u32,
    },
    /// The node is not a member of the group.
    #[error("node {node} is not associated with group {group}")]
    NodeNotInGroup {
        /// The node.
        node: u32,
        /// The group named in the request.
        group: u32,
    },
    /// A port number at or above [`PORT_LIMIT`].
    #[error("port {0} is out of range (must be below {PORT_LIMIT})")]
    PortOutOfRange(u32),
    /// A LAG index at or above [`PORT_LIMIT`].
    #[error("LAG index {0} is out of range (must be below {PORT_LIMIT})")]
    LagOutOfRange(u32),
    /// The group table is full.
    #[error("multicast group table full ({0} groups)")]
    GroupTableFull(usize),
    /// The node table is full.
    #[error("multicast node table full ({0} nodes)")]
    NodeTableFull(usize),
    /// A clone session id above [`MAX_SESSION_ID`].
    #[error("clone session id {0} is out of range (0..={MAX_SESSION_ID})")]
    SessionOutOfRange(u32),
    /// No clone session with this id exists.
    #[error("clone session {0} not found")]
    UnknownSession(u32),
}

#[derive(Debug, Clone)]
struct Node {
    rid: u32,
    ports: BTreeSet<u32>,
    lags: BTreeSet<u32>,
    group: Option<u32>,
}

/// Where a clone session sends copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CloneSession {
    /// Send one copy to this port.
    pub egress_port: Option<u32>,
    /// Send copies to this multicast group.
    pub group: Option<u32>,
    /// Truncate copies to this many bytes.
    pub truncate_to: Option<u32>,
}

/// The packet replication engine with its clone sessions.
#[derive(Debug, Clone)]
pub struct Pre {
    groups: BTreeMap<u32, Vec<NodeHandle>>,
    nodes: BTreeMap<u32, Node>,
    lags: BTreeMap<u32, BTreeSet<u32>>,
    sessions: BTreeMap<u32, CloneSession>,
    max_groups: usize,
    max_nodes: usize,
}

impl Default for Pre {
    fn default() -> Self {
        Pre::new()
    }
}

fn check_ports(ports: &[u32], lags: &[u32]) -> Result<(BTreeSet<u32>, BTreeSet<u32>), PreError> {
    if let Some(&p) = ports.iter().find(|&&p| p >= PORT_LIMIT) {
        return Err(PreError::PortOutOfRange(p));
    }
    if let Some(&l) = lags.iter().find(|&&l| l >= PORT_LIMIT) {
        return Err(PreError::LagOutOfRange(l));
    }
    Ok((
        ports.iter().copied().collect(),
        lags.iter().copied().collect(),
    ))
}

fn check_session(session: u32) -> Result<(), PreError> {
    if session > MAX_SESSION_ID {
        return Err(PreError::SessionOutOfRange(session));
    }
    Ok(())
}

impl Pre {
    /// An empty PRE with bmv2's default table sizes.
    pub fn new() -> Pre {
        Pre::with_limits(DEFAULT_MAX_GROUPS, DEFAULT_MAX_NODES)
    }

    /// An empty PRE holding at most `max_groups` groups and `max_nodes` nodes.
    pub fn with_limits(max_groups: usize, max_nodes: usize) -> Pre {
        Pre {
            groups: BTreeMap::new(),
            nodes: BTreeMap::new(),
            lags: BTreeMap::new(),
            sessions: BTreeMap::new(),
            max_groups,
            max_nodes,
        }
    }

    /// Creates multicast group `group`. Creating an existing group succeeds
    /// and leaves its members alone, as in bmv2.
    pub fn mc_mgrp_create(&mut self, group: u32) -> Result<(), PreError> {
        if self.groups.contains_key(&group) {
            return Ok(());
        }
        if self.groups.len() >= self.max_groups {
            return Err(PreError::GroupTableFull(self.max_groups));
        }
        self.groups.insert(group, Vec::new());
        Ok(())
    }

    /// Destroys group `group`; its nodes survive, no longer associated
    /// (bmv2 would leave them pointing at the dead group).
    pub fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), PreError> {
        let members = self
            .groups
            .remove(&group)
            .ok_or(PreError::UnknownGroup(group))?;
        for NodeHandle(h) in members {
            if let Some(node) = self.nodes.get_mut(&h) {
                node.group = None;
            }
        }
        Ok(())
    }

    /// True when group `group` exists.
    pub fn group_exists(&self, group: u32) -> bool {
        self.groups.contains_key(&group)
    }

    /// Creates a node copying to `ports` and `lags` with replication id
    /// `rid`; returns the lowest free handle.
    pub fn mc_node_create(
        &mut self,
        rid: u32,
        ports: &[u32],
        lags: &[u32],
    ) -> Result<NodeHandle, PreError> {
        let (ports, lags) = check_ports(ports, lags)?;
        if self.nodes.len() >= self.max_nodes {
            return Err(PreError::NodeTableFull(self.max_nodes));
        }
        // The lowest integer not in use: the first gap in the sorted keys.
        let handle = self
            .nodes
            .keys()
            .zip(0u32..)
            .find(|(used, expected)| **used != *expected)
            .map_or(self.nodes.len() as u32, |(_, free)| free);
        self.nodes.insert(
            handle,
            Node {
                rid,
                ports,
                lags,
                group: None,
            },
        );
        Ok(NodeHandle(handle))
    }

    /// Replaces a node's ports and LAGs.
    pub fn mc_node_update(
        &mut self,
        node: NodeHandle,
        ports: &[u32],
        lags: &[u32],
    ) -> Result<(), PreError> {
        let (ports, lags) = check_ports(ports, lags)?;
        let entry = self
            .nodes
            .get_mut(&node.0)
            .ok_or(PreError::UnknownNode(node.0))?;
        entry.ports = ports;
        entry.lags = lags;
        Ok(())
    }

    /// Appends `node` to `group`'s list. A node can be in one group only.
    pub fn mc_node_associate(&mut self, group: u32, node: NodeHandle) -> Result<(), PreError> {
        let entry = self
            .nodes
            .get_mut(&node.0)
            .ok_or(PreError::UnknownNode(node.0))?;
        let members = self
            .groups
            .get_mut(&group)
            .ok_or(PreError::UnknownGroup(group))?;
        if let Some(current) = entry.group {
            return Err(PreError::NodeAlreadyAssociated {
                node: node.0,
                group: current,
            });
        }
        members.push(node);
        entry.group = Some(group);
        Ok(())
    }

    /// Removes `node` from `group`.
    pub fn mc_node_dissociate(&mut self, group: u32, node: NodeHandle) -> Result<(), PreError> {
        let entry = self
            .nodes
            .get_mut(&node.0)
            .ok_or(PreError::UnknownNode(node.0))?;
        let members = self
            .groups
            .get_mut(&group)
            .ok_or(PreError::UnknownGroup(group))?;
        if entry.group != Some(group) {
            return Err(PreError::NodeNotInGroup {
                node: node.0,
                group,
            });
        }
        members.retain(|n| *n != node);
        entry.group = None;
        Ok(())
    }

    /// Destroys `node`, removing it from its group first; its handle becomes
    /// free for reuse.
    pub fn mc_node_destroy(&mut self, node: NodeHandle) -> Result<(), PreError> {
        let entry = self
            .nodes
            .remove(&node.0)
            .ok_or(PreError::UnknownNode(node.0))?;
        if let Some(members) = entry.group.and_then(|g| self.groups.get_mut(&g)) {
            members.retain(|n| *n != node);
        }
        Ok(())
    }

    /// Sets the member ports of LAG `lag` (an empty set makes LAG copies
    /// disappear, as in bmv2).
    pub fn mc_set_lag_membership(&mut self, lag: u32, ports: &[u32]) -> Result<(), PreError> {
        let (ports, _) = check_ports(ports, &[])?;
        if lag >= PORT_LIMIT {
            return Err(PreError::LagOutOfRange(lag));
        }
        self.lags.insert(lag, ports);
        Ok(())
    }

    /// The members of `group` in association order.
    pub fn group_members(&self, group: u32) -> Result<&[NodeHandle], PreError> {
        self.groups
            .get(&group)
            .map(Vec::as_slice)
            .ok_or(PreError::UnknownGroup(group))
    }

    /// The copies multicast group `group` makes, in bmv2's order. An
    /// unknown group makes none (bmv2 logs a warning and drops). `lag_hash`
    /// picks the member port of each LAG.
    pub fn replicate(&self, group: u32, lag_hash: u64) -> Vec<Replica> {
        let mut out = Vec::new();
        self.replicate_into(group, lag_hash, &mut out);
        out
    }

    /// As [`Pre::replicate`], appending to `out` (a caller's reused
    /// vector).
    pub fn replicate_into(&self, group: u32, lag_hash: u64, out: &mut Vec<Replica>) {
        let Some(members) = self.groups.get(&group) else {
            return;
        };
        for NodeHandle(h) in members {
            let Some(node) = self.nodes.get(h) else {
                continue;
            };
            out.extend(node.ports.iter().map(|&port| Replica {
                port,
                rid: node.rid,
            }));
            for lag in &node.lags {
                let Some(ports) = self.lags.get(lag) else {
                    continue;
                };
                if ports.is_empty() {
                    continue;
                }
                let pick = (lag_hash % ports.len() as u64) as usize;
                if let Some(&port) = ports.iter().nth(pick) {
                    out.push(Replica {
                        port,
                        rid: node.rid,
                    });
                }
            }
        }
    }

    /// `mirroring_add <session> <port>`: clones go to `port`. Replaces any
    /// existing configuration of the session.
    pub fn mirroring_add(&mut self, session: u32, port: u32) -> Result<(), PreError> {
        self.set_clone_session(
            session,
            CloneSession {
                egress_port: Some(port),
                ..CloneSession::default()
            },
        )
    }

    /// `mirroring_add_mc <session> <group>`: clones go to a multicast group.
    pub fn mirroring_add_mc(&mut self, session: u32, group: u32) -> Result<(), PreError> {
        self.set_clone_session(
            session,
            CloneSession {
                group: Some(group),
                ..CloneSession::default()
            },
        )
    }

    /// Sets the full configuration of a clone session.
    pub fn set_clone_session(
        &mut self,
        session: u32,
        config: CloneSession,
    ) -> Result<(), PreError> {
        check_session(session)?;
        if let Some(port) = config.egress_port
            && port >= PORT_LIMIT
        {
            return Err(PreError::PortOutOfRange(port));
        }
        self.sessions.insert(session, config);
        Ok(())
    }

    /// `mirroring_delete <session>`.
    pub fn mirroring_delete(&mut self, session: u32) -> Result<(), PreError> {
        check_session(session)?;
        self.sessions
            .remove(&session)
            .map(|_| ())
            .ok_or(PreError::UnknownSession(session))
    }

    /// `mirroring_get <session>`.
    pub fn mirroring_get(&self, session: u32) -> Result<CloneSession, PreError> {
        check_session(session)?;
        self.sessions
            .get(&session)
            .copied()
            .ok_or(PreError::UnknownSession(session))
    }

    /// The copies a clone to `session` makes: the multicast copies (if the
    /// session has a group) and then the port copy with rid 0. An
    /// unconfigured session makes none, as in simple_switch.
    pub fn clone_replicas(&self, session: u32, lag_hash: u64) -> Vec<Replica> {
        let Some(config) = self.sessions.get(&session) else {
            return Vec::new();
        };
        let mut out = config
            .group
            .map_or_else(Vec::new, |g| self.replicate(g, lag_hash));
        if let Some(port) = config.egress_port {
            out.push(Replica { port, rid: 0 });
        }
        out
    }

    /// Forgets every group, node, LAG and clone session.
    pub fn reset(&mut self) {
        self.groups.clear();
        self.nodes.clear();
        self.lags.clear();
        self.sessions.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(port: u32, rid: u32) -> Replica {
        Replica { port, rid }
    }

    #[test]
    fn replicates_in_association_then_port_order() {
        let mut pre = Pre::new();
        pre.mc_mgrp_create(1).unwrap();
        let a = pre.mc_node_create(10, &[5, 2, 7], &[]).unwrap();
        let b = pre.mc_node_create(20, &[1], &[]).unwrap();
        let c = pre.mc_node_create(30, &[3], &[]).unwrap();
        assert_eq!((a, b, c), (NodeHandle(0), NodeHandle(1), NodeHandle(2)));
        pre.mc_node_associate(1, c).unwrap();
        pre.mc_node_associate(1, a).unwrap();
        pre.mc_node_associate(1, b).unwrap();
        assert_eq!(
            pre.replicate(1, 0),
            vec![r(3, 30), r(2, 10), r(5, 10), r(7, 10), r(1, 20)]
        );
        assert_eq!(pre.group_members(1).unwrap(), &[c, a, b]);
        assert!(pre.replicate(99, 0).is_empty());
    }

    #[test]
    fn handles_reuse_the_lowest_free_value() {
        let mut pre = Pre::new();
        for expected in 0..4 {
            assert_eq!(
                pre.mc_node_create(0, &[1], &[]).unwrap(),
                NodeHandle(expected)
            );
        }
        pre.mc_node_destroy(NodeHandle(1)).unwrap();
        pre.mc_node_destroy(NodeHandle(2)).unwrap();
        assert_eq!(pre.mc_node_create(0, &[1], &[]).unwrap(), NodeHandle(1));
        assert_eq!(pre.mc_node_create(0, &[1], &[]).unwrap(), NodeHandle(2));
        assert_eq!(pre.mc_node_create(0, &[1], &[]).unwrap(), NodeHandle(4));
    }

    #[test]
    fn association_rules() {
        let mut pre = Pre::new();
        pre.mc_mgrp_create(1).unwrap();
        pre.mc_mgrp_create(2).unwrap();
        let n = pre.mc_node_create(0, &[1], &[]).unwrap();
        assert_eq!(pre.mc_node_associate(3, n), Err(PreError::UnknownGroup(3)));
        assert_eq!(
            pre.mc_node_associate(1, NodeHandle(9)),
            Err(PreError::UnknownNode(9))
        );
        pre.mc_node_associate(1, n).unwrap();
        assert_eq!(
            pre.mc_node_associate(2, n),
            Err(PreError::NodeAlreadyAssociated { node: 0, group: 1 })
        );
        assert_eq!(
            pre.mc_node_dissociate(2, n),
            Err(PreError::NodeNotInGroup { node: 0, group: 2 })
        );
        pre.mc_node_dissociate(1, n).unwrap();
        assert!(pre.replicate(1, 0).is_empty());
        pre.mc_node_associate(2, n).unwrap();
        assert_eq!(pre.replicate(2, 0), vec![r(1, 0)]);
        // Re-creating a group keeps its members (bmv2 behaviour).
        pre.mc_mgrp_create(2).unwrap();
        assert_eq!(pre.replicate(2, 0), vec![r(1, 0)]);
        // Destroying a group frees its nodes for another group.
        pre.mc_mgrp_destroy(2).unwrap();
        assert_eq!(pre.mc_mgrp_destroy(2), Err(PreError::UnknownGroup(2)));
        pre.mc_node_associate(1, n).unwrap();
        // Destroying a node removes it from its group.
        pre.mc_node_destroy(n).unwrap();
        assert!(pre.replicate(1, 0).is_empty());
        assert_eq!(pre.mc_node_destroy(n), Err(PreError::UnknownNode(0)));
        assert_eq!(
            pre.mc_node_update(n, &[1], &[]),
            Err(PreError::UnknownNode(0))
        );
    }

    #[test]
    fn limits_and_ranges() {
        let mut pre = Pre::with_limits(1, 1);
        pre.mc_mgrp_create(1).unwrap();
        assert_eq!(pre.mc_mgrp_create(2), Err(PreError::GroupTableFull(1)));
        assert_eq!(
            pre.mc_node_create(0, &[512], &[]),
            Err(PreError::PortOutOfRange(512))
        );
        assert_eq!(
            pre.mc_node_create(0, &[], &[600]),
            Err(PreError::LagOutOfRange(600))
        );
        pre.mc_node_create(0, &[511], &[]).unwrap();
        assert_eq!(
            pre.mc_node_create(0, &[1], &[]),
            Err(PreError::NodeTableFull(1))
        );
    }

    #[test]
    fn lags_pick_one_member_by_hash() {
        let mut pre = Pre::new();
        pre.mc_mgrp_create(7).unwrap();
        let n = pre.mc_node_create(4, &[1], &[2, 3, 9]).unwrap();
        pre.mc_node_associate(7, n).unwrap();
        pre.mc_set_lag_membership(2, &[10, 12, 11]).unwrap();
        pre.mc_set_lag_membership(3, &[]).unwrap();
        // LAG 9 has no membership; LAG 3 is empty: both are skipped.
        assert_eq!(pre.replicate(7, 0), vec![r(1, 4), r(10, 4)]);
        assert_eq!(pre.replicate(7, 4), vec![r(1, 4), r(11, 4)]);
        assert_eq!(pre.replicate(7, 5), vec![r(1, 4), r(12, 4)]);
        pre.mc_node_update(n, &[], &[2]).unwrap();
        assert_eq!(pre.replicate(7, 2), vec![r(12, 4)]);
        assert_eq!(
            pre.mc_set_lag_membership(512, &[1]),
            Err(PreError::LagOutOfRange(512))
        );
    }

    #[test]
    fn clone_sessions() {
        let mut pre = Pre::new();
        pre.mc_mgrp_create(1).unwrap();
        let n = pre.mc_node_create(3, &[4, 5], &[]).unwrap();
        pre.mc_node_associate(1, n).unwrap();
        pre.mirroring_add(10, 2).unwrap();
        assert_eq!(pre.clone_replicas(10, 0), vec![r(2, 0)]);
        pre.mirroring_add_mc(11, 1).unwrap();
        assert_eq!(pre.clone_replicas(11, 0), vec![r(4, 3), r(5, 3)]);
        pre.set_clone_session(
            12,
            CloneSession {
                egress_port: Some(9),
                group: Some(1),
                truncate_to: Some(64),
            },
        )
        .unwrap();
        assert_eq!(pre.clone_replicas(12, 0), vec![r(4, 3), r(5, 3), r(9, 0)]);
        assert_eq!(pre.mirroring_get(12).unwrap().truncate_to, Some(64));
        assert!(pre.clone_replicas(13, 0).is_empty());
        assert_eq!(pre.mirroring_get(13), Err(PreError::UnknownSession(13)));
        assert_eq!(
            pre.mirroring_add(MAX_SESSION_ID + 1, 1),
            Err(PreError::SessionOutOfRange(MAX_SESSION_ID + 1))
        );
        assert_eq!(
            pre.mirroring_add(1, 512),
            Err(PreError::PortOutOfRange(512))
        );
        pre.mirroring_delete(10).unwrap();
        assert_eq!(pre.mirroring_delete(10), Err(PreError::UnknownSession(10)));
        // mirroring_add replaces the whole configuration.
        pre.mirroring_add(12, 8).unwrap();
        assert_eq!(pre.clone_replicas(12, 0), vec![r(8, 0)]);
        pre.reset();
        assert!(pre.clone_replicas(12, 0).is_empty());
        assert!(!pre.group_exists(1));
    }
}
