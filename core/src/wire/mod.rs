//! Wire formats: a byte view and a parsed form per layer.
//!
//! Each layer has a view `Xxx<T: AsRef<[u8]>>` over a buffer, with private field
//! ranges and `new_checked` that validates the length, and a `XxxRepr` with
//! `parse`, `emit` and `buffer_len`. [`frame`] puts the layers together into a
//! whole ESA frame. `docs/protocol.md` §2 has the field tables.

mod esa;
mod ethernet;
pub mod frame;
mod ipv4;
mod udp;

pub use esa::{EsaPacket, EsaRepr, Flags, Key, PacketType};
pub use ethernet::{EthernetFrame, EthernetRepr, MacAddr};
pub use frame::{FrameRepr, ParsedFrame};
pub use ipv4::{Ipv4Addr, Ipv4Packet, Ipv4Repr, internet_checksum};
pub use udp::{UdpPacket, UdpRepr};

/// The protocol layer an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Ethernet II.
    Ethernet,
    /// IPv4.
    Ipv4,
    /// UDP.
    Udp,
    /// The ESA header and its lanes.
    Esa,
}

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Layer::Ethernet => "Ethernet",
            Layer::Ipv4 => "IPv4",
            Layer::Udp => "UDP",
            Layer::Esa => "ESA",
        })
    }
}

/// Why bytes could not be read as a packet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The buffer ends before the layer does.
    #[error("truncated {layer} packet: need {need} bytes, have {have}")]
    Truncated {
        /// The layer that did not fit.
        layer: Layer,
        /// Bytes the layer needs.
        need: usize,
        /// Bytes there are.
        have: usize,
    },
    /// The EtherType is not IPv4.
    #[error("EtherType {0:#06x} is not IPv4")]
    NotIpv4(u16),
    /// The IPv4 version nibble is not 4.
    #[error("IP version {0} is not 4")]
    BadIpVersion(u8),
    /// The IPv4 header has options (IHL other than 5) or an IHL below 5.
    #[error("IPv4 header length {0} words is not 5 (options are not supported)")]
    IpOptions(u8),
    /// The IPv4 packet is a fragment.
    #[error("IPv4 fragment (flags/offset {0:#06x})")]
    Fragment(u16),
    /// The IPv4 header checksum is wrong.
    #[error("IPv4 header checksum {found:#06x} is wrong (expected {expected:#06x})")]
    BadChecksum {
        /// Checksum in the packet.
        found: u16,
        /// Checksum the header should carry.
        expected: u16,
    },
    /// A length field disagrees with the buffer or with the layer below.
    #[error("{layer} length field {field} does not fit (buffer has {available})")]
    BadLength {
        /// The layer whose length field is wrong.
        layer: Layer,
        /// The value of the length field.
        field: usize,
        /// Bytes available for it.
        available: usize,
    },
    /// The IP protocol is not UDP.
    #[error("IP protocol {0} is not UDP")]
    NotUdp(u8),
    /// The UDP destination port is not the ESA port.
    #[error("UDP destination port {0} is not the ESA port")]
    NotEsaPort(u16),
    /// The ESA version nibble is not [`crate::constants::ESA_VERSION`].
    #[error("ESA version {0} is not supported")]
    BadVersion(u8),
    /// The ESA packet type code is unknown.
    #[error("unknown ESA packet type {0}")]
    UnknownType(u8),
    /// The ESA payload length is not a header plus the expected lanes.
    #[error("ESA payload of {have} bytes does not hold {lanes} lanes")]
    BadLanes {
        /// Lanes expected.
        lanes: usize,
        /// Payload bytes present.
        have: usize,
    },
}

pub(crate) fn check_len(layer: Layer, need: usize, have: usize) -> Result<(), WireError> {
    if have < need {
        Err(WireError::Truncated { layer, need, have })
    } else {
        Ok(())
    }
}

pub(crate) fn read_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

pub(crate) fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(crate) fn write_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

pub(crate) fn write_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}
