//! The controller: pushes the pipeline, programs the topology, admits and
//! releases jobs, reads counters, and keeps the switch converged with its
//! view across switch and controller restarts.
//!
//! One lock ([`tokio::sync::Mutex`]) guards the job view and is held across
//! the switch writes of one operation, so admissions, releases and
//! resynchronisations never interleave.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use p4runtime_proto::p4::v1 as p4v1;
use tokio::sync::{Mutex, watch};

use crate::backend::{Role, SwitchBackend};
use crate::counters::CounterDeltas;
use crate::entries::{
    Entity, EntityKey, TableKind, decode_value, encode_value, key_from_proto, wildcard_groups,
    wildcard_table,
};
use crate::error::{AdmitError, Error, P4RuntimeError, PipelineError};
use crate::jobs::{Job, JobRequest, JobTable};
use crate::pipeline::Pipeline;
use crate::registry::{Owners, Registry};
use crate::topology::Topology;

/// Tunables of [`Controller`].
#[derive(Debug, Clone)]
pub struct ControllerConfig {
    /// Aggregator slots; `None` takes the size of the P4Info's `slot_key`
    /// register.
    pub pool_slots: Option<u32>,
    /// How often the primary checks that the switch still runs its
    /// pipeline (a switch that restarted without dropping the stream).
    pub check_interval: Duration,
    /// Pause between reconnection attempts.
    pub retry_interval: Duration,
    /// The age in microseconds after which the switch treats an untouched
    /// slot as stale (the default action of the program's `pool_config`
    /// table, set at every sync); `None` leaves the program's default.
    /// A slow software switch (BMv2) needs more than the default 10 ms,
    /// or queueing alone makes slots stale.
    pub stale_after_us: Option<u64>,
    /// The controller's own record of its jobs (a redb file, see
    /// [`crate::registry`]): loaded at start, written at every admission
    /// and release, restored whenever the controller becomes primary
    /// again. `None`: kept in memory only (a restarted controller adopts
    /// what the switch holds).
    pub registry: Option<std::path::PathBuf>,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            pool_slots: None,
            check_interval: Duration::from_secs(2),
            retry_interval: Duration::from_millis(500),
            stale_after_us: None,
            registry: None,
        }
    }
}

/// What the controller is doing, for tests, logs and `ListJobs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// Arbitration role.
    pub role: Role,
    /// The switch matches the controller's view (as of the last sync).
    pub synced: bool,
    /// Completed synchronisations so far.
    pub syncs: u64,
    /// Pipeline pushes so far.
    pub pipeline_pushes: u64,
    /// The last error of the supervisor loop.
    pub last_error: Option<String>,
    /// Times another client took the primary role from this controller.
    pub primary_lost: u64,
}

#[derive(Debug)]
struct State {
    jobs: JobTable,
    /// The jobs this controller admitted, kept while it is not primary
    /// (and loaded from its registry at start): restored at the next sync
    /// as primary, whatever the switch holds by then.
    record: Option<JobTable>,
    /// Job id → the tenant that admitted it through the job API; kept
    /// across takeovers and, with a registry, across restarts.
    owners: Owners,
    /// The view is the truth (after a sync as primary); otherwise the next
    /// sync adopts what the switch holds.
    authoritative: bool,
    /// The switch may differ from the view (a failed rollback or release).
    dirty: bool,
}

/// Per-job counters, by short counter name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobStats {
    /// Job id.
    pub job: u16,
    /// `(name, packets)` in `JobCounters::by_name` order.
    pub counters: Vec<(String, u64)>,
}

/// The controller of one switch.
#[derive(Debug)]
pub struct Controller<S> {
    switch: S,
    pipeline: Pipeline,
    topology: Topology,
    config: ControllerConfig,
    state: Mutex<State>,
    health: watch::Sender<Health>,
    registry: Option<Registry>,
    /// Each admitted job's counters as read so far, banked across switch
    /// resets ([`crate::counters`]): what [`Controller::stats`] reports.
    /// Held across a read of the switch, so that readings are observed in
    /// the order they were taken.
    counters: Mutex<HashMap<u16, CounterDeltas>>,
}

impl<S: SwitchBackend> Controller<S> {
    /// A controller for `switch`; nothing is sent until [`Controller::run`].
    pub fn new(
        switch: S,
        pipeline: Pipeline,
        topology: Topology,
        config: ControllerConfig,
    ) -> Result<Arc<Controller<S>>, Error> {
        let slots = config
            .pool_slots
            .or(pipeline.bindings.pool_slots)
            .ok_or_else(|| {
                PipelineError::PoolSize(
                    "the P4Info has no `slot_key` register; give the pool size (--pool-slots)"
                        .into(),
                )
            })?;
        if !slots.is_power_of_two() || slots > 1 << 16 {
            return Err(PipelineError::PoolSize(format!(
                "pool of {slots} slots: must be a power of two up to 65536"
            ))
            .into());
        }
        if let Some(us) = config.stale_after_us {
            let Some(stale) = &pipeline.bindings.stale else {
                let spec = esa_p4::tables::pool_config(pipeline.bindings.arch);
                return Err(PipelineError::StaleBound(format!(
                    "the program has no table {} with action {}({}) to set the stale bound in",
                    spec.table, spec.action, spec.param
                ))
                .into());
            };
            let value = stale.value(us);
            if stale.width < 64 && value >> stale.width != 0 {
                return Err(PipelineError::StaleBound(format!(
                    "a stale bound of {us} us does not fit the program's {}-bit parameter",
                    stale.width
                ))
                .into());
            }
        }
        let registry = config.registry.as_deref().map(Registry::open).transpose()?;
        let (record, owners) = match &registry {
            Some(r) => match r.load(&pipeline, slots)? {
                Some((jobs, owners)) => (Some(jobs), owners),
                None => (None, Owners::new()),
            },
            None => (None, Owners::new()),
        };
        if let (Some(r), Some(jobs)) = (&registry, &record) {
            tracing::info!(
                "{} job(s) in the record at {}: restored at the first sync",
                jobs.jobs().len(),
                r.path().display()
            );
        }
        Ok(Arc::new(Controller {
            switch,
            pipeline,
            topology,
            config,
            state: Mutex::new(State {
                jobs: JobTable::new(slots),
                record,
                owners,
                authoritative: false,
                dirty: false,
            }),
            health: watch::Sender::new(Health {
                role: Role::Disconnected,
                synced: false,
                syncs: 0,
                pipeline_pushes: 0,
                last_error: None,
                primary_lost: 0,
            }),
            registry,
            counters: Mutex::new(HashMap::new()),
        }))
    }

    /// The backend.
    pub fn switch(&self) -> &S {
        &self.switch
    }

    /// The topology.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Follows [`Health`] changes.
    pub fn health(&self) -> watch::Receiver<Health> {
        self.health.subscribe()
    }

    fn set_error(&self, e: &Error) {
        tracing::warn!("{e}");
        self.health
            .send_modify(|h| h.last_error = Some(e.to_string()));
    }

    /// Connects, arbitrates and keeps the switch converged until `shutdown`
    /// completes: pushes the pipeline when the switch lacks it, adopts or
    /// restores the job entries, reconnects after the stream drops, and
    /// stands by as a backup while another controller is primary.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                () = self.session() => {}
            }
            tokio::select! {
                () = &mut shutdown => break,
                () = tokio::time::sleep(self.config.retry_interval) => {}
            }
        }
        self.switch.disconnect();
        self.health.send_modify(|h| {
            h.role = Role::Disconnected;
            h.synced = false;
        });
    }

    /// One connection's life: returns when the connection is lost.
    async fn session(&self) {
        if let Err(e) = self.switch.connect().await {
            self.health.send_modify(|h| h.role = Role::Disconnected);
            self.set_error(&e.into());
            return;
        }
        let mut role_rx = self.switch.role();
        let mut synced = false;
        let mut was = Role::Disconnected;
        loop {
            let role = *role_rx.borrow_and_update();
            if let (Role::Primary, Role::Backup { primary }) = (was, role) {
                tracing::error!(
                    "another client (election id {primary}, above ours, {}) took the switch \
                     over: admissions and releases are refused until this controller is \
                     primary again, and its jobs are restored then",
                    self.switch.election_id()
                );
                self.health.send_modify(|h| h.primary_lost += 1);
            }
            was = role;
            self.health.send_modify(|h| {
                h.role = role;
                h.synced = synced;
            });
            match role {
                Role::Disconnected => {
                    self.health.send_modify(|h| h.synced = false);
                    return;
                }
                Role::Backup { .. } => {
                    synced = false;
                    if let Err(e) = self.follow().await {
                        self.set_error(&e);
                    }
                }
                Role::Primary => {
                    if !synced || self.state.lock().await.dirty {
                        match self.sync().await {
                            Ok(()) => synced = true,
                            Err(e) => {
                                let lost = matches!(&e, Error::Switch(s) if s.is_connection_loss());
                                self.set_error(&e);
                                if lost {
                                    return;
                                }
                            }
                        }
                        self.health.send_modify(|h| h.synced = synced);
                        if !synced {
                            tokio::time::sleep(self.config.retry_interval).await;
                            continue;
                        }
                    }
                }
            }
            tokio::select! {
                changed = role_rx.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
                () = tokio::time::sleep(self.config.check_interval) => {
                    // A reading every check keeps what a switch reset can
                    // take from the jobs' counters to one interval.
                    if let Err(e) = self.stats(&[]).await {
                        tracing::debug!("reading the jobs' counters: {e}");
                    }
                    if role == Role::Primary {
                        match self.switch.pipeline_cookie().await {
                            Ok(Some(c)) if c == self.pipeline.cookie => {}
                            Ok(_) => {
                                tracing::warn!("the switch lost the pipeline; re-pushing");
                                synced = false;
                            }
                            Err(e) => {
                                self.set_error(&e.into());
                                return;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Makes the switch match the view (pushing the pipeline if the switch
    /// runs another one or none). When the view is not yet authoritative
    /// (controller start, or after being a backup) and the switch already
    /// runs this pipeline, the view is first rebuilt from the switch.
    pub async fn sync(&self) -> Result<(), Error> {
        let mut state = self.state.lock().await;
        let cookie = self.switch.pipeline_cookie().await?;
        let fresh = cookie != Some(self.pipeline.cookie);
        if fresh {
            tracing::info!("pushing the pipeline (cookie {:#x})", self.pipeline.cookie);
            self.switch.set_pipeline(self.pipeline.config()).await?;
            self.health.send_modify(|h| h.pipeline_pushes += 1);
            // A pushed pipeline starts every counter from zero.
            for job in self.counters.lock().await.values_mut() {
                job.reset();
            }
        }
        let (current, foreign) = self.read_switch().await?;
        if !state.authoritative {
            if let Some(record) = state.record.take() {
                tracing::info!(
                    "restoring {} job(s) from the controller's own record",
                    record.jobs().len()
                );
                state.jobs = record;
            } else if !fresh {
                let (jobs, problems) = JobTable::rebuild(state.jobs.pool_slots(), &current);
                for p in problems {
                    tracing::warn!("rebuilding the job view: {p}");
                }
                tracing::info!("adopted {} job(s) from the switch", jobs.jobs().len());
                state.jobs = jobs;
                self.persist(&state.jobs, &state.owners)?;
            }
        }
        let mut desired = self.topology.entities();
        desired.extend(state.jobs.entities(self.pipeline.bindings.arch));
        self.reconcile(current, &foreign, desired).await?;
        if let (Some(us), Some(stale)) = (self.config.stale_after_us, &self.pipeline.bindings.stale)
        {
            self.switch.write(vec![stale_update(stale, us)]).await?;
        }
        state.authoritative = true;
        state.dirty = false;
        self.health.send_modify(|h| {
            h.syncs += 1;
            h.last_error = None;
        });
        Ok(())
    }

    /// A backup's view: what the primary installed, read from the switch
    /// (when it runs this pipeline), so `ListJobs` and the counters work on
    /// a backup too. Writes nothing.
    async fn follow(&self) -> Result<(), Error> {
        let mut state = self.state.lock().await;
        if state.authoritative {
            // Demoted: keep what this controller admitted, to restore.
            state.record = Some(state.jobs.clone());
        }
        state.authoritative = false;
        if self.switch.pipeline_cookie().await? == Some(self.pipeline.cookie) {
            let current = self.read_entities().await?;
            state.jobs = JobTable::rebuild(state.jobs.pool_slots(), &current).0;
        }
        Ok(())
    }

    /// Every entity of the controller's tables and the multicast groups on
    /// the switch. Entries the controller cannot interpret (another
    /// action, say) are logged and left alone.
    pub async fn read_entities(&self) -> Result<Vec<Entity>, Error> {
        Ok(self.read_switch().await?.0)
    }

    /// [`Self::read_entities`], plus the identities of the entries it
    /// could not interpret.
    async fn read_switch(&self) -> Result<(Vec<Entity>, HashSet<EntityKey>), Error> {
        let bindings = &self.pipeline.bindings;
        let mut query: Vec<p4v1::Entity> = TableKind::ALL
            .iter()
            .filter_map(|&t| bindings.table(t))
            .map(|b| wildcard_table(b.table_id))
            .collect();
        query.push(wildcard_groups());
        let raw = self.switch.read(query).await?;
        let mut out = vec![];
        let mut foreign = HashSet::new();
        for e in &raw {
            match Entity::from_proto(e, bindings) {
                Ok(Some(entity)) => out.push(entity),
                Ok(None) => {}
                Err(message) => {
                    tracing::warn!("an entry on the switch is not the controller's: {message}");
                    foreign.extend(key_from_proto(e, bindings));
                }
            }
        }
        Ok((out, foreign))
    }

    /// Deletes, modifies and inserts what differs between the switch and
    /// `desired`. Entries the controller cannot interpret are left alone,
    /// unless the controller wants their key: then they are overwritten.
    async fn reconcile(
        &self,
        current: Vec<Entity>,
        foreign: &HashSet<EntityKey>,
        desired: Vec<Entity>,
    ) -> Result<(), Error> {
        let current: HashMap<EntityKey, Entity> =
            current.into_iter().map(|e| (e.key(), e)).collect();
        let desired: BTreeMap<EntityKey, Entity> =
            desired.into_iter().map(|e| (e.key(), e)).collect();
        let mut updates = vec![];
        for (key, entity) in &current {
            if !desired.contains_key(key) {
                updates.push(self.update(p4v1::update::Type::Delete, entity));
            }
        }
        for (key, entity) in &desired {
            match current.get(key) {
                None if foreign.contains(key) => {
                    updates.push(self.update(p4v1::update::Type::Modify, entity));
                }
                None => updates.push(self.update(p4v1::update::Type::Insert, entity)),
                Some(have) if have != entity => {
                    updates.push(self.update(p4v1::update::Type::Modify, entity));
                }
                Some(_) => {}
            }
        }
        if !updates.is_empty() {
            tracing::info!("reconciling: {} update(s)", updates.len());
        }
        self.switch.write(updates).await?;
        Ok(())
    }

    fn update(&self, kind: p4v1::update::Type, entity: &Entity) -> p4v1::Update {
        p4v1::Update {
            r#type: kind as i32,
            entity: Some(entity.to_proto(&self.pipeline.bindings)),
        }
    }

    /// Writes `jobs` and their tenants to the registry, if there is one.
    fn persist(&self, jobs: &JobTable, owners: &Owners) -> Result<(), Error> {
        match &self.registry {
            Some(r) => r.save(&self.pipeline, jobs, owners),
            None => Ok(()),
        }
    }

    /// The tenant that admitted job `job` through the job API, if any.
    pub async fn owner(&self, job: u16) -> Option<String> {
        self.state.lock().await.owners.get(&job).cloned()
    }

    fn check_primary(&self) -> Result<(), Error> {
        let role = *self.switch.role().borrow();
        match role {
            Role::Primary => Ok(()),
            Role::Backup { primary } => Err(P4RuntimeError::NotPrimary {
                ours: self.switch.election_id(),
                primary,
            }
            .into()),
            Role::Disconnected => Err(Error::NotReady("not connected to the switch".into())),
        }
    }

    fn check_ready(&self, state: &State) -> Result<(), Error> {
        self.check_primary()?;
        if !state.authoritative {
            return Err(Error::NotReady(
                "still synchronising with the switch".into(),
            ));
        }
        Ok(())
    }

    /// Admits a job: checks the request, installs its entities in one
    /// Write, and on failure removes whatever part was installed.
    pub async fn admit(&self, request: &JobRequest) -> Result<Job, Error> {
        self.admit_for(request, None).await
    }

    /// [`Controller::admit`] on behalf of tenant `owner` (the job API's
    /// caller), recorded with the job.
    pub async fn admit_for(&self, request: &JobRequest, owner: Option<&str>) -> Result<Job, Error> {
        let mut state = self.state.lock().await;
        self.check_ready(&state)?;
        let job = state.jobs.plan(request, &self.topology)?;
        self.install_locked(&mut state, job, owner).await
    }

    /// Admits a job planned elsewhere: one switch's part of a job across
    /// switches ([`crate::fabric`]), with its tree role, id and slot range
    /// decided there. Refused when the id or the slot range is taken here
    /// or this switch's program cannot run the part; installed as
    /// [`Controller::admit_for`] installs.
    pub async fn install(&self, job: Job, owner: Option<&str>) -> Result<Job, Error> {
        let mut state = self.state.lock().await;
        self.check_ready(&state)?;
        state.jobs.check_fits(&job)?;
        for e in job.entities(self.pipeline.bindings.arch) {
            if let Entity::Table(entry) = e {
                entry
                    .spec_in(self.pipeline.bindings.arch)
                    .map_err(AdmitError::Invalid)?;
            }
        }
        self.install_locked(&mut state, job, owner).await
    }

    /// The admitted jobs as a table, to plan against.
    pub async fn table(&self) -> JobTable {
        self.state.lock().await.jobs.clone()
    }

    /// The program's architecture.
    pub fn arch(&self) -> esa_p4::Arch {
        self.pipeline.bindings.arch
    }

    /// Writes a checked job's entities (the lock held), rolling back what
    /// was installed when the switch refuses.
    async fn install_locked(
        &self,
        state: &mut State,
        job: Job,
        owner: Option<&str>,
    ) -> Result<Job, Error> {
        let arch = self.pipeline.bindings.arch;
        if job.fan_in() > arch.max_fan_in(job.mode) {
            return Err(AdmitError::Invalid(format!(
                "the {} program takes an {} job of at most {} workers, got {}",
                arch.name(),
                job.mode,
                arch.max_fan_in(job.mode),
                job.fan_in()
            ))
            .into());
        }
        // On record before on the switch: a job the switch holds is never
        // missing from the record a restarted controller restores.
        let mut admitted = state.jobs.clone();
        admitted.insert(job.clone());
        let mut owners = state.owners.clone();
        match owner {
            Some(tenant) => owners.insert(job.id, tenant.to_string()),
            None => owners.remove(&job.id),
        };
        self.persist(&admitted, &owners)?;
        let entities = job.entities(self.pipeline.bindings.arch);
        let updates = entities
            .iter()
            .map(|e| self.update(p4v1::update::Type::Insert, e))
            .collect();
        match self.switch.write(updates).await {
            Ok(()) => {
                tracing::info!(
                    "admitted job {} ({} workers, {})",
                    job.id,
                    job.fan_in(),
                    job.mode
                );
                state.jobs = admitted;
                state.owners = owners;
                self.counters.lock().await.remove(&job.id);
                Ok(job)
            }
            Err(source) => {
                if let Err(e) = self.persist(&state.jobs, &state.owners) {
                    tracing::warn!("job {} refused, but {e}", job.id);
                }
                // CONTINUE_ON_ERROR: any subset may be installed. Delete one
                // by one so "was not there" is told apart from real errors.
                for e in entities.iter().rev() {
                    let delete = self.update(p4v1::update::Type::Delete, e);
                    if let Err(rollback) = self.switch.write(vec![delete]).await
                        && !rollback.is_not_found()
                    {
                        state.dirty = true;
                        return Err(Error::RollbackFailed {
                            source,
                            rollback: Box::new(rollback),
                        });
                    }
                }
                Err(Error::RolledBack { source })
            }
        }
    }

    /// Releases a job: deletes all its entities. If the switch refuses, the
    /// job stays admitted and the next sync restores whatever was deleted.
    pub async fn release(&self, job_id: u32) -> Result<Job, Error> {
        let mut state = self.state.lock().await;
        self.check_ready(&state)?;
        let job = u16::try_from(job_id)
            .ok()
            .and_then(|id| state.jobs.get(id))
            .cloned()
            .ok_or_else(|| AdmitError::NotFound(format!("job {job_id} is not admitted")))?;
        let updates = job
            .entities(self.pipeline.bindings.arch)
            .iter()
            .rev()
            .map(|e| self.update(p4v1::update::Type::Delete, e))
            .collect();
        if let Err(e) = self.switch.write(updates).await {
            state.dirty = true;
            return Err(e.into());
        }
        state.jobs.remove(job.id);
        state.owners.remove(&job.id);
        self.counters.lock().await.remove(&job.id);
        tracing::info!("released job {}", job.id);
        if let Err(e) = self.persist(&state.jobs, &state.owners) {
            // Released on the switch; a restarted controller would bring
            // it back from the stale record until the next write.
            self.set_error(&e);
        }
        Ok(job)
    }

    /// Frees the pool slots that still name job `job_id` in their key, and
    /// the tombstones that do: what aggregations cut short leave behind (a
    /// run interrupted mid-iteration, its workers stopped). A job admitted
    /// later with the same id and seqs would otherwise add into those
    /// partials, or be sent to its PS by those tombstones. Call it for a
    /// released job while no job's packets can claim slots (every job of
    /// the switch released): a slot another job claims between this read
    /// and this write would lose its partial. Returns how many cells it
    /// cleared; registers the program lacks are skipped. Needs register
    /// reads, which BMv2's P4Runtime server does not offer (`Unimplemented`).
    pub async fn free_slots_of(&self, job_id: u16) -> Result<usize, Error> {
        self.check_primary()?;
        let registers: Vec<u32> = self
            .pipeline
            .p4info
            .registers
            .iter()
            .filter_map(|r| r.preamble.as_ref())
            .filter(|p| {
                let short = p.name.rsplit('.').next();
                short == Some("slot_key") || short == Some("slot_tombstone")
            })
            .map(|p| p.id)
            .collect();
        let query = registers
            .iter()
            .map(|&register_id| p4v1::Entity {
                entity: Some(p4v1::entity::Entity::RegisterEntry(p4v1::RegisterEntry {
                    register_id,
                    index: None,
                    data: None,
                })),
            })
            .collect();
        let mut updates = vec![];
        for entity in self.switch.read(query).await? {
            let Some(p4v1::entity::Entity::RegisterEntry(mut cell)) = entity.entity else {
                continue;
            };
            let key = match cell.data.as_ref().and_then(|d| d.data.as_ref()) {
                Some(p4v1::p4_data::Data::Bitstring(bytes)) => decode_value(bytes, 32).unwrap_or(0),
                _ => 0,
            };
            // docs/protocol.md 2: priority (31-28), job (27-16), seq (15-0).
            if key == 0 || (key >> 16) & 0xfff != u64::from(job_id) {
                continue;
            }
            cell.data = Some(p4v1::P4Data {
                data: Some(p4v1::p4_data::Data::Bitstring(encode_value(0))),
            });
            updates.push(p4v1::Update {
                r#type: p4v1::update::Type::Modify as i32,
                entity: Some(p4v1::Entity {
                    entity: Some(p4v1::entity::Entity::RegisterEntry(cell)),
                }),
            });
        }
        let cleared = updates.len();
        if cleared > 0 {
            self.switch.write(updates).await?;
            tracing::info!("freed {cleared} pool cells job {job_id} left behind");
        }
        Ok(cleared)
    }

    /// The admitted jobs.
    pub async fn jobs(&self) -> Vec<Job> {
        self.state
            .lock()
            .await
            .jobs
            .jobs()
            .values()
            .cloned()
            .collect()
    }

    /// Per-job counters read from the switch (`ids` empty: every job),
    /// banked across switch resets: a job's counts never go back while it
    /// stays admitted, though a reset loses what the switch counted since
    /// the last reading ([`crate::counters`]; the controller reads every
    /// check interval). Works on a backup too (reads only).
    pub async fn stats(&self, ids: &[u32]) -> Result<Vec<JobStats>, Error> {
        let jobs: Vec<u16> = {
            let state = self.state.lock().await;
            if ids.is_empty() {
                state.jobs.jobs().keys().copied().collect()
            } else {
                let mut out = vec![];
                for &id in ids {
                    match u16::try_from(id)
                        .ok()
                        .filter(|id| state.jobs.get(*id).is_some())
                    {
                        Some(id) => out.push(id),
                        None => {
                            return Err(
                                AdmitError::NotFound(format!("job {id} is not admitted")).into()
                            );
                        }
                    }
                }
                out
            }
        };
        if jobs.is_empty() {
            return Ok(vec![]);
        }
        let mut banked = self.counters.lock().await;
        let counters = &self.pipeline.bindings.counters;
        let query = jobs
            .iter()
            .flat_map(|&job| {
                counters.iter().map(move |c| p4v1::Entity {
                    entity: Some(p4v1::entity::Entity::CounterEntry(p4v1::CounterEntry {
                        counter_id: c.id,
                        index: Some(p4v1::Index {
                            index: c.index(job),
                        }),
                        data: None,
                    })),
                })
            })
            .collect();
        let mut values: HashMap<(u32, i64), u64> = HashMap::new();
        for e in self.switch.read(query).await? {
            if let Some(p4v1::entity::Entity::CounterEntry(c)) = e.entity {
                let packets = c
                    .data
                    .map_or(0, |d| u64::try_from(d.packet_count).unwrap_or(0));
                values.insert((c.counter_id, c.index.map_or(-1, |i| i.index)), packets);
            }
        }
        Ok(jobs
            .iter()
            .map(|&job| {
                let bank = banked.entry(job).or_default();
                bank.observe(counters.iter().map(|c| {
                    let v = values.get(&(c.id, c.index(job))).copied().unwrap_or(0);
                    (c.name.as_str(), v)
                }));
                let totals = bank.deltas();
                JobStats {
                    job,
                    counters: counters
                        .iter()
                        .map(|c| (c.name.clone(), totals.get(&c.name).copied().unwrap_or(0)))
                        .collect(),
                }
            })
            .collect())
    }
}

/// Sets the pool's stale bound: the default action of `pool_config`.
fn stale_update(stale: &crate::pipeline::StaleBinding, us: u64) -> p4v1::Update {
    p4v1::Update {
        r#type: p4v1::update::Type::Modify as i32,
        entity: Some(p4v1::Entity {
            entity: Some(p4v1::entity::Entity::TableEntry(p4v1::TableEntry {
                table_id: stale.table_id,
                is_default_action: true,
                action: Some(p4v1::TableAction {
                    r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
                        action_id: stale.action_id,
                        params: vec![p4v1::action::Param {
                            param_id: stale.param_id,
                            value: crate::entries::encode_value(stale.value(us)),
                        }],
                    })),
                }),
                ..Default::default()
            })),
        }),
    }
}
