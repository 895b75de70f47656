//! A cluster of workers, parameter servers and the model switch, each on its
//! own thread, for the end-to-end and failure tests.

use esa_core::pool::{JobCounters, PoolConfig};
use esa_core::worker::WorkerConfig;
use esa_harness::jobs::{self, JobOutcome, MakeTransport, Rto, Setup};
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::Transport;
use std::net::SocketAddr;

pub use esa_harness::jobs::{JobSpec, linger, run_iterations};

/// Worker `id`'s configuration on the model switch with `pool`: hashed
/// over the whole pool, timeouts for threads sharing two cores.
pub fn worker_config(spec: &JobSpec, id: u8, pool: &PoolConfig) -> WorkerConfig {
    spec.worker_config(id, pool.lanes, (pool.slots - 1) as u16, Rto::THREADS)
}

pub fn pool(slots: usize, lanes: usize) -> PoolConfig {
    PoolConfig {
        slots,
        lanes,
        stale_after_us: 5_000,
    }
}

#[derive(Debug)]
pub struct ClusterReport {
    /// Per job, in order.
    pub outcomes: Vec<JobOutcome>,
    /// The model switch's counters of each job.
    pub counters: Vec<JobCounters>,
}

impl ClusterReport {
    /// Every job summed exactly, and the switch accounted for every DATA
    /// packet it received.
    pub fn assert_exact(&self, jobs: &[JobSpec]) {
        for (spec, o) in jobs.iter().zip(&self.outcomes) {
            o.assert_exact(spec);
        }
        for (spec, c) in jobs.iter().zip(&self.counters) {
            assert_eq!(
                c.data_outcomes(),
                c.data_rx,
                "job {} counters: {c:?}",
                spec.id
            );
        }
    }
}

/// Runs every job to the end through one model switch (aggregating, or the
/// host-only baseline); `bind` makes each host's transport (the switch's
/// first).
pub fn run_cluster<T, F>(
    jobs: &[JobSpec],
    pool_cfg: PoolConfig,
    aggregate: bool,
    mut bind: F,
) -> ClusterReport
where
    T: Transport + Send + 'static,
    F: FnMut() -> T,
{
    let switch_transport = bind();
    let mut switch = if aggregate {
        ModelSwitch::new(pool_cfg, switch_transport).unwrap()
    } else {
        ModelSwitch::host_only(pool_cfg, switch_transport).unwrap()
    };
    let setup = Setup {
        switch: switch.local_addr(),
        lanes: pool_cfg.lanes,
        slot_mask: (pool_cfg.slots - 1) as u16,
        rto: Rto::THREADS,
    };
    let mut runs = vec![];
    for spec in jobs {
        let workers: Vec<T> = (0..spec.workers).map(|_| bind()).collect();
        let ps = bind();
        let mut mj = ModelJob::new(
            spec.id,
            workers.iter().map(|t| t.local_addr()).collect(),
            ps.local_addr(),
        );
        mj.mode = spec.mode;
        mj.slot_base = spec.slot_base;
        mj.slot_mask = spec.slot_mask;
        switch.add_job(mj).unwrap();
        let workers = workers.into_iter().map(given).collect();
        runs.push((spec.clone(), setup, workers, given(ps)));
    }
    let switch = switch.spawn();
    let outcomes = jobs::run_jobs(runs).into_iter().map(|(_, o)| o).collect();
    let switch = switch.stop().unwrap();
    let counters = jobs.iter().map(|j| switch.counters(j.id)).collect();
    ClusterReport { outcomes, counters }
}

/// A transport made already, as a host thread takes it.
fn given<T: Send + 'static>(t: T) -> MakeTransport<T> {
    Box::new(move || t)
}

pub fn localhost0() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}
