/* Basic L2/L3 forwarding for v1model: LPM on the IPv4 destination picks a
 * next hop, an exact table rewrites MACs, the IPv4 checksum is verified and
 * recomputed. */
#include <core.p4>
#include <v1model.p4>

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<9>  port_t;

const bit<16> TYPE_IPV4 = 0x0800;
const bit<16> TYPE_VLAN = 16w0x8100;

header ethernet_t {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header ipv4_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      diffserv;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct metadata_t {
    bit<16> next_hop;
}

parser MyParser(packet_in packet,
                out headers_t hdr,
                inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4, error.NoMatch);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    direct_counter(CounterType.packets_and_bytes) route_hits;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_next_hop(bit<16> next_hop) {
        meta.next_hop = next_hop;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    action rewrite(mac_addr_t src, mac_addr_t dst, port_t port) {
        hdr.ethernet.src_addr = src;
        hdr.ethernet.dst_addr = dst;
        standard_metadata.egress_spec = port;
    }

    @name("ingress.ipv4_lpm")
    table ipv4_lpm {
        key = {
            hdr.ipv4.dst_addr : lpm @name("dst");
        }
        actions = {
            set_next_hop;
            @defaultonly drop;
        }
        counters = route_hits;
        size = 1024;
        default_action = drop();
    }

    table next_hop {
        key = {
            meta.next_hop : exact;
        }
        actions = {
            rewrite;
            drop;
            NoAction;
        }
        const default_action = NoAction();
        const entries = {
            16w0 : drop();
            1    : rewrite(48w0x000000000001, 0x0000_0000_0002, 9w1);
        }
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
            next_hop.apply();
        } else if (!hdr.ipv4.isValid()) {
            standard_metadata.egress_spec = (port_t) 1;
        } else {
            drop();
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(MyParser(),
         MyVerifyChecksum(),
         MyIngress(),
         MyEgress(),
         MyComputeChecksum(),
         MyDeparser()) main;
