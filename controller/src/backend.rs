//! The switch as the controller sees it: one trait, [`SwitchBackend`], and
//! its P4Runtime implementation, [`GrpcSwitch`] (esa-switch, BMv2's
//! `simple_switch_grpc`, any P4Runtime 1.x server).
//!
//! The trait is what the controller's logic is written against, so other
//! targets (or a fault-injecting wrapper) slot in without touching it.

use p4runtime_proto::arbitration::{from_uint128, to_uint128};
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use p4runtime_proto::P4RuntimeClient;
use p4runtime_proto::google::rpc;
use p4runtime_proto::p4::v1 as p4v1;
use p4runtime_proto::prost::Message as _;
use p4runtime_proto::security::ClientSecurity;
use p4runtime_proto::tonic;
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

use crate::error::P4RuntimeError;

/// The controller's standing with the switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No arbitration stream.
    Disconnected,
    /// This controller is primary: it may write.
    Primary,
    /// Another controller is primary (its election id, when the switch
    /// said); this one only reads.
    Backup {
        /// The primary's election id.
        primary: u128,
    },
}

/// One switch, as the controller uses it.
pub trait SwitchBackend: Send + Sync + 'static {
    /// (Re)connects and starts arbitration; afterwards [`Self::role`]
    /// follows the switch's arbitration updates until the stream drops.
    fn connect(&self) -> impl Future<Output = Result<Role, P4RuntimeError>> + Send;
    /// Closes the arbitration stream (and so gives up being primary).
    fn disconnect(&self);
    /// This controller's election id.
    fn election_id(&self) -> u128;
    /// The current role, updated by the arbitration stream.
    fn role(&self) -> watch::Receiver<Role>;
    /// Cookie of the switch's pipeline, `None` if it has none.
    fn pipeline_cookie(&self) -> impl Future<Output = Result<Option<u64>, P4RuntimeError>> + Send;
    /// Pushes a pipeline (VERIFY_AND_COMMIT).
    fn set_pipeline(
        &self,
        config: p4v1::ForwardingPipelineConfig,
    ) -> impl Future<Output = Result<(), P4RuntimeError>> + Send;
    /// One Write of `updates` (CONTINUE_ON_ERROR, as BMv2 does).
    fn write(
        &self,
        updates: Vec<p4v1::Update>,
    ) -> impl Future<Output = Result<(), P4RuntimeError>> + Send;
    /// One Read; every entity of every response.
    fn read(
        &self,
        entities: Vec<p4v1::Entity>,
    ) -> impl Future<Output = Result<Vec<p4v1::Entity>, P4RuntimeError>> + Send;
}

/// The canonical code of each update of a failed Write, from the
/// `google.rpc.Status` details carrying one `p4.v1.Error` per update.
pub fn update_codes(status: &tonic::Status) -> Vec<i32> {
    let Ok(details) = rpc::Status::decode(status.details()) else {
        return vec![];
    };
    details
        .details
        .iter()
        .filter(|any| any.type_url.ends_with("p4.v1.Error"))
        .filter_map(|any| p4v1::Error::decode(any.value.as_slice()).ok())
        .map(|e| e.canonical_code)
        .collect()
}

/// A P4Runtime switch over gRPC.
#[derive(Debug)]
pub struct GrpcSwitch {
    addr: String,
    device_id: u64,
    election_id: u128,
    security: ClientSecurity,
    /// The P4Runtime role it arbitrates and writes in (`""`: the default
    /// role).
    role_name: String,
    client: Mutex<Option<P4RuntimeClient<Channel>>>,
    role: watch::Sender<Role>,
    stream: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// An error and its sources, `: `-separated (tonic's transport errors say
/// little on their own: the cause, a refused certificate say, is a source).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// How long connecting and the first arbitration answer may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

impl GrpcSwitch {
    /// A switch at `addr` (`host:port` or `http://host:port`), device
    /// `device_id`, arbitrating with `election_id` (higher wins; 0 is not
    /// allowed by P4Runtime and is refused at connect time), reached in
    /// plaintext.
    pub fn new(addr: &str, device_id: u64, election_id: u128) -> GrpcSwitch {
        GrpcSwitch {
            addr: addr.to_string(),
            device_id,
            election_id,
            security: ClientSecurity::default(),
            role_name: String::new(),
            client: Mutex::new(None),
            role: watch::Sender::new(Role::Disconnected),
            stream: Mutex::new(None),
        }
    }

    /// The same switch reached with `security` (TLS verified against its
    /// CA, when one is given).
    pub fn with_security(mut self, security: ClientSecurity) -> GrpcSwitch {
        self.security = security;
        self
    }

    /// The same switch, arbitrating and writing in the P4Runtime role
    /// `name` (a switch with a role policy gives ESA's tables to one role:
    /// `esa switch --roles`).
    pub fn with_role(mut self, name: &str) -> GrpcSwitch {
        self.role_name = name.to_string();
        self
    }

    fn client(&self) -> Result<P4RuntimeClient<Channel>, P4RuntimeError> {
        lock(&self.client)
            .clone()
            .ok_or_else(|| P4RuntimeError::StreamClosed("not connected".into()))
    }

    fn close(&self) {
        if let Some(task) = lock(&self.stream).take() {
            task.abort();
        }
        *lock(&self.client) = None;
        self.role.send_replace(Role::Disconnected);
    }

    fn connect_error(&self, message: impl ToString) -> P4RuntimeError {
        P4RuntimeError::Connect {
            addr: self.security.url(&self.addr),
            message: message.to_string(),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn role_of(update: &p4v1::MasterArbitrationUpdate) -> Role {
    let ok = update.status.as_ref().is_none_or(|s| s.code == 0);
    if ok {
        Role::Primary
    } else {
        Role::Backup {
            primary: update.election_id.as_ref().map_or(0, from_uint128),
        }
    }
}

impl Drop for GrpcSwitch {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.stream).take() {
            task.abort();
        }
    }
}

impl SwitchBackend for GrpcSwitch {
    async fn connect(&self) -> Result<Role, P4RuntimeError> {
        self.close();
        if self.election_id == 0 {
            return Err(self.connect_error("election id 0 is not allowed"));
        }
        let channel = self
            .security
            .connect(&self.addr, CONNECT_TIMEOUT)
            .await
            .map_err(|e| self.connect_error(error_chain(&e)))?;
        let mut client = P4RuntimeClient::new(channel).max_decoding_message_size(64 << 20);
        let (tx, rx) = mpsc::channel(8);
        let hello = p4v1::StreamMessageRequest {
            update: Some(p4v1::stream_message_request::Update::Arbitration(
                p4v1::MasterArbitrationUpdate {
                    device_id: self.device_id,
                    role: (!self.role_name.is_empty()).then(|| p4v1::Role {
                        name: self.role_name.clone(),
                        ..p4v1::Role::default()
                    }),
                    election_id: Some(to_uint128(self.election_id)),
                    status: None,
                },
            )),
        };
        tx.send(hello)
            .await
            .map_err(|_| self.connect_error("stream closed"))?;
        let mut stream = tokio::time::timeout(
            CONNECT_TIMEOUT,
            client.stream_channel(ReceiverStream::new(rx)),
        )
        .await
        .map_err(|_| self.connect_error("StreamChannel timed out"))?
        .map_err(|s| P4RuntimeError::rpc("StreamChannel", &s))?
        .into_inner();
        // The first arbitration answer says who we are.
        let first = loop {
            let message = tokio::time::timeout(CONNECT_TIMEOUT, stream.message())
                .await
                .map_err(|_| self.connect_error("no arbitration answer"))?
                .map_err(|s| P4RuntimeError::rpc("StreamChannel", &s))?;
            match message.and_then(|m| m.update) {
                Some(p4v1::stream_message_response::Update::Arbitration(a)) => break role_of(&a),
                Some(_) => continue,
                None => {
                    return Err(P4RuntimeError::StreamClosed(
                        "closed before the arbitration answer".into(),
                    ));
                }
            }
        };
        self.role.send_replace(first);
        let role = self.role.clone();
        let task = tokio::spawn(async move {
            // `tx` lives as long as the stream: dropping it would end it.
            let _keep = tx;
            while let Ok(Some(m)) = stream.message().await {
                if let Some(p4v1::stream_message_response::Update::Arbitration(a)) = m.update {
                    role.send_replace(role_of(&a));
                }
            }
            role.send_replace(Role::Disconnected);
        });
        *lock(&self.stream) = Some(task);
        *lock(&self.client) = Some(client);
        Ok(first)
    }

    fn disconnect(&self) {
        self.close();
    }

    fn election_id(&self) -> u128 {
        self.election_id
    }

    fn role(&self) -> watch::Receiver<Role> {
        self.role.subscribe()
    }

    async fn pipeline_cookie(&self) -> Result<Option<u64>, P4RuntimeError> {
        use p4v1::get_forwarding_pipeline_config_request::ResponseType;
        let mut client = self.client()?;
        let request = p4v1::GetForwardingPipelineConfigRequest {
            device_id: self.device_id,
            response_type: ResponseType::CookieOnly as i32,
        };
        match client.get_forwarding_pipeline_config(request).await {
            Ok(r) => Ok(r
                .into_inner()
                .config
                .map(|c| c.cookie.map_or(0, |c| c.cookie))),
            Err(s) if matches!(s.code(), tonic::Code::Unavailable | tonic::Code::Cancelled) => {
                Err(P4RuntimeError::rpc("GetForwardingPipelineConfig", &s))
            }
            // BMv2 and esa-switch answer FAILED_PRECONDITION (or similar)
            // when no pipeline is set.
            Err(_) => Ok(None),
        }
    }

    async fn set_pipeline(
        &self,
        config: p4v1::ForwardingPipelineConfig,
    ) -> Result<(), P4RuntimeError> {
        use p4v1::set_forwarding_pipeline_config_request::Action;
        let mut client = self.client()?;
        let request = p4v1::SetForwardingPipelineConfigRequest {
            device_id: self.device_id,
            election_id: Some(to_uint128(self.election_id)),
            action: Action::VerifyAndCommit as i32,
            config: Some(config),
            role: self.role_name.clone(),
            ..Default::default()
        };
        client
            .set_forwarding_pipeline_config(request)
            .await
            .map_err(|s| P4RuntimeError::rpc("SetForwardingPipelineConfig", &s))?;
        Ok(())
    }

    async fn write(&self, updates: Vec<p4v1::Update>) -> Result<(), P4RuntimeError> {
        if updates.is_empty() {
            return Ok(());
        }
        let mut client = self.client()?;
        let request = p4v1::WriteRequest {
            device_id: self.device_id,
            election_id: Some(to_uint128(self.election_id)),
            updates,
            role: self.role_name.clone(),
            ..Default::default()
        };
        client
            .write(request)
            .await
            .map_err(|s| P4RuntimeError::rpc("Write", &s))?;
        Ok(())
    }

    async fn read(&self, entities: Vec<p4v1::Entity>) -> Result<Vec<p4v1::Entity>, P4RuntimeError> {
        let mut client = self.client()?;
        let request = p4v1::ReadRequest {
            device_id: self.device_id,
            entities,
            role: self.role_name.clone(),
        };
        let mut stream = client
            .read(request)
            .await
            .map_err(|s| P4RuntimeError::rpc("Read", &s))?
            .into_inner();
        let mut out = vec![];
        while let Some(response) = stream
            .message()
            .await
            .map_err(|s| P4RuntimeError::rpc("Read", &s))?
        {
            out.extend(response.entities);
        }
        Ok(out)
    }
}
