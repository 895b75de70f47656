//! Real packets between network namespaces through the switch on
//! AF_PACKET ports. Needs root (namespaces, veth pairs, raw sockets) and
//! python3; opt-in with `ESA_NETNS_TESTS=1`, otherwise skipped with a note.
//!
//! Topology: namespaces h1, h2, h3, each with `eth0` paired with a veth
//! in the root namespace that the switch uses as port 1, 2 or 3. h1 sends
//! raw Ethernet frames (ether type 0x88b5) with a Python raw socket; h2 and
//! h3 capture them the same way.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use crate::common::*;
use esa_switch::{Program, Source, Switch, SwitchConfig};
use p4runtime_proto::p4::v1::{self as v1, update::Type::Insert};

const ETHER_TYPE: u16 = 0x88b5;

fn enabled() -> bool {
    esa_netns::tests_enabled("namespace test")
}

/// Namespaces h1..hN with `eth0` (MAC 02:00:00:00:00:0i, no IP: the test
/// sends raw frames), the root-side ends the switch's ports 1..N; removed
/// on drop (even when the test fails).
fn topology(hosts: u8) -> esa_netns::Namespaces {
    let wanted: Vec<esa_netns::NamespaceHost> = (1..=hosts)
        .map(|i| esa_netns::NamespaceHost {
            port: u16::from(i),
            mac: mac(i),
            ip: None,
            loss: 0.0,
        })
        .collect();
    esa_netns::Namespaces::create(&wanted, None).unwrap_or_else(|e| panic!("{e}"))
}

fn mac(i: u8) -> [u8; 6] {
    [0x02, 0, 0, 0, 0, i]
}

const RECEIVER: &str = r#"
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5))
s.bind(("eth0", 0x88b5))
s.settimeout(float(sys.argv[1]))
print("ready", flush=True)
try:
    while True:
        print(s.recv(65536).hex(), flush=True)
except socket.timeout:
    pass
"#;

const SENDER: &str = r#"
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
for frame in sys.argv[1:]:
    s.send(bytes.fromhex(frame))
"#;

/// A capture running in a namespace.
struct Receiver {
    child: Child,
}

impl Receiver {
    fn start(ns: &str, seconds: f64) -> Receiver {
        let mut child = Command::new("ip")
            .args(["netns", "exec", ns, "python3", "-c", RECEIVER])
            .arg(seconds.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .expect("ip netns exec python3");
        let mut line = String::new();
        let stdout = child.stdout.as_mut().unwrap();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "ready", "receiver in {ns} did not start");
        Receiver { child }
    }

    /// The frames captured, as hex strings.
    fn frames(self) -> Vec<String> {
        let out = self.child.wait_with_output().unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .filter(|l| l != "ready")
            .collect()
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn insert(switch: &Switch, entity: v1::Entity) {
    switch.with_device(|d| d.unwrap().write(Insert, &entity).unwrap());
}

#[test]
fn forwards_between_namespaces_including_multicast() {
    if !enabled() {
        return;
    }
    let topo = topology(3);
    let program = Program::load(Source::File(&l2_path()), &[]).unwrap();
    let p4info = program.p4info.clone();
    let ids = Ids(&p4info);
    let mut builder = Switch::builder(SwitchConfig::default()).program(program);
    for (i, (_, name)) in topo.interfaces().iter().enumerate() {
        builder = builder.interface(i as u32 + 1, name.clone());
    }
    let (switch, _) = builder.build().unwrap();
    let switch = Arc::new(switch);
    // h2 by MAC to port 2, h3 to port 3, broadcast to group 1 = ports 2
    // and 3; anything else is dropped (the table's default).
    insert(
        &switch,
        table_entity(dmac_entry(&ids, &mac(2), "MyIngress.forward", &[(1, &[2])])),
    );
    insert(
        &switch,
        table_entity(dmac_entry(&ids, &mac(3), "MyIngress.forward", &[(1, &[3])])),
    );
    insert(
        &switch,
        table_entity(dmac_entry(
            &ids,
            &[0xff; 6],
            "MyIngress.flood",
            &[(1, &[1])],
        )),
    );
    insert(&switch, multicast_group(1, &[(2, 0), (3, 0)]));

    let r2 = Receiver::start(topo.namespace(2).unwrap(), 1.5);
    let r3 = Receiver::start(topo.namespace(3).unwrap(), 1.5);
    let to_h2 = frame(mac(2), mac(1), ETHER_TYPE, &[0x22; 50]);
    let to_h3 = frame(mac(3), mac(1), ETHER_TYPE, &[0x33; 50]);
    let to_all = frame([0xff; 6], mac(1), ETHER_TYPE, &[0xbb; 50]);
    let unknown = frame(mac(9), mac(1), ETHER_TYPE, &[0x99; 50]);
    let status = Command::new("ip")
        .args([
            "netns",
            "exec",
            topo.namespace(1).unwrap(),
            "python3",
            "-c",
            SENDER,
        ])
        .args([hex(&to_h2), hex(&to_h3), hex(&to_all), hex(&unknown)])
        .status()
        .unwrap();
    assert!(status.success());
    let got2 = r2.frames();
    let got3 = r3.frames();
    eprintln!("h2 got {got2:?}\nh3 got {got3:?}");
    assert_eq!(got2, vec![hex(&to_h2), hex(&to_all)], "h2 (hex dump above)");
    assert_eq!(got3, vec![hex(&to_h3), hex(&to_all)], "h3 (hex dump above)");
    let s1 = switch.port_stats(1).unwrap();
    assert!(s1.rx_packets >= 4, "{s1:?}");
    assert!(
        s1.dropped >= 1,
        "the unknown destination is dropped: {s1:?}"
    );
    assert!(switch.port_stats(2).unwrap().tx_packets >= 2);
    assert!(switch.port_stats(3).unwrap().tx_packets >= 2);
    drop(switch);
    drop(topo);
}

#[test]
fn missing_interface_is_a_clear_startup_error() {
    if !enabled() {
        return;
    }
    let err = Switch::builder(SwitchConfig::default())
        .interface(1, "esa-nope0")
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("no interface named `esa-nope0`"),
        "{err}"
    );
}
