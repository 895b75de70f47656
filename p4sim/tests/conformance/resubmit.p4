// resubmit_preserving_field_list: the original packet runs ingress again (instance_type 6) with the @field_list metadata kept.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> inst; bit<8> tries; }
struct headers_t { h_t h; }
struct meta_t { @field_list(1) bit<8> tries; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.instance_type == 0) {
            meta.tries = 1;
            hdr.h.inst = 0xaa;  // lost: resubmit starts from the original packet
            resubmit_preserving_field_list(1);
        } else {
            hdr.h.inst = (bit<8>)sm.instance_type;
            hdr.h.tries = meta.tries;
        }
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
