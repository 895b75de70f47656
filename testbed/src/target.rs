//! Where an experiment runs: the fabric the hosts sit on and the switch
//! that runs the data plane.
//!
//! | switch | fabric | hosts | switch ports |
//! |---|---|---|---|
//! | embedded (default) | in-process (default) | threads on in-memory links | in-memory |
//! | embedded | netns | threads in namespaces, kernel UDP | AF_PACKET on veth ends |
//! | bmv2 | netns (implied) | threads in namespaces, kernel UDP | `simple_switch_grpc -i n@veth` |
//! | external | the hosts file | kernel UDP on the given addresses (optionally in a named namespace) | the real switch's |

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use esa_controller::topology::{Host, HostEntry};
use esa_controller::{Pipeline, Topology};
use esa_host::addressing::SWITCH_IP;
use serde::Deserialize;

use crate::error::TestbedError;

/// Where the hosts run and how they reach the switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fabric {
    /// Every host a thread of this process on an in-memory switch port.
    #[default]
    InProcess,
    /// Every host in its own network namespace on kernel UDP, joined to
    /// the switch by a veth pair. Needs root.
    Netns,
}

impl std::str::FromStr for Fabric {
    type Err = String;
    fn from_str(s: &str) -> Result<Fabric, String> {
        match s {
            "inprocess" | "in-process" | "memory" => Ok(Fabric::InProcess),
            "netns" => Ok(Fabric::Netns),
            _ => Err(format!("unknown fabric {s:?} (inprocess, netns)")),
        }
    }
}

impl std::fmt::Display for Fabric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Fabric::InProcess => "inprocess",
            Fabric::Netns => "netns",
        })
    }
}

/// Which switch runs the data plane.
#[derive(Debug, Clone, Default)]
pub enum SwitchTarget {
    /// esa-switch (p4sim) in this process.
    #[default]
    Embedded,
    /// BMv2's `simple_switch_grpc`, started per variant on the namespace
    /// fabric's veth ends, running esa.p4 compiled by p4c.
    Bmv2(Bmv2),
    /// A switch somebody else runs, reached over P4Runtime; hosts on the
    /// addresses of a hosts file.
    External(ExternalSwitch),
}

impl SwitchTarget {
    /// A short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            SwitchTarget::Embedded => "embedded",
            SwitchTarget::Bmv2(_) => "bmv2",
            SwitchTarget::External(_) => "external",
        }
    }
}

/// Settles the fabric for a switch target: BMv2 needs real interfaces, so
/// it implies the namespace fabric; an external switch's hosts are where
/// the hosts file says, so no fabric may be asked for.
pub fn resolve_fabric(
    switch: &SwitchTarget,
    asked: Option<Fabric>,
) -> Result<Option<Fabric>, TestbedError> {
    match (switch, asked) {
        (SwitchTarget::Embedded, asked) => Ok(Some(asked.unwrap_or_default())),
        (SwitchTarget::Bmv2(_), None | Some(Fabric::Netns)) => Ok(Some(Fabric::Netns)),
        (SwitchTarget::Bmv2(_), Some(Fabric::InProcess)) => Err(TestbedError::Setup(
            "--switch bmv2 needs Linux interfaces for its ports: use --fabric netns (the \
             default with bmv2)"
                .into(),
        )),
        (SwitchTarget::External(_), None) => Ok(None),
        (SwitchTarget::External(_), Some(f)) => Err(TestbedError::Setup(format!(
            "--fabric {f} does not apply to --switch external: the hosts file says where each \
             host is (an address, and optionally a `netns`)"
        ))),
    }
}

/// BMv2 and the compiler for it, found on PATH.
#[derive(Debug, Clone)]
pub struct Bmv2 {
    /// `simple_switch_grpc`.
    pub simple_switch_grpc: PathBuf,
    /// `p4c-bm2-ss`, else `p4c`.
    pub compiler: PathBuf,
}

impl Bmv2 {
    /// Finds `simple_switch_grpc` and `p4c-bm2-ss` (or `p4c`) in
    /// `$ESA_BMV2_DIR/bin` or on PATH; the error says which is missing and
    /// where to read how to get them.
    pub fn find() -> Result<Bmv2, TestbedError> {
        let switch = esa_bmv2::which("simple_switch_grpc");
        let compiler = esa_bmv2::which("p4c-bm2-ss").or_else(|| esa_bmv2::which("p4c"));
        match (switch, compiler) {
            (Some(simple_switch_grpc), Some(compiler)) => Ok(Bmv2 {
                simple_switch_grpc,
                compiler,
            }),
            (switch, compiler) => {
                let mut missing = Vec::new();
                if switch.is_none() {
                    missing.push("simple_switch_grpc (BMv2 built with P4Runtime)");
                }
                if compiler.is_none() {
                    missing.push("p4c-bm2-ss or p4c");
                }
                Err(TestbedError::Setup(format!(
                    "--switch bmv2 needs {} on PATH, and it is not there (p4/README.md says \
                     how BMv2 runs esa.p4; without BMv2, drop --switch to use the embedded \
                     esa-switch)",
                    missing.join(" and ")
                )))
            }
        }
    }

    /// Compiles `program` with `defines` into `dir` (`esa.json`,
    /// `esa.p4info.txtpb`) and loads the result as a pipeline.
    pub fn compile(
        &self,
        program: &Path,
        defines: &[(String, String)],
        dir: &Path,
    ) -> Result<Pipeline, TestbedError> {
        std::fs::create_dir_all(dir).map_err(|error| TestbedError::Io {
            path: dir.to_path_buf(),
            error,
        })?;
        let is_p4c = self.compiler.file_name().is_some_and(|n| n == "p4c");
        // p4c names its JSON after the program; p4c-bm2-ss writes `-o`.
        let json = if is_p4c {
            let stem = program.file_stem().unwrap_or_default().to_string_lossy();
            dir.join(format!("{stem}.json"))
        } else {
            dir.join("esa.json")
        };
        let p4info = dir.join("esa.p4info.txtpb");
        let mut command = Command::new(&self.compiler);
        if is_p4c {
            command.args(["--target", "bmv2"]);
        }
        command.args(["--arch", "v1model", "--std", "p4-16"]);
        for (name, value) in defines {
            command.arg(format!("-D{name}={value}"));
        }
        if is_p4c {
            command.arg("-o").arg(dir);
        } else {
            command.arg("-o").arg(&json);
        }
        command.arg("--p4runtime-files").arg(&p4info).arg(program);
        let shown = format!("{command:?}");
        let out = command
            .stdin(Stdio::null())
            .output()
            .map_err(|e| TestbedError::start(format!("running {shown}"), e))?;
        if !out.status.success() {
            return Err(TestbedError::Setup(format!(
                "compiling {} for BMv2 failed ({shown}):\n{}",
                program.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Pipeline::from_files(&json, &p4info)
            .map_err(|e| TestbedError::start("loading what p4c wrote", e))
    }

    /// Starts `simple_switch_grpc` with `ports` (`n@interface`), P4Runtime
    /// and its Thrift server on free loopback ports (Thrift's default,
    /// 9090, may belong to another BMv2) and no program (the controller
    /// pushes it); returns once P4Runtime accepts connections. Its output
    /// goes to `log`. BMv2 logs nothing (`-L off`): even with no log sink it
    /// formats every trace message, which makes it several times slower;
    /// `ESA_BMV2_LOG=debug` (or any BMv2 level) writes its log to `log`.
    pub fn start(
        &self,
        ports: &[(u32, String)],
        log: &Path,
        timeout: Duration,
    ) -> Result<SwitchProcess, TestbedError> {
        let addr = free_loopback_port()?;
        let log_file = std::fs::File::create(log).map_err(|error| TestbedError::Io {
            path: log.to_path_buf(),
            error,
        })?;
        let err_file = log_file.try_clone().map_err(|error| TestbedError::Io {
            path: log.to_path_buf(),
            error,
        })?;
        let thrift = free_loopback_port()?;
        let mut command = Command::new(&self.simple_switch_grpc);
        command.args(["--device-id", "0", "--no-p4"]);
        command.arg("--thrift-port").arg(thrift.port().to_string());
        match std::env::var("ESA_BMV2_LOG") {
            Ok(level) if !level.is_empty() => command.args(["--log-console", "-L", &level]),
            _ => command.args(["-L", "off"]),
        };
        for (port, interface) in ports {
            command.arg("-i").arg(format!("{port}@{interface}"));
        }
        command
            .arg("--")
            .arg("--grpc-server-addr")
            .arg(addr.to_string());
        let shown = format!("{command:?}");
        let child = command
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(err_file)
            .spawn()
            .map_err(|e| TestbedError::start(format!("starting {shown}"), e))?;
        let mut process = SwitchProcess {
            child,
            addr,
            log: log.to_path_buf(),
        };
        process.wait_ready(timeout, &shown)?;
        Ok(process)
    }
}

/// A loopback address with a port nobody listens on now.
fn free_loopback_port() -> Result<SocketAddr, TestbedError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| TestbedError::start("finding a free port for P4Runtime", e))?;
    listener
        .local_addr()
        .map_err(|e| TestbedError::start("finding a free port for P4Runtime", e))
}

/// A switch process the testbed started; killed on drop.
#[derive(Debug)]
pub struct SwitchProcess {
    child: Child,
    /// Its P4Runtime address.
    pub addr: SocketAddr,
    log: PathBuf,
}

impl SwitchProcess {
    fn wait_ready(&mut self, timeout: Duration, shown: &str) -> Result<(), TestbedError> {
        let end = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let log = std::fs::read_to_string(&self.log).unwrap_or_default();
                return Err(TestbedError::Setup(format!(
                    "{shown} exited ({status}) before serving P4Runtime; its output ({}):\n{}",
                    self.log.display(),
                    log.trim()
                )));
            }
            if TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if Instant::now() >= end {
                return Err(TestbedError::Setup(format!(
                    "{shown} did not serve P4Runtime on {} within {timeout:?} (its output is in {})",
                    self.addr,
                    self.log.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for SwitchProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A switch somebody else runs.
#[derive(Debug, Clone)]
pub struct ExternalSwitch {
    /// Its P4Runtime address (`host:port`).
    pub p4runtime: String,
    /// Its P4Runtime device id.
    pub device_id: u64,
    /// The hosts the experiment's workers and PSes run as.
    pub hosts: HostsFile,
    /// For a switch that does not take P4 source (BMv2, Tofino): the
    /// compiled device config and the P4Info. `None`: the P4 source
    /// (esa-switch).
    pub pipeline_files: Option<(PathBuf, PathBuf)>,
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
        let text = std::fs::read_to_string(path).map_err(|error| TestbedError::Io {
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

    #[test]
    fn fabrics_follow_the_switch() {
        let bmv2 = SwitchTarget::Bmv2(Bmv2 {
            simple_switch_grpc: "s".into(),
            compiler: "p4c".into(),
        });
        assert_eq!(resolve_fabric(&bmv2, None).unwrap(), Some(Fabric::Netns));
        assert!(resolve_fabric(&bmv2, Some(Fabric::InProcess)).is_err());
        assert_eq!(
            resolve_fabric(&SwitchTarget::Embedded, None).unwrap(),
            Some(Fabric::InProcess)
        );
        let external = SwitchTarget::External(ExternalSwitch {
            p4runtime: "127.0.0.1:9559".into(),
            device_id: 0,
            hosts: HostsFile {
                switch_ip: Ipv4Addr::new(10, 255, 255, 254),
                hosts: vec![],
            },
            pipeline_files: None,
        });
        assert_eq!(resolve_fabric(&external, None).unwrap(), None);
        let e = resolve_fabric(&external, Some(Fabric::Netns)).unwrap_err();
        assert!(e.to_string().contains("hosts file"), "{e}");
        assert_eq!("netns".parse::<Fabric>(), Ok(Fabric::Netns));
        assert!("veth".parse::<Fabric>().is_err());
    }
}
