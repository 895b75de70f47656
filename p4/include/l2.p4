// Ordinary traffic (ARP, IP between hosts) crosses the switch by destination
// MAC, so ESA hosts can reach each other through it.
#ifndef ESA_L2_P4
#define ESA_L2_P4

#include "headers.p4"

control L2Forward(inout headers_t hdr, inout standard_metadata_t sm) {
    action forward(port_t port) {
        sm.egress_spec = port;
    }
    action flood(bit<16> group) {
        sm.mcast_grp = group;
    }
    action drop() {
        mark_to_drop(sm);
    }
    table l2 {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; flood; drop; }
        default_action = drop();
        size = 4096;
    }
    apply {
        l2.apply();
    }
}

#endif  // ESA_L2_P4
