// error: constant_missing_field.p4:7:27: every field of pair_t must be initialised
#include <core.p4>
#include <v1model.p4>

struct port_t { bit<9> v; }
struct pair_t { port_t port; bit<8> tag; }
const pair_t UNFINISHED = { tag = 8w1 };

header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control C(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.a = UNFINISHED.tag; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), C(), C(), V(), D()) main;
