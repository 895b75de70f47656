//! What generated code runs on and calls: the [`Entry`] it is given, the
//! [`Cx`] its functions take, the closures it falls back to, and the
//! helpers its text names (`p4sim::exec::native::nop` and the others,
//! re-exported there).

use crate::exec::cells::RegisterCells;
use crate::exec::hash::HashAlgorithm;
use crate::exec::interp::Exec;
use crate::exec::lowering::{ExFn, StFn};
use crate::exec::state::{Flow, Stage};
use crate::exec::table::TableState;
use crate::ir::NOp;

/// A generated program, as its generated source declares it.
#[derive(Debug)]
pub struct NativeProgram {
    /// What it was generated from (for logs).
    pub name: &'static str,
    /// FNV-1a hash of the generated source's body.
    pub hash: u64,
    /// Runs what the [`Entry`] asks for: the parser or some stages
    /// (a call of [`Entry::run`] with the program's frame and register
    /// sizes).
    pub run: fn(&mut Entry<'_, '_>),
}

/// The slots of a table action's control-plane parameters (`true`: wide),
/// by table and action position.
pub(super) type Params = Vec<Vec<Option<Box<[(usize, bool)]>>>>;

/// What the generated code hands to the closure engine, lowered for the
/// loaded program, and the tables' parameter slots.
pub(super) struct Fallbacks {
    pub(super) st: Vec<StFn>,
    pub(super) ex: Vec<ExFn>,
    pub(super) params: Params,
    pub(super) packet_length: usize,
}

/// What generated code is asked to run: the parser, or pipeline stages
/// one after the other, on one packet's context.
pub struct Entry<'e, 'a> {
    pub(super) ex: &'e mut Exec<'a>,
    pub(super) fb: &'e Fallbacks,
    /// `None`: the parser; else the stages `(stage, which)`.
    pub(super) stages: Option<&'e [(Stage, u8)]>,
    /// The parser's error code.
    pub(super) parsed: u64,
}

impl std::fmt::Debug for Entry<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("parser", &self.stages.is_none())
            .finish()
    }
}

impl Entry<'_, '_> {
    /// Runs `parser` or the asked-for `stages` (VerifyChecksum, Ingress,
    /// Egress, ComputeChecksum, Deparser) in one [`Cx`] over a frame of
    /// `N` narrow slots, the program's [`Compiled::n_slots`](crate::ir::Compiled::n_slots), and its `R`
    /// registers: the slot and register numbers in generated code are
    /// then checked against `N` and `R` when it is compiled instead of at
    /// each access. A frame or register file of another size (which a
    /// switch never makes) drops the packet with a fault.
    #[inline]
    pub fn run<const N: usize, const R: usize>(
        &mut self,
        parser: fn(&mut Cx<'_, '_, N, R>) -> u64,
        stages: &[fn(&mut Cx<'_, '_, N, R>); 5],
    ) {
        let slots = std::mem::take(&mut self.ex.n);
        let mut regs = std::mem::take(&mut self.ex.rt.registers);
        match (
            <&mut [u64; N]>::try_from(&mut *slots),
            <&mut [RegisterCells; R]>::try_from(regs.as_mut_slice()),
        ) {
            (Ok(n), Ok(regs)) => {
                let mut cx = Cx {
                    n,
                    regs,
                    ex: &mut *self.ex,
                    fb: self.fb,
                };
                match self.stages {
                    None => self.parsed = parser(&mut cx),
                    Some(list) => {
                        for &(stage, which) in list {
                            cx.ex.begin_control(stage);
                            if let Some(f) = stages.get(usize::from(which)) {
                                f(&mut cx);
                            }
                        }
                    }
                }
            }
            _ => {
                self.ex.fx.fault = Some(format!(
                    "a frame of {} slots and {} registers for native code generated for {N} and {R}",
                    slots.len(),
                    regs.len()
                ));
            }
        }
        self.ex.n = slots;
        let left = std::mem::replace(&mut self.ex.rt.registers, regs);
        if left.capacity() == 0 {
            // what `take` left there, owning no memory: forgotten rather
            // than dropped (a loop over no elements)
            std::mem::forget(left);
        }
    }
}

/// What generated code runs on: the packet's frame (`N` narrow slots),
/// the `R` registers and the switch state, through small inlined
/// accessors.
///
/// The narrow slots and the registers are moved out of the interpreter's
/// context while generated code runs (by [`Entry::run`]; a fallback runs
/// on a context made of the pieces, `Cx::with_exec`), so that they are
/// one pointer away: the compiler then keeps their addresses in registers
/// across a stage instead of reloading them after every store.
pub struct Cx<'e, 'a, const N: usize, const R: usize> {
    n: &'e mut [u64; N],
    regs: &'e mut [RegisterCells; R],
    ex: &'e mut Exec<'a>,
    fb: &'e Fallbacks,
}

impl<const N: usize, const R: usize> Cx<'_, '_, N, R> {
    /// Runs `f` on the interpreter's context, with the slots and the
    /// registers back in it (the registers moved one by one into the
    /// context's vector and back; the vector keeps its memory for the
    /// next fallback of the same [`Entry::run`]).
    #[inline]
    fn with_exec<T>(&mut self, f: impl FnOnce(&mut Exec<'_>) -> T) -> T {
        let held = &mut self.ex.rt.registers;
        held.clear();
        held.extend(self.regs.iter_mut().map(std::mem::take));
        let r = self.ex.with_slots(&mut self.n[..], f);
        for (mine, back) in self.regs.iter_mut().zip(self.ex.rt.registers.drain(..)) {
            *mine = back;
        }
        r
    }
}

impl<const N: usize, const R: usize> std::fmt::Debug for Cx<'_, '_, N, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx")
            .field("cursor", &self.ex.cursor)
            .finish()
    }
}

impl<'a, const N: usize, const R: usize> Cx<'_, 'a, N, R> {
    /// Narrow slot `s` (0 outside the frame).
    #[inline(always)]
    pub fn ld(&self, s: usize) -> u64 {
        self.n.get(s).copied().unwrap_or(0)
    }

    /// Stores narrow slot `s` (ignored outside the frame).
    #[inline(always)]
    pub fn st(&mut self, s: usize, v: u64) {
        if let Some(x) = self.n.get_mut(s) {
            *x = v;
        }
    }

    /// Copies `len` narrow slots from `src` to `dst`.
    #[inline]
    pub fn copy(&mut self, dst: usize, src: usize, len: usize) {
        let n = &mut *self.n;
        if src + len <= n.len() && dst + len <= n.len() {
            n.copy_within(src..src + len, dst);
        }
    }

    /// The cells of narrow register `r` (empty when it is wide or absent).
    #[inline(always)]
    pub fn reg(&mut self, r: usize) -> &mut [u64] {
        match self.regs.get_mut(r) {
            Some(RegisterCells::Narrow(c)) => c,
            _ => &mut [],
        }
    }

    /// Counts the packet in cell `i` of indexed counter `c`.
    #[inline]
    pub fn count(&mut self, c: usize, i: usize) {
        let len = self.ld(self.fb.packet_length);
        if let Some(cell) = self.ex.rt.counters.get_mut(c).and_then(|c| c.get_mut(i)) {
            cell.0 += 1;
            cell.1 += len;
        }
    }

    /// The packet the parser reads.
    #[inline(always)]
    pub fn pkt(&self) -> &'a [u8] {
        self.ex.pkt
    }

    /// `packet.length()`.
    #[inline(always)]
    pub fn pkt_len(&self) -> u64 {
        self.ex.pkt.len() as u64
    }

    /// The parser's position, in bits.
    #[inline(always)]
    pub fn cursor(&self) -> usize {
        self.ex.cursor
    }

    /// Moves the parser's position.
    #[inline(always)]
    pub fn set_cursor(&mut self, c: usize) {
        self.ex.cursor = c;
    }

    /// Appends `width` bits of `v` to the deparser's output.
    #[inline(always)]
    pub fn push(&mut self, v: u64, width: u32) {
        self.ex.out.push(v, width);
    }

    /// Appends whole bytes to the deparser's output (the same bits as
    /// [`Cx::push`] of each byte).
    #[inline(always)]
    pub fn push_bytes(&mut self, b: &[u8]) {
        self.ex.out.push_bytes(b);
    }

    /// `algo` over the bits of `leaves` (value, width, whether its
    /// header is valid: a field of an invalid header is left out, as
    /// BMv2 does), then the unparsed payload when `with_payload`: the
    /// closure engine's `checksum_of`, without leaving generated code.
    #[inline]
    pub fn checksum(
        &mut self,
        algo: HashAlgorithm,
        leaves: &[(u64, u32, bool)],
        with_payload: bool,
    ) -> u64 {
        if algo == HashAlgorithm::Csum16 && !with_payload {
            return u64::from(csum16_bits(leaves));
        }
        let mut scratch = std::mem::take(&mut self.ex.rt.scratch);
        let values = leaves.iter().filter(|l| l.2).map(|&(v, w, _)| (v, w));
        let payload = with_payload.then_some(self.ex.payload);
        let h = crate::exec::lowering::hash_bits(&mut scratch, values, payload, algo);
        self.ex.rt.scratch = scratch;
        h
    }

    /// Runs fallback statement `i` on the closure engine.
    #[inline]
    pub fn stmt(&mut self, i: usize) -> Flow {
        let Some(f) = self.fb.st.get(i) else {
            return Flow::Normal;
        };
        self.with_exec(|ex| f(ex))
    }

    /// Evaluates fallback expression `i` on the closure engine.
    #[inline]
    pub fn eval(&mut self, i: usize) -> u64 {
        let Some(f) = self.fb.ex.get(i) else {
            return 0;
        };
        self.with_exec(|ex| f(ex))
    }

    /// After a statement that may have changed control flow: `Some` with
    /// what the enclosing block returns (the closure engine's rule).
    #[inline(always)]
    pub fn settle(&mut self, f: Flow) -> Option<Flow> {
        if self.ex.halt {
            if self.ex.exit {
                return Some(Flow::Exit);
            }
            self.ex.halt = false;
            if let Some(e) = self.ex.reject.take() {
                return Some(Flow::Reject(e));
            }
        }
        if matches!(f, Flow::Normal) {
            None
        } else {
            Some(f)
        }
    }

    /// `exit`.
    #[inline]
    pub fn exit(&mut self) {
        self.ex.exit = true;
        self.ex.halt = true;
    }

    /// Whether `exit` ran.
    #[inline(always)]
    pub fn exiting(&self) -> bool {
        self.ex.exit
    }

    /// A parser error raised inside an expression.
    #[inline]
    pub fn set_reject(&mut self, e: u64) {
        self.ex.reject = Some(e);
        self.ex.halt = true;
    }

    /// Takes a pending parser error.
    #[inline(always)]
    pub fn take_reject(&mut self) -> Option<u64> {
        self.ex.reject.take()
    }

    /// Before a call's copy-out: copy-out runs even after `exit`.
    #[inline]
    pub fn begin_copy_out(&mut self) -> bool {
        let exiting = std::mem::replace(&mut self.ex.exit, false);
        self.ex.halt = self.ex.reject.is_some();
        exiting
    }

    /// After a call's copy-out.
    #[inline]
    pub fn end_copy_out(&mut self, exiting: bool) {
        self.ex.exit |= exiting;
        self.ex.halt = self.ex.exit || self.ex.reject.is_some();
    }

    /// Applies table `t` with `keys`: counts the hit, stores the action's
    /// arguments and returns whether it hit and the action position
    /// (`None`: nothing to run). The caller runs the action, then
    /// [`Cx::end_action`].
    #[inline]
    pub fn lookup(&mut self, t: usize, keys: &[u128]) -> (bool, Option<usize>) {
        self.lookup_by(t, |state| state.lookup(keys))
    }

    /// As [`Cx::lookup`] with the key values packed as
    /// [`TableState::packs`] says (for a table that packs).
    #[inline]
    pub fn lookup_packed(&mut self, t: usize, key: u128) -> (bool, Option<usize>) {
        self.lookup_by(t, |state| state.lookup_packed(key))
    }

    #[inline(always)]
    fn lookup_by(
        &mut self,
        t: usize,
        find: impl FnOnce(&TableState) -> Option<u32>,
    ) -> (bool, Option<usize>) {
        let len = self.ld(self.fb.packet_length);
        let Some(params) = self.fb.params.get(t) else {
            return (false, None);
        };
        let ex = &mut *self.ex;
        let Some(state) = ex.rt.tables.get_mut(t) else {
            return (false, None);
        };
        let (hit, pos, entry) = match find(state) {
            Some(h) => {
                let Some(e) = state.get_mut(h) else {
                    return (false, None);
                };
                e.counter.0 += 1;
                e.counter.1 += len;
                let pos = e.entry.action;
                let Some(Some(p)) = params.get(pos) else {
                    return (true, None);
                };
                crate::exec::lowering::copy_args(&mut self.n[..], ex.w, p, &e.entry.args);
                (true, pos, Some((t as u32, h)))
            }
            None => match &state.default_action {
                Some((pos, args)) => {
                    let pos = *pos;
                    if let Some(Some(p)) = params.get(pos) {
                        crate::exec::lowering::copy_args(&mut self.n[..], ex.w, p, args);
                    }
                    (false, pos, None)
                }
                None => return (false, None),
            },
        };
        ex.current_entry = entry;
        (hit, Some(pos))
    }

    /// After the action of [`Cx::lookup`].
    #[inline(always)]
    pub fn end_action(&mut self) {
        self.ex.current_entry = None;
    }

    /// Applies table `t` on the interpreter (wide or many keys).
    #[inline]
    pub fn apply_interpreted(&mut self, t: u32) -> (bool, Option<usize>) {
        self.with_exec(|ex| ex.apply_table(t))
    }
}

/// `csum16` of the bits of `leaves` (value, width, included) as
/// [`crate::exec::hash::csum16`] gives for the bytes a `BitWriter` makes
/// of them (the last byte and an odd last byte padded with zeros), summed
/// 16 bits at a time as they arrive, without the bytes.
pub fn csum16_bits(leaves: &[(u64, u32, bool)]) -> u16 {
    let (mut acc, mut n, mut sum) = (0u128, 0u32, 0u64);
    for &(v, w, included) in leaves {
        if !included || w > 64 {
            continue;
        }
        // at most 15 bits are pending, so 79 at most after this
        acc = (acc << w) | u128::from(v);
        n += w;
        while n >= 16 {
            n -= 16;
            sum += ((acc >> n) & 0xffff) as u64;
        }
        acc &= (1u128 << n) - 1;
    }
    if n > 0 {
        sum += ((acc << (16 - n)) & 0xffff) as u64;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A narrow binary operator the generated code does not spell out.
#[inline(always)]
pub fn nop(op: NOp, w: u32, a: u64, b: u64) -> u64 {
    crate::exec::narrow::eval_nop(op, w, a, b)
}

/// Sign extension from `from` bits.
#[inline(always)]
pub fn sext(v: u64, from: u32) -> u64 {
    crate::exec::narrow::sext(v, from)
}

/// `width` bits of `data` at `bit_offset` (missing bytes read as 0).
#[inline]
pub fn read_bits(data: &[u8], bit_offset: usize, width: u32) -> u64 {
    crate::exec::narrow::read_bits(data, bit_offset, width)
}

#[cfg(test)]
mod tests {
    use super::csum16_bits;
    use crate::exec::hash::csum16;
    use crate::exec::narrow::BitWriter;

    /// The bit-at-a-time sum equals the byte one on the bytes a
    /// `BitWriter` makes, for leaves of every width, odd totals, partial
    /// last bytes and left-out leaves.
    #[test]
    fn csum16_of_bits_equals_csum16_of_the_packed_bytes() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..5_000 {
            let count = (next() % 12) as usize;
            let leaves: Vec<(u64, u32, bool)> = (0..count)
                .map(|_| {
                    let w = (next() % 64 + 1) as u32;
                    let v = next() & crate::exec::narrow::mask(w);
                    (v, w, next() % 5 != 0)
                })
                .collect();
            let mut bw = BitWriter::with_buffer(Vec::new());
            for &(v, w, included) in &leaves {
                if included {
                    bw.push(v, w);
                }
            }
            let bytes = bw.finish();
            assert_eq!(
                csum16_bits(&leaves),
                csum16(&bytes),
                "case {case}: {leaves:?}"
            );
        }
        // a known IPv4 header (RFC 1071 style example): checksum field 0
        let ipv4 = [
            (4, 4, true),
            (5, 4, true),
            (0, 8, true),
            (0x0073, 16, true),
            (0, 16, true),
            (0x4000, 16, true),
            (0x40, 8, true),
            (0x11, 8, true),
            (0, 16, true),
            (0xc0a8_0001, 32, true),
            (0xc0a8_00c7, 32, true),
        ];
        assert_eq!(csum16_bits(&ipv4), 0xb861);
    }
}
