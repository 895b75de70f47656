//! The netns fabric: every host in its own network namespace on a kernel
//! UDP socket, or an `AF_XDP` socket on its `eth0` (`[fabric] transport`),
//! joined to its switch by a veth pair (`crate::netns`, `esa-netns`);
//! switches joined by veth pairs in the root namespace.

use std::sync::Arc;

use esa_harness::Ports;
use esa_host::addressing::{SWITCH_IP, SWITCH_MAC};
use esa_host::transport::TransportChoice;

use super::{AttachedHosts, Cabling, Fabric, LossMeter, PlacedHost, PortKind, Wiring, bind_hosts};
use crate::error::TestbedError;
use crate::experiment::Experiment;
use crate::netns::{self, NamespaceHost, Namespaces, SwitchAddress, VethPair};
use crate::switch_target::RunningSwitch;

/// A namespace per host with `eth0` (its MAC and IPv4 address, a
/// permanent neighbour entry for the switch address), paired with a veth
/// end in the root namespace that is the switch's port; `switch.loss` is
/// an nftables table in each lossy host's namespace. Two switches' ports
/// are the ends of a veth pair in the root namespace. Needs root.
#[derive(Debug, Clone, Copy, Default)]
pub struct NetnsFabric;

impl Fabric for NetnsFabric {
    fn name(&self) -> &'static str {
        "netns"
    }

    fn hosts_description(&self) -> &'static str {
        "hosts in network namespaces on kernel UDP"
    }

    fn port_kind(&self) -> PortKind {
        PortKind::Veth
    }

    fn makes_namespaces(&self) -> bool {
        true
    }

    fn links_go_down(&self) -> bool {
        true
    }

    fn preflight(&self, experiment: &Experiment) -> Result<(), TestbedError> {
        netns::preflight(experiment.switch.loss > 0.0)
    }

    fn cable(
        &self,
        experiment: &Experiment,
        wiring: &Wiring,
    ) -> Result<Box<dyn Cabling>, TestbedError> {
        let wanted: Vec<NamespaceHost> = wiring
            .hosts
            .iter()
            .map(|h| NamespaceHost {
                port: h.host.port,
                mac: h.host.mac.0,
                ip: Some(std::net::Ipv4Addr::from(h.host.ip.0)),
                loss: experiment.switch.link_loss(h.parameter_server),
            })
            .collect();
        let switch = SwitchAddress {
            ip: SWITCH_IP,
            mac: SWITCH_MAC.0,
        };
        let namespaces = Namespaces::create(&wanted, Some(switch))
            .map_err(|e| TestbedError::start("network namespaces", e))?;
        let links = (0..)
            .zip(&wiring.links)
            .map(|(n, _)| VethPair::between_switches(n))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| TestbedError::start("a veth pair between switches", e))?;
        Ok(Box::new(NamespaceCabling {
            wiring: wiring.clone(),
            links,
            namespaces: Arc::new(namespaces),
            transport: experiment.fabric.transport,
            lanes: experiment.switch.lanes,
        }))
    }
}

/// The namespaces and their veth pairs, and the switches' veth pairs
/// (one per link of the wiring, end 0 on the link's first end); dropping
/// the last reference removes them.
#[derive(Debug)]
struct NamespaceCabling {
    wiring: Wiring,
    links: Vec<VethPair>,
    namespaces: Arc<Namespaces>,
    /// The hosts' transport (`[fabric] transport`).
    transport: TransportChoice,
    /// Lanes per packet, for `AF_XDP` hosts' frames.
    lanes: usize,
}

impl NamespaceCabling {
    fn hosts(&self) -> impl Iterator<Item = &PlacedHost> {
        self.wiring.hosts.iter()
    }
}

impl Cabling for NamespaceCabling {
    fn switch_ports(&self, switch: usize) -> Option<Ports> {
        let hosts = self
            .namespaces
            .interfaces()
            .into_iter()
            .filter(|(port, _)| {
                self.hosts()
                    .any(|h| u32::from(h.host.port) == *port && h.switch == switch)
            });
        let links = self
            .wiring
            .links
            .iter()
            .zip(&self.links)
            .flat_map(|(link, pair)| {
                link.ends
                    .iter()
                    .enumerate()
                    .filter(|(_, end)| end.switch == switch)
                    .map(|(i, end)| (u32::from(end.port), pair.end(i).to_string()))
            });
        Some(Ports::Interfaces(hosts.chain(links).collect()))
    }

    fn attach(&mut self, _switches: &mut [RunningSwitch]) -> Result<AttachedHosts, TestbedError> {
        let namespaces = &self.namespaces;
        let transports = bind_hosts(
            self.hosts().map(|h| (h, namespaces.namespace(h.host.port))),
            self.transport,
            self.lanes,
        )?;
        let meters = self
            .hosts()
            .map(|h| {
                let (namespaces, port) = (Arc::clone(namespaces), h.host.port);
                (port, LossMeter::new(move || namespaces.frames_lost(port)))
            })
            .collect();
        Ok(AttachedHosts { transports, meters })
    }

    fn set_link(&mut self, port: u16, up: bool) -> Result<(), TestbedError> {
        self.namespaces
            .set_link(port, up)
            .map_err(|e| TestbedError::start(format!("the link of port {port}"), e))
    }
}
