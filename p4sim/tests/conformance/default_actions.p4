// Default actions: a const default with const entries, and a default the control plane may change.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> v1; bit<8> v2; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set1(bit<8> v) { hdr.h.v1 = v; }
    action set2(bit<8> v) { hdr.h.v2 = v; }
    table t1 {
        key = { hdr.h.k: exact; }
        actions = { set1; }
        const entries = { 0x01: set1(1); }
        const default_action = set1(5);
    }
    table t2 {
        key = { hdr.h.k: exact; }
        actions = { set2; }
        default_action = set2(7);
    }
    apply { sm.egress_spec = 1; t1.apply(); t2.apply(); }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
