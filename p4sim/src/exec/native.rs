//! The native engine: a program known when the simulator is built, turned
//! into Rust source ([`generate`]) that is compiled into the binary with
//! the rest of it, the third engine beside the closures of
//! [`crate::exec::engine`] and the interpreter of [`crate::exec::interp`].
//!
//! The generated code is straight-line Rust over the frame's slots: slot
//! numbers, masks, widths, header layouts and table-to-action dispatch are
//! literals, so the compiler inlines and schedules a whole pipeline stage
//! (for `esa.p4`, 32 lanes of register read-modify-write without an
//! indirect call). What the generator does not turn into Rust (wide
//! values, header stacks, hashes, checksums and most externs) it leaves to
//! the closure engine, statement by statement: the generated code calls
//! [`Cx::stmt`] or [`Cx::eval`] with an index, and the closures for those
//! indexes are lowered again when the program is loaded.
//!
//! A generated program carries the hash of its own source. When a switch
//! is built for a program ([`crate::exec::engine::CompiledProgram::new`] with
//! [`crate::v1switch::Engine::Native`]), the generator runs again on that
//! program, and the native code is used only when the source it gives
//! hashes the same as a [`register`]ed one: same source, same behaviour.
//! Anything else (another `ESA_LANES`, an edited program, a program set at
//! run time through P4Runtime) runs on the closures, with the same
//! results.
//!
//! Semantics follow the closure engine exactly, including the order of
//! evaluation and the control-flow flags (`exit`, `return`, parser
//! `reject`); `tests/all/engines.rs` here and in the `esa-p4` crate run
//! random traffic through the native, closure and reference engines and
//! compare every output frame and every register.

use std::fmt::Write as _;
use std::sync::RwLock;

use crate::exec::cells::RegisterCells;
use crate::exec::hash::HashAlgorithm;
use crate::exec::interp::Exec;
use crate::exec::lowering::{ExFn, StFn};
use crate::exec::narrow::mask;
use crate::exec::state::Stage;
use crate::exec::table::TableState;
use crate::ir::*;

pub use crate::exec::state::Flow;

/// A generated program, as its generated source declares it.
#[derive(Debug)]
pub struct NativeProgram {
    /// What it was generated from (for logs).
    pub name: &'static str,
    /// FNV-1a hash of the generated source's body.
    pub hash: u64,
    /// Runs what the [`Entry`] asks for: the parser or some stages
    /// (a call of [`Entry::run`] with the program's frame and register
    /// sizes).
    pub run: fn(&mut Entry<'_, '_>),
}

static REGISTRY: RwLock<Vec<&'static NativeProgram>> = RwLock::new(Vec::new());

/// Makes `p` available to every switch built after this call on
/// [`crate::v1switch::Engine::Native`] for a program it was generated from.
pub fn register(p: &'static NativeProgram) {
    if registered(p.hash).is_some() {
        return;
    }
    let mut r = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if !r.iter().any(|q| q.hash == p.hash) {
        r.push(p);
    }
}

fn registered(hash: u64) -> Option<&'static NativeProgram> {
    let r = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    r.iter().copied().find(|p| p.hash == hash)
}

fn any_registered() -> bool {
    !REGISTRY
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .is_empty()
}

/// The slots of a table action's control-plane parameters (`true`: wide),
/// by table and action position.
type Params = Vec<Vec<Option<Box<[(usize, bool)]>>>>;

/// What the generated code hands to the closure engine, lowered for the
/// loaded program, and the tables' parameter slots.
pub(crate) struct Fallbacks {
    st: Vec<StFn>,
    ex: Vec<ExFn>,
    params: Params,
    packet_length: usize,
}

/// A registered program bound to a loaded one.
pub(crate) struct Bound {
    program: &'static NativeProgram,
    fb: Fallbacks,
}

impl std::fmt::Debug for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bound")
            .field("program", &self.program.name)
            .field("statements_lowered", &self.fb.st.len())
            .field("expressions_lowered", &self.fb.ex.len())
            .finish()
    }
}

impl Bound {
    /// The registered program generated from `prog`, with its fallbacks
    /// lowered by `lower` (statements, expressions).
    pub(crate) fn find(
        prog: &Compiled,
        lower: impl FnOnce(&[St], &[Ex]) -> (Vec<StFn>, Vec<ExFn>),
    ) -> Option<Bound> {
        if !any_registered() {
            return None;
        }
        let g = Generator::run(prog);
        let program = registered(g.hash)?;
        let (st, ex) = lower(&g.fb_st, &g.fb_ex);
        let params = prog
            .tables
            .iter()
            .map(|t| {
                t.actions
                    .iter()
                    .map(|ta| {
                        let act = prog.actions.get(ta.action as usize)?;
                        Some(
                            act.params
                                .iter()
                                .filter(|p| p.control_plane)
                                .map(|p| (p.slot as usize, p.ty.width() > 64))
                                .collect(),
                        )
                    })
                    .collect()
            })
            .collect();
        Some(Bound {
            program,
            fb: Fallbacks {
                st,
                ex,
                params,
                packet_length: prog.std_meta.packet_length as usize,
            },
        })
    }

    /// The registered program's name.
    pub(crate) fn name(&self) -> &'static str {
        self.program.name
    }

    pub(crate) fn run_parser(&self, ex: &mut Exec<'_>) -> u64 {
        let mut e = Entry {
            ex,
            fb: &self.fb,
            stages: None,
            parsed: 0,
        };
        (self.program.run)(&mut e);
        e.parsed
    }

    /// The closure engine's `run_controls`: the stages run in one
    /// context.
    pub(crate) fn run_controls(&self, ex: &mut Exec<'_>, stages: &[(Stage, u8)]) {
        (self.program.run)(&mut Entry {
            ex,
            fb: &self.fb,
            stages: Some(stages),
            parsed: 0,
        });
    }
}

/// What generated code is asked to run: the parser, or pipeline stages
/// one after the other, on one packet's context.
pub struct Entry<'e, 'a> {
    ex: &'e mut Exec<'a>,
    fb: &'e Fallbacks,
    /// `None`: the parser; else the stages `(stage, which)`.
    stages: Option<&'e [(Stage, u8)]>,
    /// The parser's error code.
    parsed: u64,
}

impl std::fmt::Debug for Entry<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("parser", &self.stages.is_none())
            .finish()
    }
}

impl Entry<'_, '_> {
    /// Runs `parser` or the asked-for `stages` (VerifyChecksum, Ingress,
    /// Egress, ComputeChecksum, Deparser) in one [`Cx`] over a frame of
    /// `N` narrow slots, the program's [`Compiled::n_slots`], and its `R`
    /// registers: the slot and register numbers in generated code are
    /// then checked against `N` and `R` when it is compiled instead of at
    /// each access. A frame or register file of another size (which a
    /// switch never makes) drops the packet with a fault.
    #[inline]
    pub fn run<const N: usize, const R: usize>(
        &mut self,
        parser: fn(&mut Cx<'_, '_, N, R>) -> u64,
        stages: &[fn(&mut Cx<'_, '_, N, R>); 5],
    ) {
        let slots = std::mem::take(&mut self.ex.n);
        let mut regs = std::mem::take(&mut self.ex.rt.registers);
        match (
            <&mut [u64; N]>::try_from(&mut *slots),
            <&mut [RegisterCells; R]>::try_from(regs.as_mut_slice()),
        ) {
            (Ok(n), Ok(regs)) => {
                let mut cx = Cx {
                    n,
                    regs,
                    ex: &mut *self.ex,
                    fb: self.fb,
                };
                match self.stages {
                    None => self.parsed = parser(&mut cx),
                    Some(list) => {
                        for &(stage, which) in list {
                            cx.ex.begin_control(stage);
                            if let Some(f) = stages.get(usize::from(which)) {
                                f(&mut cx);
                            }
                        }
                    }
                }
            }
            _ => {
                self.ex.fx.fault = Some(format!(
                    "a frame of {} slots and {} registers for native code generated for {N} and {R}",
                    slots.len(),
                    regs.len()
                ));
            }
        }
        self.ex.n = slots;
        let left = std::mem::replace(&mut self.ex.rt.registers, regs);
        if left.capacity() == 0 {
            // what `take` left there, owning no memory: forgotten rather
            // than dropped (a loop over no elements)
            std::mem::forget(left);
        }
    }
}

/// What generated code runs on: the packet's frame (`N` narrow slots),
/// the `R` registers and the switch state, through small inlined
/// accessors.
///
/// The narrow slots and the registers are moved out of the interpreter's
/// context while generated code runs (by [`Entry::run`]; a fallback runs
/// on a context made of the pieces, `Cx::with_exec`), so that they are
/// one pointer away: the compiler then keeps their addresses in registers
/// across a stage instead of reloading them after every store.
pub struct Cx<'e, 'a, const N: usize, const R: usize> {
    n: &'e mut [u64; N],
    regs: &'e mut [RegisterCells; R],
    ex: &'e mut Exec<'a>,
    fb: &'e Fallbacks,
}

impl<const N: usize, const R: usize> Cx<'_, '_, N, R> {
    /// Runs `f` on the interpreter's context, with the slots and the
    /// registers back in it (the registers moved one by one into the
    /// context's vector and back; the vector keeps its memory for the
    /// next fallback of the same [`Entry::run`]).
    #[inline]
    fn with_exec<T>(&mut self, f: impl FnOnce(&mut Exec<'_>) -> T) -> T {
        let held = &mut self.ex.rt.registers;
        held.clear();
        held.extend(self.regs.iter_mut().map(std::mem::take));
        let r = self.ex.with_slots(&mut self.n[..], f);
        for (mine, back) in self.regs.iter_mut().zip(self.ex.rt.registers.drain(..)) {
            *mine = back;
        }
        r
    }
}

impl<const N: usize, const R: usize> std::fmt::Debug for Cx<'_, '_, N, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx")
            .field("cursor", &self.ex.cursor)
            .finish()
    }
}

impl<'a, const N: usize, const R: usize> Cx<'_, 'a, N, R> {
    /// Narrow slot `s` (0 outside the frame).
    #[inline(always)]
    pub fn ld(&self, s: usize) -> u64 {
        self.n.get(s).copied().unwrap_or(0)
    }

    /// Stores narrow slot `s` (ignored outside the frame).
    #[inline(always)]
    pub fn st(&mut self, s: usize, v: u64) {
        if let Some(x) = self.n.get_mut(s) {
            *x = v;
        }
    }

    /// Copies `len` narrow slots from `src` to `dst`.
    #[inline]
    pub fn copy(&mut self, dst: usize, src: usize, len: usize) {
        let n = &mut *self.n;
        if src + len <= n.len() && dst + len <= n.len() {
            n.copy_within(src..src + len, dst);
        }
    }

    /// The cells of narrow register `r` (empty when it is wide or absent).
    #[inline(always)]
    pub fn reg(&mut self, r: usize) -> &mut [u64] {
        match self.regs.get_mut(r) {
            Some(RegisterCells::Narrow(c)) => c,
            _ => &mut [],
        }
    }

    /// Counts the packet in cell `i` of indexed counter `c`.
    #[inline]
    pub fn count(&mut self, c: usize, i: usize) {
        let len = self.ld(self.fb.packet_length);
        if let Some(cell) = self.ex.rt.counters.get_mut(c).and_then(|c| c.get_mut(i)) {
            cell.0 += 1;
            cell.1 += len;
        }
    }

    /// The packet the parser reads.
    #[inline(always)]
    pub fn pkt(&self) -> &'a [u8] {
        self.ex.pkt
    }

    /// `packet.length()`.
    #[inline(always)]
    pub fn pkt_len(&self) -> u64 {
        self.ex.pkt.len() as u64
    }

    /// The parser's position, in bits.
    #[inline(always)]
    pub fn cursor(&self) -> usize {
        self.ex.cursor
    }

    /// Moves the parser's position.
    #[inline(always)]
    pub fn set_cursor(&mut self, c: usize) {
        self.ex.cursor = c;
    }

    /// Appends `width` bits of `v` to the deparser's output.
    #[inline(always)]
    pub fn push(&mut self, v: u64, width: u32) {
        self.ex.out.push(v, width);
    }

    /// Appends whole bytes to the deparser's output (the same bits as
    /// [`Cx::push`] of each byte).
    #[inline(always)]
    pub fn push_bytes(&mut self, b: &[u8]) {
        self.ex.out.push_bytes(b);
    }

    /// `algo` over the bits of `leaves` (value, width, whether its
    /// header is valid: a field of an invalid header is left out, as
    /// BMv2 does), then the unparsed payload when `with_payload`: the
    /// closure engine's `checksum_of`, without leaving generated code.
    #[inline]
    pub fn checksum(
        &mut self,
        algo: HashAlgorithm,
        leaves: &[(u64, u32, bool)],
        with_payload: bool,
    ) -> u64 {
        if algo == HashAlgorithm::Csum16 && !with_payload {
            return u64::from(csum16_bits(leaves));
        }
        let mut scratch = std::mem::take(&mut self.ex.rt.scratch);
        let values = leaves.iter().filter(|l| l.2).map(|&(v, w, _)| (v, w));
        let payload = with_payload.then_some(self.ex.payload);
        let h = crate::exec::lowering::hash_bits(&mut scratch, values, payload, algo);
        self.ex.rt.scratch = scratch;
        h
    }

    /// Runs fallback statement `i` on the closure engine.
    #[inline]
    pub fn stmt(&mut self, i: usize) -> Flow {
        let Some(f) = self.fb.st.get(i) else {
            return Flow::Normal;
        };
        self.with_exec(|ex| f(ex))
    }

    /// Evaluates fallback expression `i` on the closure engine.
    #[inline]
    pub fn eval(&mut self, i: usize) -> u64 {
        let Some(f) = self.fb.ex.get(i) else {
            return 0;
        };
        self.with_exec(|ex| f(ex))
    }

    /// After a statement that may have changed control flow: `Some` with
    /// what the enclosing block returns (the closure engine's rule).
    #[inline(always)]
    pub fn settle(&mut self, f: Flow) -> Option<Flow> {
        if self.ex.halt {
            if self.ex.exit {
                return Some(Flow::Exit);
            }
            self.ex.halt = false;
            if let Some(e) = self.ex.reject.take() {
                return Some(Flow::Reject(e));
            }
        }
        if matches!(f, Flow::Normal) {
            None
        } else {
            Some(f)
        }
    }

    /// `exit`.
    #[inline]
    pub fn exit(&mut self) {
        self.ex.exit = true;
        self.ex.halt = true;
    }

    /// Whether `exit` ran.
    #[inline(always)]
    pub fn exiting(&self) -> bool {
        self.ex.exit
    }

    /// A parser error raised inside an expression.
    #[inline]
    pub fn set_reject(&mut self, e: u64) {
        self.ex.reject = Some(e);
        self.ex.halt = true;
    }

    /// Takes a pending parser error.
    #[inline(always)]
    pub fn take_reject(&mut self) -> Option<u64> {
        self.ex.reject.take()
    }

    /// Before a call's copy-out: copy-out runs even after `exit`.
    #[inline]
    pub fn begin_copy_out(&mut self) -> bool {
        let exiting = std::mem::replace(&mut self.ex.exit, false);
        self.ex.halt = self.ex.reject.is_some();
        exiting
    }

    /// After a call's copy-out.
    #[inline]
    pub fn end_copy_out(&mut self, exiting: bool) {
        self.ex.exit |= exiting;
        self.ex.halt = self.ex.exit || self.ex.reject.is_some();
    }

    /// Applies table `t` with `keys`: counts the hit, stores the action's
    /// arguments and returns whether it hit and the action position
    /// (`None`: nothing to run). The caller runs the action, then
    /// [`Cx::end_action`].
    #[inline]
    pub fn lookup(&mut self, t: usize, keys: &[u128]) -> (bool, Option<usize>) {
        self.lookup_by(t, |state| state.lookup(keys))
    }

    /// As [`Cx::lookup`] with the key values packed as
    /// [`TableState::packs`] says (for a table that packs).
    #[inline]
    pub fn lookup_packed(&mut self, t: usize, key: u128) -> (bool, Option<usize>) {
        self.lookup_by(t, |state| state.lookup_packed(key))
    }

    #[inline(always)]
    fn lookup_by(
        &mut self,
        t: usize,
        find: impl FnOnce(&TableState) -> Option<u32>,
    ) -> (bool, Option<usize>) {
        let len = self.ld(self.fb.packet_length);
        let Some(params) = self.fb.params.get(t) else {
            return (false, None);
        };
        let ex = &mut *self.ex;
        let Some(state) = ex.rt.tables.get_mut(t) else {
            return (false, None);
        };
        let (hit, pos, entry) = match find(state) {
            Some(h) => {
                let Some(e) = state.get_mut(h) else {
                    return (false, None);
                };
                e.counter.0 += 1;
                e.counter.1 += len;
                let pos = e.entry.action;
                let Some(Some(p)) = params.get(pos) else {
                    return (true, None);
                };
                crate::exec::lowering::copy_args(&mut self.n[..], ex.w, p, &e.entry.args);
                (true, pos, Some((t as u32, h)))
            }
            None => match &state.default_action {
                Some((pos, args)) => {
                    let pos = *pos;
                    if let Some(Some(p)) = params.get(pos) {
                        crate::exec::lowering::copy_args(&mut self.n[..], ex.w, p, args);
                    }
                    (false, pos, None)
                }
                None => return (false, None),
            },
        };
        ex.current_entry = entry;
        (hit, Some(pos))
    }

    /// After the action of [`Cx::lookup`].
    #[inline(always)]
    pub fn end_action(&mut self) {
        self.ex.current_entry = None;
    }

    /// Applies table `t` on the interpreter (wide or many keys).
    #[inline]
    pub fn apply_interpreted(&mut self, t: u32) -> (bool, Option<usize>) {
        self.with_exec(|ex| ex.apply_table(t))
    }
}

/// `csum16` of the bits of `leaves` (value, width, included) as
/// [`crate::exec::hash::csum16`] gives for the bytes a `BitWriter` makes
/// of them (the last byte and an odd last byte padded with zeros), summed
/// 16 bits at a time as they arrive, without the bytes.
pub fn csum16_bits(leaves: &[(u64, u32, bool)]) -> u16 {
    let (mut acc, mut n, mut sum) = (0u128, 0u32, 0u64);
    for &(v, w, included) in leaves {
        if !included || w > 64 {
            continue;
        }
        // at most 15 bits are pending, so 79 at most after this
        acc = (acc << w) | u128::from(v);
        n += w;
        while n >= 16 {
            n -= 16;
            sum += ((acc >> n) & 0xffff) as u64;
        }
        acc &= (1u128 << n) - 1;
    }
    if n > 0 {
        sum += ((acc << (16 - n)) & 0xffff) as u64;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A narrow binary operator the generated code does not spell out.
#[inline(always)]
pub fn nop(op: NOp, w: u32, a: u64, b: u64) -> u64 {
    crate::exec::narrow::eval_nop(op, w, a, b)
}

/// Sign extension from `from` bits.
#[inline(always)]
pub fn sext(v: u64, from: u32) -> u64 {
    crate::exec::narrow::sext(v, from)
}

/// `width` bits of `data` at `bit_offset` (missing bytes read as 0).
#[inline]
pub fn read_bits(data: &[u8], bit_offset: usize, width: u32) -> u64 {
    crate::exec::narrow::read_bits(data, bit_offset, width)
}

/// The generated source of `prog` as a Rust module body declaring
/// `pub static PROGRAM: p4sim::exec::native::NativeProgram`; `name` says what it
/// was generated from. Include it in a module of a crate that depends on
/// p4sim and [`register`] `PROGRAM`.
pub fn generate(prog: &Compiled, name: &str) -> String {
    let g = Generator::run(prog);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by p4sim::exec::native::generate from {name}: do not edit.\n\
         #[allow(unused, unused_braces, unused_parens, unused_variables, unused_comparisons, unreachable_code, \
         unreachable_patterns, clippy::all, clippy::pedantic, clippy::nursery)]\n\
         mod generated {{\n\
         use p4sim::exec::native::{{Cx, Entry, Flow, NativeProgram}};\n\
         use p4sim::exec::hash::HashAlgorithm;\n\
         use p4sim::ir::NOp;\n\
         pub static PROGRAM: NativeProgram = NativeProgram {{\n    \
         name: {name:?},\n    hash: {:#018x},\n    run,\n}};",
        g.hash
    );
    s.push_str(&g.body);
    s.push_str("}\npub use generated::PROGRAM;\n");
    s
}

/// FNV-1a, 64-bit.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[derive(Clone, Copy, PartialEq)]
enum Done {
    Todo,
    /// Generated (or being generated): the function's index.
    At(usize),
}

/// Where a generated function runs from.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Pipeline stage `i` (0 VerifyChecksum .. 4 Deparser), once per
    /// packet or copy.
    Stage(usize),
    /// The parser (states may loop).
    Parser,
    /// A body, action or table, from its call sites.
    Called,
}

/// One generated function. Its text reads and writes narrow slots only as
/// `cx.ld(n)` and `cx.st(n, value)`, which [`Generator::render`] turns
/// into local variables where it can.
struct FnInfo {
    header: String,
    tail: String,
    text: String,
    kind: Kind,
    /// Call sites, and the function of the last one.
    calls: usize,
    caller: Option<usize>,
}

struct Generator<'p> {
    prog: &'p Compiled,
    fns: Vec<FnInfo>,
    /// The functions being generated, innermost last.
    cur: Vec<usize>,
    /// Slots that code outside the generated functions reads or writes
    /// (the switch, table actions' arguments, fallbacks): never promoted.
    external: Vec<bool>,
    fb_st: Vec<St>,
    fb_ex: Vec<Ex>,
    bodies: Vec<Done>,
    actions: Vec<Done>,
    /// Each table's function, or `None` when the interpreter applies it.
    tables: Vec<Option<Option<usize>>>,
    label: usize,
    /// How many statements of the program run each body (`RunBody`).
    body_sites: Vec<usize>,
}

struct Output {
    body: String,
    hash: u64,
    fb_st: Vec<St>,
    fb_ex: Vec<Ex>,
}

impl Generator<'_> {
    fn run(prog: &Compiled) -> Output {
        let mut g = Generator {
            prog,
            fns: Vec::new(),
            cur: Vec::new(),
            external: vec![false; prog.n_slots as usize],
            fb_st: Vec::new(),
            fb_ex: Vec::new(),
            bodies: vec![Done::Todo; prog.bodies.len()],
            actions: vec![Done::Todo; prog.actions.len()],
            tables: vec![None; prog.tables.len()],
            label: 0,
            body_sites: body_sites(prog),
        };
        g.mark_external();
        g.parser();
        let stages = [
            &prog.verify_checksum,
            &prog.ingress,
            &prog.egress,
            &prog.compute_checksum,
            &prog.deparser,
        ];
        for (i, b) in stages.into_iter().enumerate() {
            let f = g.begin_fn(
                format!("fn stage_{i}(cx: &mut C<'_, '_>) {{\n    @DECLS@let _ = "),
                ";\n}\n".into(),
                Kind::Stage(i),
            );
            let block = g.block(b);
            g.end_fn(f, block);
        }
        let mut refs = Refs {
            prog,
            ext: &mut g.external,
            bodies: vec![false; prog.bodies.len()],
            actions: vec![false; prog.actions.len()],
            tables: vec![false; prog.tables.len()],
        };
        for st in &g.fb_st {
            refs.st(st);
        }
        for e in &g.fb_ex {
            refs.ex(e);
        }
        let body = format!(
            "type C<'e, 'a> = Cx<'e, 'a, {n}, {r}>;\n\n\
             fn run(e: &mut Entry<'_, '_>) {{\n    \
             e.run::<{n}, {r}>(parser, &[stage_0, stage_1, stage_2, stage_3, stage_4]);\n}}\n\n{}",
            g.render(),
            n = prog.n_slots,
            r = prog.registers.len()
        );
        Output {
            hash: fnv(&body),
            body,
            fb_st: g.fb_st,
            fb_ex: g.fb_ex,
        }
    }

    /// What the switch itself reads and writes: standard metadata, user
    /// metadata, field lists, and the control-plane parameters that table
    /// lookups store.
    fn mark_external(&mut self) {
        let prog = self.prog;
        let sm = &prog.std_meta;
        let mut ext: Vec<u32> = vec![
            sm.ingress_port,
            sm.egress_spec,
            sm.egress_port,
            sm.instance_type,
            sm.packet_length,
            sm.ingress_global_timestamp,
            sm.egress_global_timestamp,
            sm.mcast_grp,
            sm.egress_rid,
            sm.checksum_error,
            sm.parser_error,
            sm.priority,
        ];
        ext.extend(prog.meta_n.clone());
        for (ns, _) in prog.field_lists.values() {
            ext.extend(ns);
        }
        for a in &prog.actions {
            ext.extend(a.params.iter().filter(|p| p.control_plane).map(|p| p.slot));
        }
        // TNA: what its packet flow reads and writes around the pipeline
        // (the parser, which runs once per gress, is never given locals)
        if let Some(t) = &prog.tna {
            ext.extend([
                t.gress,
                t.resubmit,
                t.ig_global_tstamp,
                t.ig_parser_err,
                t.ig_drop_ctl,
                t.ucast_egress_port,
                t.bypass_egress,
                t.mcast_grp_a,
                t.mcast_grp_b,
                t.eg_global_tstamp,
                t.eg_parser_err,
                t.eg_drop_ctl,
            ]);
            for h in &t.resubmit_headers {
                ext.push(h.valid);
                ext.extend(
                    h.fields
                        .iter()
                        .filter(|f| !f.wide)
                        .map(|f| h.base_n + f.offset),
                );
            }
        }
        for s in ext {
            self.external_slot(s);
        }
    }

    fn external_slot(&mut self, s: u32) {
        if let Some(x) = self.external.get_mut(s as usize) {
            *x = true;
        }
    }

    fn begin_fn(&mut self, header: String, tail: String, kind: Kind) -> usize {
        self.fns.push(FnInfo {
            header,
            tail,
            text: String::new(),
            kind,
            calls: 0,
            caller: None,
        });
        let i = self.fns.len() - 1;
        self.cur.push(i);
        i
    }

    fn end_fn(&mut self, f: usize, text: String) {
        self.fns[f].text = text;
        self.cur.pop();
    }

    /// Counts a call of function `f` from the current one.
    fn called(&mut self, f: usize) {
        let caller = self.cur.last().copied();
        let x = &mut self.fns[f];
        x.calls += 1;
        x.caller = caller;
    }

    /// Whether function `f` runs at most once per packet (or copy) and
    /// starts from frame values no earlier run of it left: reached, by
    /// single call sites, from a stage other than Egress (an egress-to-
    /// egress clone runs Egress again on the frame it left).
    fn runs_fresh(&self, f: usize) -> bool {
        let mut f = f;
        for _ in 0..=self.fns.len() {
            let x = &self.fns[f];
            match x.kind {
                Kind::Stage(i) => return i != 2,
                Kind::Parser => return false,
                Kind::Called => match x.caller {
                    Some(c) if x.calls == 1 => f = c,
                    _ => return false,
                },
            }
        }
        false
    }

    /// The functions with their placeholders resolved: a slot that only
    /// one function touches, that nothing outside generated code sees and
    /// whose function [`Self::runs_fresh`] becomes a local variable
    /// (starting at 0, as the frame's slots do), which the compiler keeps
    /// in a register; every other slot is read and written in the frame.
    fn render(&self) -> String {
        let mut owners: std::collections::HashMap<u32, usize> = Default::default();
        let mut shared: std::collections::HashSet<u32> = Default::default();
        let slots: Vec<std::collections::BTreeSet<u32>> =
            self.fns.iter().map(|f| slots_in(&f.text)).collect();
        for (i, set) in slots.iter().enumerate() {
            for &s in set {
                if owners.insert(s, i).is_some_and(|j| j != i) {
                    shared.insert(s);
                }
            }
        }
        let mut out = String::new();
        for (i, f) in self.fns.iter().enumerate() {
            let fresh = self.runs_fresh(i);
            let local = |s: u32| {
                fresh
                    && !shared.contains(&s)
                    && owners.get(&s) == Some(&i)
                    && !self.external.get(s as usize).copied().unwrap_or(true)
            };
            let mut decls = String::new();
            for &s in slots[i].iter().filter(|&&s| local(s)) {
                let _ = write!(decls, "let mut s{s}: u64 = 0; ");
            }
            let _ = write!(out, "\n{}", f.header.replacen("@DECLS@", &decls, 1));
            resolve(&f.text, &local, &mut out);
            out.push_str(&f.tail);
        }
        out
    }

    fn fallback_st(&mut self, s: &St) -> String {
        self.fb_st.push(s.clone());
        format!("cx.stmt({})", self.fb_st.len() - 1)
    }

    fn fallback_ex(&mut self, e: &Ex) -> String {
        self.fb_ex.push(e.clone());
        format!("cx.eval({})", self.fb_ex.len() - 1)
    }

    fn parser(&mut self) {
        let prog = self.prog;
        let timeout = prog.error_code("ParserTimeout").unwrap_or(0);
        let no_match = prog.error_code("NoMatch").unwrap_or(0);
        let f = self.begin_fn(
            "fn parser(cx: &mut C<'_, '_>) -> u64 {\n    @DECLS@".into(),
            "}\n".into(),
            Kind::Parser,
        );
        let init = self.block(&prog.parser_init);
        let mut states = String::new();
        for (i, s) in prog.parser.iter().enumerate() {
            let body = self.block(&s.body);
            let mut arm = format!(
                "            {i} => {{\n                if let Flow::Reject(e) = {body} {{ return e; }}\n"
            );
            match &s.transition {
                Transition::Go(n) => {
                    let n = self.next(*n);
                    let _ = writeln!(arm, "                {n}");
                }
                Transition::Select(keys, cases) => {
                    let keys: Vec<String> = keys.iter().take(16).map(|k| self.ex(k)).collect();
                    for (j, k) in keys.iter().enumerate() {
                        let _ = writeln!(arm, "                let k{j}: u64 = {k};");
                    }
                    arm.push_str(
                        "                if let Some(e) = cx.take_reject() { return e; }\n",
                    );
                    let mut first = true;
                    for (ks, n) in cases {
                        let conds: Vec<String> = ks
                            .iter()
                            .zip(0..keys.len())
                            .filter_map(|(k, j)| match k {
                                SelectKey::Any => None,
                                SelectKey::Masked(v, m) => Some(format!("k{j} & {m} == {v}")),
                                SelectKey::Range(lo, hi) => {
                                    Some(format!("({lo} <= k{j} && k{j} <= {hi})"))
                                }
                            })
                            .collect();
                        let cond = if conds.is_empty() {
                            "true".to_string()
                        } else {
                            conds.join(" && ")
                        };
                        let n = self.next(*n);
                        let _ = writeln!(
                            arm,
                            "                {}if {cond} {{ {n} }}",
                            if first { "" } else { "else " },
                        );
                        first = false;
                    }
                    let _ = writeln!(
                        arm,
                        "                {}{{ return {no_match}; }}",
                        if first { "" } else { "else " }
                    );
                }
            }
            arm.push_str("            }\n");
            states.push_str(&arm);
        }
        let text = format!(
            "if let Flow::Reject(e) = {init} {{ return e; }}\n    \
             let mut state: u32 = 0;\n    let mut steps: u32 = 0;\n    loop {{\n        \
             steps += 1;\n        if steps > 100_000 {{ return {timeout}; }}\n        \
             match state {{\n{states}            _ => return 0,\n        }}\n    }}\n"
        );
        self.end_fn(f, text);
    }

    /// Where a parser transition goes, as a statement.
    fn next(&mut self, n: Next) -> String {
        match n {
            Next::Accept => "return 0;".into(),
            Next::Reject => format!("return cx.ld({});", self.prog.std_meta.parser_error),
            Next::State(s) => format!("state = {s};"),
        }
    }

    fn label(&mut self) -> String {
        self.label += 1;
        format!("'b{}", self.label)
    }

    /// A block as an expression of type `Flow`, with the closure engine's
    /// checks after each statement that may change control flow.
    fn block(&mut self, sts: &[St]) -> String {
        self.block_then(sts, None)
    }

    /// [`Self::block`], with the call of body function `body` (already
    /// generated) as its last statement when there is one.
    fn block_then(&mut self, sts: &[St], body: Option<&str>) -> String {
        let l = self.label();
        let mut s = format!("({l}: {{\n");
        let settle = |s: &mut String, f: &str| {
            let _ = writeln!(
                s,
                "{{ let f: Flow = {f}; if let Some(r) = cx.settle(f) {{ break {l} r; }} }}"
            );
        };
        for st in sts {
            if self.pure_st(st) {
                self.pure(st, &mut s);
            } else {
                let f = self.st(st);
                settle(&mut s, &f);
            }
        }
        if let Some(f) = body {
            settle(&mut s, &run_body(f));
        }
        s.push_str("Flow::Normal })");
        s
    }

    /// As the closure engine: a statement without any control-flow effect.
    fn pure_st(&self, s: &St) -> bool {
        crate::exec::lowering::pure_st(self.prog, s)
    }

    /// Appends the code of a statement for which [`Self::pure_st`] holds.
    fn pure(&mut self, s: &St, out: &mut String) {
        let prog = self.prog;
        match s {
            St::Set(d, e) => {
                let e = self.ex(e);
                let _ = writeln!(out, "{{ let v: u64 = {e}; cx.st({d}, v); }}");
            }
            St::Mov(d, src) => {
                let _ = writeln!(out, "{{ let v = cx.ld({src}); cx.st({d}, v); }}");
            }
            St::BinSlots(op, w, d, a, b) => {
                let v = bin(*op, *w, &format!("cx.ld({a})"), &format!("cx.ld({b})"));
                let _ = writeln!(out, "{{ let v: u64 = {v}; cx.st({d}, v); }}");
            }
            St::BinSlotConst(op, w, d, a, c) => {
                let v = bin(*op, *w, &format!("cx.ld({a})"), &format!("{c}u64"));
                let _ = writeln!(out, "{{ let v: u64 = {v}; cx.st({d}, v); }}");
            }
            St::If(c, a, b) => {
                let c = self.ex(c);
                let _ = writeln!(out, "if {c} != 0 {{");
                for s in a {
                    self.pure(s, out);
                }
                if !b.is_empty() {
                    out.push_str("} else {\n");
                    for s in b {
                        self.pure(s, out);
                    }
                }
                out.push_str("}\n");
            }
            St::Block(b) => {
                for s in b {
                    self.pure(s, out);
                }
            }
            St::Call(c) => {
                if let Some((map, zeroed)) = in_place_params(c) {
                    // inlined here, so each call site gets its own copy
                    // of the body with the parameters renamed
                    let (fb_st, fb_ex) = (self.fb_st.len(), self.fb_ex.len());
                    let mut body = String::new();
                    for a in zeroed {
                        let _ = writeln!(body, "{{ let v: u64 = 0u64; cx.st({a}, v); }}");
                    }
                    if let Some(run) = c.0.last() {
                        self.pure(run, &mut body);
                    }
                    let no_fallback = self.fb_st.len() == fb_st && self.fb_ex.len() == fb_ex;
                    if no_fallback && let Some(text) = rename_slots(&body, &map) {
                        self.mark_in_place(&map);
                        out.push_str(&text);
                        return;
                    }
                }
                for s in c.0.iter().chain(c.1.iter()) {
                    self.pure(s, out);
                }
            }
            St::RunBody(b) => {
                for s in prog.bodies.get(*b as usize).into_iter().flatten() {
                    self.pure(s, out);
                }
            }
            St::RunAction(a) => {
                for s in prog
                    .actions
                    .get(*a as usize)
                    .into_iter()
                    .flat_map(|a| &a.body)
                {
                    self.pure(s, out);
                }
            }
            St::Copy(c) => {
                for x in (c.n_dst..c.n_dst + c.n_len).chain(c.n_src..c.n_src + c.n_len) {
                    self.external_slot(x);
                }
                let _ = writeln!(out, "cx.copy({}, {}, {});", c.n_dst, c.n_src, c.n_len);
            }
            St::RegReadSlot {
                reg,
                dst,
                width,
                index,
            } => {
                let _ = writeln!(
                    out,
                    "{{ let i = cx.ld({index}) as usize; \
                     let v = cx.reg({reg}).get(i).copied().unwrap_or(0); \
                     cx.st({dst}, v & {m}); }}",
                    m = mask(*width)
                );
            }
            St::RegRmwSlot {
                reg,
                index,
                tmp,
                op,
                width,
                operand,
                tmp_left,
            } => {
                let m = mask(*width);
                let apply = match (op, tmp_left) {
                    (NOp::Add, _) => format!("old.wrapping_add(x) & {m}"),
                    (_, true) => format!("p4sim::exec::native::nop(NOp::{op:?}, {width}, old, x)"),
                    (_, false) => format!("p4sim::exec::native::nop(NOp::{op:?}, {width}, x, old)"),
                };
                let missing = if *tmp_left {
                    format!("p4sim::exec::native::nop(NOp::{op:?}, {width}, 0, x)")
                } else {
                    format!("p4sim::exec::native::nop(NOp::{op:?}, {width}, x, 0)")
                };
                let _ = writeln!(
                    out,
                    "{{ let i = cx.ld({index}) as usize; let x = cx.ld({operand}); \
                     let v = match cx.reg({reg}).get_mut(i) {{ \
                     Some(c) => {{ let old = *c & {m}; let v = {apply}; *c = v; v }} \
                     None => {missing} }}; cx.st({tmp}, v); }}"
                );
            }
            St::RegWriteSlot { reg, index, value } => {
                let _ = writeln!(
                    out,
                    "{{ let i = cx.ld({index}) as usize; let v = cx.ld({value}); \
                     if let Some(c) = cx.reg({reg}).get_mut(i) {{ *c = v; }} }}"
                );
            }
            St::Extern(call) => match &**call {
                ExternCall::Count { counter, index } => {
                    let i = self.ex(index);
                    let _ = writeln!(out, "{{ let i = ({i}) as usize; cx.count({counter}, i); }}");
                }
                ExternCall::RegisterRead {
                    reg,
                    dst: Target::N(d, w),
                    index,
                } => {
                    let i = self.ex(index);
                    let _ = writeln!(
                        out,
                        "{{ let i = ({i}) as usize; \
                         let v = cx.reg({reg}).get(i).copied().unwrap_or(0); \
                         cx.st({d}, v & {m}); }}",
                        m = mask(*w)
                    );
                }
                ExternCall::RegisterWrite { reg, index, value } => {
                    let i = self.ex(index);
                    let v = self.ex(value);
                    let _ = writeln!(
                        out,
                        "{{ let i = ({i}) as usize; let v: u64 = {v}; \
                         if let Some(c) = cx.reg({reg}).get_mut(i) {{ *c = v; }} }}"
                    );
                }
                ExternCall::VerifyChecksum {
                    cond,
                    data,
                    checksum,
                    algo,
                    with_payload,
                } => match self.checksum(cond, data, *algo, *with_payload) {
                    Some(code) => {
                        let want = self.ex(checksum);
                        let m = mask(algo.checksum_width());
                        let error = prog.std_meta.checksum_error;
                        let _ = writeln!(
                            out,
                            "{code} let want: u64 = {want}; \
                             if h & {m} != want {{ cx.st({error}, 1); }} }}"
                        );
                    }
                    None => {
                        let f = self.fallback_st(s);
                        let _ = writeln!(out, "{{ let _ = {f}; }}");
                    }
                },
                ExternCall::UpdateChecksum {
                    cond,
                    data,
                    dst: Target::N(d, w),
                    algo,
                    with_payload,
                } => match self.checksum(cond, data, *algo, *with_payload) {
                    Some(code) => {
                        let m = mask(*w);
                        let _ = writeln!(out, "{code} cx.st({d}, h & {m}); }}");
                    }
                    None => {
                        let f = self.fallback_st(s);
                        let _ = writeln!(out, "{{ let _ = {f}; }}");
                    }
                },
                _ => {
                    let f = self.fallback_st(s);
                    let _ = writeln!(out, "{{ let _ = {f}; }}");
                }
            },
            _ => {
                let f = self.fallback_st(s);
                let _ = writeln!(out, "{{ let _ = {f}; }}");
            }
        }
    }

    /// [`Self::checksum`] for `csum16` over narrow slots that one
    /// validity bit (or none) governs, spelled out: the layout of the
    /// leaves' bits is known here, so each 16-bit word of the sum is a few
    /// shifts of the slots it spans. With the header invalid nothing is
    /// summed (`!0`), as when every leaf is left out.
    fn csum16_inline(&mut self, cond: &Ex, data: &[Leaf]) -> Option<String> {
        let slots = crate::exec::lowering::slot_leaves(data)?;
        let valid = slots.first()?.2;
        let mut leaves = Vec::with_capacity(slots.len());
        let mut at = 0u32;
        for &(v, w, leaf_valid) in slots.iter() {
            if w == 0 || leaf_valid != valid {
                return None;
            }
            leaves.push((v, at, w));
            at += w;
        }
        let valid = match valid {
            None => "true".to_string(),
            Some(b) => format!("cx.ld({b}) != 0"),
        };
        let mut sum = String::new();
        for k in 0..at.div_ceil(16) {
            let (lo, hi) = (16 * k, 16 * k + 16);
            let mut parts = Vec::new();
            for &(slot, o, w) in &leaves {
                let (a, b) = (o.max(lo), (o + w).min(hi));
                if a >= b {
                    continue;
                }
                // stream bits [a, b) are the leaf's value bits
                // [o + w - b, o + w - a); they go to word bits [hi - b, hi - a)
                let part = format!(
                    "(((cx.ld({slot}) >> {}) & {:#x}) << {})",
                    o + w - b,
                    mask(b - a),
                    hi - b
                );
                parts.push(part);
            }
            let _ = write!(sum, "sum += {};", parts.join(" | "));
        }
        let cond = self.ex(cond);
        Some(format!(
            "if {cond} != 0 {{ let h: u64 = if {valid} {{ let mut sum: u64 = 0; {sum} \
             while sum >> 16 != 0 {{ sum = (sum & 0xffff) + (sum >> 16); }} !sum & 0xffff }} \
             else {{ 0xffff }};"
        ))
    }

    /// The start of a checksum's code over narrow slot leaves, ending
    /// with the checksum in `h` inside an open `if` on its condition
    /// (which the caller closes); `None` when a leaf is not a narrow slot
    /// (the closure engine's [`crate::exec::engine`] rule). As the
    /// interpreter, the condition is evaluated first, then the leaves
    /// (a field of an invalid header left out), then the hash.
    fn checksum(
        &mut self,
        cond: &Ex,
        data: &[Leaf],
        algo: HashAlgorithm,
        with_payload: bool,
    ) -> Option<String> {
        if algo == HashAlgorithm::Csum16
            && !with_payload
            && let Some(code) = self.csum16_inline(cond, data)
        {
            return Some(code);
        }
        let leaves: Vec<String> = crate::exec::lowering::slot_leaves(data)?
            .iter()
            .map(|&(v, width, valid)| {
                let valid = valid.map_or("true".to_string(), |b| format!("cx.ld({b}) != 0"));
                format!("(cx.ld({v}), {width}, {valid})")
            })
            .collect();
        let cond = self.ex(cond);
        Some(format!(
            "if {cond} != 0 {{ let h = cx.checksum(HashAlgorithm::{algo:?}, &[{}], {with_payload});",
            leaves.join(", ")
        ))
    }

    /// A statement as an expression of type `Flow`.
    fn st(&mut self, s: &St) -> String {
        match s {
            St::Set(d, e) => {
                let e = self.ex(e);
                format!("{{ let v: u64 = {e}; cx.st({d}, v); Flow::Normal }}")
            }
            St::If(c, a, b) => {
                let c = self.ex(c);
                let a = self.block(a);
                let b = self.block(b);
                format!("if {c} != 0 {{ {a} }} else {{ {b} }}")
            }
            St::Block(b) => self.block(b),
            St::Switch(sel, arms, default) => {
                let sel = self.ex(sel);
                let mut m = format!("{{ let v: u64 = {sel}; match v {{\n");
                for (vals, body) in arms {
                    if vals.is_empty() {
                        continue;
                    }
                    let b = self.block(body);
                    let pats: Vec<String> = vals.iter().map(|v| format!("{v}")).collect();
                    let _ = writeln!(m, "{} => {b},", pats.join(" | "));
                }
                let d = self.block(default);
                let _ = write!(m, "_ => {d},\n}} }}");
                m
            }
            St::Apply(t) => match self.table(*t) {
                Some(f) => format!("{{ let _ = {f}; Flow::Normal }}"),
                None => self.fallback_st(s),
            },
            St::SwitchAction(t, bodies, default) => {
                let Some(f) = self.table(*t) else {
                    return self.fallback_st(s);
                };
                let mut m = format!(
                    "{{ let (_, pos) = {f}; if cx.exiting() {{ Flow::Exit }} else {{ match pos {{\n"
                );
                for (p, b) in bodies.iter().enumerate() {
                    if let Some(b) = b {
                        let b = self.block(b);
                        let _ = writeln!(m, "Some({p}) => {b},");
                    }
                }
                let d = self.block(default);
                let _ = write!(m, "_ => {d},\n}} }} }}");
                m
            }
            St::Call(call) => {
                if let Some(code) = self.call_in_place(call) {
                    return code;
                }
                let a = self.block(&call.0);
                let b = self.block(&call.1);
                format!(
                    "{{ let f: Flow = {a}; let exiting = cx.begin_copy_out(); let g: Flow = {b}; \
                     cx.end_copy_out(exiting); if matches!(f, Flow::Normal) {{ g }} else {{ f }} }}"
                )
            }
            St::RunAction(a) => {
                if self.prog.actions.get(*a as usize).is_none() {
                    return "Flow::Normal".into();
                }
                run_body(&self.action(*a))
            }
            St::RunBody(b) => {
                if self.prog.bodies.get(*b as usize).is_none() {
                    return "Flow::Normal".into();
                }
                match self.body_fn(*b) {
                    Some(f) => run_body(&f),
                    None => self.fallback_st(s),
                }
            }
            St::Exit => "{ cx.exit(); Flow::Exit }".into(),
            St::Return => "Flow::Return".into(),
            St::Extract(h) => match self.extract(h) {
                Some(code) => code,
                None => self.fallback_st(s),
            },
            St::Verify(c, e) => {
                let c = self.ex(c);
                let e = self.ex(e);
                format!("if {c} == 0 {{ Flow::Reject({e}) }} else {{ Flow::Normal }}")
            }
            St::Emit(refs) => {
                let mut code = String::from("{\n");
                for h in refs {
                    if h.stack.is_some() || h.fields.iter().any(|f| f.wide) {
                        let f = self.fallback_st(&St::Emit(vec![h.clone()]));
                        let _ = writeln!(code, "let _ = {f};");
                    } else if bytewise(h) {
                        // whole bytes: the header's bytes built at constant
                        // offsets, appended at once
                        let nb = h.bits / 8;
                        let _ = writeln!(
                            code,
                            "if cx.ld({}) != 0 {{\nlet mut b = [0u8; {nb}];",
                            h.valid
                        );
                        for f in h.fields.iter() {
                            let slot = h.base_n + f.offset;
                            let (o, r) = (f.at / 8, f.at % 8);
                            if r == 0 && f.width.is_multiple_of(8) {
                                let k = f.width / 8;
                                let _ = writeln!(
                                    code,
                                    "b[{o}..{}].copy_from_slice(&cx.ld({slot}).to_be_bytes()[{}..]);",
                                    o + k,
                                    8 - k
                                );
                                continue;
                            }
                            // the field's bits at the top of a 64- or
                            // 128-bit word, ORed into the bytes it spans
                            let (span, ty, top) = spanning_word(r, f.width);
                            let _ = write!(
                                code,
                                "{{ let x = ({ty}::from(cx.ld({slot}) & {}) << {}).to_be_bytes();",
                                mask(f.width),
                                top - r - f.width
                            );
                            for k in 0..span {
                                let _ = write!(code, " b[{}] |= x[{k}];", o + k);
                            }
                            code.push_str(" }\n");
                        }
                        code.push_str("cx.push_bytes(&b);\n}\n");
                    } else {
                        let _ = writeln!(code, "if cx.ld({}) != 0 {{", h.valid);
                        for f in h.fields.iter() {
                            let _ = writeln!(
                                code,
                                "let v = cx.ld({}); cx.push(v, {});",
                                h.base_n + f.offset,
                                f.width
                            );
                        }
                        code.push_str("}\n");
                    }
                }
                code.push_str("Flow::Normal }");
                code
            }
            _ => {
                let checksum = matches!(s, St::Extern(c) if matches!(
                    **c,
                    ExternCall::VerifyChecksum { .. } | ExternCall::UpdateChecksum { .. }
                ));
                if self.pure_st(s) || checksum {
                    // a checksum changes no control flow: [`Self::pure`]
                    // spells it out (or falls back)
                    let mut code = String::from("{\n");
                    self.pure(s, &mut code);
                    code.push_str("Flow::Normal }");
                    code
                } else {
                    self.fallback_st(s)
                }
            }
        }
    }

    /// An extract outside stacks with narrow fields only.
    fn extract(&mut self, h: &HeaderRef) -> Option<String> {
        if h.stack.is_some() || h.fields.iter().any(|f| f.wide) {
            return None;
        }
        let too_short = self.prog.error_code("PacketTooShort").unwrap_or(0);
        let bits = h.bits as usize;
        // every field in a u64: read from the header's bytes at once when
        // the header starts on a byte
        let narrow = h.fields.iter().all(|f| f.width > 0 && f.width <= 64);
        let mut code = format!(
            "{{ let start = cx.cursor(); let pkt = cx.pkt();\n\
             if start + {bits} > pkt.len() * 8 {{ Flow::Reject({too_short}) }} else {{\n"
        );
        let slow: String = h
            .fields
            .iter()
            .map(|f| {
                format!(
                    "cx.st({}, p4sim::exec::native::read_bits(pkt, start + {}, {}));\n",
                    h.base_n + f.offset,
                    f.at,
                    f.width
                )
            })
            .collect();
        if narrow {
            let nb = bits.div_ceil(8);
            let _ = writeln!(
                code,
                "let whole: Option<&[u8; {nb}]> = if start % 8 == 0 {{ \
                 pkt.get(start / 8..start / 8 + {nb}).and_then(|b| b.try_into().ok()) }} else {{ None }};\n\
                 if let Some(b) = whole {{"
            );
            for f in h.fields.iter() {
                let i = (f.at / 8) as usize;
                let r = f.at % 8;
                let slot = h.base_n + f.offset;
                if r != 0 || !f.width.is_multiple_of(8) {
                    // the bytes the field spans, at the top of a 64- or
                    // 128-bit word, shifted down and masked
                    let (span, ty, top) = spanning_word(r, f.width);
                    let bytes: Vec<String> = (0..top / 8)
                        .map(|k| {
                            if k < span {
                                format!("b[{}]", i + k as usize)
                            } else {
                                "0".into()
                            }
                        })
                        .collect();
                    let _ = writeln!(
                        code,
                        "cx.st({slot}, ({ty}::from_be_bytes([{}]) >> {}) as u64 & {});",
                        bytes.join(", "),
                        top - r - f.width,
                        mask(f.width)
                    );
                    continue;
                }
                let v = match f.width {
                    8 => format!("u64::from(b[{i}])"),
                    16 => format!("u64::from(u16::from_be_bytes([b[{i}], b[{}]]))", i + 1),
                    32 => format!(
                        "u64::from(u32::from_be_bytes([b[{i}], b[{}], b[{}], b[{}]]))",
                        i + 1,
                        i + 2,
                        i + 3
                    ),
                    w => {
                        let bytes: Vec<String> = (0..w / 8)
                            .map(|k| format!("b[{}]", i + k as usize))
                            .collect();
                        let pad: Vec<&str> = (0..8 - w / 8).map(|_| "0").collect();
                        let all: Vec<String> =
                            pad.iter().map(|s| s.to_string()).chain(bytes).collect();
                        format!("u64::from_be_bytes([{}])", all.join(", "))
                    }
                };
                let _ = writeln!(code, "cx.st({slot}, {v});");
            }
            let _ = writeln!(code, "}} else {{\n{slow}}}");
        } else {
            code.push_str(&slow);
        }
        let _ = write!(
            code,
            "cx.set_cursor(start + {bits}); cx.st({}, 1); Flow::Normal }} }}",
            h.valid
        );
        Some(code)
    }

    /// The name of the function running action `a`, generating it first;
    /// counts a call from the current function.
    fn action(&mut self, a: u32) -> String {
        let name = format!("action_{a}");
        let f = match self.actions.get(a as usize) {
            Some(Done::At(f)) => *f,
            Some(Done::Todo) => {
                let f = self.begin_fn(
                    format!("fn {name}(cx: &mut C<'_, '_>) -> Flow {{\n    @DECLS@"),
                    "\n}\n".into(),
                    Kind::Called,
                );
                self.actions[a as usize] = Done::At(f);
                let prog = self.prog;
                let body = prog
                    .actions
                    .get(a as usize)
                    .map(|act| self.block(&act.body))
                    .unwrap_or_else(|| "Flow::Normal".into());
                self.end_fn(f, body);
                f
            }
            None => return name,
        };
        self.called(f);
        name
    }

    /// A call of a control or function body whose parameters are all
    /// `inout` or narrow `out` ([`in_place_params`]) from the one place in
    /// the program that runs that body, generated with the parameters
    /// kept in place:
    /// the body and every function generated for it (its tables, actions,
    /// inner calls) use the arguments' slots instead of the parameters',
    /// and neither the copy-in nor the copy-out is made (an `out`
    /// argument is zeroed instead). P4 passes parameters by copy, and
    /// this is the same as long as nothing in the body
    /// reaches the arguments but through the parameters, which no P4
    /// construct can, and the arguments do not overlap (checked). `None`
    /// when the call does not qualify or the body needs a fallback (which
    /// runs the program's statements, with the parameters' slots).
    fn call_in_place(&mut self, call: &(Vec<St>, Vec<St>)) -> Option<String> {
        let (map, zeroed) = in_place_params(call)?;
        let Some(St::RunBody(b)) = call.0.last() else {
            return None;
        };
        if self.body_sites.get(*b as usize) != Some(&1)
            || !matches!(self.bodies.get(*b as usize), Some(Done::Todo))
        {
            return None;
        }
        let (first_fn, fb_st, fb_ex) = (self.fns.len(), self.fb_st.len(), self.fb_ex.len());
        let f = self.body_fn(*b)?;
        if self.fb_st.len() != fb_st || self.fb_ex.len() != fb_ex {
            // leave the body as generated: the copies go round it
            return self.call_with_copies(call, &f);
        }
        let renamed: Option<Vec<String>> = self.fns[first_fn..]
            .iter()
            .map(|x| rename_slots(&x.text, &map))
            .collect();
        let Some(renamed) = renamed else {
            return self.call_with_copies(call, &f);
        };
        for (x, text) in self.fns[first_fn..].iter_mut().zip(renamed) {
            x.text = text;
        }
        self.mark_in_place(&map);
        // the copying form's code with nothing to copy but the `out`
        // arguments' zeroing (the flow flags settled the same way)
        let zero: Vec<St> = zeroed.iter().map(|&a| St::Set(a, Ex::Const(0))).collect();
        let a = self.block_then(&zero, Some(&f));
        Some(format!(
            "{{ let f: Flow = {a}; let exiting = cx.begin_copy_out(); \
             cx.end_copy_out(exiting); f }}"
        ))
    }

    /// A call as [`Self::st`] generates it, its body (function `f`)
    /// already generated.
    fn call_with_copies(&mut self, call: &(Vec<St>, Vec<St>), f: &str) -> Option<String> {
        let (_, ins) = call.0.split_last()?;
        let a = self.block_then(ins, Some(f));
        let b = self.block(&call.1);
        Some(format!(
            "{{ let f: Flow = {a}; let exiting = cx.begin_copy_out(); let g: Flow = {b}; \
             cx.end_copy_out(exiting); if matches!(f, Flow::Normal) {{ g }} else {{ f }} }}"
        ))
    }

    /// Keeps the slots of an in-place call's parameters and arguments in
    /// the frame, as the copies would have.
    fn mark_in_place(&mut self, map: &[(u32, u32, u32)]) {
        for &(p, a, len) in map {
            for s in (p..p + len).chain(a..a + len) {
                self.external_slot(s);
            }
        }
    }

    /// The function running body `b`, generating it first, and counts a
    /// call; `None` while it is being generated (recursion, which P4
    /// forbids).
    fn body_fn(&mut self, b: u32) -> Option<String> {
        let name = format!("body_{b}");
        let f = match self.bodies.get(b as usize)? {
            Done::At(f) if self.cur.contains(f) => return None,
            Done::At(f) => *f,
            Done::Todo => {
                let f = self.begin_fn(
                    format!("fn {name}(cx: &mut C<'_, '_>) -> Flow {{\n    @DECLS@"),
                    "\n}\n".into(),
                    Kind::Called,
                );
                self.bodies[b as usize] = Done::At(f);
                let prog = self.prog;
                let body = match prog.bodies.get(b as usize) {
                    Some(sts) => self.block(sts),
                    None => "Flow::Normal".into(),
                };
                self.end_fn(f, body);
                f
            }
        };
        self.called(f);
        Some(name)
    }

    /// An expression applying table `t` and giving `(hit, position)`;
    /// `None` when the interpreter applies it (wide or more than 8 keys,
    /// as in the closure engine) or it does not exist.
    fn table(&mut self, t: u32) -> Option<String> {
        let i = t as usize;
        let prog = self.prog;
        let table = prog.tables.get(i)?;
        let f = match self.tables[i] {
            Some(Some(f)) => f,
            Some(None) => return None,
            None if table.keys.len() > 8 || table.keys.iter().any(|k| k.width > 64) => {
                self.tables[i] = Some(None);
                return None;
            }
            None => {
                let f = self.begin_fn(
                    format!(
                        "fn table_{t}(cx: &mut C<'_, '_>) -> (bool, Option<usize>) {{\n    @DECLS@"
                    ),
                    "}\n".into(),
                    Kind::Called,
                );
                self.tables[i] = Some(Some(f));
                let keys: Vec<String> = table
                    .keys
                    .iter()
                    .map(|k| format!("u128::from({})", self.ex(&k.ex)))
                    .collect();
                let lookup = if TableState::packs(table) {
                    // packed here as TableState::pack_values does
                    let mut packed = String::from("let mut key: u128 = 0;\n");
                    for (k, v) in table.keys.iter().zip(&keys) {
                        let _ = writeln!(
                            packed,
                            "    key = (key << {}) | ({v} & {});",
                            k.width,
                            crate::exec::table::width_mask(k.width)
                        );
                    }
                    format!("{packed}    let (hit, pos) = cx.lookup_packed({t}, key);")
                } else {
                    format!(
                        "let keys: [u128; {n}] = [{keys}];\n    \
                         let (hit, pos) = cx.lookup({t}, &keys);",
                        n = keys.len(),
                        keys = keys.join(", ")
                    )
                };
                let mut arms = String::new();
                for (p, ta) in table.actions.iter().enumerate() {
                    if prog.actions.get(ta.action as usize).is_none() {
                        continue;
                    }
                    let a = self.action(ta.action);
                    let _ = writeln!(arms, "Some({p}) => {{ let _ = {a}(cx); }}");
                }
                let text = format!(
                    "{lookup}\n    \
                     match pos {{\n{arms}_ => {{}}\n    }}\n    cx.end_action();\n    (hit, pos)\n"
                );
                self.end_fn(f, text);
                f
            }
        };
        self.called(f);
        Some(format!("table_{t}(cx)"))
    }

    /// A narrow expression, as Rust of type `u64`.
    fn ex(&mut self, e: &Ex) -> String {
        match e {
            Ex::Const(c) => format!("{c}u64"),
            Ex::Load(s) => format!("cx.ld({s})"),
            Ex::Bin(op, w, ab) => {
                let a = self.ex(&ab.0);
                let b = self.ex(&ab.1);
                bin(*op, *w, &a, &b)
            }
            Ex::BitNot(w, a) => format!("(!({}) & {})", self.ex(a), mask(*w)),
            Ex::Neg(w, a) => format!("(({}).wrapping_neg() & {})", self.ex(a), mask(*w)),
            Ex::Not(a) => format!("u64::from({} == 0)", self.ex(a)),
            Ex::Mask(w, a) => format!("(({}) & {})", self.ex(a), mask(*w)),
            Ex::SExt(from, to, a) => format!(
                "(p4sim::exec::native::sext({}, {from}) & {})",
                self.ex(a),
                mask(*to)
            ),
            Ex::Slice(hi, lo, a) if *lo < 64 && hi >= lo => {
                format!("((({}) >> {lo}) & {})", self.ex(a), mask(hi - lo + 1))
            }
            Ex::Concat(bw, ab) => {
                let a = self.ex(&ab.0);
                let b = self.ex(&ab.1);
                if *bw >= 64 {
                    format!("{{ let _ = {a}; {b} }}")
                } else {
                    format!("{{ let x: u64 = {a}; let y: u64 = {b}; (x << {bw}) | y }}")
                }
            }
            Ex::Cond(abc) => {
                let c = self.ex(&abc.0);
                let a = self.ex(&abc.1);
                let b = self.ex(&abc.2);
                format!("(if {c} != 0 {{ {a} }} else {{ {b} }})")
            }
            Ex::Seq(se) => {
                let body = self.block(&se.0);
                let e = self.ex(&se.1);
                format!("{{ if let Flow::Reject(r) = {body} {{ cx.set_reject(r); }} {e} }}")
            }
            Ex::TableHit(t) | Ex::TableMiss(t) => {
                let hit = matches!(e, Ex::TableHit(_));
                match self.table(*t) {
                    Some(f) => format!("u64::from({f}.0 == {hit})"),
                    None => format!("u64::from(cx.apply_interpreted({t}).0 == {hit})"),
                }
            }
            Ex::PacketLength => "cx.pkt_len()".into(),
            other => self.fallback_ex(other),
        }
    }
}

/// A narrow binary operation on two operand expressions, evaluated in
/// order (both, except for `&&` and `||`).
fn bin(op: NOp, w: u32, a: &str, b: &str) -> String {
    let m = mask(w);
    let v = match op {
        NOp::Add => format!("x.wrapping_add(y) & {m}"),
        NOp::Sub => format!("x.wrapping_sub(y) & {m}"),
        NOp::And => "x & y".into(),
        NOp::Or => "x | y".into(),
        NOp::Xor => "x ^ y".into(),
        NOp::Eq => "u64::from(x == y)".into(),
        NOp::Ne => "u64::from(x != y)".into(),
        NOp::LtU => "u64::from(x < y)".into(),
        NOp::LeU => "u64::from(x <= y)".into(),
        NOp::LAnd => return format!("u64::from({a} != 0 && {b} != 0)"),
        NOp::LOr => return format!("u64::from({a} != 0 || {b} != 0)"),
        op => format!("p4sim::exec::native::nop(NOp::{op:?}, {w}, x, y)"),
    };
    format!("{{ let x: u64 = {a}; let y: u64 = {b}; {v} }}")
}

/// For a field of `width` bits (at most 64) starting `r` bits into a
/// byte: the bytes it spans, and the word (type, bits) that holds them,
/// the field at its top: a `u64`, or a `u128` past eight bytes.
fn spanning_word(r: u32, width: u32) -> (u32, &'static str, u32) {
    let span = (r + width).div_ceil(8);
    if span <= 8 {
        (span, "u64", 64)
    } else {
        (span, "u128", 128)
    }
}

/// Whether header `h` (narrow fields, no stack) is whole bytes, its
/// fields back to back, at most 4 KiB: emitted as one byte array.
fn bytewise(h: &HeaderRef) -> bool {
    let mut at = 0;
    for f in h.fields.iter() {
        if f.at != at || f.width == 0 || f.width > 64 {
            return false;
        }
        at += f.width;
    }
    at == h.bits && h.bits.is_multiple_of(8) && h.bits > 0 && h.bits <= 8 * 4096
}

/// The call of a generated action or body function `f`, as a `Flow`
/// expression: its `return` ends only it.
fn run_body(f: &str) -> String {
    format!("{{ let f = {f}(cx); if matches!(f, Flow::Return) {{ Flow::Normal }} else {{ f }} }}")
}

/// How many statements anywhere in `prog` (parser, stages, bodies,
/// actions) run each body.
fn body_sites(prog: &Compiled) -> Vec<usize> {
    fn walk(sts: &[St], out: &mut Vec<usize>) {
        for s in sts {
            match s {
                St::RunBody(b) => {
                    if let Some(n) = out.get_mut(*b as usize) {
                        *n += 1;
                    }
                }
                St::If(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                St::Block(b) => walk(b, out),
                St::Switch(_, arms, d) => {
                    for (_, b) in arms {
                        walk(b, out);
                    }
                    walk(d, out);
                }
                St::SwitchAction(_, arms, d) => {
                    for b in arms.iter().flatten() {
                        walk(b, out);
                    }
                    walk(d, out);
                }
                St::Call(c) => {
                    walk(&c.0, out);
                    walk(&c.1, out);
                }
                St::Loop(l) => {
                    walk(&l.body, out);
                    walk(&l.update, out);
                }
                _ => {}
            }
        }
    }
    let mut out = vec![0; prog.bodies.len()];
    walk(&prog.parser_init, &mut out);
    for s in &prog.parser {
        walk(&s.body, &mut out);
    }
    for b in [
        &prog.verify_checksum,
        &prog.ingress,
        &prog.egress,
        &prog.compute_checksum,
        &prog.deparser,
    ] {
        walk(b, &mut out);
    }
    for b in &prog.bodies {
        walk(b, &mut out);
    }
    for a in &prog.actions {
        walk(&a.body, &mut out);
    }
    out
}

/// The parameters of a call that can stay in place
/// ([`Generator::call_in_place`]): `(parameter, argument, length)` of
/// each, and the arguments of the `out` ones, which start at zero. The
/// call must copy every parameter in from its argument (`inout`) or zero
/// it (a narrow `out`), run one body, and copy every parameter back out
/// to its argument; narrow slots only, and no two of the ranges
/// overlapping. An `in` parameter does not qualify (the body may write
/// it).
type InPlace = (Vec<(u32, u32, u32)>, Vec<u32>);

fn in_place_params(call: &(Vec<St>, Vec<St>)) -> Option<InPlace> {
    let pair = |s: &St| match s {
        St::Copy(c) if c.w_len == 0 && c.n_len > 0 => Some((c.n_dst, c.n_src, c.n_len)),
        St::Mov(d, a) | St::Set(d, Ex::Load(a)) => Some((*d, *a, 1)),
        _ => None,
    };
    let (last, ins) = call.0.split_last()?;
    if !matches!(last, St::RunBody(_)) {
        return None;
    }
    let outs: Vec<(u32, u32, u32)> = call.1.iter().map(pair).collect::<Option<_>>()?;
    if outs.is_empty() {
        return None;
    }
    let mut map = Vec::with_capacity(ins.len());
    let mut zeroed = Vec::new();
    for s in ins {
        match s {
            St::Set(p, Ex::Const(0)) => {
                // an `out` parameter: its argument is zeroed instead
                let &(a, _, _) = outs.iter().find(|&&(_, q, l)| q == *p && l == 1)?;
                map.push((*p, a, 1));
                zeroed.push(a);
            }
            s => {
                let (p, a, l) = pair(s)?;
                if !outs.contains(&(a, p, l)) {
                    return None;
                }
                map.push((p, a, l));
            }
        }
    }
    if map.len() != outs.len() {
        return None;
    }
    let ins = map;
    let mut ranges: Vec<(u32, u32)> = ins
        .iter()
        .flat_map(|&(p, a, l)| [(p, p.checked_add(l)), (a, a.checked_add(l))])
        .map(|(s, e)| e.map(|e| (s, e)))
        .collect::<Option<_>>()?;
    ranges.sort_unstable();
    if ranges.windows(2).any(|w| w[0].1 > w[1].0) {
        return None;
    }
    Some((ins, zeroed))
}

/// `text` with every slot of a parameter in `map` (`(parameter, argument,
/// length)`) replaced by its argument's: in `cx.ld(n)`, `cx.st(n, ..)`
/// and `cx.copy(dst, src, len)`. `None` when a copy covers part of a
/// parameter, or the text reaches slots some other way (a fallback to the
/// closures or the interpreter, which run the program's statements).
fn rename_slots(text: &str, map: &[(u32, u32, u32)]) -> Option<String> {
    if ["cx.stmt(", "cx.eval(", "cx.apply_interpreted("]
        .iter()
        .any(|p| text.contains(p))
    {
        return None;
    }
    let slot = |n: u32| {
        map.iter()
            .find(|&&(p, _, l)| n >= p && n < p + l)
            .map_or(n, |&(p, a, _)| a + (n - p))
    };
    // a range [s, s + len): inside one parameter, or clear of all of them
    let range = |s: u32, len: u32| -> Option<u32> {
        let e = s.checked_add(len)?;
        match map.iter().find(|&&(p, _, l)| s < p + l && p < e) {
            None => Some(s),
            Some(&(p, a, l)) if s >= p && e <= p + l => Some(a + (s - p)),
            Some(_) => None,
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["cx.ld(", "cx.st(", "cx.copy("]
            .iter()
            .filter_map(|p| rest.find(p).map(|i| (i, *p)))
            .min();
        let Some((i, pat)) = next else {
            out.push_str(rest);
            return Some(out);
        };
        out.push_str(&rest[..i + pat.len()]);
        rest = &rest[i + pat.len()..];
        let number = |r: &str| -> Option<(u32, usize)> {
            let end = r.find(|c: char| !c.is_ascii_digit())?;
            Some((r[..end].parse().ok()?, end))
        };
        if pat == "cx.copy(" {
            // `cx.copy(dst, src, len)`
            let (d, e1) = number(rest)?;
            let r2 = rest.get(e1 + 2..)?;
            let (s, e2) = number(r2)?;
            let r3 = r2.get(e2 + 2..)?;
            let (len, e3) = number(r3)?;
            let _ = write!(out, "{}, {}, {len}", range(d, len)?, range(s, len)?);
            rest = &r3[e3..];
        } else {
            let (n, end) = number(rest)?;
            let _ = write!(out, "{}", slot(n));
            rest = &rest[end..];
        }
    }
}

/// The slots of the `cx.ld(n)` and `cx.st(n, ...)` in `text`.
fn slots_in(text: &str) -> std::collections::BTreeSet<u32> {
    let mut out = std::collections::BTreeSet::new();
    for pat in ["cx.ld(", "cx.st("] {
        let mut rest = text;
        while let Some(i) = rest.find(pat) {
            rest = &rest[i + pat.len()..];
            let digits: &str = &rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(0)];
            if let Ok(n) = digits.parse() {
                out.insert(n);
            }
        }
    }
    out
}

/// Appends `text` to `out` with `cx.ld(n)` as `s<n>` and `cx.st(n, e)` as
/// `(s<n> = e)` for the slots for which `local` holds.
fn resolve(text: &str, local: &dyn Fn(u32) -> bool, out: &mut String) {
    let mut rest = text;
    loop {
        let next = ["cx.ld(", "cx.st("]
            .iter()
            .filter_map(|p| rest.find(p).map(|i| (i, *p)))
            .min();
        let Some((i, pat)) = next else {
            out.push_str(rest);
            return;
        };
        out.push_str(&rest[..i]);
        let after = &rest[i + pat.len()..];
        let end = after.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
        let slot: Option<u32> = after[..end].parse().ok();
        match slot.filter(|&n| local(n)) {
            Some(n) if pat == "cx.ld(" => {
                // `cx.ld(n)`: the digits then `)`
                let _ = write!(out, "s{n}");
                rest = &after[end + 1..];
            }
            Some(n) => {
                // `cx.st(n, e)`: e runs to the matching `)`
                let body = &after[end + 2..];
                let mut depth = 0usize;
                let mut close = body.len();
                for (k, c) in body.char_indices() {
                    match c {
                        '(' | '[' | '{' => depth += 1,
                        ')' | ']' | '}' if depth == 0 => {
                            close = k;
                            break;
                        }
                        ')' | ']' | '}' => depth -= 1,
                        _ => {}
                    }
                }
                let _ = write!(out, "(s{n} = ");
                resolve(&body[..close], local, out);
                out.push(')');
                rest = &body[(close + 1).min(body.len())..];
            }
            None => {
                out.push_str(pat);
                rest = after;
            }
        }
    }
}

/// Marks every narrow slot that the statements and expressions handed to
/// the closure engine may touch, following bodies, actions and tables.
struct Refs<'p, 'x> {
    prog: &'p Compiled,
    ext: &'x mut Vec<bool>,
    bodies: Vec<bool>,
    actions: Vec<bool>,
    tables: Vec<bool>,
}

impl Refs<'_, '_> {
    fn slot(&mut self, s: u32) {
        if let Some(x) = self.ext.get_mut(s as usize) {
            *x = true;
        }
    }

    fn range(&mut self, base: u32, count: u32) {
        for s in base..base.saturating_add(count) {
            self.slot(s);
        }
    }

    fn block(&mut self, b: &[St]) {
        for s in b {
            self.st(s);
        }
    }

    fn dyn_(&mut self, d: &Dyn) {
        self.ex(&d.index);
        self.range(d.base_n, d.stride_n.saturating_mul(d.count));
    }

    fn target(&mut self, t: &Target) {
        match t {
            Target::N(s, _) => self.slot(*s),
            Target::W(..) => {}
            Target::DynN(d, ..) | Target::DynW(d, ..) => self.dyn_(d),
        }
    }

    fn leaves(&mut self, l: &[Leaf]) {
        for x in l {
            self.ex(&x.ex);
            if let Some(v) = &x.valid {
                self.ex(v);
            }
        }
    }

    fn header(&mut self, h: &HeaderRef) {
        self.slot(h.valid);
        for f in h.fields.iter().filter(|f| !f.wide) {
            self.slot(h.base_n + f.offset);
        }
        for len in h.fields.iter().filter_map(|f| f.varbit_len) {
            self.slot(h.base_n + len);
        }
        if let Some(st) = &h.stack {
            self.range(st.base_n, st.stride_n.saturating_mul(st.count));
            self.slot(st.next_index);
            if let StackWhich::Index(e) = &st.which {
                self.ex(e);
            }
        }
    }

    fn table(&mut self, t: u32) {
        let i = t as usize;
        if self.tables.get(i).is_none_or(|&seen| seen) {
            return;
        }
        self.tables[i] = true;
        let prog = self.prog;
        let Some(table) = prog.tables.get(i) else {
            return;
        };
        for k in &table.keys {
            self.ex(&k.ex);
        }
        for ta in &table.actions {
            self.action(ta.action);
        }
    }

    fn action(&mut self, a: u32) {
        let i = a as usize;
        if self.actions.get(i).is_none_or(|&seen| seen) {
            return;
        }
        self.actions[i] = true;
        let prog = self.prog;
        if let Some(act) = prog.actions.get(i) {
            for p in &act.params {
                self.slot(p.slot);
            }
            self.block(&act.body);
        }
    }

    fn st(&mut self, s: &St) {
        match s {
            St::Set(d, e) => {
                self.slot(*d);
                self.ex(e);
            }
            St::SetW(_, e) => self.ex(e),
            St::SetDyn(d, _, e) | St::SetDynW(d, _, e) => {
                self.dyn_(d);
                self.ex(e);
            }
            St::If(c, a, b) => {
                self.ex(c);
                self.block(a);
                self.block(b);
            }
            St::Block(b) => self.block(b),
            St::Switch(e, arms, d) => {
                self.ex(e);
                for (_, b) in arms {
                    self.block(b);
                }
                self.block(d);
            }
            St::Apply(t) => self.table(*t),
            St::SwitchAction(t, arms, d) => {
                self.table(*t);
                for b in arms.iter().flatten() {
                    self.block(b);
                }
                self.block(d);
            }
            St::Call(c) => {
                self.block(&c.0);
                self.block(&c.1);
            }
            St::RunAction(a) => self.action(*a),
            St::RunBody(b) => {
                let i = *b as usize;
                if self.bodies.get(i).is_none_or(|&seen| seen) {
                    return;
                }
                self.bodies[i] = true;
                let prog = self.prog;
                if let Some(b) = prog.bodies.get(i) {
                    self.block(b);
                }
            }
            St::Exit | St::Return | St::Break | St::Continue => {}
            St::Loop(l) => {
                self.ex(&l.cond);
                self.block(&l.body);
                self.block(&l.update);
            }
            St::Extract(h) => self.header(h),
            St::ExtractVar(h, bits) => {
                self.header(h);
                self.ex(bits);
            }
            St::Advance(e) => self.ex(e),
            St::Verify(c, e) => {
                self.ex(c);
                self.ex(e);
            }
            St::Emit(hs) => {
                for h in hs {
                    self.header(h);
                }
            }
            St::StackShift(sh) => {
                self.range(sh.base_n, sh.stride_n.saturating_mul(sh.count));
                self.slot(sh.next_index);
            }
            St::Copy(c) => {
                self.range(c.n_dst, c.n_len);
                self.range(c.n_src, c.n_len);
            }
            St::Extern(call) => match &**call {
                ExternCall::RegisterRead { dst, index, .. } => {
                    self.target(dst);
                    self.ex(index);
                }
                ExternCall::RegisterWrite { index, value, .. } => {
                    self.ex(index);
                    self.ex(value);
                }
                ExternCall::Count { index, .. } => self.ex(index),
                ExternCall::ExecuteMeter { index, dst, .. } => {
                    self.ex(index);
                    self.target(dst);
                }
                ExternCall::DirectMeterRead { dst, .. } => self.target(dst),
                ExternCall::Hash {
                    dst,
                    base,
                    data,
                    max,
                    ..
                } => {
                    self.target(dst);
                    self.ex(base);
                    self.leaves(data);
                    self.ex(max);
                }
                ExternCall::Random { dst, lo, hi } => {
                    self.target(dst);
                    self.ex(lo);
                    self.ex(hi);
                }
                ExternCall::VerifyChecksum {
                    cond,
                    data,
                    checksum,
                    ..
                } => {
                    self.ex(cond);
                    self.leaves(data);
                    self.ex(checksum);
                }
                ExternCall::UpdateChecksum {
                    cond, data, dst, ..
                } => {
                    self.ex(cond);
                    self.leaves(data);
                    self.target(dst);
                }
                ExternCall::Clone { session, .. } => self.ex(session),
                ExternCall::Resubmit(_) | ExternCall::Recirculate(_) => {}
                ExternCall::Truncate(e) => self.ex(e),
                ExternCall::Digest { receiver, data } => {
                    self.ex(receiver);
                    self.leaves(data);
                }
                ExternCall::Assert { cond, .. } => self.ex(cond),
                ExternCall::Log { data, .. } => self.leaves(data),
            },
            St::Mov(d, a) => {
                self.slot(*d);
                self.slot(*a);
            }
            St::BinSlots(_, _, d, a, b) => {
                self.slot(*d);
                self.slot(*a);
                self.slot(*b);
            }
            St::BinSlotConst(_, _, d, a, _) => {
                self.slot(*d);
                self.slot(*a);
            }
            St::RegReadSlot { dst, index, .. } => {
                self.slot(*dst);
                self.slot(*index);
            }
            St::RegRmwSlot {
                index,
                tmp,
                operand,
                ..
            } => {
                self.slot(*index);
                self.slot(*tmp);
                self.slot(*operand);
            }
            St::RegWriteSlot { index, value, .. } => {
                self.slot(*index);
                self.slot(*value);
            }
        }
    }

    fn ex(&mut self, e: &Ex) {
        match e {
            Ex::Load(s) => self.slot(*s),
            Ex::LoadDyn(d, _) | Ex::LoadDynW(d, _, _) => self.dyn_(d),
            Ex::Seq(se) | Ex::SeqW(se) => {
                self.block(&se.0);
                self.ex(&se.1);
            }
            Ex::TableHit(t) | Ex::TableMiss(t) => self.table(*t),
            e => e.operands().for_each(|o| self.ex(o)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::csum16_bits;
    use crate::exec::hash::csum16;
    use crate::exec::narrow::BitWriter;

    /// The bit-at-a-time sum equals the byte one on the bytes a
    /// `BitWriter` makes, for leaves of every width, odd totals, partial
    /// last bytes and left-out leaves.
    #[test]
    fn csum16_of_bits_equals_csum16_of_the_packed_bytes() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..5_000 {
            let count = (next() % 12) as usize;
            let leaves: Vec<(u64, u32, bool)> = (0..count)
                .map(|_| {
                    let w = (next() % 64 + 1) as u32;
                    let v = next() & crate::exec::narrow::mask(w);
                    (v, w, next() % 5 != 0)
                })
                .collect();
            let mut bw = BitWriter::with_buffer(Vec::new());
            for &(v, w, included) in &leaves {
                if included {
                    bw.push(v, w);
                }
            }
            let bytes = bw.finish();
            assert_eq!(
                csum16_bits(&leaves),
                csum16(&bytes),
                "case {case}: {leaves:?}"
            );
        }
        // a known IPv4 header (RFC 1071 style example): checksum field 0
        let ipv4 = [
            (4, 4, true),
            (5, 4, true),
            (0, 8, true),
            (0x0073, 16, true),
            (0, 16, true),
            (0x4000, 16, true),
            (0x40, 8, true),
            (0x11, 8, true),
            (0, 16, true),
            (0xc0a8_0001, 32, true),
            (0xc0a8_00c7, 32, true),
        ];
        assert_eq!(csum16_bits(&ipv4), 0xb861);
    }
}
