//! TNA (Tofino 1) programs in p4sim: the programs of `tests/tna/` pass their
//! STF (expected bytes written by hand from the TNA documentation) on the
//! reference interpreter and on the compiled engine, which then agree on
//! random and mutated packets; and each Tofino rule p4sim checks rejects a
//! program that breaks it, at the register or RegisterAction, naming the
//! rule.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use p4sim::v1switch::{Engine, V1Switch};

use crate::support::Rng;

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tna");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "p4"))
        .collect();
    out.sort();
    out
}

#[test]
fn tna_programs_pass_their_stf_and_engines_agree() {
    let mut rng = Rng(0x7a_5eed_0042);
    let files = programs();
    assert!(!files.is_empty());
    for p in files {
        let c = Arc::new(p4sim::check::compile_file(&p, &[]).unwrap_or_else(|d| panic!("{d}")));
        assert!(c.tna.is_some(), "{}: not a TNA program", p.display());
        for engine in [Engine::Compiled, Engine::Native] {
            engines_agree(&p, &c, engine, &mut rng);
        }
    }
}

/// `c`'s STF on the reference and on `engine` (the native engine: the code
/// `p4sim-native-corpus` generated for it), then random and mutated
/// packets: same outputs and state after each.
fn engines_agree(p: &Path, c: &Arc<p4sim::ir::Compiled>, engine: Engine, rng: &mut Rng) {
    p4sim_native_corpus::register();
    {
        let stf = std::fs::read_to_string(p.with_extension("stf")).unwrap();
        let r = V1Switch::with_engine(Arc::clone(c), Engine::Reference);
        let f = V1Switch::with_engine(Arc::clone(c), engine);
        assert_eq!(f.engine(), engine, "{}: no generated code", p.display());
        let (ra, mut r) = p4sim::stf::runner::run_stf_on(r, &stf).unwrap();
        let (fa, mut f) = p4sim::stf::runner::run_stf_on(f, &stf).unwrap();
        let what = format!("{} on {engine:?}", p.display());
        assert!(ra.passed && ra.expectations > 0, "{what}: reference:\n{ra}");
        assert!(fa.passed, "{what}:\n{fa}");
        assert_eq!(ra.sequence, fa.sequence, "{what}: outputs differ");
        r.compare_state(&f)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        // random and mutated packets from the STF's inputs
        let inputs: Vec<Vec<u8>> = stf
            .lines()
            .filter_map(|l| l.strip_prefix("packet "))
            .filter_map(|l| l.split_whitespace().nth(1))
            .map(|h| {
                (0..h.len() / 2)
                    .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
                    .collect()
            })
            .collect();
        for k in 0..2000u64 {
            let mut pkt = inputs[(rng.next() % inputs.len() as u64) as usize].clone();
            match rng.next() % 4 {
                0 => {}
                1 if !pkt.is_empty() => {
                    let i = (rng.next() % pkt.len() as u64) as usize;
                    pkt[i] = rng.next() as u8;
                }
                2 => pkt.truncate((rng.next() % (pkt.len() as u64 + 1)) as usize),
                _ => pkt.extend((0..rng.next() % 8).map(|_| rng.next() as u8)),
            }
            let port = (rng.next() % 12) as u16;
            r.set_time_us(k * 3);
            f.set_time_us(k * 3);
            r.lockstep(&mut f, port, &pkt)
                .unwrap_or_else(|e| panic!("{what}: packet {k}: {e}"));
        }
    }
}

/// A TNA program with `decls` in the ingress control and `body` as its
/// apply block.
fn program(decls: &str, body: &str) -> String {
    format!(
        r#"#include <core.p4>
#include <tna.p4>
header h_t {{ bit<32> a; bit<32> b; bit<32> c; bit<16> i; }}
struct hs_t {{ h_t h; }}
struct m_t {{ bit<32> x; }}
struct pair_t {{ bit<32> lo; bit<32> hi; }}
parser IP(packet_in pkt, out hs_t hdr, out m_t md, out ingress_intrinsic_metadata_t ig_intr_md) {{
    state start {{
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.h);
        transition accept;
    }}
}}
control I(inout hs_t hdr, inout m_t md, in ingress_intrinsic_metadata_t ig_intr_md,
          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {{
{decls}
    apply {{
{body}
        ig_tm_md.ucast_egress_port = 1;
    }}
}}
control ID(packet_out pkt, inout hs_t hdr, in m_t md, in ingress_intrinsic_metadata_for_deparser_t d) {{
    apply {{ pkt.emit(hdr); }}
}}
parser EP(packet_in pkt, out hs_t hdr, out m_t md, out egress_intrinsic_metadata_t eg_intr_md) {{
    state start {{ pkt.extract(eg_intr_md); transition accept; }}
}}
control E(inout hs_t hdr, inout m_t md, in egress_intrinsic_metadata_t eg_intr_md) {{
    apply {{ }}
}}
control ED(packet_out pkt, inout hs_t hdr, in m_t md) {{
    apply {{ pkt.emit(hdr); }}
}}
Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;
Switch(pipe) main;
"#
    )
}

const REG: &str = r#"
    Register<bit<32>, bit<16>>(16, 0) r;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) add = {
        void apply(inout bit<32> v, out bit<32> rv) { v = v + hdr.h.a; rv = v; }
    };
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) read = {
        void apply(inout bit<32> v, out bit<32> rv) { rv = v; }
    };"#;

/// Compiles `src`; the error message, with its position, or `None`.
fn error(src: &str) -> Option<String> {
    p4sim::check::compile_source("t.p4", src)
        .err()
        .map(|d| d.to_string())
}

#[test]
fn the_frame_program_compiles_and_single_accesses_pass() {
    let ok = [
        "        hdr.h.b = add.execute(hdr.h.i);",
        // alternatives are one access each
        "        if (hdr.h.a == 0) { hdr.h.b = add.execute(hdr.h.i); } else { hdr.h.c = read.execute(hdr.h.i); }",
    ];
    for body in ok {
        if let Some(e) = error(&program(REG, body)) {
            panic!("{body}: {e}");
        }
    }
    // one table whose actions each access the register once
    let decls = format!(
        "{REG}
    action a1() {{ hdr.h.b = add.execute(hdr.h.i); }}
    action a2() {{ hdr.h.b = read.execute(hdr.h.i); }}
    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; a2; }} default_action = a1(); }}"
    );
    assert_eq!(error(&program(&decls, "        t.apply();")), None);
}

#[test]
fn two_accesses_to_a_register_in_one_pass_are_rejected() {
    // in sequence
    let e = error(&program(
        REG,
        "        hdr.h.b = add.execute(hdr.h.i);\n        hdr.h.c = read.execute(hdr.h.i);",
    ))
    .expect("accepted");
    assert!(e.contains("t.p4:20:5"), "{e}");
    assert!(
        e.contains("register `I.r` is accessed 2 times in one pass of ingress"),
        "{e}"
    );
    assert!(e.contains("one access per packet per pass"), "{e}");
    // through two tables applied one after the other
    let decls = format!(
        "{REG}
    action a1() {{ hdr.h.b = add.execute(hdr.h.i); }}
    action a2() {{ hdr.h.b = read.execute(hdr.h.i); }}
    table t1 {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; NoAction; }} default_action = NoAction(); }}
    table t2 {{ key = {{ hdr.h.a: exact; }} actions = {{ a2; NoAction; }} default_action = NoAction(); }}"
    );
    let e = error(&program(&decls, "        t1.apply();\n        t2.apply();")).expect("accepted");
    assert!(e.contains("accessed 2 times"), "{e}");
    assert!(e.contains("I.a1") && e.contains("I.a2"), "{e}");
}

#[test]
fn a_register_action_beyond_the_stateful_alu_is_rejected() {
    // three conditions
    let decls = r#"
    Register<bit<32>, bit<16>>(16, 0) r;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) pick = {
        void apply(inout bit<32> v, out bit<32> rv) {
            if (v == hdr.h.a) { rv = 1; } else if (v < hdr.h.b) { rv = 2; } else if (v > 7) { rv = 3; }
        }
    };"#;
    let e = error(&program(decls, "        hdr.h.c = pick.execute(hdr.h.i);")).expect("accepted");
    assert!(e.contains("t.p4:21:5"), "{e}");
    assert!(e.contains("needs 3 conditions"), "{e}");
    assert!(e.contains("at most 2"), "{e}");
    // a condition and its negation are one
    let decls = r#"
    Register<bit<32>, bit<16>>(16, 0) r;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) pick = {
        void apply(inout bit<32> v, out bit<32> rv) {
            if (v == hdr.h.a) { rv = 1; }
            if (v != hdr.h.a) { v = 0; }
        }
    };"#;
    assert_eq!(
        error(&program(decls, "        hdr.h.c = pick.execute(hdr.h.i);")),
        None
    );
    // three PHV inputs over one register's actions
    let decls = r#"
    Register<bit<32>, bit<16>>(16, 0) r;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) one = {
        void apply(inout bit<32> v) { v = hdr.h.a + hdr.h.b; }
    };
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) two = {
        void apply(inout bit<32> v) { v = hdr.h.c; }
    };"#;
    let e = error(&program(decls, "        one.execute(hdr.h.i);")).expect("accepted");
    assert!(e.contains("t.p4:24:5"), "{e}");
    assert!(e.contains("read 3 fields"), "{e}");
    assert!(e.contains("at most 2 PHV inputs"), "{e}");
}

#[test]
fn register_cells_the_hardware_cannot_hold_are_rejected() {
    for (cell, init) in [("bit<24>", "0"), ("bit<64>", "0"), ("int<12>", "0")] {
        let decls = format!("    Register<{cell}, bit<16>>(16, {init}) r;");
        let e = error(&program(&decls, "")).expect("accepted");
        assert!(e.contains("t.p4:19:5"), "{cell}: {e}");
        assert!(e.contains("does not fit a stateful ALU"), "{cell}: {e}");
    }
    for ok in ["bit<1>", "bit<8>", "bit<16>", "int<32>", "pair_t"] {
        let decls = format!("    Register<{ok}, bit<16>>(16) r;");
        assert_eq!(error(&program(&decls, "")), None, "{ok}");
    }
}

#[test]
fn tna_extern_misuse_and_unsupported_externs_are_errors() {
    let decls = "    Mirror() m;";
    let e = error(&program(decls, "")).expect("accepted");
    assert!(e.contains("the TNA `Mirror` extern"), "{e}");
    let decls = "    Hash<bit<8>>(HashAlgorithm_t.CRC8) h;";
    let e = error(&program(decls, "")).expect("accepted");
    assert!(e.contains("HashAlgorithm_t.CRC8"), "{e}");
    let decls = "    Hash<bit<32>>(HashAlgorithm_t.CRC16) h;";
    let e = error(&program(decls, "")).expect("accepted");
    assert!(e.contains("wider than its algorithm's 16 bits"), "{e}");
    let decls = "    Hash<bit<16>>(HashAlgorithm_t.CRC16) h;";
    let e = error(&program(decls, "        hdr.h.i = h.get({hdr.h.i[6:0]});")).expect("accepted");
    assert!(e.contains("Hash.get of 7 bits"), "{e}");
    let decls = "    Register<bit<32>, bit<16>>(16, 5) r;";
    let e = error(&program(decls, "")).expect("accepted");
    assert!(e.contains("initial values other than zero"), "{e}");
    let decls = r#"
    Register<bit<32>, bit<16>>(16, 0) r;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) bad = {
        void go(inout bit<32> v) { v = 1; }
    };"#;
    let e = error(&program(decls, "")).expect("accepted");
    assert!(e.contains("a RegisterAction's method is `apply`"), "{e}");
    let e = error(&program("", "        this.predicate(true);")).expect("accepted");
    assert!(e.contains("`this` outside a RegisterAction's apply"), "{e}");
}

#[test]
fn a_dependency_chain_longer_than_the_stages_is_rejected() {
    let chain = |n: usize| {
        let mut decls = String::from("    action inc() { md.x = md.x + 1; }\n");
        let mut body = String::new();
        for k in 0..n {
            decls.push_str(&format!(
                "    table t{k} {{ key = {{ md.x: exact; }} actions = {{ inc; }} default_action = inc(); }}\n"
            ));
            body.push_str(&format!("        t{k}.apply();\n"));
        }
        program(&decls, &body)
    };
    // twelve tables, each matching on what the one before wrote: twelve
    // stages, which Tofino 1 has (bf-p4c compiles the same program, and
    // rejects the thirteen-table one: "tofino supports up to 12 stages,
    // using 13")
    assert_eq!(error(&chain(12)), None);
    let e = error(&chain(13)).expect("accepted");
    assert!(e.contains("t.p4:65:1"), "{e}");
    assert!(e.contains("ingress needs at least 13 stages"), "{e}");
    assert!(e.contains("I.t0 (stage 0) -> I.t1 (stage 1)"), "{e}");
    assert!(e.contains("I.t12 (stage 12)"), "{e}");
    // independent tables share stages
    let mut decls = String::from("    action set() { md.x = 1; }\n");
    let mut body = String::new();
    for k in 0..20 {
        decls.push_str(&format!(
            "    table u{k} {{ key = {{ hdr.h.a: exact; }} actions = {{ set; }} default_action = set(); }}\n"
        ));
        body.push_str(&format!("        u{k}.apply();\n"));
    }
    assert_eq!(error(&program(&decls, &body)), None);
}

/// `n` RegisterActions, each indexed by what the one before returned, in
/// straight-line code, the last result written to a header field.
fn register_chain(n: usize) -> String {
    let mut decls = String::new();
    let mut body = String::from("        bit<16> v0 = a0.execute(hdr.h.i);\n");
    for k in 0..n {
        decls.push_str(&format!(
            "    Register<bit<16>, bit<16>>(65536, 0) r{k};\n    \
             RegisterAction<bit<16>, bit<16>, bit<16>>(r{k}) a{k} = {{\n        \
             void apply(inout bit<16> v, out bit<16> rv) {{ rv = v; v = v + 1; }}\n    }};\n"
        ));
        if k > 0 {
            body.push_str(&format!(
                "        bit<16> v{k} = a{k}.execute(v{});\n",
                k - 1
            ));
        }
    }
    body.push_str(&format!("        hdr.h.i = v{};\n", n - 1));
    program(&decls, &body)
}

#[test]
fn a_chain_through_stateful_alu_results_counts_a_stage_per_link() {
    // A stateful ALU's result is readable from the next stage: eleven
    // chained RegisterActions and the assignment of the last result take
    // twelve stages, twelve take thirteen. bf-p4c agrees on both (the
    // twelve-register one: "tofino supports up to 12 stages, using 13";
    // tests/all/tofino_compile.rs in esa-p4 compiles them). Before, a
    // straight-line run was one step however it chained, and p4sim took a
    // chain of any length.
    assert_eq!(error(&register_chain(11)), None);
    let e = error(&register_chain(12)).expect("accepted");
    assert!(e.contains("ingress needs at least 13 stages"), "{e}");
    assert!(e.contains("a stateful ALU in ingress (stage 11)"), "{e}");
    assert!(
        e.contains("a use of a stateful ALU's result in ingress (stage 12)"),
        "{e}"
    );
    // Twenty independent RegisterActions share a stage.
    let mut decls = String::new();
    let mut body = String::new();
    for k in 0..20 {
        decls.push_str(&format!(
            "    Register<bit<16>, bit<16>>(16, 0) q{k};\n    \
             RegisterAction<bit<16>, bit<16>, bit<16>>(q{k}) b{k} = {{\n        \
             void apply(inout bit<16> v) {{ v = v + 1; }}\n    }};\n"
        ));
        body.push_str(&format!("        b{k}.execute(hdr.h.i);\n"));
    }
    assert_eq!(error(&program(&decls, &body)), None);
}

#[test]
fn a_stateful_alu_does_not_multiply_divide_or_shift() {
    // bf-p4c refuses each of these, by a PHV value or a constant alike:
    // "expression too complex for register action".
    for (expr, what) in [
        ("v * hdr.h.a", "multiply"),
        ("v * 3", "multiply"),
        ("v / 2", "divide"),
        ("v % 5", "take a remainder"),
        ("v << 1", "shift"),
        ("v >> hdr.h.a", "shift"),
    ] {
        let decls = format!(
            "    Register<bit<32>, bit<16>>(16, 0) r;\n    \
             RegisterAction<bit<32>, bit<16>, bit<32>>(r) scale = {{\n        \
             void apply(inout bit<32> v, out bit<32> rv) {{ v = {expr}; rv = v; }}\n    }};"
        );
        let e = error(&program(
            &decls,
            "        hdr.h.c = scale.execute(hdr.h.i);",
        ))
        .unwrap_or_else(|| panic!("{expr}: accepted"));
        assert!(e.contains("t.p4:21:"), "{expr}: {e}");
        assert!(
            e.contains(&format!("a stateful ALU cannot {what}")),
            "{expr}: {e}"
        );
    }
    // What it has: add, subtract, bitwise, saturating add.
    for expr in [
        "v + hdr.h.a",
        "v - 1",
        "v ^ hdr.h.a",
        "v |+| hdr.h.a",
        "v & 0xff",
    ] {
        let decls = format!(
            "    Register<bit<32>, bit<16>>(16, 0) r;\n    \
             RegisterAction<bit<32>, bit<16>, bit<32>>(r) scale = {{\n        \
             void apply(inout bit<32> v, out bit<32> rv) {{ v = {expr}; rv = v; }}\n    }};"
        );
        assert_eq!(
            error(&program(
                &decls,
                "        hdr.h.c = scale.execute(hdr.h.i);"
            )),
            None,
            "{expr}"
        );
    }
}

#[test]
fn a_table_whose_actions_use_different_indirect_externs_is_rejected() {
    // bf-p4c: "table I.t: There are issues with the following indirect
    // externs: The action a1 uses Counter I.c1 but does not use Counter
    // I.c2. ..."
    let counters = "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c2;
    action a1() { c1.count(hdr.h.i); }
    action a2() { c2.count(hdr.h.i); }";
    let decls = format!(
        "{counters}
    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; a2; @defaultonly NoAction; }} const default_action = NoAction(); }}"
    );
    let e = error(&program(&decls, "        t.apply();")).expect("accepted");
    assert!(e.contains("t.p4:23:5"), "{e}");
    assert!(
        e.contains("the actions of table `I.t` use different indirect externs"),
        "{e}"
    );
    assert!(
        e.contains("action `I.a1` uses counter `I.c1` but not counter `I.c2`; action `I.a2` uses counter `I.c2` but not counter `I.c1`"),
        "{e}"
    );
    // a default action that is not @defaultonly is checked too
    let decls = format!(
        "{counters}
    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; a2; }} default_action = a2(); }}"
    );
    let e = error(&program(&decls, "        t.apply();")).expect("accepted");
    assert!(e.contains("action `I.a2` uses counter `I.c2`"), "{e}");
    // a @defaultonly action is not checked, but its counter is the table's:
    // bf-p4c names a1 alone
    let decls = format!(
        "{counters}
    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; @defaultonly a2; }} const default_action = a2(); }}"
    );
    let e = error(&program(&decls, "        t.apply();")).expect("accepted");
    assert!(
        e.contains("(action `I.a1` uses counter `I.c1` but not counter `I.c2`);"),
        "{e}"
    );
    // registers (stateful ALUs) likewise: bf-p4c "The action a1 uses
    // Register I.r1 but does not use Register I.r2."
    let decls = "    Register<bit<32>, bit<16>>(1024, 0) r1;
    Register<bit<32>, bit<16>>(1024, 0) r2;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x1 = { void apply(inout bit<32> v) { v = v + 1; } };
    RegisterAction<bit<32>, bit<16>, bit<32>>(r2) x2 = { void apply(inout bit<32> v) { v = v + 1; } };
    action a1() { x1.execute(hdr.h.i); }
    action a2() { x2.execute(hdr.h.i); }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; @defaultonly NoAction; } const default_action = NoAction(); }";
    let e = error(&program(decls, "        t.apply();")).expect("accepted");
    assert!(e.contains("t.p4:25:5"), "{e}");
    assert!(
        e.contains("action `I.a1` uses register `I.r1` but not register `I.r2`"),
        "{e}"
    );
}

#[test]
fn a_table_whose_actions_address_an_indirect_extern_differently_is_rejected() {
    let rejected = [
        // bf-p4c: "Incompatible attached indexing between actions in table t_0"
        (
            "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    action a1() { c1.count(hdr.h.i); }
    action a2() { c1.count((bit<16>)hdr.h.b); }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; @defaultonly NoAction; } const default_action = NoAction(); }",
            "actions `I.a1` and `I.a2` index counter `I.c1` with different packet fields",
        ),
        // two RegisterActions of one register (bf-p4c: the same message)
        (
            "    Register<bit<32>, bit<16>>(1024, 0) r1;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x1 = { void apply(inout bit<32> v) { v = v + 1; } };
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x2 = { void apply(inout bit<32> v) { v = v - 1; } };
    action a1() { x1.execute(hdr.h.i); }
    action a2() { x2.execute((bit<16>)hdr.h.c); }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; @defaultonly NoAction; } const default_action = NoAction(); }",
            "actions `I.a1` and `I.a2` index register `I.r1` with different packet fields",
        ),
        // bf-p4c: "The attached Counter I.c1 is addressed by both hash and
        // index in table I.t", a @defaultonly action's index included
        (
            "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    action a1() { c1.count(hdr.h.i); }
    action a2() { c1.count(7); }
    table t { key = { hdr.h.a: exact; } actions = { a1; @defaultonly a2; } const default_action = a2(); }",
            "action `I.a1` indexes counter `I.c1` with packet fields, action `I.a2` with an action parameter or a constant",
        ),
        // bf-p4c: "The action a1 indexes Counter I.c2 with 16w1 but it also
        // indexes Counter I.c1 with 16w0."
        (
            "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c2;
    action a1() { c1.count(0); c2.count(1); }
    table t { key = { hdr.h.a: exact; } actions = { a1; @defaultonly NoAction; } const default_action = NoAction(); }",
            "action `I.a1` indexes counter `I.c1` and counter `I.c2` with different expressions",
        ),
        // bf-p4c: "The action a1 indexes Register I.r2 with hash_dist ... but
        // it also indexes Register I.r1 with hash_dist ..."
        (
            "    Register<bit<32>, bit<16>>(1024, 0) r1;
    Register<bit<32>, bit<16>>(1024, 0) r2;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x1 = { void apply(inout bit<32> v) { v = v + 1; } };
    RegisterAction<bit<32>, bit<16>, bit<32>>(r2) x2 = { void apply(inout bit<32> v) { v = v + 1; } };
    action a1() { x1.execute(hdr.h.i); x2.execute((bit<16>)hdr.h.c); }
    table t { key = { hdr.h.a: exact; } actions = { a1; @defaultonly NoAction; } const default_action = NoAction(); }",
            "action `I.a1` indexes register `I.r1` and register `I.r2` with different expressions",
        ),
    ];
    for (decls, want) in rejected {
        let e = error(&program(decls, "        t.apply();")).expect("accepted");
        assert!(
            e.contains(
                "the actions of table `I.t` address indirect externs with different expressions"
            ),
            "{e}"
        );
        assert!(e.contains(want), "{e}");
    }
}

#[test]
fn a_table_whose_actions_share_their_indirect_externs_passes() {
    // bf-p4c compiles each of these
    let accepted = [
        // one counter, one index, and an action without externs
        "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    action a1() { c1.count(hdr.h.i); }
    action a2() { c1.count(hdr.h.i); hdr.h.b = 1; }
    action a3() { hdr.h.c = 2; }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; a3; @defaultonly NoAction; } const default_action = NoAction(); }",
        // two RegisterActions of one register, and an action without externs
        "    Register<bit<32>, bit<16>>(1024, 0) r1;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x1 = { void apply(inout bit<32> v) { v = v + 1; } };
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x2 = { void apply(inout bit<32> v) { v = v - 1; } };
    action a1() { x1.execute(hdr.h.i); }
    action a2() { x2.execute(hdr.h.i); }
    action a3() { hdr.h.c = 2; }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; a3; @defaultonly NoAction; } const default_action = NoAction(); }",
        // a counter and a register are on different buses
        "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    Register<bit<32>, bit<16>>(1024, 0) r1;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x1 = { void apply(inout bit<32> v) { v = v + 1; } };
    action a1() { c1.count(hdr.h.i); }
    action a2() { x1.execute(hdr.h.i); }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; @defaultonly NoAction; } const default_action = NoAction(); }",
        // one counter by two actions' own parameters, or by two constants
        "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    action a1(bit<16> k) { c1.count(k); }
    action a2(bit<16> k2) { c1.count(k2); }
    action a3() { c1.count(7); }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; a3; @defaultonly NoAction; } const default_action = NoAction(); }",
        // two counters at one index and two registers at another, in one action
        "    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c2;
    Register<bit<32>, bit<16>>(1024, 0) r1;
    Register<bit<32>, bit<16>>(1024, 0) r2;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r1) x1 = { void apply(inout bit<32> v) { v = v + 1; } };
    RegisterAction<bit<32>, bit<16>, bit<32>>(r2) x2 = { void apply(inout bit<32> v) { v = v + 1; } };
    action a1() { c1.count(hdr.h.i); c2.count(hdr.h.i); x1.execute((bit<16>)hdr.h.c); x2.execute((bit<16>)hdr.h.c); }
    table t { key = { hdr.h.a: exact; } actions = { a1; @defaultonly NoAction; } const default_action = NoAction(); }",
    ];
    for decls in accepted {
        assert_eq!(
            error(&program(decls, "        t.apply();")),
            None,
            "{decls}"
        );
    }
}

#[test]
fn an_index_bf_p4c_cannot_address_is_rejected_at_the_call() {
    // Each verdict is bf-p4c's on this program (p4c
    // backends/tofino/bf-p4c/mau/instruction_selection.cpp,
    // StatefulAttachmentSetup::Scan::setup_index_operand).
    const DECLS: &str = "
    Register<bit<32>, bit<16>>(16, 0) r;
    RegisterAction<bit<32>, bit<16>, bit<32>>(r) add = {
        void apply(inout bit<32> v, out bit<32> rv) { v = v + hdr.h.a; rv = v; }
    };
    Counter<bit<32>, bit<16>>(1024, CounterType_t.PACKETS) c1;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) hh;";
    // bf-p4c: "The index is too complex for the primitive to be handled."
    const COMPUTED: &str = "is computed by an operator";
    // bf-p4c: "Complex expression is not yet supported"
    const PARAM_CONCAT: &str = "concatenates an action parameter with a field or another parameter";
    let rejected = [
        ("", "hdr.h.b = add.execute(hdr.h.i + 1);", COMPUTED),
        (
            "",
            "hdr.h.b = add.execute(hdr.h.i ^ hdr.h.a[15:0]);",
            COMPUTED,
        ),
        ("", "hdr.h.b = add.execute(~hdr.h.i);", COMPUTED),
        (
            "",
            "hdr.h.b = add.execute((bit<16>)(hdr.h.a + hdr.h.b));",
            COMPUTED,
        ),
        (
            "",
            "hdr.h.b = add.execute(hdr.h.a[0:0] == 1 ? hdr.h.i : 16w3);",
            COMPUTED,
        ),
        ("", "c1.count(hdr.h.i << 1);", COMPUTED),
        (
            "action a1(bit<16> k) { c1.count(k + 1); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
            COMPUTED,
        ),
        (
            "action a1(bit<16> k) { hdr.h.b = add.execute(k & 0xff); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
            COMPUTED,
        ),
        (
            "action a1(bit<8> p) { hdr.h.b = add.execute(p ++ hdr.h.a[7:0]); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
            PARAM_CONCAT,
        ),
        (
            "action a1(bit<8> p) { c1.count(hdr.h.a[7:0] ++ p); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
            PARAM_CONCAT,
        ),
        (
            "action a1(bit<8> p, bit<8> q) { c1.count(p ++ q); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
            PARAM_CONCAT,
        ),
    ];
    for (decls, body, want) in rejected {
        let src = program(&format!("{DECLS}\n    {decls}"), &format!("        {body}"));
        let e = error(&src).unwrap_or_else(|| panic!("accepted: {decls} {body}"));
        assert!(e.contains(want), "{decls} {body}: {e}");
        assert!(e.contains("Tofino: the index of "), "{e}");
        // at the call: in the action, or in the apply block
        let call = if decls.is_empty() { body } else { "action a1" };
        let line = src.lines().position(|l| l.contains(call)).unwrap() + 1;
        assert!(e.contains(&format!("t.p4:{line}:")), "{decls} {body}: {e}");
    }
    let accepted = [
        ("", "hdr.h.b = add.execute(hdr.h.a[15:0]);"),
        ("", "hdr.h.b = add.execute((bit<16>)hdr.h.a);"),
        ("", "hdr.h.b = add.execute(hdr.h.a[7:0] ++ hdr.h.b[7:0]);"),
        ("", "c1.count(hdr.h.c[31:24] ++ 8w3);"),
        ("", "hdr.h.b = add.execute(16w2 + 16w3);"),
        ("", "c1.count(7);"),
        ("", "hdr.h.b = add.execute(md.x[15:0]);"),
        ("", "hdr.h.b = add.execute(hh.get({hdr.h.a, hdr.h.b}));"),
        (
            "action a1(bit<16> k) { hdr.h.b = add.execute(k); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
        ),
        (
            "action a1(bit<8> p) { c1.count(8w1 ++ p); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
        ),
        (
            "action a1(bit<8> p) { hdr.h.b = add.execute(p ++ 8w3); } table t { key = { hdr.h.a: exact; } actions = { a1; } }",
            "t.apply();",
        ),
    ];
    for (decls, body) in accepted {
        let src = program(&format!("{DECLS}\n    {decls}"), &format!("        {body}"));
        assert_eq!(error(&src), None, "{decls} {body}");
    }
}

/// The programs of `tests/tna/rejected/`, each with what p4sim and bf-p4c
/// say of it in its `// p4sim:` and `// bf-p4c:` lines
/// (esa-p4's `tests/all/tofino_compile.rs` runs bf-p4c on them).
fn rejected_programs() -> Vec<(PathBuf, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tna/rejected");
    let mut out: Vec<(PathBuf, String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "p4"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let said = |tool: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("// {tool}: ")))
                    .unwrap_or_else(|| panic!("{}: no `// {tool}:` line", p.display()))
                    .to_string()
            };
            let (p4sim, bf_p4c) = (said("p4sim"), said("bf-p4c"));
            (p, p4sim, bf_p4c)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn programs_bf_p4c_rejects_are_rejected_here_for_the_same_reason() {
    let programs = rejected_programs();
    assert_eq!(programs.len(), 6);
    for (p, want, _) in programs {
        let e = match p4sim::check::compile_file(&p, &[]) {
            Ok(_) => panic!("{}: accepted", p.display()),
            Err(d) => d.to_string(),
        };
        assert!(e.contains(&want), "{}: {e}", p.display());
        // at a line of the file
        let at = format!("{}:", p.file_name().unwrap().to_string_lossy());
        assert!(e.contains(&at), "{}: {e}", p.display());
    }
}
