// A table whose two actions count in two different Counters: a table
// drives one counter address for all its actions, so an action that uses
// one of its counters must use them all.
// p4sim: the actions of table `I.drops` use different indirect externs
// bf-p4c: There are issues with the following indirect externs
#include <core.p4>
#include <tna.p4>
header h_t { bit<32> a; bit<32> b; bit<32> c; bit<16> i; }
struct hs_t { h_t h; }
struct m_t { bit<32> x; }
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
    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) dropped;
    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) spoofed;
    action count_drop() { dropped.count(hdr.h.i); }
    action count_spoofed() { spoofed.count(hdr.h.i); }
    table drops {
        key = { hdr.h.a: exact; }
        actions = { count_drop; count_spoofed; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 256;
    }

    apply {
        drops.apply();

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
