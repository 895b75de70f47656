// PSA's packet paths on p4sim: resubmit and recirculate carry the metadata
// their deparser wrote (PSA 1.2 section 6; BMv2's psa_switch zeroes it),
// the deparsers' predicates, the egress instance of multicast copies, and
// an I2E clone of the packet as received. Each output records, in `rec`,
// what the blocks saw.
#include <core.p4>
#include <bmv2/psa.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}
// what the program writes back
header rec_t {
    bit<8>  op;      // the first byte of the packet's payload: what to do
    bit<8>  ig_path; // ingress packet_path of the pass that forwarded it
    bit<8>  eg_path; // egress packet_path
    bit<8>  carried; // resubmit_meta / recirculate_meta as the parser saw it
    bit<16> inst;    // egress instance
    bit<16> passes;  // ingress passes
    bit<32> in_port; // ingress port of the last pass
}
struct headers_t { eth_t eth; rec_t rec; }
struct meta_t { bit<8> carried; }
struct resub_t { bit<8> v; }
struct recirc_t { bit<8> v; }
struct empty_t { }

parser IP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_ingress_parser_input_metadata_t istd,
          in resub_t resub, in recirc_t recirc) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.rec);
        transition select(istd.packet_path) {
            PSA_PacketPath_t.RESUBMIT: from_resubmit;
            PSA_PacketPath_t.RECIRCULATE: from_recirculate;
            default: accept;
        }
    }
    state from_resubmit {
        meta.carried = resub.v;
        transition accept;
    }
    state from_recirculate {
        meta.carried = recirc.v;
        transition accept;
    }
}

control Ig(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    // packets per op, and the hits of a table that matches op 3
    Counter<bit<32>, bit<8>>(8, PSA_CounterType_t.PACKETS) per_op;
    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) multicast_hits;
    action hit() { multicast_hits.count(); }
    table multicasts {
        key = { hdr.rec.op: exact; }
        actions = { hit; NoAction; }
        const entries = { 3 : hit(); }
        default_action = NoAction();
        psa_direct_counter = multicast_hits;
    }
    apply {
        per_op.count(hdr.rec.op);
        multicasts.apply();
        hdr.rec.passes = hdr.rec.passes + 1;
        hdr.rec.in_port = (PortIdUint_t) istd.ingress_port;
        hdr.rec.carried = meta.carried;
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            hdr.rec.ig_path = 0xee; // never: only egress sees it
        } else if (istd.packet_path == PSA_PacketPath_t.RESUBMIT) {
            hdr.rec.ig_path = 5;
        } else if (istd.packet_path == PSA_PacketPath_t.RECIRCULATE) {
            hdr.rec.ig_path = 6;
        } else {
            hdr.rec.ig_path = 0;
        }
        if (hdr.rec.op == 1 && istd.packet_path == PSA_PacketPath_t.NORMAL) {
            ostd.resubmit = true;        // drop is still true: dropped
        } else if (hdr.rec.op == 2 && istd.packet_path == PSA_PacketPath_t.NORMAL) {
            ostd.drop = false;
            ostd.resubmit = true;
        } else if (hdr.rec.op == 3) {
            multicast(ostd, (MulticastGroup_t) 5);
        } else if (hdr.rec.op == 4) {
            ingress_drop(ostd);
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 9;
        } else if (hdr.rec.op == 5 && istd.packet_path == PSA_PacketPath_t.NORMAL) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else {
            send_to_port(ostd, (PortId_t) 2);
        }
    }
}

control ID(packet_out pkt, out empty_t ci2e, out resub_t resub, out empty_t nm,
           inout headers_t hdr, in meta_t meta,
           in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_resubmit(istd)) {
            resub.v = 0x5a;
        }
        pkt.emit(hdr.eth);
        pkt.emit(hdr.rec);
    }
}

parser EP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_egress_parser_input_metadata_t istd,
          in empty_t nm, in empty_t ci2e, in empty_t ce2e) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.rec);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.rec.inst = (EgressInstanceUint_t) istd.instance;
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            hdr.rec.eg_path = 1;
        } else if (istd.packet_path == PSA_PacketPath_t.NORMAL_MULTICAST) {
            hdr.rec.eg_path = 2;
        } else if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) {
            hdr.rec.eg_path = 3;
        } else {
            hdr.rec.eg_path = 0xff;
        }
    }
}

control ED(packet_out pkt, out empty_t ce2e, out recirc_t recirc,
           inout headers_t hdr, in meta_t meta,
           in psa_egress_output_metadata_t istd,
           in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_recirculate(istd, edstd)) {
            recirc.v = 0xa5;
        }
        pkt.emit(hdr.eth);
        pkt.emit(hdr.rec);
    }
}

IngressPipeline(IP(), Ig(), ID()) ip;
EgressPipeline(EP(), Eg(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
