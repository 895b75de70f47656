// hash() with crc16, crc32, csum16 and identity over the same four bytes.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> a; bit<16> b; }
header o_t { bit<16> crc16; bit<32> crc32; bit<16> csum16; bit<32> identity; bit<16> based; }
struct headers_t { h_t h; o_t o; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hash(hdr.o.crc16, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.o.crc32, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h.b }, 64w4294967296);
        hash(hdr.o.csum16, HashAlgorithm.csum16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.o.identity, HashAlgorithm.identity, 32w0, { hdr.h.a, hdr.h.b }, 64w4294967296);
        // base + (hash % max): 100 + (0x0fa1 % 16) = 100 + 1
        hash(hdr.o.based, HashAlgorithm.crc16, 16w100, { hdr.h.a, hdr.h.b }, 32w16);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
