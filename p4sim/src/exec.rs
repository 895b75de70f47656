//! Execution: the run-time values and algorithms, the table state, and the
//! three engines that run the [`crate::ir`] over one packet.
//!
//! - [`bits`]: arbitrary-width values; [`hash`]: BMv2's hash and checksum
//!   algorithms; [`table`]: table entries and lookup indexes.
//! - [`interp`]: the reference interpreter (`Exec`, one pipeline stage over
//!   a packet's slots), which also runs what the other engines leave to it.
//! - [`engine`]: the IR lowered once more into closures, the default engine.
//! - [`native`]: programs known when the simulator is built, generated as
//!   Rust source and compiled in, falling back to the closures.

pub mod bits;
pub mod engine;
pub mod hash;
pub mod interp;
pub mod native;
pub mod table;
