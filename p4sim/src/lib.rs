//! # p4sim
//!
//! A P4_16 interpreter with v1model / BMv2 `simple_switch` semantics, for
//! running and testing P4 programs where p4c and BMv2 are not available.
//!
//! ## Layout
//! - Front end: [`preprocess`] (C preprocessor with built-in `core.p4` and
//!   `v1model.p4`), [`lexer`], [`parser`] into the [`ast`], entry points in
//!   [`frontend`]; errors are [`diagnostic::Diagnostic`]s with
//!   `file:line:col`, built on [`source`] spans.
//! - Building blocks of execution: [`bits`] (arbitrary-width values),
//!   [`hash`] (BMv2's hash and checksum algorithms), [`pre`] (the packet
//!   replication engine and clone sessions).
//! - Compilation and execution: [`check`] (name resolution, type checking,
//!   constant folding; `compile`, `compile_file`, `compile_source`; one
//!   pass whose methods are split by phase in `check/`: types, scope,
//!   parser, control, tables, stmt, expr, externs, and the TNA layer)
//!   lowers the AST to the [`ir`] (flat slots, pre-resolved tables and externs);
//!   [`engine`] lowers it once more into closures (the default engine;
//!   [`exec`] is the reference interpreter, and runs what the engine does
//!   not lower), [`table`] holds table entries and lookup
//!   indexes, and [`v1switch`] is the v1model target (`V1Switch::process`
//!   and the control-plane API).
//! - Tooling: [`stf`] (p4c's STF test format), [`stf_runner`] (runs STF
//!   tests on [`v1switch::V1Switch`]) and [`p4info_id`] (P4Runtime ids as p4c
//!   assigns them).

pub mod ast;
pub mod bits;
pub mod check;
pub mod diagnostic;
pub mod engine;
pub mod exec;
pub mod frontend;
pub mod hash;
pub mod ir;
pub mod lexer;
pub mod native;
pub mod p4info;
pub mod p4info_id;
pub mod parser;
pub mod pre;
pub mod preprocess;
pub mod source;
pub mod stf;
pub mod stf_runner;
pub mod table;
pub mod v1switch;
