//! Expressions: r-values, coercion, members, indexing, slices, operators, casts, calls.

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn describe(&self, v: &Val) -> String {
        match v {
            Val::Int(_) => "an integer".into(),
            Val::Scalar(_, t) | Val::Place(_, t) => format!("a value of type {}", ty_name(self, t)),
            Val::List(_) => "a list".into(),
            Val::StructInit(_) => "a struct initializer".into(),
            Val::Str(_) => "a string".into(),
            Val::Invalid => "`{#}`".into(),
            Val::Returned(..) => {
                "a function's header or struct result (which can only be assigned)".into()
            }
            _ => "this expression".into(),
        }
    }

    // ---- expressions ---------------------------------------------------

    /// A scalar value and its type (unsized constants are an error here).
    pub(super) fn rvalue(&mut self, v: Val, span: Span) -> Res<(Ex, Ty)> {
        match v {
            Val::Scalar(ex, t) => Ok((ex, t)),
            Val::Place(p, t) if self.scalar_bt(&t).is_some() => {
                let ex = self.load(&p, &t);
                Ok((ex, t))
            }
            Val::Int(_) => err(
                span,
                "the width of this integer cannot be inferred; give it a type such as 8w1",
            ),
            other => err(
                span,
                format!("expected a scalar value, found {}", self.describe(&other)),
            ),
        }
    }

    /// Converts `v` to type `t` as an implicit cast allows.
    pub(super) fn coerce(&mut self, v: Val, t: &Ty, span: Span) -> Res<Ex> {
        let Some(b) = self.scalar_bt(t) else {
            return err(
                span,
                format!("expected a scalar type, not {}", ty_name(self, t)),
            );
        };
        match v {
            Val::Int(i) => match t {
                Ty::Bit(_) | Ty::Int(_) => Ok(const_ex(i, b)),
                _ => err(
                    span,
                    format!(
                        "cannot use an integer where a value of type {} is expected",
                        ty_name(self, t)
                    ),
                ),
            },
            v => {
                let (ex, vt) = self.rvalue(v, span)?;
                if &vt == t {
                    return Ok(ex);
                }
                err(
                    span,
                    format!(
                        "type mismatch: expected {}, found {}",
                        ty_name(self, t),
                        ty_name(self, &vt)
                    ),
                )
            }
        }
    }

    pub(super) fn expr(&mut self, e: &ast::Expr) -> Res<Val> {
        self.depth += 1;
        if self.depth > 400 {
            self.depth -= 1;
            return err(e.span, "expression nests too deeply");
        }
        let r = self.expr_inner(e);
        self.depth -= 1;
        r
    }

    pub(super) fn expr_inner(&mut self, e: &ast::Expr) -> Res<Val> {
        match &e.kind {
            ExprKind::Bool(b) => Ok(Val::Scalar(Ex::Const(u64::from(*b)), Ty::Bool)),
            ExprKind::Int(lit) => self.int_literal(lit, e.span),
            ExprKind::String(s) => Ok(Val::Str(s.clone())),
            ExprKind::Name(p) => self.lookup(p),
            ExprKind::This => {
                for s in self.scopes.iter().rev() {
                    if let Some(v) = s.get("this") {
                        return Ok(v.clone());
                    }
                }
                unsupported(e.span, "`this` outside a RegisterAction's apply")
            }
            ExprKind::DontCare => Ok(Val::DontCare),
            ExprKind::Member { base, member } => {
                let b = self.expr(base)?;
                self.member(b, member, e.span)
            }
            ExprKind::Index { base, index } => {
                let b = self.expr(base)?;
                self.index(b, index, e.span)
            }
            ExprKind::Slice { base, hi, lo } => {
                let b = self.expr(base)?;
                let hi_v = self.const_u32(hi, "a slice bound")?;
                let lo_v = self.const_u32(lo, "a slice bound")?;
                self.slice(b, hi_v, lo_v, e.span)
            }
            ExprKind::Call {
                callee,
                type_args,
                args,
            } => self.call(callee, type_args, args, e.span),
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand)?;
                self.unary(*op, v, e.span)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                self.binary(*op, l, r, e.span)
            }
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let c = self.coerce(c, &Ty::Bool, cond.span)?;
                let a = self.expr(then)?;
                let b = self.expr(otherwise)?;
                if let Ex::Const(c) = c {
                    return Ok(if c != 0 { a } else { b });
                }
                let (a, b, t) = self.unify(a, b, e.span)?;
                let wide = self.scalar_bt(&t).is_some_and(|b| is_wide(b.width()));
                Ok(Val::Scalar(
                    if wide {
                        Ex::CondW(Box::new((c, a, b)))
                    } else {
                        Ex::Cond(Box::new((c, a, b)))
                    },
                    t,
                ))
            }
            ExprKind::Cast { ty, expr } => {
                let t = self.resolve_type(ty)?;
                let v = self.expr(expr)?;
                self.cast(v, &t, e.span)
            }
            ExprKind::List { items, dots } => {
                if *dots {
                    return unsupported(e.span, "`...` in initializers");
                }
                let mut out = Vec::new();
                for i in items {
                    out.push(self.expr(i)?);
                }
                Ok(Val::List(out))
            }
            ExprKind::StructInit { fields, dots } => {
                if *dots {
                    return unsupported(e.span, "`...` in initializers");
                }
                let mut out = Vec::new();
                for f in fields {
                    let v = self.expr(&f.value)?;
                    out.push((f.name.name.clone(), v));
                }
                Ok(Val::StructInit(out))
            }
            ExprKind::InvalidHeader => Ok(Val::Invalid),
            ExprKind::Type(t) => Ok(Val::Type(self.resolve_type(t)?)),
        }
    }

    pub(super) fn int_literal(&mut self, lit: &ast::IntLiteral, span: Span) -> Res<Val> {
        let mag = &lit.magnitude;
        match lit.width {
            None => {
                if mag.len() > 15 {
                    return unsupported(span, "unsized integer constants of more than 120 bits");
                }
                let v = mag.iter().fold(0i128, |a, &b| (a << 8) | i128::from(b));
                Ok(Val::Int(v))
            }
            Some(w) => {
                if w > crate::exec::bits::MAX_WIDTH {
                    return err(span, format!("width {w} is too large"));
                }
                if w == 0 && lit.signed {
                    return err(span, "int<0> is not a valid type");
                }
                let b = bt(w, lit.signed);
                let needed = match mag.first() {
                    Some(x) => mag.len() as u64 * 8 - u64::from(x.leading_zeros()),
                    None => 0,
                };
                if needed > u64::from(w) {
                    return err(span, format!("value does not fit in {w} bits"));
                }
                let t = if lit.signed { Ty::Int(w) } else { Ty::Bit(w) };
                let v = Bits::from_be_bytes(b, mag);
                Ok(Val::Scalar(bits_ex(v), t))
            }
        }
    }

    /// The value at `p` (a struct or tuple of type `t`) equals the list or
    /// initializer `v`, field by field (an initializer by name; every field
    /// named once). Headers, unions and stacks inside are refused.
    fn literal_eq(&mut self, p: &Place, t: &Ty, v: Val, span: Span) -> Res<Ex> {
        let and = |x: Ex, y: Ex| Ex::Bin(NOp::LAnd, 1, Box::new((x, y)));
        let parts: Vec<(Place, Ty, Val)> = match (t, v) {
            (Ty::Struct(i), v) if self.structs[*i as usize].kind == SKind::Struct => {
                let s = self.structs[*i as usize].clone();
                let items = self.struct_items(&s, v, span)?;
                s.fields
                    .iter()
                    .zip(items)
                    .map(|(f, v)| (p.offset(f.n_off, f.w_off), f.ty.clone(), v))
                    .collect()
            }
            (Ty::Tuple(ts), Val::List(items)) if items.len() == ts.len() => {
                let (mut n, mut w) = (0, 0);
                let mut parts = Vec::with_capacity(ts.len());
                for (t, v) in ts.iter().zip(items) {
                    parts.push((p.offset(n, w), t.clone(), v));
                    let (dn, dw) = self.size(t);
                    n = n.saturating_add(dn);
                    w = w.saturating_add(dw);
                }
                parts
            }
            (t, _) => {
                return unsupported(
                    span,
                    format!("comparing a value of type {} with a list", ty_name(self, t)),
                );
            }
        };
        let mut acc = Ex::Const(1);
        for (fp, ft, fv) in parts {
            let e = match (&ft, fv) {
                (Ty::Struct(_) | Ty::Tuple(_), fv) => self.literal_eq(&fp, &ft, fv, span)?,
                (ft, fv) if self.scalar_bt(ft).is_some() => {
                    match self.binary(BinaryOp::Eq, Val::Place(fp, ft.clone()), fv, span)? {
                        Val::Scalar(e, _) => e,
                        _ => return err(span, "operands must be scalar values"),
                    }
                }
                (ft, _) => {
                    return unsupported(
                        span,
                        format!(
                            "comparing a field of type {} with a list",
                            ty_name(self, ft)
                        ),
                    );
                }
            };
            acc = and(acc, e);
        }
        Ok(acc)
    }

    /// `a == b` for values of compound type `t` as P4_16 defines it: two
    /// headers are equal when both are invalid or both are valid with equal
    /// fields (a varbit by its length and value); header unions, structs,
    /// tuples and stacks member by member (a stack's nextIndex is not part
    /// of its value).
    fn compound_eq(&self, a: &Place, b: &Place, t: &Ty) -> Ex {
        let and = |x: Ex, y: Ex| Ex::Bin(NOp::LAnd, 1, Box::new((x, y)));
        match t {
            Ty::Struct(i) => {
                let s = &self.structs[*i as usize];
                let fields = s.fields.iter().fold(Ex::Const(1), |acc, f| {
                    let fe = self.compound_eq(
                        &a.offset(f.n_off, f.w_off),
                        &b.offset(f.n_off, f.w_off),
                        &f.ty,
                    );
                    and(acc, fe)
                });
                if s.kind != SKind::Header {
                    return fields;
                }
                let (va, vb) = (self.load(a, &Ty::Bool), self.load(b, &Ty::Bool));
                let same_validity = Ex::Bin(NOp::Eq, 64, Box::new((va.clone(), vb)));
                let invalid_or_equal =
                    Ex::Bin(NOp::LOr, 1, Box::new((Ex::Not(Box::new(va)), fields)));
                and(same_validity, invalid_or_equal)
            }
            Ty::Stack(e, count) => {
                let (n, w) = self.size(e);
                (0..*count).fold(Ex::Const(1), |acc, i| {
                    let (dn, dw) = (i.saturating_mul(n), i.saturating_mul(w));
                    and(
                        acc,
                        self.compound_eq(&a.offset(dn, dw), &b.offset(dn, dw), e),
                    )
                })
            }
            Ty::Tuple(ts) => {
                let (mut n, mut w) = (0, 0);
                let mut acc = Ex::Const(1);
                for t in ts {
                    acc = and(acc, self.compound_eq(&a.offset(n, w), &b.offset(n, w), t));
                    let (dn, dw) = self.size(t);
                    n = n.saturating_add(dn);
                    w = w.saturating_add(dw);
                }
                acc
            }
            Ty::Varbit(_) => {
                let len = |p: &Place| self.load(p, &Ty::Bit(32));
                and(
                    Ex::Bin(NOp::Eq, 64, Box::new((len(a), len(b)))),
                    Ex::CmpW(Cmp::Eq, Box::new((self.load(a, t), self.load(b, t)))),
                )
            }
            t => {
                let (xe, ye) = (self.load(a, t), self.load(b, t));
                if self.size(t) == (0, 1) {
                    Ex::CmpW(Cmp::Eq, Box::new((xe, ye)))
                } else {
                    Ex::Bin(NOp::Eq, 64, Box::new((xe, ye)))
                }
            }
        }
    }

    pub(super) fn member(&mut self, b: Val, m: &ast::Ident, span: Span) -> Res<Val> {
        let name = m.as_str();
        match b {
            Val::Returned(..) => unsupported(
                span,
                format!(
                    "`.{name}` of a function's header or struct result: assign the result \
                     to a variable first"
                ),
            ),
            // A field of `packet.lookahead<H>()`: each field is its own
            // slice of the same lookahead.
            Val::StructInit(items) => match items.into_iter().find(|(n, _)| n.as_ref() == name) {
                Some((_, v)) => Ok(v),
                None => err(m.span, format!("this value has no field `{name}`")),
            },
            Val::ErrorNs => match self.errors.iter().position(|e| e == name) {
                Some(i) => Ok(Val::Scalar(Ex::Const(i as u64), Ty::Error)),
                None => err(m.span, format!("`error.{name}` is not declared")),
            },
            Val::Type(Ty::Enum(i)) => {
                let e = &self.enums[i as usize];
                match e.members.iter().find(|(n, _)| n.as_ref() == name) {
                    Some((_, v)) => Ok(Val::Scalar(Ex::Const(*v), Ty::Enum(i))),
                    None => err(m.span, format!("enum {} has no member `{name}`", e.name)),
                }
            }
            Val::Place(p, Ty::Struct(i)) => {
                let s = &self.structs[i as usize];
                if let Some(f) = s.fields.iter().find(|f| f.name.as_ref() == name) {
                    let mut member = p.offset(f.n_off, f.w_off);
                    if s.kind == SKind::Union {
                        member.union_siblings = s
                            .fields
                            .iter()
                            .filter(|g| g.name != f.name)
                            .map(|g| p.offset(g.n_off, g.w_off))
                            .collect();
                    }
                    return Ok(Val::Place(member, f.ty.clone()));
                }
                match (s.kind, name) {
                    (SKind::Header, "isValid" | "setValid" | "setInvalid")
                    | (SKind::Union, "isValid") => Ok(Val::Method(
                        Box::new(Val::Place(p, Ty::Struct(i))),
                        m.clone(),
                    )),
                    (
                        _,
                        "minSizeInBits" | "minSizeInBytes" | "maxSizeInBits" | "maxSizeInBytes",
                    ) => Ok(Val::Method(
                        Box::new(Val::Place(p, Ty::Struct(i))),
                        m.clone(),
                    )),
                    _ => err(m.span, format!("{} has no field `{name}`", s.name)),
                }
            }
            Val::Place(p, Ty::Stack(e, count)) => {
                let (en, ew) = self.size(&e);
                let next_index = p.n.saturating_add(en.saturating_mul(count));
                if p.dynamic.is_some() {
                    return unsupported(span, "nested header stacks");
                }
                if self.array_element_type(&e) && name != "size" {
                    return err(
                        m.span,
                        format!(
                            "an array of {} has no member `{name}` (only `size`; nextIndex, \
                             next, last and push/pop are a header stack's)",
                            ty_name(self, &e)
                        ),
                    );
                }
                match name {
                    "size" => Ok(Val::Scalar(Ex::Const(u64::from(count)), Ty::Bit(32))),
                    "nextIndex" => Ok(Val::Scalar(Ex::Load(next_index), Ty::Bit(32))),
                    "lastIndex" => Ok(Val::Scalar(
                        Ex::Bin(NOp::Sub, 32, Box::new((Ex::Load(next_index), Ex::Const(1)))),
                        Ty::Bit(32),
                    )),
                    "next" | "last" => {
                        if name == "next" && self.block_kind != BlockKind::Parser {
                            return err(m.span, "`next` can only be used in a parser");
                        }
                        if name == "next" {
                            return Ok(Val::StackNext(p, Ty::Stack(e, count)));
                        }
                        let index =
                            Ex::Bin(NOp::Sub, 32, Box::new((Ex::Load(next_index), Ex::Const(1))));
                        Ok(Val::Place(
                            Place {
                                n: 0,
                                w: 0,
                                dynamic: Some(Box::new(Dyn {
                                    index,
                                    base_n: p.n,
                                    base_w: p.w,
                                    stride_n: en,
                                    stride_w: ew,
                                    count,
                                })),
                                union_siblings: Vec::new(),
                            },
                            *e,
                        ))
                    }
                    "push_front" | "pop_front" => Ok(Val::Method(
                        Box::new(Val::Place(p, Ty::Stack(e, count))),
                        m.clone(),
                    )),
                    _ => err(m.span, format!("header stacks have no member `{name}`")),
                }
            }
            Val::StackNext(p, t) => {
                // `hdr.stack.next.field` in a parser: the element at nextIndex
                let Ty::Stack(e, count) = &t else {
                    return err(span, "internal: stack");
                };
                let (en, ew) = self.size(e);
                let dynp = Place {
                    n: 0,
                    w: 0,
                    dynamic: Some(Box::new(Dyn {
                        index: Ex::Load(p.n.saturating_add(en.saturating_mul(*count))),
                        base_n: p.n,
                        base_w: p.w,
                        stride_n: en,
                        stride_w: ew,
                        count: *count,
                    })),
                    union_siblings: Vec::new(),
                };
                self.member(Val::Place(dynp, (**e).clone()), m, span)
            }
            Val::TableResult(t) => match name {
                "hit" => Ok(Val::Scalar(Ex::TableHit(t), Ty::Bool)),
                "miss" => Ok(Val::Scalar(Ex::TableMiss(t), Ty::Bool)),
                "action_run" => err(
                    m.span,
                    "`action_run` can only be used as a switch expression",
                ),
                _ => err(
                    m.span,
                    format!("a table apply result has no member `{name}`"),
                ),
            },
            v @ (Val::Table(_) | Val::Extern(_) | Val::Packet(_) | Val::Control(_)) => {
                Ok(Val::Method(Box::new(v), m.clone()))
            }
            // `C.apply(...)` of a control type: an instance of its own,
            // named after the type, at each such call (P4_16 §15.1).
            Val::Type(Ty::Object(c))
                if name == "apply"
                    && self.globals.get(c.as_ref()).is_some_and(|ds| {
                        ds.iter().any(|d| matches!(d, Declaration::Control(_)))
                    }) =>
            {
                let ident = ast::Ident {
                    name: c.clone(),
                    span: m.span,
                };
                let instance = ast::Instantiation {
                    annotations: Vec::new(),
                    ty: ast::Type {
                        kind: ast::TypeKind::Name(ast::Path {
                            absolute: false,
                            name: ident.clone(),
                        }),
                        span: m.span,
                    },
                    args: Vec::new(),
                    name: ident,
                    initializer: Vec::new(),
                    span,
                };
                let control = self.instantiate(&instance)?;
                Ok(Val::Method(Box::new(control), m.clone()))
            }
            Val::Type(t) => match name {
                "minSizeInBits" | "minSizeInBytes" | "maxSizeInBits" | "maxSizeInBytes" => {
                    Ok(Val::Method(Box::new(Val::Type(t)), m.clone()))
                }
                _ => err(
                    m.span,
                    format!("type {} has no member `{name}`", ty_name(self, &t)),
                ),
            },
            Val::Place(_, t) | Val::Scalar(_, t) => err(
                m.span,
                format!(
                    "a value of type {} has no member `{name}`",
                    ty_name(self, &t)
                ),
            ),
            _ => err(m.span, format!("this expression has no member `{name}`")),
        }
    }

    pub(super) fn index(&mut self, b: Val, index: &ast::Expr, span: Span) -> Res<Val> {
        let Val::Place(p, Ty::Stack(e, count)) = b else {
            return match b {
                Val::List(items) => {
                    let i = self.const_u32(index, "a tuple index")?;
                    items.into_iter().nth(i as usize).ok_or_else(|| {
                        Error::new(
                            ErrorKind::Semantic("tuple index out of range".into()),
                            index.span,
                        )
                    })
                }
                _ => err(span, "only header stacks can be indexed"),
            };
        };
        if p.dynamic.is_some() {
            return unsupported(span, "nested header stacks");
        }
        let (en, ew) = self.size(&e);
        let iv = self.expr(index)?;
        if let Some(c) = self.const_value(&iv) {
            if c < 0 || c >= i128::from(count) {
                return err(
                    index.span,
                    format!("index {c} is out of range for a stack of {count}"),
                );
            }
            let c = c as u32;
            return Ok(Val::Place(
                p.offset(c.saturating_mul(en), c.saturating_mul(ew)),
                *e,
            ));
        }
        let (ix, it) = self.rvalue(iv, index.span)?;
        let ix = match it {
            Ty::Bit(w) if w <= 64 => ix,
            // A signed index is out of range when negative (BMv2 reads the
            // field as a signed number), else its bits are the index.
            Ty::Int(w) if w <= 64 => Ex::Cond(Box::new((
                Ex::Bin(NOp::LtS, w, Box::new((ix.clone(), Ex::Const(0)))),
                Ex::Const(u64::from(count)),
                ix,
            ))),
            _ => return err(index.span, "a stack index must be a bit<W> or int<W> value"),
        };
        Ok(Val::Place(
            Place {
                n: 0,
                w: 0,
                dynamic: Some(Box::new(Dyn {
                    index: ix,
                    base_n: p.n,
                    base_w: p.w,
                    stride_n: en,
                    stride_w: ew,
                    count,
                })),
                union_siblings: Vec::new(),
            },
            *e,
        ))
    }

    pub(super) fn slice(&mut self, b: Val, hi: u32, lo: u32, span: Span) -> Res<Val> {
        let (ex, t) = match b {
            Val::Int(i) => {
                let w = hi + 1;
                (
                    const_ex(i, bt(w.min(crate::exec::bits::MAX_WIDTH), false)),
                    Ty::Bit(w),
                )
            }
            v => self.rvalue(v, span)?,
        };
        let w = match t {
            Ty::Bit(w) | Ty::Int(w) => w,
            _ => {
                return err(
                    span,
                    format!("cannot slice a value of type {}", ty_name(self, &t)),
                );
            }
        };
        if hi < lo || hi >= w {
            return err(
                span,
                format!("slice [{hi}:{lo}] is out of range for a value of width {w}"),
            );
        }
        let rw = hi - lo + 1;
        let out = if !is_wide(w) {
            fold(Ex::Slice(hi, lo, Box::new(ex)))
        } else if is_wide(rw) {
            Ex::SliceW(hi, lo, Box::new(ex))
        } else {
            Ex::ToNarrow(Box::new(Ex::SliceW(hi, lo, Box::new(ex))))
        };
        Ok(Val::Scalar(out, Ty::Bit(rw)))
    }

    pub(super) fn unary(&mut self, op: UnaryOp, v: Val, span: Span) -> Res<Val> {
        if let Val::Int(i) = v {
            return match op {
                UnaryOp::Neg => Ok(Val::Int(-i)),
                UnaryOp::Plus => Ok(Val::Int(i)),
                UnaryOp::BitNot => err(span, "`~` needs a sized operand"),
                UnaryOp::Not => err(span, "`!` needs a bool operand"),
            };
        }
        let (ex, t) = self.rvalue(v, span)?;
        match (op, &t) {
            (UnaryOp::Not, Ty::Bool) => Ok(Val::Scalar(fold(Ex::Not(Box::new(ex))), t)),
            (UnaryOp::Plus, Ty::Bit(_) | Ty::Int(_)) => Ok(Val::Scalar(ex, t)),
            (UnaryOp::BitNot | UnaryOp::Neg, Ty::Bit(w) | Ty::Int(w)) => {
                let w = *w;
                let out = match (op, is_wide(w)) {
                    (UnaryOp::BitNot, false) => fold(Ex::BitNot(w, Box::new(ex))),
                    (UnaryOp::Neg, false) => fold(Ex::Neg(w, Box::new(ex))),
                    (UnaryOp::BitNot, true) => Ex::BitNotW(Box::new(ex)),
                    _ => Ex::NegW(Box::new(ex)),
                };
                Ok(Val::Scalar(out, t))
            }
            _ => err(
                span,
                format!(
                    "operator cannot be applied to a value of type {}",
                    ty_name(self, &t)
                ),
            ),
        }
    }

    /// Brings two operands to one scalar type (unsized constants take the
    /// other operand's type).
    pub(super) fn unify(&mut self, a: Val, b: Val, span: Span) -> Res<(Ex, Ex, Ty)> {
        match (a, b) {
            (Val::Int(x), Val::Int(y)) => {
                // only reached for ?: with two constants and a runtime cond
                let _ = (x, y);
                err(span, "the width of this expression cannot be inferred")
            }
            (Val::Int(x), b) => {
                let (eb, tb) = self.rvalue(b, span)?;
                let ea = self.coerce(Val::Int(x), &tb, span)?;
                Ok((ea, eb, tb))
            }
            (a, Val::Int(y)) => {
                let (ea, ta) = self.rvalue(a, span)?;
                let eb = self.coerce(Val::Int(y), &ta, span)?;
                Ok((ea, eb, ta))
            }
            (a, b) => {
                let (ea, ta) = self.rvalue(a, span)?;
                let (eb, tb) = self.rvalue(b, span)?;
                if ta != tb {
                    let msg = match (&ta, &tb) {
                        (Ty::Bit(x), Ty::Bit(y)) | (Ty::Int(x), Ty::Int(y)) => format!(
                            "cannot operate on values of different widths: {} and {} (add a cast)",
                            x, y
                        ),
                        _ => format!(
                            "type mismatch: {} and {}",
                            ty_name(self, &ta),
                            ty_name(self, &tb)
                        ),
                    };
                    return err(span, msg);
                }
                Ok((ea, eb, ta))
            }
        }
    }

    pub(super) fn binary(&mut self, op: BinaryOp, l: Val, r: Val, span: Span) -> Res<Val> {
        use BinaryOp as B;
        if let (Val::Int(a), Val::Int(b)) = (&l, &r) {
            let (a, b) = (*a, *b);
            let v = match op {
                B::Add => a.checked_add(b),
                B::Sub => a.checked_sub(b),
                B::Mul => a.checked_mul(b),
                B::Div | B::Mod => {
                    if b == 0 {
                        return err(span, "division by zero");
                    }
                    if a < 0 || b < 0 {
                        return err(span, "division of negative constants is not defined");
                    }
                    Some(if op == B::Div { a / b } else { a % b })
                }
                B::Shl => {
                    if !(0..=120).contains(&b) {
                        return err(span, "shift amount out of range");
                    }
                    a.checked_mul(1i128 << b)
                }
                B::Shr => {
                    if b < 0 {
                        return err(span, "negative shift amount");
                    }
                    Some(a >> b.min(127))
                }
                B::BitAnd => Some(a & b),
                B::BitOr => Some(a | b),
                B::BitXor => Some(a ^ b),
                B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge => {
                    let c = match op {
                        B::Eq => a == b,
                        B::Ne => a != b,
                        B::Lt => a < b,
                        B::Le => a <= b,
                        B::Gt => a > b,
                        _ => a >= b,
                    };
                    return Ok(Val::Scalar(Ex::Const(u64::from(c)), Ty::Bool));
                }
                _ => {
                    return err(
                        span,
                        format!("`{}` cannot be applied to unsized integers", op.symbol()),
                    );
                }
            };
            return match v {
                Some(v) if v.unsigned_abs() < (1u128 << 120) => Ok(Val::Int(v)),
                _ => unsupported(span, "integer constants beyond 120 bits"),
            };
        }
        match op {
            B::And | B::Or => {
                let a = self.coerce(l, &Ty::Bool, span)?;
                let b = self.coerce(r, &Ty::Bool, span)?;
                let nop = if op == B::And { NOp::LAnd } else { NOp::LOr };
                Ok(Val::Scalar(
                    fold(Ex::Bin(nop, 1, Box::new((a, b)))),
                    Ty::Bool,
                ))
            }
            B::Shl | B::Shr => {
                let (a, t) = self.rvalue(l, span)?;
                let w = match t {
                    Ty::Bit(w) | Ty::Int(w) => w,
                    _ => {
                        return err(
                            span,
                            format!("cannot shift a value of type {}", ty_name(self, &t)),
                        );
                    }
                };
                let amount = match r {
                    Val::Int(i) if i < 0 => return err(span, "negative shift amount"),
                    Val::Int(i) => Ex::Const(i.min(i128::from(u32::MAX)) as u64),
                    r => {
                        let (ex, rt) = self.rvalue(r, span)?;
                        match rt {
                            Ty::Bit(rw) if rw <= 64 => ex,
                            Ty::Bit(_) => Ex::ToNarrow(Box::new(ex)),
                            _ => return err(span, "a shift amount must be an unsigned value"),
                        }
                    }
                };
                let signed = matches!(t, Ty::Int(_));
                let ex = if is_wide(w) {
                    let wop = if op == B::Shl { WOp::Shl } else { WOp::Shr };
                    Ex::BinW(
                        wop,
                        Box::new((a, Ex::ToWide(bt(64, false), Box::new(amount)))),
                    )
                } else {
                    let nop = match (op, signed) {
                        (B::Shl, _) => NOp::Shl,
                        (_, false) => NOp::Shr,
                        (_, true) => NOp::Sar,
                    };
                    fold(Ex::Bin(nop, w, Box::new((a, amount))))
                };
                Ok(Val::Scalar(ex, t))
            }
            B::Concat => {
                let (a, ta) = self.rvalue(l, span)?;
                let (b, tb) = self.rvalue(r, span)?;
                let (wa, sa) = match ta {
                    Ty::Bit(w) => (w, false),
                    Ty::Int(w) => (w, true),
                    _ => return err(span, "`++` needs bit<W> or int<W> operands"),
                };
                let wb = match tb {
                    Ty::Bit(w) | Ty::Int(w) => w,
                    _ => return err(span, "`++` needs bit<W> or int<W> operands"),
                };
                let w = wa + wb;
                let t = if sa { Ty::Int(w) } else { Ty::Bit(w) };
                let ex = if !is_wide(w) {
                    fold(Ex::Concat(wb, Box::new((a, b))))
                } else {
                    let a = widen(a, bt(wa, sa));
                    let b = widen(b, bt(wb, false));
                    Ex::ConcatW(Box::new((a, b)))
                };
                Ok(Val::Scalar(ex, t))
            }
            _ => {
                // compound equality
                if matches!(op, B::Eq | B::Ne)
                    && let (Val::Place(pa, ta), Val::Place(pb, tb)) = (&l, &r)
                    && self.scalar_bt(ta).is_none()
                {
                    {
                        if ta != tb {
                            return err(span, "type mismatch in comparison");
                        }
                        let mut acc = self.compound_eq(pa, pb, ta);
                        if op == B::Ne {
                            acc = Ex::Not(Box::new(acc));
                        }
                        return Ok(Val::Scalar(acc, Ty::Bool));
                    }
                }
                // A struct or tuple against a list or initializer (a
                // struct constant is one): member by member.
                if matches!(op, B::Eq | B::Ne) {
                    let pair = match (&l, &r) {
                        (Val::Place(p, t), lit @ (Val::List(_) | Val::StructInit(_)))
                        | (lit @ (Val::List(_) | Val::StructInit(_)), Val::Place(p, t))
                            if matches!(t, Ty::Struct(_) | Ty::Tuple(_)) =>
                        {
                            Some((p.clone(), t.clone(), lit.clone()))
                        }
                        _ => None,
                    };
                    if let Some((p, t, lit)) = pair {
                        let mut acc = self.literal_eq(&p, &t, lit, span)?;
                        if op == B::Ne {
                            acc = Ex::Not(Box::new(acc));
                        }
                        return Ok(Val::Scalar(acc, Ty::Bool));
                    }
                }
                let (a, b, t) = self.unify(l, r, span)?;
                let Some(tb) = self.scalar_bt(&t) else {
                    return err(span, "operands must be scalar values");
                };
                let w = tb.width();
                let signed = tb.is_signed() && matches!(t, Ty::Int(_));
                let arith = matches!(t, Ty::Bit(_) | Ty::Int(_));
                let cmp = matches!(op, B::Eq | B::Ne);
                let ordered = matches!(op, B::Lt | B::Le | B::Gt | B::Ge);
                if !arith && !cmp {
                    return err(
                        span,
                        format!(
                            "`{}` cannot be applied to values of type {}",
                            op.symbol(),
                            ty_name(self, &t)
                        ),
                    );
                }
                if is_wide(w) {
                    if cmp || ordered {
                        let c = match op {
                            B::Eq => Cmp::Eq,
                            B::Ne => Cmp::Ne,
                            B::Lt => Cmp::Lt,
                            B::Le => Cmp::Le,
                            B::Gt => Cmp::Gt,
                            _ => Cmp::Ge,
                        };
                        return Ok(Val::Scalar(Ex::CmpW(c, Box::new((a, b))), Ty::Bool));
                    }
                    let wop = match op {
                        B::Add => WOp::Add,
                        B::Sub => WOp::Sub,
                        B::Mul => WOp::Mul,
                        B::Div => WOp::Div,
                        B::Mod => WOp::Mod,
                        B::BitAnd => WOp::And,
                        B::BitOr => WOp::Or,
                        B::BitXor => WOp::Xor,
                        B::SatAdd => WOp::SatAdd,
                        B::SatSub => WOp::SatSub,
                        _ => return err(span, "unsupported operator"),
                    };
                    return Ok(Val::Scalar(Ex::BinW(wop, Box::new((a, b))), t));
                }
                let (nop, swap, result_bool) = match op {
                    B::Add => (NOp::Add, false, false),
                    B::Sub => (NOp::Sub, false, false),
                    B::Mul => (NOp::Mul, false, false),
                    B::Div | B::Mod => {
                        if signed {
                            return unsupported(span, "division and modulo of int<W> values");
                        }
                        (if op == B::Div { NOp::Div } else { NOp::Mod }, false, false)
                    }
                    B::BitAnd => (NOp::And, false, false),
                    B::BitOr => (NOp::Or, false, false),
                    B::BitXor => (NOp::Xor, false, false),
                    B::SatAdd => (
                        if signed { NOp::SatAddS } else { NOp::SatAddU },
                        false,
                        false,
                    ),
                    B::SatSub => (
                        if signed { NOp::SatSubS } else { NOp::SatSubU },
                        false,
                        false,
                    ),
                    B::Eq => (NOp::Eq, false, true),
                    B::Ne => (NOp::Ne, false, true),
                    B::Lt => (if signed { NOp::LtS } else { NOp::LtU }, false, true),
                    B::Le => (if signed { NOp::LeS } else { NOp::LeU }, false, true),
                    B::Gt => (if signed { NOp::LtS } else { NOp::LtU }, true, true),
                    B::Ge => (if signed { NOp::LeS } else { NOp::LeU }, true, true),
                    _ => return err(span, "unsupported operator"),
                };
                let (a, b) = if swap { (b, a) } else { (a, b) };
                let ex = fold(Ex::Bin(nop, w, Box::new((a, b))));
                Ok(Val::Scalar(ex, if result_bool { Ty::Bool } else { t }))
            }
        }
    }

    pub(super) fn cast(&mut self, v: Val, t: &Ty, span: Span) -> Res<Val> {
        let Some(to) = self.scalar_bt(t) else {
            return match (t, v) {
                (Ty::Struct(_) | Ty::Tuple(_), v @ (Val::List(_) | Val::StructInit(_))) => {
                    let p = self.alloc(t);
                    let mut sts = Vec::new();
                    self.assign(&p, t, v, span, &mut sts)?;
                    let _ = sts;
                    unsupported(span, "casts to structs")
                }
                _ => err(span, format!("cannot cast to {}", ty_name(self, t))),
            };
        };
        if let Val::Int(i) = v {
            return match t {
                Ty::Bit(_) | Ty::Int(_) => Ok(Val::Scalar(const_ex(i, to), t.clone())),
                Ty::Bool if i == 0 || i == 1 => Ok(Val::Scalar(Ex::Const(i as u64), Ty::Bool)),
                Ty::Enum(id) if self.enums[*id as usize].underlying.is_some() => {
                    Ok(Val::Scalar(const_ex(i, to), t.clone()))
                }
                _ => err(
                    span,
                    format!("cannot cast an integer to {}", ty_name(self, t)),
                ),
            };
        }
        let (ex, from_t) = self.rvalue(v, span)?;
        if &from_t == t {
            return Ok(Val::Scalar(ex, from_t));
        }
        let Some(from) = self.scalar_bt(&from_t) else {
            return err(span, "cannot cast this value");
        };
        let ok = match (&from_t, t) {
            (Ty::Bit(_) | Ty::Int(_), Ty::Bit(_) | Ty::Int(_)) => true,
            (Ty::Bool, Ty::Bit(1)) | (Ty::Bit(1), Ty::Bool) => true,
            (Ty::Enum(i), Ty::Bit(_) | Ty::Int(_)) => self.enums[*i as usize].underlying.is_some(),
            (Ty::Bit(_) | Ty::Int(_), Ty::Enum(i)) => self.enums[*i as usize].underlying.is_some(),
            _ => false,
        };
        if !ok {
            return err(
                span,
                format!(
                    "cannot cast {} to {}",
                    ty_name(self, &from_t),
                    ty_name(self, t)
                ),
            );
        }
        Ok(Val::Scalar(convert(ex, from, to), t.clone()))
    }

    // ---- calls ---------------------------------------------------------

    pub(super) fn call(
        &mut self,
        callee: &ast::Expr,
        type_args: &[ast::Type],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        let f = self.expr(callee)?;
        match f {
            Val::Method(base, m) => self.method(*base, &m, type_args, args, span),
            Val::Action(id) => {
                let sts = self.call_action(id, args, span)?;
                Ok(Val::Effect(sts))
            }
            Val::Function(name) => self.call_function(&name, args, span),
            Val::ExternFn(name) => self.extern_fn(&name, type_args, args, span),
            Val::Type(_) => unsupported(span, "constructor calls in expressions"),
            _ => err(callee.span, "this expression cannot be called"),
        }
    }

    pub(super) fn arg_vals(&mut self, args: &[ast::Argument]) -> Res<Vec<(Val, Span)>> {
        let mut out = Vec::new();
        for a in args {
            if a.name.is_some() {
                return unsupported(a.value.span, "named arguments for this call");
            }
            out.push((self.expr(&a.value)?, a.value.span));
        }
        Ok(out)
    }

    /// Orders arguments by parameter (named arguments allowed), erroring on
    /// count mismatches.
    pub(super) fn bind_args<'a>(
        &self,
        params: &[String],
        args: &'a [ast::Argument],
        what: &str,
        span: Span,
    ) -> Res<Vec<&'a ast::Argument>> {
        if args.iter().any(|a| a.name.is_some()) {
            let mut out = Vec::new();
            for p in params {
                match args
                    .iter()
                    .find(|a| a.name.as_ref().is_some_and(|n| n.as_str() == p))
                {
                    Some(a) => out.push(a),
                    None => return err(span, format!("missing argument `{p}` for {what}")),
                }
            }
            if out.len() != args.len() {
                return err(span, format!("unknown named argument for {what}"));
            }
            return Ok(out);
        }
        if params.len() != args.len() {
            return err(
                span,
                format!(
                    "{what} takes {} arguments, {} given",
                    params.len(),
                    args.len()
                ),
            );
        }
        Ok(args.iter().collect())
    }

    /// Copy-in, `run`, copy-out for parameters with directions.
    pub(super) fn call_with_params(
        &mut self,
        params: &[(ast::Direction, Place, Ty)],
        names: &[String],
        args: &[ast::Argument],
        what: &str,
        span: Span,
        run: St,
    ) -> Res<Vec<St>> {
        let args = self.bind_args(names, args, what, span)?;
        let mut pre = Vec::new();
        let mut post = Vec::new();
        for ((dir, p, t), a) in params.iter().zip(args) {
            if matches!(t, Ty::PacketIn | Ty::PacketOut) {
                let out = *t == Ty::PacketOut;
                if !matches!(self.expr(&a.value)?, Val::Packet(o) if o == out) {
                    return err(
                        a.value.span,
                        format!(
                            "expected the {}",
                            if out { "packet_out" } else { "packet_in" }
                        ),
                    );
                }
                continue;
            }
            if matches!(dir, ast::Direction::Out | ast::Direction::InOut)
                && let ExprKind::Slice { .. } = a.value.kind
            {
                self.slice_argument(*dir, p, t, &a.value, &mut pre, &mut post)?;
                continue;
            }
            let v = self.expr(&a.value)?;
            let v = match dir {
                ast::Direction::Out | ast::Direction::InOut => self.hoist_index(v, &mut pre),
                _ => v,
            };
            match dir {
                ast::Direction::In | ast::Direction::None => {
                    self.assign(p, t, v, a.value.span, &mut pre)?;
                }
                ast::Direction::Out | ast::Direction::InOut => {
                    let Val::Place(ap, at) = v else {
                        return err(
                            a.value.span,
                            "an out or inout argument must be a variable or field",
                        );
                    };
                    if &at != t {
                        return err(
                            a.value.span,
                            format!(
                                "type mismatch: expected {}, found {}",
                                ty_name(self, t),
                                ty_name(self, &at)
                            ),
                        );
                    }
                    if *dir == ast::Direction::InOut {
                        self.assign(
                            p,
                            t,
                            Val::Place(ap.clone(), at.clone()),
                            a.value.span,
                            &mut pre,
                        )?;
                    } else {
                        self.zero(p, t, &mut pre);
                    }
                    self.assign(
                        &ap,
                        t,
                        Val::Place(p.clone(), t.clone()),
                        a.value.span,
                        &mut post,
                    )?;
                }
            }
        }
        pre.push(run);
        if post.is_empty() {
            return Ok(pre);
        }
        // copy-out happens even when the callee executes `exit`
        Ok(vec![St::Call(Box::new((pre, post)))])
    }

    /// A slice `x[hi:lo]` as an `out`/`inout` argument: copied in (for
    /// `inout`) from the bits, and back into them after the call, `x`
    /// evaluated once.
    fn slice_argument(
        &mut self,
        dir: ast::Direction,
        p: &Place,
        t: &Ty,
        arg: &ast::Expr,
        pre: &mut Vec<St>,
        post: &mut Vec<St>,
    ) -> Res<()> {
        let (base, hi, lo) = self.slice_lvalue(arg)?;
        let b = self.expr(base)?;
        let Val::Place(bp, bt_) = self.hoist_index(b, pre) else {
            return err(
                arg.span,
                "an out or inout argument must be a variable or field",
            );
        };
        let whole = Val::Place(bp.clone(), bt_.clone());
        let bits = self.slice(whole, hi, lo, arg.span)?;
        let (_, slice_t) = self.rvalue(bits.clone(), arg.span)?;
        if &slice_t != t {
            return err(
                arg.span,
                format!(
                    "type mismatch: expected {}, found {}",
                    ty_name(self, t),
                    ty_name(self, &slice_t)
                ),
            );
        }
        if dir == ast::Direction::InOut {
            self.assign(p, t, bits, arg.span, pre)?;
        } else {
            self.zero(p, t, pre);
        }
        let value = Val::Place(p.clone(), t.clone());
        self.assign_slice(&bp, &bt_, hi, lo, value, arg.span, arg.span, post)
    }

    pub(super) fn call_action(
        &mut self,
        id: u32,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Vec<St>> {
        let info = self.action_params.get(&id).cloned().unwrap_or_default();
        let params: Vec<(ast::Direction, Place, Ty)> = info
            .iter()
            .map(|(d, p, t, _)| {
                let d = if *d == ast::Direction::None {
                    ast::Direction::In
                } else {
                    *d
                };
                (d, p.clone(), t.clone())
            })
            .collect();
        let names: Vec<String> = info.iter().map(|x| x.3.clone()).collect();
        let what = format!("action `{}`", self.actions[id as usize].name);
        self.call_with_params(&params, &names, args, &what, span, St::RunAction(id))
    }
}
