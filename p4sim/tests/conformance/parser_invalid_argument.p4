// A varbit extract or an advance by a number of bits that is not a
// multiple of 8 fails with ParserInvalidArgument, before BMv2 checks the
// packet's length or the varbit's size (p4c sample
// test-parserinvalidargument-error).
#include <core.p4>
#include <v1model.p4>

header t_t { bit<8> op; bit<8> bits; }
header v_t { varbit<16> data; }
header o_t { bit<8> code; }
struct headers_t { o_t o; t_t t; v_t v; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t);
        transition select(hdr.t.op) {
            0: var;
            default: skip;
        }
    }
    state var {
        pkt.extract(hdr.v, (bit<32>)hdr.t.bits);
        transition accept;
    }
    state skip {
        pkt.advance((bit<32>)hdr.t.bits);
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
        } else if (sm.parser_error == error.HeaderTooShort) {
            hdr.o.code = 4;
        } else if (sm.parser_error == error.ParserInvalidArgument) {
            hdr.o.code = 6;
        } else {
            hdr.o.code = 0xff;
        }
        sm.egress_spec = 1;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
