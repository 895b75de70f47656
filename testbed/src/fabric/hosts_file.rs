//! The hosts file of `--switch external`, and the fabric it describes:
//! every host a thread of this process bound to the address the file gives
//! it (optionally inside a named network namespace), cabled to the switch
//! by whoever runs it.

use std::net::Ipv4Addr;
use std::path::Path;

use esa_controller::Topology;
use esa_controller::config_file::read_config;
use esa_controller::topology::{Host, HostEntry};
use esa_harness::Ports;
use esa_host::addressing::SWITCH_IP;
use serde::Deserialize;

use esa_host::transport::TransportChoice;

use super::{AttachedHosts, Cabling, Fabric, PlacedHost, PortKind, Wiring, bind_hosts};
use crate::error::TestbedError;
use crate::experiment::Experiment;
use crate::netns;
use crate::switch_target::RunningSwitch;

/// The hosts of a hosts file: the experiment's hosts take its hosts in
/// order, each binds its UDP socket to the host's address (in the host's
/// `netns`, if any). The testbed does not own these links, so it injects
/// no loss on them.
#[derive(Debug, Clone)]
pub struct HostsFileFabric {
    file: HostsFile,
}

impl HostsFileFabric {
    /// The fabric of `file`'s hosts.
    pub fn new(file: HostsFile) -> HostsFileFabric {
        HostsFileFabric { file }
    }

    /// The namespace the host on switch port `port` binds in.
    fn namespace_of(&self, port: u16) -> Option<String> {
        self.file
            .hosts
            .iter()
            .find(|h| h.host.port == port)
            .and_then(|h| h.netns.clone())
    }
}

impl Fabric for HostsFileFabric {
    fn name(&self) -> &'static str {
        "external"
    }

    fn hosts_description(&self) -> &'static str {
        "hosts on kernel UDP at the hosts file's addresses"
    }

    fn port_kind(&self) -> PortKind {
        PortKind::Own
    }

    fn preflight(&self, experiment: &Experiment) -> Result<(), TestbedError> {
        if experiment.switch.loss > 0.0 {
            return Err(TestbedError::Setup(
                "switch.loss cannot be injected on an external switch's links (the testbed \
                 does not own them): remove it, or lose frames on the links yourself"
                    .into(),
            ));
        }
        let needed = experiment.hosts();
        let listed = self.file.hosts.len();
        if listed < needed {
            return Err(TestbedError::Setup(format!(
                "the hosts file lists {listed} hosts; the experiment needs {needed} (every job's \
                 workers and one PS each)"
            )));
        }
        if self.file.hosts.iter().any(|h| h.netns.is_some()) && !netns::is_root() {
            return Err(TestbedError::Setup(
                "the hosts file puts hosts in network namespaces; entering them needs root".into(),
            ));
        }
        Ok(())
    }

    fn place(&self, index: usize, _name: String) -> Result<Host, TestbedError> {
        self.file
            .hosts
            .get(index)
            .map(|h| h.host.clone())
            .ok_or_else(|| {
                TestbedError::Setup(format!(
                    "the hosts file lists {} hosts; the experiment needs more",
                    self.file.hosts.len()
                ))
            })
    }

    fn cable(
        &self,
        _experiment: &Experiment,
        wiring: &Wiring,
    ) -> Result<Box<dyn Cabling>, TestbedError> {
        if wiring.switches != 1 {
            return Err(TestbedError::Setup(
                "a hosts file lists the hosts of one external switch; racks under spines need                  a switch each (run them in process or on namespaces)"
                    .into(),
            ));
        }
        let hosts = wiring
            .hosts
            .iter()
            .map(|h| (h.clone(), self.namespace_of(h.host.port)))
            .collect();
        Ok(Box::new(GivenCabling { hosts }))
    }
}

/// The hosts with the namespace each binds in; the cables are not ours.
#[derive(Debug)]
struct GivenCabling {
    hosts: Vec<(PlacedHost, Option<String>)>,
}

impl Cabling for GivenCabling {
    fn switch_ports(&self, _switch: usize) -> Option<Ports> {
        None
    }

    fn attach(&mut self, _switches: &mut [RunningSwitch]) -> Result<AttachedHosts, TestbedError> {
        // Kernel UDP: a hosts file names no interface to attach AF_XDP to.
        let transports = bind_hosts(
            self.hosts.iter().map(|(h, ns)| (h, ns.as_deref())),
            TransportChoice::Udp,
            0,
        )?;
        Ok(AttachedHosts {
            transports,
            meters: Default::default(),
        })
    }
}

/// One host of a hosts file.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalHost {
    /// Its name, MAC and IPv4 address (its UDP socket binds to it) in the
    /// controller's topology, and the switch port it is cabled to.
    pub host: Host,
    /// A network namespace (`ip netns`) to bind the host's socket in.
    pub netns: Option<String>,
}

/// The hosts file of `--switch external`: the machines' addresses and
/// switch ports, taken in order by the experiment's hosts (job 1's
/// workers, job 1's PS, job 2's workers, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct HostsFile {
    /// Where hosts send ESA packets; the switch forwards them by job, so
    /// any address the hosts route through the switch will do.
    pub switch_ip: Ipv4Addr,
    /// The hosts, in file order.
    pub hosts: Vec<ExternalHost>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HostsText {
    switch_ip: Option<String>,
    #[serde(default)]
    host: Vec<HostText>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HostText {
    name: String,
    mac: String,
    ip: String,
    port: u16,
    netns: Option<String>,
}

impl HostsFile {
    /// Reads and checks a hosts file.
    pub fn load(path: &Path) -> Result<HostsFile, TestbedError> {
        let text = read_config(path).map_err(|error| TestbedError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        HostsFile::parse(&text).map_err(|e| match e {
            TestbedError::Parse { message, .. } => TestbedError::Parse {
                path: path.display().to_string(),
                message,
            },
            TestbedError::Invalid(message) => {
                TestbedError::Invalid(format!("{}: {message}", path.display()))
            }
            other => other,
        })
    }

    /// Parses and checks hosts-file text.
    pub fn parse(text: &str) -> Result<HostsFile, TestbedError> {
        let raw: HostsText = toml::from_str(text).map_err(|e| TestbedError::Parse {
            path: "hosts file".into(),
            message: e.to_string(),
        })?;
        let bad = |m: String| TestbedError::Invalid(m);
        let switch_ip = match raw.switch_ip {
            Some(s) => s
                .parse()
                .map_err(|_| bad(format!("switch_ip = {s:?} is not an IPv4 address")))?,
            None => SWITCH_IP,
        };
        // The controller's checks of a topology file's hosts, then the one
        // a hosts file adds: each host binds its address, so two hosts in
        // one namespace cannot share it.
        let mut topology = Topology::default();
        let mut hosts: Vec<ExternalHost> = Vec::new();
        for (i, h) in raw.host.into_iter().enumerate() {
            let entry = HostEntry {
                name: &h.name,
                mac: &h.mac,
                ip: &h.ip,
                port: h.port,
            };
            let host = topology.add_entry(i, entry).map_err(bad)?.clone();
            if let Some(other) = hosts
                .iter()
                .find(|o| o.host.ip == host.ip && o.netns == h.netns)
            {
                return Err(bad(format!(
                    "host[{i}] ({:?}): ip {} is taken by {} in the same namespace (each host \
                     binds {}:{})",
                    h.name,
                    host.ip,
                    other.host.name,
                    host.ip,
                    esa_core::constants::ESA_UDP_PORT
                )));
            }
            hosts.push(ExternalHost {
                host,
                netns: h.netns,
            });
        }
        Ok(HostsFile { switch_ip, hosts })
    }

    /// The controller's topology of these hosts, each behind its switch
    /// port: what `esa controller --hosts` programs (L2 and egress-host
    /// entries), as `esa run --switch external` does for the hosts it
    /// takes.
    pub fn topology(&self) -> Topology {
        let mut topology = Topology::default();
        for h in &self.hosts {
            topology.ports.insert(h.host.port);
            topology.hosts.insert(h.host.name.clone(), h.host.clone());
        }
        topology
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use esa_core::wire::MacAddr;

    #[test]
    fn hosts_files_parse_with_defaults() {
        let f = HostsFile::parse(
            r#"
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
netns = "blue"
"#,
        )
        .unwrap();
        assert_eq!(f.switch_ip, Ipv4Addr::new(10, 255, 255, 254));
        assert_eq!(f.hosts.len(), 2);
        assert_eq!(f.hosts[1].netns.as_deref(), Some("blue"));
        assert_eq!(f.hosts[0].host.mac, MacAddr([2, 0, 0, 0, 0, 1]));
        let topology = f.topology();
        assert_eq!(topology.ports.iter().copied().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(topology.hosts["w2"], f.hosts[1].host);
    }

    fn error(text: &str) -> String {
        HostsFile::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn bad_hosts_files_name_what_is_wrong() {
        let one =
            "[[host]]\nname = \"a\"\nmac = \"02:00:00:00:00:01\"\nip = \"10.0.0.1\"\nport = 1\n";
        assert!(error("[[host]]\nname = \"a\"\n").contains("missing field"));
        assert!(error(&format!("{one}colour = 1\n")).contains("colour"));
        assert!(error(&one.replace("10.0.0.1", "10.0.0")).contains("host[0] (\"a\").ip"));
        assert!(error(&one.replace("02:00:00:00:00:01", "zz")).contains(".mac"));
        assert!(error(&one.replace("port = 1", "port = 511")).contains("0..=510"));
        let twice = format!("{one}{}", one.replace("\"a\"", "\"b\""));
        assert!(
            error(&twice).contains("port 1 is taken by a"),
            "{}",
            error(&twice)
        );
        let same_ip = format!(
            "{one}{}",
            one.replace("\"a\"", "\"b\"")
                .replace("port = 1", "port = 2")
                .replace(":01", ":02")
        );
        assert!(error(&same_ip).contains("ip 10.0.0.1 is taken by a"));
        assert!(error("switch_ip = \"x\"\n").contains("switch_ip"));
    }
}
