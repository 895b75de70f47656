// error: generic_without_arguments.p4:8:20: `pair_t` is generic: give its type arguments
#include <core.p4>
#include <v1model.p4>

header pair_t<T> { T a; T b; }
struct meta_t { }

struct headers_t { pair_t p; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.p); transition accept; }
}
control C(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), C(), C(), V(), D()) main;
