//! The few Linux system calls std does not wrap: `recvmmsg`, `sendmmsg`,
//! `ppoll` and the socket buffer sizes. Everything unsafe in the crate is
//! here; each block says why it is sound.
#![allow(unsafe_code)]

use super::{Datagram, MAX_DATAGRAM};
use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6, UdpSocket};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::time::Duration;

/// Datagrams per `recvmmsg` / `sendmmsg` call.
pub(crate) const BATCH: usize = 64;

/// Receive buffers reused across calls.
#[derive(Debug)]
pub(crate) struct RecvBuffers {
    data: Vec<u8>,
}

impl RecvBuffers {
    pub(crate) fn new() -> RecvBuffers {
        RecvBuffers {
            data: vec![0; BATCH * MAX_DATAGRAM],
        }
    }
}

fn to_storage(addr: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: sockaddr_storage is plain old data; all-zero is a valid value.
    let mut storage: libc::sockaddr_storage = unsafe { zeroed() };
    let len = match addr {
        SocketAddr::V4(a) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: a.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(a.ip().octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_storage is larger than and aligned at least as
            // strictly as sockaddr_in; the write stays inside `storage`.
            unsafe { std::ptr::write((&raw mut storage).cast::<libc::sockaddr_in>(), sin) };
            size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: a.port().to_be(),
                sin6_flowinfo: a.flowinfo().to_be(),
                sin6_addr: libc::in6_addr {
                    s6_addr: a.ip().octets(),
                },
                sin6_scope_id: a.scope_id(),
            };
            // SAFETY: as above, for sockaddr_in6.
            unsafe { std::ptr::write((&raw mut storage).cast::<libc::sockaddr_in6>(), sin6) };
            size_of::<libc::sockaddr_in6>()
        }
    };
    (storage, len as libc::socklen_t)
}

fn from_storage(storage: &libc::sockaddr_storage) -> Option<SocketAddr> {
    match i32::from(storage.ss_family) {
        libc::AF_INET => {
            // SAFETY: the kernel wrote a sockaddr_in (family AF_INET); the
            // storage is large and aligned enough to read one.
            let sin =
                unsafe { &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>() };
            let ip = Ipv4Addr::from(sin.sin_addr.s_addr.to_ne_bytes());
            Some(SocketAddr::V4(SocketAddrV4::new(
                ip,
                u16::from_be(sin.sin_port),
            )))
        }
        libc::AF_INET6 => {
            // SAFETY: as above, for AF_INET6 and sockaddr_in6.
            let sin6 = unsafe {
                &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>()
            };
            Some(SocketAddr::V6(SocketAddrV6::new(
                Ipv6Addr::from(sin6.sin6_addr.s6_addr),
                u16::from_be(sin6.sin6_port),
                u32::from_be(sin6.sin6_flowinfo),
                sin6.sin6_scope_id,
            )))
        }
        _ => None,
    }
}

/// Receives up to `max` (at most [`BATCH`]) datagrams without blocking and
/// appends them to `out`. Returns how many arrived; `WouldBlock` when none.
/// Datagrams cut short (longer than [`MAX_DATAGRAM`]) are skipped.
pub(crate) fn recv_batch(
    socket: &UdpSocket,
    buffers: &mut RecvBuffers,
    out: &mut Vec<Datagram>,
    max: usize,
) -> io::Result<usize> {
    let n = max.clamp(1, BATCH);
    // SAFETY: all-zero is a valid sockaddr_storage.
    let mut names: [libc::sockaddr_storage; BATCH] = unsafe { zeroed() };
    let mut iovecs: Vec<libc::iovec> = buffers
        .data
        .chunks_exact_mut(MAX_DATAGRAM)
        .take(n)
        .map(|b| libc::iovec {
            iov_base: b.as_mut_ptr().cast(),
            iov_len: b.len(),
        })
        .collect();
    // SAFETY: all-zero is a valid mmsghdr (null pointers, zero lengths).
    let mut headers: [libc::mmsghdr; BATCH] = unsafe { zeroed() };
    for (i, h) in headers.iter_mut().take(n).enumerate() {
        h.msg_hdr.msg_name = (&raw mut names[i]).cast();
        h.msg_hdr.msg_namelen = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        h.msg_hdr.msg_iov = &raw mut iovecs[i];
        h.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: `headers[..n]` point at `names`, `iovecs` and `buffers`, which
    // all outlive the call and are not otherwise borrowed during it; the
    // kernel writes at most `iov_len` bytes per buffer and `msg_namelen`
    // bytes per name.
    let got = unsafe {
        libc::recvmmsg(
            socket.as_raw_fd(),
            headers.as_mut_ptr(),
            n as libc::c_uint,
            libc::MSG_DONTWAIT,
            std::ptr::null_mut(),
        )
    };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    let got = got as usize;
    let mut kept = 0;
    for i in 0..got {
        let h = &headers[i];
        if h.msg_hdr.msg_flags & libc::MSG_TRUNC != 0 {
            continue;
        }
        let Some(peer) = from_storage(&names[i]) else {
            continue;
        };
        let len = (h.msg_len as usize).min(MAX_DATAGRAM);
        let start = i * MAX_DATAGRAM;
        out.push(Datagram {
            peer,
            payload: buffers.data[start..start + len].to_vec(),
        });
        kept += 1;
    }
    Ok(kept)
}

/// Sends `batch` (at most [`BATCH`] datagrams) without blocking. Returns how
/// many the kernel took, in order; an error only when it took none.
pub(crate) fn send_batch(socket: &UdpSocket, batch: &[Datagram]) -> io::Result<usize> {
    let n = batch.len().min(BATCH);
    if n == 0 {
        return Ok(0);
    }
    let mut names: Vec<(libc::sockaddr_storage, libc::socklen_t)> =
        batch[..n].iter().map(|d| to_storage(&d.peer)).collect();
    let mut iovecs: Vec<libc::iovec> = batch[..n]
        .iter()
        .map(|d| libc::iovec {
            // sendmmsg only reads through iov_base.
            iov_base: d.payload.as_ptr().cast_mut().cast(),
            iov_len: d.payload.len(),
        })
        .collect();
    // SAFETY: all-zero is a valid mmsghdr.
    let mut headers: [libc::mmsghdr; BATCH] = unsafe { zeroed() };
    for (i, h) in headers.iter_mut().take(n).enumerate() {
        h.msg_hdr.msg_name = (&raw mut names[i].0).cast();
        h.msg_hdr.msg_namelen = names[i].1;
        h.msg_hdr.msg_iov = &raw mut iovecs[i];
        h.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: `headers[..n]` point at `names`, `iovecs` and the payloads of
    // `batch`, all alive and unmoved for the call; the kernel only reads them.
    let sent = unsafe {
        libc::sendmmsg(
            socket.as_raw_fd(),
            headers.as_mut_ptr(),
            n as libc::c_uint,
            libc::MSG_DONTWAIT,
        )
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(sent as usize)
}

/// Sends payloads of `payload_len` bytes stored back to back in `payloads`
/// (at most [`BATCH`] of them; a shorter last piece as it is) to `peer`
/// without blocking and without copying or allocating. Returns how many
/// the kernel took, in order; an error only when it took none.
pub(crate) fn send_packed(
    socket: &UdpSocket,
    peer: &SocketAddr,
    payloads: &[u8],
    payload_len: usize,
) -> io::Result<usize> {
    if payload_len == 0 || payloads.is_empty() {
        return Ok(0);
    }
    let (mut name, name_len) = to_storage(peer);
    let mut iovecs: [libc::iovec; BATCH] = std::array::from_fn(|_| libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    });
    let mut n = 0;
    for (iov, p) in iovecs.iter_mut().zip(payloads.chunks(payload_len)) {
        // sendmmsg only reads through iov_base.
        iov.iov_base = p.as_ptr().cast_mut().cast();
        iov.iov_len = p.len();
        n += 1;
    }
    // SAFETY: all-zero is a valid mmsghdr.
    let mut headers: [libc::mmsghdr; BATCH] = unsafe { zeroed() };
    for (h, iov) in headers.iter_mut().zip(iovecs.iter_mut()).take(n) {
        h.msg_hdr.msg_name = (&raw mut name).cast();
        h.msg_hdr.msg_namelen = name_len;
        h.msg_hdr.msg_iov = iov;
        h.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: `headers[..n]` point at `name`, `iovecs` and `payloads`, all
    // alive and unmoved for the call; the kernel only reads them (the one
    // address is shared by every message).
    let sent = unsafe {
        libc::sendmmsg(
            socket.as_raw_fd(),
            headers.as_mut_ptr(),
            n as libc::c_uint,
            libc::MSG_DONTWAIT,
        )
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(sent as usize)
}

/// Waits until the socket is readable (or writable, with `write`) or
/// `timeout` passes; returns whether it is.
pub(crate) fn wait(socket: &UdpSocket, timeout: Duration, write: bool) -> io::Result<bool> {
    wait_fd(socket.as_fd(), timeout, write)
}

/// [`wait`] for any descriptor (an `AF_XDP` socket's).
pub(crate) fn wait_fd(fd: BorrowedFd<'_>, timeout: Duration, write: bool) -> io::Result<bool> {
    let mut fds = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: if write { libc::POLLOUT } else { libc::POLLIN },
        revents: 0,
    };
    let ts = libc::timespec {
        tv_sec: timeout.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: libc::c_long::from(timeout.subsec_nanos() as i32),
    };
    // SAFETY: `fds` and `ts` are valid for the call; a null signal mask
    // keeps the thread's mask.
    let r = unsafe { libc::ppoll(&raw mut fds, 1, &raw const ts, std::ptr::null()) };
    match r {
        r if r > 0 => Ok(true),
        0 => Ok(false),
        _ => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
    }
}

/// Asks for `bytes` of kernel send and receive buffer (the kernel may
/// grant less; failures are ignored, the defaults still work).
pub(crate) fn set_buffer_sizes(socket: &UdpSocket, bytes: usize) {
    let value = bytes.min(i32::MAX as usize) as libc::c_int;
    for option in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: the option value is a c_int that lives for the call and
        // whose size is passed.
        unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                option,
                (&raw const value).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}
