//! `esa`: the one user-facing command of ESA.

mod cli;

use anyhow::Result;
use clap::{Parser, Subcommand};

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
        what: cli::bench::BenchCommand,
    },
    /// Run the built-in two-job scenario in the deterministic simulator
    /// (workers, parameter servers and the switch's reference model in
    /// virtual time) and print a per-job summary.
    Sim {
        /// Sharing mode to simulate; `all` runs the three side by side.
        #[arg(long, value_enum, default_value_t = cli::sim::SimMode::All)]
        mode: cli::sim::SimMode,
        /// Seed of the simulated links.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Probability that a link loses a packet (0 to 0.5).
        #[arg(long, default_value_t = 0.01)]
        loss: f64,
    },
    /// Run a worker: a synthetic training loop of all-reduces through the
    /// switch over UDP (config file and/or flags; see esa_host::config).
    Worker(cli::host::WorkerArgs),
    /// Run a parameter server for one or many jobs over UDP, reporting each
    /// job's fallback volume.
    Ps(cli::host::PsArgs),
    /// Run the software switch: a P4 program in p4sim behind a P4Runtime
    /// server, on Linux interfaces (flags as BMv2's simple_switch_grpc).
    Switch(cli::switch::SwitchArgs),
    /// Run the controller: program one P4Runtime switch (esa-switch or
    /// BMv2) from a topology file and serve the job API (gRPC).
    Controller(cli::controller::ControllerArgs),
    /// Make a lab CA and a server certificate signed by it (PEM files for
    /// --tls-cert, --tls-key and --tls-ca), and with --tenant a tokens
    /// file for `esa controller --tokens`.
    Certs(cli::certs::CertsArgs),
    /// List the controller's jobs and their counters, or admit / release a
    /// job.
    Jobs(cli::controller::JobsArgs),
    /// Run a switch and its controller for hosts you start yourself
    /// (PyTorch ranks with esa_torch, `esa worker`, `esa ps`): esa.p4 in
    /// esa-switch with ports carried over UDP (port n at BIND:BASE+n), the
    /// controller programming it, the job API; no root. Stops on SIGINT.
    Local(cli::local::LocalArgs),
    /// Synthetic workloads for experiment files (testbed/README.md).
    Workload {
        #[command(subcommand)]
        what: cli::workload::WorkloadCommand,
    },
    /// Run a multi-job training experiment (TOML) and report each job's
    /// JCT and in-switch share (testbed/README.md). By default everything
    /// runs in this process on the embedded switch.
    Run(cli::run::RunArgs),
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
        target: cli::p4::StfTarget,
    },
}

fn main() -> Result<()> {
    // esa.p4 at its built configurations runs as native code in p4sim
    esa_p4::register();
    match Cli::parse().command {
        Command::Sim { mode, seed, loss } => cli::sim::run_sim(mode, seed, loss),
        Command::Bench { what } => cli::bench::run_bench(what),
        Command::Worker(args) => cli::host::run_worker(&args),
        Command::Ps(args) => cli::host::run_ps(&args),
        Command::Switch(args) => cli::switch::run(&args),
        Command::Controller(args) => cli::controller::run_controller(&args),
        Command::Certs(args) => {
            print!("{}", cli::certs::run_certs(&args)?);
            Ok(())
        }
        Command::Jobs(args) => {
            print!("{}", cli::controller::run_jobs(&args)?);
            Ok(())
        }
        Command::Run(args) => cli::run::run_experiment(&args),
        Command::Local(args) => cli::local::run_local(&args),
        Command::Workload {
            what: cli::workload::WorkloadCommand::Generate(args),
        } => cli::workload::run_workload_generate(&args),
        Command::P4info { program, include } => cli::p4::run_p4info(&program, &include),
        Command::Stf {
            program,
            test,
            include,
            define,
            target,
        } => cli::p4::run_stf(&program, &test, &include, &define, target),
    }
}
