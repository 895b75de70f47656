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
//! One reader thread serves every UDP port (`spawn_reader`): it waits on
//! all the sockets at once (mio), drains each ready socket and hands the
//! frames to the packet thread in batches, so a burst costs one wake-up,
//! not one per datagram. Socket buffers are enlarged (4 MiB asked) so a
//! window of frames fits.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::inbound::{FrameBatch, InboundSender};
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

/// Largest datagram read (a jumbo frame fits).
pub const MAX_DATAGRAM: usize = 65536;

/// Socket buffer size asked for, each direction.
const SOCKET_BUFFER_BYTES: usize = 4 << 20;

/// Frames handed to the packet thread per message, at most.
const BATCH: usize = 256;

/// One switch port on a (non-blocking) UDP socket.
#[derive(Debug)]
pub struct UdpPort {
    socket: mio::net::UdpSocket,
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
    /// Nothing waiting.
    Nothing,
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
        Ok(UdpPort {
            socket,
            peer: Mutex::new(Peer {
                addr: peer,
                heard: Instant::now(),
            }),
            fixed: peer.is_some(),
            lease: PEER_LEASE,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Where frames currently go.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer.lock().unwrap_or_else(|e| e.into_inner()).addr
    }

    /// Receives one datagram into `buf` without waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Received> {
        let (n, from) = match self.socket.recv_from(buf) {
            Ok(x) => x,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock) => {
                return Ok(Received::Nothing);
            }
            // A previous send to a closed peer port (ICMP port unreachable
            // on Linux) surfaces on a later receive: not this datagram's
            // problem.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionRefused | io::ErrorKind::Interrupted
                ) =>
            {
                return Ok(Received::Stranger);
            }
            Err(e) => return Err(e),
        };
        let datagram = &buf[..n];
        let now = Instant::now();
        let mut peer = self.peer.lock().unwrap_or_else(|e| e.into_inner());
        if peer.addr == Some(from) {
            peer.heard = now;
            return Ok(match datagram {
                HELLO => Received::Hello,
                BYE => {
                    if !self.fixed {
                        peer.addr = None;
                    }
                    Received::Bye
                }
                _ => Received::Frame(n),
            });
        }
        // Someone else: they take the port only if it is free (nobody
        // announced yet, the last host said goodbye) or its host has been
        // silent past the lease, and only by saying hello or sending a
        // frame as a first word, never with a goodbye.
        let free = peer.addr.is_none();
        let lapsed = now.duration_since(peer.heard) >= self.lease && datagram == HELLO;
        if self.fixed || datagram == BYE || !(free || lapsed) {
            return Ok(Received::Stranger);
        }
        *peer = Peer {
            addr: Some(from),
            heard: now,
        };
        Ok(if datagram == HELLO {
            Received::Hello
        } else {
            Received::Frame(n)
        })
    }

    /// Sends one frame to the peer; an error when there is none yet.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        let Some(peer) = self.peer() else {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "no peer yet (no datagram received, none given)",
            ));
        };
        self.socket.send_to(frame, peer)?;
        Ok(())
    }
}

/// One UDP port as the reader thread sees it.
#[derive(Debug)]
pub(crate) struct ReaderPort {
    pub(crate) port: u32,
    pub(crate) socket: Arc<UdpPort>,
    pub(crate) counters: Arc<PortCounters>,
}

/// Starts the thread that reads every UDP port: waits on all sockets,
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
            let mut buf = vec![0u8; MAX_DATAGRAM];
            let mut batch = FrameBatch::default();
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
                        match p.socket.recv(&mut buf) {
                            Ok(Received::Frame(n)) => {
                                batch.push(p.port, &buf[..n]);
                                if batch.len() == BATCH
                                    && tx.send_frames(std::mem::take(&mut batch)).is_err()
                                {
                                    return;
                                }
                            }
                            Ok(Received::Hello) => {
                                p.counters.hello();
                                tracing::debug!(port = p.port, peer = ?p.socket.peer(), "hello");
                            }
                            Ok(Received::Bye) => {
                                tracing::debug!(port = p.port, "goodbye: the port is free");
                            }
                            Ok(Received::Stranger) => {
                                p.counters.stranger();
                                tracing::debug!(port = p.port, "datagram from a stranger dropped");
                            }
                            Ok(Received::Nothing) => break,
                            Err(e) => {
                                tracing::error!(port = p.port, "UDP receive: {e}");
                                break;
                            }
                        }
                    }
                    // Hand each port's frames over as soon as they are
                    // read: the packet thread works while the next port
                    // is drained.
                    if !batch.is_empty() && tx.send_frames(std::mem::take(&mut batch)).is_err() {
                        return;
                    }
                }
                if !batch.is_empty() && tx.send_frames(std::mem::take(&mut batch)).is_err() {
                    return;
                }
            }
        })
}

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

    /// Receives on a non-blocking port, waiting up to a second.
    fn recv(port: &UdpPort, buf: &mut [u8]) -> Received {
        let end = std::time::Instant::now() + Duration::from_secs(1);
        loop {
            match port.recv(buf).unwrap() {
                Received::Nothing if std::time::Instant::now() < end => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                r => return r,
            }
        }
    }

    #[test]
    fn learns_the_peer_from_a_hello_then_sends_to_it() {
        let port = UdpPort::bind(local(), None).unwrap();
        assert!(port.send(b"frame").is_err(), "no peer yet");
        let host = UdpSocket::bind(local()).unwrap();
        host.set_read_timeout(Some(POLL)).unwrap();
        host.send_to(HELLO, port.local_addr().unwrap()).unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(recv(&port, &mut buf), Received::Hello);
        assert_eq!(port.peer(), Some(host.local_addr().unwrap()));
        port.send(b"frame").unwrap();
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
        assert!(port.send(b"frame").is_err(), "no peer after a goodbye");
        other.send_to(b"abc", port.local_addr().unwrap()).unwrap();
        assert_eq!(recv(&port, &mut buf), Received::Frame(3));
        assert_eq!(&buf[..3], b"abc");
        assert_eq!(port.peer(), Some(other.local_addr().unwrap()));
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
