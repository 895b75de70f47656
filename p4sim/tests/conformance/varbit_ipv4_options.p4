// varbit<W> and the two-argument extract: IPv4 options, their length
// from IHL, extracted into a varbit field and emitted back byte-exact;
// the parser error of an IHL that asks for more than the field holds,
// and of a packet shorter than the options, reach ingress.
#include <core.p4>
#include <v1model.p4>

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}
header ipv4_options_t { varbit<320> options; }
header report_t { bit<8> error_code; bit<8> options_valid; bit<8> copy_valid; }
struct headers_t {
    report_t report;
    ipv4_t ipv4;
    ipv4_options_t options;
    ipv4_options_t copy;
}
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.options, (bit<32>)(hdr.ipv4.ihl - 5) * 32);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.report.setValid();
        if (sm.parser_error == error.NoError) {
            hdr.report.error_code = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.report.error_code = 1;
        } else if (sm.parser_error == error.HeaderTooShort) {
            hdr.report.error_code = 2;
        } else if (sm.parser_error == error.ParserInvalidArgument) {
            hdr.report.error_code = 3;
        } else {
            hdr.report.error_code = 0xff;
        }
        hdr.report.options_valid = hdr.options.isValid() ? 8w1 : 8w0;
        // a whole varbit header assigned: the copy carries the length
        if (hdr.ipv4.ttl == 0x40) {
            hdr.copy = hdr.options;
        }
        hdr.report.copy_valid = hdr.copy.isValid() ? 8w1 : 8w0;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.report);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.options);
        pkt.emit(hdr.copy);
    }
}

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
