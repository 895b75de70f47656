//! esa-switch driven over P4Runtime by the tonic client, with packets on
//! in-memory ports: arbitration, pipeline config, table entries, multicast,
//! clone sessions, counters, registers and packet I/O, and the error codes
//! of bad requests (after each of which the server must still work).

use crate::common::*;
use p4runtime_proto::p4::v1::{
    self as v1, CapabilitiesRequest, Entity, GetForwardingPipelineConfigRequest, entity,
    stream_message_request, stream_message_response,
};
use p4runtime_proto::tonic::Code;
use v1::update::Type::{Delete, Insert, Modify};

const BROADCAST: [u8; 6] = [0xff; 6];
const HOST_A: [u8; 6] = [0, 0, 0, 0, 0, 0xa];
const HOST_B: [u8; 6] = [0, 0, 0, 0, 0, 0xb];
// The same addresses as canonical P4Runtime bytestrings.
const KEY_A: &[u8] = &[0xa];
const KEY_B: &[u8] = &[0xb];

/// A switch with ports 1-4, the L2 program committed by a primary with
/// election id 10.
async fn l2_switch() -> (Harness, Stream, v1::ForwardingPipelineConfig) {
    let mut h = Harness::start(&[1, 2, 3, 4], None, vec![]).await;
    let (stream, update) = arbitrate(&mut h.client, 10).await;
    assert_eq!(update.status.unwrap().code, Code::Ok as i32);
    set_pipeline(&mut h.client, 10, &l2_text(), Some(l2_p4info()))
        .await
        .unwrap();
    let config = h
        .client
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest {
            device_id: 0,
            response_type: 0,
        })
        .await
        .unwrap()
        .into_inner()
        .config
        .unwrap();
    (h, stream, config)
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbitration_primary_and_backup() {
    let mut h = Harness::start(&[1, 2], None, vec![]).await;
    let (mut a, first) = arbitrate(&mut h.client, 10).await;
    assert_eq!(first.status.as_ref().unwrap().code, Code::Ok as i32);
    assert_eq!(first.election_id, election(10));

    let mut client_b = connect(h.addr).await;
    let (mut b, first_b) = arbitrate(&mut client_b, 5).await;
    let status = first_b.status.unwrap();
    assert_eq!(
        status.code,
        Code::AlreadyExists as i32,
        "backup: {status:?}"
    );
    assert_eq!(first_b.election_id, election(10), "the primary's id");
    // A hears about B's arrival too, and stays primary.
    let again = a.next_arbitration().await;
    assert_eq!(again.status.unwrap().code, Code::Ok as i32);

    // Only the primary may set the pipeline and write.
    let err = set_pipeline(&mut client_b, 5, &l2_text(), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    set_pipeline(&mut h.client, 10, &l2_text(), None)
        .await
        .unwrap();
    let p4info = l2_p4info();
    let ids = Ids(&p4info);
    let entry = dmac_entry(&ids, KEY_A, "MyIngress.forward", &[(1, &[1])]);
    let err = write(
        &mut client_b,
        5,
        vec![(Insert, table_entity(entry.clone()))],
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    let err = write(
        &mut h.client,
        11,
        vec![(Insert, table_entity(entry.clone()))],
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code(),
        Code::PermissionDenied,
        "unknown election id: {err:?}"
    );
    write(
        &mut h.client,
        10,
        vec![(Insert, table_entity(entry.clone()))],
    )
    .await
    .unwrap();
    // A backup may read.
    let got = read(&mut client_b, vec![table_entity(v1::TableEntry::default())])
        .await
        .unwrap();
    assert_eq!(got, vec![table_entity(entry)]);

    // A third controller may not reuse an election id.
    let mut client_c = connect(h.addr).await;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tx.send(v1::StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(
            v1::MasterArbitrationUpdate {
                device_id: 0,
                election_id: election(10),
                ..Default::default()
            },
        )),
    })
    .await
    .unwrap();
    let mut c = client_c
        .stream_channel(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let err = tokio_stream::StreamExt::next(&mut c)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);

    // Wrong device id on the stream: NOT_FOUND.
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tx.send(v1::StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(
            v1::MasterArbitrationUpdate {
                device_id: 7,
                election_id: election(3),
                ..Default::default()
            },
        )),
    })
    .await
    .unwrap();
    let mut d = client_c
        .stream_channel(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let err = tokio_stream::StreamExt::next(&mut d)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);

    // B raises its election id above A's: B becomes primary, A is told.
    b.send(stream_message_request::Update::Arbitration(
        v1::MasterArbitrationUpdate {
            device_id: 0,
            election_id: election(20),
            ..Default::default()
        },
    ))
    .await;
    let to_b = b.next_arbitration().await;
    assert_eq!(to_b.status.unwrap().code, Code::Ok as i32);
    assert_eq!(to_b.election_id, election(20));
    let to_a = a.next_arbitration().await;
    assert_eq!(to_a.status.unwrap().code, Code::AlreadyExists as i32);
    let err = write(&mut h.client, 10, vec![]).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    write(&mut client_b, 20, vec![]).await.unwrap();

    // B leaves: A is primary again and is told so.
    drop(b);
    let to_a = a.next_arbitration().await;
    assert_eq!(to_a.status.unwrap().code, Code::Ok as i32);
    write(&mut h.client, 10, vec![]).await.unwrap();
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_config_round_trip_and_errors() {
    let mut h = Harness::start(&[1, 2], None, vec![]).await;
    // Nothing configured yet: FAILED_PRECONDITION everywhere.
    let err = h
        .client
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest::default())
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    let err = read(&mut h.client, vec![table_entity(v1::TableEntry::default())])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    // No primary yet: PERMISSION_DENIED.
    let err = set_pipeline(&mut h.client, 1, &l2_text(), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);

    let (_stream, _) = arbitrate(&mut h.client, 1).await;
    let err = write(&mut h.client, 1, vec![]).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");

    // A program that does not compile: INVALID_ARGUMENT with file:line:col.
    let broken = l2_text().replace("sm.egress_spec = port;", "sm.egress_spec = nosuch;");
    let err = set_pipeline(&mut h.client, 1, &broken, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("program.p4:"), "{}", err.message());
    assert!(err.message().contains("nosuch"), "{}", err.message());
    // Not UTF-8, and empty.
    let err = h
        .client
        .set_forwarding_pipeline_config(v1::SetForwardingPipelineConfigRequest {
            election_id: election(1),
            action: v1::set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
            config: Some(v1::ForwardingPipelineConfig {
                p4_device_config: vec![0xff, 0xfe],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    // A P4Info whose ids disagree with the program's.
    let mut wrong = l2_p4info();
    wrong.tables[0].preamble.as_mut().unwrap().id += 1;
    let err = set_pipeline(&mut h.client, 1, &l2_text(), Some(wrong))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("P4Info"), "{}", err.message());
    // RECONCILE_AND_COMMIT is not implemented.
    let err = h
        .client
        .set_forwarding_pipeline_config(v1::SetForwardingPipelineConfigRequest {
            election_id: election(1),
            action: v1::set_forwarding_pipeline_config_request::Action::ReconcileAndCommit as i32,
            config: Some(v1::ForwardingPipelineConfig::default()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);

    // The good program, with its P4Info: Get returns what was set.
    let p4info = l2_p4info();
    set_pipeline(&mut h.client, 1, &l2_text(), Some(p4info.clone()))
        .await
        .unwrap();
    let config = h
        .client
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest::default())
        .await
        .unwrap()
        .into_inner()
        .config
        .unwrap();
    assert_eq!(config.p4info, Some(p4info));
    assert_eq!(config.p4_device_config, l2_text().into_bytes());
    assert_eq!(config.cookie.unwrap().cookie, 42);
    let caps = h
        .client
        .capabilities(CapabilitiesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(!caps.p4runtime_api_version.is_empty());
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esa_program_over_p4runtime_with_include_dirs() {
    let include = esa_p4::Arch::V1model.test_dir();
    let mut h = Harness::start(&[1], None, vec![include]).await;
    let (_stream, _) = arbitrate(&mut h.client, 1).await;
    let text = std::fs::read_to_string(esa_p4::Arch::V1model.test_program()).unwrap();
    set_pipeline(&mut h.client, 1, &text, None).await.unwrap();
    let config = h
        .client
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest::default())
        .await
        .unwrap()
        .into_inner()
        .config
        .unwrap();
    let p4info = config.p4info.unwrap();
    assert!(p4info.tables.len() >= 2, "{} tables", p4info.tables.len());
    assert!(!p4info.registers.is_empty());
    // Its registers read back over P4Runtime (all zero at start).
    let entities = read(
        &mut h.client,
        vec![Entity {
            entity: Some(entity::Entity::RegisterEntry(v1::RegisterEntry {
                register_id: p4info.registers[0].preamble.as_ref().unwrap().id,
                index: Some(v1::Index { index: 0 }),
                data: None,
            })),
        }],
    )
    .await
    .unwrap();
    assert_eq!(entities.len(), 1);
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_entries_insert_read_modify_delete() {
    let (mut h, _stream, config) = l2_switch().await;
    let p4info = config.p4info.unwrap();
    let ids = Ids(&p4info);
    let forward = ids.action("MyIngress.forward");

    let entry = dmac_entry(&ids, KEY_B, "MyIngress.forward", &[(1, &[2])]);
    write(
        &mut h.client,
        10,
        vec![(Insert, table_entity(entry.clone()))],
    )
    .await
    .unwrap();
    // Read everything, one table, and one entry: the entity comes back
    // exactly as written.
    let all = read(&mut h.client, vec![table_entity(v1::TableEntry::default())])
        .await
        .unwrap();
    assert_eq!(all, vec![table_entity(entry.clone())]);
    let one = read(
        &mut h.client,
        vec![table_entity(v1::TableEntry {
            table_id: entry.table_id,
            r#match: entry.r#match.clone(),
            ..Default::default()
        })],
    )
    .await
    .unwrap();
    assert_eq!(one, vec![table_entity(entry.clone())]);

    // The entry forwards.
    let f = frame(HOST_B, HOST_A, 0x88b5, b"hello");
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(2).recv_timeout(TIMEOUT), Some(f.clone()));

    // Modify: now out of port 3; the read shows the new action.
    let modified = dmac_entry(&ids, KEY_B, "MyIngress.forward", &[(1, &[3])]);
    write(
        &mut h.client,
        10,
        vec![(Modify, table_entity(modified.clone()))],
    )
    .await
    .unwrap();
    let all = read(&mut h.client, vec![table_entity(v1::TableEntry::default())])
        .await
        .unwrap();
    assert_eq!(all, vec![table_entity(modified.clone())]);
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(3).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(2).recv_timeout(QUIET), None);

    // Duplicate insert: ALREADY_EXISTS in the per-update details; a batch
    // with a good update and a bad one applies the good one.
    let other = dmac_entry(&ids, KEY_A, "MyIngress.forward", &[(1, &[1])]);
    let err = write(
        &mut h.client,
        10,
        vec![
            (Insert, table_entity(other.clone())),
            (Insert, table_entity(modified.clone())),
        ],
    )
    .await
    .unwrap_err();
    let codes = update_codes(&err);
    assert_eq!(codes.len(), 2);
    assert_eq!(codes[0].0, Code::Ok);
    assert_eq!(codes[1].0, Code::AlreadyExists, "{codes:?}");
    let all = read(&mut h.client, vec![table_entity(v1::TableEntry::default())])
        .await
        .unwrap();
    assert_eq!(all.len(), 2);

    // Delete; deleting again is NOT_FOUND, as is modifying a missing entry.
    write(
        &mut h.client,
        10,
        vec![(Delete, table_entity(modified.clone()))],
    )
    .await
    .unwrap();
    let err = write(
        &mut h.client,
        10,
        vec![(Delete, table_entity(modified.clone()))],
    )
    .await
    .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::NotFound);
    let err = write(
        &mut h.client,
        10,
        vec![(Modify, table_entity(modified.clone()))],
    )
    .await
    .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::NotFound);
    let all = read(&mut h.client, vec![table_entity(v1::TableEntry::default())])
        .await
        .unwrap();
    assert_eq!(all, vec![table_entity(other.clone())]);
    // Unmatched frames hit the default action (drop).
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(3).recv_timeout(QUIET), None);

    // Non-canonical bytes with leading zeros are accepted and read back
    // canonical.
    let padded = dmac_entry(
        &ids,
        &[0, 0, 0, 0, 0, 0, 0, 0xc],
        "MyIngress.forward",
        &[(1, &[0, 0, 4])],
    );
    write(&mut h.client, 10, vec![(Insert, table_entity(padded))])
        .await
        .unwrap();
    let canonical = dmac_entry(&ids, &[0xc], "MyIngress.forward", &[(1, &[4])]);
    let got = read(
        &mut h.client,
        vec![table_entity(v1::TableEntry {
            table_id: canonical.table_id,
            r#match: canonical.r#match.clone(),
            ..Default::default()
        })],
    )
    .await
    .unwrap();
    assert_eq!(got, vec![table_entity(canonical)]);

    // Bad requests, each its own clear code; the server keeps serving.
    let bad: Vec<(&str, v1::TableEntry, Code)> = vec![
        (
            "key wider than 48 bits",
            dmac_entry(
                &ids,
                &[1, 0, 0, 0, 0, 0, 1],
                "MyIngress.forward",
                &[(1, &[1])],
            ),
            Code::OutOfRange,
        ),
        (
            "parameter wider than 9 bits",
            dmac_entry(&ids, &[0xd], "MyIngress.forward", &[(1, &[2, 0])]),
            Code::OutOfRange,
        ),
        (
            "empty value",
            dmac_entry(&ids, &[], "MyIngress.forward", &[(1, &[1])]),
            Code::InvalidArgument,
        ),
        (
            "missing parameter",
            dmac_entry(&ids, &[0xd], "MyIngress.forward", &[]),
            Code::InvalidArgument,
        ),
        (
            "unknown table",
            v1::TableEntry {
                table_id: 12345,
                ..dmac_entry(&ids, &[0xd], "MyIngress.forward", &[(1, &[1])])
            },
            Code::NotFound,
        ),
        (
            "action of another table",
            v1::TableEntry {
                action: action(ids.action("NoAction"), &[]),
                ..dmac_entry(&ids, &[0xd], "MyIngress.forward", &[(1, &[1])])
            },
            Code::InvalidArgument,
        ),
        (
            "exact field omitted",
            v1::TableEntry {
                r#match: vec![],
                ..dmac_entry(&ids, &[0xd], "MyIngress.forward", &[(1, &[1])])
            },
            Code::InvalidArgument,
        ),
        (
            "unknown field id",
            v1::TableEntry {
                r#match: vec![exact(9, &[1])],
                ..dmac_entry(&ids, &[0xd], "MyIngress.forward", &[(1, &[1])])
            },
            Code::InvalidArgument,
        ),
        (
            "priority on an exact table",
            v1::TableEntry {
                priority: 5,
                ..dmac_entry(&ids, &[0xd], "MyIngress.forward", &[(1, &[1])])
            },
            Code::InvalidArgument,
        ),
        (
            "ternary entry without priority",
            v1::TableEntry {
                table_id: ids.table("MyIngress.acl"),
                r#match: vec![ternary(1, &[0x88, 0xb5], &[0xff, 0xff])],
                action: action(ids.action("MyIngress.drop"), &[]),
                ..Default::default()
            },
            Code::InvalidArgument,
        ),
        (
            "ternary value outside its mask",
            v1::TableEntry {
                table_id: ids.table("MyIngress.acl"),
                r#match: vec![ternary(1, &[0x88, 0xb5], &[0xff, 0x00])],
                action: action(ids.action("MyIngress.drop"), &[]),
                priority: 1,
                ..Default::default()
            },
            Code::InvalidArgument,
        ),
        (
            "wrong match kind",
            v1::TableEntry {
                table_id: ids.table("MyIngress.acl"),
                r#match: vec![exact(1, &[0x88, 0xb5])],
                action: action(ids.action("MyIngress.drop"), &[]),
                priority: 1,
                ..Default::default()
            },
            Code::InvalidArgument,
        ),
    ];
    for (what, entry, code) in bad {
        let err = write(&mut h.client, 10, vec![(Insert, table_entity(entry))])
            .await
            .unwrap_err();
        let codes = update_codes(&err);
        assert_eq!(codes[0].0, code, "{what}: {codes:?}");
        // Still serving.
        read(&mut h.client, vec![table_entity(v1::TableEntry::default())])
            .await
            .unwrap();
    }
    // An update with no entity, and an unsupported entity.
    let err = h
        .client
        .write(v1::WriteRequest {
            election_id: election(10),
            updates: vec![
                v1::Update {
                    r#type: Insert as i32,
                    entity: None,
                },
                v1::Update {
                    r#type: Insert as i32,
                    entity: Some(Entity {
                        entity: Some(entity::Entity::MeterEntry(v1::MeterEntry::default())),
                    }),
                },
            ],
            ..Default::default()
        })
        .await
        .unwrap_err();
    let codes = update_codes(&err);
    assert_eq!(codes[0].0, Code::InvalidArgument);
    assert_eq!(codes[1].0, Code::Unimplemented);
    // Malformed protobuf bytes on the wire: the server answers with an
    // error status and keeps serving.
    let mut raw = tonic_raw_client(h.addr).await;
    let status = raw.unwrap_err_on_garbage().await;
    assert_ne!(status, Code::Ok);
    h.client
        .capabilities(CapabilitiesRequest::default())
        .await
        .unwrap();

    // Ternary entries with priorities read back as written.
    let acl = v1::TableEntry {
        table_id: ids.table("MyIngress.acl"),
        r#match: vec![
            ternary(1, &[0x88, 0xb5], &[0xff, 0xff]),
            ternary(2, &[0xa], &[0xff]),
        ],
        action: action(ids.action("MyIngress.drop"), &[]),
        priority: 7,
        ..Default::default()
    };
    write(&mut h.client, 10, vec![(Insert, table_entity(acl.clone()))])
        .await
        .unwrap();
    let got = read(
        &mut h.client,
        vec![table_entity(v1::TableEntry {
            table_id: acl.table_id,
            ..Default::default()
        })],
    )
    .await
    .unwrap();
    assert_eq!(got, vec![table_entity(acl)]);
    let _ = forward;
}

/// Sends a frame of bytes that is not a valid WriteRequest.
struct RawClient {
    grpc: p4runtime_proto::tonic::client::Grpc<p4runtime_proto::tonic::transport::Channel>,
}

async fn tonic_raw_client(addr: std::net::SocketAddr) -> RawClient {
    let channel =
        p4runtime_proto::tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
    RawClient {
        grpc: p4runtime_proto::tonic::client::Grpc::new(channel),
    }
}

impl RawClient {
    async fn unwrap_err_on_garbage(&mut self) -> Code {
        use p4runtime_proto::tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
        #[derive(Debug, Default, Clone)]
        struct Bytes;
        #[derive(Debug, Default, Clone)]
        struct BytesEnc;
        #[derive(Debug, Default, Clone)]
        struct BytesDec;
        impl Encoder for BytesEnc {
            type Item = Vec<u8>;
            type Error = p4runtime_proto::tonic::Status;
            fn encode(
                &mut self,
                item: Vec<u8>,
                dst: &mut EncodeBuf<'_>,
            ) -> Result<(), Self::Error> {
                use bytes::BufMut;
                dst.put_slice(&item);
                Ok(())
            }
        }
        impl Decoder for BytesDec {
            type Item = Vec<u8>;
            type Error = p4runtime_proto::tonic::Status;
            fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Self::Error> {
                use bytes::Buf;
                let mut v = vec![0; src.remaining()];
                src.copy_to_slice(&mut v);
                Ok(Some(v))
            }
        }
        impl Codec for Bytes {
            type Encode = Vec<u8>;
            type Decode = Vec<u8>;
            type Encoder = BytesEnc;
            type Decoder = BytesDec;
            fn encoder(&mut self) -> BytesEnc {
                BytesEnc
            }
            fn decoder(&mut self) -> BytesDec {
                BytesDec
            }
        }
        self.grpc.ready().await.unwrap();
        let path = p4runtime_proto::tonic::codegen::http::uri::PathAndQuery::from_static(
            "/p4.v1.P4Runtime/Write",
        );
        // Field 4 (election_id) as a length-delimited field whose length
        // runs past the end of the message.
        let garbage = vec![0x22, 0x7f, 0x01];
        match self
            .grpc
            .unary(p4runtime_proto::tonic::Request::new(garbage), path, Bytes)
            .await
        {
            Ok(_) => Code::Ok,
            Err(s) => s.code(),
        }
    }
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_entries() {
    let (mut h, _stream, config) = l2_switch().await;
    let p4info = config.p4info.unwrap();
    let ids = Ids(&p4info);
    let dmac = ids.table("MyIngress.dmac");
    let query = table_entity(v1::TableEntry {
        table_id: dmac,
        is_default_action: true,
        ..Default::default()
    });
    // The program's default: drop.
    let got = read(&mut h.client, vec![query.clone()]).await.unwrap();
    let drop_default = v1::TableEntry {
        table_id: dmac,
        action: action(ids.action("MyIngress.drop"), &[]),
        is_default_action: true,
        ..Default::default()
    };
    assert_eq!(got, vec![table_entity(drop_default.clone())]);
    // Flood unknown destinations to group 1 instead.
    let flood_default = v1::TableEntry {
        table_id: dmac,
        action: action(ids.action("MyIngress.flood"), &[(1, &[1])]),
        is_default_action: true,
        ..Default::default()
    };
    write(
        &mut h.client,
        10,
        vec![(Modify, table_entity(flood_default.clone()))],
    )
    .await
    .unwrap();
    assert_eq!(
        read(&mut h.client, vec![query.clone()]).await.unwrap(),
        vec![table_entity(flood_default.clone())]
    );
    write(
        &mut h.client,
        10,
        vec![(Insert, multicast_group(1, &[(2, 0), (3, 0)]))],
    )
    .await
    .unwrap();
    let f = frame(HOST_B, HOST_A, 0x88b5, b"unknown dst");
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(2).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(3).recv_timeout(TIMEOUT), Some(f.clone()));
    // INSERT of a default entry is not allowed.
    let err = write(
        &mut h.client,
        10,
        vec![(Insert, table_entity(flood_default))],
    )
    .await
    .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::InvalidArgument);
    // MODIFY without an action resets to the program's default.
    write(
        &mut h.client,
        10,
        vec![(
            Modify,
            table_entity(v1::TableEntry {
                table_id: dmac,
                is_default_action: true,
                ..Default::default()
            }),
        )],
    )
    .await
    .unwrap();
    assert_eq!(
        read(&mut h.client, vec![query]).await.unwrap(),
        vec![table_entity(drop_default)]
    );
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(2).recv_timeout(QUIET), None);
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multicast_groups_replicate_byte_exact() {
    let (mut h, _stream, config) = l2_switch().await;
    let p4info = config.p4info.unwrap();
    let ids = Ids(&p4info);
    let group = multicast_group(7, &[(2, 0), (3, 0), (4, 1)]);
    write(&mut h.client, 10, vec![(Insert, group.clone())])
        .await
        .unwrap();
    let flood = dmac_entry(&ids, &BROADCAST, "MyIngress.flood", &[(1, &[7])]);
    write(&mut h.client, 10, vec![(Insert, table_entity(flood))])
        .await
        .unwrap();
    let f = frame(BROADCAST, HOST_A, 0x0806, &[0x5a; 46]);
    h.port(1).send(&f).unwrap();
    for p in [2, 3, 4] {
        assert_eq!(h.port(p).recv_timeout(TIMEOUT), Some(f.clone()), "port {p}");
    }
    assert_eq!(h.port(1).recv_timeout(QUIET), None);
    // Read back: exactly what was written.
    let all = read(&mut h.client, vec![multicast_group(0, &[])])
        .await
        .unwrap();
    assert_eq!(all, vec![group]);
    // Duplicate insert and missing modify.
    let err = write(
        &mut h.client,
        10,
        vec![(Insert, multicast_group(7, &[(2, 0)]))],
    )
    .await
    .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::AlreadyExists);
    let err = write(
        &mut h.client,
        10,
        vec![(Modify, multicast_group(8, &[(2, 0)]))],
    )
    .await
    .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::NotFound);
    let err = write(
        &mut h.client,
        10,
        vec![(Insert, multicast_group(9, &[(600, 0)]))],
    )
    .await
    .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::OutOfRange);
    // Modify to ports 3 and 4 only.
    write(
        &mut h.client,
        10,
        vec![(Modify, multicast_group(7, &[(3, 0), (4, 0)]))],
    )
    .await
    .unwrap();
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(3).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(4).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(2).recv_timeout(QUIET), None);
    // Delete: nothing leaves.
    write(&mut h.client, 10, vec![(Delete, multicast_group(7, &[]))])
        .await
        .unwrap();
    h.port(1).send(&f).unwrap();
    for p in [2, 3, 4] {
        assert_eq!(h.port(p).recv_timeout(QUIET), None, "port {p}");
    }
    assert!(
        read(&mut h.client, vec![multicast_group(0, &[])])
            .await
            .unwrap()
            .is_empty()
    );
    // Port counters saw it all: 3 frames in on port 1, the last dropped.
    let s1 = h.switch.switch().port_stats(1).unwrap();
    assert_eq!(s1.rx_packets, 3);
    assert_eq!(s1.dropped, 1);
    assert_eq!(h.switch.switch().port_stats(2).unwrap().tx_packets, 1);
    assert_eq!(h.switch.switch().port_stats(3).unwrap().tx_packets, 2);
}

fn clone_session(id: u32, replicas: &[(u32, u32)]) -> Entity {
    Entity {
        entity: Some(entity::Entity::PacketReplicationEngineEntry(
            v1::PacketReplicationEngineEntry {
                r#type: Some(
                    v1::packet_replication_engine_entry::Type::CloneSessionEntry(
                        v1::CloneSessionEntry {
                            session_id: id,
                            replicas: replicas
                                .iter()
                                .map(|(port, instance)| v1::Replica {
                                    instance: *instance,
                                    port_kind: Some(v1::replica::PortKind::Port(vec![*port as u8])),
                                    ..Default::default()
                                })
                                .collect(),
                            class_of_service: 0,
                            packet_length_bytes: 0,
                        },
                    ),
                ),
            },
        )),
    }
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clone_sessions_mirror() {
    let (mut h, _stream, config) = l2_switch().await;
    let p4info = config.p4info.unwrap();
    let ids = Ids(&p4info);
    write(
        &mut h.client,
        10,
        vec![
            (
                Insert,
                table_entity(dmac_entry(&ids, KEY_B, "MyIngress.forward", &[(1, &[2])])),
            ),
            (Insert, clone_session(5, &[(4, 0)])),
            (
                Insert,
                table_entity(v1::TableEntry {
                    table_id: ids.table("MyIngress.acl"),
                    r#match: vec![ternary(1, &[0x88, 0xb5], &[0xff, 0xff])],
                    action: action(ids.action("MyIngress.mirror"), &[(1, &[5])]),
                    priority: 1,
                    ..Default::default()
                }),
            ),
        ],
    )
    .await
    .unwrap();
    let f = frame(HOST_B, HOST_A, 0x88b5, b"mirror me");
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(2).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(4).recv_timeout(TIMEOUT), Some(f.clone()));
    // Two replicas: copies to 3 and 4.
    write(
        &mut h.client,
        10,
        vec![(Modify, clone_session(5, &[(3, 0), (4, 0)]))],
    )
    .await
    .unwrap();
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(2).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(3).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(4).recv_timeout(TIMEOUT), Some(f.clone()));
    let got = read(&mut h.client, vec![clone_session(0, &[])])
        .await
        .unwrap();
    assert_eq!(got, vec![clone_session(5, &[(3, 0), (4, 0)])]);
    write(&mut h.client, 10, vec![(Delete, clone_session(5, &[]))])
        .await
        .unwrap();
    h.port(1).send(&f).unwrap();
    assert_eq!(h.port(2).recv_timeout(TIMEOUT), Some(f.clone()));
    assert_eq!(h.port(4).recv_timeout(QUIET), None);
    let err = write(&mut h.client, 10, vec![(Delete, clone_session(5, &[]))])
        .await
        .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::NotFound);
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counters_and_registers() {
    let (mut h, _stream, config) = l2_switch().await;
    let p4info = config.p4info.unwrap();
    let ids = Ids(&p4info);
    write(
        &mut h.client,
        10,
        vec![(
            Insert,
            table_entity(dmac_entry(&ids, KEY_B, "MyIngress.forward", &[(1, &[2])])),
        )],
    )
    .await
    .unwrap();
    let f = frame(HOST_B, HOST_A, 0x88b5, &[1; 50]);
    for _ in 0..3 {
        h.port(1).send(&f).unwrap();
        assert!(h.port(2).recv_timeout(TIMEOUT).is_some());
    }
    let counter = ids.counter("MyIngress.port_rx");
    let query = |index: Option<i64>| Entity {
        entity: Some(entity::Entity::CounterEntry(v1::CounterEntry {
            counter_id: counter,
            index: index.map(|index| v1::Index { index }),
            data: None,
        })),
    };
    let got = read(&mut h.client, vec![query(Some(1))]).await.unwrap();
    let expected = Entity {
        entity: Some(entity::Entity::CounterEntry(v1::CounterEntry {
            counter_id: counter,
            index: Some(v1::Index { index: 1 }),
            data: Some(v1::CounterData {
                byte_count: 3 * f.len() as i64,
                packet_count: 3,
            }),
        })),
    };
    assert_eq!(got, vec![expected]);
    // A wildcard read gives every cell.
    assert_eq!(
        read(&mut h.client, vec![query(None)]).await.unwrap().len(),
        512
    );
    // Out of range: OUT_OF_RANGE; the server keeps serving.
    let err = read(&mut h.client, vec![query(Some(512))])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::OutOfRange);
    // Reset cell 1 by writing zeros.
    write(
        &mut h.client,
        10,
        vec![(
            Modify,
            Entity {
                entity: Some(entity::Entity::CounterEntry(v1::CounterEntry {
                    counter_id: counter,
                    index: Some(v1::Index { index: 1 }),
                    data: Some(v1::CounterData::default()),
                })),
            },
        )],
    )
    .await
    .unwrap();
    let got = read(&mut h.client, vec![query(Some(1))]).await.unwrap();
    let Some(entity::Entity::CounterEntry(c)) = &got[0].entity else {
        panic!("{got:?}")
    };
    assert_eq!(c.data, Some(v1::CounterData::default()));

    // The register holds the last frame length seen on port 1.
    let register = ids.register("MyIngress.last_len");
    let reg = |index: i64, data: Option<Vec<u8>>| Entity {
        entity: Some(entity::Entity::RegisterEntry(v1::RegisterEntry {
            register_id: register,
            index: Some(v1::Index { index }),
            data: data.map(|d| v1::P4Data {
                data: Some(v1::p4_data::Data::Bitstring(d)),
            }),
        })),
    };
    let got = read(&mut h.client, vec![reg(1, None)]).await.unwrap();
    assert_eq!(got, vec![reg(1, Some(vec![f.len() as u8]))]);
    write(
        &mut h.client,
        10,
        vec![(Modify, reg(9, Some(vec![0x12, 0x34])))],
    )
    .await
    .unwrap();
    let got = read(&mut h.client, vec![reg(9, None)]).await.unwrap();
    assert_eq!(got, vec![reg(9, Some(vec![0x12, 0x34]))]);
    let err = write(
        &mut h.client,
        10,
        vec![(Modify, reg(9, Some(vec![1, 0, 0, 0, 0])))],
    )
    .await
    .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::OutOfRange);
    let err = write(&mut h.client, 10, vec![(Insert, reg(9, Some(vec![1])))])
        .await
        .unwrap_err();
    assert_eq!(update_codes(&err)[0].0, Code::InvalidArgument);
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn packet_in_and_packet_out() {
    let (mut h, mut stream, config) = l2_switch().await;
    let p4info = config.p4info.unwrap();
    let ids = Ids(&p4info);
    write(
        &mut h.client,
        10,
        vec![(
            Insert,
            table_entity(dmac_entry(&ids, KEY_B, "MyIngress.to_cpu", &[])),
        )],
    )
    .await
    .unwrap();
    // A frame to the CPU arrives as a PacketIn with ingress_port = 3.
    let f = frame(HOST_B, HOST_A, 0x88b5, b"to the controller");
    h.port(3).send(&f).unwrap();
    let packet_in = loop {
        match stream.next().await.unwrap().update {
            Some(stream_message_response::Update::Packet(p)) => break p,
            _ => continue,
        }
    };
    assert_eq!(packet_in.payload, f);
    assert_eq!(
        packet_in.metadata,
        vec![
            v1::PacketMetadata {
                metadata_id: 1,
                value: vec![3],
            },
            v1::PacketMetadata {
                metadata_id: 2,
                value: vec![0],
            },
        ]
    );
    // A PacketOut with egress_port = 4 leaves port 4 as its payload.
    let out = frame(HOST_A, HOST_B, 0x88b5, b"from the controller");
    stream
        .send(stream_message_request::Update::Packet(v1::PacketOut {
            payload: out.clone(),
            metadata: vec![v1::PacketMetadata {
                metadata_id: 1,
                value: vec![4],
            }],
        }))
        .await;
    assert_eq!(h.port(4).recv_timeout(TIMEOUT), Some(out.clone()));
    // A metadata value too wide: a stream error, the stream stays open.
    stream
        .send(stream_message_request::Update::Packet(v1::PacketOut {
            payload: out.clone(),
            metadata: vec![v1::PacketMetadata {
                metadata_id: 1,
                value: vec![4, 0],
            }],
        }))
        .await;
    let error = loop {
        match stream.next().await.unwrap().update {
            Some(stream_message_response::Update::Error(e)) => break e,
            _ => continue,
        }
    };
    assert_eq!(error.canonical_code, Code::InvalidArgument as i32);
    stream
        .send(stream_message_request::Update::Packet(v1::PacketOut {
            payload: out.clone(),
            metadata: vec![v1::PacketMetadata {
                metadata_id: 1,
                value: vec![2],
            }],
        }))
        .await;
    assert_eq!(h.port(2).recv_timeout(TIMEOUT), Some(out));
}

// Multi-threaded: the tests block on in-memory ports while the client and
// server tasks run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn program_at_start_and_frames_without_program() {
    // No program: frames are dropped and counted.
    let h = Harness::start(&[1, 2], None, vec![]).await;
    h.port(1).send(&[0u8; 60]).unwrap();
    assert_eq!(h.port(2).recv_timeout(QUIET), None);
    assert_eq!(h.switch.switch().port_stats(1).unwrap().dropped, 1);
    drop(h);
    // A program given at start is served at once.
    let program = esa_switch::Program::load(esa_switch::Source::File(&l2_path()), &[]).unwrap();
    let mut h = Harness::start(&[1, 2], Some(program), vec![]).await;
    let config = h
        .client
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest::default())
        .await
        .unwrap()
        .into_inner()
        .config
        .unwrap();
    assert_eq!(config.p4info, Some(l2_p4info()));
    // Bad port sets are startup errors.
    let err = esa_switch::Switch::builder(esa_switch::SwitchConfig::default())
        .memory_ports([1, 1])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("twice"), "{err}");
    let err = esa_switch::Switch::builder(esa_switch::SwitchConfig::default())
        .memory_ports([600])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("below"), "{err}");
    // 511 is v1model's drop port, on any kind of port.
    let err = esa_switch::Switch::builder(esa_switch::SwitchConfig::default())
        .udp_port(511, "127.0.0.1:0".parse().unwrap(), None)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "port 511: is the drop port (a frame sent there is dropped): use 0..=510"
    );
    let err = esa_switch::Switch::builder(esa_switch::SwitchConfig::default())
        .memory_ports([511])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("drop port"), "{err}");
    #[cfg(target_os = "linux")]
    {
        let err = esa_switch::Switch::builder(esa_switch::SwitchConfig::default())
            .interface(1, "esa-no-such-if0")
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("esa-no-such-if0"), "{err}");
    }
}
