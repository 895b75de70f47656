// Parser, checksum controls and deparser.
//
// The checks run in the order esa_core::wire::ParsedFrame::parse makes them,
// so the reference model and this program agree on which frames are not ESA
// (forwarded as L2) and which are malformed (dropped): docs/protocol.md 2.1.
#ifndef ESA_PARSER_P4
#define ESA_PARSER_P4

#include "headers.p4"

error {
    EsaLength,
    EsaVersion,
    EsaType
}

parser EsaParser(packet_in packet,
                 out headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        // Only unfragmented UDP over option-less IPv4 can be ESA; everything
        // else is ordinary traffic for the L2 table.
        transition select(hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.flags[0:0],
                          hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (4, 5, 0, 0, 17): parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            ESA_UDP_PORT: parse_esa;
            default: accept;
        }
    }

    state parse_esa {
        packet.extract(hdr.esa);
        packet.extract(hdr.values);
        // A packet of another lane count would misalign every lane.
        verify(hdr.ipv4.total_len == ESA_IPV4_TOTAL_LEN, error.EsaLength);
        verify(hdr.udp.length == ESA_UDP_LEN, error.EsaLength);
        verify(hdr.esa.version == ESA_VERSION, error.EsaVersion);
        verify(hdr.esa.packet_type >= TYPE_DATA && hdr.esa.packet_type <= TYPE_PULL,
               error.EsaType);
        transition accept;
    }
}

control EsaVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        // Only ESA packets are checked: other traffic passes untouched.
        verify_checksum(hdr.esa.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
              hdr.ipv4.ident, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.checksum, HashAlgorithm.csum16);
    }
}

control EsaComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        // Egress rewrote the destination address of ESA packets.
        update_checksum(hdr.esa.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
              hdr.ipv4.ident, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.checksum, HashAlgorithm.csum16);
    }
}

control EsaDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.udp);
        packet.emit(hdr.esa);
        packet.emit(hdr.values);
    }
}

#endif  // ESA_PARSER_P4
