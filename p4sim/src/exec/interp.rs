//! The interpreter: runs [`crate::ir`] statements over one packet's slots.
//!
//! `Exec` borrows the compiled program, the switch's run-time state
//! (tables, registers, counters, meters) and the packet's frame, and runs
//! one pipeline stage. Narrow values are `u64`s masked to their width;
//! wide ones are [`Bits`]. Nothing here allocates per field access.
//! What it runs on, the other engines run on too: the state in
//! [`crate::exec::state`] and [`crate::exec::cells`], and the narrow
//! arithmetic of `exec::narrow`.

use crate::exec::bits::{BitType, Bits};
use crate::exec::narrow::{BitWriter, eval_nop, mask, read_bits, sext};
use crate::exec::state::Stage;
use crate::ir::*;

// Their paths from before they moved to `cells` and `state`, below every
// engine.
pub use crate::exec::cells::{GREEN, MeterCell, RED, RegisterCells, YELLOW};
pub use crate::exec::state::{Effects, Flow, Frame, Runtime};

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
                if !bits.is_multiple_of(8) {
                    return Flow::Reject(
                        self.prog.error_code("ParserInvalidArgument").unwrap_or(0),
                    );
                }
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

    /// `extract(hdr, bits)` as BMv2 does it: `ParserInvalidArgument` when
    /// `bits` is not whole bytes, then `PacketTooShort` when the packet has
    /// fewer than the fixed fields and `bits` left, then `HeaderTooShort`
    /// when `bits` is more than the varbit's W; else the fixed fields, then
    /// `bits` bits into the varbit.
    pub(crate) fn extract_var(&mut self, h: &HeaderRef, bits: u64) -> Flow {
        let Some(var) = h.fields.iter().find(|f| f.varbit_len.is_some()) else {
            return self.extract(h);
        };
        if !bits.is_multiple_of(8) {
            return Flow::Reject(self.prog.error_code("ParserInvalidArgument").unwrap_or(0));
        }
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
            if let Some(b) = self.varbit_leaf(l) {
                if let Some(b) = b {
                    w.push_bits(&b);
                }
            } else if l.ty.width() > 64 {
                let b = self.eval_w(&l.ex);
                w.push_bits(&b);
            } else {
                let v = self.eval(&l.ex);
                w.push(v, l.ty.width());
            }
        }
        w.finish()
    }

    /// A varbit leaf's current bits (`None` inside when its length is 0);
    /// `None` for any other leaf.
    fn varbit_leaf(&mut self, l: &Leaf) -> Option<Option<Bits>> {
        let len = self
            .eval(l.varbit_len.as_ref()?)
            .min(u64::from(l.ty.width()));
        let t = BitType::new(len as u32, false).ok().filter(|_| len > 0);
        Some(t.map(|t| self.eval_w(&l.ex).cast(t)))
    }

    fn leaf_values(&mut self, data: &[Leaf]) -> Vec<Bits> {
        data.iter()
            // Digests and log messages leave varbit fields out.
            .filter(|l| l.varbit_len.is_none())
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
            ExternCall::Function { name, args, outs } => {
                let Some(f) = self.rt.extern_functions.0.get(name).cloned() else {
                    self.fx.fault = Some(format!(
                        "the extern function `{name}` has no implementation \
                         (V1Switch::register_extern_function)"
                    ));
                    self.exit = true;
                    self.halt = true;
                    return Flow::Exit;
                };
                let mut values: Vec<Bits> = args
                    .iter()
                    .map(|(ty, ex)| {
                        if ty.width() > 64 {
                            self.eval_w(ex).cast(*ty)
                        } else {
                            Bits::from_u64(*ty, self.eval(ex))
                        }
                    })
                    .collect();
                f(&mut values);
                for (i, target) in outs {
                    let ty = Self::target_type(target);
                    let v = values
                        .get(*i)
                        .map_or_else(|| Bits::zero(ty), |v| v.cast(ty));
                    self.store_target(target, v.low_u64(), Some(v));
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
