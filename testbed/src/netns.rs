//! The `netns` fabric: hosts in network namespaces joined to the switch by
//! veth pairs. The namespaces themselves are made by `esa-netns` (shared
//! with the privileged tests of every crate); this module adds what the
//! testbed needs on top: the preflight checks and binding a host's UDP
//! socket inside its namespace.

use std::net::SocketAddrV4;

use esa_core::constants::ESA_UDP_PORT;

use crate::error::TestbedError;

pub use esa_netns::{
    NamespaceHost, Namespaces, SwitchAddress, enter, find_on_path, is_root, on_path,
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
    let ns = ns.map(str::to_owned);
    let addr = std::net::SocketAddr::V4(SocketAddrV4::new(ip, ESA_UDP_PORT));
    std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(ns) = &ns {
                enter(ns).map_err(|e| format!("entering namespace {ns}: {e}"))?;
            }
            esa_host::transport::UdpTransport::bind(addr).map_err(|e| {
                let hint = match &ns {
                    Some(ns) => format!(" (in namespace {ns})"),
                    None => String::new(),
                };
                format!("{e}{hint}")
            })
        })
        .join()
        .unwrap_or_else(|_| Err("the binding thread panicked".into()))
    })
}
