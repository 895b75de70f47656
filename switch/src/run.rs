//! Running the switch as a process (`esa switch`): ports, an optional
//! program, and the P4Runtime server, until a shutdown future completes.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;

use p4runtime_proto::security::{SecurityError, ServerSecurity};

use crate::{Program, Source, Switch, SwitchConfig, SwitchError};

/// Everything `esa switch` starts.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The switch's settings.
    pub switch: SwitchConfig,
    /// The program to load at start; `None`: wait for
    /// SetForwardingPipelineConfig.
    pub program: Option<PathBuf>,
    /// Ports on Linux interfaces: (port, interface name).
    pub interfaces: Vec<(u32, String)>,
    /// Ports carried over UDP: (port, local address, fixed peer).
    pub udp_ports: Vec<(u32, SocketAddr, Option<SocketAddr>)>,
    /// Address of the P4Runtime server.
    pub grpc_addr: SocketAddr,
    /// TLS of the P4Runtime server, and whether plaintext may be served
    /// beyond loopback.
    pub security: ServerSecurity,
}

/// Why `esa switch` stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The switch did not start.
    #[error(transparent)]
    Switch(#[from] SwitchError),
    /// The tokio runtime did not start.
    #[error("runtime")]
    Runtime(#[source] std::io::Error),
    /// The P4Runtime server's TLS or address was refused.
    #[error(transparent)]
    Security(#[from] SecurityError),
    /// The gRPC server failed.
    #[error("gRPC server")]
    Serve(#[source] p4runtime_proto::tonic::transport::Error),
}

/// Builds the switch and serves P4Runtime on `config.grpc_addr` until
/// `shutdown` completes.
pub fn run(config: &RunConfig, shutdown: impl Future<Output = ()> + Send) -> Result<(), RunError> {
    config.security.check_listen(config.grpc_addr)?;
    let server = config.security.server_builder()?;
    let include = &config.switch.include_dirs;
    let mut builder = Switch::builder(config.switch.clone());
    if let Some(path) = &config.program {
        tracing::info!(program = %path.display(), "compiling");
        let program = Program::load(Source::File(path), include).map_err(SwitchError::from)?;
        builder = builder.program(program);
    }
    for (port, name) in &config.interfaces {
        builder = builder.interface(*port, name.clone());
    }
    for (port, local, peer) in &config.udp_ports {
        builder = builder.udp_port(*port, *local, *peer);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.grpc_addr)
            .await
            .map_err(|e| SwitchError::Grpc {
                addr: config.grpc_addr.to_string(),
                message: e.to_string(),
            })?;
        let (switch, _) = builder.build()?;
        tracing::info!(
            addr = %config.grpc_addr,
            ports = config.interfaces.len() + config.udp_ports.len(),
            program = config.program.is_some(),
            tls = config.security.tls.is_some(),
            "P4Runtime server listening"
        );
        switch
            .serve_with(server, listener, shutdown)
            .await
            .map_err(RunError::Serve)?;
        tracing::info!("stopped");
        Ok(())
    })
}
