//! Linux interfaces through `AF_PACKET` sockets. Everything unsafe in the
//! crate is here and in [`crate::xdp`]; each block says why it is sound.
//!
//! Two ways to move frames, chosen per interface when the switch starts:
//! - **Ring** (the default): the kernel writes received frames into a
//!   memory-mapped ring ([`RxRing`]); the reader wakes, walks every frame
//!   handed over (`TPACKET_V2` slots as soon as each is written, or
//!   `TPACKET_V3` blocks when full or timed out, [`RingKind`]) and hands
//!   the memory back. Frames leave in batches: through an `AF_XDP`
//!   socket where the kernel allows ([`crate::xdp::XdpSender`]), else one
//!   `sendmmsg` per batch ([`RawSocket::send_many`]) on a send-only
//!   socket ([`RawSocket::open_sender`]).
//! - **Per frame** (the fallback when a ring cannot be set up, e.g. an old
//!   kernel or a locked-memory limit): one `recvfrom` and one `send` per
//!   frame on one socket ([`RawSocket::open`]).
#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

pub use crate::ports::{RingConfig, RingKind};

/// Largest frame received (jumbo frames and GSO leftovers fit).
pub const MAX_FRAME: usize = 65536;

/// Socket buffer size asked for, each direction (as the UDP ports).
const SOCKET_BUFFER_BYTES: i32 = 4 << 20;

/// Messages per `sendmmsg` call.
const SEND_CHUNK: usize = 64;

/// A raw socket bound to one interface: in promiscuous mode receiving
/// every frame ([`RawSocket::open`]), or only sending
/// ([`RawSocket::open_sender`]).
#[derive(Debug)]
pub struct RawSocket {
    fd: OwnedFd,
    name: String,
}

fn last_error(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

fn context(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

fn interface_index(name: &str) -> io::Result<i32> {
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
    Ok(ifindex as i32)
}

/// A new `AF_PACKET` socket that receives nothing yet (protocol 0), so
/// no frame of another interface queues before [`bind`].
fn packet_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain system call with constant arguments.
    let raw = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if raw < 0 {
        return Err(last_error("socket(AF_PACKET)"));
    }
    // SAFETY: `raw` is a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// Binds `fd` to interface `ifindex`; `protocol` (host order) 0 sends
/// only, `ETH_P_ALL` receives every frame.
fn bind(fd: &OwnedFd, ifindex: i32, protocol: u16) -> io::Result<()> {
    // SAFETY: an all-zero sockaddr_ll is valid; the fields set below are
    // plain integers.
    let mut addr: libc::sockaddr_ll = unsafe { zeroed() };
    addr.sll_family = libc::AF_PACKET as u16;
    addr.sll_protocol = protocol.to_be();
    addr.sll_ifindex = ifindex;
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
    Ok(())
}

/// Promiscuous mode, and our own transmissions not delivered back to us
/// (Linux 4.20+; older kernels still mark them PACKET_OUTGOING, which the
/// receive paths filter).
fn receive_everything(fd: &OwnedFd, ifindex: i32) -> io::Result<()> {
    // SAFETY: an all-zero packet_mreq is valid.
    let mut mreq: libc::packet_mreq = unsafe { zeroed() };
    mreq.mr_ifindex = ifindex;
    mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
    set_option(fd, libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq)?;
    let _ = set_option(fd, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, &1i32);
    Ok(())
}

/// Asks for 4 MiB socket buffers: beyond `net.core.{r,w}mem_max` when
/// root (the `FORCE` options), else as much as the limit allows.
fn enlarge_buffers(fd: &OwnedFd) {
    enlarge_buffer(fd, libc::SO_RCVBUFFORCE, libc::SO_RCVBUF);
    enlarge_send_buffer(fd);
}

/// Asks for a 4 MiB send buffer, as [`enlarge_buffers`] does (the kernel
/// charges each frame it has built and not yet freed to it).
pub(crate) fn enlarge_send_buffer(fd: &impl AsRawFd) {
    enlarge_buffer(fd, libc::SO_SNDBUFFORCE, libc::SO_SNDBUF);
}

fn enlarge_buffer(fd: &impl AsRawFd, force: i32, plain: i32) {
    if set_option(fd, libc::SOL_SOCKET, force, &SOCKET_BUFFER_BYTES).is_err() {
        let _ = set_option(fd, libc::SOL_SOCKET, plain, &SOCKET_BUFFER_BYTES);
    }
}

impl RawSocket {
    /// Opens `name` to receive and send one frame per call: the interface
    /// must exist (and the process needs CAP_NET_RAW). Receives wait at
    /// most `poll` so a reader thread can notice shutdown.
    pub fn open(name: &str, poll: Duration) -> io::Result<RawSocket> {
        let ifindex = interface_index(name)?;
        let fd = packet_socket()?;
        enlarge_buffers(&fd);
        // Before binding, so none of our own transmissions is queued.
        receive_everything(&fd, ifindex)?;
        bind(&fd, ifindex, libc::ETH_P_ALL as u16)?;
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

    /// Opens `name` to send only: bound with protocol 0, it is handed no
    /// received frames (an [`RxRing`] receives them).
    pub fn open_sender(name: &str) -> io::Result<RawSocket> {
        let ifindex = interface_index(name)?;
        let fd = packet_socket()?;
        enlarge_buffers(&fd);
        bind(&fd, ifindex, 0)?;
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

    /// Sends `frames` in order, 64 per `sendmmsg` call, and
    /// reports each frame's outcome to `sent(index, result)` in order. A
    /// frame the kernel refuses is reported and skipped; the rest still go.
    pub fn send_many(&self, frames: &[&[u8]], mut sent: impl FnMut(usize, io::Result<()>)) {
        // SAFETY: all-zero iovec and mmsghdr are valid (null pointers, zero
        // lengths); they are filled in below before use.
        let mut iovs: [libc::iovec; SEND_CHUNK] = unsafe { zeroed() };
        // SAFETY: as above.
        let mut msgs: [libc::mmsghdr; SEND_CHUNK] = unsafe { zeroed() };
        for (chunk_index, chunk) in frames.chunks(SEND_CHUNK).enumerate() {
            let base = chunk_index * SEND_CHUNK;
            for (k, frame) in chunk.iter().enumerate() {
                // The kernel only reads through iov_base.
                iovs[k].iov_base = frame.as_ptr().cast_mut().cast();
                iovs[k].iov_len = frame.len();
                msgs[k].msg_hdr.msg_iov = &raw mut iovs[k];
                msgs[k].msg_hdr.msg_iovlen = 1;
            }
            let mut done = 0;
            while done < chunk.len() {
                // SAFETY: `msgs[done..chunk.len()]` are initialised headers,
                // each pointing at one iovec of `iovs`, each of those at a
                // frame of `chunk`; all live across the call.
                let n = unsafe {
                    libc::sendmmsg(
                        self.fd.as_raw_fd(),
                        msgs[done..].as_mut_ptr(),
                        (chunk.len() - done) as libc::c_uint,
                        0,
                    )
                };
                if n < 0 {
                    let e = io::Error::last_os_error();
                    if e.kind() == io::ErrorKind::Interrupted {
                        continue;
                    }
                    // The first message failed: report it, go on after it.
                    sent(base + done, Err(e));
                    done += 1;
                    continue;
                }
                if n == 0 {
                    // Not something Linux does for a non-empty vector; do
                    // not spin if it ever did.
                    sent(base + done, Err(io::Error::from(io::ErrorKind::WriteZero)));
                    done += 1;
                    continue;
                }
                for k in 0..n as usize {
                    sent(base + done + k, Ok(()));
                }
                done += n as usize;
            }
        }
    }
}

/// A receive ring on one interface, promiscuous: the kernel writes
/// frames into the mapped memory, [`RxRing::recv_batch`] walks every
/// frame handed over and hands the memory back ([`RingKind`] says in what
/// units).
#[derive(Debug)]
pub struct RxRing {
    fd: OwnedFd,
    map: NonNull<u8>,
    map_len: usize,
    kind: RingKind,
    block_size: usize,
    block_count: usize,
    /// [`RingKind::Frames`]: slot size and slots per block.
    frame_size: usize,
    frames_per_block: usize,
    /// The unit (block or slot) the kernel fills next, in ring order.
    next: usize,
    /// Frames skipped because they did not fit their slot or block.
    oversized: u64,
    poll_ms: i32,
    name: String,
}

// SAFETY: the mapping is owned by this value alone (no pointer into it
// outlives a `recv_batch` call), so moving it to another thread is sound.
unsafe impl Send for RxRing {}

/// Frame slot size the kernel checks a V3 ring against (frames themselves
/// are packed by length).
const V3_FRAME_SIZE: usize = 2048;

/// Rounds up to the ring's alignment (`TPACKET_ALIGN`).
const fn tpacket_align(n: usize) -> usize {
    (n + libc::TPACKET_ALIGNMENT - 1) & !(libc::TPACKET_ALIGNMENT - 1)
}

/// Where a frame's `sockaddr_ll` sits, after the aligned frame header.
const V2_ADDR_OFFSET: usize = tpacket_align(size_of::<libc::tpacket2_hdr>());
const V3_ADDR_OFFSET: usize = tpacket_align(size_of::<libc::tpacket3_hdr>());

/// Where the fields the reader uses sit in a frame header, from its start.
struct HeaderLayout {
    snaplen: usize,
    len: usize,
    mac: usize,
    sec: usize,
    nsec: usize,
    /// The frame's `sockaddr_ll`.
    addr: usize,
    /// The next header's offset (`TPACKET_V3` packs frames in a block; a
    /// `TPACKET_V2` slot holds one).
    next: Option<usize>,
}

const V2_LAYOUT: HeaderLayout = HeaderLayout {
    snaplen: std::mem::offset_of!(libc::tpacket2_hdr, tp_snaplen),
    len: std::mem::offset_of!(libc::tpacket2_hdr, tp_len),
    mac: std::mem::offset_of!(libc::tpacket2_hdr, tp_mac),
    sec: std::mem::offset_of!(libc::tpacket2_hdr, tp_sec),
    nsec: std::mem::offset_of!(libc::tpacket2_hdr, tp_nsec),
    addr: V2_ADDR_OFFSET,
    next: None,
};

const V3_LAYOUT: HeaderLayout = HeaderLayout {
    snaplen: std::mem::offset_of!(libc::tpacket3_hdr, tp_snaplen),
    len: std::mem::offset_of!(libc::tpacket3_hdr, tp_len),
    mac: std::mem::offset_of!(libc::tpacket3_hdr, tp_mac),
    sec: std::mem::offset_of!(libc::tpacket3_hdr, tp_sec),
    nsec: std::mem::offset_of!(libc::tpacket3_hdr, tp_nsec),
    addr: V3_ADDR_OFFSET,
    next: Some(std::mem::offset_of!(libc::tpacket3_hdr, tp_next_offset)),
};

/// What [`walk_unit`] found in one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Walked {
    /// Frames passed on.
    pub delivered: usize,
    /// Frames skipped because the kernel captured less than their length
    /// (longer than a slot or a block).
    pub oversized: u64,
}

/// Reads one unit of a receive ring as the kernel lays it out (a
/// `TPACKET_V2` slot, or a `TPACKET_V3` block of packed frames) and calls
/// `each` with every frame received from the wire, in order, with the
/// time the kernel stamped it (ns since the Unix epoch). Frames this host
/// sent (`PACKET_OUTGOING`) are skipped, and frames longer than their slot
/// are counted, not passed on. Every read is bounded by `unit`: headers,
/// offsets and lengths that point outside it end the walk there, so no
/// content of `unit` makes it read out of bounds or panic (the `ring`
/// fuzz target in `switch/fuzz` checks this). The status word is not
/// read: the caller owns the unit.
pub fn walk_unit(kind: RingKind, unit: &[u8], each: &mut impl FnMut(&[u8], u64)) -> Walked {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_ne_bytes(
            unit.get(at..at.checked_add(4)?)?.try_into().ok()?,
        ))
    };
    let half = |at: usize| -> Option<u16> {
        Some(u16::from_ne_bytes(
            unit.get(at..at.checked_add(2)?)?.try_into().ok()?,
        ))
    };
    let pkttype = |at: usize| {
        unit.get(at.checked_add(std::mem::offset_of!(libc::sockaddr_ll, sll_pkttype))?)
            .copied()
    };
    let stamp = |sec: u32, nsec: u32| u64::from(sec) * 1_000_000_000 + u64::from(nsec);
    let layout = match kind {
        RingKind::Frames => &V2_LAYOUT,
        RingKind::Blocks => &V3_LAYOUT,
    };
    // Each frame header with its offset, and the next header's offset
    // (0: the last one).
    let header = |at: usize| -> Option<(FrameHeader, usize)> {
        let next = match layout.next {
            Some(field) => word(at + field)? as usize,
            None => 0,
        };
        Some((
            FrameHeader {
                snaplen: word(at + layout.snaplen)?,
                len: word(at + layout.len)?,
                mac: half(at + layout.mac)?,
                pkttype: pkttype(at + layout.addr)?,
                stamp_ns: stamp(word(at + layout.sec)?, word(at + layout.nsec)?),
            },
            next,
        ))
    };
    let mut walked = Walked::default();
    // How many frames, and where the first header is.
    let (Some(count), Some(mut at)) = (match kind {
        RingKind::Frames => (Some(1), Some(0)),
        RingKind::Blocks => {
            let desc = std::mem::offset_of!(libc::tpacket_block_desc, hdr);
            (
                word(desc + std::mem::offset_of!(libc::tpacket_hdr_v1, num_pkts)),
                word(desc + std::mem::offset_of!(libc::tpacket_hdr_v1, offset_to_first_pkt))
                    .map(|o| o as usize),
            )
        }
    }) else {
        return walked;
    };
    for _ in 0..count {
        // A header that does not fit in the unit ends the walk, so the
        // loop runs at most once per byte of the unit.
        let Some((h, next)) = header(at) else {
            break;
        };
        let start = at + h.mac as usize;
        // The kernel never writes a frame past its unit; if it did,
        // stop rather than read outside it.
        let Some(frame) = unit.get(start..start + h.snaplen as usize) else {
            break;
        };
        if h.snaplen < h.len {
            walked.oversized += 1;
        } else if h.pkttype != libc::PACKET_OUTGOING {
            each(frame, h.stamp_ns);
            walked.delivered += 1;
        }
        if next == 0 {
            break;
        }
        at += next;
    }
    walked
}

/// The fields of a frame header the reader uses, wherever they sit.
struct FrameHeader {
    /// Bytes captured and the frame's length on the wire.
    snaplen: u32,
    len: u32,
    /// Offset of the frame from its header.
    mac: u16,
    /// `sll_pkttype`.
    pkttype: u8,
    /// When the kernel received the frame (`CLOCK_REALTIME`), ns.
    stamp_ns: u64,
}

impl RxRing {
    /// Sets up the ring on `name` (which must exist; needs CAP_NET_RAW and
    /// enough locked memory). Waits in [`RxRing::recv_batch`] last at most
    /// `poll`.
    pub fn open(name: &str, config: &RingConfig, poll: Duration) -> io::Result<RxRing> {
        let ifindex = interface_index(name)?;
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
        let to_uint = |n: usize| {
            libc::c_uint::try_from(n).map_err(|_| invalid("ring size does not fit 32 bits"))
        };
        let frame_size = match config.kind {
            RingKind::Frames => config.frame_size,
            RingKind::Blocks => V3_FRAME_SIZE,
        };
        let frames_per_block = config.block_size.checked_div(frame_size).unwrap_or(0);
        if frames_per_block == 0 || config.block_count == 0 {
            return Err(invalid("ring blocks must hold at least one frame slot"));
        }
        let fd = packet_socket()?;
        let version = match config.kind {
            RingKind::Frames => libc::tpacket_versions::TPACKET_V2,
            RingKind::Blocks => libc::tpacket_versions::TPACKET_V3,
        };
        set_option(
            &fd,
            libc::SOL_PACKET,
            libc::PACKET_VERSION,
            &(version as i32),
        )
        .map_err(|e| context(e, "PACKET_VERSION"))?;
        let request = libc::tpacket_req3 {
            tp_block_size: to_uint(config.block_size)?,
            tp_block_nr: to_uint(config.block_count)?,
            tp_frame_size: to_uint(frame_size)?,
            tp_frame_nr: to_uint(frames_per_block * config.block_count)?,
            tp_retire_blk_tov: config.block_timeout.as_millis().clamp(1, 1 << 31) as u32,
            tp_sizeof_priv: 0,
            tp_feature_req_word: 0,
        };
        let set = match config.kind {
            // V2 takes the first four fields only.
            RingKind::Frames => set_option(
                &fd,
                libc::SOL_PACKET,
                libc::PACKET_RX_RING,
                &libc::tpacket_req {
                    tp_block_size: request.tp_block_size,
                    tp_block_nr: request.tp_block_nr,
                    tp_frame_size: request.tp_frame_size,
                    tp_frame_nr: request.tp_frame_nr,
                },
            ),
            RingKind::Blocks => set_option(&fd, libc::SOL_PACKET, libc::PACKET_RX_RING, &request),
        };
        set.map_err(|e| context(e, "PACKET_RX_RING"))?;
        let map_len = config.block_size * config.block_count;
        // SAFETY: a fresh shared mapping of the ring the kernel just made
        // for `fd`, of exactly its size; the kernel checks both.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd.as_raw_fd(),
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(last_error("mmap(PACKET_RX_RING)"));
        }
        let ring = RxRing {
            fd,
            map: NonNull::new(map.cast()).expect("mmap succeeded"),
            map_len,
            kind: config.kind,
            block_size: config.block_size,
            block_count: config.block_count,
            frame_size,
            frames_per_block,
            next: 0,
            oversized: 0,
            poll_ms: poll.as_millis().min(i32::MAX as u128) as i32,
            name: name.to_string(),
        };
        // Bound only now, so every frame lands in the ring, and none of
        // our own transmissions does.
        receive_everything(&ring.fd, ifindex)?;
        bind(&ring.fd, ifindex, libc::ETH_P_ALL as u16)?;
        Ok(ring)
    }

    /// The interface name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Frames skipped so far because they were longer than a slot (or a
    /// block).
    pub fn oversized(&self) -> u64 {
        self.oversized
    }

    /// Units (slots or blocks) in the ring.
    fn units(&self) -> usize {
        match self.kind {
            RingKind::Frames => self.frames_per_block * self.block_count,
            RingKind::Blocks => self.block_count,
        }
    }

    /// Offset of unit `index` in the mapping.
    fn unit_offset(&self, index: usize) -> usize {
        match self.kind {
            RingKind::Frames => {
                (index / self.frames_per_block) * self.block_size
                    + (index % self.frames_per_block) * self.frame_size
            }
            RingKind::Blocks => index * self.block_size,
        }
    }

    fn unit_size(&self) -> usize {
        match self.kind {
            RingKind::Frames => self.frame_size,
            RingKind::Blocks => self.block_size,
        }
    }

    /// The status word of unit `index`, which the kernel and this reader
    /// hand back and forth.
    fn status(&self, index: usize) -> &AtomicU32 {
        let offset = match self.kind {
            RingKind::Frames => std::mem::offset_of!(libc::tpacket2_hdr, tp_status),
            RingKind::Blocks => {
                std::mem::offset_of!(libc::tpacket_block_desc, hdr)
                    + std::mem::offset_of!(libc::tpacket_hdr_v1, block_status)
            }
        };
        // SAFETY: `index` is below `units()`, so the word lies in the
        // mapping, 4-aligned (units are 16-aligned); the kernel changes it
        // only atomically from its side, and the mapping lives as long as
        // `self`.
        unsafe {
            &*self
                .map
                .as_ptr()
                .add(self.unit_offset(index) + offset)
                .cast::<AtomicU32>()
        }
    }

    fn ready(&self, index: usize) -> bool {
        self.status(index).load(Ordering::Acquire) & libc::TP_STATUS_USER != 0
    }

    /// Whether frames are waiting.
    pub fn has_frames(&self) -> bool {
        self.ready(self.next)
    }

    /// Waits up to the poll interval for frames, then calls `each` with
    /// every frame handed over, in arrival order, and hands the memory
    /// back. Returns the number of frames (0 when the wait timed out).
    /// Frames this host sent, and frames longer than a slot, are skipped.
    pub fn recv_batch(&mut self, each: impl FnMut(&[u8])) -> io::Result<usize> {
        if !self.has_frames()
            && let Some((_, e)) =
                wait_fds(&[self.fd.as_raw_fd()], &[], &mut [], None, self.poll_ms)?.pop()
        {
            return Err(e);
        }
        Ok(self.recv_ready(each))
    }

    /// As [`RxRing::recv_batch`] without waiting: the frames already
    /// handed over, at most one turn of the ring.
    pub fn recv_ready(&mut self, mut each: impl FnMut(&[u8])) -> usize {
        self.recv_ready_stamped(|frame, _| each(frame))
    }

    /// As [`RxRing::recv_ready`], with each frame the time the kernel
    /// received it: ns since the Unix epoch (`CLOCK_REALTIME`, as the
    /// kernel stamps ring frames).
    pub fn recv_ready_stamped(&mut self, mut each: impl FnMut(&[u8], u64)) -> usize {
        let mut frames = 0;
        // At most one turn of the ring per call, so the caller gets the
        // batch while the kernel refills what was just handed back.
        for _ in 0..self.units() {
            if !self.ready(self.next) {
                break;
            }
            frames += self.walk(self.next, &mut each);
            self.status(self.next)
                .store(libc::TP_STATUS_KERNEL, Ordering::Release);
            self.next = (self.next + 1) % self.units();
        }
        frames
    }

    /// Calls `each` with the frames of unit `index`, which the kernel has
    /// handed over (its status is `TP_STATUS_USER`, read with Acquire).
    fn walk(&mut self, index: usize, each: &mut impl FnMut(&[u8], u64)) -> usize {
        // SAFETY: the unit lies in the mapping and belongs to this reader
        // until its status is handed back; the kernel does not write it
        // meanwhile, so a shared view of it is sound.
        let unit = unsafe {
            std::slice::from_raw_parts(
                self.map.as_ptr().add(self.unit_offset(index)).cast_const(),
                self.unit_size(),
            )
        };
        let walked = walk_unit(self.kind, unit, each);
        self.oversized += walked.oversized;
        walked.delivered
    }

    /// Frames the kernel dropped because the ring was full, since the last
    /// call (reading resets the kernel's count).
    pub fn take_drops(&self) -> io::Result<u64> {
        // Both versions' statistics start with packets and drops; V3's
        // struct is the larger.
        // SAFETY: tpacket_stats_v3 is a C struct of integers: all-zero, or
        // any bytes the kernel writes, is a valid one.
        let mut stats: libc::tpacket_stats_v3 = unsafe { zeroed() };
        unsafe {
            get_option(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                &mut stats,
            )
        }
        .map_err(|e| context(e, "getsockopt(PACKET_STATISTICS)"))?;
        Ok(u64::from(stats.tp_drops))
    }
}

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: the mapping was made in `open` with this length, and no
        // reference into it outlives a `&self` borrow, none of which is
        // live during drop.
        unsafe {
            libc::munmap(self.map.as_ptr().cast(), self.map_len);
        }
    }
}

/// Waits until one of `rings` has frames or `waker` is woken, at most
/// `timeout`. Returns the errors rings reported meanwhile (their interface
/// went down, say), by index: each is taken from its socket, so the next
/// wait sleeps again rather than returning at once.
pub fn wait_any(
    rings: &[&RxRing],
    waker: &Waker,
    timeout: Duration,
) -> io::Result<Vec<(usize, io::Error)>> {
    wait_any_or_sockets(rings, &[], &mut [], waker, timeout)
}

/// [`wait_any`] that also wakes for `sockets` (UDP ports' descriptors):
/// sets `readable[i]` to whether `sockets[i]` has a datagram waiting or an
/// error pending (which its next receive reports, so it is left there).
/// A `timeout` of zero only looks.
pub(crate) fn wait_any_or_sockets(
    rings: &[&RxRing],
    sockets: &[i32],
    readable: &mut [bool],
    waker: &Waker,
    timeout: Duration,
) -> io::Result<Vec<(usize, io::Error)>> {
    let rings: Vec<i32> = rings.iter().map(|r| r.fd.as_raw_fd()).collect();
    let timeout_ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    wait_fds(
        &rings,
        sockets,
        readable,
        Some(waker.fd.as_raw_fd()),
        timeout_ms,
    )
}

/// `poll` for input on `rings`, `sockets` and `waker`, at most
/// `timeout_ms`; an interrupted wait counts as a timeout. Sets
/// `readable[i]` for `sockets[i]` (input or an error pending). Returns the
/// pending errors of the rings that reported one (`POLLERR`), by index,
/// taken (cleared) with `SO_ERROR`.
fn wait_fds(
    rings: &[i32],
    sockets: &[i32],
    readable: &mut [bool],
    waker: Option<i32>,
    timeout_ms: i32,
) -> io::Result<Vec<(usize, io::Error)>> {
    let mut pfds: Vec<libc::pollfd> = rings
        .iter()
        .chain(sockets)
        .copied()
        .chain(waker)
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `pfds` is a valid array of that many pollfds, living across
    // the call.
    let rc = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
        return Ok(Vec::new());
    }
    // A socket's error is left for its next receive to report.
    for (ready, p) in readable.iter_mut().zip(&pfds[rings.len()..]) {
        *ready = p.revents & (libc::POLLIN | libc::POLLERR) != 0;
    }
    let mut errors = Vec::new();
    for (i, p) in pfds[..rings.len()].iter().enumerate() {
        if p.revents & libc::POLLERR != 0 {
            let mut code: i32 = 0;
            // SAFETY: any bytes are a valid i32.
            unsafe { get_option(p.fd, libc::SOL_SOCKET, libc::SO_ERROR, &mut code) }
                .map_err(|e| context(e, "getsockopt(SO_ERROR)"))?;
            if code != 0 {
                errors.push((i, io::Error::from_raw_os_error(code)));
            }
        }
    }
    Ok(errors)
}

/// Wakes a thread waiting in [`wait_any`]: an `eventfd`.
#[derive(Debug)]
pub struct Waker {
    fd: OwnedFd,
}

impl Waker {
    /// A new waker, not woken.
    pub fn new() -> io::Result<Waker> {
        // SAFETY: plain system call with constant arguments.
        let raw = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if raw < 0 {
            return Err(last_error("eventfd"));
        }
        // SAFETY: `raw` is a new descriptor that nothing else owns.
        Ok(Waker {
            fd: unsafe { OwnedFd::from_raw_fd(raw) },
        })
    }

    /// Wakes the waiting thread (or the next wait, if none is waiting).
    pub fn wake(&self) {
        let one = 1u64;
        // SAFETY: `one` is valid for reads of 8 bytes; a full counter
        // (EAGAIN) still leaves the waker woken.
        let _ = unsafe { libc::write(self.fd.as_raw_fd(), (&raw const one).cast(), 8) };
    }

    /// Resets it to not woken; returns whether it was woken.
    pub fn clear(&self) -> bool {
        let mut count = 0u64;
        // SAFETY: `count` is valid for writes of 8 bytes; EAGAIN means it
        // was not woken.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), (&raw mut count).cast(), 8) };
        n == 8 && count > 0
    }
}

fn set_option<T>(fd: &impl AsRawFd, level: i32, name: i32, value: &T) -> io::Result<()> {
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

/// Reads socket option `name` of `fd` into `value`, which the kernel
/// fills (up to its size).
///
/// # Safety
/// Any bytes must be a valid `T` (an integer, or a C struct of them).
pub(crate) unsafe fn get_option<T>(
    fd: std::os::fd::RawFd,
    level: i32,
    name: i32,
    value: &mut T,
) -> io::Result<()> {
    let mut len = size_of::<T>() as libc::socklen_t;
    // SAFETY: `value` and `len` are valid for writes and live across the
    // call; `len` is the size of `value`, so the kernel writes within it,
    // and the caller vouches that whatever it writes is a valid `T`.
    let rc = unsafe { libc::getsockopt(fd, level, name, (value as *mut T).cast(), &raw mut len) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    fn put32(unit: &mut [u8], at: usize, v: u32) {
        unit[at..at + 4].copy_from_slice(&v.to_ne_bytes());
    }

    fn put16(unit: &mut [u8], at: usize, v: u16) {
        unit[at..at + 2].copy_from_slice(&v.to_ne_bytes());
    }

    /// A `TPACKET_V2` slot holding `frame` as the kernel writes it.
    fn v2_slot(frame: &[u8], len: u32, pkttype: u8, sec: u32, nsec: u32) -> Vec<u8> {
        let mut unit = vec![0u8; 2048];
        let mac = V2_ADDR_OFFSET + 32;
        put32(&mut unit, offset_of!(libc::tpacket2_hdr, tp_len), len);
        put32(
            &mut unit,
            offset_of!(libc::tpacket2_hdr, tp_snaplen),
            frame.len() as u32,
        );
        put16(
            &mut unit,
            offset_of!(libc::tpacket2_hdr, tp_mac),
            mac as u16,
        );
        put32(&mut unit, offset_of!(libc::tpacket2_hdr, tp_sec), sec);
        put32(&mut unit, offset_of!(libc::tpacket2_hdr, tp_nsec), nsec);
        unit[V2_ADDR_OFFSET + offset_of!(libc::sockaddr_ll, sll_pkttype)] = pkttype;
        unit[mac..mac + frame.len()].copy_from_slice(frame);
        unit
    }

    /// A `TPACKET_V3` block with `frames` (bytes, packet type, stamp ns)
    /// packed one after another, as the kernel writes them.
    fn v3_block(frames: &[(Vec<u8>, u8, u64)]) -> Vec<u8> {
        let mut unit = vec![0u8; 8192];
        let desc = offset_of!(libc::tpacket_block_desc, hdr);
        let first = 64;
        put32(
            &mut unit,
            desc + offset_of!(libc::tpacket_hdr_v1, num_pkts),
            frames.len() as u32,
        );
        put32(
            &mut unit,
            desc + offset_of!(libc::tpacket_hdr_v1, offset_to_first_pkt),
            first as u32,
        );
        let mut at = first;
        for (i, (frame, pkttype, ns)) in frames.iter().enumerate() {
            let mac = V3_ADDR_OFFSET + 32;
            let size = tpacket_align(mac + frame.len());
            let next = if i + 1 == frames.len() {
                0
            } else {
                size as u32
            };
            put32(
                &mut unit,
                at + offset_of!(libc::tpacket3_hdr, tp_next_offset),
                next,
            );
            put32(
                &mut unit,
                at + offset_of!(libc::tpacket3_hdr, tp_len),
                frame.len() as u32,
            );
            put32(
                &mut unit,
                at + offset_of!(libc::tpacket3_hdr, tp_snaplen),
                frame.len() as u32,
            );
            put16(
                &mut unit,
                at + offset_of!(libc::tpacket3_hdr, tp_mac),
                mac as u16,
            );
            put32(
                &mut unit,
                at + offset_of!(libc::tpacket3_hdr, tp_sec),
                (ns / 1_000_000_000) as u32,
            );
            put32(
                &mut unit,
                at + offset_of!(libc::tpacket3_hdr, tp_nsec),
                (ns % 1_000_000_000) as u32,
            );
            unit[at + V3_ADDR_OFFSET + offset_of!(libc::sockaddr_ll, sll_pkttype)] = *pkttype;
            unit[at + mac..at + mac + frame.len()].copy_from_slice(frame);
            at += size;
        }
        unit
    }

    fn collect(kind: RingKind, unit: &[u8]) -> (Vec<(Vec<u8>, u64)>, Walked) {
        let mut got = Vec::new();
        let walked = walk_unit(kind, unit, &mut |f: &[u8], ns| got.push((f.to_vec(), ns)));
        (got, walked)
    }

    fn frame(n: u8, len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| n.wrapping_mul(31).wrapping_add(i as u8))
            .collect()
    }

    #[test]
    fn a_v2_slot_yields_its_frame_byte_exact_with_its_stamp() {
        let f = frame(1, 64);
        let unit = v2_slot(&f, 64, libc::PACKET_HOST, 1_700_000_000, 123_456_789);
        let (got, walked) = collect(RingKind::Frames, &unit);
        assert_eq!(got, vec![(f, 1_700_000_000_123_456_789)]);
        assert_eq!(
            walked,
            Walked {
                delivered: 1,
                oversized: 0
            }
        );
    }

    #[test]
    fn a_v2_slot_skips_outgoing_frames_and_counts_cut_ones() {
        let f = frame(2, 64);
        let outgoing = v2_slot(&f, 64, libc::PACKET_OUTGOING, 1, 0);
        assert_eq!(
            collect(RingKind::Frames, &outgoing),
            (vec![], Walked::default())
        );
        // Captured 64 bytes of a 9000-byte frame: counted, not passed on.
        let cut = v2_slot(&f, 9000, libc::PACKET_HOST, 1, 0);
        assert_eq!(
            collect(RingKind::Frames, &cut),
            (
                vec![],
                Walked {
                    delivered: 0,
                    oversized: 1
                }
            )
        );
    }

    #[test]
    fn a_v3_block_yields_its_frames_in_order_skipping_outgoing() {
        let frames = vec![
            (frame(1, 60), libc::PACKET_HOST, 5_000_000_001),
            (frame(2, 1514), libc::PACKET_OUTGOING, 5_000_000_002),
            (frame(3, 61), libc::PACKET_OTHERHOST, 6_999_999_999),
            (frame(4, 128), libc::PACKET_BROADCAST, 7_000_000_000),
        ];
        let unit = v3_block(&frames);
        let (got, walked) = collect(RingKind::Blocks, &unit);
        let want: Vec<(Vec<u8>, u64)> = [0, 2, 3]
            .iter()
            .map(|&i| (frames[i].0.clone(), frames[i].2))
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            walked,
            Walked {
                delivered: 3,
                oversized: 0
            }
        );
    }

    #[test]
    fn headers_pointing_outside_the_unit_end_the_walk() {
        let frames: Vec<_> = (0..3)
            .map(|i| (frame(i, 100), libc::PACKET_HOST, 1))
            .collect();
        let good = v3_block(&frames);
        let desc = offset_of!(libc::tpacket_block_desc, hdr);
        let first = 64;
        let second = first + tpacket_align(V3_ADDR_OFFSET + 32 + 100);
        // (what, the word overwritten, its new value, frames still passed on)
        let cases = [
            // The last header's next offset (0) ends the walk.
            (
                "more frames claimed than chained",
                desc + offset_of!(libc::tpacket_hdr_v1, num_pkts),
                u32::MAX,
                3,
            ),
            (
                "a first frame beyond the block",
                desc + offset_of!(libc::tpacket_hdr_v1, offset_to_first_pkt),
                u32::MAX,
                0,
            ),
            (
                "a second frame's next offset far past the end",
                second + offset_of!(libc::tpacket3_hdr, tp_next_offset),
                u32::MAX,
                2,
            ),
            (
                "a frame whose bytes would run past the block",
                first + offset_of!(libc::tpacket3_hdr, tp_snaplen),
                8192,
                0,
            ),
        ];
        for (what, at, value, delivered) in cases {
            let mut unit = good.clone();
            put32(&mut unit, at, value);
            let (got, walked) = collect(RingKind::Blocks, &unit);
            assert_eq!(
                walked,
                Walked {
                    delivered,
                    oversized: 0
                },
                "{what}"
            );
            assert_eq!(got.len(), delivered, "{what}");
        }
        // A V2 slot whose frame offset lies past the slot.
        let mut unit = v2_slot(&frame(9, 64), 64, libc::PACKET_HOST, 1, 0);
        put16(&mut unit, offset_of!(libc::tpacket2_hdr, tp_mac), u16::MAX);
        assert_eq!(
            collect(RingKind::Frames, &unit),
            (vec![], Walked::default())
        );
    }

    #[test]
    fn a_cut_unit_yields_a_prefix_of_its_frames_and_never_other_bytes() {
        let frames: Vec<_> = (0..5)
            .map(|i| {
                (
                    frame(i, 60 + 37 * usize::from(i)),
                    libc::PACKET_HOST,
                    u64::from(i),
                )
            })
            .collect();
        let unit = v3_block(&frames);
        for cut in 0..=unit.len() {
            let (got, _) = collect(RingKind::Blocks, &unit[..cut]);
            let want: Vec<_> = frames[..got.len()]
                .iter()
                .map(|(f, _, ns)| (f.clone(), *ns))
                .collect();
            assert_eq!(got, want, "cut at {cut}");
        }
        let slot = v2_slot(&frame(7, 64), 64, libc::PACKET_HOST, 3, 4);
        for cut in 0..=slot.len() {
            let (got, _) = collect(RingKind::Frames, &slot[..cut]);
            assert!(got.is_empty() || got[0].0 == frame(7, 64), "cut at {cut}");
        }
    }
}
