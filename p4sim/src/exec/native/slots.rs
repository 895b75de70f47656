//! Where each narrow slot lives in generated code. In the frame when the
//! switch ([`switch_slots`]) or a fallback ([`Refs`]) may read or write
//! it; in the arguments' slots for a call whose parameters stay in place
//! ([`body_sites`], [`in_place_params`], [`rename_slots`]); else, when one
//! function alone touches it, in a local variable ([`slots_in`],
//! [`resolve`], which the generator's `render` applies).

use std::fmt::Write as _;

use crate::ir::*;

/// What the switch itself reads and writes, `true` by slot: standard
/// metadata, user metadata, field lists, and the control-plane parameters
/// that table lookups store.
pub(super) fn switch_slots(prog: &Compiled) -> Vec<bool> {
    let mut external = vec![false; prog.n_slots as usize];
    let sm = &prog.std_meta;
    let mut ext: Vec<u32> = vec![
        sm.ingress_port,
        sm.egress_spec,
        sm.egress_port,
        sm.instance_type,
        sm.packet_length,
        sm.ingress_global_timestamp,
        sm.egress_global_timestamp,
        sm.mcast_grp,
        sm.egress_rid,
        sm.checksum_error,
        sm.parser_error,
        sm.priority,
    ];
    ext.extend(prog.meta_n.clone());
    for (ns, _) in prog.field_lists.values() {
        ext.extend(ns);
    }
    for a in &prog.actions {
        ext.extend(a.params.iter().filter(|p| p.control_plane).map(|p| p.slot));
    }
    // TNA: what its packet flow reads and writes around the pipeline
    // (the parser, which runs once per gress, is never given locals)
    if let Some(t) = &prog.tna {
        ext.extend([
            t.gress,
            t.resubmit,
            t.ig_global_tstamp,
            t.ig_parser_err,
            t.ig_drop_ctl,
            t.ucast_egress_port,
            t.bypass_egress,
            t.mcast_grp_a,
            t.mcast_grp_b,
            t.eg_global_tstamp,
            t.eg_parser_err,
            t.eg_drop_ctl,
        ]);
        for h in &t.resubmit_headers {
            ext.push(h.valid);
            ext.extend(
                h.fields
                    .iter()
                    .filter(|f| !f.wide)
                    .map(|f| h.base_n + f.offset),
            );
        }
    }
    // PSA: the same, and the user metadata it carries between passes
    if let Some(t) = &prog.psa {
        ext.extend([
            t.gress,
            t.ip_port,
            t.ip_path,
            t.ig_port,
            t.ig_path,
            t.ig_tstamp,
            t.ig_parser_error,
            t.ig_cos,
            t.ig_clone,
            t.ig_clone_session,
            t.ig_drop,
            t.ig_resubmit,
            t.ig_mcast_grp,
            t.ig_egress_port,
            t.ep_port,
            t.ep_path,
            t.eg_cos,
            t.eg_port,
            t.eg_path,
            t.eg_instance,
            t.eg_tstamp,
            t.eg_parser_error,
            t.eg_clone,
            t.eg_clone_session,
            t.eg_drop,
            t.ed_port,
        ]);
        for r in [
            &t.resubmit_meta,
            &t.recirculate_meta,
            &t.normal_meta,
            &t.clone_i2e_meta,
            &t.clone_e2e_meta,
        ] {
            ext.extend(r.n.clone());
        }
    }
    for s in ext {
        if let Some(x) = external.get_mut(s as usize) {
            *x = true;
        }
    }
    external
}

/// How many statements anywhere in `prog` (parser, stages, bodies,
/// actions) run each body.
pub(super) fn body_sites(prog: &Compiled) -> Vec<usize> {
    fn walk(sts: &[St], out: &mut Vec<usize>) {
        for s in sts {
            match s {
                St::RunBody(b) => {
                    if let Some(n) = out.get_mut(*b as usize) {
                        *n += 1;
                    }
                }
                St::If(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                St::Block(b) => walk(b, out),
                St::Switch(_, arms, d) => {
                    for (_, b) in arms {
                        walk(b, out);
                    }
                    walk(d, out);
                }
                St::SwitchAction(_, arms, d) => {
                    for b in arms.iter().flatten() {
                        walk(b, out);
                    }
                    walk(d, out);
                }
                St::Call(c) => {
                    walk(&c.0, out);
                    walk(&c.1, out);
                }
                St::Loop(l) => {
                    walk(&l.body, out);
                    walk(&l.update, out);
                }
                _ => {}
            }
        }
    }
    let mut out = vec![0; prog.bodies.len()];
    walk(&prog.parser_init, &mut out);
    for s in &prog.parser {
        walk(&s.body, &mut out);
    }
    for b in [
        &prog.verify_checksum,
        &prog.ingress,
        &prog.egress,
        &prog.compute_checksum,
        &prog.deparser,
    ] {
        walk(b, &mut out);
    }
    for b in &prog.bodies {
        walk(b, &mut out);
    }
    for a in &prog.actions {
        walk(&a.body, &mut out);
    }
    out
}

/// The parameters of a call that can stay in place
/// ([`Generator::call_in_place`]): `(parameter, argument, length)` of
/// each, and the arguments of the `out` ones, which start at zero. The
/// call must copy every parameter in from its argument (`inout`) or zero
/// it (a narrow `out`), run one body, and copy every parameter back out
/// to its argument; narrow slots only, and no two of the ranges
/// overlapping. An `in` parameter does not qualify (the body may write
/// it).
pub(super) type InPlace = (Vec<(u32, u32, u32)>, Vec<u32>);

pub(super) fn in_place_params(call: &(Vec<St>, Vec<St>)) -> Option<InPlace> {
    let pair = |s: &St| match s {
        St::Copy(c) if c.w_len == 0 && c.n_len > 0 => Some((c.n_dst, c.n_src, c.n_len)),
        St::Mov(d, a) | St::Set(d, Ex::Load(a)) => Some((*d, *a, 1)),
        _ => None,
    };
    let (last, ins) = call.0.split_last()?;
    if !matches!(last, St::RunBody(_)) {
        return None;
    }
    let outs: Vec<(u32, u32, u32)> = call.1.iter().map(pair).collect::<Option<_>>()?;
    if outs.is_empty() {
        return None;
    }
    let mut map = Vec::with_capacity(ins.len());
    let mut zeroed = Vec::new();
    for s in ins {
        match s {
            St::Set(p, Ex::Const(0)) => {
                // an `out` parameter: its argument is zeroed instead
                let &(a, _, _) = outs.iter().find(|&&(_, q, l)| q == *p && l == 1)?;
                map.push((*p, a, 1));
                zeroed.push(a);
            }
            s => {
                let (p, a, l) = pair(s)?;
                if !outs.contains(&(a, p, l)) {
                    return None;
                }
                map.push((p, a, l));
            }
        }
    }
    if map.len() != outs.len() {
        return None;
    }
    let ins = map;
    let mut ranges: Vec<(u32, u32)> = ins
        .iter()
        .flat_map(|&(p, a, l)| [(p, p.checked_add(l)), (a, a.checked_add(l))])
        .map(|(s, e)| e.map(|e| (s, e)))
        .collect::<Option<_>>()?;
    ranges.sort_unstable();
    if ranges.windows(2).any(|w| w[0].1 > w[1].0) {
        return None;
    }
    Some((ins, zeroed))
}

/// `text` with every slot of a parameter in `map` (`(parameter, argument,
/// length)`) replaced by its argument's: in `cx.ld(n)`, `cx.st(n, ..)`
/// and `cx.copy(dst, src, len)`. `None` when a copy covers part of a
/// parameter, or the text reaches slots some other way (a fallback to the
/// closures or the interpreter, which run the program's statements).
pub(super) fn rename_slots(text: &str, map: &[(u32, u32, u32)]) -> Option<String> {
    if ["cx.stmt(", "cx.eval(", "cx.apply_interpreted("]
        .iter()
        .any(|p| text.contains(p))
    {
        return None;
    }
    let slot = |n: u32| {
        map.iter()
            .find(|&&(p, _, l)| n >= p && n < p + l)
            .map_or(n, |&(p, a, _)| a + (n - p))
    };
    // a range [s, s + len): inside one parameter, or clear of all of them
    let range = |s: u32, len: u32| -> Option<u32> {
        let e = s.checked_add(len)?;
        match map.iter().find(|&&(p, _, l)| s < p + l && p < e) {
            None => Some(s),
            Some(&(p, a, l)) if s >= p && e <= p + l => Some(a + (s - p)),
            Some(_) => None,
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["cx.ld(", "cx.st(", "cx.copy("]
            .iter()
            .filter_map(|p| rest.find(p).map(|i| (i, *p)))
            .min();
        let Some((i, pat)) = next else {
            out.push_str(rest);
            return Some(out);
        };
        out.push_str(&rest[..i + pat.len()]);
        rest = &rest[i + pat.len()..];
        let number = |r: &str| -> Option<(u32, usize)> {
            let end = r.find(|c: char| !c.is_ascii_digit())?;
            Some((r[..end].parse().ok()?, end))
        };
        if pat == "cx.copy(" {
            // `cx.copy(dst, src, len)`
            let (d, e1) = number(rest)?;
            let r2 = rest.get(e1 + 2..)?;
            let (s, e2) = number(r2)?;
            let r3 = r2.get(e2 + 2..)?;
            let (len, e3) = number(r3)?;
            let _ = write!(out, "{}, {}, {len}", range(d, len)?, range(s, len)?);
            rest = &r3[e3..];
        } else {
            let (n, end) = number(rest)?;
            let _ = write!(out, "{}", slot(n));
            rest = &rest[end..];
        }
    }
}

/// The slots of the `cx.ld(n)` and `cx.st(n, ...)` in `text`.
pub(super) fn slots_in(text: &str) -> std::collections::BTreeSet<u32> {
    let mut out = std::collections::BTreeSet::new();
    for pat in ["cx.ld(", "cx.st("] {
        let mut rest = text;
        while let Some(i) = rest.find(pat) {
            rest = &rest[i + pat.len()..];
            let digits: &str = &rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(0)];
            if let Ok(n) = digits.parse() {
                out.insert(n);
            }
        }
    }
    out
}

/// Appends `text` to `out` with `cx.ld(n)` as `s<n>` and `cx.st(n, e)` as
/// `(s<n> = e)` for the slots for which `local` holds.
pub(super) fn resolve(text: &str, local: &dyn Fn(u32) -> bool, out: &mut String) {
    let mut rest = text;
    loop {
        let next = ["cx.ld(", "cx.st("]
            .iter()
            .filter_map(|p| rest.find(p).map(|i| (i, *p)))
            .min();
        let Some((i, pat)) = next else {
            out.push_str(rest);
            return;
        };
        out.push_str(&rest[..i]);
        let after = &rest[i + pat.len()..];
        let end = after.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
        let slot: Option<u32> = after[..end].parse().ok();
        match slot.filter(|&n| local(n)) {
            Some(n) if pat == "cx.ld(" => {
                // `cx.ld(n)`: the digits then `)`
                let _ = write!(out, "s{n}");
                rest = &after[end + 1..];
            }
            Some(n) => {
                // `cx.st(n, e)`: e runs to the matching `)`
                let body = &after[end + 2..];
                let mut depth = 0usize;
                let mut close = body.len();
                for (k, c) in body.char_indices() {
                    match c {
                        '(' | '[' | '{' => depth += 1,
                        ')' | ']' | '}' if depth == 0 => {
                            close = k;
                            break;
                        }
                        ')' | ']' | '}' => depth -= 1,
                        _ => {}
                    }
                }
                let _ = write!(out, "(s{n} = ");
                resolve(&body[..close], local, out);
                out.push(')');
                rest = &body[(close + 1).min(body.len())..];
            }
            None => {
                out.push_str(pat);
                rest = after;
            }
        }
    }
}

/// Marks every narrow slot that the statements and expressions handed to
/// the closure engine may touch, following bodies, actions and tables.
pub(super) struct Refs<'p, 'x> {
    pub(super) prog: &'p Compiled,
    pub(super) ext: &'x mut Vec<bool>,
    pub(super) bodies: Vec<bool>,
    pub(super) actions: Vec<bool>,
    pub(super) tables: Vec<bool>,
}

impl Refs<'_, '_> {
    fn slot(&mut self, s: u32) {
        if let Some(x) = self.ext.get_mut(s as usize) {
            *x = true;
        }
    }

    fn range(&mut self, base: u32, count: u32) {
        for s in base..base.saturating_add(count) {
            self.slot(s);
        }
    }

    fn block(&mut self, b: &[St]) {
        for s in b {
            self.st(s);
        }
    }

    fn dyn_(&mut self, d: &Dyn) {
        self.ex(&d.index);
        self.range(d.base_n, d.stride_n.saturating_mul(d.count));
    }

    fn target(&mut self, t: &Target) {
        match t {
            Target::N(s, _) => self.slot(*s),
            Target::W(..) => {}
            Target::DynN(d, ..) | Target::DynW(d, ..) => self.dyn_(d),
        }
    }

    fn leaves(&mut self, l: &[Leaf]) {
        for x in l {
            self.ex(&x.ex);
            if let Some(v) = &x.valid {
                self.ex(v);
            }
            if let Some(len) = &x.varbit_len {
                self.ex(len);
            }
        }
    }

    fn header(&mut self, h: &HeaderRef) {
        self.slot(h.valid);
        for f in h.fields.iter().filter(|f| !f.wide) {
            self.slot(h.base_n + f.offset);
        }
        for len in h.fields.iter().filter_map(|f| f.varbit_len) {
            self.slot(h.base_n + len);
        }
        if let Some(st) = &h.stack {
            self.range(st.base_n, st.stride_n.saturating_mul(st.count));
            self.slot(st.next_index);
            if let StackWhich::Index(e) = &st.which {
                self.ex(e);
            }
        }
    }

    fn table(&mut self, t: u32) {
        let i = t as usize;
        if self.tables.get(i).is_none_or(|&seen| seen) {
            return;
        }
        self.tables[i] = true;
        let prog = self.prog;
        let Some(table) = prog.tables.get(i) else {
            return;
        };
        for k in &table.keys {
            self.ex(&k.ex);
        }
        for ta in &table.actions {
            self.action(ta.action);
        }
    }

    fn action(&mut self, a: u32) {
        let i = a as usize;
        if self.actions.get(i).is_none_or(|&seen| seen) {
            return;
        }
        self.actions[i] = true;
        let prog = self.prog;
        if let Some(act) = prog.actions.get(i) {
            for p in &act.params {
                self.slot(p.slot);
            }
            self.block(&act.body);
        }
    }

    pub(super) fn st(&mut self, s: &St) {
        match s {
            St::Set(d, e) => {
                self.slot(*d);
                self.ex(e);
            }
            St::SetW(_, e) => self.ex(e),
            St::SetDyn(d, _, e) | St::SetDynW(d, _, e) => {
                self.dyn_(d);
                self.ex(e);
            }
            St::If(c, a, b) => {
                self.ex(c);
                self.block(a);
                self.block(b);
            }
            St::Block(b) => self.block(b),
            St::Switch(e, arms, d) => {
                self.ex(e);
                for (_, b) in arms {
                    self.block(b);
                }
                self.block(d);
            }
            St::Apply(t) => self.table(*t),
            St::SwitchAction(t, arms, d) => {
                self.table(*t);
                for b in arms.iter().flatten() {
                    self.block(b);
                }
                self.block(d);
            }
            St::Call(c) => {
                self.block(&c.0);
                self.block(&c.1);
            }
            St::RunAction(a) => self.action(*a),
            St::RunBody(b) => {
                let i = *b as usize;
                if self.bodies.get(i).is_none_or(|&seen| seen) {
                    return;
                }
                self.bodies[i] = true;
                let prog = self.prog;
                if let Some(b) = prog.bodies.get(i) {
                    self.block(b);
                }
            }
            St::Exit | St::Return | St::Break | St::Continue => {}
            St::Loop(l) => {
                self.ex(&l.cond);
                self.block(&l.body);
                self.block(&l.update);
            }
            St::Extract(h) => self.header(h),
            St::ExtractVar(h, bits) => {
                self.header(h);
                self.ex(bits);
            }
            St::Advance(e) => self.ex(e),
            St::Verify(c, e) => {
                self.ex(c);
                self.ex(e);
            }
            St::Emit(hs) => {
                for h in hs {
                    self.header(h);
                }
            }
            St::StackShift(sh) => {
                self.range(sh.base_n, sh.stride_n.saturating_mul(sh.count));
                self.slot(sh.next_index);
            }
            St::Copy(c) => {
                self.range(c.n_dst, c.n_len);
                self.range(c.n_src, c.n_len);
            }
            St::Extern(call) => match &**call {
                ExternCall::RegisterRead { dst, index, .. } => {
                    self.target(dst);
                    self.ex(index);
                }
                ExternCall::RegisterWrite { index, value, .. } => {
                    self.ex(index);
                    self.ex(value);
                }
                ExternCall::Count { index, .. } => self.ex(index),
                ExternCall::ExecuteMeter { index, dst, .. } => {
                    self.ex(index);
                    self.target(dst);
                }
                ExternCall::DirectMeterRead { dst, .. } => self.target(dst),
                ExternCall::Hash {
                    dst,
                    base,
                    data,
                    max,
                    ..
                } => {
                    self.target(dst);
                    self.ex(base);
                    self.leaves(data);
                    self.ex(max);
                }
                ExternCall::Random { dst, lo, hi } => {
                    self.target(dst);
                    self.ex(lo);
                    self.ex(hi);
                }
                ExternCall::VerifyChecksum {
                    cond,
                    data,
                    checksum,
                    ..
                } => {
                    self.ex(cond);
                    self.leaves(data);
                    self.ex(checksum);
                }
                ExternCall::UpdateChecksum {
                    cond, data, dst, ..
                } => {
                    self.ex(cond);
                    self.leaves(data);
                    self.target(dst);
                }
                ExternCall::Clone { session, .. } => self.ex(session),
                ExternCall::Resubmit(_) | ExternCall::Recirculate(_) => {}
                ExternCall::Truncate(e) => self.ex(e),
                ExternCall::Digest { receiver, data } => {
                    self.ex(receiver);
                    self.leaves(data);
                }
                ExternCall::Assert { cond, .. } => self.ex(cond),
                ExternCall::Log { data, .. } => self.leaves(data),
                ExternCall::Function { args, outs, .. } => {
                    for (_, ex) in args {
                        self.ex(ex);
                    }
                    for (_, target) in outs {
                        self.target(target);
                    }
                }
            },
            St::Mov(d, a) => {
                self.slot(*d);
                self.slot(*a);
            }
            St::BinSlots(_, _, d, a, b) => {
                self.slot(*d);
                self.slot(*a);
                self.slot(*b);
            }
            St::BinSlotConst(_, _, d, a, _) => {
                self.slot(*d);
                self.slot(*a);
            }
            St::RegReadSlot { dst, index, .. } => {
                self.slot(*dst);
                self.slot(*index);
            }
            St::RegRmwSlot {
                index,
                tmp,
                operand,
                ..
            } => {
                self.slot(*index);
                self.slot(*tmp);
                self.slot(*operand);
            }
            St::RegWriteSlot { index, value, .. } => {
                self.slot(*index);
                self.slot(*value);
            }
        }
    }

    pub(super) fn ex(&mut self, e: &Ex) {
        match e {
            Ex::Load(s) => self.slot(*s),
            Ex::LoadDyn(d, _) | Ex::LoadDynW(d, _, _) => self.dyn_(d),
            Ex::Seq(se) | Ex::SeqW(se) => {
                self.block(&se.0);
                self.ex(&se.1);
            }
            Ex::TableHit(t) | Ex::TableMiss(t) => self.table(*t),
            e => e.operands().for_each(|o| self.ex(o)),
        }
    }
}
