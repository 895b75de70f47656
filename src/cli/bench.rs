//! `esa bench`: benchmarks that print their figures.

use anyhow::{Result, bail};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
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

pub(crate) fn run_bench(what: BenchCommand) -> Result<()> {
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
        println!("{:<14} pps={:.0}", r.name, r.pps);
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
        println!("{:<14} pps={pps:.0}", "bmv2");
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
            "native/reference {:.2}x, native-batched/reference {:.2}x, native/compiled {:.2}x, \
             native/model {:.3}x, ",
            get("native") / get("reference"),
            get("native-batched") / get("reference"),
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
