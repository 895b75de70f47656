//! Switch targets: what runs an experiment's data plane.
//!
//! | target | switch | its ports | fabrics |
//! |---|---|---|---|
//! | [`EmbeddedTarget`] (`embedded`, the default) | esa-switch (p4sim) in this process | in memory, or AF_PACKET on veth ends | in-process (default), netns |
//! | [`Bmv2Target`] (`bmv2`) | BMv2's `simple_switch_grpc`, started per variant (`esa_bmv2::grpc_switch`), running esa.p4 compiled by p4c | veth ends | netns (implied) |
//! | [`ExternalTarget`] (`external`) | a switch somebody else runs, reached over P4Runtime | its own | its hosts file's |
//!
//! A target says which fabric its hosts can reach it over
//! ([`SwitchTarget::fabric`]), checks before anything starts that it can
//! run the experiment ([`SwitchTarget::preflight`]), makes the pipeline the
//! controller pushes ([`SwitchTarget::pipeline`]) and starts a switch on
//! the ports a fabric cabled for it ([`SwitchTarget::start`]): a
//! [`RunningSwitch`] with its P4Runtime address and device id, where hosts
//! send, and what stops it when dropped.
//!
//! Several switches: a target is a way to start switches, not a switch.
//! [`SwitchTarget::start`] may be called more than once, each time on the
//! ports a fabric cabled for that switch; each [`RunningSwitch`] has its
//! own P4Runtime address and stops on its own. What two starts would share
//! is the [`StartOptions::work_dir`] (BMv2 writes its log there), so each
//! switch gets its own. A leaf–spine experiment will start one switch per
//! leaf and spine from the same target (or from different ones) and point
//! a controller at each.

mod bmv2;
mod embedded;
mod external;

use p4runtime_proto::security::ClientSecurity;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use esa_controller::Pipeline;
use esa_harness::{PortLink, Ports};

use crate::error::TestbedError;
use crate::experiment::Experiment;
use crate::fabric::{Fabric, PortKind};

pub use bmv2::Bmv2Target;
pub use embedded::EmbeddedTarget;
pub use external::ExternalTarget;

/// What runs an experiment's data plane.
pub trait SwitchTarget: std::fmt::Debug + Send + Sync {
    /// Its name in reports (`switch`): `embedded`, `bmv2`, `external`.
    fn name(&self) -> &'static str;

    /// What runs, on ports of `kind`, for the report's `setup`:
    /// `esa-switch (p4sim, in process) on AF_PACKET veth ports`.
    fn describe(&self, ports: PortKind) -> String;

    /// The fabric its hosts reach it over: the one `asked` for (the
    /// command line's `--fabric`, or the experiment's `[fabric] kind` when
    /// not the default), else its own default. An asked-for fabric it
    /// cannot be reached over is an error naming the flags.
    fn fabric(&self, asked: Option<Arc<dyn Fabric>>) -> Result<Arc<dyn Fabric>, TestbedError>;

    /// Whether the sim fabric's pool model may stand in for it: only for
    /// the embedded switch, the default, so that a switch named beside the
    /// sim fabric is refused rather than ignored.
    fn modelled_by_sim(&self) -> bool {
        false
    }

    /// Whether `esa run --fault switch-restart` can crash and restart it:
    /// a switch this process starts.
    fn restartable(&self) -> bool {
        true
    }

    /// Checks, before anything starts, that it can run `experiment` (its
    /// tools are installed, it runs the program's architecture); the
    /// error names what is missing. By default there is nothing to check.
    fn preflight(&self, _experiment: &Experiment) -> Result<(), TestbedError> {
        Ok(())
    }

    /// The pipeline the controller pushes to it: `program` compiled with
    /// `defines`, or the target's own compiled program.
    fn pipeline(
        &self,
        program: &Path,
        defines: &[(String, String)],
        start: &StartOptions,
    ) -> Result<Pipeline, TestbedError>;

    /// Starts a switch on `ports` (`None`: its own ports, cabled by whoever
    /// runs it), with no program: the controller pushes the pipeline.
    fn start(
        &self,
        ports: Option<Ports>,
        start: &StartOptions,
    ) -> Result<RunningSwitch, TestbedError>;
}

/// What making a pipeline and starting a switch may use.
#[derive(Debug, Clone)]
pub struct StartOptions {
    /// Where build products and logs go (BMv2's compiled program and its
    /// log).
    pub work_dir: PathBuf,
    /// How long a started switch may take to serve P4Runtime.
    pub timeout: Duration,
    /// Say on stderr what takes a while (compiling).
    pub progress: bool,
}

/// A started switch: where the controller and the hosts reach it. Dropping
/// it stops the switch.
#[derive(Debug)]
pub struct RunningSwitch {
    /// Its P4Runtime address (`host:port`).
    pub p4runtime: String,
    /// Its P4Runtime device id.
    pub device_id: u64,
    /// Where hosts send ESA packets.
    pub switch_addr: SocketAddr,
    /// How the controller reaches its P4Runtime server (TLS, a client
    /// certificate); plaintext by default.
    pub security: ClientSecurity,
    /// The P4Runtime role the controller takes (`""`: the default role).
    pub role: String,
    handle: Box<dyn SwitchHandle>,
}

impl RunningSwitch {
    /// A switch at `p4runtime` (device `device_id`) that hosts send to at
    /// `switch_addr`, kept running by `handle`.
    pub fn new(
        p4runtime: String,
        device_id: u64,
        switch_addr: SocketAddr,
        handle: impl SwitchHandle + 'static,
    ) -> RunningSwitch {
        RunningSwitch {
            p4runtime,
            device_id,
            switch_addr,
            security: ClientSecurity::default(),
            role: String::new(),
            handle: Box::new(handle),
        }
    }

    /// The same switch, reached with `security` in P4Runtime role `role`.
    pub fn reached_with(mut self, security: ClientSecurity, role: &str) -> RunningSwitch {
        self.security = security;
        self.role = role.to_string();
        self
    }

    /// The host's end of in-memory port `port`, once; `None` when the
    /// switch's ports are not in memory.
    pub fn take_memory_port(&mut self, port: u16) -> Option<PortLink> {
        self.handle.take_memory_port(port)
    }

    /// Crashes the switch and starts it again after `down`, on the same
    /// ports and P4Runtime address, with no program and no entries (the
    /// controller programs it again; the hosts' links carry on).
    pub fn restart(&mut self, down: Duration) -> Result<(), TestbedError> {
        self.handle.restart(down)
    }
}

/// What keeps a started switch running (the embedded switch, a switch
/// process; nothing for a switch somebody else runs); dropping it stops
/// the switch.
pub trait SwitchHandle: std::fmt::Debug + Send {
    /// The host's end of in-memory port `port`, for a switch whose ports
    /// are in memory; taken once.
    fn take_memory_port(&mut self, _port: u16) -> Option<PortLink> {
        None
    }

    /// Crashes the switch and starts it again after `down` (see
    /// [`RunningSwitch::restart`]); an error for a switch this process
    /// did not start.
    fn restart(&mut self, _down: Duration) -> Result<(), TestbedError> {
        Err(TestbedError::Setup(
            "esa run cannot restart a switch it did not start (--switch external): restart \
             it yourself; the controller programs it again and the hosts carry on"
                .into(),
        ))
    }
}

/// A switch somebody else runs: nothing to stop.
impl SwitchHandle for () {}

/// `program` as P4 source with `defines`, the pipeline esa-switch takes.
fn p4_source_pipeline(
    program: &Path,
    defines: &[(String, String)],
) -> Result<Pipeline, TestbedError> {
    Pipeline::from_p4_source(program, defines)
        .map_err(|e| TestbedError::start("loading the P4 program", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::experiment::FabricKind;
    use crate::fabric::{self, HostsFile};

    #[test]
    fn fabrics_follow_the_switch() {
        let asked = |kind: &str| fabric::emulated(kind.parse::<FabricKind>().unwrap());
        let name = |f: Result<Arc<dyn Fabric>, TestbedError>| f.unwrap().name();
        let bmv2 = Bmv2Target::default();
        assert_eq!(name(bmv2.fabric(None)), "netns");
        assert!(bmv2.fabric(asked("inprocess")).is_err());
        assert_eq!(name(EmbeddedTarget.fabric(None)), "inprocess");
        assert_eq!(name(EmbeddedTarget.fabric(asked("netns"))), "netns");
        let external = ExternalTarget {
            p4runtime: "127.0.0.1:9559".into(),
            device_id: 0,
            hosts: HostsFile::parse("").unwrap(),
            pipeline_files: None,
            security: Default::default(),
            role: String::new(),
        };
        assert_eq!(name(external.fabric(None)), "external");
        let e = external.fabric(asked("netns")).unwrap_err();
        assert!(e.to_string().contains("hosts file"), "{e}");
        assert_eq!("netns".parse::<FabricKind>(), Ok(FabricKind::Netns));
        assert!("veth".parse::<FabricKind>().is_err());
        assert!(fabric::emulated(FabricKind::Sim).is_none());
    }

    #[test]
    fn setups_are_described_as_before() {
        let setup = |target: &dyn SwitchTarget, asked: Option<Arc<dyn Fabric>>| {
            let fabric = target.fabric(asked).unwrap();
            format!(
                "{}; {}",
                target.describe(fabric.port_kind()),
                fabric.hosts_description()
            )
        };
        assert_eq!(
            setup(&EmbeddedTarget, None),
            "esa-switch (p4sim, in process); hosts on in-memory ports"
        );
        assert_eq!(
            setup(&EmbeddedTarget, fabric::emulated(FabricKind::Netns)),
            "esa-switch (p4sim, in process) on AF_PACKET veth ports; hosts in network namespaces \
             on kernel UDP"
        );
        assert_eq!(
            setup(&Bmv2Target::default(), None),
            "BMv2 simple_switch_grpc on veth ports; hosts in network namespaces on kernel UDP"
        );
        let external = ExternalTarget {
            p4runtime: "10.0.0.9:9559".into(),
            device_id: 3,
            hosts: HostsFile::parse("").unwrap(),
            pipeline_files: None,
            security: Default::default(),
            role: String::new(),
        };
        assert_eq!(
            setup(&external, None),
            "external switch at 10.0.0.9:9559 (device 3); hosts on kernel UDP at the hosts \
             file's addresses"
        );
    }
}
