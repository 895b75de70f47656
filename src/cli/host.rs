//! `esa worker` and `esa ps`: their flags (every key of the config
//! sections of `esa_host::config` is also a flag), turned into the commands
//! esa-host runs.

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
    worker: WorkerFlags,
    #[command(flatten)]
    train: TrainFlags,
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
            worker: self.worker.clone().into(),
            train: self.train.clone().into(),
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
    ps: PsFlags,
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
        let mut ps = PsSection::from(self.ps.clone());
        ps.jobs = self.jobs.clone();
        PsCommand {
            config: self.config.clone(),
            ps,
            udp_port: self.udp_port,
        }
    }
}

/// `[worker]`'s keys as flags of `esa worker`.
#[derive(Debug, Clone, Default, clap::Args)]
struct WorkerFlags {
    /// Switch address, host:port (port 17747 if omitted).
    #[arg(long)]
    switch: Option<String>,
    /// Local address to bind [default: 0.0.0.0:17747].
    #[arg(long)]
    bind: Option<String>,
    /// Job id, 1..=4095.
    #[arg(long)]
    job: Option<u16>,
    /// This worker's id, below the fan-in.
    #[arg(long)]
    worker_id: Option<u8>,
    /// Workers in the job, 1..=32.
    #[arg(long)]
    fan_in: Option<u8>,
    /// int32 lanes per packet [default: 32].
    #[arg(long)]
    lanes: Option<usize>,
    /// Chunks in flight [default: 64].
    #[arg(long)]
    window: Option<usize>,
    /// Quantization exponent [default: 16].
    #[arg(long, allow_hyphen_values = true)]
    exponent: Option<i8>,
    /// Retransmission timeout before a round trip is measured, µs
    /// [default: 1000].
    #[arg(long)]
    rto_initial_us: Option<u64>,
    /// Floor of the measured retransmission timeout, µs [default:
    /// rto_initial_us].
    #[arg(long)]
    rto_min_us: Option<u64>,
    /// Largest retransmission timeout, µs [default: 64000].
    #[arg(long)]
    rto_max_us: Option<u64>,
    /// Resends of a chunk before failing [default: 50].
    #[arg(long)]
    max_retries: Option<u32>,
    /// Results kept to answer QUERYs [default: 4 × window].
    #[arg(long)]
    result_cache: Option<usize>,
    /// Priority policy: fcfs, static:N, srpt or las [default: fcfs].
    #[arg(long)]
    policy: Option<String>,
    /// Aging period of srpt and las, µs; 0 disables aging [default: 50000].
    #[arg(long)]
    aging_interval_us: Option<u64>,
    /// The job's mode in the switch: esa, atp or switchml [default: esa].
    #[arg(long)]
    mode: Option<String>,
    /// The job's slot range is 0..=slot_mask [default: 4095].
    #[arg(long)]
    slot_mask: Option<u16>,
    /// Return the mean instead of the sum [default: false].
    #[arg(long)]
    average: Option<bool>,
    /// Seq to (re)join a running job at: the `seq_base` of the all-reduce to
    /// redo, the same on every worker (`WorkerConfig::first_seq`)
    /// [default: 0].
    #[arg(long)]
    start_seq: Option<u16>,
    /// Chunks the job sends in all, for srpt.
    #[arg(long)]
    chunks_total: Option<u64>,
}

/// `[train]`'s keys as flags of `esa worker`.
#[derive(Debug, Clone, Default, clap::Args)]
struct TrainFlags {
    /// All-reduces to run [default: 10].
    #[arg(long)]
    iterations: Option<u32>,
    /// float32 elements per gradient [default: 262144].
    #[arg(long)]
    elements: Option<usize>,
    /// Seed of the synthetic gradients, the same on every worker [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Check every result against the exact sum [default: true].
    #[arg(long)]
    verify: Option<bool>,
    /// Keep answering peers' QUERYs this long after the last iteration, ms
    /// [default: 1000].
    #[arg(long)]
    linger_ms: Option<u64>,
    /// Stop starting iterations after this many seconds.
    #[arg(long)]
    duration_s: Option<u64>,
}

/// `[ps]`'s keys as flags of `esa ps` (its jobs are `--job`).
#[derive(Debug, Clone, Default, clap::Args)]
struct PsFlags {
    /// Switch address, host:port (port 17747 if omitted).
    #[arg(long)]
    switch: Option<String>,
    /// Local address to bind [default: 0.0.0.0:17747].
    #[arg(long)]
    bind: Option<String>,
    /// int32 lanes per packet [default: 32].
    #[arg(long)]
    lanes: Option<usize>,
    /// Results cached per job [default: 4096].
    #[arg(long)]
    result_cache: Option<usize>,
    /// At most one QUERY per chunk per this many µs [default: 1000].
    #[arg(long)]
    query_interval_us: Option<u64>,
    /// Parts stored per chunk [default: 64].
    #[arg(long)]
    max_parts_per_chunk: Option<usize>,
    /// Incomplete chunks kept per job [default: 4096].
    #[arg(long)]
    max_pending_chunks: Option<usize>,
    /// Print per-job fallback volume this often, ms; 0 = only at exit
    /// [default: 1000].
    #[arg(long)]
    report_interval_ms: Option<u64>,
    /// Exit after this many seconds.
    #[arg(long)]
    duration_s: Option<u64>,
}

impl From<WorkerFlags> for WorkerSection {
    fn from(flags: WorkerFlags) -> WorkerSection {
        WorkerSection {
            switch: flags.switch,
            bind: flags.bind,
            job: flags.job,
            worker_id: flags.worker_id,
            fan_in: flags.fan_in,
            lanes: flags.lanes,
            window: flags.window,
            exponent: flags.exponent,
            rto_initial_us: flags.rto_initial_us,
            rto_min_us: flags.rto_min_us,
            rto_max_us: flags.rto_max_us,
            max_retries: flags.max_retries,
            result_cache: flags.result_cache,
            policy: flags.policy,
            aging_interval_us: flags.aging_interval_us,
            mode: flags.mode,
            slot_mask: flags.slot_mask,
            average: flags.average,
            start_seq: flags.start_seq,
            chunks_total: flags.chunks_total,
        }
    }
}

impl From<TrainFlags> for TrainSection {
    fn from(flags: TrainFlags) -> TrainSection {
        TrainSection {
            iterations: flags.iterations,
            elements: flags.elements,
            seed: flags.seed,
            verify: flags.verify,
            linger_ms: flags.linger_ms,
            duration_s: flags.duration_s,
        }
    }
}

impl From<PsFlags> for PsSection {
    fn from(flags: PsFlags) -> PsSection {
        PsSection {
            switch: flags.switch,
            bind: flags.bind,
            lanes: flags.lanes,
            result_cache: flags.result_cache,
            query_interval_us: flags.query_interval_us,
            max_parts_per_chunk: flags.max_parts_per_chunk,
            max_pending_chunks: flags.max_pending_chunks,
            report_interval_ms: flags.report_interval_ms,
            duration_s: flags.duration_s,
            jobs: Vec::new(),
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
