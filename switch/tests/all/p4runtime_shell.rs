//! Interop with p4runtime-shell (PyPI `p4runtime-shell`), the usual BMv2
//! client: it sets the pipeline (P4Info text from `esa p4info`, the P4
//! source as the device config), inserts entries and a multicast group,
//! reads them back and sees ALREADY_EXISTS on a duplicate; then packets
//! check the entries took effect.
//!
//! Opt-in: `ESA_P4RT_SHELL=1`; the interpreter is `ESA_P4RT_PYTHON`
//! (default `python3`) and must have `p4runtime-shell` installed, e.g.
//! `python3 -m venv /tmp/p4rt-shell-venv &&
//! /tmp/p4rt-shell-venv/bin/pip install p4runtime-shell`.

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// A hung client (say, a stream thread left open after an exception) fails
/// the test instead of hanging it.
const SHELL_DEADLINE: Duration = Duration::from_secs(120);

fn wait_with_deadline(mut child: Child, deadline: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "p4runtime-shell did not finish in {deadline:?}\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p4runtime_shell_programs_the_switch() {
    if std::env::var("ESA_P4RT_SHELL").as_deref() != Ok("1") {
        eprintln!("note: p4runtime-shell test skipped (set ESA_P4RT_SHELL=1 and ESA_P4RT_PYTHON)");
        return;
    }
    let python = std::env::var("ESA_P4RT_PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = std::env::temp_dir().join(format!("esa-p4rt-shell-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p4info_path = dir.join("l2_switch.p4info.txt");
    let ast = p4sim::front::parse_program(&l2_path(), &[]).unwrap();
    std::fs::write(&p4info_path, p4sim::p4info::p4info_text(&ast).unwrap()).unwrap();

    let h = Harness::start(&[1, 2, 3, 4], None, vec![]).await;
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/p4rt_shell.py");
    let addr = h.addr.to_string();
    let out = tokio::task::spawn_blocking(move || {
        let child = Command::new(python)
            .arg(script)
            .arg(addr)
            .arg(&p4info_path)
            .arg(l2_path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_with_deadline(child, SHELL_DEADLINE)
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("OK"),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);

    let f = frame([0, 0, 0, 0, 0, 0xb], [0, 0, 0, 0, 0, 0xa], 0x88b5, &[1; 46]);
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(2).recv_timeout(TIMEOUT), Some(f));
    let b = frame([0xff; 6], [0, 0, 0, 0, 0, 0xa], 0x88b5, &[2; 46]);
    h.port(1).send(&b).unwrap();
    assert_eq!(h.port(3).recv_timeout(TIMEOUT), Some(b.clone()));
    assert_eq!(h.port(4).recv_timeout(TIMEOUT), Some(b));
}
