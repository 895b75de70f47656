//! Keyed linear checksums of the integers a job sums, so a worker can tell
//! whether the result it received is the sum of what the workers sent
//! (`docs/protocol.md` §6.5).
//!
//! Aggregation adds the workers' quantized lanes, and a linear function of
//! the lanes commutes with that sum: with coefficients `a_c` per chunk and
//! `b_l` per lane, each worker's contribution checksum
//! `Σ_c a_c · Σ_l b_l · q_{c,l} (mod p)` summed over the workers equals the
//! checksum of the result. The coefficients come from a key the workers share
//! and nobody on the data path knows (the embedding program draws them, e.g.
//! esa-host from ChaCha20); the checksums never travel with ESA packets.
//!
//! Values are taken as the integers the lanes hold (big-endian int32, as the
//! switch delivers them) modulo the Mersenne prime `p = 2⁶¹ − 1`. Honest sums
//! never wrap in 32 bits (quantization clamps every contribution to
//! `⌊(2³¹ − 1) / fan_in⌋`, [`crate::quant`]), so the result's lanes are the
//! exact integer sums; two different int32 values differ by less than
//! `2³² < p`, so no change of a lane, a wrapped one included, is invisible
//! modulo `p`.
//!
//! **Forgery bound.** For a result that differs from the true sum in any lane
//! (any error vector `e ≠ 0`, chosen without knowing the coefficients), the
//! checksum still matches only if `Σ_c a_c · Σ_l b_l · e_{c,l} ≡ 0`: the inner
//! sum of a chunk with a changed lane vanishes with probability at most `1/p`
//! over `b`, and otherwise the outer one with probability at most `1/p` over
//! `a` — at most `2/p ≈ 2⁻⁶⁰` per checked all-reduce with uniform, fresh
//! coefficients.

use crate::constants::MAX_LANES;

/// The prime modulus of every checksum: `2⁶¹ − 1`.
pub const MODULUS: u64 = (1 << 61) - 1;

/// The coefficients of one checked all-reduce: one per lane position and one
/// per chunk, each uniform in `0..MODULUS`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Coefficients {
    lanes: Vec<u64>,
    chunks: Vec<u64>,
}

impl std::fmt::Debug for Coefficients {
    /// Only the sizes: the coefficients are as secret as the key they come from.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coefficients")
            .field("lanes", &self.lanes.len())
            .field("chunks", &self.chunks.len())
            .finish()
    }
}

impl Coefficients {
    /// Redraws the coefficients for a tensor of `chunks` chunks of `lanes`
    /// lanes from `next_u64`, a keyed random stream (the lanes' first, then
    /// the chunks'). Keeps the storage.
    pub fn refill(&mut self, chunks: usize, lanes: usize, mut next_u64: impl FnMut() -> u64) {
        let mut draw = || loop {
            // 61 random bits; the one value ≡ 0 twice over is redrawn.
            let x = next_u64() >> 3;
            if x < MODULUS {
                return x;
            }
        };
        self.lanes.clear();
        self.lanes.extend((0..lanes.min(MAX_LANES)).map(|_| draw()));
        self.chunks.clear();
        self.chunks.extend((0..chunks).map(|_| draw()));
    }

    /// Chunks covered.
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Lanes per chunk covered.
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// The checksum of chunk `chunk`'s lanes `lanes_be` (big-endian int32,
    /// as on the wire): `a_chunk · Σ_l b_l · lane_l mod p`. Lanes past the
    /// coefficients' lane count, and chunks past their chunk count, count
    /// as coefficient 0.
    pub fn chunk_checksum(&self, chunk: usize, lanes_be: &[u8]) -> u64 {
        let Some(&a) = self.chunks.get(chunk) else {
            return 0;
        };
        // Each product is below 2⁶¹ · 2³¹ = 2⁹²; MAX_LANES of them fit in
        // an i128 with room to spare, so the sum is exact until the one
        // reduction.
        let inner: i128 = self
            .lanes
            .iter()
            .zip(lanes_be.chunks_exact(4))
            .map(|(&b, lane)| {
                let v = i32::from_be_bytes([lane[0], lane[1], lane[2], lane[3]]);
                i128::from(b) * i128::from(v)
            })
            .sum();
        let inner = inner.rem_euclid(i128::from(MODULUS)) as u64;
        mul_mod(a, inner)
    }
}

/// `a · b mod p` for `a, b < p`.
fn mul_mod(a: u64, b: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(MODULUS)) as u64
}

/// `Σ checksums mod p`: the sum of every worker's contribution checksum,
/// which an intact result's checksum equals.
pub fn sum(checksums: impl IntoIterator<Item = u64>) -> u64 {
    checksums.into_iter().fold(0, |acc, c| {
        ((u128::from(acc) + u128::from(c)) % u128::from(MODULUS)) as u64
    })
}

/// One worker's checksums of one all-reduce
/// ([`Worker::checksums`](crate::worker::Worker::checksums)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checksums {
    /// Of the lanes this worker contributed to the chunks' accepted results
    /// (each chunk at the exponent its result came at).
    pub contributed: u64,
    /// Of the results it accepted.
    pub received: u64,
}

/// A worker's checksum bookkeeping for the all-reduce running: the
/// coefficients, the contribution of each chunk (an overflow re-run replaces
/// it), and the sum of the results accepted so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChecksumState {
    pub(crate) coefficients: Coefficients,
    contributed: Vec<u64>,
    received: u64,
}

impl ChecksumState {
    /// Starts over with `coefficients` (storage kept).
    pub(crate) fn reset(&mut self, coefficients: &Coefficients) {
        self.coefficients.clone_from(coefficients);
        self.contributed.clear();
        self.contributed.resize(coefficients.chunks(), 0);
        self.received = 0;
    }

    /// Chunk `chunk` was sent with lanes `lanes_be`.
    pub(crate) fn contribute(&mut self, chunk: usize, lanes_be: &[u8]) {
        if let Some(slot) = self.contributed.get_mut(chunk) {
            *slot = self.coefficients.chunk_checksum(chunk, lanes_be);
        }
    }

    /// Chunk `chunk`'s result, with lanes `lanes_be`, was accepted.
    pub(crate) fn receive(&mut self, chunk: usize, lanes_be: &[u8]) {
        self.received = sum([
            self.received,
            self.coefficients.chunk_checksum(chunk, lanes_be),
        ]);
    }

    /// The totals once every chunk's result is in.
    pub(crate) fn totals(&self) -> Checksums {
        Checksums {
            contributed: sum(self.contributed.iter().copied()),
            received: self.received,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::saturation_limit;
    use crate::rng::Rng;

    fn be(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_be_bytes()).collect()
    }

    fn coefficients(seed: u64, chunks: usize, lanes: usize) -> Coefficients {
        let mut rng = Rng::new(seed);
        let mut c = Coefficients::default();
        c.refill(chunks, lanes, || rng.next_u64());
        c
    }

    /// The checksum of a whole tensor, chunk by chunk.
    fn tensor_checksum(c: &Coefficients, tensor: &[Vec<i32>]) -> u64 {
        sum(tensor
            .iter()
            .enumerate()
            .map(|(i, chunk)| c.chunk_checksum(i, &be(chunk))))
    }

    #[test]
    fn coefficients_are_below_the_modulus_and_keyed() {
        let c = coefficients(1, 100, 32);
        assert_eq!((c.lanes.len(), c.chunks.len()), (32, 100));
        assert!(c.lanes.iter().chain(&c.chunks).all(|&x| x < MODULUS));
        assert_ne!(c, coefficients(2, 100, 32));
        assert_eq!(c, coefficients(1, 100, 32));
    }

    #[test]
    fn the_checksum_of_a_sum_is_the_sum_of_the_checksums() {
        let (workers, chunks, lanes) = (32u8, 7, 32);
        let c = coefficients(7, chunks, lanes);
        let limit = saturation_limit(workers);
        let mut rng = Rng::new(3);
        // Contributions up to the saturation limit, the extremes included:
        // the sums reach ±(2³¹ − 1) − ε but never wrap in 32 bits.
        let contributions: Vec<Vec<Vec<i32>>> = (0..workers)
            .map(|w| {
                (0..chunks)
                    .map(|chunk| {
                        (0..lanes)
                            .map(|lane| match (chunk, lane) {
                                (0, 0) => limit,
                                (0, 1) => -limit,
                                _ if w % 2 == 0 => rng.range(0, 2 * limit as u64) as i32 - limit,
                                _ => -(rng.below(1000) as i32),
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let result: Vec<Vec<i32>> = (0..chunks)
            .map(|chunk| {
                (0..lanes)
                    .map(|lane| {
                        let s: i64 = contributions
                            .iter()
                            .map(|w| i64::from(w[chunk][lane]))
                            .sum();
                        i32::try_from(s).expect("quantized sums fit in int32")
                    })
                    .collect()
            })
            .collect();
        assert_eq!(result[0][0], limit * i32::from(workers));
        assert_eq!(result[0][1], -limit * i32::from(workers));
        let contributed = sum(contributions.iter().map(|w| tensor_checksum(&c, w)));
        assert_eq!(tensor_checksum(&c, &result), contributed);
    }

    #[test]
    fn one_changed_lane_is_detected() {
        let (chunks, lanes) = (5, 32);
        let c = coefficients(11, chunks, lanes);
        let honest: Vec<Vec<i32>> = (0..chunks)
            .map(|chunk| (0..lanes).map(|l| (chunk * 100 + l) as i32 - 70).collect())
            .collect();
        let expected = tensor_checksum(&c, &honest);
        // One more; the sign bit flipped (a change by 2³¹, as a wrapped
        // 32-bit sum would show); and changes by ±(2³¹ − 1), which a check
        // modulo that prime (rather than 2⁶¹ − 1) could not see.
        let forgeries: [fn(i32) -> i32; 4] = [
            |v| v + 1,
            |v| v ^ i32::MIN,
            |v| v.wrapping_add(i32::MAX),
            |v| v.wrapping_sub(i32::MAX),
        ];
        for (chunk, lane) in [(0, 0), (2, 17), (4, 31)] {
            for forge in forgeries {
                let mut forged = honest.clone();
                forged[chunk][lane] = forge(forged[chunk][lane]);
                assert_ne!(forged[chunk][lane], honest[chunk][lane]);
                assert_ne!(
                    tensor_checksum(&c, &forged),
                    expected,
                    "chunk {chunk} lane {lane}: {} for {}",
                    forged[chunk][lane],
                    honest[chunk][lane]
                );
            }
        }
        // Swapping two chunks' results is a change too.
        let mut swapped = honest.clone();
        swapped.swap(1, 3);
        assert_ne!(tensor_checksum(&c, &swapped), expected);
    }

    #[test]
    fn a_contribution_re_sent_after_an_overflow_replaces_the_first() {
        let c = coefficients(5, 2, 4);
        let mut state = ChecksumState::default();
        state.reset(&c);
        state.contribute(0, &be(&[1, 2, 3, 4]));
        state.contribute(1, &be(&[i32::MAX / 2, 0, 0, 0]));
        // Chunk 1 overflowed and was re-run at a smaller exponent.
        state.contribute(1, &be(&[5, 0, 0, 0]));
        state.receive(0, &be(&[1, 2, 3, 4]));
        state.receive(1, &be(&[5, 0, 0, 0]));
        let totals = state.totals();
        assert_eq!(totals.contributed, totals.received);
        state.reset(&c);
        assert_eq!(state.totals(), Checksums::default());
    }

    #[test]
    fn sums_reduce_modulo_p() {
        assert_eq!(sum([MODULUS - 1, 1]), 0);
        assert_eq!(sum([MODULUS - 1, MODULUS - 1]), MODULUS - 2);
        assert_eq!(sum(std::iter::repeat_n(MODULUS - 1, 32)), MODULUS - 32);
        assert_eq!(mul_mod(MODULUS - 1, MODULUS - 1), 1);
    }
}
