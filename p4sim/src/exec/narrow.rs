//! Narrow values (64 bits at most, a `u64` masked to its width) as the
//! checker's constant folding and every engine compute them, and the bit
//! layout of packets: [`read_bits`] reads a field, [`BitWriter`] packs
//! fields (and wide [`Bits`]) into bytes as the deparser does.

use crate::exec::bits::Bits;
use crate::ir::NOp;

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
}
