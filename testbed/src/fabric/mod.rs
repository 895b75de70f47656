//! Fabrics: where an experiment's hosts run and how their links reach the
//! switch.
//!
//! | fabric | hosts | links | switch ports |
//! |---|---|---|---|
//! | [`InProcessFabric`] (`inprocess`) | threads of this process | in-memory, with seeded loss | in memory |
//! | [`NetnsFabric`] (`netns`) | threads in a network namespace each, kernel UDP or AF_XDP (`[fabric] transport`) | veth pairs, loss by nftables | the veths' root ends |
//! | [`HostsFileFabric`] (`external`) | threads bound to a hosts file's addresses (optionally in named namespaces) | whatever cables them to the switch | the switch's own |
//!
//! A fabric checks before anything starts that it can carry the
//! experiment ([`Fabric::preflight`]), places each host (name, addresses,
//! switch port: [`Fabric::place`]), and lays the hosts' links
//! ([`Fabric::cable`]) before the switch starts on their far ends
//! ([`Cabling::switch_ports`]); once it runs, [`Cabling::attach`] gives
//! each host its transport and each lossy link its [`LossMeter`]. Which
//! fabric a switch can be reached over is the switch target's to say
//! ([`crate::switch_target::SwitchTarget::fabric`]). The sim fabric is
//! none of these: it replaces switch and links with the pool model in
//! virtual time ([`crate::virtual_time`]).
//!
//! Several switches (a `[topology]`: ToRs under spines): a fabric cables
//! a [`Wiring`], each host to the switch its link ends on
//! ([`PlacedHost::switch`]) and the switches to each other
//! ([`SwitchLink`]); [`Cabling::switch_ports`] gives each switch's ports
//! and [`Cabling::attach`] attaches to all of them. Hosts keep their
//! port numbers unique over the fabric, so their links stay keyed by port.
//! In process a link between switches is a [`esa_harness::Cable`] between
//! two in-memory ports; on the netns fabric a veth pair in the root
//! namespace, beside the hosts' switch ends (the switches' ports all stay
//! in the root namespace). Switch-to-switch links lose nothing on purpose.

mod hosts_file;
mod memory;
mod namespaces;

use std::collections::BTreeMap;
use std::sync::Arc;

use esa_controller::topology::Host;
use esa_harness::Ports;
use esa_host::addressing::{SWITCH_MAC, port_host};
use esa_host::transport::{HostAddress, Transport, TransportChoice, XdpPlace};

use crate::error::TestbedError;
use crate::experiment::{Experiment, FabricKind};
use crate::netns;
use crate::switch_target::RunningSwitch;

pub use hosts_file::{ExternalHost, HostsFile, HostsFileFabric};
pub use memory::InProcessFabric;
pub use namespaces::NetnsFabric;

/// Where an experiment's hosts run and how their links reach the switch.
pub trait Fabric: std::fmt::Debug + Send + Sync {
    /// Its name in reports (`fabric`): `inprocess`, `netns`, `external`.
    fn name(&self) -> &'static str;

    /// How its hosts run, for the report's `setup`: `hosts on in-memory
    /// ports`.
    fn hosts_description(&self) -> &'static str;

    /// What it cables a switch's ports to.
    fn port_kind(&self) -> PortKind;

    /// Whether it makes network namespaces, which a process interrupted
    /// outright must remove itself (`esa_netns::remove_this_process`).
    fn makes_namespaces(&self) -> bool {
        false
    }

    /// Whether `esa run --fault link-down` can take its links down: veths
    /// it made.
    fn links_go_down(&self) -> bool {
        false
    }

    /// Checks, before anything starts, that it can carry `experiment`'s
    /// hosts here (root and tools, loss it can inject, hosts it has); the
    /// error names what is missing. By default there is nothing to check.
    fn preflight(&self, _experiment: &Experiment) -> Result<(), TestbedError> {
        Ok(())
    }

    /// The experiment's host number `index` (0-based: job 1's workers, its
    /// PS, job 2's workers, ...), called `name` unless the fabric names its
    /// hosts: its name, addresses and switch port. By default host *n* =
    /// `index + 1` on port *n* at [`port_host`]'s addresses.
    fn place(&self, index: usize, name: String) -> Result<Host, TestbedError> {
        let n = u16::try_from(index + 1)
            .map_err(|_| TestbedError::Setup(format!("host {name}: no switch port for it")))?;
        let address = port_host(n);
        Ok(Host {
            name,
            mac: address.mac,
            ip: address.ip,
            port: n,
        })
    }

    /// Lays the links of `wiring` (its hosts', its switches') to switches
    /// that are not started yet.
    fn cable(
        &self,
        experiment: &Experiment,
        wiring: &Wiring,
    ) -> Result<Box<dyn Cabling>, TestbedError>;
}

/// The fabric of `kind` that carries the hosts to an emulated switch;
/// `None` for the sim fabric, which has no switch.
pub fn emulated(kind: FabricKind) -> Option<Arc<dyn Fabric>> {
    match kind {
        FabricKind::InProcess => Some(Arc::new(InProcessFabric)),
        FabricKind::Netns => Some(Arc::new(NetnsFabric)),
        FabricKind::Sim => None,
    }
}

/// What a fabric cables a switch's ports to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortKind {
    /// In-memory links the switch makes.
    Memory,
    /// The root ends of veth pairs.
    Veth,
    /// The switch's own ports, cabled by whoever runs it.
    Own,
}

/// The links a fabric laid for one variant. Dropped after the switches,
/// it removes them (a switch process's ports go before the namespaces they
/// are in).
pub trait Cabling: std::fmt::Debug + Send {
    /// Switch `switch`'s ends of the links (of [`Wiring::switches`]), to
    /// start it on; `None`: the switch's own ports.
    fn switch_ports(&self, switch: usize) -> Option<Ports>;

    /// Attaches every host to its switch of `switches` (indexed like
    /// [`Wiring::switches`], each running on its
    /// [`Cabling::switch_ports`]), and joins the switches' links.
    fn attach(&mut self, switches: &mut [RunningSwitch]) -> Result<AttachedHosts, TestbedError>;

    /// Takes the link of the host on switch port `port` down or up
    /// (`--fault link-down`); an error for links this fabric cannot pull.
    fn set_link(&mut self, _port: u16, _up: bool) -> Result<(), TestbedError> {
        Err(TestbedError::Setup(
            "this fabric's links cannot be taken down (--fault link-down needs --fabric netns)"
                .into(),
        ))
    }
}

/// What a fabric cables for one variant: its switches, its hosts each on
/// one of them, and the links between switches.
#[derive(Debug, Clone, PartialEq)]
pub struct Wiring {
    /// How many switches (one without a `[topology]`).
    pub switches: usize,
    /// Every host, each on its switch.
    pub hosts: Vec<PlacedHost>,
    /// The links between switches.
    pub links: Vec<SwitchLink>,
}

impl Wiring {
    /// Switch `switch`'s ports: its hosts', then its ends of links, in
    /// order.
    pub fn ports_of(&self, switch: usize) -> Vec<u16> {
        let hosts = self.hosts.iter().filter(|h| h.switch == switch);
        let links = self
            .links
            .iter()
            .flat_map(|l| l.ends)
            .filter(|e| e.switch == switch);
        hosts
            .map(|h| h.host.port)
            .chain(links.map(|e| e.port))
            .collect()
    }
}

/// A link between two switches' ports (a ToR's uplink to a spine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchLink {
    /// Its two ends.
    pub ends: [LinkEnd; 2],
}

/// One end of a [`SwitchLink`]: a switch (its index in the
/// [`Wiring`]) and its port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkEnd {
    /// The switch.
    pub switch: usize,
    /// Its port.
    pub port: u16,
}

/// A host of a variant as a fabric links it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedHost {
    /// Its name, addresses and switch port in the controller's topology.
    pub host: Host,
    /// Whether it runs a parameter server (`switch.loss_links` may spare
    /// workers' or PSes' links).
    pub parameter_server: bool,
    /// The switch its link ends on (its index in the [`Wiring`]).
    pub switch: usize,
}

impl PlacedHost {
    /// Its addresses as its transport takes them: frames to the switch go
    /// to [`SWITCH_MAC`].
    pub fn address(&self) -> HostAddress {
        HostAddress {
            mac: self.host.mac,
            ip: self.host.ip,
            gateway_mac: SWITCH_MAC,
        }
    }
}

/// The hosts' ends of their links, attached to a running switch.
#[derive(Debug, Default)]
pub struct AttachedHosts {
    /// Each host's transport, by switch port.
    pub transports: BTreeMap<u16, Box<dyn Transport>>,
    /// The lost-frame counters of the links that lose frames on purpose,
    /// by switch port.
    pub meters: BTreeMap<u16, LossMeter>,
}

/// Counts the frames a host's link lost on purpose (`switch.loss`).
#[derive(Clone)]
pub struct LossMeter(Arc<dyn Fn() -> u64 + Send + Sync>);

impl LossMeter {
    /// A meter that reads `lost`.
    pub fn new(lost: impl Fn() -> u64 + Send + Sync + 'static) -> LossMeter {
        LossMeter(Arc::new(lost))
    }

    /// Frames lost so far.
    pub fn count(&self) -> u64 {
        (self.0)()
    }
}

impl std::fmt::Debug for LossMeter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LossMeter").field(&self.count()).finish()
    }
}

/// The interface a namespace host's traffic leaves by (`esa-netns`).
const NAMESPACE_INTERFACE: &str = "eth0";

/// Opens every host's transport as `transport` says (kernel UDP, or
/// `AF_XDP` on the host's `eth0` with packets of `lanes` lanes), in the
/// namespace given beside it (or this process's), so that an address in
/// use is an error before any job starts.
fn bind_hosts<'a>(
    hosts: impl IntoIterator<Item = (&'a PlacedHost, Option<&'a str>)>,
    transport: TransportChoice,
    lanes: usize,
) -> Result<BTreeMap<u16, Box<dyn Transport>>, TestbedError> {
    let mut transports: BTreeMap<u16, Box<dyn Transport>> = BTreeMap::new();
    for (h, namespace) in hosts {
        let place = XdpPlace {
            interface: NAMESPACE_INTERFACE.to_string(),
            queue: 0,
            address: h.address(),
            lanes,
        };
        let opened = netns::open_host(namespace, transport, &place).map_err(|e| {
            TestbedError::start(format!("host {} cannot bind its socket", h.host.name), e)
        })?;
        transports.insert(h.host.port, Box::new(opened));
    }
    Ok(transports)
}
