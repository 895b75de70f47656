//! Moving ESA payloads (the 16-byte header plus lanes) between hosts.
//!
//! One small trait, [`Transport`], with these implementations:
//! [`UdpTransport`] (kernel UDP sockets, batched with `recvmmsg`/`sendmmsg`
//! on Linux), [`MemTransport`] (in-memory links of a [`MemNetwork`], with
//! optional seeded faults, `esa_core::faults::FaultConfig`) and
//! [`SwitchPortTransport`] (payloads
//! wrapped in Ethernet frames on a switch port, any [`FrameLink`], e.g.
//! [`UdpFrameLink`] to a switch port carried over UDP, or, on Linux,
//! `XdpFrameLink`, an `AF_XDP` socket on the host's own interface).
//! [`HostTransport`] is kernel UDP or `AF_XDP` as a [`TransportChoice`]
//! says, falling back to kernel UDP where `AF_XDP` cannot be set up. Every
//! call is non-blocking except [`Transport::wait`], which blocks until
//! something may be readable or the timeout passes. The in-memory network
//! and [`FaultyLink`], which wraps any [`FrameLink`], lose, duplicate and
//! delay by one rule, `esa_core::faults::FaultConfig::apply`.

/// Datagrams a host loop takes from its transport per receive call.
pub const RECV_BATCH: usize = 256;

/// The longest single wait of a host loop, so a shutdown flag is seen
/// promptly.
pub const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

mod choice;
mod faults;
mod mem;
#[cfg(target_os = "linux")]
mod mmsg;
mod switch_port;
mod udp;
mod udp_frames;
#[cfg(target_os = "linux")]
mod xdp;

#[cfg(target_os = "linux")]
pub use choice::XdpTransport;
pub use choice::{HostTransport, TransportChoice, XdpPlace, open_host_transport, xdp_fallbacks};
pub use faults::{FaultCounters, FaultyLink};
pub use mem::{MemNetwork, MemTransport};
pub use switch_port::{FrameLink, FrameStats, HostAddress, LinkClosed, SwitchPortTransport};
pub use udp::UdpTransport;
pub use udp_frames::{UdpFrameLink, attach_host};
#[cfg(target_os = "linux")]
pub use xdp::{XdpError, XdpFrameLink, XdpMode, XdpStats, open_xdp_host};

use crate::error::TransportError;
use std::net::SocketAddr;
use std::time::Duration;

/// Largest datagram a transport receives; ESA payloads are at most
/// 16 + 4 × 64 = 272 bytes, so anything longer is not ESA and is cut.
pub const MAX_DATAGRAM: usize = 2048;

/// One payload and the peer it came from or goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datagram {
    /// Source (received) or destination (sent).
    pub peer: SocketAddr,
    /// The ESA payload.
    pub payload: Vec<u8>,
}

/// Counters of a transport.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransportStats {
    /// Datagrams handed to the network.
    pub sent: u64,
    /// Datagrams received.
    pub received: u64,
    /// Datagrams not sent: the socket stayed full, or the destination
    /// refused or does not exist (in-memory).
    pub send_dropped: u64,
    /// Datagrams the fault injector dropped (in-memory only).
    pub fault_lost: u64,
    /// Extra copies the fault injector made (in-memory only).
    pub fault_duplicated: u64,
    /// Send or receive system calls made (UDP only).
    pub syscalls: u64,
}

/// Sends and receives ESA payloads with a peer address.
pub trait Transport: Send + std::fmt::Debug {
    /// The address peers send to.
    fn local_addr(&self) -> SocketAddr;

    /// Sends every datagram of `batch` and empties it. Datagrams that cannot
    /// be delivered are dropped and counted, as a network would; only a
    /// failure of the transport itself is an error.
    fn send_batch(&mut self, batch: &mut Vec<Datagram>) -> Result<(), TransportError>;

    /// Sends payloads stored back to back in `payloads`, each
    /// `payload_len` bytes (a shorter last piece is sent as it is), all to
    /// `peer`, with the delivery rules of [`Transport::send_batch`]. The
    /// caller keeps its buffer, so a sender can reuse one buffer for every
    /// batch. A `payload_len` of 0 sends nothing.
    ///
    /// The default copies each payload into a [`Datagram`];
    /// [`UdpTransport`] sends straight from `payloads`.
    fn send_packed(
        &mut self,
        peer: SocketAddr,
        payloads: &[u8],
        payload_len: usize,
    ) -> Result<(), TransportError> {
        if payload_len == 0 {
            return Ok(());
        }
        let mut batch: Vec<Datagram> = payloads
            .chunks(payload_len)
            .map(|p| Datagram {
                peer,
                payload: p.to_vec(),
            })
            .collect();
        self.send_batch(&mut batch)
    }

    /// Appends up to `max` datagrams that have arrived to `out` without
    /// blocking; returns how many.
    fn recv_batch(&mut self, out: &mut Vec<Datagram>, max: usize) -> Result<usize, TransportError>;

    /// Hands datagrams that have arrived to `each` (source, payload) in
    /// order without blocking; returns how many. Stops after `max`, or
    /// after the frames of one receive call where a transport reads many
    /// at once (then it may hand out a few more than `max`).
    ///
    /// The default goes through [`Transport::recv_batch`];
    /// [`SwitchPortTransport`] lends its receive buffer instead: no
    /// allocation or copy per datagram.
    fn recv_each(
        &mut self,
        max: usize,
        each: &mut dyn FnMut(SocketAddr, &[u8]),
    ) -> Result<usize, TransportError> {
        let mut batch = Vec::new();
        let n = self.recv_batch(&mut batch, max)?;
        for d in &batch {
            each(d.peer, &d.payload);
        }
        Ok(n)
    }

    /// Blocks until a datagram may be readable or `timeout` passes; returns
    /// whether one may be readable.
    fn wait(&mut self, timeout: Duration) -> Result<bool, TransportError>;

    /// Counters.
    fn stats(&self) -> TransportStats;
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn local_addr(&self) -> SocketAddr {
        (**self).local_addr()
    }
    fn send_batch(&mut self, batch: &mut Vec<Datagram>) -> Result<(), TransportError> {
        (**self).send_batch(batch)
    }
    fn send_packed(
        &mut self,
        peer: SocketAddr,
        payloads: &[u8],
        payload_len: usize,
    ) -> Result<(), TransportError> {
        (**self).send_packed(peer, payloads, payload_len)
    }
    fn recv_batch(&mut self, out: &mut Vec<Datagram>, max: usize) -> Result<usize, TransportError> {
        (**self).recv_batch(out, max)
    }
    fn recv_each(
        &mut self,
        max: usize,
        each: &mut dyn FnMut(SocketAddr, &[u8]),
    ) -> Result<usize, TransportError> {
        (**self).recv_each(max, each)
    }
    fn wait(&mut self, timeout: Duration) -> Result<bool, TransportError> {
        (**self).wait(timeout)
    }
    fn stats(&self) -> TransportStats {
        (**self).stats()
    }
}
