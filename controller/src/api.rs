//! The job API over gRPC (`esa.controller.v1.Jobs`, see
//! `proto/esa/controller/v1/jobs.proto`): the service, its conversions and
//! [`serve`].

use std::future::Future;
use std::sync::Arc;

use esa_core::job::Mode;
use tokio::net::TcpListener;
use tonic::{Request, Response, Status};

use crate::backend::{Role, SwitchBackend};
use crate::controller::Controller;
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

/// The gRPC service over a [`Controller`].
#[derive(Debug)]
pub struct JobService<S> {
    controller: Arc<Controller<S>>,
}

impl<S> JobService<S> {
    /// The service for `controller`.
    pub fn new(controller: Arc<Controller<S>>) -> JobService<S> {
        JobService { controller }
    }
}

#[tonic::async_trait]
impl<S: SwitchBackend> Jobs for JobService<S> {
    async fn admit_job(
        &self,
        request: Request<proto::AdmitJobRequest>,
    ) -> Result<Response<proto::AdmitJobResponse>, Status> {
        let request = request_from_proto(request.get_ref());
        let job = self.controller.admit(&request).await?;
        Ok(Response::new(proto::AdmitJobResponse {
            job: Some(job_to_proto(&job, self.controller.topology())),
        }))
    }

    async fn release_job(
        &self,
        request: Request<proto::ReleaseJobRequest>,
    ) -> Result<Response<proto::ReleaseJobResponse>, Status> {
        self.controller.release(request.get_ref().job_id).await?;
        Ok(Response::new(proto::ReleaseJobResponse {}))
    }

    async fn list_jobs(
        &self,
        _request: Request<proto::ListJobsRequest>,
    ) -> Result<Response<proto::ListJobsResponse>, Status> {
        let topology = self.controller.topology();
        let jobs = self
            .controller
            .jobs()
            .await
            .iter()
            .map(|j| job_to_proto(j, topology))
            .collect();
        let primary = *self.controller.switch().role().borrow() == Role::Primary;
        Ok(Response::new(proto::ListJobsResponse { jobs, primary }))
    }

    async fn job_stats(
        &self,
        request: Request<proto::JobStatsRequest>,
    ) -> Result<Response<proto::JobStatsResponse>, Status> {
        let stats = self.controller.stats(&request.get_ref().job_ids).await?;
        let jobs = stats
            .into_iter()
            .map(|s| proto::JobCounters {
                job_id: s.job.into(),
                counters: s
                    .counters
                    .into_iter()
                    .map(|(name, packets)| proto::Counter { name, packets })
                    .collect(),
            })
            .collect();
        Ok(Response::new(proto::JobStatsResponse { jobs }))
    }
}

/// Serves the job API on `listener` until `shutdown` completes.
pub async fn serve<S: SwitchBackend>(
    controller: Arc<Controller<S>>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    tonic::transport::Server::builder()
        .add_service(JobsServer::new(JobService::new(controller)))
        .serve_with_incoming_shutdown(
            tokio_stream::wrappers::TcpListenerStream::new(listener),
            shutdown,
        )
        .await
}
