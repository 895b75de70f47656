//! Workers and parameter servers in their own network namespaces, on
//! kernel UDP sockets, through esa-switch bridging veth pairs with its
//! AF_PACKET ports, programmed by esa-controller; loss on every host's
//! link (an nftables rule dropping a share of ESA datagrams each way).
//! Needs root; opt-in with `ESA_NETNS_TESTS=1`, otherwise skipped with a
//! note.
//!
//! Topology (`esa-netns`): a namespace per host `n` holding `eth0` (MAC and
//! IPv4 of host `n`, a static neighbour entry for the switch's address),
//! paired with a veth end in the root namespace, the switch's port `n`.
//! Each host's thread enters its namespace (`setns`) before binding its
//! socket.

use std::net::{SocketAddr, SocketAddrV4};
use std::time::Instant;

use esa_core::constants::ESA_UDP_PORT;
use esa_core::job::Mode;
use esa_core::policy::{DEFAULT_AGING_INTERVAL_US, Policy};
use esa_harness::jobs::{self, JobSpec, MakeTransport, Rto, Setup};
use esa_harness::{Cluster, Ports};
use esa_host::addressing::{SWITCH_MAC, port_host as host_address, switch_addr};
use esa_host::transport::UdpTransport;
use esa_netns::{NamespaceHost, Namespaces, SwitchAddress};

const LANES: usize = 16;
const POOL_SLOTS: u32 = 64;
/// Share of ESA datagrams each host's link drops, each way.
const LOSS: f64 = 0.02;

/// A namespace per host, `hosts` of them, on ports 1, 2, ...
fn topology(hosts: u16) -> Namespaces {
    let switch_ip = match switch_addr() {
        SocketAddr::V4(a) => *a.ip(),
        SocketAddr::V6(_) => unreachable!(),
    };
    let wanted: Vec<NamespaceHost> = (1..=hosts)
        .map(|n| NamespaceHost {
            port: n,
            mac: host_address(n).mac.0,
            ip: Some(std::net::Ipv4Addr::from(host_address(n).ip)),
            loss: LOSS,
        })
        .collect();
    let switch = SwitchAddress {
        ip: switch_ip,
        mac: SWITCH_MAC.0,
    };
    Namespaces::create(&wanted, Some(switch)).unwrap_or_else(|e| panic!("{e}"))
}

/// A UDP transport for host `n`, made inside its namespace.
fn udp_host(ns: String, n: u16) -> MakeTransport<UdpTransport> {
    Box::new(move || {
        esa_netns::enter(&ns).unwrap_or_else(|e| panic!("entering {ns}: {e}"));
        let ip = std::net::Ipv4Addr::from(host_address(n).ip);
        UdpTransport::bind(SocketAddr::V4(SocketAddrV4::new(ip, ESA_UDP_PORT)))
            .unwrap_or_else(|e| panic!("binding in {ns}: {e}"))
    })
}

#[test]
fn jobs_in_namespaces_through_esa_switch_on_af_packet_ports_sum_exactly() {
    if !esa_netns::tests_enabled("jobs_in_namespaces_through_esa_switch...") {
        return;
    }
    let started = Instant::now();
    let jobs = [
        (
            Mode::Esa,
            Policy::Srpt {
                aging_interval_us: DEFAULT_AGING_INTERVAL_US,
            },
            2u8,
        ),
        (Mode::Atp, Policy::Fcfs, 2u8),
    ];
    // Gradient size per job; `ESA_NETNS_ELEMENTS` overrides it for bisecting.
    let elements: usize = std::env::var("ESA_NETNS_ELEMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let hosts: u16 = jobs.iter().map(|(_, _, w)| u16::from(*w) + 1).sum();
    let topo = topology(hosts);
    eprintln!(
        "loss: {}% of ESA datagrams each way on every host's link",
        LOSS * 100.0
    );
    let harness = Cluster::start(Ports::Interfaces(topo.interfaces()), LANES, POOL_SLOTS);
    let mut next: u16 = 1;
    let mut runs = Vec::new();
    for (j, (mode, policy, workers)) in jobs.iter().enumerate() {
        let spec = JobSpec {
            id: j as u16 + 1,
            mode: *mode,
            policy: *policy,
            workers: *workers,
            elements: elements + 37 * j,
            iterations: 3,
            window: 16,
            seed: 11 + j as u64,
            ..JobSpec::new(0, 0, 0, 0)
        };
        let worker_hosts: Vec<u16> = (next..next + u16::from(*workers)).collect();
        let ps_host = next + u16::from(*workers);
        next = ps_host + 1;
        let job = harness.admit(spec.id, *mode, 15, &worker_hosts, ps_host);
        let ns = |n: u16| topo.namespace(n).unwrap().to_string();
        let workers: Vec<_> = worker_hosts.iter().map(|n| udp_host(ns(*n), *n)).collect();
        let setup = Setup {
            switch: switch_addr(),
            lanes: LANES,
            slot_mask: job.slot_mask,
            rto: Rto::SOFTWARE_SWITCH,
        };
        runs.push((spec, setup, workers, udp_host(ns(ps_host), ps_host)));
    }
    let outcomes = jobs::run_jobs(runs);
    let dropped: u64 = (1..=hosts).map(|n| topo.frames_lost(n)).sum();
    eprintln!("loss rules dropped {dropped} packets");
    eprintln!("switch ports: {:?}", harness.switch().all_port_stats());
    for (spec, o) in &outcomes {
        eprintln!(
            "job {} ({:?}, {:?}): {:?}, workers {:?}, {} checked, {} resends, \
             results {} from switch / {} from PS, {} invalid packets, {} duplicate results, switch counters {:?}",
            spec.id,
            spec.mode,
            spec.policy,
            o.elapsed,
            o.workers,
            o.checked_elements,
            o.resends,
            o.results_from_switch,
            o.results_from_ps,
            o.invalid_packets,
            o.duplicate_results,
            harness.counters(spec.id),
        );
    }
    for (spec, o) in &outcomes {
        assert!(
            o.errors().is_empty(),
            "job {}: {:?}\n(if an esa job stalls, check that results leave the switch with \
             the switch's source address: a worker's kernel drops a RESULT carrying its own \
             address as a martian, docs/protocol.md 3.1)",
            spec.id,
            o.errors()
        );
        o.assert_exact(spec);
        assert!(
            harness.counter(spec.id, "completed") > 0,
            "job {}: nothing aggregated in the switch",
            spec.id
        );
    }
    assert!(
        dropped > 0,
        "the loss rules dropped nothing: the test proves nothing"
    );
    drop(harness);
    drop(topo);
    eprintln!("total {:?}", started.elapsed());
}
