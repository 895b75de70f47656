//! The lowered program the interpreter runs.
//!
//! Compilation ([`crate::check`]) turns the AST into this form: every value a
//! packet can touch (headers, metadata, locals, action parameters) lives in
//! one flat frame of *slots*. Scalars of width up to 64 bits live in the
//! narrow frame (`u64`, masked to their width); wider ones in the wide frame
//! ([`Bits`]). P4 has no recursion, so every variable gets one fixed slot at
//! compile time and the interpreter never looks a name up or allocates to
//! read a field.
//!
//! A header is a validity slot followed by its fields' slots; a struct is its
//! fields' slots in order; a header stack is its elements followed by a
//! `nextIndex` slot. An element of a stack chosen at run time is reached
//! through a [`Dyn`] index (element stride and count).

use std::collections::HashMap;

use crate::exec::bits::{BitType, Bits};

/// A run-time index into a header stack: the element is at
/// `base + index * stride`, and the access is out of bounds when
/// `index >= count`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dyn {
    /// The element index (narrow).
    pub index: Ex,
    /// Narrow slot of element 0's first narrow slot.
    pub base_n: u32,
    /// Wide slot of element 0's first wide slot.
    pub base_w: u32,
    /// Narrow slots per element.
    pub stride_n: u32,
    /// Wide slots per element.
    pub stride_w: u32,
    /// Number of elements.
    pub count: u32,
}

/// Binary operators on narrow values; the width of the node masks results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NOp {
    /// Wrapping `+`.
    Add,
    /// Wrapping `-`.
    Sub,
    /// Wrapping `*`.
    Mul,
    /// Unsigned `/` (division by zero gives 0).
    Div,
    /// Unsigned `%` (modulo zero gives 0).
    Mod,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<<`.
    Shl,
    /// Logical `>>`.
    Shr,
    /// Arithmetic `>>` on `int<W>`.
    Sar,
    /// `|+|` on `bit<W>`.
    SatAddU,
    /// `|+|` on `int<W>`.
    SatAddS,
    /// `|-|` on `bit<W>`.
    SatSubU,
    /// `|-|` on `int<W>`.
    SatSubS,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// Unsigned `<`.
    LtU,
    /// Unsigned `<=`.
    LeU,
    /// Signed `<` (operand width in the node).
    LtS,
    /// Signed `<=`.
    LeS,
    /// Short-circuit `&&`.
    LAnd,
    /// Short-circuit `||`.
    LOr,
}

/// Binary operators evaluated on [`Bits`] (wide operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WOp {
    /// Wrapping `+`.
    Add,
    /// Wrapping `-`.
    Sub,
    /// Wrapping `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `|+|`.
    SatAdd,
    /// `|-|`.
    SatSub,
}

/// Comparisons of wide operands (the result is a narrow bool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// An expression. Each variant yields either a narrow value (`u64`, masked
/// to its width) or a wide value ([`Bits`]); compilation inserts
/// [`Ex::ToWide`] / [`Ex::ToNarrow`] where the two meet.
///
/// Equality is structural: the IR keeps no source spans, so two expressions
/// are equal when they are the same operations on the same slots and
/// constants (the Tofino checks compare index expressions this way).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ex {
    /// Narrow constant.
    Const(u64),
    /// Narrow slot.
    Load(u32),
    /// Narrow slot of a stack element chosen at run time (0 when out of
    /// bounds); the `u32` is the offset inside the element.
    LoadDyn(Box<Dyn>, u32),
    /// Narrow binary operation of the given width.
    Bin(NOp, u32, Box<(Ex, Ex)>),
    /// `~e` of the given width.
    BitNot(u32, Box<Ex>),
    /// `-e` of the given width.
    Neg(u32, Box<Ex>),
    /// `!e`.
    Not(Box<Ex>),
    /// Keep the low `width` bits.
    Mask(u32, Box<Ex>),
    /// Sign-extend from `from` bits to `to` bits.
    SExt(u32, u32, Box<Ex>),
    /// `e[hi:lo]`.
    Slice(u32, u32, Box<Ex>),
    /// `a ++ b` where `b` is the given width (result already fits).
    Concat(u32, Box<(Ex, Ex)>),
    /// `c ? a : b` (all narrow).
    Cond(Box<(Ex, Ex, Ex)>),
    /// Run the statements, then evaluate the expression (calls).
    Seq(Box<(Vec<St>, Ex)>),
    /// Apply the table; true on a hit.
    TableHit(u32),
    /// Apply the table; true on a miss.
    TableMiss(u32),
    /// `packet.lookahead<bit<W>>()` (narrow).
    Lookahead(u32),
    /// `packet.length()` in bytes.
    PacketLength,
    /// A wide value's low 64 bits.
    ToNarrow(Box<Ex>),
    /// Wide constant.
    ConstW(Bits),
    /// Wide slot.
    LoadW(u32),
    /// Wide slot of a stack element chosen at run time.
    LoadDynW(Box<Dyn>, u32, BitType),
    /// A narrow value as a wide value of the given type (sign-extended for
    /// `int`).
    ToWide(BitType, Box<Ex>),
    /// Wide binary operation.
    BinW(WOp, Box<(Ex, Ex)>),
    /// Comparison of two wide values (narrow bool result).
    CmpW(Cmp, Box<(Ex, Ex)>),
    /// `~e` on a wide value.
    BitNotW(Box<Ex>),
    /// `-e` on a wide value.
    NegW(Box<Ex>),
    /// Cast of a wide value to another type.
    CastW(BitType, Box<Ex>),
    /// `e[hi:lo]` of a wide value (wide result).
    SliceW(u32, u32, Box<Ex>),
    /// `a ++ b` on wide values.
    ConcatW(Box<(Ex, Ex)>),
    /// `c ? a : b` with wide branches.
    CondW(Box<(Ex, Ex, Ex)>),
    /// `packet.lookahead` of a wide type.
    LookaheadW(BitType),
    /// Run statements then a wide expression.
    SeqW(Box<(Vec<St>, Ex)>),
}

impl Ex {
    /// The operands of an operator node (binary, unary, cast, slice,
    /// concatenation, `?:`), in order. Leaves have none, and so have the
    /// nodes whose parts are not plain operands and which every walker
    /// treats itself: `LoadDyn`/`LoadDynW` (a stack index), `Seq`/`SeqW`
    /// (statements) and `TableHit`/`TableMiss` (a table).
    pub fn operands(&self) -> impl Iterator<Item = &Ex> {
        let (a, b, c) = match self {
            Ex::Bin(_, _, ab)
            | Ex::Concat(_, ab)
            | Ex::BinW(_, ab)
            | Ex::CmpW(_, ab)
            | Ex::ConcatW(ab) => (Some(&ab.0), Some(&ab.1), None),
            Ex::BitNot(_, a)
            | Ex::Neg(_, a)
            | Ex::Not(a)
            | Ex::Mask(_, a)
            | Ex::SExt(_, _, a)
            | Ex::Slice(_, _, a)
            | Ex::ToNarrow(a)
            | Ex::ToWide(_, a)
            | Ex::BitNotW(a)
            | Ex::NegW(a)
            | Ex::CastW(_, a)
            | Ex::SliceW(_, _, a) => (Some(&**a), None, None),
            Ex::Cond(abc) | Ex::CondW(abc) => (Some(&abc.0), Some(&abc.1), Some(&abc.2)),
            Ex::Const(_)
            | Ex::Load(_)
            | Ex::LoadDyn(..)
            | Ex::Seq(_)
            | Ex::TableHit(_)
            | Ex::TableMiss(_)
            | Ex::Lookahead(_)
            | Ex::PacketLength
            | Ex::ConstW(_)
            | Ex::LoadW(_)
            | Ex::LoadDynW(..)
            | Ex::LookaheadW(_)
            | Ex::SeqW(_) => (None, None, None),
        };
        [a, b, c].into_iter().flatten()
    }
}

/// One field of a header as extract and emit see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldLayout {
    /// Width in bits.
    pub width: u32,
    /// Signedness (for wide loads).
    pub signed: bool,
    /// Whether the field lives in the wide frame.
    pub wide: bool,
    /// Slot relative to the header's base (narrow or wide frame).
    pub offset: u32,
    /// Bit position of the field inside the header.
    pub at: u32,
    /// For a `varbit<W>` field (a header's last; `width` is W, the value
    /// wide): the narrow slot, relative to the header's base, of its
    /// current length in bits.
    pub varbit_len: Option<u32>,
}

/// A header instance: where its validity bit and fields live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderRef {
    /// Narrow slot of the validity bit (absolute, or of element 0).
    pub valid: u32,
    /// Narrow base the field offsets are relative to.
    pub base_n: u32,
    /// Wide base the field offsets are relative to.
    pub base_w: u32,
    /// Fields in wire order.
    pub fields: std::sync::Arc<[FieldLayout]>,
    /// Total width in bits (without a varbit field).
    pub bits: u32,
    /// For a stack element chosen at run time.
    pub stack: Option<Box<StackAccess>>,
}

/// How a stack element is chosen. The [`HeaderRef`] offsets are then
/// relative to the chosen element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackAccess {
    /// Narrow slot of element 0.
    pub base_n: u32,
    /// Wide slot of element 0.
    pub base_w: u32,
    /// Narrow slot of the stack's `nextIndex`.
    pub next_index: u32,
    /// Which element.
    pub which: StackWhich,
    /// Narrow slots per element.
    pub stride_n: u32,
    /// Wide slots per element.
    pub stride_w: u32,
    /// Number of elements.
    pub count: u32,
}

/// Which element of a stack a [`StackAccess`] means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StackWhich {
    /// `stack.next` (extract advances `nextIndex`).
    Next,
    /// `stack.last`.
    Last,
    /// `stack[i]` with a run-time index.
    Index(Ex),
}

/// A value for one scalar leaf, used by field lists, digests and hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// The value.
    pub ex: Ex,
    /// Its type (`bool` is `bit<1>`).
    pub ty: BitType,
    /// Validity bit of the header it belongs to: when that header is
    /// invalid BMv2 leaves the field out of hashes and checksums.
    pub valid: Option<Ex>,
    /// For a varbit field, its current length in bits: only that many low
    /// bits of the value are taken, as BMv2 takes the field's bytes.
    pub varbit_len: Option<Ex>,
}

/// A statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum St {
    /// Store a narrow value.
    Set(u32, Ex),
    /// Store a wide value.
    SetW(u32, Ex),
    /// Store into a stack element chosen at run time (ignored out of bounds).
    SetDyn(Box<Dyn>, u32, Ex),
    /// Wide store into a stack element chosen at run time.
    SetDynW(Box<Dyn>, u32, Ex),
    /// `if`.
    If(Ex, Vec<St>, Vec<St>),
    /// A nested block.
    Block(Vec<St>),
    /// `switch` on a narrow value: the first case whose values contain the
    /// value runs; otherwise `default`.
    Switch(Ex, Vec<(Vec<u64>, Vec<St>)>, Vec<St>),
    /// Apply a table ignoring the result.
    Apply(u32),
    /// `switch (t.apply().action_run)`: the body by the table's action
    /// position; `None` entries run `default`.
    SwitchAction(u32, Vec<Option<Vec<St>>>, Vec<St>),
    /// A call with copy-out: run the first list, then the copy-out
    /// statements of the second even if the call executed `exit`.
    Call(Box<(Vec<St>, Vec<St>)>),
    /// Run an action's body (parameters already stored).
    RunAction(u32),
    /// Run a function or control body; `return` stops there.
    RunBody(u32),
    /// A `for` loop (its initialisation comes before it).
    Loop(Box<Loop>),
    /// `break`: leave the innermost loop.
    Break,
    /// `continue`: on to the innermost loop's update.
    Continue,
    /// `exit`.
    Exit,
    /// `return`.
    Return,
    /// `packet.extract(hdr)`.
    Extract(Box<HeaderRef>),
    /// `packet.extract(hdr, bits)`: a header with a varbit field, which
    /// gets `bits` bits.
    ExtractVar(Box<HeaderRef>, Ex),
    /// `packet.advance(bits)`.
    Advance(Ex),
    /// `verify(cond, error)`.
    Verify(Ex, Ex),
    /// `packet.emit(hdr)` for each header in order (invalid ones skipped).
    Emit(Vec<HeaderRef>),
    /// `stack.push_front(n)` / `pop_front(n)` (negative is pop).
    StackShift(Box<StackShift>),
    /// Copy a run of slots (`n_dst`, `n_src`, count, then wide).
    Copy(Box<CopyOp>),
    /// A call of a v1model extern.
    Extern(Box<ExternCall>),
    /// Fast path: `n[dst] = n[src]`.
    Mov(u32, u32),
    /// Fast path: `n[dst] = n[a] op n[b]` at the given width.
    BinSlots(NOp, u32, u32, u32, u32),
    /// Fast path: `n[dst] = n[a] op c` at the given width.
    BinSlotConst(NOp, u32, u32, u32, u64),
    /// Fast path: narrow `register.read(n[dst], n[index])`.
    RegReadSlot {
        /// Register.
        reg: u32,
        /// Destination slot.
        dst: u32,
        /// Destination width.
        width: u32,
        /// Index slot.
        index: u32,
    },
    /// Fast path: `register.read(t, i); t = t op x; register.write(i, t);`
    /// fused (narrow slots).
    RegRmwSlot {
        /// Register.
        reg: u32,
        /// Index slot.
        index: u32,
        /// The temporary that receives the result.
        tmp: u32,
        /// The operator.
        op: NOp,
        /// Width of the operation.
        width: u32,
        /// The other operand's slot.
        operand: u32,
        /// Whether `tmp` is the left operand.
        tmp_left: bool,
    },
    /// Fast path: narrow `register.write(n[index], n[value])`.
    RegWriteSlot {
        /// Register.
        reg: u32,
        /// Index slot.
        index: u32,
        /// Value slot.
        value: u32,
    },
}

/// `while (cond) { body; update; }`, where `continue` in `body` goes on to
/// `update` and `break` leaves. The engines stop a loop after
/// [`Loop::MAX_ITERATIONS`] iterations and drop the packet (a fault, as a
/// failed `assert`): p4c's BMv2 back end only accepts loops it can bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// Tested before each iteration.
    pub cond: Ex,
    /// The body.
    pub body: Vec<St>,
    /// Run after each iteration, also after `continue`.
    pub update: Vec<St>,
}

impl Loop {
    /// Iterations after which a loop counts as endless.
    pub const MAX_ITERATIONS: u32 = 1 << 16;
}

/// Rewrites common statement shapes into the fast-path variants, then
/// fuses register read-modify-write sequences.
pub fn optimize(sts: &mut Vec<St>) {
    rewrite(sts);
    fuse_register_rmw(sts);
}

fn fuse_register_rmw(sts: &mut Vec<St>) {
    let mut out = Vec::with_capacity(sts.len());
    let mut i = 0;
    while i < sts.len() {
        if let (
            Some(St::RegReadSlot {
                reg,
                dst,
                width: rw,
                index,
            }),
            Some(St::BinSlots(op, w, d, a, b)),
            Some(St::RegWriteSlot {
                reg: reg2,
                index: index2,
                value,
            }),
        ) = (sts.get(i), sts.get(i + 1), sts.get(i + 2))
            && reg == reg2
            && index == index2
            && d == dst
            && value == dst
            && (a == dst || b == dst)
            && index != dst
            && w == rw
        {
            let tmp_left = a == dst;
            let operand = if tmp_left { *b } else { *a };
            if operand != *index {
                out.push(St::RegRmwSlot {
                    reg: *reg,
                    index: *index,
                    tmp: *dst,
                    op: *op,
                    width: *w,
                    operand,
                    tmp_left,
                });
                i += 3;
                continue;
            }
        }
        out.push(sts[i].clone());
        i += 1;
    }
    *sts = out;
}

fn rewrite(sts: &mut [St]) {
    for s in sts.iter_mut() {
        let new = match s {
            St::Set(d, Ex::Load(src)) => Some(St::Mov(*d, *src)),
            St::Set(d, Ex::Bin(op, w, ab)) if !matches!(op, NOp::LAnd | NOp::LOr) => match &**ab {
                (Ex::Load(a), Ex::Load(b)) => Some(St::BinSlots(*op, *w, *d, *a, *b)),
                (Ex::Load(a), Ex::Const(c)) => Some(St::BinSlotConst(*op, *w, *d, *a, *c)),
                _ => None,
            },
            St::Extern(call) => match &**call {
                ExternCall::RegisterRead {
                    reg,
                    dst: Target::N(dst, width),
                    index: Ex::Load(index),
                } => Some(St::RegReadSlot {
                    reg: *reg,
                    dst: *dst,
                    width: *width,
                    index: *index,
                }),
                ExternCall::RegisterWrite {
                    reg,
                    index: Ex::Load(index),
                    value: Ex::Load(value),
                } => Some(St::RegWriteSlot {
                    reg: *reg,
                    index: *index,
                    value: *value,
                }),
                _ => None,
            },
            St::If(_, a, b) => {
                optimize(a);
                optimize(b);
                None
            }
            St::Block(b) => {
                optimize(b);
                None
            }
            St::Switch(_, arms, d) => {
                for (_, b) in arms.iter_mut() {
                    optimize(b);
                }
                optimize(d);
                None
            }
            St::SwitchAction(_, arms, d) => {
                for b in arms.iter_mut().flatten() {
                    optimize(b);
                }
                optimize(d);
                None
            }
            St::Call(c) => {
                optimize(&mut c.0);
                optimize(&mut c.1);
                None
            }
            St::Loop(l) => {
                optimize(&mut l.body);
                optimize(&mut l.update);
                None
            }
            _ => None,
        };
        if let Some(n) = new {
            *s = n;
        }
    }
}

/// Shift the elements of a header stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackShift {
    /// Narrow base of element 0.
    pub base_n: u32,
    /// Wide base of element 0.
    pub base_w: u32,
    /// Narrow slots per element.
    pub stride_n: u32,
    /// Wide slots per element.
    pub stride_w: u32,
    /// Number of elements.
    pub count: u32,
    /// `nextIndex` slot.
    pub next_index: u32,
    /// Validity offset inside an element.
    pub valid_offset: u32,
    /// Positive: push_front; negative: pop_front.
    pub by: i64,
}

/// Copy consecutive slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyOp {
    /// Narrow destination.
    pub n_dst: u32,
    /// Narrow source.
    pub n_src: u32,
    /// Narrow count.
    pub n_len: u32,
    /// Wide destination.
    pub w_dst: u32,
    /// Wide source.
    pub w_src: u32,
    /// Wide count.
    pub w_len: u32,
}

/// Where an `out` result of an extern goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A narrow slot of the given width.
    N(u32, u32),
    /// A wide slot.
    W(u32, BitType),
    /// A narrow stack slot chosen at run time.
    DynN(Box<Dyn>, u32, u32),
    /// A wide stack slot chosen at run time.
    DynW(Box<Dyn>, u32, BitType),
}

/// The v1model externs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExternCall {
    /// `register.read(result, index)`.
    RegisterRead {
        /// Register array.
        reg: u32,
        /// Result location.
        dst: Target,
        /// Index.
        index: Ex,
    },
    /// `register.write(index, value)`.
    RegisterWrite {
        /// Register array.
        reg: u32,
        /// Index.
        index: Ex,
        /// Value (narrow or wide per the register's width).
        value: Ex,
    },
    /// `counter.count(index)`.
    Count {
        /// Counter array.
        counter: u32,
        /// Index.
        index: Ex,
    },
    /// `meter.execute_meter(index, result)`.
    ExecuteMeter {
        /// Meter array.
        meter: u32,
        /// Index.
        index: Ex,
        /// Color result.
        dst: Target,
    },
    /// `direct_meter.read(result)` in an action of the table owning it.
    DirectMeterRead {
        /// Meter array.
        meter: u32,
        /// Color result.
        dst: Target,
    },
    /// `hash(result, algo, base, data, max)`.
    Hash {
        /// Algorithm.
        algo: crate::exec::hash::HashAlgorithm,
        /// Result.
        dst: Target,
        /// Base (narrow or wide as `base_ty`).
        base: Ex,
        /// Base type.
        base_ty: BitType,
        /// Data leaves.
        data: Vec<Leaf>,
        /// Max.
        max: Ex,
        /// Max type.
        max_ty: BitType,
    },
    /// `random(result, lo, hi)`.
    Random {
        /// Result.
        dst: Target,
        /// Low bound (narrow).
        lo: Ex,
        /// High bound (narrow).
        hi: Ex,
    },
    /// `verify_checksum[_with_payload]`.
    VerifyChecksum {
        /// Condition.
        cond: Ex,
        /// Data leaves.
        data: Vec<Leaf>,
        /// The checksum field.
        checksum: Ex,
        /// Algorithm.
        algo: crate::exec::hash::HashAlgorithm,
        /// Append the unparsed payload.
        with_payload: bool,
    },
    /// `update_checksum[_with_payload]`.
    UpdateChecksum {
        /// Condition.
        cond: Ex,
        /// Data leaves.
        data: Vec<Leaf>,
        /// The checksum field.
        dst: Target,
        /// Algorithm.
        algo: crate::exec::hash::HashAlgorithm,
        /// Append the unparsed payload.
        with_payload: bool,
    },
    /// `clone` / `clone_preserving_field_list`.
    Clone {
        /// Egress-to-egress (else ingress-to-egress).
        e2e: bool,
        /// Session id.
        session: Ex,
        /// Field list index (`None` for plain `clone`).
        field_list: Option<u8>,
    },
    /// `resubmit_preserving_field_list`.
    Resubmit(u8),
    /// `recirculate_preserving_field_list`.
    Recirculate(u8),
    /// `truncate(length)`.
    Truncate(Ex),
    /// `digest(receiver, data)`.
    Digest {
        /// Receiver.
        receiver: Ex,
        /// Values.
        data: Vec<Leaf>,
    },
    /// `assert` / `assume`.
    Assert {
        /// The condition.
        cond: Ex,
        /// Where (for the error message).
        location: String,
    },
    /// `log_msg(msg, data)`.
    Log {
        /// Message with `{}` placeholders.
        message: String,
        /// Values.
        data: Vec<Leaf>,
    },
    /// A call of an extern function the program declares itself, run by
    /// the implementation registered under its name
    /// (`V1Switch::register_extern_function`), as BMv2 runs one loaded
    /// from a module.
    Function {
        /// The function's name.
        name: std::sync::Arc<str>,
        /// Each parameter's value on entry (0 for an `out` one), with its
        /// type.
        args: Vec<(BitType, Ex)>,
        /// Where each `out`/`inout` parameter's value goes after the call:
        /// (its index in `args`, the place).
        outs: Vec<(usize, Target)>,
    },
}

/// Match kinds of table keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    /// `exact`.
    Exact,
    /// `lpm`.
    Lpm,
    /// `ternary`.
    Ternary,
    /// `range`.
    Range,
    /// `optional`.
    Optional,
}

impl MatchKind {
    /// The P4 spelling.
    pub fn name(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Lpm => "lpm",
            MatchKind::Ternary => "ternary",
            MatchKind::Range => "range",
            MatchKind::Optional => "optional",
        }
    }
}

/// One key element of a table.
#[derive(Debug, Clone)]
pub struct KeyIr {
    /// Control-plane name (the expression text or `@name`).
    pub name: String,
    /// The matched value (narrow or wide by width).
    pub ex: Ex,
    /// Width in bits.
    pub width: u32,
    /// Match kind.
    pub kind: MatchKind,
}

/// An action listed in a table.
#[derive(Debug, Clone)]
pub struct TableAction {
    /// Index into [`Compiled::actions`].
    pub action: u32,
    /// `@defaultonly`.
    pub default_only: bool,
    /// `@tableonly`.
    pub table_only: bool,
}

/// A value of an action argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// Narrow.
    N(u64),
    /// Wide.
    W(Bits),
}

/// A key element of an entry, as stored for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyMatch {
    /// Value and mask (exact: all ones; lpm: prefix mask; optional: all or none).
    Masked(u128, u128),
    /// Inclusive range.
    Range(u128, u128),
}

/// A table entry in the form the matcher uses.
#[derive(Debug, Clone)]
pub struct EntryIr {
    /// One element per key.
    pub keys: Vec<KeyMatch>,
    /// Priority: larger wins.
    pub priority: i64,
    /// Position of the action in the table's action list.
    pub action: usize,
    /// Argument values in parameter order.
    pub args: Vec<ArgValue>,
}

/// A table.
#[derive(Debug, Clone)]
pub struct TableIr {
    /// Fully qualified control-plane name.
    pub name: String,
    /// Keys in order.
    pub keys: Vec<KeyIr>,
    /// Actions in order.
    pub actions: Vec<TableAction>,
    /// Default action position and arguments (`None`: nothing runs on a
    /// miss).
    pub default_action: Option<(usize, Vec<ArgValue>)>,
    /// `const default_action`.
    pub default_const: bool,
    /// Entries from `entries = {...}` in priority order.
    pub const_entries: Vec<EntryIr>,
    /// Whether `entries` was `const` (no run-time changes).
    pub entries_const: bool,
    /// `size` (default 1024 as in BMv2).
    pub size: u64,
    /// Attached `direct_counter`.
    pub direct_counter: Option<u32>,
    /// Attached `direct_meter`.
    pub direct_meter: Option<u32>,
    /// The action profile whose members the entries' actions come from
    /// (`implementation`), if any.
    pub profile: Option<ProfileIr>,
}

/// An action profile: tables that name the same one share its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileIr {
    /// Fully qualified control-plane name.
    pub name: String,
    /// Members it can hold.
    pub size: u64,
}

/// A parameter of an action.
#[derive(Debug, Clone)]
pub struct ParamIr {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: BitType,
    /// Slot (narrow or wide by width).
    pub slot: u32,
    /// Whether it comes from the control plane (no direction).
    pub control_plane: bool,
}

/// An action.
#[derive(Debug, Clone)]
pub struct ActionIr {
    /// Fully qualified name.
    pub name: String,
    /// Parameters.
    pub params: Vec<ParamIr>,
    /// Body.
    pub body: Vec<St>,
}

/// How a counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterUnit {
    /// Packets.
    Packets,
    /// Bytes.
    Bytes,
    /// Both.
    PacketsAndBytes,
}

/// A counter (indexed or direct).
#[derive(Debug, Clone)]
pub struct CounterIr {
    /// Fully qualified name.
    pub name: String,
    /// Cells (for a direct counter: the owning table's entries).
    pub size: u64,
    /// Unit.
    pub unit: CounterUnit,
    /// Owning table, for direct counters.
    pub table: Option<u32>,
}

/// A register array.
#[derive(Debug, Clone)]
pub struct RegisterIr {
    /// Fully qualified name.
    pub name: String,
    /// Cells.
    pub size: u64,
    /// Cell type.
    pub ty: BitType,
}

/// A meter array.
#[derive(Debug, Clone)]
pub struct MeterIr {
    /// Fully qualified name.
    pub name: String,
    /// Cells.
    pub size: u64,
    /// Count bytes (else packets).
    pub bytes: bool,
    /// Owning table, for direct meters.
    pub table: Option<u32>,
}

/// Where a select case goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// `accept`.
    Accept,
    /// `reject`.
    Reject,
    /// Another state.
    State(u32),
}

/// A keyset element of a select case.
#[derive(Debug, Clone)]
pub enum SelectKey {
    /// `default` / `_`.
    Any,
    /// `(key & mask) == value`.
    Masked(u64, u64),
    /// `lo <= key <= hi`.
    Range(u64, u64),
}

/// A parser state's transition.
#[derive(Debug, Clone)]
pub enum Transition {
    /// Unconditional.
    Go(Next),
    /// `select`: keys, then cases in order; no match is `error.NoMatch`.
    Select(Vec<Ex>, Vec<(Vec<SelectKey>, Next)>),
}

/// A parser state.
#[derive(Debug, Clone)]
pub struct StateIr {
    /// Name.
    pub name: String,
    /// Statements.
    pub body: Vec<St>,
    /// Transition.
    pub transition: Transition,
}

/// Slots of `standard_metadata`.
#[derive(Debug, Clone, Default)]
pub struct StdMeta {
    /// `ingress_port`.
    pub ingress_port: u32,
    /// `egress_spec`.
    pub egress_spec: u32,
    /// `egress_port`.
    pub egress_port: u32,
    /// `instance_type`.
    pub instance_type: u32,
    /// `packet_length`.
    pub packet_length: u32,
    /// `ingress_global_timestamp`.
    pub ingress_global_timestamp: u32,
    /// `egress_global_timestamp`.
    pub egress_global_timestamp: u32,
    /// `mcast_grp`.
    pub mcast_grp: u32,
    /// `egress_rid`.
    pub egress_rid: u32,
    /// `checksum_error`.
    pub checksum_error: u32,
    /// `parser_error`.
    pub parser_error: u32,
    /// `priority`.
    pub priority: u32,
}

/// A compiled v1model program, ready for [`crate::v1switch::V1Switch`].
#[derive(Debug, Clone)]
pub struct Compiled {
    /// Number of narrow slots.
    pub n_slots: u32,
    /// Initial (zero) values of the wide slots, with their types.
    pub w_init: Vec<Bits>,
    /// Narrow slots holding metadata (user metadata and standard_metadata),
    /// reset when a packet is cloned, resubmitted or recirculated.
    pub meta_n: std::ops::Range<u32>,
    /// The narrow slots of the packet's state, `0..packet_n`: headers,
    /// metadata and standard metadata, zeroed for every packet. The slots
    /// after them (parameters, locals, return values, temporaries) are
    /// written before they are read each time their code runs, so they
    /// are left as the last packet left them (see
    /// [`crate::v1switch::V1Switch::fill_scratch`]).
    pub packet_n: u32,
    /// Wide slots holding metadata.
    pub meta_w: std::ops::Range<u32>,
    /// standard_metadata slots.
    pub std_meta: StdMeta,
    /// Field lists (`@field_list(i)`): narrow and wide slots per index.
    pub field_lists: HashMap<u8, (Vec<u32>, Vec<u32>)>,
    /// Error member names by code.
    pub errors: Vec<String>,
    /// Parser states; the start state is 0.
    pub parser: Vec<StateIr>,
    /// Statements run at parser start (local initialisation).
    pub parser_init: Vec<St>,
    /// VerifyChecksum body.
    pub verify_checksum: Vec<St>,
    /// Ingress body.
    pub ingress: Vec<St>,
    /// Egress body.
    pub egress: Vec<St>,
    /// ComputeChecksum body.
    pub compute_checksum: Vec<St>,
    /// Deparser body.
    pub deparser: Vec<St>,
    /// Function and sub-control bodies for [`St::RunBody`].
    pub bodies: Vec<Vec<St>>,
    /// Actions.
    pub actions: Vec<ActionIr>,
    /// Tables.
    pub tables: Vec<TableIr>,
    /// Registers.
    pub registers: Vec<RegisterIr>,
    /// Counters (indexed and direct).
    pub counters: Vec<CounterIr>,
    /// Meters (indexed and direct).
    pub meters: Vec<MeterIr>,
    /// For a TNA program, what the switch needs beyond the v1model shape
    /// (`None` for v1model).
    pub tna: Option<Box<TnaIr>>,
    /// How a PSA program's blocks sit in this shape, when it is one.
    pub psa: Option<Box<PsaIr>>,
}

/// How a TNA (Tofino Native Architecture) program sits in the v1model
/// shape of [`Compiled`]: `parser` starts with a state that picks the
/// ingress or the egress parser by the `gress` slot, `ingress` and
/// `egress` are the two controls, `deparser` picks the ingress or egress
/// deparser by `gress`; `verify_checksum` and `compute_checksum` are
/// empty, and [`StdMeta`]'s slots are hidden ones the switch fills as for
/// v1model. The intrinsic metadata live in the slots named here.
#[derive(Debug, Clone)]
pub struct TnaIr {
    /// Hidden slot: 0 while the ingress half runs, 1 for egress.
    pub gress: u32,
    /// `ingress_intrinsic_metadata_t`, which the switch writes in front
    /// of the packet: its fields' names and layout.
    pub ig_intr: IntrinsicHeader,
    /// `egress_intrinsic_metadata_t`, in front of each egress copy.
    pub eg_intr: IntrinsicHeader,
    /// `ingress_intrinsic_metadata_from_parser_t.global_tstamp`.
    pub ig_global_tstamp: u32,
    /// `ingress_intrinsic_metadata_from_parser_t.parser_err`.
    pub ig_parser_err: u32,
    /// `ingress_intrinsic_metadata_for_deparser_t.drop_ctl`.
    pub ig_drop_ctl: u32,
    /// `ingress_intrinsic_metadata_for_tm_t.ucast_egress_port`.
    pub ucast_egress_port: u32,
    /// `ingress_intrinsic_metadata_for_tm_t.bypass_egress`.
    pub bypass_egress: u32,
    /// `ingress_intrinsic_metadata_for_tm_t.mcast_grp_a`.
    pub mcast_grp_a: u32,
    /// `ingress_intrinsic_metadata_for_tm_t.mcast_grp_b`.
    pub mcast_grp_b: u32,
    /// `egress_intrinsic_metadata_from_parser_t.global_tstamp`.
    pub eg_global_tstamp: u32,
    /// `egress_intrinsic_metadata_from_parser_t.parser_err`.
    pub eg_parser_err: u32,
    /// `egress_intrinsic_metadata_for_deparser_t.drop_ctl`.
    pub eg_drop_ctl: u32,
    /// Narrow slots of the egress half (its parser's outputs and locals,
    /// the egress controls' state), reset for each egress copy.
    pub egress_n: std::ops::Range<u32>,
    /// Wide slots of the egress half.
    pub egress_w: std::ops::Range<u32>,
    /// Hidden slot: 1 + the index into `resubmit_headers` of the header a
    /// `Resubmit.emit(hdr)` chose (0: no resubmit; `u32::MAX`: `emit()`
    /// without data).
    pub resubmit: u32,
    /// The headers `Resubmit.emit(hdr)` calls name.
    pub resubmit_headers: Vec<HeaderRef>,
}

/// Slots of one value: narrow and wide.
#[derive(Debug, Clone, Default)]
pub struct SlotRange {
    /// Narrow slots.
    pub n: std::ops::Range<u32>,
    /// Wide slots.
    pub w: std::ops::Range<u32>,
}

/// How a PSA (`PSA_Switch`) program sits in the v1model shape of
/// [`Compiled`], as a TNA program does ([`TnaIr`]): `parser` starts with a
/// state that picks the ingress or the egress parser by the `gress` slot,
/// `deparser` the ingress or egress deparser. The fields named here are
/// the slots of the architecture's metadata the packet flow writes before
/// a block and reads after it (`ip_`: `psa_ingress_parser_input_metadata_t`,
/// `ig_`: the ingress input and output metadata, `ep_`, `eg_`, `ed_`: the
/// egress parser's, the egress control's and the egress deparser's).
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub struct PsaIr {
    /// Hidden slot: 0 while the ingress half runs, 1 for egress.
    pub gress: u32,
    pub ip_port: u32,
    pub ip_path: u32,
    pub ig_port: u32,
    pub ig_path: u32,
    pub ig_tstamp: u32,
    pub ig_parser_error: u32,
    pub ig_cos: u32,
    pub ig_clone: u32,
    pub ig_clone_session: u32,
    pub ig_drop: u32,
    pub ig_resubmit: u32,
    pub ig_mcast_grp: u32,
    pub ig_egress_port: u32,
    pub ep_port: u32,
    pub ep_path: u32,
    pub eg_cos: u32,
    pub eg_port: u32,
    pub eg_path: u32,
    pub eg_instance: u32,
    pub eg_tstamp: u32,
    pub eg_parser_error: u32,
    pub eg_clone: u32,
    pub eg_clone_session: u32,
    pub eg_drop: u32,
    pub ed_port: u32,
    /// The user metadata the architecture passes between blocks: written
    /// by a deparser, read by a parser of a later pass or copy.
    pub resubmit_meta: SlotRange,
    pub recirculate_meta: SlotRange,
    pub normal_meta: SlotRange,
    pub clone_i2e_meta: SlotRange,
    pub clone_e2e_meta: SlotRange,
    /// Narrow slots of the egress half, reset for each egress copy.
    pub egress_n: std::ops::Range<u32>,
    /// Wide slots of the egress half.
    pub egress_w: std::ops::Range<u32>,
}

/// An intrinsic-metadata header the switch serializes: field names with
/// their layout.
#[derive(Debug, Clone)]
pub struct IntrinsicHeader {
    /// Field names, in wire order.
    pub names: Vec<String>,
    /// Field layouts, in wire order.
    pub fields: Vec<FieldLayout>,
    /// Total width in bits (a multiple of 8).
    pub bits: u32,
}

impl IntrinsicHeader {
    /// The header's bytes with the named fields set (the others 0).
    pub fn pack(&self, values: &[(&str, u64)]) -> Vec<u8> {
        let mut out = vec![0u8; self.bits.div_ceil(8) as usize];
        for (name, v) in values {
            let Some(i) = self.names.iter().position(|n| n == name) else {
                continue;
            };
            let f = self.fields[i];
            for b in 0..f.width.min(64) {
                if (v >> (f.width - 1 - b)) & 1 == 1 {
                    let bit = f.at + b;
                    if let Some(byte) = out.get_mut((bit / 8) as usize) {
                        *byte |= 0x80 >> (bit % 8);
                    }
                }
            }
        }
        out
    }
}

impl Compiled {
    /// Applies [`optimize`] to every statement list.
    pub fn optimize(&mut self) {
        for s in &mut self.parser {
            optimize(&mut s.body);
        }
        for b in [
            &mut self.parser_init,
            &mut self.verify_checksum,
            &mut self.ingress,
            &mut self.egress,
            &mut self.compute_checksum,
            &mut self.deparser,
        ] {
            optimize(b);
        }
        for b in &mut self.bodies {
            optimize(b);
        }
        for a in &mut self.actions {
            optimize(&mut a.body);
        }
    }

    /// The code of an error member such as `"NoMatch"`.
    pub fn error_code(&self, name: &str) -> Option<u64> {
        self.errors.iter().position(|e| e == name).map(|i| i as u64)
    }
}
