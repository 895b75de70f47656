// Recirculation on Tofino 1: what goes out of pipe 0's recirculation port
// (68) comes back into ingress with ingress_port 68, as the egress
// deparser emitted it (through egress, or straight from the ingress
// deparser with bypass_egress). Ingress counts its passes in the packet,
// egress counts its own and records the ingress port it last saw; after
// `laps` passes the packet leaves on port 1. bf-p4c compiles this file
// (tests/tofino_compile.rs).
#include <core.p4>
#include <tna.p4>

header h_t {
    bit<8>  laps;     // ingress passes wanted
    bit<8>  bypass;   // 1: recirculate with bypass_egress
    bit<8>  ig_seen;  // ingress passes so far
    bit<8>  eg_seen;  // egress passes so far
    bit<16> last_port; // ingress_port of the last ingress pass
}

struct hs_t { h_t h; }
struct m_t { }

parser IP(packet_in pkt, out hs_t hdr, out m_t md,
          out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.h);
        transition accept;
    }
}

control I(inout hs_t hdr, inout m_t md,
          in ingress_intrinsic_metadata_t ig_intr_md,
          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    apply {
        hdr.h.ig_seen = hdr.h.ig_seen + 1;
        hdr.h.last_port = (bit<16>) ig_intr_md.ingress_port;
        if (hdr.h.ig_seen == hdr.h.laps) {
            ig_tm_md.ucast_egress_port = 1;
        } else {
            ig_tm_md.ucast_egress_port = 68;
            if (hdr.h.bypass == 1) {
                ig_tm_md.bypass_egress = 1;
            }
        }
    }
}

control ID(packet_out pkt, inout hs_t hdr, in m_t md,
           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}

parser EP(packet_in pkt, out hs_t hdr, out m_t md,
          out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.h);
        transition accept;
    }
}

control E(inout hs_t hdr, inout m_t md,
          in egress_intrinsic_metadata_t eg_intr_md,
          in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
          inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
          inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
        hdr.h.eg_seen = hdr.h.eg_seen + 1;
    }
}

control ED(packet_out pkt, inout hs_t hdr, in m_t md,
           in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply { pkt.emit(hdr); }
}

Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;
Switch(pipe) main;
