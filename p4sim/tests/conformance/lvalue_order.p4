// A stack index that calls a function is evaluated once, before the
// right-hand side, even in a compound assignment (p4c samples
// gauntlet_index_7 and opassign2). An index without a call is read when the
// element is written, after a right-hand side that changes its variable:
// p4c orders side effects only, and BMv2 writes that element.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> i; bit<8> f; }
header e_t { bit<8> x; }
struct headers_t { h_t h; e_t[4] s; }
struct meta_t { }

bit<8> postincr(inout bit<8> x) {
    bit<8> old = x;
    x = x + 1;
    return old;
}

bit<8> reset(inout bit<8> x) {
    x = 0;
    return 0x50;
}

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.f == 0) {
            // reset sets i to 0 before the index is read: s[0] = 0x50
            hdr.s[hdr.h.i & 3].x = reset(hdr.h.i);
        } else {
            // s[i] |= f, then s[i + 1] |= f: i grows by 2, not 4
            hdr.s[postincr(hdr.h.i) & 3].x |= hdr.h.f;
            hdr.s[postincr(hdr.h.i) & 3].x[3:0] |= hdr.h.f[3:0];
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
