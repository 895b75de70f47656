//! The `esa worker` and `esa ps` commands in-process, over UDP on
//! 127.0.0.1, against the model switch; and their configuration errors.

use esa_core::pool::PoolConfig;
use esa_host::HostError;
use esa_host::cli::{PsCommand, WorkerCommand, run_ps, run_worker};
use esa_host::config::{ConfigError, PsSection, WorkerSection};
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::UdpTransport;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn worker_command(config: Option<&str>, worker: WorkerSection) -> WorkerCommand {
    WorkerCommand {
        config: config.map(PathBuf::from),
        worker,
        ..WorkerCommand::default()
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
        let command = PsCommand {
            config: Some(PathBuf::from(f)),
            ..PsCommand::default()
        };
        std::thread::spawn(move || run_ps(&command, stop))
    };
    let threads: Vec<_> = workers
        .iter()
        .enumerate()
        .map(|(id, addr)| {
            let args = worker_command(
                Some(&f),
                WorkerSection {
                    worker_id: Some(id as u8),
                    bind: Some(addr.to_string()),
                    ..WorkerSection::default()
                },
            );
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
        &worker_command(
            Some(f),
            WorkerSection {
                worker_id: Some(0),
                ..WorkerSection::default()
            },
        ),
        Arc::default(),
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("window") && text.contains("bad.toml"),
        "{text}"
    );

    let e = run_worker(
        &worker_command(
            None,
            WorkerSection {
                switch: Some("127.0.0.1:9".into()),
                job: Some(2),
                fan_in: Some(2),
                ..WorkerSection::default()
            },
        ),
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
        &PsCommand {
            ps: PsSection {
                switch: Some("127.0.0.1:9".into()),
                jobs: vec!["2:40".parse().unwrap()],
                ..PsSection::default()
            },
            ..PsCommand::default()
        },
        Arc::default(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("`ps.job[0].fan_in` = 40"), "{e}");
    let e = run_worker(
        &worker_command(Some("/nonexistent/esa.toml"), WorkerSection::default()),
        Arc::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot read config file /nonexistent/esa.toml")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
