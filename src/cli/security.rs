//! The TLS and token flags shared by the servers (`esa switch`, `esa
//! controller`, `esa local`) and the clients (`esa jobs`, `esa controller`
//! towards its switch).

use std::path::PathBuf;

use p4runtime_proto::security::{ClientSecurity, ServerIdentity, ServerSecurity};

/// A server's TLS flags.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerTlsArgs {
    /// Serve TLS with this certificate chain (PEM; `esa certs` makes one).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Require clients to present a certificate signed by this CA (PEM;
    /// mutual TLS; `esa certs --client NAME` makes one).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
    /// Serve plaintext on a non-loopback address all the same (refused
    /// without TLS otherwise).
    #[arg(long)]
    pub insecure: bool,
}

impl ServerTlsArgs {
    /// The flags as the servers take them.
    pub fn security(&self) -> ServerSecurity {
        ServerSecurity {
            tls: self
                .tls_cert
                .clone()
                .zip(self.tls_key.clone())
                .map(|(cert, key)| ServerIdentity { cert, key }),
            client_ca: self.tls_client_ca.clone(),
            insecure: self.insecure,
        }
    }
}

/// The CA a client verifies its server with.
pub fn client_security(ca: Option<&PathBuf>) -> ClientSecurity {
    ClientSecurity {
        ca: ca.cloned(),
        identity: None,
    }
}
