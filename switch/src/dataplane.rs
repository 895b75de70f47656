//! The packet thread: drains the inbound channel in batches, runs each
//! batch's frames through the loaded program under one device lock with
//! the monotonic clock, then hands the outputs to the egress ports (one
//! batch per port, through its [`Egress`]), the CPU port (PacketIn) and
//! the pcap files.
//!
//! It is the only thread that runs the program: every frame sees the
//! register, counter and table state the frames before it left (see the
//! crate documentation).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Instant;

#[cfg(target_os = "linux")]
use crate::afpacket::{RxRing, wait_any_or_sockets};
use crate::device::Device;
use crate::egress::Egress;
#[cfg(target_os = "linux")]
use crate::inbound::Doorbell;
use crate::inbound::{FrameBatch, Inbound};
use crate::pcap::PcapWriter;
use crate::ports::PortCounters;
use crate::state::SwitchState;
#[cfg(target_os = "linux")]
use crate::udp::{ReaderPort, RecvBuffers};

/// Frames taken from the channel per device lock, at most (a P4Runtime
/// write waits for at most one batch).
const BATCH_FRAMES: usize = 1024;

/// Sent frames' buffers kept for reuse: a batch's worth.
const SPARE_BUFFERS: usize = BATCH_FRAMES;

/// Longest sleep on the rings (a doorbell or a frame ends it sooner).
#[cfg(target_os = "linux")]
const READ_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Stands in for the ring type where there are no rings.
#[cfg(not(target_os = "linux"))]
type RxRing = std::convert::Infallible;

/// Values by port number, in a vector sorted by port: a switch has a
/// handful of ports, and a binary search over them costs a fraction of
/// hashing the port, which the packet thread did several times a frame.
#[derive(Debug)]
pub(crate) struct PortMap<T>(Vec<(u32, T)>);

impl<T> PortMap<T> {
    pub(crate) fn new() -> PortMap<T> {
        PortMap(Vec::new())
    }

    fn find(&self, port: u32) -> Result<usize, usize> {
        self.0.binary_search_by_key(&port, |(p, _)| *p)
    }

    pub(crate) fn get(&self, port: u32) -> Option<&T> {
        self.find(port).ok().map(|i| &self.0[i].1)
    }

    pub(crate) fn get_mut(&mut self, port: u32) -> Option<&mut T> {
        self.find(port).ok().map(|i| &mut self.0[i].1)
    }

    /// Sets `port`'s value, replacing any it had.
    pub(crate) fn insert(&mut self, port: u32, value: T) {
        match self.find(port) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (port, value)),
        }
    }

    /// `port`'s value, made with `T::default()` if it had none.
    fn get_or_default(&mut self, port: u32) -> &mut T
    where
        T: Default,
    {
        let i = match self.find(port) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (port, T::default()));
                i
            }
        };
        &mut self.0[i].1
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Ports and values, in port order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.0.iter().map(|(p, v)| (*p, v))
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.0.iter_mut().map(|(p, v)| (*p, v))
    }
}

/// A port as the packet thread sees it.
#[derive(Debug)]
pub(crate) struct Port {
    /// The port's counters (shared with [`crate::Switch::port_stats`]).
    pub(crate) counters: Arc<PortCounters>,
    /// Where the port's frames leave.
    pub(crate) egress: Box<dyn Egress>,
}

impl Port {
    /// A port whose frames leave by `egress`, its counters at zero.
    pub(crate) fn new(egress: Box<dyn Egress>) -> Port {
        Port {
            counters: Arc::new(PortCounters::default()),
            egress,
        }
    }
}

/// The packet thread's state.
#[derive(Debug)]
pub(crate) struct Dataplane {
    pub(crate) state: Arc<SwitchState>,
    pub(crate) inbound: Receiver<Inbound>,
    pub(crate) ports: PortMap<Port>,
    pub(crate) pcap: PortMap<PcapWriter>,
    pub(crate) start: Instant,
    /// The timestamp the last frame entered the program with, µs since
    /// `start`: no frame gets an earlier one.
    pub(crate) last_us: u64,
    /// Frames the current batch sends, per egress port, in pipeline order
    /// (kept between batches for their capacity).
    pub(crate) pending: PortMap<Vec<Vec<u8>>>,
    /// Frames the current batch sends to the CPU port, in order.
    pub(crate) packet_ins: Vec<Vec<u8>>,
    /// What the program sent for the current frame (kept for its
    /// capacity).
    pub(crate) outputs: Vec<p4sim::v1switch::OutputPacket>,
    /// Buffers of frames already sent, for the program to deparse the
    /// next ones into (at most [`SPARE_BUFFERS`]): no allocation per frame.
    pub(crate) spare: Vec<Vec<u8>>,
    /// Receive rings this thread reads itself, by port.
    #[cfg(target_os = "linux")]
    pub(crate) rings: Vec<(u32, RxRing)>,
    /// UDP ports this thread reads itself.
    #[cfg(target_os = "linux")]
    pub(crate) udp: Vec<ReaderPort>,
    /// Wakes this thread from its wait on the rings and sockets when a
    /// message is queued (present when it reads either).
    #[cfg(target_os = "linux")]
    pub(crate) doorbell: Option<Arc<Doorbell>>,
}

impl Dataplane {
    /// Runs until [`Inbound::Stop`] or until every sender is gone.
    pub(crate) fn run(self) {
        #[cfg(target_os = "linux")]
        if let Some(doorbell) = self.doorbell.clone() {
            return self.run_with_rings(&doorbell);
        }
        self.run_on_channel();
    }

    /// Runs with interface rings or UDP sockets to read besides the
    /// channel: each round takes what is waiting on the channel, in every
    /// ring and in the sockets known to be readable, without waiting, and
    /// runs it under one device lock; with nothing waiting it sleeps in
    /// `poll` on the rings, the sockets and the doorbell.
    #[cfg(target_os = "linux")]
    fn run_with_rings(mut self, doorbell: &Doorbell) {
        let mut rings = std::mem::take(&mut self.rings);
        let mut udp = UdpInput::new(std::mem::take(&mut self.udp));
        let mut batch = Vec::new();
        loop {
            let mut stop = self.take_messages(&mut batch);
            let idle = batch.is_empty()
                && !stop
                && !rings.iter().any(|(_, r)| r.has_frames())
                && !udp.readable.contains(&true);
            if !idle && !udp.ports.is_empty() {
                // Busy: no sleep, but learn which sockets have datagrams
                // (one `poll` that does not wait).
                self.wait(&rings, &mut udp, doorbell, std::time::Duration::ZERO);
            }
            if idle {
                // Idle: make captures visible before sleeping.
                for (_, w) in self.pcap.iter_mut() {
                    let _ = w.flush();
                }
                doorbell.park();
                // A message queued before `park` is seen here; one queued
                // after it rings the doorbell.
                stop = self.take_messages(&mut batch);
                if batch.is_empty() && !stop {
                    self.wait(&rings, &mut udp, doorbell, READ_POLL);
                }
                let _ = doorbell.unpark();
            }
            self.handle_batch(&batch, &mut rings, &mut udp);
            batch.clear();
            if stop {
                break;
            }
        }
        for (_, w) in self.pcap.iter_mut() {
            let _ = w.flush();
        }
        tracing::debug!("packet thread stopped");
    }

    /// Waits up to `timeout` for a frame in `rings`, a datagram in `udp`'s
    /// sockets (noting which are readable) or the doorbell.
    #[cfg(target_os = "linux")]
    fn wait(
        &self,
        rings: &[(u32, RxRing)],
        udp: &mut UdpInput,
        doorbell: &Doorbell,
        timeout: std::time::Duration,
    ) {
        let waiting: Vec<&RxRing> = rings.iter().map(|(_, r)| r).collect();
        match wait_any_or_sockets(
            &waiting,
            &udp.fds,
            &mut udp.readable,
            doorbell.waker(),
            timeout,
        ) {
            Ok(errors) => {
                for (i, e) in errors {
                    let (port, ring) = &rings[i];
                    tracing::warn!(port, interface = ring.name(), "receive: {e}");
                }
            }
            Err(e) => {
                tracing::error!("waiting for frames: {e}");
                std::thread::sleep(timeout);
            }
        }
    }

    /// Moves up to [`BATCH_FRAMES`] frames' worth of waiting messages into
    /// `batch` without waiting. Returns whether to stop after them.
    #[cfg(target_os = "linux")]
    fn take_messages(&mut self, batch: &mut Vec<FrameBatch>) -> bool {
        let mut frames = batch.iter().map(FrameBatch::len).sum::<usize>();
        while frames < BATCH_FRAMES {
            match self.inbound.try_recv() {
                Ok(Inbound::Stop) | Err(TryRecvError::Disconnected) => return true,
                Ok(Inbound::Frames(m)) => {
                    frames += m.len();
                    batch.push(m);
                }
                Err(TryRecvError::Empty) => break,
            }
        }
        false
    }

    /// Runs with the channel as the only input, blocking on it when idle.
    fn run_on_channel(mut self) {
        let mut batch = Vec::new();
        #[cfg(target_os = "linux")]
        let mut no_udp = UdpInput::new(Vec::new());
        'run: loop {
            let first = match self.inbound.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => {
                    // Idle: make captures visible before blocking.
                    for (_, w) in self.pcap.iter_mut() {
                        let _ = w.flush();
                    }
                    match self.inbound.recv() {
                        Ok(m) => m,
                        Err(_) => break,
                    }
                }
                Err(TryRecvError::Disconnected) => break,
            };
            let Inbound::Frames(first) = first else {
                break;
            };
            let mut frames = first.len();
            batch.push(first);
            let mut stop = false;
            while frames < BATCH_FRAMES {
                match self.inbound.try_recv() {
                    Ok(Inbound::Stop) => {
                        stop = true;
                        break;
                    }
                    Ok(Inbound::Frames(m)) => {
                        frames += m.len();
                        batch.push(m);
                    }
                    Err(_) => break,
                }
            }
            #[cfg(target_os = "linux")]
            self.handle_batch(&batch, &mut [], &mut no_udp);
            #[cfg(not(target_os = "linux"))]
            self.handle_batch(&batch, &mut []);
            batch.clear();
            if stop {
                break 'run;
            }
        }
        for (_, w) in self.pcap.iter_mut() {
            let _ = w.flush();
        }
        tracing::debug!("packet thread stopped");
    }

    /// Runs every frame of `batch` in order, then every frame waiting in
    /// `rings` (straight from ring memory), then up to [`BATCH_FRAMES`]
    /// frames from `udp`'s readable sockets (straight from the receive
    /// buffer), under one device lock; then sends the outputs.
    fn handle_batch(
        &mut self,
        batch: &[FrameBatch],
        rings: &mut [(u32, RxRing)],
        #[cfg(target_os = "linux")] udp: &mut UdpInput,
    ) {
        let state = self.state.clone();
        let program = {
            let mut guard = state.lock_device();
            let mut device = guard.as_mut();
            for message in batch {
                // The frames of a message were read in one go: one
                // timestamp for all of them (the clock read per frame was
                // a few percent of this thread).
                let now = self.now_us();
                for (port, data) in message.iter() {
                    self.ingress(device.as_deref_mut(), port, data, now);
                }
            }
            #[cfg(target_os = "linux")]
            for (port, ring) in rings.iter_mut() {
                if !ring.has_frames() {
                    continue;
                }
                // Frames from a ring enter the program stamped with when
                // the kernel received them (as a switch stamps a frame at
                // its MAC), on the switch's monotonic clock: the two clocks
                // are read once per ring, not once per frame.
                let mono_us = self.start.elapsed().as_micros() as u64;
                let real_ns = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64);
                ring.recv_ready_stamped(|data, stamp_ns| {
                    let age_us = real_ns.saturating_sub(stamp_ns) / 1000;
                    let now = self.stamp(mono_us.saturating_sub(age_us));
                    self.ingress(device.as_deref_mut(), *port, data, now);
                });
            }
            #[cfg(target_os = "linux")]
            self.read_udp(udp, &mut device);
            #[cfg(not(target_os = "linux"))]
            let _ = rings;
            device.map(|d| d.program().clone())
        };
        if !self.packet_ins.is_empty() {
            let header = program.as_ref().and_then(|p| p.packet_in.as_ref());
            for frame in self.packet_ins.drain(..) {
                self.state.packet_in(&frame, header);
            }
        }
        self.send_pending();
    }

    /// Runs frames from `udp`'s readable sockets through the program, each
    /// socket read until it is empty, up to [`BATCH_FRAMES`] frames in all
    /// (a socket left unread stays readable, and is read first next time).
    /// Hellos, goodbyes and strangers' datagrams are counted on the way.
    #[cfg(target_os = "linux")]
    fn read_udp(&mut self, udp: &mut UdpInput, device: &mut Option<&mut Device>) {
        let UdpInput {
            ports,
            buffers,
            readable,
            next,
            ..
        } = udp;
        let count = ports.len();
        let mut budget = BATCH_FRAMES;
        for k in 0..count {
            let i = (*next + k) % count;
            if !readable[i] {
                continue;
            }
            let p = &ports[i];
            while budget > 0 {
                // One timestamp for each receive's datagrams, as for a
                // reader's batch.
                let now = self.now_us();
                let read = p.socket.recv_batch(buffers, |received, frame| {
                    if let crate::udp::Received::Frame(_) = received {
                        budget = budget.saturating_sub(1);
                        self.ingress(device.as_deref_mut(), p.port, frame, now);
                    } else {
                        p.note(&received);
                    }
                });
                match read {
                    Ok(0) => {
                        readable[i] = false;
                        break;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::error!(port = p.port, "UDP receive: {e}");
                        readable[i] = false;
                        break;
                    }
                }
            }
            if budget == 0 {
                // The socket that used the budget up goes first next round.
                *next = i;
                break;
            }
        }
    }

    /// The monotonic clock, µs since start, as a frame's timestamp.
    fn now_us(&mut self) -> u64 {
        self.stamp(self.start.elapsed().as_micros() as u64)
    }

    /// `us` as the next frame's timestamp: never behind the last frame's.
    fn stamp(&mut self, us: u64) -> u64 {
        self.last_us = us.max(self.last_us);
        self.last_us
    }

    /// One frame through the program (the device lock held) at time
    /// `now_us`: counts it, captures it, and queues its outputs.
    fn ingress(&mut self, device: Option<&mut Device>, port: u32, data: &[u8], now_us: u64) {
        let counters = self.ports.get(port).map(|p| &p.counters);
        if let Some(c) = counters {
            c.rx(data.len());
        }
        if !self.pcap.is_empty()
            && let Some(w) = self.pcap.get_mut(port)
        {
            let _ = w.write(data);
        }
        let Ok(ingress) = u16::try_from(port) else {
            return;
        };
        let Some(device) = device else {
            if let Some(c) = counters {
                c.drop_one();
            }
            tracing::trace!(port, "no pipeline loaded: frame dropped");
            return;
        };
        let mut outputs = std::mem::take(&mut self.outputs);
        device.process_reusing(now_us, ingress, data, &mut outputs, &mut self.spare);
        if outputs.is_empty() {
            if let Some(c) = counters {
                c.drop_one();
            }
            tracing::trace!(port, len = data.len(), "dropped by the pipeline");
        }
        let cpu_port = self.state.cpu_port;
        for out in outputs.drain(..) {
            let out_port = u32::from(out.port);
            if Some(out_port) == cpu_port {
                self.packet_ins.push(out.data);
                continue;
            }
            // Captured when the pipeline emits it, as before batching.
            if !self.pcap.is_empty()
                && let Some(w) = self.pcap.get_mut(out_port)
            {
                let _ = w.write(&out.data);
            }
            self.pending.get_or_default(out_port).push(out.data);
        }
        self.outputs = outputs;
    }

    /// Sends each port's queued frames, one call per port.
    fn send_pending(&mut self) {
        for (port, frames) in self.pending.iter_mut() {
            if frames.is_empty() {
                continue;
            }
            match self.ports.get_mut(port) {
                Some(out) => out.egress.send(frames, &out.counters),
                None => {
                    tracing::trace!(port, "frame for a port that does not exist");
                    for _ in frames.iter() {
                        self.state.count_unknown_port();
                    }
                }
            }
            reuse(&mut self.spare, frames.drain(..));
        }
    }
}

/// The UDP ports the packet thread reads, with what it knows of them.
#[cfg(target_os = "linux")]
struct UdpInput {
    ports: Vec<ReaderPort>,
    /// The ports' descriptors, to wait on.
    fds: Vec<i32>,
    /// Whether each port's socket had a datagram (or an error) waiting at
    /// the last look and has not been read empty since.
    readable: Vec<bool>,
    /// The port read first in the next round.
    next: usize,
    buffers: RecvBuffers,
}

#[cfg(target_os = "linux")]
impl UdpInput {
    fn new(ports: Vec<ReaderPort>) -> UdpInput {
        UdpInput {
            fds: ports.iter().map(|p| p.socket.raw_fd()).collect(),
            readable: vec![false; ports.len()],
            next: 0,
            // No buffers (half a MiB) for a thread with no UDP port.
            buffers: if ports.is_empty() {
                RecvBuffers::none()
            } else {
                RecvBuffers::default()
            },
            ports,
        }
    }
}

/// Keeps sent frames' buffers in `spare` for the program to deparse into,
/// up to [`SPARE_BUFFERS`]; frees the rest.
fn reuse(spare: &mut Vec<Vec<u8>>, sent: impl Iterator<Item = Vec<u8>>) {
    let room = SPARE_BUFFERS.saturating_sub(spare.len());
    spare.extend(sent.take(room));
}
