//! The benchmark program of `benches/exec.rs` and `examples/pps.rs`:
//! Ethernet/IPv4/UDP parsing, an exact and an LPM table, and up to 32 lanes
//! of register read-add-write per packet. Included by both with `#[path]`.

use std::fmt::Write as _;
use std::sync::Arc;

use p4sim::exec::bits::{BitType, Bits};
use p4sim::v1switch::{MatchValue, TableEntry, V1Switch};

pub const LANES: usize = 32;

fn program(lane_count: usize) -> String {
    let mut fields = String::new();
    let mut regs = String::new();
    let mut lanes = String::new();
    for i in 0..LANES {
        writeln!(fields, "    bit<32> v{i};").unwrap();
        writeln!(regs, "    register<bit<32>>(1024) r{i};").unwrap();
        if i >= lane_count {
            continue;
        }
        writeln!(
            lanes,
            "            r{i}.read(t, slot); t = t + hdr.agg.v{i}; r{i}.write(slot, t); hdr.agg.v{i} = t;"
        )
        .unwrap();
    }
    format!(
        r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> ether_type; }}
header ipv4_t {{
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src; bit<32> dst;
}}
header udp_t {{ bit<16> src_port; bit<16> dst_port; bit<16> len; bit<16> checksum; }}
header agg_t {{
    bit<32> slot;
{fields}}}
struct headers_t {{ ethernet_t eth; ipv4_t ipv4; udp_t udp; agg_t agg; }}
struct meta_t {{ bit<16> next_hop; }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{
        pkt.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {{ 0x0800: ipv4; default: accept; }}
    }}
    state ipv4 {{
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {{ 17: udp; default: accept; }}
    }}
    state udp {{
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {{ 9999: agg; default: accept; }}
    }}
    state agg {{ pkt.extract(hdr.agg); transition accept; }}
}}
control Vck(inout headers_t hdr, inout meta_t m) {{ apply {{ }} }}
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
{regs}
    action drop() {{ mark_to_drop(sm); }}
    action set_next_hop(bit<16> nh) {{ m.next_hop = nh; hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }}
    action forward(bit<9> port) {{ sm.egress_spec = port; }}
    table route {{
        key = {{ hdr.ipv4.dst : lpm; }}
        actions = {{ set_next_hop; drop; }}
        default_action = drop();
        size = 1024;
    }}
    table next_hop {{
        key = {{ m.next_hop : exact; }}
        actions = {{ forward; drop; }}
        default_action = drop();
        size = 1024;
    }}
    apply {{
        if (hdr.ipv4.isValid()) {{
            route.apply();
            next_hop.apply();
        }}
        if (hdr.agg.isValid()) {{
            bit<32> slot = hdr.agg.slot & 1023;
            bit<32> t;
{lanes}        }}
    }}
}}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control Cck(inout headers_t hdr, inout meta_t m) {{
    apply {{
        update_checksum(hdr.ipv4.isValid(),
            {{ hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst }},
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }}
}}
control Dep(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr); }} }}
V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
"#
    )
}

pub fn bits(width: u32, v: u128) -> Bits {
    Bits::from_u128(BitType::unsigned(width).unwrap(), v)
}

#[allow(dead_code)]
pub fn setup(lanes: usize) -> (V1Switch, Vec<u8>) {
    setup_with(lanes, p4sim::v1switch::Engine::Compiled)
}

#[allow(dead_code)]
pub fn setup_with(lanes: usize, engine: p4sim::v1switch::Engine) -> (V1Switch, Vec<u8>) {
    let compiled =
        p4sim::check::compile_source("bench.p4", &program(lanes)).unwrap_or_else(|e| panic!("{e}"));
    let mut sw = V1Switch::with_engine(Arc::new(compiled), engine);
    for i in 0..100u128 {
        sw.table_add(
            "route",
            TableEntry {
                matches: vec![MatchValue::Lpm(bits(32, 0x0a00_0000 | (i << 8)), 24)],
                priority: None,
                action: "set_next_hop".into(),
                args: vec![("nh".into(), bits(16, i))],
            },
        )
        .unwrap();
        sw.table_add(
            "next_hop",
            TableEntry {
                matches: vec![MatchValue::Exact(bits(16, i))],
                priority: None,
                action: "forward".into(),
                args: vec![("port".into(), bits(9, 1 + i % 8))],
            },
        )
        .unwrap();
    }
    sw.table_add(
        "route",
        TableEntry {
            matches: vec![MatchValue::Lpm(bits(32, 0x0a00_0000), 8)],
            priority: None,
            action: "set_next_hop".into(),
            args: vec![("nh".into(), bits(16, 0))],
        },
    )
    .unwrap();
    let mut pkt = Vec::new();
    pkt.extend_from_slice(&[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00]);
    let udp_len = 8 + 4 + 4 * LANES as u16;
    let total = 20 + udp_len;
    pkt.extend_from_slice(&[
        0x45,
        0,
        (total >> 8) as u8,
        total as u8,
        0,
        0,
        0,
        0,
        64,
        17,
        0,
        0,
    ]);
    pkt.extend_from_slice(&[10, 0, 0, 1, 10, 0, 42, 7]);
    pkt.extend_from_slice(&[
        0x12,
        0x34,
        0x27,
        0x0f,
        (udp_len >> 8) as u8,
        udp_len as u8,
        0,
        0,
    ]);
    pkt.extend_from_slice(&5u32.to_be_bytes());
    for i in 0..LANES as u32 {
        pkt.extend_from_slice(&(i + 1).to_be_bytes());
    }
    (sw, pkt)
}
