//! The P4Runtime service: arbitration on the stream channel, pipeline
//! configuration, Write and Read on the [`Device`](crate::device::Device),
//! packet I/O through the CPU port, and Capabilities. What it shares with
//! the packet thread is `state::SwitchState`.

use std::sync::Arc;

use p4runtime_proto::arbitration::{Arbitration, from_uint128};
use p4runtime_proto::google::rpc;
use p4runtime_proto::p4::config::v1::P4Info;
use p4runtime_proto::p4::v1::{
    self as v1, CapabilitiesRequest, CapabilitiesResponse, ForwardingPipelineConfig,
    GetForwardingPipelineConfigRequest, GetForwardingPipelineConfigResponse, ReadRequest,
    ReadResponse, SetForwardingPipelineConfigRequest, SetForwardingPipelineConfigResponse,
    StreamError, StreamMessageRequest, StreamMessageResponse, Uint128, WriteRequest, WriteResponse,
    stream_message_request, stream_message_response,
};
use p4runtime_proto::prost::Message;
use p4runtime_proto::security::peer_names;
use p4runtime_proto::tonic::{self, Code, Request, Response, Status, Streaming};
use p4runtime_proto::{P4RUNTIME_API_VERSION, P4Runtime};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::device::UpdateError;
use crate::inbound::FrameBatch;
use crate::program::{Program, Source};
use crate::state::{Configured, StreamTx, SwitchState};

/// Messages queued per stream before PacketIns are dropped.
const STREAM_QUEUE: usize = 1024;
/// Entities per ReadResponse.
const READ_CHUNK: usize = 1000;

/// Tells every arbitrated stream who the primary is.
fn announce(arbitration: &Arbitration<StreamTx>, device_id: u64) {
    for (tx, update) in arbitration.updates(device_id) {
        let _ = tx.try_send(Ok(StreamMessageResponse {
            update: Some(stream_message_response::Update::Arbitration(update)),
        }));
    }
}

/// The checks every request makes of the switch it names.
impl SwitchState {
    fn check_device(&self, device_id: u64) -> Result<(), Status> {
        if device_id != self.device_id {
            return Err(Status::not_found(format!(
                "this switch is device {}, not {device_id}",
                self.device_id
            )));
        }
        Ok(())
    }

    /// A request's role must be one the policy knows (by name: the
    /// deprecated numeric `role_id` must be 0) and open to the client's
    /// certificate.
    fn check_role(&self, role_id: u64, role: &str, peer: &[String]) -> Result<(), Status> {
        if role_id != 0 {
            return Err(Status::unimplemented(
                "roles are named (Role.name, the request's role); role_id is not supported",
            ));
        }
        self.roles
            .check_client(role, peer)
            .map_err(|s| self.refused_by_role(s))
    }

    fn check_primary(&self, role: &str, election_id: Option<&Uint128>) -> Result<(), Status> {
        self.arbitration().check_primary(role, election_id)
    }

    /// The names the client's certificate carries, when the policy binds
    /// roles to clients (otherwise nothing is parsed).
    fn peer_of<T>(&self, request: &Request<T>) -> Vec<String> {
        if !self.roles.binds_clients() {
            return Vec::new();
        }
        request
            .peer_certs()
            .map(|chain| peer_names(&chain))
            .unwrap_or_default()
    }
}

/// The P4Runtime gRPC service of one switch.
#[derive(Debug, Clone)]
pub struct Service {
    state: Arc<SwitchState>,
}

impl Service {
    pub(crate) fn new(state: Arc<SwitchState>) -> Service {
        Service { state }
    }
}

/// The `UNKNOWN` status of a batch with failures: a `google.rpc.Status`
/// whose details hold one `p4.v1.Error` per update, in order.
fn batch_status(results: &[Result<(), UpdateError>]) -> Status {
    let failed = results.iter().filter(|r| r.is_err()).count();
    let first = results
        .iter()
        .enumerate()
        .find_map(|(i, r)| r.as_ref().err().map(|e| (i, e)));
    let message = match first {
        Some((i, e)) => format!(
            "{failed} of {} updates failed; first (update {i}): {}",
            results.len(),
            e.message
        ),
        None => "batch failed".to_string(),
    };
    let details = results
        .iter()
        .map(|r| {
            let error = match r {
                Ok(()) => v1::Error {
                    canonical_code: Code::Ok as i32,
                    ..Default::default()
                },
                Err(e) => v1::Error {
                    canonical_code: e.code as i32,
                    message: e.message.clone(),
                    ..Default::default()
                },
            };
            p4runtime_proto::prost_types::Any {
                type_url: "type.googleapis.com/p4.v1.Error".to_string(),
                value: error.encode_to_vec(),
            }
        })
        .collect();
    let status = rpc::Status {
        code: Code::Unknown as i32,
        message: message.clone(),
        details,
    };
    Status::with_details(
        Code::Unknown,
        message,
        tonic::codegen::Bytes::from(status.encode_to_vec()),
    )
}

type BoxStream<T> = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl P4Runtime for Service {
    async fn write(
        &self,
        request: Request<WriteRequest>,
    ) -> Result<Response<WriteResponse>, Status> {
        let state = &self.state;
        let peer = state.peer_of(&request);
        let req = request.into_inner();
        state.check_device(req.device_id)?;
        #[allow(deprecated)]
        state.check_role(req.role_id, &req.role, &peer)?;
        state.check_primary(&req.role, req.election_id.as_ref())?;
        if req.atomicity != v1::write_request::Atomicity::ContinueOnError as i32 {
            return Err(Status::unimplemented(
                "only CONTINUE_ON_ERROR atomicity is supported",
            ));
        }
        let results: Vec<Result<(), UpdateError>> = {
            let mut guard = state.lock_device();
            let Some(device) = guard.as_mut() else {
                return Err(Status::failed_precondition(
                    "no forwarding pipeline is configured",
                ));
            };
            req.updates
                .iter()
                .map(|u| {
                    let kind = v1::update::Type::try_from(u.r#type).map_err(|_| {
                        UpdateError::new(Code::InvalidArgument, "unknown update type")
                    })?;
                    let entity = u.entity.as_ref().ok_or_else(|| {
                        UpdateError::new(Code::InvalidArgument, "update without an entity")
                    })?;
                    state
                        .roles
                        .check_write(&req.role, &device.program().p4info, entity)
                        .map_err(|s| {
                            let s = state.refused_by_role(s);
                            UpdateError::new(s.code(), s.message())
                        })?;
                    device.write(kind, entity)
                })
                .collect()
        };
        for (i, r) in results.iter().enumerate() {
            if let Err(e) = r {
                tracing::debug!(update = i, "write failed: {e}");
            }
        }
        if results.iter().any(|r| r.is_err()) {
            return Err(batch_status(&results));
        }
        Ok(Response::new(WriteResponse {}))
    }

    type ReadStream = BoxStream<ReadResponse>;

    async fn read(
        &self,
        request: Request<ReadRequest>,
    ) -> Result<Response<Self::ReadStream>, Status> {
        let peer = self.state.peer_of(&request);
        let req = request.into_inner();
        self.state.check_device(req.device_id)?;
        self.state.check_role(0, &req.role, &peer)?;
        let entities = {
            let mut guard = self.state.lock_device();
            let Some(device) = guard.as_mut() else {
                return Err(Status::failed_precondition(
                    "no forwarding pipeline is configured",
                ));
            };
            let mut all = Vec::new();
            for e in &req.entities {
                all.extend(device.read(e).map_err(|e| Status::new(e.code, e.message))?);
            }
            all
        };
        let mut responses: Vec<Result<ReadResponse, Status>> = entities
            .chunks(READ_CHUNK)
            .map(|c| {
                Ok(ReadResponse {
                    entities: c.to_vec(),
                })
            })
            .collect();
        if responses.is_empty() {
            responses.push(Ok(ReadResponse { entities: vec![] }));
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(responses))))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        request: Request<SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<SetForwardingPipelineConfigResponse>, Status> {
        use v1::set_forwarding_pipeline_config_request::Action;
        let state = self.state.clone();
        let peer = state.peer_of(&request);
        let req = request.into_inner();
        state.check_device(req.device_id)?;
        #[allow(deprecated)]
        state.check_role(req.role_id, &req.role, &peer)?;
        state.check_primary(&req.role, req.election_id.as_ref())?;
        state
            .roles
            .check_pipeline(&req.role)
            .map_err(|s| state.refused_by_role(s))?;
        let action =
            Action::try_from(req.action).map_err(|_| Status::invalid_argument("unknown action"))?;
        match action {
            Action::Unspecified => {
                return Err(Status::invalid_argument("action is UNSPECIFIED"));
            }
            Action::ReconcileAndCommit => {
                return Err(Status::unimplemented(
                    "RECONCILE_AND_COMMIT is not supported (use VERIFY_AND_COMMIT)",
                ));
            }
            Action::Commit => {
                let saved = state.take_saved().ok_or_else(|| {
                    Status::failed_precondition("COMMIT without a saved config (VERIFY_AND_SAVE)")
                })?;
                tracing::info!("committing the saved pipeline");
                state.commit(saved);
                return Ok(Response::new(SetForwardingPipelineConfigResponse {}));
            }
            Action::Verify | Action::VerifyAndSave | Action::VerifyAndCommit => {}
        }
        let config = req
            .config
            .ok_or_else(|| Status::invalid_argument("no config"))?;
        let text = String::from_utf8(config.p4_device_config.clone()).map_err(|_| {
            Status::invalid_argument(
                "p4_device_config must be the P4 program's source text (UTF-8)",
            )
        })?;
        if text.trim().is_empty() {
            return Err(Status::invalid_argument(
                "p4_device_config is empty: it must be the P4 program's source text",
            ));
        }
        let include_dirs = state.include_dirs.clone();
        let program =
            tokio::task::spawn_blocking(move || Program::load(Source::Text(&text), &include_dirs))
                .await
                .map_err(|e| Status::internal(format!("compiler task failed: {e}")))?
                .map_err(|e| {
                    Status::invalid_argument(format!("the P4 program does not compile: {e}"))
                })?;
        if let Some(client) = &config.p4info {
            program
                .check_client_p4info(client)
                .map_err(|e| Status::invalid_argument(format!("P4Info mismatch: {e}")))?;
        }
        let p4info: P4Info = config
            .p4info
            .clone()
            .unwrap_or_else(|| program.p4info.clone());
        let configured = Configured {
            program: Arc::new(program),
            config: ForwardingPipelineConfig {
                p4info: Some(p4info),
                p4_device_config: config.p4_device_config,
                cookie: config.cookie,
            },
        };
        match action {
            Action::VerifyAndSave => state.save(configured),
            Action::VerifyAndCommit => {
                tracing::info!("new forwarding pipeline committed");
                state.commit(configured);
            }
            _ => {}
        }
        Ok(Response::new(SetForwardingPipelineConfigResponse {}))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        request: Request<GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<GetForwardingPipelineConfigResponse>, Status> {
        use v1::get_forwarding_pipeline_config_request::ResponseType;
        let req = request.into_inner();
        self.state.check_device(req.device_id)?;
        let configured = self
            .state
            .configured()
            .ok_or_else(|| Status::failed_precondition("no forwarding pipeline is configured"))?;
        let mut config = configured.config;
        match ResponseType::try_from(req.response_type) {
            Ok(ResponseType::All) => {}
            Ok(ResponseType::CookieOnly) => {
                config.p4info = None;
                config.p4_device_config.clear();
            }
            Ok(ResponseType::P4infoAndCookie) => config.p4_device_config.clear(),
            Ok(ResponseType::DeviceConfigAndCookie) => config.p4info = None,
            Err(_) => return Err(Status::invalid_argument("unknown response_type")),
        }
        Ok(Response::new(GetForwardingPipelineConfigResponse {
            config: Some(config),
        }))
    }

    type StreamChannelStream = ReceiverStream<Result<StreamMessageResponse, Status>>;

    async fn stream_channel(
        &self,
        request: Request<Streaming<StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let peer = self.state.peer_of(&request);
        let mut incoming = request.into_inner();
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let state = self.state.clone();
        let id = state.arbitration().open(tx.clone());
        tracing::debug!(stream = id, "stream channel opened");
        tokio::spawn(async move {
            while let Some(message) = incoming.next().await {
                let message = match message {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::debug!(stream = id, "stream error: {e}");
                        break;
                    }
                };
                if let Err(status) = handle_stream_message(&state, id, &peer, &tx, message) {
                    let _ = tx.send(Err(status)).await;
                    break;
                }
            }
            let mut a = state.arbitration();
            if a.close(id) {
                announce(&a, state.device_id);
            }
            tracing::debug!(stream = id, "stream channel closed");
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn capabilities(
        &self,
        _request: Request<CapabilitiesRequest>,
    ) -> Result<Response<CapabilitiesResponse>, Status> {
        Ok(Response::new(CapabilitiesResponse {
            p4runtime_api_version: P4RUNTIME_API_VERSION.to_string(),
            ..Default::default()
        }))
    }
}

/// Handles one message of a stream channel; an error ends the stream.
fn handle_stream_message(
    state: &SwitchState,
    id: u64,
    peer: &[String],
    tx: &StreamTx,
    message: StreamMessageRequest,
) -> Result<(), Status> {
    let arbitrated = state.arbitration().is_arbitrated(id);
    match message.update {
        Some(stream_message_request::Update::Arbitration(a)) => {
            state.check_device(a.device_id)?;
            let role = a.role.clone().unwrap_or_default();
            if role.config.is_some() {
                return Err(Status::unimplemented(
                    "a client's role config is not taken: the switch's role policy \
                     (esa switch --roles) says what each role may write",
                ));
            }
            #[allow(deprecated)]
            state.check_role(role.id, &role.name, peer)?;
            let election_id = from_uint128(&a.election_id.unwrap_or_default());
            let mut arbitration = state.arbitration();
            arbitration.arbitrate(id, &role.name, election_id)?;
            tracing::info!(stream = id, role = role.name, election_id, "arbitration");
            announce(&arbitration, state.device_id);
            Ok(())
        }
        _ if !arbitrated => Err(Status::failed_precondition(
            "the first message on a stream channel must be a MasterArbitrationUpdate",
        )),
        Some(stream_message_request::Update::Packet(p)) => {
            tracing::trace!(stream = id, "PacketOut received");
            let is_primary = state.arbitration().is_primary(id);
            let error = |code: Code, message: String| {
                let _ = tx.try_send(Ok(StreamMessageResponse {
                    update: Some(stream_message_response::Update::Error(StreamError {
                        canonical_code: code as i32,
                        message,
                        details: Some(v1::stream_error::Details::PacketOut(v1::PacketOutError {
                            packet_out: Some(p.clone()),
                        })),
                        ..Default::default()
                    })),
                }));
            };
            if !is_primary {
                error(
                    Code::PermissionDenied,
                    "only the primary may send packets".into(),
                );
                return Ok(());
            }
            let Some(cpu_port) = state.cpu_port else {
                error(
                    Code::FailedPrecondition,
                    "the switch has no CPU port (start it with --cpu-port)".into(),
                );
                return Ok(());
            };
            let header = state
                .lock_device()
                .as_ref()
                .map(|d| d.program().packet_out.clone());
            let Some(header) = header else {
                error(
                    Code::FailedPrecondition,
                    "no forwarding pipeline is configured".into(),
                );
                return Ok(());
            };
            let frame = match header {
                Some(h) => match h.encode(&p.metadata) {
                    Ok(mut bytes) => {
                        bytes.extend_from_slice(&p.payload);
                        bytes
                    }
                    Err(m) => {
                        error(Code::InvalidArgument, m);
                        return Ok(());
                    }
                },
                None => p.payload.clone(),
            };
            tracing::trace!(stream = id, len = frame.len(), "packet out");
            if state
                .inbound()
                .send_frames(FrameBatch::one(cpu_port, &frame))
                .is_err()
            {
                error(Code::Unavailable, "the switch is stopping".into());
            }
            Ok(())
        }
        Some(stream_message_request::Update::DigestAck(_)) => {
            // Digests are never sent, so there is nothing to acknowledge.
            Ok(())
        }
        Some(stream_message_request::Update::Other(_)) | None => {
            let _ = tx.try_send(Ok(StreamMessageResponse {
                update: Some(stream_message_response::Update::Error(StreamError {
                    canonical_code: Code::Unimplemented as i32,
                    message: "unsupported stream message".into(),
                    ..Default::default()
                })),
            }));
            Ok(())
        }
    }
}
