//! The worker state machine, driven packet by packet.

use super::*;
use std::collections::HashMap;

fn config(job: u16, worker_id: u8, fan_in: u8, lanes: usize, window: usize) -> WorkerConfig {
    WorkerConfig {
        lanes,
        window,
        ..WorkerConfig::new(job, worker_id, fan_in)
    }
}

fn parse(payload: &[u8], lanes: usize) -> (EsaRepr, Vec<i32>) {
    EsaRepr::from_payload(payload, lanes).expect("worker emitted a malformed payload")
}

/// A complete `RESULT` for chunk `seq` of `job` with these lanes.
fn result(job: u16, seq: u16, fan_in: u8, exponent: i8, values: &[i32], lanes: usize) -> Vec<u8> {
    EsaRepr {
        packet_type: PacketType::Result,
        flags: Flags::NONE,
        slot: 0,
        key: Key::new(0, job, seq),
        bitmap: full_bitmap(fan_in),
        fan_in,
        count: fan_in,
        exponent,
        worker: 0,
    }
    .to_payload(values, lanes)
}

fn drain(worker: &mut Worker, now_us: u64) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| worker.poll_transmit(now_us)).collect()
}

/// The smallest switch there is: sums `DATA` per seq and emits the
/// `RESULT` (OR-ing `OVERFLOW`) when every worker has contributed.
struct TinySwitch {
    fan_in: u8,
    lanes: usize,
    partial: HashMap<u16, (EsaRepr, Vec<i64>)>,
}

impl TinySwitch {
    fn new(fan_in: u8, lanes: usize) -> Self {
        TinySwitch {
            fan_in,
            lanes,
            partial: HashMap::new(),
        }
    }

    fn data(&mut self, payload: &[u8]) -> Option<Vec<u8>> {
        let (repr, values) = parse(payload, self.lanes);
        assert_eq!(repr.packet_type, PacketType::Data);
        let entry = self.partial.entry(repr.key.seq()).or_insert_with(|| {
            let mut first = repr;
            first.bitmap = 0;
            first.count = 0;
            first.flags = Flags::NONE;
            (first, vec![0; values.len()])
        });
        assert_eq!(
            entry.0.exponent, repr.exponent,
            "workers disagree on the exponent"
        );
        if entry.0.bitmap & repr.bitmap != 0 {
            return None;
        }
        entry.0.bitmap |= repr.bitmap;
        entry.0.count += 1;
        entry.0.flags = entry.0.flags | repr.flags.without(Flags::RESEND);
        for (s, v) in entry.1.iter_mut().zip(&values) {
            *s += i64::from(*v);
        }
        if entry.0.count < self.fan_in {
            return None;
        }
        let (mut out, sums) = self.partial.remove(&repr.key.seq())?;
        out.packet_type = PacketType::Result;
        out.worker = repr.worker;
        let sums: Vec<i32> = sums.iter().map(|s| i32::try_from(*s).unwrap()).collect();
        Some(out.to_payload(&sums, self.lanes))
    }
}

#[test]
fn slot_for_is_pinned_and_spreads_a_window() {
    // Golden values: hosts built at different times must agree.
    assert_eq!(slot_for(SlotMapping::Hashed, 1, 0, 64, 4095), 192);
    assert_eq!(slot_for(SlotMapping::Hashed, 1, 5, 64, 4095), 197);
    assert_eq!(slot_for(SlotMapping::Hashed, 1, 69, 64, 4095), 197);
    assert_eq!(slot_for(SlotMapping::Hashed, 2, 63, 64, 255), 192);
    assert_eq!(slot_for(SlotMapping::Hashed, 4095, 5, 64, 4095), 2553);
    assert_eq!(slot_for(SlotMapping::Hashed, 7, 9, 0, 4095), 486);
    assert_eq!(slot_for(SlotMapping::Direct, 7, 0x1234, 64, 0xff), 0x34);
    assert_eq!(slot_for(SlotMapping::Direct, 7, 300, 64, 4095), 300);
    for job in 1..200u16 {
        for (window, mask) in [(64usize, 4095u16), (16, 15), (100, 127)] {
            let mut seen = std::collections::HashSet::new();
            for seq in 1000..1000 + window as u16 {
                let slot = slot_for(SlotMapping::Hashed, job, seq, window, mask);
                assert!(slot <= mask);
                assert!(
                    seen.insert(slot),
                    "job {job} window {window}: slot {slot} twice"
                );
            }
        }
    }
}

#[test]
fn config_validation_names_the_bad_field() {
    assert_eq!(WorkerConfig::new(1, 0, 1).validate(), Ok(()));
    let cases: Vec<(WorkerConfig, WorkerError)> = vec![
        (WorkerConfig::new(1, 0, 0), WorkerError::FanIn(0)),
        (WorkerConfig::new(1, 0, 33), WorkerError::FanIn(33)),
        (
            WorkerConfig::new(1, 4, 4),
            WorkerError::WorkerId {
                worker_id: 4,
                fan_in: 4,
            },
        ),
        (WorkerConfig::new(0, 0, 4), WorkerError::Job(0)),
        (WorkerConfig::new(4096, 0, 4), WorkerError::Job(4096)),
        (config(1, 0, 4, 0, 8), WorkerError::Lanes(0)),
        (config(1, 0, 4, 65, 8), WorkerError::Lanes(65)),
        (config(1, 0, 4, 32, 0), WorkerError::Window(0)),
        (
            config(1, 0, 4, 32, MAX_WINDOW + 1),
            WorkerError::Window(MAX_WINDOW + 1),
        ),
        (
            WorkerConfig {
                slot_mask: 100,
                ..WorkerConfig::new(1, 0, 4)
            },
            WorkerError::SlotMask(100),
        ),
        (
            WorkerConfig {
                slot_mapping: SlotMapping::Direct,
                slot_mask: 31,
                ..config(1, 0, 4, 32, 33)
            },
            WorkerError::WindowExceedsSlots {
                window: 33,
                slots: 32,
            },
        ),
        (
            WorkerConfig {
                exponent: MIN_EXPONENT - 1,
                ..WorkerConfig::new(1, 0, 4)
            },
            WorkerError::Exponent(MIN_EXPONENT - 1),
        ),
        (
            WorkerConfig {
                rto_initial_us: 0,
                ..WorkerConfig::new(1, 0, 4)
            },
            WorkerError::Rto {
                initial_us: 0,
                max_us: 64_000,
            },
        ),
        (
            WorkerConfig {
                rto_max_us: 10,
                ..WorkerConfig::new(1, 0, 4)
            },
            WorkerError::Rto {
                initial_us: 1_000,
                max_us: 10,
            },
        ),
    ];
    let cases = cases.into_iter().chain([
        (
            WorkerConfig {
                rto_min_us: Some(0),
                ..WorkerConfig::new(1, 0, 4)
            },
            WorkerError::RtoMin {
                min_us: 0,
                max_us: 64_000,
            },
        ),
        (
            WorkerConfig {
                rto_min_us: Some(64_001),
                ..WorkerConfig::new(1, 0, 4)
            },
            WorkerError::RtoMin {
                min_us: 64_001,
                max_us: 64_000,
            },
        ),
    ]);
    for (cfg, expected) in cases {
        assert_eq!(cfg.validate(), Err(expected.clone()));
        assert_eq!(Worker::new(cfg).err(), Some(expected));
    }
    // Hashed mode may use a window larger than its range (chunks collide).
    let big = WorkerConfig {
        slot_mask: 31,
        ..config(1, 0, 4, 32, 64)
    };
    assert_eq!(big.validate(), Ok(()));
    let full_range = WorkerConfig {
        slot_mask: u16::MAX,
        ..WorkerConfig::new(1, 0, 4)
    };
    assert_eq!(full_range.validate(), Ok(()));
}

#[test]
fn data_packet_bytes_are_exact() {
    let cfg = WorkerConfig {
        exponent: 0,
        slot_mapping: SlotMapping::Direct,
        ..config(5, 1, 2, 2, 4)
    };
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0, -2.0, 3.0], 0).unwrap();
    let packets = drain(&mut w, 0);
    assert_eq!(packets.len(), 2);
    #[rustfmt::skip]
    let first: [u8; 24] = [
        0x11, 0x00, 0x00, 0x00,  // version 1 | DATA, no flags, slot 0
        0x00, 0x05, 0x00, 0x00,  // key: priority 0, job 5, seq 0
        0x00, 0x00, 0x00, 0x02,  // bitmap: worker 1
        0x02, 0x01, 0x00, 0x01,  // fan_in 2, count 1, exponent 0, worker 1
        0x00, 0x00, 0x00, 0x01,  // 1
        0xff, 0xff, 0xff, 0xfe,  // -2
    ];
    assert_eq!(packets[0], first);
    #[rustfmt::skip]
    let second: [u8; 24] = [
        0x11, 0x00, 0x00, 0x01,  // slot 1 (Direct: seq & mask)
        0x00, 0x05, 0x00, 0x01,  // seq 1
        0x00, 0x00, 0x00, 0x02,
        0x02, 0x01, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x03,  // 3
        0x00, 0x00, 0x00, 0x00,  // zero padding
    ];
    assert_eq!(packets[1], second);
}

#[test]
fn sends_exactly_window_then_waits() {
    let mut w = Worker::new(config(9, 0, 2, 4, 3)).unwrap();
    w.start_allreduce(&[0.5; 40], 100).unwrap();
    let first = drain(&mut w, 100);
    assert_eq!(first.len(), 3);
    let seqs: Vec<u16> = first.iter().map(|p| parse(p, 4).0.key.seq()).collect();
    assert_eq!(seqs, [0, 1, 2]);
    for (i, p) in first.iter().enumerate() {
        let (repr, values) = parse(p, 4);
        assert_eq!(
            repr.slot,
            slot_for(SlotMapping::Hashed, 9, i as u16, 3, 4095)
        );
        assert_eq!(repr.flags, Flags::NONE);
        assert_eq!(values, [32768; 4]);
    }
    assert_eq!(w.poll_transmit(100), None);
    assert_eq!(w.outstanding(), 3);
    assert_eq!(w.poll_timeout(), Some(1_100));

    // One result opens one place in the window.
    w.handle_payload(&result(9, 1, 2, 16, &[65536; 4], 4), 150)
        .unwrap();
    let next = drain(&mut w, 150);
    assert_eq!(next.len(), 1);
    assert_eq!(parse(&next[0], 4).0.key.seq(), 3);
    assert_eq!(w.stats().data_sent, 4);
    assert_eq!(w.stats().packets_sent, 4);
}

/// `payload` turned into a packet of type `kind` (an answer to a probe).
fn as_type(payload: &[u8], kind: PacketType) -> Vec<u8> {
    let mut p = payload.to_vec();
    p[0] = (p[0] & 0xf0) | kind as u8;
    p
}

#[test]
fn a_timeout_probes_and_only_an_unanswered_probe_resends() {
    let cfg = WorkerConfig {
        rto_initial_us: 1_000,
        rto_max_us: 2_500,
        ..config(3, 0, 2, 2, 1)
    };
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0, 2.0], 0).unwrap();
    let original = w.poll_transmit(0).unwrap();
    assert_eq!(w.poll_timeout(), Some(1_000));

    w.handle_timeout(999);
    assert_eq!(w.poll_transmit(999), None);

    // The first timeout asks: the DATA's header as PROBE, lanes zero.
    w.handle_timeout(1_000);
    let probe = w.poll_transmit(1_000).unwrap();
    assert_eq!(w.poll_transmit(1_000), None);
    let mut expected_probe = as_type(&original, PacketType::Probe);
    expected_probe[HEADER_LEN..].fill(0);
    assert_eq!(probe, expected_probe);
    assert_eq!(w.poll_timeout(), Some(3_000), "RTO doubled to 2000");

    // Nothing answered: the next timeout resends the same bytes, RESEND set.
    w.handle_timeout(3_000);
    let mut expected_resend = original.clone();
    expected_resend[1] = Flags::RESEND.0;
    assert_eq!(w.poll_transmit(3_000), Some(expected_resend.clone()));
    assert_eq!(w.poll_timeout(), Some(5_500), "RTO capped at 2500");

    // After a resend the next timeout asks again, with RESEND (a repeated
    // probe goes on to the PS); PENDING means wait.
    let mut expected_reprobe = expected_probe.clone();
    expected_reprobe[1] = Flags::RESEND.0;
    w.handle_timeout(5_500);
    assert_eq!(w.poll_transmit(5_500), Some(expected_reprobe.clone()));
    w.handle_payload(&as_type(&probe, PacketType::Pending), 5_600)
        .unwrap();
    assert_eq!(w.poll_transmit(5_600), None);
    w.handle_timeout(8_000);
    assert_eq!(
        w.poll_transmit(8_000),
        Some(expected_reprobe.clone()),
        "answered: another probe, no resend"
    );
    // MISSING means resend now.
    w.handle_payload(&as_type(&probe, PacketType::Missing), 8_100)
        .unwrap();
    assert_eq!(w.poll_transmit(8_100), Some(expected_resend.clone()));
    assert_eq!(w.poll_timeout(), Some(10_600));

    // Two timeouts without a poll in between queue one packet, and the
    // unanswered probe of the first makes it a resend.
    w.handle_timeout(10_600);
    assert_eq!(w.poll_transmit(10_600), Some(expected_reprobe));
    w.handle_timeout(13_100);
    w.handle_timeout(15_600);
    assert_eq!(w.poll_transmit(15_600), Some(expected_resend));
    assert_eq!(w.poll_transmit(15_600), None);
    let s = w.stats();
    assert_eq!(
        (
            s.probes,
            s.resends,
            s.data_sent,
            s.pending_answers,
            s.missing_answers
        ),
        (4, 3, 1, 1, 1)
    );
}

#[test]
fn answers_for_peers_and_finished_chunks_change_nothing() {
    let mut w = Worker::new(config(3, 0, 2, 2, 2)).unwrap();
    w.start_allreduce(&[1.0; 4], 0).unwrap();
    let sent = drain(&mut w, 0);
    w.handle_payload(&result(3, 0, 2, 16, &[0, 0], 2), 10)
        .unwrap();
    // MISSING for worker 1's chunk: not ours.
    let mut peer = as_type(&sent[1], PacketType::Missing);
    peer[15] = 1;
    w.handle_payload(&peer, 20).unwrap();
    // MISSING for a chunk already done; PENDING with another exponent.
    w.handle_payload(&as_type(&sent[0], PacketType::Missing), 20)
        .unwrap();
    let mut other_exponent = as_type(&sent[1], PacketType::Pending);
    other_exponent[14] = 3;
    w.handle_payload(&other_exponent, 20).unwrap();
    assert_eq!(w.poll_transmit(20), None);
    let s = w.stats();
    assert_eq!((s.answers_for_peers, s.stale_answers), (1, 2));
    assert_eq!((s.resends, s.invalid_packets), (0, 0));
}

#[test]
fn result_is_accepted_once_and_gives_the_exact_sum() {
    let lanes = 2;
    let cfg = WorkerConfig {
        exponent: 4,
        ..config(6, 0, 2, lanes, 8)
    };
    let mut w = Worker::new(cfg).unwrap();
    // The other worker contributes [0.5, 0.25, -1.0]: q = [8, 4], [-16, 0].
    w.start_allreduce(&[1.5, -0.25, 2.0], 0).unwrap();
    let sent: Vec<(EsaRepr, Vec<i32>)> = drain(&mut w, 0).iter().map(|p| parse(p, lanes)).collect();
    assert_eq!(sent[0].1, [24, -4]);
    assert_eq!(sent[1].1, [32, 0]);

    w.handle_payload(&result(6, 0, 2, 4, &[32, 0], lanes), 10)
        .unwrap();
    assert_eq!(w.poll_event(), None);
    let mut from_ps = result(6, 1, 2, 4, &[16, 0], lanes);
    from_ps[15] = PS_WORKER_ID;
    w.handle_payload(&from_ps, 20).unwrap();
    assert_eq!(
        w.poll_event(),
        Some(WorkerEvent::Completed {
            seq_base: 0,
            chunks: 2
        })
    );
    assert_eq!(w.take_result(), Some(vec![2.0, 0.0, 1.0]));
    assert_eq!(w.take_result(), None);

    // The same results again are duplicates and change nothing.
    w.handle_payload(&result(6, 0, 2, 4, &[99, 99], lanes), 30)
        .unwrap();
    w.handle_payload(&from_ps, 30).unwrap();
    let s = w.stats();
    assert_eq!(
        (
            s.results_accepted,
            s.results_from_switch,
            s.results_from_ps,
            s.duplicate_results
        ),
        (2, 1, 1, 2)
    );
    assert_eq!(w.poll_event(), None);
    assert_eq!(w.poll_timeout(), None);

    // The next all-reduce continues the seq counter.
    w.start_allreduce(&[1.0], 40).unwrap();
    assert_eq!(w.start_allreduce(&[1.0], 40), Err(WorkerError::Busy));
    assert_eq!(parse(&w.poll_transmit(40).unwrap(), lanes).0.key.seq(), 2);
}

#[test]
fn invalid_results_are_rejected_without_damage() {
    let lanes = 2;
    let mut w = Worker::new(config(6, 1, 3, lanes, 8)).unwrap();
    w.start_allreduce(&[1.0, 1.0], 0).unwrap();
    drain(&mut w, 0);
    let good = result(6, 0, 3, 16, &[3 << 16, 3 << 16], lanes);

    let mut partial = good.clone();
    partial[11] = 0b011;
    let mut bad_count = good.clone();
    bad_count[13] = 2;
    let mut bad_exponent = good.clone();
    bad_exponent[14] = 8;
    let mut bad_fan_in = good.clone();
    bad_fan_in[12] = 4;
    let mut other_job = good.clone();
    other_job[5] = 7;
    let mut data = good.clone();
    data[0] = 0x11;
    let mut bad_version = good.clone();
    bad_version[0] = 0x22;
    let mut bad_type = good.clone();
    bad_type[0] = 0x1b;
    let cases: Vec<(Vec<u8>, WorkerError)> = vec![
        (
            partial,
            WorkerError::IncompleteResult {
                seq: 0,
                bitmap: 0b011,
                count: 3,
            },
        ),
        (
            bad_count,
            WorkerError::IncompleteResult {
                seq: 0,
                bitmap: 0b111,
                count: 2,
            },
        ),
        (
            bad_exponent,
            WorkerError::ResultExponent {
                seq: 0,
                expected: 16,
                found: 8,
            },
        ),
        (
            bad_fan_in,
            WorkerError::ResultFanIn {
                seq: 0,
                expected: 3,
                found: 4,
            },
        ),
        (
            other_job,
            WorkerError::WrongJob {
                expected: 6,
                found: 7,
            },
        ),
        (data, WorkerError::UnexpectedType(PacketType::Data)),
        (
            bad_version,
            WorkerError::Malformed(WireError::BadVersion(2)),
        ),
        (bad_type, WorkerError::Malformed(WireError::UnknownType(11))),
        (
            good[..20].to_vec(),
            WorkerError::Malformed(WireError::BadLanes { lanes: 2, have: 20 }),
        ),
        (
            good[..3].to_vec(),
            WorkerError::Malformed(WireError::Truncated {
                layer: crate::wire::Layer::Esa,
                need: 16,
                have: 3,
            }),
        ),
    ];
    let n = cases.len() as u64;
    for (payload, expected) in cases {
        assert_eq!(w.handle_payload(&payload, 5), Err(expected));
    }
    assert_eq!(w.stats().invalid_packets, n);
    assert_eq!(w.stats().results_accepted, 0);
    assert_eq!(w.outstanding(), 1);
    assert_eq!(w.poll_event(), None);

    w.handle_payload(&good, 6).unwrap();
    assert_eq!(
        w.poll_event(),
        Some(WorkerEvent::Completed {
            seq_base: 0,
            chunks: 1
        })
    );
    assert_eq!(w.take_result(), Some(vec![3.0, 3.0]));
}

#[test]
fn query_is_answered_from_the_cache() {
    let lanes = 2;
    let cfg = WorkerConfig {
        result_cache: 2,
        ..config(6, 2, 3, lanes, 8)
    };
    let mut w = Worker::new(cfg).unwrap();
    // Four chunks, three results: the all-reduce is still running, so
    // the OVERFLOW flags below trigger no re-run during the test.
    w.start_allreduce(&[1.0; 8], 0).unwrap();
    drain(&mut w, 0);
    for seq in 0..3u16 {
        let mut r = result(6, seq, 3, 16, &[i32::from(seq) + 10, -1], lanes);
        r[1] = Flags::OVERFLOW.0 | Flags::RESEND.0;
        r[2..4].copy_from_slice(&(seq + 40).to_be_bytes());
        r[4] = 0x30; // priority 3
        w.handle_payload(&r, 1).unwrap();
    }
    let query = |seq: u16| {
        EsaRepr {
            packet_type: PacketType::Query,
            flags: Flags::NONE,
            slot: 0,
            key: Key::new(0, 6, seq),
            bitmap: 0,
            fan_in: 3,
            count: 0,
            exponent: 16,
            worker: PS_WORKER_ID,
        }
        .to_payload(&[], lanes)
    };
    w.handle_payload(&query(2), 5).unwrap();
    #[rustfmt::skip]
    let answer: [u8; 24] = [
        0x12, 0x04, 0x00, 42,    // RESULT, OVERFLOW kept, RESEND dropped, slot 42
        0x30, 0x06, 0x00, 0x02,  // the cached key: priority 3, job 6, seq 2
        0x00, 0x00, 0x00, 0x07,  // bitmap full
        0x03, 0x03, 0x10, 0x02,  // fan_in 3, count 3, exponent 16, worker 2 (own id)
        0x00, 0x00, 0x00, 12,
        0xff, 0xff, 0xff, 0xff,
    ];
    assert_eq!(w.poll_transmit(5), Some(answer.to_vec()));
    assert_eq!(w.poll_transmit(5), None);
    // Seq 0 fell out of the two-entry cache; seq 9 was never seen.
    w.handle_payload(&query(0), 6).unwrap();
    w.handle_payload(&query(9), 6).unwrap();
    assert_eq!(w.poll_transmit(6), None);
    w.handle_payload(&query(1), 7).unwrap();
    assert_eq!(parse(&w.poll_transmit(7).unwrap(), lanes).1, [11, -1]);
    assert_eq!(
        (w.stats().queries_answered, w.stats().queries_unanswered),
        (2, 2)
    );
}

#[test]
fn max_retries_fails_naming_the_seq() {
    let cfg = WorkerConfig {
        max_retries: 2,
        ..config(12, 0, 2, 2, 4)
    };
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0; 4], 0).unwrap();
    drain(&mut w, 0);
    // Seq 0 gets its result, seq 1 never does.
    w.handle_payload(&result(12, 0, 2, 16, &[0, 0], 2), 10)
        .unwrap();
    let mut now = 0;
    // The first timeout asks; nothing answers, so the second resends.
    for (timeout, kind, flags) in [
        (1, PacketType::Probe, Flags::NONE),
        (2, PacketType::Data, Flags::RESEND),
    ] {
        now = w.poll_timeout().unwrap();
        w.handle_timeout(now);
        let (repr, _) = parse(&w.poll_transmit(now).unwrap(), 2);
        assert_eq!(
            (repr.packet_type, repr.key.seq(), repr.flags),
            (kind, 1, flags),
            "timeout {timeout}"
        );
        assert_eq!(w.poll_event(), None);
    }
    assert_eq!(now, 3_000);
    assert_eq!(w.poll_timeout(), Some(7_000));
    w.handle_timeout(7_000);
    let expected = WorkerError::ResultTimeout {
        job: 12,
        seq: 1,
        timeouts: 2,
        resends: 1,
    };
    assert_eq!(
        expected.to_string(),
        "job 12: chunk seq 1 got no RESULT after 2 timeouts (1 resends)"
    );
    assert_eq!(w.poll_event(), Some(WorkerEvent::Failed(expected)));
    assert_eq!(w.poll_transmit(7_000), None);
    assert_eq!(w.poll_timeout(), None);
    assert_eq!(w.take_result(), None);
    assert!(!w.is_busy());
    assert_eq!(w.next_seq(), 2, "a retry starts on fresh seqs");
}

#[test]
fn priority_is_fixed_at_first_send() {
    let cfg = WorkerConfig {
        policy: Policy::Las {
            aging_interval_us: 0,
        },
        ..config(4, 0, 2, 1, 4)
    };
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0; 5], 0).unwrap();
    let first: Vec<u8> = drain(&mut w, 0)
        .iter()
        .map(|p| parse(p, 1).0.key.priority())
        .collect();
    assert_eq!(first, [15; 4]);
    for seq in 0..3 {
        w.handle_payload(&result(4, seq, 2, 16, &[0], 1), 10)
            .unwrap();
    }
    // Three chunks done: las drops to 14 for the new chunk only.
    let (repr, _) = parse(&w.poll_transmit(10).unwrap(), 1);
    assert_eq!((repr.key.seq(), repr.key.priority()), (4, 14));
    // The probe, and the resend after it, keep the first send's priority.
    w.handle_timeout(1_000);
    let (repr, _) = parse(&w.poll_transmit(1_000).unwrap(), 1);
    assert_eq!(
        (repr.packet_type, repr.key.seq(), repr.key.priority()),
        (PacketType::Probe, 3, 15)
    );
    w.handle_timeout(10_000);
    let (repr, _) = parse(&w.poll_transmit(10_000).unwrap(), 1);
    assert_eq!(
        (repr.key.seq(), repr.key.priority(), repr.flags),
        (3, 15, Flags::RESEND)
    );
}

/// The payload the old emit path made for a chunk: quantize into a
/// vector, then `FrameRepr::emit` (cut to its ESA payload).
fn reference_payload(
    cfg: &WorkerConfig,
    chunk: &[f32],
    seq: u16,
    exponent: i8,
    resend: bool,
) -> Vec<u8> {
    use crate::wire::frame::ESA_OFFSET;
    use crate::wire::{FrameRepr, Ipv4Addr, MacAddr};
    let mut values = vec![0i32; cfg.lanes];
    let saturated = quant::quantize_into(chunk, exponent, cfg.fan_in, &mut values);
    let mut flags = if saturated {
        Flags::OVERFLOW
    } else {
        Flags::NONE
    };
    if resend {
        flags = flags | Flags::RESEND;
    }
    let esa = EsaRepr {
        packet_type: PacketType::Data,
        flags,
        slot: slot_for(cfg.slot_mapping, cfg.job, seq, cfg.window, cfg.slot_mask),
        key: Key::new(0, cfg.job, seq),
        bitmap: 1 << cfg.worker_id,
        fan_in: cfg.fan_in,
        count: 1,
        exponent,
        worker: cfg.worker_id,
    };
    let frame = FrameRepr {
        src_mac: MacAddr::local(1),
        dst_mac: MacAddr::local(2),
        src_ip: Ipv4Addr::new(10, 0, 0, 1),
        dst_ip: Ipv4Addr::new(10, 0, 0, 2),
        esa,
    }
    .emit(&values, cfg.lanes);
    let payload = frame[ESA_OFFSET..].to_vec();
    assert_eq!(payload, esa.to_payload(&values, cfg.lanes));
    payload
}

#[test]
fn transmit_into_is_byte_exact_with_the_emit_path() {
    let mut rng = crate::rng::Rng::new(77);
    for case in 0..300 {
        let fan_in = 1 + rng.below(32) as u8;
        let lanes = 1 + rng.below(64) as usize;
        let cfg = WorkerConfig {
            lanes,
            window: 1 + rng.below(40) as usize,
            exponent: (rng.below(40) as i64 - 10) as i8,
            slot_mapping: if rng.chance(0.5) {
                SlotMapping::Hashed
            } else {
                SlotMapping::Direct
            },
            slot_mask: 63,
            first_seq: rng.next_u64() as u16,
            ..WorkerConfig::new(
                1 + rng.below(4095) as u16,
                rng.below(u64::from(fan_in)) as u8,
                fan_in,
            )
        };
        let n = rng.below(40 * lanes as u64) as usize;
        let data: Vec<f32> = (0..n)
            .map(|_| match rng.below(50) {
                0 => f32::NAN,
                1 => 1e12,
                2 => -f32::INFINITY,
                _ => (rng.unit() as f32 - 0.5) * 100.0,
            })
            .collect();
        let mut w = Worker::new(cfg.clone()).unwrap();
        w.start_allreduce(&data, 0).unwrap();
        // Garbage before, and a tail the worker must not touch.
        let len = w.payload_len();
        let mut buf = vec![0xa5u8; len + 7];
        let mut seq = cfg.first_seq;
        let mut sent = 0;
        while let Some(written) = w.poll_transmit_into(0, &mut buf).unwrap() {
            assert_eq!(written, len);
            let chunk = &data[sent * lanes..((sent + 1) * lanes).min(n)];
            let expected = reference_payload(&cfg, chunk, seq, cfg.exponent, false);
            assert_eq!(&buf[..len], &expected[..], "case {case} seq {seq}");
            assert_eq!(
                &buf[len..],
                &[0xa5; 7],
                "case {case}: wrote past the payload"
            );
            buf.fill(0xa5);
            seq = seq.wrapping_add(1);
            sent += 1;
        }
        assert_eq!(sent, n.div_ceil(lanes).min(cfg.window));
        // Timeouts probe first: the DATA's header as PROBE, lanes zero.
        w.handle_timeout(u64::MAX / 4);
        let mut probed = 0;
        while let Some(written) = w.poll_transmit_into(1, &mut buf).unwrap() {
            let p = EsaPacket::new_checked(&buf[..written], lanes).unwrap();
            let at = usize::from(p.key().seq().wrapping_sub(cfg.first_seq));
            let chunk = &data[at * lanes..((at + 1) * lanes).min(n)];
            let mut expected = reference_payload(&cfg, chunk, p.key().seq(), cfg.exponent, false);
            expected[0] = (expected[0] & 0xf0) | PacketType::Probe as u8;
            expected[1] = 0;
            expected[HEADER_LEN..].fill(0);
            assert_eq!(&buf[..written], &expected[..], "case {case} probe {at}");
            probed += 1;
        }
        assert_eq!(probed, sent);
        // Unanswered, the next timeouts resend; resends quantize again: the
        // same bytes, with RESEND.
        w.handle_timeout(u64::MAX / 2);
        let mut resent = 0;
        while let Some(written) = w.poll_transmit_into(1, &mut buf).unwrap() {
            let p = EsaPacket::new_checked(&buf[..written], lanes).unwrap();
            let at = usize::from(p.key().seq().wrapping_sub(cfg.first_seq));
            let chunk = &data[at * lanes..((at + 1) * lanes).min(n)];
            let expected = reference_payload(&cfg, chunk, p.key().seq(), cfg.exponent, true);
            assert_eq!(&buf[..written], &expected[..], "case {case} resend {at}");
            resent += 1;
        }
        assert_eq!(resent, sent);
    }
}

#[test]
fn a_short_transmit_buffer_is_an_error_and_consumes_nothing() {
    let mut w = Worker::new(config(2, 0, 2, 4, 8)).unwrap();
    w.start_allreduce(&[1.0; 4], 0).unwrap();
    let mut short = [0u8; 31];
    assert_eq!(
        w.poll_transmit_into(0, &mut short),
        Err(WorkerError::BufferTooSmall { need: 32, have: 31 })
    );
    assert_eq!(w.outstanding(), 0);
    assert_eq!(w.stats().packets_sent, 0);
    let mut long = [0u8; 100];
    assert_eq!(w.poll_transmit_into(0, &mut long), Ok(Some(32)));
    assert_eq!(parse(&long[..32], 4).1, [1 << 16; 4]);
    assert_eq!(w.poll_transmit_into(0, &mut long), Ok(None));
}

#[test]
fn first_seq_starts_the_counter_and_wraps() {
    let cfg = WorkerConfig {
        first_seq: u16::MAX - 1,
        policy: Policy::Las {
            aging_interval_us: 0,
        },
        ..config(7, 1, 2, 1, 8)
    };
    let mut w = Worker::new(cfg).unwrap();
    assert_eq!(w.next_seq(), u16::MAX - 1);
    w.start_allreduce(&[1.0, 2.0, 3.0], 0).unwrap();
    let sent: Vec<(u16, u16, u8)> = drain(&mut w, 0)
        .iter()
        .map(|p| {
            let r = parse(p, 1).0;
            (r.key.seq(), r.slot, r.key.priority())
        })
        .collect();
    // The policy counts the seqs before first_seq as the job's attained
    // service, as a worker that ran from seq 0 would.
    let las = 15 - (u64::from(u16::MAX) - 1).ilog2() as u8 / 2;
    let slot = |seq| slot_for(SlotMapping::Hashed, 7, seq, 8, 4095);
    assert_eq!(
        sent,
        [
            (u16::MAX - 1, slot(u16::MAX - 1), las),
            (u16::MAX, slot(u16::MAX), las),
            (0, slot(0), las)
        ]
    );
    // Results across the wrap are matched to their chunks.
    for (seq, v) in [(0u16, 30), (u16::MAX, 20), (u16::MAX - 1, 10)] {
        w.handle_payload(&result(7, seq, 2, 16, &[v << 16], 1), 5)
            .unwrap();
    }
    assert_eq!(
        w.poll_event(),
        Some(WorkerEvent::Completed {
            seq_base: u16::MAX - 1,
            chunks: 3
        })
    );
    assert_eq!(w.result(), Some(&[10.0, 20.0, 30.0][..]));
    assert_eq!(w.next_seq(), 1);
    // A QUERY for a seq before first_seq finds nothing to answer.
    let query = EsaRepr {
        packet_type: PacketType::Query,
        flags: Flags::NONE,
        slot: 0,
        key: Key::new(0, 7, 100),
        bitmap: 0,
        fan_in: 2,
        count: 0,
        exponent: 16,
        worker: PS_WORKER_ID,
    }
    .to_payload(&[], 1);
    w.handle_payload(&query, 6).unwrap();
    assert_eq!(w.poll_transmit(6), None);
    assert_eq!(w.stats().queries_unanswered, 1);
}

#[test]
fn a_result_is_accepted_once_even_behind_a_waiting_chunk() {
    let lanes = 1;
    let mut w = Worker::new(config(3, 0, 1, lanes, 4)).unwrap();
    w.start_allreduce(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 0)
        .unwrap();
    assert_eq!(drain(&mut w, 0).len(), 4);
    // Seq 0 waits; 1 and 2 complete, and their duplicates are ignored
    // while they sit in the ring behind seq 0.
    for seq in [1u16, 2, 1, 2] {
        let v = (i32::from(seq) + 1) << 16;
        w.handle_payload(&result(3, seq, 1, 16, &[v * 100], lanes), 1)
            .unwrap();
    }
    assert_eq!(
        (w.stats().results_accepted, w.stats().duplicate_results),
        (2, 2)
    );
    assert_eq!(w.outstanding(), 2);
    let next: Vec<u16> = drain(&mut w, 1)
        .iter()
        .map(|p| parse(p, lanes).0.key.seq())
        .collect();
    assert_eq!(next, [4, 5]);
    for seq in [0u16, 3, 4, 5, 0] {
        let v = (i32::from(seq) + 1) << 16;
        w.handle_payload(&result(3, seq, 1, 16, &[v], lanes), 2)
            .unwrap();
    }
    assert_eq!(w.stats().duplicate_results, 3);
    assert_eq!(
        w.take_result(),
        Some(vec![1.0, 200.0, 300.0, 4.0, 5.0, 6.0])
    );
}

#[test]
fn a_chunk_that_never_completes_bounds_the_seqs_in_flight() {
    // Window 2, every chunk but seq 0 completes at once: sending stops
    // when the chunks since seq 0 span half the seq space, even with a
    // result cache that would allow more.
    let cfg = WorkerConfig {
        result_cache: 4 * MAX_WINDOW,
        ..config(3, 0, 1, 1, 2)
    };
    assert_eq!(cfg.max_span(), MAX_WINDOW);
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&vec![1.0; MAX_WINDOW + 100], 0).unwrap();
    let mut buf = vec![0u8; w.payload_len()];
    let mut sent = 0;
    while let Some(n) = w.poll_transmit_into(0, &mut buf).unwrap() {
        sent += 1;
        let seq = parse(&buf[..n], 1).0.key.seq();
        if seq != 0 {
            buf[0] = 0x12;
            w.handle_payload(&buf[..n], 0).unwrap();
        }
    }
    assert_eq!(sent, MAX_WINDOW + 1, "then seq 0 is probed once");
    assert_eq!(w.outstanding(), 1);
    w.handle_payload(&result(3, 0, 1, 16, &[1 << 16], 1), 0)
        .unwrap();
    assert_eq!(drain(&mut w, 0).len(), 2, "the window moves on");
}

#[test]
fn a_waiting_chunk_holds_the_job_within_reach_of_the_result_caches() {
    // Window 4, the default cache of four windows: while seq 0 waits,
    // the worker sends no chunk 8 or more seqs past it, so no peer can
    // accept more than 2 × 8 − 2 = 14 results after seq 0's and push
    // it out of its 16-entry cache before the PS asks for it.
    let cfg = WorkerConfig {
        result_cache: 16,
        ..config(3, 0, 2, 1, 4)
    };
    assert_eq!(cfg.max_span(), 8);
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0; 40], 0).unwrap();
    let mut buf = vec![0u8; w.payload_len()];
    let mut sent = vec![];
    while let Some(n) = w.poll_transmit_into(0, &mut buf).unwrap() {
        let seq = parse(&buf[..n], 1).0.key.seq();
        sent.push(seq);
        if seq != 0 {
            w.handle_payload(&result(3, seq, 2, 16, &[2 << 16], 1), 0)
                .unwrap();
        }
    }
    // Reaching the bound probes seq 0 at once (a window of later chunks
    // completed without it: its RESULT may be lost, or it may be
    // completing at the PS), then waits.
    assert_eq!(sent, [0, 1, 2, 3, 4, 5, 6, 7, 0]);
    assert_eq!(w.outstanding(), 1);
    assert_eq!((w.stats().probes, w.stats().resends), (1, 0));
    assert_eq!(w.poll_transmit(0), None, "only once");
    // Nothing answered: its timeout resends it.
    w.handle_timeout(w.poll_timeout().unwrap());
    let resent = drain(&mut w, 1_000_000);
    assert_eq!(resent.len(), 1);
    assert!(parse(&resent[0], 1).0.flags.contains(Flags::RESEND));
    w.handle_payload(&result(3, 0, 2, 16, &[2 << 16], 1), 1_000_001)
        .unwrap();
    let next: Vec<u16> = drain(&mut w, 1_000_001)
        .iter()
        .map(|p| parse(p, 1).0.key.seq())
        .collect();
    assert_eq!(next, [8, 9, 10, 11], "a full window moves on");
}

#[test]
fn max_span_follows_the_result_cache() {
    let span = |window, result_cache| {
        WorkerConfig {
            result_cache,
            ..config(3, 0, 2, 1, window)
        }
        .max_span()
    };
    assert_eq!(span(64, 256), 128);
    assert_eq!(span(64, 5), 64, "never below the window");
    assert_eq!(span(4, 9), 5, "2 × 5 − 1 ≤ 9");
    assert_eq!(span(4, 0), 4);
    assert_eq!(span(MAX_WINDOW, 4 * MAX_WINDOW), MAX_WINDOW);
}

#[test]
fn buffers_are_reused_and_results_stay_exact() {
    let lanes = 4;
    let mut workers: Vec<Worker> = (0..3)
        .map(|id| Worker::new(config(8, id, 3, lanes, 4)).unwrap())
        .collect();
    for round in 0..4 {
        let inputs: Vec<Vec<f32>> = (0..3)
            .map(|id| {
                (0..37)
                    .map(|i| (i * (id + 1) + round) as f32 * 0.25)
                    .collect()
            })
            .collect();
        allreduce_via_switch(&mut workers, &inputs, lanes);
        let expected: Vec<f32> = (0..37)
            .map(|i| (0..3).map(|id| (i * (id + 1) + round) as f32 * 0.25).sum())
            .collect();
        for w in &mut workers {
            assert!(matches!(
                w.poll_event(),
                Some(WorkerEvent::Completed { .. })
            ));
            // Read in place; the next start_allreduce reuses the buffer.
            assert_eq!(w.result(), Some(&expected[..]), "round {round}");
        }
    }
}

#[test]
fn the_rto_follows_measured_round_trips_of_chunks_sent_once() {
    let lanes = 1;
    let cfg = WorkerConfig {
        rto_initial_us: 1_000,
        rto_max_us: 64_000,
        ..config(5, 0, 1, lanes, 2)
    };
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0; 40], 0).unwrap();
    assert!(w.poll_transmit(0).is_some());
    assert!(w.poll_transmit(500).is_some());
    assert_eq!(w.poll_timeout(), Some(1_000), "initial RTO");
    // Seq 0 times out and is resent; its late result is no sample.
    w.handle_timeout(1_000);
    assert_eq!(drain(&mut w, 1_000).len(), 1);
    w.handle_payload(&result(5, 0, 1, 16, &[1], lanes), 4_000)
        .unwrap();
    assert_eq!(w.rtt().srtt_us(), None, "Karn's rule");
    // Seq 1, sent once at 500, answered at 5000: SRTT 4500, RTTVAR
    // 2250, RTO 13500 for the chunks sent from now on.
    w.handle_payload(&result(5, 1, 1, 16, &[1], lanes), 5_000)
        .unwrap();
    assert_eq!(
        (w.rtt().srtt_us(), w.rtt().rttvar_us(), w.rtt().rto_us()),
        (Some(4_500), 2_250, 13_500)
    );
    let next = drain(&mut w, 5_000);
    assert_eq!(next.len(), 2);
    assert_eq!(w.poll_timeout(), Some(18_500));
    // A sudden drop raises RTTVAR first (RFC 6298 updates it from the
    // old SRTT); steady 10 µs round trips then bring the RTO down to
    // its floor, rto_initial_us.
    w.handle_payload(&result(5, 2, 1, 16, &[1], lanes), 5_010)
        .unwrap();
    assert_eq!(
        (w.rtt().srtt_us(), w.rtt().rttvar_us(), w.rtt().rto_us()),
        (Some(3_938), 2_810, 15_178)
    );
    let mut now = 5_010;
    while let Some(p) = w.poll_transmit(now).or_else(|| {
        let seq = w.ring.entries.iter().position(|c| !c.done)?;
        Some(result(
            5,
            w.ring.front_seq.wrapping_add(seq as u16),
            1,
            16,
            &[1],
            lanes,
        ))
    }) {
        let (repr, _) = parse(&p, lanes);
        if repr.packet_type == PacketType::Result {
            now += 10;
            w.handle_payload(&p, now).unwrap();
        }
    }
    assert_eq!(w.rtt().rto_us(), 1_000);
    assert_eq!(w.take_result(), Some(vec![1.0 / 65536.0; 40]));
}

#[test]
fn an_rto_floor_below_the_initial_one_lets_it_shrink() {
    let cfg = WorkerConfig {
        rto_initial_us: 1_000,
        rto_min_us: Some(50),
        ..config(5, 0, 1, 1, 1)
    };
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0; 2], 0).unwrap();
    drain(&mut w, 0);
    w.handle_payload(&result(5, 0, 1, 16, &[1], 1), 10).unwrap();
    // SRTT 10, RTTVAR 5: 30 µs, raised to the 50 µs floor.
    assert_eq!(w.rtt().rto_us(), 50);
    drain(&mut w, 10);
    assert_eq!(w.poll_timeout(), Some(60));
}

#[test]
fn empty_tensor_completes_at_once() {
    let mut w = Worker::new(WorkerConfig::new(1, 0, 1)).unwrap();
    w.start_allreduce(&[], 0).unwrap();
    assert_eq!(
        w.poll_event(),
        Some(WorkerEvent::Completed {
            seq_base: 0,
            chunks: 0
        })
    );
    assert_eq!(w.take_result(), Some(vec![]));
    assert_eq!(w.poll_transmit(0), None);
    assert!(!w.is_busy());
}

/// Runs one all-reduce over the tiny switch without loss.
fn allreduce_via_switch(workers: &mut [Worker], inputs: &[Vec<f32>], lanes: usize) {
    for (w, input) in workers.iter_mut().zip(inputs) {
        w.start_allreduce(input, 0).unwrap();
    }
    deliver_via_switch(workers, lanes, |_, _| {});
}

/// Carries the started all-reduces' packets over the tiny switch without
/// loss until they settle; `tamper(worker, result)` may change a `RESULT`
/// on its way to one worker.
fn deliver_via_switch(
    workers: &mut [Worker],
    lanes: usize,
    mut tamper: impl FnMut(usize, &mut [u8]),
) {
    let mut switch = TinySwitch::new(workers.len() as u8, lanes);
    for _round in 0..100 {
        let mut results = Vec::new();
        for w in workers.iter_mut() {
            for p in drain(w, 0) {
                results.extend(switch.data(&p));
            }
        }
        if results.is_empty() {
            return;
        }
        for r in &results {
            for (i, w) in workers.iter_mut().enumerate() {
                let mut r = r.clone();
                tamper(i, &mut r);
                w.handle_payload(&r, 0).unwrap();
            }
        }
    }
    panic!("the all-reduce did not settle");
}

#[test]
fn checksums_of_contributions_add_up_to_the_result_s_across_an_overflow_re_run() {
    use crate::integrity::{self, Coefficients};
    let lanes = 2;
    let mut workers: Vec<Worker> = (0..2)
        .map(|id| Worker::new(config(8, id, 2, lanes, 2)).unwrap())
        .collect();
    let inputs = [
        vec![1.5, -2.25, 20000.0, 3.0, 7.0],
        vec![0.5, 0.25, 1.0, 0.5, -7.0],
    ];
    let mut rng = crate::rng::Rng::new(9);
    let mut coefficients = Coefficients::default();
    coefficients.refill(3, lanes, || rng.next_u64());
    let checked = |workers: &mut [Worker], tamper: fn(usize, &mut [u8])| {
        for (w, input) in workers.iter_mut().zip(&inputs) {
            w.start_checked_allreduce(input, 0, &coefficients).unwrap();
        }
        deliver_via_switch(workers, lanes, tamper);
        for w in workers.iter_mut() {
            assert!(matches!(
                w.poll_event(),
                Some(WorkerEvent::Completed { .. })
            ));
        }
        let checksums: Vec<_> = workers.iter().map(|w| w.checksums().unwrap()).collect();
        let expected = integrity::sum(checksums.iter().map(|c| c.contributed));
        checksums
            .iter()
            .map(|c| c.received == expected)
            .collect::<Vec<_>>()
    };
    assert_eq!(checked(&mut workers, |_, _| {}), [true, true]);
    assert_eq!(workers[0].stats().overflow_retries, 1, "chunk 1 was re-run");
    // The first chunk's result (seq 4) on its way to worker 1: one lane's
    // lowest bit flipped.
    let forged = checked(&mut workers, |worker, result| {
        if worker == 1 && result[6..8] == [0, 4] {
            result[HEADER_LEN + 3] ^= 1;
        }
    });
    assert_eq!(forged, [true, false]);
    // Unchecked all-reduces have no checksums; a shape mismatch is refused.
    allreduce_via_switch(&mut workers, &[vec![1.0], vec![2.0]], lanes);
    assert_eq!(workers[0].checksums(), None);
    assert!(matches!(
        workers[0].start_checked_allreduce(&[1.0; 7], 0, &coefficients),
        Err(WorkerError::ChecksumShape { chunks: 4, .. })
    ));
}

#[test]
fn overflow_reruns_the_chunk_with_a_smaller_exponent() {
    let lanes = 2;
    let mut workers: Vec<Worker> = (0..2)
        .map(|id| Worker::new(config(8, id, 2, lanes, 2)).unwrap())
        .collect();
    // 20000 · 2^16 exceeds ⌊(2^31 − 1)/2⌋; at 2^8 it does not.
    let inputs = vec![
        vec![1.5, -2.25, 20000.0, 3.0, 7.0],
        vec![0.5, 0.25, 1.0, 0.5, -7.0],
    ];
    allreduce_via_switch(&mut workers, &inputs, lanes);
    for w in &mut workers {
        assert_eq!(
            w.poll_event(),
            Some(WorkerEvent::Completed {
                seq_base: 0,
                chunks: 4
            })
        );
        assert_eq!(w.take_result(), Some(vec![2.0, -2.0, 20001.0, 3.5, 0.0]));
        assert_eq!(w.stats().overflow_retries, 1);
        assert_eq!(w.stats().data_sent, 4);
        assert_eq!(w.next_seq(), 4);
    }
    // The re-run went out as seq 3 with exponent 8; seq 1 had OVERFLOW.
    let sent = &workers[0].accepted;
    assert_eq!(
        sent.get(1).map(|c| (c.header.exponent, c.header.flags)),
        Some((16, Flags::OVERFLOW))
    );
    assert_eq!(
        sent.get(3).map(|c| (c.header.exponent, c.header.flags)),
        Some((8, Flags::NONE))
    );
    let bytes: Vec<u8> = [20001 << 8, 7 << 7]
        .iter()
        .flat_map(|v: &i32| v.to_be_bytes())
        .collect();
    assert_eq!(sent.get(3).map(|c| c.lanes.clone()), Some(bytes));

    // The next all-reduce of both starts at seq 4.
    allreduce_via_switch(&mut workers, &[vec![1.0], vec![2.0]], lanes);
    for w in &mut workers {
        assert_eq!(
            w.poll_event(),
            Some(WorkerEvent::Completed {
                seq_base: 4,
                chunks: 1
            })
        );
        assert_eq!(w.take_result(), Some(vec![3.0]));
    }
}

#[test]
fn overflow_below_the_exponent_floor_fails() {
    let lanes = 1;
    let mut workers: Vec<Worker> = (0..2)
        .map(|id| Worker::new(config(8, id, 2, lanes, 2)).unwrap())
        .collect();
    allreduce_via_switch(&mut workers, &[vec![1.0, 1e30], vec![1.0, 1.0]], lanes);
    for w in &mut workers {
        // 16, 8, 0, −8, −16, −24; −32 is below the floor.
        let expected = WorkerError::ExponentFloor {
            job: 8,
            exponent: -24,
            chunks: 1,
        };
        assert_eq!(w.poll_event(), Some(WorkerEvent::Failed(expected)));
        assert_eq!(w.stats().overflow_retries, 5);
        assert_eq!(w.next_seq(), 7);
        assert_eq!(w.take_result(), None);
    }
}

/// A packet of `job` at `seq` of `packet_type`, bitmap and count as given.
fn packet(job: u16, seq: u16, packet_type: PacketType, bitmap: u32, count: u8) -> Vec<u8> {
    EsaRepr {
        packet_type,
        flags: Flags::NONE,
        slot: 0,
        key: Key::new(0, job, seq),
        bitmap,
        fan_in: 2,
        count,
        exponent: quant::DEFAULT_EXPONENT,
        worker: PS_WORKER_ID,
    }
    .to_payload(&[0; 4], 4)
}

#[test]
fn a_job_ahead_of_the_worker_is_told_from_results_and_queries() {
    let mut w = Worker::new(config(3, 0, 2, 4, 2)).unwrap();
    // 4 chunks (seqs 0..4), a window of 2: seqs 0 and 1 are sent
    w.start_allreduce(&[1.0; 16], 0).unwrap();
    assert_eq!(drain(&mut w, 0).len(), 2);
    assert_eq!(w.send_seq(), 2);
    // a complete RESULT for a seq not sent yet: an earlier incarnation
    // contributed to it; past the end of the all-reduce this worker joined
    // (seq 4), the job is ahead of it
    let ahead = packet(3, 4, PacketType::Result, 0b11, 2);
    assert_eq!(
        w.check_behind(&ahead),
        Some(Behind {
            job_seq: 4,
            own_seq: 2
        })
    );
    // seqs 2 and 3 are chunks of that all-reduce, which the earlier
    // incarnation may have sent before this one (re)joined it
    for seq in [2, 3] {
        assert_eq!(
            w.check_behind(&packet(3, seq, PacketType::Result, 0b11, 2)),
            None
        );
    }
    // a partial RESULT, one for a seq sent, another job's, a seq behind
    assert_eq!(
        w.check_behind(&packet(3, 5, PacketType::Result, 0b01, 1)),
        None
    );
    assert_eq!(
        w.check_behind(&packet(3, 1, PacketType::Result, 0b11, 2)),
        None
    );
    assert_eq!(
        w.check_behind(&packet(4, 9, PacketType::Result, 0b11, 2)),
        None
    );
    assert_eq!(
        w.check_behind(&packet(3, 60_000, PacketType::Result, 0b11, 2)),
        None
    );
    assert_eq!(w.check_behind(&[0; 3]), None);
    // a QUERY is compared with the end of the all-reduce (seq 4): within
    // the reach of an overflow re-run it only is remembered
    assert_eq!(w.query_ahead(), None);
    assert_eq!(w.check_behind(&packet(3, 7, PacketType::Query, 0, 0)), None);
    assert_eq!(w.query_ahead(), Some(7));
    assert_eq!(
        w.check_behind(&packet(3, 8, PacketType::Query, 0, 0)),
        Some(Behind {
            job_seq: 8,
            own_seq: 4
        })
    );
}

/// Worker `id`'s input of 4 chunks of 4 lanes in iteration `it`.
fn rejoin_input(it: u8, id: u8) -> Vec<f32> {
    (0..16u8)
        .map(|i| f32::from(i) * 0.5 + f32::from(id) + f32::from(it) * 10.0)
        .collect()
}

#[test]
fn a_rejoined_worker_is_not_behind_for_chunks_its_earlier_incarnation_sent() {
    let lanes = 4;
    let mut workers: Vec<Worker> = (0..2)
        .map(|id| Worker::new(config(3, id, 2, lanes, 2)).unwrap())
        .collect();
    // Iteration 0 (seqs 0..4) completes on both workers.
    allreduce_via_switch(
        &mut workers,
        &[rejoin_input(0, 0), rejoin_input(0, 1)],
        lanes,
    );
    let (mut w0, mut first) = {
        let mut it = workers.into_iter();
        (it.next().unwrap(), it.next().unwrap())
    };
    for w in [&mut w0, &mut first] {
        assert!(matches!(
            w.poll_event(),
            Some(WorkerEvent::Completed { .. })
        ));
    }

    // Iteration 1 (seqs 4..8): both send seqs 4 and 5, which complete.
    let mut switch = TinySwitch::new(2, lanes);
    w0.start_allreduce(&rejoin_input(1, 0), 0).unwrap();
    first.start_allreduce(&rejoin_input(1, 1), 0).unwrap();
    let mut sent = drain(&mut w0, 0);
    sent.extend(drain(&mut first, 0));
    let early: Vec<Vec<u8>> = sent.iter().filter_map(|p| switch.data(p)).collect();
    assert_eq!(early.len(), 2);
    // Worker 1 takes them first, sends seqs 6 and 7 and dies.
    for r in &early {
        first.handle_payload(r, 0).unwrap();
    }
    for p in drain(&mut first, 0) {
        assert_eq!(switch.data(&p), None);
    }
    drop(first);
    // Worker 0 sends seqs 6 and 7 after that: they complete with the dead
    // incarnation's contributions.
    for r in &early {
        w0.handle_payload(r, 0).unwrap();
    }
    let late: Vec<Vec<u8>> = drain(&mut w0, 0)
        .iter()
        .filter_map(|p| switch.data(p))
        .collect();
    assert_eq!(late.len(), 2);
    for r in &late {
        w0.handle_payload(r, 0).unwrap();
    }
    assert!(matches!(
        w0.poll_event(),
        Some(WorkerEvent::Completed { .. })
    ));
    let sum = w0.take_result().unwrap();

    // The restarted worker 1 rejoins iteration 1 at its seq and resends
    // seqs 4 and 5 (the switch and the PS answer them from their caches).
    let mut second = Worker::new(WorkerConfig {
        first_seq: 4,
        ..config(3, 1, 2, lanes, 2)
    })
    .unwrap();
    second.start_allreduce(&rejoin_input(1, 1), 0).unwrap();
    assert_eq!(drain(&mut second, 0).len(), 2);
    assert_eq!(second.send_seq(), 6);
    // The results of seqs 6 and 7 reach it before it sends them: chunks of
    // the all-reduce it rejoined, not a job ahead of it. They are taken
    // for strays.
    for r in &late {
        assert_eq!(second.check_behind(r), None);
        second.handle_payload(r, 0).unwrap();
    }
    assert_eq!(second.stats().duplicate_results, 2);
    for r in &early {
        assert_eq!(second.check_behind(r), None);
        second.handle_payload(r, 0).unwrap();
    }
    // It sends seqs 6 and 7 and gets their results again (from a cache).
    assert_eq!(drain(&mut second, 0).len(), 2);
    for r in &late {
        assert_eq!(second.check_behind(r), None);
        second.handle_payload(r, 0).unwrap();
    }
    assert_eq!(
        second.poll_event(),
        Some(WorkerEvent::Completed {
            seq_base: 4,
            chunks: 4
        })
    );
    assert_eq!(second.take_result(), Some(sum));

    // Iteration 2 (seqs 8..12) is not the all-reduce it rejoined: nobody
    // but this worker could have sent seq 10 for it.
    second.start_allreduce(&rejoin_input(2, 1), 0).unwrap();
    assert_eq!(drain(&mut second, 0).len(), 2);
    let ahead = result(3, 10, 2, quant::DEFAULT_EXPONENT, &[0; 4], lanes);
    assert_eq!(
        second.check_behind(&ahead),
        Some(Behind {
            job_seq: 10,
            own_seq: 10
        })
    );
}

#[test]
fn results_of_overflow_reruns_of_the_joined_allreduce_are_not_behind() {
    let lanes = 4;
    let mut w = Worker::new(config(3, 0, 2, lanes, 2)).unwrap();
    // 4 chunks (seqs 0..4) at exponent 16, a window of 2: seqs 0 and 1 are
    // sent. An earlier incarnation may have finished this round and
    // re-run chunks at exponent 8 (at most 4 of them: seqs 4..8), then at
    // exponent 0 (seqs up to 11).
    w.start_allreduce(&[1.0; 16], 0).unwrap();
    assert_eq!(drain(&mut w, 0).len(), 2);
    let behind = |w: &mut Worker, seq: u16, exponent: i8| {
        w.check_behind(&result(3, seq, 2, exponent, &[0; 4], lanes))
            .map(|b| (b.job_seq, b.own_seq))
    };
    for (seq, exponent) in [(2, 16), (3, 16), (4, 8), (7, 8), (5, 0), (11, 0)] {
        assert_eq!(
            behind(&mut w, seq, exponent),
            None,
            "seq {seq} at {exponent}"
        );
    }
    for (seq, exponent) in [
        // the next all-reduce's first round
        (4, 16),
        // past what one re-run (two) can reach
        (8, 8),
        (12, 0),
        // a re-run's exponent inside the first round, an exponent no
        // re-run has, one above the round's
        (3, 8),
        (5, 12),
        (5, 24),
    ] {
        assert_eq!(
            behind(&mut w, seq, exponent),
            Some((seq, 2)),
            "seq {seq} at {exponent}"
        );
    }
}

#[test]
fn a_collision_moves_the_window_position_to_another_slot() {
    let cfg = WorkerConfig {
        remap_on_collision: true,
        result_cache: 4,
        slot_mask: 1023,
        ..config(5, 0, 2, 1, 2)
    };
    assert_eq!(cfg.max_span(), 2, "self-clocked");
    let mut w = Worker::new(cfg.clone()).unwrap();
    w.start_allreduce(&[1.0; 6], 0).unwrap();
    let first: Vec<u16> = drain(&mut w, 0)
        .iter()
        .map(|p| parse(p, 1).0.slot)
        .collect();
    let hashed = |seq| slot_for(SlotMapping::Hashed, 5, seq, 2, 1023);
    assert_eq!(first, [hashed(0), hashed(1)]);
    // Seq 0's RESULT says it collided: position 0 moves, position 1 stays.
    let mut collided = result(5, 0, 2, 16, &[0], 1);
    collided[1] = Flags::COLLISION.0;
    w.handle_payload(&collided, 1).unwrap();
    w.handle_payload(&result(5, 1, 2, 16, &[0], 1), 1).unwrap();
    let next: Vec<u16> = drain(&mut w, 1)
        .iter()
        .map(|p| parse(p, 1).0.slot)
        .collect();
    let moved = remapped_slot(5, 0, 1, 1023);
    assert_ne!(moved, hashed(2));
    assert_eq!(next, [moved, hashed(3)]);
    // A second collision at the position moves it again.
    collided = result(5, 2, 2, 16, &[0], 1);
    collided[1] = Flags::COLLISION.0;
    w.handle_payload(&collided, 2).unwrap();
    let (repr, _) = parse(&w.poll_transmit(2).unwrap(), 1);
    assert_eq!(
        (repr.key.seq(), repr.slot),
        (4, remapped_slot(5, 0, 2, 1023))
    );
    // Without the option the flag is ignored.
    let mut plain = Worker::new(WorkerConfig {
        remap_on_collision: false,
        ..cfg
    })
    .unwrap();
    plain.start_allreduce(&[1.0; 6], 0).unwrap();
    drain(&mut plain, 0);
    plain
        .handle_payload(&result(5, 0, 2, 16, &[0], 1), 1)
        .unwrap();
    let mut collided = result(5, 1, 2, 16, &[0], 1);
    collided[1] = Flags::COLLISION.0;
    plain.handle_payload(&collided, 1).unwrap();
    let slots: Vec<u16> = drain(&mut plain, 1)
        .iter()
        .map(|p| parse(p, 1).0.slot)
        .collect();
    assert_eq!(slots, [hashed(2), hashed(3)]);
}

// Tree jobs (`docs/protocol.md` §9.5).

/// Worker `local` of rack `rack` (of `fan_in` workers) in job 7 across
/// three racks of `total_workers` workers.
fn tree_config(rack: u8, local: u8, fan_in: u8, total_workers: u16) -> WorkerConfig {
    WorkerConfig {
        tree: Some(TreePlace {
            rack,
            racks: 3,
            total_workers,
        }),
        ..config(7, local, fan_in, 2, 4)
    }
}

/// The root's `RESULT` of chunk `seq` of job 7: `UPPER`, every rack.
fn root_result(seq: u16, values: &[i32]) -> Vec<u8> {
    let mut r = result(7, seq, 3, 16, values, 2);
    r[1] = Flags::UPPER.0;
    r
}

#[test]
fn a_tree_workers_data_is_its_racks_and_clamps_by_the_whole_job() {
    let cfg = WorkerConfig {
        exponent: 0,
        slot_mapping: SlotMapping::Direct,
        ..tree_config(2, 1, 2, 64)
    };
    let mut w = Worker::new(cfg.clone()).unwrap();
    // 10⁹ fits one of the rack's two contributions, not one of the job's
    // 64: ⌊(2³¹ − 1) / 64⌋ = 33554431.
    w.start_allreduce(&[1e9, -3.0], 0).unwrap();
    #[rustfmt::skip]
    let expected: [u8; 24] = [
        0x11, 0x04, 0x00, 0x00,  // DATA, OVERFLOW, slot 0
        0x00, 0x07, 0x00, 0x00,  // job 7, seq 0
        0x00, 0x00, 0x00, 0x02,  // bitmap: local worker 1
        0x02, 0x01, 0x00, 0x01,  // fan_in 2 (the rack's), count 1, exponent 0, worker 1
        0x01, 0xff, 0xff, 0xff,  // 33554431
        0xff, 0xff, 0xff, 0xfd,  // -3
    ];
    assert_eq!(drain(&mut w, 0), vec![expected.to_vec()]);
    // The same worker in a flat job of two does not saturate.
    let mut flat = Worker::new(WorkerConfig { tree: None, ..cfg }).unwrap();
    flat.start_allreduce(&[1e9, -3.0], 0).unwrap();
    let (repr, lanes) = parse(&drain(&mut flat, 0)[0], 2);
    assert_eq!((repr.flags, lanes), (Flags::NONE, vec![1_000_000_000, -3]));
}

#[test]
fn a_tree_worker_accepts_only_the_roots_result_and_answers_queries_with_it() {
    let mut w = Worker::new(tree_config(1, 2, 4, 7)).unwrap();
    w.start_allreduce(&[1.0; 2], 0).unwrap();
    drain(&mut w, 0);
    // The rack's own partial (a flat header), a root header with the
    // rack's fan-in, and the root's partial of two racks are refused.
    let rack_result = result(7, 0, 4, 16, &[1, 1], 2);
    assert_eq!(
        w.handle_payload(&rack_result, 1),
        Err(WorkerError::NotRootResult { seq: 0 })
    );
    let mut upper_rack = rack_result.clone();
    upper_rack[1] = Flags::UPPER.0;
    assert_eq!(
        w.handle_payload(&upper_rack, 1),
        Err(WorkerError::ResultFanIn {
            seq: 0,
            expected: 3,
            found: 4
        })
    );
    let mut two_racks = root_result(0, &[1, 1]);
    two_racks[11] = 0b011;
    two_racks[13] = 2;
    assert_eq!(
        w.handle_payload(&two_racks, 1),
        Err(WorkerError::IncompleteResult {
            seq: 0,
            bitmap: 0b011,
            count: 2
        })
    );
    assert!(w.check_behind(&root_result(3, &[0, 0])).is_some());
    assert_eq!(w.check_behind(&rack_result), None);
    assert_eq!(w.poll_event(), None);
    // The root's result is the job's.
    w.handle_payload(&root_result(0, &[7 << 16, -(7 << 16)]), 2)
        .unwrap();
    assert_eq!(
        w.poll_event(),
        Some(WorkerEvent::Completed {
            seq_base: 0,
            chunks: 1
        })
    );
    assert_eq!(w.take_result(), Some(vec![7.0, -7.0]));
    assert_eq!(w.stats().invalid_packets, 3);

    // A QUERY is answered with the root's header in this worker's name.
    let query = EsaRepr {
        packet_type: PacketType::Query,
        flags: Flags::UPPER,
        slot: 0,
        key: Key::new(0, 7, 0),
        bitmap: 0,
        fan_in: 3,
        count: 0,
        exponent: 16,
        worker: PS_WORKER_ID,
    }
    .to_payload(&[], 2);
    w.handle_payload(&query, 3).unwrap();
    #[rustfmt::skip]
    let answer: [u8; 24] = [
        0x12, 0x40, 0x00, 0x00,  // RESULT, UPPER, slot 0
        0x00, 0x07, 0x00, 0x00,  // job 7, seq 0
        0x00, 0x00, 0x00, 0x07,  // every rack
        0x03, 0x03, 0x10, 0x02,  // fan_in 3 racks, count 3, exponent 16, worker 2 (local)
        0x00, 0x07, 0x00, 0x00,
        0xff, 0xf9, 0x00, 0x00,
    ];
    assert_eq!(w.poll_transmit(3), Some(answer.to_vec()));
}

#[test]
fn a_tree_worker_takes_only_answers_to_its_rack_and_bit() {
    let cfg = WorkerConfig {
        rto_initial_us: 1_000,
        rto_max_us: 1_000,
        ..tree_config(1, 0, 2, 5)
    };
    let mut w = Worker::new(cfg).unwrap();
    w.start_allreduce(&[1.0, 2.0], 0).unwrap();
    let original = w.poll_transmit(0).unwrap();
    w.handle_timeout(1_000);
    // The probe is the DATA's header: local id and bit (the leaf stamps
    // the rack, P2′).
    let probe = w.poll_transmit(1_000).unwrap();
    let mut expected_probe = as_type(&original, PacketType::Probe);
    expected_probe[HEADER_LEN..].fill(0);
    assert_eq!(probe, expected_probe);
    // The PS's answers: worker = rack, bitmap = the worker's bit there.
    let answer = |kind, rack: u8, bitmap: u32| {
        let mut p = as_type(&probe, kind);
        p[8..12].copy_from_slice(&bitmap.to_be_bytes());
        p[15] = rack;
        p
    };
    // The same local id in rack 0, a peer's bit in rack 1: not ours.
    w.handle_payload(&answer(PacketType::Missing, 0, 0b01), 1_100)
        .unwrap();
    w.handle_payload(&answer(PacketType::Missing, 1, 0b10), 1_100)
        .unwrap();
    assert_eq!(w.poll_transmit(1_100), None);
    // Ours: resend now.
    w.handle_payload(&answer(PacketType::Missing, 1, 0b01), 1_200)
        .unwrap();
    let mut expected_resend = original.clone();
    expected_resend[1] = Flags::RESEND.0;
    assert_eq!(w.poll_transmit(1_200), Some(expected_resend));
    let s = w.stats();
    assert_eq!(
        (s.answers_for_peers, s.missing_answers, s.resends),
        (2, 1, 1)
    );
}

#[test]
fn a_tree_workers_config_is_validated() {
    let bad = [
        (
            tree_config(3, 0, 2, 6),
            WorkerError::Rack { rack: 3, racks: 3 },
        ),
        (
            tree_config(0, 0, 4, 3),
            WorkerError::TotalWorkers {
                total_workers: 3,
                fan_in: 4,
                racks: 3,
            },
        ),
        (
            tree_config(0, 0, 4, 97),
            WorkerError::TotalWorkers {
                total_workers: 97,
                fan_in: 4,
                racks: 3,
            },
        ),
    ];
    for (cfg, error) in bad {
        assert_eq!(cfg.validate(), Err(error));
    }
    for racks in [0, 33] {
        let cfg = WorkerConfig {
            tree: Some(TreePlace {
                rack: 0,
                racks,
                total_workers: 2,
            }),
            ..config(7, 0, 2, 2, 4)
        };
        assert_eq!(cfg.validate(), Err(WorkerError::Racks(racks)));
    }
    assert_eq!(tree_config(2, 3, 4, 96).validate(), Ok(()));
}

/// Runs the started all-reduces of `workers` to the end over the tiny
/// switch, dropping worker 0's first `DATA` of seq 0 and every `PROBE`
/// (so that chunk is probed, then resent at the next timeout). Returns
/// every payload sent and every `RESULT`, in order.
fn drive_with_a_resend(workers: &mut [Worker], lanes: usize) -> Vec<Vec<u8>> {
    drive_with_a_resend_in(workers, lanes, None)
}

/// [`drain`] through `poll_transmit_batch_into`, `slots` payloads a call.
fn drain_batched(worker: &mut Worker, now_us: u64, slots: usize) -> Vec<Vec<u8>> {
    let len = worker.payload_len();
    let mut buf = vec![0x5a; slots * len];
    let mut payloads = Vec::new();
    loop {
        let n = worker.poll_transmit_batch_into(now_us, &mut buf).unwrap();
        payloads.extend(buf[..n * len].chunks_exact(len).map(<[u8]>::to_vec));
        if n < slots {
            return payloads;
        }
    }
}

/// [`drive_with_a_resend`], sending in batches of `slots` payloads when
/// given.
fn drive_with_a_resend_in(
    workers: &mut [Worker],
    lanes: usize,
    slots: Option<usize>,
) -> Vec<Vec<u8>> {
    let mut switch = TinySwitch::new(workers.len() as u8, lanes);
    let mut log = Vec::new();
    let mut dropped = false;
    let mut now = 0;
    for _round in 0..200 {
        let mut results = Vec::new();
        for (i, w) in workers.iter_mut().enumerate() {
            let sent = match slots {
                Some(slots) => drain_batched(w, now, slots),
                None => drain(w, now),
            };
            for p in sent {
                log.push(p.clone());
                let (repr, _) = parse(&p, lanes);
                if repr.packet_type != PacketType::Data {
                    continue;
                }
                if i == 0 && repr.key.seq() == 0 && !dropped {
                    dropped = true;
                    continue;
                }
                results.extend(switch.data(&p));
            }
        }
        for r in &results {
            log.push(r.clone());
            for w in workers.iter_mut() {
                w.handle_payload(r, now).unwrap();
            }
        }
        if workers.iter().all(|w| !w.is_busy()) {
            return log;
        }
        if results.is_empty() {
            now += 60_000_000;
            for w in workers.iter_mut() {
                w.handle_timeout(now);
            }
        }
    }
    panic!("the all-reduce did not settle");
}

#[test]
fn an_owned_input_sends_the_same_bytes_and_sums_as_a_copied_one() {
    let lanes = 2;
    // 20000 · 2^16 saturates at fan-in 2: chunk 1 is re-run at 2^8.
    let inputs = [
        vec![1.5, -2.25, 20000.0, 3.0, 7.0],
        vec![0.5, 0.25, 1.0, 0.5, -7.0],
    ];
    let workers = || -> Vec<Worker> {
        (0..2)
            .map(|id| Worker::new(config(8, id, 2, lanes, 2)).unwrap())
            .collect()
    };
    let mut copied = workers();
    for (w, input) in copied.iter_mut().zip(&inputs) {
        w.start_allreduce(input, 0).unwrap();
    }
    let copied_log = drive_with_a_resend(&mut copied, lanes);

    let mut owned = workers();
    let mut given = Vec::new();
    for (w, input) in owned.iter_mut().zip(&inputs) {
        let buffer = input.clone();
        given.push(buffer.as_ptr());
        w.start_allreduce_owned(buffer, 0).unwrap();
    }
    let owned_log = drive_with_a_resend(&mut owned, lanes);

    assert_eq!(owned_log, copied_log, "every payload byte for byte");
    // The resend carries the dropped DATA's lanes again.
    let data_of_seq0: Vec<_> = owned_log
        .iter()
        .map(|p| parse(p, lanes))
        .filter(|(r, _)| r.packet_type == PacketType::Data && r.key.seq() == 0 && r.worker == 0)
        .collect();
    assert_eq!(data_of_seq0.len(), 2);
    assert_eq!(data_of_seq0[1].0.flags, Flags::RESEND);
    assert_eq!(data_of_seq0[0].1, data_of_seq0[1].1);
    let expected = vec![2.0, -2.0, 20001.0, 3.5, 0.0];
    for ((c, o), ptr) in copied.iter_mut().zip(&mut owned).zip(given) {
        assert_eq!(c.stats(), o.stats());
        assert_eq!((c.stats().resends, c.stats().overflow_retries), (1, 1));
        assert_eq!(c.poll_event(), o.poll_event());
        assert_eq!(c.take_result(), Some(expected.clone()));
        // The sum is in the buffer the caller gave, not in a copy.
        let result = o.take_result().unwrap();
        assert_eq!(result, expected);
        assert_eq!(result.as_ptr(), ptr);
    }
}

/// Payloads sent in batches are, byte for byte, those of one
/// `poll_transmit_into` call each: runs of `DATA` cut by the batch's end,
/// the window, a resend and a re-run's exponent, a short last chunk
/// (padding), an `OVERFLOW` chunk, at 2, 32 and 64 lanes; the stats,
/// results and checksums agree too.
#[test]
fn batched_payloads_match_one_call_each() {
    use crate::integrity::Coefficients;
    for lanes in [2, 32, 64] {
        let len = 7 * lanes + lanes / 2 + 1;
        let mut inputs: Vec<Vec<f32>> = (0..2)
            .map(|w| {
                (0..len)
                    .map(|i| ((i * 7 + w * 3) % 23) as f32 * 0.37 - 4.0)
                    .collect()
            })
            .collect();
        // 20000 · 2^16 saturates at fan-in 2: chunk 1 is re-run at 2^8.
        inputs[0][lanes + 1] = 20000.0;
        let mut rng = crate::rng::Rng::new(11);
        let mut coefficients = Coefficients::default();
        coefficients.refill(len.div_ceil(lanes), lanes, || rng.next_u64());
        for window in [3, 64] {
            let run = |slots: Option<usize>| {
                let mut workers: Vec<Worker> = (0..2)
                    .map(|id| Worker::new(config(8, id, 2, lanes, window)).unwrap())
                    .collect();
                for (w, input) in workers.iter_mut().zip(&inputs) {
                    w.start_checked_allreduce_owned(input.clone(), 0, &coefficients)
                        .unwrap();
                }
                let log = drive_with_a_resend_in(&mut workers, lanes, slots);
                let ends: Vec<_> = workers
                    .iter_mut()
                    .map(|w| {
                        (
                            w.stats().clone(),
                            w.checksums(),
                            w.poll_event(),
                            w.take_result(),
                        )
                    })
                    .collect();
                (log, ends)
            };
            let (one_by_one, ends) = run(None);
            let overflows = one_by_one
                .iter()
                .map(|p| parse(p, lanes).0)
                .filter(|r| r.packet_type == PacketType::Data && r.flags.contains(Flags::OVERFLOW))
                .count();
            assert_eq!(overflows, 1, "lanes {lanes} window {window}");
            assert_eq!(ends[0].0.overflow_retries, 1);
            assert_eq!(ends[0].0.resends, 1);
            for slots in [1, 2, 5, 64] {
                let (batched, batched_ends) = run(Some(slots));
                assert_eq!(
                    batched, one_by_one,
                    "lanes {lanes} window {window} slots {slots}"
                );
                assert_eq!(
                    batched_ends, ends,
                    "lanes {lanes} window {window} slots {slots}"
                );
            }
        }
    }
}

/// A batch buffer shorter than one payload is refused, changing nothing.
#[test]
fn a_batch_buffer_shorter_than_a_payload_is_an_error() {
    let mut w = Worker::new(config(8, 0, 1, 32, 4)).unwrap();
    w.start_allreduce(&[1.0; 100], 0).unwrap();
    let len = w.payload_len();
    let mut short = vec![0; len - 1];
    assert_eq!(
        w.poll_transmit_batch_into(0, &mut short),
        Err(WorkerError::BufferTooSmall {
            need: len,
            have: len - 1
        })
    );
    // Room for two and a half: two, then the other two the window allows.
    let mut buf = vec![0; 2 * len + len / 2];
    assert_eq!(w.poll_transmit_batch_into(0, &mut buf), Ok(2));
    assert_eq!(w.poll_transmit_batch_into(0, &mut buf), Ok(2));
    assert_eq!(w.poll_transmit_batch_into(0, &mut buf), Ok(0));
    assert_eq!(w.stats().data_sent, 4);
}

#[test]
fn an_owned_input_comes_back_when_refused_or_aborted() {
    let mut w = Worker::new(config(8, 0, 2, 2, 2)).unwrap();
    let first = vec![1.0, 2.0, 3.0];
    let ptr = first.as_ptr();
    w.start_allreduce_owned(first, 0).unwrap();
    let refused = w.start_allreduce_owned(vec![4.0], 0).unwrap_err();
    assert_eq!(
        refused,
        Refused {
            error: WorkerError::Busy,
            data: vec![4.0],
        }
    );
    let mut coefficients = crate::integrity::Coefficients::default();
    coefficients.refill(1, 2, || 7);
    let refused = w
        .start_checked_allreduce_owned(vec![1.0; 5], 0, &coefficients)
        .unwrap_err();
    assert!(matches!(
        refused.error,
        WorkerError::ChecksumShape { chunks: 3, .. }
    ));
    assert_eq!(refused.data, vec![1.0; 5]);
    assert_eq!(drain(&mut w, 0).len(), 2);
    assert!(w.abort_allreduce());
    let back = w.reclaim_input().unwrap();
    assert_eq!((back.as_ptr(), &back[..]), (ptr, &[1.0, 2.0, 3.0][..]));
    assert_eq!(w.reclaim_input(), None);
    // An empty tensor completes at once and comes back as the result.
    w.start_allreduce_owned(Vec::with_capacity(8), 0).unwrap();
    assert_eq!(w.take_result().map(|r| r.capacity()), Some(8));
}
