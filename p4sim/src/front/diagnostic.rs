//! Front-end errors.
//!
//! Inside the front end an [`Error`] is a kind plus a [`Span`]; at the public
//! boundary it becomes a [`Diagnostic`], which also holds the file name and
//! source line so it can be printed the way compilers do:
//!
//! ```text
//! prog.p4:12:9: error: expected `;`, found `}`
//!     x = 1
//!         ^
//! ```

use std::fmt;

use crate::front::source::{SourceMap, Span};

/// What went wrong, without the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// A character, string or comment the lexer cannot read.
    #[error("{0}")]
    Lex(String),
    /// An integer literal that is malformed (bad digit, zero width, ...).
    #[error("{0}")]
    BadLiteral(String),
    /// An `#include` names a file found in no search path.
    #[error("cannot find include file `{0}`")]
    IncludeNotFound(String),
    /// A file exists but could not be read.
    #[error("cannot read `{path}`: {message}")]
    Io {
        /// The path that failed.
        path: Box<str>,
        /// The operating system's message.
        message: Box<str>,
    },
    /// `#if`, `#ifdef` or `#ifndef` without a matching `#endif`.
    #[error("unterminated `#{0}`: no matching `#endif`")]
    UnterminatedConditional(String),
    /// A malformed, misplaced or unknown preprocessor directive.
    #[error("{0}")]
    BadDirective(String),
    /// The program asked to stop with `#error`.
    #[error("#error {0}")]
    ErrorDirective(String),
    /// A macro definition or invocation that cannot be expanded.
    #[error("{0}")]
    Macro(String),
    /// An `#if`/`#elif` condition that cannot be evaluated.
    #[error("in preprocessor condition: {0}")]
    Condition(String),
    /// Includes nested too deeply, or macro expansion did not settle.
    #[error("{0}")]
    TooDeep(String),
    /// The token stream does not follow the P4_16 grammar.
    #[error("{0}")]
    Syntax(String),
    /// Valid P4_16 that this implementation does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A name, type or constant error found after parsing (unknown name,
    /// width mismatch, wrong argument count, ...), as p4c reports them.
    #[error("{0}")]
    Semantic(String),
}

/// An error with the span it refers to; the front end's internal error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where.
    pub span: Span,
}

impl Error {
    /// An error of `kind` at `span`.
    pub fn new(kind: ErrorKind, span: Span) -> Error {
        Error { kind, span }
    }

    /// A syntax error at `span`.
    pub fn syntax(message: impl Into<String>, span: Span) -> Error {
        Error::new(ErrorKind::Syntax(message.into()), span)
    }

    /// An "unsupported construct" error at `span`.
    pub fn unsupported(message: impl Into<String>, span: Span) -> Error {
        Error::new(ErrorKind::Unsupported(message.into()), span)
    }
}

/// A front-end error ready to show a user: `file:line:col: error: message`,
/// then the source line and a caret under the offending text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where, as a span into the program's [`SourceMap`].
    pub span: Span,
    /// File name as shown.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
    /// The text of the line the error is on (empty when unknown).
    pub source_line: String,
}

impl Diagnostic {
    /// Renders `kind` at `span`, looking the file up in `sources`.
    pub fn new(kind: ErrorKind, span: Span, sources: &SourceMap) -> Diagnostic {
        let (file, source_line) = match sources.get(span.file) {
            Some(f) => (f.name.clone(), f.line_text(span.lo).to_string()),
            None => ("<unknown>".to_string(), String::new()),
        };
        Diagnostic {
            kind,
            span,
            file,
            line: span.line,
            col: span.col,
            source_line,
        }
    }

    /// Renders an internal [`Error`].
    pub fn from_error(error: Error, sources: &SourceMap) -> Diagnostic {
        Diagnostic::new(error.kind, error.span, sources)
    }

    /// The message without position, as `Display` of the kind gives it.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.kind
        )?;
        if self.source_line.is_empty() {
            return Ok(());
        }
        // A very long line (generated code) is shown as a window around the
        // column, `...` marking what was cut.
        let line = self.source_line.as_str();
        let at = ((self.col as usize).saturating_sub(1)).min(line.len());
        let (start, end) = if line.len() > LONG_LINE {
            let floor = |mut i: usize| {
                while !line.is_char_boundary(i) {
                    i -= 1;
                }
                i
            };
            let start = floor(at.saturating_sub(WINDOW / 2));
            (start, floor((start + WINDOW).min(line.len())))
        } else {
            (0, line.len())
        };
        let (lead, trail) = (
            if start > 0 { "..." } else { "" },
            if end < line.len() { "..." } else { "" },
        );
        write!(f, "\n{lead}{}{trail}\n", &line[start..end])?;
        // Keep tabs so the caret lines up with the text above it.
        let mut pad = " ".repeat(lead.len());
        for (i, c) in line[start..end].char_indices() {
            if start + i >= at {
                break;
            }
            pad.push(if c == '\t' { '\t' } else { ' ' });
        }
        let rest = end.saturating_sub(at);
        let carets = (self.span.len() as usize).clamp(1, rest.max(1));
        write!(f, "{pad}{}", "^".repeat(carets))
    }
}

/// Lines longer than this (bytes) are shown as a window around the column.
const LONG_LINE: usize = 200;
/// The window's width in bytes.
const WINDOW: usize = 160;

impl std::error::Error for Diagnostic {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.kind)
    }
}
