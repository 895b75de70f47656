// Egress: ESA packets get the address of the host behind their egress port
// (docs/protocol.md 3.1), so kernel UDP sockets accept them.
#ifndef ESA_EGRESS_P4
#define ESA_EGRESS_P4

#include "headers.p4"

control EsaEgress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t sm) {
    action set_host(mac_addr_t mac, ipv4_addr_t ip) {
        hdr.ethernet.dst = mac;
        hdr.ipv4.dst = ip;
    }
    table egress_host {
        key = { sm.egress_port: exact; }
        actions = { set_host; NoAction; }
        default_action = NoAction();
        size = 512;
    }
    apply {
        if (hdr.esa.isValid()) {
            egress_host.apply();
        } else if (sm.egress_port == sm.ingress_port) {
            // A flooded frame does not go back where it came from.
            mark_to_drop(sm);
        }
    }
}

#endif  // ESA_EGRESS_P4
