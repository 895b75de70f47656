//! The real Tofino compiler (the open-source `bf-p4c` of p4c's
//! `backends/tofino`) accepts the TNA data plane, `p4/tna/esa.p4`, at 32,768
//! slots of 32 lanes (4 MiB of aggregation memory) with no error, in at most the 12 stages of Tofino 1;
//! every lane register sits in
//! one stage; and the P4Info it writes names the tables and registers
//! `p4/tna/README.md` describes. And 64 values fit one pass in pair
//! registers (a layout probe, not yet a working program).
//!
//! Needs `bf-p4c` (`$ESA_TOFINO_DIR/bin`, then PATH); without it the tests
//! print why they were skipped, unless `ESA_TOFINO_REQUIRED=1` (CI), which
//! turns a missing compiler into a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use esa_core::pool::JobCounters;
use esa_p4::Arch;
use esa_p4::counters::{global_counter, job_counter, slot_register};
use esa_p4::tables::TableKind;

/// The environment variable naming a Tofino compiler install (its `bin/` is
/// searched before `PATH`).
const DIR_VAR: &str = "ESA_TOFINO_DIR";
/// Set to 1 (as CI does) to make the tests fail, not skip, without bf-p4c.
const REQUIRED_VAR: &str = "ESA_TOFINO_REQUIRED";
/// Tofino 1's match-action stages per pipeline.
const TOFINO1_STAGES: u64 = 12;

fn root() -> PathBuf {
    esa_p4::program::source_dir().join("..")
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `bf-p4c` in `$ESA_TOFINO_DIR/bin` or on PATH, or `None` after printing
/// why `test` is skipped (a panic when `ESA_TOFINO_REQUIRED=1`).
fn bf_p4c_for_test(test: &str) -> Option<PathBuf> {
    let mut dirs = vec![];
    if let Some(dir) = std::env::var_os(DIR_VAR) {
        dirs.push(PathBuf::from(dir).join("bin"));
    }
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    let found = dirs
        .into_iter()
        .map(|d| d.join("bf-p4c"))
        .find(|p| is_executable(p));
    match found {
        Some(path) => Some(path),
        None => {
            let why = format!(
                "bf-p4c not found in ${DIR_VAR}/bin or PATH (p4/tna/README.md says how to get it)"
            );
            if std::env::var(REQUIRED_VAR).is_ok_and(|v| v == "1") {
                panic!("{test}: the Tofino compiler is required here ({REQUIRED_VAR}=1) but {why}");
            }
            eprintln!("SKIPPED {test}: {why}");
            None
        }
    }
}

struct Compiled {
    ok: bool,
    output: String,
    out_dir: PathBuf,
}

/// `bf-p4c -g` on p4/tna/esa.p4 with `defines`, into `out_dir`.
fn compile(bf_p4c: &Path, defines: &[&str], out_dir: &Path) -> Compiled {
    compile_program(bf_p4c, &Arch::Tna.program(), defines, out_dir)
}

fn compile_program(bf_p4c: &Path, program: &Path, defines: &[&str], out_dir: &Path) -> Compiled {
    let mut cmd = Command::new(bf_p4c);
    cmd.arg("-g").arg("-o").arg(out_dir);
    cmd.arg("--p4runtime-files")
        .arg(out_dir.join("p4info.txtpb"));
    for d in defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.arg(program);
    let started = std::time::Instant::now();
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bf_p4c.display()));
    println!(
        "bf-p4c -g {} {}: {} in {:.1} s",
        defines.join(" "),
        program.display(),
        out.status,
        started.elapsed().as_secs_f64()
    );
    Compiled {
        ok: out.status.success(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        out_dir: out_dir.to_path_buf(),
    }
}

/// The stages of the ingress and egress pipelines that hold anything, and
/// for each register the stages whose stateful ALUs it uses.
struct Resources {
    stages_used: u64,
    device_stages: u64,
    register_stages: std::collections::BTreeMap<String, Vec<u64>>,
}

fn resources(out_dir: &Path) -> Resources {
    let path = out_dir.join("pipe/logs/resources.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mau = &json["resources"]["mau"];
    let device_stages = mau["nStages"].as_u64().expect("resources.mau.nStages");
    let mut stages_used = 0;
    let mut register_stages: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    for stage in mau["mau_stages"].as_array().expect("mau_stages") {
        let n = stage["stage_number"].as_u64().unwrap();
        let tables = stage["logical_tables"]["ids"].as_array().unwrap();
        if !tables.is_empty() {
            stages_used = stages_used.max(n + 1);
        }
        for alu in stage["meter_alus"]["meters"].as_array().unwrap() {
            for usage in alu["usages"].as_array().unwrap() {
                if usage["used_for"] == "stateful_ram" {
                    let name = usage["used_by"].as_str().unwrap().to_string();
                    let at = register_stages.entry(name).or_default();
                    if !at.contains(&n) {
                        at.push(n);
                    }
                }
            }
        }
    }
    Resources {
        stages_used,
        device_stages,
        register_stages,
    }
}

/// The default lane count of the TNA program (constants.p4's ESA_LANES).
const LANES: usize = 32;

/// The pool the program is compiled at: the largest that fits
/// (p4/tna/README.md, "Resources": a lane register of 65,536 words would
/// take 17 of a stage's 48 RAMs with map RAMs, and four of them do not
/// fit), eight times the default pool.
const SLOTS: &str = "ESA_POOL_SLOTS=32768";

/// The slot registers p4/tna/README.md lays out, besides the lanes.
const SLOT_REGISTERS: [&str; 7] = [
    "slot_tombstone",
    "slot_owner",
    "slot_owner_copy",
    "slot_bitmap",
    "slot_key",
    "slot_timestamp",
    "slot_meta",
];

#[test]
fn bf_p4c_fits_the_tna_program_in_twelve_stages() {
    let Some(bf_p4c) = bf_p4c_for_test("bf_p4c_fits_the_tna_program_in_twelve_stages") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let compiled = compile(&bf_p4c, &[SLOTS], out.path());
    assert!(
        compiled.ok,
        "bf-p4c rejected p4/tna/esa.p4 -D{SLOTS}:\n{}",
        compiled.output
    );
    let res = resources(&compiled.out_dir);
    assert_eq!(res.device_stages, TOFINO1_STAGES, "not a Tofino 1 build?");
    assert!(
        res.stages_used <= TOFINO1_STAGES,
        "{} stages used",
        res.stages_used
    );
    println!("stages used: {}", res.stages_used);

    // Every lane register and slot register is placed, each in one stage
    // (a register split over stages could not be read-modify-written by one
    // stateful ALU).
    let readme = std::fs::read_to_string(root().join("p4/tna/README.md")).unwrap();
    let lanes = (0..LANES).map(|i| format!("lane_{i}"));
    for short in SLOT_REGISTERS.iter().map(|s| s.to_string()).chain(lanes) {
        let name = if short.starts_with("lane_") {
            format!("EsaIngress.{short}")
        } else {
            slot_register(Arch::Tna, &short)
        };
        let stages = res
            .register_stages
            .get(&name)
            .unwrap_or_else(|| panic!("{name} not placed: {:?}", res.register_stages.keys()));
        assert_eq!(stages.len(), 1, "{name} spans stages {stages:?}");
        println!("{name}: stage {}", stages[0]);
        if !short.starts_with("lane_") {
            assert!(
                readme.contains(&short),
                "p4/tna/README.md does not mention {short}"
            );
        }
    }
    assert_eq!(
        res.register_stages.len(),
        SLOT_REGISTERS.len() + LANES,
        "registers: {:?}",
        res.register_stages.keys()
    );

    // The P4Info names what the README says the control plane sees (TNA
    // P4Info prefixes names with the pipeline, `pipe`; registers and
    // counters are Tofino externs there).
    let p4info = std::fs::read_to_string(compiled.out_dir.join("p4info.txtpb")).unwrap();
    let named = |name: &str| p4info.contains(&format!("name: \"pipe.{name}\""));
    // the tables the controller programs (README: "Control plane")
    for kind in TableKind::ALL {
        let table = kind.spec_for(Arch::Tna).unwrap().name;
        assert!(named(table), "P4Info has no table {table}");
        assert!(
            readme.contains(table),
            "p4/tna/README.md does not mention {table}"
        );
    }
    for register in SLOT_REGISTERS {
        assert!(
            named(&slot_register(Arch::Tna, register)),
            "P4Info has no register {register}"
        );
    }
    // every counter array the controller reads the model's counters from
    let mut counters: Vec<String> = JobCounters::default()
        .by_name()
        .into_iter()
        .filter_map(|(name, _)| job_counter(Arch::Tna, name))
        .map(|cell| cell.name.to_string())
        .collect();
    counters.push(global_counter(Arch::Tna).to_string());
    counters.sort();
    counters.dedup();
    assert_eq!(counters.len(), 9, "{counters:?}");
    for counter in counters {
        assert!(named(&counter), "P4Info has no counter {counter}");
        let short = counter.trim_start_matches("EsaIngress.");
        assert!(
            readme.contains(short),
            "p4/tna/README.md does not mention {short}"
        );
    }
}

/// The pool of the 64-value layout probe: 16,384 slots of 64 values, 4 MiB
/// of aggregation memory (p4/tna/README.md, "64 values in one pass").
const PAIR_SLOTS: &str = "ESA_POOL_SLOTS=16384";

/// Writes into `dir` the TNA program with its lanes as 32 pair registers
/// (`p4/tna/probes/pair_lanes.p4`, lanes p and p + 32 in register p) and
/// returns the program's path. The program's own lane declarations and
/// applies are swapped for the pairs'; everything else is esa.p4 as it is.
fn pair_lane_probe(dir: &Path) -> PathBuf {
    for sub in ["include", "tna"] {
        let to = dir.join("p4").join(sub);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(root().join("p4").join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "p4") {
                std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    let tna = dir.join("p4/tna");
    std::fs::copy(
        root().join("p4/tna/probes/pair_lanes.p4"),
        tna.join("pair_lanes.p4"),
    )
    .unwrap();
    let pairs: String = (0..32)
        .map(|p| format!("ESA_TNA_PAIR({p}, {})\n", p + 32))
        .collect();
    std::fs::write(tna.join("pair_list.p4"), pairs).unwrap();
    let mut program = std::fs::read_to_string(tna.join("esa.p4")).unwrap();
    for (from, to) in [
        (
            "#define TNA_LANE_APPLY(i) lane_##i##_op.apply();\n",
            "#define TNA_LANE_APPLY(i) lane_##i##_op.apply();\n#include \"pair_lanes.p4\"\n",
        ),
        (
            "#define ESA_TNA_LANE(i) TNA_LANE_DECLARE(i)\n#include \"lane_list.p4\"\n#undef ESA_TNA_LANE\n",
            "#define ESA_TNA_PAIR(i, j) TNA_PAIR_DECLARE(i, j)\n#include \"pair_list.p4\"\n#undef ESA_TNA_PAIR\n",
        ),
        (
            "#define ESA_TNA_LANE(i) TNA_LANE_APPLY(i)\n#include \"lane_list.p4\"\n#undef ESA_TNA_LANE\n",
            "#define ESA_TNA_PAIR(i, j) TNA_PAIR_APPLY(i, j)\n#include \"pair_list.p4\"\n#undef ESA_TNA_PAIR\n",
        ),
    ] {
        assert_eq!(
            program.matches(from).count(),
            1,
            "p4/tna/esa.p4 no longer has {from:?} once: update pair_lane_probe"
        );
        program = program.replace(from, to);
    }
    std::fs::write(tna.join("esa.p4"), program).unwrap();
    tna.join("esa.p4")
}

/// 64 values in one pass: one-lane registers would need 64 stateful ALUs
/// after the slot state's 7, and Tofino 1 has 48; pair registers need 32.
/// With them, 64 values and the rest of the program fit the ingress PHV
/// and the 12 stages (p4/tna/README.md, "64 values in one pass").
#[test]
fn bf_p4c_fits_64_values_in_pair_registers() {
    let Some(bf_p4c) = bf_p4c_for_test("bf_p4c_fits_64_values_in_pair_registers") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let program = pair_lane_probe(dir.path());
    let out = dir.path().join("out");
    let compiled = compile_program(&bf_p4c, &program, &["ESA_LANES=64", PAIR_SLOTS], &out);
    assert!(
        compiled.ok,
        "bf-p4c rejected 64 values in pair registers (-D{PAIR_SLOTS}); \
         p4/tna/README.md says they fit:\n{}",
        compiled.output
    );
    let res = resources(&out);
    assert!(
        res.stages_used <= TOFINO1_STAGES,
        "{} stages used",
        res.stages_used
    );
    for p in 0..32 {
        let name = format!("EsaIngress.lane_{p}");
        let stages = res
            .register_stages
            .get(&name)
            .unwrap_or_else(|| panic!("{name} not placed: {:?}", res.register_stages.keys()));
        assert_eq!(stages, &[4 + p / 4], "{name}");
    }
    assert_eq!(
        res.register_stages.len(),
        SLOT_REGISTERS.len() + 32,
        "registers: {:?}",
        res.register_stages.keys()
    );
    println!(
        "64 values in 32 pair registers, {PAIR_SLOTS}: {} stages",
        res.stages_used
    );
}

#[test]
fn bf_p4c_accepts_the_tna_programs_p4sim_tests_run() {
    let Some(bf_p4c) = bf_p4c_for_test("bf_p4c_accepts_the_tna_programs_p4sim_tests_run") else {
        return;
    };
    let dir = root().join("p4sim/tests/tna");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "p4"))
        .collect();
    programs.sort();
    assert!(!programs.is_empty());
    for p in programs {
        let out_dir = std::env::temp_dir().join(format!(
            "esa-tofino-{}-{}",
            p.file_stem().unwrap().to_string_lossy(),
            std::process::id()
        ));
        let out = Command::new(&bf_p4c)
            .arg("-o")
            .arg(&out_dir)
            .arg(&p)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", bf_p4c.display()));
        let _ = std::fs::remove_dir_all(&out_dir);
        assert!(
            out.status.success(),
            "bf-p4c rejects {}:\n{}{}",
            p.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The programs p4sim rejects for a Tofino rule
/// (`p4sim/tests/tna/rejected/`, each with p4sim's and bf-p4c's verdict in
/// its `// p4sim:` and `// bf-p4c:` lines) are rejected by the real
/// compiler too, for the reason the file gives.
#[test]
fn bf_p4c_rejects_the_programs_p4sim_rejects() {
    let Some(bf_p4c) = bf_p4c_for_test("bf_p4c_rejects_the_programs_p4sim_rejects") else {
        return;
    };
    let dir = root().join("p4sim/tests/tna/rejected");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "p4"))
        .collect();
    programs.sort();
    assert!(!programs.is_empty());
    for p in programs {
        let text = std::fs::read_to_string(&p).unwrap();
        let want = text
            .lines()
            .find_map(|l| l.strip_prefix("// bf-p4c: "))
            .unwrap_or_else(|| panic!("{}: no `// bf-p4c:` line", p.display()));
        let out_dir = tempfile::tempdir().unwrap();
        let out = Command::new(&bf_p4c)
            .arg("-o")
            .arg(out_dir.path())
            .arg(&p)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", bf_p4c.display()));
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.status.success(),
            "bf-p4c accepts {}:\n{said}",
            p.display()
        );
        assert!(said.contains(want), "{}: bf-p4c said\n{said}", p.display());
    }
}

/// p4sim's P4Info for a TNA program is the one the real compiler writes
/// with `--p4runtime-force-std-externs` (standard counters and registers,
/// as a Tofino's standard P4Runtime server takes them): the same text, so
/// the same names, ids, match fields, actions, sizes and types.
#[test]
fn p4sim_p4info_of_tna_programs_equals_bf_p4c_s() {
    let Some(bf_p4c) = bf_p4c_for_test("p4sim_p4info_of_tna_programs_equals_bf_p4c_s") else {
        return;
    };
    for program in [
        Arch::Tna.test_program(),
        root().join("p4sim/tests/tna/tna_basics.p4"),
    ] {
        let out_dir = std::env::temp_dir().join(format!(
            "esa-tofino-p4info-{}-{}",
            program.file_stem().unwrap().to_string_lossy(),
            std::process::id()
        ));
        let file = out_dir.join("p4info.txtpb");
        let out = Command::new(&bf_p4c)
            .arg("--p4runtime-force-std-externs")
            .arg("-o")
            .arg(&out_dir)
            .arg("--p4runtime-files")
            .arg(&file)
            .arg(&program)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", bf_p4c.display()));
        assert!(
            out.status.success(),
            "bf-p4c rejects {}:\n{}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let want = std::fs::read_to_string(&file).unwrap();
        let _ = std::fs::remove_dir_all(&out_dir);
        let parsed = p4sim::front::parse_program(&program, &[]).unwrap_or_else(|d| panic!("{d}"));
        let have = p4sim::p4info::p4info_text(&parsed).unwrap_or_else(|d| panic!("{d}"));
        if have != want {
            let line = have
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{}: p4sim's P4Info differs from bf-p4c's at line {}:\n  p4sim:  {}\n  bf-p4c: {}",
                program.display(),
                line + 1,
                have.lines().nth(line).unwrap_or(""),
                want.lines().nth(line).unwrap_or("")
            );
        }
    }
}
