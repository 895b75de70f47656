//! Racks under spines (`[topology]`): the cluster's shape and where each
//! job's workers go. The sim fabric runs them in virtual time; the
//! emulated fabrics start a switch per ToR and spine and take the racks
//! from here, not the start times (their hosts are threads, each job's
//! its own: nothing waits for a free host).
//!
//! A job's workers each take a host of a rack; the job's parameter server
//! is not counted (the simulator hangs it off the job's root: its rack's
//! ToR for a one-rack job, a spine for a job across racks, §9 of
//! docs/protocol.md). Jobs are placed one after another in arrival order;
//! a job holds its hosts from its start for its estimated time alone
//! ([`hold_us`]), so the hosts of a rack bound how many workers of the jobs
//! running at the same time sit in it. A job that finds too few free hosts
//! within its policy waits, in arrival order, until enough are released:
//! its start moves and the report says how long it queued.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use esa_core::constants::MAX_FAN_IN;
use esa_core::rng::Rng;

use crate::experiment::JobSpec;
use crate::workload::{LinkModel, iteration_time_s};

/// How a job's workers are spread over the racks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementPolicy {
    /// As few racks as the free hosts allow: the racks with the most free
    /// hosts, the last one the fullest that still holds the rest (best fit).
    Packed,
    /// One rack per worker, up to `max_racks_per_job` racks, taken round
    /// robin around the cluster from where the previous job's ended; the
    /// workers dealt over them in turn.
    Spread,
    /// As many racks as `Spread` uses, drawn at random among the racks
    /// with free hosts, each worker on a random one of them (seeded by the
    /// experiment's seed).
    Random,
}

impl PlacementPolicy {
    /// Every policy.
    pub const ALL: [PlacementPolicy; 3] = [
        PlacementPolicy::Packed,
        PlacementPolicy::Spread,
        PlacementPolicy::Random,
    ];

    /// `packed`, `spread` or `random`, as in experiment files.
    pub const fn name(self) -> &'static str {
        match self {
            PlacementPolicy::Packed => "packed",
            PlacementPolicy::Spread => "spread",
            PlacementPolicy::Random => "random",
        }
    }
}

impl std::str::FromStr for PlacementPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<PlacementPolicy, String> {
        PlacementPolicy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("{s:?}: must be packed, spread or random"))
    }
}

impl std::fmt::Display for PlacementPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The checked `[topology]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// Racks, each a top-of-rack switch (ToR).
    pub racks: u16,
    /// Hosts per rack; a job has at most 32 workers in one rack (the
    /// bitmaps of docs/protocol.md §9.1).
    pub hosts_per_rack: u16,
    /// Spines; every ToR has a link to each.
    pub spines: u16,
    /// Each ToR–spine link's rate, each way, Gbit/s (given, or from
    /// `oversubscription`).
    pub uplink_gbps: f64,
    /// Where jobs go.
    pub placement: PlacementPolicy,
    /// The most racks one job spans.
    pub max_racks_per_job: u16,
}

/// Where one job runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// When its workers start, µs: its arrival, or later if it queued for
    /// hosts.
    pub start_us: u64,
    /// Until when it holds its hosts, µs (its start and its estimated
    /// time alone).
    pub held_until_us: u64,
    /// `(rack, workers)` per rack it has workers in, in the order its
    /// workers are numbered (`esa_core::sim::SimJob::placement`).
    pub racks: Vec<(u16, u8)>,
}

/// Mixed into the experiment seed for the random policy's draws
/// ("racks" in ASCII).
const PLACEMENT_SEED: u64 = 0x0072_6163_6b73;

/// How long a job holds its hosts, µs: its time alone as
/// [`crate::workload`] estimates it (every iteration's compute and its
/// all-reduce's packets at the host link's rate), at least 1 µs.
pub fn hold_us(job: &JobSpec, link: &LinkModel) -> u64 {
    let s = f64::from(job.iterations) * iteration_time_s(job.gradient_elems, job.compute_us, link);
    ((s * 1e6).ceil() as u64).max(1)
}

impl Topology {
    /// Hosts in the cluster.
    pub fn hosts(&self) -> usize {
        usize::from(self.racks) * usize::from(self.hosts_per_rack)
    }

    /// Hosts' capacity of a rack over its uplinks' capacity, for hosts on
    /// `host_gbps` links.
    pub fn oversubscription(&self, host_gbps: f64) -> f64 {
        f64::from(self.hosts_per_rack) * host_gbps / (f64::from(self.spines) * self.uplink_gbps)
    }

    /// Workers one job may have in one rack: its hosts, at most 32.
    fn per_rack(&self) -> usize {
        usize::from(self.hosts_per_rack).min(usize::from(MAX_FAN_IN))
    }

    /// The most workers a job can have on an idle cluster.
    pub fn most_workers_per_job(&self) -> usize {
        let racks = usize::from(self.max_racks_per_job.min(self.racks));
        (racks * self.per_rack()).min(usize::from(u8::MAX))
    }

    /// Places `jobs` in arrival order (ties in the given order); the
    /// result is indexed like `jobs`. Fails only for a job that does not
    /// fit an idle cluster ([`Topology::most_workers_per_job`]).
    pub fn place(
        &self,
        jobs: &[JobSpec],
        seed: u64,
        link: &LinkModel,
    ) -> Result<Vec<Placement>, String> {
        let most = self.most_workers_per_job();
        if let Some(j) = jobs.iter().find(|j| usize::from(j.workers) > most) {
            return Err(format!(
                "job {:?} has {} workers, more than the {most} a job can have on this topology \
                 ({} racks per job, {} of a rack's {} hosts each)",
                j.name,
                j.workers,
                self.max_racks_per_job.min(self.racks),
                self.per_rack(),
                self.hosts_per_rack
            ));
        }
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&k| jobs[k].arrival_us);
        let mut cluster = Cluster {
            topology: self,
            free: vec![usize::from(self.hosts_per_rack); usize::from(self.racks)],
            running: BinaryHeap::new(),
            next_rack: 0,
            rng: Rng::new(seed ^ PLACEMENT_SEED),
        };
        let mut placed: Vec<Option<Placement>> = vec![None; jobs.len()];
        let mut clock = 0;
        for k in order {
            let job = &jobs[k];
            // No job starts before one that arrived earlier (FIFO).
            let mut now = job.arrival_us.max(clock);
            let racks = loop {
                cluster.release_until(now);
                if let Some(racks) = cluster.try_place(usize::from(job.workers)) {
                    break racks;
                }
                // Wait for the next job to release its hosts; on an idle
                // cluster the job fits (checked above).
                now = cluster
                    .next_release()
                    .ok_or_else(|| format!("job {:?} fits no idle cluster", job.name))?;
            };
            clock = now;
            let until = now + hold_us(job, link);
            cluster.hold(until, &racks);
            placed[k] = Some(Placement {
                start_us: now,
                held_until_us: until,
                racks,
            });
        }
        Ok(placed.into_iter().flatten().collect())
    }
}

/// A job holding hosts: when it releases them, and its `(rack, workers)`.
type Held = Reverse<(u64, Vec<(u16, u8)>)>;

/// The racks' free hosts while jobs are placed.
struct Cluster<'a> {
    topology: &'a Topology,
    free: Vec<usize>,
    /// Jobs holding hosts: when they release them, and where.
    running: BinaryHeap<Held>,
    /// Where the spread policy's next job starts.
    next_rack: usize,
    rng: Rng,
}

impl Cluster<'_> {
    fn release_until(&mut self, now: u64) {
        while let Some(Reverse((until, _))) = self.running.peek() {
            if *until > now {
                break;
            }
            let Some(Reverse((_, racks))) = self.running.pop() else {
                break;
            };
            for (rack, workers) in racks {
                self.free[usize::from(rack)] += usize::from(workers);
            }
        }
    }

    fn next_release(&self) -> Option<u64> {
        self.running.peek().map(|Reverse((until, _))| *until)
    }

    fn hold(&mut self, until: u64, racks: &[(u16, u8)]) {
        for &(rack, workers) in racks {
            self.free[usize::from(rack)] -= usize::from(workers);
        }
        self.running.push(Reverse((until, racks.to_vec())));
    }

    /// Workers of one job rack `r` can take now.
    fn room(&self, r: usize) -> usize {
        self.free[r].min(self.topology.per_rack())
    }

    /// The job's racks under the policy, or `None` if the free hosts do
    /// not hold it within `max_racks_per_job` racks.
    fn try_place(&mut self, workers: usize) -> Option<Vec<(u16, u8)>> {
        let racks = self.free.len();
        let most_racks = usize::from(self.topology.max_racks_per_job);
        let counts: Vec<(usize, usize)> = match self.topology.placement {
            PlacementPolicy::Packed => {
                let mut taken = vec![false; racks];
                let mut out = vec![];
                let mut left = workers;
                while left > 0 && out.len() < most_racks {
                    let open = (0..racks).filter(|&r| !taken[r] && self.room(r) > 0);
                    let best_fit = open
                        .clone()
                        .filter(|&r| self.room(r) >= left)
                        .min_by_key(|&r| (self.room(r), r));
                    let r = match best_fit {
                        Some(r) => r,
                        None => open.max_by_key(|&r| (self.room(r), Reverse(r)))?,
                    };
                    let n = left.min(self.room(r));
                    taken[r] = true;
                    out.push((r, n));
                    left -= n;
                }
                if left > 0 {
                    return None;
                }
                out
            }
            PlacementPolicy::Spread | PlacementPolicy::Random => {
                let want = workers.min(most_racks);
                let mut open: Vec<usize> = (0..racks)
                    .map(|i| (self.next_rack + i) % racks)
                    .filter(|&r| self.room(r) > 0)
                    .collect();
                if self.topology.placement == PlacementPolicy::Random {
                    for i in (1..open.len()).rev() {
                        open.swap(i, self.rng.below(i as u64 + 1) as usize);
                    }
                }
                open.truncate(want);
                if open.iter().map(|&r| self.room(r)).sum::<usize>() < workers {
                    return None;
                }
                let mut counts: Vec<(usize, usize)> = open.iter().map(|&r| (r, 0)).collect();
                let mut turn = 0;
                for _ in 0..workers {
                    // A rack with room left: the next in turn (spread), or
                    // one at random (random).
                    let with_room: Vec<usize> = (0..counts.len())
                        .filter(|&i| counts[i].1 < self.room(counts[i].0))
                        .collect();
                    let i = match self.topology.placement {
                        PlacementPolicy::Random => {
                            with_room[self.rng.below(with_room.len() as u64) as usize]
                        }
                        _ => {
                            let i = (turn..turn + counts.len())
                                .map(|i| i % counts.len())
                                .find(|i| with_room.contains(i))?;
                            turn = i + 1;
                            i
                        }
                    };
                    counts[i].1 += 1;
                }
                if self.topology.placement == PlacementPolicy::Spread
                    && let Some(&(last, _)) = counts.last()
                {
                    self.next_rack = (last + 1) % racks;
                }
                counts.retain(|&(_, n)| n > 0);
                counts
            }
        };
        Some(
            counts
                .into_iter()
                .map(|(r, n)| (r as u16, n as u8))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use esa_core::job::Mode;
    use esa_core::policy::Policy;

    fn job(name: &str, workers: u8, arrival_us: u64) -> JobSpec {
        JobSpec {
            name: name.into(),
            arrival_us,
            workers,
            model: None,
            // 3200 packets of 32 lanes: 53.76 µs at 100 Gbit/s, plus a 2 µs
            // round trip and 1 ms of compute.
            gradient_elems: 102_400,
            compute_us: 1000,
            iterations: 1,
            mode: Mode::Esa,
            policy: Policy::Fcfs,
            priority: 15,
            slots: None,
            slot_base: None,
            window: 32,
            train: None,
        }
    }

    const LINK: LinkModel = LinkModel {
        lanes: 32,
        link_gbps: 100.0,
        propagation_ns: 1000,
    };

    fn topology(racks: u16, hosts: u16, placement: PlacementPolicy, most: u16) -> Topology {
        Topology {
            racks,
            hosts_per_rack: hosts,
            spines: 2,
            uplink_gbps: 100.0,
            placement,
            max_racks_per_job: most,
        }
    }

    fn racks_of(p: &[Placement]) -> Vec<Vec<(u16, u8)>> {
        p.iter().map(|p| p.racks.clone()).collect()
    }

    #[test]
    fn a_job_holds_its_hosts_for_its_time_alone() {
        // 1 ms + 3200 × 16.8 ns + 2 µs = 1055.76 µs.
        assert_eq!(hold_us(&job("a", 2, 0), &LINK), 1056);
        let mut three = job("a", 2, 0);
        three.iterations = 3;
        assert_eq!(hold_us(&three, &LINK), 3168);
    }

    #[test]
    fn packed_takes_the_fewest_racks_and_the_fullest_that_fits() {
        let t = topology(4, 8, PlacementPolicy::Packed, 8);
        // At the same time: 20 workers take three racks (8 + 8 + 4);
        // then 3 go to the rack with 4 left (best fit), not an empty one;
        // then 9 take the last empty rack and the one host left.
        let jobs = [job("a", 20, 0), job("b", 3, 0), job("c", 9, 0)];
        let p = t.place(&jobs, 1, &LINK).unwrap();
        assert_eq!(
            racks_of(&p),
            [
                vec![(0, 8), (1, 8), (2, 4)],
                vec![(2, 3)],
                vec![(3, 8), (2, 1)]
            ]
        );
        assert!(p.iter().all(|p| p.start_us == 0));
        // Racks of more than 32 hosts: still at most 32 workers of a job
        // in one (the bitmaps).
        let t = topology(2, 64, PlacementPolicy::Packed, 8);
        let p = t.place(&[job("a", 40, 0)], 1, &LINK).unwrap();
        assert_eq!(racks_of(&p), [vec![(0, 32), (1, 8)]]);
    }

    #[test]
    fn spread_takes_a_rack_per_worker_up_to_the_cap_round_robin() {
        let t = topology(16, 32, PlacementPolicy::Spread, 8);
        let jobs = [job("a", 8, 0), job("b", 64, 0), job("c", 2, 0)];
        let p = t.place(&jobs, 1, &LINK).unwrap();
        assert_eq!(racks_of(&p)[0], (0..8).map(|r| (r, 1)).collect::<Vec<_>>());
        assert_eq!(racks_of(&p)[1], (8..16).map(|r| (r, 8)).collect::<Vec<_>>());
        assert_eq!(racks_of(&p)[2], [(0, 1), (1, 1)]);
        // Fewer racks than the cap: every rack.
        let t = topology(3, 32, PlacementPolicy::Spread, 8);
        let p = t.place(&[job("a", 8, 0)], 1, &LINK).unwrap();
        assert_eq!(racks_of(&p), [vec![(0, 3), (1, 3), (2, 2)]]);
    }

    #[test]
    fn random_is_seeded_and_keeps_the_cap() {
        let t = topology(16, 32, PlacementPolicy::Random, 4);
        let jobs: Vec<JobSpec> = (0..20)
            .map(|i| job(&format!("j{i}"), 2 + (i * 7 % 60) as u8, i * 10))
            .collect();
        let a = t.place(&jobs, 7, &LINK).unwrap();
        assert_eq!(a, t.place(&jobs, 7, &LINK).unwrap());
        assert_ne!(racks_of(&a), racks_of(&t.place(&jobs, 8, &LINK).unwrap()));
        for (p, j) in a.iter().zip(&jobs) {
            assert!(p.racks.len() <= 4, "{p:?}");
            let n: usize = p.racks.iter().map(|&(_, w)| usize::from(w)).sum();
            assert_eq!(n, usize::from(j.workers));
        }
        // Not simply spread's racks.
        let spread = Topology {
            placement: PlacementPolicy::Spread,
            ..t.clone()
        };
        assert_ne!(
            racks_of(&a),
            racks_of(&spread.place(&jobs, 7, &LINK).unwrap())
        );
    }

    #[test]
    fn no_rack_holds_more_workers_than_hosts_at_any_time() {
        let jobs: Vec<JobSpec> = (0..200)
            .map(|i| job(&format!("j{i}"), 2 + (i * 13 % 63) as u8, i * 150))
            .collect();
        for policy in PlacementPolicy::ALL {
            let t = topology(8, 16, policy, 8);
            let placed = t.place(&jobs, 3, &LINK).unwrap();
            let mut waited = 0;
            for (p, j) in placed.iter().zip(&jobs) {
                assert!(p.start_us >= j.arrival_us);
                waited += p.start_us - j.arrival_us;
                assert_eq!(p.held_until_us, p.start_us + hold_us(j, &LINK));
                // Every rack, at this job's start: the workers of the jobs
                // holding hosts then.
                for rack in 0..8 {
                    let held: usize = placed
                        .iter()
                        .filter(|q| q.start_us <= p.start_us && p.start_us < q.held_until_us)
                        .flat_map(|q| &q.racks)
                        .filter(|&&(r, _)| r == rack)
                        .map(|&(_, w)| usize::from(w))
                        .sum();
                    assert!(held <= 16, "{policy}: rack {rack} holds {held}");
                }
            }
            // The load is more than the cluster holds: jobs queued, in
            // arrival order.
            assert!(waited > 0, "{policy}");
            assert!(placed.windows(2).all(|w| w[0].start_us <= w[1].start_us));
        }
    }

    #[test]
    fn a_job_larger_than_a_job_can_be_is_refused() {
        let t = topology(16, 8, PlacementPolicy::Packed, 4);
        assert_eq!(t.most_workers_per_job(), 32);
        let err = t.place(&[job("big", 33, 0)], 1, &LINK).unwrap_err();
        assert!(
            err.contains("\"big\" has 33 workers, more than the 32"),
            "{err}"
        );
        assert!(t.place(&[job("ok", 32, 0)], 1, &LINK).is_ok());
        // At most 255 workers (the simulator's count is a byte).
        assert_eq!(
            topology(32, 32, PlacementPolicy::Packed, 32).most_workers_per_job(),
            255
        );
    }
}
