//! Ports carried over UDP: frames in datagrams through the real pipeline,
//! the peer learned from a hello, counters, and a frame for a port nobody
//! has said hello on.

use std::net::{SocketAddr, UdpSocket};

use crate::common::*;
use esa_switch::udp::HELLO;
use esa_switch::{Program, Source, Switch, SwitchConfig};
use p4runtime_proto::p4::v1::update::Type::Insert;

fn host() -> UdpSocket {
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    s
}

/// A free loopback address for a switch port (bound, read, released).
fn free_addr() -> SocketAddr {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// A switch running the L2 program on three UDP ports: 1 and 3 learn
/// their peers, 2 sends to `b`; each (destination MAC's last byte, port)
/// of `routes` is a forwarding entry. Returns the ports' addresses too.
fn three_ports(b: &UdpSocket, routes: &[(u8, u8)]) -> (Switch, [SocketAddr; 3]) {
    let program = Program::load(Source::File(&l2_path()), &[]).unwrap();
    let p4info = program.p4info.clone();
    let ids = Ids(&p4info);
    let addrs = [free_addr(), free_addr(), free_addr()];
    let (switch, _) = Switch::builder(SwitchConfig::default())
        .program(program)
        .udp_port(1, addrs[0], None)
        .udp_port(2, addrs[1], Some(b.local_addr().unwrap()))
        .udp_port(3, addrs[2], None)
        .build()
        .unwrap();
    for &(mac, port) in routes {
        let entry = table_entity(dmac_entry(
            &ids,
            &[mac],
            "MyIngress.forward",
            &[(1, &[port])],
        ));
        switch.with_device(|d| d.unwrap().write(Insert, &entry).unwrap());
    }
    (switch, addrs)
}

#[test]
fn frames_cross_the_pipeline_between_udp_ports() {
    let (a, b) = (host(), host());
    let (switch, [a_addr, b_addr, c_addr]) = three_ports(&b, &[(0xb, 2), (0xc, 3)]);
    // Host a learns nothing until it sends; port 2's peer is fixed.
    let f = frame([0, 0, 0, 0, 0, 0xb], [0, 0, 0, 0, 0, 0xa], 0x88b5, &[7; 46]);
    a.send_to(&f, a_addr).unwrap();
    let mut buf = [0u8; 2048];
    let (n, from) = b.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], f.as_slice(), "one datagram, the whole frame");
    assert_eq!(from, b_addr, "sent from the port's own address");

    // Port 3 has no peer: the frame counts as a transmit error.
    let g = frame([0, 0, 0, 0, 0, 0xc], [0, 0, 0, 0, 0, 0xa], 0x88b5, &[8; 46]);
    a.send_to(&g, a_addr).unwrap();
    wait_for(|| switch.port_stats(3).unwrap().tx_errors == 1);
    // After a hello it reaches the host that said it.
    let c = host();
    c.send_to(HELLO, c_addr).unwrap();
    wait_for(|| switch.port_stats(3).unwrap().hellos == 1);
    a.send_to(&g, a_addr).unwrap();
    let (n, _) = c.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], g.as_slice());

    // The counters move just after the send the host already saw.
    wait_for(|| switch.port_stats(3).unwrap().tx_packets == 1);
    let s1 = switch.port_stats(1).unwrap();
    assert_eq!((s1.rx_packets, s1.hellos), (3, 0));
    let s3 = switch.port_stats(3).unwrap();
    assert_eq!((s3.tx_packets, s3.tx_errors, s3.rx_packets), (1, 1, 0));
    assert_eq!(switch.port_stats(2).unwrap().tx_packets, 1);
}

/// Two hosts send windows of numbered frames at once to one third host:
/// each frame arrives once, and each sender's in the order sent (the
/// packet thread reads both sockets in one wait).
#[test]
fn bursts_from_two_ports_arrive_once_and_in_order() {
    const WINDOW: u16 = 50;
    const ROUNDS: u16 = 20;
    let (a, b, c) = (host(), host(), host());
    let (switch, [a_addr, _, c_addr]) = three_ports(&b, &[(0xb, 2)]);
    // The frame's payload: the sender (source MAC) and its sequence number.
    let numbered = |src: u8, seq: u16| {
        let mut payload = [0u8; 46];
        payload[..2].copy_from_slice(&seq.to_be_bytes());
        frame([0, 0, 0, 0, 0, 0xb], [0, 0, 0, 0, 0, src], 0x88b5, &payload)
    };
    let mut next = [0u16; 2];
    let mut buf = [0u8; 2048];
    for round in 0..ROUNDS {
        for seq in round * WINDOW..(round + 1) * WINDOW {
            a.send_to(&numbered(0xa, seq), a_addr).unwrap();
            c.send_to(&numbered(0xc, seq), c_addr).unwrap();
        }
        for _ in 0..2 * WINDOW {
            let (n, _) = b.recv_from(&mut buf).unwrap();
            let from = match buf[11] {
                0xa => 0,
                0xc => 1,
                other => panic!("a frame from {other:#x}"),
            };
            assert_eq!(&buf[..n], numbered(buf[11], next[from]).as_slice());
            next[from] += 1;
        }
    }
    assert_eq!(next, [ROUNDS * WINDOW; 2]);
    let rx = |p| switch.port_stats(p).unwrap().rx_packets;
    assert_eq!(
        (rx(1), rx(3)),
        (u64::from(ROUNDS * WINDOW), u64::from(ROUNDS * WINDOW))
    );
}

#[test]
fn an_address_in_use_is_a_clear_error() {
    let taken = host();
    let err = Switch::builder(SwitchConfig::default())
        .udp_port(1, taken.local_addr().unwrap(), None)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("port 1") && err.contains("cannot bind UDP"),
        "{err}"
    );
}

fn wait_for(cond: impl Fn() -> bool) {
    let end = std::time::Instant::now() + TIMEOUT;
    while !cond() {
        assert!(std::time::Instant::now() < end, "timed out");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
