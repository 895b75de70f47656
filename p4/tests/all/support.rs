//! Random multi-job traffic for the data plane's differential tests
//! (`p4_differential.rs`: program against model; `bmv2_differential.rs`:
//! p4sim against BMv2): the jobs and the packets, in one place.

#![allow(dead_code)]

use esa_core::addressing::{host_ip, host_mac};
use esa_core::constants::PS_WORKER_ID;
use esa_core::job::{JobEntry, Mode, TreeRole};
use esa_core::pool::Decision;
use esa_core::rng::Rng;
use esa_core::wire::{EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, MacAddr, PacketType};
use esa_p4::tables::{TableEntry, WorkerPortKey};

/// The model's decision rows (`Decision::rule`) a long run of random
/// traces must reach, so a generator that stopped reaching one fails;
/// [`row`] names the rows atp jobs take their own way, and P2's HELD.
pub const ROWS: [&str; 26] = [
    "admission",
    "not-esa",
    "Q1",
    "D1",
    "D2",
    "D3",
    "D4",
    "D5",
    "D6",
    "D7",
    "D8",
    "D9",
    "D10",
    "D11",
    "D12",
    "R1",
    "R2",
    "A1",
    "P1",
    "P2",
    "P2 held",
    "L1",
    "L2",
    "D2 atp",
    "D5 atp",
    "D12 atp",
];

/// The row of `decision` as [`ROWS`] names it, for the packet `frame` of
/// one of `jobs`: D2 and D5 of an atp job are `"D2 atp"` and `"D5 atp"` (no
/// tombstone; a FLUSH of the sum), and D12 of one `"D12 atp"` (a collision;
/// with the traces' stale bounds of at most 60 µs its slot is mostly stale,
/// which another mode would reclaim, D10); a P2 whose PROBE leaves marked
/// HELD (a repeated probe of a contribution the slot holds) is `"P2 held"`.
pub fn row(jobs: &[Job], frame: &[u8], decision: &Decision) -> &'static str {
    // Ethernet 14 + IPv4 20 + UDP 8, then ESA: the flags are byte 1, the
    // job bits 27..16 of the key (bytes 4..8)
    let job = frame
        .get(46..48)
        .map(|b| u16::from_be_bytes([b[0], b[1]]) & 0x0fff);
    let atp = jobs
        .iter()
        .any(|j| Some(j.id) == job && j.entry.mode == Mode::Atp);
    let held = decision
        .emit
        .as_ref()
        .and_then(|e| e.frame.get(43))
        .is_some_and(|&flags| Flags(flags).contains(Flags::HELD));
    match (atp, decision.rule) {
        (true, "D2") => "D2 atp",
        (true, "D5") => "D5 atp",
        (true, "D12") => "D12 atp",
        (_, "P2") if held => "P2 held",
        (_, rule) => rule,
    }
}

/// A job of a random trace: id, table entry, its workers' ports (its PS is
/// on `entry.ps_port`).
pub struct Job {
    pub id: u16,
    pub entry: JobEntry,
    pub worker_ports: Vec<u16>,
}

impl Job {
    /// The job's workers and its PS: the members of its multicast group.
    pub fn members(&self) -> Vec<u16> {
        esa_p4::tables::job_members(&self.entry, &self.worker_ports)
    }

    /// A binding no controller installs: worker 0's port also speaks for
    /// the id just beyond the fan-in, so the range check behind the
    /// binding (`drop_bad_worker`) stays reachable.
    pub fn beyond_fan_in(&self) -> WorkerPortKey {
        WorkerPortKey {
            job: self.id,
            port: self.worker_ports[0],
            worker: self.entry.fan_in,
        }
    }

    /// The job's entries in `arch`'s program: what the controller
    /// installs, and [`Job::beyond_fan_in`].
    pub fn entries(&self, arch: esa_p4::Arch) -> Vec<TableEntry> {
        let mut out = esa_p4::tables::job_entries(arch, self.id, &self.entry, &self.worker_ports);
        out.push(TableEntry::WorkerPort(self.beyond_fan_in()));
        out
    }
}

/// Two or three jobs (ids 1, 7, 4095) in random modes with random fan-in and
/// priority limits, on a pool of `slots`; SwitchML jobs get a 4-slot range.
pub fn random_jobs(rng: &mut Rng, slots: usize) -> Vec<Job> {
    let mut jobs = vec![];
    let mut port = 1u16;
    for k in 0..rng.range(2, 3) as u16 {
        let id = [1, 7, 4095][usize::from(k)];
        let fan_in = rng.range(2, 3) as u8;
        let mode = [Mode::Esa, Mode::Esa, Mode::Atp, Mode::SwitchMl][rng.below(4) as usize];
        let (slot_base, slot_mask) = match mode {
            Mode::SwitchMl => (k * 4, 3),
            Mode::Esa | Mode::Atp => (0, (slots - 1) as u16),
        };
        let worker_ports: Vec<u16> = (port..port + u16::from(fan_in)).collect();
        let ps_port = port + u16::from(fan_in);
        port = ps_port + 1;
        jobs.push(Job {
            id,
            entry: JobEntry {
                fan_in,
                mode,
                max_priority: rng.range(3, 15) as u8,
                mcast_group: k + 1,
                ps_port,
                slot_base,
                slot_mask,
                tree: TreeRole::Flat,
            },
            worker_ports,
        });
    }
    jobs
}

/// [`random_jobs`], each job given a random place on a tree of jobs
/// across switches (`docs/protocol.md` §9): a rack's leaf (its PS port is
/// the uplink; now and then a rack of one worker), the root (its workers'
/// ports are its leaves; now and then a rack falling back below it), or
/// flat; now and then without memory.
pub fn random_tree_jobs(rng: &mut Rng, slots: usize) -> Vec<Job> {
    let mut jobs = random_jobs(rng, slots);
    for job in &mut jobs {
        let aggregate = !rng.chance(0.15);
        job.entry.tree = match rng.below(10) {
            0..=3 => {
                if rng.chance(0.25) {
                    job.worker_ports.truncate(1);
                    job.entry.fan_in = 1;
                }
                let root_fan_in = rng.range(2, 4) as u8;
                TreeRole::Leaf {
                    uplink: esa_core::job::Uplink {
                        port: job.entry.ps_port,
                        bit: rng.below(u64::from(root_fan_in)) as u8,
                        root_fan_in,
                    },
                    aggregate,
                }
            }
            4..=6 => TreeRole::Root {
                aggregate,
                racks: job.entry.fan_in + u8::from(rng.chance(0.2)),
            },
            _ => TreeRole::Flat,
        };
    }
    jobs
}

/// [`random_packet`] for [`random_tree_jobs`]: what a leaf gets from above
/// (the root's results in the job's header, pulls for either level), what
/// a root gets from its leaves (racks' partials, parts and forwarded
/// probes, workers' results) and from its PS (pulls for either level),
/// and packets of the wrong level.
pub fn random_tree_packet(rng: &mut Rng, jobs: &[Job], lanes: usize) -> (u16, Vec<u8>) {
    let (port, mut esa, zero_lanes, job) = random_header(rng, jobs);
    let ps = port == job.entry.ps_port;
    match job.entry.tree {
        TreeRole::Flat => {}
        TreeRole::Leaf { uplink, .. } => match esa.packet_type {
            PacketType::Result if ps => {
                esa.flags = esa.flags | Flags::UPPER;
                esa.bitmap = (1u32 << uplink.root_fan_in) - 1;
                esa.count = uplink.root_fan_in;
                esa.fan_in = uplink.root_fan_in;
                esa.worker = rng.below(4) as u8;
            }
            PacketType::Pull if rng.chance(0.3) => esa.flags = esa.flags | Flags::UPPER,
            PacketType::Data if rng.chance(0.05) => esa.flags = esa.flags | Flags::UPPER,
            _ => {}
        },
        TreeRole::Root { racks, .. } => match esa.packet_type {
            PacketType::Data if !ps && rng.chance(0.2) => {
                // A leaf's part or forwarded probe, naming its rack.
                esa.packet_type = [
                    PacketType::Fallback,
                    PacketType::Evicted,
                    PacketType::Flush,
                    PacketType::Probe,
                ][rng.below(4) as usize];
                esa.bitmap = 1 << rng.below(3);
                esa.flags = Flags(rng.below(0x80) as u8);
            }
            PacketType::Data if !rng.chance(0.05) => {
                esa.flags = esa.flags | Flags::UPPER;
                esa.fan_in = racks;
            }
            PacketType::Result => {
                esa.flags = esa.flags | Flags::UPPER;
                if !ps {
                    // A worker of some rack answering a QUERY.
                    esa.worker = rng.below(8) as u8;
                }
            }
            PacketType::Pull if rng.chance(0.5) => esa.flags = esa.flags | Flags::UPPER,
            _ => {}
        },
    }
    random_frame(rng, port, esa, zero_lanes, lanes)
}

/// Whether `port` gets an egress host entry: some ports have none, so their
/// copies keep the addresses they came with.
pub fn has_host_entry(port: u16) -> bool {
    !port.is_multiple_of(3)
}

/// The host addresses of `port`.
pub fn host(port: u16) -> (MacAddr, Ipv4Addr) {
    (host_mac(port), host_ip(port))
}

/// One packet of `lanes` lanes: mostly DATA at random priorities, slots and
/// seqs (resends, overflow flags, sums that overflow now and then), some
/// PROBEs from workers (half of them repeated: RESEND), RESULTs (from the
/// PS and from workers answering a QUERY), QUERYs, PULLs, PENDINGs and
/// MISSINGs from the PS, and every class of bad input (unknown job,
/// unauthorized port, a sender id the port may not name, wrong type, slot
/// or worker, truncated frames, bad checksum, version and type, non-IPv4,
/// padding).
pub fn random_packet(rng: &mut Rng, jobs: &[Job], lanes: usize) -> (u16, Vec<u8>) {
    let (port, esa, zero_lanes, _) = random_header(rng, jobs);
    random_frame(rng, port, esa, zero_lanes, lanes)
}

/// A packet's ingress port and header as [`random_packet`] draws them,
/// whether its lanes are zero, and its job.
fn random_header<'a>(rng: &mut Rng, jobs: &'a [Job]) -> (u16, EsaRepr, bool, &'a Job) {
    let job = &jobs[rng.below(jobs.len() as u64) as usize];
    let worker = rng.below(job.worker_ports.len() as u64) as u8;
    let mut port = job.worker_ports[usize::from(worker)];
    let seq = rng.below(6) as u16;
    let mut esa = EsaRepr {
        packet_type: PacketType::Data,
        flags: Flags::NONE,
        slot: rng.below(u64::from(job.entry.slot_mask) + 1) as u16,
        key: Key::new(rng.below(16) as u8, job.id, seq),
        bitmap: 1 << worker,
        fan_in: job.entry.fan_in,
        count: 1,
        exponent: rng.range(0, 20) as i8,
        worker,
    };
    if rng.chance(0.3) {
        esa.flags = esa.flags | Flags::RESEND;
    }
    if rng.chance(0.05) {
        esa.flags = esa.flags | Flags::OVERFLOW;
    }
    let mut zero_lanes = false;
    match rng.below(100) {
        0..=6 => {
            esa.packet_type = PacketType::Result;
            esa.bitmap = job.entry.full_bitmap();
            esa.count = job.entry.fan_in;
            // mostly the PS's; now and then a worker's answer to a QUERY
            if rng.chance(0.8) {
                esa.worker = 255;
                port = job.entry.ps_port;
            }
        }
        7..=9 => {
            esa.packet_type = PacketType::Query;
            port = job.entry.ps_port;
        }
        10..=14 => {
            // first probes (P1 or P2) and repeated ones (always P2, HELD
            // where a first one would be P1)
            esa.packet_type = PacketType::Probe;
            esa.flags = if rng.chance(0.5) {
                esa.flags | Flags::RESEND
            } else {
                esa.flags.without(Flags::RESEND)
            };
            zero_lanes = true;
        }
        15..=17 => {
            esa.packet_type = PacketType::Pull;
            esa.bitmap = 0;
            esa.count = 0;
            esa.worker = 255;
            port = job.entry.ps_port;
            zero_lanes = true;
        }
        18..=19 => {
            esa.packet_type = if rng.chance(0.5) {
                PacketType::Pending
            } else {
                PacketType::Missing
            };
            port = job.entry.ps_port;
            zero_lanes = true;
        }
        20..=21 => esa.key = Key::new(1, 99, seq), // unknown job
        22..=23 => port = 200,                     // unauthorized port
        24..=25 => esa.packet_type = PacketType::Evicted,
        26 => esa.slot = job.entry.slot_mask + 1,
        27..=28 => {
            // worker out of range, from the port bound to it (Job::beyond_fan_in)
            esa.worker = job.entry.fan_in;
            esa.bitmap = 1u32.checked_shl(u32::from(esa.worker)).unwrap_or(0);
            port = job.worker_ports[0];
            if rng.chance(0.3) {
                esa.packet_type = PacketType::Probe;
            }
        }
        29..=31 => match rng.below(4) {
            // a worker's port naming a peer
            0 | 1 => {
                esa.worker = (worker + 1) % job.entry.fan_in;
                esa.bitmap = 1 << esa.worker;
                if rng.chance(0.3) {
                    esa.packet_type = PacketType::Probe;
                }
            }
            // the PS's port naming a worker
            2 => port = job.entry.ps_port,
            // a worker's port naming the PS on a RESULT
            _ => {
                esa.packet_type = PacketType::Result;
                esa.bitmap = job.entry.full_bitmap();
                esa.count = job.entry.fan_in;
                esa.worker = PS_WORKER_ID;
            }
        },
        _ => {}
    }
    (port, esa, zero_lanes, job)
}

/// The frame of `esa` from `port` with random lanes (zero for
/// `zero_lanes`), now and then damaged.
fn random_frame(
    rng: &mut Rng,
    port: u16,
    esa: EsaRepr,
    zero_lanes: bool,
    lanes: usize,
) -> (u16, Vec<u8>) {
    let values: Vec<i32> = (0..lanes)
        .map(|_| {
            if zero_lanes {
                0
            } else if rng.chance(0.02) {
                i32::MAX - rng.range(0, 10) as i32
            } else {
                rng.range(0, 2000) as i32 - 1000
            }
        })
        .collect();
    let (src_mac, src_ip) = host(port);
    let mut frame = FrameRepr {
        src_mac,
        dst_mac: MacAddr::local(0xfffe),
        src_ip,
        dst_ip: Ipv4Addr::new(10, 0, 0, 254),
        esa,
    }
    .emit(&values, lanes);
    match rng.below(100) {
        0..=1 => frame.truncate(rng.below(frame.len() as u64) as usize),
        2 => frame[24] ^= 0x40,                     // IPv4 checksum
        3 => frame[42] = 0x20 | (frame[42] & 0x0f), // ESA version
        4 => frame[42] = 0x10 | 0x0b,               // ESA type 11
        5 => frame[12] = 0x86,                      // not IPv4: L2, dropped by the empty table
        6 => frame.extend_from_slice(&[0; 6]),      // Ethernet padding
        _ => {}
    }
    (port, frame)
}

/// Lower-case hex, no separators.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Sends `frame` in on `port`; the frames that leave, as (port, bytes).
pub fn outputs(sw: &mut p4sim::v1switch::V1Switch, port: u16, frame: &[u8]) -> Vec<(u16, Vec<u8>)> {
    sw.process(port, frame)
        .into_iter()
        .map(|p| (p.port, p.data))
        .collect()
}

/// Packets counted in cell `index` of counter array `name`.
pub fn counter(sw: &mut p4sim::v1switch::V1Switch, name: &str, index: u32) -> u64 {
    sw.counter_read(name, index.into()).unwrap().0
}

/// Cell `index` of register array `name`.
pub fn register(sw: &p4sim::v1switch::V1Switch, name: &str, index: usize) -> u64 {
    sw.register_read(name, index as u64)
        .unwrap()
        .to_u64()
        .unwrap()
}

/// Installs `jobs` in the model and in p4sim running `arch`'s program
/// alike: entries ([`Job::entries`]), authorized ports and bound senders,
/// hosts and each job's multicast group.
pub fn install_jobs(
    pool: &mut esa_core::pool::Pool,
    sw: &mut p4sim::v1switch::V1Switch,
    arch: esa_p4::Arch,
    jobs: &[Job],
) {
    for job in jobs {
        let members = job.members();
        pool.insert_job(job.id, job.entry).unwrap();
        for e in job.entries(arch) {
            esa_p4::sim::install(sw, arch, &e).unwrap();
        }
        esa_p4::sim::set_group(sw, job.entry.mcast_group, &members).unwrap();
        pool.authorize_members(job.id, &job.worker_ports);
        let beyond = job.beyond_fan_in();
        pool.bind_sender(beyond.job, beyond.port, beyond.worker);
        for &p in &members {
            if has_host_entry(p) {
                let (mac, ip) = host(p);
                pool.set_host(p, mac, ip);
                esa_p4::sim::install(sw, arch, &esa_p4::tables::host_entry(p, mac, ip)).unwrap();
            }
        }
        pool.set_group(job.entry.mcast_group, members);
    }
}

/// The STF lines that install a job: its table `entries`, each port
/// authorization followed by the port's host entry (when `host` names
/// one), and its multicast group `group` of `members`, whose node is the
/// `handle`-th created.
pub fn stf_job(
    stf: &mut String,
    arch: esa_p4::Arch,
    entries: &[TableEntry],
    (group, members): (u16, &[u16]),
    host: impl Fn(u16) -> Option<(MacAddr, Ipv4Addr)>,
    handle: u32,
) {
    use esa_p4::text;
    use std::fmt::Write as _;
    let mut line = |e: &TableEntry| {
        let _ = writeln!(stf, "{}", text::stf_add(arch, e).unwrap());
    };
    for e in entries {
        line(e);
        if let TableEntry::JobPort(k) = e
            && let Some((mac, ip)) = host(k.port)
        {
            line(&esa_p4::tables::host_entry(k.port, mac, ip));
        }
    }
    for command in esa_p4::text::group_commands(group, members, handle) {
        let _ = writeln!(stf, "{command}");
    }
}
