// error: psa_extern_refused.p4:22:5: unsupported: the PSA `Random` extern
#include <core.p4>
#include <bmv2/psa.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { bit<8> x; }
struct empty_t { }

parser IP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_ingress_parser_input_metadata_t istd,
          in empty_t resub, in empty_t recirc) {
    state start {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control Ig(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Random<bit<8>>(0, 7) rng;
    apply { send_to_port(ostd, (PortId_t) 1); hdr.eth.type[7:0] = rng.read(); }
}

control ID(packet_out pkt, out empty_t ci2e, out empty_t resub, out empty_t nm,
           inout headers_t hdr, in meta_t meta,
           in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.eth); }
}

parser EP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_egress_parser_input_metadata_t istd,
          in empty_t nm, in empty_t ci2e, in empty_t ce2e) {
    state start { transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control ED(packet_out pkt, out empty_t ce2e, out empty_t recirc,
           inout headers_t hdr, in meta_t meta,
           in psa_egress_output_metadata_t istd,
           in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.eth); }
}

IngressPipeline(IP(), Ig(), ID()) ip;
EgressPipeline(EP(), Eg(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
