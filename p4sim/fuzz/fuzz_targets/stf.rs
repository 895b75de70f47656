//! Feeds arbitrary text to the STF parser and, when it parses, runs it on a
//! small program with a table, a register and multicast: any input must give
//! a report or an error, never a panic.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use p4sim::ir::Compiled;

const PROGRAM: &str = include_str!("../../tests/conformance/multicast.p4");

fn program() -> &'static Arc<Compiled> {
    static COMPILED: OnceLock<Arc<Compiled>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let compiled = p4sim::check::compile_source("multicast.p4", PROGRAM)
            .unwrap_or_else(|d| panic!("{d}"));
        Arc::new(compiled)
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if p4sim::stf::parse(&text).is_ok() {
        let _ = p4sim::stf::runner::run_stf_compiled(Arc::clone(program()), &text);
    }
});
