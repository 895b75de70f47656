//! Packets per second through `V1Switch::process` for a program with
//! Ethernet/IPv4/UDP parsing, an exact and an LPM table, and 32 lanes of
//! register read-add-write per packet, on the compiled engine (the
//! default) and on the reference interpreter.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "support/lanes.rs"]
mod lanes;
use lanes::{LANES, bits, setup, setup_with};
use p4sim::v1switch::Engine;

fn bench(c: &mut Criterion) {
    let (mut sw, pkt) = setup(LANES);
    let out = sw.process(0, &pkt);
    assert_eq!(out.len(), 1, "the benchmark packet must be forwarded");
    assert_eq!(out[0].port, 1 + 42 % 8);
    assert_eq!(sw.register_read("r31", 5).unwrap(), bits(32, 32));
    assert_eq!(out[0].data.len(), pkt.len());
    let mut g = c.benchmark_group("v1switch");
    g.throughput(Throughput::Elements(1));
    g.bench_function("eth_ipv4_udp_exact_lpm_32_register_lanes", |b| {
        b.iter(|| black_box(sw.process(0, black_box(&pkt))))
    });
    // the same packet and tables without the register lanes, to show
    // what parsing, tables, checksum and deparsing cost alone
    let (mut sw0, pkt0) = setup(0);
    g.bench_function("eth_ipv4_udp_exact_lpm_no_lanes", |b| {
        b.iter(|| black_box(sw0.process(0, black_box(&pkt0))))
    });
    // the same two on the reference interpreter
    let (mut r, pkt) = setup_with(LANES, Engine::Reference);
    g.bench_function("reference_eth_ipv4_udp_exact_lpm_32_register_lanes", |b| {
        b.iter(|| black_box(r.process(0, black_box(&pkt))))
    });
    let (mut r0, pkt0) = setup_with(0, Engine::Reference);
    g.bench_function("reference_eth_ipv4_udp_exact_lpm_no_lanes", |b| {
        b.iter(|| black_box(r0.process(0, black_box(&pkt0))))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
