//! The netns fabric: every host in its own network namespace on a kernel
//! UDP socket, or an `AF_XDP` socket on its `eth0` (`[fabric] transport`),
//! joined to the switch by a veth pair (`crate::netns`, `esa-netns`).

use std::sync::Arc;

use esa_harness::Ports;
use esa_host::addressing::{SWITCH_IP, SWITCH_MAC};
use esa_host::transport::TransportChoice;

use super::{AttachedHosts, Cabling, Fabric, LossMeter, PlacedHost, PortKind, bind_hosts};
use crate::error::TestbedError;
use crate::experiment::Experiment;
use crate::netns::{self, NamespaceHost, Namespaces, SwitchAddress};
use crate::switch_target::RunningSwitch;

/// A namespace per host with `eth0` (its MAC and IPv4 address, a
/// permanent neighbour entry for the switch address), paired with a veth
/// end in the root namespace that is the switch's port; `switch.loss` is
/// an nftables table in each lossy host's namespace. Needs root.
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
        hosts: &[PlacedHost],
    ) -> Result<Box<dyn Cabling>, TestbedError> {
        let wanted: Vec<NamespaceHost> = hosts
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
        Ok(Box::new(NamespaceCabling {
            hosts: hosts.to_vec(),
            namespaces: Arc::new(namespaces),
            transport: experiment.fabric.transport,
            lanes: experiment.switch.lanes,
        }))
    }
}

/// The namespaces and their veth pairs; dropping the last reference
/// removes them.
#[derive(Debug)]
struct NamespaceCabling {
    hosts: Vec<PlacedHost>,
    namespaces: Arc<Namespaces>,
    /// The hosts' transport (`[fabric] transport`).
    transport: TransportChoice,
    /// Lanes per packet, for `AF_XDP` hosts' frames.
    lanes: usize,
}

impl Cabling for NamespaceCabling {
    fn switch_ports(&self) -> Option<Ports> {
        Some(Ports::Interfaces(self.namespaces.interfaces()))
    }

    fn attach(&mut self, _switch: &mut RunningSwitch) -> Result<AttachedHosts, TestbedError> {
        let namespaces = &self.namespaces;
        let transports = bind_hosts(
            self.hosts
                .iter()
                .map(|h| (h, namespaces.namespace(h.host.port))),
            self.transport,
            self.lanes,
        )?;
        let meters = self
            .hosts
            .iter()
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
