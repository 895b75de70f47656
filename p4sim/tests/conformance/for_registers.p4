// A loop whose body reads and writes a register: each packet adds
// hdr.add to cells 0 .. n-1 (n from the packet, at most 4), then reports
// the sum of all four cells.
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
        for (bit<32> i = 0; i < 4; i = i + 1) {
            if (i >= (bit<32>)hdr.h.n) {
                break;
            }
            bit<16> x;
            cells.read(x, i);
            cells.write(i, x + hdr.h.add);
        }
        bit<16> total = 0;
        for (bit<32> i in 0 .. 3) {
            bit<16> x;
            cells.read(x, i);
            total = total + x;
        }
        hdr.h.total = total;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
