// Register read-modify-write: each packet adds to a cell and reports the sum.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> idx; bit<32> add; bit<32> sum; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<32>>(8) acc;
    apply {
        bit<32> x;
        acc.read(x, (bit<32>)hdr.h.idx);
        x = x + hdr.h.add;
        acc.write((bit<32>)hdr.h.idx, x);
        hdr.h.sum = x;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
