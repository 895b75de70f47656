//! Parser for p4c's STF (Simple Test Framework) test files, and the packet
//! comparison its `expect` command implies.
//!
//! The grammar follows p4c `tools/stf/stf_lexer.py` / `stf_parser.py` and
//! the BMv2 additions in `backends/bmv2/bmv2stf.py`. One statement per line;
//! `#` starts a comment; keywords are case-insensitive; there are no line
//! continuations.
//!
//! ```text
//! add <table> [<priority>] <field>:<value> ... <action>(<param>:<number>, ...) [= <handle>]
//! setdefault <table> <action>(<param>:<number>, ...)
//! remove all
//! packet <port> <hex digits, spaces allowed>
//! expect <port> [<hex digits and * nibble wildcards> [$]]
//! no_packet
//! wait
//! check_counter <counter>(<index or handle>) [packets|bytes <op> <number>]
//! mirroring_add <session> <port>          mirroring_add_mc <session> <group>
//! mirroring_delete <session>              mirroring_get <session>
//! mc_mgrp_create <group>                  mc_node_create <rid> <port>... [| <lag>...]
//! mc_node_update <node> <port>...         mc_node_associate <group> <node>
//! counter_read <counter> <index>          counter_write <counter> <index> <packets> <bytes>
//! register_read <register> <index>        register_write <register> <index> <value>
//! register_reset <register>
//! meter_get_rates <meter> <index>         meter_set_rates <meter> <index> <rate>:<burst>...
//! meter_array_set_rates <meter> <rate>:<burst>...
//! ```
//!
//! Numbers are decimal, `0x` hex or `0b` binary; hex and binary digits may
//! be `*` (don't care), which the BMv2 runner turns into a ternary mask. A
//! key value is `<number>` or `<number>/<prefix length>`.
//!
//! Extensions p4c's own parser does not accept (so tests using them will not
//! run on BMv2): key values `<value>&&&<mask>`, `<low>..<high>` and `*`, and
//! the commands `mc_mgrp_destroy <group>`, `mc_node_destroy <node>`,
//! `mc_node_dissociate <group> <node>` (all simple_switch_CLI commands).

pub mod runner;

use std::fmt;

use crate::exec::bits::{Bits, BitsError};

/// Where and why parsing failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {kind}")]
pub struct StfError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What went wrong.
    pub kind: StfErrorKind,
}

/// The kinds of STF syntax errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StfErrorKind {
    /// The first word of a line is not a known command.
    #[error("unknown command {0:?}")]
    UnknownCommand(String),
    /// A different token was expected here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar allows here.
        expected: &'static str,
        /// What the line has instead (`end of line` at the end).
        found: String,
    },
    /// A malformed number.
    #[error("invalid number {text:?}: {source}")]
    InvalidNumber {
        /// The number as written.
        text: String,
        /// Why it is invalid.
        source: BitsError,
    },
    /// A number too large for its role (port, group, index, ...).
    #[error("number {text:?} is larger than {max}")]
    NumberOutOfRange {
        /// The number as written.
        text: String,
        /// The largest value allowed.
        max: u64,
    },
    /// A `*` digit where a plain number is required.
    #[error("wildcard digits are not allowed in {text:?} here")]
    WildcardNotAllowed {
        /// The number as written.
        text: String,
    },
    /// Packet data with an odd number of hex digits.
    #[error("packet data has an odd number of hex digits ({0})")]
    OddPacketData(usize),
    /// A character that is not allowed in packet data.
    #[error("invalid character {0:?} in packet data")]
    InvalidPacketChar(char),
    /// `$` somewhere other than the end of an `expect` pattern.
    #[error("'$' must be the last item of an expect pattern")]
    ExactMarkerNotLast,
    /// A `"` without its closing partner.
    #[error("unterminated quoted name")]
    UnterminatedQuote,
    /// A character that starts no token.
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
}

/// How a number was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Radix {
    /// Decimal digits.
    Decimal,
    /// `0x` prefix.
    Hex,
    /// `0b` prefix.
    Binary,
}

/// A number from an STF file. Hex and binary numbers have the width their
/// digits spell (4 or 1 bit per digit, leading zeros included); decimal
/// numbers have the width of their value (at least 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Number {
    text: String,
    radix: Radix,
    value: Bits,
    mask: Option<Bits>,
}

impl Number {
    /// Parses `0x..`, `0b..` (digits may be `*`) or decimal text.
    pub fn parse(text: &str) -> Result<Number, BitsError> {
        let lower = text.to_ascii_lowercase();
        let (radix, digits, bits_per_digit) = if let Some(d) = lower.strip_prefix("0x") {
            (Radix::Hex, d, 4)
        } else if let Some(d) = lower.strip_prefix("0b") {
            (Radix::Binary, d, 1)
        } else {
            let value = Bits::parse_unsized(&lower, 10)?;
            return Ok(Number {
                text: text.to_string(),
                radix: Radix::Decimal,
                value,
                mask: None,
            });
        };
        let digit_count = digits.chars().filter(|&c| c != '_').count();
        let width = u32::try_from(digit_count * bits_per_digit).unwrap_or(u32::MAX);
        let ty = crate::exec::bits::BitType::unsigned(width.max(1))?;
        let radix_value = if radix == Radix::Hex { 16 } else { 2 };
        let wild_digit = if radix == Radix::Hex { "f" } else { "1" };
        let value_digits = digits.replace('*', "0");
        let value = Bits::from_str_radix(ty, &value_digits, radix_value)?;
        let mask = if digits.contains('*') {
            let mask_digits: String = digits
                .chars()
                .filter(|&c| c != '_')
                .map(|c| if c == '*' { "0" } else { wild_digit })
                .collect();
            Some(Bits::from_str_radix(ty, &mask_digits, radix_value)?)
        } else {
            None
        };
        Ok(Number {
            text: text.to_string(),
            radix,
            value,
            mask,
        })
    }

    /// The number as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How the number was written.
    pub fn radix(&self) -> Radix {
        self.radix
    }

    /// The value, with `*` digits as 0.
    pub fn value(&self) -> &Bits {
        &self.value
    }

    /// For numbers with `*` digits: 1 bits where a digit was given, 0 under
    /// each `*`.
    pub fn mask(&self) -> Option<&Bits> {
        self.mask.as_ref()
    }

    /// True when some digit is `*`.
    pub fn has_wildcards(&self) -> bool {
        self.mask.is_some()
    }

    /// The value as a `u64`, if it has no wildcards and fits.
    pub fn to_u64(&self) -> Option<u64> {
        if self.has_wildcards() {
            return None;
        }
        self.value.to_u64()
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The value given for one key field of an `add`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyValue {
    /// `<number>`: exact, or ternary when the number has `*` digits.
    Value(Number),
    /// `<number>/<prefix length>`.
    Prefix {
        /// The address.
        value: Number,
        /// The prefix length in bits.
        prefix_len: u32,
    },
    /// `<value>&&&<mask>` (p4sim extension).
    Masked {
        /// The value.
        value: Number,
        /// The mask.
        mask: Number,
    },
    /// `<low>..<high>` (p4sim extension).
    Range {
        /// Lowest matching value.
        low: Number,
        /// Highest matching value.
        high: Number,
    },
    /// `*`: matches anything (p4sim extension).
    Any,
}

/// `<field>:<value>` in an `add`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyMatch {
    /// The key field name as written, e.g. `hdr.ipv4.dstAddr`.
    pub field: String,
    /// The value to match.
    pub value: KeyValue,
}

/// `<action>(<param>:<number>, ...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionCall {
    /// The action name as written (may be a suffix of the full name).
    pub name: String,
    /// Parameter names and values in the order written.
    pub args: Vec<(String, Number)>,
}

/// The index in `check_counter <counter>(<index>)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CounterIndex {
    /// A numeric index.
    Index(Number),
    /// A table-entry handle given with `= <name>` on an `add`.
    Handle(String),
}

/// Which counter field a check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterKind {
    /// `packets`.
    Packets,
    /// `bytes`.
    Bytes,
}

/// A comparison operator of `check_counter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CompareOp {
    /// Applies the comparison `actual <op> expected`.
    pub fn holds(self, actual: u64, expected: u64) -> bool {
        match self {
            CompareOp::Eq => actual == expected,
            CompareOp::Ne => actual != expected,
            CompareOp::Lt => actual < expected,
            CompareOp::Le => actual <= expected,
            CompareOp::Gt => actual > expected,
            CompareOp::Ge => actual >= expected,
        }
    }
}

/// The optional condition of `check_counter`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterCheck {
    /// Packets or bytes.
    pub kind: CounterKind,
    /// The comparison.
    pub op: CompareOp,
    /// The value compared against.
    pub value: Number,
}

/// `<rate>:<burst>` of the meter commands (rate in units per microsecond).
#[derive(Debug, Clone, PartialEq)]
pub struct MeterRate {
    /// Information rate, units per microsecond.
    pub rate: f64,
    /// Burst size in units.
    pub burst: u64,
}

/// One STF command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `add`: insert a table entry.
    Add {
        /// Table name as written.
        table: String,
        /// Priority as written (BMv2's runner maps it to `10000 - p`).
        priority: Option<u32>,
        /// Key fields.
        keys: Vec<KeyMatch>,
        /// The entry's action.
        action: ActionCall,
        /// `= <name>`: a handle for later `check_counter`.
        handle: Option<String>,
    },
    /// `setdefault`: change a table's default action.
    SetDefault {
        /// Table name as written.
        table: String,
        /// The new default action.
        action: ActionCall,
    },
    /// `remove all`: delete every table entry.
    RemoveAll,
    /// `packet`: inject a packet.
    Packet {
        /// Ingress port.
        port: u32,
        /// Packet bytes.
        data: Vec<u8>,
    },
    /// `expect`: a packet must leave on `port`.
    Expect {
        /// Egress port.
        port: u32,
        /// The expected bytes; `None` means any packets (or none) may
        /// leave on this port.
        pattern: Option<PacketPattern>,
    },
    /// `no_packet`.
    NoPacket,
    /// `wait`: let the switch drain.
    Wait,
    /// `check_counter`.
    CheckCounter {
        /// Counter name.
        counter: String,
        /// Which cell.
        index: CounterIndex,
        /// The condition; p4c's parser fills in `== 0` with no counter kind
        /// when it is absent.
        check: Option<CounterCheck>,
    },
    /// `mirroring_add <session> <port>`.
    MirroringAdd {
        /// Clone session id.
        session: u32,
        /// Egress port.
        port: u32,
    },
    /// `mirroring_add_mc <session> <group>`.
    MirroringAddMc {
        /// Clone session id.
        session: u32,
        /// Multicast group.
        group: u32,
    },
    /// `mirroring_delete <session>`.
    MirroringDelete {
        /// Clone session id.
        session: u32,
    },
    /// `mirroring_get <session>`.
    MirroringGet {
        /// Clone session id.
        session: u32,
    },
    /// `mc_mgrp_create <group>`.
    McMgrpCreate {
        /// Multicast group id.
        group: u32,
    },
    /// `mc_mgrp_destroy <group>` (extension).
    McMgrpDestroy {
        /// Multicast group id.
        group: u32,
    },
    /// `mc_node_create <rid> <ports> [| <lags>]`.
    McNodeCreate {
        /// Replication id of the node's copies.
        rid: u32,
        /// Egress ports.
        ports: Vec<u32>,
        /// LAG indexes.
        lags: Vec<u32>,
    },
    /// `mc_node_update <node> <ports> [| <lags>]`.
    McNodeUpdate {
        /// Node handle.
        node: u32,
        /// New egress ports.
        ports: Vec<u32>,
        /// New LAG indexes.
        lags: Vec<u32>,
    },
    /// `mc_node_associate <group> <node>`.
    McNodeAssociate {
        /// Multicast group id.
        group: u32,
        /// Node handle.
        node: u32,
    },
    /// `mc_node_dissociate <group> <node>` (extension).
    McNodeDissociate {
        /// Multicast group id.
        group: u32,
        /// Node handle.
        node: u32,
    },
    /// `mc_node_destroy <node>` (extension).
    McNodeDestroy {
        /// Node handle.
        node: u32,
    },
    /// `counter_read <counter> <index>`.
    CounterRead {
        /// Counter name.
        counter: String,
        /// Cell index.
        index: u64,
    },
    /// `counter_write <counter> <index> <packets> <bytes>`.
    CounterWrite {
        /// Counter name.
        counter: String,
        /// Cell index.
        index: u64,
        /// Packet count to store.
        packets: u64,
        /// Byte count to store.
        bytes: u64,
    },
    /// `register_read <register> <index>`.
    RegisterRead {
        /// Register name.
        register: String,
        /// Cell index.
        index: u64,
    },
    /// `register_write <register> <index> <value>`.
    RegisterWrite {
        /// Register name.
        register: String,
        /// Cell index.
        index: u64,
        /// Value to store.
        value: Number,
    },
    /// `register_reset <register>`.
    RegisterReset {
        /// Register name.
        register: String,
    },
    /// `meter_get_rates <meter> <index>`.
    MeterGetRates {
        /// Meter name.
        meter: String,
        /// Cell index.
        index: u64,
    },
    /// `meter_set_rates <meter> <index> <rate>:<burst>...`.
    MeterSetRates {
        /// Meter name.
        meter: String,
        /// Cell index.
        index: u64,
        /// Rates, committed first.
        rates: Vec<MeterRate>,
    },
    /// `meter_array_set_rates <meter> <rate>:<burst>...`.
    MeterArraySetRates {
        /// Meter name.
        meter: String,
        /// Rates, committed first.
        rates: Vec<MeterRate>,
    },
}

/// A command with the line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// 1-based line number.
    pub line: usize,
    /// The command.
    pub command: Command,
}

/// Parses a whole STF file, stopping at the first error.
pub fn parse(text: &str) -> Result<Vec<Statement>, StfError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content =
            strip_comment(raw).map_err(|(column, kind)| StfError { line, column, kind })?;
        if content.trim().is_empty() {
            continue;
        }
        let command =
            parse_line(content).map_err(|(column, kind)| StfError { line, column, kind })?;
        out.push(Statement { line, command });
    }
    Ok(out)
}

type LineError = (usize, StfErrorKind);

/// The line up to a `#` that is not inside a quoted name.
fn strip_comment(line: &str) -> Result<&str, LineError> {
    let mut in_quote = None;
    for (col, (i, c)) in line.char_indices().enumerate() {
        match (c, in_quote) {
            ('"', None) => in_quote = Some(col + 1),
            ('"', Some(_)) => in_quote = None,
            ('#', None) => return Ok(&line[..i]),
            _ => {}
        }
    }
    match in_quote {
        Some(col) => Err((col, StfErrorKind::UnterminatedQuote)),
        None => Ok(line),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Num(String),
    Punct(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "name {s:?}"),
            Tok::Num(s) => write!(f, "number {s:?}"),
            Tok::Punct(p) => write!(f, "'{p}'"),
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    column: usize,
}

const PUNCTUATION: [&str; 18] = [
    "&&&", "==", "!=", "<=", ">=", "..", ":", ",", ".", "[", "]", "(", ")", "/", "=", "<", ">", "|",
];

fn tokenize(chars: &[char], start: usize) -> Result<Vec<Token>, LineError> {
    let mut tokens = Vec::new();
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let begin = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '$'))
            {
                i += 1;
            }
            tokens.push(Token {
                tok: Tok::Ident(chars[begin..i].iter().collect()),
                column,
            });
        } else if c == '"' {
            let begin = i + 1;
            i = begin;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            if i >= chars.len() {
                return Err((column, StfErrorKind::UnterminatedQuote));
            }
            tokens.push(Token {
                tok: Tok::Ident(chars[begin..i].iter().collect()),
                column,
            });
            i += 1;
        } else if c.is_ascii_digit() {
            let begin = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '*'))
            {
                i += 1;
            }
            tokens.push(Token {
                tok: Tok::Num(chars[begin..i].iter().collect()),
                column,
            });
        } else if c == '*' {
            tokens.push(Token {
                tok: Tok::Punct("*"),
                column,
            });
            i += 1;
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let p = PUNCTUATION
                .iter()
                .find(|p| rest.starts_with(**p))
                .ok_or((column, StfErrorKind::UnexpectedChar(c)))?;
            tokens.push(Token {
                tok: Tok::Punct(p),
                column,
            });
            i += p.len();
        }
    }
    Ok(tokens)
}

fn parse_line(line: &str) -> Result<Command, LineError> {
    let chars: Vec<char> = line.chars().collect();
    // The command word decides how the rest of the line is read.
    let mut i = 0;
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    let word_start = i;
    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
        i += 1;
    }
    let word: String = chars[word_start..i]
        .iter()
        .collect::<String>()
        .to_ascii_lowercase();
    if word.is_empty() {
        let c = chars.get(word_start).copied().unwrap_or(' ');
        return Err((word_start + 1, StfErrorKind::UnexpectedChar(c)));
    }
    match word.as_str() {
        "packet" | "expect" => return parse_packet_line(&word, &chars, i),
        _ => {}
    }
    let tokens = tokenize(&chars, i)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        end_column: chars.len() + 1,
    };
    let command = match word.as_str() {
        "add" => p.add()?,
        "setdefault" => {
            let table = p.qualified_name()?;
            let action = p.action()?;
            Command::SetDefault { table, action }
        }
        "remove" => {
            p.keyword("all")?;
            Command::RemoveAll
        }
        "no_packet" => Command::NoPacket,
        "wait" => Command::Wait,
        "check_counter" => p.check_counter()?,
        "mirroring_add" => Command::MirroringAdd {
            session: p.u32_number()?,
            port: p.u32_number()?,
        },
        "mirroring_add_mc" => Command::MirroringAddMc {
            session: p.u32_number()?,
            group: p.u32_number()?,
        },
        "mirroring_delete" => Command::MirroringDelete {
            session: p.u32_number()?,
        },
        "mirroring_get" => Command::MirroringGet {
            session: p.u32_number()?,
        },
        "mc_mgrp_create" => Command::McMgrpCreate {
            group: p.u32_number()?,
        },
        "mc_mgrp_destroy" => Command::McMgrpDestroy {
            group: p.u32_number()?,
        },
        "mc_node_create" => {
            let rid = p.u32_number()?;
            let (ports, lags) = p.ports_and_lags()?;
            Command::McNodeCreate { rid, ports, lags }
        }
        "mc_node_update" => {
            let node = p.u32_number()?;
            let (ports, lags) = p.ports_and_lags()?;
            Command::McNodeUpdate { node, ports, lags }
        }
        "mc_node_associate" => Command::McNodeAssociate {
            group: p.u32_number()?,
            node: p.u32_number()?,
        },
        "mc_node_dissociate" => Command::McNodeDissociate {
            group: p.u32_number()?,
            node: p.u32_number()?,
        },
        "mc_node_destroy" => Command::McNodeDestroy {
            node: p.u32_number()?,
        },
        "counter_read" => Command::CounterRead {
            counter: p.qualified_name()?,
            index: p.u64_number()?,
        },
        "counter_write" => Command::CounterWrite {
            counter: p.qualified_name()?,
            index: p.u64_number()?,
            packets: p.u64_number()?,
            bytes: p.u64_number()?,
        },
        "register_read" => Command::RegisterRead {
            register: p.qualified_name()?,
            index: p.u64_number()?,
        },
        "register_write" => Command::RegisterWrite {
            register: p.qualified_name()?,
            index: p.u64_number()?,
            value: p.plain_number()?,
        },
        "register_reset" => Command::RegisterReset {
            register: p.qualified_name()?,
        },
        "meter_get_rates" => Command::MeterGetRates {
            meter: p.qualified_name()?,
            index: p.u64_number()?,
        },
        "meter_set_rates" => Command::MeterSetRates {
            meter: p.qualified_name()?,
            index: p.u64_number()?,
            rates: p.meter_rates()?,
        },
        "meter_array_set_rates" => Command::MeterArraySetRates {
            meter: p.qualified_name()?,
            rates: p.meter_rates()?,
        },
        _ => return Err((word_start + 1, StfErrorKind::UnknownCommand(word))),
    };
    p.finish()?;
    Ok(command)
}

/// `packet <port> <data>` and `expect <port> [<pattern>]`.
fn parse_packet_line(word: &str, chars: &[char], mut i: usize) -> Result<Command, LineError> {
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    let port_start = i;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    if i == port_start || chars.get(i).is_some_and(|c| !c.is_whitespace()) {
        let found = chars
            .get(port_start)
            .map_or("end of line".to_string(), |c| format!("{c:?}"));
        return Err((
            port_start + 1,
            StfErrorKind::Expected {
                expected: "a decimal port number",
                found,
            },
        ));
    }
    let port_text: String = chars[port_start..i].iter().collect();
    let port = port_text.parse::<u32>().map_err(|_| {
        (
            port_start + 1,
            StfErrorKind::NumberOutOfRange {
                text: port_text.clone(),
                max: u64::from(u32::MAX),
            },
        )
    })?;
    if word == "expect" {
        let pattern = PacketPattern::parse_at(chars, i)?;
        let pattern = (!pattern.nibbles.is_empty() || pattern.exact_length).then_some(pattern);
        return Ok(Command::Expect { port, pattern });
    }
    let mut nibbles = Vec::new();
    let mut data_column = None;
    for (j, &c) in chars.iter().enumerate().skip(i) {
        if c.is_whitespace() {
            continue;
        }
        data_column.get_or_insert(j + 1);
        let d = c
            .to_digit(16)
            .ok_or((j + 1, StfErrorKind::InvalidPacketChar(c)))?;
        nibbles.push(d as u8);
    }
    if nibbles.len() % 2 != 0 {
        return Err((
            data_column.unwrap_or(i + 1),
            StfErrorKind::OddPacketData(nibbles.len()),
        ));
    }
    let data = nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect();
    Ok(Command::Packet { port, data })
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end_column: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, offset: usize) -> Option<&Tok> {
        self.tokens.get(self.pos + offset).map(|t| &t.tok)
    }

    fn column(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.end_column, |t| t.column)
    }

    fn error(&self, expected: &'static str) -> LineError {
        let found = self
            .peek()
            .map_or_else(|| "end of line".to_string(), |t| t.to_string());
        (self.column(), StfErrorKind::Expected { expected, found })
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn punct(&mut self, p: &str, expected: &'static str) -> Result<(), LineError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    fn ident(&mut self, expected: &'static str) -> Result<String, LineError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.error(expected)),
        }
    }

    fn keyword(&mut self, word: &'static str) -> Result<(), LineError> {
        match self.peek() {
            Some(Tok::Ident(s)) if s.eq_ignore_ascii_case(word) => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.error(word)),
        }
    }

    fn finish(&self) -> Result<(), LineError> {
        if self.pos < self.tokens.len() {
            return Err(self.error("end of line"));
        }
        Ok(())
    }

    /// `ident ([n])? (. ident ([n])?)*`
    fn qualified_name(&mut self) -> Result<String, LineError> {
        let mut name = self.ident("a name")?;
        loop {
            if self.eat_punct("[") {
                let index = match self.peek() {
                    Some(Tok::Num(n)) if n.chars().all(|c| c.is_ascii_digit()) => n.clone(),
                    _ => return Err(self.error("a decimal index")),
                };
                self.pos += 1;
                self.punct("]", "']'")?;
                name.push('[');
                name.push_str(&index);
                name.push(']');
            }
            if matches!(self.peek(), Some(Tok::Punct(".")))
                && matches!(self.peek_at(1), Some(Tok::Ident(_)))
            {
                self.pos += 1;
                name.push('.');
                name.push_str(&self.ident("a name")?);
            } else {
                return Ok(name);
            }
        }
    }

    fn number(&mut self) -> Result<Number, LineError> {
        let column = self.column();
        match self.peek() {
            Some(Tok::Num(text)) => {
                let text = text.clone();
                self.pos += 1;
                Number::parse(&text)
                    .map_err(|source| (column, StfErrorKind::InvalidNumber { text, source }))
            }
            _ => Err(self.error("a number")),
        }
    }

    fn plain_number(&mut self) -> Result<Number, LineError> {
        let column = self.column();
        let n = self.number()?;
        if n.has_wildcards() {
            return Err((
                column,
                StfErrorKind::WildcardNotAllowed {
                    text: n.text().to_string(),
                },
            ));
        }
        Ok(n)
    }

    fn u64_number(&mut self) -> Result<u64, LineError> {
        let column = self.column();
        let n = self.plain_number()?;
        n.to_u64().ok_or((
            column,
            StfErrorKind::NumberOutOfRange {
                text: n.text().to_string(),
                max: u64::MAX,
            },
        ))
    }

    fn u32_number(&mut self) -> Result<u32, LineError> {
        let column = self.column();
        let n = self.plain_number()?;
        n.to_u64().and_then(|v| u32::try_from(v).ok()).ok_or((
            column,
            StfErrorKind::NumberOutOfRange {
                text: n.text().to_string(),
                max: u64::from(u32::MAX),
            },
        ))
    }

    fn ports_and_lags(&mut self) -> Result<(Vec<u32>, Vec<u32>), LineError> {
        let mut ports = Vec::new();
        while matches!(self.peek(), Some(Tok::Num(_))) {
            ports.push(self.u32_number()?);
        }
        let mut lags = Vec::new();
        if self.eat_punct("|") {
            while matches!(self.peek(), Some(Tok::Num(_))) {
                lags.push(self.u32_number()?);
            }
        }
        if ports.is_empty() && lags.is_empty() {
            return Err(self.error("a port number"));
        }
        Ok((ports, lags))
    }

    fn add(&mut self) -> Result<Command, LineError> {
        let table = self.qualified_name()?;
        let priority = match self.peek() {
            Some(Tok::Num(n)) if n.chars().all(|c| c.is_ascii_digit()) => Some(self.u32_number()?),
            Some(Tok::Num(_)) => return Err(self.error("a decimal priority or a key field")),
            _ => None,
        };
        let mut keys = Vec::new();
        let action = loop {
            let name = self.qualified_name()?;
            if self.eat_punct(":") {
                let value = self.key_value()?;
                keys.push(KeyMatch { field: name, value });
            } else if matches!(self.peek(), Some(Tok::Punct("("))) {
                if keys.is_empty() {
                    return Err(self.error("':' and a key value"));
                }
                break self.action_args(name)?;
            } else {
                return Err(self.error("':' or '('"));
            }
        };
        let handle = if self.eat_punct("=") {
            Some(self.ident("a handle name")?)
        } else {
            None
        };
        Ok(Command::Add {
            table,
            priority,
            keys,
            action,
            handle,
        })
    }

    fn key_value(&mut self) -> Result<KeyValue, LineError> {
        if self.eat_punct("*") {
            return Ok(KeyValue::Any);
        }
        let value = self.number()?;
        if self.eat_punct("/") {
            let column = self.column();
            let len = self.plain_number()?;
            let prefix_len = len.to_u64().and_then(|v| u32::try_from(v).ok()).ok_or((
                column,
                StfErrorKind::NumberOutOfRange {
                    text: len.text().to_string(),
                    max: u64::from(u32::MAX),
                },
            ))?;
            return Ok(KeyValue::Prefix { value, prefix_len });
        }
        if self.eat_punct("&&&") {
            let mask = self.plain_number()?;
            return Ok(KeyValue::Masked { value, mask });
        }
        if self.eat_punct("..") {
            let high = self.plain_number()?;
            return Ok(KeyValue::Range { low: value, high });
        }
        Ok(KeyValue::Value(value))
    }

    fn action(&mut self) -> Result<ActionCall, LineError> {
        let name = self.qualified_name()?;
        self.action_args(name)
    }

    fn action_args(&mut self, name: String) -> Result<ActionCall, LineError> {
        self.punct("(", "'('")?;
        let mut args = Vec::new();
        if !self.eat_punct(")") {
            loop {
                let param = self.ident("a parameter name")?;
                self.punct(":", "':'")?;
                let value = self.plain_number()?;
                args.push((param, value));
                if self.eat_punct(")") {
                    break;
                }
                self.punct(",", "',' or ')'")?;
            }
        }
        Ok(ActionCall { name, args })
    }

    fn check_counter(&mut self) -> Result<Command, LineError> {
        let counter = self.qualified_name()?;
        self.punct("(", "'('")?;
        let index = match self.peek() {
            Some(Tok::Ident(_)) => CounterIndex::Handle(self.ident("a handle")?),
            _ => CounterIndex::Index(self.plain_number()?),
        };
        self.punct(")", "')'")?;
        let check = if self.peek().is_some() {
            let kind = match self.peek() {
                Some(Tok::Ident(s)) if s.eq_ignore_ascii_case("packets") => CounterKind::Packets,
                Some(Tok::Ident(s)) if s.eq_ignore_ascii_case("bytes") => CounterKind::Bytes,
                _ => return Err(self.error("'packets' or 'bytes'")),
            };
            self.pos += 1;
            let op = match self.peek() {
                Some(Tok::Punct("==")) => CompareOp::Eq,
                Some(Tok::Punct("!=")) => CompareOp::Ne,
                Some(Tok::Punct("<")) => CompareOp::Lt,
                Some(Tok::Punct("<=")) => CompareOp::Le,
                Some(Tok::Punct(">")) => CompareOp::Gt,
                Some(Tok::Punct(">=")) => CompareOp::Ge,
                _ => return Err(self.error("a comparison operator")),
            };
            self.pos += 1;
            let value = self.plain_number()?;
            Some(CounterCheck { kind, op, value })
        } else {
            None
        };
        Ok(Command::CheckCounter {
            counter,
            index,
            check,
        })
    }

    fn meter_rates(&mut self) -> Result<Vec<MeterRate>, LineError> {
        let mut rates = Vec::new();
        while matches!(self.peek(), Some(Tok::Num(_))) {
            let column = self.column();
            let whole = self.plain_number()?;
            let mut text = whole.text().to_string();
            if self.eat_punct(".") {
                let frac = self.plain_number()?;
                text.push('.');
                text.push_str(frac.text());
            }
            let rate = text.parse::<f64>().map_err(|_| {
                (
                    column,
                    StfErrorKind::InvalidNumber {
                        text: text.clone(),
                        source: BitsError::InvalidRadix(10),
                    },
                )
            })?;
            self.punct(":", "':' and a burst size")?;
            let burst = self.u64_number()?;
            rates.push(MeterRate { rate, burst });
        }
        if rates.is_empty() {
            return Err(self.error("<rate>:<burst>"));
        }
        Ok(rates)
    }
}

/// An `expect` pattern: hex nibbles, some of them `*`, optionally `$` (the
/// packet must not be longer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketPattern {
    /// Expected nibbles, `None` for `*`.
    nibbles: Vec<Option<u8>>,
    /// The `$` marker: the packet must end where the pattern ends.
    exact_length: bool,
}

impl PacketPattern {
    /// Parses pattern text such as `0a0b ** 0c $`.
    pub fn parse(text: &str) -> Result<PacketPattern, StfErrorKind> {
        let chars: Vec<char> = text.chars().collect();
        Self::parse_at(&chars, 0).map_err(|(_, kind)| kind)
    }

    fn parse_at(chars: &[char], start: usize) -> Result<PacketPattern, LineError> {
        let mut nibbles = Vec::new();
        let mut exact_length = false;
        for (i, &c) in chars.iter().enumerate().skip(start) {
            if c.is_whitespace() {
                continue;
            }
            if exact_length {
                return Err((i + 1, StfErrorKind::ExactMarkerNotLast));
            }
            match c {
                '*' => nibbles.push(None),
                '$' => exact_length = true,
                c => match c.to_digit(16) {
                    Some(d) => nibbles.push(Some(d as u8)),
                    None => return Err((i + 1, StfErrorKind::InvalidPacketChar(c))),
                },
            }
        }
        Ok(PacketPattern {
            nibbles,
            exact_length,
        })
    }

    /// A pattern matching exactly `bytes` (with `$`).
    pub fn exact(bytes: &[u8]) -> PacketPattern {
        PacketPattern {
            nibbles: bytes
                .iter()
                .flat_map(|b| [Some(b >> 4), Some(b & 0xF)])
                .collect(),
            exact_length: true,
        }
    }

    /// The nibbles, `None` for `*`.
    pub fn nibbles(&self) -> &[Option<u8>] {
        &self.nibbles
    }

    /// True when the pattern ends with `$`.
    pub fn exact_length(&self) -> bool {
        self.exact_length
    }

    /// Compares a packet with the pattern as p4c's BMv2 runner does: the
    /// packet may be longer unless the pattern ends with `$`, `*` nibbles
    /// match anything.
    pub fn matches(&self, actual: &[u8]) -> Result<(), PacketMismatch> {
        let actual_nibbles: Vec<u8> = actual.iter().flat_map(|b| [b >> 4, b & 0xF]).collect();
        let mismatch = |kind| PacketMismatch {
            kind,
            expected: self.to_string(),
            actual: hex_string(actual),
        };
        if actual_nibbles.len() < self.nibbles.len() {
            return Err(mismatch(MismatchKind::TooShort {
                expected_nibbles: self.nibbles.len(),
                actual_nibbles: actual_nibbles.len(),
            }));
        }
        for (i, (want, got)) in self.nibbles.iter().zip(&actual_nibbles).enumerate() {
            if let Some(w) = want
                && w != got
            {
                return Err(mismatch(MismatchKind::Differs { nibble: i }));
            }
        }
        if self.exact_length && actual_nibbles.len() > self.nibbles.len() {
            return Err(mismatch(MismatchKind::TooLong {
                expected_nibbles: self.nibbles.len(),
                actual_nibbles: actual_nibbles.len(),
            }));
        }
        Ok(())
    }
}

impl fmt::Display for PacketPattern {
    /// Upper-case hex with `*` wildcards and a trailing `$`, no spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for n in &self.nibbles {
            match n {
                Some(d) => write!(f, "{d:X}")?,
                None => f.write_str("*")?,
            }
        }
        if self.exact_length {
            f.write_str("$")?;
        }
        Ok(())
    }
}

/// Upper-case hex of `bytes`, no spaces.
pub fn hex_string(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// How an actual packet failed to match a [`PacketPattern`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MismatchKind {
    /// The packet ends before the pattern does.
    TooShort {
        /// Nibbles in the pattern.
        expected_nibbles: usize,
        /// Nibbles in the packet.
        actual_nibbles: usize,
    },
    /// The packet continues after a `$`-terminated pattern.
    TooLong {
        /// Nibbles in the pattern.
        expected_nibbles: usize,
        /// Nibbles in the packet.
        actual_nibbles: usize,
    },
    /// The first differing nibble (0-based; byte `nibble / 2`).
    Differs {
        /// Index of the nibble.
        nibble: usize,
    },
}

/// A failed packet comparison, with both sides in hex.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PacketMismatch {
    /// What differs.
    pub kind: MismatchKind,
    /// The pattern, as [`PacketPattern`]'s `Display` prints it.
    pub expected: String,
    /// The packet in upper-case hex.
    pub actual: String,
}

impl fmt::Display for PacketMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            MismatchKind::TooShort {
                expected_nibbles,
                actual_nibbles,
            } => writeln!(
                f,
                "packet too short: {actual_nibbles} hex digits, expected at least {expected_nibbles}"
            )?,
            MismatchKind::TooLong {
                expected_nibbles,
                actual_nibbles,
            } => writeln!(
                f,
                "packet too long: {actual_nibbles} hex digits, expected exactly {expected_nibbles}"
            )?,
            MismatchKind::Differs { nibble } => writeln!(
                f,
                "packet differs at hex digit {nibble} (byte {})",
                nibble / 2
            )?,
        }
        writeln!(f, "expected: {}", self.expected)?;
        write!(f, "actual:   {}", self.actual)?;
        if let MismatchKind::Differs { nibble } = self.kind {
            write!(f, "\n          {}^", " ".repeat(nibble))?;
        }
        Ok(())
    }
}

/// A key name as BMv2's JSON spells it (`extra$0.h`, element 0 of stack
/// `extra`; p4c's STF tests use those names) in P4 syntax (`extra[0].h`).
pub fn stack_elements_indexed(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('[');
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                out.push(d);
            }
            out.push(']');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str) -> Number {
        Number::parse(text).unwrap()
    }

    fn commands(text: &str) -> Vec<Command> {
        parse(text)
            .unwrap()
            .into_iter()
            .map(|s| s.command)
            .collect()
    }

    fn err(text: &str) -> StfError {
        parse(text).unwrap_err()
    }

    #[test]
    fn numbers_keep_digit_widths_and_wildcards() {
        let n = num("0x0a");
        assert_eq!(n.value().width(), 8);
        assert_eq!(n.to_u64(), Some(10));
        assert_eq!(n.radix(), Radix::Hex);
        let n = num("0x**01");
        assert_eq!(n.value().to_u64(), Some(0x0001));
        assert_eq!(n.mask().and_then(Bits::to_u64), Some(0x00FF));
        assert_eq!(n.to_u64(), None);
        let n = num("0b1*0");
        assert_eq!(n.value().to_u64(), Some(0b100));
        assert_eq!(n.mask().and_then(Bits::to_u64), Some(0b101));
        let n = num("300");
        assert_eq!(n.value().width(), 9);
        assert_eq!(num("0").value().width(), 1);
        assert!(matches!(Number::parse("0x"), Err(BitsError::EmptyLiteral)));
        assert!(matches!(
            Number::parse("12a"),
            Err(BitsError::InvalidDigit {
                digit: 'a',
                radix: 10
            })
        ));
    }

    #[test]
    fn add_with_all_key_forms() {
        let cmds = commands(
            "add MyIngress.t 10 hdr.ipv4.dstAddr:0x0a000000/8 h.h.t:0x****0101 \
             h.x:0x0a&&&0xff h.y:1..5 h.z:* hdr.s[0].v:7 MyIngress.fwd(port:2, mac:0x000102030405) = H1",
        );
        assert_eq!(
            cmds,
            vec![Command::Add {
                table: "MyIngress.t".into(),
                priority: Some(10),
                keys: vec![
                    KeyMatch {
                        field: "hdr.ipv4.dstAddr".into(),
                        value: KeyValue::Prefix {
                            value: num("0x0a000000"),
                            prefix_len: 8
                        }
                    },
                    KeyMatch {
                        field: "h.h.t".into(),
                        value: KeyValue::Value(num("0x****0101"))
                    },
                    KeyMatch {
                        field: "h.x".into(),
                        value: KeyValue::Masked {
                            value: num("0x0a"),
                            mask: num("0xff")
                        }
                    },
                    KeyMatch {
                        field: "h.y".into(),
                        value: KeyValue::Range {
                            low: num("1"),
                            high: num("5")
                        }
                    },
                    KeyMatch {
                        field: "h.z".into(),
                        value: KeyValue::Any
                    },
                    KeyMatch {
                        field: "hdr.s[0].v".into(),
                        value: KeyValue::Value(num("7"))
                    },
                ],
                action: ActionCall {
                    name: "MyIngress.fwd".into(),
                    args: vec![
                        ("port".into(), num("2")),
                        ("mac".into(), num("0x000102030405"))
                    ],
                },
                handle: Some("H1".into()),
            }]
        );
    }

    #[test]
    fn p4c_sample_statements() {
        // The example from p4c's stf_parser.py, plus BMv2 commands.
        let text = "
            ADD test2 100 data.f2:0x04040404 c4_6(val4:0x4040, val5:0x5050, val6:0x6060, port:2)
            add tab1 dstAddr:0xa1a2a3a4a5a6 act(port:2) = A
            # multiple match fields and ids with $
            add test1 0 data.$valid$:0b1 data.f1:0x****0101 setb1(val:0x7f, port:2)

            setdefault ethertype_match l2_packet()
            expect 1 *1010101 03030303 0101 0202 0303 0404 0505 0606
            packet 0 01010101 03030303 9999 8888 7777 6666 5555 4444
            expect 5
            check_counter cntDum(10) packets == 2
            check_counter cntDum($A)
            wait
            mc_mgrp_create 1
            mc_node_create 0 1 2 3   # rid 0, ports 1 2 3
            mc_node_associate 1 0
            mirroring_add 5 3
            register_write MyIngress.reg 3 0x10
            counter_read MyIngress.ctr 7
            meter_array_set_rates m 0.0001:100 0.5:200
            remove all
            no_packet
        ";
        let stmts = parse(text).unwrap();
        assert_eq!(stmts.len(), 19);
        assert_eq!(stmts[0].line, 2);
        let cmds: Vec<Command> = stmts.into_iter().map(|s| s.command).collect();
        assert!(
            matches!(&cmds[0], Command::Add { table, priority: Some(100), keys, action, handle: None }
            if table == "test2" && keys.len() == 1 && action.name == "c4_6" && action.args.len() == 4)
        );
        assert!(
            matches!(&cmds[2], Command::Add { priority: Some(0), keys, .. } if keys[0].field == "data.$valid$")
        );
        assert_eq!(
            cmds[3],
            Command::SetDefault {
                table: "ethertype_match".into(),
                action: ActionCall {
                    name: "l2_packet".into(),
                    args: vec![]
                }
            }
        );
        let Command::Expect {
            port: 1,
            pattern: Some(p),
        } = &cmds[4]
        else {
            panic!("expected an expect command, got {:?}", cmds[4]);
        };
        assert_eq!(
            p.to_string(),
            concat!(
                "*1010101", "03030303", "0101", "0202", "0303", "0404", "0505", "0606"
            )
        );
        assert_eq!(
            cmds[5],
            Command::Packet {
                port: 0,
                data: vec![
                    1, 1, 1, 1, 3, 3, 3, 3, 0x99, 0x99, 0x88, 0x88, 0x77, 0x77, 0x66, 0x66, 0x55,
                    0x55, 0x44, 0x44
                ]
            }
        );
        assert_eq!(
            cmds[6],
            Command::Expect {
                port: 5,
                pattern: None
            }
        );
        assert_eq!(
            cmds[7],
            Command::CheckCounter {
                counter: "cntDum".into(),
                index: CounterIndex::Index(num("10")),
                check: Some(CounterCheck {
                    kind: CounterKind::Packets,
                    op: CompareOp::Eq,
                    value: num("2")
                })
            }
        );
        assert_eq!(
            cmds[8],
            Command::CheckCounter {
                counter: "cntDum".into(),
                index: CounterIndex::Handle("$A".into()),
                check: None
            }
        );
        assert_eq!(cmds[9], Command::Wait);
        assert_eq!(cmds[10], Command::McMgrpCreate { group: 1 });
        assert_eq!(
            cmds[11],
            Command::McNodeCreate {
                rid: 0,
                ports: vec![1, 2, 3],
                lags: vec![]
            }
        );
        assert_eq!(cmds[12], Command::McNodeAssociate { group: 1, node: 0 });
        assert_eq!(
            cmds[13],
            Command::MirroringAdd {
                session: 5,
                port: 3
            }
        );
        assert_eq!(
            cmds[14],
            Command::RegisterWrite {
                register: "MyIngress.reg".into(),
                index: 3,
                value: num("0x10")
            }
        );
        assert_eq!(
            cmds[15],
            Command::CounterRead {
                counter: "MyIngress.ctr".into(),
                index: 7
            }
        );
        assert_eq!(
            cmds[16],
            Command::MeterArraySetRates {
                meter: "m".into(),
                rates: vec![
                    MeterRate {
                        rate: 0.0001,
                        burst: 100
                    },
                    MeterRate {
                        rate: 0.5,
                        burst: 200
                    }
                ]
            }
        );
        assert_eq!(cmds[17], Command::RemoveAll);
        assert_eq!(cmds[18], Command::NoPacket);
    }

    #[test]
    fn more_bmv2_commands() {
        let cmds = commands(
            "mc_node_create 7 1 2 | 3\nmc_node_update 0 4\nmc_node_dissociate 1 0\n\
             mc_node_destroy 0\nmc_mgrp_destroy 1\nmirroring_add_mc 1 2\nmirroring_delete 1\n\
             mirroring_get 1\ncounter_write c 1 2 3\nregister_read r 0\nregister_reset r\n\
             meter_get_rates m 0\nmeter_set_rates m 1 1:2\nCHECK_COUNTER c(0x1) bytes >= 64",
        );
        assert_eq!(
            cmds[0],
            Command::McNodeCreate {
                rid: 7,
                ports: vec![1, 2],
                lags: vec![3]
            }
        );
        assert_eq!(
            cmds[1],
            Command::McNodeUpdate {
                node: 0,
                ports: vec![4],
                lags: vec![]
            }
        );
        assert_eq!(cmds[2], Command::McNodeDissociate { group: 1, node: 0 });
        assert_eq!(cmds[3], Command::McNodeDestroy { node: 0 });
        assert_eq!(cmds[4], Command::McMgrpDestroy { group: 1 });
        assert_eq!(
            cmds[5],
            Command::MirroringAddMc {
                session: 1,
                group: 2
            }
        );
        assert_eq!(cmds[6], Command::MirroringDelete { session: 1 });
        assert_eq!(cmds[7], Command::MirroringGet { session: 1 });
        assert_eq!(
            cmds[8],
            Command::CounterWrite {
                counter: "c".into(),
                index: 1,
                packets: 2,
                bytes: 3
            }
        );
        assert_eq!(
            cmds[9],
            Command::RegisterRead {
                register: "r".into(),
                index: 0
            }
        );
        assert_eq!(
            cmds[10],
            Command::RegisterReset {
                register: "r".into()
            }
        );
        assert_eq!(
            cmds[11],
            Command::MeterGetRates {
                meter: "m".into(),
                index: 0
            }
        );
        assert_eq!(
            cmds[12],
            Command::MeterSetRates {
                meter: "m".into(),
                index: 1,
                rates: vec![MeterRate {
                    rate: 1.0,
                    burst: 2
                }]
            }
        );
        assert_eq!(
            cmds[13],
            Command::CheckCounter {
                counter: "c".into(),
                index: CounterIndex::Index(num("0x1")),
                check: Some(CounterCheck {
                    kind: CounterKind::Bytes,
                    op: CompareOp::Ge,
                    value: num("64")
                })
            }
        );
        assert!(CompareOp::Ge.holds(64, 64) && !CompareOp::Lt.holds(64, 64));
    }

    #[test]
    fn quoted_names_and_comments() {
        let cmds = commands("setdefault \"t#1\" \"a.b\"(x:1) # comment\n# only a comment\n\n");
        assert_eq!(
            cmds,
            vec![Command::SetDefault {
                table: "t#1".into(),
                action: ActionCall {
                    name: "a.b".into(),
                    args: vec![("x".into(), num("1"))]
                }
            }]
        );
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(
            err("wait\nfrobnicate 1"),
            StfError {
                line: 2,
                column: 1,
                kind: StfErrorKind::UnknownCommand("frobnicate".into())
            }
        );
        assert_eq!(
            err("add t k:1 a(x:1"),
            StfError {
                line: 1,
                column: 16,
                kind: StfErrorKind::Expected {
                    expected: "',' or ')'",
                    found: "end of line".into()
                }
            }
        );
        assert_eq!(
            err("packet 1 0a0"),
            StfError {
                line: 1,
                column: 10,
                kind: StfErrorKind::OddPacketData(3)
            }
        );
        assert_eq!(
            err("packet 1 0a zz"),
            StfError {
                line: 1,
                column: 13,
                kind: StfErrorKind::InvalidPacketChar('z')
            }
        );
        assert_eq!(
            err("expect 1 0a $ 0b"),
            StfError {
                line: 1,
                column: 15,
                kind: StfErrorKind::ExactMarkerNotLast
            }
        );
        assert_eq!(
            err("expect x 0a").kind,
            StfErrorKind::Expected {
                expected: "a decimal port number",
                found: "'x'".into()
            }
        );
        assert_eq!(
            err("mc_mgrp_create 4294967296"),
            StfError {
                line: 1,
                column: 16,
                kind: StfErrorKind::NumberOutOfRange {
                    text: "4294967296".into(),
                    max: u64::from(u32::MAX)
                }
            }
        );
        assert_eq!(
            err("mc_node_create 1 0x1*").kind,
            StfErrorKind::WildcardNotAllowed {
                text: "0x1*".into()
            }
        );
        assert_eq!(err("setdefault \"t").kind, StfErrorKind::UnterminatedQuote);
        assert_eq!(err("wait now").column, 6);
        assert_eq!(
            err("add t a()").kind,
            StfErrorKind::Expected {
                expected: "':' and a key value",
                found: "'('".into()
            }
        );
        assert_eq!(
            err("add t k:1 a() ;").kind,
            StfErrorKind::UnexpectedChar(';')
        );
        assert!(matches!(
            err("add t k:0xzz a()").kind,
            StfErrorKind::InvalidNumber { .. }
        ));
        assert_eq!(
            err("remove some").kind,
            StfErrorKind::Expected {
                expected: "all",
                found: "name \"some\"".into()
            }
        );
        assert!(matches!(
            err("mc_node_create 1").kind,
            StfErrorKind::Expected { .. }
        ));
        assert!(matches!(
            err("check_counter c(1) packets ~ 2").kind,
            StfErrorKind::UnexpectedChar('~')
        ));
        assert!(matches!(
            err("check_counter c(1) flows == 2").kind,
            StfErrorKind::Expected { .. }
        ));
        assert!(matches!(
            err("meter_array_set_rates m").kind,
            StfErrorKind::Expected { .. }
        ));
        assert!(matches!(
            err("packet 1 0a *b").kind,
            StfErrorKind::InvalidPacketChar('*')
        ));
        assert_eq!(err("%").kind, StfErrorKind::UnexpectedChar('%'));
    }

    #[test]
    fn packet_matching() {
        let p = PacketPattern::parse("0A0B ** 0D").unwrap();
        assert_eq!(p.matches(&[0x0a, 0x0b, 0xff, 0x0d]), Ok(()));
        assert_eq!(
            p.matches(&[0x0a, 0x0b, 0x00, 0x0d, 0xee]),
            Ok(()),
            "longer is fine without $"
        );
        let e = p.matches(&[0x0a, 0x0c, 0x00, 0x0d]).unwrap_err();
        assert_eq!(e.kind, MismatchKind::Differs { nibble: 3 });
        assert_eq!(e.expected, "0A0B**0D");
        assert_eq!(e.actual, "0A0C000D");
        assert_eq!(
            e.to_string(),
            "packet differs at hex digit 3 (byte 1)\nexpected: 0A0B**0D\nactual:   0A0C000D\n             ^"
        );
        let e = p.matches(&[0x0a]).unwrap_err();
        assert_eq!(
            e.kind,
            MismatchKind::TooShort {
                expected_nibbles: 8,
                actual_nibbles: 2
            }
        );
        let exact = PacketPattern::parse("0a0b$").unwrap();
        assert!(exact.exact_length());
        assert_eq!(exact.matches(&[0x0a, 0x0b]), Ok(()));
        let e = exact.matches(&[0x0a, 0x0b, 0x0c]).unwrap_err();
        assert_eq!(
            e.kind,
            MismatchKind::TooLong {
                expected_nibbles: 4,
                actual_nibbles: 6
            }
        );
        assert_eq!(e.expected, "0A0B$");
        // Odd-length patterns compare nibble prefixes, as the BMv2 runner does.
        assert_eq!(
            PacketPattern::parse("0a0").unwrap().matches(&[0x0a, 0x01]),
            Ok(())
        );
        assert_eq!(PacketPattern::exact(&[1, 0xab]).to_string(), "01AB$");
        assert_eq!(PacketPattern::exact(&[]).matches(&[]), Ok(()));
        assert_eq!(
            PacketPattern::parse("0g"),
            Err(StfErrorKind::InvalidPacketChar('g'))
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
            let _ = PacketPattern::parse(&text);
            let _ = Number::parse(&text);
        }

        #[test]
        fn token_soup_never_panics(words in proptest::collection::vec(
            proptest::sample::select(vec![
                "add", "setdefault", "packet", "expect", "check_counter", "mc_node_create",
                "meter_set_rates", "remove", "all", "t", "a.b", "k", ":", "(", ")", ",", "/",
                "&&&", "..", "*", "$", "=", "==", "|", "[", "]", ".", "0x", "0x*f", "0b1*",
                "12", "99999999999999999999999", "\"q\"", "#", "\n", "packets", "0.5",
            ]),
            0..24,
        )) {
            let _ = parse(&words.join(" "));
            let _ = parse(&words.concat());
        }
    }

    #[test]
    fn expect_with_only_dollar_means_empty_packet() {
        let cmds = commands("expect 2 $");
        assert_eq!(
            cmds,
            vec![Command::Expect {
                port: 2,
                pattern: Some(PacketPattern::exact(&[]))
            }]
        );
    }

    #[test]
    fn bmv2_stack_element_names_read_as_p4() {
        assert_eq!(stack_elements_indexed("extra$0.h"), "extra[0].h");
        assert_eq!(stack_elements_indexed("a$12.b$3.c"), "a[12].b[3].c");
        assert_eq!(stack_elements_indexed("cost$.x"), "cost$.x");
        assert_eq!(stack_elements_indexed("hdr.data.f1"), "hdr.data.f1");
    }
}
