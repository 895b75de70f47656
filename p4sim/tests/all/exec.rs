//! End-to-end tests of the interpreter: real programs, exact output bytes.

use std::path::Path;
use std::sync::Arc;

use p4sim::check::{compile_file, compile_source};
use p4sim::exec::bits::{BitType, Bits};
use p4sim::v1switch::{Engine, MatchValue, OutputPacket, TableEntry, V1Switch};

fn b(width: u32, v: u128) -> Bits {
    Bits::from_u128(BitType::unsigned(width).unwrap(), v)
}

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn switch(src: &str) -> V1Switch {
    match compile_source("test.p4", src) {
        Ok(c) => V1Switch::new(Arc::new(c)),
        Err(e) => panic!("{e}"),
    }
}

fn out(port: u16, data: &str) -> OutputPacket {
    OutputPacket {
        port,
        data: hex(data),
    }
}

#[test]
fn l3_forward_program_runs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frontend_programs/l3_forward.p4");
    let c = compile_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sw = V1Switch::new(Arc::new(c));
    sw.table_add(
        "ipv4_lpm",
        TableEntry {
            matches: vec![MatchValue::Lpm(b(32, 0x0a000000), 8)],
            priority: None,
            action: "set_next_hop".into(),
            args: vec![("next_hop".into(), b(16, 1))],
        },
    )
    .unwrap();
    // Ethernet + IPv4 (ttl 64, correct checksum) + 4 payload bytes
    let pkt = hex("ffffffffffff 000000000009 0800
         4500 0018 0000 0000 4011 66d3 0a000001 0a000002 deadbeef");
    let got = sw.process(0, &pkt);
    assert_eq!(
        got,
        vec![out(
            1,
            "000000000002 000000000001 0800
             4500 0018 0000 0000 3f11 67d3 0a000001 0a000002 deadbeef"
        )]
    );
    // no route: the default action drops
    let miss = hex("ffffffffffff 000000000009 0800
         4500 0018 0000 0000 4011 66d3 0a000001 0b000002 deadbeef");
    assert_eq!(sw.process(0, &miss), vec![]);
    // direct counter counted the hit only
    assert_eq!(sw.counter_read("route_hits", 0).unwrap(), (1, 38));
    // non-IPv4 goes to port 1 unchanged
    let arp = hex("ffffffffffff 000000000009 0806 0001");
    assert_eq!(
        sw.process(3, &arp),
        vec![out(1, "ffffffffffff 000000000009 0806 0001")]
    );
}

fn conformance_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

#[test]
fn conformance_suite_passes() {
    let dir = conformance_dir();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut stfs: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "stf"))
        .collect();
    stfs.sort();
    let mut failed = Vec::new();
    for stf in &stfs {
        let p4 = stf.with_extension("p4");
        let text = std::fs::read_to_string(stf).unwrap();
        match p4sim::stf::runner::run_stf(&p4, &text) {
            Ok(r) if r.passed => {}
            Ok(r) => failed.push(format!("{}:\n{r}", stf.display())),
            Err(e) => failed.push(format!("{}: {e}", stf.display())),
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} STF tests failed:\n{}",
        failed.len(),
        stfs.len(),
        failed.join("\n\n")
    );
}

#[test]
fn conformance_error_programs_fail_where_they_say() {
    let dir = conformance_dir().join("errors");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut progs: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "p4"))
        .collect();
    progs.sort();
    let mut failed = Vec::new();
    for p in &progs {
        let text = std::fs::read_to_string(p).unwrap();
        let Some(spec) = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// error: "))
        else {
            continue;
        };
        // <file>:<line>:<col>: <message part>
        let mut parts = spec.splitn(4, ':');
        let (_file, line, col, msg) = (
            parts.next().unwrap_or(""),
            parts
                .next()
                .unwrap_or("")
                .trim()
                .parse::<u32>()
                .unwrap_or(0),
            parts
                .next()
                .unwrap_or("")
                .trim()
                .parse::<u32>()
                .unwrap_or(0),
            parts.next().unwrap_or("").trim().to_string(),
        );
        match compile_file(p, &[]) {
            Ok(_) => failed.push(format!("{}: compiled", p.display())),
            Err(d) => {
                if d.line != line || d.col != col || !d.message().contains(&msg) {
                    failed.push(format!(
                        "{}: want {line}:{col} `{msg}`, got {d}",
                        p.display()
                    ));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// A v1model program from declarations that define `headers_t`, `meta_t`
/// and the blocks `P`, `Vck`, `Ing`, `Eg`, `Cck`, `Dep`.
fn v1(decls: &str) -> String {
    format!(
        "#include <core.p4>\n#include <v1model.p4>\n{decls}\n\
         V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;\n"
    )
}

const H2: &str = "
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
";

fn with_h2(meta: &str, ing: &str, eg: &str) -> V1Switch {
    switch(&v1(&format!(
        "struct meta_t {{ {meta} }}\n{H2}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ {ing} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ {eg} }}\n"
    )))
}

#[test]
fn registers_accumulate_per_index() {
    let mut sw = switch(&v1("
header h_t { bit<8> op; bit<32> val; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<32>>(8) acc;
    apply {
        bit<32> cur;
        acc.read(cur, (bit<32>)hdr.h.op);
        cur = cur + hdr.h.val;
        acc.write((bit<32>)hdr.h.op, cur);
        hdr.h.val = cur;
        sm.egress_spec = 2;
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
"));
    assert_eq!(
        sw.process(0, &hex("01 00000005")),
        vec![out(2, "01 00000005")]
    );
    assert_eq!(
        sw.process(0, &hex("01 fffffffe")),
        vec![out(2, "01 00000003")]
    );
    assert_eq!(
        sw.process(0, &hex("02 00000001 77")),
        vec![out(2, "02 00000001 77")]
    );
    // an index beyond the register reads 0 and writes nothing
    assert_eq!(
        sw.process(0, &hex("09 00000004")),
        vec![out(2, "09 00000004")]
    );
    assert_eq!(sw.register_read("Ing.acc", 1).unwrap(), b(32, 3));
    assert_eq!(sw.register_read("acc", 2).unwrap(), b(32, 1));
    sw.register_write("acc", 1, &b(32, 100)).unwrap();
    assert_eq!(
        sw.process(0, &hex("01 00000001")),
        vec![out(2, "01 00000065")]
    );
    assert!(sw.register_read("acc", 8).is_err());
    assert!(sw.register_read("nosuch", 0).is_err());
    assert!(sw.register_write("acc", 0, &b(40, 1 << 33)).is_err());
}

#[test]
fn counters_count_packets_and_bytes() {
    let mut sw = with_h2(
        "",
        "counter(4, CounterType.packets_and_bytes) c; apply { c.count((bit<32>)hdr.h.a); sm.egress_spec = 1; }",
        "apply { }",
    );
    sw.process(0, &hex("01 00"));
    sw.process(0, &hex("01 00 aa bb"));
    sw.process(0, &hex("03 00"));
    assert_eq!(sw.counter_read("Ing.c", 1).unwrap(), (2, 6));
    assert_eq!(sw.counter_read("c", 3).unwrap(), (1, 2));
    assert_eq!(sw.counter_read("c", 0).unwrap(), (0, 0));
    sw.counter_reset("c").unwrap();
    assert_eq!(sw.counter_read("c", 1).unwrap(), (0, 0));
    assert!(sw.counter_read("c", 4).is_err());
}

#[test]
fn hash_algorithms_match_bmv2() {
    // "123456789" in a 72-bit field (a wide value): CRC-16/ARC 0xBB3D,
    // CRC-32 0xCBF43926, csum16 0xF62A; 10 + 0xBB3D % 7 = 14.
    let mut sw = switch(&v1("
header d_t { bit<72> data; }
header r_t { bit<16> crc16; bit<32> crc32; bit<16> csum; bit<8> small; }
struct headers_t { d_t d; r_t r; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.r.setValid();
        hash(hdr.r.crc16, HashAlgorithm.crc16, 16w0, { hdr.d.data }, 32w65536);
        hash(hdr.r.crc32, HashAlgorithm.crc32, 32w0, { hdr.d.data }, 64w4294967296);
        hash(hdr.r.csum, HashAlgorithm.csum16, 16w0, { hdr.d.data }, 32w65536);
        hash(hdr.r.small, HashAlgorithm.crc16, 8w10, { hdr.d.data }, 8w7);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
"));
    assert_eq!(
        sw.process(0, b"123456789"),
        vec![out(1, "313233343536373839 bb3d cbf43926 f62a 0e")]
    );
}

#[test]
fn multicast_replicates_with_rid() {
    let mut sw = with_h2(
        "",
        "apply { sm.mcast_grp = 1; }",
        "apply { hdr.h.a = (bit<8>)sm.egress_rid; hdr.h.b = (bit<8>)sm.instance_type; }",
    );
    let pre = sw.pre_mut();
    pre.mc_mgrp_create(1).unwrap();
    let n1 = pre.mc_node_create(5, &[2, 1], &[]).unwrap();
    let n2 = pre.mc_node_create(6, &[3], &[]).unwrap();
    pre.mc_node_associate(1, n1).unwrap();
    pre.mc_node_associate(1, n2).unwrap();
    assert_eq!(
        sw.process(0, &hex("00 00 99")),
        vec![out(1, "05 05 99"), out(2, "05 05 99"), out(3, "06 05 99")]
    );
}

#[test]
fn mark_to_drop_drops_and_can_be_overridden() {
    let mut sw = with_h2(
        "",
        "apply { mark_to_drop(sm); if (hdr.h.a == 1) { sm.egress_spec = 4; } }",
        "apply { }",
    );
    assert_eq!(sw.process(0, &hex("00 00")), vec![]);
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(4, "01 00")]);
}

#[test]
fn clone_i2e_sends_the_original_packet() {
    let mut sw = with_h2(
        "",
        "apply { hdr.h.a = 0xaa; clone(CloneType.I2E, 5); sm.egress_spec = 1; }",
        "apply { hdr.h.b = (bit<8>)sm.instance_type; }",
    );
    sw.pre_mut().mirroring_add(5, 3).unwrap();
    assert_eq!(
        sw.process(0, &hex("01 07 ee")),
        vec![out(3, "01 01 ee"), out(1, "aa 00 ee")]
    );
    // an unconfigured session makes no copy
    sw.pre_mut().mirroring_delete(5).unwrap();
    assert_eq!(sw.process(0, &hex("01 07")), vec![out(1, "aa 00")]);
}

#[test]
fn clone_e2e_copies_the_egress_result() {
    let mut sw = with_h2(
        "",
        "apply { sm.egress_spec = 1; }",
        "apply {
            hdr.h.b = (bit<8>)sm.instance_type;
            if (sm.instance_type == 0) { hdr.h.a = hdr.h.a + 1; clone(CloneType.E2E, 6); }
        }",
    );
    sw.pre_mut().mirroring_add(6, 4).unwrap();
    assert_eq!(
        sw.process(0, &hex("10 ff")),
        vec![out(1, "11 00"), out(4, "11 02")]
    );
}

#[test]
fn resubmit_keeps_the_field_list() {
    let mut sw = with_h2(
        "@field_list(1) bit<8> count; bit<8> other;",
        "apply {
            if (sm.instance_type == 0) {
                m.count = 7; m.other = 9;
                resubmit_preserving_field_list(1);
            } else {
                hdr.h.a = m.count; hdr.h.b = (bit<8>)sm.instance_type + m.other;
                sm.egress_spec = 1;
            }
        }",
        "apply { }",
    );
    assert_eq!(sw.process(0, &hex("00 00")), vec![out(1, "07 06")]);
}

#[test]
fn recirculate_sends_the_deparsed_packet_back() {
    let mut sw = with_h2(
        "@field_list(1) bit<8> count;",
        "apply { if (sm.instance_type == 4) { hdr.h.b = m.count; } sm.egress_spec = 1; }",
        "apply {
            if (sm.instance_type == 0) {
                m.count = 9; hdr.h.a = 0x11;
                recirculate_preserving_field_list(1);
            }
        }",
    );
    assert_eq!(sw.process(2, &hex("00 00 aa")), vec![out(1, "11 09 aa")]);
}

#[test]
fn endless_recirculation_is_cut_off() {
    let mut sw = with_h2(
        "",
        "apply { sm.egress_spec = 1; }",
        "apply { recirculate_preserving_field_list(0); }",
    );
    assert_eq!(sw.process(0, &hex("00 00")), vec![]);
    assert!(sw.take_log().iter().any(|l| l.contains("passes")));
}

#[test]
fn parser_errors_reach_ingress() {
    let mut sw = switch(&v1("
header h_t { bit<8> a; bit<8> b; }
header x_t { bit<32> x; }
struct headers_t { h_t h; x_t x; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        verify(hdr.h.a != 2, error.NoMatch);
        transition select(hdr.h.a) { 1: more; 3: rej; default: accept; }
    }
    state more { pkt.extract(hdr.x); transition accept; }
    state rej { transition reject; }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.PacketTooShort) { hdr.h.b = 1; }
        else if (sm.parser_error == error.NoMatch) { hdr.h.b = 2; }
        else if (sm.parser_error == error.NoError) { hdr.h.b = 0x0e; }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
"));
    assert_eq!(sw.process(0, &hex("01 00 ff")), vec![out(1, "01 01 ff")]);
    assert_eq!(sw.process(0, &hex("02 00 ff")), vec![out(1, "02 02 ff")]);
    assert_eq!(
        sw.process(0, &hex("01 00 01020304")),
        vec![out(1, "01 0e 01020304")]
    );
    assert_eq!(sw.process(0, &hex("05 00")), vec![out(1, "05 0e")]);
    // explicit reject keeps error.NoError
    assert_eq!(sw.process(0, &hex("03 00")), vec![out(1, "03 0e")]);
    // shorter than the first header: nothing valid, the bytes are payload
    assert_eq!(sw.process(0, &hex("07")), vec![out(1, "07")]);
}

#[test]
fn header_stacks_parse_pop_and_emit() {
    let mut sw = switch(&v1("
header l_t { bit<7> v; bit<1> bos; }
struct headers_t { l_t[4] ls; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ls.next);
        transition select(hdr.ls.last.bos) { 1: accept; default: start; }
    }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (hdr.ls[3].isValid()) { hdr.ls.push_front(1); hdr.ls[0].setValid(); hdr.ls[0].v = 1; }
        else { hdr.ls.pop_front(1); }
        if (hdr.ls[0].isValid()) { hdr.ls[0].v = 0x7f; }
        sm.egress_spec = (bit<9>)hdr.ls.nextIndex;
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ls); } }
"));
    assert_eq!(sw.process(0, &hex("02 04 07 ee")), vec![out(2, "fe 07 ee")]);
    // four labels fill the stack; push_front drops the last one
    assert_eq!(
        sw.process(0, &hex("02 04 06 09 ee")),
        vec![out(4, "fe 02 04 06 ee")]
    );
    // a fifth label: StackOutOfBounds, the four parsed labels stay
    assert_eq!(
        sw.process(0, &hex("02 04 06 08 0a 0b")),
        vec![out(4, "fe 02 04 06 0a 0b")]
    );
}

#[test]
fn switch_on_action_run_and_exit() {
    let mut sw = with_h2(
        "",
        "action a1() { } action a2() { }
         table t {
            key = { hdr.h.a : exact; }
            actions = { a1; a2; NoAction; }
            const entries = { 1 : a1(); 2 : a2(); }
            default_action = NoAction();
         }
         apply {
            switch (t.apply().action_run) {
                a1: { hdr.h.b = 0x11; }
                a2: { hdr.h.b = 0x22; exit; }
                default: { hdr.h.b = 0xdd; }
            }
            hdr.h.b = hdr.h.b + 1;
            sm.egress_spec = 1;
         }",
        "apply { }",
    );
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(1, "01 12")]);
    assert_eq!(sw.process(0, &hex("02 00")), vec![out(0, "02 22")]);
    assert_eq!(sw.process(0, &hex("03 00")), vec![out(1, "03 de")]);
}

#[test]
fn ternary_priorities_and_table_api_errors() {
    let mut sw = with_h2(
        "",
        "action set(bit<8> v) { hdr.h.b = v; }
         table t {
            key = { hdr.h.a : ternary; }
            actions = { set; @defaultonly NoAction; }
            default_action = NoAction();
         }
         apply { t.apply(); sm.egress_spec = 1; }",
        "apply { }",
    );
    let entry = |v: u128, m: u128, p: i32, arg: u128| TableEntry {
        matches: vec![MatchValue::Ternary(b(8, v), b(8, m))],
        priority: Some(p),
        action: "set".into(),
        args: vec![("v".into(), b(8, arg))],
    };
    sw.table_add("t", entry(0x10, 0xf0, 1, 1)).unwrap();
    let h = sw.table_add("Ing.t", entry(0x12, 0xff, 5, 2)).unwrap();
    assert_eq!(sw.process(0, &hex("12 00")), vec![out(1, "12 02")]);
    assert_eq!(sw.process(0, &hex("13 00")), vec![out(1, "13 01")]);
    assert_eq!(sw.process(0, &hex("23 00")), vec![out(1, "23 00")]);
    sw.table_modify("t", h, "set", &[("v".into(), b(8, 9))])
        .unwrap();
    assert_eq!(sw.process(0, &hex("12 00")), vec![out(1, "12 09")]);
    sw.table_delete("t", h).unwrap();
    assert_eq!(sw.process(0, &hex("12 00")), vec![out(1, "12 01")]);
    assert_eq!(sw.table_entries("t").unwrap().len(), 1);
    use p4sim::v1switch::RuntimeError as E;
    assert!(matches!(
        sw.table_add("nosuch", entry(0, 0, 0, 0)),
        Err(E::Unknown { .. })
    ));
    assert!(matches!(
        sw.table_add("t", entry(0x10, 0xf0, 1, 1)),
        Err(E::DuplicateEntry { .. })
    ));
    let mut e = entry(1, 1, 1, 1);
    e.action = "NoAction".into();
    e.args.clear();
    assert!(matches!(sw.table_add("t", e), Err(E::ActionScope(_))));
    let mut e = entry(1, 1, 1, 1);
    e.args.clear();
    assert!(matches!(sw.table_add("t", e), Err(E::BadArguments { .. })));
    let mut e = entry(1, 1, 1, 1);
    e.matches.push(MatchValue::Exact(b(8, 1)));
    assert!(matches!(sw.table_add("t", e), Err(E::KeyCount { .. })));
    let mut e = entry(1, 1, 1, 1);
    e.matches = vec![MatchValue::Ternary(b(9, 0x100), b(8, 1))];
    assert!(matches!(sw.table_add("t", e), Err(E::TooWide { .. })));
    assert!(matches!(
        sw.table_delete("t", h),
        Err(E::NoSuchEntry { .. })
    ));
    assert!(matches!(
        sw.table_set_default("t", "set", &[("v".into(), b(8, 3))]),
        Ok(())
    ));
    assert_eq!(sw.process(0, &hex("55 00")), vec![out(1, "55 03")]);
}

#[test]
fn digests_assert_log_and_timestamps() {
    let mut sw = switch(&v1("
header h_t { bit<8> a; bit<48> ts; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        assert(hdr.h.a != 0xff);
        digest(1, { hdr.h.a, sm.ingress_port });
        log_msg(\"a = {}\", { hdr.h.a });
        hdr.h.ts = sm.ingress_global_timestamp;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
"));
    sw.set_time_us(0x123456);
    assert_eq!(
        sw.process(7, &hex("05 000000000000")),
        vec![out(1, "05 000000123456")]
    );
    let d = sw.take_digests();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].receiver, 1);
    assert_eq!(d[0].values, vec![b(8, 5), b(9, 7)]);
    assert_eq!(sw.take_log(), vec!["a = 5".to_string()]);
    assert_eq!(sw.process(7, &hex("ff 000000000000")), vec![]);
    assert!(
        sw.take_log()
            .iter()
            .any(|l| l.contains("assertion failed at test.p4:"))
    );
    assert!(sw.take_digests().is_empty());
}

#[test]
fn wide_and_signed_arithmetic() {
    let mut sw = switch(&v1("
header w_t { bit<128> x; bit<128> y; int<8> s; bit<8> r; }
struct headers_t { w_t w; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.w); transition accept; }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.w.y = hdr.w.x + hdr.w.y;
        hdr.w.x = hdr.w.x[63:0] ++ hdr.w.x[127:64];
        bit<8> flags = 0;
        if (hdr.w.s < 0) { flags = flags | 1; }
        if (hdr.w.y > hdr.w.x) { flags = flags | 2; }
        hdr.w.s = hdr.w.s >> 1;
        hdr.w.r = flags | (bit<8>)(hdr.w.y[127:120]);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
"));
    let x = "00000000000000010000000000000002";
    let y = "ffffffffffffffffffffffffffffffff";
    let got = sw.process(0, &hex(&format!("{x} {y} f0 00")));
    // y = x - 1 = 0x...00010000...0001; x swapped halves; s = -16 >> 1 = -8
    assert_eq!(
        got,
        vec![out(
            1,
            "00000000000000020000000000000001 00000000000000010000000000000001 f8 01"
        )]
    );
}

/// The 1-based line and column of the first `needle` in `text`.
fn pos(text: &str, needle: &str) -> (u32, u32) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in program"));
    let before = &text[..at];
    let line = before.matches('\n').count() as u32 + 1;
    let col = (at - before.rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
    (line, col)
}

/// Compiles an H2 program whose ingress apply block is `ing`, expecting an
/// error at the first occurrence of `at` with a message containing `msg`.
fn compile_error(meta_and_locals: (&str, &str), ing: &str, at: &str, msg: &str) {
    let (meta, locals) = meta_and_locals;
    let src = v1(&format!(
        "struct meta_t {{ {meta} }}\n{H2}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{\n{locals}\napply {{\n{ing}\n}} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n"
    ));
    let d = match compile_source("test.p4", &src) {
        Ok(_) => panic!("compiled: {src}"),
        Err(d) => d,
    };
    let (line, col) = pos(&src, at);
    assert_eq!(
        (d.file.as_str(), d.line, d.col),
        ("test.p4", line, col),
        "{d}"
    );
    assert!(
        d.message().contains(msg),
        "message `{}` lacks `{msg}`",
        d.message()
    );
}

#[test]
fn compile_errors_name_file_line_and_column() {
    compile_error(
        ("", ""),
        "hdr.h.a = nowhere;",
        "nowhere",
        "`nowhere` is not declared",
    );
    compile_error(("", ""), "hdr.h.zz = 1;", "zz", "h_t has no field `zz`");
    compile_error(
        ("bit<16> w;", ""),
        "hdr.h.a = m.w;",
        "m.w;",
        "expected bit<8>, found bit<16>",
    );
    compile_error(
        ("bit<16> w;", ""),
        "m.w = m.w + hdr.h.a;",
        "m.w + hdr",
        "different widths: 16 and 8",
    );
    compile_error(
        ("", ""),
        "mark_to_drop(sm, sm);",
        "mark_to_drop(sm, sm)",
        "mark_to_drop takes 1 arguments, 2 given",
    );
    compile_error(
        ("", ""),
        "if (hdr.h.a) { }",
        "hdr.h.a)",
        "expected bool, found bit<8>",
    );
    compile_error(
        ("", ""),
        "hdr.h.a = hdr.h.a[8:0];",
        "hdr.h.a[8:0]",
        "out of range",
    );
    compile_error(
        ("", "action x(bit<8> v) { hdr.h.a = v; }"),
        "x(1, 2);",
        "x(1, 2)",
        "takes 1 arguments, 2 given",
    );
    compile_error(
        (
            "",
            "table t { key = { hdr.h.a : exact; } actions = { nosuch_action; } }",
        ),
        "t.apply();",
        "nosuch_action",
        "`nosuch_action` is not declared",
    );
    compile_error(
        (
            "",
            "table t { key = { hdr.h.a : fuzzy; } actions = { NoAction; } }",
        ),
        "t.apply();",
        "fuzzy",
        "unknown match kind",
    );
    compile_error(
        ("", ""),
        "bit<8> x = 1; bit<8> x = 2;",
        "x = 2",
        "already declared",
    );
    compile_error(
        ("", ""),
        "hdr.h.a = 8w256;",
        "8w256",
        "does not fit in 8 bits",
    );
    compile_error(
        ("", ""),
        "hdr.h.b = hdr.h.a << -1;",
        "hdr.h.a << -1",
        "negative shift",
    );
    compile_error(
        ("", ""),
        "exit; hdr.h.a = (bit<8>) true;",
        "(bit<8>) true",
        "cannot cast bool to bit<8>",
    );
    compile_error(
        ("", ""),
        "hdr.h.a[6:3][4:0] = 0;",
        "hdr.h.a[6:3][4:0]",
        "slice [4:0] is out of range for a value of width 4",
    );
    compile_error(
        ("", ""),
        "hdr.h.a[3:6][1:0] = 0;",
        "hdr.h.a[3:6][1:0]",
        "slice [3:6] is empty",
    );
    compile_error(
        ("", ""),
        "hash(hdr.h.a, HashAlgorithm.crc16, 8w0, {hdr.h.b}, 8w7, 1);",
        "hash(",
        "hash takes 5 arguments",
    );
}

#[test]
fn unsupported_constructs_are_errors() {
    let src = v1("
header v_t { varbit<64> opts; bit<8> len; }
struct headers_t { v_t v; }
struct meta_t { }
");
    let d = compile_source("test.p4", &src).unwrap_err();
    assert_eq!((d.line, d.col), pos(&src, "bit<8> len;"));
    assert!(
        d.to_string()
            .contains("unsupported: a field after the varbit field `opts`"),
        "{d}"
    );

    let src = v1(&format!(
        "struct meta_t {{ }}\n{H2}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{\n\
         action_selector(HashAlgorithm.crc16, 4, 8) sel;\n apply {{ }} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n"
    ));
    let d = compile_source("test.p4", &src).unwrap_err();
    assert_eq!((d.line, d.col), pos(&src, "action_selector("));
    assert!(
        d.message()
            .contains("unsupported: the `action_selector` extern"),
        "{d}"
    );

    // exit in a parser
    let src = v1(&format!(
        "struct meta_t {{ }}\n{}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n",
        H2.replace("pkt.extract(hdr.h);", "pkt.extract(hdr.h); exit;")
    ));
    let d = compile_source("test.p4", &src).unwrap_err();
    assert_eq!((d.line, d.col), pos(&src, "exit;"));

    // extract(_) without the header type to skip
    let src = v1(&format!(
        "struct meta_t {{ }}\n{}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n",
        H2.replace("pkt.extract(hdr.h);", "pkt.extract(_); pkt.extract(hdr.h);")
    ));
    let d = compile_source("test.p4", &src).unwrap_err();
    assert_eq!((d.line, d.col), pos(&src, "_);"), "{d}");
    assert!(d.message().contains("extract<H>(_)"), "{d}");

    // a program without main
    let d = compile_source("test.p4", "#include <v1model.p4>\nconst bit<8> X = 1;\n").unwrap_err();
    assert!(d.message().contains("no `main`"), "{d}");
    // an unknown parser state
    let src = v1(&format!(
        "struct meta_t {{ }}\n{}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n",
        H2.replace("transition accept;", "transition nowhere;")
    ));
    let d = compile_source("test.p4", &src).unwrap_err();
    assert_eq!((d.line, d.col), pos(&src, "nowhere"));
    assert!(
        d.message().contains("unknown parser state `nowhere`"),
        "{d}"
    );
}

#[test]
fn stf_runner_reports_mismatches_with_hex() {
    let dir = conformance_dir();
    let p4 = dir.join("truncate.p4");
    if !p4.exists() {
        return;
    }
    let r = p4sim::stf::runner::run_stf(
        &p4,
        "packet 0 01 02 03 04\nexpect 1 01 02 04 $\nexpect 1 01\n",
    )
    .unwrap();
    assert!(!r.passed);
    let text = r.to_string();
    assert!(text.contains("expected: 010204$"), "{text}");
    assert!(text.contains("actual:   010203"), "{text}");
    assert!(text.contains("expected packet #2 was not sent"), "{text}");
    // an unexpected packet on another port fails too
    let r = p4sim::stf::runner::run_stf(&p4, "packet 0 01 02 03 04\n").unwrap();
    assert!(!r.passed);
    assert!(r.to_string().contains("unexpected packet #1"));
    // expect with no data accepts anything on that port
    let r = p4sim::stf::runner::run_stf(&p4, "packet 0 01 02 03 04\nexpect 1\n").unwrap();
    assert!(r.passed, "{r}");
}

#[test]
fn sub_control_exit_still_copies_out() {
    let mut sw = switch(&v1(&format!(
        "struct meta_t {{ }}\n{H2}\n
control Sub(inout headers_t hdr, inout standard_metadata_t sm) {{
    action set(bit<8> v) {{ hdr.h.b = v; }}
    table t {{ key = {{ hdr.h.a : exact; }} actions = {{ set; }} }}
    apply {{
        if (t.apply().hit) {{ hdr.h.a = 0x55; exit; }}
        hdr.h.a = 0x66;
    }}
}}
bit<8> twice(in bit<8> x) {{ return x + x; }}
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
    Sub() sub;
    apply {{ sm.egress_spec = 1; sub.apply(hdr, sm); hdr.h.b = twice(hdr.h.b) + 1; }}
}}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
"
    )));
    sw.table_add(
        "sub.t",
        TableEntry {
            matches: vec![MatchValue::Exact(b(8, 1))],
            priority: None,
            action: "Ing.sub.set".into(),
            args: vec![("v".into(), b(8, 9))],
        },
    )
    .unwrap();
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(1, "55 09")]);
    assert_eq!(sw.process(0, &hex("02 03")), vec![out(1, "66 07")]);
    assert_eq!(sw.table_entries("Ing.sub.t").unwrap().len(), 1);
}

#[test]
fn random_packets_never_panic() {
    let mut programs: Vec<std::path::PathBuf> = std::fs::read_dir(conformance_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "p4"))
                .collect()
        })
        .unwrap_or_default();
    let fp = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frontend_programs");
    if let Ok(rd) = std::fs::read_dir(&fp) {
        programs.extend(rd.filter_map(|e| e.ok().map(|e| e.path())));
    }
    programs.sort();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut ran = 0;
    for p in &programs {
        let Ok(c) = compile_file(p, &[]) else {
            continue;
        };
        ran += 1;
        let mut sw = V1Switch::new(Arc::new(c));
        sw.pre_mut().mirroring_add(5, 3).unwrap();
        sw.pre_mut().mc_mgrp_create(1).unwrap();
        let n = sw.pre_mut().mc_node_create(1, &[1, 2], &[]).unwrap();
        sw.pre_mut().mc_node_associate(1, n).unwrap();
        for _ in 0..300 {
            let len = (next() % 90) as usize;
            let pkt: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let port = (next() % 512) as u16;
            for o in sw.process(port, &pkt) {
                assert!(o.port < 512);
            }
        }
    }
    assert!(ran >= 3, "only {ran} programs compiled");
}

#[test]
fn meters_are_green_until_configured_then_meter() {
    let mut sw = with_h2(
        "",
        "meter(4, MeterType.packets) mt;
         direct_meter<bit<2>>(MeterType.packets) dm;
         action color_it() { bit<2> c; dm.read(c); hdr.h.b = hdr.h.b | ((bit<8>)c << 4); }
         table t {
            key = { hdr.h.a : exact; }
            actions = { color_it; NoAction; }
            meters = dm;
            default_action = NoAction();
         }
         apply {
            bit<2> c;
            mt.execute_meter((bit<32>)hdr.h.a, c);
            hdr.h.b = (bit<8>)c;
            t.apply();
            sm.egress_spec = 1;
         }",
        "apply { }",
    );
    let h = sw
        .table_add(
            "t",
            TableEntry {
                matches: vec![MatchValue::Exact(b(8, 1))],
                priority: None,
                action: "color_it".into(),
                args: vec![],
            },
        )
        .unwrap();
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(1, "01 00")]);
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(1, "01 00")]);
    // one packet per 10 us committed (burst 1), two per 10 us peak (burst 1)
    sw.meter_set_rates("mt", Some(1), [(0.1, 1), (0.2, 1)])
        .unwrap();
    sw.meter_set_rates("dm", Some(u64::from(h.0)), [(0.1, 1), (0.2, 1)])
        .unwrap();
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(1, "01 00")]);
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(1, "01 22")]);
    sw.set_time_us(100);
    assert_eq!(sw.process(0, &hex("01 00")), vec![out(1, "01 00")]);
    assert!(
        sw.meter_set_rates("mt", Some(4), [(1.0, 1), (1.0, 1)])
            .is_err()
    );
}

#[test]
fn resource_limits_are_errors_not_panics() {
    let src = v1("
header h_t { bit<8> a; }
struct headers_t { h_t[4000000000] hs; }
struct meta_t { }
");
    let d = compile_source("test.p4", &src).unwrap_err();
    assert!(d.message().contains("header stacks of more than"), "{d}");
    let d = compile_source("test.p4", &v1("const bit<8> X = 100000w1;")).unwrap_err();
    assert!(d.message().contains("too large"), "{d}");
    let src = v1(&format!(
        "struct meta_t {{ }}\n{H2}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{\n\
         register<bit<8>>(32w4000000000) r;\n apply {{ }} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n"
    ));
    let d = compile_source("test.p4", &src).unwrap_err();
    assert!(d.message().contains("registers of more than"), "{d}");
}

#[test]
fn mutated_programs_never_panic_the_compiler() {
    let mut programs: Vec<std::path::PathBuf> = std::fs::read_dir(conformance_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "p4"))
                .collect()
        })
        .unwrap_or_default();
    programs.sort();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces = [
        "1",
        "0",
        "8w300",
        "bit<128>",
        "int<8>",
        "true",
        "hdr",
        "(",
        ")",
        "{",
        "}",
        ";",
        ".",
        "+",
        "-",
        "++",
        "[7:0]",
        "exit;",
        "return;",
        "_",
        "default",
        "error.NoMatch",
        "<<",
    ];
    let rounds: usize = std::env::var("P4SIM_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for p in &programs {
        let text = std::fs::read_to_string(p).unwrap();
        for _ in 0..rounds {
            let mut t = text.clone().into_bytes();
            for _ in 0..3 {
                if t.is_empty() {
                    break;
                }
                let at = (next() as usize) % t.len();
                let len = ((next() % 6) as usize).min(t.len() - at);
                let piece = pieces[(next() as usize) % pieces.len()].as_bytes();
                t.splice(at..at + len, piece.iter().copied());
            }
            let t = String::from_utf8_lossy(&t).into_owned();
            // either outcome is fine; a panic fails the test
            if let Ok(c) = compile_source("mutant.p4", &t) {
                let mut sw = V1Switch::new(Arc::new(c));
                sw.process(0, &[0x01, 0x02, 0x03, 0x04, 0x05, 0x06]);
            }
        }
    }
}

/// Loop corners on both engines: a range whose first value is past its
/// last runs no time, a signed range crosses zero, a `break` leaves only
/// the inner loop, and a loop that never ends drops the packet.
#[test]
fn loop_corners_on_both_engines() {
    use p4sim::v1switch::Engine;
    let src = v1(&format!(
        "struct meta_t {{ }}\n{H2}\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{\n\
           bit<8> n = 0;\n\
           for (bit<8> x in 5 .. 1) {{ n = n + 1; }}\n\
           for (int<8> s in -2 .. 2) {{ n = n + 0x10; }}\n\
           for (bit<8> i = 0; i < 3; i = i + 1) {{ for (;;) {{ n = n + 0x01; break; }} }}\n\
           hdr.h.b = n;\n\
           if (hdr.h.a == 0xee) {{ for (bit<8> i = 0; i < 10; i = i) {{ hdr.h.b = 0; }} }}\n\
           sm.egress_spec = 1;\n\
         }} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n"
    ));
    let compiled = Arc::new(compile_source("test.p4", &src).unwrap_or_else(|e| panic!("{e}")));
    for engine in [Engine::Reference, Engine::Compiled] {
        let mut sw = V1Switch::with_engine(compiled.clone(), engine);
        assert_eq!(
            sw.process(0, &hex("01 00")),
            vec![out(1, "01 53")],
            "{engine:?}"
        );
        assert_eq!(sw.process(0, &hex("ee 00")), vec![], "{engine:?}");
    }
}

/// An extern function the program declares itself runs the implementation
/// the switch registers under its name (BMv2 loads one from a module):
/// `in` values, `inout` values and their write-back, an `out` parameter,
/// a 128-bit one, on both engines; without an implementation the packet
/// is dropped with a fault naming the function.
#[test]
fn declared_extern_functions_run_their_registered_implementation() {
    let src = v1("
extern void mix(inout bit<16> acc, in bit<16> v, out bit<8> low, inout bit<128> wide);
header h_t { bit<16> acc; bit<16> v; bit<8> low; bit<128> wide; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Vck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        mix(hdr.h.acc, hdr.h.v + 1, hdr.h.low, hdr.h.wide);
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Cck(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
");
    let compiled = Arc::new(compile_source("test.p4", &src).unwrap_or_else(|e| panic!("{e}")));
    let input = "0102 0010 77 000102030405060708090a0b0c0d0e0f";
    for engine in [Engine::Reference, Engine::Compiled] {
        let mut sw = V1Switch::with_engine(Arc::clone(&compiled), engine);
        assert_eq!(sw.engine(), engine);
        assert_eq!(sw.process(0, &hex(input)), vec![], "{engine:?}");
        assert!(
            sw.take_log()
                .iter()
                .any(|l| l.contains("the extern function `mix` has no implementation")),
            "{engine:?}"
        );
        sw.register_extern_function("mix", |args| {
            // acc += v; low = the low byte of the old out value (0) + 0x5a;
            // wide = its bits reversed in bytes.
            let acc = args[0].low_u64() + args[1].low_u64();
            args[0] = Bits::from_u64(args[0].ty(), acc);
            args[2] = Bits::from_u64(args[2].ty(), args[2].low_u64() + 0x5a);
            let mut bytes = args[3].to_be_bytes();
            bytes.reverse();
            args[3] = Bits::from_be_bytes(args[3].ty(), &bytes);
        });
        assert_eq!(
            sw.process(0, &hex(input)),
            vec![out(2, "0113 0010 5a 0f0e0d0c0b0a09080706050403020100")],
            "{engine:?}"
        );
    }
}

#[test]
fn extern_functions_of_other_parameter_types_are_refused() {
    let src = v1(&format!(
        "struct meta_t {{ }}\n{H2}\nextern void f(in h_t h);\n\
         control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{\n\
         apply {{ f(hdr.h); }} }}\n\
         control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}\n"
    ));
    let d = compile_source("test.p4", &src).unwrap_err();
    assert_eq!((d.line, d.col), pos(&src, "in h_t h"), "{d}");
    assert!(
        d.message()
            .contains("a parameter of type h_t in an extern function"),
        "{d}"
    );
}

/// The action profile members behind `conformance/action_profile.p4`'s
/// tables: entries follow their member, a member in use stays, profiles
/// hold `size` members and only the tables' actions, and a table with a
/// profile takes no direct entries.
#[test]
fn action_profile_members_drive_their_entries() {
    use p4sim::v1switch::{MemberHandle, RuntimeError};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/action_profile.p4");
    let c = compile_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sw = V1Switch::new(Arc::new(c));
    let exact = |v| vec![MatchValue::Exact(b(8, v))];
    let set_out = |v| vec![("v".to_string(), b(16, v))];
    assert_eq!(
        sw.table_profile("Ing.first").unwrap().as_deref(),
        Some("Ing.ap")
    );
    // a direct entry is refused
    let direct = sw.table_add(
        "Ing.first",
        TableEntry {
            matches: exact(1),
            priority: None,
            action: "Ing.set_out".into(),
            args: set_out(1),
        },
    );
    assert!(matches!(direct, Err(RuntimeError::Indirect(t)) if t == "Ing.first"));
    let m = sw
        .act_prof_create_member("ap", "Ing.set_out", &set_out(0x10))
        .unwrap();
    let h = sw
        .table_indirect_add("Ing.first", exact(1), None, m)
        .unwrap();
    assert_eq!(
        sw.process(0, &hex("01 09 0000")),
        vec![out(1, "01 09 0010")]
    );
    // the entry follows its member
    sw.act_prof_modify_member("ap", m, "Ing.set_out", &set_out(0x22))
        .unwrap();
    assert_eq!(
        sw.process(0, &hex("01 09 0000")),
        vec![out(1, "01 09 0022")]
    );
    // in use, then free once the entry is gone
    assert!(matches!(
        sw.act_prof_delete_member("ap", m),
        Err(RuntimeError::MemberInUse { .. })
    ));
    sw.table_delete("Ing.first", h).unwrap();
    sw.act_prof_delete_member("ap", m).unwrap();
    assert!(matches!(
        sw.table_indirect_add("Ing.first", exact(1), None, m),
        Err(RuntimeError::NoSuchMember { .. })
    ));
    assert_eq!(
        sw.process(0, &hex("01 09 0000")),
        vec![out(1, "01 09 0000")]
    );
    // the profile's size, and only its tables' actions
    let port = |p| vec![("p".to_string(), b(9, p))];
    sw.act_prof_create_member("port_profile", "Ing.to_port", &port(2))
        .unwrap();
    sw.act_prof_create_member("port_profile", "Ing.to_port", &port(3))
        .unwrap();
    assert!(matches!(
        sw.act_prof_create_member("port_profile", "Ing.to_port", &port(4)),
        Err(RuntimeError::TableFull(p)) if p == "port_profile"
    ));
    assert!(matches!(
        sw.act_prof_create_member("ap", "Ing.nothing", &[]),
        Err(RuntimeError::Unknown { .. } | RuntimeError::ActionNotInTable { .. })
    ));
    assert!(matches!(
        sw.act_prof_create_member("nowhere", "Ing.to_port", &port(2)),
        Err(RuntimeError::Unknown {
            kind: "action profile",
            ..
        })
    ));
    // a member's default action
    let d = sw
        .act_prof_create_member("ap", "Ing.to_port", &port(5))
        .unwrap();
    sw.table_indirect_set_default("Ing.second", d).unwrap();
    assert_eq!(
        sw.process(0, &hex("07 07 0001")),
        vec![out(5, "07 07 0001")]
    );
    assert!(matches!(
        sw.act_prof_delete_member("ap", d),
        Err(RuntimeError::MemberInUse { .. })
    ));
    assert!(matches!(
        sw.table_indirect_add("Ing.second", exact(3), None, MemberHandle(99)),
        Err(RuntimeError::NoSuchMember { .. })
    ));
}

/// PSA: a program whose egress clones every packet (E2E) ends: a clone of
/// a clone 32 deep is dropped, and a session that doubles each copy stops
/// at 65,536 egress runs for the one packet.
#[test]
fn psa_clones_of_clones_end() {
    let src = r#"
#include <core.p4>
#include <psa.p4>
header h_t { bit<8> n; }
struct headers_t { h_t h; }
struct meta_t { }
struct empty_t { }
parser IP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_ingress_parser_input_metadata_t istd, in empty_t a, in empty_t b) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Ig(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply { send_to_port(ostd, (PortId_t) 1); }
}
control ID(packet_out pkt, out empty_t a, out empty_t b, out empty_t c,
           inout headers_t hdr, in meta_t meta, in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.h); }
}
parser EP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_egress_parser_input_metadata_t istd, in empty_t a, in empty_t b, in empty_t c) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.h.n = hdr.h.n + 1;
        ostd.clone = true;
        ostd.clone_session_id = (CloneSessionId_t) 5;
    }
}
control ED(packet_out pkt, out empty_t a, out empty_t b, inout headers_t hdr, in meta_t meta,
           in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.h); }
}
IngressPipeline(IP(), Ig(), ID()) ip;
EgressPipeline(EP(), Eg(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
"#;
    let mut sw = switch(src);
    // session 5: one copy to port 2; each copy counts its egress runs
    sw.pre_mut().mirroring_add(5, 2).unwrap();
    let outs = sw.process(0, &[0]);
    assert_eq!(outs.len(), 33);
    assert_eq!(outs[0], out(1, "01"));
    for (k, o) in outs.iter().enumerate().skip(1) {
        assert_eq!(*o, out(2, &format!("{:02x}", k + 1)));
    }
    assert!(
        sw.take_log().iter().any(|l| l.contains("clones of clones")),
        "the dropped clone is logged"
    );
    // session 5 to a group of two ports: the copies double each time
    sw.pre_mut().mc_mgrp_create(9).unwrap();
    let node = sw.pre_mut().mc_node_create(0, &[2, 3], &[]).unwrap();
    sw.pre_mut().mc_node_associate(9, node).unwrap();
    sw.pre_mut().mirroring_add_mc(5, 9).unwrap();
    let outs = sw.process(0, &[0]);
    assert_eq!(outs.len(), 1 << 16);
    assert!(sw.take_log().iter().any(|l| l.contains("egress runs")));
}
