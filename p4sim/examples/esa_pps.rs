//! Packets per second of ESA's data plane (`p4/v1model/esa.p4`) on the
//! benchmark stream, for `perf`/`callgrind`:
//! `cargo run --release -p p4sim --example esa_pps -- [PACKETS] [LANES] [compiled|reference|batch]`
//! (`batch`: the compiled engine through `process_batch`, 64 packets a call).

use std::hint::black_box;
use std::sync::Arc;

#[path = "../benches/support/esa.rs"]
mod esa;

use p4sim::v1switch::{Engine, OutputArena, V1Switch};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let lanes: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(32);
    let mode = std::env::args().nth(3).unwrap_or_else(|| "compiled".into());
    let engine = match mode.as_str() {
        "reference" => Engine::Reference,
        _ => Engine::Compiled,
    };
    let prog = esa::compile(lanes, 4096);
    let trace = esa::trace(lanes, 512, 42);
    let mut sw = V1Switch::with_engine(Arc::clone(&prog), engine);
    esa::program(&mut sw, 1_000_000);
    let start = std::time::Instant::now();
    let mut emitted = 0usize;
    if mode == "batch" {
        let mut arena = OutputArena::new();
        let mut done = 0;
        while done < n {
            let take = 64.min(n - done);
            arena.clear();
            sw.set_time_us(done as u64);
            sw.process_batch(
                (done..done + take).map(|i| {
                    let (port, frame) = &trace[i % trace.len()];
                    (*port, frame.as_slice())
                }),
                &mut arena,
            );
            emitted += black_box(&arena).len();
            done += take;
        }
    } else {
        for i in 0..n {
            let (port, frame) = &trace[i % trace.len()];
            sw.set_time_us(i as u64);
            emitted += black_box(sw.process(*port, frame)).len();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{mode}: {n} packets, {lanes} lanes, {emitted} emitted: {:.0} packets/s",
        n as f64 / secs
    );
}
