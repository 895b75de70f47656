//! Several switches under one controller: jobs whose workers sit behind
//! different switches, aggregated on a tree (`docs/protocol.md` §9).
//!
//! The fabric topology file names the switches, the links between them and
//! the hosts behind each:
//!
//! ```toml
//! [[switch]]
//! name = "tor1"
//! p4runtime = "10.0.0.101:9559"   # optional: where `esa controller --fabric` reaches it
//! device_id = 1                    # optional (0)
//! aggregate = true                 # optional: false keeps it out of aggregation (§9.6)
//! ports = [1, 2, 9]                # optional: the ports in use
//!
//! [[link]]
//! a = { switch = "tor1", port = 9 }
//! b = { switch = "spine", port = 1 }
//!
//! [[host]]
//! name = "w1"
//! switch = "tor1"
//! mac = "02:00:00:00:00:01"
//! ip = "10.0.0.1"
//! port = 1
//! ```
//!
//! Each switch has a [`Controller`] of its own (its own P4Runtime session,
//! supervisor and record) programmed with the hosts behind it
//! ([`FabricTopology::switch_topology`]); a [`FabricController`] admits
//! jobs across them. A job whose workers and PS are behind one switch is a
//! flat job there. Otherwise its tree's leaves are its workers' switches
//! and its root the PS's switch, which must hold none of its workers and
//! be linked directly to every leaf ([`FabricTopology::plan`]); each
//! switch gets its part ([`Job`] with its [`TreeRole`]), installed one
//! switch after another and removed again when any switch refuses.
//!
//! A switch that cannot give the job memory (no free `switchml` range, or
//! `aggregate = false`) still holds the job's entry without aggregating,
//! so the job falls back at that level only (§9.6); the racks that
//! aggregate take the root's low bits. A job is refused only when it
//! cannot be placed (a switch without a link to the root, more than 32
//! racks or 32 workers in a rack) or a switch cannot hold its entry,
//! naming the switch.
//!
//! The fabric keeps no record of its own: a job is the parts its switches'
//! controllers hold under its id ([`FabricController::jobs`]), which they
//! restore after restarts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use esa_core::constants::MAX_FAN_IN;
use esa_core::job::{Mode, SlotRange, TreeRole, TreeShape, Uplink};
use serde::Deserialize;

use crate::backend::SwitchBackend;
use crate::controller::{Controller, JobStats};
use crate::error::{AdmitError, Error, TopologyError};
use crate::jobs::{
    Endpoint, Job, JobRequest, JobTable, describe, invalid, job_id, mode_and_priority, own_range,
};
use crate::topology::{Host, HostEntry, MAX_PORT, Topology};

/// A switch of the fabric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FabricSwitch {
    /// Unique name.
    pub name: String,
    /// Its P4Runtime server (`host:port`); `None` when whoever makes its
    /// [`Controller`] knows.
    pub p4runtime: Option<String>,
    /// Its P4Runtime device id.
    pub device_id: u64,
    /// Whether jobs aggregate in it; `false` keeps it out of aggregation:
    /// it forwards its jobs' packets to their PS (§9.6).
    pub aggregate: bool,
    /// Ports in use; empty means "any port up to [`MAX_PORT`]".
    pub ports: BTreeSet<u16>,
}

impl FabricSwitch {
    /// A switch called `name` that aggregates, on any port.
    pub fn new(name: &str) -> FabricSwitch {
        FabricSwitch {
            name: name.to_owned(),
            p4runtime: None,
            device_id: 0,
            aggregate: true,
            ports: BTreeSet::new(),
        }
    }
}

/// A port of a switch of the fabric.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchPort {
    /// The switch's name.
    pub switch: String,
    /// The port.
    pub port: u16,
}

impl std::fmt::Display for SwitchPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.switch, self.port)
    }
}

/// Switches, the links between them and the hosts behind them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FabricTopology {
    switches: BTreeMap<String, FabricSwitch>,
    /// Each switch's hosts, as its own controller takes them.
    hosts: BTreeMap<String, Topology>,
    /// Both ends of each link, each way: `a → b` and `b → a`.
    links: BTreeMap<SwitchPort, SwitchPort>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    switch: Vec<SwitchSection>,
    #[serde(default)]
    link: Vec<LinkSection>,
    #[serde(default)]
    host: Vec<HostSection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SwitchSection {
    name: String,
    p4runtime: Option<String>,
    #[serde(default)]
    device_id: u64,
    #[serde(default = "yes")]
    aggregate: bool,
    #[serde(default)]
    ports: Vec<u16>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkSection {
    a: SwitchPort,
    b: SwitchPort,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostSection {
    name: String,
    switch: String,
    mac: String,
    ip: String,
    port: u16,
}

impl FabricTopology {
    /// No switches yet.
    pub fn new() -> FabricTopology {
        FabricTopology::default()
    }

    /// Reads and checks a fabric topology file.
    pub fn load(path: &Path) -> Result<FabricTopology, TopologyError> {
        FabricTopology::parse(&crate::topology::read_topology(path)?)
    }

    /// Parses and checks fabric topology text; the error names the entry
    /// (`switch[1]`, `link[0]`, `host[2] ("w3")`) and the key.
    pub fn parse(text: &str) -> Result<FabricTopology, TopologyError> {
        let file: File = toml::from_str(text).map_err(|e| TopologyError::Parse(e.to_string()))?;
        let mut fabric = FabricTopology::new();
        for (index, s) in file.switch.into_iter().enumerate() {
            let switch = FabricSwitch {
                name: s.name,
                p4runtime: s.p4runtime,
                device_id: s.device_id,
                aggregate: s.aggregate,
                ports: BTreeSet::new(),
            };
            let at = format!("switch[{index}] ({:?})", switch.name);
            let mut ports = BTreeSet::new();
            for port in s.ports {
                if port > MAX_PORT || !ports.insert(port) {
                    return Err(TopologyError::Invalid(format!(
                        "{at}.ports: port {port} is above {MAX_PORT} or listed twice"
                    )));
                }
            }
            fabric
                .add_switch(FabricSwitch { ports, ..switch })
                .map_err(|e| TopologyError::Invalid(format!("{at}: {e}")))?;
        }
        if fabric.switches.is_empty() {
            return Err(TopologyError::Invalid(
                "a fabric needs at least one [[switch]]".into(),
            ));
        }
        for (index, l) in file.link.into_iter().enumerate() {
            fabric
                .add_link(l.a, l.b)
                .map_err(|e| TopologyError::Invalid(format!("link[{index}]: {e}")))?;
        }
        for (index, h) in file.host.iter().enumerate() {
            let entry = HostEntry {
                name: &h.name,
                mac: &h.mac,
                ip: &h.ip,
                port: h.port,
            };
            fabric
                .add_host_entry(index, &h.switch, entry)
                .map_err(TopologyError::Invalid)?;
        }
        Ok(fabric)
    }

    /// Adds a switch; its name must be new and not empty.
    pub fn add_switch(&mut self, switch: FabricSwitch) -> Result<(), String> {
        if switch.name.is_empty() || switch.name.contains(':') {
            return Err(format!(
                "switch name {:?}: not empty and without ':'",
                switch.name
            ));
        }
        if self.switches.contains_key(&switch.name) {
            return Err(format!("switch name {:?} is taken", switch.name));
        }
        let hosts = Topology {
            ports: switch.ports.clone(),
            hosts: BTreeMap::new(),
        };
        self.hosts.insert(switch.name.clone(), hosts);
        self.switches.insert(switch.name.clone(), switch);
        Ok(())
    }

    /// Links two ports of two switches; neither may be in use.
    pub fn add_link(&mut self, a: SwitchPort, b: SwitchPort) -> Result<(), String> {
        if a.switch == b.switch {
            return Err(format!("{a} and {b}: a link joins two switches"));
        }
        for end in [&a, &b] {
            self.check_free(end)?;
        }
        self.links.insert(a.clone(), b.clone());
        self.links.insert(b, a);
        Ok(())
    }

    /// Adds `host` behind `switch` (checked as [`Topology::add_entry`]
    /// checks a host; names, MACs and IPv4 addresses are unique over the
    /// fabric).
    pub fn add_host(&mut self, switch: &str, host: Host) -> Result<(), String> {
        let (mac, ip) = (host.mac.to_string(), host.ip.to_string());
        let index = self.hosts.values().map(|t| t.hosts.len()).sum();
        let entry = HostEntry {
            name: &host.name,
            mac: &mac,
            ip: &ip,
            port: host.port,
        };
        self.add_host_entry(index, switch, entry)
    }

    fn add_host_entry(
        &mut self,
        index: usize,
        switch: &str,
        entry: HostEntry<'_>,
    ) -> Result<(), String> {
        let at = format!("host[{index}] ({:?})", entry.name);
        if !self.switches.contains_key(switch) {
            return Err(format!("{at}.switch = {switch:?}: no such switch"));
        }
        let end = SwitchPort {
            switch: switch.to_owned(),
            port: entry.port,
        };
        if let Some(other) = self.links.get(&end) {
            return Err(format!("{at}.port: {end} is linked to {other}"));
        }
        if let Some((other, _)) = self.locate(entry.name) {
            return Err(format!("{at}: the name is taken behind {other}"));
        }
        let candidate = {
            let mut t = Topology::default();
            t.add_entry(index, entry)?.clone()
        };
        if let Some(other) = self
            .all_hosts()
            .find(|h| h.mac == candidate.mac || h.ip == candidate.ip)
        {
            return Err(format!(
                "{at}: its MAC or IPv4 address is taken by {}",
                other.name
            ));
        }
        let hosts = self.hosts.get_mut(switch).expect("checked above");
        hosts.add_entry(index, entry)?;
        Ok(())
    }

    /// An error unless `end` is a port of a known switch that no link or
    /// host uses.
    fn check_free(&self, end: &SwitchPort) -> Result<(), String> {
        let hosts = self
            .hosts
            .get(&end.switch)
            .ok_or_else(|| format!("{end}: no switch {:?}", end.switch))?;
        hosts
            .check_port(end.port)
            .map_err(|e| format!("{end}: {e}"))?;
        if let Some(other) = self.links.get(end) {
            return Err(format!("{end} is linked to {other} already"));
        }
        if let Some(h) = hosts.host_on(end.port) {
            return Err(format!("{end} is host {}'s", h.name));
        }
        Ok(())
    }

    fn all_hosts(&self) -> impl Iterator<Item = &Host> {
        self.hosts.values().flat_map(|t| t.hosts.values())
    }

    /// The host behind `switch`'s port `port`, if any.
    pub fn host_on(&self, switch: &str, port: u16) -> Option<&Host> {
        self.hosts.get(switch)?.host_on(port)
    }

    /// The switches, by name.
    pub fn switches(&self) -> impl Iterator<Item = &FabricSwitch> {
        self.switches.values()
    }

    /// The hosts behind `switch`, as that switch's own [`Controller`]
    /// takes them.
    pub fn switch_topology(&self, switch: &str) -> Option<Topology> {
        self.hosts.get(switch).cloned()
    }

    /// The switch behind which host `name` is, and the host.
    pub fn locate(&self, name: &str) -> Option<(&str, &Host)> {
        self.hosts
            .iter()
            .find_map(|(switch, t)| Some((switch.as_str(), t.hosts.get(name)?)))
    }

    /// The ports of a link from `from` to `to`: `(port at from, port at
    /// to)`, the lowest such link's.
    pub fn link_between(&self, from: &str, to: &str) -> Option<(u16, u16)> {
        self.links
            .iter()
            .find(|(a, b)| a.switch == from && b.switch == to)
            .map(|(a, b)| (a.port, b.port))
    }

    /// Checks a request against the fabric and the switches' admitted jobs
    /// (`tables`, by switch name) and decides each switch's part; changes
    /// nothing. Workers and PS must be named by host.
    pub fn plan(
        &self,
        request: &JobRequest,
        tables: &BTreeMap<String, JobTable>,
    ) -> Result<TreeJob, AdmitError> {
        let (mode, max_priority) = mode_and_priority(request)?;
        let n = request.workers.len();
        let most = usize::from(MAX_FAN_IN) * usize::from(MAX_FAN_IN);
        if !(2..=most).contains(&n) {
            return Err(invalid(format!(
                "a job needs 2..={most} workers (32 racks of 32), got {n}"
            )));
        }
        let ps = request
            .ps
            .as_ref()
            .ok_or_else(|| invalid("the parameter server is required"))?;
        let (ps_switch, ps_host) = self.resolve(ps)?;
        // The workers' switches in order of their first worker; each
        // switch's workers in the request's order.
        let mut racks: Vec<(&str, Vec<(usize, u16)>)> = vec![];
        let mut seen = BTreeSet::new();
        for (index, w) in request.workers.iter().enumerate() {
            let (switch, host) = self.resolve(w)?;
            if !seen.insert(host.name.as_str()) {
                return Err(invalid(format!(
                    "duplicate worker: {} appears twice",
                    describe(w)
                )));
            }
            if host.name == ps_host.name {
                return Err(invalid(format!("the PS {} is also a worker", describe(ps))));
            }
            match racks.iter_mut().find(|(s, _)| *s == switch) {
                Some((_, workers)) => workers.push((index, host.port)),
                None => racks.push((switch, vec![(index, host.port)])),
            }
        }
        let slots = match (mode.has_own_slots(), request.slots) {
            (true, Some(slots)) => Some(slots),
            (true, None) => return Err(invalid("a switchml job needs a slot range (slot count)")),
            (false, Some(_)) => {
                return Err(invalid(format!(
                    "{mode} jobs share the whole pool; a slot range is for switchml only"
                )));
            }
            (false, None) => None,
        };
        let id = job_id(request.job_id, |id| {
            tables.values().any(|t| t.get(id).is_some())
        })?;
        let table = |switch: &str| {
            tables
                .get(switch)
                .ok_or_else(|| AdmitError::NotFound(format!("switch `{switch}` has no controller")))
        };
        if let [(switch, _)] = racks[..]
            && switch == ps_switch
        {
            let flat = JobRequest {
                job_id: u32::from(id),
                ..request.clone()
            };
            let job = table(switch)?.plan(&flat, &self.hosts[switch])?;
            return Ok(TreeJob {
                id,
                workers: (0..n).map(|w| (0, w as u8)).collect(),
                parts: BTreeMap::from([(switch.to_owned(), job)]),
                root: None,
            });
        }
        if let Some((_, workers)) = racks.iter().find(|(s, _)| *s == ps_switch) {
            return Err(invalid(format!(
                "the PS {} is behind switch `{ps_switch}`, as {} of the job's workers are: a \
                 switch is a leaf or the root of a job's tree, not both; put the PS behind a \
                 switch linked to every worker's switch",
                describe(ps),
                workers.len()
            )));
        }
        if racks.len() > usize::from(MAX_FAN_IN) {
            return Err(invalid(format!(
                "the workers are behind {} switches; a tree has at most {MAX_FAN_IN} racks",
                racks.len()
            )));
        }
        if let Some((switch, workers)) = racks
            .iter()
            .find(|(_, w)| w.len() > usize::from(MAX_FAN_IN))
        {
            return Err(invalid(format!(
                "{} workers are behind switch `{switch}`; a rack holds at most {MAX_FAN_IN} of a job",
                workers.len()
            )));
        }
        // Each switch's slot range, and whether it aggregates: a switchml
        // range that does not fit leaves that switch without memory.
        // Every switch gives the job a range of the same size (§9.1): the
        // smallest pool of the tree's switches for jobs sharing the pool.
        let mut shared_pool = table(ps_switch)?.pool_slots();
        for (switch, _) in &racks {
            shared_pool = shared_pool.min(table(switch)?.pool_slots());
        }
        let memory = |switch: &str| -> Result<(SlotRange, bool), AdmitError> {
            let table = table(switch)?;
            let aggregate = self.switches[switch].aggregate;
            let Some(request) = slots else {
                return Ok((SlotRange::whole_pool(shared_pool as usize), aggregate));
            };
            let own = |base: u32| own_range(base, request.count);
            if !aggregate {
                return Ok((own(request.base.unwrap_or(0)), false));
            }
            match table.slot_range(request) {
                Ok(range) => Ok((range, true)),
                Err(AdmitError::Exhausted(_)) if request.base.is_none() => Ok((own(0), false)),
                Err(e) => Err(at_switch(switch, e)),
            }
        };
        let mut leaves = vec![];
        for (switch, workers) in &racks {
            let (up, down) = self.link_between(switch, ps_switch).ok_or_else(|| {
                invalid(format!(
                    "switch `{switch}` (the job's workers {}) has no link to `{ps_switch}`, the \
                     PS's switch: a job's tree is its workers' switches under the PS's",
                    workers
                        .iter()
                        .map(|&(w, _)| describe(&request.workers[w]))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            let (range, aggregate) = memory(switch)?;
            leaves.push(Leaf {
                switch,
                workers,
                up,
                down,
                range,
                aggregate,
            });
        }
        // The racks that aggregate take the low bits (§9.6).
        leaves.sort_by_key(|l| !l.aggregate);
        let rack_count = leaves.len() as u8;
        let aggregating = leaves.iter().filter(|l| l.aggregate).count() as u8;
        let part = |workers: Vec<u16>, ps_port: u16, range: SlotRange, fan_in: u8, tree| Job {
            id,
            mode,
            max_priority,
            workers,
            ps_port,
            mcast_group: id,
            slot_base: range.base,
            slot_mask: range.mask,
            fan_in,
            tree,
        };
        let mut parts = BTreeMap::new();
        let mut places = vec![(0, 0); n];
        for (bit, leaf) in leaves.iter().enumerate() {
            for (local, &(index, _)) in leaf.workers.iter().enumerate() {
                places[index] = (bit as u8, local as u8);
            }
            let uplink = Uplink {
                port: leaf.up,
                bit: bit as u8,
                root_fan_in: rack_count,
            };
            let tree = TreeRole::Leaf {
                uplink,
                aggregate: leaf.aggregate,
            };
            let workers: Vec<u16> = leaf.workers.iter().map(|&(_, port)| port).collect();
            let fan_in = workers.len() as u8;
            parts.insert(
                leaf.switch.to_owned(),
                part(workers, leaf.up, leaf.range, fan_in, tree),
            );
        }
        // A root sums at least two racks' partials; with fewer it forwards
        // them to the PS as one without memory does.
        let (range, memory_here) = memory(ps_switch)?;
        let root_aggregates = memory_here && aggregating >= 2;
        let children: Vec<u16> = leaves.iter().map(|l| l.down).collect();
        let tree = TreeRole::Root {
            aggregate: root_aggregates,
            racks: rack_count,
        };
        let fan_in = if root_aggregates {
            aggregating
        } else {
            rack_count
        };
        parts.insert(
            ps_switch.to_owned(),
            part(children, ps_host.port, range, fan_in, tree),
        );
        Ok(TreeJob {
            id,
            parts,
            root: Some(ps_switch.to_owned()),
            workers: places,
        })
    }

    /// The switch and host an endpoint names.
    fn resolve(&self, e: &Endpoint) -> Result<(&str, &Host), AdmitError> {
        match e {
            Endpoint::Host(name) => self
                .locate(name)
                .ok_or_else(|| AdmitError::NotFound(format!("host `{name}` is not in the fabric"))),
            Endpoint::Port(port) => Err(invalid(format!(
                "port {port}: on a fabric of switches, name workers and the PS by host"
            ))),
        }
    }
}

/// A leaf of a tree being planned.
struct Leaf<'a> {
    switch: &'a str,
    /// (index in the request, port).
    workers: &'a [(usize, u16)],
    /// Its port towards the root, and the root's towards it.
    up: u16,
    down: u16,
    range: SlotRange,
    aggregate: bool,
}

fn at_switch(switch: &str, e: AdmitError) -> AdmitError {
    let say = |m: String| format!("switch `{switch}`: {m}");
    match e {
        AdmitError::Invalid(m) => AdmitError::Invalid(say(m)),
        AdmitError::NotFound(m) => AdmitError::NotFound(say(m)),
        AdmitError::AlreadyExists(m) => AdmitError::AlreadyExists(say(m)),
        AdmitError::Exhausted(m) => AdmitError::Exhausted(say(m)),
    }
}

/// A job on the fabric: its part on each switch of its tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeJob {
    /// Job id, the same on every switch.
    pub id: u16,
    /// Switch name → the job's part there.
    pub parts: BTreeMap<String, Job>,
    /// The root's switch; `None` for a flat job.
    pub root: Option<String>,
    /// Per worker: (its rack's bit at the root, its id in its rack); a
    /// flat job's worker *w* is (0, *w*). In the request's order as
    /// admitted; in (rack, id) order when read back
    /// ([`FabricController::jobs`]).
    pub workers: Vec<(u8, u8)>,
}

impl TreeJob {
    /// Workers per rack bit (a tree's shape, for its hosts' plan); `None`
    /// for a flat job.
    pub fn shape(&self) -> Option<TreeShape> {
        self.root.as_ref()?;
        let mut per_rack = vec![];
        for &(rack, _) in &self.workers {
            let rack = usize::from(rack);
            if per_rack.len() <= rack {
                per_rack.resize(rack + 1, 0u8);
            }
            per_rack[rack] += 1;
        }
        TreeShape::new(&per_rack)
    }

    /// The job's mode (every part has it).
    pub fn mode(&self) -> Option<Mode> {
        self.parts.values().next().map(|j| j.mode)
    }

    /// Its leaves' parts in rack-bit order, with their switches and bits
    /// (none for a flat job).
    pub fn leaves(&self) -> Vec<(&str, &Job, u8)> {
        leaves_by_bit(&self.parts)
    }

    /// Rebuilds a job from its parts as the switches hold them.
    fn from_parts(id: u16, parts: BTreeMap<String, Job>) -> TreeJob {
        let root = parts
            .iter()
            .find(|(_, j)| j.tree.is_upper())
            .map(|(s, _)| s.clone());
        let mut workers = vec![];
        match &root {
            None => {
                let count = parts.values().next().map_or(0, |j| j.workers.len());
                workers.extend((0..count).map(|w| (0, w as u8)));
            }
            Some(_) => {
                for (_, leaf, bit) in leaves_by_bit(&parts) {
                    let count = leaf.workers.len();
                    workers.extend((0..count).map(|local| (bit, local as u8)));
                }
            }
        }
        TreeJob {
            id,
            parts,
            root,
            workers,
        }
    }
}

/// The leaf parts among `parts` (switch → part), in rack-bit order.
fn leaves_by_bit(parts: &BTreeMap<String, Job>) -> Vec<(&str, &Job, u8)> {
    let mut leaves: Vec<(&str, &Job, u8)> = parts
        .iter()
        .filter_map(|(switch, j)| Some((switch.as_str(), j, j.tree.uplink()?.bit)))
        .collect();
    leaves.sort_by_key(|&(_, _, bit)| bit);
    leaves
}

/// Admits, releases and reads jobs across the switches of a fabric, each
/// through its own [`Controller`].
#[derive(Debug)]
pub struct FabricController<S> {
    topology: FabricTopology,
    controllers: BTreeMap<String, Arc<Controller<S>>>,
    /// Held across an admission or release: planning reads every switch's
    /// jobs, then writes them.
    busy: tokio::sync::Mutex<()>,
}

impl<S: SwitchBackend> FabricController<S> {
    /// Jobs across `controllers`, one per switch of `topology` (by name),
    /// each made with that switch's [`FabricTopology::switch_topology`] and
    /// run by the caller.
    pub fn new(
        topology: FabricTopology,
        controllers: BTreeMap<String, Arc<Controller<S>>>,
    ) -> Result<FabricController<S>, Error> {
        let named: BTreeSet<&String> = topology.switches.keys().collect();
        let given: BTreeSet<&String> = controllers.keys().collect();
        if named != given {
            return Err(TopologyError::Invalid(format!(
                "the fabric's switches {named:?} and the controllers given {given:?} differ"
            ))
            .into());
        }
        for (name, c) in &controllers {
            if c.topology() != &topology.hosts[name] {
                return Err(TopologyError::Invalid(format!(
                    "switch `{name}`'s controller was not made with its hosts in the fabric"
                ))
                .into());
            }
        }
        Ok(FabricController {
            topology,
            controllers,
            busy: tokio::sync::Mutex::new(()),
        })
    }

    /// The fabric.
    pub fn topology(&self) -> &FabricTopology {
        &self.topology
    }

    /// Each switch's controller, by switch name.
    pub fn controllers(&self) -> &BTreeMap<String, Arc<Controller<S>>> {
        &self.controllers
    }

    /// Admits a job on every switch of its tree ([`FabricTopology::plan`]),
    /// one switch after another; when one refuses, the parts installed
    /// already are released and the error names that switch.
    pub async fn admit(&self, request: &JobRequest) -> Result<TreeJob, Error> {
        self.admit_for(request, None).await
    }

    /// [`FabricController::admit`] on behalf of tenant `owner` (the job
    /// API's caller), recorded with each part.
    pub async fn admit_for(
        &self,
        request: &JobRequest,
        owner: Option<&str>,
    ) -> Result<TreeJob, Error> {
        let _busy = self.busy.lock().await;
        let mut tables = BTreeMap::new();
        for (name, c) in &self.controllers {
            tables.insert(name.clone(), c.table().await);
        }
        let job = self.topology.plan(request, &tables)?;
        let mut installed: Vec<&str> = vec![];
        for (switch, part) in &job.parts {
            if let Err(e) = self.controllers[switch].install(part.clone(), owner).await {
                for done in installed.into_iter().rev() {
                    if let Err(undo) = self.controllers[done].release(u32::from(job.id)).await {
                        tracing::warn!(
                            "job {}: removing its part from `{done}` after `{switch}` refused \
                             failed too ({undo}); that switch's resync repairs it",
                            job.id
                        );
                    }
                }
                return Err(Error::OnSwitch {
                    switch: switch.clone(),
                    source: Box::new(e),
                });
            }
            installed.push(switch);
        }
        tracing::info!(
            "admitted job {} on {} switch(es){}",
            job.id,
            job.parts.len(),
            job.root
                .as_ref()
                .map_or(String::new(), |r| format!(", its root `{r}`"))
        );
        Ok(job)
    }

    /// The tenant that admitted job `job` (as its parts' switches record
    /// it), if any.
    pub async fn owner(&self, job: u16) -> Option<String> {
        for c in self.controllers.values() {
            if let Some(owner) = c.owner(job).await {
                return Some(owner);
            }
        }
        None
    }

    /// Every job the switches hold, rebuilt from their parts.
    pub async fn jobs(&self) -> Vec<TreeJob> {
        let mut parts: BTreeMap<u16, BTreeMap<String, Job>> = BTreeMap::new();
        for (name, c) in &self.controllers {
            for job in c.jobs().await {
                parts.entry(job.id).or_default().insert(name.clone(), job);
            }
        }
        parts
            .into_iter()
            .map(|(id, parts)| TreeJob::from_parts(id, parts))
            .collect()
    }

    /// Releases a job on every switch that holds a part of it. A switch
    /// that fails keeps its part (the error names it; releasing again
    /// finishes the job).
    pub async fn release(&self, job_id: u32) -> Result<TreeJob, Error> {
        let _busy = self.busy.lock().await;
        let job = self
            .jobs()
            .await
            .into_iter()
            .find(|j| u32::from(j.id) == job_id)
            .ok_or_else(|| AdmitError::NotFound(format!("job {job_id} is not admitted")))?;
        let mut failed = None;
        for switch in job.parts.keys() {
            if let Err(e) = self.controllers[switch].release(job_id).await {
                failed.get_or_insert(Error::OnSwitch {
                    switch: switch.clone(),
                    source: Box::new(e),
                });
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(job),
        }
    }

    /// Per job (`ids` empty: every job), its counters summed over the
    /// switches holding it (see [`Controller::stats`]).
    pub async fn stats(&self, ids: &[u32]) -> Result<Vec<JobStats>, Error> {
        let mut summed: BTreeMap<u16, Vec<(String, u64)>> = BTreeMap::new();
        for per_switch in self.stats_by_switch(ids).await?.into_values() {
            for stats in per_switch {
                let counters = summed.entry(stats.job).or_default();
                for (name, count) in stats.counters {
                    match counters.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, total)) => *total += count,
                        None => counters.push((name, count)),
                    }
                }
            }
        }
        Ok(summed
            .into_iter()
            .map(|(job, counters)| JobStats { job, counters })
            .collect())
    }

    /// Per switch, the counters of the jobs (`ids` empty: every job) it
    /// holds a part of.
    pub async fn stats_by_switch(
        &self,
        ids: &[u32],
    ) -> Result<BTreeMap<String, Vec<JobStats>>, Error> {
        let mut out = BTreeMap::new();
        for (name, c) in &self.controllers {
            let held: Vec<u32> = c
                .jobs()
                .await
                .iter()
                .map(|j| u32::from(j.id))
                .filter(|id| ids.is_empty() || ids.contains(id))
                .collect();
            if held.is_empty() {
                continue;
            }
            let stats = c.stats(&held).await.map_err(|e| Error::OnSwitch {
                switch: name.clone(),
                source: Box::new(e),
            })?;
            out.insert(name.clone(), stats);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::SlotRequest;

    /// Two ToRs under a spine: w1..w3 behind tor1, w4, w5 behind tor2,
    /// the PS `ps` and a stray worker `s1` behind the spine, `lone`
    /// behind tor3, which has no link to the spine.
    const FABRIC: &str = r#"
        [[switch]]
        name = "tor1"
        [[switch]]
        name = "tor2"
        [[switch]]
        name = "tor3"
        [[switch]]
        name = "spine"
        [[link]]
        a = { switch = "tor1", port = 9 }
        b = { switch = "spine", port = 1 }
        [[link]]
        a = { switch = "tor2", port = 9 }
        b = { switch = "spine", port = 2 }
    "#;

    fn fabric() -> FabricTopology {
        let hosts = [
            ("w1", "tor1", 1),
            ("w2", "tor1", 2),
            ("w3", "tor1", 3),
            ("w4", "tor2", 1),
            ("w5", "tor2", 2),
            ("p1", "tor1", 4),
            ("ps", "spine", 5),
            ("s1", "spine", 6),
            ("lone", "tor3", 1),
        ];
        let mut text = FABRIC.to_string();
        for (i, (name, switch, port)) in hosts.into_iter().enumerate() {
            text += &format!(
                "[[host]]\nname = {name:?}\nswitch = {switch:?}\nmac = \"02:00:00:00:00:{:02x}\"\n\
                 ip = \"10.0.0.{}\"\nport = {port}\n",
                i + 1,
                i + 1
            );
        }
        FabricTopology::parse(&text).unwrap()
    }

    fn tables(slots: u32) -> BTreeMap<String, JobTable> {
        ["tor1", "tor2", "tor3", "spine"]
            .map(|s| (s.to_string(), JobTable::new(slots)))
            .into()
    }

    fn request(mode: Mode, workers: &[&str], ps: &str) -> JobRequest {
        JobRequest {
            job_id: 0,
            workers: workers
                .iter()
                .map(|w| Endpoint::Host(w.to_string()))
                .collect(),
            ps: Some(Endpoint::Host(ps.into())),
            max_priority: 3,
            mode: Some(mode),
            slots: mode.has_own_slots().then_some(SlotRequest {
                base: None,
                count: 8,
            }),
        }
    }

    #[test]
    fn a_job_across_racks_gets_a_leaf_per_rack_and_the_root_at_its_ps() {
        let f = fabric();
        let job = f
            .plan(
                &request(Mode::Esa, &["w4", "w1", "w2", "w5"], "ps"),
                &tables(64),
            )
            .unwrap();
        assert_eq!(job.root.as_deref(), Some("spine"));
        // tor2's first worker comes first: rack 0 is tor2.
        assert_eq!(job.workers, [(0, 0), (1, 0), (1, 1), (0, 1)]);
        assert_eq!(job.shape(), TreeShape::new(&[2, 2]));
        let tor2 = &job.parts["tor2"];
        assert_eq!(
            (tor2.workers.as_slice(), tor2.ps_port, tor2.fan_in),
            (&[1, 2][..], 9, 2)
        );
        assert_eq!(
            tor2.tree,
            TreeRole::leaf(Uplink {
                port: 9,
                bit: 0,
                root_fan_in: 2
            })
        );
        let spine = &job.parts["spine"];
        assert_eq!(
            (spine.workers.as_slice(), spine.ps_port, spine.fan_in),
            (&[2, 1][..], 5, 2)
        );
        assert_eq!(spine.tree, TreeRole::root(2));
        assert_eq!((spine.slot_base, spine.slot_mask), (0, 63));
        // Pools of different sizes: every part takes the smallest.
        let mut t = tables(64);
        t.insert("tor1".into(), JobTable::new(16));
        let smallest = f
            .plan(&request(Mode::Atp, &["w1", "w4"], "ps"), &t)
            .unwrap();
        assert!(
            smallest
                .parts
                .values()
                .all(|j| (j.slot_base, j.slot_mask) == (0, 15))
        );
        // Read back from the parts, the workers come in (rack, id) order.
        let back = TreeJob::from_parts(job.id, job.parts.clone());
        assert_eq!(back.workers, [(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert_eq!(back.root, job.root);
        // All behind one switch: a flat job there.
        let flat = f
            .plan(&request(Mode::Atp, &["w1", "w3"], "p1"), &tables(64))
            .unwrap();
        assert_eq!(flat.root, None);
        assert_eq!(flat.parts["tor1"].tree, TreeRole::Flat);
        assert_eq!(flat.parts["tor1"].workers, [1, 3]);
        assert_eq!(flat.shape(), None);
    }

    #[test]
    fn a_level_without_memory_falls_back_alone() {
        let f = fabric();
        let mut t = tables(8);
        // tor1's only range of 8 slots is taken: tor1 falls back, and
        // tor2 takes the root's bit 0.
        let taken = f
            .plan(&request(Mode::SwitchMl, &["w1", "w2"], "p1"), &t)
            .unwrap();
        t.get_mut("tor1")
            .unwrap()
            .insert(taken.parts["tor1"].clone());
        let job = f
            .plan(&request(Mode::SwitchMl, &["w1", "w4", "w5"], "ps"), &t)
            .unwrap();
        let tor1 = &job.parts["tor1"];
        assert!(!tor1.tree.aggregates() && !tor1.holds_slots());
        assert_eq!(tor1.tree.uplink().unwrap().bit, 1);
        assert_eq!(job.parts["tor2"].tree.uplink().unwrap().bit, 0);
        // One rack aggregates: the root has nothing to add it to.
        let spine = &job.parts["spine"];
        assert!(!spine.tree.aggregates());
        assert_eq!(spine.fan_in, 2);
        assert!(t["tor1"].check_fits(tor1).is_ok());
        // A switch kept out of aggregation: its jobs never aggregate there.
        let mut f = fabric();
        f.switches.get_mut("spine").unwrap().aggregate = false;
        let job = f
            .plan(&request(Mode::Esa, &["w1", "w4"], "ps"), &tables(8))
            .unwrap();
        assert!(!job.parts["spine"].tree.aggregates());
        assert!(job.parts["tor1"].tree.aggregates());
    }

    #[test]
    fn jobs_it_cannot_place_are_refused_with_the_reason() {
        let f = fabric();
        let refused = |workers: &[&str], ps: &str| {
            f.plan(&request(Mode::Esa, workers, ps), &tables(8))
                .unwrap_err()
                .to_string()
        };
        assert!(refused(&["w1", "w4"], "p1").contains("a leaf or the root"));
        assert!(refused(&["w1", "lone"], "ps").contains("switch `tor3`"));
        assert!(refused(&["w1", "w1"], "ps").contains("duplicate worker"));
        assert!(refused(&["w1", "ps"], "ps").contains("also a worker"));
        assert!(refused(&["w1", "nobody"], "ps").contains("not in the fabric"));
        let mut r = request(Mode::Esa, &["w1", "w4"], "ps");
        r.workers[0] = Endpoint::Port(1);
        assert!(
            f.plan(&r, &tables(8))
                .unwrap_err()
                .to_string()
                .contains("by host")
        );
        let mut t = tables(8);
        let first = f
            .plan(&request(Mode::Esa, &["w1", "w4"], "ps"), &t)
            .unwrap();
        t.get_mut("tor2")
            .unwrap()
            .insert(first.parts["tor2"].clone());
        // The lowest id free on every switch.
        let second = f
            .plan(&request(Mode::Esa, &["w2", "w3"], "p1"), &t)
            .unwrap();
        assert_eq!((first.id, second.id), (1, 2));
    }

    #[test]
    fn the_file_is_checked() {
        let error = |text: &str| FabricTopology::parse(text).unwrap_err().to_string();
        assert!(error("").contains("at least one"));
        let two = "[[switch]]\nname = \"a\"\n[[switch]]\nname = \"b\"\n";
        assert!(error(&format!("{two}[[switch]]\nname = \"a\"\n")).contains("taken"));
        let link = |a: u16, b: &str| {
            format!(
                "[[link]]\na = {{ switch = \"a\", port = {a} }}\nb = {{ switch = {b:?}, port = 1 }}\n"
            )
        };
        assert!(error(&format!("{two}{}", link(1, "a"))).contains("joins two switches"));
        assert!(error(&format!("{two}{}", link(1, "c"))).contains("no switch"));
        assert!(error(&format!("{two}{}{}", link(1, "b"), link(1, "b"))).contains("linked to"));
        let host = "[[host]]\nname = \"h\"\nswitch = \"a\"\nmac = \"02:00:00:00:00:01\"\nip = \"10.0.0.1\"\nport = 1\n";
        let e = error(&format!("{two}{}{host}", link(1, "b")));
        assert!(
            e.contains("host[0] (\"h\").port: a:1 is linked to b:1"),
            "{e}"
        );
        let twice = format!("{two}{host}{}", host.replace("\"a\"", "\"b\""));
        assert!(error(&twice).contains("taken behind a"));
        let same_ip = format!(
            "{two}{host}{}",
            host.replace("\"h\"", "\"g\"").replace("00:01", "00:02")
        );
        assert!(error(&same_ip).contains("taken by h"));
        let ok = FabricTopology::parse(&format!("{two}{}{host}", link(2, "b"))).unwrap();
        assert_eq!(ok.link_between("b", "a"), Some((1, 2)));
        assert_eq!(ok.switch_topology("a").unwrap().hosts["h"].port, 1);
        assert!(ok.switch_topology("b").unwrap().hosts.is_empty());
    }
}
