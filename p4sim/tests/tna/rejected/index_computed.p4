// A RegisterAction executed at an index computed from a header field: the
// address of an indirect extern comes from the match (action data, a
// constant) or from a hash of packet fields, never from an ALU result.
// p4sim: the index of register `I.r` is computed by an operator
// bf-p4c: The index is too complex for the primitive to be handled
#include <core.p4>
#include <tna.p4>
header h_t { bit<32> a; bit<32> b; bit<32> c; bit<16> i; }
struct hs_t { h_t h; }
struct m_t { bit<32> x; }
struct pair_t { bit<32> lo; bit<32> hi; }
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
    Register<bit<32>, bit<16>>(16, 0) r;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) bump = {
        void apply(inout bit<32> v, out bit<32> rv) { v = v + hdr.h.a; rv = v; }
    };

    apply {
        hdr.h.c = bump.execute(hdr.h.i + 1);

        ig_tm_md.ucast_egress_port = 1;
    }
}
control ID(packet_out pkt, inout hs_t hdr, in m_t md, in ingress_intrinsic_metadata_for_deparser_t d) {
    apply { pkt.emit(hdr); }
}
parser EP(packet_in pkt, out hs_t hdr, out m_t md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); transition accept; }
}
control E(inout hs_t hdr, inout m_t md, in egress_intrinsic_metadata_t eg_intr_md) {
    apply { }
}
control ED(packet_out pkt, inout hs_t hdr, in m_t md) {
    apply { pkt.emit(hdr); }
}
Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;
Switch(pipe) main;
