//! The packet flow of a TNA (Tofino 1) pipeline, for programs whose main
//! is a `Switch` ([`crate::ir::TnaIr`] says how they are compiled).
//!
//! For each packet received on a port:
//!
//! 1. The ingress parser sees `ingress_intrinsic_metadata_t` (resubmit
//!    flag, port, the clock in ns), then 8 bytes of port metadata (zeros),
//!    then the packet. A parser error sets `parser_err` (`NO_MATCH`,
//!    `PARTIAL_HDR`, else `TIMEOUT_USER`) and the packet goes on.
//! 2. The ingress control, then the ingress deparser. If the deparser
//!    called `Resubmit.emit`, the packet *as received* runs ingress again
//!    with `resubmit_flag` 1 and the emitted header (zero-padded to 8
//!    bytes) in place of the port metadata; nothing else happens to this
//!    pass (at most [`MAX_PASSES`](super::MAX_PASSES) passes). Else, when
//!    bit 0 of `drop_ctl` is set, the packet is dropped.
//! 3. The traffic manager makes a copy for `ucast_egress_port` if ingress
//!    assigned it, and one per member of `mcast_grp_a` and `mcast_grp_b`
//!    (the packet replication engine's groups, with their `rid`), in that
//!    order. No exclusion ids: pruning is the program's business.
//! 4. Per copy, unless `bypass_egress`: the egress parser sees
//!    `egress_intrinsic_metadata_t` (port, `egress_rid`, first-replica
//!    flag, length), then what the ingress deparser emitted and the rest of
//!    the packet; the egress control; bit 0 of `drop_ctl` drops the copy;
//!    the egress deparser's output and the unparsed rest leave on the port.
//!    The egress half starts from fresh state for each copy.
//! 5. A copy for port 68, pipe 0's recirculation port (through egress or
//!    with `bypass_egress`), comes back as a new packet into ingress on
//!    port 68, after this packet's other copies; resubmits and
//!    recirculations together make at most [`MAX_PASSES`] passes.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::{MAX_PASSES, Sink, V1Switch};
use crate::exec::interp::Exec;
use crate::exec::narrow::BitWriter;
use crate::exec::state::{Effects, Frame, Stage};
use crate::ir::{St, TnaIr};

/// `parser_err` flags (TNA's `PARSER_ERROR_*`).
const PARSER_ERROR_NO_MATCH: u64 = 0x0001;
const PARSER_ERROR_PARTIAL_HDR: u64 = 0x0002;
const PARSER_ERROR_TIMEOUT_USER: u64 = 0x0008;
/// Bytes of port metadata after the ingress intrinsic metadata.
const PORT_METADATA_BYTES: usize = 8;
/// Bytes of resubmit data on Tofino 1.
const RESUBMIT_BYTES: usize = 8;
/// Pipe 0's recirculation port on Tofino 1: what egress sends there comes
/// back into ingress with this ingress port.
const RECIRCULATION_PORT: u64 = 68;
/// `ucast_egress_port` before ingress: out of the port range, so "not
/// assigned".
const UNASSIGNED: u64 = 1 << 9;

impl V1Switch {
    pub(super) fn tna_process(&mut self, ingress_port: u16, packet: &[u8], out: &mut Sink<'_>) {
        // the program, not its TNA description, is cloned per packet (an
        // Arc)
        let prog = std::sync::Arc::clone(&self.prog);
        let Some(t) = prog.tna.as_deref() else {
            return;
        };
        let port = u64::from(ingress_port) & 0x1ff;
        // what the egress deparser sent to the recirculation port, in order
        let mut recirculated: VecDeque<Vec<u8>> = VecDeque::new();
        let mut current = (port, Cow::Borrowed(packet));
        let mut resubmit: Option<Vec<u8>> = None;
        for _ in 0..MAX_PASSES {
            let (port, data) = &current;
            resubmit =
                self.tna_ingress(t, *port, data, resubmit.as_deref(), &mut recirculated, out);
            if resubmit.is_some() {
                continue;
            }
            match recirculated.pop_front() {
                Some(next) => current = (RECIRCULATION_PORT, Cow::Owned(next)),
                None => return,
            }
        }
        self.rt.log.push(format!(
            "packet dropped after {MAX_PASSES} resubmit and recirculation passes"
        ));
    }

    /// One ingress pass; returns the resubmit data when the packet goes
    /// around again, and queues in `recirculated` what its copies send to
    /// the recirculation port.
    fn tna_ingress(
        &mut self,
        t: &TnaIr,
        port: u64,
        packet: &[u8],
        resubmit: Option<&[u8]>,
        recirculated: &mut VecDeque<Vec<u8>>,
        out: &mut Sink<'_>,
    ) -> Option<Vec<u8>> {
        let now_ns = self.rt.now_ns & ((1 << 48) - 1);
        let mut data = t.ig_intr.pack(&[
            ("resubmit_flag", u64::from(resubmit.is_some())),
            ("ingress_port", port),
            ("ingress_mac_tstamp", now_ns),
        ]);
        match resubmit {
            Some(r) => data.extend_from_slice(r),
            None => data.extend_from_slice(&[0; PORT_METADATA_BYTES]),
        }
        data.extend_from_slice(packet);

        let mut frame = std::mem::take(&mut self.frame);
        frame.clear(&self.prog);
        put(&mut frame, t.gress, 0);
        put(&mut frame, self.prog.std_meta.ingress_port, port);
        put(
            &mut frame,
            self.prog.std_meta.packet_length,
            packet.len() as u64,
        );
        let Some(payload_at) = self.tna_parse(&mut frame, &data, t.ig_parser_err) else {
            self.frame = frame;
            return None;
        };
        put(&mut frame, t.ig_global_tstamp, now_ns);
        put(&mut frame, t.ucast_egress_port, UNASSIGNED);
        let payload = data.get(payload_at..).unwrap_or(&[]);
        let mut fx = Effects::default();
        self.run_stage(&mut frame, &mut fx, payload, Stage::Ingress, 1);
        if let Some(f) = fx.fault.take() {
            self.rt.log.push(format!("packet dropped in ingress: {f}"));
            self.frame = frame;
            return None;
        }
        self.run_stage(&mut frame, &mut fx, payload, Stage::Other, 4);
        if let Some(f) = fx.fault.take() {
            self.rt
                .log
                .push(format!("packet dropped in the ingress deparser: {f}"));
            self.frame = frame;
            return None;
        }
        let which = get(&frame, t.resubmit);
        if which != 0 {
            let mut bytes = Vec::new();
            if let Some(h) = usize::try_from(which - 1)
                .ok()
                .and_then(|k| t.resubmit_headers.get(k))
            {
                let mut fx = Effects::default();
                let mut ex = Exec::new(
                    &self.prog,
                    &mut self.rt,
                    &mut frame,
                    &mut fx,
                    &[],
                    &[],
                    Stage::Other,
                );
                ex.out = BitWriter::with_buffer(Vec::new());
                ex.stmt(&St::Emit(vec![h.clone()]));
                bytes = std::mem::take(&mut ex.out).finish();
            }
            bytes.resize(RESUBMIT_BYTES, 0);
            self.frame = frame;
            return Some(bytes);
        }
        if get(&frame, t.ig_drop_ctl) & 1 == 1 {
            self.frame = frame;
            return None;
        }
        let mut to_egress = std::mem::take(&mut self.deparsed);
        to_egress.extend_from_slice(payload);
        let mut copies: Vec<(u64, u64)> = Vec::new();
        let ucast = get(&frame, t.ucast_egress_port);
        if ucast < UNASSIGNED {
            copies.push((ucast, 0));
        }
        for grp in [get(&frame, t.mcast_grp_a), get(&frame, t.mcast_grp_b)] {
            if grp != 0 {
                copies.extend(
                    self.pre
                        .replicate(grp as u32, 0)
                        .into_iter()
                        .map(|r| (u64::from(r.port), u64::from(r.rid))),
                );
            }
        }
        let bypass = get(&frame, t.bypass_egress) & 1 == 1;
        for (k, &(eport, rid)) in copies.iter().enumerate() {
            if bypass && eport & 0x1ff == RECIRCULATION_PORT {
                recirculated.push_back(to_egress.clone());
            } else if bypass {
                out.push_copy((eport & 0x1ff) as u16, &to_egress);
            } else if let Some(again) =
                self.tna_egress(t, &mut frame, eport, rid, k == 0, &to_egress, out)
            {
                recirculated.push_back(again);
            }
        }
        self.deparsed = to_egress;
        self.frame = frame;
        None
    }

    /// One egress copy: the egress half of `frame` is reset first. Returns
    /// what the egress deparser sent to the recirculation port.
    #[allow(clippy::too_many_arguments)]
    fn tna_egress(
        &mut self,
        t: &TnaIr,
        frame: &mut Frame,
        port: u64,
        rid: u64,
        first: bool,
        packet: &[u8],
        out: &mut Sink<'_>,
    ) -> Option<Vec<u8>> {
        self.reset_half(frame, &t.egress_n, &t.egress_w);
        put(frame, t.gress, 1);
        put(frame, t.resubmit, 0);
        put(frame, self.prog.std_meta.egress_port, port & 0x1ff);
        put(frame, self.prog.std_meta.egress_rid, rid & 0xffff);
        let now_ns = self.rt.now_ns & ((1 << 48) - 1);
        let mut data = t.eg_intr.pack(&[
            ("egress_port", port & 0x1ff),
            ("egress_rid", rid & 0xffff),
            ("egress_rid_first", u64::from(first)),
            ("pkt_length", packet.len() as u64 & 0xffff),
        ]);
        data.extend_from_slice(packet);
        let payload_at = self.tna_parse(frame, &data, t.eg_parser_err)?;
        put(frame, t.eg_global_tstamp, now_ns);
        let payload = data.get(payload_at..).unwrap_or(&[]);
        let mut fx = Effects::default();
        self.run_stage(frame, &mut fx, payload, Stage::Egress, 2);
        if let Some(f) = fx.fault.take() {
            self.rt.log.push(format!("packet dropped in egress: {f}"));
            return None;
        }
        if get(frame, t.eg_drop_ctl) & 1 == 1 {
            return None;
        }
        self.run_stage(frame, &mut fx, payload, Stage::Other, 4);
        if let Some(f) = fx.fault.take() {
            self.rt
                .log
                .push(format!("packet dropped in the egress deparser: {f}"));
            return None;
        }
        let mut bytes = std::mem::take(&mut self.deparsed);
        bytes.extend_from_slice(payload);
        if port & 0x1ff == RECIRCULATION_PORT {
            return Some(bytes);
        }
        self.deparsed = out.push((port & 0x1ff) as u16, bytes);
        None
    }

    /// Resets the slots of a half (narrow to 0, wide to their initial
    /// values) for the next copy through it.
    pub(super) fn reset_half(
        &self,
        frame: &mut Frame,
        n: &std::ops::Range<u32>,
        w: &std::ops::Range<u32>,
    ) {
        if let Some(s) = frame.n.get_mut(n.start as usize..n.end as usize) {
            s.fill(0);
        }
        for i in w.clone() {
            if let (Some(x), Some(init)) = (
                frame.w.get_mut(i as usize),
                self.prog.w_init.get(i as usize),
            ) {
                *x = init.clone();
            }
        }
    }

    /// Runs the parser (the half `gress` selects) on `data`; sets the
    /// half's `parser_err`; returns where the unparsed rest starts, or
    /// `None` when the packet was dropped.
    fn tna_parse(&mut self, frame: &mut Frame, data: &[u8], parser_err: u32) -> Option<usize> {
        let (at, err) = self.parse_half(frame, data)?;
        if err != 0 {
            let flag = if Some(err) == self.prog.error_code("NoMatch") {
                PARSER_ERROR_NO_MATCH
            } else if Some(err) == self.prog.error_code("PacketTooShort") {
                PARSER_ERROR_PARTIAL_HDR
            } else {
                PARSER_ERROR_TIMEOUT_USER
            };
            put(frame, parser_err, flag);
        }
        Some(at)
    }

    /// Runs the parser (the half `gress` selects: TNA's and PSA's) on
    /// `data`; returns where the unparsed rest starts and the parser's
    /// error (0: none), or `None` when a fault dropped the packet.
    pub(super) fn parse_half(&mut self, frame: &mut Frame, data: &[u8]) -> Option<(usize, u64)> {
        let prog = self.prog.clone();
        let mut fx = Effects::default();
        let (err, cursor) = {
            let mut ex = Exec::new(
                &prog,
                &mut self.rt,
                frame,
                &mut fx,
                data,
                &[],
                Stage::Parser,
            );
            let e = match &self.engine {
                Some(c) => c.run_parser(&mut ex),
                None => ex.run_parser(),
            };
            (e, ex.cursor)
        };
        if let Some(f) = fx.fault {
            self.rt
                .log
                .push(format!("packet dropped in the parser: {f}"));
            return None;
        }
        Some((cursor.div_ceil(8).min(data.len()), err))
    }
}

fn get(frame: &Frame, s: u32) -> u64 {
    frame.n.get(s as usize).copied().unwrap_or(0)
}

fn put(frame: &mut Frame, s: u32, v: u64) {
    if let Some(x) = frame.n.get_mut(s as usize) {
        *x = v;
    }
}
