//! P4Info for v1model programs, as `p4c --p4runtime-files x.p4info.txt`
//! produces it.
//!
//! [`p4info`] builds a structured [`P4Info`] (ids, names, bit widths) from a
//! parsed program; [`P4Info::to_text`] prints it in protobuf text format, byte
//! for byte as p4c does (fields in field-number order, proto3 defaults
//! omitted, map entries sorted by key).
//!
//! By concern, each module using only those listed before it:
//! - [`id`]: P4Runtime ids as p4c assigns them;
//! - `model`: the [`P4Info`] objects, re-exported here;
//! - `text`: [`P4Info::to_text`], the text format;
//! - `names`: names, annotations and field ids as p4c's front end gives
//!   them; `plan`: what survives of a control after p4c's front end;
//! - `tna`: bf-p4c's ids and port metadata for TNA programs;
//! - `builder`: [`p4info`] itself, which walks the program with the
//!   checker's resolution ([`crate::check::Resolver`]) and uses the rest.

mod builder;
pub mod id;
mod model;
mod names;
mod plan;
mod text;
mod tna;

use crate::front::diagnostic::Diagnostic;
use builder::Builder;

pub use builder::DEFAULT_TABLE_SIZE;
pub use model::{
    Action, ActionParam, ActionProfile, ActionRef, ActionScope, ControllerPacketMetadata, Counter,
    CounterUnit, Digest, DirectCounter, DirectMeter, ExternInstance, ExternType, HeaderMember,
    MatchField, MatchType, Meter, MeterUnit, NewTypeSpec, P4Info, PacketMetadata, Preamble,
    Register, SelectorSizeSemantics, SerializableEnumSpec, Table, TableActionCall, TypeInfo,
    TypeSpec, ValueSet,
};
pub use text::TextOptions;

/// Builds the P4Info of `program` and prints it in text format.
pub fn p4info_text(program: &crate::front::ast::Program) -> Result<String, Diagnostic> {
    Ok(p4info(program)?.to_text())
}

/// Builds the P4Info of a v1model or TNA `program`. The Tofino rules a TNA
/// program must keep are [`crate::check::compile`]'s: `esa p4info` applies
/// them, as bf-p4c writes no P4Info for a program the hardware cannot hold.
pub fn p4info(program: &crate::front::ast::Program) -> Result<P4Info, Diagnostic> {
    Builder::new(program)
        .and_then(Builder::run)
        .map_err(|e| Diagnostic::from_error(e, &program.sources))
}

/// Whether `program`'s `main` is an instance of TNA's `Switch` package.
pub fn is_tna(program: &crate::front::ast::Program) -> bool {
    use crate::front::ast::{Declaration, TypeKind};
    program.declarations.iter().any(|d| match d {
        Declaration::Instantiation(i) if i.name.as_str() == "main" => match &i.ty.kind {
            TypeKind::Name(p) => p.name.as_str() == "Switch",
            TypeKind::Specialized { base, .. } => base.name.as_str() == "Switch",
            _ => false,
        },
        _ => false,
    })
}
