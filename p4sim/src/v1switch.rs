//! The v1model target: BMv2 simple_switch's packet flow around a compiled
//! program, and its control-plane API.
//!
//! [`V1Switch::process`] runs one packet to completion, synchronously, in
//! simple_switch's order:
//!
//! 1. ingress: parser (errors set `standard_metadata.parser_error`; the
//!    packet is not dropped), VerifyChecksum, Ingress;
//! 2. after ingress, in this order: I2E clone (the *original* packet,
//!    parsed again, with fresh metadata plus the preserved field list,
//!    `instance_type` 1), digests, resubmit (the original packet goes back
//!    to ingress, `instance_type` 6, and nothing else happens), multicast
//!    when `mcast_grp != 0` (one copy per replica with its `egress_rid`,
//!    `instance_type` 5), else drop when `egress_spec == 511`, else unicast
//!    to `egress_spec`;
//! 3. egress per copy: Egress; E2E clone (the copy as egress left it, with
//!    metadata reset except the preserved field list, `instance_type` 2);
//!    drop when `egress_spec == 511`; ComputeChecksum and Deparser (valid
//!    headers, then the unparsed payload); recirculate (the deparsed packet
//!    goes back to ingress, `instance_type` 4) or output, truncated if
//!    `truncate` was called.
//!
//! A failed `assert`/`assume` drops the packet and is recorded in
//! [`V1Switch::take_log`]. Resubmit and recirculation are limited to
//! [`MAX_PASSES`] passes per input packet.
//!
//! Meters are RFC 2698 two-rate three-color meters once rates are set
//! ([`V1Switch::meter_set_rates`]); until then they return GREEN, as BMv2
//! does for an unconfigured meter.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::exec::bits::{BitType, Bits};
use crate::exec::cells::RegisterCells;
use crate::exec::engine::CompiledProgram;
use crate::exec::interp::Exec;
use crate::exec::state::{Effects, Frame, Runtime, Stage};
use crate::exec::table::TableChangeError;
use crate::ir::{ArgValue, Compiled, EntryIr, KeyMatch, MatchKind};
use crate::v1switch::pre::Pre;

pub mod pre;
mod profiles;
pub use profiles::MemberHandle;
mod psa;
mod tna;

/// Ingress passes (resubmits and recirculations) allowed per input packet.
pub const MAX_PASSES: usize = 32;

/// BMv2 `instance_type` values.
pub mod instance_type {
    /// A packet received on a port.
    pub const NORMAL: u64 = 0;
    /// An ingress-to-egress clone.
    pub const INGRESS_CLONE: u64 = 1;
    /// An egress-to-egress clone.
    pub const EGRESS_CLONE: u64 = 2;
    /// A coalesced packet (not produced by p4sim).
    pub const COALESCED: u64 = 3;
    /// A recirculated packet.
    pub const RECIRC: u64 = 4;
    /// A multicast replica.
    pub const REPLICATION: u64 = 5;
    /// A resubmitted packet.
    pub const RESUBMIT: u64 = 6;
}

/// The drop port.
pub const DROP_PORT: u64 = 511;

/// A packet leaving the switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPacket {
    /// Egress port.
    pub port: u16,
    /// Bytes.
    pub data: Vec<u8>,
}

/// Output packets of [`V1Switch::process_batch`], stored back to back in
/// one buffer that is reused from batch to batch (no allocation per packet
/// once it has grown).
#[derive(Debug, Clone, Default)]
pub struct OutputArena {
    bytes: Vec<u8>,
    packets: Vec<ArenaPacket>,
}

/// One packet in an [`OutputArena`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArenaPacket {
    /// Index of the input packet (in the batch) that caused it.
    pub input: u32,
    /// Egress port.
    pub port: u16,
    start: usize,
    end: usize,
}

impl OutputArena {
    /// An empty arena.
    pub fn new() -> OutputArena {
        OutputArena::default()
    }

    /// Forgets the packets, keeping the memory.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.packets.clear();
    }

    /// Number of packets.
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// Whether there are no packets.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// The packets in output order: metadata and bytes.
    pub fn iter(&self) -> impl Iterator<Item = (ArenaPacket, &[u8])> + '_ {
        self.packets
            .iter()
            .map(|p| (*p, self.bytes.get(p.start..p.end).unwrap_or(&[])))
    }

    fn push(&mut self, input: u32, port: u16, data: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.packets.push(ArenaPacket {
            input,
            port,
            start,
            end: self.bytes.len(),
        });
    }
}

/// Where output packets go.
enum Sink<'o> {
    Vec(&'o mut Vec<OutputPacket>),
    /// Output packets take the deparser's buffer itself, which is replaced
    /// by a spare one (the caller returns sent packets' buffers there);
    /// copied while there is none.
    Reusing(&'o mut Vec<OutputPacket>, &'o mut Vec<Vec<u8>>),
    Arena(&'o mut OutputArena, u32),
}

impl Sink<'_> {
    /// Sends `data` out of `port`; returns the buffer to deparse the next
    /// packet into (`data` itself unless the packet took it).
    fn push(&mut self, port: u16, data: Vec<u8>) -> Vec<u8> {
        match self {
            Sink::Vec(v) => v.push(OutputPacket {
                port,
                data: data.to_vec(),
            }),
            Sink::Reusing(v, spare) => match spare.pop() {
                Some(mut next) => {
                    v.push(OutputPacket { port, data });
                    next.clear();
                    return next;
                }
                // None to swap in: copied, as without spare buffers (an
                // exact-size copy costs no more than a new deparser
                // buffer would).
                None => v.push(OutputPacket {
                    port,
                    data: data.to_vec(),
                }),
            },
            Sink::Arena(a, input) => a.push(*input, port, &data),
        }
        data
    }

    /// Sends a copy of `data` out of `port`.
    fn push_copy(&mut self, port: u16, data: &[u8]) {
        match self {
            Sink::Vec(v) => v.push(OutputPacket {
                port,
                data: data.to_vec(),
            }),
            Sink::Reusing(v, spare) => {
                let mut copy = spare.pop().unwrap_or_default();
                copy.clear();
                copy.extend_from_slice(data);
                v.push(OutputPacket { port, data: copy });
            }
            Sink::Arena(a, input) => a.push(*input, port, data),
        }
    }
}

/// A `digest()` the ingress pipeline sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// The receiver argument.
    pub receiver: u32,
    /// The data's scalar fields in order.
    pub values: Vec<Bits>,
}

/// The value an entry matches for one key field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchValue {
    /// Exactly this value (also accepted for lpm, ternary, range and
    /// optional keys, meaning a full match).
    Exact(Bits),
    /// Value and prefix length.
    Lpm(Bits, u32),
    /// Value and mask.
    Ternary(Bits, Bits),
    /// Inclusive range.
    Range(Bits, Bits),
    /// `Some`: exactly this value; `None`: anything.
    Optional(Option<Bits>),
}

/// A table entry as the control plane gives it. `matches` follow the
/// table's key order; `priority` (larger wins, as in P4Runtime) matters
/// for tables with ternary, range or optional keys; `args` name the
/// action's directionless parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    /// One per key, in key order.
    pub matches: Vec<MatchValue>,
    /// Priority (larger wins); `None` is 0.
    pub priority: Option<i32>,
    /// Action name (fully qualified or a unique suffix).
    pub action: String,
    /// Action arguments by parameter name.
    pub args: Vec<(String, Bits)>,
}

/// The handle of an installed entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryHandle(pub u32);

/// Errors of the control-plane API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    /// No table, action, register, counter or meter has this name.
    #[error("unknown {kind} `{name}`")]
    Unknown {
        /// What was looked up.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// The name is a suffix of several objects' names.
    #[error("ambiguous {kind} name `{name}`: {candidates}")]
    Ambiguous {
        /// What was looked up.
        kind: &'static str,
        /// The name.
        name: String,
        /// The full names it matches.
        candidates: String,
    },
    /// The action is not in the table's action list.
    #[error("action `{action}` is not an action of table `{table}`")]
    ActionNotInTable {
        /// Table.
        table: String,
        /// Action.
        action: String,
    },
    /// A `@defaultonly` action in an entry, or a `@tableonly` one as default.
    #[error("action `{0}` cannot be used here (@defaultonly / @tableonly)")]
    ActionScope(String),
    /// The number of key values differs from the number of keys.
    #[error("table `{table}` has {expected} keys, {given} values given")]
    KeyCount {
        /// Table.
        table: String,
        /// Keys.
        expected: usize,
        /// Values.
        given: usize,
    },
    /// A key value does not suit the key's match kind.
    #[error("key `{key}` is {kind}: {message}")]
    BadMatch {
        /// Key name.
        key: String,
        /// Its match kind.
        kind: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A value wider than the field it is for.
    #[error("value {value} does not fit in the {width}-bit `{what}`")]
    TooWide {
        /// Field or parameter.
        what: String,
        /// Its width.
        width: u32,
        /// The value.
        value: String,
    },
    /// Action arguments missing, repeated or unknown.
    #[error("action `{action}`: {message}")]
    BadArguments {
        /// Action.
        action: String,
        /// What is wrong.
        message: String,
    },
    /// An entry with the same key (and priority) exists.
    #[error("duplicate entry in table `{table}` (existing handle {handle})")]
    DuplicateEntry {
        /// Table.
        table: String,
        /// The existing entry.
        handle: u32,
    },
    /// The table holds `size` entries already.
    #[error("table `{0}` is full")]
    TableFull(String),
    /// No entry with this handle.
    #[error("table `{table}` has no entry with handle {handle}")]
    NoSuchEntry {
        /// Table.
        table: String,
        /// Handle.
        handle: u32,
    },
    /// The entry or default action is `const` in the program.
    #[error("table `{0}`: {1} is const in the program")]
    Const(String, &'static str),
    /// An index outside a register, counter or meter array.
    #[error("index {index} is out of range for `{name}` (size {size})")]
    IndexOutOfRange {
        /// Object.
        name: String,
        /// Index.
        index: u64,
        /// Size.
        size: u64,
    },
    /// A packet-replication-engine error.
    #[error(transparent)]
    Pre(#[from] crate::v1switch::pre::PreError),
    /// An entry or default action given as an action for a table whose
    /// actions come from action profile members.
    #[error("table `{0}` has an action profile: its entries name members (table_indirect_add)")]
    Indirect(String),
    /// A member given for a table without an action profile.
    #[error("table `{0}` has no action profile")]
    NotIndirect(String),
    /// No such member in the profile.
    #[error("action profile `{profile}` has no member {member}")]
    NoSuchMember {
        /// Profile.
        profile: String,
        /// Member handle.
        member: u32,
    },
    /// A member an entry or default action still names.
    #[error("member {member} of action profile `{profile}` is in use")]
    MemberInUse {
        /// Profile.
        profile: String,
        /// Member handle.
        member: u32,
    },
}

/// Which engine runs a switch's pipelines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Generated Rust compiled into the binary ([`crate::exec::native`]) when
    /// one was registered for this program, else [`Engine::Compiled`];
    /// the default.
    #[default]
    Native,
    /// The program lowered to closures once, at construction
    /// ([`crate::exec::engine`]).
    Compiled,
    /// The tree-walking interpreter ([`crate::exec::interp`]), the reference the
    /// compiled engine is tested against.
    Reference,
}

/// The v1model switch: program, tables, externs' state and PRE.
#[derive(Debug)]
pub struct V1Switch {
    prog: Arc<Compiled>,
    engine: Option<Arc<CompiledProgram>>,
    rt: Runtime,
    pre: Pre,
    digests: Vec<Digest>,
    frame: Frame,
    e2e_depth: usize,
    /// Frames for multicast copies, reused.
    spare: Vec<Frame>,
    /// The deparser's output buffer, reused.
    deparsed: Vec<u8>,
    /// Slot values saved for multicast replicas, reused.
    saved: Vec<u64>,
    /// A multicast packet's replicas, reused.
    replicas: Vec<pre::Replica>,
    /// See [`V1Switch::fill_scratch`].
    scratch_fill: Option<u64>,
    /// Action profile members.
    profiles: profiles::Profiles,
}

/// Field-list values carried to a clone, resubmit or recirculation:
/// narrow and wide slots with their values.
type Preserved = (Vec<(u32, u64)>, Vec<(u32, Bits)>);

/// Where a job enters ingress from.
struct IngressJob<'a> {
    port: u64,
    data: std::borrow::Cow<'a, [u8]>,
    instance_type: u64,
    preserved: Option<Preserved>,
}

fn key_mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

impl V1Switch {
    /// A switch running `compiled`, with empty tables (program entries
    /// installed), zeroed registers and counters, and the clock at 0.
    pub fn new(compiled: Arc<Compiled>) -> V1Switch {
        V1Switch::with_engine(compiled, Engine::Native)
    }

    /// A switch running `compiled` on the given engine.
    pub fn with_engine(compiled: Arc<Compiled>, engine: Engine) -> V1Switch {
        let engine = match engine {
            Engine::Native => Some(Arc::new(CompiledProgram::with_native(&compiled))),
            Engine::Compiled => Some(Arc::new(CompiledProgram::new(&compiled))),
            Engine::Reference => None,
        };
        V1Switch::with_lowered(compiled, engine)
    }

    /// A switch running a program lowered before (lowering once for many
    /// switches); `lowered` must come from the same `compiled`.
    pub fn with_compiled_program(
        compiled: Arc<Compiled>,
        lowered: Arc<CompiledProgram>,
    ) -> V1Switch {
        V1Switch::with_lowered(compiled, Some(lowered))
    }

    fn with_lowered(compiled: Arc<Compiled>, engine: Option<Arc<CompiledProgram>>) -> V1Switch {
        let rt = Runtime::new(&compiled);
        let frame = Frame::new(&compiled);
        V1Switch {
            prog: compiled,
            engine,
            rt,
            pre: Pre::new(),
            digests: Vec::new(),
            frame,
            e2e_depth: 0,
            spare: Vec::new(),
            deparsed: Vec::new(),
            saved: Vec::new(),
            replicas: Vec::new(),
            scratch_fill: None,
            profiles: profiles::Profiles::default(),
        }
    }

    /// From now on, sets the narrow slots after the packet's state
    /// ([`Compiled::packet_n`]: parameters, locals, return values,
    /// temporaries) to `value` before each packet, where they would keep
    /// what the last packet left. The program writes each of them before
    /// reading it, so this changes nothing it sends or keeps: a
    /// differential test runs one switch so and one without to show it.
    pub fn fill_scratch(&mut self, value: u64) {
        self.scratch_fill = Some(value);
    }

    /// The compiled program.
    pub fn program(&self) -> &Arc<Compiled> {
        &self.prog
    }

    /// Which engine runs the pipelines.
    pub fn engine(&self) -> Engine {
        match &self.engine {
            Some(e) if e.native().is_some() => Engine::Native,
            Some(_) => Engine::Compiled,
            None => Engine::Reference,
        }
    }

    /// The lowered program, when the compiled engine runs.
    pub fn compiled_program(&self) -> Option<&Arc<CompiledProgram>> {
        self.engine.as_ref()
    }

    /// Gives the extern function `name` that the program declares itself
    /// (`extern void name(...)`) its implementation, as BMv2 loads one from
    /// a module (`--load-modules`). `f` gets every parameter's value in
    /// order, an `out` one as 0, each at its parameter's width, and leaves
    /// the `out` and `inout` ones' new values in place (cast back to the
    /// parameter's width). A packet that calls an extern function without
    /// one ends with a fault naming it.
    pub fn register_extern_function(
        &mut self,
        name: &str,
        f: impl Fn(&mut [Bits]) + Send + Sync + 'static,
    ) {
        self.rt.extern_functions.0.insert(name.into(), Arc::new(f));
    }

    /// Sets the clock (microseconds) used for timestamps and meters.
    pub fn set_time_us(&mut self, now: u64) {
        self.rt.now_us = now;
        self.rt.now_ns = now.saturating_mul(1000);
    }

    /// Sets the clock in nanoseconds (TNA programs see nanoseconds; v1model
    /// ones and meters the microseconds, rounded down).
    pub fn set_time_ns(&mut self, now: u64) {
        self.rt.now_us = now / 1000;
        self.rt.now_ns = now;
    }

    /// Seeds the generator behind `random()`.
    pub fn set_random_seed(&mut self, seed: u64) {
        self.rt.rng = seed | 1;
    }

    /// The packet replication engine (multicast groups, clone sessions).
    pub fn pre_mut(&mut self) -> &mut Pre {
        &mut self.pre
    }

    /// The packet replication engine, read-only.
    pub fn pre(&self) -> &Pre {
        &self.pre
    }

    /// Takes the digests sent so far.
    pub fn take_digests(&mut self) -> Vec<Digest> {
        std::mem::take(&mut self.digests)
    }

    /// Runs `packets` through this switch one [`V1Switch::process`] call
    /// each and through `other` in one [`V1Switch::process_batch`] call;
    /// `Err` says what differs: the frames sent (input, port and bytes, in
    /// order) or the state after the batch.
    pub fn lockstep_batch(
        &mut self,
        other: &mut V1Switch,
        packets: &[(u16, Vec<u8>)],
    ) -> Result<(), String> {
        let mut want = vec![];
        for (i, (port, packet)) in packets.iter().enumerate() {
            for o in self.process(*port, packet) {
                want.push((i as u32, o.port, o.data));
            }
        }
        let mut arena = OutputArena::new();
        other.process_batch(packets.iter().map(|(p, d)| (*p, d.as_slice())), &mut arena);
        let have: Vec<_> = arena
            .iter()
            .map(|(p, d)| (p.input, p.port, d.to_vec()))
            .collect();
        if have != want {
            return Err(format!(
                "a batch of {} packets: process sent {want:?}, process_batch {have:?}",
                packets.len()
            ));
        }
        self.compare_state(other)
            .map_err(|e| format!("state differs after the batch: {e}"))
    }

    /// Runs one packet through this switch (the reference) and `other` (an
    /// engine under test) and returns the frames that left, or what
    /// differs: the outputs (ports and bytes, in order) or the state after
    /// it ([`V1Switch::compare_state`]). The step of every differential
    /// test of one engine against another.
    pub fn lockstep(
        &mut self,
        other: &mut V1Switch,
        port: u16,
        packet: &[u8],
    ) -> Result<Vec<Vec<u8>>, String> {
        let a = self.process(port, packet);
        let b = other.process(port, packet);
        if a != b {
            return Err(format!(
                "outputs differ on a {}-byte packet in port {port}: {a:?} against {b:?}",
                packet.len()
            ));
        }
        self.compare_state(other)
            .map_err(|e| format!("state differs after the packet: {e}"))?;
        Ok(a.into_iter().map(|o| o.data).collect())
    }

    /// The first difference between the run-time state of two switches
    /// running the same program (registers, counters, direct counters and
    /// meters, meters, the random generator, the log, digests), or `Ok`
    /// when there is none. For tests of one engine against the other.
    pub fn compare_state(&self, other: &V1Switch) -> Result<(), String> {
        let (a, b) = (&self.rt, &other.rt);
        for (i, (x, y)) in a.registers.iter().zip(&b.registers).enumerate() {
            if x != y {
                let name = self.prog.registers.get(i).map_or("?", |r| r.name.as_str());
                let at = match (x, y) {
                    (RegisterCells::Narrow(x), RegisterCells::Narrow(y)) => {
                        x.iter().zip(y).position(|(p, q)| p != q)
                    }
                    _ => None,
                };
                return Err(format!("register {name} differs at index {at:?}"));
            }
        }
        for (i, (x, y)) in a.counters.iter().zip(&b.counters).enumerate() {
            if x != y {
                let name = self.prog.counters.get(i).map_or("?", |c| c.name.as_str());
                let at = x.iter().zip(y).position(|(p, q)| p != q);
                return Err(format!("counter {name} differs at index {at:?}"));
            }
        }
        for (i, (x, y)) in a.tables.iter().zip(&b.tables).enumerate() {
            let ex: Vec<_> = x.iter().map(|(h, e)| (h, e.counter, &e.meter)).collect();
            let ey: Vec<_> = y.iter().map(|(h, e)| (h, e.counter, &e.meter)).collect();
            if ex != ey {
                let name = self.prog.tables.get(i).map_or("?", |t| t.name.as_str());
                return Err(format!("direct counters or meters of table {name} differ"));
            }
        }
        if a.meters != b.meters {
            return Err("meters differ".into());
        }
        if a.rng != b.rng {
            return Err("random generator states differ".into());
        }
        if a.log != b.log {
            return Err(format!("logs differ: {:?} vs {:?}", a.log, b.log));
        }
        if self.digests != other.digests {
            return Err("digests differ".into());
        }
        Ok(())
    }

    /// Takes the `log_msg` output and notes (failed assertions, ...).
    pub fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.rt.log)
    }

    // ---- packets -----------------------------------------------------

    /// Runs one packet received on `ingress_port` through the switch and
    /// returns the packets it sends, in the order simple_switch would.
    pub fn process(&mut self, ingress_port: u16, packet: &[u8]) -> Vec<OutputPacket> {
        let mut out = Vec::new();
        self.process_into(ingress_port, packet, &mut Sink::Vec(&mut out));
        out
    }

    /// As [`V1Switch::process`], appending the packets sent to `out`
    /// (which is not cleared), so that a caller running packet after
    /// packet reuses one vector.
    pub fn process_append(
        &mut self,
        ingress_port: u16,
        packet: &[u8],
        out: &mut Vec<OutputPacket>,
    ) {
        self.process_into(ingress_port, packet, &mut Sink::Vec(out));
    }

    /// As [`V1Switch::process_append`], without copying the packets sent:
    /// each takes the buffer it was deparsed into, and the next packet is
    /// deparsed into a buffer taken from `spare` (while `spare` is empty,
    /// packets are copied as `process_append` does). A caller that puts
    /// sent packets' buffers back into `spare` runs packet after packet
    /// without allocating.
    pub fn process_append_reusing(
        &mut self,
        ingress_port: u16,
        packet: &[u8],
        out: &mut Vec<OutputPacket>,
        spare: &mut Vec<Vec<u8>>,
    ) {
        self.process_into(ingress_port, packet, &mut Sink::Reusing(out, spare));
    }

    /// Runs a batch of packets `(ingress port, bytes)` in order, appending
    /// what they send to `out` (which is not cleared) with the index of
    /// the input each came from. The same as calling [`V1Switch::process`]
    /// on each, without allocating per output packet.
    pub fn process_batch<'p, I>(&mut self, inputs: I, out: &mut OutputArena)
    where
        I: IntoIterator<Item = (u16, &'p [u8])>,
    {
        for (i, (port, packet)) in inputs.into_iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            self.process_into(port, packet, &mut Sink::Arena(out, i));
        }
    }

    fn process_into(&mut self, ingress_port: u16, packet: &[u8], out: &mut Sink<'_>) {
        if self.prog.tna.is_some() {
            return self.tna_process(ingress_port, packet, out);
        }
        if self.prog.psa.is_some() {
            return self.psa_process(ingress_port, packet, out);
        }
        let mut jobs = VecDeque::new();
        self.ingress(
            IngressJob {
                port: u64::from(ingress_port),
                data: std::borrow::Cow::Borrowed(packet),
                instance_type: instance_type::NORMAL,
                preserved: None,
            },
            &mut jobs,
            out,
        );
        let mut passes = 1;
        while let Some(job) = jobs.pop_front() {
            passes += 1;
            if passes > MAX_PASSES {
                self.rt.log.push(format!(
                    "packet dropped after {MAX_PASSES} resubmit/recirculate passes"
                ));
                break;
            }
            self.ingress(job, &mut jobs, out);
        }
    }

    fn parse_into(
        &mut self,
        frame: &mut Frame,
        job_port: u64,
        data: &[u8],
        instance: u64,
    ) -> Option<usize> {
        let prog: &Compiled = &self.prog;
        frame.clear(prog);
        if let Some(v) = self.scratch_fill
            && let Some(s) = frame.n.get_mut(prog.packet_n as usize..)
        {
            s.fill(v);
        }
        let sm = &prog.std_meta;
        let set = |f: &mut Frame, s: u32, v: u64| {
            if let Some(x) = f.n.get_mut(s as usize) {
                *x = v;
            }
        };
        set(frame, sm.ingress_port, job_port & 0x1ff);
        set(frame, sm.packet_length, data.len() as u64);
        set(frame, sm.instance_type, instance);
        set(
            frame,
            sm.ingress_global_timestamp,
            self.rt.now_us & ((1 << 48) - 1),
        );
        let mut fx = Effects::default();
        let (err, cursor) = {
            let mut ex = Exec::new(prog, &mut self.rt, frame, &mut fx, data, &[], Stage::Parser);
            let e = match &self.engine {
                Some(c) => c.run_parser(&mut ex),
                None => ex.run_parser(),
            };
            (e, ex.cursor)
        };
        if err != 0 {
            set(frame, sm.parser_error, err);
        }
        if let Some(f) = fx.fault {
            self.rt
                .log
                .push(format!("packet dropped in the parser: {f}"));
            return None;
        }
        Some(cursor.div_ceil(8).min(data.len()))
    }

    fn run_stage(
        &mut self,
        frame: &mut Frame,
        fx: &mut Effects,
        payload: &[u8],
        stage: Stage,
        which: u8,
    ) {
        self.run_stages(frame, fx, payload, &[(stage, which)]);
    }

    /// Runs controls `(stage, which)` one after the other in one context
    /// (which: 0 VerifyChecksum, 1 Ingress, 2 Egress, 3 ComputeChecksum,
    /// 4 Deparser, whose bytes are left in `self.deparsed`).
    fn run_stages(
        &mut self,
        frame: &mut Frame,
        fx: &mut Effects,
        payload: &[u8],
        stages: &[(Stage, u8)],
    ) {
        let prog: &Compiled = &self.prog;
        let body = |which: u8| match which {
            0 => &prog.verify_checksum,
            1 => &prog.ingress,
            2 => &prog.egress,
            3 => &prog.compute_checksum,
            _ => &prog.deparser,
        };
        let deparse = stages.iter().any(|&(_, w)| w == 4);
        if deparse {
            self.deparsed.clear();
        }
        if stages.iter().all(|&(_, w)| body(w).is_empty()) {
            return;
        }
        let first = stages.first().map_or(Stage::Other, |s| s.0);
        let mut ex = Exec::new(prog, &mut self.rt, frame, fx, &[], payload, first);
        if deparse {
            let mut buf = std::mem::take(&mut self.deparsed);
            buf.reserve(payload.len() + 256);
            ex.out = crate::exec::narrow::BitWriter::with_buffer(buf);
        }
        match &self.engine {
            Some(c) => c.run_controls(&mut ex, stages),
            None => {
                for &(stage, which) in stages {
                    ex.run_control(stage, body(which));
                }
            }
        }
        if deparse {
            self.deparsed = std::mem::take(&mut ex.out).finish();
        }
    }

    fn capture(&self, frame: &Frame, list: Option<u8>) -> Preserved {
        let Some(i) = list else {
            return (Vec::new(), Vec::new());
        };
        let Some((ns, ws)) = self.prog.field_lists.get(&i) else {
            return (Vec::new(), Vec::new());
        };
        (
            ns.iter()
                .map(|&s| (s, frame.n.get(s as usize).copied().unwrap_or(0)))
                .collect(),
            ws.iter()
                .filter_map(|&s| frame.w.get(s as usize).map(|b| (s, b.clone())))
                .collect(),
        )
    }

    fn restore(frame: &mut Frame, preserved: &Preserved) {
        for (s, v) in &preserved.0 {
            if let Some(x) = frame.n.get_mut(*s as usize) {
                *x = *v;
            }
        }
        for (s, v) in &preserved.1 {
            if let Some(x) = frame.w.get_mut(*s as usize) {
                *x = v.clone();
            }
        }
    }

    fn reset_metadata(&self, frame: &mut Frame) {
        let m = &self.prog.meta_n;
        if let Some(s) = frame.n.get_mut(m.start as usize..m.end as usize) {
            s.fill(0);
        }
        for i in self.prog.meta_w.clone() {
            if let (Some(x), Some(init)) = (
                frame.w.get_mut(i as usize),
                self.prog.w_init.get(i as usize),
            ) {
                *x = init.clone();
            }
        }
    }

    fn get(frame: &Frame, s: u32) -> u64 {
        frame.n.get(s as usize).copied().unwrap_or(0)
    }

    fn put(frame: &mut Frame, s: u32, v: u64) {
        if let Some(x) = frame.n.get_mut(s as usize) {
            *x = v;
        }
    }

    fn ingress<'a>(
        &mut self,
        job: IngressJob<'a>,
        jobs: &mut VecDeque<IngressJob<'a>>,
        out: &mut Sink<'_>,
    ) {
        let sm = &self.prog.std_meta.clone();
        let mut frame = std::mem::take(&mut self.frame);
        let Some(payload_at) = self.parse_into(&mut frame, job.port, &job.data, job.instance_type)
        else {
            self.frame = frame;
            return;
        };
        if let Some(p) = &job.preserved {
            Self::restore(&mut frame, p);
        }
        let payload = job.data.get(payload_at..).unwrap_or(&[]);
        let mut fx = Effects::default();
        self.run_stages(
            &mut frame,
            &mut fx,
            payload,
            &[(Stage::Other, 0), (Stage::Ingress, 1)],
        );
        if let Some(f) = fx.fault.take() {
            self.rt.log.push(format!("packet dropped in ingress: {f}"));
            self.frame = frame;
            return;
        }
        // I2E clone: the original packet, parsed again
        if let Some((session, list)) = fx.clone.take() {
            let preserved = self.capture(&frame, list);
            for r in self.pre.clone_replicas(session, 0) {
                let mut copy = Frame::new(&self.prog);
                let Some(at) =
                    self.parse_into(&mut copy, job.port, &job.data, instance_type::INGRESS_CLONE)
                else {
                    continue;
                };
                Self::restore(&mut copy, &preserved);
                Self::put(&mut copy, sm.instance_type, instance_type::INGRESS_CLONE);
                let pl = job.data.get(at..).unwrap_or(&[]).to_vec();
                self.egress(
                    copy,
                    u64::from(r.port),
                    u64::from(r.rid),
                    &pl,
                    job.port,
                    None,
                    jobs,
                    out,
                );
            }
        }
        for (receiver, values) in fx.digests.drain(..) {
            self.digests.push(Digest { receiver, values });
        }
        if let Some(list) = fx.resubmit {
            let preserved = self.capture(&frame, Some(list));
            jobs.push_back(IngressJob {
                port: job.port,
                data: job.data.clone(),
                instance_type: instance_type::RESUBMIT,
                preserved: Some(preserved),
            });
            self.frame = frame;
            return;
        }
        let grp = Self::get(&frame, sm.mcast_grp);
        if grp != 0 {
            let mut replicas = std::mem::take(&mut self.replicas);
            replicas.clear();
            self.pre.replicate_into(grp as u32, 0, &mut replicas);
            let shared = self
                .engine
                .as_ref()
                .and_then(|e| e.egress_writes.clone())
                .filter(|_| frame.w.is_empty());
            if let Some(writes) = shared {
                // The replicas run on the ingress frame itself; between
                // them only the slots egress can write are restored.
                let mut saved = std::mem::take(&mut self.saved);
                saved.clear();
                saved.extend(writes.iter().map(|&s| Self::get(&frame, s)));
                for (k, r) in replicas.iter().enumerate() {
                    if k > 0 {
                        for (&s, &v) in writes.iter().zip(&saved) {
                            Self::put(&mut frame, s, v);
                        }
                    }
                    Self::put(&mut frame, sm.instance_type, instance_type::REPLICATION);
                    frame = self.egress(
                        frame,
                        u64::from(r.port),
                        u64::from(r.rid),
                        payload,
                        job.port,
                        fx.truncate,
                        jobs,
                        out,
                    );
                }
                self.saved = saved;
                self.replicas = replicas;
                self.frame = frame;
                return;
            }
            for r in &replicas {
                let mut copy = self.spare.pop().unwrap_or_else(|| Frame {
                    n: Vec::new(),
                    w: Vec::new(),
                });
                copy.n.clone_from(&frame.n);
                copy.w.clone_from(&frame.w);
                Self::put(&mut copy, sm.instance_type, instance_type::REPLICATION);
                let copy = self.egress(
                    copy,
                    u64::from(r.port),
                    u64::from(r.rid),
                    payload,
                    job.port,
                    fx.truncate,
                    jobs,
                    out,
                );
                self.spare.push(copy);
            }
            self.replicas = replicas;
            self.frame = frame;
            return;
        }
        let spec = Self::get(&frame, sm.egress_spec);
        if spec == DROP_PORT {
            self.frame = frame;
            return;
        }
        // unicast: the frame itself goes to egress (no copy)
        let rid = Self::get(&frame, sm.egress_rid);
        let frame = self.egress(frame, spec, rid, payload, job.port, fx.truncate, jobs, out);
        self.frame = frame;
    }

    /// Runs egress for one copy; returns the frame for reuse.
    #[allow(clippy::too_many_arguments)]
    fn egress(
        &mut self,
        mut frame: Frame,
        port: u64,
        rid: u64,
        payload: &[u8],
        ingress_port: u64,
        truncate: Option<u32>,
        jobs: &mut VecDeque<IngressJob<'_>>,
        out: &mut Sink<'_>,
    ) -> Frame {
        let sm = &self.prog.std_meta.clone();
        Self::put(&mut frame, sm.egress_port, port & 0x1ff);
        Self::put(&mut frame, sm.egress_rid, rid & 0xffff);
        Self::put(
            &mut frame,
            sm.egress_global_timestamp,
            self.rt.now_us & ((1 << 48) - 1),
        );
        let mut fx = Effects::default();
        self.run_stage(&mut frame, &mut fx, payload, Stage::Egress, 2);
        if let Some(f) = fx.fault.take() {
            self.rt.log.push(format!("packet dropped in egress: {f}"));
            return frame;
        }
        let mut clone_frame = None;
        let cloned = fx.clone.is_some();
        if let Some((session, list)) = fx.clone.take() {
            self.e2e_depth += 1;
            if self.e2e_depth <= MAX_PASSES {
                let preserved = self.capture(&frame, list);
                let mut copy = frame.clone();
                self.reset_metadata(&mut copy);
                Self::restore(&mut copy, &preserved);
                Self::put(&mut copy, sm.instance_type, instance_type::EGRESS_CLONE);
                let replicas = self.pre.clone_replicas(session, 0);
                clone_frame = Some((copy, replicas));
            }
        }
        if Self::get(&frame, sm.egress_spec) != DROP_PORT {
            let mut fx2 = Effects::default();
            self.run_stages(
                &mut frame,
                &mut fx2,
                payload,
                &[(Stage::Other, 3), (Stage::Other, 4)],
            );
            let mut bytes = std::mem::take(&mut self.deparsed);
            bytes.extend_from_slice(payload);
            if let Some(list) = fx.recirculate {
                let preserved = self.capture(&frame, Some(list));
                jobs.push_back(IngressJob {
                    port: ingress_port,
                    data: bytes.clone().into(),
                    instance_type: instance_type::RECIRC,
                    preserved: Some(preserved),
                });
            } else {
                if let Some(t) = fx.truncate.or(truncate) {
                    bytes.truncate(t as usize);
                }
                bytes = out.push((port & 0x1ff) as u16, bytes);
            }
            self.deparsed = bytes;
        }
        if let Some((copy, replicas)) = clone_frame {
            for r in replicas {
                let f = self.egress(
                    copy.clone(),
                    u64::from(r.port),
                    u64::from(r.rid),
                    payload,
                    ingress_port,
                    None,
                    jobs,
                    out,
                );
                drop(f);
            }
        }
        if cloned {
            self.e2e_depth = self.e2e_depth.saturating_sub(1);
        }
        frame
    }

    // ---- control plane ------------------------------------------------

    fn resolve<'n>(
        kind: &'static str,
        name: &str,
        names: impl Iterator<Item = (usize, &'n str)>,
    ) -> Result<usize, RuntimeError> {
        let mut suffix = Vec::new();
        for (i, n) in names {
            if n == name {
                return Ok(i);
            }
            if n.len() > name.len()
                && n.ends_with(name)
                && n.as_bytes()[n.len() - name.len() - 1] == b'.'
            {
                suffix.push((i, n.to_string()));
            }
        }
        match suffix.len() {
            1 => Ok(suffix[0].0),
            0 => Err(RuntimeError::Unknown {
                kind,
                name: name.to_string(),
            }),
            _ => Err(RuntimeError::Ambiguous {
                kind,
                name: name.to_string(),
                candidates: suffix
                    .into_iter()
                    .map(|(_, n)| n)
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// The id of a table by fully qualified name or unique suffix.
    pub fn table_id(&self, table: &str) -> Result<usize, RuntimeError> {
        Self::resolve(
            "table",
            table,
            self.prog
                .tables
                .iter()
                .enumerate()
                .map(|(i, t)| (i, t.name.as_str())),
        )
    }

    /// The key names and match kinds of a table.
    pub fn table_keys(&self, table: &str) -> Result<Vec<(String, MatchKind, u32)>, RuntimeError> {
        let t = self.table_id(table)?;
        Ok(self.prog.tables[t]
            .keys
            .iter()
            .map(|k| (k.name.clone(), k.kind, k.width))
            .collect())
    }

    fn action_pos(&self, t: usize, action: &str) -> Result<usize, RuntimeError> {
        let table = &self.prog.tables[t];
        let names = table.actions.iter().enumerate().filter_map(|(i, a)| {
            self.prog
                .actions
                .get(a.action as usize)
                .map(|x| (i, x.name.as_str()))
        });
        Self::resolve("action", action, names).map_err(|e| match e {
            RuntimeError::Unknown { .. } => RuntimeError::ActionNotInTable {
                table: table.name.clone(),
                action: action.to_string(),
            },
            e => e,
        })
    }

    fn fit(what: &str, width: u32, v: &Bits) -> Result<u128, RuntimeError> {
        if v.bit_len() > width || width > 128 {
            return Err(RuntimeError::TooWide {
                what: what.to_string(),
                width,
                value: format!("{v}"),
            });
        }
        Ok(v.low_u128())
    }

    fn args(
        &self,
        t: usize,
        pos: usize,
        args: &[(String, Bits)],
    ) -> Result<Vec<ArgValue>, RuntimeError> {
        let table = &self.prog.tables[t];
        let Some(action) = table
            .actions
            .get(pos)
            .and_then(|a| self.prog.actions.get(a.action as usize))
        else {
            return Ok(Vec::new());
        };
        let params: Vec<_> = action.params.iter().filter(|p| p.control_plane).collect();
        let bad = |m: String| RuntimeError::BadArguments {
            action: action.name.clone(),
            message: m,
        };
        for (n, _) in args {
            if !params.iter().any(|p| &p.name == n) {
                return Err(bad(format!("no parameter `{n}`")));
            }
        }
        let mut out = Vec::new();
        for p in params {
            let given: Vec<_> = args.iter().filter(|(n, _)| n == &p.name).collect();
            let v = match given.as_slice() {
                [(_, v)] => v,
                [] => return Err(bad(format!("missing argument `{}`", p.name))),
                _ => return Err(bad(format!("argument `{}` given twice", p.name))),
            };
            if v.bit_len() > p.ty.width() {
                return Err(RuntimeError::TooWide {
                    what: p.name.clone(),
                    width: p.ty.width(),
                    value: format!("{v}"),
                });
            }
            out.push(if p.ty.width() > 64 {
                ArgValue::W(v.cast(p.ty))
            } else {
                ArgValue::N(v.low_u64())
            });
        }
        Ok(out)
    }

    fn entry_ir(&self, t: usize, entry: &TableEntry) -> Result<EntryIr, RuntimeError> {
        let table = &self.prog.tables[t];
        if entry.matches.len() != table.keys.len() {
            return Err(RuntimeError::KeyCount {
                table: table.name.clone(),
                expected: table.keys.len(),
                given: entry.matches.len(),
            });
        }
        let mut keys = Vec::new();
        for (k, m) in table.keys.iter().zip(&entry.matches) {
            let full = key_mask(k.width);
            let bad = |msg: &str| RuntimeError::BadMatch {
                key: k.name.clone(),
                kind: k.kind.name(),
                message: msg.to_string(),
            };
            let km = match (k.kind, m) {
                (MatchKind::Range, MatchValue::Exact(v)) => {
                    let v = Self::fit(&k.name, k.width, v)?;
                    KeyMatch::Range(v, v)
                }
                (_, MatchValue::Exact(v))
                | (MatchKind::Optional, MatchValue::Optional(Some(v))) => {
                    KeyMatch::Masked(Self::fit(&k.name, k.width, v)?, full)
                }
                (MatchKind::Optional, MatchValue::Optional(None)) => KeyMatch::Masked(0, 0),
                (MatchKind::Lpm | MatchKind::Ternary, MatchValue::Lpm(v, len)) => {
                    if *len > k.width {
                        return Err(bad(&format!(
                            "prefix length {len} exceeds the width {}",
                            k.width
                        )));
                    }
                    let m = if *len == 0 {
                        0
                    } else {
                        full & !(key_mask(k.width - len))
                    };
                    KeyMatch::Masked(Self::fit(&k.name, k.width, v)? & m, m)
                }
                (MatchKind::Ternary | MatchKind::Lpm, MatchValue::Ternary(v, m)) => {
                    let m = Self::fit(&k.name, k.width, m)?;
                    if k.kind == MatchKind::Lpm {
                        let ones = m.count_ones();
                        let want = if ones == 0 {
                            0
                        } else {
                            full & !key_mask(k.width - ones)
                        };
                        if m != want {
                            return Err(bad("the mask is not a prefix"));
                        }
                    }
                    KeyMatch::Masked(Self::fit(&k.name, k.width, v)? & m, m)
                }
                (MatchKind::Range, MatchValue::Range(lo, hi)) => KeyMatch::Range(
                    Self::fit(&k.name, k.width, lo)?,
                    Self::fit(&k.name, k.width, hi)?,
                ),
                _ => return Err(bad("this kind of value cannot be used")),
            };
            keys.push(km);
        }
        let pos = self.action_pos(t, &entry.action)?;
        if table.actions[pos].default_only {
            return Err(RuntimeError::ActionScope(entry.action.clone()));
        }
        let args = self.args(t, pos, &entry.args)?;
        Ok(EntryIr {
            keys,
            priority: i64::from(entry.priority.unwrap_or(0)),
            action: pos,
            args,
        })
    }

    fn change_error(&self, t: usize, e: TableChangeError) -> RuntimeError {
        let table = self.prog.tables[t].name.clone();
        match e {
            TableChangeError::Duplicate(handle) => RuntimeError::DuplicateEntry { table, handle },
            TableChangeError::Full => RuntimeError::TableFull(table),
            TableChangeError::NoSuchEntry(handle) => RuntimeError::NoSuchEntry { table, handle },
            TableChangeError::ConstEntry(_) => RuntimeError::Const(table, "the entry"),
        }
    }

    /// Installs an entry.
    pub fn table_add(
        &mut self,
        table: &str,
        entry: TableEntry,
    ) -> Result<EntryHandle, RuntimeError> {
        let t = self.table_id(table)?;
        if self.prog.tables[t].entries_const {
            return Err(RuntimeError::Const(
                self.prog.tables[t].name.clone(),
                "the entry list",
            ));
        }
        if self.prog.tables[t].profile.is_some() {
            return Err(RuntimeError::Indirect(self.prog.tables[t].name.clone()));
        }
        let e = self.entry_ir(t, &entry)?;
        match self.rt.tables[t].insert(e, false) {
            Ok(h) => Ok(EntryHandle(h)),
            Err(err) => Err(self.change_error(t, err)),
        }
    }

    /// Changes the action of an installed entry.
    pub fn table_modify(
        &mut self,
        table: &str,
        handle: EntryHandle,
        action: &str,
        args: &[(String, Bits)],
    ) -> Result<(), RuntimeError> {
        let t = self.table_id(table)?;
        if self.prog.tables[t].profile.is_some() {
            return Err(RuntimeError::Indirect(self.prog.tables[t].name.clone()));
        }
        let pos = self.action_pos(t, action)?;
        if self.prog.tables[t].actions[pos].default_only {
            return Err(RuntimeError::ActionScope(action.to_string()));
        }
        let args = self.args(t, pos, args)?;
        let name = self.prog.tables[t].name.clone();
        match self.rt.tables[t].get_mut(handle.0) {
            Some(e) if e.from_program && self.prog.tables[t].entries_const => {
                Err(RuntimeError::Const(name, "the entry"))
            }
            Some(e) => {
                e.entry.action = pos;
                e.entry.args = args;
                Ok(())
            }
            None => Err(RuntimeError::NoSuchEntry {
                table: name,
                handle: handle.0,
            }),
        }
    }

    /// Removes an installed entry.
    pub fn table_delete(&mut self, table: &str, handle: EntryHandle) -> Result<(), RuntimeError> {
        let t = self.table_id(table)?;
        let allow = !self.prog.tables[t].entries_const;
        match self.rt.tables[t].remove(handle.0, allow) {
            Ok(_) => {
                self.profiles.entry_removed(t, handle.0);
                Ok(())
            }
            Err(e) => Err(self.change_error(t, e)),
        }
    }

    /// Removes every entry the control plane installed, in every table.
    pub fn clear_all_tables(&mut self) {
        for t in &mut self.rt.tables {
            t.clear_runtime_entries();
        }
        self.profiles.entries_cleared();
    }

    /// Sets a table's default action.
    pub fn table_set_default(
        &mut self,
        table: &str,
        action: &str,
        args: &[(String, Bits)],
    ) -> Result<(), RuntimeError> {
        let t = self.table_id(table)?;
        if self.prog.tables[t].profile.is_some() {
            return Err(RuntimeError::Indirect(self.prog.tables[t].name.clone()));
        }
        self.set_default_at(t, action, args)
    }

    /// Sets table `t`'s default action (an action, or a member's).
    fn set_default_at(
        &mut self,
        t: usize,
        action: &str,
        args: &[(String, Bits)],
    ) -> Result<(), RuntimeError> {
        let ti = &self.prog.tables[t];
        if ti.default_const {
            return Err(RuntimeError::Const(ti.name.clone(), "the default action"));
        }
        let pos = self.action_pos(t, action)?;
        if self.prog.tables[t].actions[pos].table_only {
            return Err(RuntimeError::ActionScope(action.to_string()));
        }
        let args = self.args(t, pos, args)?;
        self.rt.tables[t].default_action = Some((pos, args));
        Ok(())
    }

    /// The installed entries of a table, in handle order.
    pub fn table_entries(
        &self,
        table: &str,
    ) -> Result<Vec<(EntryHandle, TableEntry)>, RuntimeError> {
        let t = self.table_id(table)?;
        let ti = &self.prog.tables[t];
        let mut out = Vec::new();
        for (h, e) in self.rt.tables[t].iter() {
            let mut matches = Vec::new();
            for (k, m) in ti.keys.iter().zip(&e.entry.keys) {
                let ty = BitType::unsigned(k.width).unwrap_or(BitType::BIT1);
                let b = |v: u128| Bits::from_u128(ty, v);
                let full = key_mask(k.width);
                matches.push(match (k.kind, m) {
                    (MatchKind::Exact, KeyMatch::Masked(v, _)) => MatchValue::Exact(b(*v)),
                    (MatchKind::Lpm, KeyMatch::Masked(v, m)) => {
                        MatchValue::Lpm(b(*v), m.count_ones())
                    }
                    (MatchKind::Optional, KeyMatch::Masked(v, m)) => {
                        MatchValue::Optional((*m == full).then(|| b(*v)))
                    }
                    (_, KeyMatch::Masked(v, m)) => MatchValue::Ternary(b(*v), b(*m)),
                    (_, KeyMatch::Range(lo, hi)) => MatchValue::Range(b(*lo), b(*hi)),
                });
            }
            let (action, args) = match ti
                .actions
                .get(e.entry.action)
                .and_then(|a| self.prog.actions.get(a.action as usize))
            {
                Some(a) => (
                    a.name.clone(),
                    a.params
                        .iter()
                        .filter(|p| p.control_plane)
                        .zip(&e.entry.args)
                        .map(|(p, v)| {
                            (
                                p.name.clone(),
                                match v {
                                    ArgValue::N(n) => Bits::from_u64(p.ty, *n),
                                    ArgValue::W(w) => w.clone(),
                                },
                            )
                        })
                        .collect(),
                ),
                None => (String::new(), Vec::new()),
            };
            out.push((
                EntryHandle(h),
                TableEntry {
                    matches,
                    priority: Some(i32::try_from(e.entry.priority).unwrap_or(0)),
                    action,
                    args,
                },
            ));
        }
        Ok(out)
    }

    fn register_id(&self, name: &str) -> Result<usize, RuntimeError> {
        Self::resolve(
            "register",
            name,
            self.prog
                .registers
                .iter()
                .enumerate()
                .map(|(i, r)| (i, r.name.as_str())),
        )
    }

    /// Reads a register cell.
    pub fn register_read(&self, name: &str, index: u64) -> Result<Bits, RuntimeError> {
        let r = self.register_id(name)?;
        let info = &self.prog.registers[r];
        let oob = || RuntimeError::IndexOutOfRange {
            name: info.name.clone(),
            index,
            size: info.size,
        };
        let i = usize::try_from(index).map_err(|_| oob())?;
        match &self.rt.registers[r] {
            RegisterCells::Narrow(c) => c
                .get(i)
                .map(|v| Bits::from_u64(info.ty, *v))
                .ok_or_else(oob),
            RegisterCells::Wide(c) => c.get(i).cloned().ok_or_else(oob),
        }
    }

    /// Writes a register cell (the value must fit the cell's width).
    pub fn register_write(
        &mut self,
        name: &str,
        index: u64,
        value: &Bits,
    ) -> Result<(), RuntimeError> {
        let r = self.register_id(name)?;
        let info = self.prog.registers[r].clone();
        if value.bit_len() > info.ty.width() {
            return Err(RuntimeError::TooWide {
                what: info.name,
                width: info.ty.width(),
                value: format!("{value}"),
            });
        }
        let oob = || RuntimeError::IndexOutOfRange {
            name: info.name.clone(),
            index,
            size: info.size,
        };
        let i = usize::try_from(index).map_err(|_| oob())?;
        match &mut self.rt.registers[r] {
            RegisterCells::Narrow(c) => *c.get_mut(i).ok_or_else(oob)? = value.low_u64(),
            RegisterCells::Wide(c) => *c.get_mut(i).ok_or_else(oob)? = value.cast(info.ty),
        }
        Ok(())
    }

    /// Sets every cell of a register to 0.
    pub fn register_reset(&mut self, name: &str) -> Result<(), RuntimeError> {
        let r = self.register_id(name)?;
        match &mut self.rt.registers[r] {
            RegisterCells::Narrow(c) => c.fill(0),
            RegisterCells::Wide(c) => {
                for x in c.iter_mut() {
                    *x = Bits::zero(x.ty());
                }
            }
        }
        Ok(())
    }

    fn counter_id(&self, name: &str) -> Result<usize, RuntimeError> {
        Self::resolve(
            "counter",
            name,
            self.prog
                .counters
                .iter()
                .enumerate()
                .map(|(i, c)| (i, c.name.as_str())),
        )
    }

    fn counter_cell(&mut self, name: &str, index: u64) -> Result<&mut (u64, u64), RuntimeError> {
        let c = self.counter_id(name)?;
        let info = &self.prog.counters[c];
        let oob = RuntimeError::IndexOutOfRange {
            name: info.name.clone(),
            index,
            size: info.size,
        };
        let i = u32::try_from(index).map_err(|_| oob.clone())?;
        match info.table {
            Some(t) => self.rt.tables[t as usize]
                .get_mut(i)
                .map(|e| &mut e.counter)
                .ok_or(oob),
            None => self.rt.counters[c].get_mut(i as usize).ok_or(oob),
        }
    }

    /// Reads a counter cell: (packets, bytes). For a direct counter the
    /// index is the entry handle.
    pub fn counter_read(&mut self, name: &str, index: u64) -> Result<(u64, u64), RuntimeError> {
        self.counter_cell(name, index).map(|c| *c)
    }

    /// Sets a counter cell.
    pub fn counter_write(
        &mut self,
        name: &str,
        index: u64,
        packets: u64,
        bytes: u64,
    ) -> Result<(), RuntimeError> {
        *self.counter_cell(name, index)? = (packets, bytes);
        Ok(())
    }

    /// Sets every cell of a counter to 0.
    pub fn counter_reset(&mut self, name: &str) -> Result<(), RuntimeError> {
        let c = self.counter_id(name)?;
        match self.prog.counters[c].table {
            Some(t) => {
                for e in self.rt.tables[t as usize].iter_mut() {
                    e.counter = (0, 0);
                }
            }
            None => self.rt.counters[c].fill((0, 0)),
        }
        Ok(())
    }

    /// Configures a meter cell (committed then peak: rate in units per
    /// microsecond and burst); `index` is the entry handle for direct
    /// meters. `None` configures every cell.
    pub fn meter_set_rates(
        &mut self,
        name: &str,
        index: Option<u64>,
        rates: [(f64, u64); 2],
    ) -> Result<(), RuntimeError> {
        let m = Self::resolve(
            "meter",
            name,
            self.prog
                .meters
                .iter()
                .enumerate()
                .map(|(i, m)| (i, m.name.as_str())),
        )?;
        let info = self.prog.meters[m].clone();
        let now = self.rt.now_us;
        let oob = |index| RuntimeError::IndexOutOfRange {
            name: info.name.clone(),
            index,
            size: info.size,
        };
        match (info.table, index) {
            (Some(t), Some(i)) => {
                let e = self.rt.tables[t as usize]
                    .get_mut(i as u32)
                    .ok_or_else(|| oob(i))?;
                e.meter.set_rates(rates, now);
            }
            (Some(t), None) => {
                for e in self.rt.tables[t as usize].iter_mut() {
                    e.meter.set_rates(rates, now);
                }
            }
            (None, Some(i)) => {
                let cell = self.rt.meters[m]
                    .get_mut(i as usize)
                    .ok_or_else(|| oob(i))?;
                cell.set_rates(rates, now);
            }
            (None, None) => {
                for c in &mut self.rt.meters[m] {
                    c.set_rates(rates, now);
                }
            }
        }
        Ok(())
    }
}
