//! `esa sim`: the built-in two-job scenario in the deterministic simulator.

use anyhow::{Result, bail};
use clap::ValueEnum;
use esa_core::job::Mode;
use esa_core::sim::{self, SimConfig};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SimMode {
    Esa,
    Atp,
    Switchml,
    All,
}

pub(crate) fn run_sim(mode: SimMode, seed: u64, loss: f64) -> Result<()> {
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
