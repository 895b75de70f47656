//! The controller in process: started against a switch's P4Runtime
//! address, supervised on a tokio runtime, and waited for until it is
//! primary and has programmed the switch. Plus the generated topology
//! (host *n* behind port *n*) the tests admit jobs on.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use esa_controller::topology::Host;
use esa_controller::{Controller, ControllerConfig, GrpcSwitch, Health, Pipeline, Role, Topology};
use esa_host::transport::HostAddress;
use tokio::runtime::Runtime;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::HarnessError;

/// The name of host `n` in a generated topology.
pub fn host_name(n: u16) -> String {
    format!("h{n}")
}

/// Adds a host to `topology` (and its port to the ports in use).
pub fn add_host(topology: &mut Topology, name: &str, address: HostAddress, port: u16) {
    topology.ports.insert(port);
    topology.hosts.insert(
        name.to_owned(),
        Host {
            name: name.to_owned(),
            mac: address.mac,
            ip: address.ip,
            port,
        },
    );
}

/// Hosts `h1..=hn`, host *n* behind port *n* at
/// [`esa_host::addressing::port_host`]'s addresses.
pub fn generated_topology(n: u16) -> Topology {
    let mut topology = Topology::default();
    for port in 1..=n {
        add_host(
            &mut topology,
            &host_name(port),
            esa_host::addressing::port_host(port),
            port,
        );
    }
    topology
}

/// Completes once `rx` says stop.
pub async fn stopped(mut rx: watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// How the harness's controllers run: `pool_slots` slots and the given
/// stale bound, the pipeline checked every 2 s, and a reconnection tried
/// every 200 ms (the switch is on this machine, so a lost one is back
/// soon or not at all).
pub fn controller_config(pool_slots: u32, stale_after_us: Option<u64>) -> ControllerConfig {
    ControllerConfig {
        pool_slots: Some(pool_slots),
        check_interval: Duration::from_secs(2),
        retry_interval: Duration::from_millis(200),
        stale_after_us,
        registry: None,
    }
}

/// A controller running on a runtime, for the switch at a P4Runtime
/// address.
#[derive(Debug)]
pub struct Supervised {
    /// The controller.
    pub controller: Arc<Controller<GrpcSwitch>>,
    /// Its supervising task (ends when `shutdown` completes).
    pub task: JoinHandle<()>,
}

/// Starts a controller of the switch `backend` reaches on `runtime`,
/// running until `shutdown` completes.
pub fn start_controller(
    runtime: &Runtime,
    backend: GrpcSwitch,
    pipeline: Pipeline,
    topology: Topology,
    config: ControllerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<Supervised, HarnessError> {
    let controller = Controller::new(backend, pipeline, topology, config)?;
    let task = runtime.spawn(Arc::clone(&controller).run(shutdown));
    Ok(Supervised { controller, task })
}

/// Waits up to `timeout` until `controller` is primary and has programmed
/// its switch; otherwise returns the last health it reported.
pub fn wait_programmed(
    runtime: &Runtime,
    controller: &Controller<GrpcSwitch>,
    timeout: Duration,
) -> Result<(), Health> {
    let mut health = controller.health();
    let synced = runtime.block_on(async {
        tokio::time::timeout(
            timeout,
            health.wait_for(|h| h.role == Role::Primary && h.synced),
        )
        .await
        .map(|r| r.is_ok())
    });
    if synced == Ok(true) {
        Ok(())
    } else {
        Err(health.borrow().clone())
    }
}

/// The error of a controller that did not program its switch in time.
pub fn not_programmed(p4runtime: &str, timeout: Duration, last: Health) -> HarnessError {
    HarnessError::NotProgrammed {
        p4runtime: p4runtime.to_owned(),
        timeout,
        role: last.role,
        last_error: last.last_error.unwrap_or_else(|| "none".into()),
    }
}
