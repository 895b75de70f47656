//! Switch ports carried over UDP: each port is a UDP socket, each datagram
//! one whole Ethernet frame. Hosts reach the switch without root, raw
//! sockets or interfaces — on one machine over loopback, or across machines
//! over any IP network (a host on another machine is one datagram tunnel
//! away from its port).
//!
//! A port sends to its *peer*: the address given when the port was made
//! (`NUM@LOCAL=PEER` on the command line), or else the source of the last
//! datagram the port received. A host announces itself with an empty
//! datagram (a *hello*, [`HELLO`]) before it has a frame to send, so a
//! parameter server that only listens still gets the frames for its port;
//! hellos count as received but never reach the pipeline. Frames for a
//! port with no peer yet count as transmit errors.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Mutex;
use std::time::Duration;

/// What a host sends to announce its address to its port: an empty
/// datagram.
pub const HELLO: &[u8] = &[];

/// Largest datagram read (a jumbo frame fits).
pub const MAX_DATAGRAM: usize = 65536;

/// One switch port on a UDP socket.
#[derive(Debug)]
pub struct UdpPort {
    socket: UdpSocket,
    /// Fixed at creation, or learned from the last sender.
    peer: Mutex<Option<SocketAddr>>,
    /// Whether the peer was given (then it is never relearned).
    fixed: bool,
}

/// What one receive produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    /// A frame of this many bytes.
    Frame(usize),
    /// A hello: the peer is (re)learned, nothing enters the pipeline.
    Hello,
    /// The wait timed out, or the datagram came from someone other than
    /// a fixed peer (dropped).
    Nothing,
}

impl UdpPort {
    /// Binds `local`; frames go to `peer` if given, else to whoever sent
    /// last. Receives wait at most `poll`, so a reader thread notices
    /// shutdown.
    pub fn bind(
        local: SocketAddr,
        peer: Option<SocketAddr>,
        poll: Duration,
    ) -> io::Result<UdpPort> {
        let socket = UdpSocket::bind(local)?;
        socket.set_read_timeout(Some(poll))?;
        Ok(UdpPort {
            socket,
            peer: Mutex::new(peer),
            fixed: peer.is_some(),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Where frames currently go.
    pub fn peer(&self) -> Option<SocketAddr> {
        *self.peer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Receives one datagram into `buf`.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Received> {
        let (n, from) = match self.socket.recv_from(buf) {
            Ok(x) => x,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                return Ok(Received::Nothing);
            }
            // A previous send to a closed peer port (ICMP port unreachable
            // on Linux) surfaces on the next receive: not this datagram's
            // problem.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                return Ok(Received::Nothing);
            }
            Err(e) => return Err(e),
        };
        {
            let mut peer = self.peer.lock().unwrap_or_else(|e| e.into_inner());
            if self.fixed {
                if *peer != Some(from) {
                    return Ok(Received::Nothing);
                }
            } else if *peer != Some(from) {
                *peer = Some(from);
            }
        }
        if n == 0 {
            return Ok(Received::Hello);
        }
        Ok(Received::Frame(n))
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

    const POLL: Duration = Duration::from_millis(200);

    fn local() -> SocketAddr {
        "127.0.0.1:0".parse().unwrap()
    }

    #[test]
    fn learns_the_peer_from_a_hello_then_sends_to_it() {
        let port = UdpPort::bind(local(), None, POLL).unwrap();
        assert!(port.send(b"frame").is_err(), "no peer yet");
        let host = UdpSocket::bind(local()).unwrap();
        host.set_read_timeout(Some(POLL)).unwrap();
        host.send_to(HELLO, port.local_addr().unwrap()).unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(port.recv(&mut buf).unwrap(), Received::Hello);
        assert_eq!(port.peer(), Some(host.local_addr().unwrap()));
        port.send(b"frame").unwrap();
        let (n, from) = host.recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"frame");
        assert_eq!(from, port.local_addr().unwrap());
        // A frame from another address moves the peer there.
        let other = UdpSocket::bind(local()).unwrap();
        other.send_to(b"abc", port.local_addr().unwrap()).unwrap();
        assert_eq!(port.recv(&mut buf).unwrap(), Received::Frame(3));
        assert_eq!(&buf[..3], b"abc");
        assert_eq!(port.peer(), Some(other.local_addr().unwrap()));
    }

    #[test]
    fn a_fixed_peer_ignores_strangers() {
        let host = UdpSocket::bind(local()).unwrap();
        let stranger = UdpSocket::bind(local()).unwrap();
        let port = UdpPort::bind(local(), Some(host.local_addr().unwrap()), POLL).unwrap();
        stranger
            .send_to(b"xyz", port.local_addr().unwrap())
            .unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(port.recv(&mut buf).unwrap(), Received::Nothing);
        assert_eq!(port.peer(), Some(host.local_addr().unwrap()));
        host.send_to(b"ok", port.local_addr().unwrap()).unwrap();
        assert_eq!(port.recv(&mut buf).unwrap(), Received::Frame(2));
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
