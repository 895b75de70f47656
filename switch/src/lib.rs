//! # esa-switch
//!
//! ESA's software switch: a P4 program executed by [`p4sim`] behind a
//! P4Runtime gRPC server, with packets on in-memory ports (in-process use)
//! or Linux interfaces (`AF_PACKET`). It stands in for BMv2's
//! `simple_switch_grpc`, so P4Runtime tools written for BMv2 work against
//! it.
//!
//! ## Layout
//! - [`program`]: a compiled program, its P4Info (p4sim's, as protobuf by
//!   `p4runtime_proto::from_p4sim`), the id lookups and the controller
//!   headers' packing; [`codec`]: P4Runtime bytestrings against their
//!   fields.
//! - [`device`]: P4Runtime entities on a p4sim `V1Switch`, a module per
//!   kind (tables and defaults, direct counters, counter and register
//!   arrays, multicast groups and clone sessions).
//! - `state`: what the server and the packet thread share (the device
//!   lock, the configured pipeline, arbitration, the CPU port, counters);
//!   below both, so neither reaches into the other.
//! - [`server`]: the P4Runtime service (arbitration by
//!   `p4runtime_proto::arbitration`, pipeline config,
//!   Write / Read, packet I/O, Capabilities).
//! - `dataplane`: the packet thread; `inbound`: its channel, whose one
//!   message is a batch of frames with their ports; `egress`: a port's
//!   way out, one implementation per kind of port.
//! - [`ports`]: in-memory ports, port counters and how interfaces move
//!   frames; `interface`: opening an interface port and its reader;
//!   [`afpacket`]: Linux interfaces (receive rings, batched sends, the
//!   per-frame fallback); [`xdp`]: sending through `AF_XDP`; [`udp`]:
//!   ports carried over UDP (frames in datagrams; no root); [`pcap`]:
//!   capture files.
//! - [`run`]: the switch as a process (`esa switch`, whose flags are the
//!   `esa` binary's): ports, program and P4Runtime server until shutdown.
//!
//! ## Threads, and why registers behave as in P4
//!
//! P4 register semantics: each packet sees the effects of every packet
//! before it on the same register cell (and likewise for counters, and
//! for table entries the control plane changes). The switch
//! keeps this by running the program on **one thread only**, the packet
//! thread (`esa-switch-pipeline`): it owns no state of its own but takes
//! the device lock once per batch and runs the batch's frames one after
//! another, each to completion, in arrival order per port. No two frames
//! are ever in the program at once, so no register access can interleave,
//! and no cell needs a lock or an atomic of its own. P4Runtime reads and
//! writes take the same lock between batches, so a controller sees (and
//! changes) state between two packets, never in the middle of one.
//!
//! Threads are added only around that one thread, for I/O:
//! - interface rings ([`InterfaceIo::Ring`]) are read by the packet thread
//!   itself by default — ring, program and send (an `AF_XDP` socket,
//!   [`xdp::XdpSender`], or `sendmmsg`) on one core with no hand-off,
//!   which measured fastest on the 2-core development machines (README).
//!   With [`RingConfig::reader_thread`] each interface gets a reader
//!   thread that copies batches out of its ring into the channel;
//!   per-frame interfaces always have reader threads;
//! - UDP ports ([`udp`]) are read by the packet thread itself on Linux,
//!   in the same `poll` as the rings (one thread switch less per burst:
//!   a fifth of the switch's CPU under `esa local` with four ranks on two
//!   cores); elsewhere by one reader thread for all of them;
//! - the P4Runtime server runs on tokio's threads and reaches the device
//!   only through the lock.
//!
//! Reader threads only move bytes: the order in which one port's frames
//! enter the channel is their arrival order, and the packet thread takes
//! them in channel order, so frames of one port are processed — and leave
//! each egress port — in the order they arrived. Frames of different
//! ports have no order between them on the wire either. A second pipeline
//! thread would need the state split between threads (per-cell locks, or
//! packets steered by the cell they touch, as Tofino's pipes own disjoint
//! registers); the bench shows the one thread is not the bottleneck here
//! (three quarters of its time is the kernel's transmit and the veth's
//! delivery), so there is one.
//!
//! ## Use
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use esa_switch::{Switch, SwitchConfig};
//! let (switch, ports) = Switch::builder(SwitchConfig::default())
//!     .memory_ports([1, 2, 3])
//!     .build()?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! tokio::spawn(switch.serve(listener, std::future::pending()));
//! ports[0].send(&[0u8; 64])?;
//! # Ok(()) }
//! ```

#[cfg(target_os = "linux")]
pub mod afpacket;
pub mod codec;
mod dataplane;
pub mod device;
mod egress;
pub mod error;
mod inbound;
#[cfg(target_os = "linux")]
mod interface;
pub mod pcap;
pub mod ports;
pub mod program;
pub mod roles;
pub mod run;
pub mod server;
mod state;
pub mod udp;
#[cfg(target_os = "linux")]
pub mod xdp;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Instant;

use p4runtime_proto::P4RuntimeServer;

pub use error::{LoadError, SwitchError};
pub use ports::{InterfaceIo, MemoryPort, PortSender, PortStats, RingConfig, RingKind, Stopped};
pub use program::{Program, Source};
pub use server::Service;

use dataplane::{Port, PortMap};
use egress::{MemoryEgress, UdpEgress};
use inbound::{Inbound, InboundSender};
#[cfg(target_os = "linux")]
use interface::{Receive, open_interface};
use ports::PortCounters;
use state::SwitchState;

/// Switch-wide settings.
#[derive(Debug, Clone, Default)]
pub struct SwitchConfig {
    /// The P4Runtime device id (BMv2's default is 0).
    pub device_id: u64,
    /// The CPU port: frames the program sends there become PacketIns,
    /// PacketOuts enter the program there. `None`: no packet I/O.
    pub cpu_port: Option<u32>,
    /// Where `#include` looks for programs sent over P4Runtime; empty means
    /// only the built-in `core.p4` / `v1model.p4` (the file system is never
    /// read on a client's behalf).
    pub include_dirs: Vec<PathBuf>,
    /// Write one pcap file per port into this folder.
    pub pcap_dir: Option<PathBuf>,
    /// How interface ports move frames (a receive ring and batched sends
    /// by default).
    pub interface_io: InterfaceIo,
    /// Which P4Runtime role may write what (default: the default role
    /// writes everything).
    pub roles: roles::RolePolicy,
}

/// Builds a [`Switch`].
#[derive(Debug)]
pub struct SwitchBuilder {
    config: SwitchConfig,
    program: Option<Program>,
    memory: Vec<u32>,
    interfaces: Vec<(u32, String)>,
    udp: Vec<(u32, SocketAddr, Option<SocketAddr>)>,
}

impl SwitchBuilder {
    /// Starts with this program loaded (otherwise the switch waits for
    /// SetForwardingPipelineConfig).
    pub fn program(mut self, program: Program) -> SwitchBuilder {
        self.program = Some(program);
        self
    }

    /// Adds in-memory ports; [`SwitchBuilder::build`] returns their ends in
    /// the order given.
    pub fn memory_ports(mut self, ports: impl IntoIterator<Item = u32>) -> SwitchBuilder {
        self.memory.extend(ports);
        self
    }

    /// Adds a Linux interface as port `port`.
    pub fn interface(mut self, port: u32, name: impl Into<String>) -> SwitchBuilder {
        self.interfaces.push((port, name.into()));
        self
    }

    /// Adds a port carried over UDP ([`udp`]): bound at `local`, sending
    /// to `peer` if given, else to the last sender.
    pub fn udp_port(
        mut self,
        port: u32,
        local: SocketAddr,
        peer: Option<SocketAddr>,
    ) -> SwitchBuilder {
        self.udp.push((port, local, peer));
        self
    }

    /// Opens the ports and starts the packet thread, which also reads the
    /// interfaces' rings, and reader threads: one per interface on the
    /// per-frame path or with [`RingConfig::reader_thread`], one for all
    /// UDP ports.
    pub fn build(self) -> Result<(Switch, Vec<MemoryPort>), SwitchError> {
        let mut numbers: Vec<u32> = self.memory.clone();
        numbers.extend(self.interfaces.iter().map(|(p, _)| *p));
        numbers.extend(self.udp.iter().map(|(p, _, _)| *p));
        let mut seen = std::collections::BTreeSet::new();
        for p in &numbers {
            if *p >= p4sim::v1switch::pre::PORT_LIMIT {
                return Err(SwitchError::Port {
                    port: *p,
                    message: format!(
                        "port numbers must be below {}",
                        p4sim::v1switch::pre::PORT_LIMIT
                    ),
                });
            }
            if u64::from(*p) == p4sim::v1switch::DROP_PORT {
                return Err(SwitchError::Port {
                    port: *p,
                    message: "is the drop port (a frame sent there is dropped): use 0..=510".into(),
                });
            }
            if Some(*p) == self.config.cpu_port {
                return Err(SwitchError::Port {
                    port: *p,
                    message: "is the CPU port".into(),
                });
            }
            if !seen.insert(*p) {
                return Err(SwitchError::Port {
                    port: *p,
                    message: "given twice".into(),
                });
            }
        }
        let (raw_tx, inbound_rx) = mpsc::channel();
        // The packet thread reads rings itself unless each has a reader,
        // and UDP ports itself.
        #[cfg(target_os = "linux")]
        let doorbell = match &self.config.interface_io {
            _ if !self.udp.is_empty() => Some(Arc::new(inbound::Doorbell::new().map_err(|e| {
                SwitchError::Port {
                    port: 0,
                    message: format!("cannot make the packet thread's waker: {e}"),
                }
            })?)),
            InterfaceIo::Ring(c) if !c.reader_thread && !self.interfaces.is_empty() => {
                Some(Arc::new(inbound::Doorbell::new().map_err(|e| {
                    SwitchError::Port {
                        port: 0,
                        message: format!("cannot make the packet thread's waker: {e}"),
                    }
                })?))
            }
            _ => None,
        };
        #[cfg(target_os = "linux")]
        let inbound_tx = InboundSender::new(raw_tx, doorbell.clone());
        #[cfg(not(target_os = "linux"))]
        let inbound_tx = InboundSender::new(raw_tx);
        let state = Arc::new(SwitchState::new(
            self.config.device_id,
            self.config.cpu_port,
            self.config.include_dirs.clone(),
            self.config.roles.clone(),
            inbound_tx.clone(),
        ));
        if let Some(program) = self.program {
            state.install(program);
        }
        let mut ports: PortMap<Port> = PortMap::new();
        let mut memory_ports = Vec::new();
        for p in &self.memory {
            let (tx, rx) = mpsc::channel();
            let port = Port::new(Box::new(MemoryEgress::new(tx)));
            memory_ports.push(MemoryPort::new(
                *p,
                inbound_tx.clone(),
                rx,
                port.counters.clone(),
            ));
            ports.insert(*p, port);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let mut readers = Vec::new();
        let mut interface_io = BTreeMap::new();
        #[cfg(target_os = "linux")]
        let mut receivers = Vec::new();
        for (p, name) in &self.interfaces {
            #[cfg(target_os = "linux")]
            {
                let opened = open_interface(*p, name, &self.config.interface_io)?;
                ports.insert(*p, Port::new(opened.egress));
                interface_io.insert(*p, opened.io);
                receivers.push((*p, opened.receive));
            }
            #[cfg(not(target_os = "linux"))]
            {
                let _ = (p, &mut interface_io);
                return Err(SwitchError::Interface {
                    name: name.clone(),
                    message: "interfaces need Linux (AF_PACKET)".into(),
                });
            }
        }
        #[cfg(target_os = "linux")]
        let mut pipeline_rings = Vec::new();
        #[cfg(target_os = "linux")]
        for (number, receive) in receivers {
            let receive = match receive {
                Receive::Ring(ring) if doorbell.is_some() => {
                    pipeline_rings.push((number, ring));
                    continue;
                }
                receive => receive,
            };
            let handle = receive
                .spawn_reader(number, inbound_tx.clone(), stop.clone())
                .map_err(|e| SwitchError::Interface {
                    name: format!("port {number}"),
                    message: format!("cannot start reader thread: {e}"),
                })?;
            readers.push(handle);
        }
        let mut udp_ports = Vec::new();
        for (p, local, peer) in &self.udp {
            let sock = udp::UdpPort::bind(*local, *peer).map_err(|e| SwitchError::Port {
                port: *p,
                message: format!("cannot bind UDP {local}: {e}"),
            })?;
            let sock = Arc::new(sock);
            let port = Port::new(Box::new(UdpEgress::new(*p, sock.clone())));
            udp_ports.push(udp::ReaderPort {
                port: *p,
                socket: sock,
                counters: port.counters.clone(),
            });
            ports.insert(*p, port);
        }
        #[cfg(not(target_os = "linux"))]
        if !udp_ports.is_empty() {
            let handle =
                udp::spawn_reader(udp_ports, inbound_tx.clone(), stop.clone()).map_err(|e| {
                    SwitchError::Port {
                        port: 0,
                        message: format!("cannot start the UDP reader: {e}"),
                    }
                })?;
            readers.push(handle);
        }
        let mut pcap = PortMap::new();
        if let Some(dir) = &self.config.pcap_dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| SwitchError::Pcap(format!("{}: {e}", dir.display())))?;
            for (p, _) in ports.iter() {
                let path = dir.join(format!("port{p}.pcap"));
                let w = pcap::PcapWriter::create(&path)
                    .map_err(|e| SwitchError::Pcap(format!("{}: {e}", path.display())))?;
                pcap.insert(p, w);
            }
        }
        let stats: BTreeMap<u32, Arc<PortCounters>> =
            ports.iter().map(|(p, c)| (p, c.counters.clone())).collect();
        let dataplane = dataplane::Dataplane {
            state: state.clone(),
            inbound: inbound_rx,
            ports,
            pcap,
            start: Instant::now(),
            last_us: 0,
            pending: PortMap::new(),
            packet_ins: Vec::new(),
            outputs: Vec::new(),
            spare: Vec::new(),
            // Rings that all fell back, and no UDP port, leave the packet
            // thread on the channel alone.
            #[cfg(target_os = "linux")]
            doorbell: doorbell.filter(|_| !pipeline_rings.is_empty() || !udp_ports.is_empty()),
            #[cfg(target_os = "linux")]
            rings: pipeline_rings,
            #[cfg(target_os = "linux")]
            udp: udp_ports,
        };
        let packet_thread = std::thread::Builder::new()
            .name("esa-switch-pipeline".into())
            .spawn(move || dataplane.run())
            .map_err(|e| SwitchError::Port {
                port: 0,
                message: format!("cannot start the packet thread: {e}"),
            })?;
        Ok((
            Switch {
                state,
                inbound: inbound_tx,
                stats,
                stop,
                packet_thread: Some(packet_thread),
                readers,
                interface_io,
            },
            memory_ports,
        ))
    }
}

/// A running switch: its packet thread, ports and P4Runtime service.
/// Dropping it stops the threads.
#[derive(Debug)]
pub struct Switch {
    state: Arc<SwitchState>,
    inbound: InboundSender,
    stats: BTreeMap<u32, Arc<PortCounters>>,
    stop: Arc<AtomicBool>,
    packet_thread: Option<JoinHandle<()>>,
    readers: Vec<JoinHandle<()>>,
    interface_io: BTreeMap<u32, InterfaceIo>,
}

impl Switch {
    /// Starts building a switch.
    pub fn builder(config: SwitchConfig) -> SwitchBuilder {
        SwitchBuilder {
            config,
            program: None,
            memory: Vec::new(),
            interfaces: Vec::new(),
            udp: Vec::new(),
        }
    }

    /// The P4Runtime service, for a tonic server of the caller's own.
    pub fn service(&self) -> P4RuntimeServer<Service> {
        P4RuntimeServer::new(Service::new(self.state.clone()))
            .max_decoding_message_size(64 << 20)
            .max_encoding_message_size(64 << 20)
    }

    /// Serves P4Runtime in plaintext on `listener` until `shutdown`
    /// completes, then stops the switch.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send,
    ) -> Result<(), p4runtime_proto::tonic::transport::Error> {
        self.serve_with(
            p4runtime_proto::tonic::transport::Server::builder(),
            listener,
            shutdown,
        )
        .await
    }

    /// Serves P4Runtime with `server` (e.g. one with TLS, from
    /// [`p4runtime_proto::security::ServerSecurity::server_builder`]) on
    /// `listener` until `shutdown` completes, then stops the switch.
    pub async fn serve_with(
        self,
        mut server: p4runtime_proto::tonic::transport::Server,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send,
    ) -> Result<(), p4runtime_proto::tonic::transport::Error> {
        let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
        let result = server
            .add_service(self.service())
            .serve_with_incoming_shutdown(incoming, shutdown)
            .await;
        drop(self);
        result
    }

    /// Counters of port `port`, if it exists.
    pub fn port_stats(&self, port: u32) -> Option<PortStats> {
        self.stats.get(&port).map(|c| c.snapshot())
    }

    /// Counters of every port.
    pub fn all_port_stats(&self) -> BTreeMap<u32, PortStats> {
        self.stats.iter().map(|(p, c)| (*p, c.snapshot())).collect()
    }

    /// How interface port `port` moves frames: the configured
    /// [`InterfaceIo`], or [`InterfaceIo::PerFrame`] where the ring could
    /// not be set up. `None` for ports that are not interfaces.
    pub fn interface_io(&self, port: u32) -> Option<&InterfaceIo> {
        self.interface_io.get(&port)
    }

    /// P4Runtime requests the role policy refused: arbitrations in a role
    /// the client may not take, updates of another role's objects, pipeline
    /// changes by a role that does not own the pipeline (each also logged).
    pub fn role_refusals(&self) -> u64 {
        self.state.role_refusals()
    }

    /// Frames the program sent to ports that do not exist.
    pub fn unknown_port_frames(&self) -> u64 {
        self.state.unknown_port_frames()
    }

    /// PacketIns dropped because no primary controller was connected (or
    /// its stream was full).
    pub fn packet_in_drops(&self) -> u64 {
        self.state.packet_in_drops()
    }

    /// Runs `f` on the loaded device (None when no program is loaded),
    /// holding the lock the packet thread uses.
    pub fn with_device<R>(&self, f: impl FnOnce(Option<&mut device::Device>) -> R) -> R {
        let mut guard = self.state.lock_device();
        f(guard.as_mut())
    }
}

impl Drop for Switch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.inbound.send(Inbound::Stop);
        if let Some(t) = self.packet_thread.take() {
            let _ = t.join();
        }
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
    }
}
