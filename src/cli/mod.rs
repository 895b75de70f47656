//! The `esa` command's subcommands, one module each, and what they share:
//! logging set-up and the one shutdown signal.
//!
//! The clap definitions of the command live in this binary, and only here
//! (the worker's and PS's flags are esa-host's config sections' keys, turned
//! into those sections); the library crates take typed configurations
//! (`esa_switch::run::RunConfig`, `esa_controller::run::run_controller`,
//! `esa_testbed::RunOptions`, ...).

pub mod bench;
pub mod certs;
pub mod controller;
pub mod host;
pub mod local;
pub mod p4;
pub mod run;
pub mod security;
pub mod sim;
pub mod switch;
pub mod workload;

/// Logs to stderr at `level` (a tracing env-filter directive; `RUST_LOG`
/// overrides it). A second call does nothing.
pub fn init_logging(level: &str) {
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| level.to_string());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_new(&filter)
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .try_init();
}

/// The process's one SIGINT / SIGTERM handler, for blocking loops (a flag)
/// and async servers (a future) alike.
pub mod shutdown {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, OnceLock};

    struct Signal {
        flag: Arc<AtomicBool>,
        tx: tokio::sync::watch::Sender<bool>,
    }

    fn signal() -> &'static Signal {
        static SIGNAL: OnceLock<Signal> = OnceLock::new();
        SIGNAL.get_or_init(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let (tx, _) = tokio::sync::watch::channel(false);
            let raised = Arc::clone(&flag);
            let notify = tx.clone();
            if let Err(e) = ctrlc::set_handler(move || {
                if !raised.swap(true, Ordering::Relaxed) {
                    tracing::info!("SIGINT or SIGTERM: shutting down");
                }
                notify.send_replace(true);
            }) {
                eprintln!("warning: cannot install the SIGINT/SIGTERM handler: {e}");
            }
            Signal { flag, tx }
        })
    }

    /// True once SIGINT or SIGTERM has arrived (the handler is installed by
    /// the first call).
    pub fn flag() -> Arc<AtomicBool> {
        Arc::clone(&signal().flag)
    }

    /// Completes on SIGINT or SIGTERM.
    pub async fn signalled() {
        let mut rx = signal().tx.subscribe();
        let _ = rx.wait_for(|raised| *raised).await;
    }
}
