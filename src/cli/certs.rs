//! `esa certs`: a lab CA, a server certificate signed by it, optionally
//! client certificates (mutual TLS) and a tokens file, for the TLS and
//! tokens of the job API and P4Runtime.

use std::path::PathBuf;

use anyhow::{Context, Result};
use esa_controller::auth::generate_tokens_file;
use esa_controller::certs::{
    CA_CERT, LabCertificates, SERVER_CERT, SERVER_KEY, client_files, write_file,
};

/// The file `--tenant` writes.
const TOKENS_FILE: &str = "tokens.toml";

/// Flags of `esa certs`.
#[derive(Debug, clap::Args)]
pub struct CertsArgs {
    /// The folder to write ca.pem, server.pem and server.key (and
    /// tokens.toml) into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// A name or IP address clients reach the servers by; repeat for each
    /// (the certificate is checked against the name in the address).
    #[arg(long = "host", value_name = "NAME|IP", default_values_t = ["localhost".to_string(), "127.0.0.1".to_string()])]
    hosts: Vec<String>,
    /// Also write a client certificate and key for this name
    /// (client-NAME.pem, client-NAME.key: `esa controller
    /// --switch-tls-cert/--switch-tls-key`, for a switch started with
    /// --tls-client-ca and a role policy naming NAME); repeat for each.
    #[arg(long = "client", value_name = "NAME")]
    clients: Vec<String>,
    /// Also write tokens.toml with a random token for this tenant; repeat
    /// for each. An admin tenant is added.
    #[arg(long = "tenant", value_name = "NAME")]
    tenants: Vec<String>,
    /// The admin tenant of tokens.toml.
    #[arg(long, default_value = "admin", requires = "tenants")]
    admin: String,
}

/// Writes the files; returns what to print.
pub fn run_certs(args: &CertsArgs) -> Result<String> {
    LabCertificates::generate(&args.hosts, &args.clients)?.write(&args.out)?;
    let dir = args.out.display();
    let mut out = format!(
        "wrote {dir}/{CA_CERT} (the lab CA: clients' --tls-ca, servers' --tls-client-ca), \
         {dir}/{SERVER_CERT} and {dir}/{SERVER_KEY} (servers' --tls-cert and --tls-key) for {}\n",
        args.hosts.join(", ")
    );
    for client in &args.clients {
        let (cert, key) = client_files(client);
        out += &format!("wrote {dir}/{cert} and {dir}/{key} (client {client})\n");
    }
    if !args.tenants.is_empty() {
        let path = args.out.join(TOKENS_FILE);
        let text = generate_tokens_file(&args.tenants, &args.admin).context("generating tokens")?;
        write_file(&path, &text, true).with_context(|| format!("writing {}", path.display()))?;
        out += &format!(
            "wrote {} (esa controller --tokens; tenants {}, admin {})\n",
            path.display(),
            args.tenants.join(", "),
            args.admin
        );
    }
    Ok(out)
}
