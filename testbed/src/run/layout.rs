//! Where a variant's hosts and switches are: every host on one switch, or
//! racks under spines (`[topology]`). Under spines each worker sits on its
//! rack's ToR as the experiment placed it, each job's PS on the job's root
//! (the spine `job % spines` for a job across racks, as the simulator
//! picks it; its ToR for a one-rack job), and every ToR has a link to
//! every spine.
//!
//! Ports: host *n* (job 1's workers, its PS, job 2's workers, ...) is on
//! port *n* of its switch, so host ports are unique over the fabric;
//! switch-to-switch links take the ports after the last host's, a ToR's
//! uplink to spine *s* port `hosts + 1 + s` and a spine's link to rack *r*
//! port `hosts + 1 + r`.

use esa_controller::Topology;
use esa_controller::fabric::{FabricSwitch, FabricTopology, SwitchPort};
use esa_controller::topology::MAX_PORT;
use esa_harness::control::add_host;

use crate::error::TestbedError;
use crate::experiment::{Experiment, JobSpec, Variant};
use crate::fabric::{Fabric, LinkEnd, PlacedHost, SwitchLink, Wiring};
use crate::switch_target::RunningSwitch;

/// Every job's hosts as the fabric placed them, and the switches and
/// links they hang off.
#[derive(Debug)]
pub(super) struct HostPlan {
    /// Per job, in the experiment's order.
    pub jobs: Vec<JobHosts>,
    /// The switches; a host's [`PlacedHost::switch`] indexes them.
    pub switches: Vec<PlannedSwitch>,
    /// The links between switches.
    pub links: Vec<SwitchLink>,
}

/// A job's workers and PS.
#[derive(Debug)]
pub(super) struct JobHosts {
    /// In worker order.
    pub workers: Vec<PlacedHost>,
    /// The parameter server.
    pub ps: PlacedHost,
}

/// A switch of the variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PlannedSwitch {
    /// `switch` alone; `tor0`, `tor1`, ..., `spine0`, ... under spines.
    pub name: String,
    /// Whether it aggregates: a spine does not in a variant without the
    /// second level (`docs/protocol.md` §9.6).
    pub aggregate: bool,
}

impl HostPlan {
    /// Places the hosts of `jobs` (the experiment's, as `variant` runs
    /// them) in order on `fabric`: on one switch, or on the experiment's
    /// racks and spines.
    pub fn place(
        fabric: &dyn Fabric,
        experiment: &Experiment,
        variant: &Variant,
        jobs: &[JobSpec],
    ) -> Result<HostPlan, TestbedError> {
        let mut index = 0;
        let mut place = |name: String, parameter_server: bool, switch: usize| {
            let host = fabric.place(index, name)?;
            index += 1;
            Ok::<_, TestbedError>(PlacedHost {
                host,
                parameter_server,
                switch,
            })
        };
        let Some(topology) = &experiment.topology else {
            let mut plan = HostPlan {
                jobs: Vec::new(),
                switches: vec![PlannedSwitch {
                    name: "switch".into(),
                    aggregate: true,
                }],
                links: Vec::new(),
            };
            for j in jobs {
                let workers = (0..j.workers)
                    .map(|w| place(format!("{}-w{w}", j.name), false, 0))
                    .collect::<Result<_, _>>()?;
                let ps = place(format!("{}-ps", j.name), true, 0)?;
                plan.jobs.push(JobHosts { workers, ps });
            }
            return Ok(plan);
        };
        let (racks, spines) = (usize::from(topology.racks), usize::from(topology.spines));
        let mut plan = HostPlan {
            jobs: Vec::new(),
            switches: (0..racks)
                .map(|r| PlannedSwitch {
                    name: format!("tor{r}"),
                    aggregate: true,
                })
                .chain((0..spines).map(|s| PlannedSwitch {
                    name: format!("spine{s}"),
                    aggregate: variant.second_level,
                }))
                .collect(),
            links: Vec::new(),
        };
        for (k, j) in jobs.iter().enumerate() {
            let placement = experiment.placements.get(k).ok_or_else(|| {
                TestbedError::Invalid(format!("job {:?} has no placement", j.name))
            })?;
            let mut workers = Vec::new();
            for &(rack, count) in &placement.racks {
                for _ in 0..count {
                    let name = format!("{}-w{}", j.name, workers.len());
                    workers.push(place(name, false, usize::from(rack))?);
                }
            }
            let root = match placement.racks.as_slice() {
                [(rack, _)] => usize::from(*rack),
                _ => racks + (k + 1) % spines,
            };
            let ps = place(format!("{}-ps", j.name), true, root)?;
            plan.jobs.push(JobHosts { workers, ps });
        }
        let first = u16::try_from(index + 1).unwrap_or(u16::MAX);
        let last = usize::from(first) + racks.max(spines) - 1;
        if last > usize::from(MAX_PORT) {
            return Err(TestbedError::Invalid(format!(
                "[topology]: {index} hosts and the links of {racks} racks to {spines} spines \
                 need switch ports up to {last}; a switch has ports up to {MAX_PORT}"
            )));
        }
        for r in 0..racks {
            for s in 0..spines {
                let port = |other: usize| first + u16::try_from(other).unwrap_or(u16::MAX);
                plan.links.push(SwitchLink {
                    ends: [
                        LinkEnd {
                            switch: r,
                            port: port(s),
                        },
                        LinkEnd {
                            switch: racks + s,
                            port: port(r),
                        },
                    ],
                });
            }
        }
        Ok(plan)
    }

    /// Every host: each job's workers, then its PS.
    pub fn hosts(&self) -> Vec<PlacedHost> {
        self.jobs
            .iter()
            .flat_map(|j| j.workers.iter().chain([&j.ps]))
            .cloned()
            .collect()
    }

    /// What the fabric cables.
    pub fn wiring(&self) -> Wiring {
        Wiring {
            switches: self.switches.len(),
            hosts: self.hosts(),
            links: self.links.clone(),
        }
    }

    /// The controller's topology of the hosts, for a plan of one switch.
    pub fn topology(&self) -> Topology {
        let mut topology = Topology::default();
        for h in self.hosts() {
            add_host(&mut topology, &h.host.name, h.address(), h.host.port);
        }
        topology
    }

    /// For several switches, the fabric the controllers program: each
    /// switch (started as `switches`, in order) on its ports, the links
    /// between them, each host behind its switch. `None` for one switch.
    pub fn fabric_topology(
        &self,
        switches: &[RunningSwitch],
    ) -> Result<Option<FabricTopology>, TestbedError> {
        if self.switches.len() == 1 {
            return Ok(None);
        }
        let wiring = self.wiring();
        let bad = |e: String| TestbedError::Setup(format!("the fabric of the variant: {e}"));
        let mut fabric = FabricTopology::new();
        for (i, (planned, running)) in self.switches.iter().zip(switches).enumerate() {
            fabric
                .add_switch(FabricSwitch {
                    name: planned.name.clone(),
                    p4runtime: Some(running.p4runtime.clone()),
                    device_id: running.device_id,
                    aggregate: planned.aggregate,
                    ports: wiring.ports_of(i).into_iter().collect(),
                })
                .map_err(bad)?;
        }
        let end = |e: LinkEnd| SwitchPort {
            switch: self.switches[e.switch].name.clone(),
            port: e.port,
        };
        for link in &self.links {
            let [a, b] = link.ends;
            fabric.add_link(end(a), end(b)).map_err(bad)?;
        }
        for h in &wiring.hosts {
            let switch = &self.switches[h.switch].name;
            fabric.add_host(switch, h.host.clone()).map_err(bad)?;
        }
        Ok(Some(fabric))
    }
}
