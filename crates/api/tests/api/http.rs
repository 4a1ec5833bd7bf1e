//! The HTTP layer: probes, problem+json for every failure, limits, request ids, metrics,
//! and the OpenAPI document.

use secrecy::SecretString;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, redis_url};

on_both_backends!(
    probes_answer,
    readiness_checks_redis_when_configured,
    readiness_names_a_redis_that_is_down,
    unknown_routes_and_bad_bodies_are_problems,
    bodies_over_the_limit_are_413,
    request_ids_are_echoed_or_made,
    metrics_count_requests_by_route,
    the_served_openapi_document_is_the_committed_one,
);

async fn probes_answer(app: TestApp) {
    let health: Value = app.get_json("/healthz", None).await;
    assert_eq!(health["status"], "ok");
    let ready: Value = app.get_json("/readyz", None).await;
    assert_eq!(ready["status"], "ready");
    assert_eq!(ready["checks"], json!([{"name": "database", "ok": true}]));
}

/// Fails, naming Redis and how to start it, when the test Redis is not there.
async fn require_redis(url: &str) {
    let address = url
        .trim_start_matches("redis://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    if tokio::net::TcpStream::connect(&address).await.is_err() {
        panic!(
            "Redis is not reachable at {url}. Tests need it: start it with \
             `docker compose up -d postgres redis` (or your local redis-server), \
             or point TEST_REDIS_URL at one"
        );
    }
}

async fn readiness_checks_redis_when_configured(app: TestApp) {
    let url = redis_url();
    require_redis(&url).await;
    let backend = app.app.db().backend();
    drop(app);
    let app = TestApp::spawn_with(backend, |config| {
        config.redis.url = Some(SecretString::from(url));
    })
    .await;
    let res = app.get("/readyz", None).await;
    assert_eq!(res.status(), 200);
    let ready: Value = res.json().await.unwrap();
    assert_eq!(
        ready["checks"],
        json!([{"name": "database", "ok": true}, {"name": "redis", "ok": true}])
    );
}

async fn readiness_names_a_redis_that_is_down(app: TestApp) {
    let backend = app.app.db().backend();
    drop(app);
    // Nothing listens on port 1.
    let app = TestApp::spawn_with(backend, |config| {
        config.redis.url = Some(SecretString::from("redis://127.0.0.1:1".to_owned()));
    })
    .await;
    let problem = assert_problem(app.get("/readyz", None).await, 503, "not_ready").await;
    assert!(
        problem["detail"].as_str().unwrap().starts_with("redis:"),
        "{problem}"
    );
    // Liveness does not depend on Redis.
    assert_eq!(app.get("/healthz", None).await.status(), 200);
}

async fn unknown_routes_and_bad_bodies_are_problems(app: TestApp) {
    assert_problem(app.get("/v1/nothing-here", None).await, 404, "not_found").await;
    let res = app
        .client
        .post(app.url("/v1/auth/login"))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415, "unsupported_media_type").await;
    let res = app
        .client
        .post(app.url("/v1/auth/login"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415, "unsupported_media_type").await;
}

async fn bodies_over_the_limit_are_413(app: TestApp) {
    let backend = app.app.db().backend();
    drop(app);
    let app = TestApp::spawn_with(backend, |config| config.server.max_body_bytes = 1024).await;
    let big = json!({"email": "a@example.com", "password": "x".repeat(2000), "name": "A"});
    assert_problem(
        app.post("/v1/auth/register", None, big).await,
        413,
        "payload_too_large",
    )
    .await;
    assert!(app.column("users", "email").await.is_empty());
}

async fn request_ids_are_echoed_or_made(app: TestApp) {
    let res = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "trace-abc_123")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "trace-abc_123");

    let res = app.get("/v1/nope", None).await;
    let made = res.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert!(uuid::Uuid::parse_str(&made).is_ok(), "{made}");

    // A header that could forge log lines is replaced, not echoed.
    let res = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "evil\"} injected")
        .send()
        .await
        .unwrap();
    assert_ne!(res.headers()["x-request-id"], "evil\"} injected");
}

async fn metrics_count_requests_by_route(app: TestApp) {
    let session = app.register("ada@example.com").await;
    assert_eq!(
        app.get("/v1/me", Some(&session.access_token))
            .await
            .status(),
        200
    );
    let res = app.get("/metrics", None).await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = res.text().await.unwrap();
    let counted = text.lines().any(|line| {
        line.starts_with("http_requests_total{")
            && line.contains("route=\"/v1/me\"")
            && line.contains("status=\"200\"")
    });
    assert!(counted, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("http_request_duration_seconds_bucket{")
                && l.contains("route=\"/v1/auth/register\"")),
        "latency is a histogram by route"
    );
    // Ids never become labels.
    assert!(!text.contains(&session.user_id));
}

async fn the_served_openapi_document_is_the_committed_one(app: TestApp) {
    let committed_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../openapi/openapi.json");
    let committed = std::fs::read_to_string(committed_path).unwrap();
    assert_eq!(
        api::openapi_json().unwrap(),
        committed,
        "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json`"
    );
    let served: Value = app.get_json("/openapi.json", None).await;
    let committed: Value = serde_json::from_str(&committed).unwrap();
    assert_eq!(served, committed);
    assert!(served["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in [
        "/v1/auth/register",
        "/v1/auth/login",
        "/v1/auth/refresh",
        "/v1/me",
        "/v1/api-keys",
        "/v1/api-keys/{id}",
        "/v1/orgs",
        "/v1/orgs/{id}",
        "/v1/orgs/{id}/members",
        "/healthz",
        "/readyz",
        "/metrics",
    ] {
        assert!(served["paths"].get(path).is_some(), "{path} is documented");
    }

    let docs = app.get("/docs/", None).await;
    assert_eq!(docs.status(), 200);
    let html = docs.text().await.unwrap();
    assert!(
        html.contains("swagger-ui"),
        "the docs page is served from the binary"
    );
    let redirect = app.get("/docs", None).await;
    assert_eq!(redirect.status(), 308);
}
