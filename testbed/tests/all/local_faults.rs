//! Faults and strangers on UDP-carried ports (`esa local`, as `esa_torch`
//! ranks use them).
//!
//! A switch restart under a running job: the switch is crashed mid-job and
//! comes back empty half a second later on the same ports. The hosts
//! announce themselves again (the parameter server too, which only
//! listens), the controller pushes the pipeline and the job back, and every
//! iteration before, across and after the restart sums exactly — the later
//! ones in the switch again.
//!
//! A stranger on the network writing to a job's ports (a hello to take a
//! port over, forged frames): each port stays its host's, the stranger
//! receives nothing, its datagrams are counted, and the job sums exactly.
//!
//! A host on a job's own port forging a peer's DATA (worker 0's host
//! sending contributions in worker 1's name, ahead of worker 1's own):
//! the switch drops them as `drop_spoofed`, and the job sums exactly.

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use std::net::SocketAddr;

use esa_controller::api::{JobsClient, proto};
use esa_core::wire::{EsaRepr, Flags, FrameRepr, PacketType, ParsedFrame};
use esa_host::addressing::port_host;
use esa_host::transport::{FrameLink, LinkClosed, SwitchPortTransport, Transport, UdpFrameLink};
use esa_host::worker::AllreduceStats;

use crate::local_support::{
    JobLinks, admit, allreduce_exactly_on, link, start_ps, start_stack, worker,
};

/// Iterations each worker runs; the restart comes after the second.
const ITERATIONS: usize = 16;
/// Elements per all-reduce (a few thousand chunks: the restart lands
/// inside one).
const ELEMENTS: usize = 100_003;

#[test]
fn a_job_on_udp_ports_survives_a_switch_restart() {
    let mut stack = start_stack();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let job = admit(&rt, &stack, &[1, 2, 3], 4);
    let fan_in = job.workers.len() as u8;
    let links = JobLinks::attach(&stack, &job);
    let (stop, ps_thread) = start_ps(&job, links.ps);

    let (second_done, restart_now) = mpsc::channel();
    let workers: Vec<_> = links
        .workers
        .into_iter()
        .enumerate()
        .map(|(w, t)| {
            let w = w as u8;
            let mut worker = worker(&job, w, t);
            let second_done = second_done.clone();
            std::thread::spawn(move || {
                let mut all: Vec<AllreduceStats> = Vec::new();
                for it in 0..ITERATIONS {
                    let mut data: Vec<f32> = (0..ELEMENTS)
                        .map(|i| ((i + it) % 1000) as f32 * f32::from(w + 1))
                        .collect();
                    let stats = worker
                        .allreduce(&mut data)
                        .unwrap_or_else(|e| panic!("worker {w}, iteration {it}: {e}"));
                    let factor = f32::from(fan_in) * f32::from(fan_in + 1) / 2.0;
                    for (i, x) in data.iter().enumerate() {
                        assert_eq!(*x, ((i + it) % 1000) as f32 * factor, "iteration {it}");
                    }
                    all.push(stats);
                    if it == 1 && w == 0 {
                        second_done.send(()).unwrap();
                    }
                }
                all
            })
        })
        .collect();
    drop(second_done);
    restart_now.recv().unwrap();
    let hellos_before = stack.port_stats(4).unwrap().hellos;
    assert!(hellos_before >= 1, "the PS said hello to the first switch");
    let down = Instant::now();
    stack.restart_switch(Duration::from_millis(500)).unwrap();
    eprintln!("switch back after {:?}", down.elapsed());

    let chunks = ELEMENTS.div_ceil(stack.config().lanes) as u64;
    for (w, handle) in workers.into_iter().enumerate() {
        let all = handle.join().unwrap();
        assert_eq!(all.len(), ITERATIONS);
        for (it, s) in all.iter().enumerate() {
            assert_eq!(
                s.results_from_switch + s.results_from_ps,
                chunks,
                "worker {w}, iteration {it}: every chunk once"
            );
        }
        let stall = all.iter().map(|s| s.elapsed).max().unwrap();
        eprintln!("worker {w}: longest iteration {stall:?}");
        let last = all.last().unwrap();
        assert!(
            last.results_from_switch > 0,
            "worker {w}: the last iteration aggregated in the restarted switch"
        );
    }
    // The restarted switch learned the PS's port from its own hello: the
    // first switch's were gone with it.
    let ps_port = stack.port_stats(4).unwrap();
    assert!(ps_port.hellos >= 1, "{ps_port:?}");
    stop.store(true, Ordering::Relaxed);
    ps_thread.join().unwrap().unwrap();
}

#[test]
fn strangers_cannot_take_a_job_s_ports_or_write_into_its_sum() {
    let stack = start_stack();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let job = admit(&rt, &stack, &[1, 2, 3], 4);
    let links = JobLinks::attach(&stack, &job);
    for port in 1..=4 {
        wait_until(|| stack.port_stats(port).unwrap().hellos >= 1);
    }
    // The stranger says hello to a worker's port and to the PS's, then
    // sends each a frame of the job, addressed as that port's host.
    let stranger = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    for port in [1u16, 4] {
        let to = stack.config().port_addr(port);
        stranger.send_to(&[], to).unwrap();
        stranger
            .send_to(&forged_data(port, job.job_id as u16), to)
            .unwrap();
    }
    for port in [1u16, 4] {
        wait_until(|| stack.port_stats(port).unwrap().strangers == 2);
    }
    allreduce_exactly_on(&stack, &job, links);
    stranger
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut buf = [0u8; 2048];
    assert!(
        stranger.recv_from(&mut buf).is_err(),
        "the stranger received a frame of the job"
    );
    for port in [1u16, 4] {
        let s = stack.port_stats(port).unwrap();
        assert_eq!(s.strangers, 2, "port {port}: {s:?}");
    }
}

#[test]
fn a_host_cannot_send_in_another_worker_s_name() {
    let stack = start_stack();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let job = admit(&rt, &stack, &[1, 2, 3], 4);
    let lanes = stack.config().lanes;
    // Worker 0's host forges worker 1's DATA on its own link.
    let forger = ForgingLink {
        link: UdpFrameLink::connect(
            SocketAddr::from(([0, 0, 0, 0], 0)),
            stack.config().port_addr(1),
        )
        .unwrap(),
        lanes,
        left: FORGED,
    };
    let mut workers: Vec<Box<dyn Transport>> = vec![Box::new(SwitchPortTransport::new(
        forger,
        port_host(1),
        lanes,
    ))];
    workers.extend([2, 3].map(|port| Box::new(link(&stack, port)) as Box<dyn Transport>));
    let links = JobLinks {
        ps: link(&stack, 4),
        workers,
    };
    allreduce_exactly_on(&stack, &job, links);
    let spoofed = || {
        rt.block_on(async {
            let mut client = JobsClient::connect(format!("http://{}", stack.controller()))
                .await
                .unwrap();
            let stats = client
                .job_stats(proto::JobStatsRequest {
                    job_ids: vec![job.job_id],
                })
                .await
                .unwrap()
                .into_inner();
            let counter = |name: &str| {
                stats.jobs[0]
                    .counters
                    .iter()
                    .find(|c| c.name == name)
                    .map_or(0, |c| c.packets)
            };
            (counter("drop_spoofed"), counter("drop_bad_port"))
        })
    };
    wait_until(|| spoofed().0 >= u64::from(FORGED));
    assert_eq!(spoofed(), (u64::from(FORGED), 0));
}

/// Forged DATA frames worker 0's host sends in worker 1's name.
const FORGED: u32 = 16;

/// Worker 0's link, which puts a forged DATA of worker 1 (every lane 5)
/// before each of worker 0's first [`FORGED`] first copies: aggregated,
/// it would take worker 1's place in the chunk and spoil its sum.
#[derive(Debug)]
struct ForgingLink {
    link: UdpFrameLink,
    lanes: usize,
    left: u32,
}

impl FrameLink for ForgingLink {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        if self.left > 0
            && let Ok(parsed) = ParsedFrame::parse(frame, self.lanes)
            && parsed.esa.packet_type == PacketType::Data
            && !parsed.esa.flags.contains(Flags::RESEND)
        {
            let forged = FrameRepr {
                src_mac: parsed.eth.src,
                dst_mac: parsed.eth.dst,
                src_ip: parsed.ip.src,
                dst_ip: parsed.ip.dst,
                esa: EsaRepr {
                    worker: 1,
                    bitmap: 1 << 1,
                    ..parsed.esa
                },
            }
            .emit(&vec![5; self.lanes], self.lanes);
            self.link.send_frame(&forged)?;
            self.left -= 1;
        }
        self.link.send_frame(frame)
    }

    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        self.link.try_recv_frame()
    }

    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        self.link.recv_frame_timeout(timeout)
    }
}

/// A DATA frame of `job` as port `port`'s host sends it: chunk 0, worker
/// 0, every lane 5 (aggregated, it would spoil the first chunk's sum).
fn forged_data(port: u16, job: u16) -> Vec<u8> {
    use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, PacketType};
    let host = esa_host::addressing::port_host(port);
    let lanes = 32;
    FrameRepr {
        src_mac: host.mac,
        dst_mac: host.gateway_mac,
        src_ip: host.ip,
        dst_ip: Ipv4Addr(esa_host::addressing::SWITCH_IP.octets()),
        esa: EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::default(),
            slot: 0,
            key: Key::new(0, job, 0),
            bitmap: 1,
            fan_in: 3,
            count: 1,
            exponent: 16,
            worker: 0,
        },
    }
    .emit(&[5; 32], lanes)
}

fn wait_until(mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < end, "timed out");
        std::thread::sleep(Duration::from_millis(10));
    }
}
