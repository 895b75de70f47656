//! The packet thread's input: one channel that every port's received
//! frames go into ([`FrameBatch`], whoever read them), the sender's side
//! of it, and the doorbell that wakes the packet thread when it sleeps on
//! interface rings instead of on the channel.
//!
//! Frames a ring hands the packet thread directly (it reads rings itself
//! by default) never pass through here: they go from ring memory into the
//! program.

use std::sync::mpsc::{SendError, Sender};
#[cfg(target_os = "linux")]
use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

/// What the packet thread receives.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// Frames received, each with its ingress port, in arrival order.
    Frames(FrameBatch),
    /// Stop the packet thread.
    Stop,
}

/// Bytes in front of each frame of a [`FrameBatch`]: its ingress port and
/// its length.
const FRAME_HEADER: usize = size_of::<u32>() + size_of::<usize>();

/// Frames with their ingress ports, stored back to back, each behind a
/// small header (port, length): one allocation per batch, whether it
/// holds one frame (an in-memory port's send, a PacketOut) or a reader's
/// whole wake-up.
#[derive(Debug, Default)]
pub(crate) struct FrameBatch {
    bytes: Vec<u8>,
    count: usize,
}

impl FrameBatch {
    /// An empty batch with room for `bytes` bytes of frames and headers
    /// (a previous batch's [`FrameBatch::buffer_len`]).
    pub(crate) fn with_capacity(bytes: usize) -> FrameBatch {
        FrameBatch {
            bytes: Vec::with_capacity(bytes),
            count: 0,
        }
    }

    /// A batch of one frame received on `port`.
    pub(crate) fn one(port: u32, frame: &[u8]) -> FrameBatch {
        let mut batch = FrameBatch::with_capacity(FRAME_HEADER + frame.len());
        batch.push(port, frame);
        batch
    }

    /// Appends a copy of `frame`, received on `port`.
    pub(crate) fn push(&mut self, port: u32, frame: &[u8]) {
        self.bytes.extend_from_slice(&port.to_ne_bytes());
        self.bytes.extend_from_slice(&frame.len().to_ne_bytes());
        self.bytes.extend_from_slice(frame);
        self.count += 1;
    }

    /// The number of frames.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Whether the batch holds no frame.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The bytes the batch takes, headers included.
    pub(crate) fn buffer_len(&self) -> usize {
        self.bytes.len()
    }

    /// The frames with their ingress ports, in the order pushed.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &[u8])> {
        let mut rest = self.bytes.as_slice();
        std::iter::from_fn(move || {
            let (port, after) = rest.split_first_chunk()?;
            let (len, after) = after.split_first_chunk()?;
            let (frame, after) = after.split_at_checked(usize::from_ne_bytes(*len))?;
            rest = after;
            Some((u32::from_ne_bytes(*port), frame))
        })
    }
}

/// The sending side of the packet thread's channel. When the packet thread
/// reads interface rings itself it sleeps in `poll` on them rather than on
/// the channel; then each message also rings its doorbell, if it sleeps.
#[derive(Debug, Clone)]
pub(crate) struct InboundSender {
    tx: Sender<Inbound>,
    #[cfg(target_os = "linux")]
    doorbell: Option<Arc<Doorbell>>,
}

impl InboundSender {
    #[cfg(target_os = "linux")]
    pub(crate) fn new(tx: Sender<Inbound>, doorbell: Option<Arc<Doorbell>>) -> InboundSender {
        InboundSender { tx, doorbell }
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn new(tx: Sender<Inbound>) -> InboundSender {
        InboundSender { tx }
    }

    /// Sends `message`, waking the packet thread if it sleeps on its rings.
    pub(crate) fn send(&self, message: Inbound) -> Result<(), SendError<Inbound>> {
        self.tx.send(message)?;
        #[cfg(target_os = "linux")]
        if let Some(d) = &self.doorbell {
            d.ring();
        }
        Ok(())
    }

    /// Sends `frames` (a message of them).
    pub(crate) fn send_frames(&self, frames: FrameBatch) -> Result<(), SendError<Inbound>> {
        self.send(Inbound::Frames(frames))
    }
}

/// How senders wake a packet thread sleeping on its rings: it sets
/// `parked`, looks at the channel once more, and waits; a sender queues
/// its message, then wakes it if `parked` is set. One of the two always
/// sees the other (both sides order their store before their load).
#[cfg(target_os = "linux")]
#[derive(Debug)]
pub(crate) struct Doorbell {
    parked: AtomicBool,
    waker: crate::afpacket::Waker,
}

#[cfg(target_os = "linux")]
impl Doorbell {
    pub(crate) fn new() -> std::io::Result<Doorbell> {
        Ok(Doorbell {
            parked: AtomicBool::new(false),
            waker: crate::afpacket::Waker::new()?,
        })
    }

    fn ring(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.parked.load(Ordering::SeqCst) {
            self.waker.wake();
        }
    }

    /// The packet thread is about to look at the channel a last time and
    /// wait.
    pub(crate) fn park(&self) {
        self.parked.store(true, Ordering::SeqCst);
        std::sync::atomic::fence(Ordering::SeqCst);
    }

    /// The packet thread is awake again. Returns whether a sender rang.
    pub(crate) fn unpark(&self) -> bool {
        self.parked.store(false, Ordering::SeqCst);
        self.waker.clear()
    }

    pub(crate) fn waker(&self) -> &crate::afpacket::Waker {
        &self.waker
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_batches_keep_frames_apart_and_in_order() {
        let mut batch = FrameBatch::with_capacity(0);
        for (port, f) in [(1, &[1u8, 2, 3][..]), (2, &[]), (1, &[4])] {
            batch.push(port, f);
        }
        assert_eq!(batch.len(), 3);
        assert_eq!(batch.iter().map(|(_, f)| f.len()).sum::<usize>(), 4);
        let frames: Vec<&[u8]> = batch.iter().map(|(_, f)| f).collect();
        assert_eq!(frames, [&[1u8, 2, 3][..], &[], &[4]]);
        let ports: Vec<u32> = batch.iter().map(|(p, _)| p).collect();
        assert_eq!(ports, [1, 2, 1]);
    }

    #[test]
    fn a_batch_of_one_frame_is_that_frame() {
        let batch = FrameBatch::one(7, &[9, 8]);
        assert_eq!(batch.len(), 1);
        assert_eq!(batch.iter().collect::<Vec<_>>(), [(7, &[9u8, 8][..])]);
        assert_eq!(batch.buffer_len(), FRAME_HEADER + 2);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod doorbell_tests {
    use super::*;
    use std::sync::mpsc::Receiver;

    fn sender() -> (InboundSender, Receiver<Inbound>, Arc<Doorbell>) {
        let (tx, rx) = std::sync::mpsc::channel();
        let doorbell = Arc::new(Doorbell::new().unwrap());
        (InboundSender::new(tx, Some(doorbell.clone())), rx, doorbell)
    }

    #[test]
    fn a_message_to_a_parked_packet_thread_rings_the_doorbell() {
        let (tx, rx, doorbell) = sender();
        doorbell.park();
        tx.send(Inbound::Stop).unwrap();
        assert!(doorbell.unpark(), "woken");
        assert!(matches!(rx.try_recv(), Ok(Inbound::Stop)));
    }

    #[test]
    fn a_message_to_a_running_packet_thread_does_not() {
        let (tx, rx, doorbell) = sender();
        tx.send(Inbound::Stop).unwrap();
        doorbell.park();
        assert!(!doorbell.unpark(), "no system call when it is awake");
        assert!(matches!(rx.try_recv(), Ok(Inbound::Stop)));
    }
}
