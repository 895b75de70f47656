//! `esa local`: a switch and its controller for hosts started by hand.

use anyhow::Result;

/// Flags of `esa local`.
#[derive(Debug, clap::Args)]
pub(crate) struct LocalArgs {
    /// Switch ports 1..=N, one UDP socket each.
    #[arg(long, default_value_t = 16)]
    ports: u16,
    /// Address the ports bind (0.0.0.0 lets hosts on other machines in;
    /// then the job API wants TLS, or --insecure).
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// Port n is UDP port BASE+n.
    #[arg(long, default_value_t = 9000)]
    base_port: u16,
    /// Address of the job API (what esa_torch and `esa jobs` connect to).
    #[arg(long, default_value = "127.0.0.1:50051")]
    controller: std::net::SocketAddr,
    /// Address of the switch's P4Runtime server (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    p4runtime: std::net::SocketAddr,
    /// Lanes per packet (ESA_LANES); hosts must use the same.
    #[arg(long, default_value_t = 32)]
    lanes: usize,
    /// Aggregator slots in the switch (ESA_POOL_SLOTS).
    #[arg(long, default_value_t = 4096)]
    pool_slots: u32,
    /// TLS of the job API (needed, or --insecure, when --bind or
    /// --controller leaves loopback).
    #[command(flatten)]
    tls: super::security::ServerTlsArgs,
    /// The tenants' tokens for the job API (see `esa controller --tokens`).
    #[arg(long, value_name = "FILE")]
    tokens: Option<std::path::PathBuf>,
    /// The P4 program (default: p4/v1model/esa.p4 of this source tree).
    #[arg(long = "p4", value_name = "PROGRAM.p4")]
    program: Option<std::path::PathBuf>,
}

pub(crate) fn run_local(args: &LocalArgs) -> Result<()> {
    let config = esa_testbed::local::LocalConfig {
        ports: args.ports,
        bind: args.bind,
        base_port: args.base_port,
        controller: args.controller,
        p4runtime: args.p4runtime,
        lanes: args.lanes,
        pool_slots: args.pool_slots,
        program: args.program.clone(),
        api: esa_controller::api::ApiSecurity {
            server: args.tls.security(),
            tokens: args
                .tokens
                .as_deref()
                .map(esa_controller::auth::Tokens::load)
                .transpose()?,
            ..esa_controller::api::ApiSecurity::default()
        },
        ..esa_testbed::local::LocalConfig::default()
    };
    Ok(esa_testbed::local::run(config, &super::shutdown::flag())?)
}
