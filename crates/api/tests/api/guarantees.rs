//! Performance-backed bookings against a simulated engine slowed mid-booking: a listing
//! verified on the simulator guarantees 80 % of its verified speed; a renter streams through
//! the gateway while the engine runs as verified, then at 40 % of its speed, and once more
//! at full speed but reading slowly. Only the slow buckets earn credits, the listing's spot
//! check is brought forward, and the credits are settled once when the booking ends — on
//! SQLite with payments `none` (a `credit` ledger row), on PostgreSQL paid through the local
//! Stripe server (one refund of the PaymentIntent, with its reversals).

use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};
use futures_util::StreamExt;
use serde_json::{Value, json};
use store::Backend;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::badges::wait_for_check;
use crate::helpers::{Session, TestApp, assert_problem};
use crate::payments::{
    WEBHOOK_SECRET, deliver_signed, enable_payouts_of, event, intent_object, kinds_and_amounts,
};
use crate::verification::{listing_body, provider};

measured_on_backend!(postgres = Postgres; a_slowed_engine_earns_credits_for_its_slow_buckets_only_and_a_spot_check);

/// The usage bucket length of this test.
const BUCKET_SECS: i64 = 3;
/// The simulator's speed while verified and while slowed.
const FAST: f64 = 2.0;
const SLOW: f64 = 0.8;

/// Waits for the start of the next bucket; returns it.
async fn next_bucket() -> DateTime<Utc> {
    let now = Utc::now();
    let next =
        DateTime::from_timestamp((now.timestamp() / BUCKET_SECS + 1) * BUCKET_SECS, 0).unwrap();
    tokio::time::sleep((next - now).to_std().unwrap()).await;
    next
}

/// Streams chat completions through the gateway one after the other, reading each whole,
/// from the start of a bucket until a second before its end (so each also finishes in it);
/// returns the bucket.
async fn stream_for_a_bucket(app: &TestApp, booking: &str, token: &str) -> DateTime<Utc> {
    let bucket = next_bucket().await;
    let stop = bucket + chrono::Duration::milliseconds(BUCKET_SECS * 1000 - 1000);
    while Utc::now() < stop {
        let res = app
            .client
            .post(app.url(&format!("/v1/gateway/{booking}/v1/chat/completions")))
            .bearer_auth(token)
            // Short answers: a bucket is judged on at least five.
            .json(&json!({"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 20, "stream": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        assert!(res.text().await.unwrap().ends_with("data: [DONE]\n\n"));
    }
    bucket
}

/// One long stream through the gateway (about 180 KB) to a client with a small receive
/// buffer that reads nothing for 3 s and then 2 KB every 100 ms (the engine writes some
/// 50 KB a second) until 10 s have passed, then the rest.
async fn read_slowly(app: &TestApp, booking: &str, token: &str) {
    next_bucket().await;
    let address: std::net::SocketAddr = app.base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    let body = json!({"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 800, "stream": true}).to_string();
    let request = format!(
        "POST /v1/gateway/{booking}/v1/chat/completions HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let started = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut received = Vec::new();
    let mut buffer = [0u8; 2048];
    loop {
        if started.elapsed() < Duration::from_secs(10) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let n = stream.read(&mut buffer).await.unwrap();
        if n == 0 {
            break;
        }
        received.extend_from_slice(&buffer[..n]);
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the stream did not end"
        );
    }
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{text:.200}");
    assert!(text.contains("data: [DONE]"));
}

/// Verifies `listing` with a stored report of the figures the tiny simulator measures at
/// [`FAST`] (what the worker would sign; a verification's own path is
/// `verified_end_to_end_in_process`'s subject): decode at contexts 0 and 1,024 and 1, 2 and 4
/// streams, a total of 1000·c/(8+c) tok/s times the speed, a token per chunk, TTFT p99 20 ms
/// (measured: 15-21 ms at full speed), and prefill at 1,024 tokens of 36,000 tok/s times the
/// speed. The guarantee holds requests to these; the spot check the credit brings forward
/// compares with them.
async fn verified_as_the_simulator_measures(app: &TestApp, listing: &str) {
    let decode = |context: i64, concurrency: i64| {
        let total = FAST * 1000.0 * concurrency as f64 / (8.0 + concurrency as f64);
        store::CellRecord {
            ttft_ms_p99: Some(20.0),
            ttft_samples: Some(8),
            itl_ms_p99: Some(10.0),
            tokens_per_chunk: Some(1.0),
            ..crate::marketplace::decode_cell(context, concurrency, total)
        }
    };
    let prefill = store::CellRecord {
        phase: domain::CellPhase::Prefill,
        total_tok_s: None,
        per_request_tok_s: None,
        prompt_tok_s: Some(FAST * 36_000.0),
        ..crate::marketplace::decode_cell(1024, 1, 0.0)
    };
    let mut cells: Vec<store::CellRecord> = [0, 1024]
        .into_iter()
        .flat_map(|context| [1, 2, 4].map(|concurrency| decode(context, concurrency)))
        .collect();
    cells.push(prefill);
    crate::marketplace::verified_with(app, listing, cells).await;
}

async fn booking_of(app: &TestApp, id: &str, renter: &Session) -> Value {
    app.get_json(&format!("/v1/bookings/{id}"), Some(&renter.access_token))
        .await
}

async fn a_slowed_engine_earns_credits_for_its_slow_buckets_only_and_a_spot_check(
    backend: Backend,
) {
    let stripe =
        (backend == Backend::Postgres).then(|| payments::testing::FakeStripe::start().unwrap());
    let app = TestApp::spawn_with(backend, |c| {
        if let Some(stripe) = &stripe {
            c.payments.stripe_secret_key = Some("sk_test_gpumarket".to_owned().into());
            c.payments.stripe_api_base = Some(stripe.base_url().to_owned());
            c.payments.stripe_webhook_secret = Some(WEBHOOK_SECRET.to_owned().into());
            c.payments.platform_fee_bps = 1000;
        }
        c.verification.reconcile_interval_secs = 1;
        c.gateway.bucket_secs = BUCKET_SECS as u64;
        // A client that stops reading blocks the gateway once ~50 KB behind (the kernel's
        // share of it bounded), so a slow reader shows within a short stream.
        c.server.send_buffer_bytes = 16 * 1024;
        // No spot check but the one a credit brings forward.
        c.verification.spot_check_every_secs = 30 * 24 * 3600;
        c.verification.verification_ttl_secs = 60 * 24 * 3600;
    })
    .await;
    let _workers = app.start_workers();
    let server = sim::serve(sim::Profile::load("tiny").unwrap(), "127.0.0.1:0", FAST).unwrap();
    let engine = format!("http://{}", server.local_addr());
    let speed = server.time_scale();
    tokio::spawn(server.run());

    // A listing guaranteeing 80 % of its verified speed, at 3600.00 USD an hour (a bucket
    // of three seconds is then worth 300 cents), verified as the engine measures at full
    // speed.
    let p = provider(&app).await;
    if stripe.is_some() {
        enable_payouts_of(&app, &p.org, &p.owner).await;
    }
    let mut body = listing_body(&p.org, &engine);
    body["price"] = json!({"amount_per_gpu_hour": 360_000, "currency": "USD"});
    body["guarantee"] = json!({"min_fraction": 0.8});
    let listing: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listing["guarantee"]["min_fraction"], 0.8, "{listing}");
    let listing = listing["id"].as_str().unwrap().to_owned();
    verified_as_the_simulator_measures(&app, &listing).await;

    // A booking of the next 36 seconds: it takes the guarantee and the report. What follows
    // takes at most about 27 s (the slow reader's 10 s, two buckets of 3 s each with a wait
    // for each bucket's start, then 1.5 s); the credit is settled when the booking ends.
    let renter = app.register("renter@example.com").await;
    let starts = Utc::now().trunc_subsecs(0);
    let booking: Value = app
        .client
        .post(app.url("/v1/bookings"))
        .bearer_auth(&renter.access_token)
        .header("idempotency-key", uuid::Uuid::now_v7().to_string())
        .json(&json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts, "ends_at": starts + chrono::Duration::seconds(36)}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    if stripe.is_some() {
        assert_eq!(booking["status"], "pending_payment", "{booking}");
        let paid = event(
            &format!("evt_paid_{}", uuid::Uuid::new_v4().simple()),
            "payment_intent.succeeded",
            intent_object(&booking, "succeeded"),
        );
        deliver_signed(&app, &paid).await;
        let id = booking["id"].as_str().unwrap();
        assert_eq!(booking_of(&app, id, &renter).await["status"], "confirmed");
    } else {
        assert_eq!(booking["status"], "confirmed", "{booking}");
    }
    assert_eq!(booking["guarantee"]["min_fraction"], 0.8, "{booking}");
    assert_eq!(booking["guarantee"]["credit"]["amount"], 0);
    let id = booking["id"].as_str().unwrap().to_owned();
    let token = renter.access_token.clone();

    // A slow reader on the engine at full speed; then a bucket as verified; then one with
    // the engine at 40 % of its speed; then full speed again.
    read_slowly(&app, &id, &token).await;
    let fast_bucket = stream_for_a_bucket(&app, &id, &token).await;
    speed.set(SLOW);
    let slow_bucket = stream_for_a_bucket(&app, &id, &token).await;
    speed.set(FAST);

    // Usage shows each bucket against the verified figure.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let usage: Value = app
        .get_json(&format!("/v1/bookings/{id}/usage"), Some(&token))
        .await;
    let bucket_at = |start: DateTime<Utc>| {
        usage["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| {
                b["start"]
                    .as_str()
                    .and_then(|s| s.parse::<DateTime<Utc>>().ok())
                    == Some(start)
            })
            .unwrap_or_else(|| panic!("no bucket at {start}: {usage}"))
            .clone()
    };
    // A request counts in the bucket it finished in: the slow reader's is the one with its
    // 800 tokens (it finished buckets after it started).
    let reader = usage["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["output_tokens"] == 800)
        .unwrap_or_else(|| panic!("no bucket with the reader's request: {usage}"))
        .clone();
    let (fast, slow) = (bucket_at(fast_bucket), bucket_at(slow_bucket));
    println!("slow reader: {reader}\nas verified: {fast}\nslowed: {slow}");
    let fraction = |b: &Value| b["delivered_fraction"].as_f64().unwrap();
    assert!(fraction(&fast) > 0.8, "as verified: {fast}");
    assert!(fraction(&slow) < 0.6, "slowed: {slow}");
    // One request is too few to judge a bucket by; and its reader was slow anyway.
    assert!(reader["delivered_fraction"].is_null(), "{reader}");
    assert_eq!(reader["slow_reader"], true, "{reader}");
    assert!(fast["judged_requests"].as_u64().unwrap() >= 5, "{fast}");
    assert_eq!(
        (&fast["slow_reader"], &slow["slow_reader"]),
        (&json!(false), &json!(false))
    );
    assert!(fast["verified_tok_s"].as_f64().unwrap() > 0.0);

    // The slow bucket, and only it, is credited its share of the price; the listing's spot
    // check comes at once.
    let checked = wait_for_check(&app, &listing, &p.owner.access_token, "spot_check_passed").await;
    assert_eq!(checked["state"], "verified", "{checked}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let settled = loop {
        let b = booking_of(&app, &id, &renter).await;
        if b["guarantee"]["settled_at"].is_string() {
            break b;
        }
        assert!(tokio::time::Instant::now() < deadline, "not settled: {b}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let guarantee = &settled["guarantee"];
    assert_eq!(guarantee["credited_buckets"], 1, "{settled}");
    assert_eq!(guarantee["credit"]["amount"], 300, "{settled}");
    assert_eq!(guarantee["settled"]["amount"], 300, "{settled}");
    let usage: Value = app
        .get_json(&format!("/v1/bookings/{id}/usage"), Some(&token))
        .await;
    let credited: Vec<&Value> = usage["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["credit_minor"] != 0)
        .collect();
    assert_eq!(credited.len(), 1, "{usage}");
    assert_eq!(
        credited[0]["start"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        slow_bucket
    );
    let spend: Value = app.get_json("/v1/me/spend", Some(&token)).await;
    let rows = |kind: &str| -> Vec<i64> {
        kinds_and_amounts(&spend)
            .into_iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, amount)| amount)
            .collect()
    };
    match &stripe {
        // Paid: one refund of the PaymentIntent for the credit, under one key.
        Some(stripe) => {
            let refunds = stripe.requests_to("POST", "/v1/refunds");
            assert_eq!(refunds.len(), 1, "{refunds:?}");
            assert_eq!(
                refunds[0].idempotency_key.as_deref(),
                Some(format!("booking-{id}-credit").as_str())
            );
            assert_eq!(refunds[0].field("amount"), Some("300"));
            assert_eq!(rows("refund"), [-300]);
            assert!(guarantee["settled_at"].is_string());
        }
        // Payments `none`: the ledger records the credit once; nothing moved.
        None => {
            assert_eq!(rows("credit"), [-300]);
            assert!(rows("refund").is_empty());
        }
    }
    // Another pass changes nothing.
    app.app.guarantee_upkeep().await.unwrap();
    let again = booking_of(&app, &id, &renter).await;
    assert_eq!(again["guarantee"], settled["guarantee"]);
}

measured_on_backend!(
    postgres = Postgres;
    a_provider_answering_in_one_chunk_earns_the_renter_credits,
    a_provider_inflating_its_usage_earns_the_renter_credits,
    the_engines_own_count_of_running_requests_changes_nothing,
    a_booking_with_direct_access_has_no_guarantee_and_stops_judging_on_its_machine,
    a_provider_sending_one_character_chunks_is_believed_no_further_than_its_text,
    a_stream_the_gateway_cannot_read_or_that_ends_before_done_delivered_nothing,
    an_engine_holding_its_connection_after_done_is_judged_at_done,
    ssh_given_later_leaves_the_bookings_made_before_judged,
);

on_backends!(
    a_stream_cut_by_a_maintenance_window_is_not_judged_and_access_pauses_over_it,
    direct_access_through_another_listing_of_the_engine_stops_judging,
    a_probe_beside_a_renters_stream_counts_in_its_load,
    one_engine_listed_twice_counts_its_streams_together,
    the_renters_own_errors_earn_no_credit,
    a_request_without_max_tokens_gets_what_is_left_of_the_served_context,
);

on_both_backends!(
    several_prompts_in_one_request_are_refused_before_the_engine,
    a_request_beyond_the_allow_list_is_served_but_never_judged,
    the_machines_access_token_does_not_open_the_gateway,
    an_engine_address_with_a_query_is_refused_on_save_and_by_the_gateway,
    an_engine_redirect_on_a_pass_through_route_is_the_machine_failing,
    a_booking_of_one_gpu_of_two_reads_no_metrics,
);

/// An engine that does what a hostile provider's might: serves prompt arrays (one sequence
/// each, as vLLM does), redirects `/v1/models` to an internal address, serves `/metrics` and
/// an HTML `/version`. Counts the completions it was sent.
fn start_hostile_engine(completions: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> String {
    use actix_web::{HttpResponse, web};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = actix_web::HttpServer::new(move || {
        let completions = completions.clone();
        actix_web::App::new()
            .route(
                "/v1/completions",
                web::post().to(move |body: web::Json<Value>| {
                    let completions = completions.clone();
                    async move {
                        completions.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let prompts = body["prompt"].as_array().map_or(1, Vec::len);
                        let choices: Vec<Value> = (0..prompts)
                            .map(|i| json!({"index": i, "text": "ok", "finish_reason": "length"}))
                            .collect();
                        HttpResponse::Ok().json(json!({
                            "choices": choices,
                            "usage": {"prompt_tokens": prompts, "completion_tokens": prompts},
                        }))
                    }
                }),
            )
            .route(
                "/v1/models",
                web::get().to(|| async {
                    HttpResponse::Found()
                        .insert_header(("location", "http://169.254.169.254/latest/meta-data/"))
                        .body("moved")
                }),
            )
            .route(
                "/version",
                web::get().to(|| async {
                    HttpResponse::Ok()
                        .content_type("text/html")
                        .body("<script>alert(1)</script>")
                }),
            )
            .route(
                "/metrics",
                web::get().to(|| async {
                    HttpResponse::Ok()
                        .content_type("text/plain; version=0.0.4")
                        .body("vllm:num_requests_running 3\n")
                }),
            )
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    url
}

/// The booking's metered requests, once `n` are recorded (they are recorded in the
/// background), in the order they finished.
async fn metered_requests(
    app: &TestApp,
    booking: &str,
    n: usize,
) -> Vec<store::GatewayRequestRecord> {
    let booking: uuid::Uuid = booking.parse().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let rows = app
            .app
            .db()
            .gateway_requests_of(booking, Utc::now() - chrono::Duration::hours(1), 10)
            .await
            .unwrap();
        if rows.len() >= n || std::time::Instant::now() > deadline {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn counter() -> std::sync::Arc<std::sync::atomic::AtomicUsize> {
    std::sync::Arc::default()
}

async fn several_prompts_in_one_request_are_refused_before_the_engine(app: TestApp) {
    let sent = counter();
    let engine = start_hostile_engine(sent.clone());
    let r = crate::gateway::rent(&app, &engine, 0).await;
    let path = format!("/v1/gateway/{}/v1/completions", r.booking);
    for prompt in [json!(["a", "b", "c", "d"]), json!([[1, 2], [3, 4]])] {
        let problem = assert_problem(
            app.post(
                &path,
                Some(&r.renter.access_token),
                json!({"model": "tiny", "prompt": prompt, "max_tokens": 4}),
            )
            .await,
            422,
            "unsupported_request",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], "prompt", "{problem}");
    }
    assert_eq!(
        sent.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "nothing reached the engine"
    );
    // One prompt, as a string, a one-element list or one list of token ids, is served.
    for prompt in [json!("a"), json!(["a"]), json!([1, 2, 3])] {
        let res = app
            .post(
                &path,
                Some(&r.renter.access_token),
                json!({"model": "tiny", "prompt": prompt, "max_tokens": 4}),
            )
            .await;
        assert_eq!(res.status(), 200, "{prompt}");
    }
    assert_eq!(sent.load(std::sync::atomic::Ordering::SeqCst), 3);
}

async fn a_request_beyond_the_allow_list_is_served_but_never_judged(app: TestApp) {
    let engine = crate::gateway::start_engine(crate::gateway::Seen::default(), 3);
    let r = crate::gateway::rent(&app, &engine, 0).await;
    let token = &r.renter.access_token;
    let plain = json!({"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 8, "stream": true});
    let mut biased = plain.clone();
    biased["logit_bias"] = json!({"50256": -100});
    let mut whole = plain.clone();
    whole["stream"] = json!(false);
    for body in [plain, biased, whole] {
        let res = crate::gateway::chat(&app, &r.booking, token, body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        res.bytes().await.unwrap();
    }
    let rows = metered_requests(&app, &r.booking, 3).await;
    // Served and metered all three; only the plain stream may be held to the benchmark.
    let judged: Vec<bool> = rows.iter().map(|r| r.comparable).collect();
    assert_eq!(judged, vec![true, false, false]);
    assert!(rows.iter().all(|r| r.output_tokens == 3));
}

async fn the_machines_access_token_does_not_open_the_gateway(app: TestApp) {
    let engine = crate::gateway::start_engine(crate::gateway::Seen::default(), 3);
    let r = crate::gateway::rent(&app, &engine, 0).await;
    let access: Value = app
        .get_json(
            &format!("/v1/bookings/{}/access", r.booking),
            Some(&r.renter.access_token),
        )
        .await;
    let machine_token = access["token"].as_str().unwrap();
    assert!(machine_token.starts_with("gmb_"));
    let ask = json!({"model": "tiny", "messages": [], "max_tokens": 4, "stream": true});
    for path in ["v1/chat/completions", "v1/completions", "tokenize"] {
        assert_problem(
            app.post(
                &format!("/v1/gateway/{}/{path}", r.booking),
                Some(machine_token),
                ask.clone(),
            )
            .await,
            401,
            "wrong_token_audience",
        )
        .await;
    }
    for path in ["v1/models", "version", "metrics"] {
        assert_problem(
            app.get(
                &format!("/v1/gateway/{}/{path}", r.booking),
                Some(machine_token),
            )
            .await,
            401,
            "wrong_token_audience",
        )
        .await;
    }
    // The renter's own credential still works.
    let res = crate::gateway::chat(&app, &r.booking, &r.renter.access_token, ask)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

async fn an_engine_address_with_a_query_is_refused_on_save_and_by_the_gateway(app: TestApp) {
    let sent = counter();
    let engine = start_hostile_engine(sent.clone());
    let r = crate::gateway::rent(&app, &engine, 0).await;
    let listing = crate::gateway::listing_of(&app, &r).await;
    // Saving one: refused, naming the field.
    for sneaky in [format!("{engine}/api?x="), format!("{engine}/#x")] {
        let res = app
            .call(
                reqwest::Method::PATCH,
                &format!("/v1/listings/{listing}"),
                Some(&r.provider.access_token),
                Some(json!({"engine": {"base_url": sneaky, "model": "tiny"}})),
            )
            .await;
        let status = res.status();
        let problem: Value = res.json().await.unwrap();
        assert_eq!(status, 422, "{problem}");
        assert!(problem.to_string().contains("engine.base_url"), "{problem}");
    }
    // One stored before the rule (written to the database directly): the gateway refuses it.
    // (The test's database holds this one listing.)
    app.execute(&format!(
        "UPDATE listings SET engine_base_url = '{engine}/v1/completions?x='"
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(1100)).await; // the gateway's booking facts expire
    let problem = assert_problem(
        app.post(
            &format!("/v1/gateway/{}/v1/completions", r.booking),
            Some(&r.renter.access_token),
            json!({"model": "tiny", "prompt": "x", "max_tokens": 4}),
        )
        .await,
        502,
        "engine_unavailable",
    )
    .await;
    assert!(
        problem["detail"].as_str().unwrap().contains("query"),
        "{problem}"
    );
    assert_eq!(sent.load(std::sync::atomic::Ordering::SeqCst), 0);
}

async fn an_engine_redirect_on_a_pass_through_route_is_the_machine_failing(app: TestApp) {
    let engine = start_hostile_engine(counter());
    let r = crate::gateway::rent(&app, &engine, 0).await;
    let res = app
        .get(
            &format!("/v1/gateway/{}/v1/models", r.booking),
            Some(&r.renter.access_token),
        )
        .await;
    assert!(
        res.headers().get("location").is_none(),
        "the redirect is not passed on"
    );
    assert_problem(res, 502, "engine_unavailable").await;
    // A page is not served from our origin either.
    assert_problem(
        app.get(
            &format!("/v1/gateway/{}/version", r.booking),
            Some(&r.renter.access_token),
        )
        .await,
        502,
        "engine_unavailable",
    )
    .await;
}

async fn a_booking_of_one_gpu_of_two_reads_no_metrics(app: TestApp) {
    let engine = start_hostile_engine(counter());
    let shared = crate::gateway::rent_of(&app, &engine, 0, 2).await;
    assert_problem(
        app.get(
            &format!("/v1/gateway/{}/metrics", shared.booking),
            Some(&shared.renter.access_token),
        )
        .await,
        403,
        "shared_machine",
    )
    .await;
    let whole = crate::gateway::rent_of(&app, &engine, 0, 1).await;
    let res = app
        .get(
            &format!("/v1/gateway/{}/metrics", whole.booking),
            Some(&whole.renter.access_token),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert!(res.text().await.unwrap().contains("num_requests_running"));
}

/// How a shaped engine answers. Every shape answers 404 to a model other than `tiny`, as
/// vLLM does. `Burst` holds the answer back 500 ms and sends its ten tokens in one chunk;
/// `Inflated` streams a token every 50 ms (20 tok/s) and claims eight times as many; `Paced`
/// streams a token every 20 ms (some 50 tok/s), honestly, and its `/metrics` says it runs
/// 10,000 requests; `OneCharacter` streams 20 one-character
/// chunks 20 ms apart (50 a second) claiming eight tokens each; `BadUsage` streams like
/// `Paced` and ends with `"usage": "x"`; `Cut` streams like `Paced` and closes without
/// `[DONE]`; `Refusing` answers every request 400 (a prompt too long, say); `ShortContext`
/// serves a 1,024-token context: a request whose prompt (`/tokenize` counts 3) and
/// `max_tokens` exceed it is refused (400), else it streams like `Paced`; `Lingering` streams
/// ten tokens 10 ms apart and holds the connection open 5 s after `[DONE]`; `Long` streams
/// 300 tokens 20 ms apart (six seconds).
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Long,
    Burst,
    Inflated,
    Paced,
    OneCharacter,
    BadUsage,
    Cut,
    Refusing,
    ShortContext,
    Lingering,
}

/// The served context of [`Shape::ShortContext`], and the prompt `/tokenize` counts.
const SHORT_CONTEXT: u64 = 1024;
const SHORT_PROMPT: u64 = 3;

fn start_shaped_engine(shape: Shape) -> String {
    use actix_web::{HttpResponse, web};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let refuse = |status: u16, message: &str| {
        HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap())
            .json(json!({"object": "error", "message": message, "code": status}))
    };
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .route(
                "/v1/chat/completions",
                web::post().to(move |body: web::Json<Value>| async move {
                    if body["model"] != "tiny" {
                        return refuse(404, "The model does not exist.");
                    }
                    let max_tokens = body["max_tokens"].as_u64().unwrap_or(u64::MAX);
                    let too_long = SHORT_PROMPT.saturating_add(max_tokens) > SHORT_CONTEXT;
                    if shape == Shape::Refusing || (shape == Shape::ShortContext && too_long) {
                        return refuse(400, "This model's maximum context length is exceeded.");
                    }
                    let chunk = |text: &str, completion: u64| {
                        let data = json!({
                            "choices": [{"index": 0, "delta": {"content": text}}],
                            "usage": {"prompt_tokens": 14, "completion_tokens": completion},
                        });
                        web::Bytes::from(format!("data: {data}\n\n"))
                    };
                    let paced = || (1..=10).map(|n| chunk("x", n)).collect::<Vec<_>>();
                    let (mut pieces, gap_ms): (Vec<web::Bytes>, u64) = match shape {
                        Shape::Burst => (vec![chunk("0123456789", 10)], 500),
                        Shape::Inflated => ((1..=10).map(|n| chunk("x", n * 8)).collect(), 50),
                        Shape::OneCharacter => ((1..=20).map(|n| chunk("x", n * 8)).collect(), 20),
                        Shape::BadUsage => {
                            let mut pieces = paced();
                            pieces.push(web::Bytes::from_static(
                                b"data: {\"choices\":[],\"usage\":\"x\"}\n\n",
                            ));
                            (pieces, 10)
                        }
                        Shape::Paced => (paced(), 20),
                        Shape::Long => ((1..=300).map(|n| chunk("x", n)).collect(), 20),
                        Shape::Lingering => (paced(), 10),
                        Shape::Cut | Shape::ShortContext | Shape::Refusing => (paced(), 10),
                    };
                    if shape != Shape::Cut {
                        pieces.push(web::Bytes::from_static(b"data: [DONE]\n\n"));
                    }
                    if shape == Shape::Lingering {
                        // The connection held open 5 s after `[DONE]`.
                        pieces.push(web::Bytes::new());
                    }
                    let stream = futures_util::stream::iter(pieces).then(move |piece| async move {
                        let pause = if piece.is_empty() { 5000 } else { gap_ms };
                        tokio::time::sleep(Duration::from_millis(pause)).await;
                        Ok::<_, std::io::Error>(piece)
                    });
                    HttpResponse::Ok()
                        .content_type("text/event-stream")
                        .streaming(stream)
                }),
            )
            .route(
                "/tokenize",
                web::post().to(|| async {
                    HttpResponse::Ok().json(json!({"count": SHORT_PROMPT, "tokens": [1, 2, 3]}))
                }),
            )
            .route(
                "/metrics",
                web::get().to(move || async move {
                    let running = if shape == Shape::Paced { 10_000 } else { 1 };
                    HttpResponse::Ok()
                        .content_type("text/plain")
                        .body(format!("vllm:num_requests_running {running}\n"))
                }),
            )
    })
    .workers(2)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    url
}

/// A signed envelope whose report says the engine served `max_model_len` tokens.
fn envelope_serving(max_model_len: u64) -> String {
    let statement = json!({"predicate": {"engine": {"max_model_len": max_model_len}}});
    let key = attest::KeyPair::generate().unwrap();
    let envelope = key.sign(
        "application/vnd.in-toto+json",
        statement.to_string().as_bytes(),
    );
    serde_json::to_string(&envelope).unwrap()
}

/// What a test's listing is: its GPUs, and the report's tokens per chunk and served context.
#[derive(Clone, Copy)]
struct Machine {
    gpus: i64,
    tokens_per_chunk: f64,
    max_model_len: Option<u64>,
}

const ONE_GPU: Machine = Machine {
    gpus: 1,
    tokens_per_chunk: 1.0,
    max_model_len: None,
};

/// A listing of `engine` guaranteeing `min_fraction` of a report that measured 100, 90 and
/// 50 tok/s per stream at 1, 2 and 4 streams, alike at contexts 0 and 1,024 (TTFT p99
/// 20 ms, `tokens_per_chunk` tokens a chunk, prefill 10,000 tok/s; the engine's context
/// `max_model_len` when given), with SSH access when `ssh`; and a booking of one GPU of it,
/// from now, that waives direct access and holds the guarantee. Returns (listing, booking,
/// the renter's token).
async fn guaranteed_booking(
    app: &TestApp,
    engine: &str,
    min_fraction: f64,
    ssh: bool,
    machine: Machine,
) -> (String, String, String) {
    let Machine {
        gpus,
        tokens_per_chunk,
        max_model_len,
    } = machine;
    let p = provider(app).await;
    let mut body = listing_body(&p.org, engine);
    body["hardware"]["gpu_count"] = json!(gpus);
    body["guarantee"] = json!({"min_fraction": min_fraction});
    if ssh {
        body["access"] = json!({"ssh": {"host": "gpu1.example.com", "port": 22, "user": "renter"}});
    }
    let listing: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let listing = listing["id"].as_str().unwrap().to_owned();
    let decode = |context: i64, concurrency: i64, per_stream: f64| store::CellRecord {
        ttft_ms_p99: Some(20.0),
        ttft_samples: Some(8),
        itl_ms_p99: Some(12.0),
        tokens_per_chunk: Some(tokens_per_chunk),
        ..crate::marketplace::decode_cell(context, concurrency, per_stream * concurrency as f64)
    };
    let prefill = store::CellRecord {
        phase: domain::CellPhase::Prefill,
        total_tok_s: None,
        per_request_tok_s: None,
        prompt_tok_s: Some(10_000.0),
        ..crate::marketplace::decode_cell(1024, 1, 0.0)
    };
    let mut cells: Vec<store::CellRecord> = [0, 1024]
        .into_iter()
        .flat_map(|c| [decode(c, 1, 100.0), decode(c, 2, 90.0), decode(c, 4, 50.0)])
        .collect();
    cells.push(prefill);
    let envelope = max_model_len.map_or_else(|| "{}".to_owned(), envelope_serving);
    store::tools::testing::verified_report_signed(
        app.app.db(),
        listing.parse().unwrap(),
        cells,
        envelope,
    )
    .await
    .unwrap();
    let renter = app.register("renter@example.com").await;
    let waived = json!({"direct_access": false});
    let booking = crate::gateway::book_with(app, &renter, &json!(listing), 0, waived).await;
    assert_eq!(
        booking["guarantee"]["min_fraction"], min_fraction,
        "{booking}"
    );
    assert_eq!(booking["no_guarantee_reason"], Value::Null);
    (
        listing,
        booking["id"].as_str().unwrap().to_owned(),
        renter.access_token,
    )
}

/// A plain chat request of the listing's model.
fn plain() -> Value {
    json!({"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 100, "stream": true})
}

/// Six `body` streams through the gateway inside one bucket, `at_once` at a time, each
/// answered `status`; then the bucket judged. Returns the booking's guarantee and the
/// bucket's usage.
async fn judge_one_bucket(
    app: &TestApp,
    booking: &str,
    token: &str,
    (at_once, body, status): (usize, Value, u16),
) -> (Value, Value) {
    let bucket = next_bucket().await;
    for _ in 0..6 / at_once {
        let streams = (0..at_once).map(|_| async {
            let res = crate::gateway::chat(app, booking, token, body.clone())
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), status);
            res.text().await.unwrap()
        });
        futures_util::future::join_all(streams).await;
    }
    assert!(
        Utc::now() < bucket + chrono::Duration::seconds(BUCKET_SECS),
        "all in one bucket"
    );
    // Judged a bucket's length after it ends.
    let due =
        bucket + chrono::Duration::seconds(2 * BUCKET_SECS) + chrono::Duration::milliseconds(200);
    tokio::time::sleep((due - Utc::now()).to_std().unwrap_or_default()).await;
    app.app.guarantee_upkeep().await.unwrap();
    let usage: Value = app
        .get_json(&format!("/v1/bookings/{booking}/usage"), Some(token))
        .await;
    println!("{usage}");
    let b: Value = app
        .get_json(&format!("/v1/bookings/{booking}"), Some(token))
        .await;
    let last = usage["buckets"].as_array().and_then(|b| b.last()).cloned();
    (b["guarantee"].clone(), last.unwrap_or(Value::Null))
}

/// A guaranteed booking of a `shape`d engine, one bucket of six requests judged: the
/// booking's guarantee, the bucket's usage, and when the listing's spot check was last
/// brought forward.
async fn shaped_with(
    backend: Backend,
    shape: Shape,
    min_fraction: f64,
    request: (usize, Value, u16),
) -> (Value, Value, Option<DateTime<Utc>>) {
    let app = TestApp::spawn_with(backend, |c| c.gateway.bucket_secs = BUCKET_SECS as u64).await;
    let engine = start_shaped_engine(shape);
    let report = match shape {
        Shape::OneCharacter => Machine {
            tokens_per_chunk: 4.0,
            ..ONE_GPU
        },
        Shape::ShortContext => Machine {
            max_model_len: Some(SHORT_CONTEXT),
            ..ONE_GPU
        },
        _ => ONE_GPU,
    };
    let (listing, booking, token) =
        guaranteed_booking(&app, &engine, min_fraction, shape == Shape::Paced, report).await;
    let (guarantee, bucket) = judge_one_bucket(&app, &booking, &token, request).await;
    let forwarded = app
        .app
        .db()
        .listing_by_id(listing.parse().unwrap())
        .await
        .unwrap()
        .unwrap()
        .spot_check_forwarded_at;
    (guarantee, bucket, forwarded)
}

async fn shaped(backend: Backend, shape: Shape, min_fraction: f64) -> Value {
    let at_once = match shape {
        Shape::Paced => 1,
        Shape::OneCharacter => 2,
        _ => 3,
    };
    shaped_with(backend, shape, min_fraction, (at_once, plain(), 200))
        .await
        .0
}

async fn a_provider_answering_in_one_chunk_earns_the_renter_credits(backend: Backend) {
    let guarantee = shaped(backend, Shape::Burst, 0.8).await;
    assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
}

async fn a_provider_inflating_its_usage_earns_the_renter_credits(backend: Backend) {
    let guarantee = shaped(backend, Shape::Inflated, 0.8).await;
    assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
}

async fn the_engines_own_count_of_running_requests_changes_nothing(backend: Backend) {
    // One stream at a time through the gateway, at some 50 tok/s, while the engine's
    // /metrics says it runs 10,000 requests: held to the gateway's own count (1 stream:
    // 100 tok/s), it is short of a 99 % guarantee and credited. Before, the engine's count
    // set the load, no valid cell measured 10,000 streams, and nothing was judged.
    let guarantee = shaped(backend, Shape::Paced, 0.99).await;
    assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
}

async fn a_booking_with_direct_access_has_no_guarantee_and_stops_judging_on_its_machine(
    backend: Backend,
) {
    let app = TestApp::spawn_with(backend, |c| c.gateway.bucket_secs = BUCKET_SECS as u64).await;
    let engine = start_shaped_engine(Shape::Paced);
    let two = Machine { gpus: 2, ..ONE_GPU };
    // A booking that waived direct access: guaranteed, and its access answer has no SSH.
    let (listing, booking, token) = guaranteed_booking(&app, &engine, 0.99, true, two).await;
    let access: Value = app
        .get_json(&format!("/v1/bookings/{booking}/access"), Some(&token))
        .await;
    assert_eq!(access["ssh"], Value::Null, "{access}");
    let (guarantee, bucket) = judge_one_bucket(&app, &booking, &token, (1, plain(), 200)).await;
    assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
    assert_eq!(bucket["unjudged_reason"], Value::Null, "{bucket}");
    // Another renter books the other GPU with direct access (the default): no guarantee,
    // and it says why; its access answer has the SSH it can load the engine through.
    let other = app.register("other@example.com").await;
    let direct = crate::gateway::book(&app, &other, &json!(listing), 0).await;
    assert_eq!(direct["guarantee"], Value::Null, "{direct}");
    assert_eq!(direct["no_guarantee_reason"], "direct_access", "{direct}");
    assert_eq!(direct["direct_access"], true);
    let id = direct["id"].as_str().unwrap();
    let access: Value = app
        .get_json(
            &format!("/v1/bookings/{id}/access"),
            Some(&other.access_token),
        )
        .await;
    assert_eq!(access["ssh"]["host"], "gpu1.example.com", "{access}");
    // While it holds the machine, the guaranteed booking's buckets are not judged.
    let (guarantee, bucket) = judge_one_bucket(&app, &booking, &token, (1, plain(), 200)).await;
    assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
    assert_eq!(bucket["unjudged_reason"], "direct_access", "{bucket}");
    assert_eq!(bucket["judged_requests"], 0, "{bucket}");
    assert_eq!(bucket["requests"], 6, "{bucket}");
}

async fn one_engine_listed_twice_counts_its_streams_together(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let engine = start_shaped_engine(Shape::Paced);
    let p = provider(&app).await;
    let renter = app.register("renter@example.com").await;
    let mut bookings = Vec::new();
    // The same engine, spelled two ways (its origin is the same), behind two listings.
    for base in [engine.clone(), format!("{engine}/")] {
        let listing: Value = app
            .post(
                "/v1/listings",
                Some(&p.owner.access_token),
                listing_body(&p.org, &base),
            )
            .await
            .json()
            .await
            .unwrap();
        let listing = listing["id"].as_str().unwrap().to_owned();
        let cells = [1, 2, 4]
            .map(|c| crate::marketplace::decode_cell(0, c, 100.0 * c as f64))
            .to_vec();
        crate::marketplace::verified_with(&app, &listing, cells).await;
        let booking = crate::gateway::book(&app, &renter, &json!(listing), 0).await;
        bookings.push(booking["id"].as_str().unwrap().to_owned());
    }
    // One stream through each booking at once: the engine had two open (before, each
    // listing counted its own one).
    let streams = bookings.iter().map(|booking| async {
        let res = crate::gateway::chat(&app, booking, &renter.access_token, plain())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        res.text().await.unwrap()
    });
    futures_util::future::join_all(streams).await;
    for booking in &bookings {
        let rows = metered_requests(&app, booking, 1).await;
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].concurrency, 2, "{booking}");
    }
}

async fn an_engine_holding_its_connection_after_done_is_judged_at_done(backend: Backend) {
    // Before, the answer ended only when the engine closed the connection: each request
    // took 5 s more, the bucket could not hold six, and one the client left at `[DONE]` was
    // not judged.
    let started = std::time::Instant::now();
    let (_, bucket, _) = shaped_with(backend, Shape::Lingering, 0.5, (3, plain(), 200)).await;
    assert_eq!(bucket["judged_requests"], 6, "{bucket}");
    assert!(started.elapsed() < Duration::from_secs(30));
}

async fn ssh_given_later_leaves_the_bookings_made_before_judged(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| c.gateway.bucket_secs = BUCKET_SECS as u64).await;
    let engine = start_shaped_engine(Shape::Paced);
    let two = Machine { gpus: 2, ..ONE_GPU };
    let (listing, _, _) = guaranteed_booking(&app, &engine, 0.99, false, two).await;
    // Another renter books the other GPU, not waiving direct access: the listing has none,
    // so the booking reaches the machine through the gateway only and is guaranteed.
    let other = app.register("other@example.com").await;
    let booking = crate::gateway::book(&app, &other, &json!(listing), 0).await;
    assert_eq!(booking["direct_access"], false, "{booking}");
    assert_eq!(booking["guarantee"]["min_fraction"], 0.99, "{booking}");
    let booking = booking["id"].as_str().unwrap().to_owned();
    // The provider then gives the listing SSH: the booking made before stays judged (before,
    // its own row counted as direct access and nothing of it was judged again).
    let owner = owner_token(&app).await;
    let res = app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/listings/{listing}"),
            Some(&owner),
            Some(json!({"access": {"ssh": {"host": "gpu1.example.com", "port": 22, "user": "renter"}}})),
        )
        .await;
    assert_eq!(res.status(), 200);
    let access: Value = app
        .get_json(
            &format!("/v1/bookings/{booking}/access"),
            Some(&other.access_token),
        )
        .await;
    assert_eq!(access["ssh"], Value::Null, "{access}");
    let (guarantee, bucket) =
        judge_one_bucket(&app, &booking, &other.access_token, (1, plain(), 200)).await;
    assert_eq!(bucket["unjudged_reason"], Value::Null, "{bucket}");
    assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
}

async fn a_provider_sending_one_character_chunks_is_believed_no_further_than_its_text(
    backend: Backend,
) {
    // 20 one-character chunks claiming 8 tokens each, at 50 chunks a second, two streams
    // at once, against a report that saw 4 tokens a chunk: before, 4 tokens a chunk were
    // believed (200 tok/s, past the 90 verified at two streams); a token is at least a
    // byte, so 20 tokens (50 tok/s) are.
    let guarantee = shaped(backend, Shape::OneCharacter, 0.8).await;
    assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
}

async fn a_stream_the_gateway_cannot_read_or_that_ends_before_done_delivered_nothing(
    backend: Backend,
) {
    // Fast enough for a 50 % guarantee, but ending with `"usage": "x"` (before: the chunk
    // was skipped and the stream judged fast), or without `[DONE]`.
    for shape in [Shape::BadUsage, Shape::Cut] {
        let (guarantee, bucket, _) = shaped_with(backend, shape, 0.5, (3, plain(), 200)).await;
        assert_eq!(guarantee["credited_buckets"], 1, "{guarantee}");
        assert_eq!(bucket["delivered_fraction"], 0.0, "{bucket}");
    }
}

async fn the_renters_own_errors_earn_no_credit(backend: Backend) {
    // Six requests for a model the listing does not serve, each answered 404: before, each
    // was the engine failing (delivered 0) and the bucket was credited. Now not judged.
    let mut nope = plain();
    nope["model"] = json!("nope");
    let (guarantee, bucket, forwarded) =
        shaped_with(backend, Shape::Paced, 0.5, (3, nope, 404)).await;
    assert_eq!(guarantee["credited_buckets"], 0, "{guarantee}");
    assert_eq!(
        (
            &bucket["requests"],
            &bucket["judged_requests"],
            &bucket["rejected_requests"]
        ),
        (&json!(6), &json!(0), &json!(0)),
        "{bucket}"
    );
    assert_eq!(forwarded, None, "a renter's own mistakes are no evidence");
    // The engine refusing requests of its own model (400): counted, not judged, and
    // evidence enough to bring the spot check forward.
    let (guarantee, bucket, forwarded) =
        shaped_with(backend, Shape::Refusing, 0.5, (3, plain(), 400)).await;
    assert_eq!(guarantee["credited_buckets"], 0, "{guarantee}");
    assert_eq!(
        (&bucket["judged_requests"], &bucket["rejected_requests"]),
        (&json!(0), &json!(6)),
        "{bucket}"
    );
    assert!(forwarded.is_some(), "the spot check is brought forward");
}

async fn a_request_without_max_tokens_gets_what_is_left_of_the_served_context(backend: Backend) {
    // The engine serves 1,024 tokens: before, the gateway set max_tokens 8,192 and every
    // request without one was refused (400). Now /tokenize counts the prompt (3) and
    // max_tokens is 1,021; the answers are judged.
    let mut unbounded = plain();
    unbounded.as_object_mut().unwrap().remove("max_tokens");
    let (_, bucket, _) = shaped_with(backend, Shape::ShortContext, 0.5, (3, unbounded, 200)).await;
    assert_eq!(bucket["judged_requests"], 6, "{bucket}");
    assert_eq!(bucket["rejected_requests"], 0, "{bucket}");
}

async fn a_stream_cut_by_a_maintenance_window_is_not_judged_and_access_pauses_over_it(
    backend: Backend,
) {
    // A guaranteed booking streaming at half its verified speed when a window of its machine
    // begins: the platform cuts the stream at the window's start, and it is not judged (no
    // credit). Over the window the gateway refuses the booking and its access token is
    // inactive; after it, the booking is served again. Before, the window cancelled the
    // booking whole.
    let app = TestApp::spawn_with(backend, |c| c.gateway.bucket_secs = BUCKET_SECS as u64).await;
    let engine = start_shaped_engine(Shape::Long);
    let (listing, booking, token) = guaranteed_booking(&app, &engine, 0.99, false, ONE_GPU).await;
    let owner = owner_token(&app).await;
    let key: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", listing_org(&app, &listing).await),
            Some(&owner),
            json!({"name": "machine", "scopes": ["access:introspect"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let key = key["key"].as_str().unwrap().to_owned();
    let access: Value = app
        .get_json(&format!("/v1/bookings/{booking}/access"), Some(&token))
        .await;
    let introspected = || async {
        let answer: Value = app
            .post(
                "/v1/access/introspect",
                Some(&key),
                json!({"token": access["token"]}),
            )
            .await
            .json()
            .await
            .unwrap();
        answer["active"].as_bool().unwrap()
    };
    assert!(introspected().await);

    let from = Utc::now() + chrono::Duration::milliseconds(2500);
    let until = from + chrono::Duration::seconds(3);
    let res = app
        .post(
            &format!("/v1/listings/{listing}/maintenance"),
            Some(&owner),
            json!({"from": from, "until": until, "cancel_overlapping": true}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let announced: Value = res.json().await.unwrap();
    assert_eq!(announced["interrupted_booking_ids"], json!([booking]));

    // Six seconds of stream, cut when the window begins.
    let started = std::time::Instant::now();
    let res = crate::gateway::chat(&app, &booking, &token, plain())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body = res.text().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "cut at the window's start, not at its end: {body:?}"
    );
    assert!(Utc::now() >= from);
    let rows = metered_requests(&app, &booking, 1).await;
    assert_eq!(rows[0].outcome, "maintenance_window");

    // Over the window: no access.
    let refused = assert_problem(
        crate::gateway::chat(&app, &booking, &token, plain())
            .send()
            .await
            .unwrap(),
        409,
        "booking_not_active",
    )
    .await;
    assert!(
        refused["detail"].as_str().unwrap().contains("maintenance"),
        "{refused}"
    );
    assert!(
        !introspected().await,
        "the access token is inactive over the window"
    );

    // After it, the booking is served again (a model the listing does not serve: forwarded,
    // answered 404 by the engine, never judged).
    tokio::time::sleep((until - Utc::now()).to_std().unwrap_or_default()).await;
    assert!(introspected().await);
    let mut nope = plain();
    nope["model"] = json!("nope");
    let res = crate::gateway::chat(&app, &booking, &token, nope)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404, "served again: the engine answered");

    // Judged a bucket's length after the last bucket ends: nothing was judged, no credit.
    let due = Utc::now() + chrono::Duration::seconds(2 * BUCKET_SECS);
    tokio::time::sleep((due - Utc::now()).to_std().unwrap()).await;
    app.app.guarantee_upkeep().await.unwrap();
    let usage: Value = app
        .get_json(&format!("/v1/bookings/{booking}/usage"), Some(&token))
        .await;
    let buckets = usage["buckets"].as_array().unwrap();
    assert!(buckets.iter().all(|b| b["judged_requests"] == 0), "{usage}");
    let booked = booking_of_token(&app, &booking, &token).await;
    assert_eq!(booked["guarantee"]["credited_buckets"], 0, "{booked}");
    assert!(
        matches!(booked["status"].as_str(), Some("confirmed" | "active")),
        "never cancelled: {booked}"
    );
    assert_eq!(booked["interruptions"].as_array().unwrap().len(), 1);
}

/// The organisation a listing belongs to.
async fn listing_org(app: &TestApp, listing: &str) -> String {
    let listing: Value = app.get_json(&format!("/v1/listings/{listing}"), None).await;
    listing["org_id"].as_str().unwrap().to_owned()
}

async fn booking_of_token(app: &TestApp, id: &str, token: &str) -> Value {
    app.get_json(&format!("/v1/bookings/{id}"), Some(token))
        .await
}

async fn direct_access_through_another_listing_of_the_engine_stops_judging(backend: Backend) {
    // The provider lists the guaranteed engine a second time, with SSH, and a renter books
    // that listing with direct access: it can load the same engine around the gateway, so
    // the guaranteed booking's buckets are not judged. Before, only bookings of the same
    // listing were looked at, and the bucket was judged (and credited).
    let app = TestApp::spawn_with(backend, |c| c.gateway.bucket_secs = BUCKET_SECS as u64).await;
    let engine = start_shaped_engine(Shape::Paced);
    let (listing, booking, token) = guaranteed_booking(&app, &engine, 0.99, false, ONE_GPU).await;
    let owner = owner_token(&app).await;
    let mut twin = listing_body(&listing_org(&app, &listing).await, &format!("{engine}/"));
    twin["access"] = json!({"ssh": {"host": "gpu1.example.com", "port": 22, "user": "renter"}});
    let twin: Value = app
        .post("/v1/listings", Some(&owner), twin)
        .await
        .json()
        .await
        .unwrap();
    let other = app.register("other@example.com").await;
    let direct = crate::gateway::book(&app, &other, &twin["id"], 0).await;
    assert_eq!(direct["direct_access"], true, "{direct}");
    let (guarantee, bucket) = judge_one_bucket(&app, &booking, &token, (1, plain(), 200)).await;
    assert_eq!(bucket["unjudged_reason"], "direct_access", "{bucket}");
    assert_eq!(guarantee["credited_buckets"], 0, "{guarantee}");
}

async fn a_probe_beside_a_renters_stream_counts_in_its_load(backend: Backend) {
    // A liveness probe of the engine while a renter's six-second stream runs: the stream was
    // served beside it, at a load of two. Before, the platform's own requests were not
    // counted, and the stream was judged as if it had the engine alone.
    let app = TestApp::spawn(backend).await;
    let engine = start_shaped_engine(Shape::Long);
    let (_, booking, token) = guaranteed_booking(&app, &engine, 0.5, false, ONE_GPU).await;
    let stream = {
        let request = crate::gateway::chat(&app, &booking, &token, plain());
        tokio::spawn(async move { request.send().await.unwrap().text().await.unwrap() })
    };
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(app.app.probe_due().await.unwrap(), 1);
    stream.await.unwrap();
    let rows = metered_requests(&app, &booking, 1).await;
    assert_eq!(rows[0].outcome, "completed");
    assert_eq!(
        rows[0].concurrency, 2,
        "the probe counted in the stream's load"
    );
}

/// A fresh access token of the provider's owner (`guaranteed_booking` made them).
async fn owner_token(app: &TestApp) -> String {
    let owner: Value = app
        .post(
            "/v1/auth/login",
            None,
            json!({"email": "owner@example.com", "password": crate::helpers::PASSWORD}),
        )
        .await
        .json()
        .await
        .unwrap();
    owner["access_token"].as_str().unwrap().to_owned()
}
