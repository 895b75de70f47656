//! esa-controller's integration tests, one binary: `cargo test -p
//! esa-controller --test all` (a module alone: `... --test all
//! real_switch::`).
//!
//! - [`controller`]: the controller against the in-process fake P4Runtime
//!   switch (`support::fake_switch`);
//! - [`real_switch`]: the same scenarios against esa-switch (esa-harness's
//!   embedded switch), plus arbitration and restarts.
//! - [`security`]: tokens, tenants, TLS on the job API and P4Runtime, and
//!   the refusal of plaintext beyond loopback.

mod controller;
mod fabric;
mod real_switch;
mod security;
mod support;
