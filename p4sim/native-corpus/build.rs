//! Generates the native code of every program p4sim's differential tests
//! run (`../tests/conformance`, `../tests/frontend_programs`, `../tests/tna`,
//! and esa-switch's `tests/programs`) into OUT_DIR, with `all.rs` listing
//! them, and p4c's v1model BMv2 STF samples (the pinned copy in
//! `../tests/p4c_samples/p4c`, or `ESA_P4C_DIR`). ESA's programs are esa-p4's
//! (it generates and tests their native code).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A program to generate: its name, file and `-D` macros.
type Program = (String, PathBuf, Vec<(String, String)>);

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tests = dir.join("../tests");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    // esa-switch's test program, which its forwarding bench runs; by the
    // path without `..` that the bench loads it from.
    let switch = dir.join("../../switch/tests/programs");
    let switch = std::fs::canonicalize(&switch).unwrap_or(switch);
    let folders = [
        ("conformance", tests.join("conformance")),
        ("frontend_programs", tests.join("frontend_programs")),
        ("tna", tests.join("tna")),
        ("switch", switch),
    ];
    let mut programs: Vec<Program> = Vec::new();
    for (prefix, folder) in folders {
        println!("cargo:rerun-if-changed={}", folder.display());
        let Ok(rd) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "p4"))
            .collect();
        files.sort();
        for f in files {
            let stem = f.file_stem().map(|s| s.to_string_lossy().to_string());
            programs.push((format!("{prefix}/{}", stem.unwrap_or_default()), f, vec![]));
        }
    }
    // p4c's v1model BMv2 STF samples too, from the pinned copy of p4c's
    // testdata (../tests/p4c_samples/p4c) or ESA_P4C_DIR (a p4c checkout),
    // with p4c's includes as tests/all/p4c_samples.rs compiles them, so that
    // test runs them on the native engine as well.
    println!("cargo:rerun-if-env-changed=ESA_P4C_DIR");
    let mut include_dirs = vec![Vec::new(); programs.len()];
    let p4c = std::env::var_os("ESA_P4C_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| tests.join("p4c_samples/p4c"));
    let samples = p4c.join("testdata/p4_16_samples");
    println!("cargo:rerun-if-changed={}", samples.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&samples)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|f| {
        f.to_str().is_some_and(|s| s.ends_with("-bmv2.p4"))
            && f.with_extension("stf").exists()
            && std::fs::read_to_string(f).is_ok_and(|text| {
                text.lines().any(|l| {
                    l.contains("include") && (l.contains("v1model.p4") || l.contains("bmv2/psa.p4"))
                })
            })
    });
    files.sort();
    for f in files {
        let stem = f.file_stem().map(|s| s.to_string_lossy().to_string());
        programs.push((format!("p4c/{}", stem.unwrap_or_default()), f, vec![]));
        include_dirs.push(vec![p4c.join("p4include")]);
    }
    let mut all = String::from("/// Every generated program: (name, program).\n");
    let mut list = String::new();
    for (i, ((name, path, defines), include_dirs)) in programs.iter().zip(include_dirs).enumerate()
    {
        let options = p4sim::front::FrontendOptions {
            include_dirs,
            defines: defines.clone(),
        };
        // programs that p4sim refuses are the tests' business, not ours
        let Ok(ast) = p4sim::front::parse_program_with(path, &options) else {
            continue;
        };
        let Ok(compiled) = p4sim::check::compile(&ast) else {
            continue;
        };
        let code = p4sim::exec::native::generate(&compiled, name);
        let file = out.join(format!("program_{i}.rs"));
        std::fs::write(&file, code).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let _ = writeln!(
            all,
            "mod program_{i} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/program_{i}.rs\"));\n}}"
        );
        let _ = writeln!(list, "    ({name:?}, &program_{i}::PROGRAM),");
    }
    let _ = write!(
        all,
        "pub static PROGRAMS: &[(&str, &p4sim::exec::native::NativeProgram)] = &[\n{list}];\n"
    );
    std::fs::write(out.join("all.rs"), all).expect("write all.rs");
}
