//! Job admission without I/O: validating a request against the topology and
//! the admitted jobs, allocating a job id and slot range, the entities a job
//! puts on the switch, and rebuilding the job view from those entities.

use std::collections::{BTreeMap, BTreeSet};

use esa_core::constants::{MAX_FAN_IN, MAX_JOB_ID, MAX_PRIORITY, PS_WORKER_ID};
use esa_core::job::{JobEntry, Mode, SlotRange, TreeRole};
use esa_p4::Arch;
use esa_p4::tables::{job_entries, job_members};

use crate::entries::{Entity, MulticastGroup, TableEntry};
use crate::error::AdmitError;
use crate::topology::Topology;

/// A worker or PS as the client names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A host of the topology.
    Host(String),
    /// A bare switch port.
    Port(u32),
}

/// A switchml job's requested slot range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotRequest {
    /// First slot; `None` lets the controller pick.
    pub base: Option<u32>,
    /// Number of slots, a power of two.
    pub count: u32,
}

/// An admission request, as received (nothing checked yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRequest {
    /// Requested id; 0 = allocate.
    pub job_id: u32,
    /// Workers.
    pub workers: Vec<Endpoint>,
    /// Parameter server.
    pub ps: Option<Endpoint>,
    /// Priority class: the highest priority the job may use.
    pub max_priority: u32,
    /// Sharing mode; `None` is refused.
    pub mode: Option<Mode>,
    /// Slot range (switchml only).
    pub slots: Option<SlotRequest>,
}

/// An admitted job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// Job id, 1..=4095.
    pub id: u16,
    /// Sharing mode.
    pub mode: Mode,
    /// Highest priority.
    pub max_priority: u8,
    /// Worker *w*'s port at index *w* (the request's order): the port that
    /// may speak for worker *w*.
    pub workers: Vec<u16>,
    /// PS port.
    pub ps_port: u16,
    /// Multicast group (the job id).
    pub mcast_group: u16,
    /// First slot.
    pub slot_base: u16,
    /// Slots are `slot_base ..= slot_base + slot_mask`.
    pub slot_mask: u16,
    /// The senders whose contributions the switch sums: the workers, or
    /// at a tree's root the racks that aggregate in their leaves, which
    /// are numbered first (`docs/protocol.md` §9.6).
    pub fan_in: u8,
    /// The switch's place on the job's tree; [`TreeRole::Flat`] for a job
    /// behind one switch. A leaf's "workers" are its rack's, its PS port
    /// its uplink; a root's "workers" are its child ports, bit *r* on the
    /// link to rack *r*'s leaf (`docs/protocol.md` §9.1).
    pub tree: TreeRole,
}

impl Job {
    /// The senders the switch sums (see [`Job::fan_in`]'s field).
    pub fn fan_in(&self) -> u8 {
        self.fan_in
    }

    /// Whether the job keeps a slot range of its own on this switch: a
    /// switchml job that aggregates here. A level without memory
    /// (§9.6) holds none, whatever its entry says.
    pub fn holds_slots(&self) -> bool {
        self.mode.has_own_slots() && self.tree.aggregates()
    }

    /// Number of slots of the job's range.
    pub fn slot_count(&self) -> u32 {
        u32::from(self.slot_mask) + 1
    }

    fn slot_end(&self) -> u32 {
        u32::from(self.slot_base) + self.slot_count()
    }

    /// The job's entry in the job table, as the model holds it.
    pub fn entry(&self) -> JobEntry {
        JobEntry {
            fan_in: self.fan_in(),
            mode: self.mode,
            max_priority: self.max_priority,
            mcast_group: self.mcast_group,
            ps_port: self.ps_port,
            slot_base: self.slot_base,
            slot_mask: self.slot_mask,
            tree: self.tree,
        }
    }

    /// Everything the job puts on a switch running `arch`'s program: its
    /// table entries ([`job_entries`]: job, route, one authorization per
    /// worker and PS port, each worker bound to its port and the PS to its
    /// own, and TNA's `job_ids`), and the multicast group.
    pub fn entities(&self, arch: Arch) -> Vec<Entity> {
        let entry = self.entry();
        let mut out: Vec<Entity> = job_entries(arch, self.id, &entry, &self.workers)
            .into_iter()
            .map(Entity::Table)
            .collect();
        out.push(Entity::Group(MulticastGroup {
            group: self.mcast_group,
            ports: job_members(&entry, &self.workers).into_iter().collect(),
        }));
        out
    }
}

/// The admitted jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobTable {
    jobs: BTreeMap<u16, Job>,
    pool_slots: u32,
}

pub(crate) fn invalid(message: impl Into<String>) -> AdmitError {
    AdmitError::Invalid(message.into())
}

impl JobTable {
    /// An empty table for a pool of `pool_slots` slots (a power of two, at
    /// most 65536).
    pub fn new(pool_slots: u32) -> JobTable {
        JobTable {
            jobs: BTreeMap::new(),
            pool_slots,
        }
    }

    /// Slots of the pool.
    pub fn pool_slots(&self) -> u32 {
        self.pool_slots
    }

    /// The jobs by id.
    pub fn jobs(&self) -> &BTreeMap<u16, Job> {
        &self.jobs
    }

    /// One job.
    pub fn get(&self, id: u16) -> Option<&Job> {
        self.jobs.get(&id)
    }

    /// Adds an admitted job.
    pub fn insert(&mut self, job: Job) {
        self.jobs.insert(job.id, job);
    }

    /// Removes a job.
    pub fn remove(&mut self, id: u16) -> Option<Job> {
        self.jobs.remove(&id)
    }

    /// Every entity of every job.
    pub fn entities(&self, arch: Arch) -> Vec<Entity> {
        self.jobs.values().flat_map(|j| j.entities(arch)).collect()
    }

    /// Checks a request and decides the job it becomes; changes nothing.
    pub fn plan(&self, request: &JobRequest, topology: &Topology) -> Result<Job, AdmitError> {
        let (mode, max_priority) = mode_and_priority(request)?;
        let n = request.workers.len();
        if n < 2 || n > usize::from(MAX_FAN_IN) {
            return Err(invalid(format!(
                "a job needs 2..={MAX_FAN_IN} workers, got {n}"
            )));
        }
        let mut workers = vec![];
        for w in &request.workers {
            let port = resolve(w, topology)?;
            if workers.contains(&port) {
                return Err(invalid(format!(
                    "duplicate worker: {} (port {port}) appears twice",
                    describe(w)
                )));
            }
            workers.push(port);
        }
        let ps = request
            .ps
            .as_ref()
            .ok_or_else(|| invalid("the parameter server is required"))?;
        let ps_port = resolve(ps, topology)?;
        if workers.contains(&ps_port) {
            return Err(invalid(format!(
                "the PS {} (port {ps_port}) is also a worker",
                describe(ps)
            )));
        }
        let id = job_id(request.job_id, |id| self.jobs.contains_key(&id))?;
        let slots = match (mode.has_own_slots(), request.slots) {
            (true, Some(slots)) => self.slot_range(slots)?,
            (true, None) => {
                return Err(invalid("a switchml job needs a slot range (slot count)"));
            }
            (false, Some(_)) => {
                return Err(invalid(format!(
                    "{mode} jobs share the whole pool; a slot range is for switchml only"
                )));
            }
            (false, None) => SlotRange::whole_pool(self.pool_slots as usize),
        };
        Ok(Job {
            id,
            mode,
            max_priority,
            fan_in: u8::try_from(workers.len()).unwrap_or(u8::MAX),
            workers,
            ps_port,
            mcast_group: id,
            slot_base: slots.base,
            slot_mask: slots.mask,
            tree: TreeRole::Flat,
        })
    }

    /// Whether `job`, planned elsewhere (a fabric's tree), may join this
    /// table: its id is free and the slot range it holds ([`Job::holds_slots`])
    /// is inside the pool and overlaps no other job's.
    pub fn check_fits(&self, job: &Job) -> Result<(), AdmitError> {
        if self.jobs.contains_key(&job.id) {
            return Err(AdmitError::AlreadyExists(format!(
                "job {} is already admitted",
                job.id
            )));
        }
        if !job.holds_slots() {
            return Ok(());
        }
        if job.slot_end() > self.pool_slots {
            return Err(invalid(format!(
                "slots {}..{} are beyond the pool of {} slots",
                job.slot_base,
                job.slot_end(),
                self.pool_slots
            )));
        }
        match self.overlapping(u32::from(job.slot_base), job.slot_count()) {
            Some(other) => Err(AdmitError::AlreadyExists(format!(
                "slots {}..{} overlap job {}'s slots {}..{}",
                job.slot_base,
                job.slot_end(),
                other.id,
                other.slot_base,
                other.slot_end()
            ))),
            None => Ok(()),
        }
    }

    /// The switchml job holding a slot of `base..base + count`, if any.
    fn overlapping(&self, base: u32, count: u32) -> Option<&Job> {
        self.jobs.values().find(|j| {
            j.holds_slots() && base < j.slot_end() && u32::from(j.slot_base) < base + count
        })
    }

    /// The first free range of `count` slots (a power of two), if any.
    pub fn free_range(&self, count: u32) -> Option<SlotRange> {
        if count == 0 || !count.is_power_of_two() || count > self.pool_slots {
            return None;
        }
        (0..self.pool_slots / count)
            .map(|k| k * count)
            .find(|&base| self.overlapping(base, count).is_none())
            .map(|base| own_range(base, count))
    }

    /// A switchml job's own range, checked against the pool and the other
    /// switchml jobs.
    pub(crate) fn slot_range(&self, slots: SlotRequest) -> Result<SlotRange, AdmitError> {
        let count = slots.count;
        if count == 0 || !count.is_power_of_two() {
            return Err(invalid(format!("slot count {count} is not a power of two")));
        }
        if count > self.pool_slots {
            return Err(AdmitError::Exhausted(format!(
                "{count} slots requested; the pool has {}",
                self.pool_slots
            )));
        }
        match slots.base {
            Some(base) => {
                if u64::from(base) + u64::from(count) > u64::from(self.pool_slots) {
                    return Err(invalid(format!(
                        "slots {base}..{} are beyond the pool of {} slots",
                        u64::from(base) + u64::from(count),
                        self.pool_slots
                    )));
                }
                if let Some(j) = self.overlapping(base, count) {
                    return Err(AdmitError::AlreadyExists(format!(
                        "slots {base}..{} overlap job {}'s slots {}..{}",
                        base + count,
                        j.id,
                        j.slot_base,
                        j.slot_end()
                    )));
                }
                Ok(own_range(base, count))
            }
            None => self.free_range(count).ok_or_else(|| {
                    AdmitError::Exhausted(format!(
                        "no free range of {count} slots among the pool's {} (switchml jobs hold the rest)",
                        self.pool_slots
                    ))
                }),
        }
    }

    /// Rebuilds the job view from entities read from the switch (a
    /// controller restart). A job is its job-table entry; worker *w* is on
    /// the port bound to *w*. Jobs whose parts disagree (a half-installed
    /// job: ports and bindings that do not make exactly its workers and
    /// PS) are left out and described in the second value; the next
    /// reconciliation removes their leftovers.
    pub fn rebuild(pool_slots: u32, entities: &[Entity]) -> (JobTable, Vec<String>) {
        let mut table = JobTable::new(pool_slots);
        let mut problems = vec![];
        let mut ports: BTreeMap<u16, BTreeSet<u16>> = BTreeMap::new();
        let mut senders: BTreeMap<u16, BTreeMap<u8, u16>> = BTreeMap::new();
        for e in entities {
            match e {
                Entity::Table(TableEntry::JobPort(k)) => {
                    ports.entry(k.job).or_default().insert(k.port);
                }
                Entity::Table(TableEntry::WorkerPort(k)) => {
                    senders.entry(k.job).or_default().insert(k.worker, k.port);
                }
                _ => {}
            }
        }
        for e in entities {
            let Entity::Table(TableEntry::Job(key, set)) = e else {
                continue;
            };
            let mut bound = senders.remove(&key.job).unwrap_or_default();
            let ps_bound = bound.remove(&PS_WORKER_ID) == Some(set.ps_port);
            let workers: Vec<u16> = bound.values().copied().collect();
            // A root binds every rack, the ones that fall back (§9.6) too.
            let senders = match set.tree {
                TreeRole::Root { racks, .. } => racks.max(set.fan_in),
                TreeRole::Flat | TreeRole::Leaf { .. } => set.fan_in,
            };
            let ids_in_order = bound.keys().copied().eq(0..senders);
            let authorized = ports.remove(&key.job).unwrap_or_default();
            let members: BTreeSet<u16> = workers.iter().copied().chain([set.ps_port]).collect();
            if !ps_bound || !ids_in_order || authorized != members {
                problems.push(format!(
                    "job {}: fan-in {} but workers {:?} bound, ports {:?} authorized and the PS port {} {}; not adopted",
                    key.job,
                    set.fan_in,
                    bound.keys().collect::<Vec<_>>(),
                    authorized,
                    set.ps_port,
                    if ps_bound { "bound" } else { "not bound" },
                ));
                continue;
            }
            table.insert(Job {
                id: key.job,
                mode: set.mode,
                max_priority: set.max_priority,
                workers,
                ps_port: set.ps_port,
                mcast_group: set.mcast_group,
                slot_base: set.slot_base,
                slot_mask: set.slot_mask,
                fan_in: set.fan_in,
                tree: set.tree,
            });
        }
        (table, problems)
    }
}

/// A request's sharing mode and priority class, checked.
pub(crate) fn mode_and_priority(request: &JobRequest) -> Result<(Mode, u8), AdmitError> {
    let mode = request
        .mode
        .ok_or_else(|| invalid("mode is required (esa, atp or switchml)"))?;
    let max_priority = u8::try_from(request.max_priority)
        .ok()
        .filter(|p| *p <= MAX_PRIORITY)
        .ok_or_else(|| {
            invalid(format!(
                "max_priority {} is above {MAX_PRIORITY}",
                request.max_priority
            ))
        })?;
    Ok((mode, max_priority))
}

/// The job id a request asks for (`requested`, checked) or, for 0, the
/// lowest one not `taken`.
pub(crate) fn job_id(requested: u32, taken: impl Fn(u16) -> bool) -> Result<u16, AdmitError> {
    if requested == 0 {
        return (1..=MAX_JOB_ID)
            .find(|&id| !taken(id))
            .ok_or_else(|| AdmitError::Exhausted(format!("all {MAX_JOB_ID} job ids are in use")));
    }
    let id = u16::try_from(requested)
        .ok()
        .filter(|id| *id <= MAX_JOB_ID)
        .ok_or_else(|| invalid(format!("job id {requested} is above {MAX_JOB_ID}")))?;
    if taken(id) {
        return Err(AdmitError::AlreadyExists(format!(
            "job {id} is already admitted"
        )));
    }
    Ok(id)
}

/// The range of `count` slots from `base` (both checked against the pool,
/// or held by no one: a level without memory, `crate::fabric`).
pub(crate) fn own_range(base: u32, count: u32) -> SlotRange {
    SlotRange {
        base: u16::try_from(base).unwrap_or(u16::MAX),
        mask: u16::try_from(count.saturating_sub(1)).unwrap_or(u16::MAX),
    }
}

pub(crate) fn describe(e: &Endpoint) -> String {
    match e {
        Endpoint::Host(name) => format!("host `{name}`"),
        Endpoint::Port(port) => format!("port {port}"),
    }
}

fn resolve(e: &Endpoint, topology: &Topology) -> Result<u16, AdmitError> {
    match e {
        Endpoint::Host(name) => {
            topology.hosts.get(name).map(|h| h.port).ok_or_else(|| {
                AdmitError::NotFound(format!("host `{name}` is not in the topology"))
            })
        }
        Endpoint::Port(port) => {
            let p = u16::try_from(*port)
                .map_err(|_| invalid(format!("port {port} is out of range")))?;
            topology.check_port(p).map_err(invalid)?;
            Ok(p)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mode: Mode, workers: &[u32], ps: u32) -> JobRequest {
        JobRequest {
            job_id: 0,
            workers: workers.iter().map(|&p| Endpoint::Port(p)).collect(),
            ps: Some(Endpoint::Port(ps)),
            max_priority: 3,
            mode: Some(mode),
            slots: None,
        }
    }

    #[test]
    fn switchml_ranges_do_not_overlap() {
        let topo = Topology::default();
        let mut table = JobTable::new(16);
        let mut r = request(Mode::SwitchMl, &[1, 2], 3);
        r.slots = Some(SlotRequest {
            base: None,
            count: 8,
        });
        let a = table.plan(&r, &topo).unwrap();
        assert_eq!((a.slot_base, a.slot_mask), (0, 7));
        table.insert(a);
        let b = table.plan(&r, &topo).unwrap();
        assert_eq!((b.id, b.slot_base), (2, 8));
        table.insert(b);
        assert!(matches!(
            table.plan(&r, &topo),
            Err(AdmitError::Exhausted(_))
        ));
        r.slots = Some(SlotRequest {
            base: Some(4),
            count: 4,
        });
        assert!(matches!(
            table.plan(&r, &topo),
            Err(AdmitError::AlreadyExists(_))
        ));
        r.slots = Some(SlotRequest {
            base: Some(14),
            count: 4,
        });
        assert!(matches!(table.plan(&r, &topo), Err(AdmitError::Invalid(_))));
        r.slots = Some(SlotRequest {
            base: None,
            count: 32,
        });
        assert!(matches!(
            table.plan(&r, &topo),
            Err(AdmitError::Exhausted(_))
        ));
    }

    #[test]
    fn refusals() {
        let topo = Topology::default();
        let table = JobTable::new(16);
        let ok = request(Mode::Esa, &[1, 2], 3);
        assert!(table.plan(&ok, &topo).is_ok());
        let code = |r: &JobRequest| table.plan(r, &topo).unwrap_err().code();
        assert_eq!(
            code(&request(Mode::Esa, &[1], 3)),
            tonic::Code::InvalidArgument
        );
        assert_eq!(
            code(&request(Mode::Esa, &[1, 1], 3)),
            tonic::Code::InvalidArgument
        );
        assert_eq!(
            code(&request(Mode::Esa, &[1, 2], 2)),
            tonic::Code::InvalidArgument
        );
        assert_eq!(
            code(&request(Mode::Esa, &[1, 600], 3)),
            tonic::Code::InvalidArgument
        );
        let many: Vec<u32> = (1..=33).collect();
        assert_eq!(
            code(&request(Mode::Esa, &many, 40)),
            tonic::Code::InvalidArgument
        );
        let mut r = ok.clone();
        r.workers[0] = Endpoint::Host("nobody".into());
        assert_eq!(code(&r), tonic::Code::NotFound);
        let mut r = ok.clone();
        r.max_priority = 16;
        assert_eq!(code(&r), tonic::Code::InvalidArgument);
        let mut r = ok.clone();
        r.job_id = 4096;
        assert_eq!(code(&r), tonic::Code::InvalidArgument);
        let mut r = ok.clone();
        r.mode = None;
        assert_eq!(code(&r), tonic::Code::InvalidArgument);
    }

    #[test]
    fn rebuild_adopts_whole_jobs_only() {
        let topo = Topology::default();
        let mut table = JobTable::new(16);
        let job = table.plan(&request(Mode::Atp, &[1, 2], 3), &topo).unwrap();
        table.insert(job.clone());
        let (back, problems) = JobTable::rebuild(16, &table.entities(Arch::V1model));
        assert_eq!(back, table);
        assert!(problems.is_empty());
        let partial: Vec<Entity> = table
            .entities(Arch::V1model)
            .into_iter()
            .filter(|e| !matches!(e, Entity::Table(TableEntry::JobPort(k)) if k.port == 2))
            .collect();
        let (back, problems) = JobTable::rebuild(16, &partial);
        assert!(back.jobs().is_empty());
        assert_eq!(problems.len(), 1);
        let unbound: Vec<Entity> = table
            .entities(Arch::V1model)
            .into_iter()
            .filter(|e| !matches!(e, Entity::Table(TableEntry::WorkerPort(k)) if k.worker == 1))
            .collect();
        let (back, problems) = JobTable::rebuild(16, &unbound);
        assert!(back.jobs().is_empty());
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn worker_ids_follow_the_request_and_bind_to_their_ports() {
        let topo = Topology::default();
        let mut table = JobTable::new(16);
        let job = table.plan(&request(Mode::Esa, &[5, 2], 3), &topo).unwrap();
        assert_eq!(job.workers, [5, 2]);
        table.insert(job.clone());
        let bound: Vec<(u16, u8)> = job
            .entities(Arch::Tna)
            .iter()
            .filter_map(|e| match e {
                Entity::Table(TableEntry::WorkerPort(k)) => Some((k.port, k.worker)),
                _ => None,
            })
            .collect();
        assert_eq!(bound, [(5, 0), (2, 1), (3, PS_WORKER_ID)]);
        let (back, problems) = JobTable::rebuild(16, &table.entities(Arch::Tna));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back, table);
    }
}
