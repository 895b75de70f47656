//! Synthetic gradients: deterministic values whose sums are exact in f32,
//! so a lost or doubled contribution always shows. The simulator, `esa
//! worker`'s training loop, the testbeds' jobs and the benchmarks all draw
//! from [`gradient_value`].

/// A value of the gradient of `worker` in `iteration` at `element`: a
/// nonzero integer in `-500..=500`, so sums are exact in f32 and a missing or
/// doubled contribution always changes the sum.
pub fn gradient_value(seed: u64, job: u16, worker: u8, iteration: u32, element: usize) -> f32 {
    let mut x = seed
        ^ (u64::from(job) << 48)
        ^ (u64::from(worker) << 40)
        ^ (u64::from(iteration) << 32)
        ^ element as u64;
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    let v = (x % 1000) as i32 - 500;
    (if v == 0 { 1 } else { v }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_nonzero_integers_in_range() {
        for i in 0..10_000 {
            let v = gradient_value(7, 3, (i % 32) as u8, (i / 32) as u32, i);
            assert!(v != 0.0 && v.fract() == 0.0 && v.abs() <= 500.0, "{v}");
        }
        assert_eq!(gradient_value(1, 2, 3, 4, 5), gradient_value(1, 2, 3, 4, 5));
        assert_ne!(
            (0..8)
                .map(|i| gradient_value(1, 2, 3, 4, i))
                .collect::<Vec<_>>(),
            (0..8)
                .map(|i| gradient_value(1, 2, 4, 4, i))
                .collect::<Vec<_>>()
        );
    }
}
