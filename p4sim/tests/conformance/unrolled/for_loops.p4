// for_loops.p4 unrolled by hand, for BMv2 (p4c 1.2.5's BMv2 back end
// runs a `for` body once): same headers, same STF (../for_loops.stf).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> limit;
    bit<8> sum;
    bit<8> evens;
    bit<8> first_over;
    bit<8> range_sum;
    bit<8> top_count;
    bit<8> pairs;
    bit<8> steps;
    bit<8> meet;
}
header e_t { bit<8> v; }
struct headers_t { h_t h; e_t[4] s; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.s[0]);
        pkt.extract(hdr.s[1]);
        pkt.extract(hdr.s[2]);
        pkt.extract(hdr.s[3]);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.sum = hdr.s[0].v + hdr.s[1].v + hdr.s[2].v + hdr.s[3].v;
        hdr.h.evens = hdr.s[0].v + hdr.s[2].v;
        if (hdr.s[0].v > hdr.h.limit) {
            hdr.h.first_over = 0;
        } else if (hdr.s[1].v > hdr.h.limit) {
            hdr.h.first_over = 1;
        } else if (hdr.s[2].v > hdr.h.limit) {
            hdr.h.first_over = 2;
        } else if (hdr.s[3].v > hdr.h.limit) {
            hdr.h.first_over = 3;
        } else {
            hdr.h.first_over = 0xff;
        }
        hdr.h.range_sum = 1 + 2 + 3 + 4 + 5;
        hdr.h.top_count = 1 + 1 + 1 + 1 + 1 + 1;
        // i = 1: j 0; i = 2: j 0; i = 3: j 0, 2; i = 4: j 0, 2 (3 breaks)
        hdr.h.pairs = 1 + 1 + 2 + 2;
        // limit iterations of + 2
        hdr.h.steps = hdr.h.limit << 1;
        // (0, 10) .. (4, 6): the last j
        hdr.h.meet = 6;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
