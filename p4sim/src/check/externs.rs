//! Extern and built-in methods and functions: header references, emit and extract arguments, `apply`/`isValid`/..., extern objects' methods, function calls.

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn header_info(&self, t: &Ty) -> Option<&StructInfo> {
        match t {
            Ty::Struct(i) => self
                .structs
                .get(*i as usize)
                .filter(|s| s.kind == SKind::Header),
            _ => None,
        }
    }

    pub(super) fn header_layout(&self, s: &StructInfo) -> (Arc<[FieldLayout]>, u32) {
        let mut fields = Vec::new();
        let mut bits = 0;
        self.lay_out_fields(s, 0, 0, &mut fields, &mut bits);
        (fields.into(), bits)
    }

    /// The wire layout of `s`'s fields from `bits` on, their slots
    /// `n_base`/`w_base` into the header (a struct field's own fields in
    /// their order, as BMv2 flattens them).
    fn lay_out_fields(
        &self,
        s: &StructInfo,
        n_base: u32,
        w_base: u32,
        fields: &mut Vec<FieldLayout>,
        bits: &mut u32,
    ) {
        for f in &s.fields {
            if let Ty::Struct(i) = f.ty
                && let Some(inner) = self.structs.get(i as usize)
            {
                self.lay_out_fields(inner, n_base + f.n_off, w_base + f.w_off, fields, bits);
                continue;
            }
            if let Ty::Stack(e, count) = &f.ty {
                // An array of values: its elements in index order.
                let b = self.scalar_bt(e).unwrap_or(BitType::BIT1);
                let wide = is_wide(b.width());
                let (en, ew) = self.size(e);
                for k in 0..*count {
                    fields.push(FieldLayout {
                        width: b.width(),
                        signed: b.is_signed(),
                        wide,
                        offset: if wide {
                            w_base + f.w_off + k * ew
                        } else {
                            n_base + f.n_off + k * en
                        },
                        at: *bits,
                        varbit_len: None,
                    });
                    *bits += b.width();
                }
                continue;
            }
            if let Ty::Varbit(w) = f.ty {
                // last (declare_struct sees to it); not counted in `bits`
                fields.push(FieldLayout {
                    width: w,
                    signed: false,
                    wide: true,
                    offset: w_base + f.w_off,
                    at: *bits,
                    varbit_len: Some(n_base + f.n_off),
                });
                continue;
            }
            let b = self.scalar_bt(&f.ty).unwrap_or(BitType::BIT1);
            let wide = is_wide(b.width());
            fields.push(FieldLayout {
                width: b.width(),
                signed: b.is_signed(),
                wide,
                offset: if wide {
                    w_base + f.w_off
                } else {
                    n_base + f.n_off
                },
                at: *bits,
                varbit_len: None,
            });
            *bits += b.width();
        }
    }

    /// Stores that make the other members of `p`'s header union invalid
    /// (none when `p` is not a union member).
    fn invalidate_union_siblings(&mut self, p: &Place) -> Vec<St> {
        p.union_siblings
            .iter()
            .map(|sibling| self.store(sibling, &Ty::Bool, Ex::Const(0)))
            .collect()
    }

    /// What `extract(e, ...)` writes: the header (with the stack access of
    /// `stack.next` and `stack.next.member`), after the stores that make
    /// the other members of its header union invalid. Those come first,
    /// while `next` still names the element being extracted into.
    fn extract_target(
        &mut self,
        e: &ast::Expr,
        type_args: &[ast::Type],
        span: Span,
    ) -> Res<(Vec<St>, HeaderRef)> {
        let v = if let ExprKind::DontCare = e.kind {
            // `extract<H>(_)`: into a header of its own, read by nobody
            let Some(t) = type_args.first() else {
                return err(e.span, "extract(_) needs the header type: extract<H>(_)");
            };
            let t = self.resolve_type(t)?;
            Val::Place(self.alloc(&t), t)
        } else {
            self.expr(e)?
        };
        let effect = match &v {
            Val::Place(p, _) => self.invalidate_union_siblings(p),
            _ => Vec::new(),
        };
        let r = match v {
            Val::StackNext(p, Ty::Stack(elem, count)) => {
                let mut r = self.header_ref(&Place::at(0, 0), &elem, span)?;
                r.stack = Some(Box::new(self.next_access(&p, &elem, count)));
                r
            }
            Val::Place(p, t) => match self.union_stack_next(e)? {
                Some(stack) => {
                    let mut r = self.header_ref(&Place::at(p.n, p.w), &t, span)?;
                    r.stack = Some(Box::new(stack));
                    r
                }
                None => self.header_ref(&p, &t, e.span)?,
            },
            _ => return err(e.span, "extract needs a header"),
        };
        Ok((effect, r))
    }

    /// When `e` is `stack.next.member` with `stack` a stack of header
    /// unions: the access to the element at its nextIndex (advanced by an
    /// extract).
    fn union_stack_next(&mut self, e: &ast::Expr) -> Res<Option<StackAccess>> {
        let ExprKind::Member { base, .. } = &e.kind else {
            return Ok(None);
        };
        let ExprKind::Member { member, .. } = &base.kind else {
            return Ok(None);
        };
        if member.as_str() != "next" {
            return Ok(None);
        }
        let Val::StackNext(p, Ty::Stack(elem, count)) = self.expr(base)? else {
            return Ok(None);
        };
        Ok(Some(self.next_access(&p, &elem, count)))
    }

    /// The element at nextIndex of the stack of `count` `elem`s at `p`,
    /// which an extract into it advances.
    fn next_access(&self, p: &Place, elem: &Ty, count: u32) -> StackAccess {
        let (stride_n, stride_w) = self.size(elem);
        StackAccess {
            base_n: p.n,
            base_w: p.w,
            next_index: p.n.saturating_add(stride_n.saturating_mul(count)),
            which: StackWhich::Next,
            stride_n,
            stride_w,
            count,
        }
    }

    pub(super) fn header_ref(&self, p: &Place, t: &Ty, span: Span) -> Res<HeaderRef> {
        let Some(s) = self.header_info(t) else {
            return err(
                span,
                format!("expected a header, found {}", ty_name(self, t)),
            );
        };
        let (fields, bits) = self.header_layout(s);
        let stack = p.dynamic.as_ref().map(|d| {
            Box::new(StackAccess {
                base_n: d.base_n,
                base_w: d.base_w,
                next_index: 0,
                which: StackWhich::Index(d.index.clone()),
                stride_n: d.stride_n,
                stride_w: d.stride_w,
                count: d.count,
            })
        });
        Ok(HeaderRef {
            valid: p.n,
            base_n: p.n,
            base_w: p.w,
            fields,
            bits,
            stack,
        })
    }

    pub(super) fn emit_refs(
        &self,
        p: &Place,
        t: &Ty,
        span: Span,
        out: &mut Vec<HeaderRef>,
    ) -> Res<()> {
        match t {
            Ty::Struct(i) => {
                let s = &self.structs[*i as usize];
                match s.kind {
                    SKind::Header => out.push(self.header_ref(p, t, span)?),
                    SKind::Struct | SKind::Union => {
                        for f in &s.fields {
                            self.emit_refs(&p.offset(f.n_off, f.w_off), &f.ty, span, out)?;
                        }
                    }
                }
                Ok(())
            }
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                for i in 0..*c {
                    self.emit_refs(
                        &p.offset(i.saturating_mul(n), i.saturating_mul(w)),
                        e,
                        span,
                        out,
                    )?;
                }
                Ok(())
            }
            _ => err(
                span,
                format!(
                    "emit needs headers, not a value of type {}",
                    ty_name(self, t)
                ),
            ),
        }
    }

    /// The scalar leaves of a data argument (`{a, b}`, a header, a struct
    /// or a field), each with the validity of its header when it has one.
    pub(super) fn data_leaves(&mut self, e: &ast::Expr, out: &mut Vec<Leaf>) -> Res<()> {
        if let ExprKind::List { items, .. } = &e.kind {
            for i in items {
                self.data_leaves(i, out)?;
            }
            return Ok(());
        }
        let container_valid = match &e.kind {
            ExprKind::Member { base, .. } => match self.expr(base)? {
                Val::Place(bp, bt_) if self.header_info(&bt_).is_some() => {
                    Some(self.load(&bp, &Ty::Bool))
                }
                _ => None,
            },
            _ => None,
        };
        let v = self.expr(e)?;
        self.val_leaves(v, container_valid, e.span, out)
    }

    pub(super) fn val_leaves(
        &mut self,
        v: Val,
        valid: Option<Ex>,
        span: Span,
        out: &mut Vec<Leaf>,
    ) -> Res<()> {
        match v {
            Val::List(items) => {
                for i in items {
                    self.val_leaves(i, None, span, out)?;
                }
                Ok(())
            }
            Val::Place(p, t) if self.scalar_bt(&t).is_none() => {
                self.compound_leaves(&p, &t, valid, out);
                Ok(())
            }
            v => {
                let (ex, t) = self.rvalue(v, span)?;
                let ty = self.scalar_bt(&t).unwrap_or(BitType::BIT1);
                out.push(Leaf {
                    ex,
                    ty,
                    valid,
                    varbit_len: None,
                });
                Ok(())
            }
        }
    }

    pub(super) fn compound_leaves(
        &self,
        p: &Place,
        t: &Ty,
        valid: Option<Ex>,
        out: &mut Vec<Leaf>,
    ) {
        match t {
            Ty::Struct(i) => {
                let s = &self.structs[*i as usize];
                let valid = if s.kind == SKind::Header {
                    Some(self.load(p, &Ty::Bool))
                } else {
                    valid
                };
                for f in &s.fields {
                    self.compound_leaves(&p.offset(f.n_off, f.w_off), &f.ty, valid.clone(), out);
                }
            }
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                for i in 0..*c {
                    self.compound_leaves(
                        &p.offset(i.saturating_mul(n), i.saturating_mul(w)),
                        e,
                        valid.clone(),
                        out,
                    );
                }
            }
            Ty::Tuple(ts) => {
                let (mut n, mut w) = (0, 0);
                for t in ts {
                    self.compound_leaves(&p.offset(n, w), t, valid.clone(), out);
                    let (a, b) = self.size(t);
                    n = n.saturating_add(a);
                    w = w.saturating_add(b);
                }
            }
            Ty::Varbit(w) => out.push(Leaf {
                ex: self.load(p, t),
                ty: bt(*w, false),
                valid,
                varbit_len: Some(self.load(p, &Ty::Bit(32))),
            }),
            t => {
                if let Some(b) = self.scalar_bt(t) {
                    out.push(Leaf {
                        ex: self.load(p, t),
                        ty: b,
                        valid,
                        varbit_len: None,
                    });
                }
            }
        }
    }

    /// An `in` argument of an extern taken as an unsigned index (narrow).
    pub(super) fn index_arg(&mut self, v: Val, span: Span) -> Res<Ex> {
        match v {
            Val::Int(i) if i >= 0 => Ok(Ex::Const(i as u64)),
            Val::Int(_) => err(span, "an index cannot be negative"),
            v => {
                let (ex, t) = self.rvalue(v, span)?;
                match t {
                    Ty::Bit(w) if w <= 64 => Ok(ex),
                    Ty::Bit(_) => Ok(Ex::ToNarrow(Box::new(ex))),
                    _ => err(
                        span,
                        format!("an index must be bit<W>, not {}", ty_name(self, &t)),
                    ),
                }
            }
        }
    }

    /// A typed `in` argument of a generic extern parameter: its expression
    /// and type (unsized constants become bit<64>... or the given default).
    pub(super) fn generic_arg(
        &mut self,
        v: Val,
        default: BitType,
        span: Span,
    ) -> Res<(Ex, BitType)> {
        match v {
            Val::Int(i) => Ok((const_ex(i, default), default)),
            v => {
                let (ex, t) = self.rvalue(v, span)?;
                match self.scalar_bt(&t) {
                    Some(b) => Ok((ex, b)),
                    None => err(span, "expected a scalar value"),
                }
            }
        }
    }

    pub(super) fn out_target(&mut self, v: Val, span: Span) -> Res<(Target, Ty)> {
        match v {
            Val::Place(p, t) if self.scalar_bt(&t).is_some() => Ok((self.target(&p, &t), t)),
            _ => err(span, "an out argument must be a scalar variable or field"),
        }
    }

    pub(super) fn enum_const_name(&self, v: &Val, enum_name: &str, span: Span) -> Res<String> {
        if let Val::Scalar(Ex::Const(c), Ty::Enum(i)) = v {
            let e = &self.enums[*i as usize];
            if e.name.as_ref() == enum_name
                && let Some((n, _)) = e.members.iter().find(|(_, x)| x == c)
            {
                return Ok(n.to_string());
            }
        }
        err(span, format!("expected a constant {enum_name} value"))
    }

    pub(super) fn nargs(
        &self,
        args: &[ast::Argument],
        n: usize,
        what: &str,
        span: Span,
    ) -> Res<()> {
        if args.len() != n {
            return err(
                span,
                format!("{what} takes {n} arguments, {} given", args.len()),
            );
        }
        Ok(())
    }

    pub(super) fn method(
        &mut self,
        base: Val,
        m: &ast::Ident,
        type_args: &[ast::Type],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        let name = m.as_str();
        match base {
            Val::Place(p, Ty::Struct(i)) => {
                let s = self.structs[i as usize].clone();
                if name.ends_with("SizeInBits") || name.ends_with("SizeInBytes") {
                    return self.size_method(&Ty::Struct(i), name, span);
                }
                self.nargs(args, 0, name, span)?;
                match (s.kind, name) {
                    (SKind::Header, "isValid") => {
                        Ok(Val::Scalar(self.load(&p, &Ty::Bool), Ty::Bool))
                    }
                    (SKind::Header, "setValid") => {
                        let mut effect = self.invalidate_union_siblings(&p);
                        effect.push(self.store(&p, &Ty::Bool, Ex::Const(1)));
                        Ok(Val::Effect(effect))
                    }
                    (SKind::Header, "setInvalid") => {
                        Ok(Val::Effect(vec![self.store(&p, &Ty::Bool, Ex::Const(0))]))
                    }
                    (SKind::Union, "isValid") => {
                        let mut acc = Ex::Const(0);
                        for f in &s.fields {
                            let v = self.load(&p.offset(f.n_off, f.w_off), &Ty::Bool);
                            acc = Ex::Bin(NOp::LOr, 1, Box::new((acc, v)));
                        }
                        Ok(Val::Scalar(acc, Ty::Bool))
                    }
                    _ => err(m.span, format!("no method `{name}`")),
                }
            }
            Val::Place(p, Ty::Stack(e, count)) => {
                self.nargs(args, 1, name, span)?;
                let by = self.const_u32(&args[0].value, "the count of push_front/pop_front")?;
                let (en, ew) = self.size(&e);
                if self.header_info(&e).is_none() {
                    return unsupported(span, "push_front/pop_front on stacks of header unions");
                }
                let by = i64::from(by);
                Ok(Val::Effect(vec![St::StackShift(Box::new(StackShift {
                    base_n: p.n,
                    base_w: p.w,
                    stride_n: en,
                    stride_w: ew,
                    count,
                    next_index: p.n.saturating_add(en.saturating_mul(count)),
                    valid_offset: 0,
                    by: if name == "push_front" { by } else { -by },
                }))]))
            }
            Val::Type(t) => self.size_method(&t, name, span),
            Val::Table(t) => {
                if name != "apply" {
                    return err(m.span, format!("tables have no method `{name}`"));
                }
                self.nargs(args, 0, "apply", span)?;
                Ok(Val::TableResult(t))
            }
            Val::Control(c) => {
                if name != "apply" {
                    return err(m.span, format!("controls have no method `{name}`"));
                }
                let ci = self.controls[c as usize].clone();
                let params: Vec<(ast::Direction, Place, Ty)> = ci
                    .params
                    .iter()
                    .map(|(d, p, t)| {
                        (
                            if *d == ast::Direction::None {
                                ast::Direction::In
                            } else {
                                *d
                            },
                            p.clone(),
                            t.clone(),
                        )
                    })
                    .collect();
                let sts = self.call_with_params(
                    &params,
                    &ci.names,
                    args,
                    "apply",
                    span,
                    St::RunBody(ci.body),
                )?;
                Ok(Val::Effect(sts))
            }
            Val::Extern(inst) => self.extern_method(inst, m, args, span),
            Val::Packet(false) => match name {
                "extract" => {
                    if self.block_kind != BlockKind::Parser {
                        return err(span, "extract can only be called in a parser");
                    }
                    if args.len() != 2 {
                        self.nargs(args, 1, "extract", span)?;
                    }
                    let (mut effect, r) = self.extract_target(&args[0].value, type_args, span)?;
                    let has_varbit = r.fields.iter().any(|f| f.varbit_len.is_some());
                    if args.len() == 2 {
                        if !has_varbit {
                            return err(
                                args[0].value.span,
                                "extract with a length needs a header with a varbit field",
                            );
                        }
                        let bits = self.expr(&args[1].value)?;
                        let bits = self.coerce(bits, &Ty::Bit(32), args[1].value.span)?;
                        effect.push(St::ExtractVar(Box::new(r), bits));
                        return Ok(Val::Effect(effect));
                    }
                    if has_varbit {
                        return err(
                            span,
                            "a header with a varbit field is extracted with its length: \
                             extract(hdr, bits)",
                        );
                    }
                    effect.push(St::Extract(Box::new(r)));
                    Ok(Val::Effect(effect))
                }
                "lookahead" => {
                    self.nargs(args, 0, "lookahead", span)?;
                    let Some(t) = type_args.first() else {
                        return err(span, "lookahead needs a type argument: lookahead<T>()");
                    };
                    let t = self.resolve_type(t)?;
                    match t {
                        Ty::Bit(w) if !is_wide(w) => Ok(Val::Scalar(Ex::Lookahead(w), t)),
                        Ty::Bit(w) => Ok(Val::Scalar(Ex::LookaheadW(bt(w, false)), t)),
                        Ty::Int(_) | Ty::Bool | Ty::Struct(_) => match self.wire_bits(&t) {
                            Some(total) if total > 0 => Ok(self.lookahead_value(&t, 0, total)),
                            _ => unsupported(
                                span,
                                format!(
                                    "lookahead of type {} (a header union, or a field that is \
                                     not bit<W>, int<W>, bool or a header or struct of them)",
                                    ty_name(self, &t)
                                ),
                            ),
                        },
                        _ => unsupported(span, format!("lookahead of type {}", ty_name(self, &t))),
                    }
                }
                "advance" => {
                    self.nargs(args, 1, "advance", span)?;
                    let v = self.expr(&args[0].value)?;
                    let ex = self.index_arg(v, args[0].value.span)?;
                    Ok(Val::Effect(vec![St::Advance(ex)]))
                }
                "length" => {
                    self.nargs(args, 0, "length", span)?;
                    Ok(Val::Scalar(Ex::PacketLength, Ty::Bit(32)))
                }
                _ => err(m.span, format!("packet_in has no method `{name}`")),
            },
            Val::Packet(true) => {
                if name != "emit" {
                    return err(m.span, format!("packet_out has no method `{name}`"));
                }
                self.nargs(args, 1, "emit", span)?;
                let v = self.expr(&args[0].value)?;
                let Val::Place(p, t) = v else {
                    return err(
                        args[0].value.span,
                        "emit needs a header or a struct of headers",
                    );
                };
                let mut refs = Vec::new();
                self.emit_refs(&p, &t, args[0].value.span, &mut refs)?;
                Ok(Val::Effect(vec![St::Emit(refs)]))
            }
            _ => err(m.span, format!("no method `{name}` here")),
        }
    }

    /// The bits a value of type `t` takes on the wire: a struct's fields
    /// summed, a varbit's maximum width with `max`, else 0.
    fn size_in_bits(&self, t: &Ty, max: bool) -> u64 {
        match t {
            Ty::Struct(i) => self.structs[*i as usize]
                .fields
                .iter()
                .map(|f| self.size_in_bits(&f.ty, max))
                .sum(),
            Ty::Varbit(w) if max => u64::from(*w),
            Ty::Varbit(_) => 0,
            t => u64::from(self.scalar_bt(t).map_or(0, |b| b.width())),
        }
    }

    pub(super) fn size_method(&mut self, t: &Ty, name: &str, span: Span) -> Res<Val> {
        let bits = match t {
            Ty::Struct(_) => self.size_in_bits(t, name.starts_with("max")),
            t => match self.scalar_bt(t) {
                Some(b) => u64::from(b.width()),
                None => return unsupported(span, format!("{name} of this type")),
            },
        };
        let v = if name.ends_with("Bytes") {
            bits.div_ceil(8)
        } else {
            bits
        };
        Ok(Val::Int(i128::from(v)))
    }

    pub(super) fn extern_method(
        &mut self,
        inst: ExternInst,
        m: &ast::Ident,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        if self.is_psa()
            && let Some(v) = self.psa_method(&inst, m, args, span)?
        {
            return Ok(v);
        }
        if let Some(v) = self.tna_method(&inst, m, args, span)? {
            return Ok(v);
        }
        let name = m.as_str();
        let a = self.arg_vals(args)?;
        let call = match (inst, name) {
            (ExternInst::Register(r), "read") => {
                self.nargs(args, 2, "register.read", span)?;
                let mut a = a.into_iter();
                let (dv, ds) = a.next().unwrap_or((Val::DontCare, span));
                let (iv, is) = a.next().unwrap_or((Val::DontCare, span));
                let (dst, dt) = self.out_target(dv, ds)?;
                let ty = self.registers[r as usize].ty;
                if self.scalar_bt(&dt) != Some(ty) && !(dt == Ty::Bool && ty == BitType::BIT1) {
                    return err(
                        ds,
                        format!(
                            "register holds {ty}, but the result has type {}",
                            ty_name(self, &dt)
                        ),
                    );
                }
                let index = self.index_arg(iv, is)?;
                ExternCall::RegisterRead { reg: r, dst, index }
            }
            (ExternInst::Register(r), "write") => {
                self.nargs(args, 2, "register.write", span)?;
                let mut a = a.into_iter();
                let (iv, is) = a.next().unwrap_or((Val::DontCare, span));
                let (vv, vs) = a.next().unwrap_or((Val::DontCare, span));
                let index = self.index_arg(iv, is)?;
                let ty = self.registers[r as usize].ty;
                let t = if ty.is_signed() {
                    Ty::Int(ty.width())
                } else {
                    Ty::Bit(ty.width())
                };
                let vv = match vv {
                    Val::Place(p, Ty::Bool) if ty == BitType::BIT1 => {
                        Val::Scalar(self.load(&p, &Ty::Bool), Ty::Bit(1))
                    }
                    v => v,
                };
                let value = self.coerce(vv, &t, vs)?;
                ExternCall::RegisterWrite {
                    reg: r,
                    index,
                    value,
                }
            }
            (ExternInst::Counter(c), "count") => {
                self.nargs(args, 1, "counter.count", span)?;
                let (iv, is) = a.into_iter().next().unwrap_or((Val::DontCare, span));
                let index = self.index_arg(iv, is)?;
                self.check_tofino_index(&index, tofino::Indirect::Counter(c), span)?;
                ExternCall::Count { counter: c, index }
            }
            (ExternInst::DirectCounter(_), "count") => {
                self.nargs(args, 0, "direct_counter.count", span)?;
                return Ok(Val::Effect(Vec::new()));
            }
            (ExternInst::Meter(mi), "execute_meter") => {
                self.nargs(args, 2, "meter.execute_meter", span)?;
                let mut a = a.into_iter();
                let (iv, is) = a.next().unwrap_or((Val::DontCare, span));
                let (dv, ds) = a.next().unwrap_or((Val::DontCare, span));
                let index = self.index_arg(iv, is)?;
                let (dst, _) = self.out_target(dv, ds)?;
                ExternCall::ExecuteMeter {
                    meter: mi,
                    index,
                    dst,
                }
            }
            (ExternInst::DirectMeter(mi), "read") => {
                self.nargs(args, 1, "direct_meter.read", span)?;
                let (dv, ds) = a.into_iter().next().unwrap_or((Val::DontCare, span));
                let (dst, _) = self.out_target(dv, ds)?;
                ExternCall::DirectMeterRead { meter: mi, dst }
            }
            _ => return err(m.span, format!("this extern has no method `{name}`")),
        };
        Ok(Val::Effect(vec![St::Extern(Box::new(call))]))
    }

    pub(super) fn call_function(
        &mut self,
        name: &Arc<str>,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        let decl: Option<&'p ast::FunctionDecl> = self.globals.get(name.as_ref()).and_then(|ds| {
            ds.iter().copied().find_map(|d| match d {
                Declaration::Function(f) => Some(f),
                _ => None,
            })
        });
        let Some(decl) = decl else {
            return err(span, format!("`{name}` is not a function"));
        };
        let info = match self.functions.get(name) {
            Some(i) => i.clone(),
            None => {
                if self.depth > 300 {
                    return err(span, "recursive function calls are not allowed");
                }
                if !decl.type_params.is_empty() {
                    return unsupported(decl.span, "generic functions");
                }
                let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
                let saved_kind = self.block_kind;
                let saved_loops = std::mem::take(&mut self.loop_depth);
                let saved_ret = self.ret_place.take();
                self.depth += 50;
                let r = (|| -> Res<FunctionInfo> {
                    let ret_t = self.resolve_type(&decl.return_type)?;
                    let ret = if ret_t == Ty::Void {
                        None
                    } else if self.scalar_bt(&ret_t).is_some() || matches!(ret_t, Ty::Struct(_)) {
                        Some((self.alloc(&ret_t), ret_t))
                    } else {
                        return unsupported(
                            decl.return_type.span,
                            "functions returning stacks, tuples or this type",
                        );
                    };
                    let mut params = Vec::new();
                    for p in &decl.params {
                        let t = self.resolve_type(&p.ty)?;
                        let pl = self.alloc(&t);
                        self.bind(&p.name, Val::Place(pl.clone(), t.clone()))?;
                        let d = if p.direction == ast::Direction::None {
                            ast::Direction::In
                        } else {
                            p.direction
                        };
                        params.push((d, pl, t));
                    }
                    self.block_kind = BlockKind::Function;
                    self.ret_place = ret.clone();
                    let mut body = Vec::new();
                    // the return value starts at zero on each call (a path
                    // without `return` reads no earlier call's or packet's)
                    if let Some((p, t)) = &ret {
                        self.zero(p, t, &mut body);
                    }
                    self.block(&decl.body, &mut body)?;
                    self.bodies.push(body);
                    Ok(FunctionInfo {
                        body: self.bodies.len() as u32 - 1,
                        params,
                        ret,
                    })
                })();
                self.depth -= 50;
                self.scopes = saved_scopes;
                self.block_kind = saved_kind;
                self.loop_depth = saved_loops;
                self.ret_place = saved_ret;
                let info = r?;
                self.functions.insert(name.clone(), info.clone());
                info
            }
        };
        let names: Vec<String> = decl.params.iter().map(|p| p.name.to_string()).collect();
        let sts = self.call_with_params(
            &info.params,
            &names,
            args,
            &format!("function `{name}`"),
            span,
            St::RunBody(info.body),
        )?;
        match info.ret {
            None => Ok(Val::Effect(sts)),
            Some((p, t)) if self.scalar_bt(&t).is_none() => Ok(Val::Returned(sts, p, t)),
            Some((p, t)) => {
                let ex = self.load(&p, &t);
                let wide = self.size(&t) == (0, 1);
                Ok(Val::Scalar(
                    if wide {
                        Ex::SeqW(Box::new((sts, ex)))
                    } else {
                        Ex::Seq(Box::new((sts, ex)))
                    },
                    t,
                ))
            }
        }
    }

    pub(super) fn extern_fn(
        &mut self,
        name: &str,
        _type_args: &[ast::Type],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        if self.is_psa()
            && let Some(v) = self.psa_predicate(name, args, span)?
        {
            return Ok(v);
        }
        let eff = |c: ExternCall| Ok(Val::Effect(vec![St::Extern(Box::new(c))]));
        match name {
            "mark_to_drop" => {
                let (p, t) = if args.is_empty() {
                    match self.sm_place.clone() {
                        Some(x) => x,
                        None => return err(span, "mark_to_drop() needs standard_metadata"),
                    }
                } else {
                    self.nargs(args, 1, "mark_to_drop", span)?;
                    match self.expr(&args[0].value)? {
                        Val::Place(p, t) => (p, t),
                        _ => {
                            return err(args[0].value.span, "mark_to_drop needs standard_metadata");
                        }
                    }
                };
                let spec = self.member(
                    Val::Place(p.clone(), t.clone()),
                    &ident("egress_spec", span),
                    span,
                )?;
                let grp = self.member(Val::Place(p, t), &ident("mcast_grp", span), span)?;
                let mut out = Vec::new();
                self.assign_to(spec, Val::Int(511), span, span, &mut out)?;
                self.assign_to(grp, Val::Int(0), span, span, &mut out)?;
                Ok(Val::Effect(out))
            }
            "hash" => {
                self.nargs(args, 5, "hash", span)?;
                let dv = self.expr(&args[0].value)?;
                let (dst, _) = self.out_target(dv, args[0].value.span)?;
                let av = self.expr(&args[1].value)?;
                let algo_name = self.enum_const_name(&av, "HashAlgorithm", args[1].value.span)?;
                let algo = HashAlgorithm::from_name(&algo_name).map_err(|e| {
                    Error::new(ErrorKind::Semantic(e.to_string()), args[1].value.span)
                })?;
                if algo == HashAlgorithm::Random {
                    return unsupported(args[1].value.span, "HashAlgorithm.random in hash()");
                }
                let bv = self.expr(&args[2].value)?;
                let (base, base_ty) = self.generic_arg(bv, bt(64, false), args[2].value.span)?;
                let mut data = Vec::new();
                self.data_leaves(&args[3].value, &mut data)?;
                let mv = self.expr(&args[4].value)?;
                let (max, max_ty) = self.generic_arg(mv, bt(64, false), args[4].value.span)?;
                eff(ExternCall::Hash {
                    algo,
                    dst,
                    base,
                    base_ty,
                    data,
                    max,
                    max_ty,
                })
            }
            "random" => {
                self.nargs(args, 3, "random", span)?;
                let dv = self.expr(&args[0].value)?;
                let (dst, t) = self.out_target(dv, args[0].value.span)?;
                if self.scalar_bt(&t).is_some_and(|b| is_wide(b.width())) {
                    return unsupported(args[0].value.span, "random values wider than 64 bits");
                }
                let lo = self.expr(&args[1].value)?;
                let lo = self.coerce(lo, &t, args[1].value.span)?;
                let hi = self.expr(&args[2].value)?;
                let hi = self.coerce(hi, &t, args[2].value.span)?;
                eff(ExternCall::Random { dst, lo, hi })
            }
            "digest" => {
                self.nargs(args, 2, "digest", span)?;
                let rv = self.expr(&args[0].value)?;
                let receiver = self.coerce(rv, &Ty::Bit(32), args[0].value.span)?;
                let mut data = Vec::new();
                self.data_leaves(&args[1].value, &mut data)?;
                for l in &mut data {
                    l.valid = None;
                }
                eff(ExternCall::Digest { receiver, data })
            }
            "verify" => {
                if self.block_kind != BlockKind::Parser {
                    return err(span, "verify can only be called in a parser");
                }
                self.nargs(args, 2, "verify", span)?;
                let c = self.expr(&args[0].value)?;
                let c = self.coerce(c, &Ty::Bool, args[0].value.span)?;
                let e = self.expr(&args[1].value)?;
                let e = self.coerce(e, &Ty::Error, args[1].value.span)?;
                Ok(Val::Effect(vec![St::Verify(c, e)]))
            }
            "verify_checksum"
            | "verify_checksum_with_payload"
            | "update_checksum"
            | "update_checksum_with_payload" => {
                self.nargs(args, 4, name, span)?;
                let c = self.expr(&args[0].value)?;
                let cond = self.coerce(c, &Ty::Bool, args[0].value.span)?;
                let mut data = Vec::new();
                self.data_leaves(&args[1].value, &mut data)?;
                let av = self.expr(&args[3].value)?;
                let algo_name = self.enum_const_name(&av, "HashAlgorithm", args[3].value.span)?;
                let algo = HashAlgorithm::from_name(&algo_name).map_err(|e| {
                    Error::new(ErrorKind::Semantic(e.to_string()), args[3].value.span)
                })?;
                if algo == HashAlgorithm::Random {
                    return unsupported(args[3].value.span, "HashAlgorithm.random in a checksum");
                }
                let with_payload = name.ends_with("_with_payload");
                let cv = self.expr(&args[2].value)?;
                if name.starts_with("verify") {
                    let (checksum, _) = self.rvalue(cv, args[2].value.span)?;
                    let checksum = match checksum {
                        e @ (Ex::LoadW(_) | Ex::LoadDynW(..) | Ex::ConstW(_)) => {
                            Ex::ToNarrow(Box::new(e))
                        }
                        e => e,
                    };
                    eff(ExternCall::VerifyChecksum {
                        cond,
                        data,
                        checksum,
                        algo,
                        with_payload,
                    })
                } else {
                    let (dst, _) = self.out_target(cv, args[2].value.span)?;
                    eff(ExternCall::UpdateChecksum {
                        cond,
                        data,
                        dst,
                        algo,
                        with_payload,
                    })
                }
            }
            "clone" | "clone_preserving_field_list" => {
                let n = if name == "clone" { 2 } else { 3 };
                self.nargs(args, n, name, span)?;
                let tv = self.expr(&args[0].value)?;
                let kind = self.enum_const_name(&tv, "CloneType", args[0].value.span)?;
                let sv = self.expr(&args[1].value)?;
                let session = self.coerce(sv, &Ty::Bit(32), args[1].value.span)?;
                let field_list = if n == 3 {
                    Some(
                        self.const_u32(&args[2].value, "a field list index")?
                            .min(255) as u8,
                    )
                } else {
                    None
                };
                eff(ExternCall::Clone {
                    e2e: kind == "E2E",
                    session,
                    field_list,
                })
            }
            "resubmit_preserving_field_list" | "recirculate_preserving_field_list" => {
                self.nargs(args, 1, name, span)?;
                let i = self
                    .const_u32(&args[0].value, "a field list index")?
                    .min(255) as u8;
                eff(if name.starts_with("resubmit") {
                    ExternCall::Resubmit(i)
                } else {
                    ExternCall::Recirculate(i)
                })
            }
            "clone3" | "resubmit" | "recirculate" => unsupported(
                span,
                format!(
                    "the deprecated `{name}(data)`: use `{}_preserving_field_list`",
                    if name == "clone3" { "clone" } else { name }
                ),
            ),
            "truncate" => {
                self.nargs(args, 1, name, span)?;
                let v = self.expr(&args[0].value)?;
                let len = self.coerce(v, &Ty::Bit(32), args[0].value.span)?;
                eff(ExternCall::Truncate(len))
            }
            "assert" | "assume" => {
                self.nargs(args, 1, name, span)?;
                let v = self.expr(&args[0].value)?;
                let cond = self.coerce(v, &Ty::Bool, args[0].value.span)?;
                let location = format!(
                    "{}:{}:{}",
                    self.program.sources.name(span.file),
                    span.line,
                    span.col
                );
                eff(ExternCall::Assert { cond, location })
            }
            "log_msg" => {
                if args.is_empty() || args.len() > 2 {
                    return err(
                        span,
                        format!("log_msg takes 1 or 2 arguments, {} given", args.len()),
                    );
                }
                let Val::Str(message) = self.expr(&args[0].value)? else {
                    return err(args[0].value.span, "log_msg needs a string literal");
                };
                let mut data = Vec::new();
                if let Some(a) = args.get(1) {
                    self.data_leaves(&a.value, &mut data)?;
                    for l in &mut data {
                        l.valid = None;
                    }
                }
                eff(ExternCall::Log { message, data })
            }
            "static_assert" => {
                if args.is_empty() || args.len() > 2 {
                    return err(span, "static_assert takes 1 or 2 arguments");
                }
                let v = self.expr(&args[0].value)?;
                let c = self.coerce(v, &Ty::Bool, args[0].value.span)?;
                match c {
                    Ex::Const(1) => Ok(Val::Scalar(Ex::Const(1), Ty::Bool)),
                    Ex::Const(_) => {
                        let msg = match args.get(1).map(|a| self.expr(&a.value)) {
                            Some(Ok(Val::Str(s))) => s,
                            _ => "static assertion failed".into(),
                        };
                        err(span, msg)
                    }
                    _ => err(
                        args[0].value.span,
                        "static_assert needs a compile-time constant",
                    ),
                }
            }
            other => self.declared_extern_fn(other, args, span),
        }
    }

    /// A call of an extern function the program declares itself: its
    /// parameters must be bit<W>, int<W> or bool and it returns nothing;
    /// the switch runs the implementation registered under its name.
    fn declared_extern_fn(&mut self, name: &str, args: &[ast::Argument], span: Span) -> Res<Val> {
        let proto = self.globals.get(name).and_then(|ds| {
            ds.iter().find_map(|d| match d {
                Declaration::ExternFunction(p) => Some(p.clone()),
                _ => None,
            })
        });
        let Some(proto) = proto else {
            return unsupported(span, format!("the extern function `{name}`"));
        };
        if !proto.type_params.is_empty() || self.resolve_type(&proto.return_type)? != Ty::Void {
            return unsupported(
                proto.span,
                format!(
                    "the extern function `{name}`: p4sim runs extern functions of bit<W>, \
                     int<W> and bool parameters that return nothing"
                ),
            );
        }
        self.nargs(args, proto.params.len(), name, span)?;
        let mut call_args = Vec::new();
        let mut outs = Vec::new();
        for (i, (param, arg)) in proto.params.iter().zip(args).enumerate() {
            let t = self.resolve_type(&param.ty)?;
            let Some(ty) = self
                .scalar_bt(&t)
                .filter(|_| !matches!(t, Ty::Enum(_) | Ty::Error))
            else {
                return unsupported(
                    param.span,
                    format!(
                        "a parameter of type {} in an extern function",
                        ty_name(self, &t)
                    ),
                );
            };
            let v = self.expr(&arg.value)?;
            match param.direction {
                ast::Direction::In | ast::Direction::None => {
                    call_args.push((ty, self.coerce(v, &t, arg.value.span)?));
                }
                ast::Direction::Out | ast::Direction::InOut => {
                    let Val::Place(p, pt) = v else {
                        return err(
                            arg.value.span,
                            "an out or inout argument must be a variable or field",
                        );
                    };
                    if pt != t {
                        return err(
                            arg.value.span,
                            format!(
                                "type mismatch: expected {}, found {}",
                                ty_name(self, &t),
                                ty_name(self, &pt)
                            ),
                        );
                    }
                    let entry = if param.direction == ast::Direction::InOut {
                        self.load(&p, &t)
                    } else {
                        Ex::Const(0)
                    };
                    call_args.push((ty, entry));
                    outs.push((i, self.target(&p, &t)));
                }
            }
        }
        Ok(Val::Effect(vec![St::Extern(Box::new(
            ExternCall::Function {
                name: name.into(),
                args: call_args,
                outs,
            },
        ))]))
    }
}
