//! p4runtime-proto's integration tests, one binary: `cargo test -p p4runtime-proto --test all`
//! (one module per former test file; a module alone: `... --test all <module>::`).

mod messages;
mod service;
