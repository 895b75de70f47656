// error: initializer_field_twice.p4:13:18: field `a` is initialised twice
#include <core.p4>
#include <v1model.p4>

struct pair_t { bit<8> a; bit<8> b; }
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { pair_t p; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        meta.p = { a = hdr.h.a, a = hdr.h.b };
        pkt.extract(hdr.h);
        transition accept;
    }
}
control C(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), C(), C(), V(), D()) main;
