//! A job's recipe, [`JobPlan`]: one value from which every part that runs
//! a job derives what it needs — each worker's [`WorkerConfig`], the PS's
//! [`PsConfig`] and [`JobOptions`], the job-table [`JobEntry`] — so the
//! decisions a mode implies are made here once: which slots the job uses
//! and how its seqs map onto them ([`Mode::slot_mapping`]), how many chunks
//! a worker keeps in flight on them ([`JobPlan::window`]), how many results
//! it keeps for its peers' `QUERY`s, and whether the PS passes results on
//! ([`Mode::ps_forwards_results`]).
//!
//! What differs on purpose between the places that run jobs is a field of
//! the plan, not a second recipe: the retransmission timing of where the
//! hosts run ([`Rto`]), an explicit result cache, the simulator's window
//! and slots divided into bundles.

use crate::constants::DEFAULT_LANES;
use crate::job::{JobEntry, Mode, SlotRange, TreePlace, TreeRole, TreeShape, chunks};
use crate::policy::Policy;
use crate::ps::{JobOptions, PsConfig};
use crate::quant::DEFAULT_EXPONENT;
use crate::rtt::Rto;
use crate::worker::{DEFAULT_WINDOW, RESULT_CACHE_WINDOWS, WorkerConfig};

/// A job's recipe: who, in which mode on which slots, and how its workers
/// send. Build it with [`JobPlan::new`] (or [`JobPlan::for_entry`] from an
/// admitted job's table entry) and set the fields the job says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobPlan {
    /// Job id, 1..=4095.
    pub job: u16,
    /// Number of workers, 1..=32; a tree job's racks (the root's fan-in).
    pub fan_in: u8,
    /// Sharing mode.
    pub mode: Mode,
    /// The job's slots: the whole pool for `esa` and `atp`, its own range
    /// for `switchml` ([`SlotRange::for_mode`]).
    pub slots: SlotRange,
    /// int32 lanes per packet (K), as the switch was built.
    pub lanes: usize,
    /// Chunks in flight asked for; a worker keeps [`JobPlan::window`].
    pub window: usize,
    /// Results a worker keeps to answer its peers' `QUERY`s; `None`:
    /// [`RESULT_CACHE_WINDOWS`] of its window, which the span bound needs
    /// (`WorkerConfig::max_span`).
    pub result_cache: Option<usize>,
    /// Priority policy of the workers.
    pub policy: Policy,
    /// Quantization exponent of the first try.
    pub exponent: i8,
    /// Chunks the job sends in all, when known (for `srpt`): see
    /// [`JobPlan::chunks_for`].
    pub chunks_total: Option<u64>,
    /// Seq the workers start at (0 for a fresh job;
    /// [`WorkerConfig::first_seq`]).
    pub first_seq: u16,
    /// Retransmission timing of where the hosts run.
    pub rto: Rto,
    /// A job across racks: the workers of each rack (`docs/protocol.md`
    /// §9); its workers' settings come from
    /// [`JobPlan::tree_worker_config`]. `None`: a flat job.
    pub tree: Option<TreeShape>,
}

impl JobPlan {
    /// Job `job` of `fan_in` workers in `mode` on `slots`, with the worker
    /// state machine's defaults for the rest ([`WorkerConfig::new`]):
    /// [`DEFAULT_LANES`] lanes, a window of [`DEFAULT_WINDOW`] and a result
    /// cache of [`RESULT_CACHE_WINDOWS`] windows, the default exponent,
    /// `fcfs`, [`Rto::DEFAULT`], seqs from 0, no chunk total.
    pub fn new(job: u16, fan_in: u8, mode: Mode, slots: SlotRange) -> JobPlan {
        JobPlan {
            job,
            fan_in,
            mode,
            slots,
            lanes: DEFAULT_LANES,
            window: DEFAULT_WINDOW,
            result_cache: None,
            policy: Policy::Fcfs,
            exponent: DEFAULT_EXPONENT,
            chunks_total: None,
            first_seq: 0,
            rto: Rto::DEFAULT,
            tree: None,
        }
    }

    /// The plan of admitted job `job` from its table entry: its fan-in,
    /// mode and slots.
    pub fn for_entry(job: u16, entry: &JobEntry) -> JobPlan {
        JobPlan::new(job, entry.fan_in, entry.mode, entry.slots())
    }

    /// Chunks in flight a worker keeps: the window asked for, on a
    /// `switchml` job at most one per slot of its range
    /// ([`SlotRange::window_for`]).
    pub fn window(&self) -> usize {
        self.slots.window_for(self.mode, self.window)
    }

    /// Results a worker keeps to answer `QUERY`s: by default
    /// [`RESULT_CACHE_WINDOWS`] windows, which lets the chunks in flight
    /// span two windows (`WorkerConfig::max_span`); two windows for a
    /// self-clocked mode ([`Mode::self_clocked`]), whose span is one
    /// window.
    pub fn result_cache(&self) -> usize {
        let windows = if self.mode.self_clocked() {
            2
        } else {
            RESULT_CACHE_WINDOWS
        };
        self.result_cache.unwrap_or(windows * self.window())
    }

    /// Chunks of `iterations` all-reduces of `elements` values each, at
    /// the plan's lanes: the [`JobPlan::chunks_total`] of such a job.
    pub fn chunks_for(&self, elements: usize, iterations: u32) -> u64 {
        chunks(elements, self.lanes) * u64::from(iterations)
    }

    /// Worker `worker_id`'s configuration in a flat job.
    pub fn worker_config(&self, worker_id: u8) -> WorkerConfig {
        WorkerConfig {
            job: self.job,
            worker_id,
            fan_in: self.fan_in,
            lanes: self.lanes,
            window: self.window(),
            slot_mapping: self.mode.slot_mapping(),
            remap_on_collision: self.mode.remaps_on_collision(),
            slot_mask: self.slots.mask,
            exponent: self.exponent,
            rto_initial_us: self.rto.initial_us,
            rto_min_us: self.rto.min_us,
            rto_max_us: self.rto.max_us,
            max_retries: self.rto.retries,
            result_cache: self.result_cache(),
            policy: self.policy,
            chunks_total: self.chunks_total,
            first_seq: self.first_seq,
            tree: None,
        }
    }

    /// A tree job's worker `local` of rack `rack`: its rack's fan-in, its
    /// local id, and its place in the job (`docs/protocol.md` §9.5);
    /// `None` for a flat job or a rack the job does not have.
    pub fn tree_worker_config(&self, rack: u8, local: u8) -> Option<WorkerConfig> {
        let shape = self.tree?;
        let &fan_in = shape.rack_workers().get(usize::from(rack))?;
        Some(WorkerConfig {
            fan_in,
            tree: Some(TreePlace {
                rack,
                racks: shape.racks(),
                total_workers: u16::try_from(shape.total_workers()).ok()?,
            }),
            ..self.worker_config(local)
        })
    }

    /// The settings of a PS serving this job: its lanes, the defaults
    /// otherwise.
    pub fn ps_config(&self) -> PsConfig {
        PsConfig {
            lanes: self.lanes,
            ..PsConfig::default()
        }
    }

    /// The job's options at its PS ([`JobOptions::for_mode`]), with its
    /// tree.
    pub fn ps_options(&self) -> JobOptions {
        JobOptions {
            tree: self.tree,
            ..JobOptions::for_mode(self.mode)
        }
    }

    /// The job's entry in the switch's job table, with the priority class,
    /// multicast group and PS port its admission gave it: a flat job's (a
    /// tree job's entries differ per switch, §9.1).
    pub fn entry(&self, max_priority: u8, mcast_group: u16, ps_port: u16) -> JobEntry {
        JobEntry {
            fan_in: self.fan_in,
            mode: self.mode,
            max_priority,
            mcast_group,
            ps_port,
            slot_base: self.slots.base,
            slot_mask: self.slots.mask,
            tree: TreeRole::Flat,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::SlotMapping;

    #[test]
    fn a_plan_with_defaults_is_the_state_machines_defaults() {
        let plan = JobPlan::new(3, 4, Mode::Esa, SlotRange::whole_pool(4096));
        let c = plan.worker_config(1);
        let d = WorkerConfig::new(3, 1, 4);
        assert_eq!(format!("{c:?}"), format!("{d:?}"));
    }

    #[test]
    fn switchml_keeps_one_chunk_per_two_slots_of_its_range_self_clocked() {
        let mut plan = JobPlan::new(2, 2, Mode::SwitchMl, SlotRange { base: 16, mask: 7 });
        plan.window = 64;
        let c = plan.worker_config(0);
        assert_eq!((c.slot_mapping, c.slot_mask), (SlotMapping::Direct, 7));
        assert_eq!((c.window, c.result_cache), (4, 8));
        assert_eq!(c.max_span(), c.window, "self-clocked");
        assert!(!c.remap_on_collision);
        assert_eq!(c.validate(), Ok(()));
        plan.mode = Mode::Atp;
        plan.slots = SlotRange::whole_pool(64);
        let c = plan.worker_config(0);
        assert_eq!(
            (c.slot_mapping, c.slot_mask, c.window),
            (SlotMapping::Hashed, 63, 64)
        );
        assert_eq!(c.max_span(), 64, "self-clocked");
        assert!(c.remap_on_collision);
        assert!(plan.ps_options().forward_results);
        plan.mode = Mode::Esa;
        let c = plan.worker_config(0);
        assert_eq!(
            (c.max_span(), c.result_cache, c.remap_on_collision),
            (128, 256, false)
        );
        plan.result_cache = Some(5);
        assert_eq!(plan.worker_config(1).result_cache, 5);
    }

    #[test]
    fn a_tree_plan_gives_each_worker_its_rack_and_the_ps_the_shape() {
        let mut plan = JobPlan::new(5, 3, Mode::Esa, SlotRange::whole_pool(4096));
        assert_eq!(plan.tree_worker_config(0, 0), None, "a flat job");
        let shape = TreeShape::new(&[2, 4, 1]).unwrap();
        plan.tree = Some(shape);
        let c = plan.tree_worker_config(1, 3).unwrap();
        assert_eq!(
            (c.worker_id, c.fan_in, c.tree),
            (
                3,
                4,
                Some(TreePlace {
                    rack: 1,
                    racks: 3,
                    total_workers: 7
                })
            )
        );
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(
            format!(
                "{:?}",
                WorkerConfig {
                    tree: None,
                    fan_in: 3,
                    ..c
                }
            ),
            format!("{:?}", plan.worker_config(3))
        );
        assert_eq!(plan.tree_worker_config(3, 0), None);
        assert_eq!(plan.ps_options().tree, Some(shape));
    }

    #[test]
    fn the_entry_carries_the_plans_slots() {
        let plan = JobPlan::new(9, 3, Mode::SwitchMl, SlotRange { base: 32, mask: 15 });
        let entry = plan.entry(7, 9, 12);
        assert_eq!(
            (entry.slot_base, entry.slot_mask, entry.fan_in),
            (32, 15, 3)
        );
        assert_eq!(JobPlan::for_entry(9, &entry), plan);
    }
}
