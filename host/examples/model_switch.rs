//! A model switch on a UDP socket, to try `esa worker` and `esa ps` by hand
//! before esa-switch exists:
//!
//! ```text
//! cargo run -p esa-host --example model_switch -- --bind 127.0.0.1:17700 \
//!     --job 1 --workers 127.0.0.1:17701,127.0.0.1:17702 --ps 127.0.0.1:17703 --seconds 30
//! ```

use esa_core::job::Mode;
use esa_core::pool::PoolConfig;
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::UdpTransport;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// The flags: `--bind ADDR --job ID --workers ADDR,ADDR,... --ps ADDR`
/// and optionally `--mode esa|atp|switchml` (esa), `--slots N` (4096),
/// `--lanes K` (32), `--seconds S` (60).
#[derive(Debug)]
struct Args {
    bind: SocketAddr,
    job: u16,
    workers: Vec<SocketAddr>,
    ps: SocketAddr,
    mode: Mode,
    slots: usize,
    lanes: usize,
    seconds: u64,
}

impl Args {
    /// Reads `--flag value` pairs; the example needs no more than that.
    fn parse(mut flags: impl Iterator<Item = String>) -> Result<Args, String> {
        let (mut bind, mut job, mut workers, mut ps) = (None, None, Vec::new(), None);
        let mut args = Args {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            job: 0,
            workers: Vec::new(),
            ps: SocketAddr::from(([127, 0, 0, 1], 0)),
            mode: Mode::Esa,
            slots: 4096,
            lanes: 32,
            seconds: 60,
        };
        while let Some(flag) = flags.next() {
            let value = flags.next().ok_or(format!("{flag} needs a value"))?;
            let bad = |e: &dyn std::fmt::Display| format!("{flag} {value}: {e}");
            match flag.as_str() {
                "--bind" => bind = Some(value.parse().map_err(|e| bad(&e))?),
                "--job" => job = Some(value.parse().map_err(|e| bad(&e))?),
                "--workers" => {
                    for w in value.split(',') {
                        workers.push(w.parse().map_err(|e| bad(&e))?);
                    }
                }
                "--ps" => ps = Some(value.parse().map_err(|e| bad(&e))?),
                "--mode" => args.mode = value.parse().map_err(|e| bad(&e))?,
                "--slots" => args.slots = value.parse().map_err(|e| bad(&e))?,
                "--lanes" => args.lanes = value.parse().map_err(|e| bad(&e))?,
                "--seconds" => args.seconds = value.parse().map_err(|e| bad(&e))?,
                _ => return Err(format!("unknown flag {flag}")),
            }
        }
        args.bind = bind.ok_or("--bind is required")?;
        args.job = job.ok_or("--job is required")?;
        args.ps = ps.ok_or("--ps is required")?;
        if workers.is_empty() {
            return Err("--workers is required".into());
        }
        args.workers = workers;
        Ok(args)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse(std::env::args().skip(1))?;
    let pool = PoolConfig {
        slots: args.slots,
        lanes: args.lanes,
        ..PoolConfig::default()
    };
    let mut switch = ModelSwitch::new(pool, UdpTransport::bind(args.bind)?)?;
    let mut job = ModelJob::new(args.job, args.workers, args.ps);
    job.mode = args.mode;
    job.slot_mask = (args.slots - 1) as u16;
    switch.add_job(job)?;
    let end = Instant::now() + Duration::from_secs(args.seconds);
    while Instant::now() < end {
        switch.step(Duration::from_millis(50))?;
    }
    println!("{:?}", switch.counters(args.job));
    Ok(())
}
