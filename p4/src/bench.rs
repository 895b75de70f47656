//! The data-plane benchmark (feature `bench`): `esa.p4` on p4sim's native
//! engine (the code this crate generated), its compiled engine (closures)
//! and its reference interpreter, beside esa-core's pool model, on the same
//! generated multi-job traffic (`esa bench dataplane`, and
//! `cargo bench -p esa-p4 --bench dataplane` with criterion); and the
//! same mix on BMv2.
//!
//! The mix: four jobs sharing a 4096-slot pool — two `esa` jobs of four
//! workers at priorities 7 and 3, an `atp` job of two workers whose PS
//! returns each RESULT through the switch (the release), and a `switchml`
//! job of two workers in its own 1024-slot range — each streaming a window
//! of chunks with workers interleaved, 2 % of DATA packets resent, and one
//! packet in fifty that is not ESA (L2).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{Arch, Defines, tables, text};
use esa_core::addressing::{host_ip, host_mac};
use esa_core::job::{JobEntry, Mode, SlotRange, slot_for};
use esa_core::plan::JobPlan;
use esa_core::pool::{Pool, PoolConfig};
use esa_core::rng::Rng;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType};
use p4sim::v1switch::{Engine, OutputArena, V1Switch};

/// Slots of the benchmark's pool (esa.p4's default).
pub const SLOTS: usize = 4096;
/// Chunks each job keeps in flight.
pub const WINDOW: usize = 256;

/// One job of the mix.
#[derive(Debug, Clone)]
pub struct Job {
    /// Job id.
    pub id: u16,
    /// Its job-table entry.
    pub entry: JobEntry,
    /// Its workers' switch ports.
    pub workers: Vec<u16>,
    /// The priority its packets carry.
    pub priority: u8,
}

/// The four jobs of the mix.
pub fn jobs() -> Vec<Job> {
    let spec = [
        (1u16, Mode::Esa, 4u8, 7u8),
        (2, Mode::Esa, 4, 3),
        (3, Mode::Atp, 2, 5),
        (4, Mode::SwitchMl, 2, 5),
    ];
    // The switchml job's own range: the pool's last quarter.
    let own = SlotRange {
        base: 3072,
        mask: 1023,
    };
    let mut port = 1;
    let mut out = vec![];
    for (k, (id, mode, fan_in, priority)) in spec.into_iter().enumerate() {
        let workers: Vec<u16> = (port..port + u16::from(fan_in)).collect();
        let ps_port = port + u16::from(fan_in);
        port = ps_port + 1;
        let slots = SlotRange::for_mode(mode, SlotRange::whole_pool(SLOTS), own);
        let entry = JobPlan::new(id, fan_in, mode, slots).entry(7, k as u16 + 1, ps_port);
        out.push(Job {
            id,
            entry,
            workers,
            priority,
        });
    }
    out
}

/// The host behind `port`.
fn host(port: u16) -> (MacAddr, Ipv4Addr) {
    (host_mac(port), host_ip(port))
}

impl Job {
    /// The job's workers and its PS: the members of its multicast group.
    pub fn members(&self) -> Vec<u16> {
        tables::job_members(&self.entry, &self.workers)
    }

    /// Every table entry of the job on the v1model program: its job, route
    /// and port entries, and each member's host, reachable by L2 too.
    pub fn table_entries(&self) -> Vec<tables::TableEntry> {
        let mut out = tables::job_entries(Arch::V1model, self.id, &self.entry, &self.workers);
        for p in self.members() {
            let (mac, ip) = host(p);
            out.push(tables::host_entry(p, mac, ip));
            out.push(tables::l2_entry(mac, p));
        }
        out
    }
}

/// The repository's `p4/v1model/esa.p4`.
pub fn default_program() -> PathBuf {
    Arch::V1model.program()
}

/// `program` compiled by p4sim for `lanes` lanes.
pub fn compile(program: &Path, lanes: usize) -> Result<Arc<p4sim::ir::Compiled>, String> {
    crate::program::compile(program, &Defines::lanes(lanes))
}

/// A switch on `engine` and the pool model, programmed alike, as the
/// controller programs them.
pub fn program(
    jobs: &[Job],
    compiled: &Arc<p4sim::ir::Compiled>,
    lanes: usize,
    engine: Engine,
) -> Result<(V1Switch, Pool), String> {
    let mut sw = V1Switch::with_engine(Arc::clone(compiled), engine);
    let mut pool = Pool::new(PoolConfig {
        slots: SLOTS,
        lanes,
        stale_after_us: 1_000_000,
    })
    .map_err(|e| e.to_string())?;
    crate::sim::set_stale_after(&mut sw, Arch::V1model, 1_000_000)?;
    for job in jobs {
        for entry in job.table_entries() {
            crate::sim::install(&mut sw, Arch::V1model, &entry)?;
        }
        let members = job.members();
        crate::sim::set_group(&mut sw, job.entry.mcast_group, &members)?;
        pool.insert_job(job.id, job.entry)
            .map_err(|e| e.to_string())?;
        pool.authorize_members(job.id, &job.workers);
        for &p in &members {
            let (mac, ip) = host(p);
            pool.set_host(p, mac, ip);
        }
        pool.set_group(job.entry.mcast_group, members);
    }
    Ok((sw, pool))
}

/// At least `packets` packets of the mix, `(ingress port, frame)` in
/// arrival order, for `lanes` lanes.
pub fn trace(jobs: &[Job], lanes: usize, packets: usize) -> Vec<(u16, Vec<u8>)> {
    let mut rng = Rng::new(42);
    let mut out = vec![];
    let frame = |port: u16, esa: EsaRepr, values: &[i32]| {
        FrameRepr {
            src_mac: MacAddr::local(port.into()),
            dst_mac: MacAddr::local(0xfffe),
            src_ip: Ipv4Addr::new(10, 0, 0, port as u8),
            dst_ip: Ipv4Addr::new(10, 0, 0, 254),
            esa,
        }
        .emit(values, lanes)
    };
    let mut round: u32 = 0;
    while out.len() < packets {
        let seq = round as u16;
        round += 1;
        for job in jobs {
            let mapping = job.entry.mode.slot_mapping();
            let slot = slot_for(mapping, job.id, seq, WINDOW, job.entry.slot_mask);
            let mut esa = EsaRepr {
                packet_type: PacketType::Data,
                flags: Flags::NONE,
                slot,
                key: Key::new(job.priority, job.id, seq),
                bitmap: 0,
                fan_in: job.entry.fan_in,
                count: 1,
                exponent: 8,
                worker: 0,
            };
            for (w, &port) in job.workers.iter().enumerate() {
                esa.worker = w as u8;
                esa.bitmap = 1 << w;
                let values: Vec<i32> = (0..lanes)
                    .map(|_| rng.range(0, 2000) as i32 - 1000)
                    .collect();
                let data = frame(port, esa, &values);
                if rng.chance(0.02) {
                    let mut resend = esa;
                    resend.flags = Flags::RESEND;
                    out.push((port, frame(port, resend, &values)));
                }
                out.push((port, data));
                if rng.chance(0.02) {
                    // An ARP-sized L2 frame to another host (egress drops
                    // hairpins).
                    let to = if port == 1 { 2 } else { 1 };
                    let mut l2 = vec![0u8; 60];
                    l2[..6].copy_from_slice(&MacAddr::local(to).0);
                    l2[6..12].copy_from_slice(&MacAddr::local(port.into()).0);
                    l2[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
                    out.push((port, l2));
                }
            }
            // The PS's RESULT passing back through the switch: the release.
            if job.entry.mode.ps_forwards_results() {
                esa.packet_type = PacketType::Result;
                esa.bitmap = job.entry.full_bitmap();
                esa.count = job.entry.fan_in;
                esa.worker = 255;
                out.push((
                    job.entry.ps_port,
                    frame(job.entry.ps_port, esa, &vec![0; lanes]),
                ));
            }
        }
    }
    out
}

/// What one pass of the trace did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// Packets in.
    pub packets: usize,
    /// Packets the program emitted.
    pub emitted: usize,
    /// Chunks completed in the switch.
    pub completed: u64,
}

/// Runs the trace once on a switch on `engine` and on the model and checks
/// they emit the same packets (the model has no L2 table: each L2 frame must
/// leave esa.p4 once), so the figures are for the intended work.
pub fn check_same_work(
    trace: &[(u16, Vec<u8>)],
    jobs: &[Job],
    compiled: &Arc<p4sim::ir::Compiled>,
    lanes: usize,
    engine: Engine,
) -> Result<Work, String> {
    let (mut sw, mut pool) = program(jobs, compiled, lanes, engine)?;
    let mut emitted = 0;
    for (i, (port, frame)) in trace.iter().enumerate() {
        sw.set_time_us(i as u64);
        let mut have: Vec<(u16, Vec<u8>)> = sw
            .process(*port, frame)
            .into_iter()
            .map(|p| (p.port, p.data))
            .collect();
        emitted += have.len();
        let d = pool.process(frame, *port, i as u64);
        let mut want = d.emit.map(|e| pool.egress(&e)).unwrap_or_default();
        if d.rule == "not-esa" {
            if have.len() != 1 {
                return Err(format!("{engine:?}: L2 frame {i} not forwarded once"));
            }
            continue;
        }
        have.sort();
        want.sort();
        if have != want {
            return Err(format!(
                "{engine:?}: esa.p4 and the pool model disagree on packet {i} (rule {})",
                d.rule
            ));
        }
    }
    Ok(Work {
        packets: trace.len(),
        emitted,
        completed: jobs.iter().map(|j| pool.counters(j.id).completed).sum(),
    })
}

/// What `esa bench dataplane` measures.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// The P4 program (esa.p4 or a variant with the same tables).
    pub program: PathBuf,
    /// Lanes per packet.
    pub lanes: usize,
    /// Packets per timed run.
    pub packets: usize,
    /// Timed runs per engine; the median is reported.
    pub repeats: usize,
}

/// Packets per `process_batch` call in the batched figure.
pub const BATCH: usize = 64;

/// One engine's figure.
#[derive(Debug, Clone)]
pub struct EngineRate {
    /// `native` (the generated code of `esa_p4`, when one matches the
    /// program; else this line and the next are left out),
    /// `native-batched` (the same, [`BATCH`] packets per call into one
    /// output arena), `compiled` (closures), `batched` (closures,
    /// [`BATCH`] packets per call), `reference` or `model`.
    pub name: &'static str,
    /// Median packets per second.
    pub pps: f64,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Checks that both engines and the model agree on the trace, then times
/// `repeats` runs of `packets` packets on each (a fresh switch per run,
/// the trace cycled when shorter), and returns the median rates.
pub fn bench(
    options: &BenchOptions,
    mut progress: impl FnMut(&str),
) -> Result<(Work, Vec<EngineRate>), String> {
    crate::register();
    let jobs = jobs();
    let compiled = compile(&options.program, options.lanes)?;
    let native =
        V1Switch::with_engine(Arc::clone(&compiled), Engine::Native).engine() == Engine::Native;
    if !native {
        progress(
            "native: no generated code matches this program (esa-p4 is built for esa.p4 \
             with the default pool at K=32 and K=64): left out",
        );
    }
    // A trace long enough to be representative; longer runs cycle it
    // (seqs repeat only after 65,536 rounds).
    let trace = trace(&jobs, options.lanes, options.packets.min(200_000));
    let work = check_same_work(&trace, &jobs, &compiled, options.lanes, Engine::Compiled)?;
    let reference = check_same_work(&trace, &jobs, &compiled, options.lanes, Engine::Reference)?;
    if reference != work {
        return Err(format!(
            "the engines did different work: {work:?} vs {reference:?}"
        ));
    }
    if native {
        let n = check_same_work(&trace, &jobs, &compiled, options.lanes, Engine::Native)?;
        if n != work {
            return Err(format!(
                "the native engine did different work: {n:?} vs {work:?}"
            ));
        }
    }
    progress(&format!(
        "checked: {}compiled, reference and model agree on every packet of a {}-packet trace \
         ({} emitted, {} chunks completed in the switch)",
        if native { "native, " } else { "" },
        work.packets,
        work.emitted,
        work.completed
    ));
    let mut rates = vec![];
    let names = [
        "native",
        "native-batched",
        "compiled",
        "batched",
        "reference",
        "model",
    ];
    for name in names
        .into_iter()
        .filter(|n| native || !n.starts_with("native"))
    {
        let mut times = vec![];
        for run in 0..options.repeats {
            let engine = match name {
                "reference" => Engine::Reference,
                "native" | "native-batched" => Engine::Native,
                _ => Engine::Compiled,
            };
            let (mut sw, mut pool) = program(&jobs, &compiled, options.lanes, engine)?;
            let mut arena = OutputArena::new();
            let (mut sent, mut spare) = (Vec::new(), Vec::new());
            let started = Instant::now();
            let mut i = 0;
            while i < options.packets {
                match name {
                    "model" => {
                        let (port, frame) = &trace[i % trace.len()];
                        let d = pool.process(frame, *port, i as u64);
                        std::hint::black_box(d.emit.map(|e| pool.egress(&e)));
                        i += 1;
                    }
                    "batched" | "native-batched" => {
                        let n = BATCH.min(options.packets - i);
                        sw.set_time_us(i as u64);
                        arena.clear();
                        let batch = (i..i + n).map(|k| {
                            let (port, frame) = &trace[k % trace.len()];
                            (*port, frame.as_slice())
                        });
                        sw.process_batch(batch, &mut arena);
                        std::hint::black_box(&arena);
                        i += n;
                    }
                    _ => {
                        // one packet per call, as esa-switch's packet
                        // thread runs them: its frames into one reused
                        // vector, deparsed into the buffers of frames
                        // sent before
                        let (port, frame) = &trace[i % trace.len()];
                        sw.set_time_us(i as u64);
                        sw.process_append_reusing(*port, frame, &mut sent, &mut spare);
                        std::hint::black_box(&sent);
                        spare.extend(sent.drain(..).map(|p| p.data));
                        i += 1;
                    }
                }
            }
            times.push(started.elapsed());
            progress(&format!(
                "{name}: run {}/{} {:.0} packets/s",
                run + 1,
                options.repeats,
                options.packets as f64 / times[run].as_secs_f64()
            ));
        }
        rates.push(EngineRate {
            name,
            pps: options.packets as f64 / median(times).as_secs_f64(),
        });
    }
    Ok((work, rates))
}

/// The same mix on BMv2's `simple_switch` (compiled by p4c, logging off,
/// packets through its packet socket in order): programs it as
/// [`program`] does (with a stale bound beyond the run, since BMv2's clock
/// is real time), sends `packets` packets of the trace and waits until as
/// many frames have left as p4sim's compiled engine emits for the same
/// packets. Returns packets per second, first packet in to last frame out.
pub fn bench_bmv2(
    tools: &esa_bmv2::Tools,
    options: &BenchOptions,
    mut progress: impl FnMut(&str),
) -> Result<f64, String> {
    let jobs = jobs();
    let compiled = compile(&options.program, options.lanes)?;
    let trace = trace(&jobs, options.lanes, options.packets);
    let trace = &trace[..options.packets.min(trace.len())];
    let want = check_same_work(trace, &jobs, &compiled, options.lanes, Engine::Compiled)?;
    let out = std::env::temp_dir().join(format!("esa-bench-bmv2-{}", std::process::id()));
    let defines = Defines::lanes(options.lanes).pairs();
    let p4c = esa_bmv2::compile(tools, &options.program, &[], &defines, &out)
        .map_err(|e| e.to_string())?;
    let mut sw = esa_bmv2::SimpleSwitch::start(tools, &p4c.json, &Default::default())
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&out);
    let mut commands = vec![text::cli_stale_param(Arch::V1model, 100_000_000)];
    for (k, job) in jobs.iter().enumerate() {
        for entry in job.table_entries() {
            commands.push(text::cli_add(Arch::V1model, &entry)?);
        }
        commands.extend(text::group_commands(
            job.entry.mcast_group,
            &job.members(),
            k as u32,
        ));
    }
    sw.cli(tools)
        .and_then(|cli| cli.run(&commands))
        .map_err(|e| e.to_string())?;
    progress(&format!(
        "bmv2: programmed; sending {} packets, expecting {} frames out",
        trace.len(),
        want.emitted
    ));
    let started = Instant::now();
    for (port, frame) in trace {
        sw.send(u32::from(*port), frame)
            .map_err(|e| e.to_string())?;
    }
    let got = sw.wait_outputs(want.emitted, Duration::from_secs(600));
    let took = started.elapsed();
    // Anything more would show up now.
    let extra = sw.wait_outputs(want.emitted + 1, Duration::from_millis(300));
    if got != want.emitted || extra != want.emitted {
        return Err(format!(
            "BMv2 emitted {extra} frames for {} packets, p4sim {}",
            trace.len(),
            want.emitted
        ));
    }
    Ok(trace.len() as f64 / took.as_secs_f64())
}
