//! The key a job's workers share to check their results
//! ([`esa_core::integrity`]): each checked all-reduce draws its checksum
//! coefficients from ChaCha20 keyed with it, on a stream of its own (the
//! count of checked all-reduces before it), so every worker of the job
//! draws the same coefficients and nobody without the key can predict them.
//!
//! The key never travels with ESA packets; the program that runs the
//! workers hands it out over its own channel (`esa_torch`: rank 0 draws it
//! and broadcasts it over the job's process group).

use chacha20::ChaCha20Rng;
use chacha20::rand_core::{Rng, SeedableRng};
use esa_core::integrity::Coefficients;

/// Bytes of an [`IntegrityKey`].
pub const KEY_LEN: usize = 32;

/// A job's checksum key: 32 secret bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct IntegrityKey([u8; KEY_LEN]);

impl std::fmt::Debug for IntegrityKey {
    /// Never the bytes: configurations and errors get logged.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IntegrityKey(..)")
    }
}

impl IntegrityKey {
    /// The key of these bytes (draw them from a cryptographic source).
    pub fn new(bytes: [u8; KEY_LEN]) -> IntegrityKey {
        IntegrityKey(bytes)
    }

    /// Redraws `out` with the coefficients of checked all-reduce number
    /// `round` (counted from 0 by every worker of the job alike) of a tensor
    /// of `chunks` chunks of `lanes` lanes.
    pub fn coefficients(&self, round: u64, chunks: usize, lanes: usize, out: &mut Coefficients) {
        let mut stream = ChaCha20Rng::from_seed(self.0);
        stream.set_stream(round);
        out.refill(chunks, lanes, || stream.next_u64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(key: &IntegrityKey, round: u64) -> Coefficients {
        let mut c = Coefficients::default();
        key.coefficients(round, 100, 32, &mut c);
        c
    }

    #[test]
    fn the_same_key_and_round_draw_the_same_coefficients() {
        let key = IntegrityKey::new([7; KEY_LEN]);
        assert_eq!(draw(&key, 3), draw(&key.clone(), 3));
        assert_ne!(draw(&key, 3), draw(&key, 4));
        assert_ne!(draw(&key, 3), draw(&IntegrityKey::new([8; KEY_LEN]), 3));
        assert_eq!((draw(&key, 0).chunks(), draw(&key, 0).lanes()), (100, 32));
    }

    #[test]
    fn debug_shows_no_key() {
        let key = IntegrityKey::new([0xab; KEY_LEN]);
        assert_eq!(format!("{key:?}"), "IntegrityKey(..)");
    }
}
