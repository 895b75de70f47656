//! The front end's entry points: preprocess, lex and parse a program.
//!
//! ```
//! let program = p4sim::front::parse_source(
//!     "prog.p4",
//!     "#include <core.p4>\nconst bit<8> TTL = 64;",
//! )
//! .unwrap();
//! assert_eq!(program.declarations.last().and_then(|d| d.name()).unwrap().as_str(), "TTL");
//! ```

pub mod ast;
pub mod diagnostic;
pub mod lexer;
pub mod parser;
pub mod preprocess;
pub mod source;

use std::path::{Path, PathBuf};

use crate::front::ast::Program;
use crate::front::diagnostic::Error;
use crate::front::lexer::Token;
use crate::front::parser::parse_tokens;
use crate::front::preprocess::{FsLoader, MemoryLoader, Preprocessor, SourceLoader};
use crate::front::source::SourceMap;

use crate::front::diagnostic::Diagnostic;

/// Options beyond the program itself.
#[derive(Debug, Clone, Default)]
pub struct FrontendOptions {
    /// Folders searched by `#include` (like `-I`), in order.
    pub include_dirs: Vec<PathBuf>,
    /// Macros defined before the program is read (like `-DNAME=VALUE`).
    pub defines: Vec<(String, String)>,
}

/// Reads, preprocesses and parses the program at `path`, searching
/// `include_dirs` for includes after the including file's own folder.
pub fn parse_program(path: &Path, include_dirs: &[PathBuf]) -> Result<Program, Diagnostic> {
    let options = FrontendOptions {
        include_dirs: include_dirs.to_vec(),
        defines: Vec::new(),
    };
    parse_program_with(path, &options)
}

/// [`parse_program`] with macro definitions and other options.
pub fn parse_program_with(path: &Path, options: &FrontendOptions) -> Result<Program, Diagnostic> {
    run(&FsLoader, options, |pp| pp.run_file(path))
}

/// Parses program text that has no file on disk. Only the built-in headers
/// (`core.p4`, `v1model.p4`) can be included; the file system is never
/// touched, so this is safe on untrusted input.
pub fn parse_source(name: &str, text: &str) -> Result<Program, Diagnostic> {
    parse_source_with(
        name,
        text,
        &MemoryLoader::new(),
        &FrontendOptions::default(),
    )
}

/// Parses program text, resolving includes through `loader`.
pub fn parse_source_with(
    name: &str,
    text: &str,
    loader: &dyn SourceLoader,
    options: &FrontendOptions,
) -> Result<Program, Diagnostic> {
    run(loader, options, |pp| pp.run_source(name, text))
}

/// Only preprocesses the program at `path`: the token stream the parser
/// would see, and the files read.
pub fn preprocess_program(
    path: &Path,
    options: &FrontendOptions,
) -> Result<(Vec<Token>, SourceMap), Diagnostic> {
    let mut sources = SourceMap::new();
    let tokens = preprocess(&mut sources, &FsLoader, options, |pp| pp.run_file(path))
        .map_err(|e| Diagnostic::from_error(e, &sources))?;
    Ok((tokens, sources))
}

fn preprocess(
    sources: &mut SourceMap,
    loader: &dyn SourceLoader,
    options: &FrontendOptions,
    read: impl FnOnce(Preprocessor<'_>) -> Result<Vec<Token>, Error>,
) -> Result<Vec<Token>, Error> {
    let mut pp = Preprocessor::new(sources, loader);
    for dir in &options.include_dirs {
        pp.add_include_dir(dir.clone());
    }
    for (name, value) in &options.defines {
        pp.define(name, value)?;
    }
    read(pp)
}

fn run(
    loader: &dyn SourceLoader,
    options: &FrontendOptions,
    read: impl FnOnce(Preprocessor<'_>) -> Result<Vec<Token>, Error>,
) -> Result<Program, Diagnostic> {
    let mut sources = SourceMap::new();
    let result = preprocess(&mut sources, loader, options, read).and_then(parse_tokens);
    match result {
        Ok(declarations) => Ok(Program {
            declarations,
            sources,
        }),
        Err(e) => Err(Diagnostic::from_error(e, &sources)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::diagnostic::ErrorKind;

    #[test]
    fn diagnostics_render_with_caret() {
        let err =
            parse_source("bad.p4", "const bit<8> X = 1;\nconst bit<8> Y = 2 3;\n").unwrap_err();
        assert_eq!(err.file, "bad.p4");
        assert_eq!((err.line, err.col), (2, 20));
        assert_eq!(
            err.to_string(),
            "bad.p4:2:20: error: expected `;`, found integer `3`\n\
             const bit<8> Y = 2 3;\n                   ^"
        );
    }

    #[test]
    fn caret_keeps_tabs_and_spans_the_token() {
        let err = parse_source("t.p4", "\tconst bit<8> X = 1 foo;").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.p4:1:21: error: expected `;`, found identifier `foo`\n\tconst bit<8> X = 1 foo;\n\t                   ^^^"
        );
    }

    #[test]
    fn builtin_headers_parse() {
        let p = parse_source("m.p4", "#include <core.p4>\n#include <v1model.p4>\n").unwrap();
        let names: Vec<&str> = p
            .declarations
            .iter()
            .filter_map(|d| d.name().map(|n| n.as_str()))
            .collect();
        for want in [
            "packet_in",
            "NoAction",
            "standard_metadata_t",
            "register",
            "hash",
            "V1Switch",
            "clone_preserving_field_list",
            "log_msg",
        ] {
            assert!(names.contains(&want), "{want} missing");
        }
        let p = parse_source(
            "m.p4",
            "#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n",
        );
        assert!(p.is_ok());
    }

    #[test]
    fn errors_in_builtins_would_name_them() {
        let err = parse_source("m.p4", "#include <nonexistent.p4>").unwrap_err();
        assert_eq!(
            err.kind,
            ErrorKind::IncludeNotFound("nonexistent.p4".into())
        );
        assert!(
            err.to_string()
                .starts_with("m.p4:1:10: error: cannot find include file")
        );
    }
}
