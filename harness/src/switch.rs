//! esa-switch in process, serving P4Runtime on a loopback TCP port from a
//! tokio runtime of its own.
//!
//! Owning the runtime makes stopping the switch a crash as a controller
//! sees it: shutting the runtime down drops the server and every connection
//! task, so open arbitration streams break at once (a graceful tonic
//! shutdown would wait for them to end).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
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
        self.memory_ports.remove(&n).map(PortLink)
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
    /// the bind for up to 5 s while the old socket goes away. Its ports are
    /// the same interfaces or UDP addresses (hosts on UDP-carried ports
    /// announce themselves again), or the in-memory ports not taken.
    pub fn restart(self) -> Result<EmbeddedSwitch, HarnessError> {
        self.restart_after(Duration::ZERO)
    }

    /// [`EmbeddedSwitch::restart`], the switch down for `down` between the
    /// stop and the start (a power cycle, a reboot).
    pub fn restart_after(self, down: Duration) -> Result<EmbeddedSwitch, HarnessError> {
        let (addr, config) = (self.addr, self.config.clone());
        let ports = match &self.ports {
            Ports::Memory(_) => Ports::Memory(self.memory_ports.keys().copied().collect()),
            other => other.clone(),
        };
        self.stop();
        std::thread::sleep(down);
        EmbeddedSwitch::start_on(config, ports, addr)
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

/// An in-memory switch port as a host's [`FrameLink`].
#[derive(Debug)]
pub struct PortLink(MemoryPort);

impl PortLink {
    /// The switch port it is.
    pub fn port(&self) -> u32 {
        self.0.port()
    }
}

impl FrameLink for PortLink {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        self.0.send(frame).map_err(|_| LinkClosed)
    }
    fn send_frames(&mut self, frames: Vec<Vec<u8>>) -> Result<(), LinkClosed> {
        self.0.send_frames(frames).map_err(|_| LinkClosed)
    }
    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        self.0.try_recv()
    }
    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        self.0.recv_timeout(timeout)
    }
}
