//! The job API over gRPC (`esa.controller.v1.Jobs`, see
//! `proto/esa/controller/v1/jobs.proto`): the service, its conversions,
//! [`serve`] (TLS and tokens, see [`crate::auth`]) and the client's
//! [`connect`].

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use esa_core::job::Mode;
use p4runtime_proto::security::{ClientSecurity, SecurityError, ServerSecurity};
use tokio::net::TcpListener;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::transport::server::Router;
use tonic::{Request, Response, Status};

use crate::auth::{Authenticator, BearerToken, Caller, RefusedCalls, Tokens};

use crate::backend::{Role, SwitchBackend};
use crate::controller::{Controller, JobStats};
use crate::error::Error;
use crate::fabric::{FabricController, FabricTopology, TreeJob};
use crate::jobs::{Endpoint, Job, JobRequest, SlotRequest};
use crate::topology::Topology;

/// Messages, client and server of package `esa.controller.v1`.
pub mod proto {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    tonic::include_proto!("esa.controller.v1");
}

pub use proto::jobs_client::JobsClient;
pub use proto::jobs_server::{Jobs, JobsServer};

/// The proto mode of a mode.
pub fn mode_to_proto(mode: Mode) -> proto::Mode {
    match mode {
        Mode::Esa => proto::Mode::Esa,
        Mode::Atp => proto::Mode::Atp,
        Mode::SwitchMl => proto::Mode::Switchml,
    }
}

/// The mode of a proto mode value; `None` for unspecified or unknown.
pub fn mode_from_proto(value: i32) -> Option<Mode> {
    match proto::Mode::try_from(value).ok()? {
        proto::Mode::Esa => Some(Mode::Esa),
        proto::Mode::Atp => Some(Mode::Atp),
        proto::Mode::Switchml => Some(Mode::SwitchMl),
        proto::Mode::Unspecified => None,
    }
}

fn endpoint_from_proto(e: &proto::Endpoint) -> Endpoint {
    if e.host.is_empty() {
        Endpoint::Port(e.port)
    } else {
        Endpoint::Host(e.host.clone())
    }
}

/// The request as the controller's type.
pub fn request_from_proto(r: &proto::AdmitJobRequest) -> JobRequest {
    JobRequest {
        job_id: r.job_id,
        workers: r.workers.iter().map(endpoint_from_proto).collect(),
        ps: r.ps.as_ref().map(endpoint_from_proto),
        max_priority: r.max_priority,
        mode: mode_from_proto(r.mode),
        slots: r.slots.map(|s| SlotRequest {
            base: s.base,
            count: s.count,
        }),
    }
}

fn endpoint_to_proto(port: u16, topology: &Topology) -> proto::Endpoint {
    proto::Endpoint {
        host: topology
            .host_on(port)
            .map(|h| h.name.clone())
            .unwrap_or_default(),
        port: port.into(),
    }
}

/// A job as the proto message.
pub fn job_to_proto(job: &Job, topology: &Topology) -> proto::Job {
    proto::Job {
        job_id: job.id.into(),
        mode: mode_to_proto(job.mode) as i32,
        max_priority: job.max_priority.into(),
        fan_in: job.fan_in().into(),
        workers: job
            .workers
            .iter()
            .map(|&p| endpoint_to_proto(p, topology))
            .collect(),
        ps: Some(endpoint_to_proto(job.ps_port, topology)),
        mcast_group: job.mcast_group.into(),
        slot_base: job.slot_base.into(),
        slot_count: job.slot_count(),
    }
}

/// What the job API serves: one switch's [`Controller`], or a
/// [`FabricController`] over several switches. Each keeps the tenant that
/// admitted each job.
#[tonic::async_trait]
pub trait JobsBackend: Send + Sync + 'static {
    /// Admits a job for tenant `owner`.
    async fn admit_job(&self, request: &JobRequest, owner: &str) -> Result<proto::Job, Error>;
    /// Releases a job.
    async fn release_job(&self, job: u32) -> Result<(), Error>;
    /// Every admitted job, by id.
    async fn list_jobs(&self) -> Vec<(u16, proto::Job)>;
    /// The tenant that admitted `job`, if any.
    async fn job_owner(&self, job: u16) -> Option<String>;
    /// Per-job counters (`ids` empty: every job).
    async fn job_counters(&self, ids: &[u32]) -> Result<Vec<JobStats>, Error>;
    /// Whether it may write (primary on every switch).
    fn is_primary(&self) -> bool;
}

#[tonic::async_trait]
impl<S: SwitchBackend> JobsBackend for Controller<S> {
    async fn admit_job(&self, request: &JobRequest, owner: &str) -> Result<proto::Job, Error> {
        let job = self.admit_for(request, Some(owner)).await?;
        Ok(job_to_proto(&job, self.topology()))
    }
    async fn release_job(&self, job: u32) -> Result<(), Error> {
        self.release(job).await.map(|_| ())
    }
    async fn list_jobs(&self) -> Vec<(u16, proto::Job)> {
        let topology = self.topology();
        self.jobs()
            .await
            .iter()
            .map(|j| (j.id, job_to_proto(j, topology)))
            .collect()
    }
    async fn job_owner(&self, job: u16) -> Option<String> {
        self.owner(job).await
    }
    async fn job_counters(&self, ids: &[u32]) -> Result<Vec<JobStats>, Error> {
        self.stats(ids).await
    }
    fn is_primary(&self) -> bool {
        *self.switch().role().borrow() == Role::Primary
    }
}

#[tonic::async_trait]
impl<S: SwitchBackend> JobsBackend for FabricController<S> {
    async fn admit_job(&self, request: &JobRequest, owner: &str) -> Result<proto::Job, Error> {
        let job = self.admit_for(request, Some(owner)).await?;
        Ok(tree_job_to_proto(&job, self.topology()))
    }
    async fn release_job(&self, job: u32) -> Result<(), Error> {
        self.release(job).await.map(|_| ())
    }
    async fn list_jobs(&self) -> Vec<(u16, proto::Job)> {
        let topology = self.topology();
        self.jobs()
            .await
            .iter()
            .map(|j| (j.id, tree_job_to_proto(j, topology)))
            .collect()
    }
    async fn job_owner(&self, job: u16) -> Option<String> {
        self.owner(job).await
    }
    async fn job_counters(&self, ids: &[u32]) -> Result<Vec<JobStats>, Error> {
        self.stats(ids).await
    }
    fn is_primary(&self) -> bool {
        self.controllers()
            .values()
            .all(|c| *c.switch().role().borrow() == Role::Primary)
    }
}

/// A job across a fabric as the proto message: its workers and PS by
/// host, its fan-in the whole job's workers, its slots the root's (a flat
/// job's: its switch's).
pub fn tree_job_to_proto(job: &TreeJob, topology: &FabricTopology) -> proto::Job {
    let host = |switch: &str, port: u16| proto::Endpoint {
        host: topology
            .host_on(switch, port)
            .map(|h| h.name.clone())
            .unwrap_or_default(),
        port: port.into(),
    };
    let top = job
        .root
        .as_deref()
        .or_else(|| job.parts.keys().next().map(String::as_str))
        .unwrap_or_default();
    let mut workers = vec![];
    match &job.root {
        None => {
            if let Some(flat) = job.parts.get(top) {
                workers.extend(flat.workers.iter().map(|&p| host(top, p)));
            }
        }
        Some(_) => {
            for (switch, leaf, _) in job.leaves() {
                workers.extend(leaf.workers.iter().map(|&p| host(switch, p)));
            }
        }
    }
    let Some(part) = job.parts.get(top) else {
        return proto::Job {
            job_id: job.id.into(),
            ..proto::Job::default()
        };
    };
    proto::Job {
        job_id: job.id.into(),
        mode: mode_to_proto(part.mode) as i32,
        max_priority: part.max_priority.into(),
        fan_in: u32::try_from(workers.len()).unwrap_or(u32::MAX),
        workers,
        ps: Some(host(top, part.ps_port)),
        mcast_group: part.mcast_group.into(),
        slot_base: part.slot_base.into(),
        slot_count: part.slot_count(),
    }
}

/// The gRPC service over a [`JobsBackend`]. Jobs adopted from a switch
/// have no tenant, so only an admin sees them.
#[derive(Debug)]
pub struct JobService<B> {
    backend: Arc<B>,
    refused: Arc<RefusedCalls>,
}

impl<B> JobService<B> {
    /// The service for `backend`, counting refused calls in `refused`.
    pub fn new(backend: Arc<B>, refused: Arc<RefusedCalls>) -> JobService<B> {
        JobService { backend, refused }
    }
}

impl<B: JobsBackend> JobService<B> {
    async fn may_use(&self, caller: &Caller, job: u16) -> bool {
        caller.may_use(self.backend.job_owner(job).await.as_deref())
    }

    /// Refuses `caller` a job it may not use: for a tenant, any job it did
    /// not admit, whether another tenant's, adopted from the switch, or
    /// absent (so a tenant learns nothing of the ids others hold); an
    /// admin's call goes on to the controller (NotFound for an absent job).
    async fn check_use(&self, caller: &Caller, job: u32) -> Result<(), Status> {
        let Ok(id) = u16::try_from(job) else {
            return Ok(());
        };
        if self.may_use(caller, id).await {
            return Ok(());
        }
        Err(self
            .refused
            .refuse_permission(format!("job {job} is not tenant `{}`'s", caller.tenant)))
    }
}

/// The caller the [`Authenticator`] put on the request; a service served
/// without one is open.
fn caller<T>(request: &Request<T>) -> Caller {
    request
        .extensions()
        .get::<Caller>()
        .cloned()
        .unwrap_or_else(Caller::open)
}

#[tonic::async_trait]
impl<B: JobsBackend> Jobs for JobService<B> {
    async fn admit_job(
        &self,
        request: Request<proto::AdmitJobRequest>,
    ) -> Result<Response<proto::AdmitJobResponse>, Status> {
        let caller = caller(&request);
        let request = request_from_proto(request.get_ref());
        let job = self.backend.admit_job(&request, &caller.tenant).await?;
        Ok(Response::new(proto::AdmitJobResponse { job: Some(job) }))
    }

    async fn release_job(
        &self,
        request: Request<proto::ReleaseJobRequest>,
    ) -> Result<Response<proto::ReleaseJobResponse>, Status> {
        let job = request.get_ref().job_id;
        self.check_use(&caller(&request), job).await?;
        self.backend.release_job(job).await?;
        Ok(Response::new(proto::ReleaseJobResponse {}))
    }

    async fn list_jobs(
        &self,
        request: Request<proto::ListJobsRequest>,
    ) -> Result<Response<proto::ListJobsResponse>, Status> {
        let caller = caller(&request);
        let mut jobs = Vec::new();
        for (id, job) in self.backend.list_jobs().await {
            if self.may_use(&caller, id).await {
                jobs.push(job);
            }
        }
        let primary = self.backend.is_primary();
        Ok(Response::new(proto::ListJobsResponse { jobs, primary }))
    }

    async fn job_stats(
        &self,
        request: Request<proto::JobStatsRequest>,
    ) -> Result<Response<proto::JobStatsResponse>, Status> {
        let caller = caller(&request);
        for &job in &request.get_ref().job_ids {
            self.check_use(&caller, job).await?;
        }
        let stats = self
            .backend
            .job_counters(&request.get_ref().job_ids)
            .await?;
        let mut jobs = Vec::new();
        for s in stats {
            if self.may_use(&caller, s.job).await {
                jobs.push(proto::JobCounters {
                    job_id: s.job.into(),
                    counters: s
                        .counters
                        .into_iter()
                        .map(|(name, packets)| proto::Counter { name, packets })
                        .collect(),
                });
            }
        }
        Ok(Response::new(proto::JobStatsResponse { jobs }))
    }
}

/// How the job API is secured: TLS and the listening rule, and tokens.
#[derive(Debug, Clone, Default)]
pub struct ApiSecurity {
    /// TLS, and whether plaintext may be served beyond loopback.
    pub server: ServerSecurity,
    /// The tenants' tokens; `None`: an open API (every caller an admin).
    pub tokens: Option<Tokens>,
    /// Where refused calls are counted.
    pub refused: Arc<RefusedCalls>,
}

/// The job API's server for a listener on `addr`, secured by `security`:
/// refuses a plaintext listener beyond loopback unless
/// `security.server.insecure`, and TLS files it cannot use, before anything
/// is served.
pub fn router<B: JobsBackend>(
    controller: Arc<B>,
    addr: SocketAddr,
    security: ApiSecurity,
) -> Result<Router, ServeError> {
    security.server.check_listen(addr)?;
    let service = JobService::new(controller, Arc::clone(&security.refused));
    let authenticator = Authenticator::new(security.tokens, security.refused);
    Ok(security
        .server
        .server_builder()?
        .add_service(JobsServer::with_interceptor(service, authenticator)))
}

/// Serves the job API on `listener`, secured by `security` (see
/// [`router`]), until `shutdown` completes.
pub async fn serve<B: JobsBackend>(
    controller: Arc<B>,
    listener: TcpListener,
    security: ApiSecurity,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let addr = listener.local_addr().map_err(ServeError::Listener)?;
    router(controller, addr, security)?
        .serve_with_incoming_shutdown(
            tokio_stream::wrappers::TcpListenerStream::new(listener),
            shutdown,
        )
        .await
        .map_err(ServeError::Serve)
}

/// Why the job API stopped or did not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The listener has no address.
    #[error("job API listener")]
    Listener(#[source] std::io::Error),
    /// TLS or the address was refused.
    #[error(transparent)]
    Security(#[from] SecurityError),
    /// The gRPC server failed.
    #[error("job API server")]
    Serve(#[source] tonic::transport::Error),
}

/// A job-API client that sends its tenant's token.
pub type TokenJobsClient = JobsClient<InterceptedService<Channel, BearerToken>>;

/// Why a job-API client could not connect.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The controller could not be reached, or TLS not set up.
    #[error(transparent)]
    Security(#[from] SecurityError),
    /// The token cannot be sent.
    #[error("token: {0}")]
    Token(String),
}

/// Connects to the job API at `addr` within `timeout`, verifying TLS with
/// `security` and sending `token` with every call.
pub async fn connect(
    addr: &str,
    security: &ClientSecurity,
    token: Option<&str>,
    timeout: Duration,
) -> Result<TokenJobsClient, ConnectError> {
    let bearer = BearerToken::new(token).map_err(ConnectError::Token)?;
    let channel = security.connect(addr, timeout).await?;
    Ok(JobsClient::with_interceptor(channel, bearer))
}
