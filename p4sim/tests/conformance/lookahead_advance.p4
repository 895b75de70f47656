// lookahead<bit<16>>() peeks without consuming; advance(16) skips.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; }
header o_t { bit<16> peek; bit<8> skipped; }
struct headers_t { o_t o; h_t h; }
struct meta_t { bit<16> peek; bit<8> skipped; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        meta.peek = pkt.lookahead<bit<16>>();
        transition select(meta.peek[15:8]) {
            0xff: skip;
            default: plain;
        }
    }
    state skip {
        pkt.advance(16);
        meta.skipped = 1;
        transition plain;
    }
    state plain {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.peek = meta.peek;
        hdr.o.skipped = meta.skipped;
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
