//! `esa controller --fabric`: one controller process programming three
//! `esa switch` processes (two leaves under a root) over one P4Runtime
//! session each, and `esa jobs` admitting a job across both leaves, listing
//! it, refusing a job it cannot place with the reason, and releasing.

use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const ESA: &str = env!("CARGO_BIN_EXE_esa");

fn free_addr() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// Children killed when the test ends, passing or not.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn(args: &[&str]) -> Child {
    Command::new(ESA)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn jobs(controller: &str, args: &[&str]) -> Output {
    Command::new(ESA)
        .args(["jobs", "--controller", controller])
        .args(args)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `GET /metrics` from the controller at `addr`.
fn get_metrics(addr: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: esa\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn one_controller_programs_three_switches_and_admits_a_job_across_them() {
    let dir = std::env::temp_dir().join(format!("esa-fabric-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut children = Children(vec![]);
    let mut fabric = String::new();
    for name in ["leaf1", "leaf2", "root"] {
        let grpc = free_addr();
        children.0.push(spawn(&[
            "switch",
            "--grpc-addr",
            &grpc,
            "-u",
            &format!("1@127.0.0.1:{}", free_addr().rsplit(':').next().unwrap()),
            "--log-level",
            "warn",
        ]));
        fabric += &format!("[[switch]]\nname = \"{name}\"\np4runtime = \"{grpc}\"\n");
    }
    for (leaf, down) in [("leaf1", 1), ("leaf2", 2)] {
        fabric += &format!(
            "[[link]]\na = {{ switch = \"{leaf}\", port = 8 }}\nb = {{ switch = \"root\", port = {down} }}\n"
        );
    }
    for (n, (host, switch, port)) in [
        ("w1", "leaf1", 1),
        ("w2", "leaf1", 2),
        ("w3", "leaf2", 1),
        ("ps", "root", 5),
    ]
    .into_iter()
    .enumerate()
    {
        fabric += &format!(
            "[[host]]\nname = \"{host}\"\nswitch = \"{switch}\"\nmac = \"02:00:00:00:00:0{}\"\n\
             ip = \"10.0.0.{}\"\nport = {port}\n",
            n + 1,
            n + 1
        );
    }
    let path = dir.join("fabric.toml");
    std::fs::write(&path, fabric).unwrap();
    let (api, metrics) = (free_addr(), free_addr());
    children.0.push(spawn(&[
        "controller",
        "--fabric",
        path.to_str().unwrap(),
        "--listen",
        &api,
        "--metrics-addr",
        &metrics,
    ]));

    // Admitted once every switch is programmed (until then: not ready).
    let deadline = Instant::now() + Duration::from_secs(60);
    let admitted = loop {
        let out = jobs(&api, &["admit", "--workers", "w1,w3,w2", "--ps", "ps"]);
        if out.status.success() {
            break text(&out);
        }
        assert!(Instant::now() < deadline, "never admitted: {}", text(&out));
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(admitted.trim(), "admitted job 1");
    let listed = text(&jobs(&api, &[]));
    // Listed by rack: leaf1's workers (rack 0), then leaf2's.
    assert!(listed.contains("w1@1,w2@2,w3@1  ps@5"), "{listed}");

    // The metrics count the job once, its counters summed over its switches.
    let exposition = get_metrics(&metrics);
    assert!(
        exposition.contains("esa_controller_jobs 1\n"),
        "{exposition}"
    );
    assert!(
        exposition.contains("esa_controller_primary 1\n"),
        "{exposition}"
    );
    assert!(
        exposition.contains("esa_job_packets_total{job=\"1\",counter=\"completed\"} 0"),
        "{exposition}"
    );

    let refused = jobs(&api, &["admit", "--workers", "w1,w3", "--ps", "w2"]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("a leaf or the root"),
        "{}",
        text(&refused)
    );

    let released = jobs(&api, &["release", "1"]);
    assert!(released.status.success(), "{}", text(&released));
    let listed = text(&jobs(&api, &[]));
    assert!(!listed.contains("w1@1,w2@2,w3@1  ps@5"), "{listed}");
    drop(children);
    let _ = std::fs::remove_dir_all(&dir);
}
