//! The real p4c (`p4c-bm2-ss`) accepts every P4 program of the project at
//! the lane counts and pool sizes we use, with no warning that p4/README.md
//! does not explain, and p4sim's P4Info (what `esa p4info` prints and
//! esa-switch serves) equals p4c's, message for message.
//!
//! Needs p4c (`$ESA_BMV2_DIR/bin` or PATH); without it the tests print why
//! they were skipped, unless `ESA_BMV2_REQUIRED=1` (CI).

use std::path::{Path, PathBuf};

use esa_bmv2::{Tools, Warning};
use esa_p4::{Arch, Defines};
use p4runtime_proto::p4::config::v1 as p4cfg;

fn root() -> PathBuf {
    esa_p4::program::source_dir().join("..")
}

/// (program, defines): esa.p4 at the default size, every lane count, and
/// the pool sizes of testbed/experiments; the 4-lane STF program.
fn programs() -> Vec<(PathBuf, Vec<(String, String)>)> {
    let esa = Arch::V1model.program();
    let define = |lanes: usize, pool: usize| Defines::new(lanes, pool as u32).pairs();
    let mut out = vec![(esa.clone(), vec![])];
    for lanes in esa_p4::program::LANE_COUNTS {
        out.push((esa.clone(), define(lanes, 4096)));
    }
    for pool in experiment_pool_sizes() {
        out.push((esa.clone(), define(32, pool)));
    }
    out.push((Arch::V1model.test_program(), vec![]));
    out
}

/// Every `pool_slots` of testbed/experiments/*.toml.
fn experiment_pool_sizes() -> Vec<usize> {
    let mut sizes = vec![];
    for entry in std::fs::read_dir(root().join("testbed/experiments")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("pool_slots") {
                let value = rest
                    .trim_start_matches([' ', '='])
                    .split_whitespace()
                    .next();
                sizes.push(value.unwrap().parse().unwrap());
            }
        }
    }
    sizes.sort();
    sizes.dedup();
    assert!(!sizes.is_empty());
    sizes
}

/// The warnings p4c may print on our programs: constants generated from
/// core/src/constants.rs for the hosts that this data plane does not read.
/// p4/README.md explains each; the test checks it names them.
const EXPLAINED_UNUSED: [&str; 6] = [
    "ESA_MAX_FAN_IN",
    "ESA_MAX_PRIORITY",
    "PS_WORKER_ID",
    "FLAG_ECN",
    "MODE_SWITCHML",
    "TREE_FLAT",
];

fn explained(w: &Warning) -> bool {
    w.file == "constants.p4"
        && w.class == "unused"
        && EXPLAINED_UNUSED
            .iter()
            .any(|name| w.message == format!("'{name}' is unused"))
}

fn show(defines: &[(String, String)]) -> String {
    defines
        .iter()
        .map(|(n, v)| format!("-D{n}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn p4c_compiles_every_program_with_only_explained_warnings() {
    let Some(tools) = Tools::for_test("p4c_compiles_every_program_...", false) else {
        return;
    };
    let readme = std::fs::read_to_string(root().join("p4/README.md")).unwrap();
    for name in EXPLAINED_UNUSED {
        assert!(
            readme.contains(name),
            "p4/README.md does not explain {name}"
        );
    }
    let out = tempfile::tempdir().unwrap();
    for (n, (program, defines)) in programs().iter().enumerate() {
        let dir = out.path().join(n.to_string());
        let compiled = esa_bmv2::compile(&tools, program, &[], defines, &dir)
            .unwrap_or_else(|e| panic!("{} {}: {e}", program.display(), show(defines)));
        let unexplained: Vec<String> = compiled
            .warnings
            .iter()
            .filter(|w| !explained(w))
            .map(Warning::to_string)
            .collect();
        assert!(
            unexplained.is_empty(),
            "{} {}: warnings p4/README.md does not explain:\n{}",
            program.display(),
            show(defines),
            unexplained.join("\n")
        );
        println!(
            "{} {}: {} explained warnings",
            program.display(),
            show(defines),
            compiled.warnings.len()
        );
    }
}

fn p4sim_p4info(program: &Path, defines: &[(String, String)]) -> p4cfg::P4Info {
    let options = p4sim::front::FrontendOptions {
        include_dirs: vec![],
        defines: defines.to_vec(),
    };
    let ast = p4sim::front::parse_program_with(program, &options).unwrap();
    let text = p4sim::p4info::p4info_text(&ast).unwrap();
    esa_controller::pipeline::parse_p4info_text(&text).unwrap()
}

/// The first place two debug renderings differ, with a few lines around.
fn first_difference(ours: &str, theirs: &str) -> String {
    let a: Vec<&str> = ours.lines().collect();
    let b: Vec<&str> = theirs.lines().collect();
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(6);
    format!(
        "p4sim:\n{}\np4c:\n{}",
        a[from..(at + 4).min(a.len())].join("\n"),
        b[from..(at + 4).min(b.len())].join("\n")
    )
}

#[test]
fn p4sim_p4info_equals_p4c_message_for_message() {
    let Some(tools) = Tools::for_test("p4sim_p4info_equals_p4c_...", false) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    for (n, (program, defines)) in programs().iter().enumerate() {
        let dir = out.path().join(n.to_string());
        let compiled = esa_bmv2::compile(&tools, program, &[], defines, &dir).unwrap();
        let theirs = esa_controller::pipeline::load_p4info(&compiled.p4info).unwrap();
        let ours = p4sim_p4info(program, defines);
        assert!(!theirs.tables.is_empty() && !theirs.registers.is_empty());
        // Kind by kind first, so a failure names what differs.
        let pair = |a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
            (format!("{a:#?}"), format!("{b:#?}"))
        };
        let kinds = [
            ("pkg_info", pair(&ours.pkg_info, &theirs.pkg_info)),
            ("tables", pair(&ours.tables, &theirs.tables)),
            ("actions", pair(&ours.actions, &theirs.actions)),
            ("counters", pair(&ours.counters, &theirs.counters)),
            (
                "direct_counters",
                pair(&ours.direct_counters, &theirs.direct_counters),
            ),
            ("registers", pair(&ours.registers, &theirs.registers)),
            ("meters", pair(&ours.meters, &theirs.meters)),
            ("digests", pair(&ours.digests, &theirs.digests)),
        ];
        for (kind, (a, b)) in kinds {
            assert!(
                a == b,
                "{} {}: {kind} differ\n{}",
                program.display(),
                show(defines),
                first_difference(&a, &b)
            );
        }
        assert!(
            ours == theirs,
            "{} {}: P4Info differs\n{}",
            program.display(),
            show(defines),
            first_difference(&format!("{ours:#?}"), &format!("{theirs:#?}"))
        );
    }
}

/// A header type with a `varbit<W>` field (in `varbit_tlv.p4`, reached
/// through a digest): p4sim's P4Info is p4c's, `varbit { max_bitwidth }`
/// included.
#[test]
fn p4sim_p4info_of_a_varbit_header_equals_p4c() {
    let Some(tools) = Tools::for_test("p4sim_p4info_of_a_varbit_...", false) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let program = root().join("p4sim/tests/conformance/varbit_tlv.p4");
    let compiled = esa_bmv2::compile(&tools, &program, &[], &[], out.path()).unwrap();
    let text = std::fs::read_to_string(&compiled.p4info).unwrap();
    assert!(text.contains("max_bitwidth: 64"), "{text}");
    let theirs = esa_controller::pipeline::load_p4info(&compiled.p4info).unwrap();
    let ours = p4sim_p4info(&program, &[]);
    assert!(
        ours == theirs,
        "P4Info differs\n{}",
        first_difference(&format!("{ours:#?}"), &format!("{theirs:#?}"))
    );
}
