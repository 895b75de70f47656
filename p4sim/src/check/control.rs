//! Controls: bodies, local declarations, extern and control instances.

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn lower_top_control(
        &mut self,
        c: &ast::ControlDecl,
        ctor_args: &[ast::Argument],
        vals: Vec<Val>,
        tys: Vec<Ty>,
    ) -> Res<Vec<St>> {
        if !c.type_params.is_empty() {
            return unsupported(c.span, "generic controls");
        }
        self.check_param_types(&c.params, &tys, c.span)?;
        self.scopes = vec![HashMap::new()];
        self.prefix = c.name.to_string();
        self.block_kind = BlockKind::Control;
        self.bind_ctor_params(&c.ctor_params, ctor_args, c.span)?;
        for (param, v) in c.params.iter().zip(vals) {
            self.bind(&param.name, v)?;
        }
        let body = self.control_body(c)?;
        self.scopes.clear();
        Ok(body)
    }

    pub(super) fn control_body(&mut self, c: &ast::ControlDecl) -> Res<Vec<St>> {
        let mut body = Vec::new();
        for d in &c.locals {
            self.local_decl(d, &mut body)?;
        }
        self.scopes.push(HashMap::new());
        self.block(&c.apply, &mut body)?;
        self.scopes.pop();
        Ok(body)
    }

    /// A declaration inside a parser, control or block: its initialisation
    /// statements go to `out`.
    pub(super) fn local_decl(&mut self, d: &Declaration, out: &mut Vec<St>) -> Res<()> {
        match d {
            // Checked here; a `select` case naming it is lowered with the
            // parser's states (`lower_states`).
            Declaration::ValueSet(v) => {
                let t = self.resolve_type(&v.element)?;
                if !matches!(t, Ty::Bit(_) | Ty::Int(_) | Ty::Struct(_) | Ty::Enum(_)) {
                    return err(
                        v.element.span,
                        format!(
                            "a value set of {} (bit<W>, int<W>, a struct or a serializable enum)",
                            ty_name(self, &t)
                        ),
                    );
                }
                let size = self.expr(&v.size)?;
                match self.const_value(&size) {
                    Some(n) if n >= 0 => Ok(()),
                    _ => err(
                        v.size.span,
                        "a value set's size must be a non-negative constant",
                    ),
                }
            }
            Declaration::Constant(c) => {
                let v = self.local_const(c)?;
                self.bind(&c.name, v)
            }
            Declaration::Variable(v) => {
                let t = self.resolve_type(&v.ty)?;
                if matches!(
                    t,
                    Ty::Object(_) | Ty::Void | Ty::PacketIn | Ty::PacketOut | Ty::Str | Ty::InfInt
                ) {
                    return err(
                        v.ty.span,
                        format!("variables cannot have type {}", ty_name(self, &t)),
                    );
                }
                let p = self.alloc(&t);
                match &v.init {
                    Some(e) => {
                        let val = self.expr(e)?;
                        self.assign(&p, &t, val, e.span, out)?;
                    }
                    None => self.zero(&p, &t, out),
                }
                self.bind(&v.name, Val::Place(p, t))
            }
            Declaration::Instantiation(i) => {
                let v = self.instantiate(i)?;
                self.bind(&i.name, v)
            }
            Declaration::Action(a) => {
                let id = self.lower_action(a)?;
                self.bind(&a.name, Val::Action(id))
            }
            Declaration::Table(t) => {
                let id = self.lower_table(t)?;
                self.bind(&t.name, Val::Table(id))
            }
            other => unsupported(other.span(), "this kind of local declaration"),
        }
    }

    pub(super) fn zero(&self, p: &Place, t: &Ty, out: &mut Vec<St>) {
        let mut leaves = Vec::new();
        self.leaves(p, t, &mut leaves);
        for (lp, lt) in leaves {
            if let Ty::Varbit(w) = lt {
                out.push(St::SetW(lp.w, Ex::ConstW(Bits::zero(bt(w, false)))));
                continue;
            }
            let Some(b) = self.scalar_bt(&lt) else {
                continue;
            };
            let ex = if is_wide(b.width()) {
                Ex::ConstW(Bits::zero(b))
            } else {
                Ex::Const(0)
            };
            out.push(self.store(&lp, &lt, ex));
        }
    }

    pub(super) fn instantiate(&mut self, i: &ast::Instantiation) -> Res<Val> {
        let (base, targs) = match &i.ty.kind {
            ast::TypeKind::Name(p) => (p.name.clone(), Vec::new()),
            ast::TypeKind::Specialized { base, args } => (base.name.clone(), args.clone()),
            _ => return err(i.ty.span, "cannot instantiate this type"),
        };
        let name = self.fq_name(&i.name, &i.annotations);
        let arg = |k: usize| -> Res<&ast::Expr> {
            i.args.get(k).map(|a| &a.value).ok_or_else(|| {
                Error::new(
                    ErrorKind::Semantic(format!("`{base}` needs more constructor arguments")),
                    i.span,
                )
            })
        };
        let nargs = |n: usize| -> Res<()> {
            if i.args.len() != n {
                return err(
                    i.span,
                    format!(
                        "`{base}` takes {n} constructor arguments, {} given",
                        i.args.len()
                    ),
                );
            }
            Ok(())
        };
        let user_block = self.globals.get(base.as_str()).is_some_and(|ds| {
            ds.iter()
                .any(|d| matches!(d, Declaration::Control(_) | Declaration::Parser(_)))
        });
        if !user_block && self.is_psa() {
            if let Some(v) = self.instantiate_psa(&base, &targs, i, name.clone())? {
                return Ok(v);
            }
        } else if !user_block
            && let Some(v) = self.instantiate_tna(&base, &targs, i, name.clone())?
        {
            return Ok(v);
        }
        if !i.initializer.is_empty() {
            return unsupported(
                i.span,
                format!("an initializer block for `{base}` (only TNA's RegisterAction has one)"),
            );
        }
        match base.as_str() {
            "register" => {
                nargs(1)?;
                let Some(t) = targs.first() else {
                    return err(i.ty.span, "register needs a type argument: register<T>");
                };
                let t = self.resolve_type(t)?;
                let ty = match t {
                    Ty::Bit(w) => bt(w, false),
                    Ty::Int(w) => bt(w, true),
                    Ty::Bool => BitType::BIT1,
                    other => {
                        return unsupported(
                            i.ty.span,
                            format!("registers of type {}", ty_name(self, &other)),
                        );
                    }
                };
                let size = u64::from(self.const_u32(arg(0)?, "a register size")?);
                if size > MAX_CELLS {
                    return unsupported(
                        i.span,
                        format!("registers of more than {MAX_CELLS} cells"),
                    );
                }
                self.registers.push(RegisterIr { name, size, ty });
                Ok(Val::Extern(ExternInst::Register(
                    self.registers.len() as u32 - 1,
                )))
            }
            "counter" | "direct_counter" => {
                self.counter_instance(i, name, base.as_str() == "direct_counter")
            }
            "meter" | "direct_meter" => {
                let direct = base.as_str() == "direct_meter";
                nargs(if direct { 1 } else { 2 })?;
                let size = if direct {
                    0
                } else {
                    u64::from(self.const_u32(arg(0)?, "a meter size")?)
                };
                if size > MAX_CELLS {
                    return unsupported(i.span, format!("meters of more than {MAX_CELLS} cells"));
                }
                let kind_e = arg(if direct { 0 } else { 1 })?;
                let bytes = self.enum_member_name(kind_e)? == "bytes";
                self.meters.push(MeterIr {
                    name,
                    size,
                    bytes,
                    table: None,
                });
                let id = self.meters.len() as u32 - 1;
                Ok(Val::Extern(if direct {
                    ExternInst::DirectMeter(id)
                } else {
                    ExternInst::Meter(id)
                }))
            }
            "action_profile" => self.profile_instance(i, name),
            "action_selector" | "Checksum16" => unsupported(
                i.span,
                format!("the `{base}` extern is not supported by p4sim"),
            ),
            _ => {
                let decl = self.globals.get(base.as_str()).and_then(|ds| {
                    ds.iter()
                        .find(|d| matches!(d, Declaration::Control(_) | Declaration::Parser(_)))
                        .copied()
                });
                match decl {
                    Some(Declaration::Control(c)) => self.instantiate_control(c, i, name),
                    Some(Declaration::Parser(p)) => {
                        if !p.type_params.is_empty() {
                            return unsupported(p.span, "generic parsers");
                        }
                        if p.ctor_params.len() != i.args.len() {
                            return err(
                                i.span,
                                format!(
                                    "`{}` takes {} constructor arguments, {} given",
                                    p.name,
                                    p.ctor_params.len(),
                                    i.args.len()
                                ),
                            );
                        }
                        self.sub_parsers.push((p, i.args.clone(), name));
                        Ok(Val::SubParser(self.sub_parsers.len() as u32 - 1))
                    }
                    _ => {
                        if self.globals.contains_key(base.as_str()) {
                            unsupported(i.ty.span, format!("instances of `{base}`"))
                        } else {
                            err(base.span, format!("unknown type `{base}`"))
                        }
                    }
                }
            }
        }
    }

    /// An indexed counter `(size, type)` or a direct one `(type)`: v1model's
    /// `counter`/`direct_counter` and TNA's `Counter`/`DirectCounter` (whose
    /// unit names are upper case).
    pub(super) fn counter_instance(
        &mut self,
        i: &ast::Instantiation,
        name: String,
        direct: bool,
    ) -> Res<Val> {
        let want = if direct { 1 } else { 2 };
        if i.args.len() != want {
            let ty = match &i.ty.kind {
                ast::TypeKind::Name(p) => p.name.to_string(),
                ast::TypeKind::Specialized { base, .. } => base.name.to_string(),
                _ => "counter".to_string(),
            };
            return err(
                i.span,
                format!(
                    "`{ty}` takes {want} constructor arguments, {} given",
                    i.args.len()
                ),
            );
        }
        let size = if direct {
            0
        } else {
            u64::from(self.const_u32(&i.args[0].value, "a counter size")?)
        };
        if size > MAX_CELLS {
            return unsupported(i.span, format!("counters of more than {MAX_CELLS} cells"));
        }
        let unit = match self
            .enum_member_name(&i.args[want - 1].value)?
            .to_ascii_lowercase()
            .as_str()
        {
            "packets" => CounterUnit::Packets,
            "bytes" => CounterUnit::Bytes,
            _ => CounterUnit::PacketsAndBytes,
        };
        self.counters.push(CounterIr {
            name,
            size,
            unit,
            table: None,
        });
        let id = self.counters.len() as u32 - 1;
        Ok(Val::Extern(if direct {
            ExternInst::DirectCounter(id)
        } else {
            ExternInst::Counter(id)
        }))
    }

    /// An action profile of `size` members (v1model's `action_profile`,
    /// PSA's `ActionProfile`): a table whose implementation it is takes
    /// its entries' actions from members the control plane creates.
    pub(super) fn profile_instance(&mut self, i: &ast::Instantiation, name: String) -> Res<Val> {
        let [size] = i.args.as_slice() else {
            return err(i.span, "an action profile takes one argument, its size");
        };
        let size = u64::from(self.const_u32(&size.value, "an action profile size")?);
        self.profiles.push(ProfileIr { name, size });
        Ok(Val::Extern(ExternInst::ActionProfile(
            self.profiles.len() as u32 - 1,
        )))
    }

    pub(super) fn enum_member_name(&mut self, e: &ast::Expr) -> Res<String> {
        match &e.kind {
            ExprKind::Member { member, .. } => Ok(member.to_string()),
            _ => err(
                e.span,
                "expected an enum member such as CounterType.packets",
            ),
        }
    }

    pub(super) fn instantiate_control(
        &mut self,
        c: &ast::ControlDecl,
        i: &ast::Instantiation,
        name: String,
    ) -> Res<Val> {
        if self.depth > 32 {
            return err(i.span, "controls instantiate each other too deeply");
        }
        if !c.type_params.is_empty() {
            return unsupported(c.span, "generic controls");
        }
        // resolve ctor arguments in the current scope first
        if c.ctor_params.len() != i.args.len() {
            return err(
                i.span,
                format!(
                    "`{}` takes {} constructor arguments, {} given",
                    c.name,
                    c.ctor_params.len(),
                    i.args.len()
                ),
            );
        }
        let mut ctor_vals = Vec::new();
        for (p, a) in c.ctor_params.iter().zip(&i.args) {
            let t = self.resolve_type(&p.ty)?;
            let v = self.expr(&a.value)?;
            let v = if self.scalar_bt(&t).is_some() {
                Val::Scalar(self.coerce(v, &t, a.value.span)?, t)
            } else {
                v
            };
            ctor_vals.push(v);
        }
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let saved_prefix = std::mem::replace(&mut self.prefix, name);
        let saved_kind = self.block_kind;
        let saved_loops = std::mem::take(&mut self.loop_depth);
        let saved_ret = self.ret_place.take();
        self.depth += 1;
        let r = (|| -> Res<Val> {
            for (p, v) in c.ctor_params.iter().zip(ctor_vals) {
                self.bind(&p.name, v)?;
            }
            let mut params = Vec::new();
            let mut names = Vec::new();
            for p in &c.params {
                let t = self.resolve_type(&p.ty)?;
                if matches!(t, Ty::PacketIn | Ty::PacketOut) {
                    // the one packet: the caller passes its own on
                    // (`call_with_params` checks it)
                    self.bind(&p.name, Val::Packet(t == Ty::PacketOut))?;
                    params.push((p.direction, Place::at(0, 0), t));
                    names.push(p.name.to_string());
                    continue;
                }
                let pl = self.alloc(&t);
                self.bind(&p.name, Val::Place(pl.clone(), t.clone()))?;
                params.push((p.direction, pl, t));
                names.push(p.name.to_string());
            }
            self.block_kind = BlockKind::Control;
            let body = self.control_body(c)?;
            self.bodies.push(body);
            self.controls.push(ControlInst {
                body: self.bodies.len() as u32 - 1,
                params,
                names,
            });
            Ok(Val::Control(self.controls.len() as u32 - 1))
        })();
        self.depth -= 1;
        self.scopes = saved_scopes;
        self.prefix = saved_prefix;
        self.block_kind = saved_kind;
        self.loop_depth = saved_loops;
        self.ret_place = saved_ret;
        r
    }
}
