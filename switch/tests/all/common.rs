//! A switch on in-memory ports behind a real tonic server on 127.0.0.1:0
//! (esa-harness's embedded switch), and helpers to drive it with the
//! generated P4Runtime client.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use esa_harness::{EmbeddedSwitch, Ports};
use esa_switch::{MemoryPort, Program, Source, SwitchConfig};
use p4runtime_proto::P4RuntimeClient;
use p4runtime_proto::google::rpc;
use p4runtime_proto::p4::config::v1::P4Info;
use p4runtime_proto::p4::v1::{
    self as v1, Entity, ForwardingPipelineConfig, MasterArbitrationUpdate, ReadRequest,
    SetForwardingPipelineConfigRequest, StreamMessageRequest, StreamMessageResponse, Uint128,
    Update, WriteRequest, entity, stream_message_request, stream_message_response,
};
use p4runtime_proto::prost::Message;
use p4runtime_proto::tonic::transport::Channel;
use p4runtime_proto::tonic::{Code, Status, Streaming};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

/// The CPU port the tests use.
pub const CPU_PORT: u32 = 255;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn l2_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/l2_switch.p4")
}

pub fn l2_text() -> String {
    std::fs::read_to_string(l2_path()).unwrap()
}

/// The P4Info p4sim makes for the L2 test program.
pub fn l2_p4info() -> P4Info {
    Program::load(Source::File(&l2_path()), &[]).unwrap().p4info
}

pub struct Harness {
    /// The switch, served from a runtime of its own (esa-harness).
    pub switch: EmbeddedSwitch,
    pub client: P4RuntimeClient<Channel>,
    pub addr: std::net::SocketAddr,
}

impl Harness {
    /// A switch with in-memory ports `ports`, CPU port 255, device id 0.
    pub async fn start(ports: &[u32], program: Option<Program>, include: Vec<PathBuf>) -> Harness {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
        let config = SwitchConfig {
            device_id: 0,
            cpu_port: Some(CPU_PORT),
            include_dirs: include,
            ..SwitchConfig::default()
        };
        let ports = Ports::Memory(ports.to_vec());
        let bind = "127.0.0.1:0".parse().unwrap();
        let switch = match program {
            Some(p) => EmbeddedSwitch::start_programmed(config, ports, p, bind),
            None => EmbeddedSwitch::start(config, ports, bind),
        }
        .unwrap_or_else(|e| panic!("{e}"));
        let addr = switch.addr();
        let client = connect(addr).await;
        Harness {
            switch,
            client,
            addr,
        }
    }

    pub fn port(&self, n: u32) -> &MemoryPort {
        self.switch.memory_port(n).unwrap()
    }
}

pub async fn connect(addr: std::net::SocketAddr) -> P4RuntimeClient<Channel> {
    P4RuntimeClient::connect(format!("http://{addr}"))
        .await
        .unwrap()
}

/// An open stream channel.
pub struct Stream {
    pub tx: mpsc::Sender<StreamMessageRequest>,
    pub rx: Streaming<StreamMessageResponse>,
}

impl Stream {
    /// The next message, failing the test after 5 s.
    pub async fn next(&mut self) -> Result<StreamMessageResponse, Status> {
        tokio::time::timeout(Duration::from_secs(5), self.rx.next())
            .await
            .expect("no stream message within 5 s")
            .expect("stream ended")
    }

    /// The next arbitration update.
    pub async fn next_arbitration(&mut self) -> MasterArbitrationUpdate {
        loop {
            match self.next().await.unwrap().update {
                Some(stream_message_response::Update::Arbitration(a)) => return a,
                _ => continue,
            }
        }
    }

    pub async fn send(&self, update: stream_message_request::Update) {
        self.tx
            .send(StreamMessageRequest {
                update: Some(update),
            })
            .await
            .unwrap();
    }
}

pub fn election(id: u64) -> Option<Uint128> {
    Some(Uint128 { high: 0, low: id })
}

/// Opens a stream and sends an arbitration message; returns the stream and
/// the first arbitration update it gets.
pub async fn arbitrate(
    client: &mut P4RuntimeClient<Channel>,
    election_id: u64,
) -> (Stream, MasterArbitrationUpdate) {
    let (tx, rx) = mpsc::channel(64);
    tx.send(StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(
            MasterArbitrationUpdate {
                device_id: 0,
                role: None,
                election_id: election(election_id),
                status: None,
            },
        )),
    })
    .await
    .unwrap();
    let rx = client
        .stream_channel(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let mut stream = Stream { tx, rx };
    let first = stream.next_arbitration().await;
    (stream, first)
}

pub async fn set_pipeline(
    client: &mut P4RuntimeClient<Channel>,
    election_id: u64,
    text: &str,
    p4info: Option<P4Info>,
) -> Result<(), Status> {
    client
        .set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
            device_id: 0,
            election_id: election(election_id),
            action: v1::set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
            config: Some(ForwardingPipelineConfig {
                p4info,
                p4_device_config: text.as_bytes().to_vec(),
                cookie: Some(v1::forwarding_pipeline_config::Cookie { cookie: 42 }),
            }),
            ..Default::default()
        })
        .await
        .map(|_| ())
}

pub async fn write(
    client: &mut P4RuntimeClient<Channel>,
    election_id: u64,
    updates: Vec<(v1::update::Type, Entity)>,
) -> Result<(), Status> {
    client
        .write(WriteRequest {
            device_id: 0,
            election_id: election(election_id),
            updates: updates
                .into_iter()
                .map(|(t, e)| Update {
                    r#type: t as i32,
                    entity: Some(e),
                })
                .collect(),
            ..Default::default()
        })
        .await
        .map(|_| ())
}

pub async fn read(
    client: &mut P4RuntimeClient<Channel>,
    entities: Vec<Entity>,
) -> Result<Vec<Entity>, Status> {
    let mut stream = client
        .read(ReadRequest {
            device_id: 0,
            entities,
            ..Default::default()
        })
        .await?
        .into_inner();
    let mut out = Vec::new();
    while let Some(r) = stream.next().await {
        out.extend(r?.entities);
    }
    Ok(out)
}

/// The per-update codes of a failed batch (from the google.rpc.Status
/// details).
pub fn update_codes(status: &Status) -> Vec<(Code, String)> {
    assert_eq!(status.code(), Code::Unknown, "batch status: {status:?}");
    let details = rpc::Status::decode(status.details()).expect("details are a google.rpc.Status");
    details
        .details
        .iter()
        .map(|any| {
            assert_eq!(any.type_url, "type.googleapis.com/p4.v1.Error");
            let e = v1::Error::decode(any.value.as_slice()).unwrap();
            (Code::from_i32(e.canonical_code), e.message)
        })
        .collect()
}

/// Names to ids through a P4Info.
pub struct Ids<'a>(pub &'a P4Info);

impl Ids<'_> {
    pub fn table(&self, name: &str) -> u32 {
        self.0
            .tables
            .iter()
            .find(|t| t.preamble.as_ref().unwrap().name == name)
            .unwrap_or_else(|| panic!("no table {name}"))
            .preamble
            .as_ref()
            .unwrap()
            .id
    }

    pub fn action(&self, name: &str) -> u32 {
        self.0
            .actions
            .iter()
            .find(|t| t.preamble.as_ref().unwrap().name == name)
            .unwrap_or_else(|| panic!("no action {name}"))
            .preamble
            .as_ref()
            .unwrap()
            .id
    }

    pub fn counter(&self, name: &str) -> u32 {
        self.0
            .counters
            .iter()
            .find(|t| t.preamble.as_ref().unwrap().name == name)
            .unwrap()
            .preamble
            .as_ref()
            .unwrap()
            .id
    }

    pub fn register(&self, name: &str) -> u32 {
        self.0
            .registers
            .iter()
            .find(|t| t.preamble.as_ref().unwrap().name == name)
            .unwrap()
            .preamble
            .as_ref()
            .unwrap()
            .id
    }
}

pub fn table_entity(t: v1::TableEntry) -> Entity {
    Entity {
        entity: Some(entity::Entity::TableEntry(t)),
    }
}

pub fn exact(field_id: u32, value: &[u8]) -> v1::FieldMatch {
    v1::FieldMatch {
        field_id,
        field_match_type: Some(v1::field_match::FieldMatchType::Exact(
            v1::field_match::Exact {
                value: value.to_vec(),
            },
        )),
    }
}

pub fn ternary(field_id: u32, value: &[u8], mask: &[u8]) -> v1::FieldMatch {
    v1::FieldMatch {
        field_id,
        field_match_type: Some(v1::field_match::FieldMatchType::Ternary(
            v1::field_match::Ternary {
                value: value.to_vec(),
                mask: mask.to_vec(),
            },
        )),
    }
}

pub fn action(action_id: u32, params: &[(u32, &[u8])]) -> Option<v1::TableAction> {
    Some(v1::TableAction {
        r#type: Some(v1::table_action::Type::Action(v1::Action {
            action_id,
            params: params
                .iter()
                .map(|(id, v)| v1::action::Param {
                    param_id: *id,
                    value: v.to_vec(),
                })
                .collect(),
        })),
    })
}

/// A dmac entry of the L2 program.
pub fn dmac_entry(
    ids: &Ids<'_>,
    mac: &[u8],
    action_name: &str,
    params: &[(u32, &[u8])],
) -> v1::TableEntry {
    v1::TableEntry {
        table_id: ids.table("MyIngress.dmac"),
        r#match: vec![exact(1, mac)],
        action: action(ids.action(action_name), params),
        ..Default::default()
    }
}

pub fn multicast_group(id: u32, replicas: &[(u32, u32)]) -> Entity {
    Entity {
        entity: Some(entity::Entity::PacketReplicationEngineEntry(
            v1::PacketReplicationEngineEntry {
                r#type: Some(
                    v1::packet_replication_engine_entry::Type::MulticastGroupEntry(
                        v1::MulticastGroupEntry {
                            multicast_group_id: id,
                            replicas: replicas
                                .iter()
                                .map(|(port, instance)| v1::Replica {
                                    instance: *instance,
                                    port_kind: Some(v1::replica::PortKind::Port(
                                        port.to_be_bytes()
                                            .iter()
                                            .copied()
                                            .skip_while(|b| *b == 0)
                                            .collect(),
                                    )),
                                    ..Default::default()
                                })
                                .collect(),
                            metadata: vec![],
                        },
                    ),
                ),
            },
        )),
    }
}

/// An Ethernet frame: dst, src, type 0x88b5 and a payload.
pub fn frame(dst: [u8; 6], src: [u8; 6], ether_type: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ether_type.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

pub const TIMEOUT: Duration = Duration::from_secs(2);
pub const QUIET: Duration = Duration::from_millis(200);
