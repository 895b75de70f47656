//! Every STF test of the data plane (`p4/tests/*.stf`) on BMv2: the program
//! compiled by the real p4c (`p4c-bm2-ss`), run on the real `simple_switch`,
//! programmed through `simple_switch_CLI`, compared as p4c's runner does.
//! The same files pass in p4sim (`tests/p4_stf.rs`).
//!
//! Needs p4c and BMv2 (`$ESA_BMV2_DIR/bin` or PATH) and Python's `thrift`;
//! without them the tests print why they were skipped, unless
//! `ESA_BMV2_REQUIRED=1` (CI), which makes them fail instead.

use std::path::{Path, PathBuf};

use esa_bmv2::Tools;
use p4sim::stf::runner::StfReport;

fn tests_dir() -> PathBuf {
    esa_p4::Arch::V1model.test_dir()
}

/// esa_small.p4 compiled by p4c, in a folder that lives as long as the value.
fn compiled(tools: &Tools) -> (tempfile::TempDir, PathBuf) {
    let out = tempfile::tempdir().unwrap();
    let c = esa_bmv2::compile(
        tools,
        &esa_p4::Arch::V1model.test_program(),
        &[],
        &[],
        out.path(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (out, c.json)
}

fn run(tools: &Tools, json: &Path, text: &str) -> StfReport {
    esa_bmv2::stf::run_stf(tools, json, text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_stf_of_the_data_plane_passes_on_bmv2() {
    let Some(tools) = Tools::for_test("every_stf_of_the_data_plane_passes_on_bmv2", true) else {
        return;
    };
    let (_dir, json) = compiled(&tools);
    let mut files: Vec<PathBuf> = std::fs::read_dir(tests_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "stf"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "STF files: {files:?}");
    let mut failed = vec![];
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let report = run(&tools, &json, &text);
        let name = file.file_name().unwrap().to_string_lossy();
        println!(
            "{name}: {}",
            report.to_string().lines().last().unwrap_or("")
        );
        // Every test sends packets; all but the drop tests expect some.
        assert!(report.packets_in > 0, "{name}");
        if !name.starts_with("admission_drops") {
            assert!(report.expectations > 0, "{name}");
        }
        if !report.passed {
            failed.push(format!("{name}:\n{report}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// The runner must be able to fail: a wrong byte in an expected packet, a
/// wrong counter value and a missing expectation each fail the test, and
/// say what differed.
#[test]
fn the_bmv2_runner_fails_on_a_wrong_byte_a_wrong_counter_and_an_unexpected_packet() {
    let Some(tools) = Tools::for_test("the_bmv2_runner_fails_on_...", true) else {
        return;
    };
    let (_dir, json) = compiled(&tools);
    let text = std::fs::read_to_string(tests_dir().join("d1_complete.stf")).unwrap();
    assert!(run(&tools, &json, &text).passed);

    // The RESULT to port 1 with its last value byte changed.
    let expect_line = text.lines().find(|l| l.starts_with("expect 1 ")).unwrap();
    let data_end = expect_line.rfind(" $").unwrap();
    let mut wrong = expect_line.to_string();
    let last = &expect_line[data_end - 1..data_end];
    let flipped = if last == "0" { "1" } else { "0" };
    wrong.replace_range(data_end - 1..data_end, flipped);
    let report = run(&tools, &json, &text.replace(expect_line, &wrong));
    assert!(!report.passed);
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.contains("port 1, packet #1")),
        "{report}"
    );

    let counter = "check_counter EsaIngress.aggregation.data_rx(1) packets == 3";
    assert!(text.contains(counter));
    let report = run(
        &tools,
        &json,
        &text.replace(counter, &counter.replace("== 3", "== 4")),
    );
    assert!(!report.passed);
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.contains("data_rx(1)") && f.contains("is 3")),
        "{report}"
    );

    let report = run(&tools, &json, &text.replace(expect_line, ""));
    assert!(!report.passed);
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.contains("port 1: unexpected packet #1")),
        "{report}"
    );
}

#[test]
fn a_command_bmv2_refuses_is_a_failure_naming_the_line() {
    let Some(tools) = Tools::for_test("a_command_bmv2_refuses_...", true) else {
        return;
    };
    let (_dir, json) = compiled(&tools);
    let report = run(
        &tools,
        &json,
        "add EsaIngress.l2.l2 hdr.ethernet.dst:0x020000000002 EsaIngress.l2.forward(port:2)\n\
         mc_node_associate 7 9\n",
    );
    assert!(!report.passed);
    assert!(
        report.failures.iter().any(|f| f.starts_with("line 2:")),
        "{report}"
    );
    let err = esa_bmv2::stf::run_stf(&tools, &json, "add NoSuchTable x:1 a()\n")
        .map(|r| r.failures.join("\n"))
        .unwrap();
    assert!(err.contains("no table `NoSuchTable`"), "{err}");
}

/// The P4 constructs p4sim learned from issue 15's language list run the
/// same STF on BMv2 as in p4sim (where `cargo test -p p4sim` runs them):
/// the expectations were written from the P4_16 spec and hold on both.
#[test]
fn p4sim_conformance_programs_for_newer_constructs_pass_on_bmv2() {
    let Some(tools) = Tools::for_test("p4sim_conformance_programs_...", true) else {
        return;
    };
    let dir = esa_p4::program::source_dir().join("../p4sim/tests/conformance");
    for name in [
        "lookahead_header",
        "function_struct_return",
        "action_composite_params",
        "action_list_bound_args",
        "slice_assign",
        "subparser",
        "subcontrol",
        "unaligned_fields",
        "varbit_ipv4_options",
        "varbit_tlv",
        "p4c_sample_forms",
        "priority_annotation",
        "header_unions",
        "header_forms",
        "varbit_forms",
        "lvalue_order",
        "parser_invalid_argument",
        "parser_value_set",
        "compound_constants",
        "generic_structs",
    ] {
        let out = tempfile::tempdir().unwrap();
        let program = dir.join(format!("{name}.p4"));
        let c = esa_bmv2::compile(&tools, &program, &[], &[], out.path())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = std::fs::read_to_string(program.with_extension("stf")).unwrap();
        let report = run(&tools, &c.json, &text);
        assert!(report.expectations > 0, "{name}");
        assert!(report.passed, "{name} on BMv2:\n{report}");
        let sim = p4sim::stf::runner::run_stf(&program, &text).unwrap_or_else(|e| panic!("{e}"));
        assert!(sim.passed, "{name} in p4sim:\n{sim}");
    }
}

/// p4c 1.2.5's BMv2 back end refuses `for (T x in ...)` and runs the body
/// of any other `for` once, so p4sim's loop programs are checked against
/// their hand-unrolled forms (`conformance/unrolled/`) on BMv2: the same
/// STF passes on both.
#[test]
fn p4sim_loop_programs_match_their_unrolled_forms_on_bmv2() {
    let Some(tools) = Tools::for_test("p4sim_loop_programs_...", true) else {
        return;
    };
    let dir = esa_p4::program::source_dir().join("../p4sim/tests/conformance");
    for name in ["for_loops", "for_registers"] {
        let out = tempfile::tempdir().unwrap();
        let unrolled = dir.join("unrolled").join(format!("{name}.p4"));
        let c = esa_bmv2::compile(&tools, &unrolled, &[], &[], out.path())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = std::fs::read_to_string(dir.join(format!("{name}.stf"))).unwrap();
        let report = run(&tools, &c.json, &text);
        assert!(report.expectations > 0, "{name}");
        assert!(report.passed, "unrolled {name} on BMv2:\n{report}");
        let program = dir.join(format!("{name}.p4"));
        let sim = p4sim::stf::runner::run_stf(&program, &text).unwrap_or_else(|e| panic!("{e}"));
        assert!(sim.passed, "{name} in p4sim:\n{sim}");
    }
}
