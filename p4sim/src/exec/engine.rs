//! The compiled engine: the [`crate::ir`] lowered once, when a switch is
//! built, into a tree of closures ("closure compilation").
//!
//! Every statement becomes a boxed `Fn(&mut Exec) -> Flow` and every narrow
//! expression a boxed `Fn(&mut Exec) -> u64`, with the decisions the
//! interpreter takes per packet taken once here: which operator (each
//! operator and operand shape has its own closure, so a `+` on a slot and a
//! constant is one indirect call that adds), slot numbers and masks as
//! captured constants, header layouts of `extract` and `emit` as flat
//! (slot, bit offset, width) lists, error codes looked up, table keys
//! evaluated straight into the packed lookup, the slots of each action's
//! control-plane parameters resolved, and action and function bodies
//! linked directly (no lookup by index per call).
//!
//! The closures run on the interpreter's own context (`exec::interp::Exec`), so
//! anything this module does not lower — wide (more than 64-bit)
//! expressions, header stacks, most externs — is handed to the interpreter
//! for that statement or expression only, with identical results and the
//! same control-flow flags (`exit`, `return`, parser `reject`).
//!
//! The native engine's fallbacks are lowered here too; what the two share
//! (the closure types, the straight-line rule, the run-time helpers their
//! code calls) is in `exec::lowering`, below both, and the native code
//! bound to a program ([`CompiledProgram::with_native`]) runs instead of
//! the closures.

use std::sync::Arc;

use crate::exec::cells::RegisterCells;
use crate::exec::interp::Exec;
use crate::exec::lowering::{ExFn, StFn, copy_args, hash_bits, pure_st, slot_leaves};
use crate::exec::narrow::{eval_nop, mask, read_bits, sext};
use crate::exec::state::{Flow, Stage};
use crate::ir::*;

type Block = Arc<[StFn]>;
/// A statement that cannot change control flow (no `exit`, `return`,
/// reject or table apply anywhere in it): runs without flow checks.
type OpFn = Box<dyn Fn(&mut Exec<'_>) + Send + Sync>;

#[inline(always)]
fn ld(ex: &Exec<'_>, s: usize) -> u64 {
    ex.n.get(s).copied().unwrap_or(0)
}

#[inline(always)]
fn stn(ex: &mut Exec<'_>, s: usize, v: u64) {
    if let Some(x) = ex.n.get_mut(s) {
        *x = v;
    }
}

/// Runs a compiled block with the interpreter's rules for `exit`, `return`
/// and parser rejects.
#[inline]
fn run_block(b: &[StFn], ex: &mut Exec<'_>) -> Flow {
    for s in b {
        let f = s(ex);
        if ex.halt {
            if ex.exit {
                return Flow::Exit;
            }
            ex.halt = false;
            if let Some(e) = ex.reject.take() {
                return Flow::Reject(e);
            }
        }
        if !matches!(f, Flow::Normal) {
            return f;
        }
    }
    Flow::Normal
}

/// The narrow binary operator `op` of width `w` on operands `a`, `b`
/// (evaluated in that order), the result handed to `$body` as `$v`.
macro_rules! by_op {
    ($op:expr, $w:expr, $a:ident, $b:ident, |$ex:ident, $v:ident| $body:expr) => {{
        let m = mask($w);
        let w = $w;
        let op = $op;
        match op {
            NOp::Add => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = x.wrapping_add(y) & m;
                $body
            }),
            NOp::Sub => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = x.wrapping_sub(y) & m;
                $body
            }),
            NOp::And => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = x & y;
                $body
            }),
            NOp::Or => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = x | y;
                $body
            }),
            NOp::Xor => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = x ^ y;
                $body
            }),
            NOp::Eq => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = u64::from(x == y);
                $body
            }),
            NOp::Ne => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = u64::from(x != y);
                $body
            }),
            NOp::LtU => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = u64::from(x < y);
                $body
            }),
            NOp::LeU => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = u64::from(x <= y);
                $body
            }),
            NOp::LAnd => Box::new(move |$ex: &mut Exec<'_>| {
                let $v = u64::from($a($ex) != 0 && $b($ex) != 0);
                $body
            }),
            NOp::LOr => Box::new(move |$ex: &mut Exec<'_>| {
                let $v = u64::from($a($ex) != 0 || $b($ex) != 0);
                $body
            }),
            _ => Box::new(move |$ex: &mut Exec<'_>| {
                let x = $a($ex);
                let y = $b($ex);
                let $v = eval_nop(op, w, x, y);
                $body
            }),
        }
    }};
}

/// Lowers the condition `$c` to a closure `$cf: Fn(&mut Exec) -> bool`
/// of its own type, so the comparison of a slot with a constant is inlined
/// into `$body`'s closure instead of being another indirect call.
macro_rules! with_cond {
    ($self:ident, $c:expr, |$cf:ident| $body:expr) => {{
        match $c {
            Ex::Bin(op @ (NOp::Eq | NOp::Ne | NOp::LtU | NOp::LeU), _, ab)
                if matches!(&**ab, (Ex::Load(_), Ex::Const(_))) =>
            {
                let (x, k) = match &**ab {
                    (Ex::Load(x), Ex::Const(k)) => (*x as usize, *k),
                    _ => (0, 0),
                };
                match op {
                    NOp::Eq => {
                        let $cf = move |ex: &mut Exec<'_>| ld(ex, x) == k;
                        $body
                    }
                    NOp::Ne => {
                        let $cf = move |ex: &mut Exec<'_>| ld(ex, x) != k;
                        $body
                    }
                    NOp::LtU => {
                        let $cf = move |ex: &mut Exec<'_>| ld(ex, x) < k;
                        $body
                    }
                    _ => {
                        let $cf = move |ex: &mut Exec<'_>| ld(ex, x) <= k;
                        $body
                    }
                }
            }
            Ex::Load(x) => {
                let x = *x as usize;
                let $cf = move |ex: &mut Exec<'_>| ld(ex, x) != 0;
                $body
            }
            Ex::Not(a) if matches!(&**a, Ex::Load(_)) => {
                let x = match &**a {
                    Ex::Load(x) => *x as usize,
                    _ => 0,
                };
                let $cf = move |ex: &mut Exec<'_>| ld(ex, x) == 0;
                $body
            }
            other => {
                let f = $self.ex(other);
                let $cf = move |ex: &mut Exec<'_>| f(ex) != 0;
                $body
            }
        }
    }};
}

trait Get: Fn(&mut Exec<'_>) -> u64 + Send + Sync + 'static {}
impl<T: Fn(&mut Exec<'_>) -> u64 + Send + Sync + 'static> Get for T {}

fn ex_bin<A: Get, B: Get>(op: NOp, w: u32, a: A, b: B) -> ExFn {
    by_op!(op, w, a, b, |ex, v| v)
}

fn op_bin<A: Get, B: Get>(d: usize, op: NOp, w: u32, a: A, b: B) -> OpFn {
    by_op!(op, w, a, b, |ex, v| stn(ex, d, v))
}

/// One op for a run of ops (the op itself when there is one).
fn seq(ops: Box<[OpFn]>) -> OpFn {
    let mut v = ops.into_vec();
    match v.len() {
        0 => Box::new(|_: &mut Exec<'_>| {}),
        1 => v.pop().unwrap_or_else(|| Box::new(|_: &mut Exec<'_>| {})),
        _ => {
            let ops: Box<[OpFn]> = v.into();
            Box::new(move |ex: &mut Exec<'_>| run_ops(&ops, ex))
        }
    }
}

/// Runs straight-line statements.
#[inline]
fn run_ops(ops: &[OpFn], ex: &mut Exec<'_>) {
    for op in ops {
        op(ex);
    }
}

fn st_bin<A: Get, B: Get>(d: usize, op: NOp, w: u32, a: A, b: B) -> StFn {
    by_op!(op, w, a, b, |ex, v| {
        stn(ex, d, v);
        Flow::Normal
    })
}

/// An action as a table runs it: the body and the slots of its
/// control-plane parameters (`true`: wide).
type CAction = (Block, Box<[(usize, bool)]>);

/// A table with its keys and actions lowered.
struct CTable {
    id: u32,
    keys: Vec<ExFn>,
    /// By position in the table's action list: the body and the slots of
    /// the control-plane parameters (`true`: wide).
    actions: Vec<Option<CAction>>,
    packet_length: usize,
}

impl CTable {
    /// As [`Exec::apply_table`]: whether it hit and the action position.
    fn apply(&self, ex: &mut Exec<'_>) -> (bool, Option<usize>) {
        let mut keys = [0u128; 8];
        let nk = self.keys.len();
        for (slot, k) in keys.iter_mut().zip(&self.keys) {
            *slot = u128::from(k(ex));
        }
        let len = ld(ex, self.packet_length);
        let t = self.id;
        let Some(state) = ex.rt.tables.get_mut(t as usize) else {
            return (false, None);
        };
        let (hit, pos, entry) = match state.lookup(&keys[..nk]) {
            Some(h) => {
                let Some(e) = state.get_mut(h) else {
                    return (false, None);
                };
                e.counter.0 += 1;
                e.counter.1 += len;
                let pos = e.entry.action;
                let Some(Some((_, params))) = self.actions.get(pos) else {
                    return (true, None);
                };
                copy_args(ex.n, ex.w, params, &e.entry.args);
                (true, pos, Some((t, h)))
            }
            None => match &state.default_action {
                Some((pos, args)) => {
                    let pos = *pos;
                    if let Some(Some((_, params))) = self.actions.get(pos) {
                        copy_args(ex.n, ex.w, params, args);
                    }
                    (false, pos, None)
                }
                None => return (false, None),
            },
        };
        ex.current_entry = entry;
        if let Some(Some((body, _))) = self.actions.get(pos) {
            let _ = run_block(body, ex);
        }
        ex.current_entry = None;
        (hit, Some(pos))
    }
}

enum CTrans {
    Go(Next),
    Select(Vec<ExFn>, Vec<(Vec<SelectKey>, Next)>),
}

struct CState {
    body: Block,
    trans: CTrans,
}

enum CEmit {
    /// A header outside a stack with narrow fields only: validity slot and
    /// (slot, width) per field.
    Fast(usize, Box<[(usize, u32)]>),
    /// Anything else, through the interpreter.
    Slow(HeaderRef),
}

/// As the interpreter's `pack_leaves` then `algo.compute`: fields of
/// invalid headers are left out, the payload appended when asked.
fn checksum_of(
    ex: &mut Exec<'_>,
    leaves: &[(usize, u32, Option<usize>)],
    algo: crate::exec::hash::HashAlgorithm,
    with_payload: bool,
) -> u64 {
    let mut scratch = std::mem::take(&mut ex.rt.scratch);
    let values = leaves
        .iter()
        .filter(|&&(_, _, valid)| valid.is_none_or(|v| ld(ex, v) != 0))
        .map(|&(slot, width, _)| (ld(ex, slot), width));
    let h = hash_bits(
        &mut scratch,
        values,
        with_payload.then_some(ex.payload),
        algo,
    );
    ex.rt.scratch = scratch;
    h
}

/// How much of a program the compiled engine lowered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LowerStats {
    /// Statements lowered to closures.
    pub statements: usize,
    /// Statements run by the interpreter.
    pub statements_interpreted: usize,
    /// Expressions lowered to closures.
    pub expressions: usize,
    /// Expressions evaluated by the interpreter (wide values and the rare
    /// narrow forms not lowered).
    pub expressions_interpreted: usize,
    /// Tables whose apply is lowered.
    pub tables: usize,
    /// Tables applied by the interpreter (wide keys or more than 8 keys).
    pub tables_interpreted: usize,
}

/// A program lowered for the compiled engine.
pub struct CompiledProgram {
    parser_init: Block,
    states: Vec<CState>,
    timeout: u64,
    no_match: u64,
    parser_error: usize,
    /// VerifyChecksum, Ingress, Egress, ComputeChecksum, Deparser.
    stages: [Block; 5],
    stats: LowerStats,
    lower_time: std::time::Duration,
    /// See [`egress_write_set`], with the standard metadata the switch
    /// sets before egress.
    pub(crate) egress_writes: Option<Box<[u32]>>,
    /// The generated code of a [`crate::exec::native::register`]ed program made
    /// from this one, which then runs instead of the closures.
    native: Option<crate::exec::native::Bound>,
}

impl std::fmt::Debug for CompiledProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledProgram")
            .field("states", &self.states.len())
            .field("stats", &self.stats)
            .field("lower_time", &self.lower_time)
            .field("native", &self.native)
            .finish()
    }
}

impl CompiledProgram {
    /// Lowers `prog`, and binds the generated code registered for it, if
    /// any ([`crate::exec::native`]), which then runs instead.
    pub fn with_native(prog: &Compiled) -> CompiledProgram {
        let mut c = CompiledProgram::new(prog);
        c.native = crate::exec::native::Bound::find(prog, |sts, exs| {
            let mut l = Lower {
                prog,
                bodies: vec![Slot::Todo; prog.bodies.len()],
                actions: vec![None; prog.actions.len()],
                tables: vec![None; prog.tables.len()],
                stats: LowerStats::default(),
            };
            (
                sts.iter().map(|s| l.st(s)).collect(),
                exs.iter().map(|e| l.ex(e)).collect(),
            )
        });
        c
    }

    /// The name of the generated program that runs this one, when one does.
    pub fn native(&self) -> Option<&'static str> {
        self.native.as_ref().map(crate::exec::native::Bound::name)
    }

    /// Lowers `prog` to closures.
    pub fn new(prog: &Compiled) -> CompiledProgram {
        let start = std::time::Instant::now();
        let mut l = Lower {
            prog,
            bodies: vec![Slot::Todo; prog.bodies.len()],
            actions: vec![None; prog.actions.len()],
            tables: vec![None; prog.tables.len()],
            stats: LowerStats::default(),
        };
        let parser_init = l.block(&prog.parser_init);
        let states = prog
            .parser
            .iter()
            .map(|s| CState {
                body: l.block(&s.body),
                trans: match &s.transition {
                    Transition::Go(n) => CTrans::Go(*n),
                    Transition::Select(keys, cases) => CTrans::Select(
                        keys.iter().take(16).map(|k| l.ex(k)).collect(),
                        cases.clone(),
                    ),
                },
            })
            .collect();
        let stages = [
            l.block(&prog.verify_checksum),
            l.block(&prog.ingress),
            l.block(&prog.egress),
            l.block(&prog.compute_checksum),
            l.block(&prog.deparser),
        ];
        let stats = l.stats;
        let egress_writes = egress_write_set(prog).map(|mut w| {
            let sm = &prog.std_meta;
            w.extend([
                sm.egress_port,
                sm.egress_rid,
                sm.egress_global_timestamp,
                sm.instance_type,
            ]);
            w.sort_unstable();
            w.dedup();
            w.into_boxed_slice()
        });
        CompiledProgram {
            parser_init,
            states,
            timeout: prog.error_code("ParserTimeout").unwrap_or(0),
            no_match: prog.error_code("NoMatch").unwrap_or(0),
            parser_error: prog.std_meta.parser_error as usize,
            stages,
            stats,
            egress_writes,
            lower_time: start.elapsed(),
            native: None,
        }
    }

    /// What was lowered and what runs in the interpreter.
    pub fn stats(&self) -> LowerStats {
        self.stats
    }

    /// How long lowering took.
    pub fn lower_time(&self) -> std::time::Duration {
        self.lower_time
    }

    /// As [`Exec::run_parser`].
    pub(crate) fn run_parser(&self, ex: &mut Exec<'_>) -> u64 {
        if let Some(n) = &self.native {
            return n.run_parser(ex);
        }
        if let Flow::Reject(e) = run_block(&self.parser_init, ex) {
            return e;
        }
        let mut state = 0usize;
        let mut steps = 0u32;
        loop {
            steps += 1;
            if steps > 100_000 {
                return self.timeout;
            }
            let Some(s) = self.states.get(state) else {
                return 0;
            };
            if let Flow::Reject(e) = run_block(&s.body, ex) {
                return e;
            }
            let next = match &s.trans {
                CTrans::Go(n) => *n,
                CTrans::Select(keys, cases) => {
                    let mut vals = [0u64; 16];
                    let count = keys.len();
                    for (v, k) in vals.iter_mut().zip(keys) {
                        *v = k(ex);
                    }
                    if let Some(e) = ex.reject.take() {
                        return e;
                    }
                    let hit = cases.iter().find(|(ks, _)| {
                        ks.iter().zip(&vals[..count]).all(|(k, &v)| match k {
                            SelectKey::Any => true,
                            SelectKey::Masked(val, m) => v & m == *val,
                            SelectKey::Range(lo, hi) => *lo <= v && v <= *hi,
                        })
                    });
                    match hit {
                        Some((_, n)) => *n,
                        None => return self.no_match,
                    }
                }
            };
            match next {
                Next::Accept => return 0,
                Next::Reject => return ld(ex, self.parser_error),
                Next::State(s) => state = s as usize,
            }
        }
    }

    /// As [`Exec::run_control`] on each stage `(stage, which)` in turn
    /// (which: 0 VerifyChecksum, 1 Ingress, 2 Egress, 3 ComputeChecksum,
    /// 4 Deparser), `ex.stage` set to `stage` for each.
    pub(crate) fn run_controls(&self, ex: &mut Exec<'_>, stages: &[(Stage, u8)]) {
        if let Some(n) = &self.native {
            return n.run_controls(ex, stages);
        }
        for &(stage, which) in stages {
            ex.begin_control(stage);
            if let Some(b) = self.stages.get(usize::from(which)) {
                let _ = run_block(b, ex);
            }
        }
    }
}

#[derive(Clone)]
enum Slot {
    Todo,
    InProgress,
    Done(Block),
}

struct Lower<'p> {
    prog: &'p Compiled,
    bodies: Vec<Slot>,
    actions: Vec<Option<Block>>,
    tables: Vec<Option<Arc<CTable>>>,
    stats: LowerStats,
}

/// A straight-line operation before boxing (moves are merged into runs).
enum Op {
    Mov(usize, usize),
    F(OpFn),
}

/// Hands a statement to the interpreter.
fn interp_st(s: &St) -> StFn {
    let s = s.clone();
    Box::new(move |ex: &mut Exec<'_>| ex.stmt(&s))
}

impl Lower<'_> {
    /// A block: runs of straight-line statements become one closure that
    /// runs them without flow checks; the rest one closure each.
    fn block(&mut self, sts: &[St]) -> Block {
        let mut out: Vec<StFn> = Vec::new();
        let mut ops: Vec<Op> = Vec::new();
        for s in sts {
            if self.pure_st(s) {
                self.ops(s, &mut ops);
            } else {
                Self::flush(&mut ops, &mut out);
                out.push(self.st(s));
            }
        }
        Self::flush(&mut ops, &mut out);
        out.into()
    }

    fn flush(ops: &mut Vec<Op>, out: &mut Vec<StFn>) {
        let mut ops = Self::finish(std::mem::take(ops));
        match ops.len() {
            0 => {}
            1 => {
                let op = ops.pop().unwrap_or_else(|| Box::new(|_: &mut Exec<'_>| {}));
                out.push(Box::new(move |ex: &mut Exec<'_>| {
                    op(ex);
                    Flow::Normal
                }));
            }
            _ => {
                let run: Box<[OpFn]> = ops.into();
                out.push(Box::new(move |ex: &mut Exec<'_>| {
                    run_ops(&run, ex);
                    Flow::Normal
                }));
            }
        }
    }

    /// Whether `s` is straight-line: lowers to [`OpFn`]s entirely.
    fn pure_st(&self, s: &St) -> bool {
        pure_st(self.prog, s)
    }

    fn pure_block(&mut self, b: &[St]) -> Box<[OpFn]> {
        let mut ops = Vec::new();
        for s in b {
            self.ops(s, &mut ops);
        }
        Self::finish(ops).into()
    }

    /// Lowers a statement for which [`Self::pure_st`] holds, appending to
    /// `out`: bodies of calls, functions and actions are inlined, and runs
    /// of slot moves become one operation.
    fn ops(&mut self, s: &St, out: &mut Vec<Op>) {
        self.stats.statements += 1;
        let op: OpFn = match s {
            St::Set(d, e) => {
                let d = *d as usize;
                match e {
                    Ex::Const(c) => {
                        let c = *c;
                        Box::new(move |ex: &mut Exec<'_>| stn(ex, d, c))
                    }
                    Ex::Load(src) => {
                        out.push(Op::Mov(d, *src as usize));
                        return;
                    }
                    Ex::Bin(op, w, ab) => match &**ab {
                        (Ex::Load(a), Ex::Const(c)) => {
                            let (a, c) = (*a as usize, *c);
                            op_bin(
                                d,
                                *op,
                                *w,
                                move |ex: &mut Exec<'_>| ld(ex, a),
                                move |_: &mut Exec<'_>| c,
                            )
                        }
                        (Ex::Load(a), Ex::Load(b)) => {
                            let (a, b) = (*a as usize, *b as usize);
                            op_bin(
                                d,
                                *op,
                                *w,
                                move |ex: &mut Exec<'_>| ld(ex, a),
                                move |ex: &mut Exec<'_>| ld(ex, b),
                            )
                        }
                        (x, Ex::Const(c)) => {
                            let c = *c;
                            let x = self.ex(x);
                            op_bin(
                                d,
                                *op,
                                *w,
                                move |ex: &mut Exec<'_>| x(ex),
                                move |_: &mut Exec<'_>| c,
                            )
                        }
                        (x, y) => {
                            let x = self.ex(x);
                            let y = self.ex(y);
                            op_bin(
                                d,
                                *op,
                                *w,
                                move |ex: &mut Exec<'_>| x(ex),
                                move |ex: &mut Exec<'_>| y(ex),
                            )
                        }
                    },
                    e => {
                        let f = self.ex(e);
                        Box::new(move |ex: &mut Exec<'_>| {
                            let v = f(ex);
                            stn(ex, d, v);
                        })
                    }
                }
            }
            St::Mov(d, src) => {
                out.push(Op::Mov(*d as usize, *src as usize));
                return;
            }
            St::BinSlots(op, w, d, a, b) => {
                let (d, a, b) = (*d as usize, *a as usize, *b as usize);
                op_bin(
                    d,
                    *op,
                    *w,
                    move |ex: &mut Exec<'_>| ld(ex, a),
                    move |ex: &mut Exec<'_>| ld(ex, b),
                )
            }
            St::BinSlotConst(op, w, d, a, c) => {
                let (d, a, c) = (*d as usize, *a as usize, *c);
                op_bin(
                    d,
                    *op,
                    *w,
                    move |ex: &mut Exec<'_>| ld(ex, a),
                    move |_: &mut Exec<'_>| c,
                )
            }
            St::If(c, a, b) => {
                let a = seq(self.pure_block(a));
                if b.is_empty() {
                    with_cond!(self, c, |cf| Box::new(move |ex: &mut Exec<'_>| {
                        if cf(ex) {
                            a(ex);
                        }
                    }))
                } else {
                    let b = seq(self.pure_block(b));
                    with_cond!(self, c, |cf| Box::new(move |ex: &mut Exec<'_>| {
                        if cf(ex) {
                            a(ex);
                        } else {
                            b(ex);
                        }
                    }))
                }
            }
            St::Block(b) => {
                for s in b {
                    self.ops(s, out);
                }
                return;
            }
            St::Call(c) => {
                for s in c.0.iter().chain(c.1.iter()) {
                    self.ops(s, out);
                }
                return;
            }
            St::RunBody(b) => {
                let prog = self.prog;
                for s in prog.bodies.get(*b as usize).into_iter().flatten() {
                    self.ops(s, out);
                }
                return;
            }
            St::RunAction(a) => {
                let prog = self.prog;
                for s in prog
                    .actions
                    .get(*a as usize)
                    .into_iter()
                    .flat_map(|a| &a.body)
                {
                    self.ops(s, out);
                }
                return;
            }
            other => {
                if let Some(op) = self.op_only(other) {
                    out.push(Op::F(op));
                    return;
                }
                // the remaining pure statements have flow-free closures
                let f = self.st(other);
                self.stats.statements -= 1;
                Box::new(move |ex: &mut Exec<'_>| {
                    let _ = f(ex);
                })
            }
        };
        out.push(Op::F(op));
    }

    /// Boxes a run of ops, merging consecutive slot moves into one.
    fn finish(ops: Vec<Op>) -> Vec<OpFn> {
        let mut out: Vec<OpFn> = Vec::new();
        let mut movs: Vec<(usize, usize)> = Vec::new();
        let flush = |movs: &mut Vec<(usize, usize)>, out: &mut Vec<OpFn>| match movs.len() {
            0 => {}
            1 => {
                let (d, src) = movs[0];
                movs.clear();
                out.push(Box::new(move |ex: &mut Exec<'_>| {
                    let v = ld(ex, src);
                    stn(ex, d, v);
                }));
            }
            _ => {
                let run: Box<[(usize, usize)]> = std::mem::take(movs).into();
                out.push(Box::new(move |ex: &mut Exec<'_>| {
                    for &(d, src) in run.iter() {
                        let v = ld(ex, src);
                        stn(ex, d, v);
                    }
                }));
            }
        };
        for op in ops {
            match op {
                Op::Mov(d, src) => movs.push((d, src)),
                Op::F(f) => {
                    flush(&mut movs, &mut out);
                    out.push(f);
                }
            }
        }
        flush(&mut movs, &mut out);
        out
    }

    fn body(&mut self, b: u32) -> Option<Block> {
        match self.bodies.get(b as usize)? {
            Slot::Done(x) => Some(x.clone()),
            Slot::InProgress => None,
            Slot::Todo => {
                self.bodies[b as usize] = Slot::InProgress;
                let body = self.prog.bodies.get(b as usize)?;
                let x = self.block(body);
                self.bodies[b as usize] = Slot::Done(x.clone());
                Some(x)
            }
        }
    }

    fn action(&mut self, a: u32) -> Option<Block> {
        if let Some(Some(x)) = self.actions.get(a as usize) {
            return Some(x.clone());
        }
        let act = self.prog.actions.get(a as usize)?;
        let x = self.block(&act.body);
        self.actions[a as usize] = Some(x.clone());
        Some(x)
    }

    /// The lowered table, or `None` when the interpreter must apply it.
    fn table(&mut self, t: u32) -> Option<Arc<CTable>> {
        if let Some(Some(x)) = self.tables.get(t as usize) {
            return Some(x.clone());
        }
        let table = self.prog.tables.get(t as usize)?;
        if table.keys.len() > 8 || table.keys.iter().any(|k| k.width > 64) {
            self.stats.tables_interpreted += 1;
            return None;
        }
        let keys = table.keys.iter().map(|k| self.ex(&k.ex)).collect();
        let actions = table
            .actions
            .iter()
            .map(|ta| {
                let act = self.prog.actions.get(ta.action as usize)?;
                let body = self.action(ta.action)?;
                let params = act
                    .params
                    .iter()
                    .filter(|p| p.control_plane)
                    .map(|p| (p.slot as usize, p.ty.width() > 64))
                    .collect();
                Some((body, params))
            })
            .collect();
        let c = Arc::new(CTable {
            id: t,
            keys,
            actions,
            packet_length: self.prog.std_meta.packet_length as usize,
        });
        self.tables[t as usize] = Some(c.clone());
        self.stats.tables += 1;
        Some(c)
    }

    fn error(&self, name: &str) -> u64 {
        self.prog.error_code(name).unwrap_or(0)
    }

    /// A narrow expression.
    fn ex(&mut self, e: &Ex) -> ExFn {
        self.stats.expressions += 1;
        match e {
            Ex::Const(c) => {
                let c = *c;
                Box::new(move |_: &mut Exec<'_>| c)
            }
            Ex::Load(s) => {
                let s = *s as usize;
                Box::new(move |ex: &mut Exec<'_>| ld(ex, s))
            }
            Ex::Bin(op, w, ab) => self.bin(*op, *w, &ab.0, &ab.1),
            Ex::BitNot(w, a) => {
                let m = mask(*w);
                let a = self.ex(a);
                Box::new(move |ex: &mut Exec<'_>| !a(ex) & m)
            }
            Ex::Neg(w, a) => {
                let m = mask(*w);
                let a = self.ex(a);
                Box::new(move |ex: &mut Exec<'_>| a(ex).wrapping_neg() & m)
            }
            Ex::Not(a) => {
                let a = self.ex(a);
                Box::new(move |ex: &mut Exec<'_>| u64::from(a(ex) == 0))
            }
            Ex::Mask(w, a) => {
                let m = mask(*w);
                match &**a {
                    Ex::Load(s) => {
                        let s = *s as usize;
                        Box::new(move |ex: &mut Exec<'_>| ld(ex, s) & m)
                    }
                    a => {
                        let a = self.ex(a);
                        Box::new(move |ex: &mut Exec<'_>| a(ex) & m)
                    }
                }
            }
            Ex::SExt(from, to, a) => {
                let (from, m) = (*from, mask(*to));
                let a = self.ex(a);
                Box::new(move |ex: &mut Exec<'_>| sext(a(ex), from) & m)
            }
            Ex::Slice(hi, lo, a) if *lo < 64 && hi >= lo => {
                let (lo, m) = (*lo, mask(hi - lo + 1));
                match &**a {
                    Ex::Load(s) => {
                        let s = *s as usize;
                        Box::new(move |ex: &mut Exec<'_>| (ld(ex, s) >> lo) & m)
                    }
                    a => {
                        let a = self.ex(a);
                        Box::new(move |ex: &mut Exec<'_>| (a(ex) >> lo) & m)
                    }
                }
            }
            Ex::Concat(bw, ab) => {
                let bw = *bw;
                let a = self.ex(&ab.0);
                let b = self.ex(&ab.1);
                if bw >= 64 {
                    Box::new(move |ex: &mut Exec<'_>| {
                        let _ = a(ex);
                        b(ex)
                    })
                } else {
                    Box::new(move |ex: &mut Exec<'_>| {
                        let x = a(ex);
                        let y = b(ex);
                        (x << bw) | y
                    })
                }
            }
            Ex::Cond(abc) => {
                let c = self.ex(&abc.0);
                let a = self.ex(&abc.1);
                let b = self.ex(&abc.2);
                Box::new(move |ex: &mut Exec<'_>| if c(ex) != 0 { a(ex) } else { b(ex) })
            }
            Ex::Seq(se) => {
                let body = self.block(&se.0);
                let e = self.ex(&se.1);
                Box::new(move |ex: &mut Exec<'_>| {
                    if let Flow::Reject(r) = run_block(&body, ex) {
                        ex.reject = Some(r);
                        ex.halt = true;
                    }
                    e(ex)
                })
            }
            Ex::TableHit(t) | Ex::TableMiss(t) => {
                let hit = matches!(e, Ex::TableHit(_));
                match self.table(*t) {
                    Some(c) => Box::new(move |ex: &mut Exec<'_>| u64::from(c.apply(ex).0 == hit)),
                    None => {
                        let t = *t;
                        Box::new(move |ex: &mut Exec<'_>| u64::from(ex.apply_table(t).0 == hit))
                    }
                }
            }
            Ex::PacketLength => Box::new(|ex: &mut Exec<'_>| ex.pkt.len() as u64),
            other => {
                self.stats.expressions -= 1;
                self.stats.expressions_interpreted += 1;
                let e = other.clone();
                Box::new(move |ex: &mut Exec<'_>| ex.eval(&e))
            }
        }
    }

    fn bin(&mut self, op: NOp, w: u32, a: &Ex, b: &Ex) -> ExFn {
        match (a, b) {
            (Ex::Load(x), Ex::Const(c)) => {
                let (x, c) = (*x as usize, *c);
                ex_bin(
                    op,
                    w,
                    move |ex: &mut Exec<'_>| ld(ex, x),
                    move |_: &mut Exec<'_>| c,
                )
            }
            (Ex::Load(x), Ex::Load(y)) => {
                let (x, y) = (*x as usize, *y as usize);
                ex_bin(
                    op,
                    w,
                    move |ex: &mut Exec<'_>| ld(ex, x),
                    move |ex: &mut Exec<'_>| ld(ex, y),
                )
            }
            (a, Ex::Const(c)) => {
                let c = *c;
                let a = self.ex(a);
                ex_bin(
                    op,
                    w,
                    move |ex: &mut Exec<'_>| a(ex),
                    move |_: &mut Exec<'_>| c,
                )
            }
            (a, b) => {
                let a = self.ex(a);
                let b = self.ex(b);
                ex_bin(
                    op,
                    w,
                    move |ex: &mut Exec<'_>| a(ex),
                    move |ex: &mut Exec<'_>| b(ex),
                )
            }
        }
    }

    /// A header extract outside stacks with narrow fields only.
    fn extract(&self, h: &HeaderRef) -> Option<StFn> {
        if h.stack.is_some() || h.fields.iter().any(|f| f.wide) {
            return None;
        }
        let fields: Box<[(usize, usize, u32)]> = h
            .fields
            .iter()
            .map(|f| ((h.base_n + f.offset) as usize, f.at as usize, f.width))
            .collect();
        let valid = h.valid as usize;
        let bits = h.bits as usize;
        let too_short = self.error("PacketTooShort");
        // when the header starts on a byte and every field is whole bytes
        // at a byte position, fields are loaded as integers
        let aligned = fields
            .iter()
            .all(|&(_, at, w)| at.is_multiple_of(8) && w.is_multiple_of(8) && w > 0 && w <= 64);
        Some(Box::new(move |ex: &mut Exec<'_>| {
            let start = ex.cursor;
            if start + bits > ex.pkt.len() * 8 {
                return Flow::Reject(too_short);
            }
            let pkt = ex.pkt;
            if aligned && start.is_multiple_of(8) {
                let base = start / 8;
                for &(slot, at, width) in fields.iter() {
                    let i = base + at / 8;
                    let v = match width {
                        8 => pkt.get(i).copied().map_or(0, u64::from),
                        16 => pkt
                            .get(i..i + 2)
                            .map_or(0, |b| u64::from(u16::from_be_bytes([b[0], b[1]]))),
                        32 => pkt.get(i..i + 4).map_or(0, |b| {
                            u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                        }),
                        48 => pkt.get(i..i + 6).map_or(0, |b| {
                            u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]])
                        }),
                        _ => read_bits(pkt, start + at, width),
                    };
                    stn(ex, slot, v);
                }
            } else {
                for &(slot, at, width) in fields.iter() {
                    let v = read_bits(pkt, start + at, width);
                    stn(ex, slot, v);
                }
            }
            ex.cursor = start + bits;
            stn(ex, valid, 1);
            Flow::Normal
        }))
    }

    fn emit(&self, refs: &[HeaderRef]) -> StFn {
        let hs: Vec<CEmit> = refs
            .iter()
            .map(|h| {
                if h.stack.is_some() || h.fields.iter().any(|f| f.wide) {
                    CEmit::Slow(h.clone())
                } else {
                    CEmit::Fast(
                        h.valid as usize,
                        h.fields
                            .iter()
                            .map(|f| ((h.base_n + f.offset) as usize, f.width))
                            .collect(),
                    )
                }
            })
            .collect();
        Box::new(move |ex: &mut Exec<'_>| {
            for h in &hs {
                match h {
                    CEmit::Fast(valid, fields) => {
                        if ld(ex, *valid) == 0 {
                            continue;
                        }
                        let n = &*ex.n;
                        for &(slot, width) in fields.iter() {
                            ex.out.push(n.get(slot).copied().unwrap_or(0), width);
                        }
                    }
                    CEmit::Slow(h) => ex.emit(h),
                }
            }
            Flow::Normal
        })
    }

    fn narrow_register(&self, reg: u32) -> bool {
        self.prog
            .registers
            .get(reg as usize)
            .is_some_and(|r| r.ty.width() <= 64)
    }

    fn st(&mut self, s: &St) -> StFn {
        self.stats.statements += 1;
        match s {
            St::Set(d, e) => {
                let d = *d as usize;
                match e {
                    Ex::Const(c) => {
                        let c = *c;
                        Box::new(move |ex: &mut Exec<'_>| {
                            stn(ex, d, c);
                            Flow::Normal
                        })
                    }
                    Ex::Bin(op, w, ab) => match &**ab {
                        (Ex::Load(a), Ex::Const(c)) => {
                            let (a, c) = (*a as usize, *c);
                            st_bin(
                                d,
                                *op,
                                *w,
                                move |ex: &mut Exec<'_>| ld(ex, a),
                                move |_: &mut Exec<'_>| c,
                            )
                        }
                        (x, Ex::Const(c)) => {
                            let c = *c;
                            let x = self.ex(x);
                            st_bin(
                                d,
                                *op,
                                *w,
                                move |ex: &mut Exec<'_>| x(ex),
                                move |_: &mut Exec<'_>| c,
                            )
                        }
                        (x, y) => {
                            let x = self.ex(x);
                            let y = self.ex(y);
                            st_bin(
                                d,
                                *op,
                                *w,
                                move |ex: &mut Exec<'_>| x(ex),
                                move |ex: &mut Exec<'_>| y(ex),
                            )
                        }
                    },
                    e => {
                        let f = self.ex(e);
                        Box::new(move |ex: &mut Exec<'_>| {
                            let v = f(ex);
                            stn(ex, d, v);
                            Flow::Normal
                        })
                    }
                }
            }
            St::Mov(d, src) => {
                let (d, src) = (*d as usize, *src as usize);
                Box::new(move |ex: &mut Exec<'_>| {
                    let v = ld(ex, src);
                    stn(ex, d, v);
                    Flow::Normal
                })
            }
            St::BinSlots(op, w, d, a, b) => {
                let (d, a, b) = (*d as usize, *a as usize, *b as usize);
                st_bin(
                    d,
                    *op,
                    *w,
                    move |ex: &mut Exec<'_>| ld(ex, a),
                    move |ex: &mut Exec<'_>| ld(ex, b),
                )
            }
            St::BinSlotConst(op, w, d, a, c) => {
                let (d, a, c) = (*d as usize, *a as usize, *c);
                st_bin(
                    d,
                    *op,
                    *w,
                    move |ex: &mut Exec<'_>| ld(ex, a),
                    move |_: &mut Exec<'_>| c,
                )
            }
            St::If(c, a, b) => {
                let a = self.block(a);
                let b = self.block(b);
                if b.is_empty() {
                    with_cond!(self, c, |cf| Box::new(move |ex: &mut Exec<'_>| {
                        if cf(ex) {
                            run_block(&a, ex)
                        } else {
                            Flow::Normal
                        }
                    }))
                } else {
                    with_cond!(self, c, |cf| Box::new(move |ex: &mut Exec<'_>| {
                        if cf(ex) {
                            run_block(&a, ex)
                        } else {
                            run_block(&b, ex)
                        }
                    }))
                }
            }
            St::Block(b) => {
                let b = self.block(b);
                Box::new(move |ex: &mut Exec<'_>| run_block(&b, ex))
            }
            St::Switch(sel, arms, default) => {
                let sel = self.ex(sel);
                let arms: Vec<(Vec<u64>, Block)> = arms
                    .iter()
                    .map(|(v, b)| (v.clone(), self.block(b)))
                    .collect();
                let default = self.block(default);
                Box::new(move |ex: &mut Exec<'_>| {
                    let v = sel(ex);
                    for (vals, body) in &arms {
                        if vals.contains(&v) {
                            return run_block(body, ex);
                        }
                    }
                    run_block(&default, ex)
                })
            }
            St::Apply(t) => match self.table(*t) {
                Some(c) => Box::new(move |ex: &mut Exec<'_>| {
                    c.apply(ex);
                    Flow::Normal
                }),
                None => {
                    self.stats.statements -= 1;
                    self.stats.statements_interpreted += 1;
                    interp_st(s)
                }
            },
            St::SwitchAction(t, bodies, default) => {
                let Some(c) = self.table(*t) else {
                    self.stats.statements -= 1;
                    self.stats.statements_interpreted += 1;
                    return interp_st(s);
                };
                let bodies: Vec<Option<Block>> = bodies
                    .iter()
                    .map(|b| b.as_ref().map(|b| self.block(b)))
                    .collect();
                let default = self.block(default);
                Box::new(move |ex: &mut Exec<'_>| {
                    let (_, pos) = c.apply(ex);
                    if ex.exit {
                        return Flow::Exit;
                    }
                    match pos.and_then(|p| bodies.get(p)).and_then(Option::as_ref) {
                        Some(b) => run_block(b, ex),
                        None => run_block(&default, ex),
                    }
                })
            }
            St::Call(call) => {
                let a = self.block(&call.0);
                let b = self.block(&call.1);
                Box::new(move |ex: &mut Exec<'_>| {
                    let f = run_block(&a, ex);
                    let exiting = std::mem::replace(&mut ex.exit, false);
                    ex.halt = ex.reject.is_some();
                    let g = run_block(&b, ex);
                    ex.exit |= exiting;
                    ex.halt = ex.exit || ex.reject.is_some();
                    if matches!(f, Flow::Normal) { g } else { f }
                })
            }
            St::RunAction(a) => match self.action(*a) {
                Some(body) => Box::new(move |ex: &mut Exec<'_>| {
                    let f = run_block(&body, ex);
                    if matches!(f, Flow::Return) {
                        Flow::Normal
                    } else {
                        f
                    }
                }),
                None => Box::new(|_: &mut Exec<'_>| Flow::Normal),
            },
            St::RunBody(b) => {
                if self.prog.bodies.get(*b as usize).is_none() {
                    return Box::new(|_: &mut Exec<'_>| Flow::Normal);
                }
                match self.body(*b) {
                    Some(body) => Box::new(move |ex: &mut Exec<'_>| {
                        let f = run_block(&body, ex);
                        if matches!(f, Flow::Return) {
                            Flow::Normal
                        } else {
                            f
                        }
                    }),
                    None => {
                        self.stats.statements -= 1;
                        self.stats.statements_interpreted += 1;
                        interp_st(s)
                    }
                }
            }
            St::Exit => Box::new(|ex: &mut Exec<'_>| {
                ex.exit = true;
                ex.halt = true;
                Flow::Exit
            }),
            St::Return => Box::new(|_: &mut Exec<'_>| Flow::Return),
            St::Loop(l) => {
                let cond = self.ex(&l.cond);
                let body = self.block(&l.body);
                let update = self.block(&l.update);
                Box::new(move |ex: &mut Exec<'_>| {
                    let mut iterations = 0;
                    while cond(ex) != 0 {
                        if iterations == Loop::MAX_ITERATIONS {
                            return ex.endless_loop();
                        }
                        iterations += 1;
                        match run_block(&body, ex) {
                            Flow::Normal | Flow::Continue => {}
                            Flow::Break => break,
                            f => return f,
                        }
                        let f = run_block(&update, ex);
                        if !matches!(f, Flow::Normal) {
                            return f;
                        }
                    }
                    Flow::Normal
                })
            }
            St::Break => Box::new(|_: &mut Exec<'_>| Flow::Break),
            St::Continue => Box::new(|_: &mut Exec<'_>| Flow::Continue),
            St::Extract(h) => match self.extract(h) {
                Some(f) => f,
                None => {
                    self.stats.statements -= 1;
                    self.stats.statements_interpreted += 1;
                    interp_st(s)
                }
            },
            St::Verify(c, e) => {
                let c = self.ex(c);
                let e = self.ex(e);
                Box::new(move |ex: &mut Exec<'_>| {
                    if c(ex) == 0 {
                        Flow::Reject(e(ex))
                    } else {
                        Flow::Normal
                    }
                })
            }
            St::Emit(refs) => self.emit(refs),
            St::Copy(c) if c.w_len == 0 => self.wrap_op(s),
            St::RegReadSlot { .. } | St::RegRmwSlot { .. } | St::RegWriteSlot { .. } => {
                self.wrap_op(s)
            }
            St::Extern(call) if self.op_extern(call) => self.wrap_op(s),
            St::Extern(call) => match self.extern_call(call) {
                Some(f) => f,
                None => {
                    self.stats.statements -= 1;
                    self.stats.statements_interpreted += 1;
                    interp_st(s)
                }
            },
            _ => {
                self.stats.statements -= 1;
                self.stats.statements_interpreted += 1;
                interp_st(s)
            }
        }
    }

    /// Whether [`Self::op_only`] lowers this extern.
    fn op_extern(&self, c: &ExternCall) -> bool {
        match c {
            ExternCall::Count { .. } => true,
            ExternCall::RegisterRead {
                reg,
                dst: Target::N(..),
                ..
            }
            | ExternCall::RegisterWrite { reg, .. } => self.narrow_register(*reg),
            _ => false,
        }
    }

    /// A statement that never changes control flow, as a flow closure.
    fn wrap_op(&mut self, s: &St) -> StFn {
        match self.op_only(s) {
            Some(op) => Box::new(move |ex: &mut Exec<'_>| {
                op(ex);
                Flow::Normal
            }),
            None => {
                self.stats.statements -= 1;
                self.stats.statements_interpreted += 1;
                interp_st(s)
            }
        }
    }

    /// Copies, register accesses on slots and the counter, register read
    /// and write externs: straight-line statements with their own closure.
    fn op_only(&mut self, s: &St) -> Option<OpFn> {
        let len_slot = self.prog.std_meta.packet_length as usize;
        Some(match s {
            St::Copy(c) if c.w_len == 0 => {
                let (nd, ns, nl) = (c.n_dst as usize, c.n_src as usize, c.n_len as usize);
                Box::new(move |ex: &mut Exec<'_>| {
                    if ns + nl <= ex.n.len() && nd + nl <= ex.n.len() {
                        ex.n.copy_within(ns..ns + nl, nd);
                    }
                })
            }
            St::RegReadSlot {
                reg,
                dst,
                width,
                index,
            } => {
                let (reg, dst, m, index) =
                    (*reg as usize, *dst as usize, mask(*width), *index as usize);
                Box::new(move |ex: &mut Exec<'_>| {
                    let i = ld(ex, index) as usize;
                    let v = match ex.rt.registers.get(reg) {
                        Some(RegisterCells::Narrow(cells)) => cells.get(i).copied().unwrap_or(0),
                        _ => 0,
                    };
                    stn(ex, dst, v & m);
                })
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
                let (reg, index, tmp, op, width, operand, tmp_left) = (
                    *reg as usize,
                    *index as usize,
                    *tmp as usize,
                    *op,
                    *width,
                    *operand as usize,
                    *tmp_left,
                );
                let m = mask(width);
                Box::new(move |ex: &mut Exec<'_>| {
                    let i = ld(ex, index) as usize;
                    let x = ld(ex, operand);
                    let cell = match ex.rt.registers.get_mut(reg) {
                        Some(RegisterCells::Narrow(cells)) => cells.get_mut(i),
                        _ => None,
                    };
                    let v = match cell {
                        Some(c) => {
                            let old = *c & m;
                            let v = match (op, tmp_left) {
                                (NOp::Add, _) => old.wrapping_add(x) & m,
                                (_, true) => eval_nop(op, width, old, x),
                                (_, false) => eval_nop(op, width, x, old),
                            };
                            *c = v;
                            v
                        }
                        None => {
                            if tmp_left {
                                eval_nop(op, width, 0, x)
                            } else {
                                eval_nop(op, width, x, 0)
                            }
                        }
                    };
                    stn(ex, tmp, v);
                })
            }
            St::RegWriteSlot { reg, index, value } => {
                let (reg, index, value) = (*reg as usize, *index as usize, *value as usize);
                Box::new(move |ex: &mut Exec<'_>| {
                    let i = ld(ex, index) as usize;
                    let v = ld(ex, value);
                    if let Some(RegisterCells::Narrow(cells)) = ex.rt.registers.get_mut(reg)
                        && let Some(c) = cells.get_mut(i)
                    {
                        *c = v;
                    }
                })
            }
            St::Extern(call) => match &**call {
                ExternCall::Count { counter, index } => {
                    let counter = *counter as usize;
                    let index = self.ex(index);
                    Box::new(move |ex: &mut Exec<'_>| {
                        let len = ld(ex, len_slot);
                        let i = index(ex) as usize;
                        if let Some(c) = ex.rt.counters.get_mut(counter).and_then(|c| c.get_mut(i))
                        {
                            c.0 += 1;
                            c.1 += len;
                        }
                    })
                }
                ExternCall::RegisterRead {
                    reg,
                    dst: Target::N(d, w),
                    index,
                } if self.narrow_register(*reg) => {
                    let (reg, d, m) = (*reg as usize, *d as usize, mask(*w));
                    let index = self.ex(index);
                    Box::new(move |ex: &mut Exec<'_>| {
                        let i = index(ex) as usize;
                        if let Some(RegisterCells::Narrow(cells)) = ex.rt.registers.get(reg) {
                            let v = cells.get(i).copied().unwrap_or(0);
                            stn(ex, d, v & m);
                        }
                    })
                }
                ExternCall::RegisterWrite { reg, index, value } if self.narrow_register(*reg) => {
                    let reg = *reg as usize;
                    let index = self.ex(index);
                    let value = self.ex(value);
                    Box::new(move |ex: &mut Exec<'_>| {
                        let i = index(ex) as usize;
                        let v = value(ex);
                        if let Some(RegisterCells::Narrow(cells)) = ex.rt.registers.get_mut(reg)
                            && let Some(c) = cells.get_mut(i)
                        {
                            *c = v;
                        }
                    })
                }
                _ => return None,
            },
            _ => return None,
        })
    }

    /// The externs lowered here; `None` for the interpreter.
    fn extern_call(&mut self, c: &ExternCall) -> Option<StFn> {
        match c {
            ExternCall::VerifyChecksum {
                cond,
                data,
                checksum,
                algo,
                with_payload,
            } => {
                let leaves = slot_leaves(data)?;
                let (cond, checksum) = (self.ex(cond), self.ex(checksum));
                let (algo, with_payload) = (*algo, *with_payload);
                let m = mask(algo.checksum_width());
                let error = self.prog.std_meta.checksum_error as usize;
                Some(Box::new(move |ex: &mut Exec<'_>| {
                    if cond(ex) != 0 {
                        let h = checksum_of(ex, &leaves, algo, with_payload);
                        let want = checksum(ex);
                        if h & m != want {
                            stn(ex, error, 1);
                        }
                    }
                    Flow::Normal
                }))
            }
            ExternCall::UpdateChecksum {
                cond,
                data,
                dst: Target::N(d, w),
                algo,
                with_payload,
            } => {
                let leaves = slot_leaves(data)?;
                let cond = self.ex(cond);
                let (algo, with_payload, d, m) = (*algo, *with_payload, *d as usize, mask(*w));
                Some(Box::new(move |ex: &mut Exec<'_>| {
                    if cond(ex) != 0 {
                        let h = checksum_of(ex, &leaves, algo, with_payload);
                        stn(ex, d, h & m);
                    }
                    Flow::Normal
                }))
            }
            ExternCall::Resubmit(i) => {
                let i = *i;
                Some(Box::new(move |ex: &mut Exec<'_>| {
                    if ex.stage == Stage::Ingress {
                        ex.fx.resubmit = Some(i);
                    }
                    Flow::Normal
                }))
            }
            _ => None,
        }
    }
}

/// The narrow slots that the egress side of the pipeline (Egress,
/// ComputeChecksum, Deparser, with every body, action and table they
/// reach) may write, or `None` when that cannot be bounded (wide or
/// run-time-indexed writes, extracts, copies of wide slots). Multicast
/// replicas then share the ingress frame: only these slots are restored
/// between replicas instead of copying the whole frame.
pub(crate) fn egress_write_set(prog: &Compiled) -> Option<Vec<u32>> {
    let mut w = Writes {
        prog,
        slots: Vec::new(),
        bodies: vec![false; prog.bodies.len()],
        actions: vec![false; prog.actions.len()],
        tables: vec![false; prog.tables.len()],
    };
    for b in [&prog.egress, &prog.compute_checksum, &prog.deparser] {
        w.block(b)?;
    }
    let mut slots = w.slots;
    slots.sort_unstable();
    slots.dedup();
    Some(slots)
}

struct Writes<'p> {
    prog: &'p Compiled,
    slots: Vec<u32>,
    bodies: Vec<bool>,
    actions: Vec<bool>,
    tables: Vec<bool>,
}

impl Writes<'_> {
    fn block(&mut self, b: &[St]) -> Option<()> {
        for s in b {
            self.st(s)?;
        }
        Some(())
    }

    fn target(&mut self, t: &Target) -> Option<()> {
        match t {
            Target::N(s, _) => {
                self.slots.push(*s);
                Some(())
            }
            _ => None,
        }
    }

    fn leaves(&mut self, l: &[Leaf]) -> Option<()> {
        for x in l {
            self.ex(&x.ex)?;
            if let Some(v) = &x.valid {
                self.ex(v)?;
            }
            if let Some(len) = &x.varbit_len {
                self.ex(len)?;
            }
        }
        Some(())
    }

    fn table(&mut self, t: u32) -> Option<()> {
        let i = t as usize;
        if *self.tables.get(i)? {
            return Some(());
        }
        self.tables[i] = true;
        let prog = self.prog;
        let table = prog.tables.get(i)?;
        for k in &table.keys {
            self.ex(&k.ex)?;
        }
        for ta in &table.actions {
            let act = prog.actions.get(ta.action as usize)?;
            for p in act.params.iter().filter(|p| p.control_plane) {
                if p.ty.width() > 64 {
                    return None;
                }
                self.slots.push(p.slot);
            }
            self.action(ta.action)?;
        }
        Some(())
    }

    fn action(&mut self, a: u32) -> Option<()> {
        let i = a as usize;
        if *self.actions.get(i)? {
            return Some(());
        }
        self.actions[i] = true;
        let prog = self.prog;
        self.block(&prog.actions.get(i)?.body)
    }

    fn st(&mut self, s: &St) -> Option<()> {
        match s {
            St::Set(d, e) => {
                self.slots.push(*d);
                self.ex(e)
            }
            St::Mov(d, _) | St::BinSlots(_, _, d, _, _) | St::BinSlotConst(_, _, d, _, _) => {
                self.slots.push(*d);
                Some(())
            }
            St::RegReadSlot { dst, .. } => {
                self.slots.push(*dst);
                Some(())
            }
            St::RegRmwSlot { tmp, .. } => {
                self.slots.push(*tmp);
                Some(())
            }
            St::RegWriteSlot { .. }
            | St::Exit
            | St::Return
            | St::Break
            | St::Continue
            | St::Emit(_) => Some(()),
            St::If(c, a, b) => {
                self.ex(c)?;
                self.block(a)?;
                self.block(b)
            }
            St::Loop(l) => {
                self.ex(&l.cond)?;
                self.block(&l.body)?;
                self.block(&l.update)
            }
            St::Block(b) => self.block(b),
            St::Switch(e, arms, d) => {
                self.ex(e)?;
                for (_, b) in arms {
                    self.block(b)?;
                }
                self.block(d)
            }
            St::Apply(t) => self.table(*t),
            St::SwitchAction(t, arms, d) => {
                self.table(*t)?;
                for b in arms.iter().flatten() {
                    self.block(b)?;
                }
                self.block(d)
            }
            St::Call(c) => {
                self.block(&c.0)?;
                self.block(&c.1)
            }
            St::RunAction(a) => self.action(*a),
            St::RunBody(b) => {
                let i = *b as usize;
                if *self.bodies.get(i)? {
                    return Some(());
                }
                self.bodies[i] = true;
                let prog = self.prog;
                self.block(prog.bodies.get(i)?)
            }
            St::Verify(c, e) => {
                self.ex(c)?;
                self.ex(e)
            }
            St::Extern(call) => match &**call {
                ExternCall::RegisterRead { dst, index, .. } => {
                    self.ex(index)?;
                    self.target(dst)
                }
                ExternCall::RegisterWrite { index, value, .. } => {
                    self.ex(index)?;
                    self.ex(value)
                }
                ExternCall::Count { index, .. } => self.ex(index),
                ExternCall::ExecuteMeter { index, dst, .. } => {
                    self.ex(index)?;
                    self.target(dst)
                }
                ExternCall::DirectMeterRead { dst, .. } => self.target(dst),
                ExternCall::Hash {
                    dst,
                    base,
                    data,
                    max,
                    ..
                } => {
                    self.ex(base)?;
                    self.ex(max)?;
                    self.leaves(data)?;
                    self.target(dst)
                }
                ExternCall::Random { dst, lo, hi } => {
                    self.ex(lo)?;
                    self.ex(hi)?;
                    self.target(dst)
                }
                ExternCall::VerifyChecksum {
                    cond,
                    data,
                    checksum,
                    ..
                } => {
                    self.ex(cond)?;
                    self.ex(checksum)?;
                    self.leaves(data)?;
                    self.slots.push(self.prog.std_meta.checksum_error);
                    Some(())
                }
                ExternCall::UpdateChecksum {
                    cond, data, dst, ..
                } => {
                    self.ex(cond)?;
                    self.leaves(data)?;
                    self.target(dst)
                }
                ExternCall::Clone { session, .. } => self.ex(session),
                ExternCall::Resubmit(_) | ExternCall::Recirculate(_) => Some(()),
                ExternCall::Truncate(e) => self.ex(e),
                ExternCall::Digest { receiver, data } => {
                    self.ex(receiver)?;
                    self.leaves(data)
                }
                ExternCall::Assert { cond, .. } => self.ex(cond),
                ExternCall::Log { data, .. } => self.leaves(data),
                ExternCall::Function { args, outs, .. } => {
                    for (_, ex) in args {
                        self.ex(ex)?;
                    }
                    for (_, target) in outs {
                        self.target(target)?;
                    }
                    Some(())
                }
            },
            St::SetW(..)
            | St::SetDyn(..)
            | St::SetDynW(..)
            | St::Extract(_)
            | St::ExtractVar(..)
            | St::Advance(_)
            | St::StackShift(_)
            | St::Copy(_) => None,
        }
    }

    /// Expressions write only through the statements of calls and the
    /// tables they apply.
    fn ex(&mut self, e: &Ex) -> Option<()> {
        match e {
            Ex::LoadDyn(d, _) | Ex::LoadDynW(d, _, _) => self.ex(&d.index),
            Ex::Seq(se) | Ex::SeqW(se) => {
                self.block(&se.0)?;
                self.ex(&se.1)
            }
            Ex::TableHit(t) | Ex::TableMiss(t) => self.table(*t),
            e => e.operands().try_for_each(|o| self.ex(o)),
        }
    }
}
