//! The `netns` fabric: hosts in network namespaces joined to the switch by
//! veth pairs. The namespaces themselves are made by `esa-netns` (shared
//! with the privileged tests of every crate); this module adds what the
//! testbed needs on top: the preflight checks and opening a host's
//! transport (kernel UDP or `AF_XDP`) inside its namespace.

use std::net::SocketAddrV4;

use esa_core::constants::ESA_UDP_PORT;
use esa_host::transport::{HostTransport, TransportChoice, XdpPlace, open_host_transport};

use crate::error::TestbedError;

pub use esa_netns::{
    NamespaceHost, Namespaces, SwitchAddress, VethPair, enter, find_on_path, is_root, on_path,
    remove_this_process, sweep_stale,
};

/// Checks, before anything is created, that namespaces can be made here:
/// root, iproute2's `ip`, and `nft` when loss is injected.
pub fn preflight(loss: bool) -> Result<(), TestbedError> {
    if !cfg!(target_os = "linux") {
        return Err(TestbedError::Setup(
            "the netns fabric needs Linux network namespaces".into(),
        ));
    }
    if !is_root() {
        return Err(TestbedError::Setup(
            "the netns fabric creates network namespaces and veth pairs, which needs root: \
             run as root (e.g. `sudo`), or drop `--fabric netns` to run in process"
                .into(),
        ));
    }
    if !on_path("ip") {
        return Err(TestbedError::Setup(
            "the netns fabric needs iproute2's `ip` on PATH (Debian: apt-get install iproute2)"
                .into(),
        ));
    }
    if loss && !on_path("nft") {
        return Err(TestbedError::Setup(
            "switch.loss on the netns fabric is injected with nftables, and `nft` is not on \
             PATH (Debian: apt-get install nftables)"
                .into(),
        ));
    }
    Ok(())
}

/// Binds the ESA UDP socket of a host at `ip` inside namespace `ns` (or
/// in this thread's namespace when `None`), on a short-lived thread so
/// the caller's namespace never changes.
pub fn bind_udp(
    ns: Option<&str>,
    ip: std::net::Ipv4Addr,
) -> Result<esa_host::transport::UdpTransport, String> {
    let addr = std::net::SocketAddr::V4(SocketAddrV4::new(ip, ESA_UDP_PORT));
    in_namespace(ns, || {
        esa_host::transport::UdpTransport::bind(addr).map_err(|e| e.to_string())
    })
}

/// Opens the transport `choice` names for a host at `place` inside
/// namespace `ns` (or this thread's), as [`bind_udp`] does; its kernel UDP
/// socket, if it gets one, binds the ESA port of the place's address.
/// `auto` falling back to kernel UDP is logged with the reason (and
/// counted by `esa_host::transport::xdp_fallbacks`).
pub fn open_host(
    ns: Option<&str>,
    choice: TransportChoice,
    place: &XdpPlace,
) -> Result<HostTransport, String> {
    let ip = std::net::Ipv4Addr::from(place.address.ip);
    let bind = SocketAddrV4::new(ip, ESA_UDP_PORT);
    let transport = in_namespace(ns, || {
        open_host_transport(choice, bind, place).map_err(|e| e.to_string())
    })?;
    if let Some(reason) = transport.fallback_reason() {
        tracing::warn!(host = %ip, "AF_XDP unavailable, on kernel UDP: {reason}");
    }
    Ok(transport)
}

/// Runs `open` on a short-lived thread inside namespace `ns` (or this
/// thread's namespace when `None`), so the caller's namespace never
/// changes; an error names the namespace.
fn in_namespace<T: Send>(
    ns: Option<&str>,
    open: impl FnOnce() -> Result<T, String> + Send,
) -> Result<T, String> {
    std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(ns) = ns {
                enter(ns).map_err(|e| format!("entering namespace {ns}: {e}"))?;
            }
            open().map_err(|e| match ns {
                Some(ns) => format!("{e} (in namespace {ns})"),
                None => e,
            })
        })
        .join()
        .unwrap_or_else(|_| Err("the binding thread panicked".into()))
    })
}
