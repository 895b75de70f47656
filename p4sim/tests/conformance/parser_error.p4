// verify() and a short packet end parsing with an error, but BMv2 still
// runs ingress: standard_metadata.parser_error says what happened.
#include <core.p4>
#include <v1model.p4>

error { ZeroA }

header h_t { bit<8> a; bit<8> b; }
header o_t { bit<8> code; }
struct headers_t { o_t o; h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        verify(hdr.h.a != 0, error.ZeroA);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        if (sm.parser_error == error.NoError) {
            hdr.o.code = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.o.code = 1;
        } else if (sm.parser_error == error.ZeroA) {
            hdr.o.code = 2;
        } else {
            hdr.o.code = 3;
        }
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
