/*
 * SPDX-FileCopyrightText: 2020 Akamai Technologies, Inc.
 * Copyright 2020-present Akamai Technologies, Inc.
 *
 * SPDX-License-Identifier: Apache-2.0
 */

#include <core.p4>
#include "bmv2/psa.p4"

typedef bit<48>  EthernetAddress;

header ethernet_t {
    EthernetAddress dstAddr;
    EthernetAddress srcAddr;
    bit<16>         etherType;
}

struct empty_metadata_t {
}

struct metadata_t {
}

struct headers_t {
    ethernet_t       ethernet;
}

parser IngressParserImpl(packet_in pkt,
                         out headers_t hdr,
                         inout metadata_t user_meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in empty_metadata_t resubmit_meta,
                         in empty_metadata_t recirculate_meta)
{
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control cIngress(inout headers_t hdr,
                 inout metadata_t user_meta,
                 in    psa_ingress_input_metadata_t  istd,
                 inout psa_ingress_output_metadata_t ostd)
{
    apply {
        if (hdr.ethernet.dstAddr == (EthernetAddress) 8 && istd.packet_path != PSA_PacketPath_t.RECIRCULATE) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else {
            send_to_port(ostd, (PortId_t) (PortIdUint_t) hdr.ethernet.dstAddr);
        }
    }
}

parser EgressParserImpl(packet_in buffer,
                        out headers_t hdr,
                        inout metadata_t user_meta,
                        in psa_egress_parser_input_metadata_t istd,
                        in empty_metadata_t normal_meta,
                        in empty_metadata_t clone_i2e_meta,
                        in empty_metadata_t clone_e2e_meta)
{
    state start {
        buffer.extract(hdr.ethernet);
        transition accept;
    }
}

control cEgress(inout headers_t hdr,
                inout metadata_t user_meta,
                in    psa_egress_input_metadata_t  istd,
                inout psa_egress_output_metadata_t ostd)
{

    action clone() {
        ostd.clone = true;
        ostd.clone_session_id = (CloneSessionId_t) (CloneSessionIdUint_t) 8;
    }

    apply {
        if (istd.packet_path == PSA_PacketPath_t.CLONE_E2E) {
            // mark the clone packets so stf can tell the difference
            hdr.ethernet.etherType = 0xface;
        } else {
            clone();
            // property - dropped packets are still cloned
            if (hdr.ethernet.dstAddr == (EthernetAddress) 9) {
                egress_drop(ostd);
                ostd.clone_session_id = (CloneSessionId_t) (CloneSessionIdUint_t) 9;
            }
            if (istd.egress_port == PSA_PORT_RECIRCULATE) {
                hdr.ethernet.srcAddr = (EthernetAddress) 0xbeef;
                ostd.clone_session_id = (CloneSessionId_t) (CloneSessionIdUint_t) 10;
            } else {
                if (hdr.ethernet.dstAddr == (EthernetAddress) 8) {
                    ostd.clone_session_id = (CloneSessionId_t) (CloneSessionIdUint_t) 11;
                }
                // property - clone packets are copies of the packet as output by
                //            the egress deparser. this value should appear in
                //            all packets that leave the switch.
                hdr.ethernet.srcAddr = (EthernetAddress) 0xcafe;
            }
        }
    }
}

control CommonDeparserImpl(packet_out packet,
                           inout headers_t hdr)
{
    apply {
        packet.emit(hdr.ethernet);
    }
}

control IngressDeparserImpl(packet_out buffer,
                            out empty_metadata_t clone_i2e_meta,
                            out empty_metadata_t resubmit_meta,
                            out empty_metadata_t normal_meta,
                            inout headers_t hdr,
                            in metadata_t meta,
                            in psa_ingress_output_metadata_t istd)
{
    CommonDeparserImpl() cp;
    apply {
        cp.apply(buffer, hdr);
    }
}

control EgressDeparserImpl(packet_out buffer,
                           out empty_metadata_t clone_e2e_meta,
                           out empty_metadata_t recirculate_meta,
                           inout headers_t hdr,
                           in metadata_t meta,
                           in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd)
{
    CommonDeparserImpl() cp;
    apply {
        cp.apply(buffer, hdr);
    }
}

IngressPipeline(IngressParserImpl(),
                cIngress(),
                IngressDeparserImpl()) ip;

EgressPipeline(EgressParserImpl(),
               cEgress(),
               EgressDeparserImpl()) ep;

PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
