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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fabric::InProcessFabric;

    /// Two racks of four under two spines: `wide` (6 workers) spans both,
    /// `narrow` (2) fits rack 1.
    const RACKS: &str = "[switch]\nlanes = 32\npool_slots = 256\n\n[topology]\nracks = 2\n\
        hosts_per_rack = 4\nspines = 2\n\n[[jobs]]\nname = \"wide\"\nworkers = 6\n\
        gradient_elems = 1024\niterations = 1\n\n[[jobs]]\nname = \"narrow\"\nworkers = 2\ngradient_elems = 1024\niterations = 1\n\n\
        [compare]\nvariants = [\"esa\"]\nsecond_level = [true, false]\n";

    #[test]
    fn workers_sit_in_their_racks_and_each_ps_on_its_root() {
        let e = Experiment::parse(RACKS, "x").unwrap();
        let (both, one_level) = (&e.variants[0], &e.variants[1]);
        let plan = HostPlan::place(&InProcessFabric, &e, both, &e.jobs_for(both)).unwrap();
        let names: Vec<&str> = plan.switches.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["tor0", "tor1", "spine0", "spine1"]);
        assert!(plan.switches.iter().all(|s| s.aggregate));
        let on = |h: &PlacedHost| (h.host.port, h.switch);
        let wide = &plan.jobs[0];
        // Packed: four workers in rack 0, two in rack 1; job 1's root is
        // spine 1 % 2.
        let workers: Vec<(u16, usize)> = wide.workers.iter().map(on).collect();
        assert_eq!(workers, [(1, 0), (2, 0), (3, 0), (4, 0), (5, 1), (6, 1)]);
        assert_eq!(on(&wide.ps), (7, 3));
        // A one-rack job is flat on its ToR, its PS there too.
        let narrow = &plan.jobs[1];
        let workers: Vec<(u16, usize)> = narrow.workers.iter().map(on).collect();
        assert_eq!(workers, [(8, 1), (9, 1)]);
        assert_eq!(on(&narrow.ps), (10, 1));
        // A link per ToR-spine pair on the ports after the last host's.
        let links: Vec<[(usize, u16); 2]> = plan
            .links
            .iter()
            .map(|l| l.ends.map(|e| (e.switch, e.port)))
            .collect();
        assert_eq!(
            links,
            [
                [(0, 11), (2, 11)],
                [(0, 12), (3, 11)],
                [(1, 11), (2, 12)],
                [(1, 12), (3, 12)]
            ]
        );
        let wiring = plan.wiring();
        assert_eq!(wiring.ports_of(1), [5, 6, 8, 9, 10, 11, 12]);
        assert_eq!(wiring.ports_of(3), [7, 11, 12]);
        // Without the second level the spines keep out of aggregation.
        let plan = HostPlan::place(&InProcessFabric, &e, one_level, &e.jobs).unwrap();
        let aggregate: Vec<bool> = plan.switches.iter().map(|s| s.aggregate).collect();
        assert_eq!(aggregate, [true, true, false, false]);
    }

    #[test]
    fn without_a_topology_every_host_is_on_one_switch() {
        let text = RACKS.split("[topology]").next().unwrap().to_string()
            + "[[jobs]]\nname = \"a\"\nworkers = 2\ngradient_elems = 1024\niterations = 1\n";
        let e = Experiment::parse(&text, "x").unwrap();
        let v = &e.variants[0];
        let plan = HostPlan::place(&InProcessFabric, &e, v, &e.jobs).unwrap();
        assert_eq!(plan.switches.len(), 1);
        assert!(plan.links.is_empty());
        assert!(plan.hosts().iter().all(|h| h.switch == 0));
        assert_eq!(plan.wiring().ports_of(0), [1, 2, 3]);
    }
}
