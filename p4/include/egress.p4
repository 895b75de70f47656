// Egress: ESA packets get the address of the host behind their egress port
// as destination and the switch's address as source (docs/protocol.md 3.1),
// so kernel UDP sockets accept them.
#ifndef ESA_EGRESS_P4
#define ESA_EGRESS_P4

#include "headers.p4"

control EsaEgress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t sm) {
    // The packet leaves from the address it was sent to (the switch's):
    // a RESULT built from a worker's DATA must not reach that worker with
    // the worker's own source address, which Linux drops as a martian.
    action set_host(mac_addr_t mac, ipv4_addr_t ip) {
        hdr.ethernet.src = hdr.ethernet.dst;
        hdr.ethernet.dst = mac;
        hdr.ipv4.src = hdr.ipv4.dst;
        hdr.ipv4.dst = ip;
    }
    table egress_host {
        key = { sm.egress_port: exact; }
        actions = { set_host; NoAction; }
        default_action = NoAction();
        size = 512;
    }
    apply {
        if ((meta.relay == 1 && sm.egress_port == meta.relay_except)
                || (!hdr.esa.isValid() && sm.egress_port == sm.ingress_port)) {
            // A flooded frame, or a packet the switch relays (R1, R2, Q1,
            // A1, U2), does not go back where it came from; a leaf's
            // re-emitted result (D5'') not up its uplink.
            mark_to_drop(sm);
        } else if (hdr.esa.isValid()) {
            egress_host.apply();
        }
    }
}

#endif  // ESA_EGRESS_P4
