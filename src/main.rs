//! `esa`: the one user-facing command of ESA.

mod cli;

use anyhow::{Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use esa_core::pool::Mode;
use esa_core::sim::{self, SimConfig};

#[derive(Debug, Parser)]
#[command(
    name = "esa",
    version,
    about = "Preemptive, priority-based in-network aggregation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Benchmarks to run on your own machine; each prints its figures.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
    /// Run the built-in two-job scenario in the deterministic simulator
    /// (workers, parameter servers and the switch's reference model in
    /// virtual time) and print a per-job summary.
    Sim {
        /// Sharing mode to simulate; `all` runs the three side by side.
        #[arg(long, value_enum, default_value_t = SimMode::All)]
        mode: SimMode,
        /// Seed of the simulated links.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Probability that a link loses a packet (0 to 0.5).
        #[arg(long, default_value_t = 0.01)]
        loss: f64,
    },
    /// Run a worker: a synthetic training loop of all-reduces through the
    /// switch over UDP (config file and/or flags; see esa_host::config).
    Worker(esa_host::cli::WorkerArgs),
    /// Run a parameter server for one or many jobs over UDP, reporting each
    /// job's fallback volume.
    Ps(esa_host::cli::PsArgs),
    /// Run the software switch: a P4 program in p4sim behind a P4Runtime
    /// server, on Linux interfaces (flags as BMv2's simple_switch_grpc).
    Switch(cli::switch::SwitchArgs),
    /// Run the controller: program one P4Runtime switch (esa-switch or
    /// BMv2) from a topology file and serve the job API (gRPC).
    Controller(cli::controller::ControllerArgs),
    /// List the controller's jobs and their counters, or admit / release a
    /// job.
    Jobs(cli::controller::JobsArgs),
    /// Run a switch and its controller for hosts you start yourself
    /// (PyTorch ranks with esa_torch, `esa worker`, `esa ps`): esa.p4 in
    /// esa-switch with ports carried over UDP (port n at BIND:BASE+n), the
    /// controller programming it, the job API; no root. Stops on SIGINT.
    Local(LocalArgs),
    /// Synthetic workloads for experiment files (testbed/README.md).
    Workload {
        #[command(subcommand)]
        what: WorkloadCommand,
    },
    /// Run a multi-job training experiment (TOML) and report each job's
    /// JCT and in-switch share (testbed/README.md). By default everything
    /// runs in this process on the embedded switch.
    Run(RunArgs),
    /// Print the P4Info of a v1model program in protobuf text format, with
    /// the ids p4c would assign.
    P4info {
        /// The P4 program.
        program: std::path::PathBuf,
        /// Extra include directories, searched in order.
        #[arg(short = 'I', value_name = "DIR")]
        include: Vec<std::path::PathBuf>,
    },
    /// Run a p4c STF test on a v1model program in p4sim (or, with
    /// `--target bmv2`, compiled by p4c-bm2-ss on BMv2's simple_switch);
    /// exits 0 only when every expectation holds.
    Stf {
        /// The P4 program.
        program: std::path::PathBuf,
        /// The STF test.
        test: std::path::PathBuf,
        /// Extra include directories, searched in order.
        #[arg(short = 'I', value_name = "DIR")]
        include: Vec<std::path::PathBuf>,
        /// Preprocessor defines for p4c (`-D NAME=VALUE`; bmv2 only).
        #[arg(short = 'D', value_name = "NAME=VALUE")]
        define: Vec<String>,
        /// Where to run it: p4sim, or bmv2 (p4c-bm2-ss, simple_switch and
        /// simple_switch_CLI from $ESA_BMV2_DIR/bin or PATH; the CLI needs
        /// Python's `thrift` package).
        #[arg(long, value_enum, default_value = "p4sim")]
        target: StfTarget,
    },
}

#[derive(Debug, clap::Args)]
struct RunArgs {
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
enum FabricArg {
    Inprocess,
    Netns,
    Sim,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SwitchArg {
    Embedded,
    Bmv2,
    External,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SimMode {
    Esa,
    Atp,
    Switchml,
    All,
}

fn main() -> Result<()> {
    // esa.p4 at its built configurations runs as native code in p4sim
    esa_p4::register();
    match Cli::parse().command {
        Command::Sim { mode, seed, loss } => run_sim(mode, seed, loss),
        Command::Bench { what } => run_bench(what),
        Command::Worker(args) => run_worker(&args),
        Command::Ps(args) => Ok(esa_host::cli::run_ps(&args, cli::shutdown::flag())?),
        Command::Switch(args) => cli::switch::run(&args),
        Command::Controller(args) => cli::controller::run_controller(&args),
        Command::Jobs(args) => {
            print!("{}", cli::controller::run_jobs(&args)?);
            Ok(())
        }
        Command::Run(args) => run_experiment(&args),
        Command::Local(args) => run_local(&args),
        Command::Workload {
            what: WorkloadCommand::Generate(args),
        } => run_workload_generate(&args),
        Command::P4info { program, include } => run_p4info(&program, &include),
        Command::Stf {
            program,
            test,
            include,
            define,
            target,
        } => run_stf(&program, &test, &include, &define, target),
    }
}

/// Flags of `esa local`.
#[derive(Debug, clap::Args)]
struct LocalArgs {
    /// Switch ports 1..=N, one UDP socket each.
    #[arg(long, default_value_t = 16)]
    ports: u16,
    /// Address the ports bind (0.0.0.0 lets hosts on other machines in).
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// Port n is UDP port BASE+n.
    #[arg(long, default_value_t = 9000)]
    base_port: u16,
    /// Address of the job API (what esa_torch and `esa jobs` connect to).
    #[arg(long, default_value = "127.0.0.1:50051")]
    controller: std::net::SocketAddr,
    /// Address of the switch's P4Runtime server (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    p4runtime: std::net::SocketAddr,
    /// Lanes per packet (ESA_LANES); hosts must use the same.
    #[arg(long, default_value_t = 32)]
    lanes: usize,
    /// Aggregator slots in the switch (ESA_POOL_SLOTS).
    #[arg(long, default_value_t = 4096)]
    pool_slots: u32,
    /// The P4 program (default: p4/v1model/esa.p4 of this source tree).
    #[arg(long = "p4", value_name = "PROGRAM.p4")]
    program: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
enum WorkloadCommand {
    /// Print a synthetic trace (CSV: arrival_ms,model,workers,iterations,name)
    /// to stdout: Poisson arrivals at offered load RHO, models, workers and
    /// iterations drawn uniformly. The same parameters and seed give the
    /// same jobs as a `[workload] arrivals = "poisson"` section.
    Generate(GenerateArgs),
}

/// Flags of `esa workload generate`.
#[derive(Debug, clap::Args)]
struct GenerateArgs {
    /// Jobs to generate.
    #[arg(long)]
    jobs: usize,
    /// Offered load ρ = λ · E[T_alone] · window / pool_slots.
    #[arg(long)]
    load: f64,
    /// The switch's aggregator slots.
    #[arg(long)]
    pool_slots: u32,
    /// Models to choose from, comma-separated (default: every profile).
    #[arg(long)]
    models: Option<String>,
    /// Workers per job: N, or N,M,... to choose from.
    #[arg(long, default_value = "8")]
    workers: String,
    /// Iterations per job: N, or MIN-MAX (uniform).
    #[arg(long, default_value = "20")]
    iterations: String,
    /// Chunks outstanding per worker.
    #[arg(long, default_value_t = 32)]
    window: usize,
    /// Link rate for the load estimate, Gbit/s.
    #[arg(long, default_value_t = 100.0)]
    link_gbps: f64,
    /// One-way propagation delay per link for the load estimate, µs.
    #[arg(long, default_value_t = 1.0)]
    propagation_us: f64,
    /// Value lanes per packet.
    #[arg(long, default_value_t = 32)]
    lanes: usize,
    /// Model scale (1 = real sizes, as the sim fabric uses by default).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Seed of the draws (an experiment's `seed`; default 1 as there).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn run_workload_generate(args: &GenerateArgs) -> Result<()> {
    use esa_testbed::workload::{
        LinkModel, PoissonSpec, parse_iterations, parse_models, parse_workers, write_trace,
    };
    if !(args.scale > 0.0 && args.scale <= 1.0) {
        bail!("--scale {}: must be above 0 and at most 1", args.scale);
    }
    if !(0.0..=1_000_000.0).contains(&args.propagation_us) {
        bail!(
            "--propagation-us {}: must be 0 to 1000000",
            args.propagation_us
        );
    }
    let models = match &args.models {
        Some(list) => parse_models(list).map_err(anyhow::Error::msg)?,
        None => esa_testbed::experiment::PROFILES
            .iter()
            .map(|p| p.name)
            .collect(),
    };
    let spec = PoissonSpec {
        jobs: args.jobs,
        load: args.load,
        pool_slots: args.pool_slots,
        window: args.window,
        models,
        workers: parse_workers(&args.workers).map_err(anyhow::Error::msg)?,
        iterations: parse_iterations(&args.iterations).map_err(anyhow::Error::msg)?,
        scale: Some(args.scale),
        link: LinkModel {
            lanes: args.lanes,
            link_gbps: args.link_gbps,
            propagation_ns: (args.propagation_us * 1000.0).round() as u64,
        },
        seed: args.seed,
    };
    // The message starts with the value's name: name it as the flag.
    let rows = spec.generate().map_err(|e| {
        let key = e.split([' ', ':']).next().unwrap_or("");
        anyhow::anyhow!("--{}{}", key.replace('_', "-"), &e[key.len()..])
    })?;
    println!(
        "# esa workload generate: {} jobs, load {}, pool {} slots, window {}, scale {}, \
         seed {}; E[T_alone] = {:.6} s, lambda = {:.3} jobs/s",
        spec.jobs,
        spec.load,
        spec.pool_slots,
        spec.window,
        args.scale,
        spec.seed,
        spec.mean_time_alone_s(),
        spec.arrival_rate()
    );
    print!("{}", write_trace(&rows));
    Ok(())
}

fn run_local(args: &LocalArgs) -> Result<()> {
    let config = esa_testbed::local::LocalConfig {
        ports: args.ports,
        bind: args.bind,
        base_port: args.base_port,
        controller: args.controller,
        p4runtime: args.p4runtime,
        lanes: args.lanes,
        pool_slots: args.pool_slots,
        program: args.program.clone(),
        ..esa_testbed::local::LocalConfig::default()
    };
    Ok(esa_testbed::local::run(config, &cli::shutdown::flag())?)
}

/// Prints the P4Info; compile errors go to stderr as `file:line:col:
/// error: ...` and the process exits with status 1.
fn run_p4info(program: &std::path::Path, include: &[std::path::PathBuf]) -> Result<()> {
    let text = p4sim::frontend::parse_program(program, include)
        .and_then(|p| p4sim::p4info::p4info_text(&p));
    match text {
        Ok(text) => {
            print!("{text}");
            Ok(())
        }
        Err(diagnostic) => {
            eprintln!("{diagnostic}");
            std::process::exit(1);
        }
    }
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// esa.p4 on p4sim's native engine (the Rust esa-p4 generated, when
    /// the program and lane count are one it was built for), its compiled
    /// engine (closures) and its reference interpreter, beside esa-core's
    /// pool model, on the same generated four-job traffic (after checking
    /// they all agree on every packet); one line per
    /// engine ending in `pps=<packets per second>`, median of the runs, on
    /// one core.
    Dataplane {
        /// The P4 program (default: the repository's p4/v1model/esa.p4).
        #[arg(long, value_name = "FILE")]
        p4: Option<std::path::PathBuf>,
        /// Value lanes per packet (ESA_LANES): 4, 8, 16, 32 or 64.
        #[arg(long, default_value_t = 32)]
        lanes: usize,
        /// Packets per timed run.
        #[arg(long, default_value_t = 200_000)]
        packets: usize,
        /// Timed runs per engine (the median is reported).
        #[arg(long, default_value_t = 3)]
        repeats: usize,
        /// Also run it on BMv2's simple_switch (p4c-bm2-ss, simple_switch
        /// and simple_switch_CLI from $ESA_BMV2_DIR/bin or PATH), this many
        /// packets once, with p4sim's output count as the check.
        #[arg(long, value_name = "PACKETS")]
        bmv2: Option<usize>,
    },
}

fn run_bench(what: BenchCommand) -> Result<()> {
    let BenchCommand::Dataplane {
        p4,
        lanes,
        packets,
        repeats,
        bmv2,
    } = what;
    if !esa_p4::program::LANE_COUNTS.contains(&lanes) {
        bail!(
            "--lanes {lanes}: esa.p4 is built for {:?} lanes",
            esa_p4::program::LANE_COUNTS
        );
    }
    if packets == 0 || repeats == 0 {
        bail!("--packets and --repeats must be at least 1");
    }
    let options = esa_p4::bench::BenchOptions {
        program: p4.unwrap_or_else(esa_p4::bench::default_program),
        lanes,
        packets,
        repeats,
    };
    println!(
        "{} (K={lanes}, {} slots), four-job mix, {packets} packets per run, median of {repeats} \
         runs, one core",
        options.program.display(),
        esa_p4::bench::SLOTS
    );
    let (_, rates) = esa_p4::bench::bench(&options, |line| eprintln!("{line}"))
        .map_err(|e| anyhow::anyhow!(e))?;
    for r in &rates {
        println!("{:<10} pps={:.0}", r.name, r.pps);
    }
    let mut bmv2_pps = None;
    if let Some(n) = bmv2 {
        let tools = esa_bmv2::Tools::find_with_cli()?;
        let bmv2_options = esa_p4::bench::BenchOptions {
            packets: n.max(1),
            ..options.clone()
        };
        let pps = esa_p4::bench::bench_bmv2(&tools, &bmv2_options, |l| eprintln!("{l}"))
            .map_err(|e| anyhow::anyhow!(e))?;
        println!("{:<10} pps={pps:.0}", "bmv2");
        bmv2_pps = Some(pps);
    }
    let get = |n: &str| {
        rates
            .iter()
            .find(|r| r.name == n)
            .map_or(f64::NAN, |r| r.pps)
    };
    let mut ratios = String::new();
    if rates.iter().any(|r| r.name == "native") {
        ratios.push_str(&format!(
            "native/reference {:.2}x, native/compiled {:.2}x, native/model {:.3}x, ",
            get("native") / get("reference"),
            get("native") / get("compiled"),
            get("native") / get("model")
        ));
    }
    ratios.push_str(&format!(
        "compiled/reference {:.2}x, compiled/model {:.3}x",
        get("compiled") / get("reference"),
        get("compiled") / get("model")
    ));
    if let Some(b) = bmv2_pps {
        ratios.push_str(&format!(", compiled/bmv2 {:.1}x", get("compiled") / b));
    }
    println!("{ratios}");
    Ok(())
}

/// Where `esa stf` runs a test.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum StfTarget {
    /// The embedded interpreter.
    P4sim,
    /// BMv2's simple_switch, the program compiled by p4c-bm2-ss.
    Bmv2,
}

/// Runs an STF test and prints its report; exits 1 on any failure.
fn run_stf(
    program: &std::path::Path,
    test: &std::path::Path,
    include: &[std::path::PathBuf],
    define: &[String],
    target: StfTarget,
) -> Result<()> {
    let result = match target {
        StfTarget::P4sim => {
            if !define.is_empty() {
                bail!("-D is for p4c (--target bmv2); p4sim takes #define in the program");
            }
            p4sim::stf_runner::run_stf_files(program, test, include).map_err(|e| e.to_string())
        }
        StfTarget::Bmv2 => {
            let mut defines = vec![];
            for d in define {
                let (name, value) = d.split_once('=').unwrap_or((d.as_str(), "1"));
                defines.push((name.to_string(), value.to_string()));
            }
            esa_bmv2::Tools::find_with_cli()
                .and_then(|tools| {
                    esa_bmv2::stf::run_stf_files(&tools, program, test, include, &defines)
                })
                .map_err(|e| e.to_string())
        }
    };
    match result {
        Ok(report) => {
            println!("{report}");
            if !report.passed {
                std::process::exit(1);
            }
            Ok(())
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

fn run_sim(mode: SimMode, seed: u64, loss: f64) -> Result<()> {
    if !(0.0..=0.5).contains(&loss) {
        bail!("--loss {loss} is not between 0 and 0.5");
    }
    let modes = match mode {
        SimMode::Esa => vec![Mode::Esa],
        SimMode::Atp => vec![Mode::Atp],
        SimMode::Switchml => vec![Mode::SwitchMl],
        SimMode::All => vec![Mode::SwitchMl, Mode::Atp, Mode::Esa],
    };
    let mut failed = false;
    let mut averages = vec![];
    for mode in modes {
        let mut config = SimConfig::two_jobs(mode);
        config.seed = seed;
        config.link.loss = loss;
        let jobs = &config.jobs;
        eprintln!(
            "simulating {mode}: {} jobs, pool of {} slots x {} lanes, loss {loss} ...",
            jobs.len(),
            config.pool.slots,
            config.pool.lanes
        );
        let report = sim::run(&config);
        println!(
            "== mode {mode} (seed {seed}, {} events, {} frames lost)",
            report.events, report.frames_lost
        );
        print!("{}", report.table());
        for v in report.violations() {
            eprintln!("VIOLATION: {v}");
            failed = true;
        }
        let jcts: Vec<u64> = report.jobs.iter().filter_map(|j| j.jct_us).collect();
        if jcts.len() == report.jobs.len() && !jcts.is_empty() {
            averages.push((
                mode,
                jcts.iter().sum::<u64>() as f64 / jcts.len() as f64 / 1000.0,
            ));
        }
        println!();
    }
    if averages.len() > 1 {
        println!("average JCT (simulated ms):");
        for (mode, avg) in &averages {
            println!("  {:>8}  {avg:8.3}", mode.to_string());
        }
    }
    if failed {
        bail!("the simulation broke an invariant (see VIOLATION lines)");
    }
    Ok(())
}

/// Runs `esa worker`; a wrong result (which the runtime never returns
/// knowingly) makes the exit status non-zero.
fn run_worker(args: &esa_host::cli::WorkerArgs) -> Result<()> {
    let summary = esa_host::cli::run_worker(args, cli::shutdown::flag())?;
    if summary.wrong > 0 {
        bail!(
            "{} iterations returned a result that is not the exact sum",
            summary.wrong
        );
    }
    Ok(())
}

/// The switch and fabric `esa run` was asked for; errors name the flag.
/// `file_fabric` is the experiment's `[fabric] kind`, the default.
fn run_target(
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
enum ArchArg {
    /// p4/v1model/esa.p4
    V1model,
    /// p4/tna/esa.p4
    Tna,
}

/// Runs `esa run`: every variant of the experiment, the summary table on
/// stdout, the report files in `out`; fails when a job did not verify.
fn run_experiment(args: &RunArgs) -> Result<()> {
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
        if experiment.switch.arch == esa_testbed::experiment::Arch::Tna
            && !matches!(experiment.switch.lanes, 4 | 8 | 16 | 32)
        {
            bail!(
                "--arch tna: the Tofino program takes 4, 8, 16 or 32 lanes; the experiment has {}",
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
        let stop = cli::shutdown::flag();
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
fn finish_report(args: &RunArgs, report: &esa_testbed::ExperimentReport) -> Result<()> {
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
