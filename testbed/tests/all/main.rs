//! esa-testbed's integration tests, one binary: `cargo test -p esa-testbed --test all`
//! (one module per former test file; a module alone: `... --test all <module>::`).

mod common;
mod faults;
mod local;
mod local_faults;
mod local_malformed;
mod local_support;
mod loss;
mod netns;
mod quick;
mod racks;
mod racks_emulated;
mod sim_fabric;
mod sim_vs_emulator;
mod train;
mod workload;
