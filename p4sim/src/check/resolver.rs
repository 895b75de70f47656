//! The checker's answers for the control plane: what a type, a key or a
//! digest's data resolves to, and the value of a constant, each from the
//! same resolution, scopes and constant folding that lower the program.
//! P4Info is built from these ([`crate::p4info`]); it keeps the names of
//! `type` declarations, which the lowering itself erases.

use super::*;

/// A type as the control plane sees it: the checker's resolution, with
/// `type` (new type) names kept and headers, structs and unions apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpType {
    /// `bool`.
    Bool,
    /// `bit<W>`.
    Bit(u32),
    /// `int<W>`.
    Int(u32),
    /// `varbit<W>` (a header field).
    Varbit(u32),
    /// `error`.
    Error,
    /// A plain enum, by name.
    Enum(Arc<str>),
    /// A serializable enum, by name, and its width.
    SerEnum(Arc<str>, u32),
    /// A struct, by name.
    Struct(Arc<str>),
    /// A header, by name.
    Header(Arc<str>),
    /// A header union, by name.
    Union(Arc<str>),
    /// A header stack: its element and size.
    Stack(Box<CpType>, u32),
    /// A tuple.
    Tuple(Vec<CpType>),
    /// A `type` declaration, by name, and what it wraps.
    NewType(Arc<str>, Box<CpType>),
    /// Anything the control plane has no type for (unsized integers,
    /// strings, extern objects, ...).
    Other,
}

/// A field of a header, struct or union as the control plane sees it.
#[derive(Debug, Clone)]
pub struct CpField {
    /// Its name in the program.
    pub name: Arc<str>,
    /// Its annotations (`@name`, `@id`, ...).
    pub annotations: Vec<ast::Annotation>,
    /// Its type.
    pub ty: CpType,
}

/// The checker over one program, answering for the control plane.
pub struct Resolver<'p> {
    c: Compiler<'p>,
}

impl<'p> Resolver<'p> {
    /// Declares `program`'s top-level names and checks its type
    /// declarations and constants, as [`compile`] does first.
    pub fn new(program: &'p ast::Program) -> Result<Resolver<'p>, Error> {
        let mut c = Compiler::new(program);
        c.declare_globals()?;
        Ok(Resolver { c })
    }

    /// The first top-level declaration named `name`.
    pub fn declaration(&self, name: &str) -> Option<&'p Declaration> {
        self.c.globals.get(name).and_then(|ds| ds.first().copied())
    }

    /// The members of `error`, in order.
    pub fn errors(&self) -> &[String] {
        &self.c.errors
    }

    /// `t` resolved at the top level.
    pub fn resolve(&mut self, t: &ast::Type) -> Result<CpType, Error> {
        if let ast::TypeKind::Name(p) = &t.kind
            && let Some(Declaration::Typedef(td)) = self.declaration(p.name.as_str())
        {
            self.c.named_type(&p.name)?;
            let inner = self.resolve(&td.ty)?;
            return Ok(if td.new_type {
                CpType::NewType(td.name.name.clone(), Box::new(inner))
            } else {
                inner
            });
        }
        Ok(match &t.kind {
            ast::TypeKind::Stack { element, .. } => {
                let Ty::Stack(_, size) = self.c.resolve_type(t)? else {
                    return err(t.span, "expected a header stack");
                };
                CpType::Stack(Box::new(self.resolve(element)?), size)
            }
            ast::TypeKind::Tuple(items) => CpType::Tuple(
                items
                    .iter()
                    .map(|i| self.resolve(i))
                    .collect::<Result<_, _>>()?,
            ),
            _ => {
                let ty = self.c.resolve_type(t)?;
                self.cp_type(&ty)
            }
        })
    }

    /// The fields of the header, struct or union `name`, with their types.
    pub fn fields(&mut self, name: &str) -> Result<Vec<CpField>, Error> {
        let Some(Declaration::Header(s) | Declaration::Struct(s) | Declaration::HeaderUnion(s)) =
            self.declaration(name)
        else {
            return Ok(Vec::new());
        };
        s.fields
            .iter()
            .map(|f| {
                Ok(CpField {
                    name: f.name.name.clone(),
                    annotations: f.annotations.clone(),
                    ty: self.resolve(&f.ty)?,
                })
            })
            .collect()
    }

    /// The members of the enum `name` and their values (serializable enums:
    /// sign-extended from a signed underlying type; plain ones: 0, 1, ...).
    pub fn enum_members(&self, name: &str) -> Vec<(Arc<str>, i128)> {
        let Some(e) = self
            .c
            .enum_ids
            .get(name)
            .and_then(|&i| self.c.enums.get(i as usize))
        else {
            return Vec::new();
        };
        e.members
            .iter()
            .map(|(m, v)| {
                let value = match e.underlying {
                    Some(b)
                        if b.is_signed() && b.width() < 64 && (v >> (b.width() - 1)) & 1 == 1 =>
                    {
                        i128::from(*v) - (1i128 << b.width())
                    }
                    Some(b) if b.is_signed() && b.width() == 64 => i128::from(*v as i64),
                    _ => i128::from(*v),
                };
                (m.clone(), value)
            })
            .collect()
    }

    /// The value of the compile-time constant `e`, in the scope of
    /// `control` when given (its parameters, variables and constants).
    pub fn eval(
        &mut self,
        e: &ast::Expr,
        control: Option<&'p ast::ControlDecl>,
    ) -> Result<i128, Error> {
        if let Some(control) = control {
            self.enter(control, None)?;
        } else {
            self.c.scopes.clear();
        }
        let v = self.c.expr(e)?;
        match self.c.const_value(&v) {
            Some(v) => Ok(v),
            None => err(e.span, "expected a compile-time constant"),
        }
    }

    /// The value of `e` when it folds to a boolean constant in the scope of
    /// `control` (and of `action`'s parameters when given); `None` when it
    /// does not, or does not type-check there (it names a block's local).
    pub fn constant_bool(
        &mut self,
        e: &ast::Expr,
        control: &'p ast::ControlDecl,
        action: Option<&'p ast::ActionDecl>,
    ) -> Option<bool> {
        self.enter(control, action).ok()?;
        match self.c.expr(e).ok()? {
            Val::Scalar(Ex::Const(c), Ty::Bool) => Some(c != 0),
            _ => None,
        }
    }

    /// The type of `e` (a table key, a digest's data) in the scope of
    /// `control`, and of `action`'s parameters when given.
    pub fn type_of(
        &mut self,
        e: &ast::Expr,
        control: &'p ast::ControlDecl,
        action: Option<&'p ast::ActionDecl>,
    ) -> Result<CpType, Error> {
        self.enter(control, action)?;
        let v = self.c.expr(e)?;
        let ty = match &v {
            Val::Scalar(_, t) | Val::Place(_, t) => self.cp_type(t),
            _ => CpType::Other,
        };
        // The checker erases `type` names; the declaration keeps them.
        let declared = match &e.kind {
            ExprKind::Name(p) if !p.absolute => {
                let local = action
                    .into_iter()
                    .flat_map(|a| &a.params)
                    .chain(&control.params)
                    .chain(&control.ctor_params)
                    .find(|q| q.name.as_str() == p.name.as_str())
                    .map(|q| &q.ty)
                    .or_else(|| {
                        control.locals.iter().find_map(|d| match d {
                            Declaration::Variable(v) if v.name.as_str() == p.name.as_str() => {
                                Some(&v.ty)
                            }
                            Declaration::Constant(c) if c.name.as_str() == p.name.as_str() => {
                                Some(&c.ty)
                            }
                            _ => None,
                        })
                    });
                match local {
                    Some(t) => Some(self.resolve(t)?),
                    None => None,
                }
            }
            ExprKind::Member { base, member } => match self.type_of(base, control, action)? {
                CpType::Struct(s) | CpType::Header(s) | CpType::Union(s) => self
                    .fields(&s)?
                    .into_iter()
                    .find(|f| f.name.as_ref() == member.as_str())
                    .map(|f| f.ty),
                _ => None,
            },
            ExprKind::Cast { ty, .. } => Some(self.resolve(ty)?),
            _ => None,
        };
        Ok(match declared {
            Some(d @ CpType::NewType(..)) => d,
            _ => ty,
        })
    }

    /// A fresh scope with `control`'s parameters, variables, constants and
    /// tables (and `action`'s parameters) bound; nothing is lowered.
    fn enter(
        &mut self,
        control: &'p ast::ControlDecl,
        action: Option<&'p ast::ActionDecl>,
    ) -> Res<()> {
        let c = &mut self.c;
        c.scopes = vec![HashMap::new()];
        c.prefix = control.name.to_string();
        c.block_kind = BlockKind::Control;
        c.n_slots = 0;
        c.w_init.clear();
        for p in control.ctor_params.iter().chain(&control.params) {
            let t = c.resolve_type(&p.ty)?;
            let place = c.alloc(&t);
            c.bind(&p.name, Val::Place(place, t))?;
        }
        for (index, d) in control.locals.iter().enumerate() {
            match d {
                Declaration::Constant(k) => {
                    let v = c.local_const(k)?;
                    c.bind(&k.name, v)?;
                }
                // For `t.apply().hit` in another table's key: nothing is
                // lowered here, so the id is a placeholder; only the type
                // of the result is asked for.
                Declaration::Table(t) => {
                    c.bind(
                        &t.name,
                        Val::Table(u32::try_from(index).unwrap_or(u32::MAX)),
                    )?;
                }
                Declaration::Variable(v) => {
                    let t = c.resolve_type(&v.ty)?;
                    let place = c.alloc(&t);
                    c.bind(&v.name, Val::Place(place, t))?;
                }
                _ => {}
            }
        }
        if let Some(a) = action {
            c.scopes.push(HashMap::new());
            for p in &a.params {
                let t = c.resolve_type(&p.ty)?;
                let place = c.alloc(&t);
                c.bind(&p.name, Val::Place(place, t))?;
            }
        }
        Ok(())
    }

    fn cp_type(&self, t: &Ty) -> CpType {
        let c = &self.c;
        match t {
            Ty::Bool => CpType::Bool,
            Ty::Bit(w) => CpType::Bit(*w),
            Ty::Int(w) => CpType::Int(*w),
            Ty::Varbit(w) => CpType::Varbit(*w),
            Ty::Error => CpType::Error,
            Ty::Enum(i) => match c.enums.get(*i as usize) {
                Some(e) => match e.underlying {
                    Some(b) => CpType::SerEnum(e.name.clone(), b.width()),
                    None => CpType::Enum(e.name.clone()),
                },
                None => CpType::Other,
            },
            Ty::Struct(i) => match c.structs.get(*i as usize) {
                Some(s) => match s.kind {
                    SKind::Header => CpType::Header(s.name.clone()),
                    SKind::Struct => CpType::Struct(s.name.clone()),
                    SKind::Union => CpType::Union(s.name.clone()),
                },
                None => CpType::Other,
            },
            Ty::Stack(e, n) => CpType::Stack(Box::new(self.cp_type(e)), *n),
            Ty::Tuple(ts) => CpType::Tuple(ts.iter().map(|t| self.cp_type(t)).collect()),
            _ => CpType::Other,
        }
    }
}

impl std::fmt::Debug for Resolver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver").finish_non_exhaustive()
    }
}
