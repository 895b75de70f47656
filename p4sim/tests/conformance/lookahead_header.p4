// lookahead<T>() of a header and of a struct: the fields come from the
// bits at the cursor without consuming them; a header comes back valid.
// A 96-bit header takes the wide path.
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<4> kind; bit<12> id; bit<8> len; }
header wide_t { bit<16> lo; bit<64> mid; bit<16> hi; }
struct pair_t { bool flag; bit<7> x; int<8> y; }
header out_t { bit<4> kind; bit<12> id; bit<8> len; bit<1> valid; bit<1> flag; bit<6> pad;
               bit<8> x; bit<8> y; bit<64> mid; bit<16> hi; }
header byte_t { bit<8> b; }
struct headers_t { out_t o; byte_t first; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        tag_t t = pkt.lookahead<tag_t>();
        pair_t p = pkt.lookahead<pair_t>();
        wide_t w = pkt.lookahead<wide_t>();
        hdr.o.setValid();
        hdr.o.kind = t.kind;
        hdr.o.id = t.id;
        hdr.o.len = t.len;
        hdr.o.valid = t.isValid() ? 1w1 : 1w0;
        hdr.o.flag = p.flag ? 1w1 : 1w0;
        hdr.o.x = (bit<8>)p.x;
        hdr.o.y = (bit<8>)p.y;
        hdr.o.mid = w.mid;
        hdr.o.hi = w.hi;
        pkt.extract(hdr.first);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
