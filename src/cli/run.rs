//! `esa run`: a multi-job experiment on the chosen switch and fabric.

use anyhow::{Result, bail};
use clap::ValueEnum;

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
    #[arg(long, value_enum)]
    fabric: Option<FabricArg>,
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
    /// BMv2: where the compiled program and the switch's log go
    /// (default: a folder under the temporary folder).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FabricArg {
    Inprocess,
    Netns,
    Sim,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SwitchArg {
    Embedded,
    Bmv2,
    External,
}

/// The switch and fabric `esa run` was asked for; errors name the flag.
/// `file_fabric` is the experiment's `[fabric] kind`, the default.
pub(crate) fn run_target(
    args: &RunArgs,
    file_fabric: esa_testbed::experiment::FabricKind,
) -> Result<(esa_testbed::SwitchTarget, esa_testbed::Fabric)> {
    use esa_testbed::experiment::FabricKind;
    use esa_testbed::{ExternalSwitch, Fabric, HostsFile, SwitchTarget};
    let external_only = [
        ("--p4runtime", args.p4runtime.is_some()),
        ("--hosts", args.hosts.is_some()),
        ("--device-config", args.device_config.is_some()),
    ];
    if args.switch != SwitchArg::External
        && let Some((flag, _)) = external_only.iter().find(|(_, given)| *given)
    {
        bail!("{flag} is for --switch external");
    }
    let switch = match args.switch {
        SwitchArg::Embedded => SwitchTarget::Embedded,
        SwitchArg::Bmv2 => SwitchTarget::Bmv2(esa_testbed::Bmv2::find()?),
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
            SwitchTarget::External(ExternalSwitch {
                p4runtime,
                device_id: args.device_id,
                hosts: HostsFile::load(hosts)?,
                pipeline_files: args.device_config.clone().zip(args.p4info.clone()),
            })
        }
    };
    let asked = match args.fabric {
        Some(FabricArg::Inprocess) => Some(Fabric::InProcess),
        Some(FabricArg::Netns) => Some(Fabric::Netns),
        Some(FabricArg::Sim) => bail!("--fabric sim runs on the pool model, not a switch"),
        None => match file_fabric {
            // The file's choice, unless the switch rules it out.
            FabricKind::Netns => Some(Fabric::Netns),
            FabricKind::InProcess | FabricKind::Sim => None,
        },
    };
    let fabric = esa_testbed::target::resolve_fabric(&switch, asked)?.unwrap_or_default();
    Ok((switch, fabric))
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
    use esa_testbed::experiment::FabricKind;
    let asked = args.fabric.map(|f| match f {
        FabricArg::Inprocess => FabricKind::InProcess,
        FabricArg::Netns => FabricKind::Netns,
        FabricArg::Sim => FabricKind::Sim,
    });
    let mut experiment = esa_testbed::Experiment::load_as(&args.experiment, asked)?;
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
    if experiment.fabric.kind == FabricKind::Sim {
        if args.switch != SwitchArg::Embedded {
            bail!("the sim fabric runs on the pool model: --switch does not apply");
        }
        if !args.quiet {
            eprintln!(
                "{}: {} jobs in virtual time",
                experiment.name,
                experiment.jobs.len()
            );
        }
        let report = esa_testbed::virtual_time::run_experiment_sim(&experiment, !args.quiet)?;
        return finish_report(args, &report);
    }
    let (switch, fabric) = run_target(args, experiment.fabric.kind)?;
    let options = esa_testbed::RunOptions {
        progress: !args.quiet,
        switch,
        fabric,
        work_dir: args.work_dir.clone(),
        ..esa_testbed::RunOptions::default()
    };
    if esa_testbed::run::makes_namespaces(&options) {
        // Interrupted, the run's topologies never drop: remove them here.
        // (A switch process the run started gets the terminal's SIGINT
        // too; one that does not dies with its veth ends.) Without
        // namespaces, SIGINT keeps its default action.
        let stop = super::shutdown::flag();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let removed = esa_netns::remove_this_process();
            eprintln!("interrupted: removed {removed} network namespaces");
            std::process::exit(130);
        });
    }
    if !args.quiet {
        eprintln!("{}: {}", experiment.name, options.setup_description());
    }
    let report = esa_testbed::run_experiment(&experiment, &options)?;
    finish_report(args, &report)
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
