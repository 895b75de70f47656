// An action called directly with in, out and inout parameters (copy-in/copy-out).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action twice(in bit<8> x, out bit<8> y, inout bit<8> z) {
        y = x + x;
        z = z + 1;
    }
    apply {
        sm.egress_spec = 1;
        twice(hdr.h.a, hdr.h.b, hdr.h.c);
        // z is copied in before y is written back: c sees the old value.
        twice(hdr.h.c, hdr.h.c, hdr.h.c);
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
