//! The `esa controller` and `esa jobs` subcommands.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use crate::api::{self, JobsClient, proto};
use crate::backend::GrpcSwitch;
use crate::controller::{Controller, ControllerConfig};
use crate::pipeline::Pipeline;
use crate::topology::Topology;

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
    #[arg(long)]
    pub topology: PathBuf,
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
    /// Address of the job API (gRPC).
    #[arg(long, default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
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

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// Runs `esa controller` until Ctrl-C.
pub fn run_controller(args: &ControllerArgs) -> Result<(), String> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let topology = Topology::load(&args.topology).map_err(|e| e.to_string())?;
    let pipeline = match (&args.bmv2_json, &args.p4info) {
        (Some(json), Some(p4info)) => Pipeline::from_files(json, p4info),
        _ => {
            let mut defines = vec![];
            for d in &args.define {
                let (name, value) = d.split_once('=').unwrap_or((d.as_str(), "1"));
                defines.push((name.to_string(), value.to_string()));
            }
            Pipeline::from_p4_source(&args.p4, &defines)
        }
    }
    .map_err(|e| e.to_string())?;
    let switch = GrpcSwitch::new(&args.switch, args.device_id, args.election_id.into());
    let config = ControllerConfig {
        pool_slots: args.pool_slots,
        stale_after_us: args.stale_after_us,
        ..ControllerConfig::default()
    };
    let controller =
        Controller::new(switch, pipeline, topology, config).map_err(|e| e.to_string())?;
    runtime()?.block_on(async {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|s| *s).await;
        };
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        eprintln!(
            "esa controller: job API on {}, switch {}",
            args.listen, args.switch
        );
        let mut tasks = tokio::task::JoinSet::new();
        if let Some(addr) = args.metrics_addr {
            let metrics = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            eprintln!("esa controller: metrics on http://{addr}/metrics");
            tasks.spawn(crate::metrics::serve(
                std::sync::Arc::clone(&controller),
                metrics,
                stopped(stop_rx.clone()),
            ));
        }
        tasks.spawn(std::sync::Arc::clone(&controller).run(stopped(stop_rx.clone())));
        let api = api::serve(
            std::sync::Arc::clone(&controller),
            listener,
            stopped(stop_rx.clone()),
        );
        tasks.spawn(async move {
            if let Err(e) = api.await {
                eprintln!("esa controller: job API: {e}");
            }
        });
        let _ = tokio::signal::ctrl_c().await;
        let _ = stop_tx.send(true);
        while tasks.join_next().await.is_some() {}
        Ok(())
    })
}

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

fn status_message(s: &tonic::Status) -> String {
    format!("{:?}: {}", s.code(), s.message())
}

/// Runs `esa jobs`; returns what to print.
pub fn run_jobs(args: &JobsArgs) -> Result<String, String> {
    let addr = crate::grpc_url(&args.controller);
    runtime()?.block_on(async {
        let endpoint_ = tonic::transport::Endpoint::from_shared(addr.clone())
            .map_err(|e| format!("{addr}: {e}"))?
            .connect_timeout(Duration::from_secs(3));
        let channel = endpoint_
            .connect()
            .await
            .map_err(|e| format!("cannot reach the controller at {addr}: {e}"))?;
        let mut client = JobsClient::new(channel);
        match &args.command {
            None => {
                let list = client
                    .list_jobs(proto::ListJobsRequest {})
                    .await
                    .map_err(|s| status_message(&s))?
                    .into_inner();
                let stats = client
                    .job_stats(proto::JobStatsRequest { job_ids: vec![] })
                    .await
                    .map(|r| r.into_inner().jobs)
                    .unwrap_or_default();
                Ok(jobs_table(&list, &stats))
            }
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
                let request = proto::AdmitJobRequest {
                    job_id: *job,
                    workers: workers.iter().map(|w| endpoint(w)).collect(),
                    ps: Some(endpoint(ps)),
                    max_priority: *priority,
                    mode: mode as i32,
                    slots: slots.map(|count| proto::SlotRange {
                        base: *slot_base,
                        count,
                    }),
                };
                let job = client
                    .admit_job(request)
                    .await
                    .map_err(|s| status_message(&s))?
                    .into_inner()
                    .job
                    .ok_or("the controller answered without a job")?;
                Ok(format!("admitted job {}\n", job.job_id))
            }
            Some(JobsCommand::Release { job }) => {
                client
                    .release_job(proto::ReleaseJobRequest { job_id: *job })
                    .await
                    .map_err(|s| status_message(&s))?;
                Ok(format!("released job {job}\n"))
            }
        }
    })
}

fn endpoint_text(e: &proto::Endpoint) -> String {
    if e.host.is_empty() {
        format!("port {}", e.port)
    } else {
        format!("{}@{}", e.host, e.port)
    }
}

/// The jobs and their counters as a plain-text table.
pub fn jobs_table(list: &proto::ListJobsResponse, stats: &[proto::JobCounters]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "controller: {}",
        if list.primary {
            "primary"
        } else {
            "backup / not connected"
        }
    );
    if list.jobs.is_empty() {
        out.push_str("no jobs\n");
        return out;
    }
    let shown = [
        "completed",
        "aggregated",
        "fallbacks",
        "preemptions",
        "evictions_suffered",
        "drop_bad_port",
    ];
    let mut rows = vec![vec![
        "job".to_string(),
        "mode".into(),
        "prio".into(),
        "slots".into(),
        "workers".into(),
        "ps".into(),
    ]];
    rows[0].extend(shown.iter().map(|s| s.to_string()));
    for job in &list.jobs {
        let mode = api::mode_from_proto(job.mode).map_or("?".to_string(), |m| m.to_string());
        let mut row = vec![
            job.job_id.to_string(),
            mode,
            job.max_priority.to_string(),
            format!("{}+{}", job.slot_base, job.slot_count),
            job.workers
                .iter()
                .map(endpoint_text)
                .collect::<Vec<_>>()
                .join(","),
            job.ps.as_ref().map(endpoint_text).unwrap_or_default(),
        ];
        let counters = stats.iter().find(|s| s.job_id == job.job_id);
        for name in shown {
            let value = counters
                .and_then(|c| c.counters.iter().find(|x| x.name == name))
                .map_or("-".to_string(), |x| x.packets.to_string());
            row.push(value);
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}
