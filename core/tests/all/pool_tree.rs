//! The pool on a tree job's leaf and root, row by row of
//! `docs/protocol.md` §9.3 and §9.6, with byte-exact expected packets.

use esa_core::addressing::{host_ip, host_mac};
use esa_core::job::{JobEntry, Mode, TreeRole, Uplink};
use esa_core::pool::{
    Destination, DropReason, Outcome, Pool, PoolConfig, PoolError, SLOT_COMPLETE, SLOT_HELD,
};
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType};

const LANES: usize = 4;
const JOB: u16 = 1;
/// The leaf's uplink: its port to the root, and the rack's bit there.
const UPLINK: Uplink = Uplink {
    port: 20,
    bit: 1,
    root_fan_in: 3,
};
/// The root's ports to the three racks' leaves, and its PS.
const CHILDREN: [u16; 3] = [21, 22, 23];
const PS_PORT: u16 = 10;

fn config() -> PoolConfig {
    PoolConfig {
        slots: 8,
        lanes: LANES,
        stale_after_us: 1_000,
    }
}

fn entry(fan_in: u8, ps_port: u16, tree: TreeRole) -> JobEntry {
    JobEntry {
        fan_in,
        mode: Mode::Esa,
        max_priority: 7,
        mcast_group: 1,
        ps_port,
        slot_base: 0,
        slot_mask: 7,
        tree,
    }
}

/// Rack 1's leaf: job 1's workers 0 and 1 on ports 1 and 2 (job 2, flat,
/// on ports 3 and 4 with its PS on 11, to collide with).
fn leaf(tree: TreeRole, workers: u8) -> Pool {
    let mut pool = Pool::new(config()).unwrap();
    pool.insert_job(JOB, entry(workers, UPLINK.port, tree))
        .unwrap();
    let ports: Vec<u16> = (1..=u16::from(workers)).collect();
    pool.authorize_members(JOB, &ports);
    let mut group = ports;
    group.push(UPLINK.port);
    pool.set_group(1, group);
    pool.insert_job(2, entry(2, 11, TreeRole::Flat)).unwrap();
    pool.authorize_members(2, &[3, 4]);
    pool.set_group(2, vec![3, 4, 11]);
    pool
}

fn root(tree: TreeRole) -> Pool {
    let mut pool = Pool::new(config()).unwrap();
    pool.insert_job(JOB, entry(3, PS_PORT, tree)).unwrap();
    pool.authorize_members(JOB, &CHILDREN);
    let mut group = CHILDREN.to_vec();
    group.push(PS_PORT);
    pool.set_group(1, group);
    pool
}

fn frame(port: u16, esa: EsaRepr, values: &[i32]) -> Vec<u8> {
    FrameRepr {
        src_mac: host_mac(port),
        dst_mac: MacAddr::local(0xffff),
        src_ip: host_ip(port),
        dst_ip: Ipv4Addr::new(10, 0, 0, 254),
        esa,
    }
    .emit(values, LANES)
}

/// Worker `worker`'s DATA for `seq` in rack 1 (two workers).
fn data(worker: u8, seq: u16, flags: Flags) -> EsaRepr {
    EsaRepr {
        packet_type: PacketType::Data,
        flags,
        slot: 3,
        key: Key::new(2, JOB, seq),
        bitmap: 1 << worker,
        fan_in: 2,
        count: 1,
        exponent: 5,
        worker,
    }
}

/// Rack `rack`'s partial for `seq` as its leaf sends it up.
fn partial(rack: u8, seq: u16) -> EsaRepr {
    EsaRepr {
        packet_type: PacketType::Data,
        flags: Flags::UPPER,
        slot: 3,
        key: Key::new(2, JOB, seq),
        bitmap: 1 << rack,
        fan_in: 3,
        count: 1,
        exponent: 5,
        worker: rack,
    }
}

fn process(pool: &mut Pool, port: u16, esa: EsaRepr, values: &[i32]) -> esa_core::pool::Decision {
    pool.process(&frame(port, esa, values), port, 100)
}

/// Runs both of rack 1's workers through the leaf: the rack's partial
/// goes up.
fn complete_rack(pool: &mut Pool) -> esa_core::pool::Decision {
    let d = process(pool, 1, data(0, 9, Flags::NONE), &[1, 2, 3, 4]);
    assert_eq!(d.rule, "D9");
    process(pool, 2, data(1, 9, Flags::NONE), &[10, 20, 30, 40])
}

#[test]
fn a_leaf_sends_its_racks_partial_up_and_holds_it() {
    let mut pool = leaf(TreeRole::leaf(UPLINK), 2);
    let d = complete_rack(&mut pool);
    assert_eq!((d.outcome, d.rule), (Outcome::SentUp, "D1'"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(UPLINK.port));
    // One contribution at the root: the rack's bit, its sum.
    assert_eq!(emit.frame, frame(2, partial(1, 9), &[11, 22, 33, 44]));
    assert_eq!(pool.slot(3).flags, SLOT_COMPLETE | SLOT_HELD);
    assert_eq!(pool.counters(JOB).completed, 1);
    // Held: another chunk cannot take the slot before the result comes.
    let mut other = data(0, 10, Flags::NONE);
    other.key = Key::new(2, JOB, 10);
    assert_eq!(process(&mut pool, 1, other, &[0; 4]).rule, "D12");
}

#[test]
fn a_root_sums_racks_and_sends_the_result_down_with_the_upper_header() {
    let mut pool = root(TreeRole::root(3));
    assert_eq!(
        process(&mut pool, 21, partial(0, 9), &[1, 1, 1, 1]).rule,
        "D9"
    );
    assert_eq!(
        process(&mut pool, 22, partial(1, 9), &[2, 2, 2, 2]).rule,
        "D3"
    );
    let d = process(&mut pool, 23, partial(2, 9), &[3, 3, 3, 3]);
    assert_eq!((d.outcome, d.rule), (Outcome::Completed, "D1"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Group(1));
    let mut want = partial(2, 9);
    want.packet_type = PacketType::Result;
    want.bitmap = 0b111;
    want.count = 3;
    assert_eq!(emit.frame, frame(23, want, &[6, 6, 6, 6]));
}

#[test]
fn a_packet_of_the_wrong_level_is_refused() {
    // A worker's DATA at the root, a rack's partial at a leaf.
    let mut root_pool = root(TreeRole::root(3));
    let mut worker = data(1, 9, Flags::NONE);
    worker.fan_in = 3;
    let d = process(&mut root_pool, 22, worker, &[1; 4]);
    assert_eq!(d.outcome, Outcome::Dropped(DropReason::BadWorker));
    let mut leaf_pool = leaf(TreeRole::leaf(UPLINK), 2);
    let mut upper = data(1, 9, Flags::UPPER);
    upper.fan_in = 2;
    let d = process(&mut leaf_pool, 2, upper, &[1; 4]);
    assert_eq!(d.outcome, Outcome::Dropped(DropReason::BadWorker));
    assert_eq!(leaf_pool.counters(JOB).drop_bad_worker, 1);
}

#[test]
fn a_resend_finds_the_held_partial_and_flushes_it_marked_with_the_rack() {
    let mut pool = leaf(TreeRole::leaf(UPLINK), 2);
    complete_rack(&mut pool);
    let d = process(&mut pool, 1, data(0, 9, Flags::RESEND), &[1, 2, 3, 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::Flushed, "D5'"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(UPLINK.port));
    let want = EsaRepr {
        packet_type: PacketType::Flush,
        flags: Flags::RESEND,
        bitmap: 0b11,
        count: 2,
        worker: UPLINK.bit,
        ..data(0, 9, Flags::NONE)
    };
    assert_eq!(emit.frame, frame(1, want, &[11, 22, 33, 44]));
    // Freed and tombstoned: a late copy follows the partial to the PS.
    assert_eq!(pool.slot(3).key, Key(0));
    let d = process(&mut pool, 2, data(1, 9, Flags::NONE), &[10, 20, 30, 40]);
    assert_eq!(d.rule, "D7");
    let want = EsaRepr {
        packet_type: PacketType::Fallback,
        worker: UPLINK.bit,
        ..data(1, 9, Flags::NONE)
    };
    assert_eq!(d.emit.unwrap().frame, frame(2, want, &[10, 20, 30, 40]));
}

/// The root's RESULT for `seq`, as it reaches a leaf (its `worker` is the
/// rack whose partial completed it).
fn result_from_root(seq: u16) -> EsaRepr {
    EsaRepr {
        packet_type: PacketType::Result,
        bitmap: 0b111,
        count: 3,
        worker: 2,
        ..partial(2, seq)
    }
}

#[test]
fn the_result_coming_down_releases_the_leaf_and_answers_later_resends() {
    let mut pool = leaf(TreeRole::leaf(UPLINK), 2);
    complete_rack(&mut pool);
    // Worker 2 of another rack is not bound here: admitted by the port.
    let d = process(&mut pool, UPLINK.port, result_from_root(9), &[7, 8, 9, 10]);
    assert_eq!((d.outcome, d.rule), (Outcome::ResultRelayed, "R1"));
    assert_eq!(
        d.emit.unwrap().dest,
        Destination::GroupExcept {
            group: 1,
            except: UPLINK.port
        }
    );
    assert_eq!(pool.slot(3).flags, SLOT_COMPLETE);
    assert_eq!(pool.counters(JOB).released, 1);
    // A worker that lost it gets it again, with the root's header, from
    // the leaf; not sent up again.
    let d = process(&mut pool, 2, data(1, 9, Flags::RESEND), &[10, 20, 30, 40]);
    assert_eq!((d.outcome, d.rule), (Outcome::Reemitted, "D5''"));
    let emit = d.emit.unwrap();
    assert_eq!(
        emit.dest,
        Destination::GroupExcept {
            group: 1,
            except: UPLINK.port
        }
    );
    let want = EsaRepr {
        worker: 1,
        ..result_from_root(9)
    };
    assert_eq!(emit.frame, frame(2, want, &[7, 8, 9, 10]));
}

#[test]
fn a_leaf_answers_a_probe_addressed_by_rack_and_bit() {
    let mut pool = leaf(TreeRole::leaf(UPLINK), 2);
    process(&mut pool, 1, data(0, 9, Flags::NONE), &[1; 4]);
    let probe = EsaRepr {
        packet_type: PacketType::Probe,
        ..data(0, 9, Flags::NONE)
    };
    let d = process(&mut pool, 1, probe, &[0; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::ProbeAnswered, "P1"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(1));
    let want = EsaRepr {
        packet_type: PacketType::Pending,
        worker: UPLINK.bit,
        ..probe
    };
    assert_eq!(emit.frame, frame(1, want, &[0; 4]));
}

#[test]
fn a_probe_after_the_partial_went_up_is_forwarded_held_with_the_rack() {
    let mut pool = leaf(TreeRole::leaf(UPLINK), 2);
    complete_rack(&mut pool);
    let probe = EsaRepr {
        packet_type: PacketType::Probe,
        ..data(0, 9, Flags::NONE)
    };
    let d = process(&mut pool, 1, probe, &[0; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::ProbeForwarded, "P2"));
    let want = EsaRepr {
        flags: Flags::HELD,
        worker: UPLINK.bit,
        ..probe
    };
    assert_eq!(d.emit.unwrap().frame, frame(1, want, &[0; 4]));
}

#[test]
fn a_root_marks_a_probe_whose_racks_partial_it_holds() {
    let mut pool = root(TreeRole::root(3));
    process(&mut pool, 22, partial(1, 9), &[1; 4]);
    let probe = |rack: u8| EsaRepr {
        packet_type: PacketType::Probe,
        worker: rack,
        ..data(0, 9, Flags::NONE)
    };
    // Rack 1's partial waits here for rack 2's: its worker's probe is HELD.
    let d = process(&mut pool, 22, probe(1), &[0; 4]);
    assert_eq!(d.rule, "U1");
    let want = EsaRepr {
        flags: Flags::HELD,
        ..probe(1)
    };
    assert_eq!(d.emit.unwrap().frame, frame(22, want, &[0; 4]));
    // Rack 2's is not here.
    let d = process(&mut pool, 23, probe(2), &[0; 4]);
    assert_eq!(d.emit.unwrap().frame, frame(23, probe(2), &[0; 4]));
}

/// The PS's PULL for `seq`, `UPPER` for the root's slot.
fn pull(seq: u16, flags: Flags) -> EsaRepr {
    EsaRepr {
        packet_type: PacketType::Pull,
        flags,
        bitmap: 0,
        count: 0,
        worker: esa_core::constants::PS_WORKER_ID,
        ..partial(0, seq)
    }
}

#[test]
fn a_pull_empties_the_held_partial_at_a_leaf_but_not_an_upper_one() {
    let mut pool = leaf(TreeRole::leaf(UPLINK), 2);
    complete_rack(&mut pool);
    // The root's PULL is not for the leaf's slot.
    let d = process(&mut pool, UPLINK.port, pull(9, Flags::UPPER), &[0; 4]);
    assert_eq!(d.rule, "L2");
    let d = process(&mut pool, UPLINK.port, pull(9, Flags::NONE), &[0; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::Pulled, "L1"));
    let want = EsaRepr {
        packet_type: PacketType::Flush,
        flags: Flags::NONE,
        bitmap: 0b11,
        count: 2,
        fan_in: 2,
        worker: UPLINK.bit,
        ..partial(0, 9)
    };
    assert_eq!(
        d.emit.unwrap().frame,
        frame(UPLINK.port, want, &[11, 22, 33, 44])
    );
    assert_eq!(pool.slot(3).key, Key(0));
}

#[test]
fn a_root_passes_parts_and_probes_up_and_pulls_down() {
    let mut pool = root(TreeRole::root(3));
    let part = EsaRepr {
        packet_type: PacketType::Fallback,
        flags: Flags::COLLISION,
        fan_in: 2,
        worker: 1,
        ..data(0, 9, Flags::NONE)
    };
    let d = process(&mut pool, 22, part, &[5; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::PartRelayed, "U1"));
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    assert_eq!(emit.frame, frame(22, part, &[5; 4]));
    let probe = EsaRepr {
        packet_type: PacketType::Probe,
        worker: 1,
        ..data(0, 9, Flags::HELD)
    };
    assert_eq!(process(&mut pool, 22, probe, &[0; 4]).rule, "U1");
    // A part from the PS's own port is refused as ever.
    let d = process(&mut pool, PS_PORT, part, &[5; 4]);
    assert_eq!(d.outcome, Outcome::Dropped(DropReason::BadType));
    assert_eq!(pool.counters(JOB).parts_relayed, 2);

    let d = process(&mut pool, PS_PORT, pull(9, Flags::NONE), &[0; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::PullRelayed, "U2"));
    assert_eq!(
        d.emit.unwrap().dest,
        Destination::GroupExcept {
            group: 1,
            except: PS_PORT
        }
    );
    // The UPPER one is for the root's own slot.
    assert_eq!(process(&mut pool, 21, partial(0, 9), &[1; 4]).rule, "D9");
    let d = process(&mut pool, PS_PORT, pull(9, Flags::UPPER), &[0; 4]);
    assert_eq!(d.rule, "L1");
    let want = EsaRepr {
        packet_type: PacketType::Flush,
        flags: Flags::UPPER,
        bitmap: 0b1,
        count: 1,
        ..pull(9, Flags::NONE)
    };
    assert_eq!(d.emit.unwrap().frame, frame(PS_PORT, want, &[1; 4]));
}

#[test]
fn preemption_marks_the_evicted_partial_for_the_ps_at_either_level() {
    // At a leaf: the rack's bit on the EVICTED part.
    let mut pool = leaf(TreeRole::leaf(UPLINK), 2);
    process(&mut pool, 1, data(0, 9, Flags::NONE), &[1, 2, 3, 4]);
    let mut intruder = data(0, 4, Flags::NONE);
    intruder.key = Key::new(7, 2, 4);
    let d = process(&mut pool, 3, intruder, &[9; 4]);
    assert_eq!(d.rule, "D11");
    let want = EsaRepr {
        packet_type: PacketType::Evicted,
        worker: UPLINK.bit,
        ..data(0, 9, Flags::NONE)
    };
    assert_eq!(d.emit.unwrap().frame, frame(3, want, &[1, 2, 3, 4]));
    // At the root: UPPER on it.
    let mut pool = root(TreeRole::root(3));
    pool.insert_job(2, entry(2, 11, TreeRole::Flat)).unwrap();
    pool.authorize_members(2, &[3, 4]);
    process(&mut pool, 21, partial(0, 9), &[1; 4]);
    let d = process(&mut pool, 3, intruder, &[9; 4]);
    assert_eq!(d.rule, "D11");
    let want = EsaRepr {
        packet_type: PacketType::Evicted,
        worker: 0,
        ..partial(0, 9)
    };
    assert_eq!(d.emit.unwrap().frame, frame(3, want, &[1; 4]));
}

#[test]
fn a_rack_of_one_passes_its_worker_up_and_a_resend_to_the_ps() {
    let mut pool = leaf(TreeRole::leaf(UPLINK), 1);
    let d = process(&mut pool, 1, data(0, 9, Flags::NONE), &[4; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::SentUp, "D0"));
    assert_eq!(d.emit.unwrap().frame, frame(1, partial(1, 9), &[4; 4]));
    let mut again = data(0, 9, Flags::RESEND);
    again.fan_in = 1;
    let d = process(&mut pool, 1, again, &[4; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::Fallback, "D8"));
    let want = EsaRepr {
        packet_type: PacketType::Fallback,
        worker: UPLINK.bit,
        fan_in: 1,
        ..again
    };
    assert_eq!(d.emit.unwrap().frame, frame(1, want, &[4; 4]));
    let c = pool.counters(JOB);
    assert_eq!((c.data_rx, c.data_outcomes()), (2, 2));
}

#[test]
fn a_level_without_memory_falls_back_at_that_level_only() {
    // A leaf without memory: every worker's DATA to the PS, marked.
    let mut pool = leaf(
        TreeRole::Leaf {
            uplink: UPLINK,
            aggregate: false,
        },
        2,
    );
    let d = process(&mut pool, 2, data(1, 9, Flags::NONE), &[3; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::Fallback, "D0"));
    let want = EsaRepr {
        packet_type: PacketType::Fallback,
        worker: UPLINK.bit,
        ..data(1, 9, Flags::NONE)
    };
    assert_eq!(d.emit.unwrap().frame, frame(2, want, &[3; 4]));
    // A root without memory: each rack's partial to the PS, whole.
    let mut pool = root(TreeRole::Root {
        aggregate: false,
        racks: 3,
    });
    let d = process(&mut pool, 22, partial(1, 9), &[3; 4]);
    assert_eq!(
        (d.rule, d.emit.as_ref().unwrap().dest),
        ("D0", Destination::Port(PS_PORT))
    );
    let want = EsaRepr {
        packet_type: PacketType::Fallback,
        ..partial(1, 9)
    };
    assert_eq!(d.emit.unwrap().frame, frame(22, want, &[3; 4]));
    // A root with a rack falling back below it (its fan-in counts the
    // two that aggregate, numbered first) sends its completion to the PS
    // as a part covering those racks, in the job's header (three racks).
    let mut pool = Pool::new(config()).unwrap();
    let tree = TreeRole::Root {
        aggregate: true,
        racks: 3,
    };
    pool.insert_job(JOB, entry(2, PS_PORT, tree)).unwrap();
    pool.authorize_members(JOB, &CHILDREN);
    process(&mut pool, 21, partial(0, 9), &[1; 4]);
    let d = process(&mut pool, 22, partial(1, 9), &[2; 4]);
    assert_eq!((d.outcome, d.rule), (Outcome::Completed, "D1"));
    let want = EsaRepr {
        packet_type: PacketType::Fallback,
        bitmap: 0b11,
        count: 2,
        ..partial(1, 9)
    };
    let emit = d.emit.unwrap();
    assert_eq!(emit.dest, Destination::Port(PS_PORT));
    assert_eq!(emit.frame, frame(22, want, &[3; 4]));
}

#[test]
fn a_tree_entry_that_cannot_work_is_refused() {
    let mut pool = Pool::new(config()).unwrap();
    for (uplink, what) in [
        (Uplink { bit: 3, ..UPLINK }, "bit"),
        (
            Uplink {
                root_fan_in: 1,
                bit: 0,
                ..UPLINK
            },
            "fan-in",
        ),
    ] {
        let err = pool
            .insert_job(JOB, entry(2, 20, TreeRole::leaf(uplink)))
            .unwrap_err();
        assert!(
            matches!(err, PoolError::BadTree { job: JOB, .. }),
            "{what}: {err}"
        );
    }
    // A flat job still needs two workers; a leaf may hold one.
    assert!(pool.insert_job(JOB, entry(1, 20, TreeRole::Flat)).is_err());
    assert!(
        pool.insert_job(JOB, entry(1, 20, TreeRole::leaf(UPLINK)))
            .is_ok()
    );
}
