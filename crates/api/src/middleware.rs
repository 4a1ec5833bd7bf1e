//! Per-request plumbing: a request id (taken from `x-request-id` when the caller sent a sane
//! one, else made), a tracing span carrying it, one log line per request, and the Prometheus
//! request counter and latency histogram by route.

use std::sync::OnceLock;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tracing::Instrument;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
const DURATION_METRIC: &str = "http_request_duration_seconds";
const COUNT_METRIC: &str = "http_requests_total";

/// The process-wide Prometheus recorder. The `metrics` facade is global by design, so this
/// is the one static in the crate; every server in the process reports into it.
pub fn prometheus() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full(DURATION_METRIC.to_owned()),
                &[
                    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                ],
            )
            .unwrap_or_else(|_| PrometheusBuilder::new());
        let recorder = builder.build_recorder();
        let handle = recorder.handle();
        // Another recorder may already be installed (a test harness); then ours only renders.
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

fn request_id(req: &ServiceRequest) -> String {
    req.headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned)
}

pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id(&req);
    let method = req.method().to_string();
    let path = req.path().to_owned();
    let span = tracing::info_span!("request", request_id = %id, %method, %path);
    let result = next.call(req).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    // The route pattern, not the path, so ids never become label values. Routing happens
    // inside `next`, so the pattern is known only now.
    let (status, route) = match &result {
        Ok(res) => (
            res.status().as_u16(),
            res.request()
                .match_pattern()
                .unwrap_or_else(|| "unmatched".to_owned()),
        ),
        Err(err) => (
            err.as_response_error().status_code().as_u16(),
            "unmatched".to_owned(),
        ),
    };
    metrics::counter!(COUNT_METRIC, "method" => method.clone(), "route" => route.clone(), "status" => status.to_string())
        .increment(1);
    metrics::histogram!(DURATION_METRIC, "method" => method, "route" => route.clone())
        .record(elapsed.as_secs_f64());
    span.in_scope(|| {
        tracing::info!(
            status,
            %route,
            latency_ms = elapsed.as_secs_f64() * 1000.0,
            "request finished"
        );
    });
    let mut res = result?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID, value);
    }
    Ok(res)
}
