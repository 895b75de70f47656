//! ESA's P4 programs as Rust: everything the Rust side knows about
//! `p4/v1model/esa.p4` and `p4/tna/esa.p4`, in one crate.
//!
//! - [`program`]: where the programs are ([`Arch`]), their `-D` defines,
//!   p4sim's compile of one.
//! - [`tables`]: the tables the controller writes, one Rust type per key
//!   and action, bound to both programs' P4 names and widths; the job
//!   table's action is the model's own `esa_core::job::JobEntry`.
//! - [`counters`]: where each program keeps the model's counters and slot
//!   registers.
//! - [`constants`]: generates `p4/include/constants.p4` (protocol numbers,
//!   modes, admission verdicts, counter rows) from the Rust definitions.
//! - [`sim`]: programs p4sim directly with typed entries; [`text`] writes
//!   them as STF lines or BMv2 CLI commands.
//! - [`bench`](mod@bench): the data-plane benchmark behind `esa bench dataplane`
//!   (feature `bench`).
//! - [`native`]: the programs compiled ahead of time into Rust for p4sim's
//!   native engine; [`register`] makes every switch built afterwards for
//!   one of those configurations run the generated code instead of the
//!   closure engine (the same results, about twice as fast: `esa bench
//!   dataplane`). Any other configuration runs on the closures.
//!
//! The controller turns the same typed entries into P4Runtime messages
//! (`esa_controller::entries`), so a change to an action's parameters
//! touches [`tables`] and the P4 source, and nothing else.

#[cfg(feature = "bench")]
pub mod bench;
pub mod constants;
pub mod counters;
pub mod program;
pub mod sim;
pub mod tables;
pub mod text;

pub use program::{Arch, Defines};

/// The generated native code, one module per configuration (feature
/// `native`, on by default).
#[cfg(feature = "native")]
pub mod native {
    /// `v1model/esa.p4` with `ESA_LANES=32`, `ESA_POOL_SLOTS=4096` (the
    /// defaults).
    pub mod esa_k32_s4096 {
        include!(concat!(env!("OUT_DIR"), "/esa_k32_s4096.rs"));
    }

    /// `v1model/esa.p4` with `ESA_LANES=64`, `ESA_POOL_SLOTS=4096`.
    pub mod esa_k64_s4096 {
        include!(concat!(env!("OUT_DIR"), "/esa_k64_s4096.rs"));
    }

    /// `v1model/esa.p4` with `ESA_LANES=32`, `ESA_POOL_SLOTS=256`
    /// (`testbed/experiments/quick.toml`).
    pub mod esa_k32_s256 {
        include!(concat!(env!("OUT_DIR"), "/esa_k32_s256.rs"));
    }

    /// `v1model/esa.p4` with `ESA_LANES=32`, `ESA_POOL_SLOTS=64`
    /// (`contention.toml`, `loss.toml`).
    pub mod esa_k32_s64 {
        include!(concat!(env!("OUT_DIR"), "/esa_k32_s64.rs"));
    }

    /// `v1model/esa.p4` with `ESA_LANES=32`, `ESA_POOL_SLOTS=32`
    /// (`train.toml`, `contention-bmv2.toml`).
    pub mod esa_k32_s32 {
        include!(concat!(env!("OUT_DIR"), "/esa_k32_s32.rs"));
    }

    /// `tests/esa_small.p4` (4 lanes, 16 slots), the program of the STF tests.
    pub mod esa_small {
        include!(concat!(env!("OUT_DIR"), "/esa_small.rs"));
    }

    /// `tna/esa.p4` (the Tofino program) with `ESA_LANES=32`,
    /// `ESA_POOL_SLOTS=256` (`esa run --arch tna quick.toml`).
    pub mod esa_tna_k32_s256 {
        include!(concat!(env!("OUT_DIR"), "/esa_tna_k32_s256.rs"));
    }

    /// `tna/esa.p4` with `ESA_LANES=32`, `ESA_POOL_SLOTS=64` (`contention.toml`).
    pub mod esa_tna_k32_s64 {
        include!(concat!(env!("OUT_DIR"), "/esa_tna_k32_s64.rs"));
    }

    /// `tna/tests/esa_small.p4`, the Tofino program of the STF and
    /// differential tests.
    pub mod esa_tna_small {
        include!(concat!(env!("OUT_DIR"), "/esa_tna_small.rs"));
    }

    /// Every generated program.
    pub static PROGRAMS: [&p4sim::exec::native::NativeProgram; 9] = [
        &esa_k32_s4096::PROGRAM,
        &esa_k64_s4096::PROGRAM,
        &esa_k32_s256::PROGRAM,
        &esa_k32_s64::PROGRAM,
        &esa_k32_s32::PROGRAM,
        &esa_small::PROGRAM,
        &esa_tna_k32_s256::PROGRAM,
        &esa_tna_k32_s64::PROGRAM,
        &esa_tna_small::PROGRAM,
    ];

    /// Registers every generated program with p4sim (idempotent).
    pub fn register() {
        for p in PROGRAMS {
            p4sim::exec::native::register(p);
        }
    }
}

#[cfg(feature = "native")]
pub use native::register;
