//! esa-host's integration tests, one binary: `cargo test -p esa-host
//! --test all` (a module alone: `... --test all failures::`).
//!
//! - [`cli`]: `esa worker` / `esa ps` in process, and their config errors;
//! - [`end_to_end`]: jobs through the model switch (in-memory links with
//!   faults, UDP on localhost);
//! - [`failures`]: restarted parameter servers and workers, dead peers;
//! - [`through_switch`]: jobs through esa-switch running esa.p4,
//!   programmed by the controller, on lossy in-memory links;
//! - [`netns`]: the same on kernel UDP sockets in network namespaces
//!   (root; `ESA_NETNS_TESTS=1`);
//! - [`xdp`]: the same on `AF_XDP` sockets, and the fallback to kernel UDP
//!   where `AF_XDP` cannot be set up (root; `ESA_NETNS_TESTS=1`).
//!
//! The job specs, gradients and exact-sum checks, and the switch and
//! controller wiring, are `esa-harness`'s; [`support`] adds the model
//! switch cluster.

mod cli;
mod end_to_end;
mod failures;
#[cfg(target_os = "linux")]
mod netns;
mod support;
mod through_switch;
#[cfg(target_os = "linux")]
mod xdp;
