// Header forms from p4c's own samples: a struct of bit<W> fields inside a
// header (bvec-hdr), laid out in field order; extract<H>(_), which skips a
// header (issue774-4); assignment to a slice of a slice
// (gauntlet_nested_slice); minSizeInBytes of a header with a struct.
#include <core.p4>
#include <v1model.p4>

struct pair_t { bit<8> a; bit<4> b; bit<4> c; }
header h_t { bit<8> tag; pair_t p; }
header skip_t { bit<16> x; }
struct headers_t { h_t h; }
struct meta_t { }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract<skip_t>(_);
        pkt.extract(hdr.h);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_c(bit<4> v) { hdr.h.p.c = v; }
    action nop() { }
    table t {
        key = { hdr.h.p.b : exact; }
        actions = { set_c; nop; }
        const entries = {
            1 : set_c(7);
        }
        default_action = nop;
    }
    apply {
        sm.egress_spec = 1;
        hdr.h.p.a[7:4][1:0] = 2w3;
        hdr.h.tag = (bit<8>)hdr.h.minSizeInBytes();
        t.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
