//! The forwarding pipeline the controller pushes: P4Info, device config and
//! cookie, and the [`Bindings`] of the controller's P4 names to P4Info ids,
//! resolved once when the pipeline is loaded.
//!
//! Two ways to load it:
//! - [`Pipeline::from_p4_source`] for esa-switch: the device config is the P4
//!   source text (local `#include "..."` files inlined), and the P4Info is
//!   the one p4sim derives from it, ids as p4c assigns them;
//! - [`Pipeline::from_files`] for BMv2: p4c's JSON and its P4Info, in
//!   protobuf text format (what `--p4runtime-files x.txtpb` writes) or binary.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use esa_core::constants::MAX_JOB_ID;
use esa_core::pool::JobCounters;
use p4runtime_proto::p4::config::v1 as p4cfg;
use p4runtime_proto::p4::v1 as p4v1;
use p4runtime_proto::prost::Message as _;

use crate::entries::{Arch, TableKind, TableSpec};
use crate::error::PipelineError;

/// Ids of one table, its key fields and the controller's action for it.
#[derive(Debug, Clone)]
pub struct TableBinding {
    /// The names and widths bound.
    pub spec: TableSpec,
    /// Table id.
    pub table_id: u32,
    /// TNA `jobs`: the ternary slot field's id.
    pub slot_field: Option<u32>,
    /// Match field ids, in key order.
    pub match_ids: Vec<u32>,
    /// Action id.
    pub action_id: u32,
    /// Parameter ids, in the spec's order.
    pub param_ids: Vec<u32>,
}

/// The pool's settings table ([`esa_p4::tables::pool_config`]), whose
/// default action sets the age after which an untouched slot is stale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleBinding {
    /// The names, and the unit of the parameter.
    pub spec: esa_p4::tables::PoolConfigSpec,
    /// Table id of `pool_config`.
    pub table_id: u32,
    /// Action id of `set_stale_after`.
    pub action_id: u32,
    /// Id of its one parameter.
    pub param_id: u32,
    /// Width of the parameter in bits, as the P4Info says.
    pub width: u32,
}

impl StaleBinding {
    /// The parameter for a bound of `us` microseconds, rounded up to whole
    /// units.
    pub fn value(&self, us: u64) -> u64 {
        self.spec.value(us)
    }
}

/// A per-job counter array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterBinding {
    /// Short name (`completed`).
    pub name: String,
    /// Counter id.
    pub id: u32,
    /// Job `j`'s cell is `j * stride + offset` (v1model: 1, 0; TNA's
    /// `job_rows_N[job ++ row % 4]`: 4, row % 4).
    pub stride: u32,
    /// See `stride`.
    pub offset: u32,
}

impl CounterBinding {
    /// The cell of `job`.
    pub fn index(&self, job: u16) -> i64 {
        i64::from(job) * i64::from(self.stride) + i64::from(self.offset)
    }
}

/// The controller's P4 names resolved to P4Info ids.
#[derive(Debug, Clone)]
pub struct Bindings {
    /// The program's architecture.
    pub arch: Arch,
    tables: Vec<Option<TableBinding>>,
    by_id: HashMap<u32, TableKind>,
    /// Per-job counters (indexed by job id), in `JobCounters::by_name`
    /// order.
    pub counters: Vec<CounterBinding>,
    /// Aggregator slots, from the size of the `slot_key` register array;
    /// `None` if the P4Info has no such register.
    pub pool_slots: Option<u32>,
    /// The stale-bound setting; `None` if the program has none.
    pub stale: Option<StaleBinding>,
}

impl Bindings {
    /// Resolves every table, action, parameter and counter the controller
    /// needs, checking widths; a clear error names the first one missing.
    pub fn resolve(p4info: &p4cfg::P4Info) -> Result<Bindings, PipelineError> {
        let arch = Arch::from_pkg_arch(p4info.pkg_info.as_ref().map_or("", |p| p.arch.as_str()));
        let mut tables = vec![];
        let mut by_id = HashMap::new();
        for (i, kind) in TableKind::ALL.into_iter().enumerate() {
            debug_assert_eq!(kind.index(), i);
            let Some(spec) = kind.spec_for(arch) else {
                tables.push(None);
                continue;
            };
            let binding = resolve_table(p4info, spec)?;
            by_id.insert(binding.table_id, kind);
            tables.push(Some(binding));
        }
        let mut counters = vec![];
        for (short, _) in JobCounters::default().by_name() {
            let Some(cell) = esa_p4::counters::job_counter(arch, short) else {
                // not counted on Tofino (docs/protocol.md)
                continue;
            };
            let (p4_name, stride, offset) = (cell.name, cell.stride, cell.offset);
            let counter = p4info
                .counters
                .iter()
                .find(|c| preamble_is(c.preamble.as_ref(), p4_name))
                .ok_or_else(|| PipelineError::MissingCounter(p4_name.to_string()))?;
            let needed = i64::from(MAX_JOB_ID) * i64::from(stride) + i64::from(offset);
            if counter.size <= needed {
                return Err(PipelineError::CounterSize {
                    name: p4_name.to_string(),
                    size: counter.size,
                    needed: u32::try_from(needed).unwrap_or(u32::MAX),
                });
            }
            counters.push(CounterBinding {
                name: short.to_string(),
                id: counter.preamble.as_ref().map_or(0, |p| p.id),
                stride,
                offset,
            });
        }
        let pool_slots = p4info
            .registers
            .iter()
            .find(|r| {
                r.preamble
                    .as_ref()
                    .is_some_and(|p| p.name.rsplit('.').next() == Some("slot_key"))
            })
            .and_then(|r| u32::try_from(r.size).ok());
        Ok(Bindings {
            arch,
            tables,
            by_id,
            counters,
            pool_slots,
            stale: resolve_stale(p4info, arch),
        })
    }

    /// The ids of `table`; `None` when the program has no such table.
    pub fn table(&self, table: TableKind) -> Option<&TableBinding> {
        self.tables.get(table.index()).and_then(Option::as_ref)
    }

    /// Which of the controller's tables has this id.
    pub fn table_kind(&self, table_id: u32) -> Option<TableKind> {
        self.by_id.get(&table_id).copied()
    }
}

/// The stale-bound table, when the program has it with the expected
/// action and a single `us` parameter.
fn resolve_stale(p4info: &p4cfg::P4Info, arch: Arch) -> Option<StaleBinding> {
    let spec = esa_p4::tables::pool_config(arch);
    let (table_name, action_name) = (spec.table, spec.action);
    let table = p4info
        .tables
        .iter()
        .find(|t| preamble_is(t.preamble.as_ref(), table_name))?;
    let action = p4info
        .actions
        .iter()
        .find(|a| preamble_is(a.preamble.as_ref(), action_name))?;
    let action_id = action.preamble.as_ref()?.id;
    if !table.action_refs.iter().any(|r| r.id == action_id) {
        return None;
    }
    let [param] = action.params.as_slice() else {
        return None;
    };
    Some(StaleBinding {
        spec,
        table_id: table.preamble.as_ref()?.id,
        action_id,
        param_id: param.id,
        width: u32::try_from(param.bitwidth).ok()?,
    })
}

fn preamble_is(preamble: Option<&p4cfg::Preamble>, name: &str) -> bool {
    preamble.is_some_and(|p| p.name == name)
}

fn resolve_table(p4info: &p4cfg::P4Info, spec: TableSpec) -> Result<TableBinding, PipelineError> {
    let table = p4info
        .tables
        .iter()
        .find(|t| preamble_is(t.preamble.as_ref(), spec.name))
        .ok_or_else(|| PipelineError::MissingTable(spec.name.to_string()))?;
    let extra = usize::from(spec.ternary_slot);
    if table.match_fields.len() != spec.key.len() + extra {
        return Err(PipelineError::BadKey {
            table: spec.name.to_string(),
            message: format!(
                "{} key fields, the controller expects {}",
                table.match_fields.len(),
                spec.key.len() + extra
            ),
        });
    }
    let mut match_ids = vec![];
    for (field, &(_, width)) in table.match_fields.iter().zip(spec.key) {
        let exact =
            p4cfg::match_field::Match::MatchType(p4cfg::match_field::MatchType::Exact as i32);
        if field.r#match != Some(exact) {
            return Err(PipelineError::BadKey {
                table: spec.name.to_string(),
                message: format!("key field `{}` is not an exact match", field.name),
            });
        }
        if u32::try_from(field.bitwidth) != Ok(width) {
            return Err(PipelineError::Width {
                what: format!("key field `{}` of `{}`", field.name, spec.name),
                expected: width,
                found: field.bitwidth,
            });
        }
        match_ids.push(field.id);
    }
    let slot_field = if spec.ternary_slot {
        let field = &table.match_fields[spec.key.len()];
        let ternary =
            p4cfg::match_field::Match::MatchType(p4cfg::match_field::MatchType::Ternary as i32);
        if field.r#match != Some(ternary) || field.bitwidth != 16 {
            return Err(PipelineError::BadKey {
                table: spec.name.to_string(),
                message: format!("key field `{}` is not a 16-bit ternary slot", field.name),
            });
        }
        Some(field.id)
    } else {
        None
    };
    let missing_action = || PipelineError::MissingAction {
        table: spec.name.to_string(),
        action: spec.action.to_string(),
    };
    let action = p4info
        .actions
        .iter()
        .find(|a| preamble_is(a.preamble.as_ref(), spec.action))
        .ok_or_else(missing_action)?;
    let action_id = action.preamble.as_ref().map_or(0, |p| p.id);
    if !table.action_refs.iter().any(|r| r.id == action_id) {
        return Err(missing_action());
    }
    let mut param_ids = vec![];
    for &(name, width) in spec.params {
        let param = action
            .params
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| PipelineError::MissingParam {
                action: spec.action.to_string(),
                param: name.to_string(),
            })?;
        if u32::try_from(param.bitwidth) != Ok(width) {
            return Err(PipelineError::Width {
                what: format!("parameter `{name}` of `{}`", spec.action),
                expected: width,
                found: param.bitwidth,
            });
        }
        param_ids.push(param.id);
    }
    Ok(TableBinding {
        spec,
        table_id: table.preamble.as_ref().map_or(0, |p| p.id),
        slot_field,
        match_ids,
        action_id,
        param_ids,
    })
}

/// A pipeline ready to push, with its bindings.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// The P4Info.
    pub p4info: p4cfg::P4Info,
    /// Target-specific device config (P4 source text for esa-switch, p4c's
    /// JSON for BMv2).
    pub device_config: Vec<u8>,
    /// Identifies this pipeline on the switch: a hash of P4Info and device
    /// config, so a restarted controller can tell whether to re-push.
    pub cookie: u64,
    /// Names resolved to ids.
    pub bindings: Bindings,
}

impl Pipeline {
    /// Builds a pipeline from a P4Info and a device config.
    pub fn new(p4info: p4cfg::P4Info, device_config: Vec<u8>) -> Result<Pipeline, PipelineError> {
        let bindings = Bindings::resolve(&p4info)?;
        let mut hash = Fnv64::default();
        hash.write(&p4info.encode_to_vec());
        hash.write(&device_config);
        Ok(Pipeline {
            p4info,
            device_config,
            cookie: hash.0,
            bindings,
        })
    }

    /// esa-switch: the program's source (local includes inlined, `defines`
    /// prepended as `#define` lines) is the device config; the P4Info is
    /// p4sim's for exactly that text.
    pub fn from_p4_source(
        program: &Path,
        defines: &[(String, String)],
    ) -> Result<Pipeline, PipelineError> {
        let mut text = String::new();
        for (name, value) in defines {
            text.push_str(&format!("#define {name} {value}\n"));
        }
        text.push_str(&flatten_includes(program, 0)?);
        let name = program.display().to_string();
        let info = p4sim::front::parse_source(&name, &text)
            .and_then(|p| p4sim::p4info::p4info(&p))
            .map_err(|d| PipelineError::Compile(d.to_string()))?;
        Pipeline::new(
            p4runtime_proto::from_p4sim::p4info(&info),
            text.into_bytes(),
        )
    }

    /// BMv2: p4c's JSON as device config and the P4Info file p4c wrote.
    pub fn from_files(device_config: &Path, p4info: &Path) -> Result<Pipeline, PipelineError> {
        let config = read(device_config)?;
        let p4info = load_p4info(p4info)?;
        Pipeline::new(p4info, config)
    }

    /// The `ForwardingPipelineConfig` message.
    pub fn config(&self) -> p4v1::ForwardingPipelineConfig {
        p4v1::ForwardingPipelineConfig {
            p4info: Some(self.p4info.clone()),
            p4_device_config: self.device_config.clone(),
            cookie: Some(p4v1::forwarding_pipeline_config::Cookie {
                cookie: self.cookie,
            }),
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, PipelineError> {
    std::fs::read(path).map_err(|source| PipelineError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a P4Info file: binary protobuf for `.bin`, `.binpb` and `.pb`,
/// otherwise text format (falling back to binary if the text does not parse).
pub fn load_p4info(path: &Path) -> Result<p4cfg::P4Info, PipelineError> {
    let bytes = read(path)?;
    let format_error = |message: String| PipelineError::P4InfoFormat {
        path: path.to_path_buf(),
        message,
    };
    let binary_ext = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("bin" | "binpb" | "pb")
    );
    let binary = |bytes: &[u8]| p4cfg::P4Info::decode(bytes).map_err(|e| e.to_string());
    if binary_ext {
        return binary(&bytes).map_err(format_error);
    }
    match std::str::from_utf8(&bytes) {
        Ok(text) => parse_p4info_text(text)
            .or_else(|text_err| binary(&bytes).map_err(|_| format_error(text_err))),
        Err(_) => binary(&bytes).map_err(format_error),
    }
}

/// Parses a P4Info in protobuf text format, against p4runtime-proto's
/// descriptors.
pub fn parse_p4info_text(text: &str) -> Result<p4cfg::P4Info, String> {
    let pool = prost_reflect::DescriptorPool::decode(p4runtime_proto::FILE_DESCRIPTOR_SET)
        .map_err(|e| format!("P4Runtime descriptors: {e}"))?;
    let descriptor = pool
        .get_message_by_name("p4.config.v1.P4Info")
        .ok_or("P4Runtime descriptors lack p4.config.v1.P4Info")?;
    let message = prost_reflect::DynamicMessage::parse_text_format(descriptor, text)
        .map_err(|e| e.to_string())?;
    p4cfg::P4Info::decode(message.encode_to_vec().as_slice()).map_err(|e| e.to_string())
}

/// The program text with every `#include "file"` replaced by the file (found
/// next to the including file), recursively; `#include <...>` (core.p4,
/// v1model.p4) stays for the switch to resolve.
pub fn flatten_includes(path: &Path, depth: usize) -> Result<String, PipelineError> {
    if depth > 32 {
        return Err(PipelineError::Compile(format!(
            "{}: #include nested more than 32 deep",
            path.display()
        )));
    }
    let bytes = read(path)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| PipelineError::Compile(format!("{}: not UTF-8", path.display())))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        let quoted = trimmed
            .strip_prefix("#include")
            .map(str::trim)
            .and_then(|rest| rest.strip_prefix('"'))
            .and_then(|rest| rest.split_once('"'))
            .map(|(file, _)| file);
        match quoted {
            Some(file) => {
                let included: PathBuf = dir.join(file);
                out.push_str(&flatten_includes(&included, depth + 1)?);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

/// 64-bit FNV-1a, for the pipeline cookie (stable across runs and builds).
#[derive(Debug)]
struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entries::TableEntry;

    /// The two ways a P4Info message is made here agree: p4sim's model
    /// converted field for field (what esa-switch serves and the
    /// controller pushes) and p4sim's text format parsed as a p4c P4Info
    /// file is. Over both ESA programs and p4sim's conformance programs.
    #[test]
    fn p4sim_p4info_converted_equals_its_text_parsed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut programs = vec![Arch::V1model.program(), Arch::Tna.program()];
        let conformance = root.join("p4sim/tests/conformance");
        let mut listed: Vec<_> = std::fs::read_dir(&conformance)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "p4"))
            .collect();
        listed.sort();
        programs.extend(listed);
        let mut compared = 0;
        for path in &programs {
            let ast = p4sim::front::parse_program(path, &[]).unwrap_or_else(|d| panic!("{d}"));
            // Programs P4Info refuses are not this test's business.
            let Ok(info) = p4sim::p4info::p4info(&ast) else {
                continue;
            };
            let text = p4sim::p4info::p4info_text(&ast).unwrap();
            let parsed =
                parse_p4info_text(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                p4runtime_proto::from_p4sim::p4info(&info),
                parsed,
                "{}",
                path.display()
            );
            compared += 1;
        }
        assert!(compared >= 10, "only {compared} programs compared");
    }

    fn esa_p4info() -> p4cfg::P4Info {
        let path = Arch::V1model.program();
        Pipeline::from_p4_source(&path, &[]).unwrap().p4info
    }

    #[test]
    fn binds_esa_p4_and_reports_what_is_missing() {
        let p4info = esa_p4info();
        let bindings = Bindings::resolve(&p4info).unwrap();
        assert_eq!(bindings.pool_slots, Some(4096));
        assert_eq!(bindings.counters.len(), 24);
        assert_eq!(
            bindings.table(TableKind::JobPorts).unwrap().match_ids.len(),
            2
        );
        assert_eq!(
            bindings
                .table(TableKind::WorkerPorts)
                .unwrap()
                .match_ids
                .len(),
            3
        );
        assert!(bindings.table(TableKind::JobIds).is_none());

        let mut no_table = p4info.clone();
        no_table
            .tables
            .retain(|t| t.preamble.as_ref().unwrap().name != TableKind::Jobs.spec().name);
        let e = Bindings::resolve(&no_table).unwrap_err();
        assert!(
            e.to_string()
                .contains("no table `EsaIngress.admission.jobs`"),
            "{e}"
        );

        let mut width = p4info.clone();
        for a in &mut width.actions {
            if a.preamble.as_ref().unwrap().name == TableKind::EgressHost.spec().action {
                a.params[0].bitwidth = 47;
            }
        }
        let e = Bindings::resolve(&width).unwrap_err();
        assert!(
            matches!(
                e,
                PipelineError::Width {
                    expected: 48,
                    found: 47,
                    ..
                }
            ),
            "{e}"
        );

        let mut no_param = p4info.clone();
        for a in &mut no_param.actions {
            if a.preamble.as_ref().unwrap().name == TableKind::JobRoute.spec().action {
                a.params.retain(|p| p.name != "fan_in");
            }
        }
        let e = Bindings::resolve(&no_param).unwrap_err();
        assert!(e.to_string().contains("no parameter `fan_in`"), "{e}");

        let mut no_counter = p4info;
        no_counter.counters.retain(|c| {
            c.preamble.as_ref().unwrap().name
                != esa_p4::counters::job_counter(Arch::V1model, "completed")
                    .unwrap()
                    .name
        });
        let e = Bindings::resolve(&no_counter).unwrap_err();
        assert!(e.to_string().contains("completed"), "{e}");
    }

    /// The Tofino program binds too: its own table names, the ternary slot
    /// of `jobs`, `job_ids`, counters in `job_rows_N[job ++ row % 4]`,
    /// `job_drops[job ++ reason]` and `job_spoofed[job]`, and the stale bound in 65.536 us units.
    #[test]
    fn binds_the_tna_program() {
        let path = Arch::Tna.program();
        let pipeline = Pipeline::from_p4_source(&path, &[]).unwrap();
        let b = &pipeline.bindings;
        assert_eq!(b.arch, Arch::Tna);
        assert_eq!(b.pool_slots, Some(4096));
        let jobs = b.table(TableKind::Jobs).unwrap();
        assert_eq!(jobs.spec.name, "EsaIngress.jobs");
        assert_eq!(jobs.match_ids.len(), 1);
        assert!(jobs.slot_field.is_some());
        assert!(b.table(TableKind::JobIds).is_some());
        // every model counter but `released`
        assert_eq!(b.counters.len(), 23);
        let counter = |name: &str| {
            b.counters
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("no binding for counter `{name}`"))
        };
        let completed = counter("completed");
        assert_eq!((completed.stride, completed.offset), (4, 2));
        assert_eq!(completed.index(5), 5 * 4 + 2);
        assert_eq!(counter("stale_reclaims").index(5), 5 * 4);
        assert_eq!(counter("drop_bad_slot").index(3), 3 * 4 + 2);
        assert_eq!(counter("drop_spoofed").index(3), 3);
        let stale = b.stale.as_ref().unwrap();
        assert_eq!(stale.spec.unit_ns, 65_536);
        assert_eq!(stale.value(10_000), 153);
        // a job's entities gain its job_ids entry
        let job = crate::entries::Entity::Table(TableEntry::Job(
            crate::entries::JobKey { job: 7 },
            esa_core::job::JobEntry {
                fan_in: 2,
                mode: esa_core::job::Mode::Esa,
                max_priority: 7,
                mcast_group: 7,
                ps_port: 3,
                slot_base: 0,
                slot_mask: 255,
                tree: esa_core::job::TreeRole::Flat,
            },
        ));
        // and `jobs` entries carry the slot range as a ternary match
        let proto = job.to_proto(b);
        let Some(p4v1::entity::Entity::TableEntry(t)) = proto.entity else {
            panic!("{proto:?}")
        };
        assert_eq!(t.priority, 1);
        assert_eq!(t.r#match.len(), 2);
        let Some(p4v1::field_match::FieldMatchType::Ternary(tern)) = &t.r#match[1].field_match_type
        else {
            panic!("{t:?}")
        };
        assert_eq!(tern.mask, vec![0xff, 0x00]);
        // read back, it is the same entity
        let back = crate::entries::Entity::from_proto(
            &p4v1::Entity {
                entity: Some(p4v1::entity::Entity::TableEntry(t)),
            },
            b,
        )
        .unwrap();
        assert_eq!(back, Some(job));
        // the v1model program has no job_ids
        let v1 = Bindings::resolve(&esa_p4info()).unwrap();
        assert_eq!(v1.arch, Arch::V1model);
        assert!(v1.table(TableKind::JobIds).is_none());
    }

    #[test]
    fn p4info_files_in_text_and_binary() {
        let p4info = esa_p4info();
        let dir =
            std::env::temp_dir().join(format!("esa-controller-p4info-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("esa.p4info.binpb");
        std::fs::write(&bin, p4info.encode_to_vec()).unwrap();
        assert_eq!(load_p4info(&bin).unwrap(), p4info);
        let path = Arch::V1model.program();
        let program = p4sim::front::parse_program(&path, &[]).unwrap();
        let txt = dir.join("esa.p4info.txtpb");
        std::fs::write(&txt, p4sim::p4info::p4info_text(&program).unwrap()).unwrap();
        assert_eq!(load_p4info(&txt).unwrap(), p4info);
        let bad = dir.join("bad.txtpb");
        std::fs::write(&bad, "tables { nonsense: 1 }").unwrap();
        assert!(matches!(
            load_p4info(&bad),
            Err(PipelineError::P4InfoFormat { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
