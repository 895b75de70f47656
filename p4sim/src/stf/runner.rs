//! Runs p4c STF tests against [`V1Switch`].
//!
//! Packets are processed synchronously as each `packet` line is read, and
//! `expect` lines queue expectations per port. At the end, as p4c's BMv2
//! runner does, every port's output is compared with its expectations in
//! order: each expected packet must match the packet at the same position
//! on that port, and a port must carry exactly as many packets as were
//! expected (ports with no expectation must carry none). `expect <port>`
//! without data lets any packets leave on that port.
//!
//! STF priorities are passed through unchanged: as with p4c's BMv2 runner
//! (which hands BMv2 `10000 - p`), the larger STF priority wins. Entries of ternary, range or optional tables without a priority get
//! decreasing priorities in the order they are added, so earlier entries
//! win.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::exec::bits::{BitType, Bits};
use crate::front::diagnostic::Diagnostic;
use crate::ir::{Compiled, MatchKind};
use crate::stf::{self, Command, CounterIndex, CounterKind, KeyValue, PacketPattern, StfError};
use crate::v1switch::{EntryHandle, MatchValue, MemberHandle, TableEntry, V1Switch};

/// Why a test could not run at all.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StfRunError {
    /// The program does not compile.
    #[error("{0}")]
    Compile(Box<Diagnostic>),
    /// The STF text does not parse.
    #[error("STF syntax error at {0}")]
    Parse(#[from] StfError),
    /// The STF file cannot be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS message.
        message: String,
    },
}

/// The outcome of an STF test.
#[derive(Debug, Clone, Default)]
pub struct StfReport {
    /// Every expectation held and every command succeeded.
    pub passed: bool,
    /// What failed, one message each (with hex for packets).
    pub failures: Vec<String>,
    /// Informational output (register and counter reads, `log_msg`).
    pub notes: Vec<String>,
    /// Packets injected.
    pub packets_in: usize,
    /// Packets that left the switch.
    pub packets_out: usize,
    /// Expectations checked.
    pub expectations: usize,
    /// What left each port, in order.
    pub outputs: BTreeMap<u32, Vec<Vec<u8>>>,
    /// Every packet that left the switch, in order across ports: port and
    /// bytes (p4sim's runner only: other targets order only per port).
    pub sequence: Vec<(u16, Vec<u8>)>,
}

impl fmt::Display for StfReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for n in &self.notes {
            writeln!(f, "{n}")?;
        }
        for e in &self.failures {
            writeln!(f, "FAIL: {e}")?;
        }
        write!(
            f,
            "{}: {} packets in, {} out, {} expectations, {} failures",
            if self.passed { "PASS" } else { "FAIL" },
            self.packets_in,
            self.packets_out,
            self.expectations,
            self.failures.len()
        )
    }
}

/// Compiles the program at `program_path` and runs the STF text on it.
pub fn run_stf(program_path: &Path, stf_text: &str) -> Result<StfReport, StfRunError> {
    run_stf_with(program_path, &[], stf_text)
}

/// [`run_stf`] with include folders for the program.
pub fn run_stf_with(
    program_path: &Path,
    include_dirs: &[PathBuf],
    stf_text: &str,
) -> Result<StfReport, StfRunError> {
    let compiled = crate::check::compile_file(program_path, include_dirs)
        .map_err(|d| StfRunError::Compile(Box::new(d)))?;
    run_stf_compiled(Arc::new(compiled), stf_text)
}

/// Runs STF text on an already compiled program.
pub fn run_stf_compiled(compiled: Arc<Compiled>, stf_text: &str) -> Result<StfReport, StfRunError> {
    run_stf_on(V1Switch::new(compiled), stf_text).map(|(r, _)| r)
}

/// Runs STF text on a given switch (for instance one built with
/// [`V1Switch::with_engine`]); returns the report and the switch in its
/// final state.
pub fn run_stf_on(sw: V1Switch, stf_text: &str) -> Result<(StfReport, V1Switch), StfRunError> {
    let statements = stf::parse(stf_text)?;
    let mut r = Runner {
        sw,
        report: StfReport::default(),
        expected: BTreeMap::new(),
        any_ports: BTreeSet::new(),
        actual: BTreeMap::new(),
        handles: HashMap::new(),
        implicit_priority: 0,
        time_us: 0,
        members: HashMap::new(),
    };
    for s in &statements {
        if let Err(e) = r.command(&s.command) {
            r.report.failures.push(format!("line {}: {e}", s.line));
        }
    }
    r.check_outputs();
    r.report.outputs = std::mem::take(&mut r.actual);
    r.report.passed = r.report.failures.is_empty();
    Ok((r.report, r.sw))
}

struct Runner {
    sw: V1Switch,
    report: StfReport,
    expected: BTreeMap<u32, Vec<PacketPattern>>,
    any_ports: BTreeSet<u32>,
    actual: BTreeMap<u32, Vec<Vec<u8>>>,
    handles: HashMap<String, (String, EntryHandle)>,
    implicit_priority: i32,
    time_us: u64,
    /// Action profile members made for `add` and `setdefault`, by profile
    /// and action call.
    members: HashMap<(String, String), MemberHandle>,
}

fn fit(v: &Bits, width: u32) -> Bits {
    v.cast(BitType::unsigned(width).unwrap_or(BitType::BIT1))
}

impl Runner {
    fn key_value(&self, kind: MatchKind, width: u32, v: &KeyValue) -> Result<MatchValue, String> {
        let check = |n: &stf::Number| -> Result<Bits, String> {
            if n.value().bit_len() > width {
                return Err(format!("value {} does not fit in {width} bits", n.text()));
            }
            Ok(fit(n.value(), width))
        };
        Ok(match v {
            KeyValue::Value(n) => match n.mask() {
                Some(m) => MatchValue::Ternary(check(n)?, fit(m, width)),
                None => MatchValue::Exact(check(n)?),
            },
            KeyValue::Prefix { value, prefix_len } => MatchValue::Lpm(check(value)?, *prefix_len),
            KeyValue::Masked { value, mask } => MatchValue::Ternary(check(value)?, check(mask)?),
            KeyValue::Range { low, high } => MatchValue::Range(check(low)?, check(high)?),
            KeyValue::Any => match kind {
                MatchKind::Optional => MatchValue::Optional(None),
                MatchKind::Range => {
                    let ty = BitType::unsigned(width).map_err(|e| e.to_string())?;
                    MatchValue::Range(Bits::zero(ty), Bits::ones(ty))
                }
                MatchKind::Lpm => {
                    let ty = BitType::unsigned(width).map_err(|e| e.to_string())?;
                    MatchValue::Lpm(Bits::zero(ty), 0)
                }
                _ => {
                    let ty = BitType::unsigned(width).map_err(|e| e.to_string())?;
                    MatchValue::Ternary(Bits::zero(ty), Bits::zero(ty))
                }
            },
        })
    }

    fn key_index(keys: &[(String, MatchKind, u32)], field: &str) -> Option<usize> {
        let norm = |s: &str| s.replace(' ', "");
        let f = stf::stack_elements_indexed(&norm(field));
        if let Some(i) = keys.iter().position(|(n, _, _)| norm(n) == f) {
            return Some(i);
        }
        let hits: Vec<usize> = keys
            .iter()
            .enumerate()
            .filter(|(_, (n, _, _))| {
                let n = norm(n);
                n.ends_with(&format!(".{f}")) || f.ends_with(&format!(".{n}"))
            })
            .map(|(i, _)| i)
            .collect();
        if hits.len() == 1 { Some(hits[0]) } else { None }
    }

    /// The member of `profile` that runs `call`, created the first time.
    fn member(&mut self, profile: &str, call: &stf::ActionCall) -> Result<MemberHandle, String> {
        let key = (profile.to_string(), format!("{call:?}"));
        if let Some(m) = self.members.get(&key) {
            return Ok(*m);
        }
        let m = self
            .sw
            .act_prof_create_member(profile, &call.name, &Self::args(call))
            .map_err(|e| e.to_string())?;
        self.members.insert(key, m);
        Ok(m)
    }

    fn args(call: &stf::ActionCall) -> Vec<(String, Bits)> {
        call.args
            .iter()
            .map(|(n, v)| (n.clone(), v.value().clone()))
            .collect()
    }

    fn command(&mut self, c: &Command) -> Result<(), String> {
        match c {
            Command::Add {
                table,
                priority,
                keys,
                action,
                handle,
            } => {
                let key_info = self.sw.table_keys(table).map_err(|e| e.to_string())?;
                let mut matches: Vec<Option<MatchValue>> = vec![None; key_info.len()];
                for k in keys {
                    let Some(i) = Self::key_index(&key_info, &k.field) else {
                        return Err(format!("table `{table}` has no key `{}`", k.field));
                    };
                    let (_, kind, width) = &key_info[i];
                    matches[i] = Some(self.key_value(*kind, *width, &k.value)?);
                }
                let mut ms = Vec::new();
                for (m, (name, kind, width)) in matches.into_iter().zip(&key_info) {
                    match m {
                        Some(m) => ms.push(m),
                        None if *kind != MatchKind::Exact => {
                            ms.push(self.key_value(*kind, *width, &KeyValue::Any)?);
                        }
                        None => {
                            return Err(format!("no value for key `{name}` of table `{table}`"));
                        }
                    }
                }
                let needs_priority = key_info.iter().any(|(_, k, _)| {
                    matches!(
                        k,
                        MatchKind::Ternary | MatchKind::Range | MatchKind::Optional
                    )
                });
                let priority = match priority {
                    Some(p) => Some(i32::try_from(*p).unwrap_or(i32::MAX)),
                    None if needs_priority => {
                        self.implicit_priority -= 1;
                        Some(i32::MIN / 2 + 1_000_000 + self.implicit_priority)
                    }
                    None => None,
                };
                // a table with an action profile: the entry names a member
                // with this action (one member per action and arguments)
                let h = match self.sw.table_profile(table).map_err(|e| e.to_string())? {
                    Some(profile) => {
                        let m = self.member(&profile, action)?;
                        self.sw.table_indirect_add(table, ms, priority, m)
                    }
                    None => self.sw.table_add(
                        table,
                        TableEntry {
                            matches: ms,
                            priority,
                            action: action.name.clone(),
                            args: Self::args(action),
                        },
                    ),
                }
                .map_err(|e| e.to_string())?;
                if let Some(name) = handle {
                    self.handles.insert(name.clone(), (table.clone(), h));
                }
                Ok(())
            }
            Command::SetDefault { table, action } => {
                match self.sw.table_profile(table).map_err(|e| e.to_string())? {
                    Some(profile) => {
                        let m = self.member(&profile, action)?;
                        self.sw.table_indirect_set_default(table, m)
                    }
                    None => self
                        .sw
                        .table_set_default(table, &action.name, &Self::args(action)),
                }
                .map_err(|e| e.to_string())
            }
            Command::RemoveAll => {
                self.sw.clear_all_tables();
                Ok(())
            }
            Command::Packet { port, data } => {
                self.report.packets_in += 1;
                let port =
                    u16::try_from(*port).map_err(|_| format!("port {port} is out of range"))?;
                self.time_us += 1;
                self.sw.set_time_us(self.time_us);
                let outs = self.sw.process(port, data);
                for o in outs {
                    self.report.packets_out += 1;
                    self.report.sequence.push((o.port, o.data.clone()));
                    self.actual
                        .entry(u32::from(o.port))
                        .or_default()
                        .push(o.data);
                }
                for l in self.sw.take_log() {
                    self.report.notes.push(l);
                }
                Ok(())
            }
            Command::Expect { port, pattern } => {
                match pattern {
                    Some(p) => self.expected.entry(*port).or_default().push(p.clone()),
                    None => {
                        self.any_ports.insert(*port);
                    }
                }
                Ok(())
            }
            Command::NoPacket | Command::Wait => Ok(()),
            Command::CheckCounter {
                counter,
                index,
                check,
            } => {
                let idx = match index {
                    CounterIndex::Index(n) => n.to_u64().ok_or("counter index is not a number")?,
                    CounterIndex::Handle(h) => match self.handles.get(h) {
                        Some((_, eh)) => u64::from(eh.0),
                        None => return Err(format!("unknown entry handle `{h}`")),
                    },
                };
                let (packets, bytes) = self
                    .sw
                    .counter_read(counter, idx)
                    .map_err(|e| e.to_string())?;
                let (kind, op, want) = match check {
                    Some(c) => (c.kind, c.op, c.value.to_u64().unwrap_or(u64::MAX)),
                    None => (CounterKind::Packets, stf::CompareOp::Eq, 0),
                };
                let got = if kind == CounterKind::Packets {
                    packets
                } else {
                    bytes
                };
                self.report.expectations += 1;
                if !op.holds(got, want) {
                    return Err(format!(
                        "check_counter {counter}({idx}): {} is {got}, expected {op:?} {want}",
                        if kind == CounterKind::Packets {
                            "packets"
                        } else {
                            "bytes"
                        }
                    ));
                }
                Ok(())
            }
            Command::MirroringAdd { session, port } => self
                .sw
                .pre_mut()
                .mirroring_add(*session, *port)
                .map_err(|e| e.to_string()),
            Command::MirroringAddMc { session, group } => self
                .sw
                .pre_mut()
                .mirroring_add_mc(*session, *group)
                .map_err(|e| e.to_string()),
            Command::MirroringDelete { session } => self
                .sw
                .pre_mut()
                .mirroring_delete(*session)
                .map_err(|e| e.to_string()),
            Command::MirroringGet { session } => {
                let s = self
                    .sw
                    .pre()
                    .mirroring_get(*session)
                    .map_err(|e| e.to_string())?;
                self.report
                    .notes
                    .push(format!("mirroring_get {session}: {s:?}"));
                Ok(())
            }
            Command::McMgrpCreate { group } => self
                .sw
                .pre_mut()
                .mc_mgrp_create(*group)
                .map_err(|e| e.to_string()),
            Command::McMgrpDestroy { group } => self
                .sw
                .pre_mut()
                .mc_mgrp_destroy(*group)
                .map_err(|e| e.to_string()),
            Command::McNodeCreate { rid, ports, lags } => {
                let h = self
                    .sw
                    .pre_mut()
                    .mc_node_create(*rid, ports, lags)
                    .map_err(|e| e.to_string())?;
                self.report
                    .notes
                    .push(format!("mc_node_create: handle {}", h.0));
                Ok(())
            }
            Command::McNodeUpdate { node, ports, lags } => self
                .sw
                .pre_mut()
                .mc_node_update(crate::v1switch::pre::NodeHandle(*node), ports, lags)
                .map_err(|e| e.to_string()),
            Command::McNodeAssociate { group, node } => self
                .sw
                .pre_mut()
                .mc_node_associate(*group, crate::v1switch::pre::NodeHandle(*node))
                .map_err(|e| e.to_string()),
            Command::McNodeDissociate { group, node } => self
                .sw
                .pre_mut()
                .mc_node_dissociate(*group, crate::v1switch::pre::NodeHandle(*node))
                .map_err(|e| e.to_string()),
            Command::McNodeDestroy { node } => self
                .sw
                .pre_mut()
                .mc_node_destroy(crate::v1switch::pre::NodeHandle(*node))
                .map_err(|e| e.to_string()),
            Command::CounterRead { counter, index } => {
                let (p, b) = self
                    .sw
                    .counter_read(counter, *index)
                    .map_err(|e| e.to_string())?;
                self.report
                    .notes
                    .push(format!("{counter}[{index}] = (packets {p}, bytes {b})"));
                Ok(())
            }
            Command::CounterWrite {
                counter,
                index,
                packets,
                bytes,
            } => self
                .sw
                .counter_write(counter, *index, *packets, *bytes)
                .map_err(|e| e.to_string()),
            Command::RegisterRead { register, index } => {
                let v = self
                    .sw
                    .register_read(register, *index)
                    .map_err(|e| e.to_string())?;
                self.report.notes.push(format!("{register}[{index}] = {v}"));
                Ok(())
            }
            Command::RegisterWrite {
                register,
                index,
                value,
            } => self
                .sw
                .register_write(register, *index, value.value())
                .map_err(|e| e.to_string()),
            Command::RegisterReset { register } => {
                self.sw.register_reset(register).map_err(|e| e.to_string())
            }
            Command::MeterGetRates { meter, index } => {
                self.report
                    .notes
                    .push(format!("meter_get_rates {meter} {index}: not recorded"));
                Ok(())
            }
            Command::MeterSetRates {
                meter,
                index,
                rates,
            } => {
                let r = Self::rates(rates)?;
                self.sw
                    .meter_set_rates(meter, Some(*index), r)
                    .map_err(|e| e.to_string())
            }
            Command::MeterArraySetRates { meter, rates } => {
                let r = Self::rates(rates)?;
                self.sw
                    .meter_set_rates(meter, None, r)
                    .map_err(|e| e.to_string())
            }
        }
    }

    fn rates(rates: &[stf::MeterRate]) -> Result<[(f64, u64); 2], String> {
        match rates {
            [c, p] => Ok([(c.rate, c.burst), (p.rate, p.burst)]),
            _ => Err("a two-rate meter needs two <rate>:<burst> pairs".into()),
        }
    }

    fn check_outputs(&mut self) {
        compare_outputs(
            &self.expected,
            &self.any_ports,
            &self.actual,
            &mut self.report,
        );
    }
}

/// Compares what left each port with the `expect`ations, as p4c's BMv2
/// runner does, adding to `report.expectations` and `report.failures`: in
/// order per port, every expected packet present and matching, no packet
/// more; ports in `any_ports` (`expect <port>` without data) are not checked.
/// Shared by every target's STF runner.
pub fn compare_outputs(
    expected: &BTreeMap<u32, Vec<PacketPattern>>,
    any_ports: &BTreeSet<u32>,
    actual: &BTreeMap<u32, Vec<Vec<u8>>>,
    report: &mut StfReport,
) {
    let mut ports: BTreeSet<u32> = expected.keys().copied().collect();
    ports.extend(actual.keys().copied());
    for port in ports {
        if any_ports.contains(&port) {
            continue;
        }
        let expected = expected.get(&port).map(Vec::as_slice).unwrap_or(&[]);
        let actual = actual.get(&port).map(Vec::as_slice).unwrap_or(&[]);
        for (i, want) in expected.iter().enumerate() {
            report.expectations += 1;
            match actual.get(i) {
                None => report.failures.push(format!(
                    "port {port}: expected packet #{} was not sent\n  expected: {want}",
                    i + 1
                )),
                Some(got) => {
                    if let Err(m) = want.matches(got) {
                        report
                            .failures
                            .push(format!("port {port}, packet #{}: {m}", i + 1));
                    }
                }
            }
        }
        for (i, got) in actual.iter().enumerate().skip(expected.len()) {
            report.failures.push(format!(
                "port {port}: unexpected packet #{}\n  actual: {}",
                i + 1,
                stf::hex_string(got)
            ));
        }
    }
}

/// Reads an STF file and runs it on the program.
pub fn run_stf_files(
    program: &Path,
    stf_path: &Path,
    include_dirs: &[PathBuf],
) -> Result<StfReport, StfRunError> {
    let text = std::fs::read_to_string(stf_path).map_err(|e| StfRunError::Io {
        path: stf_path.display().to_string(),
        message: e.to_string(),
    })?;
    run_stf_with(program, include_dirs, &text)
}
