//! The `esa worker` and `esa ps` commands in-process, over UDP on
//! 127.0.0.1, against the model switch; and their configuration errors.

use clap::Parser;
use esa_core::pool::PoolConfig;
use esa_host::HostError;
use esa_host::cli::{PsArgs, WorkerArgs, run_ps, run_worker};
use esa_host::config::ConfigError;
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::UdpTransport;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Parser)]
enum Cmd {
    Worker(WorkerArgs),
    Ps(PsArgs),
}

fn worker_args(args: &[&str]) -> WorkerArgs {
    match Cmd::parse_from([&["esa", "worker"], args].concat()) {
        Cmd::Worker(a) => a,
        Cmd::Ps(_) => unreachable!(),
    }
}

fn ps_args(args: &[&str]) -> PsArgs {
    match Cmd::parse_from([&["esa", "ps"], args].concat()) {
        Cmd::Ps(a) => a,
        Cmd::Worker(_) => unreachable!(),
    }
}

/// A port that was free a moment ago.
fn free_addr() -> SocketAddr {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

#[test]
fn worker_and_ps_commands_complete_a_job_over_udp() {
    let workers = [free_addr(), free_addr()];
    let ps = free_addr();
    let mut switch = ModelSwitch::new(
        PoolConfig::default(),
        UdpTransport::bind(crate::support::localhost0()).unwrap(),
    )
    .unwrap();
    switch
        .add_job(ModelJob::new(2, workers.to_vec(), ps))
        .unwrap();
    let switch = switch.spawn();
    let sw = switch.addr().to_string();

    let dir = std::env::temp_dir().join(format!("esa-host-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("job.toml");
    std::fs::write(
        &file,
        format!(
            "[worker]\nswitch = \"{sw}\"\njob = 2\nfan_in = 2\nrto_initial_us = 5000\n\
             [train]\niterations = 3\nelements = 5000\nlinger_ms = 300\n\
             [ps]\nswitch = \"{sw}\"\nbind = \"{ps}\"\nduration_s = 60\n\
             [[ps.job]]\nid = 2\nfan_in = 2\n"
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap().to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let ps_thread = {
        let (f, stop) = (f.clone(), Arc::clone(&stop));
        std::thread::spawn(move || run_ps(&ps_args(&["--config", &f]), stop))
    };
    let threads: Vec<_> = workers
        .iter()
        .enumerate()
        .map(|(id, addr)| {
            let args = worker_args(&[
                "--config",
                &f,
                "--worker-id",
                &id.to_string(),
                "--bind",
                &addr.to_string(),
            ]);
            let stop = Arc::new(AtomicBool::new(false));
            std::thread::spawn(move || run_worker(&args, stop))
        })
        .collect();
    for t in threads {
        let summary = t.join().unwrap().unwrap();
        assert_eq!((summary.iterations, summary.wrong), (3, 0));
        assert!(!summary.interrupted);
    }
    // What SIGINT does (the esa binary raises the flag it passed)
    stop.store(true, Ordering::Relaxed);
    ps_thread.join().unwrap().unwrap();
    let switch = switch.stop().unwrap();
    assert!(switch.counters(2).data_rx >= 2 * 3 * 5000_u64.div_ceil(32));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn commands_report_bad_configuration_by_key() {
    let dir = std::env::temp_dir().join(format!("esa-host-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "[worker]\nswitch = \"127.0.0.1:9\"\njob = 2\nfan_in = 2\nwindow = \"big\"\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let e = run_worker(
        &worker_args(&["--config", f, "--worker-id", "0"]),
        Arc::default(),
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("window") && text.contains("bad.toml"),
        "{text}"
    );

    let e = run_worker(
        &worker_args(&["--switch", "127.0.0.1:9", "--job", "2", "--fan-in", "2"]),
        Arc::default(),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        HostError::Config(ConfigError::Missing {
            key: "worker.worker_id",
            ..
        })
    ));
    let e = run_ps(
        &ps_args(&["--switch", "127.0.0.1:9", "--job", "2:40"]),
        Arc::default(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("`ps.job[0].fan_in` = 40"), "{e}");
    let e = run_worker(
        &worker_args(&["--config", "/nonexistent/esa.toml"]),
        Arc::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot read config file /nonexistent/esa.toml")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
