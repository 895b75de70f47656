//! The `esa worker` and `esa ps` commands: configuration from a file and
//! its overrides (the `esa` binary's flags, turned into config sections),
//! a UDP transport, and progress on standard output.

use crate::addressing::switch_addr;
use crate::config::{ConfigFile, PsSection, TrainSection, WorkerSection};
use crate::error::HostError;
use crate::ps::ParameterServer;
use crate::transport::{SwitchPortTransport, Transport, UdpFrameLink, UdpTransport, attach_host};
use crate::worker::Worker;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What `esa worker` runs: a TOML file's `[worker]` and `[train]`
/// sections, overridden by values given on the command line.
#[derive(Debug, Clone, Default)]
pub struct WorkerCommand {
    /// TOML file with `[worker]` and `[train]` sections.
    pub config: Option<PathBuf>,
    /// Overrides of `[worker]`.
    pub worker: WorkerSection,
    /// Overrides of `[train]`.
    pub train: TrainSection,
    /// Attach to switch port N carried over UDP at this address (`esa
    /// local`, `esa switch -u`) and send as host N of a generated topology
    /// ([`crate::addressing`]) instead of from a kernel UDP socket;
    /// `switch` is then not needed.
    pub udp_port: Option<(u16, SocketAddr)>,
}

/// A link to switch port `n` at `addr`, sending as host `n`.
fn port_link(
    n: u16,
    addr: SocketAddr,
    lanes: usize,
) -> Result<SwitchPortTransport<UdpFrameLink>, HostError> {
    attach_host(n, addr, lanes)
        .map_err(|source| crate::TransportError::Bind { addr, source }.into())
}

/// What `esa ps` runs: a TOML file's `[ps]` section and `[[ps.job]]`
/// tables, overridden by values given on the command line (jobs given
/// there replace the file's).
#[derive(Debug, Clone, Default)]
pub struct PsCommand {
    /// TOML file with a `[ps]` section and `[[ps.job]]` tables.
    pub config: Option<PathBuf>,
    /// Overrides of `[ps]`; its `jobs`, when any, replace the file's.
    pub ps: PsSection,
    /// Attach to switch port N carried over UDP at this address instead of
    /// a kernel UDP socket (as [`WorkerCommand::udp_port`]).
    pub udp_port: Option<(u16, SocketAddr)>,
}

use esa_core::synthetic::gradient_value;

/// What `esa worker` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrainSummary {
    /// Iterations completed.
    pub iterations: u32,
    /// Iterations whose result differed from the exact sum (always 0
    /// unless something is broken).
    pub wrong: u32,
    /// Whether a signal ended the run early.
    pub interrupted: bool,
}

/// Runs `esa worker`; it stops early when `stop` is raised.
pub fn run_worker(args: &WorkerCommand, stop: Arc<AtomicBool>) -> Result<TrainSummary, HostError> {
    let file = match &args.config {
        Some(path) => ConfigFile::load(path)?,
        None => ConfigFile::default(),
    };
    let mut worker_cfg = file.worker.unwrap_or_default().overlay(&args.worker);
    if args.udp_port.is_some() && worker_cfg.switch.is_none() {
        worker_cfg.switch = Some(switch_addr().to_string());
    }
    let mut settings = worker_cfg.resolve()?;
    let train = file
        .train
        .unwrap_or_default()
        .overlay(&args.train)
        .resolve()?;
    match args.udp_port {
        Some((n, addr)) => {
            settings.options.switch = switch_addr();
            let transport = port_link(n, addr, settings.options.core.lanes)?;
            run_training(settings, train, transport, Arc::clone(&stop))
        }
        None => {
            let transport = UdpTransport::bind(settings.bind)?;
            run_training(settings, train, transport, Arc::clone(&stop))
        }
    }
}

fn run_training<T: Transport>(
    settings: crate::config::WorkerSettings,
    train: crate::config::TrainSettings,
    transport: T,
    stop: Arc<AtomicBool>,
) -> Result<TrainSummary, HostError> {
    let core = settings.options.core.clone();
    let average = settings.options.average;
    let switch = settings.options.switch;
    let mut worker = Worker::new(settings.options, transport)?;
    worker.set_shutdown_flag(Arc::clone(&stop));
    println!(
        "esa worker: job {} worker {}/{} on {} -> switch {}; {} iterations of {} elements, \
         lanes {}, window {}, policy {}",
        core.job,
        core.worker_id,
        core.fan_in,
        worker.local_addr(),
        switch,
        train.iterations,
        train.elements,
        core.lanes,
        core.window,
        core.policy
    );
    let started = Instant::now();
    let mut summary = TrainSummary::default();
    let mut data = vec![0f32; train.elements];
    let (mut bytes, mut resends, mut from_switch, mut from_ps) = (0u64, 0u64, 0u64, 0u64);
    for iteration in 0..train.iterations {
        if train.duration.is_some_and(|d| started.elapsed() >= d) {
            println!("duration limit reached");
            break;
        }
        for (i, x) in data.iter_mut().enumerate() {
            *x = gradient_value(train.seed, core.job, core.worker_id, iteration, i);
        }
        // Summed in `data` itself, not in a copy.
        let stats = match worker.allreduce_owned(std::mem::take(&mut data)) {
            Ok((sum, s)) => {
                data = sum;
                s
            }
            Err(HostError::Interrupted) => {
                println!("interrupted during iteration {iteration}");
                summary.interrupted = true;
                break;
            }
            Err(e) => return Err(e),
        };
        let verified = if train.verify {
            let exact = (0..train.elements).all(|i| {
                let sum: f32 = (0..core.fan_in)
                    .map(|w| gradient_value(train.seed, core.job, w, iteration, i))
                    .sum();
                let want = if average {
                    sum / f32::from(core.fan_in)
                } else {
                    sum
                };
                data[i] == want
            });
            if !exact {
                summary.wrong += 1;
            }
            if exact { "exact" } else { "WRONG" }
        } else {
            "unchecked"
        };
        summary.iterations += 1;
        bytes += (train.elements * 4) as u64;
        resends += stats.resends;
        from_switch += stats.results_from_switch;
        from_ps += stats.results_from_ps;
        println!(
            "iter {:>4}/{}: {:>9.3} ms, {:>8.1} MB/s, seq {}+{}, {} resends, in-switch {} / PS {} chunks, {verified}",
            iteration + 1,
            train.iterations,
            stats.elapsed.as_secs_f64() * 1e3,
            stats.goodput_bytes_per_s() / 1e6,
            stats.seq_base,
            stats.chunks,
            stats.resends,
            stats.results_from_switch,
            stats.results_from_ps,
        );
    }
    if !summary.interrupted && !train.linger.is_zero() {
        worker.serve_queries(train.linger)?;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "summary: {} iterations in {:.3} s, {:.1} MB/s, {} resends, {} chunks in the switch, \
         {} at the PS, {} invalid packets, {} wrong results",
        summary.iterations,
        secs,
        bytes as f64 / secs.max(1e-9) / 1e6,
        resends,
        from_switch,
        from_ps,
        worker.stats().invalid_packets,
        summary.wrong
    );
    Ok(summary)
}

/// Runs `esa ps` until `stop` is raised or its duration limit.
pub fn run_ps(args: &PsCommand, stop: Arc<AtomicBool>) -> Result<(), HostError> {
    let file = match &args.config {
        Some(path) => ConfigFile::load(path)?,
        None => ConfigFile::default(),
    };
    let mut section = file.ps.unwrap_or_default().overlay(&args.ps);
    if args.udp_port.is_some() && section.switch.is_none() {
        section.switch = Some(switch_addr().to_string());
    }
    let mut settings = section.resolve()?;
    match args.udp_port {
        Some((n, addr)) => {
            settings.switch = switch_addr();
            let transport = port_link(n, addr, settings.config.lanes)?;
            serve(settings, transport, Arc::clone(&stop))
        }
        None => {
            let transport = UdpTransport::bind(settings.bind)?;
            serve(settings, transport, Arc::clone(&stop))
        }
    }
}

fn serve<T: Transport>(
    settings: crate::config::PsSettings,
    transport: T,
    stop: Arc<AtomicBool>,
) -> Result<(), HostError> {
    let mut ps = ParameterServer::new(settings.config.clone(), settings.switch, transport)?;
    for j in &settings.jobs {
        ps.add_job(j.job, j.fan_in, j.options)?;
    }
    println!(
        "esa ps: on {} -> switch {}; jobs {}",
        ps.local_addr(),
        settings.switch,
        settings
            .jobs
            .iter()
            .map(|j| format!(
                "{} (fan-in {}{})",
                j.job,
                j.fan_in,
                if j.options.forward_results {
                    ", atp"
                } else {
                    ""
                }
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let started = Instant::now();
    let mut next_report = settings.report_interval.map(|d| started + d);
    while !stop.load(Ordering::Relaxed) {
        if settings.duration.is_some_and(|d| started.elapsed() >= d) {
            break;
        }
        ps.step(Duration::from_millis(50))?;
        if let Some(at) = next_report
            && Instant::now() >= at
        {
            report_ps(&ps, &settings.jobs);
            next_report = settings.report_interval.map(|d| at + d);
        }
    }
    println!(
        "esa ps: stopping after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    report_ps(&ps, &settings.jobs);
    Ok(())
}

fn report_ps<T: Transport>(ps: &ParameterServer<T>, jobs: &[crate::config::PsJob]) {
    for j in jobs {
        if let Some(v) = ps.fallback_volume(j.job) {
            println!(
                "  job {:>4}: {} parts ({} fallback, {} evicted, {} flush), {} bytes, \
                 {} chunks completed, {} results resent, {} queries",
                v.job,
                v.parts,
                v.fallback_parts,
                v.evicted_parts,
                v.flush_parts,
                v.bytes,
                v.chunks_completed,
                v.results_resent,
                v.queries_sent
            );
        }
    }
}
