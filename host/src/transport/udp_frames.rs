//! A [`FrameLink`] over UDP: each datagram one whole Ethernet frame, to and
//! from a switch port carried over UDP (`esa switch -u NUM@IP:PORT`, see
//! esa-switch's `udp` module). The host's end of that tunnel: no root, no
//! interfaces, and the switch may be on another machine.
//!
//! The link says hello when it opens, again after [`REANNOUNCE`] without
//! a datagram from the port (a restarted switch has forgotten every host;
//! a parameter server that only listens would otherwise never be heard
//! again), and goodbye when it closes, so the port is free at once for the
//! next host (the port is pinned to its host until then, see esa-switch's
//! `udp` module).

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use super::switch_port::{FrameLink, LinkClosed, SwitchPortTransport};
use crate::addressing::port_host;

/// Largest frame received (a jumbo frame fits).
const MAX_FRAME: usize = 65536;

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
    port: SocketAddr,
    buf: Vec<u8>,
    /// Datagrams that were not from the port (dropped).
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
        socket.set_nonblocking(true)?;
        // A switch answers a whole window of chunks at once.
        #[cfg(target_os = "linux")]
        super::mmsg::set_buffer_sizes(&socket, super::udp::SOCKET_BUFFER_BYTES);
        let mut link = UdpFrameLink {
            socket,
            port,
            buf: vec![0; MAX_FRAME],
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

    /// Datagrams received from anyone but the switch port (dropped).
    pub fn strangers(&self) -> u64 {
        self.strangers
    }

    fn take(&mut self) -> Option<Vec<u8>> {
        loop {
            match self.socket.recv_from(&mut self.buf) {
                Ok((n, from)) if from == self.port && n > 0 => {
                    self.announced = Instant::now();
                    return Some(self.buf[..n].to_vec());
                }
                Ok(_) => self.strangers += 1,
                // Nothing waiting, or an earlier send was refused (the
                // switch is not up yet): nothing to hand out now.
                Err(_) => return None,
            }
        }
    }
}

impl FrameLink for UdpFrameLink {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        match self.socket.send_to(frame, self.port) {
            Ok(_) => Ok(()),
            // A full socket buffer or a refused port loses this frame, as a
            // wire would; the protocol resends. Only a socket that cannot
            // send at all is a closed link.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::ConnectionRefused
                        | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(())
            }
            Err(_) => Err(LinkClosed),
        }
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
