// Actions with header and struct parameters (in, out, inout), called
// from a control's apply block: copy-in, copy-out, validity included.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
header x_t { bit<8> v; }
struct sums_t { bit<8> sum; bit<8> diff; }
struct headers_t { h_t h; x_t x; }
struct meta_t { sums_t s; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action measure(in h_t h, out sums_t s) {
        s.sum = h.a + h.b;
        s.diff = h.a - h.b;
    }
    action swap(inout h_t h, bit<8> salt) {
        bit<8> t = h.a;
        h.a = h.b ^ salt;
        h.b = t;
    }
    action stamp(out x_t x, in sums_t s) {
        x.setValid();
        x.v = s.sum;
    }
    apply {
        measure(hdr.h, meta.s);
        swap(hdr.h, 8w0x0f);
        if (meta.s.diff != 0) {
            stamp(hdr.x, meta.s);
        }
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
