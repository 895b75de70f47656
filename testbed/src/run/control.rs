//! The control of a variant's switches, as the emulated runner uses it:
//! admitting, reading and releasing jobs, and the controllers' health. One
//! switch has its controller; racks under spines have a controller per
//! switch under `esa_controller::fabric::FabricController`, which admits a
//! job across racks as a tree (`docs/protocol.md` §9).

use std::sync::Arc;

use esa_controller::jobs::{Job, JobRequest};
use esa_controller::{Controller, GrpcSwitch, Health, JobStats};
use tokio::sync::watch;

/// The controllers of a variant's switches.
#[derive(Debug)]
pub(super) enum Control {
    /// One switch's.
    Switch(Arc<Controller<GrpcSwitch>>),
}

/// An admitted job, as its hosts run it.
#[derive(Debug, Clone)]
pub(super) struct Admitted {
    /// The job as its PS sees it: a flat job's entry, a tree job's root.
    pub job: Job,
}

impl Control {
    /// Every controller's health, in the switches' order.
    pub fn healths(&self) -> Vec<watch::Receiver<Health>> {
        match self {
            Control::Switch(c) => vec![c.health()],
        }
    }

    /// Pipelines pushed so far, over every switch: one more is a switch
    /// programmed again (after a restart).
    pub fn pipeline_pushes(&self) -> u64 {
        self.healths()
            .iter()
            .map(|h| h.borrow().pipeline_pushes)
            .sum()
    }

    /// Admits `request`.
    pub async fn admit(&self, request: &JobRequest) -> Result<Admitted, String> {
        match self {
            Control::Switch(c) => c
                .admit(request)
                .await
                .map(|job| Admitted { job })
                .map_err(|e| e.to_string()),
        }
    }

    /// Releases job `id`.
    pub async fn release(&self, id: u16) -> Result<(), String> {
        match self {
            Control::Switch(c) => c.release(u32::from(id)).await.map(|_| ()),
        }
        .map_err(|e| e.to_string())
    }

    /// Counters of jobs `ids` (empty: every job), a tree job's summed over
    /// its switches.
    pub async fn stats(&self, ids: &[u32]) -> Result<Vec<JobStats>, String> {
        match self {
            Control::Switch(c) => c.stats(ids).await,
        }
        .map_err(|e| e.to_string())
    }

    /// After an interrupt, once every job's thread has ended: releases the
    /// jobs still admitted (every thread releases its own; this catches one
    /// that panicked first), then frees the pool slots the `admitted` jobs'
    /// cut-short aggregations left, so that a later run on the same switch
    /// (an external one) starts from an empty pool.
    pub async fn clean_up_interrupted(&self, admitted: &[u16]) {
        match self {
            Control::Switch(c) => clean_up_switch(c, admitted).await,
        }
    }
}

/// [`Control::clean_up_interrupted`] on one switch.
async fn clean_up_switch(controller: &Controller<GrpcSwitch>, admitted: &[u16]) {
    for job in controller.jobs().await {
        match controller.release(u32::from(job.id)).await {
            Ok(_) => eprintln!("interrupted: released job {}", job.id),
            Err(e) => eprintln!("interrupted: cannot release job {}: {e}", job.id),
        }
    }
    for &job in admitted {
        if let Err(e) = controller.free_slots_of(job).await {
            eprintln!("interrupted: cannot free the pool slots of job {job}: {e}");
        }
    }
}
