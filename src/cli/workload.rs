//! `esa workload`: synthetic workloads for experiment files.

use anyhow::{Result, bail};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum WorkloadCommand {
    /// Print a synthetic trace (CSV: arrival_ms,model,workers,iterations,name)
    /// to stdout: Poisson arrivals at offered load RHO, models, workers and
    /// iterations drawn uniformly. The same parameters and seed give the
    /// same jobs as a `[workload] arrivals = "poisson"` section.
    Generate(GenerateArgs),
}

/// Flags of `esa workload generate`.
#[derive(Debug, clap::Args)]
pub(crate) struct GenerateArgs {
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

pub(crate) fn run_workload_generate(args: &GenerateArgs) -> Result<()> {
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
