//! What the two compiling engines share, below both: the closure engine
//! ([`crate::exec::engine`]) lowers the native engine's fallbacks
//! ([`crate::exec::native`]), and both decide alike which statements are
//! straight-line and which checksum inputs are narrow slots, and call the
//! same helpers at run time.
//!
//! - [`StFn`], [`ExFn`]: a statement or narrow expression lowered to a
//!   closure on the interpreter's context.
//! - [`pure_st`] (and [`pure_ex`]): a statement that runs without flow
//!   checks; [`slot_leaves`]: hash and checksum input made of narrow slots.
//! - [`copy_args`]: a table action's arguments into its parameters' slots;
//!   [`hash_bits`]: a hash over fields packed as the deparser packs them.

use crate::exec::interp::Exec;
use crate::exec::state::Flow;
use crate::ir::*;

/// A narrow expression lowered to a closure.
pub(crate) type ExFn = Box<dyn Fn(&mut Exec<'_>) -> u64 + Send + Sync>;
/// A statement lowered to a closure.
pub(crate) type StFn = Box<dyn Fn(&mut Exec<'_>) -> Flow + Send + Sync>;

/// Whether evaluating `e` lowers without the interpreter and cannot touch
/// control flow (no calls, table applies or lookahead).
pub(crate) fn pure_ex(e: &Ex) -> bool {
    match e {
        Ex::Const(_) | Ex::Load(_) | Ex::PacketLength => true,
        Ex::Bin(_, _, ab) | Ex::Concat(_, ab) => pure_ex(&ab.0) && pure_ex(&ab.1),
        Ex::BitNot(_, a) | Ex::Neg(_, a) | Ex::Not(a) | Ex::Mask(_, a) | Ex::SExt(_, _, a) => {
            pure_ex(a)
        }
        Ex::Slice(hi, lo, a) => *lo < 64 && hi >= lo && pure_ex(a),
        Ex::Cond(abc) => pure_ex(&abc.0) && pure_ex(&abc.1) && pure_ex(&abc.2),
        _ => false,
    }
}

/// Whether `s` is straight-line: no `exit`, `return`, reject or table
/// apply anywhere in it, and every part lowers without the interpreter
/// (the compiled engine runs it without flow checks; the native engine
/// without them too).
pub(crate) fn pure_st(prog: &Compiled, s: &St) -> bool {
    let all = |b: &[St]| b.iter().all(|s| pure_st(prog, s));
    match s {
        St::Set(_, e) => pure_ex(e),
        St::Mov(..)
        | St::BinSlots(..)
        | St::BinSlotConst(..)
        | St::RegReadSlot { .. }
        | St::RegRmwSlot { .. }
        | St::RegWriteSlot { .. } => true,
        St::Copy(c) => c.w_len == 0,
        St::If(c, a, b) => pure_ex(c) && all(a) && all(b),
        St::Block(b) => all(b),
        St::Call(c) => all(&c.0) && all(&c.1),
        St::RunBody(b) => prog.bodies.get(*b as usize).is_some_and(|b| all(b)),
        St::RunAction(a) => prog.actions.get(*a as usize).is_some_and(|a| all(&a.body)),
        St::Extern(call) => match &**call {
            ExternCall::Count { index, .. } => pure_ex(index),
            ExternCall::RegisterRead {
                reg,
                dst: Target::N(..),
                index,
            } => narrow_register(prog, *reg) && pure_ex(index),
            ExternCall::RegisterWrite { reg, index, value } => {
                narrow_register(prog, *reg) && pure_ex(index) && pure_ex(value)
            }
            _ => false,
        },
        _ => false,
    }
}

fn narrow_register(prog: &Compiled, reg: u32) -> bool {
    prog.registers
        .get(reg as usize)
        .is_some_and(|r| r.ty.width() <= 64)
}

/// Stores a table action's arguments `args` in the slots of its
/// control-plane parameters `params` (`true`: wide).
#[inline]
pub(crate) fn copy_args(
    n: &mut [u64],
    w: &mut [crate::exec::bits::Bits],
    params: &[(usize, bool)],
    args: &[ArgValue],
) {
    for (&(slot, _), a) in params.iter().zip(args) {
        match a {
            ArgValue::N(v) => {
                if let Some(x) = n.get_mut(slot) {
                    *x = *v;
                }
            }
            ArgValue::W(b) => {
                if let Some(x) = w.get_mut(slot) {
                    *x = b.clone();
                }
            }
        }
    }
}

/// Hash and checksum input made of narrow slots: (slot, width, validity
/// slot of its header).
pub(crate) type SlotLeaves = Box<[(usize, u32, Option<usize>)]>;

/// The leaves when each is a narrow slot with an optional validity slot.
pub(crate) fn slot_leaves(data: &[Leaf]) -> Option<SlotLeaves> {
    data.iter()
        .map(|l| {
            if l.varbit_len.is_some() {
                return None;
            }
            let w = l.ty.width();
            let valid = match &l.valid {
                None => None,
                Some(Ex::Load(v)) => Some(*v as usize),
                Some(_) => return None,
            };
            match &l.ex {
                Ex::Load(s) if w <= 64 => Some((*s as usize, w, valid)),
                _ => None,
            }
        })
        .collect()
}

/// `algo` over the bits of `values` (value, width), then `payload`,
/// packed as the deparser packs fields, in `scratch` (reused).
// `inline` so that the closure engine's `checksum_of` inlines it again
// from this module's code-generation unit, as it did when both were in
// `engine`; no generated program calls `Cx::checksum`, the other caller.
#[inline]
pub(crate) fn hash_bits(
    scratch: &mut Vec<u8>,
    values: impl IntoIterator<Item = (u64, u32)>,
    payload: Option<&[u8]>,
    algo: crate::exec::hash::HashAlgorithm,
) -> u64 {
    let mut buf = std::mem::take(scratch);
    buf.clear();
    let mut w = crate::exec::narrow::BitWriter::with_buffer(buf);
    for (v, width) in values {
        w.push(v, width);
    }
    let mut bytes = w.finish();
    if let Some(p) = payload {
        bytes.extend_from_slice(p);
    }
    let h = algo.compute(&bytes).unwrap_or(0);
    *scratch = bytes;
    h
}
