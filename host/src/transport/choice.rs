//! A host's choice between kernel UDP and `AF_XDP`: [`TransportChoice`]
//! (`transport = "auto" | "udp" | "xdp"`) and [`open_host_transport`],
//! which makes the [`HostTransport`] it names. `auto` tries `AF_XDP` and
//! falls back to kernel UDP when it cannot be set up (no root or no
//! `CAP_NET_ADMIN` and `CAP_BPF`, no such interface, the bind refused);
//! the reason is returned for the caller to log and counted in
//! [`xdp_fallbacks`].

use std::net::{SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use esa_core::constants::ESA_UDP_PORT;

use super::switch_port::{HostAddress, SwitchPortTransport};
#[cfg(target_os = "linux")]
use super::xdp::{XdpFrameLink, open_xdp_host};
use super::{Datagram, Transport, TransportStats, UdpTransport};
use crate::error::TransportError;

/// Which transport a host uses; kernel UDP unless asked otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportChoice {
    /// `AF_XDP` where it can be set up, else kernel UDP.
    Auto,
    /// Kernel UDP sockets.
    #[default]
    Udp,
    /// `AF_XDP` only; failing to set it up is an error.
    Xdp,
}

impl std::fmt::Display for TransportChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TransportChoice::Auto => "auto",
            TransportChoice::Udp => "udp",
            TransportChoice::Xdp => "xdp",
        })
    }
}

impl std::str::FromStr for TransportChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<TransportChoice, String> {
        match s {
            "auto" => Ok(TransportChoice::Auto),
            "udp" => Ok(TransportChoice::Udp),
            "xdp" => Ok(TransportChoice::Xdp),
            other => Err(format!("unknown transport {other:?} (auto, udp or xdp)")),
        }
    }
}

/// Where an `AF_XDP` host sits: its interface and queue, and who it is on
/// the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XdpPlace {
    /// The interface that carries the host's ESA traffic.
    pub interface: String,
    /// The receive queue the host serves (one host per queue, so one per
    /// core).
    pub queue: u32,
    /// The host's MAC and IPv4 address, and the switch's MAC.
    pub address: HostAddress,
    /// Lanes per packet (what the switch program was built with).
    pub lanes: usize,
}

/// Times [`open_host_transport`] fell back from `AF_XDP` to kernel UDP in
/// this process.
static XDP_FALLBACKS: AtomicU64 = AtomicU64::new(0);

/// Times a host of this process fell back from `AF_XDP` to kernel UDP.
pub fn xdp_fallbacks() -> u64 {
    XDP_FALLBACKS.load(Ordering::Relaxed)
}

/// The `AF_XDP` transport of a host.
#[cfg(target_os = "linux")]
pub type XdpTransport = SwitchPortTransport<XdpFrameLink>;

/// A kernel UDP or an `AF_XDP` transport, as chosen.
#[derive(Debug)]
pub enum HostTransport {
    /// Kernel UDP; with the reason when `AF_XDP` was tried and failed.
    Udp(UdpTransport, Option<String>),
    /// `AF_XDP` (boxed: its rings and buffers are large, and a host
    /// holds one transport for its whole life).
    #[cfg(target_os = "linux")]
    Xdp(Box<XdpTransport>),
}

impl HostTransport {
    /// Why `auto` fell back to kernel UDP, if it did.
    pub fn fallback_reason(&self) -> Option<&str> {
        match self {
            HostTransport::Udp(_, reason) => reason.as_deref(),
            #[cfg(target_os = "linux")]
            HostTransport::Xdp(_) => None,
        }
    }

    /// `"udp"` or `"xdp"`: what is in use.
    pub fn kind(&self) -> &'static str {
        match self {
            HostTransport::Udp(..) => "udp",
            #[cfg(target_os = "linux")]
            HostTransport::Xdp(_) => "xdp",
        }
    }

    fn inner(&mut self) -> &mut dyn Transport {
        match self {
            HostTransport::Udp(t, _) => t,
            #[cfg(target_os = "linux")]
            HostTransport::Xdp(t) => t.as_mut(),
        }
    }
}

/// The transport `choice` names for a host at `place`, whose kernel UDP
/// socket would bind `bind`. `AF_XDP` always uses [`ESA_UDP_PORT`] (the
/// frames the switch sees are the same either way).
pub fn open_host_transport(
    choice: TransportChoice,
    bind: SocketAddrV4,
    place: &XdpPlace,
) -> Result<HostTransport, TransportError> {
    let udp =
        |reason| UdpTransport::bind(SocketAddr::V4(bind)).map(|t| HostTransport::Udp(t, reason));
    if choice == TransportChoice::Udp {
        return udp(None);
    }
    match open_xdp(place) {
        Ok(t) => Ok(t),
        Err(reason) if choice == TransportChoice::Auto => {
            XDP_FALLBACKS.fetch_add(1, Ordering::Relaxed);
            udp(Some(reason))
        }
        Err(reason) => Err(TransportError::Xdp(reason)),
    }
}

#[cfg(target_os = "linux")]
fn open_xdp(place: &XdpPlace) -> Result<HostTransport, String> {
    open_xdp_host(
        &place.interface,
        place.queue,
        ESA_UDP_PORT,
        place.address,
        place.lanes,
    )
    .map(|t| HostTransport::Xdp(Box::new(t)))
    .map_err(|e| e.to_string())
}

#[cfg(not(target_os = "linux"))]
fn open_xdp(_: &XdpPlace) -> Result<HostTransport, String> {
    let _ = ESA_UDP_PORT;
    Err("AF_XDP is Linux only".to_string())
}

impl Transport for HostTransport {
    fn local_addr(&self) -> SocketAddr {
        match self {
            HostTransport::Udp(t, _) => t.local_addr(),
            #[cfg(target_os = "linux")]
            HostTransport::Xdp(t) => t.local_addr(),
        }
    }
    fn send_batch(&mut self, batch: &mut Vec<Datagram>) -> Result<(), TransportError> {
        self.inner().send_batch(batch)
    }
    fn send_packed(
        &mut self,
        peer: SocketAddr,
        payloads: &[u8],
        payload_len: usize,
    ) -> Result<(), TransportError> {
        self.inner().send_packed(peer, payloads, payload_len)
    }
    fn recv_batch(&mut self, out: &mut Vec<Datagram>, max: usize) -> Result<usize, TransportError> {
        self.inner().recv_batch(out, max)
    }
    fn recv_each(
        &mut self,
        max: usize,
        each: &mut dyn FnMut(SocketAddr, &[u8]),
    ) -> Result<usize, TransportError> {
        self.inner().recv_each(max, each)
    }
    fn wait(&mut self, timeout: Duration) -> Result<bool, TransportError> {
        self.inner().wait(timeout)
    }
    fn stats(&self) -> TransportStats {
        match self {
            HostTransport::Udp(t, _) => t.stats(),
            #[cfg(target_os = "linux")]
            HostTransport::Xdp(t) => t.stats(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use esa_core::wire::{Ipv4Addr, MacAddr};

    fn place(interface: &str) -> XdpPlace {
        XdpPlace {
            interface: interface.to_string(),
            queue: 0,
            address: HostAddress {
                mac: MacAddr([2, 0, 0, 0, 0, 1]),
                ip: Ipv4Addr([127, 0, 0, 1]),
                gateway_mac: MacAddr([2, 0, 0, 0, 0, 0xfe]),
            },
            lanes: 16,
        }
    }

    fn loopback() -> SocketAddrV4 {
        SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 0)
    }

    #[test]
    fn choices_parse() {
        assert_eq!("auto".parse(), Ok(TransportChoice::Auto));
        assert_eq!("udp".parse(), Ok(TransportChoice::Udp));
        assert_eq!("xdp".parse(), Ok(TransportChoice::Xdp));
        assert!("dpdk".parse::<TransportChoice>().is_err());
    }

    /// No such interface: `auto` falls back to kernel UDP, says why and
    /// counts it; `xdp` refuses; `udp` never tries.
    #[test]
    fn auto_falls_back_to_udp_and_says_why() {
        let absent = place("esax-absent0");
        let before = xdp_fallbacks();
        let t = open_host_transport(TransportChoice::Auto, loopback(), &absent).unwrap();
        assert_eq!(t.kind(), "udp");
        let reason = t.fallback_reason().unwrap();
        assert!(reason.contains("esax-absent0"), "{reason}");
        assert!(xdp_fallbacks() > before);

        let refused = open_host_transport(TransportChoice::Xdp, loopback(), &absent);
        assert!(
            matches!(refused, Err(TransportError::Xdp(_))),
            "{refused:?}"
        );

        let plain = open_host_transport(TransportChoice::Udp, loopback(), &absent).unwrap();
        assert_eq!((plain.kind(), plain.fallback_reason()), ("udp", None));
    }
}
