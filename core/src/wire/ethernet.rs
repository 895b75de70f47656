//! Ethernet II.

use super::{Layer, WireError, check_len, read_u16, write_u16};
use crate::constants::ETHERNET_LEN;
use std::fmt;

/// A 48-bit MAC address.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// The broadcast address ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);

    /// A locally administered unicast address derived from a number, for tests
    /// and simulations: `02:00:00:xx:xx:xx`.
    pub const fn local(n: u32) -> MacAddr {
        let b = n.to_be_bytes();
        MacAddr([0x02, 0, b[0], b[1], b[2], b[3]])
    }
}

impl fmt::Debug for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

mod field {
    use std::ops::Range;
    pub const DST: Range<usize> = 0..6;
    pub const SRC: Range<usize> = 6..12;
    pub const ETHERTYPE: usize = 12;
}

/// A byte view of an Ethernet II frame.
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    pub(super) buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps a buffer that holds at least an Ethernet header.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        check_len(Layer::Ethernet, ETHERNET_LEN, buffer.as_ref().len())?;
        Ok(EthernetFrame { buffer })
    }

    /// Destination address.
    pub fn dst(&self) -> MacAddr {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::DST]);
        MacAddr(a)
    }

    /// Source address.
    pub fn src(&self) -> MacAddr {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::SRC]);
        MacAddr(a)
    }

    /// EtherType.
    pub fn ethertype(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::ETHERTYPE)
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[ETHERNET_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination address.
    pub fn set_dst(&mut self, mac: MacAddr) {
        self.buffer.as_mut()[field::DST].copy_from_slice(&mac.0);
    }

    /// Sets the source address.
    pub fn set_src(&mut self, mac: MacAddr) {
        self.buffer.as_mut()[field::SRC].copy_from_slice(&mac.0);
    }

    /// Sets the EtherType.
    pub fn set_ethertype(&mut self, ethertype: u16) {
        write_u16(self.buffer.as_mut(), field::ETHERTYPE, ethertype);
    }

    /// Everything after the header, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[ETHERNET_LEN..]
    }
}

/// The parsed form of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthernetRepr {
    /// Destination address.
    pub dst: MacAddr,
    /// Source address.
    pub src: MacAddr,
    /// EtherType.
    pub ethertype: u16,
}

impl EthernetRepr {
    /// Reads the header of a frame.
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> EthernetRepr {
        EthernetRepr {
            dst: frame.dst(),
            src: frame.src(),
            ethertype: frame.ethertype(),
        }
    }

    /// Header length in bytes.
    pub const fn buffer_len(&self) -> usize {
        ETHERNET_LEN
    }

    /// Writes the header into a frame.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut EthernetFrame<T>) {
        frame.set_dst(self.dst);
        frame.set_src(self.src);
        frame.set_ethertype(self.ethertype);
    }
}
