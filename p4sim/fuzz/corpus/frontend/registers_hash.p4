/* Registers, hashing and externs: a per-flow packet counter kept in a
 * register array indexed by a CRC16 of the 5-tuple, a meter, a digest and a
 * clone to the CPU for the first packet of a flow. */
#include <core.p4>
#include <v1model.p4>

#define FLOW_SLOTS 1024
#define LANE(i) lane_##i
#define STR(x) #x

const bit<32> CPU_SESSION = 100;

enum bit<8> flow_state_t {
    NEW     = 1,
    KNOWN   = 2,
    EVICTED = 0x10
}

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> len;
    bit<16> id;
    bit<3>  flags;
    bit<13> frag;
    bit<8>  ttl;
    bit<8>  proto;
    bit<16> csum;
    bit<32> src;
    bit<32> dst;
}

header udp_t {
    bit<16> sport;
    bit<16> dport;
    bit<16> len;
    bit<16> csum;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
}

struct metadata_t {
    bit<32> flow_index;
    bit<32> packets;
    bit<2>  color;
    @field_list(1)
    bit<8>  state;
}

struct learn_t {
    bit<32> src;
    bit<32> dst;
}

parser FlowParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800 &&& 0xffff: parse_ipv4;
            0x8100 .. 0x8101: reject;
            _: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.proto, hdr.ipv4.frag) {
            (17, 0): parse_udp;
            (_, _): accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control FlowIngress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t sm) {
    register<bit<32>>(FLOW_SLOTS) flow_packets;
    register<bit<48>>(FLOW_SLOTS) flow_seen_at;
    counter(FLOW_SLOTS, CounterType.packets) flow_counter;
    meter(32w64, MeterType.bytes) flow_meter;
    bit<32> LANE(0);

    action count_flow() {
        hash(meta.flow_index,
             HashAlgorithm.crc16,
             32w0,
             { hdr.ipv4.src, hdr.ipv4.dst, hdr.ipv4.proto,
               hdr.udp.sport, hdr.udp.dport },
             32w1024);
        flow_packets.read(meta.packets, meta.flow_index);
        meta.packets = meta.packets |+| 1;
        flow_packets.write(meta.flow_index, meta.packets);
        flow_seen_at.write(meta.flow_index, sm.ingress_global_timestamp);
        flow_counter.count(meta.flow_index);
        flow_meter.execute_meter<bit<2>>(meta.flow_index, meta.color);
        LANE(0) = meta.packets ^ 32w0xFFFF_FFFF;
    }

    apply {
        if (!hdr.udp.isValid()) {
            exit;
        }
        count_flow();
        bit<8> state = (bit<8>) flow_state_t.KNOWN;
        if (meta.packets == 1) {
            state = (bit<8>) flow_state_t.NEW;
            digest<learn_t>(1, { hdr.ipv4.src, hdr.ipv4.dst });
            clone_preserving_field_list(CloneType.I2E, CPU_SESSION, 1);
        }
        meta.state = state;
        random(meta.color, 2w0, 2w3);
        sm.egress_spec = meta.color == V1MODEL_METER_COLOR_RED ? 9w511 : 9w2;
        log_msg(STR(flow {} packets), { meta.packets });
        hdr.ipv4.tos[7:2] = meta.flow_index[5:0];
        hdr.ipv4.id = hdr.ipv4.id ++ 8w0 == 24w0 ? 16w1 : hdr.ipv4.id;
        assert(meta.flow_index < FLOW_SLOTS);
    }
}

control FlowEgress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {
            truncate(64);
        }
    }
}

control NoCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control FlowDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(FlowParser(), NoVerify(), FlowIngress(), FlowEgress(), NoCompute(),
         FlowDeparser()) main;
