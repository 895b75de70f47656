//! The control of a variant's switches, as the emulated runner uses it:
//! admitting, reading and releasing jobs, and the controllers' health. One
//! switch has its controller; racks under spines have a controller per
//! switch under `esa_controller::fabric::FabricController`, which admits a
//! job across racks as a tree (`docs/protocol.md` §9).

use std::collections::BTreeMap;
use std::sync::Arc;

use esa_controller::fabric::{FabricController, TreeJob};
use esa_controller::jobs::{Job, JobRequest};
use esa_controller::{Controller, GrpcSwitch, Health, JobStats};
use esa_core::job::TreeShape;
use tokio::sync::watch;

/// The controllers of a variant's switches.
#[derive(Debug)]
pub(super) enum Control {
    /// One switch's.
    Switch(Arc<Controller<GrpcSwitch>>),
    /// Several switches', each its own, under a fabric controller.
    Fabric {
        fabric: Arc<FabricController<GrpcSwitch>>,
        /// The switches' names in the variant's order.
        order: Vec<String>,
    },
}

/// An admitted job, as its hosts run it.
#[derive(Debug, Clone)]
pub(super) struct Admitted {
    /// The job as its PS sees it: a flat job's entry, a tree job's root's.
    pub job: Job,
    /// A job across racks: its tree.
    pub tree: Option<Tree>,
}

/// A job's aggregation tree as its hosts and its report need it.
#[derive(Debug, Clone)]
pub(super) struct Tree {
    /// Workers per rack bit.
    pub shape: TreeShape,
    /// Per worker, in the request's order: (rack bit, local id).
    pub places: Vec<(u8, u8)>,
    /// The root's switch.
    pub root: String,
    /// What its switches had completed when it was admitted (what an
    /// earlier job of the same id left in their counters).
    pub completed_at_admission: LevelCounts,
}

/// Chunks a tree job's switches completed, by level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LevelCounts {
    /// At the root: whole chunks.
    pub root: u64,
    /// At the leaves, summed: rack partials sent up.
    pub leaves: u64,
}

impl Control {
    /// Every controller's health, in the switches' order.
    pub fn healths(&self) -> Vec<watch::Receiver<Health>> {
        match self {
            Control::Switch(c) => vec![c.health()],
            Control::Fabric { fabric, order } => order
                .iter()
                .filter_map(|name| fabric.controllers().get(name))
                .map(|c| c.health())
                .collect(),
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

    /// Admits `request`: on its switch, or on the fabric (flat on one
    /// switch, or a tree).
    pub async fn admit(&self, request: &JobRequest) -> Result<Admitted, String> {
        match self {
            Control::Switch(c) => c
                .admit(request)
                .await
                .map(|job| Admitted { job, tree: None })
                .map_err(|e| e.to_string()),
            Control::Fabric { fabric, .. } => {
                let job = fabric.admit(request).await.map_err(|e| e.to_string())?;
                admitted(job)
            }
        }
    }

    /// Releases job `id` (from every switch holding a part of it).
    pub async fn release(&self, id: u16) -> Result<(), String> {
        match self {
            Control::Switch(c) => c.release(u32::from(id)).await.map(|_| ()),
            Control::Fabric { fabric, .. } => fabric.release(u32::from(id)).await.map(|_| ()),
        }
        .map_err(|e| e.to_string())
    }

    /// Counters of jobs `ids` (empty: every job), a tree job's summed over
    /// its switches.
    pub async fn stats(&self, ids: &[u32]) -> Result<Vec<JobStats>, String> {
        match self {
            Control::Switch(c) => c.stats(ids).await,
            Control::Fabric { fabric, .. } => fabric.stats(ids).await,
        }
        .map_err(|e| e.to_string())
    }

    /// What tree job `id`'s root and leaves have completed so far.
    pub async fn completed_by_level(&self, id: u16, tree: &Tree) -> Result<LevelCounts, String> {
        let Control::Fabric { fabric, .. } = self else {
            return Err("a tree job on one switch".into());
        };
        let by_switch = fabric
            .stats_by_switch(&[u32::from(id)])
            .await
            .map_err(|e| e.to_string())?;
        let mut counts = LevelCounts::default();
        for (switch, stats) in by_switch {
            let completed: u64 = stats
                .iter()
                .filter(|s| s.job == id)
                .flat_map(|s| &s.counters)
                .filter(|(name, _)| name == "completed")
                .map(|(_, v)| v)
                .sum();
            if switch == tree.root {
                counts.root += completed;
            } else {
                counts.leaves += completed;
            }
        }
        Ok(counts)
    }

    /// After an interrupt, once every job's thread has ended: releases the
    /// jobs still admitted (every thread releases its own; this catches one
    /// that panicked first), then frees the pool slots the `admitted` jobs'
    /// cut-short aggregations left, so that a later run on the same switch
    /// (an external one) starts from an empty pool.
    pub async fn clean_up_interrupted(&self, admitted: &[u16]) {
        match self {
            Control::Switch(c) => clean_up_switch(c, admitted).await,
            Control::Fabric { fabric, .. } => {
                for job in fabric.jobs().await {
                    match fabric.release(u32::from(job.id)).await {
                        Ok(_) => eprintln!("interrupted: released job {}", job.id),
                        Err(e) => eprintln!("interrupted: cannot release job {}: {e}", job.id),
                    }
                }
                for c in fabric.controllers().values() {
                    clean_up_switch(c, admitted).await;
                }
            }
        }
    }
}

/// A job the fabric admitted, as its hosts run it: a flat job's one part,
/// or a tree's root part with its shape.
fn admitted(job: TreeJob) -> Result<Admitted, String> {
    let missing = || format!("job {}: the fabric admitted no part of it", job.id);
    let Some(root) = job.root.clone() else {
        let part = job.parts.into_values().next().ok_or_else(missing)?;
        return Ok(Admitted {
            job: part,
            tree: None,
        });
    };
    let shape = job
        .shape()
        .ok_or_else(|| format!("job {}: its racks do not make a tree shape", job.id))?;
    let mut parts: BTreeMap<String, Job> = job.parts;
    let part = parts.remove(&root).ok_or_else(missing)?;
    Ok(Admitted {
        job: part,
        tree: Some(Tree {
            shape,
            places: job.workers,
            root,
            completed_at_admission: LevelCounts::default(),
        }),
    })
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
