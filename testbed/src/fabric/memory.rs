//! The in-process fabric: every host a thread of this process on an
//! in-memory port of its switch; switches joined by cables between their
//! in-memory ports.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use esa_core::faults::FaultConfig;
use esa_harness::{Cable, Ports};
use esa_host::transport::{FaultCounters, FaultyLink, SwitchPortTransport};

use super::{AttachedHosts, Cabling, Fabric, LossMeter, PlacedHost, PortKind, SwitchLink, Wiring};
use crate::error::TestbedError;
use crate::experiment::Experiment;
use crate::switch_target::RunningSwitch;

/// Every host a thread of this process on an in-memory switch port,
/// reaching it through a [`SwitchPortTransport`] (Ethernet / IPv4 / UDP
/// frames); `switch.loss` drops frames on the link in either direction
/// ([`FaultyLink`], a generator per port seeded from the experiment's seed
/// and the port). Two switches' ports are joined by a [`Cable`].
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
        wiring: &Wiring,
    ) -> Result<Box<dyn Cabling>, TestbedError> {
        let links = wiring
            .hosts
            .iter()
            .map(|h| {
                let loss = experiment.switch.link_loss(h.parameter_server);
                (h.clone(), loss)
            })
            .collect();
        Ok(Box::new(MemoryCabling {
            wiring: wiring.clone(),
            links,
            seed: experiment.seed,
            lanes: experiment.switch.lanes,
            cables: Vec::new(),
        }))
    }
}

/// The hosts to link with their loss probabilities; the links themselves
/// are the switches' memory ports, and the cables between switches once
/// attached.
#[derive(Debug)]
struct MemoryCabling {
    wiring: Wiring,
    links: Vec<(PlacedHost, f64)>,
    seed: u64,
    lanes: usize,
    cables: Vec<Cable>,
}

/// In-memory port `port` of `switches[switch]`.
fn memory_port(
    switches: &mut [RunningSwitch],
    switch: usize,
    port: u16,
) -> Result<esa_harness::PortLink, TestbedError> {
    switches
        .get_mut(switch)
        .and_then(|s| s.take_memory_port(port))
        .ok_or_else(|| TestbedError::Setup(format!("no memory port {port} on switch {switch}")))
}

impl Cabling for MemoryCabling {
    fn switch_ports(&self, switch: usize) -> Option<Ports> {
        Some(Ports::Memory(
            self.wiring
                .ports_of(switch)
                .into_iter()
                .map(u32::from)
                .collect(),
        ))
    }

    fn attach(&mut self, switches: &mut [RunningSwitch]) -> Result<AttachedHosts, TestbedError> {
        for &SwitchLink { ends: [a, b] } in &self.wiring.links {
            let a = memory_port(switches, a.switch, a.port)?;
            let b = memory_port(switches, b.switch, b.port)?;
            self.cables.push(Cable::join(a, b)?);
        }
        let mut attached = AttachedHosts::default();
        for (h, loss) in &self.links {
            let port = h.host.port;
            let link = memory_port(switches, h.switch, port)?;
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
