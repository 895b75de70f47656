//! Float32 ↔ int32 fixed point whose integer sums are exact
//! (`docs/protocol.md` §6.3).
//!
//! A value `x` becomes `q = round(x · 2^e)` (half away from zero) for the job's
//! exponent `e`. With `n` workers every `q` is clamped to `±L`,
//! `L = ⌊(2³¹ − 1) / n⌋`, so a sum of `n` contributions can never overflow
//! int32 anywhere — not in the switch's 32-bit registers, not at the PS. A
//! clamped (saturated) or non-finite input is reported, never wrapped: the
//! worker raises `OVERFLOW` and the chunk is re-run with a smaller exponent.
//!
//! **Error bound.** Rounding moves each contribution by at most `2^−(e+1)`, so
//! for a chunk without saturation the dequantized sum differs from the exact
//! real sum of the inputs by at most `n · 2^−(e+1)`, plus the one float32
//! rounding of converting the integer sum back (relative error ≤ 2⁻²⁴).
//! [`error_bound`] computes it; the tests check it.

/// The smallest exponent a worker falls back to before giving up.
pub const MIN_EXPONENT: i8 = -30;
/// The largest exponent accepted.
pub const MAX_EXPONENT: i8 = 60;
/// How much the exponent drops on each overflow re-run.
pub const OVERFLOW_EXPONENT_STEP: i8 = 8;
/// The exponent workers use unless configured: 2⁻¹⁶ resolution.
pub const DEFAULT_EXPONENT: i8 = 16;

/// The largest magnitude one of `fan_in` contributions may have:
/// `⌊(2³¹ − 1) / fan_in⌋` (`fan_in` 0 is treated as 1).
pub const fn saturation_limit(fan_in: u8) -> i32 {
    let n = if fan_in == 0 { 1 } else { fan_in as i32 };
    i32::MAX / n
}

/// The largest magnitude one contribution of a job of `workers` workers
/// may have, when they are more than a `u8` counts (a job across racks,
/// `docs/protocol.md` §9.5): `⌊(2³¹ − 1) / workers⌋` (0 is treated as 1).
pub const fn job_saturation_limit(workers: u16) -> i32 {
    let n = if workers == 0 { 1 } else { workers as i32 };
    i32::MAX / n
}

/// [`saturation_limit`] of every fan-in: a load instead of a division per
/// call, which is per packet.
static SATURATION_LIMITS: [i32; 256] = {
    let mut limits = [0; 256];
    let mut fan_in = 0;
    while fan_in < 256 {
        limits[fan_in] = saturation_limit(fan_in as u8);
        fan_in += 1;
    }
    limits
};

/// `2^e` as f32, exactly: float32 holds every `i8` exponent's power of two
/// (2¹²⁷ is below its largest value, 2⁻¹²⁸ is a subnormal above 2⁻¹⁴⁹).
fn pow2(e: i8) -> f32 {
    pow2_f64(e) as f32
}

/// Quantizes `src` into `out` (same length; extra `out` elements are set to
/// 0) with exponent `exponent` for a job of `fan_in` workers. Returns `true`
/// when any value saturated or was not finite (NaN becomes 0, ±∞ becomes ±L).
pub fn quantize_into(src: &[f32], exponent: i8, fan_in: u8, out: &mut [i32]) -> bool {
    let limit = SATURATION_LIMITS[usize::from(fan_in)];
    #[cfg(target_arch = "x86_64")]
    if let Some(saturated) = wide::quantize_into(src, exponent, limit, out) {
        return saturated;
    }
    quantize_lanes(src, exponent, limit, out)
}

/// [`quantize_into`] as written, for whatever vector width it is compiled.
#[inline(always)]
fn quantize_lanes(src: &[f32], exponent: i8, limit: i32, out: &mut [i32]) -> bool {
    let scale = pow2(exponent);
    let n = src.len().min(out.len());
    let (body, padding) = out.split_at_mut(n);
    let mut src_blocks = src[..n].chunks_exact(BLOCK);
    let mut out_blocks = body.chunks_exact_mut(BLOCK);
    let mut saturated_lanes = [0u32; BLOCK];
    for (s, o) in (&mut src_blocks).zip(&mut out_blocks) {
        let q = quantize_block(s.try_into().unwrap(), scale, limit, &mut saturated_lanes);
        o.copy_from_slice(&q);
    }
    let mut saturated = any_saturated(&saturated_lanes);
    for (o, &x) in out_blocks
        .into_remainder()
        .iter_mut()
        .zip(src_blocks.remainder())
    {
        let (q, sat) = quantize_one(x, scale, limit);
        saturated |= sat;
        *o = q;
    }
    // Only the last chunk has padding: a full one would still call memset.
    if !padding.is_empty() {
        padding.fill(0);
    }
    saturated
}

/// Lanes quantized per step: a fixed-size block lets the compiler vectorize
/// the arithmetic, the saturation test and the byte swap, and test the
/// saturation flags once per block rather than per lane.
const BLOCK: usize = 16;

/// [`BLOCK`] of the AVX2 build's big-endian path: eight lanes (one vector)
/// a block keep its constants and temporaries in the sixteen registers, where
/// sixteen spilled to the stack (17.2 → 15.7 ns per 32-lane packet in a
/// standalone build); the baseline build, four lanes a vector, is twice as
/// slow at eight (its byte swap does not vectorize) and keeps sixteen.
const WIDE_BE_BLOCK: usize = 8;

/// [`quantize_into`] straight into wire lanes: `out` holds `out.len() / 4`
/// big-endian int32 lanes (trailing bytes that make no whole lane are left
/// alone); lanes past `src` are set to 0. The bytes are exactly those of
/// [`quantize_into`] followed by `to_be_bytes` per lane, without an
/// intermediate buffer the size of the input. Returns `true` when any value
/// saturated or was not finite.
pub fn quantize_be_into(src: &[f32], exponent: i8, fan_in: u8, out: &mut [u8]) -> bool {
    quantize_be_into_within(src, exponent, SATURATION_LIMITS[usize::from(fan_in)], out)
}

/// [`quantize_be_into`] with each value clamped to `±limit`: a job's
/// [`saturation_limit`], or [`job_saturation_limit`] for a job of more
/// workers than a `u8` counts.
#[inline]
pub fn quantize_be_into_within(src: &[f32], exponent: i8, limit: i32, out: &mut [u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(saturated) = wide::quantize_be_into(src, exponent, limit, out) {
        return saturated;
    }
    quantize_be_lanes::<BLOCK>(src, exponent, limit, out)
}

/// [`quantize_be_into_within`] of a batch of packets in one call: chunk `k`
/// of `src` (its values `k · lanes ..`, the last chunk possibly short or
/// empty) becomes the `4 · lanes` bytes at `out[k · stride ..]`, zero-padded
/// as [`quantize_be_into_within`] pads, and `saturated[k]` whether it
/// saturated (or held a value that is not finite). The `stride − 4 · lanes`
/// bytes after each packet's lanes (the next packet's header) are left
/// alone. Every packet's bytes are those of its own
/// [`quantize_be_into_within`] call; the per-call work — the CPU feature
/// test, the call into the AVX2 build, the scale — is paid once per batch.
///
/// Writes `saturated.len()` packets, or as many as `out` holds whole;
/// returns how many. A `stride` shorter than `4 · lanes` (packets that
/// would overlap), or 0, writes none.
pub fn quantize_be_packets_within(
    src: &[f32],
    lanes: usize,
    exponent: i8,
    limit: i32,
    out: &mut [u8],
    stride: usize,
    saturated: &mut [bool],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Some(written) =
        wide::quantize_be_packets(src, lanes, exponent, limit, out, stride, saturated)
    {
        return written;
    }
    quantize_be_packets::<BLOCK>(src, lanes, exponent, limit, out, stride, saturated)
}

/// [`quantize_be_packets_within`] as written, for whatever vector width it
/// is compiled.
#[inline(always)]
fn quantize_be_packets<const B: usize>(
    src: &[f32],
    lanes: usize,
    exponent: i8,
    limit: i32,
    out: &mut [u8],
    stride: usize,
    saturated: &mut [bool],
) -> usize {
    let Some(bytes) = lanes.checked_mul(4).filter(|&b| b <= stride && stride > 0) else {
        return 0;
    };
    let scale = pow2(exponent);
    let mut written = 0;
    for (k, (sat, packet)) in saturated.iter_mut().zip(out.chunks_mut(stride)).enumerate() {
        let Some(lanes_out) = packet.get_mut(..bytes) else {
            break;
        };
        let start = k.saturating_mul(lanes).min(src.len());
        let end = start.saturating_add(lanes).min(src.len());
        *sat = quantize_be_scaled::<B>(&src[start..end], scale, limit, lanes_out);
        written += 1;
    }
    written
}

/// [`quantize_be_into`] as written, for whatever vector width it is
/// compiled.
#[inline(always)]
fn quantize_be_lanes<const B: usize>(
    src: &[f32],
    exponent: i8,
    limit: i32,
    out: &mut [u8],
) -> bool {
    quantize_be_scaled::<B>(src, pow2(exponent), limit, out)
}

/// [`quantize_be_lanes`] with the scale `2^exponent` given.
#[inline(always)]
fn quantize_be_scaled<const B: usize>(src: &[f32], scale: f32, limit: i32, out: &mut [u8]) -> bool {
    let lanes = out.len() / 4;
    let n = src.len().min(lanes);
    let (body, padding) = out[..4 * lanes].split_at_mut(4 * n);
    let mut src_blocks = src[..n].chunks_exact(B);
    let mut out_blocks = body.chunks_exact_mut(4 * B);
    let mut saturated_lanes = [0u32; B];
    for (s, o) in (&mut src_blocks).zip(&mut out_blocks) {
        let q = quantize_block(s.try_into().unwrap(), scale, limit, &mut saturated_lanes);
        for (lane, v) in o.chunks_exact_mut(4).zip(q) {
            lane.copy_from_slice(&v.to_be_bytes());
        }
    }
    let mut saturated = any_saturated(&saturated_lanes);
    let out_rest = out_blocks.into_remainder().chunks_exact_mut(4);
    for (lane, &x) in out_rest.zip(src_blocks.remainder()) {
        let (q, sat) = quantize_one(x, scale, limit);
        saturated |= sat;
        lane.copy_from_slice(&q.to_be_bytes());
    }
    if !padding.is_empty() {
        padding.fill(0);
    }
    saturated
}

/// The quantizer compiled again for AVX2 (eight values per instruction, a
/// one-instruction byte swap) and chosen at run time when the CPU has it:
/// the build targets baseline x86-64 (SSE2), where the same code does four
/// at a time at about half the speed. It is the same source, and float32
/// arithmetic is exactly rounded at any width, so both give the same bits
/// (`wide_matches_portable` checks).
#[cfg(target_arch = "x86_64")]
mod wide {
    // Calling a function compiled for a CPU feature is unsafe: sound only
    // where the CPU has it, which each call checks first.
    #![allow(unsafe_code)]

    /// [`super::quantize_into`] with AVX2, or `None` without it.
    pub(super) fn quantize_into(
        src: &[f32],
        exponent: i8,
        limit: i32,
        out: &mut [i32],
    ) -> Option<bool> {
        // SAFETY: the CPU has AVX2.
        std::is_x86_feature_detected!("avx2")
            .then(|| unsafe { quantize_into_avx2(src, exponent, limit, out) })
    }

    /// [`super::quantize_be_into_within`] with AVX2, or `None` without it.
    #[inline]
    pub(super) fn quantize_be_into(
        src: &[f32],
        exponent: i8,
        limit: i32,
        out: &mut [u8],
    ) -> Option<bool> {
        // SAFETY: the CPU has AVX2.
        std::is_x86_feature_detected!("avx2")
            .then(|| unsafe { quantize_be_into_avx2(src, exponent, limit, out) })
    }

    /// [`super::quantize_be_packets_within`] with AVX2, or `None` without
    /// it.
    pub(super) fn quantize_be_packets(
        src: &[f32],
        lanes: usize,
        exponent: i8,
        limit: i32,
        out: &mut [u8],
        stride: usize,
        saturated: &mut [bool],
    ) -> Option<usize> {
        // SAFETY: the CPU has AVX2.
        std::is_x86_feature_detected!("avx2").then(|| unsafe {
            quantize_be_packets_avx2(src, lanes, exponent, limit, out, stride, saturated)
        })
    }

    #[target_feature(enable = "avx2")]
    fn quantize_be_packets_avx2(
        src: &[f32],
        lanes: usize,
        exponent: i8,
        limit: i32,
        out: &mut [u8],
        stride: usize,
        saturated: &mut [bool],
    ) -> usize {
        super::quantize_be_packets::<{ super::WIDE_BE_BLOCK }>(
            src, lanes, exponent, limit, out, stride, saturated,
        )
    }

    #[target_feature(enable = "avx2")]
    fn quantize_into_avx2(src: &[f32], exponent: i8, limit: i32, out: &mut [i32]) -> bool {
        super::quantize_lanes(src, exponent, limit, out)
    }

    #[target_feature(enable = "avx2")]
    fn quantize_be_into_avx2(src: &[f32], exponent: i8, limit: i32, out: &mut [u8]) -> bool {
        super::quantize_be_lanes::<{ super::WIDE_BE_BLOCK }>(src, exponent, limit, out)
    }
}

/// [`quantize_one`] over a block; each lane's saturation is OR-ed into
/// `saturated`, which is reduced to one flag once per call, not per block.
/// The flags are 32-bit like the lanes: as bytes, every block packed its
/// compare masks down and back (about 15 % of a 32-lane call).
#[inline(always)]
fn quantize_block<const B: usize>(
    src: &[f32; B],
    scale: f32,
    limit: i32,
    saturated: &mut [u32; B],
) -> [i32; B] {
    let mut q = [0i32; B];
    for ((o, any), &x) in q.iter_mut().zip(saturated).zip(src) {
        let (v, s) = quantize_one(x, scale, limit);
        *o = v;
        *any |= u32::from(s);
    }
    q
}

/// Whether any lane saturated. Folded without short-circuit, so it stays
/// a vector OR.
#[inline(always)]
fn any_saturated<const B: usize>(saturated: &[u32; B]) -> bool {
    saturated.iter().fold(0, |any, &s| any | s) != 0
}

/// `2^e` as f64, exactly (every `i8` exponent is a normal f64 power of two).
fn pow2_f64(e: i8) -> f64 {
    f64::from_bits(((1023 + i64::from(e)) as u64) << 52)
}

/// One value: `(round(x · scale) clamped to ±limit, saturated)`, rounding
/// half away from zero; NaN becomes 0 and ±∞ becomes ±limit (saturated).
///
/// All in float32 and int32, four or more values per vector instruction.
/// `scale` is a power of two that float32 holds exactly (every `i8`
/// exponent's is, the smallest as subnormals), so `x · scale` is exact
/// unless it leaves float32's range: above it, it is ±∞ and saturates as the
/// exact product would (it is far above any limit); below 2⁻¹²⁶ it may
/// round, but stays far below 0.5 and quantizes to 0 as the exact product
/// does. The magnitude `a` (below 2³¹, else it saturates) is split exactly
/// into `high`, `a` rounded to a multiple of 256 by adding 2³¹ (float32's
/// spacing there), and `low = a − high`, at most 128 in magnitude; the bits
/// of `a + 2³¹` count `high` in units of 256, and those of `low` plus
/// 1.5 · 2²³ count `low` rounded to an integer, so both become int32s by
/// their bits. That rounding is to nearest, ties to even; a tie it took
/// downwards gets the one added back, which makes the sum `floor(a + 0.5)`.
/// Only arithmetic, compares and selects: a saturating `as i32` is a scalar
/// conversion per value on x86-64 and `f32::round` a libm call, neither
/// vectorizes.
#[inline(always)]
fn quantize_one(x: f32, scale: f32, limit: i32) -> (i32, bool) {
    const TWO_31: f32 = 2_147_483_648.0;
    /// Integers within 2²² of it, of either sign, share its binade, where
    /// float32's spacing is 1.
    const ROUND_MAGIC: f32 = 12_582_912.0;
    let v = x * scale;
    let magnitude = v.abs();
    // Both false for NaN.
    let in_range = magnitude < TWO_31;
    let too_big = magnitude >= TWO_31;
    let a = if in_range { magnitude } else { 0.0 };
    let coarse = a + TWO_31;
    let low = a - (coarse - TWO_31);
    let biased = low + ROUND_MAGIC;
    let tie_taken_down = low - (biased - ROUND_MAGIC) == 0.5;
    // `high` may be 2³¹ itself (with `low` negative): the sum wraps back.
    let rounded = (coarse.to_bits() << 8)
        .wrapping_add(biased.to_bits())
        .wrapping_sub((TWO_31.to_bits() << 8).wrapping_add(ROUND_MAGIC.to_bits()))
        .wrapping_add(u32::from(tie_taken_down)) as i32;
    let over = rounded > limit;
    let q = if over || too_big { limit } else { rounded };
    // `v`'s sign as 0 or −1: `q ^ sign − sign` negates where it is set,
    // without a compare and a select (−0.0 and a negative NaN have it, with
    // `q` 0).
    let sign = (v.to_bits() as i32) >> 31;
    ((q ^ sign).wrapping_sub(sign), over || !in_range)
}

/// Converts integer sums back to float: `out[i] = src[i] · 2^−e`.
pub fn dequantize_into(src: &[i32], exponent: i8, out: &mut [f32]) {
    let inv = pow2(exponent.saturating_neg());
    for (o, &q) in out.iter_mut().zip(src) {
        *o = q as f32 * inv;
    }
}

/// [`dequantize_into`] straight from wire lanes: `src` holds big-endian
/// int32 lanes; `out[i]` gets lane `i` (as many as both have).
pub fn dequantize_be_into(src: &[u8], exponent: i8, out: &mut [f32]) {
    let inv = pow2(exponent.saturating_neg());
    for (o, lane) in out.iter_mut().zip(src.chunks_exact(4)) {
        let q = i32::from_be_bytes([lane[0], lane[1], lane[2], lane[3]]);
        *o = q as f32 * inv;
    }
}

/// The largest exponent at which values of magnitude up to `max_abs` do not
/// saturate for `fan_in` workers, clamped to `MIN_EXPONENT..=MAX_EXPONENT`.
pub fn exponent_for(max_abs: f32, fan_in: u8) -> i8 {
    if !max_abs.is_finite() || max_abs <= 0.0 {
        return MAX_EXPONENT;
    }
    let limit = f64::from(saturation_limit(fan_in));
    // round(x·2^e) ≤ L needs x·2^e ≤ L − 0.5.
    let e = ((limit - 0.5) / f64::from(max_abs)).log2().floor();
    e.clamp(f64::from(MIN_EXPONENT), f64::from(MAX_EXPONENT)) as i8
}

/// The bound on |dequantized sum − exact sum| for `fan_in` contributions at
/// exponent `e` whose exact sum has magnitude `sum_abs`, for chunks that did
/// not saturate.
pub fn error_bound(fan_in: u8, exponent: i8, sum_abs: f64) -> f64 {
    let rounding = f64::from(fan_in) * 2f64.powi(-(i32::from(exponent) + 1));
    // One f32 rounding of the (integer-exact) result.
    rounding + (sum_abs + rounding) * f64::from(f32::EPSILON) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn limit_keeps_sums_in_range() {
        for n in 1..=32u8 {
            let l = i64::from(saturation_limit(n));
            assert!(l * i64::from(n) <= i64::from(i32::MAX), "fan_in {n}");
            assert!(
                (l + 1) * i64::from(n) > i64::from(i32::MAX),
                "fan_in {n} not tight"
            );
        }
    }

    #[test]
    fn exact_integers_round_trip() {
        let src = [0.0, 1.0, -1.0, 0.5, -0.25, 1234.75];
        let mut q = [0; 6];
        assert!(!quantize_into(&src, 4, 8, &mut q));
        assert_eq!(q, [0, 16, -16, 8, -4, 19_756]);
        let mut back = [0.0; 6];
        dequantize_into(&q, 4, &mut back);
        assert_eq!(back, src);
    }

    #[test]
    fn rounds_half_away_from_zero() {
        let mut q = [0; 4];
        quantize_into(&[0.5, -0.5, 1.5, 2.49], 0, 1, &mut q);
        assert_eq!(q, [1, -1, 2, 2]);
    }

    #[test]
    fn rounding_is_exact_at_the_edges() {
        let just_below_half = f32::from_bits(0.5f32.to_bits() - 1);
        let mut q = [9; 4];
        quantize_into(
            &[just_below_half, -just_below_half, 2.5, -2.5],
            0,
            1,
            &mut q,
        );
        assert_eq!(q, [0, 0, 3, -3]);
        // L has more bits than an f32 mantissa: the largest f32 not above
        // it fits exactly, the next one saturates to L.
        let l = saturation_limit(16);
        let below = (l as f32).next_down();
        assert!(f64::from(below) <= f64::from(l) && (l as f32) as i64 > i64::from(l));
        let mut one = [0];
        assert!(!quantize_into(&[below], 0, 16, &mut one));
        assert_eq!(one[0], below as i32);
        assert!(quantize_into(&[below.next_up()], 0, 16, &mut one));
        assert_eq!(one[0], l);
    }

    #[test]
    fn saturation_is_reported_and_clamped() {
        let l = saturation_limit(4);
        let mut q = [0; 3];
        assert!(quantize_into(&[1e30, -1e30, 1.0], 0, 4, &mut q));
        assert_eq!(q[0], l);
        assert_eq!(q[1], -q[0]);
        assert_eq!(q[2], 1);
        // Four saturated contributions still sum without overflow.
        assert!(q[0].checked_mul(4).is_some());
    }

    #[test]
    fn non_finite_is_reported() {
        let mut q = [7; 3];
        assert!(quantize_into(&[f32::NAN], 0, 2, &mut q[..1]));
        assert_eq!(q[0], 0);
        assert!(quantize_into(&[f32::INFINITY], 0, 2, &mut q[..1]));
        assert_eq!(q[0], saturation_limit(2));
        assert!(!quantize_into(&[1.0], 0, 2, &mut q[..1]));
    }

    #[test]
    fn short_source_pads_with_zero() {
        let mut q = [9; 4];
        quantize_into(&[1.0, 2.0], 0, 1, &mut q);
        assert_eq!(q, [1, 2, 0, 0]);
    }

    #[test]
    fn exponent_for_fits_the_limit() {
        for (max, n) in [(1.0f32, 8u8), (1e-3, 32), (3.5e6, 2), (1e-12, 1)] {
            let e = exponent_for(max, n);
            let mut q = [0; 2];
            assert!(!quantize_into(&[max, -max], e, n, &mut q), "{max} {n} {e}");
            if e < MAX_EXPONENT {
                assert!(
                    quantize_into(&[max, -max], e + 1, n, &mut q),
                    "{max} {n} {e} not largest"
                );
            }
        }
    }

    /// The straightforward form of [`quantize_one`], in float64.
    fn quantize_one_reference(x: f32, exponent: i8, fan_in: u8) -> (i32, bool) {
        let limit = f64::from(saturation_limit(fan_in));
        let v = f64::from(x) * pow2_f64(exponent);
        let t = v + 0.5f64.copysign(v);
        let saturated = t.is_nan() || t.abs() >= limit + 1.0;
        (t.clamp(-limit, limit) as i32, saturated)
    }

    fn assert_matches_reference(x: f32, exponent: i8, fan_in: u8) {
        assert_eq!(
            quantize_one(x, pow2(exponent), saturation_limit(fan_in)),
            quantize_one_reference(x, exponent, fan_in),
            "x {x:e} ({:#x}) e {exponent} n {fan_in}",
            x.to_bits()
        );
    }

    /// Inputs where rounding or saturation could go wrong, and random ones.
    fn awkward_values(rng: &mut crate::rng::Rng) -> Vec<f32> {
        let mut values: Vec<f32> = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999997,
            -0.49999997,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::from_bits(0x007f_ffff),
            8_388_607.5,
            8_388_608.0,
            16_777_215.0,
            2_147_483_520.0,
            2_147_483_648.0,
            -2_147_483_648.0,
            4_294_967_296.0,
        ];
        for n in [1u8, 2, 3, 4, 7, 16, 32, 255] {
            let l = saturation_limit(n) as f32;
            for k in -3i32..=3 {
                let near = f32::from_bits((l.to_bits() as i32 + k) as u32);
                values.extend([near, -near, near - 0.5, 0.5 - near]);
            }
        }
        // Halves and their neighbours, where ties are decided.
        for i in 0..200 {
            let half = i as f32 + 0.5;
            values.extend([half, -half, half.next_up(), half.next_down()]);
        }
        values.extend((0..20_000).map(|_| f32::from_bits(rng.next_u64() as u32)));
        values.extend((0..20_000).map(|_| (rng.unit() as f32 - 0.5) * 1000.0));
        values.extend((0..2_000).map(|i| i as f32 * 0.5 - 500.0));
        values
    }

    #[test]
    fn vectorizable_rounding_matches_the_reference() {
        let values = awkward_values(&mut crate::rng::Rng::new(11));
        let exponents = [
            i8::MIN,
            -127,
            -126,
            -100,
            MIN_EXPONENT,
            -8,
            0,
            1,
            8,
            16,
            24,
            31,
        ];
        let exponents = exponents.into_iter().chain([MAX_EXPONENT, 100, i8::MAX]);
        for e in exponents {
            for n in [1u8, 2, 3, 32, 255] {
                for &x in &values {
                    assert_matches_reference(x, e, n);
                }
            }
        }
    }

    /// Every exponent, on values scaled to land near the rounding and
    /// saturation edges at that exponent.
    #[test]
    fn every_exponent_matches_the_reference() {
        let mut rng = crate::rng::Rng::new(17);
        for e in i8::MIN..=i8::MAX {
            let unscale = pow2_f64(e.saturating_neg());
            for n in [1u8, 4, 255] {
                let limit = f64::from(saturation_limit(n));
                for _ in 0..300 {
                    let target = match rng.below(3) {
                        0 => rng.below(64) as f64 * 0.5,
                        1 => limit + rng.below(5) as f64 - 2.5,
                        _ => rng.unit() * limit,
                    };
                    let x = (target * unscale) as f32;
                    for x in [x, -x, x.next_up(), x.next_down()] {
                        assert_matches_reference(x, e, n);
                    }
                }
            }
        }
    }

    /// The slice functions, blocks and remainders alike, give each lane
    /// the reference's value and the OR of its saturation flags.
    #[test]
    fn slices_match_the_reference_lane_by_lane() {
        let mut rng = crate::rng::Rng::new(23);
        let values = awkward_values(&mut rng);
        for round in 0..400 {
            let len = rng.below(3 * BLOCK as u64 + 2) as usize;
            let src: Vec<f32> = (0..len)
                .map(|_| values[rng.below(values.len() as u64) as usize])
                .collect();
            let e = rng.below(256) as u8 as i8;
            let fan_in = 1 + rng.below(255) as u8;
            let expected: Vec<(i32, bool)> = src
                .iter()
                .map(|&x| quantize_one_reference(x, e, fan_in))
                .collect();
            let expected_saturated = expected.iter().any(|&(_, s)| s);
            let mut q = vec![7; len + 3];
            let saturated = quantize_into(&src, e, fan_in, &mut q);
            let lanes: Vec<i32> = expected.iter().map(|&(v, _)| v).collect();
            assert_eq!(&q[..len], &lanes[..], "round {round} e {e} n {fan_in}");
            assert_eq!(&q[len..], &[0; 3], "round {round}");
            assert_eq!(saturated, expected_saturated, "round {round}");
            let mut bytes = vec![0xaa; 4 * (len + 3) + 2];
            let saturated = quantize_be_into(&src, e, fan_in, &mut bytes);
            let mut expected_bytes: Vec<u8> = lanes.iter().flat_map(|v| v.to_be_bytes()).collect();
            expected_bytes.extend([0; 12].into_iter().chain([0xaa; 2]));
            assert_eq!(bytes, expected_bytes, "round {round} e {e} n {fan_in}");
            assert_eq!(saturated, expected_saturated, "round {round}");
        }
    }

    /// The run-time choice (AVX2 where the CPU has it) gives the bits of
    /// the portable build.
    #[test]
    fn wide_matches_portable() {
        let mut rng = crate::rng::Rng::new(29);
        let values = awkward_values(&mut rng);
        for round in 0..400 {
            let len = rng.below(4 * BLOCK as u64) as usize;
            let src: Vec<f32> = (0..len)
                .map(|_| values[rng.below(values.len() as u64) as usize])
                .collect();
            let e = rng.below(256) as u8 as i8;
            let fan_in = rng.below(256) as u8;
            let lanes = len + rng.below(3) as usize;
            let (mut q, mut q_portable) = (vec![7; lanes], vec![7; lanes]);
            assert_eq!(
                quantize_into(&src, e, fan_in, &mut q),
                quantize_lanes(&src, e, saturation_limit(fan_in), &mut q_portable),
                "round {round}"
            );
            assert_eq!(q, q_portable, "round {round}");
            let (mut b, mut b_portable) = (vec![7; 4 * lanes + 1], vec![7; 4 * lanes + 1]);
            assert_eq!(
                quantize_be_into(&src, e, fan_in, &mut b),
                quantize_be_lanes::<BLOCK>(&src, e, saturation_limit(fan_in), &mut b_portable),
                "round {round}"
            );
            assert_eq!(b, b_portable, "round {round}");
        }
    }

    /// A batch of packets gets, packet by packet, the bytes and the flag of
    /// one `quantize_be_into_within` call per packet — full chunks, a short
    /// last chunk (zero padding), chunks past the input (all padding),
    /// saturated, NaN and infinite values next to clean packets — at 32 and
    /// 64 lanes (and odd widths), from the run-time choice (AVX2 where the
    /// CPU has it) and the portable build alike; the bytes between packets
    /// (their headers) are left alone.
    #[test]
    fn packets_match_one_call_per_packet() {
        const HEADER: usize = 16;
        let mut rng = crate::rng::Rng::new(31);
        let values = awkward_values(&mut rng);
        let mut saw = [0usize; 2];
        for round in 0..600 {
            let lanes = [32, 64, 32, 64, 16, 5, 1][round % 7];
            let packets = 1 + rng.below(6) as usize;
            let len = rng.below((packets * lanes + 1) as u64) as usize;
            // Packets of clean values, some with one awkward value.
            let awkward_every = [0, 4, 40, 400][rng.below(4) as usize];
            let src: Vec<f32> = (0..len)
                .map(|_| {
                    if awkward_every > 0 && rng.below(awkward_every) == 0 {
                        values[rng.below(values.len() as u64) as usize]
                    } else {
                        (rng.below(2001) as f32 - 1000.0) / 7.0
                    }
                })
                .collect();
            let e = [16, 0, -3, 20, rng.below(256) as u8 as i8][rng.below(5) as usize];
            let limit = saturation_limit(1 + rng.below(32) as u8);
            let stride = 4 * lanes + HEADER;
            let mut expected = vec![0xaa; packets * stride + 3];
            let mut expected_flags = vec![false; packets];
            for (k, flag) in expected_flags.iter_mut().enumerate() {
                let start = (k * lanes).min(len);
                let end = (start + lanes).min(len);
                let out = &mut expected[k * stride..k * stride + 4 * lanes];
                *flag = quantize_be_into_within(&src[start..end], e, limit, out);
                saw[usize::from(*flag)] += 1;
            }
            let mut flags = vec![true; packets];
            let mut out = vec![0xaa; packets * stride + 3];
            let written =
                quantize_be_packets_within(&src, lanes, e, limit, &mut out, stride, &mut flags);
            assert_eq!(written, packets, "round {round}");
            assert_eq!(out, expected, "round {round} lanes {lanes} e {e}");
            assert_eq!(flags, expected_flags, "round {round}");
            let mut flags = vec![true; packets];
            let mut out = vec![0xaa; packets * stride + 3];
            let written =
                quantize_be_packets::<BLOCK>(&src, lanes, e, limit, &mut out, stride, &mut flags);
            assert_eq!(written, packets, "round {round}");
            assert_eq!(out, expected, "round {round} portable");
            assert_eq!(flags, expected_flags, "round {round} portable");
            // Room for one packet fewer: the last is not written.
            let mut flags = vec![true; packets];
            let mut out = vec![0xaa; (packets - 1) * stride + 4 * lanes - 1];
            let written =
                quantize_be_packets_within(&src, lanes, e, limit, &mut out, stride, &mut flags);
            assert_eq!(written, packets - 1, "round {round}");
            let (packets_out, rest) = out.split_at((packets - 1) * stride);
            assert_eq!(packets_out, &expected[..packets_out.len()], "round {round}");
            assert!(rest.iter().all(|&b| b == 0xaa), "round {round}");
            assert_eq!(flags[..packets - 1], expected_flags[..packets - 1]);
            assert!(flags[packets - 1]);
        }
        assert!(saw[0] > 200 && saw[1] > 200, "{saw:?}");
    }

    /// Overlapping packets are refused, not half written.
    #[test]
    fn packets_shorter_than_their_lanes_write_nothing() {
        let src = [1.0f32; 64];
        let mut out = [0xaau8; 512];
        let mut flags = [true; 4];
        assert_eq!(
            quantize_be_packets_within(&src, 32, 16, i32::MAX, &mut out, 127, &mut flags),
            0
        );
        assert_eq!(
            quantize_be_packets_within(&src, usize::MAX, 16, i32::MAX, &mut out, 128, &mut flags),
            0
        );
        assert_eq!(
            quantize_be_packets_within(&src, 0, 16, i32::MAX, &mut out, 0, &mut flags),
            0
        );
        assert_eq!(out, [0xaa; 512]);
        assert_eq!(flags, [true; 4]);
    }

    /// A job of more workers than a `u8` counts (1,024 across racks)
    /// clamps each contribution so that all of them still sum in int32.
    #[test]
    fn a_job_of_many_workers_clamps_by_all_of_them() {
        assert_eq!(job_saturation_limit(1024), 2_097_151);
        assert_eq!(job_saturation_limit(0), i32::MAX);
        for fan_in in 0..=u8::MAX {
            assert_eq!(
                job_saturation_limit(u16::from(fan_in)),
                saturation_limit(fan_in)
            );
        }
        let limit = job_saturation_limit(1024);
        let src = [1e9, -1e9, 2_097_151.0 / 65536.0, 0.5];
        let mut out = [0u8; 16];
        assert!(quantize_be_into_within(&src, 16, limit, &mut out));
        let lanes: Vec<i32> = out
            .chunks_exact(4)
            .map(|b| i32::from_be_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(lanes, [2_097_151, -2_097_151, 2_097_151, 32_768]);
        assert!((i64::from(lanes[0]) * 1024) <= i64::from(i32::MAX));
        // Within the limit nothing saturates.
        assert!(!quantize_be_into_within(&src[2..], 16, limit, &mut out));
    }

    #[test]
    fn pow2_is_exact() {
        for e in i8::MIN..=i8::MAX {
            assert_eq!(pow2_f64(e), 2f64.powi(i32::from(e)), "{e}");
            assert_eq!(f64::from(pow2(e)), pow2_f64(e), "{e}");
            // powi is not exact below f32's normal range.
            if e >= -126 {
                assert_eq!(pow2(e), 2f32.powi(i32::from(e)), "{e}");
            }
        }
    }

    #[test]
    fn big_endian_dequantize_matches() {
        let mut rng = crate::rng::Rng::new(5);
        let q: Vec<i32> = (0..64).map(|_| rng.next_u64() as i32).collect();
        let bytes: Vec<u8> = q.iter().flat_map(|v| v.to_be_bytes()).collect();
        for e in [MIN_EXPONENT, -3, 0, 16, MAX_EXPONENT] {
            let (mut a, mut b) = ([0f32; 64], [0f32; 64]);
            dequantize_into(&q, e, &mut a);
            dequantize_be_into(&bytes, e, &mut b);
            assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{e}");
            // Fewer outputs than lanes take the first lanes.
            let mut short = [0f32; 3];
            dequantize_be_into(&bytes, e, &mut short);
            assert_eq!(short, a[..3]);
        }
    }

    #[test]
    fn big_endian_lanes_match_quantize_into() {
        let mut rng = crate::rng::Rng::new(3);
        let specials = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.5,
            -0.5,
            -0.0,
            1e30,
        ];
        for round in 0..500 {
            let lanes = 1 + rng.below(64) as usize;
            let n = rng.below(lanes as u64 + 1) as usize;
            let src: Vec<f32> = (0..n)
                .map(|_| {
                    if rng.below(16) == 0 {
                        specials[rng.below(specials.len() as u64) as usize]
                    } else {
                        f32::from_bits(rng.next_u64() as u32 & 0xbfff_ffff)
                    }
                })
                .collect();
            let e = (rng.below(71) as i64 + i64::from(MIN_EXPONENT)) as i8;
            let fan_in = 1 + rng.below(32) as u8;
            let mut q = vec![7; lanes];
            let expected_saturated = quantize_into(&src, e, fan_in, &mut q);
            let expected: Vec<u8> = q.iter().flat_map(|v| v.to_be_bytes()).collect();
            // One spare byte that is not a whole lane stays untouched.
            let mut out = vec![0xaa; 4 * lanes + 1];
            let saturated = quantize_be_into(&src, e, fan_in, &mut out);
            assert_eq!(saturated, expected_saturated, "round {round}");
            assert_eq!(&out[..4 * lanes], &expected[..], "round {round}");
            assert_eq!(out[4 * lanes], 0xaa);
        }
    }

    proptest! {
        #[test]
        fn sum_error_within_bound(
            values in proptest::collection::vec(proptest::collection::vec(-1000.0f32..1000.0, 8), 1..=32),
            e in 0i8..=16,
        ) {
            let n = values.len() as u8;
            let mut sums = [0i32; 8];
            for v in &values {
                let mut q = [0i32; 8];
                prop_assert!(!quantize_into(v, e, n, &mut q));
                for (s, x) in sums.iter_mut().zip(q) {
                    *s = s.checked_add(x).expect("sum of clamped contributions overflowed");
                }
            }
            let mut out = [0f32; 8];
            dequantize_into(&sums, e, &mut out);
            for lane in 0..8 {
                let exact: f64 = values.iter().map(|v| f64::from(v[lane])).sum();
                let err = (f64::from(out[lane]) - exact).abs();
                prop_assert!(err <= error_bound(n, e, exact.abs()), "lane {lane}: {err}");
            }
        }
    }
}
