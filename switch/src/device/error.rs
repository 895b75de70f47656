//! Why an update or a read failed, as P4Runtime reports it: a canonical
//! gRPC code and a message; and the mapping of p4sim's and the codec's
//! errors onto those codes.

use p4runtime_proto::tonic::Code;
use p4sim::v1switch::RuntimeError;

use crate::codec::ValueError;

/// Why one update or read failed: a canonical gRPC code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateError {
    /// The canonical code.
    pub code: Code,
    /// What was wrong.
    pub message: String,
}

impl UpdateError {
    /// An error with this code.
    pub fn new(code: Code, message: impl Into<String>) -> UpdateError {
        UpdateError {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for UpdateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

pub(super) type Result<T> = std::result::Result<T, UpdateError>;

pub(super) fn invalid(message: impl Into<String>) -> UpdateError {
    UpdateError::new(Code::InvalidArgument, message)
}

pub(super) fn not_found(message: impl Into<String>) -> UpdateError {
    UpdateError::new(Code::NotFound, message)
}

pub(super) fn unimplemented(message: impl Into<String>) -> UpdateError {
    UpdateError::new(Code::Unimplemented, message)
}

pub(super) fn value_error(what: &str, e: ValueError) -> UpdateError {
    match e {
        ValueError::Empty => invalid(format!("{what}: empty bytestring")),
        ValueError::TooWide { .. } => UpdateError::new(Code::OutOfRange, format!("{what}: {e}")),
    }
}

pub(super) fn runtime_error(e: RuntimeError) -> UpdateError {
    let code = match &e {
        RuntimeError::DuplicateEntry { .. } => Code::AlreadyExists,
        RuntimeError::NoSuchEntry { .. } => Code::NotFound,
        RuntimeError::TableFull(_) => Code::ResourceExhausted,
        RuntimeError::TooWide { .. } | RuntimeError::IndexOutOfRange { .. } => Code::OutOfRange,
        RuntimeError::Const(..) => Code::PermissionDenied,
        RuntimeError::Pre(p4sim::v1switch::pre::PreError::GroupTableFull(_))
        | RuntimeError::Pre(p4sim::v1switch::pre::PreError::NodeTableFull(_)) => {
            Code::ResourceExhausted
        }
        _ => Code::InvalidArgument,
    };
    UpdateError::new(code, e.to_string())
}
