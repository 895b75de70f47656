// A varbit field in a struct (p4c's issue1291-bmv2, issue407-3): kept in
// metadata and in a struct-typed local, copied with its struct, and read
// back into headers at the length it was assigned with. Not run on BMv2:
// p4c-bm2-ss compiles it, but simple_switch refuses the JSON ("Invalid
// reference to object of type 'header' with name
// 'userMetadata._held_data1'": BMv2 keeps a varbit only in a header), so
// the expectations are P4_16's (a varbit value carries its length).
#include <core.p4>
#include <v1model.p4>

header t_t { bit<8> len; bit<8> tag; }
header v_t { varbit<32> data; }
struct headers_t { t_t t; v_t a; v_t b; }
struct held_t { bit<8> tag; varbit<32> data; }
struct meta_t { held_t held; varbit<32> other; }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t);
        pkt.extract(hdr.a, (bit<32>)hdr.t.len << 3);
        pkt.extract(hdr.b, (bit<32>)hdr.t.tag << 3);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.held.tag = hdr.t.len;
        meta.held.data = hdr.a.data;
        meta_t copy = meta;
        meta.other = hdr.b.data;
        // The two fields swap, each with its own length.
        hdr.a.data = meta.other;
        hdr.b.data = copy.held.data;
        hdr.t.len = hdr.t.tag;
        hdr.t.tag = copy.held.tag;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
