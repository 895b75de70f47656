//! P4Info in protobuf text format, byte for byte as p4c writes it: fields
//! in field-number order, proto3 defaults omitted, map entries sorted by
//! key.

use std::fmt::Write as _;

use super::model::{
    ActionScope, CounterUnit, MatchField, MatchType, MeterUnit, NewTypeSpec, P4Info, Preamble,
    SelectorSizeSemantics, TypeInfo, TypeSpec,
};

impl P4Info {
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
        if !self.arch.is_empty() || !self.pkg_annotations.is_empty() {
            w.open("pkg_info");
            for a in &self.pkg_annotations {
                w.string("annotations", a);
            }
            w.string("arch", &self.arch);
            w.close();
        }
        for t in &self.tables {
            w.open("tables");
            w.preamble(&t.preamble);
            for m in &t.match_fields {
                w.match_field("match_fields", m);
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
            w.uint("implementation_id", u64::from(t.implementation_id));
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
        for p in &self.action_profiles {
            w.open("action_profiles");
            w.preamble(&p.preamble);
            for id in &p.table_ids {
                w.uint_always("table_ids", u64::from(*id));
            }
            if p.with_selector {
                w.raw("with_selector", "true");
            }
            w.int("size", p.size);
            w.int("max_group_size", i64::from(p.max_group_size));
            match p.selector_size_semantics {
                None => {}
                Some(SelectorSizeSemantics::SumOfWeights) => {
                    w.open("sum_of_weights");
                    w.close();
                }
                Some(SelectorSizeSemantics::SumOfMembers { max_member_weight }) => {
                    w.open("sum_of_members");
                    w.int("max_member_weight", i64::from(max_member_weight));
                    w.close();
                }
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
        for v in &self.value_sets {
            w.open("value_sets");
            w.preamble(&v.preamble);
            for m in &v.matches {
                w.match_field("match", m);
            }
            w.int("size", i64::from(v.size));
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

    fn match_field(&mut self, field: &str, m: &MatchField) {
        self.open(field);
        self.uint("id", u64::from(m.id));
        self.string("name", &m.name);
        for a in &m.annotations {
            self.string("annotations", a);
        }
        self.uint("bitwidth", u64::from(m.bitwidth));
        match &m.match_type {
            MatchType::Other(name) => self.string_always("other_match_type", name),
            kind => self.raw("match_type", kind.proto_name()),
        }
        if let Some(name) = &m.type_name {
            self.named_type("type_name", name);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_protobuf() {
        assert_eq!(c_escape(b"a\"b\\c\n"), "a\\\"b\\\\c\\n");
        assert_eq!(c_escape(&[0, 1, 0x7f, 0xff]), "\\000\\001\\177\\377");
    }
}
