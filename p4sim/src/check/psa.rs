//! The Portable Switch Architecture (PSA, as BMv2's `psa_switch` runs it)
//! in the checker: `PSA_Switch(IngressPipeline(ip, ig, id),
//! PacketReplicationEngine(), EgressPipeline(ep, eg, ed),
//! BufferingQueueingEngine())` laid into the v1model shape of [`Compiled`]
//! the way a TNA program is (one parser whose first state picks the
//! half, the two deparsers behind an `if`; see [`PsaIr`]), PSA's externs
//! p4sim runs (`Register`, `Counter`, `DirectCounter`, `Meter`, `Hash`,
//! `InternetChecksum`) and the deparsers' predicates (`psa_normal`, ...).
//! Every other PSA extern is refused by name.

use super::*;

/// [`Compiler::arch`] of a PSA program.
pub(super) const PSA_ARCH: &str = "PSA_Switch";

/// PSA externs p4sim does not run.
const UNSUPPORTED: &[&str] = &[
    "Checksum",
    "DirectMeter",
    "Random",
    "ActionSelector",
    "Digest",
];

/// What a place of a block's parameter list is bound to.
type Bound = (Place, Ty);

impl<'p> Compiler<'p> {
    /// Whether the program being compiled is a PSA one.
    pub(super) fn is_psa(&self) -> bool {
        self.arch == PSA_ARCH
    }

    /// The arguments of the package instance `e` names (an instance
    /// declared at top level, or `Pkg(...)` written in place), which must
    /// be of package type `pkg`.
    pub(super) fn package_args(&self, e: &ast::Expr, pkg: &str) -> Res<Vec<ast::Argument>> {
        match &e.kind {
            ExprKind::Name(p) => match self.global_instance(p.name.as_str()) {
                Some(i) if package_base(&i.ty) == Some(pkg) => Ok(i.args.clone()),
                Some(i) => err(i.ty.span, format!("expected a {pkg}")),
                None => err(p.name.span, format!("unknown instance `{}`", p.name)),
            },
            ExprKind::Call { callee, args, .. } if matches!(&callee.kind, ExprKind::Name(p) if p.name.as_str() == pkg) => {
                Ok(args.clone())
            }
            _ => err(e.span, format!("expected a {pkg}")),
        }
    }

    /// Compiles the program whose `main` is a `PSA_Switch`.
    pub(super) fn run_psa(&mut self, main: &'p ast::Instantiation) -> Res<Compiled> {
        self.arch = PSA_ARCH;
        if main.args.len() != 4 {
            return err(
                main.span,
                format!("PSA_Switch takes 4 arguments, {} given", main.args.len()),
            );
        }
        for (k, want) in [
            (1, "PacketReplicationEngine"),
            (3, "BufferingQueueingEngine"),
        ] {
            let e = &main.args[k].value;
            let ok = match &e.kind {
                ExprKind::Call { callee, args, .. } => {
                    args.is_empty()
                        && matches!(&callee.kind, ExprKind::Name(p) if p.name.as_str() == want)
                }
                ExprKind::Name(p) => self
                    .global_instance(p.name.as_str())
                    .is_some_and(|i| package_base(&i.ty) == Some(want)),
                _ => false,
            };
            if !ok {
                return err(
                    e.span,
                    format!("argument {} of PSA_Switch must be a {want}()", k + 1),
                );
            }
        }
        let mut blocks = Vec::new();
        for (k, pkg) in [(0, "IngressPipeline"), (2, "EgressPipeline")] {
            let args = self.package_args(&main.args[k].value, pkg)?;
            if args.len() != 3 {
                return err(
                    main.args[k].value.span,
                    format!("{pkg} takes 3 arguments, {} given", args.len()),
                );
            }
            for a in &args {
                blocks.push(self.block_arg(&a.value)?);
            }
        }
        const WHAT: [(&str, usize); 6] = [
            ("ingress parser", 6),
            ("ingress control", 4),
            ("ingress deparser", 7),
            ("egress parser", 7),
            ("egress control", 4),
            ("egress deparser", 7),
        ];
        for (i, (d, _, span)) in blocks.iter().enumerate() {
            let (what, n) = WHAT[i];
            let params = match d {
                Declaration::Parser(p) if i % 3 == 0 => &p.params,
                Declaration::Control(c) if i % 3 != 0 => &c.params,
                _ => {
                    return err(
                        *span,
                        format!(
                            "argument {} of {} must be the {what}",
                            i % 3 + 1,
                            if i < 3 {
                                "IngressPipeline"
                            } else {
                                "EgressPipeline"
                            }
                        ),
                    );
                }
            };
            if params.len() != n {
                return err(
                    *span,
                    format!(
                        "the PSA {what} takes {n} parameters, {} given",
                        params.len()
                    ),
                );
            }
        }
        let params = |k: usize| -> &'p [ast::Param] {
            match blocks[k].0 {
                Declaration::Parser(p) => &p.params,
                Declaration::Control(c) => &c.params,
                _ => &[],
            }
        };
        let span = main.span;
        // Hidden slots first: which half runs, and the standard metadata
        // the v1model driver code reads.
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
        let intr = |c: &mut Compiler<'p>, name: &str| -> Res<Bound> {
            let t = c.named_type(&ident(name, span))?;
            if !matches!(t, Ty::Struct(_)) {
                return err(span, format!("{name} must be a struct"));
            }
            Ok((c.alloc(&t), t))
        };
        // the ingress half
        let ipim = intr(self, "psa_ingress_parser_input_metadata_t")?;
        let iim = intr(self, "psa_ingress_input_metadata_t")?;
        let iom = intr(self, "psa_ingress_output_metadata_t")?;
        let user = |c: &mut Compiler<'p>, k: usize, i: usize| -> Res<Bound> {
            let t = c.resolve_type(&params(k)[i].ty)?;
            Ok((c.alloc(&t), t))
        };
        let ih = user(self, 0, 1)?;
        let im = user(self, 0, 2)?;
        // What travels between blocks (resubmit, recirculate, normal,
        // clone metadata): allocated once, before the egress half, and
        // saved and restored by the packet flow.
        let resubm = user(self, 0, 4)?;
        let recircm = user(self, 0, 5)?;
        let ci2em = user(self, 2, 1)?;
        let nm = user(self, 2, 3)?;
        let ce2em = user(self, 5, 1)?;
        // the same types wherever the architecture passes them on
        let same = |c: &mut Compiler<'p>, k: usize, i: usize, b: &Bound, what: &str| {
            let p = &params(k)[i];
            let t = c.resolve_type(&p.ty)?;
            if t == b.1 {
                return Ok(());
            }
            err(
                p.ty.span,
                format!(
                    "`{}` of the {} has type {}, but PSA_Switch passes it {} ({what})",
                    p.name,
                    WHAT[k].0,
                    ty_name(c, &t),
                    ty_name(c, &b.1)
                ),
            )
        };
        for (k, i, b, what) in [
            (2, 2, &resubm, "resubmit_meta"),
            (2, 4, &ih, "hdr"),
            (2, 5, &im, "meta"),
            (3, 4, &nm, "normal_meta"),
            (3, 5, &ci2em, "clone_i2e_meta"),
            (3, 6, &ce2em, "clone_e2e_meta"),
            (5, 2, &recircm, "recirculate_meta"),
            (1, 0, &ih, "hdr"),
            (1, 1, &im, "user_meta"),
        ] {
            same(self, k, i, b, what)?;
        }
        let pv = |b: &Bound| (Val::Place(b.0.clone(), b.1.clone()), b.1.clone());
        let unzip = |xs: Vec<(Val, Ty)>| -> (Vec<Val>, Vec<Ty>) { xs.into_iter().unzip() };
        let (vals, tys) = unzip(vec![
            (Val::Packet(false), Ty::PacketIn),
            pv(&ih),
            pv(&im),
            pv(&ipim),
            pv(&resubm),
            pv(&recircm),
        ]);
        let Declaration::Parser(ig_parser) = blocks[0].0 else {
            return err(blocks[0].2, "expected a parser");
        };
        let (ig_init, ig_states) = self.lower_parser(ig_parser, &blocks[0].1, vals, tys)?;
        let control = |c: &mut Compiler<'p>, k: usize, lead: Vec<(Val, Ty)>| -> Res<Vec<St>> {
            let (d, args, span) = &blocks[k];
            let Declaration::Control(ctl) = d else {
                return err(*span, "expected a control");
            };
            let (vals, tys) = lead.into_iter().unzip();
            c.lower_top_control(ctl, args, vals, tys)
        };
        let ingress = control(self, 1, vec![pv(&ih), pv(&im), pv(&iim), pv(&iom)])?;
        let ig_deparser = control(
            self,
            2,
            vec![
                (Val::Packet(true), Ty::PacketOut),
                pv(&ci2em),
                pv(&resubm),
                pv(&nm),
                pv(&ih),
                pv(&im),
                pv(&iom),
            ],
        )?;
        // the egress half: everything allocated from here is reset per copy
        let (egress_n0, egress_w0) = (self.n_slots, self.w_init.len() as u32);
        let epim = intr(self, "psa_egress_parser_input_metadata_t")?;
        let eim = intr(self, "psa_egress_input_metadata_t")?;
        let eom = intr(self, "psa_egress_output_metadata_t")?;
        let edim = intr(self, "psa_egress_deparser_input_metadata_t")?;
        let eh = user(self, 3, 1)?;
        let em = user(self, 3, 2)?;
        for (k, i, b, what) in [
            (4, 0, &eh, "hdr"),
            (4, 1, &em, "user_meta"),
            (5, 3, &eh, "hdr"),
            (5, 4, &em, "meta"),
        ] {
            same(self, k, i, b, what)?;
        }
        let (vals, tys) = unzip(vec![
            (Val::Packet(false), Ty::PacketIn),
            pv(&eh),
            pv(&em),
            pv(&epim),
            pv(&nm),
            pv(&ci2em),
            pv(&ce2em),
        ]);
        let Declaration::Parser(eg_parser) = blocks[3].0 else {
            return err(blocks[3].2, "expected a parser");
        };
        let (eg_init, eg_states) = self.lower_parser(eg_parser, &blocks[3].1, vals, tys)?;
        let egress = control(self, 4, vec![pv(&eh), pv(&em), pv(&eim), pv(&eom)])?;
        let eg_deparser = control(
            self,
            5,
            vec![
                (Val::Packet(true), Ty::PacketOut),
                pv(&ce2em),
                pv(&recircm),
                pv(&eh),
                pv(&em),
                pv(&eom),
                pv(&edim),
            ],
        )?;
        if self.too_large {
            return unsupported(
                main.span,
                format!("programs with more than {MAX_SLOTS} scalar values"),
            );
        }
        let egress_n = egress_n0..self.n_slots;
        let egress_w = egress_w0..self.w_init.len() as u32;
        let parser = join_halves(gress, ig_states, eg_states);
        let mut parser_init = ig_init;
        parser_init.extend(eg_init);
        let deparser = vec![St::If(
            Ex::Bin(NOp::Eq, 1, Box::new((Ex::Load(gress), Ex::Const(0)))),
            ig_deparser,
            eg_deparser,
        )];
        let slot = |c: &Compiler<'_>, b: &Bound, field: &str| -> Res<u32> {
            let (p, t) = b;
            let Ty::Struct(i) = t else {
                return err(span, "intrinsic metadata must be a struct");
            };
            let s = &c.structs[*i as usize];
            match s.fields.iter().find(|f| f.name.as_ref() == field) {
                Some(f) if c.size(&f.ty) == (1, 0) => Ok(p.n + f.n_off),
                _ => err(
                    span,
                    format!(
                        "{} has no field `{field}` of at most 64 bits",
                        ty_name(c, t)
                    ),
                ),
            }
        };
        let range = |c: &Compiler<'_>, b: &Bound| -> SlotRange {
            let (n, w) = c.size(&b.1);
            SlotRange {
                n: b.0.n..b.0.n + n,
                w: b.0.w..b.0.w + w,
            }
        };
        let psa = PsaIr {
            gress,
            ip_port: slot(self, &ipim, "ingress_port")?,
            ip_path: slot(self, &ipim, "packet_path")?,
            ig_port: slot(self, &iim, "ingress_port")?,
            ig_path: slot(self, &iim, "packet_path")?,
            ig_tstamp: slot(self, &iim, "ingress_timestamp")?,
            ig_parser_error: slot(self, &iim, "parser_error")?,
            ig_cos: slot(self, &iom, "class_of_service")?,
            ig_clone: slot(self, &iom, "clone")?,
            ig_clone_session: slot(self, &iom, "clone_session_id")?,
            ig_drop: slot(self, &iom, "drop")?,
            ig_resubmit: slot(self, &iom, "resubmit")?,
            ig_mcast_grp: slot(self, &iom, "multicast_group")?,
            ig_egress_port: slot(self, &iom, "egress_port")?,
            ep_port: slot(self, &epim, "egress_port")?,
            ep_path: slot(self, &epim, "packet_path")?,
            eg_cos: slot(self, &eim, "class_of_service")?,
            eg_port: slot(self, &eim, "egress_port")?,
            eg_path: slot(self, &eim, "packet_path")?,
            eg_instance: slot(self, &eim, "instance")?,
            eg_tstamp: slot(self, &eim, "egress_timestamp")?,
            eg_parser_error: slot(self, &eim, "parser_error")?,
            eg_clone: slot(self, &eom, "clone")?,
            eg_clone_session: slot(self, &eom, "clone_session_id")?,
            eg_drop: slot(self, &eom, "drop")?,
            ed_port: slot(self, &edim, "egress_port")?,
            resubmit_meta: range(self, &resubm),
            recirculate_meta: range(self, &recircm),
            normal_meta: range(self, &nm),
            clone_i2e_meta: range(self, &ci2em),
            clone_e2e_meta: range(self, &ce2em),
            egress_n,
            egress_w,
        };
        Ok(Compiled {
            n_slots: self.n_slots,
            w_init: std::mem::take(&mut self.w_init),
            meta_n: 0..0,
            // the packet flow keeps its own state among the slots: all of
            // them are zeroed
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
            tna: None,
            psa: Some(Box::new(psa)),
        })
    }

    /// Instantiates a PSA extern; `None` when `base` is not one.
    pub(super) fn instantiate_psa(
        &mut self,
        base: &ast::Ident,
        targs: &[ast::Type],
        i: &ast::Instantiation,
        name: String,
    ) -> Res<Option<Val>> {
        let b = base.as_str();
        if UNSUPPORTED.contains(&b) {
            return unsupported(i.ty.span, format!("the PSA `{b}` extern"));
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
                let Some(cell) = self.scalar_bt(&t).filter(|b| b.width() <= 64) else {
                    return unsupported(
                        i.ty.span,
                        format!(
                            "PSA registers of {} (p4sim keeps a cell of at most 64 bits)",
                            ty_name(self, &t)
                        ),
                    );
                };
                let size = u64::from(self.const_u32(&i.args[0].value, "a register size")?);
                if size > MAX_CELLS {
                    return unsupported(
                        i.span,
                        format!("registers of more than {MAX_CELLS} cells"),
                    );
                }
                if let Some(a) = i.args.get(1) {
                    let v = self.expr(&a.value)?;
                    let v = self.coerce(v, &t, a.value.span)?;
                    if !matches!(v, Ex::Const(0)) {
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
                Val::Extern(ExternInst::TnaRegister(r))
            }
            "Counter" | "DirectCounter" => self.counter_instance(i, name, b == "DirectCounter")?,
            "ActionProfile" => self.profile_instance(i, name)?,
            "InternetChecksum" => {
                if !i.args.is_empty() {
                    return err(i.span, "InternetChecksum takes no arguments");
                }
                let acc = self.alloc(&Ty::Bit(16)).n;
                Val::Extern(ExternInst::Checksum(acc))
            }
            "Hash" => {
                let w = match targ(self, 0)? {
                    Ty::Bit(w) => w,
                    other => {
                        return unsupported(
                            i.ty.span,
                            format!(
                                "Hash<O> of {} (p4sim's O is a bit<W>)",
                                ty_name(self, &other)
                            ),
                        );
                    }
                };
                let [a] = i.args.as_slice() else {
                    return err(i.span, "Hash takes one argument, its algorithm");
                };
                use crate::exec::hash::HashAlgorithm as H;
                let algo = match self.enum_member_name(&a.value)?.as_str() {
                    "CRC16" => H::Crc16,
                    "CRC32" => H::Crc32,
                    "IDENTITY" => H::Identity,
                    // as p4c-bm2-psa maps them
                    "TARGET_DEFAULT" => H::Crc16,
                    "CRC16_CUSTOM" => H::Crc16Custom,
                    "CRC32_CUSTOM" => H::Crc32Custom,
                    other => {
                        return unsupported(
                            a.value.span,
                            format!(
                                "PSA_HashAlgorithm_t.{other} (psa_switch has no such hash either)"
                            ),
                        );
                    }
                };
                if w > 64 {
                    return unsupported(i.ty.span, "a Hash<bit<W>> wider than 64 bits");
                }
                Val::Extern(ExternInst::TnaHash(algo, w))
            }
            "Meter" => {
                if i.args.len() != 2 {
                    return err(i.span, "Meter takes a size and a PSA_MeterType_t");
                }
                let size = u64::from(self.const_u32(&i.args[0].value, "a meter size")?);
                if size > MAX_CELLS {
                    return unsupported(i.span, format!("meters of more than {MAX_CELLS} cells"));
                }
                let bytes = self.enum_member_name(&i.args[1].value)? == "BYTES";
                self.meters.push(MeterIr {
                    name,
                    size,
                    bytes,
                    table: None,
                });
                Val::Extern(ExternInst::Meter(self.meters.len() as u32 - 1))
            }
            "PacketReplicationEngine" | "BufferingQueueingEngine" => {
                return err(
                    i.span,
                    format!("`{b}` is instantiated by PSA_Switch's arguments only"),
                );
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// `Hash.get_hash(data)` (the hash's low O bits) and
    /// `get_hash(base, data, max)` (`base + hash % max`, as the PSA
    /// specification and BMv2 define it).
    pub(super) fn psa_get_hash(
        &mut self,
        algo: crate::exec::hash::HashAlgorithm,
        w: u32,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Val> {
        let b64 = BitType::unsigned(64).unwrap_or(BitType::BIT1);
        let (base, data, max) = match args {
            [d] => (
                Ex::Const(0),
                &d.value,
                if w >= 64 {
                    Ex::Const(0)
                } else {
                    Ex::Const(1u64 << w)
                },
            ),
            [b, d, m] => {
                let bv = self.expr(&b.value)?;
                let (base, _) = self.generic_arg(bv, b64, b.value.span)?;
                let mv = self.expr(&m.value)?;
                let (max, _) = self.generic_arg(mv, b64, m.value.span)?;
                (base, &d.value, max)
            }
            _ => {
                return err(span, "get_hash takes (data) or (base, data, max)");
            }
        };
        // psa_switch hashes every field passed, valid header or not, and
        // pads the front with zero bits to a whole byte (psa_hash.cpp,
        // `build_buffer`; v1model's hash pads the end)
        let mut leaves = Vec::new();
        self.data_leaves(data, &mut leaves)?;
        if leaves.iter().any(|l| l.varbit_len.is_some()) {
            return unsupported(span, "get_hash of a varbit field");
        }
        let bits: u32 = leaves.iter().map(|l| l.ty.width()).sum();
        let pad = (8 - bits % 8) % 8;
        for l in &mut leaves {
            l.valid = None;
        }
        if let Some(ty) = BitType::unsigned(pad).ok().filter(|_| pad > 0) {
            leaves.insert(
                0,
                Leaf {
                    ex: Ex::Const(0),
                    ty,
                    valid: None,
                    varbit_len: None,
                },
            );
        }
        let tmp = self.alloc(&Ty::Bit(w)).n;
        let st = St::Extern(Box::new(ExternCall::Hash {
            algo,
            dst: Target::N(tmp, w),
            base,
            base_ty: b64,
            data: leaves,
            max,
            max_ty: b64,
        }));
        Ok(Val::Scalar(
            Ex::Seq(Box::new((vec![st], Ex::Load(tmp)))),
            Ty::Bit(w),
        ))
    }

    /// A method of a PSA extern instance that TNA's externs do not share;
    /// `None` when it is not one.
    pub(super) fn psa_method(
        &mut self,
        inst: &ExternInst,
        m: &ast::Ident,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Option<Val>> {
        let name = m.as_str();
        let v = match (inst, name) {
            (ExternInst::TnaHash(algo, w), "get_hash") => {
                self.psa_get_hash(*algo, *w, args, span)?
            }
            (ExternInst::TnaHash(..), _) => {
                return err(m.span, format!("Hash has no method `{name}`"));
            }
            (ExternInst::Meter(k), "execute") => {
                // psa_switch runs both forms color-blind (p4c-bm2-psa passes
                // only the index on), and maps BMv2's GREEN 0, YELLOW 1,
                // RED 2 to PSA_MeterColor_t's RED 0, GREEN 1, YELLOW 2.
                if !(1..=2).contains(&args.len()) {
                    return err(span, "Meter.execute takes an index and an optional color");
                }
                let iv = self.expr(&args[0].value)?;
                let index = self.index_arg(iv, args[0].value.span)?;
                if let Some(a) = args.get(1) {
                    self.expr(&a.value)?;
                }
                let color = self.named_type(&ident("PSA_MeterColor_t", span))?;
                let tmp = self.alloc(&Ty::Bit(2)).n;
                let st = St::Extern(Box::new(ExternCall::ExecuteMeter {
                    meter: *k,
                    index,
                    dst: Target::N(tmp, 2),
                }));
                let is_red = Ex::Bin(NOp::Eq, 2, Box::new((Ex::Load(tmp), Ex::Const(2))));
                let next = Ex::Bin(NOp::Add, 32, Box::new((Ex::Load(tmp), Ex::Const(1))));
                let psa = Ex::Cond(Box::new((is_red, Ex::Const(0), next)));
                Val::Scalar(Ex::Seq(Box::new((vec![st], psa))), color)
            }
            (ExternInst::Meter(_), _) => {
                return err(m.span, format!("Meter has no method `{name}`"));
            }
            (ExternInst::Checksum(acc), "clear") => {
                self.nargs(args, 0, "InternetChecksum.clear", span)?;
                Val::Effect(vec![St::Set(*acc, Ex::Const(0))])
            }
            (ExternInst::Checksum(acc), "get_state") => {
                self.nargs(args, 0, "InternetChecksum.get_state", span)?;
                Val::Scalar(Ex::Load(*acc), Ty::Bit(16))
            }
            (ExternInst::Checksum(acc), "set_state") => {
                self.nargs(args, 1, "InternetChecksum.set_state", span)?;
                let v = self.expr(&args[0].value)?;
                let v = self.coerce(v, &Ty::Bit(16), args[0].value.span)?;
                Val::Effect(vec![St::Set(*acc, v)])
            }
            (ExternInst::Checksum(_), "add" | "subtract" | "get") => return Ok(None),
            (ExternInst::Checksum(_), _) => {
                return err(m.span, format!("InternetChecksum has no method `{name}`"));
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// `psa_clone_i2e(istd)` and the other deparser predicates, from the
    /// output metadata as the PSA specification defines them; `None` when
    /// `name` is not one.
    pub(super) fn psa_predicate(
        &mut self,
        name: &str,
        args: &[ast::Argument],
        span: Span,
    ) -> Res<Option<Val>> {
        let n = match name {
            "psa_clone_i2e" | "psa_resubmit" | "psa_normal" | "psa_clone_e2e" => 1,
            "psa_recirculate" => 2,
            _ => return Ok(None),
        };
        self.nargs(args, n, name, span)?;
        let field = |c: &mut Compiler<'p>, k: usize, f: &str| -> Res<Ex> {
            let v = c.expr(&args[k].value)?;
            let m = c.member(v, &ident(f, span), args[k].value.span)?;
            let (e, _) = c.rvalue(m, args[k].value.span)?;
            Ok(e)
        };
        let not = |e: Ex| Ex::Bin(NOp::Xor, 1, Box::new((e, Ex::Const(1))));
        let and = |a: Ex, b: Ex| Ex::Bin(NOp::And, 1, Box::new((a, b)));
        let e = match name {
            "psa_clone_i2e" | "psa_clone_e2e" => field(self, 0, "clone")?,
            "psa_resubmit" => {
                let drop = field(self, 0, "drop")?;
                let resubmit = field(self, 0, "resubmit")?;
                and(not(drop), resubmit)
            }
            "psa_normal" => {
                let drop = field(self, 0, "drop")?;
                let resubmit = field(self, 0, "resubmit")?;
                and(not(drop), not(resubmit))
            }
            _ => {
                let drop = field(self, 0, "drop")?;
                let port = field(self, 1, "egress_port")?;
                let recirc = Ex::Bin(
                    NOp::Eq,
                    32,
                    Box::new((port, Ex::Const(PSA_PORT_RECIRCULATE))),
                );
                and(not(drop), recirc)
            }
        };
        Ok(Some(Val::Scalar(e, Ty::Bool)))
    }
}

/// `PSA_PORT_RECIRCULATE` of BMv2's psa.p4.
pub(crate) const PSA_PORT_RECIRCULATE: u64 = 0xffff_fffa;

/// The name of a (possibly specialized) type.
fn package_base(t: &ast::Type) -> Option<&str> {
    match &t.kind {
        ast::TypeKind::Name(p) => Some(p.name.as_str()),
        ast::TypeKind::Specialized { base, .. } => Some(base.name.as_str()),
        _ => None,
    }
}

/// One parser for a program of two halves: state 0 picks the ingress
/// parser's states (1..) or the egress parser's by the `gress` slot.
pub(super) fn join_halves(gress: u32, ig: Vec<StateIr>, eg: Vec<StateIr>) -> Vec<StateIr> {
    let ig_count = ig.len() as u32;
    let shift = |states: Vec<StateIr>, by: u32| -> Vec<StateIr> {
        let mv = |n: Next| match n {
            Next::State(s) => Next::State(s + by),
            other => other,
        };
        states
            .into_iter()
            .map(|mut s| {
                s.transition = match s.transition {
                    Transition::Go(n) => Transition::Go(mv(n)),
                    Transition::Select(keys, cases) => Transition::Select(
                        keys,
                        cases.into_iter().map(|(k, n)| (k, mv(n))).collect(),
                    ),
                };
                s
            })
            .collect()
    };
    let mut parser = vec![StateIr {
        name: "$gress".into(),
        body: Vec::new(),
        transition: Transition::Select(
            vec![Ex::Load(gress)],
            vec![
                (vec![SelectKey::Masked(0, 1)], Next::State(1)),
                (vec![SelectKey::Any], Next::State(1 + ig_count)),
            ],
        ),
    }];
    parser.extend(shift(ig, 1));
    parser.extend(shift(eg, 1 + ig_count));
    parser
}
