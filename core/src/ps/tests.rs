//! The parameter server, driven packet by packet.

use super::*;
use proptest::prelude::*;

const LANES: usize = 2;
const JOB: u16 = 3;

/// A PS serving job 3 with three workers.
fn ps_with(cfg: PsConfig) -> ParameterServer {
    let mut ps = ParameterServer::new(cfg).unwrap();
    ps.add_job(JOB, 3).unwrap();
    ps
}

fn ps() -> ParameterServer {
    ps_with(PsConfig {
        lanes: LANES,
        ..PsConfig::default()
    })
}

fn packet(
    packet_type: PacketType,
    seq: u16,
    bitmap: u32,
    values: [i32; 2],
    flags: Flags,
) -> Vec<u8> {
    EsaRepr {
        packet_type,
        flags,
        slot: 7,
        key: Key::new(2, JOB, seq),
        bitmap,
        fan_in: 3,
        count: bitmap.count_ones() as u8,
        exponent: 16,
        worker: 0,
    }
    .to_payload(&values, LANES)
}

fn fallback(seq: u16, bitmap: u32, values: [i32; 2]) -> Vec<u8> {
    packet(PacketType::Fallback, seq, bitmap, values, Flags::NONE)
}

fn resend(seq: u16, bitmap: u32, values: [i32; 2]) -> Vec<u8> {
    packet(PacketType::Fallback, seq, bitmap, values, Flags::RESEND)
}

fn drain(ps: &mut ParameterServer) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| ps.poll_transmit()).collect()
}

fn parse(payload: &[u8]) -> (EsaRepr, Vec<i32>) {
    EsaRepr::from_payload(payload, LANES).unwrap()
}

/// Per-worker values of the tests: worker w has [w+1, 10·(w+1)]·2^w-ish.
const W: [[i32; 2]; 3] = [[1, 10], [2, 20], [4, 40]];

fn sum_of(bitmap: u32) -> [i32; 2] {
    let mut s = [0; 2];
    for (w, v) in W.iter().enumerate() {
        if bitmap & (1 << w) != 0 {
            s[0] += v[0];
            s[1] += v[1];
        }
    }
    s
}

#[test]
fn disjoint_parts_complete_with_the_exact_packet() {
    let mut ps = ps();
    let evicted = packet(PacketType::Evicted, 5, 0b011, [10, -5], Flags::NONE);
    ps.handle_payload(&evicted, 0).unwrap();
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&fallback(5, 0b100, [1, 2]), 1).unwrap();
    #[rustfmt::skip]
    let expected: [u8; 24] = [
        0x12, 0x00, 0x00, 0x07,  // RESULT, no flags, slot 7
        0x20, 0x03, 0x00, 0x05,  // priority 2, job 3, seq 5
        0x00, 0x00, 0x00, 0x07,  // bitmap full
        0x03, 0x03, 0x10, 0xff,  // fan_in 3, count 3, exponent 16, worker PS
        0x00, 0x00, 0x00, 0x0b,  // 11
        0xff, 0xff, 0xff, 0xfd,  // -3
    ];
    assert_eq!(drain(&mut ps), vec![expected.to_vec()]);
    let stats = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (
            stats.evicted_parts,
            stats.fallback_parts,
            stats.results_completed
        ),
        (1, 1, 1)
    );
    assert_eq!(ps.pending_chunks(JOB), Some(0));
    assert_eq!(ps.cached_result(JOB, 5), Some(&[11, -3][..]));
}

#[test]
fn overlapping_parts_wait_for_an_exact_cover() {
    // {A,C}, {A,B}, then the singles {B}, {C}: complete exactly once.
    let mut ps = ps();
    ps.handle_payload(&fallback(1, 0b101, sum_of(0b101)), 0)
        .unwrap();
    ps.handle_payload(&fallback(1, 0b011, sum_of(0b011)), 0)
        .unwrap();
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&fallback(1, 0b010, sum_of(0b010)), 0)
        .unwrap();
    let out = drain(&mut ps);
    assert_eq!(out.len(), 1);
    let (repr, values) = parse(&out[0]);
    assert_eq!(
        (repr.packet_type, repr.bitmap, repr.count),
        (PacketType::Result, 0b111, 3)
    );
    assert_eq!(values, [7, 70]);
    ps.handle_payload(&fallback(1, 0b100, sum_of(0b100)), 0)
        .unwrap();
    assert!(drain(&mut ps).is_empty());
    let stats = ps.job_stats(JOB).unwrap();
    assert_eq!((stats.results_completed, stats.late_parts_ignored), (1, 1));

    // Another order: {A,C}, {A,B}, {C} completes with {A,B} + {C}.
    ps.handle_payload(&fallback(2, 0b101, sum_of(0b101)), 0)
        .unwrap();
    ps.handle_payload(&fallback(2, 0b011, sum_of(0b011)), 0)
        .unwrap();
    ps.handle_payload(&fallback(2, 0b100, sum_of(0b100)), 0)
        .unwrap();
    let out = drain(&mut ps);
    assert_eq!(out.len(), 1);
    assert_eq!(parse(&out[0]).1, [7, 70]);
    ps.handle_payload(&fallback(2, 0b010, sum_of(0b010)), 0)
        .unwrap();
    assert!(drain(&mut ps).is_empty());
    assert_eq!(ps.job_stats(JOB).unwrap().results_completed, 2);
    assert_eq!(ps.pending_chunks(JOB), Some(0));
}

#[test]
fn duplicate_parts_count_once() {
    let mut ps = ps();
    ps.handle_payload(&fallback(4, 0b001, W[0]), 0).unwrap();
    ps.handle_payload(&fallback(4, 0b001, W[0]), 0).unwrap();
    ps.handle_payload(&packet(PacketType::Flush, 4, 0b001, W[0], Flags::RESEND), 0)
        .unwrap();
    ps.handle_payload(&fallback(4, 0b010, W[1]), 0).unwrap();
    // Only the FLUSH carried RESEND: one QUERY so far.
    let out = drain(&mut ps);
    assert_eq!(out.len(), 1);
    assert_eq!(parse(&out[0]).0.packet_type, PacketType::Query);
    ps.handle_payload(&fallback(4, 0b100, W[2]), 0).unwrap();
    let out = drain(&mut ps);
    assert_eq!(out.len(), 1);
    assert_eq!(parse(&out[0]).1, [7, 70]);
    let stats = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (
            stats.duplicate_parts,
            stats.flush_parts,
            stats.fallback_parts
        ),
        (2, 1, 4)
    );
}

#[test]
fn resend_for_a_cached_chunk_resends_the_result() {
    let mut ps = ps();
    ps.handle_payload(&fallback(9, 0b011, sum_of(0b011)), 0)
        .unwrap();
    ps.handle_payload(&fallback(9, 0b100, sum_of(0b100)), 0)
        .unwrap();
    let first = drain(&mut ps);
    assert_eq!(first.len(), 1);
    ps.handle_payload(&resend(9, 0b001, W[0]), 10).unwrap();
    assert_eq!(drain(&mut ps), first);
    ps.handle_payload(&fallback(9, 0b001, W[0]), 10).unwrap();
    assert!(drain(&mut ps).is_empty());
    let stats = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (
            stats.results_resent,
            stats.late_parts_ignored,
            stats.queries_sent
        ),
        (1, 1, 0)
    );
}

#[test]
fn resend_for_an_incomplete_chunk_queries_at_a_limited_rate() {
    let mut ps = ps_with(PsConfig {
        lanes: LANES,
        query_interval_us: 1_000,
        ..PsConfig::default()
    });
    ps.handle_payload(&resend(6, 0b001, W[0]), 100).unwrap();
    #[rustfmt::skip]
    let query: [u8; 24] = [
        0x16, 0x00, 0x00, 0x07,  // QUERY, slot 7
        0x20, 0x03, 0x00, 0x06,  // the part's key
        0x00, 0x00, 0x00, 0x00,  // bitmap 0
        0x03, 0x00, 0x10, 0xff,  // fan_in 3, count 0, exponent 16, worker PS
        0, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(drain(&mut ps), vec![query.to_vec()]);
    ps.handle_payload(&resend(6, 0b010, W[1]), 600).unwrap();
    ps.handle_payload(&resend(6, 0b010, W[1]), 1_099).unwrap();
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&resend(6, 0b010, W[1]), 1_100).unwrap();
    assert_eq!(drain(&mut ps), vec![query.to_vec()]);
    // Not a resend: no query however late.
    ps.handle_payload(&fallback(7, 0b001, W[0]), 9_000).unwrap();
    assert!(drain(&mut ps).is_empty());
    // Another chunk has its own clock.
    ps.handle_payload(&resend(7, 0b001, W[0]), 9_001).unwrap();
    assert_eq!(drain(&mut ps).len(), 1);
    assert_eq!(ps.job_stats(JOB).unwrap().queries_sent, 3);
    // The own QUERY relayed back is ignored.
    ps.handle_payload(&query, 9_002).unwrap();
    assert!(drain(&mut ps).is_empty());
    assert_eq!(ps.job_stats(JOB).unwrap().queries_received, 1);
}

#[test]
fn malformed_input_is_rejected_and_other_state_survives() {
    let mut ps = ps();
    ps.add_job(4, 2).unwrap();
    ps.handle_payload(&fallback(5, 0b001, W[0]), 0).unwrap();
    let mut other = fallback(5, 0b01, [100, 200]);
    other[5] = 4;
    other[12] = 2;
    ps.handle_payload(&other, 0).unwrap();

    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut p = fallback(5, 0b010, W[1]);
        f(&mut p);
        p
    };
    let cases: Vec<(Vec<u8>, PsError)> = vec![
        (
            with(&|p| {
                p[11] = 0;
                p[13] = 0;
            }),
            PsError::BadBitmap {
                job: JOB,
                seq: 5,
                bitmap: 0,
                full: 0b111,
            },
        ),
        (
            with(&|p| p[11] = 0b1010),
            PsError::BadBitmap {
                job: JOB,
                seq: 5,
                bitmap: 0b1010,
                full: 0b111,
            },
        ),
        (
            with(&|p| p[13] = 2),
            PsError::CountMismatch {
                job: JOB,
                seq: 5,
                bitmap: 0b010,
                count: 2,
            },
        ),
        (
            with(&|p| p[12] = 4),
            PsError::FanInMismatch {
                job: JOB,
                expected: 3,
                found: 4,
            },
        ),
        (
            with(&|p| p[14] = 8),
            PsError::ExponentMismatch {
                job: JOB,
                seq: 5,
                expected: 16,
                found: 8,
            },
        ),
        (
            with(&|p| {
                p[0] = 0x12;
                p[11] = 0b011;
                p[13] = 2;
            }),
            PsError::IncompleteResult {
                job: JOB,
                seq: 5,
                bitmap: 0b011,
                count: 2,
            },
        ),
    ];
    let n = cases.len() as u64;
    for (payload, expected) in cases {
        assert_eq!(ps.handle_payload(&payload, 1), Err(expected));
    }
    let global: Vec<(Vec<u8>, PsError)> = vec![
        (with(&|p| p[5] = 9), PsError::UnknownJob(9)),
        (
            with(&|p| p[0] = 0x11),
            PsError::UnexpectedType(PacketType::Data),
        ),
        (
            with(&|p| p[0] = 0x1b),
            PsError::Malformed(WireError::UnknownType(11)),
        ),
        (
            with(&|p| p.truncate(20)),
            PsError::Malformed(WireError::BadLanes { lanes: 2, have: 20 }),
        ),
    ];
    for (payload, expected) in global {
        assert_eq!(ps.handle_payload(&payload, 1), Err(expected));
    }
    assert_eq!(
        ps.handle_payload(&[], 1)
            .map_err(|e| matches!(e, PsError::Malformed(_))),
        Err(true)
    );
    assert_eq!(ps.job_stats(JOB).unwrap().invalid_packets, n);
    assert_eq!(ps.job_stats(4).unwrap().invalid_packets, 0);
    assert_eq!(
        ps.stats(),
        &PsStats {
            malformed: 3,
            unknown_job: 1,
            unexpected_type: 1
        }
    );
    assert!(drain(&mut ps).is_empty());

    // Both jobs' chunks complete as if nothing had happened.
    ps.handle_payload(&fallback(5, 0b010, W[1]), 2).unwrap();
    ps.handle_payload(&fallback(5, 0b100, W[2]), 2).unwrap();
    let mut other2 = fallback(5, 0b10, [1, 2]);
    other2[5] = 4;
    other2[12] = 2;
    ps.handle_payload(&other2, 2).unwrap();
    let out: Vec<(EsaRepr, Vec<i32>)> = drain(&mut ps).iter().map(|p| parse(p)).collect();
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].0.key.job(), &out[0].1[..]), (JOB, &[7, 70][..]));
    assert_eq!(
        (out[1].0.key.job(), out[1].0.bitmap, &out[1].1[..]),
        (4, 0b11, &[101, 202][..])
    );
}

#[test]
fn a_result_passing_by_is_cached_and_drops_parts() {
    let mut ps = ps();
    ps.handle_payload(&fallback(8, 0b001, W[0]), 0).unwrap();
    let mut result = packet(PacketType::Result, 8, 0b111, [7, 70], Flags::OVERFLOW);
    result[15] = 1; // completed in the switch
    ps.handle_payload(&result, 1).unwrap();
    assert_eq!(ps.pending_chunks(JOB), Some(0));
    assert!(drain(&mut ps).is_empty(), "no forwarding by default");
    ps.handle_payload(&result, 2).unwrap();
    result[15] = PS_WORKER_ID;
    ps.handle_payload(&result, 2).unwrap();
    // A late resend is answered from the learned result.
    ps.handle_payload(&resend(8, 0b010, W[1]), 3).unwrap();
    assert_eq!(drain(&mut ps), vec![result]);
    let stats = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (
            stats.results_learned,
            stats.duplicate_results,
            stats.results_resent
        ),
        (1, 2, 1)
    );
    assert_eq!(stats.results_completed, 0);
}

#[test]
fn forwarding_sends_foreign_results_on_once() {
    let mut ps = ParameterServer::new(PsConfig {
        lanes: LANES,
        ..PsConfig::default()
    })
    .unwrap();
    ps.add_job_with(
        JOB,
        3,
        JobOptions {
            forward_results: true,
            ..JobOptions::default()
        },
    )
    .unwrap();
    let mut result = packet(PacketType::Result, 8, 0b111, [7, 70], Flags::NONE);
    result[15] = 2;
    ps.handle_payload(&result, 1).unwrap();
    let mut forwarded = result.clone();
    forwarded[15] = PS_WORKER_ID;
    assert_eq!(drain(&mut ps), vec![forwarded.clone()]);
    // Its own echo is not forwarded again.
    ps.handle_payload(&forwarded, 2).unwrap();
    assert!(drain(&mut ps).is_empty());
    // A re-emission from the switch (ATP D5) is, so the waiting worker hears it.
    ps.handle_payload(&result, 3).unwrap();
    assert_eq!(drain(&mut ps), vec![forwarded]);
    assert_eq!(ps.job_stats(JOB).unwrap().results_forwarded, 2);
}

#[test]
fn evicted_parts_complete_with_their_own_exponent_and_mismatches_are_refused() {
    let mut ps = ps();
    let evicted = |bitmap: u32, exponent: i8| {
        let mut p = packet(PacketType::Evicted, 2, bitmap, sum_of(bitmap), Flags::NONE);
        p[14] = exponent as u8;
        p
    };
    ps.handle_payload(&evicted(0b011, -8), 0).unwrap();
    // A part of the same chunk at another scale cannot be added to it.
    assert!(matches!(
        ps.handle_payload(&evicted(0b100, 16), 0),
        Err(PsError::ExponentMismatch {
            expected: -8,
            found: 16,
            ..
        })
    ));
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&evicted(0b100, -8), 1).unwrap();
    let out = drain(&mut ps);
    assert_eq!(out.len(), 1);
    let (repr, values) = parse(&out[0]);
    assert_eq!(
        (repr.packet_type, repr.exponent, values),
        (PacketType::Result, -8, vec![7, 70])
    );
}

#[test]
fn sums_beyond_int32_saturate_and_flag_overflow() {
    let mut ps = ps();
    ps.handle_payload(&fallback(1, 0b011, [i32::MAX, i32::MIN]), 0)
        .unwrap();
    ps.handle_payload(&fallback(1, 0b100, [1, -1]), 0).unwrap();
    let (repr, values) = parse(&drain(&mut ps)[0]);
    assert_eq!(
        (repr.flags, values),
        (Flags::OVERFLOW, vec![i32::MAX, i32::MIN])
    );
    // OVERFLOW of a part survives into the result.
    ps.handle_payload(
        &packet(PacketType::Flush, 2, 0b011, [1, 1], Flags::OVERFLOW),
        0,
    )
    .unwrap();
    ps.handle_payload(&fallback(2, 0b100, [1, 1]), 0).unwrap();
    let (repr, values) = parse(&drain(&mut ps)[0]);
    assert_eq!((repr.flags, values), (Flags::OVERFLOW, vec![2, 2]));
    assert_eq!(ps.job_stats(JOB).unwrap().results_saturated, 1);
}

#[test]
fn limits_drop_the_oldest_and_still_complete() {
    let cfg = PsConfig {
        lanes: LANES,
        max_pending_chunks: 2,
        max_parts_per_chunk: 4,
        ..PsConfig::default()
    };
    let mut ps = ParameterServer::new(cfg).unwrap();
    ps.add_job(JOB, 3).unwrap();
    assert_eq!(
        ps.add_job(5, 5),
        Err(PsError::FanInExceedsMaxParts {
            fan_in: 5,
            max_parts: 4
        })
    );
    for seq in 1..=3 {
        ps.handle_payload(&fallback(seq, 0b001, W[0]), 0).unwrap();
    }
    assert_eq!(ps.pending_chunks(JOB), Some(2));
    assert_eq!(ps.job_stats(JOB).unwrap().pending_chunks_dropped, 1);
    ps.handle_payload(&fallback(3, 0b010, W[1]), 0).unwrap();
    ps.handle_payload(&fallback(3, 0b100, W[2]), 0).unwrap();
    assert_eq!(parse(&drain(&mut ps)[0]).1, [7, 70]);

    // Three parts that all hold worker 0 fill the chunk; the fourth drops
    // the oldest multi-worker part ({0,1}, not the single {0}) and
    // completes with {0,2} + {1}.
    let mut ps = ParameterServer::new(PsConfig {
        lanes: LANES,
        max_parts_per_chunk: 3,
        ..PsConfig::default()
    })
    .unwrap();
    ps.add_job(JOB, 3).unwrap();
    for bitmap in [0b011, 0b101, 0b001] {
        ps.handle_payload(&fallback(1, bitmap, sum_of(bitmap)), 0)
            .unwrap();
    }
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&fallback(1, 0b010, sum_of(0b010)), 0)
        .unwrap();
    let out = drain(&mut ps);
    assert_eq!(out.len(), 1);
    assert_eq!(parse(&out[0]).1, [7, 70]);
    assert_eq!(ps.job_stats(JOB).unwrap().parts_dropped, 1);
}

#[test]
fn config_and_job_validation() {
    assert_eq!(PsConfig::default().validate(), Ok(()));
    let bad = [
        (
            PsConfig {
                lanes: 0,
                ..PsConfig::default()
            },
            PsError::Lanes(0),
        ),
        (
            PsConfig {
                lanes: 65,
                ..PsConfig::default()
            },
            PsError::Lanes(65),
        ),
        (
            PsConfig {
                result_cache: 0,
                ..PsConfig::default()
            },
            PsError::ResultCache(0),
        ),
        (
            PsConfig {
                max_parts_per_chunk: 0,
                ..PsConfig::default()
            },
            PsError::MaxParts(0),
        ),
        (
            PsConfig {
                max_parts_per_chunk: 257,
                ..PsConfig::default()
            },
            PsError::MaxParts(257),
        ),
        (
            PsConfig {
                max_pending_chunks: 0,
                ..PsConfig::default()
            },
            PsError::MaxPendingChunks(0),
        ),
    ];
    for (cfg, expected) in bad {
        assert_eq!(ParameterServer::new(cfg).err(), Some(expected));
    }
    let mut ps = ParameterServer::new(PsConfig::default()).unwrap();
    assert_eq!(ps.add_job(0, 2), Err(PsError::Job(0)));
    assert_eq!(ps.add_job(4096, 2), Err(PsError::Job(4096)));
    assert_eq!(ps.add_job(1, 0), Err(PsError::FanIn(0)));
    assert_eq!(ps.add_job(1, 33), Err(PsError::FanIn(33)));
    assert_eq!(ps.add_job(1, 32), Ok(()));
    assert_eq!(ps.add_job(1, 2), Err(PsError::JobExists(1)));
    assert!(ps.remove_job(1));
    assert!(!ps.remove_job(1));
    assert_eq!(ps.job_stats(1), None);
}

#[test]
fn fan_in_32_uses_every_bit() {
    let mut ps = ParameterServer::new(PsConfig {
        lanes: 1,
        ..PsConfig::default()
    })
    .unwrap();
    ps.add_job(1, 32).unwrap();
    let part = |bitmap: u32, v: i32| {
        EsaRepr {
            packet_type: PacketType::Evicted,
            flags: Flags::NONE,
            slot: 0,
            key: Key::new(0, 1, 0),
            bitmap,
            fan_in: 32,
            count: bitmap.count_ones() as u8,
            exponent: 0,
            worker: 0,
        }
        .to_payload(&[v], 1)
    };
    ps.handle_payload(&part(0x8000_0000, 1), 0).unwrap();
    let mut last = part(0x7fff_ffff, 2);
    last[0] = 0x13; // FALLBACK
    ps.handle_payload(&last, 0).unwrap();
    let (repr, values) = EsaRepr::from_payload(&ps.poll_transmit().unwrap(), 1).unwrap();
    assert_eq!((repr.bitmap, repr.count, values), (u32::MAX, 32, vec![3]));
}

/// One part of the proptest: a bitmap, its type and whether it is a resend.
#[derive(Debug, Clone)]
struct GenPart {
    bitmap: u32,
    packet_type: PacketType,
    resend: bool,
}

fn part_type() -> impl Strategy<Value = PacketType> {
    prop_oneof![
        Just(PacketType::Fallback),
        Just(PacketType::Evicted),
        Just(PacketType::Flush)
    ]
}

/// Appends copies of the parts `duplicates` pick, then shuffles the list
/// deterministically from `order`.
fn duplicate_and_shuffle<T: Clone>(
    parts: &mut Vec<T>,
    duplicates: &[prop::sample::Index],
    order: u64,
) {
    for d in duplicates {
        let copy = parts[d.index(parts.len())].clone();
        parts.push(copy);
    }
    let mut state = order | 1;
    for i in (1..parts.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        parts.swap(i, (state % (i as u64 + 1)) as usize);
    }
}

/// The sum of every worker's values.
fn exact_sum(values: &[Vec<i32>]) -> [i32; LANES] {
    let mut exact = [0i32; LANES];
    for v in values {
        for (s, x) in exact.iter_mut().zip(v) {
            *s += x;
        }
    }
    exact
}

prop_compose! {
    /// A job, its workers' values and a shuffled list of parts holding a
    /// partition of the workers (so a cover exists), extra overlapping
    /// parts and duplicates.
    fn scenario()(fan_in in 1u8..=8)(
        fan_in in Just(fan_in),
        values in prop::collection::vec(prop::collection::vec(-1_000_000i32..1_000_000, LANES), fan_in as usize),
        groups in prop::collection::vec(0usize..8, fan_in as usize),
        types in prop::collection::vec(part_type(), 8),
        extra in prop::collection::vec((1u32..=255, part_type(), any::<bool>()), 0..8),
        duplicates in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        order in any::<u64>(),
    ) -> (u8, Vec<Vec<i32>>, Vec<GenPart>) {
        let full = full_bitmap(fan_in);
        let mut parts = Vec::new();
        let mut partition = [0u32; 8];
        for (w, g) in groups.iter().enumerate() {
            partition[*g] |= 1 << w;
        }
        for (g, bitmap) in partition.into_iter().enumerate().filter(|(_, b)| *b != 0) {
            parts.push(GenPart { bitmap, packet_type: types[g], resend: false });
        }
        for (bits, packet_type, resend) in extra {
            if bits & full != 0 {
                parts.push(GenPart { bitmap: bits & full, packet_type, resend });
            }
        }
        duplicate_and_shuffle(&mut parts, &duplicates, order);
        (fan_in, values, parts)
    }
}

proptest! {
    #[test]
    fn any_split_completes_exactly_once_with_the_exact_sum((fan_in, values, parts) in scenario()) {
        let mut ps = ParameterServer::new(PsConfig { lanes: LANES, ..PsConfig::default() }).unwrap();
        ps.add_job(JOB, fan_in).unwrap();
        let exact = exact_sum(&values);
        let mut results = Vec::new();
        for (t, part) in parts.iter().enumerate() {
            let mut sum = [0i32; LANES];
            for (w, v) in values.iter().enumerate() {
                if part.bitmap & (1 << w) != 0 {
                    for (s, x) in sum.iter_mut().zip(v) {
                        *s += x;
                    }
                }
            }
            let flags = if part.resend { Flags::RESEND } else { Flags::NONE };
            let payload = EsaRepr {
                packet_type: part.packet_type,
                flags,
                slot: 3,
                key: Key::new(1, JOB, 77),
                bitmap: part.bitmap,
                fan_in,
                count: part.bitmap.count_ones() as u8,
                exponent: 12,
                worker: 0,
            }
            .to_payload(&sum, LANES);
            prop_assert_eq!(ps.handle_payload(&payload, t as u64 * 10), Ok(()));
            for out in drain(&mut ps) {
                let (repr, lanes) = parse(&out);
                if repr.packet_type == PacketType::Result {
                    results.push((repr, lanes));
                }
            }
        }
        let stats = ps.job_stats(JOB).unwrap();
        prop_assert_eq!(stats.results_completed, 1);
        prop_assert_eq!(results.len() as u64, 1 + stats.results_resent);
        for (repr, lanes) in &results {
            prop_assert_eq!(&lanes[..], &exact[..]);
            prop_assert_eq!(repr.bitmap, full_bitmap(fan_in));
            prop_assert_eq!(repr.count, fan_in);
            prop_assert_eq!(repr.exponent, 12);
            prop_assert_eq!(repr.worker, PS_WORKER_ID);
            prop_assert_eq!(repr.key.chunk(), Key::new(0, JOB, 77).chunk());
        }
        prop_assert_eq!(ps.pending_chunks(JOB), Some(0));
        prop_assert_eq!(stats.invalid_packets, 0);
    }
}

fn probe(seq: u16, worker: u8) -> Vec<u8> {
    EsaRepr {
        packet_type: PacketType::Probe,
        flags: Flags::NONE,
        slot: 7,
        key: Key::new(2, JOB, seq),
        bitmap: 1 << worker,
        fan_in: 3,
        count: 1,
        exponent: 16,
        worker,
    }
    .to_payload(&[], LANES)
}

#[test]
fn a_probe_is_answered_from_what_the_ps_holds() {
    let mut ps = ps();
    // Nothing of seq 5 here: MISSING, addressed to the worker.
    ps.handle_payload(&probe(5, 1), 0).unwrap();
    let out = drain(&mut ps);
    assert_eq!(out, vec![as_answer(&probe(5, 1), PacketType::Missing)]);

    // Worker 0's part is here: PENDING, and a PULL for the slot's partial.
    ps.handle_payload(&fallback(5, 0b001, W[0]), 0).unwrap();
    ps.handle_payload(&probe(5, 0), 1).unwrap();
    let out = drain(&mut ps);
    let (pull, _) = parse(&out[0]);
    assert_eq!(
        (
            pull.packet_type,
            pull.key,
            pull.slot,
            pull.bitmap,
            pull.worker
        ),
        (PacketType::Pull, Key::new(2, JOB, 5), 7, 0, PS_WORKER_ID)
    );
    assert_eq!(out[1], as_answer(&probe(5, 0), PacketType::Pending));
    assert_eq!(out.len(), 2);
    // Worker 1 is still missing from it.
    ps.handle_payload(&probe(5, 1), 1).unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![as_answer(&probe(5, 1), PacketType::Missing)]
    );

    // The pulled partial completes the chunk; a probe then gets the RESULT.
    ps.handle_payload(
        &packet(PacketType::Flush, 5, 0b110, sum_of(0b110), Flags::NONE),
        2,
    )
    .unwrap();
    let result = drain(&mut ps);
    assert_eq!(result.len(), 1);
    ps.handle_payload(&probe(5, 2), 3).unwrap();
    assert_eq!(drain(&mut ps), result);

    let s = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (
            s.probes_received,
            s.probes_answered_missing,
            s.probes_answered_pending,
            s.probes_answered_result,
            s.pulls_sent
        ),
        (4, 2, 1, 1, 1)
    );
    // A probe naming another worker's bit is refused.
    let mut bad = probe(6, 1);
    bad[11] = 0b011;
    assert!(matches!(
        ps.handle_payload(&bad, 4),
        Err(PsError::BadBitmap { .. })
    ));
    assert!(drain(&mut ps).is_empty());
}

/// A probe payload answered with `kind`.
fn as_answer(probe: &[u8], kind: PacketType) -> Vec<u8> {
    let mut p = probe.to_vec();
    p[0] = (p[0] & 0xf0) | kind as u8;
    p
}

#[test]
fn a_result_of_a_chunk_that_collided_carries_collision() {
    let mut ps = ps();
    ps.handle_payload(
        &packet(PacketType::Fallback, 8, 0b001, W[0], Flags::COLLISION),
        0,
    )
    .unwrap();
    ps.handle_payload(&fallback(8, 0b110, sum_of(0b110)), 0)
        .unwrap();
    let out = drain(&mut ps);
    assert_eq!(parse(&out[0]).0.flags, Flags::COLLISION);
    // Resent from the cache with the same flag.
    ps.handle_payload(&resend(8, 0b001, W[0]), 1).unwrap();
    assert_eq!(drain(&mut ps), out);
    // Without a collision, no flag.
    ps.handle_payload(&fallback(9, 0b111, sum_of(0b111)), 2)
        .unwrap();
    assert_eq!(parse(&drain(&mut ps)[0]).0.flags, Flags::NONE);
}

#[test]
fn a_probe_the_switch_says_it_holds_is_pending() {
    let mut ps = ps();
    let held = |seq, worker| {
        let mut p = probe(seq, worker);
        p[1] = (Flags::RESEND | Flags::HELD).0;
        p
    };
    // Nothing of the chunk here: PENDING, and a QUERY in case the slot's
    // partial is an orphan of a chunk whose result this PS no longer has.
    ps.handle_payload(&held(5, 1), 0).unwrap();
    let out = drain(&mut ps);
    assert_eq!(out.len(), 2);
    let (query, _) = parse(&out[0]);
    assert_eq!((query.packet_type, query.key.seq()), (PacketType::Query, 5));
    assert_eq!(out[1], as_answer(&probe(5, 1), PacketType::Pending));
    // Other parts here: the chunk is split; PENDING and a PULL.
    ps.handle_payload(&fallback(5, 0b001, W[0]), 1).unwrap();
    ps.handle_payload(&held(5, 1), 2).unwrap();
    let out = drain(&mut ps);
    assert_eq!(parse(&out[0]).0.packet_type, PacketType::Pull);
    assert_eq!(out[1], as_answer(&probe(5, 1), PacketType::Pending));
    assert_eq!(out.len(), 2);
    let s = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (s.probes_answered_pending, s.pulls_sent, s.queries_sent),
        (2, 1, 1)
    );
}

#[test]
fn a_repeated_probe_for_a_part_held_here_queries_the_group_once_per_interval() {
    let mut ps = ps();
    ps.handle_payload(&fallback(5, 0b001, W[0]), 0).unwrap();
    let mut again = probe(5, 0);
    again[1] = Flags::RESEND.0;
    let kinds = |out: Vec<Vec<u8>>| -> Vec<PacketType> {
        out.iter().map(|p| parse(p).0.packet_type).collect()
    };
    // The first probe: PULL and PENDING; a repeated one adds a QUERY (a
    // peer may hold a result of the chunk nobody else has, as for a
    // resent part), at most once per query interval.
    ps.handle_payload(&probe(5, 0), 0).unwrap();
    assert_eq!(
        kinds(drain(&mut ps)),
        [PacketType::Pull, PacketType::Pending]
    );
    ps.handle_payload(&again, 10).unwrap();
    assert_eq!(
        kinds(drain(&mut ps)),
        [PacketType::Pull, PacketType::Query, PacketType::Pending]
    );
    ps.handle_payload(&again, 20).unwrap();
    assert_eq!(
        kinds(drain(&mut ps)),
        [PacketType::Pull, PacketType::Pending]
    );
    ps.handle_payload(&again, 10 + PsConfig::default().query_interval_us)
        .unwrap();
    assert_eq!(
        kinds(drain(&mut ps)),
        [PacketType::Pull, PacketType::Query, PacketType::Pending]
    );
}

// Tree jobs (`docs/protocol.md` §9.4): job 3 across three racks of 2, 3 and
// 1 workers. Leaf (rack r, worker w) is the job's worker `RACK_BASE[r] + w`
// and contributes `leaf_value`, so every sum names the leaves in it.

const RACKS: [u8; 3] = [2, 3, 1];
const RACK_BASE: [u8; 3] = [0, 2, 5];

fn tree_options() -> JobOptions {
    JobOptions {
        tree: TreeShape::new(&RACKS),
        ..JobOptions::default()
    }
}

/// A PS serving the tree job.
fn tree_ps() -> ParameterServer {
    let mut ps = ParameterServer::new(PsConfig {
        lanes: LANES,
        ..PsConfig::default()
    })
    .unwrap();
    ps.add_job_with(JOB, 3, tree_options()).unwrap();
    ps
}

fn leaf_value(rack: usize, worker: usize) -> [i32; 2] {
    let g = RACK_BASE[rack] as usize + worker;
    [1 << g, -3 << g]
}

/// The sum of the leaves `bitmaps[r]` of each rack `r`.
fn leaves_sum(bitmaps: [u32; 3]) -> [i32; 2] {
    let mut s = [0; 2];
    for (rack, bitmap) in bitmaps.into_iter().enumerate() {
        for worker in (0..32).filter(|w| bitmap & (1 << w) != 0) {
            let v = leaf_value(rack, worker);
            s[0] += v[0];
            s[1] += v[1];
        }
    }
    s
}

/// The sum of every leaf of the job.
fn tree_total() -> [i32; 2] {
    leaves_sum([0b11, 0b111, 0b1])
}

/// A part from rack `rack`'s leaf: its workers `bitmap`, the rack's
/// fan-in, the rack in `worker` (`docs/protocol.md` §9.2).
fn rack_part(packet_type: PacketType, seq: u16, rack: u8, bitmap: u32, flags: Flags) -> Vec<u8> {
    let mut bitmaps = [0; 3];
    bitmaps[usize::from(rack)] = bitmap;
    EsaRepr {
        packet_type,
        flags,
        slot: 7,
        key: Key::new(2, JOB, seq),
        bitmap,
        fan_in: RACKS[usize::from(rack)],
        count: bitmap.count_ones() as u8,
        exponent: 16,
        worker: rack,
    }
    .to_payload(&leaves_sum(bitmaps), LANES)
}

/// A part from the root: every worker of the racks `racks`, `UPPER`.
fn upper_part(packet_type: PacketType, seq: u16, racks: u32, flags: Flags) -> Vec<u8> {
    let mut bitmaps = [0; 3];
    for (rack, bitmap) in bitmaps.iter_mut().enumerate() {
        if racks & (1 << rack) != 0 {
            *bitmap = full_bitmap(RACKS[rack]);
        }
    }
    EsaRepr {
        packet_type,
        flags: flags | Flags::UPPER,
        slot: 7,
        key: Key::new(2, JOB, seq),
        bitmap: racks,
        fan_in: 3,
        count: racks.count_ones() as u8,
        exponent: 16,
        worker: 1,
    }
    .to_payload(&leaves_sum(bitmaps), LANES)
}

/// The RESULT the PS sends for the tree job's chunk `seq`: the root's
/// header.
fn tree_result(seq: u16, values: [i32; 2]) -> Vec<u8> {
    EsaRepr {
        packet_type: PacketType::Result,
        flags: Flags::UPPER,
        slot: 7,
        key: Key::new(2, JOB, seq),
        bitmap: 0b111,
        fan_in: 3,
        count: 3,
        exponent: 16,
        worker: PS_WORKER_ID,
    }
    .to_payload(&values, LANES)
}

#[test]
fn a_tree_job_counts_a_racks_partial_once_whichever_level_sent_it() {
    let mut ps = tree_ps();
    // Racks 0 and 1 in the root's partial (evicted there), rack 1's own
    // partial flushed from its leaf as well, then rack 2's worker: the
    // cover takes the root's partial and rack 2, never rack 1 twice.
    ps.handle_payload(&upper_part(PacketType::Evicted, 1, 0b011, Flags::NONE), 0)
        .unwrap();
    ps.handle_payload(&rack_part(PacketType::Flush, 1, 1, 0b111, Flags::RESEND), 1)
        .unwrap();
    // The leaf's flush of a resend (D5′) asks the group, at the root's
    // level, for a result the PS may have missed.
    assert_eq!(
        drain(&mut ps),
        vec![from_tree_ps(PacketType::Query, 1, None)]
    );
    ps.handle_payload(&rack_part(PacketType::Fallback, 1, 2, 0b1, Flags::NONE), 2)
        .unwrap();
    #[rustfmt::skip]
    let expected: [u8; 24] = [
        0x12, 0x40, 0x00, 0x07,  // RESULT, UPPER, slot 7
        0x20, 0x03, 0x00, 0x01,  // priority 2, job 3, seq 1
        0x00, 0x00, 0x00, 0x07,  // bitmap: every rack
        0x03, 0x03, 0x10, 0xff,  // fan_in 3 racks, count 3, exponent 16, worker PS
        0x00, 0x00, 0x00, 0x3f,  // 63: every leaf once
        0xff, 0xff, 0xff, 0x43,  // -189
    ];
    assert_eq!(drain(&mut ps), vec![expected.to_vec()]);
    assert_eq!(tree_total(), [63, -189]);

    // Rack 1 split between its leaf ({0,1}) and a worker's fallback ({2}),
    // rack 0 worker by worker, and the root's partial of racks 1 and 2,
    // which overlaps rack 1's pieces: the cover is rack 0's two workers
    // and the root's partial.
    for part in [
        rack_part(PacketType::Flush, 2, 1, 0b011, Flags::NONE),
        rack_part(PacketType::Fallback, 2, 0, 0b01, Flags::NONE),
        upper_part(PacketType::Flush, 2, 0b110, Flags::NONE),
        rack_part(PacketType::Fallback, 2, 1, 0b100, Flags::NONE),
    ] {
        ps.handle_payload(&part, 3).unwrap();
    }
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&rack_part(PacketType::Fallback, 2, 0, 0b10, Flags::NONE), 4)
        .unwrap();
    assert_eq!(drain(&mut ps), vec![tree_result(2, tree_total())]);

    // Racks worker by worker, the same bit in every rack: leaves, not
    // bits, are what the cover counts.
    for (rack, bitmap) in [(0, 0b01), (1, 0b001), (2, 0b1), (0, 0b10), (1, 0b010)] {
        ps.handle_payload(
            &rack_part(PacketType::Fallback, 3, rack, bitmap, Flags::NONE),
            5,
        )
        .unwrap();
    }
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(
        &rack_part(PacketType::Fallback, 3, 1, 0b100, Flags::NONE),
        6,
    )
    .unwrap();
    assert_eq!(drain(&mut ps), vec![tree_result(3, tree_total())]);

    // A resent part of a complete chunk gets the root's RESULT again.
    ps.handle_payload(
        &rack_part(PacketType::Fallback, 1, 1, 0b010, Flags::RESEND),
        7,
    )
    .unwrap();
    assert_eq!(drain(&mut ps), vec![expected.to_vec()]);
    let s = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (
            s.results_completed,
            s.results_resent,
            s.invalid_packets,
            s.duplicate_parts
        ),
        (3, 1, 0, 0)
    );
    assert_eq!(ps.pending_chunks(JOB), Some(0));
}

#[test]
fn a_tree_job_refuses_parts_outside_its_racks() {
    let mut ps = tree_ps();
    let mut wrong_fan_in = rack_part(PacketType::Fallback, 1, 1, 0b1, Flags::NONE);
    wrong_fan_in[12] = 2;
    let upper_fan_in = {
        let mut p = upper_part(PacketType::Evicted, 1, 0b1, Flags::NONE);
        p[12] = 6;
        p
    };
    let cases = [
        (
            wrong_fan_in,
            PsError::FanInMismatch {
                job: JOB,
                expected: 3,
                found: 2,
            },
        ),
        (
            {
                let mut p = rack_part(PacketType::Fallback, 1, 2, 0b1, Flags::NONE);
                p[15] = 3;
                p
            },
            PsError::UnknownRack {
                job: JOB,
                rack: 3,
                racks: 3,
            },
        ),
        (
            rack_part(PacketType::Fallback, 1, 0, 0b100, Flags::NONE),
            PsError::BadBitmap {
                job: JOB,
                seq: 1,
                bitmap: 0b100,
                full: 0b11,
            },
        ),
        (
            upper_part(PacketType::Evicted, 1, 0b1001, Flags::NONE),
            PsError::BadBitmap {
                job: JOB,
                seq: 1,
                bitmap: 0b1001,
                full: 0b111,
            },
        ),
        (
            upper_fan_in,
            PsError::FanInMismatch {
                job: JOB,
                expected: 3,
                found: 6,
            },
        ),
    ];
    for (payload, error) in &cases {
        assert_eq!(ps.handle_payload(payload, 0).as_ref(), Err(error));
    }
    // A RESULT without the root's header is not the job's result.
    let mut flat_result = tree_result(1, tree_total());
    flat_result[1] = 0;
    assert_eq!(
        ps.handle_payload(&flat_result, 0),
        Err(PsError::NotRootResult { job: JOB, seq: 1 })
    );
    assert!(drain(&mut ps).is_empty());
    assert_eq!(ps.pending_chunks(JOB), Some(0));
    assert_eq!(ps.job_stats(JOB).unwrap().invalid_packets, 6);

    // The job's fan-in is its racks, and every worker of every rack must
    // fit the parts kept per chunk.
    assert_eq!(
        ps.add_job_with(4, 6, tree_options()),
        Err(PsError::TreeFanIn {
            job: 4,
            fan_in: 6,
            racks: 3
        })
    );
    let mut small = ParameterServer::new(PsConfig {
        lanes: LANES,
        max_parts_per_chunk: 5,
        ..PsConfig::default()
    })
    .unwrap();
    assert_eq!(
        small.add_job_with(JOB, 3, tree_options()),
        Err(PsError::WorkersExceedMaxParts {
            workers: 6,
            max_parts: 5
        })
    );
}

#[test]
fn a_tree_job_caches_the_roots_result_and_forwards_it_in_atp_mode() {
    let mut ps = ParameterServer::new(PsConfig {
        lanes: LANES,
        ..PsConfig::default()
    })
    .unwrap();
    ps.add_job_with(
        JOB,
        3,
        JobOptions {
            forward_results: true,
            ..tree_options()
        },
    )
    .unwrap();
    // The root's completion (atp: to the PS), sent by rack 1's uplink.
    let mut from_root = tree_result(4, tree_total());
    from_root[15] = 1;
    ps.handle_payload(&from_root, 0).unwrap();
    assert_eq!(drain(&mut ps), vec![tree_result(4, tree_total())]);
    assert_eq!(ps.cached_result(JOB, 4), Some(&tree_total()[..]));
    ps.handle_payload(
        &rack_part(PacketType::Fallback, 4, 2, 0b1, Flags::RESEND),
        1,
    )
    .unwrap();
    assert_eq!(drain(&mut ps), vec![tree_result(4, tree_total())]);
}

/// A probe of the tree job from rack `rack`'s worker `worker`, as its leaf
/// forwards it (P2′): the rack in `worker`, the worker's bit in `bitmap`.
fn tree_probe(seq: u16, rack: u8, worker: u8, flags: Flags) -> Vec<u8> {
    EsaRepr {
        packet_type: PacketType::Probe,
        flags,
        slot: 7,
        key: Key::new(2, JOB, seq),
        bitmap: 1 << worker,
        fan_in: RACKS[usize::from(rack)],
        count: 1,
        exponent: 16,
        worker: rack,
    }
    .to_payload(&[], LANES)
}

/// The PS's packet of `packet_type` for chunk `seq` of the tree job with
/// the root's header (`UPPER`, `fan_in` = racks) or, for `rack`, a rack's
/// fan-in.
fn from_tree_ps(packet_type: PacketType, seq: u16, rack: Option<u8>) -> Vec<u8> {
    EsaRepr {
        packet_type,
        flags: if rack.is_some() {
            Flags::NONE
        } else {
            Flags::UPPER
        },
        slot: 7,
        key: Key::new(2, JOB, seq),
        bitmap: 0,
        fan_in: rack.map_or(3, |r| RACKS[usize::from(r)]),
        count: 0,
        exponent: 16,
        worker: PS_WORKER_ID,
    }
    .to_payload(&[], LANES)
}

#[test]
fn a_tree_jobs_probe_is_answered_to_its_rack_and_pulls_both_levels() {
    let mut ps = tree_ps();
    // Rack 1's worker 2: nothing here, MISSING addressed (rack 1, bit 2).
    ps.handle_payload(&tree_probe(5, 1, 2, Flags::NONE), 0)
        .unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![as_answer(
            &tree_probe(5, 1, 2, Flags::NONE),
            PacketType::Missing
        )]
    );
    // Rack 0's worker 0 is stored; rack 1's worker 0, the same bit in
    // another rack, is still missing.
    ps.handle_payload(&rack_part(PacketType::Fallback, 5, 0, 0b01, Flags::NONE), 1)
        .unwrap();
    ps.handle_payload(&tree_probe(5, 1, 0, Flags::NONE), 2)
        .unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![as_answer(
            &tree_probe(5, 1, 0, Flags::NONE),
            PacketType::Missing
        )]
    );
    // Rack 0's worker 0: PENDING, with a PULL for the root's slot (UPPER)
    // and one the root relays to the leaves.
    ps.handle_payload(&tree_probe(5, 0, 0, Flags::NONE), 3)
        .unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![
            from_tree_ps(PacketType::Pull, 5, None),
            from_tree_ps(PacketType::Pull, 5, Some(0)),
            as_answer(&tree_probe(5, 0, 0, Flags::NONE), PacketType::Pending),
        ]
    );
    // Rack 2 inside the root's partial: its worker is held here too.
    ps.handle_payload(&upper_part(PacketType::Evicted, 5, 0b100, Flags::NONE), 4)
        .unwrap();
    ps.handle_payload(&tree_probe(5, 2, 0, Flags::NONE), 5)
        .unwrap();
    let out = drain(&mut ps);
    assert_eq!(
        out.last(),
        Some(&as_answer(
            &tree_probe(5, 2, 0, Flags::NONE),
            PacketType::Pending
        ))
    );
    assert_eq!(out.len(), 3);
    // A bit outside the rack is refused.
    assert!(matches!(
        ps.handle_payload(&tree_probe(5, 2, 1, Flags::NONE), 6),
        Err(PsError::BadBitmap { full: 0b1, .. })
    ));
    // Complete: a probe gets the root's RESULT.
    for (rack, bitmap) in [(0, 0b10), (1, 0b111)] {
        ps.handle_payload(
            &rack_part(PacketType::Flush, 5, rack, bitmap, Flags::NONE),
            7,
        )
        .unwrap();
    }
    let result = drain(&mut ps);
    assert_eq!(result, vec![tree_result(5, tree_total())]);
    ps.handle_payload(&tree_probe(5, 1, 1, Flags::RESEND), 8)
        .unwrap();
    assert_eq!(drain(&mut ps), result);
    let s = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (
            s.probes_received,
            s.probes_answered_missing,
            s.probes_answered_pending,
            s.probes_answered_result,
            s.pulls_sent,
            s.invalid_packets
        ),
        (6, 2, 2, 1, 4, 1)
    );
}

#[test]
fn a_tree_jobs_held_probe_pulls_both_levels_when_repeated_or_split() {
    let mut ps = tree_ps();
    // A first probe the leaf says it holds, nothing here: PENDING and a
    // QUERY with the root's header (the partial may be an orphan).
    ps.handle_payload(&tree_probe(5, 1, 2, Flags::HELD), 0)
        .unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![
            from_tree_ps(PacketType::Query, 5, None),
            as_answer(&tree_probe(5, 1, 2, Flags::NONE), PacketType::Pending),
        ]
    );
    // Repeated: the rack's partial may have gone up and be stuck at the
    // root or lost above; PENDING and both pulls, no QUERY.
    let again = tree_probe(5, 1, 2, Flags::HELD | Flags::RESEND);
    ps.handle_payload(&again, 1).unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![
            from_tree_ps(PacketType::Pull, 5, None),
            from_tree_ps(PacketType::Pull, 5, Some(1)),
            as_answer(&tree_probe(5, 1, 2, Flags::NONE), PacketType::Pending),
        ]
    );
    // A first probe with other parts here: the chunk is split; both pulls.
    ps.handle_payload(&rack_part(PacketType::Fallback, 6, 0, 0b01, Flags::NONE), 2)
        .unwrap();
    ps.handle_payload(&tree_probe(6, 2, 0, Flags::HELD), 3)
        .unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![
            from_tree_ps(PacketType::Pull, 6, None),
            from_tree_ps(PacketType::Pull, 6, Some(2)),
            as_answer(&tree_probe(6, 2, 0, Flags::NONE), PacketType::Pending),
        ]
    );
    // A part resent for a chunk the PS cannot complete: the QUERY has the
    // root's header too.
    ps.handle_payload(
        &rack_part(PacketType::Fallback, 6, 1, 0b001, Flags::RESEND),
        4,
    )
    .unwrap();
    assert_eq!(
        drain(&mut ps),
        vec![from_tree_ps(PacketType::Query, 6, None)]
    );
    let s = ps.job_stats(JOB).unwrap();
    assert_eq!(
        (s.probes_answered_pending, s.pulls_sent, s.queries_sent),
        (3, 4, 2)
    );
}

#[test]
fn a_tree_jobs_part_limit_drops_multi_leaf_parts_first() {
    // Every worker of the job fits: six parts per chunk.
    let mut ps = ParameterServer::new(PsConfig {
        lanes: LANES,
        max_parts_per_chunk: 6,
        ..PsConfig::default()
    })
    .unwrap();
    ps.add_job_with(JOB, 3, tree_options()).unwrap();
    // Five parts that all hold leaf (1, 1), and that leaf alone: no cover.
    for part in [
        upper_part(PacketType::Evicted, 1, 0b011, Flags::NONE),
        upper_part(PacketType::Evicted, 1, 0b110, Flags::NONE),
        rack_part(PacketType::Flush, 1, 1, 0b011, Flags::NONE),
        rack_part(PacketType::Flush, 1, 1, 0b110, Flags::NONE),
        rack_part(PacketType::Flush, 1, 1, 0b111, Flags::NONE),
        rack_part(PacketType::Fallback, 1, 1, 0b010, Flags::NONE),
    ] {
        ps.handle_payload(&part, 0).unwrap();
    }
    // Every other leaf alone: each pushes out the oldest multi-leaf part,
    // and the single-leaf parts complete the chunk.
    for (rack, bitmap) in [(0, 0b01), (0, 0b10), (1, 0b001), (1, 0b100)] {
        ps.handle_payload(
            &rack_part(PacketType::Fallback, 1, rack, bitmap, Flags::NONE),
            1,
        )
        .unwrap();
    }
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&rack_part(PacketType::Fallback, 1, 2, 0b1, Flags::NONE), 2)
        .unwrap();
    assert_eq!(drain(&mut ps), vec![tree_result(1, tree_total())]);
    assert_eq!(ps.job_stats(JOB).unwrap().parts_dropped, 5);
}

/// A generated part of a tree job: rack `rack`'s workers `bitmap`, or
/// with `upper` every worker of the racks `bitmap`.
#[derive(Debug, Clone)]
struct GenTreePart {
    upper: bool,
    rack: u8,
    bitmap: u32,
    packet_type: PacketType,
}

prop_compose! {
    /// A tree job of up to four racks, its leaves' values and a shuffled
    /// list of parts: racks sent up whole in root partials (grouped),
    /// the other racks split among their own parts (so a cover exists),
    /// plus extra overlapping parts at both levels and duplicates.
    fn tree_scenario()(racks in prop::collection::vec(1u8..=5, 1..=4))(
        values in prop::collection::vec(
            prop::collection::vec(-1_000_000i32..1_000_000, LANES),
            racks.iter().map(|&w| usize::from(w)).sum::<usize>(),
        ),
        // Per rack: its root partial's group, or none (split at its leaf).
        up in prop::collection::vec(prop::option::of(0usize..4), racks.len()),
        groups in prop::collection::vec(0usize..5, racks.iter().map(|&w| usize::from(w)).sum::<usize>()),
        types in prop::collection::vec(part_type(), 32),
        extra in prop::collection::vec((any::<bool>(), 0u8..4, 1u32..=31, part_type()), 0..8),
        duplicates in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        order in any::<u64>(),
        racks in Just(racks),
    ) -> (Vec<u8>, Vec<Vec<i32>>, Vec<GenTreePart>) {
        let mut parts = Vec::new();
        let mut uppers = [0u32; 4];
        let mut leaf = 0;
        for (rack, &workers) in racks.iter().enumerate() {
            let mut split = [0u32; 5];
            for w in 0..workers {
                split[groups[leaf]] |= 1 << w;
                leaf += 1;
            }
            match up[rack] {
                Some(group) => uppers[group] |= 1 << rack,
                None => {
                    for bitmap in split.into_iter().filter(|&b| b != 0) {
                        parts.push(GenTreePart { upper: false, rack: rack as u8, bitmap, packet_type: types[parts.len()] });
                    }
                }
            }
        }
        for bitmap in uppers.into_iter().filter(|&b| b != 0) {
            parts.push(GenTreePart { upper: true, rack: 0, bitmap, packet_type: types[parts.len()] });
        }
        for (upper, rack, bits, packet_type) in extra {
            let rack = rack % racks.len() as u8;
            let full = if upper { full_bitmap(racks.len() as u8) } else { full_bitmap(racks[usize::from(rack)]) };
            if bits & full != 0 {
                parts.push(GenTreePart { upper, rack, bitmap: bits & full, packet_type });
            }
        }
        duplicate_and_shuffle(&mut parts, &duplicates, order);
        (racks, values, parts)
    }
}

proptest! {
    #[test]
    fn any_split_of_a_tree_job_completes_exactly_once_with_the_exact_sum(
        (racks, values, parts) in tree_scenario()
    ) {
        let shape = TreeShape::new(&racks).unwrap();
        let mut ps = ParameterServer::new(PsConfig { lanes: LANES, ..PsConfig::default() }).unwrap();
        let options = JobOptions { tree: Some(shape), ..JobOptions::default() };
        ps.add_job_with(JOB, shape.racks(), options).unwrap();
        let base: Vec<usize> = racks
            .iter()
            .scan(0, |next, &w| {
                let at = *next;
                *next += usize::from(w);
                Some(at)
            })
            .collect();
        let exact = exact_sum(&values);
        let mut results = Vec::new();
        for (t, part) in parts.iter().enumerate() {
            // Each leaf (rack r, worker w) of the part, as (r, w).
            let leaves: Vec<(usize, usize)> = (0..racks.len())
                .flat_map(|r| (0..usize::from(racks[r])).map(move |w| (r, w)))
                .filter(|&(r, w)| {
                    if part.upper {
                        part.bitmap & (1 << r) != 0
                    } else {
                        r == usize::from(part.rack) && part.bitmap & (1 << w) != 0
                    }
                })
                .collect();
            let mut sum = [0i32; LANES];
            for (r, w) in leaves {
                for (s, x) in sum.iter_mut().zip(&values[base[r] + w]) {
                    *s += x;
                }
            }
            let payload = EsaRepr {
                packet_type: part.packet_type,
                flags: if part.upper { Flags::UPPER } else { Flags::NONE },
                slot: 3,
                key: Key::new(1, JOB, 77),
                bitmap: part.bitmap,
                fan_in: if part.upper { shape.racks() } else { racks[usize::from(part.rack)] },
                count: part.bitmap.count_ones() as u8,
                exponent: 12,
                worker: part.rack,
            }
            .to_payload(&sum, LANES);
            prop_assert_eq!(ps.handle_payload(&payload, t as u64 * 10), Ok(()));
            for out in drain(&mut ps) {
                let (repr, lanes) = parse(&out);
                if repr.packet_type == PacketType::Result {
                    results.push((repr, lanes));
                }
            }
        }
        let stats = ps.job_stats(JOB).unwrap();
        prop_assert_eq!(stats.results_completed, 1);
        prop_assert_eq!(results.len() as u64, 1 + stats.results_resent);
        for (repr, lanes) in &results {
            prop_assert_eq!(&lanes[..], &exact[..]);
            prop_assert_eq!(repr.flags, Flags::UPPER);
            prop_assert_eq!(repr.bitmap, full_bitmap(shape.racks()));
            prop_assert_eq!((repr.count, repr.fan_in), (shape.racks(), shape.racks()));
            prop_assert_eq!(repr.worker, PS_WORKER_ID);
        }
        prop_assert_eq!(ps.pending_chunks(JOB), Some(0));
        prop_assert_eq!(stats.invalid_packets, 0);
    }
}

#[test]
fn a_tree_job_of_32_racks_uses_every_leaf_bit() {
    let mut ps = ParameterServer::new(PsConfig {
        lanes: 1,
        ..PsConfig::default()
    })
    .unwrap();
    // 31 racks of one worker and a last rack of 32: leaf (31, 31) is the
    // last bit of the leaf set.
    let mut racks = [1u8; 32];
    racks[31] = 32;
    let options = JobOptions {
        tree: TreeShape::new(&racks),
        ..JobOptions::default()
    };
    ps.add_job_with(1, 32, options).unwrap();
    let part = |upper: bool, rack: u8, bitmap: u32, v: i32| {
        EsaRepr {
            packet_type: PacketType::Evicted,
            flags: if upper { Flags::UPPER } else { Flags::NONE },
            slot: 0,
            key: Key::new(0, 1, 0),
            bitmap,
            fan_in: if upper { 32 } else { racks[usize::from(rack)] },
            count: bitmap.count_ones() as u8,
            exponent: 0,
            worker: rack,
        }
        .to_payload(&[v], 1)
    };
    // The first 31 racks at the root (1 each), the last rack in halves
    // from its leaf, and its top half once more inside a root partial
    // that also repeats rack 0.
    ps.handle_payload(&part(true, 0, 0x7fff_ffff, 31), 0)
        .unwrap();
    ps.handle_payload(&part(false, 31, 0x0000_ffff, 1_000), 0)
        .unwrap();
    ps.handle_payload(&part(true, 0, 0x8000_0001, 1_000_000), 0)
        .unwrap();
    assert!(drain(&mut ps).is_empty());
    ps.handle_payload(&part(false, 31, 0xffff_0000, 20_000), 0)
        .unwrap();
    let out = drain(&mut ps);
    assert_eq!(out.len(), 1);
    let (repr, values) = EsaRepr::from_payload(&out[0], 1).unwrap();
    assert_eq!(
        (repr.flags, repr.bitmap, repr.count, repr.fan_in, values),
        (Flags::UPPER, u32::MAX, 32, 32, vec![21_031])
    );
}
