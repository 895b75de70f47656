// A varbit after fixed fields of the same header: a TLV whose length byte
// (read with lookahead) gives the value's bytes; the value emitted back
// as long as it was read; minSizeInBits / maxSizeInBits and the byte
// forms of the type and of an instance; a local header with a varbit;
// a digest of a struct holding the header (so P4Info has the header type).
#include <core.p4>
#include <v1model.p4>

header tlv_t { bit<8> kind; bit<8> len; varbit<64> value; }
header sizes_t {
    bit<8> min_bits;
    bit<8> max_bits;
    bit<8> min_bytes;
    bit<8> max_bytes;
    bit<8> local_valid;
}
struct headers_t { sizes_t sizes; tlv_t tlv; }
struct meta_t { }
struct learn_t { tlv_t tlv; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.tlv, (bit<32>)pkt.lookahead<bit<16>>()[7:0] * 8);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.sizes.setValid();
        hdr.sizes.min_bits = (bit<8>)tlv_t.minSizeInBits();
        hdr.sizes.max_bits = (bit<8>)tlv_t.maxSizeInBits();
        hdr.sizes.min_bytes = (bit<8>)hdr.tlv.minSizeInBytes();
        hdr.sizes.max_bytes = (bit<8>)hdr.tlv.maxSizeInBytes();
        // a local copy, then back: the value and its length go together
        tlv_t keep = hdr.tlv;
        hdr.sizes.local_valid = keep.isValid() ? 8w1 : 8w0;
        hdr.tlv.setInvalid();
        if (sm.parser_error == error.NoError) {
            hdr.tlv = keep;
            digest<learn_t>(1, { hdr.tlv });
        }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
