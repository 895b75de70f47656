//! IPv4 without options.

use super::{Layer, WireError, check_len, read_u16, read_u32, write_u16, write_u32};
use crate::constants::IPV4_LEN;
use std::fmt;

/// An IPv4 address, as four bytes in network order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ipv4Addr(pub [u8; 4]);

impl Ipv4Addr {
    /// `a.b.c.d`.
    pub const fn new(a: u8, b: u8, c: u8, d: u8) -> Ipv4Addr {
        Ipv4Addr([a, b, c, d])
    }
}

impl fmt::Debug for Ipv4Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Ipv4Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(f, "{}.{}.{}.{}", b[0], b[1], b[2], b[3])
    }
}

impl From<std::net::Ipv4Addr> for Ipv4Addr {
    fn from(a: std::net::Ipv4Addr) -> Self {
        Ipv4Addr(a.octets())
    }
}

impl From<Ipv4Addr> for std::net::Ipv4Addr {
    fn from(a: Ipv4Addr) -> Self {
        std::net::Ipv4Addr::from(a.0)
    }
}

mod field {
    pub const VER_IHL: usize = 0;
    pub const DSCP_ECN: usize = 1;
    pub const TOTAL_LEN: usize = 2;
    pub const IDENT: usize = 4;
    pub const FLAGS_FRAG: usize = 6;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: usize = 10;
    pub const SRC: usize = 12;
    pub const DST: usize = 16;
}

/// The Internet checksum (RFC 1071) of `data`: the one's complement of the
/// one's-complement sum of its 16-bit words.
pub fn internet_checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u32::from(*last) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A byte view of an IPv4 packet without options.
#[derive(Debug, Clone)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Wraps a buffer holding an IPv4 header of 20 bytes (IHL 5) and as many
    /// bytes as its total length says; trailing bytes (Ethernet padding) are
    /// allowed and ignored by [`Ipv4Packet::payload`].
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        let b = buffer.as_ref();
        check_len(Layer::Ipv4, IPV4_LEN, b.len())?;
        let version = b[field::VER_IHL] >> 4;
        if version != 4 {
            return Err(WireError::BadIpVersion(version));
        }
        let ihl = b[field::VER_IHL] & 0x0f;
        if ihl != 5 {
            return Err(WireError::IpOptions(ihl));
        }
        let total = usize::from(read_u16(b, field::TOTAL_LEN));
        if total < IPV4_LEN || total > b.len() {
            return Err(WireError::BadLength {
                layer: Layer::Ipv4,
                field: total,
                available: b.len(),
            });
        }
        Ok(Ipv4Packet { buffer })
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// DSCP and ECN byte.
    pub fn dscp_ecn(&self) -> u8 {
        self.b()[field::DSCP_ECN]
    }
    /// Total length field.
    pub fn total_len(&self) -> u16 {
        read_u16(self.b(), field::TOTAL_LEN)
    }
    /// Identification.
    pub fn ident(&self) -> u16 {
        read_u16(self.b(), field::IDENT)
    }
    /// Flags and fragment offset.
    pub fn flags_frag(&self) -> u16 {
        read_u16(self.b(), field::FLAGS_FRAG)
    }
    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.b()[field::TTL]
    }
    /// Protocol number.
    pub fn protocol(&self) -> u8 {
        self.b()[field::PROTOCOL]
    }
    /// Header checksum field.
    pub fn checksum(&self) -> u16 {
        read_u16(self.b(), field::CHECKSUM)
    }
    /// Source address.
    pub fn src(&self) -> Ipv4Addr {
        Ipv4Addr(read_u32(self.b(), field::SRC).to_be_bytes())
    }
    /// Destination address.
    pub fn dst(&self) -> Ipv4Addr {
        Ipv4Addr(read_u32(self.b(), field::DST).to_be_bytes())
    }
    /// Whether the header checksum is right.
    pub fn verify_checksum(&self) -> bool {
        internet_checksum(&self.b()[..IPV4_LEN]) == 0
    }
    /// The bytes the total length covers after the header.
    pub fn payload(&self) -> &[u8] {
        &self.b()[IPV4_LEN..usize::from(self.total_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    /// Sets the destination address (the checksum is not updated).
    pub fn set_dst(&mut self, a: Ipv4Addr) {
        write_u32(self.bm(), field::DST, u32::from_be_bytes(a.0));
    }
    /// Sets the source address (the checksum is not updated).
    pub fn set_src(&mut self, a: Ipv4Addr) {
        write_u32(self.bm(), field::SRC, u32::from_be_bytes(a.0));
    }
    /// Recomputes and writes the header checksum.
    pub fn fill_checksum(&mut self) {
        write_u16(self.bm(), field::CHECKSUM, 0);
        let c = internet_checksum(&self.buffer.as_ref()[..IPV4_LEN]);
        write_u16(self.bm(), field::CHECKSUM, c);
    }
    /// The payload, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = usize::from(self.total_len());
        &mut self.bm()[IPV4_LEN..end]
    }
}

/// The parsed form of an IPv4 header without options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Repr {
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Protocol number.
    pub protocol: u8,
    /// Bytes after the header.
    pub payload_len: usize,
    /// Time to live.
    pub ttl: u8,
    /// DSCP and ECN byte.
    pub dscp_ecn: u8,
    /// Identification.
    pub ident: u16,
    /// Flags and fragment offset.
    pub flags_frag: u16,
}

impl Ipv4Repr {
    /// Reads a header, verifying its checksum.
    pub fn parse<T: AsRef<[u8]>>(packet: &Ipv4Packet<T>) -> Result<Ipv4Repr, WireError> {
        if !packet.verify_checksum() {
            let mut copy = [0u8; IPV4_LEN];
            copy.copy_from_slice(&packet.b()[..IPV4_LEN]);
            copy[field::CHECKSUM..field::CHECKSUM + 2].fill(0);
            return Err(WireError::BadChecksum {
                found: packet.checksum(),
                expected: internet_checksum(&copy),
            });
        }
        Ok(Ipv4Repr {
            src: packet.src(),
            dst: packet.dst(),
            protocol: packet.protocol(),
            payload_len: usize::from(packet.total_len()) - IPV4_LEN,
            ttl: packet.ttl(),
            dscp_ecn: packet.dscp_ecn(),
            ident: packet.ident(),
            flags_frag: packet.flags_frag(),
        })
    }

    /// Header length in bytes.
    pub const fn buffer_len(&self) -> usize {
        IPV4_LEN
    }

    /// Writes the header, with its checksum, into the first 20 bytes of `buf`.
    ///
    /// # Panics
    /// If `buf` is shorter than 20 bytes or `payload_len` does not fit the
    /// 16-bit total length; both are programming errors of the caller.
    pub fn emit(&self, buf: &mut [u8]) {
        let total = u16::try_from(IPV4_LEN + self.payload_len).expect("IPv4 payload too long");
        let b = &mut buf[..IPV4_LEN];
        b[field::VER_IHL] = 0x45;
        b[field::DSCP_ECN] = self.dscp_ecn;
        write_u16(b, field::TOTAL_LEN, total);
        write_u16(b, field::IDENT, self.ident);
        write_u16(b, field::FLAGS_FRAG, self.flags_frag);
        b[field::TTL] = self.ttl;
        b[field::PROTOCOL] = self.protocol;
        write_u16(b, field::CHECKSUM, 0);
        write_u32(b, field::SRC, u32::from_be_bytes(self.src.0));
        write_u32(b, field::DST, u32::from_be_bytes(self.dst.0));
        let c = internet_checksum(b);
        write_u16(b, field::CHECKSUM, c);
    }
}
