//! One controller per switch of a fabric, three esa-switches in process
//! (two leaves and a root), and a [`FabricController`] over them: a job
//! across both leaves gets a leaf entry on each and a root entry on the
//! PS's switch, as read back from the switches; a switch that refuses its
//! part leaves no part anywhere; releasing removes every part.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use esa_controller::entries::{Entity, TableEntry};
use esa_controller::fabric::{FabricController, FabricTopology};
use esa_controller::jobs::{Endpoint, JobRequest};
use esa_controller::{Controller, ControllerConfig, Error, GrpcSwitch, Role};
use esa_core::job::{JobEntry, Mode, TreeRole, Uplink};
use esa_harness::EmbeddedSwitch;
use tokio::sync::watch;

use crate::support::{pipeline, real_switch, wait_health};

/// Leaves `leaf1` (w1, w2) and `leaf2` (w3) under `root` (the PS), each
/// leaf's port 8 linked to the root's port `1` or `2`.
const FABRIC: &str = r#"
    [[switch]]
    name = "leaf1"
    [[switch]]
    name = "leaf2"
    [[switch]]
    name = "root"
    [[link]]
    a = { switch = "leaf1", port = 8 }
    b = { switch = "root", port = 1 }
    [[link]]
    a = { switch = "leaf2", port = 8 }
    b = { switch = "root", port = 2 }
    [[host]]
    name = "w1"
    switch = "leaf1"
    mac = "02:00:00:00:00:01"
    ip = "10.0.0.1"
    port = 1
    [[host]]
    name = "w2"
    switch = "leaf1"
    mac = "02:00:00:00:00:02"
    ip = "10.0.0.2"
    port = 2
    [[host]]
    name = "w3"
    switch = "leaf2"
    mac = "02:00:00:00:00:03"
    ip = "10.0.0.3"
    port = 1
    [[host]]
    name = "ps"
    switch = "root"
    mac = "02:00:00:00:00:04"
    ip = "10.0.0.4"
    port = 5
"#;

struct Fabric {
    controller: FabricController<GrpcSwitch>,
    switches: BTreeMap<String, EmbeddedSwitch>,
    stop: watch::Sender<bool>,
}

fn config() -> ControllerConfig {
    ControllerConfig {
        pool_slots: None,
        check_interval: Duration::from_millis(100),
        retry_interval: Duration::from_millis(50),
        stale_after_us: None,
        registry: None,
    }
}

async fn synced(controller: &Controller<GrpcSwitch>) {
    wait_health(controller.health(), |h| h.role == Role::Primary && h.synced).await;
}

async fn start() -> Fabric {
    let topology = FabricTopology::parse(FABRIC).unwrap();
    let (stop, rx) = watch::channel(false);
    let mut switches = BTreeMap::new();
    let mut controllers = BTreeMap::new();
    for s in topology.switches() {
        let switch = real_switch::start().await;
        let backend = GrpcSwitch::new(&switch.addr().to_string(), 0, 1);
        let hosts = topology.switch_topology(&s.name).unwrap();
        let controller = Controller::new(backend, pipeline(), hosts, config()).unwrap();
        let mut rx = rx.clone();
        tokio::spawn(Arc::clone(&controller).run(async move {
            let _ = rx.wait_for(|s| *s).await;
        }));
        synced(&controller).await;
        switches.insert(s.name.clone(), switch);
        controllers.insert(s.name.clone(), controller);
    }
    Fabric {
        controller: FabricController::new(topology, controllers).unwrap(),
        switches,
        stop,
    }
}

/// The job-table entries a switch holds, read over P4Runtime.
async fn job_entries(fabric: &Fabric, switch: &str) -> BTreeMap<u16, JobEntry> {
    let entities = fabric.controller.controllers()[switch]
        .read_entities()
        .await
        .unwrap();
    entities
        .into_iter()
        .filter_map(|e| match e {
            Entity::Table(TableEntry::Job(k, entry)) => Some((k.job, entry)),
            _ => None,
        })
        .collect()
}

fn request(workers: &[&str]) -> JobRequest {
    JobRequest {
        job_id: 0,
        workers: workers
            .iter()
            .map(|w| Endpoint::Host(w.to_string()))
            .collect(),
        ps: Some(Endpoint::Host("ps".into())),
        max_priority: 3,
        mode: Some(Mode::Esa),
        slots: None,
    }
}

#[tokio::test]
async fn a_job_across_two_leaves_is_programmed_on_all_three_switches() {
    let fabric = start().await;
    let job = fabric
        .controller
        .admit(&request(&["w3", "w1", "w2"]))
        .await
        .unwrap();
    assert_eq!(job.workers, [(0, 0), (1, 0), (1, 1)]);
    let leaf2 = job_entries(&fabric, "leaf2").await;
    let uplink = |bit| Uplink {
        port: 8,
        bit,
        root_fan_in: 2,
    };
    assert_eq!(leaf2[&job.id].tree, TreeRole::leaf(uplink(0)));
    assert_eq!((leaf2[&job.id].fan_in, leaf2[&job.id].ps_port), (1, 8));
    let leaf1 = job_entries(&fabric, "leaf1").await;
    assert_eq!(leaf1[&job.id].tree, TreeRole::leaf(uplink(1)));
    assert_eq!(leaf1[&job.id].fan_in, 2);
    let root = job_entries(&fabric, "root").await;
    assert_eq!(root[&job.id].tree, TreeRole::root(2));
    assert_eq!((root[&job.id].fan_in, root[&job.id].ps_port), (2, 5));
    // The fabric's view is its switches' parts.
    let jobs = fabric.controller.jobs().await;
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].parts, job.parts);
    let stats = fabric.controller.stats(&[]).await.unwrap();
    assert_eq!(stats.len(), 1);
    assert!(stats[0].counters.iter().all(|(_, n)| *n == 0));

    fabric.controller.release(u32::from(job.id)).await.unwrap();
    for switch in ["leaf1", "leaf2", "root"] {
        assert!(job_entries(&fabric, switch).await.is_empty(), "{switch}");
    }
    let again = fabric.controller.release(u32::from(job.id)).await;
    assert!(matches!(again, Err(Error::Admit(_))), "{again:?}");
    let _ = fabric.stop.send(true);
    drop(fabric.switches);
}

#[tokio::test]
async fn a_switch_that_refuses_its_part_leaves_no_part_anywhere() {
    let fabric = start().await;
    // Another controller takes the root over: ours is a backup there and
    // cannot write, so the root (installed last) refuses.
    let root = &fabric.switches["root"];
    let intruder = Controller::new(
        GrpcSwitch::new(&root.addr().to_string(), 0, 2),
        pipeline(),
        fabric
            .controller
            .topology()
            .switch_topology("root")
            .unwrap(),
        config(),
    )
    .unwrap();
    let (stop_intruder, mut rx) = watch::channel(false);
    let task = tokio::spawn(Arc::clone(&intruder).run(async move {
        let _ = rx.wait_for(|s| *s).await;
    }));
    synced(&intruder).await;
    wait_health(fabric.controller.controllers()["root"].health(), |h| {
        matches!(h.role, Role::Backup { .. })
    })
    .await;
    let refused = fabric
        .controller
        .admit(&request(&["w1", "w3"]))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().starts_with("switch `root`: "),
        "{refused}"
    );
    for switch in ["leaf1", "leaf2"] {
        assert!(job_entries(&fabric, switch).await.is_empty(), "{switch}");
        assert!(
            fabric.controller.controllers()[switch]
                .jobs()
                .await
                .is_empty()
        );
    }
    let _ = stop_intruder.send(true);
    let _ = task.await;
    // Once ours is primary again, the job goes in.
    synced(&fabric.controller.controllers()["root"]).await;
    fabric
        .controller
        .admit(&request(&["w1", "w3"]))
        .await
        .unwrap();
    let _ = fabric.stop.send(true);
}
