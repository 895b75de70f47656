//! Processes the benchmark packet in a loop and prints packets per second
//! (wall clock). Run under `perf stat -e cycles:u` to get cycles per packet
//! on a busy machine: `cargo run --release -p p4sim --example pps -- 2000000
//! [LANES] [compiled|reference]`.

use std::hint::black_box;

#[path = "../benches/support/lanes.rs"]
mod lanes;
use lanes::{LANES, setup_with};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let lanes: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(LANES);
    let engine = match std::env::args().nth(3).as_deref() {
        Some("reference") => p4sim::v1switch::Engine::Reference,
        _ => p4sim::v1switch::Engine::Compiled,
    };
    let (mut sw, pkt) = setup_with(lanes, engine);
    let start = std::time::Instant::now();
    for _ in 0..n {
        black_box(sw.process(0, black_box(&pkt)));
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} packets, {lanes} lanes: {:.0} packets/s",
        n as f64 / secs
    );
}
