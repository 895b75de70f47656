//! Feeds arbitrary text to the STF parser and, when it parses, runs it on
//! one of three small programs (the input's length picks it): a table, a
//! register and multicast (v1model); tables with action profiles; PSA's
//! packet paths (clones, resubmit, recirculation, multicast). Any input
//! must give a report or an error, never a panic or a hang.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use p4sim::ir::Compiled;

const PROGRAMS: [(&str, &str); 3] = [
    (
        "multicast.p4",
        include_str!("../../tests/conformance/multicast.p4"),
    ),
    (
        "action_profile.p4",
        include_str!("../../tests/conformance/action_profile.p4"),
    ),
    (
        "psa_packet_paths.p4",
        include_str!("../../tests/conformance/psa_packet_paths.p4"),
    ),
];

fn program(k: usize) -> &'static Arc<Compiled> {
    static COMPILED: OnceLock<Vec<Arc<Compiled>>> = OnceLock::new();
    &COMPILED.get_or_init(|| {
        PROGRAMS
            .iter()
            .map(|(name, text)| {
                let compiled =
                    p4sim::check::compile_source(name, text).unwrap_or_else(|d| panic!("{d}"));
                Arc::new(compiled)
            })
            .collect()
    })[k % PROGRAMS.len()]
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if p4sim::stf::parse(&text).is_ok() {
        let _ = p4sim::stf::runner::run_stf_compiled(Arc::clone(program(data.len())), &text);
    }
});
