//! `DATA` lanes quantized a run of chunks at a time.

use crate::quant;

/// Chunks quantized per call: at 32 lanes 8 KiB of lanes, which stay in the
/// first-level cache until their packets copy them out.
const STAGED_CHUNKS: usize = 64;

/// The big-endian lanes of the next chunks of a first round, quantized
/// with one [`quant::quantize_chunks_be_into`] call for
/// [`STAGED_CHUNKS`] of them: a packet's 32 lanes are too few to pay for
/// a quantizer call of their own. A chunk's input does not change before it
/// is sent (results only land in chunks in flight), so what is staged stays
/// what [`quant::quantize_be_into`] would give when the packet is built.
/// The storage is kept across all-reduces.
#[derive(Debug, Clone, Default)]
pub(super) struct Staging {
    /// Chunks `first..first + saturated.len()`, `4 · lanes` bytes each.
    lanes: Vec<u8>,
    /// Whether each staged chunk saturated.
    saturated: Vec<bool>,
    first: usize,
    exponent: i8,
}

impl Staging {
    /// Forgets what is staged: the input changed.
    pub(super) fn clear(&mut self) {
        self.saturated.clear();
    }

    /// The lanes of chunk `index` (of `lanes` values) of `input` quantized
    /// at `exponent` for `fan_in` workers, and whether it saturated; the
    /// chunks from `index` on are quantized first when it is not staged.
    pub(super) fn chunk(
        &mut self,
        input: &[f32],
        lanes: usize,
        index: usize,
        exponent: i8,
        fan_in: u8,
    ) -> (&[u8], bool) {
        let staged = index
            .checked_sub(self.first)
            .filter(|&at| at < self.saturated.len() && self.exponent == exponent);
        let at = match staged {
            Some(at) => at,
            None => {
                let chunks = input
                    .len()
                    .div_ceil(lanes)
                    .saturating_sub(index)
                    .clamp(1, STAGED_CHUNKS);
                self.lanes.resize(4 * lanes * chunks, 0);
                self.saturated.resize(chunks, false);
                let start = index.saturating_mul(lanes).min(input.len());
                quant::quantize_chunks_be_into(
                    &input[start..],
                    lanes,
                    exponent,
                    fan_in,
                    &mut self.lanes,
                    &mut self.saturated,
                );
                self.first = index;
                self.exponent = exponent;
                0
            }
        };
        (
            &self.lanes[4 * lanes * at..][..4 * lanes],
            self.saturated[at],
        )
    }
}
