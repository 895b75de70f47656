//! A lab's certificates (`esa certs`): a CA and one server certificate
//! signed by it, for the job API and esa-switch's P4Runtime server, whose
//! clients verify the server with the CA's certificate.

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
    /// A fresh CA (ECDSA P-256, valid five years) and a server certificate
    /// for `hosts` (DNS names or IP addresses; valid two years). The CA's
    /// key is not kept: a new server certificate needs a new CA.
    pub fn generate(hosts: &[String]) -> Result<LabCertificates, CertsError> {
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
        Ok(LabCertificates {
            ca_cert: ca_cert.pem(),
            server_cert: server_cert.pem(),
            server_key: server_key.serialize_pem(),
        })
    }

    /// Writes [`CA_CERT`], [`SERVER_CERT`] and [`SERVER_KEY`] into `dir`
    /// (made if missing); the key readable by its owner only.
    pub fn write(&self, dir: &Path) -> Result<(), CertsError> {
        let write_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CertsError::Write { path, source }
        };
        std::fs::create_dir_all(dir).map_err(write_error(dir))?;
        for (file, text, private) in [
            (CA_CERT, &self.ca_cert, false),
            (SERVER_CERT, &self.server_cert, false),
            (SERVER_KEY, &self.server_key, true),
        ] {
            let path = dir.join(file);
            write_file(&path, text, private).map_err(write_error(&path))?;
        }
        Ok(())
    }
}

/// Writes `text` to `path`; a `private` file new to the disk is readable by
/// its owner only (keys, tokens).
pub fn write_file(path: &Path, text: &str, private: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    options.open(path)?.write_all(text.as_bytes())
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
        let certs = LabCertificates::generate(&["localhost".into(), "127.0.0.1".into()]).unwrap();
        assert!(certs.ca_cert.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(certs.server_cert.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(certs.server_key.starts_with("-----BEGIN PRIVATE KEY-----"));
        let dir = std::env::temp_dir().join(format!("esa-certs-{}", std::process::id()));
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
