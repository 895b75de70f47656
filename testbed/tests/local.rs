//! `esa local`: the switch with UDP-carried ports and the controller, with
//! a job admitted through the job API and hosts attached over UDP as an
//! `esa_torch` rank attaches: every element of the sum exact, and the
//! chunks completed in the switch.

use std::net::{SocketAddr, UdpSocket};

use esa_controller::api::{JobsClient, proto};
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::worker::WorkerConfig;
use esa_host::ParameterServer;
use esa_host::addressing::{port_host, switch_addr};
use esa_host::transport::{SwitchPortTransport, UdpFrameLink};
use esa_host::worker::{Worker, WorkerOptions};
use esa_testbed::local::{LocalConfig, LocalStack};

const PORTS: u16 = 4;

/// A base port with base+1..=base+PORTS free on 127.0.0.1.
fn free_base() -> u16 {
    let start = 20_000 + (std::process::id() % 20_000) as u16;
    (0..200u16)
        .map(|i| start.wrapping_add(i * 17) % 40_000 + 20_000)
        .find(|base| (1..=PORTS).all(|n| UdpSocket::bind(("127.0.0.1", base + n)).is_ok()))
        .expect("a free UDP port range")
}

fn link(stack: &LocalStack, port: u16) -> SwitchPortTransport<UdpFrameLink> {
    let l = UdpFrameLink::connect(
        "127.0.0.1:0".parse().unwrap(),
        stack.config().port_addr(port),
    )
    .unwrap();
    SwitchPortTransport::new(l, port_host(port), stack.config().lanes)
}

#[test]
fn a_job_through_esa_local_sums_exactly_in_the_switch() {
    let stack = LocalStack::start(LocalConfig {
        ports: PORTS,
        base_port: free_base(),
        controller: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..LocalConfig::default()
    })
    .unwrap();
    let describe = stack.describe();
    assert!(
        describe.contains(&stack.config().port_addr(1).to_string())
            && describe.contains(&stack.controller().to_string()),
        "{describe}"
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let job = rt.block_on(async {
        let mut client = JobsClient::connect(format!("http://{}", stack.controller()))
            .await
            .unwrap();
        let port = |port| proto::Endpoint {
            host: String::new(),
            port,
        };
        client
            .admit_job(proto::AdmitJobRequest {
                job_id: 0,
                workers: vec![port(1), port(2), port(3)],
                ps: Some(port(4)),
                max_priority: 3,
                mode: proto::Mode::Esa as i32,
                slots: None,
            })
            .await
            .unwrap()
            .into_inner()
            .job
            .unwrap()
    });
    let job_id = job.job_id as u16;

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut ps = ParameterServer::new(PsConfig::default(), switch_addr(), link(&stack, 4)).unwrap();
    ps.add_job(job_id, 3, JobOptions::default()).unwrap();
    let ps_stop = stop.clone();
    let ps_thread = std::thread::spawn(move || ps.run(&ps_stop, None, |_| {}));

    let n: usize = 10_007;
    let workers: Vec<_> = (0..3u8)
        .map(|w| {
            let mut c = WorkerConfig::new(job_id, w, 3);
            c.slot_mask = (job.slot_count - 1) as u16;
            c.rto_initial_us = 20_000;
            let t = link(&stack, u16::from(w) + 1);
            std::thread::spawn(move || {
                let mut worker = Worker::new(WorkerOptions::new(c, switch_addr()), t).unwrap();
                let mut data: Vec<f32> = (0..n)
                    .map(|i| (i % 1000) as f32 * f32::from(w + 1))
                    .collect();
                let stats = worker.allreduce(&mut data).unwrap();
                (data, stats)
            })
        })
        .collect();
    for w in workers {
        let (data, stats) = w.join().unwrap();
        for (i, x) in data.iter().enumerate() {
            assert_eq!(*x, (i % 1000) as f32 * 6.0, "element {i}");
        }
        assert_eq!(
            stats.results_from_switch + stats.results_from_ps,
            n.div_ceil(32) as u64
        );
        assert!(stats.results_from_switch > 0);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    ps_thread.join().unwrap().unwrap();
    let ports: Vec<SocketAddr> = (1..=PORTS).map(|p| stack.config().port_addr(p)).collect();
    stack.stop();
    // Stopped means the switch is gone and its ports are free again.
    for p in ports {
        UdpSocket::bind(p).unwrap_or_else(|e| panic!("{p} still taken after stop: {e}"));
    }
}
