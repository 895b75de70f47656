//! The Tofino 1 rules p4sim checks on every TNA program, so that a program
//! that runs here is not one the hardware cannot hold:
//!
//! - **one access per register per pass**: on no path through the ingress
//!   (or egress) control does a packet execute two RegisterActions (or
//!   `read`/`write` calls) of the same register — sequential accesses add up,
//!   branches of an `if`, cases of a `switch` and the actions of one table
//!   apply are alternatives;
//! - **a stateful ALU per RegisterAction**: at most two conditions (distinct
//!   comparisons in its `if`s, `?:` and `this.predicate`, a comparison and
//!   its negation being one), and at most two PHV inputs (fields other than
//!   the cell and constants) over all the RegisterActions of one register;
//! - **register cells** of 1, 8, 16 or 32 bits, or a pair of equal 8, 16 or
//!   32-bit fields.
//!
//! Each error names the rule and points at the register or RegisterAction.
//! What the rules leave to the real compiler (`bf-p4c`): stage allocation
//! and the length of dependency chains, crossbar, PHV and memory limits,
//! the kinds of ALU expressions a stateful ALU computes.

use super::*;
use std::collections::{HashMap as Map, HashSet};

/// Accesses per register on the worst path, with the actions they come
/// from.
#[derive(Default, Clone)]
struct Access(Map<u32, (u32, Vec<String>)>);

impl Access {
    fn one(reg: u32, via: &str) -> Access {
        let mut m = Map::new();
        m.insert(reg, (1, vec![via.to_string()]));
        Access(m)
    }

    /// `self` then `other`.
    fn then(mut self, other: Access) -> Access {
        for (r, (n, via)) in other.0 {
            let e = self.0.entry(r).or_insert((0, Vec::new()));
            e.0 += n;
            e.1.extend(via);
        }
        self
    }

    /// `self` or `other`.
    fn or(mut self, other: Access) -> Access {
        for (r, (n, via)) in other.0 {
            let e = self.0.entry(r).or_insert((0, Vec::new()));
            if n > e.0 {
                *e = (n, via);
            }
        }
        self
    }
}

struct Walk<'a> {
    bodies: &'a [Vec<St>],
    actions: &'a [ActionIr],
    tables: &'a [TableIr],
    depth: u32,
}

impl Walk<'_> {
    fn sts(&mut self, sts: &[St], via: &str) -> Access {
        let mut acc = Access::default();
        let mut read_here: HashSet<u32> = HashSet::new();
        for s in sts {
            // A RegisterAction's execute is a read and a write of its
            // register in one statement list: one access.
            if let St::Extern(c) = s {
                match &**c {
                    ExternCall::RegisterRead { reg, index, .. } => {
                        read_here.insert(*reg);
                        acc = acc.then(self.ex(index, via)).then(Access::one(*reg, via));
                        continue;
                    }
                    ExternCall::RegisterWrite { reg, index, value } => {
                        acc = acc.then(self.ex(index, via)).then(self.ex(value, via));
                        if !read_here.contains(reg) {
                            acc = acc.then(Access::one(*reg, via));
                        }
                        continue;
                    }
                    _ => {}
                }
            }
            acc = acc.then(self.st(s, via));
        }
        acc
    }

    fn table(&mut self, t: u32) -> Access {
        let Some(t) = self.tables.get(t as usize) else {
            return Access::default();
        };
        let mut acc = Access::default();
        for a in &t.actions {
            acc = acc.or(self.action(a.action));
        }
        acc
    }

    fn action(&mut self, a: u32) -> Access {
        match self.actions.get(a as usize) {
            Some(a) => self.sts(&a.body, &a.name),
            None => Access::default(),
        }
    }

    fn st(&mut self, s: &St, via: &str) -> Access {
        match s {
            St::Set(_, e) | St::SetW(_, e) | St::Advance(e) => self.ex(e, via),
            St::SetDyn(_, _, e) | St::SetDynW(_, _, e) => self.ex(e, via),
            St::Verify(a, b) => self.ex(a, via).then(self.ex(b, via)),
            St::If(c, a, b) => {
                let c = self.ex(c, via);
                let a = self.sts(a, via);
                c.then(a.or(self.sts(b, via)))
            }
            St::Block(b) => self.sts(b, via),
            St::Switch(e, cases, d) => {
                let mut alt = self.sts(d, via);
                for (_, c) in cases {
                    alt = alt.or(self.sts(c, via));
                }
                self.ex(e, via).then(alt)
            }
            St::Apply(t) => self.table(*t),
            St::SwitchAction(t, cases, d) => {
                let mut alt = self.sts(d, via);
                for c in cases.iter().flatten() {
                    alt = alt.or(self.sts(c, via));
                }
                self.table(*t).then(alt)
            }
            St::Call(b) => {
                let a = self.sts(&b.0, via);
                a.then(self.sts(&b.1, via))
            }
            St::RunAction(a) => self.action(*a),
            St::RunBody(b) => {
                if self.depth > 64 {
                    return Access::default();
                }
                self.depth += 1;
                let bodies = self.bodies;
                let r = bodies
                    .get(*b as usize)
                    .map(|b| self.sts(b, via))
                    .unwrap_or_default();
                self.depth -= 1;
                r
            }
            St::Extern(c) => match &**c {
                ExternCall::RegisterRead { reg, index, .. } => {
                    self.ex(index, via).then(Access::one(*reg, via))
                }
                ExternCall::RegisterWrite { reg, index, value } => self
                    .ex(index, via)
                    .then(self.ex(value, via))
                    .then(Access::one(*reg, via)),
                _ => Access::default(),
            },
            St::RegReadSlot { reg, .. }
            | St::RegRmwSlot { reg, .. }
            | St::RegWriteSlot { reg, .. } => Access::one(*reg, via),
            _ => Access::default(),
        }
    }

    fn ex(&mut self, e: &Ex, via: &str) -> Access {
        match e {
            Ex::Seq(b) | Ex::SeqW(b) => {
                let a = self.sts(&b.0, via);
                a.then(self.ex(&b.1, via))
            }
            Ex::TableHit(t) | Ex::TableMiss(t) => self.table(*t),
            Ex::Bin(_, _, b)
            | Ex::Concat(_, b)
            | Ex::BinW(_, b)
            | Ex::CmpW(_, b)
            | Ex::ConcatW(b) => {
                let a = self.ex(&b.0, via);
                a.then(self.ex(&b.1, via))
            }
            Ex::Cond(b) | Ex::CondW(b) => {
                let c = self.ex(&b.0, via);
                let t = self.ex(&b.1, via);
                c.then(t.or(self.ex(&b.2, via)))
            }
            Ex::BitNot(_, x)
            | Ex::Neg(_, x)
            | Ex::Not(x)
            | Ex::Mask(_, x)
            | Ex::SExt(_, _, x)
            | Ex::Slice(_, _, x)
            | Ex::ToNarrow(x)
            | Ex::ToWide(_, x)
            | Ex::BitNotW(x)
            | Ex::NegW(x)
            | Ex::CastW(_, x)
            | Ex::SliceW(_, _, x) => self.ex(x, via),
            _ => Access::default(),
        }
    }
}

impl Compiler<'_> {
    /// One access per register per pass, in `ingress` and in `egress`.
    pub(super) fn check_single_access(&self, ingress: &[St], egress: &[St]) -> Res<()> {
        for (body, gress) in [(ingress, "ingress"), (egress, "egress")] {
            let mut w = Walk {
                bodies: &self.bodies,
                actions: &self.actions,
                tables: &self.tables,
                depth: 0,
            };
            let acc = w.sts(body, "the apply block");
            let mut worst: Vec<(u32, (u32, Vec<String>))> =
                acc.0.into_iter().filter(|(_, (n, _))| *n > 1).collect();
            worst.sort_by_key(|(r, _)| *r);
            if let Some((r, (n, mut via))) = worst.into_iter().next() {
                via.dedup();
                let name = &self.registers[r as usize].name;
                let span = self.tna_register_spans.get(&r).copied().unwrap_or_default();
                return err(
                    span,
                    format!(
                        "Tofino: register `{name}` is accessed {n} times in one pass of {gress} \
                         (through {}); a register allows one access per packet per pass",
                        via.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }

    /// Tofino 1 register cells: 1, 8, 16 or 32 bits, or two equal fields
    /// of 8, 16 or 32 bits.
    pub(super) fn check_cell(&self, t: &Ty, span: Span) -> Res<()> {
        let ok = |w: u32| matches!(w, 8 | 16 | 32);
        let fine = match t {
            Ty::Bit(w) | Ty::Int(w) => *w == 1 || ok(*w),
            Ty::Bool => true,
            Ty::Struct(i) => {
                let f = &self.structs[*i as usize].fields;
                f.len() == 2
                    && f[0].ty == f[1].ty
                    && self.scalar_bt(&f[0].ty).is_some_and(|b| ok(b.width()))
            }
            _ => false,
        };
        if fine {
            return Ok(());
        }
        err(
            span,
            format!(
                "Tofino: a register cell of type {} does not fit a stateful ALU \
                 (1, 8, 16 or 32 bits, or a pair of equal 8, 16 or 32-bit fields)",
                ty_name(self, t)
            ),
        )
    }

    /// The stateful-ALU budget of one RegisterAction: conditions in it, and
    /// PHV inputs (added to `inputs`, the register's so far).
    pub(super) fn check_salu(
        &mut self,
        apply: &ast::FunctionDecl,
        local: &[&str],
        inputs: &mut Vec<String>,
        span: Span,
    ) -> Res<()> {
        let mut conds: Vec<(String, String, u8)> = Vec::new();
        let mut phv: Vec<String> = Vec::new();
        for s in &apply.body.statements {
            self.salu_stmt(s, local, &mut conds, &mut phv)?;
        }
        if conds.len() > 2 {
            let list: Vec<String> = conds
                .iter()
                .map(|(a, b, _)| format!("`{a}` against `{b}`"))
                .collect();
            return err(
                span,
                format!(
                    "Tofino: this RegisterAction needs {} conditions ({}); a stateful ALU evaluates at most 2",
                    conds.len(),
                    list.join(", ")
                ),
            );
        }
        for p in phv {
            if !inputs.contains(&p) {
                inputs.push(p);
            }
        }
        if inputs.len() > 2 {
            return err(
                span,
                format!(
                    "Tofino: the RegisterActions of this register read {} fields ({}); a stateful ALU takes at most 2 PHV inputs",
                    inputs.len(),
                    inputs.join(", ")
                ),
            );
        }
        Ok(())
    }

    fn salu_stmt(
        &mut self,
        s: &ast::Statement,
        local: &[&str],
        conds: &mut Vec<(String, String, u8)>,
        phv: &mut Vec<String>,
    ) -> Res<()> {
        match &s.kind {
            ast::StatementKind::Assign { lhs, rhs, .. } => {
                self.salu_expr(lhs, local, false, conds, phv)?;
                self.salu_expr(rhs, local, false, conds, phv)
            }
            ast::StatementKind::Call(e) => self.salu_expr(e, local, false, conds, phv),
            ast::StatementKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.salu_expr(cond, local, true, conds, phv)?;
                self.salu_stmt(then, local, conds, phv)?;
                if let Some(o) = otherwise {
                    self.salu_stmt(o, local, conds, phv)?;
                }
                Ok(())
            }
            ast::StatementKind::Block(b) => {
                for s in &b.statements {
                    self.salu_stmt(s, local, conds, phv)?;
                }
                Ok(())
            }
            ast::StatementKind::Return(Some(e)) => self.salu_expr(e, local, false, conds, phv),
            _ => Ok(()),
        }
    }

    /// Walks an expression of an `apply` body; `cond`: it is (part of) a
    /// condition, where comparisons count.
    fn salu_expr(
        &mut self,
        e: &ast::Expr,
        local: &[&str],
        cond: bool,
        conds: &mut Vec<(String, String, u8)>,
        phv: &mut Vec<String>,
    ) -> Res<()> {
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs } => {
                let class = match op {
                    BinaryOp::Eq | BinaryOp::Ne => Some(0),
                    BinaryOp::Lt | BinaryOp::Ge => Some(1),
                    BinaryOp::Gt | BinaryOp::Le => Some(2),
                    _ => None,
                };
                let logical = matches!(op, BinaryOp::And | BinaryOp::Or);
                if let Some(class) = class.filter(|_| cond) {
                    let src = &self.program.sources;
                    let (mut a, mut b) = (
                        src.snippet(lhs.span).to_string(),
                        src.snippet(rhs.span).to_string(),
                    );
                    if class == 0 && b < a {
                        std::mem::swap(&mut a, &mut b);
                    }
                    let key = (a, b, class);
                    if !conds.contains(&key) {
                        conds.push(key);
                    }
                }
                let sub = cond && logical;
                self.salu_expr(lhs, local, sub, conds, phv)?;
                self.salu_expr(rhs, local, sub, conds, phv)
            }
            ExprKind::Unary { operand, .. } => self.salu_expr(operand, local, cond, conds, phv),
            ExprKind::Ternary {
                cond: c,
                then,
                otherwise,
            } => {
                self.salu_expr(c, local, true, conds, phv)?;
                self.salu_expr(then, local, false, conds, phv)?;
                self.salu_expr(otherwise, local, false, conds, phv)
            }
            ExprKind::Call { callee, args, .. } => {
                let predicate = matches!(&callee.kind,
                    ExprKind::Member { base, member }
                        if matches!(base.kind, ExprKind::This) && member.as_str() == "predicate");
                for a in args {
                    self.salu_expr(&a.value, local, predicate, conds, phv)?;
                }
                Ok(())
            }
            ExprKind::Name(_) | ExprKind::Member { .. } => {
                let mut root = e;
                while let ExprKind::Member { base, .. } = &root.kind {
                    root = base;
                }
                let local_root = match &root.kind {
                    ExprKind::Name(p) => local.contains(&p.name.as_str()),
                    ExprKind::This => true,
                    _ => false,
                };
                if !local_root && matches!(self.expr(e)?, Val::Place(..)) {
                    let text = self.program.sources.snippet(e.span).to_string();
                    if !phv.contains(&text) {
                        phv.push(text);
                    }
                }
                Ok(())
            }
            ExprKind::Cast { expr, .. } => self.salu_expr(expr, local, cond, conds, phv),
            ExprKind::Slice { base, .. } => self.salu_expr(base, local, cond, conds, phv),
            _ => Ok(()),
        }
    }
}
