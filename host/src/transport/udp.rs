//! Kernel UDP sockets. No root needed.
//!
//! On Linux a batch goes out with one `sendmmsg` and comes in with one
//! `recvmmsg` per 64 datagrams, and [`Transport::wait`] is a `ppoll`.
//! Elsewhere the same calls are loops of `send_to` / `recv_from` and the wait
//! is a short sleep.

use super::{Datagram, Transport, TransportStats};
use crate::error::TransportError;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

/// Socket buffers asked for: a few windows of 64 chunks for several peers.
pub(super) const SOCKET_BUFFER_BYTES: usize = 4 << 20;

/// How long a full send buffer may stall a batch before the rest is dropped
/// (the protocol resends what is lost).
const SEND_STALL: Duration = Duration::from_millis(20);

/// A non-blocking UDP socket.
#[derive(Debug)]
pub struct UdpTransport {
    socket: UdpSocket,
    addr: SocketAddr,
    stats: TransportStats,
    /// The last error a single datagram got (for diagnosis).
    last_send_error: Option<String>,
    #[cfg(target_os = "linux")]
    buffers: super::mmsg::RecvBuffers,
}

impl UdpTransport {
    /// Binds a socket to `addr` (port 0 picks a free one).
    pub fn bind(addr: SocketAddr) -> Result<UdpTransport, TransportError> {
        let socket =
            UdpSocket::bind(addr).map_err(|source| TransportError::Bind { addr, source })?;
        let local = socket
            .local_addr()
            .map_err(|source| TransportError::Bind { addr, source })?;
        socket
            .set_nonblocking(true)
            .map_err(|source| TransportError::Bind { addr, source })?;
        #[cfg(target_os = "linux")]
        super::mmsg::set_buffer_sizes(&socket, SOCKET_BUFFER_BYTES);
        Ok(UdpTransport {
            socket,
            addr: local,
            stats: TransportStats::default(),
            last_send_error: None,
            #[cfg(target_os = "linux")]
            buffers: super::mmsg::RecvBuffers::new(),
        })
    }

    /// The error the last undeliverable datagram got, if any.
    pub fn last_send_error(&self) -> Option<&str> {
        self.last_send_error.as_deref()
    }

    fn io_error(&self, op: &'static str, source: io::Error) -> TransportError {
        TransportError::Io {
            addr: self.addr,
            op,
            source,
        }
    }

    /// Sends up to one batch; returns how many datagrams were consumed
    /// (sent, or dropped for a per-datagram error).
    fn send_some(&mut self, batch: &[Datagram]) -> Result<usize, TransportError> {
        self.stats.syscalls += 1;
        #[cfg(target_os = "linux")]
        let outcome = super::mmsg::send_batch(&self.socket, batch);
        #[cfg(not(target_os = "linux"))]
        let outcome = self
            .socket
            .send_to(&batch[0].payload, batch[0].peer)
            .map(|_| 1);
        self.account(outcome, batch[0].peer)
    }

    /// [`UdpTransport::send_some`] for payloads of `payload_len` bytes back
    /// to back in `payloads`, all to `peer`.
    fn send_some_packed(
        &mut self,
        peer: SocketAddr,
        payloads: &[u8],
        payload_len: usize,
    ) -> Result<usize, TransportError> {
        self.stats.syscalls += 1;
        #[cfg(target_os = "linux")]
        let outcome = super::mmsg::send_packed(&self.socket, &peer, payloads, payload_len);
        #[cfg(not(target_os = "linux"))]
        let outcome = self
            .socket
            .send_to(&payloads[..payload_len.min(payloads.len())], peer)
            .map(|_| 1);
        self.account(outcome, peer)
    }

    /// Counts the outcome of one send call; returns how many datagrams it
    /// consumed.
    fn account(
        &mut self,
        outcome: io::Result<usize>,
        peer: SocketAddr,
    ) -> Result<usize, TransportError> {
        match outcome {
            Ok(n) => {
                self.stats.sent += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(0),
            // A pending ICMP error of an earlier datagram, or a destination
            // that cannot be reached: that datagram is lost, as on a network.
            Err(e) if is_per_datagram(&e) => {
                self.stats.send_dropped += 1;
                self.last_send_error = Some(format!("sending to {peer}: {e}"));
                Ok(1)
            }
            Err(e) => Err(self.io_error("send", e)),
        }
    }
}

fn is_per_datagram(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::AddrNotAvailable
            | io::ErrorKind::PermissionDenied
            | io::ErrorKind::InvalidInput
    ) || e.raw_os_error() == Some(90) // EMSGSIZE on Linux
}

impl Transport for UdpTransport {
    fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    fn send_batch(&mut self, batch: &mut Vec<Datagram>) -> Result<(), TransportError> {
        let mut done = 0;
        while done < batch.len() {
            let n = self.send_some(&batch[done..])?;
            if n > 0 {
                done += n;
                continue;
            }
            // The send buffer is full: wait for room, or give up on the rest.
            let writable = self.wait_writable(SEND_STALL)?;
            if !writable {
                self.stats.send_dropped += (batch.len() - done) as u64;
                break;
            }
        }
        batch.clear();
        Ok(())
    }

    fn send_packed(
        &mut self,
        peer: SocketAddr,
        payloads: &[u8],
        payload_len: usize,
    ) -> Result<(), TransportError> {
        if payload_len == 0 {
            return Ok(());
        }
        let count = payloads.len().div_ceil(payload_len);
        let mut done = 0;
        while done < count {
            let n = self.send_some_packed(peer, &payloads[done * payload_len..], payload_len)?;
            if n > 0 {
                done += n;
                continue;
            }
            // The send buffer is full: wait for room, or give up on the rest.
            if !self.wait_writable(SEND_STALL)? {
                self.stats.send_dropped += (count - done) as u64;
                break;
            }
        }
        Ok(())
    }

    fn recv_batch(&mut self, out: &mut Vec<Datagram>, max: usize) -> Result<usize, TransportError> {
        let mut total = 0;
        while total < max {
            self.stats.syscalls += 1;
            #[cfg(target_os = "linux")]
            let outcome =
                super::mmsg::recv_batch(&self.socket, &mut self.buffers, out, max - total);
            #[cfg(not(target_os = "linux"))]
            let outcome = {
                let mut buf = [0u8; super::MAX_DATAGRAM];
                self.socket.recv_from(&mut buf).map(|(len, peer)| {
                    out.push(Datagram {
                        peer,
                        payload: buf[..len].to_vec(),
                    });
                    1
                })
            };
            match outcome {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // An ICMP error for an earlier send surfaces here; it is not
                // about the socket.
                Err(e) if is_per_datagram(&e) => continue,
                Err(e) => return Err(self.io_error("receive", e)),
            }
        }
        self.stats.received += total as u64;
        Ok(total)
    }

    fn wait(&mut self, timeout: Duration) -> Result<bool, TransportError> {
        #[cfg(target_os = "linux")]
        {
            super::mmsg::wait(&self.socket, timeout, false).map_err(|e| self.io_error("poll", e))
        }
        #[cfg(not(target_os = "linux"))]
        {
            std::thread::sleep(timeout.min(Duration::from_micros(200)));
            Ok(true)
        }
    }

    fn stats(&self) -> TransportStats {
        self.stats
    }
}

impl UdpTransport {
    fn wait_writable(&mut self, timeout: Duration) -> Result<bool, TransportError> {
        #[cfg(target_os = "linux")]
        {
            super::mmsg::wait(&self.socket, timeout, true).map_err(|e| self.io_error("poll", e))
        }
        #[cfg(not(target_os = "linux"))]
        {
            std::thread::sleep(timeout.min(Duration::from_millis(1)));
            Ok(true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cross_loopback_with_their_peers() {
        let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let mut a = UdpTransport::bind(any).unwrap();
        let mut b = UdpTransport::bind(any).unwrap();
        let n = 300usize;
        let mut batch: Vec<Datagram> = (0..n)
            .map(|i| Datagram {
                peer: b.local_addr(),
                payload: (i as u32).to_be_bytes().repeat(10),
            })
            .collect();
        a.send_batch(&mut batch).unwrap();
        assert!(batch.is_empty());
        let mut got = vec![];
        for _ in 0..100 {
            b.recv_batch(&mut got, 1000).unwrap();
            if got.len() == n || !b.wait(Duration::from_millis(20)).unwrap() {
                break;
            }
        }
        assert_eq!(got.len(), n, "loopback lost datagrams");
        for (i, d) in got.iter().enumerate() {
            assert_eq!(d.peer, a.local_addr());
            assert_eq!(d.payload, (i as u32).to_be_bytes().repeat(10));
        }
        assert_eq!(a.stats().sent, n as u64);
        #[cfg(target_os = "linux")]
        assert!(a.stats().syscalls < n as u64, "sends were not batched");
        assert!(!b.wait(Duration::from_millis(1)).unwrap());
    }

    #[test]
    fn packed_payloads_cross_loopback_from_one_buffer() {
        let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let mut a = UdpTransport::bind(any).unwrap();
        let mut b = UdpTransport::bind(any).unwrap();
        // 150 payloads of 24 bytes and a short last one: three sendmmsg batches.
        let n = 150usize;
        let mut packed: Vec<u8> = (0..n)
            .flat_map(|i| (i as u32).to_be_bytes().repeat(6))
            .collect();
        packed.extend_from_slice(&[0xee; 5]);
        a.send_packed(b.local_addr(), &packed, 24).unwrap();
        a.send_packed(b.local_addr(), &packed, 0).unwrap();
        let mut got = vec![];
        for _ in 0..100 {
            b.recv_batch(&mut got, 1000).unwrap();
            if got.len() == n + 1 || !b.wait(Duration::from_millis(20)).unwrap() {
                break;
            }
        }
        assert_eq!(got.len(), n + 1, "loopback lost datagrams");
        for (i, d) in got[..n].iter().enumerate() {
            assert_eq!(d.peer, a.local_addr());
            assert_eq!(d.payload, (i as u32).to_be_bytes().repeat(6));
        }
        assert_eq!(got[n].payload, [0xee; 5]);
        assert_eq!(a.stats().sent, n as u64 + 1);
        #[cfg(target_os = "linux")]
        assert_eq!(a.stats().syscalls, 3, "sends were not batched");
    }

    #[test]
    fn binding_a_taken_port_names_the_address() {
        let a = UdpTransport::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let e = UdpTransport::bind(a.local_addr()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("cannot bind UDP socket to {}", a.local_addr()))
        );
    }
}
