// A counter indexed by an action parameter concatenated with a header
// field: the address is action data or a hash of packet fields, not both.
// p4sim: the index of counter `I.hits` concatenates an action parameter
// bf-p4c: Complex expression is not yet supported
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
    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) hits;
    action count_hit(bit<8> port_group) { hits.count(port_group ++ hdr.h.i[7:0]); }
    table classify {
        key = { hdr.h.a: exact; }
        actions = { count_hit; @defaultonly NoAction; }
        const default_action = NoAction();
    }

    apply {
        classify.apply();

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
