// Fields that do not start or end on a byte, inside a header of whole
// bytes: a 64-bit field that spans nine bytes (bit 3 to bit 66), 61- and
// 60-bit fields that fill eight bytes exactly from bits 3 and 4, fields of
// 3, 4 and 8 bits around them. Extracted, changed and emitted again: the
// values must cross the byte boundaries both ways unchanged (op 0), with
// wrap-around at each width (op 1), and moved between fields (op 2).
#include <core.p4>
#include <v1model.p4>

header op_t { bit<8> op; }
header u_t {
    bit<3>  a;
    bit<64> b;
    bit<61> c;
    bit<4>  d;
    bit<60> e;
    bit<8>  f;
}
struct headers_t { op_t op; u_t u; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.op);
        pkt.extract(hdr.u);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.op.op == 1) {
            hdr.u.a = hdr.u.a + 1;
            hdr.u.b = hdr.u.b + 1;
            hdr.u.c = hdr.u.c ^ 61w0x1555555555555555;
            hdr.u.d = ~hdr.u.d;
            hdr.u.e = hdr.u.e + 1;
            hdr.u.f = hdr.u.f + 1;
        } else if (hdr.op.op == 2) {
            bit<64> b = hdr.u.b;
            hdr.u.b = hdr.u.e ++ hdr.u.d;
            hdr.u.e = b[63:4];
            hdr.u.d = b[3:0];
            hdr.u.a = hdr.u.c[60:58];
            hdr.u.f = hdr.u.c[7:0];
        }
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
