//! UDP.

use super::{Layer, WireError, check_len, read_u16, write_u16};
use crate::constants::UDP_LEN;

mod field {
    pub const SRC_PORT: usize = 0;
    pub const DST_PORT: usize = 2;
    pub const LENGTH: usize = 4;
    pub const CHECKSUM: usize = 6;
}

/// A byte view of a UDP datagram.
#[derive(Debug, Clone)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Wraps a buffer holding a UDP header and as many bytes as its length
    /// field says.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        let b = buffer.as_ref();
        check_len(Layer::Udp, UDP_LEN, b.len())?;
        let len = usize::from(read_u16(b, field::LENGTH));
        if len < UDP_LEN || len > b.len() {
            return Err(WireError::BadLength {
                layer: Layer::Udp,
                field: len,
                available: b.len(),
            });
        }
        Ok(UdpPacket { buffer })
    }
    /// Source port.
    pub fn src_port(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::SRC_PORT)
    }
    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::DST_PORT)
    }
    /// Length field (header and payload).
    pub fn len(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::LENGTH)
    }
    /// Whether the length field says there is no payload.
    pub fn is_empty(&self) -> bool {
        usize::from(self.len()) == UDP_LEN
    }
    /// Checksum field (0: none).
    pub fn checksum(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::CHECKSUM)
    }
    /// The bytes the length field covers after the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[UDP_LEN..usize::from(self.len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Sets the checksum field.
    pub fn set_checksum(&mut self, c: u16) {
        write_u16(self.buffer.as_mut(), field::CHECKSUM, c);
    }
    /// The payload, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = usize::from(self.len());
        &mut self.buffer.as_mut()[UDP_LEN..end]
    }
}

/// The parsed form of a UDP header. The checksum is not modelled: ESA
/// packets from the switch carry 0, which IPv4 allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpRepr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Bytes after the header.
    pub payload_len: usize,
}

impl UdpRepr {
    /// Reads a header.
    pub fn parse<T: AsRef<[u8]>>(packet: &UdpPacket<T>) -> UdpRepr {
        UdpRepr {
            src_port: packet.src_port(),
            dst_port: packet.dst_port(),
            payload_len: usize::from(packet.len()) - UDP_LEN,
        }
    }

    /// Header length in bytes.
    pub const fn buffer_len(&self) -> usize {
        UDP_LEN
    }

    /// Writes the header (checksum 0) into the first 8 bytes of `buf`.
    ///
    /// # Panics
    /// If `buf` is shorter than 8 bytes or the length does not fit 16 bits.
    pub fn emit(&self, buf: &mut [u8]) {
        let len = u16::try_from(UDP_LEN + self.payload_len).expect("UDP payload too long");
        write_u16(buf, field::SRC_PORT, self.src_port);
        write_u16(buf, field::DST_PORT, self.dst_port);
        write_u16(buf, field::LENGTH, len);
        write_u16(buf, field::CHECKSUM, 0);
    }
}
