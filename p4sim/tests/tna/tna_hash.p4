// TNA's Hash: CRC16 and CRC32 as bf-p4c configures them (CRC-16/ARC and
// CRC-32), a Hash narrower than its algorithm keeping the low bits. The
// STF's expected values come from Python's zlib.crc32 and a CRC-16/ARC
// written from its parameters. bf-p4c compiles this file
// (tests/tofino_compile.rs).
#include <core.p4>
#include <tna.p4>

header h_t {
    bit<8>  sel;
    bit<32> a;
    bit<16> b;
    bit<16> r16;
    bit<32> r32;
    bit<8>  r8;
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
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h16;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) h32;
    Hash<bit<8>>(HashAlgorithm_t.CRC16) h8;

    apply {
        // one hash per action: the hash path is 32 bits wide
        if (hdr.h.sel == 0) {
            hdr.h.r16 = h16.get({hdr.h.a});
        } else if (hdr.h.sel == 1) {
            hdr.h.r32 = h32.get({hdr.h.a, hdr.h.b});
        } else {
            hdr.h.r8 = h8.get({hdr.h.a});
        }
        ig_tm_md.ucast_egress_port = 1;
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
    apply { }
}

control ED(packet_out pkt, inout hs_t hdr, in m_t md,
           in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply { pkt.emit(hdr); }
}

Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;

Switch(pipe) main;
