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
        let mut args: Vec<String> = ["--device-id", "0", "--no-p4", "--thrift-port"]
            .map(String::from)
            .into();
        args.push(free_port()?.to_string());
        match std::env::var("ESA_BMV2_LOG") {
            Ok(level) if !level.is_empty() => {
                args.extend(["--log-console".into(), "-L".into(), level]);
            }
            _ => args.extend(["-L".into(), "off".into()]),
        };
        for (port, interface) in ports {
            args.push("-i".into());
            args.push(format!("{port}@{interface}"));
        }
        args.extend(["--".into(), "--grpc-server-addr".into(), addr.to_string()]);
        let log_file =
            std::fs::File::create(log).map_err(Error::io(format!("creating {}", log.display())))?;
        let program = self.simple_switch_grpc.clone();
        let (child, shown) = spawn(&program, &args, log_file, log)?;
        let mut process = SwitchProcess {
            child,
            addr,
            log: log.to_path_buf(),
            program,
            args,
        };
        process.wait_ready(timeout, shown)?;
        Ok(process)
    }
}

/// Starts `program` with `args`, its output to `log_file` (at `log`).
fn spawn(
    program: &Path,
    args: &[String],
    log_file: std::fs::File,
    log: &Path,
) -> Result<(Child, String), Error> {
    let err_file = log_file
        .try_clone()
        .map_err(Error::io(format!("opening {}", log.display())))?;
    let mut command = Command::new(program);
    command.args(args);
    let shown = format!("{command:?}");
    let child = command
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(err_file)
        .spawn()
        .map_err(Error::io(format!("starting {shown}")))?;
    Ok((child, shown))
}

/// A `simple_switch_grpc` process; killed on drop.
#[derive(Debug)]
pub struct SwitchProcess {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
    /// What started it, for a restart.
    program: PathBuf,
    args: Vec<String>,
}

impl SwitchProcess {
    /// Its P4Runtime address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Kills the switch (SIGKILL: a crash; its program and entries are
    /// gone), waits `down`, and starts it again with the same ports and
    /// P4Runtime address and no program; returns once P4Runtime accepts
    /// connections. Its output is appended to the same log.
    pub fn restart_after(&mut self, down: Duration, timeout: Duration) -> Result<(), Error> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(down);
        let log_file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&self.log)
            .map_err(Error::io(format!("opening {}", self.log.display())))?;
        let (child, shown) = spawn(&self.program, &self.args, log_file, &self.log)?;
        self.child = child;
        self.wait_ready(timeout, shown)
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
