//! esa-switch in process for the controller's tests against the real
//! P4Runtime server: esa-harness's [`EmbeddedSwitch`] on memory ports
//! 1..=8 (the ports of `support::TOPOLOGY`), starting without a program
//! (the controller pushes esa.p4). Stopping it is a crash as the controller
//! sees it; these wrappers run the blocking steps off the test's runtime.

use std::net::SocketAddr;

use esa_harness::{EmbeddedSwitch, Ports};
use esa_switch::SwitchConfig;

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f)
        .await
        .expect("a blocking task")
}

/// A fresh switch on 127.0.0.1, any free port.
pub async fn start() -> EmbeddedSwitch {
    start_on("127.0.0.1:0".parse().unwrap()).await
}

/// A fresh switch on `addr`, which a stopped switch may still hold.
pub async fn start_on(addr: SocketAddr) -> EmbeddedSwitch {
    blocking(move || EmbeddedSwitch::start_on(SwitchConfig::default(), Ports::memory(8), addr))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Stops `switch` as a crash would.
pub async fn stop(switch: EmbeddedSwitch) {
    blocking(move || switch.stop()).await;
}

/// Stops `switch` and starts a fresh one on the same address.
pub async fn restart(switch: EmbeddedSwitch) -> EmbeddedSwitch {
    blocking(move || switch.restart())
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}
