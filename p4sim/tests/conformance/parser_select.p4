// Parser select: a value/mask case, ranges, a don't-care, default, and a
// loop over a header stack that ends at the item with bos = 1.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> kind; bit<8> val; }
header item_t { bit<7> data; bit<1> bos; }
header out_t { bit<8> path; bit<8> count; }
struct headers_t { h_t h; out_t o; item_t[4] items; }
struct meta_t { bit<8> path; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind, hdr.h.val) {
            (0x10 &&& 0xf0, _): masked;
            (0x20 .. 0x2f, 0x00 .. 0x7f): ranged;
            (0x30, _): items;
            default: fallback;
        }
    }
    state masked { meta.path = 1; transition accept; }
    state ranged { meta.path = 2; transition accept; }
    state fallback { meta.path = 3; transition accept; }
    state items { meta.path = 4; transition next_item; }
    state next_item {
        pkt.extract(hdr.items.next);
        transition select(hdr.items.last.bos) {
            1: accept;
            default: next_item;
        }
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> n = 0;
        if (hdr.items[0].isValid()) { n = n + 1; }
        if (hdr.items[1].isValid()) { n = n + 1; }
        if (hdr.items[2].isValid()) { n = n + 1; }
        if (hdr.items[3].isValid()) { n = n + 1; }
        hdr.o.setValid();
        hdr.o.path = meta.path;
        hdr.o.count = n;
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); pkt.emit(hdr.o); pkt.emit(hdr.items); }
}

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
