//! Actions and tables: keys, const entries, action binding, table application.

use super::*;

impl<'p> Compiler<'p> {
    pub(super) fn lower_action(&mut self, a: &ast::ActionDecl) -> Res<u32> {
        let name = self.fq_name(&a.name, &a.annotations);
        self.scopes.push(HashMap::new());
        let saved_kind = self.block_kind;
        let saved_loops = std::mem::take(&mut self.loop_depth);
        let saved_params = std::mem::take(&mut self.action_param_slots);
        self.block_kind = BlockKind::Control;
        let r = (|| -> Res<u32> {
            let mut params = Vec::new();
            let mut decl_params = Vec::new();
            let pre = Vec::new();
            let mut seen_cp = false;
            for p in &a.params {
                let t = self.resolve_type(&p.ty)?;
                let control_plane = p.direction == ast::Direction::None;
                // a header or struct can be passed in, out or inout (never
                // by the control plane); it is not a ParamIr, which lists
                // scalar slots
                let b = match self.scalar_bt(&t) {
                    Some(b) => Some(b),
                    None if !control_plane && matches!(t, Ty::Struct(_)) => None,
                    None => {
                        return unsupported(
                            p.ty.span,
                            format!(
                                "{}action parameters of type {}",
                                if control_plane { "directionless " } else { "" },
                                ty_name(self, &t)
                            ),
                        );
                    }
                };
                if control_plane {
                    seen_cp = true;
                } else if seen_cp {
                    return err(p.span, "directionless action parameters must come last");
                }
                let pl = self.alloc(&t);
                decl_params.push((p.direction, pl.clone(), t.clone(), p.name.to_string()));
                if let Some(b) = b {
                    let slot = if is_wide(b.width()) { pl.w } else { pl.n };
                    if control_plane {
                        self.action_param_slots.push((slot, is_wide(b.width())));
                    }
                    params.push(ParamIr {
                        name: p.name.to_string(),
                        ty: b,
                        slot,
                        control_plane,
                    });
                }
                self.bind(&p.name, Val::Place(pl, t))?;
            }
            let mut body = pre;
            self.block(&a.body, &mut body)?;
            self.actions.push(ActionIr { name, params, body });
            let id = self.actions.len() as u32 - 1;
            self.action_params.insert(id, decl_params);
            Ok(id)
        })();
        self.block_kind = saved_kind;
        self.loop_depth = saved_loops;
        self.action_param_slots = saved_params;
        self.scopes.pop();
        r
    }

    pub(super) fn lower_table(&mut self, t: &ast::TableDecl) -> Res<u32> {
        let name = self.fq_name(&t.name, &t.annotations);
        let mut keys = Vec::new();
        for k in t.key().unwrap_or(&[]) {
            let v = self.expr(&k.expr)?;
            let (ex, kt) = self.rvalue(v, k.expr.span)?;
            let Some(b) = self.scalar_bt(&kt) else {
                return err(k.expr.span, "table keys must be scalar values");
            };
            if b.width() > 128 {
                return unsupported(k.expr.span, "table key fields wider than 128 bits");
            }
            let kind = match k.match_kind.as_str() {
                "exact" => MatchKind::Exact,
                "lpm" => MatchKind::Lpm,
                "ternary" => MatchKind::Ternary,
                "range" => MatchKind::Range,
                "optional" => MatchKind::Optional,
                "selector" => {
                    return unsupported(
                        k.match_kind.span,
                        "the `selector` match kind (action selectors)",
                    );
                }
                other => return err(k.match_kind.span, format!("unknown match kind `{other}`")),
            };
            let key_name = ast::find_annotation(&k.annotations, "name")
                .and_then(|a| a.string_argument())
                .map(str::to_string)
                .unwrap_or_else(|| {
                    let text: String = self
                        .program
                        .sources
                        .snippet(k.expr.span)
                        .split_whitespace()
                        .collect();
                    // p4c names an `isValid()` key `<header>.$valid$`
                    match text.strip_suffix(".isValid()") {
                        Some(h) => format!("{h}.$valid$"),
                        None => text,
                    }
                });
            keys.push(KeyIr {
                name: key_name,
                ex,
                width: b.width(),
                kind,
            });
        }
        if keys.iter().filter(|k| k.kind == MatchKind::Lpm).count() > 1 {
            return err(t.span, "a table can have at most one lpm key");
        }
        let mut actions = Vec::new();
        for a in t.actions().unwrap_or(&[]) {
            let v = self.lookup(&a.name)?;
            let Val::Action(id) = v else {
                return err(
                    a.name.name.span,
                    format!("`{}` is not an action", a.name.name),
                );
            };
            if actions
                .iter()
                .any(|x: &TableAction| self.unbound(x.action) == id)
            {
                return err(a.span, format!("action `{}` is listed twice", a.name.name));
            }
            let id = if a.args.is_empty() {
                id
            } else {
                self.bind_action_args(id, a)?
            };
            actions.push(TableAction {
                action: id,
                default_only: ast::find_annotation(&a.annotations, "defaultonly").is_some(),
                table_only: ast::find_annotation(&a.annotations, "tableonly").is_some(),
            });
        }
        if t.actions().is_none() {
            return err(
                t.name.span,
                format!("table `{}` has no `actions` property", t.name),
            );
        }
        let default_action;
        let mut default_const = false;
        if let Some((a, is_const)) = t.default_action() {
            default_const = is_const;
            let (pos, args) = self.table_action_call(&actions, a, true)?;
            if actions[pos].table_only {
                return err(a.span, "a @tableonly action cannot be the default action");
            }
            default_action = Some((pos, args));
        } else {
            // no `default_action`: NoAction, as p4c makes it
            default_action = actions
                .iter()
                .position(|a| {
                    self.actions
                        .get(a.action as usize)
                        .is_some_and(|x| x.name == "NoAction")
                })
                .map(|pos| (pos, Vec::new()));
        }
        let mut const_entries = Vec::new();
        let mut entries_const = false;
        if let Some((entries, is_const)) = t.entries() {
            entries_const = is_const;
            let n = entries.len() as i64;
            // BMv2's `@priority(v)` (p4c's non-standard annotation): the
            // smallest value wins, and an entry without one takes the
            // previous entry's value plus one (the first, 1).
            let bmv2_priorities = entries.iter().any(|e| {
                e.priority.is_none() && ast::find_annotation(&e.annotations, "priority").is_some()
            });
            let mut previous_bmv2_priority = 0i64;
            for (i, e) in entries.iter().enumerate() {
                let keysets: Vec<ast::Keyset> = if e.keys.len() == 1
                    && keys.len() != 1
                    && matches!(
                        e.keys[0],
                        ast::Keyset::Default(_) | ast::Keyset::DontCare(_)
                    ) {
                    vec![e.keys[0].clone(); keys.len()]
                } else {
                    e.keys.clone()
                };
                if keysets.len() != keys.len() {
                    return err(
                        e.span,
                        format!(
                            "the table has {} keys but this entry has {}",
                            keys.len(),
                            keysets.len()
                        ),
                    );
                }
                let mut km = Vec::new();
                for (k, ks) in keys.iter().zip(&keysets) {
                    km.push(self.entry_key(k, ks, e.span)?);
                }
                let priority = match (
                    &e.priority,
                    ast::find_annotation(&e.annotations, "priority"),
                ) {
                    (Some(p), _) => i64::from(self.const_u32(p, "an entry priority")?),
                    (None, Some(a)) => match a.integer_argument().and_then(|l| l.to_u128()) {
                        Some(v) => {
                            previous_bmv2_priority = i64::try_from(v).unwrap_or(i64::MAX);
                            -previous_bmv2_priority
                        }
                        None => return err(a.span, "@priority needs an integer"),
                    },
                    (None, None) if bmv2_priorities => {
                        previous_bmv2_priority = previous_bmv2_priority.saturating_add(1);
                        -previous_bmv2_priority
                    }
                    (None, None) => n - i as i64,
                };
                let (pos, args) = self.table_action_call(&actions, &e.action, true)?;
                if actions[pos].default_only {
                    return err(
                        e.action.span,
                        "a @defaultonly action cannot be used in an entry",
                    );
                }
                const_entries.push(EntryIr {
                    keys: km,
                    priority,
                    action: pos,
                    args,
                });
            }
        }
        let mut size = 1024;
        let mut direct_counter = None;
        let mut direct_meter = None;
        let mut profile = None;
        for p in &t.properties {
            let ast::TablePropertyKind::Other { name: pn, value } = &p.kind else {
                continue;
            };
            match pn.as_str() {
                "size" => size = u64::from(self.const_u32(value, "a table size")?),
                "counters" => match self.expr(value)? {
                    Val::Extern(ExternInst::DirectCounter(c)) => direct_counter = Some(c),
                    _ => return err(value.span, "`counters` must name a direct_counter"),
                },
                // PSA's: its DirectCounter counts on a hit as v1model's
                // does (psa_switch's; `count()` in an action adds nothing)
                "psa_direct_counter" if self.is_psa() => match self.expr(value)? {
                    Val::Extern(ExternInst::DirectCounter(c)) => direct_counter = Some(c),
                    _ => {
                        return err(value.span, "`psa_direct_counter` must name a DirectCounter");
                    }
                },
                "psa_idle_timeout" if self.is_psa() => {}
                "meters" => match self.expr(value)? {
                    Val::Extern(ExternInst::DirectMeter(m)) => direct_meter = Some(m),
                    _ => return err(value.span, "`meters` must name a direct_meter"),
                },
                "implementation" | "psa_implementation"
                    if (pn.as_str() == "psa_implementation") == self.is_psa() =>
                {
                    profile = Some(self.implementation(p, value, &name)?);
                }
                "support_timeout" | "psa_direct_counter" | "psa_direct_meter" => {}
                other => {
                    return unsupported(pn.span, format!("table property `{other}`"));
                }
            }
        }
        if profile.is_some() && !const_entries.is_empty() {
            return err(
                t.span,
                "entries of a table with an action profile come from the control plane (members)",
            );
        }
        let id = self.tables.len() as u32;
        if let Some(ci) = direct_counter.and_then(|c| self.counters.get_mut(c as usize)) {
            if ci.table.is_some() {
                return err(t.span, "a direct_counter can belong to one table only");
            }
            ci.table = Some(id);
            ci.size = size;
        }
        if let Some(mi) = direct_meter.and_then(|m| self.meters.get_mut(m as usize)) {
            if mi.table.is_some() {
                return err(t.span, "a direct_meter can belong to one table only");
            }
            mi.table = Some(id);
            mi.size = size;
        }
        self.table_spans.push(t.span);
        self.tables.push(TableIr {
            name,
            keys,
            actions,
            default_action,
            default_const,
            const_entries,
            entries_const,
            size,
            direct_counter,
            direct_meter,
            profile,
        });
        Ok(id)
    }

    /// A table's `implementation` (`psa_implementation`): an action
    /// profile instance, or one constructed in place (named by its
    /// `@name`, else after the table). Selectors are refused.
    fn implementation(
        &mut self,
        p: &ast::TableProperty,
        value: &ast::Expr,
        table: &str,
    ) -> Res<ProfileIr> {
        if let ExprKind::Call { callee, args, .. } = &value.kind
            && let ExprKind::Name(c) = &callee.kind
            && matches!(c.name.as_str(), "action_profile" | "ActionProfile")
        {
            let [size] = args.as_slice() else {
                return err(value.span, "an action profile takes one argument, its size");
            };
            let size = u64::from(self.const_u32(&size.value, "an action profile size")?);
            let name = p
                .annotations
                .iter()
                .find(|a| a.name.as_str() == "name")
                .and_then(|a| a.string_argument())
                .map_or_else(
                    || table.to_string(),
                    |n| n.strip_prefix('.').unwrap_or(n).to_string(),
                );
            return Ok(ProfileIr { name, size });
        }
        if let ExprKind::Call { callee, .. } = &value.kind
            && let ExprKind::Name(c) = &callee.kind
            && matches!(c.name.as_str(), "action_selector" | "ActionSelector")
        {
            return unsupported(value.span, "action selectors");
        }
        match self.expr(value)? {
            Val::Extern(ExternInst::ActionProfile(k)) => Ok(self.profiles[k as usize].clone()),
            _ => err(
                value.span,
                "a table's implementation must be an action profile",
            ),
        }
    }

    pub(super) fn entry_key(&mut self, k: &KeyIr, ks: &ast::Keyset, span: Span) -> Res<KeyMatch> {
        let t = Ty::Bit(k.width);
        let full = if k.width >= 128 {
            u128::MAX
        } else {
            (1u128 << k.width) - 1
        };
        let val = |c: &mut Self, e: &ast::Expr| -> Res<u128> {
            let v = c.expr(e)?;
            let v = match v {
                Val::Scalar(ex, Ty::Bool) => Val::Scalar(ex, Ty::Bit(1)),
                Val::Scalar(ex, Ty::Enum(_))
                | Val::Scalar(ex, Ty::Error)
                | Val::Scalar(ex, Ty::Int(_)) => Val::Scalar(ex, t.clone()),
                v => v,
            };
            let ex = c.coerce(v, &t, e.span)?;
            match ex {
                Ex::Const(v) => Ok(u128::from(v)),
                Ex::ConstW(b) => Ok(b.low_u128()),
                _ => err(e.span, "entry keys must be compile-time constants"),
            }
        };
        Ok(match ks {
            ast::Keyset::Default(_) | ast::Keyset::DontCare(_) => match k.kind {
                MatchKind::Exact => return err(span, "an exact key cannot be `_` or `default`"),
                MatchKind::Range => KeyMatch::Range(0, full),
                _ => KeyMatch::Masked(0, 0),
            },
            ast::Keyset::Expr(e) => {
                let v = val(self, e)?;
                match k.kind {
                    MatchKind::Range => KeyMatch::Range(v, v),
                    _ => KeyMatch::Masked(v, full),
                }
            }
            ast::Keyset::Mask { value, mask: m } => {
                if matches!(
                    k.kind,
                    MatchKind::Exact | MatchKind::Range | MatchKind::Optional
                ) {
                    return err(
                        span,
                        format!("a mask cannot be used with a {} key", k.kind.name()),
                    );
                }
                let v = val(self, value)?;
                let m = val(self, m)?;
                if k.kind == MatchKind::Lpm {
                    let ones = m.count_ones();
                    let low = if k.width - ones >= 128 {
                        u128::MAX
                    } else {
                        (1u128 << (k.width - ones)) - 1
                    };
                    if ones > k.width || m != full & !low {
                        return err(span, "an lpm mask must be a prefix");
                    }
                }
                KeyMatch::Masked(v & m, m)
            }
            ast::Keyset::Range { lo, hi } => {
                if k.kind != MatchKind::Range {
                    return err(
                        span,
                        format!("a range cannot be used with a {} key", k.kind.name()),
                    );
                }
                KeyMatch::Range(val(self, lo)?, val(self, hi)?)
            }
        })
    }

    /// Resolves `action(args)` in a table's default or entry: its position
    /// in the table's action list and the control-plane argument values.
    /// The action a table's action `id` runs: itself, or the one it binds.
    pub(super) fn unbound(&self, id: u32) -> u32 {
        self.bound_actions.get(&id).copied().unwrap_or(id)
    }

    /// `a(args)` in a table's `actions` list: an action with the same name
    /// and control-plane parameters whose body passes `args` to `a`'s
    /// directional parameters (evaluated when the action runs, copied
    /// back after it) and runs `a`.
    pub(super) fn bind_action_args(&mut self, id: u32, a: &ast::ActionRef) -> Res<u32> {
        let info = self.action_params.get(&id).cloned().unwrap_or_default();
        let (directional, plane): (Vec<_>, Vec<_>) = info
            .into_iter()
            .partition(|(d, ..)| *d != ast::Direction::None);
        if a.args.len() != directional.len() {
            return err(
                a.span,
                format!(
                    "action `{}` has {} directional parameters; the actions list binds {}",
                    a.name.name,
                    directional.len(),
                    a.args.len()
                ),
            );
        }
        let params: Vec<(ast::Direction, Place, Ty)> = directional
            .iter()
            .map(|(d, p, t, _)| (*d, p.clone(), t.clone()))
            .collect();
        let names: Vec<String> = directional.iter().map(|x| x.3.clone()).collect();
        let orig = self.actions[id as usize].clone();
        let what = format!("action `{}`", orig.name);
        let body =
            self.call_with_params(&params, &names, &a.args, &what, a.span, St::RunAction(id))?;
        self.actions.push(ActionIr {
            name: orig.name,
            params: orig
                .params
                .into_iter()
                .filter(|p| p.control_plane)
                .collect(),
            body,
        });
        let bound = self.actions.len() as u32 - 1;
        self.action_params.insert(bound, plane);
        self.bound_actions.insert(bound, id);
        Ok(bound)
    }

    pub(super) fn table_action_call(
        &mut self,
        actions: &[TableAction],
        a: &ast::ActionRef,
        require_all: bool,
    ) -> Res<(usize, Vec<ArgValue>)> {
        let v = self.lookup(&a.name)?;
        let Val::Action(id) = v else {
            return err(
                a.name.name.span,
                format!("`{}` is not an action", a.name.name),
            );
        };
        let Some(pos) = actions.iter().position(|x| self.unbound(x.action) == id) else {
            return err(
                a.name.name.span,
                format!(
                    "action `{}` is not in the table's actions list",
                    a.name.name
                ),
            );
        };
        // the action the table runs (made by `bind_action_args` when the
        // actions list binds arguments)
        let id = actions[pos].action;
        let params: Vec<ParamIr> = self.actions[id as usize].params.clone();
        let cp: Vec<&ParamIr> = params.iter().filter(|p| p.control_plane).collect();
        let declared = self.action_params.get(&id).map_or(0, Vec::len);
        if declared != cp.len() {
            return unsupported(a.span, "actions with directional parameters in tables");
        }
        // `default_action = a(bound..., values...)` repeats the arguments the
        // actions list bound; entries give the values only
        let skip = match self.bound_actions.get(&id) {
            Some(&orig) if a.args.len() > cp.len() => {
                let bound = self
                    .action_params
                    .get(&orig)
                    .map_or(0, |ps| ps.len() - cp.len());
                if a.args.len() != bound + cp.len() {
                    return err(
                        a.span,
                        format!(
                            "action `{}` takes {} arguments after the {bound} the actions list \
                             binds, {} given",
                            a.name.name,
                            cp.len(),
                            a.args.len().saturating_sub(bound)
                        ),
                    );
                }
                bound
            }
            _ => 0,
        };
        if require_all && a.args.len() - skip != cp.len() {
            return err(
                a.span,
                format!(
                    "action `{}` takes {} arguments, {} given",
                    a.name.name,
                    cp.len(),
                    a.args.len()
                ),
            );
        }
        let mut args = Vec::new();
        for (p, arg) in cp.iter().zip(&a.args[skip..]) {
            let t = if p.ty.is_signed() {
                Ty::Int(p.ty.width())
            } else {
                Ty::Bit(p.ty.width())
            };
            let v = self.expr(&arg.value)?;
            let v = match v {
                Val::Scalar(ex, Ty::Bool) if p.ty.width() == 1 => Val::Scalar(ex, Ty::Bit(1)),
                v => v,
            };
            let ex = self.coerce(v, &t, arg.value.span)?;
            args.push(match ex {
                Ex::Const(c) => ArgValue::N(c),
                Ex::ConstW(b) => ArgValue::W(b),
                _ => return err(arg.value.span, "action arguments here must be constants"),
            });
        }
        Ok((pos, args))
    }

    // ---- statements ----------------------------------------------------
}
