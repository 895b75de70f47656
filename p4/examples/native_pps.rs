//! Packets per second of `v1model/esa.p4` on p4sim's native engine (the
//! code `esa-p4` generated) or another engine, on `esa bench dataplane`'s
//! stream (`esa_p4::bench`), for `perf`:
//! `cargo run --release -p esa-p4 --example native_pps -- [PACKETS] [native|compiled|reference] [LANES]`
//! (LANES 32 or 64, with 4096 slots: the generated configurations).

use std::hint::black_box;

use p4sim::v1switch::Engine;

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
    let prog = esa_p4::bench::compile(&esa_p4::bench::default_program(), lanes)
        .unwrap_or_else(|e| panic!("{e}"));
    let jobs = esa_p4::bench::jobs();
    let trace = esa_p4::bench::trace(&jobs, lanes, 100_000);
    let (mut sw, _) =
        esa_p4::bench::program(&jobs, &prog, lanes, engine).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sw.engine(), engine, "no generated code for this program");
    let start = std::time::Instant::now();
    let mut emitted = 0usize;
    let (mut sent, mut spare) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (port, frame) = &trace[i % trace.len()];
        sw.set_time_us(i as u64);
        sw.process_append_reusing(*port, frame, &mut sent, &mut spare);
        emitted += black_box(&sent).len();
        // the sent frames' buffers back for the next packets, as
        // esa-switch's packet thread does
        spare.extend(sent.drain(..).map(|p| p.data));
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{mode}: {n} packets, {lanes} lanes, {emitted} emitted: {:.0} packets/s",
        n as f64 / secs
    );
}
