//! P4Runtime protobuf messages and the P4Runtime gRPC service, for ESA's
//! switch and controller.
//!
//! The `.proto` files under `proto/` were written for this project from the
//! public P4Runtime specification with the same package names, message names,
//! field names and field numbers, so that real P4Runtime clients (for example
//! p4runtime-shell) and servers (for example BMv2's `simple_switch_grpc`)
//! interoperate with code built on this crate. They are compiled at build time
//! by `protox` and `tonic-prost-build`; no system `protoc` is needed.
//!
//! # Layout
//!
//! - [`p4::v1`]: the `P4Runtime` service (`Write`, `Read`,
//!   `SetForwardingPipelineConfig`, `GetForwardingPipelineConfig`,
//!   `StreamChannel`, `Capabilities`), its messages, and `P4Data`.
//! - [`p4::config::v1`]: P4Info and the P4 type descriptions.
//! - [`google::rpc`]: `Status` (the error carried by gRPC status details and
//!   arbitration updates) and the canonical `Code` enum.
//! - [`arbitration`]: the stream channel's client arbitration as a server
//!   keeps it (who is primary, who may write, what each stream is told),
//!   shared by esa-switch and the controller's fake switch.
//! - [`bytestring`]: the canonical form of P4Runtime's binary strings, as
//!   esa-switch returns values and the controller compares them.
//! - [`security`]: TLS from PEM files for servers and clients, and the
//!   refusal to serve plaintext beyond loopback, shared by every gRPC
//!   server and client of ESA (P4Runtime and the controller's job API).
//! - [`from_p4sim`] (feature `p4sim`): p4sim's P4Info model as the
//!   protobuf message, the one conversion esa-switch and the controller use.
//!
//! The client and server types are re-exported at the crate root, and so are
//! the `prost`, `prost-types` and `tonic` crates this crate was generated
//! against, so dependents can use exactly the same versions.

/// Messages of package `google.rpc`.
pub mod google {
    /// `google.rpc.Status` and `google.rpc.Code`.
    pub mod rpc {
        #![allow(missing_docs, clippy::all, clippy::pedantic)]
        tonic::include_proto!("google.rpc");
    }
}

/// Messages and services of the `p4` packages.
pub mod p4 {
    /// Package `p4.v1`: the P4Runtime service and its messages.
    pub mod v1 {
        #![allow(missing_docs, clippy::all, clippy::pedantic)]
        tonic::include_proto!("p4.v1");
    }

    /// Packages `p4.config.*`.
    pub mod config {
        /// Package `p4.config.v1`: P4Info and P4 type descriptions.
        pub mod v1 {
            #![allow(missing_docs, clippy::all, clippy::pedantic)]
            tonic::include_proto!("p4.config.v1");
        }
    }
}

pub mod arbitration;
pub mod bytestring;
#[cfg(feature = "p4sim")]
pub mod from_p4sim;
pub mod security;

pub use p4::v1::p4_runtime_client::P4RuntimeClient;
pub use p4::v1::p4_runtime_server::{P4Runtime, P4RuntimeServer};

pub use prost;
pub use prost_types;
pub use tonic;

/// The encoded `google.protobuf.FileDescriptorSet` of every `.proto` file of
/// this crate plus the `google/protobuf/any.proto` they import, with source
/// comments, for reflection (e.g. a gRPC reflection service) and tooling.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/p4runtime_descriptor.bin"));

/// The P4Runtime API version whose field numbering these definitions follow.
pub const P4RUNTIME_API_VERSION: &str = "1.6.0";
