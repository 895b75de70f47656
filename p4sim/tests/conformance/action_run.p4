// switch on t.apply().action_run, with a default case for the miss (NoAction).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> v; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action a1() { }
    action a2() { }
    table t {
        key = { hdr.h.k: exact; }
        actions = { a1; a2; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        switch (t.apply().action_run) {
            a1: { hdr.h.v = 0x11; }
            a2: { hdr.h.v = 0x22; }
            default: { hdr.h.v = 0xdd; }
        }
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
