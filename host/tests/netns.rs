//! Workers and parameter servers in their own network namespaces, on
//! kernel UDP sockets, through esa-switch bridging veth pairs with its
//! AF_PACKET ports, programmed by esa-controller; loss on every host's
//! link (netem if the kernel has it, else an nftables rule). Needs root;
//! opt-in with `ESA_NETNS_TESTS=1`, otherwise skipped with a note.
//!
//! Topology: namespace `esa<pid>h<n>` holds `eth0` (MAC and IPv4 of host
//! `n`, a static neighbour entry for the switch's address), paired with
//! `esw<pid>p<n>` in the root namespace, the switch's port `n`. Each host's
//! thread enters its namespace (`setns`) before binding its socket.

#![cfg(target_os = "linux")]
// `setns` has no safe wrapper in libc.
#![allow(unsafe_code)]

mod switch;

use std::fs::File;
use std::net::{SocketAddr, SocketAddrV4};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::time::Instant;

use esa_core::constants::ESA_UDP_PORT;
use esa_core::policy::{DEFAULT_AGING_INTERVAL_US, Policy};
use esa_core::pool::Mode;
use esa_host::transport::UdpTransport;
use switch::{JobSpec, MakeTransport, Ports, SWITCH_MAC, SwitchHarness, host_address};

const LANES: usize = 16;
const POOL_SLOTS: u32 = 64;
/// Percent of ESA packets each host's link drops on the way out.
const LOSS_PERCENT: u32 = 2;

fn enabled() -> bool {
    if std::env::var("ESA_NETNS_TESTS").as_deref() == Ok("1") {
        return true;
    }
    eprintln!("note: namespace test skipped (needs root; set ESA_NETNS_TESTS=1 to run it)");
    false
}

fn run(args: &[&str]) -> Result<String, String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args.join(" ")))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn mac_text(mac: [u8; 6]) -> String {
    mac.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// How loss is injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LossMethod {
    Netem,
    Nftables,
}

/// Namespaces and veth pairs, removed on drop (even when the test fails).
#[derive(Debug, Default)]
struct Topology {
    namespaces: Vec<String>,
    /// Root-side veth names, port 1 first.
    root_ifs: Vec<String>,
    loss: Option<LossMethod>,
}

impl Topology {
    fn create(hosts: u16) -> Result<Topology, String> {
        let pid = std::process::id();
        let mut t = Topology::default();
        let switch_ip = match switch::switch_addr() {
            SocketAddr::V4(a) => a.ip().to_string(),
            SocketAddr::V6(_) => unreachable!(),
        };
        for n in 1..=hosts {
            let a = host_address(n);
            let ns = format!("esa{pid}h{n}");
            let root_if = format!("esw{pid}p{n}");
            let peer = format!("esw{pid}n{n}");
            run(&["ip", "netns", "add", &ns])?;
            t.namespaces.push(ns.clone());
            run(&[
                "ip", "link", "add", &root_if, "type", "veth", "peer", "name", &peer,
            ])?;
            t.root_ifs.push(root_if.clone());
            run(&["ip", "link", "set", &peer, "netns", &ns])?;
            let ip = std::net::Ipv4Addr::from(a.ip);
            let in_ns = |args: &[&str]| -> Result<String, String> {
                let mut all = vec!["ip", "netns", "exec", &ns];
                all.extend_from_slice(args);
                run(&all)
            };
            // Quiet links: no IPv6 chatter through the switch.
            let _ = in_ns(&["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"]);
            let _ = run(&[
                "sysctl",
                "-q",
                "-w",
                &format!("net.ipv6.conf.{root_if}.disable_ipv6=1"),
            ]);
            run(&["ip", "-n", &ns, "link", "set", &peer, "name", "eth0"])?;
            run(&[
                "ip",
                "-n",
                &ns,
                "link",
                "set",
                "eth0",
                "address",
                &mac_text(a.mac.0),
            ])?;
            run(&[
                "ip",
                "-n",
                &ns,
                "addr",
                "add",
                &format!("{ip}/8"),
                "dev",
                "eth0",
            ])?;
            run(&["ip", "-n", &ns, "link", "set", "eth0", "up"])?;
            run(&["ip", "-n", &ns, "link", "set", "lo", "up"])?;
            // Nobody answers ARP for the switch's address.
            run(&[
                "ip",
                "-n",
                &ns,
                "neigh",
                "replace",
                &switch_ip,
                "lladdr",
                &mac_text(SWITCH_MAC.0),
                "dev",
                "eth0",
                "nud",
                "permanent",
            ])?;
            run(&["ip", "link", "set", &root_if, "up"])?;
            t.loss = Some(add_loss(&ns)?);
        }
        Ok(t)
    }

    /// Packets the loss rules dropped, over every namespace.
    fn dropped(&self) -> u64 {
        self.namespaces
            .iter()
            .map(|ns| {
                let text = match self.loss {
                    Some(LossMethod::Netem) => run(&[
                        "ip", "netns", "exec", ns, "tc", "-s", "qdisc", "show", "dev", "eth0",
                    ]),
                    Some(LossMethod::Nftables) => run(&[
                        "ip", "netns", "exec", ns, "nft", "list", "chain", "inet", "esa", "out",
                    ]),
                    None => Ok(String::new()),
                }
                .unwrap_or_default();
                let key = match self.loss {
                    Some(LossMethod::Netem) => "dropped",
                    _ => "packets",
                };
                number_after(&text, key)
            })
            .sum()
    }
}

/// The number after the first `key` in `text` (`dropped 12,` or
/// `packets 12 bytes`).
fn number_after(text: &str, key: &str) -> u64 {
    text.split_whitespace()
        .skip_while(|w| *w != key)
        .nth(1)
        .map(|w| w.trim_end_matches(','))
        .and_then(|w| w.parse().ok())
        .unwrap_or(0)
}

/// Loss on `eth0` of `ns` on the way out: netem if the kernel has it, else
/// an nftables rule that drops a random share of ESA packets.
fn add_loss(ns: &str) -> Result<LossMethod, String> {
    let loss = format!("{LOSS_PERCENT}%");
    let netem = run(&[
        "ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "loss",
        &loss,
    ]);
    if netem.is_ok() {
        return Ok(LossMethod::Netem);
    }
    let rules = format!(
        "add table inet esa\n\
         add chain inet esa out {{ type filter hook output priority 0; }}\n\
         add rule inet esa out udp dport {ESA_UDP_PORT} numgen random mod 100 < {LOSS_PERCENT} counter drop\n"
    );
    let path = std::env::temp_dir().join(format!("{ns}.nft"));
    std::fs::write(&path, rules).map_err(|e| e.to_string())?;
    let nft = run(&[
        "ip",
        "netns",
        "exec",
        ns,
        "nft",
        "-f",
        &path.to_string_lossy(),
    ]);
    let _ = std::fs::remove_file(&path);
    nft.map_err(|e| format!("no netem ({}) and {e}", netem.unwrap_err()))?;
    Ok(LossMethod::Nftables)
}

impl Drop for Topology {
    fn drop(&mut self) {
        for i in &self.root_ifs {
            let _ = run(&["ip", "link", "del", i]);
        }
        for ns in &self.namespaces {
            let _ = run(&["ip", "netns", "del", ns]);
        }
    }
}

/// Moves the calling thread into namespace `name`.
fn enter_namespace(name: &str) -> std::io::Result<()> {
    let f = File::open(format!("/var/run/netns/{name}"))?;
    // SAFETY: `setns` with a valid namespace descriptor only changes the
    // calling thread's network namespace; `f` outlives the call.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A UDP transport for host `n`, made inside its namespace.
fn udp_host(ns: String, n: u16) -> MakeTransport<UdpTransport> {
    Box::new(move || {
        enter_namespace(&ns).unwrap_or_else(|e| panic!("entering {ns}: {e}"));
        let ip = std::net::Ipv4Addr::from(host_address(n).ip);
        UdpTransport::bind(SocketAddr::V4(SocketAddrV4::new(ip, ESA_UDP_PORT)))
            .unwrap_or_else(|e| panic!("binding in {ns}: {e}"))
    })
}

#[test]
fn jobs_in_namespaces_through_esa_switch_on_af_packet_ports_sum_exactly() {
    if !enabled() {
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
    let topo = Topology::create(hosts).unwrap();
    eprintln!(
        "loss: {LOSS_PERCENT}% of ESA packets out of every host, by {}",
        match topo.loss {
            Some(LossMethod::Netem) => "netem",
            _ => "nftables (this kernel has no sch_netem)",
        }
    );
    let harness = SwitchHarness::start(Ports::Interfaces(topo.root_ifs.clone()), LANES, POOL_SLOTS);
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
        };
        let worker_hosts: Vec<u16> = (next..next + u16::from(*workers)).collect();
        let ps_host = next + u16::from(*workers);
        next = ps_host + 1;
        let job = harness.admit(spec.id, *mode, 15, &worker_hosts, ps_host);
        let ns = |n: u16| topo.namespaces[usize::from(n) - 1].clone();
        let workers: Vec<_> = worker_hosts.iter().map(|n| udp_host(ns(*n), *n)).collect();
        runs.push((spec, job.slot_mask, workers, udp_host(ns(ps_host), ps_host)));
    }
    let outcomes = switch::run_jobs(LANES, runs);
    let dropped = topo.dropped();
    eprintln!("loss rules dropped {dropped} packets");
    eprintln!("switch ports: {:?}", harness.switch().all_port_stats());
    for (spec, o) in &outcomes {
        eprintln!(
            "job {} ({:?}, {:?}): {:?}, iterations {:?}, {} checked, {} wrong, {} resends, \
             results {} from switch / {} from PS, {} invalid packets, {} duplicate results, switch counters {:?}",
            spec.id,
            spec.mode,
            spec.policy,
            o.elapsed,
            o.iterations_done,
            o.checked_elements,
            o.wrong_elements,
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
            o.errors.is_empty(),
            "job {}: {:?}\n(if an esa job stalls, check that results leave the switch with \
             the switch's source address: a worker's kernel drops a RESULT carrying its own \
             address as a martian, docs/protocol.md 3.1)",
            spec.id,
            o.errors
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
