// for_registers.p4 unrolled by hand, for BMv2 (p4c 1.2.5's BMv2 back
// end runs a `for` body once): same STF (../for_registers.stf).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> n; bit<16> add; bit<16> total; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<16>>(4) cells;
    apply {
        bit<16> x;
        if (0 < hdr.h.n) { cells.read(x, 0); cells.write(0, x + hdr.h.add); }
        if (1 < hdr.h.n) { cells.read(x, 1); cells.write(1, x + hdr.h.add); }
        if (2 < hdr.h.n) { cells.read(x, 2); cells.write(2, x + hdr.h.add); }
        if (3 < hdr.h.n) { cells.read(x, 3); cells.write(3, x + hdr.h.add); }
        bit<16> total = 0;
        cells.read(x, 0); total = total + x;
        cells.read(x, 1); total = total + x;
        cells.read(x, 2); total = total + x;
        cells.read(x, 3); total = total + x;
        hdr.h.total = total;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
