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

/// `2^e` as f32 (exact for the exponents allowed: a power of two in f64
/// rounds to itself in f32 unless it is beyond f32's range).
fn pow2(e: i8) -> f32 {
    pow2_f64(e) as f32
}

/// Quantizes `src` into `out` (same length; extra `out` elements are set to
/// 0) with exponent `exponent` for a job of `fan_in` workers. Returns `true`
/// when any value saturated or was not finite (NaN becomes 0, ±∞ becomes ±L).
pub fn quantize_into(src: &[f32], exponent: i8, fan_in: u8, out: &mut [i32]) -> bool {
    let (scale, limit) = (pow2_f64(exponent), f64::from(saturation_limit(fan_in)));
    let mut saturated = false;
    for (o, &x) in out.iter_mut().zip(src) {
        let (q, s) = quantize_one(x, scale, limit);
        saturated |= s;
        *o = q;
    }
    if out.len() > src.len() {
        out[src.len()..].fill(0);
    }
    saturated
}

/// Lanes quantized per step of [`quantize_be_into`]: a fixed-size block
/// lets the compiler vectorize both the arithmetic and the byte swap.
const BLOCK: usize = 16;

/// [`quantize_into`] straight into wire lanes: `out` holds `out.len() / 4`
/// big-endian int32 lanes (trailing bytes that make no whole lane are left
/// alone); lanes past `src` are set to 0. The bytes are exactly those of
/// [`quantize_into`] followed by `to_be_bytes` per lane, without an
/// intermediate buffer the size of the input. Returns `true` when any value
/// saturated or was not finite.
pub fn quantize_be_into(src: &[f32], exponent: i8, fan_in: u8, out: &mut [u8]) -> bool {
    let (scale, limit) = (pow2_f64(exponent), f64::from(saturation_limit(fan_in)));
    let whole = out.len() / 4 * 4;
    let mut saturated = false;
    let mut src_blocks = src.chunks(BLOCK);
    for out_block in out[..whole].chunks_mut(4 * BLOCK) {
        let s = src_blocks.next().unwrap_or(&[]);
        let mut q = [0i32; BLOCK];
        if let Ok(whole) = <&[f32; BLOCK]>::try_from(s) {
            // A full block: a fixed trip count, fully unrolled.
            for (o, &x) in q.iter_mut().zip(whole) {
                let (v, sat) = quantize_one(x, scale, limit);
                saturated |= sat;
                *o = v;
            }
        } else {
            for (o, &x) in q.iter_mut().zip(s) {
                let (v, sat) = quantize_one(x, scale, limit);
                saturated |= sat;
                *o = v;
            }
        }
        if let Ok(block) = <&mut [u8; 4 * BLOCK]>::try_from(&mut *out_block) {
            for (i, v) in q.iter().enumerate() {
                block[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
            }
        } else {
            for (lane, v) in out_block.chunks_exact_mut(4).zip(q) {
                lane.copy_from_slice(&v.to_be_bytes());
            }
        }
    }
    saturated
}

/// `2^e` as f64, exactly (every `i8` exponent is a normal f64 power of two).
fn pow2_f64(e: i8) -> f64 {
    f64::from_bits(((1023 + i64::from(e)) as u64) << 52)
}

/// One value: `(round(x · scale) clamped to ±limit, saturated)`, rounding
/// half away from zero; NaN becomes 0 and ±∞ becomes ±limit (saturated).
///
/// `limit` is below 2³¹. Scaling by a power of two is exact, and so is
/// `|v| + 0.5` for every `|v|` below the limit, so `a` below is exactly the
/// magnitude to truncate. It is capped at `limit + 1` (every larger value
/// saturates alike), so it stays below 2⁵²: adding and subtracting 2⁵²
/// rounds it to an integer exactly, one comparison turns that into the
/// floor, and the integer sits in the low bits of `floor + 2⁵²`. Only
/// compares, selects and arithmetic: unlike `f64::trunc` (a libm call on
/// baseline x86-64) or a saturating `as i32` (scalar), this vectorizes.
#[inline(always)]
fn quantize_one(x: f32, scale: f64, limit: f64) -> (i32, bool) {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    let v = f64::from(x) * scale;
    let nan = v.is_nan();
    let a = v.abs() + 0.5;
    // trunc(|v| + 0.5) > limit exactly when |v| + 0.5 >= limit + 1.
    let saturated = nan || a >= limit + 1.0;
    let a = if a < limit + 1.0 { a } else { limit + 1.0 };
    let r = (a + TWO_52) - TWO_52;
    let floor = if r > a { r - 1.0 } else { r };
    let magnitude = if floor < limit { floor } else { limit };
    let q = (magnitude + TWO_52).to_bits() as u32 as i32;
    let q = if v < 0.0 { q.wrapping_neg() } else { q };
    (if nan { 0 } else { q }, saturated)
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

    /// The straightforward form of [`quantize_one`].
    fn quantize_one_reference(x: f32, scale: f64, limit: f64) -> (i32, bool) {
        let v = f64::from(x) * scale;
        let t = v + 0.5f64.copysign(v);
        let saturated = t.is_nan() || t.abs() >= limit + 1.0;
        (t.clamp(-limit, limit) as i32, saturated)
    }

    #[test]
    fn vectorizable_rounding_matches_the_reference() {
        let mut rng = crate::rng::Rng::new(11);
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
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
        ];
        for n in [1u8, 2, 3, 4, 7, 16, 32] {
            let l = saturation_limit(n) as f32;
            for k in -3i32..=3 {
                let near = f32::from_bits((l.to_bits() as i32 + k) as u32);
                values.extend([near, -near, near - 0.5, 0.5 - near]);
            }
        }
        values.extend((0..20_000).map(|_| f32::from_bits(rng.next_u64() as u32)));
        values.extend((0..20_000).map(|_| (rng.unit() as f32 - 0.5) * 1000.0));
        values.extend((0..2_000).map(|i| i as f32 * 0.5 - 500.0));
        for e in [MIN_EXPONENT, -8, 0, 1, 8, 16, 24, 31, MAX_EXPONENT] {
            for n in [1u8, 2, 3, 32] {
                let (scale, limit) = (pow2_f64(e), f64::from(saturation_limit(n)));
                for &x in &values {
                    assert_eq!(
                        quantize_one(x, scale, limit),
                        quantize_one_reference(x, scale, limit),
                        "x {x:e} ({:#x}) e {e} n {n}",
                        x.to_bits()
                    );
                }
            }
        }
    }

    #[test]
    fn pow2_is_exact() {
        for e in i8::MIN..=i8::MAX {
            assert_eq!(pow2_f64(e), 2f64.powi(i32::from(e)), "{e}");
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
