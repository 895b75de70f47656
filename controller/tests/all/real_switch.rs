//! The controller against esa-switch in process (`support::real_switch`),
//! every check reading the switch back over P4Runtime and comparing the
//! whole set of table entries and multicast groups with the expected one:
//! admit, admit, release, re-admit; refusals leave the switch unchanged; a
//! backup controller cannot write; after a switch restart on the same port
//! the controller re-pushes the pipeline and its entries; a restarted
//! controller rebuilds its view from a Read of the switch; a configured
//! stale bound is the default action of `pool_config`, after a restart
//! too.

use crate::support::real_switch;
use crate::support::*;
use esa_controller::Role;
use esa_controller::api::proto;
use p4runtime_proto::P4RuntimeClient;
use p4runtime_proto::p4::v1 as p4v1;
use p4runtime_proto::tonic::Code;

type JobsClient = esa_controller::api::JobsClient<p4runtime_proto::tonic::transport::Channel>;

/// Releases `job_id` through the job API.
async fn release(
    client: &mut JobsClient,
    job_id: u32,
) -> Result<(), p4runtime_proto::tonic::Status> {
    client
        .release_job(proto::ReleaseJobRequest { job_id })
        .await
        .map(|_| ())
}

#[tokio::test]
async fn admit_release_readmit_leave_exactly_the_expected_entries() {
    let switch = real_switch::start().await;
    let ctl = start_controller(switch.addr(), 1).await;
    let health = wait_synced(&ctl, 1).await;
    assert_eq!(health.pipeline_pushes, 1);
    assert_switch(switch.addr(), &expected(&[])).await;

    let mut client = ctl.client().await;
    let a = client
        .admit_job(admit_a())
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!((a.job_id, a.fan_in), (1, 2));
    assert_switch(switch.addr(), &expected(&[job_a()])).await;

    let b = client
        .admit_job(admit_b())
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!((b.job_id, b.slot_base, b.slot_count), (2, 0, 256));
    assert_switch(switch.addr(), &expected(&[job_a(), job_b()])).await;

    release(&mut client, 1).await.unwrap();
    assert_switch(switch.addr(), &expected(&[job_b()])).await;
    let err = release(&mut client, 1).await.unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    assert_switch(switch.addr(), &expected(&[job_b()])).await;

    // Re-admission without an id gets the lowest free one: A's again.
    let mut again = admit_a();
    again.job_id = 0;
    let a = client
        .admit_job(again)
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!(a.job_id, 1);
    assert_switch(switch.addr(), &expected(&[job_a(), job_b()])).await;

    // Counters are read from the switch (nothing forwarded yet).
    let stats = client
        .job_stats(proto::JobStatsRequest {
            job_ids: vec![1, 2],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stats.jobs.len(), 2);
    for job in &stats.jobs {
        assert_eq!(job.counters.len(), 24);
        assert!(job.counters.iter().all(|c| c.packets == 0), "{job:?}");
    }

    release(&mut client, 2).await.unwrap();
    release(&mut client, 1).await.unwrap();
    assert_switch(switch.addr(), &expected(&[])).await;
    ctl.stop().await;
}

#[tokio::test]
async fn invalid_admissions_are_refused_and_leave_the_switch_unchanged() {
    let switch = real_switch::start().await;
    let ctl = start_controller(switch.addr(), 1).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    client.admit_job(admit_b()).await.unwrap();
    let want = expected(&[job_b()]);
    assert_switch(switch.addr(), &want).await;

    for (what, request, code) in invalid_admissions() {
        let err = client.admit_job(request).await.unwrap_err();
        assert_eq!(err.code(), code, "{what}: {}", err.message());
        assert_switch(switch.addr(), &want).await;
    }
    let list = client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.jobs.len(), 1);
    ctl.stop().await;
}

#[tokio::test]
async fn a_second_controller_is_a_backup_and_the_switch_refuses_its_writes() {
    let switch = real_switch::start().await;
    let primary = start_controller(switch.addr(), 10).await;
    wait_synced(&primary, 1).await;
    let mut client = primary.client().await;
    client.admit_job(admit_a()).await.unwrap();

    let backup = start_controller(switch.addr(), 5).await;
    wait_health(backup.health(), |h| {
        matches!(h.role, Role::Backup { primary: 10 })
    })
    .await;
    let mut backup_client = backup.client().await;
    let err = backup_client.admit_job(admit_b()).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{}", err.message());
    let err = release(&mut backup_client, 1).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{}", err.message());
    assert_switch(switch.addr(), &expected(&[job_a()])).await;

    // The switch itself refuses a well-formed insert carrying the backup's
    // election id.
    let foreign = table_entry(
        &pipeline().p4info,
        "EsaIngress.l2.l2",
        &[0x0200_0000_0099],
        "EsaIngress.l2.drop",
        &[],
    );
    let mut raw = P4RuntimeClient::connect(format!("http://{}", switch.addr()))
        .await
        .unwrap();
    let err = raw
        .write(p4v1::WriteRequest {
            device_id: 0,
            election_id: Some(p4runtime_proto::arbitration::to_uint128(5)),
            updates: vec![p4v1::Update {
                r#type: p4v1::update::Type::Insert as i32,
                entity: Some(foreign),
            }],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{}", err.message());
    assert_switch(switch.addr(), &expected(&[job_a()])).await;

    // The primary goes away: the backup takes over, adopts job A and may
    // write.
    primary.stop().await;
    wait_synced(&backup, 1).await;
    assert_eq!(backup.health().borrow().pipeline_pushes, 0);
    backup_client.admit_job(admit_b()).await.unwrap();
    assert_switch(switch.addr(), &expected(&[job_a(), job_b()])).await;
    backup.stop().await;
}

#[tokio::test]
async fn the_controller_converges_after_a_switch_restart() {
    let switch = real_switch::start().await;
    let ctl = start_controller(switch.addr(), 1).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    client.admit_job(admit_a()).await.unwrap();
    client.admit_job(admit_b()).await.unwrap();
    let want = expected(&[job_a(), job_b()]);
    assert_switch(switch.addr(), &want).await;

    // The switch goes away: the controller notices and refuses admissions.
    let addr = switch.addr();
    real_switch::stop(switch).await;
    wait_health(ctl.health(), |h| h.role != Role::Primary).await;
    let mut c = admit_b();
    c.job_id = 3;
    c.slots = None;
    c.mode = proto::Mode::Esa as i32;
    let err = client.admit_job(c).await.unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{}", err.message());

    // A fresh switch on the same port: no pipeline, no entries. The
    // controller pushes both again.
    let switch = real_switch::start_on(addr).await;
    let h = wait_health(ctl.health(), |h| {
        h.pipeline_pushes >= 2 && h.synced && h.role == Role::Primary
    })
    .await;
    assert_eq!(h.pipeline_pushes, 2);
    assert_switch(switch.addr(), &want).await;

    // And keeps working on it.
    release(&mut client, 1).await.unwrap();
    assert_switch(switch.addr(), &expected(&[job_b()])).await;

    // A second restart.
    let switch = real_switch::restart(switch).await;
    wait_health(ctl.health(), |h| {
        h.pipeline_pushes >= 3 && h.synced && h.role == Role::Primary
    })
    .await;
    assert_switch(switch.addr(), &expected(&[job_b()])).await;
    ctl.stop().await;
}

#[tokio::test]
async fn a_restarted_controller_rebuilds_its_view_from_the_switch() {
    let switch = real_switch::start().await;
    restarted_controller_rebuilds_its_view(switch.addr()).await;
}

#[tokio::test]
async fn a_restarted_controller_drops_half_installed_jobs_and_keeps_foreign_entries() {
    let switch = real_switch::start().await;
    restarted_controller_drops_half_installed_jobs(switch.addr()).await;
}

/// The stale bound on the switch: the `us` of `pool_config`'s default
/// action, read back over P4Runtime.
async fn stale_bound_on(switch: std::net::SocketAddr) -> Vec<u8> {
    let stale = pipeline().bindings.stale.expect("esa.p4 has pool_config");
    let mut client = P4RuntimeClient::connect(format!("http://{switch}"))
        .await
        .unwrap();
    let request = p4v1::ReadRequest {
        device_id: 0,
        entities: vec![p4v1::Entity {
            entity: Some(p4v1::entity::Entity::TableEntry(p4v1::TableEntry {
                table_id: stale.table_id,
                is_default_action: true,
                ..Default::default()
            })),
        }],
        ..Default::default()
    };
    let mut stream = client.read(request).await.unwrap().into_inner();
    let response = stream.message().await.unwrap().expect("one response");
    let [entity] = response.entities.as_slice() else {
        panic!("one default entry: {:?}", response.entities);
    };
    let Some(p4v1::entity::Entity::TableEntry(t)) = &entity.entity else {
        panic!("{entity:?}");
    };
    let Some(p4v1::table_action::Type::Action(action)) =
        t.action.as_ref().and_then(|a| a.r#type.as_ref())
    else {
        panic!("{t:?}");
    };
    assert_eq!(action.action_id, stale.action_id);
    assert_eq!(action.params.len(), 1);
    assert_eq!(action.params[0].param_id, stale.param_id);
    action.params[0].value.clone()
}

#[tokio::test]
async fn a_configured_stale_bound_is_set_on_the_switch_and_after_a_restart() {
    let switch = real_switch::start().await;
    // Without one, the program's default stays (10 ms).
    let ctl = start_controller(switch.addr(), 1).await;
    wait_synced(&ctl, 1).await;
    assert_eq!(
        stale_bound_on(switch.addr()).await,
        esa_controller::entries::encode_value(esa_core::constants::DEFAULT_STALE_AFTER_US)
    );
    ctl.stop().await;

    let ctl = start_controller_with(switch.addr(), 2, Some(750_000)).await;
    wait_synced(&ctl, 1).await;
    let want = esa_controller::entries::encode_value(750_000);
    assert_eq!(stale_bound_on(switch.addr()).await, want);
    // The switch already ran the pipeline: this controller pushes it only
    // after the restart.
    let switch = real_switch::restart(switch).await;
    wait_health(ctl.health(), |h| {
        h.pipeline_pushes >= 1 && h.synced && h.role == Role::Primary
    })
    .await;
    assert_eq!(stale_bound_on(switch.addr()).await, want);
    ctl.stop().await;
}

#[test]
fn a_stale_bound_the_program_cannot_hold_is_refused() {
    let config = esa_controller::ControllerConfig {
        stale_after_us: Some(1 << 48),
        ..Default::default()
    };
    let backend = esa_controller::GrpcSwitch::new("127.0.0.1:1", 0, 1);
    let err = esa_controller::Controller::new(backend, pipeline(), topology(), config)
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not fit the program's 48-bit"), "{err}");
}
