//! The authenticated control plane: the job API refuses calls without a
//! tenant's token, a tenant sees, stats and releases only its own jobs
//! while an admin sees them all; the job API and esa-switch's P4Runtime
//! server speak TLS to clients holding the lab CA (`esa certs`) and to no
//! plaintext client; plaintext beyond loopback is refused.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::support::fake_switch::FakeSwitch;
use crate::support::*;
use esa_controller::api::{self, ApiSecurity, TokenJobsClient, proto};
use esa_controller::auth::{RefusedCalls, Tokens};
use esa_controller::certs::{CA_CERT, LabCertificates, SERVER_CERT, SERVER_KEY, client_files};
use esa_controller::{GrpcSwitch, Role, SwitchBackend};
use p4runtime_proto::security::{ClientSecurity, SecurityError, ServerIdentity, ServerSecurity};
use p4runtime_proto::tonic::Code;

const ALICE: &str = "alice-token-0123456789abcdef";
const BOB: &str = "bob-token-0123456789abcdef";
const OPERATOR: &str = "operator-token-0123456789abcdef";

fn tokens() -> Tokens {
    Tokens::parse(&format!(
        "[[tenant]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n\
         [[tenant]]\nname = \"bob\"\ntoken = \"{BOB}\"\n\
         [[tenant]]\nname = \"operator\"\ntoken = \"{OPERATOR}\"\nadmin = true\n"
    ))
    .unwrap()
}

/// A folder of lab certificates for 127.0.0.1 and localhost, removed when
/// dropped.
struct LabDir(PathBuf);

impl LabDir {
    fn new(name: &str) -> LabDir {
        let dir = std::env::temp_dir().join(format!("esa-{name}-{}", std::process::id()));
        LabCertificates::generate(
            &["127.0.0.1".into(), "localhost".into()],
            &["esa-controller".into(), "intruder".into()],
        )
        .unwrap()
        .write(&dir)
        .unwrap();
        LabDir(dir)
    }

    fn server(&self) -> ServerSecurity {
        ServerSecurity {
            tls: Some(ServerIdentity {
                cert: self.0.join(SERVER_CERT),
                key: self.0.join(SERVER_KEY),
            }),
            client_ca: None,
            insecure: false,
        }
    }

    fn client(&self) -> ClientSecurity {
        ClientSecurity {
            ca: Some(self.0.join(CA_CERT)),
            identity: None,
        }
    }

    /// A client presenting `name`'s certificate (signed by the lab CA).
    fn client_as(&self, name: &str) -> ClientSecurity {
        let (cert, key) = client_files(name);
        ClientSecurity {
            identity: Some(ServerIdentity {
                cert: self.0.join(cert),
                key: self.0.join(key),
            }),
            ..self.client()
        }
    }
}

impl Drop for LabDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn client(ctl: &Running, security: &ClientSecurity, token: Option<&str>) -> TokenJobsClient {
    api::connect(
        &ctl.api.to_string(),
        security,
        token,
        Duration::from_secs(3),
    )
    .await
    .unwrap()
}

async fn listed(client: &mut TokenJobsClient) -> Vec<u32> {
    client
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner()
        .jobs
        .iter()
        .map(|j| j.job_id)
        .collect()
}

#[tokio::test]
async fn tenants_see_and_release_only_their_own_jobs_and_admins_see_all() {
    let fake = FakeSwitch::start().await;
    let refused = Arc::new(RefusedCalls::default());
    let security = ApiSecurity {
        tokens: Some(tokens()),
        refused: Arc::clone(&refused),
        ..ApiSecurity::default()
    };
    let backend = GrpcSwitch::new(&fake.addr.to_string(), 0, 1);
    let ctl = start_controller_secured(backend, None, security).await;
    wait_synced(&ctl, 1).await;
    let plain = ClientSecurity::default();

    let mut anonymous = client(&ctl, &plain, None).await;
    let e = anonymous
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    let e = anonymous.admit_job(admit_a()).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    let mut stranger = client(&ctl, &plain, Some("not-a-token-0123456789")).await;
    let e = stranger
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    assert_switch(fake.addr, &expected(&[])).await;

    let mut alice = client(&ctl, &plain, Some(ALICE)).await;
    let mut bob = client(&ctl, &plain, Some(BOB)).await;
    let mut operator = client(&ctl, &plain, Some(OPERATOR)).await;
    alice.admit_job(admit_a()).await.unwrap();
    bob.admit_job(admit_b()).await.unwrap();
    assert_eq!(listed(&mut alice).await, [1]);
    assert_eq!(listed(&mut bob).await, [2]);
    assert_eq!(listed(&mut operator).await, [1, 2]);

    let e = alice
        .release_job(proto::ReleaseJobRequest { job_id: 2 })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = alice
        .job_stats(proto::JobStatsRequest { job_ids: vec![2] })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert_switch(fake.addr, &expected(&[job_a(), job_b()])).await;
    assert_eq!(listed(&mut operator).await, [1, 2]);
    let own_stats: Vec<u32> = alice
        .job_stats(proto::JobStatsRequest { job_ids: vec![] })
        .await
        .unwrap()
        .into_inner()
        .jobs
        .iter()
        .map(|j| j.job_id)
        .collect();
    assert_eq!(own_stats, [1]);
    assert_eq!(
        (refused.unauthenticated(), refused.permission_denied()),
        (3, 2)
    );

    operator
        .release_job(proto::ReleaseJobRequest { job_id: 2 })
        .await
        .unwrap();
    alice
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap();
    assert_switch(fake.addr, &expected(&[])).await;
    ctl.stop().await;
}

#[tokio::test]
async fn the_job_api_speaks_tls_to_clients_with_the_ca_and_not_to_plaintext_ones() {
    let lab = LabDir::new("api-tls");
    let fake = FakeSwitch::start().await;
    let security = ApiSecurity {
        server: lab.server(),
        tokens: Some(tokens()),
        ..ApiSecurity::default()
    };
    let backend = GrpcSwitch::new(&fake.addr.to_string(), 0, 1);
    let ctl = start_controller_secured(backend, None, security).await;
    wait_synced(&ctl, 1).await;

    let mut alice = client(&ctl, &lab.client(), Some(ALICE)).await;
    alice.admit_job(admit_a()).await.unwrap();
    assert_eq!(listed(&mut alice).await, [1]);

    // A plaintext client reaches the socket but gets no answer.
    let plaintext = api::connect(
        &ctl.api.to_string(),
        &ClientSecurity::default(),
        Some(ALICE),
        Duration::from_secs(3),
    )
    .await;
    if let Ok(mut plaintext) = plaintext {
        let e = plaintext
            .list_jobs(proto::ListJobsRequest {})
            .await
            .unwrap_err();
        assert_ne!(e.code(), Code::Ok, "{e:?}");
    }
    // Nor does a client trusting another CA.
    let other = LabDir::new("api-tls-other");
    let e = api::connect(
        &ctl.api.to_string(),
        &other.client(),
        Some(ALICE),
        Duration::from_secs(3),
    )
    .await
    .unwrap_err();
    let text = esa_controller::error_chain(&e);
    assert!(text.contains("certificate"), "{text}");
    ctl.stop().await;
}

#[tokio::test]
async fn the_controller_programs_esa_switch_over_tls_and_not_in_plaintext() {
    let lab = LabDir::new("p4rt-tls");
    let (switch, _ports) = esa_switch::Switch::builder(esa_switch::SwitchConfig::default())
        .memory_ports(1..=8)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let server = tokio::spawn(switch.serve_with(
        lab.server().server_builder().unwrap(),
        listener,
        async move {
            let _ = stopped.wait_for(|s| *s).await;
        },
    ));

    let plaintext = GrpcSwitch::new(&addr.to_string(), 0, 1);
    assert!(plaintext.connect().await.is_err());

    let backend = GrpcSwitch::new(&addr.to_string(), 0, 1).with_security(lab.client());
    let ctl = start_controller_secured(backend, None, ApiSecurity::default()).await;
    let health = wait_synced(&ctl, 1).await;
    assert_eq!(health.pipeline_pushes, 1);
    ctl.stop().await;
    let _ = stop.send(true);
    server.await.unwrap().unwrap();
}

/// The role policy `esa switch --roles` would read for a lab: ESA's
/// tables, the multicast groups and the pipeline belong to role `esa`,
/// which only the controller's certificate may take.
const ESA_ROLE: &str = r#"
[[role]]
name = "esa"
entities = ["EsaIngress.", "EsaEgress."]
replication = true
pipeline = true
clients = ["esa-controller"]
"#;

/// A second P4Runtime client — even one holding a certificate from the
/// lab's CA and a higher election id — cannot take ESA's role or touch
/// its tables, groups or pipeline: the switch's role policy keeps them for
/// the controller's certificate. The controller stays primary of its role
/// and the job's entries stay. Without a client certificate no client
/// connects at all.
#[tokio::test]
async fn a_second_p4runtime_client_cannot_take_esa_s_role_or_write_its_tables() {
    use p4runtime_proto::p4::v1 as p4v1;
    let lab = LabDir::new("p4rt-roles");
    let roles = esa_switch::roles::RolePolicy::from_toml(ESA_ROLE).unwrap();
    let (switch, _ports) = esa_switch::Switch::builder(esa_switch::SwitchConfig {
        roles,
        ..esa_switch::SwitchConfig::default()
    })
    .memory_ports(1..=8)
    .build()
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let mtls = ServerSecurity {
        client_ca: Some(lab.0.join(CA_CERT)),
        ..lab.server()
    };
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    // Served by hand, not by `serve_with`, to keep the switch and read its
    // refusal count.
    let server = tokio::spawn(
        mtls.server_builder()
            .unwrap()
            .add_service(switch.service())
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                async move {
                    let _ = stopped.wait_for(|s| *s).await;
                },
            ),
    );

    let backend = GrpcSwitch::new(&addr, 0, 1)
        .with_security(lab.client_as("esa-controller"))
        .with_role("esa");
    let ctl = start_controller_secured(backend, None, ApiSecurity::default()).await;
    wait_synced(&ctl, 1).await;
    let mut jobs = ctl.client().await;
    jobs.admit_job(admit_a()).await.unwrap();

    // No client certificate: the TLS handshake fails.
    let anonymous = GrpcSwitch::new(&addr, 0, 100).with_security(lab.client());
    assert!(anonymous.connect().await.is_err());
    // The CA's other certificate cannot take role esa.
    let impostor = GrpcSwitch::new(&addr, 0, 100)
        .with_security(lab.client_as("intruder"))
        .with_role("esa");
    let e = impostor.connect().await.unwrap_err().to_string();
    assert!(
        e.contains("open only to clients") && e.contains("intruder"),
        "{e}"
    );
    // Nor a role the switch does not have.
    let stranger = GrpcSwitch::new(&addr, 0, 100)
        .with_security(lab.client_as("intruder"))
        .with_role("admin");
    let e = stranger.connect().await.unwrap_err().to_string();
    assert!(e.contains("no role \"admin\""), "{e}");

    // In the default role it becomes that role's primary, and reads ...
    let intruder = GrpcSwitch::new(&addr, 0, 100).with_security(lab.client_as("intruder"));
    assert_eq!(intruder.connect().await.unwrap(), Role::Primary);
    let everything = vec![
        esa_controller::entries::wildcard_table(0),
        esa_controller::entries::wildcard_groups(),
    ];
    let before = intruder.read(everything.clone()).await.unwrap();
    assert!(before.len() > 2, "{before:?}");
    // ... but deletes nothing of ESA's: each update refused on its own.
    let deletes: Vec<p4v1::Update> = before
        .iter()
        .map(|entity| p4v1::Update {
            r#type: p4v1::update::Type::Delete as i32,
            entity: Some(entity.clone()),
        })
        .collect();
    let n = deletes.len();
    let e = intruder.write(deletes).await.unwrap_err().to_string();
    assert!(e.contains(&format!("{n} of {n} updates failed")), "{e}");
    assert!(e.contains("belongs to role \"esa\""), "{e}");
    let e = intruder
        .set_pipeline(pipeline().config())
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("the pipeline belongs to role \"esa\""), "{e}");
    assert_eq!(intruder.read(everything).await.unwrap().len(), before.len());
    // Counted: the two refused arbitrations, every refused update, the
    // refused pipeline.
    assert_eq!(switch.role_refusals(), 2 + n as u64 + 1);

    // The controller never lost its role: still primary, the job admitted.
    let health = ctl.health().borrow().clone();
    assert_eq!(health.role, Role::Primary);
    assert_eq!(health.primary_lost, 0);
    let list = jobs
        .list_jobs(proto::ListJobsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert!(list.primary);
    assert_eq!(list.jobs.len(), 1);

    intruder.disconnect();
    ctl.stop().await;
    let _ = stop.send(true);
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn plaintext_beyond_loopback_is_refused_unless_insecure() {
    let fake = FakeSwitch::start().await;
    let ctl = start_controller(fake.addr, 1).await;
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let e = api::serve(
        Arc::clone(&ctl.controller),
        listener,
        ApiSecurity::default(),
        std::future::pending(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(
            &e,
            api::ServeError::Security(SecurityError::PlaintextBeyondLoopback { .. })
        ),
        "{e}"
    );
    assert!(e.to_string().contains("--insecure"), "{e}");

    let insecure = ApiSecurity {
        server: ServerSecurity {
            insecure: true,
            ..ServerSecurity::default()
        },
        ..ApiSecurity::default()
    };
    let any: std::net::SocketAddr = "0.0.0.0:0".parse().unwrap();
    api::router(Arc::clone(&ctl.controller), any, insecure).unwrap();

    let switch = esa_switch::run::RunConfig {
        switch: esa_switch::SwitchConfig::default(),
        program: None,
        interfaces: vec![],
        udp_ports: vec![],
        grpc_addr: any,
        security: ServerSecurity::default(),
    };
    let e = esa_switch::run::run(&switch, std::future::ready(())).unwrap_err();
    assert!(
        e.to_string().contains("refusing to listen on 0.0.0.0"),
        "{e}"
    );
    ctl.stop().await;
}

/// With a job record (`--state`), who admitted a job survives the
/// controller restarting: alice still sees and releases her job after the
/// restart, bob still cannot.
#[tokio::test]
async fn tenants_keep_their_jobs_across_a_controller_restart_with_a_record() {
    let dir = std::env::temp_dir().join(format!("esa-tenant-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fake = FakeSwitch::start().await;
    let start = || async {
        let config = esa_controller::ControllerConfig {
            check_interval: Duration::from_millis(100),
            retry_interval: Duration::from_millis(50),
            registry: Some(dir.join("jobs.redb")),
            ..Default::default()
        };
        let security = ApiSecurity {
            tokens: Some(tokens()),
            ..ApiSecurity::default()
        };
        let backend = GrpcSwitch::new(&fake.addr.to_string(), 0, 1);
        let ctl = start_controller_config(backend, config, security).await;
        wait_synced(&ctl, 1).await;
        ctl
    };
    let plain = ClientSecurity::default();
    let first = start().await;
    client(&first, &plain, Some(ALICE))
        .await
        .admit_job(admit_a())
        .await
        .unwrap();
    first.stop().await;

    let second = start().await;
    let mut alice = client(&second, &plain, Some(ALICE)).await;
    let mut bob = client(&second, &plain, Some(BOB)).await;
    assert_eq!(listed(&mut alice).await, [1]);
    assert_eq!(listed(&mut bob).await, Vec::<u32>::new());
    let e = bob
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    alice
        .release_job(proto::ReleaseJobRequest { job_id: 1 })
        .await
        .unwrap();
    assert_switch(fake.addr, &expected(&[])).await;
    second.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
