//! Malformed frames into `esa local`'s switch through a UDP-carried port:
//! every truncation of a valid ESA frame, ESA headers with random field
//! values, and 100,000 random frames. The switch keeps running with
//! bounded memory, counts every frame in its admission counters (not ESA,
//! malformed, unknown job, or a per-job drop), and a job all-reduced
//! through it afterwards is still exact.
//!
//! Its own test binary: it measures this process's resident memory.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use crate::local_support::{admit, allreduce_exactly, start_stack};
use esa_controller::Pipeline;
use esa_core::constants::esa_frame_len;
use esa_core::rng::Rng;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, PacketType};
use esa_host::addressing::{SWITCH_IP, port_host};
use esa_p4::{Arch, counters};
use esa_testbed::local::LocalStack;
use p4runtime_proto::P4RuntimeClient;
use p4runtime_proto::p4::v1 as p4v1;

const LANES: usize = 32;

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Every admission counter of the program, summed: each frame that
/// entered the pipeline lands in exactly one (or is accepted as DATA).
struct Counters {
    rt: tokio::runtime::Runtime,
    client: P4RuntimeClient<p4runtime_proto::tonic::transport::Channel>,
    ids: Vec<(String, u32)>,
}

impl Counters {
    fn new(stack: &LocalStack) -> Counters {
        let pipeline = Pipeline::from_p4_source(
            &Arch::V1model.program(),
            &esa_p4::Defines::new(LANES, 4096).pairs(),
        )
        .unwrap();
        let ids = pipeline
            .p4info
            .counters
            .iter()
            .filter_map(|c| c.preamble.as_ref())
            .map(|p| (p.name.clone(), p.id))
            .collect();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = rt
            .block_on(P4RuntimeClient::connect(format!(
                "http://{}",
                stack.p4runtime()
            )))
            .unwrap();
        Counters { rt, client, ids }
    }

    /// Packets counted by `name` at `index` (all indices: `None`).
    fn read(&mut self, name: &str, index: Option<i64>) -> u64 {
        let id = self
            .ids
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no counter {name} in {:?}", self.ids))
            .1;
        let request = p4v1::ReadRequest {
            device_id: 0,
            entities: vec![p4v1::Entity {
                entity: Some(p4v1::entity::Entity::CounterEntry(p4v1::CounterEntry {
                    counter_id: id,
                    index: index.map(|index| p4v1::Index { index }),
                    data: None,
                })),
            }],
            ..Default::default()
        };
        self.rt.block_on(async {
            let mut stream = self.client.read(request).await.unwrap().into_inner();
            let mut total = 0;
            while let Some(r) = stream.message().await.unwrap() {
                for e in r.entities {
                    if let Some(p4v1::entity::Entity::CounterEntry(c)) = e.entity {
                        total += c.data.map(|d| d.packet_count).unwrap_or(0) as u64;
                    }
                }
            }
            total
        })
    }

    fn global(&mut self, index: i64) -> u64 {
        self.read(counters::global_counter(Arch::V1model), Some(index))
    }

    /// Frames the admission stage dropped and counted: the global
    /// counters, and job `job`'s drops (the only job admitted; frames for
    /// any other job count as unknown).
    fn dropped(&mut self, job: u16) -> u64 {
        let mut total = self.read(counters::global_counter(Arch::V1model), None);
        for name in [
            "drop_bad_port",
            "drop_spoofed",
            "drop_bad_type",
            "drop_bad_slot",
            "drop_bad_worker",
        ] {
            let cell = counters::job_counter(Arch::V1model, name).unwrap();
            total += self.read(cell.name, Some(cell.index(job).into()));
        }
        total
    }
}

/// Sends frames into port 4 from outside any job.
struct Attacker {
    socket: UdpSocket,
    to: SocketAddr,
    job: u16,
    sent: u64,
}

impl Attacker {
    fn send(&mut self, frame: &[u8], counters: &mut Counters) {
        self.socket.send_to(frame, self.to).unwrap();
        self.sent += 1;
        // Paced, so the kernel never drops a datagram before the switch
        // reads it: every frame must be counted.
        if self.sent.is_multiple_of(2000) {
            let (sent, job) = (self.sent, self.job);
            wait_until("the switch to catch up", || counters.dropped(job) == sent);
        }
    }
}

fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn valid_frame(port: u16, job: u16) -> Vec<u8> {
    let host = port_host(port);
    FrameRepr {
        src_mac: host.mac,
        dst_mac: host.gateway_mac,
        src_ip: host.ip,
        dst_ip: Ipv4Addr(SWITCH_IP.octets()),
        esa: EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::default(),
            slot: 3,
            key: Key::new(1, job, 7),
            bitmap: 1,
            fan_in: 3,
            count: 1,
            exponent: 16,
            worker: 0,
        },
    }
    .emit(&[5; LANES], LANES)
}

#[test]
fn malformed_frames_are_counted_and_the_switch_keeps_aggregating() {
    let stack = start_stack();
    assert_eq!(stack.config().lanes, LANES);
    let mut counters = Counters::new(&stack);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // A job on ports 1..=3 (PS on 3); port 4 is outside it.
    let job = admit(&rt, &stack, &[1, 2], 3);
    let job_id = job.job_id as u16;

    let mut attacker = Attacker {
        socket: UdpSocket::bind("127.0.0.1:0").unwrap(),
        to: stack.config().port_addr(4),
        job: job_id,
        sent: 0,
    };
    let rss_before = rss_kib();

    // 1. Every truncation of a valid frame (for the real job, but from a
    //    port outside it): malformed, never aggregated.
    let valid = valid_frame(4, job_id);
    assert_eq!(valid.len(), esa_frame_len(LANES));
    for len in 1..valid.len() {
        attacker.send(&valid[..len], &mut counters);
    }
    let truncations = attacker.sent;
    wait_until("truncations counted", || {
        counters.dropped(job_id) == truncations
    });
    // The parser runs out of bytes in each of them (Ethernet, IPv4, UDP
    // or the ESA header): a parser error, counted as malformed.
    let (not_esa, malformed) = (counters.global(0), counters.global(1));
    assert_eq!((not_esa, malformed), (0, truncations));

    // 2. ESA headers with random field values (checksums intact: the IPv4
    //    header is untouched; the ESA header follows it).
    let mut rng = Rng::new(7);
    let esa_at = 14 + 20 + 8;
    for _ in 0..2_000 {
        let mut f = valid.clone();
        for b in &mut f[esa_at..esa_at + 16] {
            *b = rng.next_u64() as u8;
        }
        attacker.send(&f, &mut counters);
    }

    // 3. Random frames of random lengths.
    for _ in 0..100_000 {
        let len = 1 + (rng.next_u64() % 1514) as usize;
        let f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        attacker.send(&f, &mut counters);
    }
    let sent = attacker.sent;
    wait_until("every frame counted", || counters.dropped(job_id) == sent);
    // Nothing from port 4 was taken as the job's data.
    let job_rx = counters.read(
        esa_p4::counters::job_counter(Arch::V1model, "data_rx")
            .unwrap()
            .name,
        None,
    );
    assert_eq!(job_rx, 0, "no frame from outside the job was aggregated");
    let grown = rss_kib().saturating_sub(rss_before);
    assert!(grown < 64 * 1024, "resident memory grew by {grown} KiB");

    // 4. The switch still aggregates: an exact all-reduce of the job.
    allreduce_exactly(&stack, &job);
}
