//! esa-switch's integration tests, one binary: `cargo test -p esa-switch --test all`
//! (one module per former test file; a module alone: `... --test all <module>::`).

mod common;
mod interfaces;
mod netns;
mod p4runtime;
mod p4runtime_shell;
mod pcap;
mod udp_ports;
