//! p4c's own test programs, from the pinned copy of p4c's testdata in
//! `tests/p4c_samples/p4c` (`pin.sh` makes it from a checkout at the commit
//! `fetch.sh` pins; p4c itself is not vendored), or from a p4c checkout
//! named by `ESA_P4C_DIR`.
//!
//! - The BMv2 STF tests (`testdata/p4_16_samples/*-bmv2.p4` with an
//!   `.stf`) on p4sim's reference interpreter, compiled engine and native
//!   engine (whose Rust `native-corpus` generates for them at build time,
//!   from the same folder).
//! - The P4Info goldens (`testdata/p4_16_samples_outputs/*.p4info.txtpb`):
//!   every object's id and name as p4c gives them.
//!
//! Every program must pass except those listed with the reason in
//! `tests/p4c_samples/known_failures.txt` (STF) and
//! `p4info_known_failures.txt`, and each listed program must still fail:
//! the lists are exact, so a fix shows up as a test to update. The STF
//! tests count the programs of the architectures p4c's BMv2 suites run
//! (v1model's and BMv2's PSA); the others are counted apart. The P4Info
//! test takes every golden.
//! `ESA_P4C_ONLY=NAME[,NAME...]` runs just those programs (STF samples and
//! P4Info goldens) and prints each one's outcome.

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

/// The p4c testdata the tests read: `ESA_P4C_DIR`, else the pinned copy.
fn p4c_root() -> PathBuf {
    std::env::var_os("ESA_P4C_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4c_samples/p4c"))
}

fn known_failures(list: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/p4c_samples")
        .join(list);
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

/// The programs `ESA_P4C_ONLY` names (`a,b.p4` -> `a.p4`, `b.p4`).
fn only_programs() -> Option<Vec<String>> {
    std::env::var("ESA_P4C_ONLY").ok().map(|v| {
        v.split(',')
            .map(|n| format!("{}.p4", n.trim_end_matches(".p4")))
            .collect()
    })
}

/// Whether p4sim runs `source`'s architecture: the programs that include
/// `v1model.p4` (simple_switch's, which p4c's BMv2 suite runs with
/// p4c-bm2-ss: backends/bmv2/CMakeLists.txt, V1_INCLUDE_PATTERNS) or
/// BMv2's `psa.p4` (psa_switch's, run with p4c-bm2-psa). The others are
/// front-end tests of a package of their own, which neither back end takes.
fn runs_here(source: &str) -> bool {
    source
        .lines()
        .any(|l| l.contains("include") && (l.contains("v1model.p4") || l.contains("bmv2/psa.p4")))
}

/// Runs `p4` with `stf` on `engine`.
fn run(p4: &Path, stf: &str, includes: &[PathBuf], engine: Engine) -> Outcome {
    let compiled = match p4sim::check::compile_file(p4, includes) {
        Ok(c) => Arc::new(c),
        Err(e) => return Outcome::Failed(format!("compile: {e}")),
    };
    let mut switch = V1Switch::with_engine(compiled, engine);
    // What p4c's run loads into BMv2 for extern-funcs-bmv2
    // (testdata/extern_modules/extern-funcs-bmv2.cpp): d <- s.
    switch.register_extern_function("extern_func", |args| args[0] = args[1].clone());
    if switch.engine() != engine {
        return Outcome::Failed(format!(
            "no {engine:?} engine for it (native-corpus generates one for each program of \
             the p4c testdata it was built with: the pinned copy, or ESA_P4C_DIR at build time)"
        ));
    }
    match run_stf_on(switch, stf) {
        Ok((r, _)) if r.passed => Outcome::Passed,
        Ok((r, _)) => Outcome::Failed(r.failures.first().cloned().unwrap_or_default()),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

#[test]
fn p4c_bmv2_stf_samples_pass_on_all_three_engines() {
    p4sim_native_corpus::register();
    let root = p4c_root();
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
    let only = only_programs();
    let known = known_failures("known_failures.txt");
    let (mut passed, mut other_architectures) = (0, 0);
    let mut problems = Vec::new();
    let mut seen_known = Vec::new();
    for stf_path in &stfs {
        let p4 = stf_path.with_extension("p4");
        let name = p4.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let source = std::fs::read_to_string(&p4).unwrap();
        if !runs_here(&source) {
            other_architectures += 1;
            continue;
        }
        let stf = std::fs::read_to_string(stf_path).unwrap();
        let reference = run(&p4, &stf, &includes, Engine::Reference);
        let compiled = run(&p4, &stf, &includes, Engine::Compiled);
        let native = run(&p4, &stf, &includes, Engine::Native);
        if only.is_some() {
            eprintln!("{name}: reference {reference:?}, compiled {compiled:?}, native {native:?}");
        }
        match (known.get(&name), &reference) {
            (None, Outcome::Passed) if compiled == Outcome::Passed && native == Outcome::Passed => {
                passed += 1
            }
            (None, _) => problems.push(format!(
                "{name}: reference {reference:?}, compiled {compiled:?}, native {native:?}"
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
        "p4c samples at {}: {passed} pass on all three engines, {} known failures, \
         {other_architectures} programs of other architectures (not run)",
        root.display(),
        seen_known.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `name → id` of every object's preamble in a P4Info text.
fn preamble_ids(text: &str) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line != "preamble {" {
            continue;
        }
        let (mut id, mut name) = (None, None);
        // The preamble's own fields, not those of the messages inside it
        // (`structured_annotations { name: ... }`).
        let mut depth = 0;
        for l in lines.by_ref() {
            if l == "}" {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                continue;
            }
            if l.ends_with('{') {
                depth += 1;
                continue;
            }
            if depth > 0 {
                continue;
            }
            if let Some(v) = l.strip_prefix("id: ") {
                id = v.parse::<u32>().ok();
            } else if let Some(v) = l.strip_prefix("name: ") {
                name = Some(v.trim_matches('"').to_string());
            }
        }
        if let (Some(id), Some(name)) = (id, name) {
            out.insert(name, id);
        }
    }
    out
}

#[test]
fn p4c_p4info_goldens_have_the_ids_p4sim_gives() {
    let root = p4c_root();
    let samples = root.join("testdata/p4_16_samples");
    let outputs = root.join("testdata/p4_16_samples_outputs");
    let includes = [root.join("p4include")];
    let mut goldens: Vec<PathBuf> = std::fs::read_dir(&outputs)
        .unwrap_or_else(|e| panic!("{}: {e}", outputs.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".p4.p4info.txtpb")))
        .collect();
    goldens.sort();
    let known = known_failures("p4info_known_failures.txt");
    let only = only_programs();
    let (mut same_ids, mut same_text, mut failing) = (0, 0, 0);
    let mut problems = Vec::new();
    for golden in &goldens {
        let file = golden
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".p4info.txtpb", "");
        if only.as_ref().is_some_and(|o| !o.contains(&file)) {
            continue;
        }
        let p4 = samples.join(&file);
        // every golden: p4c's P4Info names the blocks of any package (the
        // architectures it knows beyond those p4sim runs are DPDK's PSA and
        // uBPF; for the others it says "v1model")
        if !p4.exists() {
            continue;
        }
        let want = std::fs::read_to_string(golden).unwrap();
        let got = p4sim::front::parse_program(&p4, &includes).and_then(|program| {
            p4sim::p4info::p4info(&program).map(|info| {
                info.to_text_with(&p4sim::p4info::TextOptions {
                    header_comment: true,
                    initial_default_action: true,
                })
            })
        });
        let outcome = match got {
            Ok(got) => {
                same_text += usize::from(got == want);
                if only.is_some()
                    && let Some((n, (w, g))) = want
                        .lines()
                        .zip(got.lines())
                        .enumerate()
                        .find(|(_, (w, g))| w != g)
                {
                    eprintln!(
                        "{file}: text differs at line {}: p4c `{w}`, p4sim `{g}`",
                        n + 1
                    );
                }
                let (w, g) = (preamble_ids(&want), preamble_ids(&got));
                if w == g {
                    Ok(())
                } else {
                    let p4c: Vec<_> = w
                        .iter()
                        .filter(|(n, i)| g.get(*n) != Some(i))
                        .take(3)
                        .collect();
                    let ours: Vec<_> = g
                        .iter()
                        .filter(|(n, i)| w.get(*n) != Some(i))
                        .take(3)
                        .collect();
                    Err(format!("ids differ: p4c {p4c:?}, p4sim {ours:?}"))
                }
            }
            Err(e) => Err(e.to_string()),
        };
        if only.is_some() {
            eprintln!("{file}: {outcome:?}");
        }
        match (known.contains_key(&file), outcome) {
            (false, Ok(())) => same_ids += 1,
            (false, Err(e)) => problems.push(format!("{file}: {e}")),
            (true, Ok(())) => problems.push(format!(
                "{file} matches now: take it off tests/p4c_samples/p4info_known_failures.txt"
            )),
            (true, Err(_)) => failing += 1,
        }
    }
    eprintln!(
        "p4c P4Info goldens at {}: {same_ids} with p4c's ids ({same_text} byte for byte), \
         {failing} known failures",
        root.display(),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    if only.is_some() {
        return;
    }
    assert_eq!(
        failing,
        known.len(),
        "a listed program is not among the goldens"
    );
}
