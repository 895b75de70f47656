// Twelve RegisterActions, each indexed by the result of the one before.
// p4sim: ingress needs at least 13 stages
// bf-p4c: tofino supports up to 12 stages, using 13
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
    Register<bit<16>, bit<16>>(65536, 0) r0;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r0) a0 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r1;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r1) a1 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r2;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r2) a2 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r3;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r3) a3 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r4;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r4) a4 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r5;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r5) a5 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r6;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r6) a6 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r7;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r7) a7 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r8;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r8) a8 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r9;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r9) a9 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r10;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r10) a10 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };
    Register<bit<16>, bit<16>>(65536, 0) r11;
    RegisterAction<bit<16>, bit<16>, bit<16>>(r11) a11 = {
        void apply(inout bit<16> v, out bit<16> rv) { rv = v; v = v + 1; }
    };

    apply {
        bit<16> v0 = a0.execute(hdr.h.i);
        bit<16> v1 = a1.execute(v0);
        bit<16> v2 = a2.execute(v1);
        bit<16> v3 = a3.execute(v2);
        bit<16> v4 = a4.execute(v3);
        bit<16> v5 = a5.execute(v4);
        bit<16> v6 = a6.execute(v5);
        bit<16> v7 = a7.execute(v6);
        bit<16> v8 = a8.execute(v7);
        bit<16> v9 = a9.execute(v8);
        bit<16> v10 = a10.execute(v9);
        bit<16> v11 = a11.execute(v10);
        hdr.h.i = v11;

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
