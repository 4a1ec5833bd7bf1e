//! Machines that stay up: liveness probes against an engine stopped and started again, the
//! uptime they measure, maintenance windows announced in time and late, and what a window
//! does to every capacity decision. Refunds for maintenance are in `payments`.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use store::Backend;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::helpers::{TestApp, assert_problem};
use crate::marketplace::at;

on_both_backends!(
    maintenance_windows_take_the_whole_machine,
    search_filters_and_sorts_by_reliability,
);

on_backends!(a_period_s_uptime_is_signed_once_and_logged);

measured_on!(sqlite = Sqlite; a_gateway_request_that_cannot_reach_the_engine_is_down_evidence);

on_both_backends!(an_engine_answering_5xx_is_probed_at_once_never_marked_down);

on_backends!(
    probes_waiting_on_silent_engines_are_bounded,
    a_silent_agent_is_down_evidence_until_it_beats_or_is_forgotten,
);

measured_on_backend!(postgres = Postgres; probes_measure_an_outage_and_windows_as_announced);

/// A machine whose agent stops beating is down although its engine answers; it is up again
/// when the agent beats, and when its organisation forgets the agent (the machine no longer
/// runs one), which only its members may. Probed every second; silent after 2 s here.
async fn a_silent_agent_is_down_evidence_until_it_beats_or_is_forgotten(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.liveness.liveness_every_secs = 1;
        c.liveness.liveness_timeout_ms = 500;
        c.agent.agent_silent_after_secs = 2;
    })
    .await;
    let engine = FakeEngine::start().await;
    let p = crate::marketplace::provider(&app, "provider@example.com").await;
    let listing = crate::marketplace::list(
        &app,
        &p,
        json!({"engine": {"base_url": engine.url(), "model": "m"}}),
    )
    .await;
    // Two L4s of 24 GB, as the listing claims (a real L4's 23034 MiB).
    let agent_key = crate::agents::reporting_agent(
        &app,
        (&p.org, &p.member.access_token),
        &listing,
        crate::agents::facts("NVIDIA L4", 23034, 2),
    )
    .await;
    let agent = format!("/v1/listings/{listing}/agent");
    let confirmed = || {
        let (app, path) = (&app, format!("/v1/listings/{listing}"));
        async move { app.get_json::<Value>(&path, None).await["hardware_confirmed"].clone() }
    };
    assert_eq!(confirmed().await, true);
    let beat = || {
        let (app, path, key) = (&app, format!("{agent}/heartbeat"), agent_key.clone());
        async move {
            let res = app
                .post(
                    &path,
                    Some(&key),
                    json!({"agent_version": "1.0.0", "accounts": []}),
                )
                .await;
            assert_eq!(res.status(), 200);
        }
    };
    beat().await;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(worker::liveness(app.app.clone(), stopped));
    until_state(&app, &listing, "up", Duration::from_secs(5)).await;

    // Silent: down, the engine answering or not.
    let down = until_state(&app, &listing, "down", Duration::from_secs(6)).await;
    let presence: Value = app.get_json(&agent, Some(&p.member.access_token)).await;
    assert_eq!(presence["presence"]["state"], "silent", "{presence}");
    let probed = engine.seen().len();
    beat().await;
    let up = until_state(&app, &listing, "up", Duration::from_secs(4)).await;
    assert!(time(&up["current"]["since"]) > time(&down["current"]["since"]));
    assert!(
        engine.seen().len() > probed,
        "heard again, the engine is probed again"
    );

    // Forgotten by its organisation, the machine's silence is no evidence any more.
    until_state(&app, &listing, "down", Duration::from_secs(6)).await;
    let renter = app.register("renter@example.com").await;
    let reader: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", p.org),
            Some(&p.member.access_token),
            json!({"name": "r", "scopes": ["read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let forget = |token: Option<String>| {
        let (app, agent) = (&app, agent.clone());
        async move {
            app.call(Method::DELETE, &agent, token.as_deref(), None)
                .await
        }
    };
    assert_problem(forget(None).await, 401, "unauthenticated").await;
    assert_problem(forget(Some(renter.access_token)).await, 403, "forbidden").await;
    for key in [&agent_key, reader["key"].as_str().unwrap()] {
        assert_problem(forget(Some(key.to_owned())).await, 403, "scope_required").await;
    }
    assert_eq!(
        app.get_json::<Value>(&agent, Some(&p.member.access_token))
            .await["presence"]["state"],
        "silent"
    );
    // While its last report differs from the claim, forgetting it would erase that: refused.
    let report = |facts: Value| {
        let (app, path, key) = (&app, format!("{agent}/facts"), agent_key.clone());
        async move {
            let res = app.call(Method::PUT, &path, Some(&key), Some(facts)).await;
            assert_eq!(res.status(), 200);
        }
    };
    report(crate::agents::facts("NVIDIA L4", 23034, 1)).await;
    assert_problem(
        forget(Some(p.member.access_token.clone())).await,
        409,
        "hardware_mismatch",
    )
    .await;
    report(crate::agents::facts("NVIDIA L4", 23034, 2)).await;
    let res = forget(Some(p.member.access_token.clone())).await;
    assert_eq!(res.status(), 204);
    assert_problem(
        forget(Some(p.member.access_token.clone())).await,
        404,
        "not_found",
    )
    .await;
    until_state(&app, &listing, "up", Duration::from_secs(4)).await;
    assert_eq!(confirmed().await, false, "claimed again");
    assert_problem(
        app.get(&agent, Some(&p.member.access_token)).await,
        404,
        "not_found",
    )
    .await;
    let _ = stop.send(true);
}

/// An engine that answers one-token completions (and 500 to anything else); it can be stopped (its port closed) and
/// started again on the same port, and records when each completion arrived.
struct FakeEngine {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Instant>>>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl FakeEngine {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let engine = Self {
            addr: listener.local_addr().unwrap(),
            seen: Arc::default(),
            task: Mutex::new(None),
        };
        engine.serve(listener);
        engine
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn serve(&self, listener: tokio::net::TcpListener) {
        let seen = Arc::clone(&self.seen);
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let seen = Arc::clone(&seen);
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buf = [0u8; 4096];
                    // The head, then as much body as it announces.
                    let (head_end, length) = loop {
                        let Ok(n) = socket.read(&mut buf).await else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        request.extend_from_slice(&buf[..n]);
                        if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&request[..end]).to_lowercase();
                            let length = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .and_then(|v| v.trim().parse::<usize>().ok())
                                .unwrap_or(0);
                            break (end + 4, length);
                        }
                    };
                    while request.len() < head_end + length {
                        let Ok(n) = socket.read(&mut buf).await else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        request.extend_from_slice(&buf[..n]);
                    }
                    let (status, body) = if request.starts_with(b"POST /v1/completions ") {
                        seen.lock().unwrap().push(Instant::now());
                        (
                            "200 OK",
                            r#"{"id":"c","object":"text_completion","choices":[{"index":0,"text":"!"}]}"#,
                        )
                    } else {
                        ("500 Internal Server Error", r#"{"object":"error"}"#)
                    };
                    let answer = format!(
                        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = socket.write_all(answer.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        *self.task.lock().unwrap() = Some(task);
    }

    /// Closes its port: connections are refused.
    fn stop(&self) {
        if let Some(task) = self.task.lock().unwrap().take() {
            task.abort();
        }
    }

    /// Listens on the same port again.
    async fn restart(&self) {
        let mut tries = 0;
        let listener = loop {
            match tokio::net::TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(_) if tries < 50 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("rebinding {}: {e}", self.addr),
            }
        };
        self.serve(listener);
    }

    fn seen(&self) -> Vec<Instant> {
        self.seen.lock().unwrap().clone()
    }
}

async fn uptime(app: &TestApp, listing: &str) -> Value {
    app.get_json(&format!("/v1/listings/{listing}/uptime"), None)
        .await
}

/// Waits up to `within` for the listing's state to be `state`; its uptime then.
async fn until_state(app: &TestApp, listing: &str, state: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let now = uptime(app, listing).await;
        if now["current"]["state"] == state {
            return now;
        }
        assert!(
            Instant::now() < deadline,
            "not {state} within {within:?}: {now}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn time(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap().parse().unwrap()
}

async fn sleep_until(t: DateTime<Utc>) {
    if let Ok(left) = (t - Utc::now()).to_std() {
        tokio::time::sleep(left).await;
    }
}

/// An engine stopped for six seconds and started again, probed every 2 s by two workers:
/// `down` since the first probe that failed, `up` again since the first that answered, the
/// outage measured to within a period; a window announced late counts as down, one
/// announced in time (notice 2 s here) is left out and shows as `maintenance`; no two
/// probes of the machine within a period.
async fn probes_measure_an_outage_and_windows_as_announced(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.liveness.liveness_every_secs = 2;
        c.liveness.liveness_timeout_ms = 500;
        c.liveness.maintenance_notice_secs = 2;
    })
    .await;
    let engine = FakeEngine::start().await;
    let p = crate::marketplace::provider(&app, "provider@example.com").await;
    let listing = crate::marketplace::list(
        &app,
        &p,
        json!({"engine": {"base_url": engine.url(), "model": "m"}}),
    )
    .await;
    let never = uptime(&app, &listing).await;
    assert_eq!(never["current"]["state"], "unknown", "{never}");
    assert!(never["reliability"].is_null() && never["uptime_24h"].is_null());

    let (stop, stopped) = tokio::sync::watch::channel(false);
    for _ in 0..2 {
        tokio::spawn(worker::liveness(app.app.clone(), stopped.clone()));
    }
    until_state(&app, &listing, "up", Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;

    let went_down = Utc::now();
    engine.stop();
    let down = until_state(&app, &listing, "down", Duration::from_secs(8)).await;
    let since = time(&down["current"]["since"]);
    assert!(since >= went_down && since - went_down <= chrono::Duration::milliseconds(2700));
    sleep_until(went_down + chrono::Duration::seconds(6)).await;
    engine.restart().await;
    let came_back = Utc::now();
    let up = until_state(&app, &listing, "up", Duration::from_secs(8)).await;
    assert!(time(&up["current"]["since"]) >= came_back, "{up}");

    let window = |from: DateTime<Utc>, until: DateTime<Utc>| {
        let path = format!("/v1/listings/{listing}/maintenance");
        let token = p.member.access_token.clone();
        let app = &app;
        async move {
            let res = app
                .post(
                    &path,
                    Some(&token),
                    json!({"from": from, "until": until, "reason": "r"}),
                )
                .await;
            assert_eq!(res.status(), 201);
            res.json::<Value>().await.unwrap()["window"].clone()
        }
    };
    // Late (under 2 s ahead): its 3 s count as down, although the machine stays up.
    let now = Utc::now();
    let late = window(
        now + chrono::Duration::milliseconds(500),
        now + chrono::Duration::milliseconds(3500),
    )
    .await;
    assert_eq!(late["in_time"], false);
    sleep_until(time(&late["until"]) + chrono::Duration::milliseconds(500)).await;
    // In time: while it lasts the machine is in maintenance, and stopping it costs nothing.
    let now = Utc::now();
    let planned = window(
        now + chrono::Duration::milliseconds(2500),
        now + chrono::Duration::milliseconds(6500),
    )
    .await;
    assert_eq!(planned["in_time"], true);
    let (from, until) = (time(&planned["from"]), time(&planned["until"]));
    sleep_until(from + chrono::Duration::milliseconds(300)).await;
    let during = uptime(&app, &listing).await;
    assert_eq!(during["current"]["state"], "maintenance", "{during}");
    // As stored: to the microsecond.
    assert!(
        (time(&during["current"]["until"]) - until)
            .num_microseconds()
            .unwrap()
            .abs()
            <= 1
    );
    assert!(
        during["maintenance"][0]["reason"].is_null(),
        "the reason is the provider's"
    );
    engine.stop();
    sleep_until(until - chrono::Duration::milliseconds(500)).await;
    engine.restart().await;
    sleep_until(until + chrono::Duration::milliseconds(2500)).await;
    let _ = stop.send(true);
    tokio::time::sleep(Duration::from_millis(700)).await;

    // The outage as measured: within one period of what it was.
    let (spans, _) = app
        .app
        .db()
        .uptime_facts(
            listing.parse().unwrap(),
            Utc::now() - chrono::Duration::days(1),
            Utc::now(),
        )
        .await
        .unwrap();
    let seconds = |d: chrono::Duration| d.num_milliseconds() as f64 / 1000.0;
    let down_s: f64 = spans
        .iter()
        .filter(|s| !s.up)
        .map(|s| seconds(s.until - s.from))
        .sum();
    let outage = seconds(came_back - went_down);
    assert!(
        (down_s - outage).abs() <= 2.0,
        "measured {down_s} s down for an outage of {outage} s: {spans:?}"
    );
    assert!(
        spans
            .iter()
            .all(|s| s.up || s.until <= from || s.from >= until),
        "nothing down inside the planned window: {spans:?}"
    );
    // The published uptime is the standard's over these facts, with the late window down
    // (had it been announced in time, its seconds would have been left out instead).
    let judged = |late_in_time: bool| {
        [(&late, late_in_time), (&planned, true)].map(|(w, in_time)| domain::uptime::Window {
            from: time(&w["from"]),
            until: time(&w["until"]),
            in_time,
        })
    };
    let end = Utc::now();
    let begin = end - chrono::Duration::days(1);
    let expected = domain::uptime::uptime(&spans, &judged(false), begin, end).unwrap();
    let excused = domain::uptime::uptime(&spans, &judged(true), begin, end).unwrap();
    let after = uptime(&app, &listing).await;
    let u = after["uptime_24h"].as_f64().unwrap();
    assert!(
        (u - expected).abs() < 1e-9,
        "uptime {u}, expected {expected}: {after}"
    );
    assert!(
        excused > u + 0.05,
        "the late window counted as down: {excused} vs {u}"
    );
    assert_eq!(after["uptime_7d"], after["uptime_24h"]);
    let reliability = after["reliability"].as_f64().unwrap();
    assert!((reliability - u).abs() < 1e-6, "{after}");
    let days = after["days"].as_array().unwrap();
    assert_eq!(days.len(), 30);
    if went_down.date_naive() == Utc::now().date_naive() {
        assert!((days[29]["uptime"].as_f64().unwrap() - u).abs() < 1e-6);
    }
    assert!(days[0]["uptime"].is_null());
    let shown: Value = app.get_json(&format!("/v1/listings/{listing}"), None).await;
    assert_eq!(shown["liveness"]["state"], "up");
    assert!((shown["reliability"].as_f64().unwrap() - reliability).abs() < 1e-9);

    // Two workers, one probe of the machine per period (jittered by a tenth).
    let mut seen = engine.seen();
    seen.sort();
    let gaps: Vec<f64> = seen
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64())
        .collect();
    assert!(gaps.len() >= 4, "{gaps:?}");
    assert!(
        gaps.iter().all(|&g| g >= 1.6),
        "probes closer than a period: {gaps:?}"
    );

    // The listing page shows the strip.
    let page = app
        .client
        .get(app.url(&format!("/listings/{listing}")))
        .send()
        .await
        .unwrap();
    let html = page.text().await.unwrap();
    assert_eq!(html.matches("class=\"day ").count(), 30, "{html}");
    assert!(html.contains(&format!("data-date=\"{}\"", Utc::now().date_naive())));
}

/// A machine whose engine the gateway cannot reach is down without waiting for a probe; a
/// probe of a simulator (the engine the tests verify) finds it up.
async fn a_gateway_request_that_cannot_reach_the_engine_is_down_evidence(app: TestApp) {
    let engine = FakeEngine::start().await;
    let rental = crate::gateway::rent(&app, &engine.url(), 0).await;
    let listing = crate::gateway::listing_of(&app, &rental).await;
    let sim = crate::helpers::start_engine("tiny");
    let other = crate::gateway::rent(&app, &sim, 0).await;
    let simulated = crate::gateway::listing_of(&app, &other).await;
    assert_eq!(app.app.probe_due().await.unwrap(), 2);
    for id in [&listing, &simulated] {
        assert_eq!(uptime(&app, id).await["current"]["state"], "up");
    }
    assert_eq!(
        app.app.probe_due().await.unwrap(),
        0,
        "each was claimed for a period"
    );
    engine.stop();
    let res = crate::gateway::chat(
        &app,
        &rental.booking,
        &rental.renter.access_token,
        json!({"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}),
    )
    .send()
    .await
    .unwrap();
    assert_problem(res, 502, "engine_unavailable").await;
    until_state(&app, &listing, "down", Duration::from_secs(5)).await;
    assert_eq!(uptime(&app, &simulated).await["current"]["state"], "up");
}

/// A 5xx answer, which a renter's own request can cause, never marks a machine down: it
/// brings the listing's next probe forward, and the probe (with a prompt of its own) decides.
/// Before, a 5xx was no evidence at all: the next probe came a period later.
async fn an_engine_answering_5xx_is_probed_at_once_never_marked_down(app: TestApp) {
    let engine = FakeEngine::start().await;
    let rental = crate::gateway::rent(&app, &engine.url(), 0).await;
    let listing = crate::gateway::listing_of(&app, &rental).await;
    assert_eq!(app.app.probe_due().await.unwrap(), 1);
    assert_eq!(uptime(&app, &listing).await["current"]["state"], "up");
    assert_eq!(
        app.app.probe_due().await.unwrap(),
        0,
        "claimed for a period"
    );
    let res = crate::gateway::chat(
        &app,
        &rental.booking,
        &rental.renter.access_token,
        json!({"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(res.status(), 500);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        assert_eq!(
            uptime(&app, &listing).await["current"]["state"],
            "up",
            "a 5xx is not recorded as down"
        );
        if app.app.probe_due().await.unwrap() == 1 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the probe was never brought forward"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(engine.seen().len(), 2, "probed again at once");
    assert_eq!(uptime(&app, &listing).await["current"]["state"], "up");
}

/// Engines that accept connections and never answer hold at most `max_probes_in_flight`
/// probes of one process: the rest stay due (before, every round claimed more, each waiting
/// out its timeout).
async fn probes_waiting_on_silent_engines_are_bounded(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.verification.engine_allow_private = true;
        c.liveness.max_probes_in_flight = 2;
        c.liveness.liveness_timeout_ms = 10_000;
    })
    .await;
    let (silent, accepted) = crate::helpers::silent_peer().await;
    let p = crate::verification::provider(&app).await;
    for _ in 0..4 {
        let res = app
            .post(
                "/v1/listings",
                Some(&p.owner.access_token),
                crate::verification::listing_body(&p.org, &silent),
            )
            .await;
        assert_eq!(res.status(), 201);
    }
    assert_eq!(app.app.probe_due().await.unwrap(), 2, "two places");
    assert_eq!(
        app.app.probe_due().await.unwrap(),
        0,
        "both still waiting: nothing more is claimed"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 2);
}

/// A window takes every GPU of the machine over its interval — availability, search over an
/// interval, bookings (409 `maintenance`) — and only members of the provider announce,
/// list and delete them; one over a booking is refused unless asked to interrupt it.
async fn maintenance_windows_take_the_whole_machine(app: TestApp) {
    let p = crate::verification::provider(&app).await;
    let mut body = crate::verification::listing_body(&p.org, "http://127.0.0.1:9");
    body["hardware"]["gpu_count"] = json!(2);
    let listing: Value = app
        .post("/v1/listings", Some(&p.member.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let id = listing["id"].as_str().unwrap().to_owned();
    let renter = app.register("renter@example.com").await;
    let book = |from: i64, to: i64| {
        let renter = renter.access_token.clone();
        let id = id.clone();
        let app = &app;
        async move {
            app.client
                .post(app.url("/v1/bookings"))
                .bearer_auth(renter)
                .header("Idempotency-Key", Uuid::new_v4().to_string())
                .json(&json!({"listing_id": id, "gpu_count": 1, "starts_at": at(from), "ends_at": at(to)}))
                .send()
                .await
                .unwrap()
        }
    };
    let booked: Value = book(24, 26).await.json().await.unwrap();
    assert_eq!(booked["status"], "confirmed");
    let path = format!("/v1/listings/{id}/maintenance");
    let over_booking = json!({"from": at(25), "until": at(27), "reason": "firmware"});
    let windowed = json!({"from": at(30), "until": at(32), "reason": "firmware"});

    // Who may: members of the organisation only.
    assert_problem(
        app.post(&path, None, windowed.clone()).await,
        401,
        "unauthenticated",
    )
    .await;
    for outsider in [&p.outsider.access_token, &renter.access_token] {
        assert_problem(
            app.post(&path, Some(outsider), windowed.clone()).await,
            403,
            "forbidden",
        )
        .await;
        assert_problem(app.get(&path, Some(outsider)).await, 403, "forbidden").await;
    }
    assert_problem(
        app.post(
            &path,
            Some(&p.member.access_token),
            json!({"from": at(32), "until": at(30)}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.post(
            &path,
            Some(&p.member.access_token),
            json!({"from": at(30), "until": at(30 + 15 * 24)}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    let refused = assert_problem(
        app.post(&path, Some(&p.member.access_token), over_booking)
            .await,
        409,
        "maintenance_overlaps_bookings",
    )
    .await;
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains(booked["id"].as_str().unwrap())
    );

    let res = app.post(&path, Some(&p.owner.access_token), windowed).await;
    assert_eq!(res.status(), 201);
    let announced: Value = res.json().await.unwrap();
    let window = announced["window"].clone();
    assert_eq!(window["in_time"], true, "{announced}");
    assert_eq!(window["reason"], "firmware");
    assert_eq!(announced["cancelled_booking_ids"], json!([]));
    let listed: Value = app.get_json(&path, Some(&p.member.access_token)).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let public = uptime(&app, &id).await;
    assert_eq!(public["maintenance"][0]["id"], window["id"]);
    assert!(public["maintenance"][0]["reason"].is_null());

    // Every capacity decision: availability, search over an interval, booking.
    let availability: Value = app
        .get_json(
            &format!(
                "/v1/listings/{id}/availability?from={}&to={}",
                at(29).to_rfc3339().replace('+', "%2B"),
                at(33).to_rfc3339().replace('+', "%2B")
            ),
            None,
        )
        .await;
    let free: Vec<i64> = availability["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["free_gpus"].as_i64().unwrap())
        .collect();
    assert_eq!(free, vec![2, 0, 2], "{availability}");
    let found = |from: i64, to: i64| {
        let q = format!(
            "/v1/listings?available_from={}&available_until={}",
            at(from).to_rfc3339().replace('+', "%2B"),
            at(to).to_rfc3339().replace('+', "%2B")
        );
        let app = &app;
        async move {
            let page: Value = app.get_json(&q, None).await;
            page["items"].as_array().unwrap().len()
        }
    };
    assert_eq!(found(31, 33).await, 0);
    assert_eq!(found(33, 34).await, 1);
    let refused = assert_problem(book(31, 33).await, 409, "maintenance").await;
    let starts = time(&window["from"]).to_rfc3339();
    assert!(
        refused["detail"].as_str().unwrap().contains(&starts),
        "{refused}"
    );
    assert_eq!(book(32, 33).await.status(), 201, "touching is no overlap");

    // Deleted (it cancelled nothing): the machine is free again.
    let delete = format!("{path}/{}", window["id"].as_str().unwrap());
    assert_problem(
        app.call(Method::DELETE, &delete, Some(&renter.access_token), None)
            .await,
        403,
        "forbidden",
    )
    .await;
    let res = app
        .call(Method::DELETE, &delete, Some(&p.member.access_token), None)
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        app.call(Method::DELETE, &delete, Some(&p.member.access_token), None)
            .await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(book(30, 31).await.status(), 201);

    // A window never reaches into the past (422 naming `from`); within a minute of grace
    // for clocks it starts now.
    let past = assert_problem(
        app.post(
            &path,
            Some(&p.member.access_token),
            json!({"from": Utc::now() - chrono::Duration::minutes(5), "until": at(1)}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert!(past["detail"].as_str().unwrap().contains("from"), "{past}");
    // One that has begun stands too: a late window's downtime cannot be taken back.
    let asked = Utc::now() - chrono::Duration::seconds(20);
    let begun: Value = app
        .post(
            &path,
            Some(&p.member.access_token),
            json!({"from": asked, "until": at(1)}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(begun["window"]["in_time"], false);
    assert!(time(&begun["window"]["from"]) > asked, "{begun}");
    let begun = format!("{path}/{}", begun["window"]["id"].as_str().unwrap());
    let kept = assert_problem(
        app.call(Method::DELETE, &begun, Some(&p.member.access_token), None)
            .await,
        409,
        "maintenance_window_kept",
    )
    .await;
    assert!(kept["detail"].as_str().unwrap().contains("begun"), "{kept}");

    // Asked to, a window interrupts what it overlaps: the booking keeps its interval and is
    // given back the share the window takes (no payment provider: recorded at once).
    let res = app
        .post(
            &path,
            Some(&p.member.access_token),
            json!({"from": at(25), "until": at(27), "cancel_overlapping": true}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let announced: Value = res.json().await.unwrap();
    assert_eq!(announced["interrupted_booking_ids"], json!([booked["id"]]));
    assert_eq!(announced["refund_pending_ids"], json!([]));
    assert_eq!(announced["cancelled_booking_ids"], json!([]));
    assert_eq!(announced["window"]["interrupted_bookings"], 1);
    assert_eq!(announced["window"]["cancelled_bookings"], 0);
    let after: Value = app
        .get_json(
            &format!("/v1/bookings/{}", booked["id"].as_str().unwrap()),
            Some(&renter.access_token),
        )
        .await;
    assert_eq!(after["status"], "confirmed", "{after}");
    assert_eq!(after["starts_at"], booked["starts_at"]);
    assert_eq!(after["ends_at"], booked["ends_at"]);
    let taken = &after["interruptions"][0];
    assert_eq!(taken["from"], announced["window"]["from"], "{after}");
    assert_eq!(taken["until"], booked["ends_at"], "clipped to the booking");
    let price = booked["price"]["amount"].as_i64().unwrap();
    let seconds = |from: &Value, until: &Value| (time(until) - time(from)).num_seconds();
    assert_eq!(
        taken["refund"]["amount"].as_i64().unwrap(),
        price * seconds(&taken["from"], &taken["until"])
            / seconds(&booked["starts_at"], &booked["ends_at"]),
        "about one of its two hours: {after}"
    );
    assert!(taken["refunded_at"].is_string(), "{after}");
    let kept = format!("{path}/{}", announced["window"]["id"].as_str().unwrap());
    assert_problem(
        app.call(Method::DELETE, &kept, Some(&p.member.access_token), None)
            .await,
        409,
        "maintenance_window_kept",
    )
    .await;
    // What windows took of bookings is public: one window, one booking, one GPU-hour.
    let public = uptime(&app, &id).await;
    assert_eq!(
        public["interruptions_30d"],
        json!({"windows": 1, "bookings": 1,
               "gpu_hours": seconds(&taken["from"], &taken["until"]) as f64 / 3600.0}),
        "{public}"
    );
    // And on the listing's page.
    let page = app
        .get(&format!("/listings/{id}"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Bookings interrupted by maintenance, last 30 days"),
        "{page}"
    );
    assert!(
        page.contains("1 · 1 GPU-h") || page.contains("1 · 1.0 GPU-h"),
        "{page}"
    );
}

/// `min_reliability` and `sort=reliability`: listings never probed are left out of both.
async fn search_filters_and_sorts_by_reliability(app: TestApp) {
    let p = crate::marketplace::provider(&app, "provider@example.com").await;
    let mut ids = Vec::new();
    for title in ["steady", "shaky", "unprobed"] {
        ids.push(crate::marketplace::list(&app, &p, json!({"title": title})).await);
    }
    let t0 = Utc::now() - chrono::Duration::hours(2);
    let observe = |listing: &str, up: bool, minutes: i64| {
        let listing: Uuid = listing.parse().unwrap();
        let app = &app;
        async move {
            app.app
                .observe_liveness(listing, up, t0 + chrono::Duration::minutes(minutes))
                .await
                .unwrap();
        }
    };
    // Observed every 5 minutes for an hour: steady up all along; shaky up 45 minutes, then
    // down 15.
    for m in (0..=60).step_by(5) {
        observe(&ids[0], true, m).await;
        if m <= 45 {
            observe(&ids[1], true, m).await;
        }
        if m >= 45 {
            observe(&ids[1], false, m).await;
        }
    }
    let titles = |query: &str| {
        let q = format!("/v1/listings?{query}");
        let app = &app;
        async move {
            let page: Value = app.get_json(&q, None).await;
            page["items"]
                .as_array()
                .unwrap_or_else(|| panic!("{page}"))
                .iter()
                .map(|l| {
                    (
                        l["title"].as_str().unwrap().to_owned(),
                        l["reliability"].clone(),
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    let sorted = titles("sort=reliability").await;
    assert_eq!(
        sorted,
        vec![
            ("steady".to_owned(), json!(1.0)),
            ("shaky".to_owned(), json!(0.75))
        ]
    );
    assert_eq!(titles("min_reliability=0.8").await.len(), 1);
    assert_eq!(titles("min_reliability=0.75").await.len(), 2);
    // Paged one at a time, the order holds.
    let first: Value = app
        .get_json("/v1/listings?sort=reliability&limit=1", None)
        .await;
    let next: Value = app
        .get_json(
            &format!(
                "/v1/listings?sort=reliability&limit=1&cursor={}",
                first["next_cursor"].as_str().unwrap()
            ),
            None,
        )
        .await;
    assert_eq!(next["items"][0]["title"], "shaky");
    assert_problem(
        app.get("/v1/listings?min_reliability=1.5", None).await,
        422,
        "validation_failed",
    )
    .await;
    let shaky = uptime(&app, &ids[1]).await;
    assert_eq!(shaky["current"]["state"], "down");
    assert_eq!(shaky["uptime_24h"], json!(0.75));
}

/// Once an hour (the period here) has settled, each listing observed in it gets one signed
/// statement of its intervals and uptime, however many replicas sign at once; it verifies
/// against the published keys and is in the transparency log.
async fn a_period_s_uptime_is_signed_once_and_logged(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.liveness.uptime_statement_secs = 3600).await;
    let p = crate::marketplace::provider(&app, "provider@example.com").await;
    let listing = crate::marketplace::list(&app, &p, json!({})).await;
    let id: Uuid = listing.parse().unwrap();
    let now = Utc::now().timestamp();
    // The hour before last: settled (its last observations in) whatever the minute now.
    let hour = DateTime::from_timestamp(now - now.rem_euclid(3600) - 7200, 0).unwrap();
    // Up for 40 minutes of it, then down for 15, seen every 5 minutes.
    for minutes in (5..=45).step_by(5) {
        let at = hour + chrono::Duration::minutes(minutes);
        app.app.observe_liveness(id, true, at).await.unwrap();
    }
    for minutes in (45..=60).step_by(5) {
        let at = hour + chrono::Duration::minutes(minutes);
        app.app.observe_liveness(id, false, at).await.unwrap();
    }
    let (a, b) = tokio::join!(
        app.app.sign_uptime_statements(),
        app.app.sign_uptime_statements()
    );
    assert_eq!(
        a.unwrap() + b.unwrap(),
        1,
        "one statement per listing and period"
    );
    assert_eq!(app.app.sign_uptime_statements().await.unwrap(), 0);

    let shown = uptime(&app, &listing).await;
    let statements = shown["statements"].as_array().unwrap();
    assert_eq!(statements.len(), 1, "{shown}");
    let statement = &statements[0];
    assert_eq!(time(&statement["period_start"]), hour);
    assert_eq!(
        time(&statement["period_end"]),
        hour + chrono::Duration::hours(1)
    );
    assert_eq!(statement["uptime"], json!(40.0 / 55.0));
    let keys: Value = app.get_json("/v1/signing-keys", None).await;
    let keys: Vec<attest::PublishedKey> = serde_json::from_value(keys).unwrap();
    let envelope: attest::Envelope = serde_json::from_value(statement["envelope"].clone()).unwrap();
    let (signed, _) = attest::verify_statement(&envelope, &keys).unwrap();
    assert_eq!(
        signed["predicateType"],
        app::trust::liveness::UPTIME_PREDICATE
    );
    let predicate = &signed["predicate"];
    assert_eq!(predicate["listing_id"], listing);
    assert_eq!(predicate["uptime"], statement["uptime"]);
    let observed = predicate["observed"].as_array().unwrap();
    assert_eq!(
        observed
            .iter()
            .map(|o| o["state"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["up", "down"],
        "{predicate}"
    );
    assert!(
        !signed.to_string().contains("127.0.0.1"),
        "no engine address"
    );
    // What one leaf adds to the log (the book states the log's growth from it).
    let leaf = attest::log_leaf(&statement["envelope"]).0.len();
    println!("an uptime statement's leaf with an outage: {leaf} bytes");
    assert!(leaf < 4096, "{leaf}");

    app.app.checkpoint_log().await.unwrap();
    let proof: Value = app
        .get_json(
            &format!("/v1/reports/{}/proof", statement["id"].as_str().unwrap()),
            None,
        )
        .await;
    assert!(proof["leaf_index"].is_u64(), "{proof}");
    let entries: Value = app.get_json("/v1/log/entries?start=0", None).await;
    let logged = entries["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["report_id"] == statement["id"])
        .unwrap_or_else(|| panic!("not in the log: {entries}"))
        .clone();
    assert_eq!(logged["kind"], "uptime", "{logged}");
}
