//! `esa switch`: flags in the style of BMv2's `simple_switch_grpc`.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::{
    InterfaceIo, Program, RingConfig, RingKind, Source, Switch, SwitchConfig, SwitchError,
};

/// Flags of `esa switch`.
#[derive(Debug, Clone, clap::Args)]
pub struct SwitchArgs {
    /// A port: `NUM@IFACE` (a Linux interface through AF_PACKET; needs
    /// CAP_NET_RAW). Repeat for each port.
    #[arg(short = 'i', long = "interface", value_name = "NUM@IFACE", value_parser = parse_interface)]
    pub interfaces: Vec<(u32, String)>,
    /// A port carried over UDP: `NUM@IP:PORT` binds that address and
    /// sends to whoever sent to it last (a host says hello with an empty
    /// datagram); `NUM@IP:PORT=PEER_IP:PORT` sends only to that peer. Each
    /// datagram is one Ethernet frame. No root needed. Repeat for each
    /// port.
    #[arg(short = 'u', long = "udp-port", value_name = "NUM@IP:PORT[=PEER]", value_parser = crate::udp::parse_udp_port)]
    pub udp_ports: Vec<(u32, SocketAddr, Option<SocketAddr>)>,
    /// The P4 program to load at start; without it the switch waits for
    /// SetForwardingPipelineConfig.
    #[arg(long = "p4", value_name = "PROGRAM.p4")]
    pub program: Option<PathBuf>,
    /// Include folders for the program (and for programs sent over
    /// P4Runtime, which otherwise may include only core.p4 / v1model.p4).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Address of the P4Runtime gRPC server.
    #[arg(long, default_value = "127.0.0.1:9559")]
    pub grpc_addr: SocketAddr,
    /// P4Runtime device id.
    #[arg(long, default_value_t = 0)]
    pub device_id: u64,
    /// CPU port for PacketIn / PacketOut (BMv2 uses 255 or 510 by
    /// convention); none by default.
    #[arg(long)]
    pub cpu_port: Option<u32>,
    /// Write a pcap file per port (`port<N>.pcap`) into this folder.
    #[arg(long, value_name = "DIR")]
    pub pcap: Option<PathBuf>,
    /// How interface ports move frames: `ring` (a memory-mapped receive
    /// ring of 2 KiB slots read by the packet thread, and batched sends;
    /// falls back to `per-frame`, with a warning, where the ring cannot be
    /// set up), `ring-blocks` (a TPACKET_V3 block ring: fewer wake-ups, but
    /// a frame alone waits 1 ms), or `per-frame` (one system call per frame
    /// each way).
    #[arg(long, value_name = "ring|ring-blocks|per-frame", default_value = "ring", value_parser = parse_interface_io)]
    pub interface_io: InterfaceIo,
    /// Log filter (trace, debug, info, warn, error, or a tracing
    /// env-filter directive); RUST_LOG overrides it.
    #[arg(long, default_value = "info")]
    pub log_level: String,
}

fn parse_interface(s: &str) -> Result<(u32, String), String> {
    let (num, name) = s
        .split_once('@')
        .ok_or_else(|| format!("`{s}` is not NUM@IFACE"))?;
    let num: u32 = num
        .parse()
        .map_err(|_| format!("`{num}` is not a port number"))?;
    if name.is_empty() {
        return Err(format!("`{s}` has no interface name"));
    }
    Ok((num, name.to_string()))
}

fn parse_interface_io(s: &str) -> Result<InterfaceIo, String> {
    match s {
        "ring" => Ok(InterfaceIo::default()),
        "ring-blocks" => Ok(InterfaceIo::Ring(RingConfig {
            kind: RingKind::Blocks,
            ..RingConfig::default()
        })),
        "per-frame" => Ok(InterfaceIo::PerFrame),
        _ => Err(format!(
            "`{s}` is not one of `ring`, `ring-blocks`, `per-frame`"
        )),
    }
}

/// Errors of `esa switch`.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The switch did not start.
    #[error(transparent)]
    Switch(#[from] SwitchError),
    /// The tokio runtime did not start.
    #[error("runtime: {0}")]
    Runtime(std::io::Error),
    /// The gRPC server failed.
    #[error("gRPC server: {0}")]
    Serve(String),
}

/// Runs the switch until SIGINT or SIGTERM.
pub fn run(args: &SwitchArgs) -> Result<(), CliError> {
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| args.log_level.clone());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_new(&filter)
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let mut builder = Switch::builder(SwitchConfig {
        device_id: args.device_id,
        cpu_port: args.cpu_port,
        include_dirs: args.include.clone(),
        pcap_dir: args.pcap.clone(),
        interface_io: args.interface_io.clone(),
    });
    if let Some(path) = &args.program {
        tracing::info!(program = %path.display(), "compiling");
        let program =
            Program::load(Source::File(path), &args.include).map_err(SwitchError::from)?;
        builder = builder.program(program);
    }
    for (port, name) in &args.interfaces {
        builder = builder.interface(*port, name.clone());
    }
    for (port, local, peer) in &args.udp_ports {
        builder = builder.udp_port(*port, *local, *peer);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.grpc_addr)
            .await
            .map_err(|e| SwitchError::Grpc {
                addr: args.grpc_addr.to_string(),
                message: e.to_string(),
            })?;
        let (switch, _) = builder.build()?;
        tracing::info!(
            addr = %args.grpc_addr,
            ports = args.interfaces.len() + args.udp_ports.len(),
            program = args.program.is_some(),
            "P4Runtime server listening"
        );
        switch
            .serve(listener, shutdown_signal())
            .await
            .map_err(|e| CliError::Serve(e.to_string()))?;
        tracing::info!("stopped");
        Ok(())
    })
}

/// Completes on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT: shutting down"),
        () = term => tracing::info!("SIGTERM: shutting down"),
    }
}
