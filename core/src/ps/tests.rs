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
        for d in duplicates {
            let copy = parts[d.index(parts.len())].clone();
            parts.push(copy);
        }
        // A deterministic shuffle from `order`.
        let mut state = order | 1;
        for i in (1..parts.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            parts.swap(i, (state % (i as u64 + 1)) as usize);
        }
        (fan_in, values, parts)
    }
}

proptest! {
    #[test]
    fn any_split_completes_exactly_once_with_the_exact_sum((fan_in, values, parts) in scenario()) {
        let mut ps = ParameterServer::new(PsConfig { lanes: LANES, ..PsConfig::default() }).unwrap();
        ps.add_job(JOB, fan_in).unwrap();
        let mut exact = [0i32; LANES];
        for v in &values {
            for (s, x) in exact.iter_mut().zip(v) {
                *s += x;
            }
        }
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
