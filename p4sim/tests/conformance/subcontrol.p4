// Sub-control instances applied with inout and out arguments (P4_16
// 6.8: copy-in, copy-out, left to right, also after `exit`): a header
// field and the metadata passed inout, an out verdict, a sub-control
// inside a sub-control, `exit` inside a sub-control (its copy-out still
// happens, the rest of ingress does not run), one instance applied twice,
// and two arguments that overlap, where the copy-out order decides.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> op; bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Bump(inout h_t h, inout bit<8> x) {
    apply { h.b = h.b + 1; x = x + 10; }
}

control Judge(inout h_t h, inout meta_t meta, out bit<8> verdict) {
    Bump() bump;
    apply {
        bump.apply(h, meta.m);
        verdict = h.a;
        if (h.op == 2) { h.c = 0x22; exit; }
        h.c = 0x11;
    }
}

control Twice(inout bit<8> v) {
    apply { v = v + 1; }
}

// x is h.d at the call: h is copied out first, then x
control Overlap(inout h_t h, inout bit<8> x) {
    apply { x = h.d + 0x20; h.d = 1; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Judge() judge;
    Twice() twice;
    Overlap() overlap;
    apply {
        sm.egress_spec = 1;
        meta.m = hdr.h.d;
        bit<8> verdict = 0xff;
        judge.apply(hdr.h, meta, verdict);
        hdr.h.d = meta.m;
        hdr.h.a = verdict;
        twice.apply(hdr.h.c);
        twice.apply(hdr.h.c);
        overlap.apply(hdr.h, hdr.h.d);
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
