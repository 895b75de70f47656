//! Sending through an `AF_XDP` socket (Linux 4.18+): frames are copied
//! into a memory area shared with the kernel (the UMEM), described in a
//! transmit ring, and one `sendto` hands the kernel up to its per-call
//! budget (32 frames by default) at a time. Against `sendmmsg` on an
//! `AF_PACKET` socket this skips, per frame, the message and iovec copies,
//! the socket's header parsing (a flow dissection) and the queueing
//! discipline: the frame goes straight to the driver's transmit
//! (`__dev_direct_xmit`).
//!
//! Only the transmit side is used. Receiving through `AF_XDP` needs an
//! XDP program attached to the interface to redirect frames into the
//! socket; ports keep receiving through their `AF_PACKET` ring.
//!
//! The socket binds in copy mode to queue 0 of the interface, so it works
//! on any interface, veths included (the kernel builds an `sk_buff` per
//! frame). Frames bypass the interface's queueing discipline (`tc`
//! shaping does not apply), as with `PACKET_QDISC_BYPASS`. The ring and
//! socket calls are those of the `xdpilone` crate. Everything unsafe
//! about it is here: the shared memory and the raw socket calls.

#![allow(unsafe_code)]

use std::io;
use std::num::NonZeroU32;
use std::ptr::NonNull;
use std::time::{Duration, Instant};

use xdpilone::xdp::XdpDesc;
use xdpilone::{DeviceQueue, IfInfo, RingTx, Socket, SocketConfig, Umem, UmemConfig, User};

/// Bytes per UMEM chunk: the largest frame sent this way (longer ones are
/// refused).
pub const CHUNK: usize = 2048;

/// Chunks in the UMEM (4 MiB per port, as the receive ring); also the
/// completion ring's size, so every chunk in flight has a place in it.
/// Copy mode is done with a chunk within the `sendto` that sends it, so
/// a batch (at most 1,024 frames) never waits for chunks.
const CHUNKS: u32 = 2048;

/// Transmit ring entries.
const TX_ENTRIES: u32 = 2048;

/// Frames described to the kernel before each kick.
const KICK_EVERY: usize = 256;

/// Binds retried, 10 ms apart, while the queue is busy.
const BIND_RETRIES: u32 = 100;

/// How long sending may go without progress (the kernel taking no frame
/// off the ring, or holding every chunk) before the batch is given up and
/// the port falls back to `sendmmsg`. Bounded by time rather than by a
/// count of calls, whose length depends on how soon the thread gets back
/// its core after yielding.
const STALL_LIMIT: Duration = Duration::from_millis(20);

/// A run of attempts without progress: the clock is read only once one
/// has failed, so sending at full speed reads it never.
#[derive(Debug, Default)]
struct Stall {
    since: Option<Instant>,
}

impl Stall {
    /// Notes one more attempt without progress; whether the run has now
    /// lasted longer than [`STALL_LIMIT`].
    fn too_long(&mut self) -> bool {
        self.since.get_or_insert_with(Instant::now).elapsed() > STALL_LIMIT
    }
}

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
}

impl Drop for Area {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// A transmit-only `AF_XDP` socket on one interface.
pub struct XdpSender {
    // Fields drop in order: the rings and the socket go before the
    // memory the kernel shares with them.
    tx: RingTx,
    device: DeviceQueue,
    _user: User,
    _umem: Umem,
    area: Area,
    /// Offsets of chunks free to fill.
    free: Vec<u64>,
    /// Frames the interface took but dropped (`sendto` said `EBUSY`:
    /// carrier down, or the driver refused it).
    dropped: u64,
    name: String,
}

// SAFETY: the sender owns its mapping, rings and socket outright (no
// pointer into them leaves a method call), so moving it to another thread
// is sound; it is not `Sync`.
unsafe impl Send for XdpSender {}

impl std::fmt::Debug for XdpSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XdpSender")
            .field("name", &self.name)
            .field("free", &self.free.len())
            .field("dropped", &self.dropped)
            .finish()
    }
}

/// `e` again, for each frame it is reported to (`io::Error` is not
/// `Clone`).
fn copy(e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), e.to_string())
}

fn errno(what: &str, e: xdpilone::Errno) -> io::Error {
    let e = io::Error::from_raw_os_error(e.get_raw());
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

impl XdpSender {
    /// Opens a transmit-only `AF_XDP` socket on `name`, queue 0, in copy
    /// mode. Fails where the kernel has no `AF_XDP` (built without
    /// `CONFIG_XDP_SOCKETS`, older than 4.18), without `CAP_NET_RAW`, or
    /// when another `AF_XDP` socket holds queue 0.
    pub fn open(name: &str) -> io::Result<XdpSender> {
        let area = Area::new(CHUNKS as usize * CHUNK)?;
        let config = UmemConfig {
            fill_size: 64,
            complete_size: CHUNKS,
            frame_size: CHUNK as u32,
            headroom: 0,
            flags: 0,
        };
        let slice = NonNull::slice_from_raw_parts(area.ptr, area.len);
        // SAFETY: the area is page-aligned (mmap), `CHUNKS` chunks long,
        // and outlives the UMEM (field order above).
        let umem = unsafe { Umem::new(config, slice) }.map_err(|e| errno("AF_XDP UMEM", e))?;
        let mut info = IfInfo::invalid();
        let cname = std::ffi::CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name has NUL"))?;
        info.from_name(&cname)
            .map_err(|e| errno(&format!("interface {name}"), e))?;
        info.set_queue(0);
        let socket = Socket::with_shared(&info, &umem).map_err(|e| errno("AF_XDP socket", e))?;
        // In copy mode each frame is an skb charged to the socket's send
        // buffer until the device frees it. The default buffer (about
        // 200 KiB, some 280 small frames) stalls sends while a NIC's
        // transmit ring, or another CPU's backlog, holds that many: the
        // same 4 MiB as the ports' AF_PACKET sockets lets every chunk be
        // in flight.
        // SAFETY: the descriptor is the socket's, open while `socket`
        // lives, which outlasts this borrow.
        crate::afpacket::enlarge_send_buffer(&unsafe {
            std::os::fd::BorrowedFd::borrow_raw(socket.as_raw_fd())
        });
        let device = umem
            .fq_cq(&socket)
            .map_err(|e| errno("AF_XDP fill and completion rings", e))?;
        let user = umem
            .rx_tx(
                &socket,
                &SocketConfig {
                    rx_size: None,
                    tx_size: NonZeroU32::new(TX_ENTRIES),
                    bind_flags: SocketConfig::XDP_BIND_COPY,
                },
            )
            .map_err(|e| errno("AF_XDP transmit ring", e))?;
        let tx = user
            .map_tx()
            .map_err(|e| errno("AF_XDP transmit ring", e))?;
        // A socket closed on this queue a moment ago (a switch restarted
        // on the interface) holds it until the kernel's deferred
        // teardown ends: retry a busy queue for up to a second.
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
        let free = (0..CHUNKS)
            .rev()
            .map(|i| u64::from(i) * CHUNK as u64)
            .collect();
        Ok(XdpSender {
            tx,
            device,
            _user: user,
            _umem: umem,
            area,
            free,
            dropped: 0,
            name: name.to_string(),
        })
    }

    /// The socket's send buffer, bytes, as the kernel reports it (twice
    /// what was asked, for its own bookkeeping).
    pub fn send_buffer(&self) -> io::Result<usize> {
        let mut bytes: i32 = 0;
        // SAFETY: any bytes are a valid i32.
        unsafe {
            crate::afpacket::get_option(
                self.tx.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                &mut bytes,
            )
        }?;
        Ok(usize::try_from(bytes).unwrap_or(0))
    }

    /// Frames the interface took and dropped since the last call (the
    /// kernel's `EBUSY`: carrier down, or the driver refused them).
    pub fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }

    /// Takes back the chunks whose frames the kernel is done with.
    fn reap(&mut self) {
        let mut done = self.device.complete(CHUNKS);
        while let Some(addr) = done.read() {
            self.free.push(addr);
        }
        done.release();
    }

    /// One `sendto`, to have the kernel take frames off the ring (at most
    /// its per-call budget).
    /// Returns whether the device dropped a frame (which the ring's
    /// consumer index may show only later).
    fn kick(&mut self) -> io::Result<bool> {
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
        if n >= 0 {
            return Ok(false);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            // More to send than one call's budget, or no room in the
            // completion ring yet: call again.
            Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(false),
            // The frame was taken and dropped by the device.
            Some(libc::EBUSY) => {
                self.dropped += 1;
                Ok(true)
            }
            _ => Err(e),
        }
    }

    /// Has the kernel take every frame on the ring. On an error the frames
    /// still on the ring stay there (the caller drops the sender, which
    /// discards them).
    fn flush(&mut self) -> io::Result<()> {
        let mut stalled = Stall::default();
        while self.tx.pending() > 0 {
            let before = self.tx.pending();
            let dropped = self.kick()?;
            self.reap();
            if !dropped && self.tx.pending() >= before {
                if stalled.too_long() {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("{} frames stuck on the AF_XDP ring", self.tx.pending()),
                    ));
                }
                std::thread::yield_now();
            } else {
                stalled = Stall::default();
            }
        }
        Ok(())
    }

    /// Sends `frames` in order and reports each frame's outcome to
    /// `sent(index, result)` in order. Frames longer than [`CHUNK`] are
    /// refused (`InvalidInput`); the rest still go. An error of the socket
    /// itself (the interface went away or down), or chunks the kernel
    /// never hands back, is reported for the frames left unsent and
    /// returned; the caller should then stop using this sender (dropping
    /// it discards what is left on its ring).
    pub fn send_many(
        &mut self,
        frames: &[&[u8]],
        mut sent: impl FnMut(usize, io::Result<()>),
    ) -> io::Result<()> {
        let mut start = 0;
        let mut described: Vec<Option<XdpDesc>> = Vec::with_capacity(KICK_EVERY);
        let mut empty = Stall::default();
        while start < frames.len() {
            self.reap();
            // This round: as many frames as there are free chunks and ring
            // slots, up to KICK_EVERY.
            let room = (TX_ENTRIES - self.tx.pending()) as usize;
            let take = (frames.len() - start).min(KICK_EVERY).min(room);
            described.clear();
            for frame in &frames[start..start + take] {
                if frame.len() > CHUNK {
                    described.push(None);
                    continue;
                }
                let Some(addr) = self.free.pop() else {
                    break;
                };
                // SAFETY: `addr` is a free chunk (never described, or
                // handed back through the completion ring): it lies in the
                // area, CHUNK bytes long, and the kernel neither reads nor
                // writes it until it is described on the ring below.
                unsafe {
                    let to = self.area.ptr.as_ptr().add(addr as usize);
                    std::ptr::copy_nonoverlapping(frame.as_ptr(), to, frame.len());
                }
                described.push(Some(XdpDesc {
                    addr,
                    len: frame.len() as u32,
                    options: 0,
                }));
            }
            let count = described.iter().flatten().count() as u32;
            // The ring has `room` free slots, so all of them fit; but a
            // reservation is served from the cached view of the kernel's
            // consumer index while that shows any room at all, and may be
            // shorter than asked: reserve again for the rest (the view is
            // then refreshed).
            let mut descs = described.iter().flatten().copied().peekable();
            let mut inserted = 0;
            while descs.peek().is_some() {
                let mut writer = self.tx.transmit(count - inserted);
                let n = writer.insert(descs.by_ref().take(writer.capacity() as usize));
                writer.commit();
                if n == 0 {
                    break;
                }
                inserted += n;
            }
            // Never seen: the ring had room. Were it full, the frames not
            // described are refused below and their chunks freed.
            self.free.extend(descs.map(|d| d.addr));
            let mut result = self.flush();
            if described.is_empty() {
                // Every chunk is still the kernel's: wait for some, a
                // bounded while.
                if empty.too_long() && result.is_ok() {
                    result = Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the kernel holds every AF_XDP chunk",
                    ));
                }
                std::thread::yield_now();
            } else {
                empty = Stall::default();
            }
            // The described frames that went out are the first ones: on an
            // error, those still on the ring are the last.
            let stuck = if result.is_ok() { 0 } else { self.tx.pending() };
            let went = inserted.saturating_sub(stuck);
            let mut nth = 0;
            for (k, d) in described.iter().enumerate() {
                let outcome = match d {
                    None => Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("frame of {} bytes over {CHUNK}", frames[start + k].len()),
                    )),
                    Some(_) => {
                        nth += 1;
                        match &result {
                            _ if nth <= went => Ok(()),
                            Err(e) => Err(copy(e)),
                            Ok(()) => Err(io::Error::other("AF_XDP transmit ring full")),
                        }
                    }
                };
                sent(start + k, outcome);
            }
            start += described.len();
            if let Err(e) = result {
                for i in start..frames.len() {
                    sent(i, Err(copy(&e)));
                }
                return Err(e);
            }
        }
        Ok(())
    }
}

/// How long after its `AF_XDP` socket failed a port tries a new one.
const REOPEN_AFTER: Duration = Duration::from_secs(1);

/// A port's `AF_XDP` sending: its socket, or, while the socket has
/// failed (the interface went down or away), when to try a new one.
#[derive(Debug)]
pub(crate) struct XdpEgress {
    sender: Option<XdpSender>,
    reopen_at: Instant,
    port: u32,
    interface: String,
}

impl XdpEgress {
    pub(crate) fn new(port: u32, sender: XdpSender) -> XdpEgress {
        XdpEgress {
            interface: sender.name.clone(),
            sender: Some(sender),
            reopen_at: Instant::now(),
            port,
        }
    }

    /// Sends `frames` as [`XdpSender::send_many`] does, opening a new
    /// socket first if the last one failed a while ago. Returns `false`,
    /// having sent and reported nothing, while there is no socket: the
    /// caller sends another way.
    pub(crate) fn send_many(
        &mut self,
        frames: &[&[u8]],
        sent: impl FnMut(usize, io::Result<()>),
    ) -> bool {
        let (port, interface) = (self.port, self.interface.as_str());
        if self.sender.is_none() && Instant::now() >= self.reopen_at {
            match XdpSender::open(interface) {
                Ok(x) => {
                    tracing::info!(port, interface, "AF_XDP reopened");
                    self.sender = Some(x);
                }
                Err(_) => self.reopen_at = Instant::now() + REOPEN_AFTER,
            }
        }
        let Some(x) = &mut self.sender else {
            return false;
        };
        let result = x.send_many(frames, sent);
        let dropped = x.take_dropped();
        if dropped > 0 {
            tracing::debug!(
                port,
                interface,
                dropped,
                "the interface dropped frames (carrier down?)"
            );
        }
        if let Err(e) = result {
            tracing::warn!(
                port,
                interface,
                "AF_XDP send failed ({e}): sendmmsg until it reopens"
            );
            self.sender = None;
            self.reopen_at = Instant::now() + REOPEN_AFTER;
        }
        true
    }
}
