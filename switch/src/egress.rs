//! Where frames leave the switch: an [`Egress`] per port, one
//! implementation per kind of port. The packet thread collects a batch's
//! frames per egress port and hands each port its frames in one call, so
//! the choice of kind is made once per port and batch, never per frame;
//! what only Linux has (interfaces) is gated here, not in the packet
//! thread.
//!
//! | port | implementation | a batch leaves as |
//! |---|---|---|
//! | in-memory | [`MemoryEgress`] | one message to the port's receiving end |
//! | UDP-carried | [`UdpEgress`] | a segmented datagram per run of frames of one length (one datagram per frame on the wire) |
//! | interface with a receive ring | `RingEgress` (Linux) | `AF_XDP` transmit-ring batches, else `sendmmsg` calls |
//! | interface, one system call per frame | `PerFrameEgress` (Linux) | one `send` per frame |

use std::io;
use std::sync::Arc;
use std::sync::mpsc::Sender;

use crate::ports::PortCounters;
use crate::udp::UdpPort;

/// One port's way out.
pub(crate) trait Egress: std::fmt::Debug + Send {
    /// Sends `frames`, a batch's frames for the port in the order the
    /// program emitted them, and counts each frame in `counters` as sent
    /// (with its bytes) or as a transmit error. Buffers still in `frames`
    /// afterwards are the caller's to reuse.
    fn send(&mut self, frames: &mut Vec<Vec<u8>>, counters: &PortCounters);
}

/// An in-memory port: the receiving end is a [`crate::MemoryPort`].
#[derive(Debug)]
pub(crate) struct MemoryEgress {
    to_port: Sender<Vec<Vec<u8>>>,
}

impl MemoryEgress {
    pub(crate) fn new(to_port: Sender<Vec<Vec<u8>>>) -> MemoryEgress {
        MemoryEgress { to_port }
    }
}

impl Egress for MemoryEgress {
    /// The batch goes as one message: one wake-up of a receiver waiting
    /// for its frames. The frames' buffers go with it.
    fn send(&mut self, frames: &mut Vec<Vec<u8>>, counters: &PortCounters) {
        let batch = std::mem::take(frames);
        let count = batch.len();
        let bytes = batch.iter().map(Vec::len).sum();
        if self.to_port.send(batch).is_ok() {
            counters.tx_many(count, bytes);
        } else {
            counters.tx_errors(count);
        }
    }
}

/// A port carried over UDP ([`crate::udp`]).
#[derive(Debug)]
pub(crate) struct UdpEgress {
    port: u32,
    socket: Arc<UdpPort>,
    /// A run of frames back to back, reused.
    buffer: Vec<u8>,
}

impl UdpEgress {
    pub(crate) fn new(port: u32, socket: Arc<UdpPort>) -> UdpEgress {
        UdpEgress {
            port,
            socket,
            buffer: Vec::new(),
        }
    }
}

impl Egress for UdpEgress {
    /// A system call per run of frames of one length
    /// ([`UdpPort::segment_run`]); a run the kernel refuses is counted as
    /// transmit errors, frame by frame.
    fn send(&mut self, frames: &mut Vec<Vec<u8>>, counters: &PortCounters) {
        let mut rest = &frames[..];
        while !rest.is_empty() {
            let (run, after) = rest.split_at(self.socket.segment_run(rest));
            match self.socket.send_segmented(run, &mut self.buffer) {
                Ok(()) => counters.tx_many(run.len(), run.iter().map(Vec::len).sum()),
                Err(e) => {
                    tracing::debug!(port = self.port, "UDP send: {e}");
                    counters.tx_errors(run.len());
                }
            }
            rest = after;
        }
    }
}

/// Sends each frame with a call of its own, counting it as sent or as a
/// transmit error (logged by `failed`).
fn send_each(
    frames: &[Vec<u8>],
    counters: &PortCounters,
    mut send: impl FnMut(&[u8]) -> io::Result<()>,
    failed: impl Fn(io::Error),
) {
    for frame in frames {
        match send(frame) {
            Ok(()) => counters.tx(frame.len()),
            Err(e) => {
                failed(e);
                counters.tx_error();
            }
        }
    }
}

#[cfg(target_os = "linux")]
pub(crate) use interfaces::{PerFrameEgress, RingEgress};

/// Linux interfaces (`AF_PACKET` and `AF_XDP` sockets).
#[cfg(target_os = "linux")]
mod interfaces {
    use std::sync::Arc;

    use super::{Egress, send_each};
    use crate::afpacket::RawSocket;
    use crate::ports::PortCounters;
    use crate::xdp::XdpEgress;

    /// An interface read through a receive ring: a batch leaves through
    /// the port's `AF_XDP` socket, or in `sendmmsg` calls on its
    /// `AF_PACKET` socket when it has none (or it failed, until it
    /// reopens).
    #[derive(Debug)]
    pub(crate) struct RingEgress {
        port: u32,
        socket: Arc<RawSocket>,
        xdp: Option<XdpEgress>,
    }

    impl RingEgress {
        pub(crate) fn new(port: u32, socket: Arc<RawSocket>, xdp: Option<XdpEgress>) -> RingEgress {
            RingEgress { port, socket, xdp }
        }
    }

    impl Egress for RingEgress {
        fn send(&mut self, frames: &mut Vec<Vec<u8>>, counters: &PortCounters) {
            let (port, socket) = (self.port, &self.socket);
            let slices: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
            let mut report = |i: usize, result: std::io::Result<()>| match result {
                Ok(()) => counters.tx(slices[i].len()),
                Err(e) => {
                    tracing::warn!(port, interface = socket.name(), "send: {e}");
                    counters.tx_error();
                }
            };
            let via_xdp = self
                .xdp
                .as_mut()
                .is_some_and(|x| x.send_many(&slices, &mut report));
            if !via_xdp {
                socket.send_many(&slices, report);
            }
        }
    }

    /// An interface read one frame per system call: one `send` per frame.
    #[derive(Debug)]
    pub(crate) struct PerFrameEgress {
        port: u32,
        socket: Arc<RawSocket>,
    }

    impl PerFrameEgress {
        pub(crate) fn new(port: u32, socket: Arc<RawSocket>) -> PerFrameEgress {
            PerFrameEgress { port, socket }
        }
    }

    impl Egress for PerFrameEgress {
        fn send(&mut self, frames: &mut Vec<Vec<u8>>, counters: &PortCounters) {
            let (port, socket) = (self.port, &self.socket);
            send_each(
                frames,
                counters,
                |frame| socket.send(frame),
                |e| tracing::warn!(port, interface = socket.name(), "send: {e}"),
            );
        }
    }
}
