//! Faults across processes: `esa local` (switch + controller), `esa ps`
//! and `esa worker` as separate processes attached over UDP-carried ports,
//! one of them killed with SIGKILL midway. The survivors end within a
//! bound with an error that names the job and says what to look for, and
//! no iteration is reported exact after the kill that was not.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, UdpSocket};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ESA: &str = env!("CARGO_BIN_EXE_esa");
const PORTS: u16 = 4;

/// Output lines of a child, read on a thread.
struct Proc {
    name: &'static str,
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Proc {
    fn spawn(name: &'static str, args: &[&str]) -> Proc {
        let mut child = Command::new(ESA)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (tx, lines) = mpsc::channel();
        for out in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Proc {
            name,
            child,
            lines,
            seen: vec![],
        }
    }

    /// Waits until a line contains `text` (or panics with what was seen).
    fn wait_for(&mut self, text: &str, within: Duration) -> String {
        let end = Instant::now() + within;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "{}: no line with {text:?} within {within:?}; saw:\n{}",
                    self.name,
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Waits for the process to exit; its status and every line it wrote.
    fn exit_within(&mut self, within: Duration) -> (std::process::ExitStatus, Vec<String>) {
        let end = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(50));
                self.seen.extend(self.lines.try_iter());
                return (status, self.seen.clone());
            }
            assert!(
                Instant::now() < end,
                "{} still running {within:?} after the kill; saw:\n{}",
                self.name,
                self.seen.join("\n")
            );
            self.seen.extend(self.lines.try_iter());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_base(salt: u16) -> u16 {
    let start = 20_000 + (std::process::id() % 20_000) as u16 + salt * 1013;
    (0..200u16)
        .map(|i| start.wrapping_add(i * 37) % 40_000 + 20_000)
        .find(|base| (1..=PORTS).all(|n| UdpSocket::bind(("127.0.0.1", base + n)).is_ok()))
        .expect("a free UDP port range")
}

struct Cluster {
    local: Proc,
    controller: String,
    base: u16,
    job: String,
}

/// `esa local` with a job of workers on ports 1 and 2, its PS on 3.
fn cluster(salt: u16, mode: &str) -> Cluster {
    let base = free_base(salt);
    let controller = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let mut local = Proc::spawn(
        "esa local",
        &[
            "local",
            "--ports",
            &PORTS.to_string(),
            "--base-port",
            &base.to_string(),
            "--controller",
            &controller,
        ],
    );
    local.wait_for("ready", Duration::from_secs(120));
    let out = Command::new(ESA)
        .args([
            "jobs",
            "--controller",
            &controller,
            "admit",
            "--workers",
            "1,2",
            "--ps",
            "3",
            "--mode",
            mode,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let job = text
        .trim()
        .strip_prefix("admitted job ")
        .unwrap_or_else(|| panic!("{text}"))
        .to_string();
    Cluster {
        local,
        controller,
        base,
        job,
    }
}

impl Cluster {
    fn port(&self, n: u16) -> String {
        format!("{n}@127.0.0.1:{}", self.base + n)
    }

    fn ps(&self, mode: &str) -> Proc {
        let mut ps = Proc::spawn(
            "esa ps",
            &[
                "ps",
                "--udp-port",
                &self.port(3),
                "--job",
                &format!("{}:2:{mode}", self.job),
            ],
        );
        ps.wait_for("esa ps: on", Duration::from_secs(30));
        ps
    }

    fn worker(&self, id: u8, name: &'static str) -> Proc {
        Proc::spawn(
            name,
            &[
                "worker",
                "--udp-port",
                &self.port(u16::from(id) + 1),
                "--job",
                &self.job,
                "--fan-in",
                "2",
                "--worker-id",
                &id.to_string(),
                "--iterations",
                "100000",
                "--elements",
                "4096",
                "--rto-initial-us",
                "20000",
                "--rto-max-us",
                "200000",
                "--max-retries",
                "20",
            ],
        )
    }
}

/// The survivor ended with the job's "no RESULT" error, and every
/// iteration it reported was exact.
fn check_survivor(p: &mut Proc, job: &str) {
    let (status, lines) = p.exit_within(Duration::from_secs(30));
    assert!(!status.success(), "{}: exited 0 after the kill", p.name);
    let all = lines.join("\n");
    assert!(
        all.contains(&format!("job {job}: no RESULT for chunk seq")),
        "{}: {all}",
        p.name
    );
    assert!(!all.contains("WRONG"), "{all}");
    assert!(
        !all.contains("summary:"),
        "no summary claims the run finished: {all}"
    );
}

#[test]
fn killing_a_worker_ends_the_other_with_a_clear_error() {
    let c = cluster(0, "esa");
    let _ps = c.ps("esa");
    let mut w0 = c.worker(0, "worker 0");
    let mut w1 = c.worker(1, "worker 1");
    w0.wait_for("exact", Duration::from_secs(60));
    w1.wait_for("exact", Duration::from_secs(60));
    w1.kill();
    check_survivor(&mut w0, &c.job);
    drop(c.local);
    let _ = c.controller;
}

#[test]
fn killing_the_ps_of_an_atp_job_ends_its_workers_with_a_clear_error() {
    // ATP completes chunks at the PS: without it no result comes back.
    let c = cluster(1, "atp");
    let mut ps = c.ps("atp");
    let mut w0 = c.worker(0, "worker 0");
    let mut w1 = c.worker(1, "worker 1");
    w0.wait_for("exact", Duration::from_secs(60));
    w1.wait_for("exact", Duration::from_secs(60));
    ps.kill();
    check_survivor(&mut w0, &c.job);
    check_survivor(&mut w1, &c.job);
}

#[test]
fn killing_the_switch_ends_the_workers_with_a_clear_error() {
    let mut c = cluster(2, "esa");
    let _ps = c.ps("esa");
    let mut w0 = c.worker(0, "worker 0");
    let mut w1 = c.worker(1, "worker 1");
    w0.wait_for("exact", Duration::from_secs(60));
    w1.wait_for("exact", Duration::from_secs(60));
    c.local.kill();
    check_survivor(&mut w0, &c.job);
    check_survivor(&mut w1, &c.job);
}

fn wait_for_namespaces(pid: u32) {
    let end = Instant::now() + Duration::from_secs(120);
    while esa_netns::namespaces_of(pid).is_empty() {
        assert!(Instant::now() < end, "esa run {pid} made no namespaces");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `esa run` on the namespace fabric: SIGINT removes its namespaces and
/// exits 130; after a SIGKILL they stay, and the next run removes them.
#[test]
fn esa_run_cleans_up_after_sigint_and_after_sigkill() {
    if !esa_netns::tests_enabled("namespace test") {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let quick = root.join("testbed/experiments/quick.toml");
    let out = std::env::temp_dir().join(format!("esa-kill-run-{}", std::process::id()));
    let run = |name: &str| {
        Command::new(ESA)
            .args([
                "run",
                quick.to_str().unwrap(),
                "--fabric",
                "netns",
                "--quiet",
                "--out",
            ])
            .arg(out.join(name))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };

    let mut interrupted = run("sigint");
    wait_for_namespaces(interrupted.id());
    let status = Command::new("kill")
        .args(["-INT", &interrupted.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = interrupted.wait().unwrap().code();
    assert_eq!(code, Some(130), "SIGINT exits 130");
    assert_eq!(
        esa_netns::namespaces_of(interrupted.id()),
        Vec::<String>::new()
    );

    let mut killed = run("sigkill");
    wait_for_namespaces(killed.id());
    killed.kill().unwrap();
    killed.wait().unwrap();
    let left = esa_netns::namespaces_of(killed.id());
    assert!(!left.is_empty(), "SIGKILL leaves the namespaces behind");
    // The next run sweeps namespaces whose process is gone.
    let next = run("next").wait_with_output().unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert_eq!(
        esa_netns::namespaces_of(killed.id()),
        Vec::<String>::new(),
        "left: {left:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// An `esa switch` process on the veth ends of three host namespaces, a
/// hosts file listing them, and experiment files for one job of two
/// workers and a PS: `long.toml`, long enough to be stopped midway, and
/// `short.toml`. The switch stops before the namespaces go (field order).
struct ExternalSwitch {
    switch: Proc,
    grpc: String,
    hosts_path: std::path::PathBuf,
    dir: std::path::PathBuf,
    #[expect(dead_code, reason = "held for its Drop: removes the namespaces")]
    namespaces: esa_testbed::netns::Namespaces,
}

impl ExternalSwitch {
    fn start(name: &str) -> ExternalSwitch {
        use esa_testbed::netns::{NamespaceHost, Namespaces, SwitchAddress};
        let dir = std::env::temp_dir().join(format!("esa-kill-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (file, iterations) in [("long", 100_000), ("short", 20)] {
            std::fs::write(
                dir.join(format!("{file}.toml")),
                format!(
                    "name = \"{file}\"\n[switch]\nlanes = 32\npool_slots = 256\n\
                     [[jobs]]\nname = \"{file}\"\nworkers = 2\nmode = \"esa\"\n\
                     gradient_elems = 65536\niterations = {iterations}\n"
                ),
            )
            .unwrap();
        }
        let mac = |n: u16| [0x02, 0, 0, 0, 0x78, n as u8];
        let ip = |n: u16| std::net::Ipv4Addr::new(10, 8, 0, n as u8);
        let wanted: Vec<NamespaceHost> = (1..=3)
            .map(|n| NamespaceHost {
                port: n,
                mac: mac(n),
                ip: Some(ip(n)),
                loss: 0.0,
            })
            .collect();
        let switch_ip = std::net::Ipv4Addr::new(10, 8, 255, 254);
        let namespaces = Namespaces::create(
            &wanted,
            Some(SwitchAddress {
                ip: switch_ip,
                mac: [0x02, 0, 0, 0, 0xff, 0xfe],
            }),
        )
        .unwrap();
        let mut hosts = format!("switch_ip = \"{switch_ip}\"\n");
        for n in 1..=3u16 {
            let m = mac(n).map(|b| format!("{b:02x}")).join(":");
            hosts += &format!(
                "[[host]]\nname = \"node{n}\"\nmac = \"{m}\"\nip = \"{}\"\nport = {n}\nnetns = \"{}\"\n",
                ip(n),
                namespaces.namespace(n).unwrap()
            );
        }
        let hosts_path = dir.join("hosts.toml");
        std::fs::write(&hosts_path, hosts).unwrap();
        let grpc = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().to_string()
        };
        let mut switch_args = vec![
            "switch".to_string(),
            "--grpc-addr".into(),
            grpc.clone(),
            "--log-level".into(),
            "warn".into(),
        ];
        for (port, name) in namespaces.interfaces() {
            switch_args.push("-i".into());
            switch_args.push(format!("{port}@{name}"));
        }
        let switch_args: Vec<&str> = switch_args.iter().map(String::as_str).collect();
        let switch = Proc::spawn("esa switch", &switch_args);
        ExternalSwitch {
            switch,
            grpc,
            hosts_path,
            dir,
            namespaces,
        }
    }

    /// `esa run EXPERIMENT.toml --switch external` on this switch, its
    /// report in `out/EXPERIMENT`.
    fn run(&self, experiment: &str) -> Proc {
        let file = self.dir.join(format!("{experiment}.toml"));
        let out_dir = self.out_dir(experiment);
        Proc::spawn(
            "esa run",
            &[
                "run",
                file.to_str().unwrap(),
                // long.toml is estimated at hours: it is stopped midway.
                "--yes",
                "--switch",
                "external",
                "--p4runtime",
                &self.grpc,
                "--hosts",
                self.hosts_path.to_str().unwrap(),
                "--out",
                out_dir.to_str().unwrap(),
            ],
        )
    }

    fn out_dir(&self, experiment: &str) -> std::path::PathBuf {
        self.dir.join("out").join(experiment)
    }
}

impl Drop for ExternalSwitch {
    fn drop(&mut self) {
        self.switch.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `esa run --switch external` against an `esa switch` process on veth
/// ports, hosts in namespaces: the switch is killed with SIGKILL while the
/// job runs. `esa run` ends within a bound, fails, says the switch is gone
/// (naming its P4Runtime address), and writes no report.
#[test]
fn killing_an_external_switch_ends_esa_run_with_a_clear_error() {
    if !esa_netns::tests_enabled("namespace test") {
        return;
    }
    let mut external = ExternalSwitch::start("external");
    let grpc = external.grpc.clone();
    let mut run = external.run("long");
    // Progress lines come every 2 s: the job is running and has completed
    // chunks in the switch.
    run.wait_for("iterations (running)", Duration::from_secs(120));
    external.switch.kill();
    let killed = Instant::now();
    let (status, lines) = run.exit_within(Duration::from_secs(60));
    let all = lines.join("\n");
    assert!(!status.success(), "esa run exited 0 after the kill: {all}");
    assert!(
        all.contains(&grpc),
        "the error names the switch's P4Runtime address {grpc}: {all}"
    );
    assert!(!all.contains("WRONG"), "{all}");
    assert!(all.contains("is gone"), "{all}");
    assert!(
        !external.out_dir("long").join("report.json").exists(),
        "a stopped run writes no report: {all}"
    );
    eprintln!(
        "esa run ended {:?} after the kill:\n{all}",
        killed.elapsed()
    );
}

/// `esa run --switch external` stopped by SIGINT, then by SIGTERM, while
/// its job runs: each exits 130 within a bound saying it released its
/// jobs, and writes no report; the switch, which outlives them, holds no
/// job, so the next run on it (job 1 again) is admitted and verifies.
#[test]
fn an_interrupted_external_run_releases_its_job_for_the_next() {
    if !esa_netns::tests_enabled("namespace test") {
        return;
    }
    let external = ExternalSwitch::start("interrupted");
    for signal in ["-INT", "-TERM"] {
        let mut run = external.run("long");
        run.wait_for("iterations (running)", Duration::from_secs(120));
        let sent = Command::new("kill")
            .args([signal, &run.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let (status, lines) = run.exit_within(Duration::from_secs(30));
        let all = lines.join("\n");
        assert_eq!(status.code(), Some(130), "kill {signal}: {all}");
        assert!(all.contains("admitted jobs released"), "{all}");
        assert!(!all.contains("WRONG"), "{all}");
        assert!(
            !external.out_dir("long").join("report.json").exists(),
            "an interrupted run writes no report: {all}"
        );
    }
    let mut next = external.run("short");
    let (status, lines) = next.exit_within(Duration::from_secs(120));
    let all = lines.join("\n");
    let report = std::fs::read_to_string(external.out_dir("short").join("report.json"));
    assert!(status.success(), "the next run failed: {all}\n{report:?}");
    assert!(!all.contains("already admitted"), "{all}");
    assert!(report.unwrap().contains("\"verified\": true"), "{all}");
}
