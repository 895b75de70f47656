//! `esa worker` and `esa ps`: their flags (the config sections of
//! `esa_host::config`, each key also a flag, through esa-host's `cli`
//! feature), turned into the commands esa-host runs.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Result, bail};
use esa_host::cli::{PsCommand, WorkerCommand};
use esa_host::config::{PsJobSection, PsSection, TrainSection, WorkerSection};

/// Flags of `esa worker`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct WorkerArgs {
    /// TOML file with `[worker]` and `[train]` sections; flags override it.
    #[arg(long, short)]
    config: Option<PathBuf>,
    #[command(flatten)]
    worker: WorkerSection,
    #[command(flatten)]
    train: TrainSection,
    /// Attach to switch port N carried over UDP at HOST:PORT (`esa local`,
    /// `esa switch -u`) and send as host N of a generated topology
    /// (esa_host::addressing) instead of from a kernel UDP socket at
    /// --bind; --switch is then not needed.
    #[arg(long = "udp-port", value_name = "N@HOST:PORT", value_parser = parse_udp_port)]
    udp_port: Option<(u16, SocketAddr)>,
}

impl WorkerArgs {
    fn command(&self) -> WorkerCommand {
        WorkerCommand {
            config: self.config.clone(),
            worker: self.worker.clone(),
            train: self.train.clone(),
            udp_port: self.udp_port,
        }
    }
}

/// Flags of `esa ps`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PsArgs {
    /// TOML file with a `[ps]` section and `[[ps.job]]` tables; flags
    /// override it.
    #[arg(long, short)]
    config: Option<PathBuf>,
    #[command(flatten)]
    ps: PsSection,
    /// A job to serve, `ID:FAN_IN[:MODE]` (repeatable; replaces the file's).
    #[arg(long = "job", value_name = "ID:FAN_IN[:MODE]")]
    jobs: Vec<PsJobSection>,
    /// Attach to switch port N carried over UDP at HOST:PORT instead of a
    /// kernel UDP socket (as `esa worker --udp-port`).
    #[arg(long = "udp-port", value_name = "N@HOST:PORT", value_parser = parse_udp_port)]
    udp_port: Option<(u16, SocketAddr)>,
}

impl PsArgs {
    fn command(&self) -> PsCommand {
        let mut ps = self.ps.clone();
        ps.jobs = self.jobs.clone();
        PsCommand {
            config: self.config.clone(),
            ps,
            udp_port: self.udp_port,
        }
    }
}

/// `N@HOST:PORT`.
fn parse_udp_port(s: &str) -> Result<(u16, SocketAddr), String> {
    let (n, addr) = s
        .split_once('@')
        .ok_or_else(|| format!("`{s}` is not N@HOST:PORT"))?;
    let n: u16 = n
        .parse()
        .map_err(|_| format!("`{n}` is not a port number"))?;
    let addr = std::net::ToSocketAddrs::to_socket_addrs(addr)
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| format!("`{addr}` is not HOST:PORT"))?;
    Ok((n, addr))
}

/// Runs `esa worker`; a wrong result (which the runtime never returns
/// knowingly) makes the exit status non-zero.
pub(crate) fn run_worker(args: &WorkerArgs) -> Result<()> {
    let summary = esa_host::cli::run_worker(&args.command(), super::shutdown::flag())?;
    if summary.wrong > 0 {
        bail!(
            "{} iterations returned a result that is not the exact sum",
            summary.wrong
        );
    }
    Ok(())
}

/// Runs `esa ps` until SIGINT / SIGTERM or its duration limit.
pub(crate) fn run_ps(args: &PsArgs) -> Result<()> {
    Ok(esa_host::cli::run_ps(
        &args.command(),
        super::shutdown::flag(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    enum Cmd {
        Worker(WorkerArgs),
        Ps(PsArgs),
    }

    #[test]
    fn worker_flags_fill_the_sections_they_override() {
        let Cmd::Worker(args) = Cmd::parse_from([
            "esa",
            "worker",
            "--config",
            "w.toml",
            "--worker-id",
            "1",
            "--bind",
            "127.0.0.1:9",
            "--policy",
            "static:7",
            "--exponent",
            "-3",
            "--iterations",
            "4",
            "--udp-port",
            "3@127.0.0.1:9003",
        ]) else {
            unreachable!()
        };
        let c = args.command();
        assert_eq!(c.config, Some(PathBuf::from("w.toml")));
        assert_eq!(
            (
                c.worker.worker_id,
                c.worker.bind.as_deref(),
                c.worker.policy.as_deref()
            ),
            (Some(1), Some("127.0.0.1:9"), Some("static:7"))
        );
        assert_eq!((c.worker.exponent, c.train.iterations), (Some(-3), Some(4)));
        assert_eq!(c.worker.job, None, "an absent flag overrides nothing");
        assert_eq!(c.udp_port, Some((3, "127.0.0.1:9003".parse().unwrap())));
    }

    #[test]
    fn ps_job_flags_replace_the_sections_jobs() {
        let Cmd::Ps(args) = Cmd::parse_from([
            "esa", "ps", "--job", "2:4", "--job", "3:2:atp", "--lanes", "16",
        ]) else {
            unreachable!()
        };
        let c = args.command();
        assert_eq!(c.ps.lanes, Some(16));
        assert_eq!(
            c.ps.jobs,
            vec![
                "2:4".parse().unwrap(),
                "3:2:atp".parse::<PsJobSection>().unwrap()
            ]
        );
        for bad in ["3", "x@1.2.3.4:5", "3@nowhere"] {
            assert!(parse_udp_port(bad).is_err(), "{bad}");
        }
    }
}
