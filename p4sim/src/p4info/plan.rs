//! What survives of a control after p4c's front end: top-level actions
//! copied in (`LocalizeAllActions`), tables never applied and actions
//! nothing refers to removed (`RemoveAllUnusedDeclarations`; an action
//! only other actions call, local or top-level, is inlined into them and
//! gone too; so is what only code p4c's front end removes refers to), and
//! the actions called directly rather than through a table.

use std::collections::{HashMap, HashSet};

use crate::front::ast::{
    ActionDecl, ActionRef as AstActionRef, BinaryOp, Block, ControlDecl, Declaration, Expr,
    ExprKind, Statement, StatementKind, SwitchLabel, TableDecl, UnaryOp,
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
        fold: &Fold<'a, '_>,
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

        // Reachability from the apply block: tables applied there or in a
        // used table's key, actions named there or by used tables (not
        // those only actions call).
        let mut used_tables: HashSet<&str> = HashSet::new();
        // Local action names as written; top-level ones with a leading `.`.
        let mut used_actions: HashSet<String> = HashSet::new();
        let mut names = Vec::new();
        collect_names_block(&control.apply, fold, None, &mut names);
        let mut work: Vec<(bool, String)> = names.into_iter().map(|n| (false, n)).collect();
        while let Some((absolute, name)) = work.pop() {
            if !absolute && let Some(t) = local_tables.get(name.as_str()) {
                if used_tables.insert(t.name.as_str()) {
                    for n in table_action_names(t) {
                        work.push(n);
                    }
                    let mut in_key = Vec::new();
                    for k in t.key().unwrap_or(&[]) {
                        collect_names_expr(&k.expr, fold, &mut in_key);
                    }
                    work.extend(in_key.into_iter().map(|n| (false, n)));
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
                    collect_names_block(&a.body, fold, Some(a), &mut inner);
                    for n in inner {
                        note_global(&n, false);
                    }
                }
                _ => {}
            }
        }
        let mut apply_names = Vec::new();
        collect_names_block(&control.apply, fold, None, &mut apply_names);
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
                collect_names_block(&a.body, fold, Some(a), &mut inner);
                direct_calls.extend(inner);
            }
        }
        // A top-level action only actions call is inlined into them
        // (`InlineActions`) and removed with the copies no one refers to.
        global_actions.retain(|a| used_actions.contains(&format!(".{}", a.name)));

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

/// The value of a condition p4c's front end folds to a constant
/// (`ConstantFolding`), in a control's apply block or (`Some`) an action's
/// body; `None` when it does not.
pub(super) type Fold<'a, 'f> = dyn Fn(&Expr, Option<&'a ActionDecl>) -> Option<bool> + 'f;

/// Every plain name used in a body (an action's, or a control's apply
/// block): calls, arguments, table applies; leaving out the code p4c's front
/// end removes before it writes P4Info: the branch a constant condition
/// never takes (`ConstantFolding` folds `if`, `?:`, `&&` and `||` on a
/// constant), and, in a body with a `return`, the statements of a block
/// after one that always returns or exits (`RemoveReturns`,
/// frontends/p4/removeReturns.cpp).
pub(super) fn collect_names_block<'a>(
    b: &Block,
    fold: &Fold<'a, '_>,
    action: Option<&'a ActionDecl>,
    out: &mut Vec<String>,
) {
    Walk::new(b, fold, action).block(b, out);
}

/// Every plain name used in an expression of a control's (a table
/// property's), as [`collect_names_block`].
pub(super) fn collect_names_expr<'a>(e: &Expr, fold: &Fold<'a, '_>, out: &mut Vec<String>) {
    let walk = Walk {
        fold,
        action: None,
        drops_after_jump: false,
        locals: HashSet::new(),
    };
    walk.expr(e, out);
}

/// Whether `s` contains a `return`.
fn has_return(s: &Statement) -> bool {
    match &s.kind {
        StatementKind::Return(_) => true,
        StatementKind::If {
            then, otherwise, ..
        } => has_return(then) || otherwise.as_deref().is_some_and(has_return),
        StatementKind::Switch { cases, .. } => cases
            .iter()
            .filter_map(|c| c.body.as_ref())
            .any(|b| b.statements.iter().any(has_return)),
        StatementKind::Block(b) => b.statements.iter().any(has_return),
        StatementKind::For { body, .. } | StatementKind::ForIn { body, .. } => has_return(body),
        _ => false,
    }
}

/// Names declared in a body's statements (its local variables and
/// constants).
fn declared_names(b: &Block, out: &mut HashSet<String>) {
    fn stmt(s: &Statement, out: &mut HashSet<String>) {
        match &s.kind {
            StatementKind::Declaration(d) => {
                if let Some(n) = d.name() {
                    out.insert(n.to_string());
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
                for b in cases.iter().filter_map(|c| c.body.as_ref()) {
                    declared_names(b, out);
                }
            }
            StatementKind::Block(b) => declared_names(b, out),
            StatementKind::For { init, body, .. } => {
                init.iter().for_each(|s| stmt(s, out));
                stmt(body, out);
            }
            StatementKind::ForIn { name, body, .. } => {
                out.insert(name.to_string());
                stmt(body, out);
            }
            _ => {}
        }
    }
    b.statements.iter().for_each(|s| stmt(s, out));
}

/// A walk over one body.
struct Walk<'w, 'a, 'f> {
    fold: &'w Fold<'a, 'f>,
    /// The action whose body this is, if any.
    action: Option<&'a ActionDecl>,
    /// Whether p4c's `RemoveReturns` rewrites the body (it has a `return`).
    drops_after_jump: bool,
    /// Names the body declares: a condition naming one is not folded here
    /// (the checker's scope for [`Fold`] holds the control's names only).
    locals: HashSet<String>,
}

impl<'w, 'a, 'f> Walk<'w, 'a, 'f> {
    fn new(b: &Block, fold: &'w Fold<'a, 'f>, action: Option<&'a ActionDecl>) -> Self {
        let mut locals = HashSet::new();
        declared_names(b, &mut locals);
        Walk {
            fold,
            action,
            drops_after_jump: b.statements.iter().any(has_return),
            locals,
        }
    }

    /// `cond`'s constant value, as p4c's front end folds it: `false && x`
    /// and `true || x` by their left side alone.
    fn folded(&self, cond: &Expr) -> Option<bool> {
        match &cond.kind {
            ExprKind::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                lhs,
                rhs,
            } => {
                let or = matches!(*op, BinaryOp::Or);
                return match self.folded(lhs)? {
                    left if left == or => Some(left),
                    _ => self.folded(rhs),
                };
            }
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand,
            } => return self.folded(operand).map(|b| !b),
            _ => {}
        }
        if !self.locals.is_empty() {
            let mut names = Vec::new();
            self.expr_parts(cond, &mut names);
            if names.iter().any(|n| self.locals.contains(n)) {
                return None;
            }
        }
        (self.fold)(cond, self.action)
    }
    fn block(&self, b: &Block, out: &mut Vec<String>) {
        for s in &b.statements {
            self.stmt(s, out);
            if self.drops_after_jump && self.always_jumps(s) {
                break;
            }
        }
    }

    /// Whether `s` always returns or exits, as `RemoveReturns` judges it
    /// (a `switch` never does).
    fn always_jumps(&self, s: &Statement) -> bool {
        match &s.kind {
            StatementKind::Return(_) | StatementKind::Exit => true,
            StatementKind::If {
                cond,
                then,
                otherwise,
            } => match self.folded(cond) {
                Some(true) => self.always_jumps(then),
                Some(false) => otherwise.as_deref().is_some_and(|o| self.always_jumps(o)),
                None => {
                    self.always_jumps(then)
                        && otherwise.as_deref().is_some_and(|o| self.always_jumps(o))
                }
            },
            StatementKind::Block(b) => b.statements.iter().any(|s| self.always_jumps(s)),
            _ => false,
        }
    }

    fn stmt(&self, s: &Statement, out: &mut Vec<String>) {
        match &s.kind {
            StatementKind::Assign { lhs, rhs, .. } => {
                self.expr(lhs, out);
                self.expr(rhs, out);
            }
            StatementKind::Call(e) => self.expr(e, out),
            StatementKind::If {
                cond,
                then,
                otherwise,
            } => match self.folded(cond) {
                Some(true) => self.stmt(then, out),
                Some(false) => {
                    if let Some(o) = otherwise {
                        self.stmt(o, out);
                    }
                }
                None => {
                    self.expr(cond, out);
                    self.stmt(then, out);
                    if let Some(o) = otherwise {
                        self.stmt(o, out);
                    }
                }
            },
            StatementKind::Switch { expr, cases } => {
                self.expr(expr, out);
                for c in cases {
                    if let SwitchLabel::Expr(e) = &c.label {
                        self.expr(e, out);
                    }
                    if let Some(b) = &c.body {
                        self.block(b, out);
                    }
                }
            }
            StatementKind::Block(b) => self.block(b, out),
            StatementKind::Return(Some(e)) => self.expr(e, out),
            StatementKind::Declaration(d) => match &**d {
                Declaration::Variable(v) => {
                    if let Some(i) = &v.init {
                        self.expr(i, out);
                    }
                }
                Declaration::Constant(c) => self.expr(&c.value, out),
                _ => {}
            },
            StatementKind::For {
                init,
                cond,
                update,
                body,
            } => {
                for s in init.iter().chain(update) {
                    self.stmt(s, out);
                }
                if let Some(c) = cond {
                    self.expr(c, out);
                }
                self.stmt(body, out);
            }
            StatementKind::ForIn { lo, hi, body, .. } => {
                self.expr(lo, out);
                if let Some(h) = hi {
                    self.expr(h, out);
                }
                self.stmt(body, out);
            }
            _ => {}
        }
    }

    fn expr(&self, e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => match self.folded(cond) {
                Some(true) => self.expr(then, out),
                Some(false) => self.expr(otherwise, out),
                None => {
                    self.expr(cond, out);
                    self.expr(then, out);
                    self.expr(otherwise, out);
                }
            },
            ExprKind::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                lhs,
                rhs,
            } => {
                self.expr(lhs, out);
                // `false && x` and `true || x` fold to their left side.
                let short = matches!(*op, BinaryOp::Or);
                if self.folded(lhs) != Some(!short) {
                    self.expr(rhs, out);
                }
            }
            _ => self.expr_parts(e, out),
        }
    }

    /// The names in `e`'s parts.
    fn expr_parts(&self, e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Name(p) => out.push(p.name.to_string()),
            ExprKind::Member { base, .. } => self.expr(base, out),
            ExprKind::Index { base, index } => {
                self.expr(base, out);
                self.expr(index, out);
            }
            ExprKind::Slice { base, hi, lo } => {
                self.expr(base, out);
                self.expr(hi, out);
                self.expr(lo, out);
            }
            ExprKind::Call { callee, args, .. } => {
                self.expr(callee, out);
                for a in args {
                    self.expr(&a.value, out);
                }
            }
            ExprKind::Unary { operand, .. } => self.expr(operand, out),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs, out);
                self.expr(rhs, out);
            }
            ExprKind::Cast { expr, .. } => self.expr(expr, out),
            ExprKind::List { items, .. } => items.iter().for_each(|i| self.expr(i, out)),
            ExprKind::StructInit { fields, .. } => {
                fields.iter().for_each(|f| self.expr(&f.value, out));
            }
            _ => {}
        }
    }
}

/// Calls of `digest(...)` in a body, in source order, but for those in
/// code p4c's front end removes (as [`collect_names_block`]).
pub(super) fn digest_calls<'a, 'e>(
    b: &'e Block,
    fold: &Fold<'a, '_>,
    action: Option<&'a ActionDecl>,
    out: &mut Vec<&'e Expr>,
) {
    Walk::new(b, fold, action).digests_block(b, out);
}

impl Walk<'_, '_, '_> {
    fn digests_block<'e>(&self, b: &'e Block, out: &mut Vec<&'e Expr>) {
        for s in &b.statements {
            self.digests_stmt(s, out);
            if self.drops_after_jump && self.always_jumps(s) {
                break;
            }
        }
    }

    fn digests_stmt<'e>(&self, s: &'e Statement, out: &mut Vec<&'e Expr>) {
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
                cond,
                then,
                otherwise,
            } => {
                let taken = self.folded(cond);
                if taken != Some(false) {
                    self.digests_stmt(then, out);
                }
                if let Some(o) = otherwise
                    && taken != Some(true)
                {
                    self.digests_stmt(o, out);
                }
            }
            StatementKind::Switch { cases, .. } => {
                for c in cases {
                    if let Some(b) = &c.body {
                        self.digests_block(b, out);
                    }
                }
            }
            StatementKind::Block(b) => self.digests_block(b, out),
            StatementKind::For { body, .. } | StatementKind::ForIn { body, .. } => {
                self.digests_stmt(body, out);
            }
            _ => {}
        }
    }
}
