//! `esa switch`: flags in the style of BMv2's `simple_switch_grpc`.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use esa_switch::InterfaceIo;
use esa_switch::roles::RolePolicy;
use esa_switch::run::RunConfig;

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
    #[arg(short = 'u', long = "udp-port", value_name = "NUM@IP:PORT[=PEER]", value_parser = esa_switch::udp::parse_udp_port)]
    pub udp_ports: Vec<(u32, SocketAddr, Option<SocketAddr>)>,
    /// The P4 program to load at start; without it the switch waits for
    /// SetForwardingPipelineConfig.
    #[arg(long = "p4", value_name = "PROGRAM.p4")]
    pub program: Option<PathBuf>,
    /// Include folders for the program (and for programs sent over
    /// P4Runtime, which otherwise may include only core.p4 / v1model.p4).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Address of the P4Runtime gRPC server (beyond loopback only with TLS
    /// or --insecure).
    #[arg(long, default_value = "127.0.0.1:9559")]
    pub grpc_addr: SocketAddr,
    /// TLS of the P4Runtime server.
    #[command(flatten)]
    pub tls: super::security::ServerTlsArgs,
    /// A role policy (TOML): which P4Runtime role may write which tables,
    /// the multicast groups and the pipeline, and which client
    /// certificates may take each role (see `esa_switch::roles`). Without
    /// it every client is in the default role and may write everything.
    #[arg(long, value_name = "FILE")]
    pub roles: Option<PathBuf>,
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
    /// ring of 2 KiB slots read by the packet thread, and batched sends
    /// through an AF_XDP socket, or sendmmsg where the kernel has none;
    /// falls back to `per-frame`, with a warning, where the ring cannot be
    /// set up), `ring-sendmmsg` (the same, always sending with sendmmsg:
    /// AF_XDP frames skip the interface's tc queueing discipline),
    /// `ring-blocks` (a TPACKET_V3 block ring: fewer wake-ups, but a frame
    /// alone waits 1 ms), or `per-frame` (one system call per frame each
    /// way).
    #[arg(
        long,
        value_name = "ring|ring-sendmmsg|ring-blocks|per-frame",
        default_value = "ring"
    )]
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

/// The role policy of `--roles`, refused when it binds roles to client
/// certificates that the server does not ask for.
fn role_policy(args: &SwitchArgs) -> Result<RolePolicy> {
    let Some(path) = &args.roles else {
        return Ok(RolePolicy::default());
    };
    let text = esa_controller::config_file::read_config(path)
        .with_context(|| format!("reading the role policy {}", path.display()))?;
    let policy =
        RolePolicy::from_toml(&text).with_context(|| format!("role policy {}", path.display()))?;
    if policy.binds_clients() && args.tls.tls_client_ca.is_none() {
        bail!(
            "role policy {} admits roles only to named clients: give --tls-client-ca so that \
             clients present certificates",
            path.display()
        );
    }
    Ok(policy)
}

/// Runs the switch until SIGINT or SIGTERM.
pub fn run(args: &SwitchArgs) -> Result<()> {
    super::init_logging(&args.log_level);
    let roles = role_policy(args)?;
    let config = RunConfig {
        switch: esa_switch::SwitchConfig {
            device_id: args.device_id,
            cpu_port: args.cpu_port,
            include_dirs: args.include.clone(),
            pcap_dir: args.pcap.clone(),
            interface_io: args.interface_io.clone(),
            roles,
        },
        program: args.program.clone(),
        interfaces: args.interfaces.clone(),
        udp_ports: args.udp_ports.clone(),
        grpc_addr: args.grpc_addr,
        security: args.tls.security(),
    };
    Ok(esa_switch::run::run(&config, super::shutdown::signalled())?)
}
