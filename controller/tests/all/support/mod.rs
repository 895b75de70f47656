//! Helpers for the controller's integration tests. Everything that talks to
//! the switch takes its P4Runtime address, so the same tests can run against
//! esa-switch (or BMv2) instead of the fake.

#![allow(dead_code)]

pub mod fake_switch;
pub mod real_switch;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use esa_controller::api::{ApiSecurity, JobsClient, proto};
use esa_controller::entries::TableKind;
use esa_controller::{Controller, ControllerConfig, GrpcSwitch, Health, Pipeline, Role, Topology};
use p4runtime_proto::P4RuntimeClient;
use p4runtime_proto::bytestring::{canonical, from_u64};
use p4runtime_proto::p4::config::v1 as p4cfg;
use p4runtime_proto::p4::v1 as p4v1;
use p4runtime_proto::prost::Message as _;
use p4runtime_proto::tonic;
use p4runtime_proto::tonic::Code;
use tokio::sync::watch;

/// `p4/v1model/esa.p4` with p4sim's P4Info (parsed once per test binary).
pub fn pipeline() -> Pipeline {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    PIPELINE
        .get_or_init(|| {
            Pipeline::from_p4_source(&esa_p4::Arch::V1model.program(), &[]).expect("esa.p4 loads")
        })
        .clone()
}

pub const TOPOLOGY: &str = r#"
[switch]
ports = [1, 2, 3, 4, 5, 6, 7, 8]

[[host]]
name = "w1"
mac = "02:00:00:00:00:01"
ip = "10.0.0.1"
port = 1

[[host]]
name = "w2"
mac = "02:00:00:00:00:02"
ip = "10.0.0.2"
port = 2

[[host]]
name = "w3"
mac = "02:00:00:00:00:03"
ip = "10.0.0.3"
port = 3

[[host]]
name = "w4"
mac = "02:00:00:00:00:04"
ip = "10.0.0.4"
port = 4

[[host]]
name = "ps1"
mac = "02:00:00:00:00:05"
ip = "10.0.0.5"
port = 5

[[host]]
name = "ps2"
mac = "02:00:00:00:00:06"
ip = "10.0.0.6"
port = 6
"#;

pub fn topology() -> Topology {
    Topology::parse(TOPOLOGY).unwrap()
}

/// A controller running against a switch, with its job API.
pub struct Running {
    pub controller: Arc<Controller<GrpcSwitch>>,
    pub api: SocketAddr,
    stop: watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// Stops the supervisor and the API (the arbitration stream closes).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for t in self.tasks {
            let _ = t.await;
        }
    }

    pub fn health(&self) -> watch::Receiver<Health> {
        self.controller.health()
    }

    pub async fn client(&self) -> JobsClient<tonic::transport::Channel> {
        JobsClient::connect(format!("http://{}", self.api))
            .await
            .unwrap()
    }
}

pub async fn start_controller(switch: SocketAddr, election_id: u128) -> Running {
    start_controller_with(switch, election_id, None).await
}

/// [`start_controller`] with a stale bound for the switch.
pub async fn start_controller_with(
    switch: SocketAddr,
    election_id: u128,
    stale_after_us: Option<u64>,
) -> Running {
    let backend = GrpcSwitch::new(&switch.to_string(), 0, election_id);
    start_controller_secured(backend, stale_after_us, ApiSecurity::default()).await
}

/// A controller of `backend` whose job API is secured by `security`.
pub async fn start_controller_secured(
    backend: GrpcSwitch,
    stale_after_us: Option<u64>,
    security: ApiSecurity,
) -> Running {
    let config = ControllerConfig {
        pool_slots: None,
        check_interval: Duration::from_millis(100),
        retry_interval: Duration::from_millis(50),
        stale_after_us,
        registry: None,
    };
    start_controller_config(backend, config, security).await
}

/// [`start_controller`] keeping its job record in the redb file `registry`.
pub async fn start_controller_recorded(
    switch: SocketAddr,
    election_id: u128,
    registry: &std::path::Path,
) -> Running {
    let config = ControllerConfig {
        pool_slots: None,
        check_interval: Duration::from_millis(100),
        retry_interval: Duration::from_millis(50),
        stale_after_us: None,
        registry: Some(registry.to_path_buf()),
    };
    let backend = GrpcSwitch::new(&switch.to_string(), 0, election_id);
    start_controller_config(backend, config, ApiSecurity::default()).await
}

/// A controller of `backend` with `config`, and its job API secured by
/// `security`.
pub async fn start_controller_config(
    backend: GrpcSwitch,
    config: ControllerConfig,
    security: ApiSecurity,
) -> Running {
    let controller = Controller::new(backend, pipeline(), topology(), config).unwrap();
    let (stop, rx) = watch::channel(false);
    let stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|s| *s).await;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api = listener.local_addr().unwrap();
    let run = tokio::spawn(Arc::clone(&controller).run(stopped(rx.clone())));
    let serve =
        esa_controller::api::serve(Arc::clone(&controller), listener, security, stopped(rx));
    let api_task = tokio::spawn(async move {
        serve.await.unwrap();
    });
    Running {
        controller,
        api,
        stop,
        tasks: vec![run, api_task],
    }
}

/// Waits (up to 10 s) until `health` satisfies `ok`.
pub async fn wait_health(
    mut health: watch::Receiver<Health>,
    ok: impl Fn(&Health) -> bool,
) -> Health {
    let waited = tokio::time::timeout(Duration::from_secs(10), async {
        health.wait_for(|h| ok(h)).await.map(|h| h.clone())
    })
    .await;
    match waited {
        Ok(Ok(h)) => h,
        _ => panic!("timed out; last health: {:?}", *health.borrow()),
    }
}

/// Waits until the controller is a synced primary with at least `syncs`
/// syncs.
pub async fn wait_synced(running: &Running, syncs: u64) -> Health {
    wait_health(running.health(), |h| {
        h.role == esa_controller::Role::Primary && h.synced && h.syncs >= syncs
    })
    .await
}

/// Every table entry and multicast group on the switch, each normalised
/// (fields sorted, values canonical) and keyed by its encoding.
pub async fn read_switch(switch: SocketAddr) -> BTreeMap<Vec<u8>, p4v1::Entity> {
    let mut client = P4RuntimeClient::connect(format!("http://{switch}"))
        .await
        .unwrap();
    let request = p4v1::ReadRequest {
        device_id: 0,
        entities: vec![
            esa_controller::entries::wildcard_table(0),
            esa_controller::entries::wildcard_groups(),
        ],
        ..Default::default()
    };
    let mut stream = client.read(request).await.unwrap().into_inner();
    let mut out = BTreeMap::new();
    while let Some(r) = stream.message().await.unwrap() {
        for e in r.entities {
            let e = normalise(e);
            out.insert(e.encode_to_vec(), e);
        }
    }
    out
}

#[allow(deprecated)]
fn normalise(mut e: p4v1::Entity) -> p4v1::Entity {
    match &mut e.entity {
        Some(p4v1::entity::Entity::TableEntry(t)) => {
            t.r#match.sort_by_key(|m| m.field_id);
            for m in &mut t.r#match {
                if let Some(p4v1::field_match::FieldMatchType::Exact(x)) = &mut m.field_match_type {
                    x.value = canonical(&x.value);
                }
            }
            if let Some(p4v1::TableAction {
                r#type: Some(p4v1::table_action::Type::Action(a)),
            }) = &mut t.action
            {
                a.params.sort_by_key(|p| p.param_id);
                for p in &mut a.params {
                    p.value = canonical(&p.value);
                }
            }
        }
        Some(p4v1::entity::Entity::PacketReplicationEngineEntry(
            p4v1::PacketReplicationEngineEntry {
                r#type: Some(p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(g)),
            },
        )) => {
            for r in &mut g.replicas {
                if let Some(p4v1::replica::PortKind::Port(bytes)) = &r.port_kind {
                    let port = bytes.iter().fold(0u32, |a, b| a << 8 | u32::from(*b));
                    r.port_kind = Some(p4v1::replica::PortKind::EgressPort(port));
                }
            }
            g.replicas
                .sort_by_key(|r| (format!("{:?}", r.port_kind), r.instance));
        }
        _ => {}
    }
    e
}

fn id_of(preamble: Option<&p4cfg::Preamble>) -> u32 {
    preamble.map_or(0, |p| p.id)
}

/// A table entry built by name from the P4Info: exact keys in key order,
/// params by name.
pub fn table_entry(
    p4info: &p4cfg::P4Info,
    table: &str,
    keys: &[u64],
    action: &str,
    params: &[(&str, u64)],
) -> p4v1::Entity {
    let t = p4info
        .tables
        .iter()
        .find(|t| t.preamble.as_ref().is_some_and(|p| p.name == table))
        .unwrap_or_else(|| panic!("no table {table}"));
    let a = p4info
        .actions
        .iter()
        .find(|a| a.preamble.as_ref().is_some_and(|p| p.name == action))
        .unwrap_or_else(|| panic!("no action {action}"));
    let entry = p4v1::TableEntry {
        table_id: id_of(t.preamble.as_ref()),
        r#match: t
            .match_fields
            .iter()
            .zip(keys)
            .map(|(f, &k)| p4v1::FieldMatch {
                field_id: f.id,
                field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(
                    p4v1::field_match::Exact { value: from_u64(k) },
                )),
            })
            .collect(),
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
                action_id: id_of(a.preamble.as_ref()),
                params: params
                    .iter()
                    .map(|(name, v)| p4v1::action::Param {
                        param_id: a.params.iter().find(|p| p.name == *name).unwrap().id,
                        value: from_u64(*v),
                    })
                    .collect(),
            })),
        }),
        ..Default::default()
    };
    normalise(p4v1::Entity {
        entity: Some(p4v1::entity::Entity::TableEntry(entry)),
    })
}

#[allow(deprecated)]
pub fn group(id: u32, ports: &[u32]) -> p4v1::Entity {
    normalise(p4v1::Entity {
        entity: Some(p4v1::entity::Entity::PacketReplicationEngineEntry(
            p4v1::PacketReplicationEngineEntry {
                r#type: Some(
                    p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(
                        p4v1::MulticastGroupEntry {
                            multicast_group_id: id,
                            replicas: ports
                                .iter()
                                .map(|&p| p4v1::Replica {
                                    port_kind: Some(p4v1::replica::PortKind::EgressPort(p)),
                                    instance: 0,
                                    backup_replicas: vec![],
                                })
                                .collect(),
                            metadata: vec![],
                        },
                    ),
                ),
            },
        )),
    })
}

/// A job as the test expects it on the switch.
#[derive(Debug, Clone)]
pub struct ExpectedJob {
    pub id: u64,
    pub mode: u64,
    pub max_priority: u64,
    pub workers: Vec<u64>,
    pub ps: u64,
    pub slot_base: u64,
    pub slot_mask: u64,
}

/// The entities the topology and `jobs` should leave on the switch.
pub fn expected(jobs: &[ExpectedJob]) -> BTreeMap<Vec<u8>, p4v1::Entity> {
    let p4info = pipeline().p4info;
    let mut out = vec![];
    for h in topology().hosts.values() {
        let mac = h.mac.0.iter().fold(0u64, |a, b| a << 8 | u64::from(*b));
        out.push(table_entry(
            &p4info,
            TableKind::L2.spec().name,
            &[mac],
            TableKind::L2.spec().action,
            &[("port", h.port.into())],
        ));
        out.push(table_entry(
            &p4info,
            TableKind::EgressHost.spec().name,
            &[h.port.into()],
            TableKind::EgressHost.spec().action,
            &[("mac", mac), ("ip", u32::from_be_bytes(h.ip.0).into())],
        ));
    }
    for j in jobs {
        let fan_in = j.workers.len() as u64;
        out.push(table_entry(
            &p4info,
            TableKind::Jobs.spec().name,
            &[j.id],
            TableKind::Jobs.spec().action,
            &[
                ("fan_in", fan_in),
                ("mode", j.mode),
                ("max_priority", j.max_priority),
                ("mcast_group", j.id),
                ("ps_port", j.ps),
                ("slot_base", j.slot_base),
                ("slot_mask", j.slot_mask),
                // a flat job: on no tree, aggregating
                ("tree_role", 0),
                ("aggregate", 1),
                ("racks", 0),
                ("uplink_port", 0),
                ("uplink_bit", 0),
            ],
        ));
        out.push(table_entry(
            &p4info,
            TableKind::JobRoute.spec().name,
            &[j.id],
            TableKind::JobRoute.spec().action,
            &[
                ("ps_port", j.ps),
                ("fan_in", fan_in),
                ("slot_base", j.slot_base),
                ("slot_mask", j.slot_mask),
                ("tree_role", 0),
                ("uplink_bit", 0),
            ],
        ));
        let mut members = j.workers.clone();
        members.push(j.ps);
        for &p in &members {
            out.push(table_entry(
                &p4info,
                TableKind::JobPorts.spec().name,
                &[j.id, p],
                TableKind::JobPorts.spec().action,
                &[],
            ));
        }
        // worker w speaks from its own port, the PS (id 255) from its own
        let senders = j.workers.iter().copied().zip(0..).chain([(j.ps, 255)]);
        for (port, sender) in senders {
            out.push(table_entry(
                &p4info,
                TableKind::WorkerPorts.spec().name,
                &[j.id, port, sender],
                TableKind::WorkerPorts.spec().action,
                &[],
            ));
        }
        let members: Vec<u32> = members.iter().map(|&p| p as u32).collect();
        out.push(group(j.id as u32, &members));
    }
    out.into_iter().map(|e| (e.encode_to_vec(), e)).collect()
}

/// Asserts the switch holds exactly `want`, printing the differences.
pub async fn assert_switch(switch: SocketAddr, want: &BTreeMap<Vec<u8>, p4v1::Entity>) {
    let have = read_switch(switch).await;
    let missing: Vec<_> = want
        .iter()
        .filter(|(k, _)| !have.contains_key(*k))
        .map(|(_, e)| e)
        .collect();
    let extra: Vec<_> = have
        .iter()
        .filter(|(k, _)| !want.contains_key(*k))
        .map(|(_, e)| e)
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "switch differs from the expected set\nmissing: {missing:#?}\nextra: {extra:#?}"
    );
}

pub fn host(name: &str) -> proto::Endpoint {
    proto::Endpoint {
        host: name.into(),
        port: 0,
    }
}

pub fn admit_request(
    job_id: u32,
    workers: &[&str],
    ps: &str,
    mode: proto::Mode,
    priority: u32,
) -> proto::AdmitJobRequest {
    proto::AdmitJobRequest {
        job_id,
        workers: workers.iter().map(|w| host(w)).collect(),
        ps: Some(host(ps)),
        max_priority: priority,
        mode: mode as i32,
        slots: None,
    }
}

/// `mode` in `set_job`.
pub const ESA: u64 = 0;
pub const ATP: u64 = 1;
pub const SWITCHML: u64 = 2;
/// `slot_mask` of an esa / atp job: the whole 4096-slot pool of esa.p4.
pub const POOL_MASK: u64 = 4095;

/// Job 1: esa, workers w1 and w2, PS ps1, priority 5.
pub fn job_a() -> ExpectedJob {
    ExpectedJob {
        id: 1,
        mode: ESA,
        max_priority: 5,
        workers: vec![1, 2],
        ps: 5,
        slot_base: 0,
        slot_mask: POOL_MASK,
    }
}

/// Job 2: switchml, workers w2..w4, PS ps2, slots 0..256.
pub fn job_b() -> ExpectedJob {
    ExpectedJob {
        id: 2,
        mode: SWITCHML,
        max_priority: 0,
        workers: vec![2, 3, 4],
        ps: 6,
        slot_base: 0,
        slot_mask: 255,
    }
}

pub fn admit_a() -> proto::AdmitJobRequest {
    admit_request(1, &["w1", "w2"], "ps1", proto::Mode::Esa, 5)
}

pub fn admit_b() -> proto::AdmitJobRequest {
    let mut r = admit_request(2, &["w2", "w3", "w4"], "ps2", proto::Mode::Switchml, 0);
    r.slots = Some(proto::SlotRange {
        base: None,
        count: 256,
    });
    r
}

/// Requests the controller must refuse, with the status each gets, while
/// job B ([`admit_b`]) is admitted (some cases collide with it).
#[allow(clippy::vec_init_then_push)] // one case per push reads best
pub fn invalid_admissions() -> Vec<(&'static str, proto::AdmitJobRequest, Code)> {
    let mut cases: Vec<(&str, proto::AdmitJobRequest, Code)> = vec![];
    cases.push((
        "duplicate worker",
        admit_request(0, &["w1", "w1"], "ps1", proto::Mode::Esa, 1),
        Code::InvalidArgument,
    ));
    cases.push((
        "unknown host",
        admit_request(0, &["w1", "nobody"], "ps1", proto::Mode::Esa, 1),
        Code::NotFound,
    ));
    cases.push((
        "one worker",
        admit_request(0, &["w1"], "ps1", proto::Mode::Esa, 1),
        Code::InvalidArgument,
    ));
    cases.push((
        "PS among the workers",
        admit_request(0, &["w1", "ps1"], "ps1", proto::Mode::Esa, 1),
        Code::InvalidArgument,
    ));
    cases.push((
        "priority above 15",
        admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Esa, 16),
        Code::InvalidArgument,
    ));
    cases.push((
        "no mode",
        admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Unspecified, 1),
        Code::InvalidArgument,
    ));
    cases.push((
        "job id taken",
        admit_request(2, &["w1", "w2"], "ps1", proto::Mode::Esa, 1),
        Code::AlreadyExists,
    ));
    cases.push((
        "job id above 4095",
        admit_request(4096, &["w1", "w2"], "ps1", proto::Mode::Esa, 1),
        Code::InvalidArgument,
    ));
    let mut port_outside = admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Esa, 1);
    port_outside.workers[0] = proto::Endpoint {
        host: String::new(),
        port: 9,
    };
    cases.push((
        "port not in the topology",
        port_outside,
        Code::InvalidArgument,
    ));
    let mut fan_in = admit_request(0, &[], "ps1", proto::Mode::Esa, 1);
    fan_in.workers = (0..33)
        .map(|p| proto::Endpoint {
            host: String::new(),
            port: p,
        })
        .collect();
    cases.push(("fan-in above 32", fan_in, Code::InvalidArgument));
    let mut overlap = admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Switchml, 1);
    overlap.slots = Some(proto::SlotRange {
        base: Some(128),
        count: 256,
    });
    cases.push(("overlapping switchml range", overlap, Code::AlreadyExists));
    let mut too_big = admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Switchml, 1);
    too_big.slots = Some(proto::SlotRange {
        base: None,
        count: 8192,
    });
    cases.push(("pool too small", too_big, Code::ResourceExhausted));
    let mut not_pow2 = admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Switchml, 1);
    not_pow2.slots = Some(proto::SlotRange {
        base: None,
        count: 100,
    });
    cases.push((
        "slot count not a power of two",
        not_pow2,
        Code::InvalidArgument,
    ));
    let mut no_range = admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Switchml, 1);
    no_range.slots = None;
    cases.push(("switchml without a range", no_range, Code::InvalidArgument));
    let mut range_for_esa = admit_request(0, &["w1", "w2"], "ps1", proto::Mode::Esa, 1);
    range_for_esa.slots = Some(proto::SlotRange {
        base: None,
        count: 16,
    });
    cases.push(("slot range for esa", range_for_esa, Code::InvalidArgument));
    cases
}

/// A controller admits jobs A and B and stops; a new one (same election
/// id) adopts them from a Read of the switch without re-pushing the
/// pipeline, and allocates around them.
pub async fn restarted_controller_rebuilds_its_view(switch: SocketAddr) {
    let first = start_controller(switch, 1).await;
    wait_synced(&first, 1).await;
    let mut client = first.client().await;
    client.admit_job(admit_a()).await.unwrap();
    client.admit_job(admit_b()).await.unwrap();
    let jobs_before = client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner()
        .jobs;
    first.stop().await;

    let second = start_controller(switch, 1).await;
    let h = wait_synced(&second, 1).await;
    assert_eq!(h.pipeline_pushes, 0, "the pipeline was already there");
    let mut client = second.client().await;
    let jobs_after = client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner()
        .jobs;
    assert_eq!(jobs_after, jobs_before);
    assert_switch(switch, &expected(&[job_a(), job_b()])).await;
    // The rebuilt view allocates around the adopted jobs.
    let err = client.admit_job(admit_b()).await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    let mut c = admit_b();
    c.job_id = 0;
    let c = client.admit_job(c).await.unwrap().into_inner().job.unwrap();
    assert_eq!((c.job_id, c.slot_base), (3, 256));
    second.stop().await;
}

/// A controller admits jobs A and B and stops; someone else half-removes
/// A, repoints w1's MAC and adds an entry of their own; a new controller
/// adopts only B, restores w1's entry and keeps the foreign one.
pub async fn restarted_controller_drops_half_installed_jobs(switch: SocketAddr) {
    use esa_controller::SwitchBackend as _;
    let first = start_controller(switch, 1).await;
    wait_synced(&first, 1).await;
    let mut client = first.client().await;
    client.admit_job(admit_a()).await.unwrap();
    client.admit_job(admit_b()).await.unwrap();
    first.stop().await;

    // Someone else, as primary, half-removes job 1, repoints w1's MAC to a
    // flood group, and adds an L2 entry of their own.
    let p4info = pipeline().p4info;
    let w1_mac = 0x0200_0000_0001;
    let other = GrpcSwitch::new(&switch.to_string(), 0, 1);
    assert_eq!(other.connect().await.unwrap(), Role::Primary);
    let update = |kind: p4v1::update::Type, entity: p4v1::Entity| p4v1::Update {
        r#type: kind as i32,
        entity: Some(entity),
    };
    let forward = |mac: u64, port: u64| {
        table_entry(
            &p4info,
            TableKind::L2.spec().name,
            &[mac],
            TableKind::L2.spec().action,
            &[("port", port)],
        )
    };
    let flood = |mac: u64| {
        table_entry(
            &p4info,
            TableKind::L2.spec().name,
            &[mac],
            "EsaIngress.l2.flood",
            &[("group", 9)],
        )
    };
    let foreign = table_entry(
        &p4info,
        TableKind::L2.spec().name,
        &[0x0200_0000_0099],
        "EsaIngress.l2.drop",
        &[],
    );
    other
        .write(vec![
            update(
                p4v1::update::Type::Delete,
                table_entry(
                    &p4info,
                    TableKind::JobPorts.spec().name,
                    &[1, 2],
                    TableKind::JobPorts.spec().action,
                    &[],
                ),
            ),
            update(p4v1::update::Type::Delete, forward(w1_mac, 1)),
            update(p4v1::update::Type::Insert, flood(w1_mac)),
            update(p4v1::update::Type::Insert, foreign.clone()),
        ])
        .await
        .unwrap();
    other.disconnect();

    let second = start_controller(switch, 1).await;
    wait_synced(&second, 1).await;
    let jobs = second.controller.jobs().await;
    assert_eq!(jobs.iter().map(|j| j.id).collect::<Vec<_>>(), [2]);
    let mut want = expected(&[job_b()]);
    want.insert(foreign.encode_to_vec(), foreign);
    assert_switch(switch, &want).await;
    second.stop().await;
}
