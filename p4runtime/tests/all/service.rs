//! The generated P4Runtime service: all six RPCs with their streaming shapes,
//! exercised through a real tonic server on 127.0.0.1:0 and the generated
//! client, plus a check of the compiled service descriptor.

use std::sync::Mutex;
use std::time::Duration;

use p4runtime_proto::p4::v1::{
    CapabilitiesRequest, CapabilitiesResponse, Entity, ForwardingPipelineConfig,
    GetForwardingPipelineConfigRequest, GetForwardingPipelineConfigResponse,
    MasterArbitrationUpdate, PacketIn, PacketOut, ReadRequest, ReadResponse,
    SetForwardingPipelineConfigRequest, SetForwardingPipelineConfigResponse, StreamMessageRequest,
    StreamMessageResponse, TableEntry, Uint128, Update, WriteRequest, WriteResponse, entity,
    forwarding_pipeline_config, stream_message_request, stream_message_response,
};
use p4runtime_proto::prost::Message;
use p4runtime_proto::prost_types::FileDescriptorSet;
use p4runtime_proto::tonic::{self, Request, Response, Status, Streaming};
use p4runtime_proto::{FILE_DESCRIPTOR_SET, P4Runtime, P4RuntimeClient, P4RuntimeServer};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream};

type BoxStream<T> = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<T, Status>> + Send>>;

/// A trivial device: it stores what it is given and echoes the rest.
#[derive(Debug, Default)]
struct EchoDevice {
    entities: Mutex<Vec<Entity>>,
    config: Mutex<Option<ForwardingPipelineConfig>>,
}

#[tonic::async_trait]
impl P4Runtime for EchoDevice {
    async fn write(
        &self,
        request: Request<WriteRequest>,
    ) -> Result<Response<WriteResponse>, Status> {
        let updates = request.into_inner().updates;
        if updates.iter().any(|update| update.entity.is_none()) {
            return Err(Status::invalid_argument("update without an entity"));
        }
        let mut stored = self.entities.lock().unwrap();
        stored.extend(updates.into_iter().filter_map(|update| update.entity));
        Ok(Response::new(WriteResponse {}))
    }

    type ReadStream = BoxStream<ReadResponse>;

    async fn read(
        &self,
        request: Request<ReadRequest>,
    ) -> Result<Response<Self::ReadStream>, Status> {
        // One response per stored entity when asked for anything, to exercise
        // a multi-message stream; nothing for an empty request.
        let wanted = !request.into_inner().entities.is_empty();
        let stored = if wanted {
            self.entities.lock().unwrap().clone()
        } else {
            vec![]
        };
        let responses = stored.into_iter().map(|entity| {
            Ok(ReadResponse {
                entities: vec![entity],
            })
        });
        Ok(Response::new(Box::pin(tokio_stream::iter(responses))))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        request: Request<SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<SetForwardingPipelineConfigResponse>, Status> {
        *self.config.lock().unwrap() = request.into_inner().config;
        Ok(Response::new(SetForwardingPipelineConfigResponse {}))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        _request: Request<GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<GetForwardingPipelineConfigResponse>, Status> {
        let config = self.config.lock().unwrap().clone();
        Ok(Response::new(GetForwardingPipelineConfigResponse {
            config,
        }))
    }

    type StreamChannelStream = BoxStream<StreamMessageResponse>;

    async fn stream_channel(
        &self,
        request: Request<Streaming<StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let mut inbound = request.into_inner();
        let (sender, receiver) = mpsc::channel(4);
        tokio::spawn(async move {
            while let Some(Ok(message)) = inbound.next().await {
                use stream_message_request::Update as In;
                use stream_message_response::Update as Out;
                let reply = match message.update {
                    // Every client is told it is the primary.
                    Some(In::Arbitration(arbitration)) => {
                        Out::Arbitration(MasterArbitrationUpdate {
                            status: Some(p4runtime_proto::google::rpc::Status::default()),
                            ..arbitration
                        })
                    }
                    Some(In::Packet(packet)) => Out::Packet(PacketIn {
                        payload: packet.payload,
                        metadata: packet.metadata,
                    }),
                    _ => continue,
                };
                let reply = StreamMessageResponse {
                    update: Some(reply),
                };
                if sender.send(Ok(reply)).await.is_err() {
                    break;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }

    async fn capabilities(
        &self,
        _request: Request<CapabilitiesRequest>,
    ) -> Result<Response<CapabilitiesResponse>, Status> {
        Ok(Response::new(CapabilitiesResponse {
            p4runtime_api_version: p4runtime_proto::P4RUNTIME_API_VERSION.into(),
            experimental: None,
        }))
    }
}

/// Serves an [`EchoDevice`] on an ephemeral loopback port; dropping the
/// returned sender stops the server.
async fn serve() -> (String, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(P4RuntimeServer::new(EchoDevice::default()))
            .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (address, stop, server)
}

fn table_entry(table_id: u32) -> Entity {
    Entity {
        entity: Some(entity::Entity::TableEntry(TableEntry {
            table_id,
            ..Default::default()
        })),
    }
}

#[tokio::test]
async fn all_six_rpcs_work_through_generated_client_and_server() {
    let (address, stop, server) = serve().await;
    let mut client = P4RuntimeClient::connect(address).await.unwrap();

    // Capabilities (unary).
    let capabilities = client
        .capabilities(CapabilitiesRequest { device_id: 1 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(capabilities.p4runtime_api_version, "1.6.0");

    // Read (server streaming) on an empty request: an empty stream.
    let mut empty = client
        .read(ReadRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(empty.message().await.unwrap().is_none());

    // Write (unary), then Read returns one streamed message per entity.
    let write = WriteRequest {
        device_id: 1,
        election_id: Some(Uint128 { high: 0, low: 1 }),
        updates: [1, 2]
            .map(|table_id| Update {
                r#type: p4runtime_proto::p4::v1::update::Type::Insert as i32,
                entity: Some(table_entry(table_id)),
            })
            .to_vec(),
        ..Default::default()
    };
    client.write(write).await.unwrap();
    let read = ReadRequest {
        device_id: 1,
        entities: vec![table_entry(0)],
        ..Default::default()
    };
    let responses: Vec<ReadResponse> = client
        .read(read)
        .await
        .unwrap()
        .into_inner()
        .collect::<Result<_, _>>()
        .await
        .unwrap();
    assert_eq!(responses.len(), 2);
    assert_eq!(responses[1].entities, [table_entry(2)]);

    // A server error reaches the client as a gRPC status.
    let bad = WriteRequest {
        updates: vec![Update::default()],
        ..Default::default()
    };
    let error = client.write(bad).await.unwrap_err();
    assert_eq!(error.code(), tonic::Code::InvalidArgument);

    // SetForwardingPipelineConfig / GetForwardingPipelineConfig (unary).
    let config = ForwardingPipelineConfig {
        p4info: Some(Default::default()),
        p4_device_config: b"#include <v1model.p4>".to_vec(),
        cookie: Some(forwarding_pipeline_config::Cookie { cookie: 42 }),
    };
    client
        .set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
            device_id: 1,
            config: Some(config.clone()),
            ..Default::default()
        })
        .await
        .unwrap();
    let fetched = client
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(fetched.config, Some(config));

    // StreamChannel (bidirectional): arbitration, then a packet-out echoed back
    // as a packet-in.
    let (outbound, receiver) = mpsc::channel(4);
    let mut inbound = client
        .stream_channel(ReceiverStream::new(receiver))
        .await
        .unwrap()
        .into_inner();
    let election_id = Some(Uint128 { high: 0, low: 9 });
    outbound
        .send(StreamMessageRequest {
            update: Some(stream_message_request::Update::Arbitration(
                MasterArbitrationUpdate {
                    device_id: 1,
                    election_id,
                    ..Default::default()
                },
            )),
        })
        .await
        .unwrap();
    let Some(stream_message_response::Update::Arbitration(arbitration)) =
        inbound.message().await.unwrap().unwrap().update
    else {
        panic!("expected an arbitration update first");
    };
    assert_eq!(arbitration.election_id, election_id);
    assert_eq!(arbitration.status.unwrap().code, 0);

    outbound
        .send(StreamMessageRequest {
            update: Some(stream_message_request::Update::Packet(PacketOut {
                payload: vec![0xab; 60],
                metadata: vec![],
            })),
        })
        .await
        .unwrap();
    let Some(stream_message_response::Update::Packet(packet)) =
        inbound.message().await.unwrap().unwrap().update
    else {
        panic!("expected a packet-in");
    };
    assert_eq!(packet.payload, [0xab; 60]);

    // Closing our half ends the server's stream.
    drop(outbound);
    assert!(inbound.message().await.unwrap().is_none());

    drop(client);
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("server stops")
        .unwrap();
}

#[test]
fn descriptor_declares_six_rpcs_with_their_streaming_shapes() {
    let set = FileDescriptorSet::decode(FILE_DESCRIPTOR_SET).unwrap();
    let file = set
        .file
        .iter()
        .find(|file| file.name() == "p4/v1/p4runtime.proto")
        .expect("p4runtime.proto is in the set");
    assert_eq!(file.package(), "p4.v1");
    let [service] = file.service.as_slice() else {
        panic!("expected exactly one service");
    };
    assert_eq!(service.name(), "P4Runtime");

    let methods: Vec<_> = service
        .method
        .iter()
        .map(|method| {
            (
                method.name(),
                method.input_type(),
                method.output_type(),
                method.client_streaming(),
                method.server_streaming(),
            )
        })
        .collect();
    assert_eq!(
        methods,
        [
            (
                "Write",
                ".p4.v1.WriteRequest",
                ".p4.v1.WriteResponse",
                false,
                false
            ),
            (
                "Read",
                ".p4.v1.ReadRequest",
                ".p4.v1.ReadResponse",
                false,
                true
            ),
            (
                "SetForwardingPipelineConfig",
                ".p4.v1.SetForwardingPipelineConfigRequest",
                ".p4.v1.SetForwardingPipelineConfigResponse",
                false,
                false
            ),
            (
                "GetForwardingPipelineConfig",
                ".p4.v1.GetForwardingPipelineConfigRequest",
                ".p4.v1.GetForwardingPipelineConfigResponse",
                false,
                false
            ),
            (
                "StreamChannel",
                ".p4.v1.StreamMessageRequest",
                ".p4.v1.StreamMessageResponse",
                true,
                true
            ),
            (
                "Capabilities",
                ".p4.v1.CapabilitiesRequest",
                ".p4.v1.CapabilitiesResponse",
                false,
                false
            ),
        ]
    );
}

#[test]
fn descriptor_set_holds_every_package() {
    let set = FileDescriptorSet::decode(FILE_DESCRIPTOR_SET).unwrap();
    let mut files: Vec<_> = set
        .file
        .iter()
        .map(|file| (file.name(), file.package()))
        .collect();
    files.sort_unstable();
    assert_eq!(
        files,
        [
            ("google/protobuf/any.proto", "google.protobuf"),
            ("google/rpc/code.proto", "google.rpc"),
            ("google/rpc/status.proto", "google.rpc"),
            ("p4/config/v1/p4info.proto", "p4.config.v1"),
            ("p4/config/v1/p4types.proto", "p4.config.v1"),
            ("p4/v1/p4data.proto", "p4.v1"),
            ("p4/v1/p4runtime.proto", "p4.v1"),
        ]
    );
}
