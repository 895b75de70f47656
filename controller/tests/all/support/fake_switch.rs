//! An in-process P4Runtime switch for the controller's tests.
//!
//! It stores table entries (by table and match), multicast groups and
//! counters, enforces arbitration (`p4runtime_proto::arbitration`, as
//! esa-switch does: the highest election id among open streams is primary;
//! only the primary may write or set the pipeline),
//! and injects faults: failing updates, dropped streams, and a "restart"
//! that drops every stream and forgets everything.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use p4runtime_proto::arbitration::{Arbitration, from_uint128};
use p4runtime_proto::bytestring::canonical;
use p4runtime_proto::google::rpc;
use p4runtime_proto::p4::v1 as p4v1;
use p4runtime_proto::prost::Message as _;
use p4runtime_proto::tonic::{self, Request, Response, Status, Streaming};
use p4runtime_proto::{P4Runtime, P4RuntimeServer};
use tokio::sync::mpsc;
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream};

type BoxStream<T> = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<T, Status>> + Send>>;
type StreamTx = mpsc::Sender<Result<p4v1::StreamMessageResponse, Status>>;

/// A table entry's identity: table id and canonical match.
type EntryKey = (u32, Vec<(u32, Vec<u8>)>);

#[derive(Debug, Default)]
struct Device {
    pipeline: Option<p4v1::ForwardingPipelineConfig>,
    /// (table id, canonical match) → entry.
    tables: BTreeMap<EntryKey, p4v1::TableEntry>,
    groups: BTreeMap<u32, p4v1::MulticastGroupEntry>,
    counters: HashMap<(u32, i64), i64>,
}

#[derive(Debug, Default)]
struct Faults {
    /// Updates that still succeed before the failures start.
    ok_before: usize,
    /// Updates that fail after those.
    fail: usize,
}

#[derive(Debug, Default)]
struct Shared {
    device: Mutex<Device>,
    arbitration: Mutex<Arbitration<StreamTx>>,
    faults: Mutex<Faults>,
    writes: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Handle on a running fake switch.
#[derive(Debug, Clone)]
pub struct FakeSwitch {
    shared: Arc<Shared>,
    /// Its P4Runtime address.
    pub addr: SocketAddr,
}

fn match_key(entry: &p4v1::TableEntry) -> Vec<(u32, Vec<u8>)> {
    let mut key: Vec<(u32, Vec<u8>)> = entry
        .r#match
        .iter()
        .map(|m| {
            let value = match &m.field_match_type {
                Some(p4v1::field_match::FieldMatchType::Exact(e)) => canonical(&e.value),
                other => format!("{other:?}").into_bytes(),
            };
            (m.field_id, value)
        })
        .collect();
    key.sort();
    key
}

impl FakeSwitch {
    /// Starts a fake switch on 127.0.0.1:0.
    pub async fn start() -> FakeSwitch {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        let service = Service {
            shared: Arc::clone(&shared),
        };
        tokio::spawn(async move {
            let _ = tonic::transport::Server::builder()
                .add_service(P4RuntimeServer::new(service))
                .serve_with_incoming(TcpListenerStream::new(listener))
                .await;
        });
        FakeSwitch { shared, addr }
    }

    /// The next `ok_before` updates succeed, then `fail` updates fail.
    pub fn fail_updates(&self, ok_before: usize, fail: usize) {
        *lock(&self.shared.faults) = Faults { ok_before, fail };
    }

    /// Closes every arbitration stream (the controllers see the switch go).
    pub fn drop_streams(&self) {
        lock(&self.shared.arbitration).close_all();
    }

    /// A switch restart: streams closed, pipeline, entries and counters
    /// gone.
    pub fn restart(&self) {
        self.drop_streams();
        *lock(&self.shared.device) = Device::default();
    }

    /// Forgets the pipeline and every entry without closing streams.
    pub fn forget(&self) {
        *lock(&self.shared.device) = Device::default();
    }

    /// Sets a counter cell.
    pub fn set_counter(&self, counter_id: u32, index: i64, packets: i64) {
        lock(&self.shared.device)
            .counters
            .insert((counter_id, index), packets);
    }

    /// Whether a pipeline is set.
    pub fn has_pipeline(&self) -> bool {
        lock(&self.shared.device).pipeline.is_some()
    }

    /// Number of Write RPCs that reached the device.
    pub fn writes(&self) -> u64 {
        self.shared.writes.load(Ordering::SeqCst)
    }
}

impl Shared {
    /// Tells every arbitrated stream who is primary.
    fn announce(&self) {
        let arbitration = lock(&self.arbitration);
        for (tx, update) in arbitration.updates(0) {
            let _ = tx.try_send(Ok(p4v1::StreamMessageResponse {
                update: Some(p4v1::stream_message_response::Update::Arbitration(update)),
            }));
        }
    }

    fn check_primary(&self, election_id: Option<&p4v1::Uint128>) -> Result<(), Status> {
        lock(&self.arbitration).check_primary("", election_id)
    }

    fn take_fault(&self) -> bool {
        let mut f = lock(&self.faults);
        if f.ok_before > 0 {
            f.ok_before -= 1;
            false
        } else if f.fail > 0 {
            f.fail -= 1;
            true
        } else {
            false
        }
    }
}

fn apply(device: &mut Device, update: &p4v1::Update) -> Result<(), (tonic::Code, String)> {
    use p4v1::update::Type;
    let kind = Type::try_from(update.r#type)
        .map_err(|_| (tonic::Code::InvalidArgument, "bad type".into()))?;
    let Some(pipeline) = &device.pipeline else {
        return Err((tonic::Code::FailedPrecondition, "no pipeline".into()));
    };
    let p4info = pipeline.p4info.clone().unwrap_or_default();
    match update.entity.as_ref().and_then(|e| e.entity.as_ref()) {
        Some(p4v1::entity::Entity::TableEntry(t)) => {
            if !p4info
                .tables
                .iter()
                .any(|x| x.preamble.as_ref().is_some_and(|p| p.id == t.table_id))
            {
                return Err((tonic::Code::NotFound, format!("no table {}", t.table_id)));
            }
            let key = (t.table_id, match_key(t));
            let exists = device.tables.contains_key(&key);
            match (kind, exists) {
                (Type::Insert, true) => Err((tonic::Code::AlreadyExists, "entry exists".into())),
                (Type::Modify | Type::Delete, false) => {
                    Err((tonic::Code::NotFound, "no such entry".into()))
                }
                (Type::Insert | Type::Modify, _) => {
                    device.tables.insert(key, t.clone());
                    Ok(())
                }
                (Type::Delete, true) => {
                    device.tables.remove(&key);
                    Ok(())
                }
                (Type::Unspecified, _) => Err((tonic::Code::InvalidArgument, "unspecified".into())),
            }
        }
        Some(p4v1::entity::Entity::PacketReplicationEngineEntry(pre)) => {
            let Some(p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(g)) =
                &pre.r#type
            else {
                return Err((tonic::Code::Unimplemented, "clone sessions".into()));
            };
            let exists = device.groups.contains_key(&g.multicast_group_id);
            match (kind, exists) {
                (Type::Insert, true) => Err((tonic::Code::AlreadyExists, "group exists".into())),
                (Type::Modify | Type::Delete, false) => {
                    Err((tonic::Code::NotFound, "no such group".into()))
                }
                (Type::Insert | Type::Modify, _) => {
                    device.groups.insert(g.multicast_group_id, g.clone());
                    Ok(())
                }
                (Type::Delete, true) => {
                    device.groups.remove(&g.multicast_group_id);
                    Ok(())
                }
                (Type::Unspecified, _) => Err((tonic::Code::InvalidArgument, "unspecified".into())),
            }
        }
        Some(p4v1::entity::Entity::RegisterEntry(_)) => Err((
            tonic::Code::Unimplemented,
            "registers are not writable (as on BMv2)".into(),
        )),
        _ => Err((tonic::Code::Unimplemented, "entity kind".into())),
    }
}

#[derive(Debug)]
struct Service {
    shared: Arc<Shared>,
}

#[tonic::async_trait]
impl P4Runtime for Service {
    async fn write(
        &self,
        request: Request<p4v1::WriteRequest>,
    ) -> Result<Response<p4v1::WriteResponse>, Status> {
        let request = request.into_inner();
        self.shared.check_primary(request.election_id.as_ref())?;
        self.shared.writes.fetch_add(1, Ordering::SeqCst);
        let mut device = lock(&self.shared.device);
        let mut errors = vec![];
        let mut failed = false;
        for update in &request.updates {
            let result = if self.shared.take_fault() {
                Err((tonic::Code::Internal, "injected fault".to_string()))
            } else {
                apply(&mut device, update)
            };
            let (code, message) = match result {
                Ok(()) => (tonic::Code::Ok, String::new()),
                Err(e) => {
                    failed = true;
                    e
                }
            };
            errors.push(p4v1::Error {
                canonical_code: code as i32,
                message,
                ..Default::default()
            });
        }
        if !failed {
            return Ok(Response::new(p4v1::WriteResponse {}));
        }
        let details = rpc::Status {
            code: tonic::Code::Unknown as i32,
            message: "some updates failed".into(),
            details: errors
                .iter()
                .map(|e| p4runtime_proto::prost_types::Any {
                    type_url: "type.googleapis.com/p4.v1.Error".into(),
                    value: e.encode_to_vec(),
                })
                .collect(),
        };
        Err(Status::with_details(
            tonic::Code::Unknown,
            "some updates failed",
            tonic::codegen::Bytes::from(details.encode_to_vec()),
        ))
    }

    type ReadStream = BoxStream<p4v1::ReadResponse>;

    async fn read(
        &self,
        request: Request<p4v1::ReadRequest>,
    ) -> Result<Response<Self::ReadStream>, Status> {
        let request = request.into_inner();
        let device = lock(&self.shared.device);
        let mut out = vec![];
        for query in &request.entities {
            match &query.entity {
                Some(p4v1::entity::Entity::TableEntry(t)) => {
                    let key = match_key(t);
                    for ((table, k), entry) in &device.tables {
                        if (t.table_id == 0 || *table == t.table_id)
                            && (key.is_empty() || *k == key)
                        {
                            out.push(p4v1::Entity {
                                entity: Some(p4v1::entity::Entity::TableEntry(entry.clone())),
                            });
                        }
                    }
                }
                Some(p4v1::entity::Entity::PacketReplicationEngineEntry(pre)) => {
                    let Some(p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(g)) =
                        &pre.r#type
                    else {
                        continue;
                    };
                    for (id, group) in &device.groups {
                        if g.multicast_group_id == 0 || g.multicast_group_id == *id {
                            out.push(p4v1::Entity {
                                entity: Some(p4v1::entity::Entity::PacketReplicationEngineEntry(
                                    p4v1::PacketReplicationEngineEntry {
                                        r#type: Some(
                                            p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(
                                                group.clone(),
                                            ),
                                        ),
                                    },
                                )),
                            });
                        }
                    }
                }
                Some(p4v1::entity::Entity::CounterEntry(c)) => {
                    let index = c.index.map_or(0, |i| i.index);
                    let packets = device
                        .counters
                        .get(&(c.counter_id, index))
                        .copied()
                        .unwrap_or(0);
                    out.push(p4v1::Entity {
                        entity: Some(p4v1::entity::Entity::CounterEntry(p4v1::CounterEntry {
                            counter_id: c.counter_id,
                            index: Some(p4v1::Index { index }),
                            data: Some(p4v1::CounterData {
                                byte_count: 0,
                                packet_count: packets,
                            }),
                        })),
                    });
                }
                Some(p4v1::entity::Entity::RegisterEntry(_)) => {
                    return Err(Status::unimplemented(
                        "registers are not readable (as on BMv2)",
                    ));
                }
                _ => return Err(Status::unimplemented("entity kind")),
            }
        }
        let response = p4v1::ReadResponse { entities: out };
        Ok(Response::new(Box::pin(tokio_stream::iter([Ok(response)]))))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        request: Request<p4v1::SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<p4v1::SetForwardingPipelineConfigResponse>, Status> {
        let request = request.into_inner();
        self.shared.check_primary(request.election_id.as_ref())?;
        let config = request
            .config
            .ok_or_else(|| Status::invalid_argument("no config"))?;
        if config.p4info.is_none() || config.p4_device_config.is_empty() {
            return Err(Status::invalid_argument(
                "config needs a P4Info and a device config",
            ));
        }
        *lock(&self.shared.device) = Device {
            pipeline: Some(config),
            ..Device::default()
        };
        Ok(Response::new(p4v1::SetForwardingPipelineConfigResponse {}))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        _request: Request<p4v1::GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<p4v1::GetForwardingPipelineConfigResponse>, Status> {
        let device = lock(&self.shared.device);
        let config = device
            .pipeline
            .as_ref()
            .ok_or_else(|| Status::failed_precondition("no forwarding pipeline is configured"))?;
        Ok(Response::new(p4v1::GetForwardingPipelineConfigResponse {
            config: Some(p4v1::ForwardingPipelineConfig {
                cookie: config.cookie,
                ..Default::default()
            }),
        }))
    }

    type StreamChannelStream = BoxStream<p4v1::StreamMessageResponse>;

    async fn stream_channel(
        &self,
        request: Request<Streaming<p4v1::StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let mut incoming = request.into_inner();
        let (tx, rx) = mpsc::channel(64);
        let id = lock(&self.shared.arbitration).open(tx);
        let shared = Arc::clone(&self.shared);
        tokio::spawn(async move {
            while let Ok(Some(message)) = incoming.message().await {
                let Some(p4v1::stream_message_request::Update::Arbitration(a)) = message.update
                else {
                    continue;
                };
                let election = from_uint128(&a.election_id.unwrap_or_default());
                let refused = {
                    let mut arbitration = lock(&shared.arbitration);
                    if !arbitration.is_open(id) {
                        break; // dropped by a fault
                    }
                    arbitration.arbitrate(id, "", election).err()
                };
                match refused {
                    None => shared.announce(),
                    Some(e) => {
                        let arbitration = lock(&shared.arbitration);
                        if let Some(tx) = arbitration.handle(id) {
                            let _ = tx.try_send(Err(e.into()));
                        }
                    }
                }
            }
            let was_primary = lock(&shared.arbitration).close(id);
            if was_primary {
                shared.announce();
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn capabilities(
        &self,
        _request: Request<p4v1::CapabilitiesRequest>,
    ) -> Result<Response<p4v1::CapabilitiesResponse>, Status> {
        Ok(Response::new(p4v1::CapabilitiesResponse {
            p4runtime_api_version: p4runtime_proto::P4RUNTIME_API_VERSION.into(),
            ..Default::default()
        }))
    }
}
