//! Packets per second of ESA's data plane (`p4/v1model/esa.p4`) on the
//! benchmark stream, for `perf`/`callgrind`:
//! `cargo run --release -p p4sim --example esa_pps -- [PACKETS] [LANES] [compiled|reference]`.

use std::hint::black_box;
use std::sync::Arc;

#[path = "../benches/support/esa.rs"]
mod esa;

use p4sim::v1switch::{Engine, V1Switch};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let lanes: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(32);
    let prog = esa::compile(lanes, 4096);
    let trace = esa::trace(lanes, 512, 42);
    let engine = match std::env::args().nth(3).as_deref() {
        Some("reference") => Engine::Reference,
        _ => Engine::Compiled,
    };
    let mut sw = V1Switch::with_engine(Arc::clone(&prog), engine);
    esa::program(&mut sw, 1_000_000);
    let start = std::time::Instant::now();
    let mut now = 0u64;
    let mut emitted = 0usize;
    for i in 0..n {
        let (port, frame) = &trace[i % trace.len()];
        now += 1;
        sw.set_time_us(now);
        emitted += black_box(sw.process(*port, frame)).len();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} packets, {lanes} lanes, {emitted} emitted: {:.0} packets/s",
        n as f64 / secs
    );
}
