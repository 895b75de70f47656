//! The topology file: the switch's ports and the hosts behind them.
//!
//! ```toml
//! [switch]
//! ports = [1, 2, 3, 4]          # optional: the ports in use
//!
//! [[host]]
//! name = "w1"
//! mac = "02:00:00:00:00:01"
//! ip = "10.0.0.1"
//! port = 1
//! ```
//!
//! Every host gets an L2 entry (its MAC → its port) and an `egress_host`
//! entry (its port → its MAC and IP). Names, MACs and ports are unique: the
//! egress host table has one host per port.
//!
//! [`Topology::add_entry`] reads and checks one `[[host]]`; `esa run`'s
//! hosts file (`esa_testbed`), whose hosts carry a namespace too, reads its
//! hosts with it, so both files take the same keys with the same checks and
//! messages.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use esa_core::wire::{Ipv4Addr, MacAddr};
use serde::Deserialize;

use crate::entries::{Entity, Forward, MacKey, PortKey, SetHost, TableEntry};
use crate::error::TopologyError;

/// The largest usable port: ports are 9 bits and 511 is v1model's drop port.
pub const MAX_PORT: u16 = 510;

/// A host behind a switch port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// Unique name.
    pub name: String,
    /// MAC address.
    pub mac: MacAddr,
    /// IPv4 address.
    pub ip: Ipv4Addr,
    /// Switch port.
    pub port: u16,
}

/// The switch and its hosts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Topology {
    /// Ports in use; empty means "any port up to [`MAX_PORT`]".
    pub ports: BTreeSet<u16>,
    /// Hosts by name.
    pub hosts: BTreeMap<String, Host>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    switch: SwitchSection,
    #[serde(default)]
    host: Vec<HostSection>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SwitchSection {
    #[serde(default)]
    ports: Vec<u16>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostSection {
    name: String,
    mac: String,
    ip: String,
    port: u16,
}

/// One `[[host]]` of a file as written, before [`Topology::add_entry`]
/// checks it.
#[derive(Debug, Clone, Copy)]
pub struct HostEntry<'a> {
    /// `name`: unique, not empty.
    pub name: &'a str,
    /// `mac`: `aa:bb:cc:dd:ee:ff` (or with `-`), unique.
    pub mac: &'a str,
    /// `ip`: an IPv4 address.
    pub ip: &'a str,
    /// `port`: its switch port, unique, `0..=`[`MAX_PORT`].
    pub port: u16,
}

/// Parses `aa:bb:cc:dd:ee:ff` (or with `-`).
pub fn parse_mac(text: &str) -> Option<MacAddr> {
    let mut mac = [0u8; 6];
    let mut parts = text.split([':', '-']);
    for byte in &mut mac {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 2 {
            return None;
        }
        *byte = u8::from_str_radix(part, 16).ok()?;
    }
    parts.next().is_none().then_some(MacAddr(mac))
}

/// A topology file's text (this one's or a fabric's), bounded as every
/// config file is.
pub(crate) fn read_topology(path: &Path) -> Result<String, TopologyError> {
    crate::config_file::read_config(path).map_err(|source| TopologyError::Io {
        path: path.to_path_buf(),
        source,
    })
}

impl Topology {
    /// Reads and checks a topology file.
    pub fn load(path: &Path) -> Result<Topology, TopologyError> {
        Topology::parse(&read_topology(path)?)
    }

    /// Parses and checks topology text.
    pub fn parse(text: &str) -> Result<Topology, TopologyError> {
        let file: File = toml::from_str(text).map_err(|e| TopologyError::Parse(e.to_string()))?;
        let mut topology = Topology::default();
        for port in file.switch.ports {
            if port > MAX_PORT {
                return Err(TopologyError::Invalid(format!(
                    "switch port {port} is above {MAX_PORT}"
                )));
            }
            if !topology.ports.insert(port) {
                return Err(TopologyError::Invalid(format!(
                    "switch port {port} listed twice"
                )));
            }
        }
        for (index, h) in file.host.iter().enumerate() {
            let entry = HostEntry {
                name: &h.name,
                mac: &h.mac,
                ip: &h.ip,
                port: h.port,
            };
            topology
                .add_entry(index, entry)
                .map_err(TopologyError::Invalid)?;
        }
        Ok(topology)
    }

    /// Adds `[[host]]` number `index` (0-based) of a file, checked: its
    /// name is not empty, its MAC and IPv4 address parse, its port is a
    /// switch port ([`Topology::check_port`]), and no host before it has its
    /// name, port or MAC. The error names the host and the key:
    /// `host[1] ("w2"): port 1 is taken by w1`.
    pub fn add_entry(&mut self, index: usize, entry: HostEntry<'_>) -> Result<&Host, String> {
        let HostEntry {
            name,
            mac,
            ip,
            port,
        } = entry;
        let at = format!("host[{index}] ({name:?})");
        if name.is_empty() {
            return Err(format!("{at}: a host without a name"));
        }
        let mac_addr =
            parse_mac(mac).ok_or_else(|| format!("{at}.mac = {mac:?} is not a MAC address"))?;
        let ip: std::net::Ipv4Addr = ip
            .parse()
            .map_err(|_| format!("{at}.ip = {ip:?} is not an IPv4 address"))?;
        if port > MAX_PORT {
            return Err(format!("{at}.port = {port}: ports are 0..={MAX_PORT}"));
        }
        self.check_port(port)
            .map_err(|e| format!("{at}.port = {port}: {e}"))?;
        if let Some(other) = self.hosts.get(name) {
            return Err(format!("{at}: the name is taken by port {}", other.port));
        }
        if let Some(other) = self.host_on(port) {
            return Err(format!("{at}: port {port} is taken by {}", other.name));
        }
        if let Some(other) = self.hosts.values().find(|h| h.mac == mac_addr) {
            return Err(format!("{at}: mac {mac} is taken by {}", other.name));
        }
        let host = Host {
            name: name.to_owned(),
            mac: mac_addr,
            ip: Ipv4Addr(ip.octets()),
            port,
        };
        Ok(self.hosts.entry(name.to_owned()).or_insert(host))
    }

    /// Whether `port` may be used: within [`MAX_PORT`] and listed (when a
    /// port list is given).
    pub fn check_port(&self, port: u16) -> Result<(), String> {
        if port > MAX_PORT {
            return Err(format!("port {port} is above {MAX_PORT}"));
        }
        if !self.ports.is_empty() && !self.ports.contains(&port) {
            return Err(format!("port {port} is not a switch port of the topology"));
        }
        Ok(())
    }

    /// The host on `port`, if the topology has one.
    pub fn host_on(&self, port: u16) -> Option<&Host> {
        self.hosts.values().find(|h| h.port == port)
    }

    /// L2 and egress-host entries for every host.
    pub fn entities(&self) -> Vec<Entity> {
        let mut out = vec![];
        for h in self.hosts.values() {
            out.push(Entity::Table(TableEntry::L2(
                MacKey { mac: h.mac },
                Forward { port: h.port },
            )));
            out.push(Entity::Table(TableEntry::EgressHost(
                PortKey { port: h.port },
                SetHost {
                    mac: h.mac,
                    ip: h.ip,
                },
            )));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_checks() {
        let t = Topology::parse(
            r#"
            [switch]
            ports = [1, 2]
            [[host]]
            name = "a"
            mac = "02:00:00:00:00:01"
            ip = "10.0.0.1"
            port = 1
            "#,
        )
        .unwrap();
        assert_eq!(t.hosts["a"].port, 1);
        assert_eq!(t.entities().len(), 2);
        let bad_port = r#"
            [switch]
            ports = [1]
            [[host]]
            name = "a"
            mac = "02:00:00:00:00:01"
            ip = "10.0.0.1"
            port = 2
        "#;
        assert!(Topology::parse(bad_port).is_err());
        assert!(Topology::parse("[[host]]\nname='a'\nmac='zz'\nip='1.2.3.4'\nport=1").is_err());
        assert!(Topology::parse("bogus = 1").is_err());
        let host = |name: &str, mac: &str, port: u16| {
            format!("[[host]]\nname = {name:?}\nmac = {mac:?}\nip = '10.0.0.1'\nport = {port}\n")
        };
        let error = |text: String| Topology::parse(&text).unwrap_err().to_string();
        let a = host("a", "02:00:00:00:00:01", 1);
        assert_eq!(
            error(format!("{a}{}", host("b", "02:00:00:00:00:02", 1))),
            "topology: host[1] (\"b\"): port 1 is taken by a"
        );
        assert!(error(format!("{a}{a}")).contains("the name is taken by port 1"));
        assert!(error(format!("{a}{}", host("b", "02:00:00:00:00:01", 2))).contains("mac"));
        assert!(error(host("a", "02:00:00:00:00:01", 511)).contains("ports are 0..=510"));
        // 511 is v1model's drop port, in the switch's port list too.
        assert!(
            error("[switch]\nports = [1, 511]\n".into()).contains("switch port 511 is above 510")
        );
        assert!(error(a.replace("10.0.0.1", "10.0.0")).contains("host[0] (\"a\").ip"));
        assert!(error(host("", "02:00:00:00:00:01", 1)).contains("without a name"));
        assert_eq!(
            parse_mac("02-00-00-00-00-0a"),
            Some(MacAddr([2, 0, 0, 0, 0, 10]))
        );
        assert_eq!(parse_mac("02:00:00:00:00"), None);
        assert_eq!(parse_mac("02:00:00:00:00:00:00"), None);
    }
}
