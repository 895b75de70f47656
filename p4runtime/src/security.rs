//! Transport security shared by every gRPC server and client of ESA (the
//! P4Runtime server of esa-switch, the controller's job API, and their
//! clients): TLS (rustls, through tonic) from PEM files, client
//! certificates where a server asks for them (mutual TLS, and the names a
//! client's certificate gives it: [`peer_names`]), and the rule that a
//! server listens beyond loopback only with TLS or when told `--insecure`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tonic::transport::{
    Certificate, Channel, ClientTlsConfig, Endpoint, Identity, ServerTlsConfig,
};

/// Why TLS could not be set up, or a connection not made.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    /// A PEM file could not be read.
    #[error("cannot read {}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A server asked to listen beyond loopback in plaintext.
    #[error(
        "refusing to listen on {addr} without TLS: only loopback addresses may be served in \
         plaintext. Give --tls-cert and --tls-key (`esa certs` makes a lab CA and a server \
         certificate), or --insecure to serve plaintext to the network anyway"
    )]
    PlaintextBeyondLoopback {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// A CA was given for a server named by a plaintext (`http://`) URL.
    #[error(
        "{url} is a plaintext URL, yet a CA was given for TLS: name the server as host:port or https://"
    )]
    PlaintextUrl {
        /// The URL.
        url: String,
    },
    /// Client certificates were asked for without TLS.
    #[error("a client CA ({}) needs TLS: give --tls-cert and --tls-key too", .ca.display())]
    ClientCaWithoutTls {
        /// The client CA given.
        ca: PathBuf,
    },
    /// tonic refused the address, the TLS configuration, or could not
    /// connect.
    #[error("{what}")]
    Transport {
        /// What was being done.
        what: String,
        /// Why.
        #[source]
        source: tonic::transport::Error,
    },
}

fn read(path: &Path) -> Result<Vec<u8>, SecurityError> {
    std::fs::read(path).map_err(|source| SecurityError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// A server's certificate chain and private key, as PEM files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerIdentity {
    /// The certificate chain (the server's certificate first).
    pub cert: PathBuf,
    /// The private key of the server's certificate.
    pub key: PathBuf,
}

impl ServerIdentity {
    /// The files read into tonic's server TLS configuration. tonic checks
    /// the PEM contents when the server is built
    /// ([`tonic::transport::Server::tls_config`]).
    pub fn load(&self) -> Result<ServerTlsConfig, SecurityError> {
        let identity = Identity::from_pem(read(&self.cert)?, read(&self.key)?);
        Ok(ServerTlsConfig::new().identity(identity))
    }
}

/// How a server secures its listening socket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerSecurity {
    /// TLS with this identity; `None`: plaintext.
    pub tls: Option<ServerIdentity>,
    /// Require every client to present a certificate signed by this CA
    /// (PEM); needs [`Self::tls`].
    pub client_ca: Option<PathBuf>,
    /// Serve plaintext beyond loopback all the same.
    pub insecure: bool,
}

impl ServerSecurity {
    /// Refuses a plaintext listener on a non-loopback address unless
    /// [`Self::insecure`], and a client CA without TLS.
    pub fn check_listen(&self, addr: SocketAddr) -> Result<(), SecurityError> {
        if let (None, Some(ca)) = (&self.tls, &self.client_ca) {
            return Err(SecurityError::ClientCaWithoutTls { ca: ca.clone() });
        }
        if self.tls.is_none() && !self.insecure && !addr.ip().is_loopback() {
            return Err(SecurityError::PlaintextBeyondLoopback { addr });
        }
        Ok(())
    }

    /// A tonic server builder with TLS when configured, asking clients for
    /// certificates when a client CA is.
    pub fn server_builder(&self) -> Result<tonic::transport::Server, SecurityError> {
        let builder = tonic::transport::Server::builder();
        match &self.tls {
            None => match &self.client_ca {
                None => Ok(builder),
                Some(ca) => Err(SecurityError::ClientCaWithoutTls { ca: ca.clone() }),
            },
            Some(identity) => {
                let mut tls = identity.load()?;
                if let Some(ca) = &self.client_ca {
                    tls = tls.client_ca_root(Certificate::from_pem(read(ca)?));
                }
                builder
                    .tls_config(tls)
                    .map_err(|source| SecurityError::Transport {
                        what: format!(
                            "TLS with {} and {}",
                            identity.cert.display(),
                            identity.key.display()
                        ),
                        source,
                    })
            }
        }
    }
}

/// The URL of a gRPC server given as `host:port` (`https` with TLS, plain
/// HTTP/2 without), or as a URL already.
pub fn grpc_url(addr: &str, tls: bool) -> String {
    if addr.contains("://") {
        addr.to_string()
    } else if tls {
        format!("https://{addr}")
    } else {
        format!("http://{addr}")
    }
}

/// How a client reaches a gRPC server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientSecurity {
    /// Verify the server with this CA certificate (PEM) and speak TLS;
    /// `None`: plaintext.
    pub ca: Option<PathBuf>,
    /// Present this certificate and key to servers that ask for one
    /// (mutual TLS); used only with [`Self::ca`].
    pub identity: Option<ServerIdentity>,
}

impl ClientSecurity {
    /// The URL of the server at `addr` ([`grpc_url`]).
    pub fn url(&self, addr: &str) -> String {
        grpc_url(addr, self.ca.is_some())
    }

    /// An endpoint for the server at `addr` that connects within
    /// `timeout`, with TLS when a CA is configured. The server's name is
    /// checked against its certificate: the host of `addr`, a DNS name or
    /// an IP address.
    pub fn endpoint(&self, addr: &str, timeout: Duration) -> Result<Endpoint, SecurityError> {
        let url = self.url(addr);
        if self.ca.is_some() && url.starts_with("http://") {
            return Err(SecurityError::PlaintextUrl { url });
        }
        let transport = |what: &str| {
            let what = format!("{what} {url}");
            move |source| SecurityError::Transport { what, source }
        };
        let endpoint = Endpoint::from_shared(url.clone())
            .map_err(transport("not a server address:"))?
            .connect_timeout(timeout);
        match &self.ca {
            None => Ok(endpoint),
            Some(ca) => {
                let mut tls =
                    ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read(ca)?));
                if let Some(identity) = &self.identity {
                    tls = tls.identity(Identity::from_pem(
                        read(&identity.cert)?,
                        read(&identity.key)?,
                    ));
                }
                endpoint
                    .tls_config(tls)
                    .map_err(transport("TLS configuration for"))
            }
        }
    }

    /// Connects to the server at `addr` within `timeout`.
    pub async fn connect(&self, addr: &str, timeout: Duration) -> Result<Channel, SecurityError> {
        let url = self.url(addr);
        self.endpoint(addr, timeout)?
            .connect()
            .await
            .map_err(|source| SecurityError::Transport {
                what: format!("cannot reach {url}"),
                source,
            })
    }
}

/// The names a client certificate (DER, the leaf first, as
/// `tonic::Request::peer_certs` gives them) vouches for: its subject's
/// common names and its DNS subject alternative names. The TLS layer has
/// already checked the chain against the server's client CA; a leaf that
/// does not parse names nothing.
pub fn peer_names<C: AsRef<[u8]>>(chain: &[C]) -> Vec<String> {
    use x509_parser::extensions::GeneralName;
    let Some(leaf) = chain.first() else {
        return Vec::new();
    };
    let Ok((_, cert)) = x509_parser::parse_x509_certificate(leaf.as_ref()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = cert
        .subject()
        .iter_common_name()
        .filter_map(|cn| cn.as_str().ok())
        .map(str::to_string)
        .collect();
    if let Ok(Some(san)) = cert.subject_alternative_name() {
        for name in &san.value.general_names {
            if let GeneralName::DNSName(dns) = name {
                names.push((*dns).to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plaintext_is_refused_beyond_loopback_unless_insecure() {
        let any: SocketAddr = "0.0.0.0:50051".parse().unwrap();
        let lan: SocketAddr = "10.0.0.1:9559".parse().unwrap();
        let plain = ServerSecurity::default();
        for addr in [any, lan] {
            let e = plain.check_listen(addr).unwrap_err();
            assert!(
                e.to_string().contains("refusing to listen on")
                    && e.to_string().contains("--insecure"),
                "{e}"
            );
        }
        for addr in ["127.0.0.1:1", "[::1]:1", "127.0.0.2:1"] {
            plain.check_listen(addr.parse().unwrap()).unwrap();
        }
        let insecure = ServerSecurity {
            insecure: true,
            ..ServerSecurity::default()
        };
        insecure.check_listen(any).unwrap();
        let tls = ServerSecurity {
            tls: Some(ServerIdentity {
                cert: "c.pem".into(),
                key: "k.pem".into(),
            }),
            client_ca: Some("ca.pem".into()),
            insecure: false,
        };
        tls.check_listen(any).unwrap();
        let client_ca_alone = ServerSecurity {
            client_ca: Some("ca.pem".into()),
            ..ServerSecurity::default()
        };
        let e = client_ca_alone
            .check_listen("127.0.0.1:1".parse().unwrap())
            .unwrap_err();
        assert!(matches!(e, SecurityError::ClientCaWithoutTls { .. }), "{e}");
        assert!(peer_names(&[b"not a certificate"]).is_empty());
        assert!(peer_names::<&[u8]>(&[]).is_empty());
    }

    #[test]
    fn urls_take_https_with_a_ca() {
        assert_eq!(grpc_url("h:1", false), "http://h:1");
        assert_eq!(grpc_url("h:1", true), "https://h:1");
        assert_eq!(grpc_url("http://h:1", true), "http://h:1");
        let tls = ClientSecurity {
            ca: Some("ca.pem".into()),
            identity: None,
        };
        let e = tls
            .endpoint("http://h:1", Duration::from_secs(1))
            .unwrap_err();
        assert!(matches!(e, SecurityError::PlaintextUrl { .. }), "{e}");
    }
}
