//! The external target: a switch somebody else runs, reached over
//! P4Runtime, its hosts listed in a hosts file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use esa_controller::Pipeline;
use esa_harness::Ports;
use esa_host::addressing::switch_addr_at;
use p4runtime_proto::security::ClientSecurity;

use super::{RunningSwitch, StartOptions, SwitchTarget, p4_source_pipeline};
use crate::error::TestbedError;
use crate::fabric::{Fabric, HostsFile, HostsFileFabric, PortKind};

/// A switch somebody else runs: the controller becomes its primary and
/// pushes the pipeline; the experiment's hosts are the hosts file's.
#[derive(Debug, Clone)]
pub struct ExternalTarget {
    /// Its P4Runtime address (`host:port`).
    pub p4runtime: String,
    /// Its P4Runtime device id.
    pub device_id: u64,
    /// The hosts the experiment's workers and PSes run as.
    pub hosts: HostsFile,
    /// For a switch that does not take P4 source (BMv2, Tofino): the
    /// compiled device config and the P4Info. `None`: the P4 source
    /// (esa-switch).
    pub pipeline_files: Option<(PathBuf, PathBuf)>,
    /// How its P4Runtime server is reached: TLS verified with a CA, and a
    /// client certificate for a switch that asks for one.
    pub security: ClientSecurity,
    /// The P4Runtime role ESA's tables belong to on that switch
    /// (`esa switch --roles`); `""`: the default role.
    pub role: String,
}

impl SwitchTarget for ExternalTarget {
    fn name(&self) -> &'static str {
        "external"
    }

    fn restartable(&self) -> bool {
        false
    }

    fn describe(&self, _ports: PortKind) -> String {
        format!(
            "external switch at {} (device {})",
            self.p4runtime, self.device_id
        )
    }

    fn fabric(&self, asked: Option<Arc<dyn Fabric>>) -> Result<Arc<dyn Fabric>, TestbedError> {
        match asked {
            None => Ok(Arc::new(HostsFileFabric::new(self.hosts.clone()))),
            Some(f) => Err(TestbedError::Setup(format!(
                "--fabric {} does not apply to --switch external: the hosts file says where \
                 each host is (an address, and optionally a `netns`)",
                f.name()
            ))),
        }
    }

    fn pipeline(
        &self,
        program: &Path,
        defines: &[(String, String)],
        _start: &StartOptions,
    ) -> Result<Pipeline, TestbedError> {
        match &self.pipeline_files {
            Some((config, p4info)) => Pipeline::from_files(config, p4info)
                .map_err(|e| TestbedError::start("loading the pipeline", e)),
            None => p4_source_pipeline(program, defines),
        }
    }

    fn start(
        &self,
        _ports: Option<Ports>,
        _start: &StartOptions,
    ) -> Result<RunningSwitch, TestbedError> {
        let switch_addr = switch_addr_at(self.hosts.switch_ip);
        Ok(
            RunningSwitch::new(self.p4runtime.clone(), self.device_id, switch_addr, ())
                .reached_with(self.security.clone(), &self.role),
        )
    }
}
