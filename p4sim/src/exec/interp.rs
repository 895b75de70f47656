//! The interpreter: runs [`crate::ir`] statements over one packet's slots.
//!
//! `Exec` borrows the compiled program, the switch's run-time state
//! (tables, registers, counters, meters) and the packet's frame, and runs
//! one pipeline stage. Narrow values are `u64`s masked to their width;
//! wide ones are [`Bits`]. Nothing here allocates per field access.

use crate::exec::bits::{BitType, Bits};
use crate::exec::table::TableState;
use crate::ir::*;

/// Color codes of v1model meters.
pub const GREEN: u64 = 0;
/// Yellow.
pub const YELLOW: u64 = 1;
/// Red.
pub const RED: u64 = 2;

#[inline(always)]
pub(crate) fn mask(width: u32) -> u64 {
    // branch-free for widths 0..=64
    ((1u128 << width.min(64)) - 1) as u64
}

/// Sign-extends the low `from` bits of `v` to 64 bits.
#[inline]
pub(crate) fn sext(v: u64, from: u32) -> u64 {
    if from == 0 || from >= 64 {
        return v;
    }
    let shift = 64 - from;
    (((v << shift) as i64) >> shift) as u64
}

/// Applies a narrow binary operator of width `w` (comparisons: operand
/// width) to masked operands.
#[inline]
pub(crate) fn eval_nop(op: NOp, w: u32, a: u64, b: u64) -> u64 {
    let m = mask(w);
    match op {
        NOp::Add => a.wrapping_add(b) & m,
        NOp::Sub => a.wrapping_sub(b) & m,
        NOp::Mul => a.wrapping_mul(b) & m,
        NOp::Div => a.checked_div(b).unwrap_or(0),
        NOp::Mod => a.checked_rem(b).unwrap_or(0),
        NOp::And => a & b,
        NOp::Or => a | b,
        NOp::Xor => a ^ b,
        NOp::Shl => {
            if b >= u64::from(w) {
                0
            } else {
                (a << b) & m
            }
        }
        NOp::Shr => {
            if b >= u64::from(w) {
                0
            } else {
                a >> b
            }
        }
        NOp::Sar => {
            let s = sext(a, w) as i64;
            ((s >> b.min(63)) as u64) & m
        }
        NOp::SatAddU => {
            let s = u128::from(a) + u128::from(b);
            if s > u128::from(m) { m } else { s as u64 }
        }
        NOp::SatSubU => a.saturating_sub(b),
        NOp::SatAddS | NOp::SatSubS => {
            let x = i128::from(sext(a, w) as i64);
            let y = i128::from(sext(b, w) as i64);
            let r = if op == NOp::SatAddS { x + y } else { x - y };
            let hi = (1i128 << (w.max(1) - 1)) - 1;
            let lo = -(1i128 << (w.max(1) - 1));
            (r.clamp(lo, hi) as u64) & m
        }
        NOp::Eq => u64::from(a == b),
        NOp::Ne => u64::from(a != b),
        NOp::LtU => u64::from(a < b),
        NOp::LeU => u64::from(a <= b),
        NOp::LtS => u64::from((sext(a, w) as i64) < (sext(b, w) as i64)),
        NOp::LeS => u64::from((sext(a, w) as i64) <= (sext(b, w) as i64)),
        NOp::LAnd => u64::from(a != 0 && b != 0),
        NOp::LOr => u64::from(a != 0 || b != 0),
    }
}

/// Reads `width` (at most 64) bits at `bit_offset`, most significant first.
/// The caller checks the range.
#[inline]
pub(crate) fn read_bits(data: &[u8], bit_offset: usize, width: u32) -> u64 {
    if width == 0 {
        return 0;
    }
    let first = bit_offset / 8;
    let shift = bit_offset % 8;
    if shift + width as usize <= 64
        && let Some(chunk) = data.get(first..first + 8)
    {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        let v = u64::from_be_bytes(b);
        return (v << shift) >> (64 - width);
    }
    let need = (shift + width as usize).div_ceil(8);
    let mut acc: u128 = 0;
    for i in 0..need {
        acc = (acc << 8) | u128::from(data.get(first + i).copied().unwrap_or(0));
    }
    let drop = need * 8 - shift - width as usize;
    ((acc >> drop) as u64) & mask(width)
}

/// Writes bit fields into bytes, most significant bit first.
#[derive(Debug, Default)]
pub(crate) struct BitWriter {
    /// Completed bytes.
    pub buf: Vec<u8>,
    /// Pending bits, right-aligned.
    acc: u64,
    /// Number of pending bits (below 64).
    nbits: u32,
}

impl BitWriter {
    /// A writer appending to `buf`.
    pub(crate) fn with_buffer(buf: Vec<u8>) -> BitWriter {
        BitWriter {
            buf,
            acc: 0,
            nbits: 0,
        }
    }

    /// Appends the low `width` (at most 64) bits of `v`; `v` must have no
    /// bits set above `width` (slot values never do).
    #[inline]
    pub(crate) fn push(&mut self, v: u64, width: u32) {
        if width > 64 {
            return;
        }
        let room = 64 - self.nbits;
        if width < room {
            self.acc = (self.acc << width) | v;
            self.nbits += width;
            return;
        }
        // fill the accumulator to 64 bits, flush, keep the rest
        let rest = width - room;
        let top = if room == 64 {
            v
        } else {
            (self.acc << room) | (v >> rest)
        };
        self.buf.extend_from_slice(&top.to_be_bytes());
        self.acc = v & ((1u64 << rest) - 1);
        self.nbits = rest;
    }

    /// Appends whole bytes: copied at once when the pending bits are whole
    /// bytes, else pushed one by one (the same output either way).
    #[inline(always)]
    pub(crate) fn push_bytes(&mut self, b: &[u8]) {
        if self.nbits == 0 {
            // the common case, a copy of a length the caller often knows
            self.buf.extend_from_slice(b);
        } else {
            self.push_bytes_after_bits(b);
        }
    }

    /// [`BitWriter::push_bytes`] with bits pending.
    #[inline(never)]
    fn push_bytes_after_bits(&mut self, b: &[u8]) {
        if !self.nbits.is_multiple_of(8) {
            for &x in b {
                self.push(u64::from(x), 8);
            }
            return;
        }
        if self.nbits > 0 {
            let n = self.nbits;
            let aligned = self.acc << (64 - n);
            self.buf
                .extend_from_slice(&aligned.to_be_bytes()[..(n / 8) as usize]);
            self.acc = 0;
            self.nbits = 0;
        }
        self.buf.extend_from_slice(b);
    }

    pub(crate) fn push_bits(&mut self, b: &Bits) {
        let w = b.width();
        if w <= 64 {
            self.push(b.low_u64(), w);
            return;
        }
        let limbs = b.limbs();
        let top = w - 64 * (limbs.len() as u32 - 1);
        for (i, l) in limbs.iter().enumerate().rev() {
            let width = if i == limbs.len() - 1 { top } else { 64 };
            self.push(*l, width);
        }
    }

    /// The bytes, the last one padded with zero bits.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let n = self.nbits;
        if n > 0 {
            let aligned = self.acc << (64 - n);
            let bytes = aligned.to_be_bytes();
            self.buf.extend_from_slice(&bytes[..n.div_ceil(8) as usize]);
        }
        self.buf
    }
}

/// A two-rate three-color meter cell (RFC 2698, as BMv2 implements it).
/// Until rates are configured every packet is GREEN.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeterCell {
    /// Committed and peak rates (units per microsecond) and bursts.
    pub rates: Option<[(f64, u64); 2]>,
    tokens: [f64; 2],
    last_us: u64,
}

impl MeterCell {
    /// Configures the rates (committed first); buckets start full.
    pub fn set_rates(&mut self, rates: [(f64, u64); 2], now_us: u64) {
        self.rates = Some(rates);
        self.tokens = [rates[0].1 as f64, rates[1].1 as f64];
        self.last_us = now_us;
    }

    /// Meters `units` at time `now_us`, returning the color.
    pub fn execute(&mut self, units: u64, now_us: u64) -> u64 {
        let Some(rates) = self.rates else {
            return GREEN;
        };
        let dt = now_us.saturating_sub(self.last_us) as f64;
        self.last_us = self.last_us.max(now_us);
        for (i, (rate, burst)) in rates.iter().enumerate() {
            self.tokens[i] = (self.tokens[i] + rate * dt).min(*burst as f64);
        }
        let u = units as f64;
        if self.tokens[1] < u {
            RED
        } else if self.tokens[0] < u {
            self.tokens[1] -= u;
            YELLOW
        } else {
            self.tokens[0] -= u;
            self.tokens[1] -= u;
            GREEN
        }
    }
}

/// Register storage (by default, no narrow cells).
#[derive(Debug, Clone, PartialEq)]
pub enum RegisterCells {
    /// Cells of width up to 64.
    Narrow(Vec<u64>),
    /// Wider cells.
    Wide(Vec<Bits>),
}

impl Default for RegisterCells {
    fn default() -> RegisterCells {
        RegisterCells::Narrow(Vec::new())
    }
}

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
        }
    }

    fn next_random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// One packet's slots.
#[derive(Debug, Clone)]
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

/// Runs statements of one program over one packet.
pub(crate) struct Exec<'a> {
    pub prog: &'a Compiled,
    pub rt: &'a mut Runtime,
    pub n: &'a mut [u64],
    pub w: &'a mut [Bits],
    pub fx: &'a mut Effects,
    /// The packet the parser reads.
    pub pkt: &'a [u8],
    /// Parser position in bits.
    pub cursor: usize,
    /// The unparsed payload (for checksums with payload).
    pub payload: &'a [u8],
    /// Deparser output.
    pub out: BitWriter,
    pub stage: Stage,
    pub(crate) exit: bool,
    pub(crate) reject: Option<u64>,
    /// Set whenever `exit` or `reject` is set: one test per statement.
    pub(crate) halt: bool,
    /// Table and entry whose action runs (for direct meters).
    pub(crate) current_entry: Option<(u32, u32)>,
}

impl std::fmt::Debug for Exec<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exec")
            .field("cursor", &self.cursor)
            .finish()
    }
}

impl<'a> Exec<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        prog: &'a Compiled,
        rt: &'a mut Runtime,
        frame: &'a mut Frame,
        fx: &'a mut Effects,
        pkt: &'a [u8],
        payload: &'a [u8],
        stage: Stage,
    ) -> Exec<'a> {
        Exec {
            prog,
            rt,
            n: &mut frame.n[..],
            w: &mut frame.w[..],
            fx,
            pkt,
            cursor: 0,
            payload,
            out: BitWriter::default(),
            stage,
            exit: false,
            reject: None,
            halt: false,
            current_entry: None,
        }
    }

    /// Runs `f` on a context like this one over the narrow slots `n`
    /// (this context's own, which the native engine holds meanwhile), then
    /// keeps what `f` changed of the parser's and the control flow's state.
    pub(crate) fn with_slots<R>(&mut self, n: &mut [u64], f: impl FnOnce(&mut Exec<'_>) -> R) -> R {
        let mut ex = Exec {
            prog: self.prog,
            rt: &mut *self.rt,
            n,
            w: &mut *self.w,
            fx: &mut *self.fx,
            pkt: self.pkt,
            cursor: self.cursor,
            payload: self.payload,
            out: std::mem::take(&mut self.out),
            stage: self.stage,
            exit: self.exit,
            reject: self.reject,
            halt: self.halt,
            current_entry: self.current_entry,
        };
        let r = f(&mut ex);
        self.cursor = ex.cursor;
        self.out = std::mem::take(&mut ex.out);
        self.stage = ex.stage;
        self.exit = ex.exit;
        self.reject = ex.reject;
        self.halt = ex.halt;
        self.current_entry = ex.current_entry;
        r
    }

    #[inline]
    pub(crate) fn ld(&self, s: u32) -> u64 {
        self.n.get(s as usize).copied().unwrap_or(0)
    }

    #[inline]
    pub(crate) fn st(&mut self, s: u32, v: u64) {
        if let Some(x) = self.n.get_mut(s as usize) {
            *x = v;
        }
    }

    fn ldw(&self, s: u32) -> Bits {
        self.w
            .get(s as usize)
            .cloned()
            .unwrap_or_else(|| Bits::zero(BitType::BIT1))
    }

    fn stw(&mut self, s: u32, v: Bits) {
        if let Some(x) = self.w.get_mut(s as usize) {
            let ty = x.ty();
            *x = if v.ty() == ty { v } else { v.cast(ty) };
        }
    }

    /// The element base of a run-time stack access, if in bounds.
    #[inline]
    fn dyn_base(&mut self, d: &Dyn) -> Option<(u32, u32)> {
        let i = self.eval(&d.index);
        if i >= u64::from(d.count) {
            return None;
        }
        let i = i as u32;
        Some((d.base_n + i * d.stride_n, d.base_w + i * d.stride_w))
    }

    /// Runs the parser; returns the parser error code (0 when none).
    pub(crate) fn run_parser(&mut self) -> u64 {
        let prog = self.prog;
        if let Flow::Reject(e) = self.block(&prog.parser_init) {
            return e;
        }
        let mut state = 0usize;
        let mut steps = 0u32;
        let timeout = prog.error_code("ParserTimeout").unwrap_or(0);
        let no_match = prog.error_code("NoMatch").unwrap_or(0);
        loop {
            steps += 1;
            if steps > 100_000 {
                return timeout;
            }
            let Some(s) = prog.parser.get(state) else {
                return 0;
            };
            if let Flow::Reject(e) = self.block(&s.body) {
                return e;
            }
            let next = match &s.transition {
                Transition::Go(n) => *n,
                Transition::Select(keys, cases) => {
                    let mut vals = [0u64; 16];
                    let count = keys.len().min(16);
                    for (i, k) in keys.iter().take(16).enumerate() {
                        vals[i] = self.eval(k);
                    }
                    if let Some(e) = self.reject.take() {
                        return e;
                    }
                    let hit = cases.iter().find(|(ks, _)| {
                        ks.iter().zip(&vals[..count]).all(|(k, &v)| match k {
                            SelectKey::Any => true,
                            SelectKey::Masked(val, m) => v & m == *val,
                            SelectKey::Range(lo, hi) => *lo <= v && v <= *hi,
                        })
                    });
                    match hit {
                        Some((_, n)) => *n,
                        None => return no_match,
                    }
                }
            };
            match next {
                Next::Accept => return 0,
                Next::Reject => return self.ld(prog.std_meta.parser_error),
                Next::State(s) => state = s as usize,
            }
        }
    }

    /// Runs a control body.
    pub(crate) fn run_control(&mut self, stage: Stage, body: &[St]) {
        self.begin_control(stage);
        let _ = self.block(body);
    }

    /// Starts a control of `stage`: no `exit` or halt carried over from
    /// the control before it in the same context (every engine's start).
    #[inline]
    pub(crate) fn begin_control(&mut self, stage: Stage) {
        self.stage = stage;
        self.exit = false;
        self.halt = false;
    }

    pub(crate) fn block(&mut self, sts: &[St]) -> Flow {
        for s in sts {
            let f = self.stmt(s);
            if self.halt {
                if self.exit {
                    return Flow::Exit;
                }
                self.halt = false;
                if let Some(e) = self.reject.take() {
                    return Flow::Reject(e);
                }
            }
            if f != Flow::Normal {
                return f;
            }
        }
        Flow::Normal
    }

    fn run_loop(&mut self, l: &Loop) -> Flow {
        let mut iterations = 0;
        while self.eval(&l.cond) != 0 {
            if iterations == Loop::MAX_ITERATIONS {
                return self.endless_loop();
            }
            iterations += 1;
            match self.block(&l.body) {
                Flow::Normal | Flow::Continue => {}
                Flow::Break => break,
                f => return f,
            }
            let f = self.block(&l.update);
            if f != Flow::Normal {
                return f;
            }
        }
        Flow::Normal
    }

    /// A loop ran [`Loop::MAX_ITERATIONS`] times: the packet is dropped
    /// as after a failed `assert`.
    pub(crate) fn endless_loop(&mut self) -> Flow {
        self.fx.fault = Some(format!(
            "a loop ran {} times without ending",
            Loop::MAX_ITERATIONS
        ));
        self.exit = true;
        self.halt = true;
        Flow::Exit
    }

    pub(crate) fn stmt(&mut self, s: &St) -> Flow {
        match s {
            St::Set(slot, e) => {
                let v = self.eval(e);
                self.st(*slot, v);
            }
            St::SetW(slot, e) => {
                let v = self.eval_w(e);
                self.stw(*slot, v);
            }
            St::SetDyn(d, off, e) => {
                let v = self.eval(e);
                if let Some((bn, _)) = self.dyn_base(d) {
                    self.st(bn + off, v);
                }
            }
            St::SetDynW(d, off, e) => {
                let v = self.eval_w(e);
                if let Some((_, bw)) = self.dyn_base(d) {
                    self.stw(bw + off, v);
                }
            }
            St::If(c, a, b) => {
                return if self.eval(c) != 0 {
                    self.block(a)
                } else {
                    self.block(b)
                };
            }
            St::Block(b) => return self.block(b),
            St::Switch(sel, arms, default) => {
                let v = self.eval(sel);
                for (vals, body) in arms {
                    if vals.contains(&v) {
                        return self.block(body);
                    }
                }
                return self.block(default);
            }
            St::Apply(t) => {
                self.apply_table(*t);
            }
            St::SwitchAction(t, bodies, default) => {
                let (_, pos) = self.apply_table(*t);
                if self.exit {
                    return Flow::Exit;
                }
                let body = pos.and_then(|p| bodies.get(p)).and_then(Option::as_ref);
                return match body {
                    Some(b) => self.block(b),
                    None => self.block(default),
                };
            }
            St::Call(call) => {
                let f = self.block(&call.0);
                let exiting = std::mem::replace(&mut self.exit, false);
                self.halt = self.reject.is_some();
                let g = self.block(&call.1);
                self.exit |= exiting;
                self.halt = self.exit || self.reject.is_some();
                return if f == Flow::Normal { g } else { f };
            }
            St::RunAction(a) => {
                let prog = self.prog;
                if let Some(act) = prog.actions.get(*a as usize) {
                    let f = self.block(&act.body);
                    if f != Flow::Return {
                        return f;
                    }
                }
            }
            St::RunBody(b) => {
                let prog = self.prog;
                if let Some(body) = prog.bodies.get(*b as usize) {
                    let f = self.block(body);
                    if f != Flow::Return {
                        return f;
                    }
                }
            }
            St::Exit => {
                self.exit = true;
                self.halt = true;
                return Flow::Exit;
            }
            St::Return => return Flow::Return,
            St::Loop(l) => return self.run_loop(l),
            St::Break => return Flow::Break,
            St::Continue => return Flow::Continue,
            St::Extract(h) => return self.extract(h),
            St::ExtractVar(h, bits) => {
                let bits = self.eval(bits);
                return self.extract_var(h, bits);
            }
            St::Advance(e) => {
                let bits = self.eval(e) as usize;
                let end = self.cursor.saturating_add(bits);
                if end > self.pkt.len() * 8 {
                    return Flow::Reject(self.prog.error_code("PacketTooShort").unwrap_or(0));
                }
                self.cursor = end;
            }
            St::Verify(c, e) => {
                if self.eval(c) == 0 {
                    let code = self.eval(e);
                    return Flow::Reject(code);
                }
            }
            St::Emit(refs) => {
                for h in refs {
                    self.emit(h);
                }
            }
            St::StackShift(s) => self.stack_shift(s),
            St::Copy(c) => {
                let (nd, ns, nl) = (c.n_dst as usize, c.n_src as usize, c.n_len as usize);
                if ns + nl <= self.n.len() && nd + nl <= self.n.len() {
                    self.n.copy_within(ns..ns + nl, nd);
                }
                for i in 0..c.w_len {
                    let (d, s) = if c.w_dst <= c.w_src {
                        (c.w_dst + i, c.w_src + i)
                    } else {
                        (c.w_dst + c.w_len - 1 - i, c.w_src + c.w_len - 1 - i)
                    };
                    let v = self.ldw(s);
                    self.stw(d, v);
                }
            }
            St::Extern(call) => return self.extern_call(call),
            St::Mov(d, src) => {
                let v = self.ld(*src);
                self.st(*d, v);
            }
            St::BinSlots(op, w, d, a, b) => {
                let v = eval_nop(*op, *w, self.ld(*a), self.ld(*b));
                self.st(*d, v);
            }
            St::BinSlotConst(op, w, d, a, c) => {
                let v = eval_nop(*op, *w, self.ld(*a), *c);
                self.st(*d, v);
            }
            St::RegReadSlot {
                reg,
                dst,
                width,
                index,
            } => {
                let i = self.ld(*index) as usize;
                let v = match self.rt.registers.get(*reg as usize) {
                    Some(RegisterCells::Narrow(cells)) => cells.get(i).copied().unwrap_or(0),
                    _ => 0,
                };
                self.st(*dst, v & mask(*width));
            }
            St::RegRmwSlot {
                reg,
                index,
                tmp,
                op,
                width,
                operand,
                tmp_left,
            } => {
                let i = self.ld(*index) as usize;
                let x = self.ld(*operand);
                let cell = match self.rt.registers.get_mut(*reg as usize) {
                    Some(RegisterCells::Narrow(cells)) => cells.get_mut(i),
                    _ => None,
                };
                let v = match cell {
                    Some(c) => {
                        let old = *c & mask(*width);
                        let v = match (op, tmp_left) {
                            (NOp::Add, _) => old.wrapping_add(x) & mask(*width),
                            (_, true) => eval_nop(*op, *width, old, x),
                            (_, false) => eval_nop(*op, *width, x, old),
                        };
                        *c = v;
                        v
                    }
                    // out of range: reads 0, the write is dropped
                    None => {
                        if *tmp_left {
                            eval_nop(*op, *width, 0, x)
                        } else {
                            eval_nop(*op, *width, x, 0)
                        }
                    }
                };
                self.st(*tmp, v);
            }
            St::RegWriteSlot { reg, index, value } => {
                let i = self.ld(*index) as usize;
                let v = self.ld(*value);
                if let Some(RegisterCells::Narrow(cells)) = self.rt.registers.get_mut(*reg as usize)
                    && let Some(c) = cells.get_mut(i)
                {
                    *c = v;
                }
            }
        }
        Flow::Normal
    }

    #[inline]
    fn header_base(&mut self, h: &HeaderRef) -> Result<(u32, u32, Option<u32>), ()> {
        match &h.stack {
            None => Ok((h.base_n, h.base_w, None)),
            Some(s) => {
                let next = self.ld(s.next_index);
                let i = match &s.which {
                    StackWhich::Next => next,
                    StackWhich::Last => next.wrapping_sub(1),
                    StackWhich::Index(e) => self.eval(e),
                };
                if i >= u64::from(s.count) {
                    return Err(());
                }
                let i = i as u32;
                let advance = matches!(s.which, StackWhich::Next).then_some(s.next_index);
                Ok((
                    s.base_n + i * s.stride_n + h.base_n,
                    s.base_w + i * s.stride_w + h.base_w,
                    advance,
                ))
            }
        }
    }

    pub(crate) fn extract(&mut self, h: &HeaderRef) -> Flow {
        let Ok((bn, bw, advance)) = self.header_base(h) else {
            return Flow::Reject(self.prog.error_code("StackOutOfBounds").unwrap_or(0));
        };
        if self.cursor + h.bits as usize > self.pkt.len() * 8 {
            return Flow::Reject(self.prog.error_code("PacketTooShort").unwrap_or(0));
        }
        let valid = bn + (h.valid - h.base_n);
        let start = self.cursor;
        let pkt = self.pkt;
        let mut has_wide = false;
        {
            let n = &mut *self.n;
            let bn = bn as usize;
            for f in h.fields.iter() {
                has_wide |= f.wide;
                let v = read_bits(pkt, start + f.at as usize, f.width);
                if !f.wide
                    && let Some(x) = n.get_mut(bn + f.offset as usize)
                {
                    *x = v;
                }
            }
        }
        if has_wide {
            for f in h.fields.iter().filter(|f| f.wide) {
                let ty = BitType::new(f.width, f.signed).unwrap_or(BitType::BIT1);
                let v = Bits::read_bits(ty, pkt, start + f.at as usize)
                    .unwrap_or_else(|_| Bits::zero(ty));
                self.stw(bw + f.offset, v);
            }
        }
        let at = start + h.bits as usize;
        self.cursor = at;
        self.st(valid, 1);
        if let Some(ni) = advance {
            let v = self.ld(ni) + 1;
            self.st(ni, v);
        }
        Flow::Normal
    }

    /// `extract(hdr, bits)` as BMv2 does it: `PacketTooShort` when the
    /// packet has fewer than the fixed fields and `bits` left, then
    /// `HeaderTooShort` when `bits` is more than the varbit's W; else the
    /// fixed fields, then `bits` bits into the varbit.
    pub(crate) fn extract_var(&mut self, h: &HeaderRef, bits: u64) -> Flow {
        let Some(var) = h.fields.iter().find(|f| f.varbit_len.is_some()) else {
            return self.extract(h);
        };
        let left = (self.pkt.len() * 8).saturating_sub(self.cursor) as u64;
        if u64::from(h.bits) + bits > left {
            return Flow::Reject(self.prog.error_code("PacketTooShort").unwrap_or(0));
        }
        if bits > u64::from(var.width) {
            return Flow::Reject(self.prog.error_code("HeaderTooShort").unwrap_or(0));
        }
        let Ok((bn, bw, _)) = self.header_base(h) else {
            return Flow::Reject(self.prog.error_code("StackOutOfBounds").unwrap_or(0));
        };
        let f = self.extract(h);
        if f != Flow::Normal {
            return f;
        }
        let ty = BitType::new(var.width, false).unwrap_or(BitType::BIT1);
        let value = match BitType::new(bits as u32, false) {
            Ok(read) if bits > 0 => Bits::read_bits(read, self.pkt, self.cursor)
                .map_or_else(|_| Bits::zero(ty), |v| v.cast(ty)),
            _ => Bits::zero(ty),
        };
        self.stw(bw + var.offset, value);
        if let Some(len) = var.varbit_len {
            self.st(bn + len, bits);
        }
        self.cursor += bits as usize;
        Flow::Normal
    }

    pub(crate) fn emit(&mut self, h: &HeaderRef) {
        let Ok((bn, bw, _)) = self.header_base(h) else {
            return;
        };
        if self.ld(bn + (h.valid - h.base_n)) == 0 {
            return;
        }
        let n = &self.n[..];
        let w = &self.w[..];
        let out = &mut self.out;
        for f in h.fields.iter() {
            if let Some(len) = f.varbit_len {
                // the current length's low bits of the value
                let len = n.get((bn + len) as usize).copied().unwrap_or(0);
                if let (Some(v), Ok(t)) = (
                    w.get((bw + f.offset) as usize),
                    BitType::new(len.min(u64::from(f.width)) as u32, false),
                ) && len > 0
                {
                    out.push_bits(&v.cast(t));
                }
            } else if f.wide {
                if let Some(v) = w.get((bw + f.offset) as usize) {
                    out.push_bits(v);
                }
            } else {
                out.push(
                    n.get((bn + f.offset) as usize).copied().unwrap_or(0),
                    f.width,
                );
            }
        }
    }

    fn stack_shift(&mut self, s: &StackShift) {
        let count = i64::from(s.count);
        let by = s.by.clamp(-count, count);
        let copy_elem = |ex: &mut Self, dst: u32, src: u32| {
            for k in 0..s.stride_n {
                let v = ex.ld(s.base_n + src * s.stride_n + k);
                ex.st(s.base_n + dst * s.stride_n + k, v);
            }
            for k in 0..s.stride_w {
                let v = ex.ldw(s.base_w + src * s.stride_w + k);
                ex.stw(s.base_w + dst * s.stride_w + k, v);
            }
        };
        let invalidate =
            |ex: &mut Self, i: u32| ex.st(s.base_n + i * s.stride_n + s.valid_offset, 0);
        if by > 0 {
            let by = by as u32;
            for i in (by..s.count).rev() {
                copy_elem(self, i, i - by);
            }
            for i in 0..by.min(s.count) {
                invalidate(self, i);
            }
            let next = (self.ld(s.next_index) + u64::from(by)).min(u64::from(s.count));
            self.st(s.next_index, next);
        } else if by < 0 {
            let by = (-by) as u32;
            for i in 0..s.count.saturating_sub(by) {
                copy_elem(self, i, i + by);
            }
            for i in s.count.saturating_sub(by)..s.count {
                invalidate(self, i);
            }
            let next = self.ld(s.next_index).saturating_sub(u64::from(by));
            self.st(s.next_index, next);
        }
    }

    /// Applies a table: whether it hit, and the position of the action run.
    pub(crate) fn apply_table(&mut self, t: u32) -> (bool, Option<usize>) {
        let prog = self.prog;
        let Some(table) = prog.tables.get(t as usize) else {
            return (false, None);
        };
        let mut small = [0u128; 8];
        let mut large = Vec::new();
        let nkeys = table.keys.len();
        let keys: &mut [u128] = if nkeys <= small.len() {
            &mut small[..nkeys]
        } else {
            large.resize(nkeys, 0);
            &mut large
        };
        for (slot, k) in keys.iter_mut().zip(&table.keys) {
            *slot = if k.width <= 64 {
                u128::from(self.eval(&k.ex))
            } else {
                self.eval_w(&k.ex).low_u128()
            };
        }
        let len = self.ld(prog.std_meta.packet_length);
        let Some(state) = self.rt.tables.get_mut(t as usize) else {
            return (false, None);
        };
        let found = state.lookup(keys);
        let (hit, pos) = match found {
            Some(h) => {
                let Some(e) = state.get_mut(h) else {
                    return (false, None);
                };
                e.counter.0 += 1;
                e.counter.1 += len;
                let pos = e.entry.action;
                let Some(ta) = table.actions.get(pos) else {
                    return (true, None);
                };
                let Some(act) = prog.actions.get(ta.action as usize) else {
                    return (true, None);
                };
                let cp = act.params.iter().filter(|p| p.control_plane);
                for (p, a) in cp.zip(&e.entry.args) {
                    match a {
                        ArgValue::N(v) => {
                            if let Some(x) = self.n.get_mut(p.slot as usize) {
                                *x = *v;
                            }
                        }
                        ArgValue::W(b) => {
                            if let Some(x) = self.w.get_mut(p.slot as usize) {
                                *x = b.clone();
                            }
                        }
                    }
                }
                self.current_entry = Some((t, h));
                (true, Some(pos))
            }
            None => match &state.default_action {
                Some((pos, args)) => {
                    let pos = *pos;
                    if let Some(act) = table
                        .actions
                        .get(pos)
                        .and_then(|ta| prog.actions.get(ta.action as usize))
                    {
                        let cp = act.params.iter().filter(|p| p.control_plane);
                        for (p, a) in cp.zip(args) {
                            match a {
                                ArgValue::N(v) => {
                                    if let Some(x) = self.n.get_mut(p.slot as usize) {
                                        *x = *v;
                                    }
                                }
                                ArgValue::W(b) => {
                                    if let Some(x) = self.w.get_mut(p.slot as usize) {
                                        *x = b.clone();
                                    }
                                }
                            }
                        }
                    }
                    self.current_entry = None;
                    (false, Some(pos))
                }
                None => (false, None),
            },
        };
        if let Some(pos) = pos
            && let Some(act) = table
                .actions
                .get(pos)
                .and_then(|ta| prog.actions.get(ta.action as usize))
        {
            let _ = self.block(&act.body);
        }
        self.current_entry = None;
        (hit, pos)
    }

    pub(crate) fn store_target(&mut self, t: &Target, v: u64, wide: Option<Bits>) {
        match t {
            Target::N(s, w) => self.st(*s, v & mask(*w)),
            Target::W(s, ty) => {
                let b = wide.unwrap_or_else(|| Bits::from_u64(*ty, v));
                self.stw(*s, b);
            }
            Target::DynN(d, off, w) => {
                if let Some((bn, _)) = self.dyn_base(d) {
                    self.st(bn + off, v & mask(*w));
                }
            }
            Target::DynW(d, off, ty) => {
                let b = wide.unwrap_or_else(|| Bits::from_u64(*ty, v));
                if let Some((_, bw)) = self.dyn_base(d) {
                    self.stw(bw + off, b);
                }
            }
        }
    }

    fn target_type(t: &Target) -> BitType {
        match t {
            Target::N(_, w) | Target::DynN(_, _, w) => {
                BitType::unsigned(*w).unwrap_or(BitType::BIT1)
            }
            Target::W(_, ty) | Target::DynW(_, _, ty) => *ty,
        }
    }

    fn pack_leaves(&mut self, data: &[Leaf]) -> Vec<u8> {
        let mut buf = std::mem::take(&mut self.rt.scratch);
        buf.clear();
        let mut w = BitWriter::with_buffer(buf);
        // consecutive fields of one header share its validity bit
        let mut last_valid: Option<(u32, bool)> = None;
        for l in data {
            if let Some(v) = &l.valid {
                let ok = match (v, last_valid) {
                    (Ex::Load(s), Some((ls, ok))) if *s == ls => ok,
                    (Ex::Load(s), _) => {
                        let ok = self.ld(*s) != 0;
                        last_valid = Some((*s, ok));
                        ok
                    }
                    (v, _) => self.eval(v) != 0,
                };
                if !ok {
                    continue;
                }
            }
            if l.ty.width() > 64 {
                let b = self.eval_w(&l.ex);
                w.push_bits(&b);
            } else {
                let v = self.eval(&l.ex);
                w.push(v, l.ty.width());
            }
        }
        w.finish()
    }

    fn leaf_values(&mut self, data: &[Leaf]) -> Vec<Bits> {
        data.iter()
            .map(|l| {
                if l.ty.width() > 64 {
                    self.eval_w(&l.ex)
                } else {
                    Bits::from_u64(l.ty, self.eval(&l.ex))
                }
            })
            .collect()
    }

    pub(crate) fn extern_call(&mut self, c: &ExternCall) -> Flow {
        let len = self.ld(self.prog.std_meta.packet_length);
        match c {
            ExternCall::RegisterRead { reg, dst, index } => {
                let i = self.eval(index) as usize;
                match self.rt.registers.get(*reg as usize) {
                    Some(RegisterCells::Narrow(cells)) => {
                        let v = cells.get(i).copied().unwrap_or(0);
                        self.store_target(dst, v, None);
                    }
                    Some(RegisterCells::Wide(cells)) => {
                        let v = cells.get(i).cloned();
                        let low = v.as_ref().map_or(0, Bits::low_u64);
                        self.store_target(dst, low, v);
                    }
                    None => {}
                }
            }
            ExternCall::RegisterWrite { reg, index, value } => {
                let i = self.eval(index) as usize;
                let wide = matches!(
                    self.rt.registers.get(*reg as usize),
                    Some(RegisterCells::Wide(_))
                );
                if wide {
                    let v = self.eval_w(value);
                    if let Some(RegisterCells::Wide(cells)) =
                        self.rt.registers.get_mut(*reg as usize)
                        && let Some(c) = cells.get_mut(i)
                    {
                        *c = v.cast(c.ty());
                    }
                } else {
                    let v = self.eval(value);
                    if let Some(RegisterCells::Narrow(cells)) =
                        self.rt.registers.get_mut(*reg as usize)
                        && let Some(c) = cells.get_mut(i)
                    {
                        *c = v;
                    }
                }
            }
            ExternCall::Count { counter, index } => {
                let i = self.eval(index) as usize;
                if let Some(c) = self
                    .rt
                    .counters
                    .get_mut(*counter as usize)
                    .and_then(|c| c.get_mut(i))
                {
                    c.0 += 1;
                    c.1 += len;
                }
            }
            ExternCall::ExecuteMeter { meter, index, dst } => {
                let i = self.eval(index) as usize;
                let units = if self
                    .prog
                    .meters
                    .get(*meter as usize)
                    .is_some_and(|m| m.bytes)
                {
                    len
                } else {
                    1
                };
                let now = self.rt.now_us;
                let color = self
                    .rt
                    .meters
                    .get_mut(*meter as usize)
                    .and_then(|m| m.get_mut(i))
                    .map_or(GREEN, |cell| cell.execute(units, now));
                self.store_target(dst, color, None);
            }
            ExternCall::DirectMeterRead { meter, dst } => {
                let mut color = GREEN;
                let owner = self.prog.meters.get(*meter as usize).and_then(|m| m.table);
                let units = if self
                    .prog
                    .meters
                    .get(*meter as usize)
                    .is_some_and(|m| m.bytes)
                {
                    len
                } else {
                    1
                };
                let now = self.rt.now_us;
                if let Some((t, h)) = self.current_entry
                    && owner == Some(t)
                    && let Some(e) = self
                        .rt
                        .tables
                        .get_mut(t as usize)
                        .and_then(|s| s.get_mut(h))
                {
                    color = e.meter.execute(units, now);
                }
                self.store_target(dst, color, None);
            }
            ExternCall::Hash {
                algo,
                dst,
                base,
                base_ty,
                data,
                max,
                max_ty,
            } => {
                let bytes = self.pack_leaves(data);
                let h = algo.compute(&bytes).unwrap_or(0);
                self.rt.scratch = bytes;
                let base = if base_ty.width() > 64 {
                    self.eval_w(base)
                } else {
                    Bits::from_u64(*base_ty, self.eval(base))
                };
                let max = if max_ty.width() > 64 {
                    self.eval_w(max)
                } else {
                    Bits::from_u64(*max_ty, self.eval(max))
                };
                let ty = Self::target_type(dst);
                let r = crate::exec::hash::v1model_hash_result(h, &base, &max, ty);
                let low = r.low_u64();
                self.store_target(dst, low, Some(r));
            }
            ExternCall::Random { dst, lo, hi } => {
                let lo = self.eval(lo);
                let hi = self.eval(hi);
                let r = self.rt.next_random();
                let v = if hi <= lo {
                    lo
                } else {
                    let span = hi - lo;
                    if span == u64::MAX {
                        r
                    } else {
                        lo + r % (span + 1)
                    }
                };
                self.store_target(dst, v, None);
            }
            ExternCall::VerifyChecksum {
                cond,
                data,
                checksum,
                algo,
                with_payload,
            } => {
                if self.eval(cond) != 0 {
                    let mut bytes = self.pack_leaves(data);
                    if *with_payload {
                        bytes.extend_from_slice(self.payload);
                    }
                    let h = algo.compute(&bytes).unwrap_or(0);
                    self.rt.scratch = bytes;
                    let want = self.eval(checksum);
                    let w = algo.checksum_width();
                    if h & mask(w) != want {
                        self.st(self.prog.std_meta.checksum_error, 1);
                    }
                }
            }
            ExternCall::UpdateChecksum {
                cond,
                data,
                dst,
                algo,
                with_payload,
            } => {
                if self.eval(cond) != 0 {
                    let mut bytes = self.pack_leaves(data);
                    if *with_payload {
                        bytes.extend_from_slice(self.payload);
                    }
                    let h = algo.compute(&bytes).unwrap_or(0);
                    self.rt.scratch = bytes;
                    self.store_target(dst, h, None);
                }
            }
            ExternCall::Clone {
                e2e,
                session,
                field_list,
            } => {
                let ok = match self.stage {
                    Stage::Ingress => !e2e,
                    Stage::Egress => *e2e,
                    _ => false,
                };
                let s = self.eval(session) as u32;
                if ok {
                    self.fx.clone = Some((s, *field_list));
                } else {
                    self.rt.log.push(format!(
                        "clone({}) ignored outside the {} pipeline",
                        if *e2e { "E2E" } else { "I2E" },
                        if *e2e { "egress" } else { "ingress" }
                    ));
                }
            }
            ExternCall::Resubmit(i) => {
                if self.stage == Stage::Ingress {
                    self.fx.resubmit = Some(*i);
                }
            }
            ExternCall::Recirculate(i) => {
                if self.stage == Stage::Egress {
                    self.fx.recirculate = Some(*i);
                }
            }
            ExternCall::Truncate(e) => {
                let v = self.eval(e) as u32;
                self.fx.truncate = Some(v);
            }
            ExternCall::Digest { receiver, data } => {
                let r = self.eval(receiver) as u32;
                let vals = self.leaf_values(data);
                self.fx.digests.push((r, vals));
            }
            ExternCall::Assert { cond, location } => {
                if self.eval(cond) == 0 {
                    self.fx.fault = Some(format!("assertion failed at {location}"));
                    self.exit = true;
                    self.halt = true;
                    return Flow::Exit;
                }
            }
            ExternCall::Log { message, data } => {
                let vals = self.leaf_values(data);
                let mut text = String::new();
                let mut it = vals.iter();
                let mut rest = message.as_str();
                while let Some(p) = rest.find("{}") {
                    text.push_str(&rest[..p]);
                    match it.next() {
                        Some(v) => text.push_str(&v.to_string()),
                        None => text.push_str("{}"),
                    }
                    rest = &rest[p + 2..];
                }
                text.push_str(rest);
                if self.rt.log.len() >= 1000 {
                    self.rt.log.remove(0);
                }
                self.rt.log.push(text);
            }
        }
        Flow::Normal
    }

    /// Evaluates a narrow expression, with loads and constants inline.
    #[inline(always)]
    pub(crate) fn eval(&mut self, e: &Ex) -> u64 {
        match e {
            Ex::Load(s) => self.ld(*s),
            Ex::Const(c) => *c,
            e => self.eval_slow(e),
        }
    }

    /// Evaluates a narrow expression.
    #[inline(never)]
    fn eval_slow(&mut self, e: &Ex) -> u64 {
        match e {
            Ex::Const(c) => *c,
            Ex::Load(s) => self.ld(*s),
            Ex::LoadDyn(d, off) => match self.dyn_base(d) {
                Some((bn, _)) => self.ld(bn + off),
                None => 0,
            },
            Ex::Bin(op, w, ab) => match op {
                NOp::LAnd => u64::from(self.eval(&ab.0) != 0 && self.eval(&ab.1) != 0),
                NOp::LOr => u64::from(self.eval(&ab.0) != 0 || self.eval(&ab.1) != 0),
                _ => {
                    let a = self.eval(&ab.0);
                    let b = self.eval(&ab.1);
                    eval_nop(*op, *w, a, b)
                }
            },
            Ex::BitNot(w, a) => !self.eval(a) & mask(*w),
            Ex::Neg(w, a) => self.eval(a).wrapping_neg() & mask(*w),
            Ex::Not(a) => u64::from(self.eval(a) == 0),
            Ex::Mask(w, a) => self.eval(a) & mask(*w),
            Ex::SExt(from, to, a) => sext(self.eval(a), *from) & mask(*to),
            Ex::Slice(hi, lo, a) => (self.eval(a) >> lo) & mask(hi - lo + 1),
            Ex::Concat(bw, ab) => {
                let a = self.eval(&ab.0);
                let b = self.eval(&ab.1);
                if *bw >= 64 { b } else { (a << bw) | b }
            }
            Ex::Cond(abc) => {
                if self.eval(&abc.0) != 0 {
                    self.eval(&abc.1)
                } else {
                    self.eval(&abc.2)
                }
            }
            Ex::Seq(se) => {
                let f = self.block(&se.0);
                if let Flow::Reject(e) = f {
                    self.reject = Some(e);
                    self.halt = true;
                }
                self.eval(&se.1)
            }
            Ex::TableHit(t) => u64::from(self.apply_table(*t).0),
            Ex::TableMiss(t) => u64::from(!self.apply_table(*t).0),
            Ex::Lookahead(w) => {
                if self.cursor + *w as usize > self.pkt.len() * 8 {
                    self.reject = Some(self.prog.error_code("PacketTooShort").unwrap_or(0));
                    self.halt = true;
                    return 0;
                }
                read_bits(self.pkt, self.cursor, *w)
            }
            Ex::PacketLength => self.pkt.len() as u64,
            Ex::ToNarrow(a) => self.eval_w(a).low_u64(),
            other => self.eval_w(other).low_u64(),
        }
    }

    /// Evaluates a wide expression.
    pub(crate) fn eval_w(&mut self, e: &Ex) -> Bits {
        match e {
            Ex::ConstW(b) => b.clone(),
            Ex::LoadW(s) => self.ldw(*s),
            Ex::LoadDynW(d, off, ty) => match self.dyn_base(d) {
                Some((_, bw)) => self.ldw(bw + off),
                None => Bits::zero(*ty),
            },
            Ex::ToWide(ty, a) => {
                let v = self.eval(a);
                if ty.is_signed() {
                    Bits::from_i128(*ty, i128::from(v as i64))
                } else {
                    Bits::from_u64(*ty, v)
                }
            }
            Ex::BinW(op, ab) => {
                let a = self.eval_w(&ab.0);
                let b = self.eval_w(&ab.1);
                match op {
                    WOp::Add => a.wrapping_add(&b),
                    WOp::Sub => a.wrapping_sub(&b),
                    WOp::Mul => a.wrapping_mul(&b),
                    WOp::Div => a.checked_div(&b).unwrap_or_else(|_| Bits::zero(a.ty())),
                    WOp::Mod => a.checked_rem(&b).unwrap_or_else(|_| Bits::zero(a.ty())),
                    WOp::And => a.and(&b),
                    WOp::Or => a.or(&b),
                    WOp::Xor => a.xor(&b),
                    WOp::Shl => a.shl(b.low_u64()),
                    WOp::Shr => a.shr(b.low_u64()),
                    WOp::SatAdd => a.saturating_add(&b),
                    WOp::SatSub => a.saturating_sub(&b),
                }
            }
            Ex::BitNotW(a) => self.eval_w(a).not(),
            Ex::NegW(a) => self.eval_w(a).wrapping_neg(),
            Ex::CastW(ty, a) => self.eval_w(a).cast(*ty),
            Ex::SliceW(hi, lo, a) => {
                let v = self.eval_w(a);
                v.slice(*hi, *lo).unwrap_or_else(|_| {
                    Bits::zero(BitType::unsigned(hi - lo + 1).unwrap_or(BitType::BIT1))
                })
            }
            Ex::ConcatW(ab) => {
                let a = self.eval_w(&ab.0);
                let b = self.eval_w(&ab.1);
                a.concat(&b).unwrap_or(a)
            }
            Ex::CondW(abc) => {
                if self.eval(&abc.0) != 0 {
                    self.eval_w(&abc.1)
                } else {
                    self.eval_w(&abc.2)
                }
            }
            Ex::LookaheadW(ty) => {
                if self.cursor + ty.width() as usize > self.pkt.len() * 8 {
                    self.reject = Some(self.prog.error_code("PacketTooShort").unwrap_or(0));
                    self.halt = true;
                    return Bits::zero(*ty);
                }
                Bits::read_bits(*ty, self.pkt, self.cursor).unwrap_or_else(|_| Bits::zero(*ty))
            }
            Ex::SeqW(se) => {
                let f = self.block(&se.0);
                if let Flow::Reject(e) = f {
                    self.reject = Some(e);
                    self.halt = true;
                }
                self.eval_w(&se.1)
            }
            Ex::CmpW(c, ab) => {
                let a = self.eval_w(&ab.0);
                let b = self.eval_w(&ab.1);
                let o = a.compare(&b);
                let r = match c {
                    Cmp::Eq => o.is_eq(),
                    Cmp::Ne => o.is_ne(),
                    Cmp::Lt => o.is_lt(),
                    Cmp::Le => o.is_le(),
                    Cmp::Gt => o.is_gt(),
                    Cmp::Ge => o.is_ge(),
                };
                Bits::from_bool(r)
            }
            narrow => {
                let v = self.eval(narrow);
                Bits::from_u64(BitType::unsigned(64).unwrap_or(BitType::BIT1), v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `push_bytes` writes what pushing each byte writes, after any number
    /// of pending bits (0 to 63, aligned or not) and before more fields.
    #[test]
    fn push_bytes_is_push_of_each_byte() {
        let bytes: Vec<u8> = (0..37u8).map(|i| i.wrapping_mul(73) ^ 0x5a).collect();
        for pending in 0..64u32 {
            let lead = 0x1234_5678_9abc_def1u64 & mask(pending);
            let (mut a, mut b) = (BitWriter::default(), BitWriter::default());
            for w in [&mut a, &mut b] {
                w.push(lead, pending);
            }
            a.push_bytes(&bytes);
            for &x in &bytes {
                b.push(u64::from(x), 8);
            }
            for w in [&mut a, &mut b] {
                w.push(0b101, 3);
            }
            assert_eq!(a.finish(), b.finish(), "{pending} pending bits");
        }
    }

    /// Naive reference: a vector of bits.
    fn bits_of(fields: &[(u64, u32)]) -> Vec<bool> {
        let mut out = Vec::new();
        for &(v, w) in fields {
            for i in (0..w).rev() {
                out.push((v >> i) & 1 == 1);
            }
        }
        out
    }

    #[test]
    fn bit_writer_and_reader_agree_with_a_naive_model() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..500 {
            let count = (next() % 12) as usize + 1;
            let fields: Vec<(u64, u32)> = (0..count)
                .map(|_| {
                    let w = (next() % 65) as u32;
                    (next() & mask(w), w)
                })
                .collect();
            let mut w = BitWriter::default();
            for &(v, width) in &fields {
                w.push(v, width);
            }
            let bytes = w.finish();
            let want = bits_of(&fields);
            assert_eq!(bytes.len(), want.len().div_ceil(8));
            for (i, bit) in want.iter().enumerate() {
                assert_eq!((bytes[i / 8] >> (7 - i % 8)) & 1 == 1, *bit);
            }
            let mut at = 0usize;
            for &(v, width) in &fields {
                assert_eq!(read_bits(&bytes, at, width), v, "at {at} width {width}");
                at += width as usize;
            }
        }
    }

    #[test]
    fn narrow_operators_follow_p4() {
        assert_eq!(eval_nop(NOp::Add, 8, 0xff, 2), 1);
        assert_eq!(eval_nop(NOp::Sub, 8, 0, 1), 0xff);
        assert_eq!(eval_nop(NOp::SatAddU, 8, 0xf0, 0x20), 0xff);
        assert_eq!(eval_nop(NOp::SatSubU, 8, 0x10, 0x20), 0);
        // int<8>: 0x70 |+| 0x20 saturates at 0x7f; 0x80 |-| 1 at 0x80
        assert_eq!(eval_nop(NOp::SatAddS, 8, 0x70, 0x20), 0x7f);
        assert_eq!(eval_nop(NOp::SatSubS, 8, 0x80, 1), 0x80);
        assert_eq!(eval_nop(NOp::Sar, 8, 0xf0, 2), 0xfc);
        assert_eq!(eval_nop(NOp::Shl, 8, 0x81, 1), 0x02);
        assert_eq!(eval_nop(NOp::Shl, 8, 1, 8), 0);
        assert_eq!(eval_nop(NOp::Shr, 64, u64::MAX, 64), 0);
        assert_eq!(eval_nop(NOp::LtS, 8, 0xff, 0), 1);
        assert_eq!(eval_nop(NOp::LtU, 8, 0xff, 0), 0);
        assert_eq!(eval_nop(NOp::Div, 8, 7, 0), 0);
        assert_eq!(eval_nop(NOp::Add, 64, u64::MAX, 1), 0);
    }

    #[test]
    fn meters_color_by_rate() {
        let mut m = MeterCell::default();
        assert_eq!(m.execute(100, 0), GREEN);
        // committed 1 unit/us burst 2, peak 2 units/us burst 4
        m.set_rates([(1.0, 2), (2.0, 4)], 0);
        assert_eq!(m.execute(2, 0), GREEN);
        assert_eq!(m.execute(2, 0), YELLOW);
        assert_eq!(m.execute(1, 0), RED);
        assert_eq!(m.execute(2, 10), GREEN);
    }
}
