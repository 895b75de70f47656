// Varbit forms from p4c's own samples: a varbit field in a checksum's
// field list, taken at its current length (checksum1, checksum-l4); a
// header stack of varbit headers extracted through `next` (equality); ==
// on varbit fields and on stacks of varbit headers (equality); a varbit
// local variable (issue447-5).
#include <core.p4>
#include <v1model.p4>

header t_t { bit<8> len; bit<8> eq; bit<16> csum; }
header v_t { varbit<32> data; }
struct headers_t { t_t t; v_t[2] vs; v_t w; }
struct meta_t { }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t);
        pkt.extract(hdr.vs.next, (bit<32>)hdr.t.len << 3);
        pkt.extract(hdr.vs.next, (bit<32>)hdr.t.len << 3);
        pkt.extract(hdr.w, (bit<32>)hdr.t.len << 3);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    varbit<32> tmp;
    apply {
        sm.egress_spec = 1;
        bit<8> eq = 0;
        if (hdr.vs[0] == hdr.vs[1]) {
            eq = eq | 1;
        }
        if (hdr.vs[0].data == hdr.w.data) {
            eq = eq | 2;
        }
        hdr.t.eq = eq;
        tmp = hdr.vs[0].data;
        hdr.vs[0].data = hdr.vs[1].data;
        hdr.vs[1].data = tmp;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(true, { hdr.vs[0].data, hdr.vs[1].data }, hdr.t.csum, HashAlgorithm.csum16);
    }
}
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
