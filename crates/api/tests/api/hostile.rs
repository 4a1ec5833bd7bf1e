//! Engines that misbehave on purpose, against the embedded server: what the worker reaches,
//! what it publishes, how long it can be held, and what it costs in memory.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use actix_web::{App as Web, HttpResponse, HttpServer, web};
use serde_json::{Value, json};
use store::Backend;

use crate::helpers::{TestApp, assert_problem};
use crate::verification::{Provider, follow, listing_body, provider, request_run};

/// What the hostile engine does wrong. Everything else answers like vLLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Misbehaviour {
    /// `/version` redirects (307) to another local server.
    Redirect,
    /// `/metrics` redirects (307) to another local server.
    RedirectMetrics,
    /// Streamed completions send 512 MB without a newline (a one-token completion that does
    /// not stream, preflight's, is answered).
    Endless,
    /// `/version` is 10 MB.
    HugeVersion,
    /// `/version` never answers.
    Stall,
}

/// A marker only the redirect target serves: it must never appear anywhere we answer.
const CANARY: &str = "CANARY-7f3e-internal-secret";

/// A server the worker must never reach; counts the requests it gets.
fn start_canary() -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    let server = HttpServer::new(move || {
        let counter = Arc::clone(&counter);
        Web::new().default_service(web::to(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            async { HttpResponse::Ok().body(format!("{{\"version\": \"{CANARY}\"}}")) }
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    (url, hits)
}

fn start_hostile(mode: Misbehaviour, canary: String) -> String {
    let server = HttpServer::new(move || {
        let canary = canary.clone();
        Web::new()
            .route(
                "/v1/models",
                web::get().to(|| async {
                    HttpResponse::Ok().json(
                        json!({"object": "list", "data": [{"id": "tiny", "max_model_len": 1024}]}),
                    )
                }),
            )
            .route(
                "/version",
                web::get().to({
                    let canary = canary.clone();
                    move || {
                        let canary = canary.clone();
                        async move {
                            match mode {
                                Misbehaviour::Redirect => HttpResponse::TemporaryRedirect()
                                    .insert_header((
                                        "location",
                                        format!("{canary}/latest/meta-data"),
                                    ))
                                    .finish(),
                                Misbehaviour::HugeVersion => HttpResponse::Ok()
                                    .content_type("application/json")
                                    .body(format!("{{\"version\": \"{}\"}}", "9".repeat(10 << 20))),
                                Misbehaviour::Stall => {
                                    tokio::time::sleep(Duration::from_secs(3600)).await;
                                    HttpResponse::Ok().finish()
                                }
                                Misbehaviour::Endless | Misbehaviour::RedirectMetrics => {
                                    HttpResponse::Ok().json(json!({"version": "0.32.0"}))
                                }
                            }
                        }
                    }
                }),
            )
            .route(
                "/metrics",
                web::get().to(move || {
                    let canary = canary.clone();
                    async move {
                        if mode == Misbehaviour::RedirectMetrics {
                            HttpResponse::TemporaryRedirect()
                                .insert_header(("location", format!("{canary}/metrics")))
                                .finish()
                        } else {
                            // An engine's counters, so a verification goes on to the
                            // misbehaviour under test.
                            HttpResponse::Ok().body("vllm:num_requests_running 0\n")
                        }
                    }
                }),
            )
            .route(
                "/v1/completions",
                web::post().to(|body: web::Bytes| async move {
                    if !String::from_utf8_lossy(&body).contains("\"stream\":true") {
                        return HttpResponse::Ok().json(
                            json!({"object": "text_completion", "choices": [{"index": 0, "text": "x"}]}),
                        );
                    }
                    // 512 MB of one line, generated as it is read.
                    let chunk = web::Bytes::from(vec![b'x'; 1 << 20]);
                    let head = futures_util::stream::once(async {
                        Ok::<_, actix_web::Error>(web::Bytes::from_static(b"data: {\"x\": \""))
                    });
                    let body = futures_util::StreamExt::take(
                        futures_util::stream::repeat_with(move || {
                            Ok::<_, actix_web::Error>(chunk.clone())
                        }),
                        512,
                    );
                    HttpResponse::Ok()
                        .content_type("text/event-stream")
                        .streaming(futures_util::StreamExt::chain(head, body))
                }),
            )
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    url
}

/// The process's resident memory, in MB.
fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024.0
}

/// Runs a quick verification of a listing of `p` on `engine` to its end; returns the run's
/// public view, the public events' text, and the member's view.
async fn verify(app: &TestApp, p: &Provider, engine: &str) -> (Value, String, Value) {
    let listing = crate::verification::list(app, p, engine).await;
    let run = request_run(app, p, &listing).await;
    let events = follow(app, &run).await;
    let public: Value = app
        .get_json(&format!("/v1/verifications/{run}"), None)
        .await;
    let member: Value = app
        .get_json(
            &format!("/v1/verifications/{run}"),
            Some(&p.owner.access_token),
        )
        .await;
    (public, serde_json::to_string(&events).unwrap(), member)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_addresses_inside_the_network_are_refused() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.verification.engine_allow_private = false
    })
    .await;
    let p = provider(&app).await;
    for url in [
        "http://127.0.0.1:8000",
        "http://10.0.0.5:8000",
        "http://169.254.169.254/latest",
        "http://[::1]:8000",
        "http://100.64.1.1",
        "http://localhost:8000",
        "http://user:secret@8.8.8.8:8000",
    ] {
        let res = app
            .post(
                "/v1/listings",
                Some(&p.owner.access_token),
                listing_body(&p.org, url),
            )
            .await;
        let problem = assert_problem(res, 422, "validation_failed").await;
        assert_eq!(
            problem["errors"][0]["field"], "engine.base_url",
            "{url}: {problem}"
        );
    }
    // A public address is accepted; editing it to an internal one is refused and changes
    // nothing.
    let created: Value = app
        .post(
            "/v1/listings",
            Some(&p.owner.access_token),
            listing_body(&p.org, "http://8.8.8.8:8000"),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    let res = app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/listings/{id}"),
            Some(&p.owner.access_token),
            Some(json!({"engine": {"base_url": "http://192.168.1.10:8000"}})),
        )
        .await;
    assert_problem(res, 422, "validation_failed").await;
    let mine: Value = app
        .get_json(&format!("/v1/listings/{id}"), Some(&p.owner.access_token))
        .await;
    assert_eq!(mine["engine"]["base_url"], "http://8.8.8.8:8000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirecting_engine_sends_the_worker_nowhere_and_leaks_nothing() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let _workers = app.start_workers();
    let (canary, hits) = start_canary();
    let engine = start_hostile(Misbehaviour::Redirect, canary.clone());
    let p = provider(&app).await;
    // /metrics redirecting: the preflight of its verification request fails, following
    // nothing.
    let redirecting = start_hostile(Misbehaviour::RedirectMetrics, canary.clone());
    let listing = crate::verification::list(&app, &p, &redirecting).await;
    let refused = assert_problem(
        app.post(
            &format!("/v1/listings/{listing}/verifications"),
            Some(&p.owner.access_token),
            json!({"profile": "quick"}),
        )
        .await,
        409,
        "preflight_failed",
    )
    .await;
    let metrics = refused["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "metrics_dialect")
        .unwrap();
    assert_eq!(metrics["state"], "fail", "{refused}");
    assert!(!refused.to_string().contains(CANARY), "{refused}");
    assert_eq!(hits.load(Ordering::SeqCst), 0, "the redirect was followed");
    // /version redirecting: the preflight only warns (the KV cache's size is unknown), the
    // run's harness refuses the redirect.
    let (public, events, member) = verify(&app, &p, &engine).await;
    assert_eq!(hits.load(Ordering::SeqCst), 0, "the redirect was followed");
    assert_eq!(public["status"], "failed");
    assert_eq!(public["failure_code"], "engine_error", "{public}");
    let detail = member["failure_reason"].as_str().unwrap();
    assert!(detail.contains("307"), "{detail}");
    assert!(!member.to_string().contains(CANARY), "{member}");
    for text in [public.to_string(), events] {
        assert!(!text.contains(CANARY), "{text}");
        assert!(
            !text.contains(&engine),
            "the engine's address is public: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_sends_too_much_ends_the_run_with_memory_bounded() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let _workers = app.start_workers();
    let before = rss_mb();
    let started = Instant::now();
    let p = provider(&app).await;
    let endless = start_hostile(Misbehaviour::Endless, String::new());
    let (public, _, member) = verify(&app, &p, &endless).await;
    let after = rss_mb();
    let grown = after - before;
    assert_eq!(public["failure_code"], "engine_error", "{public}");
    let detail = member["failure_reason"].as_str().unwrap();
    assert!(detail.contains("longer than"), "{detail}");
    assert!(started.elapsed() < Duration::from_secs(60));
    // The engine offered 512 MB on one line; the harness read at most its line limit.
    assert!(
        grown < 100.0,
        "the process grew by {grown:.0} MB ({before:.0} → {after:.0})"
    );
    assert!(after < 300.0, "the process holds {after:.0} MB");

    let huge = start_hostile(Misbehaviour::HugeVersion, String::new());
    let (public, events, member) = verify(&app, &p, &huge).await;
    assert_eq!(public["failure_code"], "engine_error", "{public}");
    let detail = member["failure_reason"].as_str().unwrap();
    assert!(detail.contains("larger than"), "{detail}");
    for text in [public.to_string(), events, member.to_string()] {
        assert!(
            text.len() < 10_000,
            "{} bytes reached an answer",
            text.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalling_engine_is_cancelled_within_two_seconds() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let _workers = app.start_workers();
    let engine = start_hostile(Misbehaviour::Stall, String::new());
    let p = provider(&app).await;
    let listing = crate::verification::list(&app, &p, &engine).await;
    let run = request_run(&app, &p, &listing).await;
    // Wait until the worker holds it (stuck in preflight on /version).
    crate::verification::wait_until_running(&app, &run).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let cancelled_at = Instant::now();
    let res = app
        .post(
            &format!("/v1/verifications/{run}/cancel"),
            Some(&p.owner.access_token),
            json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    // The worker lets go: its next run starts at once.
    let sim = crate::helpers::start_engine("tiny");
    let other = crate::verification::list(&app, &p, &sim).await;
    let next = request_run(&app, &p, &other).await;
    loop {
        let view: Value = app
            .get_json(&format!("/v1/verifications/{next}"), None)
            .await;
        if view["status"] != "queued" {
            break;
        }
        assert!(
            cancelled_at.elapsed() < Duration::from_secs(2),
            "the worker was still held {:?} after the cancel",
            cancelled_at.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let view: Value = app
        .get_json(&format!("/v1/verifications/{run}"), None)
        .await;
    assert_eq!(view["status"], "cancelled");
    assert_eq!(view["failure_code"], "cancelled");
}
