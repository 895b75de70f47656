//! Front-end tests: realistic v1model programs, include handling on disk,
//! exact error positions, preprocessor corner cases, and "never panics"
//! properties for the lexer, preprocessor and parser.

use std::path::{Path, PathBuf};

use p4sim::front::ast::*;
use p4sim::front::diagnostic::{Diagnostic, ErrorKind};
use p4sim::front::preprocess::MemoryLoader;
use p4sim::front::{
    FrontendOptions, parse_program, parse_program_with, parse_source, parse_source_with,
};
use proptest::prelude::*;

const L3_FORWARD: &str = include_str!("../frontend_programs/l3_forward.p4");
const REGISTERS_HASH: &str = include_str!("../frontend_programs/registers_hash.p4");
const HEADER_STACK: &str = include_str!("../frontend_programs/header_stack.p4");

fn parse(name: &str, text: &str) -> Program {
    match parse_source(name, text) {
        Ok(p) => p,
        Err(d) => panic!("{d}"),
    }
}

fn parse_error(text: &str) -> Diagnostic {
    match parse_source("prog.p4", text) {
        Ok(_) => panic!("expected an error"),
        Err(d) => d,
    }
}

/// Declarations that come from the program file itself (not the headers).
fn own<'a>(p: &'a Program, file: &str) -> Vec<&'a Declaration> {
    p.declarations
        .iter()
        .filter(|d| p.sources.name(d.span().file) == file)
        .collect()
}

fn control<'a>(p: &'a Program, name: &str) -> &'a ControlDecl {
    p.declarations
        .iter()
        .find_map(|d| match d {
            Declaration::Control(c) if c.name.as_str() == name => Some(c),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no control {name}"))
}

fn parser_decl<'a>(p: &'a Program, name: &str) -> &'a ParserDecl {
    p.declarations
        .iter()
        .find_map(|d| match d {
            Declaration::Parser(c) if c.name.as_str() == name => Some(c),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no parser {name}"))
}

fn table<'a>(c: &'a ControlDecl, name: &str) -> &'a TableDecl {
    c.locals
        .iter()
        .find_map(|d| match d {
            Declaration::Table(t) if t.name.as_str() == name => Some(t),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no table {name}"))
}

fn int(e: &Expr) -> u128 {
    match &e.kind {
        ExprKind::Int(v) => v.to_u128().unwrap_or(u128::MAX),
        other => panic!("not an integer: {other:?}"),
    }
}

fn int_lit(e: &Expr) -> &IntLiteral {
    match &e.kind {
        ExprKind::Int(v) => v,
        other => panic!("not an integer: {other:?}"),
    }
}

fn name_of(e: &Expr) -> &str {
    match &e.kind {
        ExprKind::Name(p) => p.name.as_str(),
        other => panic!("not a name: {other:?}"),
    }
}

/// `a.b.c` for member chains.
fn dotted(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(p) => p.name.to_string(),
        ExprKind::Member { base, member } => format!("{}.{}", dotted(base), member),
        ExprKind::Index { base, index } => format!("{}[{}]", dotted(base), int(index)),
        ExprKind::Call { callee, .. } => format!("{}()", dotted(callee)),
        other => panic!("not a path: {other:?}"),
    }
}

#[test]
fn l3_forward_program_shape() {
    let p = parse("l3_forward.p4", L3_FORWARD);
    let decls = own(&p, "l3_forward.p4");
    let kinds: Vec<&str> = decls
        .iter()
        .map(|d| match d {
            Declaration::Typedef(_) => "typedef",
            Declaration::Constant(_) => "const",
            Declaration::Header(_) => "header",
            Declaration::Struct(_) => "struct",
            Declaration::Parser(_) => "parser",
            Declaration::Control(_) => "control",
            Declaration::Instantiation(_) => "instance",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "typedef", "typedef", "typedef", "const", "const", "header", "header", "struct",
            "struct", "parser", "control", "control", "control", "control", "control", "instance"
        ]
    );

    let Declaration::Constant(vlan) = decls[4] else {
        panic!()
    };
    let lit = int_lit(&vlan.value);
    assert_eq!(
        (lit.to_u128(), lit.width, lit.signed),
        (Some(0x8100), Some(16), false)
    );

    let Declaration::Header(ipv4) = decls[6] else {
        panic!()
    };
    assert_eq!(ipv4.fields.len(), 12);
    assert_eq!(ipv4.fields[5].name.as_str(), "flags");
    assert!(matches!(&ipv4.fields[5].ty.kind, TypeKind::Bit(w) if int(w) == 3));
    assert!(
        matches!(&ipv4.fields[10].ty.kind, TypeKind::Name(p) if p.name.as_str() == "ipv4_addr_t")
    );

    let parser = parser_decl(&p, "MyParser");
    assert_eq!(parser.params.len(), 4);
    assert_eq!(parser.params[1].direction, Direction::Out);
    assert_eq!(parser.states.len(), 2);
    let Some(Transition {
        kind: TransitionKind::Select { exprs, cases },
        ..
    }) = &parser.states[0].transition
    else {
        panic!("start must select")
    };
    assert_eq!(dotted(&exprs[0]), "hdr.ethernet.ether_type");
    assert_eq!(cases.len(), 2);
    assert!(matches!(&cases[0].keys[..], [Keyset::Expr(e)] if name_of(e) == "TYPE_IPV4"));
    assert!(matches!(&cases[1].keys[..], [Keyset::Default(_)]));
    assert_eq!(cases[1].next.as_str(), "accept");

    let ingress = control(&p, "MyIngress");
    assert_eq!(ingress.locals.len(), 6);
    let Declaration::Instantiation(counter) = &ingress.locals[0] else {
        panic!()
    };
    assert!(matches!(&counter.ty.kind, TypeKind::Name(p) if p.name.as_str() == "direct_counter"));
    assert_eq!(
        dotted(&counter.args[0].value),
        "CounterType.packets_and_bytes"
    );

    let lpm = table(ingress, "ipv4_lpm");
    assert_eq!(
        find_annotation(&lpm.annotations, "name").and_then(Annotation::string_argument),
        Some("ingress.ipv4_lpm")
    );
    let key = lpm.key().unwrap();
    assert_eq!(key.len(), 1);
    assert_eq!(dotted(&key[0].expr), "hdr.ipv4.dst_addr");
    assert_eq!(key[0].match_kind.as_str(), "lpm");
    assert_eq!(key[0].annotations[0].string_argument(), Some("dst"));
    let actions = lpm.actions().unwrap();
    assert_eq!(actions.len(), 2);
    assert!(!actions[0].has_parens);
    assert_eq!(actions[1].annotations[0].name.as_str(), "defaultonly");
    let (default, is_const) = lpm.default_action().unwrap();
    assert_eq!(
        (default.name.name.as_str(), default.has_parens, is_const),
        ("drop", true, false)
    );
    assert_eq!(int(lpm.property("size").unwrap()), 1024);
    assert_eq!(name_of(lpm.property("counters").unwrap()), "route_hits");

    let next_hop = table(ingress, "next_hop");
    assert!(next_hop.default_action().unwrap().1);
    let (entries, entries_const) = next_hop.entries().unwrap();
    assert!(entries_const);
    assert_eq!(entries.len(), 2);
    assert!(matches!(&entries[1].keys[..], [Keyset::Expr(e)] if int(e) == 1));
    assert_eq!(entries[1].action.name.name.as_str(), "rewrite");
    assert_eq!(int(&entries[1].action.args[1].value), 2);
    assert_eq!(int_lit(&entries[1].action.args[2].value).width, Some(9));

    // apply { if (...) { ... } else if (...) { ... } else { ... } }
    let [stmt] = &ingress.apply.statements[..] else {
        panic!()
    };
    let StatementKind::If {
        cond,
        then,
        otherwise,
    } = &stmt.kind
    else {
        panic!()
    };
    assert!(matches!(
        cond.kind,
        ExprKind::Binary {
            op: BinaryOp::And,
            ..
        }
    ));
    let StatementKind::Block(b) = &then.kind else {
        panic!()
    };
    assert!(
        matches!(&b.statements[0].kind, StatementKind::Call(c) if dotted(c) == "ipv4_lpm.apply()")
    );
    let StatementKind::If {
        otherwise: Some(last),
        then: middle,
        ..
    } = &otherwise.as_ref().unwrap().kind
    else {
        panic!()
    };
    let StatementKind::Block(mid) = &middle.kind else {
        panic!()
    };
    let StatementKind::Assign { rhs, .. } = &mid.statements[0].kind else {
        panic!()
    };
    assert!(
        matches!(&rhs.kind, ExprKind::Cast { ty, .. } if matches!(&ty.kind, TypeKind::Name(p) if p.name.as_str() == "port_t"))
    );
    assert!(matches!(last.kind, StatementKind::Block(_)));

    let Declaration::Instantiation(main) = decls[15] else {
        panic!()
    };
    assert_eq!(main.name.as_str(), "main");
    let blocks: Vec<String> = main.args.iter().map(|a| dotted(&a.value)).collect();
    assert_eq!(
        blocks,
        vec![
            "MyParser()",
            "MyVerifyChecksum()",
            "MyIngress()",
            "MyEgress()",
            "MyComputeChecksum()",
            "MyDeparser()"
        ]
    );
}

#[test]
fn registers_hash_program_shape() {
    let p = parse("registers_hash.p4", REGISTERS_HASH);
    let Some(Declaration::Enum(flow_state)) = p
        .declarations
        .iter()
        .find(|d| d.name().is_some_and(|n| n.as_str() == "flow_state_t"))
    else {
        panic!()
    };
    assert!(
        matches!(&flow_state.underlying, Some(Type { kind: TypeKind::Bit(w), .. }) if int(w) == 8)
    );
    let values: Vec<(String, u128)> = flow_state
        .members
        .iter()
        .map(|m| (m.name.to_string(), int(m.value.as_ref().unwrap())))
        .collect();
    assert_eq!(
        values,
        vec![
            ("NEW".into(), 1),
            ("KNOWN".into(), 2),
            ("EVICTED".into(), 16)
        ]
    );

    let parser = parser_decl(&p, "FlowParser");
    let Some(Transition {
        kind: TransitionKind::Select { cases, .. },
        ..
    }) = &parser.states[0].transition
    else {
        panic!()
    };
    assert!(
        matches!(&cases[0].keys[..], [Keyset::Mask { value, mask }] if int(value) == 0x800 && int(mask) == 0xffff)
    );
    assert!(
        matches!(&cases[1].keys[..], [Keyset::Range { lo, hi }] if int(lo) == 0x8100 && int(hi) == 0x8101)
    );
    assert!(matches!(&cases[2].keys[..], [Keyset::DontCare(_)]));
    let Some(Transition {
        kind: TransitionKind::Select { exprs, cases },
        ..
    }) = &parser.states[1].transition
    else {
        panic!()
    };
    assert_eq!(exprs.len(), 2);
    assert!(
        matches!(&cases[0].keys[..], [Keyset::Expr(a), Keyset::Expr(b)] if int(a) == 17 && int(b) == 0)
    );
    assert!(matches!(
        &cases[1].keys[..],
        [Keyset::DontCare(_), Keyset::DontCare(_)]
    ));

    let ingress = control(&p, "FlowIngress");
    let Declaration::Instantiation(reg) = &ingress.locals[0] else {
        panic!()
    };
    let TypeKind::Specialized { base, args } = &reg.ty.kind else {
        panic!()
    };
    assert_eq!(base.name.as_str(), "register");
    assert!(matches!(&args[..], [Type { kind: TypeKind::Bit(w), .. }] if int(w) == 32));
    assert_eq!(int(&reg.args[0].value), 1024, "FLOW_SLOTS expands");
    // LANE(0) pasted into one identifier.
    let Declaration::Variable(lane) = &ingress.locals[4] else {
        panic!()
    };
    assert_eq!(lane.name.as_str(), "lane_0");

    let Declaration::Action(count_flow) = &ingress.locals[5] else {
        panic!()
    };
    let StatementKind::Call(hash) = &count_flow.body.statements[0].kind else {
        panic!()
    };
    let ExprKind::Call { args, .. } = &hash.kind else {
        panic!()
    };
    assert_eq!(args.len(), 5);
    assert!(
        matches!(&args[3].value.kind, ExprKind::List { items, dots: false } if items.len() == 5)
    );
    let StatementKind::Assign { rhs, .. } = &count_flow.body.statements[2].kind else {
        panic!()
    };
    assert!(matches!(
        rhs.kind,
        ExprKind::Binary {
            op: BinaryOp::SatAdd,
            ..
        }
    ));
    let StatementKind::Call(exec) = &count_flow.body.statements[6].kind else {
        panic!()
    };
    assert!(matches!(&exec.kind, ExprKind::Call { type_args, .. } if type_args.len() == 1));

    // log_msg(STR(flow {} packets), ...) got a string from `#`.
    let log = ingress
        .apply
        .statements
        .iter()
        .find_map(|s| match &s.kind {
            StatementKind::Call(Expr {
                kind: ExprKind::Call { callee, args, .. },
                ..
            }) if dotted(callee) == "log_msg" => Some(args),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        log[0].value.kind,
        ExprKind::String("flow {} packets".into())
    );
    // The statement that declares `state` (a contextual keyword) is a variable.
    assert!(ingress.apply.statements.iter().any(|s| matches!(
        &s.kind,
        StatementKind::Declaration(d) if matches!(&**d, Declaration::Variable(v) if v.name.as_str() == "state")
    )));
}

#[test]
fn header_stack_program_shape() {
    let p = parse("header_stack.p4", HEADER_STACK);
    let Some(Declaration::Struct(headers)) = p
        .declarations
        .iter()
        .find(|d| d.name().is_some_and(|n| n.as_str() == "headers_t"))
    else {
        panic!()
    };
    let TypeKind::Stack { element, size } = &headers.fields[1].ty.kind else {
        panic!()
    };
    assert!(matches!(&element.kind, TypeKind::Name(p) if p.name.as_str() == "mpls_t"));
    assert_eq!(int(size), 4);
    assert!(
        p.declarations
            .iter()
            .any(|d| matches!(d, Declaration::HeaderUnion(u) if u.name.as_str() == "inner_t"))
    );

    let parser = parser_decl(&p, "StackParser");
    let loop_state = &parser.states[1];
    assert_eq!(loop_state.name.as_str(), "parse_label");
    let StatementKind::Call(extract) = &loop_state.statements[0].kind else {
        panic!()
    };
    assert_eq!(dotted(extract), "pkt.extract()");
    let ExprKind::Call { args, .. } = &extract.kind else {
        panic!()
    };
    assert_eq!(dotted(&args[0].value), "hdr.labels.next");
    let Some(Transition {
        kind: TransitionKind::Select { exprs, cases },
        ..
    }) = &loop_state.transition
    else {
        panic!()
    };
    assert!(matches!(&exprs[1].kind, ExprKind::Call { type_args, .. } if type_args.len() == 1));
    assert_eq!(cases[0].next.as_str(), "parse_label", "the parser loops");
    assert!(matches!(
        &cases[0].keys[..],
        [Keyset::Expr(_), Keyset::DontCare(_)]
    ));
    assert!(matches!(&cases[2].keys[..], [Keyset::Default(_)]));

    let ingress = control(&p, "StackIngress");
    let labels = table(ingress, "labels");
    let kinds: Vec<&str> = labels
        .key()
        .unwrap()
        .iter()
        .map(|k| k.match_kind.as_str())
        .collect();
    assert_eq!(kinds, vec!["exact", "ternary", "range"]);
    let (entries, _) = labels.entries().unwrap();
    assert!(matches!(&entries[0].keys[1], Keyset::Mask { .. }));
    assert!(matches!(&entries[0].keys[2], Keyset::Range { .. }));
    assert_eq!(entries[1].priority.as_ref().map(int), Some(5));
    assert_eq!(
        find_annotation(&entries[2].annotations, "priority")
            .and_then(Annotation::integer_argument)
            .and_then(IntLiteral::to_u128),
        Some(9)
    );

    let StatementKind::Switch { expr, cases } = &ingress.apply.statements[0].kind else {
        panic!()
    };
    assert_eq!(dotted(expr), "labels.apply().action_run");
    let labels: Vec<(String, bool)> = cases
        .iter()
        .map(|c| match &c.label {
            SwitchLabel::Default(_) => ("default".to_string(), c.body.is_some()),
            SwitchLabel::Expr(e) => (name_of(e).to_string(), c.body.is_some()),
        })
        .collect();
    assert_eq!(
        labels,
        vec![
            ("pop_label".into(), true),
            ("swap_label".into(), false),
            ("forward".into(), true),
            ("default".into(), true)
        ]
    );
    let StatementKind::If { cond, then, .. } = &ingress.apply.statements[1].kind else {
        panic!()
    };
    assert_eq!(dotted(cond), "labels.apply().hit");
    let StatementKind::Block(b) = &then.kind else {
        panic!()
    };
    assert_eq!(b.statements[0].kind, StatementKind::Return(None));
    let StatementKind::Assign { lhs, rhs, .. } = &ingress.apply.statements[4].kind else {
        panic!()
    };
    assert_eq!(dotted(lhs), "hdr.labels[0]");
    assert!(matches!(&rhs.kind, ExprKind::List { items, .. } if items.len() == 4));
}

/// A scratch folder under the system temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("p4sim-frontend-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn include_guards_and_search_order_on_disk() {
    let dir = Scratch::new("guards");
    dir.write(
        "lib/common.p4",
        "#ifndef COMMON_P4\n#define COMMON_P4\nheader common_t { bit<8> x; }\n#endif\n",
    );
    dir.write("lib/a.p4", "#include \"common.p4\"\nconst bit<8> A = 1;\n");
    dir.write(
        "lib/b.p4",
        "#include \"common.p4\"\n#include <common.p4>\nconst bit<8> B = 2;\n",
    );
    dir.write("lib/once.p4", "#pragma once\nconst bit<8> ONCE = 3;\n");
    dir.write("inc/extra.p4", "const bit<8> EXTRA = 4;\n");
    // A same-named file next to main.p4 wins over the include folder for "...".
    dir.write("extra.p4", "const bit<8> LOCAL_EXTRA = 5;\n");
    let main = dir.write(
        "main.p4",
        "#include <core.p4>\n#include \"lib/a.p4\"\n#include \"lib/b.p4\"\n\
         #include \"lib/once.p4\"\n#include \"./lib/../lib/once.p4\"\n\
         #include \"extra.p4\"\n#include <extra.p4>\n",
    );
    let p = parse_program(&main, &[dir.0.join("lib"), dir.0.join("inc")])
        .unwrap_or_else(|d| panic!("{d}"));
    let names: Vec<&str> = p
        .declarations
        .iter()
        .filter(|d| !p.sources.name(d.span().file).starts_with("<p4include>"))
        .filter_map(|d| d.name().map(Ident::as_str))
        .collect();
    assert_eq!(
        names,
        vec!["common_t", "A", "B", "ONCE", "LOCAL_EXTRA", "EXTRA"]
    );
    // Spans point into the file that declared them.
    let common = p
        .declarations
        .iter()
        .find(|d| d.name().is_some_and(|n| n.as_str() == "common_t"))
        .unwrap();
    assert!(
        p.sources
            .name(common.span().file)
            .ends_with("lib/common.p4")
    );
    assert_eq!((common.span().line, common.span().col), (3, 1));
}

#[test]
fn errors_in_included_files_name_that_file() {
    let dir = Scratch::new("errors");
    dir.write("inc/bad.p4", "// comment\nheader h_t {\n    bit<8> x\n}\n");
    let main = dir.write("main.p4", "#include \"inc/bad.p4\"\n");
    let err = parse_program(&main, &[]).unwrap_err();
    assert!(err.file.ends_with("inc/bad.p4"), "{}", err.file);
    assert_eq!((err.line, err.col), (4, 1));
    assert_eq!(
        err.kind,
        ErrorKind::Syntax("expected `;`, found `}`".into())
    );
    assert!(
        err.to_string()
            .ends_with("inc/bad.p4:4:1: error: expected `;`, found `}`\n}\n^"),
        "{err}"
    );

    let err = parse_program(&dir.0.join("missing.p4"), &[]).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::IncludeNotFound(_)));
    assert_eq!((err.line, err.col), (1, 1));
}

#[test]
fn options_define_macros() {
    let dir = Scratch::new("defines");
    let main = dir.write(
        "main.p4",
        "#if LANES != 64\n#error need 64 lanes\n#endif\nconst bit<32> K = LANES;\n",
    );
    let options = FrontendOptions {
        include_dirs: Vec::new(),
        defines: vec![("LANES".into(), "64".into())],
    };
    let p = parse_program_with(&main, &options).unwrap_or_else(|d| panic!("{d}"));
    let Declaration::Constant(k) = p.declarations.last().unwrap() else {
        panic!()
    };
    assert_eq!(int(&k.value), 64);
    let err = parse_program(&main, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ErrorDirective("need 64 lanes".into()));
    assert_eq!((err.line, err.col), (2, 1));
}

#[test]
fn lanes_generated_by_a_macro_keep_positions() {
    // The ESA data plane generates one register per lane with a macro.
    let src = "#include <v1model.p4>\n\
               #define LANE_REG(i) register<bit<32>>(1024) lane_##i;\n\
               #define LANE_ADD(i) \\\n    lane_##i.read(tmp, idx); \\\n    lane_##i.write(idx, tmp + v[i]);\n\
               control Lanes(in bit<32> idx, in bit<32>[4] v) {\n\
               \x20   LANE_REG(0) LANE_REG(1)\n\
               \x20   bit<32> tmp;\n\
               \x20   apply { LANE_ADD(0) LANE_ADD(1) }\n\
               }\n";
    let p = parse("lanes.p4", src);
    let c = control(&p, "Lanes");
    let regs: Vec<&str> = c
        .locals
        .iter()
        .filter_map(|d| d.name().map(Ident::as_str))
        .collect();
    assert_eq!(regs, vec!["lane_0", "lane_1", "tmp"]);
    assert_eq!(c.apply.statements.len(), 4);
    // Statements from the macro carry the invocation's position.
    let span = c.apply.statements[2].span;
    assert_eq!((span.line, span.col), (9, 25));
    let TypeKind::Stack { .. } = &c.params[1].ty.kind else {
        panic!()
    };
}

#[test]
fn error_positions_are_exact() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        (
            "header h_t { bit<8> x; }\nstruct s_t { h_t h }",
            (2, 20),
            "expected `;`, found `}`",
        ),
        (
            "const bit<8> X = 8w300 +;",
            (1, 25),
            "expected an expression, found `;`",
        ),
        (
            "control C() {\n  apply {\n    if (x) {\n  }\n",
            (2, 9),
            "`{` is never closed",
        ),
        (
            "control C() {\n  action a() {}\n}",
            (3, 1),
            "control has no `apply { ... }` block",
        ),
        (
            "parser P() {\n  state start {\n    transition select(x) {\n      1 parse;\n",
            (4, 9),
            "expected `:`, found identifier `parse`",
        ),
        (
            "bit<8> x;",
            (1, 8),
            "variables cannot be declared at top level; use `const`",
        ),
        (
            "control C() { table t { key = { x : exact } } apply {} }",
            (1, 43),
            "expected `;`, found `}`",
        ),
        (
            "const bit<8> A = 1;\n\n   $",
            (3, 4),
            "unexpected character `$`",
        ),
        (
            "const string S = \"open;\n",
            (1, 18),
            "unterminated string literal",
        ),
        (
            "/* never closed\nconst bit<8> X = 1;",
            (1, 1),
            "unterminated `/*` comment",
        ),
        (
            "#if 1\nconst bit<8> X = 1;\n",
            (1, 1),
            "unterminated `#if`: no matching `#endif`",
        ),
        (
            "#include \"nothere.p4\"",
            (1, 10),
            "cannot find include file `nothere.p4`",
        ),
        (
            "#define F(a) a\nconst bit<8> X = F(1, 2);",
            (2, 18),
            "macro `F` expects 1 argument(s), got 2",
        ),
        (
            "control C() { apply { for (bit<8> i = 0; i < 4) {} } }",
            (1, 47),
            "expected `;`, found `)`",
        ),
    ];
    for (src, (line, col), message) in cases {
        let d = parse_error(src);
        assert_eq!(
            (d.line, d.col, d.message().as_str()),
            (*line, *col, *message),
            "source: {src:?}"
        );
        assert_eq!(d.file, "prog.p4");
        // The rendered form starts with the position and carries the line.
        let rendered = d.to_string();
        assert!(
            rendered.starts_with(&format!("prog.p4:{line}:{col}: error: {message}")),
            "{rendered}"
        );
        assert_eq!(rendered.lines().count(), 3, "{rendered}");
    }
}

#[test]
fn diagnostic_caret_is_under_the_error() {
    let d = parse_error("control C() {\n    apply { x = 1 }\n}");
    assert_eq!(
        d.to_string(),
        "prog.p4:2:19: error: expected `;`, found `}`\n    apply { x = 1 }\n                  ^"
    );
}

#[test]
fn preprocessor_edge_cases_through_the_front_end() {
    // Comments inside directives, continuation lines, nested conditionals in
    // skipped groups, token pasting into width-prefixed literals, and
    // macros that mention themselves.
    let src = "#define W 8 /* width */\n\
               #define PASTE3(a, b, c) a ## b ## c\n\
               #define XPASTE(a, n) PASTE3(a, w, n)\n\
               #define LIT(n) XPASTE(W, n)\n\
               #define SELF SELF\n\
               #if defined(W) && W == 8 \\\n  && !defined(NOPE)\n\
               const bit<W> A = LIT(5);\n\
               #else\n#if garbage (\n#endif\nconst bit<1> A = 0;\n#endif\n\
               const string S = \"\" ;\n\
               const bit<8> SELF = 1;\n";
    let p = parse("edge.p4", src);
    let Declaration::Constant(a) = &p.declarations[0] else {
        panic!()
    };
    let lit = int_lit(&a.value);
    assert_eq!((lit.to_u128(), lit.width), (Some(5), Some(8)));
    assert_eq!(p.declarations[2].name().unwrap().as_str(), "SELF");
}

#[test]
fn in_memory_loader_resolves_relative_includes() {
    let mut loader = MemoryLoader::new();
    loader.insert(
        "proj/include/headers.p4",
        "#pragma once\nheader h_t { bit<8> v; }\n",
    );
    let p = parse_source_with(
        "proj/main.p4",
        "#include \"include/headers.p4\"\n#include \"include/headers.p4\"\nstruct s_t { h_t h; }\n",
        &loader,
        &FrontendOptions::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(p.declarations.len(), 2);
    assert_eq!(
        p.sources.name(p.declarations[0].span().file),
        "proj/include/headers.p4"
    );
}

#[test]
fn parse_source_never_reads_the_file_system() {
    let d = parse_error("#include \"/etc/hostname\"\n");
    assert_eq!(d.kind, ErrorKind::IncludeNotFound("/etc/hostname".into()));
}

#[test]
fn seed_corpus_matches_the_test_programs() {
    // The fuzz corpus carries copies of the test programs; keep them equal.
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/frontend");
    for (name, text) in [
        ("l3_forward.p4", L3_FORWARD),
        ("registers_hash.p4", REGISTERS_HASH),
        ("header_stack.p4", HEADER_STACK),
    ] {
        let copy = std::fs::read_to_string(corpus.join(name)).unwrap_or_default();
        assert_eq!(copy, text, "fuzz/corpus/frontend/{name} is stale");
    }
}

/// Text in the P4 alphabet, weighted towards the characters that matter.
fn p4ish() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "header",
        "struct",
        "control",
        "parser",
        "state",
        "transition",
        "select",
        "apply",
        "table",
        "key",
        "actions",
        "action",
        "const",
        "bit<8>",
        "bit",
        "<",
        ">",
        ">>",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ";",
        ":",
        ",",
        ".",
        "..",
        "&&&",
        "=",
        "==",
        "+",
        "-",
        "++",
        "|+|",
        "?",
        "@name(\"x\")",
        "@",
        "#define X ",
        "#if 1\n",
        "#endif\n",
        "#include <core.p4>\n",
        "#",
        "##",
        "\\\n",
        "\n",
        " ",
        "x",
        "y",
        "8w5",
        "0x1F",
        "4s1",
        "_",
        "default",
        "\"s\"",
        "/*",
        "*/",
        "//",
        "'",
        "$",
        "é",
        "switch",
        "if",
        "else",
        "return",
        "exit",
        "{#}",
        "...",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn front_end_never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        let _ = parse_source("fuzz.p4", &text);
    }

    #[test]
    fn front_end_never_panics_on_p4_like_text(text in p4ish()) {
        let _ = parse_source("fuzz.p4", &text);
    }

    #[test]
    fn front_end_never_panics_on_mutated_programs(
        which in 0usize..3,
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..6),
    ) {
        let original = [L3_FORWARD, REGISTERS_HASH, HEADER_STACK][which];
        let mut bytes = original.as_bytes().to_vec();
        for (at, op, byte) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match op {
                0 => { bytes.remove(i); }
                1 => bytes.insert(i, b"{}()<>;:#\\\"/*"[usize::from(byte) % 13]),
                2 => bytes[i] = byte,
                _ => { bytes.truncate(i); }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let result = parse_source("mutant.p4", &text);
        if let Err(d) = result {
            // Every error has a position inside the text it names.
            prop_assert!(d.line >= 1 && d.col >= 1);
            prop_assert!(d.to_string().contains(": error: "));
        }
    }
}

#[test]
fn deepest_nesting_fits_in_a_small_stack() {
    // Inputs that drive every recursive path to the nesting limit must fail
    // cleanly on a default-sized (2 MiB) thread stack, even unoptimised.
    let n = 1000;
    let inputs = vec![
        format!("const bit<8> X = {}1{};", "(".repeat(n), ")".repeat(n)),
        format!("const bit<8> X = {}1;", "-".repeat(n)),
        format!("const bit<8> X = {}1{};", "{".repeat(n), "}".repeat(n)),
        format!("const bit<8> X = {}1{};", "f(".repeat(n), ")".repeat(n)),
        format!("const bit<8> X = {}1;", "a ? b : ".repeat(n)),
        format!(
            "const tuple<{}bit<8>{}> X = 1;",
            "tuple<".repeat(n),
            ">".repeat(n)
        ),
        format!(
            "control C() {{ apply {{ {}x = 1;{} }} }}",
            "{".repeat(n),
            "}".repeat(n)
        ),
        format!(
            "control C() {{ apply {{ {} x = 1; }} }}",
            "if (a) ".repeat(n)
        ),
        format!(
            "control C() {{ apply {{ {}x = 2; }} }}",
            "if (a) x = 1; else ".repeat(n)
        ),
        format!(
            "#define F(x) x\nconst bit<8> X = {}1{};",
            "F(".repeat(n),
            ")".repeat(n)
        ),
        format!("#if {}1{}\n#endif", "(".repeat(n), ")".repeat(n)),
        format!("const bit<8> X = {}1;", "a < ".repeat(n)),
        format!(
            "const bit<8> X = {}1{};",
            "f<bit<8>>(".repeat(n),
            ")".repeat(n)
        ),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            inputs
                .iter()
                .map(|src| parse_source("deep.p4", src).is_ok())
                .collect::<Vec<bool>>()
        })
        .unwrap();
    let results = handle.join().expect("no stack overflow");
    assert_eq!(results.len(), 13);
}

/// A diagnostic on a very long line (a generated file) shows a window around
/// the column, marked `...` where cut, with the caret under the token; a
/// multi-byte character in the window does not shift it.
#[test]
fn a_diagnostic_on_a_very_long_line_shows_a_window_around_the_column() {
    let filler = "const bit<8> c = 1; ".repeat(20_000);
    let text = format!("{filler}/* é */ const bit<8> bad = @@@; {filler}\n");
    let err = parse_error(&text);
    let shown = err.to_string();
    assert!(text.len() > 700_000);
    assert!(shown.len() < 600, "{} bytes shown", shown.len());
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "{shown}");
    let (source, caret) = (lines[1], lines[2]);
    assert!(
        source.starts_with("...") && source.ends_with("..."),
        "{source}"
    );
    // The caret sits under the offending token, counted in characters.
    let caret_at = caret.chars().take_while(|&c| c != '^').count();
    let token_at = source.chars().take_while(|&c| c != '@').count();
    assert_eq!(caret_at, token_at, "\n{source}\n{caret}");
    assert!(source.contains("/* é */"), "{source}");
}
