// A parser value set in a select: it starts empty (as in BMv2, until the
// control plane writes members), so its case never matches and the
// select goes on to the next case; a value of the same field matched by
// a constant still does.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> v; }
struct headers_t { eth_t eth; tag_t tag; }
struct meta_t { }
struct pair_t { bit<16> type; bit<8> first; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    value_set<bit<16>>(4) types;
    value_set<pair_t>(2) pairs;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            types: parse_tag;
            0x0800: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        transition select(hdr.eth.type, pkt.lookahead<bit<8>>()) {
            pairs: accept;
            default: extract_tag;
        }
    }
    state extract_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.tag.isValid()) {
            hdr.tag.v = hdr.tag.v + 1;
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
