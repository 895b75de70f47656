//! Switch ports carried over UDP: each port is a UDP socket, each datagram
//! one whole Ethernet frame. Hosts reach the switch without root, raw
//! sockets or interfaces — on one machine over loopback, or across machines
//! over any IP network (a host on another machine is one datagram tunnel
//! away from its port).
//!
//! A port sends to its *peer*: the address given when the port was made
//! (`NUM@LOCAL=PEER` on the command line), or else the host that announced
//! itself first. A host announces itself with an empty datagram (a
//! *hello*, [`HELLO`]) before it has a frame to send, so a parameter server
//! that only listens still gets the frames for its port, and again
//! whenever it has heard nothing for a while, so a switch that restarted
//! (and so forgot every peer) learns it back. Hellos count as received but
//! never reach the pipeline. Frames for a port with no peer yet count as
//! transmit errors.
//!
//! A learned peer is *pinned*: datagrams from any other address are
//! dropped and counted (`strangers`), so nobody on the network takes a
//! port over by writing to it. The pin ends when its host says goodbye
//! ([`BYE`], sent when a host closes its link) or has been silent for
//! [`PEER_LEASE`] (a host that died); then the next hello takes the port.
//! A host that runs re-announces itself far more often than the lease, so
//! its port cannot be taken while it runs.
//!
//! On Linux the packet thread reads the UDP ports itself: it waits in one
//! `poll` on every socket (and on interface rings, and its doorbell), and
//! runs each datagram through the program straight from the receive
//! buffer. Handing frames from a reader thread to the packet thread cost a
//! copy and two thread switches per burst, which on a loaded machine (a
//! whole job on one laptop) were a fifth of the switch's CPU time.
//! Elsewhere one reader thread serves every UDP port (`spawn_reader`): it
//! waits on all the sockets at once (mio), drains each ready socket and
//! hands the frames to the packet thread in batches, so a burst costs one
//! wake-up, not one per datagram. Socket buffers are enlarged (4 MiB
//! asked) so a window of frames fits.
//!
//! Frames move in batches both ways, one system call for many: a port
//! reads up to [`RECV_MESSAGES`] datagrams per `recvmmsg`, each of which
//! may hold many frames the kernel kept together (UDP GRO), and sends the
//! frames of one length that a batch has for it as one segmented datagram
//! (UDP GSO), which the kernel cuts into one datagram per frame: the wire
//! carries exactly what per-frame sends would, and a host that reads one
//! datagram at a time sees no difference. On loopback a window of frames
//! then crosses the kernel's UDP stack once. Every datagram of a batch
//! passes the port's pin (below) on its own.

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::ports::PortCounters;

/// What a host sends to announce its address to its port: an empty
/// datagram.
pub const HELLO: &[u8] = &[];

/// What a host sends when it closes its link: one zero byte (no Ethernet
/// frame is one byte long). Frees the port at once for the next host.
pub const BYE: &[u8] = &[0];

/// How long a learned peer keeps its port without a datagram; after
/// that, a hello from another address takes the port. Hosts re-announce
/// themselves every few hundred milliseconds of silence (esa-host's
/// `UdpFrameLink`), so only a host that is gone loses its port.
pub const PEER_LEASE: Duration = Duration::from_secs(5);

/// Largest datagram read: a jumbo frame, or the frames the kernel kept
/// together in one (GRO stops at 64 KiB).
pub const MAX_DATAGRAM: usize = 65536;

/// Datagrams read per receive call.
pub const RECV_MESSAGES: usize = 8;

/// Largest segmented send: what one IPv4 UDP datagram can carry.
const MAX_SEGMENTED_BYTES: usize = 65507;

/// Socket buffer size asked for, each direction.
const SOCKET_BUFFER_BYTES: usize = 4 << 20;

/// One switch port on a (non-blocking) UDP socket.
#[derive(Debug)]
pub struct UdpPort {
    socket: mio::net::UdpSocket,
    /// GSO, GRO and `recvmmsg` on `socket`.
    offload: quinn_udp::UdpSocketState,
    /// Fixed at creation, or learned (and pinned) from a host's first
    /// datagram.
    peer: Mutex<Peer>,
    /// Whether the peer was given (then it is never relearned).
    fixed: bool,
    /// [`PEER_LEASE`], shorter in tests.
    lease: Duration,
}

/// Who a port sends to, and when it last heard from them.
#[derive(Debug, Clone, Copy)]
struct Peer {
    addr: Option<SocketAddr>,
    heard: Instant,
}

/// What one receive produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    /// A frame of this many bytes.
    Frame(usize),
    /// A hello: the peer is learned or refreshed, nothing enters the
    /// pipeline.
    Hello,
    /// The peer said goodbye: the port has no peer until the next hello.
    Bye,
    /// A datagram from someone other than the port's peer (dropped).
    Stranger,
}

impl UdpPort {
    /// Binds `local`; frames go to `peer` if given, else to whoever sent
    /// last.
    pub fn bind(local: SocketAddr, peer: Option<SocketAddr>) -> io::Result<UdpPort> {
        let domain = socket2::Domain::for_address(local);
        let socket = socket2::Socket::new(domain, socket2::Type::DGRAM, None)?;
        // Best effort: the kernel caps them at net.core.{r,w}mem_max.
        let _ = socket.set_recv_buffer_size(SOCKET_BUFFER_BYTES);
        let _ = socket.set_send_buffer_size(SOCKET_BUFFER_BYTES);
        socket.bind(&local.into())?;
        socket.set_nonblocking(true)?;
        let socket = mio::net::UdpSocket::from_std(socket.into());
        // GRO on where the kernel has it.
        let offload = quinn_udp::UdpSocketState::new((&socket).into())?;
        Ok(UdpPort {
            socket,
            offload,
            peer: Mutex::new(Peer {
                addr: peer,
                heard: Instant::now(),
            }),
            fixed: peer.is_some(),
            lease: PEER_LEASE,
        })
    }

    /// The socket's descriptor, to wait on.
    #[cfg(unix)]
    pub(crate) fn raw_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.socket)
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Where frames currently go.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer.lock().unwrap_or_else(|e| e.into_inner()).addr
    }

    /// Receives what is waiting, up to [`RECV_MESSAGES`] datagrams, without
    /// waiting, and hands each to `each` with what it is (the bytes of a
    /// [`Received::Frame`]; empty otherwise). Returns how many datagrams
    /// came; 0 when nothing was waiting.
    pub fn recv_batch(
        &self,
        buffers: &mut RecvBuffers,
        mut each: impl FnMut(Received, &[u8]),
    ) -> io::Result<usize> {
        let mut slices: Vec<io::IoSliceMut<'_>> = buffers
            .data
            .chunks_mut(MAX_DATAGRAM)
            .map(io::IoSliceMut::new)
            .collect();
        let messages =
            match self
                .offload
                .recv((&self.socket).into(), &mut slices, &mut buffers.meta)
            {
                Ok(n) => n,
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock) => return Ok(0),
                // A previous send to a closed peer port (ICMP port unreachable
                // on Linux) surfaces on a later receive: not this datagram's
                // problem.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionRefused | io::ErrorKind::Interrupted
                    ) =>
                {
                    each(Received::Stranger, &[]);
                    return Ok(1);
                }
                Err(e) => return Err(e),
            };
        let mut datagrams = 0;
        let now = Instant::now();
        for (meta, buffer) in buffers.meta[..messages]
            .iter()
            .zip(buffers.data.chunks(MAX_DATAGRAM))
        {
            let buffer = &buffer[..meta.len];
            // Stride 0 (or the whole length): one datagram, maybe empty.
            let stride = if meta.stride == 0 {
                meta.len
            } else {
                meta.stride
            };
            let mut segments = buffer.chunks(stride.max(1));
            let first = segments.next().unwrap_or(&[]);
            for datagram in std::iter::once(first).chain(segments) {
                datagrams += 1;
                match self.classify(meta.addr, datagram, now) {
                    Received::Frame(n) => each(Received::Frame(n), datagram),
                    other => each(other, &[]),
                }
            }
        }
        Ok(datagrams)
    }

    /// What a datagram from `from` that came `now` is, learning,
    /// refreshing or freeing the peer on the way.
    fn classify(&self, from: SocketAddr, datagram: &[u8], now: Instant) -> Received {
        let mut peer = self.peer.lock().unwrap_or_else(|e| e.into_inner());
        if peer.addr == Some(from) {
            peer.heard = now;
            return match datagram {
                HELLO => Received::Hello,
                BYE => {
                    if !self.fixed {
                        peer.addr = None;
                    }
                    Received::Bye
                }
                _ => Received::Frame(datagram.len()),
            };
        }
        // Someone else: they take the port only if it is free (nobody
        // announced yet, the last host said goodbye) or its host has been
        // silent past the lease, and only by saying hello or sending a
        // frame as a first word, never with a goodbye.
        let free = peer.addr.is_none();
        let lapsed = now.duration_since(peer.heard) >= self.lease && datagram == HELLO;
        if self.fixed || datagram == BYE || !(free || lapsed) {
            return Received::Stranger;
        }
        *peer = Peer {
            addr: Some(from),
            heard: now,
        };
        if datagram == HELLO {
            Received::Hello
        } else {
            Received::Frame(datagram.len())
        }
    }

    /// Sends `frames`, all of one length, to the peer as one segmented
    /// datagram (see [`UdpPort::segment_run`]); an error when there is no
    /// peer yet or the kernel took none of them.
    pub fn send_segmented(&self, frames: &[Vec<u8>], buffer: &mut Vec<u8>) -> io::Result<()> {
        let Some(peer) = self.peer() else {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "no peer yet (no datagram received, none given)",
            ));
        };
        buffer.clear();
        frames.iter().for_each(|f| buffer.extend_from_slice(f));
        let transmit = quinn_udp::Transmit {
            destination: peer,
            ecn: None,
            contents: buffer,
            segment_size: frames.first().filter(|_| frames.len() > 1).map(Vec::len),
            src_ip: None,
        };
        self.offload.try_send((&self.socket).into(), &transmit)
    }

    /// How many of `frames`, from the first, go out in one
    /// [`UdpPort::send_segmented`]: those of the first's length, as many as
    /// the kernel segments and one datagram holds; at least one (none of
    /// none).
    pub fn segment_run(&self, frames: &[Vec<u8>]) -> usize {
        segment_run(frames, self.offload.max_gso_segments())
    }
}

/// [`UdpPort::segment_run`] for a kernel that cuts a datagram into at most
/// `max_segments`.
fn segment_run(frames: &[Vec<u8>], max_segments: usize) -> usize {
    let Some(first) = frames.first() else {
        return 0;
    };
    let len = first.len();
    // An empty frame would read as a hello; it never joins a batch.
    let fit = MAX_SEGMENTED_BYTES
        .checked_div(len)
        .map_or(1, |most| max_segments.min(most).max(1));
    frames
        .iter()
        .take(fit)
        .take_while(|f| f.len() == len)
        .count()
}

/// Receive buffers of a reader: [`RECV_MESSAGES`] datagrams of
/// [`MAX_DATAGRAM`] bytes and what the kernel said of each.
#[derive(Debug)]
pub struct RecvBuffers {
    data: Vec<u8>,
    meta: [quinn_udp::RecvMeta; RECV_MESSAGES],
}

impl RecvBuffers {
    /// Buffers with no room, for a reader that has no UDP port to read.
    pub(crate) fn none() -> RecvBuffers {
        RecvBuffers {
            data: Vec::new(),
            meta: [quinn_udp::RecvMeta::default(); RECV_MESSAGES],
        }
    }
}

impl Default for RecvBuffers {
    fn default() -> RecvBuffers {
        RecvBuffers {
            data: vec![0; RECV_MESSAGES * MAX_DATAGRAM],
            meta: [quinn_udp::RecvMeta::default(); RECV_MESSAGES],
        }
    }
}

/// One UDP port as its reader (the packet thread, or a reader thread)
/// sees it.
#[derive(Debug)]
pub(crate) struct ReaderPort {
    pub(crate) port: u32,
    pub(crate) socket: Arc<UdpPort>,
    pub(crate) counters: Arc<PortCounters>,
}

impl ReaderPort {
    /// Counts and logs a datagram that is not a frame (a hello, a
    /// goodbye, a stranger's).
    pub(crate) fn note(&self, received: &Received) {
        match received {
            Received::Frame(_) => {}
            Received::Hello => {
                self.counters.hello();
                tracing::debug!(port = self.port, peer = ?self.socket.peer(), "hello");
            }
            Received::Bye => {
                tracing::debug!(port = self.port, "goodbye: the port is free");
            }
            Received::Stranger => {
                self.counters.stranger();
                tracing::debug!(port = self.port, "datagram from a stranger dropped");
            }
        }
    }
}

/// The UDP reader thread, where the packet thread does not read the
/// ports itself.
#[cfg(not(target_os = "linux"))]
mod reader {
    use std::io;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::JoinHandle;
    use std::time::Duration;

    use super::{ReaderPort, Received, RecvBuffers};
    use crate::inbound::{FrameBatch, InboundSender};

    /// Frames handed to the packet thread per message, at most.
    const BATCH: usize = 256;

    /// Starts the thread that reads every UDP port where the packet thread
    /// does not read them itself (not Linux): waits on all sockets,
    /// drains the ready ones, and sends their frames to the packet thread in
    /// batches of up to [`BATCH`].
    pub(crate) fn spawn_reader(
        ports: Vec<ReaderPort>,
        tx: InboundSender,
        stop: Arc<AtomicBool>,
    ) -> io::Result<JoinHandle<()>> {
        let mut poll = mio::Poll::new()?;
        for (i, p) in ports.iter().enumerate() {
            // The registry needs a `&mut` source; the socket is shared with
            // the packet thread (which only sends), so register a borrowed fd.
            let fd = std::os::fd::AsRawFd::as_raw_fd(&p.socket.socket);
            poll.registry().register(
                &mut mio::unix::SourceFd(&fd),
                mio::Token(i),
                mio::Interest::READABLE,
            )?;
        }
        std::thread::Builder::new()
            .name("esa-switch-udp".into())
            .spawn(move || {
                let mut events = mio::Events::with_capacity(ports.len().max(1));
                let mut buffers = RecvBuffers::default();
                let mut batch = FrameBatch::default();
                let mut closed = false;
                while !stop.load(Ordering::Relaxed) {
                    if let Err(e) = poll.poll(&mut events, Some(Duration::from_millis(100))) {
                        if e.kind() != io::ErrorKind::Interrupted {
                            tracing::error!("UDP ports: poll: {e}");
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        continue;
                    }
                    for event in &events {
                        let Some(p) = ports.get(event.token().0) else {
                            continue;
                        };
                        // Edge-triggered: read until the socket is empty.
                        loop {
                            let read = p.socket.recv_batch(&mut buffers, |received, frame| {
                                if let Received::Frame(_) = received {
                                    batch.push(p.port, frame);
                                    if batch.len() == BATCH
                                        && tx.send_frames(std::mem::take(&mut batch)).is_err()
                                    {
                                        closed = true;
                                    }
                                } else {
                                    p.note(&received);
                                }
                            });
                            if closed {
                                return;
                            }
                            match read {
                                Ok(0) => break,
                                Ok(_) => {}
                                Err(e) => {
                                    tracing::error!(port = p.port, "UDP receive: {e}");
                                    break;
                                }
                            }
                        }
                        // Hand each port's frames over as soon as they are
                        // read: the packet thread works while the next port
                        // is drained.
                        if !batch.is_empty() && tx.send_frames(std::mem::take(&mut batch)).is_err()
                        {
                            return;
                        }
                    }
                    if !batch.is_empty() && tx.send_frames(std::mem::take(&mut batch)).is_err() {
                        return;
                    }
                }
            })
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) use reader::spawn_reader;

/// Parses `NUM@LOCAL` or `NUM@LOCAL=PEER` (`LOCAL` and `PEER` are
/// `IP:PORT`).
pub fn parse_udp_port(s: &str) -> Result<(u32, SocketAddr, Option<SocketAddr>), String> {
    let (num, rest) = s
        .split_once('@')
        .ok_or_else(|| format!("`{s}` is not NUM@IP:PORT[=IP:PORT]"))?;
    let num: u32 = num
        .parse()
        .map_err(|_| format!("`{num}` is not a port number"))?;
    let (local, peer) = match rest.split_once('=') {
        Some((l, p)) => (l, Some(p)),
        None => (rest, None),
    };
    let local: SocketAddr = local
        .parse()
        .map_err(|_| format!("`{local}` is not IP:PORT"))?;
    let peer = peer
        .map(|p| {
            p.parse::<SocketAddr>()
                .map_err(|_| format!("`{p}` is not IP:PORT"))
        })
        .transpose()?;
    Ok((num, local, peer))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::net::UdpSocket;

    const POLL: Duration = Duration::from_millis(200);

    fn local() -> SocketAddr {
        "127.0.0.1:0".parse().unwrap()
    }

    /// Sends one frame to the port's peer.
    fn send(port: &UdpPort, frame: &[u8]) -> io::Result<()> {
        port.send_segmented(&[frame.to_vec()], &mut Vec::new())
    }

    /// Receives one datagram on a non-blocking port, waiting up to a
    /// second; a frame's bytes go to the front of `buf`.
    fn recv(port: &UdpPort, buf: &mut [u8]) -> Received {
        let end = std::time::Instant::now() + Duration::from_secs(1);
        let mut buffers = RecvBuffers::default();
        loop {
            let mut got = vec![];
            let n = port
                .recv_batch(&mut buffers, |r, frame| got.push((r, frame.to_vec())))
                .unwrap();
            assert_eq!(n, got.len());
            assert!(n <= 1, "one datagram at a time here, got {got:?}");
            if let Some((r, frame)) = got.pop() {
                buf[..frame.len()].copy_from_slice(&frame);
                return r;
            }
            assert!(std::time::Instant::now() < end, "nothing arrived");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn learns_the_peer_from_a_hello_then_sends_to_it() {
        let port = UdpPort::bind(local(), None).unwrap();
        assert!(send(&port, b"frame").is_err(), "no peer yet");
        let host = UdpSocket::bind(local()).unwrap();
        host.set_read_timeout(Some(POLL)).unwrap();
        host.send_to(HELLO, port.local_addr().unwrap()).unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(recv(&port, &mut buf), Received::Hello);
        assert_eq!(port.peer(), Some(host.local_addr().unwrap()));
        send(&port, b"frame").unwrap();
        let (n, from) = host.recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"frame");
        assert_eq!(from, port.local_addr().unwrap());
        // Another address neither sends through the port nor takes it.
        let other = UdpSocket::bind(local()).unwrap();
        for datagram in [&b"abc"[..], HELLO, BYE] {
            other.send_to(datagram, port.local_addr().unwrap()).unwrap();
            assert_eq!(recv(&port, &mut buf), Received::Stranger);
            assert_eq!(port.peer(), Some(host.local_addr().unwrap()));
        }
        // Until the host says goodbye: then the next host takes the port.
        host.send_to(BYE, port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Bye);
        assert_eq!(port.peer(), None);
        assert!(send(&port, b"frame").is_err(), "no peer after a goodbye");
        other.send_to(b"abc", port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Frame(3));
        assert_eq!(&buf[..3], b"abc");
        assert_eq!(port.peer(), Some(other.local_addr().unwrap()));
    }

    /// Frames `0..count` of `len` bytes, each filled with its number.
    fn numbered(count: usize, len: usize) -> Vec<Vec<u8>> {
        (0..count).map(|i| vec![i as u8; len]).collect()
    }

    /// Sends `frames` (of one length) from `socket` to `to` as one
    /// segmented datagram, as a host's link does.
    fn send_segmented_from(socket: &UdpSocket, to: SocketAddr, frames: &[Vec<u8>]) {
        let offload = quinn_udp::UdpSocketState::new(socket.into()).unwrap();
        let contents = frames.concat();
        let transmit = quinn_udp::Transmit {
            destination: to,
            ecn: None,
            contents: &contents,
            segment_size: Some(frames[0].len()),
            src_ip: None,
        };
        offload.try_send(socket.into(), &transmit).unwrap();
    }

    #[test]
    fn batches_cross_a_port_frame_by_frame_both_ways() {
        let port = UdpPort::bind(local(), None).unwrap();
        let host = UdpSocket::bind(local()).unwrap();
        host.set_read_timeout(Some(POLL)).unwrap();
        let to = port.local_addr().unwrap();
        let frames = numbered(50, 186);
        send_segmented_from(&host, to, &frames);
        // A stranger's batch is dropped datagram by datagram (the host
        // took the port with its first frame).
        let stranger = UdpSocket::bind(local()).unwrap();
        send_segmented_from(&stranger, to, &numbered(3, 64));
        let mut buffers = RecvBuffers::default();
        let (mut got, mut strangers) = (vec![], 0);
        let end = std::time::Instant::now() + Duration::from_secs(2);
        while (got.len() < 50 || strangers < 3) && std::time::Instant::now() < end {
            port.recv_batch(&mut buffers, |r, frame| match r {
                Received::Frame(n) => {
                    assert_eq!(n, frame.len());
                    got.push(frame.to_vec());
                }
                Received::Stranger => strangers += 1,
                other => panic!("{other:?}"),
            })
            .unwrap();
        }
        assert_eq!(got, frames);
        assert_eq!(strangers, 3);
        // Out: runs of one length, each frame its own datagram on the
        // wire, in order, to a host that reads one datagram at a time (no
        // GRO on its socket).
        let host = UdpSocket::bind(local()).unwrap();
        host.set_read_timeout(Some(POLL)).unwrap();
        let port = UdpPort::bind(local(), Some(host.local_addr().unwrap())).unwrap();
        let to = port.local_addr().unwrap();
        let mut out = numbered(70, 186);
        out.extend(numbered(2, 90));
        let mut rest = &out[..];
        let mut buffer = vec![];
        while !rest.is_empty() {
            let run = port.segment_run(rest);
            assert!(run >= 1 && rest[..run].iter().all(|f| f.len() == rest[0].len()));
            port.send_segmented(&rest[..run], &mut buffer).unwrap();
            rest = &rest[run..];
        }
        let mut buf = [0u8; 512];
        for (i, frame) in out.iter().enumerate() {
            let (n, from) = host.recv_from(&mut buf).unwrap();
            assert_eq!((&buf[..n], from), (&frame[..], to), "frame {i}");
        }
    }

    #[test]
    fn runs_are_of_one_length_within_the_limits() {
        let frames =
            |lens: &[usize]| -> Vec<Vec<u8>> { lens.iter().map(|&n| vec![0; n]).collect() };
        assert_eq!(segment_run(&[], 64), 0);
        assert_eq!(segment_run(&frames(&[186; 100]), 64), 64);
        assert_eq!(segment_run(&frames(&[186; 100]), 1), 1);
        assert_eq!(segment_run(&frames(&[186, 186, 40, 186]), 64), 2);
        // An empty frame would read as a hello: it goes alone.
        assert_eq!(segment_run(&frames(&[0, 0]), 64), 1);
        assert_eq!(segment_run(&frames(&[186, 0]), 64), 1);
        // Never more bytes than one UDP datagram holds.
        assert_eq!(segment_run(&frames(&[9000; 20]), 64), 7);
        assert_eq!(segment_run(&frames(&[65536]), 64), 1);
    }

    #[test]
    fn a_silent_peer_loses_its_port_to_a_hello_after_the_lease() {
        let mut port = UdpPort::bind(local(), None).unwrap();
        port.lease = Duration::from_millis(300);
        let (host, next) = (
            UdpSocket::bind(local()).unwrap(),
            UdpSocket::bind(local()).unwrap(),
        );
        let mut buf = [0u8; 64];
        host.send_to(HELLO, port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Hello);
        // Within the lease the port stays the host's.
        next.send_to(HELLO, port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Stranger);
        std::thread::sleep(Duration::from_millis(400));
        // Past it, a frame still does not take the port; a hello does.
        next.send_to(b"abc", port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Stranger);
        next.send_to(HELLO, port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Hello);
        assert_eq!(port.peer(), Some(next.local_addr().unwrap()));
        // And the old host is now the stranger.
        host.send_to(b"abc", port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Stranger);
    }

    #[test]
    fn a_fixed_peer_ignores_strangers() {
        let host = UdpSocket::bind(local()).unwrap();
        let stranger = UdpSocket::bind(local()).unwrap();
        let port = UdpPort::bind(local(), Some(host.local_addr().unwrap())).unwrap();
        stranger
            .send_to(b"xyz", port.local_addr().unwrap())
            .unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(recv(&port, &mut buf), Received::Stranger);
        assert_eq!(port.peer(), Some(host.local_addr().unwrap()));
        host.send_to(b"ok", port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Frame(2));
        // A given peer keeps the port even after a goodbye.
        host.send_to(BYE, port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Bye);
        assert_eq!(port.peer(), Some(host.local_addr().unwrap()));
    }

    #[test]
    fn parses_port_specs() {
        assert_eq!(
            parse_udp_port("3@127.0.0.1:9003").unwrap(),
            (3, "127.0.0.1:9003".parse().unwrap(), None)
        );
        assert_eq!(
            parse_udp_port("4@0.0.0.0:9004=10.1.2.3:7000").unwrap(),
            (
                4,
                "0.0.0.0:9004".parse().unwrap(),
                Some("10.1.2.3:7000".parse().unwrap())
            )
        );
        for bad in ["3", "x@127.0.0.1:1", "3@localhost", "3@127.0.0.1:1=nope"] {
            assert!(parse_udp_port(bad).is_err(), "{bad}");
        }
    }
}
