// error: array_next.p4:13:34: an array of bit<8> has no member `next`
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8>[4] arr; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        hdr.h.arr[0] = hdr.h.arr.next;
        transition accept;
    }
}
control C(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), C(), C(), V(), D()) main;
