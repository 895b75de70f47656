//! Linux interfaces through `AF_PACKET` raw sockets. Everything unsafe in
//! the crate is here; each block says why it is sound.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

/// Largest frame received (jumbo frames and GSO leftovers fit).
pub const MAX_FRAME: usize = 65536;

/// A raw socket bound to one interface, in promiscuous mode.
#[derive(Debug)]
pub struct RawSocket {
    fd: OwnedFd,
    name: String,
}

fn last_error(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

impl RawSocket {
    /// Opens `name`: the interface must exist (and the process needs
    /// CAP_NET_RAW). Receives wait at most `poll` so a reader thread can
    /// notice shutdown.
    pub fn open(name: &str, poll: Duration) -> io::Result<RawSocket> {
        let cname = CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in interface name"))?;
        // SAFETY: `cname` is a valid NUL-terminated string for the call.
        let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no interface named `{name}`"),
            ));
        }
        let protocol = (libc::ETH_P_ALL as u16).to_be();
        // SAFETY: plain system call with constant arguments.
        let raw = unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                i32::from(protocol),
            )
        };
        if raw < 0 {
            return Err(last_error("socket(AF_PACKET)"));
        }
        // SAFETY: `raw` is a new descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: an all-zero sockaddr_ll is valid; the fields set below
        // are plain integers.
        let mut addr: libc::sockaddr_ll = unsafe { zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = protocol;
        addr.sll_ifindex = ifindex as i32;
        // SAFETY: `addr` lives across the call and the length is its size.
        let rc = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&raw const addr).cast::<libc::sockaddr>(),
                size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if rc < 0 {
            return Err(last_error("bind"));
        }
        // SAFETY: an all-zero packet_mreq is valid.
        let mut mreq: libc::packet_mreq = unsafe { zeroed() };
        mreq.mr_ifindex = ifindex as i32;
        mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
        set_option(&fd, libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq)?;
        // Our own transmissions are not delivered back to us (Linux 4.20+);
        // older kernels still mark them PACKET_OUTGOING, filtered in recv.
        let _ = set_option(&fd, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, &1i32);
        let timeout = libc::timeval {
            tv_sec: poll.as_secs() as libc::time_t,
            tv_usec: poll.subsec_micros() as libc::suseconds_t,
        };
        set_option(&fd, libc::SOL_SOCKET, libc::SO_RCVTIMEO, &timeout)?;
        Ok(RawSocket {
            fd,
            name: name.to_string(),
        })
    }

    /// The interface name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Receives one frame into `buf`: `Ok(Some(len))`, or `Ok(None)` when
    /// the wait timed out or the frame was one this host sent.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: an all-zero sockaddr_ll is valid.
        let mut from: libc::sockaddr_ll = unsafe { zeroed() };
        let mut len = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        // SAFETY: `buf` and `from` are valid for writes of the lengths
        // given, and live across the call.
        let n = unsafe {
            libc::recvfrom(
                self.fd.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                0,
                (&raw mut from).cast::<libc::sockaddr>(),
                &raw mut len,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock
                | io::ErrorKind::TimedOut
                | io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        if from.sll_pkttype == libc::PACKET_OUTGOING {
            return Ok(None);
        }
        Ok(Some(n as usize))
    }

    /// Sends one frame out of the interface.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: `frame` is valid for reads of its length.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

fn set_option<T>(fd: &OwnedFd, level: i32, name: i32, value: &T) -> io::Result<()> {
    // SAFETY: `value` points to a live T and the length is its size.
    let rc = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (value as *const T).cast(),
            size_of::<T>() as libc::socklen_t,
        )
    };
    if rc < 0 {
        return Err(last_error("setsockopt"));
    }
    Ok(())
}
