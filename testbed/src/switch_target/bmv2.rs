//! The BMv2 target: `simple_switch_grpc` started per variant on the veth
//! ends of the netns fabric, running esa.p4 compiled by p4c. Finding,
//! compiling and running BMv2 is `esa_bmv2::grpc_switch`'s; this module
//! says when and where.

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use esa_bmv2::GrpcTools;
use esa_controller::Pipeline;
use esa_harness::Ports;
use esa_host::addressing::switch_addr;

use super::{RunningSwitch, StartOptions, SwitchHandle, SwitchTarget};
use crate::error::TestbedError;
use crate::experiment::{Arch, Experiment};
use crate::fabric::{Fabric, NetnsFabric, PortKind};

/// BMv2's `simple_switch_grpc` with `p4c-bm2-ss` (or `p4c`), found in
/// `$ESA_BMV2_DIR/bin` or on PATH when first needed (the preflight).
#[derive(Debug, Default)]
pub struct Bmv2Target {
    tools: OnceLock<GrpcTools>,
}

impl Bmv2Target {
    /// The tools, found once; the error says which are missing and where
    /// to read how to get them.
    fn tools(&self) -> Result<&GrpcTools, TestbedError> {
        if let Some(tools) = self.tools.get() {
            return Ok(tools);
        }
        let found = GrpcTools::find().map_err(|e| match e {
            esa_bmv2::Error::Missing { tool, .. } => TestbedError::Setup(format!(
                "--switch bmv2 needs {tool} on PATH, and it is not there (p4/README.md says how \
                 BMv2 runs esa.p4; without BMv2, drop --switch to use the embedded esa-switch)"
            )),
            other => other.into(),
        })?;
        Ok(self.tools.get_or_init(|| found))
    }
}

impl SwitchTarget for Bmv2Target {
    fn name(&self) -> &'static str {
        "bmv2"
    }

    fn describe(&self, _ports: PortKind) -> String {
        "BMv2 simple_switch_grpc on veth ports".into()
    }

    fn fabric(&self, asked: Option<Arc<dyn Fabric>>) -> Result<Arc<dyn Fabric>, TestbedError> {
        match asked {
            None => Ok(Arc::new(NetnsFabric)),
            Some(f) if f.port_kind() == PortKind::Veth => Ok(f),
            Some(_) => Err(TestbedError::Setup(
                "--switch bmv2 needs Linux interfaces for its ports: use --fabric netns (the \
                 default with bmv2)"
                    .into(),
            )),
        }
    }

    fn preflight(&self, experiment: &Experiment) -> Result<(), TestbedError> {
        self.tools()?;
        if experiment.switch.arch == Arch::Tna {
            return Err(TestbedError::Setup(
                "switch.arch = \"tna\": BMv2 runs v1model programs only; run the Tofino \
                 program on the embedded switch (p4sim's TNA) or an external Tofino"
                    .into(),
            ));
        }
        Ok(())
    }

    fn pipeline(
        &self,
        program: &Path,
        defines: &[(String, String)],
        start: &StartOptions,
    ) -> Result<Pipeline, TestbedError> {
        let dir = &start.work_dir;
        if start.progress {
            eprintln!(
                "compiling {} for BMv2 into {}",
                program.display(),
                dir.display()
            );
        }
        let compiled = self.tools()?.compile(program, defines, dir)?;
        Pipeline::from_files(&compiled.json, &compiled.p4info)
            .map_err(|e| TestbedError::start("loading what p4c wrote", e))
    }

    fn start(
        &self,
        ports: Option<Ports>,
        start: &StartOptions,
    ) -> Result<RunningSwitch, TestbedError> {
        let Some(Ports::Interfaces(interfaces)) = ports else {
            return Err(TestbedError::Setup(
                "BMv2's ports are Linux interfaces, and the fabric gave none".into(),
            ));
        };
        let dir = &start.work_dir;
        std::fs::create_dir_all(dir).map_err(|error| TestbedError::Io {
            path: dir.clone(),
            error,
        })?;
        let process = self.tools()?.start(
            &interfaces,
            &dir.join("simple_switch_grpc.log"),
            start.timeout,
        )?;
        Ok(RunningSwitch::new(
            process.addr().to_string(),
            0,
            switch_addr(),
            Bmv2Process {
                process,
                timeout: start.timeout,
            },
        ))
    }
}

/// A started `simple_switch_grpc`, and how long it may take to serve.
#[derive(Debug)]
struct Bmv2Process {
    process: esa_bmv2::SwitchProcess,
    timeout: Duration,
}

impl SwitchHandle for Bmv2Process {
    fn restart(&mut self, down: Duration) -> Result<(), TestbedError> {
        Ok(self.process.restart_after(down, self.timeout)?)
    }
}
