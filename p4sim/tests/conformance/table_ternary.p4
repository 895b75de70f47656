// Ternary with priorities: among matching entries the one with the largest STF
// priority wins (as P4_16's largest_priority_wins; p4c's STF runner hands BMv2
// 10000 - p, and BMv2 picks the lowest number).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> k; bit<8> v; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.v = v; sm.egress_spec = 1; }
    action drop() { mark_to_drop(sm); }
    table t {
        key = { hdr.h.k: ternary; }
        actions = { set; drop; }
        default_action = drop();
    }
    apply { t.apply(); }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
