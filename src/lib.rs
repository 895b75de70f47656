//! The `esa` package's library: what the `esa` command and the root
//! benchmarks share.
//!
//! - [`dataplane`]: the data-plane benchmark (`esa bench dataplane`,
//!   `cargo bench --bench esa_p4`): `esa.p4` on p4sim's two engines beside
//!   the pool model, on one generated multi-job mix.

pub mod dataplane;
