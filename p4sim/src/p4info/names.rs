//! Names, annotations and ids as p4c's front end gives them: `@name` and
//! the control's prefix (`HierarchicalNames`), `@id`, annotations printed
//! as `ToP4` does, the ids of key elements, parameters and fields; and the
//! errors the builder reports.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::front::ast::{
    Annotation, AnnotationBody, Expr, ExprKind, TypedefDecl, UnaryOp, find_annotation,
};
use crate::front::diagnostic::{Error, ErrorKind};
use crate::front::source::Span;

pub(super) type Res<T> = Result<T, Error>;

pub(super) fn invalid(message: impl Into<String>, span: Span) -> Error {
    Error::new(ErrorKind::Syntax(message.into()), span)
}

pub(super) fn unsupported(message: impl Into<String>, span: Span) -> Error {
    Error::unsupported(message, span)
}

/// `@p4runtime_translation("uri", bit<W>)`, `("uri", W)` or `(…, string)`
/// on a `type`.
pub(super) fn translation(decl: &TypedefDecl) -> Option<(String, Option<u32>)> {
    let anno = find_annotation(&decl.annotations, "p4runtime_translation")?;
    let AnnotationBody::Unstructured { tokens, .. } = &anno.body else {
        return None;
    };
    let uri = tokens
        .iter()
        .find(|t| t.text.starts_with('"'))
        .map(|t| crate::front::lexer::unquote(&t.text))?;
    let texts: Vec<&str> = tokens.iter().map(|t| &*t.text).collect();
    let width = match texts.iter().position(|t| *t == "bit") {
        Some(i) => texts.get(i + 2).and_then(|t| t.parse::<u32>().ok()),
        None => texts.iter().find_map(|t| t.parse::<u32>().ok()),
    };
    Some((uri, width))
}

/// The control-plane name of a declaration: its `@name`, else its name.
pub(super) fn annotated_name(annotations: &[Annotation], name: &str) -> String {
    find_annotation(annotations, "name")
        .and_then(|a| a.string_argument())
        .map_or_else(|| name.to_string(), str::to_string)
}

/// Qualifies a local name with its control's, as `HierarchicalNames` does.
pub(super) fn qualify(prefix: &str, annotations: &[Annotation], name: &str) -> String {
    let n = annotated_name(annotations, name);
    if let Some(global) = n.strip_prefix('.') {
        global.to_string()
    } else if prefix.is_empty() {
        n
    } else {
        format!("{prefix}.{n}")
    }
}

pub(super) fn id_annotation(annotations: &[Annotation]) -> Res<Option<u64>> {
    let Some(anno) = find_annotation(annotations, "id") else {
        return Ok(None);
    };
    let value = anno
        .integer_argument()
        .and_then(|v| v.to_u128())
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| invalid("@id needs one unsigned integer", anno.span))?;
    Ok(Some(value))
}

/// Annotations printed in P4Info: all but `@name`, `@id`, `@brief` and
/// `@description`, in p4c's `ToP4` spelling.
pub(super) fn printed_annotations(annotations: &[Annotation]) -> Vec<String> {
    annotations
        .iter()
        .filter(|a| !matches!(a.name.as_str(), "name" | "id" | "brief" | "description"))
        .map(print_annotation)
        .collect()
}

/// Annotations p4c parses into expressions; others keep their tokens.
fn parsed_annotation(name: &str) -> bool {
    matches!(
        name,
        "name"
            | "tableonly"
            | "defaultonly"
            | "hidden"
            | "atomic"
            | "optional"
            | "pure"
            | "noSideEffects"
            | "noWarn"
            | "deprecated"
            | "synchronous"
            | "match"
            | "priority"
            | "id"
            | "controller_header"
            | "field_list"
            | "length"
            | "pkginfo"
            | "brief"
            | "description"
            | "p4runtime_translation"
            | "p4runtime_translation_mappings"
            | "disable_optimization"
            | "debug"
    )
}

fn print_annotation(a: &Annotation) -> String {
    let mut s = format!("@{}", a.name);
    match &a.body {
        AnnotationBody::Empty => {}
        AnnotationBody::Unstructured {
            tokens,
            expressions,
        } => match expressions {
            Some(exprs) if parsed_annotation(a.name.as_str()) && !exprs.is_empty() => {
                let parts: Vec<String> = exprs.iter().map(print_expr).collect();
                let _ = write!(s, "({})", parts.join(", "));
            }
            _ if tokens.is_empty() => {}
            _ => {
                let parts: Vec<&str> = tokens.iter().map(|t| &*t.text).collect();
                let _ = write!(s, "({})", parts.join(" "));
            }
        },
        AnnotationBody::ExpressionList(exprs) => {
            let parts: Vec<String> = exprs.iter().map(print_expr).collect();
            let _ = write!(s, "[{}]", parts.join(", "));
        }
        AnnotationBody::KeyValues(kvs) => {
            let parts: Vec<String> = kvs
                .iter()
                .map(|kv| format!("{}={}", kv.name, print_expr(&kv.value)))
                .collect();
            let _ = write!(s, "[{}]", parts.join(", "));
        }
        AnnotationBody::Pragma(tokens) => {
            let parts: Vec<&str> = tokens.iter().map(|t| &*t.text).collect();
            let _ = write!(s, " {}", parts.join(" "));
        }
    }
    s
}

/// Prints an expression roughly as p4c's `ToP4` would (for annotations).
fn print_expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Int(v) => {
            let value = v
                .to_u128()
                .map_or_else(|| "?".to_string(), |v| v.to_string());
            match v.width {
                Some(w) => format!("{w}{}{value}", if v.signed { "s" } else { "w" }),
                None => value,
            }
        }
        ExprKind::String(s) => format!("\"{}\"", escape_p4_string(s)),
        ExprKind::Name(p) => format!("{}{}", if p.absolute { "." } else { "" }, p.name),
        ExprKind::Member { base, member } => format!("{}.{member}", print_expr(base)),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => format!("-{}", print_expr(operand)),
        ExprKind::Binary { op, lhs, rhs } => {
            format!("{} {} {}", print_expr(lhs), op.symbol(), print_expr(rhs))
        }
        _ => "...".to_string(),
    }
}

fn escape_p4_string(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// Ids for key elements, parameters and header fields, as p4c's
/// `FieldIdAllocator`: `@id` values first, then 1, 2, ... in order,
/// skipping taken values (a position with an `@id` still uses up a number).
pub(super) fn field_ids(annotations: &[&[Annotation]]) -> Res<Vec<u32>> {
    let mut given: Vec<Option<u32>> = Vec::with_capacity(annotations.len());
    let mut taken = BTreeSet::new();
    for annos in annotations {
        let id = match id_annotation(annos)? {
            Some(v) => {
                let span = find_annotation(annos, "id")
                    .map(|a| a.span)
                    .unwrap_or_default();
                let v =
                    u32::try_from(v).map_err(|_| invalid("@id does not fit in 32 bits", span))?;
                if v == 0 {
                    return Err(invalid("0 is not a valid @id value", span));
                }
                if !taken.insert(v) {
                    return Err(invalid(format!("@id {v} is used multiple times"), span));
                }
                Some(v)
            }
            None => None,
        };
        given.push(id);
    }
    let mut index: u32 = 1;
    let mut ids = Vec::with_capacity(given.len());
    for g in given {
        if let Some(v) = g {
            index = index.saturating_add(1);
            ids.push(v);
            continue;
        }
        while taken.contains(&index) {
            index = index.saturating_add(1);
        }
        taken.insert(index);
        ids.push(index);
    }
    Ok(ids)
}
