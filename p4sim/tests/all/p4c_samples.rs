//! p4c's own BMv2 STF tests (`testdata/p4_16_samples/*-bmv2.p4` with an
//! `.stf`) on p4sim's reference interpreter and compiled engine, from a
//! p4c checkout named by `ESA_P4C_DIR` (`tests/p4c_samples/fetch.sh`
//! fetches the pinned commit; p4c is not vendored). Without it the test
//! says it skipped.
//!
//! Every program must pass on both engines except those listed in
//! `tests/p4c_samples/known_failures.txt` with the reason, and each listed
//! program must still fail: the list is exact, so a fix shows up as a test
//! to update. Programs of the `PSA_Switch` package are p4c's `psa_switch`
//! tests, not v1model's; they are counted apart (p4sim refuses the PSA
//! architecture, `p4sim/README.md`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use p4sim::stf::runner::run_stf_on;
use p4sim::v1switch::{Engine, V1Switch};

/// What one program did on one engine.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Passed,
    Failed(String),
}

fn known_failures() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4c_samples/known_failures.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, reason) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (name.to_string(), reason.trim().to_string())
        })
        .collect()
}

/// Runs `p4` with `stf` on `engine`.
fn run(p4: &Path, stf: &str, includes: &[PathBuf], engine: Engine) -> Outcome {
    let compiled = match p4sim::check::compile_file(p4, includes) {
        Ok(c) => Arc::new(c),
        Err(e) => return Outcome::Failed(format!("compile: {e}")),
    };
    match run_stf_on(V1Switch::with_engine(compiled, engine), stf) {
        Ok((r, _)) if r.passed => Outcome::Passed,
        Ok((r, _)) => Outcome::Failed(r.failures.first().cloned().unwrap_or_default()),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

#[test]
fn p4c_bmv2_stf_samples_pass_on_the_reference_and_compiled_engines() {
    let Some(root) = std::env::var_os("ESA_P4C_DIR").map(PathBuf::from) else {
        eprintln!(
            "skipped: ESA_P4C_DIR is not set (a p4c checkout; p4sim/tests/p4c_samples/fetch.sh)"
        );
        return;
    };
    let samples = root.join("testdata/p4_16_samples");
    let includes = [root.join("p4include")];
    let mut stfs: Vec<PathBuf> = std::fs::read_dir(&samples)
        .unwrap_or_else(|e| panic!("{}: {e}", samples.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with("-bmv2.stf")))
        .filter(|p| p.with_extension("p4").exists())
        .collect();
    stfs.sort();
    assert!(!stfs.is_empty(), "no *-bmv2.stf in {}", samples.display());
    // ESA_P4C_ONLY=NAME[,NAME...] runs just those programs (file names
    // without `.p4`), printing each one's outcome.
    let only: Option<Vec<String>> = std::env::var("ESA_P4C_ONLY").ok().map(|v| {
        v.split(',')
            .map(|n| format!("{}.p4", n.trim_end_matches(".p4")))
            .collect()
    });
    let known = known_failures();
    let (mut passed, mut psa) = (0, 0);
    let mut problems = Vec::new();
    let mut seen_known = Vec::new();
    for stf_path in &stfs {
        let p4 = stf_path.with_extension("p4");
        let name = p4.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let source = std::fs::read_to_string(&p4).unwrap();
        if source.contains("PSA_Switch(") {
            psa += 1;
            continue;
        }
        let stf = std::fs::read_to_string(stf_path).unwrap();
        let reference = run(&p4, &stf, &includes, Engine::Reference);
        let compiled = run(&p4, &stf, &includes, Engine::Compiled);
        if only.is_some() {
            eprintln!("{name}: reference {reference:?}, compiled {compiled:?}");
        }
        match (known.get(&name), &reference) {
            (None, Outcome::Passed) if compiled == Outcome::Passed => passed += 1,
            (None, _) => problems.push(format!(
                "{name}: reference {reference:?}, compiled {compiled:?}"
            )),
            (Some(_), Outcome::Passed) => problems.push(format!(
                "{name} passes now: take it off tests/p4c_samples/known_failures.txt"
            )),
            (Some(_), Outcome::Failed(_)) => seen_known.push(name),
        }
    }
    for name in known.keys() {
        if only.is_some() {
            break;
        }
        if !seen_known.contains(name) && !problems.iter().any(|p| p.starts_with(name.as_str())) {
            problems.push(format!(
                "{name} is listed as a known failure but was not run"
            ));
        }
    }
    eprintln!(
        "p4c samples at {}: {passed} pass on both engines, {} known failures, {psa} PSA programs \
         (psa_switch's, not run)",
        root.display(),
        seen_known.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
