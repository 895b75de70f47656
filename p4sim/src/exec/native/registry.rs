//! The generated programs compiled into the binary ([`register`]), and a
//! registered program bound to a loaded one ([`Bound`]): found by the hash
//! of the source the generator gives for the loaded program, with its
//! fallbacks lowered by the closure engine.

use std::sync::RwLock;

use super::codegen::Generator;
use super::runtime::{Entry, Fallbacks, NativeProgram};
use crate::exec::interp::Exec;
use crate::exec::lowering::{ExFn, StFn};
use crate::exec::state::Stage;
use crate::ir::{Compiled, Ex, St};

static REGISTRY: RwLock<Vec<&'static NativeProgram>> = RwLock::new(Vec::new());

/// Makes `p` available to every switch built after this call on
/// [`crate::v1switch::Engine::Native`] for a program it was generated from.
pub fn register(p: &'static NativeProgram) {
    if registered(p.hash).is_some() {
        return;
    }
    let mut r = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if !r.iter().any(|q| q.hash == p.hash) {
        r.push(p);
    }
}

fn registered(hash: u64) -> Option<&'static NativeProgram> {
    let r = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    r.iter().copied().find(|p| p.hash == hash)
}

fn any_registered() -> bool {
    !REGISTRY
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .is_empty()
}

/// A registered program bound to a loaded one.
pub(crate) struct Bound {
    program: &'static NativeProgram,
    fb: Fallbacks,
}

impl std::fmt::Debug for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bound")
            .field("program", &self.program.name)
            .field("statements_lowered", &self.fb.st.len())
            .field("expressions_lowered", &self.fb.ex.len())
            .finish()
    }
}

impl Bound {
    /// The registered program generated from `prog`, with its fallbacks
    /// lowered by `lower` (statements, expressions).
    pub(crate) fn find(
        prog: &Compiled,
        lower: impl FnOnce(&[St], &[Ex]) -> (Vec<StFn>, Vec<ExFn>),
    ) -> Option<Bound> {
        if !any_registered() {
            return None;
        }
        let g = Generator::run(prog);
        let program = registered(g.hash)?;
        let (st, ex) = lower(&g.fb_st, &g.fb_ex);
        let params = prog
            .tables
            .iter()
            .map(|t| {
                t.actions
                    .iter()
                    .map(|ta| {
                        let act = prog.actions.get(ta.action as usize)?;
                        Some(
                            act.params
                                .iter()
                                .filter(|p| p.control_plane)
                                .map(|p| (p.slot as usize, p.ty.width() > 64))
                                .collect(),
                        )
                    })
                    .collect()
            })
            .collect();
        Some(Bound {
            program,
            fb: Fallbacks {
                st,
                ex,
                params,
                packet_length: prog.std_meta.packet_length as usize,
            },
        })
    }

    /// The registered program's name.
    pub(crate) fn name(&self) -> &'static str {
        self.program.name
    }

    pub(crate) fn run_parser(&self, ex: &mut Exec<'_>) -> u64 {
        let mut e = Entry {
            ex,
            fb: &self.fb,
            stages: None,
            parsed: 0,
        };
        (self.program.run)(&mut e);
        e.parsed
    }

    /// The closure engine's `run_controls`: the stages run in one
    /// context.
    pub(crate) fn run_controls(&self, ex: &mut Exec<'_>, stages: &[(Stage, u8)]) {
        (self.program.run)(&mut Entry {
            ex,
            fb: &self.fb,
            stages: Some(stages),
            parsed: 0,
        });
    }
}
