//! Per-job counters in Prometheus text format over a minimal HTTP/1.1
//! server (`GET /metrics`; anything else is 404). One request per
//! connection; requests larger than 8 KiB or slower than 5 s are dropped.

use std::fmt::Write as _;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use crate::backend::{Role, SwitchBackend};
use crate::controller::{Controller, JobStats};

/// The Prometheus exposition of the controller's state and `stats`.
pub fn render(stats: &[JobStats], primary: bool, jobs: usize, error: Option<&str>) -> String {
    let mut out = String::new();
    out.push_str("# HELP esa_controller_primary 1 if this controller is the switch's primary.\n");
    out.push_str("# TYPE esa_controller_primary gauge\n");
    let _ = writeln!(out, "esa_controller_primary {}", u8::from(primary));
    out.push_str("# HELP esa_controller_jobs Admitted jobs.\n# TYPE esa_controller_jobs gauge\n");
    let _ = writeln!(out, "esa_controller_jobs {jobs}");
    out.push_str("# HELP esa_controller_counter_read_ok 1 if the last counter read succeeded.\n");
    out.push_str("# TYPE esa_controller_counter_read_ok gauge\n");
    let _ = writeln!(
        out,
        "esa_controller_counter_read_ok {}",
        u8::from(error.is_none())
    );
    out.push_str(
        "# HELP esa_job_packets_total Per-job packet counters of the ESA data plane.\n\
         # TYPE esa_job_packets_total counter\n",
    );
    for s in stats {
        for (name, value) in &s.counters {
            let _ = writeln!(
                out,
                "esa_job_packets_total{{job=\"{}\",counter=\"{name}\"}} {value}",
                s.job
            );
        }
    }
    out
}

async fn exposition<S: SwitchBackend>(controller: &Controller<S>) -> String {
    let primary = *controller.switch().role().borrow() == Role::Primary;
    let jobs = controller.jobs().await.len();
    match controller.stats(&[]).await {
        Ok(stats) => render(&stats, primary, jobs, None),
        Err(e) => render(&[], primary, jobs, Some(&e.to_string())),
    }
}

async fn handle<S: SwitchBackend>(mut socket: TcpStream, controller: Arc<Controller<S>>) {
    let mut request = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(Duration::from_secs(5), async {
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buf).await.ok()?;
            if n == 0 || request.len() + n > 8192 {
                return None;
            }
            request.extend_from_slice(&buf[..n]);
        }
        Some(())
    })
    .await;
    if !matches!(read, Ok(Some(()))) {
        return;
    }
    let line = request.split(|b| *b == b'\r').next().unwrap_or_default();
    let mut words = line.split(|b| *b == b' ');
    let (method, path) = (words.next(), words.next());
    let (status, body) = match (method, path) {
        (Some(b"GET"), Some(b"/metrics")) => ("200 OK", exposition(&controller).await),
        _ => ("404 Not Found", "not found; try /metrics\n".to_string()),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = socket.write_all(response.as_bytes()).await;
    let _ = socket.shutdown().await;
}

/// Serves `/metrics` on `listener` until `shutdown` completes.
pub async fn serve<S: SwitchBackend>(
    controller: Arc<Controller<S>>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => return,
            accepted = listener.accept() => {
                if let Ok((socket, _)) = accepted {
                    tokio::spawn(handle(socket, Arc::clone(&controller)));
                }
            }
        }
    }
}
