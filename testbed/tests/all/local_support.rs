//! What the `esa local` tests share: free ports, a stack, admitting a job
//! through the job API, and an exact all-reduce over UDP-carried ports.

#![allow(dead_code)] // not every helper is used in every configuration

use std::net::{SocketAddr, UdpSocket};

use esa_controller::api::{JobsClient, proto};
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::worker::WorkerConfig;
use esa_host::ParameterServer;
use esa_host::addressing::switch_addr;
use esa_host::transport::{SwitchPortTransport, Transport, UdpFrameLink, attach_host};
use esa_host::worker::{Worker, WorkerOptions};
use esa_testbed::local::{LocalConfig, LocalStack};

/// Ports of the test stacks.
pub const PORTS: u16 = 4;

/// A base port with base+1..=base+PORTS free on 127.0.0.1.
pub fn free_base() -> u16 {
    // Tests of one binary run in parallel: each call starts elsewhere.
    static CALLS: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let start = 20_000 + (std::process::id() % 20_000) as u16 + call * 1009;
    (0..200u16)
        .map(|i| start.wrapping_add(i * 17) % 40_000 + 20_000)
        .find(|base| (1..=PORTS).all(|n| UdpSocket::bind(("127.0.0.1", base + n)).is_ok()))
        .expect("a free UDP port range")
}

/// A stack of [`PORTS`] ports on free addresses.
pub fn start_stack() -> LocalStack {
    LocalStack::start(LocalConfig {
        ports: PORTS,
        base_port: free_base(),
        controller: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..LocalConfig::default()
    })
    .unwrap()
}

/// A host's link to switch port `port`, sending as host `port`.
pub fn link(stack: &LocalStack, port: u16) -> SwitchPortTransport<UdpFrameLink> {
    attach_host(port, stack.config().port_addr(port), stack.config().lanes).unwrap()
}

/// Admits an esa job with workers on `workers` and its PS on `ps`.
pub fn admit(
    rt: &tokio::runtime::Runtime,
    stack: &LocalStack,
    workers: &[u32],
    ps: u32,
) -> proto::Job {
    rt.block_on(async {
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
                workers: workers.iter().map(|&w| port(w)).collect(),
                ps: Some(port(ps)),
                max_priority: 3,
                mode: proto::Mode::Esa as i32,
                slots: None,
            })
            .await
            .unwrap()
            .into_inner()
            .job
            .unwrap()
    })
}

/// One all-reduce of the job's workers and its PS, each over its UDP
/// port: every element exact, every chunk completed once, some in the
/// switch.
pub fn allreduce_exactly(stack: &LocalStack, job: &proto::Job) {
    let links = JobLinks::attach(stack, job);
    allreduce_exactly_on(stack, job, links);
}

/// A job's hosts attached to their ports: the PS's link and the workers'
/// (plain links, or any transport a test puts in a worker's place).
pub struct JobLinks<W = Link> {
    /// The PS's link.
    pub ps: Link,
    /// The workers' links, in the job's worker order.
    pub workers: Vec<W>,
}

impl JobLinks {
    /// Attaches the job's PS and workers (each says hello to its port).
    pub fn attach(stack: &LocalStack, job: &proto::Job) -> JobLinks {
        JobLinks {
            ps: link(stack, job.ps.as_ref().unwrap().port as u16),
            workers: job
                .workers
                .iter()
                .map(|p| link(stack, p.port as u16))
                .collect(),
        }
    }
}

/// A link to a switch port carried over UDP.
pub type Link = SwitchPortTransport<UdpFrameLink>;

/// The job's PS on `link`, on a thread until the returned flag is raised.
pub fn start_ps(
    job: &proto::Job,
    link: Link,
) -> (
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<Result<(), esa_host::HostError>>,
) {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut ps = ParameterServer::new(PsConfig::default(), switch_addr(), link).unwrap();
    ps.add_job(
        job.job_id as u16,
        job.workers.len() as u8,
        JobOptions::default(),
    )
    .unwrap();
    let ps_stop = stop.clone();
    (
        stop,
        std::thread::spawn(move || ps.run(&ps_stop, None, |_| {})),
    )
}

/// Worker `w` of the job on `link`, resending after 20 ms.
pub fn worker<T: Transport>(job: &proto::Job, w: u8, link: T) -> Worker<T> {
    let mut c = WorkerConfig::new(job.job_id as u16, w, job.workers.len() as u8);
    c.slot_mask = (job.slot_count - 1) as u16;
    c.rto_initial_us = 20_000;
    Worker::new(WorkerOptions::new(c, switch_addr()), link).unwrap()
}

/// [`allreduce_exactly`] on links attached already.
pub fn allreduce_exactly_on<W: Transport + 'static>(
    stack: &LocalStack,
    job: &proto::Job,
    links: JobLinks<W>,
) {
    let fan_in = job.workers.len() as u8;
    let (stop, ps_thread) = start_ps(job, links.ps);

    let n: usize = 10_007;
    let workers: Vec<_> = links
        .workers
        .into_iter()
        .enumerate()
        .map(|(w, t)| {
            let w = w as u8;
            let mut worker = worker(job, w, t);
            std::thread::spawn(move || {
                let mut data: Vec<f32> = (0..n)
                    .map(|i| (i % 1000) as f32 * f32::from(w + 1))
                    .collect();
                let stats = worker.allreduce(&mut data).unwrap();
                (data, stats)
            })
        })
        .collect();
    // 1 + 2 + ... + fan_in times each value.
    let factor = f32::from(fan_in) * f32::from(fan_in + 1) / 2.0;
    for w in workers {
        let (data, stats) = w.join().unwrap();
        for (i, x) in data.iter().enumerate() {
            assert_eq!(*x, (i % 1000) as f32 * factor, "element {i}");
        }
        assert_eq!(
            stats.results_from_switch + stats.results_from_ps,
            n.div_ceil(stack.config().lanes) as u64
        );
        assert!(stats.results_from_switch > 0);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    ps_thread.join().unwrap().unwrap();
}
