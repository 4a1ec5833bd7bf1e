//! Per-request plumbing: a request id (taken from `x-request-id` when the caller sent a sane
//! one, else made), a tracing span carrying it, one log line per request, and the Prometheus
//! request counter and latency histogram by route.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tracing::Instrument;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
/// Every response carries the server's version, so a client can tell it is older than the
/// server it talks to (`gpumarket`'s command line warns then).
pub const VERSION: HeaderName = HeaderName::from_static("x-gpumarket-version");
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

/// The path as logs may show it: an invitation's token is a secret.
fn loggable_path(path: &str) -> String {
    if let Some(rest) = path.strip_prefix("/v1/invitations/") {
        return match rest.split_once('/') {
            Some((_, tail)) => format!("/v1/invitations/{{token}}/{tail}"),
            None => "/v1/invitations/{token}".to_owned(),
        };
    }
    // A share link's token, in the path that revokes it.
    if let Some((report, _token)) = path.split_once("/share/") {
        return format!("{report}/share/{{token}}");
    }
    path.to_owned()
}

pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id(&req);
    let method = req.method().to_string();
    let path = loggable_path(req.path());
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
    res.headers_mut()
        .insert(VERSION, HeaderValue::from_static(env!("CARGO_PKG_VERSION")));
    Ok(res)
}

/// What a route declares of its budget: the `x-rate-class` extension of its operation
/// (`#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), …)]`), which the OpenAPI
/// document publishes too. `unlimited` is never limited (health, metrics, Stripe's webhooks,
/// which Stripe retries and signatures guard).
pub const RATE_CLASS_EXTENSION: &str = "x-rate-class";

/// The name of the class that is never limited.
pub const UNLIMITED: &str = "unlimited";

/// Every route's declared class, by method and path pattern, read once from the OpenAPI
/// document the routes' own attributes make.
type Declared = HashMap<(String, String), Option<app::limits::RateClass>>;

fn declared() -> &'static Declared {
    static DECLARED: OnceLock<Declared> = OnceLock::new();
    DECLARED.get_or_init(|| {
        let mut declared = Declared::new();
        for (path, item) in crate::openapi().paths.paths {
            for (method, operation) in operations(&item) {
                let name = operation
                    .extensions
                    .as_ref()
                    .and_then(|e| e.get(RATE_CLASS_EXTENSION))
                    .and_then(|v| v.as_str());
                // A route that declares none (a test fails on it) spends the writes budget:
                // never free by omission.
                let class = match name {
                    Some(UNLIMITED) => None,
                    Some(name) => app::limits::RateClass::of_name(name),
                    None => Some(app::limits::RateClass::Writes),
                };
                declared.insert((method.to_owned(), path.clone()), class);
            }
        }
        for ((method, path), class) in crate::pages::rate_classes()
            .into_iter()
            .chain(crate::unmetered_routes())
        {
            declared.insert((method.to_owned(), path.to_owned()), class);
        }
        declared
    })
}

/// The operations of a path, with their methods as actix names them.
fn operations(
    item: &utoipa::openapi::PathItem,
) -> Vec<(&'static str, &utoipa::openapi::path::Operation)> {
    [
        ("GET", &item.get),
        ("POST", &item.post),
        ("PUT", &item.put),
        ("PATCH", &item.patch),
        ("DELETE", &item.delete),
        ("HEAD", &item.head),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.as_ref().map(|o| (method, o)))
    .collect()
}

/// The rate class of a request, or `None` for what is never limited: the one its route
/// declares (`pattern`: the route it matched) — an API route's `x-rate-class`, a page's
/// [`crate::pages::Page`] class, the API's description and its viewer none
/// ([`crate::unmetered_routes`]); `HEAD` spends what `GET` declares. A request that matches no
/// route spends the read or the write budget by its method.
fn class_of(
    method: &actix_web::http::Method,
    pattern: Option<&str>,
    path: &str,
) -> Option<app::limits::RateClass> {
    use actix_web::http::Method;
    use app::limits::RateClass;
    // The route matched; or, for a path sent percent-encoded (which the resource map does not
    // match, though the router does), the decoded path itself: a route's pattern when it has
    // no parameter.
    let declared = declared();
    let as_get = if *method == Method::HEAD {
        "GET"
    } else {
        method.as_str()
    };
    for route in pattern.into_iter().chain([path]) {
        for method in [method.as_str(), as_get] {
            if let Some(class) = declared.get(&(method.to_owned(), route.to_owned())) {
                return *class;
            }
        }
    }
    // No route declares it (no route matched): what its method does.
    Some(if matches!(*method, Method::GET | Method::HEAD) {
        RateClass::Reads
    } else {
        RateClass::Writes
    })
}

/// Whose budget a request spends: its credential's (hashed, never kept in clear) when it
/// carries one, else its client address; auth routes always by address.
fn subject_of(req: &ServiceRequest, class: app::limits::RateClass) -> String {
    match bearer_of(req, class) {
        Some(bearer) => app::limits::credential_subject(bearer),
        None => format!("ip:{}", crate::extract::client_network(req.request())),
    }
}

/// The credential a request's budget is counted by (none on auth routes).
fn bearer_of(req: &ServiceRequest, class: app::limits::RateClass) -> Option<&str> {
    req.headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .filter(|_| class != app::limits::RateClass::Auth)
}

/// The IETF `RateLimit-Policy` and `RateLimit` headers of a budget.
fn rate_headers(state: &app::limits::RateState) -> [(HeaderName, String); 2] {
    let name = state.class.name();
    [
        (
            HeaderName::from_static("ratelimit-policy"),
            format!("\"{name}\";q={};w={}", state.limit, state.window),
        ),
        (
            HeaderName::from_static("ratelimit"),
            format!("\"{name}\";r={};t={}", state.remaining, state.reset),
        ),
    ]
}

/// How many credentials' worth of budget one client address may spend in a class.
const ADDRESS_CEILING: u32 = 4;

/// Spends one request of the caller's budget in the request's class: over it, 429
/// `rate_limited` with `Retry-After`; every limited answer carries `RateLimit-Policy` and
/// `RateLimit`.
pub async fn rate_limit(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let app = req.app_data::<actix_web::web::Data<app::App>>().cloned();
    // The route it matched, and the path as routed (percent-decoded: `/m%61rketplace` is the
    // marketplace).
    let pattern = req.match_pattern();
    let routed = req.match_info().as_str();
    let (Some(app), Some(class)) = (app, class_of(req.method(), pattern.as_deref(), routed)) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    if !app.config().limits.rate_limits {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let subject = subject_of(&req, class);
    // A credential's budget (its plan's scale of each class), and the address's ceiling
    // across every credential it shows (unchecked credentials are free to invent; the
    // address is not).
    let address = format!("ip:{}", crate::extract::client_network(req.request()));
    let bearer = bearer_of(&req, class);
    // A credential not seen lately is read before its budget is known; the address pays for
    // that read first, so made-up credentials cost their inventor's budget, not the database.
    let looked_up = match bearer {
        Some(bearer) if app.cached_rate_scale(bearer).is_none() => Some(
            app.rate_scaled(class, &address, true, ADDRESS_CEILING)
                .await
                .map(|_| ()),
        ),
        _ => None,
    };
    let (scale, spent) = match looked_up {
        Some(Err(e)) => (1, Err(e)),
        _ => {
            let scale = match bearer {
                Some(bearer) => app.rate_scale_of(bearer).await,
                None => 1,
            };
            let address_spent = looked_up.is_some() && scale == 1;
            let spent = match app.rate_scaled(class, &subject, true, scale).await {
                Ok(state) if subject != address && !address_spent => app
                    .rate_scaled(class, &address, true, ADDRESS_CEILING.saturating_mul(scale))
                    .await
                    .map(|_| state),
                other => other,
            };
            (scale, spent)
        }
    };
    match spent {
        Ok(state) => {
            let mut res = next.call(req).await?.map_into_boxed_body();
            for (name, value) in rate_headers(&state) {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    res.headers_mut().insert(name, value);
                }
            }
            Ok(res)
        }
        Err(e) => {
            let retry_after = match &e {
                app::AppError::RateLimited {
                    retry_after_secs, ..
                } => *retry_after_secs,
                _ => 1,
            };
            let state = app::limits::RateState {
                class,
                limit: app.per_minute(class).saturating_mul(scale),
                window: class.window_secs(),
                remaining: 0,
                reset: retry_after,
            };
            let error = crate::error::ApiError::from(e);
            let mut res = actix_web::ResponseError::error_response(&error);
            for (name, value) in rate_headers(&state) {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    res.headers_mut().insert(name, value);
                }
            }
            Ok(req.into_response(res))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invitation_and_share_tokens_never_reach_the_log() {
        assert_eq!(
            loggable_path("/v1/invitations/gpmi_secret/accept"),
            "/v1/invitations/{token}/accept"
        );
        assert_eq!(
            loggable_path("/v1/reports/r1/share/gms_secret"),
            "/v1/reports/r1/share/{token}"
        );
        assert_eq!(loggable_path("/v1/listings/abc"), "/v1/listings/abc");
    }

    #[test]
    fn requests_are_classed_for_their_budgets() {
        use actix_web::http::Method;
        use app::limits::RateClass;
        let api = |method: &Method, pattern: &str| class_of(method, Some(pattern), pattern);
        assert_eq!(api(&Method::POST, "/v1/auth/login"), Some(RateClass::Auth));
        assert_eq!(
            api(&Method::POST, "/v1/auth/password"),
            Some(RateClass::Writes)
        );
        assert_eq!(api(&Method::GET, "/v1/listings"), Some(RateClass::Search));
        assert_eq!(api(&Method::HEAD, "/v1/listings"), Some(RateClass::Search));
        assert_eq!(api(&Method::GET, "/v1/offers"), Some(RateClass::Search));
        assert_eq!(
            api(&Method::GET, "/v1/verifications/{id}/events"),
            Some(RateClass::Events)
        );
        assert_eq!(
            api(&Method::GET, "/v1/listings/{id}"),
            Some(RateClass::Reads)
        );
        assert_eq!(api(&Method::POST, "/v1/listings"), Some(RateClass::Writes));
        assert_eq!(
            api(
                &Method::POST,
                "/v1/gateway/{booking_id}/v1/chat/completions"
            ),
            Some(RateClass::Gateway)
        );
        assert_eq!(api(&Method::POST, "/v1/webhooks/stripe"), None);
        for free in ["/healthz", "/readyz", "/metrics"] {
            assert_eq!(api(&Method::GET, free), None, "{free}");
        }
        // Past the API's routes.
        let site = |method: &Method, path: &str| class_of(method, None, path);
        // A path sent encoded matches no pattern: its decoded path is the route's.
        assert_eq!(site(&Method::GET, "/v1/listings"), Some(RateClass::Search));
        assert_eq!(site(&Method::GET, "/v1/nowhere"), Some(RateClass::Reads));
        assert_eq!(
            site(&Method::DELETE, "/v1/nowhere"),
            Some(RateClass::Writes)
        );
        for free in ["/assets/site.css", "/openapi.json", "/docs"] {
            assert_eq!(site(&Method::GET, free), None, "{free}");
        }
        assert_eq!(class_of(&Method::GET, Some("/docs/{_:.*}"), "/docs/"), None);
        assert_eq!(
            site(&Method::POST, "/confirm-email"),
            Some(RateClass::Writes)
        );
        for page in ["/marketplace", "/planner"] {
            assert_eq!(site(&Method::GET, page), Some(RateClass::Search), "{page}");
        }
        for page in ["/", "/reports/x", "/calculator", "/nowhere"] {
            assert_eq!(site(&Method::GET, page), Some(RateClass::Reads), "{page}");
        }
    }

    /// Every operation of the API declares its budget, by a name the limiter knows: none is
    /// classed by guessing from its path.
    #[test]
    fn every_route_declares_its_rate_class() {
        let mut undeclared = Vec::new();
        let mut seen = 0;
        for (path, item) in crate::openapi().paths.paths {
            for (method, operation) in operations(&item) {
                seen += 1;
                let name = operation
                    .extensions
                    .as_ref()
                    .and_then(|e| e.get(RATE_CLASS_EXTENSION))
                    .and_then(|v| v.as_str());
                let known = name.is_some_and(|n| {
                    n == UNLIMITED || app::limits::RateClass::of_name(n).is_some()
                });
                if !known {
                    undeclared.push(format!("{method} {path}: {name:?}"));
                }
            }
        }
        assert!(seen > 100, "only {seen} operations");
        assert!(
            undeclared.is_empty(),
            "routes without a known rate class: {undeclared:#?}"
        );
    }
}
