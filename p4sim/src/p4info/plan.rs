//! What survives of a control after p4c's front end: top-level actions
//! copied in (`LocalizeAllActions`), tables never applied and actions
//! nothing refers to removed (`RemoveAllUnusedDeclarations`; an action
//! only other actions call is inlined into them and gone too), and the
//! actions called directly rather than through a table.

use std::collections::{HashMap, HashSet};

use crate::front::ast::{
    ActionDecl, ActionRef as AstActionRef, Block, ControlDecl, Declaration, Expr, ExprKind,
    Statement, StatementKind, SwitchLabel, TableDecl,
};

/// A control's surviving declarations after p4c's front end.
pub(super) struct ControlPlan<'a> {
    /// Top-level actions copied in, in order of first use.
    pub(super) global_actions: Vec<&'a ActionDecl>,
    /// The control's own actions that are used, in declaration order.
    pub(super) actions: Vec<&'a ActionDecl>,
    /// Applied tables, in declaration order.
    pub(super) tables: Vec<&'a TableDecl>,
    /// Names of actions called directly (from the apply block or another
    /// action) rather than through a table. p4c's front end turns all their
    /// parameters into locals (`RemoveActionParameters`), so their P4Info
    /// entries carry no parameters.
    pub(super) direct_calls: HashSet<String>,
}

impl<'a> ControlPlan<'a> {
    pub(super) fn new(
        top_actions: &HashMap<&'a str, &'a ActionDecl>,
        control: &'a ControlDecl,
    ) -> ControlPlan<'a> {
        let local_actions: HashMap<&str, &ActionDecl> = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Action(a) => Some((a.name.as_str(), a)),
                _ => None,
            })
            .collect();
        let local_tables: HashMap<&str, &TableDecl> = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Table(t) => Some((t.name.as_str(), t)),
                _ => None,
            })
            .collect();

        // Reachability from the apply block: tables applied there, actions
        // named there or by used tables (not those only actions call).
        let mut used_tables: HashSet<&str> = HashSet::new();
        // Local action names as written; top-level ones with a leading `.`.
        let mut used_actions: HashSet<String> = HashSet::new();
        let mut names = Vec::new();
        collect_names_block(&control.apply, &mut names);
        let mut work: Vec<(bool, String)> = names.into_iter().map(|n| (false, n)).collect();
        while let Some((absolute, name)) = work.pop() {
            if !absolute && let Some(t) = local_tables.get(name.as_str()) {
                if used_tables.insert(t.name.as_str()) {
                    for n in table_action_names(t) {
                        work.push(n);
                    }
                }
                continue;
            }
            if !absolute && let Some(a) = local_actions.get(name.as_str()) {
                used_actions.insert(a.name.to_string());
                continue;
            }
            if let Some(a) = top_actions.get(name.as_str()) {
                used_actions.insert(format!(".{}", a.name));
            }
        }

        // Global actions in order of first reference, visiting the locals
        // (tables' properties in order) and then the apply block.
        let mut global_actions: Vec<&ActionDecl> = Vec::new();
        let mut note_global = |name: &str, absolute: bool| {
            let local = !absolute && local_actions.contains_key(name);
            if local {
                return;
            }
            if let Some(a) = top_actions.get(name)
                && !global_actions.iter().any(|g| std::ptr::eq(*g, *a))
            {
                global_actions.push(a);
            }
        };
        for d in &control.locals {
            match d {
                Declaration::Table(t) if used_tables.contains(t.name.as_str()) => {
                    for (absolute, n) in table_action_names(t) {
                        note_global(&n, absolute);
                    }
                }
                Declaration::Action(a) if used_actions.contains(a.name.as_str()) => {
                    let mut inner = Vec::new();
                    collect_names_block(&a.body, &mut inner);
                    for n in inner {
                        note_global(&n, false);
                    }
                }
                _ => {}
            }
        }
        let mut apply_names = Vec::new();
        collect_names_block(&control.apply, &mut apply_names);
        let mut direct_calls: HashSet<String> = HashSet::new();
        for n in apply_names {
            if local_tables.contains_key(n.as_str()) {
                continue;
            }
            note_global(&n, false);
            direct_calls.insert(n);
        }
        for d in &control.locals {
            if let Declaration::Action(a) = d
                && used_actions.contains(a.name.as_str())
            {
                let mut inner = Vec::new();
                collect_names_block(&a.body, &mut inner);
                direct_calls.extend(inner);
            }
        }

        let actions = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Action(a) if used_actions.contains(a.name.as_str()) => Some(a),
                _ => None,
            })
            .collect();
        let tables = control
            .locals
            .iter()
            .filter_map(|d| match d {
                Declaration::Table(t) if used_tables.contains(t.name.as_str()) => Some(t),
                _ => None,
            })
            .collect();
        ControlPlan {
            global_actions,
            actions,
            tables,
            direct_calls,
        }
    }
}

/// Action names a table refers to, including the implicit `NoAction`.
fn table_action_names(t: &TableDecl) -> Vec<(bool, String)> {
    let mut out: Vec<(bool, String)> = Vec::new();
    let mut push_ref = |r: &AstActionRef| out.push((r.name.absolute, r.name.name.to_string()));
    for p in &t.properties {
        match &p.kind {
            crate::front::ast::TablePropertyKind::Actions(list) => {
                list.iter().for_each(&mut push_ref)
            }
            crate::front::ast::TablePropertyKind::DefaultAction(a) => push_ref(a),
            crate::front::ast::TablePropertyKind::Entries(entries) => {
                entries.iter().for_each(|e| push_ref(&e.action));
            }
            _ => {}
        }
    }
    if t.default_action().is_none() {
        out.push((false, "NoAction".to_string()));
    }
    out
}

/// Every plain name used in a block (calls, arguments, table applies).
pub(super) fn collect_names_block(b: &Block, out: &mut Vec<String>) {
    for s in &b.statements {
        collect_names_stmt(s, out);
    }
}

fn collect_names_stmt(s: &Statement, out: &mut Vec<String>) {
    match &s.kind {
        StatementKind::Assign { lhs, rhs, .. } => {
            collect_names_expr(lhs, out);
            collect_names_expr(rhs, out);
        }
        StatementKind::Call(e) => collect_names_expr(e, out),
        StatementKind::If {
            cond,
            then,
            otherwise,
        } => {
            collect_names_expr(cond, out);
            collect_names_stmt(then, out);
            if let Some(o) = otherwise {
                collect_names_stmt(o, out);
            }
        }
        StatementKind::Switch { expr, cases } => {
            collect_names_expr(expr, out);
            for c in cases {
                if let SwitchLabel::Expr(e) = &c.label {
                    collect_names_expr(e, out);
                }
                if let Some(b) = &c.body {
                    collect_names_block(b, out);
                }
            }
        }
        StatementKind::Block(b) => collect_names_block(b, out),
        StatementKind::Return(Some(e)) => collect_names_expr(e, out),
        StatementKind::Declaration(d) => match &**d {
            Declaration::Variable(v) => {
                if let Some(i) = &v.init {
                    collect_names_expr(i, out);
                }
            }
            Declaration::Constant(c) => collect_names_expr(&c.value, out),
            _ => {}
        },
        _ => {}
    }
}

fn collect_names_expr(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(p) => out.push(p.name.to_string()),
        ExprKind::Member { base, .. } => collect_names_expr(base, out),
        ExprKind::Index { base, index } => {
            collect_names_expr(base, out);
            collect_names_expr(index, out);
        }
        ExprKind::Slice { base, hi, lo } => {
            collect_names_expr(base, out);
            collect_names_expr(hi, out);
            collect_names_expr(lo, out);
        }
        ExprKind::Call { callee, args, .. } => {
            collect_names_expr(callee, out);
            for a in args {
                collect_names_expr(&a.value, out);
            }
        }
        ExprKind::Unary { operand, .. } => collect_names_expr(operand, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_names_expr(lhs, out);
            collect_names_expr(rhs, out);
        }
        ExprKind::Ternary {
            cond,
            then,
            otherwise,
        } => {
            collect_names_expr(cond, out);
            collect_names_expr(then, out);
            collect_names_expr(otherwise, out);
        }
        ExprKind::Cast { expr, .. } => collect_names_expr(expr, out),
        ExprKind::List { items, .. } => items.iter().for_each(|i| collect_names_expr(i, out)),
        ExprKind::StructInit { fields, .. } => {
            fields
                .iter()
                .for_each(|f| collect_names_expr(&f.value, out));
        }
        _ => {}
    }
}

/// Calls of `digest(...)` in a block, in source order.
pub(super) fn digest_calls<'e>(b: &'e Block, out: &mut Vec<&'e Expr>) {
    fn stmt<'e>(s: &'e Statement, out: &mut Vec<&'e Expr>) {
        match &s.kind {
            StatementKind::Call(e) => {
                if let ExprKind::Call { callee, .. } = &e.kind
                    && let ExprKind::Name(p) = &callee.kind
                    && p.name.as_str() == "digest"
                {
                    out.push(e);
                }
            }
            StatementKind::If {
                then, otherwise, ..
            } => {
                stmt(then, out);
                if let Some(o) = otherwise {
                    stmt(o, out);
                }
            }
            StatementKind::Switch { cases, .. } => {
                for c in cases {
                    if let Some(b) = &c.body {
                        digest_calls(b, out);
                    }
                }
            }
            StatementKind::Block(b) => digest_calls(b, out),
            _ => {}
        }
    }
    for s in &b.statements {
        stmt(s, out);
    }
}
