//! A lab's certificates (`esa certs`): a CA, one server certificate
//! signed by it, for the job API and esa-switch's P4Runtime server, whose
//! clients verify the server with the CA's certificate, and client
//! certificates for servers that ask clients for one (mutual TLS: a switch
//! whose role policy binds ESA's role to the controller's name).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};

/// The files [`LabCertificates::write`] makes.
pub const CA_CERT: &str = "ca.pem";
/// The server's certificate (`--tls-cert`).
pub const SERVER_CERT: &str = "server.pem";
/// The server's private key (`--tls-key`).
pub const SERVER_KEY: &str = "server.key";

/// The certificate and key files of client `name`:
/// `client-NAME.pem` and `client-NAME.key`.
pub fn client_files(name: &str) -> (String, String) {
    (format!("client-{name}.pem"), format!("client-{name}.key"))
}

/// Why the certificates could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum CertsError {
    /// rcgen refused a name or could not sign.
    #[error("cannot make the certificates")]
    Generate(#[from] rcgen::Error),
    /// A file could not be written.
    #[error("cannot write {}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A CA and a server certificate it signed, as PEM.
#[derive(Debug, Clone)]
pub struct LabCertificates {
    /// The CA's certificate: what clients verify servers with.
    pub ca_cert: String,
    /// The server's certificate.
    pub server_cert: String,
    /// The server's private key.
    pub server_key: String,
    /// Client certificates: (name, certificate, private key).
    pub clients: Vec<(String, String, String)>,
}

/// The current year, near enough for validity periods that start a year
/// early.
fn this_year() -> i32 {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // 365.2425 days of 86 400 s.
    1970 + i32::try_from(secs / 31_556_952).unwrap_or(0)
}

impl LabCertificates {
    /// A fresh CA (ECDSA P-256, valid five years), a server certificate
    /// for `hosts` (DNS names or IP addresses; valid two years), and a
    /// client certificate for each of `clients` (the name as common name
    /// and DNS name: what a role policy's `clients` lists). The CA's key is
    /// not kept: a new certificate needs a new CA.
    pub fn generate(hosts: &[String], clients: &[String]) -> Result<LabCertificates, CertsError> {
        let year = this_year();
        let ca_key = KeyPair::generate()?;
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca.distinguished_name = name("ESA lab CA");
        ca.not_before = rcgen::date_time_ymd(year - 1, 1, 1);
        ca.not_after = rcgen::date_time_ymd(year + 5, 1, 1);
        let ca_cert = ca.self_signed(&ca_key)?;
        let issuer = Issuer::new(ca, ca_key);

        let server_key = KeyPair::generate()?;
        let mut server = CertificateParams::new(hosts.to_vec())?;
        server.distinguished_name = name(hosts.first().map_or("esa", String::as_str));
        server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        server.not_before = rcgen::date_time_ymd(year - 1, 1, 1);
        server.not_after = rcgen::date_time_ymd(year + 2, 1, 1);
        let server_cert = server.signed_by(&server_key, &issuer)?;
        let clients = clients
            .iter()
            .map(|client| {
                let key = KeyPair::generate()?;
                let mut params = CertificateParams::new(vec![client.clone()])?;
                params.distinguished_name = name(client);
                params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
                params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
                params.not_before = rcgen::date_time_ymd(year - 1, 1, 1);
                params.not_after = rcgen::date_time_ymd(year + 2, 1, 1);
                let cert = params.signed_by(&key, &issuer)?;
                Ok((client.clone(), cert.pem(), key.serialize_pem()))
            })
            .collect::<Result<_, CertsError>>()?;
        Ok(LabCertificates {
            ca_cert: ca_cert.pem(),
            server_cert: server_cert.pem(),
            server_key: server_key.serialize_pem(),
            clients,
        })
    }

    /// Writes [`CA_CERT`], [`SERVER_CERT`], [`SERVER_KEY`] and each
    /// client's [`client_files`] into `dir` (made if missing); the keys
    /// readable by their owner only.
    pub fn write(&self, dir: &Path) -> Result<(), CertsError> {
        let write_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CertsError::Write { path, source }
        };
        std::fs::create_dir_all(dir).map_err(write_error(dir))?;
        let mut files = vec![
            (CA_CERT.to_string(), &self.ca_cert, false),
            (SERVER_CERT.to_string(), &self.server_cert, false),
            (SERVER_KEY.to_string(), &self.server_key, true),
        ];
        for (client, cert, key) in &self.clients {
            let (cert_file, key_file) = client_files(client);
            files.push((cert_file, cert, false));
            files.push((key_file, key, true));
        }
        for (file, text, private) in files {
            let path = dir.join(file);
            write_file(&path, text, private).map_err(write_error(&path))?;
        }
        Ok(())
    }
}

/// Writes `text` to `path`; a `private` file (keys, tokens) is readable by
/// its owner only, an existing one too: its permissions are narrowed
/// before the secret is written into it.
pub fn write_file(path: &Path, text: &str, private: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    let _ = private;
    file.write_all(text.as_bytes())
}

fn name(common_name: &str) -> DistinguishedName {
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, common_name);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificates_are_pem_and_written_with_a_private_key() {
        let certs = LabCertificates::generate(
            &["localhost".into(), "127.0.0.1".into()],
            &["esa-controller".into()],
        )
        .unwrap();
        assert!(certs.ca_cert.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(certs.server_cert.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(certs.server_key.starts_with("-----BEGIN PRIVATE KEY-----"));
        let dir = std::env::temp_dir().join(format!("esa-certs-{}", std::process::id()));
        // A world-readable key left from before is narrowed, not kept.
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(SERVER_KEY), "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let open = std::fs::Permissions::from_mode(0o644);
            std::fs::set_permissions(dir.join(SERVER_KEY), open).unwrap();
        }
        certs.write(&dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.join(SERVER_KEY))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "{mode:o}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.join(CA_CERT)).unwrap(),
            certs.ca_cert
        );
        let (cert, key) = client_files("esa-controller");
        assert_eq!(
            std::fs::read_to_string(dir.join(cert)).unwrap(),
            certs.clients[0].1
        );
        assert!(
            certs.clients[0]
                .2
                .starts_with("-----BEGIN PRIVATE KEY-----")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.join(key))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "{mode:o}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
