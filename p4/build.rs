//! Generates the native code (`p4sim::exec::native::generate`) of ESA's program
//! for each configuration in [`PROGRAMS`], one Rust file each in OUT_DIR,
//! included by `src/lib.rs`.

use std::path::Path;

/// `-D` macros: (name, value).
type Defines = &'static [(&'static str, &'static str)];

/// (module, program, defines): `src/lib.rs` lists the same modules.
const PROGRAMS: [(&str, &str, Defines); 9] = [
    (
        "esa_k32_s4096",
        "v1model/esa.p4",
        &[("ESA_LANES", "32"), ("ESA_POOL_SLOTS", "4096")],
    ),
    (
        "esa_k64_s4096",
        "v1model/esa.p4",
        &[("ESA_LANES", "64"), ("ESA_POOL_SLOTS", "4096")],
    ),
    // the pools of the shipped experiments (testbed/experiments)
    (
        "esa_k32_s256",
        "v1model/esa.p4",
        &[("ESA_LANES", "32"), ("ESA_POOL_SLOTS", "256")],
    ),
    (
        "esa_k32_s64",
        "v1model/esa.p4",
        &[("ESA_LANES", "32"), ("ESA_POOL_SLOTS", "64")],
    ),
    (
        "esa_k32_s32",
        "v1model/esa.p4",
        &[("ESA_LANES", "32"), ("ESA_POOL_SLOTS", "32")],
    ),
    ("esa_small", "tests/esa_small.p4", &[]),
    // the Tofino program, at the shipped experiments' pools and its tests'
    (
        "esa_tna_k32_s256",
        "tna/esa.p4",
        &[("ESA_LANES", "32"), ("ESA_POOL_SLOTS", "256")],
    ),
    (
        "esa_tna_k32_s64",
        "tna/esa.p4",
        &[("ESA_LANES", "32"), ("ESA_POOL_SLOTS", "64")],
    ),
    ("esa_tna_small", "tna/tests/esa_small.p4", &[]),
];

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    for watched in [
        "v1model",
        "include",
        "tests/esa_small.p4",
        "tna/esa.p4",
        "tna/lane_list.p4",
        "tna/rows.p4",
        "tna/row_counters.p4",
        "tna/tests/esa_small.p4",
        "build.rs",
    ] {
        println!("cargo:rerun-if-changed={watched}");
    }
    if std::env::var_os("CARGO_FEATURE_NATIVE").is_none() {
        return;
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for (module, file, defines) in PROGRAMS {
        let options = p4sim::front::FrontendOptions {
            include_dirs: vec![],
            defines: defines
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let what = format!(
            "{file}{}",
            defines
                .iter()
                .map(|(k, v)| format!(" -D{k}={v}"))
                .collect::<String>()
        );
        let ast = p4sim::front::parse_program_with(&dir.join(file), &options)
            .unwrap_or_else(|d| panic!("{what} does not parse: {d}"));
        let compiled =
            p4sim::check::compile(&ast).unwrap_or_else(|d| panic!("{what} does not compile: {d}"));
        let code = p4sim::exec::native::generate(&compiled, &what);
        let path = Path::new(&out).join(format!("{module}.rs"));
        std::fs::write(&path, code)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
}
