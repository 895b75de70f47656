// Test that non-field LHS works in parser on BMv2.

#include <core.p4>
#include <v1model.p4>
@command_line("--loopsUnroll")

header test_h {
    bit<8> field;
}

struct header_t {
    test_h[4] hs;
}

struct metadata_t {
    bit<2> hs_next_index;
}

parser TestParser(packet_in pkt,
                  out header_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t std_meta) {
    state start {
        hdr.hs[meta.hs_next_index].setValid();
        transition accept;
    }
}

control DefaultDeparser(packet_out pkt, in header_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

control EmptyControl(inout header_t hdr, inout metadata_t meta, inout standard_metadata_t std_meta) {
    apply {}
}

control EmptyChecksum(inout header_t hdr, inout metadata_t meta) {
    apply {}
}

V1Switch(
    TestParser(),
    /*VerifyChecksum=*/EmptyChecksum(),
    /*Ingress=*/EmptyControl(),
    /*Egress=*/EmptyControl(),
    /*ComputeChecksum=*/EmptyChecksum(),
    DefaultDeparser()
) main;
