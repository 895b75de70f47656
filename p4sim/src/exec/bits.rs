//! Arbitrary-width P4 integers: `bit<W>` and `int<W>`.
//!
//! A [`Bits`] value is a bit pattern of a fixed width together with a
//! signedness ([`BitType`]). Arithmetic follows P4_16: `+`, `-`, `*` wrap
//! modulo 2^W, `|+|` and `|-|` saturate, shifts by the width or more give 0
//! (or all sign bits for an arithmetic right shift of a negative `int<W>`),
//! slices of any value are `bit<hi-lo+1>`, and `++` takes the signedness of
//! its left operand.
//!
//! Values of width up to 128 are stored inline in a `u128`; wider values use
//! a boxed slice of little-endian `u64` limbs. The stored pattern never has
//! bits set above the width, so derived equality and hashing are exact.
//!
//! Binary operations are defined on operands of the same type. When the
//! right operand has a different type it is first cast to the left operand's
//! type (truncated or extended as [`Bits::cast`] does), so no combination of
//! inputs panics.

use std::cmp::Ordering;
use std::fmt;

/// Largest supported width in bits.
pub const MAX_WIDTH: u32 = 1 << 16;

/// Widths up to this many bits are stored inline.
const INLINE_BITS: u32 = 128;

/// Errors from constructing or reshaping [`Bits`] values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BitsError {
    /// The width is above [`MAX_WIDTH`], or zero for a signed type.
    #[error("unsupported width {width} for {}", if *signed { "int" } else { "bit" })]
    InvalidWidth {
        /// The requested width.
        width: u64,
        /// Whether a signed type was requested.
        signed: bool,
    },
    /// A slice `[hi:lo]` with `hi < lo` or `hi` outside the value.
    #[error("slice [{hi}:{lo}] is out of range for a value of width {width}")]
    SliceOutOfRange {
        /// Upper (inclusive) bit index.
        hi: u32,
        /// Lower (inclusive) bit index.
        lo: u32,
        /// Width of the sliced value.
        width: u32,
    },
    /// A single bit index outside the value.
    #[error("bit index {index} is out of range for a value of width {width}")]
    BitOutOfRange {
        /// The bit index.
        index: u32,
        /// Width of the value.
        width: u32,
    },
    /// Reading or writing bits past the end of a byte buffer.
    #[error("bits {start}..{end} lie outside a buffer of {available} bits")]
    OutOfBuffer {
        /// First bit offset accessed.
        start: u64,
        /// One past the last bit offset accessed.
        end: u64,
        /// Size of the buffer in bits.
        available: u64,
    },
    /// Division or remainder by zero.
    #[error("division by zero")]
    DivisionByZero,
    /// A literal had no digits.
    #[error("empty integer literal")]
    EmptyLiteral,
    /// A literal contained a character that is not a digit of its radix.
    #[error("invalid digit {digit:?} for radix {radix}")]
    InvalidDigit {
        /// The offending character.
        digit: char,
        /// The radix in use.
        radix: u32,
    },
    /// The radix is not 2, 8, 10 or 16.
    #[error("unsupported radix {0}")]
    InvalidRadix(u32),
    /// A literal's value needs more bits than the target width.
    #[error("value needs {needed} bits but the type has {width}")]
    LiteralTooWide {
        /// Bits needed by the value.
        needed: u64,
        /// Bits available.
        width: u32,
    },
}

/// The type of a [`Bits`] value: `bit<W>` or `int<W>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BitType {
    width: u32,
    signed: bool,
}

impl BitType {
    /// A type of the given width and signedness. `bit<0>` is allowed
    /// (its only value is 0); `int<0>` is not.
    pub fn new(width: u32, signed: bool) -> Result<Self, BitsError> {
        if width > MAX_WIDTH || (signed && width == 0) {
            return Err(BitsError::InvalidWidth {
                width: u64::from(width),
                signed,
            });
        }
        Ok(Self { width, signed })
    }

    /// `bit<width>`.
    pub fn unsigned(width: u32) -> Result<Self, BitsError> {
        Self::new(width, false)
    }

    /// `int<width>`.
    pub fn signed(width: u32) -> Result<Self, BitsError> {
        Self::new(width, true)
    }

    /// `bit<1>`, the type of boolean-like flags.
    pub const BIT1: BitType = BitType {
        width: 1,
        signed: false,
    };

    /// The width in bits.
    pub fn width(self) -> u32 {
        self.width
    }

    /// True for `int<W>`.
    pub fn is_signed(self) -> bool {
        self.signed
    }

    /// The same width with the other signedness (`int<0>` becomes `bit<0>`).
    fn with_signed(self, signed: bool) -> BitType {
        BitType {
            width: self.width,
            signed: signed && self.width > 0,
        }
    }
}

impl fmt::Display for BitType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.signed { "int" } else { "bit" };
        write!(f, "{kind}<{}>", self.width)
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// Width <= 128; bits above the width are zero.
    Inline(u128),
    /// Width > 128; exactly `limb_count(width)` little-endian limbs, bits
    /// above the width are zero.
    Limbs(Box<[u64]>),
}

/// A P4 `bit<W>` or `int<W>` value.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Bits {
    ty: BitType,
    repr: Repr,
}

fn limb_count(width: u32) -> usize {
    (width as usize).div_ceil(64)
}

fn mask_u128(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Resizes `limbs` to exactly the limbs of `width` and clears bits above it.
fn mask_limbs(limbs: &mut Vec<u64>, width: u32) {
    limbs.resize(limb_count(width), 0);
    let rem = width % 64;
    if rem != 0
        && let Some(last) = limbs.last_mut()
    {
        *last &= (1u64 << rem) - 1;
    }
}

fn limbs_add(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut carry = false;
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let (s1, c1) = x.overflowing_add(y);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            carry = c1 || c2;
            s2
        })
        .collect()
}

fn limbs_sub(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut borrow = false;
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let (d1, b1) = x.overflowing_sub(y);
            let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
            borrow = b1 || b2;
            d2
        })
        .collect()
}

/// Product truncated to `a.len()` limbs.
fn limbs_mul(a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    for (i, &x) in a.iter().enumerate() {
        if x == 0 {
            continue;
        }
        let mut carry: u128 = 0;
        for (j, &y) in b.iter().take(n - i).enumerate() {
            let t = u128::from(x) * u128::from(y) + u128::from(out[i + j]) + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
    }
    out
}

fn limbs_cmp(a: &[u64], b: &[u64]) -> Ordering {
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        match x.cmp(y) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    Ordering::Equal
}

/// Left shift keeping `a.len()` limbs.
fn limbs_shl(a: &[u64], amount: u64) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    let limb_shift = usize::try_from(amount / 64).unwrap_or(usize::MAX);
    if limb_shift >= n {
        return out;
    }
    let bit_shift = (amount % 64) as u32;
    for (i, slot) in out.iter_mut().enumerate().skip(limb_shift) {
        let src = i - limb_shift;
        let mut v = a[src] << bit_shift;
        if bit_shift != 0 && src > 0 {
            v |= a[src - 1] >> (64 - bit_shift);
        }
        *slot = v;
    }
    out
}

/// Logical right shift keeping `a.len()` limbs.
fn limbs_shr(a: &[u64], amount: u64) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    let limb_shift = usize::try_from(amount / 64).unwrap_or(usize::MAX);
    if limb_shift >= n {
        return out;
    }
    let bit_shift = (amount % 64) as u32;
    for (i, slot) in out.iter_mut().enumerate().take(n - limb_shift) {
        let src = i + limb_shift;
        let mut v = a[src] >> bit_shift;
        if bit_shift != 0 && src + 1 < n {
            v |= a[src + 1] << (64 - bit_shift);
        }
        *slot = v;
    }
    out
}

fn limbs_bit(a: &[u64], index: u64) -> bool {
    let limb = usize::try_from(index / 64).unwrap_or(usize::MAX);
    a.get(limb).is_some_and(|l| (l >> (index % 64)) & 1 == 1)
}

fn limbs_set_bit(a: &mut [u64], index: u64, value: bool) {
    let limb = usize::try_from(index / 64).unwrap_or(usize::MAX);
    if let Some(l) = a.get_mut(limb) {
        let m = 1u64 << (index % 64);
        if value {
            *l |= m;
        } else {
            *l &= !m;
        }
    }
}

/// Number of significant bits (position of the highest set bit plus one).
fn limbs_bit_len(a: &[u64]) -> u64 {
    for (i, &l) in a.iter().enumerate().rev() {
        if l != 0 {
            return i as u64 * 64 + u64::from(64 - l.leading_zeros());
        }
    }
    0
}

/// Unsigned quotient and remainder; `b` must be non-zero.
fn limbs_divrem(a: &[u64], b: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let n = a.len();
    let mut q = vec![0u64; n];
    let mut r = vec![0u64; n + 1];
    let mut b_ext = b.to_vec();
    b_ext.resize(n + 1, 0);
    let bits = limbs_bit_len(a);
    for i in (0..bits).rev() {
        r = limbs_shl(&r, 1);
        if limbs_bit(a, i) {
            r[0] |= 1;
        }
        if limbs_cmp(&r, &b_ext) != Ordering::Less {
            r = limbs_sub(&r, &b_ext);
            limbs_set_bit(&mut q, i, true);
        }
    }
    r.truncate(n);
    (q, r)
}

/// Divides in place by a small divisor, returning the remainder.
fn limbs_divrem_small(a: &mut [u64], divisor: u64) -> u64 {
    let mut rem: u128 = 0;
    for l in a.iter_mut().rev() {
        let cur = (rem << 64) | u128::from(*l);
        *l = (cur / u128::from(divisor)) as u64;
        rem = cur % u128::from(divisor);
    }
    rem as u64
}

fn limbs_from_be_bytes(bytes: &[u8]) -> Vec<u64> {
    let mut limbs = vec![0u64; bytes.len().div_ceil(8)];
    for (i, &b) in bytes.iter().rev().enumerate() {
        limbs[i / 8] |= u64::from(b) << ((i % 8) * 8);
    }
    limbs
}

/// The low `nbytes` bytes of `limbs`, most significant first.
fn limbs_to_be_bytes(limbs: &[u64], nbytes: usize) -> Vec<u8> {
    (0..nbytes)
        .rev()
        .map(|i| limbs.get(i / 8).map_or(0, |l| (l >> ((i % 8) * 8)) as u8))
        .collect()
}

/// Parses digits of `radix` into limbs (no width limit beyond `MAX_WIDTH`).
fn parse_digits(digits: &str, radix: u32) -> Result<Vec<u64>, BitsError> {
    if !matches!(radix, 2 | 8 | 10 | 16) {
        return Err(BitsError::InvalidRadix(radix));
    }
    let mut limbs: Vec<u64> = vec![0];
    let mut any = false;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = c
            .to_digit(radix)
            .ok_or(BitsError::InvalidDigit { digit: c, radix })?;
        any = true;
        let mut carry = u128::from(d);
        for l in limbs.iter_mut() {
            let t = u128::from(*l) * u128::from(radix) + carry;
            *l = t as u64;
            carry = t >> 64;
        }
        if carry != 0 {
            limbs.push(carry as u64);
        }
        if limbs.len() > limb_count(MAX_WIDTH) + 1 {
            return Err(BitsError::LiteralTooWide {
                needed: limbs.len() as u64 * 64,
                width: MAX_WIDTH,
            });
        }
    }
    if !any {
        return Err(BitsError::EmptyLiteral);
    }
    Ok(limbs)
}

impl Bits {
    /// Builds a value from little-endian limbs, truncating to `ty`.
    fn from_raw(ty: BitType, mut limbs: Vec<u64>) -> Bits {
        if ty.width <= INLINE_BITS {
            let lo = limbs.first().copied().unwrap_or(0);
            let hi = limbs.get(1).copied().unwrap_or(0);
            let v = (u128::from(hi) << 64) | u128::from(lo);
            Bits {
                ty,
                repr: Repr::Inline(v & mask_u128(ty.width)),
            }
        } else {
            mask_limbs(&mut limbs, ty.width);
            Bits {
                ty,
                repr: Repr::Limbs(limbs.into_boxed_slice()),
            }
        }
    }

    /// The value 0 of type `ty`.
    pub fn zero(ty: BitType) -> Bits {
        Self::from_raw(ty, Vec::new())
    }

    /// The value with every bit set (`-1` for `int<W>`).
    pub fn ones(ty: BitType) -> Bits {
        Self::from_raw(ty, vec![u64::MAX; limb_count(ty.width)])
    }

    /// The low `ty.width()` bits of `value`.
    pub fn from_u128(ty: BitType, value: u128) -> Bits {
        Self::from_raw(ty, vec![value as u64, (value >> 64) as u64])
    }

    /// The low `ty.width()` bits of `value`.
    pub fn from_u64(ty: BitType, value: u64) -> Bits {
        Self::from_raw(ty, vec![value])
    }

    /// `value` in two's complement, truncated or sign-extended to `ty`.
    pub fn from_i128(ty: BitType, value: i128) -> Bits {
        let fill = if value < 0 { u64::MAX } else { 0 };
        let mut limbs = vec![fill; limb_count(ty.width).max(2)];
        limbs[0] = value as u64;
        limbs[1] = ((value as u128) >> 64) as u64;
        Self::from_raw(ty, limbs)
    }

    /// `bit<1>` 1 for true, 0 for false.
    pub fn from_bool(value: bool) -> Bits {
        Self::from_u64(BitType::BIT1, u64::from(value))
    }

    /// The value whose little-endian 64-bit limbs are `limbs`, truncated to `ty`.
    pub fn from_limbs(ty: BitType, limbs: &[u64]) -> Bits {
        Self::from_raw(ty, limbs.to_vec())
    }

    /// The big-endian number in `bytes`, truncated to its low `ty.width()` bits.
    pub fn from_be_bytes(ty: BitType, bytes: &[u8]) -> Bits {
        if bytes.len() <= 16 {
            let mut v: u128 = 0;
            for &b in bytes {
                v = (v << 8) | u128::from(b);
            }
            return Self::from_u128(ty, v);
        }
        Self::from_raw(ty, limbs_from_be_bytes(bytes))
    }

    /// Parses `digits` (no prefix or sign; `_` separators allowed) in `radix`
    /// (2, 8, 10 or 16). The value must fit in `ty.width()` bits as an
    /// unsigned pattern.
    pub fn from_str_radix(ty: BitType, digits: &str, radix: u32) -> Result<Bits, BitsError> {
        let limbs = parse_digits(digits, radix)?;
        let needed = limbs_bit_len(&limbs);
        if needed > u64::from(ty.width) {
            return Err(BitsError::LiteralTooWide {
                needed,
                width: ty.width,
            });
        }
        Ok(Self::from_raw(ty, limbs))
    }

    /// Parses `digits` in `radix` as a `bit<N>` with `N` the number of
    /// significant bits of the value (at least 1).
    pub fn parse_unsized(digits: &str, radix: u32) -> Result<Bits, BitsError> {
        let limbs = parse_digits(digits, radix)?;
        let needed = limbs_bit_len(&limbs).max(1);
        let width = u32::try_from(needed).unwrap_or(u32::MAX);
        let ty = BitType::unsigned(width)?;
        Ok(Self::from_raw(ty, limbs))
    }

    /// The value's type.
    pub fn ty(&self) -> BitType {
        self.ty
    }

    /// The width in bits.
    pub fn width(&self) -> u32 {
        self.ty.width
    }

    /// True for `int<W>` values.
    pub fn is_signed(&self) -> bool {
        self.ty.signed
    }

    /// The bit pattern as little-endian limbs, exactly `ceil(W/64)` of them.
    pub fn limbs(&self) -> Vec<u64> {
        match &self.repr {
            Repr::Inline(v) => {
                let mut l = vec![*v as u64, (*v >> 64) as u64];
                l.truncate(limb_count(self.ty.width));
                l
            }
            Repr::Limbs(l) => l.to_vec(),
        }
    }

    /// The low 64 bits of the bit pattern.
    pub fn low_u64(&self) -> u64 {
        match &self.repr {
            Repr::Inline(v) => *v as u64,
            Repr::Limbs(l) => l.first().copied().unwrap_or(0),
        }
    }

    /// The low 128 bits of the bit pattern.
    pub fn low_u128(&self) -> u128 {
        match &self.repr {
            Repr::Inline(v) => *v,
            Repr::Limbs(l) => {
                let lo = l.first().copied().unwrap_or(0);
                let hi = l.get(1).copied().unwrap_or(0);
                (u128::from(hi) << 64) | u128::from(lo)
            }
        }
    }

    /// The bit pattern as an unsigned number, if it fits in 128 bits.
    pub fn to_u128(&self) -> Option<u128> {
        match &self.repr {
            Repr::Inline(v) => Some(*v),
            Repr::Limbs(l) => l.iter().skip(2).all(|&x| x == 0).then(|| self.low_u128()),
        }
    }

    /// The bit pattern as an unsigned number, if it fits in 64 bits.
    pub fn to_u64(&self) -> Option<u64> {
        self.to_u128().and_then(|v| u64::try_from(v).ok())
    }

    /// The numeric value (two's complement for `int<W>`), if it fits in an `i128`.
    pub fn to_i128(&self) -> Option<i128> {
        if self.is_negative() {
            let widened = self.cast(BitType {
                width: self.ty.width.max(128),
                signed: true,
            });
            let low = widened.low_u128() as i128;
            // Fits iff sign-extending the low 128 bits gives the value back.
            (Bits::from_i128(widened.ty, low) == widened).then_some(low)
        } else {
            self.to_u128().and_then(|v| i128::try_from(v).ok())
        }
    }

    /// True when every bit is 0.
    pub fn is_zero(&self) -> bool {
        match &self.repr {
            Repr::Inline(v) => *v == 0,
            Repr::Limbs(l) => l.iter().all(|&x| x == 0),
        }
    }

    /// True for an `int<W>` whose sign bit is set.
    pub fn is_negative(&self) -> bool {
        self.ty.signed && self.ty.width > 0 && self.bit_unchecked(self.ty.width - 1)
    }

    fn bit_unchecked(&self, index: u32) -> bool {
        match &self.repr {
            Repr::Inline(v) => index < 128 && (v >> index) & 1 == 1,
            Repr::Limbs(l) => limbs_bit(l, u64::from(index)),
        }
    }

    /// Bit `index` (0 is the least significant).
    pub fn bit(&self, index: u32) -> Result<bool, BitsError> {
        if index >= self.ty.width {
            return Err(BitsError::BitOutOfRange {
                index,
                width: self.ty.width,
            });
        }
        Ok(self.bit_unchecked(index))
    }

    /// Sets bit `index` (0 is the least significant).
    pub fn set_bit(&mut self, index: u32, value: bool) -> Result<(), BitsError> {
        if index >= self.ty.width {
            return Err(BitsError::BitOutOfRange {
                index,
                width: self.ty.width,
            });
        }
        match &mut self.repr {
            Repr::Inline(v) => {
                if value {
                    *v |= 1 << index;
                } else {
                    *v &= !(1 << index);
                }
            }
            Repr::Limbs(l) => limbs_set_bit(l, u64::from(index), value),
        }
        Ok(())
    }

    /// Number of significant bits of the bit pattern (0 for zero).
    pub fn bit_len(&self) -> u32 {
        match &self.repr {
            Repr::Inline(v) => 128 - v.leading_zeros(),
            Repr::Limbs(l) => u32::try_from(limbs_bit_len(l)).unwrap_or(u32::MAX),
        }
    }

    /// `rhs` converted to this value's type (no copy when it already has it).
    fn coerce<'a>(&self, rhs: &'a Bits) -> std::borrow::Cow<'a, Bits> {
        if rhs.ty == self.ty {
            std::borrow::Cow::Borrowed(rhs)
        } else {
            std::borrow::Cow::Owned(rhs.cast(self.ty))
        }
    }

    fn binary(
        &self,
        rhs: &Bits,
        inline: impl Fn(u128, u128) -> u128,
        wide: impl Fn(&[u64], &[u64]) -> Vec<u64>,
    ) -> Bits {
        let rhs = self.coerce(rhs);
        match (&self.repr, &rhs.repr) {
            (Repr::Inline(a), Repr::Inline(b)) => Bits {
                ty: self.ty,
                repr: Repr::Inline(inline(*a, *b) & mask_u128(self.ty.width)),
            },
            _ => Self::from_raw(self.ty, wide(&self.limbs(), &rhs.limbs())),
        }
    }

    /// `self + rhs` modulo 2^W.
    pub fn wrapping_add(&self, rhs: &Bits) -> Bits {
        self.binary(rhs, u128::wrapping_add, limbs_add)
    }

    /// `self - rhs` modulo 2^W.
    pub fn wrapping_sub(&self, rhs: &Bits) -> Bits {
        self.binary(rhs, u128::wrapping_sub, limbs_sub)
    }

    /// `self * rhs` modulo 2^W.
    pub fn wrapping_mul(&self, rhs: &Bits) -> Bits {
        self.binary(rhs, u128::wrapping_mul, limbs_mul)
    }

    /// `-self` modulo 2^W.
    pub fn wrapping_neg(&self) -> Bits {
        Bits::zero(self.ty).wrapping_sub(self)
    }

    /// `self & rhs`.
    pub fn and(&self, rhs: &Bits) -> Bits {
        self.binary(
            rhs,
            |a, b| a & b,
            |a, b| a.iter().zip(b).map(|(x, y)| x & y).collect(),
        )
    }

    /// `self | rhs`.
    pub fn or(&self, rhs: &Bits) -> Bits {
        self.binary(
            rhs,
            |a, b| a | b,
            |a, b| a.iter().zip(b).map(|(x, y)| x | y).collect(),
        )
    }

    /// `self ^ rhs`.
    pub fn xor(&self, rhs: &Bits) -> Bits {
        self.binary(
            rhs,
            |a, b| a ^ b,
            |a, b| a.iter().zip(b).map(|(x, y)| x ^ y).collect(),
        )
    }

    /// `~self`.
    pub fn not(&self) -> Bits {
        self.xor(&Bits::ones(self.ty))
    }

    /// Largest value of the type.
    pub fn max_value(ty: BitType) -> Bits {
        let ones = Bits::ones(ty.with_signed(false));
        if ty.signed {
            ones.shr(1).cast(ty)
        } else {
            ones
        }
    }

    /// Smallest value of the type.
    pub fn min_value(ty: BitType) -> Bits {
        if ty.signed {
            Bits::max_value(ty).not()
        } else {
            Bits::zero(ty)
        }
    }

    /// `self |+| rhs`: addition clamped to the type's range.
    pub fn saturating_add(&self, rhs: &Bits) -> Bits {
        let rhs = self.coerce(rhs);
        let sum = self.wrapping_add(&rhs);
        if self.ty.signed {
            let (sa, sb, ss) = (self.is_negative(), rhs.is_negative(), sum.is_negative());
            if sa == sb && ss != sa {
                return if sa {
                    Bits::min_value(self.ty)
                } else {
                    Bits::max_value(self.ty)
                };
            }
            sum
        } else if sum.unsigned_cmp(self) == Ordering::Less {
            Bits::max_value(self.ty)
        } else {
            sum
        }
    }

    /// `self |-| rhs`: subtraction clamped to the type's range.
    pub fn saturating_sub(&self, rhs: &Bits) -> Bits {
        let rhs = self.coerce(rhs);
        if self.ty.signed {
            let diff = self.wrapping_sub(&rhs);
            let (sa, sb, sd) = (self.is_negative(), rhs.is_negative(), diff.is_negative());
            if sa != sb && sd != sa {
                return if sa {
                    Bits::min_value(self.ty)
                } else {
                    Bits::max_value(self.ty)
                };
            }
            diff
        } else if self.unsigned_cmp(&rhs) == Ordering::Less {
            Bits::zero(self.ty)
        } else {
            self.wrapping_sub(&rhs)
        }
    }

    fn magnitude(&self) -> Vec<u64> {
        if self.is_negative() {
            self.wrapping_neg().limbs()
        } else {
            self.limbs()
        }
    }

    /// Quotient and remainder, truncating toward zero (the remainder has the
    /// sign of the dividend for `int<W>`).
    pub fn checked_div_rem(&self, rhs: &Bits) -> Result<(Bits, Bits), BitsError> {
        let rhs = self.coerce(rhs);
        if rhs.is_zero() {
            return Err(BitsError::DivisionByZero);
        }
        if let (Repr::Inline(a), Repr::Inline(b), false) = (&self.repr, &rhs.repr, self.ty.signed) {
            return Ok((
                Bits::from_u128(self.ty, a / b),
                Bits::from_u128(self.ty, a % b),
            ));
        }
        let (q, r) = limbs_divrem(&self.magnitude(), &rhs.magnitude());
        let mut q = Bits::from_raw(self.ty, q);
        let mut r = Bits::from_raw(self.ty, r);
        if self.is_negative() != rhs.is_negative() {
            q = q.wrapping_neg();
        }
        if self.is_negative() {
            r = r.wrapping_neg();
        }
        Ok((q, r))
    }

    /// `self / rhs`, see [`Bits::checked_div_rem`].
    pub fn checked_div(&self, rhs: &Bits) -> Result<Bits, BitsError> {
        self.checked_div_rem(rhs).map(|(q, _)| q)
    }

    /// `self % rhs`, see [`Bits::checked_div_rem`].
    pub fn checked_rem(&self, rhs: &Bits) -> Result<Bits, BitsError> {
        self.checked_div_rem(rhs).map(|(_, r)| r)
    }

    /// `self << amount`; amounts of the width or more give 0.
    pub fn shl(&self, amount: u64) -> Bits {
        if amount >= u64::from(self.ty.width) {
            return Bits::zero(self.ty);
        }
        match &self.repr {
            Repr::Inline(v) => Bits::from_u128(self.ty, v << amount),
            Repr::Limbs(l) => Bits::from_raw(self.ty, limbs_shl(l, amount)),
        }
    }

    /// `self >> amount`: logical for `bit<W>`, arithmetic for `int<W>`.
    /// Amounts of the width or more give 0, or -1 for a negative `int<W>`.
    pub fn shr(&self, amount: u64) -> Bits {
        let negative = self.is_negative();
        if amount >= u64::from(self.ty.width) {
            return if negative {
                Bits::ones(self.ty)
            } else {
                Bits::zero(self.ty)
            };
        }
        let logical = match &self.repr {
            Repr::Inline(v) => Bits::from_u128(self.ty, v >> amount),
            Repr::Limbs(l) => Bits::from_raw(self.ty, limbs_shr(l, amount)),
        };
        if negative {
            // Fill the vacated top bits with ones.
            let keep = Bits::ones(self.ty).shl(u64::from(self.ty.width) - amount);
            logical.or(&keep)
        } else {
            logical
        }
    }

    /// Shift amount from a value: its unsigned pattern, saturated to `u64::MAX`.
    fn shift_amount(amount: &Bits) -> u64 {
        amount.to_u64().unwrap_or(u64::MAX)
    }

    /// `self << amount` with the amount given as a P4 value (read unsigned).
    pub fn shl_by(&self, amount: &Bits) -> Bits {
        self.shl(Self::shift_amount(amount))
    }

    /// `self >> amount` with the amount given as a P4 value (read unsigned).
    pub fn shr_by(&self, amount: &Bits) -> Bits {
        self.shr(Self::shift_amount(amount))
    }

    fn unsigned_cmp(&self, rhs: &Bits) -> Ordering {
        match (&self.repr, &rhs.repr) {
            (Repr::Inline(a), Repr::Inline(b)) => a.cmp(b),
            _ => limbs_cmp(&self.limbs(), &rhs.limbs()),
        }
    }

    /// Numeric comparison under this value's type (signed for `int<W>`).
    pub fn compare(&self, rhs: &Bits) -> Ordering {
        let rhs = self.coerce(rhs);
        match (self.is_negative(), rhs.is_negative()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => self.unsigned_cmp(&rhs),
        }
    }

    /// Converts to `ty`: truncates when narrowing; when widening, extends
    /// with the sign bit if `self` is signed and with zeros otherwise; then
    /// reinterprets the pattern with `ty`'s signedness.
    pub fn cast(&self, ty: BitType) -> Bits {
        let extend_ones = ty.width > self.ty.width && self.is_negative();
        match &self.repr {
            Repr::Inline(v) if ty.width <= INLINE_BITS => {
                let mut v = *v & mask_u128(ty.width);
                if extend_ones {
                    v |= mask_u128(ty.width) & !mask_u128(self.ty.width);
                }
                Bits {
                    ty,
                    repr: Repr::Inline(v),
                }
            }
            _ => {
                let mut limbs = self.limbs();
                limbs.resize(limb_count(ty.width), 0);
                if extend_ones {
                    for i in self.ty.width..ty.width {
                        limbs_set_bit(&mut limbs, u64::from(i), true);
                    }
                }
                Bits::from_raw(ty, limbs)
            }
        }
    }

    /// The same pattern read as `bit<W>`.
    pub fn to_unsigned(&self) -> Bits {
        self.cast(self.ty.with_signed(false))
    }

    /// The same pattern read as `int<W>` (`bit<0>` stays `bit<0>`).
    pub fn to_signed(&self) -> Bits {
        self.cast(self.ty.with_signed(true))
    }

    /// `self[hi:lo]`, a `bit<hi-lo+1>`.
    pub fn slice(&self, hi: u32, lo: u32) -> Result<Bits, BitsError> {
        if lo > hi || hi >= self.ty.width {
            return Err(BitsError::SliceOutOfRange {
                hi,
                lo,
                width: self.ty.width,
            });
        }
        let ty = BitType {
            width: hi - lo + 1,
            signed: false,
        };
        Ok(self.to_unsigned().shr(u64::from(lo)).cast(ty))
    }

    /// Assigns `value` (cast to `bit<hi-lo+1>`) to `self[hi:lo]`.
    pub fn set_slice(&mut self, hi: u32, lo: u32, value: &Bits) -> Result<(), BitsError> {
        if lo > hi || hi >= self.ty.width {
            return Err(BitsError::SliceOutOfRange {
                hi,
                lo,
                width: self.ty.width,
            });
        }
        let field_ty = BitType {
            width: hi - lo + 1,
            signed: false,
        };
        let field = value.cast(field_ty).cast(self.ty).shl(u64::from(lo));
        let mask = Bits::ones(field_ty).cast(self.ty).shl(u64::from(lo));
        *self = self.and(&mask.not()).or(&field);
        Ok(())
    }

    /// `self ++ rhs`: `self`'s bits above `rhs`'s, with `self`'s signedness.
    pub fn concat(&self, rhs: &Bits) -> Result<Bits, BitsError> {
        let width = u64::from(self.ty.width) + u64::from(rhs.ty.width);
        let ty = BitType::new(u32::try_from(width).unwrap_or(u32::MAX), self.ty.signed).map_err(
            |_| BitsError::InvalidWidth {
                width,
                signed: self.ty.signed,
            },
        )?;
        let high = self.to_unsigned().cast(ty).shl(u64::from(rhs.ty.width));
        let low = rhs.to_unsigned().cast(ty);
        Ok(high.or(&low))
    }

    /// The pattern as `ceil(W/8)` big-endian bytes (pad bits at the top are 0).
    pub fn to_be_bytes(&self) -> Vec<u8> {
        let nbytes = (self.ty.width as usize).div_ceil(8);
        match &self.repr {
            Repr::Inline(v) => v.to_be_bytes()[16 - nbytes..].to_vec(),
            Repr::Limbs(l) => limbs_to_be_bytes(l, nbytes),
        }
    }

    fn buffer_span(
        buf_len: usize,
        bit_offset: usize,
        width: u32,
    ) -> Result<(usize, usize, u32), BitsError> {
        let available = buf_len as u64 * 8;
        let start = bit_offset as u64;
        let end = start.saturating_add(u64::from(width));
        if end > available {
            return Err(BitsError::OutOfBuffer {
                start,
                end,
                available,
            });
        }
        let first = bit_offset / 8;
        let last = (end as usize).div_ceil(8);
        let tail = (last as u64 * 8 - end) as u32;
        Ok((first, last, tail))
    }

    /// Reads `ty.width()` bits starting `bit_offset` bits into `buf`, most
    /// significant bit first (network order), as header extraction does.
    pub fn read_bits(ty: BitType, buf: &[u8], bit_offset: usize) -> Result<Bits, BitsError> {
        let (first, last, tail) = Self::buffer_span(buf.len(), bit_offset, ty.width)?;
        let span = &buf[first..last];
        if span.len() <= 16 {
            let mut v: u128 = 0;
            for &b in span {
                v = (v << 8) | u128::from(b);
            }
            return Ok(Bits::from_u128(ty, v >> tail));
        }
        let limbs = limbs_shr(&limbs_from_be_bytes(span), u64::from(tail));
        Ok(Bits::from_raw(ty, limbs))
    }

    /// Writes the pattern into `buf` starting `bit_offset` bits in, most
    /// significant bit first, leaving the surrounding bits untouched.
    pub fn write_bits(&self, buf: &mut [u8], bit_offset: usize) -> Result<(), BitsError> {
        let (first, last, tail) = Self::buffer_span(buf.len(), bit_offset, self.ty.width)?;
        let nbytes = last - first;
        if nbytes == 0 {
            return Ok(());
        }
        let lead = (bit_offset % 8) as u32;
        let bytes = if nbytes <= 16 {
            let v = self.low_u128() << tail;
            v.to_be_bytes()[16 - nbytes..].to_vec()
        } else {
            let mut limbs = self.limbs();
            limbs.resize((nbytes * 8).div_ceil(64), 0);
            limbs_to_be_bytes(&limbs_shl(&limbs, u64::from(tail)), nbytes)
        };
        for (j, b) in bytes.iter().enumerate() {
            let mut mask: u8 = 0xff;
            if j == 0 {
                mask &= 0xff >> lead;
            }
            if j == nbytes - 1 {
                mask &= 0xff << tail;
            }
            let slot = &mut buf[first + j];
            *slot = (*slot & !mask) | (b & mask);
        }
        Ok(())
    }

    /// Decimal digits of the magnitude.
    fn magnitude_decimal(&self) -> String {
        let mut limbs = self.magnitude();
        if limbs.iter().all(|&x| x == 0) {
            return "0".to_string();
        }
        const CHUNK: u64 = 10_000_000_000_000_000_000;
        let mut chunks = Vec::new();
        while limbs.iter().any(|&x| x != 0) {
            chunks.push(limbs_divrem_small(&mut limbs, CHUNK));
        }
        let mut s = String::new();
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                s.push_str(&c.to_string());
            } else {
                s.push_str(&format!("{c:019}"));
            }
        }
        s
    }

    fn hex_digits(&self, upper: bool) -> String {
        let limbs = self.limbs();
        let mut s = String::new();
        for l in limbs.iter().rev() {
            if s.is_empty() {
                if *l != 0 {
                    s = if upper {
                        format!("{l:X}")
                    } else {
                        format!("{l:x}")
                    };
                }
            } else if upper {
                s.push_str(&format!("{l:016X}"));
            } else {
                s.push_str(&format!("{l:016x}"));
            }
        }
        if s.is_empty() {
            s.push('0');
        }
        s
    }
}

impl fmt::Display for Bits {
    /// Decimal; negative `int<W>` values get a minus sign.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad_integral(!self.is_negative(), "", &self.magnitude_decimal())
    }
}

impl fmt::LowerHex for Bits {
    /// The bit pattern in hex (two's complement for negative values).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad_integral(true, "0x", &self.hex_digits(false))
    }
}

impl fmt::UpperHex for Bits {
    /// The bit pattern in hex (two's complement for negative values).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad_integral(true, "0x", &self.hex_digits(true))
    }
}

impl fmt::Debug for Bits {
    /// P4 literal style: `8w0x1f` for `bit<8>`, `8s-3` for `int<8>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ty.signed {
            write!(f, "{}s{}", self.ty.width, self)
        } else {
            write!(f, "{}w{:#x}", self.ty.width, self)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bit(w: u32) -> BitType {
        BitType::unsigned(w).unwrap()
    }
    fn int(w: u32) -> BitType {
        BitType::signed(w).unwrap()
    }
    fn u(w: u32, v: u128) -> Bits {
        Bits::from_u128(bit(w), v)
    }
    fn s(w: u32, v: i128) -> Bits {
        Bits::from_i128(int(w), v)
    }
    /// Reference: sign-extend the low `w` bits of `v`.
    fn sext(w: u32, v: u128) -> i128 {
        let v = v & mask_u128(w);
        if w < 128 && (v >> (w - 1)) & 1 == 1 {
            (v | !mask_u128(w)) as i128
        } else {
            v as i128
        }
    }

    #[test]
    fn types_validate_width() {
        assert!(BitType::unsigned(0).is_ok());
        assert!(BitType::signed(0).is_err());
        assert!(BitType::unsigned(MAX_WIDTH).is_ok());
        assert_eq!(
            BitType::unsigned(MAX_WIDTH + 1),
            Err(BitsError::InvalidWidth {
                width: u64::from(MAX_WIDTH) + 1,
                signed: false
            })
        );
        assert_eq!(int(7).to_string(), "int<7>");
    }

    #[test]
    fn wraparound_and_saturation() {
        assert_eq!(u(8, 250).wrapping_add(&u(8, 10)), u(8, 4));
        assert_eq!(u(8, 3).wrapping_sub(&u(8, 5)), u(8, 254));
        assert_eq!(u(8, 250).saturating_add(&u(8, 10)), u(8, 255));
        assert_eq!(u(8, 3).saturating_sub(&u(8, 5)), u(8, 0));
        assert_eq!(s(8, 120).saturating_add(&s(8, 10)), s(8, 127));
        assert_eq!(s(8, -120).saturating_sub(&s(8, 10)), s(8, -128));
        assert_eq!(s(8, -120).saturating_add(&s(8, 10)), s(8, -110));
        assert_eq!(s(8, 127).wrapping_add(&s(8, 1)), s(8, -128));
    }

    #[test]
    fn shifts_follow_p4() {
        assert_eq!(u(8, 0x81).shl(1), u(8, 0x02));
        assert_eq!(u(8, 0x81).shl(8), u(8, 0));
        assert_eq!(u(8, 0x81).shr(9), u(8, 0));
        assert_eq!(s(8, -128).shr(3), s(8, -16));
        assert_eq!(s(8, -1).shr(100), s(8, -1));
        assert_eq!(s(8, 64).shr(100), s(8, 0));
        assert_eq!(u(8, 1).shl_by(&u(64, u128::from(u64::MAX))), u(8, 0));
        let wide = Bits::ones(bit(300));
        assert_eq!(wide.shl(299).bit_len(), 300);
        assert_eq!(wide.shr(299), Bits::from_u64(bit(300), 1));
        assert_eq!(
            Bits::ones(int(300)).shr(5),
            Bits::ones(int(300)),
            "arithmetic shift of -1 stays -1"
        );
    }

    #[test]
    fn slices_concat_and_casts() {
        let v = u(16, 0xABCD);
        assert_eq!(v.slice(15, 8).unwrap(), u(8, 0xAB));
        assert_eq!(v.slice(3, 0).unwrap(), u(4, 0xD));
        assert!(v.slice(16, 0).is_err());
        assert!(v.slice(3, 4).is_err());
        let mut w = v.clone();
        w.set_slice(11, 4, &u(8, 0x12)).unwrap();
        assert_eq!(w, u(16, 0xA12D));
        assert_eq!(s(8, -1).slice(7, 4).unwrap(), u(4, 0xF));
        let c = u(4, 0xA).concat(&s(8, -1)).unwrap();
        assert_eq!(c, u(12, 0xAFF));
        let c = s(4, -1).concat(&u(4, 0)).unwrap();
        assert_eq!(c, s(8, -16));
        assert_eq!(s(8, -2).cast(int(16)), s(16, -2));
        assert_eq!(s(8, -2).cast(bit(16)), u(16, 0xFFFE));
        assert_eq!(u(8, 0xFE).cast(int(16)), s(16, 0xFE));
        assert_eq!(u(16, 0x1FE).cast(bit(8)), u(8, 0xFE));
        assert_eq!(s(16, -300).cast(int(8)), s(8, -44));
        assert_eq!(s(8, -2).cast(int(200)).to_i128(), Some(-2));
    }

    #[test]
    fn bytes_at_bit_offsets() {
        let buf = [0b1010_1100, 0b0101_0011, 0xFF];
        assert_eq!(Bits::read_bits(bit(4), &buf, 0).unwrap(), u(4, 0b1010));
        assert_eq!(
            Bits::read_bits(bit(9), &buf, 4).unwrap(),
            u(9, 0b1_1000_1010)
        );
        assert_eq!(Bits::read_bits(bit(24), &buf, 0).unwrap(), u(24, 0xAC53FF));
        assert!(Bits::read_bits(bit(9), &buf, 16).is_err());
        let mut out = [0xFFu8; 3];
        u(9, 0).write_bits(&mut out, 3).unwrap();
        assert_eq!(out, [0b1110_0000, 0b0000_1111, 0xFF]);
        let mut out = [0u8; 2];
        u(3, 0b101).write_bits(&mut out, 6).unwrap();
        assert_eq!(out, [0b0000_0010, 0b1000_0000]);
        assert_eq!(u(12, 0xABC).to_be_bytes(), vec![0x0A, 0xBC]);
        assert_eq!(Bits::from_be_bytes(bit(12), &[0xFA, 0xBC]), u(12, 0xABC));
        // Wide values crossing many bytes at an odd offset.
        let wide = Bits::from_str_radix(
            bit(200),
            "123456789abcdef0123456789abcdef0123456789abcdef01",
            16,
        )
        .unwrap();
        let mut buf = vec![0u8; 30];
        wide.write_bits(&mut buf, 5).unwrap();
        assert_eq!(Bits::read_bits(bit(200), &buf, 5).unwrap(), wide);
        assert_eq!(buf[0] & 0xF8, 0, "bits before the offset stay clear");
    }

    #[test]
    fn display_and_parse() {
        assert_eq!(s(8, -3).to_string(), "-3");
        assert_eq!(format!("{:x}", s(8, -3)), "fd");
        assert_eq!(format!("{:#X}", u(16, 0xabc)), "0xABC");
        assert_eq!(format!("{:?}", u(8, 0x1f)), "8w0x1f");
        assert_eq!(format!("{:?}", s(8, -3)), "8s-3");
        let big =
            Bits::from_str_radix(bit(256), "340282366920938463463374607431768211456", 10).unwrap();
        assert_eq!(format!("{big:x}"), "100000000000000000000000000000000");
        assert_eq!(big.to_string(), "340282366920938463463374607431768211456");
        assert_eq!(big.to_u128(), None);
        assert_eq!(
            Bits::from_str_radix(bit(8), "256", 10),
            Err(BitsError::LiteralTooWide {
                needed: 9,
                width: 8
            })
        );
        assert_eq!(
            Bits::from_str_radix(bit(8), "1g", 16),
            Err(BitsError::InvalidDigit {
                digit: 'g',
                radix: 16
            })
        );
        assert_eq!(Bits::parse_unsized("0", 10).unwrap(), u(1, 0));
        assert_eq!(Bits::parse_unsized("1_0000", 2).unwrap(), u(5, 16));
        assert_eq!(Bits::min_value(int(200)).to_string(), {
            // -2^199
            let mut p = Bits::from_u64(bit(201), 1).shl(199).to_string();
            p.insert(0, '-');
            p
        });
    }

    #[test]
    fn division() {
        assert_eq!(u(8, 200).checked_div(&u(8, 7)).unwrap(), u(8, 28));
        assert_eq!(u(8, 200).checked_rem(&u(8, 7)).unwrap(), u(8, 4));
        assert_eq!(s(8, -7).checked_div(&s(8, 2)).unwrap(), s(8, -3));
        assert_eq!(s(8, -7).checked_rem(&s(8, 2)).unwrap(), s(8, -1));
        assert_eq!(
            u(8, 1).checked_div(&u(8, 0)),
            Err(BitsError::DivisionByZero)
        );
        let a = Bits::ones(bit(300));
        let (q, r) = a.checked_div_rem(&Bits::from_u64(bit(300), 3)).unwrap();
        assert!(r.is_zero());
        assert_eq!(q.wrapping_mul(&Bits::from_u64(bit(300), 3)), a);
    }

    #[test]
    fn mismatched_operands_are_coerced() {
        assert_eq!(u(8, 1).wrapping_add(&u(16, 0x1FF)), u(8, 0));
        assert_eq!(u(8, 0xFF).compare(&s(4, -1)), Ordering::Equal);
    }

    /// The generic limb algorithms checked against u128 on two limbs.
    fn via_limbs(w: u32, a: u128, b: u128, op: fn(&[u64], &[u64]) -> Vec<u64>) -> u128 {
        let la = [a as u64, (a >> 64) as u64];
        let lb = [b as u64, (b >> 64) as u64];
        let r = op(&la, &lb);
        ((u128::from(r[1]) << 64) | u128::from(r[0])) & mask_u128(w)
    }

    proptest! {
        #[test]
        fn unsigned_matches_u128(w in 1u32..=128, a: u128, b: u128, sh in 0u64..140) {
            let (a, b) = (a & mask_u128(w), b & mask_u128(w));
            let m = mask_u128(w);
            let (x, y) = (u(w, a), u(w, b));
            prop_assert_eq!(x.wrapping_add(&y).to_u128(), Some(a.wrapping_add(b) & m));
            prop_assert_eq!(x.wrapping_sub(&y).to_u128(), Some(a.wrapping_sub(b) & m));
            prop_assert_eq!(x.wrapping_mul(&y).to_u128(), Some(a.wrapping_mul(b) & m));
            prop_assert_eq!(via_limbs(w, a, b, limbs_add), a.wrapping_add(b) & m);
            prop_assert_eq!(via_limbs(w, a, b, limbs_sub), a.wrapping_sub(b) & m);
            prop_assert_eq!(via_limbs(w, a, b, limbs_mul), a.wrapping_mul(b) & m);
            let sat_add = a.checked_add(b).filter(|v| *v <= m).unwrap_or(m);
            prop_assert_eq!(x.saturating_add(&y).to_u128(), Some(sat_add));
            prop_assert_eq!(x.saturating_sub(&y).to_u128(), Some(a.saturating_sub(b)));
            prop_assert_eq!(x.and(&y).to_u128(), Some(a & b));
            prop_assert_eq!(x.or(&y).to_u128(), Some(a | b));
            prop_assert_eq!(x.xor(&y).to_u128(), Some(a ^ b));
            prop_assert_eq!(x.not().to_u128(), Some(!a & m));
            let shl = if sh >= u64::from(w) { 0 } else { (a << sh) & m };
            let shr = if sh >= u64::from(w) { 0 } else { a >> sh };
            prop_assert_eq!(x.shl(sh).to_u128(), Some(shl));
            prop_assert_eq!(x.shr(sh).to_u128(), Some(shr));
            prop_assert_eq!(x.compare(&y), a.cmp(&b));
            if let (Some(quot), Some(rem)) = (a.checked_div(b), a.checked_rem(b)) {
                prop_assert_eq!(x.checked_div(&y).unwrap().to_u128(), Some(quot));
                prop_assert_eq!(x.checked_rem(&y).unwrap().to_u128(), Some(rem));
                let (q, r) = limbs_divrem(&[a as u64, (a >> 64) as u64], &[b as u64, (b >> 64) as u64]);
                prop_assert_eq!((u128::from(q[1]) << 64) | u128::from(q[0]), quot);
                prop_assert_eq!((u128::from(r[1]) << 64) | u128::from(r[0]), rem);
            } else {
                prop_assert_eq!(x.checked_div(&y), Err(BitsError::DivisionByZero));
            }
            prop_assert_eq!(x.to_string(), a.to_string());
            prop_assert_eq!(format!("{x:x}"), format!("{a:x}"));
            prop_assert_eq!(Bits::from_str_radix(bit(w), &a.to_string(), 10).unwrap(), x.clone());
            let sl = limbs_shl(&[a as u64, (a >> 64) as u64], sh);
            let sr = limbs_shr(&[a as u64, (a >> 64) as u64], sh);
            let sl = (u128::from(sl[1]) << 64) | u128::from(sl[0]);
            let sr = (u128::from(sr[1]) << 64) | u128::from(sr[0]);
            prop_assert_eq!(sl, if sh >= 128 { 0 } else { a << sh });
            prop_assert_eq!(sr, if sh >= 128 { 0 } else { a >> sh });
        }

        #[test]
        fn signed_matches_i128(w in 1u32..=128, a: u128, b: u128, sh in 0u64..140) {
            let (ia, ib) = (sext(w, a), sext(w, b));
            let (x, y) = (s(w, ia), s(w, ib));
            prop_assert_eq!(x.to_i128(), Some(ia));
            prop_assert_eq!(x.wrapping_add(&y).to_i128(), Some(sext(w, ia.wrapping_add(ib) as u128)));
            prop_assert_eq!(x.wrapping_sub(&y).to_i128(), Some(sext(w, ia.wrapping_sub(ib) as u128)));
            prop_assert_eq!(x.wrapping_mul(&y).to_i128(), Some(sext(w, ia.wrapping_mul(ib) as u128)));
            let (min, max) = if w == 128 { (i128::MIN, i128::MAX) } else { (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1) };
            let clamp = |v: Option<i128>| v.map_or_else(
                || if ia < 0 { min } else { max },
                |v| v.clamp(min, max),
            );
            prop_assert_eq!(x.saturating_add(&y).to_i128(), Some(clamp(ia.checked_add(ib))));
            prop_assert_eq!(x.saturating_sub(&y).to_i128(), Some(clamp(ia.checked_sub(ib))));
            let shr = if sh >= u64::from(w) { if ia < 0 { -1 } else { 0 } } else { ia >> sh };
            prop_assert_eq!(x.shr(sh).to_i128(), Some(shr));
            prop_assert_eq!(x.compare(&y), ia.cmp(&ib));
            prop_assert_eq!(x.to_string(), ia.to_string());
            if ib != 0 && !(ia == min && ib == -1) {
                prop_assert_eq!(x.checked_div(&y).unwrap().to_i128(), Some(ia / ib));
                prop_assert_eq!(x.checked_rem(&y).unwrap().to_i128(), Some(ia % ib));
            }
        }

        #[test]
        fn casts_match_reference(w in 1u32..=128, w2 in 1u32..=128, a: u128) {
            let a = a & mask_u128(w);
            let ia = sext(w, a);
            prop_assert_eq!(u(w, a).cast(bit(w2)).to_u128(), Some(a & mask_u128(w2)));
            prop_assert_eq!(s(w, ia).cast(int(w2)).to_i128(), Some(sext(w2, ia as u128)));
            prop_assert_eq!(u(w, a).cast(int(w2)).to_i128(), Some(sext(w2, a)));
            // The wide path must agree with the inline one.
            let wide = s(w, ia).cast(int(w + 200));
            prop_assert_eq!(wide.to_i128(), Some(ia));
            prop_assert_eq!(wide.cast(int(w)), s(w, ia));
        }

        #[test]
        fn bit_io_roundtrips(w in 1u32..=300, off in 0usize..20, seed: u64) {
            let mut limbs = vec![0u64; limb_count(w)];
            let mut x = seed;
            for l in limbs.iter_mut() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *l = x;
            }
            let v = Bits::from_limbs(bit(w), &limbs);
            let len = (off + w as usize).div_ceil(8) + 1;
            let mut buf = vec![0xA5u8; len];
            let before = buf.clone();
            v.write_bits(&mut buf, off).unwrap();
            prop_assert_eq!(Bits::read_bits(bit(w), &buf, off).unwrap(), v.clone());
            // Bits outside the field are untouched.
            for i in (0..off).chain(off + w as usize..len * 8) {
                let b = |x: &[u8]| (x[i / 8] >> (7 - i % 8)) & 1;
                prop_assert_eq!(b(&buf), b(&before));
            }
            if off == 0 && w % 8 == 0 {
                prop_assert_eq!(&buf[..w as usize / 8], &v.to_be_bytes()[..]);
            }
        }

        #[test]
        fn wide_arithmetic_identities(a: u128, b: u128, c: u64) {
            let ty = bit(256);
            let x = Bits::from_u128(ty, a).shl(100).or(&Bits::from_u64(ty, c));
            let y = Bits::from_u128(ty, b);
            prop_assert_eq!(x.wrapping_add(&y).wrapping_sub(&y), x.clone());
            prop_assert_eq!(x.wrapping_sub(&x), Bits::zero(ty));
            // (x * y) mod 2^128 depends only on the low halves.
            let prod = x.wrapping_mul(&y).cast(bit(128));
            let low = x.cast(bit(128)).wrapping_mul(&y.cast(bit(128)));
            prop_assert_eq!(prod, low);
            let hi = x.slice(255, 128).unwrap();
            let lo = x.slice(127, 0).unwrap();
            prop_assert_eq!(hi.concat(&lo).unwrap(), x.clone());
            if !y.is_zero() {
                let (q, r) = x.checked_div_rem(&y).unwrap();
                prop_assert_eq!(q.wrapping_mul(&y).wrapping_add(&r), x.clone());
                prop_assert_eq!(r.compare(&y), Ordering::Less);
            }
        }
    }
}
