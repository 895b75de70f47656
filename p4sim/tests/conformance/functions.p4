// A function with a return value and early return, called from a control.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> max; bit<8> clamp; }
struct headers_t { h_t h; }
struct meta_t { }

bit<8> max8(in bit<8> x, in bit<8> y) {
    if (x > y) { return x; }
    return y;
}

bit<8> clamp8(in bit<8> x, in bit<8> limit) {
    return x > limit ? limit : x;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.max = max8(hdr.h.a, hdr.h.b);
        hdr.h.clamp = clamp8(hdr.h.max, 0x40);
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
