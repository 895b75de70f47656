//! The controller against an in-process P4Runtime switch (`support::
//! fake_switch`): admission, release and re-admission leave exactly the
//! expected entities; refusals install nothing; a failed write rolls back;
//! the controller converges after a switch restart, rebuilds its view after
//! its own restart, and a second controller with a lower election id stays
//! a backup whose writes the switch refuses. A client that takes the
//! primary role over is reported at once, admissions are refused while it
//! holds it, and the controller's own jobs come back when it leaves; with
//! a record file the jobs survive a controller and switch restart
//! together.

use crate::support::fake_switch::FakeSwitch;
use crate::support::*;
use esa_controller::Role;
use esa_controller::api::proto;
use p4runtime_proto::P4RuntimeClient;
use p4runtime_proto::p4::v1 as p4v1;
use p4runtime_proto::tonic::Code;

#[tokio::test]
async fn admit_release_readmit_leave_exactly_the_expected_entities() {
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 1).await;
    let health = wait_synced(&ctl, 1).await;
    assert_eq!(health.pipeline_pushes, 1);
    assert!(fake.has_pipeline());
    assert_switch(fake.addr, &expected(&[])).await;

    let mut client = ctl.client().await;
    let a = client
        .admit_job(admit_a())
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!(a.job_id, 1);
    assert_eq!(a.fan_in, 2);
    assert_eq!(a.workers[0].host, "w1");
    let b = client
        .admit_job(admit_b())
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!((b.job_id, b.slot_base, b.slot_count), (2, 0, 256));
    assert_switch(fake.addr, &expected(&[job_a(), job_b()])).await;

    client
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap();
    assert_switch(fake.addr, &expected(&[job_b()])).await;
    let err = client
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);

    // Re-admission without an id gets the lowest free one.
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
    let mut atp = admit_request(7, &["w3", "w4"], "ps1", proto::Mode::Atp, 15);
    atp.workers[1] = proto::Endpoint {
        host: String::new(),
        port: 8,
    };
    client.admit_job(atp).await.unwrap();
    let job_c = ExpectedJob {
        id: 7,
        mode: ATP,
        max_priority: 15,
        workers: vec![3, 8],
        ps: 5,
        slot_base: 0,
        slot_mask: POOL_MASK,
    };
    assert_switch(fake.addr, &expected(&[job_a(), job_b(), job_c])).await;

    let list = client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert!(list.primary);
    let ids: Vec<u32> = list.jobs.iter().map(|j| j.job_id).collect();
    assert_eq!(ids, [1, 2, 7]);

    // Counters come from the switch, indexed by job id.
    let p4info = pipeline().p4info;
    let completed = p4info
        .counters
        .iter()
        .find(|c| {
            c.preamble.as_ref().unwrap().name
                == esa_p4::counters::job_counter(esa_p4::Arch::V1model, "completed")
                    .unwrap()
                    .name
        })
        .unwrap()
        .preamble
        .as_ref()
        .unwrap()
        .id;
    fake.set_counter(completed, 2, 42);
    let stats = client
        .job_stats(proto::JobStatsRequest { job_ids: vec![2] })
        .await
        .unwrap()
        .into_inner();
    let c = stats.jobs[0]
        .counters
        .iter()
        .find(|c| c.name == "completed")
        .unwrap();
    assert_eq!(c.packets, 42);
    assert_eq!(stats.jobs[0].counters.len(), 24);
    let text = esa_controller::run::jobs_table(&list, &stats.jobs);
    assert!(text.contains("switchml"), "{text}");
    let err = client
        .job_stats(proto::JobStatsRequest { job_ids: vec![99] })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);

    // Prometheus exposition.
    let stats = ctl.controller.stats(&[]).await.unwrap();
    let metrics = esa_controller::metrics::render(&stats, true, 3, None);
    assert!(
        metrics.contains("esa_job_packets_total{job=\"2\",counter=\"completed\"} 42"),
        "{metrics}"
    );
    ctl.stop().await;
}

#[tokio::test]
async fn invalid_admissions_are_refused_and_install_nothing() {
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 1).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    client.admit_job(admit_b()).await.unwrap();
    let before = read_switch(fake.addr).await;
    let writes = fake.writes();

    for (what, request, code) in invalid_admissions() {
        let err = client.admit_job(request).await.unwrap_err();
        assert_eq!(err.code(), code, "{what}: {}", err.message());
        assert!(!err.message().is_empty());
    }
    // The range after job 2's is still free, so it was no exhaustion.
    assert_eq!(
        fake.writes(),
        writes,
        "a refused request reached the switch"
    );
    assert_eq!(read_switch(fake.addr).await, before);
    ctl.stop().await;
}

#[tokio::test]
async fn a_failed_write_mid_admission_is_rolled_back() {
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 1).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    client.admit_job(admit_b()).await.unwrap();
    let before = read_switch(fake.addr).await;

    // Job A is 2 + 3 + 1 = 6 updates: let 3 in, fail the 4th.
    fake.fail_updates(3, 1);
    let err = client.admit_job(admit_a()).await.unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
    assert!(err.message().contains("rolled back"), "{}", err.message());
    assert_eq!(read_switch(fake.addr).await, before);
    let list = client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.jobs.len(), 1);

    // The failure is gone: the same request goes through.
    client.admit_job(admit_a()).await.unwrap();
    assert_switch(fake.addr, &expected(&[job_a(), job_b()])).await;

    // A failed release keeps the job, and the next sync repairs the switch.
    fake.fail_updates(1, 1);
    let err = client
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
    let syncs = ctl.health().borrow().syncs;
    wait_synced(&ctl, syncs + 1).await;
    assert_switch(fake.addr, &expected(&[job_a(), job_b()])).await;
    ctl.stop().await;
}

#[tokio::test]
async fn the_controller_converges_after_a_switch_restart() {
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 1).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    client.admit_job(admit_a()).await.unwrap();
    client.admit_job(admit_b()).await.unwrap();
    let want = expected(&[job_a(), job_b()]);
    assert_switch(fake.addr, &want).await;

    // Restart: streams drop, pipeline and entries are gone.
    fake.restart();
    assert!(!fake.has_pipeline());
    let h = wait_health(ctl.health(), |h| {
        h.pipeline_pushes >= 2 && h.synced && h.role == Role::Primary
    })
    .await;
    assert!(h.syncs >= 2);
    assert_switch(fake.addr, &want).await;

    // The pipeline vanishes without the stream dropping: the periodic check
    // notices.
    fake.forget();
    wait_health(ctl.health(), |h| h.pipeline_pushes >= 3 && h.synced).await;
    assert_switch(fake.addr, &want).await;

    // Only the stream drops: no re-push, entries are checked and kept.
    fake.drop_streams();
    let syncs = ctl.health().borrow().syncs;
    wait_synced(&ctl, syncs + 1).await;
    assert_eq!(ctl.health().borrow().pipeline_pushes, 3);
    assert_switch(fake.addr, &want).await;
    ctl.stop().await;
}

#[tokio::test]
async fn a_restarted_controller_rebuilds_its_view_from_the_switch() {
    let fake = FakeSwitch::start().await;
    restarted_controller_rebuilds_its_view(fake.addr).await;
}

#[tokio::test]
async fn a_second_controller_is_a_backup_and_cannot_write() {
    let fake = FakeSwitch::start().await;
    let primary = start_controller(fake.addr, 10).await;
    wait_synced(&primary, 1).await;
    let mut client = primary.client().await;
    client.admit_job(admit_a()).await.unwrap();

    let backup = start_controller(fake.addr, 5).await;
    wait_health(backup.health(), |h| {
        matches!(h.role, Role::Backup { primary: 10 })
    })
    .await;
    let mut backup_client = backup.client().await;
    let err = backup_client.admit_job(admit_b()).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{}", err.message());
    // A backup follows what the primary installed (read-only).
    let mut list = proto::ListJobsResponse::default();
    for _ in 0..100 {
        list = backup_client
            .list_jobs(proto::ListJobsRequest {})
            .await
            .unwrap()
            .into_inner();
        if list.jobs.len() == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!list.primary);
    assert_eq!(list.jobs.len(), 1);

    // The switch itself refuses a write with the backup's election id.
    let mut raw = P4RuntimeClient::connect(format!("http://{}", fake.addr))
        .await
        .unwrap();
    let err = raw
        .write(p4v1::WriteRequest {
            device_id: 0,
            election_id: Some(p4runtime_proto::arbitration::to_uint128(5)),
            updates: vec![],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    assert_switch(fake.addr, &expected(&[job_a()])).await;

    // The primary goes away: the backup takes over and adopts the jobs.
    primary.stop().await;
    wait_synced(&backup, 1).await;
    assert_eq!(backup.health().borrow().pipeline_pushes, 0);
    let list = backup_client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert!(list.primary);
    assert_eq!(list.jobs.len(), 1);
    backup_client.admit_job(admit_b()).await.unwrap();
    assert_switch(fake.addr, &expected(&[job_a(), job_b()])).await;
    backup.stop().await;
}

#[tokio::test]
async fn prometheus_endpoint_serves_per_job_counters() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 1).await;
    wait_synced(&ctl, 1).await;
    ctl.controller
        .admit(&esa_controller::api::request_from_proto(&admit_a()))
        .await
        .unwrap();
    let fallbacks = pipeline()
        .p4info
        .counters
        .iter()
        .find(|c| {
            c.preamble.as_ref().unwrap().name
                == esa_p4::counters::job_counter(esa_p4::Arch::V1model, "fallbacks")
                    .unwrap()
                    .name
        })
        .unwrap()
        .preamble
        .as_ref()
        .unwrap()
        .id;
    fake.set_counter(fallbacks, 1, 7);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, mut rx) = tokio::sync::watch::channel(false);
    let server = tokio::spawn(esa_controller::metrics::serve(
        std::sync::Arc::clone(&ctl.controller),
        std::sync::Arc::default(),
        listener,
        async move {
            let _ = rx.wait_for(|s| *s).await;
        },
    ));
    let get = |path: &'static str| async move {
        let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
        socket.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        socket.read_to_string(&mut response).await.unwrap();
        response
    };
    let response = get("/metrics").await;
    assert!(response.starts_with("HTTP/1.1 200 OK"), "{response}");
    assert!(
        response.contains("esa_job_packets_total{job=\"1\",counter=\"fallbacks\"} 7"),
        "{response}"
    );
    assert!(response.contains("esa_controller_primary 1"), "{response}");
    assert!(get("/other").await.starts_with("HTTP/1.1 404"));
    let _ = stop.send(true);
    server.await.unwrap();
    ctl.stop().await;
}

/// The admission checks against a real switch, opt-in: set
/// `ESA_CONTROLLER_TEST_SWITCH=127.0.0.1:9559` to the P4Runtime address of
/// an esa-switch (`esa switch --grpc-addr 127.0.0.1:9559`) that may be
/// reprogrammed. Skipped (passes) otherwise.
#[tokio::test]
async fn external_switch_admit_release() {
    let Ok(addr) = std::env::var("ESA_CONTROLLER_TEST_SWITCH") else {
        return;
    };
    let addr: std::net::SocketAddr = addr
        .parse()
        .expect("ESA_CONTROLLER_TEST_SWITCH is host:port");
    let ctl = start_controller(addr, 1).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    for job in [1, 2] {
        let _ = client
            .release_job(proto::ReleaseJobRequest { job_id: job })
            .await;
    }
    assert_switch(addr, &expected(&[])).await;
    client.admit_job(admit_a()).await.unwrap();
    client.admit_job(admit_b()).await.unwrap();
    assert_switch(addr, &expected(&[job_a(), job_b()])).await;
    let err = client.admit_job(admit_b()).await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    client
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap();
    assert_switch(addr, &expected(&[job_b()])).await;
    client
        .release_job(proto::ReleaseJobRequest { job_id: 2 })
        .await
        .unwrap();
    assert_switch(addr, &expected(&[])).await;
    ctl.stop().await;
}

#[tokio::test]
async fn a_restarted_controller_drops_half_installed_jobs_and_keeps_foreign_entries() {
    let fake = FakeSwitch::start().await;
    restarted_controller_drops_half_installed_jobs(fake.addr).await;
}

/// Someone with a higher election id takes the switch over and deletes
/// everything: the controller says so at once, refuses admissions while it
/// is a backup, and restores its job from its own record (not from what the
/// switch holds by then) as soon as it is primary again.
#[tokio::test]
async fn a_takeover_is_reported_and_the_jobs_come_back_when_primary_again() {
    use esa_controller::{GrpcSwitch, SwitchBackend as _};
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 10).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    client.admit_job(admit_a()).await.unwrap();
    assert_switch(fake.addr, &expected(&[job_a()])).await;

    let intruder = GrpcSwitch::new(&fake.addr.to_string(), 0, 100);
    assert_eq!(intruder.connect().await.unwrap(), Role::Primary);
    let h = wait_health(ctl.health(), |h| {
        matches!(h.role, Role::Backup { primary: 100 })
    })
    .await;
    assert_eq!(h.primary_lost, 1);
    let err = client.admit_job(admit_b()).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{}", err.message());
    let deletes: Vec<p4v1::Update> = read_switch(fake.addr)
        .await
        .into_values()
        .map(|entity| p4v1::Update {
            r#type: p4v1::update::Type::Delete as i32,
            entity: Some(entity),
        })
        .collect();
    assert!(!deletes.is_empty());
    intruder.write(deletes).await.unwrap();
    assert!(read_switch(fake.addr).await.is_empty());

    intruder.disconnect();
    let syncs = h.syncs;
    wait_synced(&ctl, syncs + 1).await;
    assert_switch(fake.addr, &expected(&[job_a()])).await;
    let list = client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert!(list.primary);
    assert_eq!(
        list.jobs.iter().map(|j| j.job_id).collect::<Vec<_>>(),
        vec![1]
    );
    ctl.stop().await;
}

/// With a record file, the controller's jobs outlive the controller and
/// the switch restarting together (nothing left on the switch to adopt);
/// a release is recorded too. A record made for another pipeline is
/// refused at start, not misread.
#[tokio::test]
async fn the_job_record_survives_a_controller_and_switch_restart() {
    let dir = std::env::temp_dir().join(format!(
        "esa-controller-record-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("jobs.redb");
    let fake = FakeSwitch::start().await;

    let first = start_controller_recorded(fake.addr, 1, &record).await;
    wait_synced(&first, 1).await;
    let mut client = first.client().await;
    client.admit_job(admit_a()).await.unwrap();
    client.admit_job(admit_b()).await.unwrap();
    first.stop().await;
    fake.restart();
    assert!(read_switch(fake.addr).await.is_empty());

    let second = start_controller_recorded(fake.addr, 1, &record).await;
    wait_synced(&second, 1).await;
    assert_switch(fake.addr, &expected(&[job_a(), job_b()])).await;
    let mut client = second.client().await;
    client
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap();
    second.stop().await;
    fake.restart();

    let third = start_controller_recorded(fake.addr, 1, &record).await;
    wait_synced(&third, 1).await;
    assert_switch(fake.addr, &expected(&[job_b()])).await;
    third.stop().await;

    // Another pipeline (another cookie): the record is not for it.
    let mut other = pipeline();
    other.cookie ^= 1;
    let config = esa_controller::ControllerConfig {
        registry: Some(record.clone()),
        ..Default::default()
    };
    let backend = esa_controller::GrpcSwitch::new(&fake.addr.to_string(), 0, 1);
    let err = esa_controller::Controller::new(backend, other, topology(), config).unwrap_err();
    assert!(err.to_string().contains("another pipeline"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The P4Info id of the per-job counter `short` ("completed", ...).
fn job_counter_id(short: &str) -> u32 {
    let name = esa_p4::counters::job_counter(esa_p4::Arch::V1model, short)
        .unwrap()
        .name;
    pipeline()
        .p4info
        .counters
        .iter()
        .filter_map(|c| c.preamble.as_ref())
        .find(|p| p.name == name)
        .unwrap()
        .id
}

/// The controller's "completed" count of `job`.
async fn completed(
    client: &mut esa_controller::api::proto::jobs_client::JobsClient<tonic::transport::Channel>,
    job: u32,
) -> u64 {
    let stats = client
        .job_stats(proto::JobStatsRequest { job_ids: vec![job] })
        .await
        .unwrap()
        .into_inner();
    stats.jobs[0]
        .counters
        .iter()
        .find(|c| c.name == "completed")
        .unwrap()
        .packets
}

/// A job's counters, as the controller reports them (`JobStats`,
/// `/metrics`), never go back while it stays admitted: a switch restart
/// (the controller pushes the pipeline again) banks what was read before
/// it, even when the new count has already climbed past the old one by the
/// next read, and so does a count that went backwards on its own. A
/// release forgets the bank.
#[tokio::test]
async fn job_counters_are_banked_across_a_switch_restart() {
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 1).await;
    wait_synced(&ctl, 1).await;
    let mut client = ctl.client().await;
    client.admit_job(admit_a()).await.unwrap();
    let id = job_counter_id("completed");
    fake.set_counter(id, 1, 600);
    assert_eq!(completed(&mut client, 1).await, 600);

    fake.restart();
    wait_health(ctl.health(), |h| {
        h.pipeline_pushes >= 2 && h.synced && h.role == Role::Primary
    })
    .await;
    fake.set_counter(id, 1, 700);
    assert_eq!(completed(&mut client, 1).await, 600 + 700);
    // Backwards without a push: a reset all the same.
    fake.set_counter(id, 1, 100);
    assert_eq!(completed(&mut client, 1).await, 600 + 700 + 100);
    fake.set_counter(id, 1, 150);
    assert_eq!(completed(&mut client, 1).await, 600 + 700 + 150);

    client
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap();
    client.admit_job(admit_a()).await.unwrap();
    assert_eq!(completed(&mut client, 1).await, 150);
    ctl.stop().await;
}
