//! Per-job counters and the job API's refused calls in the Prometheus text
//! format (prometheus-client's
//! encoder) over HTTP/1.1 (hyper): `GET /metrics`; anything else is 404.
//! One request per connection; a request head larger than 8 KiB or slower
//! than 5 s drops the connection.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::prometheus_text;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric as _};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use tokio::net::{TcpListener, TcpStream};

use crate::api::JobsBackend;
use crate::auth::RefusedCalls;
use crate::controller::JobStats;

/// `esa_job_packets_total{job, counter}`, in the order of the snapshot
/// (a family of live counters would list them in hash order).
#[derive(Debug)]
struct JobPackets(Vec<JobStats>);

impl Collector for JobPackets {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let mut family = encoder.encode_descriptor(
            "esa_job_packets",
            "Per-job packet counters of the ESA data plane.",
            None,
            prometheus_client::metrics::MetricType::Counter,
        )?;
        for s in &self.0 {
            for (name, value) in &s.counters {
                let labels = ([("job", s.job)], [("counter", name.as_str())]);
                ConstCounter::new(*value).encode(family.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }
}

/// The Prometheus exposition of the controller's state and `stats`.
pub fn render(stats: &[JobStats], primary: bool, jobs: usize, error: Option<&str>) -> String {
    let gauge = |value: i64| {
        let gauge: Gauge = Gauge::default();
        gauge.set(value);
        gauge
    };
    let mut registry = Registry::default();
    registry.register(
        "esa_controller_primary",
        "1 if this controller is the switch's primary",
        gauge(primary.into()),
    );
    registry.register(
        "esa_controller_jobs",
        "Admitted jobs",
        gauge(i64::try_from(jobs).unwrap_or(i64::MAX)),
    );
    registry.register(
        "esa_controller_counter_read_ok",
        "1 if the last counter read succeeded",
        gauge(error.is_none().into()),
    );
    registry.register_collector(Box::new(JobPackets(stats.to_vec())));
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_text::encode(&mut out, &registry);
    out
}

/// `esa_controller_api_refused_total{reason}`: job-API calls refused for
/// a missing or unknown token (`unauthenticated`) or another tenant's job
/// (`permission_denied`), in the Prometheus exposition format (a block
/// that follows [`render`]'s).
pub fn render_refused(refused: &RefusedCalls) -> String {
    let family: Family<[(&'static str, &'static str); 1], Counter> = Family::default();
    family
        .get_or_create(&[("reason", "unauthenticated")])
        .inc_by(refused.unauthenticated());
    family
        .get_or_create(&[("reason", "permission_denied")])
        .inc_by(refused.permission_denied());
    let mut registry = Registry::default();
    registry.register(
        "esa_controller_api_refused",
        "Job-API calls refused, by reason",
        family,
    );
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_text::encode(&mut out, &registry);
    out
}

async fn exposition<B: JobsBackend>(controller: &B, refused: &RefusedCalls) -> String {
    let primary = controller.is_primary();
    let jobs = controller.list_jobs().await.len();
    let state = match controller.job_counters(&[]).await {
        Ok(stats) => render(&stats, primary, jobs, None),
        Err(e) => render(&[], primary, jobs, Some(&e.to_string())),
    };
    state + &render_refused(refused)
}

async fn respond<B: JobsBackend>(
    metrics: bool,
    controller: &B,
    refused: &RefusedCalls,
) -> Response<Full<Bytes>> {
    let (status, body) = if metrics {
        (StatusCode::OK, exposition(controller, refused).await)
    } else {
        (
            StatusCode::NOT_FOUND,
            "not found; try /metrics\n".to_string(),
        )
    };
    let mut response = Response::new(Full::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static(prometheus_text::CONTENT_TYPE),
    );
    response
}

async fn handle<B: JobsBackend>(socket: TcpStream, controller: Arc<B>, refused: Arc<RefusedCalls>) {
    let service = service_fn(move |request: Request<Incoming>| {
        let metrics = request.method() == Method::GET && request.uri().path() == "/metrics";
        let controller = Arc::clone(&controller);
        let refused = Arc::clone(&refused);
        async move { Ok::<_, Infallible>(respond(metrics, &*controller, &refused).await) }
    });
    let _ = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(5))
        .max_buf_size(8192)
        .keep_alive(false)
        .serve_connection(TokioIo::new(socket), service)
        .await;
}

/// Serves `/metrics` (the state of the controller, one switch's or a
/// fabric's, whose counters are summed over its switches, and `refused`,
/// the job API's refused calls) on `listener` until `shutdown` completes.
pub async fn serve<B: JobsBackend>(
    controller: Arc<B>,
    refused: Arc<RefusedCalls>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => return,
            accepted = listener.accept() => {
                if let Ok((socket, _)) = accepted {
                    tokio::spawn(handle(socket, Arc::clone(&controller), Arc::clone(&refused)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposition_lists_gauges_then_job_counters_in_snapshot_order() {
        let stats = [
            JobStats {
                job: 2,
                counters: vec![("completed".into(), 42), ("fallbacks".into(), 0)],
            },
            JobStats {
                job: 1,
                counters: vec![("completed".into(), 7)],
            },
        ];
        let text = render(&stats, true, 2, None);
        let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            samples,
            [
                "esa_controller_primary 1",
                "esa_controller_jobs 2",
                "esa_controller_counter_read_ok 1",
                "esa_job_packets_total{job=\"2\",counter=\"completed\"} 42",
                "esa_job_packets_total{job=\"2\",counter=\"fallbacks\"} 0",
                "esa_job_packets_total{job=\"1\",counter=\"completed\"} 7",
            ],
            "{text}"
        );
        assert!(
            text.contains("# TYPE esa_job_packets_total counter\n"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE esa_controller_jobs gauge\n"),
            "{text}"
        );
        let failed = render(&[], false, 0, Some("unreachable"));
        assert!(
            failed.contains("\nesa_controller_counter_read_ok 0\n"),
            "{failed}"
        );
        assert!(failed.contains("\nesa_controller_primary 0\n"), "{failed}");
        assert!(!failed.contains("esa_job_packets_total{"), "{failed}");
    }

    #[test]
    fn refused_calls_are_counted_by_reason() {
        let refused = RefusedCalls::default();
        refused.refuse_permission("not yours".into());
        let text = render_refused(&refused);
        assert!(
            text.contains("esa_controller_api_refused_total{reason=\"unauthenticated\"} 0\n"),
            "{text}"
        );
        assert!(
            text.contains("esa_controller_api_refused_total{reason=\"permission_denied\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE esa_controller_api_refused_total counter\n"),
            "{text}"
        );
    }
}
