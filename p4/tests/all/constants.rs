//! The programs' generated files must be exactly what `esa_p4::constants`
//! generates.

use std::path::PathBuf;

fn check(path: PathBuf, want: String) {
    if std::env::var_os("ESA_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(
        have == want,
        "{} has drifted from esa_p4::constants; regenerate it with \
         `ESA_BLESS=1 cargo test -p esa-p4 --test all constants::`",
        path.display()
    );
}

#[test]
fn p4_constants_match_the_rust_constants() {
    check(
        esa_p4::program::include_dir().join("constants.p4"),
        esa_p4::constants::constants_p4(),
    );
}

#[test]
fn tna_counter_rows_match_the_rust_layout() {
    check(
        esa_p4::program::source_dir().join("tna/rows.p4"),
        esa_p4::constants::tna_rows_p4(),
    );
}

#[test]
fn tna_row_counters_match_the_rust_layout() {
    check(
        esa_p4::program::source_dir().join("tna/row_counters.p4"),
        esa_p4::constants::tna_row_counters_p4(),
    );
}

#[test]
fn tna_lane_list_matches_the_lane_counts() {
    check(
        esa_p4::program::source_dir().join("tna/lane_list.p4"),
        esa_p4::constants::tna_lane_list_p4(),
    );
}
