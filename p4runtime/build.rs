//! Compiles the P4Runtime `.proto` files at build time.
//!
//! `protox` (a protobuf compiler written in Rust) turns the files into a
//! `FileDescriptorSet`, and `tonic-prost-build` generates the prost messages and
//! the tonic client and server from it, so no system `protoc` is needed.

use std::path::PathBuf;

use prost::Message as _;

/// The files to compile, relative to `proto/`. Their imports are found there
/// too, except `google/protobuf/any.proto`, which protox ships.
const PROTOS: &[&str] = &[
    "p4/v1/p4runtime.proto",
    "p4/v1/p4data.proto",
    "p4/config/v1/p4info.proto",
    "p4/config/v1/p4types.proto",
    "google/rpc/status.proto",
    "google/rpc/code.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("proto");
    println!("cargo:rerun-if-changed={}", proto_root.display());
    for proto in PROTOS {
        println!(
            "cargo:rerun-if-changed={}",
            proto_root.join(proto).display()
        );
    }

    let descriptors = protox::compile(PROTOS, [&proto_root])?;
    // Kept for consumers that need reflection (e.g. a gRPC reflection service
    // or text-format tooling) and for the crate's own descriptor tests.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("p4runtime_descriptor.bin"),
        descriptors.encode_to_vec(),
    )?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
