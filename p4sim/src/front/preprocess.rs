//! A C preprocessor for P4, as p4c runs `cpp` before parsing.
//!
//! It works on tokens rather than text: every file is lexed once, directive
//! lines are interpreted, and the remaining tokens are macro-expanded with
//! the classic hide-set algorithm (a macro is never re-expanded inside its
//! own expansion). Tokens keep the span where they were written; tokens that
//! come from a macro body take the span of the invocation, so an error in an
//! expansion points at the line that used the macro.
//!
//! Supported: `#include "f"` (the including file's folder, then include
//! folders, then the built-in headers) and `#include <f>` (built-ins, then
//! include folders); `#define` (object-like and function-like, variadic,
//! `#` and `##`); `#undef`; `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif`
//! with integer expressions and `defined`; `#error`; `#line` and GNU line
//! markers; `#pragma once`. Other `#pragma` and `#warning` lines are ignored,
//! as p4c ignores them.
//!
//! Known difference from cpp: the arguments of a function-like macro call
//! cannot continue past a directive line (the call is then reported as
//! unterminated, or the name is left alone when its `(` only comes after
//! the directive).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use crate::front::diagnostic::{Error, ErrorKind};
use crate::front::lexer::{LexErrorKind, Token, TokenKind, lex_file, lex_fragment};
use crate::front::source::{FileId, SourceFile, SourceMap, Span};

/// The standard headers built into p4sim: `(name, text)`.
pub const BUILTIN_HEADERS: &[(&str, &str)] = &[
    ("core.p4", include_str!("../../p4include/core.p4")),
    ("v1model.p4", include_str!("../../p4include/v1model.p4")),
    ("tna.p4", include_str!("../../p4include/tna.p4")),
    ("psa.p4", include_str!("../../p4include/psa.p4")),
    ("bmv2/psa.p4", include_str!("../../p4include/psa.p4")),
];

/// Prefix of the display names of built-in headers.
pub const BUILTIN_DIR: &str = "<p4include>";

/// Deepest `#include` nesting accepted (as GCC's cpp).
pub const MAX_INCLUDE_DEPTH: usize = 200;
/// Most macro invocations expanded in one program.
pub const MAX_EXPANSIONS: usize = 200_000;
/// Deepest nesting of macro arguments that are themselves expanded.
pub const MAX_EXPANSION_DEPTH: usize = 200;
/// Most tokens one program may expand to.
pub const MAX_OUTPUT_TOKENS: usize = 10_000_000;
/// Largest source file read from disk.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Where `#include` finds files other than the built-in headers.
pub trait SourceLoader: fmt::Debug {
    /// Reads `path`; `Ok(None)` when there is no such file.
    fn read(&self, path: &Path) -> io::Result<Option<String>>;

    /// A name that is the same for every path of one file, for
    /// `#pragma once`. By default the path with `.` and `x/..` removed.
    fn identity(&self, path: &Path) -> String {
        normalize(path).display().to_string()
    }
}

/// Removes `.` components and folds `name/..` pairs, without touching the
/// file system.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// Reads files from the file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsLoader;

impl SourceLoader for FsLoader {
    fn identity(&self, path: &Path) -> String {
        std::fs::canonicalize(path)
            .unwrap_or_else(|_| normalize(path))
            .display()
            .to_string()
    }

    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if meta.is_dir() {
            return Ok(None);
        }
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        let mut text = String::new();
        std::fs::File::open(path)?
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(io::Error::other("file is larger than 64 MiB"));
        }
        Ok(Some(text))
    }
}

/// Files held in memory, keyed by path; for tests and embedding.
#[derive(Debug, Clone, Default)]
pub struct MemoryLoader {
    files: HashMap<PathBuf, String>,
}

impl MemoryLoader {
    /// An empty set of files: only the built-in headers resolve.
    pub fn new() -> MemoryLoader {
        MemoryLoader::default()
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> &mut Self {
        self.files.insert(normalize(&path.into()), text.into());
        self
    }
}

impl SourceLoader for MemoryLoader {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        Ok(self.files.get(&normalize(path)).cloned())
    }
}

/// A macro definition.
#[derive(Debug)]
struct Macro {
    /// `None` for object-like macros; parameter names otherwise
    /// (`__VA_ARGS__` last when variadic).
    params: Option<Vec<Arc<str>>>,
    variadic: bool,
    body: Vec<Token>,
}

/// Names of the macros a token must not expand again.
type HideSet = Option<Rc<BTreeSet<Arc<str>>>>;

fn hide_contains(hs: &HideSet, name: &str) -> bool {
    hs.as_ref().is_some_and(|s| s.contains(name))
}

fn hide_union(a: &HideSet, b: &HideSet) -> HideSet {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(a), Some(b)) => Some(Rc::new(a.union(b).cloned().collect())),
    }
}

fn hide_intersect(a: &HideSet, b: &HideSet) -> HideSet {
    match (a, b) {
        (Some(a), Some(b)) => Some(Rc::new(a.intersection(b).cloned().collect())),
        _ => None,
    }
}

fn hide_with(hs: &HideSet, name: &Arc<str>) -> HideSet {
    let mut set = hs.as_deref().cloned().unwrap_or_default();
    set.insert(name.clone());
    Some(Rc::new(set))
}

#[derive(Debug, Clone)]
struct PpToken {
    tok: Token,
    hide: HideSet,
    /// Stands for an empty macro argument next to `##`.
    placemarker: bool,
}

impl PpToken {
    fn new(tok: Token) -> PpToken {
        PpToken {
            tok,
            hide: None,
            placemarker: false,
        }
    }
}

/// One open `#if` group.
#[derive(Debug)]
struct Cond {
    /// Lines in the current branch are kept.
    active: bool,
    /// The group itself is inside kept lines.
    parent_active: bool,
    /// Some branch was already kept.
    taken: bool,
    seen_else: bool,
    directive: &'static str,
    span: Span,
}

/// Per-file state while it is being read.
#[derive(Debug)]
struct FileCtx {
    id: FileId,
    /// Folder for `#include "..."`; `None` for built-ins and sources
    /// without a path.
    dir: Option<PathBuf>,
    builtin: bool,
    /// Identity for `#pragma once`.
    key: String,
    /// After `#line`: (line delta, file id to report).
    line_map: Option<(i64, FileId)>,
}

impl FileCtx {
    fn remap(&self, tok: &Token) -> Token {
        let mut t = tok.clone();
        if let Some((delta, file)) = self.line_map {
            let line = i64::from(t.span.line) + delta;
            t.span.line = u32::try_from(line.max(1)).unwrap_or(u32::MAX);
            t.span.file = file;
        }
        t
    }
}

/// Resolved include target.
enum Resolved {
    Builtin(&'static str, &'static str),
    File(PathBuf, String),
}

/// The preprocessor. It adds every file it reads to the [`SourceMap`] it
/// was given, so errors can be rendered even when it fails.
#[derive(Debug)]
pub struct Preprocessor<'a> {
    sources: &'a mut SourceMap,
    loader: &'a dyn SourceLoader,
    include_dirs: Vec<PathBuf>,
    macros: HashMap<Arc<str>, Rc<Macro>>,
    once: HashSet<String>,
    include_depth: usize,
    expand_depth: usize,
    expansions: usize,
    out: Vec<Token>,
}

impl<'a> Preprocessor<'a> {
    /// A preprocessor reading includes through `loader`, with the macros p4c
    /// defines for BMv2 (`__TARGET_BMV2__`, `__p4c__`) plus `__P4SIM__`.
    pub fn new(sources: &'a mut SourceMap, loader: &'a dyn SourceLoader) -> Preprocessor<'a> {
        let mut pp = Preprocessor {
            sources,
            loader,
            include_dirs: Vec::new(),
            macros: HashMap::new(),
            once: HashSet::new(),
            include_depth: 0,
            expand_depth: 0,
            expansions: 0,
            out: Vec::new(),
        };
        for (name, value) in [
            ("__TARGET_BMV2__", "1"),
            ("__p4c__", "1"),
            ("__P4SIM__", "1"),
        ] {
            let body = lex_fragment(value, Span::default());
            let body = body
                .into_iter()
                .filter(|t| t.kind != TokenKind::Eof)
                .collect();
            pp.macros.insert(
                Arc::from(name),
                Rc::new(Macro {
                    params: None,
                    variadic: false,
                    body,
                }),
            );
        }
        pp
    }

    /// Adds a folder searched by `#include` after the including file's own.
    pub fn add_include_dir(&mut self, dir: impl Into<PathBuf>) {
        self.include_dirs.push(dir.into());
    }

    /// Defines a macro as `-DNAME=VALUE` would.
    pub fn define(&mut self, name: &str, value: &str) -> Result<(), Error> {
        let text = format!("#define {name} {value}\n");
        let id = self
            .sources
            .add(SourceFile::new("<command-line>", None, Arc::from(text)));
        let ctx = FileCtx {
            id,
            dir: None,
            builtin: false,
            key: "<command-line>".into(),
            line_map: None,
        };
        self.process(ctx)
    }

    /// Preprocesses the file at `path` and everything it includes.
    pub fn run_file(mut self, path: &Path) -> Result<Vec<Token>, Error> {
        let name = path.display().to_string();
        let text = match self.loader.read(path) {
            Ok(Some(t)) => t,
            Ok(None) => {
                let id = self
                    .sources
                    .add(SourceFile::new(name.clone(), None, Arc::from("")));
                return Err(Error::new(ErrorKind::IncludeNotFound(name), file_start(id)));
            }
            Err(e) => {
                let id = self
                    .sources
                    .add(SourceFile::new(name.clone(), None, Arc::from("")));
                let kind = ErrorKind::Io {
                    path: name.into(),
                    message: e.to_string().into(),
                };
                return Err(Error::new(kind, file_start(id)));
            }
        };
        let id = self.sources.add(SourceFile::new(
            name.clone(),
            Some(path.to_path_buf()),
            Arc::from(text),
        ));
        let ctx = FileCtx {
            id,
            dir: Some(path.parent().map(Path::to_path_buf).unwrap_or_default()),
            builtin: false,
            key: self.loader.identity(path),
            line_map: None,
        };
        self.process(ctx)?;
        Ok(self.finish())
    }

    /// Preprocesses text that did not come from a file. `#include "..."` is
    /// looked up relative to the folder of `name` through the loader.
    pub fn run_source(mut self, name: &str, text: &str) -> Result<Vec<Token>, Error> {
        let id = self
            .sources
            .add(SourceFile::new(name, None, Arc::from(text)));
        let ctx = FileCtx {
            id,
            dir: Some(
                Path::new(name)
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
            ),
            builtin: false,
            key: name.to_string(),
            line_map: None,
        };
        self.process(ctx)?;
        Ok(self.finish())
    }

    fn finish(mut self) -> Vec<Token> {
        let span = self.out.last().map(|t| t.span).unwrap_or_default();
        let end = Span {
            lo: span.hi,
            ..span
        };
        self.out.push(Token {
            kind: TokenKind::Eof,
            text: Arc::from(""),
            span: end,
            line_start: true,
            space_before: true,
        });
        self.out
    }

    fn process(&mut self, mut ctx: FileCtx) -> Result<(), Error> {
        let Some(file) = self.sources.get(ctx.id).cloned() else {
            return Ok(());
        };
        let tokens = lex_file(ctx.id, &file);
        let mut conds: Vec<Cond> = Vec::new();
        let mut pending: Vec<Token> = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let tok = &tokens[i];
            if tok.kind == TokenKind::Eof {
                break;
            }
            let active = conds.last().is_none_or(|c| c.active);
            if tok.kind == TokenKind::Hash && tok.line_start {
                let mut j = i + 1;
                while j < tokens.len() && !tokens[j].line_start && tokens[j].kind != TokenKind::Eof
                {
                    j += 1;
                }
                let hash = ctx.remap(tok);
                let line: Vec<Token> = tokens[i + 1..j].iter().map(|t| ctx.remap(t)).collect();
                if active {
                    self.flush(&mut pending)?;
                }
                self.directive(&mut ctx, &mut conds, &hash, &line, active)?;
                i = j;
                continue;
            }
            if active {
                let t = ctx.remap(tok);
                // A stray character goes on to the parser, which refuses it
                // anywhere but in a free-form annotation body (p4c takes
                // `@a(That's it.)`); an unterminated string or comment
                // swallowed the text after it and is an error here.
                match t.kind {
                    TokenKind::Invalid(LexErrorKind::UnexpectedChar) => {}
                    TokenKind::Invalid(kind) => return Err(lex_error(kind, &t)),
                    _ => {}
                }
                pending.push(t);
            }
            i += 1;
        }
        if let Some(c) = conds.last() {
            return Err(Error::new(
                ErrorKind::UnterminatedConditional(c.directive.to_string()),
                c.span,
            ));
        }
        self.flush(&mut pending)
    }

    fn flush(&mut self, pending: &mut Vec<Token>) -> Result<(), Error> {
        if pending.is_empty() {
            return Ok(());
        }
        let input = pending.drain(..).map(PpToken::new).collect();
        let expanded = self.expand(input)?;
        if self.out.len() + expanded.len() > MAX_OUTPUT_TOKENS {
            let span = expanded.first().map(|t| t.tok.span).unwrap_or_default();
            return Err(Error::new(
                ErrorKind::TooDeep("program expands to too many tokens".into()),
                span,
            ));
        }
        self.out.extend(expanded.into_iter().map(|t| t.tok));
        Ok(())
    }

    fn directive(
        &mut self,
        ctx: &mut FileCtx,
        conds: &mut Vec<Cond>,
        hash: &Token,
        line: &[Token],
        active: bool,
    ) -> Result<(), Error> {
        let Some(name) = line.first() else {
            return Ok(()); // the null directive
        };
        if active {
            for bad in line {
                if let TokenKind::Invalid(kind) = bad.kind {
                    return Err(lex_error(kind, bad));
                }
            }
        }
        if name.kind == TokenKind::Int {
            // GNU line marker: `# 12 "file.p4" 1`
            return if active {
                self.line_directive(ctx, hash, line)
            } else {
                Ok(())
            };
        }
        let here = hash.span.to(name.span);
        if !name.is_word() {
            return if active {
                Err(bad_directive(
                    format!("invalid preprocessing directive `#{}`", name.text),
                    here,
                ))
            } else {
                Ok(())
            };
        }
        let rest = &line[1..];
        match &*name.text {
            "if" => {
                let value = active && self.condition(rest, here)?;
                conds.push(Cond {
                    active: value,
                    parent_active: active,
                    taken: value,
                    seen_else: false,
                    directive: "if",
                    span: here,
                });
            }
            "ifdef" | "ifndef" => {
                let directive = if &*name.text == "ifdef" {
                    "ifdef"
                } else {
                    "ifndef"
                };
                let value = if active {
                    let target = match rest.first() {
                        Some(t) if t.is_word() => t,
                        _ => {
                            return Err(bad_directive(
                                format!("`#{directive}` needs a macro name"),
                                here,
                            ));
                        }
                    };
                    let defined = self.is_defined(&target.text);
                    defined == (directive == "ifdef")
                } else {
                    false
                };
                conds.push(Cond {
                    active: value,
                    parent_active: active,
                    taken: value,
                    seen_else: false,
                    directive,
                    span: here,
                });
            }
            "elif" => {
                let Some(c) = conds.last() else {
                    return Err(bad_directive("`#elif` without `#if`", here));
                };
                if c.seen_else {
                    return Err(bad_directive("`#elif` after `#else`", here));
                }
                let (parent_active, taken) = (c.parent_active, c.taken);
                let value = parent_active && !taken && self.condition(rest, here)?;
                if let Some(c) = conds.last_mut() {
                    c.active = value;
                    c.taken |= value;
                }
            }
            "else" => {
                let Some(c) = conds.last_mut() else {
                    return Err(bad_directive("`#else` without `#if`", here));
                };
                if c.seen_else {
                    return Err(bad_directive("`#else` after `#else`", here));
                }
                c.seen_else = true;
                c.active = c.parent_active && !c.taken;
                c.taken = true;
            }
            "endif" => {
                if conds.pop().is_none() {
                    return Err(bad_directive("`#endif` without `#if`", here));
                }
            }
            _ if !active => {}
            "define" => self.define_macro(rest, here)?,
            "undef" => match rest.first() {
                Some(t) if t.is_word() => {
                    self.macros.remove(&*t.text);
                }
                _ => return Err(bad_directive("`#undef` needs a macro name", here)),
            },
            "include" => self.include(ctx, rest, here)?,
            "error" => {
                let message = join_text(rest);
                return Err(Error::new(ErrorKind::ErrorDirective(message), here));
            }
            "line" => self.line_directive(ctx, hash, rest)?,
            "pragma" => {
                if rest.first().is_some_and(|t| &*t.text == "once") {
                    self.once.insert(ctx.key.clone());
                }
            }
            "warning" | "ident" => {}
            other => {
                return Err(bad_directive(
                    format!("unknown preprocessor directive `#{other}`"),
                    here,
                ));
            }
        }
        Ok(())
    }

    fn is_defined(&self, name: &str) -> bool {
        self.macros.contains_key(name) || name == "__LINE__" || name == "__FILE__"
    }

    fn define_macro(&mut self, rest: &[Token], here: Span) -> Result<(), Error> {
        let name = match rest.first() {
            Some(t) if t.is_word() => t,
            Some(t) => {
                return Err(Error::new(
                    ErrorKind::Macro(format!(
                        "macro names must be identifiers, found `{}`",
                        t.text
                    )),
                    t.span,
                ));
            }
            None => return Err(bad_directive("`#define` needs a macro name", here)),
        };
        if &*name.text == "defined" {
            return Err(Error::new(
                ErrorKind::Macro("`defined` cannot be used as a macro name".into()),
                name.span,
            ));
        }
        let mut i = 1;
        let mut params = None;
        let mut variadic = false;
        if rest
            .get(1)
            .is_some_and(|t| t.kind == TokenKind::LParen && !t.space_before)
        {
            let mut list: Vec<Arc<str>> = Vec::new();
            i = 2;
            let missing = |span| {
                Error::new(
                    ErrorKind::Macro("missing `)` in macro parameter list".into()),
                    span,
                )
            };
            if rest.get(i).map(|t| t.kind) == Some(TokenKind::RParen) {
                i += 1;
            } else {
                loop {
                    let Some(t) = rest.get(i) else {
                        return Err(missing(name.span));
                    };
                    if t.kind == TokenKind::Ellipsis {
                        variadic = true;
                        list.push(Arc::from("__VA_ARGS__"));
                        i += 1;
                        match rest.get(i) {
                            Some(t) if t.kind == TokenKind::RParen => {
                                i += 1;
                                break;
                            }
                            Some(t) => return Err(missing(t.span)),
                            None => return Err(missing(name.span)),
                        }
                    }
                    if !t.is_word() {
                        return Err(Error::new(
                            ErrorKind::Macro(format!(
                                "expected a macro parameter name, found `{}`",
                                t.text
                            )),
                            t.span,
                        ));
                    }
                    if list.iter().any(|p| **p == *t.text) {
                        return Err(Error::new(
                            ErrorKind::Macro(format!("duplicate macro parameter `{}`", t.text)),
                            t.span,
                        ));
                    }
                    list.push(t.text.clone());
                    i += 1;
                    match rest.get(i) {
                        Some(t) if t.kind == TokenKind::Comma => i += 1,
                        Some(t) if t.kind == TokenKind::RParen => {
                            i += 1;
                            break;
                        }
                        Some(t) => return Err(missing(t.span)),
                        None => return Err(missing(name.span)),
                    }
                }
            }
            params = Some(list);
        }
        let body: Vec<Token> = rest[i..].to_vec();
        if let Some(first) = body.first().filter(|t| t.kind == TokenKind::HashHash) {
            return Err(paste_at_edge(first.span));
        }
        if let Some(last) = body.last().filter(|t| t.kind == TokenKind::HashHash) {
            return Err(paste_at_edge(last.span));
        }
        if let Some(list) = &params {
            for (k, t) in body.iter().enumerate() {
                if t.kind == TokenKind::Hash {
                    let ok = body
                        .get(k + 1)
                        .is_some_and(|n| n.is_word() && list.iter().any(|p| **p == *n.text));
                    if !ok {
                        return Err(Error::new(
                            ErrorKind::Macro("`#` is not followed by a macro parameter".into()),
                            t.span,
                        ));
                    }
                }
            }
        }
        self.macros.insert(
            name.text.clone(),
            Rc::new(Macro {
                params,
                variadic,
                body,
            }),
        );
        Ok(())
    }

    fn include(&mut self, ctx: &FileCtx, rest: &[Token], here: Span) -> Result<(), Error> {
        let expanded;
        let rest = if rest.first().is_some_and(Token::is_word) {
            // `#include MACRO`: expand, then read the result.
            let toks = rest.iter().cloned().map(PpToken::new).collect();
            expanded = self
                .expand(toks)?
                .into_iter()
                .map(|t| t.tok)
                .collect::<Vec<_>>();
            &expanded[..]
        } else {
            rest
        };
        let expected = || bad_directive("`#include` expects \"FILENAME\" or <FILENAME>", here);
        let first = rest.first().ok_or_else(expected)?;
        let (name, angled, span) = match first.kind {
            TokenKind::Str => {
                let inner = first
                    .text
                    .get(1..first.text.len().saturating_sub(1))
                    .unwrap_or("");
                (inner.to_string(), false, first.span)
            }
            TokenKind::Lt => {
                let close = rest
                    .iter()
                    .position(|t| t.kind == TokenKind::Gt)
                    .ok_or_else(expected)?;
                let inner: String = if rest[1..close]
                    .iter()
                    .all(|t| t.span.file == first.span.file)
                    && close > 1
                {
                    // Take the text as written so `<a b.p4>` keeps its spaces.
                    let lo = rest[1].span.lo;
                    let hi = rest[close - 1].span.hi;
                    self.sources
                        .get(first.span.file)
                        .and_then(|f| f.text.get(lo as usize..hi as usize))
                        .map(str::to_string)
                        .unwrap_or_else(|| concat_text(&rest[1..close]))
                } else {
                    concat_text(&rest[1..close])
                };
                (inner, true, first.span.to(rest[close].span))
            }
            _ => return Err(expected()),
        };
        if name.is_empty() {
            return Err(bad_directive("empty file name in `#include`", span));
        }
        if self.include_depth >= MAX_INCLUDE_DEPTH {
            return Err(Error::new(
                ErrorKind::TooDeep(format!(
                    "#include nested more than {MAX_INCLUDE_DEPTH} levels deep"
                )),
                span,
            ));
        }
        let resolved = self.resolve(ctx, &name, angled, span)?;
        let next = match resolved {
            Resolved::Builtin(file, text) => {
                let key = format!("{BUILTIN_DIR}/{file}");
                if self.once.contains(&key) {
                    return Ok(());
                }
                let id = self
                    .sources
                    .add(SourceFile::new(key.clone(), None, Arc::from(text)));
                FileCtx {
                    id,
                    dir: None,
                    builtin: true,
                    key,
                    line_map: None,
                }
            }
            Resolved::File(path, text) => {
                let key = self.loader.identity(&path);
                if self.once.contains(&key) {
                    return Ok(());
                }
                let name = normalize(&path).display().to_string();
                let id =
                    self.sources
                        .add(SourceFile::new(name, Some(path.clone()), Arc::from(text)));
                FileCtx {
                    id,
                    dir: Some(path.parent().map(Path::to_path_buf).unwrap_or_default()),
                    builtin: false,
                    key,
                    line_map: None,
                }
            }
        };
        self.include_depth += 1;
        let result = self.process(next);
        self.include_depth -= 1;
        result
    }

    fn resolve(
        &self,
        ctx: &FileCtx,
        name: &str,
        angled: bool,
        span: Span,
    ) -> Result<Resolved, Error> {
        let builtin = BUILTIN_HEADERS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, t)| Resolved::Builtin(n, t));
        let path = Path::new(name);
        let mut candidates: Vec<PathBuf> = Vec::new();
        if path.is_absolute() {
            candidates.push(path.to_path_buf());
        } else {
            if !angled {
                if ctx.builtin {
                    if let Some(b) = builtin {
                        return Ok(b);
                    }
                } else if let Some(dir) = &ctx.dir {
                    candidates.push(dir.join(path));
                }
            }
            if angled && let Some(b) = builtin {
                return Ok(b);
            }
            candidates.extend(self.include_dirs.iter().map(|d| d.join(path)));
        }
        for candidate in candidates {
            match self.loader.read(&candidate) {
                Ok(Some(text)) => return Ok(Resolved::File(candidate, text)),
                Ok(None) => {}
                Err(e) => {
                    return Err(Error::new(
                        ErrorKind::Io {
                            path: candidate.display().to_string().into(),
                            message: e.to_string().into(),
                        },
                        span,
                    ));
                }
            }
        }
        if let Some(b) = builtin.filter(|_| !path.is_absolute()) {
            return Ok(b);
        }
        Err(Error::new(
            ErrorKind::IncludeNotFound(name.to_string()),
            span,
        ))
    }

    fn line_directive(
        &mut self,
        ctx: &mut FileCtx,
        hash: &Token,
        args: &[Token],
    ) -> Result<(), Error> {
        let bad = |span| {
            bad_directive(
                "`#line` expects a line number and an optional \"file\"",
                span,
            )
        };
        let number = match args.first() {
            Some(t) if t.kind == TokenKind::Int && t.text.bytes().all(|b| b.is_ascii_digit()) => t,
            Some(t) => return Err(bad(t.span)),
            None => return Err(bad(hash.span)),
        };
        let line: i64 = number.text.parse().map_err(|_| bad(number.span))?;
        let file_name = match args.get(1) {
            Some(t) if t.kind == TokenKind::Str => Some(crate::front::lexer::unquote(&t.text)),
            Some(t) if t.kind != TokenKind::Int => return Err(bad(t.span)),
            _ => None,
        };
        let Some(physical) = self.sources.get(ctx.id).cloned() else {
            return Ok(());
        };
        let last = args.last().map_or(hash.span.lo, |t| t.span.lo);
        let next_line = i64::from(physical.line_col(last).0) + 1;
        let report_file = match file_name {
            Some(name) => self.sources.add(physical.alias(name)),
            None => ctx.line_map.map_or(ctx.id, |(_, f)| f),
        };
        ctx.line_map = Some((line - next_line, report_file));
        Ok(())
    }

    fn condition(&mut self, toks: &[Token], here: Span) -> Result<bool, Error> {
        let mut resolved: Vec<PpToken> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if t.is_word() && &*t.text == "defined" {
                let parens = toks.get(i + 1).is_some_and(|n| n.kind == TokenKind::LParen);
                let name_at = if parens { i + 2 } else { i + 1 };
                let name = match toks.get(name_at) {
                    Some(n) if n.is_word() => n,
                    _ => {
                        return Err(Error::new(
                            ErrorKind::Condition("`defined` needs a macro name".into()),
                            t.span,
                        ));
                    }
                };
                let mut next = name_at + 1;
                if parens {
                    match toks.get(next) {
                        Some(c) if c.kind == TokenKind::RParen => next += 1,
                        _ => {
                            return Err(Error::new(
                                ErrorKind::Condition("missing `)` after `defined(NAME`".into()),
                                name.span,
                            ));
                        }
                    }
                }
                let value = if self.is_defined(&name.text) {
                    "1"
                } else {
                    "0"
                };
                resolved.push(PpToken::new(Token {
                    kind: TokenKind::Int,
                    text: Arc::from(value),
                    span: t.span,
                    line_start: false,
                    space_before: true,
                }));
                i = next;
                continue;
            }
            resolved.push(PpToken::new(t.clone()));
            i += 1;
        }
        if resolved.is_empty() {
            return Err(Error::new(
                ErrorKind::Condition("missing expression".into()),
                here,
            ));
        }
        let expanded: Vec<Token> = self.expand(resolved)?.into_iter().map(|t| t.tok).collect();
        let mut eval = CondEval {
            toks: &expanded,
            pos: 0,
            end: here,
        };
        let value = eval.ternary(true, 0)?;
        if let Some(t) = expanded.get(eval.pos) {
            return Err(Error::new(
                ErrorKind::Condition(format!("unexpected `{}`", t.text)),
                t.span,
            ));
        }
        Ok(value != 0)
    }

    /// Macro-expands a token list completely.
    fn expand(&mut self, input: Vec<PpToken>) -> Result<Vec<PpToken>, Error> {
        if self.expand_depth >= MAX_EXPANSION_DEPTH {
            let span = input.first().map(|t| t.tok.span).unwrap_or_default();
            return Err(Error::new(
                ErrorKind::TooDeep("macro arguments nest too deeply".into()),
                span,
            ));
        }
        self.expand_depth += 1;
        let result = self.expand_inner(input);
        self.expand_depth -= 1;
        result
    }

    fn expand_inner(&mut self, mut input: Vec<PpToken>) -> Result<Vec<PpToken>, Error> {
        input.reverse();
        let mut stack = input;
        let mut out = Vec::new();
        while let Some(t) = stack.pop() {
            if !t.tok.is_word() || hide_contains(&t.hide, &t.tok.text) {
                out.push(t);
                continue;
            }
            let name = t.tok.text.clone();
            let Some(m) = self.macros.get(&name).cloned() else {
                if let Some(tok) = self.builtin_macro(&t.tok) {
                    out.push(PpToken { tok, ..t });
                } else {
                    out.push(t);
                }
                continue;
            };
            self.expansions += 1;
            if self.expansions > MAX_EXPANSIONS {
                return Err(Error::new(
                    ErrorKind::TooDeep(format!(
                        "more than {MAX_EXPANSIONS} macro expansions; is a macro recursive?"
                    )),
                    t.tok.span,
                ));
            }
            let Some(params) = &m.params else {
                let hide = hide_with(&t.hide, &name);
                let body = self.substitute(&m, &[], &hide, t.tok.span, &t.tok)?;
                stack.extend(body.into_iter().rev());
                continue;
            };
            if stack.last().map(|n| n.tok.kind) != Some(TokenKind::LParen) {
                out.push(t);
                continue;
            }
            stack.pop();
            let mut args: Vec<Vec<PpToken>> = vec![Vec::new()];
            let mut depth = 0usize;
            let rparen = loop {
                let Some(a) = stack.pop() else {
                    return Err(Error::new(
                        ErrorKind::Macro(format!("unterminated invocation of macro `{name}`")),
                        t.tok.span,
                    ));
                };
                match a.tok.kind {
                    TokenKind::LParen => depth += 1,
                    TokenKind::RParen if depth == 0 => break a,
                    TokenKind::RParen => depth -= 1,
                    TokenKind::Comma
                        if depth == 0 && !(m.variadic && args.len() == params.len()) =>
                    {
                        args.push(Vec::new());
                        continue;
                    }
                    _ => {}
                }
                if let Some(last) = args.last_mut() {
                    last.push(a);
                }
            };
            if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                args.clear();
            }
            if m.variadic && args.len() + 1 == params.len() {
                args.push(Vec::new());
            }
            if args.len() != params.len() {
                let want = if m.variadic {
                    format!("at least {}", params.len() - 1)
                } else {
                    params.len().to_string()
                };
                return Err(Error::new(
                    ErrorKind::Macro(format!(
                        "macro `{name}` expects {want} argument(s), got {}",
                        args.len()
                    )),
                    t.tok.span,
                ));
            }
            let hide = hide_with(&hide_intersect(&t.hide, &rparen.hide), &name);
            let body = self.substitute(&m, &args, &hide, t.tok.span, &t.tok)?;
            stack.extend(body.into_iter().rev());
        }
        Ok(out)
    }

    fn builtin_macro(&self, tok: &Token) -> Option<Token> {
        let (kind, text) = match &*tok.text {
            "__LINE__" => (TokenKind::Int, tok.span.line.to_string()),
            "__FILE__" => (
                TokenKind::Str,
                format!("\"{}\"", escape(self.sources.name(tok.span.file))),
            ),
            _ => return None,
        };
        Some(Token {
            kind,
            text: Arc::from(text),
            ..tok.clone()
        })
    }

    /// Replaces parameters in a macro body and applies `#` and `##`.
    fn substitute(
        &mut self,
        m: &Macro,
        args: &[Vec<PpToken>],
        hide: &HideSet,
        site: Span,
        invocation: &Token,
    ) -> Result<Vec<PpToken>, Error> {
        let params: &[Arc<str>] = m.params.as_deref().unwrap_or(&[]);
        let param_of = |t: &Token| {
            if t.is_word() {
                params.iter().position(|p| **p == *t.text)
            } else {
                None
            }
        };
        let sited = |t: &Token, first: bool| {
            let mut tok = t.clone();
            tok.span = site;
            tok.line_start = false;
            if first {
                tok.space_before = invocation.space_before;
            }
            PpToken::new(tok)
        };
        let body = &m.body;
        let mut out: Vec<PpToken> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let tok = &body[i];
            let first = i == 0;
            if tok.kind == TokenKind::Hash
                && m.params.is_some()
                && let Some(p) = body.get(i + 1).and_then(param_of)
            {
                out.push(stringify(&args[p], site));
                i += 2;
                continue;
            }
            if tok.kind == TokenKind::HashHash
                && let Some(next) = body.get(i + 1)
            {
                {
                    let rhs: Vec<PpToken> = match param_of(next) {
                        Some(p) => args[p].clone(),
                        None => vec![sited(next, false)],
                    };
                    i += 2;
                    let mut rhs = rhs.into_iter();
                    let Some(right) = rhs.next() else {
                        continue; // empty argument: the left side stays
                    };
                    match out.pop() {
                        Some(left) if left.placemarker => out.push(right),
                        Some(left) => out.push(self.paste(&left, &right, site)?),
                        None => out.push(right),
                    }
                    out.extend(rhs);
                    continue;
                }
            }
            if let Some(p) = param_of(tok) {
                let pasted_next = body.get(i + 1).map(|n| n.kind) == Some(TokenKind::HashHash);
                let arg = &args[p];
                if pasted_next {
                    if arg.is_empty() {
                        let mut marker = sited(tok, first);
                        marker.placemarker = true;
                        out.push(marker);
                    } else {
                        out.extend(arg.iter().cloned());
                    }
                } else {
                    let mut expanded = self.expand(arg.clone())?;
                    if let Some(f) = expanded.first_mut() {
                        f.tok.space_before = tok.space_before || (first && invocation.space_before);
                    }
                    out.extend(expanded);
                }
                i += 1;
                continue;
            }
            out.push(sited(tok, first));
            i += 1;
        }
        out.retain(|t| !t.placemarker);
        for t in &mut out {
            t.hide = hide_union(&t.hide, hide);
        }
        Ok(out)
    }

    fn paste(&self, left: &PpToken, right: &PpToken, site: Span) -> Result<PpToken, Error> {
        let text = format!("{}{}", left.tok.text, right.tok.text);
        let toks = lex_fragment(&text, site);
        match toks.as_slice() {
            [one, eof]
                if eof.kind == TokenKind::Eof && !matches!(one.kind, TokenKind::Invalid(_)) =>
            {
                let mut tok = one.clone();
                tok.space_before = left.tok.space_before;
                tok.line_start = false;
                Ok(PpToken::new(tok))
            }
            _ => Err(Error::new(
                ErrorKind::Macro(format!(
                    "pasting `{}` and `{}` does not give a valid token",
                    left.tok.text, right.tok.text
                )),
                site,
            )),
        }
    }
}

fn file_start(file: FileId) -> Span {
    Span {
        file,
        lo: 0,
        hi: 0,
        line: 1,
        col: 1,
    }
}

fn lex_error(kind: LexErrorKind, tok: &Token) -> Error {
    let message = match kind {
        LexErrorKind::UnexpectedChar => format!("unexpected character `{}`", tok.text),
        other => other.message().to_string(),
    };
    Error::new(ErrorKind::Lex(message), tok.span)
}

fn bad_directive(message: impl Into<String>, span: Span) -> Error {
    Error::new(ErrorKind::BadDirective(message.into()), span)
}

fn paste_at_edge(span: Span) -> Error {
    Error::new(
        ErrorKind::Macro("`##` cannot appear at either end of a macro body".into()),
        span,
    )
}

fn join_text(toks: &[Token]) -> String {
    let mut s = String::new();
    for (k, t) in toks.iter().enumerate() {
        if k > 0 && t.space_before {
            s.push(' ');
        }
        s.push_str(&t.text);
    }
    s
}

fn concat_text(toks: &[Token]) -> String {
    toks.iter().map(|t| &*t.text).collect()
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn stringify(arg: &[PpToken], site: Span) -> PpToken {
    let mut s = String::from("\"");
    for (k, t) in arg.iter().enumerate() {
        if k > 0 && t.tok.space_before {
            s.push(' ');
        }
        if t.tok.kind == TokenKind::Str {
            s.push_str(&escape(&t.tok.text));
        } else {
            s.push_str(&t.tok.text);
        }
    }
    s.push('"');
    PpToken::new(Token {
        kind: TokenKind::Str,
        text: Arc::from(s),
        span: site,
        line_start: false,
        space_before: true,
    })
}

/// Evaluates `#if` expressions over `i64` as cpp does over `intmax_t`.
struct CondEval<'t> {
    toks: &'t [Token],
    pos: usize,
    /// Where to point when the expression ends early.
    end: Span,
}

impl CondEval<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn error(&self, message: impl Into<String>) -> Error {
        let span = self.peek().map_or(self.end, |t| t.span);
        Error::new(ErrorKind::Condition(message.into()), span)
    }

    fn ternary(&mut self, live: bool, depth: usize) -> Result<i64, Error> {
        if depth > 256 {
            return Err(self.error("expression nests too deeply"));
        }
        let cond = self.binary(0, live, depth)?;
        if self.peek().map(|t| t.kind) != Some(TokenKind::Question) {
            return Ok(cond);
        }
        self.pos += 1;
        let a = self.ternary(live && cond != 0, depth + 1)?;
        if self.peek().map(|t| t.kind) != Some(TokenKind::Colon) {
            return Err(self.error("expected `:` in `?:`"));
        }
        self.pos += 1;
        let b = self.ternary(live && cond == 0, depth + 1)?;
        Ok(if cond != 0 { a } else { b })
    }

    /// The binary operator at the cursor: (level, operator, tokens used).
    fn binop(&self) -> Option<(u8, &'static str, usize)> {
        let t = self.peek()?;
        let next = self.toks.get(self.pos + 1);
        let op = match t.kind {
            TokenKind::OrOr => (0, "||", 1),
            TokenKind::AndAnd => (1, "&&", 1),
            TokenKind::Pipe => (2, "|", 1),
            TokenKind::Caret => (3, "^", 1),
            TokenKind::Amp => (4, "&", 1),
            TokenKind::EqEq => (5, "==", 1),
            TokenKind::Ne => (5, "!=", 1),
            TokenKind::Gt if next.is_some_and(|n| n.kind == TokenKind::Gt && n.glued()) => {
                (7, ">>", 2)
            }
            TokenKind::Lt => (6, "<", 1),
            TokenKind::Gt => (6, ">", 1),
            TokenKind::Le => (6, "<=", 1),
            TokenKind::Ge => (6, ">=", 1),
            TokenKind::Shl => (7, "<<", 1),
            TokenKind::Plus => (8, "+", 1),
            TokenKind::Minus => (8, "-", 1),
            TokenKind::Star => (9, "*", 1),
            TokenKind::Slash => (9, "/", 1),
            TokenKind::Percent => (9, "%", 1),
            _ => return None,
        };
        Some(op)
    }

    fn binary(&mut self, min: u8, live: bool, depth: usize) -> Result<i64, Error> {
        let mut lhs = self.unary(live, depth)?;
        while let Some((level, op, width)) = self.binop() {
            if level < min {
                break;
            }
            let at = self.peek().map_or(self.end, |t| t.span);
            self.pos += width;
            let rhs_live = match op {
                "&&" => live && lhs != 0,
                "||" => live && lhs == 0,
                _ => live,
            };
            let rhs = self.binary(level + 1, rhs_live, depth + 1)?;
            lhs = match op {
                "||" => i64::from(lhs != 0 || rhs != 0),
                "&&" => i64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i64::from(lhs == rhs),
                "!=" => i64::from(lhs != rhs),
                "<" => i64::from(lhs < rhs),
                ">" => i64::from(lhs > rhs),
                "<=" => i64::from(lhs <= rhs),
                ">=" => i64::from(lhs >= rhs),
                "<<" => u32::try_from(rhs)
                    .ok()
                    .and_then(|r| lhs.checked_shl(r))
                    .unwrap_or(0),
                ">>" => u32::try_from(rhs)
                    .ok()
                    .and_then(|r| lhs.checked_shr(r))
                    .unwrap_or(if lhs < 0 { -1 } else { 0 }),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" => {
                    if rhs == 0 {
                        if live {
                            return Err(Error::new(
                                ErrorKind::Condition("division by zero".into()),
                                at,
                            ));
                        }
                        0
                    } else if op == "/" {
                        lhs.wrapping_div(rhs)
                    } else {
                        lhs.wrapping_rem(rhs)
                    }
                }
                _ => 0,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self, live: bool, depth: usize) -> Result<i64, Error> {
        if depth > 256 {
            return Err(self.error("expression nests too deeply"));
        }
        let Some(t) = self.peek().cloned() else {
            return Err(self.error("expression ends too early"));
        };
        self.pos += 1;
        match t.kind {
            TokenKind::Not => Ok(i64::from(self.unary(live, depth + 1)? == 0)),
            TokenKind::Tilde => Ok(!self.unary(live, depth + 1)?),
            TokenKind::Minus => Ok(self.unary(live, depth + 1)?.wrapping_neg()),
            TokenKind::Plus => self.unary(live, depth + 1),
            TokenKind::LParen => {
                let v = self.ternary(live, depth + 1)?;
                if self.peek().map(|t| t.kind) != Some(TokenKind::RParen) {
                    return Err(self.error("expected `)`"));
                }
                self.pos += 1;
                Ok(v)
            }
            TokenKind::Int => c_integer(&t.text).ok_or_else(|| {
                Error::new(
                    ErrorKind::Condition(format!("invalid integer `{}`", t.text)),
                    t.span,
                )
            }),
            // Names left after expansion are 0, as in cpp.
            _ if t.is_word() => Ok(0),
            _ => Err(Error::new(
                ErrorKind::Condition(format!("unexpected `{}`", t.text)),
                t.span,
            )),
        }
    }
}

/// A C integer constant (`0x1F`, `017`, `0b101`, `10UL`).
fn c_integer(text: &str) -> Option<i64> {
    let body = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (16, h)
    } else if let Some(b) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        (2, b)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    // Out-of-range values wrap as unsigned constants do.
    u64::from_str_radix(digits, radix).ok().map(|v| v as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)], main: &str) -> Result<Vec<Token>, (Error, SourceMap)> {
        let mut loader = MemoryLoader::new();
        for (path, text) in files {
            loader.insert(*path, *text);
        }
        let mut sources = SourceMap::new();
        let result = Preprocessor::new(&mut sources, &loader).run_file(Path::new(main));
        result.map_err(|e| (e, sources))
    }

    fn texts(toks: &[Token]) -> Vec<String> {
        toks.iter()
            .filter(|t| t.kind != TokenKind::Eof)
            .map(|t| t.text.to_string())
            .collect()
    }

    fn expand(src: &str) -> Vec<String> {
        match run(&[("main.p4", src)], "main.p4") {
            Ok(t) => texts(&t),
            Err((e, _)) => panic!("unexpected error {e:?}"),
        }
    }

    fn error(src: &str) -> Error {
        match run(&[("main.p4", src)], "main.p4") {
            Ok(t) => panic!("expected an error, got {:?}", texts(&t)),
            Err((e, _)) => e,
        }
    }

    #[test]
    fn object_and_function_macros() {
        assert_eq!(
            expand("#define N 4\n#define ADD(a, b) ((a) + (b))\nx = ADD(N, 1);"),
            vec!["x", "=", "(", "(", "4", ")", "+", "(", "1", ")", ")", ";"]
        );
    }

    #[test]
    fn function_macro_without_parens_is_a_name() {
        assert_eq!(expand("#define F(x) x\nF;"), vec!["F", ";"]);
        // A space before `(` in the definition makes it object-like.
        assert_eq!(expand("#define G (y)\nG;"), vec!["(", "y", ")", ";"]);
    }

    #[test]
    fn self_reference_is_not_expanded_again() {
        assert_eq!(expand("#define foo foo + 1\nfoo"), vec!["foo", "+", "1"]);
        assert_eq!(expand("#define a b\n#define b a\na b"), vec!["a", "b"]);
        // The classic: f(f)(1) expands the inner f again because it was not
        // part of f's own expansion.
        assert_eq!(
            expand("#define f(a) a * g\n#define g(a) f(a)\nf(2)(9)"),
            vec!["2", "*", "9", "*", "g"]
        );
    }

    #[test]
    fn stringify_and_paste() {
        assert_eq!(
            expand("#define S(x) #x\nS(a  +  \"q\")"),
            vec!["\"a + \\\"q\\\"\""]
        );
        assert_eq!(
            expand("#define CAT(a, b) a ## b\nCAT(lane, 3) CAT(, z) CAT(y,)"),
            vec!["lane3", "z", "y"]
        );
        assert_eq!(expand("#define W(n) n ## w5\nW(8)"), vec!["8w5"]);
        let e = error("#define P(a, b) a ## b\nP(+, /)");
        assert!(matches!(e.kind, ErrorKind::Macro(ref m) if m.contains("pasting")));
    }

    #[test]
    fn arguments_expand_before_substitution_but_not_when_pasted() {
        assert_eq!(
            expand("#define ONE 1\n#define ID(x) x\n#define PASTE(x) x ## _t\nID(ONE) PASTE(ONE)"),
            vec!["1", "ONE_t"]
        );
    }

    #[test]
    fn variadic_macros() {
        assert_eq!(
            expand("#define V(f, ...) f(__VA_ARGS__)\nV(g, 1, 2) V(h)"),
            vec!["g", "(", "1", ",", "2", ")", "h", "(", ")"]
        );
    }

    #[test]
    fn conditionals_choose_branches() {
        let src = "#define A 2\n#if A > 1 && defined(A)\nyes\n#elif 1/0\nno\n#else\nno2\n#endif\n\
                   #ifdef B\nb\n#elif !defined B\nnotb\n#endif\n#if 0\n#if garbage (\n#endif\n#error no\n#endif\nend";
        assert_eq!(expand(src), vec!["yes", "notb", "end"]);
        assert_eq!(
            expand("#if (3 >> 1) == 1 && 010 == 8 && 0x10 == 16 && -1 < 0\nok\n#endif"),
            vec!["ok"]
        );
        assert_eq!(expand("#if 0 && 1/0\nno\n#else\nok\n#endif"), vec!["ok"]);
        assert_eq!(
            expand("#if UNDEFINED_NAME\nno\n#else\nok\n#endif"),
            vec!["ok"]
        );
        assert_eq!(expand("#if 1 ? 2 : 0\nok\n#endif"), vec!["ok"]);
    }

    #[test]
    fn condition_errors() {
        let e = error("\n#if 1 +\n#endif");
        assert!(matches!(e.kind, ErrorKind::Condition(_)));
        assert_eq!(e.span.line, 2);
        let e = error("#if 1/0\n#endif");
        assert_eq!(e.kind, ErrorKind::Condition("division by zero".into()));
        assert_eq!((e.span.line, e.span.col), (1, 6));
        let e = error("#if\n#endif");
        assert!(matches!(e.kind, ErrorKind::Condition(_)));
    }

    #[test]
    fn unterminated_and_stray_conditionals() {
        let e = error("a\n  #ifdef X\nb\n");
        assert_eq!(e.kind, ErrorKind::UnterminatedConditional("ifdef".into()));
        assert_eq!((e.span.line, e.span.col), (2, 3));
        assert!(matches!(error("#endif").kind, ErrorKind::BadDirective(_)));
        assert!(matches!(
            error("#if 1\n#else\n#else\n#endif").kind,
            ErrorKind::BadDirective(_)
        ));
        assert!(matches!(
            error("#if 1\n#else\n#elif 1\n#endif").kind,
            ErrorKind::BadDirective(_)
        ));
        assert!(matches!(error("#else").kind, ErrorKind::BadDirective(_)));
    }

    #[test]
    fn bad_directives_and_error_directive() {
        let e = error("x\n#frobnicate 1\n");
        assert_eq!(
            e.kind,
            ErrorKind::BadDirective("unknown preprocessor directive `#frobnicate`".into())
        );
        assert_eq!((e.span.line, e.span.col), (2, 1));
        let e = error("#error K must be 32   or 64\n");
        assert_eq!(
            e.kind,
            ErrorKind::ErrorDirective("K must be 32 or 64".into())
        );
        // Unknown directives inside skipped groups are fine.
        assert_eq!(expand("#if 0\n#frobnicate\n#endif\nz"), vec!["z"]);
        // Pragmas other than once are ignored.
        assert_eq!(expand("#pragma foo bar\nz"), vec!["z"]);
    }

    #[test]
    fn includes_and_guards() {
        let files = [
            (
                "dir/main.p4",
                "#include \"h.p4\"\n#include \"h.p4\"\n#include <core.p4>\nmain_end",
            ),
            ("dir/h.p4", "#ifndef H_P4\n#define H_P4\nh_body\n#endif\n"),
        ];
        let toks = run(&files, "dir/main.p4").unwrap();
        let t = texts(&toks);
        assert_eq!(t.iter().filter(|s| *s == "h_body").count(), 1);
        assert_eq!(t.last().map(String::as_str), Some("main_end"));
        assert!(t.iter().any(|s| s == "packet_in"));
        // Spans of included tokens name the included file and its line.
        let h = toks.iter().find(|t| &*t.text == "h_body").unwrap();
        assert_eq!((h.span.line, h.span.col), (3, 1));
    }

    #[test]
    fn pragma_once_and_include_dirs() {
        let mut loader = MemoryLoader::new();
        loader
            .insert(
                "m.p4",
                "#include \"o.p4\"\n#include <o.p4>\n#include \"lib.p4\"",
            )
            .insert("o.p4", "#pragma once\nonce_body")
            .insert("inc/lib.p4", "lib_body");
        let mut sources = SourceMap::new();
        let mut pp = Preprocessor::new(&mut sources, &loader);
        pp.add_include_dir("inc");
        pp.add_include_dir(".");
        let t = texts(&pp.run_file(Path::new("m.p4")).unwrap());
        assert_eq!(t, vec!["once_body", "lib_body"]);
    }

    #[test]
    fn missing_include_points_at_the_name() {
        let (e, sources) = run(&[("m.p4", "\n  #include \"nope.p4\"\n")], "m.p4").unwrap_err();
        assert_eq!(e.kind, ErrorKind::IncludeNotFound("nope.p4".into()));
        assert_eq!((e.span.line, e.span.col), (2, 12));
        assert_eq!(sources.name(e.span.file), "m.p4");
        let (e, _) = run(&[("m.p4", "#include <nope.p4>")], "m.p4").unwrap_err();
        assert_eq!(e.kind, ErrorKind::IncludeNotFound("nope.p4".into()));
        let (e, _) = run(&[("m.p4", "#include")], "m.p4").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadDirective(_)));
        let (e, _) = run(&[], "absent.p4").unwrap_err();
        assert_eq!(e.kind, ErrorKind::IncludeNotFound("absent.p4".into()));
    }

    #[test]
    fn recursive_include_is_stopped() {
        let (e, _) = run(&[("r.p4", "#include \"r.p4\"\n")], "r.p4").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::TooDeep(_)));
    }

    #[test]
    fn exponential_macros_are_stopped() {
        let mut src = String::from("#define m0 x x\n");
        for i in 1..40 {
            src.push_str(&format!("#define m{i} m{} m{}\n", i - 1, i - 1));
        }
        src.push_str("m39\n");
        assert!(matches!(error(&src).kind, ErrorKind::TooDeep(_)));
    }

    #[test]
    fn deeply_nested_macro_arguments_are_stopped() {
        let src = format!("#define F(x) x\n{}1{}", "F(".repeat(500), ")".repeat(500));
        assert!(matches!(error(&src).kind, ErrorKind::TooDeep(_)));
    }

    #[test]
    fn continuation_lines_and_comments() {
        assert_eq!(
            expand("#define LONG(a) a + \\\n   a /* c\n */ + a\nLONG(1) // tail\nq"),
            vec!["1", "+", "1", "+", "1", "q"]
        );
    }

    #[test]
    fn macro_tokens_take_the_invocation_span() {
        let toks = run(&[("m.p4", "#define X 1 + 2\n\n   X")], "m.p4").unwrap();
        assert!(
            toks[..3]
                .iter()
                .all(|t| (t.span.line, t.span.col) == (3, 4))
        );
        // Argument tokens keep their own place.
        let toks = run(&[("m.p4", "#define ID(v) v\nID(\n  zz)")], "m.p4").unwrap();
        assert_eq!((toks[0].span.line, toks[0].span.col), (3, 3));
    }

    #[test]
    fn line_directive_renumbers() {
        let (e, sources) = run(&[("m.p4", "#line 100 \"gen.p4\"\nok\n\"x")], "m.p4").unwrap_err();
        assert_eq!(e.span.line, 101);
        assert_eq!(sources.name(e.span.file), "gen.p4");
        let (e, _) = run(&[("m.p4", "# 7 \"x.p4\" 1\n\"x")], "m.p4").unwrap_err();
        assert_eq!(e.span.line, 7);
        assert_eq!(expand("#line 5\n__LINE__"), vec!["5"]);
    }

    #[test]
    fn builtin_line_and_file() {
        assert_eq!(expand("\n__LINE__ __FILE__"), vec!["2", "\"main.p4\""]);
        assert_eq!(expand("#ifdef __LINE__\nok\n#endif"), vec!["ok"]);
    }

    #[test]
    fn macro_definition_errors() {
        assert!(matches!(
            error("#define F(a,a) a").kind,
            ErrorKind::Macro(_)
        ));
        assert!(matches!(error("#define F(a").kind, ErrorKind::Macro(_)));
        assert!(matches!(error("#define F(x) #y").kind, ErrorKind::Macro(_)));
        assert!(matches!(error("#define F ## x").kind, ErrorKind::Macro(_)));
        assert!(matches!(
            error("#define defined 1").kind,
            ErrorKind::Macro(_)
        ));
        assert!(matches!(
            error("#define F(x) x\nF(1, 2)").kind,
            ErrorKind::Macro(_)
        ));
        assert!(matches!(
            error("#define F(x) x\nF(1").kind,
            ErrorKind::Macro(_)
        ));
        assert!(matches!(
            error("#define\n").kind,
            ErrorKind::BadDirective(_)
        ));
    }

    #[test]
    fn undef_and_command_line_defines() {
        assert_eq!(expand("#define A 1\n#undef A\nA"), vec!["A"]);
        let loader = MemoryLoader::new();
        let mut sources = SourceMap::new();
        let mut pp = Preprocessor::new(&mut sources, &loader);
        pp.define("LANES", "64").unwrap();
        let t = texts(&pp.run_source("m.p4", "LANES __TARGET_BMV2__").unwrap());
        assert_eq!(t, vec!["64", "1"]);
    }

    #[test]
    fn invalid_text_only_matters_when_active() {
        assert_eq!(expand("#if 0\ndon't $ care\n#endif\nok"), vec!["ok"]);
        // a stray character is the parser's to refuse (it may sit in a
        // free-form annotation body); an unterminated string is an error
        assert_eq!(expand("a\n  $"), vec!["a", "$"]);
        let e = error("a\n  \"b");
        assert_eq!(e.kind, ErrorKind::Lex("unterminated string literal".into()));
        assert_eq!((e.span.line, e.span.col), (2, 3));
        let e = error("#define X $\nX");
        assert_eq!(e.kind, ErrorKind::Lex("unexpected character `$`".into()));
    }

    #[test]
    fn computed_include() {
        let files = [
            ("m.p4", "#define HDR \"h.p4\"\n#include HDR\n"),
            ("h.p4", "inside"),
        ];
        assert_eq!(texts(&run(&files, "m.p4").unwrap()), vec!["inside"]);
    }
}
