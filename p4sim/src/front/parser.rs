//! A recursive-descent parser for P4_16.
//!
//! Ambiguities the grammar leaves to the compiler are settled the way p4c
//! settles them:
//! - `(T) e` is a cast when `T` is a type keyword or a declared type name,
//!   otherwise a parenthesised expression (the parser remembers the type
//!   names declared so far, as p4c's lexer does).
//! - A statement starting with a name is tried as a declaration first
//!   (`T x;`, `T(args) x;`) and re-read as an expression when the tokens do
//!   not fit one.
//! - `f<T>(x)` is a call with type arguments when a type list followed by
//!   `(` can be read after `f`; otherwise `<` is less-than.
//! - `>` `>` with nothing between them is a right shift; separately they
//!   close nested type argument lists.
//!
//! Constructs outside what p4sim supports (`typedef struct`, ...) are errors saying so.

use std::collections::HashSet;
use std::sync::Arc;

use crate::front::ast::*;
use crate::front::diagnostic::{Error, ErrorKind};
use crate::front::lexer::{Token, TokenKind, parse_int_literal, unquote};
use crate::front::source::Span;

type PResult<T> = Result<T, Error>;

/// Deepest nesting of expressions, statements and types accepted.
pub const MAX_NESTING: usize = 200;

/// Parses a preprocessed token stream (ending in [`TokenKind::Eof`]) into
/// top-level declarations.
pub fn parse_tokens(tokens: Vec<Token>) -> Result<Vec<Declaration>, Error> {
    let mut p = Parser::new(tokens);
    let mut declarations = Vec::new();
    while p.kind() != TokenKind::Eof {
        // The grammar's empty declaration: a `;` alone at top level (p4c
        // accepts it; its bmv2/psa.p4 has one after an extern).
        if p.eat(TokenKind::Semicolon).is_none() {
            declarations.push(p.top_level_declaration()?);
        }
    }
    Ok(declarations)
}

/// Parses a single expression from tokens (used for annotation bodies and
/// tests). Fails unless all tokens are used.
pub fn parse_expression_tokens(tokens: Vec<Token>) -> Result<Expr, Error> {
    let mut p = Parser::new(tokens);
    let e = p.expr()?;
    p.expect(TokenKind::Eof, "end of expression")?;
    Ok(e)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// Type names declared so far (global scope).
    type_names: HashSet<Arc<str>>,
    /// Type parameters of the declarations being parsed.
    type_params: Vec<Vec<Arc<str>>>,
    depth: usize,
}

fn ident(tok: &Token) -> Ident {
    Ident {
        name: tok.text.clone(),
        span: tok.span,
    }
}

fn describe(tok: &Token) -> String {
    match tok.kind {
        TokenKind::Ident => format!("identifier `{}`", tok.text),
        TokenKind::Int => format!("integer `{}`", tok.text),
        TokenKind::Str => format!("string {}", tok.text),
        TokenKind::Eof => "end of input".into(),
        TokenKind::Invalid(k) => format!("{} `{}`", k.message(), tok.text),
        k if k.is_keyword() => format!("keyword `{}`", tok.text),
        _ => format!("`{}`", tok.text),
    }
}

fn is_type_keyword(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Bit
            | TokenKind::Int_
            | TokenKind::Varbit
            | TokenKind::Bool
            | TokenKind::String_
            | TokenKind::Tuple
            | TokenKind::Error
            | TokenKind::Void
            | TokenKind::MatchKind
    )
}

impl Parser {
    fn new(mut toks: Vec<Token>) -> Parser {
        if toks.last().is_none_or(|t| t.kind != TokenKind::Eof) {
            let span = toks.last().map(|t| t.span).unwrap_or_default();
            toks.push(Token {
                kind: TokenKind::Eof,
                text: Arc::from(""),
                span: Span {
                    lo: span.hi,
                    ..span
                },
                line_start: true,
                space_before: true,
            });
        }
        Parser {
            toks,
            pos: 0,
            type_names: HashSet::new(),
            type_params: Vec::new(),
            depth: 0,
        }
    }

    // ----- token helpers -------------------------------------------------

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Token {
        let last = self.toks.len() - 1;
        &self.toks[(self.pos + n).min(last)]
    }

    fn kind(&self) -> TokenKind {
        self.peek().kind
    }

    fn kind_at(&self, n: usize) -> TokenKind {
        self.peek_at(n).kind
    }

    fn at_word(&self, word: &str) -> bool {
        self.kind() == TokenKind::Ident && &*self.peek().text == word
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token> {
        if self.kind() == kind {
            Some(self.bump())
        } else {
            None
        }
    }

    fn prev_span(&self) -> Span {
        self.toks
            .get(self.pos.saturating_sub(1))
            .map(|t| t.span)
            .unwrap_or_default()
    }

    fn error_here(&self, expected: &str) -> Error {
        let t = self.peek();
        if let TokenKind::Invalid(k) = t.kind {
            return Error::new(
                ErrorKind::Lex(format!("{} `{}`", k.message(), t.text)),
                t.span,
            );
        }
        Error::syntax(
            format!("expected {expected}, found {}", describe(t)),
            t.span,
        )
    }

    fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        if self.kind() == kind {
            Ok(self.bump())
        } else {
            Err(self.error_here(what))
        }
    }

    fn expect_punct(&mut self, kind: TokenKind) -> PResult<Token> {
        let what = format!("`{}`", kind.fixed_text().unwrap_or("?"));
        self.expect(kind, &what)
    }

    fn name(&mut self, what: &str) -> PResult<Ident> {
        match self.kind() {
            TokenKind::Ident => Ok(ident(&self.bump())),
            _ => Err(self.error_here(what)),
        }
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Parser) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return Err(Error::syntax(
                format!("nesting is deeper than {MAX_NESTING} levels"),
                self.peek().span,
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn is_type_name(&self, name: &str) -> bool {
        self.type_names.contains(name) || self.type_params.iter().flatten().any(|p| &**p == name)
    }

    fn declare_type(&mut self, name: &Ident) {
        self.type_names.insert(name.name.clone());
    }

    // ----- annotations ---------------------------------------------------

    fn annotations(&mut self) -> PResult<Vec<Annotation>> {
        let mut out = Vec::new();
        while let Some(at) = self.eat(TokenKind::At) {
            let name_tok = self.peek().clone();
            if !(name_tok.kind == TokenKind::Ident || name_tok.kind.is_keyword()) {
                return Err(self.error_here("annotation name"));
            }
            self.bump();
            let name = ident(&name_tok);
            let body = if &*name_tok.text == "pragma" {
                let mut toks = Vec::new();
                while self.kind() != TokenKind::Eof && !self.peek().line_start {
                    toks.push(self.bump());
                }
                AnnotationBody::Pragma(toks)
            } else if self.kind() == TokenKind::LParen {
                let open = self.bump();
                let mut depth = 0usize;
                let mut toks = Vec::new();
                loop {
                    match self.kind() {
                        TokenKind::Eof => {
                            return Err(Error::syntax("unclosed `(` in annotation", open.span));
                        }
                        TokenKind::LParen => depth += 1,
                        TokenKind::RParen if depth == 0 => break,
                        TokenKind::RParen => depth -= 1,
                        _ => {}
                    }
                    toks.push(self.bump());
                }
                self.bump();
                let expressions = parse_expression_list(&toks);
                AnnotationBody::Unstructured {
                    tokens: toks,
                    expressions,
                }
            } else if self.kind() == TokenKind::LBracket {
                self.bump();
                let kv = self.kind() == TokenKind::Ident && self.kind_at(1) == TokenKind::Assign;
                let body = if kv {
                    let mut pairs = Vec::new();
                    while self.kind() != TokenKind::RBracket {
                        let name = self.name("key name")?;
                        self.expect_punct(TokenKind::Assign)?;
                        let value = self.expr()?;
                        pairs.push(NamedExpr { name, value });
                        if self.eat(TokenKind::Comma).is_none() {
                            break;
                        }
                    }
                    AnnotationBody::KeyValues(pairs)
                } else {
                    let mut items = Vec::new();
                    while self.kind() != TokenKind::RBracket {
                        items.push(self.expr()?);
                        if self.eat(TokenKind::Comma).is_none() {
                            break;
                        }
                    }
                    AnnotationBody::ExpressionList(items)
                };
                self.expect_punct(TokenKind::RBracket)?;
                body
            } else {
                AnnotationBody::Empty
            };
            out.push(Annotation {
                name,
                body,
                span: at.span.to(self.prev_span()),
            });
        }
        Ok(out)
    }

    // ----- declarations --------------------------------------------------

    fn top_level_declaration(&mut self) -> PResult<Declaration> {
        let start = self.peek().span;
        let annotations = self.annotations()?;
        let decl = match self.kind() {
            TokenKind::Const => Declaration::Constant(self.constant(annotations, start)?),
            TokenKind::Typedef => self.typedef(annotations, start, false)?,
            TokenKind::Ident
                if self.at_word("type")
                    && (is_type_keyword(self.kind_at(1))
                        || matches!(self.kind_at(1), TokenKind::Ident | TokenKind::Dot)) =>
            {
                self.typedef(annotations, start, true)?
            }
            TokenKind::Header | TokenKind::HeaderUnion | TokenKind::Struct => {
                self.struct_like(annotations, start)?
            }
            TokenKind::Enum => self.enum_decl(annotations, start)?,
            TokenKind::Error if self.kind_at(1) == TokenKind::LBrace => {
                self.bump();
                Declaration::Error(self.member_list(annotations, start)?)
            }
            TokenKind::MatchKind if self.kind_at(1) == TokenKind::LBrace => {
                self.bump();
                Declaration::MatchKind(self.member_list(annotations, start)?)
            }
            TokenKind::Extern => self.extern_decl(annotations, start)?,
            TokenKind::Parser => self.parser_decl(annotations, start)?,
            TokenKind::Control => self.control_decl(annotations, start)?,
            TokenKind::Package => self.package_decl(annotations, start)?,
            TokenKind::Action => Declaration::Action(self.action(annotations, start)?),
            TokenKind::Table => {
                return Err(Error::syntax(
                    "tables can only be declared inside a control",
                    self.peek().span,
                ));
            }
            TokenKind::ValueSet => return Err(value_set_outside_parser(self.peek().span)),
            TokenKind::Eof => return Err(self.error_here("a declaration after annotations")),
            _ => self.type_led_top_level(annotations, start)?,
        };
        Ok(decl)
    }

    /// `T name(...) {...}` (function), `T(args) name;` (instance), or a
    /// mistaken top-level variable.
    fn type_led_top_level(
        &mut self,
        annotations: Vec<Annotation>,
        start: Span,
    ) -> PResult<Declaration> {
        if !(is_type_keyword(self.kind())
            || matches!(self.kind(), TokenKind::Ident | TokenKind::Dot))
        {
            return Err(self.error_here("a declaration"));
        }
        let ty = self.parse_type()?;
        if self.kind() == TokenKind::LParen {
            return Ok(Declaration::Instantiation(self.instantiation_rest(
                annotations,
                ty,
                start,
            )?));
        }
        let name = self.name("a name after the type")?;
        match self.kind() {
            TokenKind::LParen | TokenKind::Lt => {
                let type_params = self.type_param_list()?;
                self.type_params
                    .push(type_params.iter().map(|i| i.name.clone()).collect());
                let result = (|| {
                    let params = self.params()?;
                    let body = self.block(Vec::new())?;
                    Ok((params, body))
                })();
                self.type_params.pop();
                let (params, body) = result?;
                Ok(Declaration::Function(FunctionDecl {
                    annotations,
                    return_type: ty,
                    name,
                    type_params,
                    params,
                    body,
                    span: start.to(self.prev_span()),
                }))
            }
            TokenKind::Assign | TokenKind::Semicolon => Err(Error::syntax(
                "variables cannot be declared at top level; use `const`",
                name.span,
            )),
            _ => Err(self.error_here("`(` or `;`")),
        }
    }

    fn instantiation_rest(
        &mut self,
        annotations: Vec<Annotation>,
        ty: Type,
        start: Span,
    ) -> PResult<Instantiation> {
        let args = self.args()?;
        let name = self.name("an instance name")?;
        let mut initializer = Vec::new();
        if self.eat(TokenKind::Assign).is_some() {
            // `= { method implementations };`
            self.expect_punct(TokenKind::LBrace)?;
            while self.kind() != TokenKind::RBrace {
                if self.kind() == TokenKind::Eof {
                    return Err(self.error_here("`}` closing the initializer block"));
                }
                let m_start = self.peek().span;
                let m_annotations = self.annotations()?;
                if !(is_type_keyword(self.kind())
                    || matches!(self.kind(), TokenKind::Ident | TokenKind::Dot))
                {
                    return Err(self.error_here("a method implementation"));
                }
                let return_type = self.parse_type()?;
                let m_name = self.name("a method name")?;
                let params = self.params()?;
                let body = self.block(Vec::new())?;
                initializer.push(FunctionDecl {
                    annotations: m_annotations,
                    return_type,
                    name: m_name,
                    type_params: Vec::new(),
                    params,
                    body,
                    span: m_start.to(self.prev_span()),
                });
            }
            self.bump();
        }
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(Instantiation {
            annotations,
            ty,
            args,
            name,
            initializer,
            span: start.to(self.prev_span()),
        })
    }

    fn constant(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<ConstantDecl> {
        self.expect_punct(TokenKind::Const)?;
        let ty = self.parse_type()?;
        let name = self.name("a constant name")?;
        self.expect_punct(TokenKind::Assign)?;
        let value = self.expr()?;
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(ConstantDecl {
            annotations,
            ty,
            name,
            value,
            span: start.to(self.prev_span()),
        })
    }

    fn typedef(
        &mut self,
        mut annotations: Vec<Annotation>,
        start: Span,
        new_type: bool,
    ) -> PResult<Declaration> {
        self.bump(); // `typedef` or `type`
        annotations.extend(self.annotations()?);
        if matches!(
            self.kind(),
            TokenKind::Header | TokenKind::HeaderUnion | TokenKind::Struct | TokenKind::Enum
        ) {
            return Err(Error::unsupported(
                "a type declaration inside `typedef`; declare the type first and alias its name",
                self.peek().span,
            ));
        }
        let ty = self.parse_type()?;
        let name = self.name("the new type name")?;
        self.expect_punct(TokenKind::Semicolon)?;
        self.declare_type(&name);
        Ok(Declaration::Typedef(TypedefDecl {
            annotations,
            new_type,
            ty,
            name,
            span: start.to(self.prev_span()),
        }))
    }

    fn struct_like(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Declaration> {
        let kw = self.bump();
        let name = self.name("a type name")?;
        self.declare_type(&name);
        let type_params = self.type_param_list()?;
        self.expect_punct(TokenKind::LBrace)?;
        let mut fields = Vec::new();
        while self.kind() != TokenKind::RBrace {
            let fstart = self.peek().span;
            let annotations = self.annotations()?;
            let mut ty = self.nested(|p| p.parse_type())?;
            let fname = self.name("a field name")?;
            // p4c's C-style array field, `bit<8> arr[16]`: `bit<8>[16] arr`.
            if self.eat(TokenKind::LBracket).is_some() {
                let size = self.expr()?;
                self.expect_punct(TokenKind::RBracket)?;
                if self.kind() == TokenKind::LBracket {
                    return Err(self.error_here("`;` (one array size after a field name)"));
                }
                ty = Type {
                    span: ty.span.to(self.prev_span()),
                    kind: TypeKind::Stack {
                        element: Box::new(ty),
                        size: Box::new(size),
                    },
                };
            }
            self.expect_punct(TokenKind::Semicolon)?;
            fields.push(Field {
                annotations,
                ty,
                name: fname,
                span: fstart.to(self.prev_span()),
            });
        }
        self.bump();
        let decl = StructDecl {
            annotations,
            name,
            type_params,
            fields,
            span: start.to(self.prev_span()),
        };
        Ok(match kw.kind {
            TokenKind::Header => Declaration::Header(decl),
            TokenKind::HeaderUnion => Declaration::HeaderUnion(decl),
            _ => Declaration::Struct(decl),
        })
    }

    fn enum_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Declaration> {
        self.bump();
        let underlying = if self.kind() == TokenKind::Ident && self.kind_at(1) == TokenKind::LBrace
        {
            None
        } else {
            Some(self.parse_type()?)
        };
        let name = self.name("an enum name")?;
        self.declare_type(&name);
        self.expect_punct(TokenKind::LBrace)?;
        let mut members = Vec::new();
        while self.kind() != TokenKind::RBrace {
            let annotations = self.annotations()?;
            let mname = self.name("an enum member")?;
            let value = if self.eat(TokenKind::Assign).is_some() {
                Some(self.expr()?)
            } else {
                None
            };
            members.push(EnumMember {
                annotations,
                name: mname,
                value,
            });
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect_punct(TokenKind::RBrace)?;
        Ok(Declaration::Enum(EnumDecl {
            annotations,
            underlying,
            name,
            members,
            span: start.to(self.prev_span()),
        }))
    }

    fn member_list(
        &mut self,
        annotations: Vec<Annotation>,
        start: Span,
    ) -> PResult<MemberListDecl> {
        self.expect_punct(TokenKind::LBrace)?;
        let mut members = Vec::new();
        while self.kind() != TokenKind::RBrace {
            members.push(self.name("a member name")?);
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect_punct(TokenKind::RBrace)?;
        Ok(MemberListDecl {
            annotations,
            members,
            span: start.to(self.prev_span()),
        })
    }

    fn extern_decl(
        &mut self,
        mut annotations: Vec<Annotation>,
        start: Span,
    ) -> PResult<Declaration> {
        self.bump();
        annotations.extend(self.annotations()?);
        // `extern Name {` or `extern Name<T> {` is an object.
        if self.kind() == TokenKind::Ident {
            let save = self.pos;
            let name = self.name("an extern name")?;
            let params = self.type_param_list();
            if let Ok(type_params) = params
                && self.kind() == TokenKind::LBrace
            {
                self.declare_type(&name);
                return self.extern_object(annotations, name, type_params, start);
            }
            self.pos = save;
        }
        let return_type = self.parse_type()?;
        let name = self.name("an extern function name")?;
        let type_params = self.type_param_list()?;
        let params = self.params()?;
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(Declaration::ExternFunction(FunctionPrototype {
            annotations,
            return_type,
            name,
            type_params,
            params,
            span: start.to(self.prev_span()),
        }))
    }

    fn extern_object(
        &mut self,
        annotations: Vec<Annotation>,
        name: Ident,
        type_params: Vec<Ident>,
        start: Span,
    ) -> PResult<Declaration> {
        self.expect_punct(TokenKind::LBrace)?;
        self.type_params
            .push(type_params.iter().map(|i| i.name.clone()).collect());
        let result = (|| {
            let mut methods = Vec::new();
            while self.kind() != TokenKind::RBrace {
                methods.push(self.method_prototype(&name)?);
            }
            Ok(methods)
        })();
        self.type_params.pop();
        let methods = result?;
        self.bump();
        Ok(Declaration::ExternObject(ExternObjectDecl {
            annotations,
            name,
            type_params,
            methods,
            span: start.to(self.prev_span()),
        }))
    }

    fn method_prototype(&mut self, extern_name: &Ident) -> PResult<MethodPrototype> {
        let start = self.peek().span;
        let annotations = self.annotations()?;
        let (kind, name) = if self.kind() == TokenKind::Ident
            && self.peek().text == extern_name.name
            && matches!(self.kind_at(1), TokenKind::LParen | TokenKind::Lt)
        {
            (MethodKind::Constructor, self.name("constructor")?)
        } else {
            let is_abstract = self.eat(TokenKind::Abstract).is_some();
            let return_type = self.parse_type()?;
            let name = self.name("a method name")?;
            (
                MethodKind::Method {
                    return_type,
                    is_abstract,
                },
                name,
            )
        };
        let type_params = self.type_param_list()?;
        let params = self.params()?;
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(MethodPrototype {
            annotations,
            kind,
            name,
            type_params,
            params,
            span: start.to(self.prev_span()),
        })
    }

    fn type_param_list(&mut self) -> PResult<Vec<Ident>> {
        let mut out = Vec::new();
        if self.eat(TokenKind::Lt).is_none() {
            return Ok(out);
        }
        loop {
            out.push(self.name("a type parameter name")?);
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect_punct(TokenKind::Gt)?;
        Ok(out)
    }

    fn params(&mut self) -> PResult<Vec<Param>> {
        self.expect_punct(TokenKind::LParen)?;
        let mut out = Vec::new();
        if self.eat(TokenKind::RParen).is_some() {
            return Ok(out);
        }
        loop {
            let start = self.peek().span;
            let annotations = self.annotations()?;
            let direction = match self.kind() {
                TokenKind::In => Direction::In,
                TokenKind::Out => Direction::Out,
                TokenKind::Inout => Direction::InOut,
                _ => Direction::None,
            };
            if direction != Direction::None {
                self.bump();
            }
            let ty = self.parse_type()?;
            let name = self.name("a parameter name")?;
            let default = if self.eat(TokenKind::Assign).is_some() {
                Some(self.expr()?)
            } else {
                None
            };
            out.push(Param {
                annotations,
                direction,
                ty,
                name,
                default,
                span: start.to(self.prev_span()),
            });
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect_punct(TokenKind::RParen)?;
        Ok(out)
    }

    /// Common head of parser, control and package declarations.
    fn block_head(&mut self) -> PResult<(Ident, Vec<Ident>, Vec<Param>)> {
        self.bump();
        let name = self.name("a name")?;
        self.declare_type(&name);
        let type_params = self.type_param_list()?;
        self.type_params
            .push(type_params.iter().map(|i| i.name.clone()).collect());
        let params = self.params();
        self.type_params.pop();
        Ok((name, type_params, params?))
    }

    fn package_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Declaration> {
        let (name, type_params, params) = self.block_head()?;
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(Declaration::Package(BlockTypeDecl {
            annotations,
            name,
            type_params,
            params,
            span: start.to(self.prev_span()),
        }))
    }

    fn parser_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Declaration> {
        let (name, type_params, params) = self.block_head()?;
        if self.eat(TokenKind::Semicolon).is_some() {
            return Ok(Declaration::ParserType(BlockTypeDecl {
                annotations,
                name,
                type_params,
                params,
                span: start.to(self.prev_span()),
            }));
        }
        self.type_params
            .push(type_params.iter().map(|i| i.name.clone()).collect());
        let body = self.parser_body();
        self.type_params.pop();
        let (ctor_params, locals, states) = body?;
        Ok(Declaration::Parser(ParserDecl {
            annotations,
            name,
            type_params,
            params,
            ctor_params,
            locals,
            states,
            span: start.to(self.prev_span()),
        }))
    }

    #[allow(clippy::type_complexity)]
    fn parser_body(&mut self) -> PResult<(Vec<Param>, Vec<Declaration>, Vec<ParserState>)> {
        let ctor_params = if self.kind() == TokenKind::LParen {
            self.params()?
        } else {
            Vec::new()
        };
        self.expect_punct(TokenKind::LBrace)?;
        let mut locals = Vec::new();
        let mut states = Vec::new();
        while self.kind() != TokenKind::RBrace {
            let start = self.peek().span;
            let annotations = self.annotations()?;
            if self.at_word("state") && self.kind_at(1) == TokenKind::Ident {
                states.push(self.parser_state(annotations, start)?);
                continue;
            }
            if !states.is_empty() {
                return Err(self.error_here("`state` or `}`"));
            }
            locals.push(self.local_declaration(annotations, start, false)?);
        }
        self.bump();
        Ok((ctor_params, locals, states))
    }

    fn parser_state(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<ParserState> {
        self.bump(); // `state`
        let name = self.name("a state name")?;
        self.expect_punct(TokenKind::LBrace)?;
        let mut statements = Vec::new();
        let mut transition = None;
        while self.kind() != TokenKind::RBrace {
            if self.kind() == TokenKind::Transition {
                transition = Some(self.transition()?);
                if self.kind() != TokenKind::RBrace {
                    return Err(self.error_here("`}` after the transition"));
                }
                break;
            }
            if self.kind() == TokenKind::Eof {
                return Err(self.error_here("`}`"));
            }
            statements.push(self.statement()?);
        }
        self.expect_punct(TokenKind::RBrace)?;
        Ok(ParserState {
            annotations,
            name,
            statements,
            transition,
            span: start.to(self.prev_span()),
        })
    }

    fn transition(&mut self) -> PResult<Transition> {
        let start = self.bump().span;
        if self.kind() == TokenKind::Select {
            self.bump();
            self.expect_punct(TokenKind::LParen)?;
            let mut exprs = Vec::new();
            if self.kind() != TokenKind::RParen {
                loop {
                    exprs.push(self.expr()?);
                    if self.eat(TokenKind::Comma).is_none() {
                        break;
                    }
                }
            }
            self.expect_punct(TokenKind::RParen)?;
            self.expect_punct(TokenKind::LBrace)?;
            let mut cases = Vec::new();
            while self.kind() != TokenKind::RBrace {
                let cstart = self.peek().span;
                if self.kind() == TokenKind::Eof {
                    return Err(self.error_here("a select case"));
                }
                let keys = self.keyset_list()?;
                self.expect_punct(TokenKind::Colon)?;
                let next = self.name("a state name")?;
                self.expect_punct(TokenKind::Semicolon)?;
                cases.push(SelectCase {
                    keys,
                    next,
                    span: cstart.to(self.prev_span()),
                });
            }
            self.bump();
            return Ok(Transition {
                kind: TransitionKind::Select { exprs, cases },
                span: start.to(self.prev_span()),
            });
        }
        let next = self.name("a state name or `select`")?;
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(Transition {
            kind: TransitionKind::Direct(next),
            span: start.to(self.prev_span()),
        })
    }

    /// A keyset: `(k1, k2)` or a single element.
    fn keyset_list(&mut self) -> PResult<Vec<Keyset>> {
        if self.kind() == TokenKind::LParen {
            let save = self.pos;
            let depth = self.depth;
            self.bump();
            let first = self.keyset();
            match first {
                Ok(first) if self.kind() == TokenKind::Comma => {
                    let mut keys = vec![first];
                    while self.eat(TokenKind::Comma).is_some() {
                        keys.push(self.keyset()?);
                    }
                    self.expect_punct(TokenKind::RParen)?;
                    return Ok(keys);
                }
                Ok(first)
                    if self.kind() == TokenKind::RParen && self.kind_at(1) == TokenKind::Colon =>
                {
                    self.bump();
                    return Ok(vec![first]);
                }
                _ => {
                    self.pos = save;
                    self.depth = depth;
                }
            }
        }
        Ok(vec![self.keyset()?])
    }

    fn keyset(&mut self) -> PResult<Keyset> {
        match self.kind() {
            TokenKind::Default => return Ok(Keyset::Default(self.bump().span)),
            TokenKind::DontCare => return Ok(Keyset::DontCare(self.bump().span)),
            _ => {}
        }
        let value = self.expr()?;
        if self.eat(TokenKind::Mask).is_some() {
            let mask = self.expr()?;
            return Ok(Keyset::Mask { value, mask });
        }
        if self.eat(TokenKind::DotDot).is_some() {
            let hi = self.expr()?;
            return Ok(Keyset::Range { lo: value, hi });
        }
        Ok(Keyset::Expr(value))
    }

    fn control_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Declaration> {
        let (name, type_params, params) = self.block_head()?;
        if self.eat(TokenKind::Semicolon).is_some() {
            return Ok(Declaration::ControlType(BlockTypeDecl {
                annotations,
                name,
                type_params,
                params,
                span: start.to(self.prev_span()),
            }));
        }
        self.type_params
            .push(type_params.iter().map(|i| i.name.clone()).collect());
        let body = self.control_body();
        self.type_params.pop();
        let (ctor_params, locals, apply) = body?;
        Ok(Declaration::Control(ControlDecl {
            annotations,
            name,
            type_params,
            params,
            ctor_params,
            locals,
            apply,
            span: start.to(self.prev_span()),
        }))
    }

    fn control_body(&mut self) -> PResult<(Vec<Param>, Vec<Declaration>, Block)> {
        let ctor_params = if self.kind() == TokenKind::LParen {
            self.params()?
        } else {
            Vec::new()
        };
        let open = self.expect_punct(TokenKind::LBrace)?;
        let mut locals = Vec::new();
        loop {
            let start = self.peek().span;
            let annotations = self.annotations()?;
            if self.at_word("apply") && self.kind_at(1) == TokenKind::LBrace {
                self.bump();
                let apply = self.block(annotations)?;
                self.expect(TokenKind::RBrace, "`}` after the apply block")?;
                return Ok((ctor_params, locals, apply));
            }
            match self.kind() {
                TokenKind::RBrace | TokenKind::Eof => {
                    return Err(Error::syntax(
                        "control has no `apply { ... }` block",
                        if self.kind() == TokenKind::Eof {
                            open.span
                        } else {
                            self.peek().span
                        },
                    ));
                }
                TokenKind::Action => {
                    locals.push(Declaration::Action(self.action(annotations, start)?));
                }
                TokenKind::Table => {
                    locals.push(Declaration::Table(self.table(annotations, start)?))
                }
                _ => locals.push(self.local_declaration(annotations, start, true)?),
            }
        }
    }

    /// Constants, variables and instances inside parsers and controls.
    fn local_declaration(
        &mut self,
        annotations: Vec<Annotation>,
        start: Span,
        in_control: bool,
    ) -> PResult<Declaration> {
        match self.kind() {
            TokenKind::Const => {
                return Ok(Declaration::Constant(self.constant(annotations, start)?));
            }
            TokenKind::ValueSet if !in_control => {
                return Ok(Declaration::ValueSet(self.value_set(annotations, start)?));
            }
            TokenKind::ValueSet => return Err(value_set_outside_parser(self.peek().span)),
            TokenKind::Action if !in_control => {
                return Err(Error::syntax(
                    "actions cannot be declared inside a parser",
                    self.peek().span,
                ));
            }
            _ => {}
        }
        if !(is_type_keyword(self.kind())
            || matches!(self.kind(), TokenKind::Ident | TokenKind::Dot))
        {
            let what = if in_control {
                "a declaration or `apply`"
            } else {
                "a declaration or `state`"
            };
            return Err(self.error_here(what));
        }
        let ty = self.parse_type()?;
        if self.kind() == TokenKind::LParen {
            return Ok(Declaration::Instantiation(self.instantiation_rest(
                annotations,
                ty,
                start,
            )?));
        }
        let name = self.name("a variable name")?;
        self.variable_rest(annotations, ty, name, start)
    }

    /// `value_set<T>(size) name;`
    fn value_set(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<ValueSetDecl> {
        self.bump();
        self.expect_punct(TokenKind::Lt)?;
        let mut args = self.type_args_rest()?;
        if args.len() != 1 {
            return Err(Error::syntax(
                "`value_set` takes one type argument",
                self.prev_span(),
            ));
        }
        let element = args.remove(0);
        self.expect_punct(TokenKind::LParen)?;
        let size = self.expr()?;
        self.expect_punct(TokenKind::RParen)?;
        let name = self.name("a value set name")?;
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(ValueSetDecl {
            annotations,
            element,
            size,
            name,
            span: start.to(self.prev_span()),
        })
    }

    fn variable_rest(
        &mut self,
        annotations: Vec<Annotation>,
        ty: Type,
        name: Ident,
        start: Span,
    ) -> PResult<Declaration> {
        let init = if self.eat(TokenKind::Assign).is_some() {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(Declaration::Variable(VariableDecl {
            annotations,
            ty,
            name,
            init,
            span: start.to(self.prev_span()),
        }))
    }

    fn action(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<ActionDecl> {
        self.expect_punct(TokenKind::Action)?;
        let name = self.name("an action name")?;
        let params = self.params()?;
        let body = self.block(Vec::new())?;
        Ok(ActionDecl {
            annotations,
            name,
            params,
            body,
            span: start.to(self.prev_span()),
        })
    }

    fn table(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<TableDecl> {
        self.expect_punct(TokenKind::Table)?;
        let name = self.name("a table name")?;
        self.expect_punct(TokenKind::LBrace)?;
        let mut properties = Vec::new();
        while self.kind() != TokenKind::RBrace {
            properties.push(self.table_property()?);
        }
        self.bump();
        Ok(TableDecl {
            annotations,
            name,
            properties,
            span: start.to(self.prev_span()),
        })
    }

    fn table_property(&mut self) -> PResult<TableProperty> {
        let start = self.peek().span;
        let annotations = self.annotations()?;
        let is_const = self.eat(TokenKind::Const).is_some();
        let pname = self.name("a table property")?;
        self.expect_punct(TokenKind::Assign)?;
        let kind = match pname.as_str() {
            "key" => {
                self.expect_punct(TokenKind::LBrace)?;
                let mut keys = Vec::new();
                while self.kind() != TokenKind::RBrace {
                    let kstart = self.peek().span;
                    let mut annotations = self.annotations()?;
                    let expr = self.expr()?;
                    self.expect_punct(TokenKind::Colon)?;
                    let match_kind = self.name("a match kind")?;
                    annotations.extend(self.annotations()?);
                    self.expect_punct(TokenKind::Semicolon)?;
                    keys.push(KeyElement {
                        annotations,
                        expr,
                        match_kind,
                        span: kstart.to(self.prev_span()),
                    });
                }
                self.bump();
                TablePropertyKind::Key(keys)
            }
            "actions" => {
                self.expect_punct(TokenKind::LBrace)?;
                let mut actions = Vec::new();
                while self.kind() != TokenKind::RBrace {
                    actions.push(self.action_ref()?);
                    self.expect_punct(TokenKind::Semicolon)?;
                }
                self.bump();
                TablePropertyKind::Actions(actions)
            }
            "default_action" => {
                let a = self.action_ref()?;
                self.expect_punct(TokenKind::Semicolon)?;
                TablePropertyKind::DefaultAction(a)
            }
            "entries" => {
                self.expect_punct(TokenKind::LBrace)?;
                let mut entries = Vec::new();
                while self.kind() != TokenKind::RBrace {
                    entries.push(self.table_entry()?);
                }
                self.bump();
                self.eat(TokenKind::Semicolon);
                TablePropertyKind::Entries(entries)
            }
            _ => {
                let value = self.expr()?;
                self.expect_punct(TokenKind::Semicolon)?;
                TablePropertyKind::Other { name: pname, value }
            }
        };
        Ok(TableProperty {
            annotations,
            is_const,
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn action_ref(&mut self) -> PResult<ActionRef> {
        let start = self.peek().span;
        let annotations = self.annotations()?;
        let absolute = self.eat(TokenKind::Dot).is_some();
        let name = self.name("an action name")?;
        let (args, has_parens) = if self.kind() == TokenKind::LParen {
            (self.args()?, true)
        } else {
            (Vec::new(), false)
        };
        Ok(ActionRef {
            annotations,
            name: Path { absolute, name },
            args,
            has_parens,
            span: start.to(self.prev_span()),
        })
    }

    fn table_entry(&mut self) -> PResult<TableEntry> {
        let start = self.peek().span;
        let mut annotations = self.annotations()?;
        let is_const = self.eat(TokenKind::Const).is_some();
        let priority = if self.at_word("priority") && self.kind_at(1) == TokenKind::Assign {
            self.bump();
            self.bump();
            let p = self.expr()?;
            self.expect_punct(TokenKind::Colon)?;
            Some(p)
        } else {
            None
        };
        if self.kind() == TokenKind::Eof {
            return Err(self.error_here("a table entry"));
        }
        let keys = self.keyset_list()?;
        self.expect_punct(TokenKind::Colon)?;
        let action = self.action_ref()?;
        annotations.extend(self.annotations()?);
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(TableEntry {
            annotations,
            is_const,
            priority,
            keys,
            action,
            span: start.to(self.prev_span()),
        })
    }

    // ----- types -----------------------------------------------------------

    fn parse_type(&mut self) -> PResult<Type> {
        self.nested(|p| p.parse_type_inner())
    }

    fn parse_type_inner(&mut self) -> PResult<Type> {
        let start = self.peek().span;
        let tok = self.peek().clone();
        let kind = match tok.kind {
            TokenKind::Bool => {
                self.bump();
                TypeKind::Bool
            }
            TokenKind::Error => {
                self.bump();
                TypeKind::Error
            }
            TokenKind::String_ => {
                self.bump();
                TypeKind::String
            }
            TokenKind::Void => {
                self.bump();
                TypeKind::Void
            }
            TokenKind::MatchKind => {
                self.bump();
                TypeKind::MatchKind
            }
            TokenKind::DontCare => {
                self.bump();
                TypeKind::DontCare
            }
            TokenKind::Bit | TokenKind::Int_ | TokenKind::Varbit => {
                self.bump();
                if self.kind() == TokenKind::Lt {
                    self.bump();
                    let width = self.type_width()?;
                    self.expect_punct(TokenKind::Gt)?;
                    match tok.kind {
                        TokenKind::Bit => TypeKind::Bit(Box::new(width)),
                        TokenKind::Int_ => TypeKind::Int(Box::new(width)),
                        _ => TypeKind::Varbit(Box::new(width)),
                    }
                } else {
                    match tok.kind {
                        TokenKind::Bit => TypeKind::Bit(Box::new(Expr {
                            kind: ExprKind::Int(IntLiteral::from_u128(1)),
                            span: tok.span,
                        })),
                        TokenKind::Int_ => TypeKind::InfInt,
                        _ => return Err(self.error_here("`<` after `varbit`")),
                    }
                }
            }
            TokenKind::Tuple => {
                self.bump();
                self.expect_punct(TokenKind::Lt)?;
                let args = self.type_args_rest()?;
                TypeKind::Tuple(args)
            }
            TokenKind::Ident | TokenKind::Dot => {
                let absolute = self.eat(TokenKind::Dot).is_some();
                let name = self.name("a type name")?;
                let path = Path { absolute, name };
                if self.kind() == TokenKind::Lt {
                    self.bump();
                    let args = self.type_args_rest()?;
                    TypeKind::Specialized { base: path, args }
                } else {
                    TypeKind::Name(path)
                }
            }
            _ => return Err(self.error_here("a type")),
        };
        let mut ty = Type {
            kind,
            span: start.to(self.prev_span()),
        };
        // Header stacks: `T[n]`, possibly several dimensions.
        while self.kind() == TokenKind::LBracket {
            self.bump();
            let size = self.expr()?;
            self.expect_punct(TokenKind::RBracket)?;
            ty = Type {
                kind: TypeKind::Stack {
                    element: Box::new(ty),
                    size: Box::new(size),
                },
                span: start.to(self.prev_span()),
            };
        }
        Ok(ty)
    }

    /// The width in `bit<W>`: an integer, a constant name or `(expr)`.
    fn type_width(&mut self) -> PResult<Expr> {
        match self.kind() {
            TokenKind::Int => self.primary(),
            TokenKind::Ident => {
                let name = self.name("a width")?;
                Ok(Expr {
                    span: name.span,
                    kind: ExprKind::Name(Path {
                        absolute: false,
                        name,
                    }),
                })
            }
            TokenKind::LParen => {
                self.bump();
                let e = self.expr()?;
                self.expect_punct(TokenKind::RParen)?;
                Ok(e)
            }
            _ => Err(self.error_here("a width (integer, constant or `(expression)`)")),
        }
    }

    /// After `<`: types separated by commas, then `>`.
    fn type_args_rest(&mut self) -> PResult<Vec<Type>> {
        let mut args = Vec::new();
        if self.kind() != TokenKind::Gt {
            loop {
                args.push(self.parse_type()?);
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
        }
        self.expect_punct(TokenKind::Gt)?;
        Ok(args)
    }

    // ----- statements ------------------------------------------------------

    fn block(&mut self, annotations: Vec<Annotation>) -> PResult<Block> {
        let open = self.expect_punct(TokenKind::LBrace)?;
        let mut statements = Vec::new();
        while self.kind() != TokenKind::RBrace {
            if self.kind() == TokenKind::Eof {
                return Err(Error::syntax("`{` is never closed", open.span));
            }
            statements.push(self.statement()?);
        }
        self.bump();
        Ok(Block {
            annotations,
            statements,
            span: open.span.to(self.prev_span()),
        })
    }

    fn statement(&mut self) -> PResult<Statement> {
        self.nested(|p| p.statement_inner())
    }

    // Statements nest through this function, so it only dispatches: the
    // arms live in separate functions to keep each recursion frame small.
    fn statement_inner(&mut self) -> PResult<Statement> {
        let start = self.peek().span;
        if self.kind() == TokenKind::At {
            return self.annotated_statement(start);
        }
        match self.kind() {
            TokenKind::LBrace => self.block_statement(start),
            TokenKind::If => self.if_statement(start),
            TokenKind::Switch => self.switch_statement(start),
            TokenKind::Ident | TokenKind::Dot => self.name_led_statement(start),
            _ => self.other_statement(start),
        }
    }

    #[inline(never)]
    fn annotated_statement(&mut self, start: Span) -> PResult<Statement> {
        let annotations = self.annotations()?;
        match self.kind() {
            TokenKind::LBrace => {
                let b = self.block(annotations)?;
                Ok(Statement {
                    span: start.to(b.span),
                    kind: StatementKind::Block(b),
                })
            }
            TokenKind::Const => {
                let d = self.constant(annotations, start)?;
                Ok(decl_statement(Declaration::Constant(d)))
            }
            _ => match self.try_local_declaration(annotations, start)? {
                Some(d) => Ok(decl_statement(d)),
                None => Err(Error::unsupported(
                    "annotations on statements other than blocks and declarations",
                    start,
                )),
            },
        }
    }

    #[inline(never)]
    fn block_statement(&mut self, start: Span) -> PResult<Statement> {
        let b = self.block(Vec::new())?;
        Ok(Statement {
            span: start.to(b.span),
            kind: StatementKind::Block(b),
        })
    }

    #[inline(never)]
    fn if_statement(&mut self, start: Span) -> PResult<Statement> {
        self.bump();
        self.expect_punct(TokenKind::LParen)?;
        let cond = self.expr()?;
        self.expect_punct(TokenKind::RParen)?;
        let then = Box::new(self.statement()?);
        let otherwise = if self.eat(TokenKind::Else).is_some() {
            Some(Box::new(self.statement()?))
        } else {
            None
        };
        Ok(Statement {
            kind: StatementKind::If {
                cond,
                then,
                otherwise,
            },
            span: start.to(self.prev_span()),
        })
    }

    /// `for (init; cond; update) body` or `for (T x in collection) body`.
    #[inline(never)]
    fn for_statement(&mut self, start: Span) -> PResult<Statement> {
        self.bump();
        self.expect_punct(TokenKind::LParen)?;
        // `T x in ...`: a type, a name, then `in`
        let save = (self.pos, self.depth);
        if let Ok(ty) = self.parse_type()
            && self.kind() == TokenKind::Ident
            && self.kind_at(1) == TokenKind::In
        {
            let name = self.name("a loop variable")?;
            self.bump();
            let lo = self.expr()?;
            let hi = match self.eat(TokenKind::DotDot) {
                Some(_) => Some(self.expr()?),
                None => None,
            };
            self.expect_punct(TokenKind::RParen)?;
            let body = Box::new(self.statement()?);
            return Ok(Statement {
                kind: StatementKind::ForIn {
                    ty,
                    name,
                    lo,
                    hi,
                    body,
                },
                span: start.to(self.prev_span()),
            });
        }
        (self.pos, self.depth) = save;
        let mut init = Vec::new();
        if self.eat(TokenKind::Semicolon).is_none() {
            loop {
                let s = self.for_clause(true)?;
                init.push(s);
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
            self.expect_punct(TokenKind::Semicolon)?;
        }
        let cond = if self.kind() == TokenKind::Semicolon {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect_punct(TokenKind::Semicolon)?;
        let mut update = Vec::new();
        if self.kind() != TokenKind::RParen {
            loop {
                update.push(self.for_clause(false)?);
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
        }
        self.expect_punct(TokenKind::RParen)?;
        let body = Box::new(self.statement()?);
        Ok(Statement {
            kind: StatementKind::For {
                init,
                cond,
                update,
                body,
            },
            span: start.to(self.prev_span()),
        })
    }

    /// One clause of a `for` header: a declaration (in `init` only), an
    /// assignment or a call, ended by `,`, `;` or `)` (not consumed).
    fn for_clause(&mut self, declarations: bool) -> PResult<Statement> {
        let start = self.peek().span;
        if declarations {
            let save = (self.pos, self.depth);
            if let Ok(ty) = self.parse_type()
                && self.kind() == TokenKind::Ident
                && matches!(self.kind_at(1), TokenKind::Assign)
            {
                let name = self.name("a variable name")?;
                self.bump();
                let init = Some(self.expr()?);
                return Ok(decl_statement(Declaration::Variable(VariableDecl {
                    annotations: Vec::new(),
                    ty,
                    name,
                    init,
                    span: start.to(self.prev_span()),
                })));
            }
            (self.pos, self.depth) = save;
        }
        let lhs = self.expr()?;
        let op = match self.kind() {
            TokenKind::Assign => None,
            TokenKind::PlusAssign => Some(BinaryOp::Add),
            TokenKind::MinusAssign => Some(BinaryOp::Sub),
            TokenKind::StarAssign => Some(BinaryOp::Mul),
            TokenKind::ShlAssign => Some(BinaryOp::Shl),
            TokenKind::AmpAssign => Some(BinaryOp::BitAnd),
            TokenKind::PipeAssign => Some(BinaryOp::BitOr),
            TokenKind::CaretAssign => Some(BinaryOp::BitXor),
            TokenKind::PlusSatAssign => Some(BinaryOp::SatAdd),
            TokenKind::MinusSatAssign => Some(BinaryOp::SatSub),
            TokenKind::Gt if self.kind_at(1) == TokenKind::Ge && self.peek_at(1).glued() => {
                self.bump();
                Some(BinaryOp::Shr)
            }
            _ => {
                let span = start.to(self.prev_span());
                return Ok(Statement {
                    kind: StatementKind::Call(lhs),
                    span,
                });
            }
        };
        self.bump();
        let rhs = self.expr()?;
        Ok(Statement {
            kind: StatementKind::Assign { lhs, op, rhs },
            span: start.to(self.prev_span()),
        })
    }

    #[inline(never)]
    fn switch_statement(&mut self, start: Span) -> PResult<Statement> {
        let kind = self.switch()?;
        Ok(Statement {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    #[inline(never)]
    fn name_led_statement(&mut self, start: Span) -> PResult<Statement> {
        if let Some(d) = self.try_local_declaration(Vec::new(), start)? {
            return Ok(decl_statement(d));
        }
        self.expression_statement(start)
    }

    #[inline(never)]
    fn other_statement(&mut self, start: Span) -> PResult<Statement> {
        let kind = match self.kind() {
            TokenKind::Semicolon => {
                self.bump();
                StatementKind::Empty
            }
            TokenKind::Exit => {
                self.bump();
                self.expect_punct(TokenKind::Semicolon)?;
                StatementKind::Exit
            }
            TokenKind::Return => {
                self.bump();
                let value = if self.kind() == TokenKind::Semicolon {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_punct(TokenKind::Semicolon)?;
                StatementKind::Return(value)
            }
            TokenKind::Const => {
                let d = self.constant(Vec::new(), start)?;
                return Ok(decl_statement(Declaration::Constant(d)));
            }
            TokenKind::For => return self.for_statement(start),
            TokenKind::Break => {
                self.bump();
                self.expect_punct(TokenKind::Semicolon)?;
                StatementKind::Break
            }
            TokenKind::Continue => {
                self.bump();
                self.expect_punct(TokenKind::Semicolon)?;
                StatementKind::Continue
            }
            TokenKind::Transition => {
                return Err(Error::syntax(
                    "`transition` must be the last statement of a parser state",
                    self.peek().span,
                ));
            }
            TokenKind::ValueSet => return Err(value_set_outside_parser(self.peek().span)),
            TokenKind::Action | TokenKind::Table => {
                let what = if self.kind() == TokenKind::Action {
                    "actions"
                } else {
                    "tables"
                };
                return Err(Error::syntax(
                    format!("{what} must be declared in the control, before `apply`"),
                    self.peek().span,
                ));
            }
            // `error.NoMatch` starts an expression; `error e;` declares.
            k if is_type_keyword(k)
                && !(k == TokenKind::Error && self.kind_at(1) == TokenKind::Dot) =>
            {
                let ty = self.parse_type()?;
                let name = self.name("a variable name")?;
                let d = self.variable_rest(Vec::new(), ty, name, start)?;
                return Ok(decl_statement(d));
            }
            _ => return self.expression_statement(start),
        };
        Ok(Statement {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// Tries `T name ...;` or `T(args) name;` at the cursor; restores the
    /// cursor and returns `None` when the tokens are not a declaration.
    fn try_local_declaration(
        &mut self,
        annotations: Vec<Annotation>,
        start: Span,
    ) -> PResult<Option<Declaration>> {
        let save = self.pos;
        let depth = self.depth;
        let restore = |p: &mut Parser| {
            p.pos = save;
            p.depth = depth;
        };
        let Ok(ty) = self.parse_type() else {
            restore(self);
            return Ok(None);
        };
        match self.kind() {
            TokenKind::Ident => {
                let name = self.name("a variable name")?;
                Ok(Some(self.variable_rest(annotations, ty, name, start)?))
            }
            TokenKind::LParen => {
                let args_ok = self.args().is_ok();
                if args_ok && self.kind() == TokenKind::Ident {
                    restore(self);
                    let ty = self.parse_type()?;
                    Ok(Some(Declaration::Instantiation(self.instantiation_rest(
                        annotations,
                        ty,
                        start,
                    )?)))
                } else {
                    restore(self);
                    Ok(None)
                }
            }
            _ => {
                restore(self);
                Ok(None)
            }
        }
    }

    fn expression_statement(&mut self, start: Span) -> PResult<Statement> {
        let lhs = self.expr()?;
        let compound = match self.kind() {
            TokenKind::Assign => Some(None),
            TokenKind::PlusAssign => Some(Some(BinaryOp::Add)),
            TokenKind::MinusAssign => Some(Some(BinaryOp::Sub)),
            TokenKind::StarAssign => Some(Some(BinaryOp::Mul)),
            TokenKind::SlashAssign => Some(Some(BinaryOp::Div)),
            TokenKind::PercentAssign => Some(Some(BinaryOp::Mod)),
            TokenKind::ShlAssign => Some(Some(BinaryOp::Shl)),
            TokenKind::AmpAssign => Some(Some(BinaryOp::BitAnd)),
            TokenKind::PipeAssign => Some(Some(BinaryOp::BitOr)),
            TokenKind::CaretAssign => Some(Some(BinaryOp::BitXor)),
            TokenKind::PlusSatAssign => Some(Some(BinaryOp::SatAdd)),
            TokenKind::MinusSatAssign => Some(Some(BinaryOp::SatSub)),
            TokenKind::Gt if self.kind_at(1) == TokenKind::Ge && self.peek_at(1).glued() => {
                self.bump();
                Some(Some(BinaryOp::Shr))
            }
            _ => None,
        };
        if let Some(op) = compound {
            self.bump();
            let rhs = self.expr()?;
            self.expect_punct(TokenKind::Semicolon)?;
            return Ok(Statement {
                kind: StatementKind::Assign { lhs, op, rhs },
                span: start.to(self.prev_span()),
            });
        }
        if !matches!(lhs.kind, ExprKind::Call { .. }) {
            return Err(if self.kind() == TokenKind::Semicolon {
                Error::syntax(
                    "an expression statement must be an assignment or a call",
                    lhs.span,
                )
            } else {
                self.error_here("`=`, `(` or `;`")
            });
        }
        self.expect_punct(TokenKind::Semicolon)?;
        Ok(Statement {
            kind: StatementKind::Call(lhs),
            span: start.to(self.prev_span()),
        })
    }

    fn switch(&mut self) -> PResult<StatementKind> {
        self.bump();
        self.expect_punct(TokenKind::LParen)?;
        let expr = self.expr()?;
        self.expect_punct(TokenKind::RParen)?;
        self.expect_punct(TokenKind::LBrace)?;
        let mut cases = Vec::new();
        while self.kind() != TokenKind::RBrace {
            let start = self.peek().span;
            let label = if self.kind() == TokenKind::Default {
                SwitchLabel::Default(self.bump().span)
            } else {
                if self.kind() == TokenKind::Eof {
                    return Err(self.error_here("a switch case"));
                }
                SwitchLabel::Expr(self.expr()?)
            };
            self.expect_punct(TokenKind::Colon)?;
            let body = if self.kind() == TokenKind::LBrace {
                Some(self.block(Vec::new())?)
            } else {
                None
            };
            cases.push(SwitchCase {
                label,
                body,
                span: start.to(self.prev_span()),
            });
        }
        self.bump();
        Ok(StatementKind::Switch { expr, cases })
    }

    // ----- expressions -----------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let cond = p.binary(1)?;
            if p.kind() != TokenKind::Question {
                return Ok(cond);
            }
            p.bump();
            let then = p.expr()?;
            p.expect(TokenKind::Colon, "`:` in `?:`")?;
            let otherwise = p.expr()?;
            Ok(Expr {
                span: cond.span.to(otherwise.span),
                kind: ExprKind::Ternary {
                    cond: Box::new(cond),
                    then: Box::new(then),
                    otherwise: Box::new(otherwise),
                },
            })
        })
    }

    /// The binary operator at the cursor and how many tokens it takes.
    fn binary_op(&self) -> Option<(BinaryOp, usize)> {
        let op = match self.kind() {
            TokenKind::OrOr => BinaryOp::Or,
            TokenKind::AndAnd => BinaryOp::And,
            TokenKind::EqEq => BinaryOp::Eq,
            TokenKind::Ne => BinaryOp::Ne,
            TokenKind::Lt => BinaryOp::Lt,
            TokenKind::Gt => {
                let next = self.peek_at(1);
                if next.glued() && next.kind == TokenKind::Gt {
                    return Some((BinaryOp::Shr, 2));
                }
                if next.glued() && next.kind == TokenKind::Ge {
                    return None; // `>>=`
                }
                BinaryOp::Gt
            }
            TokenKind::Le => BinaryOp::Le,
            TokenKind::Ge => BinaryOp::Ge,
            TokenKind::Pipe => BinaryOp::BitOr,
            TokenKind::Caret => BinaryOp::BitXor,
            TokenKind::Amp => BinaryOp::BitAnd,
            TokenKind::Shl => BinaryOp::Shl,
            TokenKind::PlusPlus => BinaryOp::Concat,
            TokenKind::Plus => BinaryOp::Add,
            TokenKind::Minus => BinaryOp::Sub,
            TokenKind::PlusSat => BinaryOp::SatAdd,
            TokenKind::MinusSat => BinaryOp::SatSub,
            TokenKind::Star => BinaryOp::Mul,
            TokenKind::Slash => BinaryOp::Div,
            TokenKind::Percent => BinaryOp::Mod,
            _ => return None,
        };
        Some((op, 1))
    }

    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, width)) = self.binary_op() {
            if op.precedence() < min {
                break;
            }
            for _ in 0..width {
                self.bump();
            }
            let rhs = self.nested(|p| p.binary(op.precedence() + 1))?;
            lhs = Expr {
                span: lhs.span.to(rhs.span),
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.nested(|p| p.unary_inner())
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let op = match self.kind() {
            TokenKind::Not => Some(UnaryOp::Not),
            TokenKind::Tilde => Some(UnaryOp::BitNot),
            TokenKind::Minus => Some(UnaryOp::Neg),
            TokenKind::Plus => Some(UnaryOp::Plus),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let operand = self.unary()?;
            return Ok(Expr {
                span: start.to(operand.span),
                kind: ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                },
            });
        }
        if self.kind() == TokenKind::LParen && self.cast_follows() {
            self.bump();
            let ty = self.parse_type()?;
            self.expect_punct(TokenKind::RParen)?;
            let operand = self.unary()?;
            return Ok(Expr {
                span: start.to(operand.span),
                kind: ExprKind::Cast {
                    ty,
                    expr: Box::new(operand),
                },
            });
        }
        let primary = self.primary()?;
        self.postfix(primary)
    }

    /// After `(`: is this a cast?
    fn cast_follows(&self) -> bool {
        match self.kind_at(1) {
            TokenKind::Bit | TokenKind::Int_ | TokenKind::Varbit | TokenKind::Bool => true,
            TokenKind::Tuple | TokenKind::String_ => true,
            TokenKind::Error => self.kind_at(2) == TokenKind::RParen,
            TokenKind::Ident => {
                self.is_type_name(&self.peek_at(1).text)
                    && matches!(
                        self.kind_at(2),
                        TokenKind::RParen | TokenKind::Lt | TokenKind::LBracket
                    )
            }
            TokenKind::Dot => {
                self.kind_at(2) == TokenKind::Ident
                    && self.is_type_name(&self.peek_at(2).text)
                    && self.kind_at(3) == TokenKind::RParen
            }
            _ => false,
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let tok = self.peek().clone();
        let kind = match tok.kind {
            TokenKind::Int => {
                self.bump();
                let value = parse_int_literal(&tok.text)
                    .map_err(|m| Error::new(ErrorKind::BadLiteral(m), tok.span))?;
                ExprKind::Int(value)
            }
            TokenKind::Str => {
                self.bump();
                ExprKind::String(unquote(&tok.text))
            }
            TokenKind::True => {
                self.bump();
                ExprKind::Bool(true)
            }
            TokenKind::False => {
                self.bump();
                ExprKind::Bool(false)
            }
            TokenKind::This => {
                self.bump();
                ExprKind::This
            }
            TokenKind::DontCare => {
                self.bump();
                ExprKind::DontCare
            }
            TokenKind::Ident => {
                self.bump();
                ExprKind::Name(Path {
                    absolute: false,
                    name: ident(&tok),
                })
            }
            TokenKind::Error => {
                self.bump();
                ExprKind::Name(Path {
                    absolute: false,
                    name: ident(&tok),
                })
            }
            TokenKind::Dot => {
                self.bump();
                let name = self.name("a name after `.`")?;
                ExprKind::Name(Path {
                    absolute: true,
                    name,
                })
            }
            TokenKind::LParen => {
                self.bump();
                let inner = self.expr()?;
                self.expect_punct(TokenKind::RParen)?;
                // Keep the parentheses in the span for better carets.
                return Ok(Expr {
                    kind: inner.kind,
                    span: tok.span.to(self.prev_span()),
                });
            }
            TokenKind::LBrace => return self.brace_expr(),
            TokenKind::Bit
            | TokenKind::Int_
            | TokenKind::Varbit
            | TokenKind::Bool
            | TokenKind::Tuple => {
                let ty = self.parse_type()?;
                ExprKind::Type(ty)
            }
            _ => return Err(self.error_here("an expression")),
        };
        Ok(Expr {
            kind,
            span: tok.span.to(self.prev_span()),
        })
    }

    fn brace_expr(&mut self) -> PResult<Expr> {
        let open = self.bump();
        if self.kind() == TokenKind::Hash && self.kind_at(1) == TokenKind::RBrace {
            self.bump();
            self.bump();
            return Ok(Expr {
                kind: ExprKind::InvalidHeader,
                span: open.span.to(self.prev_span()),
            });
        }
        let named = self.kind() == TokenKind::Ident && self.kind_at(1) == TokenKind::Assign;
        let mut dots = false;
        let kind = if named {
            let mut fields = Vec::new();
            while self.kind() != TokenKind::RBrace {
                if self.eat(TokenKind::Ellipsis).is_some() {
                    dots = true;
                    break;
                }
                let name = self.name("a field name")?;
                self.expect_punct(TokenKind::Assign)?;
                let value = self.expr()?;
                fields.push(NamedExpr { name, value });
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
            ExprKind::StructInit { fields, dots }
        } else {
            let mut items = Vec::new();
            while self.kind() != TokenKind::RBrace {
                if self.eat(TokenKind::Ellipsis).is_some() {
                    dots = true;
                    break;
                }
                items.push(self.expr()?);
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
            ExprKind::List { items, dots }
        };
        self.expect_punct(TokenKind::RBrace)?;
        Ok(Expr {
            kind,
            span: open.span.to(self.prev_span()),
        })
    }

    fn postfix(&mut self, mut e: Expr) -> PResult<Expr> {
        loop {
            match self.kind() {
                TokenKind::Dot => {
                    self.bump();
                    let member = self.name("a member name after `.`")?;
                    e = Expr {
                        span: e.span.to(member.span),
                        kind: ExprKind::Member {
                            base: Box::new(e),
                            member,
                        },
                    };
                }
                TokenKind::LBracket => {
                    self.bump();
                    let first = self.expr()?;
                    let kind = if self.eat(TokenKind::Colon).is_some() {
                        let lo = self.expr()?;
                        ExprKind::Slice {
                            base: Box::new(e.clone()),
                            hi: Box::new(first),
                            lo: Box::new(lo),
                        }
                    } else if self.eat(TokenKind::PlusColon).is_some() {
                        // `e[lo +: w]`, p4c's indexed part select: the w bits
                        // from lo up, `e[lo + w - 1 : lo]` (both constant).
                        let width = self.expr()?;
                        let span = first.span.to(width.span);
                        let sum = Expr {
                            kind: ExprKind::Binary {
                                op: BinaryOp::Add,
                                lhs: Box::new(first.clone()),
                                rhs: Box::new(width),
                            },
                            span,
                        };
                        let hi = Expr {
                            kind: ExprKind::Binary {
                                op: BinaryOp::Sub,
                                lhs: Box::new(sum),
                                rhs: Box::new(Expr {
                                    kind: ExprKind::Int(IntLiteral::from_u128(1)),
                                    span,
                                }),
                            },
                            span,
                        };
                        ExprKind::Slice {
                            base: Box::new(e.clone()),
                            hi: Box::new(hi),
                            lo: Box::new(first),
                        }
                    } else {
                        ExprKind::Index {
                            base: Box::new(e.clone()),
                            index: Box::new(first),
                        }
                    };
                    self.expect_punct(TokenKind::RBracket)?;
                    e = Expr {
                        span: e.span.to(self.prev_span()),
                        kind,
                    };
                }
                TokenKind::LParen => {
                    let args = self.args()?;
                    e = Expr {
                        span: e.span.to(self.prev_span()),
                        kind: ExprKind::Call {
                            callee: Box::new(e),
                            type_args: Vec::new(),
                            args,
                        },
                    };
                }
                TokenKind::Lt
                    if matches!(
                        e.kind,
                        ExprKind::Name(_) | ExprKind::Member { .. } | ExprKind::Type(_)
                    ) =>
                {
                    let save = self.pos;
                    let depth = self.depth;
                    self.bump();
                    match self.type_args_rest() {
                        Ok(type_args) if self.kind() == TokenKind::LParen => {
                            let args = self.args()?;
                            e = Expr {
                                span: e.span.to(self.prev_span()),
                                kind: ExprKind::Call {
                                    callee: Box::new(e),
                                    type_args,
                                    args,
                                },
                            };
                        }
                        _ => {
                            self.pos = save;
                            self.depth = depth;
                            return Ok(e);
                        }
                    }
                }
                _ => return Ok(e),
            }
        }
    }

    fn args(&mut self) -> PResult<Vec<Argument>> {
        self.expect_punct(TokenKind::LParen)?;
        let mut out = Vec::new();
        if self.eat(TokenKind::RParen).is_some() {
            return Ok(out);
        }
        loop {
            let name = if self.kind() == TokenKind::Ident && self.kind_at(1) == TokenKind::Assign {
                let n = self.name("an argument name")?;
                self.bump();
                Some(n)
            } else {
                None
            };
            let value = self.expr()?;
            out.push(Argument { name, value });
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect(TokenKind::RParen, "`,` or `)`")?;
        Ok(out)
    }
}

fn decl_statement(d: Declaration) -> Statement {
    Statement {
        span: d.span(),
        kind: StatementKind::Declaration(Box::new(d)),
    }
}

fn value_set_outside_parser(span: Span) -> Error {
    Error::syntax("a `value_set` can only be declared in a parser", span)
}

/// Parses annotation tokens as `e1, e2, ...`; `None` when they are not.
fn parse_expression_list(toks: &[Token]) -> Option<Vec<Expr>> {
    if toks.is_empty() {
        return Some(Vec::new());
    }
    let mut p = Parser::new(toks.to_vec());
    let mut out = Vec::new();
    loop {
        out.push(p.expr().ok()?);
        if p.eat(TokenKind::Comma).is_none() {
            break;
        }
    }
    (p.kind() == TokenKind::Eof).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex_file;
    use crate::front::source::{FileId, SourceFile};

    fn toks(src: &str) -> Vec<Token> {
        let file = SourceFile::new("t.p4", None, Arc::from(src));
        lex_file(FileId(0), &file)
    }

    fn parse(src: &str) -> Vec<Declaration> {
        match parse_tokens(toks(src)) {
            Ok(d) => d,
            Err(e) => panic!("parse failed: {e:?}"),
        }
    }

    fn parse_err(src: &str) -> Error {
        match parse_tokens(toks(src)) {
            Ok(d) => panic!("expected an error, got {d:?}"),
            Err(e) => e,
        }
    }

    /// Renders an expression with full parentheses to check precedence.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v) => v.to_u128().map_or("big".into(), |v| v.to_string()),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::String(s) => format!("{s:?}"),
            ExprKind::Name(p) => {
                format!("{}{}", if p.absolute { "." } else { "" }, p.name.as_str())
            }
            ExprKind::This => "this".into(),
            ExprKind::DontCare => "_".into(),
            ExprKind::Member { base, member } => format!("{}.{}", show(base), member.as_str()),
            ExprKind::Index { base, index } => format!("{}[{}]", show(base), show(index)),
            ExprKind::Slice { base, hi, lo } => {
                format!("{}[{}:{}]", show(base), show(hi), show(lo))
            }
            ExprKind::Call {
                callee,
                type_args,
                args,
            } => {
                let targs = if type_args.is_empty() {
                    String::new()
                } else {
                    format!("<{}>", type_args.len())
                };
                let args: Vec<String> = args
                    .iter()
                    .map(|a| match &a.name {
                        Some(n) => format!("{}={}", n.as_str(), show(&a.value)),
                        None => show(&a.value),
                    })
                    .collect();
                format!("{}{}({})", show(callee), targs, args.join(", "))
            }
            ExprKind::Unary { op, operand } => {
                let s = match op {
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                    UnaryOp::Neg => "-",
                    UnaryOp::Plus => "+",
                };
                format!("({s}{})", show(operand))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                format!("({} {} {})", show(lhs), op.symbol(), show(rhs))
            }
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => format!("({} ? {} : {})", show(cond), show(then), show(otherwise)),
            ExprKind::Cast { ty, expr } => format!("(cast<{}>{})", show_type(ty), show(expr)),
            ExprKind::List { items, dots } => {
                let items: Vec<String> = items.iter().map(show).collect();
                format!(
                    "{{{}{}}}",
                    items.join(", "),
                    if *dots { ", ..." } else { "" }
                )
            }
            ExprKind::StructInit { fields, dots } => {
                let f: Vec<String> = fields
                    .iter()
                    .map(|f| format!("{}={}", f.name.as_str(), show(&f.value)))
                    .collect();
                format!("{{{}{}}}", f.join(", "), if *dots { ", ..." } else { "" })
            }
            ExprKind::InvalidHeader => "{#}".into(),
            ExprKind::Type(t) => show_type(t),
        }
    }

    fn show_type(t: &Type) -> String {
        match &t.kind {
            TypeKind::Bit(w) => format!("bit<{}>", show(w)),
            TypeKind::Int(w) => format!("int<{}>", show(w)),
            TypeKind::Varbit(w) => format!("varbit<{}>", show(w)),
            TypeKind::Name(p) => p.name.to_string(),
            TypeKind::Specialized { base, args } => {
                let a: Vec<String> = args.iter().map(show_type).collect();
                format!("{}<{}>", base.name.as_str(), a.join(","))
            }
            TypeKind::Stack { element, size } => format!("{}[{}]", show_type(element), show(size)),
            TypeKind::Tuple(a) => {
                let a: Vec<String> = a.iter().map(show_type).collect();
                format!("tuple<{}>", a.join(","))
            }
            TypeKind::Bool => "bool".into(),
            TypeKind::Error => "error".into(),
            TypeKind::String => "string".into(),
            TypeKind::Void => "void".into(),
            TypeKind::MatchKind => "match_kind".into(),
            TypeKind::InfInt => "int".into(),
            TypeKind::DontCare => "_".into(),
        }
    }

    fn expr(src: &str) -> String {
        match parse_expression_tokens(toks(src)) {
            Ok(e) => show(&e),
            Err(e) => panic!("expression failed: {e:?}"),
        }
    }

    #[test]
    fn precedence_follows_p4() {
        assert_eq!(expr("a + b * c"), "(a + (b * c))");
        assert_eq!(expr("a & b == c"), "((a & b) == c)");
        assert_eq!(expr("a | b ^ c & d"), "(a | (b ^ (c & d)))");
        assert_eq!(expr("a << 1 + 2"), "(a << (1 + 2))");
        assert_eq!(expr("a ++ b + c"), "((a ++ b) + c)");
        assert_eq!(expr("a || b && c == d < e"), "(a || (b && (c == (d < e))))");
        assert_eq!(expr("a - b - c"), "((a - b) - c)");
        assert_eq!(expr("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
        assert_eq!(expr("-a.b[3]"), "(-a.b[3])");
        assert_eq!(
            expr("!a && ~b |+| c |-| d"),
            "((!a) && (((~b) |+| c) |-| d))"
        );
        assert_eq!(expr("a >> 2 >= b"), "((a >> 2) >= b)");
        assert_eq!(expr("x[7:0] ++ y[15:8]"), "(x[7:0] ++ y[15:8])");
    }

    #[test]
    fn casts_and_parentheses() {
        assert_eq!(expr("(bit<8>) x + 1"), "((cast<bit<8>>x) + 1)");
        assert_eq!(expr("(bit<32>)hdr.ipv4.ttl"), "(cast<bit<32>>hdr.ipv4.ttl)");
        assert_eq!(expr("(x) + 1"), "(x + 1)");
        assert_eq!(expr("(int<8>)-1"), "(cast<int<8>>(-1))");
        assert_eq!(expr("(bool)b"), "(cast<bool>b)");
        // A declared type name makes `(T)` a cast.
        let d = parse("typedef bit<9> port_t; const port_t P = (port_t) 3;");
        let Declaration::Constant(c) = &d[1] else {
            panic!()
        };
        assert_eq!(show(&c.value), "(cast<port_t>3)");
    }

    #[test]
    fn generic_calls_and_comparisons() {
        assert_eq!(expr("p.lookahead<bit<8>>()"), "p.lookahead<1>()");
        assert_eq!(expr("a < b"), "(a < b)");
        assert_eq!(expr("a < b && c > d"), "((a < b) && (c > d))");
        assert_eq!(expr("f(x = 1, _)"), "f(x=1, _)");
    }

    #[test]
    fn lists_and_struct_initializers() {
        assert_eq!(expr("{a, b, 8w1}"), "{a, b, 1}");
        assert_eq!(expr("{f = 1, g = x + 1}"), "{f=1, g=(x + 1)}");
        assert_eq!(expr("{f = 1, ...}"), "{f=1, ...}");
        assert_eq!(expr("{}"), "{}");
        assert_eq!(expr("{#}"), "{#}");
        assert_eq!(expr("error.NoMatch"), "error.NoMatch");
    }

    #[test]
    fn nested_type_arguments_close_with_two_gts() {
        let d = parse(
            "control C() { register<bit<32>>(1024) r; Register<bit<32>, _>(4) q; apply { } }",
        );
        let Declaration::Control(c) = &d[0] else {
            panic!()
        };
        let Declaration::Instantiation(i) = &c.locals[0] else {
            panic!()
        };
        assert_eq!(show_type(&i.ty), "register<bit<32>>");
        assert_eq!(i.name.as_str(), "r");
        let Declaration::Instantiation(i) = &c.locals[1] else {
            panic!()
        };
        assert_eq!(show_type(&i.ty), "Register<bit<32>,_>");
    }

    #[test]
    fn statements_tell_declarations_from_expressions() {
        let d = parse(
            "typedef bit<8> T; control C(inout T x) { apply { \
               T y = 1; bit<8> z; x = y; f<bit<8>>(x); h.s[0].v = 2; T[4] stack; \
               x >>= 1; x += 2; M() m; x = x >> 1; } }",
        );
        let Declaration::Control(c) = &d[1] else {
            panic!()
        };
        let kinds: Vec<&str> = c
            .apply
            .statements
            .iter()
            .map(|s| match &s.kind {
                StatementKind::Declaration(d) => match **d {
                    Declaration::Variable(_) => "var",
                    Declaration::Instantiation(_) => "inst",
                    _ => "decl",
                },
                StatementKind::Assign { op: None, .. } => "assign",
                StatementKind::Assign { op: Some(_), .. } => "compound",
                StatementKind::Call(_) => "call",
                _ => "other",
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                "var", "var", "assign", "call", "assign", "var", "compound", "compound", "inst",
                "assign"
            ]
        );
        let StatementKind::Assign { op, .. } = &c.apply.statements[6].kind else {
            panic!()
        };
        assert_eq!(*op, Some(BinaryOp::Shr));
    }

    #[test]
    fn error_positions_are_exact() {
        let e = parse_err("const bit<8> X = 1\nconst bit<8> Y = 2;");
        assert_eq!(
            e.kind,
            ErrorKind::Syntax("expected `;`, found keyword `const`".into())
        );
        assert_eq!((e.span.line, e.span.col), (2, 1));
        let e = parse_err("control C() { apply { x = ; } }");
        assert_eq!(
            e.kind,
            ErrorKind::Syntax("expected an expression, found `;`".into())
        );
        assert_eq!((e.span.line, e.span.col), (1, 27));
        let e = parse_err("control C() { apply { x + 1; } }");
        assert_eq!(
            e.kind,
            ErrorKind::Syntax("an expression statement must be an assignment or a call".into())
        );
        assert_eq!((e.span.line, e.span.col), (1, 23));
    }

    #[test]
    fn value_sets_are_declared_in_parsers_only() {
        let p =
            parse("parser P() { @x value_set<bit<8>>(4) vs; state start { transition accept; } }");
        let Declaration::Parser(parser) = &p[0] else {
            panic!("not a parser");
        };
        let Declaration::ValueSet(vs) = &parser.locals[0] else {
            panic!("not a value set");
        };
        assert_eq!(vs.name.as_str(), "vs");
        assert_eq!(vs.annotations.len(), 1);
        assert!(matches!(vs.element.kind, TypeKind::Bit(_)));
        let e = parse_err("control C() { value_set<bit<8>>(4) vs; apply { } }");
        assert_eq!(
            e.kind,
            ErrorKind::Syntax("a `value_set` can only be declared in a parser".into())
        );
        assert_eq!(e.span.col, 15);
    }

    #[test]
    fn unsupported_constructs_say_so() {
        let e = parse_err("typedef struct { bit<8> a; } S;");
        assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
    }

    #[test]
    fn for_loops_parse_in_both_forms() {
        let d = parse(
            "control C() { apply { \
             for (bit<8> i = 0, j = 1; i < 4; i = i + 1, j = j << 1) { if (i == 2) { continue; } break; } \
             for (bit<8> k in 1 .. 3) ; for (h_t h in hdr.s) { } for (;;) { } } }",
        );
        let Declaration::Control(c) = &d[0] else {
            panic!("not a control")
        };
        let kinds: Vec<_> = c.apply.statements.iter().map(|s| &s.kind).collect();
        let StatementKind::For {
            init,
            cond,
            update,
            body,
        } = kinds[0]
        else {
            panic!("not a for: {:?}", kinds[0])
        };
        assert_eq!((init.len(), cond.is_some(), update.len()), (2, true, 2));
        let StatementKind::Block(b) = &body.kind else {
            panic!("no block")
        };
        assert!(matches!(b.statements[1].kind, StatementKind::Break));
        assert!(matches!(kinds[1], StatementKind::ForIn { hi: Some(_), .. }));
        assert!(matches!(kinds[2], StatementKind::ForIn { hi: None, .. }));
        assert!(matches!(kinds[3], StatementKind::For { cond: None, .. }));
    }

    #[test]
    fn initializer_blocks_hold_method_implementations() {
        let d = parse(
            "control C() { RegisterAction<bit<32>, bit<8>, bit<8>>(r) ra = { \
             void apply(inout bit<32> v, out bit<8> rv) { rv = 1; v = v + 1; } }; apply {} }",
        );
        let Declaration::Control(c) = &d[0] else {
            panic!("{d:?}")
        };
        let Declaration::Instantiation(i) = &c.locals[0] else {
            panic!("{:?}", c.locals)
        };
        assert_eq!(i.name.as_str(), "ra");
        assert_eq!(i.initializer.len(), 1);
        assert_eq!(i.initializer[0].name.as_str(), "apply");
        assert_eq!(i.initializer[0].params.len(), 2);
        let e = parse_err("control C() { E() e = { void f() {} ; apply {} }");
        assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e:?}");
        let e = parse_err("control C() { E() e = { x = 1; }; apply {} }");
        assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!(
            "const bit<8> X = {}1{};",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let e = parse_err(&src);
        assert!(matches!(e.kind, ErrorKind::Syntax(ref m) if m.contains("nesting")));
        let src = format!("const bit<8> X = {}1;", "-".repeat(5000));
        assert!(matches!(parse_err(&src).kind, ErrorKind::Syntax(_)));
        let src = format!(
            "control C() {{ apply {{ {} }} }}",
            "if (a) x = 1; else ".repeat(3000) + "x = 2;"
        );
        assert!(matches!(parse_err(&src).kind, ErrorKind::Syntax(_)));
    }

    #[test]
    fn annotations_are_kept_with_arguments() {
        let d = parse(
            "@name(\"ingress.t\") @id(0x01000001) @hidden @pragma foo bar\n\
             @anno[a = 1, b = \"x\"] @list[1, 2] @weird(+ +) action a() {}",
        );
        let Declaration::Action(a) = &d[0] else {
            panic!()
        };
        let names: Vec<&str> = a.annotations.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["name", "id", "hidden", "pragma", "anno", "list", "weird"]
        );
        assert_eq!(a.annotations[0].string_argument(), Some("ingress.t"));
        assert_eq!(
            a.annotations[1]
                .integer_argument()
                .and_then(|v| v.to_u128()),
            Some(0x0100_0001)
        );
        assert_eq!(a.annotations[2].body, AnnotationBody::Empty);
        assert!(matches!(&a.annotations[3].body, AnnotationBody::Pragma(t) if t.len() == 2));
        assert!(matches!(&a.annotations[4].body, AnnotationBody::KeyValues(kv) if kv.len() == 2));
        assert_eq!(a.annotations[5].expressions().map(<[Expr]>::len), Some(2));
        assert!(matches!(
            &a.annotations[6].body,
            AnnotationBody::Unstructured { tokens, expressions: None } if tokens.len() == 2
        ));
    }

    #[test]
    fn declaration_forms_and_spans() {
        let src = "type bit<9> PortId_t;\n\
                   enum Color { Red, Green, }\n\
                   struct Pair<T> { T first; T second; }\n\
                   extern Checker<T> {\n\
                   \x20   Checker(bit<32> size, @optional in T seed);\n\
                   \x20   abstract bool check(in T value);\n\
                   \x20   T last<U>(in U u);\n\
                   }\n\
                   extern void notify<T>(in T data, bool urgent = false);\n\
                   bit<8> twice(in bit<8> x) { return x + x; }\n\
                   parser Sub(packet_in p, out tuple<bit<8>, bool> t)(bit<8> k) {\n\
                   \x20   Checker<bit<8>>(4) c;\n\
                   \x20   state start { transition accept; }\n\
                   }\n\
                   control Gate<H>(inout H h);\n\
                   package Pipe<H>(Gate<H> g);\n\
                   header_union U { PortId_t a; }\n";
        let d = parse(src);
        let Declaration::Typedef(t) = &d[0] else {
            panic!()
        };
        assert!(t.new_type);
        assert_eq!((t.span.line, t.span.col, t.span.len()), (1, 1, 21));
        let Declaration::Enum(e) = &d[1] else {
            panic!()
        };
        assert!(e.underlying.is_none());
        assert_eq!(e.members.len(), 2);
        let Declaration::Struct(pair) = &d[2] else {
            panic!()
        };
        assert_eq!(pair.type_params[0].as_str(), "T");
        assert_eq!((pair.fields[1].span.line, pair.fields[1].span.col), (3, 27));
        let Declaration::ExternObject(x) = &d[3] else {
            panic!()
        };
        assert_eq!(x.methods.len(), 3);
        assert_eq!(x.methods[0].kind, MethodKind::Constructor);
        assert_eq!(
            x.methods[0].params[1].annotations[0].name.as_str(),
            "optional"
        );
        assert_eq!(x.methods[0].params[1].direction, Direction::In);
        assert!(matches!(
            x.methods[1].kind,
            MethodKind::Method {
                is_abstract: true,
                ..
            }
        ));
        assert_eq!(x.methods[2].type_params.len(), 1);
        let Declaration::ExternFunction(f) = &d[4] else {
            panic!()
        };
        assert_eq!(f.params[1].direction, Direction::None);
        assert_eq!(f.params[1].default.as_ref().map(show), Some("false".into()));
        let Declaration::Function(tw) = &d[5] else {
            panic!()
        };
        assert!(matches!(
            &tw.body.statements[0].kind,
            StatementKind::Return(Some(_))
        ));
        let Declaration::Parser(sub) = &d[6] else {
            panic!()
        };
        assert_eq!(sub.ctor_params.len(), 1);
        assert_eq!(show_type(&sub.params[1].ty), "tuple<bit<8>,bool>");
        assert!(matches!(&sub.locals[0], Declaration::Instantiation(i) if i.name.as_str() == "c"));
        assert!(matches!(&d[7], Declaration::ControlType(c) if c.type_params.len() == 1));
        let Declaration::Package(pk) = &d[8] else {
            panic!()
        };
        assert_eq!(show_type(&pk.params[0].ty), "Gate<H>");
        assert!(matches!(&d[9], Declaration::HeaderUnion(_)));
    }

    #[test]
    fn expression_spans_cover_their_text() {
        let e = parse_expression_tokens(toks("  hdr.ipv4.ttl[7:1] + (bit<8>)x")).unwrap();
        assert_eq!((e.span.lo, e.span.hi, e.span.col), (2, 31, 3));
        let ExprKind::Binary { lhs, rhs, .. } = &e.kind else {
            panic!()
        };
        assert_eq!((lhs.span.lo, lhs.span.hi), (2, 19));
        assert_eq!((rhs.span.lo, rhs.span.hi), (22, 31));
    }

    #[test]
    fn bad_literals_are_reported_at_the_literal() {
        let e = parse_err("const bit<8> X = 8w0xZZ;");
        assert!(matches!(e.kind, ErrorKind::BadLiteral(_)));
        assert_eq!(e.span.col, 18);
    }
}
