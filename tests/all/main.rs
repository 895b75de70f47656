//! esa's integration tests, one binary: `cargo test -p esa --test all`
//! (one module per former test file; a module alone: `... --test all <module>::`).

mod bounds;
mod fabric_controller;
mod kill_processes;
mod run_targets;
mod security_flags;
