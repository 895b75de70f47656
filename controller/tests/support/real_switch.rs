//! esa-switch in process, for the controller's tests against the real
//! P4Runtime server.
//!
//! The switch runs on its own tokio runtime so that stopping it is a crash
//! as the controller sees it: shutting the runtime down drops the server
//! and every connection task, so open arbitration streams break at once
//! (a graceful tonic shutdown would wait for them to end). It starts
//! without a program: the controller pushes esa.p4.

use std::net::SocketAddr;
use std::time::Duration;

use esa_switch::{MemoryPort, Switch, SwitchConfig};
use tokio::runtime::Runtime;

/// Memory ports 1..=8, the ports of `support::TOPOLOGY`.
const PORTS: std::ops::RangeInclusive<u32> = 1..=8;

/// A running esa-switch, stopped when dropped.
#[derive(Debug)]
pub struct RealSwitch {
    /// Its P4Runtime address.
    pub addr: SocketAddr,
    runtime: Option<Runtime>,
    /// Held so the ports stay open; the tests send no frames.
    _ports: Vec<MemoryPort>,
}

impl RealSwitch {
    /// Starts a fresh switch on 127.0.0.1:0.
    pub async fn start() -> RealSwitch {
        RealSwitch::start_on("127.0.0.1:0".parse().unwrap()).await
    }

    /// Starts a fresh switch (no program, no entries) on `addr`, retrying
    /// the bind for up to 5 s while a previous switch's socket goes away.
    pub async fn start_on(addr: SocketAddr) -> RealSwitch {
        let mut tries = 0;
        let listener = loop {
            match std::net::TcpListener::bind(addr) {
                Ok(l) => break l,
                Err(e) if tries < 100 => {
                    tries += 1;
                    tracing::debug!("bind {addr}: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("bind {addr}: {e}"),
            }
        };
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("esa-switch-test")
            .enable_all()
            .build()
            .unwrap();
        let (switch, ports) = Switch::builder(SwitchConfig::default())
            .memory_ports(PORTS)
            .build()
            .unwrap();
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let _ = switch.serve(listener, std::future::pending()).await;
        });
        RealSwitch {
            addr,
            runtime: Some(runtime),
            _ports: ports,
        }
    }

    /// Stops the switch as a crash would: the listener and every
    /// connection close; pipeline and entries are gone.
    pub async fn stop(mut self) {
        if let Some(runtime) = self.runtime.take() {
            tokio::task::spawn_blocking(move || runtime.shutdown_timeout(Duration::from_secs(5)))
                .await
                .unwrap();
        }
    }

    /// Stops this switch and starts a fresh one on the same address.
    pub async fn restart(self) -> RealSwitch {
        let addr = self.addr;
        self.stop().await;
        RealSwitch::start_on(addr).await
    }
}

impl Drop for RealSwitch {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
