//! `esa local`: a switch and its controller on one machine, for jobs that
//! bring their own hosts — PyTorch ranks through `esa_torch`, or `esa
//! worker` / `esa ps` processes — with no root.
//!
//! esa-switch runs `p4/v1model/esa.p4` with ports `1..=N` carried over UDP
//! (port *n* at `BIND:BASE+n`, each datagram one Ethernet frame); the
//! controller programs it over P4Runtime with a generated topology (host
//! *n* behind port *n*, [`esa_host::addressing::port_host`]) and serves
//! the job API. A host attaches to port *n* with
//! [`esa_host::transport::UdpFrameLink`] and sends as host *n*.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use esa_controller::api::ApiSecurity;
use esa_controller::{GrpcSwitch, Pipeline, Topology};
use esa_harness::control::{self, add_host, stopped};
use esa_harness::{EmbeddedSwitch, Ports};
use esa_host::addressing::port_host;
use esa_switch::SwitchConfig;
use tokio::sync::watch;

use crate::error::TestbedError;

/// The controller's P4Runtime election id: above 1, so another client
/// (a P4Runtime shell, a test) can connect as a backup with a lower one.
pub const ELECTION_ID: u128 = 10;

/// What `esa local` starts.
#[derive(Debug, Clone)]
pub struct LocalConfig {
    /// Switch ports `1..=ports`, one UDP socket each.
    pub ports: u16,
    /// The address the UDP ports bind (127.0.0.1: this machine only;
    /// 0.0.0.0 or an interface's address: hosts on other machines too).
    pub bind: IpAddr,
    /// Port *n* is UDP port `base_port + n`.
    pub base_port: u16,
    /// The job API's address.
    pub controller: SocketAddr,
    /// The switch's P4Runtime address (port 0: any free port).
    pub p4runtime: SocketAddr,
    /// Lanes per packet (`ESA_LANES`).
    pub lanes: usize,
    /// Aggregator slots (`ESA_POOL_SLOTS`).
    pub pool_slots: u32,
    /// The P4 program (default: this source tree's `p4/v1model/esa.p4`).
    pub program: Option<PathBuf>,
    /// How long the controller may take to program the switch.
    pub setup_timeout: Duration,
    /// The job API's TLS and tokens. Without TLS (and without
    /// `insecure`), the job API, the ports and P4Runtime must be on
    /// loopback; P4Runtime is always plaintext, so it leaves loopback only
    /// with `insecure`.
    pub api: ApiSecurity,
}

impl Default for LocalConfig {
    fn default() -> LocalConfig {
        LocalConfig {
            ports: 16,
            bind: IpAddr::from([127, 0, 0, 1]),
            base_port: 9000,
            controller: SocketAddr::from(([127, 0, 0, 1], 50051)),
            p4runtime: SocketAddr::from(([127, 0, 0, 1], 0)),
            lanes: 32,
            pool_slots: 4096,
            program: None,
            setup_timeout: Duration::from_secs(60),
            api: ApiSecurity::default(),
        }
    }
}

impl LocalConfig {
    /// The UDP address of switch port `n`.
    pub fn port_addr(&self, n: u16) -> SocketAddr {
        SocketAddr::new(self.bind, self.base_port + n)
    }

    fn check(&self) -> Result<(), TestbedError> {
        if self.ports == 0 || self.ports > esa_controller::topology::MAX_PORT {
            return Err(TestbedError::Invalid(format!(
                "ports must be 1..={}, not {}",
                esa_controller::topology::MAX_PORT,
                self.ports
            )));
        }
        let server = &self.api.server;
        for addr in [self.controller, self.port_addr(1)] {
            server
                .check_listen(addr)
                .map_err(|e| TestbedError::Setup(e.to_string()))?;
        }
        if !server.insecure && !self.p4runtime.ip().is_loopback() {
            return Err(TestbedError::Setup(format!(
                "refusing to serve P4Runtime on {} in plaintext (esa local's switch has no \
                 TLS): keep it on loopback, or give --insecure",
                self.p4runtime
            )));
        }
        if u32::from(self.base_port) + u32::from(self.ports) > u32::from(u16::MAX) {
            return Err(TestbedError::Invalid(format!(
                "base port {} + {} ports runs past UDP port 65535",
                self.base_port, self.ports
            )));
        }
        Ok(())
    }

    /// The topology the controller is given: host `p<n>` behind port *n*.
    pub fn topology(&self) -> Topology {
        let mut topology = Topology::default();
        for n in 1..=self.ports {
            add_host(&mut topology, &format!("p{n}"), port_host(n), n);
        }
        topology
    }
}

/// A running local stack; dropping it (or [`LocalStack::stop`]) stops the
/// controller and the switch.
#[derive(Debug)]
pub struct LocalStack {
    config: LocalConfig,
    p4runtime: SocketAddr,
    controller: SocketAddr,
    runtime: tokio::runtime::Runtime,
    stop: watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// Stopped after the controller, when dropped.
    switch: Option<EmbeddedSwitch>,
}

impl LocalStack {
    /// Starts the switch, the controller and the job API, and returns once
    /// the controller has programmed the switch.
    pub fn start(config: LocalConfig) -> Result<LocalStack, TestbedError> {
        config.check()?;
        let program_path = config
            .program
            .clone()
            .unwrap_or_else(|| esa_p4::Arch::V1model.program());
        let defines = esa_p4::Defines::new(config.lanes, config.pool_slots).pairs();
        let pipeline = Pipeline::from_p4_source(&program_path, &defines)
            .map_err(|e| TestbedError::start(format!("loading {}", program_path.display()), e))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("esa-local-rt")
            .enable_all()
            .build()
            .map_err(|e| TestbedError::start("tokio runtime", e))?;
        // The switch starts empty; the controller pushes the pipeline.
        let ports = (1..=config.ports)
            .map(|n| (u32::from(n), config.port_addr(n)))
            .collect();
        let switch =
            EmbeddedSwitch::start(SwitchConfig::default(), Ports::Udp(ports), config.p4runtime)?;
        let p4runtime = switch.addr();
        let api_listener = runtime
            .block_on(tokio::net::TcpListener::bind(config.controller))
            .map_err(|e| TestbedError::start(format!("job API on {}", config.controller), e))?;
        let controller_addr = api_listener
            .local_addr()
            .map_err(|e| TestbedError::start("job API listener", e))?;
        let (stop, stop_rx) = watch::channel(false);
        let mut tasks = Vec::new();
        let supervised = control::start_controller(
            &runtime,
            GrpcSwitch::new(&p4runtime.to_string(), switch.device_id(), ELECTION_ID),
            pipeline,
            config.topology(),
            control::controller_config(config.pool_slots, None),
            stopped(stop_rx.clone()),
        )?;
        let controller = supervised.controller;
        tasks.push(supervised.task);
        let api = esa_controller::api::serve(
            Arc::clone(&controller),
            api_listener,
            config.api.clone(),
            stopped(stop_rx.clone()),
        );
        tasks.push(runtime.spawn(async move {
            if let Err(e) = api.await {
                eprintln!("esa local: job API: {e}");
            }
        }));
        let stack = LocalStack {
            config,
            p4runtime,
            controller: controller_addr,
            runtime,
            stop,
            tasks,
            switch: Some(switch),
        };
        let timeout = stack.config.setup_timeout;
        if let Err(last) = control::wait_programmed(&stack.runtime, &controller, timeout) {
            return Err(control::not_programmed(&p4runtime.to_string(), timeout, last).into());
        }
        Ok(stack)
    }

    /// What was started.
    pub fn config(&self) -> &LocalConfig {
        &self.config
    }

    /// The job API's address (the bound one, when the config asked for
    /// port 0).
    pub fn controller(&self) -> SocketAddr {
        self.controller
    }

    /// The switch's P4Runtime address.
    pub fn p4runtime(&self) -> SocketAddr {
        self.p4runtime
    }

    /// A summary for people: where everything listens, and how a host
    /// attaches.
    pub fn describe(&self) -> String {
        let c = &self.config;
        format!(
            "esa local: esa.p4 ({} lanes, {} slots) in esa-switch; ports 1..={} on UDP \
             {}..={} (port n at {}:{}+n); P4Runtime {}; job API {}",
            c.lanes,
            c.pool_slots,
            c.ports,
            c.port_addr(1),
            c.port_addr(c.ports),
            c.bind,
            c.base_port,
            self.p4runtime,
            self.controller
        )
    }

    /// Crashes the switch and starts a fresh one on the same UDP ports and
    /// P4Runtime address after `down`, as a power cycle would: pipeline,
    /// entries, registers and every learned host are gone. The controller
    /// notices, pushes the pipeline and its jobs' entries again; hosts say
    /// hello again on their own.
    pub fn restart_switch(&mut self, down: Duration) -> Result<(), TestbedError> {
        let switch = self
            .switch
            .take()
            .ok_or_else(|| TestbedError::start("restarting the switch", "it is stopped"))?;
        self.switch = Some(switch.restart_after(down)?);
        Ok(())
    }

    /// The running switch's port counters (hellos, strangers, frames).
    pub fn port_stats(&self, port: u16) -> Option<esa_switch::PortStats> {
        self.switch.as_ref()?.switch().port_stats(u32::from(port))
    }

    /// Stops the controller and the switch.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let _ = self.stop.send(true);
        let tasks = std::mem::take(&mut self.tasks);
        self.runtime.block_on(async {
            for t in tasks {
                let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
            }
        });
        self.switch.take();
    }
}

impl Drop for LocalStack {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Runs a stack until `stop` is raised (`esa local`: SIGINT / SIGTERM).
pub fn run(config: LocalConfig, stop: &std::sync::atomic::AtomicBool) -> Result<(), TestbedError> {
    let stack = LocalStack::start(config)?;
    println!("{}", stack.describe());
    println!("ready");
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    eprintln!("esa local: stopping");
    stack.stop();
    Ok(())
}
