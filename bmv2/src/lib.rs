//! esa-bmv2: the reference P4 tools, driven from Rust.
//!
//! p4c's BMv2 back end (`p4c-bm2-ss`) and BMv2's `simple_switch` are the
//! reference compiler and emulator every other target of ESA is checked
//! against. This crate finds them, compiles programs with them, runs an
//! `simple_switch` whose ports are one nanomsg socket (so packets enter in
//! exactly the order they are sent, with no root and no interfaces), programs
//! it through BMv2's runtime CLI over Thrift, and runs STF tests on it with the
//! same comparison as p4sim's runner. It also starts the `simple_switch_grpc`
//! that `esa run --switch bmv2` runs experiments on.
//!
//! Layout:
//! - [`Tools`]: where the binaries are (`ESA_BMV2_DIR/bin`, then `PATH`).
//! - [`mod@compile`]: `p4c-bm2-ss` (or the `p4c` driver) to BMv2 JSON and
//!   P4Info, with its warnings.
//! - [`nanomsg`]: the client end of BMv2's `--packet-in` PAIR socket.
//! - [`switch`]: a `simple_switch` process and its packet pipe.
//! - [`grpc_switch`]: a `simple_switch_grpc` process serving P4Runtime on
//!   Linux interfaces, and the tools it takes ([`GrpcTools`]), as
//!   `esa run --switch bmv2` starts it.
//! - [`cli`]: `simple_switch_CLI` commands and their answers.
//! - [`program`]: table and action layouts read from the BMv2 JSON.
//! - [`stf`]: STF tests on BMv2.

use std::path::{Path, PathBuf};

pub mod cli;
pub mod compile;
pub mod grpc_switch;
pub mod nanomsg;
pub mod program;
pub mod stf;
pub mod switch;

pub use compile::{Compiled, Warning, compile, compile_with};
pub use grpc_switch::{GrpcTools, SwitchProcess};
pub use switch::SimpleSwitch;

/// What can go wrong driving the reference tools.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A tool is not installed where we look.
    #[error("{tool} not found ({hint})")]
    Missing {
        /// The binary or module.
        tool: String,
        /// Where we looked and how to get it.
        hint: String,
    },
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// p4c rejected the program.
    #[error("compiling {} for BMv2 failed ({command}):\n{stderr}", program.display())]
    Compile {
        /// The program.
        program: PathBuf,
        /// The command as run.
        command: String,
        /// What p4c printed.
        stderr: String,
    },
    /// `simple_switch_grpc` exited before it served P4Runtime.
    #[error(
        "{command} exited ({status}) before serving P4Runtime; its output ({}):\n{output}",
        log.display()
    )]
    Exited {
        /// The command as run.
        command: String,
        /// How it ended.
        status: std::process::ExitStatus,
        /// Where its output went.
        log: PathBuf,
        /// Its output.
        output: String,
    },
    /// `simple_switch_grpc` did not serve P4Runtime in time.
    #[error(
        "{command} did not serve P4Runtime on {addr} within {timeout:?} (its output is in {})",
        log.display()
    )]
    NotServing {
        /// The command as run.
        command: String,
        /// Its P4Runtime address.
        addr: std::net::SocketAddr,
        /// How long it was given.
        timeout: std::time::Duration,
        /// Where its output goes.
        log: PathBuf,
    },
    /// The switch process ended or misbehaved.
    #[error("simple_switch: {0}")]
    Switch(String),
    /// The runtime CLI refused a command.
    #[error("simple_switch_CLI: `{command}`: {answer}")]
    Cli {
        /// The command sent.
        command: String,
        /// What the CLI answered.
        answer: String,
    },
    /// The BMv2 JSON does not say what we need, or an STF command cannot be
    /// expressed on BMv2.
    #[error("{0}")]
    Program(String),
    /// Waiting for the switch took longer than allowed.
    #[error("timed out after {seconds:.1} s waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long.
        seconds: f64,
    },
}

impl Error {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let what = what.into();
        move |source| Error::Io { what, source }
    }
}

/// The reference tools' locations.
#[derive(Debug, Clone)]
pub struct Tools {
    /// `p4c-bm2-ss`.
    pub p4c: PathBuf,
    /// `simple_switch`.
    pub simple_switch: PathBuf,
    /// `simple_switch_grpc`, if installed.
    pub simple_switch_grpc: Option<PathBuf>,
    /// `simple_switch_CLI`, if installed.
    pub cli: Option<PathBuf>,
    /// The Python that runs `simple_switch_CLI` (`ESA_BMV2_PYTHON`, else
    /// `python3`); it needs the `thrift` package.
    pub python: PathBuf,
}

/// The environment variable naming a BMv2/p4c install (its `bin/` is
/// searched before `PATH`).
pub const DIR_VAR: &str = "ESA_BMV2_DIR";
/// Set to 1 (as CI does) to make tests fail, not skip, when BMv2 is missing.
pub const REQUIRED_VAR: &str = "ESA_BMV2_REQUIRED";

fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![];
    if let Some(dir) = std::env::var_os(DIR_VAR) {
        dirs.push(PathBuf::from(dir).join("bin"));
    }
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs
}

/// Finds `name` in `ESA_BMV2_DIR/bin` or on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    search_dirs()
        .into_iter()
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

impl Tools {
    /// Finds `p4c-bm2-ss` and `simple_switch` (required) and the optional
    /// tools.
    pub fn find() -> Result<Tools, Error> {
        let hint = format!(
            "looked in ${DIR_VAR}/bin and PATH; install p4c and BMv2 (p4/README.md says which \
             versions we test with)"
        );
        let need = |name: &str| {
            which(name).ok_or_else(|| Error::Missing {
                tool: name.into(),
                hint: hint.clone(),
            })
        };
        Ok(Tools {
            p4c: need("p4c-bm2-ss")?,
            simple_switch: need("simple_switch")?,
            simple_switch_grpc: which("simple_switch_grpc"),
            cli: which("simple_switch_CLI"),
            python: std::env::var_os("ESA_BMV2_PYTHON")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("python3")),
        })
    }

    /// [`Tools::find`] plus a check that the runtime CLI can run (it is a
    /// Python program that needs the `thrift` package).
    pub fn find_with_cli() -> Result<Tools, Error> {
        let tools = Tools::find()?;
        let cli = tools.cli.as_ref().ok_or_else(|| Error::Missing {
            tool: "simple_switch_CLI".into(),
            hint: "it comes with BMv2".into(),
        })?;
        let ok = std::process::Command::new(&tools.python)
            .args(["-c", "import thrift"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(Error::Missing {
                tool: format!("the Python package `thrift` for {}", cli.display()),
                hint: format!(
                    "`{} -m pip install thrift`, or point ESA_BMV2_PYTHON at a Python that has it",
                    tools.python.display()
                ),
            });
        }
        Ok(tools)
    }

    /// For tests: the tools, or `None` after printing why the test is
    /// skipped. When `ESA_BMV2_REQUIRED=1` a missing tool fails the test
    /// instead, so CI never passes by skipping.
    pub fn for_test(test: &str, with_cli: bool) -> Option<Tools> {
        let found = if with_cli {
            Tools::find_with_cli()
        } else {
            Tools::find()
        };
        match found {
            Ok(tools) => Some(tools),
            Err(e) if std::env::var(REQUIRED_VAR).is_ok_and(|v| v == "1") => {
                panic!("{test}: BMv2 is required here ({REQUIRED_VAR}=1) but: {e}")
            }
            Err(e) => {
                eprintln!("SKIPPED {test}: {e}");
                None
            }
        }
    }
}
