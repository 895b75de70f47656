// return leaves the control; exit leaves ingress, yet egress still runs.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> v; bit<8> w; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.v = 1;
        if (hdr.h.k == 1) { return; }
        hdr.h.v = 2;
        if (hdr.h.k == 2) { exit; }
        hdr.h.v = 3;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.w = 0xee; }
}

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
