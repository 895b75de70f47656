//! p4sim's integration tests, one binary: `cargo test -p p4sim --test all`
//! (one module per former test file; a module alone: `... --test all
//! p4info::`). The programs and STF files they run stay beside this folder
//! (`tests/conformance`, `tests/frontend_programs`, `tests/tna`).

mod engines;
mod exec;
mod frontend;
mod p4c_samples;
mod p4info;
mod support;
mod tna;
