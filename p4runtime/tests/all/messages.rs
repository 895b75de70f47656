//! Encoding tests for the P4Runtime messages.
//!
//! Three kinds of evidence that the field numbers match the public P4Runtime
//! definitions:
//! - byte strings worked out by hand from the protobuf wire format (each
//!   commented with the field numbers it relies on);
//! - fixtures in `tests/fixtures/*.hex`, produced by the official P4Runtime
//!   Python bindings (`make_fixtures.py`), which must decode into the expected
//!   Rust values and re-encode to the same bytes;
//! - round trips of representative messages.
//!
//! Malformed input must produce a decode error, never a panic.

use p4runtime_proto::google::rpc::Status;
use p4runtime_proto::p4::config::v1 as p4info;
use p4runtime_proto::p4::v1::{
    self as p4rt, Action, CloneSessionEntry, CounterData, CounterEntry, DigestEntry,
    DirectCounterEntry, Entity, FieldMatch, Index, MasterArbitrationUpdate, MeterConfig,
    MeterEntry, MulticastGroupEntry, P4Data, PacketReplicationEngineEntry, ReadRequest,
    RegisterEntry, Replica, StreamMessageRequest, StreamMessageResponse, TableAction, TableEntry,
    Uint128, Update, WriteRequest, entity, field_match, packet_replication_engine_entry, replica,
    stream_message_request, stream_message_response, table_action, update,
};
use p4runtime_proto::prost::Message;
use proptest::prelude::*;

const TABLE_ID: u32 = 0x0200_0001;
const ACTION_ID: u32 = 0x0100_0002;

fn hex(text: &str) -> Vec<u8> {
    let text = text.trim();
    assert!(text.len().is_multiple_of(2), "odd number of hex digits");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digit"))
        .collect()
}

fn exact(field_id: u32, value: &[u8]) -> FieldMatch {
    FieldMatch {
        field_id,
        field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
            value: value.to_vec(),
        })),
    }
}

fn param(param_id: u32, value: &[u8]) -> p4rt::action::Param {
    p4rt::action::Param {
        param_id,
        value: value.to_vec(),
    }
}

fn update(kind: update::Type, entity: entity::Entity) -> Update {
    Update {
        r#type: kind as i32,
        entity: Some(Entity {
            entity: Some(entity),
        }),
    }
}

fn pre(kind: packet_replication_engine_entry::Type) -> entity::Entity {
    entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(kind),
    })
}

/// A table entry that uses every match kind, with direct counter data.
fn entry_with_every_match_kind() -> TableEntry {
    use field_match::FieldMatchType as Kind;
    let field = |field_id, kind| FieldMatch {
        field_id,
        field_match_type: Some(kind),
    };
    TableEntry {
        table_id: TABLE_ID,
        r#match: vec![
            exact(1, &[0x0a, 0x0b]),
            field(
                2,
                Kind::Ternary(field_match::Ternary {
                    value: vec![0x00, 0x12],
                    mask: vec![0x00, 0xff],
                }),
            ),
            field(
                3,
                Kind::Lpm(field_match::Lpm {
                    value: vec![10, 0, 0, 0],
                    prefix_len: 8,
                }),
            ),
            field(
                4,
                Kind::Range(field_match::Range {
                    low: vec![0x10, 0x00],
                    high: vec![0x1f, 0xff],
                }),
            ),
            field(5, Kind::Optional(field_match::Optional { value: vec![3] })),
        ],
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: ACTION_ID,
                params: vec![param(1, &[0x00, 0x05]), param(2, &[10, 0, 0, 1])],
            })),
        }),
        priority: 10,
        metadata: b"job-3".to_vec(),
        idle_timeout_ns: 5_000_000_000,
        counter_data: Some(CounterData {
            byte_count: 1500,
            packet_count: 1,
        }),
        ..Default::default()
    }
}

/// The same batch that `make_fixtures.py` builds with the reference bindings.
fn reference_write_request() -> WriteRequest {
    use packet_replication_engine_entry::Type as Pre;
    use update::Type::{Insert, Modify};

    let default_entry = TableEntry {
        table_id: TABLE_ID,
        is_default_action: true,
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: 0x0100_0001,
                params: vec![],
            })),
        }),
        ..Default::default()
    };
    let group = MulticastGroupEntry {
        multicast_group_id: 7,
        replicas: vec![
            Replica {
                port_kind: Some(replica::PortKind::Port(vec![1])),
                instance: 1,
                backup_replicas: vec![p4rt::BackupReplica {
                    port: vec![2],
                    instance: 1,
                }],
            },
            #[allow(deprecated)]
            Replica {
                port_kind: Some(replica::PortKind::EgressPort(3)),
                instance: 2,
                backup_replicas: vec![],
            },
        ],
        metadata: b"job-3 workers".to_vec(),
    };
    let session = CloneSessionEntry {
        session_id: 100,
        replicas: vec![Replica {
            port_kind: Some(replica::PortKind::Port(vec![0x40])),
            instance: 0,
            backup_replicas: vec![],
        }],
        class_of_service: 1,
        packet_length_bytes: 128,
    };
    let counter = CounterEntry {
        counter_id: 0x1200_0001,
        index: Some(Index { index: 3 }),
        data: Some(CounterData::default()),
    };
    let direct_counter = DirectCounterEntry {
        table_entry: Some(TableEntry {
            table_id: TABLE_ID,
            r#match: vec![exact(1, &[0x0a, 0x0b])],
            ..Default::default()
        }),
        data: Some(CounterData {
            byte_count: 64,
            packet_count: 1,
        }),
    };
    let register = RegisterEntry {
        register_id: 0x1600_0001,
        index: Some(Index { index: 0 }),
        data: Some(P4Data {
            data: Some(p4rt::p4_data::Data::Bitstring(vec![0, 0, 0, 0x2a])),
        }),
    };
    let meter = MeterEntry {
        meter_id: 0x1400_0001,
        index: Some(Index { index: 1 }),
        config: Some(MeterConfig {
            cir: 1000,
            cburst: 100,
            pir: 2000,
            pburst: 200,
            eburst: 50,
        }),
        counter_data: None,
    };
    let digest = DigestEntry {
        digest_id: 0x1700_0001,
        config: Some(p4rt::digest_entry::Config {
            max_timeout_ns: 1_000_000,
            max_list_size: 16,
            ack_timeout_ns: 10_000_000,
        }),
    };

    WriteRequest {
        device_id: 1,
        role: "esa".into(),
        election_id: Some(Uint128 { high: 0, low: 7 }),
        atomicity: p4rt::write_request::Atomicity::ContinueOnError as i32,
        updates: vec![
            update(
                Insert,
                entity::Entity::TableEntry(entry_with_every_match_kind()),
            ),
            update(Modify, entity::Entity::TableEntry(default_entry)),
            update(Insert, pre(Pre::MulticastGroupEntry(group))),
            update(Insert, pre(Pre::CloneSessionEntry(session))),
            update(Modify, entity::Entity::CounterEntry(counter)),
            update(Modify, entity::Entity::DirectCounterEntry(direct_counter)),
            update(Modify, entity::Entity::RegisterEntry(register)),
            update(Modify, entity::Entity::MeterEntry(meter)),
            update(Insert, entity::Entity::DigestEntry(digest)),
        ],
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------
// Hand-computed encodings. A field key is (field_number << 3) | wire_type,
// with wire type 0 = varint and 2 = length-delimited.

#[test]
fn field_match_exact_encodes_by_hand() {
    // FieldMatch.field_id = 1 (varint):          08 01
    // FieldMatch.exact = 2 (length-delimited):    12 03
    //   FieldMatch.Exact.value = 1 (bytes 0x0a):  0a 01 0a
    let message = exact(1, &[0x0a]);
    assert_eq!(
        message.encode_to_vec(),
        [0x08, 0x01, 0x12, 0x03, 0x0a, 0x01, 0x0a]
    );
}

#[test]
fn table_entry_multibyte_id_priority_and_default_flag_encode_by_hand() {
    // TableEntry.table_id = 1, value 0x02000001 as a varint: 7-bit groups from
    // the low end are 0x01, 0x00, 0x00, 0x10, so 81 80 80 10:  08 81 80 80 10
    // TableEntry.priority = 4, value 10:                        20 0a
    // TableEntry.is_default_action = 8, true:                   40 01
    let message = TableEntry {
        table_id: TABLE_ID,
        priority: 10,
        is_default_action: true,
        ..Default::default()
    };
    assert_eq!(
        message.encode_to_vec(),
        [0x08, 0x81, 0x80, 0x80, 0x10, 0x20, 0x0a, 0x40, 0x01]
    );
}

#[test]
fn replica_port_kinds_encode_by_hand() {
    // Replica.instance = 2, value 1:           10 01
    // Replica.port = 3 (bytes 00 05):          1a 02 00 05
    let by_bytes = Replica {
        port_kind: Some(replica::PortKind::Port(vec![0x00, 0x05])),
        instance: 1,
        backup_replicas: vec![],
    };
    // Field-number order, as protoc-generated code writes it.
    let canonical = [0x10, 0x01, 0x1a, 0x02, 0x00, 0x05];
    assert_eq!(Replica::decode(&canonical[..]).unwrap(), by_bytes);
    // prost writes a oneof at the position of its lowest field number (here
    // egress_port = 1), so `port` comes first. Protobuf parsers accept fields in
    // any order, so both encodings are valid.
    assert_eq!(
        by_bytes.encode_to_vec(),
        [0x1a, 0x02, 0x00, 0x05, 0x10, 0x01]
    );

    // Replica.egress_port = 1 (deprecated), value 5:  08 05
    // Replica.instance = 2, value 1:                  10 01
    #[allow(deprecated)]
    let by_number = Replica {
        port_kind: Some(replica::PortKind::EgressPort(5)),
        instance: 1,
        backup_replicas: vec![],
    };
    assert_eq!(by_number.encode_to_vec(), [0x08, 0x05, 0x10, 0x01]);
}

#[test]
fn arbitration_update_encodes_by_hand() {
    // StreamMessageRequest.arbitration = 1 (length-delimited, 6 bytes):  0a 06
    //   MasterArbitrationUpdate.device_id = 1, value 1:                 08 01
    //   MasterArbitrationUpdate.election_id = 3 (2 bytes):              1a 02
    //     Uint128.low = 2, value 2 (high = 1 is 0 and so omitted):      10 02
    let message = StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(
            MasterArbitrationUpdate {
                device_id: 1,
                election_id: Some(Uint128 { high: 0, low: 2 }),
                ..Default::default()
            },
        )),
    };
    assert_eq!(
        message.encode_to_vec(),
        [0x0a, 0x06, 0x08, 0x01, 0x1a, 0x02, 0x10, 0x02]
    );
}

#[test]
fn large_field_numbers_encode_by_hand() {
    // P4Info.type_info = 200: key (200 << 3) | 2 = 1602 = 0x642, as a varint
    // c2 0c; an empty message has length 00.
    let info = p4info::P4Info {
        type_info: Some(p4info::P4TypeInfo::default()),
        ..Default::default()
    };
    assert_eq!(info.encode_to_vec(), [0xc2, 0x0c, 0x00]);

    // CapabilitiesResponse.p4runtime_api_version = 1 ("1.3.0"):  0a 05 31 2e 33 2e 30
    // CapabilitiesResponse.experimental = 999: key (999 << 3) | 2 = 7994
    // = 0x1f3a, as a varint ba 3e; an empty Any has length 00.
    let capabilities = p4rt::CapabilitiesResponse {
        p4runtime_api_version: "1.3.0".into(),
        experimental: Some(p4runtime_proto::prost_types::Any::default()),
    };
    assert_eq!(
        capabilities.encode_to_vec(),
        [0x0a, 0x05, b'1', b'.', b'3', b'.', b'0', 0xba, 0x3e, 0x00]
    );
}

// ---------------------------------------------------------------------------
// Fixtures from the reference Python bindings.

#[test]
fn reference_write_request_matches_python_encoding() {
    let bytes = hex(include_str!("../fixtures/write_request.hex"));
    let decoded = WriteRequest::decode(bytes.as_slice()).expect("fixture decodes");
    assert_eq!(decoded, reference_write_request());

    // prost writes the Replica.port_kind oneof before Replica.instance (see
    // replica_port_kinds_encode_by_hand), so the bytes are not identical to
    // protoc's; they differ only in that order and have the same length.
    let encoded = reference_write_request().encode_to_vec();
    assert_eq!(encoded.len(), bytes.len());
    assert_eq!(WriteRequest::decode(encoded.as_slice()).unwrap(), decoded);
    let mut reordered = bytes.clone();
    let protoc_replica = [0x10, 0x01, 0x1a, 0x01, 0x01];
    let prost_replica = [0x1a, 0x01, 0x01, 0x10, 0x01];
    let at = reordered
        .windows(protoc_replica.len())
        .position(|window| window == protoc_replica)
        .expect("the first multicast replica is in the fixture");
    reordered[at..at + prost_replica.len()].copy_from_slice(&prost_replica);
    assert_eq!(encoded, reordered);
}

#[test]
fn reference_p4info_decodes_with_expected_fields() {
    let bytes = hex(include_str!("../fixtures/p4info.hex"));
    let info = p4info::P4Info::decode(bytes.as_slice()).expect("fixture decodes");

    let pkg = info.pkg_info.as_ref().unwrap();
    assert_eq!(pkg.arch, "v1model");
    assert_eq!(
        pkg.platform_properties
            .as_ref()
            .unwrap()
            .multicast_group_table_size,
        4096
    );

    let table = &info.tables[0];
    let preamble = table.preamble.as_ref().unwrap();
    assert_eq!(
        (preamble.id, preamble.name.as_str(), preamble.alias.as_str()),
        (TABLE_ID, "MyIngress.job_table", "job_table")
    );
    use p4info::match_field::{Match, MatchType};
    let kinds: Vec<_> = table
        .match_fields
        .iter()
        .map(|field| (field.id, field.bitwidth, field.r#match.clone()))
        .collect();
    let expected: Vec<_> = [
        MatchType::Exact,
        MatchType::Ternary,
        MatchType::Lpm,
        MatchType::Range,
        MatchType::Optional,
    ]
    .into_iter()
    .zip(1..)
    .map(|(kind, id)| (id, 16, Some(Match::MatchType(kind as i32))))
    .collect();
    assert_eq!(kinds, expected);
    assert_eq!(table.action_refs[0].id, ACTION_ID);
    assert_eq!(
        table.action_refs[1].scope(),
        p4info::action_ref::Scope::DefaultOnly
    );
    assert_eq!(
        table.initial_default_action.as_ref().unwrap().action_id,
        0x0100_0001
    );
    assert_eq!(table.direct_resource_ids, [0x1300_0001]);
    assert_eq!(table.size, 1024);
    assert_eq!(
        table.idle_timeout_behavior(),
        p4info::table::IdleTimeoutBehavior::NotifyControl
    );
    assert!(table.has_initial_entries && !table.is_const_table);

    let params: Vec<_> = info.actions[0]
        .params
        .iter()
        .map(|p| (p.id, p.name.as_str(), p.bitwidth))
        .collect();
    assert_eq!(params, [(1, "fan_in", 8), (2, "ps_addr", 32)]);

    let counter = &info.counters[0];
    assert_eq!(
        counter.spec.as_ref().unwrap().unit(),
        p4info::counter_spec::Unit::Both
    );
    assert_eq!(counter.size, 4096);
    assert_eq!(info.direct_counters[0].direct_table_id, TABLE_ID);
    let meter_spec = info.meters[0].spec.as_ref().unwrap();
    assert_eq!(meter_spec.unit(), p4info::meter_spec::Unit::Bytes);
    assert_eq!(
        meter_spec.r#type(),
        p4info::meter_spec::Type::SingleRateThreeColor
    );

    let packet_in = &info.controller_packet_metadata[0];
    assert_eq!(packet_in.preamble.as_ref().unwrap().name, "packet_in");
    assert_eq!(
        (
            packet_in.metadata[0].name.as_str(),
            packet_in.metadata[0].bitwidth
        ),
        ("ingress_port", 9)
    );

    use p4info::{p4_bitstring_like_type_spec as bits, p4_data_type_spec as data};
    let register = &info.registers[0];
    assert_eq!(register.size, 65536);
    let Some(data::TypeSpec::Bitstring(spec)) = &register.type_spec.as_ref().unwrap().type_spec
    else {
        panic!("register type is not a bitstring: {register:?}");
    };
    assert_eq!(
        spec.type_spec,
        Some(bits::TypeSpec::Bit(p4info::P4BitTypeSpec { bitwidth: 32 }))
    );
    assert_eq!(
        info.digests[0].type_spec.as_ref().unwrap().type_spec,
        Some(data::TypeSpec::Struct(p4info::P4NamedType {
            name: "evict_digest_t".into()
        }))
    );

    let types = info.type_info.as_ref().unwrap();
    assert_eq!(types.structs["evict_digest_t"].members[0].name, "key");
    assert_eq!(types.headers["esa_h"].members[0].name, "flags");
    assert_eq!(
        types.error.as_ref().unwrap().members,
        ["NoError", "PacketTooShort"]
    );

    // Each map holds a single entry, so the encoding is deterministic.
    assert_eq!(info.encode_to_vec(), bytes);
}

#[test]
fn reference_stream_messages_decode_and_reencode() {
    let request = hex(include_str!("../fixtures/stream_0.hex"));
    let decoded = StreamMessageRequest::decode(request.as_slice()).unwrap();
    let Some(stream_message_request::Update::Arbitration(arbitration)) = &decoded.update else {
        panic!("not an arbitration update: {decoded:?}");
    };
    assert_eq!(arbitration.device_id, 1);
    assert_eq!(arbitration.role.as_ref().unwrap().name, "esa");
    assert_eq!(arbitration.election_id, Some(Uint128 { high: 1, low: 2 }));
    assert_eq!(decoded.encode_to_vec(), request);

    use stream_message_response::Update as Response;
    let responses = [
        include_str!("../fixtures/stream_1.hex"),
        include_str!("../fixtures/stream_2.hex"),
        include_str!("../fixtures/stream_3.hex"),
        include_str!("../fixtures/stream_4.hex"),
    ]
    .map(|text| {
        let bytes = hex(text);
        let decoded = StreamMessageResponse::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded.encode_to_vec(), bytes);
        decoded.update.expect("a response kind is set")
    });

    let [
        Response::Arbitration(arbitration),
        Response::Packet(packet),
        Response::Digest(digest),
        Response::Error(error),
    ] = responses
    else {
        panic!("unexpected response kinds: {responses:?}");
    };
    assert_eq!(
        arbitration.status,
        Some(Status {
            code: 6,
            message: "not primary".into(),
            details: vec![],
        })
    );
    assert_eq!(packet.payload, [0xff; 6]);
    assert_eq!(
        packet.metadata,
        [p4rt::PacketMetadata {
            metadata_id: 1,
            value: vec![0, 2]
        }]
    );
    assert_eq!((digest.digest_id, digest.list_id), (0x1700_0001, 9));
    assert_eq!(digest.timestamp, 1_700_000_000_000_000_000);
    let Some(p4rt::p4_data::Data::Struct(members)) = &digest.data[0].data else {
        panic!("digest data is not a struct: {digest:?}");
    };
    assert_eq!(
        members.members[0].data,
        Some(p4rt::p4_data::Data::Bitstring(vec![0, 1]))
    );
    assert_eq!(error.canonical_code, 3);
    let Some(p4rt::stream_error::Details::PacketOut(details)) = &error.details else {
        panic!("error details are not for a packet-out: {error:?}");
    };
    assert_eq!(details.packet_out.as_ref().unwrap().payload, [0]);
}

#[test]
fn reference_pipeline_config_request_decodes() {
    let bytes = hex(include_str!("../fixtures/set_pipeline.hex"));
    let request = p4rt::SetForwardingPipelineConfigRequest::decode(bytes.as_slice()).unwrap();
    assert_eq!(
        request.action(),
        p4rt::set_forwarding_pipeline_config_request::Action::VerifyAndCommit
    );
    let config = request.config.as_ref().unwrap();
    assert_eq!(
        config
            .p4info
            .as_ref()
            .unwrap()
            .pkg_info
            .as_ref()
            .unwrap()
            .arch,
        "v1model"
    );
    assert_eq!(config.p4_device_config, b"control C() {}");
    assert_eq!(config.cookie.as_ref().unwrap().cookie, 0xe5a);
    assert_eq!(request.encode_to_vec(), bytes);
}

#[test]
fn reference_write_status_details_unpack_to_p4_errors() {
    let bytes = hex(include_str!("../fixtures/write_status.hex"));
    let status = Status::decode(bytes.as_slice()).unwrap();
    assert_eq!(
        status.code,
        p4runtime_proto::google::rpc::Code::Unknown as i32
    );
    let errors: Vec<p4rt::Error> = status
        .details
        .iter()
        .map(|any| {
            assert_eq!(any.type_url, "type.googleapis.com/p4.v1.Error");
            p4rt::Error::decode(any.value.as_slice()).unwrap()
        })
        .collect();
    assert_eq!(errors[0].canonical_code, 0);
    assert_eq!(
        (errors[1].canonical_code, errors[1].message.as_str()),
        (6, "entry exists")
    );
    assert_eq!(status.encode_to_vec(), bytes);
}

// ---------------------------------------------------------------------------
// Round trips.

fn round_trip<M: Message + Default + PartialEq + std::fmt::Debug>(message: &M) {
    let bytes = message.encode_to_vec();
    assert_eq!(bytes.len(), message.encoded_len());
    assert_eq!(&M::decode(bytes.as_slice()).unwrap(), message);
}

#[test]
fn write_request_round_trips() {
    round_trip(&reference_write_request());
}

#[test]
fn multicast_group_entry_round_trips() {
    let entity = Entity {
        entity: Some(pre(
            packet_replication_engine_entry::Type::MulticastGroupEntry(MulticastGroupEntry {
                multicast_group_id: 0x1234,
                replicas: (0..8)
                    .map(|port: u8| Replica {
                        port_kind: Some(replica::PortKind::Port(vec![port])),
                        instance: u32::from(port) + 1,
                        backup_replicas: vec![],
                    })
                    .collect(),
                metadata: vec![],
            }),
        )),
    };
    round_trip(&entity);
    round_trip(&ReadRequest {
        device_id: 1,
        role: String::new(),
        entities: vec![entity],
    });
}

#[test]
fn p4info_with_tables_actions_and_counters_round_trips() {
    let preamble = |id, name: &str| {
        Some(p4info::Preamble {
            id,
            name: name.into(),
            alias: name.rsplit('.').next().unwrap().into(),
            ..Default::default()
        })
    };
    let info = p4info::P4Info {
        pkg_info: Some(p4info::PkgInfo {
            arch: "v1model".into(),
            ..Default::default()
        }),
        tables: vec![p4info::Table {
            preamble: preamble(TABLE_ID, "MyIngress.job_table"),
            match_fields: vec![p4info::MatchField {
                id: 1,
                name: "hdr.esa.job".into(),
                bitwidth: 12,
                r#match: Some(p4info::match_field::Match::MatchType(
                    p4info::match_field::MatchType::Exact as i32,
                )),
                ..Default::default()
            }],
            action_refs: vec![p4info::ActionRef {
                id: ACTION_ID,
                ..Default::default()
            }],
            size: 4096,
            direct_resource_ids: vec![0x1300_0001],
            ..Default::default()
        }],
        actions: vec![p4info::Action {
            preamble: preamble(ACTION_ID, "MyIngress.set_job"),
            params: vec![p4info::action::Param {
                id: 1,
                name: "fan_in".into(),
                bitwidth: 8,
                ..Default::default()
            }],
        }],
        counters: vec![p4info::Counter {
            preamble: preamble(0x1200_0001, "MyIngress.fallbacks"),
            spec: Some(p4info::CounterSpec {
                unit: p4info::counter_spec::Unit::Packets as i32,
            }),
            size: 4096,
            index_type_name: None,
        }],
        direct_counters: vec![p4info::DirectCounter {
            preamble: preamble(0x1300_0001, "MyIngress.job_hits"),
            spec: Some(p4info::CounterSpec {
                unit: p4info::counter_spec::Unit::Both as i32,
            }),
            direct_table_id: TABLE_ID,
        }],
        ..Default::default()
    };
    round_trip(&info);
    round_trip(&p4rt::ForwardingPipelineConfig {
        p4info: Some(info),
        p4_device_config: b"program".to_vec(),
        cookie: Some(p4rt::forwarding_pipeline_config::Cookie { cookie: 0 }),
    });
}

#[test]
fn unknown_fields_are_skipped() {
    // A newer peer may send fields this crate does not know. Field 15 of
    // TableEntry (varint 1) is such a field: 78 01.
    let mut bytes = TableEntry {
        table_id: 1,
        ..Default::default()
    }
    .encode_to_vec();
    bytes.extend([0x78, 0x01]);
    let entry = TableEntry::decode(bytes.as_slice()).unwrap();
    assert_eq!(entry.table_id, 1);
}

// ---------------------------------------------------------------------------
// Malformed input.

#[test]
fn malformed_bytes_give_decode_errors() {
    let cases: &[(&str, &[u8])] = &[
        ("field number 0", &[0x00, 0x01]),
        ("wire type 7", &[0x0f, 0x01]),
        (
            "varint longer than 10 bytes",
            &[
                0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
            ],
        ),
        ("varint cut short", &[0x08, 0x80]),
        ("length past the end", &[0x22, 0x05, 0x01]),
        ("role is not UTF-8", &[0x32, 0x01, 0xff]),
        ("group start without end", &[0x0b]),
        ("updates field with varint wire type", &[0x20, 0x01]),
    ];
    for (what, bytes) in cases {
        assert!(
            WriteRequest::decode(*bytes).is_err(),
            "{what}: {bytes:02x?} decoded"
        );
    }

    // Cutting the last byte leaves the final update's length prefix unmet.
    let full = hex(include_str!("../fixtures/write_request.hex"));
    assert!(WriteRequest::decode(&full[..full.len() - 1]).is_err());
}

/// Decodes `bytes` as every top-level message kind a server or client accepts;
/// only the absence of panics is checked.
fn decode_everything(bytes: &[u8]) {
    let _ = WriteRequest::decode(bytes);
    let _ = ReadRequest::decode(bytes);
    let _ = p4rt::ReadResponse::decode(bytes);
    let _ = StreamMessageRequest::decode(bytes);
    let _ = StreamMessageResponse::decode(bytes);
    let _ = p4rt::SetForwardingPipelineConfigRequest::decode(bytes);
    let _ = p4rt::GetForwardingPipelineConfigResponse::decode(bytes);
    let _ = p4rt::CapabilitiesRequest::decode(bytes);
    let _ = p4info::P4Info::decode(bytes);
    let _ = Status::decode(bytes);
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        decode_everything(&bytes);
    }

    #[test]
    fn corrupted_valid_messages_never_panic(
        position in any::<prop::sample::Index>(),
        value in any::<u8>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = hex(include_str!("../fixtures/write_request.hex"));
        let at = position.index(bytes.len());
        bytes[at] = value;
        bytes.truncate(cut.index(bytes.len() + 1));
        decode_everything(&bytes);
    }
}
