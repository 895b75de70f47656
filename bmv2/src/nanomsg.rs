//! The client end of a nanomsg PAIR socket over IPC, as BMv2's
//! `--packet-in ipc://PATH` binds it, and BMv2's packet messages on it.
//!
//! nanomsg's scalability-protocol handshake is 8 bytes each way:
//! `00 'S' 'P' 00`, the protocol (PAIR = 0x0010, big-endian) and two zero
//! bytes. Over IPC every message is then a type byte (1 = normal), a
//! big-endian 64-bit length and the body. BMv2's bodies start with three
//! native-endian (little-endian here) `i32`s: message type, port, and the
//! packet length, followed by the packet.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::Error;

const HANDSHAKE: [u8; 8] = [0, b'S', b'P', 0, 0x00, 0x10, 0, 0];
const MSG_NORMAL: u8 = 1;
/// BMv2's `MSG_TYPE_PACKET_IN`: a packet into the switch.
pub const PACKET_IN: i32 = 3;
/// BMv2's `MSG_TYPE_PACKET_OUT`: a packet the switch sent.
pub const PACKET_OUT: i32 = 4;
/// Largest body accepted from the switch (jumbo frame plus header).
const MAX_BODY: u64 = 64 * 1024;

/// A connected PAIR socket.
#[derive(Debug)]
pub struct Pair {
    stream: UnixStream,
}

impl Pair {
    /// Connects to the socket file, retrying until it exists or `timeout`
    /// passes (the switch creates it while starting).
    pub fn connect(path: &Path, timeout: Duration) -> Result<Pair, Error> {
        let start = Instant::now();
        let mut stream = loop {
            match UnixStream::connect(path) {
                Ok(s) => break s,
                Err(e) if start.elapsed() < timeout => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => {
                    return Err(Error::Io {
                        what: format!("connecting to {}", path.display()),
                        source: e,
                    });
                }
            }
        };
        stream
            .set_read_timeout(Some(timeout))
            .map_err(Error::io("setting a read timeout"))?;
        stream
            .write_all(&HANDSHAKE)
            .map_err(Error::io("sending the nanomsg handshake"))?;
        let mut peer = [0u8; 8];
        stream
            .read_exact(&mut peer)
            .map_err(Error::io("reading the nanomsg handshake"))?;
        if peer != HANDSHAKE {
            return Err(Error::Switch(format!(
                "{} is not a nanomsg PAIR socket (handshake {peer:02x?})",
                path.display()
            )));
        }
        stream
            .set_read_timeout(None)
            .map_err(Error::io("clearing the read timeout"))?;
        Ok(Pair { stream })
    }

    /// A second handle on the same socket (one thread reads, one writes).
    pub fn try_clone(&self) -> Result<Pair, Error> {
        Ok(Pair {
            stream: self
                .stream
                .try_clone()
                .map_err(Error::io("cloning the packet socket"))?,
        })
    }

    /// Sends one message.
    pub fn send(&mut self, body: &[u8]) -> Result<(), Error> {
        let mut header = [0u8; 9];
        header[0] = MSG_NORMAL;
        header[1..].copy_from_slice(&(body.len() as u64).to_be_bytes());
        self.stream
            .write_all(&header)
            .and_then(|()| self.stream.write_all(body))
            .map_err(Error::io("sending to the switch"))
    }

    /// Receives one message; `Ok(None)` when the switch closed the socket.
    pub fn recv(&mut self) -> Result<Option<Vec<u8>>, Error> {
        let mut header = [0u8; 9];
        match self.stream.read_exact(&mut header) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(Error::io("reading from the switch")(e)),
        }
        if header[0] != MSG_NORMAL {
            return Err(Error::Switch(format!(
                "unexpected nanomsg message type {}",
                header[0]
            )));
        }
        let len = u64::from_be_bytes(header[1..].try_into().expect("8 bytes"));
        if len > MAX_BODY {
            return Err(Error::Switch(format!(
                "a {len}-byte message from the switch"
            )));
        }
        let mut body = vec![0u8; len as usize];
        self.stream
            .read_exact(&mut body)
            .map_err(Error::io("reading a message body"))?;
        Ok(Some(body))
    }

    /// Shuts both directions down (wakes a reader blocked in [`Pair::recv`]).
    pub fn shutdown(&self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// The body of a PACKET_IN message for `port`.
pub fn packet_in(port: u32, frame: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(12 + frame.len());
    body.extend_from_slice(&PACKET_IN.to_le_bytes());
    body.extend_from_slice(&(port as i32).to_le_bytes());
    body.extend_from_slice(&(frame.len() as i32).to_le_bytes());
    body.extend_from_slice(frame);
    body
}

/// Splits a message from the switch into (type, port, packet).
pub fn parse_message(body: &[u8]) -> Result<(i32, u32, &[u8]), Error> {
    let word = |i: usize| -> Result<i32, Error> {
        body.get(i * 4..i * 4 + 4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("4 bytes")))
            .ok_or_else(|| Error::Switch(format!("a {}-byte message from the switch", body.len())))
    };
    let (kind, port, len) = (word(0)?, word(1)?, word(2)?);
    let data = &body[12..];
    if usize::try_from(len).ok() != Some(data.len()) {
        return Err(Error::Switch(format!(
            "message says {len} bytes, carries {}",
            data.len()
        )));
    }
    Ok((kind, port as u32, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_in_message_round_trips() {
        let body = packet_in(7, &[1, 2, 3]);
        assert_eq!(&body[..12], &[3, 0, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0]);
        let (kind, port, data) = parse_message(&body).unwrap();
        assert_eq!((kind, port, data), (PACKET_IN, 7, &[1u8, 2, 3][..]));
    }

    #[test]
    fn short_or_inconsistent_messages_are_errors() {
        assert!(parse_message(&[3, 0, 0]).is_err());
        let mut body = packet_in(1, &[9, 9]);
        body.push(0);
        assert!(parse_message(&body).is_err());
    }
}
