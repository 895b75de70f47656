//! Bytes per second through the v1model hash algorithms, on a 13-byte
//! IPv4 5-tuple (the usual ECMP hash input) and on a 64-byte buffer.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use p4sim::exec::hash::{Crc, CrcSpec, HashAlgorithm};

fn bench(c: &mut Criterion) {
    let five_tuple: Vec<u8> = (0u8..13).collect();
    let block: Vec<u8> = (0u8..64).map(|b| b.wrapping_mul(37)).collect();
    let ccitt = Crc::new(CrcSpec::CRC_CCITT).unwrap();
    let mut g = c.benchmark_group("hash");
    for (label, data) in [("5tuple", &five_tuple), ("64B", &block)] {
        g.throughput(Throughput::Bytes(data.len() as u64));
        for algo in [
            HashAlgorithm::Crc16,
            HashAlgorithm::Crc32,
            HashAlgorithm::Csum16,
        ] {
            g.bench_function(format!("{}_{label}", algo.name()), |b| {
                b.iter(|| black_box(algo.compute(black_box(data))))
            });
        }
        g.bench_function(format!("crc_ccitt_{label}"), |b| {
            b.iter(|| black_box(ccitt.checksum(black_box(data))))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
