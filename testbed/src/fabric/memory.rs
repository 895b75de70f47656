//! The in-process fabric: every host a thread of this process on an
//! in-memory port of the switch.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use esa_core::faults::FaultConfig;
use esa_harness::Ports;
use esa_host::transport::{FaultCounters, FaultyLink, SwitchPortTransport};

use super::{AttachedHosts, Cabling, Fabric, LossMeter, PlacedHost, PortKind};
use crate::error::TestbedError;
use crate::experiment::Experiment;
use crate::switch_target::RunningSwitch;

/// Every host a thread of this process on an in-memory switch port,
/// reaching it through a [`SwitchPortTransport`] (Ethernet / IPv4 / UDP
/// frames); `switch.loss` drops frames on the link in either direction
/// ([`FaultyLink`], a generator per port seeded from the experiment's seed
/// and the port).
#[derive(Debug, Clone, Copy, Default)]
pub struct InProcessFabric;

impl Fabric for InProcessFabric {
    fn name(&self) -> &'static str {
        "inprocess"
    }

    fn hosts_description(&self) -> &'static str {
        "hosts on in-memory ports"
    }

    fn port_kind(&self) -> PortKind {
        PortKind::Memory
    }

    fn cable(
        &self,
        experiment: &Experiment,
        hosts: &[PlacedHost],
    ) -> Result<Box<dyn Cabling>, TestbedError> {
        let links = hosts
            .iter()
            .map(|h| {
                let loss = experiment.switch.link_loss(h.parameter_server);
                (h.clone(), loss)
            })
            .collect();
        Ok(Box::new(MemoryCabling {
            links,
            seed: experiment.seed,
            lanes: experiment.switch.lanes,
        }))
    }
}

/// The hosts to link with their loss probabilities; the links themselves
/// are the switch's memory ports.
#[derive(Debug)]
struct MemoryCabling {
    links: Vec<(PlacedHost, f64)>,
    seed: u64,
    lanes: usize,
}

impl Cabling for MemoryCabling {
    fn switch_ports(&self) -> Option<Ports> {
        Some(Ports::Memory(
            self.links
                .iter()
                .map(|(h, _)| u32::from(h.host.port))
                .collect(),
        ))
    }

    fn attach(&mut self, switch: &mut RunningSwitch) -> Result<AttachedHosts, TestbedError> {
        let mut attached = AttachedHosts::default();
        for (h, loss) in &self.links {
            let port = h.host.port;
            let link = switch
                .take_memory_port(port)
                .ok_or_else(|| TestbedError::Setup(format!("no memory port {port}")))?;
            let counters = Arc::new(FaultCounters::default());
            let faults = FaultConfig::loss(self.seed ^ 0x6c6f_7373, *loss);
            let link = FaultyLink::new(link, faults, u64::from(port), Arc::clone(&counters));
            attached.transports.insert(
                port,
                Box::new(SwitchPortTransport::new(link, h.address(), self.lanes)),
            );
            attached.meters.insert(
                port,
                LossMeter::new(move || counters.lost.load(Ordering::Relaxed)),
            );
        }
        Ok(attached)
    }
}
