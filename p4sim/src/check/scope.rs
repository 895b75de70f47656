//! Names: constants, lookup and binding, qualified names, constructor and parameter checks.

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn global_const(&mut self, c: &ast::ConstantDecl) -> Res<Val> {
        if let Some(v) = self.global_consts.get(c.name.as_str()) {
            return Ok(v.clone());
        }
        if self.depth > 64 {
            return err(
                c.span,
                "constant definitions refer to each other in a cycle",
            );
        }
        self.depth += 1;
        let r = self.local_const(c);
        self.depth -= 1;
        let v = r?;
        self.global_consts.insert(c.name.name.clone(), v.clone());
        Ok(v)
    }

    pub(super) fn local_const(&mut self, c: &ast::ConstantDecl) -> Res<Val> {
        let t = self.resolve_type(&c.ty)?;
        let v = self.expr(&c.value)?;
        if t == Ty::InfInt {
            return match v {
                Val::Int(i) => Ok(Val::Int(i)),
                _ => err(c.value.span, "expected an integer constant"),
            };
        }
        if self.scalar_bt(&t).is_some() {
            let ex = self.coerce(v, &t, c.value.span)?;
            if !matches!(ex, Ex::Const(_) | Ex::ConstW(_)) {
                return err(
                    c.value.span,
                    "the value of a constant must be a compile-time constant",
                );
            }
            return Ok(Val::Scalar(ex, t));
        }
        if matches!(t, Ty::Struct(_) | Ty::Tuple(_)) {
            return self.compound_const(v, &t, c.ty.span, c.value.span);
        }
        unsupported(
            c.ty.span,
            format!("constants of type {}", ty_name(self, &t)),
        )
    }

    /// A struct or tuple constant (`const PortId_t P = {9w192};`): its value
    /// as an initializer whose leaves are typed constants, in the order of
    /// the type's fields, for each use to take (a member, an assignment, a
    /// comparison with a place of the type). Headers, unions and stacks,
    /// whose values have a validity, are refused.
    fn compound_const(&mut self, v: Val, t: &Ty, ty_span: Span, span: Span) -> Res<Val> {
        match t {
            Ty::Struct(i) => {
                let s = self.structs[*i as usize].clone();
                if s.kind != SKind::Struct {
                    return unsupported(ty_span, format!("constants of type {}", ty_name(self, t)));
                }
                let items = self.struct_items(&s, v, span)?;
                let mut out = Vec::with_capacity(items.len());
                for (f, item) in s.fields.iter().zip(items) {
                    let v = self.compound_const(item, &f.ty, ty_span, span)?;
                    out.push((f.name.clone(), v));
                }
                Ok(Val::StructInit(out))
            }
            Ty::Tuple(ts) => {
                let Val::List(items) = v else {
                    return err(span, "expected a list for a tuple constant");
                };
                if items.len() != ts.len() {
                    return err(
                        span,
                        format!(
                            "the tuple has {} members, the list {}",
                            ts.len(),
                            items.len()
                        ),
                    );
                }
                let mut out = Vec::with_capacity(items.len());
                for (t, item) in ts.clone().iter().zip(items) {
                    out.push(self.compound_const(item, t, ty_span, span)?);
                }
                Ok(Val::List(out))
            }
            Ty::MatchKind => match v {
                v @ Val::Scalar(_, Ty::MatchKind) => Ok(v),
                _ => err(span, "expected a match kind"),
            },
            t if self.scalar_bt(t).is_some() => {
                let ex = self.coerce(v, t, span)?;
                if !matches!(ex, Ex::Const(_) | Ex::ConstW(_)) {
                    return err(
                        span,
                        "the value of a constant must be a compile-time constant",
                    );
                }
                Ok(Val::Scalar(ex, t.clone()))
            }
            t => unsupported(ty_span, format!("constants of type {}", ty_name(self, t))),
        }
    }

    /// The values of a list or a `{f = v}` initializer for struct `s`, in
    /// the order of its fields: a list as long as the fields, or an
    /// initializer that names each field once.
    pub(super) fn struct_items(&self, s: &StructInfo, v: Val, span: Span) -> Res<Vec<Val>> {
        match v {
            Val::List(items) if items.len() == s.fields.len() => Ok(items),
            Val::List(items) => err(
                span,
                format!(
                    "{} has {} fields, the list {}",
                    s.name,
                    s.fields.len(),
                    items.len()
                ),
            ),
            Val::StructInit(mut items) => {
                if let Some((n, _)) = items
                    .iter()
                    .find(|(n, _)| !s.fields.iter().any(|f| &f.name == n))
                {
                    return err(span, format!("{} has no field `{n}`", s.name));
                }
                let mut ordered = Vec::with_capacity(s.fields.len());
                for f in &s.fields {
                    let Some(at) = items.iter().position(|(n, _)| *n == f.name) else {
                        return err(
                            span,
                            format!("every field of {} must be initialised", s.name),
                        );
                    };
                    ordered.push(items.swap_remove(at).1);
                }
                if let Some((n, _)) = items.first() {
                    return err(span, format!("field `{n}` is initialised twice"));
                }
                Ok(ordered)
            }
            _ => err(span, format!("expected a value of type {}", s.name)),
        }
    }

    // ---- name lookup ---------------------------------------------------

    pub(super) fn lookup(&mut self, path: &ast::Path) -> Res<Val> {
        let name = path.name.as_str();
        if !path.absolute {
            for s in self.scopes.iter().rev() {
                if let Some(v) = s.get(name) {
                    return Ok(v.clone());
                }
            }
        }
        if name == "error" {
            return Ok(Val::ErrorNs);
        }
        if let Some(i) = self.match_kinds.iter().position(|m| m == name) {
            return Ok(Val::Scalar(Ex::Const(i as u64), Ty::MatchKind));
        }
        if let Some(v) = self.global_consts.get(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.global_instances.get(name) {
            return Ok(v.clone());
        }
        let decls = self.globals.get(name).cloned().unwrap_or_default();
        let Some(d) = decls.first() else {
            return err(path.name.span, format!("`{name}` is not declared"));
        };
        match d {
            Declaration::Constant(c) => self.global_const(c),
            Declaration::Action(a) => {
                if let Some(&id) = self.global_actions.get(name) {
                    return Ok(Val::Action(id));
                }
                let saved = (
                    std::mem::take(&mut self.scopes),
                    std::mem::take(&mut self.prefix),
                );
                let r = self.lower_action(a);
                self.scopes = saved.0;
                self.prefix = saved.1;
                let id = r?;
                self.global_actions.insert(a.name.name.clone(), id);
                Ok(Val::Action(id))
            }
            Declaration::Function(_) => Ok(Val::Function(path.name.name.clone())),
            Declaration::ExternFunction(_) => Ok(Val::ExternFn(path.name.name.clone())),
            Declaration::Instantiation(i) => {
                let saved = (
                    std::mem::take(&mut self.scopes),
                    std::mem::take(&mut self.prefix),
                );
                let r = self.instantiate(i);
                self.scopes = saved.0;
                self.prefix = saved.1;
                let v = r?;
                self.global_instances.insert(i.name.name.clone(), v.clone());
                Ok(v)
            }
            _ => Ok(Val::Type(self.named_type(&path.name)?)),
        }
    }

    pub(super) fn fq_name(&self, local: &ast::Ident, annotations: &[ast::Annotation]) -> String {
        if let Some(n) = ast::find_annotation(annotations, "name").and_then(|a| a.string_argument())
        {
            if let Some(abs) = n.strip_prefix('.') {
                return abs.to_string();
            }
            return self.join(n);
        }
        self.join(local.as_str())
    }

    pub(super) fn join(&self, n: &str) -> String {
        if self.prefix.is_empty() {
            n.to_string()
        } else {
            format!("{}.{n}", self.prefix)
        }
    }

    pub(super) fn bind(&mut self, name: &ast::Ident, v: Val) -> Res<()> {
        let Some(scope) = self.scopes.last_mut() else {
            return err(name.span, "internal: no scope");
        };
        if scope.contains_key(name.as_str()) {
            return err(
                name.span,
                format!("`{name}` is already declared in this scope"),
            );
        }
        scope.insert(name.name.clone(), v);
        Ok(())
    }

    // ---- blocks --------------------------------------------------------

    pub(super) fn bind_ctor_params(
        &mut self,
        params: &[ast::Param],
        args: &[ast::Argument],
        span: Span,
    ) -> Res<()> {
        if params.len() != args.len() {
            return err(
                span,
                format!(
                    "expected {} constructor arguments, got {}",
                    params.len(),
                    args.len()
                ),
            );
        }
        for (p, a) in params.iter().zip(args) {
            let t = self.resolve_type(&p.ty)?;
            let v = self.expr(&a.value)?;
            let v = if self.scalar_bt(&t).is_some() {
                Val::Scalar(self.coerce(v, &t, a.value.span)?, t)
            } else {
                v
            };
            self.bind(&p.name, v)?;
        }
        Ok(())
    }

    pub(super) fn check_param_types(
        &mut self,
        params: &[ast::Param],
        tys: &[Ty],
        span: Span,
    ) -> Res<()> {
        if params.len() != tys.len() {
            return err(
                span,
                format!(
                    "this block must take {} parameters, it takes {}",
                    tys.len(),
                    params.len()
                ),
            );
        }
        for (p, want) in params.iter().zip(tys) {
            let t = self.resolve_type(&p.ty)?;
            if &t != want {
                return err(
                    p.ty.span,
                    format!(
                        "parameter `{}` has type {}, but {} passes {}",
                        p.name,
                        ty_name(self, &t),
                        self.arch,
                        ty_name(self, want)
                    ),
                );
            }
        }
        Ok(())
    }
}
