//! Forwarding rate of esa-switch through in-memory ports and, when run as
//! root on Linux, through veth pairs (AF_PACKET ports), beside p4sim's raw
//! `V1Switch::process` rate for the same L2 program, as ratios.
//! Prints medians of several runs: `cargo bench -p esa-switch`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use esa_switch::device::Device;
use esa_switch::{Program, Source, Switch, SwitchConfig};
use p4runtime_proto::p4::v1::{self as v1, entity, update::Type::Insert};

const PACKETS: usize = 20_000;
const RUNS: usize = 5;

fn program() -> Program {
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
    v[v.len() / 2]
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
        Ok(Veths {
            a: pair("a")?,
            b: pair("b")?,
        })
    }

    fn name(&self, side: &str, end: usize) -> String {
        let pair = if side == "a" { &self.a } else { &self.b };
        pair.end(end).to_string()
    }
}

/// Packets/s delivered from one veth to the other through the switch, and
/// how many of the packets sent were lost on the way (socket buffers
/// overflow when the sender outruns the switch).
#[cfg(target_os = "linux")]
fn veth_rate(veths: &Veths) -> (f64, usize) {
    use esa_switch::afpacket::{MAX_FRAME, RawSocket};
    let (switch, _) = Switch::builder(SwitchConfig::default())
        .program(program())
        .interface(1, veths.name("a", 1))
        .interface(2, veths.name("b", 1))
        .build()
        .expect("switch opens the veths");
    switch.with_device(|d| install(d.expect("program loaded")));
    let poll = Duration::from_millis(200);
    let tx = RawSocket::open(&veths.name("a", 0), poll).expect("open sender veth");
    let rx = RawSocket::open(&veths.name("b", 0), poll).expect("open receiver veth");
    let f = frame();
    let start = Instant::now();
    let (received, last) = std::thread::scope(|s| {
        let f = &f;
        let tx = &tx;
        s.spawn(move || {
            for _ in 0..PACKETS {
                // A full transmit queue drops the frame; it counts as lost.
                let _ = tx.send(f);
            }
        });
        let mut buf = vec![0u8; MAX_FRAME];
        let (mut received, mut last, mut idle) = (0, start, 0);
        while received < PACKETS && idle < 5 {
            match rx.recv(&mut buf).expect("receive") {
                Some(n) if buf[..n] == f[..] => {
                    received += 1;
                    last = Instant::now();
                    idle = 0;
                }
                Some(_) => {}
                None => idle += 1,
            }
        }
        (received, last)
    });
    drop(switch);
    let secs = last.duration_since(start).as_secs_f64().max(1e-9);
    (received as f64 / secs, PACKETS - received)
}

/// The veth measurement when it can run (root, Linux, `ip`), else why not.
fn veth_rates(runs: usize) -> Result<(f64, usize), String> {
    #[cfg(target_os = "linux")]
    {
        // Without root, creating the veths fails and says so.
        let veths = Veths::create()?;
        let samples: Vec<(f64, usize)> = (0..runs).map(|_| veth_rate(&veths)).collect();
        let lost = samples.iter().map(|s| s.1).max().unwrap_or(0);
        Ok((median(samples.into_iter().map(|s| s.0).collect()), lost))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = runs;
        Err("needs Linux (AF_PACKET)".into())
    }
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: keep it short.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { RUNS };
    let raw = median((0..runs).map(|_| raw_rate()).collect());
    let switched = median((0..runs).map(|_| switch_rate()).collect());
    println!("L2 program, 64-byte frames, {PACKETS} packets, median of {runs} runs:");
    println!("  p4sim V1Switch::process       {raw:>12.0} packets/s");
    println!("  esa-switch in-memory ports    {switched:>12.0} packets/s");
    println!("  ratio switch / raw            {:>12.2}", switched / raw);
    match veth_rates(runs) {
        Ok((veth, lost)) => {
            println!(
                "  esa-switch veth pairs         {veth:>12.0} packets/s (at most {lost} of {PACKETS} lost)"
            );
            println!("  ratio veth / raw              {:>12.2}", veth / raw);
            println!("  ratio veth / in-memory        {:>12.2}", veth / switched);
        }
        Err(why) => println!("  esa-switch veth pairs         skipped: {why}"),
    }
}
