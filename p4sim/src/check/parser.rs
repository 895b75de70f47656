//! Parsers: states, sub-parsers, select keys.

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn lower_parser(
        &mut self,
        p: &ast::ParserDecl,
        ctor_args: &[ast::Argument],
        vals: Vec<Val>,
        tys: Vec<Ty>,
    ) -> Res<(Vec<St>, Vec<StateIr>)> {
        if !p.type_params.is_empty() {
            return unsupported(p.span, "generic parsers");
        }
        self.check_param_types(&p.params, &tys, p.span)?;
        self.scopes = vec![HashMap::new()];
        self.prefix = p.name.to_string();
        self.block_kind = BlockKind::Parser;
        self.bind_ctor_params(&p.ctor_params, ctor_args, p.span)?;
        for (param, v) in p.params.iter().zip(vals) {
            self.bind(&param.name, v)?;
        }
        let mut init = Vec::new();
        for d in &p.locals {
            self.local_decl(d, &mut init)?;
        }
        let mut states = Vec::new();
        let start = self.lower_states(p, &mut states, Next::Accept)?;
        // make `start` state 0
        if start != 0 {
            states.swap(0, start as usize);
            let fix = |n: &mut Next| {
                if let Next::State(s) = n {
                    if *s == start {
                        *s = 0;
                    } else if *s == 0 {
                        *s = start;
                    }
                }
            };
            for s in &mut states {
                match &mut s.transition {
                    Transition::Go(n) => fix(n),
                    Transition::Select(_, cases) => {
                        for (_, n) in cases {
                            fix(n);
                        }
                    }
                }
            }
        }
        self.scopes.clear();
        Ok((init, states))
    }

    /// Lowers `p`'s states into `out` (ids from `out.len()`), `accept`
    /// going to `on_accept`; returns the id of its `start` state. A
    /// sub-parser `apply` in a state splits it: the statements before it
    /// (and the copy-in) end in a transition to the sub-parser's states,
    /// lowered here for this call site, whose `accept` goes to a new state
    /// holding the statements after and the original transition.
    pub(super) fn lower_states(
        &mut self,
        p: &ast::ParserDecl,
        out: &mut Vec<StateIr>,
        on_accept: Next,
    ) -> Res<u32> {
        let base = out.len() as u32;
        let mut ids: HashMap<&str, u32> = HashMap::new();
        for (i, s) in p.states.iter().enumerate() {
            if matches!(s.name.as_str(), "accept" | "reject") {
                return err(
                    s.name.span,
                    format!("state `{}` cannot be redefined", s.name),
                );
            }
            if ids.insert(s.name.as_str(), base + i as u32).is_some() {
                return err(s.name.span, format!("duplicate state `{}`", s.name));
            }
        }
        let Some(&start) = ids.get("start") else {
            return err(
                p.name.span,
                format!("parser `{}` has no `start` state", p.name),
            );
        };
        let resolve = |n: &ast::Ident| -> Res<Next> {
            match n.as_str() {
                "accept" => Ok(on_accept),
                "reject" => Ok(Next::Reject),
                s => match ids.get(s) {
                    Some(&i) => Ok(Next::State(i)),
                    None => err(n.span, format!("unknown parser state `{s}`")),
                },
            }
        };
        let sub = on_accept != Next::Accept;
        for s in &p.states {
            out.push(StateIr {
                name: if sub {
                    format!("{}.{}", self.prefix, s.name)
                } else {
                    s.name.to_string()
                },
                body: Vec::new(),
                transition: Transition::Go(Next::Reject),
            });
        }
        for (k, s) in p.states.iter().enumerate() {
            self.scopes.push(HashMap::new());
            let mut cur = base as usize + k;
            let mut body = Vec::new();
            for st in &s.statements {
                if let Some((sub, args)) = self.sub_parser_call(st)? {
                    let cont = out.len() as u32;
                    out.push(StateIr {
                        name: format!("{}$after_{}", s.name, self.sub_parsers[sub as usize].2),
                        body: Vec::new(),
                        transition: Transition::Go(Next::Reject),
                    });
                    let sub_start =
                        self.lower_sub_parser(sub, args, st.span, out, cont, &mut body)?;
                    out[cur].body = std::mem::take(&mut body);
                    out[cur].transition = Transition::Go(Next::State(sub_start));
                    cur = cont as usize;
                    continue;
                }
                self.stmt(st, &mut body)?;
            }
            let transition = match &s.transition {
                None => Transition::Go(Next::Reject),
                Some(t) => match &t.kind {
                    ast::TransitionKind::Direct(n) => Transition::Go(resolve(n)?),
                    ast::TransitionKind::Select { exprs, cases } => {
                        let mut keys = Vec::new();
                        let mut key_tys = Vec::new();
                        for e in exprs {
                            let v = self.expr(e)?;
                            let (ex, t) = self.rvalue(v, e.span)?;
                            let Some(b) = self.scalar_bt(&t) else {
                                return err(e.span, "select keys must be scalar values");
                            };
                            if is_wide(b.width()) {
                                return unsupported(e.span, "select keys wider than 64 bits");
                            }
                            keys.push(ex);
                            key_tys.push(t);
                        }
                        let mut out_cases = Vec::new();
                        for c in cases {
                            let next = resolve(&c.next)?;
                            if let [ast::Keyset::Expr(e)] = c.keys.as_slice()
                                && names_value_set(p, e)
                            {
                                // A value set matches its members, and it
                                // starts empty, as in BMv2; p4sim has no
                                // control-plane write to add members yet,
                                // so the case never matches.
                                continue;
                            }
                            let ks = if c.keys.len() == 1
                                && matches!(
                                    c.keys[0],
                                    ast::Keyset::Default(_) | ast::Keyset::DontCare(_)
                                ) {
                                vec![SelectKey::Any; keys.len()]
                            } else {
                                if c.keys.len() != keys.len() {
                                    return err(
                                        c.span,
                                        format!(
                                            "select has {} keys but this case has {}",
                                            keys.len(),
                                            c.keys.len()
                                        ),
                                    );
                                }
                                let mut ks = Vec::new();
                                for (k, t) in c.keys.iter().zip(&key_tys) {
                                    ks.push(self.select_key(k, t)?);
                                }
                                ks
                            };
                            out_cases.push((ks, next));
                        }
                        Transition::Select(keys, out_cases)
                    }
                },
            };
            self.scopes.pop();
            out[cur].body = body;
            out[cur].transition = transition;
        }
        Ok(start)
    }

    /// `sub.apply(args);` on a sub-parser instance: its index and arguments.
    pub(super) fn sub_parser_call<'s>(
        &mut self,
        st: &'s ast::Statement,
    ) -> Res<Option<(u32, &'s [ast::Argument])>> {
        let ast::StatementKind::Call(e) = &st.kind else {
            return Ok(None);
        };
        let ExprKind::Call { callee, args, .. } = &e.kind else {
            return Ok(None);
        };
        let ExprKind::Member { base, member } = &callee.kind else {
            return Ok(None);
        };
        if member.as_str() != "apply" || !matches!(base.kind, ExprKind::Name(_)) {
            return Ok(None);
        }
        match self.expr(base)? {
            Val::SubParser(k) => Ok(Some((k, args))),
            _ => Ok(None),
        }
    }

    /// One call site of sub-parser `k`: binds its parameters (`in` ones to
    /// copies made in `pre`, `out` and `inout` ones to the arguments
    /// themselves, as p4c's inliner does), lowers its locals into `pre` and
    /// its states into `out` with `accept` going to `cont`; returns its
    /// start.
    pub(super) fn lower_sub_parser(
        &mut self,
        k: u32,
        args: &[ast::Argument],
        span: Span,
        out: &mut Vec<StateIr>,
        cont: u32,
        pre: &mut Vec<St>,
    ) -> Res<u32> {
        let (p, ctor_args, name) = self.sub_parsers[k as usize].clone();
        if self.depth > 32 {
            return err(span, "sub-parsers apply each other too deeply");
        }
        if args.len() != p.params.len() {
            return err(
                span,
                format!(
                    "`{}` takes {} arguments, {} given",
                    p.name,
                    p.params.len(),
                    args.len()
                ),
            );
        }
        // arguments in the caller's scope
        let mut bound = Vec::new();
        for (param, a) in p.params.iter().zip(args) {
            let t = self.resolve_type(&param.ty)?;
            let v = self.expr(&a.value)?;
            if t == Ty::PacketIn {
                if !matches!(v, Val::Packet(false)) {
                    return err(a.value.span, "expected the packet_in");
                }
                bound.push((param, Val::Packet(false)));
                continue;
            }
            let place = self.alloc(&t);
            match param.direction {
                ast::Direction::In | ast::Direction::None => {
                    // a copy: the sub-parser may write its `in` parameter
                    self.assign(&place, &t, v, a.value.span, pre)?;
                }
                ast::Direction::Out | ast::Direction::InOut => {
                    let Val::Place(ap, at) = v else {
                        return err(
                            a.value.span,
                            "an out or inout argument must be a variable or field",
                        );
                    };
                    if at != t {
                        return err(
                            a.value.span,
                            format!(
                                "type mismatch: expected {}, found {}",
                                ty_name(self, &t),
                                ty_name(self, &at)
                            ),
                        );
                    }
                    // The argument itself, as p4c's inliner substitutes
                    // it: what the sub-parser wrote before a reject stays
                    // written (BMv2 keeps it).
                    bound.push((param, Val::Place(ap, at)));
                    continue;
                }
            }
            bound.push((param, Val::Place(place, t)));
        }
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let saved_prefix = std::mem::replace(&mut self.prefix, name);
        self.depth += 1;
        let r = (|| -> Res<u32> {
            self.bind_ctor_params(&p.ctor_params, &ctor_args, p.span)?;
            for (param, v) in bound {
                self.bind(&param.name, v)?;
            }
            for d in &p.locals {
                self.local_decl(d, pre)?;
            }
            self.lower_states(p, out, Next::State(cont))
        })();
        self.depth -= 1;
        self.scopes = saved_scopes;
        self.prefix = saved_prefix;
        r
    }

    pub(super) fn keyset_const(&mut self, e: &ast::Expr, t: &Ty) -> Res<u128> {
        let v = self.expr(e)?;
        let ex = self.coerce(v, t, e.span)?;
        match ex {
            Ex::Const(c) => Ok(u128::from(c)),
            Ex::ConstW(b) => Ok(b.low_u128()),
            _ => err(e.span, "keyset values must be compile-time constants"),
        }
    }

    pub(super) fn select_key(&mut self, k: &ast::Keyset, t: &Ty) -> Res<SelectKey> {
        let w = self.scalar_bt(t).map_or(64, |b| b.width());
        Ok(match k {
            ast::Keyset::Default(_) | ast::Keyset::DontCare(_) => SelectKey::Any,
            ast::Keyset::Expr(e) => SelectKey::Masked(self.keyset_const(e, t)? as u64, mask(w)),
            ast::Keyset::Mask { value, mask: m } => {
                let v = self.keyset_const(value, t)? as u64;
                let m = self.keyset_const(m, t)? as u64;
                SelectKey::Masked(v & m, m)
            }
            ast::Keyset::Range { lo, hi } => SelectKey::Range(
                self.keyset_const(lo, t)? as u64,
                self.keyset_const(hi, t)? as u64,
            ),
        })
    }
}

/// Whether a `select` case's keyset `e` names a value set of `p`.
fn names_value_set(p: &ast::ParserDecl, e: &ast::Expr) -> bool {
    let ast::ExprKind::Name(n) = &e.kind else {
        return false;
    };
    !n.absolute
        && p.locals
            .iter()
            .any(|d| matches!(d, Declaration::ValueSet(v) if v.name.as_str() == n.name.as_str()))
}
