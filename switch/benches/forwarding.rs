//! Forwarding rate of esa-switch through in-memory ports, beside p4sim's
//! raw `V1Switch::process` rate for the same L2 program, as a ratio.
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
}
