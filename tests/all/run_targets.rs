//! `esa run` on its other targets, through the `esa` binary:
//!
//! - preflight errors: what each switch/fabric combination needs, named
//!   before anything starts (no root needed);
//! - `--switch external`: `esa switch` started as its own process on veth
//!   ends, hosts in namespaces listed in a hosts file (root,
//!   `ESA_NETNS_TESTS=1`);
//! - `--switch bmv2`: quick.toml and contention-bmv2.toml on the real
//!   `p4c-bm2-ss` and `simple_switch_grpc` (root, `ESA_NETNS_TESTS=1`, BMv2
//!   from `$ESA_BMV2_DIR/bin` or PATH; skipped with a message without it
//!   unless `ESA_BMV2_REQUIRED=1`), and, with stand-in scripts that hand
//!   the job to p4sim, what the real install does not have: the `p4c`
//!   driver (`p4c --target bmv2`) when `p4c-bm2-ss` is missing.

#![cfg(target_os = "linux")]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::Mutex;
use std::time::Duration;

use esa_core::wire::{Ipv4Addr, MacAddr};
use esa_host::transport::HostAddress;
use esa_testbed::netns::{NamespaceHost, Namespaces, SwitchAddress};

const ESA: &str = env!("CARGO_BIN_EXE_esa");

/// Namespace runs one at a time (they share the machine's interfaces).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn quick() -> PathBuf {
    root().join("testbed/experiments/quick.toml")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("esa-run-targets-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `esa`; with `path`, that is the only place it finds tools (no
/// `ESA_BMV2_DIR` either).
fn esa(args: &[&str], path: Option<&str>) -> Output {
    let mut command = Command::new(ESA);
    command.args(args);
    if let Some(path) = path {
        command.env("PATH", path).env_remove("ESA_BMV2_DIR");
    }
    command.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn fails_with(args: &[&str], path: Option<&str>, wanted: &[&str]) {
    let out = esa(args, path);
    let text = stderr(&out);
    assert!(!out.status.success(), "{args:?} succeeded:\n{text}");
    for w in wanted {
        assert!(text.contains(w), "{args:?}: no {w:?} in:\n{text}");
    }
    assert!(!text.contains("panicked"), "{args:?} panicked:\n{text}");
}

#[test]
fn each_target_names_what_it_is_missing() {
    let quick = quick();
    let quick = quick.to_str().unwrap();
    let empty = scratch("empty-path");
    let empty = empty.to_str().unwrap();
    fails_with(
        &["run", quick, "--switch", "bmv2"],
        Some(empty),
        &["--switch bmv2 needs", "simple_switch_grpc", "p4c"],
    );
    fails_with(
        &["run", quick, "--switch", "external", "--hosts", "h.toml"],
        None,
        &["--p4runtime HOST:PORT"],
    );
    fails_with(
        &[
            "run",
            quick,
            "--switch",
            "external",
            "--p4runtime",
            "127.0.0.1:1",
        ],
        None,
        &["--hosts FILE"],
    );
    fails_with(
        &["run", quick, "--p4runtime", "127.0.0.1:1"],
        None,
        &["--p4runtime is for --switch external"],
    );
    // Namespaces need root, then iproute2: with an empty PATH, whichever
    // this test is missing first.
    let is_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let wanted = if is_root { "iproute2" } else { "needs root" };
    fails_with(&["run", quick, "--fabric", "netns"], Some(empty), &[wanted]);
    let _ = std::fs::remove_dir_all(empty);
    // A fault needs a switch this run starts, and a real one.
    let fault = ["--fault", "switch-restart@1s"];
    let dir = scratch("fault-external");
    let hosts = dir.join("hosts.toml");
    let entries: String = (1..=6)
        .map(|n| host_entry(n, &format!("10.7.0.{n}"), None))
        .collect();
    std::fs::write(&hosts, format!("switch_ip = \"10.7.255.254\"\n{entries}")).unwrap();
    let external = external_run("127.0.0.1:1", &hosts, &fault);
    fails_with(
        &strs(&external),
        None,
        &["cannot crash a switch it did not start"],
    );
    let _ = std::fs::remove_dir_all(&dir);
    fails_with(
        &[&["run", quick, "--fabric", "sim"][..], &fault].concat(),
        None,
        &["--fault needs a running switch"],
    );
    fails_with(
        &["run", quick, "--fault", "switch-restart@1s,down=20s"],
        None,
        &["would stay down past"],
    );
    fails_with(
        &["run", quick, "--fault", "switch-reboot@1s"],
        None,
        &["unknown fault `switch-reboot`"],
    );
}

/// One `[[host]]` of a hosts file: `node<n>` on port `n`.
fn host_entry(n: u16, ip: &str, netns: Option<&str>) -> String {
    let netns = netns.map_or(String::new(), |ns| format!("netns = \"{ns}\"\n"));
    format!(
        "\n[[host]]\nname = \"node{n}\"\nmac = \"02:00:00:00:77:{n:02x}\"\nip = \"{ip}\"\nport = {n}\n{netns}"
    )
}

/// `esa run quick.toml --switch external` at `p4runtime` with `hosts`.
fn external_run(p4runtime: &str, hosts: &Path, more: &[&str]) -> Vec<String> {
    external_run_of(&quick(), p4runtime, hosts, more)
}

/// `esa run EXPERIMENT --switch external` at `p4runtime` with `hosts`.
fn external_run_of(experiment: &Path, p4runtime: &str, hosts: &Path, more: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        experiment.to_str().unwrap(),
        "--switch",
        "external",
        "--p4runtime",
        p4runtime,
        "--hosts",
        hosts.to_str().unwrap(),
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend(more.iter().map(|a| a.to_string()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn external_hosts_files_are_checked_before_anything_starts() {
    let dir = scratch("hosts");
    let hosts = dir.join("hosts.toml");
    std::fs::write(&hosts, host_entry(1, "10.0.0.1", None)).unwrap();
    let args = external_run("127.0.0.1:1", &hosts, &[]);
    let args = strs(&args);
    // quick.toml: two jobs of two workers and a PS each.
    fails_with(&args, None, &["lists 1 hosts", "needs 6"]);
    let bad_mac = host_entry(1, "10.0.0.1", None).replace("02:00:00:00:77:01", "02:00");
    std::fs::write(&hosts, bad_mac).unwrap();
    fails_with(&args, None, &["hosts.toml", "host[0] (\"node1\").mac"]);
    std::fs::write(&hosts, "[[host]]\nname = \"w1\"\ncolour = 3\n").unwrap();
    fails_with(&args, None, &["hosts.toml", "colour", "line 3"]);
    let _ = std::fs::remove_dir_all(&dir);
}

fn netns_enabled() -> bool {
    esa_netns::tests_enabled("namespace test")
}

/// A child process, killed on drop.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn host(n: u16) -> HostAddress {
    HostAddress {
        mac: MacAddr([0x02, 0, 0, 0, 0x77, n as u8]),
        ip: Ipv4Addr([10, 7, 0, n as u8]),
        gateway_mac: esa_host::addressing::SWITCH_MAC,
    }
}

fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// Asserts the run succeeded and its report verifies every job of
/// quick.toml.
fn assert_verified(out: &Output, dir: &Path, switch: &str) {
    assert_all_verified(out, dir, switch, 2);
}

/// Asserts the run succeeded and its report has `jobs` jobs, every one
/// verified.
fn assert_all_verified(out: &Output, dir: &Path, switch: &str, jobs: usize) {
    let text = stderr(out);
    assert!(
        out.status.success(),
        "esa run failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["switch"], switch);
    let list = json["jobs"].as_array().unwrap();
    assert_eq!(list.len(), jobs);
    for j in list {
        assert_eq!(j["verified"], serde_json::Value::Bool(true), "{j}");
        assert!(j["chunks_in_switch"].as_u64().unwrap() > 0, "{j}");
        assert_eq!(j["iterations_done"], j["iterations"], "{j}");
    }
}

/// `esa switch` as its own process, its ports on the veth ends of six host
/// namespaces, and a hosts file listing the hosts in `order`. The switch
/// stops before the namespaces go (field order).
struct ExternalFabric {
    switch: Killed,
    /// `esa switch`'s arguments, to start it again.
    switch_args: Vec<String>,
    grpc: String,
    hosts_path: PathBuf,
    namespaces: Namespaces,
}

fn external_fabric(dir: &Path, order: &[u16]) -> ExternalFabric {
    external_fabric_with(dir, order, &[])
}

/// [`external_fabric`] with more flags for `esa switch`.
fn external_fabric_with(dir: &Path, order: &[u16], switch_args: &[String]) -> ExternalFabric {
    let switch_ip = std::net::Ipv4Addr::new(10, 7, 255, 254);
    let wanted: Vec<NamespaceHost> = (1..=6)
        .map(|n| NamespaceHost {
            port: n,
            mac: host(n).mac.0,
            ip: Some(std::net::Ipv4Addr::from(host(n).ip.0)),
            loss: 0.0,
        })
        .collect();
    let switch = SwitchAddress {
        ip: switch_ip,
        mac: host(1).gateway_mac.0,
    };
    let namespaces = Namespaces::create(&wanted, Some(switch)).unwrap();
    let grpc = free_port();
    let mut args: Vec<String> = ["switch", "--grpc-addr", &grpc, "--log-level", "warn"]
        .map(str::to_owned)
        .into();
    args.extend_from_slice(switch_args);
    for (port, name) in namespaces.interfaces() {
        args.push("-i".into());
        args.push(format!("{port}@{name}"));
    }
    let switch = Killed(Command::new(ESA).args(&args).spawn().unwrap());
    let mut hosts = format!("switch_ip = \"{switch_ip}\"\n");
    for &n in order {
        let ip = std::net::Ipv4Addr::from(host(n).ip.0).to_string();
        hosts += &host_entry(n, &ip, namespaces.namespace(n));
    }
    let hosts_path = dir.join("hosts.toml");
    std::fs::write(&hosts_path, hosts).unwrap();
    ExternalFabric {
        switch,
        switch_args: args,
        grpc,
        hosts_path,
        namespaces,
    }
}

impl ExternalFabric {
    /// Kills the switch (SIGKILL: a crash) and starts it again, empty,
    /// with the same ports and P4Runtime address after `down`.
    fn restart_switch(&mut self, down: Duration) {
        let _ = self.switch.0.kill();
        let _ = self.switch.0.wait();
        std::thread::sleep(down);
        self.switch = Killed(Command::new(ESA).args(&self.switch_args).spawn().unwrap());
    }

    /// `esa run quick.toml` on this switch, its report in `out_dir`.
    fn run_quick(&self, out_dir: &Path) -> Output {
        self.run(&quick(), out_dir)
    }

    /// `esa run EXPERIMENT` on this switch, its report in `out_dir`.
    fn run(&self, experiment: &Path, out_dir: &Path) -> Output {
        let args = external_run_of(
            experiment,
            &self.grpc,
            &self.hosts_path,
            &["--quiet", "--out", out_dir.to_str().unwrap()],
        );
        esa(&strs(&args), None)
    }
}

/// The external switch as a lab runs it across machines: P4Runtime over
/// TLS, client certificates required, ESA's tables given to role `esa`,
/// which only the controller's certificate may take (README.md, "Across
/// machines"); `esa run` reaches it with the matching flags.
#[test]
fn quick_runs_on_an_external_switch_process_with_a_hosts_file() {
    if !netns_enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("external");
    let lab = dir.join("lab");
    let made = esa(
        &[
            "certs",
            "--out",
            lab.to_str().unwrap(),
            "--client",
            "esa-controller",
        ],
        None,
    );
    assert!(made.status.success(), "{made:?}");
    let roles = dir.join("roles.toml");
    std::fs::write(
        &roles,
        "[[role]]\nname = \"esa\"\nentities = [\"EsaIngress.\", \"EsaEgress.\"]\n\
         replication = true\npipeline = true\nclients = [\"esa-controller\"]\n",
    )
    .unwrap();
    let file = |name: &str| lab.join(name).to_str().unwrap().to_string();
    let switch_args: Vec<String> = [
        "--tls-cert".to_string(),
        file("server.pem"),
        "--tls-key".into(),
        file("server.key"),
        "--tls-client-ca".into(),
        file("ca.pem"),
        "--roles".into(),
        roles.to_str().unwrap().into(),
    ]
    .into();
    // Listed in a different order from the ports: hosts are taken in file
    // order, whatever their port.
    let fabric = external_fabric_with(&dir, &[3, 1, 2, 6, 4, 5], &switch_args);
    let out_dir = dir.join("out");
    let (ca, cert, key) = (
        file("ca.pem"),
        file("client-esa-controller.pem"),
        file("client-esa-controller.key"),
    );
    let args = external_run(
        &fabric.grpc,
        &fabric.hosts_path,
        &[
            "--out",
            out_dir.to_str().unwrap(),
            "--p4runtime-tls-ca",
            &ca,
            "--p4runtime-tls-cert",
            &cert,
            "--p4runtime-tls-key",
            &key,
            "--p4runtime-role",
            "esa",
        ],
    );
    let out = esa(&strs(&args), None);
    assert_verified(&out, &out_dir, "external");
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(
        report.contains(&format!("external switch at {}", fabric.grpc)),
        "{report}"
    );
    drop(fabric);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two runs of one job, one after the other, on one external switch
/// (which keeps its counters, indexed by job id, from run to run): each
/// report counts only its own run. A job alone never loses a slot, so
/// every chunk completes in the switch: both reports say exactly the
/// job's chunk total (before issue 39 the second said twice that).
#[test]
fn consecutive_runs_on_one_external_switch_report_their_own_counts() {
    if !netns_enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("consecutive");
    let fabric = external_fabric(&dir, &[1, 2, 3, 4, 5, 6]);
    let alone = dir.join("alone.toml");
    std::fs::write(
        &alone,
        "name = \"alone\"\n[switch]\nlanes = 32\npool_slots = 256\n[[jobs]]\nname = \"a\"\n\
         workers = 2\ngradient_elems = 65536\niterations = 5\n",
    )
    .unwrap();
    for run in ["first", "second"] {
        let out_dir = dir.join(run);
        assert_all_verified(&fabric.run(&alone, &out_dir), &out_dir, "external", 1);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
                .unwrap();
        let job = &json["jobs"][0];
        // 2,048 chunks of 32 lanes, five iterations.
        assert_eq!(job["chunks_total"], 10_240, "{run} run: {job}");
        assert_eq!(job["chunks_in_switch"], 10_240, "{run} run: {job}");
        assert_eq!(job["chunks_at_ps"], 0, "{run} run: {job}");
        assert_eq!(
            job["switch_counters"]["completed"], 10_240,
            "{run} run: {job}"
        );
    }
    drop(fabric);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Somebody restarts an external switch under a run (`esa run` cannot:
/// it is not the run's to restart): the controller programs it again, the
/// jobs finish verified, and each report counts the restart and says where
/// every chunk completed, exactly: the switch's counters restarted from
/// zero, so its share is the hosts' count of chunks done less the PS's.
#[test]
fn an_external_switch_restarted_under_a_run_loses_no_job_and_no_chunk() {
    if !netns_enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("external-restart");
    let mut fabric = external_fabric(&dir, &[1, 2, 3, 4, 5, 6]);
    let out_dir = dir.join("out");
    // restart.toml's two jobs, with two workers each: six hosts.
    let experiment = dir.join("restart6.toml");
    std::fs::write(
        &experiment,
        "name = \"restart6\"\nseed = 7\n[switch]\nlanes = 32\npool_slots = 1024\n\
         [[jobs]]\nname = \"a\"\nworkers = 2\ngradient_elems = 262144\ncompute_ms = 20\n\
         iterations = 24\npolicy = \"srpt\"\n\
         [[jobs]]\nname = \"b\"\narrival_ms = 100\nworkers = 2\ngradient_elems = 131072\n\
         compute_ms = 20\niterations = 30\npriority = 2\npolicy = \"las\"\n",
    )
    .unwrap();
    let args = external_run_of(
        &experiment,
        &fabric.grpc,
        &fabric.hosts_path,
        &["--quiet", "--out", out_dir.to_str().unwrap()],
    );
    let run = Command::new(ESA)
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Strike once both jobs have chunks completed in the switch (they run
    // for several seconds).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while [1, 2]
        .iter()
        .any(|&job| completed_in_switch(&fabric.grpc, job) == 0)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the jobs never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    fabric.restart_switch(Duration::from_millis(500));
    let out = run.wait_with_output().unwrap();
    assert_all_verified(&out, &out_dir, "external", 2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    for job in json["jobs"].as_array().unwrap() {
        assert_eq!(job["switch_restarts"], 1, "{job}");
        let (total, switch, ps) = (
            job["chunks_total"].as_u64().unwrap(),
            job["chunks_in_switch"].as_u64().unwrap(),
            job["chunks_at_ps"].as_u64().unwrap(),
        );
        assert_eq!(switch + ps, total, "{job}");
    }
    drop(fabric);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Resident memory of process `pid`, KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Sends raw Ethernet frames out of `eth0` of a host namespace (an
/// AF_PACKET socket in Python's standard library), one hex line each;
/// `sync` answers once everything before it is sent.
struct RawSender {
    child: Killed,
    input: std::process::ChildStdin,
    output: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
    sent: u64,
}

const RAW_SENDER: &str = r#"
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
for line in sys.stdin:
    line = line.strip()
    if line == "sync":
        print("synced", flush=True)
    else:
        s.send(bytes.fromhex(line))
"#;

impl RawSender {
    fn start(namespace: &str) -> RawSender {
        use std::io::BufRead;
        let mut child = Command::new("ip")
            .args(["netns", "exec", namespace, "python3", "-c", RAW_SENDER])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        RawSender {
            child: Killed(child),
            input,
            output,
            sent: 0,
        }
    }

    /// Sends `frames` and waits until the sender has written them all.
    fn send(&mut self, frames: &[Vec<u8>]) {
        use std::io::Write;
        let mut text = String::new();
        for f in frames {
            text += &f.iter().map(|b| format!("{b:02x}")).collect::<String>();
            text.push('\n');
        }
        text += "sync\n";
        self.input.write_all(text.as_bytes()).unwrap();
        self.input.flush().unwrap();
        let line = self.output.next().map(|l| l.unwrap());
        assert_eq!(
            line.as_deref(),
            Some("synced"),
            "the raw sender died: {:?}",
            self.child.0.try_wait()
        );
        self.sent += frames.len() as u64;
    }
}

/// The switch's admission counters (`esa_global`: not ESA, malformed,
/// unknown job), read over P4Runtime.
struct GlobalCounters {
    rt: tokio::runtime::Runtime,
    client: p4runtime_proto::P4RuntimeClient<p4runtime_proto::tonic::transport::Channel>,
    id: u32,
}

impl GlobalCounters {
    fn connect(grpc: &str) -> GlobalCounters {
        // quick.toml's program: the ids depend only on the names.
        let pipeline = esa_controller::Pipeline::from_p4_source(
            &esa_p4::Arch::V1model.program(),
            &esa_p4::Defines::new(32, 256).pairs(),
        )
        .unwrap();
        let id = pipeline
            .p4info
            .counters
            .iter()
            .filter_map(|c| c.preamble.as_ref())
            .find(|p| p.name == esa_p4::counters::global_counter(esa_p4::Arch::V1model))
            .unwrap()
            .id;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = rt
            .block_on(p4runtime_proto::P4RuntimeClient::connect(format!(
                "http://{grpc}"
            )))
            .unwrap();
        GlobalCounters { rt, client, id }
    }

    /// [not ESA, malformed, unknown job].
    fn read(&mut self) -> [u64; 3] {
        use p4runtime_proto::p4::v1 as p4v1;
        let request = p4v1::ReadRequest {
            device_id: 0,
            entities: vec![p4v1::Entity {
                entity: Some(p4v1::entity::Entity::CounterEntry(p4v1::CounterEntry {
                    counter_id: self.id,
                    index: None,
                    data: None,
                })),
            }],
            ..Default::default()
        };
        self.rt.block_on(async {
            let mut stream = self.client.read(request).await.unwrap().into_inner();
            let mut out = [0u64; 3];
            while let Some(r) = stream.message().await.unwrap() {
                for e in r.entities {
                    if let Some(p4v1::entity::Entity::CounterEntry(c)) = e.entity {
                        let i = c.index.map_or(0, |i| i.index) as usize;
                        if let (Some(slot), Some(d)) = (out.get_mut(i), c.data) {
                            *slot = d.packet_count as u64;
                        }
                    }
                }
            }
            out
        })
    }

    fn total(&mut self) -> u64 {
        self.read().iter().sum()
    }
}

/// Job `job`'s `completed` counter on the switch at `grpc`; 0 while the
/// switch has no pipeline.
fn completed_in_switch(grpc: &str, job: i64) -> u64 {
    use p4runtime_proto::p4::v1 as p4v1;
    let pipeline = esa_controller::Pipeline::from_p4_source(
        &esa_p4::Arch::V1model.program(),
        &esa_p4::Defines::new(32, 256).pairs(),
    )
    .unwrap();
    let name = esa_p4::counters::job_counter(esa_p4::Arch::V1model, "completed")
        .unwrap()
        .name;
    let id = pipeline
        .p4info
        .counters
        .iter()
        .filter_map(|c| c.preamble.as_ref())
        .find(|p| p.name == name)
        .unwrap()
        .id;
    let request = p4v1::ReadRequest {
        device_id: 0,
        entities: vec![p4v1::Entity {
            entity: Some(p4v1::entity::Entity::CounterEntry(p4v1::CounterEntry {
                counter_id: id,
                index: Some(p4v1::Index { index: job }),
                data: None,
            })),
        }],
        ..Default::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let Ok(mut client) =
            p4runtime_proto::P4RuntimeClient::connect(format!("http://{grpc}")).await
        else {
            return 0;
        };
        let Ok(response) = client.read(request).await else {
            return 0;
        };
        let mut stream = response.into_inner();
        let mut packets = 0;
        while let Ok(Some(r)) = stream.message().await {
            for e in r.entities {
                if let Some(p4v1::entity::Entity::CounterEntry(c)) = e.entity {
                    packets += c.data.map_or(0, |d| d.packet_count as u64);
                }
            }
        }
        packets
    })
}

/// Malformed frames into `esa switch` on a veth, from a host namespace:
/// every truncation of a valid ESA frame (from 14 bytes), ESA headers with random field
/// values, and 100,000 random frames. The switch process keeps running
/// with bounded memory, counts every frame in its admission counters, and
/// quick.toml still verifies through it afterwards.
#[test]
fn malformed_frames_on_a_veth_are_counted_and_the_switch_keeps_working() {
    use esa_core::rng::Rng;
    use esa_core::wire::{EsaRepr, Flags, FrameRepr, Key, PacketType};
    if !netns_enabled() {
        return;
    }
    assert!(
        esa_netns::on_path("python3"),
        "python3 sends the raw frames"
    );
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("malformed");
    let mut fabric = external_fabric(&dir, &[1, 2, 3, 4, 5, 6]);
    // A run first: it loads the pipeline (and leaves it), then releases
    // its jobs, so every ESA frame below is for a job the switch lacks.
    let out_dir = dir.join("before");
    assert_verified(&fabric.run_quick(&out_dir), &out_dir, "external");
    let mut counters = GlobalCounters::connect(&fabric.grpc);
    let base = counters.read();
    let switch_pid = fabric.switch.0.id();
    let rss_before = rss_kib(switch_pid);
    let mut sender = RawSender::start(fabric.namespaces.namespace(1).unwrap());
    let counted_all = |sender: &RawSender, counters: &mut GlobalCounters| {
        let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let counted = counters.total() - base.iter().sum::<u64>();
            if counted >= sender.sent {
                return counted;
            }
            assert!(
                std::time::Instant::now() < end,
                "{} frames sent, {counted} counted",
                sender.sent
            );
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    };
    // Frames per burst: the switch's socket buffer (the kernel's default,
    // about 200 KB) holds a burst of this many whole frames.
    const BATCH: usize = 100;

    let h = host(1);
    let valid = FrameRepr {
        src_mac: h.mac,
        dst_mac: h.gateway_mac,
        src_ip: h.ip,
        dst_ip: esa_core::wire::Ipv4Addr([10, 7, 255, 254]),
        esa: EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::default(),
            slot: 3,
            key: Key::new(1, 9, 7),
            bitmap: 1,
            fan_in: 2,
            count: 1,
            exponent: 16,
            worker: 0,
        },
    }
    .emit(&[5; 32], 32);
    assert_eq!(valid.len(), esa_core::constants::esa_frame_len(32));
    // 1. Every truncation of the frame down to an Ethernet header (the
    //    kernel refuses to send less on an Ethernet link, EINVAL;
    //    testbed/tests/local_malformed.rs sends those through a UDP-carried
    //    port). All of them run out of bytes in the parser: malformed.
    let truncations: Vec<Vec<u8>> = (14..valid.len()).map(|n| valid[..n].to_vec()).collect();
    sender.send(&truncations);
    counted_all(&sender, &mut counters);
    let after = counters.read();
    assert_eq!(
        [after[0] - base[0], after[1] - base[1], after[2] - base[2]],
        [0, truncations.len() as u64, 0],
        "truncations: [not ESA, malformed, unknown job]"
    );
    // 2. ESA headers with random field values (the IPv4 header, and so its
    //    checksum, untouched), then 3. random frames of random lengths, in
    //    batches so the switch's socket never overflows.
    let mut rng = Rng::new(11);
    let esa_at = 14 + 20 + 8;
    let random_esa: Vec<Vec<u8>> = (0..2_000)
        .map(|_| {
            let mut f = valid.clone();
            for b in &mut f[esa_at..esa_at + 16] {
                *b = rng.next_u64() as u8;
            }
            f
        })
        .collect();
    for batch in random_esa.chunks(BATCH) {
        sender.send(batch);
        counted_all(&sender, &mut counters);
    }
    for _ in 0..100_000 / BATCH {
        let batch: Vec<Vec<u8>> = (0..BATCH)
            .map(|_| {
                let len = 14 + (rng.next_u64() % 1500) as usize;
                (0..len).map(|_| rng.next_u64() as u8).collect()
            })
            .collect();
        sender.send(&batch);
        counted_all(&sender, &mut counters);
    }
    // Every frame in exactly one admission counter: nothing else counted.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let counted = counters.total() - base.iter().sum::<u64>();
    assert_eq!(counted, sender.sent, "each frame counted once");
    assert!(sender.sent >= 100_000 + 2_000);
    let grown = rss_kib(switch_pid).saturating_sub(rss_before);
    assert!(grown < 64 * 1024, "esa switch grew by {grown} KiB");
    assert!(
        fabric.switch.0.try_wait().unwrap().is_none(),
        "esa switch is still running"
    );
    drop(sender);

    // 4. The switch still aggregates: quick.toml verifies again.
    let out_dir = dir.join("after");
    assert_verified(&fabric.run_quick(&out_dir), &out_dir, "external");
    drop(fabric);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Processes whose command line holds every one of `args` as an argument.
fn processes_with_args(args: &[&str]) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let words: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        if args.iter().all(|a| words.contains(&a.as_bytes())) {
            found.push(pid);
        }
    }
    found
}

/// Writes an executable script.
fn script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A stand-in for `p4c-bm2-ss` (or, named `p4c`, for `p4c --target
/// bmv2`, whose `-o` is a folder): takes their flags, writes the program
/// with the `-D` defines in front as the "JSON" (esa-switch takes P4
/// source as its device config) and the P4Info from `esa p4info`.
const FAKE_P4C: &str = r##"#!/usr/bin/env bash
set -euo pipefail
defines=() out= p4info= program= target=
while (($#)); do
    case "$1" in
        -D*) defines+=("${1#-D}") ;;
        -o) out=$2; shift ;;
        --p4runtime-files) p4info=$2; shift ;;
        --arch|--std) shift ;;
        --target) [[ $2 == bmv2 ]] || { echo "stand-in p4c: target $2" >&2; exit 2; }; target=$2; shift ;;
        -*) echo "stand-in p4c: unexpected flag $1" >&2; exit 2 ;;
        *) program=$1 ;;
    esac
    shift
done
[[ -n $out && -n $p4info && -n $program ]] || { echo "stand-in p4c: missing -o, --p4runtime-files or the program" >&2; exit 2; }
if [[ $(basename "$0") == p4c ]]; then
    [[ -n $target && -d $out ]] || { echo "stand-in p4c: needs --target bmv2 and -o FOLDER" >&2; exit 2; }
    out="$out/$(basename "$program" .p4).json"
fi
{ for d in "${defines[@]}"; do echo "#define ${d%%=*} ${d#*=}"; done; cat "$program"; } > "$out"
"$ESA_BIN" p4info -I "$(dirname "$program")" "$out" > "$p4info"
"##;

/// A stand-in for `simple_switch_grpc`: takes BMv2's flags and runs
/// `esa switch` with the same ports.
const FAKE_BMV2: &str = r#"#!/usr/bin/env bash
set -euo pipefail
args=() grpc= no_p4= thrift=
while (($#)); do
    case "$1" in
        --device-id) args+=(--device-id "$2"); shift ;;
        --no-p4) no_p4=1 ;;
        -L) shift ;;
        --log-console) ;;
        --thrift-port) thrift=$2; shift ;;
        -i) args+=(-i "$2"); shift ;;
        --) ;;
        --grpc-server-addr) grpc=$2; shift ;;
        *) echo "stand-in simple_switch_grpc: unexpected argument $1" >&2; exit 2 ;;
    esac
    shift
done
[[ -n $no_p4 && -n $grpc && -n $thrift ]] || { echo "stand-in simple_switch_grpc: expected --no-p4, --thrift-port and --grpc-server-addr" >&2; exit 2; }
echo "stand-in simple_switch_grpc: esa switch on $grpc"
exec "$ESA_BIN" switch --grpc-addr "$grpc" -I "$ESA_P4_DIR" --log-level warn "${args[@]}"
"#;

/// The real thing: `esa run quick.toml --switch bmv2` compiles esa.p4 with
/// p4c-bm2-ss, starts simple_switch_grpc on veths to the hosts'
/// namespaces, programs it over P4Runtime, verifies every job, and stops
/// the switch.
#[test]
fn quick_runs_on_real_bmv2_and_the_switch_stops_with_the_run() {
    let Some((_one, dir)) = real_bmv2("quick_runs_on_real_bmv2...", "bmv2-real") else {
        return;
    };
    let (work, out_dir) = (dir.join("work"), dir.join("out"));
    let out = bmv2_experiment(&quick(), &work, &out_dir, None, &[]);
    assert_verified(&out, &out_dir, "bmv2");
    // p4c's own output: BMv2 JSON and P4Info for the experiment's sizes.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("esa.json")).unwrap()).unwrap();
    let registers = json["register_arrays"].as_array().unwrap();
    assert!(
        registers.iter().any(|r| r["name"]
            == esa_p4::counters::slot_register(esa_p4::Arch::V1model, "slot_key")
            && r["size"] == 256),
        "quick.toml's 256-slot pool"
    );
    assert!(work.join("esa.p4info.txtpb").is_file());
    let leftover = processes_with_args(&["simple_switch_grpc", "--no-p4"]);
    assert_eq!(leftover, Vec::<u32>::new(), "BMv2 outlived the run");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A BMv2 crash under quick.toml (`--fault switch-restart`): the
/// simple_switch_grpc process is killed a second in and started again on
/// the same veths and P4Runtime address; the controller programs it again
/// and every job verifies, its chunks counted exactly once across the
/// reset.
#[test]
fn quick_on_real_bmv2_survives_a_switch_restart() {
    let Some((_one, dir)) = real_bmv2("quick_on_real_bmv2_survives...", "bmv2-restart") else {
        return;
    };
    let (work, out_dir) = (dir.join("work"), dir.join("out"));
    let fault = ["--fault", "switch-restart@1s,down=300ms"];
    let out = bmv2_experiment(&quick(), &work, &out_dir, None, &fault);
    assert_verified(&out, &out_dir, "bmv2");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let fault = &json["summary"][0]["faults"][0];
    assert_eq!(fault["fault"], "switch-restart@1000ms,down=300ms", "{json}");
    assert!(fault.get("error").is_none(), "{fault}");
    assert!(
        fault["reprogrammed_ms"].as_f64().unwrap() >= 300.0,
        "{fault}"
    );
    for j in json["jobs"].as_array().unwrap() {
        if j["switch_restarts"] == 1 {
            assert_eq!(
                j["chunks_in_switch"].as_u64().unwrap() + j["chunks_at_ps"].as_u64().unwrap(),
                j["chunks_total"].as_u64().unwrap(),
                "{j}"
            );
        }
    }
    assert!(
        json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["switch_restarts"] == 1),
        "the restart struck while no job ran: {json}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// contention at a size BMv2 carries: four jobs under ESA, ATP and
/// SwitchML on the real simple_switch_grpc, every job verified, and ESA's
/// preemption seen on BMv2.
#[test]
fn contention_runs_on_real_bmv2_under_every_variant() {
    let Some((_one, dir)) = real_bmv2("contention_runs_on_real_bmv2...", "bmv2-contention") else {
        return;
    };
    let (work, out_dir) = (dir.join("work"), dir.join("out"));
    let experiment = root().join("testbed/experiments/contention-bmv2.toml");
    let out = bmv2_experiment(&experiment, &work, &out_dir, None, &[]);
    assert_all_verified(&out, &out_dir, "bmv2", 12);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let preemptions: u64 = json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["mode"] == "esa")
        .map(|j| j["preemptions"].as_u64().unwrap())
        .sum();
    assert!(preemptions > 0, "no preemption under ESA on BMv2");
    let _ = std::fs::remove_dir_all(&dir);
}

/// For a test on the real BMv2: namespaces allowed and BMv2 found (else
/// `None`, with the reason printed), the one-at-a-time lock and a scratch
/// folder.
fn real_bmv2(
    test: &str,
    scratch_name: &str,
) -> Option<(std::sync::MutexGuard<'static, ()>, PathBuf)> {
    if !netns_enabled() {
        return None;
    }
    esa_bmv2::Tools::for_test(test, false)?;
    let one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    Some((one, scratch(scratch_name)))
}

/// Runs `esa run EXPERIMENT --switch bmv2` and `more` flags. With `stand_ins`, that folder
/// of stand-in scripts comes first on PATH, no real BMv2 or p4c is found
/// behind it (neither on PATH nor through `ESA_BMV2_DIR`), and the scripts
/// learn where `esa` and the P4 sources are.
fn bmv2_experiment(
    experiment: &Path,
    work: &Path,
    out_dir: &Path,
    stand_ins: Option<&Path>,
    more: &[&str],
) -> Output {
    let mut command = Command::new(ESA);
    command.args([
        "run",
        experiment.to_str().unwrap(),
        "--switch",
        "bmv2",
        "--work-dir",
        work.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--quiet",
    ]);
    command.args(more);
    if let Some(bin) = stand_ins {
        let rest: Vec<PathBuf> =
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .filter(|d| {
                    !d.join("p4c-bm2-ss").exists() && !d.join("simple_switch_grpc").exists()
                })
                .collect();
        let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(rest)).unwrap();
        command
            .env("PATH", path)
            .env_remove("ESA_BMV2_DIR")
            .env("ESA_BIN", ESA)
            .env("ESA_P4_DIR", root().join("p4/v1model"));
    }
    command.output().unwrap()
}

#[test]
fn the_bmv2_target_compiles_with_p4c_when_p4c_bm2_ss_is_missing() {
    bmv2_run("p4c");
}

/// `esa run quick.toml --switch bmv2` with the stand-in compiler named
/// `compiler`.
fn bmv2_run(compiler: &str) {
    if !netns_enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch(&format!("bmv2-{compiler}"));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    script(&bin.join(compiler), FAKE_P4C);
    script(&bin.join("simple_switch_grpc"), FAKE_BMV2);
    let work = dir.join("work");
    let out_dir = dir.join("out");
    let out = bmv2_experiment(&quick(), &work, &out_dir, Some(&bin), &[]);
    assert_verified(&out, &out_dir, "bmv2");
    // What the compiler wrote, and the switch's log.
    let json = std::fs::read_to_string(work.join("esa.json")).unwrap();
    assert!(json.starts_with("#define ESA_LANES 32\n#define ESA_POOL_SLOTS 256\n"));
    assert!(work.join("esa.p4info.txtpb").is_file());
    let log = std::fs::read_to_string(work.join("simple_switch_grpc.log")).unwrap();
    assert!(log.contains("stand-in simple_switch_grpc"), "{log}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("verified"), "{stdout}");
    // The switch was stopped with the run.
    let p4_dir = root().join("p4/v1model");
    // The check sees live processes: a probe is found while it runs.
    // (Until the child has exec'd, its command line is still ours.)
    let probe = Killed(Command::new("sleep").arg("30.25").spawn().unwrap());
    let seen = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(10));
        processes_with_args(&["sleep", "30.25"]).contains(&probe.0.id())
    });
    assert!(seen, "a live probe process was not found in /proc");
    drop(probe);
    let leftover = processes_with_args(&["switch", "-I", p4_dir.to_str().unwrap()]);
    assert_eq!(
        leftover,
        Vec::<u32>::new(),
        "the switch process outlived the run"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A host address somebody else holds is an error naming the host,
/// before any job is admitted (no switch is needed to see it).
#[test]
fn a_host_address_in_use_is_named_before_any_job_starts() {
    let dir = scratch("in-use");
    let port = esa_core::constants::ESA_UDP_PORT;
    let _held = std::net::UdpSocket::bind(("127.0.77.3", port)).unwrap();
    let hosts: String = (1..=6)
        .map(|n| host_entry(n, &format!("127.0.77.{n}"), None))
        .collect();
    let hosts_path = dir.join("hosts.toml");
    std::fs::write(&hosts_path, hosts).unwrap();
    // Nobody listens on the P4Runtime address: the run must stop before
    // it dials.
    let args = external_run("127.0.0.1:1", &hosts_path, &[]);
    fails_with(
        &strs(&args),
        None,
        &["host node3 cannot bind its socket", "127.0.77.3", "in use"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--out` naming a file (or a folder that cannot take files) fails before
/// any job runs, naming the path; the file is left as it was.
#[test]
fn an_output_path_that_cannot_take_the_report_fails_before_the_run() {
    let dir = scratch("out-is-a-file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("report");
    std::fs::write(&file, "keep me").unwrap();
    let quick = quick();
    let out = esa(
        &[
            "run",
            quick.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
        ],
        None,
    );
    let text = stderr(&out);
    assert!(!out.status.success());
    assert!(
        text.contains(file.to_str().unwrap()) && text.contains("exists and is not a folder"),
        "{text}"
    );
    // Nothing ran: no results table, no progress.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("verified"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
    let _ = std::fs::remove_dir_all(&dir);
}
