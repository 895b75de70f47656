//! Addresses of a generated topology: host *n* behind switch port *n*.
//!
//! `esa run` (its in-process fabric) and `esa local` both place hosts this
//! way, and a host that knows only its port number (an `esa_torch` rank)
//! derives its MAC and IPv4 address from it. The switch routes ESA packets
//! by job, not by destination, so every host sends to one switch address.

use std::net::{SocketAddr, SocketAddrV4};

use esa_core::constants::ESA_UDP_PORT;
use esa_core::wire::{Ipv4Addr, MacAddr};

use crate::transport::HostAddress;

/// The MAC hosts send to (the switch ignores it for ESA packets).
pub const SWITCH_MAC: MacAddr = MacAddr([0x02, 0, 0, 0, 0xff, 0xfe]);

/// The IPv4 address hosts send ESA packets to.
pub const SWITCH_IP: std::net::Ipv4Addr = std::net::Ipv4Addr::new(10, 255, 255, 254);

/// Where hosts send ESA packets: [`SWITCH_IP`] at the ESA UDP port.
pub fn switch_addr() -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(SWITCH_IP, ESA_UDP_PORT))
}

/// Host `n` (1-based, also its switch port): MAC `02:00:00:00:hi:lo`,
/// IPv4 `10.0.hi.lo`, where `hi.lo` are the two bytes of `n`.
pub fn port_host(n: u16) -> HostAddress {
    let [hi, lo] = n.to_be_bytes();
    HostAddress {
        mac: MacAddr([0x02, 0, 0, 0, hi, lo]),
        ip: Ipv4Addr([10, 0, hi, lo]),
        gateway_mac: SWITCH_MAC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_numbered_by_port() {
        let h = port_host(0x0102);
        assert_eq!(h.mac, MacAddr([2, 0, 0, 0, 1, 2]));
        assert_eq!(h.ip, Ipv4Addr([10, 0, 1, 2]));
        assert_eq!(port_host(7).ip, Ipv4Addr([10, 0, 0, 7]));
        assert_ne!(port_host(1).mac, SWITCH_MAC);
    }
}
