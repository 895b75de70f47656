// TNA semantics p4sim implements, one operation per `op` value: the
// STF beside this file has the expected bytes, written from the TNA
// documentation (p4sim/README.md, "TNA"), not from a p4sim run.
// bf-p4c compiles this file (tests/tofino_compile.rs).
#include <core.p4>
#include <tna.p4>

header h_t {
    bit<8>  op;
    bit<8>  arg;
    bit<16> idx;
    bit<32> val;
    bit<32> res;
    bit<16> csum;
}

header resub_t {
    bit<32> val;
    bit<32> pad;
}

// ingress -> egress
header bridge_t {
    bit<8>  hv;     // 1: h follows
    bit<7>  pad;
    bit<1>  ck_ok;  // Checksum.verify() in the ingress parser
    bit<16> err;    // ig_prsr_md.parser_err
}

// egress writes it in front of every packet it sends
header tag_t {
    bit<8>  ck_ok;
    bit<8>  err;
    bit<16> eport;
    bit<16> rid;
}

struct ih_t {
    h_t h;
}

struct im_t {
    resub_t  resub;
    bridge_t bridge;
}

struct eh_t {
    tag_t tag;
    h_t   h;
}

struct em_t {
    bridge_t bridge;
}

struct pair_t {
    bit<32> lo;
    bit<32> hi;
}

parser IP(packet_in pkt, out ih_t hdr, out im_t md,
          out ingress_intrinsic_metadata_t ig_intr_md) {
    Checksum() ck;

    state start {
        pkt.extract(ig_intr_md);
        md.bridge.setValid();
        md.bridge.hv = 0;
        md.bridge.pad = 0;
        md.bridge.ck_ok = 0;
        transition select(ig_intr_md.resubmit_flag) {
            1: parse_resub;
            default: parse_port_md;
        }
    }

    state parse_resub {
        pkt.extract(md.resub);
        transition parse_h;
    }

    state parse_port_md {
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_h;
    }

    state parse_h {
        pkt.extract(hdr.h);
        ck.add(hdr.h);
        md.bridge.ck_ok = (bit<1>)ck.verify();
        md.bridge.hv = 1;
        transition accept;
    }
}

control I(inout ih_t hdr, inout im_t md,
          in ingress_intrinsic_metadata_t ig_intr_md,
          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Register<bit<32>, bit<8>>(16, 0) acc;
    RegisterAction<bit<32>, bit<8>, bit<32>>(acc) acc_add = {
        void apply(inout bit<32> v, out bit<32> rv) {
            v = v + hdr.h.val;
            rv = v;
        }
    };

    Register<pair_t, bit<8>>(16, {0, 0}) pairs;
    // lo: the last value; hi: how many times in a row it came
    RegisterAction<pair_t, bit<8>, bit<8>>(pairs) pair_step = {
        void apply(inout pair_t v, out bit<8> rv) {
            rv = this.predicate(v.lo == hdr.h.val, v.hi == 0);
            if (v.lo == hdr.h.val) {
                v.hi = v.hi + 1;
            } else {
                v.lo = hdr.h.val;
                v.hi = 0;
            }
        }
    };

    Counter<bit<32>, bit<8>>(16, CounterType_t.PACKETS) hits;

    // (Tofino: a table's actions must address every register they use
    // alike, so the two registers are used from the apply block)
    action do_resubmit() {
        md.resub.setValid();
        md.resub.val = hdr.h.val + 1;
        md.resub.pad = 0;
        ig_dprsr_md.resubmit_type = 1;
    }
    action do_mcast() {
        ig_tm_md.mcast_grp_a = (bit<16>)hdr.h.arg;
    }
    action do_drop() {
        ig_tm_md.ucast_egress_port = 1;
        ig_dprsr_md.drop_ctl = 1;
    }
    action do_bypass() {
        ig_tm_md.ucast_egress_port = 3;
        ig_tm_md.bypass_egress = 1;
    }
    table ops {
        key = { hdr.h.op: exact; }
        actions = { do_resubmit; do_mcast; do_drop; do_bypass; NoAction; }
        const default_action = NoAction();
        size = 8;
        const entries = {
            3: do_resubmit();
            4: do_mcast();
            5: do_drop();
            6: do_bypass();
        }
    }

    apply {
        md.bridge.err = ig_prsr_md.parser_err;
        if (!hdr.h.isValid()) {
            ig_tm_md.ucast_egress_port = 9;
        } else if (ig_intr_md.resubmit_flag == 1) {
            // the second pass: what the first one resubmitted
            hdr.h.res = md.resub.val;
            ig_tm_md.ucast_egress_port = 2;
        } else {
            if (hdr.h.op == 1) {
                hdr.h.res = acc_add.execute(hdr.h.idx[7:0]);
                ig_tm_md.ucast_egress_port = 1;
            } else if (hdr.h.op == 2) {
                hdr.h.res = (bit<32>)pair_step.execute(hdr.h.idx[7:0]);
                ig_tm_md.ucast_egress_port = 1;
            } else {
                ops.apply();
            }
            hits.count(hdr.h.idx[7:0]);
        }
    }
}

control ID(packet_out pkt, inout ih_t hdr, in im_t md,
           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Resubmit() resubmit;

    apply {
        if (ig_dprsr_md.resubmit_type == 1) {
            resubmit.emit(md.resub);
        }
        pkt.emit(md.bridge);
        pkt.emit(hdr);
    }
}

parser EP(packet_in pkt, out eh_t hdr, out em_t md,
          out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(md.bridge);
        transition select(md.bridge.hv) {
            1: parse_h;
            default: accept;
        }
    }

    state parse_h {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control E(inout eh_t hdr, inout em_t md,
          in egress_intrinsic_metadata_t eg_intr_md,
          in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
          inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
          inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
        hdr.tag.setValid();
        hdr.tag.ck_ok = 7w0 ++ md.bridge.ck_ok;
        hdr.tag.err = md.bridge.err[7:0];
        hdr.tag.eport = 7w0 ++ eg_intr_md.egress_port;
        hdr.tag.rid = eg_intr_md.egress_rid;
        if (eg_intr_md.egress_port == 5) {
            eg_dprsr_md.drop_ctl = 1;
        }
    }
}

control ED(packet_out pkt, inout eh_t hdr, in em_t md,
           in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Checksum() ck;

    apply {
        if (hdr.h.isValid()) {
            hdr.h.csum = ck.update({hdr.h.op, hdr.h.arg, hdr.h.idx, hdr.h.val, hdr.h.res});
        }
        pkt.emit(hdr);
    }
}

Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;

Switch(pipe) main;
