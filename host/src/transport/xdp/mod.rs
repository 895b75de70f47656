//! A [`FrameLink`] over an `AF_XDP` socket: whole Ethernet frames in and
//! out of one receive queue of an interface, without the kernel's UDP
//! stack, for a host whose own interface carries ESA traffic (a namespace
//! host's `eth0`, a NIC). [`SwitchPortTransport`] builds and parses the
//! frames, as for every other frame link.
//!
//! Receiving needs an XDP program on the interface that redirects the
//! host's ESA datagrams into the socket ([`program`], assembled here and
//! loaded with bpf(2)): driver mode where the driver has XDP (veth does),
//! else generic mode. The socket binds zero-copy where the driver allows,
//! in copy mode elsewhere (veth). The program is detached when the link is
//! dropped (a bpf link, which the kernel also closes if the process dies).
//!
//! One link holds one queue; a host with several cores opens one link per
//! queue it serves. A second link on the same interface replaces the
//! first's program (one program per interface).
//!
//! Everything unsafe is in `sys`.

mod program;
mod sys;

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::switch_port::{FrameLink, HostAddress, LinkClosed, SwitchPortTransport};

/// Frames taken off the receive ring per receive.
const RECV_BURST: u32 = 256;

/// How long sending may go without the kernel taking a frame before the
/// rest of a batch is dropped (the protocol resends what is lost).
const SEND_STALL: Duration = Duration::from_millis(20);

/// Entries of the socket map: receive queues a program can serve.
const MAP_QUEUES: u32 = 64;

/// `XDP_FLAGS_SKB_MODE`: generic XDP, any driver.
const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;
/// `XDP_FLAGS_DRV_MODE`: the driver runs the program.
const XDP_FLAGS_DRV_MODE: u32 = 1 << 2;

/// Why an `AF_XDP` link could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("AF_XDP on {interface}: {step}: {source}")]
pub struct XdpError {
    /// The interface asked for.
    pub interface: String,
    /// What was being done: finding the interface, creating the socket
    /// map, loading the program, opening the socket, attaching.
    pub step: &'static str,
    /// What the kernel said (`EPERM` without `CAP_NET_ADMIN` and
    /// `CAP_BPF`, `ENODEV` for no such interface, ...).
    #[source]
    pub source: io::Error,
}

/// Where the XDP program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XdpMode {
    /// In the driver, before an `sk_buff` is made.
    Driver,
    /// In the kernel's generic receive path (any driver, slower).
    Generic,
}

/// Counters of an [`XdpFrameLink`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XdpStats {
    /// Frames received.
    pub received: u64,
    /// Frames handed to the kernel to send.
    pub sent: u64,
    /// Frames dropped on send: no room on the ring for 20 ms,
    /// longer than a chunk, or dropped by the device.
    pub send_dropped: u64,
    /// `sendto` calls made to have the kernel take frames.
    pub kicks: u64,
}

/// One host's `AF_XDP` socket on one queue of an interface, and the XDP
/// program that feeds it.
#[derive(Debug)]
pub struct XdpFrameLink {
    // Fields drop in order: the program is detached before the socket
    // it redirects to closes.
    _attached: OwnedFd,
    _program: OwnedFd,
    _map: OwnedFd,
    socket: sys::XdpSocket,
    mode: XdpMode,
    received: VecDeque<Vec<u8>>,
    stats: XdpStats,
}

impl XdpFrameLink {
    /// Opens a socket on `queue` of `interface` and attaches a program
    /// that redirects IPv4 UDP datagrams to `port` there.
    pub fn open(interface: &str, queue: u32, port: u16) -> Result<XdpFrameLink, XdpError> {
        let fail = |step: &'static str| {
            move |source| XdpError {
                interface: interface.to_string(),
                step,
                source,
            }
        };
        let ifindex = sys::interface_index(interface).map_err(fail("finding the interface"))?;
        let map = sys::create_socket_map(MAP_QUEUES).map_err(fail("creating the socket map"))?;
        let instructions = program::redirect_udp_port(map.as_raw_fd(), port);
        let program = sys::load_xdp_program(&instructions).map_err(fail("loading the program"))?;
        let socket = sys::XdpSocket::open(interface, queue).map_err(fail("opening the socket"))?;
        sys::set_socket(&map, queue, socket.fd()).map_err(fail("adding to the socket map"))?;
        let (attached, mode) = match sys::attach_xdp(&program, ifindex, XDP_FLAGS_DRV_MODE) {
            Ok(link) => (link, XdpMode::Driver),
            Err(_) => (
                sys::attach_xdp(&program, ifindex, XDP_FLAGS_SKB_MODE)
                    .map_err(fail("attaching the program"))?,
                XdpMode::Generic,
            ),
        };
        Ok(XdpFrameLink {
            _attached: attached,
            _program: program,
            _map: map,
            socket,
            mode,
            received: VecDeque::new(),
            stats: XdpStats::default(),
        })
    }

    /// Where the program runs.
    pub fn mode(&self) -> XdpMode {
        self.mode
    }

    /// Whether the socket is zero-copy (else copy mode).
    pub fn zero_copy(&self) -> bool {
        self.socket.zero_copy()
    }

    /// Counters.
    pub fn stats(&self) -> XdpStats {
        self.stats
    }

    /// Moves what is on the receive ring to `received`.
    fn receive(&mut self) {
        let received = &mut self.received;
        let n = self
            .socket
            .receive(RECV_BURST, |frame| received.push_back(frame.to_vec()));
        self.stats.received += n as u64;
    }

    /// Sends `frames` in order: as many as the ring takes, kicking the
    /// kernel until it has taken them all, or dropping the rest after
    /// [`SEND_STALL`] without progress.
    fn transmit<'f>(&mut self, frames: impl ExactSizeIterator<Item = &'f [u8]> + Clone) {
        let total = frames.len();
        let mut rest = frames;
        let mut done = 0;
        let mut stalled_since: Option<Instant> = None;
        while done < total || self.socket.tx_pending() > 0 {
            let (consumed, skipped) = self.socket.enqueue(rest.clone());
            if consumed > 0 {
                rest.nth(consumed - 1);
            }
            done += consumed;
            self.stats.send_dropped += skipped as u64;
            self.stats.sent += (consumed - skipped) as u64;
            let before = self.socket.tx_pending();
            self.stats.kicks += 1;
            match self.socket.kick() {
                Ok(true) => self.stats.send_dropped += 1,
                Ok(false) => {}
                // The interface went down or away: what is left is lost.
                Err(_) => break,
            }
            if consumed == 0 && self.socket.tx_pending() >= before {
                let since = *stalled_since.get_or_insert_with(Instant::now);
                if since.elapsed() > SEND_STALL {
                    break;
                }
                std::thread::yield_now();
            } else {
                stalled_since = None;
            }
        }
        self.stats.send_dropped += (total - done) as u64;
    }
}

impl FrameLink for XdpFrameLink {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        self.transmit(std::iter::once(frame));
        Ok(())
    }

    fn send_frames(&mut self, frames: Vec<Vec<u8>>) -> Result<(), LinkClosed> {
        self.transmit(frames.iter().map(Vec::as_slice));
        Ok(())
    }

    fn send_packed_frames(&mut self, frames: &[u8], frame_len: usize) -> Result<(), LinkClosed> {
        if frame_len > 0 {
            self.transmit(frames.chunks(frame_len));
        }
        Ok(())
    }

    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        if self.received.is_empty() {
            self.receive();
        }
        self.received.pop_front()
    }

    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        if let Some(frame) = self.try_recv_frame() {
            return Some(frame);
        }
        // An interrupted or failed poll reads as "nothing yet".
        if self.socket.wait_readable(timeout).unwrap_or(false) {
            return self.try_recv_frame();
        }
        None
    }
}

/// A host on its own interface: ESA payloads in frames from `address`
/// through an `AF_XDP` socket on `queue` of `interface`, receiving what
/// arrives for UDP port `port`, for packets of `lanes` lanes.
pub fn open_xdp_host(
    interface: &str,
    queue: u32,
    port: u16,
    address: HostAddress,
    lanes: usize,
) -> Result<SwitchPortTransport<XdpFrameLink>, XdpError> {
    let link = XdpFrameLink::open(interface, queue, port)?;
    Ok(SwitchPortTransport::new(link, address, lanes))
}
