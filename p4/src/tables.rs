//! The tables the controller writes, typed: one Rust type per key and
//! action, bound here to the P4 names and widths of both programs
//! (`p4/include/*.p4` for v1model, `p4/tna/esa.p4` for Tofino), and
//! nowhere else.
//!
//! [`TableKind::spec_for`] lists every table, key width, action and
//! parameter; the controller turns entries into P4Runtime messages,
//! [`crate::sim`] into p4sim calls and [`crate::text`] into STF lines, all
//! from the same [`TableEntry`]. The job table's action takes the model's
//! own [`JobEntry`].

use std::collections::BTreeSet;

use esa_core::constants::PS_WORKER_ID;
use esa_core::job::{JobEntry, Mode, TreeRole, Uplink};
use esa_core::wire::{Ipv4Addr, MacAddr};

use crate::program::Arch;

/// The tables the controller programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableKind {
    /// `EsaIngress.admission.jobs`: job id → `set_job`.
    Jobs,
    /// `EsaIngress.admission.job_ports`: (job, ingress port) → `allow`.
    JobPorts,
    /// `EsaIngress.admission.worker_ports`: (job, ingress port, sender id)
    /// → `allow_worker`: the ids a port may name on DATA, PROBE and RESULT.
    WorkerPorts,
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
    /// The exact-match key fields, in key order: name (as the program
    /// writes it, or its `@name`) and width.
    pub key: &'static [(&'static str, u32)],
    /// Fully qualified action name.
    pub action: &'static str,
    /// The action's parameters and widths, in declaration order.
    pub params: &'static [(&'static str, u32)],
    /// TNA `jobs`: one more key field, the 16-bit slot `hdr.esa.slot`,
    /// ternary (value 0, mask `~slot_mask`), so entries carry a priority.
    pub ternary_slot: bool,
}

/// `set_job`'s parameters and widths (both programs).
const SET_JOB: &[(&str, u32)] = &[
    ("fan_in", 8),
    ("mode", 2),
    ("max_priority", 4),
    ("mcast_group", 16),
    ("ps_port", 9),
    ("slot_base", 16),
    ("slot_mask", 16),
    ("tree_role", 2),
    ("aggregate", 1),
    ("racks", 8),
    ("uplink_port", 9),
    ("uplink_bit", 8),
];

/// `set_route`'s parameters and widths (both programs).
const SET_ROUTE: &[(&str, u32)] = &[
    ("ps_port", 9),
    ("fan_in", 8),
    ("slot_base", 16),
    ("slot_mask", 16),
    ("tree_role", 2),
    ("uplink_bit", 8),
];

/// `set_host`'s parameters and widths (both programs).
const SET_HOST: &[(&str, u32)] = &[("mac", 48), ("ip", 32)];

impl TableKind {
    /// Every table, in the order entries are written (jobs before the
    /// entries that refer to them).
    pub const ALL: [TableKind; 7] = [
        TableKind::L2,
        TableKind::EgressHost,
        TableKind::Jobs,
        TableKind::JobRoute,
        TableKind::JobPorts,
        TableKind::WorkerPorts,
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
                    key: &[("hdr.esa.job", 12)],
                    action: "EsaIngress.set_job",
                    params: SET_JOB,
                    ternary_slot: true,
                },
                TableKind::JobPorts => TableSpec {
                    name: "EsaIngress.job_ports",
                    key: &[("hdr.esa.job", 12), ("ig_intr_md.ingress_port", 9)],
                    action: "EsaIngress.allow",
                    params: &[],
                    ternary_slot: false,
                },
                TableKind::WorkerPorts => TableSpec {
                    name: "EsaIngress.worker_ports",
                    key: &[
                        ("hdr.esa.job", 12),
                        ("ig_intr_md.ingress_port", 9),
                        ("hdr.esa.worker", 8),
                    ],
                    action: "EsaIngress.allow_worker",
                    params: &[],
                    ternary_slot: false,
                },
                TableKind::JobRoute => TableSpec {
                    name: "EsaIngress.job_route",
                    key: &[("victim_job", 12)],
                    action: "EsaIngress.set_route",
                    params: SET_ROUTE,
                    ternary_slot: false,
                },
                TableKind::EgressHost => TableSpec {
                    name: "EsaEgress.egress_host",
                    key: &[("eg_intr_md.egress_port", 9)],
                    action: "EsaEgress.set_host",
                    params: SET_HOST,
                    ternary_slot: false,
                },
                TableKind::L2 => TableSpec {
                    name: "EsaIngress.l2",
                    key: &[("hdr.ethernet.dst", 48)],
                    action: "EsaIngress.forward",
                    params: &[("port", 9)],
                    ternary_slot: false,
                },
                TableKind::JobIds => TableSpec {
                    name: "EsaIngress.job_ids",
                    key: &[("hdr.esa.job", 12)],
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
                key: &[("hdr.esa.job", 12)],
                action: "EsaIngress.admission.set_job",
                params: SET_JOB,
                ternary_slot: false,
            },
            TableKind::JobPorts => TableSpec {
                name: "EsaIngress.admission.job_ports",
                key: &[("hdr.esa.job", 12), ("sm.ingress_port", 9)],
                action: "EsaIngress.admission.allow",
                params: &[],
                ternary_slot: false,
            },
            TableKind::WorkerPorts => TableSpec {
                name: "EsaIngress.admission.worker_ports",
                key: &[
                    ("hdr.esa.job", 12),
                    ("sm.ingress_port", 9),
                    ("hdr.esa.worker", 8),
                ],
                action: "EsaIngress.admission.allow_worker",
                params: &[],
                ternary_slot: false,
            },
            TableKind::JobRoute => TableSpec {
                name: "EsaIngress.aggregation.job_route",
                key: &[("route_job", 12)],
                action: "EsaIngress.aggregation.set_route",
                params: SET_ROUTE,
                ternary_slot: false,
            },
            TableKind::EgressHost => TableSpec {
                name: "EsaEgress.egress_host",
                key: &[("sm.egress_port", 9)],
                action: "EsaEgress.set_host",
                params: SET_HOST,
                ternary_slot: false,
            },
            TableKind::L2 => TableSpec {
                name: "EsaIngress.l2.l2",
                key: &[("hdr.ethernet.dst", 48)],
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
    pub const fn index(self) -> usize {
        match self {
            TableKind::L2 => 0,
            TableKind::EgressHost => 1,
            TableKind::Jobs => 2,
            TableKind::JobRoute => 3,
            TableKind::JobPorts => 4,
            TableKind::WorkerPorts => 5,
            TableKind::JobIds => 6,
        }
    }
}

/// Key of `jobs` and `job_route`: the job id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobKey {
    /// 1..=4095.
    pub job: u16,
}

/// Key of `job_ports`: a port allowed to send for a job (action `allow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobPortKey {
    /// The job.
    pub job: u16,
    /// The ingress port.
    pub port: u16,
}

/// Key of `worker_ports`: a sender id a port may name on a job's DATA,
/// PROBE and RESULT (action `allow_worker`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkerPortKey {
    /// The job.
    pub job: u16,
    /// The ingress port.
    pub port: u16,
    /// A worker id behind the port, or `PS_WORKER_ID` on the PS's port.
    pub worker: u8,
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
    /// The job's [`TreeRole::code`] here, so an evicted partial is marked
    /// for its PS (`docs/protocol.md` §9.2).
    pub tree_role: u8,
    /// A leaf's uplink bit (the rack), 0 otherwise.
    pub uplink_bit: u8,
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
    /// `jobs`: the job's entry, as the model (`esa_core::pool`) holds it.
    Job(JobKey, JobEntry),
    /// `job_ports` (action `allow`).
    JobPort(JobPortKey),
    /// `worker_ports` (action `allow_worker`).
    WorkerPort(WorkerPortKey),
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
            TableEntry::WorkerPort(_) => TableKind::WorkerPorts,
            TableEntry::JobRoute(..) => TableKind::JobRoute,
            TableEntry::EgressHost(..) => TableKind::EgressHost,
            TableEntry::L2(..) => TableKind::L2,
            TableEntry::JobId(_) => TableKind::JobIds,
        }
    }

    /// Key field values, in [`TableSpec::key`] order.
    pub fn key_values(&self) -> Vec<u64> {
        match *self {
            TableEntry::Job(k, _) | TableEntry::JobRoute(k, _) | TableEntry::JobId(k) => {
                vec![k.job.into()]
            }
            TableEntry::JobPort(k) => vec![k.job.into(), k.port.into()],
            TableEntry::WorkerPort(k) => vec![k.job.into(), k.port.into(), k.worker.into()],
            TableEntry::EgressHost(k, _) => vec![k.port.into()],
            TableEntry::L2(k, _) => vec![mac_u64(k.mac)],
        }
    }

    /// The entry's table in `arch`'s program; an error when that program
    /// has no such table, or cannot serve the entry: the TNA program runs
    /// every place on a tree (`docs/protocol.md` §9.3, §9.6) but a leaf of
    /// 32 workers, whose rack's partial it holds with bit 31 of the owner's
    /// pending set, worker 31's bit (docs/protocol.md, "On Tofino").
    pub fn spec_in(&self, arch: Arch) -> Result<TableSpec, String> {
        let spec = self
            .table()
            .spec_for(arch)
            .ok_or_else(|| format!("the {arch} program has no {:?} table", self.table()))?;
        match self {
            TableEntry::Job(k, e)
                if arch == Arch::Tna
                    && matches!(e.tree, TreeRole::Leaf { .. })
                    && e.fan_in > arch.max_leaf_fan_in() =>
            {
                Err(format!(
                    "job {}: the {arch} program runs a tree's leaf of at most {} workers, got {} (docs/protocol.md, \"On Tofino\")",
                    k.job,
                    arch.max_leaf_fan_in(),
                    e.fan_in
                ))
            }
            _ => Ok(spec),
        }
    }

    /// The mask of the ternary slot field of TNA's `jobs` (value 0):
    /// `~slot_mask`, so every slot of the job's range matches.
    pub fn slot_match_mask(&self) -> Result<u16, String> {
        match self {
            TableEntry::Job(_, job) => Ok(!job.slot_mask),
            _ => Err(format!(
                "{:?}: a ternary slot on a table other than jobs",
                self.table()
            )),
        }
    }

    /// Action parameter values, in [`TableSpec::params`] order.
    pub fn param_values(&self) -> Vec<u64> {
        match *self {
            TableEntry::Job(_, a) => {
                let (racks, uplink) = match a.tree {
                    TreeRole::Flat => (0, None),
                    TreeRole::Leaf { uplink, .. } => (uplink.root_fan_in, Some(uplink)),
                    TreeRole::Root { racks, .. } => (racks, None),
                };
                vec![
                    a.fan_in.into(),
                    a.mode.code().into(),
                    a.max_priority.into(),
                    a.mcast_group.into(),
                    a.ps_port.into(),
                    a.slot_base.into(),
                    a.slot_mask.into(),
                    a.tree.code().into(),
                    a.tree.aggregates().into(),
                    racks.into(),
                    uplink.map_or(0, |u| u.port.into()),
                    uplink.map_or(0, |u| u.bit.into()),
                ]
            }
            TableEntry::JobPort(_) | TableEntry::WorkerPort(_) | TableEntry::JobId(_) => vec![],
            TableEntry::JobRoute(_, a) => vec![
                a.ps_port.into(),
                a.fan_in.into(),
                a.slot_base.into(),
                a.slot_mask.into(),
                a.tree_role.into(),
                a.uplink_bit.into(),
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
        if key.len() != spec.key.len() || params.len() != spec.params.len() {
            return Err(format!("{}: wrong number of fields", spec.name));
        }
        Ok(match table {
            TableKind::Jobs => TableEntry::Job(
                JobKey {
                    job: narrow(key[0], "job")?,
                },
                JobEntry {
                    fan_in: narrow(params[0], "fan_in")?,
                    mode: mode_from_code(params[1])?,
                    max_priority: narrow(params[2], "max_priority")?,
                    mcast_group: narrow(params[3], "mcast_group")?,
                    ps_port: narrow(params[4], "ps_port")?,
                    slot_base: narrow(params[5], "slot_base")?,
                    slot_mask: narrow(params[6], "slot_mask")?,
                    tree: tree_from_values(
                        params[7], params[8], params[9], params[10], params[11],
                    )?,
                },
            ),
            TableKind::JobPorts => TableEntry::JobPort(JobPortKey {
                job: narrow(key[0], "job")?,
                port: narrow(key[1], "port")?,
            }),
            TableKind::WorkerPorts => TableEntry::WorkerPort(WorkerPortKey {
                job: narrow(key[0], "job")?,
                port: narrow(key[1], "port")?,
                worker: narrow(key[2], "worker")?,
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
                    tree_role: narrow(params[4], "tree_role")?,
                    uplink_bit: narrow(params[5], "uplink_bit")?,
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

/// A job's place on its tree from `set_job`'s `tree_role`, `aggregate`,
/// `racks`, `uplink_port` and `uplink_bit`.
fn tree_from_values(
    role: u64,
    aggregate: u64,
    racks: u64,
    uplink_port: u64,
    uplink_bit: u64,
) -> Result<TreeRole, String> {
    let aggregate = aggregate != 0;
    let racks = narrow(racks, "racks")?;
    Ok(match role {
        0 => TreeRole::Flat,
        1 => TreeRole::Leaf {
            uplink: Uplink {
                port: narrow(uplink_port, "uplink_port")?,
                bit: narrow(uplink_bit, "uplink_bit")?,
                root_fan_in: racks,
            },
            aggregate,
        },
        2 => TreeRole::Root { aggregate, racks },
        _ => return Err(format!("unknown tree role {role}")),
    })
}

/// The mode for a `set_job` mode code.
pub fn mode_from_code(code: u64) -> Result<Mode, String> {
    [Mode::Esa, Mode::Atp, Mode::SwitchMl]
        .into_iter()
        .find(|m| u64::from(m.code()) == code)
        .ok_or_else(|| format!("unknown mode code {code}"))
}

impl From<&JobEntry> for SetRoute {
    fn from(e: &JobEntry) -> SetRoute {
        SetRoute {
            ps_port: e.ps_port,
            fan_in: e.fan_in,
            slot_base: e.slot_base,
            slot_mask: e.slot_mask,
            tree_role: e.tree.code(),
            uplink_bit: e.tree.uplink().map_or(0, |u| u.bit),
        }
    }
}

/// The ports of a job whose worker *w* is on `worker_ports[w]`: each
/// distinct worker port in order, then the PS's (unless a worker shares
/// it): the members of its multicast group.
pub fn job_members(entry: &JobEntry, worker_ports: &[u16]) -> Vec<u16> {
    let mut out: Vec<u16> = vec![];
    for &port in worker_ports.iter().chain([&entry.ps_port]) {
        if !out.contains(&port) {
            out.push(port);
        }
    }
    out
}

/// Who may speak for whom in job `job`: worker *w* on `worker_ports[w]`,
/// `PS_WORKER_ID` on the PS's port (`worker_ports` entries).
pub fn sender_bindings(job: u16, entry: &JobEntry, worker_ports: &[u16]) -> Vec<WorkerPortKey> {
    (0..=u8::MAX)
        .zip(worker_ports)
        .map(|(worker, &port)| (worker, port))
        .chain([(PS_WORKER_ID, entry.ps_port)])
        .map(|(worker, port)| WorkerPortKey { job, port, worker })
        .collect()
}

/// Every table entry of job `job` with `entry` on `arch`'s program, whose
/// worker *w* is on `worker_ports[w]`: on TNA its `job_ids` entry, the job
/// and route entries, one authorization per port of [`job_members`], and
/// its [`sender_bindings`], in that order.
pub fn job_entries(
    arch: Arch,
    job: u16,
    entry: &JobEntry,
    worker_ports: &[u16],
) -> Vec<TableEntry> {
    let key = JobKey { job };
    let mut out = vec![];
    if arch == Arch::Tna {
        out.push(TableEntry::JobId(key));
    }
    out.push(TableEntry::Job(key, *entry));
    out.push(TableEntry::JobRoute(key, SetRoute::from(entry)));
    out.extend(
        job_members(entry, worker_ports)
            .into_iter()
            .map(|port| TableEntry::JobPort(JobPortKey { job, port })),
    );
    out.extend(
        sender_bindings(job, entry, worker_ports)
            .into_iter()
            .map(TableEntry::WorkerPort),
    );
    out
}

/// The host behind `port`: its `egress_host` entry.
pub const fn host_entry(port: u16, mac: MacAddr, ip: Ipv4Addr) -> TableEntry {
    TableEntry::EgressHost(PortKey { port }, SetHost { mac, ip })
}

/// The `l2` entry sending `mac` to `port`.
pub const fn l2_entry(mac: MacAddr, port: u16) -> TableEntry {
    TableEntry::L2(MacKey { mac }, Forward { port })
}

/// The pool's settings table, its default action that sets the stale
/// bound (an untouched slot older than that is stale), and that action's
/// one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolConfigSpec {
    /// Fully qualified table name.
    pub table: &'static str,
    /// Fully qualified action name.
    pub action: &'static str,
    /// The parameter's name.
    pub param: &'static str,
    /// The parameter's width in bits.
    pub width: u32,
    /// Nanoseconds per unit of the parameter: 1000 (microseconds) on
    /// v1model, 65,536 on TNA (the top of the 48-bit nanosecond clock).
    pub unit_ns: u64,
}

impl PoolConfigSpec {
    /// The parameter for a bound of `us` microseconds, rounded up to whole
    /// units.
    pub const fn value(&self, us: u64) -> u64 {
        us.saturating_mul(1000).div_ceil(self.unit_ns)
    }
}

/// `arch`'s pool settings table.
pub const fn pool_config(arch: Arch) -> PoolConfigSpec {
    match arch {
        Arch::V1model => PoolConfigSpec {
            table: "EsaIngress.aggregation.pool_config",
            action: "EsaIngress.aggregation.set_stale_after",
            param: "us",
            width: 48,
            unit_ns: 1000,
        },
        Arch::Tna => PoolConfigSpec {
            table: "EsaIngress.pool_config",
            action: "EsaIngress.set_stale_after",
            param: "units",
            width: 32,
            unit_ns: 65_536,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let entries = [
            TableEntry::Job(
                JobKey { job: 7 },
                JobEntry {
                    fan_in: 3,
                    mode: Mode::SwitchMl,
                    max_priority: 9,
                    mcast_group: 7,
                    ps_port: 4,
                    slot_base: 64,
                    slot_mask: 63,
                    tree: TreeRole::Flat,
                },
            ),
            TableEntry::JobPort(JobPortKey {
                job: 4095,
                port: 511,
            }),
            TableEntry::WorkerPort(WorkerPortKey {
                job: 4095,
                port: 511,
                worker: 255,
            }),
            TableEntry::JobRoute(
                JobKey { job: 1 },
                SetRoute {
                    ps_port: 9,
                    fan_in: 2,
                    slot_base: 0,
                    slot_mask: 255,
                    tree_role: 1,
                    uplink_bit: 31,
                },
            ),
            host_entry(3, MacAddr([2, 0, 0, 0, 0, 3]), Ipv4Addr([10, 0, 0, 3])),
            l2_entry(MacAddr([0xff, 1, 2, 3, 4, 5]), 0),
            TableEntry::JobId(JobKey { job: 12 }),
        ];
        let flat = entries[0];
        let TableEntry::Job(key, job) = flat else {
            unreachable!()
        };
        let uplink = Uplink {
            port: 511,
            bit: 31,
            root_fan_in: 32,
        };
        let trees = [
            TreeRole::leaf(uplink),
            TreeRole::Leaf {
                uplink,
                aggregate: false,
            },
            TreeRole::root(32),
            TreeRole::Root {
                aggregate: false,
                racks: 5,
            },
        ]
        .map(|tree| TableEntry::Job(key, JobEntry { tree, ..job }));
        for e in entries.into_iter().chain(trees) {
            let back = TableEntry::from_values(e.table(), &e.key_values(), &e.param_values());
            assert_eq!(back, Ok(e));
        }
        // A flat job's entry is missing a tree's fields.
        let values = flat.param_values();
        let back = TableEntry::from_values(TableKind::Jobs, &flat.key_values(), &values[..7]);
        assert!(back.is_err());
        // The TNA program runs every place on a tree, but a leaf of 32
        // workers.
        assert!(flat.spec_in(Arch::Tna).is_ok());
        for tree in trees {
            assert!(tree.spec_in(Arch::Tna).is_ok());
            let TableEntry::Job(key, job) = tree else {
                unreachable!()
            };
            let big = TableEntry::Job(key, JobEntry { fan_in: 32, ..job });
            assert!(big.spec_in(Arch::V1model).is_ok());
            match job.tree {
                TreeRole::Leaf { .. } => {
                    let err = big.spec_in(Arch::Tna).unwrap_err();
                    assert!(err.contains("at most 31 workers"), "{err}");
                }
                _ => assert!(big.spec_in(Arch::Tna).is_ok()),
            }
        }
    }

    #[test]
    fn every_value_fits_its_width() {
        let entry = JobEntry {
            fan_in: 32,
            mode: Mode::Atp,
            max_priority: 15,
            mcast_group: 4095,
            ps_port: 511,
            slot_base: 0,
            slot_mask: 4095,
            tree: TreeRole::Flat,
        };
        for arch in Arch::ALL {
            for e in job_entries(arch, 4095, &entry, &[1, 2, 510]) {
                let spec = e.table().spec_for(arch).unwrap();
                for (v, (field, w)) in e.key_values().iter().zip(spec.key) {
                    assert!(v >> w == 0, "{}.{field}: {v} wider than {w}", spec.name);
                }
                // TNA's are a prefix of the v1model program's (a flat job's).
                assert!(e.param_values().len() >= spec.params.len());
                for (v, (name, w)) in e.param_values().iter().zip(spec.params) {
                    assert!(v >> w == 0, "{}.{name}: {v} wider than {w}", spec.name);
                }
            }
        }
        // job, route, ports 1 and 511 (the PS), workers 0 and 1 on port 1,
        // the PS on 511
        assert_eq!(job_entries(Arch::V1model, 1, &entry, &[1, 1]).len(), 7);
        assert_eq!(job_entries(Arch::Tna, 1, &entry, &[1, 1]).len(), 8);
        assert!(matches!(
            job_entries(Arch::Tna, 7, &entry, &[])[0],
            TableEntry::JobId(JobKey { job: 7 })
        ));
        assert!(
            !job_entries(Arch::V1model, 7, &entry, &[])
                .iter()
                .any(|e| matches!(e, TableEntry::JobId(_)))
        );
    }

    #[test]
    fn workers_sharing_a_port_are_each_bound_to_it() {
        let entry = JobEntry {
            fan_in: 3,
            mode: Mode::Esa,
            max_priority: 0,
            mcast_group: 1,
            ps_port: 9,
            slot_base: 0,
            slot_mask: 15,
            tree: TreeRole::Flat,
        };
        assert_eq!(job_members(&entry, &[3, 3, 4]), [3, 4, 9]);
        let bound: Vec<(u16, u8)> = sender_bindings(2, &entry, &[3, 3, 4])
            .iter()
            .map(|k| (k.port, k.worker))
            .collect();
        assert_eq!(bound, [(3, 0), (3, 1), (4, 2), (9, PS_WORKER_ID)]);
    }

    #[test]
    fn mode_codes() {
        for m in [Mode::Esa, Mode::Atp, Mode::SwitchMl] {
            assert_eq!(mode_from_code(m.code().into()), Ok(m));
        }
        assert!(mode_from_code(3).is_err());
    }

    #[test]
    fn stale_units_round_up() {
        assert_eq!(pool_config(Arch::V1model).value(7), 7);
        assert_eq!(pool_config(Arch::Tna).value(0), 0);
        assert_eq!(pool_config(Arch::Tna).value(1), 1);
        assert_eq!(pool_config(Arch::Tna).value(65), 1);
        assert_eq!(pool_config(Arch::Tna).value(66), 2);
    }
}
