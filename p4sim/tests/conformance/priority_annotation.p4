// BMv2's `@priority(v)` on const entries (p4c's non-standard annotation,
// p4c's table-entries-priority sample): the smallest value wins, and an
// entry without one takes the previous entry's value plus one.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> k; bit<8> v; }
struct headers_t { h_t h; }
struct meta_t { }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action mark(bit<8> v) { hdr.h.v = v; }
    table t {
        key = { hdr.h.k : ternary; }
        actions = { mark; }
        const entries = {
            // 0x0001 &&& 0x000F matches *1; priority 3
            16w0x0001 &&& 16w0x000F : mark(1) @priority(3);
            // exact 0x1181; no annotation: priority 3 + 1 = 4
            16w0x1181 : mark(2);
            // 1**1; priority 1, wins where it matches
            16w0x1001 &&& 16w0xF00F : mark(3) @priority(1);
        }
        default_action = mark(0xee);
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
