//! Network namespaces joined to the switch by veth pairs: the testbed's
//! `netns` fabric and every privileged test (host, switch, testbed) make
//! their hosts here.
//!
//! Host `n` of the `s`-th topology of process `pid` gets namespace
//! `esar<pid>s<s>h<n>` holding `eth0` (the host's MAC and, if it has one, an
//! IPv4 address in a /8 and a permanent neighbour entry for the switch's
//! address, since nothing answers ARP for it). Its peer stays in the root
//! namespace and is the switch's port: esa-switch opens it with AF_PACKET,
//! BMv2 with `-i n@<name>`. Interface names must fit in 15 characters, so
//! theirs is `e<pid>x<s>p<n>` with pid and s in base 36. Two switches are
//! joined by a veth pair in the root namespace,
//! [`VethPair::between_switches`]: `e<pid>-<s>a<n>` and `e<pid>-<s>b<n>`.
//!
//! Loss is injected by an nftables table in each lossy host's namespace
//! that drops a random share of ESA datagrams on the way out and on the
//! way in, with a counter; netem is not needed (many kernels lack
//! sch_netem).
//!
//! Everything is removed on drop. A run killed before that leaves
//! namespaces (and veth pairs between switches) named after its process
//! id; [`sweep_stale`] removes those whose process is gone, and every new
//! topology calls it first.
//!
//! For benches and tests that need bare interfaces rather than hosts, and
//! for links between switches: [`VethPair`] (in the root namespace or in a
//! [`TempNamespace`] of one's own), both removed on drop.
//!
//! Tests that need all this (root, `ip`, `nft`) are opt-in: [`tests_enabled`]
//! is the one gate, `ESA_NETNS_TESTS=1`.

// `setns` and `geteuid` have no safe wrappers in libc.
#![allow(unsafe_code)]

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use esa_core::constants::ESA_UDP_PORT;

/// Why a topology could not be made.
#[derive(Debug, thiserror::Error)]
#[error("host on port {port}: {message}")]
pub struct NetnsError {
    /// The host's switch port.
    pub port: u16,
    /// What failed (the command and its stderr).
    pub message: String,
}

/// The environment variable that turns the privileged tests on.
pub const TESTS_VAR: &str = "ESA_NETNS_TESTS";

/// Whether the namespace tests run (`ESA_NETNS_TESTS=1`, which needs
/// root); otherwise prints that `test` was skipped and why.
pub fn tests_enabled(test: &str) -> bool {
    if std::env::var(TESTS_VAR).as_deref() == Ok("1") {
        return true;
    }
    eprintln!("note: {test} skipped (needs root; set {TESTS_VAR}=1 to run it)");
    false
}

/// What one namespace host needs.
#[derive(Debug, Clone)]
pub struct NamespaceHost {
    /// Switch port number, also the `n` in the names.
    pub port: u16,
    /// MAC address of `eth0`.
    pub mac: [u8; 6],
    /// IPv4 address of `eth0` (a /8), if the host speaks IP.
    pub ip: Option<std::net::Ipv4Addr>,
    /// Probability that an ESA datagram is dropped, each direction.
    pub loss: f64,
}

/// Where hosts send ESA packets: a permanent neighbour entry in each
/// namespace, since nothing answers ARP for the switch.
#[derive(Debug, Clone, Copy)]
pub struct SwitchAddress {
    /// The switch's IPv4 address.
    pub ip: std::net::Ipv4Addr,
    /// The switch's MAC address.
    pub mac: [u8; 6],
}

/// One host's namespace and veth pair.
#[derive(Debug)]
struct Created {
    port: u16,
    namespace: String,
    interface: String,
    lossy: bool,
}

/// Namespaces and veth pairs, one per host; removed on drop.
#[derive(Debug, Default)]
pub struct Namespaces {
    /// This topology's number in the process.
    seq: u32,
    hosts: Vec<Created>,
}

/// Runs a command; its stderr is the error.
pub fn run(args: &[&str]) -> Result<String, String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", args.join(" ")))?;
    if !out.status.success() {
        return Err(format!(
            "`{}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether `program` is on PATH.
pub fn on_path(program: &str) -> bool {
    find_on_path(program).is_some()
}

/// The first `program` on PATH.
pub fn find_on_path(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Topologies this process has made, so that concurrent runs in one
/// process (tests) get their own names.
static TOPOLOGIES: AtomicU32 = AtomicU32::new(0);

/// Held while this process adds a namespace, and by
/// [`remove_this_process`], which sets it: a removal from a signal
/// handler's thread waits for an `ip netns add` under way instead of
/// listing the namespaces before it lands, and no namespace is added after
/// it.
static CLOSED: std::sync::Mutex<bool> = std::sync::Mutex::new(false);

/// Namespace name of host `port` of topology `seq` of process `pid`.
fn namespace_name(pid: u32, seq: u32, port: u16) -> String {
    format!("esar{pid}s{seq}h{port}")
}

/// Interface name (at most 15 characters) of host `port`'s veth end:
/// `side` is `p` for the switch's, `n` for the host's before it is renamed.
fn interface_name(pid: u32, seq: u32, port: u16, side: char) -> String {
    format!("e{}x{}{side}{port}", base36(pid), base36(seq % 1296))
}

/// Name (at most 15 characters) of end `side` (`a` or `b`) of link `link`
/// between switches of topology `seq` of process `pid`. The `-`, which
/// base 36 lacks, keeps the process id readable from the name
/// ([`switch_link_pid`]); a host's interface name cannot tell where its
/// pid ends (`x` is a base-36 digit).
fn link_name(pid: u32, seq: u32, link: u16, side: char) -> String {
    format!("e{}-{}{side}{link}", base36(pid), base36(seq % 1296))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The process id in a namespace name this module made.
fn namespace_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("esar")?;
    let (pid, rest) = rest.split_once('s')?;
    let (seq, port) = rest.split_once('h')?;
    seq.parse::<u32>().ok()?;
    port.parse::<u16>().ok()?;
    pid.parse().ok()
}

/// The host namespaces process `pid` made that exist now (names as `ip
/// netns list` gives them).
pub fn namespaces_of(pid: u32) -> Vec<String> {
    let Ok(list) = run(&["ip", "netns", "list"]) else {
        return vec![];
    };
    list.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| namespace_pid(name) == Some(pid))
        .map(String::from)
        .collect()
}

/// The ends of the veth pairs between switches
/// ([`VethPair::between_switches`]) process `pid` made that exist now.
pub fn switch_links_of(pid: u32) -> Vec<String> {
    switch_links()
        .into_iter()
        .filter(|name| switch_link_pid(name) == Some(pid))
        .collect()
}

/// Every veth end in the root namespace named like a link between
/// switches.
fn switch_links() -> Vec<String> {
    let Ok(links) = run(&["ip", "-o", "link", "show", "type", "veth"]) else {
        return vec![];
    };
    links
        .lines()
        .filter_map(|l| l.split(": ").nth(1))
        .map(|name| name.split('@').next().unwrap_or(name).to_string())
        .filter(|name| switch_link_pid(name).is_some())
        .collect()
}

/// Removes namespaces left by runs whose process is gone (killed before
/// they cleaned up), and their veth pairs between switches; returns how
/// many namespaces.
pub fn sweep_stale() -> usize {
    remove_where(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists())
}

/// Removes every namespace this process made, and its veth pairs between
/// switches: for a signal handler, when the run is interrupted before its
/// topologies drop; this process adds no namespace afterwards. Returns how
/// many namespaces.
pub fn remove_this_process() -> usize {
    let mut closed = CLOSED.lock().unwrap_or_else(|e| e.into_inner());
    *closed = true;
    let me = std::process::id();
    remove_where(|pid| pid == me)
}

/// Removes the namespaces this module made whose process id `doomed`
/// picks (the veth end inside goes with its namespace, and its peer with
/// it), and the veth pairs between switches it made in the root namespace
/// ([`VethPair::between_switches`]). Returns how many namespaces.
fn remove_where(doomed: impl Fn(u32) -> bool) -> usize {
    for name in switch_links() {
        if switch_link_pid(&name).is_some_and(&doomed) {
            // Deleting one end deletes its peer: the other's may fail.
            let _ = run(&["ip", "link", "del", &name]);
        }
    }
    let Ok(list) = run(&["ip", "netns", "list"]) else {
        return 0;
    };
    list.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| namespace_pid(name).is_some_and(&doomed))
        .filter(|name| run(&["ip", "netns", "del", name]).is_ok())
        .count()
}

/// The process id in the name of an end of a veth pair between switches
/// ([`link_name`]).
fn switch_link_pid(name: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix('e')?.split_once('-')?;
    let (head, link) = rest.split_at(rest.trim_end_matches(|c: char| c.is_ascii_digit()).len());
    let seq = head.strip_suffix(['a', 'b'])?;
    link.parse::<u16>().ok()?;
    u32::from_str_radix(seq, 36).ok()?;
    u32::from_str_radix(pid, 36).ok()
}

/// `aa:bb:cc:dd:ee:ff`.
pub fn mac_text(mac: [u8; 6]) -> String {
    mac.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

impl Namespaces {
    /// Creates one namespace and veth pair per host (first removing those
    /// of dead processes). Hosts with an IPv4 address reach `switch` at its
    /// address through a permanent neighbour entry.
    pub fn create(
        hosts: &[NamespaceHost],
        switch: Option<SwitchAddress>,
    ) -> Result<Namespaces, NetnsError> {
        sweep_stale();
        let mut made = Namespaces {
            seq: TOPOLOGIES.fetch_add(1, Ordering::Relaxed),
            hosts: Vec::new(),
        };
        for host in hosts {
            made.add(host, switch).map_err(|message| NetnsError {
                port: host.port,
                message,
            })?;
        }
        Ok(made)
    }

    fn add(&mut self, host: &NamespaceHost, switch: Option<SwitchAddress>) -> Result<(), String> {
        let pid = std::process::id();
        let n = host.port;
        let namespace = namespace_name(pid, self.seq, n);
        let interface = interface_name(pid, self.seq, n, 'p');
        let peer = interface_name(pid, self.seq, n, 'n');
        {
            let closed = CLOSED.lock().unwrap_or_else(|e| e.into_inner());
            if *closed {
                return Err("this process is removing its namespaces (interrupted)".into());
            }
            run(&["ip", "netns", "add", &namespace])?;
        }
        self.hosts.push(Created {
            port: n,
            namespace: namespace.clone(),
            interface: interface.clone(),
            lossy: false,
        });
        run(&[
            "ip", "link", "add", &interface, "type", "veth", "peer", "name", &peer,
        ])?;
        run(&["ip", "link", "set", &peer, "netns", &namespace])?;
        let ns = namespace.as_str();
        // Quiet links: no IPv6 neighbour discovery or router solicitations
        // through the switch.
        let _ = run(&[
            "ip",
            "netns",
            "exec",
            ns,
            "sysctl",
            "-q",
            "-w",
            "net.ipv6.conf.all.disable_ipv6=1",
        ]);
        let _ = run(&[
            "sysctl",
            "-q",
            "-w",
            &format!("net.ipv6.conf.{interface}.disable_ipv6=1"),
        ]);
        run(&["ip", "-n", ns, "link", "set", &peer, "name", "eth0"])?;
        run(&[
            "ip",
            "-n",
            ns,
            "link",
            "set",
            "eth0",
            "address",
            &mac_text(host.mac),
        ])?;
        if let Some(ip) = host.ip {
            run(&[
                "ip",
                "-n",
                ns,
                "addr",
                "add",
                &format!("{ip}/8"),
                "dev",
                "eth0",
            ])?;
        }
        run(&["ip", "-n", ns, "link", "set", "eth0", "up"])?;
        run(&["ip", "-n", ns, "link", "set", "lo", "up"])?;
        if let (Some(_), Some(switch)) = (host.ip, switch) {
            run(&[
                "ip",
                "-n",
                ns,
                "neigh",
                "replace",
                &switch.ip.to_string(),
                "lladdr",
                &mac_text(switch.mac),
                "dev",
                "eth0",
                "nud",
                "permanent",
            ])?;
        }
        run(&["ip", "link", "set", &interface, "up"])?;
        if host.loss > 0.0 {
            add_loss(ns, host.loss)?;
            if let Some(h) = self.hosts.last_mut() {
                h.lossy = true;
            }
        }
        Ok(())
    }

    /// The switch's ports: `(port, root-side interface)`.
    pub fn interfaces(&self) -> Vec<(u32, String)> {
        self.hosts
            .iter()
            .map(|h| (u32::from(h.port), h.interface.clone()))
            .collect()
    }

    /// The namespace of the host on switch port `port`.
    pub fn namespace(&self, port: u16) -> Option<&str> {
        self.hosts
            .iter()
            .find(|h| h.port == port)
            .map(|h| h.namespace.as_str())
    }

    /// Takes the link of the host on switch port `port` down or up again
    /// (`ip link set` on the switch's end of its veth pair: the carrier
    /// drops on both ends, as when a cable is pulled).
    pub fn set_link(&self, port: u16, up: bool) -> Result<(), String> {
        let host = self
            .hosts
            .iter()
            .find(|h| h.port == port)
            .ok_or_else(|| format!("no host on switch port {port}"))?;
        let state = if up { "up" } else { "down" };
        run(&["ip", "link", "set", "dev", &host.interface, state]).map(|_| ())
    }

    /// ESA datagrams the loss rules of the host on `port` dropped, both
    /// directions (0 without loss rules).
    pub fn frames_lost(&self, port: u16) -> u64 {
        let Some(h) = self.hosts.iter().find(|h| h.port == port && h.lossy) else {
            return 0;
        };
        run(&[
            "ip",
            "netns",
            "exec",
            &h.namespace,
            "nft",
            "list",
            "table",
            "inet",
            "esa_loss",
        ])
        .map(|text| packet_counts(&text))
        .unwrap_or(0)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for h in &self.hosts {
            let _ = run(&["ip", "link", "del", &h.interface]);
            let _ = run(&["ip", "netns", "del", &h.namespace]);
        }
    }
}

/// The sum of every `packets N` in nft's listing (only the drop rules
/// count).
fn packet_counts(text: &str) -> u64 {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[0] == "packets")
        .filter_map(|w| w[1].parse::<u64>().ok())
        .sum()
}

/// An nftables table in `ns` dropping `loss` of the ESA datagrams leaving
/// and entering it.
fn add_loss(ns: &str, loss: f64) -> Result<(), String> {
    const SCALE: u64 = 1_000_000;
    let below = (loss * SCALE as f64).round() as u64;
    let port = ESA_UDP_PORT;
    let rules = format!(
        "add table inet esa_loss\n\
         add chain inet esa_loss out {{ type filter hook output priority 0; }}\n\
         add chain inet esa_loss in {{ type filter hook input priority 0; }}\n\
         add rule inet esa_loss out udp dport {port} numgen random mod {SCALE} < {below} counter drop\n\
         add rule inet esa_loss in udp dport {port} numgen random mod {SCALE} < {below} counter drop\n"
    );
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns, "nft", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("nft: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(rules.as_bytes())
            .map_err(|e| format!("nft: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("nft: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "loss rules in {ns}: nft failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// A network namespace of its own (`ip netns add`), removed on drop: for
/// benches and tests that want interfaces nobody else sends on.
#[derive(Debug)]
pub struct TempNamespace {
    name: String,
}

impl TempNamespace {
    /// Creates namespace `name`, with IPv6 off for the interfaces made in
    /// it (no router solicitations).
    pub fn create(name: &str) -> Result<TempNamespace, String> {
        run(&["ip", "netns", "add", name])?;
        let ns = TempNamespace { name: name.into() };
        ns.run(&["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"])?;
        Ok(ns)
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs a command in it.
    pub fn run(&self, args: &[&str]) -> Result<String, String> {
        let mut all = vec!["ip", "netns", "exec", self.name.as_str()];
        all.extend_from_slice(args);
        run(&all)
    }
}

impl Drop for TempNamespace {
    fn drop(&mut self) {
        let _ = run(&["ip", "netns", "del", &self.name]);
    }
}

/// A veth pair with both ends up and IPv6 off, in the root namespace or
/// in a [`TempNamespace`]; deleted on drop.
#[derive(Debug)]
pub struct VethPair {
    ends: [String; 2],
    namespace: Option<String>,
}

impl VethPair {
    /// Creates the pair `a`/`b` in the root namespace.
    pub fn create(a: &str, b: &str) -> Result<VethPair, String> {
        VethPair::make(a, b, None)
    }

    /// Creates the pair `a`/`b` inside `namespace`.
    pub fn create_in(namespace: &TempNamespace, a: &str, b: &str) -> Result<VethPair, String> {
        VethPair::make(a, b, Some(namespace.name()))
    }

    fn make(a: &str, b: &str, namespace: Option<&str>) -> Result<VethPair, String> {
        let pair = VethPair {
            ends: [a.into(), b.into()],
            namespace: namespace.map(String::from),
        };
        pair.ip(&["link", "add", a, "type", "veth", "peer", "name", b])?;
        for end in [a, b] {
            if pair.namespace.is_none() {
                // Set per interface: the root namespace's default is the
                // machine's, not ours to change.
                let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{end}/disable_ipv6"), "1");
            }
            pair.ip(&["link", "set", end, "up"])?;
        }
        Ok(pair)
    }

    /// A pair in the root namespace joining two switches' ports (a ToR's
    /// uplink to a spine): link `link` of a fresh topology number, named
    /// after this process (`e<pid>-<s>a<link>` and `…b<link>`, base 36) so
    /// that [`sweep_stale`] finds it once the process is gone.
    pub fn between_switches(link: u16) -> Result<VethPair, String> {
        let (pid, seq) = (
            std::process::id(),
            TOPOLOGIES.fetch_add(1, Ordering::Relaxed),
        );
        VethPair::create(
            &link_name(pid, seq, link, 'a'),
            &link_name(pid, seq, link, 'b'),
        )
    }

    /// End `i` (0 or 1).
    pub fn end(&self, i: usize) -> &str {
        &self.ends[i]
    }

    fn ip(&self, args: &[&str]) -> Result<String, String> {
        let mut all = vec![];
        if let Some(ns) = &self.namespace {
            all.extend(["ip", "netns", "exec", ns.as_str()]);
        }
        all.push("ip");
        all.extend_from_slice(args);
        run(&all)
    }
}

impl Drop for VethPair {
    fn drop(&mut self) {
        // Deleting one end deletes its peer.
        let _ = self.ip(&["link", "del", &self.ends[0]]);
    }
}

/// Moves the calling thread into network namespace `name` (made by `ip
/// netns add`). Sockets it opens afterwards live there, and stay there
/// when the thread moves on.
pub fn enter(name: &str) -> std::io::Result<()> {
    let f = File::open(format!("/var/run/netns/{name}"))?;
    // SAFETY: `setns` with a valid namespace descriptor only changes the
    // calling thread's network namespace; `f` outlives the call.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_names_round_trip_to_their_process() {
        assert_eq!(
            namespace_pid(&namespace_name(4_194_304, 77, 510)),
            Some(4_194_304)
        );
        assert_eq!(namespace_pid("esar12s0h"), None);
        assert_eq!(namespace_pid("esar12h3"), None);
        assert_eq!(namespace_pid("esa12s0h3"), None);
        assert_eq!(namespace_pid("esarxs0h3"), None);
        // Interface names fit Linux's 15 characters at the largest pid,
        // sequence and port.
        let longest = interface_name(4_194_304, 1295, 510, 'p');
        assert!(longest.len() <= 15, "{longest}");
        assert_eq!(interface_name(35, 36, 7, 'n'), "ezx10n7");
        // Links between switches name their process too; hosts' ends and
        // other interfaces do not count.
        // (An `x` in a pid's base 36, as 19346's `exe`, is no matter.)
        for (pid, seq) in [(4_194_304, 1295), (19_346, 33), (35, 0)] {
            for side in ['a', 'b'] {
                let name = link_name(pid, seq, 510, side);
                assert!(name.len() <= 15, "{name}");
                assert_eq!(switch_link_pid(&name), Some(pid), "{name}");
            }
        }
        assert_eq!(switch_link_pid(&interface_name(100, 2, 9, 'p')), None);
        for other in [
            "eth0",
            "enx00e04c681234",
            "e-1a",
            "e1-a3",
            "e1-1ab",
            "e1-1c2",
        ] {
            assert_eq!(switch_link_pid(other), None, "{other}");
        }
        assert_ne!(
            interface_name(100, 1, 2, 'p'),
            interface_name(100, 2, 2, 'p')
        );
    }

    #[test]
    fn veth_pairs_and_temporary_namespaces_are_removed_on_drop() {
        if !tests_enabled("veth pair test") {
            return;
        }
        let pid = std::process::id();
        let root = VethPair::create(&format!("evt{pid}a"), &format!("evt{pid}b")).unwrap();
        let shown = run(&["ip", "-o", "link", "show", root.end(1)]).unwrap();
        assert!(shown.contains("UP"), "{shown}");
        let ns = TempNamespace::create(&format!("evtns{pid}")).unwrap();
        let inside = VethPair::create_in(&ns, "v0", "v1").unwrap();
        let shown = ns
            .run(&["ip", "-o", "link", "show", inside.end(0)])
            .unwrap();
        assert!(shown.contains("UP"), "{shown}");
        let (root_end, ns_name) = (root.end(0).to_string(), ns.name().to_string());
        drop(root);
        assert!(run(&["ip", "link", "show", &root_end]).is_err());
        drop(inside);
        assert!(ns.run(&["ip", "link", "show", "v1"]).is_err());
        drop(ns);
        let list = run(&["ip", "netns", "list"]).unwrap();
        assert!(!list.contains(&ns_name), "{list}");
    }

    #[test]
    fn a_dead_process_links_between_switches_are_swept() {
        if !tests_enabled("stale switch links test") {
            return;
        }
        // No process has the largest pid Linux hands out.
        let dead = 4_194_304;
        assert!(!std::path::Path::new(&format!("/proc/{dead}")).exists());
        let (a, b) = (link_name(dead, 7, 1, 'a'), link_name(dead, 7, 1, 'b'));
        std::mem::forget(VethPair::create(&a, &b).unwrap());
        let mine = VethPair::between_switches(1).unwrap();
        let mut made = switch_links_of(dead);
        made.sort();
        assert_eq!(made, [a.clone(), b]);
        sweep_stale();
        assert!(run(&["ip", "link", "show", &a]).is_err(), "{a} left behind");
        assert_eq!(switch_links_of(dead), Vec::<String>::new());
        let (pid, end) = (std::process::id(), mine.end(0).to_string());
        assert!(switch_links_of(pid).contains(&end), "a live run's link");
        drop(mine);
        assert!(!switch_links_of(pid).contains(&end));
    }

    #[test]
    fn nft_counters_are_summed() {
        let text = "table inet esa_loss {\n chain out {\n  udp dport 17747 numgen random mod 1000000 < 10000 counter packets 12 bytes 3400 drop\n }\n chain in {\n  udp dport 17747 numgen random mod 1000000 < 10000 counter packets 5 bytes 1 drop\n }\n}\n";
        assert_eq!(packet_counts(text), 17);
        assert_eq!(packet_counts("counter packets x bytes 2"), 0);
    }
}
