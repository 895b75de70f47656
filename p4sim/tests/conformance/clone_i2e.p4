// clone(I2E) to a mirroring session: the copy goes to the session port with instance_type 1.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> inst; bit<8> touched; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        // The clone carries the packet as it entered ingress, not this write.
        hdr.h.touched = 1;
        sm.egress_spec = 1;
        clone(CloneType.I2E, 5);
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.inst = (bit<8>)sm.instance_type; }
}

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
