//! The P4 program's constants must be exactly what esa-core generates.

use std::path::PathBuf;

#[test]
fn p4_constants_match_the_rust_constants() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../p4/include/constants.p4");
    let want = esa_core::p4gen::constants_p4();
    if std::env::var_os("ESA_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(
        have == want,
        "{} has drifted from core/src/constants.rs; regenerate it with \
         `ESA_BLESS=1 cargo test -p esa-core --test p4_constants`",
        path.display()
    );
}
