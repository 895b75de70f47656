//! A transport over a switch port that carries whole Ethernet frames.
//!
//! Hosts exchange ESA payloads; a switch port (an esa-switch in-memory
//! port, a tap, a raw socket) carries Ethernet / IPv4 / UDP frames
//! (`docs/protocol.md` §2). [`SwitchPortTransport`] wraps each payload in a
//! frame from this host's MAC and IPv4 address on send, and on receive
//! parses frames back into payloads whose peer is the frame's source IPv4
//! address and UDP port. Frames that are not ESA packets of the configured
//! lane count are dropped and counted.
//!
//! The port itself is anything that implements [`FrameLink`], so this crate
//! does not depend on the switch.

use super::{Datagram, Transport, TransportStats};
use crate::error::TransportError;
use esa_core::constants::{ESA_UDP_PORT, esa_payload_len};
use esa_core::wire::{EsaPacket, EsaRepr, FrameRepr, Ipv4Addr, MacAddr, ParsedFrame};
use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr, SocketAddrV4};
use std::time::Duration;

use esa_core::wire::frame::ESA_OFFSET;

/// One end of a link that carries Ethernet frames.
pub trait FrameLink: Send + std::fmt::Debug {
    /// Sends one frame; an error means the link is gone for good.
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed>;

    /// Sends frames in order, as one message where the link can (the
    /// in-memory port does: one wake-up of the switch for all of them).
    fn send_frames(&mut self, frames: Vec<Vec<u8>>) -> Result<(), LinkClosed> {
        frames.iter().try_for_each(|f| self.send_frame(f))
    }

    /// Sends the frames of `frame_len` bytes stored back to back in
    /// `frames`, in order (a shorter last piece as it is). The default
    /// hands them to [`FrameLink::send_frames`]; a link that can send
    /// straight from one buffer (UDP with segmentation offload) does.
    fn send_packed_frames(&mut self, frames: &[u8], frame_len: usize) -> Result<(), LinkClosed> {
        if frame_len == 0 {
            return Ok(());
        }
        self.send_frames(frames.chunks(frame_len).map(<[u8]>::to_vec).collect())
    }

    /// The next frame if one is waiting.
    fn try_recv_frame(&mut self) -> Option<Vec<u8>>;

    /// Hands the frames waiting to `each`, in order, without blocking;
    /// returns how many. Stops after `max`, or after the frames of one
    /// receive call where the link reads many at once (then a few more
    /// than `max` may come). The default takes them one by one with
    /// [`FrameLink::try_recv_frame`]; a link with a receive buffer of its
    /// own (UDP) lends it: no allocation or copy per frame.
    fn recv_frames(&mut self, max: usize, each: &mut dyn FnMut(&[u8])) -> usize {
        let mut n = 0;
        while n < max {
            let Some(frame) = self.try_recv_frame() else {
                break;
            };
            each(&frame);
            n += 1;
        }
        n
    }

    /// The next frame, waiting up to `timeout`.
    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>>;
}

/// The far end of a [`FrameLink`] has gone (the switch stopped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the frame link is closed")]
pub struct LinkClosed;

/// Who this host is on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostAddress {
    /// The host's MAC address (Ethernet source of what it sends).
    pub mac: MacAddr,
    /// The host's IPv4 address (IPv4 source; the local address's IP).
    pub ip: Ipv4Addr,
    /// Ethernet destination of what it sends (the switch ignores it for
    /// ESA packets; its egress rewrites the destination per port).
    pub gateway_mac: MacAddr,
}

/// Counters of frames that were not turned into datagrams.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Received frames that were not ESA packets (other EtherType, port...).
    pub not_esa: u64,
    /// Received ESA frames that did not parse (truncated, wrong lanes,
    /// bad checksum).
    pub malformed: u64,
    /// Payloads to send that were not ESA payloads of the configured lanes.
    pub bad_payloads: u64,
}

/// A [`Transport`] over a [`FrameLink`]: ESA payloads in Ethernet frames.
#[derive(Debug)]
pub struct SwitchPortTransport<L: FrameLink> {
    link: L,
    address: HostAddress,
    lanes: usize,
    /// Frames taken off the link by [`Transport::wait`], not yet handed out.
    pending: VecDeque<Vec<u8>>,
    /// The Ethernet, IPv4 and UDP headers of frames to one IPv4 address:
    /// the same for every ESA payload of our lanes.
    headers: Option<(Ipv4Addr, Vec<u8>)>,
    /// Frames back to back, reused by [`Transport::send_packed`].
    packed: Vec<u8>,
    stats: TransportStats,
    frames: FrameStats,
}

impl<L: FrameLink> SwitchPortTransport<L> {
    /// A transport for the host at `address` on `link`, for packets of
    /// `lanes` lanes (what the switch program was built with).
    pub fn new(link: L, address: HostAddress, lanes: usize) -> SwitchPortTransport<L> {
        SwitchPortTransport {
            link,
            address,
            lanes,
            pending: VecDeque::new(),
            headers: None,
            packed: Vec::new(),
            stats: TransportStats::default(),
            frames: FrameStats::default(),
        }
    }

    /// Frames dropped on the way in or out.
    pub fn frame_stats(&self) -> FrameStats {
        self.frames
    }

    /// The link.
    pub fn link(&self) -> &L {
        &self.link
    }

    /// Appends the frame that carries `payload` to `peer` to `out`; false
    /// (nothing appended) when the payload is not an ESA payload of our
    /// lanes or the peer is not IPv4.
    fn append_frame(&mut self, peer: SocketAddr, payload: &[u8], out: &mut Vec<u8>) -> bool {
        if payload.len() != esa_payload_len(self.lanes) {
            return false;
        }
        let Ok(packet) = EsaPacket::new_checked(payload, self.lanes) else {
            return false;
        };
        let Ok(esa) = EsaRepr::parse(&packet) else {
            return false;
        };
        let IpAddr::V4(ip) = peer.ip() else {
            return false;
        };
        let dst_ip = Ipv4Addr::from(ip);
        if self.headers.as_ref().is_none_or(|(to, _)| *to != dst_ip) {
            let frame = FrameRepr {
                src_mac: self.address.mac,
                dst_mac: self.address.gateway_mac,
                src_ip: self.address.ip,
                dst_ip,
                esa,
            }
            .emit(&[], self.lanes);
            self.headers = Some((dst_ip, frame[..ESA_OFFSET].to_vec()));
        }
        if let Some((_, headers)) = &self.headers {
            out.extend_from_slice(headers);
            // The payload's own ESA header and lanes follow as they are.
            out.extend_from_slice(payload);
        }
        true
    }

    /// The frame that carries `payload` to `peer`; `None` as for
    /// [`SwitchPortTransport::append_frame`].
    fn frame_for(&mut self, peer: SocketAddr, payload: &[u8]) -> Option<Vec<u8>> {
        let mut frame = Vec::with_capacity(ESA_OFFSET + payload.len());
        self.append_frame(peer, payload, &mut frame)
            .then_some(frame)
    }

    /// Turns a received frame into a datagram, or counts why not.
    fn unwrap_frame(&mut self, frame: &[u8]) -> Option<Datagram> {
        let (peer, payload) = esa_payload(frame, self.lanes, &mut self.frames)?;
        Some(Datagram {
            peer,
            payload: payload.to_vec(),
        })
    }
}

/// The source and the ESA payload of a received frame of `lanes` lanes,
/// or `None` with the reason counted in `stats`.
fn esa_payload<'f>(
    frame: &'f [u8],
    lanes: usize,
    stats: &mut FrameStats,
) -> Option<(SocketAddr, &'f [u8])> {
    match ParsedFrame::parse(frame, lanes) {
        Ok(parsed) => {
            let ip = std::net::Ipv4Addr::from(parsed.ip.src);
            let peer = SocketAddr::V4(SocketAddrV4::new(ip, parsed.udp.src_port));
            let end = ESA_OFFSET + esa_payload_len(lanes);
            Some((peer, frame.get(ESA_OFFSET..end)?))
        }
        Err(e) if e.is_not_esa() => {
            stats.not_esa += 1;
            None
        }
        Err(_) => {
            stats.malformed += 1;
            None
        }
    }
}

impl<L: FrameLink> Transport for SwitchPortTransport<L> {
    fn local_addr(&self) -> SocketAddr {
        SocketAddr::V4(SocketAddrV4::new(self.address.ip.into(), ESA_UDP_PORT))
    }

    fn send_batch(&mut self, batch: &mut Vec<Datagram>) -> Result<(), TransportError> {
        let mut frames = Vec::with_capacity(batch.len());
        for d in batch.drain(..) {
            match self.frame_for(d.peer, &d.payload) {
                Some(frame) => frames.push(frame),
                None => {
                    self.frames.bad_payloads += 1;
                    self.stats.send_dropped += 1;
                }
            }
        }
        let n = frames.len() as u64;
        if n > 0 && self.link.send_frames(frames).is_err() {
            return Err(TransportError::LinkClosed(self.local_addr()));
        }
        self.stats.sent += n;
        Ok(())
    }

    /// The frames go to the link back to back in one buffer, reused: no
    /// allocation per payload.
    fn send_packed(
        &mut self,
        peer: SocketAddr,
        payloads: &[u8],
        payload_len: usize,
    ) -> Result<(), TransportError> {
        if payload_len == 0 {
            return Ok(());
        }
        let mut frames = std::mem::take(&mut self.packed);
        frames.clear();
        let mut count = 0;
        for payload in payloads.chunks(payload_len) {
            if self.append_frame(peer, payload, &mut frames) {
                count += 1;
            } else {
                self.frames.bad_payloads += 1;
                self.stats.send_dropped += 1;
            }
        }
        let sent = match frames.len().checked_div(count) {
            Some(frame_len) => self.link.send_packed_frames(&frames, frame_len),
            None => Ok(()),
        };
        self.packed = frames;
        if sent.is_err() {
            return Err(TransportError::LinkClosed(self.local_addr()));
        }
        self.stats.sent += count as u64;
        Ok(())
    }

    fn recv_batch(&mut self, out: &mut Vec<Datagram>, max: usize) -> Result<usize, TransportError> {
        let mut n = 0;
        while n < max {
            let frame = match self.pending.pop_front() {
                Some(f) => f,
                None => match self.link.try_recv_frame() {
                    Some(f) => f,
                    None => break,
                },
            };
            if let Some(d) = self.unwrap_frame(&frame) {
                out.push(d);
                n += 1;
            }
        }
        self.stats.received += n as u64;
        Ok(n)
    }

    /// Payloads straight from the link's receive buffer: no allocation or
    /// copy per frame.
    fn recv_each(
        &mut self,
        max: usize,
        each: &mut dyn FnMut(SocketAddr, &[u8]),
    ) -> Result<usize, TransportError> {
        let mut n = 0;
        while n < max {
            let Some(frame) = self.pending.pop_front() else {
                break;
            };
            if let Some((peer, payload)) = esa_payload(&frame, self.lanes, &mut self.frames) {
                each(peer, payload);
                n += 1;
            }
        }
        if n < max {
            let (lanes, stats) = (self.lanes, &mut self.frames);
            self.link.recv_frames(max - n, &mut |frame| {
                if let Some((peer, payload)) = esa_payload(frame, lanes, stats) {
                    each(peer, payload);
                    n += 1;
                }
            });
        }
        self.stats.received += n as u64;
        Ok(n)
    }

    fn wait(&mut self, timeout: Duration) -> Result<bool, TransportError> {
        if !self.pending.is_empty() {
            return Ok(true);
        }
        match self.link.recv_frame_timeout(timeout) {
            Some(frame) => {
                self.pending.push_back(frame);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn stats(&self) -> TransportStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use esa_core::wire::{Flags, Key, PacketType};
    use std::sync::mpsc;

    /// Two ends of an in-memory frame link.
    #[derive(Debug)]
    struct Pipe {
        tx: mpsc::Sender<Vec<u8>>,
        rx: mpsc::Receiver<Vec<u8>>,
    }

    fn pipe() -> (Pipe, Pipe) {
        let (a_tx, b_rx) = mpsc::channel();
        let (b_tx, a_rx) = mpsc::channel();
        (Pipe { tx: a_tx, rx: a_rx }, Pipe { tx: b_tx, rx: b_rx })
    }

    impl FrameLink for Pipe {
        fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
            self.tx.send(frame.to_vec()).map_err(|_| LinkClosed)
        }
        fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
            self.rx.try_recv().ok()
        }
        fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
            self.rx.recv_timeout(timeout).ok()
        }
    }

    fn host(n: u8) -> HostAddress {
        HostAddress {
            mac: MacAddr([2, 0, 0, 0, 0, n]),
            ip: Ipv4Addr([10, 0, 0, n]),
            gateway_mac: MacAddr([2, 0, 0, 0, 0, 0xfe]),
        }
    }

    fn payload(lanes: usize) -> Vec<u8> {
        let repr = EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::NONE,
            slot: 3,
            key: Key::new(1, 7, 42),
            bitmap: 1,
            fan_in: 2,
            count: 1,
            exponent: 16,
            worker: 0,
        };
        let frame = FrameRepr {
            src_mac: MacAddr([0; 6]),
            dst_mac: MacAddr([0; 6]),
            src_ip: Ipv4Addr([0; 4]),
            dst_ip: Ipv4Addr([0; 4]),
            esa: repr,
        }
        .emit(&(1..=lanes as i32).collect::<Vec<_>>(), lanes);
        frame[ESA_OFFSET..].to_vec()
    }

    #[test]
    fn payloads_cross_the_link_in_frames() {
        let (a, b) = pipe();
        let mut a = SwitchPortTransport::new(a, host(1), 4);
        let mut b = SwitchPortTransport::new(b, host(2), 4);
        let p = payload(4);
        let mut batch = vec![Datagram {
            peer: b.local_addr(),
            payload: p.clone(),
        }];
        a.send_batch(&mut batch).unwrap();
        assert!(b.wait(Duration::from_secs(1)).unwrap());
        let mut out = vec![];
        assert_eq!(b.recv_batch(&mut out, 8).unwrap(), 1);
        assert_eq!(out[0].payload, p);
        assert_eq!(out[0].peer, a.local_addr());
        assert_eq!(a.stats().sent, 1);
        assert_eq!(b.stats().received, 1);
    }

    #[test]
    fn bad_payloads_and_foreign_frames_are_counted_not_fatal() {
        let (a, mut b_link) = pipe();
        let mut a = SwitchPortTransport::new(a, host(1), 4);
        let mut batch = vec![Datagram {
            peer: "10.0.0.2:1".parse().unwrap(),
            payload: vec![1, 2, 3],
        }];
        a.send_batch(&mut batch).unwrap();
        assert_eq!(a.stats().send_dropped, 1);
        assert_eq!(a.frame_stats().bad_payloads, 1);
        b_link.send_frame(&[0u8; 60]).unwrap();
        b_link.send_frame(&[0u8; 5]).unwrap();
        let mut out = vec![];
        assert_eq!(a.recv_batch(&mut out, 8).unwrap(), 0);
        let f = a.frame_stats();
        assert_eq!(f.not_esa + f.malformed, 2);
    }

    #[test]
    fn packed_payloads_leave_as_the_frames_a_batch_would() {
        let (a, mut b_link) = pipe();
        let mut a = SwitchPortTransport::new(a, host(1), 4);
        let peer: SocketAddr = "10.0.0.2:1".parse().unwrap();
        let good = payload(4);
        let mut bad = good.clone();
        bad[0] = 0xff;
        let packed = [good.clone(), bad, good.clone()].concat();
        a.send_packed(peer, &packed, good.len()).unwrap();
        assert_eq!((a.stats().sent, a.stats().send_dropped), (2, 1));
        assert_eq!(a.frame_stats().bad_payloads, 1);
        let mut batch = vec![Datagram {
            peer,
            payload: good.clone(),
        }];
        a.send_batch(&mut batch).unwrap();
        let frames: Vec<Vec<u8>> = std::iter::from_fn(|| b_link.try_recv_frame()).collect();
        assert_eq!(frames.len(), 3);
        assert!(
            frames.iter().all(|f| *f == frames[2]),
            "same frames either way"
        );
        let parsed = ParsedFrame::parse(&frames[0], 4).unwrap();
        assert_eq!(
            (parsed.ip.src, parsed.ip.dst),
            (host(1).ip, Ipv4Addr([10, 0, 0, 2]))
        );
        assert_eq!(&frames[0][ESA_OFFSET..], &good[..]);
    }

    #[test]
    fn payloads_lent_in_place_are_those_a_batch_copies() {
        let (a, mut b_link) = pipe();
        let mut a = SwitchPortTransport::new(a, host(1), 4);
        let p = payload(4);
        let mut other = p.clone();
        other[4] ^= 0x55; // another key
        let to = a.local_addr();
        let frame = |payload: &[u8]| {
            let mut b = SwitchPortTransport::new(pipe().0, host(2), 4);
            let mut out = Vec::new();
            assert!(b.append_frame(to, payload, &mut out));
            out
        };
        // One frame taken by `wait` (pending), then two good ones around a
        // foreign one.
        b_link.send_frame(&frame(&p)).unwrap();
        assert!(a.wait(Duration::from_secs(1)).unwrap());
        b_link.send_frame(&frame(&other)).unwrap();
        b_link.send_frame(&[0u8; 60]).unwrap();
        b_link.send_frame(&frame(&p)).unwrap();
        let mut got = Vec::new();
        let n = a
            .recv_each(8, &mut |peer, payload| got.push((peer, payload.to_vec())))
            .unwrap();
        assert_eq!(n, 3);
        let from = SocketAddr::V4(SocketAddrV4::new(host(2).ip.into(), ESA_UDP_PORT));
        assert_eq!(got, [(from, p.clone()), (from, other), (from, p)]);
        assert_eq!(a.stats().received, 3);
        let f = a.frame_stats();
        assert_eq!(f.not_esa + f.malformed, 1);
        assert_eq!(a.recv_each(8, &mut |_, _| {}).unwrap(), 0);
    }

    #[test]
    fn a_closed_link_is_an_error() {
        let (a, b) = pipe();
        drop(b);
        let mut a = SwitchPortTransport::new(a, host(1), 4);
        let mut batch = vec![Datagram {
            peer: "10.0.0.2:1".parse().unwrap(),
            payload: payload(4),
        }];
        assert!(a.send_batch(&mut batch).is_err());
    }
}
