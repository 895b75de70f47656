// Functions returning a struct and a header: the result initialises a
// variable, is assigned to a header field of the packet, or is dropped;
// a returned header keeps the validity the function gave it.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
header x_t { bit<8> v; }
struct pair_t { bit<8> lo; bit<8> hi; }
struct headers_t { h_t h; x_t x; x_t y; }
struct meta_t { }

pair_t split(in bit<16> v) {
    pair_t p;
    p.lo = v[7:0];
    p.hi = v[15:8];
    return p;
}

x_t tag(in bit<8> v) {
    x_t t;
    if (v != 0) {
        t.setValid();
        t.v = v + 1;
    } else {
        t.setInvalid();
    }
    return t;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        pair_t p = split(hdr.h.a ++ hdr.h.b);
        hdr.h.a = p.lo;
        hdr.h.b = p.hi;
        hdr.x = tag(hdr.h.a);
        hdr.y = tag(0);
        split(16w0);
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
