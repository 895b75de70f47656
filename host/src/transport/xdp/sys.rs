//! Everything unsafe about `AF_XDP`: the memory shared with the kernel
//! (the UMEM) and its four rings, through the `xdpilone` crate, and the
//! bpf(2) calls that create the socket map, load the redirect program and
//! attach it to an interface.

#![allow(unsafe_code)]

use std::io;
use std::num::NonZeroU32;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::time::Duration;

use xdpilone::xdp::XdpDesc;
use xdpilone::{DeviceQueue, IfInfo, RingRx, RingTx, Socket, SocketConfig, Umem, UmemConfig, User};

/// Bytes per UMEM chunk: the largest frame sent or received.
pub(super) const CHUNK: usize = 2048;

/// Chunks lent to the kernel for receiving (the fill and receive rings
/// hold all of them), and as many again for sending.
const RING_CHUNKS: u32 = 2048;

/// Binds retried, 10 ms apart, while the queue is busy (a socket closed
/// on it a moment ago is torn down by the kernel later).
const BIND_RETRIES: u32 = 100;

/// An anonymous, page-aligned mapping, unmapped on drop.
#[derive(Debug)]
struct Area {
    ptr: NonNull<u8>,
    len: usize,
}

impl Area {
    fn new(len: usize) -> io::Result<Area> {
        // SAFETY: an anonymous private mapping of `len` bytes; the result
        // is checked before use.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(ptr.cast()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Area { ptr, len })
    }

    /// The `len` bytes at `offset`, which the caller owns (not on a ring).
    fn bytes(&self, offset: u64, len: usize) -> &[u8] {
        assert!(offset as usize + len <= self.len, "chunk outside the UMEM");
        // SAFETY: in bounds (checked above); the chunk was handed back by
        // the kernel through the receive ring, so it writes there no more
        // until the chunk is on the fill ring again.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(offset as usize), len) }
    }

    /// Copies `frame` into the chunk at `offset`, which the caller owns.
    fn write(&mut self, offset: u64, frame: &[u8]) {
        assert!(
            offset as usize + frame.len() <= self.len,
            "chunk outside the UMEM"
        );
        // SAFETY: in bounds (checked above); the chunk is free (never on
        // the transmit ring, or back through the completion ring), so the
        // kernel does not read it now.
        unsafe {
            std::ptr::copy_nonoverlapping(
                frame.as_ptr(),
                self.ptr.as_ptr().add(offset as usize),
                frame.len(),
            );
        }
    }
}

impl Drop for Area {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

fn errno(what: &str, e: xdpilone::Errno) -> io::Error {
    let e = io::Error::from_raw_os_error(e.get_raw());
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// An `AF_XDP` socket on one queue of one interface, with its own UMEM:
/// the first [`RING_CHUNKS`] chunks receive, the rest send.
pub(super) struct XdpSocket {
    // Fields drop in order: the rings and the socket go before the
    // memory the kernel shares with them.
    rx: RingRx,
    tx: RingTx,
    device: DeviceQueue,
    _user: User,
    _umem: Umem,
    area: Area,
    /// Sending chunks free to fill.
    free: Vec<u64>,
    /// Receive chunks taken off the receive ring, to give back.
    consumed: Vec<u64>,
    zero_copy: bool,
}

// SAFETY: the socket owns its mapping, rings and descriptors outright (no
// pointer into them leaves a method call), so moving it to another thread
// is sound; it is not `Sync`.
unsafe impl Send for XdpSocket {}

impl std::fmt::Debug for XdpSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XdpSocket")
            .field("fd", &self.fd())
            .field("free", &self.free.len())
            .field("zero_copy", &self.zero_copy)
            .finish()
    }
}

impl XdpSocket {
    /// A socket on `queue` of `interface`: zero-copy if the driver has it,
    /// else copy mode (veth, and any driver without `AF_XDP` support).
    pub(super) fn open(interface: &str, queue: u32) -> io::Result<XdpSocket> {
        match XdpSocket::open_with(interface, queue, SocketConfig::XDP_BIND_ZEROCOPY) {
            Ok(socket) => Ok(socket),
            Err(_) => XdpSocket::open_with(interface, queue, SocketConfig::XDP_BIND_COPY),
        }
    }

    fn open_with(interface: &str, queue: u32, bind_flags: u16) -> io::Result<XdpSocket> {
        let area = Area::new(2 * RING_CHUNKS as usize * CHUNK)?;
        let config = UmemConfig {
            fill_size: RING_CHUNKS,
            complete_size: RING_CHUNKS,
            frame_size: CHUNK as u32,
            headroom: 0,
            flags: 0,
        };
        let slice = NonNull::slice_from_raw_parts(area.ptr, area.len);
        // SAFETY: the area is page-aligned (mmap), a whole number of
        // chunks long, and outlives the UMEM (field order above).
        let umem = unsafe { Umem::new(config, slice) }.map_err(|e| errno("AF_XDP UMEM", e))?;
        let mut info = IfInfo::invalid();
        let name = std::ffi::CString::new(interface)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name has NUL"))?;
        info.from_name(&name)
            .map_err(|e| errno(&format!("interface {interface}"), e))?;
        info.set_queue(queue);
        let socket = Socket::with_shared(&info, &umem).map_err(|e| errno("AF_XDP socket", e))?;
        let mut device = umem
            .fq_cq(&socket)
            .map_err(|e| errno("AF_XDP fill and completion rings", e))?;
        let user = umem
            .rx_tx(
                &socket,
                &SocketConfig {
                    rx_size: NonZeroU32::new(RING_CHUNKS),
                    tx_size: NonZeroU32::new(RING_CHUNKS),
                    bind_flags,
                },
            )
            .map_err(|e| errno("AF_XDP receive and transmit rings", e))?;
        let rx = user.map_rx().map_err(|e| errno("AF_XDP receive ring", e))?;
        let tx = user
            .map_tx()
            .map_err(|e| errno("AF_XDP transmit ring", e))?;
        let mut waited = 0;
        loop {
            match umem.bind(&user) {
                Ok(()) => break,
                Err(e) if e.get_raw() == libc::EBUSY && waited < BIND_RETRIES => {
                    waited += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(errno("AF_XDP bind", e)),
            }
        }
        // Every receive chunk goes to the kernel at once.
        let mut fill = device.fill(RING_CHUNKS);
        fill.insert((0..RING_CHUNKS).map(|i| u64::from(i) * CHUNK as u64));
        fill.commit();
        drop(fill);
        let free = (RING_CHUNKS..2 * RING_CHUNKS)
            .rev()
            .map(|i| u64::from(i) * CHUNK as u64)
            .collect();
        Ok(XdpSocket {
            rx,
            tx,
            device,
            _user: user,
            _umem: umem,
            area,
            free,
            consumed: Vec::with_capacity(RING_CHUNKS as usize),
            zero_copy: bind_flags == SocketConfig::XDP_BIND_ZEROCOPY,
        })
    }

    /// The socket's descriptor (for the socket map and `poll`).
    pub(super) fn fd(&self) -> RawFd {
        self.rx.as_raw_fd()
    }

    /// Whether the driver moves frames in and out of the UMEM itself.
    pub(super) fn zero_copy(&self) -> bool {
        self.zero_copy
    }

    /// Hands up to `max` received frames to `frame`, in order, and gives
    /// their chunks back to the kernel; returns how many.
    pub(super) fn receive(&mut self, max: u32, mut frame: impl FnMut(&[u8])) -> usize {
        let mut read = self.rx.receive(max);
        while let Some(desc) = read.read() {
            frame(self.area.bytes(desc.addr, desc.len as usize));
            // The descriptor may point past the chunk's start (headroom).
            self.consumed.push(desc.addr & !(CHUNK as u64 - 1));
        }
        read.release();
        drop(read);
        let n = self.consumed.len();
        if n > 0 {
            // The fill ring holds every receive chunk, so they all fit.
            let mut fill = self.device.fill(n as u32);
            fill.insert(self.consumed.drain(..));
            fill.commit();
        }
        n
    }

    /// Takes back the sending chunks whose frames the kernel is done with.
    fn reap(&mut self) {
        let mut done = self.device.complete(RING_CHUNKS);
        while let Some(addr) = done.read() {
            self.free.push(addr);
        }
        done.release();
    }

    /// Puts as many of `frames` on the transmit ring as there are free
    /// chunks (frames longer than [`CHUNK`] are skipped); returns how many
    /// of `frames` were consumed and how many of those were skipped.
    pub(super) fn enqueue<'f>(
        &mut self,
        frames: impl ExactSizeIterator<Item = &'f [u8]>,
    ) -> (usize, usize) {
        self.reap();
        let room = frames.len().min(self.free.len());
        let mut writer = self.tx.transmit(room as u32);
        let mut consumed = 0;
        let mut skipped = 0;
        for frame in frames.take(writer.capacity() as usize) {
            consumed += 1;
            if frame.len() > CHUNK {
                skipped += 1;
                continue;
            }
            let Some(addr) = self.free.pop() else {
                consumed -= 1;
                break;
            };
            self.area.write(addr, frame);
            writer.insert_once(XdpDesc {
                addr,
                len: frame.len() as u32,
                options: 0,
            });
        }
        writer.commit();
        (consumed, skipped)
    }

    /// Frames on the transmit ring the kernel has not taken yet.
    pub(super) fn tx_pending(&self) -> u32 {
        self.tx.pending()
    }

    /// One `sendto`, for the kernel to take frames off the transmit ring
    /// (in copy mode at most 32 a call); whether the device dropped one.
    pub(super) fn kick(&mut self) -> io::Result<bool> {
        // SAFETY: a zero-length send on the socket's descriptor, no
        // buffers passed.
        let n = unsafe {
            libc::sendto(
                self.tx.as_raw_fd(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null(),
                0,
            )
        };
        let result = if n >= 0 {
            Ok(false)
        } else {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) | Some(libc::ENOBUFS) => Ok(false),
                Some(libc::EBUSY) => Ok(true),
                _ => Err(e),
            }
        };
        self.reap();
        result
    }

    /// Blocks until a frame is on the receive ring or `timeout` passes.
    pub(super) fn wait_readable(&self, timeout: Duration) -> io::Result<bool> {
        if self.rx.available() > 0 {
            return Ok(true);
        }
        // SAFETY: the socket's descriptor, open while `self` lives, which
        // outlasts this borrow.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(self.fd()) };
        super::super::mmsg::wait_fd(fd, timeout, false)
    }
}

const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_LINK_CREATE: libc::c_long = 28;
const BPF_MAP_TYPE_XSKMAP: u32 = 17;
const BPF_PROG_TYPE_XDP: u32 = 6;
/// `enum bpf_attach_type`'s `BPF_XDP`.
const BPF_XDP: u32 = 37;

/// Bytes of the verifier's log kept when a program is refused.
const VERIFIER_LOG: usize = 1 << 16;

/// A `union bpf_attr`, as bytes: each command fills the fields it reads
/// and leaves the rest zero, as the kernel demands.
#[repr(C, align(8))]
struct BpfAttr([u8; 128]);

impl BpfAttr {
    fn new() -> BpfAttr {
        BpfAttr([0; 128])
    }

    fn u32_at(&mut self, offset: usize, value: u32) -> &mut BpfAttr {
        self.0[offset..offset + 4].copy_from_slice(&value.to_ne_bytes());
        self
    }

    fn u64_at(&mut self, offset: usize, value: u64) -> &mut BpfAttr {
        self.0[offset..offset + 8].copy_from_slice(&value.to_ne_bytes());
        self
    }

    /// bpf(2) with this attribute; the descriptor it returns.
    fn call(&mut self, command: libc::c_long) -> io::Result<OwnedFd> {
        let n = self.call_raw(command)?;
        let fd = RawFd::try_from(n).map_err(|_| io::Error::other("bpf(2) returned no fd"))?;
        // SAFETY: these commands return a new descriptor this process owns.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    fn call_raw(&mut self, command: libc::c_long) -> io::Result<libc::c_long> {
        // SAFETY: `self` is a zero-padded bpf_attr of the size passed, and
        // every pointer stored in it (instructions, license, log) is alive
        // for the duration of the call (the callers' borrows).
        let n = unsafe {
            libc::syscall(
                libc::SYS_bpf,
                command,
                self.0.as_mut_ptr(),
                self.0.len() as libc::c_uint,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n)
    }
}

/// Creates a socket map (`BPF_MAP_TYPE_XSKMAP`) of `entries` queues.
pub(super) fn create_socket_map(entries: u32) -> io::Result<OwnedFd> {
    BpfAttr::new()
        .u32_at(0, BPF_MAP_TYPE_XSKMAP)
        .u32_at(4, 4)
        .u32_at(8, 4)
        .u32_at(12, entries)
        .call(BPF_MAP_CREATE)
}

/// Points entry `queue` of the socket map at the socket `socket`.
pub(super) fn set_socket(map: &OwnedFd, queue: u32, socket: RawFd) -> io::Result<()> {
    let key = queue;
    let value = u32::try_from(socket).map_err(|_| io::Error::other("negative descriptor"))?;
    BpfAttr::new()
        .u32_at(0, map.as_raw_fd() as u32)
        .u64_at(8, &key as *const u32 as u64)
        .u64_at(16, &value as *const u32 as u64)
        .call_raw(BPF_MAP_UPDATE_ELEM)
        .map(drop)
}

/// Loads `instructions` (8 bytes each) as an XDP program; a refusal
/// carries the verifier's log.
pub(super) fn load_xdp_program(instructions: &[[u8; 8]]) -> io::Result<OwnedFd> {
    let license = c"GPL";
    let mut log = vec![0u8; VERIFIER_LOG];
    let mut attr = BpfAttr::new();
    attr.u32_at(0, BPF_PROG_TYPE_XDP)
        .u32_at(4, instructions.len() as u32)
        .u64_at(8, instructions.as_ptr() as u64)
        .u64_at(16, license.as_ptr() as u64)
        .u32_at(24, 1)
        .u32_at(28, log.len() as u32)
        .u64_at(32, log.as_mut_ptr() as u64)
        .u32_at(68, BPF_XDP);
    attr.0[48..48 + 7].copy_from_slice(b"esa_xsk");
    attr.call(BPF_PROG_LOAD).map_err(|e| {
        let end = log.iter().position(|b| *b == 0).unwrap_or(log.len());
        let text = String::from_utf8_lossy(&log[..end]);
        io::Error::new(e.kind(), format!("{e}; verifier: {}", text.trim()))
    })
}

/// Attaches the XDP program `program` to the interface `ifindex` with
/// `flags` (`XDP_FLAGS_DRV_MODE`, `XDP_FLAGS_SKB_MODE`); closing the link
/// detaches it.
pub(super) fn attach_xdp(program: &OwnedFd, ifindex: u32, flags: u32) -> io::Result<OwnedFd> {
    BpfAttr::new()
        .u32_at(0, program.as_raw_fd() as u32)
        .u32_at(4, ifindex)
        .u32_at(8, BPF_XDP)
        .u32_at(12, flags)
        .call(BPF_LINK_CREATE)
}

/// The index of the interface `name`.
pub(super) fn interface_index(name: &str) -> io::Result<u32> {
    let cname = std::ffi::CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name has NUL"))?;
    // SAFETY: a NUL-terminated name, alive for the call.
    let index = unsafe { libc::if_nametoindex(cname.as_ptr()) };
    if index == 0 {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no interface {name}"),
        ));
    }
    Ok(index)
}
