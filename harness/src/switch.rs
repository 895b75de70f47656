//! esa-switch in process, serving P4Runtime on a loopback TCP port from a
//! tokio runtime of its own.
//!
//! Owning the runtime makes stopping the switch a crash as a controller
//! sees it: shutting the runtime down drops the server and every connection
//! task, so open arbitration streams break at once (a graceful tonic
//! shutdown would wait for them to end). Hosts reach a switch's in-memory
//! ports as [`PortLink`]s; two switches' ports are joined by a [`Cable`].

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use esa_host::transport::{FrameLink, LinkClosed};
use esa_switch::{MemoryPort, Program, Switch, SwitchConfig};
use tokio::runtime::Runtime;

use crate::HarnessError;

/// The ports of an embedded switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ports {
    /// In-memory ports with these numbers; the hosts' ends are
    /// [`EmbeddedSwitch::take_port`]'s.
    Memory(Vec<u32>),
    /// Linux interfaces: (switch port, interface name).
    Interfaces(Vec<(u32, String)>),
    /// Ports carried over UDP, one Ethernet frame per datagram: (switch
    /// port, the address its socket binds).
    Udp(Vec<(u32, SocketAddr)>),
}

impl Ports {
    /// In-memory ports `1..=n`.
    pub fn memory(n: u16) -> Ports {
        Ports::Memory((1..=u32::from(n)).collect())
    }
}

/// How long [`EmbeddedSwitch::start_on`] retries binding the address that
/// a stopped switch's socket may still hold.
const BIND_RETRY: Duration = Duration::from_secs(5);

/// A running esa-switch and its P4Runtime server; stopped (as a crash) when
/// dropped.
#[derive(Debug)]
pub struct EmbeddedSwitch {
    addr: SocketAddr,
    config: SwitchConfig,
    /// What it was started on, for a restart.
    ports: Ports,
    switch: Arc<Switch>,
    memory_ports: BTreeMap<u32, MemoryPort>,
    /// In-memory ports taken by hosts: a restart hands their links the
    /// fresh switch's ports.
    taken: BTreeMap<u32, Arc<Rewire>>,
    runtime: Option<Runtime>,
}

impl EmbeddedSwitch {
    /// Builds a switch with `config` on `ports`, with no program (a
    /// controller pushes one), and serves its P4Runtime on `bind` (port 0:
    /// any free port).
    pub fn start(
        config: SwitchConfig,
        ports: Ports,
        bind: SocketAddr,
    ) -> Result<EmbeddedSwitch, HarnessError> {
        EmbeddedSwitch::start_binding(config, ports, None, bind, Duration::ZERO)
    }

    /// [`EmbeddedSwitch::start`] with `program` loaded already (a switch
    /// started with a program file); [`EmbeddedSwitch::restart`] starts
    /// the fresh switch without it.
    pub fn start_programmed(
        config: SwitchConfig,
        ports: Ports,
        program: Program,
        bind: SocketAddr,
    ) -> Result<EmbeddedSwitch, HarnessError> {
        EmbeddedSwitch::start_binding(config, ports, Some(program), bind, Duration::ZERO)
    }

    /// [`EmbeddedSwitch::start`] on the address a stopped switch held,
    /// retrying the bind for up to 5 s while its socket goes away.
    pub fn start_on(
        config: SwitchConfig,
        ports: Ports,
        addr: SocketAddr,
    ) -> Result<EmbeddedSwitch, HarnessError> {
        EmbeddedSwitch::start_binding(config, ports, None, addr, BIND_RETRY)
    }

    fn start_binding(
        config: SwitchConfig,
        ports: Ports,
        program: Option<Program>,
        bind: SocketAddr,
        retry: Duration,
    ) -> Result<EmbeddedSwitch, HarnessError> {
        let listener = bind_retrying(bind, retry)?;
        let addr = listener
            .local_addr()
            .map_err(|e| HarnessError::io("reading the P4Runtime address", e))?;
        let mut builder = Switch::builder(config.clone());
        match &ports {
            Ports::Memory(numbers) => builder = builder.memory_ports(numbers.iter().copied()),
            Ports::Interfaces(interfaces) => {
                for (port, name) in interfaces {
                    builder = builder.interface(*port, name.clone());
                }
            }
            Ports::Udp(sockets) => {
                for (port, addr) in sockets {
                    builder = builder.udp_port(*port, *addr, None);
                }
            }
        }
        if let Some(program) = program {
            builder = builder.program(program);
        }
        let (switch, memory_ports) = builder.build()?;
        let switch = Arc::new(switch);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("esa-switch")
            .enable_all()
            .build()
            .map_err(|e| HarnessError::io("starting the switch's tokio runtime", e))?;
        let service = switch.service();
        runtime.spawn(async move {
            let listener = match tokio::net::TcpListener::from_std(listener) {
                Ok(l) => l,
                Err(e) => {
                    tracing::error!("P4Runtime listener: {e}");
                    return;
                }
            };
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            if let Err(e) = p4runtime_proto::tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(incoming)
                .await
            {
                tracing::error!("P4Runtime server: {e}");
            }
        });
        Ok(EmbeddedSwitch {
            addr,
            config,
            ports,
            switch,
            memory_ports: memory_ports.into_iter().map(|p| (p.port(), p)).collect(),
            taken: BTreeMap::new(),
            runtime: Some(runtime),
        })
    }

    /// Its P4Runtime address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its P4Runtime device id.
    pub fn device_id(&self) -> u64 {
        self.config.device_id
    }

    /// The switch (port counters, interface I/O).
    pub fn switch(&self) -> &Switch {
        &self.switch
    }

    /// In-memory port `n`, while not taken.
    pub fn memory_port(&self, n: u32) -> Option<&MemoryPort> {
        self.memory_ports.get(&n)
    }

    /// Takes in-memory port `n` as a host's frame link; `None` when it was
    /// taken already or does not exist.
    pub fn take_port(&mut self, n: u32) -> Option<PortLink> {
        let port = self.memory_ports.remove(&n)?;
        let rewire = Arc::new(Rewire::default());
        self.taken.insert(n, Arc::clone(&rewire));
        Some(PortLink { port, rewire })
    }

    /// Stops the switch as a crash would: the listener and every
    /// connection close; pipeline and entries are gone. Blocks until the
    /// server's tasks are dropped (up to 5 s); from async code call it on a
    /// blocking thread.
    pub fn stop(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(5));
        }
    }

    /// Stops this switch and starts a fresh one (no program, no entries)
    /// with the same configuration on the same P4Runtime address, retrying
    /// the bind for up to 5 s while the old socket goes away, on the same
    /// ports: the same interfaces or UDP addresses (hosts on UDP-carried
    /// ports announce themselves again), the same in-memory ports (the
    /// hosts' links move to the fresh switch's).
    pub fn restart(self) -> Result<EmbeddedSwitch, HarnessError> {
        self.restart_after(Duration::ZERO)
    }

    /// [`EmbeddedSwitch::restart`], the switch down for `down` between the
    /// stop and the start (a power cycle, a reboot). While it is down,
    /// hosts on in-memory ports lose what they send and receive nothing,
    /// as on a cable to a dark switch.
    pub fn restart_after(self, down: Duration) -> Result<EmbeddedSwitch, HarnessError> {
        let (addr, config, ports) = (self.addr, self.config.clone(), self.ports.clone());
        let taken = self.taken.clone();
        for rewire in taken.values() {
            rewire.down.store(true, Ordering::SeqCst);
        }
        self.stop();
        std::thread::sleep(down);
        let mut fresh = EmbeddedSwitch::start_on(config, ports, addr)?;
        for (n, rewire) in taken {
            let Some(port) = fresh.memory_ports.remove(&n) else {
                continue;
            };
            *rewire.next.lock().unwrap_or_else(|e| e.into_inner()) = Some(port);
            rewire.down.store(false, Ordering::SeqCst);
            fresh.taken.insert(n, rewire);
        }
        Ok(fresh)
    }
}

impl Drop for EmbeddedSwitch {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Binds `addr`, retrying for up to `retry` while it is in use.
fn bind_retrying(addr: SocketAddr, retry: Duration) -> Result<std::net::TcpListener, HarnessError> {
    let end = Instant::now() + retry;
    loop {
        match std::net::TcpListener::bind(addr) {
            Ok(listener) => {
                listener
                    .set_nonblocking(true)
                    .map_err(|e| HarnessError::io("configuring the P4Runtime listener", e))?;
                return Ok(listener);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && Instant::now() < end => {
                tracing::debug!("bind {addr}: {e}; retrying");
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(HarnessError::io(format!("binding P4Runtime to {addr}"), e)),
        }
    }
}

/// An in-memory switch port as a host's [`FrameLink`]. It follows its
/// switch through a restart ([`EmbeddedSwitch::restart_after`]): dark
/// while the switch is down, then on the fresh switch's port.
#[derive(Debug)]
pub struct PortLink {
    port: MemoryPort,
    rewire: Arc<Rewire>,
}

/// What a restart tells a taken port's link: the switch is down, and the
/// fresh switch's port once it is up.
#[derive(Debug, Default)]
struct Rewire {
    /// Raised before the old switch stops, lowered after `next` is set.
    down: AtomicBool,
    next: Mutex<Option<MemoryPort>>,
}

impl PortLink {
    /// The switch port it is.
    pub fn port(&self) -> u32 {
        self.port.port()
    }

    /// The port to use now, `None` while the switch is down; moves to the
    /// fresh switch's port after a restart.
    fn live(&mut self) -> Option<&MemoryPort> {
        if self.rewire.down.load(Ordering::SeqCst) {
            return None;
        }
        if let Some(next) = self
            .rewire
            .next
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            self.port = next;
        }
        Some(&self.port)
    }

    /// A send's outcome: a stopped switch closes the link unless it is
    /// only down for a restart (then the frame is lost, as on a wire).
    fn sent(&self, result: Result<(), esa_switch::Stopped>) -> Result<(), LinkClosed> {
        match result {
            Err(_) if !self.rewire.down.load(Ordering::SeqCst) => Err(LinkClosed),
            _ => Ok(()),
        }
    }
}

impl FrameLink for PortLink {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        let result = self.live().map_or(Ok(()), |p| p.send(frame));
        self.sent(result)
    }
    fn send_frames(&mut self, frames: Vec<Vec<u8>>) -> Result<(), LinkClosed> {
        let result = self.live().map_or(Ok(()), |p| p.send_frames(frames));
        self.sent(result)
    }
    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        self.live()?.try_recv()
    }
    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        match self.live() {
            Some(port) => port.recv_timeout(timeout),
            None => {
                std::thread::sleep(timeout);
                None
            }
        }
    }
}

/// Two in-memory ports, each of its own switch, joined as by a cable:
/// what one switch sends out of its port enters the other on its port.
/// A thread per direction carries the frames; dropping the cable stops
/// them. A cable does not follow a switch through a restart (its ends
/// stay on the ports it was made with).
#[derive(Debug)]
pub struct Cable {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// How long a cable's thread waits for a frame before it looks whether
/// the cable was dropped.
const CABLE_POLL: Duration = Duration::from_millis(20);

impl Cable {
    /// Joins `a` and `b` (each taken with [`EmbeddedSwitch::take_port`]).
    pub fn join(a: PortLink, b: PortLink) -> Result<Cable, HarnessError> {
        let stop = Arc::new(AtomicBool::new(false));
        let (a, b) = (a.port, b.port);
        let (to_a, to_b) = (a.sender(), b.sender());
        let name = format!("esa-cable-{}-{}", a.port(), b.port());
        let mut threads = Vec::new();
        for (from, to) in [(a, to_b), (b, to_a)] {
            let stop = Arc::clone(&stop);
            let thread = std::thread::Builder::new()
                .name(name.clone())
                .spawn(move || carry(&from, &to, &stop))
                .map_err(|e| HarnessError::io("starting a cable's thread", e))?;
            threads.push(thread);
        }
        Ok(Cable { stop, threads })
    }
}

/// Carries the frames `from` sends out of its switch into `to` until
/// `stop`, or until `to`'s switch has stopped.
fn carry(from: &MemoryPort, to: &esa_switch::PortSender, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        let waited = Instant::now();
        match from.recv_timeout(CABLE_POLL) {
            Some(frame) => {
                if to.send(&frame).is_err() {
                    return;
                }
            }
            // A stopped switch's port answers at once: wait as if for a
            // frame, not spin, until the cable is dropped.
            None => std::thread::sleep(CABLE_POLL.saturating_sub(waited.elapsed())),
        }
    }
}

impl Drop for Cable {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}
