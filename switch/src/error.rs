//! Errors at the crate's boundary.

use std::path::PathBuf;

/// Why a P4 program could not be loaded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LoadError {
    /// The program file could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// p4sim rejected the program: the diagnostic, with `file:line:col`.
    #[error("{0}")]
    Compile(String),
    /// p4sim's P4Info and its IR disagree (a p4sim bug, never the user's).
    #[error("internal mismatch between P4Info and p4sim: {0}")]
    Mismatch(String),
}

/// Why a switch could not start.
#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    /// The program given at start-up did not load.
    #[error("loading the P4 program: {0}")]
    Load(LoadError),
    /// A port number is used twice or is out of range.
    #[error("port {port}: {message}")]
    Port {
        /// The port number.
        port: u32,
        /// What is wrong.
        message: String,
    },
    /// An interface could not be opened.
    #[error("interface `{name}`: {message}")]
    Interface {
        /// The interface name.
        name: String,
        /// What failed.
        message: String,
    },
    /// The gRPC address could not be bound.
    #[error("gRPC server on {addr}: {message}")]
    Grpc {
        /// The address.
        addr: String,
        /// What failed.
        message: String,
    },
    /// A pcap file could not be created.
    #[error("pcap: {0}")]
    Pcap(String),
}

impl From<LoadError> for SwitchError {
    fn from(e: LoadError) -> SwitchError {
        SwitchError::Load(e)
    }
}
