//! The programs of p4sim's differential tests (`tests/all/engines.rs`)
//! generated into Rust for the native engine by the build script, so that
//! those tests run every program on the native engine beside the closure
//! engine and the reference interpreter; and esa-switch's test program,
//! which its forwarding bench runs natively, as the switch runs esa.p4
//! (the same differential tests check it); and p4c's v1model BMv2 STF
//! samples (the pinned copy in `../tests/p4c_samples/p4c`, or the p4c
//! checkout `ESA_P4C_DIR` names at build time), which
//! `tests/all/p4c_samples.rs` then runs natively. Not published; tests and
//! benches only.

include!(concat!(env!("OUT_DIR"), "/all.rs"));

/// Registers every program with p4sim (idempotent).
pub fn register() {
    for (_, p) in PROGRAMS {
        p4sim::exec::native::register(p);
    }
}
