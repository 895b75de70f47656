//! Execution: the run-time values and algorithms, the table state, and the
//! three engines that run the [`crate::ir`] over one packet.
//!
//! - [`bits`]: arbitrary-width values; [`hash`]: BMv2's hash and checksum
//!   algorithms; `narrow`: narrow arithmetic and the bit layout of packets
//!   (the checker folds constants with it too); [`cells`]: register and
//!   meter cells; [`table`]: table entries and lookup indexes; [`state`]:
//!   what every engine runs on (the switch's `Runtime`, a packet's `Frame`
//!   and `Effects`, `Flow`).
//! - [`interp`]: the reference interpreter (`Exec`, one pipeline stage over
//!   a packet's slots), which also runs what the other engines leave to it.
//! - [`engine`]: the IR lowered once more into closures, the default engine.
//! - [`native`]: programs known when the simulator is built, generated as
//!   Rust source and compiled in, falling back to the closures.

pub mod bits;
pub mod cells;
pub mod engine;
pub mod hash;
pub mod interp;
pub(crate) mod lowering;
pub(crate) mod narrow;
pub mod native;
pub mod state;
pub mod table;
