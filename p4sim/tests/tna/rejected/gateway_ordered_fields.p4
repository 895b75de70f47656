// A condition that orders two header fields (`a >= b`): a Tofino gateway
// compares a field with a constant, so an ordered comparison needs one
// constant operand (two fields may be compared with `==` and `!=`).
// p4sim: Tofino rule (gateway)
// bf-p4c: one operand of ingress::hdr.h.a >= ingress::hdr.h.b must be constant
#include <core.p4>
#include <tna.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs_t { h_t h; }
struct m_t { }
parser IP(packet_in pkt, out hs_t hdr, out m_t md, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.h);
        transition accept;
    }
}
control I(inout hs_t hdr, inout m_t md, in ingress_intrinsic_metadata_t ig_intr_md,
          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    apply {
        if (hdr.h.a >= hdr.h.b) {
            ig_tm_md.ucast_egress_port = 1;
        } else {
            ig_tm_md.ucast_egress_port = 2;
        }
    }
}
control ID(packet_out pkt, inout hs_t hdr, in m_t md,
           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}
parser EP(packet_in pkt, out hs_t hdr, out m_t md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
    }
}
control E(inout hs_t hdr, inout m_t md, in egress_intrinsic_metadata_t eg_intr_md,
          in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
          inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
          inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply { }
}
control ED(packet_out pkt, inout hs_t hdr, in m_t md,
           in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply { pkt.emit(hdr); }
}
Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;
Switch(pipe) main;
