//! Deterministic multi-job simulations: every contribution counted exactly
//! once, every chunk completes, every result is the exact sum, under loss,
//! duplication, reordering, preemption and fallback.

use esa_core::job::Mode;
use esa_core::policy::Policy;
use esa_core::pool::{JobCounters, PoolConfig};
use esa_core::rtt::Rto;
use esa_core::sim::{self, LinkConfig, SimConfig, SimJob};

/// Runs seeds `range` with loss up to `max_loss` and returns the reports,
/// failing with every violation (and its seed) if any.
fn run_seeds(range: std::ops::Range<u64>, max_loss: f64) -> Vec<sim::SimReport> {
    run_scenarios(range, |seed| SimConfig::random(seed, max_loss))
}

/// Runs the scenario `scenario` makes of each seed of `range`, as
/// [`run_seeds`].
fn run_scenarios(
    range: std::ops::Range<u64>,
    scenario: impl Fn(u64) -> SimConfig,
) -> Vec<sim::SimReport> {
    let mut failures = vec![];
    let mut reports = vec![];
    for seed in range {
        let report = sim::run(&scenario(seed));
        failures.extend(report.violations().iter().cloned());
        reports.push(report);
    }
    assert!(
        failures.is_empty(),
        "{} violations; first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    reports
}

#[test]
fn a_thousand_seeded_scenarios_hold_every_invariant() {
    let reports = run_seeds(0..1000, 0.10);
    // The scenarios must actually exercise the hard paths, or the test
    // proves little.
    let total = |f: fn(&esa_core::pool::JobCounters) -> u64| -> u64 {
        reports
            .iter()
            .flat_map(|r| &r.jobs)
            .map(|j| f(&j.switch))
            .sum()
    };
    assert!(
        total(|c| c.preemptions) > 100,
        "preemptions {}",
        total(|c| c.preemptions)
    );
    assert!(
        total(|c| c.fallbacks) > 1000,
        "fallbacks {}",
        total(|c| c.fallbacks)
    );
    assert!(
        total(|c| c.flushed) > 100,
        "flushes {}",
        total(|c| c.flushed)
    );
    assert!(
        total(|c| c.stale_reclaims) > 10,
        "stale {}",
        total(|c| c.stale_reclaims)
    );
    assert!(
        total(|c| c.reemitted) > 10,
        "reemitted {}",
        total(|c| c.reemitted)
    );
    assert!(
        total(|c| c.duplicates) > 100,
        "duplicates {}",
        total(|c| c.duplicates)
    );
    assert!(
        total(|c| c.released) > 100,
        "atp releases {}",
        total(|c| c.released)
    );
    let lost: u64 = reports.iter().map(|r| r.frames_lost).sum();
    assert!(lost > 1000, "frames lost {lost}");
    let at_ps: u64 = reports
        .iter()
        .flat_map(|r| &r.jobs)
        .map(|j| j.chunks_at_ps)
        .sum();
    let in_switch: u64 = reports
        .iter()
        .flat_map(|r| &r.jobs)
        .map(|j| j.chunks_in_switch)
        .sum();
    assert!(
        at_ps > 100 && in_switch > 1000,
        "at PS {at_ps}, in switch {in_switch}"
    );
}

/// Issue 41's exactly-once test on two-level trees: racks under spines,
/// loss, duplication and reordering on every link (between switches too),
/// pools small enough that collisions, preemption and stale reclaim hit
/// both levels. Every result of every worker is the exact sum.
#[test]
fn a_thousand_two_level_scenarios_hold_every_invariant() {
    let reports = run_scenarios(0..1000, |seed| SimConfig::random_tree(seed, 0.10));
    let jobs = || reports.iter().flat_map(|r| &r.jobs);
    let trees = jobs().filter(|j| j.racks > 1).count();
    assert!(trees > 1000, "tree jobs {trees}");
    let level = |name: &str,
                 pick: fn(&sim::JobReport) -> &JobCounters,
                 f: fn(&JobCounters) -> u64,
                 least: u64| {
        let n: u64 = jobs().map(|j| f(pick(j))).sum();
        assert!(n > least, "{name}: {n}");
    };
    fn leaves(j: &sim::JobReport) -> &JobCounters {
        &j.leaf_switches
    }
    fn root(j: &sim::JobReport) -> &JobCounters {
        &j.root_switch
    }
    // Both levels aggregate, and the hard rows happen at both.
    level("rack partials sent up", leaves, |c| c.completed, 1000);
    level("chunks completed at a root", root, |c| c.completed, 1000);
    level("preemptions at leaves", leaves, |c| c.preemptions, 100);
    level("preemptions at roots", root, |c| c.preemptions, 100);
    level("stale reclaims at leaves", leaves, |c| c.stale_reclaims, 10);
    level("stale reclaims at roots", root, |c| c.stale_reclaims, 10);
    level("fallbacks at leaves", leaves, |c| c.fallbacks, 1000);
    level("fallbacks at roots", root, |c| c.fallbacks, 100);
    level("flushes at leaves", leaves, |c| c.flushed, 100);
    level("pulls at leaves", leaves, |c| c.pulled, 10);
    level("parts relayed by roots", root, |c| c.parts_relayed, 1000);
    level("pulls relayed by roots", root, |c| c.pulls_relayed, 10);
    level("duplicates at roots", root, |c| c.duplicates, 10);
    let lost: u64 = reports.iter().map(|r| r.frames_lost).sum();
    assert!(lost > 1000, "frames lost {lost}");
    let at_ps: u64 = jobs().filter(|j| j.racks > 1).map(|j| j.chunks_at_ps).sum();
    assert!(at_ps > 100, "tree chunks completed at the PS {at_ps}");
}

#[test]
fn heavy_loss_still_completes_exactly() {
    let mut failures = vec![];
    for (seed, tree) in (5000..5040)
        .map(|s| (s, false))
        .chain((6000..6040).map(|s| (s, true)))
    {
        let mut config = if tree {
            SimConfig::random_tree(seed, 0.0)
        } else {
            SimConfig::random(seed, 0.0)
        };
        config.link.loss = 0.25;
        config.link.duplicate = 0.10;
        failures.extend(sim::run(&config).violations().iter().cloned());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn same_seed_same_report() {
    let config = SimConfig::random(42, 0.1);
    assert_eq!(sim::run(&config), sim::run(&config));
    let other = sim::run(&SimConfig::random(43, 0.1));
    assert_ne!(sim::run(&config).end_us, other.end_us);
}

#[test]
fn without_contention_or_loss_everything_aggregates_in_the_switch() {
    let mut jobs = vec![
        SimJob::new(1, 4, 32 * 40, 2),
        SimJob::new(2, 3, 32 * 17 + 5, 2),
    ];
    jobs[1].start_us = 50;
    let config = SimConfig {
        seed: 3,
        pool: PoolConfig {
            slots: 4096,
            lanes: 32,
            stale_after_us: 100_000,
        },
        jobs,
        link: LinkConfig {
            latency_ns: 5_000,
            jitter_ns: 0,
            loss: 0.0,
            duplicate: 0.0,
            gbps: None,
        },
        rto: Rto {
            initial_us: 10_000,
            min_us: None,
            max_us: 10_000,
            retries: 3,
        },
        time_limit_us: 1_000_000,
        ..SimConfig::default()
    };
    let report = sim::run(&config);
    assert!(report.violations().is_empty(), "{:?}", report.violations());
    let per_job_chunks = [40 * 2, 18 * 2];
    for (job, chunks) in report.jobs.iter().zip(per_job_chunks) {
        assert!(job.verified);
        assert_eq!(
            (job.chunks_in_switch, job.chunks_at_ps),
            (chunks, 0),
            "job {}",
            job.job
        );
        assert_eq!(job.resends, 0);
        assert_eq!(job.switch.completed, chunks);
        assert_eq!(job.switch.fallbacks + job.switch.preemptions, 0);
    }
}

#[test]
fn built_in_two_job_scenario_in_every_mode() {
    for mode in [Mode::Esa, Mode::Atp, Mode::SwitchMl] {
        let report = sim::run(&SimConfig::two_jobs(mode));
        assert!(
            report.violations().is_empty(),
            "{mode}: {:?}",
            report.violations()
        );
        assert!(report.jobs.iter().all(|j| j.verified), "{mode}");
        let preemptions: u64 = report.jobs.iter().map(|j| j.switch.preemptions).sum();
        match mode {
            Mode::Esa => assert!(preemptions > 0, "the high-priority job must preempt"),
            Mode::Atp | Mode::SwitchMl => assert_eq!(preemptions, 0, "{mode}"),
        }
        if mode == Mode::Atp {
            assert!(report.jobs.iter().all(|j| j.switch.released > 0));
        }
    }
}

#[test]
fn higher_priority_job_suffers_no_eviction() {
    let report = sim::run(&SimConfig::two_jobs(Mode::Esa));
    let (low, high) = (&report.jobs[0], &report.jobs[1]);
    assert!(matches!(
        (low.policy.as_str(), high.policy.as_str()),
        ("static:2", "static:9")
    ));
    assert_eq!(high.switch.evictions_suffered, 0);
    assert!(low.switch.evictions_suffered > 0);
    // Every partial evicted from the switch reaches the PS: no frame is
    // lost here.
    assert_eq!(low.evicted_parts, low.switch.evictions_suffered);
    assert_eq!(high.evicted_parts, 0);
    let _ = Policy::Fcfs;
}

#[test]
fn overflowing_chunks_are_rerun_at_a_smaller_scale_and_stay_exact() {
    let mut config = SimConfig::random(77, 0.05);
    for job in &mut config.jobs {
        // |x| ≤ 500 at 2^24 exceeds the per-worker limit for any fan-in
        // above 1; one step down (2^16) fits.
        job.exponent = 24;
    }
    let report = sim::run(&config);
    assert!(report.violations().is_empty(), "{:?}", report.violations());
    for job in &report.jobs {
        assert!(job.verified, "job {}", job.job);
        assert_eq!(
            job.overflow_retries,
            job.chunks_per_iteration * u64::from(job.iterations),
            "job {}: every chunk overflows once",
            job.job
        );
    }
}

/// A job of 1024 chunks per all-reduce with a window of 32, 1% loss on
/// every link (workers' and PS's). When a chunk's `RESULT` is lost both
/// toward one worker and toward the PS, only the other workers' result
/// caches still hold it; before the ring span was bounded by the result
/// cache, the lagging worker kept sending while the rest of the job
/// completed hundreds of chunks, every peer's cache had dropped the
/// result by the time the PS asked (`QUERY`), and the worker gave up
/// (seeds 10, 11, 14, 15, 22, ... failed).
#[test]
fn a_result_lost_toward_a_worker_and_the_ps_is_still_recovered() {
    let mut failures = vec![];
    for seed in 0..30u64 {
        let mode = [Mode::Esa, Mode::SwitchMl][(seed % 2) as usize];
        let mut job = SimJob::new(1, 2 + (seed % 3 == 2) as u8, 32 * 1024, 1);
        job.window = 32;
        job.mode = mode;
        job.slot_mask = 63;
        let config = SimConfig {
            seed,
            pool: PoolConfig {
                slots: 64,
                lanes: 32,
                stale_after_us: 10_000,
            },
            jobs: vec![job],
            link: LinkConfig {
                latency_ns: 5_000,
                jitter_ns: 3_000,
                loss: 0.01,
                duplicate: 0.0,
                gbps: None,
            },
            rto: Rto {
                initial_us: 1_000,
                min_us: None,
                max_us: 4_000,
                retries: 30,
            },
            time_limit_us: 5_000_000,
            ..SimConfig::default()
        };
        failures.extend(sim::run(&config).violations().iter().cloned());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Loss-free 100 Gbit/s links with 1 µs propagation and no jitter.
fn link_100g() -> LinkConfig {
    LinkConfig {
        latency_ns: 1_000,
        jitter_ns: 0,
        loss: 0.0,
        duplicate: 0.0,
        gbps: Some(100.0),
    }
}

/// One job alone on 100 Gbit/s links with a window larger than its
/// gradient: `cfg` with that job, `workers` workers, `packets` packets.
fn lone_job(workers: u8, packets: usize, bundle: u32) -> SimConfig {
    let mut job = SimJob::new(1, workers, 32 * packets, 1);
    job.window = 4096;
    job.compute_us = 100;
    SimConfig {
        jobs: vec![job],
        link: link_100g(),
        bundle,
        ..SimConfig::default()
    }
}

#[test]
fn a_lone_all_reduce_takes_its_packets_wire_time_and_two_propagation_delays() {
    let packets = 2_000;
    let report = sim::run(&lone_job(4, packets, 1));
    assert!(report.violations().is_empty(), "{:?}", report.violations());
    let t = sim::packet_ns(32, 100.0);
    // Compute, then the workers' packets back to back on their uplinks; the
    // switch completes each chunk as its last copy arrives and streams the
    // results down: one more packet time and a second propagation delay.
    let want_ns = 100_000.0 + packets as f64 * t + 2.0 * 1_000.0 + t;
    let jct_ns = report.jobs[0].jct_us.expect("finished") as f64 * 1000.0;
    assert!(
        (jct_ns - want_ns).abs() <= 1_000.0,
        "JCT {jct_ns} ns, want {want_ns} ns (packet {t} ns)"
    );
    assert_eq!(report.jobs[0].chunks_in_switch, packets as u64);
}

#[test]
fn bundles_agree_with_packet_level_within_two_percent_without_contention() {
    // Two jobs of different sizes, overlapping in time, with stragglers,
    // on a pool large enough for both windows. Job ids 1 and 3 hash to
    // slot ranges that do not overlap at any of these bundle sizes (ids 1
    // and 2 do at packet level: their collisions go to the PS, and which
    // jobs collide changes with the pool's size in bundles).
    let config = |bundle: u32| {
        let mut a = SimJob::new(1, 4, 32 * 8_192, 3);
        let mut b = SimJob::new(3, 8, 32 * 4_096 + 7, 4);
        for j in [&mut a, &mut b] {
            j.window = 256;
            j.compute_us = 300;
            j.compute_jitter_us = 40;
        }
        b.start_us = 150;
        SimConfig {
            seed: 9,
            pool: PoolConfig {
                slots: 4096,
                lanes: 32,
                stale_after_us: 100_000,
            },
            jobs: vec![a, b],
            link: link_100g(),
            ps_service_ns: 10,
            bundle,
            ..SimConfig::default()
        }
    };
    let exact = sim::run(&config(1));
    assert!(exact.violations().is_empty(), "{:?}", exact.violations());
    assert!(
        exact
            .jobs
            .iter()
            .all(|j| j.chunks_at_ps == 0 && j.resends == 0),
        "the packet-level run contends: {}",
        exact.table()
    );

    for bundle in [4, 16, 64] {
        let coarse = sim::run(&config(bundle));
        assert!(coarse.violations().is_empty(), "{:?}", coarse.violations());

        assert!(
            coarse.events * 2 < exact.events,
            "bundle {bundle} saves no events"
        );
        for (e, c) in exact.jobs.iter().zip(&coarse.jobs) {
            let (e_jct, c_jct) = (e.jct_us.unwrap() as f64, c.jct_us.unwrap() as f64);
            let error = (c_jct - e_jct).abs() / e_jct;
            assert!(
                error <= 0.02,
                "bundle {bundle}, job {}: JCT {c_jct} µs against {e_jct} µs at packet level ({:.1} %)",
                e.job,
                error * 100.0
            );
        }
    }
}

#[test]
fn host_only_jobs_sum_everything_at_the_ps_through_its_one_link() {
    let packets = 1_000;
    let mut config = lone_job(4, packets, 1);
    config.jobs[0].in_network = false;
    let report = sim::run(&config);
    assert!(report.violations().is_empty(), "{:?}", report.violations());
    let job = &report.jobs[0];
    assert!(job.verified);
    assert_eq!(
        (job.chunks_in_switch, job.chunks_at_ps),
        (0, packets as u64)
    );
    assert_eq!(job.switch.data_rx, 0, "the pool saw a host-only packet");
    // Four workers' packets share the PS's one downlink: four times the
    // wire time of the in-network run.
    let t = sim::packet_ns(32, 100.0);
    let jct_ns = job.jct_us.unwrap() as f64 * 1000.0 - 100_000.0;
    let want = 4.0 * packets as f64 * t + 4.0 * 1_000.0;
    assert!(
        (jct_ns - want).abs() / want < 0.05,
        "all-reduce {jct_ns} ns, want about {want} ns"
    );
}

#[test]
fn slot_time_is_held_under_atp_and_never_under_esa() {
    for mode in [Mode::Esa, Mode::Atp] {
        let mut config = lone_job(4, 2_000, 1);
        config.jobs[0].mode = mode;
        config.jobs[0].window = 64;
        config.jobs[0].compute_jitter_us = 50;
        config.jobs[0].iterations = 3;
        let report = sim::run(&config);
        assert!(report.violations().is_empty(), "{:?}", report.violations());
        let usage = report.slots;
        assert_eq!(usage.uses, 3 * 2_000, "{mode}: one claim per chunk");
        assert!(usage.aggregating_ns > 0);
        assert!(usage.utilization() > 0.0 && usage.utilization() < 1.0);
        match mode {
            Mode::Atp => assert!(
                usage.held_ns > 0,
                "atp holds slots until the PS releases them"
            ),
            _ => assert_eq!(usage.held_ns, 0, "{mode} frees a slot on completion"),
        }
    }
}

/// A job across three racks under one spine: with the second level the
/// root completes every chunk; without it the racks still aggregate and
/// the PS adds them (§9.6); without in-network aggregation every part
/// reaches the PS through both levels. Every result is exact and the
/// spine links carry what each level sends.
#[test]
fn a_job_across_racks_aggregates_at_each_level_it_is_given() {
    let run = |second_level: bool, in_network: bool| {
        let mut job = SimJob::new(1, 5, 32 * 64, 3);
        job.placement = vec![(0, 2), (2, 2), (1, 1)];
        job.window = 16;
        job.in_network = in_network;
        let config = SimConfig {
            pool: PoolConfig {
                slots: 64,
                lanes: 32,
                stale_after_us: 100_000,
            },
            jobs: vec![job],
            fabric: Some(sim::LeafSpine {
                racks: 3,
                spines: 2,
                uplink_gbps: None,
                second_level,
            }),
            ..SimConfig::default()
        };
        let report = sim::run(&config);
        assert!(report.violations().is_empty(), "{:?}", report.violations());
        assert!(report.jobs[0].verified);
        report
    };
    let both = run(true, true);
    let racks_only = run(false, true);
    let none = run(false, false);
    let (j2, j1, j0) = (&both.jobs[0], &racks_only.jobs[0], &none.jobs[0]);
    let chunks = j2.chunks_per_iteration * 3;
    assert_eq!(
        (j2.racks, j2.chunks_in_switch, j2.chunks_at_ps),
        (3, chunks, 0)
    );
    assert_eq!(
        j2.leaf_switches.completed,
        chunks * 3,
        "a partial per rack and chunk"
    );
    assert_eq!(
        j1.root_switch.fallbacks,
        chunks * 3,
        "each rack's partial to the PS"
    );
    assert_eq!((j1.chunks_in_switch, j1.chunks_at_ps), (0, chunks));
    assert_eq!(j1.rack_level_share(), 1.0);
    assert_eq!(
        j0.leaf_switches.fallbacks,
        chunks * 5,
        "every worker's DATA to the PS"
    );
    // Up the spine links: a partial per rack and chunk with both levels or
    // racks only, a packet per worker and chunk without aggregation; down:
    // one result per rack and chunk.
    let packet = esa_core::constants::esa_frame_len(32) as u64;
    assert_eq!(j2.switch.completed, chunks * 4);
    assert_eq!(both.uplink_bytes, chunks * 3 * packet);
    assert_eq!(racks_only.uplink_bytes, chunks * 3 * packet);
    assert_eq!(none.uplink_bytes, chunks * 5 * packet);
    assert_eq!(both.downlink_bytes, chunks * 3 * packet);
}
