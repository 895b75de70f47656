//! Addresses of a generated topology: host *n* behind switch port *n*, and
//! the one address every host sends ESA packets to (the switch routes them
//! by job, not by destination). The simulator, the in-process and UDP
//! testbeds, `esa local` and a host that knows only its port number (an
//! `esa_torch` rank) all place hosts this way.

use crate::wire::{Ipv4Addr, MacAddr};

/// The MAC hosts send to (the switch ignores it for ESA packets).
pub const SWITCH_MAC: MacAddr = MacAddr([0x02, 0, 0, 0, 0xff, 0xfe]);

/// The IPv4 address hosts send ESA packets to, and the switch's source
/// address on what it emits.
pub const SWITCH_IP: Ipv4Addr = Ipv4Addr([10, 255, 255, 254]);

/// Host `n`'s MAC (`n` 1-based, also its switch port):
/// `02:00:00:00:hi:lo`, where `hi.lo` are the two bytes of `n`.
pub const fn host_mac(n: u16) -> MacAddr {
    let [hi, lo] = n.to_be_bytes();
    MacAddr([0x02, 0, 0, 0, hi, lo])
}

/// Host `n`'s IPv4 address: `10.0.hi.lo`.
pub const fn host_ip(n: u16) -> Ipv4Addr {
    let [hi, lo] = n.to_be_bytes();
    Ipv4Addr([10, 0, hi, lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_numbered_by_port() {
        assert_eq!(host_mac(0x0102), MacAddr([2, 0, 0, 0, 1, 2]));
        assert_eq!(host_ip(0x0102), Ipv4Addr([10, 0, 1, 2]));
        assert_eq!(host_ip(7), Ipv4Addr([10, 0, 0, 7]));
        // the same MAC as the generic locally administered one
        assert_eq!(host_mac(300), MacAddr::local(300));
        assert!((1..=u16::MAX).all(|n| host_mac(n) != SWITCH_MAC || n == 0xfffe));
    }
}
