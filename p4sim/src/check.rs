//! Name resolution, type checking, constant folding and lowering of a v1model
//! program to the [`crate::ir`] form.
//!
//! One pass does it all: starting from the `V1Switch(...) main` package it
//! instantiates the six blocks, resolves every name in its scope (block
//! locals, action and function parameters, top-level declarations), checks
//! the types of every expression as P4_16 defines them (unsized integer
//! constants take the type of the other operand; sized operands must agree
//! in width and signedness), folds constants, and gives every variable a
//! fixed slot. Anything this implementation does not support is an error
//! that names the construct and its `file:line:col`.
//!
//! The one pass is one `Compiler`, its methods split by what they lower:
//! `types` (type resolution, sizes and storage), `scope` (names,
//! constants, binding), `parser` (states, sub-parsers, select), `control`
//! (control bodies, extern and control instances), `tables` (actions,
//! tables, entries), `stmt` (statements, assignment), `expr` (expressions,
//! operators, calls), `externs` (built-in and extern methods, functions);
//! `tna` lays a TNA program into the same IR and `tofino` checks the
//! Tofino rules; `resolver` ([`Resolver`]) answers for the control plane
//! (a type with its `type` names kept, the type of a key or a digest's data,
//! a constant's value) from the same resolution, and P4Info is built from
//! it. This file holds the IR-facing types and the pass's driver
//! (`Compiler::run`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::exec::bits::{BitType, Bits};
use crate::exec::hash::HashAlgorithm;
use crate::front::ast::{self, BinaryOp, Declaration, ExprKind, UnaryOp};
use crate::front::diagnostic::{Diagnostic, Error, ErrorKind};
use crate::front::source::Span;
use crate::ir::*;

pub use resolver::{CpType, Resolver};

/// Compiles a parsed program for the v1model architecture.
pub fn compile(program: &ast::Program) -> Result<Compiled, Diagnostic> {
    let mut c = Compiler::new(program)
        .run()
        .map_err(|e| Diagnostic::from_error(e, &program.sources))?;
    c.optimize();
    Ok(c)
}

/// Reads, parses and compiles the program at `path`.
pub fn compile_file(path: &Path, include_dirs: &[PathBuf]) -> Result<Compiled, Diagnostic> {
    let program = crate::front::parse_program(path, include_dirs)?;
    compile(&program)
}

/// Parses and compiles program text (only the built-in includes are
/// available).
pub fn compile_source(name: &str, text: &str) -> Result<Compiled, Diagnostic> {
    let program = crate::front::parse_source(name, text)?;
    compile(&program)
}

mod control;
mod expr;
mod externs;
mod parser;
mod psa;
mod resolver;
mod scope;
mod stmt;
mod tables;
mod tna;
mod tofino;
mod types;

type Res<T> = Result<T, Error>;

fn err<T>(span: Span, msg: impl Into<String>) -> Res<T> {
    Err(Error::new(ErrorKind::Semantic(msg.into()), span))
}

fn unsupported<T>(span: Span, msg: impl Into<String>) -> Res<T> {
    Err(Error::unsupported(msg, span))
}

/// A P4 type after resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    Bool,
    Bit(u32),
    Int(u32),
    InfInt,
    Str,
    Error,
    MatchKind,
    Void,
    /// Plain or serializable enum.
    Enum(u32),
    /// Header, struct or header union.
    Struct(u32),
    Stack(Box<Ty>, u32),
    /// `varbit<W>`, a header field only: its current length in bits (a
    /// narrow slot) and its value (a wide slot of width W, the bits read
    /// right-aligned).
    Varbit(u32),
    Tuple(Vec<Ty>),
    PacketIn,
    PacketOut,
    /// An extern object type (by name) or a block type.
    Object(Arc<str>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SKind {
    Header,
    Struct,
    Union,
}

#[derive(Debug, Clone)]
struct FieldInfo {
    name: Arc<str>,
    ty: Ty,
    n_off: u32,
    w_off: u32,
    annotations: Vec<ast::Annotation>,
}

#[derive(Debug, Clone)]
struct StructInfo {
    name: Arc<str>,
    kind: SKind,
    fields: Vec<FieldInfo>,
    n: u32,
    w: u32,
}

#[derive(Debug, Clone)]
struct EnumInfo {
    name: Arc<str>,
    members: Vec<(Arc<str>, u64)>,
    underlying: Option<BitType>,
}

/// A storage location: absolute slots, or (with `dynamic`) offsets inside a
/// stack element chosen at run time.
#[derive(Debug, Clone)]
struct Place {
    n: u32,
    w: u32,
    dynamic: Option<Box<Dyn>>,
    /// For a header that is a member of a header union, the union's other
    /// members: making this one valid makes them invalid (P4_16 §8.20, as
    /// BMv2 does). Empty for every other place.
    union_siblings: Vec<Place>,
}

impl Place {
    fn at(n: u32, w: u32) -> Place {
        Place {
            n,
            w,
            dynamic: None,
            union_siblings: Vec::new(),
        }
    }
    fn offset(&self, dn: u32, dw: u32) -> Place {
        Place {
            n: self.n.saturating_add(dn),
            w: self.w.saturating_add(dw),
            dynamic: self.dynamic.clone(),
            union_siblings: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
enum ExternInst {
    Register(u32),
    Counter(u32),
    DirectCounter(u32),
    Meter(u32),
    DirectMeter(u32),
    /// A TNA `Register` (its types in `Compiler::tna_registers`).
    TnaRegister(u32),
    /// A TNA `RegisterAction`, by index into `Compiler::reg_actions`.
    RegisterAction(u32),
    /// `this` inside a `RegisterAction`'s `apply`: the width of its result.
    RegActionThis(u32),
    /// A TNA `Checksum`: its accumulator's slot.
    Checksum(u32),
    /// A TNA `Resubmit`.
    Resubmit,
    /// A TNA `Hash<W>`: its algorithm and W.
    TnaHash(crate::exec::hash::HashAlgorithm, u32),
    /// An action profile (v1model's `action_profile`, PSA's
    /// `ActionProfile`), by index into `Compiler::profiles`.
    ActionProfile(u32),
}

/// What an expression or name denotes during lowering.
#[derive(Debug, Clone)]
enum Val {
    /// An unsized integer constant.
    Int(i128),
    /// A typed scalar value.
    Scalar(Ex, Ty),
    /// A storage location of any type.
    Place(Place, Ty),
    /// `{a, b}`.
    List(Vec<Val>),
    /// `{f = a}`.
    StructInit(Vec<(Arc<str>, Val)>),
    /// A string literal.
    Str(String),
    /// `{#}`.
    Invalid,
    /// `_`.
    DontCare,
    /// A type name.
    Type(Ty),
    /// `error` in `error.X`.
    ErrorNs,
    Table(u32),
    /// `t.apply()`.
    TableResult(u32),
    Extern(ExternInst),
    /// The `packet_in` (false) or `packet_out` (true) parameter.
    Packet(bool),
    /// A sub-control instance.
    Control(u32),
    /// A sub-parser instance, by index into `Compiler::sub_parsers`.
    SubParser(u32),
    Action(u32),
    /// A top-level function by name.
    Function(Arc<str>),
    /// A top-level extern function by name.
    ExternFn(Arc<str>),
    /// `base.name` waiting for its call.
    Method(Box<Val>, ast::Ident),
    /// `stack.next` (for extract).
    StackNext(Place, Ty),
    /// A void call's statements.
    Effect(Vec<St>),
    /// A call returning a header or struct: its statements, then the
    /// place that holds the result (assigned, or discarded, only).
    Returned(Vec<St>, Place, Ty),
}

#[derive(Debug, Clone)]
struct FunctionInfo {
    body: u32,
    params: Vec<(ast::Direction, Place, Ty)>,
    ret: Option<(Place, Ty)>,
}

#[derive(Debug, Clone)]
struct ControlInst {
    body: u32,
    params: Vec<(ast::Direction, Place, Ty)>,
    names: Vec<String>,
}

/// What kind of block is being lowered (some statements are only legal in
/// one kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Parser,
    Control,
    Function,
}

struct Compiler<'p> {
    program: &'p ast::Program,
    globals: HashMap<Arc<str>, Vec<&'p Declaration>>,
    structs: Vec<StructInfo>,
    struct_ids: HashMap<Arc<str>, u32>,
    enums: Vec<EnumInfo>,
    enum_ids: HashMap<Arc<str>, u32>,
    typedefs: HashMap<Arc<str>, Ty>,
    /// The type arguments of the generic struct or header being
    /// specialized (`struct S<T>` as `S<bit<8>>`: `T` is `bit<8>`).
    type_args: HashMap<Arc<str>, Ty>,
    errors: Vec<String>,
    match_kinds: Vec<String>,
    global_consts: HashMap<Arc<str>, Val>,
    global_actions: HashMap<Arc<str>, u32>,
    global_instances: HashMap<Arc<str>, Val>,
    functions: HashMap<Arc<str>, FunctionInfo>,
    scopes: Vec<HashMap<Arc<str>, Val>>,
    prefix: String,
    block_kind: BlockKind,
    /// How many loops enclose the statement being lowered (in this body).
    loop_depth: u32,
    ret_place: Option<(Place, Ty)>,
    n_slots: u32,
    w_init: Vec<Bits>,
    bodies: Vec<Vec<St>>,
    actions: Vec<ActionIr>,
    tables: Vec<TableIr>,
    registers: Vec<RegisterIr>,
    counters: Vec<CounterIr>,
    meters: Vec<MeterIr>,
    controls: Vec<ControlInst>,
    action_params: HashMap<u32, Vec<(ast::Direction, Place, Ty, String)>>,
    /// Actions made for a table's `actions` list entry `a(args)`: the
    /// action they bind, by their id.
    bound_actions: HashMap<u32, u32>,
    sm_place: Option<(Place, Ty)>,
    too_large: bool,
    depth: u32,
    /// The architecture's name, for messages.
    arch: &'static str,
    /// TNA registers: cell type `T` and index type `I`.
    tna_registers: HashMap<u32, (Ty, Ty)>,
    /// Action profiles instantiated so far.
    profiles: Vec<ProfileIr>,
    /// TNA register actions.
    reg_actions: Vec<tna::RegAction>,
    /// TNA: the hidden slot `Resubmit.emit` sets.
    tna_resubmit: Option<u32>,
    /// TNA: the headers `Resubmit.emit` names.
    resubmit_headers: Vec<HeaderRef>,
    /// TNA registers' declarations, for the Tofino rules' messages.
    tna_register_spans: HashMap<u32, Span>,
    /// TNA: the `main` declaration, for program-wide Tofino errors.
    tna_main_span: Span,
    /// Each table's declaration, by table id, for the Tofino rules'
    /// messages.
    table_spans: Vec<Span>,
    /// TNA registers' PHV inputs over their RegisterActions so far.
    tna_salu_inputs: HashMap<u32, Vec<String>>,
    /// The directionless (control-plane) parameters of the action being
    /// lowered, as (slot, wide), for the Tofino index rule.
    action_param_slots: Vec<(u32, bool)>,
    /// Sub-parser instances: the parser, its constructor arguments and the
    /// instance's name.
    sub_parsers: Vec<(&'p ast::ParserDecl, Vec<ast::Argument>, String)>,
}

const ERROR_WIDTH: u32 = 32;
/// Largest header stack p4sim accepts.
const MAX_STACK: u32 = 4096;
/// Largest number of scalar slots a program may need.
const MAX_SLOTS: u32 = 1 << 22;
/// Largest register, counter or meter array p4sim allocates.
const MAX_CELLS: u64 = 1 << 24;
const ENUM_WIDTH: u32 = 32;

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn bt(width: u32, signed: bool) -> BitType {
    BitType::new(width, signed).unwrap_or(BitType::BIT1)
}

fn is_wide(width: u32) -> bool {
    width > 64
}

fn ty_name(c: &Compiler<'_>, t: &Ty) -> String {
    match t {
        Ty::Bool => "bool".into(),
        Ty::Bit(w) => format!("bit<{w}>"),
        Ty::Int(w) => format!("int<{w}>"),
        Ty::InfInt => "int".into(),
        Ty::Str => "string".into(),
        Ty::Error => "error".into(),
        Ty::MatchKind => "match_kind".into(),
        Ty::Void => "void".into(),
        Ty::Enum(i) => c
            .enums
            .get(*i as usize)
            .map_or("enum".into(), |e| e.name.to_string()),
        Ty::Struct(i) => c
            .structs
            .get(*i as usize)
            .map_or("struct".into(), |s| s.name.to_string()),
        Ty::Stack(e, n) => format!("{}[{n}]", ty_name(c, e)),
        Ty::Varbit(w) => format!("varbit<{w}>"),
        Ty::Tuple(ts) => format!(
            "tuple<{}>",
            ts.iter()
                .map(|t| ty_name(c, t))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::PacketIn => "packet_in".into(),
        Ty::PacketOut => "packet_out".into(),
        Ty::Object(n) => n.to_string(),
    }
}

impl<'p> Compiler<'p> {
    fn new(program: &'p ast::Program) -> Compiler<'p> {
        Compiler {
            program,
            globals: HashMap::new(),
            structs: Vec::new(),
            struct_ids: HashMap::new(),
            enums: Vec::new(),
            enum_ids: HashMap::new(),
            typedefs: HashMap::new(),
            type_args: HashMap::new(),
            errors: Vec::new(),
            match_kinds: Vec::new(),
            global_consts: HashMap::new(),
            global_actions: HashMap::new(),
            global_instances: HashMap::new(),
            functions: HashMap::new(),
            scopes: Vec::new(),
            prefix: String::new(),
            block_kind: BlockKind::Control,
            loop_depth: 0,
            ret_place: None,
            n_slots: 0,
            w_init: Vec::new(),
            bodies: Vec::new(),
            actions: Vec::new(),
            tables: Vec::new(),
            registers: Vec::new(),
            counters: Vec::new(),
            meters: Vec::new(),
            controls: Vec::new(),
            action_params: HashMap::new(),
            bound_actions: HashMap::new(),
            sm_place: None,
            too_large: false,
            depth: 0,
            arch: "V1Switch",
            tna_registers: HashMap::new(),
            profiles: Vec::new(),
            reg_actions: Vec::new(),
            tna_resubmit: None,
            resubmit_headers: Vec::new(),
            tna_register_spans: HashMap::new(),
            tna_main_span: Span::default(),
            table_spans: Vec::new(),
            tna_salu_inputs: HashMap::new(),
            action_param_slots: Vec::new(),
            sub_parsers: Vec::new(),
        }
    }

    // ---- types -------------------------------------------------------

    /// Every top-level name, the `error` and `match_kind` members, and every
    /// type declaration and constant checked once (so errors in unused types
    /// are still reported).
    fn declare_globals(&mut self) -> Res<()> {
        let program = self.program;
        for d in &program.declarations {
            match d {
                Declaration::Error(l) => {
                    for m in &l.members {
                        if !self.errors.iter().any(|e| e == m.as_str()) {
                            self.errors.push(m.to_string());
                        }
                    }
                }
                Declaration::MatchKind(l) => {
                    for m in &l.members {
                        self.match_kinds.push(m.to_string());
                    }
                }
                d => {
                    if let Some(n) = d.name() {
                        self.globals.entry(n.name.clone()).or_default().push(d);
                    }
                }
            }
        }
        if !self.errors.iter().any(|e| e == "NoError") {
            self.errors.insert(0, "NoError".into());
        }
        for d in &program.declarations {
            match d {
                // A generic one is declared when a use specializes it.
                Declaration::Header(s) | Declaration::Struct(s) | Declaration::HeaderUnion(s)
                    if !s.type_params.is_empty() => {}
                Declaration::Header(s) => {
                    self.declare_struct(s, SKind::Header)?;
                }
                Declaration::Struct(s) => {
                    self.declare_struct(s, SKind::Struct)?;
                }
                Declaration::HeaderUnion(s) => {
                    self.declare_struct(s, SKind::Union)?;
                }
                Declaration::Enum(e) => {
                    self.declare_enum(e)?;
                }
                Declaration::Typedef(t) => {
                    self.named_type(&t.name)?;
                }
                Declaration::Constant(c) => {
                    self.global_const(c)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn run(mut self) -> Res<Compiled> {
        let program = self.program;
        self.declare_globals()?;
        let main = program.declarations.iter().find_map(|d| match d {
            Declaration::Instantiation(i) if i.name.as_str() == "main" => Some(i),
            _ => None,
        });
        let Some(main) = main else {
            let span = program
                .declarations
                .last()
                .map(|d| d.span())
                .unwrap_or_default();
            return err(span, "the program declares no `main` package instance");
        };
        let pkg = match &main.ty.kind {
            ast::TypeKind::Name(p) => p.name.clone(),
            ast::TypeKind::Specialized { base, .. } => base.name.clone(),
            _ => return err(main.ty.span, "`main` must instantiate a package"),
        };
        if pkg.as_str() == "Switch" {
            return self.run_tna(main);
        }
        if pkg.as_str() == "PSA_Switch" {
            return self.run_psa(main);
        }
        if pkg.as_str() != "V1Switch" {
            return unsupported(
                pkg.span,
                format!(
                    "package `{pkg}`: p4sim runs the v1model `V1Switch`, the TNA `Switch` and the PSA `PSA_Switch` architectures"
                ),
            );
        }
        if main.args.len() != 6 {
            return err(
                main.span,
                format!("V1Switch takes 6 arguments, {} given", main.args.len()),
            );
        }
        let blocks: Vec<(&'p Declaration, Vec<ast::Argument>, Span)> = main
            .args
            .iter()
            .map(|a| self.block_arg(&a.value))
            .collect::<Res<_>>()?;
        let expect = [
            "parser", "control", "control", "control", "control", "control",
        ];
        for (i, (d, _, span)) in blocks.iter().enumerate() {
            let ok = match d {
                Declaration::Parser(_) => i == 0,
                Declaration::Control(_) => i > 0,
                _ => false,
            };
            if !ok {
                return err(
                    *span,
                    format!("argument {} of V1Switch must be a {}", i + 1, expect[i]),
                );
            }
        }
        let Declaration::Parser(parser) = blocks[0].0 else {
            return err(blocks[0].2, "argument 1 of V1Switch must be a parser");
        };
        if parser.params.len() != 4 {
            return err(
                parser.span,
                "the v1model parser takes 4 parameters (packet_in, headers, metadata, standard_metadata)",
            );
        }
        let h_ty = self.resolve_type(&parser.params[1].ty)?;
        let m_ty = self.resolve_type(&parser.params[2].ty)?;
        let sm_ty = self.named_type(&ast::Ident {
            name: "standard_metadata_t".into(),
            span: parser.span,
        })?;
        for t in [&h_ty, &m_ty] {
            if !matches!(t, Ty::Struct(_)) {
                return err(
                    parser.params[1].ty.span,
                    "v1model headers and metadata must be structs",
                );
            }
        }
        let hdr = self.alloc(&h_ty);
        let meta = self.alloc(&m_ty);
        let sm = self.alloc(&sm_ty);
        let (meta_n_end, meta_w_end) = (self.n_slots, self.w_init.len() as u32);
        let std_meta = self.std_meta(&sm, &sm_ty, parser.span)?;
        self.sm_place = Some((sm.clone(), sm_ty.clone()));
        let field_lists = self.field_lists(&meta, &m_ty);

        let hv = Val::Place(hdr.clone(), h_ty.clone());
        let mv = Val::Place(meta.clone(), m_ty.clone());
        let sv = Val::Place(sm.clone(), sm_ty.clone());
        // parser
        let (parser_init, states) = self.lower_parser(
            parser,
            &blocks[0].1,
            vec![Val::Packet(false), hv.clone(), mv.clone(), sv.clone()],
            vec![Ty::PacketIn, h_ty.clone(), m_ty.clone(), sm_ty.clone()],
        )?;
        let mut bodies = Vec::new();
        let shapes: [(Vec<Val>, Vec<Ty>); 5] = [
            (
                vec![hv.clone(), mv.clone()],
                vec![h_ty.clone(), m_ty.clone()],
            ),
            (
                vec![hv.clone(), mv.clone(), sv.clone()],
                vec![h_ty.clone(), m_ty.clone(), sm_ty.clone()],
            ),
            (
                vec![hv.clone(), mv.clone(), sv.clone()],
                vec![h_ty.clone(), m_ty.clone(), sm_ty.clone()],
            ),
            (
                vec![hv.clone(), mv.clone()],
                vec![h_ty.clone(), m_ty.clone()],
            ),
            (
                vec![Val::Packet(true), hv.clone()],
                vec![Ty::PacketOut, h_ty.clone()],
            ),
        ];
        for (i, (vals, tys)) in shapes.into_iter().enumerate() {
            let (d, args, _) = &blocks[i + 1];
            let Declaration::Control(c) = d else {
                return err(blocks[i + 1].2, "expected a control");
            };
            bodies.push(self.lower_top_control(c, args, vals, tys)?);
        }
        if self.too_large {
            return unsupported(
                main.span,
                format!("programs with more than {MAX_SLOTS} scalar values"),
            );
        }
        let mut it = bodies.into_iter();
        let verify_checksum = it.next().unwrap_or_default();
        let ingress = it.next().unwrap_or_default();
        let egress = it.next().unwrap_or_default();
        let compute_checksum = it.next().unwrap_or_default();
        let deparser = it.next().unwrap_or_default();
        Ok(Compiled {
            n_slots: self.n_slots,
            w_init: self.w_init,
            meta_n: meta.n..meta_n_end,
            packet_n: meta_n_end,
            meta_w: meta.w..meta_w_end,
            std_meta,
            field_lists,
            errors: self.errors,
            parser: states,
            parser_init,
            verify_checksum,
            ingress,
            egress,
            compute_checksum,
            deparser,
            bodies: self.bodies,
            actions: self.actions,
            tables: self.tables,
            registers: self.registers,
            counters: self.counters,
            meters: self.meters,
            tna: None,
            psa: None,
        })
    }

    /// The top-level instance named `name` (`P() p;`), if there is one.
    fn global_instance(&self, name: &str) -> Option<&'p ast::Instantiation> {
        self.globals.get(name).and_then(|ds| {
            ds.iter().find_map(|d| match d {
                Declaration::Instantiation(i) => Some(i),
                _ => None,
            })
        })
    }

    fn block_arg(&mut self, e: &ast::Expr) -> Res<(&'p Declaration, Vec<ast::Argument>, Span)> {
        let (name, args) = match &e.kind {
            ExprKind::Call { callee, args, .. } => match &callee.kind {
                ExprKind::Name(p) => (p.name.clone(), args.clone()),
                _ => return err(e.span, "expected a parser or control instantiation"),
            },
            ExprKind::Name(p) => {
                // a top-level instance `P() p;`
                match self.global_instance(p.name.as_str()) {
                    Some(i) => match &i.ty.kind {
                        ast::TypeKind::Name(tp) => (tp.name.clone(), i.args.clone()),
                        _ => return err(e.span, "expected a parser or control instance"),
                    },
                    None => return err(e.span, format!("unknown instance `{}`", p.name)),
                }
            }
            _ => return err(e.span, "expected a parser or control instantiation"),
        };
        let d = self.globals.get(name.as_str()).and_then(|ds| {
            ds.iter()
                .find(|d| matches!(d, Declaration::Parser(_) | Declaration::Control(_)))
                .copied()
        });
        match d {
            Some(d) => Ok((d, args, e.span)),
            None => err(name.span, format!("unknown parser or control `{name}`")),
        }
    }

    fn std_meta(&self, sm: &Place, t: &Ty, span: Span) -> Res<StdMeta> {
        let Ty::Struct(i) = t else {
            return err(span, "standard_metadata_t is not a struct");
        };
        let s = &self.structs[*i as usize];
        let slot = |name: &str| -> Res<u32> {
            match s.fields.iter().find(|f| f.name.as_ref() == name) {
                Some(f) if self.size(&f.ty) == (1, 0) => Ok(sm.n + f.n_off),
                _ => err(span, format!("standard_metadata_t has no field `{name}`")),
            }
        };
        Ok(StdMeta {
            ingress_port: slot("ingress_port")?,
            egress_spec: slot("egress_spec")?,
            egress_port: slot("egress_port")?,
            instance_type: slot("instance_type")?,
            packet_length: slot("packet_length")?,
            ingress_global_timestamp: slot("ingress_global_timestamp")?,
            egress_global_timestamp: slot("egress_global_timestamp")?,
            mcast_grp: slot("mcast_grp")?,
            egress_rid: slot("egress_rid")?,
            checksum_error: slot("checksum_error")?,
            parser_error: slot("parser_error")?,
            priority: slot("priority")?,
        })
    }

    fn field_lists(&self, meta: &Place, t: &Ty) -> HashMap<u8, (Vec<u32>, Vec<u32>)> {
        let mut out: HashMap<u8, (Vec<u32>, Vec<u32>)> = HashMap::new();
        let Ty::Struct(i) = t else {
            return out;
        };
        let s = &self.structs[*i as usize];
        for f in &s.fields {
            for a in &f.annotations {
                if a.name.as_str() != "field_list" {
                    continue;
                }
                for e in a.expressions().unwrap_or(&[]) {
                    let ExprKind::Int(lit) = &e.kind else {
                        continue;
                    };
                    let Some(idx) = lit.to_u128().and_then(|v| u8::try_from(v).ok()) else {
                        continue;
                    };
                    let mut leaves = Vec::new();
                    self.leaves(&meta.offset(f.n_off, f.w_off), &f.ty, &mut leaves);
                    let entry = out.entry(idx).or_default();
                    for (p, lt) in leaves {
                        if self.size(&lt) == (1, 0) {
                            entry.0.push(p.n);
                        } else {
                            entry.1.push(p.w);
                        }
                    }
                }
            }
        }
        out
    }
}

#[allow(dead_code)]
fn target_inner_slice(e: &Ex) -> Option<()> {
    match e {
        Ex::SliceW(..) => Some(()),
        _ => None,
    }
}

/// A constant of type `b` from an unsized value (wrapping to the width).
fn const_ex(i: i128, b: BitType) -> Ex {
    if is_wide(b.width()) {
        Ex::ConstW(Bits::from_i128(b, i))
    } else {
        Ex::Const((i as u64) & mask(b.width()))
    }
}

fn bits_ex(b: Bits) -> Ex {
    if is_wide(b.width()) {
        Ex::ConstW(b)
    } else {
        Ex::Const(b.low_u64())
    }
}

/// A narrow or wide expression of type `b` as a wide expression.
fn widen(e: Ex, b: BitType) -> Ex {
    if is_wide(b.width()) {
        e
    } else {
        Ex::ToWide(b, Box::new(e))
    }
}

/// Converts between scalar types (truncate, zero- or sign-extend).
fn convert(ex: Ex, from: BitType, to: BitType) -> Ex {
    let (fw, tw) = (from.width(), to.width());
    match (is_wide(fw), is_wide(tw)) {
        (false, false) => {
            if tw <= fw {
                fold(Ex::Mask(tw, Box::new(ex)))
            } else if from.is_signed() {
                fold(Ex::SExt(fw, tw, Box::new(ex)))
            } else {
                ex
            }
        }
        (false, true) => {
            // extend per the source's signedness, then reinterpret
            let wide_from = BitType::new(tw, from.is_signed()).unwrap_or(to);
            let ex = if from.is_signed() && fw < 64 {
                Ex::SExt(fw, 64, Box::new(ex))
            } else {
                ex
            };
            let w = Ex::ToWide(wide_from, Box::new(ex));
            if wide_from == to {
                w
            } else {
                Ex::CastW(to, Box::new(w))
            }
        }
        (true, false) => {
            let narrowed = Ex::CastW(BitType::new(tw, false).unwrap_or(to), Box::new(ex));
            Ex::ToNarrow(Box::new(narrowed))
        }
        (true, true) => Ex::CastW(to, Box::new(ex)),
    }
}

/// Folds a narrow node whose operands are constants.
fn fold(e: Ex) -> Ex {
    let c = match &e {
        Ex::Bin(op, w, ab) => match (&ab.0, &ab.1) {
            (Ex::Const(a), Ex::Const(b)) => Some(crate::exec::narrow::eval_nop(*op, *w, *a, *b)),
            _ => None,
        },
        Ex::BitNot(w, a) => match **a {
            Ex::Const(a) => Some(!a & mask(*w)),
            _ => None,
        },
        Ex::Neg(w, a) => match **a {
            Ex::Const(a) => Some(a.wrapping_neg() & mask(*w)),
            _ => None,
        },
        Ex::Not(a) => match **a {
            Ex::Const(a) => Some(u64::from(a == 0)),
            _ => None,
        },
        Ex::Mask(w, a) => match **a {
            Ex::Const(a) => Some(a & mask(*w)),
            _ => None,
        },
        Ex::SExt(f, t, a) => match **a {
            Ex::Const(a) => Some(crate::exec::narrow::sext(a, *f) & mask(*t)),
            _ => None,
        },
        Ex::Slice(hi, lo, a) => match **a {
            Ex::Const(a) => Some((a >> lo) & mask(hi - lo + 1)),
            _ => None,
        },
        Ex::Concat(bw, ab) => match (&ab.0, &ab.1) {
            (Ex::Const(a), Ex::Const(b)) => Some((a << bw) | b),
            _ => None,
        },
        _ => None,
    };
    match c {
        Some(c) => Ex::Const(c),
        None => e,
    }
}

fn ident(name: &str, span: Span) -> ast::Ident {
    ast::Ident {
        name: name.into(),
        span,
    }
}
