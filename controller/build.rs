//! Compiles the job-API `.proto` file at build time with `protox` (a protobuf
//! compiler written in Rust) and `tonic-prost-build`, so no system `protoc`
//! is needed (the same scheme as `p4runtime-proto`).

use std::path::PathBuf;

const PROTOS: &[&str] = &["esa/controller/v1/jobs.proto"];

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
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
