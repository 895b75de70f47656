//! A model switch on a UDP socket, to try `esa worker` and `esa ps` by hand
//! before esa-switch exists:
//!
//! ```text
//! cargo run -p esa-host --example model_switch -- --bind 127.0.0.1:17700 \
//!     --job 1 --workers 127.0.0.1:17701,127.0.0.1:17702 --ps 127.0.0.1:17703 --seconds 30
//! ```

use clap::Parser;
use esa_core::job::Mode;
use esa_core::pool::PoolConfig;
use esa_host::testing::{ModelJob, ModelSwitch};
use esa_host::transport::UdpTransport;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

#[derive(Debug, Parser)]
struct Args {
    /// Address of the switch.
    #[arg(long)]
    bind: SocketAddr,
    /// Job id.
    #[arg(long)]
    job: u16,
    /// Worker addresses in worker-id order.
    #[arg(long, value_delimiter = ',')]
    workers: Vec<SocketAddr>,
    /// The job's parameter server.
    #[arg(long)]
    ps: SocketAddr,
    /// esa, atp or switchml.
    #[arg(long, default_value = "esa")]
    mode: Mode,
    /// Pool slots.
    #[arg(long, default_value_t = 4096)]
    slots: usize,
    /// Lanes per packet.
    #[arg(long, default_value_t = 32)]
    lanes: usize,
    /// Run this long.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
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
