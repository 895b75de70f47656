//! Synthetic gradients and their exact sums ([`SyntheticSums`], the
//! workload of the tests' jobs and of `esa run`'s), and a test job: its
//! spec, its plan, and its parameter server and workers run by
//! [`crate::runner`], every element of every result checked against the
//! exact integer sum.
//!
//! The gradients are [`esa_core::synthetic::gradient_value`]'s small
//! integers, so a sum in f32 is exact whatever the order of addition, and
//! "exact" means equal, not close.

use std::net::SocketAddr;
use std::ops::Range;
use std::time::Duration;

use esa_core::job::{Mode, SlotRange};
use esa_core::plan::JobPlan;
use esa_core::policy::Policy;
use esa_core::synthetic::gradient_value;
use esa_core::worker::WorkerConfig;
use esa_host::HostError;
use esa_host::ps::FallbackVolume;
use esa_host::transport::Transport;
use esa_host::worker::Worker;

use crate::runner::{self, Hosts, PsFailure, Watch, WorkerRun, Workload};

pub use crate::runner::{LINGER_LIMIT, MakeTransport, linger};
pub use esa_core::rtt::Rto;

/// The gradients' seed unless a spec says otherwise.
pub const SEED: u64 = 7;

/// A job's synthetic gradients: worker `w`'s `elements` values of
/// iteration `i` are [`gradient_value`]`(seed, job, w, i, _)`. As a
/// [`Workload`], each worker waits `compute` (its forward and backward
/// pass), all-reduces its gradient and counts the elements that differ
/// from the exact sum, `iterations` times.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticSums {
    /// The job id the gradients are drawn for.
    pub job: u16,
    /// Workers of the job.
    pub workers: u8,
    /// Gradient elements per iteration.
    pub elements: usize,
    /// Iterations.
    pub iterations: u32,
    /// Seed of the gradients.
    pub seed: u64,
    /// Compute time before each all-reduce.
    pub compute: Duration,
}

impl SyntheticSums {
    /// Worker `worker`'s gradient in `iteration`.
    pub fn gradient(&self, worker: u8, iteration: u32) -> Vec<f32> {
        let mut data = vec![0.0; self.elements];
        self.fill(worker, iteration, &mut data);
        data
    }

    fn fill(&self, worker: u8, iteration: u32, data: &mut [f32]) {
        for (i, x) in data.iter_mut().enumerate() {
            *x = gradient_value(self.seed, self.job, worker, iteration, i);
        }
    }

    /// The exact sum of every worker's element `i` in `iteration`.
    pub fn exact_sum(&self, iteration: u32, i: usize) -> f32 {
        (0..self.workers)
            .map(|w| gradient_value(self.seed, self.job, w, iteration, i))
            .sum()
    }

    /// Elements of `got` that differ from the exact sum of `iteration`.
    pub fn mismatches(&self, iteration: u32, got: &[f32]) -> usize {
        got.iter()
            .enumerate()
            .filter(|(i, got)| self.exact_sum(iteration, *i) != **got)
            .count()
    }

    /// All-reduces worker `worker_id`'s gradient of `iteration` in `data`
    /// (in place, `Worker::allreduce_owned`: no copy of the tensor; an
    /// error leaves `data` empty); returns the elements that differ from
    /// the exact sum.
    fn allreduce<T: Transport>(
        &self,
        worker: &mut Worker<T>,
        worker_id: u8,
        iteration: u32,
        data: &mut Vec<f32>,
    ) -> Result<usize, HostError> {
        self.fill(worker_id, iteration, data);
        let (sum, _) = worker.allreduce_owned(std::mem::take(data))?;
        *data = sum;
        Ok(self.mismatches(iteration, data))
    }

    /// Runs the iterations on `worker` for a run that keeps any extra (a
    /// workload built on this one).
    pub fn run_iterations<T: Transport, E>(
        &self,
        worker: &mut Worker<T>,
        run: &mut WorkerRun<'_, E>,
    ) {
        let mut data = vec![0f32; self.elements];
        for it in 0..self.iterations {
            if !self.compute.is_zero() {
                std::thread::sleep(self.compute);
            }
            match self.allreduce(worker, run.worker_id(), it, &mut data) {
                Ok(wrong) => run.iteration_done(wrong as u64),
                Err(e) => return run.fail(e),
            }
        }
    }
}

impl Workload for SyntheticSums {
    type Extra = ();

    fn run<T: Transport>(&self, worker: &mut Worker<T>, run: &mut WorkerRun<'_, ()>) {
        self.run_iterations(worker, run);
    }
}

/// One job of a test: who, how, and how much.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Job id (as admitted).
    pub id: u16,
    /// Number of workers (the fan-in).
    pub workers: u8,
    /// Sharing mode.
    pub mode: Mode,
    /// Priority policy of the workers.
    pub policy: Policy,
    /// Gradient elements per iteration.
    pub elements: usize,
    /// Iterations.
    pub iterations: u32,
    /// Outstanding chunks per worker.
    pub window: usize,
    /// Seed of the synthetic gradients.
    pub seed: u64,
    /// SwitchML: the first slot of the job's range.
    pub slot_base: u16,
    /// SwitchML: the job's slot mask.
    pub slot_mask: u16,
}

impl JobSpec {
    /// An ESA job with the `fcfs` policy, a window of 8 and seed [`SEED`].
    pub fn new(id: u16, workers: u8, elements: usize, iterations: u32) -> JobSpec {
        JobSpec {
            id,
            workers,
            mode: Mode::Esa,
            policy: Policy::Fcfs,
            elements,
            iterations,
            window: 8,
            seed: SEED,
            slot_base: 0,
            slot_mask: 0,
        }
    }

    /// The job's gradients, without compute time.
    pub fn synthetic(&self) -> SyntheticSums {
        SyntheticSums {
            job: self.id,
            workers: self.workers,
            elements: self.elements,
            iterations: self.iterations,
            seed: self.seed,
            compute: Duration::ZERO,
        }
    }

    /// Worker `worker`'s gradient in `iteration`.
    pub fn gradient(&self, worker: u8, iteration: u32) -> Vec<f32> {
        self.synthetic().gradient(worker, iteration)
    }

    /// The exact sum of every worker's gradient in `iteration`, first
    /// `elements` elements.
    pub fn expected_sum(&self, iteration: u32, elements: usize) -> Vec<f32> {
        let sums = self.synthetic();
        (0..elements)
            .map(|i| sums.exact_sum(iteration, i))
            .collect()
    }

    /// Elements of `got` that differ from the exact sum of `iteration`.
    pub fn mismatches(&self, iteration: u32, got: &[f32]) -> usize {
        self.synthetic().mismatches(iteration, got)
    }

    /// The job's plan: `lanes` lanes, the job's window, slots hashed over
    /// the pool of mask `pool_slot_mask` (or, for a SwitchML job, its own
    /// range, direct), the total chunk count for `srpt`, and `rto`'s
    /// timeouts.
    pub fn plan(&self, lanes: usize, pool_slot_mask: u16, rto: Rto) -> JobPlan {
        let pool = SlotRange {
            base: 0,
            mask: pool_slot_mask,
        };
        let own = SlotRange {
            base: self.slot_base,
            mask: self.slot_mask,
        };
        let slots = SlotRange::for_mode(self.mode, pool, own);
        let mut plan = JobPlan::new(self.id, self.workers, self.mode, slots);
        plan.lanes = lanes;
        plan.window = self.window;
        plan.policy = self.policy;
        plan.chunks_total = Some(plan.chunks_for(self.elements, self.iterations));
        plan.rto = rto;
        plan
    }

    /// Worker `worker_id`'s configuration of [`JobSpec::plan`].
    pub fn worker_config(
        &self,
        worker_id: u8,
        lanes: usize,
        slot_mask: u16,
        rto: Rto,
    ) -> WorkerConfig {
        self.plan(lanes, slot_mask, rto).worker_config(worker_id)
    }
}

/// Runs `iterations` all-reduces of `spec`'s gradients as worker `id`;
/// returns (iterations done, elements that differed from the exact sum).
pub fn run_iterations<T: Transport>(
    worker: &mut Worker<T>,
    spec: &JobSpec,
    id: u8,
    iterations: Range<u32>,
) -> Result<(u32, usize), HostError> {
    let sums = spec.synthetic();
    let mut data = vec![0f32; spec.elements];
    let mut wrong = 0;
    let mut done = 0;
    for it in iterations {
        wrong += sums.allreduce(worker, id, it, &mut data)?;
        done += 1;
    }
    Ok((done, wrong))
}

/// Where a job's hosts send, and how.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// Where workers and PS send ESA packets.
    pub switch: SocketAddr,
    /// Lanes per packet.
    pub lanes: usize,
    /// Slot mask of hashed (ESA, ATP) jobs.
    pub slot_mask: u16,
    /// Retransmission timing.
    pub rto: Rto,
}

/// What a job's hosts did.
#[derive(Debug, Default)]
pub struct JobOutcome {
    /// Per worker, in worker-id order: iterations finished and elements
    /// that differed from the exact sum, or why it stopped.
    pub workers: Vec<Result<(u32, usize), String>>,
    /// Elements checked.
    pub checked_elements: u64,
    /// Resends, summed over workers.
    pub resends: u64,
    /// Results that came from the switch (in-switch aggregation), summed.
    pub results_from_switch: u64,
    /// Results that came from the PS, summed.
    pub results_from_ps: u64,
    /// Packets the workers could not use (malformed, foreign, unexpected).
    pub invalid_packets: u64,
    /// Results received again after one was accepted.
    pub duplicate_results: u64,
    /// What reached the PS.
    pub fallback: Option<FallbackVolume>,
    /// Errors of the PS.
    pub ps_errors: Vec<String>,
    /// Wall time from the first worker start to the last finish.
    pub elapsed: Duration,
}

impl JobOutcome {
    /// Chunks the PS completed.
    pub fn chunks_at_ps(&self) -> u64 {
        self.fallback.as_ref().map_or(0, |v| v.chunks_completed)
    }

    /// Every error of any host.
    pub fn errors(&self) -> Vec<String> {
        self.workers
            .iter()
            .filter_map(|w| w.as_ref().err().cloned())
            .chain(self.ps_errors.iter().cloned())
            .collect()
    }

    /// Every worker finished every iteration, every element of every
    /// result was checked, and none differed from the exact sum.
    pub fn assert_exact(&self, spec: &JobSpec) {
        assert_eq!(
            self.workers.len(),
            usize::from(spec.workers),
            "job {}",
            spec.id
        );
        for (id, w) in self.workers.iter().enumerate() {
            match w {
                Ok((done, wrong)) => {
                    assert_eq!(*done, spec.iterations, "job {} worker {id}", spec.id);
                    assert_eq!(
                        *wrong, 0,
                        "job {} worker {id}: results differ from the exact sum",
                        spec.id
                    );
                }
                Err(e) => panic!("job {} worker {id} failed: {e}", spec.id),
            }
        }
        assert_eq!(
            self.checked_elements,
            spec.elements as u64 * u64::from(spec.iterations) * u64::from(spec.workers),
            "job {}",
            spec.id
        );
    }
}

/// One job to run: its spec, its setup, worker transports and PS transport.
pub type JobRun<T, P> = (JobSpec, Setup, Vec<MakeTransport<T>>, MakeTransport<P>);

/// Runs every job at once, each on [`runner::run_job`] with its
/// [`SyntheticSums`], and returns each spec with its outcome, in order.
pub fn run_jobs<T, P>(runs: Vec<JobRun<T, P>>) -> Vec<(JobSpec, JobOutcome)>
where
    T: Transport + 'static,
    P: Transport + 'static,
{
    std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .into_iter()
            .map(|(spec, setup, workers, ps)| {
                s.spawn(move || {
                    let o = run_exact(
                        &spec,
                        setup,
                        Hosts {
                            workers,
                            ps,
                            places: Vec::new(),
                        },
                    );
                    (spec, o)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a job's thread panicked"))
            .collect()
    })
}

/// Runs a job whose every worker all-reduces the spec's gradients and
/// compares every element with the exact sum.
fn run_exact<T, P>(spec: &JobSpec, setup: Setup, hosts: Hosts<T, P>) -> JobOutcome
where
    T: Transport + 'static,
    P: Transport + 'static,
{
    let plan = spec.plan(setup.lanes, setup.slot_mask, setup.rto);
    let run = runner::run_job(
        &plan,
        setup.switch,
        hosts,
        &spec.synthetic(),
        &Watch::default(),
    );
    let mut outcome = JobOutcome {
        elapsed: run.elapsed,
        ..JobOutcome::default()
    };
    for w in run.workers {
        if let Some(s) = &w.stats {
            outcome.resends += s.resends;
            outcome.results_from_switch += s.results_from_switch;
            outcome.results_from_ps += s.results_from_ps;
            outcome.invalid_packets += s.invalid_packets;
            outcome.duplicate_results += s.duplicate_results;
        }
        outcome.workers.push(match w.error {
            Some(e) => Err(e),
            None => {
                outcome.checked_elements += spec.elements as u64 * u64::from(w.iterations);
                Ok((w.iterations, w.wrong_elements as usize))
            }
        });
    }
    match run.ps {
        Ok(ps) => outcome.fallback = ps.volume,
        Err(PsFailure::Failed(e)) => outcome
            .ps_errors
            .push(format!("PS of job {}: {e}", spec.id)),
        Err(PsFailure::NotStarted(e)) => outcome.ps_errors.push(format!(
            "PS of job {}: cannot start its thread: {e}",
            spec.id
        )),
        Err(PsFailure::Panicked) => outcome
            .ps_errors
            .push(format!("PS of job {} panicked", spec.id)),
    }
    outcome
}
