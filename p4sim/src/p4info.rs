//! P4Info for v1model programs, as `p4c --p4runtime-files x.p4info.txt`
//! produces it.
//!
//! [`p4info`] builds a structured [`P4Info`] (ids, names, bit widths) from a
//! parsed program; [`P4Info::to_text`] prints it in protobuf text format, byte
//! for byte as p4c does (fields in field-number order, proto3 defaults
//! omitted, map entries sorted by key).
//!
//! What p4c's front end does before it serializes is reproduced here over the
//! AST, because it decides names and the order of objects:
//!
//! - every object declared in a control gets the control's name as a prefix
//!   (`HierarchicalNames`); an `@name(".x")` makes it global instead;
//! - key elements without `@name` are named after their expression
//!   (`TableKeyNames`: `hdr.ipv4.dstAddr`, `hdr.ipv4.$valid$`, `x[7:0]`);
//! - a table without `default_action` gets `NoAction`, added to its action
//!   list as `@defaultonly` when missing;
//! - top-level actions are copied into each control that uses them, ahead of
//!   the control's own declarations (`LocalizeAllActions`);
//! - tables that are never applied and actions no surviving code refers to
//!   are removed (`RemoveAllUnusedDeclarations`); extern instances stay.
//!
//! Objects are then visited breadth first from `main` (the package's blocks
//! in parameter order, then each control's tables and instances in
//! declaration order), which is the order of each P4Info section. Ids come
//! from [`crate::p4info::id`].
//!
//! Types, widths and constant values come from the checker
//! ([`crate::check::Resolver`]: its resolution, scopes and constant folding,
//! with the names of `type` declarations kept), so a program has one
//! resolver; what is here is P4Info's own object model and naming.

pub mod id;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use crate::check::{CpType, Resolver};
use crate::front::ast::{
    ActionDecl, ActionRef as AstActionRef, Annotation, AnnotationBody, Argument, BinaryOp, Block,
    ControlDecl, Declaration, Expr, ExprKind, Instantiation, KeyElement, Param, Statement,
    StatementKind, StructDecl, SwitchLabel, TableDecl, TypeKind, TypedefDecl, UnaryOp,
    find_annotation,
};
use crate::front::diagnostic::{Diagnostic, Error, ErrorKind};
use crate::front::source::Span;
use crate::p4info::id::{AssignedIds, IdAllocator, ResourceType};

/// p4c's default table size for v1model.
pub const DEFAULT_TABLE_SIZE: i64 = 1024;

/// A program's P4Info.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct P4Info {
    /// `pkg_info.arch` (always `v1model` here).
    pub arch: String,
    /// Annotations on the `main` declaration (`pkg_info.annotations`).
    pub pkg_annotations: Vec<String>,
    /// Tables in p4c's order.
    pub tables: Vec<Table>,
    /// Actions in p4c's order.
    pub actions: Vec<Action>,
    /// Indexed counters.
    pub counters: Vec<Counter>,
    /// Counters attached to a table.
    pub direct_counters: Vec<DirectCounter>,
    /// Indexed meters.
    pub meters: Vec<Meter>,
    /// Meters attached to a table.
    pub direct_meters: Vec<DirectMeter>,
    /// `@controller_header` headers (packet-in / packet-out metadata).
    pub controller_packet_metadata: Vec<ControllerPacketMetadata>,
    /// Registers.
    pub registers: Vec<Register>,
    /// One entry per distinct `digest<T>` type.
    pub digests: Vec<Digest>,
    /// Architecture-specific externs (TNA: the ingress parser's
    /// `PortMetadata`).
    pub externs: Vec<ExternType>,
    /// Named types used by the above; `None` when p4c would not emit it.
    pub type_info: Option<TypeInfo>,
}

/// Instances of an architecture-specific extern type.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExternType {
    /// Its id prefix (0x80 and above).
    pub type_id: u32,
    /// Its name, e.g. `PortMetadata`.
    pub type_name: String,
    /// The instances.
    pub instances: Vec<ExternInstance>,
}

/// One instance of an architecture-specific extern.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExternInstance {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// `info`'s type URL.
    pub type_url: String,
    /// `info`'s value bytes.
    pub value: Vec<u8>,
}

/// The common header of every P4Info object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Preamble {
    /// P4Runtime id (resource prefix in the top byte).
    pub id: u32,
    /// Fully qualified name, e.g. `MyIngress.ipv4_lpm`.
    pub name: String,
    /// Shortest unique dotted suffix of the name.
    pub alias: String,
    /// Annotations other than `@name`/`@id`/`@brief`/`@description`, as
    /// written (`@defaultonly`, `@noWarn("unused")`).
    pub annotations: Vec<String>,
}

/// A table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// Key elements in key order.
    pub match_fields: Vec<MatchField>,
    /// Actions the table may run.
    pub action_refs: Vec<ActionRef>,
    /// Id of a `const default_action` (0 when not const).
    pub const_default_action_id: u32,
    /// The default action the program sets (P4Runtime 1.4).
    pub initial_default_action: Option<TableActionCall>,
    /// Direct counter and meter ids.
    pub direct_resource_ids: Vec<u32>,
    /// `size`, or 1024.
    pub size: i64,
    /// `support_timeout = true`.
    pub supports_idle_timeout: bool,
    /// `const entries`.
    pub is_const_table: bool,
    /// At least one entry in `entries`.
    pub has_initial_entries: bool,
}

/// One key element of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchField {
    /// 1-based, in key order, unless `@id` says otherwise.
    pub id: u32,
    /// `@name` or the expression as p4c prints it.
    pub name: String,
    /// Annotations on the key element.
    pub annotations: Vec<String>,
    /// Width in bits (0 for `error`).
    pub bitwidth: u32,
    /// How it is matched.
    pub match_type: MatchType,
    /// Name of a user-defined `type`, if the key has one.
    pub type_name: Option<String>,
}

/// Match kinds as P4Info names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchType {
    /// `exact`
    Exact,
    /// `lpm`
    Lpm,
    /// `ternary`
    Ternary,
    /// `range`
    Range,
    /// `optional`
    Optional,
    /// A match kind P4Info has no name for (`other_match_type`).
    Other(String),
}

/// Where an action may be used in a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionScope {
    /// Entries and default (no annotation).
    TableAndDefault,
    /// `@tableonly`
    TableOnly,
    /// `@defaultonly`
    DefaultOnly,
}

/// An action a table may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRef {
    /// The action's id.
    pub id: u32,
    /// Scope from `@tableonly` / `@defaultonly`.
    pub scope: ActionScope,
    /// Annotations on the reference in the `actions` list.
    pub annotations: Vec<String>,
}

/// An action with its arguments, as in `default_action = a(1)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableActionCall {
    /// The action's id.
    pub action_id: u32,
    /// Arguments by parameter id, big-endian bytes of the parameter width.
    pub arguments: Vec<(u32, Vec<u8>)>,
}

/// An action.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Action {
    /// Id, name, alias, annotations.
    pub preamble: Preamble,
    /// Parameters the control plane supplies.
    pub params: Vec<ActionParam>,
}

/// An action parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionParam {
    /// 1-based in declaration order unless `@id` says otherwise.
    pub id: u32,
    /// Parameter name.
    pub name: String,
    /// Annotations on the parameter.
    pub annotations: Vec<String>,
    /// Width in bits.
    pub bitwidth: u32,
    /// Name of a user-defined `type` or enum, if the parameter has one.
    pub type_name: Option<String>,
}

/// What a counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterUnit {
    /// Unknown unit.
    Unspecified,
    /// `CounterType.bytes`
    Bytes,
    /// `CounterType.packets`
    Packets,
    /// `CounterType.packets_and_bytes`
    Both,
}

/// What a meter measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeterUnit {
    /// Unknown unit.
    Unspecified,
    /// `MeterType.bytes`
    Bytes,
    /// `MeterType.packets`
    Packets,
}

/// A `counter` array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counter {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// What is counted.
    pub unit: CounterUnit,
    /// Number of cells.
    pub size: i64,
}

/// A `direct_counter` attached to a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectCounter {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// What is counted.
    pub unit: CounterUnit,
    /// The table it belongs to.
    pub direct_table_id: u32,
}

/// A `meter` array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meter {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// What is measured.
    pub unit: MeterUnit,
    /// Number of cells.
    pub size: i64,
}

/// A `direct_meter` attached to a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectMeter {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// What is measured.
    pub unit: MeterUnit,
    /// The table it belongs to.
    pub direct_table_id: u32,
}

/// A `@controller_header("packet_in")` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerPacketMetadata {
    /// Name and alias are the annotation's string.
    pub preamble: Preamble,
    /// Fields in header order.
    pub metadata: Vec<PacketMetadata>,
}

/// One field of a controller header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketMetadata {
    /// 1-based unless `@id` says otherwise.
    pub id: u32,
    /// Field name.
    pub name: String,
    /// Annotations on the field.
    pub annotations: Vec<String>,
    /// Width in bits.
    pub bitwidth: u32,
    /// Name of a user-defined `type`, if the field has one.
    pub type_name: Option<String>,
}

/// A `register` array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// Type of a cell.
    pub type_spec: TypeSpec,
    /// Number of cells.
    pub size: i64,
}

/// Data sent with `digest<T>(receiver, data)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// Named after `T`.
    pub preamble: Preamble,
    /// The type of the data.
    pub type_spec: TypeSpec,
}

/// P4Runtime's description of a data type (`P4DataTypeSpec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeSpec {
    /// `bit<W>`
    Bit(u32),
    /// `int<W>`
    Int(u32),
    /// `varbit<W>`
    Varbit(u32),
    /// `bool`
    Bool,
    /// `tuple<...>`
    Tuple(Vec<TypeSpec>),
    /// A struct, described in [`TypeInfo::structs`].
    Struct(String),
    /// A header, described in [`TypeInfo::headers`].
    Header(String),
    /// A header union, described in [`TypeInfo::header_unions`].
    HeaderUnion(String),
    /// A header stack of `size` headers named `header`.
    HeaderStack {
        /// The element header type.
        header: String,
        /// Number of elements.
        size: u32,
    },
    /// An enum, described in [`TypeInfo::enums`].
    Enum(String),
    /// `error`
    Error,
    /// A serializable enum, described in [`TypeInfo::serializable_enums`].
    SerializableEnum(String),
    /// A `type`, described in [`TypeInfo::new_types`].
    NewType(String),
}

/// One member of a header: header fields are bit strings only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderMember {
    /// Field name.
    pub name: String,
    /// `bit<W>`, `int<W>` or `varbit<W>` as a [`TypeSpec`].
    pub type_spec: TypeSpec,
}

/// A serializable enum's underlying width and members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerializableEnumSpec {
    /// Width of the underlying `bit<W>`.
    pub underlying_bitwidth: u32,
    /// Member names and values (big-endian bytes of the width).
    pub members: Vec<(String, Vec<u8>)>,
}

/// What a user-defined `type` stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewTypeSpec {
    /// No translation: the original type.
    Original(TypeSpec),
    /// `@p4runtime_translation(uri, bit<W>)` (`sdn_bitwidth`), or
    /// `@p4runtime_translation(uri, string)` (`None`).
    Translated {
        /// The translation's URI.
        uri: String,
        /// Controller-side width, `None` for strings.
        sdn_bitwidth: Option<u32>,
    },
}

/// `type_info`: the named types the P4Info refers to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TypeInfo {
    /// Structs by name: members in order.
    pub structs: BTreeMap<String, Vec<(String, TypeSpec)>>,
    /// Headers by name.
    pub headers: BTreeMap<String, Vec<HeaderMember>>,
    /// Header unions by name: member name and header type name.
    pub header_unions: BTreeMap<String, Vec<(String, String)>>,
    /// Plain enums by name: member names.
    pub enums: BTreeMap<String, Vec<String>>,
    /// All `error` members, when some type refers to `error`.
    pub error: Option<Vec<String>>,
    /// Serializable enums by name.
    pub serializable_enums: BTreeMap<String, SerializableEnumSpec>,
    /// `type` declarations by name.
    pub new_types: BTreeMap<String, NewTypeSpec>,
}

impl P4Info {
    /// The table with this fully qualified name or alias.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables
            .iter()
            .find(|t| t.preamble.name == name || t.preamble.alias == name)
    }

    /// The action with this fully qualified name or alias.
    pub fn action(&self, name: &str) -> Option<&Action> {
        self.actions
            .iter()
            .find(|a| a.preamble.name == name || a.preamble.alias == name)
    }

    /// The action with this id.
    pub fn action_by_id(&self, id: u32) -> Option<&Action> {
        self.actions.iter().find(|a| a.preamble.id == id)
    }

    /// The register with this fully qualified name or alias.
    pub fn register(&self, name: &str) -> Option<&Register> {
        self.registers
            .iter()
            .find(|r| r.preamble.name == name || r.preamble.alias == name)
    }

    /// The counter with this fully qualified name or alias.
    pub fn counter(&self, name: &str) -> Option<&Counter> {
        self.counters
            .iter()
            .find(|c| c.preamble.name == name || c.preamble.alias == name)
    }

    /// Protobuf text format, as current p4c writes `.p4info.txt` files
    /// (with the `# proto-file` header).
    pub fn to_text(&self) -> String {
        self.to_text_with(&TextOptions::default())
    }

    /// Protobuf text format with `options`.
    pub fn to_text_with(&self, options: &TextOptions) -> String {
        let mut w = TextWriter::default();
        if options.header_comment {
            w.out.push_str(
                "# proto-file: p4/config/v1/p4info.proto\n# proto-message: p4.config.v1.P4Info\n\n",
            );
        }
        w.open("pkg_info");
        for a in &self.pkg_annotations {
            w.string("annotations", a);
        }
        w.string("arch", &self.arch);
        w.close();
        for t in &self.tables {
            w.open("tables");
            w.preamble(&t.preamble);
            for m in &t.match_fields {
                w.open("match_fields");
                w.uint("id", u64::from(m.id));
                w.string("name", &m.name);
                for a in &m.annotations {
                    w.string("annotations", a);
                }
                w.uint("bitwidth", u64::from(m.bitwidth));
                match &m.match_type {
                    MatchType::Other(name) => w.string_always("other_match_type", name),
                    kind => w.raw("match_type", kind.proto_name()),
                }
                if let Some(name) = &m.type_name {
                    w.named_type("type_name", name);
                }
                w.close();
            }
            for r in &t.action_refs {
                w.open("action_refs");
                w.uint("id", u64::from(r.id));
                for a in &r.annotations {
                    w.string("annotations", a);
                }
                match r.scope {
                    ActionScope::TableAndDefault => {}
                    ActionScope::TableOnly => w.raw("scope", "TABLE_ONLY"),
                    ActionScope::DefaultOnly => w.raw("scope", "DEFAULT_ONLY"),
                }
                w.close();
            }
            w.uint(
                "const_default_action_id",
                u64::from(t.const_default_action_id),
            );
            if options.initial_default_action
                && let Some(call) = &t.initial_default_action
            {
                w.open("initial_default_action");
                w.uint("action_id", u64::from(call.action_id));
                for (param_id, value) in &call.arguments {
                    w.open("arguments");
                    w.uint("param_id", u64::from(*param_id));
                    w.bytes("value", value);
                    w.close();
                }
                w.close();
            }
            for id in &t.direct_resource_ids {
                w.uint_always("direct_resource_ids", u64::from(*id));
            }
            w.int("size", t.size);
            if t.supports_idle_timeout {
                w.raw("idle_timeout_behavior", "NOTIFY_CONTROL");
            }
            if t.is_const_table {
                w.raw("is_const_table", "true");
            }
            if options.initial_default_action && t.has_initial_entries {
                w.raw("has_initial_entries", "true");
            }
            w.close();
        }
        for a in &self.actions {
            w.open("actions");
            w.preamble(&a.preamble);
            for p in &a.params {
                w.open("params");
                w.uint("id", u64::from(p.id));
                w.string("name", &p.name);
                for an in &p.annotations {
                    w.string("annotations", an);
                }
                w.uint("bitwidth", u64::from(p.bitwidth));
                if let Some(name) = &p.type_name {
                    w.named_type("type_name", name);
                }
                w.close();
            }
            w.close();
        }
        for c in &self.counters {
            w.open("counters");
            w.preamble(&c.preamble);
            w.counter_spec(c.unit);
            w.int("size", c.size);
            w.close();
        }
        for c in &self.direct_counters {
            w.open("direct_counters");
            w.preamble(&c.preamble);
            w.counter_spec(c.unit);
            w.uint("direct_table_id", u64::from(c.direct_table_id));
            w.close();
        }
        for m in &self.meters {
            w.open("meters");
            w.preamble(&m.preamble);
            w.meter_spec(m.unit);
            w.int("size", m.size);
            w.close();
        }
        for m in &self.direct_meters {
            w.open("direct_meters");
            w.preamble(&m.preamble);
            w.meter_spec(m.unit);
            w.uint("direct_table_id", u64::from(m.direct_table_id));
            w.close();
        }
        for c in &self.controller_packet_metadata {
            w.open("controller_packet_metadata");
            w.preamble(&c.preamble);
            for m in &c.metadata {
                w.open("metadata");
                w.uint("id", u64::from(m.id));
                w.string("name", &m.name);
                for a in &m.annotations {
                    w.string("annotations", a);
                }
                w.uint("bitwidth", u64::from(m.bitwidth));
                if let Some(name) = &m.type_name {
                    w.named_type("type_name", name);
                }
                w.close();
            }
            w.close();
        }
        for r in &self.registers {
            w.open("registers");
            w.preamble(&r.preamble);
            w.open("type_spec");
            w.type_spec(&r.type_spec);
            w.close();
            w.int("size", r.size);
            w.close();
        }
        for d in &self.digests {
            w.open("digests");
            w.preamble(&d.preamble);
            w.open("type_spec");
            w.type_spec(&d.type_spec);
            w.close();
            w.close();
        }
        for e in &self.externs {
            w.open("externs");
            w.uint("extern_type_id", u64::from(e.type_id));
            w.string("extern_type_name", &e.type_name);
            for i in &e.instances {
                w.open("instances");
                w.preamble(&i.preamble);
                w.open("info");
                w.string("type_url", &i.type_url);
                w.bytes("value", &i.value);
                w.close();
                w.close();
            }
            w.close();
        }
        if let Some(info) = &self.type_info {
            w.open("type_info");
            w.type_info(info);
            w.close();
        }
        w.out
    }
}

/// Choices in the text output, for comparing with older p4c releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOptions {
    /// Start with the `# proto-file:` / `# proto-message:` comments.
    pub header_comment: bool,
    /// Print `initial_default_action` and `has_initial_entries`
    /// (P4Runtime 1.4, p4c since 2024).
    pub initial_default_action: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            header_comment: true,
            initial_default_action: true,
        }
    }
}

impl MatchType {
    fn proto_name(&self) -> &str {
        match self {
            MatchType::Exact => "EXACT",
            MatchType::Lpm => "LPM",
            MatchType::Ternary => "TERNARY",
            MatchType::Range => "RANGE",
            MatchType::Optional => "OPTIONAL",
            MatchType::Other(name) => name,
        }
    }
}

/// Builds the P4Info of `program` and prints it in text format.
pub fn p4info_text(program: &crate::front::ast::Program) -> Result<String, Diagnostic> {
    Ok(p4info(program)?.to_text())
}

/// Builds the P4Info of a v1model `program`.
pub fn p4info(program: &crate::front::ast::Program) -> Result<P4Info, Diagnostic> {
    Builder::new(program)
        .and_then(Builder::run)
        .map_err(|e| Diagnostic::from_error(e, &program.sources))
}

// ---------------------------------------------------------------------------
// Text format writer

#[derive(Default)]
struct TextWriter {
    out: String,
    depth: usize,
}

impl TextWriter {
    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    fn open(&mut self, name: &str) {
        self.indent();
        self.out.push_str(name);
        self.out.push_str(" {\n");
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.indent();
        self.out.push_str("}\n");
    }

    fn raw(&mut self, name: &str, value: &str) {
        self.indent();
        let _ = writeln!(self.out, "{name}: {value}");
    }

    fn uint(&mut self, name: &str, value: u64) {
        if value != 0 {
            self.uint_always(name, value);
        }
    }

    fn uint_always(&mut self, name: &str, value: u64) {
        self.raw(name, &value.to_string());
    }

    fn int(&mut self, name: &str, value: i64) {
        if value != 0 {
            self.raw(name, &value.to_string());
        }
    }

    fn string(&mut self, name: &str, value: &str) {
        if !value.is_empty() {
            self.string_always(name, value);
        }
    }

    fn string_always(&mut self, name: &str, value: &str) {
        self.bytes_always(name, value.as_bytes());
    }

    fn bytes(&mut self, name: &str, value: &[u8]) {
        if !value.is_empty() {
            self.bytes_always(name, value);
        }
    }

    fn bytes_always(&mut self, name: &str, value: &[u8]) {
        let escaped = c_escape(value);
        self.raw(name, &format!("\"{escaped}\""));
    }

    fn named_type(&mut self, field: &str, name: &str) {
        self.open(field);
        self.string("name", name);
        self.close();
    }

    fn preamble(&mut self, p: &Preamble) {
        self.open("preamble");
        self.uint("id", u64::from(p.id));
        self.string("name", &p.name);
        self.string("alias", &p.alias);
        for a in &p.annotations {
            self.string("annotations", a);
        }
        self.close();
    }

    fn counter_spec(&mut self, unit: CounterUnit) {
        self.open("spec");
        match unit {
            CounterUnit::Unspecified => {}
            CounterUnit::Bytes => self.raw("unit", "BYTES"),
            CounterUnit::Packets => self.raw("unit", "PACKETS"),
            CounterUnit::Both => self.raw("unit", "BOTH"),
        }
        self.close();
    }

    fn meter_spec(&mut self, unit: MeterUnit) {
        self.open("spec");
        match unit {
            MeterUnit::Unspecified => {}
            MeterUnit::Bytes => self.raw("unit", "BYTES"),
            MeterUnit::Packets => self.raw("unit", "PACKETS"),
        }
        self.close();
    }

    /// The fields of a `P4DataTypeSpec` (the caller opened the message).
    fn type_spec(&mut self, spec: &TypeSpec) {
        match spec {
            TypeSpec::Bit(_) | TypeSpec::Int(_) | TypeSpec::Varbit(_) => {
                self.open("bitstring");
                self.bitstring(spec);
                self.close();
            }
            TypeSpec::Bool => {
                self.open("bool");
                self.close();
            }
            TypeSpec::Tuple(members) => {
                self.open("tuple");
                for m in members {
                    self.open("members");
                    self.type_spec(m);
                    self.close();
                }
                self.close();
            }
            TypeSpec::Struct(name) => self.named_type("struct", name),
            TypeSpec::Header(name) => self.named_type("header", name),
            TypeSpec::HeaderUnion(name) => self.named_type("header_union", name),
            TypeSpec::HeaderStack { header, size } => {
                self.open("header_stack");
                self.named_type("header", header);
                self.uint("size", u64::from(*size));
                self.close();
            }
            TypeSpec::Enum(name) => self.named_type("enum", name),
            TypeSpec::Error => {
                self.open("error");
                self.close();
            }
            TypeSpec::SerializableEnum(name) => self.named_type("serializable_enum", name),
            TypeSpec::NewType(name) => self.named_type("new_type", name),
        }
    }

    /// The fields of a `P4BitstringLikeTypeSpec`.
    fn bitstring(&mut self, spec: &TypeSpec) {
        let (field, inner, width) = match spec {
            TypeSpec::Bit(w) => ("bit", "bitwidth", *w),
            TypeSpec::Int(w) => ("int", "bitwidth", *w),
            TypeSpec::Varbit(w) => ("varbit", "max_bitwidth", *w),
            _ => return,
        };
        self.open(field);
        self.uint(inner, u64::from(width));
        self.close();
    }

    fn type_info(&mut self, info: &TypeInfo) {
        for (name, members) in &info.structs {
            self.open("structs");
            self.string_always("key", name);
            self.open("value");
            for (member, spec) in members {
                self.open("members");
                self.string("name", member);
                self.open("type_spec");
                self.type_spec(spec);
                self.close();
                self.close();
            }
            self.close();
            self.close();
        }
        for (name, members) in &info.headers {
            self.open("headers");
            self.string_always("key", name);
            self.open("value");
            for m in members {
                self.open("members");
                self.string("name", &m.name);
                self.open("type_spec");
                self.bitstring(&m.type_spec);
                self.close();
                self.close();
            }
            self.close();
            self.close();
        }
        for (name, members) in &info.header_unions {
            self.open("header_unions");
            self.string_always("key", name);
            self.open("value");
            for (member, header) in members {
                self.open("members");
                self.string("name", member);
                self.named_type("header", header);
                self.close();
            }
            self.close();
            self.close();
        }
        for (name, members) in &info.enums {
            self.open("enums");
            self.string_always("key", name);
            self.open("value");
            for member in members {
                self.open("members");
                self.string("name", member);
                self.close();
            }
            self.close();
            self.close();
        }
        if let Some(members) = &info.error {
            self.open("error");
            for m in members {
                self.string_always("members", m);
            }
            self.close();
        }
        for (name, spec) in &info.serializable_enums {
            self.open("serializable_enums");
            self.string_always("key", name);
            self.open("value");
            self.open("underlying_type");
            self.uint("bitwidth", u64::from(spec.underlying_bitwidth));
            self.close();
            for (member, value) in &spec.members {
                self.open("members");
                self.string("name", member);
                self.bytes("value", value);
                self.close();
            }
            self.close();
            self.close();
        }
        for (name, spec) in &info.new_types {
            self.open("new_types");
            self.string_always("key", name);
            self.open("value");
            match spec {
                NewTypeSpec::Original(t) => {
                    self.open("original_type");
                    self.type_spec(t);
                    self.close();
                }
                NewTypeSpec::Translated { uri, sdn_bitwidth } => {
                    self.open("translated_type");
                    self.string("uri", uri);
                    match sdn_bitwidth {
                        Some(w) => self.uint_always("sdn_bitwidth", u64::from(*w)),
                        None => {
                            self.open("sdn_string");
                            self.close();
                        }
                    }
                    self.close();
                }
            }
            self.close();
            self.close();
        }
    }
}

/// Protobuf's `CEscape`: printable ASCII as is, the usual backslash escapes,
/// other bytes as three octal digits.
fn c_escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b'"' => s.push_str("\\\""),
            b'\'' => s.push_str("\\'"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Names, annotations and ids

type Res<T> = Result<T, Error>;

fn invalid(message: impl Into<String>, span: Span) -> Error {
    Error::new(ErrorKind::Syntax(message.into()), span)
}

fn unsupported(message: impl Into<String>, span: Span) -> Error {
    Error::unsupported(message, span)
}

/// `@p4runtime_translation("uri", bit<W>)` or `(…, string)` on a `type`.
fn translation(decl: &TypedefDecl) -> Option<(String, Option<u32>)> {
    let anno = find_annotation(&decl.annotations, "p4runtime_translation")?;
    let AnnotationBody::Unstructured { tokens, .. } = &anno.body else {
        return None;
    };
    let uri = tokens
        .iter()
        .find(|t| t.text.starts_with('"'))
        .map(|t| crate::front::lexer::unquote(&t.text))?;
    let texts: Vec<&str> = tokens.iter().map(|t| &*t.text).collect();
    let width = texts
        .iter()
        .position(|t| *t == "bit")
        .and_then(|i| texts.get(i + 2))
        .and_then(|t| t.parse::<u32>().ok());
    Some((uri, width))
}

/// The control-plane name of a declaration: its `@name`, else its name.
fn annotated_name(annotations: &[Annotation], name: &str) -> String {
    find_annotation(annotations, "name")
        .and_then(|a| a.string_argument())
        .map_or_else(|| name.to_string(), str::to_string)
}

/// Qualifies a local name with its control's, as `HierarchicalNames` does.
fn qualify(prefix: &str, annotations: &[Annotation], name: &str) -> String {
    let n = annotated_name(annotations, name);
    if let Some(global) = n.strip_prefix('.') {
        global.to_string()
    } else if prefix.is_empty() {
        n
    } else {
        format!("{prefix}.{n}")
    }
}

fn id_annotation(annotations: &[Annotation]) -> Res<Option<u64>> {
    let Some(anno) = find_annotation(annotations, "id") else {
        return Ok(None);
    };
    let value = anno
        .integer_argument()
        .and_then(|v| v.to_u128())
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| invalid("@id needs one unsigned integer", anno.span))?;
    Ok(Some(value))
}

/// Annotations printed in P4Info: all but `@name`, `@id`, `@brief` and
/// `@description`, in p4c's `ToP4` spelling.
fn printed_annotations(annotations: &[Annotation]) -> Vec<String> {
    annotations
        .iter()
        .filter(|a| !matches!(a.name.as_str(), "name" | "id" | "brief" | "description"))
        .map(print_annotation)
        .collect()
}

/// Annotations p4c parses into expressions; others keep their tokens.
fn parsed_annotation(name: &str) -> bool {
    matches!(
        name,
        "name"
            | "tableonly"
            | "defaultonly"
            | "hidden"
            | "atomic"
            | "optional"
            | "pure"
            | "noSideEffects"
            | "noWarn"
            | "deprecated"
            | "synchronous"
            | "match"
            | "priority"
            | "id"
            | "controller_header"
            | "field_list"
            | "length"
            | "pkginfo"
            | "brief"
            | "description"
            | "p4runtime_translation"
            | "p4runtime_translation_mappings"
            | "disable_optimization"
            | "debug"
    )
}

fn print_annotation(a: &Annotation) -> String {
    let mut s = format!("@{}", a.name);
    match &a.body {
        AnnotationBody::Empty => {}
        AnnotationBody::Unstructured {
            tokens,
            expressions,
        } => match expressions {
            Some(exprs) if parsed_annotation(a.name.as_str()) && !exprs.is_empty() => {
                let parts: Vec<String> = exprs.iter().map(print_expr).collect();
                let _ = write!(s, "({})", parts.join(", "));
            }
            _ if tokens.is_empty() => {}
            _ => {
                let parts: Vec<&str> = tokens.iter().map(|t| &*t.text).collect();
                let _ = write!(s, "({})", parts.join(" "));
            }
        },
        AnnotationBody::ExpressionList(exprs) => {
            let parts: Vec<String> = exprs.iter().map(print_expr).collect();
            let _ = write!(s, "[{}]", parts.join(", "));
        }
        AnnotationBody::KeyValues(kvs) => {
            let parts: Vec<String> = kvs
                .iter()
                .map(|kv| format!("{}={}", kv.name, print_expr(&kv.value)))
                .collect();
            let _ = write!(s, "[{}]", parts.join(", "));
        }
        AnnotationBody::Pragma(tokens) => {
            let parts: Vec<&str> = tokens.iter().map(|t| &*t.text).collect();
            let _ = write!(s, " {}", parts.join(" "));
        }
    }
    s
}

/// Prints an expression roughly as p4c's `ToP4` would (for annotations).
fn print_expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Int(v) => {
            let value = v
                .to_u128()
                .map_or_else(|| "?".to_string(), |v| v.to_string());
            match v.width {
                Some(w) => format!("{w}{}{value}", if v.signed { "s" } else { "w" }),
                None => value,
            }
        }
        ExprKind::String(s) => format!("\"{}\"", escape_p4_string(s)),
        ExprKind::Name(p) => format!("{}{}", if p.absolute { "." } else { "" }, p.name),
        ExprKind::Member { base, member } => format!("{}.{member}", print_expr(base)),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => format!("-{}", print_expr(operand)),
        ExprKind::Binary { op, lhs, rhs } => {
            format!("{} {} {}", print_expr(lhs), op.symbol(), print_expr(rhs))
        }
        _ => "...".to_string(),
    }
}

fn escape_p4_string(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// Ids for key elements, parameters and header fields, as p4c's
/// `FieldIdAllocator`: `@id` values first, then 1, 2, ... in order,
/// skipping taken values (a position with an `@id` still uses up a number).
fn field_ids(annotations: &[&[Annotation]]) -> Res<Vec<u32>> {
    let mut given: Vec<Option<u32>> = Vec::with_capacity(annotations.len());
    let mut taken = BTreeSet::new();
    for annos in annotations {
        let id = match id_annotation(annos)? {
            Some(v) => {
                let span = find_annotation(annos, "id")
                    .map(|a| a.span)
                    .unwrap_or_default();
                let v =
                    u32::try_from(v).map_err(|_| invalid("@id does not fit in 32 bits", span))?;
                if v == 0 {
                    return Err(invalid("0 is not a valid @id value", span));
                }
                if !taken.insert(v) {
                    return Err(invalid(format!("@id {v} is used multiple times"), span));
                }
                Some(v)
            }
            None => None,
        };
        given.push(id);
    }
    let mut index: u32 = 1;
    let mut ids = Vec::with_capacity(given.len());
    for g in given {
        if let Some(v) = g {
            index = index.saturating_add(1);
            ids.push(v);
            continue;
        }
        while taken.contains(&index) {
            index = index.saturating_add(1);
        }
        taken.insert(index);
        ids.push(index);
    }
    Ok(ids)
}

// ---------------------------------------------------------------------------
// The builder

/// p4c's `KeyNameGenerator`: the name of a key element from its expression,
/// with the checker's types of its parts (a field's `@name`, `$valid$` of a
/// header).
fn key_name<'a>(b: &Builder<'a>, control: &'a ControlDecl, e: &Expr) -> Res<String> {
    let complex = || invalid("complex key expression requires a @name annotation", e.span);
    let type_of = |x: &Expr| b.resolver.borrow_mut().type_of(x, control, None);
    Ok(match &e.kind {
        ExprKind::Name(p) => format!("{}{}", if p.absolute { "." } else { "" }, p.name),
        ExprKind::Member { base, member } => {
            let field = match type_of(base) {
                Ok(CpType::Struct(s) | CpType::Header(s) | CpType::Union(s)) => b
                    .struct_decl(&s)
                    .and_then(|d| d.fields.iter().find(|f| f.name.as_str() == member.as_str()))
                    .map(|f| annotated_name(&f.annotations, member.as_str())),
                _ => None,
            }
            .unwrap_or_else(|| member.to_string());
            if let Some(global) = field.strip_prefix('.') {
                return Ok(global.to_string());
            }
            format!("{}.{field}", key_name(b, control, base)?)
        }
        ExprKind::Index { base, index } => {
            format!(
                "{}[{}]",
                key_name(b, control, base)?,
                key_name(b, control, index)?
            )
        }
        ExprKind::Int(v) => v.to_u128().ok_or_else(complex)?.to_string(),
        ExprKind::Slice { base, hi, lo } => format!(
            "{}[{}:{}]",
            key_name(b, control, base)?,
            key_name(b, control, hi)?,
            key_name(b, control, lo)?
        ),
        ExprKind::Binary {
            op: BinaryOp::BitAnd,
            lhs,
            rhs,
        } => format!(
            "{} & {}",
            key_name(b, control, lhs)?,
            key_name(b, control, rhs)?
        ),
        ExprKind::Call { callee, args, .. } => match &callee.kind {
            ExprKind::Member { base, member }
                if member.as_str() == "isValid" && args.is_empty() =>
            {
                match type_of(base) {
                    Ok(CpType::Header(_) | CpType::Union(_)) => {
                        format!("{}.$valid$", key_name(b, control, base)?)
                    }
                    _ => return Err(complex()),
                }
            }
            _ => return Err(complex()),
        },
        _ => return Err(complex()),
    })
}

/// A control's surviving declarations after p4c's front end.
struct ControlPlan<'a> {
    /// Top-level actions copied in, in order of first use.
    global_actions: Vec<&'a ActionDecl>,
    /// The control's own actions that are used, in declaration order.
    actions: Vec<&'a ActionDecl>,
    /// Applied tables, in declaration order.
    tables: Vec<&'a TableDecl>,
    /// Names of actions called directly (from the apply block or another
    /// action) rather than through a table. p4c's front end turns all their
    /// parameters into locals (`RemoveActionParameters`), so their P4Info
    /// entries carry no parameters.
    direct_calls: HashSet<String>,
}

impl<'a> ControlPlan<'a> {
    fn new(
        top_actions: &HashMap<&'a str, &'a ActionDecl>,
        control: &'a ControlDecl,
    ) -> ControlPlan<'a> {
        let local_actions: HashMap<&str, &ActionDecl> = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Action(a) => Some((a.name.as_str(), a)),
                _ => None,
            })
            .collect();
        let local_tables: HashMap<&str, &TableDecl> = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Table(t) => Some((t.name.as_str(), t)),
                _ => None,
            })
            .collect();

        // Reachability from the apply block: tables applied there, actions
        // named there or by used tables or used actions.
        let mut used_tables: HashSet<&str> = HashSet::new();
        // Local action names as written; top-level ones with a leading `.`.
        let mut used_actions: HashSet<String> = HashSet::new();
        let mut names = Vec::new();
        collect_names_block(&control.apply, &mut names);
        let mut work: Vec<(bool, String)> = names.into_iter().map(|n| (false, n)).collect();
        while let Some((absolute, name)) = work.pop() {
            if !absolute && let Some(t) = local_tables.get(name.as_str()) {
                if used_tables.insert(t.name.as_str()) {
                    for n in table_action_names(t) {
                        work.push(n);
                    }
                }
                continue;
            }
            if !absolute && let Some(a) = local_actions.get(name.as_str()) {
                if used_actions.insert(a.name.to_string()) {
                    let mut inner = Vec::new();
                    collect_names_block(&a.body, &mut inner);
                    work.extend(inner.into_iter().map(|n| (false, n)));
                }
                continue;
            }
            if let Some(a) = top_actions.get(name.as_str())
                && used_actions.insert(format!(".{}", a.name))
            {
                let mut inner = Vec::new();
                collect_names_block(&a.body, &mut inner);
                work.extend(inner.into_iter().map(|n| (true, n)));
            }
        }

        // Global actions in order of first reference, visiting the locals
        // (tables' properties in order) and then the apply block.
        let mut global_actions: Vec<&ActionDecl> = Vec::new();
        let mut note_global = |name: &str, absolute: bool| {
            let local = !absolute && local_actions.contains_key(name);
            if local {
                return;
            }
            if let Some(a) = top_actions.get(name)
                && !global_actions.iter().any(|g| std::ptr::eq(*g, *a))
            {
                global_actions.push(a);
            }
        };
        for d in &control.locals {
            match d {
                Declaration::Table(t) if used_tables.contains(t.name.as_str()) => {
                    for (absolute, n) in table_action_names(t) {
                        note_global(&n, absolute);
                    }
                }
                Declaration::Action(a) if used_actions.contains(a.name.as_str()) => {
                    let mut inner = Vec::new();
                    collect_names_block(&a.body, &mut inner);
                    for n in inner {
                        note_global(&n, false);
                    }
                }
                _ => {}
            }
        }
        let mut apply_names = Vec::new();
        collect_names_block(&control.apply, &mut apply_names);
        let mut direct_calls: HashSet<String> = HashSet::new();
        for n in apply_names {
            if local_tables.contains_key(n.as_str()) {
                continue;
            }
            note_global(&n, false);
            direct_calls.insert(n);
        }
        for d in &control.locals {
            if let Declaration::Action(a) = d
                && used_actions.contains(a.name.as_str())
            {
                let mut inner = Vec::new();
                collect_names_block(&a.body, &mut inner);
                direct_calls.extend(inner);
            }
        }

        let actions = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Action(a) if used_actions.contains(a.name.as_str()) => Some(a),
                _ => None,
            })
            .collect();
        let tables = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Table(t) if used_tables.contains(t.name.as_str()) => Some(t),
                _ => None,
            })
            .collect();
        ControlPlan {
            global_actions,
            actions,
            tables,
            direct_calls,
        }
    }
}

/// Action names a table refers to, including the implicit `NoAction`.
fn table_action_names(t: &TableDecl) -> Vec<(bool, String)> {
    let mut out: Vec<(bool, String)> = Vec::new();
    let mut push_ref = |r: &AstActionRef| out.push((r.name.absolute, r.name.name.to_string()));
    for p in &t.properties {
        match &p.kind {
            crate::front::ast::TablePropertyKind::Actions(list) => {
                list.iter().for_each(&mut push_ref)
            }
            crate::front::ast::TablePropertyKind::DefaultAction(a) => push_ref(a),
            crate::front::ast::TablePropertyKind::Entries(entries) => {
                entries.iter().for_each(|e| push_ref(&e.action));
            }
            _ => {}
        }
    }
    if t.default_action().is_none() {
        out.push((false, "NoAction".to_string()));
    }
    out
}

/// Every plain name used in a block (calls, arguments, table applies).
fn collect_names_block(b: &Block, out: &mut Vec<String>) {
    for s in &b.statements {
        collect_names_stmt(s, out);
    }
}

fn collect_names_stmt(s: &Statement, out: &mut Vec<String>) {
    match &s.kind {
        StatementKind::Assign { lhs, rhs, .. } => {
            collect_names_expr(lhs, out);
            collect_names_expr(rhs, out);
        }
        StatementKind::Call(e) => collect_names_expr(e, out),
        StatementKind::If {
            cond,
            then,
            otherwise,
        } => {
            collect_names_expr(cond, out);
            collect_names_stmt(then, out);
            if let Some(o) = otherwise {
                collect_names_stmt(o, out);
            }
        }
        StatementKind::Switch { expr, cases } => {
            collect_names_expr(expr, out);
            for c in cases {
                if let SwitchLabel::Expr(e) = &c.label {
                    collect_names_expr(e, out);
                }
                if let Some(b) = &c.body {
                    collect_names_block(b, out);
                }
            }
        }
        StatementKind::Block(b) => collect_names_block(b, out),
        StatementKind::Return(Some(e)) => collect_names_expr(e, out),
        StatementKind::Declaration(d) => match &**d {
            Declaration::Variable(v) => {
                if let Some(i) = &v.init {
                    collect_names_expr(i, out);
                }
            }
            Declaration::Constant(c) => collect_names_expr(&c.value, out),
            _ => {}
        },
        _ => {}
    }
}

fn collect_names_expr(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(p) => out.push(p.name.to_string()),
        ExprKind::Member { base, .. } => collect_names_expr(base, out),
        ExprKind::Index { base, index } => {
            collect_names_expr(base, out);
            collect_names_expr(index, out);
        }
        ExprKind::Slice { base, hi, lo } => {
            collect_names_expr(base, out);
            collect_names_expr(hi, out);
            collect_names_expr(lo, out);
        }
        ExprKind::Call { callee, args, .. } => {
            collect_names_expr(callee, out);
            for a in args {
                collect_names_expr(&a.value, out);
            }
        }
        ExprKind::Unary { operand, .. } => collect_names_expr(operand, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_names_expr(lhs, out);
            collect_names_expr(rhs, out);
        }
        ExprKind::Ternary {
            cond,
            then,
            otherwise,
        } => {
            collect_names_expr(cond, out);
            collect_names_expr(then, out);
            collect_names_expr(otherwise, out);
        }
        ExprKind::Cast { expr, .. } => collect_names_expr(expr, out),
        ExprKind::List { items, .. } => items.iter().for_each(|i| collect_names_expr(i, out)),
        ExprKind::StructInit { fields, .. } => {
            fields
                .iter()
                .for_each(|f| collect_names_expr(&f.value, out));
        }
        _ => {}
    }
}

/// Calls of `digest(...)` in a block, in source order.
fn digest_calls<'e>(b: &'e Block, out: &mut Vec<&'e Expr>) {
    fn stmt<'e>(s: &'e Statement, out: &mut Vec<&'e Expr>) {
        match &s.kind {
            StatementKind::Call(e) => {
                if let ExprKind::Call { callee, .. } = &e.kind
                    && let ExprKind::Name(p) = &callee.kind
                    && p.name.as_str() == "digest"
                {
                    out.push(e);
                }
            }
            StatementKind::If {
                then, otherwise, ..
            } => {
                stmt(then, out);
                if let Some(o) = otherwise {
                    stmt(o, out);
                }
            }
            StatementKind::Switch { cases, .. } => {
                for c in cases {
                    if let Some(b) = &c.body {
                        digest_calls(b, out);
                    }
                }
            }
            StatementKind::Block(b) => digest_calls(b, out),
            _ => {}
        }
    }
    for s in &b.statements {
        stmt(s, out);
    }
}

/// The v1model blocks of `main`, in `V1Switch` parameter order.
const V1SWITCH_PARAMS: [&str; 6] = ["p", "vr", "ig", "eg", "ck", "dep"];

/// Something the breadth-first walk visits.
enum Node<'a> {
    Control(&'a ControlDecl, String),
    Table(&'a TableDecl, &'a ControlDecl, String),
    Instance(&'a Instantiation, &'a ControlDecl, String),
}

struct Builder<'a> {
    program: &'a crate::front::ast::Program,
    /// The checker's resolution of the program's types and constants.
    resolver: RefCell<Resolver<'a>>,
    /// Top-level actions and controls by name.
    actions: HashMap<&'a str, &'a ActionDecl>,
    controls: HashMap<&'a str, &'a ControlDecl>,
    plans: HashMap<String, ControlPlan<'a>>,
    /// For a TNA program, the `Pipeline` instance's name.
    tna_pipe: Option<String>,
    /// For a TNA program: the ingress parser's type name and the name of its
    /// `ingress_intrinsic_metadata_t` parameter (the port metadata key).
    tna_port_metadata: Option<(String, String)>,
}

/// A digest found in a control.
struct DigestUse {
    name: String,
    ty: CpType,
}

impl<'a> Builder<'a> {
    fn new(program: &'a crate::front::ast::Program) -> Res<Self> {
        let mut actions = HashMap::new();
        let mut controls = HashMap::new();
        for d in &program.declarations {
            match d {
                Declaration::Action(a) => {
                    actions.insert(a.name.as_str(), a);
                }
                Declaration::Control(c) => {
                    controls.insert(c.name.as_str(), c);
                }
                _ => {}
            }
        }
        Ok(Builder {
            program,
            resolver: RefCell::new(Resolver::new(program)?),
            actions,
            controls,
            plans: HashMap::new(),
            tna_pipe: None,
            tna_port_metadata: None,
        })
    }

    /// The header, struct or union declaration `name`.
    fn struct_decl(&self, name: &str) -> Option<&'a StructDecl> {
        match self.resolver.borrow().declaration(name)? {
            Declaration::Header(s) | Declaration::Struct(s) | Declaration::HeaderUnion(s) => {
                Some(s)
            }
            _ => None,
        }
    }

    /// The `type` declaration `name`.
    fn new_type_decl(&self, name: &str) -> Option<&'a TypedefDecl> {
        match self.resolver.borrow().declaration(name)? {
            Declaration::Typedef(t) => Some(t),
            _ => None,
        }
    }

    /// Width in bits as P4Info reports it.
    fn width(&self, t: &CpType) -> Option<u32> {
        Some(match t {
            CpType::Bit(w) | CpType::Int(w) | CpType::SerEnum(_, w) => *w,
            CpType::Bool => 1,
            CpType::Error => 0,
            CpType::NewType(name, inner) => match self.new_type_decl(name).and_then(translation) {
                Some((_, width)) => width.unwrap_or(0),
                None => self.width(inner)?,
            },
            _ => return None,
        })
    }

    fn resolve(&self, t: &crate::front::ast::Type) -> Res<CpType> {
        self.resolver.borrow_mut().resolve(t)
    }

    fn eval(&self, e: &Expr, control: Option<&'a ControlDecl>) -> Res<i128> {
        self.resolver.borrow_mut().eval(e, control)
    }

    fn main_blocks(&mut self) -> Res<(Vec<&'a ControlDecl>, Vec<String>)> {
        let main = self
            .program
            .declarations
            .iter()
            .rev()
            .find_map(|d| match d {
                Declaration::Instantiation(i) if i.name.as_str() == "main" => Some(i),
                _ => None,
            })
            .ok_or_else(|| {
                unsupported(
                    "the program has no `main` package instance",
                    self.program
                        .declarations
                        .last()
                        .map(Declaration::span)
                        .unwrap_or_default(),
                )
            })?;
        let package = match &main.ty.kind {
            TypeKind::Name(p) => p.name.as_str(),
            TypeKind::Specialized { base, .. } => base.name.as_str(),
            _ => "",
        };
        if package == "Switch" {
            return self.tna_blocks(main);
        }
        if package != "V1Switch" {
            return Err(unsupported(
                format!(
                    "P4Info for package `{package}`: v1model's V1Switch and TNA's Switch are supported"
                ),
                main.ty.span,
            ));
        }
        let mut slots: Vec<Option<&Argument>> = vec![None; V1SWITCH_PARAMS.len()];
        for (i, arg) in main.args.iter().enumerate() {
            let pos = match &arg.name {
                Some(n) => V1SWITCH_PARAMS
                    .iter()
                    .position(|p| *p == n.as_str())
                    .ok_or_else(|| invalid(format!("V1Switch has no parameter `{n}`"), n.span))?,
                None => i,
            };
            if pos < slots.len() {
                slots[pos] = Some(arg);
            }
        }
        let mut controls = Vec::new();
        for arg in slots.into_iter().flatten() {
            let name = match &arg.value.kind {
                ExprKind::Call { callee, .. } => match &callee.kind {
                    ExprKind::Name(p) => Some(p.name.as_str()),
                    _ => None,
                },
                ExprKind::Name(p) => self.instance_type_name(p.name.as_str()),
                _ => None,
            };
            if let Some(c) = name.and_then(|n| self.controls.get(n)) {
                controls.push(*c);
            }
        }
        let annotations = printed_annotations(&main.annotations);
        Ok((controls, annotations))
    }

    /// The controls of a TNA `Switch(pipe)`'s one `Pipeline`: ingress,
    /// ingress deparser, egress, egress deparser.
    fn tna_blocks(&mut self, main: &'a Instantiation) -> Res<(Vec<&'a ControlDecl>, Vec<String>)> {
        let [arg] = main.args.as_slice() else {
            return Err(unsupported(
                "P4Info for a Switch of more than one Pipeline",
                main.span,
            ));
        };
        let (pipe, args): (String, &'a [Argument]) = match &arg.value.kind {
            ExprKind::Name(p) => {
                let inst = self.program.declarations.iter().find_map(|d| match d {
                    Declaration::Instantiation(i) if i.name.as_str() == p.name.as_str() => Some(i),
                    _ => None,
                });
                match inst {
                    Some(i) => (i.name.to_string(), i.args.as_slice()),
                    None => {
                        return Err(invalid(
                            format!("unknown instance `{}`", p.name),
                            p.name.span,
                        ));
                    }
                }
            }
            ExprKind::Call { args, .. } => ("pipe".to_string(), args.as_slice()),
            _ => {
                return Err(invalid(
                    "the argument of Switch must be a Pipeline",
                    arg.value.span,
                ));
            }
        };
        let mut controls = Vec::new();
        let block_name = |a: &'a Argument| -> Option<&'a str> {
            match &a.value.kind {
                ExprKind::Call { callee, .. } => match &callee.kind {
                    ExprKind::Name(p) => Some(p.name.as_str()),
                    _ => None,
                },
                ExprKind::Name(p) => self.instance_type_name(p.name.as_str()),
                _ => None,
            }
        };
        if let Some(parser_name) = args.first().and_then(block_name) {
            let parser = self.program.declarations.iter().find_map(|d| match d {
                Declaration::Parser(p) if p.name.as_str() == parser_name => Some(p),
                _ => None,
            });
            let param = parser.and_then(|p| {
                p.params.iter().find(|q| {
                    matches!(&q.ty.kind, TypeKind::Name(t) if t.name.as_str() == "ingress_intrinsic_metadata_t")
                })
            });
            let key = param.map_or("ig_intr_md".to_string(), |q| q.name.to_string());
            self.tna_port_metadata = Some((parser_name.to_string(), key));
        }
        for (k, a) in args.iter().enumerate() {
            if !matches!(k, 1 | 2 | 4 | 5) {
                continue;
            }
            let name = match &a.value.kind {
                ExprKind::Call { callee, .. } => match &callee.kind {
                    ExprKind::Name(p) => Some(p.name.as_str()),
                    _ => None,
                },
                ExprKind::Name(p) => self.instance_type_name(p.name.as_str()),
                _ => None,
            };
            if let Some(c) = name.and_then(|n| self.controls.get(n)) {
                controls.push(*c);
            }
        }
        self.tna_pipe = Some(pipe);
        Ok((controls, printed_annotations(&main.annotations)))
    }

    /// For `MyIngress() ig; V1Switch(..., ig, ...)`: the type instantiated.
    fn instance_type_name(&self, instance: &str) -> Option<&'a str> {
        self.program.declarations.iter().find_map(|d| match d {
            Declaration::Instantiation(i) if i.name.as_str() == instance => match &i.ty.kind {
                TypeKind::Name(p) => Some(p.name.as_str()),
                _ => None,
            },
            _ => None,
        })
    }

    fn plan(&mut self, control: &'a ControlDecl) -> &ControlPlan<'a> {
        let key = control.name.to_string();
        let actions = &self.actions;
        self.plans
            .entry(key)
            .or_insert_with(|| ControlPlan::new(actions, control))
    }

    /// Depth-first walk from `main`'s controls in declaration order: p4c's
    /// BMv2 back end writes the P4Info after its mid end has inlined every
    /// control instance at its declaration, so an instance's tables come
    /// where it is declared, before the next top-level control's.
    fn walk(&mut self, roots: &[&'a ControlDecl]) -> Vec<Node<'a>> {
        let mut order = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for c in roots {
            if seen.insert(c.name.to_string()) {
                self.walk_control(c, c.name.to_string(), &mut seen, &mut order);
            }
        }
        order
    }

    fn walk_control(
        &mut self,
        control: &'a ControlDecl,
        prefix: String,
        seen: &mut HashSet<String>,
        order: &mut Vec<Node<'a>>,
    ) {
        order.push(Node::Control(control, prefix.clone()));
        let plan_tables: Vec<&TableDecl> = self.plan(control).tables.clone();
        for d in &control.locals {
            match d {
                Declaration::Table(t) if plan_tables.iter().any(|p| std::ptr::eq(*p, t)) => {
                    order.push(Node::Table(t, control, prefix.clone()));
                }
                Declaration::Instantiation(i) => {
                    let type_name = match &i.ty.kind {
                        TypeKind::Name(p) => p.name.as_str(),
                        TypeKind::Specialized { base, .. } => base.name.as_str(),
                        _ => "",
                    };
                    if let Some(inner) = self.controls.get(type_name) {
                        let inner_prefix = qualify(&prefix, &i.annotations, i.name.as_str());
                        if seen.insert(inner_prefix.clone()) {
                            self.walk_control(inner, inner_prefix, seen, order);
                        }
                    } else {
                        order.push(Node::Instance(i, control, prefix.clone()));
                    }
                }
                _ => {}
            }
        }
    }

    fn run(mut self) -> Res<P4Info> {
        let (roots, pkg_annotations) = self.main_blocks()?;
        let nodes = self.walk(&roots);

        // Pass 1: symbols, for ids and aliases.
        let mut alloc = IdAllocator::new();
        let add =
            |alloc: &mut IdAllocator, ty, name: &str, annos: &[Annotation], span| -> Res<()> {
                let id = id_annotation(annos)?;
                alloc
                    .add(ty, name, id)
                    .map_err(|e| invalid(e.to_string(), span))
            };
        let mut digest_uses: Vec<(usize, Vec<DigestUse>)> = Vec::new();
        for (index, node) in nodes.iter().enumerate() {
            match node {
                Node::Control(control, prefix) => {
                    let plan = self.plan(control);
                    let (globals, locals) = (plan.global_actions.clone(), plan.actions.clone());
                    for a in globals {
                        let name = qualify(prefix, &a.annotations, a.name.as_str());
                        let name = if find_annotation(&a.annotations, "name").is_none() {
                            a.name.to_string()
                        } else {
                            name
                        };
                        add(
                            &mut alloc,
                            ResourceType::Action,
                            &name,
                            &a.annotations,
                            a.span,
                        )?;
                    }
                    for a in locals {
                        let name = qualify(prefix, &a.annotations, a.name.as_str());
                        add(
                            &mut alloc,
                            ResourceType::Action,
                            &name,
                            &a.annotations,
                            a.span,
                        )?;
                    }
                    let digests = self.digests_of(control)?;
                    for d in &digests {
                        alloc
                            .add(ResourceType::Digest, &d.name, None)
                            .map_err(|e| invalid(e.to_string(), control.span))?;
                    }
                    digest_uses.push((index, digests));
                }
                Node::Table(t, _, prefix) => {
                    let name = qualify(prefix, &t.annotations, t.name.as_str());
                    add(
                        &mut alloc,
                        ResourceType::Table,
                        &name,
                        &t.annotations,
                        t.span,
                    )?;
                    for prop in ["implementation", "counters", "meters"] {
                        if let Some(v) = t.property(prop)
                            && matches!(v.kind, ExprKind::Call { .. })
                        {
                            return Err(unsupported(
                                format!("a `{prop}` extern constructed inside the table"),
                                v.span,
                            ));
                        }
                    }
                }
                Node::Instance(i, _, prefix) => {
                    if let Some(ty) = self.instance_resource(i)? {
                        let name = qualify(prefix, &i.annotations, i.name.as_str());
                        add(&mut alloc, ty, &name, &i.annotations, i.span)?;
                    }
                }
            }
        }
        let controller_headers: Vec<&StructDecl> = self
            .program
            .declarations
            .iter()
            .filter_map(|d| match d {
                Declaration::Header(h)
                    if find_annotation(&h.annotations, "controller_header").is_some() =>
                {
                    Some(h)
                }
                _ => None,
            })
            .collect();
        for h in &controller_headers {
            let name = annotated_name(&h.annotations, h.name.as_str());
            let name = name.strip_prefix('.').unwrap_or(&name).to_string();
            add(
                &mut alloc,
                ResourceType::ControllerHeader,
                &name,
                &h.annotations,
                h.span,
            )?;
        }
        let ids = alloc
            .assign()
            .map_err(|e| invalid(e.to_string(), Span::default()))?;

        // Pass 2: the P4Info itself.
        let mut out = P4Info {
            arch: if self.tna_pipe.is_some() {
                "tna"
            } else {
                "v1model"
            }
            .to_string(),
            pkg_annotations,
            ..P4Info::default()
        };
        let mut type_info: Option<TypeInfo> = None;
        let mut serialized_actions: HashSet<u32> = HashSet::new();
        let mut serialized_digests: HashSet<u32> = HashSet::new();
        for (index, node) in nodes.iter().enumerate() {
            match node {
                Node::Control(control, prefix) => {
                    let plan = self.plan(control);
                    let globals = plan.global_actions.clone();
                    let locals = plan.actions.clone();
                    let direct_calls = plan.direct_calls.clone();
                    for a in globals {
                        let name = if find_annotation(&a.annotations, "name").is_none() {
                            a.name.to_string()
                        } else {
                            qualify(prefix, &a.annotations, a.name.as_str())
                        };
                        self.add_action(
                            &ids,
                            a,
                            name,
                            direct_calls.contains(a.name.as_str()),
                            &mut out,
                            &mut type_info,
                            &mut serialized_actions,
                        )?;
                    }
                    for a in locals {
                        let name = qualify(prefix, &a.annotations, a.name.as_str());
                        self.add_action(
                            &ids,
                            a,
                            name,
                            direct_calls.contains(a.name.as_str()),
                            &mut out,
                            &mut type_info,
                            &mut serialized_actions,
                        )?;
                    }
                    if let Some((_, uses)) = digest_uses.iter().find(|(i, _)| *i == index) {
                        for d in uses {
                            let id = ids.get(ResourceType::Digest, &d.name).unwrap_or(0);
                            if !serialized_digests.insert(id) {
                                continue;
                            }
                            let info = type_info.get_or_insert_with(TypeInfo::default);
                            let type_spec = self.type_spec(&d.ty, info, control.span)?;
                            out.digests.push(Digest {
                                preamble: Preamble {
                                    id,
                                    name: d.name.clone(),
                                    alias: ids.alias(&d.name),
                                    annotations: Vec::new(),
                                },
                                type_spec,
                            });
                        }
                    }
                }
                Node::Table(t, control, prefix) => {
                    self.add_table(&ids, t, control, prefix, &mut out, &mut type_info)?;
                }
                Node::Instance(i, control, prefix) => {
                    self.add_instance(&ids, i, control, prefix, &mut out, &mut type_info)?;
                }
            }
        }
        for h in &controller_headers {
            self.add_controller_header(&ids, h, &mut out, &mut type_info)?;
        }
        out.type_info = type_info;
        if let Some(pipe) = &self.tna_pipe {
            tna_ids(&mut out, pipe)?;
            if let Some((parser, key)) = &self.tna_port_metadata {
                // bf-p4c's extern for the ingress parser's port metadata
                // (type 144), its id from the pipeline-qualified name
                let name = format!("{parser}.$PORT_METADATA");
                let mut alloc = IdAllocator::new();
                let ty = ResourceType::Other(144);
                alloc
                    .add(ty, &format!("{pipe}.{name}"), None)
                    .map_err(|e| invalid(e.to_string(), Span::default()))?;
                let ids = alloc
                    .assign()
                    .map_err(|e| invalid(e.to_string(), Span::default()))?;
                out.externs.push(ExternType {
                    type_id: 144,
                    type_name: "PortMetadata".into(),
                    instances: vec![ExternInstance {
                        preamble: Preamble {
                            id: ids.get(ty, &format!("{pipe}.{name}")).unwrap_or(0),
                            alias: "$PORT_METADATA".into(),
                            name,
                            annotations: Vec::new(),
                        },
                        type_url: "type.googleapis.com/barefoot.PortMetadata".into(),
                        value: format!("{key}.ingress_port").into_bytes(),
                    }],
                });
            }
        }
        Ok(out)
    }

    /// The resource type of an extern instance in a control.
    fn instance_resource(&self, i: &Instantiation) -> Res<Option<ResourceType>> {
        let type_name = match &i.ty.kind {
            TypeKind::Name(p) => p.name.as_str(),
            TypeKind::Specialized { base, .. } => base.name.as_str(),
            _ => "",
        };
        Ok(match type_name {
            "counter" => Some(ResourceType::Counter),
            "direct_counter" => Some(ResourceType::DirectCounter),
            "meter" => Some(ResourceType::Meter),
            "direct_meter" => Some(ResourceType::DirectMeter),
            "register" => Some(ResourceType::Register),
            // TNA, as bf-p4c --p4runtime-force-std-externs writes them
            "Counter" if self.tna_pipe.is_some() => Some(ResourceType::Counter),
            "DirectCounter" if self.tna_pipe.is_some() => Some(ResourceType::DirectCounter),
            "Register" if self.tna_pipe.is_some() => Some(ResourceType::Register),
            "action_profile" | "action_selector" => {
                return Err(unsupported(
                    "action profiles and selectors in P4Info",
                    i.ty.span,
                ));
            }
            _ => None,
        })
    }

    fn digests_of(&mut self, control: &'a ControlDecl) -> Res<Vec<DigestUse>> {
        let plan = self.plan(control);
        let actions = plan.actions.clone();
        let globals = plan.global_actions.clone();
        let mut calls = Vec::new();
        for a in globals.iter().chain(actions.iter()) {
            digest_calls(&a.body, &mut calls);
        }
        digest_calls(&control.apply, &mut calls);
        let mut out = Vec::new();
        for call in calls {
            let ExprKind::Call {
                type_args, args, ..
            } = &call.kind
            else {
                continue;
            };
            let ty = match (type_args.first(), args.get(1)) {
                (Some(t), _) => self.resolve(t)?,
                (None, Some(a)) => match &a.value.kind {
                    ExprKind::List { .. } => {
                        return Err(unsupported(
                            "digest of a list without a type argument (p4c names it digest_N)",
                            call.span,
                        ));
                    }
                    _ => {
                        // The data may use action parameters; look them up too.
                        self.type_in_action_context(control, &a.value)?
                    }
                },
                _ => return Err(invalid("digest needs a receiver and data", call.span)),
            };
            let name = match &ty {
                CpType::Struct(s) | CpType::Header(s) | CpType::Union(s) => {
                    let annotations = self
                        .struct_decl(s)
                        .map_or(&[][..], |d| d.annotations.as_slice());
                    let n = annotated_name(annotations, s);
                    n.strip_prefix('.').unwrap_or(&n).to_string()
                }
                _ => {
                    return Err(unsupported(
                        "digest data that is not a struct or header",
                        call.span,
                    ));
                }
            };
            out.push(DigestUse { name, ty });
        }
        Ok(out)
    }

    /// The type of a digest's data: in the control's scope, else with the
    /// parameters of one of its actions.
    fn type_in_action_context(&self, control: &'a ControlDecl, e: &Expr) -> Res<CpType> {
        let mut resolver = self.resolver.borrow_mut();
        match resolver.type_of(e, control, None) {
            Ok(t) => Ok(t),
            Err(first) => {
                for d in &control.locals {
                    if let Declaration::Action(a) = d
                        && let Ok(t) = resolver.type_of(e, control, Some(a))
                    {
                        return Ok(t);
                    }
                }
                Err(first)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_action(
        &self,
        ids: &AssignedIds,
        a: &'a ActionDecl,
        name: String,
        called_directly: bool,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
        serialized: &mut HashSet<u32>,
    ) -> Res<()> {
        if find_annotation(&a.annotations, "hidden").is_some() {
            return Ok(());
        }
        let id = ids.get(ResourceType::Action, &name).unwrap_or(0);
        if !serialized.insert(id) {
            return Ok(());
        }
        let cp_params: Vec<&Param> = a
            .params
            .iter()
            .filter(|p| p.direction == crate::front::ast::Direction::None && !called_directly)
            .collect();
        let annos: Vec<&[Annotation]> =
            cp_params.iter().map(|p| p.annotations.as_slice()).collect();
        let param_ids = field_ids(&annos)?;
        let mut params = Vec::new();
        for (p, pid) in cp_params.iter().zip(param_ids) {
            let ty = self.resolve(&p.ty)?;
            let (bitwidth, type_name) = match &ty {
                CpType::Bit(_)
                | CpType::Int(_)
                | CpType::Bool
                | CpType::SerEnum(..)
                | CpType::NewType(..) => (self.width(&ty).unwrap_or(0), type_name(&ty)),
                CpType::Enum(e) => (0, Some(e.to_string())),
                _ => {
                    return Err(invalid(
                        format!(
                            "action parameter `{}` has a type which is not bit<>, int<>, bool, type or serializable enum",
                            p.name
                        ),
                        p.span,
                    ));
                }
            };
            let info = type_info.get_or_insert_with(TypeInfo::default);
            self.type_spec(&ty, info, p.span)?;
            params.push(ActionParam {
                id: pid,
                name: annotated_name(&p.annotations, p.name.as_str()),
                annotations: printed_annotations(&p.annotations),
                bitwidth,
                type_name,
            });
        }
        out.actions.push(Action {
            preamble: Preamble {
                id,
                alias: ids.alias(&name),
                name,
                annotations: printed_annotations(&a.annotations),
            },
            params,
        });
        Ok(())
    }

    /// The P4Info name of an action a table of `control` refers to;
    /// `prefix` is the control instance's path (`EsaIngress.l2` for a
    /// control instantiated inside another), as in the actions section.
    fn action_name(
        &self,
        control: &'a ControlDecl,
        prefix: &str,
        r: &AstActionRef,
    ) -> Res<(String, &'a ActionDecl)> {
        let name = r.name.name.as_str();
        if !r.name.absolute {
            for d in &control.locals {
                if let Declaration::Action(a) = d
                    && a.name.as_str() == name
                {
                    return Ok((qualify(prefix, &a.annotations, name), a));
                }
            }
        }
        let a = self
            .actions
            .get(name)
            .ok_or_else(|| invalid(format!("unknown action `{name}`"), r.span))?;
        let n = if find_annotation(&a.annotations, "name").is_none() {
            a.name.to_string()
        } else {
            qualify(prefix, &a.annotations, name)
        };
        Ok((n, a))
    }

    fn add_table(
        &self,
        ids: &AssignedIds,
        t: &'a TableDecl,
        control: &'a ControlDecl,
        prefix: &str,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
    ) -> Res<()> {
        if find_annotation(&t.annotations, "hidden").is_some() {
            return Ok(());
        }
        let name = qualify(prefix, &t.annotations, t.name.as_str());
        let table_id = ids.get(ResourceType::Table, &name).unwrap_or(0);
        // Every table touches type_info in p4c (for its key's types).
        let info = type_info.get_or_insert_with(TypeInfo::default);

        let key: &[KeyElement] = t.key().unwrap_or(&[]);
        let annos: Vec<&[Annotation]> = key.iter().map(|k| k.annotations.as_slice()).collect();
        let key_ids = field_ids(&annos)?;
        let mut match_fields = Vec::new();
        for (k, kid) in key.iter().zip(key_ids) {
            let match_type = match k.match_kind.as_str() {
                "exact" => MatchType::Exact,
                "lpm" => MatchType::Lpm,
                "ternary" => MatchType::Ternary,
                "range" => MatchType::Range,
                "optional" => MatchType::Optional,
                "selector" => continue,
                other => MatchType::Other(other.to_string()),
            };
            let field_name = match find_annotation(&k.annotations, "name") {
                Some(a) => a
                    .string_argument()
                    .ok_or_else(|| invalid("@name needs one string", a.span))?
                    .to_string(),
                None => key_name(self, control, &k.expr)?,
            };
            let ty = self.resolver.borrow_mut().type_of(&k.expr, control, None)?;
            self.type_spec(&ty, info, k.expr.span)?;
            let bitwidth = self
                .width(&ty)
                .ok_or_else(|| invalid("this key has no bit width", k.expr.span))?;
            match_fields.push(MatchField {
                id: kid,
                name: field_name,
                annotations: printed_annotations(&k.annotations),
                bitwidth,
                match_type,
                type_name: type_name(&ty),
            });
        }

        let mut action_refs = Vec::new();
        let mut listed: Vec<String> = Vec::new();
        for r in t.actions().unwrap_or(&[]) {
            let (aname, _) = self.action_name(control, prefix, r)?;
            let table_only = find_annotation(&r.annotations, "tableonly").is_some();
            let default_only = find_annotation(&r.annotations, "defaultonly").is_some();
            if table_only && default_only {
                return Err(invalid(
                    format!(
                        "Table '{name}' has an action reference ('{aname}') which is annotated with both '@tableonly' and '@defaultonly'"
                    ),
                    r.span,
                ));
            }
            action_refs.push(ActionRef {
                id: ids.get(ResourceType::Action, &aname).unwrap_or(0),
                scope: if table_only {
                    ActionScope::TableOnly
                } else if default_only {
                    ActionScope::DefaultOnly
                } else {
                    ActionScope::TableAndDefault
                },
                annotations: printed_annotations(&r.annotations),
            });
            listed.push(aname);
        }

        let mut const_default_action_id = 0;
        let initial_default_action = match t.default_action() {
            Some((r, is_const)) => {
                let (aname, decl) = self.action_name(control, prefix, r)?;
                let id = ids.get(ResourceType::Action, &aname).unwrap_or(0);
                if is_const {
                    const_default_action_id = id;
                }
                Some(TableActionCall {
                    action_id: id,
                    arguments: self.action_arguments(decl, &r.args)?,
                })
            }
            None => {
                // The front end adds `default_action = NoAction()` and, when
                // missing, `@defaultonly NoAction` to the action list.
                let id = ids.get(ResourceType::Action, "NoAction").unwrap_or(0);
                if !listed.iter().any(|n| n == "NoAction") {
                    action_refs.push(ActionRef {
                        id,
                        scope: ActionScope::DefaultOnly,
                        annotations: vec!["@defaultonly".to_string()],
                    });
                }
                Some(TableActionCall {
                    action_id: id,
                    arguments: Vec::new(),
                })
            }
        };

        let size = match t.property("size") {
            Some(e) => {
                let v = self.eval(e, Some(control))?;
                let v = i64::try_from(v).map_err(|_| invalid("table size too large", e.span))?;
                if v == 0 { DEFAULT_TABLE_SIZE } else { v }
            }
            None => DEFAULT_TABLE_SIZE,
        };
        let supports_idle_timeout = match t.property("support_timeout") {
            Some(Expr {
                kind: ExprKind::Bool(b),
                ..
            }) => *b,
            Some(e) => {
                return Err(invalid("support_timeout must be `true` or `false`", e.span));
            }
            None => false,
        };
        let (is_const_table, has_initial_entries) = match t.entries() {
            Some((entries, is_const)) => (is_const, !entries.is_empty()),
            None => (false, false),
        };

        let mut table = Table {
            preamble: Preamble {
                id: table_id,
                alias: ids.alias(&name),
                name: name.clone(),
                annotations: self.table_annotations(&t.annotations, control),
            },
            match_fields,
            action_refs,
            const_default_action_id,
            initial_default_action,
            direct_resource_ids: Vec::new(),
            size,
            supports_idle_timeout,
            is_const_table,
            has_initial_entries,
        };

        // Direct resources, added to P4Info when their table is.
        for (prop, is_counter) in [("counters", true), ("meters", false)] {
            let Some(e) = t.property(prop) else { continue };
            let ExprKind::Name(p) = &e.kind else {
                return Err(unsupported(
                    format!("`{prop}` must name an instance"),
                    e.span,
                ));
            };
            let inst = control
                .locals
                .iter()
                .find_map(|d| match d {
                    Declaration::Instantiation(i) if i.name.as_str() == p.name.as_str() => Some(i),
                    _ => None,
                })
                .ok_or_else(|| invalid(format!("unknown instance `{}`", p.name), e.span))?;
            let iname = qualify(prefix, &inst.annotations, inst.name.as_str());
            let unit_name = enum_member_arg(&inst.args, "type", 0)
                .ok_or_else(|| invalid("direct resource needs a type argument", inst.span))?;
            if is_counter {
                let id = ids
                    .get(ResourceType::DirectCounter, &iname)
                    .ok_or_else(|| invalid("`counters` must name a direct_counter", e.span))?;
                table.direct_resource_ids.push(id);
                out.direct_counters.push(DirectCounter {
                    preamble: Preamble {
                        id,
                        alias: ids.alias(&iname),
                        name: iname,
                        annotations: printed_annotations(&inst.annotations),
                    },
                    unit: counter_unit(&unit_name),
                    direct_table_id: table_id,
                });
            } else {
                let id = ids
                    .get(ResourceType::DirectMeter, &iname)
                    .ok_or_else(|| invalid("`meters` must name a direct_meter", e.span))?;
                table.direct_resource_ids.push(id);
                out.direct_meters.push(DirectMeter {
                    preamble: Preamble {
                        id,
                        alias: ids.alias(&iname),
                        name: iname,
                        annotations: printed_annotations(&inst.annotations),
                    },
                    unit: meter_unit(&unit_name),
                    direct_table_id: table_id,
                });
            }
        }
        out.tables.push(table);
        Ok(())
    }

    /// A table's annotations as P4Info prints them; for TNA, bf-p4c folds
    /// the expression of `@stage(...)`.
    fn table_annotations(
        &self,
        annotations: &[Annotation],
        control: &'a ControlDecl,
    ) -> Vec<String> {
        let mut out = printed_annotations(annotations);
        if self.tna_pipe.is_none() {
            return out;
        }
        let kept = annotations
            .iter()
            .filter(|a| !matches!(a.name.as_str(), "name" | "id" | "brief" | "description"));
        for (printed, a) in out.iter_mut().zip(kept) {
            if a.name.as_str() != "stage" {
                continue;
            }
            if let AnnotationBody::Unstructured {
                expressions: Some(exprs),
                ..
            } = &a.body
                && let [e] = exprs.as_slice()
                && let Ok(v) = self.eval(e, Some(control))
            {
                *printed = format!("@stage({v})");
            }
        }
        out
    }

    /// Arguments of a default action call, as P4Runtime bytes.
    fn action_arguments(&self, decl: &ActionDecl, args: &[Argument]) -> Res<Vec<(u32, Vec<u8>)>> {
        let cp_params: Vec<&Param> = decl
            .params
            .iter()
            .filter(|p| p.direction == crate::front::ast::Direction::None)
            .collect();
        // Directional parameters are bound in the call too, before the
        // control-plane ones.
        let skip = decl.params.len() - cp_params.len();
        let mut out = Vec::new();
        for (i, arg) in args.iter().skip(skip).enumerate() {
            let Some(p) = cp_params.get(i) else { break };
            let width = self.width(&self.resolve(&p.ty)?).unwrap_or(0);
            let value = self.eval(&arg.value, None)?;
            let id = u32::try_from(i + 1).unwrap_or(u32::MAX);
            out.push((id, value_bytes(value, width)));
        }
        Ok(out)
    }

    fn add_instance(
        &self,
        ids: &AssignedIds,
        i: &'a Instantiation,
        control: &'a ControlDecl,
        prefix: &str,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
    ) -> Res<()> {
        let Some(ty) = self.instance_resource(i)? else {
            return Ok(());
        };
        let name = qualify(prefix, &i.annotations, i.name.as_str());
        let preamble = Preamble {
            id: ids.get(ty, &name).unwrap_or(0),
            alias: ids.alias(&name),
            name: name.clone(),
            annotations: printed_annotations(&i.annotations),
        };
        let size = |this: &Self| -> Res<i64> {
            let arg = named_or_positional(&i.args, "size", 0)
                .ok_or_else(|| invalid("missing size argument", i.span))?;
            let v = this.eval(&arg.value, Some(control))?;
            i64::try_from(v).map_err(|_| invalid("size out of range", arg.value.span))
        };
        match ty {
            ResourceType::Counter => {
                let unit = enum_member_arg(&i.args, "type", 1)
                    .ok_or_else(|| invalid("counter needs a CounterType", i.span))?;
                out.counters.push(Counter {
                    preamble,
                    unit: counter_unit(&unit),
                    size: size(self)?,
                });
            }
            ResourceType::Meter => {
                let unit = enum_member_arg(&i.args, "type", 1)
                    .ok_or_else(|| invalid("meter needs a MeterType", i.span))?;
                out.meters.push(Meter {
                    preamble,
                    unit: meter_unit(&unit),
                    size: size(self)?,
                });
            }
            ResourceType::Register => {
                let TypeKind::Specialized { args, .. } = &i.ty.kind else {
                    return Err(invalid("register needs a type argument", i.ty.span));
                };
                let elem = args
                    .first()
                    .ok_or_else(|| invalid("register needs a type argument", i.ty.span))?;
                let t = self.resolve(elem)?;
                let info = type_info.get_or_insert_with(TypeInfo::default);
                let type_spec = self.type_spec(&t, info, elem.span)?;
                out.registers.push(Register {
                    preamble,
                    type_spec,
                    size: size(self)?,
                });
            }
            // Direct resources appear with their table.
            _ => {}
        }
        Ok(())
    }

    fn add_controller_header(
        &self,
        ids: &AssignedIds,
        h: &'a StructDecl,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
    ) -> Res<()> {
        if find_annotation(&h.annotations, "hidden").is_some() {
            return Ok(());
        }
        let anno = find_annotation(&h.annotations, "controller_header")
            .ok_or_else(|| invalid("missing @controller_header", h.span))?;
        let controller_name = anno
            .string_argument()
            .ok_or_else(|| invalid("@controller_header needs one string", anno.span))?
            .to_string();
        let symbol = annotated_name(&h.annotations, h.name.as_str());
        let symbol = symbol.strip_prefix('.').unwrap_or(&symbol);
        let annos: Vec<&[Annotation]> = h.fields.iter().map(|f| f.annotations.as_slice()).collect();
        let field_id_list = field_ids(&annos)?;
        let mut metadata = Vec::new();
        for (f, fid) in h.fields.iter().zip(field_id_list) {
            if find_annotation(&f.annotations, "hidden").is_some() {
                continue;
            }
            let t = self.resolve(&f.ty)?;
            let info = type_info.get_or_insert_with(TypeInfo::default);
            self.type_spec(&t, info, f.span)?;
            metadata.push(PacketMetadata {
                id: fid,
                name: annotated_name(&f.annotations, f.name.as_str()),
                annotations: printed_annotations(&f.annotations),
                bitwidth: self
                    .width(&t)
                    .ok_or_else(|| invalid("controller header fields must be bit<W>", f.span))?,
                type_name: type_name(&t),
            });
        }
        out.controller_packet_metadata
            .push(ControllerPacketMetadata {
                preamble: Preamble {
                    id: ids.get(ResourceType::ControllerHeader, symbol).unwrap_or(0),
                    name: controller_name.clone(),
                    alias: controller_name,
                    annotations: printed_annotations(&h.annotations),
                },
                metadata,
            });
        Ok(())
    }

    /// p4c's `TypeSpecConverter`: the spec of `t`, recording named types in
    /// `info`.
    fn type_spec(&self, t: &CpType, info: &mut TypeInfo, span: Span) -> Res<TypeSpec> {
        Ok(match t {
            CpType::Bit(w) => TypeSpec::Bit(*w),
            CpType::Int(w) => TypeSpec::Int(*w),
            CpType::Varbit(w) => TypeSpec::Varbit(*w),
            CpType::Bool => TypeSpec::Bool,
            CpType::Error => {
                info.error = Some(self.resolver.borrow().errors().to_vec());
                TypeSpec::Error
            }
            CpType::Tuple(items) => TypeSpec::Tuple(
                items
                    .iter()
                    .map(|i| self.type_spec(i, info, span))
                    .collect::<Res<_>>()?,
            ),
            CpType::Struct(s) => {
                let name = s.to_string();
                if !info.structs.contains_key(&name) {
                    let fields = self.resolver.borrow_mut().fields(s)?;
                    let decl = self.struct_decl(s);
                    let mut members = Vec::new();
                    for (k, f) in fields.iter().enumerate() {
                        let field_span =
                            decl.and_then(|d| d.fields.get(k)).map_or(span, |d| d.span);
                        members.push((
                            annotated_name(&f.annotations, &f.name),
                            self.type_spec(&f.ty, info, field_span)?,
                        ));
                    }
                    info.structs.insert(name.clone(), members);
                }
                TypeSpec::Struct(name)
            }
            CpType::Header(s) => {
                let name = s.to_string();
                if !info.headers.contains_key(&name) {
                    let fields = self.resolver.borrow_mut().fields(s)?;
                    let decl = self.struct_decl(s);
                    let mut members = Vec::new();
                    for (k, f) in fields.iter().enumerate() {
                        let field_span =
                            decl.and_then(|d| d.fields.get(k)).map_or(span, |d| d.span);
                        let spec = match &f.ty {
                            CpType::Bit(w) => TypeSpec::Bit(*w),
                            CpType::Int(w) => TypeSpec::Int(*w),
                            CpType::Varbit(w) => TypeSpec::Varbit(*w),
                            CpType::SerEnum(_, w) => TypeSpec::Bit(*w),
                            CpType::NewType(_, inner) => match **inner {
                                CpType::Bit(w) => TypeSpec::Bit(w),
                                _ => {
                                    return Err(unsupported(
                                        "this header field type in P4Info",
                                        field_span,
                                    ));
                                }
                            },
                            _ => {
                                return Err(unsupported(
                                    "this header field type in P4Info",
                                    field_span,
                                ));
                            }
                        };
                        members.push(HeaderMember {
                            name: annotated_name(&f.annotations, &f.name),
                            type_spec: spec,
                        });
                    }
                    info.headers.insert(name.clone(), members);
                }
                TypeSpec::Header(name)
            }
            CpType::Union(s) => {
                let name = s.to_string();
                if !info.header_unions.contains_key(&name) {
                    let fields = self.resolver.borrow_mut().fields(s)?;
                    let decl = self.struct_decl(s);
                    let mut members = Vec::new();
                    for (k, f) in fields.iter().enumerate() {
                        let field_span =
                            decl.and_then(|d| d.fields.get(k)).map_or(span, |d| d.span);
                        let TypeSpec::Header(h) = self.type_spec(&f.ty, info, field_span)? else {
                            return Err(invalid(
                                "header union members must be headers",
                                field_span,
                            ));
                        };
                        members.push((f.name.to_string(), h));
                    }
                    info.header_unions.insert(name.clone(), members);
                }
                TypeSpec::HeaderUnion(name)
            }
            CpType::Stack(elem, size) => {
                let TypeSpec::Header(header) = self.type_spec(elem, info, span)? else {
                    return Err(unsupported("stacks of header unions in P4Info", span));
                };
                TypeSpec::HeaderStack {
                    header,
                    size: *size,
                }
            }
            CpType::Enum(e) => {
                let name = e.to_string();
                if !info.enums.contains_key(&name) {
                    let members = self.resolver.borrow().enum_members(e);
                    info.enums.insert(
                        name.clone(),
                        members.iter().map(|(m, _)| m.to_string()).collect(),
                    );
                }
                TypeSpec::Enum(name)
            }
            CpType::SerEnum(e, w) => {
                let name = e.to_string();
                if !info.serializable_enums.contains_key(&name) {
                    let members = self
                        .resolver
                        .borrow()
                        .enum_members(e)
                        .into_iter()
                        .map(|(m, v)| (m.to_string(), value_bytes(v, *w)))
                        .collect();
                    info.serializable_enums.insert(
                        name.clone(),
                        SerializableEnumSpec {
                            underlying_bitwidth: *w,
                            members,
                        },
                    );
                }
                TypeSpec::SerializableEnum(name)
            }
            CpType::NewType(n, inner) => {
                let name = n.to_string();
                if !info.new_types.contains_key(&name) {
                    let spec = match self.new_type_decl(n).and_then(translation) {
                        Some((uri, sdn_bitwidth)) => NewTypeSpec::Translated { uri, sdn_bitwidth },
                        None => NewTypeSpec::Original(self.type_spec(inner, info, span)?),
                    };
                    info.new_types.insert(name.clone(), spec);
                }
                TypeSpec::NewType(name)
            }
            CpType::Other => {
                return Err(unsupported("this type in P4Info", span));
            }
        })
    }
}

/// The user-defined type name P4Info records for keys and parameters.
fn type_name(t: &CpType) -> Option<String> {
    match t {
        CpType::NewType(name, _) => Some(name.to_string()),
        _ => None,
    }
}

/// Big-endian bytes of `value` in `ceil(width / 8)` bytes (p4c's
/// `stringRepr`); negative values in two's complement.
fn value_bytes(value: i128, width: u32) -> Vec<u8> {
    let n = usize::try_from(width.div_ceil(8)).unwrap_or(0).max(1);
    let bytes = value.to_be_bytes();
    if n >= bytes.len() {
        let fill = if value < 0 { 0xff } else { 0 };
        let mut v = vec![fill; n - bytes.len()];
        v.extend_from_slice(&bytes);
        v
    } else {
        bytes[bytes.len() - n..].to_vec()
    }
}

fn named_or_positional<'e>(args: &'e [Argument], name: &str, index: usize) -> Option<&'e Argument> {
    if args.iter().any(|a| a.name.is_some()) {
        args.iter()
            .find(|a| a.name.as_ref().is_some_and(|n| n.as_str() == name))
    } else {
        args.get(index)
    }
}

/// The member name of an enum-valued constructor argument (`CounterType.bytes`).
fn enum_member_arg(args: &[Argument], name: &str, index: usize) -> Option<String> {
    // Direct resources take the type as their only argument.
    let arg = named_or_positional(args, name, index)
        .or_else(|| if args.len() == 1 { args.first() } else { None })?;
    match &arg.value.kind {
        ExprKind::Member { member, .. } => Some(member.to_string()),
        _ => None,
    }
}

/// bf-p4c (with `--p4runtime-force-std-externs`) names a TNA program's
/// tables, counters, meters and registers without the pipeline, but derives
/// their ids from `<pipe>.<name>` (actions keep their own names): the ids
/// of those objects again, from the prefixed names, with references to
/// table ids rewritten.
fn tna_ids(out: &mut P4Info, pipe: &str) -> Res<()> {
    let mut alloc = IdAllocator::new();
    let mut objects: Vec<(ResourceType, String, u32)> = Vec::new();
    {
        let mut add = |ty: ResourceType, p: &Preamble| {
            objects.push((ty, p.name.clone(), p.id));
        };
        for t in &out.tables {
            add(ResourceType::Table, &t.preamble);
        }
        for c in &out.counters {
            add(ResourceType::Counter, &c.preamble);
        }
        for c in &out.direct_counters {
            add(ResourceType::DirectCounter, &c.preamble);
        }
        for m in &out.meters {
            add(ResourceType::Meter, &m.preamble);
        }
        for m in &out.direct_meters {
            add(ResourceType::DirectMeter, &m.preamble);
        }
        for r in &out.registers {
            add(ResourceType::Register, &r.preamble);
        }
    }
    for (ty, name, _) in &objects {
        alloc
            .add(*ty, &format!("{pipe}.{name}"), None)
            .map_err(|e| invalid(e.to_string(), Span::default()))?;
    }
    let ids = alloc
        .assign()
        .map_err(|e| invalid(e.to_string(), Span::default()))?;
    let map: HashMap<u32, u32> = objects
        .iter()
        .map(|(ty, name, old)| {
            (
                *old,
                ids.get(*ty, &format!("{pipe}.{name}")).unwrap_or(*old),
            )
        })
        .collect();
    let fix = |id: &mut u32| {
        if let Some(n) = map.get(id) {
            *id = *n;
        }
    };
    for t in &mut out.tables {
        fix(&mut t.preamble.id);
        t.direct_resource_ids.iter_mut().for_each(fix);
    }
    for c in &mut out.counters {
        fix(&mut c.preamble.id);
    }
    for c in &mut out.direct_counters {
        fix(&mut c.preamble.id);
        fix(&mut c.direct_table_id);
    }
    for m in &mut out.meters {
        fix(&mut m.preamble.id);
    }
    for m in &mut out.direct_meters {
        fix(&mut m.preamble.id);
        fix(&mut m.direct_table_id);
    }
    for r in &mut out.registers {
        fix(&mut r.preamble.id);
    }
    Ok(())
}

fn counter_unit(name: &str) -> CounterUnit {
    match name.to_ascii_lowercase().as_str() {
        "packets" => CounterUnit::Packets,
        "bytes" => CounterUnit::Bytes,
        "packets_and_bytes" => CounterUnit::Both,
        _ => CounterUnit::Unspecified,
    }
}

fn meter_unit(name: &str) -> MeterUnit {
    match name {
        "packets" => MeterUnit::Packets,
        "bytes" => MeterUnit::Bytes,
        _ => MeterUnit::Unspecified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_protobuf() {
        assert_eq!(c_escape(b"a\"b\\c\n"), "a\\\"b\\\\c\\n");
        assert_eq!(c_escape(&[0, 1, 0x7f, 0xff]), "\\000\\001\\177\\377");
    }

    #[test]
    fn value_bytes_pad_to_width() {
        assert_eq!(value_bytes(5, 9), vec![0, 5]);
        assert_eq!(value_bytes(1, 1), vec![1]);
        assert_eq!(value_bytes(-1, 16), vec![0xff, 0xff]);
        assert_eq!(value_bytes(0x0a00_0001, 32), vec![10, 0, 0, 1]);
    }
}
