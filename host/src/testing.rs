//! Test support: a model switch, until esa-switch exists.
//!
//! [`ModelSwitch`] puts esa-core's [`Pool`] — the reference model of the P4
//! program — behind a [`Transport`]. Each host address gets a switch port;
//! a payload arriving from a host is wrapped in Ethernet/IPv4/UDP, run
//! through [`Pool::process`] and [`Pool::egress`], and what leaves each port
//! is unwrapped and sent to the host behind it. With aggregation off it is
//! the host-only baseline instead: every `DATA` goes to the job's PS as a
//! `FALLBACK` and `RESULT`/`QUERY` packets go to the job's group.

use crate::clock::Clock;
use crate::error::HostError;
use crate::transport::{Datagram, Transport};
use esa_core::constants::{ESA_VERSION, MAX_PRIORITY, esa_payload_len};
use esa_core::job::{Mode, SlotRange};
use esa_core::plan::JobPlan;
use esa_core::pool::{HostOnlyRoute, JobCounters, Pool, PoolConfig, host_only_route};
use esa_core::wire::frame::ESA_OFFSET;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::transport::RECV_BATCH;

/// The switch's own addresses in the frames it builds.
use esa_core::addressing::{SWITCH_IP, SWITCH_MAC, host_ip, host_mac};

/// One job as the controller would admit it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelJob {
    /// Job id.
    pub job: u16,
    /// Sharing mode.
    pub mode: Mode,
    /// Highest priority the job may use.
    pub max_priority: u8,
    /// Worker addresses, in worker-id order; the fan-in is their number.
    pub workers: Vec<SocketAddr>,
    /// The job's parameter server.
    pub ps: SocketAddr,
    /// `switchml` only: first slot of the job's range (others share the pool).
    pub slot_base: u16,
    /// `switchml` only: the range's mask.
    pub slot_mask: u16,
}

impl ModelJob {
    /// An `esa` job with these hosts and the full priority range.
    pub fn new(job: u16, workers: Vec<SocketAddr>, ps: SocketAddr) -> ModelJob {
        ModelJob {
            job,
            mode: Mode::Esa,
            max_priority: MAX_PRIORITY,
            workers,
            ps,
            slot_base: 0,
            slot_mask: 0,
        }
    }
}

/// Counters of the model switch's I/O (the pool keeps its own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelSwitchStats {
    /// Datagrams received.
    pub received: u64,
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams from addresses that are no job's host.
    pub unknown_sender: u64,
    /// Datagrams of the wrong length for the lanes (not ESA payloads).
    pub bad_length: u64,
    /// Host-only mode: packets dropped (unknown job, wrong type).
    pub bypass_dropped: u64,
}

#[derive(Debug, Clone)]
struct BypassJob {
    ps_port: u16,
    members: Vec<u16>,
}

/// esa-core's pool model behind a transport.
#[derive(Debug)]
pub struct ModelSwitch<T: Transport> {
    pool: Pool,
    transport: T,
    lanes: usize,
    aggregate: bool,
    ports: HashMap<SocketAddr, u16>,
    /// `addrs[port - 1]` is the host behind `port`.
    addrs: Vec<SocketAddr>,
    bypass: HashMap<u16, BypassJob>,
    template: Vec<u8>,
    clock: Clock,
    rx: Vec<Datagram>,
    tx: Vec<Datagram>,
    stats: ModelSwitchStats,
}

impl<T: Transport> ModelSwitch<T> {
    /// An aggregating switch with this pool over `transport`.
    pub fn new(pool: PoolConfig, transport: T) -> Result<ModelSwitch<T>, HostError> {
        let lanes = pool.lanes;
        let pool = Pool::new(pool).map_err(|e| HostError::ModelSwitch(e.to_string()))?;
        let dummy = EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::NONE,
            slot: 0,
            key: Key(0),
            bitmap: 0,
            fan_in: 0,
            count: 0,
            exponent: 0,
            worker: 0,
        };
        let template = FrameRepr {
            src_mac: MacAddr::local(1),
            dst_mac: SWITCH_MAC,
            src_ip: Ipv4Addr::new(10, 0, 0, 1),
            dst_ip: SWITCH_IP,
            esa: dummy,
        }
        .emit(&[], lanes);
        Ok(ModelSwitch {
            pool,
            transport,
            lanes,
            aggregate: true,
            ports: HashMap::new(),
            addrs: Vec::new(),
            bypass: HashMap::new(),
            template,
            clock: Clock::new(),
            rx: Vec::with_capacity(RECV_BATCH),
            tx: Vec::new(),
            stats: ModelSwitchStats::default(),
        })
    }

    /// A switch that aggregates nothing: the host-only baseline, where the
    /// parameter servers sum every chunk.
    pub fn host_only(pool: PoolConfig, transport: T) -> Result<ModelSwitch<T>, HostError> {
        let mut switch = ModelSwitch::new(pool, transport)?;
        switch.aggregate = false;
        Ok(switch)
    }

    /// The switch's address, where hosts send.
    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// The pool model (counters, slots).
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// The pool's counters for `job`.
    pub fn counters(&self, job: u16) -> JobCounters {
        self.pool.counters(job)
    }

    /// I/O counters.
    pub fn stats(&self) -> ModelSwitchStats {
        self.stats
    }

    fn port_of(&mut self, addr: SocketAddr) -> u16 {
        if let Some(&p) = self.ports.get(&addr) {
            return p;
        }
        self.addrs.push(addr);
        let port = self.addrs.len() as u16;
        self.ports.insert(addr, port);
        let ip = match addr {
            SocketAddr::V4(a) => Ipv4Addr(a.ip().octets()),
            SocketAddr::V6(_) => host_ip(port),
        };
        self.pool.set_host(port, host_mac(port), ip);
        port
    }

    /// Admits a job: its hosts get ports, the job-table entry is written,
    /// the ports are authorized and each worker (and the PS) bound to its
    /// own, and the group is every worker and the PS.
    pub fn add_job(&mut self, job: ModelJob) -> Result<(), HostError> {
        let fan_in = u8::try_from(job.workers.len())
            .map_err(|_| HostError::ModelSwitch(format!("job {}: too many workers", job.job)))?;
        let mut members: Vec<u16> = job.workers.iter().map(|&a| self.port_of(a)).collect();
        let ps_port = self.port_of(job.ps);
        members.push(ps_port);
        let own = SlotRange {
            base: job.slot_base,
            mask: job.slot_mask,
        };
        let pool = SlotRange::whole_pool(self.pool.config().slots);
        let slots = SlotRange::for_mode(job.mode, pool, own);
        let entry = JobPlan::new(job.job, fan_in, job.mode, slots).entry(
            job.max_priority,
            job.job,
            ps_port,
        );
        self.pool
            .insert_job(job.job, entry)
            .map_err(|e| HostError::ModelSwitch(e.to_string()))?;
        // worker w is on members[w]
        self.pool
            .authorize_members(job.job, &members[..usize::from(fan_in)]);
        self.pool.set_group(job.job, members.clone());
        self.bypass.insert(job.job, BypassJob { ps_port, members });
        Ok(())
    }

    /// Forwards what has arrived, waiting at most `max_wait` for something;
    /// returns the datagrams handled.
    pub fn step(&mut self, max_wait: Duration) -> Result<usize, HostError> {
        let mut n = self.transport.recv_batch(&mut self.rx, RECV_BATCH)?;
        if n == 0 {
            if !self.transport.wait(max_wait)? {
                return Ok(0);
            }
            n = self.transport.recv_batch(&mut self.rx, RECV_BATCH)?;
        }
        self.stats.received += n as u64;
        let now = self.clock.now_us();
        let rx = std::mem::take(&mut self.rx);
        for d in &rx {
            self.forward(d, now);
        }
        self.rx = rx;
        self.rx.clear();
        self.stats.sent += self.tx.len() as u64;
        self.transport.send_batch(&mut self.tx)?;
        Ok(n)
    }

    fn forward(&mut self, d: &Datagram, now: u64) {
        let Some(&port) = self.ports.get(&d.peer) else {
            self.stats.unknown_sender += 1;
            return;
        };
        let payload_len = esa_payload_len(self.lanes);
        if d.payload.len() != payload_len {
            self.stats.bad_length += 1;
            return;
        }
        if !self.aggregate {
            self.bypass(port, &d.payload);
            return;
        }
        let mut frame = self.template.clone();
        frame[ESA_OFFSET..ESA_OFFSET + payload_len].copy_from_slice(&d.payload);
        let decision = self.pool.process(&frame, port, now);
        let Some(emit) = decision.emit else {
            return;
        };
        for (out_port, out) in self.pool.egress(&emit) {
            let Some(&peer) = self.addrs.get(usize::from(out_port).wrapping_sub(1)) else {
                continue;
            };
            self.tx.push(Datagram {
                peer,
                payload: out[ESA_OFFSET..ESA_OFFSET + payload_len].to_vec(),
            });
        }
    }

    /// Host-only forwarding ([`host_only_route`]): `DATA` to the PS as
    /// `FALLBACK`, `PROBE` to the PS, `RESULT`, `QUERY` and the PS's
    /// answers to the group but the sender.
    fn bypass(&mut self, port: u16, payload: &[u8]) {
        let Ok((repr, _)) = EsaRepr::from_payload(payload, self.lanes) else {
            self.stats.bypass_dropped += 1;
            return;
        };
        let Some(job) = self.bypass.get(&repr.key.job()) else {
            self.stats.bypass_dropped += 1;
            return;
        };
        if !job.members.contains(&port) {
            self.stats.bypass_dropped += 1;
            return;
        }
        let Some((route, packet_type)) = host_only_route(repr.packet_type) else {
            self.stats.bypass_dropped += 1;
            return;
        };
        let ports: Vec<u16> = match route {
            HostOnlyRoute::Ps => vec![job.ps_port],
            // As the switch relays: never back to the sender.
            HostOnlyRoute::Group => job.members.iter().copied().filter(|&p| p != port).collect(),
        };
        let mut out = payload.to_vec();
        if packet_type != repr.packet_type {
            out[0] = (ESA_VERSION << 4) | packet_type as u8;
        }
        for p in ports {
            if let Some(&peer) = self.addrs.get(usize::from(p) - 1) {
                self.tx.push(Datagram {
                    peer,
                    payload: out.clone(),
                });
            }
        }
    }
}

impl<T: Transport + 'static> ModelSwitch<T> {
    /// Runs the switch on its own thread until the handle stops it.
    pub fn spawn(mut self) -> ModelSwitchHandle<T> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let addr = self.local_addr();
        let thread = std::thread::Builder::new()
            .name("model-switch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    self.step(Duration::from_millis(20))?;
                }
                Ok(self)
            });
        ModelSwitchHandle {
            stop,
            addr,
            thread: Some(thread),
        }
    }
}

type SwitchThread<T> = std::io::Result<JoinHandle<Result<ModelSwitch<T>, HostError>>>;

/// A model switch running on its own thread; dropping the handle stops it.
#[derive(Debug)]
pub struct ModelSwitchHandle<T: Transport> {
    stop: Arc<AtomicBool>,
    addr: SocketAddr,
    thread: Option<SwitchThread<T>>,
}

impl<T: Transport> ModelSwitchHandle<T> {
    /// The switch's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops the switch and gives it back (for its counters).
    pub fn stop(mut self) -> Result<ModelSwitch<T>, HostError> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take() {
            Some(Ok(t)) => t
                .join()
                .unwrap_or_else(|_| Err(HostError::ModelSwitch("switch thread panicked".into()))),
            Some(Err(e)) => Err(HostError::ModelSwitch(format!("cannot start thread: {e}"))),
            None => Err(HostError::ModelSwitch("already stopped".into())),
        }
    }
}

impl<T: Transport> Drop for ModelSwitchHandle<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(Ok(t)) = self.thread.take() {
            let _ = t.join();
        }
    }
}
