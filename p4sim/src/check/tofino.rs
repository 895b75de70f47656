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
//!   its negation being one), at most two PHV inputs (fields other than
//!   the cell and constants) over all the RegisterActions of one register,
//!   and only the operations its ALU has: no multiply, divide, remainder or
//!   shift, of a PHV value or a constant (bf-p4c: "expression too complex
//!   for register action");
//! - **register cells** of 1, 8, 16 or 32 bits, or a pair of equal 8, 16 or
//!   32-bit fields;
//! - **stages**: a lower bound on the stages each gress needs (its longest
//!   chain of dependent tables, gateways, assignments and RegisterAction
//!   executions, a stateful ALU's result being readable from the next
//!   stage) within Tofino 1's 12;
//! - **a table's indirect externs**: a table drives one address on the
//!   stats bus (its counters) and one on the meter bus (its registers'
//!   stateful ALUs) for all its actions, so an action (not `@defaultonly`)
//!   that uses one of the table's counters uses them all, and likewise its
//!   registers — actions that use none are exempt, and a `@defaultonly`
//!   action's externs are the table's too; the externs one action uses on
//!   one bus share one index expression; and an extern indexed by packet
//!   fields is indexed by the same fields in every action of the table,
//!   never by an action parameter or a constant in another (bf-p4c's
//!   `SetupAttachedAddressing` and `StatefulAttachmentSetup`, in
//!   `backends/tofino/bf-p4c/mau/instruction_selection.cpp` of p4c);
//! - **an indirect extern's index** (`count`, `execute`, `read`, `write`)
//!   is a constant, an action parameter (with constants concatenated), or
//!   packet fields with their slices, casts and concatenations (a hash
//!   distribution), never a value computed from them by an operator
//!   (bf-p4c: "The index is too complex for the primitive to be handled")
//!   nor an action parameter concatenated with a field or another
//!   parameter (bf-p4c: "Complex expression is not yet supported"; both in
//!   `StatefulAttachmentSetup::Scan::setup_index_operand`, same file).
//!
//! Each error names the rule and points at the register, RegisterAction, call,
//! table or `main`. What the rules leave to the real compiler (`bf-p4c`): where
//! resources push tables into later stages, crossbar, PHV and memory
//! limits.

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
            // two iterations stand for any number: an access in the body
            // is made more than once
            St::Loop(l) => {
                let once = self.ex(&l.cond, via).then(self.sts(&l.body, via));
                let once = once.then(self.sts(&l.update, via));
                once.clone().then(once)
            }
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
            // the branches of `?:` are alternatives
            Ex::Cond(b) | Ex::CondW(b) => {
                let c = self.ex(&b.0, via);
                let t = self.ex(&b.1, via);
                c.then(t.or(self.ex(&b.2, via)))
            }
            e => e
                .operands()
                .fold(Access::default(), |acc, o| acc.then(self.ex(o, via))),
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
                if let Some(what) = match op {
                    BinaryOp::Mul => Some("multiply"),
                    BinaryOp::Div => Some("divide"),
                    BinaryOp::Mod => Some("take a remainder"),
                    BinaryOp::Shl | BinaryOp::Shr => Some("shift"),
                    _ => None,
                } {
                    // bf-p4c: "expression too complex for register action",
                    // by a PHV value or a constant alike.
                    return err(
                        e.span,
                        format!(
                            "Tofino: a stateful ALU cannot {what} (it adds, subtracts, \
                             compares and combines bits of the cell, constants and at most \
                             two PHV inputs)"
                        ),
                    );
                }
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

/// Tofino 1's match-action stages per gress.
pub(super) const TOFINO1_STAGES: u32 = 12;

/// A lower bound on the stages a control needs: each table, gateway and
/// run of straight-line statements is placed at the first stage where
/// everything it reads has been written (a value written in stage s is
/// readable from s + 1); statements in one run or one action are one
/// VLIW step, as the compiler synthesizes them. Resource limits (four
/// stateful ALUs a stage, memories, crossbars) only push units later, so
/// a control whose lower bound exceeds the stages cannot fit.
struct Stages<'a> {
    bodies: &'a [Vec<St>],
    actions: &'a [ActionIr],
    tables: &'a [TableIr],
    /// Slot key (narrow n, wide 1 << 40 | w) -> (stage it is readable
    /// from, unit that wrote it).
    ready: HashMap<u64, (u32, usize)>,
    /// Units: name, stage, the unit it waited for.
    units: Vec<(String, u32, Option<usize>)>,
    depth: u32,
}

const WIDE: u64 = 1 << 40;

/// The earliest stage a unit may take, and the unit that set it.
type Floor = (u32, Option<usize>);

fn ex_reads(e: &Ex, out: &mut Vec<u64>) {
    match e {
        Ex::Load(s) => out.push(u64::from(*s)),
        Ex::LoadW(w) => out.push(WIDE | u64::from(*w)),
        Ex::LoadDyn(d, _) | Ex::LoadDynW(d, _, _) => {
            ex_reads(&d.index, out);
            for k in 0..d.count.min(64) {
                for i in 0..d.stride_n {
                    out.push(u64::from(d.base_n + k * d.stride_n + i));
                }
                for i in 0..d.stride_w {
                    out.push(WIDE | u64::from(d.base_w + k * d.stride_w + i));
                }
            }
        }
        Ex::Seq(b) | Ex::SeqW(b) => {
            // the statements of a call are part of the same step
            let (mut r, mut w) = (Vec::new(), Vec::new());
            for s in &b.0 {
                st_rw(s, &mut r, &mut w);
            }
            out.extend(r.into_iter().filter(|x| !w.contains(x)));
            ex_reads(&b.1, out);
        }
        e => e.operands().for_each(|o| ex_reads(o, out)),
    }
}

/// Whether evaluating `e` uses a register (a RegisterAction's `execute`
/// and `Register.read` are sequences holding the register's extern
/// calls).
fn ex_stateful(e: &Ex) -> bool {
    match e {
        Ex::Seq(b) | Ex::SeqW(b) => {
            b.0.iter().any(|s| match s {
                St::Extern(c) => matches!(
                    &**c,
                    ExternCall::RegisterRead { .. } | ExternCall::RegisterWrite { .. }
                ),
                St::Set(_, e) | St::SetW(_, e) => ex_stateful(e),
                _ => false,
            }) || ex_stateful(&b.1)
        }
        e => e.operands().any(ex_stateful),
    }
}

fn target_write(t: &Target, out: &mut Vec<u64>) {
    match t {
        Target::N(s, _) => out.push(u64::from(*s)),
        Target::W(w, _) => out.push(WIDE | u64::from(*w)),
        Target::DynN(d, _, _) | Target::DynW(d, _, _) => {
            for k in 0..d.count.min(64) {
                for i in 0..d.stride_n {
                    out.push(u64::from(d.base_n + k * d.stride_n + i));
                }
            }
        }
    }
}

/// Reads and writes of one straight-line statement (tables excluded).
fn st_rw(s: &St, r: &mut Vec<u64>, w: &mut Vec<u64>) {
    match s {
        St::Set(d, e) => {
            ex_reads(e, r);
            w.push(u64::from(*d));
        }
        St::SetW(d, e) => {
            ex_reads(e, r);
            w.push(WIDE | u64::from(*d));
        }
        St::SetDyn(d, off, e) | St::SetDynW(d, off, e) => {
            ex_reads(e, r);
            ex_reads(&d.index, r);
            for k in 0..d.count.min(64) {
                w.push(u64::from(d.base_n + k * d.stride_n + off));
            }
        }
        St::Mov(d, s) => {
            r.push(u64::from(*s));
            w.push(u64::from(*d));
        }
        St::BinSlots(_, _, d, a, b) => {
            r.push(u64::from(*a));
            r.push(u64::from(*b));
            w.push(u64::from(*d));
        }
        St::BinSlotConst(_, _, d, a, _) => {
            r.push(u64::from(*a));
            w.push(u64::from(*d));
        }
        St::Copy(c) => {
            for i in 0..c.n_len {
                r.push(u64::from(c.n_src + i));
                w.push(u64::from(c.n_dst + i));
            }
        }
        St::Block(b) => {
            for s in b {
                st_rw(s, r, w);
            }
        }
        St::If(c, a, b) => {
            ex_reads(c, r);
            for s in a.iter().chain(b) {
                st_rw(s, r, w);
            }
        }
        St::Loop(l) => {
            ex_reads(&l.cond, r);
            for s in l.body.iter().chain(&l.update) {
                st_rw(s, r, w);
            }
        }
        St::Call(b) => {
            for s in b.0.iter().chain(&b.1) {
                st_rw(s, r, w);
            }
        }
        St::Extern(c) => match &**c {
            ExternCall::RegisterRead { dst, index, .. } => {
                ex_reads(index, r);
                target_write(dst, w);
            }
            ExternCall::RegisterWrite { index, value, .. } => {
                ex_reads(index, r);
                ex_reads(value, r);
            }
            ExternCall::Count { index, .. } => ex_reads(index, r),
            ExternCall::Hash { dst, data, .. } => {
                for l in data {
                    ex_reads(&l.ex, r);
                }
                target_write(dst, w);
            }
            _ => {}
        },
        _ => {}
    }
}

impl Stages<'_> {
    /// Places a unit reading `reads` no earlier than `floor`; it writes
    /// `writes`. Returns its stage.
    fn place(&mut self, name: String, floor: Floor, reads: &[u64], writes: &[u64]) -> u32 {
        let (mut stage, mut pred) = floor;
        for r in reads {
            if let Some(&(s, u)) = self.ready.get(r)
                && s > stage
            {
                stage = s;
                pred = Some(u);
            }
        }
        let id = self.units.len();
        self.units.push((name, stage, pred));
        for w in writes {
            let e = self.ready.entry(*w).or_insert((0, id));
            if stage + 1 >= e.0 {
                *e = (stage + 1, id);
            }
        }
        stage
    }

    /// Reads and writes of an action body, its own writes not counted as
    /// reads (one VLIW step).
    fn body_rw(&self, sts: &[St]) -> (Vec<u64>, Vec<u64>) {
        let (mut r, mut w) = (Vec::new(), Vec::new());
        for s in sts {
            self.st_rw_deep(s, &mut r, &mut w);
        }
        let r = r.into_iter().filter(|x| !w.contains(x)).collect();
        (r, w)
    }

    fn st_rw_deep(&self, s: &St, r: &mut Vec<u64>, w: &mut Vec<u64>) {
        match s {
            St::RunBody(b) => {
                if let Some(b) = self.bodies.get(*b as usize) {
                    for s in b {
                        self.st_rw_deep(s, r, w);
                    }
                }
            }
            St::RunAction(a) => {
                if let Some(a) = self.actions.get(*a as usize) {
                    for s in &a.body {
                        self.st_rw_deep(s, r, w);
                    }
                }
            }
            other => st_rw(other, r, w),
        }
    }

    /// Places table `t`; returns its stage and unit.
    fn table(&mut self, t: u32, floor: Floor) -> (u32, usize) {
        let Some(table) = self.tables.get(t as usize) else {
            return (floor.0, floor.1.unwrap_or(0));
        };
        let mut reads = Vec::new();
        for k in &table.keys {
            ex_reads(&k.ex, &mut reads);
        }
        let mut writes = Vec::new();
        for a in &table.actions {
            if let Some(action) = self.actions.get(a.action as usize) {
                let (r, w) = self.body_rw(&action.body);
                let params: Vec<u64> = action.params.iter().map(|p| u64::from(p.slot)).collect();
                reads.extend(r.into_iter().filter(|x| !params.contains(x)));
                writes.extend(w);
            }
        }
        let stage = self.place(table.name.clone(), floor, &reads, &writes);
        (stage, self.units.len() - 1)
    }

    fn sts(&mut self, sts: &[St], floor: Floor, what: &str) {
        let mut run: Vec<&St> = Vec::new();
        for s in sts {
            match s {
                St::Apply(_)
                | St::SwitchAction(..)
                | St::If(..)
                | St::Switch(..)
                | St::Block(_)
                | St::Loop(_)
                | St::RunBody(_) => {
                    self.flush(&mut run, floor, what);
                    self.st(s, floor, what);
                }
                other => run.push(other),
            }
        }
        self.flush(&mut run, floor, what);
    }

    /// Places a run of straight-line statements: one VLIW step, but for
    /// the statements that use a stateful ALU (a RegisterAction's
    /// `execute`, a Register's `read` or `write`) and those reading what
    /// such a statement produced: each of these is a unit of its own, its
    /// result readable from the next stage. (What the run's other
    /// statements write counts as ready for them: a lower bound, which lets
    /// a hash feed a stateful ALU's address in one stage, as it can.)
    fn flush(&mut self, run: &mut Vec<&St>, floor: Floor, what: &str) {
        if run.is_empty() {
            return;
        }
        let (mut r, mut w) = (Vec::new(), Vec::new());
        let mut from_salu: Vec<u64> = Vec::new();
        for s in run.drain(..) {
            // tables applied inside expressions (`t.apply().hit`) place
            // themselves first
            let (mut rs, mut ws) = (Vec::new(), Vec::new());
            self.st_rw_deep(s, &mut rs, &mut ws);
            let stateful = self.st_stateful(s, 0);
            if stateful || rs.iter().any(|x| from_salu.contains(x)) {
                let rs: Vec<u64> = rs.into_iter().filter(|x| !ws.contains(x)).collect();
                let name = if stateful {
                    format!("a stateful ALU in {what}")
                } else {
                    format!("a use of a stateful ALU's result in {what}")
                };
                self.place(name, floor, &rs, &ws);
                from_salu.extend(ws);
            } else {
                r.extend(rs);
                w.extend(ws);
            }
        }
        if r.is_empty() && w.is_empty() {
            return;
        }
        let r: Vec<u64> = r.into_iter().filter(|x| !w.contains(x)).collect();
        self.place(format!("assignments in {what}"), floor, &r, &w);
    }

    /// Whether statement `s` uses a register (a stateful ALU).
    fn st_stateful(&self, s: &St, depth: u32) -> bool {
        if depth > 32 {
            return false;
        }
        match s {
            St::Extern(c) => match &**c {
                ExternCall::RegisterRead { .. } | ExternCall::RegisterWrite { .. } => true,
                ExternCall::Hash { data, .. } => data.iter().any(|l| ex_stateful(&l.ex)),
                _ => false,
            },
            St::Set(_, e) | St::SetW(_, e) => ex_stateful(e),
            St::SetDyn(d, _, e) | St::SetDynW(d, _, e) => ex_stateful(e) || ex_stateful(&d.index),
            St::Block(b) => b.iter().any(|s| self.st_stateful(s, depth + 1)),
            St::If(c, a, b) => {
                ex_stateful(c) || a.iter().chain(b).any(|s| self.st_stateful(s, depth + 1))
            }
            St::Call(b) => {
                b.0.iter().any(|s| self.st_stateful(s, depth + 1))
                    || b.1.iter().any(|s| self.st_stateful(s, depth + 1))
            }
            St::RunBody(b) => self
                .bodies
                .get(*b as usize)
                .is_some_and(|b| b.iter().any(|s| self.st_stateful(s, depth + 1))),
            _ => false,
        }
    }

    /// The floor of what a condition (a gateway) guards: it reads the
    /// condition's fields in its own stage.
    fn cond_floor(&mut self, c: &Ex, floor: Floor) -> Floor {
        let mut hits = Vec::new();
        table_hits(c, &mut hits);
        let mut f = floor;
        for t in hits {
            let (s, u) = self.table(t, floor);
            if s + 1 > f.0 {
                f = (s + 1, Some(u));
            }
        }
        let mut reads = Vec::new();
        ex_reads(c, &mut reads);
        for r in reads {
            if let Some(&(s, u)) = self.ready.get(&r)
                && s > f.0
            {
                f = (s, Some(u));
            }
        }
        f
    }

    fn st(&mut self, s: &St, floor: Floor, what: &str) {
        match s {
            St::Apply(t) => {
                self.table(*t, floor);
            }
            St::SwitchAction(t, cases, d) => {
                let (stage, u) = self.table(*t, floor);
                let at = (stage + 1, Some(u));
                for c in cases.iter().flatten() {
                    self.sts(c, at, what);
                }
                self.sts(d, at, what);
            }
            St::If(c, a, b) => {
                let f = self.cond_floor(c, floor);
                self.sts(a, f, what);
                self.sts(b, f, what);
            }
            St::Switch(e, cases, d) => {
                let f = self.cond_floor(e, floor);
                for (_, c) in cases {
                    self.sts(c, f, what);
                }
                self.sts(d, f, what);
            }
            St::Block(b) => self.sts(b, floor, what),
            St::Loop(l) => {
                let f = self.cond_floor(&l.cond, floor);
                self.sts(&l.body, f, what);
                self.sts(&l.update, f, what);
            }
            St::RunBody(b) => {
                if self.depth > 32 {
                    return;
                }
                self.depth += 1;
                let bodies = self.bodies;
                if let Some(b) = bodies.get(*b as usize) {
                    self.sts(b, floor, what);
                }
                self.depth -= 1;
            }
            _ => {}
        }
    }
}

fn table_hits(e: &Ex, out: &mut Vec<u32>) {
    match e {
        Ex::TableHit(t) | Ex::TableMiss(t) => out.push(*t),
        Ex::Bin(_, _, b) | Ex::Concat(_, b) => {
            table_hits(&b.0, out);
            table_hits(&b.1, out);
        }
        Ex::Not(x) | Ex::Mask(_, x) => table_hits(x, out),
        Ex::Cond(b) => {
            table_hits(&b.0, out);
            table_hits(&b.1, out);
            table_hits(&b.2, out);
        }
        _ => {}
    }
}

impl Compiler<'_> {
    /// The dependency chain of each gress fits Tofino 1's stages.
    pub(super) fn check_stages(&self, ingress: &[St], egress: &[St]) -> Res<()> {
        for (body, gress) in [(ingress, "ingress"), (egress, "egress")] {
            let mut s = Stages {
                bodies: &self.bodies,
                actions: &self.actions,
                tables: &self.tables,
                ready: HashMap::new(),
                units: Vec::new(),
                depth: 0,
            };
            s.sts(body, (0, None), gress);
            let Some(last) = (0..s.units.len()).max_by_key(|&u| (s.units[u].1, u)) else {
                continue;
            };
            let needed = s.units[last].1 + 1;
            if needed <= TOFINO1_STAGES {
                continue;
            }
            let mut chain = Vec::new();
            let mut at = Some(last);
            while let Some(u) = at {
                chain.push(format!("{} (stage {})", s.units[u].0, s.units[u].1));
                at = s.units[u].2;
            }
            chain.reverse();
            return err(
                self.tna_main_span,
                format!(
                    "Tofino: {gress} needs at least {needed} stages for its chain of dependent tables \
                     and actions ({}); Tofino 1 has {TOFINO1_STAGES}",
                    chain.join(" -> ")
                ),
            );
        }
        Ok(())
    }
}

/// An indirect extern an action uses. Tofino addresses counters over the
/// stats address bus and registers (stateful ALUs) over the meter bus; a
/// table drives one address per bus for all its actions.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Indirect {
    Counter(u32),
    Register(u32),
}

impl Indirect {
    fn bus(self) -> &'static str {
        match self {
            Indirect::Counter(_) => "counters",
            Indirect::Register(_) => "registers",
        }
    }
}

/// The uses of indirect externs in one action, each with its index
/// expression (a RegisterAction's index read back from the temporary
/// `execute` assigns it to).
struct Uses<'a> {
    bodies: &'a [Vec<St>],
    actions: &'a [ActionIr],
    out: Vec<(Indirect, Ex)>,
    /// Slots assigned inside expressions (`execute`'s index temporaries).
    temps: HashMap<u32, Ex>,
    in_seq: u32,
    depth: u32,
}

impl Uses<'_> {
    fn sts(&mut self, sts: &[St]) {
        for s in sts {
            self.st(s);
        }
    }

    fn push(&mut self, ext: Indirect, index: &Ex) {
        let index = match index {
            Ex::Load(s) => self.temps.get(s).cloned().unwrap_or(Ex::Load(*s)),
            e => e.clone(),
        };
        self.out.push((ext, index));
    }

    fn st(&mut self, s: &St) {
        match s {
            St::Set(d, e) => {
                self.ex(e);
                if self.in_seq > 0 {
                    self.temps.insert(*d, e.clone());
                }
            }
            St::SetW(_, e) | St::Advance(e) | St::SetDyn(_, _, e) | St::SetDynW(_, _, e) => {
                self.ex(e)
            }
            St::Verify(a, b) => {
                self.ex(a);
                self.ex(b);
            }
            St::If(c, a, b) => {
                self.ex(c);
                self.sts(a);
                self.sts(b);
            }
            St::Block(b) => self.sts(b),
            St::Loop(l) => {
                self.ex(&l.cond);
                self.sts(&l.body);
                self.sts(&l.update);
            }
            St::Switch(e, cases, d) => {
                self.ex(e);
                for (_, c) in cases {
                    self.sts(c);
                }
                self.sts(d);
            }
            St::SwitchAction(_, cases, d) => {
                for c in cases.iter().flatten() {
                    self.sts(c);
                }
                self.sts(d);
            }
            St::Call(b) => {
                self.sts(&b.0);
                self.sts(&b.1);
            }
            St::RunAction(a) | St::RunBody(a) if self.depth < 32 => {
                let body = match s {
                    St::RunAction(_) => self.actions.get(*a as usize).map(|a| &a.body[..]),
                    _ => self.bodies.get(*a as usize).map(|b| &b[..]),
                };
                self.depth += 1;
                self.sts(body.unwrap_or_default());
                self.depth -= 1;
            }
            St::Extern(c) => match &**c {
                ExternCall::Count { counter, index } => {
                    self.ex(index);
                    self.push(Indirect::Counter(*counter), index);
                }
                ExternCall::RegisterRead { reg, index, .. } => {
                    self.ex(index);
                    self.push(Indirect::Register(*reg), index);
                }
                ExternCall::RegisterWrite { reg, index, value } => {
                    self.ex(index);
                    self.ex(value);
                    self.push(Indirect::Register(*reg), index);
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn ex(&mut self, e: &Ex) {
        match e {
            Ex::Seq(b) | Ex::SeqW(b) => {
                self.in_seq += 1;
                self.sts(&b.0);
                self.in_seq -= 1;
                self.ex(&b.1);
            }
            e => e.operands().for_each(|o| self.ex(o)),
        }
    }
}

/// One use of an indirect extern in an action.
struct IndexedUse {
    ext: Indirect,
    index: Ex,
    /// Whether the index reads packet fields (anything but the action's
    /// parameters and constants).
    phv: bool,
}

/// A table's action with the indirect externs it uses, each (extern,
/// index) once, in extern order and then in the order the body uses them.
struct ActionUses<'a> {
    action: &'a ActionIr,
    default_only: bool,
    uses: Vec<IndexedUse>,
}

impl Compiler<'_> {
    fn indirect_name(&self, ext: Indirect) -> String {
        match ext {
            Indirect::Counter(c) => format!("counter `{}`", self.counters[c as usize].name),
            Indirect::Register(r) => format!("register `{}`", self.registers[r as usize].name),
        }
    }

    /// The indirect externs of each table, as bf-p4c addresses them: an
    /// action (not `@defaultonly`) that uses one of the table's counters
    /// uses them all, and likewise its registers (bf-p4c: "There are
    /// issues with the following indirect externs"); the externs one
    /// action uses on one bus share one index expression (bf-p4c: "The
    /// action a1 indexes ... with ... but it also indexes ..."); and an
    /// extern indexed by packet fields is indexed by the same fields in
    /// every action of the table, never by an action parameter or constant
    /// in another (bf-p4c: "Incompatible attached indexing between
    /// actions", "addressed by both hash and index").
    pub(super) fn check_indirect_externs(&self) -> Res<()> {
        for (t, table) in self.tables.iter().enumerate() {
            let span = self.table_spans.get(t).copied().unwrap_or_default();
            let per_action = self.action_extern_uses(table);
            // a @defaultonly action's externs belong to the table too
            let mut attached: Vec<Indirect> = per_action
                .iter()
                .flat_map(|a| a.uses.iter().map(|u| u.ext))
                .collect();
            attached.sort();
            attached.dedup();
            let issues = self.extern_set_issues(&per_action, &attached);
            if !issues.is_empty() {
                return err(
                    span,
                    format!(
                        "Tofino: the actions of table `{}` use different indirect externs ({}); \
                         an action that uses one of a table's counters must use them all, and \
                         likewise its registers (a table drives one address per extern bus; \
                         actions that use none are exempt)",
                        table.name,
                        issues.join("; ")
                    ),
                );
            }
            let mut issues = self.shared_index_issues(&per_action);
            issues.extend(self.packet_field_index_issues(&per_action, &attached));
            if !issues.is_empty() {
                return err(
                    span,
                    format!(
                        "Tofino: the actions of table `{}` address indirect externs with \
                         different expressions ({}); a table drives one address per extern bus: \
                         the counters one action uses share one index, and likewise its \
                         registers, and an extern indexed by packet fields is indexed by the \
                         same fields in all the table's actions",
                        table.name,
                        issues.join("; ")
                    ),
                );
            }
        }
        Ok(())
    }

    /// Each action of `table` with the indirect externs it uses and their
    /// index expressions.
    fn action_extern_uses<'a>(&'a self, table: &TableIr) -> Vec<ActionUses<'a>> {
        let mut per_action = Vec::new();
        for a in &table.actions {
            let Some(action) = self.actions.get(a.action as usize) else {
                continue;
            };
            let mut u = Uses {
                bodies: &self.bodies,
                actions: &self.actions,
                out: Vec::new(),
                temps: HashMap::new(),
                in_seq: 0,
                depth: 0,
            };
            u.sts(&action.body);
            let params: Vec<u64> = action.params.iter().map(|p| u64::from(p.slot)).collect();
            let mut uses: Vec<IndexedUse> = Vec::new();
            for (ext, index) in u.out {
                if uses.iter().any(|u| u.ext == ext && u.index == index) {
                    continue;
                }
                let mut reads = Vec::new();
                ex_reads(&index, &mut reads);
                let phv = reads.iter().any(|r| !params.contains(r));
                uses.push(IndexedUse { ext, index, phv });
            }
            uses.sort_by_key(|u| u.ext);
            per_action.push(ActionUses {
                action,
                default_only: a.default_only,
                uses,
            });
        }
        per_action
    }

    /// The actions (not `@defaultonly`) that use some but not all of the
    /// table's `attached` externs on one bus.
    fn extern_set_issues(&self, per_action: &[ActionUses], attached: &[Indirect]) -> Vec<String> {
        let mut issues = Vec::new();
        for a in per_action.iter().filter(|a| !a.default_only) {
            for bus in ["counters", "registers"] {
                let Some(first) = a.uses.iter().map(|u| u.ext).find(|e| e.bus() == bus) else {
                    continue;
                };
                if let Some(missing) = attached
                    .iter()
                    .find(|e| e.bus() == bus && !a.uses.iter().any(|u| u.ext == **e))
                {
                    issues.push(format!(
                        "action `{}` uses {} but not {}",
                        a.action.name,
                        self.indirect_name(first),
                        self.indirect_name(*missing)
                    ));
                }
            }
        }
        issues
    }

    /// The actions (not `@defaultonly`) that index the externs of one bus
    /// with more than one expression.
    fn shared_index_issues(&self, per_action: &[ActionUses]) -> Vec<String> {
        let mut issues = Vec::new();
        for a in per_action.iter().filter(|a| !a.default_only) {
            for (i, x) in a.uses.iter().enumerate() {
                let Some(y) = a.uses[i + 1..]
                    .iter()
                    .find(|y| y.ext.bus() == x.ext.bus() && y.index != x.index)
                else {
                    continue;
                };
                issues.push(if x.ext == y.ext {
                    format!(
                        "action `{}` indexes {} with two expressions",
                        a.action.name,
                        self.indirect_name(x.ext)
                    )
                } else {
                    format!(
                        "action `{}` indexes {} and {} with different expressions",
                        a.action.name,
                        self.indirect_name(x.ext),
                        self.indirect_name(y.ext)
                    )
                });
                break;
            }
        }
        issues
    }

    /// The externs indexed by packet fields in one action of the table and
    /// by other fields, an action parameter or a constant in another
    /// (`@defaultonly` actions included).
    fn packet_field_index_issues(
        &self,
        per_action: &[ActionUses],
        attached: &[Indirect],
    ) -> Vec<String> {
        let mut issues = Vec::new();
        for ext in attached {
            // (action, its packet-field index or None) per use of `ext`
            let by: Vec<(&str, Option<&Ex>)> = per_action
                .iter()
                .flat_map(|a| {
                    a.uses
                        .iter()
                        .filter(|u| u.ext == *ext)
                        .map(|u| (&*a.action.name, u.phv.then_some(&u.index)))
                })
                .collect();
            let Some(&(a, hash)) = by.iter().find(|(_, i)| i.is_some()) else {
                continue;
            };
            if let Some((b, other)) = by.iter().find(|(_, i)| *i != hash) {
                issues.push(if other.is_some() {
                    format!(
                        "actions `{a}` and `{b}` index {} with different packet fields",
                        self.indirect_name(*ext)
                    )
                } else {
                    format!(
                        "action `{a}` indexes {} with packet fields, action `{b}` with an \
                         action parameter or a constant",
                        self.indirect_name(*ext)
                    )
                });
            }
        }
        issues
    }
}

/// What an index expression is to bf-p4c's addressing of an indirect
/// extern.
#[derive(Clone, Copy, PartialEq, Eq)]
enum IndexForm {
    /// A constant (after folding).
    Constant,
    /// An action parameter (action data), possibly with constants
    /// concatenated.
    Param,
    /// Packet fields: a hash distribution of PHV fields (or a call's
    /// result, such as a `Hash.get`).
    Fields,
}

/// Why bf-p4c cannot address an indirect extern by an index.
enum IndexRefusal {
    /// An operator computes the index from non-constant values.
    Computed,
    /// An action parameter concatenated with another non-constant part.
    ParamConcat,
}

impl Compiler<'_> {
    /// The Tofino rule on the index of an indirect extern (see the module
    /// documentation); `span` is the call's.
    pub(super) fn check_tofino_index(&self, index: &Ex, ext: Indirect, span: Span) -> Res<()> {
        if !self.is_tna() {
            return Ok(());
        }
        match self.index_form(index) {
            Ok(_) => Ok(()),
            Err(IndexRefusal::Computed) => err(
                span,
                format!(
                    "Tofino: the index of {} is computed by an operator; an indirect \
                     extern's index must be a constant, an action parameter or packet fields \
                     (their slices, casts and concatenations), so compute it into a metadata \
                     field first (bf-p4c: \"The index is too complex for the primitive to be \
                     handled\")",
                    self.indirect_name(ext)
                ),
            ),
            Err(IndexRefusal::ParamConcat) => err(
                span,
                format!(
                    "Tofino: the index of {} concatenates an action parameter with a field or \
                     another parameter; an indirect extern's index is action data or packet \
                     fields, not both (bf-p4c: \"Complex expression is not yet supported\")",
                    self.indirect_name(ext)
                ),
            ),
        }
    }

    fn index_form(&self, e: &Ex) -> Result<IndexForm, IndexRefusal> {
        let param = |slot: u32, wide: bool| {
            if self.action_param_slots.contains(&(slot, wide)) {
                IndexForm::Param
            } else {
                IndexForm::Fields
            }
        };
        Ok(match e {
            Ex::Const(_) | Ex::ConstW(_) => IndexForm::Constant,
            Ex::Load(s) => param(*s, false),
            Ex::LoadW(s) => param(*s, true),
            Ex::LoadDyn(..)
            | Ex::LoadDynW(..)
            | Ex::Seq(_)
            | Ex::SeqW(_)
            | Ex::TableHit(_)
            | Ex::TableMiss(_)
            | Ex::Lookahead(_)
            | Ex::LookaheadW(_)
            | Ex::PacketLength => IndexForm::Fields,
            // a slice or cast keeps what it reads
            Ex::Mask(_, a)
            | Ex::SExt(_, _, a)
            | Ex::Slice(_, _, a)
            | Ex::ToNarrow(a)
            | Ex::ToWide(_, a)
            | Ex::CastW(_, a)
            | Ex::SliceW(_, _, a) => self.index_form(a)?,
            Ex::Concat(_, ab) | Ex::ConcatW(ab) => {
                match (self.index_form(&ab.0)?, self.index_form(&ab.1)?) {
                    (IndexForm::Constant, f) | (f, IndexForm::Constant) => f,
                    (IndexForm::Fields, IndexForm::Fields) => IndexForm::Fields,
                    _ => return Err(IndexRefusal::ParamConcat),
                }
            }
            Ex::Bin(..)
            | Ex::BitNot(..)
            | Ex::Neg(..)
            | Ex::Not(_)
            | Ex::Cond(_)
            | Ex::BinW(..)
            | Ex::CmpW(..)
            | Ex::BitNotW(_)
            | Ex::NegW(_)
            | Ex::CondW(_) => {
                // the front end folds an operator on constants
                for o in e.operands() {
                    if self.index_form(o)? != IndexForm::Constant {
                        return Err(IndexRefusal::Computed);
                    }
                }
                IndexForm::Constant
            }
        })
    }
}

/// A condition of a control is a gateway on Tofino: it compares a field
/// with a constant (`==`, `!=` also two fields), so an ordered comparison
/// (`<`, `<=`, `>`, `>=`) of two values from the packet is refused, as
/// bf-p4c refuses it ("condition too complex, one operand of ... must be
/// constant").
pub(super) fn check_gateway(cond: &Ex, span: Span) -> Res<()> {
    match cond {
        Ex::Bin(NOp::LAnd | NOp::LOr | NOp::And | NOp::Or, _, ab) => {
            check_gateway(&ab.0, span)?;
            check_gateway(&ab.1, span)
        }
        Ex::Not(a) => check_gateway(a, span),
        Ex::Bin(NOp::LtU | NOp::LeU | NOp::LtS | NOp::LeS, _, ab)
            if !matches!(ab.0, Ex::Const(_)) && !matches!(ab.1, Ex::Const(_)) =>
        {
            err(
                span,
                "Tofino rule (gateway): a condition compares a value with a constant; \
                 `<`, `<=`, `>` and `>=` need one constant operand (two values from the \
                 packet may be compared with `==` and `!=` only)",
            )
        }
        _ => Ok(()),
    }
}
