//! Statements: blocks, switch, assignment (slices included).

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn block(&mut self, b: &ast::Block, out: &mut Vec<St>) -> Res<()> {
        self.scopes.push(HashMap::new());
        let r = (|| {
            for s in &b.statements {
                self.stmt(s, out)?;
            }
            Ok(())
        })();
        self.scopes.pop();
        r
    }

    /// An l-value in a stack element whose index calls a function, with
    /// the index computed first into a slot of its own: P4 evaluates an
    /// l-value once, before the right-hand side (`s[f(x)].a = g(x)`, and
    /// `s[f(x)].a |= v` reads and writes the same element). An index
    /// without a call is left in place, read when the element is written:
    /// p4c orders only side effects, so on BMv2 `s[x].a = g(x)` with `g`
    /// changing `x` writes the element of `x`'s new value.
    pub(super) fn hoist_index(&mut self, target: Val, out: &mut Vec<St>) -> Val {
        let Val::Place(mut p, t) = target else {
            return target;
        };
        if let Some(d) = &mut p.dynamic
            && calls_a_function(&d.index)
        {
            let index = self.alloc(&Ty::Bit(64));
            out.push(self.store(&index, &Ty::Bit(64), d.index.clone()));
            d.index = self.load(&index, &Ty::Bit(64));
        }
        Val::Place(p, t)
    }

    /// The base of a slice l-value and the bits it names in it: in
    /// `x[7:4][2:1]`, bits 6..5 of `x`.
    pub(super) fn slice_lvalue<'e>(
        &mut self,
        lhs: &'e ast::Expr,
    ) -> Res<(&'e ast::Expr, u32, u32)> {
        let ExprKind::Slice { base, hi, lo } = &lhs.kind else {
            return err(lhs.span, "internal: not a slice");
        };
        let hi = self.const_u32(hi, "a slice bound")?;
        let lo = self.const_u32(lo, "a slice bound")?;
        if !matches!(base.kind, ExprKind::Slice { .. }) {
            return Ok((base, hi, lo));
        }
        let (root, inner_hi, inner_lo) = self.slice_lvalue(base)?;
        let Some(width) = inner_hi.checked_sub(inner_lo).map(|d| d + 1) else {
            return err(base.span, format!("slice [{inner_hi}:{inner_lo}] is empty"));
        };
        if hi < lo || hi >= width {
            return err(
                lhs.span,
                format!("slice [{hi}:{lo}] is out of range for a value of width {width}"),
            );
        }
        Ok((root, inner_lo + hi, inner_lo + lo))
    }

    pub(super) fn stmt(&mut self, s: &ast::Statement, out: &mut Vec<St>) -> Res<()> {
        match &s.kind {
            ast::StatementKind::Empty => Ok(()),
            ast::StatementKind::Block(b) => {
                let mut inner = Vec::new();
                self.block(b, &mut inner)?;
                out.push(St::Block(inner));
                Ok(())
            }
            ast::StatementKind::Declaration(d) => match &**d {
                Declaration::Constant(_) | Declaration::Variable(_) => self.local_decl(d, out),
                other => unsupported(other.span(), "this declaration inside a block"),
            },
            ast::StatementKind::Assign { lhs, op, rhs } => {
                if let ExprKind::Slice { .. } = &lhs.kind {
                    let (base, hi, lo) = self.slice_lvalue(lhs)?;
                    let b = self.expr(base)?;
                    if let Val::Place(p, t) = self.hoist_index(b, out) {
                        let value = match op {
                            None => self.expr(rhs)?,
                            Some(op) => {
                                let whole = Val::Place(p.clone(), t.clone());
                                let cur = self.slice(whole, hi, lo, lhs.span)?;
                                let r = self.expr(rhs)?;
                                self.binary(*op, cur, r, s.span)?
                            }
                        };
                        return self.assign_slice(&p, &t, hi, lo, value, lhs.span, rhs.span, out);
                    }
                }
                let target = self.expr(lhs)?;
                let target = self.hoist_index(target, out);
                let value = match op {
                    None => self.expr(rhs)?,
                    Some(op) => {
                        let cur = target.clone();
                        let r = self.expr(rhs)?;
                        self.binary(*op, cur, r, s.span)?
                    }
                };
                self.assign_to(target, value, lhs.span, rhs.span, out)
            }
            ast::StatementKind::Call(e) => {
                let v = self.expr(e)?;
                match v {
                    Val::Effect(sts) | Val::Returned(sts, ..) => out.extend(sts),
                    Val::TableResult(t) => out.push(St::Apply(t)),
                    Val::Scalar(ex, _) => out.push(St::If(ex, Vec::new(), Vec::new())),
                    Val::Place(..) | Val::Int(_) => {}
                    // `packet.lookahead<H>();` alone: its fields are still
                    // read, so a packet too short for it fails the parser.
                    Val::StructInit(items) => discard_fields(items, out),
                    _ => return err(e.span, "this expression is not a call"),
                }
                Ok(())
            }
            ast::StatementKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let c = self.coerce(c, &Ty::Bool, cond.span)?;
                if self.is_tna() && self.block_kind == BlockKind::Control {
                    tofino::check_gateway(&c, cond.span)?;
                }
                let mut a = Vec::new();
                self.scopes.push(HashMap::new());
                let r = self.stmt(then, &mut a);
                self.scopes.pop();
                r?;
                let mut b = Vec::new();
                if let Some(o) = otherwise {
                    self.scopes.push(HashMap::new());
                    let r = self.stmt(o, &mut b);
                    self.scopes.pop();
                    r?;
                }
                match c {
                    Ex::Const(1) => out.push(St::Block(a)),
                    Ex::Const(_) => out.push(St::Block(b)),
                    c => out.push(St::If(c, a, b)),
                }
                Ok(())
            }
            ast::StatementKind::Switch { expr, cases } => self.switch(expr, cases, s.span, out),
            ast::StatementKind::For {
                init,
                cond,
                update,
                body,
            } => {
                self.scopes.push(HashMap::new());
                let r = self.for_loop(init, cond.as_ref(), update, body, out);
                self.scopes.pop();
                r
            }
            ast::StatementKind::ForIn {
                ty,
                name,
                lo,
                hi,
                body,
            } => {
                let Some(hi) = hi else {
                    return unsupported(
                        lo.span,
                        "`for` over a header stack or list (only `for (T x in lo .. hi)`)",
                    );
                };
                let (init, cond, update) = for_in_as_for(ty, name, lo, hi, s.span);
                self.scopes.push(HashMap::new());
                let r = self.for_loop(&init, Some(&cond), &update, body, out);
                self.scopes.pop();
                r
            }
            ast::StatementKind::Break | ast::StatementKind::Continue => {
                let is_break = matches!(s.kind, ast::StatementKind::Break);
                if self.loop_depth == 0 {
                    let what = if is_break { "break" } else { "continue" };
                    return err(s.span, format!("`{what}` outside a loop"));
                }
                out.push(if is_break { St::Break } else { St::Continue });
                Ok(())
            }
            ast::StatementKind::Exit => {
                if self.block_kind == BlockKind::Parser {
                    return err(s.span, "`exit` is not allowed in a parser");
                }
                out.push(St::Exit);
                Ok(())
            }
            ast::StatementKind::Return(e) => {
                if self.block_kind == BlockKind::Parser {
                    return err(s.span, "`return` is not allowed in a parser");
                }
                match (e, self.ret_place.clone()) {
                    (Some(e), Some((p, t))) => {
                        let v = self.expr(e)?;
                        self.assign(&p, &t, v, e.span, out)?;
                    }
                    (Some(e), None) => return err(e.span, "a value cannot be returned here"),
                    (None, Some(_)) => return err(s.span, "this function must return a value"),
                    (None, None) => {}
                }
                out.push(St::Return);
                Ok(())
            }
        }
    }

    /// `for (init; cond; update) body` as `init` then [`St::Loop`]; the
    /// caller scopes the loop variables.
    fn for_loop(
        &mut self,
        init: &[ast::Statement],
        cond: Option<&ast::Expr>,
        update: &[ast::Statement],
        body: &ast::Statement,
        out: &mut Vec<St>,
    ) -> Res<()> {
        for s in init {
            self.stmt(s, out)?;
        }
        let cond = match cond {
            Some(c) => {
                let v = self.expr(c)?;
                self.coerce(v, &Ty::Bool, c.span)?
            }
            None => Ex::Const(1),
        };
        let mut lowered_body = Vec::new();
        self.loop_depth += 1;
        self.scopes.push(HashMap::new());
        let r = self.stmt(body, &mut lowered_body);
        self.scopes.pop();
        self.loop_depth -= 1;
        r?;
        let mut lowered_update = Vec::new();
        for s in update {
            self.stmt(s, &mut lowered_update)?;
        }
        if !matches!(cond, Ex::Const(0)) {
            out.push(St::Loop(Box::new(Loop {
                cond,
                body: lowered_body,
                update: lowered_update,
            })));
        }
        Ok(())
    }

    pub(super) fn switch(
        &mut self,
        e: &ast::Expr,
        cases: &[ast::SwitchCase],
        span: Span,
        out: &mut Vec<St>,
    ) -> Res<()> {
        // group fall-through labels with the next body
        let mut groups: Vec<(Vec<&ast::SwitchLabel>, Option<&ast::Block>)> = Vec::new();
        let mut pending = Vec::new();
        for c in cases {
            pending.push(&c.label);
            if let Some(b) = &c.body {
                groups.push((std::mem::take(&mut pending), Some(b)));
            }
        }
        if !pending.is_empty() {
            groups.push((pending, None));
        }
        let is_action_run =
            matches!(&e.kind, ExprKind::Member { member, .. } if member.as_str() == "action_run");
        if is_action_run {
            let ExprKind::Member { base, .. } = &e.kind else {
                return err(e.span, "expected t.apply().action_run");
            };
            let Val::TableResult(t) = self.expr(base)? else {
                return err(e.span, "`action_run` needs a table.apply() call");
            };
            let table_actions: Vec<u32> = self.tables[t as usize]
                .actions
                .iter()
                // A label names the declared action, also where the actions
                // list bound some of its arguments (a copy of its own).
                .map(|a| self.unbound(a.action))
                .collect();
            let mut bodies: Vec<Option<Vec<St>>> = vec![None; table_actions.len()];
            let mut default = Vec::new();
            for (labels, body) in groups {
                let mut lowered = Vec::new();
                if let Some(b) = body {
                    self.block(b, &mut lowered)?;
                }
                for l in labels {
                    match l {
                        ast::SwitchLabel::Default(_) => default = lowered.clone(),
                        ast::SwitchLabel::Expr(le) => {
                            let ExprKind::Name(p) = &le.kind else {
                                return err(
                                    le.span,
                                    "switch labels on action_run must be action names",
                                );
                            };
                            let Val::Action(a) = self.lookup(p)? else {
                                return err(le.span, format!("`{}` is not an action", p.name));
                            };
                            let Some(pos) = table_actions.iter().position(|&x| x == a) else {
                                return err(
                                    le.span,
                                    format!("action `{}` is not an action of this table", p.name),
                                );
                            };
                            if bodies[pos].is_some() {
                                return err(
                                    le.span,
                                    format!("duplicate switch label `{}`", p.name),
                                );
                            }
                            bodies[pos] = Some(lowered.clone());
                        }
                    }
                }
            }
            out.push(St::SwitchAction(t, bodies, default));
            return Ok(());
        }
        let v = self.expr(e)?;
        let (sel, t) = self.rvalue(v, e.span)?;
        match self.scalar_bt(&t) {
            Some(b) if !is_wide(b.width()) && t != Ty::Bool => {}
            _ => {
                return unsupported(
                    span,
                    format!("switch on a value of type {}", ty_name(self, &t)),
                );
            }
        }
        let mut arms = Vec::new();
        let mut default = Vec::new();
        for (labels, body) in groups {
            let mut lowered = Vec::new();
            if let Some(b) = body {
                self.block(b, &mut lowered)?;
            }
            let mut values = Vec::new();
            let mut is_default = false;
            for l in labels {
                match l {
                    ast::SwitchLabel::Default(_) => is_default = true,
                    ast::SwitchLabel::Expr(le) => {
                        let lv = self.expr(le)?;
                        match self.coerce(lv, &t, le.span)? {
                            Ex::Const(c) => values.push(c),
                            _ => return err(le.span, "switch labels must be constants"),
                        }
                    }
                }
            }
            if is_default {
                default = lowered.clone();
            }
            arms.push((values, lowered));
        }
        out.push(St::Switch(sel, arms, default));
        Ok(())
    }

    pub(super) fn store(&self, p: &Place, t: &Ty, ex: Ex) -> St {
        let wide = self.size(t) == (0, 1);
        match (&p.dynamic, wide) {
            (None, false) => St::Set(p.n, ex),
            (None, true) => St::SetW(p.w, ex),
            (Some(d), false) => St::SetDyn(d.clone(), p.n, ex),
            (Some(d), true) => St::SetDynW(d.clone(), p.w, ex),
        }
    }

    pub(super) fn load(&self, p: &Place, t: &Ty) -> Ex {
        let b = self.scalar_bt(t).unwrap_or(BitType::BIT1);
        // a varbit's value (its length is a `bit<32>` leaf of its own)
        if let Ty::Varbit(w) = t {
            return match &p.dynamic {
                None => Ex::LoadW(p.w),
                Some(d) => Ex::LoadDynW(d.clone(), p.w, bt(*w, false)),
            };
        }
        let wide = is_wide(b.width());
        match (&p.dynamic, wide) {
            (None, false) => Ex::Load(p.n),
            (None, true) => Ex::LoadW(p.w),
            (Some(d), false) => Ex::LoadDyn(d.clone(), p.n),
            (Some(d), true) => Ex::LoadDynW(d.clone(), p.w, b),
        }
    }

    pub(super) fn target(&self, p: &Place, t: &Ty) -> Target {
        let b = self.scalar_bt(t).unwrap_or(BitType::BIT1);
        match (&p.dynamic, is_wide(b.width())) {
            (None, false) => Target::N(p.n, b.width()),
            (None, true) => Target::W(p.w, b),
            (Some(d), false) => Target::DynN(d.clone(), p.n, b.width()),
            (Some(d), true) => Target::DynW(d.clone(), p.w, b),
        }
    }

    pub(super) fn assign_to(
        &mut self,
        target: Val,
        value: Val,
        lspan: Span,
        rspan: Span,
        out: &mut Vec<St>,
    ) -> Res<()> {
        match target {
            Val::Place(p, t) => self.assign(&p, &t, value, rspan, out),
            Val::Scalar(Ex::Slice(hi, lo, base), _) => {
                // slice assignment: read-modify-write of the sliced place
                let Ex::Load(slot) = *base else {
                    return unsupported(lspan, "assignment to a slice of this expression");
                };
                let w = hi - lo + 1;
                let v = self.coerce(value, &Ty::Bit(w), rspan)?;
                let m = mask(w) << lo;
                let full = mask(64);
                let new = Ex::Bin(
                    NOp::Or,
                    64,
                    Box::new((
                        Ex::Bin(
                            NOp::And,
                            64,
                            Box::new((Ex::Load(slot), Ex::Const(!m & full))),
                        ),
                        Ex::Bin(
                            NOp::And,
                            64,
                            Box::new((
                                Ex::Bin(NOp::Shl, 64, Box::new((v, Ex::Const(u64::from(lo))))),
                                Ex::Const(m),
                            )),
                        ),
                    )),
                );
                out.push(St::Set(slot, new));
                Ok(())
            }
            _ => err(lspan, "this expression cannot be assigned to"),
        }
    }

    /// `place[hi:lo] = value`: a read-modify-write of any scalar place —
    /// narrow or wide, in a header stack element chosen at run time (whose
    /// index is evaluated for the read and again for the write: one that
    /// calls a function was computed once already, by `hoist_index`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn assign_slice(
        &mut self,
        p: &Place,
        t: &Ty,
        hi: u32,
        lo: u32,
        value: Val,
        lspan: Span,
        rspan: Span,
        out: &mut Vec<St>,
    ) -> Res<()> {
        let (width, signed) = match t {
            Ty::Bit(w) => (*w, false),
            Ty::Int(w) => (*w, true),
            _ => {
                return err(
                    lspan,
                    format!("cannot slice a value of type {}", ty_name(self, t)),
                );
            }
        };
        if hi < lo || hi >= width {
            return err(
                lspan,
                format!("slice [{hi}:{lo}] is out of range for a value of width {width}"),
            );
        }
        let w = hi - lo + 1;
        let v = self.coerce(value, &Ty::Bit(w), rspan)?;
        let old = self.load(p, t);
        let new = if !is_wide(width) {
            let m = mask(w) << lo;
            Ex::Bin(
                NOp::Or,
                64,
                Box::new((
                    Ex::Bin(NOp::And, 64, Box::new((old, Ex::Const(!m)))),
                    Ex::Bin(
                        NOp::And,
                        64,
                        Box::new((
                            Ex::Bin(NOp::Shl, 64, Box::new((v, Ex::Const(u64::from(lo))))),
                            Ex::Const(m),
                        )),
                    ),
                )),
            )
        } else {
            // the bits above, the value, the bits below, concatenated
            let mut new = if is_wide(w) {
                v
            } else {
                Ex::ToWide(bt(w, false), Box::new(v))
            };
            if hi + 1 < width {
                let top = Ex::SliceW(width - 1, hi + 1, Box::new(old.clone()));
                new = Ex::ConcatW(Box::new((top, new)));
            }
            if lo > 0 {
                let bottom = Ex::SliceW(lo - 1, 0, Box::new(old));
                new = Ex::ConcatW(Box::new((new, bottom)));
            }
            if signed {
                Ex::CastW(bt(width, true), Box::new(new))
            } else {
                new
            }
        };
        out.push(self.store(p, t, new));
        Ok(())
    }

    /// `dst = src` for a location of type `t`.
    pub(super) fn assign(
        &mut self,
        dst: &Place,
        t: &Ty,
        src: Val,
        span: Span,
        out: &mut Vec<St>,
    ) -> Res<()> {
        if self.scalar_bt(t).is_some() {
            let ex = self.coerce(src, t, span)?;
            out.push(self.store(dst, t, ex));
            return Ok(());
        }
        match (t, src) {
            (_, Val::Returned(sts, p, st)) => {
                out.extend(sts);
                self.assign(dst, t, Val::Place(p, st), span, out)
            }
            (_, Val::Place(sp, st)) => {
                if &st != t {
                    return err(
                        span,
                        format!(
                            "cannot assign a value of type {} to {}",
                            ty_name(self, &st),
                            ty_name(self, t)
                        ),
                    );
                }
                if dst.dynamic.is_none() && sp.dynamic.is_none() {
                    let (n, w) = self.size(t);
                    if dst.n != sp.n || dst.w != sp.w {
                        out.push(St::Copy(Box::new(CopyOp {
                            n_dst: dst.n,
                            n_src: sp.n,
                            n_len: n,
                            w_dst: dst.w,
                            w_src: sp.w,
                            w_len: w,
                        })));
                    }
                    return Ok(());
                }
                let mut a = Vec::new();
                let mut b = Vec::new();
                self.leaves(dst, t, &mut a);
                self.leaves(&sp, t, &mut b);
                for ((dp, dt), (spl, _)) in a.into_iter().zip(b) {
                    let ex = self.load(&spl, &dt);
                    out.push(self.store(&dp, &dt, ex));
                }
                Ok(())
            }
            (Ty::Struct(i), Val::Invalid) => {
                let s = self.structs[*i as usize].clone();
                match s.kind {
                    SKind::Header => {
                        out.push(self.store(dst, &Ty::Bool, Ex::Const(0)));
                        Ok(())
                    }
                    SKind::Union => {
                        for f in &s.fields {
                            out.push(self.store(
                                &dst.offset(f.n_off, f.w_off),
                                &Ty::Bool,
                                Ex::Const(0),
                            ));
                        }
                        Ok(())
                    }
                    SKind::Struct => err(
                        span,
                        "`{#}` can only be assigned to a header or header union",
                    ),
                }
            }
            (Ty::Struct(i), Val::List(items)) => {
                let s = self.structs[*i as usize].clone();
                if s.kind == SKind::Union {
                    return unsupported(span, "initialising a header union from a list");
                }
                if items.len() != s.fields.len() {
                    return err(
                        span,
                        format!(
                            "{} has {} fields, but {} values were given",
                            s.name,
                            s.fields.len(),
                            items.len()
                        ),
                    );
                }
                if s.kind == SKind::Header {
                    out.push(self.store(dst, &Ty::Bool, Ex::Const(1)));
                }
                for (f, v) in s.fields.iter().zip(items) {
                    self.assign(&dst.offset(f.n_off, f.w_off), &f.ty, v, span, out)?;
                }
                Ok(())
            }
            (Ty::Struct(i), Val::StructInit(items)) => {
                let s = self.structs[*i as usize].clone();
                if s.kind == SKind::Union {
                    return unsupported(span, "initialising a header union");
                }
                for (k, (n, _)) in items.iter().enumerate() {
                    if !s.fields.iter().any(|f| &f.name == n) {
                        return err(span, format!("{} has no field `{n}`", s.name));
                    }
                    if items[..k].iter().any(|(m, _)| m == n) {
                        return err(span, format!("field `{n}` is initialised twice"));
                    }
                }
                if items.len() != s.fields.len() {
                    return err(
                        span,
                        format!("every field of {} must be initialised", s.name),
                    );
                }
                if s.kind == SKind::Header {
                    out.push(self.store(dst, &Ty::Bool, Ex::Const(1)));
                }
                for (n, v) in items {
                    let Some(f) = s.fields.iter().find(|f| f.name == n) else {
                        continue;
                    };
                    self.assign(&dst.offset(f.n_off, f.w_off), &f.ty, v, span, out)?;
                }
                Ok(())
            }
            (Ty::Tuple(ts), Val::List(items)) => {
                if ts.len() != items.len() {
                    return err(span, "tuple sizes differ");
                }
                let (mut n, mut w) = (0, 0);
                for (t, v) in ts.iter().zip(items) {
                    self.assign(&dst.offset(n, w), t, v, span, out)?;
                    let (a, b) = self.size(t);
                    n = n.saturating_add(a);
                    w = w.saturating_add(b);
                }
                Ok(())
            }
            (t, v) => err(
                span,
                format!(
                    "cannot assign {} to a value of type {}",
                    self.describe(&v),
                    ty_name(self, t)
                ),
            ),
        }
    }
}

/// `for (T x in lo .. hi) body` as the `for` loop
/// `for (T x = lo, T hi' = hi, bool go = x <= hi'; go; if (x == hi') go = false; else x = x + 1)`:
/// both bounds evaluated once, `hi` inclusive, and no wrap-around when `hi`
/// is the type's largest value. `hi'` and `go` cannot be named in P4.
fn for_in_as_for(
    ty: &ast::Type,
    name: &ast::Ident,
    lo: &ast::Expr,
    hi: &ast::Expr,
    span: Span,
) -> (Vec<ast::Statement>, ast::Expr, Vec<ast::Statement>) {
    let ident = |n: &str| ast::Ident {
        name: Arc::from(n),
        span,
    };
    let hi_name = ident("for-in last");
    let go_name = ident("for-in going");
    let expr = |kind| ast::Expr { kind, span };
    let path = |i: &ast::Ident| {
        expr(ExprKind::Name(ast::Path {
            absolute: false,
            name: i.clone(),
        }))
    };
    let binary = |op, l, r| {
        expr(ExprKind::Binary {
            op,
            lhs: Box::new(l),
            rhs: Box::new(r),
        })
    };
    let statement = |kind| ast::Statement { kind, span };
    let declare = |ty: ast::Type, name: &ast::Ident, init: ast::Expr| {
        statement(ast::StatementKind::Declaration(Box::new(
            Declaration::Variable(ast::VariableDecl {
                annotations: Vec::new(),
                ty,
                name: name.clone(),
                init: Some(init),
                span,
            }),
        )))
    };
    let assign = |lhs, rhs| statement(ast::StatementKind::Assign { lhs, op: None, rhs });
    let bool_ty = ast::Type {
        kind: ast::TypeKind::Bool,
        span,
    };
    let init = vec![
        declare(ty.clone(), name, lo.clone()),
        declare(ty.clone(), &hi_name, hi.clone()),
        declare(
            bool_ty,
            &go_name,
            binary(ast::BinaryOp::Le, path(name), path(&hi_name)),
        ),
    ];
    let one = expr(ExprKind::Int(crate::front::lexer::IntLiteral::from_u128(1)));
    let update = vec![statement(ast::StatementKind::If {
        cond: binary(ast::BinaryOp::Eq, path(name), path(&hi_name)),
        then: Box::new(assign(path(&go_name), expr(ExprKind::Bool(false)))),
        otherwise: Some(Box::new(assign(
            path(name),
            binary(ast::BinaryOp::Add, path(name), one),
        ))),
    })];
    (init, path(&go_name), update)
}

/// Evaluates every scalar of a discarded struct value for its effects (a
/// lookahead's bounds check), keeping nothing.
fn discard_fields(items: Vec<(Arc<str>, Val)>, out: &mut Vec<St>) {
    for (_, v) in items {
        match v {
            Val::Scalar(ex, _) => out.push(St::If(ex, Vec::new(), Vec::new())),
            Val::StructInit(inner) => discard_fields(inner, out),
            _ => {}
        }
    }
}

/// Whether evaluating `v` may run statements (a function or method call,
/// lowered to `Ex::Seq`), judged from its lowered form.
fn calls_a_function(v: &impl std::fmt::Debug) -> bool {
    let text = format!("{v:?}");
    text.contains("Seq(") || text.contains("SeqW(")
}
