//! What every engine runs on besides the program: the switch's state
//! across packets ([`Runtime`]), one packet's slots ([`Frame`]) and what a
//! stage leaves for the switch ([`Effects`]), and the words of a run:
//! which `Stage` runs and how a statement finished ([`Flow`]).

use std::collections::HashMap;
use std::sync::Arc;

use crate::exec::bits::Bits;
use crate::exec::cells::{MeterCell, RegisterCells};
use crate::exec::table::TableState;
use crate::ir::Compiled;

/// Everything that persists across packets.
#[derive(Debug, Clone)]
pub struct Runtime {
    /// Tables by id.
    pub tables: Vec<TableState>,
    /// Registers by id.
    pub registers: Vec<RegisterCells>,
    /// Indexed counters by id: (packets, bytes); direct counters live in
    /// the table entries.
    pub counters: Vec<Vec<(u64, u64)>>,
    /// Indexed meters by id.
    pub meters: Vec<Vec<MeterCell>>,
    /// State of the deterministic random generator (xorshift64*).
    pub rng: u64,
    /// The clock, in microseconds.
    pub now_us: u64,
    /// The same clock in nanoseconds (TNA's timestamps).
    pub now_ns: u64,
    /// `log_msg` output (the most recent messages).
    pub log: Vec<String>,
    /// A reusable buffer for hash and checksum input.
    pub scratch: Vec<u8>,
    /// Implementations of the extern functions the program declares.
    pub extern_functions: ExternFunctions,
}

/// An extern function's implementation: it gets every parameter's value
/// (an `out` one as 0, at the parameter's width) and leaves the `out` and
/// `inout` ones' new values in place.
pub type ExternFunction = Arc<dyn Fn(&mut [Bits]) + Send + Sync>;

/// Extern functions' implementations by name.
#[derive(Clone, Default)]
pub struct ExternFunctions(pub HashMap<Arc<str>, ExternFunction>);

impl std::fmt::Debug for ExternFunctions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl Runtime {
    /// Fresh state for a program.
    pub fn new(p: &Compiled) -> Runtime {
        Runtime {
            tables: p.tables.iter().map(TableState::new).collect(),
            registers: p
                .registers
                .iter()
                .map(|r| {
                    let n = usize::try_from(r.size).unwrap_or(0).min(1 << 26);
                    if r.ty.width() > 64 {
                        RegisterCells::Wide(vec![Bits::zero(r.ty); n])
                    } else {
                        RegisterCells::Narrow(vec![0; n])
                    }
                })
                .collect(),
            counters: p
                .counters
                .iter()
                .map(|c| {
                    if c.table.is_some() {
                        Vec::new()
                    } else {
                        vec![(0, 0); usize::try_from(c.size).unwrap_or(0).min(1 << 26)]
                    }
                })
                .collect(),
            meters: p
                .meters
                .iter()
                .map(|m| {
                    if m.table.is_some() {
                        Vec::new()
                    } else {
                        vec![
                            MeterCell::default();
                            usize::try_from(m.size).unwrap_or(0).min(1 << 26)
                        ]
                    }
                })
                .collect(),
            rng: 0x9E37_79B9_7F4A_7C15,
            now_us: 0,
            now_ns: 0,
            log: Vec::new(),
            scratch: Vec::new(),
            extern_functions: ExternFunctions::default(),
        }
    }

    /// The next value of the deterministic random generator.
    pub(crate) fn next_random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// One packet's slots (the default: none, a placeholder while a frame is
/// taken out of its switch).
#[derive(Debug, Clone, Default)]
pub struct Frame {
    /// Narrow slots.
    pub n: Vec<u64>,
    /// Wide slots.
    pub w: Vec<Bits>,
}

impl Frame {
    /// All zero: headers invalid, metadata 0.
    pub fn new(p: &Compiled) -> Frame {
        Frame {
            n: vec![0; p.n_slots as usize],
            w: p.w_init.clone(),
        }
    }

    /// Zeroes the packet's state ([`Compiled::packet_n`]) and resets the
    /// wide slots; the narrow slots after the packet's state keep their
    /// values (the program writes each before reading it).
    pub fn clear(&mut self, p: &Compiled) {
        let end = (p.packet_n as usize).min(self.n.len());
        self.n[..end].fill(0);
        self.w.clone_from(&p.w_init);
    }
}

/// Requests a pipeline stage leaves for the switch.
#[derive(Debug, Clone, Default)]
pub struct Effects {
    /// A clone: session and field list.
    pub clone: Option<(u32, Option<u8>)>,
    /// `resubmit_preserving_field_list`.
    pub resubmit: Option<u8>,
    /// `recirculate_preserving_field_list`.
    pub recirculate: Option<u8>,
    /// `truncate`.
    pub truncate: Option<u32>,
    /// Digests: receiver and values.
    pub digests: Vec<(u32, Vec<Bits>)>,
    /// A failed `assert`/`assume` (the packet is dropped).
    pub fault: Option<String>,
}

/// How a statement finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// On to the next statement.
    Normal,
    /// `return`: the enclosing function, action or control body ends.
    Return,
    /// `exit`: the control ends.
    Exit,
    /// The parser rejects the packet with this error code.
    Reject(u64),
    /// `break`: the innermost loop ends.
    Break,
    /// `continue`: the innermost loop goes on to its update.
    Continue,
}

/// Which pipeline stage is running (some externs act only in one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Parser,
    Ingress,
    Egress,
    Other,
}
