//! A loaded P4 program: the compiled IR for p4sim, its P4Info, and the
//! lookups from P4Runtime ids to what p4sim's control-plane API names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use p4runtime_proto::bytestring;
use p4runtime_proto::p4::config::v1 as pb;
use p4runtime_proto::p4::v1::PacketMetadata;
use p4sim::ir::Compiled;
use p4sim::p4info::{
    Action, ActionScope, MatchField, MatchType, P4Info, Register, TableActionCall, TypeSpec,
};

use crate::codec;
use crate::error::LoadError;

/// A table as P4Runtime sees it: p4sim's P4Info entry, indexed.
#[derive(Debug, Clone)]
pub struct TableInfo {
    /// Fully qualified name (also p4sim's name for it).
    pub name: String,
    /// Key fields in key order.
    pub fields: Vec<MatchField>,
    /// Allowed actions by id, and where each may be used.
    pub actions: HashMap<u32, ActionScope>,
    /// Whether entries need a priority (a ternary, range or optional key).
    pub needs_priority: bool,
    /// `const entries`.
    pub is_const: bool,
    /// `const default_action` (its action id), 0 when not const.
    pub const_default_action_id: u32,
    /// The program's default action: action id and (parameter id, value).
    pub initial_default: Option<TableActionCall>,
    /// Attached direct counter: P4Info id and name.
    pub direct_counter: Option<(u32, String)>,
}

/// An indexed counter or a register array.
#[derive(Debug, Clone)]
pub struct ArrayInfo {
    /// Fully qualified name.
    pub name: String,
    /// Number of cells.
    pub size: u64,
    /// Cell width (registers only; 0 for counters).
    pub width: u32,
}

/// The fields of a controller header (`packet_in` / `packet_out`).
#[derive(Debug, Clone, Default)]
pub struct ControllerHeader {
    /// (metadata id, name, width) in header order.
    pub fields: Vec<(u32, String, u32)>,
}

impl ControllerHeader {
    /// Bytes the header takes on the wire.
    pub fn byte_len(&self) -> usize {
        let bits: u32 = self.fields.iter().map(|f| f.2).sum();
        bits.div_ceil(8) as usize
    }

    /// Reads the header's fields off the front of a frame (a PacketIn's
    /// metadata) and returns them with the payload behind the header;
    /// `None` when the frame is shorter than the header.
    pub(crate) fn decode(&self, frame: &[u8]) -> Option<(Vec<PacketMetadata>, Vec<u8>)> {
        let len = self.byte_len();
        if frame.len() < len {
            return None;
        }
        let mut offset = 0usize;
        let mut metadata = Vec::new();
        for (id, _, width) in &self.fields {
            let w = *width as usize;
            let mut value = vec![0u8; w.div_ceil(8)];
            for i in 0..w {
                let bit = offset + i;
                if frame[bit / 8] & (0x80 >> (bit % 8)) != 0 {
                    // Bit i of the field, counted from its most significant.
                    let pos = w - 1 - i;
                    let n = value.len();
                    value[n - 1 - pos / 8] |= 1 << (pos % 8);
                }
            }
            offset += w;
            metadata.push(PacketMetadata {
                metadata_id: *id,
                value: bytestring::canonical(&value),
            });
        }
        Some((metadata, frame[len..].to_vec()))
    }

    /// Builds the header from a PacketOut's metadata (absent fields are 0).
    pub(crate) fn encode(&self, metadata: &[PacketMetadata]) -> Result<Vec<u8>, String> {
        for m in metadata {
            if !self.fields.iter().any(|f| f.0 == m.metadata_id) {
                return Err(format!(
                    "packet_out has no metadata field with id {}",
                    m.metadata_id
                ));
            }
        }
        let mut out = vec![0u8; self.byte_len()];
        let mut offset = 0usize;
        for (id, name, width) in &self.fields {
            let w = *width as usize;
            if let Some(m) = metadata.iter().find(|m| m.metadata_id == *id) {
                let value = codec::check(&m.value, *width)
                    .map_err(|e| format!("packet_out metadata `{name}`: {e}"))?;
                let n = value.len();
                for i in 0..w {
                    let pos = w - 1 - i;
                    let byte = pos / 8;
                    if byte < n && value[n - 1 - byte] & (1 << (pos % 8)) != 0 {
                        let bit = offset + i;
                        out[bit / 8] |= 0x80 >> (bit % 8);
                    }
                }
            }
            offset += w;
        }
        Ok(out)
    }
}

/// A compiled program with everything P4Runtime needs to drive it.
#[derive(Debug)]
pub struct Program {
    /// The program's source text (the P4Runtime device config).
    pub source: Vec<u8>,
    /// The IR p4sim executes.
    pub compiled: Arc<Compiled>,
    /// The P4Info p4sim generated, as the message clients get.
    pub p4info: pb::P4Info,
    /// Tables by id.
    pub tables: HashMap<u32, TableInfo>,
    /// Actions by id.
    pub actions: HashMap<u32, Action>,
    /// Indexed counters by id.
    pub counters: HashMap<u32, ArrayInfo>,
    /// Registers by id.
    pub registers: HashMap<u32, ArrayInfo>,
    /// Direct counters: id to table id.
    pub direct_counters: HashMap<u32, u32>,
    /// `@controller_header("packet_in")`, if any.
    pub packet_in: Option<ControllerHeader>,
    /// `@controller_header("packet_out")`, if any.
    pub packet_out: Option<ControllerHeader>,
}

/// Where the text of a program comes from.
#[derive(Debug, Clone)]
pub enum Source<'a> {
    /// A file on disk; `#include` searches its folder, then `include_dirs`.
    File(&'a Path),
    /// Text received over P4Runtime; `#include` searches `include_dirs`
    /// only (and only when some are given; otherwise the file system is
    /// never read).
    Text(&'a str),
}

impl Program {
    /// Parses and compiles a program and builds its P4Info.
    pub fn load(source: Source<'_>, include_dirs: &[PathBuf]) -> Result<Program, LoadError> {
        let options = p4sim::front::FrontendOptions {
            include_dirs: include_dirs.to_vec(),
            defines: Vec::new(),
        };
        let (ast, text) = match source {
            Source::File(path) => {
                let text = std::fs::read(path).map_err(|e| LoadError::Io {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })?;
                let ast = p4sim::front::parse_program_with(path, &options)
                    .map_err(|d| LoadError::Compile(d.to_string()))?;
                (ast, text)
            }
            Source::Text(text) => {
                let ast = if include_dirs.is_empty() {
                    p4sim::front::parse_source_with(
                        "program.p4",
                        text,
                        &p4sim::front::preprocess::MemoryLoader::new(),
                        &options,
                    )
                } else {
                    p4sim::front::parse_source_with(
                        "program.p4",
                        text,
                        &p4sim::front::preprocess::FsLoader,
                        &options,
                    )
                }
                .map_err(|d| LoadError::Compile(d.to_string()))?;
                (ast, text.as_bytes().to_vec())
            }
        };
        let info = p4sim::p4info::p4info(&ast).map_err(|d| LoadError::Compile(d.to_string()))?;
        let compiled =
            p4sim::check::compile(&ast).map_err(|d| LoadError::Compile(d.to_string()))?;
        Program::new(text, Arc::new(compiled), &info)
    }

    fn new(source: Vec<u8>, compiled: Arc<Compiled>, info: &P4Info) -> Result<Program, LoadError> {
        let mut direct_counters = HashMap::new();
        let mut direct_by_table = HashMap::new();
        for c in &info.direct_counters {
            direct_counters.insert(c.preamble.id, c.direct_table_id);
            direct_by_table.insert(c.direct_table_id, (c.preamble.id, c.preamble.name.clone()));
        }
        let mut tables = HashMap::new();
        for t in &info.tables {
            let name = t.preamble.name.clone();
            if !compiled.tables.iter().any(|ir| ir.name == name) {
                return Err(LoadError::Mismatch(format!(
                    "P4Info table `{name}` has no table of that name in p4sim's IR"
                )));
            }
            let needs_priority = t.match_fields.iter().any(|f| {
                matches!(
                    f.match_type,
                    MatchType::Ternary | MatchType::Range | MatchType::Optional
                )
            });
            let id = t.preamble.id;
            tables.insert(
                id,
                TableInfo {
                    name,
                    fields: t.match_fields.clone(),
                    actions: t.action_refs.iter().map(|a| (a.id, a.scope)).collect(),
                    needs_priority,
                    is_const: t.is_const_table,
                    const_default_action_id: t.const_default_action_id,
                    initial_default: t.initial_default_action.clone(),
                    direct_counter: direct_by_table.get(&id).cloned(),
                },
            );
        }
        let actions = info
            .actions
            .iter()
            .map(|a| (a.preamble.id, a.clone()))
            .collect();
        let counters = info
            .counters
            .iter()
            .map(|c| {
                (
                    c.preamble.id,
                    ArrayInfo {
                        name: c.preamble.name.clone(),
                        size: u64::try_from(c.size).unwrap_or(0),
                        width: 0,
                    },
                )
            })
            .collect();
        let registers = info
            .registers
            .iter()
            .map(|r| {
                (
                    r.preamble.id,
                    ArrayInfo {
                        name: r.preamble.name.clone(),
                        size: u64::try_from(r.size).unwrap_or(0),
                        width: register_width(r),
                    },
                )
            })
            .collect();
        let header = |which: &str| {
            info.controller_packet_metadata
                .iter()
                .find(|c| c.preamble.name == which)
                .map(|c| ControllerHeader {
                    fields: c
                        .metadata
                        .iter()
                        .map(|m| (m.id, m.name.clone(), m.bitwidth))
                        .collect(),
                })
        };
        let packet_in = header("packet_in");
        let packet_out = header("packet_out");
        Ok(Program {
            source,
            compiled,
            tables,
            actions,
            counters,
            registers,
            direct_counters,
            packet_in,
            packet_out,
            p4info: p4runtime_proto::from_p4sim::p4info(info),
        })
    }

    /// Checks that a P4Info a client sent agrees with the one p4sim made:
    /// every object it names exists here with the same id and name, and
    /// tables, actions and controller headers have the same fields with the
    /// same ids and widths. The client may leave objects out.
    pub fn check_client_p4info(&self, client: &pb::P4Info) -> Result<(), String> {
        fn pre(p: &Option<pb::Preamble>) -> (u32, &str) {
            p.as_ref().map_or((0, ""), |p| (p.id, p.name.as_str()))
        }
        fn find<'a, T>(
            kind: &str,
            ours: &'a [T],
            get: impl Fn(&T) -> (u32, &str),
            id: u32,
            name: &str,
        ) -> Result<&'a T, String> {
            match ours.iter().find(|o| get(o).0 == id) {
                Some(o) if get(o).1 == name => Ok(o),
                Some(o) => Err(format!(
                    "{kind} id {id} is `{}` in the program, `{name}` in the P4Info",
                    get(o).1
                )),
                None => Err(format!(
                    "{kind} `{name}` (id {id}) is not in the program's P4Info"
                )),
            }
        }
        let ours = &self.p4info;
        for t in &client.tables {
            let (id, name) = pre(&t.preamble);
            let mine = find("table", &ours.tables, |x| pre(&x.preamble), id, name)?;
            let key = |m: &pb::MatchField| (m.id, m.bitwidth, m.r#match.clone());
            if t.match_fields
                .iter()
                .map(key)
                .ne(mine.match_fields.iter().map(key))
            {
                return Err(format!(
                    "table `{name}`: match fields differ from the program's"
                ));
            }
        }
        for a in &client.actions {
            let (id, name) = pre(&a.preamble);
            let mine = find("action", &ours.actions, |x| pre(&x.preamble), id, name)?;
            let key = |p: &pb::action::Param| (p.id, p.bitwidth);
            if a.params.iter().map(key).ne(mine.params.iter().map(key)) {
                return Err(format!(
                    "action `{name}`: parameters differ from the program's"
                ));
            }
        }
        for c in &client.counters {
            let (id, name) = pre(&c.preamble);
            find("counter", &ours.counters, |x| pre(&x.preamble), id, name)?;
        }
        for c in &client.direct_counters {
            let (id, name) = pre(&c.preamble);
            find(
                "direct counter",
                &ours.direct_counters,
                |x| pre(&x.preamble),
                id,
                name,
            )?;
        }
        for r in &client.registers {
            let (id, name) = pre(&r.preamble);
            find("register", &ours.registers, |x| pre(&x.preamble), id, name)?;
        }
        for m in &client.meters {
            let (id, name) = pre(&m.preamble);
            find("meter", &ours.meters, |x| pre(&x.preamble), id, name)?;
        }
        for c in &client.controller_packet_metadata {
            let (id, name) = pre(&c.preamble);
            let mine = find(
                "controller header",
                &ours.controller_packet_metadata,
                |x| pre(&x.preamble),
                id,
                name,
            )?;
            let key = |m: &pb::controller_packet_metadata::Metadata| (m.id, m.bitwidth);
            if c.metadata.iter().map(key).ne(mine.metadata.iter().map(key)) {
                return Err(format!(
                    "controller header `{name}`: fields differ from the program's"
                ));
            }
        }
        Ok(())
    }
}

/// A register's cell width (0 when its type is not a bit or int string).
fn register_width(r: &Register) -> u32 {
    match &r.type_spec {
        TypeSpec::Bit(w) | TypeSpec::Int(w) => *w,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_header_round_trip() {
        let h = ControllerHeader {
            fields: vec![(1, "port".into(), 9), (2, "pad".into(), 7)],
        };
        let md = vec![PacketMetadata {
            metadata_id: 1,
            value: vec![1, 0x23],
        }];
        let bytes = h.encode(&md).unwrap();
        assert_eq!(bytes, vec![0x91, 0x80]);
        let mut frame = bytes.clone();
        frame.extend_from_slice(&[0xaa]);
        let (decoded, payload) = h.decode(&frame).unwrap();
        assert_eq!(payload, vec![0xaa]);
        assert_eq!(decoded[0].value, vec![1, 0x23]);
        assert_eq!(decoded[1].value, vec![0]);
        assert!(
            h.encode(&[PacketMetadata {
                metadata_id: 1,
                value: vec![2, 0]
            }])
            .is_err()
        );
    }
}
