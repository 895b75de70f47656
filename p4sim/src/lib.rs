//! # p4sim
//!
//! A P4_16 interpreter with v1model / BMv2 `simple_switch` semantics, for
//! running and testing P4 programs where p4c and BMv2 are not available.
//!
//! ## Layout
//! By phase, as p4c and BMv2 are:
//! - [`front`]: the front end. [`front::preprocess`] (C preprocessor with
//!   built-in `core.p4` and `v1model.p4`), [`front::lexer`],
//!   [`front::parser`] into the [`front::ast`]; entry points
//!   (`parse_program`, `parse_source`) in [`front`]; errors are
//!   [`front::diagnostic::Diagnostic`]s with `file:line:col`, built on
//!   [`front::source`] spans.
//! - [`check`]: name resolution, type checking, constant folding (`compile`,
//!   `compile_file`, `compile_source`; one pass whose methods are split by
//!   phase in `check/`: types, scope, parser, control, tables, stmt, expr,
//!   externs, and the TNA layer); it lowers the AST to the [`ir`] (flat
//!   slots, pre-resolved tables and externs), and its
//!   [`check::Resolver`] gives the control plane the same resolution.
//! - [`exec`]: running the IR. [`exec::bits`] (arbitrary-width values),
//!   [`exec::hash`] (BMv2's hash and checksum algorithms), narrow
//!   arithmetic, [`exec::cells`] (register and meter cells),
//!   [`exec::table`] (table entries and lookup indexes), [`exec::state`]
//!   (what every engine runs on), and the engines: [`exec::engine`]
//!   (closures, the default), [`exec::native`] (generated Rust for programs
//!   known at build time) and [`exec::interp`] (the reference interpreter,
//!   which runs what the others do not lower).
//! - [`v1switch`]: the v1model target (`V1Switch::process` and the
//!   control-plane API), its packet replication engine and clone sessions
//!   ([`v1switch::pre`]) and the TNA flow on the same switch.
//! - [`p4info`]: P4Info as p4c writes it, its types, widths and constants
//!   from [`check::Resolver`], with P4Runtime ids as p4c assigns them
//!   ([`p4info::id`]); split into its object model, the text writer, the
//!   builder and bf-p4c's TNA ids.
//! - [`stf`]: p4c's STF test format, and [`stf::runner`], which runs STF
//!   tests on [`v1switch::V1Switch`].
//!
//! Each module uses only those before it in this order, so imports form
//! no circle: [`front`]; [`exec::bits`] and [`exec::hash`]; [`ir`]; the
//! narrow arithmetic (`exec::narrow`); [`check`]; [`exec::cells`],
//! [`exec::table`], [`exec::state`]; [`exec::interp`]; what the closure and
//! native engines share (`exec::lowering`); [`exec::native`] (its
//! `runtime`, `slots`, `codegen`, `registry`); [`exec::engine`], which
//! binds a program's native code; [`v1switch`]; [`stf`]; and [`p4info`]
//! (`id`, `model`, `text`, `names`, `plan`, `tna`, then `builder`, which
//! uses [`check`]). The one exception is by design: [`check`]'s phase
//! files and [`v1switch`]'s TNA flow add methods to their parent's type
//! and so use their parent too.

pub mod check;
pub mod exec;
pub mod front;
pub mod ir;
pub mod p4info;
pub mod stf;
pub mod v1switch;
