// Range match in const entries, first match wins (v1model's range match kind).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> port; bit<8> v; }
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
        key = { hdr.h.port: range; }
        actions = { set; drop; }
        default_action = drop();
        // Entries are matched in order: the first matching range wins.
        const entries = {
            1000 .. 1999: set(1);
            0 .. 2047: set(2);
        }
    }
    apply { t.apply(); }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
