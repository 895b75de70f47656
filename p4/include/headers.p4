// Header and metadata types of the ESA data plane (docs/protocol.md 2).
#ifndef ESA_HEADERS_P4
#define ESA_HEADERS_P4

#include "constants.p4"

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<9>  port_t;
typedef bit<12> job_id_t;

header ethernet_t {
    mac_addr_t dst;
    mac_addr_t src;
    bit<16>    ether_type;
}

header ipv4_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      dscp_ecn;
    bit<16>     total_len;
    bit<16>     ident;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     checksum;
    ipv4_addr_t src;
    ipv4_addr_t dst;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

// The 16-byte ESA header; priority, job and seq together are the key.
header esa_t {
    bit<4>   version;
    bit<4>   packet_type;
    bit<8>   flags;
    bit<16>  slot;
    bit<4>   priority;
    job_id_t job;
    bit<16>  seq;
    bit<32>  bitmap;
    bit<8>   fan_in;
    bit<8>   count;
    bit<8>   exponent;
    bit<8>   worker;
}

// K value lanes, one field each: v0 .. v(K-1).
#define ESA_LANE_FIELD(i) bit<32> v##i;
header esa_values_t {
    ESA_FOR_EACH_LANE(ESA_LANE_FIELD)
}

const bit<16> ESA_UDP_LEN = 8 + ESA_HEADER_LEN + 4 * ESA_LANES;
const bit<16> ESA_IPV4_TOTAL_LEN = 20 + ESA_UDP_LEN;

struct headers_t {
    ethernet_t   ethernet;
    ipv4_t       ipv4;
    udp_t        udp;
    esa_t        esa;
    esa_values_t values;
}

// The job-table entry of the packet's job, filled by Admission.
struct job_entry_t {
    bit<8>  fan_in;
    bit<2>  mode;
    bit<4>  max_priority;
    bit<16> mcast_group;
    port_t  ps_port;
    bit<16> slot_base;
    bit<16> slot_mask;
    // The switch's place on the job's tree (docs/protocol.md 9.1).
    bit<2>  tree_role;
    bit<1>  aggregate;
    bit<8>  racks;        // a root's job racks; a leaf's root fan-in
    port_t  uplink_port;  // a leaf's: towards the root, also ps_port
    bit<8>  uplink_bit;   // a leaf's: the rack's bit at the root
}

// What every lane register does with a packet (docs/protocol.md 3.2).
const bit<2> LANE_KEEP = 0;
const bit<2> LANE_WRITE = 1;
const bit<2> LANE_ADD = 2;
// Which value leaves in the packet's lanes.
const bit<2> OUT_PACKET = 0;
const bit<2> OUT_OLD = 1;
const bit<2> OUT_NEW = 2;

struct metadata_t {
    job_entry_t job;
    bit<32>     index;     // the absolute slot index
    bit<2>      lane_op;
    bit<2>      lane_out;
    bit<1>      relay;     // a relayed packet: no replica to relay_except
    port_t      relay_except;
    bit<1>      from_child; // a tree root's packet from one of its leaves
}

#endif  // ESA_HEADERS_P4
