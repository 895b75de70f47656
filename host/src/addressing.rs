//! Addresses of a generated topology ([`esa_core::addressing`]) as a
//! host's transport takes them: host *n* behind switch port *n*, and the
//! socket address every host sends ESA packets to.

use std::net::{SocketAddr, SocketAddrV4};

use esa_core::addressing::{host_ip, host_mac};
use esa_core::constants::ESA_UDP_PORT;

use crate::transport::HostAddress;

pub use esa_core::addressing::SWITCH_MAC;

/// The IPv4 address hosts send ESA packets to
/// ([`esa_core::addressing::SWITCH_IP`]), as a socket address takes it.
pub const SWITCH_IP: std::net::Ipv4Addr = {
    let [a, b, c, d] = esa_core::addressing::SWITCH_IP.0;
    std::net::Ipv4Addr::new(a, b, c, d)
};

/// Where hosts send ESA packets: [`SWITCH_IP`] at the ESA UDP port.
pub fn switch_addr() -> SocketAddr {
    switch_addr_at(SWITCH_IP)
}

/// Where hosts send ESA packets to a switch at `ip` (a switch whose hosts
/// are not a generated topology's): the ESA UDP port there.
pub fn switch_addr_at(ip: std::net::Ipv4Addr) -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(ip, ESA_UDP_PORT))
}

/// Host `n` (1-based, also its switch port): MAC `02:00:00:00:hi:lo`,
/// IPv4 `10.0.hi.lo`, where `hi.lo` are the two bytes of `n`.
pub fn port_host(n: u16) -> HostAddress {
    HostAddress {
        mac: host_mac(n),
        ip: host_ip(n),
        gateway_mac: SWITCH_MAC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use esa_core::wire::{Ipv4Addr, MacAddr};

    #[test]
    fn hosts_are_numbered_by_port() {
        let h = port_host(0x0102);
        assert_eq!(h.mac, MacAddr([2, 0, 0, 0, 1, 2]));
        assert_eq!(h.ip, Ipv4Addr([10, 0, 1, 2]));
        assert_eq!(port_host(7).ip, Ipv4Addr([10, 0, 0, 7]));
        assert_ne!(port_host(1).mac, SWITCH_MAC);
        assert_eq!(SWITCH_IP.octets(), esa_core::addressing::SWITCH_IP.0);
    }
}
