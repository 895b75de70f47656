//! Ports: how interface ports move frames ([`InterfaceIo`]), in-memory
//! ports for in-process use, and the per-port counters.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::inbound::{FrameBatch, InboundSender};

/// How interface ports move frames (Linux `AF_PACKET`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterfaceIo {
    /// Batches: a memory-mapped `TPACKET_V3` receive ring per interface
    /// and one `sendmmsg` per batch of frames out of it. Where the ring
    /// cannot be set up the interface falls back to [`InterfaceIo::PerFrame`]
    /// (logged once, at start).
    Ring(RingConfig),
    /// One `recvfrom` and one `send` system call per frame.
    PerFrame,
}

impl Default for InterfaceIo {
    fn default() -> InterfaceIo {
        InterfaceIo::Ring(RingConfig::default())
    }
}

impl std::str::FromStr for InterfaceIo {
    type Err = String;

    /// `ring` (the default), `ring-sendmmsg` (the ring, sending with
    /// `sendmmsg` rather than `AF_XDP`), `ring-blocks` (a
    /// [`RingKind::Blocks`] ring) or `per-frame`.
    fn from_str(s: &str) -> Result<InterfaceIo, String> {
        match s {
            "ring" => Ok(InterfaceIo::default()),
            "ring-sendmmsg" => Ok(InterfaceIo::Ring(RingConfig {
                xdp_send: false,
                ..RingConfig::default()
            })),
            "ring-blocks" => Ok(InterfaceIo::Ring(RingConfig {
                kind: RingKind::Blocks,
                ..RingConfig::default()
            })),
            "per-frame" => Ok(InterfaceIo::PerFrame),
            _ => Err(format!(
                "`{s}` is not one of `ring`, `ring-sendmmsg`, `ring-blocks`, `per-frame`"
            )),
        }
    }
}

/// How a receive ring hands frames to its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingKind {
    /// `TPACKET_V2`: fixed slots of [`RingConfig::frame_size`] bytes, each
    /// handed over as soon as the kernel has written it; a wake-up takes
    /// every frame waiting, so batches grow with load and a frame arriving
    /// alone is not held back. Frames longer than a slot are dropped (as a
    /// switch drops frames over its MTU).
    Frames,
    /// `TPACKET_V3`: frames packed into blocks by length, handed over a
    /// block at a time when it is full or [`RingConfig::block_timeout`]
    /// after its first frame: fewest wake-ups, but under light load every
    /// frame waits up to the timeout (1 ms measured on Linux 6.18).
    Blocks,
}

/// Shape of an interface's receive ring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingConfig {
    /// Slots or blocks.
    pub kind: RingKind,
    /// Bytes per block: a multiple of the page size. With
    /// [`RingKind::Blocks`] also the largest frame received.
    pub block_size: usize,
    /// Blocks in the ring (`block_size * block_count` bytes are mapped).
    pub block_count: usize,
    /// [`RingKind::Frames`]: bytes per slot (a multiple of 16; the frame
    /// plus about 80 bytes of header must fit).
    pub frame_size: usize,
    /// [`RingKind::Blocks`]: how long the kernel keeps a partly filled
    /// block before handing it over (whole milliseconds, at least 1).
    pub block_timeout: Duration,
    /// Read the ring in a thread of its own that hands batches to the
    /// packet thread, rather than in the packet thread itself (the
    /// default: one thread from ring to `sendmmsg`, no hand-off).
    pub reader_thread: bool,
    /// Send through an `AF_XDP` socket where the kernel allows one (the
    /// default; `sendmmsg` on the `AF_PACKET` socket otherwise). Frames
    /// over 2 KiB are then refused and counted as transmit errors, as the
    /// receive ring's 2 KiB slots refuse them on the way in.
    pub xdp_send: bool,
}

impl Default for RingConfig {
    /// Slots of 2 KiB (an MTU of 1500 and a VLAN tag fit) in 16 blocks of
    /// 256 KiB: 2048 frames, 4 MiB (as the socket buffers).
    fn default() -> RingConfig {
        RingConfig {
            kind: RingKind::Frames,
            block_size: 256 << 10,
            block_count: 16,
            frame_size: 2048,
            block_timeout: Duration::from_millis(1),
            reader_thread: false,
            xdp_send: true,
        }
    }
}

/// Counters of one port, updated by the packet thread.
#[derive(Debug, Default)]
pub(crate) struct PortCounters {
    rx_packets: AtomicU64,
    rx_bytes: AtomicU64,
    tx_packets: AtomicU64,
    tx_bytes: AtomicU64,
    dropped: AtomicU64,
    tx_errors: AtomicU64,
    hellos: AtomicU64,
    strangers: AtomicU64,
}

impl PortCounters {
    pub(crate) fn hello(&self) {
        self.hellos.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn stranger(&self) {
        self.strangers.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn rx(&self, bytes: usize) {
        self.rx_packets.fetch_add(1, Ordering::Relaxed);
        self.rx_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn tx(&self, bytes: usize) {
        self.tx_many(1, bytes);
    }

    /// `frames` frames sent, of `bytes` bytes in all.
    pub(crate) fn tx_many(&self, frames: usize, bytes: usize) {
        self.tx_packets.fetch_add(frames as u64, Ordering::Relaxed);
        self.tx_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn drop_one(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn tx_error(&self) {
        self.tx_errors(1);
    }

    /// `frames` frames not sent.
    pub(crate) fn tx_errors(&self, frames: usize) {
        self.tx_errors.fetch_add(frames as u64, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> PortStats {
        PortStats {
            rx_packets: self.rx_packets.load(Ordering::Relaxed),
            rx_bytes: self.rx_bytes.load(Ordering::Relaxed),
            tx_packets: self.tx_packets.load(Ordering::Relaxed),
            tx_bytes: self.tx_bytes.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            tx_errors: self.tx_errors.load(Ordering::Relaxed),
            hellos: self.hellos.load(Ordering::Relaxed),
            strangers: self.strangers.load(Ordering::Relaxed),
        }
    }
}

/// A snapshot of one port's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortStats {
    /// Frames received on the port.
    pub rx_packets: u64,
    /// Bytes received on the port.
    pub rx_bytes: u64,
    /// Frames sent out of the port.
    pub tx_packets: u64,
    /// Bytes sent out of the port.
    pub tx_bytes: u64,
    /// Frames received on the port that the pipeline dropped (or that
    /// arrived while no program was loaded).
    pub dropped: u64,
    /// Frames for the port that could not be sent (closed peer, send
    /// error, or no such port).
    pub tx_errors: u64,
    /// Hellos received on a UDP port (a host announcing its address; not
    /// frames, not counted in `rx_packets`).
    pub hellos: u64,
    /// Datagrams a UDP port dropped because they came from an address
    /// other than its host's (a port pinned to its first host, see the
    /// `udp` module).
    pub strangers: u64,
}

/// The test's end of an in-memory port: frames sent here enter the switch
/// on this port; frames the switch sends out of it arrive here.
#[derive(Debug)]
pub struct MemoryPort {
    port: u32,
    inbound: InboundSender,
    /// The switch's batches for the port, each a packet-thread round's.
    out: Receiver<Vec<Vec<u8>>>,
    /// The frames of the batches received and not yet taken, in order.
    taken: Mutex<VecDeque<Vec<u8>>>,
    counters: Arc<PortCounters>,
}

/// The switch has stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the switch has stopped")]
pub struct Stopped;

impl MemoryPort {
    pub(crate) fn new(
        port: u32,
        inbound: InboundSender,
        out: Receiver<Vec<Vec<u8>>>,
        counters: Arc<PortCounters>,
    ) -> MemoryPort {
        MemoryPort {
            port,
            inbound,
            out,
            taken: Mutex::new(VecDeque::new()),
            counters,
        }
    }

    /// The port number.
    pub fn port(&self) -> u32 {
        self.port
    }

    /// Sends a frame into the switch on this port.
    pub fn send(&self, frame: &[u8]) -> Result<(), Stopped> {
        self.inbound
            .send_frames(FrameBatch::one(self.port, frame))
            .map_err(|_| Stopped)
    }

    /// Sends frames into the switch on this port, in order, as one
    /// message (the packet thread takes them in one wake-up).
    pub fn send_frames(&self, frames: Vec<Vec<u8>>) -> Result<(), Stopped> {
        let mut batch = FrameBatch::default();
        for frame in &frames {
            batch.push(self.port, frame);
        }
        self.inbound.send_frames(batch).map_err(|_| Stopped)
    }

    /// A handle that sends into this port from another thread.
    pub fn sender(&self) -> PortSender {
        PortSender {
            port: self.port,
            inbound: self.inbound.clone(),
        }
    }

    /// The next frame the switch sent out of this port, waiting up to
    /// `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<Vec<u8>> {
        self.next_frame(|out| out.recv_timeout(timeout).ok())
    }

    /// The next frame if one is waiting.
    pub fn try_recv(&self) -> Option<Vec<u8>> {
        self.next_frame(|out| out.try_recv().ok())
    }

    /// The first frame not yet taken, receiving the next batch with
    /// `receive` when there is none.
    fn next_frame(
        &self,
        receive: impl FnOnce(&Receiver<Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>>,
    ) -> Option<Vec<u8>> {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        if taken.is_empty() {
            taken.extend(receive(&self.out)?);
        }
        taken.pop_front()
    }

    /// The port's counters.
    pub fn stats(&self) -> PortStats {
        self.counters.snapshot()
    }
}

/// Sends frames into one in-memory port; cheap to clone, usable from any
/// thread (the receiving side stays with [`MemoryPort`]).
#[derive(Debug, Clone)]
pub struct PortSender {
    port: u32,
    inbound: InboundSender,
}

impl PortSender {
    /// Sends a frame into the switch on this port.
    pub fn send(&self, frame: &[u8]) -> Result<(), Stopped> {
        self.inbound
            .send_frames(FrameBatch::one(self.port, frame))
            .map_err(|_| Stopped)
    }
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    #[test]
    fn interface_io_names_parse_to_their_ways_and_others_are_refused() {
        let ring = |c: RingConfig| InterfaceIo::Ring(c);
        assert_eq!("ring".parse(), Ok(InterfaceIo::default()));
        assert_eq!(
            "ring-sendmmsg".parse(),
            Ok(ring(RingConfig {
                xdp_send: false,
                ..RingConfig::default()
            }))
        );
        assert_eq!(
            "ring-blocks".parse(),
            Ok(ring(RingConfig {
                kind: RingKind::Blocks,
                ..RingConfig::default()
            }))
        );
        assert_eq!("per-frame".parse(), Ok(InterfaceIo::PerFrame));
        let err = "xdp".parse::<InterfaceIo>().unwrap_err();
        assert!(err.contains("`xdp` is not one of"), "{err}");
    }
}
