//! The pool reference model, row by row of `docs/protocol.md` §4, with
//! byte-exact expected packets.

use esa_core::constants::PS_WORKER_ID;
use esa_core::job::{JobEntry, Mode, TreeRole};
use esa_core::pool::{
    Destination, DropReason, Outcome, Pool, PoolConfig, SLOT_COMPLETE, SLOT_HELD, SLOT_OVERFLOW,
};
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType, ParsedFrame};
use proptest::prelude::*;

const LANES: usize = 4;
const PS_PORT: u16 = 10;
const GROUP: u16 = 1;

fn config() -> PoolConfig {
    PoolConfig {
        slots: 8,
        lanes: LANES,
        stale_after_us: 1_000,
    }
}

/// A pool with job 1 (3 workers on ports 1-3, PS on 10) and job 2 (3 workers
/// on ports 4-6, PS on 11), both in `mode`.
fn pool(mode: Mode) -> Pool {
    let mut pool = Pool::new(config()).unwrap();
    for (job, first_port, ps, group) in [(1u16, 1u16, PS_PORT, GROUP), (2, 4, 11, 2)] {
        let mut entry = pool.shared_entry(3, mode, group, ps);
        entry.max_priority = 7;
        pool.insert_job(job, entry).unwrap();
        let mut members: Vec<u16> = (first_port..first_port + 3).collect();
        pool.authorize_members(job, &members);
        members.push(ps);
        pool.set_group(group, members);
    }
    pool
}

use esa_core::addressing::{host_ip, host_mac};

fn frame_from(port: u16, esa: EsaRepr, values: &[i32]) -> Vec<u8> {
    FrameRepr {
        src_mac: host_mac(port),
        dst_mac: MacAddr::local(0xffff),
        src_ip: host_ip(port),
        dst_ip: Ipv4Addr::new(10, 0, 0, 254),
        esa,
    }
    .emit(values, LANES)
}

fn data_repr(job: u16, worker: u8, seq: u16, priority: u8, slot: u16) -> EsaRepr {
    EsaRepr {
        packet_type: PacketType::Data,
        flags: Flags::NONE,
        slot,
        key: Key::new(priority, job, seq),
        bitmap: 1u32.checked_shl(u32::from(worker)).unwrap_or(0),
        fan_in: 3,
        count: 1,
        exponent: 5,
        worker,
    }
}

/// A DATA frame of worker `worker` of job 1 (on port `worker + 1`).
fn data(worker: u8, seq: u16, priority: u8, slot: u16, values: &[i32]) -> (Vec<u8>, u16) {
    let port = u16::from(worker) + 1;
    (
        frame_from(port, data_repr(1, worker, seq, priority, slot), values),
        port,
    )
}

fn resend(worker: u8, seq: u16, slot: u16, values: &[i32]) -> (Vec<u8>, u16) {
    let port = u16::from(worker) + 1;
    let mut repr = data_repr(1, worker, seq, 1, slot);
    repr.flags = Flags::RESEND;
    (frame_from(port, repr, values), port)
}

fn run(pool: &mut Pool, (frame, port): (Vec<u8>, u16), now: u64) -> esa_core::pool::Decision {
    pool.process(&frame, port, now)
}

/// The frame `input` becomes when its ESA header is `esa` and lanes `values`.
fn expected(input_port: u16, esa: EsaRepr, values: &[i32]) -> Vec<u8> {
    frame_from(input_port, esa, values)
}

#[test]
fn claim_aggregate_complete_is_one_exact_result() {
    let mut pool = pool(Mode::Esa);
    let d = run(&mut pool, data(0, 9, 1, 3, &[1, 2, 3, 4]), 10);
    assert_eq!(
        (d.outcome, d.rule, d.emit.is_none()),
        (Outcome::Claimed, "D9", true)
    );
    let d = run(&mut pool, data(1, 9, 1, 3, &[10, 20, 30, 40]), 11);
    assert_eq!(
        (d.outcome, d.rule, d.emit.is_none()),
        (Outcome::Aggregated, "D3", true)
    );
    let d = run(
        &mut pool,
        data(2, 9, 1, 3, &[100, -200, i32::MAX - 33, 400]),
        12,
    );
    assert_eq!((d.outcome, d.rule), (Outcome::Completed, "D1"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Group(GROUP));
    let mut want = data_repr(1, 2, 9, 1, 3);
    want.packet_type = PacketType::Result;
    want.bitmap = 0b111;
    want.count = 3;
    assert_eq!(emit.frame, expected(3, want, &[111, -178, i32::MAX, 444]));

    let slot = pool.slot(3);
    assert_eq!(slot.flags, SLOT_COMPLETE);
    assert_eq!(slot.key, Key::new(1, 1, 9));
    assert_eq!(slot.values, vec![111, -178, i32::MAX, 444]);
    assert_eq!(
        pool.occupied_slots(),
        0,
        "an esa slot is free once complete"
    );
    let c = pool.counters(1);
    assert_eq!(
        (c.data_rx, c.claimed, c.aggregated, c.completed),
        (3, 1, 1, 1)
    );
    assert_eq!(c.data_outcomes(), c.data_rx);
}

#[test]
fn duplicates_are_dropped_before_and_after_completion() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 1, 0, 0, &[1; 4]), 0);
    let d = run(&mut pool, data(0, 1, 0, 0, &[1; 4]), 1);
    assert_eq!((d.outcome, d.rule), (Outcome::Duplicate, "D4"));
    run(&mut pool, data(1, 1, 0, 0, &[1; 4]), 2);
    run(&mut pool, data(2, 1, 0, 0, &[1; 4]), 3);
    let d = run(&mut pool, data(1, 1, 0, 0, &[1; 4]), 4);
    assert_eq!(
        (d.outcome, d.rule, d.emit),
        (Outcome::Duplicate, "D6", None)
    );
    assert_eq!(
        pool.slot(0).values,
        vec![3; 4],
        "duplicates must not be added"
    );
}

#[test]
fn resend_into_partial_flushes_and_tombstones() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 4, 2, 5, &[1, 1, 1, 1]), 0);
    // Worker 1 resends a chunk whose first copy was lost: its value is new.
    let d = run(&mut pool, resend(1, 4, 5, &[2, 2, 2, 2]), 1);
    assert_eq!((d.outcome, d.rule), (Outcome::Flushed, "D2"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    let mut want = data_repr(1, 1, 4, 2, 5);
    want.packet_type = PacketType::Flush;
    want.flags = Flags::RESEND;
    want.bitmap = 0b011;
    want.count = 2;
    assert_eq!(emit.frame, expected(2, want, &[3; 4]));
    let slot = pool.slot(5);
    assert_eq!((slot.key, slot.tombstone), (Key(0), Key::new(2, 1, 4)));
    // The rest of the chunk follows its partial to the PS.
    let d = run(&mut pool, data(2, 4, 2, 5, &[5; 4]), 2);
    assert_eq!((d.outcome, d.rule), (Outcome::Fallback, "D7"));
    let emit = d.emit.unwrap();
    let mut want = data_repr(1, 2, 4, 2, 5);
    want.packet_type = PacketType::Fallback;
    assert_eq!(emit.frame, expected(3, want, &[5; 4]));
}

#[test]
fn resend_of_an_already_counted_worker_flushes_without_adding() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 4, 0, 5, &[1; 4]), 0);
    run(&mut pool, data(1, 4, 0, 5, &[2; 4]), 0);
    let d = run(&mut pool, resend(0, 4, 5, &[1; 4]), 1);
    assert_eq!(d.rule, "D2");
    let frame = d.emit.unwrap().frame;
    let parsed = ParsedFrame::parse(&frame, LANES).unwrap();
    assert_eq!((parsed.esa.bitmap, parsed.esa.count), (0b011, 2));
    assert_eq!(parsed.payload.values().collect::<Vec<_>>(), vec![3; 4]);
}

#[test]
fn resend_that_completes_is_a_result_not_a_flush() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 4, 0, 5, &[1; 4]), 0);
    run(&mut pool, data(1, 4, 0, 5, &[2; 4]), 0);
    let d = run(&mut pool, resend(2, 4, 5, &[3; 4]), 1);
    assert_eq!((d.outcome, d.rule), (Outcome::Completed, "D1"));
    let frame = d.emit.unwrap().frame;
    let parsed = ParsedFrame::parse(&frame, LANES).unwrap();
    assert_eq!(
        parsed.esa.flags,
        Flags::NONE,
        "RESEND does not survive into a RESULT"
    );
}

#[test]
fn resend_after_completion_is_answered_from_the_slot() {
    let mut pool = pool(Mode::Esa);
    for w in 0..3 {
        run(&mut pool, data(w, 2, 0, 1, &[i32::from(w) + 1; 4]), 0);
    }
    let d = run(&mut pool, resend(1, 2, 1, &[2; 4]), 5);
    assert_eq!((d.outcome, d.rule), (Outcome::Reemitted, "D5"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Group(GROUP));
    let mut want = data_repr(1, 1, 2, 0, 1);
    want.packet_type = PacketType::Result;
    want.bitmap = 0b111;
    want.count = 3;
    assert_eq!(emit.frame, expected(2, want, &[6; 4]));
}

#[test]
fn a_resend_never_claims_a_slot() {
    let mut pool = pool(Mode::Esa);
    let d = run(&mut pool, resend(0, 3, 2, &[1; 4]), 0);
    assert_eq!((d.outcome, d.rule), (Outcome::Fallback, "D8"));
    assert_eq!(pool.slot(2).key, Key(0));
    let parsed_flags = ParsedFrame::parse(&d.emit.unwrap().frame, LANES)
        .unwrap()
        .esa
        .flags;
    assert_eq!(parsed_flags, Flags::RESEND);
}

#[test]
fn equal_priority_collision_falls_back_with_collision_flag() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 1, 3, 6, &[1; 4]), 0);
    let d = run(&mut pool, data(0, 2, 3, 6, &[7; 4]), 1);
    assert_eq!((d.outcome, d.rule), (Outcome::Fallback, "D12"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    let mut want = data_repr(1, 0, 2, 3, 6);
    want.packet_type = PacketType::Fallback;
    want.flags = Flags::COLLISION;
    assert_eq!(emit.frame, expected(1, want, &[7; 4]));
}

#[test]
fn higher_priority_swap_evicts_to_the_old_jobs_ps() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 1, 1, 6, &[1; 4]), 0);
    run(&mut pool, data(1, 1, 1, 6, &[2; 4]), 0);
    // Job 2, worker 0 on port 4, priority 5, another quantization exponent.
    let mut incoming = data_repr(2, 0, 8, 5, 6);
    incoming.exponent = -3;
    let frame = frame_from(4, incoming, &[9, 8, 7, 6]);
    let d = pool.process(&frame, 4, 1);
    assert_eq!((d.outcome, d.rule), (Outcome::Preempted, "D11"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    // The partial leaves with its own exponent (5), not the evicting one.
    let mut want = data_repr(2, 0, 8, 5, 6);
    want.packet_type = PacketType::Evicted;
    want.key = Key::new(1, 1, 1);
    want.bitmap = 0b011;
    want.count = 2;
    assert_eq!(emit.frame, frame_from(4, want, &[3; 4]));
    let slot = pool.slot(6);
    assert_eq!(slot.key, Key::new(5, 2, 8));
    assert_eq!((slot.bitmap, slot.count), (1, 1));
    assert_eq!(slot.values, vec![9, 8, 7, 6]);
    assert_eq!(slot.tombstone, Key::new(1, 1, 1));
    assert_eq!(slot.exponent, -3);
    assert_eq!(pool.counters(2).preemptions, 1);
    assert_eq!(pool.counters(1).evictions_suffered, 1);
    // The evicted job's late packet is tombstoned, not a new partial.
    let d = run(&mut pool, data(2, 1, 1, 6, &[4; 4]), 2);
    assert_eq!(d.rule, "D7");
}

#[test]
fn priority_is_clamped_to_the_jobs_maximum() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 1, 7, 6, &[1; 4]), 0);
    // Job 2 asks for 15 but may use 7: equal, so no preemption.
    let frame = frame_from(4, data_repr(2, 0, 8, 15, 6), &[1; 4]);
    let d = pool.process(&frame, 4, 1);
    assert_eq!(d.rule, "D12");
    let parsed = ParsedFrame::parse(&d.emit.as_ref().unwrap().frame, LANES).unwrap();
    assert_eq!(parsed.esa.key, Key::new(7, 2, 8), "the clamped key leaves");
}

#[test]
fn baselines_never_preempt() {
    for mode in [Mode::Atp, Mode::SwitchMl] {
        let mut pool = pool(mode);
        run(&mut pool, data(0, 1, 0, 6, &[1; 4]), 0);
        let frame = frame_from(4, data_repr(2, 0, 8, 7, 6), &[1; 4]);
        let d = pool.process(&frame, 4, 1);
        assert_eq!(d.rule, "D12", "{mode}");
    }
}

#[test]
fn stale_slot_is_evicted_not_dropped() {
    let mut pool = pool(Mode::SwitchMl);
    run(&mut pool, data(0, 1, 7, 6, &[1; 4]), 100);
    let frame = frame_from(4, data_repr(2, 0, 8, 0, 6), &[5; 4]);
    // Not yet stale at exactly the bound.
    assert_eq!(pool.process(&frame, 4, 1_100).rule, "D12");
    let d = pool.process(&frame, 4, 1_101);
    assert_eq!((d.outcome, d.rule), (Outcome::StaleReclaim, "D10"));
    let emit = d.emit.unwrap();
    let parsed = ParsedFrame::parse(&emit.frame, LANES).unwrap();
    assert_eq!(parsed.esa.packet_type, PacketType::Evicted);
    assert_eq!(parsed.esa.flags, Flags::STALE);
    assert_eq!(parsed.esa.key, Key::new(7, 1, 1));
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    assert_eq!(pool.counters(2).stale_reclaims, 1);
    assert_eq!(pool.counters(1).evictions_suffered, 1);
}

#[test]
fn atp_never_reclaims_stale_slots_nor_keeps_tombstones() {
    let mut pool = pool(Mode::Atp);
    run(&mut pool, data(0, 1, 0, 6, &[1; 4]), 100);
    // Long stale: still a collision for an ATP job (ATP frees a slot only on
    // its PS's result or a resend of its chunk).
    let frame = frame_from(4, data_repr(2, 0, 8, 0, 6), &[5; 4]);
    assert_eq!(pool.process(&frame, 4, 1_000_000).rule, "D12");
    // A resend flushes the partial without a tombstone: a late first copy
    // of the chunk claims the slot again.
    let d = run(&mut pool, resend(0, 1, 6, &[1; 4]), 1_000_001);
    assert_eq!((d.outcome, d.rule), (Outcome::Flushed, "D2"));
    assert_eq!(pool.slot(6).tombstone, Key(0));
    assert_eq!(
        run(&mut pool, data(1, 1, 0, 6, &[1; 4]), 1_000_002).rule,
        "D9"
    );
}

#[test]
fn staleness_uses_48_bit_timestamps() {
    let mut pool = pool(Mode::Esa);
    let wrap = 1u64 << 48;
    run(&mut pool, data(0, 1, 7, 6, &[1; 4]), wrap - 10);
    let frame = frame_from(4, data_repr(2, 0, 8, 0, 6), &[5; 4]);
    // 20 µs later across the wrap: not stale.
    assert_eq!(pool.process(&frame, 4, wrap + 10).rule, "D12");
}

#[test]
fn atp_holds_the_slot_until_the_result_passes_back() {
    let mut pool = pool(Mode::Atp);
    for w in 0..3 {
        let d = run(&mut pool, data(w, 5, 0, 2, &[1; 4]), 0);
        if w == 2 {
            assert_eq!(d.emit.as_ref().unwrap().dest, Destination::Port(PS_PORT));
        }
    }
    assert_eq!(pool.slot(2).flags, SLOT_COMPLETE | SLOT_HELD);
    assert_eq!(pool.occupied_slots(), 1);
    // Another chunk of the same job cannot use the slot yet.
    assert_eq!(run(&mut pool, data(0, 13, 0, 2, &[1; 4]), 1).rule, "D12");
    // The PS multicasts the result through the switch, to the workers
    // only: released.
    let mut result = data_repr(1, 255, 5, 0, 2);
    result.packet_type = PacketType::Result;
    result.bitmap = 0b111;
    result.count = 3;
    let frame = frame_from(PS_PORT, result, &[3; 4]);
    let d = pool.process(&frame, PS_PORT, 3);
    assert_eq!((d.outcome, d.rule), (Outcome::ResultRelayed, "R1"));
    let emit = d.emit.unwrap();
    assert_eq!(
        emit.dest,
        Destination::GroupExcept {
            group: GROUP,
            except: PS_PORT
        }
    );
    assert_eq!(emit.frame, frame, "a relayed RESULT is unchanged");
    let ports: Vec<u16> = pool.egress(&emit).into_iter().map(|(p, _)| p).collect();
    assert_eq!(ports, vec![1, 2, 3], "no replica back to the PS");
    assert_eq!(pool.slot(2).flags, SLOT_COMPLETE);
    assert_eq!(pool.counters(1).released, 1);
    assert_eq!(run(&mut pool, data(0, 13, 0, 2, &[1; 4]), 4).rule, "D9");
}

#[test]
fn atp_resend_of_a_held_chunk_frees_the_slot_and_flushes_the_sum() {
    let mut pool = pool(Mode::Atp);
    for w in 0..3 {
        run(&mut pool, data(w, 5, 0, 2, &[w as i32 + 1; 4]), 0);
    }
    assert_eq!(pool.slot(2).flags, SLOT_COMPLETE | SLOT_HELD);
    let d = run(&mut pool, resend(0, 5, 2, &[1; 4]), 2);
    assert_eq!((d.outcome, d.rule), (Outcome::Flushed, "D5"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    let mut want = data_repr(1, 0, 5, 0, 2);
    want.packet_type = PacketType::Flush;
    want.flags = Flags::RESEND;
    want.bitmap = 0b111;
    want.count = 3;
    assert_eq!(emit.frame, expected(1, want, &[6; 4]));
    assert_eq!(pool.occupied_slots(), 0);
    assert_eq!(pool.slot(2).key, Key(0));
    assert_eq!(pool.slot(2).tombstone, Key(0));
    assert_eq!(pool.counters(1).flushed, 1);
}

#[test]
fn result_retires_a_lingering_partial_with_the_true_sum() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 5, 0, 2, &[1; 4]), 0);
    let mut result = data_repr(1, 255, 5, 0, 2);
    result.packet_type = PacketType::Result;
    result.flags = Flags::OVERFLOW;
    result.bitmap = 0b111;
    result.count = 3;
    let frame = frame_from(PS_PORT, result, &[42; 4]);
    assert_eq!(pool.process(&frame, PS_PORT, 1).rule, "R1");
    let slot = pool.slot(2);
    assert_eq!(
        (slot.bitmap, slot.count, slot.values),
        (0b111, 3, vec![42; 4])
    );
    assert_eq!(slot.flags, SLOT_COMPLETE | SLOT_OVERFLOW);
    // A late first copy is a duplicate; a resend gets the true sum.
    assert_eq!(run(&mut pool, data(1, 5, 0, 2, &[1; 4]), 2).rule, "D6");
    let d = run(&mut pool, resend(1, 5, 2, &[1; 4]), 3);
    let parsed = ParsedFrame::parse(&d.emit.as_ref().unwrap().frame, LANES).unwrap();
    assert_eq!(parsed.payload.values().collect::<Vec<_>>(), vec![42; 4]);
    assert_eq!(parsed.esa.flags, Flags::OVERFLOW);
    // A RESULT for another chunk is relayed without touching the slot.
    let mut other = result;
    other.key = Key::new(0, 1, 6);
    let d = pool.process(&frame_from(PS_PORT, other, &[1; 4]), PS_PORT, 4);
    assert_eq!(d.rule, "R2");
    assert_eq!(pool.slot(2).values, vec![42; 4]);
}

#[test]
fn query_is_relayed_to_the_group() {
    let mut pool = pool(Mode::Esa);
    let mut q = data_repr(1, 255, 5, 0, 2);
    q.packet_type = PacketType::Query;
    let frame = frame_from(PS_PORT, q, &[0; 4]);
    let d = pool.process(&frame, PS_PORT, 0);
    assert_eq!((d.outcome, d.rule), (Outcome::QueryRelayed, "Q1"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.frame, frame);
    let ports: Vec<u16> = pool.egress(&emit).into_iter().map(|(p, _)| p).collect();
    assert_eq!(ports, vec![1, 2, 3]);
}

fn probe(worker: u8, seq: u16, slot: u16) -> (Vec<u8>, u16) {
    let port = u16::from(worker) + 1;
    let mut repr = data_repr(1, worker, seq, 1, slot);
    repr.packet_type = PacketType::Probe;
    (frame_from(port, repr, &[0; 4]), port)
}

fn pull(seq: u16, slot: u16) -> (Vec<u8>, u16) {
    let mut repr = data_repr(1, 255, seq, 0, slot);
    repr.packet_type = PacketType::Pull;
    repr.bitmap = 0;
    repr.count = 0;
    (frame_from(PS_PORT, repr, &[0; 4]), PS_PORT)
}

#[test]
fn a_probe_is_answered_pending_only_when_the_slot_holds_the_contribution() {
    for mode in [Mode::Esa, Mode::Atp, Mode::SwitchMl] {
        let mut pool = pool(mode);
        run(&mut pool, data(0, 5, 0, 2, &[1; 4]), 0);
        let before = pool.slot(2);
        // P1: worker 0's contribution waits in the slot.
        let d = run(&mut pool, probe(0, 5, 2), 1);
        assert_eq!(
            (d.outcome, d.rule),
            (Outcome::ProbeAnswered, "P1"),
            "{mode}"
        );
        let emit = d.emit.unwrap();
        assert_eq!(emit.dest, Destination::Port(1));
        let mut want = data_repr(1, 0, 5, 1, 2);
        want.packet_type = PacketType::Pending;
        assert_eq!(emit.frame, expected(1, want, &[0; 4]));
        assert_eq!(pool.slot(2), before, "a probe changes no slot");
        // P2: worker 1's is not here; the chunk in the slot is another; the
        // chunk is complete.
        let d = run(&mut pool, probe(1, 5, 2), 2);
        assert_eq!(
            (d.rule, d.emit.unwrap().dest),
            ("P2", Destination::Port(PS_PORT))
        );
        assert_eq!(run(&mut pool, probe(0, 6, 2), 3).rule, "P2");
        run(&mut pool, data(1, 5, 0, 2, &[1; 4]), 4);
        run(&mut pool, data(2, 5, 0, 2, &[1; 4]), 5);
        assert_eq!(
            run(&mut pool, probe(0, 5, 2), 6).rule,
            "P2",
            "{mode}: complete"
        );
        let c = pool.counters(1);
        assert_eq!((c.probes_answered, c.probes_forwarded), (1, 3));
        assert_eq!(c.data_rx, 3, "probes are not DATA");
    }
    // A repeated probe (RESEND) goes on to the PS, saying HELD when the
    // slot holds the contribution.
    let mut held = pool(Mode::Esa);
    run(&mut held, data(0, 5, 0, 2, &[1; 4]), 0);
    for (worker, flags) in [(0u8, Flags::RESEND | Flags::HELD), (1, Flags::RESEND)] {
        let port = u16::from(worker) + 1;
        let mut repr = data_repr(1, worker, 5, 1, 2);
        repr.packet_type = PacketType::Probe;
        repr.flags = Flags::RESEND;
        let d = held.process(&frame_from(port, repr, &[0; 4]), port, 1);
        assert_eq!(d.rule, "P2");
        let emit = d.emit.unwrap();
        assert_eq!(emit.dest, Destination::Port(PS_PORT));
        repr.flags = flags;
        assert_eq!(emit.frame, expected(port, repr, &[0; 4]), "worker {worker}");
    }
    // A probe with a bad worker id is refused like a DATA (bound to the
    // port, which no controller does, as the binding is checked first).
    let mut pool = pool(Mode::Esa);
    pool.bind_sender(1, 1, 3);
    let mut repr = data_repr(1, 3, 5, 1, 2);
    repr.packet_type = PacketType::Probe;
    let d = pool.process(&frame_from(1, repr, &[0; 4]), 1, 0);
    assert_eq!(d.outcome, Outcome::Dropped(DropReason::BadWorker));
}

#[test]
fn a_pull_flushes_an_aggregating_partial_and_nothing_else() {
    let mut pool = pool(Mode::Esa);
    run(&mut pool, data(0, 5, 0, 2, &[1, 2, 3, 4]), 0);
    run(&mut pool, data(1, 5, 0, 2, &[10, 20, 30, 40]), 1);
    // L2: another chunk, or an empty slot.
    assert_eq!(run(&mut pool, pull(6, 2), 2).rule, "L2");
    assert_eq!(run(&mut pool, pull(5, 3), 2).rule, "L2");
    let d = run(&mut pool, pull(5, 2), 3);
    assert_eq!((d.outcome, d.rule), (Outcome::Pulled, "L1"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    let mut want = data_repr(1, 255, 5, 0, 2);
    want.packet_type = PacketType::Flush;
    want.bitmap = 0b011;
    want.count = 2;
    assert_eq!(emit.frame, expected(PS_PORT, want, &[11, 22, 33, 44]));
    let slot = pool.slot(2);
    assert_eq!((slot.key, slot.tombstone), (Key(0), Key::new(0, 1, 5)));
    // The chunk's last copy follows its partial to the PS (D7).
    assert_eq!(run(&mut pool, data(2, 5, 0, 2, &[1; 4]), 4).rule, "D7");
    // A complete chunk is not pulled.
    for w in 0..3 {
        run(&mut pool, data(w, 7, 0, 4, &[1; 4]), 5);
    }
    assert_eq!(run(&mut pool, pull(7, 4), 6).rule, "L2");
    let c = pool.counters(1);
    assert_eq!((c.pulled, c.pulls_ignored), (1, 3));
}

#[test]
fn a_ps_answer_is_relayed_to_the_workers() {
    for kind in [PacketType::Pending, PacketType::Missing] {
        let mut pool = pool(Mode::Esa);
        let mut repr = data_repr(1, 1, 5, 0, 2);
        repr.packet_type = kind;
        let frame = frame_from(PS_PORT, repr, &[0; 4]);
        let d = pool.process(&frame, PS_PORT, 0);
        assert_eq!((d.outcome, d.rule), (Outcome::AnswerRelayed, "A1"));
        let emit = d.emit.unwrap();
        assert_eq!(emit.frame, frame);
        let ports: Vec<u16> = pool.egress(&emit).into_iter().map(|(p, _)| p).collect();
        assert_eq!(ports, vec![1, 2, 3]);
        assert_eq!(pool.counters(1).answers_relayed, 1);
    }
}

#[test]
fn admission_drops_are_counted_per_reason() {
    let mut pool = pool(Mode::Esa);
    let (good, port) = data(0, 1, 0, 0, &[1; 4]);
    let cases: Vec<(Vec<u8>, u16, DropReason)> = vec![
        (good[..good.len() - 1].to_vec(), port, DropReason::Malformed),
        (
            {
                let mut f = good.clone();
                f[14 + 10] ^= 1; // IPv4 checksum
                f
            },
            port,
            DropReason::Malformed,
        ),
        (
            {
                let mut f = good.clone();
                f[42] = 0x21; // ESA version 2
                f
            },
            port,
            DropReason::Malformed,
        ),
        (
            {
                let mut f = good.clone();
                f[42] = 0x1b; // type 11
                f
            },
            port,
            DropReason::Malformed,
        ),
        (
            frame_from(1, data_repr(9, 0, 1, 0, 0), &[1; 4]),
            1,
            DropReason::UnknownJob,
        ),
        (
            frame_from(1, data_repr(0, 0, 1, 0, 0), &[1; 4]),
            1,
            DropReason::UnknownJob,
        ),
        (good.clone(), 4, DropReason::BadPort),
        (
            frame_from(1, data_repr(1, 0, 1, 0, 8), &[1; 4]),
            1,
            DropReason::BadSlot,
        ),
        (
            frame_from(4, data_repr(1, 3, 1, 0, 0), &[1; 4]),
            4,
            DropReason::BadPort,
        ),
        (
            {
                let mut r = data_repr(1, 0, 1, 0, 0);
                r.bitmap = 0b11;
                frame_from(1, r, &[1; 4])
            },
            1,
            DropReason::BadWorker,
        ),
        (
            {
                let mut r = data_repr(1, 3, 1, 0, 0);
                r.bitmap = 0b1000;
                frame_from(1, r, &[1; 4])
            },
            1,
            DropReason::BadWorker,
        ),
        // worker 0's port naming worker 1, the PS's naming worker 0, a
        // worker's naming the PS, and a PROBE naming a peer
        (
            frame_from(1, data_repr(1, 1, 1, 0, 0), &[1; 4]),
            1,
            DropReason::Spoofed,
        ),
        (
            frame_from(PS_PORT, data_repr(1, 0, 1, 0, 0), &[1; 4]),
            PS_PORT,
            DropReason::Spoofed,
        ),
        (
            {
                let mut r = data_repr(1, PS_WORKER_ID, 1, 0, 0);
                r.packet_type = PacketType::Result;
                r.bitmap = 0b111;
                r.count = 3;
                frame_from(2, r, &[1; 4])
            },
            2,
            DropReason::Spoofed,
        ),
        (
            {
                let mut r = data_repr(1, 0, 1, 0, 0);
                r.packet_type = PacketType::Probe;
                frame_from(3, r, &[0; 4])
            },
            3,
            DropReason::Spoofed,
        ),
    ];
    // Bound to port 1 (no controller binds an id beyond the fan-in): the
    // range check stays behind the binding.
    pool.bind_sender(1, 1, 3);
    let mut bad_type = vec![];
    for t in [PacketType::Fallback, PacketType::Evicted, PacketType::Flush] {
        let mut r = data_repr(1, 0, 1, 0, 0);
        r.packet_type = t;
        bad_type.push((frame_from(1, r, &[1; 4]), 1, DropReason::BadType));
    }
    for (i, (frame, port, reason)) in cases.into_iter().chain(bad_type).enumerate() {
        let d = pool.process(&frame, port, 0);
        assert_eq!(d.outcome, Outcome::Dropped(reason), "case {i}");
        assert!(d.emit.is_none());
    }
    let g = pool.global_counters();
    assert_eq!((g.malformed, g.unknown_job), (4, 2));
    let c = pool.counters(1);
    assert_eq!(
        (
            c.drop_bad_port,
            c.drop_spoofed,
            c.drop_bad_slot,
            c.drop_bad_worker,
            c.drop_bad_type,
            c.data_rx
        ),
        (2, 4, 1, 2, 3, 0)
    );
    assert!(
        (0..8).all(|i| pool.slot(i).key == Key(0)),
        "no drop touched a slot"
    );
}

#[test]
fn a_port_speaks_only_for_the_workers_bound_to_it() {
    let mut pool = pool(Mode::Esa);
    // worker 0's port claims worker 1: dropped before it reaches a slot
    let forged = frame_from(1, data_repr(1, 1, 9, 1, 3), &[1000; 4]);
    let d = pool.process(&forged, 1, 0);
    assert_eq!(
        (d.outcome, d.emit),
        (Outcome::Dropped(DropReason::Spoofed), None)
    );
    assert_eq!(pool.slot(3).key, Key(0));
    assert_eq!(
        (pool.counters(1).drop_spoofed, pool.counters(1).data_rx),
        (1, 0)
    );
    // port 1 also carries worker 1 (two ranks behind one NIC): both count
    pool.bind_sender(1, 1, 1);
    run(&mut pool, data(0, 9, 1, 3, &[1, 2, 3, 4]), 1);
    let d = pool.process(&frame_from(1, data_repr(1, 1, 9, 1, 3), &[10; 4]), 1, 2);
    assert_eq!(d.outcome, Outcome::Aggregated);
    let d = run(&mut pool, data(2, 9, 1, 3, &[100; 4]), 3);
    assert_eq!(d.outcome, Outcome::Completed);
    let emit = d.emit.unwrap();
    let sum = ParsedFrame::parse(&emit.frame, LANES).unwrap();
    assert_eq!(
        sum.payload.values().collect::<Vec<_>>(),
        [111, 112, 113, 114]
    );
    assert_eq!(pool.counters(1).drop_spoofed, 1);
}

#[test]
fn non_esa_traffic_is_left_to_l2() {
    let mut pool = pool(Mode::Esa);
    let (mut frame, port) = data(0, 1, 0, 0, &[1; 4]);
    frame[12] = 0x08;
    frame[13] = 0x06; // ARP
    assert_eq!(pool.process(&frame, port, 0).outcome, Outcome::NotEsa);
    let (mut frame, port) = data(0, 1, 0, 0, &[1; 4]);
    frame[14 + 20 + 3] ^= 1; // another UDP port
    assert_eq!(pool.process(&frame, port, 0).outcome, Outcome::NotEsa);
    assert_eq!(pool.global_counters().not_esa, 2);
}

#[test]
fn egress_expands_groups_and_rewrites_destinations() {
    let mut pool = pool(Mode::Esa);
    for p in [1u16, 2, 3, PS_PORT] {
        pool.set_host(p, host_mac(p), host_ip(p));
    }
    run(&mut pool, data(0, 1, 0, 0, &[1; 4]), 0);
    run(&mut pool, data(1, 1, 0, 0, &[1; 4]), 0);
    let emit = run(&mut pool, data(2, 1, 0, 0, &[1; 4]), 0).emit.unwrap();
    let out = pool.egress(&emit);
    assert_eq!(
        out.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        vec![1, 2, 3, PS_PORT]
    );
    for (port, frame) in out {
        let parsed = ParsedFrame::parse(&frame, LANES).expect("checksum must be valid");
        assert_eq!(parsed.eth.dst, host_mac(port));
        assert_eq!(parsed.ip.dst, host_ip(port));
        assert_eq!(parsed.esa.packet_type, PacketType::Result);
    }
    pool.set_group(GROUP, vec![]);
    assert!(pool.egress(&emit).is_empty());
    assert_eq!(pool.global_counters().empty_group, 1);
}

#[test]
fn job_table_rejects_bad_entries() {
    let mut pool = Pool::new(config()).unwrap();
    let good = pool.shared_entry(4, Mode::Esa, 1, 1);
    assert!(pool.insert_job(0, good).is_err());
    assert!(pool.insert_job(4096, good).is_err());
    for fan_in in [0, 1, 33] {
        assert!(
            pool.insert_job(1, JobEntry { fan_in, ..good }).is_err(),
            "fan_in {fan_in}"
        );
    }
    assert!(
        pool.insert_job(
            1,
            JobEntry {
                max_priority: 16,
                ..good
            }
        )
        .is_err()
    );
    assert!(
        pool.insert_job(
            1,
            JobEntry {
                slot_base: 4,
                slot_mask: 7,
                tree: TreeRole::Flat,
                ..good
            }
        )
        .is_err()
    );
    assert!(
        pool.insert_job(
            1,
            JobEntry {
                slot_base: 0,
                slot_mask: 2,
                tree: TreeRole::Flat,
                ..good
            }
        )
        .is_err()
    );
    assert!(
        pool.insert_job(
            1,
            JobEntry {
                slot_base: 4,
                slot_mask: 3,
                tree: TreeRole::Flat,
                ..good
            }
        )
        .is_ok()
    );
    assert!(
        Pool::new(PoolConfig {
            slots: 6,
            ..config()
        })
        .is_err()
    );
    assert!(
        Pool::new(PoolConfig {
            lanes: 0,
            ..config()
        })
        .is_err()
    );
    assert!(
        Pool::new(PoolConfig {
            lanes: 65,
            ..config()
        })
        .is_err()
    );
}

#[test]
fn switchml_jobs_stay_in_their_range() {
    let mut pool = Pool::new(config()).unwrap();
    let entry = JobEntry {
        fan_in: 3,
        mode: Mode::SwitchMl,
        max_priority: 0,
        mcast_group: 1,
        ps_port: PS_PORT,
        slot_base: 4,
        slot_mask: 3,
        tree: TreeRole::Flat,
    };
    pool.insert_job(1, entry).unwrap();
    pool.authorize_members(1, &[1]);
    assert_eq!(run(&mut pool, data(0, 1, 0, 2, &[1; 4]), 0).rule, "D9");
    assert_eq!(pool.slot(6).key, Key::new(0, 1, 1));
    assert_eq!(pool.slot(2).key, Key(0));
    assert_eq!(
        run(&mut pool, data(0, 1, 0, 4, &[1; 4]), 0).outcome,
        Outcome::Dropped(DropReason::BadSlot)
    );
}

#[derive(Debug, Clone)]
struct Step {
    job: u16,
    worker: u8,
    seq: u16,
    priority: u8,
    slot: u16,
    resend: bool,
    kind: PacketType,
    dt: u64,
}

fn step() -> impl Strategy<Value = Step> {
    (
        1u16..=2,
        0u8..3,
        0u16..6,
        0u8..16,
        0u16..8,
        any::<bool>(),
        0u8..10,
        0u64..700,
    )
        .prop_map(|(job, worker, seq, priority, slot, resend, r, dt)| Step {
            job,
            worker,
            seq,
            priority,
            slot,
            resend,
            kind: match r {
                0 => PacketType::Result,
                1 => PacketType::Probe,
                2 => PacketType::Pull,
                _ => PacketType::Data,
            },
            dt,
        })
}

proptest! {
    /// Whatever arrives, every admitted DATA packet moves exactly one
    /// outcome counter, and every slot stays self-consistent.
    #[test]
    fn counters_and_slots_stay_consistent(
        steps in proptest::collection::vec(step(), 1..200),
        mode in prop_oneof![Just(Mode::Esa), Just(Mode::Atp), Just(Mode::SwitchMl)],
    ) {
        let mut pool = pool(mode);
        let mut now = 0;
        for s in steps {
            now += s.dt;
            let from_ps = matches!(s.kind, PacketType::Result | PacketType::Pull);
            let port = if from_ps { if s.job == 1 { PS_PORT } else { 11 } } else {
                (s.job - 1) * 3 + u16::from(s.worker) + 1
            };
            let mut repr = data_repr(s.job, s.worker, s.seq, s.priority, s.slot);
            if from_ps { repr.worker = PS_WORKER_ID; }
            if s.resend { repr.flags = Flags::RESEND; }
            repr.packet_type = s.kind;
            if s.kind == PacketType::Result {
                repr.bitmap = 0b111;
                repr.count = 3;
            }
            let slots_before: Vec<_> = (0..8).map(|i| pool.slot(i)).collect();
            let d = pool.process(&frame_from(port, repr, &[1, -1, 2, 0]), port, now);
            if s.kind == PacketType::Probe {
                prop_assert!((0..8).all(|i| pool.slot(i) == slots_before[i]), "a probe changed a slot");
            }
            prop_assert!(!matches!(d.outcome, Outcome::Dropped(_)), "{:?}", d);
            if matches!(s.kind, PacketType::Probe | PacketType::Pull) {
                let data_left = d.emit.as_ref().is_some_and(|e| {
                    ParsedFrame::parse(&e.frame, LANES).is_ok_and(|f| f.esa.packet_type == PacketType::Data)
                });
                prop_assert!(!data_left, "a probe or pull left as DATA");
            }
            if let Some(emit) = &d.emit {
                prop_assert!(ParsedFrame::parse(&emit.frame, LANES).is_ok());
            }
        }
        for job in [1, 2] {
            let c = pool.counters(job);
            prop_assert_eq!(c.data_outcomes(), c.data_rx);
        }
        for i in 0..8 {
            let slot = pool.slot(i);
            if slot.key != Key(0) {
                prop_assert_eq!(u32::from(slot.count), slot.bitmap.count_ones());
                prop_assert_eq!(slot.bitmap & !0b111, 0);
            }
        }
    }

    /// Arbitrary bytes never panic and never touch a slot.
    #[test]
    fn garbage_is_dropped(bytes in proptest::collection::vec(any::<u8>(), 0..120), port in 0u16..12) {
        let mut pool = pool(Mode::Esa);
        let d = pool.process(&bytes, port, 0);
        prop_assert!(d.emit.is_none());
        prop_assert!((0..8).all(|i| pool.slot(i).key == Key(0)));
    }
}
