//! Input bounds of the `esa` command (issue 39): what it refuses before
//! anything starts, and the error it says it with. No root needed.

use std::path::PathBuf;
use std::process::{Command, Output};

const ESA: &str = env!("CARGO_BIN_EXE_esa");

fn esa(args: &[&str]) -> Output {
    Command::new(ESA).args(args).output().unwrap()
}

/// Runs `esa args`, which must fail with every one of `wanted` in its
/// stderr; returns the stderr.
fn refused(args: &[&str], wanted: &[&str]) -> String {
    let out = esa(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "esa {args:?} succeeded: {stderr}");
    for w in wanted {
        assert!(stderr.contains(w), "esa {args:?}: no {w:?} in: {stderr}");
    }
    stderr
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("esa-bounds-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 50 MB in the probe reached 1.84 GB of memory before the refusal.
#[test]
fn config_files_over_a_mebibyte_are_refused_unread() {
    let dir = scratch("size");
    let big = dir.join("big.toml");
    let mut text = String::from("name = \"big\"\n");
    text.push_str(&"#".repeat(2 << 20));
    std::fs::write(&big, &text).unwrap();
    let big = big.to_str().unwrap();
    let too_large = "larger than 1048576 bytes, the limit for a config file";
    refused(&["run", big], &[too_large]);
    refused(
        &[
            "run",
            "testbed/experiments/quick.toml",
            "--switch",
            "external",
            "--p4runtime",
            "127.0.0.1:1",
            "--hosts",
            big,
        ],
        &[too_large],
    );
    refused(&["controller", "--topology", big], &[too_large]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// 10^9 iterations were accepted without a word (about 71 hours).
#[test]
fn long_runs_are_estimated_and_refused_without_yes() {
    let dir = scratch("long");
    let experiment = |iterations: u32| {
        let path = dir.join(format!("long{iterations}.toml"));
        std::fs::write(
            &path,
            format!(
                "name = \"long\"\n[switch]\nlanes = 32\npool_slots = 256\n[[jobs]]\n\
                 name = \"a\"\nworkers = 2\ngradient_elems = 65536\niterations = {iterations}\n"
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    };
    refused(
        &["run", &experiment(1_000_000_000)],
        &["iterations (line 9) = 1000000000: must be 1..=1000000"],
    );
    let stderr = refused(
        &["run", &experiment(100_000)],
        &[
            "long: estimated run time about 5 h 41 min (409600000 DATA frames at 20000 frames/s \
             of esa-switch",
            "above 1 h 0 min: pass --yes to run it anyway",
        ],
    );
    assert!(!stderr.contains("variant"), "nothing started: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 50 MB name was copied into 251 MB of reports.
#[test]
fn names_are_bounded() {
    let dir = scratch("names");
    let path = dir.join("named.toml");
    let long = "x".repeat(65);
    std::fs::write(
        &path,
        format!(
            "name = \"{long}\"\n[switch]\nlanes = 32\npool_slots = 256\n[[jobs]]\n\
             name = \"a\"\nworkers = 2\ngradient_elems = 1024\niterations = 1\n"
        ),
    )
    .unwrap();
    refused(
        &["run", path.to_str().unwrap()],
        &[
            "name (line 1) = \"xxxx",
            "use 1 to 64 letters, digits, '-' and '_'",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// 511 is v1model's drop port: a frame the program sends there is dropped.
#[test]
fn the_drop_port_is_refused() {
    refused(
        &[
            "switch",
            "-u",
            "511@127.0.0.1:0",
            "--grpc-addr",
            "127.0.0.1:0",
        ],
        &["port 511: is the drop port"],
    );
    refused(
        &["switch", "-i", "511@lo", "--grpc-addr", "127.0.0.1:0"],
        &["port 511: is the drop port"],
    );
}

/// `esa p4info` on a TNA program the Tofino rules reject writes no P4Info,
/// as bf-p4c writes none (issue 40: it printed one before), for each of
/// p4sim's rejected programs; esa.p4's TNA program still gets its P4Info.
#[test]
fn esa_p4info_applies_the_tofino_rules_to_a_tna_program() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rejected = root.join("p4sim/tests/tna/rejected");
    for (file, why) in [
        ("salu_multiply.p4", "a stateful ALU cannot multiply"),
        ("register_chain_12.p4", "ingress needs at least 13 stages"),
        (
            "table_indirect_externs.p4",
            "the actions of table `I.drops` use different indirect externs",
        ),
    ] {
        let path = rejected.join(file);
        let stderr = refused(&["p4info", path.to_str().unwrap()], &[why]);
        assert!(stderr.contains(file), "{stderr}");
    }
    let ok = esa(&["p4info", root.join("p4/tna/esa.p4").to_str().unwrap()]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("EsaIngress"));
}
