//! P4Info output checked against p4c: two programs from p4c's test suite
//! (`basic_routing-bmv2.p4`, `flowlet_switching-bmv2.p4`, reformatted here)
//! whose `.p4info.txtpb` files must come out byte for byte, and exact ids,
//! names and widths for programs exercising `@id`, `@name`, direct
//! resources, digests, controller headers and id collisions. The last test
//! parses every conformance program, so syntax slips there are caught.

use p4sim::front::parse_source;
use p4sim::p4info::id::{ResourceType, jenkins_one_at_a_time};
use p4sim::p4info::{
    ActionScope, CounterUnit, MatchType, MeterUnit, NewTypeSpec, P4Info, SelectorSizeSemantics,
    TextOptions, TypeSpec, p4info, p4info_text,
};

fn build(name: &str, text: &str) -> P4Info {
    let program = parse_source(name, text).unwrap_or_else(|d| panic!("{d}"));
    p4info(&program).unwrap_or_else(|d| panic!("{d}"))
}

/// Text as p4c printed the reference files: with the header comment but
/// before P4Runtime 1.4's `initial_default_action`.
fn legacy_text(info: &P4Info) -> String {
    info.to_text_with(&TextOptions {
        header_comment: true,
        initial_default_action: false,
    })
}

fn hashed(ty: ResourceType, name: &str) -> u32 {
    (u32::from(ty.prefix()) << 24) | (jenkins_one_at_a_time(name.as_bytes()) & 0x00FF_FFFF)
}

const BASIC_ROUTING: &str = r###"#include <core.p4>
#include <v1model.p4>

struct ingress_metadata_t {
    bit<12> vrf;
    bit<16> bd;
    bit<16> nexthop_index;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct metadata {
    ingress_metadata_t ingress_metadata;
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            16w0x800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control egress(inout headers hdr, inout metadata meta,
               inout standard_metadata_t standard_metadata) {
    action on_miss() { }
    action rewrite_src_dst_mac(bit<48> smac, bit<48> dmac) {
        hdr.ethernet.srcAddr = smac;
        hdr.ethernet.dstAddr = dmac;
    }
    table rewrite_mac {
        actions = { on_miss; rewrite_src_dst_mac; }
        key = { meta.ingress_metadata.nexthop_index: exact; }
        size = 32768;
    }
    apply { rewrite_mac.apply(); }
}

control ingress(inout headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    action set_vrf(bit<12> vrf) { meta.ingress_metadata.vrf = vrf; }
    action on_miss() { }
    action fib_hit_nexthop(bit<16> nexthop_index) {
        meta.ingress_metadata.nexthop_index = nexthop_index;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 8w1;
    }
    action set_egress_details(bit<9> egress_spec) {
        standard_metadata.egress_spec = egress_spec;
    }
    action set_bd(bit<16> bd) { meta.ingress_metadata.bd = bd; }
    table bd {
        actions = { set_vrf; }
        key = { meta.ingress_metadata.bd: exact; }
        size = 65536;
    }
    table ipv4_fib {
        actions = { on_miss; fib_hit_nexthop; }
        key = {
            meta.ingress_metadata.vrf: exact;
            hdr.ipv4.dstAddr: exact;
        }
        size = 131072;
    }
    table ipv4_fib_lpm {
        actions = { on_miss; fib_hit_nexthop; }
        key = {
            meta.ingress_metadata.vrf: exact;
            hdr.ipv4.dstAddr: lpm;
        }
        size = 16384;
    }
    table nexthop {
        actions = { on_miss; set_egress_details; }
        key = { meta.ingress_metadata.nexthop_index: exact; }
        size = 32768;
    }
    table port_mapping {
        actions = { set_bd; }
        key = { standard_metadata.ingress_port: exact; }
        size = 32768;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            port_mapping.apply();
            bd.apply();
            switch (ipv4_fib.apply().action_run) {
                on_miss: { ipv4_fib_lpm.apply(); }
            }
            nexthop.apply();
        }
    }
}

control DeparserImpl(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(p = ParserImpl(), ig = ingress(), vr = verifyChecksum(), eg = egress(),
         ck = computeChecksum(), dep = DeparserImpl()) main;
"###;

/// p4c's `testdata/p4_16_samples_outputs/basic_routing-bmv2.p4.p4info.txtpb`.
const BASIC_ROUTING_P4INFO: &str = r###"# proto-file: p4/config/v1/p4info.proto
# proto-message: p4.config.v1.P4Info

pkg_info {
  arch: "v1model"
}
tables {
  preamble {
    id: 48392551
    name: "ingress.bd"
    alias: "bd"
  }
  match_fields {
    id: 1
    name: "meta.ingress_metadata.bd"
    bitwidth: 16
    match_type: EXACT
  }
  action_refs {
    id: 33505590
  }
  action_refs {
    id: 21257015
    annotations: "@defaultonly"
    scope: DEFAULT_ONLY
  }
  size: 65536
}
tables {
  preamble {
    id: 41084491
    name: "ingress.ipv4_fib"
    alias: "ipv4_fib"
  }
  match_fields {
    id: 1
    name: "meta.ingress_metadata.vrf"
    bitwidth: 12
    match_type: EXACT
  }
  match_fields {
    id: 2
    name: "hdr.ipv4.dstAddr"
    bitwidth: 32
    match_type: EXACT
  }
  action_refs {
    id: 22594144
  }
  action_refs {
    id: 26104220
  }
  action_refs {
    id: 21257015
    annotations: "@defaultonly"
    scope: DEFAULT_ONLY
  }
  size: 131072
}
tables {
  preamble {
    id: 42875950
    name: "ingress.ipv4_fib_lpm"
    alias: "ipv4_fib_lpm"
  }
  match_fields {
    id: 1
    name: "meta.ingress_metadata.vrf"
    bitwidth: 12
    match_type: EXACT
  }
  match_fields {
    id: 2
    name: "hdr.ipv4.dstAddr"
    bitwidth: 32
    match_type: LPM
  }
  action_refs {
    id: 22594144
  }
  action_refs {
    id: 26104220
  }
  action_refs {
    id: 21257015
    annotations: "@defaultonly"
    scope: DEFAULT_ONLY
  }
  size: 16384
}
tables {
  preamble {
    id: 43581057
    name: "ingress.nexthop"
    alias: "nexthop"
  }
  match_fields {
    id: 1
    name: "meta.ingress_metadata.nexthop_index"
    bitwidth: 16
    match_type: EXACT
  }
  action_refs {
    id: 22594144
  }
  action_refs {
    id: 19738113
  }
  action_refs {
    id: 21257015
    annotations: "@defaultonly"
    scope: DEFAULT_ONLY
  }
  size: 32768
}
tables {
  preamble {
    id: 39645634
    name: "ingress.port_mapping"
    alias: "port_mapping"
  }
  match_fields {
    id: 1
    name: "standard_metadata.ingress_port"
    bitwidth: 9
    match_type: EXACT
  }
  action_refs {
    id: 27500220
  }
  action_refs {
    id: 21257015
    annotations: "@defaultonly"
    scope: DEFAULT_ONLY
  }
  size: 32768
}
tables {
  preamble {
    id: 40309161
    name: "egress.rewrite_mac"
    alias: "rewrite_mac"
  }
  match_fields {
    id: 1
    name: "meta.ingress_metadata.nexthop_index"
    bitwidth: 16
    match_type: EXACT
  }
  action_refs {
    id: 28864280
  }
  action_refs {
    id: 28966416
  }
  action_refs {
    id: 21257015
    annotations: "@defaultonly"
    scope: DEFAULT_ONLY
  }
  size: 32768
}
actions {
  preamble {
    id: 21257015
    name: "NoAction"
    alias: "NoAction"
    annotations: "@noWarn(\"unused\")"
  }
}
actions {
  preamble {
    id: 33505590
    name: "ingress.set_vrf"
    alias: "set_vrf"
  }
  params {
    id: 1
    name: "vrf"
    bitwidth: 12
  }
}
actions {
  preamble {
    id: 22594144
    name: "ingress.on_miss"
    alias: "ingress.on_miss"
  }
}
actions {
  preamble {
    id: 26104220
    name: "ingress.fib_hit_nexthop"
    alias: "fib_hit_nexthop"
  }
  params {
    id: 1
    name: "nexthop_index"
    bitwidth: 16
  }
}
actions {
  preamble {
    id: 19738113
    name: "ingress.set_egress_details"
    alias: "set_egress_details"
  }
  params {
    id: 1
    name: "egress_spec"
    bitwidth: 9
  }
}
actions {
  preamble {
    id: 27500220
    name: "ingress.set_bd"
    alias: "set_bd"
  }
  params {
    id: 1
    name: "bd"
    bitwidth: 16
  }
}
actions {
  preamble {
    id: 28864280
    name: "egress.on_miss"
    alias: "egress.on_miss"
  }
}
actions {
  preamble {
    id: 28966416
    name: "egress.rewrite_src_dst_mac"
    alias: "rewrite_src_dst_mac"
  }
  params {
    id: 1
    name: "smac"
    bitwidth: 48
  }
  params {
    id: 2
    name: "dmac"
    bitwidth: 48
  }
}
type_info {
}
"###;

const FLOWLET: &str = r###"#include <core.p4>
#include <v1model.p4>

struct ingress_metadata_t {
    bit<32> flow_ipg;
    bit<13> flowlet_map_index;
    bit<16> flowlet_id;
    bit<32> flowlet_lasttime;
    bit<14> ecmp_offset;
    bit<32> nhop_ipv4;
}

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }

header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen;
    bit<16> identification; bit<3> flags; bit<13> fragOffset; bit<8> ttl;
    bit<8> protocol; bit<16> hdrChecksum; bit<32> srcAddr; bit<32> dstAddr;
}

header tcp_t {
    bit<16> srcPort; bit<16> dstPort; bit<32> seqNo; bit<32> ackNo;
    bit<4> dataOffset; bit<3> res; bit<3> ecn; bit<6> ctrl; bit<16> window;
    bit<16> checksum; bit<16> urgentPtr;
}

struct metadata {
    @name("ingress_metadata") ingress_metadata_t ingress_metadata;
}

struct headers {
    @name("ethernet") ethernet_t ethernet;
    @name("ipv4") ipv4_t ipv4;
    @name("tcp") tcp_t tcp;
}

parser ParserImpl(packet_in packet, out headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            16w0x800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            8w6: parse_tcp;
            default: accept;
        }
    }
    state parse_tcp {
        packet.extract(hdr.tcp);
        transition accept;
    }
}

control egress(inout headers hdr, inout metadata meta,
               inout standard_metadata_t standard_metadata) {
    @name("rewrite_mac") action rewrite_mac(bit<48> smac) {
        hdr.ethernet.srcAddr = smac;
    }
    @name("_drop") action _drop() { mark_to_drop(standard_metadata); }
    @name("send_frame") table send_frame {
        actions = { rewrite_mac; _drop; NoAction; }
        key = { standard_metadata.egress_port: exact; }
        size = 256;
        default_action = NoAction();
    }
    apply { send_frame.apply(); }
}

control ingress(inout headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    @name("flowlet_id") register<bit<16>>(32w8192) flowlet_id;
    @name("flowlet_lasttime") register<bit<32>>(32w8192) flowlet_lasttime;
    @name("_drop") action _drop() { mark_to_drop(standard_metadata); }
    @name("set_ecmp_select") action set_ecmp_select(bit<8> ecmp_base, bit<8> ecmp_count) {
        hash(meta.ingress_metadata.ecmp_offset, HashAlgorithm.crc16, (bit<10>)ecmp_base,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, hdr.tcp.srcPort,
               hdr.tcp.dstPort, meta.ingress_metadata.flowlet_id }, (bit<20>)ecmp_count);
    }
    @name("set_nhop") action set_nhop(bit<32> nhop_ipv4, bit<9> port) {
        meta.ingress_metadata.nhop_ipv4 = nhop_ipv4;
        standard_metadata.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl + 8w255;
    }
    @name("lookup_flowlet_map") action lookup_flowlet_map() {
        hash(meta.ingress_metadata.flowlet_map_index, HashAlgorithm.crc16, (bit<13>)0,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, hdr.tcp.srcPort,
               hdr.tcp.dstPort }, (bit<26>)13);
        flowlet_id.read(meta.ingress_metadata.flowlet_id, (bit<32>)meta.ingress_metadata.flowlet_map_index);
        meta.ingress_metadata.flow_ipg = (bit<32>)standard_metadata.ingress_global_timestamp;
        flowlet_lasttime.read(meta.ingress_metadata.flowlet_lasttime, (bit<32>)meta.ingress_metadata.flowlet_map_index);
        meta.ingress_metadata.flow_ipg = meta.ingress_metadata.flow_ipg - meta.ingress_metadata.flowlet_lasttime;
        flowlet_lasttime.write((bit<32>)meta.ingress_metadata.flowlet_map_index, (bit<32>)standard_metadata.ingress_global_timestamp);
    }
    @name("set_dmac") action set_dmac(bit<48> dmac) { hdr.ethernet.dstAddr = dmac; }
    @name("update_flowlet_id") action update_flowlet_id() {
        meta.ingress_metadata.flowlet_id = meta.ingress_metadata.flowlet_id + 16w1;
        flowlet_id.write((bit<32>)meta.ingress_metadata.flowlet_map_index, (bit<16>)meta.ingress_metadata.flowlet_id);
    }
    @name("ecmp_group") table ecmp_group {
        actions = { _drop; set_ecmp_select; NoAction; }
        key = { hdr.ipv4.dstAddr: lpm; }
        size = 1024;
        default_action = NoAction();
    }
    @name("ecmp_nhop") table ecmp_nhop {
        actions = { _drop; set_nhop; NoAction; }
        key = { meta.ingress_metadata.ecmp_offset: exact; }
        size = 16384;
        default_action = NoAction();
    }
    @name("flowlet") table flowlet {
        actions = { lookup_flowlet_map; NoAction; }
        default_action = NoAction();
    }
    @name("forward") table forward {
        actions = { set_dmac; _drop; NoAction; }
        key = { meta.ingress_metadata.nhop_ipv4: exact; }
        size = 512;
        default_action = NoAction();
    }
    @name("new_flowlet") table new_flowlet {
        actions = { update_flowlet_id; NoAction; }
        default_action = NoAction();
    }
    apply {
        @atomic {
            flowlet.apply();
            if (meta.ingress_metadata.flow_ipg > 32w50000)
                new_flowlet.apply();
        }
        ecmp_group.apply();
        ecmp_nhop.apply();
        forward.apply();
    }
}

control DeparserImpl(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tcp);
    }
}

control verifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control computeChecksum(inout headers hdr, inout metadata meta) { apply { } }

V1Switch(ParserImpl(), verifyChecksum(), ingress(), egress(), computeChecksum(), DeparserImpl()) main;
"###;

/// p4c's `flowlet_switching-bmv2.p4.p4info.txtpb`.
const FLOWLET_P4INFO: &str = r###"# proto-file: p4/config/v1/p4info.proto
# proto-message: p4.config.v1.P4Info

pkg_info {
  arch: "v1model"
}
tables {
  preamble {
    id: 38446407
    name: "ingress.ecmp_group"
    alias: "ecmp_group"
  }
  match_fields {
    id: 1
    name: "hdr.ipv4.dstAddr"
    bitwidth: 32
    match_type: LPM
  }
  action_refs {
    id: 19344232
  }
  action_refs {
    id: 20375000
  }
  action_refs {
    id: 21257015
  }
  size: 1024
}
tables {
  preamble {
    id: 41627831
    name: "ingress.ecmp_nhop"
    alias: "ecmp_nhop"
  }
  match_fields {
    id: 1
    name: "meta.ingress_metadata.ecmp_offset"
    bitwidth: 14
    match_type: EXACT
  }
  action_refs {
    id: 19344232
  }
  action_refs {
    id: 29239084
  }
  action_refs {
    id: 21257015
  }
  size: 16384
}
tables {
  preamble {
    id: 42150575
    name: "ingress.flowlet"
    alias: "flowlet"
  }
  action_refs {
    id: 27889477
  }
  action_refs {
    id: 21257015
  }
  size: 1024
}
tables {
  preamble {
    id: 43289378
    name: "ingress.forward"
    alias: "forward"
  }
  match_fields {
    id: 1
    name: "meta.ingress_metadata.nhop_ipv4"
    bitwidth: 32
    match_type: EXACT
  }
  action_refs {
    id: 30489383
  }
  action_refs {
    id: 19344232
  }
  action_refs {
    id: 21257015
  }
  size: 512
}
tables {
  preamble {
    id: 43789109
    name: "ingress.new_flowlet"
    alias: "new_flowlet"
  }
  action_refs {
    id: 17397136
  }
  action_refs {
    id: 21257015
  }
  size: 1024
}
tables {
  preamble {
    id: 49367184
    name: "egress.send_frame"
    alias: "send_frame"
  }
  match_fields {
    id: 1
    name: "standard_metadata.egress_port"
    bitwidth: 9
    match_type: EXACT
  }
  action_refs {
    id: 23531945
  }
  action_refs {
    id: 25850727
  }
  action_refs {
    id: 21257015
  }
  size: 256
}
actions {
  preamble {
    id: 21257015
    name: "NoAction"
    alias: "NoAction"
    annotations: "@noWarn(\"unused\")"
  }
}
actions {
  preamble {
    id: 19344232
    name: "ingress._drop"
    alias: "ingress._drop"
  }
}
actions {
  preamble {
    id: 20375000
    name: "ingress.set_ecmp_select"
    alias: "set_ecmp_select"
  }
  params {
    id: 1
    name: "ecmp_base"
    bitwidth: 8
  }
  params {
    id: 2
    name: "ecmp_count"
    bitwidth: 8
  }
}
actions {
  preamble {
    id: 29239084
    name: "ingress.set_nhop"
    alias: "set_nhop"
  }
  params {
    id: 1
    name: "nhop_ipv4"
    bitwidth: 32
  }
  params {
    id: 2
    name: "port"
    bitwidth: 9
  }
}
actions {
  preamble {
    id: 27889477
    name: "ingress.lookup_flowlet_map"
    alias: "lookup_flowlet_map"
  }
}
actions {
  preamble {
    id: 30489383
    name: "ingress.set_dmac"
    alias: "set_dmac"
  }
  params {
    id: 1
    name: "dmac"
    bitwidth: 48
  }
}
actions {
  preamble {
    id: 17397136
    name: "ingress.update_flowlet_id"
    alias: "update_flowlet_id"
  }
}
actions {
  preamble {
    id: 23531945
    name: "egress.rewrite_mac"
    alias: "rewrite_mac"
  }
  params {
    id: 1
    name: "smac"
    bitwidth: 48
  }
}
actions {
  preamble {
    id: 25850727
    name: "egress._drop"
    alias: "egress._drop"
  }
}
registers {
  preamble {
    id: 384519412
    name: "ingress.flowlet_id"
    alias: "flowlet_id"
  }
  type_spec {
    bitstring {
      bit {
        bitwidth: 16
      }
    }
  }
  size: 8192
}
registers {
  preamble {
    id: 375147533
    name: "ingress.flowlet_lasttime"
    alias: "flowlet_lasttime"
  }
  type_spec {
    bitstring {
      bit {
        bitwidth: 32
      }
    }
  }
  size: 8192
}
type_info {
}
"###;

const FEATURES: &str = r###"#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

typedef bit<48> mac_t;
const bit<32> W = 7;
type bit<9> port_id_t;
enum bit<8> kind_t { A = 1, B = 0x20 }

header eth_t { mac_t dst; mac_t src; bit<16> type; }
@controller_header("packet_in")
header packet_in_t { bit<9> ingress_port; @id(5) bit<(W + 1)> reason; bit<7> pad; }
struct learn_t { mac_t src; port_id_t port; }
struct headers_t { eth_t eth; }
struct meta_t { bit<16> x; port_id_t port; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter<bit<10>>(1024, CounterType.packets_and_bytes) pkts;
    direct_counter(CounterType.bytes) hits;
    meter<bit<8>>(32w256, MeterType.bytes) rate;
    direct_meter<bit<2>>(MeterType.packets) dmeter;
    register<learn_t, bit<4>>(16) learned;
    @id(0x01000099) action fwd(port_id_t port, kind_t k, @id(9) bit<(W * 2)> tag) {
        sm.egress_spec = (bit<9>)port;
        digest<learn_t>(1, { hdr.eth.src, port });
    }
    @name(".global_drop") action drop() { mark_to_drop(sm); }
    action unused_action() { }
    table unused_table { actions = { drop; } }
    @id(7) table l2 {
        key = {
            hdr.eth.dst: exact @name("dmac");
            hdr.eth.isValid(): exact;
            hdr.eth.type[7:0]: ternary;
            meta.port: optional;
            meta.x: range;
        }
        actions = { fwd; @tableonly drop; @defaultonly NoAction; }
        counters = hits;
        meters = dmeter;
        support_timeout = true;
        size = 0;
    }
    table fixed {
        key = { hdr.eth.type: exact; }
        actions = { fwd; drop; }
        const entries = { 0x0800: drop(); }
        const default_action = drop();
    }
    table defaults {
        key = { sm.ingress_port: lpm; }
        actions = { fwd; }
        default_action = fwd(3, kind_t.B, 0x102);
    }
    apply {
        l2.apply();
        fixed.apply();
        defaults.apply();
        pkts.count(0);
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }

V1Switch(P(), V(), Ing(), Eg(), C(), D()) main;
"###;

#[test]
fn basic_routing_matches_p4c_byte_for_byte() {
    let info = build("basic_routing-bmv2.p4", BASIC_ROUTING);
    assert_eq!(legacy_text(&info), BASIC_ROUTING_P4INFO);
}

#[test]
fn flowlet_switching_matches_p4c_byte_for_byte() {
    let info = build("flowlet_switching-bmv2.p4", FLOWLET);
    assert_eq!(legacy_text(&info), FLOWLET_P4INFO);
}

#[test]
fn current_format_adds_initial_default_action() {
    let program = parse_source("basic_routing-bmv2.p4", BASIC_ROUTING).unwrap();
    let text = p4info_text(&program).unwrap();
    assert!(text.starts_with("# proto-file: p4/config/v1/p4info.proto\n"));
    // The implicit `default_action = NoAction()` of every table.
    assert_eq!(
        text.matches("  initial_default_action {\n    action_id: 21257015\n  }\n")
            .count(),
        6
    );
}

#[test]
fn features_ids_names_and_widths() {
    let info = build("features.p4", FEATURES);
    let names: Vec<&str> = info
        .tables
        .iter()
        .map(|t| t.preamble.name.as_str())
        .collect();
    // `unused_table` is never applied, so p4c's front end removes it.
    assert_eq!(names, ["Ing.l2", "Ing.fixed", "Ing.defaults"]);

    let l2 = info.table("l2").unwrap();
    assert_eq!(l2.preamble.id, 0x0200_0007, "@id(7) gets the table prefix");
    let fields: Vec<(u32, &str, u32, &MatchType)> = l2
        .match_fields
        .iter()
        .map(|m| (m.id, m.name.as_str(), m.bitwidth, &m.match_type))
        .collect();
    assert_eq!(
        fields,
        [
            (1, "dmac", 48, &MatchType::Exact),
            (2, "hdr.eth.$valid$", 1, &MatchType::Exact),
            (3, "hdr.eth.type[7:0]", 8, &MatchType::Ternary),
            (4, "meta.port", 9, &MatchType::Optional),
            (5, "meta.x", 16, &MatchType::Range),
        ]
    );
    assert_eq!(l2.match_fields[3].type_name.as_deref(), Some("port_id_t"));
    assert_eq!(l2.size, 1024, "size = 0 means the default, as in p4c");
    assert!(l2.supports_idle_timeout);
    let scopes: Vec<ActionScope> = l2.action_refs.iter().map(|r| r.scope).collect();
    assert_eq!(
        scopes,
        [
            ActionScope::TableAndDefault,
            ActionScope::TableOnly,
            ActionScope::DefaultOnly
        ]
    );
    let hits = hashed(ResourceType::DirectCounter, "Ing.hits");
    let dmeter = hashed(ResourceType::DirectMeter, "Ing.dmeter");
    assert_eq!(l2.direct_resource_ids, [hits, dmeter]);
    assert_eq!(info.direct_counters[0].unit, CounterUnit::Bytes);
    assert_eq!(info.direct_counters[0].direct_table_id, 0x0200_0007);
    assert_eq!(info.direct_meters[0].unit, MeterUnit::Packets);

    // `@name(".global_drop")` makes the action global; `@id` on `fwd`.
    let fwd = info.action("Ing.fwd").unwrap();
    assert_eq!(fwd.preamble.id, 0x0100_0099);
    let params: Vec<(u32, &str, u32)> = fwd
        .params
        .iter()
        .map(|p| (p.id, p.name.as_str(), p.bitwidth))
        .collect();
    assert_eq!(params, [(1, "port", 9), (2, "k", 8), (9, "tag", 14)]);
    let drop = info.action("global_drop").unwrap();
    assert_eq!(
        drop.preamble.id,
        hashed(ResourceType::Action, "global_drop")
    );
    assert!(info.action("Ing.unused_action").is_none());

    let fixed = info.table("Ing.fixed").unwrap();
    assert!(fixed.is_const_table && fixed.has_initial_entries);
    assert_eq!(fixed.const_default_action_id, drop.preamble.id);

    // default_action = fwd(3, kind_t.B, 0x102): bytes of each width.
    let defaults = info.table("defaults").unwrap();
    let call = defaults.initial_default_action.as_ref().unwrap();
    assert_eq!(call.action_id, 0x0100_0099);
    assert_eq!(
        call.arguments,
        [(1, vec![0, 3]), (2, vec![0x20]), (3, vec![1, 2])]
    );

    assert_eq!(info.counters[0].preamble.name, "Ing.pkts");
    assert_eq!(info.counters[0].unit, CounterUnit::Both);
    assert_eq!(info.counters[0].size, 1024);
    assert_eq!(info.meters[0].size, 256);
    assert_eq!(
        info.registers[0].type_spec,
        TypeSpec::Struct("learn_t".into())
    );
    assert_eq!(info.registers[0].size, 16);
    assert_eq!(info.digests[0].preamble.name, "learn_t");
    assert_eq!(
        info.digests[0].preamble.id,
        hashed(ResourceType::Digest, "learn_t")
    );

    let cpm = &info.controller_packet_metadata[0];
    assert_eq!(cpm.preamble.name, "packet_in");
    assert_eq!(
        cpm.preamble.id,
        hashed(ResourceType::ControllerHeader, "packet_in_t")
    );
    assert_eq!(
        cpm.preamble.annotations,
        ["@controller_header(\"packet_in\")"]
    );
    // p4c's field ids: @id values first, then 1, 2, ... where a field with
    // an @id still uses up its position's number.
    let meta: Vec<(u32, &str, u32)> = cpm
        .metadata
        .iter()
        .map(|m| (m.id, m.name.as_str(), m.bitwidth))
        .collect();
    assert_eq!(
        meta,
        [(1, "ingress_port", 9), (5, "reason", 8), (2, "pad", 7)]
    );

    let ti = info.type_info.as_ref().unwrap();
    assert_eq!(
        ti.structs["learn_t"],
        [
            ("src".to_string(), TypeSpec::Bit(48)),
            ("port".to_string(), TypeSpec::NewType("port_id_t".into()))
        ]
    );
    assert_eq!(
        ti.serializable_enums["kind_t"].members[1],
        ("B".into(), vec![0x20])
    );
    assert_eq!(
        ti.new_types["port_id_t"],
        NewTypeSpec::Original(TypeSpec::Bit(9))
    );
    let text = info.to_text();
    assert!(
        text.contains("      value: \" \"\n"),
        "0x20 prints as a space"
    );
    assert!(text.contains("  idle_timeout_behavior: NOTIFY_CONTROL\n"));
}

const COLLISIONS: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct hs_t { h_t h; }
struct m_t { }
parser P(packet_in pkt, out hs_t hdr, inout m_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control C1(inout hs_t hdr, inout m_t m, inout standard_metadata_t sm) {
    action a() { }
    @id(HASHED) table taken { key = { hdr.h.f: exact; } actions = { a; } }
    table t { key = { hdr.h.f: exact; } actions = { a; } }
    apply { taken.apply(); t.apply(); }
}
control C2(inout hs_t hdr, inout m_t m, inout standard_metadata_t sm) {
    action a() { }
    table t { key = { hdr.h.f: exact; } actions = { a; } }
    apply { t.apply(); }
}
control V(inout hs_t hdr, inout m_t m) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { } }
V1Switch(P(), V(), C1(), C2(), V(), D()) main;
"#;

#[test]
fn id_collisions_probe_and_aliases_disambiguate() {
    // Claim C1.t's hashed id with @id on another table: C1.t moves up by
    // one (and C2.t keeps its own hash).
    let want = hashed(ResourceType::Table, "C1.t");
    let text = COLLISIONS.replace("HASHED", &want.to_string());
    let info = build("collisions.p4", &text);
    assert_eq!(info.table("C1.taken").unwrap().preamble.id, want);
    let t1 = info.table("C1.t").unwrap();
    assert_eq!(t1.preamble.id, want + 1);
    assert_eq!(t1.preamble.alias, "C1.t");
    let t2 = info.table("C2.t").unwrap();
    assert_eq!(t2.preamble.id, hashed(ResourceType::Table, "C2.t"));
    // Both controls' `a` are distinct actions with two-part aliases.
    let aliases: Vec<&str> = info
        .actions
        .iter()
        .map(|a| a.preamble.alias.as_str())
        .collect();
    assert_eq!(aliases, ["NoAction", "C1.a", "C2.a"]);

    // A wrong prefix in @id is an error with the table's position.
    let bad = COLLISIONS.replace("HASHED", "0x01000001");
    let program = parse_source("bad.p4", &bad).unwrap();
    let err = p4info(&program).unwrap_err();
    assert_eq!((err.line, err.col), (12, 5));
    assert!(
        err.message().contains("wrong 8-bit prefix"),
        "{}",
        err.message()
    );
}

#[test]
fn complex_keys_need_a_name() {
    let text = COLLISIONS.replace("@id(HASHED) ", "").replace(
        "table t { key = { hdr.h.f: exact; } actions = { a; } }\n    apply { taken",
        "table t { key = { hdr.h.f + 1: exact; } actions = { a; } }\n    apply { taken",
    );
    let program = parse_source("complex.p4", &text).unwrap();
    let err = p4info(&program).unwrap_err();
    assert_eq!(err.line, 13);
    assert!(err.message().contains("requires a @name annotation"));
}

/// A package of the program's own: p4c's P4Info names its control
/// arguments' objects and says arch "v1model" (as p4c's goldens of such
/// programs, elimActRun1 and issue5035, do).
#[test]
fn a_package_of_its_own_has_the_p4info_of_its_blocks() {
    let program = parse_source(
        "x.p4",
        "#include <core.p4>\ncontrol c(); package top(c x);\n\
         control d() { action a() { } table t { key = { } actions = { a; } } apply { t.apply(); } }\n\
         top(d()) main;\n",
    )
    .unwrap();
    let text = p4info(&program).unwrap().to_text();
    assert!(text.contains("arch: \"v1model\""), "{text}");
    assert!(text.contains("name: \"d.t\""), "{text}");
    assert!(text.contains("name: \"d.a\""), "{text}");
}

/// Every conformance program (and the error programs, which must at least
/// get through the parser or fail with the stated position) parses.
#[test]
fn conformance_programs_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut count = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "p4"))
        .collect();
    entries.sort();
    for path in entries {
        let program = p4sim::front::parse_program(&path, &[])
            .unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        // Every conformance program also has a P4Info.
        p4info(&program).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        let stf = path.with_extension("stf");
        let stf_text =
            std::fs::read_to_string(&stf).unwrap_or_else(|e| panic!("{}: {e}", stf.display()));
        p4sim::stf::parse(&stf_text).unwrap_or_else(|e| panic!("{}: {e}", stf.display()));
        count += 1;
    }
    assert!(count >= 20, "only {count} conformance programs");
}

/// Error programs that already fail in the parser fail where their first
/// line says; the others are left to the type checker's tests.
#[test]
fn error_programs_that_fail_to_parse_say_where() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/errors");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "p4") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// error: "))
            .unwrap_or_else(|| panic!("{}: no `// error:` line", path.display()));
        let name = path.file_name().unwrap().to_str().unwrap();
        if let Err(d) = parse_source(name, &text) {
            let (position, message) = expected.split_at(expected.find(": ").unwrap());
            assert_eq!(format!("{}:{}:{}", d.file, d.line, d.col), position);
            assert!(d.message().contains(&message[2..]), "{d}");
            checked += 1;
        }
    }
    assert!(checked >= 1);
}

/// Actions of a table in a control instantiated inside another control are
/// named by the instance path (`Ingress.inner.set`) in the actions section;
/// the table's action refs and default action must use the same ids.
#[test]
fn nested_control_tables_refer_to_their_actions_by_instance_path() {
    let info = build(
        "nested.p4",
        r#"#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in p, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.h); transition accept; }
}
control Inner(inout headers_t hdr, inout standard_metadata_t sm) {
    action set(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table t {
        key = { hdr.h.f: exact; }
        actions = { set; drop; }
        default_action = drop();
    }
    apply { t.apply(); }
}
control Ingress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    Inner() inner;
    apply { inner.apply(hdr, sm); }
}
control Egress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out p, in headers_t hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), VC(), Ingress(), Egress(), CC(), D()) main;
"#,
    );
    let id = |name: &str| {
        info.actions
            .iter()
            .find(|a| a.preamble.name == name)
            .unwrap_or_else(|| panic!("no action {name}"))
            .preamble
            .id
    };
    let table = info
        .tables
        .iter()
        .find(|t| t.preamble.name == "Ingress.inner.t")
        .unwrap();
    let refs: Vec<u32> = table.action_refs.iter().map(|r| r.id).collect();
    assert_eq!(refs, [id("Ingress.inner.set"), id("Ingress.inner.drop")]);
    let default = table.initial_default_action.as_ref().unwrap();
    assert_eq!(default.action_id, id("Ingress.inner.drop"));
}

/// The v1model parts every small program below shares, after its ingress.
const V1_REST: &str = r#"
control Egress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out p, in headers_t hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), VC(), Ingress(), Egress(), CC(), D()) main;
"#;

/// Types and parser every small program below shares, before its ingress.
const V1_HEAD: &str = r#"#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in p, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.h); transition accept; }
}
"#;

fn names(info: &P4Info) -> Vec<String> {
    let mut out: Vec<String> = info
        .tables
        .iter()
        .map(|t| t.preamble.name.clone())
        .chain(info.actions.iter().map(|a| a.preamble.name.clone()))
        .chain(info.direct_meters.iter().map(|m| m.preamble.name.clone()))
        .collect();
    out.sort();
    out
}

/// Like p4c, a program without `main` has a P4Info with no objects and no
/// `pkg_info`; running it is still refused.
#[test]
fn a_program_without_main_has_an_empty_p4info() {
    let text = "#include <core.p4>\n#include <v1model.p4>\ncontrol C(inout bit<8> x) { apply { x = 1; } }\n";
    let program = parse_source("nomain.p4", text).unwrap();
    let info = p4info(&program).unwrap();
    assert_eq!(info, P4Info::default());
    assert_eq!(
        legacy_text(&info),
        "# proto-file: p4/config/v1/p4info.proto\n# proto-message: p4.config.v1.P4Info\n\n"
    );
    let err = p4sim::check::compile(&program).unwrap_err();
    assert!(err.to_string().contains("no `main`"), "{err}");
}

/// What p4c's front end removes before it writes P4Info is left out: the
/// branch of a constant `if` or `?:` never taken, an action only another
/// action calls (inlined), code after a `return` or `exit` in a body that
/// returns; a table applied in another's key is used.
#[test]
fn code_p4c_removes_leaves_its_tables_and_actions_out() {
    let ingress = r#"
action helper() { }
control Ingress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    const bool DEBUG = false;
    action never() { hdr.h.f = 1; }
    action caller() { helper(); }
    action kept() { }
    action after_return() { }
    table dead { key = { hdr.h.f: exact; } actions = { never; } }
    table folded { key = { hdr.h.f: exact; } actions = { never; } }
    table sub { key = { hdr.h.f: exact @name("f"); } actions = { kept; } }
    table outer { key = { sub.apply().hit: exact @name("hit"); } actions = { } }
    apply {
        if (DEBUG && hdr.h.isValid()) { dead.apply(); } else { caller(); }
        hdr.h.f = (1 == 2) ? (folded.apply().hit ? 8w1 : 8w2) : 8w3;
        outer.apply();
        if (hdr.h.f == 0) { return; }
        if (true) { exit; }
        after_return();
    }
}
"#;
    let info = build("dead.p4", &format!("{V1_HEAD}{ingress}{V1_REST}"));
    assert_eq!(
        names(&info),
        [
            "Ingress.caller",
            "Ingress.kept",
            "Ingress.outer",
            "Ingress.sub",
            "NoAction"
        ]
    );
}

/// A top-level action's `@name` is global, even without a leading `.`; a
/// direct meter declared at top level is named without a control.
#[test]
fn top_level_names_stay_global() {
    let ingress = r#"
@name("bar") action foo() { }
@name("namedmeter") direct_meter<bit<8>>(MeterType.packets) my_meter;
control Ingress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @name("bar") action local_bar() { my_meter.read(hdr.h.f); }
    table t {
        key = { hdr.h.f: exact; }
        actions = { foo; local_bar; }
        meters = my_meter;
    }
    apply { t.apply(); }
}
"#;
    let info = build("global.p4", &format!("{V1_HEAD}{ingress}{V1_REST}"));
    assert_eq!(
        names(&info),
        ["Ingress.bar", "Ingress.t", "NoAction", "bar", "namedmeter"]
    );
    let t = &info.tables[0];
    assert_eq!(t.direct_resource_ids, [info.direct_meters[0].preamble.id]);
    assert_eq!(
        info.direct_meters[0].preamble.id,
        hashed(ResourceType::DirectMeter, "namedmeter")
    );
}

/// Parser value sets, as `p4c-bm2-ss --p4runtime-files` (p4c 1.2.5) writes
/// them for the conformance program `parser_value_set.p4`: one unnamed
/// match field for `bit<W>`, one per field of a struct.
#[test]
fn value_sets_as_p4c_writes_them() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/parser_value_set.p4");
    let program = p4sim::front::parse_program(&path, &[]).unwrap_or_else(|d| panic!("{d}"));
    let text = p4info_text(&program).unwrap();
    let start = text.find("value_sets {").expect("no value_sets");
    let end = text[start..]
        .find("\ntype_info {")
        .map_or(text.len(), |i| start + i + 1);
    assert_eq!(
        &text[start..end],
        r#"value_sets {
  preamble {
    id: 54431748
    name: "P.types"
    alias: "types"
  }
  match {
    id: 1
    bitwidth: 16
    match_type: EXACT
  }
  size: 4
}
value_sets {
  preamble {
    id: 66871654
    name: "P.pairs"
    alias: "pairs"
  }
  match {
    id: 1
    name: "type"
    bitwidth: 16
    match_type: EXACT
  }
  match {
    id: 2
    name: "first"
    bitwidth: 8
    match_type: EXACT
  }
  size: 2
}
"#
    );
}

/// Action profiles and selectors: an instance two tables share (its table
/// ids in order of the tables' names) and one a table constructs, named by
/// the property's `@name` alone; the selector's annotations become fields.
#[test]
fn action_profiles_and_selectors() {
    let ingress = r#"
control Ingress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<9> port) { sm.egress_spec = port; }
    action_profile(32w64) shared;
    table zeta { key = { hdr.h.f: exact; } actions = { set; } implementation = shared; }
    table alpha { key = { hdr.h.f: exact; } actions = { set; } implementation = shared; }
    table sel {
        key = { hdr.h.f: exact; hdr.h.f: selector; }
        actions = { set; }
        @name("ecmp") @max_group_size(8) @selector_size_semantics("sum_of_members")
        @max_member_weight(3)
        implementation = action_selector(HashAlgorithm.crc16, 32w128, 32w14);
    }
    apply { zeta.apply(); alpha.apply(); sel.apply(); }
}
"#;
    let info = build("profiles.p4", &format!("{V1_HEAD}{ingress}{V1_REST}"));
    let table = |name: &str| {
        info.tables
            .iter()
            .find(|t| t.preamble.name == name)
            .unwrap_or_else(|| panic!("no table {name}"))
    };
    let shared = hashed(ResourceType::ActionProfile, "Ingress.shared");
    let ecmp = hashed(ResourceType::ActionProfile, "ecmp");
    assert_eq!(table("Ingress.zeta").implementation_id, shared);
    assert_eq!(table("Ingress.alpha").implementation_id, shared);
    assert_eq!(table("Ingress.sel").implementation_id, ecmp);
    // The selector key is no match field.
    assert_eq!(table("Ingress.sel").match_fields.len(), 1);
    let profiles: Vec<_> = info
        .action_profiles
        .iter()
        .map(|p| {
            (
                p.preamble.name.as_str(),
                p.preamble.id,
                p.table_ids.clone(),
                p.with_selector,
                p.size,
                p.max_group_size,
                p.selector_size_semantics,
                p.preamble.annotations.clone(),
            )
        })
        .collect();
    assert_eq!(
        profiles,
        [
            (
                "Ingress.shared",
                shared,
                vec![
                    table("Ingress.alpha").preamble.id,
                    table("Ingress.zeta").preamble.id
                ],
                false,
                64,
                0,
                None,
                vec![],
            ),
            (
                "ecmp",
                ecmp,
                vec![table("Ingress.sel").preamble.id],
                true,
                128,
                8,
                Some(SelectorSizeSemantics::SumOfMembers {
                    max_member_weight: 3
                }),
                vec![],
            ),
        ]
    );
    let text = info.to_text();
    assert!(
        text.contains("  with_selector: true\n  size: 128\n  max_group_size: 8\n  sum_of_members {\n    max_member_weight: 3\n  }\n"),
        "{text}"
    );
}

/// p4c refuses an `implementation` constructed without a `@name`; so does
/// p4sim, saying which table.
#[test]
fn an_anonymous_implementation_needs_a_name() {
    let ingress = r#"
control Ingress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<9> port) { sm.egress_spec = port; }
    table t { key = { hdr.h.f: exact; } actions = { set; } implementation = action_profile(32w4); }
    apply { t.apply(); }
}
"#;
    let program = parse_source("anon.p4", &format!("{V1_HEAD}{ingress}{V1_REST}")).unwrap();
    let err = p4info(&program).unwrap_err().to_string();
    assert!(
        err.contains("table `t` has an anonymous `implementation`"),
        "{err}"
    );
}
