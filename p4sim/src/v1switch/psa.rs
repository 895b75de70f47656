//! The packet flow of a PSA program (`PSA_Switch`, with BMv2
//! `psa_switch`'s widths; [`crate::ir::PsaIr`] says how it is compiled).
//!
//! For each packet received on a port, as the PSA specification (section
//! 6, "Packet paths") and `psa_switch` define it:
//!
//! 1. Ingress: the ingress parser (with `packet_path` `NORMAL`,
//!    `RESUBMIT` or `RECIRCULATE` and, for the last two, the metadata the
//!    deparser that sent it back wrote), the ingress control (its output
//!    metadata start as `drop = true`, everything else 0), the ingress
//!    deparser. A parser error does not drop the packet: ingress sees it in
//!    `parser_error`.
//! 2. If `clone` (even when `drop`): a copy of the packet as it entered
//!    the ingress parser for each replica of clone session
//!    `clone_session_id` goes to egress as `CLONE_I2E` (class of service
//!    0), with the `clone_i2e_meta` the deparser wrote.
//! 3. Then, in this order: `drop` drops the packet; `resubmit` sends the
//!    packet *as received* back to ingress (`RESUBMIT`); a non-zero
//!    `multicast_group` makes a copy per replica (`NORMAL_MULTICAST`,
//!    `instance` the replica's rid); else it goes to `egress_port`
//!    (`NORMAL_UNICAST`), with the `normal_meta` the deparser wrote.
//! 4. Per copy: the egress parser, egress control (`clone` and `drop`
//!    start false) and egress deparser on a fresh egress half. If `clone`,
//!    a copy of what the deparser emitted goes to egress again for each
//!    replica of the session (`CLONE_E2E`, with `clone_e2e_meta`, class
//!    of service 0). Then
//!    `drop` drops it; an `egress_port` of `PSA_PORT_RECIRCULATE` sends
//!    what the deparser emitted to ingress (`RECIRCULATE`, with
//!    `recirculate_meta`); else it leaves on `egress_port`.
//!
//! At most [`MAX_PASSES`](super::MAX_PASSES) ingress passes per packet,
//! as many E2E clones of clones, and [`MAX_EGRESS_RUNS`] egress runs.

use std::collections::VecDeque;

use super::{MAX_PASSES, Sink, V1Switch};
use crate::exec::bits::Bits;
use crate::exec::state::{Effects, Frame, Stage};
use crate::ir::{PsaIr, SlotRange};

/// `PSA_PacketPath_t`'s members, in declaration order.
mod path {
    pub const NORMAL: u64 = 0;
    pub const NORMAL_UNICAST: u64 = 1;
    pub const NORMAL_MULTICAST: u64 = 2;
    pub const CLONE_I2E: u64 = 3;
    pub const CLONE_E2E: u64 = 4;
    pub const RESUBMIT: u64 = 5;
    pub const RECIRCULATE: u64 = 6;
}

/// `PSA_PORT_RECIRCULATE`.
const PORT_RECIRCULATE: u64 = 0xffff_fffa;

/// The values of user metadata one block hands to a later one.
#[derive(Debug, Clone, Default)]
struct Carried {
    n: Vec<u64>,
    w: Vec<Bits>,
}

impl Carried {
    fn take(frame: &Frame, r: &SlotRange) -> Carried {
        Carried {
            n: frame
                .n
                .get(r.n.start as usize..r.n.end as usize)
                .map(<[u64]>::to_vec)
                .unwrap_or_default(),
            w: frame
                .w
                .get(r.w.start as usize..r.w.end as usize)
                .map(<[Bits]>::to_vec)
                .unwrap_or_default(),
        }
    }

    fn put(&self, frame: &mut Frame, r: &SlotRange) {
        if let Some(s) = frame.n.get_mut(r.n.start as usize..r.n.end as usize)
            && s.len() == self.n.len()
        {
            s.copy_from_slice(&self.n);
        }
        if let Some(s) = frame.w.get_mut(r.w.start as usize..r.w.end as usize)
            && s.len() == self.w.len()
        {
            s.clone_from_slice(&self.w);
        }
    }
}

/// A packet on its way into ingress.
struct IngressJob {
    port: u64,
    path: u64,
    data: Vec<u8>,
    meta: Carried,
}

/// A copy on its way into egress.
struct EgressJob {
    port: u64,
    path: u64,
    instance: u64,
    cos: u64,
    data: Vec<u8>,
    meta: Carried,
    /// E2E clones in its ancestry.
    depth: usize,
}

/// Most egress runs one received packet may cause (clones of clones and
/// their replicas included).
const MAX_EGRESS_RUNS: usize = 1 << 16;

impl V1Switch {
    pub(super) fn psa_process(&mut self, ingress_port: u16, packet: &[u8], out: &mut Sink<'_>) {
        let prog = std::sync::Arc::clone(&self.prog);
        let Some(t) = prog.psa.as_deref() else {
            return;
        };
        let mut ingress = VecDeque::from([IngressJob {
            port: u64::from(ingress_port),
            path: path::NORMAL,
            data: packet.to_vec(),
            meta: Carried::default(),
        }]);
        let mut passes = 0;
        let mut egress_runs = 0;
        while let Some(job) = ingress.pop_front() {
            passes += 1;
            if passes > MAX_PASSES {
                self.rt.log.push(format!(
                    "packet dropped after {MAX_PASSES} resubmit/recirculate passes"
                ));
                return;
            }
            let mut egress = VecDeque::new();
            self.psa_ingress(t, job, &mut ingress, &mut egress);
            while let Some(copy) = egress.pop_front() {
                egress_runs += 1;
                if egress_runs > MAX_EGRESS_RUNS {
                    self.rt.log.push(format!(
                        "packet dropped after {MAX_EGRESS_RUNS} egress runs (clones of clones)"
                    ));
                    return;
                }
                self.psa_egress(t, copy, &mut ingress, &mut egress, out);
            }
        }
    }

    /// One ingress pass: queues what it sends on.
    fn psa_ingress(
        &mut self,
        t: &PsaIr,
        job: IngressJob,
        ingress: &mut VecDeque<IngressJob>,
        egress: &mut VecDeque<EgressJob>,
    ) {
        let now = self.rt.now_ns / 1000;
        let mut frame = std::mem::take(&mut self.frame);
        frame.clear(&self.prog);
        put(&mut frame, t.gress, 0);
        match job.path {
            path::RESUBMIT => job.meta.put(&mut frame, &t.resubmit_meta),
            path::RECIRCULATE => job.meta.put(&mut frame, &t.recirculate_meta),
            _ => {}
        }
        for (s, v) in [
            (t.ip_port, job.port),
            (t.ip_path, job.path),
            (t.ig_port, job.port),
            (t.ig_path, job.path),
            (t.ig_tstamp, now),
            (t.ig_drop, 1),
            (self.prog.std_meta.ingress_port, job.port),
            (self.prog.std_meta.packet_length, job.data.len() as u64),
        ] {
            put(&mut frame, s, v);
        }
        let Some((payload_at, err)) = self.parse_half(&mut frame, &job.data) else {
            self.frame = frame;
            return;
        };
        put(&mut frame, t.ig_parser_error, err);
        let payload = job.data.get(payload_at..).unwrap_or(&[]);
        if !self.psa_blocks(&mut frame, payload, Stage::Ingress) {
            self.frame = frame;
            return;
        }
        let mut deparsed = std::mem::take(&mut self.deparsed);
        deparsed.extend_from_slice(payload);
        let cos = get(&frame, t.ig_cos);
        if get(&frame, t.ig_clone) & 1 == 1 {
            // the packet as it entered the ingress parser, class of
            // service 0 (psa_switch's `ingress_thread`)
            let session = get(&frame, t.ig_clone_session) as u32;
            let meta = Carried::take(&frame, &t.clone_i2e_meta);
            for r in self.pre.clone_replicas(session, 0) {
                egress.push_back(EgressJob {
                    port: u64::from(r.port),
                    path: path::CLONE_I2E,
                    instance: u64::from(r.rid),
                    cos: 0,
                    data: job.data.clone(),
                    meta: meta.clone(),
                    depth: 0,
                });
            }
        }
        if get(&frame, t.ig_drop) & 1 == 1 {
        } else if get(&frame, t.ig_resubmit) & 1 == 1 {
            ingress.push_back(IngressJob {
                port: job.port,
                path: path::RESUBMIT,
                meta: Carried::take(&frame, &t.resubmit_meta),
                data: job.data,
            });
        } else {
            let meta = Carried::take(&frame, &t.normal_meta);
            let grp = get(&frame, t.ig_mcast_grp);
            if grp != 0 {
                for r in self.pre.replicate(grp as u32, 0) {
                    egress.push_back(EgressJob {
                        port: u64::from(r.port),
                        path: path::NORMAL_MULTICAST,
                        instance: u64::from(r.rid),
                        cos,
                        data: deparsed.clone(),
                        meta: meta.clone(),
                        depth: 0,
                    });
                }
            } else {
                egress.push_back(EgressJob {
                    port: get(&frame, t.ig_egress_port),
                    path: path::NORMAL_UNICAST,
                    instance: 0,
                    cos,
                    data: deparsed.clone(),
                    meta,
                    depth: 0,
                });
            }
        }
        self.deparsed = deparsed;
        self.frame = frame;
    }

    /// One egress copy, on a fresh egress half.
    fn psa_egress(
        &mut self,
        t: &PsaIr,
        job: EgressJob,
        ingress: &mut VecDeque<IngressJob>,
        egress: &mut VecDeque<EgressJob>,
        out: &mut Sink<'_>,
    ) {
        let mut frame = std::mem::take(&mut self.frame);
        self.reset_half(&mut frame, &t.egress_n, &t.egress_w);
        let meta_range = match job.path {
            path::CLONE_I2E => &t.clone_i2e_meta,
            path::CLONE_E2E => &t.clone_e2e_meta,
            _ => &t.normal_meta,
        };
        job.meta.put(&mut frame, meta_range);
        let now = self.rt.now_ns / 1000;
        for (s, v) in [
            (t.gress, 1),
            (t.ep_port, job.port),
            (t.ep_path, job.path),
            (t.eg_cos, job.cos),
            (t.eg_port, job.port),
            (t.eg_path, job.path),
            (t.eg_instance, job.instance),
            (t.eg_tstamp, now),
            (t.ed_port, job.port),
            (self.prog.std_meta.egress_port, job.port),
            (self.prog.std_meta.packet_length, job.data.len() as u64),
        ] {
            put(&mut frame, s, v);
        }
        let Some((payload_at, err)) = self.parse_half(&mut frame, &job.data) else {
            self.frame = frame;
            return;
        };
        put(&mut frame, t.eg_parser_error, err);
        let payload = job.data.get(payload_at..).unwrap_or(&[]);
        if !self.psa_blocks(&mut frame, payload, Stage::Egress) {
            self.frame = frame;
            return;
        }
        let mut bytes = std::mem::take(&mut self.deparsed);
        bytes.extend_from_slice(payload);
        if get(&frame, t.eg_clone) & 1 == 1 && job.depth >= MAX_PASSES {
            self.rt.log.push(format!(
                "E2E clone dropped: more than {MAX_PASSES} clones of clones"
            ));
        } else if get(&frame, t.eg_clone) & 1 == 1 {
            let session = get(&frame, t.eg_clone_session) as u32;
            let meta = Carried::take(&frame, &t.clone_e2e_meta);
            for r in self.pre.clone_replicas(session, 0) {
                egress.push_back(EgressJob {
                    port: u64::from(r.port),
                    path: path::CLONE_E2E,
                    instance: u64::from(r.rid),
                    cos: 0,
                    data: bytes.clone(),
                    meta: meta.clone(),
                    depth: job.depth + 1,
                });
            }
        }
        let port = job.port;
        if get(&frame, t.eg_drop) & 1 == 1 {
            self.deparsed = bytes;
        } else if port == PORT_RECIRCULATE {
            ingress.push_back(IngressJob {
                port: PORT_RECIRCULATE,
                path: path::RECIRCULATE,
                meta: Carried::take(&frame, &t.recirculate_meta),
                data: bytes,
            });
        } else if let Ok(p) = u16::try_from(port) {
            self.deparsed = out.push(p, bytes);
        } else {
            self.rt.log.push(format!(
                "packet to port {port:#x} dropped (p4sim's ports are 16 bits)"
            ));
            self.deparsed = bytes;
        }
        self.frame = frame;
    }

    /// The control of the half `stage` names, then the deparser (whose
    /// bytes are left in `self.deparsed`); `false` when a fault dropped
    /// the packet.
    fn psa_blocks(&mut self, frame: &mut Frame, payload: &[u8], stage: Stage) -> bool {
        let (which, half) = match stage {
            Stage::Ingress => (1, "ingress"),
            _ => (2, "egress"),
        };
        let mut fx = Effects::default();
        self.run_stage(frame, &mut fx, payload, stage, which);
        if let Some(f) = fx.fault.take() {
            self.rt.log.push(format!("packet dropped in {half}: {f}"));
            return false;
        }
        self.run_stage(frame, &mut fx, payload, Stage::Other, 4);
        if let Some(f) = fx.fault.take() {
            self.rt
                .log
                .push(format!("packet dropped in the {half} deparser: {f}"));
            return false;
        }
        true
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
