//! The builder: a program's [`P4Info`], walking the AST with the checker's
//! resolution.
//!
//! What p4c's front end does before it serializes is reproduced here over the
//! AST, because it decides names and the order of objects:
//!
//! - every object declared in a control gets the control's name as a prefix
//!   (`HierarchicalNames`); an `@name(".x")` makes it global instead;
//! - key elements without `@name` are named after their expression
//!   (`TableKeyNames`: `hdr.ipv4.dstAddr`, `hdr.ipv4.$valid$`, `x[7:0]`);
//! - a table without `default_action` gets `NoAction`, added to its action
//!   list as `@defaultonly` when missing;
//! - top-level actions are copied into each control that uses them, ahead of
//!   the control's own declarations (`LocalizeAllActions`);
//! - tables that are never applied and actions no surviving code refers to
//!   are removed (`RemoveAllUnusedDeclarations`); extern instances stay.
//!   Code p4c's front end removes first does not count: the branch of an
//!   `if` or `?:` on a constant never taken (`ConstantFolding`), and the
//!   rest of a block after a `return` or `exit` in a body with a `return`
//!   (`RemoveReturns`);
//! - a top-level action's `@name` stays global (`TagGlobalActions`);
//! - a program without `main` gets a P4Info with no objects but its
//!   controller headers, and no `pkg_info`.
//!
//! Objects are then visited breadth first from `main` (the package's blocks
//! in parameter order, then each control's tables and instances in
//! declaration order), which is the order of each P4Info section. Ids come
//! from [`crate::p4info::id`].
//!
//! Types, widths and constant values come from the checker
//! ([`crate::check::Resolver`]: its resolution, scopes and constant folding,
//! with the names of `type` declarations kept), so a program has one
//! resolver; what is here is P4Info's own naming and order of objects.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

use super::id::{AssignedIds, IdAllocator, ResourceType};
use super::model::{
    Action, ActionParam, ActionProfile, ActionRef, ActionScope, ControllerPacketMetadata, Counter,
    CounterUnit, Digest, DirectCounter, DirectMeter, HeaderMember, MatchField, MatchType, Meter,
    MeterUnit, NewTypeSpec, P4Info, PacketMetadata, Preamble, Register, SelectorSizeSemantics,
    SerializableEnumSpec, Table, TableActionCall, TypeInfo, TypeSpec, ValueSet,
};
use super::names::{
    Res, annotated_name, field_ids, id_annotation, invalid, printed_annotations, qualify,
    translation, unsupported,
};
use super::plan::{ControlPlan, digest_calls};
use super::tna;
use crate::check::{CpType, Resolver};
use crate::front::ast::{
    ActionDecl, ActionRef as AstActionRef, Annotation, AnnotationBody, Argument, BinaryOp,
    ControlDecl, Declaration, Expr, ExprKind, Instantiation, KeyElement, Param, ParserDecl,
    StructDecl, TableDecl, TableProperty, TablePropertyKind, TypeKind, TypedefDecl, ValueSetDecl,
    find_annotation,
};
use crate::front::source::Span;

/// p4c's default table size for v1model.
pub const DEFAULT_TABLE_SIZE: i64 = 1024;

/// p4c's `KeyNameGenerator`: the name of a key element from its expression,
/// with the checker's types of its parts (a field's `@name`, `$valid$` of a
/// header).
fn key_name<'a>(b: &Builder<'a>, control: &'a ControlDecl, e: &Expr) -> Res<String> {
    let complex = || invalid("complex key expression requires a @name annotation", e.span);
    let type_of = |x: &Expr| b.resolver.borrow_mut().type_of(x, control, None);
    Ok(match &e.kind {
        ExprKind::Name(p) => format!("{}{}", if p.absolute { "." } else { "" }, p.name),
        ExprKind::Member { base, member } => {
            let field = match type_of(base) {
                Ok(CpType::Struct(s) | CpType::Header(s) | CpType::Union(s)) => b
                    .struct_decl(&s)
                    .and_then(|d| d.fields.iter().find(|f| f.name.as_str() == member.as_str()))
                    .map(|f| annotated_name(&f.annotations, member.as_str())),
                _ => None,
            }
            .unwrap_or_else(|| member.to_string());
            if let Some(global) = field.strip_prefix('.') {
                return Ok(global.to_string());
            }
            format!("{}.{field}", key_name(b, control, base)?)
        }
        ExprKind::Index { base, index } => {
            format!(
                "{}[{}]",
                key_name(b, control, base)?,
                key_name(b, control, index)?
            )
        }
        ExprKind::Int(v) => v.to_u128().ok_or_else(complex)?.to_string(),
        ExprKind::Slice { base, hi, lo } => format!(
            "{}[{}:{}]",
            key_name(b, control, base)?,
            key_name(b, control, hi)?,
            key_name(b, control, lo)?
        ),
        ExprKind::Binary {
            op: BinaryOp::BitAnd,
            lhs,
            rhs,
        } => format!(
            "{} & {}",
            key_name(b, control, lhs)?,
            key_name(b, control, rhs)?
        ),
        ExprKind::Call { callee, args, .. } => match &callee.kind {
            ExprKind::Member { base, member }
                if member.as_str() == "isValid" && args.is_empty() =>
            {
                match type_of(base) {
                    Ok(CpType::Header(_) | CpType::Union(_)) => {
                        format!("{}.$valid$", key_name(b, control, base)?)
                    }
                    _ => return Err(complex()),
                }
            }
            _ => return Err(complex()),
        },
        _ => return Err(complex()),
    })
}

/// The v1model blocks of `main`, in `V1Switch` parameter order.
const V1SWITCH_PARAMS: [&str; 6] = ["p", "vr", "ig", "eg", "ck", "dep"];

/// Something the breadth-first walk visits.
enum Node<'a> {
    Control(&'a ControlDecl, String),
    Table(&'a TableDecl, &'a ControlDecl, String),
    /// An extern instance, in a control or (`None`) at top level.
    Instance(&'a Instantiation, Option<&'a ControlDecl>, String),
    /// A parser value set, under its parser's path.
    ValueSet(&'a ValueSetDecl, String),
}

pub(super) struct Builder<'a> {
    program: &'a crate::front::ast::Program,
    /// The checker's resolution of the program's types and constants.
    resolver: RefCell<Resolver<'a>>,
    /// Top-level actions and controls by name.
    actions: HashMap<&'a str, &'a ActionDecl>,
    controls: HashMap<&'a str, &'a ControlDecl>,
    parsers: HashMap<&'a str, &'a ParserDecl>,
    /// `main`'s parser (v1model), whose value sets P4Info lists.
    parser_roots: Vec<&'a ParserDecl>,
    /// The names of the tables each action profile implements, sorted
    /// (p4c keeps them in a `std::set`).
    profile_tables: HashMap<String, BTreeSet<String>>,
    plans: HashMap<String, ControlPlan<'a>>,
    /// For a TNA program, the `Pipeline` instance's name.
    tna_pipe: Option<String>,
    /// Whether `main` is a PSA `PSA_Switch`.
    psa: bool,
    /// Whether `main` is a uBPF `ubpf`.
    ubpf: bool,
    /// For a TNA program: the ingress parser's type name and the name of its
    /// `ingress_intrinsic_metadata_t` parameter (the port metadata key).
    tna_port_metadata: Option<(String, String)>,
    /// The digests of a list without a type argument named so far: they
    /// are `digest_0`, `digest_1`, ... in the order met (p4c's one sample
    /// of such a digest, issue430-1-bmv2.p4, names it `digest_0`; the
    /// order of several is not checked against p4c).
    list_digests: std::cell::Cell<usize>,
}

/// A table's `implementation`.
enum Implementation<'a> {
    /// An action profile or selector constructed in the property.
    InPlace {
        name: String,
        property: &'a TableProperty,
        type_name: &'a str,
        args: &'a [Argument],
    },
    /// An instance, by its P4Info name.
    Instance(String),
}

/// A digest found in a control.
struct DigestUse {
    name: String,
    ty: CpType,
}

impl<'a> Builder<'a> {
    pub(super) fn new(program: &'a crate::front::ast::Program) -> Res<Self> {
        let mut actions = HashMap::new();
        let mut controls = HashMap::new();
        let mut parsers = HashMap::new();
        for d in &program.declarations {
            match d {
                Declaration::Action(a) => {
                    actions.insert(a.name.as_str(), a);
                }
                Declaration::Control(c) => {
                    controls.insert(c.name.as_str(), c);
                }
                Declaration::Parser(p) => {
                    parsers.insert(p.name.as_str(), p);
                }
                _ => {}
            }
        }
        Ok(Builder {
            program,
            resolver: RefCell::new(Resolver::new(program)?),
            actions,
            controls,
            plans: HashMap::new(),
            tna_pipe: None,
            psa: false,
            ubpf: false,
            tna_port_metadata: None,
            list_digests: std::cell::Cell::new(0),
            parsers,
            parser_roots: Vec::new(),
            profile_tables: HashMap::new(),
        })
    }

    /// The header, struct or union declaration `name`.
    fn struct_decl(&self, name: &str) -> Option<&'a StructDecl> {
        match self.resolver.borrow().declaration(name)? {
            Declaration::Header(s) | Declaration::Struct(s) | Declaration::HeaderUnion(s) => {
                Some(s)
            }
            _ => None,
        }
    }

    /// The `type` declaration `name`.
    fn new_type_decl(&self, name: &str) -> Option<&'a TypedefDecl> {
        match self.resolver.borrow().declaration(name)? {
            Declaration::Typedef(t) => Some(t),
            _ => None,
        }
    }

    /// Width in bits as P4Info reports it.
    fn width(&self, t: &CpType) -> Option<u32> {
        Some(match t {
            CpType::Bit(w) | CpType::Int(w) | CpType::SerEnum(_, w) => *w,
            CpType::Bool => 1,
            CpType::Error => 0,
            // Its own translation's width, else the bits underneath: a
            // translation of the type it wraps does not carry over.
            CpType::NewType(name, inner) => match self.new_type_decl(name).and_then(translation) {
                Some((_, width)) => width.unwrap_or(0),
                None => self.width(&underlying(inner))?,
            },
            _ => return None,
        })
    }

    fn resolve(&self, t: &crate::front::ast::Type) -> Res<CpType> {
        self.resolver.borrow_mut().resolve(t)
    }

    fn eval(&self, e: &Expr, control: Option<&'a ControlDecl>) -> Res<i128> {
        self.resolver.borrow_mut().eval(e, control)
    }

    /// `main`'s controls and annotations; `None` for a program without
    /// `main`, of which p4c writes a P4Info with no objects and no
    /// `pkg_info` (control-plane/p4RuntimeSerializer.cpp, `addPkgInfo`).
    fn main_blocks(&mut self) -> Res<Option<(Vec<&'a ControlDecl>, Vec<String>)>> {
        let Some(main) = self
            .program
            .declarations
            .iter()
            .rev()
            .find_map(|d| match d {
                Declaration::Instantiation(i) if i.name.as_str() == "main" => Some(i),
                _ => None,
            })
        else {
            return Ok(None);
        };
        let package = match &main.ty.kind {
            TypeKind::Name(p) => p.name.as_str(),
            TypeKind::Specialized { base, .. } => base.name.as_str(),
            _ => "",
        };
        if package == "Switch" {
            return self.tna_blocks(main).map(Some);
        }
        if package == "PSA_Switch" {
            return self.psa_blocks(main).map(Some);
        }
        if package != "V1Switch" {
            // uBPF's `ubpf(parser, pipeline, deparser)`, or a package of
            // the program's own: its parser and control arguments, in
            // order (p4c's P4Info then says arch "v1model", its default)
            self.ubpf = package == "ubpf";
            let mut controls = Vec::new();
            self.blocks_of(&main.args, &mut controls);
            return Ok(Some((controls, printed_annotations(&main.annotations))));
        }
        let mut slots: Vec<Option<&Argument>> = vec![None; V1SWITCH_PARAMS.len()];
        for (i, arg) in main.args.iter().enumerate() {
            let pos = match &arg.name {
                Some(n) => V1SWITCH_PARAMS
                    .iter()
                    .position(|p| *p == n.as_str())
                    .ok_or_else(|| invalid(format!("V1Switch has no parameter `{n}`"), n.span))?,
                None => i,
            };
            if pos < slots.len() {
                slots[pos] = Some(arg);
            }
        }
        let mut controls = Vec::new();
        for arg in slots.into_iter().flatten() {
            let name = self.block_type_name(arg);
            if let Some(c) = name.and_then(|n| self.controls.get(n)) {
                controls.push(*c);
            }
            if let Some(p) = name.and_then(|n| self.parsers.get(n)) {
                self.parser_roots.push(*p);
            }
        }
        let annotations = printed_annotations(&main.annotations);
        Ok(Some((controls, annotations)))
    }

    /// The controls of a TNA `Switch(pipe)`'s one `Pipeline`: ingress,
    /// ingress deparser, egress, egress deparser.
    fn tna_blocks(&mut self, main: &'a Instantiation) -> Res<(Vec<&'a ControlDecl>, Vec<String>)> {
        let [arg] = main.args.as_slice() else {
            return Err(unsupported(
                "P4Info for a Switch of more than one Pipeline",
                main.span,
            ));
        };
        let (pipe, args): (String, &'a [Argument]) = match &arg.value.kind {
            ExprKind::Name(p) => {
                let inst = self.program.declarations.iter().find_map(|d| match d {
                    Declaration::Instantiation(i) if i.name.as_str() == p.name.as_str() => Some(i),
                    _ => None,
                });
                match inst {
                    Some(i) => (i.name.to_string(), i.args.as_slice()),
                    None => {
                        return Err(invalid(
                            format!("unknown instance `{}`", p.name),
                            p.name.span,
                        ));
                    }
                }
            }
            ExprKind::Call { args, .. } => ("pipe".to_string(), args.as_slice()),
            _ => {
                return Err(invalid(
                    "the argument of Switch must be a Pipeline",
                    arg.value.span,
                ));
            }
        };
        let mut controls = Vec::new();
        if let Some(parser_name) = args.first().and_then(|a| self.block_type_name(a)) {
            let parser = self.program.declarations.iter().find_map(|d| match d {
                Declaration::Parser(p) if p.name.as_str() == parser_name => Some(p),
                _ => None,
            });
            let param = parser.and_then(|p| {
                p.params.iter().find(|q| {
                    matches!(&q.ty.kind, TypeKind::Name(t) if t.name.as_str() == "ingress_intrinsic_metadata_t")
                })
            });
            let key = param.map_or("ig_intr_md".to_string(), |q| q.name.to_string());
            self.tna_port_metadata = Some((parser_name.to_string(), key));
        }
        for (k, a) in args.iter().enumerate() {
            if !matches!(k, 1 | 2 | 4 | 5) {
                continue;
            }
            if let Some(c) = self.block_type_name(a).and_then(|n| self.controls.get(n)) {
                controls.push(*c);
            }
        }
        self.tna_pipe = Some(pipe);
        Ok((controls, printed_annotations(&main.annotations)))
    }

    /// The blocks of a `PSA_Switch(IngressPipeline(ip, ig, id), pre,
    /// EgressPipeline(ep, eg, ed), bqe)`: the four controls in that order,
    /// the two parsers as parser roots.
    fn psa_blocks(&mut self, main: &'a Instantiation) -> Res<(Vec<&'a ControlDecl>, Vec<String>)> {
        self.psa = true;
        let mut controls = Vec::new();
        for k in [0, 2] {
            let Some(arg) = main.args.get(k) else {
                return Err(invalid("PSA_Switch takes 4 arguments", main.span));
            };
            let args: &'a [Argument] = match &arg.value.kind {
                ExprKind::Name(p) => {
                    let inst = self.program.declarations.iter().find_map(|d| match d {
                        Declaration::Instantiation(i) if i.name.as_str() == p.name.as_str() => {
                            Some(i)
                        }
                        _ => None,
                    });
                    match inst {
                        Some(i) => i.args.as_slice(),
                        None => {
                            return Err(invalid(
                                format!("unknown instance `{}`", p.name),
                                p.name.span,
                            ));
                        }
                    }
                }
                ExprKind::Call { args, .. } => args.as_slice(),
                _ => {
                    return Err(invalid(
                        "expected an IngressPipeline or EgressPipeline",
                        arg.value.span,
                    ));
                }
            };
            self.blocks_of(args, &mut controls);
        }
        Ok((controls, printed_annotations(&main.annotations)))
    }

    /// The controls a package's arguments instantiate, in order, into
    /// `controls`; its parsers become parser roots.
    fn blocks_of(&mut self, args: &'a [Argument], controls: &mut Vec<&'a ControlDecl>) {
        for a in args {
            let name = self.block_type_name(a);
            if let Some(c) = name.and_then(|n| self.controls.get(n)) {
                controls.push(*c);
            }
            if let Some(p) = name.and_then(|n| self.parsers.get(n)) {
                self.parser_roots.push(*p);
            }
        }
    }

    /// The name of v1model's table property `v1` (`counters`, `meters`,
    /// `implementation`) in the program's architecture: PSA's are
    /// `psa_direct_counter`, `psa_direct_meter` and `psa_implementation`.
    fn prop<'s>(&self, v1: &'s str) -> &'s str {
        match (self.psa, v1) {
            (true, "counters") => "psa_direct_counter",
            (true, "meters") => "psa_direct_meter",
            (true, "implementation") => "psa_implementation",
            _ => v1,
        }
    }

    /// A header field's members in P4Info: itself, or for a field of
    /// struct type each of its fields as `field.member` (p4c flattens
    /// them so).
    fn header_members(
        &self,
        name: &str,
        ty: &CpType,
        span: Span,
        out: &mut Vec<HeaderMember>,
    ) -> Res<()> {
        let spec = match ty {
            CpType::Bit(w) => TypeSpec::Bit(*w),
            CpType::Int(w) => TypeSpec::Int(*w),
            CpType::Varbit(w) => TypeSpec::Varbit(*w),
            CpType::SerEnum(_, w) => TypeSpec::Bit(*w),
            CpType::NewType(_, inner) => match **inner {
                CpType::Bit(w) => TypeSpec::Bit(w),
                _ => return Err(unsupported("this header field type in P4Info", span)),
            },
            CpType::Struct(s) => {
                let fields = self.resolver.borrow_mut().fields(s)?;
                for f in &fields {
                    let inner = format!("{name}.{}", annotated_name(&f.annotations, &f.name));
                    self.header_members(&inner, &f.ty, span, out)?;
                }
                return Ok(());
            }
            _ => return Err(unsupported("this header field type in P4Info", span)),
        };
        out.push(HeaderMember {
            name: name.to_string(),
            type_spec: spec,
        });
        Ok(())
    }

    /// The parser or control type a package argument instantiates:
    /// `MyIngress()`, or an instance `ig` declared as `MyIngress() ig;`.
    fn block_type_name(&self, a: &'a Argument) -> Option<&'a str> {
        match &a.value.kind {
            ExprKind::Call { callee, .. } => match &callee.kind {
                ExprKind::Name(p) => Some(p.name.as_str()),
                _ => None,
            },
            ExprKind::Name(p) => self.instance_type_name(p.name.as_str()),
            _ => None,
        }
    }

    /// For `MyIngress() ig; V1Switch(..., ig, ...)`: the type instantiated.
    fn instance_type_name(&self, instance: &str) -> Option<&'a str> {
        self.program.declarations.iter().find_map(|d| match d {
            Declaration::Instantiation(i) if i.name.as_str() == instance => match &i.ty.kind {
                TypeKind::Name(p) => Some(p.name.as_str()),
                _ => None,
            },
            _ => None,
        })
    }

    fn plan(&mut self, control: &'a ControlDecl) -> &ControlPlan<'a> {
        let key = control.name.to_string();
        let actions = &self.actions;
        let resolver = &self.resolver;
        self.plans.entry(key).or_insert_with(|| {
            let fold = |e: &Expr, action: Option<&'a ActionDecl>| {
                resolver.borrow_mut().constant_bool(e, control, action)
            };
            ControlPlan::new(actions, control, &fold)
        })
    }

    /// How p4c's front end folds a condition in `control` (see
    /// [`super::plan::Fold`]).
    fn fold_in(
        &self,
        control: &'a ControlDecl,
    ) -> impl Fn(&Expr, Option<&'a ActionDecl>) -> Option<bool> + use<'_, 'a> {
        move |e, action| self.resolver.borrow_mut().constant_bool(e, control, action)
    }

    /// Depth-first walk from `main`'s controls in declaration order: p4c's
    /// BMv2 back end writes the P4Info after its mid end has inlined every
    /// control instance at its declaration, so an instance's tables come
    /// where it is declared, before the next top-level control's.
    fn walk(&mut self, roots: &[&'a ControlDecl]) -> Vec<Node<'a>> {
        let mut order = Vec::new();
        for p in self.parser_roots.clone() {
            self.walk_parser(p, p.name.to_string(), &mut order);
        }
        let mut seen: HashSet<String> = HashSet::new();
        for c in roots {
            if seen.insert(c.name.to_string()) {
                self.walk_control(c, c.name.to_string(), &mut seen, &mut order);
            }
        }
        // Extern instances declared at top level that a walked control
        // names (p4c removes the others), under their own names.
        let mut used = HashSet::new();
        for node in &order {
            if let Node::Control(c, _) = node {
                let tables = self.plan(c).tables.clone();
                let fold = self.fold_in(c);
                let mut names = Vec::new();
                super::plan::collect_names_block(&c.apply, &fold, None, &mut names);
                for t in tables {
                    for prop in ["counters", "meters", "implementation"] {
                        if let Some(Expr {
                            kind: ExprKind::Name(p),
                            ..
                        }) = t.property(self.prop(prop))
                        {
                            names.push(p.name.to_string());
                        }
                    }
                }
                for d in &c.locals {
                    if let Declaration::Action(a) = d {
                        super::plan::collect_names_block(&a.body, &fold, Some(a), &mut names);
                    }
                }
                used.extend(names);
            }
        }
        for d in &self.program.declarations {
            if let Declaration::Instantiation(i) = d
                && used.contains(i.name.as_str())
                && !self.controls.contains_key(instance_type(i))
            {
                order.push(Node::Instance(i, None, String::new()));
            }
        }
        order
    }

    /// A parser's value sets, and those of the parsers it instantiates
    /// (under the instance's path: `parserImpl.p1.vs`).
    fn walk_parser(&self, parser: &'a ParserDecl, prefix: String, order: &mut Vec<Node<'a>>) {
        for d in &parser.locals {
            match d {
                Declaration::ValueSet(v) => order.push(Node::ValueSet(v, prefix.clone())),
                Declaration::Instantiation(i) => {
                    if let Some(inner) = self.parsers.get(instance_type(i)) {
                        let inner_prefix = qualify(&prefix, &i.annotations, i.name.as_str());
                        self.walk_parser(inner, inner_prefix, order);
                    }
                }
                _ => {}
            }
        }
    }

    fn walk_control(
        &mut self,
        control: &'a ControlDecl,
        prefix: String,
        seen: &mut HashSet<String>,
        order: &mut Vec<Node<'a>>,
    ) {
        order.push(Node::Control(control, prefix.clone()));
        let plan_tables: Vec<&TableDecl> = self.plan(control).tables.clone();
        for d in &control.locals {
            match d {
                Declaration::Table(t) if plan_tables.iter().any(|p| std::ptr::eq(*p, t)) => {
                    order.push(Node::Table(t, control, prefix.clone()));
                }
                Declaration::Instantiation(i) => {
                    if let Some(inner) = self.controls.get(instance_type(i)) {
                        let inner_prefix = qualify(&prefix, &i.annotations, i.name.as_str());
                        if seen.insert(inner_prefix.clone()) {
                            self.walk_control(inner, inner_prefix, seen, order);
                        }
                    } else {
                        order.push(Node::Instance(i, Some(control), prefix.clone()));
                    }
                }
                _ => {}
            }
        }
        // `C.apply(...)` of a control type: p4c's InstantiateDirectCalls
        // appends an instance named after the type to the locals.
        let mut names = Vec::new();
        super::plan::collect_names_block(&control.apply, &self.fold_in(control), None, &mut names);
        for name in names {
            let shadowed = control
                .locals
                .iter()
                .any(|d| d.name().is_some_and(|n| n.as_str() == name))
                || control.params.iter().any(|p| p.name.as_str() == name);
            if shadowed {
                continue;
            }
            if let Some(inner) = self.controls.get(name.as_str()) {
                let inner_prefix = format!("{prefix}.{name}");
                if seen.insert(inner_prefix.clone()) {
                    self.walk_control(inner, inner_prefix, seen, order);
                }
            }
        }
    }

    pub(super) fn run(mut self) -> Res<P4Info> {
        let main = self.main_blocks()?;
        let has_main = main.is_some();
        let (roots, pkg_annotations) = main.unwrap_or_default();
        let nodes = self.walk(&roots);

        // Pass 1: symbols, for ids and aliases.
        let mut alloc = IdAllocator::new();
        let add =
            |alloc: &mut IdAllocator, ty, name: &str, annos: &[Annotation], span| -> Res<()> {
                let id = id_annotation(annos)?;
                alloc
                    .add(ty, name, id)
                    .map_err(|e| invalid(e.to_string(), span))
            };
        let mut digest_uses: Vec<(usize, Vec<DigestUse>)> = Vec::new();
        for (index, node) in nodes.iter().enumerate() {
            match node {
                Node::Control(control, prefix) => {
                    let plan = self.plan(control);
                    let (globals, locals) = (plan.global_actions.clone(), plan.actions.clone());
                    for a in globals {
                        let name = global_action_name(a);
                        add(
                            &mut alloc,
                            ResourceType::Action,
                            &name,
                            &a.annotations,
                            a.span,
                        )?;
                    }
                    for a in locals {
                        let name = qualify(prefix, &a.annotations, a.name.as_str());
                        add(
                            &mut alloc,
                            ResourceType::Action,
                            &name,
                            &a.annotations,
                            a.span,
                        )?;
                    }
                    let digests = self.digests_of(control, prefix)?;
                    for d in &digests {
                        alloc
                            .add(ResourceType::Digest, &d.name, None)
                            .map_err(|e| invalid(e.to_string(), control.span))?;
                    }
                    digest_uses.push((index, digests));
                }
                Node::Table(t, control, prefix) => {
                    let name = qualify(prefix, &t.annotations, t.name.as_str());
                    add(
                        &mut alloc,
                        ResourceType::Table,
                        &name,
                        &t.annotations,
                        t.span,
                    )?;
                    match self.implementation(t, control, prefix)? {
                        Some(Implementation::InPlace { name, property, .. }) => {
                            add(
                                &mut alloc,
                                ResourceType::ActionProfile,
                                &name,
                                &property.annotations,
                                property.span,
                            )?;
                            self.note_profile_table(name, &t.annotations, t.name.as_str(), prefix);
                        }
                        Some(Implementation::Instance(name)) => {
                            self.note_profile_table(name, &t.annotations, t.name.as_str(), prefix);
                        }
                        None => {}
                    }
                    for prop in ["counters", "meters"] {
                        if let Some(v) = t.property(self.prop(prop))
                            && matches!(v.kind, ExprKind::Call { .. })
                        {
                            return Err(unsupported(
                                format!("a `{prop}` extern constructed inside the table"),
                                v.span,
                            ));
                        }
                    }
                }
                Node::Instance(i, _, prefix) => {
                    if let Some(ty) = self.instance_resource(i)? {
                        let name = qualify(prefix, &i.annotations, i.name.as_str());
                        add(&mut alloc, ty, &name, &i.annotations, i.span)?;
                    }
                }
                Node::ValueSet(v, prefix) => {
                    let name = qualify(prefix, &v.annotations, v.name.as_str());
                    add(
                        &mut alloc,
                        ResourceType::ValueSet,
                        &name,
                        &v.annotations,
                        v.span,
                    )?;
                }
            }
        }
        let controller_headers: Vec<&StructDecl> = self
            .program
            .declarations
            .iter()
            .filter_map(|d| match d {
                Declaration::Header(h)
                    if find_annotation(&h.annotations, "controller_header").is_some() =>
                {
                    Some(h)
                }
                _ => None,
            })
            .collect();
        for h in &controller_headers {
            let name = annotated_name(&h.annotations, h.name.as_str());
            let name = name.strip_prefix('.').unwrap_or(&name).to_string();
            add(
                &mut alloc,
                ResourceType::ControllerHeader,
                &name,
                &h.annotations,
                h.span,
            )?;
        }
        let ids = alloc
            .assign()
            .map_err(|e| invalid(e.to_string(), Span::default()))?;

        // Pass 2: the P4Info itself.
        let mut out = P4Info {
            arch: if !has_main {
                ""
            } else if self.tna_pipe.is_some() {
                "tna"
            } else if self.psa {
                "psa"
            } else if self.ubpf {
                "ubpf"
            } else {
                "v1model"
            }
            .to_string(),
            pkg_annotations,
            ..P4Info::default()
        };
        let mut type_info: Option<TypeInfo> = None;
        let mut serialized_actions: HashSet<u32> = HashSet::new();
        let mut serialized_digests: HashSet<u32> = HashSet::new();
        for (index, node) in nodes.iter().enumerate() {
            match node {
                Node::Control(control, prefix) => {
                    let plan = self.plan(control);
                    let globals = plan.global_actions.clone();
                    let locals = plan.actions.clone();
                    let direct_calls = plan.direct_calls.clone();
                    for a in globals {
                        let name = global_action_name(a);
                        self.add_action(
                            &ids,
                            a,
                            name,
                            direct_calls.contains(a.name.as_str()),
                            &mut out,
                            &mut type_info,
                            &mut serialized_actions,
                        )?;
                    }
                    for a in locals {
                        let name = qualify(prefix, &a.annotations, a.name.as_str());
                        self.add_action(
                            &ids,
                            a,
                            name,
                            direct_calls.contains(a.name.as_str()),
                            &mut out,
                            &mut type_info,
                            &mut serialized_actions,
                        )?;
                    }
                    if let Some((_, uses)) = digest_uses.iter().find(|(i, _)| *i == index) {
                        for d in uses {
                            let id = ids.get(ResourceType::Digest, &d.name).unwrap_or(0);
                            if !serialized_digests.insert(id) {
                                continue;
                            }
                            let info = type_info.get_or_insert_with(TypeInfo::default);
                            let type_spec = self.type_spec(&d.ty, info, control.span)?;
                            out.digests.push(Digest {
                                preamble: Preamble {
                                    id,
                                    name: d.name.clone(),
                                    alias: ids.alias(&d.name),
                                    annotations: Vec::new(),
                                },
                                type_spec,
                            });
                        }
                    }
                }
                Node::Table(t, control, prefix) => {
                    self.add_table(&ids, t, control, prefix, &mut out, &mut type_info)?;
                }
                Node::Instance(i, control, prefix) => {
                    self.add_instance(&ids, i, *control, prefix, &mut out, &mut type_info)?;
                }
                Node::ValueSet(v, prefix) => self.add_value_set(&ids, v, prefix, &mut out)?,
            }
        }
        for h in &controller_headers {
            self.add_controller_header(&ids, h, &mut out, &mut type_info)?;
        }
        out.type_info = type_info;
        if let Some(pipe) = &self.tna_pipe {
            tna::ids(&mut out, pipe)?;
            if let Some((parser, key)) = &self.tna_port_metadata {
                out.externs.push(tna::port_metadata(pipe, parser, key)?);
            }
        }
        Ok(out)
    }

    /// The resource type of an extern instance in a control.
    fn instance_resource(&self, i: &Instantiation) -> Res<Option<ResourceType>> {
        let type_name = match &i.ty.kind {
            TypeKind::Name(p) => p.name.as_str(),
            TypeKind::Specialized { base, .. } => base.name.as_str(),
            _ => "",
        };
        Ok(match type_name {
            "counter" => Some(ResourceType::Counter),
            "direct_counter" => Some(ResourceType::DirectCounter),
            "meter" => Some(ResourceType::Meter),
            "direct_meter" => Some(ResourceType::DirectMeter),
            "register" => Some(ResourceType::Register),
            // TNA, as bf-p4c --p4runtime-force-std-externs writes them
            "Counter" if self.tna_pipe.is_some() => Some(ResourceType::Counter),
            "DirectCounter" if self.tna_pipe.is_some() => Some(ResourceType::DirectCounter),
            "Register" if self.tna_pipe.is_some() => Some(ResourceType::Register),
            "action_profile" | "action_selector" if self.tna_pipe.is_none() => {
                Some(ResourceType::ActionProfile)
            }
            // PSA's
            "Counter" if self.psa => Some(ResourceType::Counter),
            "DirectCounter" if self.psa => Some(ResourceType::DirectCounter),
            "Meter" if self.psa => Some(ResourceType::Meter),
            "DirectMeter" if self.psa => Some(ResourceType::DirectMeter),
            "Register" if self.psa || self.ubpf => Some(ResourceType::Register),
            "ActionProfile" | "ActionSelector" if self.psa => Some(ResourceType::ActionProfile),
            _ => None,
        })
    }

    fn digests_of(&mut self, control: &'a ControlDecl, prefix: &str) -> Res<Vec<DigestUse>> {
        let plan = self.plan(control);
        let actions = plan.actions.clone();
        let globals = plan.global_actions.clone();
        let mut calls = Vec::new();
        let fold = self.fold_in(control);
        for a in globals.iter().chain(actions.iter()) {
            digest_calls(&a.body, &fold, Some(a), &mut calls);
        }
        digest_calls(&control.apply, &fold, None, &mut calls);
        let mut out = Vec::new();
        // PSA's are extern instances, `Digest<T>() d;`, named as instances
        if self.psa {
            for d in &control.locals {
                if let Declaration::Instantiation(i) = d
                    && let TypeKind::Specialized { base, args } = &i.ty.kind
                    && base.name.as_str() == "Digest"
                    && let [t] = args.as_slice()
                {
                    out.push(DigestUse {
                        name: qualify(prefix, &i.annotations, i.name.as_str()),
                        ty: self.resolve(t)?,
                    });
                }
            }
        }
        for call in calls {
            let ExprKind::Call {
                type_args, args, ..
            } = &call.kind
            else {
                continue;
            };
            let ty = match (type_args.first(), args.get(1)) {
                (Some(t), _) => self.resolve(t)?,
                (None, Some(a)) => match &a.value.kind {
                    ExprKind::List { items, dots: false } => {
                        // a tuple of the items' types, named by p4c
                        let items = items
                            .iter()
                            .map(|e| self.type_in_action_context(control, e))
                            .collect::<Res<Vec<_>>>()?;
                        let n = self.list_digests.get();
                        self.list_digests.set(n + 1);
                        let name = format!("digest_{n}");
                        out.push(DigestUse {
                            name,
                            ty: CpType::Tuple(items),
                        });
                        continue;
                    }
                    _ => {
                        // The data may use action parameters; look them up too.
                        self.type_in_action_context(control, &a.value)?
                    }
                },
                _ => return Err(invalid("digest needs a receiver and data", call.span)),
            };
            let name = match &ty {
                CpType::Struct(s) | CpType::Header(s) | CpType::Union(s) => {
                    let annotations = self
                        .struct_decl(s)
                        .map_or(&[][..], |d| d.annotations.as_slice());
                    let n = annotated_name(annotations, s);
                    n.strip_prefix('.').unwrap_or(&n).to_string()
                }
                _ => {
                    return Err(unsupported(
                        "digest data that is not a struct or header",
                        call.span,
                    ));
                }
            };
            out.push(DigestUse { name, ty });
        }
        Ok(out)
    }

    /// The type of a digest's data: in the control's scope, else with the
    /// parameters of one of its actions.
    fn type_in_action_context(&self, control: &'a ControlDecl, e: &Expr) -> Res<CpType> {
        let mut resolver = self.resolver.borrow_mut();
        match resolver.type_of(e, control, None) {
            Ok(t) => Ok(t),
            Err(first) => {
                for d in &control.locals {
                    if let Declaration::Action(a) = d
                        && let Ok(t) = resolver.type_of(e, control, Some(a))
                    {
                        return Ok(t);
                    }
                }
                Err(first)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_action(
        &self,
        ids: &AssignedIds,
        a: &'a ActionDecl,
        name: String,
        called_directly: bool,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
        serialized: &mut HashSet<u32>,
    ) -> Res<()> {
        if find_annotation(&a.annotations, "hidden").is_some() {
            return Ok(());
        }
        let id = ids.get(ResourceType::Action, &name).unwrap_or(0);
        if !serialized.insert(id) {
            return Ok(());
        }
        let cp_params: Vec<&Param> = a
            .params
            .iter()
            .filter(|p| p.direction == crate::front::ast::Direction::None && !called_directly)
            .collect();
        let annos: Vec<&[Annotation]> =
            cp_params.iter().map(|p| p.annotations.as_slice()).collect();
        let param_ids = field_ids(&annos)?;
        let mut params = Vec::new();
        for (p, pid) in cp_params.iter().zip(param_ids) {
            let ty = self.resolve(&p.ty)?;
            let (bitwidth, type_name) = match &ty {
                CpType::Bit(_)
                | CpType::Int(_)
                | CpType::Bool
                | CpType::SerEnum(..)
                | CpType::NewType(..) => (self.width(&ty).unwrap_or(0), type_name(&ty)),
                CpType::Enum(e) => (0, Some(e.to_string())),
                _ => {
                    return Err(invalid(
                        format!(
                            "action parameter `{}` has a type which is not bit<>, int<>, bool, type or serializable enum",
                            p.name
                        ),
                        p.span,
                    ));
                }
            };
            let info = type_info.get_or_insert_with(TypeInfo::default);
            self.type_spec(&ty, info, p.span)?;
            params.push(ActionParam {
                id: pid,
                name: annotated_name(&p.annotations, p.name.as_str()),
                annotations: printed_annotations(&p.annotations),
                bitwidth,
                type_name,
            });
        }
        out.actions.push(Action {
            preamble: Preamble {
                id,
                alias: ids.alias(&name),
                name,
                annotations: printed_annotations(&a.annotations),
            },
            params,
        });
        Ok(())
    }

    /// The P4Info name of an action a table of `control` refers to;
    /// `prefix` is the control instance's path (`EsaIngress.l2` for a
    /// control instantiated inside another), as in the actions section.
    fn action_name(
        &self,
        control: &'a ControlDecl,
        prefix: &str,
        r: &AstActionRef,
    ) -> Res<(String, &'a ActionDecl)> {
        let name = r.name.name.as_str();
        if !r.name.absolute {
            for d in &control.locals {
                if let Declaration::Action(a) = d
                    && a.name.as_str() == name
                {
                    return Ok((qualify(prefix, &a.annotations, name), a));
                }
            }
        }
        let a = self
            .actions
            .get(name)
            .ok_or_else(|| invalid(format!("unknown action `{name}`"), r.span))?;
        Ok((global_action_name(a), a))
    }

    fn add_table(
        &self,
        ids: &AssignedIds,
        t: &'a TableDecl,
        control: &'a ControlDecl,
        prefix: &str,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
    ) -> Res<()> {
        if find_annotation(&t.annotations, "hidden").is_some() {
            return Ok(());
        }
        let name = qualify(prefix, &t.annotations, t.name.as_str());
        let table_id = ids.get(ResourceType::Table, &name).unwrap_or(0);
        // Every table touches type_info in p4c (for its key's types).
        let info = type_info.get_or_insert_with(TypeInfo::default);

        let key: &[KeyElement] = t.key().unwrap_or(&[]);
        let annos: Vec<&[Annotation]> = key.iter().map(|k| k.annotations.as_slice()).collect();
        let key_ids = field_ids(&annos)?;
        let mut match_fields = Vec::new();
        for (k, kid) in key.iter().zip(key_ids) {
            let match_type = match k.match_kind.as_str() {
                "exact" => MatchType::Exact,
                "lpm" => MatchType::Lpm,
                "ternary" => MatchType::Ternary,
                "range" => MatchType::Range,
                "optional" => MatchType::Optional,
                "selector" => continue,
                other => MatchType::Other(other.to_string()),
            };
            let field_name = match find_annotation(&k.annotations, "name") {
                Some(a) => a
                    .string_argument()
                    .ok_or_else(|| invalid("@name needs one string", a.span))?
                    .to_string(),
                None => key_name(self, control, &k.expr)?,
            };
            let ty = self.resolver.borrow_mut().type_of(&k.expr, control, None)?;
            self.type_spec(&ty, info, k.expr.span)?;
            let bitwidth = self
                .width(&ty)
                .ok_or_else(|| invalid("this key has no bit width", k.expr.span))?;
            match_fields.push(MatchField {
                id: kid,
                name: field_name,
                annotations: printed_annotations(&k.annotations),
                bitwidth,
                match_type,
                type_name: type_name(&ty),
            });
        }

        let mut action_refs = Vec::new();
        let mut listed: Vec<String> = Vec::new();
        for r in t.actions().unwrap_or(&[]) {
            let (aname, _) = self.action_name(control, prefix, r)?;
            let table_only = find_annotation(&r.annotations, "tableonly").is_some();
            let default_only = find_annotation(&r.annotations, "defaultonly").is_some();
            if table_only && default_only {
                return Err(invalid(
                    format!(
                        "Table '{name}' has an action reference ('{aname}') which is annotated with both '@tableonly' and '@defaultonly'"
                    ),
                    r.span,
                ));
            }
            action_refs.push(ActionRef {
                id: ids.get(ResourceType::Action, &aname).unwrap_or(0),
                scope: if table_only {
                    ActionScope::TableOnly
                } else if default_only {
                    ActionScope::DefaultOnly
                } else {
                    ActionScope::TableAndDefault
                },
                annotations: printed_annotations(&r.annotations),
            });
            listed.push(aname);
        }

        let mut const_default_action_id = 0;
        let initial_default_action = match t.default_action() {
            Some((r, is_const)) => {
                let (aname, decl) = self.action_name(control, prefix, r)?;
                let id = ids.get(ResourceType::Action, &aname).unwrap_or(0);
                if is_const {
                    const_default_action_id = id;
                }
                Some(TableActionCall {
                    action_id: id,
                    arguments: self.action_arguments(decl, &r.args)?,
                })
            }
            None => {
                // The front end adds `default_action = NoAction()` and, when
                // missing, `@defaultonly NoAction` to the action list.
                let id = ids.get(ResourceType::Action, "NoAction").unwrap_or(0);
                if !listed.iter().any(|n| n == "NoAction") {
                    action_refs.push(ActionRef {
                        id,
                        scope: ActionScope::DefaultOnly,
                        annotations: vec!["@defaultonly".to_string()],
                    });
                }
                Some(TableActionCall {
                    action_id: id,
                    arguments: Vec::new(),
                })
            }
        };

        let size = match t.property("size") {
            Some(e) => {
                let v = self.eval(e, Some(control))?;
                let v = i64::try_from(v).map_err(|_| invalid("table size too large", e.span))?;
                if v == 0 { DEFAULT_TABLE_SIZE } else { v }
            }
            None => DEFAULT_TABLE_SIZE,
        };
        let supports_idle_timeout = match t.property("support_timeout") {
            Some(Expr {
                kind: ExprKind::Bool(b),
                ..
            }) => *b,
            Some(e) => {
                return Err(invalid("support_timeout must be `true` or `false`", e.span));
            }
            None => false,
        };
        let (is_const_table, has_initial_entries) = match t.entries() {
            Some((entries, is_const)) => (is_const, !entries.is_empty()),
            None => (false, false),
        };

        let mut table = Table {
            preamble: Preamble {
                id: table_id,
                alias: ids.alias(&name),
                name: name.clone(),
                annotations: self.table_annotations(&t.annotations, control),
            },
            match_fields,
            action_refs,
            const_default_action_id,
            initial_default_action,
            implementation_id: 0,
            direct_resource_ids: Vec::new(),
            size,
            supports_idle_timeout,
            is_const_table,
            has_initial_entries,
        };

        // Direct resources, added to P4Info when their table is.
        for (prop, is_counter) in [("counters", true), ("meters", false)] {
            let prop = self.prop(prop);
            let Some(e) = t.property(prop) else { continue };
            let ExprKind::Name(p) = &e.kind else {
                return Err(unsupported(
                    format!("`{prop}` must name an instance"),
                    e.span,
                ));
            };
            let instance_named = |decls: &'a [Declaration]| {
                decls.iter().find_map(|d| match d {
                    Declaration::Instantiation(i) if i.name.as_str() == p.name.as_str() => Some(i),
                    _ => None,
                })
            };
            // The control's own instance, else a top-level one (named
            // without the control's prefix).
            let (inst, inst_prefix) = match instance_named(&control.locals) {
                Some(i) if !p.absolute => (i, prefix),
                _ => (
                    instance_named(&self.program.declarations)
                        .ok_or_else(|| invalid(format!("unknown instance `{}`", p.name), e.span))?,
                    "",
                ),
            };
            let iname = qualify(inst_prefix, &inst.annotations, inst.name.as_str());
            let unit_name = enum_member_arg(&inst.args, "type", 0)
                .ok_or_else(|| invalid("direct resource needs a type argument", inst.span))?;
            let (kind, not_found) = if is_counter {
                (
                    ResourceType::DirectCounter,
                    "`counters` must name a direct_counter",
                )
            } else {
                (
                    ResourceType::DirectMeter,
                    "`meters` must name a direct_meter",
                )
            };
            let id = ids
                .get(kind, &iname)
                .ok_or_else(|| invalid(not_found, e.span))?;
            table.direct_resource_ids.push(id);
            let preamble = Preamble {
                id,
                alias: ids.alias(&iname),
                name: iname,
                annotations: printed_annotations(&inst.annotations),
            };
            if is_counter {
                out.direct_counters.push(DirectCounter {
                    preamble,
                    unit: counter_unit(&unit_name),
                    direct_table_id: table_id,
                });
            } else {
                out.direct_meters.push(DirectMeter {
                    preamble,
                    unit: meter_unit(&unit_name),
                    direct_table_id: table_id,
                });
            }
        }
        match self.implementation(t, control, prefix)? {
            Some(Implementation::InPlace {
                name,
                property,
                type_name,
                args,
            }) => {
                table.implementation_id = ids.get(ResourceType::ActionProfile, &name).unwrap_or(0);
                let profile = self.action_profile(
                    ids,
                    name,
                    type_name,
                    args,
                    &property.annotations,
                    Some(control),
                )?;
                out.action_profiles.push(profile);
            }
            Some(Implementation::Instance(name)) => {
                table.implementation_id = ids.get(ResourceType::ActionProfile, &name).unwrap_or(0);
            }
            None => {}
        }
        out.tables.push(table);
        Ok(())
    }

    /// A table's annotations as P4Info prints them; for TNA, bf-p4c folds
    /// the expression of `@stage(...)`.
    fn table_annotations(
        &self,
        annotations: &[Annotation],
        control: &'a ControlDecl,
    ) -> Vec<String> {
        let mut out = printed_annotations(annotations);
        if self.tna_pipe.is_none() {
            return out;
        }
        let kept = annotations
            .iter()
            .filter(|a| !matches!(a.name.as_str(), "name" | "id" | "brief" | "description"));
        for (printed, a) in out.iter_mut().zip(kept) {
            if a.name.as_str() != "stage" {
                continue;
            }
            if let AnnotationBody::Unstructured {
                expressions: Some(exprs),
                ..
            } = &a.body
                && let [e] = exprs.as_slice()
                && let Ok(v) = self.eval(e, Some(control))
            {
                *printed = format!("@stage({v})");
            }
        }
        out
    }

    /// Arguments of a default action call, as P4Runtime bytes.
    fn action_arguments(&self, decl: &ActionDecl, args: &[Argument]) -> Res<Vec<(u32, Vec<u8>)>> {
        let cp_params: Vec<&Param> = decl
            .params
            .iter()
            .filter(|p| p.direction == crate::front::ast::Direction::None)
            .collect();
        // Directional parameters are bound in the call too, before the
        // control-plane ones.
        let skip = decl.params.len() - cp_params.len();
        let mut out = Vec::new();
        for (i, arg) in args.iter().skip(skip).enumerate() {
            let Some(p) = cp_params.get(i) else { break };
            let width = self.width(&self.resolve(&p.ty)?).unwrap_or(0);
            let value = self.eval(&arg.value, None)?;
            let id = u32::try_from(i + 1).unwrap_or(u32::MAX);
            out.push((id, value_bytes(value, width)));
        }
        Ok(out)
    }

    fn add_instance(
        &self,
        ids: &AssignedIds,
        i: &'a Instantiation,
        control: Option<&'a ControlDecl>,
        prefix: &str,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
    ) -> Res<()> {
        let Some(ty) = self.instance_resource(i)? else {
            return Ok(());
        };
        let name = qualify(prefix, &i.annotations, i.name.as_str());
        let preamble = Preamble {
            id: ids.get(ty, &name).unwrap_or(0),
            alias: ids.alias(&name),
            name: name.clone(),
            annotations: printed_annotations(&i.annotations),
        };
        let size = |this: &Self| -> Res<i64> {
            let arg = named_or_positional(&i.args, "size", 0)
                .ok_or_else(|| invalid("missing size argument", i.span))?;
            let v = this.eval(&arg.value, control)?;
            i64::try_from(v).map_err(|_| invalid("size out of range", arg.value.span))
        };
        match ty {
            ResourceType::Counter => {
                let unit = enum_member_arg(&i.args, "type", 1)
                    .ok_or_else(|| invalid("counter needs a CounterType", i.span))?;
                out.counters.push(Counter {
                    preamble,
                    unit: counter_unit(&unit),
                    size: size(self)?,
                });
            }
            ResourceType::Meter => {
                let unit = enum_member_arg(&i.args, "type", 1)
                    .ok_or_else(|| invalid("meter needs a MeterType", i.span))?;
                out.meters.push(Meter {
                    preamble,
                    unit: meter_unit(&unit),
                    size: size(self)?,
                });
            }
            ResourceType::ActionProfile => {
                let profile = self.action_profile(
                    ids,
                    name,
                    instance_type(i),
                    &i.args,
                    &i.annotations,
                    control,
                )?;
                out.action_profiles.push(profile);
            }
            ResourceType::Register => {
                let TypeKind::Specialized { args, .. } = &i.ty.kind else {
                    return Err(invalid("register needs a type argument", i.ty.span));
                };
                let elem = args
                    .first()
                    .ok_or_else(|| invalid("register needs a type argument", i.ty.span))?;
                let t = self.resolve(elem)?;
                let info = type_info.get_or_insert_with(TypeInfo::default);
                let type_spec = self.type_spec(&t, info, elem.span)?;
                out.registers.push(Register {
                    preamble,
                    type_spec,
                    size: size(self)?,
                });
            }
            // Direct resources appear with their table.
            _ => {}
        }
        Ok(())
    }

    /// A table's `implementation`: an action profile or selector it
    /// constructs (named by the property's `@name`, without the control's
    /// prefix, as p4c's `getExternInstanceFromProperty`), or an instance's
    /// name.
    fn implementation(
        &self,
        t: &'a TableDecl,
        control: &'a ControlDecl,
        prefix: &str,
    ) -> Res<Option<Implementation<'a>>> {
        let Some(property) = t.properties.iter().find(|p| {
            matches!(&p.kind, TablePropertyKind::Other { name, .. } if name.as_str() == self.prop("implementation"))
        }) else {
            return Ok(None);
        };
        let TablePropertyKind::Other { value, .. } = &property.kind else {
            return Ok(None);
        };
        match &value.kind {
            ExprKind::Call { callee, args, .. } => {
                let ExprKind::Name(p) = &callee.kind else {
                    return Err(invalid(
                        "expected an action profile or selector",
                        value.span,
                    ));
                };
                let name = find_annotation(&property.annotations, "name")
                    .and_then(|a| a.string_argument())
                    .ok_or_else(|| {
                        unsupported(
                            format!(
                                "table `{}` has an anonymous `implementation` with no @name, which P4Runtime cannot name",
                                t.name
                            ),
                            property.span,
                        )
                    })?;
                Ok(Some(Implementation::InPlace {
                    name: name.strip_prefix('.').unwrap_or(name).to_string(),
                    property,
                    type_name: p.name.as_str(),
                    args,
                }))
            }
            ExprKind::Name(p) => {
                let named = |decls: &'a [Declaration]| {
                    decls.iter().find_map(|d| match d {
                        Declaration::Instantiation(i) if i.name.as_str() == p.name.as_str() => {
                            Some(i)
                        }
                        _ => None,
                    })
                };
                let (inst, inst_prefix) = match named(&control.locals) {
                    Some(i) if !p.absolute => (i, prefix),
                    _ => (
                        named(&self.program.declarations).ok_or_else(|| {
                            invalid(format!("unknown instance `{}`", p.name), value.span)
                        })?,
                        "",
                    ),
                };
                Ok(Some(Implementation::Instance(qualify(
                    inst_prefix,
                    &inst.annotations,
                    inst.name.as_str(),
                ))))
            }
            _ => Err(invalid(
                "`implementation` must name or construct an action profile or selector",
                value.span,
            )),
        }
    }

    /// Records that the table `table` (in the control at `prefix`) is
    /// implemented by the action profile `profile`.
    fn note_profile_table(
        &mut self,
        profile: String,
        annotations: &[Annotation],
        table: &str,
        prefix: &str,
    ) {
        self.profile_tables
            .entry(profile)
            .or_default()
            .insert(qualify(prefix, annotations, table));
    }

    /// p4c's `addActionProfile`: an action profile or selector named
    /// `name`, constructed as `type_name(args)`.
    fn action_profile(
        &self,
        ids: &AssignedIds,
        name: String,
        type_name: &str,
        args: &[Argument],
        annotations: &[Annotation],
        control: Option<&'a ControlDecl>,
    ) -> Res<ActionProfile> {
        let with_selector = match type_name {
            "action_selector" | "ActionSelector" => true,
            "action_profile" | "ActionProfile" => false,
            other => {
                return Err(invalid(
                    format!("expected an action profile or selector, not `{other}`"),
                    annotations.first().map(|a| a.span).unwrap_or_default(),
                ));
            }
        };
        let span = args.first().map(|a| a.value.span).unwrap_or_default();
        let size_arg = named_or_positional(args, "size", usize::from(with_selector))
            .ok_or_else(|| invalid(format!("`{name}` needs a size"), span))?;
        let size = i64::try_from(self.eval(&size_arg.value, control)?)
            .map_err(|_| invalid("size out of range", size_arg.value.span))?;
        let int_annotation = |anno: &str| -> Res<Option<i32>> {
            let Some(a) = find_annotation(annotations, anno) else {
                return Ok(None);
            };
            a.integer_argument()
                .and_then(|v| v.to_u128())
                .and_then(|v| i32::try_from(v).ok())
                .map(Some)
                .ok_or_else(|| invalid(format!("@{anno} needs one integer"), a.span))
        };
        // p4c ignores these three (with a warning) on a profile without a
        // selector.
        let (mut max_group_size, mut selector_size_semantics) = (0, None);
        if with_selector {
            max_group_size = int_annotation("max_group_size")?.unwrap_or(0);
            if let Some(a) = find_annotation(annotations, "selector_size_semantics") {
                let value = a.string_argument().unwrap_or_default().to_ascii_lowercase();
                selector_size_semantics = Some(match value.as_str() {
                    "sum_of_weights" => SelectorSizeSemantics::SumOfWeights,
                    "sum_of_members" => SelectorSizeSemantics::SumOfMembers {
                        max_member_weight: int_annotation("max_member_weight")?.unwrap_or(0),
                    },
                    _ => {
                        return Err(invalid(
                            "@selector_size_semantics must be \"sum_of_weights\" or \"sum_of_members\"",
                            a.span,
                        ));
                    }
                });
            }
        }
        let kept: Vec<Annotation> = annotations
            .iter()
            .filter(|a| {
                !matches!(
                    a.name.as_str(),
                    "max_group_size" | "selector_size_semantics" | "max_member_weight"
                )
            })
            .cloned()
            .collect();
        let table_ids = self
            .profile_tables
            .get(&name)
            .into_iter()
            .flatten()
            .map(|t| ids.get(ResourceType::Table, t).unwrap_or(0))
            .collect();
        Ok(ActionProfile {
            preamble: Preamble {
                id: ids.get(ResourceType::ActionProfile, &name).unwrap_or(0),
                alias: ids.alias(&name),
                name,
                annotations: printed_annotations(&kept),
            },
            table_ids,
            with_selector,
            size,
            max_group_size,
            selector_size_semantics,
        })
    }

    /// p4c's `addValueSet`: the members' fields as match fields.
    fn add_value_set(
        &self,
        ids: &AssignedIds,
        v: &'a ValueSetDecl,
        prefix: &str,
        out: &mut P4Info,
    ) -> Res<()> {
        let name = qualify(prefix, &v.annotations, v.name.as_str());
        let size = self.eval(&v.size, None)?;
        let size = i32::try_from(size)
            .ok()
            .filter(|s| *s >= 0)
            .ok_or_else(|| invalid("a value set's size must fit in 0..2^31", v.size.span))?;
        let field =
            |id: u32, name: String, annotations: Vec<String>, bitwidth, match_type| MatchField {
                id,
                name,
                annotations,
                bitwidth,
                match_type,
                type_name: None,
            };
        let not_bits = || {
            unsupported(
                "a value set's type must be bit<W>, a struct of bit<W> fields or a serializable enum in P4Info",
                v.element.span,
            )
        };
        let matches = match self.resolve(&v.element)? {
            CpType::Bit(w) | CpType::Int(w) => {
                vec![field(1, String::new(), Vec::new(), w, MatchType::Exact)]
            }
            CpType::Struct(s) => {
                let fields = self.resolver.borrow_mut().fields(&s)?;
                let annos: Vec<&[Annotation]> =
                    fields.iter().map(|f| f.annotations.as_slice()).collect();
                let field_id_list = field_ids(&annos)?;
                let mut matches = Vec::new();
                for (f, id) in fields.iter().zip(field_id_list) {
                    let (CpType::Bit(w) | CpType::Int(w)) = f.ty else {
                        return Err(not_bits());
                    };
                    let match_type = match match_annotation(&f.annotations).as_deref() {
                        None | Some("exact") => MatchType::Exact,
                        Some("lpm") => MatchType::Lpm,
                        Some("ternary") => MatchType::Ternary,
                        Some("range") => MatchType::Range,
                        Some("optional") => MatchType::Optional,
                        Some(other) => MatchType::Other(other.to_string()),
                    };
                    let kept: Vec<Annotation> = f
                        .annotations
                        .iter()
                        .filter(|a| a.name.as_str() != "match")
                        .cloned()
                        .collect();
                    matches.push(field(
                        id,
                        annotated_name(&f.annotations, &f.name),
                        printed_annotations(&kept),
                        w,
                        match_type,
                    ));
                }
                matches
            }
            CpType::SerEnum(e, w) => {
                let members = self.resolver.borrow().enum_members(&e);
                (1..)
                    .zip(members)
                    .map(|(id, (m, _))| field(id, m.to_string(), Vec::new(), w, MatchType::Exact))
                    .collect()
            }
            _ => return Err(not_bits()),
        };
        out.value_sets.push(ValueSet {
            preamble: Preamble {
                id: ids.get(ResourceType::ValueSet, &name).unwrap_or(0),
                alias: ids.alias(&name),
                name,
                annotations: printed_annotations(&v.annotations),
            },
            matches,
            size,
        });
        Ok(())
    }

    fn add_controller_header(
        &self,
        ids: &AssignedIds,
        h: &'a StructDecl,
        out: &mut P4Info,
        type_info: &mut Option<TypeInfo>,
    ) -> Res<()> {
        if find_annotation(&h.annotations, "hidden").is_some() {
            return Ok(());
        }
        let anno = find_annotation(&h.annotations, "controller_header")
            .ok_or_else(|| invalid("missing @controller_header", h.span))?;
        let controller_name = anno
            .string_argument()
            .ok_or_else(|| invalid("@controller_header needs one string", anno.span))?
            .to_string();
        let symbol = annotated_name(&h.annotations, h.name.as_str());
        let symbol = symbol.strip_prefix('.').unwrap_or(&symbol);
        // p4c flattens a struct-typed field into its leaves, named
        // `field.leaf`, before it numbers them
        let mut leaves = Vec::new();
        self.controller_header_leaves(&h.fields, "", &mut leaves)?;
        let annos: Vec<&[Annotation]> = leaves.iter().map(|l| l.1.annotations.as_slice()).collect();
        let field_id_list = field_ids(&annos)?;
        let mut metadata = Vec::new();
        for ((name, f, t), fid) in leaves.into_iter().zip(field_id_list) {
            if find_annotation(&f.annotations, "hidden").is_some() {
                continue;
            }
            let info = type_info.get_or_insert_with(TypeInfo::default);
            self.type_spec(&t, info, f.span)?;
            metadata.push(PacketMetadata {
                id: fid,
                name,
                annotations: printed_annotations(&f.annotations),
                bitwidth: self
                    .width(&t)
                    .ok_or_else(|| invalid("controller header fields must be bit<W>", f.span))?,
                type_name: type_name(&t),
            });
        }
        out.controller_packet_metadata
            .push(ControllerPacketMetadata {
                preamble: Preamble {
                    id: ids.get(ResourceType::ControllerHeader, symbol).unwrap_or(0),
                    name: controller_name.clone(),
                    alias: controller_name,
                    annotations: printed_annotations(&h.annotations),
                },
                metadata,
            });
        Ok(())
    }

    /// The leaves of a controller header's `fields`, a struct-typed field
    /// flattened into its own: (name, field, type).
    fn controller_header_leaves(
        &self,
        fields: &'a [crate::front::ast::Field],
        prefix: &str,
        out: &mut Vec<(String, &'a crate::front::ast::Field, CpType)>,
    ) -> Res<()> {
        for f in fields {
            let name = format!(
                "{prefix}{}",
                annotated_name(&f.annotations, f.name.as_str())
            );
            let t = self.resolve(&f.ty)?;
            if let CpType::Struct(s) = &t
                && let Some(d) = self.struct_decl(s)
            {
                if out.len() > 1024 || prefix.len() > 4096 {
                    return Err(invalid("controller header nests too deep", f.span));
                }
                self.controller_header_leaves(&d.fields, &format!("{name}."), out)?;
            } else {
                out.push((name, f, t));
            }
        }
        Ok(())
    }

    /// p4c's `TypeSpecConverter`: the spec of `t`, recording named types in
    /// `info`.
    fn type_spec(&self, t: &CpType, info: &mut TypeInfo, span: Span) -> Res<TypeSpec> {
        Ok(match t {
            CpType::Bit(w) => TypeSpec::Bit(*w),
            CpType::Int(w) => TypeSpec::Int(*w),
            CpType::Varbit(w) => TypeSpec::Varbit(*w),
            CpType::Bool => TypeSpec::Bool,
            CpType::Error => {
                info.error = Some(self.resolver.borrow().errors().to_vec());
                TypeSpec::Error
            }
            CpType::Tuple(items) => TypeSpec::Tuple(
                items
                    .iter()
                    .map(|i| self.type_spec(i, info, span))
                    .collect::<Res<_>>()?,
            ),
            CpType::Struct(s) => {
                let name = s.to_string();
                if !info.structs.contains_key(&name) {
                    let fields = self.resolver.borrow_mut().fields(s)?;
                    let decl = self.struct_decl(s);
                    let mut members = Vec::new();
                    for (k, f) in fields.iter().enumerate() {
                        let field_span =
                            decl.and_then(|d| d.fields.get(k)).map_or(span, |d| d.span);
                        members.push((
                            annotated_name(&f.annotations, &f.name),
                            self.type_spec(&f.ty, info, field_span)?,
                        ));
                    }
                    info.structs.insert(name.clone(), members);
                }
                TypeSpec::Struct(name)
            }
            CpType::Header(s) => {
                let name = s.to_string();
                if !info.headers.contains_key(&name) {
                    let fields = self.resolver.borrow_mut().fields(s)?;
                    let decl = self.struct_decl(s);
                    let mut members = Vec::new();
                    for (k, f) in fields.iter().enumerate() {
                        let field_span =
                            decl.and_then(|d| d.fields.get(k)).map_or(span, |d| d.span);
                        let name = annotated_name(&f.annotations, &f.name);
                        self.header_members(&name, &f.ty, field_span, &mut members)?;
                    }
                    info.headers.insert(name.clone(), members);
                }
                TypeSpec::Header(name)
            }
            CpType::Union(s) => {
                let name = s.to_string();
                if !info.header_unions.contains_key(&name) {
                    let fields = self.resolver.borrow_mut().fields(s)?;
                    let decl = self.struct_decl(s);
                    let mut members = Vec::new();
                    for (k, f) in fields.iter().enumerate() {
                        let field_span =
                            decl.and_then(|d| d.fields.get(k)).map_or(span, |d| d.span);
                        let TypeSpec::Header(h) = self.type_spec(&f.ty, info, field_span)? else {
                            return Err(invalid(
                                "header union members must be headers",
                                field_span,
                            ));
                        };
                        members.push((f.name.to_string(), h));
                    }
                    info.header_unions.insert(name.clone(), members);
                }
                TypeSpec::HeaderUnion(name)
            }
            CpType::Stack(elem, size) => {
                let TypeSpec::Header(header) = self.type_spec(elem, info, span)? else {
                    return Err(unsupported("stacks of header unions in P4Info", span));
                };
                TypeSpec::HeaderStack {
                    header,
                    size: *size,
                }
            }
            CpType::Enum(e) => {
                let name = e.to_string();
                if !info.enums.contains_key(&name) {
                    let members = self.resolver.borrow().enum_members(e);
                    info.enums.insert(
                        name.clone(),
                        members.iter().map(|(m, _)| m.to_string()).collect(),
                    );
                }
                TypeSpec::Enum(name)
            }
            CpType::SerEnum(e, w) => {
                let name = e.to_string();
                if !info.serializable_enums.contains_key(&name) {
                    let members = self
                        .resolver
                        .borrow()
                        .enum_members(e)
                        .into_iter()
                        .map(|(m, v)| (m.to_string(), value_bytes(v, *w)))
                        .collect();
                    info.serializable_enums.insert(
                        name.clone(),
                        SerializableEnumSpec {
                            underlying_bitwidth: *w,
                            members,
                        },
                    );
                }
                TypeSpec::SerializableEnum(name)
            }
            CpType::NewType(n, inner) => {
                let name = n.to_string();
                if !info.new_types.contains_key(&name) {
                    let spec = match self.new_type_decl(n).and_then(translation) {
                        Some((uri, sdn_bitwidth)) => NewTypeSpec::Translated { uri, sdn_bitwidth },
                        // The bits underneath, even when it wraps
                        // another `type`.
                        None => {
                            NewTypeSpec::Original(self.type_spec(&underlying(inner), info, span)?)
                        }
                    };
                    info.new_types.insert(name.clone(), spec);
                }
                TypeSpec::NewType(name)
            }
            CpType::Other => {
                return Err(unsupported("this type in P4Info", span));
            }
        })
    }
}

/// The match kind a value set's struct field names in `@match(kind)`.
fn match_annotation(annotations: &[Annotation]) -> Option<String> {
    let anno = find_annotation(annotations, "match")?;
    match &anno.body {
        AnnotationBody::Unstructured {
            expressions: Some(exprs),
            ..
        } => match exprs.first().map(|e| &e.kind) {
            Some(ExprKind::Name(p)) => Some(p.name.to_string()),
            _ => None,
        },
        AnnotationBody::Unstructured { tokens, .. } => tokens.first().map(|t| t.text.to_string()),
        _ => None,
    }
}

/// The P4Info name of a top-level action: its `@name` or its name, global
/// even when copied into a control, as p4c's `TagGlobalActions` gives a
/// top-level action's `@name` a leading `.` (frontends/p4/localizeActions.cpp).
fn global_action_name(a: &ActionDecl) -> String {
    let name = annotated_name(&a.annotations, a.name.as_str());
    match name.strip_prefix('.') {
        Some(global) => global.to_string(),
        None => name,
    }
}

/// `t` without its `type` wrappers.
fn underlying(t: &CpType) -> CpType {
    match t {
        CpType::NewType(_, inner) => underlying(inner),
        other => other.clone(),
    }
}

/// The user-defined type name P4Info records for keys and parameters.
fn type_name(t: &CpType) -> Option<String> {
    match t {
        CpType::NewType(name, _) => Some(name.to_string()),
        _ => None,
    }
}

/// Big-endian bytes of `value` in `ceil(width / 8)` bytes (p4c's
/// `stringRepr`); negative values in two's complement.
fn value_bytes(value: i128, width: u32) -> Vec<u8> {
    let n = usize::try_from(width.div_ceil(8)).unwrap_or(0).max(1);
    let bytes = value.to_be_bytes();
    if n >= bytes.len() {
        let fill = if value < 0 { 0xff } else { 0 };
        let mut v = vec![fill; n - bytes.len()];
        v.extend_from_slice(&bytes);
        v
    } else {
        bytes[bytes.len() - n..].to_vec()
    }
}

fn named_or_positional<'e>(args: &'e [Argument], name: &str, index: usize) -> Option<&'e Argument> {
    if args.iter().any(|a| a.name.is_some()) {
        args.iter()
            .find(|a| a.name.as_ref().is_some_and(|n| n.as_str() == name))
    } else {
        args.get(index)
    }
}

/// The member name of an enum-valued constructor argument (`CounterType.bytes`).
fn enum_member_arg(args: &[Argument], name: &str, index: usize) -> Option<String> {
    // Direct resources take the type as their only argument.
    let arg = named_or_positional(args, name, index)
        .or_else(|| if args.len() == 1 { args.first() } else { None })?;
    match &arg.value.kind {
        ExprKind::Member { member, .. } => Some(member.to_string()),
        _ => None,
    }
}

fn counter_unit(name: &str) -> CounterUnit {
    match name.to_ascii_lowercase().as_str() {
        "packets" => CounterUnit::Packets,
        "bytes" => CounterUnit::Bytes,
        "packets_and_bytes" => CounterUnit::Both,
        _ => CounterUnit::Unspecified,
    }
}

fn meter_unit(name: &str) -> MeterUnit {
    match name {
        "packets" => MeterUnit::Packets,
        "bytes" => MeterUnit::Bytes,
        _ => MeterUnit::Unspecified,
    }
}

/// The type an instance instantiates, by name (`""` for other forms).
fn instance_type(i: &Instantiation) -> &str {
    match &i.ty.kind {
        TypeKind::Name(p) => p.name.as_str(),
        TypeKind::Specialized { base, .. } => base.name.as_str(),
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_bytes_pad_to_width() {
        assert_eq!(value_bytes(5, 9), vec![0, 5]);
        assert_eq!(value_bytes(1, 1), vec![1]);
        assert_eq!(value_bytes(-1, 16), vec![0xff, 0xff]);
        assert_eq!(value_bytes(0x0a00_0001, 32), vec![10, 0, 0, 1]);
    }
}
