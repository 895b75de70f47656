// Optional match: an entry either requires an exact value or matches anything.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> v; }
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
        key = { hdr.h.a: exact; hdr.h.b: optional; }
        actions = { set; drop; }
        default_action = drop();
        const entries = {
            (1, 7): set(0x17);
            (1, _): set(0x10);
            (2, 7): set(0x27);
        }
    }
    apply { t.apply(); }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
