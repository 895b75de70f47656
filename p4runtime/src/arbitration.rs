//! Client arbitration on the stream channel (P4Runtime spec §5 and §15,
//! roles): the state every P4Runtime server keeps and the rules it applies,
//! without the I/O. ESA's switch and the controller's fake switch both keep
//! their streams here. What a role may write is the server's business
//! (esa-switch's role policy); here each role only elects its primary.
//!
//! - A stream joins with [`Arbitration::open`] and takes part once it sends
//!   a `MasterArbitrationUpdate` ([`Arbitration::arbitrate`]) naming its
//!   role (`""`: the default role); two open streams of one role never
//!   share an election id, and a stream keeps the role it arbitrated in.
//! - Each role's primary is its arbitrated stream with the highest election
//!   id; only that election id may write for the role
//!   ([`Arbitration::check_primary`]).
//! - After every change each arbitrated stream is told who is its role's
//!   primary ([`Arbitration::updates`]): `OK` to the primary,
//!   `ALREADY_EXISTS` to a backup, each carrying the primary's election id.

use crate::google::rpc;
use crate::p4::v1::{MasterArbitrationUpdate, Role, Uint128};
use tonic::{Code, Status};

/// A stream channel's number, in the order streams opened.
pub type StreamId = u64;

/// A P4Runtime `Uint128` from a `u128`.
pub fn to_uint128(v: u128) -> Uint128 {
    Uint128 {
        high: (v >> 64) as u64,
        low: v as u64,
    }
}

/// A `u128` from a P4Runtime `Uint128`.
pub fn from_uint128(v: &Uint128) -> u128 {
    (u128::from(v.high) << 64) | u128::from(v.low)
}

#[derive(Debug)]
struct Member<T> {
    id: StreamId,
    /// `None` until its first arbitration message.
    election_id: Option<u128>,
    /// The role it arbitrated in (`""`: the default role).
    role: String,
    handle: T,
}

/// The streams of one device, in every role; `T` is how the server reaches
/// a stream (its sending half).
#[derive(Debug)]
pub struct Arbitration<T> {
    members: Vec<Member<T>>,
    next_id: StreamId,
}

impl<T> Default for Arbitration<T> {
    fn default() -> Self {
        Arbitration {
            members: Vec::new(),
            next_id: 0,
        }
    }
}

/// Why an arbitration message was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArbitrationError {
    /// Another open stream holds the election id.
    #[error("election id {0} is used by another controller")]
    ElectionIdInUse(u128),
    /// The stream is not open (closed, or dropped by the server).
    #[error("stream {0} is not open")]
    NotOpen(StreamId),
    /// The stream arbitrated in one role and then named another.
    #[error("the stream arbitrated as role {was:?} and cannot change to role {asked:?}")]
    RoleChanged {
        /// The role it arbitrated in.
        was: String,
        /// The role it named now.
        asked: String,
    },
}

impl From<ArbitrationError> for Status {
    fn from(e: ArbitrationError) -> Status {
        match e {
            ArbitrationError::ElectionIdInUse(_) => Status::invalid_argument(e.to_string()),
            ArbitrationError::NotOpen(_) => Status::failed_precondition(e.to_string()),
            ArbitrationError::RoleChanged { .. } => Status::invalid_argument(e.to_string()),
        }
    }
}

impl<T> Arbitration<T> {
    /// No streams.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new stream, not yet arbitrated.
    pub fn open(&mut self, handle: T) -> StreamId {
        self.next_id += 1;
        self.members.push(Member {
            id: self.next_id,
            election_id: None,
            role: String::new(),
            handle,
        });
        self.next_id
    }

    /// Closes stream `id`; returns whether it was the primary (then the
    /// others must be told: [`Arbitration::updates`]).
    pub fn close(&mut self, id: StreamId) -> bool {
        let was_primary = self.is_primary(id);
        self.members.retain(|m| m.id != id);
        was_primary
    }

    /// Closes every stream (a restart).
    pub fn close_all(&mut self) {
        self.members.clear();
    }

    /// Records stream `id`'s role and election id.
    pub fn arbitrate(
        &mut self,
        id: StreamId,
        role: &str,
        election_id: u128,
    ) -> Result<(), ArbitrationError> {
        if self
            .members
            .iter()
            .any(|m| m.id != id && m.role == role && m.election_id == Some(election_id))
        {
            return Err(ArbitrationError::ElectionIdInUse(election_id));
        }
        let member = self
            .members
            .iter_mut()
            .find(|m| m.id == id)
            .ok_or(ArbitrationError::NotOpen(id))?;
        if member.election_id.is_some() && member.role != role {
            return Err(ArbitrationError::RoleChanged {
                was: member.role.clone(),
                asked: role.to_string(),
            });
        }
        member.role = role.to_string();
        member.election_id = Some(election_id);
        Ok(())
    }

    /// The role stream `id` arbitrated in, once it has.
    pub fn role_of(&self, id: StreamId) -> Option<&str> {
        self.members
            .iter()
            .find(|m| m.id == id && m.election_id.is_some())
            .map(|m| m.role.as_str())
    }

    /// Whether stream `id` is open.
    pub fn is_open(&self, id: StreamId) -> bool {
        self.members.iter().any(|m| m.id == id)
    }

    /// Stream `id`'s handle, while it is open.
    pub fn handle(&self, id: StreamId) -> Option<&T> {
        self.members.iter().find(|m| m.id == id).map(|m| &m.handle)
    }

    /// Whether stream `id` has arbitrated.
    pub fn is_arbitrated(&self, id: StreamId) -> bool {
        self.members
            .iter()
            .any(|m| m.id == id && m.election_id.is_some())
    }

    fn primary_member(&self, role: &str) -> Option<&Member<T>> {
        self.members
            .iter()
            .filter(|m| m.election_id.is_some() && m.role == role)
            .max_by_key(|m| m.election_id)
    }

    /// The stream handle of `role`'s primary.
    pub fn primary(&self, role: &str) -> Option<&T> {
        self.primary_member(role).map(|m| &m.handle)
    }

    /// The stream handles of every role's primary, each once.
    pub fn primaries(&self) -> impl Iterator<Item = &T> {
        self.members
            .iter()
            .filter(|m| self.is_primary(m.id))
            .map(|m| &m.handle)
    }

    /// The election id of `role`'s primary.
    pub fn primary_election_id(&self, role: &str) -> Option<u128> {
        self.primary_member(role).and_then(|m| m.election_id)
    }

    /// Whether stream `id` is its role's primary.
    pub fn is_primary(&self, id: StreamId) -> bool {
        self.role_of(id)
            .and_then(|role| self.primary_member(role))
            .is_some_and(|m| m.id == id)
    }

    /// Allows a write (or a pipeline change) for `role` carrying
    /// `election_id` only if it is that role's primary's.
    pub fn check_primary(&self, role: &str, election_id: Option<&Uint128>) -> Result<(), Status> {
        let Some(primary) = self.primary_election_id(role) else {
            return Err(Status::permission_denied(format!(
                "no primary controller{}: open a stream channel and arbitrate first",
                role_suffix(role)
            )));
        };
        let given = election_id.map(from_uint128);
        if given != Some(primary) {
            return Err(Status::permission_denied(format!(
                "election id {} is not the primary's{}",
                given.map_or("(none)".to_string(), |g| g.to_string()),
                role_suffix(role)
            )));
        }
        Ok(())
    }

    /// What to tell each arbitrated stream about who is its role's
    /// primary, on device `device_id`.
    pub fn updates(&self, device_id: u64) -> impl Iterator<Item = (&T, MasterArbitrationUpdate)> {
        self.members
            .iter()
            .filter(|m| m.election_id.is_some())
            .map(move |m| {
                // With a stream of the role arbitrated the role has a primary.
                let primary = self.primary_member(&m.role);
                let (code, message) = if primary.is_some_and(|p| p.id == m.id) {
                    (Code::Ok, "you are the primary")
                } else {
                    (Code::AlreadyExists, "another controller is the primary")
                };
                let update = MasterArbitrationUpdate {
                    device_id,
                    role: (!m.role.is_empty()).then(|| Role {
                        name: m.role.clone(),
                        ..Role::default()
                    }),
                    election_id: primary.and_then(|p| p.election_id).map(to_uint128),
                    status: Some(rpc::Status {
                        code: code as i32,
                        message: message.into(),
                        details: vec![],
                    }),
                };
                (&m.handle, update)
            })
    }
}

/// " of role NAME" for a named role, nothing for the default role.
fn role_suffix(role: &str) -> String {
    if role.is_empty() {
        String::new()
    } else {
        format!(" of role {role:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(a: &Arbitration<&'static str>) -> Vec<(&'static str, i32, u128)> {
        a.updates(7)
            .map(|(h, u)| {
                assert_eq!(u.device_id, 7);
                let e = from_uint128(&u.election_id.unwrap());
                (*h, u.status.unwrap().code, e)
            })
            .collect()
    }

    #[test]
    fn the_highest_election_id_is_primary_and_everyone_is_told() {
        let mut a = Arbitration::new();
        let x = a.open("x");
        let y = a.open("y");
        assert!(a.updates(7).next().is_none(), "nobody has arbitrated");
        a.arbitrate(x, "", 5).unwrap();
        a.arbitrate(y, "", 9).unwrap();
        assert!(a.is_primary(y) && !a.is_primary(x));
        assert_eq!(
            codes(&a),
            vec![
                ("x", Code::AlreadyExists as i32, 9),
                ("y", Code::Ok as i32, 9)
            ]
        );
        assert!(a.check_primary("", Some(&to_uint128(9))).is_ok());
        let denied = a.check_primary("", Some(&to_uint128(5))).unwrap_err();
        assert_eq!(denied.code(), Code::PermissionDenied);
        assert_eq!(
            a.check_primary("", None).unwrap_err().code(),
            Code::PermissionDenied
        );

        // The primary leaves: the backup takes over.
        assert!(a.close(y));
        assert_eq!(codes(&a), vec![("x", Code::Ok as i32, 5)]);
        assert!(!a.close(x + 100), "an unknown stream was not primary");
    }

    #[test]
    fn an_election_id_in_use_is_refused_and_changes_nothing() {
        let mut a = Arbitration::new();
        let x = a.open(());
        let y = a.open(());
        a.arbitrate(x, "", 3).unwrap();
        assert_eq!(
            a.arbitrate(y, "", 3),
            Err(ArbitrationError::ElectionIdInUse(3))
        );
        assert!(!a.is_arbitrated(y));
        // Re-sending its own id is fine.
        a.arbitrate(x, "", 3).unwrap();
        assert_eq!(a.arbitrate(99, "", 4), Err(ArbitrationError::NotOpen(99)));
        let status: Status = ArbitrationError::ElectionIdInUse(3).into();
        assert_eq!(status.code(), Code::InvalidArgument);
    }

    #[test]
    fn a_restart_forgets_every_stream() {
        let mut a = Arbitration::new();
        let x = a.open("x");
        a.arbitrate(x, "", 12).unwrap();
        a.close_all();
        let y = a.open("y");
        assert_eq!(a.primary(""), None);
        assert_eq!(
            a.check_primary("", Some(&to_uint128(12)))
                .unwrap_err()
                .code(),
            Code::PermissionDenied
        );
        a.arbitrate(y, "", 2).unwrap();
        assert_eq!(a.primary(""), Some(&"y"));
        assert_eq!(codes(&a), vec![("y", Code::Ok as i32, 2)]);
        assert_eq!(from_uint128(&to_uint128(u128::MAX - 1)), u128::MAX - 1);
    }

    #[test]
    fn each_role_elects_its_own_primary() {
        let mut a = Arbitration::new();
        let esa = a.open("esa");
        let intruder = a.open("intruder");
        let esa_backup = a.open("esa backup");
        a.arbitrate(esa, "esa", 1).unwrap();
        // The default role's election id 100 does not outrank role esa's 1;
        // an election id is unique within its role only.
        a.arbitrate(intruder, "", 100).unwrap();
        assert_eq!(
            a.arbitrate(esa_backup, "esa", 1),
            Err(ArbitrationError::ElectionIdInUse(1))
        );
        a.arbitrate(esa_backup, "esa", 0).unwrap();
        assert!(a.is_primary(esa) && a.is_primary(intruder) && !a.is_primary(esa_backup));
        assert_eq!(a.role_of(esa), Some("esa"));
        assert_eq!(a.primary("esa"), Some(&"esa"));
        assert_eq!(a.primary(""), Some(&"intruder"));
        assert_eq!(a.primary("other"), None);
        assert_eq!(a.primaries().count(), 2);
        a.check_primary("esa", Some(&to_uint128(1))).unwrap();
        let e = a.check_primary("esa", Some(&to_uint128(100))).unwrap_err();
        assert!(e.message().contains("role \"esa\""), "{e:?}");
        a.check_primary("", Some(&to_uint128(100))).unwrap();
        let told: Vec<_> = a
            .updates(3)
            .map(|(h, u)| {
                let role = u.role.map(|r| r.name).unwrap_or_default();
                (
                    *h,
                    role,
                    u.status.unwrap().code,
                    from_uint128(&u.election_id.unwrap()),
                )
            })
            .collect();
        assert_eq!(
            told,
            vec![
                ("esa", "esa".to_string(), Code::Ok as i32, 1),
                ("intruder", String::new(), Code::Ok as i32, 100),
                (
                    "esa backup",
                    "esa".to_string(),
                    Code::AlreadyExists as i32,
                    1
                ),
            ]
        );
        assert_eq!(
            a.arbitrate(esa, "", 5),
            Err(ArbitrationError::RoleChanged {
                was: "esa".into(),
                asked: String::new()
            })
        );
        // The esa primary leaves: its backup takes over; the default role
        // is untouched.
        assert!(a.close(esa));
        assert!(a.is_primary(esa_backup) && a.is_primary(intruder));
    }
}
