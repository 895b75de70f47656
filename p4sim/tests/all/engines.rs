//! The compiled engine (closures) and the native engine (the Rust that
//! `p4sim-native-corpus` generated for the same programs) against the
//! reference interpreter: every program that runs, its STF (if any), then
//! random and mutated packets, through each; the output frames (port and
//! bytes, in order) and the run-time state (registers, counters, direct
//! counters, meters, random generator, log, digests) must be identical
//! after every packet.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use p4sim::ir::Compiled;
use p4sim::v1switch::{Engine, V1Switch};

use crate::support::Rng;

/// The engines tested against the reference.
const FAST: [Engine; 2] = [Engine::Compiled, Engine::Native];

/// The reference and `engine` on `c`; the native engine must have found
/// the code generated for `c`. The engine under test starts each packet
/// with its scratch slots (parameters, locals, temporaries) set to
/// garbage where the reference keeps the last packet's values: a program
/// that read one before writing it would tell them apart.
fn pair(c: &Arc<Compiled>, engine: Engine) -> (V1Switch, V1Switch) {
    p4sim_native_corpus::register();
    let mut f = V1Switch::with_engine(Arc::clone(c), engine);
    f.fill_scratch(0xa5a5_5a5a_a5a5_5a5a);
    assert_eq!(f.engine(), engine, "no generated code for this program");
    (V1Switch::with_engine(Arc::clone(c), Engine::Reference), f)
}

/// The test programs, and esa-switch's (which its forwarding bench runs
/// on the native engine).
fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let switch = root.join("../../switch/tests/programs");
    let switch = std::fs::canonicalize(&switch).unwrap_or(switch);
    let mut out = vec![];
    for dir in [
        root.join("conformance"),
        root.join("frontend_programs"),
        switch,
    ] {
        if let Ok(files) = p4_files(&dir) {
            out.extend(files);
        }
    }
    out.sort();
    out
}

/// The `.p4` files in `dir`.
fn p4_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "p4"))
        .collect())
}

#[test]
fn engines_agree_on_every_program_with_stf_and_random_packets() {
    let mut rng = Rng(0x5eed_1234_5678_9abc);
    let mut ran = 0;
    let mut with_stf = 0;
    for (p, engine) in programs()
        .into_iter()
        .flat_map(|p| FAST.map(|e| (p.clone(), e)))
    {
        let Ok(c) = p4sim::check::compile_file(&p, &[]) else {
            continue;
        };
        ran += 1;
        let c = Arc::new(c);
        let what = format!("{} on {engine:?}", p.display());
        let (mut r, mut f) = pair(&c, engine);
        let mut pool: Vec<Vec<u8>> = vec![];
        if let Ok(stf) = std::fs::read_to_string(p.with_extension("stf")) {
            with_stf += 1;
            let (ra, r2) = p4sim::stf::runner::run_stf_on(r, &stf).unwrap();
            let (fa, f2) = p4sim::stf::runner::run_stf_on(f, &stf).unwrap();
            assert!(ra.passed, "{what}: the STF fails on the reference:\n{ra}");
            assert_eq!(ra.sequence, fa.sequence, "{what}: STF outputs differ");
            assert_eq!(ra.failures, fa.failures, "{what}: STF failures differ");
            assert_eq!(ra.notes, fa.notes, "{what}: STF notes differ");
            (r, f) = (r2, f2);
            r.compare_state(&f)
                .unwrap_or_else(|e| panic!("{what}: after the STF: {e}"));
            pool.extend(ra.sequence.into_iter().map(|(_, d)| d));
        }
        for sw in [&mut r, &mut f] {
            let _ = sw.pre_mut().mirroring_add(5, 3);
            if sw.pre_mut().mc_mgrp_create(1).is_ok() {
                let n = sw.pre_mut().mc_node_create(1, &[1, 2], &[]).unwrap();
                sw.pre_mut().mc_node_associate(1, n).unwrap();
            }
        }
        for i in 0..400 {
            let port = (rng.below(8)) as u16;
            let pkt: Vec<u8> = if !pool.is_empty() && rng.chance(60) {
                // a packet seen before, mutated
                let mut x = pool[rng.below(pool.len() as u64) as usize].clone();
                for _ in 0..rng.below(3) {
                    if !x.is_empty() {
                        let at = rng.below(x.len() as u64) as usize;
                        x[at] ^= 1 << rng.below(8);
                    }
                }
                if rng.chance(10) {
                    x.truncate(rng.below(x.len() as u64 + 1) as usize);
                }
                x
            } else {
                let len = rng.below(90) as usize;
                (0..len).map(|_| rng.next() as u8).collect()
            };
            r.set_time_us(i as u64 * 7);
            f.set_time_us(i as u64 * 7);
            let outs = r
                .lockstep(&mut f, port, &pkt)
                .unwrap_or_else(|e| panic!("{what}: packet {i}: {e}"));
            if pool.len() < 64 {
                pool.extend(outs);
            }
        }
    }
    assert!(ran >= 50, "only {} programs compiled", ran / 2);
    assert!(with_stf >= 40, "only {} programs had an STF", with_stf / 2);
}

/// `process_batch` sends what `process` sends, packet for packet, and
/// leaves the same state: every program that compiles, random frames in
/// batches of 37.
#[test]
fn process_batch_sends_what_process_sends() {
    let mut rng = Rng(0xba7c_4ed0_0000_0001);
    let mut ran = 0;
    for p in programs() {
        let Ok(c) = p4sim::check::compile_file(&p, &[]) else {
            continue;
        };
        ran += 1;
        let c = Arc::new(c);
        let mut one = V1Switch::new(Arc::clone(&c));
        let mut batched = V1Switch::new(Arc::clone(&c));
        let packets: Vec<(u16, Vec<u8>)> = (0..150)
            .map(|_| {
                let len = rng.below(90) as usize;
                (
                    (rng.below(8)) as u16,
                    (0..len).map(|_| rng.next() as u8).collect(),
                )
            })
            .collect();
        for (n, chunk) in packets.chunks(37).enumerate() {
            one.set_time_us(n as u64 * 50);
            batched.set_time_us(n as u64 * 50);
            one.lockstep_batch(&mut batched, chunk)
                .unwrap_or_else(|e| panic!("{}: batch {n}: {e}", p.display()));
        }
    }
    assert!(ran >= 25, "only {ran} programs compiled");
}

/// `process_append_reusing` sends what `process` sends, packet for
/// packet, and leaves the same state, though the buffers it deparses into
/// come back dirty: every program that compiles (the TNA ones too, whose
/// egress bypass copies one buffer to several ports), with a clone session
/// and a multicast group set up, random frames; each output's bytes are
/// overwritten before its buffer goes back to the spare ones, and the
/// spare ones start out as garbage of random lengths.
#[test]
fn process_append_reusing_sends_what_process_sends() {
    let mut rng = Rng(0x0bad_5eed_2026_1127);
    let mut ran = 0;
    let mut sent = 0;
    let tna = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tna");
    let mut all = programs();
    all.extend(p4_files(&tna).unwrap());
    for p in all {
        let Ok(c) = p4sim::check::compile_file(&p, &[]) else {
            continue;
        };
        ran += 1;
        let c = Arc::new(c);
        let mut copying = V1Switch::new(Arc::clone(&c));
        let mut reusing = V1Switch::new(Arc::clone(&c));
        for sw in [&mut copying, &mut reusing] {
            let _ = sw.pre_mut().mirroring_add(5, 3);
            if sw.pre_mut().mc_mgrp_create(1).is_ok() {
                let n = sw.pre_mut().mc_node_create(1, &[1, 2], &[]).unwrap();
                sw.pre_mut().mc_node_associate(1, n).unwrap();
            }
        }
        let mut spare: Vec<Vec<u8>> = (0..rng.below(4))
            .map(|_| (0..rng.below(300)).map(|_| rng.next() as u8).collect())
            .collect();
        let mut out = Vec::new();
        for i in 0..150 {
            let port = rng.below(8) as u16;
            let len = rng.below(90) as usize;
            let pkt: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            copying.set_time_us(i * 13);
            reusing.set_time_us(i * 13);
            let want = copying.process(port, &pkt);
            reusing.process_append_reusing(port, &pkt, &mut out, &mut spare);
            assert_eq!(out, want, "{}: packet {i}", p.display());
            copying
                .compare_state(&reusing)
                .unwrap_or_else(|e| panic!("{}: packet {i}: {e}", p.display()));
            sent += out.len();
            for mut o in out.drain(..) {
                o.data.fill(0xee);
                o.data.push(0xee);
                spare.push(o.data);
            }
        }
    }
    assert!(ran >= 38, "only {ran} programs compiled");
    assert!(sent >= 4000, "only {sent} packets sent");
}
