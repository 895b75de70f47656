//! The Tofino Native Architecture (TNA, Tofino 1) in the checker: the
//! `Switch(Pipeline(...))` package laid into the v1model shape of
//! [`Compiled`] (see [`TnaIr`]), and the TNA externs p4sim runs —
//! `Register`, `RegisterAction` (its `apply` body and `this.predicate`),
//! `Counter`, `DirectCounter`, `Checksum` and `Resubmit`. Every other TNA
//! extern is refused by name.

use super::*;

/// A `RegisterAction`: its register, the places its `apply` runs on, and
/// the lowered body.
#[derive(Debug, Clone)]
pub(super) struct RegAction {
    reg: u32,
    /// `value`: the cell, as type `T`.
    value: (Place, Ty),
    /// `rv`, when `apply` declares it.
    rv: Option<(Place, Ty)>,
    /// `U`, what `execute` returns.
    ret: Ty,
    /// `I`, the index type.
    index: Ty,
    body: u32,
}

/// The intrinsic metadata types TNA passes to its blocks, by name.
/// [`Compiler::arch`] of a TNA program.
const TNA_ARCH: &str = "the TNA Pipeline";

const INTRINSICS: [&str; 8] = [
    "ingress_intrinsic_metadata_t",
    "ingress_intrinsic_metadata_for_tm_t",
    "ingress_intrinsic_metadata_from_parser_t",
    "ingress_intrinsic_metadata_for_deparser_t",
    "egress_intrinsic_metadata_t",
    "egress_intrinsic_metadata_from_parser_t",
    "egress_intrinsic_metadata_for_deparser_t",
    "egress_intrinsic_metadata_for_output_port_t",
];

/// TNA externs p4sim does not run.
const UNSUPPORTED: &[&str] = &[
    "Random",
    "CRCPolynomial",
    "Meter",
    "DirectMeter",
    "Lpf",
    "DirectLpf",
    "Wred",
    "DirectWred",
    "DirectRegister",
    "DirectRegisterAction",
    "RegisterParam",
    "MathUnit",
    "ActionProfile",
    "ActionSelector",
    "SelectorAction",
    "Mirror",
    "Digest",
    "ParserCounter",
    "ParserPriority",
    "Atcam",
    "Alpm",
];

impl<'p> Compiler<'p> {
    /// Compiles the program whose `main` is a TNA `Switch`.
    /// Whether the program being compiled is a TNA one.
    pub(super) fn is_tna(&self) -> bool {
        self.arch == TNA_ARCH
    }

    pub(super) fn run_tna(&mut self, main: &'p ast::Instantiation) -> Res<Compiled> {
        self.arch = TNA_ARCH;
        self.tna_main_span = main.span;
        if main.args.len() != 1 {
            return unsupported(
                main.span,
                "a Switch of more than one pipeline (p4sim runs pipe0 only)",
            );
        }
        let pipe_args = self.package_args(&main.args[0].value, "Pipeline")?;
        if pipe_args.len() != 6 {
            return err(
                main.span,
                format!("Pipeline takes 6 arguments, {} given", pipe_args.len()),
            );
        }
        let blocks: Vec<(&'p Declaration, Vec<ast::Argument>, Span)> = pipe_args
            .iter()
            .map(|a| self.block_arg(&a.value))
            .collect::<Res<_>>()?;
        const WHAT: [&str; 6] = [
            "ingress parser",
            "ingress control",
            "ingress deparser",
            "egress parser",
            "egress control",
            "egress deparser",
        ];
        for (i, (d, _, span)) in blocks.iter().enumerate() {
            let parser = i == 0 || i == 3;
            let ok = match d {
                Declaration::Parser(_) => parser,
                Declaration::Control(_) => !parser,
                _ => false,
            };
            if !ok {
                return err(
                    *span,
                    format!("argument {} of Pipeline must be the {}", i + 1, WHAT[i]),
                );
            }
        }
        let (Declaration::Parser(ig_parser), Declaration::Parser(eg_parser)) =
            (blocks[0].0, blocks[3].0)
        else {
            return err(main.span, "Pipeline needs two parsers");
        };
        for p in [ig_parser, eg_parser] {
            if p.params.len() < 3 {
                return err(
                    p.span,
                    "a TNA parser takes packet_in, headers and metadata, then intrinsic metadata",
                );
            }
        }
        // Hidden slots first: which half runs, the standard metadata the
        // v1model driver code reads, the resubmit choice.
        let gress = self.alloc(&Ty::Bit(1)).n;
        let mut hidden = || self.alloc(&Ty::Bit(ERROR_WIDTH)).n;
        let std_meta = StdMeta {
            ingress_port: hidden(),
            egress_spec: hidden(),
            egress_port: hidden(),
            instance_type: hidden(),
            packet_length: hidden(),
            ingress_global_timestamp: hidden(),
            egress_global_timestamp: hidden(),
            mcast_grp: hidden(),
            egress_rid: hidden(),
            checksum_error: hidden(),
            parser_error: hidden(),
            priority: hidden(),
        };
        let resubmit = hidden();
        self.tna_resubmit = Some(resubmit);
        let mut intr: Vec<(Place, Ty)> = Vec::new();
        for name in INTRINSICS {
            let t = self.named_type(&ident(name, main.span))?;
            if !matches!(t, Ty::Struct(_)) {
                return err(main.span, format!("{name} must be a header or struct"));
            }
            intr.push((Place::at(0, 0), t));
        }
        // the ingress half
        for (p, t) in intr.iter_mut().take(4) {
            *p = self.alloc(t);
        }
        let ih_ty = self.resolve_type(&ig_parser.params[1].ty)?;
        let im_ty = self.resolve_type(&ig_parser.params[2].ty)?;
        let ih = self.alloc(&ih_ty);
        let im = self.alloc(&im_ty);
        let ig_vals = |c: &Compiler<'_>, params: &[ast::Param], lead: Vec<(Val, Ty)>| {
            c.tna_block_args(params, lead, &intr)
        };
        let (ivals, itys) = ig_vals(
            self,
            &ig_parser.params,
            vec![
                (Val::Packet(false), Ty::PacketIn),
                (Val::Place(ih.clone(), ih_ty.clone()), ih_ty.clone()),
                (Val::Place(im.clone(), im_ty.clone()), im_ty.clone()),
            ],
        )?;
        let (ig_init, ig_states) = self.lower_parser(ig_parser, &blocks[0].1, ivals, itys)?;
        let control = |c: &mut Compiler<'p>,
                       k: usize,
                       lead: Vec<(Val, Ty)>,
                       intr: &[(Place, Ty)]|
         -> Res<Vec<St>> {
            let (d, args, span) = &blocks[k];
            let Declaration::Control(ctl) = d else {
                return err(*span, "expected a control");
            };
            let (vals, tys) = c.tna_block_args(&ctl.params, lead, intr)?;
            c.lower_top_control(ctl, args, vals, tys)
        };
        let hv = (Val::Place(ih.clone(), ih_ty.clone()), ih_ty.clone());
        let mv = (Val::Place(im.clone(), im_ty.clone()), im_ty.clone());
        let ingress = control(self, 1, vec![hv.clone(), mv.clone()], &intr)?;
        let ig_deparser = control(
            self,
            2,
            vec![(Val::Packet(true), Ty::PacketOut), hv, mv],
            &intr,
        )?;
        // the egress half: everything allocated from here is reset per copy
        let (egress_n0, egress_w0) = (self.n_slots, self.w_init.len() as u32);
        for (p, t) in intr.iter_mut().skip(4) {
            *p = self.alloc(t);
        }
        let eh_ty = self.resolve_type(&eg_parser.params[1].ty)?;
        let em_ty = self.resolve_type(&eg_parser.params[2].ty)?;
        let eh = self.alloc(&eh_ty);
        let em = self.alloc(&em_ty);
        let (evals, etys) = self.tna_block_args(
            &eg_parser.params,
            vec![
                (Val::Packet(false), Ty::PacketIn),
                (Val::Place(eh.clone(), eh_ty.clone()), eh_ty.clone()),
                (Val::Place(em.clone(), em_ty.clone()), em_ty.clone()),
            ],
            &intr,
        )?;
        let (eg_init, eg_states) = self.lower_parser(eg_parser, &blocks[3].1, evals, etys)?;
        let hv = (Val::Place(eh.clone(), eh_ty.clone()), eh_ty.clone());
        let mv = (Val::Place(em.clone(), em_ty.clone()), em_ty.clone());
        let egress = control(self, 4, vec![hv.clone(), mv.clone()], &intr)?;
        let eg_deparser = control(
            self,
            5,
            vec![(Val::Packet(true), Ty::PacketOut), hv, mv],
            &intr,
        )?;
        if self.too_large {
            return unsupported(
                main.span,
                format!("programs with more than {MAX_SLOTS} scalar values"),
            );
        }
        self.check_indirect_externs()?;
        self.check_single_access(&ingress, &egress)?;
        self.check_stages(&ingress, &egress)?;
        let egress_n = egress_n0..self.n_slots;
        let egress_w = egress_w0..self.w_init.len() as u32;

        // One parser: state 0 picks the ingress (1..) or egress parser.
        let parser = psa::join_halves(gress, ig_states, eg_states);
        let mut parser_init = ig_init;
        parser_init.extend(eg_init);
        let deparser = vec![St::If(
            Ex::Bin(NOp::Eq, 1, Box::new((Ex::Load(gress), Ex::Const(0)))),
            ig_deparser,
            eg_deparser,
        )];

        let slot = |c: &Compiler<'_>, k: usize, field: &str| -> Res<u32> {
            let (p, t) = &intr[k];
            let Ty::Struct(i) = t else {
                return err(main.span, format!("{} is not a struct", INTRINSICS[k]));
            };
            let s = &c.structs[*i as usize];
            match s.fields.iter().find(|f| f.name.as_ref() == field) {
                Some(f) if c.size(&f.ty) == (1, 0) => Ok(p.n + f.n_off),
                _ => err(
                    main.span,
                    format!(
                        "{} has no field `{field}` of at most 64 bits",
                        INTRINSICS[k]
                    ),
                ),
            }
        };
        let header = |c: &Compiler<'_>, k: usize| -> Res<IntrinsicHeader> {
            let (p, t) = &intr[k];
            let h = c.header_ref(p, t, main.span)?;
            let Some(s) = c.header_info(t) else {
                return err(main.span, format!("{} must be a header", INTRINSICS[k]));
            };
            if h.bits % 8 != 0 {
                return err(
                    main.span,
                    format!("{} must be a whole number of bytes", INTRINSICS[k]),
                );
            }
            Ok(IntrinsicHeader {
                names: s.fields.iter().map(|f| f.name.to_string()).collect(),
                fields: h.fields.to_vec(),
                bits: h.bits,
            })
        };
        let tna = TnaIr {
            gress,
            ig_intr: header(self, 0)?,
            eg_intr: header(self, 4)?,
            ig_global_tstamp: slot(self, 2, "global_tstamp")?,
            ig_parser_err: slot(self, 2, "parser_err")?,
            ig_drop_ctl: slot(self, 3, "drop_ctl")?,
            ucast_egress_port: slot(self, 1, "ucast_egress_port")?,
            bypass_egress: slot(self, 1, "bypass_egress")?,
            mcast_grp_a: slot(self, 1, "mcast_grp_a")?,
            mcast_grp_b: slot(self, 1, "mcast_grp_b")?,
            eg_global_tstamp: slot(self, 5, "global_tstamp")?,
            eg_parser_err: slot(self, 5, "parser_err")?,
            eg_drop_ctl: slot(self, 6, "drop_ctl")?,
            egress_n,
            egress_w,
            resubmit,
            resubmit_headers: std::mem::take(&mut self.resubmit_headers),
        };
        Ok(Compiled {
            n_slots: self.n_slots,
            w_init: std::mem::take(&mut self.w_init),
            meta_n: 0..0,
            // TNA's packet flow keeps its own state among the slots: all
            // of them are zeroed
            packet_n: self.n_slots,
            meta_w: 0..0,
            std_meta,
            field_lists: HashMap::new(),
            errors: std::mem::take(&mut self.errors),
            parser,
            parser_init,
            verify_checksum: Vec::new(),
            ingress,
            egress,
            compute_checksum: Vec::new(),
            deparser,
            bodies: std::mem::take(&mut self.bodies),
            actions: std::mem::take(&mut self.actions),
            tables: std::mem::take(&mut self.tables),
            registers: std::mem::take(&mut self.registers),
            counters: std::mem::take(&mut self.counters),
            meters: std::mem::take(&mut self.meters),
            tna: Some(Box::new(tna)),
            psa: None,
        })
    }

    /// The values and types for a TNA block's parameters: `lead` for the
    /// first ones (packet, headers, metadata), then each intrinsic
    /// metadata parameter by its type (they are optional, in any subset).
    fn tna_block_args(
        &self,
        params: &[ast::Param],
        lead: Vec<(Val, Ty)>,
        intr: &[(Place, Ty)],
    ) -> Res<(Vec<Val>, Vec<Ty>)> {
        let mut vals = Vec::new();
        let mut tys = Vec::new();
        let n = lead.len();
        for (v, t) in lead {
            vals.push(v);
            tys.push(t);
        }
        for p in params.iter().skip(n) {
            let name = match &p.ty.kind {
                ast::TypeKind::Name(path) => path.name.as_str(),
                _ => "",
            };
            let Some(k) = INTRINSICS.iter().position(|i| *i == name) else {
                return err(
                    p.ty.span,
                    format!(
                        "parameter `{}`: a TNA block takes only intrinsic metadata after its headers and metadata",
                        p.name
                    ),
                );
            };
            vals.push(Val::Place(intr[k].0.clone(), intr[k].1.clone()));
            tys.push(intr[k].1.clone());
        }
        Ok((vals, tys))
    }

    /// Instantiates a TNA extern; `None` when `base` is not one.
    pub(super) fn instantiate_tna(
        &mut self,
        base: &ast::Ident,
        targs: &[ast::Type],
        i: &ast::Instantiation,
        name: String,
    ) -> Res<Option<Val>> {
        let b = base.as_str();
        if UNSUPPORTED.contains(&b) {
            return unsupported(i.ty.span, format!("the TNA `{b}` extern"));
        }
        let targ = |c: &mut Compiler<'_>, k: usize| -> Res<Ty> {
            match targs.get(k) {
                Some(t) => c.resolve_type(t),
                None => err(i.ty.span, format!("`{b}` needs {} type arguments", k + 1)),
            }
        };
        let v = match b {
            "Register" => {
                let t = targ(self, 0)?;
                let index = targ(self, 1)?;
                if !(1..=2).contains(&i.args.len()) {
                    return err(
                        i.span,
                        "Register takes a size and an optional initial value",
                    );
                }
                let cell = self.cell_type(&t, i.ty.span)?;
                self.check_cell(&t, i.span)?;
                let size = u64::from(self.const_u32(&i.args[0].value, "a register size")?);
                if size > MAX_CELLS {
                    return unsupported(
                        i.span,
                        format!("registers of more than {MAX_CELLS} cells"),
                    );
                }
                if let Some(a) = i.args.get(1) {
                    let v = self.expr(&a.value)?;
                    if !self.is_zero_value(&v) {
                        return unsupported(
                            a.value.span,
                            "register initial values other than zero",
                        );
                    }
                }
                self.registers.push(RegisterIr {
                    name,
                    size,
                    ty: cell,
                });
                let r = self.registers.len() as u32 - 1;
                self.tna_registers.insert(r, (t, index));
                self.tna_register_spans.insert(r, i.span);
                Val::Extern(ExternInst::TnaRegister(r))
            }
            "RegisterAction" => {
                let t = targ(self, 0)?;
                let index = targ(self, 1)?;
                let ret = targ(self, 2)?;
                if i.args.len() != 1 {
                    return err(i.span, "RegisterAction takes one argument, its Register");
                }
                let Val::Extern(ExternInst::TnaRegister(reg)) = self.expr(&i.args[0].value)? else {
                    return err(
                        i.args[0].value.span,
                        "the argument of RegisterAction must be a Register",
                    );
                };
                let (rt, rit) = self
                    .tna_registers
                    .get(&reg)
                    .cloned()
                    .unwrap_or((Ty::Void, Ty::Void));
                if rt != t || rit != index {
                    return err(
                        i.ty.span,
                        format!(
                            "RegisterAction<{}, {}, ..> on a Register<{}, {}>",
                            ty_name(self, &t),
                            ty_name(self, &index),
                            ty_name(self, &rt),
                            ty_name(self, &rit)
                        ),
                    );
                }
                if self.scalar_bt(&ret).is_none()
                    || is_wide(self.scalar_bt(&ret).map_or(0, |b| b.width()))
                {
                    return unsupported(
                        i.ty.span,
                        "RegisterAction results wider than 64 bits or not scalar",
                    );
                }
                let k = self.lower_register_action(reg, t, index, ret, i)?;
                Val::Extern(ExternInst::RegisterAction(k))
            }
            "Counter" | "DirectCounter" => self.counter_instance(i, name, b == "DirectCounter")?,
            "Checksum" => {
                if !i.args.is_empty() {
                    return unsupported(i.span, "Checksum with arguments");
                }
                let acc = self.alloc(&Ty::Bit(16)).n;
                Val::Extern(ExternInst::Checksum(acc))
            }
            "Hash" => {
                // HashAlgorithm_t.CRC16 and CRC32 as bf-p4c configures
                // them (context.json: poly 0x18005 / 0x104c11db7, reflected,
                // init and final xor 0 / 0xffffffff): CRC-16/ARC and
                // CRC-32, the same as v1model's crc16 and crc32.
                let w = match targ(self, 0)? {
                    Ty::Bit(w) => w,
                    other => {
                        return err(
                            i.ty.span,
                            format!("Hash<W> needs a bit<W>, found {}", ty_name(self, &other)),
                        );
                    }
                };
                let [a] = i.args.as_slice() else {
                    return unsupported(i.span, "Hash with a CRCPolynomial (CUSTOM)");
                };
                let (algo, algo_width) = match self.enum_member_name(&a.value)?.as_str() {
                    "CRC16" => (crate::exec::hash::HashAlgorithm::Crc16, 16),
                    "CRC32" => (crate::exec::hash::HashAlgorithm::Crc32, 32),
                    other => {
                        return unsupported(
                            a.value.span,
                            format!("HashAlgorithm_t.{other} (p4sim runs CRC16 and CRC32)"),
                        );
                    }
                };
                if w > algo_width {
                    return unsupported(
                        i.ty.span,
                        format!("a Hash<bit<{w}>> wider than its algorithm's {algo_width} bits"),
                    );
                }
                Val::Extern(ExternInst::TnaHash(algo, w))
            }
            "Resubmit" => {
                if i.args.len() > 1 {
                    return err(i.span, "Resubmit takes at most one argument");
                }
                Val::Extern(ExternInst::Resubmit)
            }
            _ => return Ok(None),
        };
        if !i.initializer.is_empty() && !matches!(v, Val::Extern(ExternInst::RegisterAction(_))) {
            return err(
                i.span,
                format!("`{b}` has no abstract methods to implement"),
            );
        }
        Ok(Some(v))
    }

    /// The cell type of a TNA register of `T`: a scalar, or a struct of
    /// scalars packed first field highest.
    fn cell_type(&self, t: &Ty, span: Span) -> Res<BitType> {
        let w = match t {
            Ty::Bit(w) => return fits_u64(bt(*w, false), span),
            Ty::Int(w) => return fits_u64(bt(*w, true), span),
            Ty::Bool => return Ok(BitType::BIT1),
            Ty::Struct(i) => {
                let s = &self.structs[*i as usize];
                if s.kind != SKind::Struct {
                    return unsupported(span, "registers of headers");
                }
                let mut w = 0;
                for f in &s.fields {
                    match self.scalar_bt(&f.ty) {
                        Some(b) if !matches!(f.ty, Ty::Struct(_)) => w += b.width(),
                        _ => return unsupported(span, "register structs with non-scalar fields"),
                    }
                }
                w
            }
            other => {
                return unsupported(span, format!("registers of type {}", ty_name(self, other)));
            }
        };
        fits_u64(bt(w, false), span)
    }

    fn is_zero_value(&self, v: &Val) -> bool {
        match v {
            Val::Int(0) => true,
            Val::Scalar(Ex::Const(0), _) => true,
            Val::List(items) => items.iter().all(|x| self.is_zero_value(x)),
            Val::StructInit(items) => items.iter().all(|(_, x)| self.is_zero_value(x)),
            _ => false,
        }
    }

    /// Lowers a `RegisterAction`'s `apply` in the current scope (the
    /// declaring control's), once.
    fn lower_register_action(
        &mut self,
        reg: u32,
        t: Ty,
        index: Ty,
        ret: Ty,
        i: &ast::Instantiation,
    ) -> Res<u32> {
        let [apply] = i.initializer.as_slice() else {
            return err(
                i.span,
                "a RegisterAction implements exactly one method, `apply`, in its initializer",
            );
        };
        if apply.name.as_str() != "apply" {
            return err(apply.name.span, "a RegisterAction's method is `apply`");
        }
        if !(1..=2).contains(&apply.params.len()) {
            return err(
                apply.span,
                "apply takes (inout T value) or (inout T value, out U rv)",
            );
        }
        let p0 = &apply.params[0];
        if p0.direction != ast::Direction::InOut || self.resolve_type(&p0.ty)? != t {
            return err(
                p0.span,
                format!(
                    "apply's first parameter must be `inout {} value`",
                    ty_name(self, &t)
                ),
            );
        }
        let value = (self.alloc(&t), t.clone());
        let rv = match apply.params.get(1) {
            Some(p1) => {
                if p1.direction != ast::Direction::Out || self.resolve_type(&p1.ty)? != ret {
                    return err(
                        p1.span,
                        format!(
                            "apply's second parameter must be `out {} rv`",
                            ty_name(self, &ret)
                        ),
                    );
                }
                Some((self.alloc(&ret), ret.clone()))
            }
            None => None,
        };
        let width = self.scalar_bt(&ret).map_or(1, |b| b.width());
        let saved_kind = self.block_kind;
        let saved_loops = std::mem::take(&mut self.loop_depth);
        let saved_ret = self.ret_place.take();
        self.scopes.push(HashMap::new());
        let r = (|| -> Res<Vec<St>> {
            self.bind(&p0.name, Val::Place(value.0.clone(), value.1.clone()))?;
            if let (Some(p1), Some((pl, pt))) = (apply.params.get(1), &rv) {
                self.bind(&p1.name, Val::Place(pl.clone(), pt.clone()))?;
            }
            self.bind(
                &ident("this", i.span),
                Val::Extern(ExternInst::RegActionThis(width)),
            )?;
            self.block_kind = BlockKind::Function;
            let mut body = Vec::new();
            self.block(&apply.body, &mut body)?;
            let local: Vec<&str> = apply.params.iter().map(|p| p.name.as_str()).collect();
            let mut inputs = self.tna_salu_inputs.remove(&reg).unwrap_or_default();
            let r = self.check_salu(apply, &local, &mut inputs, i.span);
            self.tna_salu_inputs.insert(reg, inputs);
            r?;
            Ok(body)
        })();
        self.scopes.pop();
        self.block_kind = saved_kind;
        self.loop_depth = saved_loops;
        self.ret_place = saved_ret;
        self.bodies.push(r?);
        self.reg_actions.push(RegAction {
            reg,
            value,
            rv,
            ret,
            index,
            body: self.bodies.len() as u32 - 1,
        });
        Ok(self.reg_actions.len() as u32 - 1)
    }

    /// A method of a TNA extern instance; `None` when `inst` is not one.
    pub(super) fn tna_method(
        &mut self,
        inst: &ExternInst,
        m: &ast::Ident,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Option<Val>> {
        let name = m.as_str();
        let v = match (inst, name) {
            (ExternInst::RegisterAction(k), "execute") => {
                self.nargs(args, 1, "RegisterAction.execute", span)?;
                let ra = self.reg_actions[*k as usize].clone();
                let mut sts = Vec::new();
                let ip = self.alloc(&ra.index);
                let iv = self.expr(&args[0].value)?;
                let iv = self.coerce(iv, &ra.index, args[0].value.span)?;
                self.check_tofino_index(&iv, tofino::Indirect::Register(ra.reg), span)?;
                let iv = Val::Scalar(iv, ra.index.clone());
                self.assign(&ip, &ra.index, iv, args[0].value.span, &mut sts)?;
                let index = self.load(&ip, &ra.index);
                self.read_cell(ra.reg, &ra.value, index.clone(), &mut sts);
                if let Some((p, t)) = &ra.rv {
                    self.zero(p, t, &mut sts);
                }
                sts.push(St::RunBody(ra.body));
                let value = self.pack_cell(&ra.value);
                sts.push(St::Extern(Box::new(ExternCall::RegisterWrite {
                    reg: ra.reg,
                    index,
                    value,
                })));
                let out = match &ra.rv {
                    Some((p, t)) => self.load(p, t),
                    None => Ex::Const(0),
                };
                Val::Scalar(Ex::Seq(Box::new((sts, out))), ra.ret)
            }
            (ExternInst::RegActionThis(width), "predicate") => {
                if args.len() > 2 {
                    return err(span, "predicate takes at most two conditions");
                }
                let mut conds = Vec::new();
                for a in args {
                    let v = self.expr(&a.value)?;
                    conds.push(self.coerce(v, &Ty::Bool, a.value.span)?);
                }
                let w = (*width).max(4);
                let mut shift = Ex::Const(0);
                for (k, c) in conds.into_iter().enumerate() {
                    let c = Ex::Cond(Box::new((c, Ex::Const(1 << k), Ex::Const(0))));
                    shift = Ex::Bin(NOp::Add, w, Box::new((shift, c)));
                }
                let one_hot = Ex::Bin(NOp::Shl, w, Box::new((Ex::Const(1), shift)));
                Val::Scalar(Ex::Mask(*width, Box::new(one_hot)), Ty::Bit(*width))
            }
            (ExternInst::TnaRegister(r), "read") => {
                self.nargs(args, 1, "Register.read", span)?;
                let (t, it) = self.tna_registers[r].clone();
                let mut sts = Vec::new();
                let iv = self.expr(&args[0].value)?;
                let index = self.coerce(iv, &it, args[0].value.span)?;
                self.check_tofino_index(&index, tofino::Indirect::Register(*r), span)?;
                let cell = (self.alloc(&t), t.clone());
                self.read_cell(*r, &cell, index, &mut sts);
                if self.scalar_bt(&t).is_none() {
                    return unsupported(span, "Register.read of a struct register");
                }
                let ex = self.load(&cell.0, &t);
                Val::Scalar(Ex::Seq(Box::new((sts, ex))), t)
            }
            (ExternInst::TnaRegister(r), "write") => {
                self.nargs(args, 2, "Register.write", span)?;
                let (t, it) = self.tna_registers[r].clone();
                if self.scalar_bt(&t).is_none() {
                    return unsupported(span, "Register.write of a struct register");
                }
                let iv = self.expr(&args[0].value)?;
                let index = self.coerce(iv, &it, args[0].value.span)?;
                self.check_tofino_index(&index, tofino::Indirect::Register(*r), span)?;
                let vv = self.expr(&args[1].value)?;
                let value = self.coerce(vv, &t, args[1].value.span)?;
                Val::Effect(vec![St::Extern(Box::new(ExternCall::RegisterWrite {
                    reg: *r,
                    index,
                    value,
                }))])
            }
            (ExternInst::Checksum(acc), "add" | "subtract") => {
                self.nargs(args, 1, name, span)?;
                let mut sts = Vec::new();
                let sum = self.csum16(&args[0].value, &mut sts)?;
                // acc = acc +' data (add: ~csum16 is the data's sum; subtract
                // adds its complement, csum16 itself)
                let x = if name == "add" {
                    Ex::Bin(NOp::Xor, 32, Box::new((sum, Ex::Const(0xffff))))
                } else {
                    sum
                };
                let s = Ex::Bin(NOp::Add, 32, Box::new((Ex::Load(*acc), x)));
                let tmp = self.alloc(&Ty::Bit(32)).n;
                sts.push(St::Set(tmp, s));
                let folded = Ex::Bin(
                    NOp::Add,
                    32,
                    Box::new((
                        Ex::Bin(NOp::And, 32, Box::new((Ex::Load(tmp), Ex::Const(0xffff)))),
                        Ex::Bin(NOp::Shr, 32, Box::new((Ex::Load(tmp), Ex::Const(16)))),
                    )),
                );
                sts.push(St::Set(*acc, Ex::Mask(16, Box::new(folded))));
                Val::Effect(sts)
            }
            (ExternInst::Checksum(acc), "verify") => {
                self.nargs(args, 0, "Checksum.verify", span)?;
                Val::Scalar(
                    Ex::Bin(NOp::Eq, 16, Box::new((Ex::Load(*acc), Ex::Const(0xffff)))),
                    Ty::Bool,
                )
            }
            (ExternInst::Checksum(acc), "get") => {
                self.nargs(args, 0, "Checksum.get", span)?;
                Val::Scalar(Ex::BitNot(16, Box::new(Ex::Load(*acc))), Ty::Bit(16))
            }
            (ExternInst::Checksum(_), "update") => {
                if args.is_empty() || args.len() > 2 {
                    return err(
                        span,
                        "Checksum.update takes the data and an optional zeros_as_ones",
                    );
                }
                let mut sts = Vec::new();
                let sum = self.csum16(&args[0].value, &mut sts)?;
                let sum = match args.get(1) {
                    Some(a) => {
                        let z = self.expr(&a.value)?;
                        let z = self.coerce(z, &Ty::Bool, a.value.span)?;
                        let zero = Ex::Bin(NOp::Eq, 16, Box::new((sum.clone(), Ex::Const(0))));
                        let both = Ex::Bin(NOp::And, 1, Box::new((z, zero)));
                        Ex::Cond(Box::new((both, Ex::Const(0xffff), sum)))
                    }
                    None => sum,
                };
                Val::Scalar(Ex::Seq(Box::new((sts, sum))), Ty::Bit(16))
            }
            (ExternInst::Checksum(_), other) => {
                return unsupported(m.span, format!("Checksum.{other}"));
            }
            (ExternInst::TnaHash(algo, w), "get") => {
                self.nargs(args, 1, "Hash.get", span)?;
                let mut leaves = Vec::new();
                self.data_leaves(&args[0].value, &mut leaves)?;
                let bits: u32 = leaves.iter().map(|l| l.ty.width()).sum();
                if !bits.is_multiple_of(8) {
                    return unsupported(
                        args[0].value.span,
                        format!("Hash.get of {bits} bits (p4sim hashes whole bytes)"),
                    );
                }
                let tmp = self.alloc(&Ty::Bit(*w)).n;
                let b32 = BitType::unsigned(32).unwrap_or(BitType::BIT1);
                let b33 = BitType::unsigned(33).unwrap_or(BitType::BIT1);
                let st = St::Extern(Box::new(ExternCall::Hash {
                    algo: *algo,
                    dst: Target::N(tmp, *w),
                    base: Ex::Const(0),
                    base_ty: b32,
                    data: leaves,
                    // the low W bits
                    max: Ex::Const(1u64 << *w),
                    max_ty: b33,
                }));
                Val::Scalar(Ex::Seq(Box::new((vec![st], Ex::Load(tmp)))), Ty::Bit(*w))
            }
            (ExternInst::Resubmit, "emit") => {
                let Some(slot) = self.tna_resubmit else {
                    return err(span, "Resubmit outside a TNA program");
                };
                match args {
                    [] => Val::Effect(vec![St::Set(slot, Ex::Const(u64::from(u32::MAX)))]),
                    [a] => {
                        let (p, t) = match self.expr(&a.value)? {
                            Val::Place(p, t) => (p, t),
                            _ => return err(a.value.span, "Resubmit.emit takes a header"),
                        };
                        let h = self.header_ref(&p, &t, a.value.span)?;
                        if h.bits > 64 || h.stack.is_some() {
                            return err(
                                a.value.span,
                                "resubmit data is one header of at most 64 bits (Tofino 1)",
                            );
                        }
                        self.resubmit_headers.push(h);
                        let k = self.resubmit_headers.len() as u64;
                        Val::Effect(vec![St::Set(slot, Ex::Const(k))])
                    }
                    _ => return err(span, "Resubmit.emit takes at most one header"),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// `cell = reg[index]`, unpacking a struct cell (first field highest).
    fn read_cell(&mut self, reg: u32, cell: &(Place, Ty), index: Ex, out: &mut Vec<St>) {
        let (p, t) = cell;
        if self.scalar_bt(t).is_some() && !matches!(t, Ty::Struct(_)) {
            let dst = self.target(p, t);
            out.push(St::Extern(Box::new(ExternCall::RegisterRead {
                reg,
                dst,
                index,
            })));
            return;
        }
        let bt_ = self.registers[reg as usize].ty;
        let raw = self.alloc(&Ty::Bit(bt_.width())).n;
        out.push(St::Extern(Box::new(ExternCall::RegisterRead {
            reg,
            dst: Target::N(raw, bt_.width()),
            index,
        })));
        let Ty::Struct(i) = t else { return };
        let fields = self.structs[*i as usize].fields.clone();
        let mut below = bt_.width();
        for f in &fields {
            let w = self.scalar_bt(&f.ty).map_or(1, |b| b.width());
            below -= w;
            let v = Ex::Mask(
                w,
                Box::new(Ex::Bin(
                    NOp::Shr,
                    64,
                    Box::new((Ex::Load(raw), Ex::Const(u64::from(below)))),
                )),
            );
            out.push(St::Set(p.n + f.n_off, v));
        }
    }

    /// The cell value to write back (a struct packed first field highest).
    fn pack_cell(&self, cell: &(Place, Ty)) -> Ex {
        let (p, t) = cell;
        let Ty::Struct(i) = t else {
            return self.load(p, t);
        };
        let mut acc: Option<(Ex, u32)> = None;
        for f in &self.structs[*i as usize].fields {
            let w = self.scalar_bt(&f.ty).map_or(1, |b| b.width());
            let v = Ex::Load(p.n + f.n_off);
            acc = Some(match acc {
                None => (v, w),
                Some((a, aw)) => (Ex::Concat(w, Box::new((a, v))), aw + w),
            });
        }
        acc.map_or(Ex::Const(0), |(e, _)| e)
    }

    /// The 16-bit Internet checksum (`~` of the ones'-complement sum) of
    /// `data`'s fields, as an expression after `out`'s statements.
    fn csum16(&mut self, data: &ast::Expr, out: &mut Vec<St>) -> Res<Ex> {
        let mut leaves = Vec::new();
        self.data_leaves(data, &mut leaves)?;
        let tmp = self.alloc(&Ty::Bit(16)).n;
        out.push(St::Extern(Box::new(ExternCall::Hash {
            algo: crate::exec::hash::HashAlgorithm::Csum16,
            dst: Target::N(tmp, 16),
            base: Ex::Const(0),
            base_ty: BitType::unsigned(32).unwrap_or(BitType::BIT1),
            data: leaves,
            max: Ex::Const(1 << 16),
            max_ty: BitType::unsigned(32).unwrap_or(BitType::BIT1),
        })));
        Ok(Ex::Load(tmp))
    }
}

/// p4sim keeps a register cell in one `u64`.
fn fits_u64(b: BitType, span: Span) -> Res<BitType> {
    if b.width() > 64 {
        return unsupported(span, "register cells wider than 64 bits");
    }
    Ok(b)
}
