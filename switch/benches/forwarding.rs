//! Forwarding rate of esa-switch through in-memory ports and, when run as
//! root on Linux, through veth pairs (AF_PACKET ports), beside p4sim's raw
//! `V1Switch::process` rate for the same L2 program, as ratios.
//! Prints medians of several runs: `cargo bench -p esa-switch`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use esa_switch::device::Device;
use esa_switch::{InterfaceIo, Program, RingConfig, RingKind, Source, Switch, SwitchConfig};
use p4runtime_proto::p4::v1::{self as v1, entity, update::Type::Insert};

const PACKETS: usize = 20_000;
const RUNS: usize = 5;
/// Frames per veth run.
const VETH_PACKETS: usize = 200_000;
/// The ways the switch's interfaces are measured: the default ring
/// (TPACKET_V2 slots read by the packet thread, frames sent through
/// AF_XDP), the same ring sending with `sendmmsg`, the ring read by a
/// reader thread per port, the block ring (TPACKET_V3), one system call
/// per frame; and, as the baseline, the default ring's ports with no
/// switch between them ([`PortsOnly`]).
const WAYS: usize = 6;
const WAY_NAMES: [&str; WAYS] = [
    "ring",
    "ring+sendmmsg",
    "ring+reader",
    "ring-blocks",
    "per-frame",
    "ports-only",
];
/// Frames the veth sender keeps in flight at most (half the default ring).
const WINDOW: usize = 1024;
/// How long the veth bench waits with nothing arriving before it counts
/// the frames in flight as lost, and before it ends the run.
const IDLE_LOST: Duration = Duration::from_millis(200);
const IDLE_END: Duration = Duration::from_millis(600);
/// Pause instructions between two looks at an empty ring (about a µs).
const IDLE_SPINS: usize = 32;
/// Frames sent one at a time per latency run.
const LATENCY_FRAMES: usize = 200;

/// The L2 test program, on p4sim's native engine (its code generated at
/// build time, as esa.p4's is for the switch).
fn program() -> Program {
    p4sim_native_corpus::register();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/l2_switch.p4");
    Program::load(Source::File(&path), &[]).expect("the L2 test program compiles")
}

/// dmac 00:..:0b -> port 2.
fn install(device: &mut Device) {
    let p4info = &device.program().p4info;
    let id = |name: &str| {
        p4info
            .tables
            .iter()
            .filter_map(|t| t.preamble.as_ref())
            .chain(p4info.actions.iter().filter_map(|a| a.preamble.as_ref()))
            .find(|p| p.name == name)
            .map(|p| p.id)
            .expect("known name")
    };
    let entry = v1::TableEntry {
        table_id: id("MyIngress.dmac"),
        r#match: vec![v1::FieldMatch {
            field_id: 1,
            field_match_type: Some(v1::field_match::FieldMatchType::Exact(
                v1::field_match::Exact { value: vec![0xb] },
            )),
        }],
        action: Some(v1::TableAction {
            r#type: Some(v1::table_action::Type::Action(v1::Action {
                action_id: id("MyIngress.forward"),
                params: vec![v1::action::Param {
                    param_id: 1,
                    value: vec![2],
                }],
            })),
        }),
        ..Default::default()
    };
    device
        .write(
            Insert,
            &v1::Entity {
                entity: Some(entity::Entity::TableEntry(entry)),
            },
        )
        .expect("entry installs");
}

fn frame() -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 0xb, 0, 0, 0, 0, 0, 0xa, 0x88, 0xb5];
    f.resize(64, 0x5a);
    f
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn raw_rate() -> f64 {
    let mut device = Device::new(Arc::new(program()));
    install(&mut device);
    let f = frame();
    let start = Instant::now();
    for i in 0..PACKETS {
        let out = device.switch_mut().process(1, &f);
        assert_eq!(out.len(), 1, "packet {i} forwarded");
    }
    PACKETS as f64 / start.elapsed().as_secs_f64()
}

fn switch_rate() -> f64 {
    let (switch, ports) = Switch::builder(SwitchConfig::default())
        .program(program())
        .memory_ports([1, 2])
        .build()
        .expect("switch starts");
    switch.with_device(|d| install(d.expect("program loaded")));
    let f = frame();
    let start = Instant::now();
    std::thread::scope(|s| {
        let tx = ports[0].sender();
        let f = &f;
        s.spawn(move || {
            for _ in 0..PACKETS {
                tx.send(f).expect("switch running");
            }
        });
        for i in 0..PACKETS {
            assert!(
                ports[1].recv_timeout(Duration::from_secs(10)).is_some(),
                "packet {i} arrived"
            );
        }
    });
    PACKETS as f64 / start.elapsed().as_secs_f64()
}

/// Two veth pairs in the root namespace, removed on drop: the switch owns
/// `*a1` (port 1) and `*b1` (port 2); the bench sends into `*a0` and
/// counts what comes out of `*b0`.
#[cfg(target_os = "linux")]
struct Veths {
    a: esa_netns::VethPair,
    b: esa_netns::VethPair,
}

#[cfg(target_os = "linux")]
impl Veths {
    fn create() -> Result<Veths, String> {
        let prefix = format!("eb{}", std::process::id() % 100_000);
        let pair = |side: &str| {
            esa_netns::VethPair::create(&format!("{prefix}{side}0"), &format!("{prefix}{side}1"))
        };
        let veths = Veths {
            a: pair("a")?,
            b: pair("b")?,
        };
        // The kernel finishes bringing a link up (operstate, queueing
        // discipline) in a work queue; frames sent before are dropped.
        for end in [
            veths.a.end(0),
            veths.a.end(1),
            veths.b.end(0),
            veths.b.end(1),
        ] {
            let up = (0..1000).any(|_| {
                let state = std::fs::read_to_string(format!("/sys/class/net/{end}/operstate"));
                let up = state.is_ok_and(|s| s.trim() == "up");
                if !up {
                    std::thread::sleep(Duration::from_millis(10));
                }
                up
            });
            if !up {
                return Err(format!("{end} did not come up"));
            }
        }
        Ok(veths)
    }

    fn name(&self, side: &str, end: usize) -> String {
        let pair = if side == "a" { &self.a } else { &self.b };
        pair.end(end).to_string()
    }
}

/// One forwarding measurement through the veths.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Copy)]
struct VethSample {
    /// Frames/s delivered out of the far veth.
    rate: f64,
    /// Frames sent that never arrived (dropped in a full ring or socket
    /// buffer when the sender outruns the switch).
    lost: usize,
    /// CPU time the switch's own threads spent per delivered frame, ns.
    switch_cpu_ns: f64,
}

/// CPU nanoseconds each of this process's threads named `esa-switch*`
/// has run so far, by thread id.
#[cfg(target_os = "linux")]
fn switch_threads_cpu_ns() -> std::collections::BTreeMap<String, u64> {
    let mut out = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let comm = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        if !comm.starts_with("esa-switch") {
            continue;
        }
        let ns = std::fs::read_to_string(path.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        out.insert(task.file_name().to_string_lossy().into_owned(), ns);
    }
    out
}

/// The switch on `*a1` (port 1) and `*b1` (port 2), `io` on both, the L2
/// program loaded and its entry installed.
#[cfg(target_os = "linux")]
fn veth_switch(veths: &Veths, io: &InterfaceIo) -> Switch {
    let (switch, _) = Switch::builder(SwitchConfig {
        interface_io: io.clone(),
        ..SwitchConfig::default()
    })
    .program(program())
    .interface(1, veths.name("a", 1))
    .interface(2, veths.name("b", 1))
    .build()
    .expect("switch opens the veths");
    assert_eq!(switch.interface_io(1), Some(io), "the switch runs as asked");
    switch.with_device(|d| install(d.expect("program loaded")));
    switch
}

/// Sends `packets` frames into `*a0` and receives them out of `*b0`
/// through the switch, moving frames on its interfaces as `io` says. The
/// bench's own ends always use a ring and batched sends so that they are
/// not the bottleneck.
#[cfg(target_os = "linux")]
fn veth_rate(veths: &Veths, io: Option<&InterfaceIo>, packets: usize) -> VethSample {
    use esa_switch::afpacket::RxRing;
    // What moves frames from `*a1` to `*b1`, held until the run ends: the
    // switch, or the ports alone.
    let forwarder: Box<dyn std::any::Any> = match io {
        Some(io) => Box::new(veth_switch(veths, io)),
        None => Box::new(PortsOnly::start(&veths.name("a", 1), &veths.name("b", 1))),
    };
    let poll = Duration::from_millis(200);
    let mut tx = Sender::open(&veths.name("a", 0));
    // The far end reads blocks: the kernel, working on the switch's core
    // when the switch sends, then fills a block's frames one after the
    // other and tells this end once per block rather than once per frame.
    let blocks = RingConfig {
        kind: RingKind::Blocks,
        block_size: 16 << 10,
        block_count: 128,
        ..RingConfig::default()
    };
    let mut rx = RxRing::open(&veths.name("b", 0), &blocks, poll).expect("open receiver veth");
    let f = frame();
    let burst = vec![&f[..]; 64];
    let cpu_before = switch_threads_cpu_ns();
    let start = Instant::now();
    // One thread both sends and receives, and never sleeps: on a 2-core
    // machine it keeps one core and leaves the other to the switch. A
    // receiver asleep in `poll` would have the switch's core wake it up
    // for frames it forwards, and a sender spinning on its own would
    // take that core's time from the switch.
    let (mut sent, mut received, mut written_off) = (0, 0, 0);
    let (mut last, mut idle_since) = (start, None::<Instant>);
    while received < packets {
        // At most WINDOW frames between the two ends, so the measurement
        // is the rate the switch keeps up with, not how fast an overrun
        // ring drops. A full transmit queue drops a frame; it counts as
        // lost.
        if sent < packets && sent.saturating_sub(received + written_off) <= WINDOW {
            let n = (packets - sent).min(burst.len());
            tx.send_many(&burst[..n]);
            sent += n;
        }
        let mut matched = 0;
        rx.recv_ready(|got| matched += usize::from(got == &f[..]));
        if matched > 0 {
            received += matched;
            last = Instant::now();
            idle_since = None;
            continue;
        }
        // Nothing arrived. Look again a little later: each look at the
        // ring pulls its status word to this core, away from the kernel
        // writing it on the switch's core. The clock is read only after
        // an empty look (a read costs about as much as a look on this VM).
        for _ in 0..IDLE_SPINS {
            std::hint::spin_loop();
        }
        let idle = idle_since.get_or_insert_with(Instant::now).elapsed();
        if idle > IDLE_END {
            break;
        }
        if idle > IDLE_LOST {
            // Lost frames would hold the window shut: let them go.
            written_off = sent.saturating_sub(received);
        }
    }
    let cpu_after = switch_threads_cpu_ns();
    drop(forwarder);
    let switch_ns: u64 = cpu_after
        .iter()
        .map(|(tid, ns)| ns - cpu_before.get(tid).copied().unwrap_or(0))
        .sum();
    let secs = last.duration_since(start).as_secs_f64().max(1e-9);
    VethSample {
        rate: received as f64 / secs,
        lost: packets - received,
        switch_cpu_ns: switch_ns as f64 / received.max(1) as f64,
    }
}

/// The switch's ports with no switch between them: a thread reads port
/// 1's ring (the default ring the switch opens) and sends each frame out
/// of port 2 through `AF_XDP`, as the packet thread does, copying it once
/// into a reused buffer on the way and sleeping in `poll` when the ring
/// is empty. No program runs. Its delivered rate is the most the ports
/// and the kernel leave the switch on this machine, measured in the same
/// run; it is named like the switch's threads, so its CPU time is counted
/// the same way.
#[cfg(target_os = "linux")]
struct PortsOnly {
    stop: Arc<std::sync::atomic::AtomicBool>,
    waker: Arc<esa_switch::afpacket::Waker>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[cfg(target_os = "linux")]
impl PortsOnly {
    fn start(from: &str, to: &str) -> PortsOnly {
        use esa_switch::afpacket::{RxRing, Waker, wait_any};
        use std::sync::atomic::{AtomicBool, Ordering};
        let poll = Duration::from_millis(200);
        let mut ring = RxRing::open(from, &RingConfig::default(), poll).expect("open port 1 ring");
        let mut xdp = esa_switch::xdp::XdpSender::open(to).expect("open port 2 AF_XDP");
        let stop = Arc::new(AtomicBool::new(false));
        let waker = Arc::new(Waker::new().expect("eventfd"));
        let thread = {
            let (stop, waker) = (stop.clone(), waker.clone());
            std::thread::Builder::new()
                .name("esa-switch-ports".into())
                .spawn(move || {
                    let (mut batch, mut spare) = (Vec::<Vec<u8>>::new(), Vec::<Vec<u8>>::new());
                    while !stop.load(Ordering::Relaxed) {
                        if !ring.has_frames() {
                            let _ = wait_any(&[&ring], &waker, poll);
                            continue;
                        }
                        ring.recv_ready(|data| {
                            let mut b = spare.pop().unwrap_or_default();
                            b.clear();
                            b.extend_from_slice(data);
                            batch.push(b);
                        });
                        let frames: Vec<&[u8]> = batch.iter().map(|b| &b[..]).collect();
                        if xdp.send_many(&frames, |_, _| {}).is_err() {
                            break;
                        }
                        spare.append(&mut batch);
                    }
                })
                .expect("spawn the ports-only thread")
        };
        PortsOnly {
            stop,
            waker,
            thread: Some(thread),
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for PortsOnly {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.waker.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The bench's load generator: an `AF_XDP` socket where the kernel has
/// one (it costs less per frame, leaving more of a 2-core machine to the
/// switch), else `sendmmsg` on an `AF_PACKET` socket.
#[cfg(target_os = "linux")]
enum Sender {
    Xdp(Box<esa_switch::xdp::XdpSender>),
    Raw(esa_switch::afpacket::RawSocket),
}

#[cfg(target_os = "linux")]
impl Sender {
    fn open(name: &str) -> Sender {
        match esa_switch::xdp::XdpSender::open(name) {
            Ok(x) => Sender::Xdp(Box::new(x)),
            Err(_) => Sender::Raw(
                esa_switch::afpacket::RawSocket::open_sender(name).expect("open sender veth"),
            ),
        }
    }

    /// Sends `frames`; a frame refused or dropped counts as lost.
    fn send_many(&mut self, frames: &[&[u8]]) {
        match self {
            Sender::Xdp(x) => {
                let _ = x.send_many(frames, |_, _| {});
            }
            Sender::Raw(r) => r.send_many(frames, |_, _| {}),
        }
    }
}

/// Median time one frame takes through the switch when it travels alone
/// (light load), `io` on the switch's interfaces, µs. The bench's ends
/// send and receive one frame per system call, so they add no batching
/// delay of their own.
#[cfg(target_os = "linux")]
fn veth_latency_us(veths: &Veths, io: &InterfaceIo, frames: usize) -> f64 {
    use esa_switch::afpacket::{MAX_FRAME, RawSocket};
    let switch = veth_switch(veths, io);
    let poll = Duration::from_millis(200);
    let tx = RawSocket::open_sender(&veths.name("a", 0)).expect("open sender veth");
    let rx = RawSocket::open(&veths.name("b", 0), poll).expect("open receiver veth");
    let f = frame();
    let mut buf = vec![0u8; MAX_FRAME];
    let mut samples = Vec::new();
    for _ in 0..frames {
        let start = Instant::now();
        tx.send(&f).expect("send");
        let mut idle = 0;
        while idle < 5 {
            match rx.recv(&mut buf).expect("receive") {
                Some(n) if buf[..n] == f[..] => {
                    samples.push(start.elapsed().as_secs_f64() * 1e6);
                    break;
                }
                Some(_) => {}
                None => idle += 1,
            }
        }
    }
    drop(switch);
    median(samples)
}

/// CPU time the switch's threads spend per frame when nobody reads the
/// egress veth's far end, ns, with the far end down (`down`: frames end
/// in the veth's transmit, so none of the receiving side's kernel work,
/// which a veth does on the sending CPU, is counted) or up (frames cross
/// the veth and the far end's stack drops them: the veth's delivery is
/// counted, a reader's socket work is not). An AF_XDP socket sends at
/// most one frame per call to a device that drops it, so the far-end-up
/// figure is the one that compares sending ways. Frames go in with at
/// most [`WINDOW`] ahead of the switch's transmit counter.
#[cfg(target_os = "linux")]
fn veth_sink_cpu_ns(veths: &Veths, io: &InterfaceIo, packets: usize, down: bool) -> f64 {
    let far = veths.name("b", 0);
    let near = veths.name("b", 1);
    // The kernel applies a link change (operstate, queueing discipline)
    // asynchronously, up to a second later: wait until the switch's end
    // shows it, so no run starts with the link half changed.
    let link = |state: &str| {
        let ok = std::process::Command::new("ip")
            .args(["link", "set", &far, state])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "ip link set {far} {state}");
        for _ in 0..300 {
            let now = std::fs::read_to_string(format!("/sys/class/net/{near}/operstate"))
                .unwrap_or_default();
            if (now.trim() == "up") == (state == "up") {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let switch = veth_switch(veths, io);
    if down {
        link("down");
    }
    let mut tx = Sender::open(&veths.name("a", 0));
    let f = frame();
    let burst = vec![&f[..]; 64];
    let sent_out = || switch.port_stats(2).map_or(0, |s| s.tx_packets) as usize;
    let cpu_before = switch_threads_cpu_ns();
    let (mut sent, mut stalled) = (0, 0);
    while sent < packets && stalled < 100_000 {
        if sent > sent_out() + WINDOW {
            stalled += 1;
            std::thread::yield_now();
            continue;
        }
        stalled = 0;
        tx.send_many(&burst);
        sent += burst.len();
    }
    let mut waits = 0;
    while sent_out() < sent && waits < 100 {
        std::thread::sleep(Duration::from_millis(10));
        waits += 1;
    }
    let forwarded = sent_out();
    let cpu_after = switch_threads_cpu_ns();
    drop(switch);
    if down {
        link("up");
    }
    let switch_ns: u64 = cpu_after
        .iter()
        .map(|(tid, ns)| ns - cpu_before.get(tid).copied().unwrap_or(0))
        .sum();
    switch_ns as f64 / forwarded.max(1) as f64
}

/// Medians of one way's samples.
#[derive(Debug, Clone, Copy, Default)]
struct WayResult {
    /// Frames/s delivered.
    rate: f64,
    /// Most frames lost in one run.
    lost: usize,
    /// Switch threads' CPU per delivered frame, ns.
    cpu_ns: f64,
    /// A frame alone through the switch, µs.
    latency_us: f64,
    /// Switch threads' CPU per frame with the far end down, ns.
    sink_cpu_ns: f64,
    /// Switch threads' CPU per frame with the far end up, nobody reading,
    /// ns.
    unread_cpu_ns: f64,
}

/// Medians over `runs` of the ring path and the per-frame path,
/// interleaved; when it can run (root, Linux, `ip`), else why not.
#[cfg(target_os = "linux")]
fn veth_rates(runs: usize, packets: usize) -> Result<[WayResult; WAYS], String> {
    // Without root, creating the veths fails and says so.
    let veths = Veths::create()?;
    let ways = [
        InterfaceIo::default(),
        InterfaceIo::Ring(RingConfig {
            xdp_send: false,
            ..RingConfig::default()
        }),
        InterfaceIo::Ring(RingConfig {
            reader_thread: true,
            ..RingConfig::default()
        }),
        InterfaceIo::Ring(RingConfig {
            kind: RingKind::Blocks,
            ..RingConfig::default()
        }),
        InterfaceIo::PerFrame,
    ];
    let ways: Vec<Option<&InterfaceIo>> = ways.iter().map(Some).chain([None]).collect();
    // ESA_BENCH_VETH=ring runs only that way (for profiling); a list,
    // ESA_BENCH_VETH=ring,ports-only, runs those ways interleaved.
    let only = std::env::var("ESA_BENCH_VETH").ok();
    // ESA_BENCH_SINK_ONLY=1 measures only the nobody-reading costs;
    // ESA_BENCH_DELIVERED_ONLY=1 only delivered frames (for profiling
    // them, with ESA_BENCH_FRAMES for longer runs).
    let delivered = std::env::var_os("ESA_BENCH_SINK_ONLY").is_none();
    let sinks = std::env::var_os("ESA_BENCH_DELIVERED_ONLY").is_none();
    let names = WAY_NAMES;
    let mut samples: [Vec<VethSample>; WAYS] = Default::default();
    let mut latency: [Vec<f64>; WAYS] = Default::default();
    let mut sink: [Vec<f64>; WAYS] = Default::default();
    let mut unread: [Vec<f64>; WAYS] = Default::default();
    for _ in 0..runs {
        for (way, io) in ways.iter().enumerate() {
            if only
                .as_deref()
                .is_some_and(|o| !o.split(',').any(|w| w == names[way]))
            {
                continue;
            }
            if delivered {
                samples[way].push(veth_rate(&veths, *io, packets));
                if sinks && let Some(io) = io {
                    latency[way].push(veth_latency_us(&veths, io, LATENCY_FRAMES));
                }
            }
            // The ports alone are measured delivering only.
            let Some(io) = io else {
                continue;
            };
            if sinks {
                sink[way].push(veth_sink_cpu_ns(&veths, io, packets, true));
                unread[way].push(veth_sink_cpu_ns(&veths, io, packets, false));
            }
        }
    }
    let mut out = [WayResult::default(); WAYS];
    for (way, s) in samples.iter().enumerate() {
        if s.is_empty() && sink[way].is_empty() {
            continue;
        }
        out[way] = WayResult {
            rate: median(s.iter().map(|x| x.rate).collect()),
            lost: s.iter().map(|x| x.lost).max().unwrap_or(0),
            cpu_ns: median(s.iter().map(|x| x.switch_cpu_ns).collect()),
            latency_us: median(latency[way].clone()),
            sink_cpu_ns: median(sink[way].clone()),
            unread_cpu_ns: median(unread[way].clone()),
        };
    }
    Ok(out)
}

#[cfg(not(target_os = "linux"))]
fn veth_rates(_runs: usize, _packets: usize) -> Result<[WayResult; WAYS], String> {
    Err("needs Linux (AF_PACKET)".into())
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: keep it short.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { RUNS };
    let raw = median((0..runs).map(|_| raw_rate()).collect());
    let switched = median((0..runs).map(|_| switch_rate()).collect());
    let engine = Device::new(Arc::new(program())).switch_mut().engine();
    println!(
        "L2 program ({engine:?} engine), 64-byte frames, {PACKETS} packets, median of {runs} runs:"
    );
    println!("  p4sim V1Switch::process       {raw:>12.0} packets/s");
    println!("  esa-switch in-memory ports    {switched:>12.0} packets/s");
    println!("  ratio switch / raw            {:>12.2}", switched / raw);
    // ESA_BENCH_FRAMES=N sends N frames per veth run.
    let packets = match std::env::var("ESA_BENCH_FRAMES").map(|n| n.parse()) {
        Ok(Ok(n)) => n,
        _ if quick => PACKETS / 10,
        _ => VETH_PACKETS,
    };
    println!("Through two veth pairs (AF_PACKET ports), {packets} frames, median of {runs} runs:");
    match veth_rates(runs, packets) {
        Ok(results) => {
            let [ring, sendmmsg, _, _, per_frame, ports] = results;
            println!(
                "  {:<13} {:>11} {:>5} {:>12} {:>10} {:>16} {:>16} {:>12}",
                "",
                "frames/s",
                "lost",
                "switch CPU",
                "a frame",
                "far end down:",
                "far end unread:",
                "= frames/s"
            );
            println!(
                "  {:<13} {:>11} {:>5} {:>12} {:>10} {:>16} {:>16} {:>12}",
                "",
                "delivered",
                "(max)",
                "ns/frame",
                "alone, µs",
                "switch ns/frame",
                "switch ns/frame",
                "per core"
            );
            for (name, r) in WAY_NAMES.into_iter().zip(results) {
                // A way ESA_BENCH_VETH left out.
                if r.rate == 0.0 && r.unread_cpu_ns == 0.0 {
                    continue;
                }
                // NaN where ESA_BENCH_DELIVERED_ONLY left the column out.
                let per_core = if r.unread_cpu_ns > 0.0 {
                    1e9 / r.unread_cpu_ns
                } else {
                    f64::NAN
                };
                println!(
                    "  {name:<13} {:>11.0} {:>5} {:>12.0} {:>10.0} {:>16.0} {:>16.0} {:>12.0}",
                    r.rate,
                    r.lost,
                    r.cpu_ns,
                    r.latency_us,
                    r.sink_cpu_ns,
                    r.unread_cpu_ns,
                    per_core
                );
            }
            // Ratios of the ways that ran (ESA_BENCH_VETH may leave some
            // out).
            if ring.rate > 0.0 && per_frame.rate > 0.0 {
                println!(
                    "  ratio ring / per-frame, delivered {:>8.2}",
                    ring.rate / per_frame.rate
                );
            }
            if ring.rate > 0.0 && sendmmsg.rate > 0.0 {
                println!(
                    "  ratio ring / ring+sendmmsg, delivered {:>4.2}, switch CPU per frame {:.2}",
                    ring.rate / sendmmsg.rate,
                    ring.cpu_ns / sendmmsg.cpu_ns
                );
            }
            if ring.rate > 0.0 {
                println!(
                    "  ratio ring / raw p4sim, delivered {:>8.2}",
                    ring.rate / raw
                );
            }
            if ring.rate > 0.0 && ports.rate > 0.0 {
                println!(
                    "  ratio ring / ports-only, delivered {:>7.2}, switch CPU per frame {:.2}",
                    ring.rate / ports.rate,
                    ring.cpu_ns / ports.cpu_ns
                );
            }
        }
        Err(why) => println!("  skipped: {why}"),
    }
}
