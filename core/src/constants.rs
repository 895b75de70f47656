//! Constants shared by every part of ESA: the hosts, the reference model and the
//! P4 program (`p4/include/constants.p4` is checked against this module).
//!
//! `docs/protocol.md` §1 explains each one.

/// UDP destination port that marks a packet as ESA ("ES").
pub const ESA_UDP_PORT: u16 = 0x4553;
/// Protocol version carried in the high nibble of the first header byte.
pub const ESA_VERSION: u8 = 1;
/// Length of the ESA header in bytes, before the value lanes.
pub const HEADER_LEN: usize = 16;
/// Default number of int32 value lanes per packet (K).
pub const DEFAULT_LANES: usize = 32;
/// Largest supported number of lanes.
pub const MAX_LANES: usize = 64;
/// Largest number of workers in one job (one bit each in the bitmap).
pub const MAX_FAN_IN: u8 = 32;
/// Largest job id; job ids are 12 bits and 0 is reserved.
pub const MAX_JOB_ID: u16 = 4095;
/// Largest priority; priorities are 4 bits and larger wins.
pub const MAX_PRIORITY: u8 = 15;
/// Default number of aggregator slots in the switch (a power of two).
pub const DEFAULT_POOL_SLOTS: usize = 4096;
/// Default age in microseconds after which an untouched slot is stale.
pub const DEFAULT_STALE_AFTER_US: u64 = 10_000;
/// `worker` field of packets a parameter server originates.
pub const PS_WORKER_ID: u8 = 255;

/// Ethernet header length.
pub const ETHERNET_LEN: usize = 14;
/// IPv4 header length (ESA packets carry no IP options).
pub const IPV4_LEN: usize = 20;
/// UDP header length.
pub const UDP_LEN: usize = 8;
/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IP protocol number of UDP.
pub const IP_PROTO_UDP: u8 = 17;

/// Bytes of an ESA payload (header and lanes) with `lanes` lanes.
pub const fn esa_payload_len(lanes: usize) -> usize {
    HEADER_LEN + 4 * lanes
}

/// Bytes of a whole ESA frame (Ethernet to the last lane) with `lanes` lanes.
pub const fn esa_frame_len(lanes: usize) -> usize {
    ETHERNET_LEN + IPV4_LEN + UDP_LEN + esa_payload_len(lanes)
}
