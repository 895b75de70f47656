//! esa-switch running `p4/v1model/esa.p4`, programmed by esa-controller
//! over P4Runtime on 127.0.0.1, with jobs admitted by host number: the
//! cluster the host tests, the namespace tests and the host bench drive.

use std::sync::Arc;
use std::time::Duration;

use esa_controller::jobs::{Endpoint, Job, JobRequest};
use esa_controller::{Controller, GrpcSwitch, Pipeline};
use esa_core::job::Mode;
use esa_switch::{Switch, SwitchConfig};
use tokio::runtime::Runtime;
use tokio::sync::watch;

use crate::control::{self, host_name};
use crate::switch::{EmbeddedSwitch, PortLink, Ports};

/// How long the controller has to program a fresh switch.
const PROGRAM_TIMEOUT: Duration = Duration::from_secs(60);

/// A running switch and its controller; stopped on drop. Host *n* is
/// behind port *n*. Setting up panics on failure: it is test support.
#[derive(Debug)]
pub struct Cluster {
    runtime: Option<Runtime>,
    controller: Arc<Controller<GrpcSwitch>>,
    stop: watch::Sender<bool>,
    switch: EmbeddedSwitch,
    /// Lanes per packet the program was built with.
    pub lanes: usize,
}

impl Cluster {
    /// Builds the switch on `ports` (port numbers 1..=n), serves P4Runtime
    /// on 127.0.0.1, and waits until the controller has pushed esa.p4
    /// (`lanes` lanes, `pool_slots` slots) and synced.
    pub fn start(ports: Ports, lanes: usize, pool_slots: u32) -> Cluster {
        let defines = esa_p4::Defines::new(lanes, pool_slots).pairs();
        let program = esa_p4::Arch::V1model.program();
        let pipeline = Pipeline::from_p4_source(&program, &defines)
            .unwrap_or_else(|e| panic!("loading esa.p4: {e}"));
        let hosts = match &ports {
            Ports::Memory(numbers) => numbers.len(),
            Ports::Interfaces(interfaces) => interfaces.len(),
            Ports::Udp(sockets) => sockets.len(),
        };
        let switch = EmbeddedSwitch::start(
            SwitchConfig::default(),
            ports,
            "127.0.0.1:0".parse().expect("an address"),
        )
        .unwrap_or_else(|e| panic!("starting the switch: {e}"));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("esa-controller")
            .enable_all()
            .build()
            .expect("tokio runtime");
        let (stop, stop_rx) = watch::channel(false);
        let config = control::controller_config(pool_slots, None);
        let p4runtime = switch.addr().to_string();
        let supervised = control::start_controller(
            &runtime,
            GrpcSwitch::new(&p4runtime, switch.device_id(), 1),
            pipeline,
            control::generated_topology(hosts as u16),
            config,
            control::stopped(stop_rx),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        if let Err(last) =
            control::wait_programmed(&runtime, &supervised.controller, PROGRAM_TIMEOUT)
        {
            panic!(
                "{}",
                control::not_programmed(&p4runtime, PROGRAM_TIMEOUT, last)
            );
        }
        Cluster {
            runtime: Some(runtime),
            controller: supervised.controller,
            stop,
            switch,
            lanes,
        }
    }

    /// Takes memory port `n` (also host `n`) as a frame link.
    pub fn take_port(&mut self, n: u16) -> PortLink {
        self.switch
            .take_port(u32::from(n))
            .unwrap_or_else(|| panic!("memory port {n} taken or missing"))
    }

    /// The switch.
    pub fn switch(&self) -> &Switch {
        self.switch.switch()
    }

    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.as_ref().expect("running").block_on(f)
    }

    /// Admits a job of `mode` with workers on hosts `workers` and the PS on
    /// host `ps`.
    pub fn admit(
        &self,
        job_id: u16,
        mode: Mode,
        max_priority: u8,
        workers: &[u16],
        ps: u16,
    ) -> Job {
        let request = JobRequest {
            job_id: u32::from(job_id),
            workers: workers
                .iter()
                .map(|n| Endpoint::Host(host_name(*n)))
                .collect(),
            ps: Some(Endpoint::Host(host_name(ps))),
            max_priority: u32::from(max_priority),
            mode: Some(mode),
            slots: None,
        };
        self.block_on(self.controller.admit(&request))
            .unwrap_or_else(|e| panic!("admitting job {job_id}: {e}"))
    }

    /// The job's switch counters by P4 name.
    pub fn counters(&self, job: u16) -> Vec<(String, u64)> {
        self.block_on(self.controller.stats(&[u32::from(job)]))
            .unwrap_or_else(|e| panic!("counters of job {job}: {e}"))
            .into_iter()
            .flat_map(|s| s.counters)
            .collect()
    }

    /// One counter of a job (0 if the program has no such counter).
    pub fn counter(&self, job: u16, name: &str) -> u64 {
        self.counters(job)
            .into_iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, v)| v)
    }

    /// Releases a job.
    pub fn release(&self, job: u16) {
        self.block_on(self.controller.release(u32::from(job)))
            .unwrap_or_else(|e| panic!("releasing job {job}: {e}"));
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(Duration::from_secs(2));
        }
    }
}
