//! `esa p4info` and `esa stf`: a P4 program's P4Info, and its STF tests in p4sim or on BMv2.

use anyhow::{Result, bail};

/// Prints the P4Info; compile errors go to stderr as `file:line:col:
/// error: ...` and the process exits with status 1. A TNA program must
/// keep the Tofino rules too (p4sim's compiler checks them), as bf-p4c,
/// whose P4Info this equals, writes none for a program the hardware
/// cannot hold.
pub(crate) fn run_p4info(program: &std::path::Path, include: &[std::path::PathBuf]) -> Result<()> {
    let text = p4sim::front::parse_program(program, include).and_then(|p| {
        if p4sim::p4info::is_tna(&p) {
            p4sim::check::compile(&p)?;
        }
        p4sim::p4info::p4info_text(&p)
    });
    match text {
        Ok(text) => {
            use std::io::Write as _;
            // A reader that stopped early (`| head`) is not an error.
            match std::io::stdout().write_all(text.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
                _ => Ok(()),
            }
        }
        Err(diagnostic) => {
            eprintln!("{diagnostic}");
            std::process::exit(1);
        }
    }
}

/// Where `esa stf` runs a test.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum StfTarget {
    /// The embedded interpreter.
    P4sim,
    /// BMv2's simple_switch, the program compiled by p4c-bm2-ss.
    Bmv2,
}

/// Runs an STF test and prints its report; exits 1 on any failure.
pub(crate) fn run_stf(
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
            p4sim::stf::runner::run_stf_files(program, test, include).map_err(|e| e.to_string())
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
