//! End to end through the real data plane: three jobs (two esa with srpt
//! and las, one atp with fcfs) of workers and a PS each, on threads, every
//! host on its own in-memory port of esa-switch running
//! `p4/v1model/esa.p4`, programmed and admitted by esa-controller over
//! P4Runtime — as `esa run` wires them — with a seeded link between each
//! host and the switch that loses, duplicates and reorders frames.
//!
//! Gradients are integers, so every element of every result must equal the
//! exact sum; the test also checks that chunks were aggregated in the
//! switch and that the links really misbehaved.

use std::sync::Arc;
use std::time::{Duration, Instant};

use esa_core::faults::FaultConfig;
use esa_core::job::Mode;
use esa_core::policy::{DEFAULT_AGING_INTERVAL_US, Policy};
use esa_harness::jobs::{self, JobSpec, MakeTransport, Rto, Setup};
use esa_harness::{Cluster, PortLink, Ports};
use esa_host::addressing::{port_host, switch_addr};
use esa_host::transport::{FaultCounters, FaultyLink, SwitchPortTransport};

const LANES: usize = 16;
const POOL_SLOTS: u32 = 64;

type Host = SwitchPortTransport<FaultyLink<PortLink>>;

#[test]
fn mixed_jobs_through_esa_switch_on_lossy_links_sum_exactly() {
    let started = Instant::now();
    let faults = FaultConfig {
        seed: 0x05ee_de5a,
        loss: 0.02,
        duplicate: 0.02,
        max_delay: Duration::from_millis(2),
    };
    let jobs = [
        (
            Mode::Esa,
            Policy::Srpt {
                aging_interval_us: DEFAULT_AGING_INTERVAL_US,
            },
            3,
        ),
        (
            Mode::Esa,
            Policy::Las {
                aging_interval_us: DEFAULT_AGING_INTERVAL_US,
            },
            2,
        ),
        (Mode::Atp, Policy::Fcfs, 2),
    ];
    let hosts: u16 = jobs.iter().map(|(_, _, w)| u16::from(*w) + 1).sum();
    let mut harness = Cluster::start(Ports::memory(hosts), LANES, POOL_SLOTS);
    eprintln!("switch programmed in {:?}", started.elapsed());

    let counters = Arc::new(FaultCounters::default());
    let mut next: u16 = 1;
    let mut runs = Vec::new();
    for (j, (mode, policy, workers)) in jobs.iter().enumerate() {
        let spec = JobSpec {
            id: j as u16 + 1,
            mode: *mode,
            policy: *policy,
            workers: *workers,
            elements: 2000 + 37 * j,
            iterations: 3,
            window: 16,
            seed: 7 + j as u64,
            ..JobSpec::new(0, 0, 0, 0)
        };
        let worker_ports: Vec<u16> = (next..next + u16::from(*workers)).collect();
        let ps_port = next + u16::from(*workers);
        next = ps_port + 1;
        let job = harness.admit(spec.id, *mode, 15, &worker_ports, ps_port);
        let mut link = |n: u16| -> MakeTransport<Host> {
            let l = FaultyLink::new(
                harness.take_port(n),
                faults,
                u64::from(n),
                Arc::clone(&counters),
            );
            Box::new(move || SwitchPortTransport::new(l, port_host(n), LANES))
        };
        let worker_links: Vec<_> = worker_ports.iter().map(|n| link(*n)).collect();
        let ps_link = link(ps_port);
        let setup = Setup {
            switch: switch_addr(),
            lanes: LANES,
            slot_mask: job.slot_mask,
            rto: Rto::SOFTWARE_SWITCH,
        };
        runs.push((spec, setup, worker_links, ps_link));
    }

    let outcomes = jobs::run_jobs(runs);

    let (lost, duplicated, reordered, delivered) = counters.snapshot();
    eprintln!(
        "links: {delivered} frames delivered, {lost} lost, {duplicated} duplicated, {reordered} reordered"
    );
    for (spec, o) in &outcomes {
        let completed = harness.counter(spec.id, "completed");
        eprintln!(
            "job {} ({:?}, {:?}, {} workers): {:?}, workers {:?}, {} elements checked, \
             {} resends, results {} from switch / {} from PS, {} invalid packets, {} duplicate results, {} chunks at PS, \
             switch counters {:?}",
            spec.id,
            spec.mode,
            spec.policy,
            spec.workers,
            o.elapsed,
            o.workers,
            o.checked_elements,
            o.resends,
            o.results_from_switch,
            o.results_from_ps,
            o.invalid_packets,
            o.duplicate_results,
            o.chunks_at_ps(),
            harness.counters(spec.id),
        );
        o.assert_exact(spec);
        assert!(
            completed > 0,
            "job {}: no chunk was aggregated in the switch",
            spec.id
        );
    }
    for (spec, _) in &outcomes {
        harness.release(spec.id);
    }
    assert!(lost > 0, "the links lost nothing: the test proves nothing");
    assert!(duplicated > 0, "the links duplicated nothing");
    assert!(reordered > 0, "the links reordered nothing");
    let resends: u64 = outcomes.iter().map(|(_, o)| o.resends).sum();
    assert!(resends > 0, "losses must cause resends");
    eprintln!("total {:?}", started.elapsed());
}
