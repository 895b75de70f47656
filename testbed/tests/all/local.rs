//! `esa local`: the switch with UDP-carried ports and the controller, with
//! a job admitted through the job API and hosts attached over UDP as an
//! `esa_torch` rank attaches: every element of the sum exact, and the
//! chunks completed in the switch.

use std::net::{SocketAddr, UdpSocket};

use crate::local_support::{PORTS, admit, allreduce_exactly, start_stack};

#[test]
fn a_job_through_esa_local_sums_exactly_in_the_switch() {
    let stack = start_stack();
    let describe = stack.describe();
    assert!(
        describe.contains(&stack.config().port_addr(1).to_string())
            && describe.contains(&stack.controller().to_string()),
        "{describe}"
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let job = admit(&rt, &stack, &[1, 2, 3], 4);
    allreduce_exactly(&stack, &job);
    let ports: Vec<SocketAddr> = (1..=PORTS).map(|p| stack.config().port_addr(p)).collect();
    stack.stop();
    // Stopped means the switch is gone and its ports are free again.
    for p in ports {
        UdpSocket::bind(p).unwrap_or_else(|e| panic!("{p} still taken after stop: {e}"));
    }
}

mod misuse {
    //! P4Runtime misuse while the controller is primary and esa.p4 is
    //! loaded: a backup client writing, and writes carrying the primary's
    //! election id with unknown ids, wrong widths, duplicates, deletes of
    //! missing entries, and a program that does not compile. Every one is
    //! refused with the right code, the controller's entries and the
    //! pipeline stay, and the job still sums exactly.

    use super::*;
    use esa_controller::Pipeline;
    use esa_controller::backend::update_codes;
    use esa_testbed::local::ELECTION_ID;
    use p4runtime_proto::P4RuntimeClient;
    use p4runtime_proto::p4::v1 as p4v1;
    use p4runtime_proto::tonic::Code;
    use p4runtime_proto::tonic::transport::Channel;

    fn uint128(v: u128) -> p4v1::Uint128 {
        p4v1::Uint128 {
            high: (v >> 64) as u64,
            low: v as u64,
        }
    }

    /// The code of a refused single-update write (its per-update detail
    /// when there is one).
    fn code_of(status: &p4runtime_proto::tonic::Status) -> Code {
        update_codes(status)
            .first()
            .map(|&c| Code::from_i32(c))
            .unwrap_or(status.code())
    }

    async fn write(
        client: &mut P4RuntimeClient<Channel>,
        election: u128,
        kind: p4v1::update::Type,
        entry: p4v1::TableEntry,
    ) -> Result<(), Code> {
        client
            .write(p4v1::WriteRequest {
                device_id: 0,
                election_id: Some(uint128(election)),
                updates: vec![p4v1::Update {
                    r#type: kind as i32,
                    entity: Some(p4v1::Entity {
                        entity: Some(p4v1::entity::Entity::TableEntry(entry)),
                    }),
                }],
                ..Default::default()
            })
            .await
            .map(|_| ())
            .map_err(|s| code_of(&s))
    }

    async fn table_entries(
        client: &mut P4RuntimeClient<Channel>,
        table_id: u32,
    ) -> Vec<p4v1::TableEntry> {
        let mut stream = client
            .read(p4v1::ReadRequest {
                device_id: 0,
                entities: vec![p4v1::Entity {
                    entity: Some(p4v1::entity::Entity::TableEntry(p4v1::TableEntry {
                        table_id,
                        ..Default::default()
                    })),
                }],
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let mut out = vec![];
        while let Some(r) = stream.message().await.unwrap() {
            for e in r.entities {
                if let Some(p4v1::entity::Entity::TableEntry(t)) = e.entity {
                    out.push(t);
                }
            }
        }
        out
    }

    #[test]
    fn misuse_is_refused_and_changes_nothing() {
        let stack = start_stack();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let job = admit(&rt, &stack, &[1, 2, 3], 4);
        let pipeline = Pipeline::from_p4_source(
            &esa_p4::Arch::V1model.program(),
            &esa_p4::Defines::new(32, 4096).pairs(),
        )
        .unwrap();
        let jobs_table = pipeline
            .p4info
            .tables
            .iter()
            .find(|t| {
                t.preamble.as_ref().unwrap().name == esa_p4::tables::TableKind::Jobs.spec().name
            })
            .unwrap()
            .preamble
            .as_ref()
            .unwrap()
            .id;
        rt.block_on(async {
            let addr = format!("http://{}", stack.p4runtime());
            let mut backup = P4RuntimeClient::connect(addr.clone()).await.unwrap();
            // Arbitrate as a backup (5 < the controller's 10).
            let (tx, rx) = tokio::sync::mpsc::channel(4);
            tx.send(p4v1::StreamMessageRequest {
                update: Some(p4v1::stream_message_request::Update::Arbitration(
                    p4v1::MasterArbitrationUpdate {
                        device_id: 0,
                        election_id: Some(uint128(5)),
                        ..Default::default()
                    },
                )),
            })
            .await
            .unwrap();
            let mut stream = backup
                .stream_channel(tokio_stream::wrappers::ReceiverStream::new(rx))
                .await
                .unwrap()
                .into_inner();
            let first = stream.message().await.unwrap().unwrap();
            let Some(p4v1::stream_message_response::Update::Arbitration(a)) = first.update else {
                panic!("no arbitration answer: {first:?}");
            };
            assert_eq!(
                a.status.unwrap().code,
                Code::AlreadyExists as i32,
                "a backup"
            );
            assert_eq!(
                a.election_id,
                Some(uint128(ELECTION_ID)),
                "the primary's id"
            );

            let before = table_entries(&mut backup, jobs_table).await;
            assert_eq!(before.len(), 1, "the controller's job entry");
            let entry = before[0].clone();

            // The backup may not write or set a pipeline.
            use p4v1::update::Type::{Delete, Insert, Modify};
            assert_eq!(
                write(&mut backup, 5, Modify, entry.clone()).await,
                Err(Code::PermissionDenied)
            );
            let set = |election: u128, p4: &str| p4v1::SetForwardingPipelineConfigRequest {
                device_id: 0,
                election_id: Some(uint128(election)),
                action: p4v1::set_forwarding_pipeline_config_request::Action::VerifyAndCommit
                    as i32,
                config: Some(p4v1::ForwardingPipelineConfig {
                    p4info: Some(pipeline.p4info.clone()),
                    p4_device_config: p4.as_bytes().to_vec(),
                    cookie: Some(p4v1::forwarding_pipeline_config::Cookie { cookie: 99 }),
                }),
                ..Default::default()
            };
            let err = backup
                .set_forwarding_pipeline_config(set(5, "control C() {}"))
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::PermissionDenied);

            // Writes carrying the primary's id, each malformed.
            let mut primary = P4RuntimeClient::connect(addr).await.unwrap();
            let id = ELECTION_ID;
            assert_eq!(
                write(&mut primary, id, Insert, entry.clone()).await,
                Err(Code::AlreadyExists),
                "duplicate insert"
            );
            let mut missing = entry.clone();
            if let Some(p4v1::field_match::FieldMatchType::Exact(e)) =
                &mut missing.r#match[0].field_match_type
            {
                e.value = vec![0x0f, 0xa0]; // job 4000, not admitted
            }
            assert_eq!(
                write(&mut primary, id, Delete, missing).await,
                Err(Code::NotFound),
                "delete of a missing entry"
            );
            let mut unknown_table = entry.clone();
            unknown_table.table_id ^= 0x00ab_cdef;
            let got = write(&mut primary, id, Insert, unknown_table).await;
            assert!(
                matches!(got, Err(Code::NotFound | Code::InvalidArgument)),
                "unknown table id: {got:?}"
            );
            let mut wide_key = entry.clone();
            if let Some(p4v1::field_match::FieldMatchType::Exact(e)) =
                &mut wide_key.r#match[0].field_match_type
            {
                e.value = vec![1, 2, 3]; // 17+ bits for a 16-bit key
            }
            assert_eq!(
                write(&mut primary, id, Insert, wide_key).await,
                Err(Code::OutOfRange),
                "a key wider than its field (P4Runtime: OUT_OF_RANGE)"
            );
            let mut bad_action = entry.clone();
            let mut wide_param = entry.clone();
            if let Some(p4v1::table_action::Type::Action(a)) =
                bad_action.action.as_mut().and_then(|a| a.r#type.as_mut())
            {
                a.action_id ^= 0x00ab_cdef;
            }
            if let Some(p4v1::table_action::Type::Action(a)) =
                wide_param.action.as_mut().and_then(|a| a.r#type.as_mut())
            {
                a.params[0].value = vec![0xff; 9];
            }
            let got = write(&mut primary, id, Modify, bad_action).await;
            assert!(
                matches!(got, Err(Code::NotFound | Code::InvalidArgument)),
                "unknown action id: {got:?}"
            );
            assert_eq!(
                write(&mut primary, id, Modify, wide_param).await,
                Err(Code::OutOfRange),
                "a parameter wider than declared"
            );
            let err = primary
                .set_forwarding_pipeline_config(set(id, "control C( { nonsense"))
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");

            // Nothing changed: the same entry, the same pipeline.
            assert_eq!(table_entries(&mut primary, jobs_table).await, before);
            let got = primary
                .get_forwarding_pipeline_config(p4v1::GetForwardingPipelineConfigRequest {
                    device_id: 0,
                    response_type:
                        p4v1::get_forwarding_pipeline_config_request::ResponseType::CookieOnly
                            as i32,
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(
                got.config.and_then(|c| c.cookie).map(|c| c.cookie),
                Some(pipeline.cookie),
                "the controller's pipeline is still loaded"
            );
        });
        // And the job still sums exactly, in the switch.
        allreduce_exactly(&stack, &job);
    }
}

/// `esa local --bind 0.0.0.0` (or a job API beyond loopback) without TLS
/// and without `--insecure` is refused before anything starts.
#[test]
fn esa_local_refuses_plaintext_beyond_loopback_without_insecure() {
    use esa_testbed::local::{LocalConfig, LocalStack};
    let any = std::net::IpAddr::from([0, 0, 0, 0]);
    for config in [
        LocalConfig {
            bind: any,
            ..LocalConfig::default()
        },
        LocalConfig {
            controller: SocketAddr::new(any, 0),
            ..LocalConfig::default()
        },
        LocalConfig {
            p4runtime: SocketAddr::new(any, 0),
            ..LocalConfig::default()
        },
    ] {
        let e = LocalStack::start(config).unwrap_err().to_string();
        assert!(e.contains("refusing") && e.contains("--insecure"), "{e}");
    }
}
