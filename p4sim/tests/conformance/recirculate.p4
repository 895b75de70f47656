// recirculate_preserving_field_list in egress: the deparsed packet re-enters ingress with instance_type 4.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> inst; bit<8> eg; bit<8> kept; }
struct headers_t { h_t h; }
struct meta_t { @field_list(1) bit<8> x; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.instance_type == 4) {
            hdr.h.inst = 4;
            hdr.h.kept = meta.x;
        }
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            // Kept: the recirculated packet is this pass's deparsed output.
            hdr.h.eg = 0x77;
            meta.x = 9;
            recirculate_preserving_field_list(1);
        }
    }
}

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
