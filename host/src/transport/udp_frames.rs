//! A [`FrameLink`] over UDP: each datagram one whole Ethernet frame, to and
//! from a switch port carried over UDP (`esa switch -u NUM@IP:PORT`, see
//! esa-switch's `udp` module). The host's end of that tunnel: no root, no
//! interfaces, and the switch may be on another machine.
//!
//! A batch of frames of one length leaves in one system call as one
//! segmented datagram (UDP GSO: the kernel cuts it into one datagram per
//! frame, so the wire carries exactly what per-frame sends would), and
//! frames come in up to [`RECV_MESSAGES`] datagrams per `recvmmsg`, each of
//! which may hold many frames the kernel kept together (UDP GRO). On
//! loopback a whole batch then crosses the kernel's UDP stack once, not
//! once per frame: that per-frame cost was most of the time a rank and
//! `esa local` spent (python/README.md). Where the kernel offers neither,
//! the same calls send and receive one frame per datagram.
//!
//! The link says hello when it opens, again after [`REANNOUNCE`] without
//! a datagram from the port (a restarted switch has forgotten every host;
//! a parameter server that only listens would otherwise never be heard
//! again), and goodbye when it closes, so the port is free at once for the
//! next host (the port is pinned to its host until then, see esa-switch's
//! `udp` module).

use std::collections::VecDeque;
use std::io::{self, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use quinn_udp::{RecvMeta, Transmit, UdpSocketState};

use super::switch_port::{FrameLink, LinkClosed, SwitchPortTransport};
use crate::addressing::port_host;

/// Largest datagram received: a jumbo frame, or as many frames as the
/// kernel keeps together in one (GRO stops at 64 KiB).
const MAX_DATAGRAM: usize = 65536;

/// Datagrams taken per receive call.
pub const RECV_MESSAGES: usize = 8;

/// Largest segmented send: what one IPv4 UDP datagram can carry.
const MAX_SEGMENTED_BYTES: usize = 65507;

/// Announces the host to its switch port: an empty datagram (esa-switch's
/// `udp::HELLO`).
const HELLO: &[u8] = &[];

/// Frees the host's switch port: one zero byte (esa-switch's `udp::BYE`).
const BYE: &[u8] = &[0];

/// Silence from the port after which the link says hello again: well
/// inside the switch's lease on a port (five seconds), and short next to
/// the seconds a worker waits before it gives a chunk up.
pub const REANNOUNCE: Duration = Duration::from_millis(250);

/// One host's link to one UDP-carried switch port.
#[derive(Debug)]
pub struct UdpFrameLink {
    socket: UdpSocket,
    /// GSO, GRO and `recvmmsg` on `socket`.
    offload: UdpSocketState,
    port: SocketAddr,
    /// [`RECV_MESSAGES`] receive buffers of [`MAX_DATAGRAM`] bytes.
    rx: Vec<u8>,
    rx_meta: [RecvMeta; RECV_MESSAGES],
    /// Frames received and not handed out yet.
    received: VecDeque<Vec<u8>>,
    /// Frames of one length back to back: one segmented send.
    tx: Vec<u8>,
    /// Frames or datagrams that were not from the port, or empty (dropped).
    strangers: u64,
    /// When the port was last heard from, or the link last said hello.
    announced: Instant,
    /// Hellos sent, the first included.
    hellos: u64,
}

/// Host `n` of a generated topology (`crate::addressing::port_host`) on
/// switch port `n`, whose UDP address is `port_addr`: a link from an
/// ephemeral port of the same address family, sending ESA payloads of
/// `lanes` lanes as host `n`'s frames.
pub fn attach_host(
    n: u16,
    port_addr: SocketAddr,
    lanes: usize,
) -> io::Result<SwitchPortTransport<UdpFrameLink>> {
    let local = if port_addr.is_ipv4() {
        SocketAddr::from(([0, 0, 0, 0], 0))
    } else {
        SocketAddr::from(([0u16; 8], 0))
    };
    let link = UdpFrameLink::connect(local, port_addr)?;
    Ok(SwitchPortTransport::new(link, port_host(n), lanes))
}

impl UdpFrameLink {
    /// Binds `local` (port 0 for any) and says hello to the switch port at
    /// `port`, so frames for this host reach it before it sends any.
    pub fn connect(local: SocketAddr, port: SocketAddr) -> io::Result<UdpFrameLink> {
        let socket = UdpSocket::bind(local)?;
        // Non-blocking, GRO on where the kernel has it.
        let offload = UdpSocketState::new((&socket).into())?;
        // A switch answers a whole window of chunks at once.
        #[cfg(target_os = "linux")]
        super::mmsg::set_buffer_sizes(&socket, super::udp::SOCKET_BUFFER_BYTES);
        let mut link = UdpFrameLink {
            socket,
            offload,
            port,
            rx: vec![0; RECV_MESSAGES * MAX_DATAGRAM],
            rx_meta: [RecvMeta::default(); RECV_MESSAGES],
            received: VecDeque::new(),
            tx: Vec::new(),
            strangers: 0,
            announced: Instant::now(),
            hellos: 0,
        };
        link.hello()?;
        Ok(link)
    }

    /// Says hello (again, e.g. after the switch restarted; the link does
    /// so itself after 250 ms without a datagram from the port).
    pub fn hello(&mut self) -> io::Result<()> {
        self.socket.send_to(HELLO, self.port)?;
        self.announced = Instant::now();
        self.hellos += 1;
        Ok(())
    }

    /// Hellos sent so far (the first included).
    pub fn hellos(&self) -> u64 {
        self.hellos
    }

    /// Says hello if the port has been silent for [`REANNOUNCE`] since it
    /// was last heard or greeted. A failed hello is tried at the next
    /// wait, as a lost one would be.
    fn reannounce_if_silent(&mut self) {
        if self.announced.elapsed() >= REANNOUNCE {
            let _ = self.hello();
        }
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// The switch port's address.
    pub fn port_addr(&self) -> SocketAddr {
        self.port
    }

    /// Frames received from anyone but the switch port, and empty
    /// datagrams (dropped).
    pub fn strangers(&self) -> u64 {
        self.strangers
    }

    /// The next frame: one already received, else from one `recvmmsg`.
    fn take(&mut self) -> Option<Vec<u8>> {
        if self.received.is_empty() {
            self.receive();
        }
        self.received.pop_front()
    }

    /// Reads what is waiting, up to [`RECV_MESSAGES`] datagrams, into
    /// `received`, one entry per frame.
    fn receive(&mut self) {
        let mut received = std::mem::take(&mut self.received);
        self.receive_each(&mut |frame| received.push_back(frame.to_vec()));
        self.received = received;
    }

    /// Reads what is waiting, up to [`RECV_MESSAGES`] datagrams, and hands
    /// each frame from the port to `each` straight from the receive
    /// buffer; returns how many.
    fn receive_each(&mut self, each: &mut dyn FnMut(&[u8])) -> usize {
        let mut buffers: Vec<IoSliceMut<'_>> = self
            .rx
            .chunks_mut(MAX_DATAGRAM)
            .map(IoSliceMut::new)
            .collect();
        // Nothing waiting, or an earlier send was refused (the switch is
        // not up yet): nothing to hand out now.
        let Ok(n) = self
            .offload
            .recv((&self.socket).into(), &mut buffers, &mut self.rx_meta)
        else {
            return 0;
        };
        let mut handed = 0;
        for (meta, buffer) in self.rx_meta[..n].iter().zip(self.rx.chunks(MAX_DATAGRAM)) {
            let frames = split_segments(&buffer[..meta.len], meta.stride);
            if meta.addr != self.port || meta.len == 0 {
                self.strangers += frames.count().max(1) as u64;
                continue;
            }
            self.announced = Instant::now();
            for frame in frames {
                each(frame);
                handed += 1;
            }
        }
        handed
    }

    /// Sends `frames`, all `len` bytes long, as one segmented datagram (a
    /// frame alone as itself).
    fn send_segmented(&mut self, frames: &[Vec<u8>], len: usize) -> Result<(), LinkClosed> {
        self.tx.clear();
        frames.iter().for_each(|f| self.tx.extend_from_slice(f));
        self.transmit(&self.tx, len)
    }

    /// Sends `contents`, frames of `len` bytes back to back (a shorter
    /// last one as it is), as one segmented datagram.
    fn transmit(&self, contents: &[u8], len: usize) -> Result<(), LinkClosed> {
        let transmit = Transmit {
            destination: self.port,
            ecn: None,
            contents,
            segment_size: (contents.len() > len).then_some(len),
            src_ip: None,
        };
        match self.offload.try_send((&self.socket).into(), &transmit) {
            Ok(()) => Ok(()),
            Err(e) if is_lost_not_closed(&e) => Ok(()),
            Err(_) => Err(LinkClosed),
        }
    }
}

/// The datagrams in a received buffer of `stride`-byte segments (the
/// kernel's GRO; the last may be shorter); a buffer without segments is
/// one datagram.
fn split_segments(buffer: &[u8], stride: usize) -> std::slice::Chunks<'_, u8> {
    let stride = if stride == 0 { buffer.len() } else { stride };
    buffer.chunks(stride.max(1))
}

/// How many of `frames`, from the first, have the first's length and fit
/// one segmented datagram of at most `max_segments` segments: at least one
/// (none of none).
fn segment_run(frames: &[Vec<u8>], max_segments: usize) -> usize {
    let Some(first) = frames.first() else {
        return 0;
    };
    let len = first.len();
    frames
        .iter()
        .take(segments_per_datagram(len, max_segments))
        .take_while(|f| f.len() == len)
        .count()
}

/// How many frames of `len` bytes one segmented datagram carries: at most
/// `max_segments`, and at least one.
fn segments_per_datagram(len: usize, max_segments: usize) -> usize {
    // An empty frame is a hello to the switch; it never joins a batch.
    MAX_SEGMENTED_BYTES
        .checked_div(len)
        .map_or(1, |most| max_segments.min(most).max(1))
}

/// A full socket buffer or a refused port loses the frames, as a wire
/// would; the protocol resends. Only a socket that cannot send at all is
/// a closed link.
fn is_lost_not_closed(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::ConnectionRefused | io::ErrorKind::Interrupted
    )
}

impl FrameLink for UdpFrameLink {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        match self.socket.send_to(frame, self.port) {
            Ok(_) => Ok(()),
            Err(e) if is_lost_not_closed(&e) => Ok(()),
            Err(_) => Err(LinkClosed),
        }
    }

    /// Frames of one length go out together, as many as one segmented
    /// datagram carries.
    fn send_frames(&mut self, frames: Vec<Vec<u8>>) -> Result<(), LinkClosed> {
        let max_segments = self.offload.max_gso_segments();
        let mut rest = &frames[..];
        while !rest.is_empty() {
            let run = segment_run(rest, max_segments);
            self.send_segmented(&rest[..run], rest[0].len())?;
            rest = &rest[run..];
        }
        Ok(())
    }

    /// Straight from `frames`, no copy: as many frames per segmented
    /// datagram as the kernel and the datagram's size allow.
    fn send_packed_frames(&mut self, frames: &[u8], frame_len: usize) -> Result<(), LinkClosed> {
        if frame_len == 0 {
            return Ok(());
        }
        let per_datagram = segments_per_datagram(frame_len, self.offload.max_gso_segments());
        frames
            .chunks(per_datagram * frame_len)
            .try_for_each(|datagram| self.transmit(datagram, frame_len))
    }

    /// Frames already taken off the socket first, then one `recvmmsg`'s,
    /// all of them, from the receive buffer.
    fn recv_frames(&mut self, max: usize, each: &mut dyn FnMut(&[u8])) -> usize {
        let mut n = 0;
        while n < max {
            let Some(frame) = self.received.pop_front() else {
                break;
            };
            each(&frame);
            n += 1;
        }
        if n < max {
            n += self.receive_each(each);
        }
        if n == 0 {
            self.reannounce_if_silent();
        }
        n
    }

    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        let frame = self.take();
        if frame.is_none() {
            self.reannounce_if_silent();
        }
        frame
    }

    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        let end = Instant::now() + timeout;
        loop {
            if let Some(f) = self.take() {
                return Some(f);
            }
            self.reannounce_if_silent();
            let left = end.checked_duration_since(Instant::now())?;
            // Wake in time for the next hello while the port is silent.
            let until_hello = REANNOUNCE.saturating_sub(self.announced.elapsed());
            let wait = left.min(until_hello.max(Duration::from_millis(1)));
            if left.is_zero() || (!self.readable(wait) && wait == left) {
                return self.take();
            }
        }
    }
}

impl Drop for UdpFrameLink {
    /// Frees the switch port for the next host (best effort: a lost
    /// goodbye only means the next host waits out the port's lease).
    fn drop(&mut self) {
        let _ = self.socket.send_to(BYE, self.port);
    }
}

impl UdpFrameLink {
    /// Waits up to `timeout` for a datagram (`ppoll` on Linux).
    #[cfg(target_os = "linux")]
    fn readable(&self, timeout: Duration) -> bool {
        super::mmsg::wait(&self.socket, timeout, false).unwrap_or(false)
    }

    /// Waits up to `timeout` for a datagram (a blocking peek elsewhere).
    #[cfg(not(target_os = "linux"))]
    fn readable(&self, timeout: Duration) -> bool {
        let mut b = [0u8; 1];
        let _ = self.socket.set_nonblocking(false);
        let _ = self
            .socket
            .set_read_timeout(Some(timeout.max(Duration::from_micros(1))));
        let ready = self.socket.peek_from(&mut b).is_ok();
        let _ = self.socket.set_nonblocking(true);
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_hello_then_carries_frames_both_ways() {
        let port = UdpSocket::bind("127.0.0.1:0").unwrap();
        port.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut link =
            UdpFrameLink::connect("127.0.0.1:0".parse().unwrap(), port.local_addr().unwrap())
                .unwrap();
        let mut buf = [0u8; 128];
        let (n, from) = port.recv_from(&mut buf).unwrap();
        assert_eq!((n, from), (0, link.local_addr().unwrap()), "hello first");
        link.send_frame(b"frame-1").unwrap();
        let (n, _) = port.recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"frame-1");
        assert_eq!(link.try_recv_frame(), None);
        port.send_to(b"frame-2", from).unwrap();
        assert_eq!(
            link.recv_frame_timeout(Duration::from_secs(2)).as_deref(),
            Some(&b"frame-2"[..])
        );
        // Someone else's datagram is dropped and counted.
        let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
        stranger.send_to(b"junk", from).unwrap();
        assert_eq!(link.recv_frame_timeout(Duration::from_millis(200)), None);
        assert_eq!(link.strangers(), 1);
    }

    /// Frames `0..count` of `len` bytes, each filled with its number.
    fn numbered(count: usize, len: usize) -> Vec<Vec<u8>> {
        (0..count).map(|i| vec![i as u8; len]).collect()
    }

    /// Sends `contents` from `socket` to `to` as one segmented datagram
    /// (UDP GSO) of `segment`-byte frames, as a batching sender does.
    fn send_segmented(socket: &UdpSocket, to: SocketAddr, contents: &[u8], segment: usize) {
        let offload = UdpSocketState::new(socket.into()).unwrap();
        let transmit = Transmit {
            destination: to,
            ecn: None,
            contents,
            segment_size: Some(segment),
            src_ip: None,
        };
        offload.try_send(socket.into(), &transmit).unwrap();
    }

    #[test]
    fn a_batch_leaves_as_one_datagram_per_frame_in_order() {
        let port = UdpSocket::bind("127.0.0.1:0").unwrap();
        port.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut link =
            UdpFrameLink::connect("127.0.0.1:0".parse().unwrap(), port.local_addr().unwrap())
                .unwrap();
        let mut buf = vec![0u8; MAX_DATAGRAM];
        assert_eq!(port.recv_from(&mut buf).unwrap().0, 0, "hello first");
        // More than one segmented send's worth of one length, then other
        // lengths: a plain socket (no GRO) sees each frame as it was.
        let mut frames = numbered(150, 186);
        frames.extend(numbered(3, 40));
        frames.push(vec![7; 186]);
        link.send_frames(frames.clone()).unwrap();
        for (i, frame) in frames.iter().enumerate() {
            let (n, _) = port.recv_from(&mut buf).unwrap();
            assert_eq!(&buf[..n], &frame[..], "frame {i}");
        }
        // And frames back to back in one buffer, a shorter last one too.
        let packed = numbered(100, 186).concat();
        link.send_packed_frames(&packed[..packed.len() - 6], 186)
            .unwrap();
        let mut frames = numbered(99, 186);
        frames.push(vec![99; 180]);
        for (i, frame) in frames.iter().enumerate() {
            let (n, _) = port.recv_from(&mut buf).unwrap();
            assert_eq!(&buf[..n], &frame[..], "packed frame {i}");
        }
    }

    #[test]
    fn frames_the_kernel_kept_together_come_out_one_by_one() {
        let port = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut link =
            UdpFrameLink::connect("127.0.0.1:0".parse().unwrap(), port.local_addr().unwrap())
                .unwrap();
        let to = link.local_addr().unwrap();
        // A segmented datagram (GRO keeps it whole on loopback where the
        // kernel has it) whose last frame is shorter.
        let mut contents: Vec<u8> = numbered(40, 186).concat();
        contents.extend_from_slice(&[99; 100]);
        send_segmented(&port, to, &contents, 186);
        let mut got = vec![];
        while got.len() < 41 {
            got.push(
                link.recv_frame_timeout(Duration::from_secs(2))
                    .expect("every frame arrives"),
            );
        }
        let mut expected = numbered(40, 186);
        expected.push(vec![99; 100]);
        assert_eq!(got, expected);
        assert_eq!(link.try_recv_frame(), None);
        // A stranger's batch and an empty datagram from the port are
        // counted, frame by frame, and dropped.
        let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
        send_segmented(&stranger, to, &numbered(5, 64).concat(), 64);
        port.send_to(&[], to).unwrap();
        port.send_to(b"last", to).unwrap();
        assert_eq!(
            link.recv_frame_timeout(Duration::from_secs(2)).as_deref(),
            Some(&b"last"[..])
        );
        assert_eq!(link.strangers(), 6);
    }

    #[test]
    fn frames_lent_from_the_receive_buffer_are_those_taken_one_by_one() {
        let port = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut link =
            UdpFrameLink::connect("127.0.0.1:0".parse().unwrap(), port.local_addr().unwrap())
                .unwrap();
        let to = link.local_addr().unwrap();
        let send = |contents: &[u8]| send_segmented(&port, to, contents, 186);
        send(&numbered(30, 186).concat());
        // One frame taken by a wait first: it is handed out before the rest.
        let first = link.recv_frame_timeout(Duration::from_secs(2)).unwrap();
        send(&numbered(20, 186).concat());
        let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
        stranger.send_to(b"junk", to).unwrap();
        let mut got = vec![first];
        let end = Instant::now() + Duration::from_secs(5);
        while got.len() < 50 && Instant::now() < end {
            if link.recv_frames(usize::MAX, &mut |f| got.push(f.to_vec())) == 0 {
                link.readable(Duration::from_millis(100));
            }
        }
        let mut expected = numbered(30, 186);
        expected.extend(numbered(20, 186));
        assert_eq!(got, expected);
        // The stranger's datagram (sent last) is counted, never handed out.
        while link.strangers() == 0 && Instant::now() < end {
            assert_eq!(
                link.recv_frames(8, &mut |_| panic!("a stranger's frame")),
                0
            );
            link.readable(Duration::from_millis(100));
        }
        assert_eq!(link.strangers(), 1);
    }

    #[test]
    fn batches_are_runs_of_one_length_within_the_limits() {
        let frames =
            |lens: &[usize]| -> Vec<Vec<u8>> { lens.iter().map(|&n| vec![0; n]).collect() };
        assert_eq!(segment_run(&[], 64), 0);
        assert_eq!(segment_run(&frames(&[186; 100]), 64), 64);
        assert_eq!(segment_run(&frames(&[186; 100]), 1), 1);
        assert_eq!(segment_run(&frames(&[186, 186, 40, 186]), 64), 2);
        // An empty frame (a hello) goes alone, and stops a run.
        assert_eq!(segment_run(&frames(&[0, 0, 0]), 64), 1);
        assert_eq!(segment_run(&frames(&[186, 0]), 64), 1);
        // Never more bytes than one UDP datagram holds.
        assert_eq!(segment_run(&frames(&[9000; 20]), 64), 7);
        assert_eq!(segment_run(&frames(&[65536]), 64), 1);
        assert_eq!(
            split_segments(&[1, 2, 3, 4, 5], 2).collect::<Vec<_>>(),
            [&[1, 2][..], &[3, 4], &[5]]
        );
        assert_eq!(split_segments(&[1, 2, 3], 0).count(), 1);
        assert_eq!(split_segments(&[], 0).count(), 0);
    }

    #[test]
    fn says_hello_again_while_the_port_is_silent_and_goodbye_when_dropped() {
        let port = UdpSocket::bind("127.0.0.1:0").unwrap();
        port.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut link =
            UdpFrameLink::connect("127.0.0.1:0".parse().unwrap(), port.local_addr().unwrap())
                .unwrap();
        let mut buf = [0u8; 128];
        assert_eq!(port.recv_from(&mut buf).unwrap().0, 0, "hello first");
        // Waiting through more than two re-announce periods on a silent
        // port sends at least two more hellos (a restarted switch hears
        // the host again), and nothing else.
        assert_eq!(
            link.recv_frame_timeout(REANNOUNCE * 2 + REANNOUNCE / 2),
            None
        );
        assert!(link.hellos() >= 3, "{} hellos", link.hellos());
        for _ in 1..link.hellos() {
            assert_eq!(port.recv_from(&mut buf).unwrap().0, 0);
        }
        // A frame from the port counts as hearing it: no hello right after.
        let from = link.local_addr().unwrap();
        port.send_to(b"frame", from).unwrap();
        let before = link.hellos();
        assert!(link.recv_frame_timeout(Duration::from_secs(1)).is_some());
        assert_eq!(link.try_recv_frame(), None);
        assert_eq!(link.hellos(), before);
        drop(link);
        let (n, _) = port.recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], BYE, "goodbye last");
    }
}
