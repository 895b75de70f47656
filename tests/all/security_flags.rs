//! The security flags from the command line: every server refuses a
//! plaintext listener beyond loopback without `--insecure`, saying what to
//! do; `esa certs` writes what `--tls-cert`, `--tls-key`, `--tls-ca` and
//! `--tokens` take, and `esa jobs` over TLS with a tenant's token works
//! against `esa local` while a call without the token is refused.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

const ESA: &str = env!("CARGO_BIN_EXE_esa");

fn esa(args: &[&str]) -> Output {
    Command::new(ESA)
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env_remove("ESA_TOKEN")
        .env_remove("ESA_TLS_CA")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn free_tcp() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A base port with base+1..=base+4 free on 127.0.0.1 (UDP).
fn free_udp_base() -> u16 {
    (0..200u16)
        .map(|i| 40_000 + (std::process::id() % 10_000) as u16 + i * 7)
        .find(|base| (1..=4).all(|n| std::net::UdpSocket::bind(("127.0.0.1", base + n)).is_ok()))
        .expect("a free UDP port range")
}

#[test]
fn servers_refuse_plaintext_beyond_loopback_without_insecure() {
    for args in [
        vec!["switch", "--grpc-addr", "0.0.0.0:0"],
        vec!["local", "--bind", "0.0.0.0", "--controller", "127.0.0.1:0"],
        vec!["local", "--controller", "0.0.0.0:0"],
    ] {
        let out = esa(&args);
        let err = stderr(&out);
        assert!(!out.status.success(), "esa {args:?}: {err}");
        assert!(
            err.contains("refusing to listen on 0.0.0.0") && err.contains("--insecure"),
            "esa {args:?}: {err}"
        );
    }
}

#[test]
fn esa_jobs_over_tls_with_a_token_against_esa_local() {
    let dir = std::env::temp_dir().join(format!("esa-cli-tls-{}", std::process::id()));
    let lab = dir.to_str().unwrap();
    let out = esa(&["certs", "--out", lab, "--tenant", "alice"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tokens = std::fs::read_to_string(dir.join("tokens.toml")).unwrap();
    let alice = tokens
        .split("name = \"alice\"\ntoken = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    let api = format!("127.0.0.1:{}", free_tcp());
    let base = free_udp_base().to_string();
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let mut local = Command::new(ESA)
        .args([
            "local",
            "--ports",
            "4",
            "--base-port",
            &base,
            "--controller",
            &api,
        ])
        .args([
            "--tls-cert",
            &file("server.pem"),
            "--tls-key",
            &file("server.key"),
        ])
        .args(["--tokens", &file("tokens.toml")])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ready = BufReader::new(local.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .any(|l| l == "ready");
    let ca = file("ca.pem");
    let jobs = |token: Option<&str>| {
        let mut args = vec!["jobs", "--controller", &api, "--tls-ca", &ca];
        if let Some(t) = token {
            args.extend(["--token", t]);
        }
        esa(&args)
    };
    let with_token = jobs(Some(&alice));
    let without = jobs(None);
    let _ = local.kill();
    let _ = local.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ready, "esa local did not start");
    assert!(with_token.status.success(), "{}", stderr(&with_token));
    assert!(
        String::from_utf8_lossy(&with_token.stdout).contains("no jobs"),
        "{with_token:?}"
    );
    assert!(!without.status.success());
    assert!(
        stderr(&without).contains("Unauthenticated"),
        "{}",
        stderr(&without)
    );
}

#[test]
fn esa_certs_writes_client_certificates_and_esa_switch_checks_its_role_policy() {
    let dir = std::env::temp_dir().join(format!("esa-cli-roles-{}", std::process::id()));
    let lab = dir.to_str().unwrap();
    let out = esa(&["certs", "--out", lab, "--client", "esa-controller"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let wrote = String::from_utf8_lossy(&out.stdout).into_owned();
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let client_cert =
        std::fs::read_to_string(file("client-esa-controller.pem")).unwrap_or_default();
    let client_key = std::fs::read_to_string(file("client-esa-controller.key")).unwrap_or_default();
    let bound = file("bound.toml");
    std::fs::write(
        &bound,
        "[[role]]\nname = \"esa\"\nentities = [\"EsaIngress.\"]\nclients = [\"esa-controller\"]\n",
    )
    .unwrap();
    let twice = file("twice.toml");
    std::fs::write(
        &twice,
        "[[role]]\nname = \"esa\"\n[[role]]\nname = \"esa\"\n",
    )
    .unwrap();
    let switch = |roles: &str, mtls: bool| {
        let mut args = vec!["switch", "--grpc-addr", "127.0.0.1:0", "--roles", roles];
        let (cert, key, ca) = (file("server.pem"), file("server.key"), file("ca.pem"));
        if mtls {
            args.extend([
                "--tls-cert",
                &cert,
                "--tls-key",
                &key,
                "--tls-client-ca",
                &ca,
            ]);
            // Not started: a bad policy fails before the server starts,
            // and a good one is only checked here.
            args.extend(["--p4", "/nonexistent.p4"]);
        }
        esa(&args)
    };
    let without_client_ca = switch(&bound, false);
    let duplicate = switch(&twice, false);
    let accepted = switch(&bound, true);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrote.contains("client-esa-controller.pem"), "{wrote}");
    assert!(client_cert.starts_with("-----BEGIN CERTIFICATE-----"));
    assert!(client_key.starts_with("-----BEGIN PRIVATE KEY-----"));
    assert!(!without_client_ca.status.success());
    assert!(
        stderr(&without_client_ca).contains("give --tls-client-ca"),
        "{}",
        stderr(&without_client_ca)
    );
    assert!(!duplicate.status.success());
    assert!(
        stderr(&duplicate).contains("role \"esa\" is named twice"),
        "{}",
        stderr(&duplicate)
    );
    // The policy passed; the switch then stopped at the missing program.
    let err = stderr(&accepted);
    assert!(!accepted.status.success());
    assert!(
        err.contains("nonexistent.p4") && !err.contains("role"),
        "{err}"
    );
}
