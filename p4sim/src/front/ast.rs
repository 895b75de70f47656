//! The abstract syntax tree of a P4_16 program.
//!
//! It mirrors the source closely: names are not resolved and types are not
//! checked yet. Every node has a [`Span`]; annotations are kept with their
//! arguments because P4Info and the control plane need `@name`, `@id`,
//! `@priority`, `@defaultonly` and friends.

use std::sync::Arc;

pub use crate::front::lexer::IntLiteral;
use crate::front::lexer::Token;
use crate::front::source::{SourceMap, Span};

/// A parsed program: its top-level declarations (those of the included
/// headers first, in order) and the files they came from.
#[derive(Debug, Clone)]
pub struct Program {
    /// Declarations in source order.
    pub declarations: Vec<Declaration>,
    /// Every file read, for rendering diagnostics of later stages.
    pub sources: SourceMap,
}

/// A name as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The spelling.
    pub name: Arc<str>,
    /// Where it was written.
    pub span: Span,
}

impl Ident {
    /// The spelling as a `&str`.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Display for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// An annotation such as `@name("x")`, `@priority(3)` or `@hidden`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The name after `@`.
    pub name: Ident,
    /// What follows the name.
    pub body: AnnotationBody,
    /// From `@` to the end of the body.
    pub span: Span,
}

/// The argument part of an annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnnotationBody {
    /// `@hidden`
    Empty,
    /// `@name("x")`, `@id(5)`: the tokens between the parentheses, and the
    /// same parsed as a comma-separated expression list when they are one.
    Unstructured {
        /// Tokens as written.
        tokens: Vec<Token>,
        /// The tokens as expressions, when they parse as such.
        expressions: Option<Vec<Expr>>,
    },
    /// `@anno[1, "a"]`
    ExpressionList(Vec<Expr>),
    /// `@anno[key = 1, other = "a"]`
    KeyValues(Vec<NamedExpr>),
    /// `@pragma name args...`: the rest of the line.
    Pragma(Vec<Token>),
}

impl Annotation {
    /// The expressions of `@anno(e, ...)` or `@anno[e, ...]`, if any.
    pub fn expressions(&self) -> Option<&[Expr]> {
        match &self.body {
            AnnotationBody::Unstructured {
                expressions: Some(e),
                ..
            } => Some(e),
            AnnotationBody::ExpressionList(e) => Some(e),
            _ => None,
        }
    }

    /// The string of a one-string annotation such as `@name("a.b")`.
    pub fn string_argument(&self) -> Option<&str> {
        match self.expressions()? {
            [
                Expr {
                    kind: ExprKind::String(s),
                    ..
                },
            ] => Some(s),
            _ => None,
        }
    }

    /// The integer of a one-integer annotation such as `@id(7)`.
    pub fn integer_argument(&self) -> Option<&IntLiteral> {
        match self.expressions()? {
            [
                Expr {
                    kind: ExprKind::Int(v),
                    ..
                },
            ] => Some(v),
            _ => None,
        }
    }
}

/// Finds an annotation by name.
pub fn find_annotation<'a>(annotations: &'a [Annotation], name: &str) -> Option<&'a Annotation> {
    annotations.iter().find(|a| a.name.as_str() == name)
}

/// A top-level or local declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Declaration {
    /// `const T name = value;`
    Constant(ConstantDecl),
    /// `T name [= value];` (in controls, parsers, blocks)
    Variable(VariableDecl),
    /// `T(args) name;` such as `register<bit<32>>(1024) r;` or the package
    /// `V1Switch(...) main;`
    Instantiation(Instantiation),
    /// `typedef T name;` or `type T name;`
    Typedef(TypedefDecl),
    /// `header name { ... }`
    Header(StructDecl),
    /// `header_union name { ... }`
    HeaderUnion(StructDecl),
    /// `struct name { ... }`
    Struct(StructDecl),
    /// `enum [bit<N>] name { ... }`
    Enum(EnumDecl),
    /// `error { ... }`
    Error(MemberListDecl),
    /// `match_kind { ... }`
    MatchKind(MemberListDecl),
    /// `extern name<T> { constructors and methods }`
    ExternObject(ExternObjectDecl),
    /// `extern R name<T>(params);`
    ExternFunction(FunctionPrototype),
    /// `parser name<T>(params);` (a parser type, as in v1model.p4)
    ParserType(BlockTypeDecl),
    /// `parser name(params)(ctor params) { states }`
    Parser(ParserDecl),
    /// `control name<T>(params);`
    ControlType(BlockTypeDecl),
    /// `control name(params)(ctor params) { locals apply { } }`
    Control(ControlDecl),
    /// `package name<T>(params);`
    Package(BlockTypeDecl),
    /// `action name(params) { body }`
    Action(ActionDecl),
    /// `table name { properties }`
    Table(TableDecl),
    /// `R name<T>(params) { body }`
    Function(FunctionDecl),
    /// `value_set<T>(size) name;` (in a parser)
    ValueSet(ValueSetDecl),
}

/// `value_set<T>(size) name;`: a parser value set, a set of values of `T`
/// the control plane fills, which a `select` case can name as its keyset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueSetDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// The type of its members (`bit<W>`, a struct of `bit<W>` fields, ...).
    pub element: Type,
    /// Its capacity, a compile-time constant.
    pub size: Expr,
    /// Name.
    pub name: Ident,
    /// Whole declaration.
    pub span: Span,
}

impl Declaration {
    /// The declared name (`None` for `error` and `match_kind` lists).
    pub fn name(&self) -> Option<&Ident> {
        match self {
            Declaration::Constant(d) => Some(&d.name),
            Declaration::Variable(d) => Some(&d.name),
            Declaration::Instantiation(d) => Some(&d.name),
            Declaration::Typedef(d) => Some(&d.name),
            Declaration::Header(d) | Declaration::HeaderUnion(d) | Declaration::Struct(d) => {
                Some(&d.name)
            }
            Declaration::Enum(d) => Some(&d.name),
            Declaration::Error(_) | Declaration::MatchKind(_) => None,
            Declaration::ExternObject(d) => Some(&d.name),
            Declaration::ExternFunction(d) => Some(&d.name),
            Declaration::ParserType(d) | Declaration::ControlType(d) | Declaration::Package(d) => {
                Some(&d.name)
            }
            Declaration::Parser(d) => Some(&d.name),
            Declaration::Control(d) => Some(&d.name),
            Declaration::Action(d) => Some(&d.name),
            Declaration::Table(d) => Some(&d.name),
            Declaration::Function(d) => Some(&d.name),
            Declaration::ValueSet(d) => Some(&d.name),
        }
    }

    /// The span of the whole declaration.
    pub fn span(&self) -> Span {
        match self {
            Declaration::Constant(d) => d.span,
            Declaration::Variable(d) => d.span,
            Declaration::Instantiation(d) => d.span,
            Declaration::Typedef(d) => d.span,
            Declaration::Header(d) | Declaration::HeaderUnion(d) | Declaration::Struct(d) => d.span,
            Declaration::Enum(d) => d.span,
            Declaration::Error(d) | Declaration::MatchKind(d) => d.span,
            Declaration::ExternObject(d) => d.span,
            Declaration::ExternFunction(d) => d.span,
            Declaration::ParserType(d) | Declaration::ControlType(d) | Declaration::Package(d) => {
                d.span
            }
            Declaration::Parser(d) => d.span,
            Declaration::Control(d) => d.span,
            Declaration::Action(d) => d.span,
            Declaration::Table(d) => d.span,
            Declaration::Function(d) => d.span,
            Declaration::ValueSet(d) => d.span,
        }
    }
}

/// `const T name = value;`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstantDecl {
    /// Annotations before `const`.
    pub annotations: Vec<Annotation>,
    /// Declared type.
    pub ty: Type,
    /// Name.
    pub name: Ident,
    /// Initializer.
    pub value: Expr,
    /// Whole declaration.
    pub span: Span,
}

/// `T name [= value];`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Declared type.
    pub ty: Type,
    /// Name.
    pub name: Ident,
    /// Optional initializer.
    pub init: Option<Expr>,
    /// Whole declaration.
    pub span: Span,
}

/// `T(args) name;`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instantiation {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// The instantiated type, with type arguments if any.
    pub ty: Type,
    /// Constructor arguments.
    pub args: Vec<Argument>,
    /// Instance name.
    pub name: Ident,
    /// Implementations of the extern's abstract methods, from an
    /// initializer block `T(args) name = { void apply(...) {...} };`
    /// (empty without one).
    pub initializer: Vec<FunctionDecl>,
    /// Whole declaration.
    pub span: Span,
}

/// `typedef T name;` or `type T name;`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedefDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// `true` for `type` (a new type), `false` for `typedef` (an alias).
    pub new_type: bool,
    /// The aliased type.
    pub ty: Type,
    /// New name.
    pub name: Ident,
    /// Whole declaration.
    pub span: Span,
}

/// `header`, `header_union` or `struct` declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters (`struct S<T> { ... }`).
    pub type_params: Vec<Ident>,
    /// Fields in order.
    pub fields: Vec<Field>,
    /// Whole declaration.
    pub span: Span,
}

/// One field of a header, union or struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Annotations (for example `@alias`, `@field_list(1)`).
    pub annotations: Vec<Annotation>,
    /// Field type.
    pub ty: Type,
    /// Field name.
    pub name: Ident,
    /// From type to `;`.
    pub span: Span,
}

/// `enum [bit<N>] name { A [= value], ... }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Underlying type of a serializable enum.
    pub underlying: Option<Type>,
    /// Name.
    pub name: Ident,
    /// Members in order.
    pub members: Vec<EnumMember>,
    /// Whole declaration.
    pub span: Span,
}

/// One enum member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumMember {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Member name.
    pub name: Ident,
    /// Value (serializable enums only).
    pub value: Option<Expr>,
}

/// `error { ... }` or `match_kind { ... }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberListDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// The declared names.
    pub members: Vec<Ident>,
    /// Whole declaration.
    pub span: Span,
}

/// `extern name<T> { ... }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternObjectDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Constructors and methods in order.
    pub methods: Vec<MethodPrototype>,
    /// Whole declaration.
    pub span: Span,
}

/// A constructor or method inside an extern object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodPrototype {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Constructor or method.
    pub kind: MethodKind,
    /// Name (the extern's name for constructors).
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Whole prototype.
    pub span: Span,
}

/// What a [`MethodPrototype`] declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MethodKind {
    /// `Name(params);`
    Constructor,
    /// `[abstract] R name(params);`
    Method {
        /// Return type.
        return_type: Type,
        /// `abstract` methods are implemented by the instance.
        is_abstract: bool,
    },
}

/// `R name<T>(params)` of an extern or ordinary function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionPrototype {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Return type.
    pub return_type: Type,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Whole prototype (declaration for externs).
    pub span: Span,
}

/// `R name<T>(params) { body }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Return type.
    pub return_type: Type,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Body.
    pub body: Block,
    /// Whole declaration.
    pub span: Span,
}

/// Parameter direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// No direction written.
    None,
    /// `in`
    In,
    /// `out`
    Out,
    /// `inout`
    InOut,
}

/// One parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Annotations (such as `@optional`).
    pub annotations: Vec<Annotation>,
    /// Direction.
    pub direction: Direction,
    /// Type.
    pub ty: Type,
    /// Name.
    pub name: Ident,
    /// Default value.
    pub default: Option<Expr>,
    /// Whole parameter.
    pub span: Span,
}

/// `parser`, `control` or `package` type declaration (no body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockTypeDecl {
    /// Annotations (such as `@pipeline`, `@deparser`).
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Whole declaration.
    pub span: Span,
}

/// A parser with its states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParserDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Runtime parameters.
    pub params: Vec<Param>,
    /// Constructor parameters (`parser P(...)(bit<8> x)`).
    pub ctor_params: Vec<Param>,
    /// Constants, variables and instances declared before the states.
    pub locals: Vec<Declaration>,
    /// States in order.
    pub states: Vec<ParserState>,
    /// Whole declaration.
    pub span: Span,
}

/// `state name { statements transition ...; }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParserState {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// State name.
    pub name: Ident,
    /// Statements before the transition.
    pub statements: Vec<Statement>,
    /// The transition (`None`: implicitly `transition reject`).
    pub transition: Option<Transition>,
    /// Whole state.
    pub span: Span,
}

/// A state's transition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// Where to go.
    pub kind: TransitionKind,
    /// From `transition` to `;` or `}`.
    pub span: Span,
}

/// Where a transition goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransitionKind {
    /// `transition name;` (including `accept` and `reject`)
    Direct(Ident),
    /// `transition select(exprs) { cases }`
    Select {
        /// The selector expressions.
        exprs: Vec<Expr>,
        /// Cases in order.
        cases: Vec<SelectCase>,
    },
}

/// `keyset : state;`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectCase {
    /// One element per selector expression (or a single `default`/`_`).
    pub keys: Vec<Keyset>,
    /// Next state.
    pub next: Ident,
    /// Whole case.
    pub span: Span,
}

/// One element of a keyset in a select case or a table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keyset {
    /// A value to compare with.
    Expr(Expr),
    /// `value &&& mask`
    Mask {
        /// Value.
        value: Expr,
        /// Mask.
        mask: Expr,
    },
    /// `lo .. hi`
    Range {
        /// Low end, inclusive.
        lo: Expr,
        /// High end, inclusive.
        hi: Expr,
    },
    /// `default`
    Default(Span),
    /// `_`
    DontCare(Span),
}

/// A control with its locals and apply block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Runtime parameters.
    pub params: Vec<Param>,
    /// Constructor parameters.
    pub ctor_params: Vec<Param>,
    /// Constants, variables, instances, actions and tables.
    pub locals: Vec<Declaration>,
    /// The `apply { ... }` block.
    pub apply: Block,
    /// Whole declaration.
    pub span: Span,
}

/// `action name(params) { body }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Parameters (directionless ones come from the control plane).
    pub params: Vec<Param>,
    /// Body.
    pub body: Block,
    /// Whole declaration.
    pub span: Span,
}

/// `table name { properties }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Properties in order.
    pub properties: Vec<TableProperty>,
    /// Whole declaration.
    pub span: Span,
}

impl TableDecl {
    /// The `key` property.
    pub fn key(&self) -> Option<&[KeyElement]> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Key(k) => Some(k.as_slice()),
            _ => None,
        })
    }

    /// The `actions` property.
    pub fn actions(&self) -> Option<&[ActionRef]> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Actions(a) => Some(a.as_slice()),
            _ => None,
        })
    }

    /// The `default_action` property (and whether it is `const`).
    pub fn default_action(&self) -> Option<(&ActionRef, bool)> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::DefaultAction(a) => Some((a, p.is_const)),
            _ => None,
        })
    }

    /// The `entries` property (and whether it is `const`).
    pub fn entries(&self) -> Option<(&[TableEntry], bool)> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Entries(e) => Some((e.as_slice(), p.is_const)),
            _ => None,
        })
    }

    /// Any other property by name (`size`, `implementation`, `counters`...).
    pub fn property(&self, name: &str) -> Option<&Expr> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Other { name: n, value } if n.as_str() == name => Some(value),
            _ => None,
        })
    }
}

/// One table property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableProperty {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Written with `const`.
    pub is_const: bool,
    /// Which property.
    pub kind: TablePropertyKind,
    /// Whole property.
    pub span: Span,
}

/// The table properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TablePropertyKind {
    /// `key = { expr : match_kind; ... }`
    Key(Vec<KeyElement>),
    /// `actions = { a; b; }`
    Actions(Vec<ActionRef>),
    /// `default_action = a(args);`
    DefaultAction(ActionRef),
    /// `entries = { keyset : action; ... }`
    Entries(Vec<TableEntry>),
    /// Any other `name = expr;` (`size`, `implementation`, `counters`,
    /// `meters`, `support_timeout`, ...).
    Other {
        /// Property name.
        name: Ident,
        /// Its value.
        value: Expr,
    },
}

/// `expr : match_kind;`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyElement {
    /// Annotations (such as `@name("hdr.ipv4.dst")`).
    pub annotations: Vec<Annotation>,
    /// The matched expression.
    pub expr: Expr,
    /// The match kind name.
    pub match_kind: Ident,
    /// Whole element.
    pub span: Span,
}

/// An action named in `actions`, `default_action` or an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRef {
    /// Annotations (`@defaultonly`, `@tableonly`).
    pub annotations: Vec<Annotation>,
    /// The action's name (possibly `.name`).
    pub name: Path,
    /// Arguments, when written with parentheses.
    pub args: Vec<Argument>,
    /// Whether parentheses were written (`a` vs `a()`).
    pub has_parens: bool,
    /// Whole reference.
    pub span: Span,
}

/// One entry of `entries = { ... }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    /// Annotations (such as `@priority(3)`).
    pub annotations: Vec<Annotation>,
    /// Written with `const` inside a non-const `entries` list.
    pub is_const: bool,
    /// `priority = N :` prefix.
    pub priority: Option<Expr>,
    /// One keyset element per key (or a single `default`/`_`).
    pub keys: Vec<Keyset>,
    /// The action and its arguments.
    pub action: ActionRef,
    /// Whole entry.
    pub span: Span,
}

/// A possibly top-level-qualified name: `x` or `.x`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// Written with a leading `.` (top-level scope).
    pub absolute: bool,
    /// The name.
    pub name: Ident,
}

/// A type as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Type {
    /// Which type.
    pub kind: TypeKind,
    /// Where it was written.
    pub span: Span,
}

/// The types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    /// `bool`
    Bool,
    /// `error`
    Error,
    /// `string`
    String,
    /// `void`
    Void,
    /// `match_kind`
    MatchKind,
    /// `int` (arbitrary precision)
    InfInt,
    /// `bit<W>`; `bit` alone is `bit<1>`.
    Bit(Box<Expr>),
    /// `int<W>`
    Int(Box<Expr>),
    /// `varbit<W>`
    Varbit(Box<Expr>),
    /// A named type (`headers_t`, `.T`).
    Name(Path),
    /// `Name<args>` such as `register<bit<32>>`.
    Specialized {
        /// The generic type.
        base: Path,
        /// Type arguments.
        args: Vec<Type>,
    },
    /// `T[size]`
    Stack {
        /// Element type.
        element: Box<Type>,
        /// Number of elements.
        size: Box<Expr>,
    },
    /// `tuple<T, ...>`
    Tuple(Vec<Type>),
    /// `_` as a type argument.
    DontCare,
}

/// An expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// Which expression.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
}

/// The expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprKind {
    /// `true` / `false`
    Bool(bool),
    /// An integer literal.
    Int(IntLiteral),
    /// A string literal, escapes decoded.
    String(String),
    /// A name (`x`, `.x`, or `error` in `error.NoMatch`).
    Name(Path),
    /// `this`
    This,
    /// `_` as an argument (`f(_)`) or in a list.
    DontCare,
    /// `e.member`
    Member {
        /// The expression before the dot.
        base: Box<Expr>,
        /// The member name.
        member: Ident,
    },
    /// `e[index]`
    Index {
        /// The array or stack.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `e[hi:lo]`
    Slice {
        /// The sliced value.
        base: Box<Expr>,
        /// High bit, inclusive.
        hi: Box<Expr>,
        /// Low bit, inclusive.
        lo: Box<Expr>,
    },
    /// `f<T>(args)`: calls of functions, methods, actions, constructors.
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// Explicit type arguments.
        type_args: Vec<Type>,
        /// Arguments.
        args: Vec<Argument>,
    },
    /// A prefix operator.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A binary operator.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `cond ? a : b`
    Ternary {
        /// Condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        otherwise: Box<Expr>,
    },
    /// `(T) e`
    Cast {
        /// Target type.
        ty: Type,
        /// Converted value.
        expr: Box<Expr>,
    },
    /// `{ a, b, ... }`: a list or tuple, or a struct/header initializer
    /// by position.
    List {
        /// Elements.
        items: Vec<Expr>,
        /// Ends with `...` (remaining fields default).
        dots: bool,
    },
    /// `{ f = a, g = b }`
    StructInit {
        /// Field initializers.
        fields: Vec<NamedExpr>,
        /// Ends with `...`.
        dots: bool,
    },
    /// `{#}`: an invalid header or union.
    InvalidHeader,
    /// A base type in expression position, as in `bit<8>.minSizeInBits()`
    /// (generic names such as `Register<bit<8>>(4)` are a [`ExprKind::Call`]
    /// with type arguments instead).
    Type(Type),
}

/// `name = expr`, in struct initializers and structured annotations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedExpr {
    /// Field or key name.
    pub name: Ident,
    /// Value.
    pub value: Expr,
}

/// A call argument, possibly named (`f(x = 1)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Argument {
    /// Parameter name for named arguments.
    pub name: Option<Ident>,
    /// The value (`ExprKind::DontCare` for `_`).
    pub value: Expr,
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `!`
    Not,
    /// `~`
    BitNot,
    /// `-`
    Neg,
    /// `+`
    Plus,
}

/// Binary operators, in P4's precedence groups (lowest first): `||`; `&&`;
/// `==` `!=`; `<` `>` `<=` `>=`; `|`; `^`; `&`; `<<` `>>`;
/// `++` `+` `-` `|+|` `|-|`; `*` `/` `%`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `++`
    Concat,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `|+|`
    SatAdd,
    /// `|-|`
    SatSub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

impl BinaryOp {
    /// Precedence level; higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 1,
            BinaryOp::And => 2,
            BinaryOp::Eq | BinaryOp::Ne => 3,
            BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge => 4,
            BinaryOp::BitOr => 5,
            BinaryOp::BitXor => 6,
            BinaryOp::BitAnd => 7,
            BinaryOp::Shl | BinaryOp::Shr => 8,
            BinaryOp::Concat
            | BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::SatAdd
            | BinaryOp::SatSub => 9,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => 10,
        }
    }

    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::BitAnd => "&",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Concat => "++",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::SatAdd => "|+|",
            BinaryOp::SatSub => "|-|",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
        }
    }
}

/// `{ statements }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Annotations before the block.
    pub annotations: Vec<Annotation>,
    /// Statements in order.
    pub statements: Vec<Statement>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// Which statement.
    pub kind: StatementKind,
    /// Where it was written.
    pub span: Span,
}

/// The statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatementKind {
    /// `lhs = rhs;` or a compound assignment `lhs op= rhs;`
    Assign {
        /// Assigned location.
        lhs: Expr,
        /// For `+=` and friends, the operator.
        op: Option<BinaryOp>,
        /// Value.
        rhs: Expr,
    },
    /// `f(args);` (the expression is an [`ExprKind::Call`])
    Call(Expr),
    /// `if (cond) then [else otherwise]`
    If {
        /// Condition.
        cond: Expr,
        /// Taken when true.
        then: Box<Statement>,
        /// Taken when false.
        otherwise: Option<Box<Statement>>,
    },
    /// `switch (expr) { cases }`
    Switch {
        /// The switched value (often `t.apply().action_run`).
        expr: Expr,
        /// Cases in order.
        cases: Vec<SwitchCase>,
    },
    /// `{ ... }`
    Block(Block),
    /// `exit;`
    Exit,
    /// `return [expr];`
    Return(Option<Expr>),
    /// `;`
    Empty,
    /// A local constant, variable or instance.
    Declaration(Box<Declaration>),
    /// `for (init; cond; update) body`
    For {
        /// Declarations and assignments run once, before the first test.
        init: Vec<Statement>,
        /// The test before each iteration (`None`: always true).
        cond: Option<Expr>,
        /// Assignments and calls run after each iteration (and `continue`).
        update: Vec<Statement>,
        /// The loop body.
        body: Box<Statement>,
    },
    /// `for (T x in lo .. hi) body`, or `for (T x in stack) body` when
    /// `hi` is `None`.
    ForIn {
        /// The loop variable's type.
        ty: Type,
        /// The loop variable.
        name: Ident,
        /// The range's first value, or the collection.
        lo: Expr,
        /// The range's last value (inclusive).
        hi: Option<Expr>,
        /// The loop body.
        body: Box<Statement>,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
}

/// `label: { body }` or `label:` (falls through to the next case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchCase {
    /// The label.
    pub label: SwitchLabel,
    /// The body; `None` falls through.
    pub body: Option<Block>,
    /// Whole case.
    pub span: Span,
}

/// A switch label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwitchLabel {
    /// `default`
    Default(Span),
    /// An action name or a constant expression.
    Expr(Expr),
}
