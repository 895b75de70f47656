//! Who may use the job API: per-tenant bearer tokens from a tokens file,
//! checked by a tonic interceptor ([`Authenticator`]) that tells the service
//! the [`Caller`]; the client's side ([`BearerToken`]); and the count of
//! refused calls.
//!
//! The tokens file (TOML):
//!
//! ```toml
//! [[tenant]]
//! name = "alice"
//! token = "4f1c0a9e7b2d6c83e5a1f0b7c9d2e4a6"
//!
//! [[tenant]]
//! name = "operator"
//! token = "9b8e7d6c5a4f3e2d1c0b9a8f7e6d5c4b"
//! admin = true
//! ```
//!
//! A tenant sees, stats and releases only the jobs it admitted; an admin
//! sees and releases every job. Without a tokens file the API is open:
//! every caller is an admin (what `esa local` on loopback wants).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// Tokens shorter than this are refused: a lab token should not be
/// guessable either.
pub const MIN_TOKEN_LEN: usize = 16;

/// The environment variable clients read their token from.
pub const TOKEN_ENV: &str = "ESA_TOKEN";

/// Why a tokens file was refused.
#[derive(Debug, thiserror::Error)]
pub enum TokensError {
    /// The file could not be read.
    #[error("cannot read the tokens file {}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not the TOML described in [`crate::auth`].
    #[error("tokens file {}: {message}", .path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// One tenant of the tokens file.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TenantEntry {
    name: String,
    token: String,
    #[serde(default)]
    admin: bool,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TokensFile {
    #[serde(default)]
    tenant: Vec<TenantEntry>,
}

/// Who called: the tenant a token names, or anyone when the API is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The tenant's name (empty when the API is open).
    pub tenant: String,
    /// May see and release every job.
    pub admin: bool,
}

impl Caller {
    /// Any caller of an API without tokens: an admin.
    pub fn open() -> Caller {
        Caller {
            tenant: String::new(),
            admin: true,
        }
    }

    /// May this caller see and release a job admitted by `owner` (`None`:
    /// a job this controller did not admit, e.g. one adopted from the
    /// switch after a restart)?
    pub fn may_use(&self, owner: Option<&str>) -> bool {
        self.admin || owner == Some(self.tenant.as_str())
    }
}

/// The tenants and their tokens.
#[derive(Debug, Clone)]
pub struct Tokens {
    tenants: Vec<TenantEntry>,
}

impl Tokens {
    /// Reads a tokens file.
    pub fn load(path: &Path) -> Result<Tokens, TokensError> {
        let text = std::fs::read_to_string(path).map_err(|source| TokensError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Tokens::parse(&text).map_err(|message| TokensError::Invalid {
            path: path.to_path_buf(),
            message,
        })
    }

    /// Parses a tokens file's text; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Tokens, String> {
        let file: TokensFile = toml::from_str(text).map_err(|e| e.to_string())?;
        if file.tenant.is_empty() {
            return Err("no [[tenant]]: every call would be refused".into());
        }
        let mut names = BTreeSet::new();
        let mut tokens = BTreeSet::new();
        for t in &file.tenant {
            if t.name.is_empty() {
                return Err("a tenant has an empty name".into());
            }
            if !names.insert(t.name.as_str()) {
                return Err(format!("tenant `{}` appears twice", t.name));
            }
            if t.token.len() < MIN_TOKEN_LEN || !t.token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(format!(
                    "tenant `{}`: a token is at least {MIN_TOKEN_LEN} printable ASCII \
                     characters without spaces",
                    t.name
                ));
            }
            if !tokens.insert(t.token.as_str()) {
                return Err(format!("tenant `{}` shares its token with another", t.name));
            }
        }
        Ok(Tokens {
            tenants: file.tenant,
        })
    }

    /// The caller `token` names. Every tenant is compared, each in time
    /// independent of where the tokens differ, so the answer's timing
    /// does not lead a guesser towards a token.
    pub fn caller(&self, token: &str) -> Option<Caller> {
        let mut found = None;
        for t in &self.tenants {
            if constant_time_eq(t.token.as_bytes(), token.as_bytes()) {
                found = Some(Caller {
                    tenant: t.name.clone(),
                    admin: t.admin,
                });
            }
        }
        found
    }
}

/// A tokens file for `tenants` and an admin tenant `admin`, each with a
/// fresh random token (128 bits from the system's random source, as hex).
pub fn generate_tokens_file(tenants: &[String], admin: &str) -> std::io::Result<String> {
    use std::io::Read as _;
    let mut random = std::fs::File::open("/dev/urandom")?;
    let mut text = String::from(
        "# Job-API tokens (`esa controller --tokens FILE`); clients send theirs\n\
         # with --token or ESA_TOKEN. Keep this file private.\n",
    );
    let entries = tenants.iter().map(|t| (t.as_str(), false));
    for (name, is_admin) in entries.chain([(admin, true)]) {
        let mut bytes = [0u8; 16];
        random.read_exact(&mut bytes)?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        text += &format!("\n[[tenant]]\nname = {name:?}\ntoken = \"{token}\"\n");
        if is_admin {
            text += "admin = true\n";
        }
    }
    Ok(text)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Calls the job API refused, by reason (exported as
/// `esa_controller_api_refused_total`).
#[derive(Debug, Default)]
pub struct RefusedCalls {
    unauthenticated: AtomicU64,
    permission_denied: AtomicU64,
}

impl RefusedCalls {
    /// Calls without a valid token.
    pub fn unauthenticated(&self) -> u64 {
        self.unauthenticated.load(Ordering::Relaxed)
    }

    /// Calls about another tenant's job.
    pub fn permission_denied(&self) -> u64 {
        self.permission_denied.load(Ordering::Relaxed)
    }

    fn refuse_unauthenticated(&self, message: &str) -> Status {
        self.unauthenticated.fetch_add(1, Ordering::Relaxed);
        Status::unauthenticated(message)
    }

    /// Counts and returns a PermissionDenied status.
    pub fn refuse_permission(&self, message: String) -> Status {
        self.permission_denied.fetch_add(1, Ordering::Relaxed);
        Status::permission_denied(message)
    }
}

/// The server's interceptor: with tokens, a call needs `authorization:
/// Bearer <token>` of a tenant, and the request carries its [`Caller`];
/// without, every call goes through as [`Caller::open`].
#[derive(Debug, Clone)]
pub struct Authenticator {
    tokens: Option<Arc<Tokens>>,
    refused: Arc<RefusedCalls>,
}

impl Authenticator {
    /// Checks calls against `tokens` (`None`: an open API), counting
    /// refusals in `refused`.
    pub fn new(tokens: Option<Tokens>, refused: Arc<RefusedCalls>) -> Authenticator {
        Authenticator {
            tokens: tokens.map(Arc::new),
            refused,
        }
    }
}

impl Interceptor for Authenticator {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let caller = match &self.tokens {
            None => Caller::open(),
            Some(tokens) => {
                let header = request
                    .metadata()
                    .get("authorization")
                    .and_then(|v| v.to_str().ok());
                let Some(header) = header else {
                    return Err(self.refused.refuse_unauthenticated(
                        "this controller wants a token: `authorization: Bearer <token>` \
                         (--token or ESA_TOKEN)",
                    ));
                };
                let token = header.strip_prefix("Bearer ").unwrap_or_default();
                tokens
                    .caller(token.trim())
                    .ok_or_else(|| self.refused.refuse_unauthenticated("unknown token"))?
            }
        };
        request.extensions_mut().insert(caller);
        Ok(request)
    }
}

/// The client's interceptor: sends `authorization: Bearer <token>` when it
/// has a token.
#[derive(Debug, Clone, Default)]
pub struct BearerToken(Option<MetadataValue<Ascii>>);

impl BearerToken {
    /// Sends `token` (`None`: sends nothing); refused if it is not
    /// printable ASCII.
    pub fn new(token: Option<&str>) -> Result<BearerToken, String> {
        token
            .map(|t| {
                format!("Bearer {}", t.trim())
                    .parse()
                    .map_err(|_| "a token is printable ASCII".to_string())
            })
            .transpose()
            .map(BearerToken)
    }
}

impl Interceptor for BearerToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
[[tenant]]
name = "alice"
token = "alice-token-0123456789"

[[tenant]]
name = "operator"
token = "operator-token-0123456789"
admin = true
"#;

    #[test]
    fn tokens_name_their_tenant_and_admins() {
        let tokens = Tokens::parse(FILE).unwrap();
        assert_eq!(
            tokens.caller("alice-token-0123456789"),
            Some(Caller {
                tenant: "alice".into(),
                admin: false
            })
        );
        assert!(tokens.caller("operator-token-0123456789").unwrap().admin);
        assert_eq!(tokens.caller("alice-token-012345678"), None);
        assert_eq!(tokens.caller(""), None);
    }

    #[test]
    fn generated_tokens_files_parse_with_one_admin() {
        let text = generate_tokens_file(&["alice".into(), "bob".into()], "operator").unwrap();
        let tokens = Tokens::parse(&text).unwrap();
        let admins: Vec<_> = tokens.tenants.iter().filter(|t| t.admin).collect();
        assert_eq!(admins.len(), 1);
        assert_eq!(admins[0].name, "operator");
        assert_eq!(tokens.tenants.len(), 3);
    }

    #[test]
    fn bad_tokens_files_are_refused_with_the_reason() {
        let short = "[[tenant]]\nname = \"a\"\ntoken = \"short\"\n";
        assert!(Tokens::parse(short).unwrap_err().contains("at least 16"));
        let twice =
            format!("{FILE}\n[[tenant]]\nname = \"alice\"\ntoken = \"another-token-0123456789\"\n");
        assert!(Tokens::parse(&twice).unwrap_err().contains("twice"));
        let shared = "[[tenant]]\nname = \"a\"\ntoken = \"same-token-0123456789\"\n\
                      [[tenant]]\nname = \"b\"\ntoken = \"same-token-0123456789\"\n";
        assert!(Tokens::parse(shared).unwrap_err().contains("shares"));
        assert!(Tokens::parse("").unwrap_err().contains("no [[tenant]]"));
    }

    #[test]
    fn the_interceptor_refuses_missing_and_unknown_tokens_and_counts_them() {
        let refused = Arc::new(RefusedCalls::default());
        let mut auth = Authenticator::new(Some(Tokens::parse(FILE).unwrap()), refused.clone());
        let e = auth.call(Request::new(())).unwrap_err();
        assert_eq!(e.code(), tonic::Code::Unauthenticated);
        let mut wrong = Request::new(());
        wrong
            .metadata_mut()
            .insert("authorization", "Bearer nope".parse().unwrap());
        assert_eq!(
            auth.call(wrong).unwrap_err().code(),
            tonic::Code::Unauthenticated
        );
        assert_eq!(refused.unauthenticated(), 2);
        let mut bearer = BearerToken::new(Some("alice-token-0123456789")).unwrap();
        let request = auth.call(bearer.call(Request::new(())).unwrap()).unwrap();
        assert_eq!(
            request.extensions().get::<Caller>().unwrap().tenant,
            "alice"
        );
        let mut open = Authenticator::new(None, refused.clone());
        let request = open.call(Request::new(())).unwrap();
        assert_eq!(request.extensions().get::<Caller>(), Some(&Caller::open()));
    }
}
