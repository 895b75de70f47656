//! The reference model of the switch's aggregator pool.
//!
//! [`Pool::process`] does to one frame exactly what the P4 program does in
//! ingress (`docs/protocol.md` §4): admission, the decision table, the slot
//! registers and the per-job counters. What leaves is an [`Emit`]: the frame
//! as ingress leaves it, and a [`Destination`] (a port or a multicast group).
//! [`Pool::egress`] then expands groups and rewrites destinations per port, as
//! the replication engine and the egress control do. The P4 program is
//! compared with this model packet by packet.

use crate::constants::{
    MAX_FAN_IN, MAX_JOB_ID, MAX_LANES, MAX_PRIORITY, PS_WORKER_ID, esa_payload_len,
};
use crate::wire::frame::{ESA_OFFSET, clear_udp_checksum, rewrite_destination};
use crate::wire::{EsaPacket, Flags, Ipv4Addr, Key, MacAddr, PacketType, ParsedFrame};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::job::{JobEntry, Mode, SlotRange, TreeRole, Uplink, full_bitmap};

/// Switch timestamps are 48 bits wide (v1model's `ingress_global_timestamp`).
const TIMESTAMP_MASK: u64 = (1 << 48) - 1;

/// Slot flag: the slot holds a complete sum.
pub const SLOT_COMPLETE: u8 = 0x01;
/// Slot flag: complete but not yet released (ATP mode).
pub const SLOT_HELD: u8 = 0x02;
/// Slot flag: a contribution saturated.
pub const SLOT_OVERFLOW: u8 = 0x04;

/// Pool geometry and timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolConfig {
    /// Number of slots; a power of two.
    pub slots: usize,
    /// Value lanes per packet.
    pub lanes: usize,
    /// A slot untouched for longer than this (µs) is stale.
    pub stale_after_us: u64,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            slots: crate::constants::DEFAULT_POOL_SLOTS,
            lanes: crate::constants::DEFAULT_LANES,
            stale_after_us: crate::constants::DEFAULT_STALE_AFTER_US,
        }
    }
}

/// A request the pool refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// The slot count is zero, not a power of two, or above 65536.
    #[error("pool size {0} is not a power of two between 1 and 65536")]
    BadPoolSize(usize),
    /// The lane count is zero or above the maximum.
    #[error("lane count {0} is not between 1 and {MAX_LANES}")]
    BadLanes(usize),
    /// The job id is 0 or above 4095.
    #[error("job id {0} is not between 1 and {MAX_JOB_ID}")]
    BadJobId(u16),
    /// The fan-in is below 2 or above 32.
    #[error("job {job}: fan-in {fan_in} is not between 2 and {MAX_FAN_IN}")]
    BadFanIn {
        /// The job.
        job: u16,
        /// The fan-in asked for.
        fan_in: u8,
    },
    /// The maximum priority is above 15.
    #[error("job {job}: max priority {max_priority} is above {MAX_PRIORITY}")]
    BadPriority {
        /// The job.
        job: u16,
        /// The priority asked for.
        max_priority: u8,
    },
    /// A tree entry (`docs/protocol.md` §9.1) that cannot work: an uplink
    /// bit outside the root's fan-in, a root of fewer than two racks.
    #[error("job {job}: {reason}")]
    BadTree {
        /// The job.
        job: u16,
        /// What is wrong.
        reason: &'static str,
    },
    /// The slot range is not a power of two or does not fit the pool.
    #[error("job {job}: slot range base {base} mask {mask:#x} does not fit a pool of {slots}")]
    BadSlotRange {
        /// The job.
        job: u16,
        /// `slot_base`.
        base: u16,
        /// `slot_mask`.
        mask: u16,
        /// Pool size.
        slots: usize,
    },
}

/// Where an emitted packet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Destination {
    /// One egress port.
    Port(u16),
    /// Every member port of a multicast group.
    Group(u16),
    /// Every member port of a multicast group but one: a relayed packet
    /// (R1, R2, Q1, A1) never goes back out of the port it came in on.
    GroupExcept {
        /// The group.
        group: u16,
        /// The port left out: the packet's ingress port.
        except: u16,
    },
}

/// A packet leaving ingress.
#[derive(Clone, PartialEq, Eq)]
pub struct Emit {
    /// Where it goes.
    pub dest: Destination,
    /// The whole frame as ingress leaves it (before per-port rewriting).
    pub frame: Vec<u8>,
}

impl fmt::Debug for Emit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Emit({:?}, {} bytes)", self.dest, self.frame.len())
    }
}

/// Why a packet was dropped at admission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// Not parseable as an ESA packet, bad version, type or checksum.
    Malformed,
    /// The job is not in the job table.
    UnknownJob,
    /// The ingress port may not send for the job.
    BadPort,
    /// A DATA, PROBE or RESULT names a sender (`worker`) that is not bound
    /// to its ingress port: a host claiming another worker's (or the PS's)
    /// id.
    Spoofed,
    /// A type only the switch produces.
    BadType,
    /// The slot is outside the job's range.
    BadSlot,
    /// The worker id or bitmap of a DATA packet is invalid.
    BadWorker,
}

/// What the pool did with one frame; one per call, matching one counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Not an ESA packet: left to L2 forwarding.
    NotEsa,
    /// Dropped at admission.
    Dropped(DropReason),
    /// D1: completed the chunk.
    Completed,
    /// D2: flushed the partial to the PS.
    Flushed,
    /// D3: added to the slot.
    Aggregated,
    /// D4, D6: already counted.
    Duplicate,
    /// D5: result re-emitted from the slot.
    Reemitted,
    /// D7, D8, D12: sent unaggregated to the PS.
    Fallback,
    /// D9: claimed a free slot.
    Claimed,
    /// D10: reclaimed a stale slot, evicting its partial.
    StaleReclaim,
    /// D11: preempted a lower-priority partial.
    Preempted,
    /// R1, R2: a RESULT relayed to the group.
    ResultRelayed,
    /// Q1: a QUERY relayed to the group.
    QueryRelayed,
    /// P1: a PROBE answered `PENDING` from the slot.
    ProbeAnswered,
    /// P2: a PROBE forwarded to the PS.
    ProbeForwarded,
    /// L1: a PULL flushed the slot's partial to the PS.
    Pulled,
    /// L2: a PULL found nothing to flush.
    PullIgnored,
    /// A1: a PS's `PENDING` or `MISSING` relayed to the group.
    AnswerRelayed,
    /// U1: a leaf's part or probe passed on to the PS by the root.
    PartRelayed,
    /// U2: a PS's `PULL` passed down to the leaves by the root.
    PullRelayed,
    /// D1′, D0: a rack's partial sent up the tree.
    SentUp,
}

/// The result of [`Pool::process`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// What happened.
    pub outcome: Outcome,
    /// The row of `docs/protocol.md` §4 that applied (`"D1"` … `"Q1"`), or
    /// `"admission"` / `"not-esa"`.
    pub rule: &'static str,
    /// The packet that leaves, if any.
    pub emit: Option<Emit>,
}

/// Per-job counters (`docs/protocol.md` §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobCounters {
    /// Admitted DATA packets.
    pub data_rx: u64,
    /// D9.
    pub claimed: u64,
    /// D3.
    pub aggregated: u64,
    /// D1.
    pub completed: u64,
    /// D4, D6.
    pub duplicates: u64,
    /// D2.
    pub flushed: u64,
    /// D5.
    pub reemitted: u64,
    /// D7, D8, D12.
    pub fallbacks: u64,
    /// D11, counted for the job that preempts.
    pub preemptions: u64,
    /// D10, counted for the job that reclaims.
    pub stale_reclaims: u64,
    /// D10, D11, counted for the job that loses its slot.
    pub evictions_suffered: u64,
    /// R1, R2.
    pub results_relayed: u64,
    /// Q1.
    pub queries_relayed: u64,
    /// R1 that cleared `HELD` (ATP release).
    pub released: u64,
    /// P1.
    pub probes_answered: u64,
    /// P2.
    pub probes_forwarded: u64,
    /// L1.
    pub pulled: u64,
    /// L2.
    pub pulls_ignored: u64,
    /// A1.
    pub answers_relayed: u64,
    /// U1: parts and probes a tree's root passed from a leaf to the PS
    /// (`docs/protocol.md` §9.3). Not in [`JobCounters::by_name`] (nor
    /// the P4 programs) yet, as `pulls_relayed`.
    pub parts_relayed: u64,
    /// U2: `PULL`s a tree's root passed down to its leaves.
    pub pulls_relayed: u64,
    /// Admission: port not authorized.
    pub drop_bad_port: u64,
    /// Admission: sender id not bound to the ingress port.
    pub drop_spoofed: u64,
    /// Admission: switch-only type received.
    pub drop_bad_type: u64,
    /// Admission: slot out of range.
    pub drop_bad_slot: u64,
    /// Admission: invalid worker id or bitmap.
    pub drop_bad_worker: u64,
}

impl std::ops::AddAssign for JobCounters {
    /// Adds another switch's counters for the same job (a tree job's).
    fn add_assign(&mut self, o: JobCounters) {
        let JobCounters {
            data_rx,
            claimed,
            aggregated,
            completed,
            duplicates,
            flushed,
            reemitted,
            fallbacks,
            preemptions,
            stale_reclaims,
            evictions_suffered,
            results_relayed,
            queries_relayed,
            released,
            probes_answered,
            probes_forwarded,
            pulled,
            pulls_ignored,
            answers_relayed,
            parts_relayed,
            pulls_relayed,
            drop_bad_port,
            drop_spoofed,
            drop_bad_type,
            drop_bad_slot,
            drop_bad_worker,
        } = o;
        self.data_rx += data_rx;
        self.claimed += claimed;
        self.aggregated += aggregated;
        self.completed += completed;
        self.duplicates += duplicates;
        self.flushed += flushed;
        self.reemitted += reemitted;
        self.fallbacks += fallbacks;
        self.preemptions += preemptions;
        self.stale_reclaims += stale_reclaims;
        self.evictions_suffered += evictions_suffered;
        self.results_relayed += results_relayed;
        self.queries_relayed += queries_relayed;
        self.released += released;
        self.probes_answered += probes_answered;
        self.probes_forwarded += probes_forwarded;
        self.pulled += pulled;
        self.pulls_ignored += pulls_ignored;
        self.answers_relayed += answers_relayed;
        self.parts_relayed += parts_relayed;
        self.pulls_relayed += pulls_relayed;
        self.drop_bad_port += drop_bad_port;
        self.drop_spoofed += drop_spoofed;
        self.drop_bad_type += drop_bad_type;
        self.drop_bad_slot += drop_bad_slot;
        self.drop_bad_worker += drop_bad_worker;
    }
}

impl JobCounters {
    /// The sum of the DATA outcome counters, which must equal `data_rx`.
    pub const fn data_outcomes(&self) -> u64 {
        self.claimed
            + self.aggregated
            + self.completed
            + self.duplicates
            + self.flushed
            + self.reemitted
            + self.fallbacks
            + self.preemptions
            + self.stale_reclaims
    }

    /// Every counter with its name (`data_rx`, ..., `drop_bad_worker`): the
    /// program's counter arrays carry the same names (`esa_p4::counters`
    /// says where each is kept), so the model and a program compare by name.
    pub const fn by_name(&self) -> [(&'static str, u64); 24] {
        [
            ("data_rx", self.data_rx),
            ("claimed", self.claimed),
            ("aggregated", self.aggregated),
            ("completed", self.completed),
            ("duplicates", self.duplicates),
            ("flushed", self.flushed),
            ("reemitted", self.reemitted),
            ("fallbacks", self.fallbacks),
            ("preemptions", self.preemptions),
            ("stale_reclaims", self.stale_reclaims),
            ("evictions_suffered", self.evictions_suffered),
            ("results_relayed", self.results_relayed),
            ("queries_relayed", self.queries_relayed),
            ("released", self.released),
            ("probes_answered", self.probes_answered),
            ("probes_forwarded", self.probes_forwarded),
            ("pulled", self.pulled),
            ("pulls_ignored", self.pulls_ignored),
            ("answers_relayed", self.answers_relayed),
            ("drop_bad_port", self.drop_bad_port),
            ("drop_spoofed", self.drop_spoofed),
            ("drop_bad_type", self.drop_bad_type),
            ("drop_bad_slot", self.drop_bad_slot),
            ("drop_bad_worker", self.drop_bad_worker),
        ]
    }
}

/// Counters not tied to a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GlobalCounters {
    /// Frames that were not ESA packets.
    pub not_esa: u64,
    /// ESA frames that could not be read.
    pub malformed: u64,
    /// ESA packets of jobs not in the table.
    pub unknown_job: u64,
    /// Multicast emits to a group with no members.
    pub empty_group: u64,
}

impl GlobalCounters {
    /// The counters the P4 program keeps in its `esa_global` array, by
    /// their index there. `empty_group` has no P4 twin: the replication
    /// engine drops such copies without a counter.
    pub const fn by_index(&self) -> [(u32, u64); 3] {
        [
            (0, self.not_esa),
            (1, self.malformed),
            (2, self.unknown_job),
        ]
    }
}

/// A copy of one slot's registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotState {
    /// `slot_key`.
    pub key: Key,
    /// `slot_bitmap`.
    pub bitmap: u32,
    /// `slot_count`.
    pub count: u8,
    /// `slot_flags`.
    pub flags: u8,
    /// `slot_timestamp`.
    pub timestamp: u64,
    /// `slot_tombstone`.
    pub tombstone: Key,
    /// `slot_exponent`.
    pub exponent: i8,
    /// The lanes.
    pub values: Vec<i32>,
}

/// Where the host-only baseline (no in-network aggregation) forwards a
/// packet a host sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostOnlyRoute {
    /// To the job's PS.
    Ps,
    /// To every member of the job's group.
    Group,
}

/// The host-only baseline's forwarding rule: `DATA` goes to the job's PS as
/// `FALLBACK` (the PS sums every contribution) and a `PROBE` to the PS as it
/// is; `RESULT`, `QUERY` and the PS's `PENDING` and `MISSING` to the group;
/// anything else is dropped (`None`). Returns the route and the packet type
/// to send.
pub fn host_only_route(packet_type: PacketType) -> Option<(HostOnlyRoute, PacketType)> {
    match packet_type {
        PacketType::Data => Some((HostOnlyRoute::Ps, PacketType::Fallback)),
        PacketType::Probe => Some((HostOnlyRoute::Ps, PacketType::Probe)),
        PacketType::Result | PacketType::Query | PacketType::Pending | PacketType::Missing => {
            Some((HostOnlyRoute::Group, packet_type))
        }
        _ => None,
    }
}

/// What a slot is doing, from its registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotPhase {
    /// Empty, or complete and released: the next claim takes it.
    Free,
    /// Holding a partial sum.
    Aggregating,
    /// Complete, held until its PS releases it (ATP, R2).
    Held,
}

/// The slot registers, one array each as in the P4 program.
#[derive(Debug, Clone)]
struct SlotTable {
    key: Vec<u32>,
    bitmap: Vec<u32>,
    count: Vec<u8>,
    flags: Vec<u8>,
    timestamp: Vec<u64>,
    tombstone: Vec<u32>,
    exponent: Vec<i8>,
    /// `slots × lanes`, slot-major.
    values: Vec<i32>,
    lanes: usize,
}

impl SlotTable {
    fn new(slots: usize, lanes: usize) -> SlotTable {
        SlotTable {
            key: vec![0; slots],
            bitmap: vec![0; slots],
            count: vec![0; slots],
            flags: vec![0; slots],
            timestamp: vec![0; slots],
            tombstone: vec![0; slots],
            exponent: vec![0; slots],
            values: vec![0; slots * lanes],
            lanes,
        }
    }

    fn lanes_mut(&mut self, i: usize) -> &mut [i32] {
        &mut self.values[i * self.lanes..(i + 1) * self.lanes]
    }

    fn is_free(&self, i: usize) -> bool {
        self.key[i] == 0 || self.flags[i] & (SLOT_COMPLETE | SLOT_HELD) == SLOT_COMPLETE
    }

    fn is_stale(&self, i: usize, now: u64, stale_after_us: u64) -> bool {
        !self.is_free(i) && (now.wrapping_sub(self.timestamp[i]) & TIMESTAMP_MASK) > stale_after_us
    }
}

/// Lane operation applied to every lane of a slot (`docs/protocol.md` §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LaneOp {
    /// Write back what was read.
    Keep,
    /// Write the packet's value.
    Write,
    /// Write read + packet value (wrapping, as 32-bit registers do).
    Add,
}

/// Which value leaves in the packet's lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LaneOut {
    /// The packet's own values.
    Packet,
    /// The values read from the slot.
    Old,
    /// The values written to the slot.
    New,
}

/// The aggregator pool and the tables that steer it.
#[derive(Debug, Clone)]
pub struct Pool {
    config: PoolConfig,
    jobs: BTreeMap<u16, JobEntry>,
    authorized: BTreeSet<(u16, u16)>,
    /// (job, port, sender id): the worker_ports table.
    senders: BTreeSet<(u16, u16, u8)>,
    hosts: BTreeMap<u16, (MacAddr, Ipv4Addr)>,
    groups: BTreeMap<u16, Vec<u16>>,
    slots: SlotTable,
    counters: BTreeMap<u16, JobCounters>,
    global: GlobalCounters,
}

impl Pool {
    /// An empty pool: every slot free, no jobs.
    pub fn new(config: PoolConfig) -> Result<Pool, PoolError> {
        if !config.slots.is_power_of_two() || config.slots > 1 << 16 {
            return Err(PoolError::BadPoolSize(config.slots));
        }
        if config.lanes == 0 || config.lanes > MAX_LANES {
            return Err(PoolError::BadLanes(config.lanes));
        }
        Ok(Pool {
            slots: SlotTable::new(config.slots, config.lanes),
            config,
            jobs: BTreeMap::new(),
            authorized: BTreeSet::new(),
            senders: BTreeSet::new(),
            hosts: BTreeMap::new(),
            groups: BTreeMap::new(),
            counters: BTreeMap::new(),
            global: GlobalCounters::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// A job entry covering the whole pool, as `esa` and `atp` jobs use.
    pub fn shared_entry(&self, fan_in: u8, mode: Mode, mcast_group: u16, ps_port: u16) -> JobEntry {
        let pool = SlotRange::whole_pool(self.config.slots);
        JobEntry {
            fan_in,
            mode,
            max_priority: MAX_PRIORITY,
            mcast_group,
            ps_port,
            slot_base: pool.base,
            slot_mask: pool.mask,
            tree: TreeRole::Flat,
        }
    }

    /// Inserts or replaces a job-table entry. Counters of a replaced job are
    /// kept; slots are not touched.
    pub fn insert_job(&mut self, job: u16, entry: JobEntry) -> Result<(), PoolError> {
        if job == 0 || job > MAX_JOB_ID {
            return Err(PoolError::BadJobId(job));
        }
        // A leaf may hold one worker of its rack: it passes the worker's
        // DATA up as the rack's partial (D0, `docs/protocol.md` §9.3).
        let min_fan_in = if entry.tree.uplink().is_some() { 1 } else { 2 };
        if entry.fan_in < min_fan_in || entry.fan_in > MAX_FAN_IN {
            return Err(PoolError::BadFanIn {
                job,
                fan_in: entry.fan_in,
            });
        }
        if entry.max_priority > MAX_PRIORITY {
            return Err(PoolError::BadPriority {
                job,
                max_priority: entry.max_priority,
            });
        }
        if let Some(uplink) = entry.tree.uplink() {
            if uplink.root_fan_in < 2 || uplink.root_fan_in > MAX_FAN_IN {
                return Err(PoolError::BadTree {
                    job,
                    reason: "the root's fan-in is not between 2 and 32",
                });
            }
            if uplink.bit >= uplink.root_fan_in {
                return Err(PoolError::BadTree {
                    job,
                    reason: "the uplink bit is not below the root's fan-in",
                });
            }
        }
        let range = usize::from(entry.slot_mask) + 1;
        if !range.is_power_of_two() || usize::from(entry.slot_base) + range > self.config.slots {
            return Err(PoolError::BadSlotRange {
                job,
                base: entry.slot_base,
                mask: entry.slot_mask,
                slots: self.config.slots,
            });
        }
        self.jobs.insert(job, entry);
        self.counters.entry(job).or_default();
        Ok(())
    }

    /// Removes a job, its port authorizations and its sender bindings.
    pub fn remove_job(&mut self, job: u16) -> Option<JobEntry> {
        self.authorized.retain(|&(j, _)| j != job);
        self.senders.retain(|&(j, _, _)| j != job);
        self.jobs.remove(&job)
    }

    /// The entry of a job.
    pub fn job(&self, job: u16) -> Option<&JobEntry> {
        self.jobs.get(&job)
    }

    /// Lets `port` send packets of `job`.
    pub fn authorize(&mut self, job: u16, port: u16) {
        self.authorized.insert((job, port));
    }

    /// Lets `port` send `job`'s DATA, PROBE and RESULT packets naming
    /// `sender` (a worker id, or `PS_WORKER_ID` on the PS's port). A port
    /// may speak for several senders (workers sharing a NIC); it must also
    /// be [authorized](Pool::authorize).
    pub fn bind_sender(&mut self, job: u16, port: u16, sender: u8) {
        self.senders.insert((job, port, sender));
    }

    /// What a controller installs for a job already inserted: every port of
    /// `worker_ports` (worker *w*'s port at index *w*) and the job's PS
    /// port authorized, each worker bound to its port and `PS_WORKER_ID`
    /// to the PS's. A job not in the table gets nothing.
    pub fn authorize_members(&mut self, job: u16, worker_ports: &[u16]) {
        let Some(ps_port) = self.jobs.get(&job).map(|e| e.ps_port) else {
            return;
        };
        for (worker, &port) in (0..=u8::MAX).zip(worker_ports) {
            self.authorize(job, port);
            self.bind_sender(job, port, worker);
        }
        self.authorize(job, ps_port);
        self.bind_sender(job, ps_port, PS_WORKER_ID);
    }

    /// Sets the host behind an egress port (the egress host table).
    pub fn set_host(&mut self, port: u16, mac: MacAddr, ip: Ipv4Addr) {
        self.hosts.insert(port, (mac, ip));
    }

    /// Sets the member ports of a multicast group.
    pub fn set_group(&mut self, group: u16, ports: Vec<u16>) {
        self.groups.insert(group, ports);
    }

    /// Counters of a job (zero for a job never seen).
    pub fn counters(&self, job: u16) -> JobCounters {
        self.counters.get(&job).copied().unwrap_or_default()
    }

    /// Counters not tied to a job.
    pub fn global_counters(&self) -> GlobalCounters {
        self.global
    }

    /// A copy of slot `i`'s registers.
    ///
    /// # Panics
    /// If `i` is not below the pool size.
    pub fn slot(&self, i: usize) -> SlotState {
        let s = &self.slots;
        SlotState {
            key: Key(s.key[i]),
            bitmap: s.bitmap[i],
            count: s.count[i],
            flags: s.flags[i],
            timestamp: s.timestamp[i],
            tombstone: Key(s.tombstone[i]),
            exponent: s.exponent[i],
            values: s.values[i * s.lanes..(i + 1) * s.lanes].to_vec(),
        }
    }

    /// Slot `i`'s key and what it is doing, without copying its lanes.
    ///
    /// # Panics
    /// If `i` is not below the pool size.
    pub fn slot_phase(&self, i: usize) -> (u32, SlotPhase) {
        let s = &self.slots;
        let phase = if s.is_free(i) {
            SlotPhase::Free
        } else if s.flags[i] & SLOT_COMPLETE != 0 {
            SlotPhase::Held
        } else {
            SlotPhase::Aggregating
        };
        (s.key[i], phase)
    }

    /// Number of slots holding a chunk that is not free.
    pub fn occupied_slots(&self) -> usize {
        (0..self.config.slots)
            .filter(|&i| !self.slots.is_free(i))
            .count()
    }

    fn job_counters(&mut self, job: u16) -> &mut JobCounters {
        self.counters.entry(job).or_default()
    }

    fn drop_packet(&mut self, job: u16, reason: DropReason) -> Decision {
        match reason {
            DropReason::Malformed => self.global.malformed += 1,
            DropReason::UnknownJob => self.global.unknown_job += 1,
            DropReason::BadPort => self.job_counters(job).drop_bad_port += 1,
            DropReason::Spoofed => self.job_counters(job).drop_spoofed += 1,
            DropReason::BadType => self.job_counters(job).drop_bad_type += 1,
            DropReason::BadSlot => self.job_counters(job).drop_bad_slot += 1,
            DropReason::BadWorker => self.job_counters(job).drop_bad_worker += 1,
        }
        Decision {
            outcome: Outcome::Dropped(reason),
            rule: "admission",
            emit: None,
        }
    }

    /// Runs one frame arriving on `ingress_port` at time `now_us` through
    /// ingress.
    pub fn process(&mut self, frame: &[u8], ingress_port: u16, now_us: u64) -> Decision {
        let parsed = match ParsedFrame::parse(frame, self.config.lanes) {
            Ok(p) => p,
            Err(e) if e.is_not_esa() => {
                self.global.not_esa += 1;
                return Decision {
                    outcome: Outcome::NotEsa,
                    rule: "not-esa",
                    emit: None,
                };
            }
            Err(_) => return self.drop_packet(0, DropReason::Malformed),
        };
        let esa = parsed.esa;
        let job_id = esa.key.job();
        let Some(&job) = self.jobs.get(&job_id) else {
            return self.drop_packet(job_id, DropReason::UnknownJob);
        };
        if !self.authorized.contains(&(job_id, ingress_port)) {
            return self.drop_packet(job_id, DropReason::BadPort);
        }
        // A RESULT that crosses a link between switches of a tree (a
        // leaf's uplink, a root's child ports) is admitted by its port: it
        // names whoever sent it, a worker of another rack, a rack or the
        // PS, not a sender bound to that port (§9.3).
        let between_switches = match job.tree {
            TreeRole::Flat => false,
            TreeRole::Leaf { uplink, .. } => ingress_port == uplink.port,
            TreeRole::Root { .. } => ingress_port != job.ps_port,
        };
        let sender_checked = match esa.packet_type {
            PacketType::Data | PacketType::Probe => true,
            PacketType::Result => !between_switches,
            _ => false,
        };
        if sender_checked && !self.senders.contains(&(job_id, ingress_port, esa.worker)) {
            return self.drop_packet(job_id, DropReason::Spoofed);
        }
        let from_leaf = job.tree.is_upper() && ingress_port != job.ps_port;
        if esa.packet_type.is_part() && !from_leaf {
            return self.drop_packet(job_id, DropReason::BadType);
        }
        if esa.slot > job.slot_mask {
            return self.drop_packet(job_id, DropReason::BadSlot);
        }
        let index = (usize::from(job.slot_base) + usize::from(esa.slot)) & (self.config.slots - 1);
        if from_leaf && (esa.packet_type.is_part() || esa.packet_type == PacketType::Probe) {
            // U1: the leaf's part or probe, for the PS, which reads the
            // rack from it. A probe whose rack's partial waits in this
            // slot says so (HELD), as a leaf's does (P2'): the worker is
            // waiting for a slow rack, not for a lost packet.
            let mut packet = Packet::new(frame, self.config.lanes);
            let s = &self.slots;
            if esa.packet_type == PacketType::Probe
                && s.key[index] != 0
                && Key(s.key[index]).same_chunk(esa.key)
                && s.flags[index] & SLOT_COMPLETE == 0
                && s.bitmap[index] & 1u32.checked_shl(u32::from(esa.worker)).unwrap_or(0) != 0
            {
                packet.flags = packet.flags | Flags::HELD;
            }
            self.job_counters(job_id).parts_relayed += 1;
            return Decision {
                outcome: Outcome::PartRelayed,
                rule: "U1",
                emit: Some(packet.emit(Destination::Port(job.ps_port))),
            };
        }
        let now = now_us & TIMESTAMP_MASK;
        let mut packet = Packet::new(frame, self.config.lanes);
        let relay = Destination::GroupExcept {
            group: job.mcast_group,
            except: ingress_port,
        };
        match esa.packet_type {
            PacketType::Data | PacketType::Probe
                if esa.worker >= job.fan_in
                    || esa.bitmap != 1u32 << esa.worker
                    || (esa.packet_type == PacketType::Data
                        && esa.flags.contains(Flags::UPPER) != job.tree.is_upper()) =>
            {
                // The UPPER test keeps a worker's DATA out of a root's racks
                // and a rack's partial out of a leaf's workers (§9.3).
                self.drop_packet(job_id, DropReason::BadWorker)
            }
            PacketType::Data => {
                let priority = esa.key.priority().min(job.max_priority);
                packet.key = esa.key.with_priority(priority);
                self.job_counters(job_id).data_rx += 1;
                self.data(&job, job_id, index, packet, now)
            }
            PacketType::Probe => self.probe(&job, job_id, index, packet, ingress_port),
            PacketType::Pull if job.tree.is_upper() && !esa.flags.contains(Flags::UPPER) => {
                // U2: the PS's pull for the leaves' slots.
                self.job_counters(job_id).pulls_relayed += 1;
                Decision {
                    outcome: Outcome::PullRelayed,
                    rule: "U2",
                    emit: Some(packet.emit(relay)),
                }
            }
            PacketType::Pull => self.pull(&job, job_id, index, packet),
            PacketType::Result => self.result(&job, job_id, index, packet, relay),
            PacketType::Query => {
                self.job_counters(job_id).queries_relayed += 1;
                Decision {
                    outcome: Outcome::QueryRelayed,
                    rule: "Q1",
                    emit: Some(packet.emit(relay)),
                }
            }
            PacketType::Pending | PacketType::Missing => {
                self.job_counters(job_id).answers_relayed += 1;
                Decision {
                    outcome: Outcome::AnswerRelayed,
                    rule: "A1",
                    emit: Some(packet.emit(relay)),
                }
            }
            // Parts were refused above.
            PacketType::Fallback | PacketType::Evicted | PacketType::Flush => {
                self.drop_packet(job_id, DropReason::BadType)
            }
        }
    }

    /// Applies a lane operation to slot `i` and sets the packet's lanes.
    fn lanes(&mut self, i: usize, packet: &mut Packet, op: LaneOp, out: LaneOut) {
        let slot = self.slots.lanes_mut(i);
        for (lane, value) in slot.iter_mut().zip(packet.values.iter_mut()) {
            let old = *lane;
            let new = match op {
                LaneOp::Keep => old,
                LaneOp::Write => *value,
                LaneOp::Add => old.wrapping_add(*value),
            };
            *lane = new;
            match out {
                LaneOut::Packet => {}
                LaneOut::Old => *value = old,
                LaneOut::New => *value = new,
            }
        }
    }

    /// Makes the packet the `RESULT` that complete slot `i` holds (D1, D5);
    /// its lanes are set by the caller's lane operation.
    fn load_result(&self, i: usize, packet: &mut Packet, job: &JobEntry) {
        let s = &self.slots;
        packet.packet_type = PacketType::Result;
        packet.flags = if s.flags[i] & SLOT_OVERFLOW != 0 {
            Flags::OVERFLOW
        } else {
            Flags::NONE
        };
        packet.key = Key(s.key[i]);
        packet.bitmap = s.bitmap[i];
        packet.count = s.count[i];
        packet.fan_in = job.fan_in;
        packet.exponent = s.exponent[i];
        if job.tree.is_upper() {
            packet.flags = packet.flags | Flags::UPPER;
        }
    }

    /// Writes the packet into slot `i` as a fresh claim.
    fn claim(&mut self, i: usize, packet: &Packet, now: u64) {
        let s = &mut self.slots;
        s.key[i] = packet.key.0;
        s.bitmap[i] = packet.bitmap;
        s.count[i] = 1;
        s.flags[i] = if packet.flags.contains(Flags::OVERFLOW) {
            SLOT_OVERFLOW
        } else {
            0
        };
        s.timestamp[i] = now;
        s.exponent[i] = packet.exponent;
    }

    /// The old chunk of slot `i` leaves as EVICTED while the packet claims it
    /// (D10, D11).
    fn swap_evict(&mut self, i: usize, mut packet: Packet, now: u64, stale: bool) -> Option<Emit> {
        let old_key = Key(self.slots.key[i]);
        let old_bitmap = self.slots.bitmap[i];
        let old_count = self.slots.count[i];
        let old_flags = self.slots.flags[i];
        let old_exponent = self.slots.exponent[i];
        self.lanes(i, &mut packet, LaneOp::Write, LaneOut::Old);
        self.claim(i, &packet, now);
        self.slots.tombstone[i] = old_key.0;
        let old_job_id = old_key.job();
        self.job_counters(old_job_id).evictions_suffered += 1;
        // The old job may have been removed since it claimed the slot; its
        // partial then has nowhere to go.
        let old_job = self.jobs.get(&old_job_id).copied()?;
        packet.packet_type = PacketType::Evicted;
        packet.key = old_key;
        packet.bitmap = old_bitmap;
        packet.count = old_count;
        packet.fan_in = old_job.fan_in;
        packet.exponent = old_exponent;
        packet.slot = (i as u16).wrapping_sub(old_job.slot_base) & old_job.slot_mask;
        let mut flags = Flags::NONE;
        if old_flags & SLOT_OVERFLOW != 0 {
            flags = flags | Flags::OVERFLOW;
        }
        if stale {
            flags = flags | Flags::STALE;
        }
        packet.flags = flags;
        packet.mark_for_ps(old_job.tree);
        Some(packet.emit(Destination::Port(old_job.ps_port)))
    }

    fn data(
        &mut self,
        job: &JobEntry,
        job_id: u16,
        i: usize,
        mut packet: Packet,
        now: u64,
    ) -> Decision {
        let slot_key = Key(self.slots.key[i]);
        let slot_flags = self.slots.flags[i];
        let same = slot_key.0 != 0 && slot_key.same_chunk(packet.key);
        let complete = slot_flags & SLOT_COMPLETE != 0;
        let resend = packet.flags.contains(Flags::RESEND);
        let is_new = self.slots.bitmap[i] & packet.bitmap == 0;
        let packet_overflow = packet.flags.contains(Flags::OVERFLOW);
        let overflow_flag = |slot_flags: u8| {
            if slot_flags & SLOT_OVERFLOW != 0 {
                Flags::OVERFLOW
            } else {
                Flags::NONE
            }
        };
        let result_dest = match job.mode {
            Mode::Atp => Destination::Port(job.ps_port),
            Mode::Esa | Mode::SwitchMl => Destination::Group(job.mcast_group),
        };
        if !job.tree.aggregates() || (job.tree.uplink().is_some() && job.fan_in == 1) {
            return self.pass_through(job, job_id, packet, resend);
        }

        if same && !complete {
            let ovf = if packet_overflow { SLOT_OVERFLOW } else { 0 };
            if is_new && u32::from(self.slots.count[i]) + 1 == u32::from(job.fan_in) {
                // D1: the last contribution.
                self.lanes(i, &mut packet, LaneOp::Add, LaneOut::New);
                let s = &mut self.slots;
                s.bitmap[i] |= packet.bitmap;
                s.count[i] += 1;
                s.flags[i] |= SLOT_COMPLETE | ovf;
                if job.mode == Mode::Atp {
                    s.flags[i] |= SLOT_HELD;
                }
                s.timestamp[i] = now;
                self.load_result(i, &mut packet, job);
                self.job_counters(job_id).completed += 1;
                return self.completion(job, i, packet, result_dest);
            }
            if resend {
                // D2: hand the partial to the PS and tombstone the chunk.
                let op = if is_new { LaneOp::Add } else { LaneOp::Keep };
                self.lanes(i, &mut packet, op, LaneOut::New);
                let s = &mut self.slots;
                let (bitmap, count) = if is_new {
                    (s.bitmap[i] | packet.bitmap, s.count[i] + 1)
                } else {
                    (s.bitmap[i], s.count[i])
                };
                packet.flags = Flags::RESEND | overflow_flag(s.flags[i] | ovf);
                s.key[i] = 0;
                if job.mode != Mode::Atp {
                    // ATP keeps no tombstone: its later copies claim anew.
                    s.tombstone[i] = slot_key.0;
                }
                s.flags[i] = 0;
                packet.packet_type = PacketType::Flush;
                packet.key = slot_key;
                packet.bitmap = bitmap;
                packet.count = count;
                packet.fan_in = job.fan_in;
                packet.exponent = s.exponent[i];
                packet.mark_for_ps(job.tree);
                self.job_counters(job_id).flushed += 1;
                return Decision {
                    outcome: Outcome::Flushed,
                    rule: "D2",
                    emit: Some(packet.emit(Destination::Port(job.ps_port))),
                };
            }
            if is_new {
                // D3.
                self.lanes(i, &mut packet, LaneOp::Add, LaneOut::Packet);
                let s = &mut self.slots;
                s.bitmap[i] |= packet.bitmap;
                s.count[i] += 1;
                s.flags[i] |= ovf;
                s.timestamp[i] = now;
                self.job_counters(job_id).aggregated += 1;
                return Decision {
                    outcome: Outcome::Aggregated,
                    rule: "D3",
                    emit: None,
                };
            }
            // D4.
            self.job_counters(job_id).duplicates += 1;
            return Decision {
                outcome: Outcome::Duplicate,
                rule: "D4",
                emit: None,
            };
        }
        if same {
            if resend && let Some(uplink) = job.tree.uplink() {
                return self.leaf_resend(job, job_id, i, packet, uplink);
            }
            if resend && job.mode == Mode::Atp {
                // D5 (atp): as ATP's switch does with a resend that finds its
                // chunk, the slot is freed and what it holds, here the
                // complete sum, goes to the PS, which answers the workers.
                self.lanes(i, &mut packet, LaneOp::Keep, LaneOut::Old);
                self.load_result(i, &mut packet, job);
                let s = &mut self.slots;
                s.key[i] = 0;
                s.flags[i] = 0;
                packet.packet_type = PacketType::Flush;
                packet.flags = packet.flags | Flags::RESEND;
                self.job_counters(job_id).flushed += 1;
                return Decision {
                    outcome: Outcome::Flushed,
                    rule: "D5",
                    emit: Some(packet.emit(Destination::Port(job.ps_port))),
                };
            }
            if resend {
                // D5: answer from the slot.
                self.lanes(i, &mut packet, LaneOp::Keep, LaneOut::Old);
                self.load_result(i, &mut packet, job);
                self.job_counters(job_id).reemitted += 1;
                return Decision {
                    outcome: Outcome::Reemitted,
                    rule: "D5",
                    emit: Some(packet.emit(result_dest)),
                };
            }
            // D6.
            self.job_counters(job_id).duplicates += 1;
            return Decision {
                outcome: Outcome::Duplicate,
                rule: "D6",
                emit: None,
            };
        }
        // ATP has neither tombstones nor stale reclaim (its switch frees a
        // slot only on its PS's result or a resend of its chunk).
        let atp = job.mode == Mode::Atp;
        let tombstoned = !atp && Key(self.slots.tombstone[i]).same_chunk(packet.key);
        if tombstoned || resend {
            // D7, D8: the chunk's parts are gathering at the PS.
            packet.packet_type = PacketType::Fallback;
            packet.fan_in = job.fan_in;
            packet.mark_for_ps(job.tree);
            self.job_counters(job_id).fallbacks += 1;
            return Decision {
                outcome: Outcome::Fallback,
                rule: if tombstoned { "D7" } else { "D8" },
                emit: Some(packet.emit(Destination::Port(job.ps_port))),
            };
        }
        if self.slots.is_free(i) {
            // D9.
            self.lanes(i, &mut packet, LaneOp::Write, LaneOut::Packet);
            self.claim(i, &packet, now);
            self.job_counters(job_id).claimed += 1;
            return Decision {
                outcome: Outcome::Claimed,
                rule: "D9",
                emit: None,
            };
        }
        if !atp && self.slots.is_stale(i, now, self.config.stale_after_us) {
            // D10.
            self.job_counters(job_id).stale_reclaims += 1;
            let emit = self.swap_evict(i, packet, now, true);
            return Decision {
                outcome: Outcome::StaleReclaim,
                rule: "D10",
                emit,
            };
        }
        if job.mode == Mode::Esa && packet.key.priority() > slot_key.priority() {
            // D11.
            self.job_counters(job_id).preemptions += 1;
            let emit = self.swap_evict(i, packet, now, false);
            return Decision {
                outcome: Outcome::Preempted,
                rule: "D11",
                emit,
            };
        }
        // D12.
        packet.packet_type = PacketType::Fallback;
        packet.flags = packet.flags | Flags::COLLISION;
        packet.fan_in = job.fan_in;
        packet.mark_for_ps(job.tree);
        self.job_counters(job_id).fallbacks += 1;
        Decision {
            outcome: Outcome::Fallback,
            rule: "D12",
            emit: Some(packet.emit(Destination::Port(job.ps_port))),
        }
    }

    /// Where a completed slot's sum goes (D1): the group as the job's
    /// result, or, on a tree (`docs/protocol.md` §9.3), up as the rack's
    /// partial (D1′, the slot `HELD` until the result comes down) or to the
    /// PS as a part when some rack falls back below the root (§9.6).
    /// `packet` is the `RESULT` [`Pool::load_result`] made.
    fn completion(
        &mut self,
        job: &JobEntry,
        i: usize,
        mut packet: Packet,
        result_dest: Destination,
    ) -> Decision {
        match job.tree {
            TreeRole::Leaf { uplink, .. } => {
                self.slots.flags[i] |= SLOT_HELD;
                packet.send_up(uplink);
                Decision {
                    outcome: Outcome::SentUp,
                    rule: "D1'",
                    emit: Some(packet.emit(Destination::Port(uplink.port))),
                }
            }
            TreeRole::Root { racks, .. } if job.fan_in < racks => {
                packet.packet_type = PacketType::Fallback;
                packet.fan_in = racks;
                Decision {
                    outcome: Outcome::Completed,
                    rule: "D1",
                    emit: Some(packet.emit(Destination::Port(job.ps_port))),
                }
            }
            TreeRole::Flat | TreeRole::Root { .. } => Decision {
                outcome: Outcome::Completed,
                rule: "D1",
                emit: Some(packet.emit(result_dest)),
            },
        }
    }

    /// The rows that bypass the slot (`docs/protocol.md` §9.3, §9.6): a
    /// switch without memory for the job sends every `DATA` to the PS
    /// (D0); a leaf holding one worker of its rack has nothing to add and
    /// sends the worker's first copy up as the rack's partial (D0), a
    /// resend to the PS (D8), since a resend is never aggregated above.
    fn pass_through(
        &mut self,
        job: &JobEntry,
        job_id: u16,
        mut packet: Packet,
        resend: bool,
    ) -> Decision {
        let counters = self.counters.entry(job_id).or_default();
        if job.tree.aggregates()
            && !resend
            && let Some(uplink) = job.tree.uplink()
        {
            counters.completed += 1;
            packet.send_up(uplink);
            return Decision {
                outcome: Outcome::SentUp,
                rule: "D0",
                emit: Some(packet.emit(Destination::Port(uplink.port))),
            };
        }
        counters.fallbacks += 1;
        packet.packet_type = PacketType::Fallback;
        packet.fan_in = job.fan_in;
        packet.mark_for_ps(job.tree);
        Decision {
            outcome: Outcome::Fallback,
            rule: if job.tree.aggregates() { "D8" } else { "D0" },
            emit: Some(packet.emit(Destination::Port(job.ps_port))),
        }
    }

    /// A worker's resend that finds its chunk complete in a leaf's slot
    /// (`docs/protocol.md` §9.3): the rack's partial, held since it went
    /// up, goes to the PS (D5′); a result that came down is re-emitted
    /// with the root's header (D5″).
    fn leaf_resend(
        &mut self,
        job: &JobEntry,
        job_id: u16,
        i: usize,
        mut packet: Packet,
        uplink: Uplink,
    ) -> Decision {
        self.lanes(i, &mut packet, LaneOp::Keep, LaneOut::Old);
        self.load_result(i, &mut packet, job);
        if self.slots.flags[i] & SLOT_HELD != 0 {
            let s = &mut self.slots;
            if job.mode != Mode::Atp {
                s.tombstone[i] = s.key[i];
            }
            s.key[i] = 0;
            s.flags[i] = 0;
            packet.packet_type = PacketType::Flush;
            packet.flags = packet.flags | Flags::RESEND;
            packet.mark_for_ps(job.tree);
            self.job_counters(job_id).flushed += 1;
            return Decision {
                outcome: Outcome::Flushed,
                rule: "D5'",
                emit: Some(packet.emit(Destination::Port(job.ps_port))),
            };
        }
        packet.flags = packet.flags | Flags::UPPER;
        packet.bitmap = full_bitmap(uplink.root_fan_in);
        packet.count = uplink.root_fan_in;
        packet.fan_in = uplink.root_fan_in;
        self.job_counters(job_id).reemitted += 1;
        Decision {
            outcome: Outcome::Reemitted,
            rule: "D5''",
            emit: Some(packet.emit(Destination::GroupExcept {
                group: job.mcast_group,
                except: uplink.port,
            })),
        }
    }

    fn result(
        &mut self,
        job: &JobEntry,
        job_id: u16,
        i: usize,
        mut packet: Packet,
        relay: Destination,
    ) -> Decision {
        let slot_key = Key(self.slots.key[i]);
        let counters = self.counters.entry(job_id).or_default();
        counters.results_relayed += 1;
        let rule = if slot_key.0 != 0 && slot_key.same_chunk(packet.key) {
            // R1: the slot now holds the true sum and is released.
            if self.slots.flags[i] & SLOT_HELD != 0 {
                counters.released += 1;
            }
            self.lanes(i, &mut packet, LaneOp::Write, LaneOut::Packet);
            let s = &mut self.slots;
            s.bitmap[i] = job.full_bitmap();
            s.count[i] = job.fan_in;
            s.exponent[i] = packet.exponent;
            s.flags[i] = SLOT_COMPLETE
                | if packet.flags.contains(Flags::OVERFLOW) {
                    SLOT_OVERFLOW
                } else {
                    0
                };
            "R1"
        } else {
            "R2"
        };
        Decision {
            outcome: Outcome::ResultRelayed,
            rule,
            emit: Some(packet.emit(relay)),
        }
    }

    /// A worker's `PROBE` at slot `i` (P1, P2). The slot is only read.
    fn probe(
        &mut self,
        job: &JobEntry,
        job_id: u16,
        i: usize,
        mut packet: Packet,
        ingress_port: u16,
    ) -> Decision {
        let s = &self.slots;
        let same = s.key[i] != 0 && Key(s.key[i]).same_chunk(packet.key);
        let aggregating = s.flags[i] & SLOT_COMPLETE == 0;
        let held = same && aggregating && s.bitmap[i] & packet.bitmap != 0;
        // P2′: a leaf whose rack's partial went up holds the contribution
        // too, above (`docs/protocol.md` §9.3).
        let sent_up = job.tree.uplink().is_some()
            && same
            && s.flags[i] & SLOT_HELD != 0
            && s.bitmap[i] & packet.bitmap != 0;
        if held && !packet.flags.contains(Flags::RESEND) {
            // P1: the contribution is in the slot, which waits for others.
            // A tree job's answers are addressed (rack, local bit), as the
            // PS's are (`docs/protocol.md` §9.2).
            packet.packet_type = PacketType::Pending;
            if let Some(uplink) = job.tree.uplink() {
                packet.worker = uplink.bit;
            }
            self.job_counters(job_id).probes_answered += 1;
            return Decision {
                outcome: Outcome::ProbeAnswered,
                rule: "P1",
                emit: Some(packet.emit(Destination::Port(ingress_port))),
            };
        }
        // P2: only the PS can tell (the contribution may be there, or lost,
        // or the chunk complete), or the worker asks again: a partial in a
        // slot can be an orphan of a chunk that completed long ago (its
        // copy came late, after the chunk had left the slot), which only
        // the PS's result cache can tell apart from one waiting for a slow
        // peer. The switch says what it holds.
        if held || sent_up {
            packet.flags = packet.flags | Flags::HELD;
        }
        packet.mark_for_ps(job.tree);
        self.job_counters(job_id).probes_forwarded += 1;
        Decision {
            outcome: Outcome::ProbeForwarded,
            rule: "P2",
            emit: Some(packet.emit(Destination::Port(job.ps_port))),
        }
    }

    /// A PS's `PULL` at slot `i` (L1, L2).
    fn pull(&mut self, job: &JobEntry, job_id: u16, i: usize, mut packet: Packet) -> Decision {
        let slot_key = Key(self.slots.key[i]);
        let same = slot_key.0 != 0 && slot_key.same_chunk(packet.key);
        let flags = self.slots.flags[i];
        // L1′: a leaf also gives up a partial it sent up and still holds.
        let pullable =
            flags & SLOT_COMPLETE == 0 || (job.tree.uplink().is_some() && flags & SLOT_HELD != 0);
        let for_this_level = packet.flags.contains(Flags::UPPER) == job.tree.is_upper();
        if !same || !pullable || !for_this_level {
            // L2: the chunk is not aggregating here (any more).
            self.job_counters(job_id).pulls_ignored += 1;
            return Decision {
                outcome: Outcome::PullIgnored,
                rule: "L2",
                emit: None,
            };
        }
        // L1: as D2 without a contribution of its own: the partial goes
        // to the PS, the slot is freed and the chunk tombstoned.
        self.lanes(i, &mut packet, LaneOp::Keep, LaneOut::Old);
        let s = &mut self.slots;
        packet.packet_type = PacketType::Flush;
        packet.flags = if s.flags[i] & SLOT_OVERFLOW != 0 {
            Flags::OVERFLOW
        } else {
            Flags::NONE
        };
        packet.key = slot_key;
        packet.bitmap = s.bitmap[i];
        packet.count = s.count[i];
        packet.fan_in = job.fan_in;
        packet.exponent = s.exponent[i];
        s.key[i] = 0;
        if job.mode != Mode::Atp {
            s.tombstone[i] = slot_key.0;
        }
        s.flags[i] = 0;
        packet.mark_for_ps(job.tree);
        self.job_counters(job_id).pulled += 1;
        Decision {
            outcome: Outcome::Pulled,
            rule: "L1",
            emit: Some(packet.emit(Destination::Port(job.ps_port))),
        }
    }

    /// What leaves the switch for an emit: one frame per destination port
    /// (group members in order), each with its destination rewritten for
    /// the host behind the port (`docs/protocol.md` §3.1).
    pub fn egress(&mut self, emit: &Emit) -> Vec<(u16, Vec<u8>)> {
        let members = |g: u16| self.groups.get(&g).cloned().unwrap_or_default();
        let ports = match emit.dest {
            Destination::Port(p) => vec![p],
            Destination::Group(g) => members(g),
            Destination::GroupExcept { group, except } => {
                let mut ports = members(group);
                ports.retain(|&p| p != except);
                ports
            }
        };
        if ports.is_empty() {
            self.global.empty_group += 1;
        }
        ports
            .into_iter()
            .map(|port| {
                let mut frame = emit.frame.clone();
                if let Some(&(mac, ip)) = self.hosts.get(&port) {
                    // The frame parsed as ESA in ingress, so it is long enough.
                    let _ = rewrite_destination(&mut frame, mac, ip);
                }
                (port, frame)
            })
            .collect()
    }
}

/// The fields ingress may change, and the frame they go back into.
#[derive(Debug)]
struct Packet {
    frame: Vec<u8>,
    packet_type: PacketType,
    flags: Flags,
    key: Key,
    bitmap: u32,
    count: u8,
    fan_in: u8,
    exponent: i8,
    slot: u16,
    worker: u8,
    values: Vec<i32>,
}

impl Packet {
    /// Marks a part (`FALLBACK`, `EVICTED`, `FLUSH`) or a forwarded
    /// `PROBE` of a tree job with what the PS needs to read its bits
    /// (`docs/protocol.md` §9.2): a leaf's rack, a root's `UPPER`.
    fn mark_for_ps(&mut self, tree: TreeRole) {
        match tree {
            TreeRole::Flat => {}
            TreeRole::Leaf { uplink, .. } => self.worker = uplink.bit,
            TreeRole::Root { .. } => self.flags = self.flags | Flags::UPPER,
        }
    }

    /// Makes the packet a rack's partial on its way up (D1′, D0): `DATA`
    /// from the rack's bit at the root, `OVERFLOW` kept.
    fn send_up(&mut self, uplink: Uplink) {
        self.packet_type = PacketType::Data;
        self.flags = Flags::UPPER
            | if self.flags.contains(Flags::OVERFLOW) {
                Flags::OVERFLOW
            } else {
                Flags::NONE
            };
        self.bitmap = 1u32 << uplink.bit;
        self.count = 1;
        self.fan_in = uplink.root_fan_in;
        self.worker = uplink.bit;
    }

    /// Reads a frame that already parsed as ESA with `lanes` lanes.
    fn new(frame: &[u8], lanes: usize) -> Packet {
        let payload = &frame[ESA_OFFSET..ESA_OFFSET + esa_payload_len(lanes)];
        let view = EsaPacket::new_checked(payload, lanes).expect("frame parsed in ingress");
        Packet {
            frame: frame.to_vec(),
            packet_type: PacketType::from_code(view.type_code()).unwrap_or(PacketType::Data),
            flags: view.flags(),
            key: view.key(),
            bitmap: view.bitmap(),
            count: view.count(),
            fan_in: view.fan_in(),
            exponent: view.exponent(),
            slot: view.slot(),
            worker: view.worker(),
            values: view.values().collect(),
        }
    }

    /// Writes the fields back and addresses the frame.
    fn emit(mut self, dest: Destination) -> Emit {
        let lanes = self.values.len();
        let payload = &mut self.frame[ESA_OFFSET..ESA_OFFSET + esa_payload_len(lanes)];
        let mut view = EsaPacket::new_checked(payload, lanes).expect("frame parsed in ingress");
        view.set_packet_type(self.packet_type);
        view.set_flags(self.flags);
        view.set_key(self.key);
        view.set_bitmap(self.bitmap);
        view.set_count(self.count);
        view.set_fan_in(self.fan_in);
        view.set_exponent(self.exponent);
        view.set_slot(self.slot);
        view.set_worker(self.worker);
        view.write_values(&self.values);
        clear_udp_checksum(&mut self.frame);
        Emit {
            dest,
            frame: self.frame,
        }
    }
}
