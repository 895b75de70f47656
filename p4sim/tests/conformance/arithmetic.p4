// Bit slices, concatenation, saturating and wrapping arithmetic, casts and signed shifts.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
header o_t {
    bit<8>  sat_add;
    bit<8>  sat_sub;
    bit<16> cat;
    bit<8>  mix;
    bit<8>  sshr;
    bit<8>  ssat;
    bit<8>  wrap;
}
struct headers_t { h_t h; o_t o; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.sat_add = hdr.h.a |+| hdr.h.b;
        hdr.o.sat_sub = hdr.h.a |-| hdr.h.b;
        hdr.o.cat = hdr.h.a ++ hdr.h.b;
        hdr.o.mix = hdr.h.a[7:4] ++ hdr.h.b[3:0];
        int<8> sa = (int<8>)hdr.h.a;
        int<8> sb = (int<8>)hdr.h.b;
        hdr.o.sshr = (bit<8>)(sa >> 1);
        hdr.o.ssat = (bit<8>)(sa |+| sb);
        hdr.o.wrap = hdr.h.b - hdr.h.a;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
