//! The ESA data plane (`p4/v1model/esa.p4`) goes through p4sim's front end
//! for every lane count it supports.

use p4sim::frontend::{FrontendOptions, parse_program_with};
use std::path::PathBuf;

fn program() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("p4/v1model/esa.p4")
}

#[test]
fn esa_p4_parses_for_every_lane_count() {
    for lanes in esa_core::p4gen::P4_LANE_COUNTS {
        let options = FrontendOptions {
            include_dirs: vec![],
            defines: vec![("ESA_LANES".into(), lanes.to_string())],
        };
        let program = parse_program_with(&program(), &options)
            .unwrap_or_else(|d| panic!("ESA_LANES={lanes}:\n{d}"));
        assert!(!program.declarations.is_empty());
    }
}

#[test]
fn an_unsupported_lane_count_is_a_clear_error() {
    let options = FrontendOptions {
        include_dirs: vec![],
        defines: vec![("ESA_LANES".into(), "12".into())],
    };
    let err = parse_program_with(&program(), &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("constants.p4") && err.contains("ESA_LANES must be one of"),
        "{err}"
    );
}
