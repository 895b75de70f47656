//! esa-p4's integration tests, one binary: the programs against the
//! reference model (`esa_core::pool`) in p4sim, their STF scenarios, p4sim
//! against BMv2 and p4c, the Tofino program through bf-p4c, the generated
//! files and native code, and `esa bench dataplane` on a short run.
//!
//! BMv2 and bf-p4c tests print `SKIPPED ...` when the tools are missing;
//! `ESA_BMV2_REQUIRED=1` / `ESA_TOFINO_REQUIRED=1` (CI) make that a failure.

mod support;

mod bmv2_differential;
mod bmv2_p4c;
mod bmv2_stf;
mod constants;
mod dataplane_bench;
mod engines;
mod p4_differential;
mod p4_stf;
mod p4_tna_differential;
mod program;
mod tofino_compile;
