// Generic headers and structs (p4c's issue4835-generic-struct): one
// declaration specialized with two widths, a generic struct holding
// specialized headers, a generic struct nested in another, and a
// specialization named through a typedef; extracted, swapped, compared
// and emitted as their field types say.
#include <core.p4>
#include <v1model.p4>

header pair_t<T> { T a; T b; }
struct two_t<T, U> { pair_t<T> narrow; pair_t<U> wide; }
struct held_t<T> { two_t<T, bit<16>> two; T sum; }
typedef pair_t<bit<8>> byte_pair_t;
struct meta_t { held_t<bit<8>> held; }

parser Prs(packet_in pkt, out two_t<bit<8>, bit<16>> hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.narrow);
        pkt.extract(hdr.wide);
        transition accept;
    }
}

control Ing(inout two_t<bit<8>, bit<16>> hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.held.two = hdr;
        meta.held.sum = hdr.narrow.a + hdr.narrow.b;
        byte_pair_t p = hdr.narrow;
        // Swap each pair's fields.
        hdr.narrow.a = p.b;
        hdr.narrow.b = p.a;
        hdr.wide.a = meta.held.two.wide.b;
        hdr.wide.b = meta.held.two.wide.a;
        if (meta.held.two.narrow == p) {
            hdr.wide.a = hdr.wide.a + (bit<16>)meta.held.sum;
        }
    }
}

control Eg(inout two_t<bit<8>, bit<16>> hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}
control Vck(inout two_t<bit<8>, bit<16>> hdr, inout meta_t meta) { apply { } }
control Cck(inout two_t<bit<8>, bit<16>> hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in two_t<bit<8>, bit<16>> hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
