//! `esa run`: a multi-job experiment on the chosen switch and fabric.

use p4runtime_proto::security::{ClientSecurity, ServerIdentity};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use anyhow::{Result, bail};
use clap::ValueEnum;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use esa_host::transport::TransportChoice;
use esa_testbed::experiment::FabricKind;
use esa_testbed::{Bmv2Target, EmbeddedTarget, ExternalTarget, HostsFile, SwitchTarget};

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The experiment file, e.g. testbed/experiments/quick.toml.
    experiment: std::path::PathBuf,
    /// Write report.json, report.md and the SVG plots here.
    #[arg(long, value_name = "DIR")]
    out: Option<std::path::PathBuf>,
    /// No progress (bars on a terminal, lines otherwise) on stderr.
    #[arg(long)]
    quiet: bool,
    /// Where the hosts run: `inprocess` (threads on in-memory switch
    /// ports), `netns` (a network namespace per host on kernel UDP, veth
    /// pairs to the switch; needs root) or `sim` (virtual time: the pool
    /// model, links with bandwidth, real model sizes by default; the
    /// file's [fabric] sets its parameters). Default: the file's `[fabric]
    /// kind`, else inprocess, or netns with `--switch bmv2`.
    #[arg(long, value_parser = fabric_kinds())]
    fabric: Option<FabricKind>,
    /// The hosts' transport on the netns fabric, in place of the file's
    /// `[fabric] transport`: `udp` (kernel UDP sockets), `xdp` (an AF_XDP
    /// socket on each host's interface; an error where it cannot be set
    /// up) or `auto` (AF_XDP, else kernel UDP, with the reason logged).
    #[arg(long)]
    transport: Option<TransportChoice>,
    /// The switch: `embedded` (esa-switch in process), `bmv2`
    /// (simple_switch_grpc and p4c from PATH, on the netns fabric) or
    /// `external` (a running switch at --p4runtime, hosts from --hosts).
    #[arg(long = "switch", value_enum, default_value_t = SwitchArg::Embedded)]
    switch: SwitchArg,
    /// The data plane, in place of the file's `[switch] arch`: `v1model`
    /// (p4/v1model/esa.p4) or `tna` (p4/tna/esa.p4, the Tofino program,
    /// which the embedded switch runs in p4sim's TNA architecture).
    #[arg(long, value_enum)]
    arch: Option<ArchArg>,
    /// External switch: its P4Runtime address.
    #[arg(long, value_name = "HOST:PORT")]
    p4runtime: Option<String>,
    /// External switch: its P4Runtime device id.
    #[arg(long, default_value_t = 0)]
    device_id: u64,
    /// External switch: reach its P4Runtime server over TLS, verified
    /// with this CA certificate (PEM; `esa certs` writes ca.pem).
    #[arg(long, value_name = "PEM")]
    p4runtime_tls_ca: Option<std::path::PathBuf>,
    /// External switch: present this client certificate (PEM) to a switch
    /// started with --tls-client-ca (`esa certs --client NAME`).
    #[arg(long, value_name = "PEM", requires_all = ["p4runtime_tls_key", "p4runtime_tls_ca"])]
    p4runtime_tls_cert: Option<std::path::PathBuf>,
    /// The private key of --p4runtime-tls-cert (PEM).
    #[arg(long, value_name = "PEM", requires = "p4runtime_tls_cert")]
    p4runtime_tls_key: Option<std::path::PathBuf>,
    /// External switch: the P4Runtime role ESA's tables belong to (`esa
    /// switch --roles`); the default role otherwise.
    #[arg(long, value_name = "NAME")]
    p4runtime_role: Option<String>,
    /// External switch: the hosts file (name, mac, ip, switch port and
    /// optionally a netns per host; testbed/README.md).
    #[arg(long, value_name = "FILE")]
    hosts: Option<std::path::PathBuf>,
    /// External switch that does not take P4 source (BMv2, Tofino): its
    /// compiled device config (BMv2 JSON). Needs --p4info.
    #[arg(long, value_name = "FILE", requires = "p4info")]
    device_config: Option<std::path::PathBuf>,
    /// The P4Info that goes with --device-config.
    #[arg(long, value_name = "FILE", requires = "device_config")]
    p4info: Option<std::path::PathBuf>,
    /// Run even when the estimated run time is above an hour (the
    /// estimate is printed before the run starts).
    #[arg(long)]
    yes: bool,
    /// BMv2: where the compiled program and the switch's log go
    /// (default: a folder under the temporary folder).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<std::path::PathBuf>,
    /// Inject a fault while the jobs run, in every variant, timed from
    /// its start: `switch-restart@T[,down=D]` crashes the switch at T
    /// (`2s`, `1500ms`) and starts it again, empty, on the same ports
    /// after D (default 500ms); the controller programs it again and the
    /// jobs carry on. Repeatable. Not for an external switch or the sim
    /// fabric. `link-down@T,port=P[,down=D]` takes the link of the host
    /// on switch port P down at T and up after D (`--fabric netns`).
    #[arg(long = "fault", value_name = "FAULT")]
    faults: Vec<esa_testbed::fault::Fault>,
}

/// `--fabric`: the names of the experiment file's `[fabric] kind`.
fn fabric_kinds() -> impl TypedValueParser<Value = FabricKind> {
    PossibleValuesParser::new(FabricKind::ALL.map(FabricKind::name))
        .try_map(|name| name.parse::<FabricKind>())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SwitchArg {
    Embedded,
    Bmv2,
    External,
}

/// The switch `esa run` was asked for; errors name the flag.
pub(crate) fn switch_target(args: &RunArgs) -> Result<Arc<dyn SwitchTarget>> {
    let external_only = [
        ("--p4runtime", args.p4runtime.is_some()),
        ("--hosts", args.hosts.is_some()),
        ("--device-config", args.device_config.is_some()),
        ("--p4runtime-tls-ca", args.p4runtime_tls_ca.is_some()),
        ("--p4runtime-role", args.p4runtime_role.is_some()),
    ];
    if args.switch != SwitchArg::External
        && let Some((flag, _)) = external_only.iter().find(|(_, given)| *given)
    {
        bail!("{flag} is for --switch external");
    }
    Ok(match args.switch {
        SwitchArg::Embedded => Arc::new(EmbeddedTarget),
        SwitchArg::Bmv2 => Arc::new(Bmv2Target::default()),
        SwitchArg::External => {
            let Some(p4runtime) = args.p4runtime.clone() else {
                bail!(
                    "--switch external needs --p4runtime HOST:PORT (the switch's P4Runtime server)"
                );
            };
            let Some(hosts) = &args.hosts else {
                bail!(
                    "--switch external needs --hosts FILE (the hosts' addresses and switch ports)"
                );
            };
            Arc::new(ExternalTarget {
                p4runtime,
                device_id: args.device_id,
                hosts: HostsFile::load(hosts)?,
                pipeline_files: args.device_config.clone().zip(args.p4info.clone()),
                security: ClientSecurity {
                    ca: args.p4runtime_tls_ca.clone(),
                    identity: args
                        .p4runtime_tls_cert
                        .clone()
                        .zip(args.p4runtime_tls_key.clone())
                        .map(|(cert, key)| ServerIdentity { cert, key }),
                },
                role: args.p4runtime_role.clone().unwrap_or_default(),
            })
        }
    })
}

/// `esa run --arch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ArchArg {
    /// p4/v1model/esa.p4
    V1model,
    /// p4/tna/esa.p4
    Tna,
}

/// Runs `esa run`: every variant of the experiment, the summary table on
/// stdout, the report files in `out`; fails when a job did not verify.
pub(crate) fn run_experiment(args: &RunArgs) -> Result<()> {
    let mut experiment = esa_testbed::Experiment::load_as(&args.experiment, args.fabric)?;
    if let Some(transport) = args.transport {
        experiment.fabric.transport = transport;
        experiment.check_transport()?;
    }
    if let Some(arch) = args.arch {
        experiment.switch.arch = match arch {
            ArchArg::V1model => esa_testbed::experiment::Arch::V1model,
            ArchArg::Tna => esa_testbed::experiment::Arch::Tna,
        };
        if let Err(e) = experiment.switch.arch.check_lanes(experiment.switch.lanes) {
            bail!(
                "--arch {}: {e}; the experiment has {}",
                experiment.switch.arch,
                experiment.switch.lanes
            );
        }
    }
    if let Some(dir) = &args.out {
        esa_testbed::ExperimentReport::prepare_dir(dir)?;
    }
    let options = esa_testbed::RunOptions {
        progress: !args.quiet,
        switch: switch_target(args)?,
        fabric: args.fabric,
        work_dir: args.work_dir.clone(),
        faults: args.faults.clone(),
        ..esa_testbed::RunOptions::default()
    };
    let estimate = esa_testbed::estimate::estimate(&experiment, &options)?;
    if !args.quiet {
        eprintln!("{}: estimated run time {estimate}", experiment.name);
    }
    if !args.yes {
        estimate.within(esa_testbed::estimate::CONFIRM_ABOVE)?;
    }
    on_signal_stop(&experiment, &options);
    match esa_testbed::run_experiment(&experiment, &options) {
        Err(interrupted @ esa_testbed::TestbedError::Interrupted) => {
            eprintln!("{interrupted}");
            std::process::exit(130);
        }
        report => finish_report(args, &report?),
    }
}

/// How long an interrupted run may take to stop its workers, release its
/// jobs and tear its switch and links down before the process exits
/// anyway.
const CLEAN_UP_WITHIN: std::time::Duration = std::time::Duration::from_secs(20);

/// On SIGINT or SIGTERM: an emulated run is interrupted, which releases
/// every job it admitted (an external switch outlives the run, and would
/// refuse the next run's job 1) and ends it with status 130; a run that
/// does not stop within [`CLEAN_UP_WITHIN`], and one with nothing to
/// release, has its network namespaces removed here (they would outlive
/// the process) and exits 130. Without either, SIGINT keeps its default
/// action.
fn on_signal_stop(experiment: &esa_testbed::Experiment, options: &esa_testbed::RunOptions) {
    let cleans_up = esa_testbed::cleans_up_on_interrupt(experiment, options);
    let namespaces = esa_testbed::makes_namespaces(experiment, options);
    if !cleans_up && !namespaces {
        return;
    }
    let signalled = super::shutdown::flag();
    let interrupt = Arc::clone(&options.interrupt);
    std::thread::spawn(move || {
        while !signalled.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if cleans_up {
            eprintln!("interrupted: stopping the workers and releasing the jobs");
            interrupt.store(true, Ordering::SeqCst);
            std::thread::sleep(CLEAN_UP_WITHIN);
            eprintln!("interrupted: the run did not stop within {CLEAN_UP_WITHIN:?}");
        }
        if namespaces {
            let removed = esa_netns::remove_this_process();
            eprintln!("interrupted: removed {removed} network namespaces");
        }
        std::process::exit(130);
    });
}

/// Prints the table, writes the report files, fails unless every job
/// verified.
pub(crate) fn finish_report(args: &RunArgs, report: &esa_testbed::ExperimentReport) -> Result<()> {
    print!("{}", report.table());
    if let Some(dir) = &args.out {
        report.write(dir)?;
        eprintln!("report written to {}", dir.display());
    }
    if !report.all_verified() {
        bail!("some jobs did not finish with the exact sum (see the table)");
    }
    Ok(())
}
