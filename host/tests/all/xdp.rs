//! Workers and parameter servers on `AF_XDP` sockets in their own network
//! namespaces, through esa-switch bridging veth pairs (the topology of
//! [`super::netns`]), and the fallback to kernel UDP where `AF_XDP`
//! cannot be set up. Needs root; opt-in with `ESA_NETNS_TESTS=1`.
//!
//! No loss here: the namespaces' nftables loss rules never see frames an
//! XDP program redirects or an `AF_XDP` socket sends.

use std::net::{SocketAddr, SocketAddrV4};

use esa_core::constants::ESA_UDP_PORT;
use esa_core::job::Mode;
use esa_core::policy::{DEFAULT_AGING_INTERVAL_US, Policy};
use esa_harness::jobs::{self, JobSpec, MakeTransport, Rto, Setup};
use esa_harness::{Cluster, Ports};
use esa_host::addressing::{SWITCH_MAC, port_host as host_address, switch_addr};
use esa_host::transport::{
    HostTransport, TransportChoice, XdpPlace, open_host_transport, xdp_fallbacks,
};
use esa_netns::{NamespaceHost, Namespaces, SwitchAddress, TempNamespace, VethPair};

const LANES: usize = 16;
const POOL_SLOTS: u32 = 64;

/// A namespace per host, `hosts` of them, on ports 1, 2, ..., lossless.
fn topology(hosts: u16) -> Namespaces {
    let SocketAddr::V4(switch) = switch_addr() else {
        unreachable!()
    };
    let wanted: Vec<NamespaceHost> = (1..=hosts)
        .map(|n| NamespaceHost {
            port: n,
            mac: host_address(n).mac.0,
            ip: Some(std::net::Ipv4Addr::from(host_address(n).ip)),
            loss: 0.0,
        })
        .collect();
    let switch = SwitchAddress {
        ip: *switch.ip(),
        mac: SWITCH_MAC.0,
    };
    Namespaces::create(&wanted, Some(switch)).unwrap_or_else(|e| panic!("{e}"))
}

/// Host `n`'s transport as `choice` says, made inside its namespace on
/// its `eth0`.
fn host(ns: String, n: u16, choice: TransportChoice) -> MakeTransport<HostTransport> {
    Box::new(move || {
        esa_netns::enter(&ns).unwrap_or_else(|e| panic!("entering {ns}: {e}"));
        let ip = std::net::Ipv4Addr::from(host_address(n).ip);
        let place = XdpPlace {
            interface: "eth0".to_string(),
            queue: 0,
            address: host_address(n),
            lanes: LANES,
        };
        let bind = SocketAddrV4::new(ip, ESA_UDP_PORT);
        open_host_transport(choice, bind, &place).unwrap_or_else(|e| panic!("host {n}: {e}"))
    })
}

#[test]
fn jobs_on_af_xdp_through_esa_switch_sum_exactly() {
    if !esa_netns::tests_enabled("jobs_on_af_xdp_through_esa_switch_sum_exactly") {
        return;
    }
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
    let hosts: u16 = jobs.iter().map(|(_, _, w)| u16::from(*w) + 1).sum();
    let topo = topology(hosts);
    let harness = Cluster::start(Ports::Interfaces(topo.interfaces()), LANES, POOL_SLOTS);
    let mut next: u16 = 1;
    let mut runs = Vec::new();
    for (j, (mode, policy, workers)) in jobs.iter().enumerate() {
        let spec = JobSpec {
            id: j as u16 + 1,
            mode: *mode,
            policy: *policy,
            workers: *workers,
            elements: 3000 + 37 * j,
            iterations: 3,
            window: 16,
            seed: 21 + j as u64,
            ..JobSpec::new(0, 0, 0, 0)
        };
        let worker_hosts: Vec<u16> = (next..next + u16::from(*workers)).collect();
        let ps_host = next + u16::from(*workers);
        next = ps_host + 1;
        let job = harness.admit(spec.id, *mode, 15, &worker_hosts, ps_host);
        let ns = |n: u16| topo.namespace(n).unwrap().to_string();
        let workers: Vec<_> = worker_hosts
            .iter()
            .map(|n| host(ns(*n), *n, TransportChoice::Xdp))
            .collect();
        let setup = Setup {
            switch: switch_addr(),
            lanes: LANES,
            slot_mask: job.slot_mask,
            rto: Rto::SOFTWARE_SWITCH,
        };
        let ps = host(ns(ps_host), ps_host, TransportChoice::Xdp);
        runs.push((spec, setup, workers, ps));
    }
    let outcomes = jobs::run_jobs(runs);
    eprintln!("switch ports: {:?}", harness.switch().all_port_stats());
    for (spec, o) in &outcomes {
        eprintln!(
            "job {} ({:?}): {:?}, {} checked, {} resends, results {} from switch / {} from PS",
            spec.id,
            spec.mode,
            o.elapsed,
            o.checked_elements,
            o.resends,
            o.results_from_switch,
            o.results_from_ps,
        );
        assert!(o.errors().is_empty(), "job {}: {:?}", spec.id, o.errors());
        o.assert_exact(spec);
        assert!(
            harness.counter(spec.id, "completed") > 0,
            "job {}: nothing aggregated in the switch",
            spec.id
        );
    }
    drop(harness);
    drop(topo);
}

/// `auto` on an interface that exists but where the host may not attach
/// XDP (a thread without `CAP_NET_ADMIN`/`CAP_BPF` after dropping them is
/// awkward to arrange; an interface already holding another program in
/// driver mode with generic mode refused is driver-specific), so: an
/// absent interface inside a real namespace, and a veth whose socket
/// cannot bind a queue that does not exist. Both fall back to kernel UDP,
/// say why, and are counted.
#[test]
fn auto_falls_back_to_kernel_udp_where_af_xdp_cannot_be_set_up() {
    if !esa_netns::tests_enabled("auto_falls_back_to_kernel_udp_where_af_xdp_cannot_be_set_up") {
        return;
    }
    let namespace = TempNamespace::create(&format!("esax-fb{}", std::process::id()))
        .unwrap_or_else(|e| panic!("{e}"));
    let pair =
        VethPair::create_in(&namespace, "esaxfb0", "esaxfb1").unwrap_or_else(|e| panic!("{e}"));
    let ns = namespace.name().to_string();
    let before = xdp_fallbacks();
    let reasons = std::thread::spawn(move || {
        esa_netns::enter(&ns).unwrap_or_else(|e| panic!("entering {ns}: {e}"));
        let bind = SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 0);
        let place = |interface: &str, queue| XdpPlace {
            interface: interface.to_string(),
            queue,
            address: host_address(1),
            lanes: LANES,
        };
        let absent = open_host_transport(TransportChoice::Auto, bind, &place("esax-none", 0))
            .unwrap_or_else(|e| panic!("{e}"));
        // veth has one queue unless asked for more.
        let no_queue = open_host_transport(TransportChoice::Auto, bind, &place("esaxfb0", 9))
            .unwrap_or_else(|e| panic!("{e}"));
        let strict = open_host_transport(TransportChoice::Xdp, bind, &place("esaxfb0", 9));
        assert!(strict.is_err(), "xdp on a missing queue was accepted");
        [absent, no_queue].map(|t| {
            assert_eq!(t.kind(), "udp");
            t.fallback_reason().unwrap().to_string()
        })
    })
    .join()
    .unwrap();
    eprintln!("fallback reasons: {reasons:?}");
    assert!(reasons[0].contains("esax-none"), "{}", reasons[0]);
    assert!(reasons[1].contains("esaxfb0"), "{}", reasons[1]);
    assert_eq!(xdp_fallbacks() - before, 2);
    drop(pair);
    drop(namespace);
}
