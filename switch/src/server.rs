//! The P4Runtime service: arbitration on the stream channel, pipeline
//! configuration, Write and Read on the [`Device`], packet I/O through the
//! CPU port, and Capabilities.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use p4runtime_proto::arbitration::{Arbitration, from_uint128};
use p4runtime_proto::bytestring;
use p4runtime_proto::google::rpc;
use p4runtime_proto::p4::config::v1::P4Info;
use p4runtime_proto::p4::v1::{
    self as v1, CapabilitiesRequest, CapabilitiesResponse, ForwardingPipelineConfig,
    GetForwardingPipelineConfigRequest, GetForwardingPipelineConfigResponse, PacketIn,
    PacketMetadata, ReadRequest, ReadResponse, SetForwardingPipelineConfigRequest,
    SetForwardingPipelineConfigResponse, StreamError, StreamMessageRequest, StreamMessageResponse,
    Uint128, WriteRequest, WriteResponse, stream_message_request, stream_message_response,
};
use p4runtime_proto::prost::Message;
use p4runtime_proto::tonic::{self, Code, Request, Response, Status, Streaming};
use p4runtime_proto::{P4RUNTIME_API_VERSION, P4Runtime};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::codec;
use crate::device::{Device, UpdateError};
use crate::ports::{Inbound, InboundSender};
use crate::program::{ControllerHeader, Program, Source};

/// Messages queued per stream before PacketIns are dropped.
const STREAM_QUEUE: usize = 1024;
/// Entities per ReadResponse.
const READ_CHUNK: usize = 1000;

type StreamTx = mpsc::Sender<Result<StreamMessageResponse, Status>>;

/// Tells every arbitrated stream who the primary is.
fn announce(arbitration: &Arbitration<StreamTx>, device_id: u64) {
    for (tx, update) in arbitration.updates(device_id) {
        let _ = tx.try_send(Ok(StreamMessageResponse {
            update: Some(stream_message_response::Update::Arbitration(update)),
        }));
    }
}

/// The pipeline as configured through P4Runtime.
#[derive(Debug, Clone)]
struct Configured {
    program: Arc<Program>,
    /// What GetForwardingPipelineConfig returns.
    config: ForwardingPipelineConfig,
}

/// State shared by the gRPC service and the packet thread.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) device_id: u64,
    pub(crate) cpu_port: Option<u32>,
    include_dirs: Vec<PathBuf>,
    device: Mutex<Option<Device>>,
    configured: Mutex<Option<Configured>>,
    saved: Mutex<Option<Configured>>,
    arbitration: Mutex<Arbitration<StreamTx>>,
    inbound: Mutex<InboundSender>,
    unknown_port: AtomicU64,
    packet_in_dropped: AtomicU64,
}

/// Locks a mutex, taking over the data if a holder panicked (the state is
/// updated in single steps, so it is still consistent).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub(crate) fn new(
        device_id: u64,
        cpu_port: Option<u32>,
        include_dirs: Vec<PathBuf>,
        inbound: InboundSender,
    ) -> Shared {
        Shared {
            device_id,
            cpu_port,
            include_dirs,
            device: Mutex::new(None),
            configured: Mutex::new(None),
            saved: Mutex::new(None),
            arbitration: Mutex::new(Arbitration::default()),
            inbound: Mutex::new(inbound),
            unknown_port: AtomicU64::new(0),
            packet_in_dropped: AtomicU64::new(0),
        }
    }

    pub(crate) fn lock_device(&self) -> MutexGuard<'_, Option<Device>> {
        lock(&self.device)
    }

    /// Installs a program loaded at start-up (as if a controller had
    /// committed it without a P4Info).
    pub(crate) fn install(&self, program: Program) {
        let program = Arc::new(program);
        let config = ForwardingPipelineConfig {
            p4info: Some(program.p4info.clone()),
            p4_device_config: program.source.clone(),
            cookie: None,
        };
        self.commit(Configured { program, config });
    }

    fn commit(&self, c: Configured) {
        *self.lock_device() = Some(Device::new(c.program.clone()));
        *lock(&self.configured) = Some(c);
    }

    pub(crate) fn inbound(&self) -> InboundSender {
        lock(&self.inbound).clone()
    }

    pub(crate) fn count_unknown_port(&self) {
        self.unknown_port.fetch_add(1, Ordering::Relaxed);
    }

    /// Frames sent to ports that do not exist.
    pub(crate) fn unknown_port_frames(&self) -> u64 {
        self.unknown_port.load(Ordering::Relaxed)
    }

    /// PacketIns dropped (no primary, or its stream full).
    pub(crate) fn packet_in_drops(&self) -> u64 {
        self.packet_in_dropped.load(Ordering::Relaxed)
    }

    /// Delivers a frame the pipeline sent to the CPU port to the primary
    /// controller, its `packet_in` header turned into metadata.
    pub(crate) fn packet_in(&self, frame: &[u8], header: Option<&ControllerHeader>) {
        let (metadata, payload) = match header {
            Some(h) => match decode_header(h, frame) {
                Some(x) => x,
                None => {
                    tracing::warn!(
                        len = frame.len(),
                        "frame to the CPU port is shorter than packet_in"
                    );
                    self.packet_in_dropped.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            },
            None => (Vec::new(), frame.to_vec()),
        };
        let arbitration = lock(&self.arbitration);
        let delivered = arbitration.primary().is_some_and(|tx| {
            tx.try_send(Ok(StreamMessageResponse {
                update: Some(stream_message_response::Update::Packet(PacketIn {
                    payload,
                    metadata,
                })),
            }))
            .is_ok()
        });
        if !delivered {
            self.packet_in_dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn check_device(&self, device_id: u64) -> Result<(), Status> {
        if device_id != self.device_id {
            return Err(Status::not_found(format!(
                "this switch is device {}, not {device_id}",
                self.device_id
            )));
        }
        Ok(())
    }

    fn check_role(role_id: u64, role: &str) -> Result<(), Status> {
        if role_id != 0 || !role.is_empty() {
            return Err(Status::unimplemented("only the default role is supported"));
        }
        Ok(())
    }

    fn check_primary(&self, election_id: Option<&Uint128>) -> Result<(), Status> {
        lock(&self.arbitration).check_primary(election_id)
    }
}

/// Reads a controller header's fields off the front of a frame.
fn decode_header(h: &ControllerHeader, frame: &[u8]) -> Option<(Vec<PacketMetadata>, Vec<u8>)> {
    let len = h.byte_len();
    if frame.len() < len {
        return None;
    }
    let mut offset = 0usize;
    let mut metadata = Vec::new();
    for (id, _, width) in &h.fields {
        let w = *width as usize;
        let mut value = vec![0u8; w.div_ceil(8)];
        for i in 0..w {
            let bit = offset + i;
            if frame[bit / 8] & (0x80 >> (bit % 8)) != 0 {
                // Bit i of the field, counted from its most significant.
                let pos = w - 1 - i;
                let n = value.len();
                value[n - 1 - pos / 8] |= 1 << (pos % 8);
            }
        }
        offset += w;
        metadata.push(PacketMetadata {
            metadata_id: *id,
            value: bytestring::canonical(&value),
        });
    }
    Some((metadata, frame[len..].to_vec()))
}

/// Builds a controller header from PacketOut metadata (absent fields are 0).
fn encode_header(h: &ControllerHeader, metadata: &[PacketMetadata]) -> Result<Vec<u8>, String> {
    for m in metadata {
        if !h.fields.iter().any(|f| f.0 == m.metadata_id) {
            return Err(format!(
                "packet_out has no metadata field with id {}",
                m.metadata_id
            ));
        }
    }
    let mut out = vec![0u8; h.byte_len()];
    let mut offset = 0usize;
    for (id, name, width) in &h.fields {
        let w = *width as usize;
        if let Some(m) = metadata.iter().find(|m| m.metadata_id == *id) {
            let value = codec::check(&m.value, *width)
                .map_err(|e| format!("packet_out metadata `{name}`: {e}"))?;
            let n = value.len();
            for i in 0..w {
                let pos = w - 1 - i;
                let byte = pos / 8;
                if byte < n && value[n - 1 - byte] & (1 << (pos % 8)) != 0 {
                    let bit = offset + i;
                    out[bit / 8] |= 0x80 >> (bit % 8);
                }
            }
        }
        offset += w;
    }
    Ok(out)
}

/// The P4Runtime gRPC service of one switch.
#[derive(Debug, Clone)]
pub struct Service {
    shared: Arc<Shared>,
}

impl Service {
    pub(crate) fn new(shared: Arc<Shared>) -> Service {
        Service { shared }
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
        let req = request.into_inner();
        let shared = &self.shared;
        shared.check_device(req.device_id)?;
        #[allow(deprecated)]
        Shared::check_role(req.role_id, &req.role)?;
        shared.check_primary(req.election_id.as_ref())?;
        if req.atomicity != v1::write_request::Atomicity::ContinueOnError as i32 {
            return Err(Status::unimplemented(
                "only CONTINUE_ON_ERROR atomicity is supported",
            ));
        }
        let results: Vec<Result<(), UpdateError>> = {
            let mut guard = shared.lock_device();
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
        let req = request.into_inner();
        self.shared.check_device(req.device_id)?;
        Shared::check_role(0, &req.role)?;
        let entities = {
            let mut guard = self.shared.lock_device();
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
        let req = request.into_inner();
        let shared = self.shared.clone();
        shared.check_device(req.device_id)?;
        #[allow(deprecated)]
        Shared::check_role(req.role_id, &req.role)?;
        shared.check_primary(req.election_id.as_ref())?;
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
                let saved = lock(&shared.saved).take().ok_or_else(|| {
                    Status::failed_precondition("COMMIT without a saved config (VERIFY_AND_SAVE)")
                })?;
                tracing::info!("committing the saved pipeline");
                shared.commit(saved);
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
        let include_dirs = shared.include_dirs.clone();
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
            Action::VerifyAndSave => *lock(&shared.saved) = Some(configured),
            Action::VerifyAndCommit => {
                tracing::info!("new forwarding pipeline committed");
                shared.commit(configured);
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
        self.shared.check_device(req.device_id)?;
        let configured = lock(&self.shared.configured)
            .clone()
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
        let mut incoming = request.into_inner();
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let shared = self.shared.clone();
        let id = lock(&shared.arbitration).open(tx.clone());
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
                if let Err(status) = handle_stream_message(&shared, id, &tx, message) {
                    let _ = tx.send(Err(status)).await;
                    break;
                }
            }
            let mut a = lock(&shared.arbitration);
            if a.close(id) {
                announce(&a, shared.device_id);
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
    shared: &Shared,
    id: u64,
    tx: &StreamTx,
    message: StreamMessageRequest,
) -> Result<(), Status> {
    let arbitrated = lock(&shared.arbitration).is_arbitrated(id);
    match message.update {
        Some(stream_message_request::Update::Arbitration(a)) => {
            shared.check_device(a.device_id)?;
            #[allow(deprecated)]
            if let Some(role) = &a.role
                && (role.id != 0 || !role.name.is_empty() || role.config.is_some())
            {
                return Err(Status::unimplemented("only the default role is supported"));
            }
            let election_id = from_uint128(&a.election_id.unwrap_or_default());
            let mut arbitration = lock(&shared.arbitration);
            arbitration.arbitrate(id, election_id)?;
            tracing::info!(stream = id, election_id, "arbitration");
            announce(&arbitration, shared.device_id);
            Ok(())
        }
        _ if !arbitrated => Err(Status::failed_precondition(
            "the first message on a stream channel must be a MasterArbitrationUpdate",
        )),
        Some(stream_message_request::Update::Packet(p)) => {
            tracing::trace!(stream = id, "PacketOut received");
            let is_primary = lock(&shared.arbitration).is_primary(id);
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
            let Some(cpu_port) = shared.cpu_port else {
                error(
                    Code::FailedPrecondition,
                    "the switch has no CPU port (start it with --cpu-port)".into(),
                );
                return Ok(());
            };
            let header = shared
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
                Some(h) => match encode_header(&h, &p.metadata) {
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
            if shared
                .inbound()
                .send(Inbound::Frame {
                    port: cpu_port,
                    data: frame,
                })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_header_round_trip() {
        let h = ControllerHeader {
            fields: vec![(1, "port".into(), 9), (2, "pad".into(), 7)],
        };
        let md = vec![PacketMetadata {
            metadata_id: 1,
            value: vec![1, 0x23],
        }];
        let bytes = encode_header(&h, &md).unwrap();
        assert_eq!(bytes, vec![0x91, 0x80]);
        let mut frame = bytes.clone();
        frame.extend_from_slice(&[0xaa]);
        let (decoded, payload) = decode_header(&h, &frame).unwrap();
        assert_eq!(payload, vec![0xaa]);
        assert_eq!(decoded[0].value, vec![1, 0x23]);
        assert_eq!(decoded[1].value, vec![0]);
        assert!(
            encode_header(
                &h,
                &[PacketMetadata {
                    metadata_id: 1,
                    value: vec![2, 0]
                }]
            )
            .is_err()
        );
    }
}
