//! Types: sizes and storage of values, type resolution, struct and enum declarations, constant values.

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn scalar_bt(&self, t: &Ty) -> Option<BitType> {
        match t {
            Ty::Bool => Some(BitType::BIT1),
            Ty::Bit(w) => Some(bt(*w, false)),
            Ty::Int(w) => Some(bt(*w, true)),
            Ty::Error => Some(bt(ERROR_WIDTH, false)),
            Ty::Enum(i) => Some(
                self.enums
                    .get(*i as usize)
                    .and_then(|e| e.underlying)
                    .unwrap_or(bt(ENUM_WIDTH, false)),
            ),
            _ => None,
        }
    }

    pub(super) fn size(&self, t: &Ty) -> (u32, u32) {
        match t {
            Ty::Struct(i) => self.structs.get(*i as usize).map_or((0, 0), |s| (s.n, s.w)),
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                (n.saturating_mul(*c).saturating_add(1), w.saturating_mul(*c))
            }
            Ty::Varbit(_) => (1, 1),
            Ty::Tuple(ts) => ts.iter().fold((0u32, 0u32), |(n, w), t| {
                let (a, b) = self.size(t);
                (n.saturating_add(a), w.saturating_add(b))
            }),
            t => match self.scalar_bt(t) {
                Some(b) if is_wide(b.width()) => (0, 1),
                Some(_) => (1, 0),
                None => (0, 0),
            },
        }
    }

    pub(super) fn alloc(&mut self, t: &Ty) -> Place {
        let (n, w) = self.size(t);
        if self.n_slots.saturating_add(n) > MAX_SLOTS || self.w_init.len() as u32 + w > MAX_SLOTS {
            // refused in `run`; keep allocating nothing more
            self.too_large = true;
            return Place::at(0, 0);
        }
        let p = Place::at(self.n_slots, self.w_init.len() as u32);
        let mut leaves = Vec::new();
        self.leaves(&p, t, &mut leaves);
        let (n, _) = self.size(t);
        self.n_slots += n;
        for (lp, lt) in leaves {
            let wide = match lt {
                Ty::Varbit(w) => Some(bt(w, false)),
                lt => self.scalar_bt(&lt).filter(|b| is_wide(b.width())),
            };
            if let Some(b) = wide {
                debug_assert_eq!(lp.w as usize, self.w_init.len());
                self.w_init.push(Bits::zero(b));
            }
        }
        p
    }

    /// Every scalar leaf of a value of type `t` stored at `p` (headers:
    /// the validity bit first; a varbit: its length as a `bit<32>`, then
    /// its value as the [`Ty::Varbit`] itself, in the wide frame).
    pub(super) fn leaves(&self, p: &Place, t: &Ty, out: &mut Vec<(Place, Ty)>) {
        match t {
            Ty::Struct(i) => {
                let Some(s) = self.structs.get(*i as usize) else {
                    return;
                };
                if s.kind == SKind::Header {
                    out.push((p.clone(), Ty::Bool));
                }
                for f in &s.fields {
                    self.leaves(&p.offset(f.n_off, f.w_off), &f.ty, out);
                }
            }
            Ty::Stack(e, c) => {
                let (n, w) = self.size(e);
                for i in 0..*c {
                    self.leaves(&p.offset(i.saturating_mul(n), i.saturating_mul(w)), e, out);
                }
                out.push((
                    p.offset(n.saturating_mul(*c), w.saturating_mul(*c)),
                    Ty::Bit(32),
                ));
            }
            Ty::Tuple(ts) => {
                let (mut n, mut w) = (0, 0);
                for t in ts {
                    self.leaves(&p.offset(n, w), t, out);
                    let (a, b) = self.size(t);
                    n = n.saturating_add(a);
                    w = w.saturating_add(b);
                }
            }
            Ty::Varbit(_) => {
                out.push((p.clone(), Ty::Bit(32)));
                out.push((p.clone(), t.clone()));
            }
            t => {
                if self.scalar_bt(t).is_some() {
                    out.push((p.clone(), t.clone()));
                }
            }
        }
    }

    /// Bits `t` occupies on the wire, for `lookahead<T>`: scalars, and
    /// headers and structs made of them (`None` for anything else).
    pub(super) fn wire_bits(&self, t: &Ty) -> Option<u32> {
        match t {
            Ty::Bool => Some(1),
            Ty::Bit(w) | Ty::Int(w) => Some(*w),
            Ty::Struct(i) => {
                let s = self.structs.get(*i as usize)?;
                if s.kind == SKind::Union {
                    return None;
                }
                s.fields
                    .iter()
                    .try_fold(0u32, |acc, f| acc.checked_add(self.wire_bits(&f.ty)?))
            }
            _ => None,
        }
    }

    /// The value of `packet.lookahead<T>()` for the part of `t` that
    /// starts `at` bits into a lookahead of `total` bits: each field reads
    /// its bits of the same lookahead (which does not advance); a header
    /// comes back valid. `t` is one [`Compiler::wire_bits`] accepts.
    pub(super) fn lookahead_value(&self, t: &Ty, at: u32, total: u32) -> Val {
        match t {
            Ty::Struct(i) => {
                let mut items = Vec::new();
                let mut off = at;
                if let Some(s) = self.structs.get(*i as usize) {
                    for f in &s.fields {
                        let w = self.wire_bits(&f.ty).unwrap_or(0);
                        items.push((f.name.clone(), self.lookahead_value(&f.ty, off, total)));
                        off = off.saturating_add(w);
                    }
                }
                Val::StructInit(items)
            }
            _ => {
                let w = self.wire_bits(t).unwrap_or(1).max(1);
                let lo = total.saturating_sub(at).saturating_sub(w);
                let hi = lo + w - 1;
                let ex = if !is_wide(total) {
                    Ex::Slice(hi, lo, Box::new(Ex::Lookahead(total)))
                } else {
                    let wide = Ex::SliceW(hi, lo, Box::new(Ex::LookaheadW(bt(total, false))));
                    if is_wide(w) {
                        wide
                    } else {
                        Ex::ToNarrow(Box::new(wide))
                    }
                };
                Val::Scalar(ex, t.clone())
            }
        }
    }

    pub(super) fn const_u32(&mut self, e: &ast::Expr, what: &str) -> Res<u32> {
        let v = self.expr(e)?;
        match self.const_value(&v) {
            Some(v) if v >= 0 && v <= i128::from(u32::MAX) => Ok(v as u32),
            Some(_) => err(e.span, format!("{what} is out of range")),
            None => err(e.span, format!("{what} must be a compile-time constant")),
        }
    }

    pub(super) fn const_value(&self, v: &Val) -> Option<i128> {
        match v {
            Val::Int(i) => Some(*i),
            Val::Scalar(Ex::Const(c), t) => {
                let b = self.scalar_bt(t)?;
                if b.is_signed()
                    && b.width() > 0
                    && b.width() < 64
                    && (c >> (b.width() - 1)) & 1 == 1
                {
                    Some(i128::from(*c) - (1i128 << b.width()))
                } else if b.is_signed() && b.width() == 64 {
                    Some(i128::from(*c as i64))
                } else {
                    Some(i128::from(*c))
                }
            }
            Val::Scalar(Ex::ConstW(b), _) => b.to_i128().or_else(|| b.to_u128().map(|u| u as i128)),
            _ => None,
        }
    }

    pub(super) fn resolve_type(&mut self, t: &ast::Type) -> Res<Ty> {
        Ok(match &t.kind {
            ast::TypeKind::Bool => Ty::Bool,
            ast::TypeKind::Error => Ty::Error,
            ast::TypeKind::String => Ty::Str,
            ast::TypeKind::Void => Ty::Void,
            ast::TypeKind::MatchKind => Ty::MatchKind,
            ast::TypeKind::InfInt => Ty::InfInt,
            ast::TypeKind::Bit(w) => {
                let w = self.const_u32(w, "a bit width")?;
                if w > crate::exec::bits::MAX_WIDTH {
                    return err(t.span, format!("width {w} is too large"));
                }
                Ty::Bit(w)
            }
            ast::TypeKind::Int(w) => {
                let w = self.const_u32(w, "an int width")?;
                if w == 0 || w > crate::exec::bits::MAX_WIDTH {
                    return err(t.span, format!("int<{w}> is not a valid type"));
                }
                Ty::Int(w)
            }
            ast::TypeKind::Varbit(w) => {
                let w = self.const_u32(w, "a varbit width")?;
                if w == 0 || w > crate::exec::bits::MAX_WIDTH {
                    return err(t.span, format!("varbit<{w}> is not a valid type"));
                }
                Ty::Varbit(w)
            }
            ast::TypeKind::Name(path) => self.named_type(&path.name)?,
            ast::TypeKind::Specialized { base, args } => {
                let name = base.name.as_str();
                let generic = self.globals.get(name).and_then(|ds| {
                    ds.iter().copied().find_map(|d| match d {
                        Declaration::Header(s) => Some((s, SKind::Header)),
                        Declaration::Struct(s) => Some((s, SKind::Struct)),
                        Declaration::HeaderUnion(s) => Some((s, SKind::Union)),
                        _ => None,
                    })
                });
                match generic {
                    Some((s, kind)) => self.specialize_struct(s, kind, args, t.span)?,
                    None => Ty::Object(base.name.name.clone()),
                }
            }
            ast::TypeKind::Stack { element, size } => {
                let e = self.resolve_type(element)?;
                let n = self.const_u32(size, "a header stack size")?;
                if n > MAX_STACK {
                    return unsupported(
                        size.span,
                        format!("header stacks of more than {MAX_STACK} elements"),
                    );
                }
                match &e {
                    Ty::Struct(i)
                        if self
                            .structs
                            .get(*i as usize)
                            .is_some_and(|s| s.kind != SKind::Struct) => {}
                    // p4c's arrays of values (`bit<8>[16]`): indexed and
                    // sized, no nextIndex; in a header, on the wire.
                    e if self.array_element_type(e) => {}
                    _ => {
                        return err(
                            t.span,
                            format!(
                                "the elements of a stack or array must be headers, header \
                                 unions, or bit<W>, int<W>, bool or serializable enum values, \
                                 not {}",
                                ty_name(self, &e)
                            ),
                        );
                    }
                }
                if n == 0 {
                    return err(size.span, "a header stack needs at least one element");
                }
                Ty::Stack(Box::new(e), n)
            }
            ast::TypeKind::Tuple(ts) => {
                let mut out = Vec::new();
                for t in ts {
                    out.push(self.resolve_type(t)?);
                }
                Ty::Tuple(out)
            }
            ast::TypeKind::DontCare => {
                return unsupported(t.span, "`_` as a type");
            }
        })
    }

    pub(super) fn named_type(&mut self, name: &ast::Ident) -> Res<Ty> {
        let n = name.as_str();
        if let Some(t) = self.type_args.get(n) {
            return Ok(t.clone());
        }
        if let Some(t) = self.typedefs.get(n) {
            return Ok(t.clone());
        }
        if let Some(&i) = self.struct_ids.get(n) {
            return Ok(Ty::Struct(i));
        }
        if let Some(&i) = self.enum_ids.get(n) {
            return Ok(Ty::Enum(i));
        }
        match n {
            "packet_in" => return Ok(Ty::PacketIn),
            "packet_out" => return Ok(Ty::PacketOut),
            _ => {}
        }
        let decls = self.globals.get(n).cloned().unwrap_or_default();
        for d in decls {
            match d {
                Declaration::Typedef(td) => {
                    let outer = std::mem::take(&mut self.type_args);
                    let t = self.resolve_type(&td.ty);
                    self.type_args = outer;
                    let t = t?;
                    self.typedefs.insert(td.name.name.clone(), t.clone());
                    return Ok(t);
                }
                Declaration::Header(s) | Declaration::Struct(s) | Declaration::HeaderUnion(s)
                    if !s.type_params.is_empty() =>
                {
                    return err(
                        name.span,
                        format!("`{n}` is generic: give its type arguments (`{n}<...>`)"),
                    );
                }
                Declaration::Header(s) => return self.declare_struct(s, SKind::Header),
                Declaration::Struct(s) => return self.declare_struct(s, SKind::Struct),
                Declaration::HeaderUnion(s) => return self.declare_struct(s, SKind::Union),
                Declaration::Enum(e) => return self.declare_enum(e),
                Declaration::ExternObject(_)
                | Declaration::ParserType(_)
                | Declaration::ControlType(_)
                | Declaration::Package(_)
                | Declaration::Parser(_)
                | Declaration::Control(_) => return Ok(Ty::Object(name.name.clone())),
                _ => {}
            }
        }
        err(name.span, format!("unknown type `{n}`"))
    }

    /// Whether a header may have a (fixed-width) field of type `t`: a
    /// bit<W>, int<W>, bool, serializable enum, or a struct of those.
    fn header_field_type(&self, t: &Ty) -> bool {
        match t {
            Ty::Bit(_) | Ty::Int(_) | Ty::Bool => true,
            Ty::Stack(e, _) => self.array_element_type(e),
            Ty::Enum(i) => self
                .enums
                .get(*i as usize)
                .is_some_and(|e| e.underlying.is_some()),
            Ty::Struct(i) => self.structs.get(*i as usize).is_some_and(|s| {
                s.kind == SKind::Struct && s.fields.iter().all(|f| self.header_field_type(&f.ty))
            }),
            _ => false,
        }
    }

    /// Whether `t` may be the element of an array of values (p4c's
    /// `bit<8>[16]`): a bit<W>, int<W>, bool or serializable enum.
    pub(super) fn array_element_type(&self, t: &Ty) -> bool {
        match t {
            Ty::Bit(_) | Ty::Int(_) | Ty::Bool => true,
            Ty::Enum(i) => self
                .enums
                .get(*i as usize)
                .is_some_and(|e| e.underlying.is_some()),
            _ => false,
        }
    }

    /// `S<A, ...>` of a generic struct, header or union `S<T, ...>`: a type
    /// of its own per list of arguments (named as written, `S<bit<8>>`),
    /// its fields' types resolved with each parameter standing for its
    /// argument, as p4c specializes them.
    fn specialize_struct(
        &mut self,
        s: &ast::StructDecl,
        kind: SKind,
        args: &[ast::Type],
        span: Span,
    ) -> Res<Ty> {
        if s.type_params.len() != args.len() {
            return err(
                span,
                format!(
                    "`{}` has {} type parameter{}; {} type argument{} given",
                    s.name,
                    s.type_params.len(),
                    if s.type_params.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "" } else { "s" },
                ),
            );
        }
        let mut tys = Vec::with_capacity(args.len());
        for a in args {
            tys.push(self.resolve_type(a)?);
        }
        let names: Vec<String> = tys.iter().map(|t| ty_name(self, t)).collect();
        let name: Arc<str> = format!("{}<{}>", s.name, names.join(", ")).into();
        if let Some(&i) = self.struct_ids.get(&name) {
            return Ok(Ty::Struct(i));
        }
        let env = s
            .type_params
            .iter()
            .map(|p| p.name.clone())
            .zip(tys)
            .collect();
        let outer = std::mem::replace(&mut self.type_args, env);
        let r = self.declare_struct_as(s, kind, name);
        self.type_args = outer;
        r
    }

    pub(super) fn declare_struct(&mut self, s: &ast::StructDecl, kind: SKind) -> Res<Ty> {
        if let Some(&i) = self.struct_ids.get(s.name.as_str()) {
            return Ok(Ty::Struct(i));
        }
        if !s.type_params.is_empty() {
            return err(
                s.name.span,
                format!("`{}` is generic: use it with type arguments", s.name),
            );
        }
        // A global declaration sees no type arguments of a specialization
        // that led to it.
        let outer = std::mem::take(&mut self.type_args);
        let r = self.declare_struct_as(s, kind, s.name.name.clone());
        self.type_args = outer;
        r
    }

    fn declare_struct_as(&mut self, s: &ast::StructDecl, kind: SKind, name: Arc<str>) -> Res<Ty> {
        if self.depth > 64 {
            return err(
                s.span,
                "type declarations nest too deeply (recursive type?)",
            );
        }
        self.depth += 1;
        let mut fields: Vec<FieldInfo> = Vec::new();
        let (mut n, mut w) = (u32::from(kind == SKind::Header), 0);
        for f in &s.fields {
            let t = self.resolve_type(&f.ty);
            let t = match t {
                Ok(t) => t,
                Err(e) => {
                    self.depth -= 1;
                    return Err(e);
                }
            };
            if fields.iter().any(|g| g.name == f.name.name) {
                self.depth -= 1;
                return err(f.name.span, format!("duplicate field `{}`", f.name));
            }
            if kind == SKind::Header
                && let Some(v) = fields.iter().find(|g| matches!(g.ty, Ty::Varbit(_)))
            {
                self.depth -= 1;
                return unsupported(
                    f.span,
                    format!(
                        "a field after the varbit field `{}` (p4sim keeps a header's varbit last)",
                        v.name
                    ),
                );
            }
            let ok = match kind {
                SKind::Header => matches!(t, Ty::Varbit(_)) || self.header_field_type(&t),
                SKind::Union => {
                    matches!(&t, Ty::Struct(i) if self.structs.get(*i as usize).is_some_and(|s| s.kind == SKind::Header))
                }
                SKind::Struct => !matches!(
                    t,
                    Ty::Void | Ty::PacketIn | Ty::PacketOut | Ty::Object(_) | Ty::InfInt
                ),
            };
            if !ok {
                self.depth -= 1;
                return err(
                    f.ty.span,
                    format!("a field of type {} is not allowed here", ty_name(self, &t)),
                );
            }
            let (a, b) = self.size(&t);
            fields.push(FieldInfo {
                name: f.name.name.clone(),
                ty: t,
                n_off: n,
                w_off: w,
                annotations: f.annotations.clone(),
            });
            n = n.saturating_add(a);
            w = w.saturating_add(b);
        }
        self.depth -= 1;
        let id = self.structs.len() as u32;
        self.structs.push(StructInfo {
            name: name.clone(),
            kind,
            fields,
            n,
            w,
        });
        self.struct_ids.insert(name, id);
        Ok(Ty::Struct(id))
    }

    pub(super) fn declare_enum(&mut self, e: &ast::EnumDecl) -> Res<Ty> {
        if let Some(&i) = self.enum_ids.get(e.name.as_str()) {
            return Ok(Ty::Enum(i));
        }
        let underlying = match &e.underlying {
            Some(t) => match self.resolve_type(t)? {
                Ty::Bit(w) => Some(bt(w, false)),
                Ty::Int(w) => Some(bt(w, true)),
                other => {
                    return err(
                        t.span,
                        format!(
                            "a serializable enum needs a bit<W> or int<W> type, not {}",
                            ty_name(self, &other)
                        ),
                    );
                }
            },
            None => None,
        };
        if underlying.is_some_and(|b| is_wide(b.width())) {
            return unsupported(e.span, "serializable enums wider than 64 bits");
        }
        let mut members = Vec::new();
        for (i, m) in e.members.iter().enumerate() {
            let v = match (&m.value, underlying) {
                (Some(v), Some(b)) => {
                    let val = self.expr(v)?;
                    match self.const_value(&val) {
                        Some(c) => (c as u64) & mask(b.width()),
                        None => return err(v.span, "enum values must be constants"),
                    }
                }
                (None, Some(_)) => {
                    return err(
                        m.name.span,
                        "every member of a serializable enum needs a value",
                    );
                }
                (_, None) => i as u64,
            };
            members.push((m.name.name.clone(), v));
        }
        let id = self.enums.len() as u32;
        self.enums.push(EnumInfo {
            name: e.name.name.clone(),
            members,
            underlying,
        });
        self.enum_ids.insert(e.name.name.clone(), id);
        Ok(Ty::Enum(id))
    }

    // ---- top level ---------------------------------------------------
}
