//! P4Info's object model: [`P4Info`] and the objects it lists, as
//! `p4info.proto` declares them, with lookups by name and id.

use std::collections::BTreeMap;

/// A program's P4Info.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct P4Info {
    /// `pkg_info.arch`: `v1model` or `tna`; empty for a program without
    /// `main`, whose P4Info has no `pkg_info`.
    pub arch: String,
    /// Annotations on the `main` declaration (`pkg_info.annotations`).
    pub pkg_annotations: Vec<String>,
    /// Tables in p4c's order.
    pub tables: Vec<Table>,
    /// Actions in p4c's order.
    pub actions: Vec<Action>,
    /// Action profiles and selectors.
    pub action_profiles: Vec<ActionProfile>,
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
    /// Parser value sets.
    pub value_sets: Vec<ValueSet>,
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
    /// Id of its action profile or selector (`implementation`; 0 without).
    pub implementation_id: u32,
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

/// An action profile or selector (`action_profile(size)`,
/// `action_selector(algorithm, size, width)`), declared as an instance or
/// in a table's `implementation`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ActionProfile {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// Ids of the tables it implements, in order of their names.
    pub table_ids: Vec<u32>,
    /// An action selector.
    pub with_selector: bool,
    /// Its `size` argument.
    pub size: i64,
    /// `@max_group_size` (selectors only; 0 without).
    pub max_group_size: i32,
    /// `@selector_size_semantics` (selectors only).
    pub selector_size_semantics: Option<SelectorSizeSemantics>,
}

/// How a selector's size counts (`@selector_size_semantics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectorSizeSemantics {
    /// `"sum_of_weights"`.
    SumOfWeights,
    /// `"sum_of_members"`, with `@max_member_weight` (0 without).
    SumOfMembers {
        /// The largest weight of a member.
        max_member_weight: i32,
    },
}

/// A parser value set (`value_set<T>(size) name;`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ValueSet {
    /// Id, name, alias.
    pub preamble: Preamble,
    /// What a member holds: one unnamed field for `bit<W>`, one per field
    /// of a struct (matched as its `@match` says), one per member of a
    /// serializable enum.
    pub matches: Vec<MatchField>,
    /// Its capacity.
    pub size: i32,
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
}
