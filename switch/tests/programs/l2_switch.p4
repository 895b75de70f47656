// A small L2 switch for esa-switch's tests: exact dmac forwarding with
// multicast flood, a ternary ACL (drop, to CPU, or mirror to a clone
// session), an indexed counter and a register per ingress port, and
// packet-in / packet-out through the CPU port (255).
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 255

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t packet_in;
    ethernet_t ethernet;
}
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    counter(512, CounterType.packets_and_bytes) port_rx;
    register<bit<32>>(512) last_len;

    action forward(bit<9> port) {
        sm.egress_spec = port;
    }
    action flood(bit<16> group) {
        sm.mcast_grp = group;
    }
    action to_cpu() {
        sm.egress_spec = CPU_PORT;
    }
    action drop() {
        mark_to_drop(sm);
    }
    action mirror(bit<32> session) {
        clone(CloneType.I2E, session);
    }
    table dmac {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; flood; to_cpu; drop; }
        default_action = drop();
        size = 1024;
    }
    table acl {
        key = {
            hdr.ethernet.ether_type: ternary;
            hdr.ethernet.src: ternary;
        }
        actions = { drop; to_cpu; mirror; NoAction; }
        default_action = NoAction();
        size = 256;
    }
    apply {
        if (hdr.packet_out.isValid()) {
            sm.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else {
            port_rx.count((bit<32>)sm.ingress_port);
            last_len.write((bit<32>)sm.ingress_port, sm.packet_length);
            dmac.apply();
            acl.apply();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = sm.ingress_port;
            hdr.packet_in._pad = 0;
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
