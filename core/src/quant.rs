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

/// `2^e` as f32 (exact for the exponents allowed).
fn pow2(e: i8) -> f32 {
    2f32.powi(i32::from(e))
}

/// Quantizes `src` into `out` (same length; extra `out` elements are set to
/// 0) with exponent `exponent` for a job of `fan_in` workers. Returns `true`
/// when any value saturated or was not finite (NaN becomes 0, ±∞ becomes ±L).
pub fn quantize_into(src: &[f32], exponent: i8, fan_in: u8, out: &mut [i32]) -> bool {
    // In f64 both the scaling by a power of two and the `+ 0.5` are exact for
    // every value below the limit, so truncating rounds half away from zero
    // exactly; this form also vectorizes, unlike `f32::round` (a libm call on
    // baseline x86-64).
    let scale = 2f64.powi(i32::from(exponent));
    let limit = f64::from(saturation_limit(fan_in));
    let mut saturated = false;
    for (o, &x) in out.iter_mut().zip(src) {
        let v = f64::from(x) * scale;
        let t = v + 0.5f64.copysign(v);
        // trunc(t) > limit exactly when |t| >= limit + 1.
        saturated |= t.is_nan() || t.abs() >= limit + 1.0;
        *o = t.clamp(-limit, limit) as i32;
    }
    if out.len() > src.len() {
        out[src.len()..].fill(0);
    }
    saturated
}

/// Converts integer sums back to float: `out[i] = src[i] · 2^−e`.
pub fn dequantize_into(src: &[i32], exponent: i8, out: &mut [f32]) {
    let inv = pow2(exponent.saturating_neg());
    for (o, &q) in out.iter_mut().zip(src) {
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
