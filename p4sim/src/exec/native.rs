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
//!
//! By concern, each module using only those listed before it:
//! - `runtime`: what generated code runs on and calls ([`NativeProgram`],
//!   [`Entry`], [`Cx`], and the helpers [`nop`], [`sext`], [`read_bits`],
//!   [`csum16_bits`]); its paths here are the ones generated code names.
//! - `slots`: where each slot lives in generated code: the slots the switch
//!   and the fallbacks see (kept in the frame), the calls whose parameters
//!   stay in their arguments' slots, and the slot accesses in generated
//!   text, rewritten to locals or to arguments.
//! - `codegen`: the generator ([`generate`]), one Rust function per
//!   parser, stage, table, action and body.
//! - `registry`: the programs compiled in ([`register`]) and the binding of
//!   one to a loaded program, which [`crate::exec::engine`] holds.

mod codegen;
mod registry;
mod runtime;
mod slots;

pub use crate::exec::state::Flow;
pub use codegen::generate;
pub(crate) use registry::Bound;
pub use registry::register;
pub use runtime::{Cx, Entry, NativeProgram, csum16_bits, nop, read_bits, sext};
