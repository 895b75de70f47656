//! The embedded target: esa-switch (p4sim) in this process, started by
//! `esa-harness` on in-memory ports or on Linux interfaces.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use esa_controller::Pipeline;
use esa_harness::{EmbeddedSwitch, PortLink, Ports};
use esa_host::addressing::switch_addr;
use esa_switch::SwitchConfig;

use super::{RunningSwitch, StartOptions, SwitchHandle, SwitchTarget, p4_source_pipeline};
use crate::error::TestbedError;
use crate::fabric::{Fabric, InProcessFabric, PortKind};

/// esa-switch running the P4 source in p4sim, in this process, serving
/// P4Runtime on a free loopback port.
#[derive(Debug, Clone, Copy, Default)]
pub struct EmbeddedTarget;

impl SwitchTarget for EmbeddedTarget {
    fn name(&self) -> &'static str {
        "embedded"
    }

    fn describe(&self, ports: PortKind) -> String {
        let on = match ports {
            PortKind::Veth => " on AF_PACKET veth ports",
            PortKind::Memory | PortKind::Own => "",
        };
        format!("esa-switch (p4sim, in process){on}")
    }

    fn fabric(&self, asked: Option<Arc<dyn Fabric>>) -> Result<Arc<dyn Fabric>, TestbedError> {
        Ok(asked.unwrap_or_else(|| Arc::new(InProcessFabric)))
    }

    fn modelled_by_sim(&self) -> bool {
        true
    }

    fn pipeline(
        &self,
        program: &Path,
        defines: &[(String, String)],
        _start: &StartOptions,
    ) -> Result<Pipeline, TestbedError> {
        p4_source_pipeline(program, defines)
    }

    fn start(
        &self,
        ports: Option<Ports>,
        _start: &StartOptions,
    ) -> Result<RunningSwitch, TestbedError> {
        let ports = ports.ok_or_else(|| {
            TestbedError::Setup("the embedded switch needs its ports from the fabric".into())
        })?;
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let switch = EmbeddedSwitch::start(SwitchConfig::default(), ports, loopback)?;
        Ok(RunningSwitch::new(
            switch.addr().to_string(),
            switch.device_id(),
            switch_addr(),
            Embedded(Some(switch)),
        ))
    }
}

/// The running embedded switch; `None` only if a restart failed.
#[derive(Debug)]
struct Embedded(Option<EmbeddedSwitch>);

impl SwitchHandle for Embedded {
    fn take_memory_port(&mut self, port: u16) -> Option<PortLink> {
        self.0.as_mut()?.take_port(u32::from(port))
    }

    fn restart(&mut self, down: Duration) -> Result<(), TestbedError> {
        let switch = self
            .0
            .take()
            .ok_or_else(|| TestbedError::Setup("the switch did not come back".into()))?;
        self.0 = Some(switch.restart_after(down)?);
        Ok(())
    }
}
