// Actions bound to arguments in a table's `actions` list: the directional
// arguments are given by the list, the directionless ones by the entry
// or the default action; the default action repeats the bound ones.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action put(out bit<8> dst, bit<8> v) { dst = v; }
    action add_to(inout h_t h, in bit<8> extra, bit<8> v) { h.a = h.a + v + extra; }
    table t {
        key = { hdr.h.k : exact; }
        actions = { put(hdr.h.b); add_to(hdr.h, meta.m); }
        default_action = put(hdr.h.b, 8w0xee);
    }
    apply {
        meta.m = 8w0x10;
        t.apply();
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
