//! `esa worker` and `esa ps` (their flags are esa-host's config structs, which are also the TOML sections).

use anyhow::{Result, bail};

/// Runs `esa worker`; a wrong result (which the runtime never returns
/// knowingly) makes the exit status non-zero.
pub(crate) fn run_worker(args: &esa_host::cli::WorkerArgs) -> Result<()> {
    let summary = esa_host::cli::run_worker(args, super::shutdown::flag())?;
    if summary.wrong > 0 {
        bail!(
            "{} iterations returned a result that is not the exact sum",
            summary.wrong
        );
    }
    Ok(())
}
