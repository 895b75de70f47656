//! `esa controller` and `esa jobs`.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use esa_controller::api::{ApiSecurity, proto};
use esa_controller::auth::{TOKEN_ENV, Tokens};
use esa_controller::run::{JobsClientConfig, JobsRequest, Listen};
use p4runtime_proto::security::{ClientSecurity, ServerIdentity};

use super::security::{ServerTlsArgs, client_security};
use esa_controller::fabric::{FabricController, FabricTopology};
use esa_controller::{Controller, ControllerConfig, GrpcSwitch, Pipeline, Topology};

/// `esa controller`.
#[derive(Debug, Args)]
pub struct ControllerArgs {
    /// P4Runtime address of the switch.
    #[arg(long, default_value = "127.0.0.1:9559")]
    pub switch: String,
    /// P4Runtime device id.
    #[arg(long, default_value_t = 0)]
    pub device_id: u64,
    /// Election id (higher wins; a lower one makes this controller a
    /// backup).
    #[arg(long, default_value_t = 1)]
    pub election_id: u64,
    /// The topology file (TOML: switch ports, hosts).
    #[arg(
        long,
        required_unless_present_any = ["hosts", "fabric"],
        conflicts_with_all = ["hosts", "fabric"]
    )]
    pub topology: Option<PathBuf>,
    /// A fabric of several switches instead of one (TOML: `[[switch]]`s
    /// with their P4Runtime addresses, `[[link]]`s between them,
    /// `[[host]]`s behind them; `esa_controller::fabric`): one P4Runtime
    /// session per switch, and jobs across switches aggregated on a tree.
    /// The switches' addresses and device ids are the file's; --state
    /// keeps one record per switch (FILE.SWITCH).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["hosts", "switch", "device_id"])]
    pub fabric: Option<PathBuf>,
    /// The hosts file of `esa run --switch external` instead of a topology
    /// file: its hosts (name, MAC, IPv4, switch port) become the topology.
    /// Hosts that send from their own interfaces with kernel UDP (esa_torch
    /// with `hosts=`) use this file too, so both sides read one file.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// The P4 program (esa-switch): its source is the device config and
    /// p4sim derives the P4Info.
    #[arg(
        long,
        default_value = "p4/v1model/esa.p4",
        conflicts_with = "bmv2_json"
    )]
    pub p4: PathBuf,
    /// `NAME=VALUE` macro for the P4 program (esa-switch only), e.g.
    /// `ESA_LANES=64`.
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// BMv2: p4c's JSON output, pushed as the device config.
    #[arg(long, requires = "p4info")]
    pub bmv2_json: Option<PathBuf>,
    /// BMv2: p4c's P4Info (text format, or binary for .bin/.binpb/.pb).
    #[arg(long, requires = "bmv2_json")]
    pub p4info: Option<PathBuf>,
    /// Aggregator slots (default: the size of the `slot_key` register).
    #[arg(long)]
    pub pool_slots: Option<u32>,
    /// The switch's stale bound in microseconds: an untouched slot older than
    /// this may be reclaimed [default: the program's, 10000]. Raise it for a
    /// slow software switch such as BMv2.
    #[arg(long, value_name = "US")]
    pub stale_after_us: Option<u64>,
    /// Keep the controller's record of its jobs in this redb file (created
    /// if missing): jobs survive a restart of the controller, even with
    /// the switch restarted too, and are restored from it whenever the
    /// controller becomes primary again (after another client took the
    /// switch over). Without it, a restarted controller adopts what the
    /// switch holds.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Address of the job API (gRPC; beyond loopback only with TLS or
    /// --insecure).
    #[arg(long, default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// TLS of the job API.
    #[command(flatten)]
    pub tls: ServerTlsArgs,
    /// The tenants' tokens (TOML; `esa certs --tenant NAME` writes one):
    /// every call then needs a tenant's token, and a tenant sees and
    /// releases only its own jobs. Without it the job API is open.
    #[arg(long, value_name = "FILE")]
    pub tokens: Option<PathBuf>,
    /// Reach the switch's P4Runtime server over TLS, verified with this CA
    /// certificate (PEM).
    #[arg(long, value_name = "PEM")]
    pub switch_tls_ca: Option<PathBuf>,
    /// Present this client certificate (PEM) to a switch that asks for one
    /// (`esa switch --tls-client-ca`; `esa certs --client NAME` makes it).
    #[arg(long, value_name = "PEM", requires_all = ["switch_tls_key", "switch_tls_ca"])]
    pub switch_tls_cert: Option<PathBuf>,
    /// The private key of --switch-tls-cert (PEM).
    #[arg(long, value_name = "PEM", requires = "switch_tls_cert")]
    pub switch_tls_key: Option<PathBuf>,
    /// The P4Runtime role to arbitrate and write in, when the switch gives
    /// ESA's tables to a role (`esa switch --roles`); the default role
    /// otherwise.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub switch_role: String,
    /// Address of the Prometheus endpoint (`/metrics`); none by default.
    #[arg(long)]
    pub metrics_addr: Option<SocketAddr>,
}

/// `esa jobs`.
#[derive(Debug, Args)]
pub struct JobsArgs {
    /// Address of the controller's job API.
    #[arg(long, default_value = "127.0.0.1:50051")]
    pub controller: String,
    /// Speak TLS to the controller, verified with this CA certificate
    /// (PEM; `esa certs` writes ca.pem).
    #[arg(long, value_name = "PEM", env = "ESA_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// This tenant's token, if the controller was given --tokens.
    #[arg(long, env = TOKEN_ENV, hide_env_values = true)]
    pub token: Option<String>,
    /// What to do; without one, list the jobs and their counters.
    #[command(subcommand)]
    pub command: Option<JobsCommand>,
}

/// Sharing mode on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliMode {
    /// Preemptive, priority-based.
    Esa,
    /// ATP: no preemption, release when the result passes back.
    Atp,
    /// SwitchML: a static slot range.
    Switchml,
}

/// Subcommands of `esa jobs`.
#[derive(Debug, Subcommand)]
pub enum JobsCommand {
    /// Admit a job.
    Admit {
        /// Job id (0: the controller picks).
        #[arg(long, default_value_t = 0)]
        job: u32,
        /// Workers: host names of the topology, or port numbers.
        #[arg(long, value_delimiter = ',', required = true)]
        workers: Vec<String>,
        /// The PS: a host name or a port number.
        #[arg(long)]
        ps: String,
        /// Sharing mode.
        #[arg(long, value_enum, default_value_t = CliMode::Esa)]
        mode: CliMode,
        /// Highest priority (0..=15).
        #[arg(long, default_value_t = 0)]
        priority: u32,
        /// switchml: number of slots (a power of two).
        #[arg(long)]
        slots: Option<u32>,
        /// switchml: first slot (default: the first free aligned range).
        #[arg(long, requires = "slots")]
        slot_base: Option<u32>,
    },
    /// Release a job.
    Release {
        /// Job id.
        job: u32,
    },
}

/// Runs `esa controller` until SIGINT or SIGTERM.
pub fn run_controller(args: &ControllerArgs) -> Result<()> {
    super::init_logging("info");
    if let Some(path) = &args.fabric {
        return run_fabric_controller(args, path);
    }
    let topology = match (&args.topology, &args.hosts) {
        (Some(path), _) => Topology::load(path)?,
        (None, Some(path)) => esa_testbed::HostsFile::load(path)?.topology(),
        (None, None) => anyhow::bail!("give --topology FILE or --hosts FILE"),
    };
    let pipeline = pipeline(args)?;
    let switch = switch_backend(args, &args.switch, args.device_id);
    let security = api_security(args)?;
    let config = ControllerConfig {
        pool_slots: args.pool_slots,
        stale_after_us: args.stale_after_us,
        registry: args.state.clone(),
        ..ControllerConfig::default()
    };
    let controller = Controller::new(switch, pipeline, topology, config)?;
    eprintln!(
        "esa controller: job API on {} ({}), switch {}",
        args.listen,
        describe_security(&security),
        args.switch
    );
    if let Some(addr) = args.metrics_addr {
        eprintln!("esa controller: metrics on http://{addr}/metrics");
    }
    let listen = Listen {
        api: args.listen,
        metrics: args.metrics_addr,
    };
    esa_controller::run::run_controller(controller, listen, security, super::shutdown::signalled())
        .context("esa controller")
}

/// `esa controller --fabric FILE`: a controller per switch of the file,
/// and the job API over them.
fn run_fabric_controller(args: &ControllerArgs, path: &std::path::Path) -> Result<()> {
    let fabric = FabricTopology::load(path)?;
    let pipeline = pipeline(args)?;
    let security = api_security(args)?;
    let mut controllers = std::collections::BTreeMap::new();
    let mut addresses = vec![];
    for s in fabric.switches() {
        let address = s.p4runtime.as_deref().with_context(|| {
            format!(
                "{}: switch `{}` has no p4runtime address",
                path.display(),
                s.name
            )
        })?;
        let config = ControllerConfig {
            pool_slots: args.pool_slots,
            stale_after_us: args.stale_after_us,
            registry: args
                .state
                .as_ref()
                .map(|state| PathBuf::from(format!("{}.{}", state.display(), s.name))),
            ..ControllerConfig::default()
        };
        let hosts = fabric.switch_topology(&s.name).unwrap_or_default();
        let backend = switch_backend(args, address, s.device_id);
        let controller = Controller::new(backend, pipeline.clone(), hosts, config)?;
        controllers.insert(s.name.clone(), controller);
        addresses.push(format!("{} at {address}", s.name));
    }
    let fabric = std::sync::Arc::new(FabricController::new(fabric, controllers)?);
    eprintln!(
        "esa controller: job API on {} ({}), switches {}",
        args.listen,
        describe_security(&security),
        addresses.join(", ")
    );
    if let Some(addr) = args.metrics_addr {
        eprintln!("esa controller: metrics on http://{addr}/metrics");
    }
    let listen = Listen {
        api: args.listen,
        metrics: args.metrics_addr,
    };
    esa_controller::run::run_fabric_controller(
        fabric,
        listen,
        security,
        super::shutdown::signalled(),
    )
    .context("esa controller")
}

/// The pipeline the flags name: p4c's files for BMv2, else P4 source.
fn pipeline(args: &ControllerArgs) -> Result<Pipeline> {
    Ok(match (&args.bmv2_json, &args.p4info) {
        (Some(json), Some(p4info)) => Pipeline::from_files(json, p4info)?,
        _ => {
            let defines: Vec<(String, String)> = args
                .define
                .iter()
                .map(|d| {
                    let (name, value) = d.split_once('=').unwrap_or((d.as_str(), "1"));
                    (name.to_string(), value.to_string())
                })
                .collect();
            Pipeline::from_p4_source(&args.p4, &defines)?
        }
    })
}

/// The P4Runtime client of the switch at `address`, as the flags secure
/// it.
fn switch_backend(args: &ControllerArgs, address: &str, device_id: u64) -> GrpcSwitch {
    GrpcSwitch::new(address, device_id, args.election_id.into())
        .with_security(ClientSecurity {
            ca: args.switch_tls_ca.clone(),
            identity: args
                .switch_tls_cert
                .clone()
                .zip(args.switch_tls_key.clone())
                .map(|(cert, key)| ServerIdentity { cert, key }),
        })
        .with_role(&args.switch_role)
}

/// The job API's security from the flags, warning of an open API beyond
/// loopback.
fn api_security(args: &ControllerArgs) -> Result<ApiSecurity> {
    let security = ApiSecurity {
        server: args.tls.security(),
        tokens: args.tokens.as_deref().map(Tokens::load).transpose()?,
        ..ApiSecurity::default()
    };
    if security.tokens.is_none() && !args.listen.ip().is_loopback() {
        eprintln!(
            "esa controller: warning: the job API on {} has no --tokens: anyone who reaches \
             it may admit and release every job",
            args.listen
        );
    }
    Ok(security)
}

/// `TLS, tokens` or `plaintext, open`.
fn describe_security(security: &ApiSecurity) -> String {
    format!(
        "{}, {}",
        if security.server.tls.is_some() {
            "TLS"
        } else {
            "plaintext"
        },
        if security.tokens.is_some() {
            "tokens"
        } else {
            "open"
        }
    )
}

/// A worker or PS on the command line: a port number or a host name.
fn endpoint(text: &str) -> proto::Endpoint {
    match text.parse::<u32>() {
        Ok(port) => proto::Endpoint {
            host: String::new(),
            port,
        },
        Err(_) => proto::Endpoint {
            host: text.to_string(),
            port: 0,
        },
    }
}

/// Runs `esa jobs`; returns what to print.
pub fn run_jobs(args: &JobsArgs) -> Result<String> {
    let request = match &args.command {
        None => JobsRequest::List,
        Some(JobsCommand::Admit {
            job,
            workers,
            ps,
            mode,
            priority,
            slots,
            slot_base,
        }) => {
            let mode = match mode {
                CliMode::Esa => proto::Mode::Esa,
                CliMode::Atp => proto::Mode::Atp,
                CliMode::Switchml => proto::Mode::Switchml,
            };
            JobsRequest::Admit(proto::AdmitJobRequest {
                job_id: *job,
                workers: workers.iter().map(|w| endpoint(w)).collect(),
                ps: Some(endpoint(ps)),
                max_priority: *priority,
                mode: mode as i32,
                slots: slots.map(|count| proto::SlotRange {
                    base: *slot_base,
                    count,
                }),
            })
        }
        Some(JobsCommand::Release { job }) => JobsRequest::Release(*job),
    };
    let client = JobsClientConfig {
        controller: args.controller.clone(),
        security: client_security(args.tls_ca.as_ref()),
        token: args.token.clone(),
    };
    Ok(esa_controller::run::run_jobs(&client, request)?)
}
