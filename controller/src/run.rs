//! Running the controller as a process (`esa controller`) and talking to
//! one (`esa jobs`). The flags are the `esa` binary's; these take typed
//! requests.

use std::fmt::Write as _;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use p4runtime_proto::security::ClientSecurity;

use crate::api::{self, ApiSecurity, JobsBackend, proto};
use crate::backend::GrpcSwitch;
use crate::controller::Controller;
use crate::fabric::FabricController;

/// Why `esa controller` or `esa jobs` failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The tokio runtime did not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// A listening socket could not be bound.
    #[error("cannot listen on {addr}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The job API's TLS or address was refused.
    #[error(transparent)]
    Serve(#[from] api::ServeError),
    /// The controller's address is not a URL tonic takes, TLS could not be
    /// set up, or nothing answered there.
    #[error("cannot reach the controller at {addr}")]
    Connect {
        /// The address.
        addr: String,
        /// Why.
        #[source]
        source: api::ConnectError,
    },
    /// The controller refused the request.
    #[error("the controller refused: {:?}: {}", .0.code(), .0.message())]
    Refused(#[source] tonic::Status),
    /// A plaintext request got no answer, as from a server that speaks
    /// TLS.
    #[error(
        "{addr} gave no answer ({:?}: {}); if it serves TLS, give --tls-ca (or ESA_TLS_CA)",
        .status.code(),
        .status.message()
    )]
    NoPlaintextAnswer {
        /// The URL asked.
        addr: String,
        /// What tonic said.
        #[source]
        status: tonic::Status,
    },
    /// An admission answer without the job.
    #[error("the controller answered without a job")]
    NoJob,
}

fn runtime() -> Result<tokio::runtime::Runtime, RunError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(RunError::Runtime)
}

/// Where `esa controller` serves.
#[derive(Debug, Clone, Copy)]
pub struct Listen {
    /// The job API (gRPC).
    pub api: SocketAddr,
    /// The Prometheus endpoint, if any.
    pub metrics: Option<SocketAddr>,
}

/// Runs `controller` (its supervisor loop, the job API secured by
/// `security`, and the metrics endpoint) until `shutdown` completes.
pub fn run_controller(
    controller: Arc<Controller<GrpcSwitch>>,
    listen: Listen,
    security: ApiSecurity,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), RunError> {
    let supervised = vec![Arc::clone(&controller)];
    serve(controller, supervised, listen, security, shutdown)
}

/// Runs a fabric's controllers (each switch's supervisor loop), the job
/// API over them secured by `security`, and the metrics endpoint (counters
/// summed over each job's switches), until `shutdown` completes.
pub fn run_fabric_controller(
    fabric: Arc<FabricController<GrpcSwitch>>,
    listen: Listen,
    security: ApiSecurity,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), RunError> {
    let supervised = fabric.controllers().values().cloned().collect();
    serve(fabric, supervised, listen, security, shutdown)
}

/// Serves the job API and the metrics over `backend`, and supervises
/// `supervised`, until `shutdown` completes.
fn serve<B: JobsBackend>(
    backend: Arc<B>,
    supervised: Vec<Arc<Controller<GrpcSwitch>>>,
    listen: Listen,
    security: ApiSecurity,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), RunError> {
    let refused = Arc::clone(&security.refused);
    let api_addr = listen.api;
    let api = api::router(Arc::clone(&backend), api_addr, security)?;
    runtime()?.block_on(async {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|s| *s).await;
        };
        let bind = |addr: SocketAddr| async move {
            tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|source| RunError::Listen { addr, source })
        };
        let listener = bind(api_addr).await?;
        tracing::info!(api = %api_addr, "job API listening");
        let mut tasks = tokio::task::JoinSet::new();
        if let Some(addr) = listen.metrics {
            let metrics = bind(addr).await?;
            tracing::info!("metrics on http://{addr}/metrics");
            tasks.spawn(crate::metrics::serve(
                backend,
                refused,
                metrics,
                stopped(stop_rx.clone()),
            ));
        }
        for controller in supervised {
            tasks.spawn(controller.run(stopped(stop_rx.clone())));
        }
        let api = api.serve_with_incoming_shutdown(
            tokio_stream::wrappers::TcpListenerStream::new(listener),
            stopped(stop_rx.clone()),
        );
        tasks.spawn(async move {
            if let Err(e) = api.await {
                tracing::error!("job API: {e}");
            }
        });
        shutdown.await;
        let _ = stop_tx.send(true);
        while tasks.join_next().await.is_some() {}
        Ok(())
    })
}

/// What `esa jobs` asks the controller.
#[derive(Debug, Clone)]
pub enum JobsRequest {
    /// The jobs and their counters.
    List,
    /// Admit a job.
    Admit(proto::AdmitJobRequest),
    /// Release a job.
    Release(u32),
}

/// Where `esa jobs` finds the controller and how it proves who it is.
#[derive(Debug, Clone, Default)]
pub struct JobsClientConfig {
    /// The job API's address (`host:port` or a URL).
    pub controller: String,
    /// TLS: the CA the controller's certificate is checked against.
    pub security: ClientSecurity,
    /// The tenant's token, if the controller wants one.
    pub token: Option<String>,
}

/// Sends `request` to the controller's job API; returns what to print.
pub fn run_jobs(client: &JobsClientConfig, request: JobsRequest) -> Result<String, RunError> {
    let plaintext = client.security.ca.is_none();
    let addr = client.security.url(&client.controller);
    let refused = |status: tonic::Status| {
        let no_answer = matches!(
            status.code(),
            tonic::Code::Cancelled | tonic::Code::Unavailable | tonic::Code::Unknown
        );
        if plaintext && no_answer {
            RunError::NoPlaintextAnswer {
                addr: addr.clone(),
                status,
            }
        } else {
            RunError::Refused(status)
        }
    };
    runtime()?.block_on(async {
        let mut client = api::connect(
            &client.controller,
            &client.security,
            client.token.as_deref(),
            Duration::from_secs(3),
        )
        .await
        .map_err(|source| RunError::Connect {
            addr: addr.clone(),
            source,
        })?;
        match request {
            JobsRequest::List => {
                let list = client
                    .list_jobs(proto::ListJobsRequest {})
                    .await
                    .map_err(refused)?
                    .into_inner();
                let stats = client
                    .job_stats(proto::JobStatsRequest { job_ids: vec![] })
                    .await
                    .map(|r| r.into_inner().jobs)
                    .unwrap_or_default();
                Ok(jobs_table(&list, &stats))
            }
            JobsRequest::Admit(request) => {
                let job = client
                    .admit_job(request)
                    .await
                    .map_err(refused)?
                    .into_inner()
                    .job
                    .ok_or(RunError::NoJob)?;
                Ok(format!("admitted job {}\n", job.job_id))
            }
            JobsRequest::Release(job) => {
                client
                    .release_job(proto::ReleaseJobRequest { job_id: job })
                    .await
                    .map_err(refused)?;
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
        "drop_spoofed",
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
