//! Kernel UDP (`sendmmsg`/`recvmmsg`) against `AF_XDP`, side by side, on
//! veth pairs in private namespaces. Root only (skipped with a note
//! otherwise); pin it to one core so "per core" means what it says:
//!
//! ```text
//! taskset -c 1 cargo bench -p esa-host --bench transports
//! ```
//!
//! - `stream`: one host sends DATA payloads of 64 lanes as fast as its
//!   transport takes them, for a second, to another host across a veth
//!   pair (each end in a namespace of its own, `esax-<pid>-a`/`-b`); the
//!   other receives. Both threads, and the kernel's work for both (veth
//!   delivers on the sending core), share the one core, so packets
//!   delivered per second is packets per core for a host that sends one
//!   and receives one per packet, as a worker does (DATA out, RESULT in).
//!   Gradient goodput counts the lanes' bytes delivered.
//! - `allreduce`: one ESA job, two workers and a PS in namespaces, through
//!   esa-switch bridging their veths (as `esa run --fabric netns`), with
//!   each transport.
//!
//! Medians of [`ROUNDS`] rounds, the ratio AF_XDP / kernel UDP, and the
//! cores a worker needs at 100 Gbit/s line rate from the per-core rate.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use esa_core::constants::{ESA_UDP_PORT, esa_frame_len};
use esa_core::job::Mode;
use esa_core::policy::Policy;
use esa_core::wire::{EsaRepr, Flags, Key, MacAddr, PacketType};
use esa_harness::jobs::{self, JobSpec, Rto, Setup};
use esa_harness::{Cluster, Ports};
use esa_host::addressing::{SWITCH_MAC, port_host, switch_addr};
use esa_host::transport::{
    HostAddress, HostTransport, Transport, TransportChoice, XdpPlace, open_host_transport,
};
use esa_netns::{NamespaceHost, Namespaces, SwitchAddress, TempNamespace};

/// Rounds of each measurement; medians are printed.
const ROUNDS: usize = 5;
/// How long each stream round sends.
const STREAM: Duration = Duration::from_secs(1);
/// Lanes per packet in the stream (the most a packet carries).
const STREAM_LANES: usize = 64;
/// Payloads handed to the transport per call.
const BATCH: usize = 256;
/// Lanes, pool and gradient of the all-reduce.
const JOB_LANES: usize = 64;
const POOL_SLOTS: u32 = 256;
const ELEMENTS: usize = 1 << 18;
const ITERATIONS: u32 = 3;
/// 100 Gbit/s, and what a frame costs on the wire beyond its bytes
/// (preamble, start delimiter, inter-frame gap) plus the FCS.
const LINE_RATE_BITS: f64 = 100e9;
const WIRE_OVERHEAD: usize = 20 + 4;

const CHOICES: [TransportChoice; 2] = [TransportChoice::Udp, TransportChoice::Xdp];

fn main() {
    if !esa_netns::is_root() {
        eprintln!("note: the transports bench needs root (namespaces, veths, AF_XDP); skipped");
        return;
    }
    let cpus = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("Cpus_allowed_list:")
                    .map(|v| v.trim().to_string())
            })
        })
        .unwrap_or_default();
    println!("cpus allowed: {cpus}; load before: {}", load_average());
    let pair = StreamPair::create();
    let mut streams: [Vec<Stream>; 2] = Default::default();
    for _ in 0..ROUNDS {
        for (i, choice) in CHOICES.iter().enumerate() {
            streams[i].push(pair.stream(*choice));
        }
    }
    drop(pair);
    let mut allreduces: [Vec<Duration>; 2] = Default::default();
    for _ in 0..ROUNDS.min(3) {
        for (i, choice) in CHOICES.iter().enumerate() {
            allreduces[i].push(allreduce(*choice));
        }
    }
    println!("load after: {}", load_average());
    report(&mut streams, &mut allreduces);
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// One stream round's outcome.
#[derive(Debug, Clone, Copy)]
struct Stream {
    sent: u64,
    delivered: u64,
    elapsed: Duration,
}

impl Stream {
    fn packets_per_second(&self) -> f64 {
        self.delivered as f64 / self.elapsed.as_secs_f64()
    }
}

/// Two namespaces joined by a veth pair: `a` (10.77.0.1) and `b`
/// (10.77.0.2), each knowing the other's MAC.
struct StreamPair {
    namespaces: [TempNamespace; 2],
    macs: [MacAddr; 2],
}

const STREAM_IPS: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 77, 0, 1), Ipv4Addr::new(10, 77, 0, 2)];
const STREAM_MACS: [[u8; 6]; 2] = [[2, 0x77, 0, 0, 0, 1], [2, 0x77, 0, 0, 0, 2]];

impl StreamPair {
    fn create() -> StreamPair {
        let pid = std::process::id();
        let make = |side: &str| {
            TempNamespace::create(&format!("esax-{pid}-{side}")).unwrap_or_else(|e| panic!("{e}"))
        };
        let namespaces = [make("a"), make("b")];
        let [a, b] = &namespaces;
        let step = |ns: &TempNamespace, args: &[&str]| {
            ns.run(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        };
        step(
            a,
            &[
                "ip", "link", "add", "esax0", "type", "veth", "peer", "name", "esax1",
            ],
        );
        step(a, &["ip", "link", "set", "esax1", "netns", b.name()]);
        for (i, (ns, name)) in [(a, "esax0"), (b, "esax1")].into_iter().enumerate() {
            let mac = esa_netns::mac_text(STREAM_MACS[i]);
            step(ns, &["ip", "link", "set", name, "address", &mac]);
            step(
                ns,
                &[
                    "ip",
                    "addr",
                    "add",
                    &format!("{}/24", STREAM_IPS[i]),
                    "dev",
                    name,
                ],
            );
            step(ns, &["ip", "link", "set", name, "up"]);
            let peer_mac = esa_netns::mac_text(STREAM_MACS[1 - i]);
            let peer_ip = STREAM_IPS[1 - i].to_string();
            step(
                ns,
                &[
                    "ip",
                    "neigh",
                    "replace",
                    &peer_ip,
                    "lladdr",
                    &peer_mac,
                    "dev",
                    name,
                    "nud",
                    "permanent",
                ],
            );
        }
        StreamPair {
            namespaces,
            macs: STREAM_MACS.map(MacAddr),
        }
    }

    /// Side `i`'s transport, made in its namespace.
    fn open(&self, i: usize, choice: TransportChoice) -> HostTransport {
        esa_netns::enter(self.namespaces[i].name()).unwrap_or_else(|e| panic!("{e}"));
        let place = XdpPlace {
            interface: format!("esax{i}"),
            queue: 0,
            address: HostAddress {
                mac: self.macs[i],
                ip: STREAM_IPS[i].into(),
                gateway_mac: self.macs[1 - i],
            },
            lanes: STREAM_LANES,
        };
        let bind = SocketAddrV4::new(STREAM_IPS[i], ESA_UDP_PORT);
        open_host_transport(choice, bind, &place).unwrap_or_else(|e| panic!("{e}"))
    }

    /// One round: `a` sends to `b` for [`STREAM`].
    fn stream(&self, choice: TransportChoice) -> Stream {
        let payload = EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::NONE,
            slot: 0,
            key: Key::new(0, 1, 0),
            bitmap: 1,
            fan_in: 2,
            count: 1,
            exponent: 16,
            worker: 0,
        }
        .to_payload(&[7; STREAM_LANES], STREAM_LANES);
        let payloads = payload.repeat(BATCH);
        let peer = SocketAddr::V4(SocketAddrV4::new(STREAM_IPS[1], ESA_UDP_PORT));
        let ready = Barrier::new(2);
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            let receiver = s.spawn(|| {
                let mut t = self.open(1, choice);
                ready.wait();
                let mut out = Vec::with_capacity(BATCH);
                let mut delivered = 0u64;
                let mut idle_since: Option<Instant> = None;
                loop {
                    out.clear();
                    let n = t.recv_batch(&mut out, BATCH).unwrap();
                    delivered += n as u64;
                    if n > 0 {
                        idle_since = None;
                        continue;
                    }
                    if done.load(Ordering::Acquire)
                        && idle_since.get_or_insert_with(Instant::now).elapsed()
                            > Duration::from_millis(100)
                    {
                        break;
                    }
                    t.wait(Duration::from_millis(10)).unwrap();
                }
                delivered
            });
            // Its own thread too: entering a namespace is for good.
            let sender = s.spawn(|| {
                let mut t = self.open(0, choice);
                ready.wait();
                let started = Instant::now();
                while started.elapsed() < STREAM {
                    t.send_packed(peer, &payloads, payload.len()).unwrap();
                }
                let elapsed = started.elapsed();
                done.store(true, Ordering::Release);
                (t.stats().sent, elapsed)
            });
            let (sent, elapsed) = sender.join().unwrap();
            let delivered = receiver.join().unwrap();
            Stream {
                sent,
                delivered,
                elapsed,
            }
        })
    }
}

/// One ESA job of two workers and a PS through esa-switch on veths, with
/// `choice`; how long its all-reduces took.
fn allreduce(choice: TransportChoice) -> Duration {
    let SocketAddr::V4(switch) = switch_addr() else {
        unreachable!()
    };
    let wanted: Vec<NamespaceHost> = (1..=3)
        .map(|n| NamespaceHost {
            port: n,
            mac: port_host(n).mac.0,
            ip: Some(Ipv4Addr::from(port_host(n).ip)),
            loss: 0.0,
        })
        .collect();
    let switch_address = SwitchAddress {
        ip: *switch.ip(),
        mac: SWITCH_MAC.0,
    };
    let topo = Namespaces::create(&wanted, Some(switch_address)).unwrap_or_else(|e| panic!("{e}"));
    let harness = Cluster::start(Ports::Interfaces(topo.interfaces()), JOB_LANES, POOL_SLOTS);
    let spec = JobSpec {
        id: 1,
        mode: Mode::Esa,
        policy: Policy::Fcfs,
        workers: 2,
        elements: ELEMENTS,
        iterations: ITERATIONS,
        window: 64,
        ..JobSpec::new(0, 0, 0, 0)
    };
    let job = harness.admit(1, Mode::Esa, 15, &[1, 2], 3);
    let host = |n: u16| -> jobs::MakeTransport<HostTransport> {
        let ns = topo.namespace(n).unwrap().to_string();
        Box::new(move || {
            esa_netns::enter(&ns).unwrap_or_else(|e| panic!("{e}"));
            let place = XdpPlace {
                interface: "eth0".to_string(),
                queue: 0,
                address: port_host(n),
                lanes: JOB_LANES,
            };
            let bind = SocketAddrV4::new(Ipv4Addr::from(port_host(n).ip), ESA_UDP_PORT);
            open_host_transport(choice, bind, &place).unwrap_or_else(|e| panic!("{e}"))
        })
    };
    let setup = Setup {
        switch: switch_addr(),
        lanes: JOB_LANES,
        slot_mask: job.slot_mask,
        rto: Rto::SOFTWARE_SWITCH,
    };
    let outcomes = jobs::run_jobs(vec![(spec, setup, vec![host(1), host(2)], host(3))]);
    let (spec, outcome) = &outcomes[0];
    assert!(outcome.errors().is_empty(), "{:?}", outcome.errors());
    outcome.assert_exact(spec);
    drop(harness);
    drop(topo);
    outcome.elapsed
}

fn median_by<T: Copy>(samples: &mut [T], key: impl Fn(&T) -> f64) -> T {
    samples.sort_by(|a, b| key(a).total_cmp(&key(b)));
    samples[samples.len() / 2]
}

fn report(streams: &mut [Vec<Stream>; 2], allreduces: &mut [Vec<Duration>; 2]) {
    let lane_bytes = (STREAM_LANES * 4) as f64;
    let wire_bits = ((esa_frame_len(STREAM_LANES) + WIRE_OVERHEAD) * 8) as f64;
    let line_rate_pps = LINE_RATE_BITS / wire_bits;
    println!(
        "\nstream, {STREAM_LANES} lanes, one core for both hosts and the kernel; medians of {ROUNDS}:"
    );
    println!(
        "{:<10} {:>14} {:>12} {:>10} {:>20} {:>16}",
        "transport", "packets/s/core", "sent/s", "delivered", "goodput Gbit/s/core", "cores @100G"
    );
    let mut per_core = [0.0; 2];
    for (i, choice) in CHOICES.iter().enumerate() {
        let m = median_by(&mut streams[i], Stream::packets_per_second);
        let pps = m.packets_per_second();
        per_core[i] = pps;
        println!(
            "{:<10} {:>14.0} {:>12.0} {:>9.1}% {:>20.2} {:>16.1}",
            format!("{choice:?}"),
            pps,
            m.sent as f64 / m.elapsed.as_secs_f64(),
            100.0 * m.delivered as f64 / m.sent.max(1) as f64,
            pps * lane_bytes * 8.0 / 1e9,
            line_rate_pps / pps,
        );
    }
    println!(
        "AF_XDP / kernel UDP, packets per core: {:.2}x (100 Gbit/s of {STREAM_LANES}-lane frames is {:.1} Mpps)",
        per_core[1] / per_core[0],
        line_rate_pps / 1e6
    );
    let gradient_bits = (ELEMENTS * 4 * ITERATIONS as usize * 8) as f64;
    println!(
        "\nall-reduce through esa-switch on veths, 2 workers, {ELEMENTS} floats x {ITERATIONS}:"
    );
    let mut goodput = [0.0; 2];
    for (i, choice) in CHOICES.iter().enumerate() {
        let m = median_by(&mut allreduces[i], Duration::as_secs_f64);
        goodput[i] = gradient_bits / m.as_secs_f64() / 1e9;
        println!(
            "{:<10} {:>10.1} ms  {:>8.3} Gbit/s per worker",
            format!("{choice:?}"),
            m.as_secs_f64() * 1e3,
            goodput[i]
        );
    }
    println!(
        "AF_XDP / kernel UDP, all-reduce goodput: {:.2}x",
        goodput[1] / goodput[0]
    );
}
