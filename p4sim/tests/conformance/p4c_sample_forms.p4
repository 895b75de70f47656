// Forms p4c's own BMv2 samples use that p4sim once refused
// (tests/all/p4c_samples.rs runs those samples): an empty top-level
// declaration, a lookahead used as a statement and a field of a lookahead
// (issue1768, issue1025), a stack indexed by an int<8> field
// (runtime-index), an action_run label naming an action the actions list
// binds (gauntlet_exit_combination_3), and the STF naming a stack
// element's field as BMv2's JSON does, `s$0.v` (ternary2).
#include <core.p4>
#include <v1model.p4>

;

header h_t { bit<8> op; int<8> idx; bit<8> hi; }
header e_t { bit<8> v; }
header nibbles_t { bit<4> high; bit<4> low; }
struct headers_t { h_t h; e_t[2] s; }
struct meta_t { bit<8> low; }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.lookahead<nibbles_t>();
        meta.low = (bit<8>)pkt.lookahead<nibbles_t>().low;
        pkt.extract(hdr.h);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
};

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_hi(inout bit<8> x, bit<8> v) { x = v; }
    action nop() { }
    table t {
        key = { hdr.s[0].v : exact; }
        actions = { set_hi(hdr.h.hi); nop; }
        default_action = nop;
    }
    apply {
        sm.egress_spec = 1;
        hdr.s[hdr.h.idx].v = hdr.s[hdr.h.idx].v + meta.low;
        switch (t.apply().action_run) {
            set_hi: { hdr.h.op = 0xaa; }
            nop: { hdr.h.op = 0xbb; }
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
