//! STF tests on BMv2's `simple_switch`, compared as p4sim's runner (and
//! p4c's own BMv2 runner) compares them.
//!
//! Commands run in file order. Control commands (table entries, multicast,
//! mirroring, counter and register access) are batched into one runtime-CLI
//! call; a batch runs before the next packet is sent, and a batch that comes
//! after packets waits until the switch has taken in every packet and gone
//! quiet, so reads see every earlier packet's effects. Packets enter through
//! one socket, in order. At the end each port's output is compared with its
//! expectations by [`p4sim::stf::runner::compare_outputs`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use p4sim::exec::bits::Bits;
use p4sim::stf::runner::{StfReport, compare_outputs};
use p4sim::stf::{self, Command, CounterIndex, CounterKind, KeyValue, Number, PacketPattern};

use crate::program::Layout;
use crate::switch::{Options, SimpleSwitch};
use crate::{Error, Tools, compile};

/// How long the switch's log must stay quiet before it counts as idle.
const QUIET: Duration = Duration::from_millis(150);
/// The longest wait for the switch to finish a run of packets.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Compiles `program` with p4c and runs the STF file on `simple_switch`.
pub fn run_stf_files(
    tools: &Tools,
    program: &Path,
    stf_path: &Path,
    includes: &[PathBuf],
    defines: &[(String, String)],
) -> Result<StfReport, Error> {
    let text = std::fs::read_to_string(stf_path)
        .map_err(Error::io(format!("reading {}", stf_path.display())))?;
    let out = tempfile::Builder::new()
        .prefix("esa-bmv2-p4c-")
        .tempdir()
        .map_err(Error::io("creating a folder for p4c's output"))?;
    let compiled = compile(tools, program, includes, defines, out.path())?;
    run_stf(tools, &compiled.json, &text)
}

/// Runs STF text on a fresh `simple_switch` loaded with the BMv2 JSON.
pub fn run_stf(tools: &Tools, json: &Path, stf_text: &str) -> Result<StfReport, Error> {
    let statements = stf::parse(stf_text).map_err(|e| Error::Program(format!("STF {e}")))?;
    let layout = Layout::from_file(json)?;
    let switch = SimpleSwitch::start(tools, json, &Options { log: true })?;
    let mut r = Runner {
        tools,
        layout,
        switch,
        pending: vec![],
        packets_since_idle: 0,
        report: StfReport::default(),
        expected: BTreeMap::new(),
        any_ports: BTreeSet::new(),
        handles: HashMap::new(),
        implicit_priority: 0,
    };
    for s in &statements {
        if let Err(e) = r.command(s.line, &s.command) {
            r.report.failures.push(format!("line {}: {e}", s.line));
        }
    }
    r.flush(true)?;
    let mut actual: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    for (port, frame) in r.switch.take_outputs() {
        r.report.packets_out += 1;
        actual.entry(port).or_default().push(frame);
    }
    compare_outputs(&r.expected, &r.any_ports, &actual, &mut r.report);
    r.report.outputs = actual;
    r.report.passed = r.report.failures.is_empty();
    Ok(r.report)
}

/// What to do with a CLI answer.
#[derive(Debug)]
enum Then {
    Nothing,
    /// Remember the entry handle under this STF name.
    Handle(String),
    /// Check a counter.
    Check {
        what: String,
        check: Option<stf::CounterCheck>,
    },
    /// Keep the answer as a note.
    Note,
    /// A register read: noted as p4sim's runner notes it.
    Register(String),
}

struct Runner<'a> {
    tools: &'a Tools,
    layout: Layout,
    switch: SimpleSwitch,
    /// (STF line, CLI command, what to do with the answer)
    pending: Vec<(usize, String, Then)>,
    packets_since_idle: usize,
    report: StfReport,
    expected: BTreeMap<u32, Vec<PacketPattern>>,
    any_ports: BTreeSet<u32>,
    handles: HashMap<String, u32>,
    implicit_priority: u32,
}

impl Runner<'_> {
    fn queue(&mut self, line: usize, command: String, then: Then) {
        self.pending.push((line, command, then));
    }

    /// Runs the queued CLI batch, first waiting for quiet if packets went in
    /// since the last wait (the batch may read their effects). With
    /// `settle`, waits for quiet even when nothing is queued.
    fn flush(&mut self, settle: bool) -> Result<(), Error> {
        if self.packets_since_idle > 0 && (settle || !self.pending.is_empty()) {
            self.switch.wait_idle(QUIET, IDLE_TIMEOUT)?;
            self.packets_since_idle = 0;
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.pending);
        let commands: Vec<String> = batch.iter().map(|(_, c, _)| c.clone()).collect();
        let answers = self.switch.cli(self.tools)?.run_each(&commands)?;
        for ((line, command, then), answer) in batch.into_iter().zip(answers) {
            let answer = match answer {
                Ok(a) => a,
                Err(e) => {
                    self.report
                        .failures
                        .push(format!("line {line}: `{command}` refused: {e}"));
                    continue;
                }
            };
            match then {
                Then::Nothing => {}
                Then::Note => self.report.notes.push(answer.trim().to_string()),
                Then::Register(what) => match crate::cli::parse_register(&answer) {
                    Some(v) => self.report.notes.push(format!("{what} = {v}")),
                    None => self
                        .report
                        .failures
                        .push(format!("line {line}: cannot read `{}`", answer.trim())),
                },
                Then::Handle(name) => match crate::cli::parse_handle(&answer) {
                    Some(h) => {
                        self.handles.insert(name, h);
                    }
                    None => self.report.failures.push(format!(
                        "line {line}: no entry handle in `{}`",
                        answer.trim()
                    )),
                },
                Then::Check { what, check } => {
                    let Some((packets, bytes)) = crate::cli::parse_counter(&answer) else {
                        self.report
                            .failures
                            .push(format!("line {line}: cannot read `{}`", answer.trim()));
                        continue;
                    };
                    let Some(check) = check else {
                        self.report
                            .notes
                            .push(format!("{what} = (packets {packets}, bytes {bytes})"));
                        continue;
                    };
                    let actual = match check.kind {
                        CounterKind::Packets => packets,
                        CounterKind::Bytes => bytes,
                    };
                    let want = check.value.to_u64().unwrap_or(u64::MAX);
                    if !check.op.holds(actual, want) {
                        self.report.failures.push(format!(
                            "line {line}: {what} {:?} is {actual}, expected {:?} {want}",
                            check.kind, check.op
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn command(&mut self, line: usize, command: &Command) -> Result<(), Error> {
        match command {
            Command::Add {
                table,
                priority,
                keys,
                action,
                handle,
            } => {
                let (table, fields) = self.layout.table(table)?;
                let mut values = Vec::with_capacity(fields.len());
                for field in fields {
                    let given = keys
                        .iter()
                        .find(|k| same_field(&k.field, &field.name))
                        .ok_or_else(|| {
                            Error::Program(format!(
                                "table {table}: no value for key {}",
                                field.name
                            ))
                        })?;
                    values.push(key_text(&field.match_kind, &given.value)?);
                }
                if let Some(extra) = keys
                    .iter()
                    .find(|k| !fields.iter().any(|f| same_field(&k.field, &f.name)))
                {
                    return Err(Error::Program(format!(
                        "table {table} has no key {}",
                        extra.field
                    )));
                }
                let needs_priority = fields
                    .iter()
                    .any(|f| matches!(f.match_kind.as_str(), "ternary" | "range" | "optional"));
                let (action, args) = self.action_args(action)?;
                let mut text = format!(
                    "table_add {table} {action} {} => {}",
                    values.join(" "),
                    args.join(" ")
                );
                if needs_priority {
                    // As p4c's BMv2 runner: the larger STF priority wins,
                    // BMv2's smaller number wins; without one, earlier wins.
                    let p = match priority {
                        Some(p) => 10_000u32.saturating_sub(*p),
                        None => {
                            self.implicit_priority += 1;
                            self.implicit_priority
                        }
                    };
                    text.push_str(&format!(" {p}"));
                }
                let then = handle.clone().map_or(Then::Nothing, Then::Handle);
                self.queue(line, text, then);
            }
            Command::SetDefault { table, action } => {
                let (table, _) = self.layout.table(table)?;
                let table = table.to_string();
                let (action, args) = self.action_args(action)?;
                let text = format!("table_set_default {table} {action} {}", args.join(" "));
                self.queue(line, text.trim_end().to_string(), Then::Nothing);
            }
            Command::RemoveAll => {
                return Err(Error::Program(
                    "`remove all` is not supported on BMv2 by this runner".into(),
                ));
            }
            Command::Packet { port, data } => {
                self.flush(false)?;
                self.switch.send(*port, data)?;
                self.packets_since_idle += 1;
                self.report.packets_in += 1;
            }
            Command::Expect { port, pattern } => match pattern {
                Some(p) => self.expected.entry(*port).or_default().push(p.clone()),
                None => {
                    self.any_ports.insert(*port);
                }
            },
            Command::NoPacket | Command::Wait => self.flush(true)?,
            Command::CheckCounter {
                counter,
                index,
                check,
            } => {
                let index = match index {
                    CounterIndex::Index(n) => n.text().to_string(),
                    CounterIndex::Handle(h) => self
                        .handles
                        .get(h)
                        .ok_or_else(|| Error::Program(format!("no entry handle named {h}")))?
                        .to_string(),
                };
                self.queue(
                    line,
                    format!("counter_read {counter} {index}"),
                    Then::Check {
                        what: format!("{counter}({index})"),
                        check: check.clone(),
                    },
                );
            }
            Command::CounterRead { counter, index } => self.queue(
                line,
                format!("counter_read {counter} {index}"),
                Then::Check {
                    what: format!("{counter}[{index}]"),
                    check: None,
                },
            ),
            Command::CounterWrite {
                counter,
                index,
                packets,
                bytes,
            } => self.queue(
                line,
                format!("counter_write {counter} {index} {packets} {bytes}"),
                Then::Nothing,
            ),
            Command::RegisterRead { register, index } => self.queue(
                line,
                format!("register_read {register} {index}"),
                Then::Register(format!("{register}[{index}]")),
            ),
            Command::RegisterWrite {
                register,
                index,
                value,
            } => self.queue(
                line,
                format!("register_write {register} {index} {}", value.text()),
                Then::Nothing,
            ),
            Command::RegisterReset { register } => {
                self.queue(line, format!("register_reset {register}"), Then::Nothing)
            }
            Command::MirroringAdd { session, port } => self.queue(
                line,
                format!("mirroring_add {session} {port}"),
                Then::Nothing,
            ),
            Command::MirroringAddMc { session, group } => self.queue(
                line,
                format!("mirroring_add_mc {session} {group}"),
                Then::Nothing,
            ),
            Command::MirroringDelete { session } => {
                self.queue(line, format!("mirroring_delete {session}"), Then::Nothing)
            }
            Command::MirroringGet { session } => {
                self.queue(line, format!("mirroring_get {session}"), Then::Note)
            }
            Command::McMgrpCreate { group } => {
                self.queue(line, format!("mc_mgrp_create {group}"), Then::Nothing)
            }
            Command::McMgrpDestroy { group } => {
                self.queue(line, format!("mc_mgrp_destroy {group}"), Then::Nothing)
            }
            // BMv2 numbers nodes 0, 1, 2, ... as STF tests assume.
            Command::McNodeCreate { rid, ports, lags } => self.queue(
                line,
                format!("mc_node_create {rid} {}", port_list(ports, lags)),
                Then::Nothing,
            ),
            Command::McNodeUpdate { node, ports, lags } => self.queue(
                line,
                format!("mc_node_update {node} {}", port_list(ports, lags)),
                Then::Nothing,
            ),
            Command::McNodeAssociate { group, node } => self.queue(
                line,
                format!("mc_node_associate {group} {node}"),
                Then::Nothing,
            ),
            Command::McNodeDissociate { group, node } => self.queue(
                line,
                format!("mc_node_dissociate {group} {node}"),
                Then::Nothing,
            ),
            Command::McNodeDestroy { node } => {
                self.queue(line, format!("mc_node_destroy {node}"), Then::Nothing)
            }
            Command::MeterGetRates { meter, index } => {
                self.queue(line, format!("meter_get_rates {meter} {index}"), Then::Note)
            }
            Command::MeterSetRates {
                meter,
                index,
                rates,
            } => self.queue(
                line,
                format!("meter_set_rates {meter} {index} {}", rate_list(rates)),
                Then::Nothing,
            ),
            Command::MeterArraySetRates { meter, rates } => self.queue(
                line,
                format!("meter_array_set_rates {meter} {}", rate_list(rates)),
                Then::Nothing,
            ),
        }
        Ok(())
    }

    /// The action's full name and its arguments in the action's order.
    fn action_args(&self, call: &stf::ActionCall) -> Result<(String, Vec<String>), Error> {
        let (name, params) = self.layout.action(&call.name)?;
        let mut values = Vec::with_capacity(params.len());
        for p in params {
            let (_, v) = call.args.iter().find(|(n, _)| n == p).ok_or_else(|| {
                Error::Program(format!("action {name}: no value for parameter {p}"))
            })?;
            values.push(v.text().to_string());
        }
        if let Some((extra, _)) = call.args.iter().find(|(n, _)| !params.contains(n)) {
            return Err(Error::Program(format!(
                "action {name} has no parameter {extra}"
            )));
        }
        Ok((name.to_string(), values))
    }
}

/// STF may name a key by its full name or a suffix of it, a stack element
/// also as BMv2's JSON does (`s$0.v` for `s[0].v`).
fn same_field(stf: &str, json: &str) -> bool {
    let stf = stf::stack_elements_indexed(stf);
    stf == json || json.ends_with(&format!(".{stf}")) || stf.ends_with(&format!(".{json}"))
}

fn hex(b: &Bits) -> String {
    let limbs = b.limbs();
    let mut s = String::from("0x");
    let mut started = false;
    for limb in limbs.iter().rev() {
        if started {
            s.push_str(&format!("{limb:016x}"));
        } else if *limb != 0 {
            s.push_str(&format!("{limb:x}"));
            started = true;
        }
    }
    if !started {
        s.push('0');
    }
    s
}

/// A key value in the CLI's syntax for the field's match kind.
fn key_text(kind: &str, value: &KeyValue) -> Result<String, Error> {
    let plain = |n: &Number| -> Result<String, Error> {
        if n.has_wildcards() {
            Err(Error::Program(format!(
                "{} has `*` digits, which only a ternary key takes",
                n.text()
            )))
        } else {
            Ok(n.text().to_string())
        }
    };
    match (kind, value) {
        ("exact", KeyValue::Value(n)) => plain(n),
        ("lpm", KeyValue::Prefix { value, prefix_len }) => {
            Ok(format!("{}/{prefix_len}", plain(value)?))
        }
        ("ternary", KeyValue::Value(n)) if n.has_wildcards() => Ok(format!(
            "{}&&&{}",
            hex(n.value()),
            hex(n.mask().expect("has wildcards"))
        )),
        ("ternary", KeyValue::Masked { value, mask }) => {
            Ok(format!("{}&&&{}", plain(value)?, plain(mask)?))
        }
        ("range", KeyValue::Range { low, high }) => {
            Ok(format!("{}->{}", plain(low)?, plain(high)?))
        }
        (kind, v) => Err(Error::Program(format!(
            "a {kind} key given as {v:?} cannot be written for BMv2's CLI (give the full mask \
             or prefix)"
        ))),
    }
}

fn port_list(ports: &[u32], lags: &[u32]) -> String {
    let mut s: Vec<String> = ports.iter().map(u32::to_string).collect();
    if !lags.is_empty() {
        s.push("|".into());
        s.extend(lags.iter().map(u32::to_string));
    }
    s.join(" ")
}

fn rate_list(rates: &[stf::MeterRate]) -> String {
    rates
        .iter()
        .map(|r| format!("{}:{}", r.rate, r.burst))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_values_take_the_cli_syntax_of_their_match_kind() {
        let n = |t: &str| Number::parse(t).unwrap();
        assert_eq!(
            key_text("exact", &KeyValue::Value(n("0x0a"))).unwrap(),
            "0x0a"
        );
        assert_eq!(
            key_text(
                "lpm",
                &KeyValue::Prefix {
                    value: n("0x0a000000"),
                    prefix_len: 8
                }
            )
            .unwrap(),
            "0x0a000000/8"
        );
        assert_eq!(
            key_text("ternary", &KeyValue::Value(n("0x0*"))).unwrap(),
            "0x0&&&0xf0"
        );
        assert_eq!(
            key_text(
                "range",
                &KeyValue::Range {
                    low: n("1"),
                    high: n("9")
                }
            )
            .unwrap(),
            "1->9"
        );
        assert!(key_text("exact", &KeyValue::Value(n("0x0*"))).is_err());
        assert!(key_text("lpm", &KeyValue::Value(n("3"))).is_err());
    }

    #[test]
    fn stf_key_names_match_full_names_or_suffixes() {
        assert!(same_field("hdr.esa.job", "hdr.esa.job"));
        assert!(same_field("job", "hdr.esa.job"));
        assert!(!same_field("ob", "hdr.esa.job"));
    }
}
