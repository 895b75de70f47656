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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::ast::{self, BinaryOp, Declaration, ExprKind, UnaryOp};
use crate::bits::{BitType, Bits};
use crate::diagnostic::{Diagnostic, Error, ErrorKind};
use crate::hash::HashAlgorithm;
use crate::ir::*;
use crate::source::Span;

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
    let program = crate::frontend::parse_program(path, include_dirs)?;
    compile(&program)
}

/// Parses and compiles program text (only the built-in includes are
/// available).
pub fn compile_source(name: &str, text: &str) -> Result<Compiled, Diagnostic> {
    let program = crate::frontend::parse_source(name, text)?;
    compile(&program)
}

mod tna;
mod tofino;

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
}

impl Place {
    fn at(n: u32, w: u32) -> Place {
        Place {
            n,
            w,
            dynamic: None,
        }
    }
    fn offset(&self, dn: u32, dw: u32) -> Place {
        Place {
            n: self.n.saturating_add(dn),
            w: self.w.saturating_add(dw),
            dynamic: self.dynamic.clone(),
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
    TnaHash(crate::hash::HashAlgorithm, u32),
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
    errors: Vec<String>,
    match_kinds: Vec<String>,
    global_consts: HashMap<Arc<str>, Val>,
    global_actions: HashMap<Arc<str>, u32>,
    global_instances: HashMap<Arc<str>, Val>,
    functions: HashMap<Arc<str>, FunctionInfo>,
    scopes: Vec<HashMap<Arc<str>, Val>>,
    prefix: String,
    block_kind: BlockKind,
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
    /// TNA registers' PHV inputs over their RegisterActions so far.
    tna_salu_inputs: HashMap<u32, Vec<String>>,
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
            errors: Vec::new(),
            match_kinds: Vec::new(),
            global_consts: HashMap::new(),
            global_actions: HashMap::new(),
            global_instances: HashMap::new(),
            functions: HashMap::new(),
            scopes: Vec::new(),
            prefix: String::new(),
            block_kind: BlockKind::Control,
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
            reg_actions: Vec::new(),
            tna_resubmit: None,
            resubmit_headers: Vec::new(),
            tna_register_spans: HashMap::new(),
            tna_main_span: Span::default(),
            tna_salu_inputs: HashMap::new(),
            sub_parsers: Vec::new(),
        }
    }

    // ---- types -------------------------------------------------------

    fn scalar_bt(&self, t: &Ty) -> Option<BitType> {
        match t {
            Ty::Bool => Some(BitType::BIT1),
            Ty::Bit(w) => Some(bt(*w, false)),
            Ty::Int(w) => Some(bt(*w, true)),
            Ty::Error => Some(bt(ERROR_WIDTH, false)),
            Ty::Enum(i) => Some(
                self.enums
                    .get(*i as usize)
                    .and_then(|e| e.underlying)
                    .unwrap_or(bt(ENUM_WIDTH, false)),
            ),
            _ => None,
        }
    }

    fn size(&self, t: &Ty) -> (u32, u32) {
        match t {
            Ty::Struct(i) => self.structs.get(*i as usize).map_or((0, 0), |s| (s.n, s.w)),
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                (n.saturating_mul(*c).saturating_add(1), w.saturating_mul(*c))
            }
            Ty::Tuple(ts) => ts.iter().fold((0u32, 0u32), |(n, w), t| {
                let (a, b) = self.size(t);
                (n.saturating_add(a), w.saturating_add(b))
            }),
            t => match self.scalar_bt(t) {
                Some(b) if is_wide(b.width()) => (0, 1),
                Some(_) => (1, 0),
                None => (0, 0),
            },
        }
    }

    fn alloc(&mut self, t: &Ty) -> Place {
        let (n, w) = self.size(t);
        if self.n_slots.saturating_add(n) > MAX_SLOTS || self.w_init.len() as u32 + w > MAX_SLOTS {
            // refused in `run`; keep allocating nothing more
            self.too_large = true;
            return Place::at(0, 0);
        }
        let p = Place::at(self.n_slots, self.w_init.len() as u32);
        let mut leaves = Vec::new();
        self.leaves(&p, t, &mut leaves);
        let (n, _) = self.size(t);
        self.n_slots += n;
        for (lp, lt) in leaves {
            if let Some(b) = self.scalar_bt(&lt)
                && is_wide(b.width())
            {
                debug_assert_eq!(lp.w as usize, self.w_init.len());
                self.w_init.push(Bits::zero(b));
            }
        }
        p
    }

    /// Every scalar leaf of a value of type `t` stored at `p` (headers:
    /// the validity bit first).
    fn leaves(&self, p: &Place, t: &Ty, out: &mut Vec<(Place, Ty)>) {
        match t {
            Ty::Struct(i) => {
                let Some(s) = self.structs.get(*i as usize) else {
                    return;
                };
                if s.kind == SKind::Header {
                    out.push((p.clone(), Ty::Bool));
                }
                for f in &s.fields {
                    self.leaves(&p.offset(f.n_off, f.w_off), &f.ty, out);
                }
            }
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                for i in 0..*c {
                    self.leaves(&p.offset(i.saturating_mul(n), i.saturating_mul(w)), e, out);
                }
                out.push((
                    p.offset(n.saturating_mul(*c), w.saturating_mul(*c)),
                    Ty::Bit(32),
                ));
            }
            Ty::Tuple(ts) => {
                let (mut n, mut w) = (0, 0);
                for t in ts {
                    self.leaves(&p.offset(n, w), t, out);
                    let (a, b) = self.size(t);
                    n = n.saturating_add(a);
                    w = w.saturating_add(b);
                }
            }
            t => {
                if self.scalar_bt(t).is_some() {
                    out.push((p.clone(), t.clone()));
                }
            }
        }
    }

    /// Bits `t` occupies on the wire, for `lookahead<T>`: scalars, and
    /// headers and structs made of them (`None` for anything else).
    fn wire_bits(&self, t: &Ty) -> Option<u32> {
        match t {
            Ty::Bool => Some(1),
            Ty::Bit(w) | Ty::Int(w) => Some(*w),
            Ty::Struct(i) => {
                let s = self.structs.get(*i as usize)?;
                if s.kind == SKind::Union {
                    return None;
                }
                s.fields
                    .iter()
                    .try_fold(0u32, |acc, f| acc.checked_add(self.wire_bits(&f.ty)?))
            }
            _ => None,
        }
    }

    /// The value of `packet.lookahead<T>()` for the part of `t` that
    /// starts `at` bits into a lookahead of `total` bits: each field reads
    /// its bits of the same lookahead (which does not advance); a header
    /// comes back valid. `t` is one [`Compiler::wire_bits`] accepts.
    fn lookahead_value(&self, t: &Ty, at: u32, total: u32) -> Val {
        match t {
            Ty::Struct(i) => {
                let mut items = Vec::new();
                let mut off = at;
                if let Some(s) = self.structs.get(*i as usize) {
                    for f in &s.fields {
                        let w = self.wire_bits(&f.ty).unwrap_or(0);
                        items.push((f.name.clone(), self.lookahead_value(&f.ty, off, total)));
                        off = off.saturating_add(w);
                    }
                }
                Val::StructInit(items)
            }
            _ => {
                let w = self.wire_bits(t).unwrap_or(1).max(1);
                let lo = total.saturating_sub(at).saturating_sub(w);
                let hi = lo + w - 1;
                let ex = if !is_wide(total) {
                    Ex::Slice(hi, lo, Box::new(Ex::Lookahead(total)))
                } else {
                    let wide = Ex::SliceW(hi, lo, Box::new(Ex::LookaheadW(bt(total, false))));
                    if is_wide(w) {
                        wide
                    } else {
                        Ex::ToNarrow(Box::new(wide))
                    }
                };
                Val::Scalar(ex, t.clone())
            }
        }
    }

    fn const_u32(&mut self, e: &ast::Expr, what: &str) -> Res<u32> {
        let v = self.expr(e)?;
        match self.const_value(&v) {
            Some(v) if v >= 0 && v <= i128::from(u32::MAX) => Ok(v as u32),
            Some(_) => err(e.span, format!("{what} is out of range")),
            None => err(e.span, format!("{what} must be a compile-time constant")),
        }
    }

    fn const_value(&self, v: &Val) -> Option<i128> {
        match v {
            Val::Int(i) => Some(*i),
            Val::Scalar(Ex::Const(c), t) => {
                let b = self.scalar_bt(t)?;
                if b.is_signed()
                    && b.width() > 0
                    && b.width() < 64
                    && (c >> (b.width() - 1)) & 1 == 1
                {
                    Some(i128::from(*c) - (1i128 << b.width()))
                } else if b.is_signed() && b.width() == 64 {
                    Some(i128::from(*c as i64))
                } else {
                    Some(i128::from(*c))
                }
            }
            Val::Scalar(Ex::ConstW(b), _) => b.to_i128().or_else(|| b.to_u128().map(|u| u as i128)),
            _ => None,
        }
    }

    fn resolve_type(&mut self, t: &ast::Type) -> Res<Ty> {
        Ok(match &t.kind {
            ast::TypeKind::Bool => Ty::Bool,
            ast::TypeKind::Error => Ty::Error,
            ast::TypeKind::String => Ty::Str,
            ast::TypeKind::Void => Ty::Void,
            ast::TypeKind::MatchKind => Ty::MatchKind,
            ast::TypeKind::InfInt => Ty::InfInt,
            ast::TypeKind::Bit(w) => {
                let w = self.const_u32(w, "a bit width")?;
                if w > crate::bits::MAX_WIDTH {
                    return err(t.span, format!("width {w} is too large"));
                }
                Ty::Bit(w)
            }
            ast::TypeKind::Int(w) => {
                let w = self.const_u32(w, "an int width")?;
                if w == 0 || w > crate::bits::MAX_WIDTH {
                    return err(t.span, format!("int<{w}> is not a valid type"));
                }
                Ty::Int(w)
            }
            ast::TypeKind::Varbit(_) => {
                return unsupported(t.span, "varbit<W> fields are not supported by p4sim");
            }
            ast::TypeKind::Name(path) => self.named_type(&path.name)?,
            ast::TypeKind::Specialized { base, .. } => {
                let name = base.name.as_str();
                if self.globals.get(name).is_some_and(|ds| {
                    ds.iter().any(|d| {
                        matches!(
                            d,
                            Declaration::Header(_)
                                | Declaration::Struct(_)
                                | Declaration::HeaderUnion(_)
                        )
                    })
                }) {
                    return unsupported(t.span, "generic structs and headers are not supported");
                }
                Ty::Object(base.name.name.clone())
            }
            ast::TypeKind::Stack { element, size } => {
                let e = self.resolve_type(element)?;
                let n = self.const_u32(size, "a header stack size")?;
                if n > MAX_STACK {
                    return unsupported(
                        size.span,
                        format!("header stacks of more than {MAX_STACK} elements"),
                    );
                }
                match &e {
                    Ty::Struct(i)
                        if self
                            .structs
                            .get(*i as usize)
                            .is_some_and(|s| s.kind != SKind::Struct) => {}
                    _ => {
                        return err(
                            t.span,
                            format!(
                                "header stack elements must be headers or header unions, not {}",
                                ty_name(self, &e)
                            ),
                        );
                    }
                }
                if n == 0 {
                    return err(size.span, "a header stack needs at least one element");
                }
                Ty::Stack(Box::new(e), n)
            }
            ast::TypeKind::Tuple(ts) => {
                let mut out = Vec::new();
                for t in ts {
                    out.push(self.resolve_type(t)?);
                }
                Ty::Tuple(out)
            }
            ast::TypeKind::DontCare => {
                return unsupported(t.span, "`_` as a type");
            }
        })
    }

    fn named_type(&mut self, name: &ast::Ident) -> Res<Ty> {
        let n = name.as_str();
        if let Some(t) = self.typedefs.get(n) {
            return Ok(t.clone());
        }
        if let Some(&i) = self.struct_ids.get(n) {
            return Ok(Ty::Struct(i));
        }
        if let Some(&i) = self.enum_ids.get(n) {
            return Ok(Ty::Enum(i));
        }
        match n {
            "packet_in" => return Ok(Ty::PacketIn),
            "packet_out" => return Ok(Ty::PacketOut),
            _ => {}
        }
        let decls = self.globals.get(n).cloned().unwrap_or_default();
        for d in decls {
            match d {
                Declaration::Typedef(td) => {
                    let t = self.resolve_type(&td.ty)?;
                    self.typedefs.insert(td.name.name.clone(), t.clone());
                    return Ok(t);
                }
                Declaration::Header(s) => return self.declare_struct(s, SKind::Header),
                Declaration::Struct(s) => return self.declare_struct(s, SKind::Struct),
                Declaration::HeaderUnion(s) => return self.declare_struct(s, SKind::Union),
                Declaration::Enum(e) => return self.declare_enum(e),
                Declaration::ExternObject(_)
                | Declaration::ParserType(_)
                | Declaration::ControlType(_)
                | Declaration::Package(_)
                | Declaration::Parser(_)
                | Declaration::Control(_) => return Ok(Ty::Object(name.name.clone())),
                _ => {}
            }
        }
        err(name.span, format!("unknown type `{n}`"))
    }

    fn declare_struct(&mut self, s: &ast::StructDecl, kind: SKind) -> Res<Ty> {
        if let Some(&i) = self.struct_ids.get(s.name.as_str()) {
            return Ok(Ty::Struct(i));
        }
        if !s.type_params.is_empty() {
            return unsupported(s.span, "generic structs and headers are not supported");
        }
        if self.depth > 64 {
            return err(
                s.span,
                "type declarations nest too deeply (recursive type?)",
            );
        }
        self.depth += 1;
        let mut fields: Vec<FieldInfo> = Vec::new();
        let (mut n, mut w) = (u32::from(kind == SKind::Header), 0);
        for f in &s.fields {
            let t = self.resolve_type(&f.ty);
            let t = match t {
                Ok(t) => t,
                Err(e) => {
                    self.depth -= 1;
                    return Err(e);
                }
            };
            if fields.iter().any(|g| g.name == f.name.name) {
                self.depth -= 1;
                return err(f.name.span, format!("duplicate field `{}`", f.name));
            }
            let ok = match kind {
                SKind::Header => {
                    matches!(t, Ty::Bit(_) | Ty::Int(_) | Ty::Bool)
                        || matches!(&t, Ty::Enum(i) if self.enums.get(*i as usize).is_some_and(|e| e.underlying.is_some()))
                }
                SKind::Union => {
                    matches!(&t, Ty::Struct(i) if self.structs.get(*i as usize).is_some_and(|s| s.kind == SKind::Header))
                }
                SKind::Struct => !matches!(
                    t,
                    Ty::Void | Ty::PacketIn | Ty::PacketOut | Ty::Object(_) | Ty::InfInt
                ),
            };
            if !ok {
                self.depth -= 1;
                return err(
                    f.ty.span,
                    format!("a field of type {} is not allowed here", ty_name(self, &t)),
                );
            }
            let (a, b) = self.size(&t);
            fields.push(FieldInfo {
                name: f.name.name.clone(),
                ty: t,
                n_off: n,
                w_off: w,
                annotations: f.annotations.clone(),
            });
            n = n.saturating_add(a);
            w = w.saturating_add(b);
        }
        self.depth -= 1;
        let id = self.structs.len() as u32;
        self.structs.push(StructInfo {
            name: s.name.name.clone(),
            kind,
            fields,
            n,
            w,
        });
        self.struct_ids.insert(s.name.name.clone(), id);
        Ok(Ty::Struct(id))
    }

    fn declare_enum(&mut self, e: &ast::EnumDecl) -> Res<Ty> {
        if let Some(&i) = self.enum_ids.get(e.name.as_str()) {
            return Ok(Ty::Enum(i));
        }
        let underlying = match &e.underlying {
            Some(t) => match self.resolve_type(t)? {
                Ty::Bit(w) => Some(bt(w, false)),
                Ty::Int(w) => Some(bt(w, true)),
                other => {
                    return err(
                        t.span,
                        format!(
                            "a serializable enum needs a bit<W> or int<W> type, not {}",
                            ty_name(self, &other)
                        ),
                    );
                }
            },
            None => None,
        };
        if underlying.is_some_and(|b| is_wide(b.width())) {
            return unsupported(e.span, "serializable enums wider than 64 bits");
        }
        let mut members = Vec::new();
        for (i, m) in e.members.iter().enumerate() {
            let v = match (&m.value, underlying) {
                (Some(v), Some(b)) => {
                    let val = self.expr(v)?;
                    match self.const_value(&val) {
                        Some(c) => (c as u64) & mask(b.width()),
                        None => return err(v.span, "enum values must be constants"),
                    }
                }
                (None, Some(_)) => {
                    return err(
                        m.name.span,
                        "every member of a serializable enum needs a value",
                    );
                }
                (_, None) => i as u64,
            };
            members.push((m.name.name.clone(), v));
        }
        let id = self.enums.len() as u32;
        self.enums.push(EnumInfo {
            name: e.name.name.clone(),
            members,
            underlying,
        });
        self.enum_ids.insert(e.name.name.clone(), id);
        Ok(Ty::Enum(id))
    }

    // ---- top level ---------------------------------------------------

    fn run(mut self) -> Res<Compiled> {
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
        // Check every type declaration once, so errors in unused types are
        // still reported.
        for d in &program.declarations {
            match d {
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
        if pkg.as_str() != "V1Switch" {
            return unsupported(
                pkg.span,
                format!(
                    "package `{pkg}`: p4sim runs the v1model `V1Switch` and the TNA `Switch` architectures"
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
                let inst = self.globals.get(p.name.as_str()).and_then(|ds| {
                    ds.iter().find_map(|d| match d {
                        Declaration::Instantiation(i) => Some(i),
                        _ => None,
                    })
                });
                match inst {
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

    fn global_const(&mut self, c: &ast::ConstantDecl) -> Res<Val> {
        if let Some(v) = self.global_consts.get(c.name.as_str()) {
            return Ok(v.clone());
        }
        if self.depth > 64 {
            return err(
                c.span,
                "constant definitions refer to each other in a cycle",
            );
        }
        self.depth += 1;
        let r = self.local_const(c);
        self.depth -= 1;
        let v = r?;
        self.global_consts.insert(c.name.name.clone(), v.clone());
        Ok(v)
    }

    fn local_const(&mut self, c: &ast::ConstantDecl) -> Res<Val> {
        let t = self.resolve_type(&c.ty)?;
        let v = self.expr(&c.value)?;
        if t == Ty::InfInt {
            return match v {
                Val::Int(i) => Ok(Val::Int(i)),
                _ => err(c.value.span, "expected an integer constant"),
            };
        }
        if self.scalar_bt(&t).is_some() {
            let ex = self.coerce(v, &t, c.value.span)?;
            if !matches!(ex, Ex::Const(_) | Ex::ConstW(_)) {
                return err(
                    c.value.span,
                    "the value of a constant must be a compile-time constant",
                );
            }
            return Ok(Val::Scalar(ex, t));
        }
        // compound constant: store it in slots initialised once per use
        unsupported(
            c.ty.span,
            format!("constants of type {}", ty_name(self, &t)),
        )
    }

    // ---- name lookup ---------------------------------------------------

    fn lookup(&mut self, path: &ast::Path) -> Res<Val> {
        let name = path.name.as_str();
        if !path.absolute {
            for s in self.scopes.iter().rev() {
                if let Some(v) = s.get(name) {
                    return Ok(v.clone());
                }
            }
        }
        if name == "error" {
            return Ok(Val::ErrorNs);
        }
        if let Some(v) = self.global_consts.get(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.global_instances.get(name) {
            return Ok(v.clone());
        }
        let decls = self.globals.get(name).cloned().unwrap_or_default();
        let Some(d) = decls.first() else {
            return err(path.name.span, format!("`{name}` is not declared"));
        };
        match d {
            Declaration::Constant(c) => self.global_const(c),
            Declaration::Action(a) => {
                if let Some(&id) = self.global_actions.get(name) {
                    return Ok(Val::Action(id));
                }
                let saved = (
                    std::mem::take(&mut self.scopes),
                    std::mem::take(&mut self.prefix),
                );
                let r = self.lower_action(a);
                self.scopes = saved.0;
                self.prefix = saved.1;
                let id = r?;
                self.global_actions.insert(a.name.name.clone(), id);
                Ok(Val::Action(id))
            }
            Declaration::Function(_) => Ok(Val::Function(path.name.name.clone())),
            Declaration::ExternFunction(_) => Ok(Val::ExternFn(path.name.name.clone())),
            Declaration::Instantiation(i) => {
                let saved = (
                    std::mem::take(&mut self.scopes),
                    std::mem::take(&mut self.prefix),
                );
                let r = self.instantiate(i);
                self.scopes = saved.0;
                self.prefix = saved.1;
                let v = r?;
                self.global_instances.insert(i.name.name.clone(), v.clone());
                Ok(v)
            }
            _ => Ok(Val::Type(self.named_type(&path.name)?)),
        }
    }

    fn fq_name(&self, local: &ast::Ident, annotations: &[ast::Annotation]) -> String {
        if let Some(n) = ast::find_annotation(annotations, "name").and_then(|a| a.string_argument())
        {
            if let Some(abs) = n.strip_prefix('.') {
                return abs.to_string();
            }
            return self.join(n);
        }
        self.join(local.as_str())
    }

    fn join(&self, n: &str) -> String {
        if self.prefix.is_empty() {
            n.to_string()
        } else {
            format!("{}.{n}", self.prefix)
        }
    }

    fn bind(&mut self, name: &ast::Ident, v: Val) -> Res<()> {
        let Some(scope) = self.scopes.last_mut() else {
            return err(name.span, "internal: no scope");
        };
        if scope.contains_key(name.as_str()) {
            return err(
                name.span,
                format!("`{name}` is already declared in this scope"),
            );
        }
        scope.insert(name.name.clone(), v);
        Ok(())
    }

    // ---- blocks --------------------------------------------------------

    fn bind_ctor_params(
        &mut self,
        params: &[ast::Param],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<()> {
        if params.len() != args.len() {
            return err(
                span,
                format!(
                    "expected {} constructor arguments, got {}",
                    params.len(),
                    args.len()
                ),
            );
        }
        for (p, a) in params.iter().zip(args) {
            let t = self.resolve_type(&p.ty)?;
            let v = self.expr(&a.value)?;
            let v = if self.scalar_bt(&t).is_some() {
                Val::Scalar(self.coerce(v, &t, a.value.span)?, t)
            } else {
                v
            };
            self.bind(&p.name, v)?;
        }
        Ok(())
    }

    fn check_param_types(&mut self, params: &[ast::Param], tys: &[Ty], span: Span) -> Res<()> {
        if params.len() != tys.len() {
            return err(
                span,
                format!(
                    "this block must take {} parameters, it takes {}",
                    tys.len(),
                    params.len()
                ),
            );
        }
        for (p, want) in params.iter().zip(tys) {
            let t = self.resolve_type(&p.ty)?;
            if &t != want {
                return err(
                    p.ty.span,
                    format!(
                        "parameter `{}` has type {}, but {} passes {}",
                        p.name,
                        ty_name(self, &t),
                        self.arch,
                        ty_name(self, want)
                    ),
                );
            }
        }
        Ok(())
    }

    fn lower_parser(
        &mut self,
        p: &ast::ParserDecl,
        ctor_args: &[ast::Argument],
        vals: Vec<Val>,
        tys: Vec<Ty>,
    ) -> Res<(Vec<St>, Vec<StateIr>)> {
        if !p.type_params.is_empty() {
            return unsupported(p.span, "generic parsers");
        }
        self.check_param_types(&p.params, &tys, p.span)?;
        self.scopes = vec![HashMap::new()];
        self.prefix = p.name.to_string();
        self.block_kind = BlockKind::Parser;
        self.bind_ctor_params(&p.ctor_params, ctor_args, p.span)?;
        for (param, v) in p.params.iter().zip(vals) {
            self.bind(&param.name, v)?;
        }
        let mut init = Vec::new();
        for d in &p.locals {
            self.local_decl(d, &mut init)?;
        }
        let mut states = Vec::new();
        let start = self.lower_states(p, &mut states, Next::Accept)?;
        // make `start` state 0
        if start != 0 {
            states.swap(0, start as usize);
            let fix = |n: &mut Next| {
                if let Next::State(s) = n {
                    if *s == start {
                        *s = 0;
                    } else if *s == 0 {
                        *s = start;
                    }
                }
            };
            for s in &mut states {
                match &mut s.transition {
                    Transition::Go(n) => fix(n),
                    Transition::Select(_, cases) => {
                        for (_, n) in cases {
                            fix(n);
                        }
                    }
                }
            }
        }
        self.scopes.clear();
        Ok((init, states))
    }

    /// Lowers `p`'s states into `out` (ids from `out.len()`), `accept`
    /// going to `on_accept`; returns the id of its `start` state. A
    /// sub-parser `apply` in a state splits it: the statements before it
    /// (and the copy-in) end in a transition to the sub-parser's states,
    /// lowered here for this call site, whose `accept` goes to a new state
    /// holding the statements after and the original transition.
    fn lower_states(
        &mut self,
        p: &ast::ParserDecl,
        out: &mut Vec<StateIr>,
        on_accept: Next,
    ) -> Res<u32> {
        let base = out.len() as u32;
        let mut ids: HashMap<&str, u32> = HashMap::new();
        for (i, s) in p.states.iter().enumerate() {
            if matches!(s.name.as_str(), "accept" | "reject") {
                return err(
                    s.name.span,
                    format!("state `{}` cannot be redefined", s.name),
                );
            }
            if ids.insert(s.name.as_str(), base + i as u32).is_some() {
                return err(s.name.span, format!("duplicate state `{}`", s.name));
            }
        }
        let Some(&start) = ids.get("start") else {
            return err(
                p.name.span,
                format!("parser `{}` has no `start` state", p.name),
            );
        };
        let resolve = |n: &ast::Ident| -> Res<Next> {
            match n.as_str() {
                "accept" => Ok(on_accept),
                "reject" => Ok(Next::Reject),
                s => match ids.get(s) {
                    Some(&i) => Ok(Next::State(i)),
                    None => err(n.span, format!("unknown parser state `{s}`")),
                },
            }
        };
        let sub = on_accept != Next::Accept;
        for s in &p.states {
            out.push(StateIr {
                name: if sub {
                    format!("{}.{}", self.prefix, s.name)
                } else {
                    s.name.to_string()
                },
                body: Vec::new(),
                transition: Transition::Go(Next::Reject),
            });
        }
        for (k, s) in p.states.iter().enumerate() {
            self.scopes.push(HashMap::new());
            let mut cur = base as usize + k;
            let mut body = Vec::new();
            for st in &s.statements {
                if let Some((sub, args)) = self.sub_parser_call(st)? {
                    let cont = out.len() as u32;
                    out.push(StateIr {
                        name: format!("{}$after_{}", s.name, self.sub_parsers[sub as usize].2),
                        body: Vec::new(),
                        transition: Transition::Go(Next::Reject),
                    });
                    let sub_start =
                        self.lower_sub_parser(sub, args, st.span, out, cont, &mut body)?;
                    out[cur].body = std::mem::take(&mut body);
                    out[cur].transition = Transition::Go(Next::State(sub_start));
                    cur = cont as usize;
                    continue;
                }
                self.stmt(st, &mut body)?;
            }
            let transition = match &s.transition {
                None => Transition::Go(Next::Reject),
                Some(t) => match &t.kind {
                    ast::TransitionKind::Direct(n) => Transition::Go(resolve(n)?),
                    ast::TransitionKind::Select { exprs, cases } => {
                        let mut keys = Vec::new();
                        let mut key_tys = Vec::new();
                        for e in exprs {
                            let v = self.expr(e)?;
                            let (ex, t) = self.rvalue(v, e.span)?;
                            let Some(b) = self.scalar_bt(&t) else {
                                return err(e.span, "select keys must be scalar values");
                            };
                            if is_wide(b.width()) {
                                return unsupported(e.span, "select keys wider than 64 bits");
                            }
                            keys.push(ex);
                            key_tys.push(t);
                        }
                        let mut out_cases = Vec::new();
                        for c in cases {
                            let next = resolve(&c.next)?;
                            let ks = if c.keys.len() == 1
                                && matches!(
                                    c.keys[0],
                                    ast::Keyset::Default(_) | ast::Keyset::DontCare(_)
                                ) {
                                vec![SelectKey::Any; keys.len()]
                            } else {
                                if c.keys.len() != keys.len() {
                                    return err(
                                        c.span,
                                        format!(
                                            "select has {} keys but this case has {}",
                                            keys.len(),
                                            c.keys.len()
                                        ),
                                    );
                                }
                                let mut ks = Vec::new();
                                for (k, t) in c.keys.iter().zip(&key_tys) {
                                    ks.push(self.select_key(k, t)?);
                                }
                                ks
                            };
                            out_cases.push((ks, next));
                        }
                        Transition::Select(keys, out_cases)
                    }
                },
            };
            self.scopes.pop();
            out[cur].body = body;
            out[cur].transition = transition;
        }
        Ok(start)
    }

    /// `sub.apply(args);` on a sub-parser instance: its index and arguments.
    fn sub_parser_call<'s>(
        &mut self,
        st: &'s ast::Statement,
    ) -> Res<Option<(u32, &'s [ast::Argument])>> {
        let ast::StatementKind::Call(e) = &st.kind else {
            return Ok(None);
        };
        let ExprKind::Call { callee, args, .. } = &e.kind else {
            return Ok(None);
        };
        let ExprKind::Member { base, member } = &callee.kind else {
            return Ok(None);
        };
        if member.as_str() != "apply" || !matches!(base.kind, ExprKind::Name(_)) {
            return Ok(None);
        }
        match self.expr(base)? {
            Val::SubParser(k) => Ok(Some((k, args))),
            _ => Ok(None),
        }
    }

    /// One call site of sub-parser `k`: binds its parameters (`in` ones to
    /// copies made in `pre`, `out` and `inout` ones to the arguments
    /// themselves, as p4c's inliner does), lowers its locals into `pre` and
    /// its states into `out` with `accept` going to `cont`; returns its
    /// start.
    fn lower_sub_parser(
        &mut self,
        k: u32,
        args: &[ast::Argument],
        span: Span,
        out: &mut Vec<StateIr>,
        cont: u32,
        pre: &mut Vec<St>,
    ) -> Res<u32> {
        let (p, ctor_args, name) = self.sub_parsers[k as usize].clone();
        if self.depth > 32 {
            return err(span, "sub-parsers apply each other too deeply");
        }
        if args.len() != p.params.len() {
            return err(
                span,
                format!(
                    "`{}` takes {} arguments, {} given",
                    p.name,
                    p.params.len(),
                    args.len()
                ),
            );
        }
        // arguments in the caller's scope
        let mut bound = Vec::new();
        for (param, a) in p.params.iter().zip(args) {
            let t = self.resolve_type(&param.ty)?;
            let v = self.expr(&a.value)?;
            if t == Ty::PacketIn {
                if !matches!(v, Val::Packet(false)) {
                    return err(a.value.span, "expected the packet_in");
                }
                bound.push((param, Val::Packet(false)));
                continue;
            }
            let place = self.alloc(&t);
            match param.direction {
                ast::Direction::In | ast::Direction::None => {
                    // a copy: the sub-parser may write its `in` parameter
                    self.assign(&place, &t, v, a.value.span, pre)?;
                }
                ast::Direction::Out | ast::Direction::InOut => {
                    let Val::Place(ap, at) = v else {
                        return err(
                            a.value.span,
                            "an out or inout argument must be a variable or field",
                        );
                    };
                    if at != t {
                        return err(
                            a.value.span,
                            format!(
                                "type mismatch: expected {}, found {}",
                                ty_name(self, &t),
                                ty_name(self, &at)
                            ),
                        );
                    }
                    // The argument itself, as p4c's inliner substitutes
                    // it: what the sub-parser wrote before a reject stays
                    // written (BMv2 keeps it).
                    bound.push((param, Val::Place(ap, at)));
                    continue;
                }
            }
            bound.push((param, Val::Place(place, t)));
        }
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let saved_prefix = std::mem::replace(&mut self.prefix, name);
        self.depth += 1;
        let r = (|| -> Res<u32> {
            self.bind_ctor_params(&p.ctor_params, &ctor_args, p.span)?;
            for (param, v) in bound {
                self.bind(&param.name, v)?;
            }
            for d in &p.locals {
                self.local_decl(d, pre)?;
            }
            self.lower_states(p, out, Next::State(cont))
        })();
        self.depth -= 1;
        self.scopes = saved_scopes;
        self.prefix = saved_prefix;
        r
    }

    fn keyset_const(&mut self, e: &ast::Expr, t: &Ty) -> Res<u128> {
        let v = self.expr(e)?;
        let ex = self.coerce(v, t, e.span)?;
        match ex {
            Ex::Const(c) => Ok(u128::from(c)),
            Ex::ConstW(b) => Ok(b.low_u128()),
            _ => err(e.span, "keyset values must be compile-time constants"),
        }
    }

    fn select_key(&mut self, k: &ast::Keyset, t: &Ty) -> Res<SelectKey> {
        let w = self.scalar_bt(t).map_or(64, |b| b.width());
        Ok(match k {
            ast::Keyset::Default(_) | ast::Keyset::DontCare(_) => SelectKey::Any,
            ast::Keyset::Expr(e) => SelectKey::Masked(self.keyset_const(e, t)? as u64, mask(w)),
            ast::Keyset::Mask { value, mask: m } => {
                let v = self.keyset_const(value, t)? as u64;
                let m = self.keyset_const(m, t)? as u64;
                SelectKey::Masked(v & m, m)
            }
            ast::Keyset::Range { lo, hi } => SelectKey::Range(
                self.keyset_const(lo, t)? as u64,
                self.keyset_const(hi, t)? as u64,
            ),
        })
    }

    fn lower_top_control(
        &mut self,
        c: &ast::ControlDecl,
        ctor_args: &[ast::Argument],
        vals: Vec<Val>,
        tys: Vec<Ty>,
    ) -> Res<Vec<St>> {
        if !c.type_params.is_empty() {
            return unsupported(c.span, "generic controls");
        }
        self.check_param_types(&c.params, &tys, c.span)?;
        self.scopes = vec![HashMap::new()];
        self.prefix = c.name.to_string();
        self.block_kind = BlockKind::Control;
        self.bind_ctor_params(&c.ctor_params, ctor_args, c.span)?;
        for (param, v) in c.params.iter().zip(vals) {
            self.bind(&param.name, v)?;
        }
        let body = self.control_body(c)?;
        self.scopes.clear();
        Ok(body)
    }

    fn control_body(&mut self, c: &ast::ControlDecl) -> Res<Vec<St>> {
        let mut body = Vec::new();
        for d in &c.locals {
            self.local_decl(d, &mut body)?;
        }
        self.scopes.push(HashMap::new());
        self.block(&c.apply, &mut body)?;
        self.scopes.pop();
        Ok(body)
    }

    /// A declaration inside a parser, control or block: its initialisation
    /// statements go to `out`.
    fn local_decl(&mut self, d: &Declaration, out: &mut Vec<St>) -> Res<()> {
        match d {
            Declaration::Constant(c) => {
                let v = self.local_const(c)?;
                self.bind(&c.name, v)
            }
            Declaration::Variable(v) => {
                let t = self.resolve_type(&v.ty)?;
                if matches!(
                    t,
                    Ty::Object(_) | Ty::Void | Ty::PacketIn | Ty::PacketOut | Ty::Str | Ty::InfInt
                ) {
                    return err(
                        v.ty.span,
                        format!("variables cannot have type {}", ty_name(self, &t)),
                    );
                }
                let p = self.alloc(&t);
                match &v.init {
                    Some(e) => {
                        let val = self.expr(e)?;
                        self.assign(&p, &t, val, e.span, out)?;
                    }
                    None => self.zero(&p, &t, out),
                }
                self.bind(&v.name, Val::Place(p, t))
            }
            Declaration::Instantiation(i) => {
                let v = self.instantiate(i)?;
                self.bind(&i.name, v)
            }
            Declaration::Action(a) => {
                let id = self.lower_action(a)?;
                self.bind(&a.name, Val::Action(id))
            }
            Declaration::Table(t) => {
                let id = self.lower_table(t)?;
                self.bind(&t.name, Val::Table(id))
            }
            other => unsupported(other.span(), "this kind of local declaration"),
        }
    }

    fn zero(&self, p: &Place, t: &Ty, out: &mut Vec<St>) {
        let mut leaves = Vec::new();
        self.leaves(p, t, &mut leaves);
        for (lp, lt) in leaves {
            let Some(b) = self.scalar_bt(&lt) else {
                continue;
            };
            let ex = if is_wide(b.width()) {
                Ex::ConstW(Bits::zero(b))
            } else {
                Ex::Const(0)
            };
            out.push(self.store(&lp, &lt, ex));
        }
    }

    fn instantiate(&mut self, i: &ast::Instantiation) -> Res<Val> {
        let (base, targs) = match &i.ty.kind {
            ast::TypeKind::Name(p) => (p.name.clone(), Vec::new()),
            ast::TypeKind::Specialized { base, args } => (base.name.clone(), args.clone()),
            _ => return err(i.ty.span, "cannot instantiate this type"),
        };
        let name = self.fq_name(&i.name, &i.annotations);
        let arg = |k: usize| -> Res<&ast::Expr> {
            i.args.get(k).map(|a| &a.value).ok_or_else(|| {
                Error::new(
                    ErrorKind::Semantic(format!("`{base}` needs more constructor arguments")),
                    i.span,
                )
            })
        };
        let nargs = |n: usize| -> Res<()> {
            if i.args.len() != n {
                return err(
                    i.span,
                    format!(
                        "`{base}` takes {n} constructor arguments, {} given",
                        i.args.len()
                    ),
                );
            }
            Ok(())
        };
        let user_block = self.globals.get(base.as_str()).is_some_and(|ds| {
            ds.iter()
                .any(|d| matches!(d, Declaration::Control(_) | Declaration::Parser(_)))
        });
        if !user_block && let Some(v) = self.instantiate_tna(&base, &targs, i, name.clone())? {
            return Ok(v);
        }
        if !i.initializer.is_empty() {
            return unsupported(
                i.span,
                format!("an initializer block for `{base}` (only TNA's RegisterAction has one)"),
            );
        }
        match base.as_str() {
            "register" => {
                nargs(1)?;
                let Some(t) = targs.first() else {
                    return err(i.ty.span, "register needs a type argument: register<T>");
                };
                let t = self.resolve_type(t)?;
                let ty = match t {
                    Ty::Bit(w) => bt(w, false),
                    Ty::Int(w) => bt(w, true),
                    Ty::Bool => BitType::BIT1,
                    other => {
                        return unsupported(
                            i.ty.span,
                            format!("registers of type {}", ty_name(self, &other)),
                        );
                    }
                };
                let size = u64::from(self.const_u32(arg(0)?, "a register size")?);
                if size > MAX_CELLS {
                    return unsupported(
                        i.span,
                        format!("registers of more than {MAX_CELLS} cells"),
                    );
                }
                self.registers.push(RegisterIr { name, size, ty });
                Ok(Val::Extern(ExternInst::Register(
                    self.registers.len() as u32 - 1,
                )))
            }
            "counter" | "direct_counter" => {
                self.counter_instance(i, name, base.as_str() == "direct_counter")
            }
            "meter" | "direct_meter" => {
                let direct = base.as_str() == "direct_meter";
                nargs(if direct { 1 } else { 2 })?;
                let size = if direct {
                    0
                } else {
                    u64::from(self.const_u32(arg(0)?, "a meter size")?)
                };
                if size > MAX_CELLS {
                    return unsupported(i.span, format!("meters of more than {MAX_CELLS} cells"));
                }
                let kind_e = arg(if direct { 0 } else { 1 })?;
                let bytes = self.enum_member_name(kind_e)? == "bytes";
                self.meters.push(MeterIr {
                    name,
                    size,
                    bytes,
                    table: None,
                });
                let id = self.meters.len() as u32 - 1;
                Ok(Val::Extern(if direct {
                    ExternInst::DirectMeter(id)
                } else {
                    ExternInst::Meter(id)
                }))
            }
            "action_profile" | "action_selector" | "Checksum16" => unsupported(
                i.span,
                format!("the `{base}` extern is not supported by p4sim"),
            ),
            _ => {
                let decl = self.globals.get(base.as_str()).and_then(|ds| {
                    ds.iter()
                        .find(|d| matches!(d, Declaration::Control(_) | Declaration::Parser(_)))
                        .copied()
                });
                match decl {
                    Some(Declaration::Control(c)) => self.instantiate_control(c, i, name),
                    Some(Declaration::Parser(p)) => {
                        if !p.type_params.is_empty() {
                            return unsupported(p.span, "generic parsers");
                        }
                        if p.ctor_params.len() != i.args.len() {
                            return err(
                                i.span,
                                format!(
                                    "`{}` takes {} constructor arguments, {} given",
                                    p.name,
                                    p.ctor_params.len(),
                                    i.args.len()
                                ),
                            );
                        }
                        self.sub_parsers.push((p, i.args.clone(), name));
                        Ok(Val::SubParser(self.sub_parsers.len() as u32 - 1))
                    }
                    _ => {
                        if self.globals.contains_key(base.as_str()) {
                            unsupported(i.ty.span, format!("instances of `{base}`"))
                        } else {
                            err(base.span, format!("unknown type `{base}`"))
                        }
                    }
                }
            }
        }
    }

    /// An indexed counter `(size, type)` or a direct one `(type)`: v1model's
    /// `counter`/`direct_counter` and TNA's `Counter`/`DirectCounter` (whose
    /// unit names are upper case).
    fn counter_instance(&mut self, i: &ast::Instantiation, name: String, direct: bool) -> Res<Val> {
        let want = if direct { 1 } else { 2 };
        if i.args.len() != want {
            let ty = match &i.ty.kind {
                ast::TypeKind::Name(p) => p.name.to_string(),
                ast::TypeKind::Specialized { base, .. } => base.name.to_string(),
                _ => "counter".to_string(),
            };
            return err(
                i.span,
                format!(
                    "`{ty}` takes {want} constructor arguments, {} given",
                    i.args.len()
                ),
            );
        }
        let size = if direct {
            0
        } else {
            u64::from(self.const_u32(&i.args[0].value, "a counter size")?)
        };
        if size > MAX_CELLS {
            return unsupported(i.span, format!("counters of more than {MAX_CELLS} cells"));
        }
        let unit = match self
            .enum_member_name(&i.args[want - 1].value)?
            .to_ascii_lowercase()
            .as_str()
        {
            "packets" => CounterUnit::Packets,
            "bytes" => CounterUnit::Bytes,
            _ => CounterUnit::PacketsAndBytes,
        };
        self.counters.push(CounterIr {
            name,
            size,
            unit,
            table: None,
        });
        let id = self.counters.len() as u32 - 1;
        Ok(Val::Extern(if direct {
            ExternInst::DirectCounter(id)
        } else {
            ExternInst::Counter(id)
        }))
    }

    fn enum_member_name(&mut self, e: &ast::Expr) -> Res<String> {
        match &e.kind {
            ExprKind::Member { member, .. } => Ok(member.to_string()),
            _ => err(
                e.span,
                "expected an enum member such as CounterType.packets",
            ),
        }
    }

    fn instantiate_control(
        &mut self,
        c: &ast::ControlDecl,
        i: &ast::Instantiation,
        name: String,
    ) -> Res<Val> {
        if self.depth > 32 {
            return err(i.span, "controls instantiate each other too deeply");
        }
        if !c.type_params.is_empty() {
            return unsupported(c.span, "generic controls");
        }
        // resolve ctor arguments in the current scope first
        if c.ctor_params.len() != i.args.len() {
            return err(
                i.span,
                format!(
                    "`{}` takes {} constructor arguments, {} given",
                    c.name,
                    c.ctor_params.len(),
                    i.args.len()
                ),
            );
        }
        let mut ctor_vals = Vec::new();
        for (p, a) in c.ctor_params.iter().zip(&i.args) {
            let t = self.resolve_type(&p.ty)?;
            let v = self.expr(&a.value)?;
            let v = if self.scalar_bt(&t).is_some() {
                Val::Scalar(self.coerce(v, &t, a.value.span)?, t)
            } else {
                v
            };
            ctor_vals.push(v);
        }
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let saved_prefix = std::mem::replace(&mut self.prefix, name);
        let saved_kind = self.block_kind;
        let saved_ret = self.ret_place.take();
        self.depth += 1;
        let r = (|| -> Res<Val> {
            for (p, v) in c.ctor_params.iter().zip(ctor_vals) {
                self.bind(&p.name, v)?;
            }
            let mut params = Vec::new();
            let mut names = Vec::new();
            for p in &c.params {
                let t = self.resolve_type(&p.ty)?;
                if matches!(t, Ty::PacketIn | Ty::PacketOut) {
                    return unsupported(p.span, "packet parameters of sub-controls");
                }
                let pl = self.alloc(&t);
                self.bind(&p.name, Val::Place(pl.clone(), t.clone()))?;
                params.push((p.direction, pl, t));
                names.push(p.name.to_string());
            }
            self.block_kind = BlockKind::Control;
            let body = self.control_body(c)?;
            self.bodies.push(body);
            self.controls.push(ControlInst {
                body: self.bodies.len() as u32 - 1,
                params,
                names,
            });
            Ok(Val::Control(self.controls.len() as u32 - 1))
        })();
        self.depth -= 1;
        self.scopes = saved_scopes;
        self.prefix = saved_prefix;
        self.block_kind = saved_kind;
        self.ret_place = saved_ret;
        r
    }

    fn lower_action(&mut self, a: &ast::ActionDecl) -> Res<u32> {
        let name = self.fq_name(&a.name, &a.annotations);
        self.scopes.push(HashMap::new());
        let saved_kind = self.block_kind;
        self.block_kind = BlockKind::Control;
        let r = (|| -> Res<u32> {
            let mut params = Vec::new();
            let mut decl_params = Vec::new();
            let pre = Vec::new();
            let mut seen_cp = false;
            for p in &a.params {
                let t = self.resolve_type(&p.ty)?;
                let control_plane = p.direction == ast::Direction::None;
                // a header or struct can be passed in, out or inout (never
                // by the control plane); it is not a ParamIr, which lists
                // scalar slots
                let b = match self.scalar_bt(&t) {
                    Some(b) => Some(b),
                    None if !control_plane && matches!(t, Ty::Struct(_)) => None,
                    None => {
                        return unsupported(
                            p.ty.span,
                            format!(
                                "{}action parameters of type {}",
                                if control_plane { "directionless " } else { "" },
                                ty_name(self, &t)
                            ),
                        );
                    }
                };
                if control_plane {
                    seen_cp = true;
                } else if seen_cp {
                    return err(p.span, "directionless action parameters must come last");
                }
                let pl = self.alloc(&t);
                decl_params.push((p.direction, pl.clone(), t.clone(), p.name.to_string()));
                if let Some(b) = b {
                    let slot = if is_wide(b.width()) { pl.w } else { pl.n };
                    params.push(ParamIr {
                        name: p.name.to_string(),
                        ty: b,
                        slot,
                        control_plane,
                    });
                }
                self.bind(&p.name, Val::Place(pl, t))?;
            }
            let mut body = pre;
            self.block(&a.body, &mut body)?;
            self.actions.push(ActionIr { name, params, body });
            let id = self.actions.len() as u32 - 1;
            self.action_params.insert(id, decl_params);
            Ok(id)
        })();
        self.block_kind = saved_kind;
        self.scopes.pop();
        r
    }

    fn lower_table(&mut self, t: &ast::TableDecl) -> Res<u32> {
        let name = self.fq_name(&t.name, &t.annotations);
        let mut keys = Vec::new();
        for k in t.key().unwrap_or(&[]) {
            let v = self.expr(&k.expr)?;
            let (ex, kt) = self.rvalue(v, k.expr.span)?;
            let Some(b) = self.scalar_bt(&kt) else {
                return err(k.expr.span, "table keys must be scalar values");
            };
            if b.width() > 128 {
                return unsupported(k.expr.span, "table key fields wider than 128 bits");
            }
            let kind = match k.match_kind.as_str() {
                "exact" => MatchKind::Exact,
                "lpm" => MatchKind::Lpm,
                "ternary" => MatchKind::Ternary,
                "range" => MatchKind::Range,
                "optional" => MatchKind::Optional,
                "selector" => {
                    return unsupported(
                        k.match_kind.span,
                        "the `selector` match kind (action selectors)",
                    );
                }
                other => return err(k.match_kind.span, format!("unknown match kind `{other}`")),
            };
            let key_name = ast::find_annotation(&k.annotations, "name")
                .and_then(|a| a.string_argument())
                .map(str::to_string)
                .unwrap_or_else(|| {
                    let text: String = self
                        .program
                        .sources
                        .snippet(k.expr.span)
                        .split_whitespace()
                        .collect();
                    // p4c names an `isValid()` key `<header>.$valid$`
                    match text.strip_suffix(".isValid()") {
                        Some(h) => format!("{h}.$valid$"),
                        None => text,
                    }
                });
            keys.push(KeyIr {
                name: key_name,
                ex,
                width: b.width(),
                kind,
            });
        }
        if keys.iter().filter(|k| k.kind == MatchKind::Lpm).count() > 1 {
            return err(t.span, "a table can have at most one lpm key");
        }
        let mut actions = Vec::new();
        for a in t.actions().unwrap_or(&[]) {
            let v = self.lookup(&a.name)?;
            let Val::Action(id) = v else {
                return err(
                    a.name.name.span,
                    format!("`{}` is not an action", a.name.name),
                );
            };
            if actions
                .iter()
                .any(|x: &TableAction| self.unbound(x.action) == id)
            {
                return err(a.span, format!("action `{}` is listed twice", a.name.name));
            }
            let id = if a.args.is_empty() {
                id
            } else {
                self.bind_action_args(id, a)?
            };
            actions.push(TableAction {
                action: id,
                default_only: ast::find_annotation(&a.annotations, "defaultonly").is_some(),
                table_only: ast::find_annotation(&a.annotations, "tableonly").is_some(),
            });
        }
        if t.actions().is_none() {
            return err(
                t.name.span,
                format!("table `{}` has no `actions` property", t.name),
            );
        }
        let default_action;
        let mut default_const = false;
        if let Some((a, is_const)) = t.default_action() {
            default_const = is_const;
            let (pos, args) = self.table_action_call(&actions, a, true)?;
            if actions[pos].table_only {
                return err(a.span, "a @tableonly action cannot be the default action");
            }
            default_action = Some((pos, args));
        } else {
            // no `default_action`: NoAction, as p4c makes it
            default_action = actions
                .iter()
                .position(|a| {
                    self.actions
                        .get(a.action as usize)
                        .is_some_and(|x| x.name == "NoAction")
                })
                .map(|pos| (pos, Vec::new()));
        }
        let mut const_entries = Vec::new();
        let mut entries_const = false;
        if let Some((entries, is_const)) = t.entries() {
            entries_const = is_const;
            let n = entries.len() as i64;
            for (i, e) in entries.iter().enumerate() {
                let keysets: Vec<ast::Keyset> = if e.keys.len() == 1
                    && keys.len() != 1
                    && matches!(
                        e.keys[0],
                        ast::Keyset::Default(_) | ast::Keyset::DontCare(_)
                    ) {
                    vec![e.keys[0].clone(); keys.len()]
                } else {
                    e.keys.clone()
                };
                if keysets.len() != keys.len() {
                    return err(
                        e.span,
                        format!(
                            "the table has {} keys but this entry has {}",
                            keys.len(),
                            keysets.len()
                        ),
                    );
                }
                let mut km = Vec::new();
                for (k, ks) in keys.iter().zip(&keysets) {
                    km.push(self.entry_key(k, ks, e.span)?);
                }
                let priority = match (
                    &e.priority,
                    ast::find_annotation(&e.annotations, "priority"),
                ) {
                    (Some(p), _) => i64::from(self.const_u32(p, "an entry priority")?),
                    (None, Some(a)) => match a.integer_argument().and_then(|l| l.to_u128()) {
                        Some(v) => v as i64,
                        None => return err(a.span, "@priority needs an integer"),
                    },
                    (None, None) => n - i as i64,
                };
                let (pos, args) = self.table_action_call(&actions, &e.action, true)?;
                if actions[pos].default_only {
                    return err(
                        e.action.span,
                        "a @defaultonly action cannot be used in an entry",
                    );
                }
                const_entries.push(EntryIr {
                    keys: km,
                    priority,
                    action: pos,
                    args,
                });
            }
        }
        let mut size = 1024;
        let mut direct_counter = None;
        let mut direct_meter = None;
        for p in &t.properties {
            let ast::TablePropertyKind::Other { name: pn, value } = &p.kind else {
                continue;
            };
            match pn.as_str() {
                "size" => size = u64::from(self.const_u32(value, "a table size")?),
                "counters" => match self.expr(value)? {
                    Val::Extern(ExternInst::DirectCounter(c)) => direct_counter = Some(c),
                    _ => return err(value.span, "`counters` must name a direct_counter"),
                },
                "meters" => match self.expr(value)? {
                    Val::Extern(ExternInst::DirectMeter(m)) => direct_meter = Some(m),
                    _ => return err(value.span, "`meters` must name a direct_meter"),
                },
                "implementation" => {
                    return unsupported(
                        value.span,
                        "table implementations (action profiles and selectors)",
                    );
                }
                "support_timeout" | "psa_direct_counter" | "psa_direct_meter" => {}
                other => {
                    return unsupported(pn.span, format!("table property `{other}`"));
                }
            }
        }
        let id = self.tables.len() as u32;
        if let Some(ci) = direct_counter.and_then(|c| self.counters.get_mut(c as usize)) {
            if ci.table.is_some() {
                return err(t.span, "a direct_counter can belong to one table only");
            }
            ci.table = Some(id);
            ci.size = size;
        }
        if let Some(mi) = direct_meter.and_then(|m| self.meters.get_mut(m as usize)) {
            if mi.table.is_some() {
                return err(t.span, "a direct_meter can belong to one table only");
            }
            mi.table = Some(id);
            mi.size = size;
        }
        self.tables.push(TableIr {
            name,
            keys,
            actions,
            default_action,
            default_const,
            const_entries,
            entries_const,
            size,
            direct_counter,
            direct_meter,
        });
        Ok(id)
    }

    fn entry_key(&mut self, k: &KeyIr, ks: &ast::Keyset, span: Span) -> Res<KeyMatch> {
        let t = Ty::Bit(k.width);
        let full = if k.width >= 128 {
            u128::MAX
        } else {
            (1u128 << k.width) - 1
        };
        let val = |c: &mut Self, e: &ast::Expr| -> Res<u128> {
            let v = c.expr(e)?;
            let v = match v {
                Val::Scalar(ex, Ty::Bool) => Val::Scalar(ex, Ty::Bit(1)),
                Val::Scalar(ex, Ty::Enum(_))
                | Val::Scalar(ex, Ty::Error)
                | Val::Scalar(ex, Ty::Int(_)) => Val::Scalar(ex, t.clone()),
                v => v,
            };
            let ex = c.coerce(v, &t, e.span)?;
            match ex {
                Ex::Const(v) => Ok(u128::from(v)),
                Ex::ConstW(b) => Ok(b.low_u128()),
                _ => err(e.span, "entry keys must be compile-time constants"),
            }
        };
        Ok(match ks {
            ast::Keyset::Default(_) | ast::Keyset::DontCare(_) => match k.kind {
                MatchKind::Exact => return err(span, "an exact key cannot be `_` or `default`"),
                MatchKind::Range => KeyMatch::Range(0, full),
                _ => KeyMatch::Masked(0, 0),
            },
            ast::Keyset::Expr(e) => {
                let v = val(self, e)?;
                match k.kind {
                    MatchKind::Range => KeyMatch::Range(v, v),
                    _ => KeyMatch::Masked(v, full),
                }
            }
            ast::Keyset::Mask { value, mask: m } => {
                if matches!(
                    k.kind,
                    MatchKind::Exact | MatchKind::Range | MatchKind::Optional
                ) {
                    return err(
                        span,
                        format!("a mask cannot be used with a {} key", k.kind.name()),
                    );
                }
                let v = val(self, value)?;
                let m = val(self, m)?;
                if k.kind == MatchKind::Lpm {
                    let ones = m.count_ones();
                    let low = if k.width - ones >= 128 {
                        u128::MAX
                    } else {
                        (1u128 << (k.width - ones)) - 1
                    };
                    if ones > k.width || m != full & !low {
                        return err(span, "an lpm mask must be a prefix");
                    }
                }
                KeyMatch::Masked(v & m, m)
            }
            ast::Keyset::Range { lo, hi } => {
                if k.kind != MatchKind::Range {
                    return err(
                        span,
                        format!("a range cannot be used with a {} key", k.kind.name()),
                    );
                }
                KeyMatch::Range(val(self, lo)?, val(self, hi)?)
            }
        })
    }

    /// Resolves `action(args)` in a table's default or entry: its position
    /// in the table's action list and the control-plane argument values.
    /// The action a table's action `id` runs: itself, or the one it binds.
    fn unbound(&self, id: u32) -> u32 {
        self.bound_actions.get(&id).copied().unwrap_or(id)
    }

    /// `a(args)` in a table's `actions` list: an action with the same name
    /// and control-plane parameters whose body passes `args` to `a`'s
    /// directional parameters (evaluated when the action runs, copied
    /// back after it) and runs `a`.
    fn bind_action_args(&mut self, id: u32, a: &ast::ActionRef) -> Res<u32> {
        let info = self.action_params.get(&id).cloned().unwrap_or_default();
        let (directional, plane): (Vec<_>, Vec<_>) = info
            .into_iter()
            .partition(|(d, ..)| *d != ast::Direction::None);
        if a.args.len() != directional.len() {
            return err(
                a.span,
                format!(
                    "action `{}` has {} directional parameters; the actions list binds {}",
                    a.name.name,
                    directional.len(),
                    a.args.len()
                ),
            );
        }
        let params: Vec<(ast::Direction, Place, Ty)> = directional
            .iter()
            .map(|(d, p, t, _)| (*d, p.clone(), t.clone()))
            .collect();
        let names: Vec<String> = directional.iter().map(|x| x.3.clone()).collect();
        let orig = self.actions[id as usize].clone();
        let what = format!("action `{}`", orig.name);
        let body =
            self.call_with_params(&params, &names, &a.args, &what, a.span, St::RunAction(id))?;
        self.actions.push(ActionIr {
            name: orig.name,
            params: orig
                .params
                .into_iter()
                .filter(|p| p.control_plane)
                .collect(),
            body,
        });
        let bound = self.actions.len() as u32 - 1;
        self.action_params.insert(bound, plane);
        self.bound_actions.insert(bound, id);
        Ok(bound)
    }

    fn table_action_call(
        &mut self,
        actions: &[TableAction],
        a: &ast::ActionRef,
        require_all: bool,
    ) -> Res<(usize, Vec<ArgValue>)> {
        let v = self.lookup(&a.name)?;
        let Val::Action(id) = v else {
            return err(
                a.name.name.span,
                format!("`{}` is not an action", a.name.name),
            );
        };
        let Some(pos) = actions.iter().position(|x| self.unbound(x.action) == id) else {
            return err(
                a.name.name.span,
                format!(
                    "action `{}` is not in the table's actions list",
                    a.name.name
                ),
            );
        };
        // the action the table runs (made by `bind_action_args` when the
        // actions list binds arguments)
        let id = actions[pos].action;
        let params: Vec<ParamIr> = self.actions[id as usize].params.clone();
        let cp: Vec<&ParamIr> = params.iter().filter(|p| p.control_plane).collect();
        let declared = self.action_params.get(&id).map_or(0, Vec::len);
        if declared != cp.len() {
            return unsupported(a.span, "actions with directional parameters in tables");
        }
        // `default_action = a(bound..., values...)` repeats the arguments the
        // actions list bound; entries give the values only
        let skip = match self.bound_actions.get(&id) {
            Some(&orig) if a.args.len() > cp.len() => {
                let bound = self
                    .action_params
                    .get(&orig)
                    .map_or(0, |ps| ps.len() - cp.len());
                if a.args.len() != bound + cp.len() {
                    return err(
                        a.span,
                        format!(
                            "action `{}` takes {} arguments after the {bound} the actions list \
                             binds, {} given",
                            a.name.name,
                            cp.len(),
                            a.args.len().saturating_sub(bound)
                        ),
                    );
                }
                bound
            }
            _ => 0,
        };
        if require_all && a.args.len() - skip != cp.len() {
            return err(
                a.span,
                format!(
                    "action `{}` takes {} arguments, {} given",
                    a.name.name,
                    cp.len(),
                    a.args.len()
                ),
            );
        }
        let mut args = Vec::new();
        for (p, arg) in cp.iter().zip(&a.args[skip..]) {
            let t = if p.ty.is_signed() {
                Ty::Int(p.ty.width())
            } else {
                Ty::Bit(p.ty.width())
            };
            let v = self.expr(&arg.value)?;
            let v = match v {
                Val::Scalar(ex, Ty::Bool) if p.ty.width() == 1 => Val::Scalar(ex, Ty::Bit(1)),
                v => v,
            };
            let ex = self.coerce(v, &t, arg.value.span)?;
            args.push(match ex {
                Ex::Const(c) => ArgValue::N(c),
                Ex::ConstW(b) => ArgValue::W(b),
                _ => return err(arg.value.span, "action arguments here must be constants"),
            });
        }
        Ok((pos, args))
    }

    // ---- statements ----------------------------------------------------

    fn block(&mut self, b: &ast::Block, out: &mut Vec<St>) -> Res<()> {
        self.scopes.push(HashMap::new());
        let r = (|| {
            for s in &b.statements {
                self.stmt(s, out)?;
            }
            Ok(())
        })();
        self.scopes.pop();
        r
    }

    fn stmt(&mut self, s: &ast::Statement, out: &mut Vec<St>) -> Res<()> {
        match &s.kind {
            ast::StatementKind::Empty => Ok(()),
            ast::StatementKind::Block(b) => {
                let mut inner = Vec::new();
                self.block(b, &mut inner)?;
                out.push(St::Block(inner));
                Ok(())
            }
            ast::StatementKind::Declaration(d) => match &**d {
                Declaration::Constant(_) | Declaration::Variable(_) => self.local_decl(d, out),
                other => unsupported(other.span(), "this declaration inside a block"),
            },
            ast::StatementKind::Assign { lhs, op, rhs } => {
                if let ExprKind::Slice { base, hi, lo } = &lhs.kind {
                    let b = self.expr(base)?;
                    if let Val::Place(p, t) = b {
                        let hi = self.const_u32(hi, "a slice bound")?;
                        let lo = self.const_u32(lo, "a slice bound")?;
                        let value = match op {
                            None => self.expr(rhs)?,
                            Some(op) => {
                                let cur = self.expr(lhs)?;
                                let r = self.expr(rhs)?;
                                self.binary(*op, cur, r, s.span)?
                            }
                        };
                        return self.assign_slice(&p, &t, hi, lo, value, lhs.span, rhs.span, out);
                    }
                }
                let target = self.expr(lhs)?;
                let value = match op {
                    None => self.expr(rhs)?,
                    Some(op) => {
                        let cur = target.clone();
                        let r = self.expr(rhs)?;
                        self.binary(*op, cur, r, s.span)?
                    }
                };
                self.assign_to(target, value, lhs.span, rhs.span, out)
            }
            ast::StatementKind::Call(e) => {
                let v = self.expr(e)?;
                match v {
                    Val::Effect(sts) | Val::Returned(sts, ..) => out.extend(sts),
                    Val::TableResult(t) => out.push(St::Apply(t)),
                    Val::Scalar(ex, _) => out.push(St::If(ex, Vec::new(), Vec::new())),
                    Val::Place(..) | Val::Int(_) => {}
                    _ => return err(e.span, "this expression is not a call"),
                }
                Ok(())
            }
            ast::StatementKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let c = self.coerce(c, &Ty::Bool, cond.span)?;
                let mut a = Vec::new();
                self.scopes.push(HashMap::new());
                let r = self.stmt(then, &mut a);
                self.scopes.pop();
                r?;
                let mut b = Vec::new();
                if let Some(o) = otherwise {
                    self.scopes.push(HashMap::new());
                    let r = self.stmt(o, &mut b);
                    self.scopes.pop();
                    r?;
                }
                match c {
                    Ex::Const(1) => out.push(St::Block(a)),
                    Ex::Const(_) => out.push(St::Block(b)),
                    c => out.push(St::If(c, a, b)),
                }
                Ok(())
            }
            ast::StatementKind::Switch { expr, cases } => self.switch(expr, cases, s.span, out),
            ast::StatementKind::Exit => {
                if self.block_kind == BlockKind::Parser {
                    return err(s.span, "`exit` is not allowed in a parser");
                }
                out.push(St::Exit);
                Ok(())
            }
            ast::StatementKind::Return(e) => {
                if self.block_kind == BlockKind::Parser {
                    return err(s.span, "`return` is not allowed in a parser");
                }
                match (e, self.ret_place.clone()) {
                    (Some(e), Some((p, t))) => {
                        let v = self.expr(e)?;
                        self.assign(&p, &t, v, e.span, out)?;
                    }
                    (Some(e), None) => return err(e.span, "a value cannot be returned here"),
                    (None, Some(_)) => return err(s.span, "this function must return a value"),
                    (None, None) => {}
                }
                out.push(St::Return);
                Ok(())
            }
        }
    }

    fn switch(
        &mut self,
        e: &ast::Expr,
        cases: &[ast::SwitchCase],
        span: Span,
        out: &mut Vec<St>,
    ) -> Res<()> {
        // group fall-through labels with the next body
        let mut groups: Vec<(Vec<&ast::SwitchLabel>, Option<&ast::Block>)> = Vec::new();
        let mut pending = Vec::new();
        for c in cases {
            pending.push(&c.label);
            if let Some(b) = &c.body {
                groups.push((std::mem::take(&mut pending), Some(b)));
            }
        }
        if !pending.is_empty() {
            groups.push((pending, None));
        }
        let is_action_run =
            matches!(&e.kind, ExprKind::Member { member, .. } if member.as_str() == "action_run");
        if is_action_run {
            let ExprKind::Member { base, .. } = &e.kind else {
                return err(e.span, "expected t.apply().action_run");
            };
            let Val::TableResult(t) = self.expr(base)? else {
                return err(e.span, "`action_run` needs a table.apply() call");
            };
            let table_actions: Vec<u32> = self.tables[t as usize]
                .actions
                .iter()
                .map(|a| a.action)
                .collect();
            let mut bodies: Vec<Option<Vec<St>>> = vec![None; table_actions.len()];
            let mut default = Vec::new();
            for (labels, body) in groups {
                let mut lowered = Vec::new();
                if let Some(b) = body {
                    self.block(b, &mut lowered)?;
                }
                for l in labels {
                    match l {
                        ast::SwitchLabel::Default(_) => default = lowered.clone(),
                        ast::SwitchLabel::Expr(le) => {
                            let ExprKind::Name(p) = &le.kind else {
                                return err(
                                    le.span,
                                    "switch labels on action_run must be action names",
                                );
                            };
                            let Val::Action(a) = self.lookup(p)? else {
                                return err(le.span, format!("`{}` is not an action", p.name));
                            };
                            let Some(pos) = table_actions.iter().position(|&x| x == a) else {
                                return err(
                                    le.span,
                                    format!("action `{}` is not an action of this table", p.name),
                                );
                            };
                            if bodies[pos].is_some() {
                                return err(
                                    le.span,
                                    format!("duplicate switch label `{}`", p.name),
                                );
                            }
                            bodies[pos] = Some(lowered.clone());
                        }
                    }
                }
            }
            out.push(St::SwitchAction(t, bodies, default));
            return Ok(());
        }
        let v = self.expr(e)?;
        let (sel, t) = self.rvalue(v, e.span)?;
        match self.scalar_bt(&t) {
            Some(b) if !is_wide(b.width()) && t != Ty::Bool => {}
            _ => {
                return unsupported(
                    span,
                    format!("switch on a value of type {}", ty_name(self, &t)),
                );
            }
        }
        let mut arms = Vec::new();
        let mut default = Vec::new();
        for (labels, body) in groups {
            let mut lowered = Vec::new();
            if let Some(b) = body {
                self.block(b, &mut lowered)?;
            }
            let mut values = Vec::new();
            let mut is_default = false;
            for l in labels {
                match l {
                    ast::SwitchLabel::Default(_) => is_default = true,
                    ast::SwitchLabel::Expr(le) => {
                        let lv = self.expr(le)?;
                        match self.coerce(lv, &t, le.span)? {
                            Ex::Const(c) => values.push(c),
                            _ => return err(le.span, "switch labels must be constants"),
                        }
                    }
                }
            }
            if is_default {
                default = lowered.clone();
            }
            arms.push((values, lowered));
        }
        out.push(St::Switch(sel, arms, default));
        Ok(())
    }

    fn store(&self, p: &Place, t: &Ty, ex: Ex) -> St {
        let wide = self.size(t) == (0, 1);
        match (&p.dynamic, wide) {
            (None, false) => St::Set(p.n, ex),
            (None, true) => St::SetW(p.w, ex),
            (Some(d), false) => St::SetDyn(d.clone(), p.n, ex),
            (Some(d), true) => St::SetDynW(d.clone(), p.w, ex),
        }
    }

    fn load(&self, p: &Place, t: &Ty) -> Ex {
        let b = self.scalar_bt(t).unwrap_or(BitType::BIT1);
        let wide = is_wide(b.width());
        match (&p.dynamic, wide) {
            (None, false) => Ex::Load(p.n),
            (None, true) => Ex::LoadW(p.w),
            (Some(d), false) => Ex::LoadDyn(d.clone(), p.n),
            (Some(d), true) => Ex::LoadDynW(d.clone(), p.w, b),
        }
    }

    fn target(&self, p: &Place, t: &Ty) -> Target {
        let b = self.scalar_bt(t).unwrap_or(BitType::BIT1);
        match (&p.dynamic, is_wide(b.width())) {
            (None, false) => Target::N(p.n, b.width()),
            (None, true) => Target::W(p.w, b),
            (Some(d), false) => Target::DynN(d.clone(), p.n, b.width()),
            (Some(d), true) => Target::DynW(d.clone(), p.w, b),
        }
    }

    fn assign_to(
        &mut self,
        target: Val,
        value: Val,
        lspan: Span,
        rspan: Span,
        out: &mut Vec<St>,
    ) -> Res<()> {
        match target {
            Val::Place(p, t) => self.assign(&p, &t, value, rspan, out),
            Val::Scalar(Ex::Slice(hi, lo, base), _) => {
                // slice assignment: read-modify-write of the sliced place
                let Ex::Load(slot) = *base else {
                    return unsupported(lspan, "assignment to a slice of this expression");
                };
                let w = hi - lo + 1;
                let v = self.coerce(value, &Ty::Bit(w), rspan)?;
                let m = mask(w) << lo;
                let full = mask(64);
                let new = Ex::Bin(
                    NOp::Or,
                    64,
                    Box::new((
                        Ex::Bin(
                            NOp::And,
                            64,
                            Box::new((Ex::Load(slot), Ex::Const(!m & full))),
                        ),
                        Ex::Bin(
                            NOp::And,
                            64,
                            Box::new((
                                Ex::Bin(NOp::Shl, 64, Box::new((v, Ex::Const(u64::from(lo))))),
                                Ex::Const(m),
                            )),
                        ),
                    )),
                );
                out.push(St::Set(slot, new));
                Ok(())
            }
            _ => err(lspan, "this expression cannot be assigned to"),
        }
    }

    /// `place[hi:lo] = value`: a read-modify-write of any scalar place —
    /// narrow or wide, in a header stack element chosen at run time (whose
    /// index is then evaluated for the read and again for the write, so it
    /// must not call anything).
    #[allow(clippy::too_many_arguments)]
    fn assign_slice(
        &mut self,
        p: &Place,
        t: &Ty,
        hi: u32,
        lo: u32,
        value: Val,
        lspan: Span,
        rspan: Span,
        out: &mut Vec<St>,
    ) -> Res<()> {
        let (width, signed) = match t {
            Ty::Bit(w) => (*w, false),
            Ty::Int(w) => (*w, true),
            _ => {
                return err(
                    lspan,
                    format!("cannot slice a value of type {}", ty_name(self, t)),
                );
            }
        };
        if hi < lo || hi >= width {
            return err(
                lspan,
                format!("slice [{hi}:{lo}] is out of range for a value of width {width}"),
            );
        }
        if let Some(d) = &p.dynamic
            && format!("{:?}", d.index).contains("Seq(")
        {
            return unsupported(
                lspan,
                "assignment to a slice of a stack element whose index calls a function",
            );
        }
        let w = hi - lo + 1;
        let v = self.coerce(value, &Ty::Bit(w), rspan)?;
        let old = self.load(p, t);
        let new = if !is_wide(width) {
            let m = mask(w) << lo;
            Ex::Bin(
                NOp::Or,
                64,
                Box::new((
                    Ex::Bin(NOp::And, 64, Box::new((old, Ex::Const(!m)))),
                    Ex::Bin(
                        NOp::And,
                        64,
                        Box::new((
                            Ex::Bin(NOp::Shl, 64, Box::new((v, Ex::Const(u64::from(lo))))),
                            Ex::Const(m),
                        )),
                    ),
                )),
            )
        } else {
            // the bits above, the value, the bits below, concatenated
            let mut new = if is_wide(w) {
                v
            } else {
                Ex::ToWide(bt(w, false), Box::new(v))
            };
            if hi + 1 < width {
                let top = Ex::SliceW(width - 1, hi + 1, Box::new(old.clone()));
                new = Ex::ConcatW(Box::new((top, new)));
            }
            if lo > 0 {
                let bottom = Ex::SliceW(lo - 1, 0, Box::new(old));
                new = Ex::ConcatW(Box::new((new, bottom)));
            }
            if signed {
                Ex::CastW(bt(width, true), Box::new(new))
            } else {
                new
            }
        };
        out.push(self.store(p, t, new));
        Ok(())
    }

    /// `dst = src` for a location of type `t`.
    fn assign(&mut self, dst: &Place, t: &Ty, src: Val, span: Span, out: &mut Vec<St>) -> Res<()> {
        if self.scalar_bt(t).is_some() {
            let ex = self.coerce(src, t, span)?;
            out.push(self.store(dst, t, ex));
            return Ok(());
        }
        match (t, src) {
            (_, Val::Returned(sts, p, st)) => {
                out.extend(sts);
                self.assign(dst, t, Val::Place(p, st), span, out)
            }
            (_, Val::Place(sp, st)) => {
                if &st != t {
                    return err(
                        span,
                        format!(
                            "cannot assign a value of type {} to {}",
                            ty_name(self, &st),
                            ty_name(self, t)
                        ),
                    );
                }
                if dst.dynamic.is_none() && sp.dynamic.is_none() {
                    let (n, w) = self.size(t);
                    if dst.n != sp.n || dst.w != sp.w {
                        out.push(St::Copy(Box::new(CopyOp {
                            n_dst: dst.n,
                            n_src: sp.n,
                            n_len: n,
                            w_dst: dst.w,
                            w_src: sp.w,
                            w_len: w,
                        })));
                    }
                    return Ok(());
                }
                let mut a = Vec::new();
                let mut b = Vec::new();
                self.leaves(dst, t, &mut a);
                self.leaves(&sp, t, &mut b);
                for ((dp, dt), (spl, _)) in a.into_iter().zip(b) {
                    let ex = self.load(&spl, &dt);
                    out.push(self.store(&dp, &dt, ex));
                }
                Ok(())
            }
            (Ty::Struct(i), Val::Invalid) => {
                let s = self.structs[*i as usize].clone();
                match s.kind {
                    SKind::Header => {
                        out.push(self.store(dst, &Ty::Bool, Ex::Const(0)));
                        Ok(())
                    }
                    SKind::Union => {
                        for f in &s.fields {
                            out.push(self.store(
                                &dst.offset(f.n_off, f.w_off),
                                &Ty::Bool,
                                Ex::Const(0),
                            ));
                        }
                        Ok(())
                    }
                    SKind::Struct => err(
                        span,
                        "`{#}` can only be assigned to a header or header union",
                    ),
                }
            }
            (Ty::Struct(i), Val::List(items)) => {
                let s = self.structs[*i as usize].clone();
                if s.kind == SKind::Union {
                    return unsupported(span, "initialising a header union from a list");
                }
                if items.len() != s.fields.len() {
                    return err(
                        span,
                        format!(
                            "{} has {} fields, but {} values were given",
                            s.name,
                            s.fields.len(),
                            items.len()
                        ),
                    );
                }
                if s.kind == SKind::Header {
                    out.push(self.store(dst, &Ty::Bool, Ex::Const(1)));
                }
                for (f, v) in s.fields.iter().zip(items) {
                    self.assign(&dst.offset(f.n_off, f.w_off), &f.ty, v, span, out)?;
                }
                Ok(())
            }
            (Ty::Struct(i), Val::StructInit(items)) => {
                let s = self.structs[*i as usize].clone();
                if s.kind == SKind::Union {
                    return unsupported(span, "initialising a header union");
                }
                for (n, _) in &items {
                    if !s.fields.iter().any(|f| &f.name == n) {
                        return err(span, format!("{} has no field `{n}`", s.name));
                    }
                }
                if items.len() != s.fields.len() {
                    return err(
                        span,
                        format!("every field of {} must be initialised", s.name),
                    );
                }
                if s.kind == SKind::Header {
                    out.push(self.store(dst, &Ty::Bool, Ex::Const(1)));
                }
                for (n, v) in items {
                    let Some(f) = s.fields.iter().find(|f| f.name == n) else {
                        continue;
                    };
                    self.assign(&dst.offset(f.n_off, f.w_off), &f.ty, v, span, out)?;
                }
                Ok(())
            }
            (Ty::Tuple(ts), Val::List(items)) => {
                if ts.len() != items.len() {
                    return err(span, "tuple sizes differ");
                }
                let (mut n, mut w) = (0, 0);
                for (t, v) in ts.iter().zip(items) {
                    self.assign(&dst.offset(n, w), t, v, span, out)?;
                    let (a, b) = self.size(t);
                    n = n.saturating_add(a);
                    w = w.saturating_add(b);
                }
                Ok(())
            }
            (t, v) => err(
                span,
                format!(
                    "cannot assign {} to a value of type {}",
                    self.describe(&v),
                    ty_name(self, t)
                ),
            ),
        }
    }

    fn describe(&self, v: &Val) -> String {
        match v {
            Val::Int(_) => "an integer".into(),
            Val::Scalar(_, t) | Val::Place(_, t) => format!("a value of type {}", ty_name(self, t)),
            Val::List(_) => "a list".into(),
            Val::StructInit(_) => "a struct initializer".into(),
            Val::Str(_) => "a string".into(),
            Val::Invalid => "`{#}`".into(),
            Val::Returned(..) => {
                "a function's header or struct result (which can only be assigned)".into()
            }
            _ => "this expression".into(),
        }
    }

    // ---- expressions ---------------------------------------------------

    /// A scalar value and its type (unsized constants are an error here).
    fn rvalue(&mut self, v: Val, span: Span) -> Res<(Ex, Ty)> {
        match v {
            Val::Scalar(ex, t) => Ok((ex, t)),
            Val::Place(p, t) if self.scalar_bt(&t).is_some() => {
                let ex = self.load(&p, &t);
                Ok((ex, t))
            }
            Val::Int(_) => err(
                span,
                "the width of this integer cannot be inferred; give it a type such as 8w1",
            ),
            other => err(
                span,
                format!("expected a scalar value, found {}", self.describe(&other)),
            ),
        }
    }

    /// Converts `v` to type `t` as an implicit cast allows.
    fn coerce(&mut self, v: Val, t: &Ty, span: Span) -> Res<Ex> {
        let Some(b) = self.scalar_bt(t) else {
            return err(
                span,
                format!("expected a scalar type, not {}", ty_name(self, t)),
            );
        };
        match v {
            Val::Int(i) => match t {
                Ty::Bit(_) | Ty::Int(_) => Ok(const_ex(i, b)),
                _ => err(
                    span,
                    format!(
                        "cannot use an integer where a value of type {} is expected",
                        ty_name(self, t)
                    ),
                ),
            },
            v => {
                let (ex, vt) = self.rvalue(v, span)?;
                if &vt == t {
                    return Ok(ex);
                }
                err(
                    span,
                    format!(
                        "type mismatch: expected {}, found {}",
                        ty_name(self, t),
                        ty_name(self, &vt)
                    ),
                )
            }
        }
    }

    fn expr(&mut self, e: &ast::Expr) -> Res<Val> {
        self.depth += 1;
        if self.depth > 400 {
            self.depth -= 1;
            return err(e.span, "expression nests too deeply");
        }
        let r = self.expr_inner(e);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, e: &ast::Expr) -> Res<Val> {
        match &e.kind {
            ExprKind::Bool(b) => Ok(Val::Scalar(Ex::Const(u64::from(*b)), Ty::Bool)),
            ExprKind::Int(lit) => self.int_literal(lit, e.span),
            ExprKind::String(s) => Ok(Val::Str(s.clone())),
            ExprKind::Name(p) => self.lookup(p),
            ExprKind::This => {
                for s in self.scopes.iter().rev() {
                    if let Some(v) = s.get("this") {
                        return Ok(v.clone());
                    }
                }
                unsupported(e.span, "`this` outside a RegisterAction's apply")
            }
            ExprKind::DontCare => Ok(Val::DontCare),
            ExprKind::Member { base, member } => {
                let b = self.expr(base)?;
                self.member(b, member, e.span)
            }
            ExprKind::Index { base, index } => {
                let b = self.expr(base)?;
                self.index(b, index, e.span)
            }
            ExprKind::Slice { base, hi, lo } => {
                let b = self.expr(base)?;
                let hi_v = self.const_u32(hi, "a slice bound")?;
                let lo_v = self.const_u32(lo, "a slice bound")?;
                self.slice(b, hi_v, lo_v, e.span)
            }
            ExprKind::Call {
                callee,
                type_args,
                args,
            } => self.call(callee, type_args, args, e.span),
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand)?;
                self.unary(*op, v, e.span)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                self.binary(*op, l, r, e.span)
            }
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let c = self.coerce(c, &Ty::Bool, cond.span)?;
                let a = self.expr(then)?;
                let b = self.expr(otherwise)?;
                if let Ex::Const(c) = c {
                    return Ok(if c != 0 { a } else { b });
                }
                let (a, b, t) = self.unify(a, b, e.span)?;
                let wide = self.scalar_bt(&t).is_some_and(|b| is_wide(b.width()));
                Ok(Val::Scalar(
                    if wide {
                        Ex::CondW(Box::new((c, a, b)))
                    } else {
                        Ex::Cond(Box::new((c, a, b)))
                    },
                    t,
                ))
            }
            ExprKind::Cast { ty, expr } => {
                let t = self.resolve_type(ty)?;
                let v = self.expr(expr)?;
                self.cast(v, &t, e.span)
            }
            ExprKind::List { items, dots } => {
                if *dots {
                    return unsupported(e.span, "`...` in initializers");
                }
                let mut out = Vec::new();
                for i in items {
                    out.push(self.expr(i)?);
                }
                Ok(Val::List(out))
            }
            ExprKind::StructInit { fields, dots } => {
                if *dots {
                    return unsupported(e.span, "`...` in initializers");
                }
                let mut out = Vec::new();
                for f in fields {
                    let v = self.expr(&f.value)?;
                    out.push((f.name.name.clone(), v));
                }
                Ok(Val::StructInit(out))
            }
            ExprKind::InvalidHeader => Ok(Val::Invalid),
            ExprKind::Type(t) => Ok(Val::Type(self.resolve_type(t)?)),
        }
    }

    fn int_literal(&mut self, lit: &ast::IntLiteral, span: Span) -> Res<Val> {
        let mag = &lit.magnitude;
        match lit.width {
            None => {
                if mag.len() > 15 {
                    return unsupported(span, "unsized integer constants of more than 120 bits");
                }
                let v = mag.iter().fold(0i128, |a, &b| (a << 8) | i128::from(b));
                Ok(Val::Int(v))
            }
            Some(w) => {
                if w > crate::bits::MAX_WIDTH {
                    return err(span, format!("width {w} is too large"));
                }
                if w == 0 && lit.signed {
                    return err(span, "int<0> is not a valid type");
                }
                let b = bt(w, lit.signed);
                let needed = match mag.first() {
                    Some(x) => mag.len() as u64 * 8 - u64::from(x.leading_zeros()),
                    None => 0,
                };
                if needed > u64::from(w) {
                    return err(span, format!("value does not fit in {w} bits"));
                }
                let t = if lit.signed { Ty::Int(w) } else { Ty::Bit(w) };
                let v = Bits::from_be_bytes(b, mag);
                Ok(Val::Scalar(bits_ex(v), t))
            }
        }
    }

    fn member(&mut self, b: Val, m: &ast::Ident, span: Span) -> Res<Val> {
        let name = m.as_str();
        match b {
            Val::Returned(..) => unsupported(
                span,
                format!(
                    "`.{name}` of a function's header or struct result: assign the result \
                     to a variable first"
                ),
            ),
            Val::ErrorNs => match self.errors.iter().position(|e| e == name) {
                Some(i) => Ok(Val::Scalar(Ex::Const(i as u64), Ty::Error)),
                None => err(m.span, format!("`error.{name}` is not declared")),
            },
            Val::Type(Ty::Enum(i)) => {
                let e = &self.enums[i as usize];
                match e.members.iter().find(|(n, _)| n.as_ref() == name) {
                    Some((_, v)) => Ok(Val::Scalar(Ex::Const(*v), Ty::Enum(i))),
                    None => err(m.span, format!("enum {} has no member `{name}`", e.name)),
                }
            }
            Val::Place(p, Ty::Struct(i)) => {
                let s = &self.structs[i as usize];
                if let Some(f) = s.fields.iter().find(|f| f.name.as_ref() == name) {
                    return Ok(Val::Place(p.offset(f.n_off, f.w_off), f.ty.clone()));
                }
                match (s.kind, name) {
                    (SKind::Header, "isValid" | "setValid" | "setInvalid")
                    | (SKind::Union, "isValid") => Ok(Val::Method(
                        Box::new(Val::Place(p, Ty::Struct(i))),
                        m.clone(),
                    )),
                    (
                        _,
                        "minSizeInBits" | "minSizeInBytes" | "maxSizeInBits" | "maxSizeInBytes",
                    ) => Ok(Val::Method(
                        Box::new(Val::Place(p, Ty::Struct(i))),
                        m.clone(),
                    )),
                    _ => err(m.span, format!("{} has no field `{name}`", s.name)),
                }
            }
            Val::Place(p, Ty::Stack(e, count)) => {
                let (en, ew) = self.size(&e);
                let next_index = p.n.saturating_add(en.saturating_mul(count));
                if p.dynamic.is_some() {
                    return unsupported(span, "nested header stacks");
                }
                match name {
                    "size" => Ok(Val::Scalar(Ex::Const(u64::from(count)), Ty::Bit(32))),
                    "nextIndex" => Ok(Val::Scalar(Ex::Load(next_index), Ty::Bit(32))),
                    "lastIndex" => Ok(Val::Scalar(
                        Ex::Bin(NOp::Sub, 32, Box::new((Ex::Load(next_index), Ex::Const(1)))),
                        Ty::Bit(32),
                    )),
                    "next" | "last" => {
                        if name == "next" && self.block_kind != BlockKind::Parser {
                            return err(m.span, "`next` can only be used in a parser");
                        }
                        if name == "next" {
                            return Ok(Val::StackNext(p, Ty::Stack(e, count)));
                        }
                        let index =
                            Ex::Bin(NOp::Sub, 32, Box::new((Ex::Load(next_index), Ex::Const(1))));
                        Ok(Val::Place(
                            Place {
                                n: 0,
                                w: 0,
                                dynamic: Some(Box::new(Dyn {
                                    index,
                                    base_n: p.n,
                                    base_w: p.w,
                                    stride_n: en,
                                    stride_w: ew,
                                    count,
                                })),
                            },
                            *e,
                        ))
                    }
                    "push_front" | "pop_front" => Ok(Val::Method(
                        Box::new(Val::Place(p, Ty::Stack(e, count))),
                        m.clone(),
                    )),
                    _ => err(m.span, format!("header stacks have no member `{name}`")),
                }
            }
            Val::StackNext(p, t) => {
                // `hdr.stack.next.field` in a parser: the element at nextIndex
                let Ty::Stack(e, count) = &t else {
                    return err(span, "internal: stack");
                };
                let (en, ew) = self.size(e);
                let dynp = Place {
                    n: 0,
                    w: 0,
                    dynamic: Some(Box::new(Dyn {
                        index: Ex::Load(p.n.saturating_add(en.saturating_mul(*count))),
                        base_n: p.n,
                        base_w: p.w,
                        stride_n: en,
                        stride_w: ew,
                        count: *count,
                    })),
                };
                self.member(Val::Place(dynp, (**e).clone()), m, span)
            }
            Val::TableResult(t) => match name {
                "hit" => Ok(Val::Scalar(Ex::TableHit(t), Ty::Bool)),
                "miss" => Ok(Val::Scalar(Ex::TableMiss(t), Ty::Bool)),
                "action_run" => err(
                    m.span,
                    "`action_run` can only be used as a switch expression",
                ),
                _ => err(
                    m.span,
                    format!("a table apply result has no member `{name}`"),
                ),
            },
            v @ (Val::Table(_) | Val::Extern(_) | Val::Packet(_) | Val::Control(_)) => {
                Ok(Val::Method(Box::new(v), m.clone()))
            }
            Val::Type(t) => match name {
                "minSizeInBits" | "minSizeInBytes" | "maxSizeInBits" | "maxSizeInBytes" => {
                    Ok(Val::Method(Box::new(Val::Type(t)), m.clone()))
                }
                _ => err(
                    m.span,
                    format!("type {} has no member `{name}`", ty_name(self, &t)),
                ),
            },
            Val::Place(_, t) | Val::Scalar(_, t) => err(
                m.span,
                format!(
                    "a value of type {} has no member `{name}`",
                    ty_name(self, &t)
                ),
            ),
            _ => err(m.span, format!("this expression has no member `{name}`")),
        }
    }

    fn index(&mut self, b: Val, index: &ast::Expr, span: Span) -> Res<Val> {
        let Val::Place(p, Ty::Stack(e, count)) = b else {
            return match b {
                Val::List(items) => {
                    let i = self.const_u32(index, "a tuple index")?;
                    items.into_iter().nth(i as usize).ok_or_else(|| {
                        Error::new(
                            ErrorKind::Semantic("tuple index out of range".into()),
                            index.span,
                        )
                    })
                }
                _ => err(span, "only header stacks can be indexed"),
            };
        };
        if p.dynamic.is_some() {
            return unsupported(span, "nested header stacks");
        }
        let (en, ew) = self.size(&e);
        let iv = self.expr(index)?;
        if let Some(c) = self.const_value(&iv) {
            if c < 0 || c >= i128::from(count) {
                return err(
                    index.span,
                    format!("index {c} is out of range for a stack of {count}"),
                );
            }
            let c = c as u32;
            return Ok(Val::Place(
                p.offset(c.saturating_mul(en), c.saturating_mul(ew)),
                *e,
            ));
        }
        let (ix, it) = self.rvalue(iv, index.span)?;
        if !matches!(it, Ty::Bit(w) if w <= 64) {
            return err(index.span, "a stack index must be an unsigned bit<W> value");
        }
        Ok(Val::Place(
            Place {
                n: 0,
                w: 0,
                dynamic: Some(Box::new(Dyn {
                    index: ix,
                    base_n: p.n,
                    base_w: p.w,
                    stride_n: en,
                    stride_w: ew,
                    count,
                })),
            },
            *e,
        ))
    }

    fn slice(&mut self, b: Val, hi: u32, lo: u32, span: Span) -> Res<Val> {
        let (ex, t) = match b {
            Val::Int(i) => {
                let w = hi + 1;
                (
                    const_ex(i, bt(w.min(crate::bits::MAX_WIDTH), false)),
                    Ty::Bit(w),
                )
            }
            v => self.rvalue(v, span)?,
        };
        let w = match t {
            Ty::Bit(w) | Ty::Int(w) => w,
            _ => {
                return err(
                    span,
                    format!("cannot slice a value of type {}", ty_name(self, &t)),
                );
            }
        };
        if hi < lo || hi >= w {
            return err(
                span,
                format!("slice [{hi}:{lo}] is out of range for a value of width {w}"),
            );
        }
        let rw = hi - lo + 1;
        let out = if !is_wide(w) {
            fold(Ex::Slice(hi, lo, Box::new(ex)))
        } else if is_wide(rw) {
            Ex::SliceW(hi, lo, Box::new(ex))
        } else {
            Ex::ToNarrow(Box::new(Ex::SliceW(hi, lo, Box::new(ex))))
        };
        Ok(Val::Scalar(out, Ty::Bit(rw)))
    }

    fn unary(&mut self, op: UnaryOp, v: Val, span: Span) -> Res<Val> {
        if let Val::Int(i) = v {
            return match op {
                UnaryOp::Neg => Ok(Val::Int(-i)),
                UnaryOp::Plus => Ok(Val::Int(i)),
                UnaryOp::BitNot => err(span, "`~` needs a sized operand"),
                UnaryOp::Not => err(span, "`!` needs a bool operand"),
            };
        }
        let (ex, t) = self.rvalue(v, span)?;
        match (op, &t) {
            (UnaryOp::Not, Ty::Bool) => Ok(Val::Scalar(fold(Ex::Not(Box::new(ex))), t)),
            (UnaryOp::Plus, Ty::Bit(_) | Ty::Int(_)) => Ok(Val::Scalar(ex, t)),
            (UnaryOp::BitNot | UnaryOp::Neg, Ty::Bit(w) | Ty::Int(w)) => {
                let w = *w;
                let out = match (op, is_wide(w)) {
                    (UnaryOp::BitNot, false) => fold(Ex::BitNot(w, Box::new(ex))),
                    (UnaryOp::Neg, false) => fold(Ex::Neg(w, Box::new(ex))),
                    (UnaryOp::BitNot, true) => Ex::BitNotW(Box::new(ex)),
                    _ => Ex::NegW(Box::new(ex)),
                };
                Ok(Val::Scalar(out, t))
            }
            _ => err(
                span,
                format!(
                    "operator cannot be applied to a value of type {}",
                    ty_name(self, &t)
                ),
            ),
        }
    }

    /// Brings two operands to one scalar type (unsized constants take the
    /// other operand's type).
    fn unify(&mut self, a: Val, b: Val, span: Span) -> Res<(Ex, Ex, Ty)> {
        match (a, b) {
            (Val::Int(x), Val::Int(y)) => {
                // only reached for ?: with two constants and a runtime cond
                let _ = (x, y);
                err(span, "the width of this expression cannot be inferred")
            }
            (Val::Int(x), b) => {
                let (eb, tb) = self.rvalue(b, span)?;
                let ea = self.coerce(Val::Int(x), &tb, span)?;
                Ok((ea, eb, tb))
            }
            (a, Val::Int(y)) => {
                let (ea, ta) = self.rvalue(a, span)?;
                let eb = self.coerce(Val::Int(y), &ta, span)?;
                Ok((ea, eb, ta))
            }
            (a, b) => {
                let (ea, ta) = self.rvalue(a, span)?;
                let (eb, tb) = self.rvalue(b, span)?;
                if ta != tb {
                    let msg = match (&ta, &tb) {
                        (Ty::Bit(x), Ty::Bit(y)) | (Ty::Int(x), Ty::Int(y)) => format!(
                            "cannot operate on values of different widths: {} and {} (add a cast)",
                            x, y
                        ),
                        _ => format!(
                            "type mismatch: {} and {}",
                            ty_name(self, &ta),
                            ty_name(self, &tb)
                        ),
                    };
                    return err(span, msg);
                }
                Ok((ea, eb, ta))
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, l: Val, r: Val, span: Span) -> Res<Val> {
        use BinaryOp as B;
        if let (Val::Int(a), Val::Int(b)) = (&l, &r) {
            let (a, b) = (*a, *b);
            let v = match op {
                B::Add => a.checked_add(b),
                B::Sub => a.checked_sub(b),
                B::Mul => a.checked_mul(b),
                B::Div | B::Mod => {
                    if b == 0 {
                        return err(span, "division by zero");
                    }
                    if a < 0 || b < 0 {
                        return err(span, "division of negative constants is not defined");
                    }
                    Some(if op == B::Div { a / b } else { a % b })
                }
                B::Shl => {
                    if !(0..=120).contains(&b) {
                        return err(span, "shift amount out of range");
                    }
                    a.checked_mul(1i128 << b)
                }
                B::Shr => {
                    if b < 0 {
                        return err(span, "negative shift amount");
                    }
                    Some(a >> b.min(127))
                }
                B::BitAnd => Some(a & b),
                B::BitOr => Some(a | b),
                B::BitXor => Some(a ^ b),
                B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge => {
                    let c = match op {
                        B::Eq => a == b,
                        B::Ne => a != b,
                        B::Lt => a < b,
                        B::Le => a <= b,
                        B::Gt => a > b,
                        _ => a >= b,
                    };
                    return Ok(Val::Scalar(Ex::Const(u64::from(c)), Ty::Bool));
                }
                _ => {
                    return err(
                        span,
                        format!("`{}` cannot be applied to unsized integers", op.symbol()),
                    );
                }
            };
            return match v {
                Some(v) if v.unsigned_abs() < (1u128 << 120) => Ok(Val::Int(v)),
                _ => unsupported(span, "integer constants beyond 120 bits"),
            };
        }
        match op {
            B::And | B::Or => {
                let a = self.coerce(l, &Ty::Bool, span)?;
                let b = self.coerce(r, &Ty::Bool, span)?;
                let nop = if op == B::And { NOp::LAnd } else { NOp::LOr };
                Ok(Val::Scalar(
                    fold(Ex::Bin(nop, 1, Box::new((a, b)))),
                    Ty::Bool,
                ))
            }
            B::Shl | B::Shr => {
                let (a, t) = self.rvalue(l, span)?;
                let w = match t {
                    Ty::Bit(w) | Ty::Int(w) => w,
                    _ => {
                        return err(
                            span,
                            format!("cannot shift a value of type {}", ty_name(self, &t)),
                        );
                    }
                };
                let amount = match r {
                    Val::Int(i) if i < 0 => return err(span, "negative shift amount"),
                    Val::Int(i) => Ex::Const(i.min(i128::from(u32::MAX)) as u64),
                    r => {
                        let (ex, rt) = self.rvalue(r, span)?;
                        match rt {
                            Ty::Bit(rw) if rw <= 64 => ex,
                            Ty::Bit(_) => Ex::ToNarrow(Box::new(ex)),
                            _ => return err(span, "a shift amount must be an unsigned value"),
                        }
                    }
                };
                let signed = matches!(t, Ty::Int(_));
                let ex = if is_wide(w) {
                    let wop = if op == B::Shl { WOp::Shl } else { WOp::Shr };
                    Ex::BinW(
                        wop,
                        Box::new((a, Ex::ToWide(bt(64, false), Box::new(amount)))),
                    )
                } else {
                    let nop = match (op, signed) {
                        (B::Shl, _) => NOp::Shl,
                        (_, false) => NOp::Shr,
                        (_, true) => NOp::Sar,
                    };
                    fold(Ex::Bin(nop, w, Box::new((a, amount))))
                };
                Ok(Val::Scalar(ex, t))
            }
            B::Concat => {
                let (a, ta) = self.rvalue(l, span)?;
                let (b, tb) = self.rvalue(r, span)?;
                let (wa, sa) = match ta {
                    Ty::Bit(w) => (w, false),
                    Ty::Int(w) => (w, true),
                    _ => return err(span, "`++` needs bit<W> or int<W> operands"),
                };
                let wb = match tb {
                    Ty::Bit(w) | Ty::Int(w) => w,
                    _ => return err(span, "`++` needs bit<W> or int<W> operands"),
                };
                let w = wa + wb;
                let t = if sa { Ty::Int(w) } else { Ty::Bit(w) };
                let ex = if !is_wide(w) {
                    fold(Ex::Concat(wb, Box::new((a, b))))
                } else {
                    let a = widen(a, bt(wa, sa));
                    let b = widen(b, bt(wb, false));
                    Ex::ConcatW(Box::new((a, b)))
                };
                Ok(Val::Scalar(ex, t))
            }
            _ => {
                // compound equality
                if matches!(op, B::Eq | B::Ne)
                    && let (Val::Place(pa, ta), Val::Place(pb, tb)) = (&l, &r)
                    && self.scalar_bt(ta).is_none()
                {
                    {
                        if ta != tb {
                            return err(span, "type mismatch in comparison");
                        }
                        let mut la = Vec::new();
                        let mut lb = Vec::new();
                        self.leaves(pa, ta, &mut la);
                        self.leaves(pb, tb, &mut lb);
                        let mut acc = Ex::Const(1);
                        for ((x, t), (y, _)) in la.into_iter().zip(lb) {
                            let xe = self.load(&x, &t);
                            let ye = self.load(&y, &t);
                            let c = if self.size(&t) == (0, 1) {
                                Ex::CmpW(Cmp::Eq, Box::new((xe, ye)))
                            } else {
                                Ex::Bin(NOp::Eq, 64, Box::new((xe, ye)))
                            };
                            acc = Ex::Bin(NOp::LAnd, 1, Box::new((acc, c)));
                        }
                        if op == B::Ne {
                            acc = Ex::Not(Box::new(acc));
                        }
                        return Ok(Val::Scalar(acc, Ty::Bool));
                    }
                }
                let (a, b, t) = self.unify(l, r, span)?;
                let Some(tb) = self.scalar_bt(&t) else {
                    return err(span, "operands must be scalar values");
                };
                let w = tb.width();
                let signed = tb.is_signed() && matches!(t, Ty::Int(_));
                let arith = matches!(t, Ty::Bit(_) | Ty::Int(_));
                let cmp = matches!(op, B::Eq | B::Ne);
                let ordered = matches!(op, B::Lt | B::Le | B::Gt | B::Ge);
                if !arith && !cmp {
                    return err(
                        span,
                        format!(
                            "`{}` cannot be applied to values of type {}",
                            op.symbol(),
                            ty_name(self, &t)
                        ),
                    );
                }
                if is_wide(w) {
                    if cmp || ordered {
                        let c = match op {
                            B::Eq => Cmp::Eq,
                            B::Ne => Cmp::Ne,
                            B::Lt => Cmp::Lt,
                            B::Le => Cmp::Le,
                            B::Gt => Cmp::Gt,
                            _ => Cmp::Ge,
                        };
                        return Ok(Val::Scalar(Ex::CmpW(c, Box::new((a, b))), Ty::Bool));
                    }
                    let wop = match op {
                        B::Add => WOp::Add,
                        B::Sub => WOp::Sub,
                        B::Mul => WOp::Mul,
                        B::Div => WOp::Div,
                        B::Mod => WOp::Mod,
                        B::BitAnd => WOp::And,
                        B::BitOr => WOp::Or,
                        B::BitXor => WOp::Xor,
                        B::SatAdd => WOp::SatAdd,
                        B::SatSub => WOp::SatSub,
                        _ => return err(span, "unsupported operator"),
                    };
                    return Ok(Val::Scalar(Ex::BinW(wop, Box::new((a, b))), t));
                }
                let (nop, swap, result_bool) = match op {
                    B::Add => (NOp::Add, false, false),
                    B::Sub => (NOp::Sub, false, false),
                    B::Mul => (NOp::Mul, false, false),
                    B::Div | B::Mod => {
                        if signed {
                            return unsupported(span, "division and modulo of int<W> values");
                        }
                        (if op == B::Div { NOp::Div } else { NOp::Mod }, false, false)
                    }
                    B::BitAnd => (NOp::And, false, false),
                    B::BitOr => (NOp::Or, false, false),
                    B::BitXor => (NOp::Xor, false, false),
                    B::SatAdd => (
                        if signed { NOp::SatAddS } else { NOp::SatAddU },
                        false,
                        false,
                    ),
                    B::SatSub => (
                        if signed { NOp::SatSubS } else { NOp::SatSubU },
                        false,
                        false,
                    ),
                    B::Eq => (NOp::Eq, false, true),
                    B::Ne => (NOp::Ne, false, true),
                    B::Lt => (if signed { NOp::LtS } else { NOp::LtU }, false, true),
                    B::Le => (if signed { NOp::LeS } else { NOp::LeU }, false, true),
                    B::Gt => (if signed { NOp::LtS } else { NOp::LtU }, true, true),
                    B::Ge => (if signed { NOp::LeS } else { NOp::LeU }, true, true),
                    _ => return err(span, "unsupported operator"),
                };
                let (a, b) = if swap { (b, a) } else { (a, b) };
                let ex = fold(Ex::Bin(nop, w, Box::new((a, b))));
                Ok(Val::Scalar(ex, if result_bool { Ty::Bool } else { t }))
            }
        }
    }

    fn cast(&mut self, v: Val, t: &Ty, span: Span) -> Res<Val> {
        let Some(to) = self.scalar_bt(t) else {
            return match (t, v) {
                (Ty::Struct(_) | Ty::Tuple(_), v @ (Val::List(_) | Val::StructInit(_))) => {
                    let p = self.alloc(t);
                    let mut sts = Vec::new();
                    self.assign(&p, t, v, span, &mut sts)?;
                    let _ = sts;
                    unsupported(span, "casts to structs")
                }
                _ => err(span, format!("cannot cast to {}", ty_name(self, t))),
            };
        };
        if let Val::Int(i) = v {
            return match t {
                Ty::Bit(_) | Ty::Int(_) => Ok(Val::Scalar(const_ex(i, to), t.clone())),
                Ty::Bool if i == 0 || i == 1 => Ok(Val::Scalar(Ex::Const(i as u64), Ty::Bool)),
                Ty::Enum(id) if self.enums[*id as usize].underlying.is_some() => {
                    Ok(Val::Scalar(const_ex(i, to), t.clone()))
                }
                _ => err(
                    span,
                    format!("cannot cast an integer to {}", ty_name(self, t)),
                ),
            };
        }
        let (ex, from_t) = self.rvalue(v, span)?;
        if &from_t == t {
            return Ok(Val::Scalar(ex, from_t));
        }
        let Some(from) = self.scalar_bt(&from_t) else {
            return err(span, "cannot cast this value");
        };
        let ok = match (&from_t, t) {
            (Ty::Bit(_) | Ty::Int(_), Ty::Bit(_) | Ty::Int(_)) => true,
            (Ty::Bool, Ty::Bit(1)) | (Ty::Bit(1), Ty::Bool) => true,
            (Ty::Enum(i), Ty::Bit(_) | Ty::Int(_)) => self.enums[*i as usize].underlying.is_some(),
            (Ty::Bit(_) | Ty::Int(_), Ty::Enum(i)) => self.enums[*i as usize].underlying.is_some(),
            _ => false,
        };
        if !ok {
            return err(
                span,
                format!(
                    "cannot cast {} to {}",
                    ty_name(self, &from_t),
                    ty_name(self, t)
                ),
            );
        }
        Ok(Val::Scalar(convert(ex, from, to), t.clone()))
    }

    // ---- calls ---------------------------------------------------------

    fn call(
        &mut self,
        callee: &ast::Expr,
        type_args: &[ast::Type],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        let f = self.expr(callee)?;
        match f {
            Val::Method(base, m) => self.method(*base, &m, type_args, args, span),
            Val::Action(id) => {
                let sts = self.call_action(id, args, span)?;
                Ok(Val::Effect(sts))
            }
            Val::Function(name) => self.call_function(&name, args, span),
            Val::ExternFn(name) => self.extern_fn(&name, type_args, args, span),
            Val::Type(_) => unsupported(span, "constructor calls in expressions"),
            _ => err(callee.span, "this expression cannot be called"),
        }
    }

    fn arg_vals(&mut self, args: &[ast::Argument]) -> Res<Vec<(Val, Span)>> {
        let mut out = Vec::new();
        for a in args {
            if a.name.is_some() {
                return unsupported(a.value.span, "named arguments for this call");
            }
            out.push((self.expr(&a.value)?, a.value.span));
        }
        Ok(out)
    }

    /// Orders arguments by parameter (named arguments allowed), erroring on
    /// count mismatches.
    fn bind_args<'a>(
        &self,
        params: &[String],
        args: &'a [ast::Argument],
        what: &str,
        span: Span,
    ) -> Res<Vec<&'a ast::Argument>> {
        if args.iter().any(|a| a.name.is_some()) {
            let mut out = Vec::new();
            for p in params {
                match args
                    .iter()
                    .find(|a| a.name.as_ref().is_some_and(|n| n.as_str() == p))
                {
                    Some(a) => out.push(a),
                    None => return err(span, format!("missing argument `{p}` for {what}")),
                }
            }
            if out.len() != args.len() {
                return err(span, format!("unknown named argument for {what}"));
            }
            return Ok(out);
        }
        if params.len() != args.len() {
            return err(
                span,
                format!(
                    "{what} takes {} arguments, {} given",
                    params.len(),
                    args.len()
                ),
            );
        }
        Ok(args.iter().collect())
    }

    /// Copy-in, `run`, copy-out for parameters with directions.
    fn call_with_params(
        &mut self,
        params: &[(ast::Direction, Place, Ty)],
        names: &[String],
        args: &[ast::Argument],
        what: &str,
        span: Span,
        run: St,
    ) -> Res<Vec<St>> {
        let args = self.bind_args(names, args, what, span)?;
        let mut pre = Vec::new();
        let mut post = Vec::new();
        for ((dir, p, t), a) in params.iter().zip(args) {
            let v = self.expr(&a.value)?;
            match dir {
                ast::Direction::In | ast::Direction::None => {
                    self.assign(p, t, v, a.value.span, &mut pre)?;
                }
                ast::Direction::Out | ast::Direction::InOut => {
                    let Val::Place(ap, at) = v else {
                        return err(
                            a.value.span,
                            "an out or inout argument must be a variable or field",
                        );
                    };
                    if &at != t {
                        return err(
                            a.value.span,
                            format!(
                                "type mismatch: expected {}, found {}",
                                ty_name(self, t),
                                ty_name(self, &at)
                            ),
                        );
                    }
                    if *dir == ast::Direction::InOut {
                        self.assign(
                            p,
                            t,
                            Val::Place(ap.clone(), at.clone()),
                            a.value.span,
                            &mut pre,
                        )?;
                    } else {
                        self.zero(p, t, &mut pre);
                    }
                    self.assign(
                        &ap,
                        t,
                        Val::Place(p.clone(), t.clone()),
                        a.value.span,
                        &mut post,
                    )?;
                }
            }
        }
        pre.push(run);
        if post.is_empty() {
            return Ok(pre);
        }
        // copy-out happens even when the callee executes `exit`
        Ok(vec![St::Call(Box::new((pre, post)))])
    }

    fn call_action(&mut self, id: u32, args: &[ast::Argument], span: Span) -> Res<Vec<St>> {
        let info = self.action_params.get(&id).cloned().unwrap_or_default();
        let params: Vec<(ast::Direction, Place, Ty)> = info
            .iter()
            .map(|(d, p, t, _)| {
                let d = if *d == ast::Direction::None {
                    ast::Direction::In
                } else {
                    *d
                };
                (d, p.clone(), t.clone())
            })
            .collect();
        let names: Vec<String> = info.iter().map(|x| x.3.clone()).collect();
        let what = format!("action `{}`", self.actions[id as usize].name);
        self.call_with_params(&params, &names, args, &what, span, St::RunAction(id))
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
            (Ex::Const(a), Ex::Const(b)) => Some(crate::exec::eval_nop(*op, *w, *a, *b)),
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
            Ex::Const(a) => Some(crate::exec::sext(a, *f) & mask(*t)),
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

impl<'p> Compiler<'p> {
    fn header_info(&self, t: &Ty) -> Option<&StructInfo> {
        match t {
            Ty::Struct(i) => self
                .structs
                .get(*i as usize)
                .filter(|s| s.kind == SKind::Header),
            _ => None,
        }
    }

    fn header_layout(&self, s: &StructInfo) -> (Arc<[FieldLayout]>, u32) {
        let mut fields = Vec::new();
        let mut bits = 0;
        for f in &s.fields {
            let b = self.scalar_bt(&f.ty).unwrap_or(BitType::BIT1);
            let wide = is_wide(b.width());
            fields.push(FieldLayout {
                width: b.width(),
                signed: b.is_signed(),
                wide,
                offset: if wide { f.w_off } else { f.n_off },
                at: bits,
            });
            bits += b.width();
        }
        (fields.into(), bits)
    }

    fn header_ref(&self, p: &Place, t: &Ty, span: Span) -> Res<HeaderRef> {
        let Some(s) = self.header_info(t) else {
            return err(
                span,
                format!("expected a header, found {}", ty_name(self, t)),
            );
        };
        let (fields, bits) = self.header_layout(s);
        let stack = p.dynamic.as_ref().map(|d| {
            Box::new(StackAccess {
                base_n: d.base_n,
                base_w: d.base_w,
                next_index: 0,
                which: StackWhich::Index(d.index.clone()),
                stride_n: d.stride_n,
                stride_w: d.stride_w,
                count: d.count,
            })
        });
        Ok(HeaderRef {
            valid: p.n,
            base_n: p.n,
            base_w: p.w,
            fields,
            bits,
            stack,
        })
    }

    fn emit_refs(&self, p: &Place, t: &Ty, span: Span, out: &mut Vec<HeaderRef>) -> Res<()> {
        match t {
            Ty::Struct(i) => {
                let s = &self.structs[*i as usize];
                match s.kind {
                    SKind::Header => out.push(self.header_ref(p, t, span)?),
                    SKind::Struct | SKind::Union => {
                        for f in &s.fields {
                            self.emit_refs(&p.offset(f.n_off, f.w_off), &f.ty, span, out)?;
                        }
                    }
                }
                Ok(())
            }
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                for i in 0..*c {
                    self.emit_refs(
                        &p.offset(i.saturating_mul(n), i.saturating_mul(w)),
                        e,
                        span,
                        out,
                    )?;
                }
                Ok(())
            }
            _ => err(
                span,
                format!(
                    "emit needs headers, not a value of type {}",
                    ty_name(self, t)
                ),
            ),
        }
    }

    /// The scalar leaves of a data argument (`{a, b}`, a header, a struct
    /// or a field), each with the validity of its header when it has one.
    fn data_leaves(&mut self, e: &ast::Expr, out: &mut Vec<Leaf>) -> Res<()> {
        if let ExprKind::List { items, .. } = &e.kind {
            for i in items {
                self.data_leaves(i, out)?;
            }
            return Ok(());
        }
        let container_valid = match &e.kind {
            ExprKind::Member { base, .. } => match self.expr(base)? {
                Val::Place(bp, bt_) if self.header_info(&bt_).is_some() => {
                    Some(self.load(&bp, &Ty::Bool))
                }
                _ => None,
            },
            _ => None,
        };
        let v = self.expr(e)?;
        self.val_leaves(v, container_valid, e.span, out)
    }

    fn val_leaves(
        &mut self,
        v: Val,
        valid: Option<Ex>,
        span: Span,
        out: &mut Vec<Leaf>,
    ) -> Res<()> {
        match v {
            Val::List(items) => {
                for i in items {
                    self.val_leaves(i, None, span, out)?;
                }
                Ok(())
            }
            Val::Place(p, t) if self.scalar_bt(&t).is_none() => {
                self.compound_leaves(&p, &t, valid, out);
                Ok(())
            }
            v => {
                let (ex, t) = self.rvalue(v, span)?;
                let ty = self.scalar_bt(&t).unwrap_or(BitType::BIT1);
                out.push(Leaf { ex, ty, valid });
                Ok(())
            }
        }
    }

    fn compound_leaves(&self, p: &Place, t: &Ty, valid: Option<Ex>, out: &mut Vec<Leaf>) {
        match t {
            Ty::Struct(i) => {
                let s = &self.structs[*i as usize];
                let valid = if s.kind == SKind::Header {
                    Some(self.load(p, &Ty::Bool))
                } else {
                    valid
                };
                for f in &s.fields {
                    self.compound_leaves(&p.offset(f.n_off, f.w_off), &f.ty, valid.clone(), out);
                }
            }
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                for i in 0..*c {
                    self.compound_leaves(
                        &p.offset(i.saturating_mul(n), i.saturating_mul(w)),
                        e,
                        valid.clone(),
                        out,
                    );
                }
            }
            Ty::Tuple(ts) => {
                let (mut n, mut w) = (0, 0);
                for t in ts {
                    self.compound_leaves(&p.offset(n, w), t, valid.clone(), out);
                    let (a, b) = self.size(t);
                    n = n.saturating_add(a);
                    w = w.saturating_add(b);
                }
            }
            t => {
                if let Some(b) = self.scalar_bt(t) {
                    out.push(Leaf {
                        ex: self.load(p, t),
                        ty: b,
                        valid,
                    });
                }
            }
        }
    }

    /// An `in` argument of an extern taken as an unsigned index (narrow).
    fn index_arg(&mut self, v: Val, span: Span) -> Res<Ex> {
        match v {
            Val::Int(i) if i >= 0 => Ok(Ex::Const(i as u64)),
            Val::Int(_) => err(span, "an index cannot be negative"),
            v => {
                let (ex, t) = self.rvalue(v, span)?;
                match t {
                    Ty::Bit(w) if w <= 64 => Ok(ex),
                    Ty::Bit(_) => Ok(Ex::ToNarrow(Box::new(ex))),
                    _ => err(
                        span,
                        format!("an index must be bit<W>, not {}", ty_name(self, &t)),
                    ),
                }
            }
        }
    }

    /// A typed `in` argument of a generic extern parameter: its expression
    /// and type (unsized constants become bit<64>... or the given default).
    fn generic_arg(&mut self, v: Val, default: BitType, span: Span) -> Res<(Ex, BitType)> {
        match v {
            Val::Int(i) => Ok((const_ex(i, default), default)),
            v => {
                let (ex, t) = self.rvalue(v, span)?;
                match self.scalar_bt(&t) {
                    Some(b) => Ok((ex, b)),
                    None => err(span, "expected a scalar value"),
                }
            }
        }
    }

    fn out_target(&mut self, v: Val, span: Span) -> Res<(Target, Ty)> {
        match v {
            Val::Place(p, t) if self.scalar_bt(&t).is_some() => Ok((self.target(&p, &t), t)),
            _ => err(span, "an out argument must be a scalar variable or field"),
        }
    }

    fn enum_const_name(&self, v: &Val, enum_name: &str, span: Span) -> Res<String> {
        if let Val::Scalar(Ex::Const(c), Ty::Enum(i)) = v {
            let e = &self.enums[*i as usize];
            if e.name.as_ref() == enum_name
                && let Some((n, _)) = e.members.iter().find(|(_, x)| x == c)
            {
                return Ok(n.to_string());
            }
        }
        err(span, format!("expected a constant {enum_name} value"))
    }

    fn nargs(&self, args: &[ast::Argument], n: usize, what: &str, span: Span) -> Res<()> {
        if args.len() != n {
            return err(
                span,
                format!("{what} takes {n} arguments, {} given", args.len()),
            );
        }
        Ok(())
    }

    fn method(
        &mut self,
        base: Val,
        m: &ast::Ident,
        type_args: &[ast::Type],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        let name = m.as_str();
        match base {
            Val::Place(p, Ty::Struct(i)) => {
                let s = self.structs[i as usize].clone();
                if name.ends_with("SizeInBits") || name.ends_with("SizeInBytes") {
                    return self.size_method(&Ty::Struct(i), name, span);
                }
                self.nargs(args, 0, name, span)?;
                match (s.kind, name) {
                    (SKind::Header, "isValid") => {
                        Ok(Val::Scalar(self.load(&p, &Ty::Bool), Ty::Bool))
                    }
                    (SKind::Header, "setValid") => {
                        Ok(Val::Effect(vec![self.store(&p, &Ty::Bool, Ex::Const(1))]))
                    }
                    (SKind::Header, "setInvalid") => {
                        Ok(Val::Effect(vec![self.store(&p, &Ty::Bool, Ex::Const(0))]))
                    }
                    (SKind::Union, "isValid") => {
                        let mut acc = Ex::Const(0);
                        for f in &s.fields {
                            let v = self.load(&p.offset(f.n_off, f.w_off), &Ty::Bool);
                            acc = Ex::Bin(NOp::LOr, 1, Box::new((acc, v)));
                        }
                        Ok(Val::Scalar(acc, Ty::Bool))
                    }
                    _ => err(m.span, format!("no method `{name}`")),
                }
            }
            Val::Place(p, Ty::Stack(e, count)) => {
                self.nargs(args, 1, name, span)?;
                let by = self.const_u32(&args[0].value, "the count of push_front/pop_front")?;
                let (en, ew) = self.size(&e);
                if self.header_info(&e).is_none() {
                    return unsupported(span, "push_front/pop_front on stacks of header unions");
                }
                let by = i64::from(by);
                Ok(Val::Effect(vec![St::StackShift(Box::new(StackShift {
                    base_n: p.n,
                    base_w: p.w,
                    stride_n: en,
                    stride_w: ew,
                    count,
                    next_index: p.n.saturating_add(en.saturating_mul(count)),
                    valid_offset: 0,
                    by: if name == "push_front" { by } else { -by },
                }))]))
            }
            Val::Type(t) => self.size_method(&t, name, span),
            Val::Table(t) => {
                if name != "apply" {
                    return err(m.span, format!("tables have no method `{name}`"));
                }
                self.nargs(args, 0, "apply", span)?;
                Ok(Val::TableResult(t))
            }
            Val::Control(c) => {
                if name != "apply" {
                    return err(m.span, format!("controls have no method `{name}`"));
                }
                let ci = self.controls[c as usize].clone();
                let params: Vec<(ast::Direction, Place, Ty)> = ci
                    .params
                    .iter()
                    .map(|(d, p, t)| {
                        (
                            if *d == ast::Direction::None {
                                ast::Direction::In
                            } else {
                                *d
                            },
                            p.clone(),
                            t.clone(),
                        )
                    })
                    .collect();
                let sts = self.call_with_params(
                    &params,
                    &ci.names,
                    args,
                    "apply",
                    span,
                    St::RunBody(ci.body),
                )?;
                Ok(Val::Effect(sts))
            }
            Val::Extern(inst) => self.extern_method(inst, m, args, span),
            Val::Packet(false) => match name {
                "extract" => {
                    if self.block_kind != BlockKind::Parser {
                        return err(span, "extract can only be called in a parser");
                    }
                    if args.len() == 2 {
                        return unsupported(span, "two-argument extract (varbit headers)");
                    }
                    self.nargs(args, 1, "extract", span)?;
                    let v = self.expr(&args[0].value)?;
                    let r = match v {
                        Val::StackNext(p, Ty::Stack(e, count)) => {
                            let (en, ew) = self.size(&e);
                            let mut r = self.header_ref(&Place::at(0, 0), &e, span)?;
                            r.stack = Some(Box::new(StackAccess {
                                base_n: p.n,
                                base_w: p.w,
                                next_index: p.n.saturating_add(en.saturating_mul(count)),
                                which: StackWhich::Next,
                                stride_n: en,
                                stride_w: ew,
                                count,
                            }));
                            r
                        }
                        Val::Place(p, t) => self.header_ref(&p, &t, args[0].value.span)?,
                        _ => return err(args[0].value.span, "extract needs a header"),
                    };
                    Ok(Val::Effect(vec![St::Extract(Box::new(r))]))
                }
                "lookahead" => {
                    self.nargs(args, 0, "lookahead", span)?;
                    let Some(t) = type_args.first() else {
                        return err(span, "lookahead needs a type argument: lookahead<T>()");
                    };
                    let t = self.resolve_type(t)?;
                    match t {
                        Ty::Bit(w) if !is_wide(w) => Ok(Val::Scalar(Ex::Lookahead(w), t)),
                        Ty::Bit(w) => Ok(Val::Scalar(Ex::LookaheadW(bt(w, false)), t)),
                        Ty::Int(_) | Ty::Bool | Ty::Struct(_) => match self.wire_bits(&t) {
                            Some(total) if total > 0 => Ok(self.lookahead_value(&t, 0, total)),
                            _ => unsupported(
                                span,
                                format!(
                                    "lookahead of type {} (a header union, or a field that is \
                                     not bit<W>, int<W>, bool or a header or struct of them)",
                                    ty_name(self, &t)
                                ),
                            ),
                        },
                        _ => unsupported(span, format!("lookahead of type {}", ty_name(self, &t))),
                    }
                }
                "advance" => {
                    self.nargs(args, 1, "advance", span)?;
                    let v = self.expr(&args[0].value)?;
                    let ex = self.index_arg(v, args[0].value.span)?;
                    Ok(Val::Effect(vec![St::Advance(ex)]))
                }
                "length" => {
                    self.nargs(args, 0, "length", span)?;
                    Ok(Val::Scalar(Ex::PacketLength, Ty::Bit(32)))
                }
                _ => err(m.span, format!("packet_in has no method `{name}`")),
            },
            Val::Packet(true) => {
                if name != "emit" {
                    return err(m.span, format!("packet_out has no method `{name}`"));
                }
                self.nargs(args, 1, "emit", span)?;
                let v = self.expr(&args[0].value)?;
                let Val::Place(p, t) = v else {
                    return err(
                        args[0].value.span,
                        "emit needs a header or a struct of headers",
                    );
                };
                let mut refs = Vec::new();
                self.emit_refs(&p, &t, args[0].value.span, &mut refs)?;
                Ok(Val::Effect(vec![St::Emit(refs)]))
            }
            _ => err(m.span, format!("no method `{name}` here")),
        }
    }

    fn size_method(&mut self, t: &Ty, name: &str, span: Span) -> Res<Val> {
        let bits = match t {
            Ty::Struct(i) => {
                let s = &self.structs[*i as usize];
                let mut total = 0u64;
                for f in &s.fields {
                    total += u64::from(self.scalar_bt(&f.ty).map_or(0, |b| b.width()));
                }
                total
            }
            t => match self.scalar_bt(t) {
                Some(b) => u64::from(b.width()),
                None => return unsupported(span, format!("{name} of this type")),
            },
        };
        let v = if name.ends_with("Bytes") {
            bits.div_ceil(8)
        } else {
            bits
        };
        Ok(Val::Int(i128::from(v)))
    }

    fn extern_method(
        &mut self,
        inst: ExternInst,
        m: &ast::Ident,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        if let Some(v) = self.tna_method(&inst, m, args, span)? {
            return Ok(v);
        }
        let name = m.as_str();
        let a = self.arg_vals(args)?;
        let call = match (inst, name) {
            (ExternInst::Register(r), "read") => {
                self.nargs(args, 2, "register.read", span)?;
                let mut a = a.into_iter();
                let (dv, ds) = a.next().unwrap_or((Val::DontCare, span));
                let (iv, is) = a.next().unwrap_or((Val::DontCare, span));
                let (dst, dt) = self.out_target(dv, ds)?;
                let ty = self.registers[r as usize].ty;
                if self.scalar_bt(&dt) != Some(ty) && !(dt == Ty::Bool && ty == BitType::BIT1) {
                    return err(
                        ds,
                        format!(
                            "register holds {ty}, but the result has type {}",
                            ty_name(self, &dt)
                        ),
                    );
                }
                let index = self.index_arg(iv, is)?;
                ExternCall::RegisterRead { reg: r, dst, index }
            }
            (ExternInst::Register(r), "write") => {
                self.nargs(args, 2, "register.write", span)?;
                let mut a = a.into_iter();
                let (iv, is) = a.next().unwrap_or((Val::DontCare, span));
                let (vv, vs) = a.next().unwrap_or((Val::DontCare, span));
                let index = self.index_arg(iv, is)?;
                let ty = self.registers[r as usize].ty;
                let t = if ty.is_signed() {
                    Ty::Int(ty.width())
                } else {
                    Ty::Bit(ty.width())
                };
                let vv = match vv {
                    Val::Place(p, Ty::Bool) if ty == BitType::BIT1 => {
                        Val::Scalar(self.load(&p, &Ty::Bool), Ty::Bit(1))
                    }
                    v => v,
                };
                let value = self.coerce(vv, &t, vs)?;
                ExternCall::RegisterWrite {
                    reg: r,
                    index,
                    value,
                }
            }
            (ExternInst::Counter(c), "count") => {
                self.nargs(args, 1, "counter.count", span)?;
                let (iv, is) = a.into_iter().next().unwrap_or((Val::DontCare, span));
                let index = self.index_arg(iv, is)?;
                ExternCall::Count { counter: c, index }
            }
            (ExternInst::DirectCounter(_), "count") => {
                self.nargs(args, 0, "direct_counter.count", span)?;
                return Ok(Val::Effect(Vec::new()));
            }
            (ExternInst::Meter(mi), "execute_meter") => {
                self.nargs(args, 2, "meter.execute_meter", span)?;
                let mut a = a.into_iter();
                let (iv, is) = a.next().unwrap_or((Val::DontCare, span));
                let (dv, ds) = a.next().unwrap_or((Val::DontCare, span));
                let index = self.index_arg(iv, is)?;
                let (dst, _) = self.out_target(dv, ds)?;
                ExternCall::ExecuteMeter {
                    meter: mi,
                    index,
                    dst,
                }
            }
            (ExternInst::DirectMeter(mi), "read") => {
                self.nargs(args, 1, "direct_meter.read", span)?;
                let (dv, ds) = a.into_iter().next().unwrap_or((Val::DontCare, span));
                let (dst, _) = self.out_target(dv, ds)?;
                ExternCall::DirectMeterRead { meter: mi, dst }
            }
            _ => return err(m.span, format!("this extern has no method `{name}`")),
        };
        Ok(Val::Effect(vec![St::Extern(Box::new(call))]))
    }

    fn call_function(&mut self, name: &Arc<str>, args: &[ast::Argument], span: Span) -> Res<Val> {
        let decl: Option<&'p ast::FunctionDecl> = self.globals.get(name.as_ref()).and_then(|ds| {
            ds.iter().copied().find_map(|d| match d {
                Declaration::Function(f) => Some(f),
                _ => None,
            })
        });
        let Some(decl) = decl else {
            return err(span, format!("`{name}` is not a function"));
        };
        let info = match self.functions.get(name) {
            Some(i) => i.clone(),
            None => {
                if self.depth > 300 {
                    return err(span, "recursive function calls are not allowed");
                }
                if !decl.type_params.is_empty() {
                    return unsupported(decl.span, "generic functions");
                }
                let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
                let saved_kind = self.block_kind;
                let saved_ret = self.ret_place.take();
                self.depth += 50;
                let r = (|| -> Res<FunctionInfo> {
                    let ret_t = self.resolve_type(&decl.return_type)?;
                    let ret = if ret_t == Ty::Void {
                        None
                    } else if self.scalar_bt(&ret_t).is_some() || matches!(ret_t, Ty::Struct(_)) {
                        Some((self.alloc(&ret_t), ret_t))
                    } else {
                        return unsupported(
                            decl.return_type.span,
                            "functions returning stacks, tuples or this type",
                        );
                    };
                    let mut params = Vec::new();
                    for p in &decl.params {
                        let t = self.resolve_type(&p.ty)?;
                        let pl = self.alloc(&t);
                        self.bind(&p.name, Val::Place(pl.clone(), t.clone()))?;
                        let d = if p.direction == ast::Direction::None {
                            ast::Direction::In
                        } else {
                            p.direction
                        };
                        params.push((d, pl, t));
                    }
                    self.block_kind = BlockKind::Function;
                    self.ret_place = ret.clone();
                    let mut body = Vec::new();
                    self.block(&decl.body, &mut body)?;
                    self.bodies.push(body);
                    Ok(FunctionInfo {
                        body: self.bodies.len() as u32 - 1,
                        params,
                        ret,
                    })
                })();
                self.depth -= 50;
                self.scopes = saved_scopes;
                self.block_kind = saved_kind;
                self.ret_place = saved_ret;
                let info = r?;
                self.functions.insert(name.clone(), info.clone());
                info
            }
        };
        let names: Vec<String> = decl.params.iter().map(|p| p.name.to_string()).collect();
        let sts = self.call_with_params(
            &info.params,
            &names,
            args,
            &format!("function `{name}`"),
            span,
            St::RunBody(info.body),
        )?;
        match info.ret {
            None => Ok(Val::Effect(sts)),
            Some((p, t)) if self.scalar_bt(&t).is_none() => Ok(Val::Returned(sts, p, t)),
            Some((p, t)) => {
                let ex = self.load(&p, &t);
                let wide = self.size(&t) == (0, 1);
                Ok(Val::Scalar(
                    if wide {
                        Ex::SeqW(Box::new((sts, ex)))
                    } else {
                        Ex::Seq(Box::new((sts, ex)))
                    },
                    t,
                ))
            }
        }
    }

    fn extern_fn(
        &mut self,
        name: &str,
        _type_args: &[ast::Type],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        let eff = |c: ExternCall| Ok(Val::Effect(vec![St::Extern(Box::new(c))]));
        match name {
            "mark_to_drop" => {
                let (p, t) = if args.is_empty() {
                    match self.sm_place.clone() {
                        Some(x) => x,
                        None => return err(span, "mark_to_drop() needs standard_metadata"),
                    }
                } else {
                    self.nargs(args, 1, "mark_to_drop", span)?;
                    match self.expr(&args[0].value)? {
                        Val::Place(p, t) => (p, t),
                        _ => {
                            return err(args[0].value.span, "mark_to_drop needs standard_metadata");
                        }
                    }
                };
                let spec = self.member(
                    Val::Place(p.clone(), t.clone()),
                    &ident("egress_spec", span),
                    span,
                )?;
                let grp = self.member(Val::Place(p, t), &ident("mcast_grp", span), span)?;
                let mut out = Vec::new();
                self.assign_to(spec, Val::Int(511), span, span, &mut out)?;
                self.assign_to(grp, Val::Int(0), span, span, &mut out)?;
                Ok(Val::Effect(out))
            }
            "hash" => {
                self.nargs(args, 5, "hash", span)?;
                let dv = self.expr(&args[0].value)?;
                let (dst, _) = self.out_target(dv, args[0].value.span)?;
                let av = self.expr(&args[1].value)?;
                let algo_name = self.enum_const_name(&av, "HashAlgorithm", args[1].value.span)?;
                let algo = HashAlgorithm::from_name(&algo_name).map_err(|e| {
                    Error::new(ErrorKind::Semantic(e.to_string()), args[1].value.span)
                })?;
                if algo == HashAlgorithm::Random {
                    return unsupported(args[1].value.span, "HashAlgorithm.random in hash()");
                }
                let bv = self.expr(&args[2].value)?;
                let (base, base_ty) = self.generic_arg(bv, bt(64, false), args[2].value.span)?;
                let mut data = Vec::new();
                self.data_leaves(&args[3].value, &mut data)?;
                let mv = self.expr(&args[4].value)?;
                let (max, max_ty) = self.generic_arg(mv, bt(64, false), args[4].value.span)?;
                eff(ExternCall::Hash {
                    algo,
                    dst,
                    base,
                    base_ty,
                    data,
                    max,
                    max_ty,
                })
            }
            "random" => {
                self.nargs(args, 3, "random", span)?;
                let dv = self.expr(&args[0].value)?;
                let (dst, t) = self.out_target(dv, args[0].value.span)?;
                if self.scalar_bt(&t).is_some_and(|b| is_wide(b.width())) {
                    return unsupported(args[0].value.span, "random values wider than 64 bits");
                }
                let lo = self.expr(&args[1].value)?;
                let lo = self.coerce(lo, &t, args[1].value.span)?;
                let hi = self.expr(&args[2].value)?;
                let hi = self.coerce(hi, &t, args[2].value.span)?;
                eff(ExternCall::Random { dst, lo, hi })
            }
            "digest" => {
                self.nargs(args, 2, "digest", span)?;
                let rv = self.expr(&args[0].value)?;
                let receiver = self.coerce(rv, &Ty::Bit(32), args[0].value.span)?;
                let mut data = Vec::new();
                self.data_leaves(&args[1].value, &mut data)?;
                for l in &mut data {
                    l.valid = None;
                }
                eff(ExternCall::Digest { receiver, data })
            }
            "verify" => {
                if self.block_kind != BlockKind::Parser {
                    return err(span, "verify can only be called in a parser");
                }
                self.nargs(args, 2, "verify", span)?;
                let c = self.expr(&args[0].value)?;
                let c = self.coerce(c, &Ty::Bool, args[0].value.span)?;
                let e = self.expr(&args[1].value)?;
                let e = self.coerce(e, &Ty::Error, args[1].value.span)?;
                Ok(Val::Effect(vec![St::Verify(c, e)]))
            }
            "verify_checksum"
            | "verify_checksum_with_payload"
            | "update_checksum"
            | "update_checksum_with_payload" => {
                self.nargs(args, 4, name, span)?;
                let c = self.expr(&args[0].value)?;
                let cond = self.coerce(c, &Ty::Bool, args[0].value.span)?;
                let mut data = Vec::new();
                self.data_leaves(&args[1].value, &mut data)?;
                let av = self.expr(&args[3].value)?;
                let algo_name = self.enum_const_name(&av, "HashAlgorithm", args[3].value.span)?;
                let algo = HashAlgorithm::from_name(&algo_name).map_err(|e| {
                    Error::new(ErrorKind::Semantic(e.to_string()), args[3].value.span)
                })?;
                if algo == HashAlgorithm::Random {
                    return unsupported(args[3].value.span, "HashAlgorithm.random in a checksum");
                }
                let with_payload = name.ends_with("_with_payload");
                let cv = self.expr(&args[2].value)?;
                if name.starts_with("verify") {
                    let (checksum, _) = self.rvalue(cv, args[2].value.span)?;
                    let checksum = match checksum {
                        e @ (Ex::LoadW(_) | Ex::LoadDynW(..) | Ex::ConstW(_)) => {
                            Ex::ToNarrow(Box::new(e))
                        }
                        e => e,
                    };
                    eff(ExternCall::VerifyChecksum {
                        cond,
                        data,
                        checksum,
                        algo,
                        with_payload,
                    })
                } else {
                    let (dst, _) = self.out_target(cv, args[2].value.span)?;
                    eff(ExternCall::UpdateChecksum {
                        cond,
                        data,
                        dst,
                        algo,
                        with_payload,
                    })
                }
            }
            "clone" | "clone_preserving_field_list" => {
                let n = if name == "clone" { 2 } else { 3 };
                self.nargs(args, n, name, span)?;
                let tv = self.expr(&args[0].value)?;
                let kind = self.enum_const_name(&tv, "CloneType", args[0].value.span)?;
                let sv = self.expr(&args[1].value)?;
                let session = self.coerce(sv, &Ty::Bit(32), args[1].value.span)?;
                let field_list = if n == 3 {
                    Some(
                        self.const_u32(&args[2].value, "a field list index")?
                            .min(255) as u8,
                    )
                } else {
                    None
                };
                eff(ExternCall::Clone {
                    e2e: kind == "E2E",
                    session,
                    field_list,
                })
            }
            "resubmit_preserving_field_list" | "recirculate_preserving_field_list" => {
                self.nargs(args, 1, name, span)?;
                let i = self
                    .const_u32(&args[0].value, "a field list index")?
                    .min(255) as u8;
                eff(if name.starts_with("resubmit") {
                    ExternCall::Resubmit(i)
                } else {
                    ExternCall::Recirculate(i)
                })
            }
            "clone3" | "resubmit" | "recirculate" => unsupported(
                span,
                format!(
                    "the deprecated `{name}(data)`: use `{}_preserving_field_list`",
                    if name == "clone3" { "clone" } else { name }
                ),
            ),
            "truncate" => {
                self.nargs(args, 1, name, span)?;
                let v = self.expr(&args[0].value)?;
                let len = self.coerce(v, &Ty::Bit(32), args[0].value.span)?;
                eff(ExternCall::Truncate(len))
            }
            "assert" | "assume" => {
                self.nargs(args, 1, name, span)?;
                let v = self.expr(&args[0].value)?;
                let cond = self.coerce(v, &Ty::Bool, args[0].value.span)?;
                let location = format!(
                    "{}:{}:{}",
                    self.program.sources.name(span.file),
                    span.line,
                    span.col
                );
                eff(ExternCall::Assert { cond, location })
            }
            "log_msg" => {
                if args.is_empty() || args.len() > 2 {
                    return err(
                        span,
                        format!("log_msg takes 1 or 2 arguments, {} given", args.len()),
                    );
                }
                let Val::Str(message) = self.expr(&args[0].value)? else {
                    return err(args[0].value.span, "log_msg needs a string literal");
                };
                let mut data = Vec::new();
                if let Some(a) = args.get(1) {
                    self.data_leaves(&a.value, &mut data)?;
                    for l in &mut data {
                        l.valid = None;
                    }
                }
                eff(ExternCall::Log { message, data })
            }
            "static_assert" => {
                if args.is_empty() || args.len() > 2 {
                    return err(span, "static_assert takes 1 or 2 arguments");
                }
                let v = self.expr(&args[0].value)?;
                let c = self.coerce(v, &Ty::Bool, args[0].value.span)?;
                match c {
                    Ex::Const(1) => Ok(Val::Scalar(Ex::Const(1), Ty::Bool)),
                    Ex::Const(_) => {
                        let msg = match args.get(1).map(|a| self.expr(&a.value)) {
                            Some(Ok(Val::Str(s))) => s,
                            _ => "static assertion failed".into(),
                        };
                        err(span, msg)
                    }
                    _ => err(
                        args[0].value.span,
                        "static_assert needs a compile-time constant",
                    ),
                }
            }
            other => unsupported(span, format!("the extern function `{other}`")),
        }
    }
}

fn ident(name: &str, span: Span) -> ast::Ident {
    ast::Ident {
        name: name.into(),
        span,
    }
}
