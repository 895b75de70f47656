//! ESA's programs go through p4sim's front end and checker for every lane
//! count they take, and a lane count they do not take is a clear error.

use esa_p4::program::{LANE_COUNTS, compile};
use esa_p4::{Arch, Defines};

#[test]
fn the_v1model_program_compiles_for_every_lane_count() {
    for lanes in LANE_COUNTS {
        compile(&Arch::V1model.program(), &Defines::lanes(lanes))
            .unwrap_or_else(|e| panic!("ESA_LANES={lanes}:\n{e}"));
    }
}

#[test]
fn the_tofino_program_compiles_for_every_lane_count_of_one_pass() {
    for lanes in [4, 8, 16, 32] {
        compile(&Arch::Tna.program(), &Defines::new(lanes, 256))
            .unwrap_or_else(|e| panic!("ESA_LANES={lanes}:\n{e}"));
    }
}

#[test]
fn an_unsupported_lane_count_is_a_clear_error() {
    for arch in Arch::ALL {
        let err = compile(&arch.program(), &Defines::lanes(12)).unwrap_err();
        assert!(
            err.contains("constants.p4") && err.contains("ESA_LANES must be one of"),
            "{arch}: {err}"
        );
    }
}
