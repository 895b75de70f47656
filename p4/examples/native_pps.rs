//! Packets per second of `v1model/esa.p4` on p4sim's native engine (the
//! code `esa-p4` generated) or another engine, on the benchmark stream of
//! p4sim's own benches, for `perf`:
//! `cargo run --release -p esa-p4 --example native_pps -- [PACKETS] [native|compiled|reference] [LANES]`
//! (LANES 32 or 64, with 4096 slots: the generated configurations; the
//! env var ROUNDS shortens the stream's slot range).

use std::hint::black_box;
use std::sync::Arc;

#[path = "../../p4sim/benches/support/esa.rs"]
mod esa;

use p4sim::v1switch::{Engine, V1Switch};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(400_000);
    let mode = std::env::args().nth(2).unwrap_or_else(|| "native".into());
    let engine = match mode.as_str() {
        "reference" => Engine::Reference,
        "compiled" => Engine::Compiled,
        _ => Engine::Native,
    };
    let lanes: usize = std::env::args()
        .nth(3)
        .and_then(|a| a.parse().ok())
        .unwrap_or(32);
    esa_p4::register();
    let prog = esa::compile(lanes, 4096);
    let rounds: u16 = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(512);
    let trace = esa::trace(lanes, rounds, 42);
    let mut sw = V1Switch::with_engine(Arc::clone(&prog), engine);
    assert_eq!(sw.engine(), engine, "no generated code for this program");
    esa::program(&mut sw, 1_000_000);
    let start = std::time::Instant::now();
    let mut emitted = 0usize;
    for i in 0..n {
        let (port, frame) = &trace[i % trace.len()];
        sw.set_time_us(i as u64);
        emitted += black_box(sw.process(*port, frame)).len();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{mode}: {n} packets, {lanes} lanes, {emitted} emitted: {:.0} packets/s",
        n as f64 / secs
    );
}
