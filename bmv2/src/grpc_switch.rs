//! `simple_switch_grpc`: BMv2 serving P4Runtime, its ports Linux
//! interfaces, started with no program (a controller pushes it), as
//! `esa run --switch bmv2` starts one per variant; and the tools that takes,
//! found together ([`GrpcTools`]).

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::compile::{Compiled, compile_with};
use crate::switch::free_port;
use crate::{DIR_VAR, Error, which};

/// `simple_switch_grpc` and a compiler for it.
#[derive(Debug, Clone)]
pub struct GrpcTools {
    /// `simple_switch_grpc`.
    pub simple_switch_grpc: PathBuf,
    /// `p4c-bm2-ss`, else the `p4c` driver.
    pub compiler: PathBuf,
}

impl GrpcTools {
    /// Finds `simple_switch_grpc` and `p4c-bm2-ss` (or `p4c`) in
    /// `$ESA_BMV2_DIR/bin` or on `PATH`; [`Error::Missing`] names every one
    /// that is not there.
    pub fn find() -> Result<GrpcTools, Error> {
        let switch = which("simple_switch_grpc");
        let compiler = which("p4c-bm2-ss").or_else(|| which("p4c"));
        match (switch, compiler) {
            (Some(simple_switch_grpc), Some(compiler)) => Ok(GrpcTools {
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
                Err(Error::Missing {
                    tool: missing.join(" and "),
                    hint: format!("looked in ${DIR_VAR}/bin and PATH"),
                })
            }
        }
    }

    /// Compiles `program` with `defines` into `dir` (`<stem>.json`,
    /// `<stem>.p4info.txtpb`).
    pub fn compile(
        &self,
        program: &Path,
        defines: &[(String, String)],
        dir: &Path,
    ) -> Result<Compiled, Error> {
        compile_with(&self.compiler, program, &[], defines, dir)
    }

    /// Starts `simple_switch_grpc` with `ports` (`n@interface`), P4Runtime
    /// and its Thrift server on free loopback ports (Thrift's default,
    /// 9090, may belong to another BMv2) and no program; returns once
    /// P4Runtime accepts connections. Its output goes to `log`. BMv2 logs
    /// nothing (`-L off`): even with no log sink it formats every trace
    /// message, which makes it several times slower; `ESA_BMV2_LOG=debug`
    /// (or any BMv2 level) writes its log to `log`.
    pub fn start(
        &self,
        ports: &[(u32, String)],
        log: &Path,
        timeout: Duration,
    ) -> Result<SwitchProcess, Error> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, free_port()?));
        let log_file =
            std::fs::File::create(log).map_err(Error::io(format!("creating {}", log.display())))?;
        let err_file = log_file
            .try_clone()
            .map_err(Error::io(format!("opening {}", log.display())))?;
        let mut command = Command::new(&self.simple_switch_grpc);
        command.args(["--device-id", "0", "--no-p4"]);
        command.arg("--thrift-port").arg(free_port()?.to_string());
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
            .map_err(Error::io(format!("starting {shown}")))?;
        let mut process = SwitchProcess {
            child,
            addr,
            log: log.to_path_buf(),
        };
        process.wait_ready(timeout, shown)?;
        Ok(process)
    }
}

/// A `simple_switch_grpc` process; killed on drop.
#[derive(Debug)]
pub struct SwitchProcess {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl SwitchProcess {
    /// Its P4Runtime address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    fn wait_ready(&mut self, timeout: Duration, command: String) -> Result<(), Error> {
        let end = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let output = std::fs::read_to_string(&self.log).unwrap_or_default();
                return Err(Error::Exited {
                    command,
                    status,
                    log: self.log.clone(),
                    output: output.trim().to_owned(),
                });
            }
            if TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if Instant::now() >= end {
                return Err(Error::NotServing {
                    command,
                    addr: self.addr,
                    timeout,
                    log: self.log.clone(),
                });
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
