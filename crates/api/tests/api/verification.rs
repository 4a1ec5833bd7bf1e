//! Listings, verification runs from request to signed report, and everything that reads
//! reports: SSE progress, exports, organisation reports, the leaderboard, signing keys.

use std::time::Duration;

use futures_util::StreamExt;
use secrecy::SecretString;
use serde_json::{Value, json};

use crate::helpers::{
    Session, TestApp, assert_problem, redis_url, start_engine, start_engine_with,
};

on_both_backends!(
    listing_routes_per_role,
    verification_requests_per_role,
    an_engine_gone_by_the_run_s_start_fails_its_preflight,
    a_new_signing_key_retires_the_old_one_which_stays_published,
);
// The embedded shape on SQLite, the distributed one (Redis, a lost delivery) on PostgreSQL.
measured_on!(
    sqlite = Sqlite;
    verified_end_to_end_in_process,
    a_stopping_worker_gives_its_run_back,
    a_non_compliant_run_is_reported_with_its_reasons_and_does_not_verify,
);
measured_on!(
    postgres = Postgres;
    a_stopped_worker_loop_hands_its_run_to_the_next,
    a_delivery_redis_lost_is_dispatched_again_and_reported_once,
    cancelling_a_run_per_role_stops_it_without_a_report,
);

pub(crate) fn listing_body(org: &str, engine: &str) -> Value {
    json!({
        "org_id": org,
        "title": "RTX 3060 (simulated)",
        "hardware": {"gpu_model": "NVIDIA GeForce RTX 3060", "gpu_count": 1, "vram_gb": 12, "cpu_model": "Xeon", "ram_gb": 32},
        "region": "eu-central",
        "price": {"amount_per_gpu_hour": 150, "currency": "EUR"},
        "engine": {"base_url": engine, "model": "tiny"},
    })
}

pub(crate) struct Provider {
    pub org: String,
    pub owner: Session,
    pub member: Session,
    pub outsider: Session,
}

pub(crate) async fn provider(app: &TestApp) -> Provider {
    let owner = app.register("owner@example.com").await;
    let member = app.register("member@example.com").await;
    let outsider = app.register("outsider@example.com").await;
    let org: Value = app
        .post(
            "/v1/orgs",
            Some(&owner.access_token),
            json!({"name": "Provider"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let org = org["id"].as_str().unwrap().to_owned();
    crate::helpers::join(
        app,
        &org,
        &owner.access_token,
        &member,
        "member@example.com",
        "member",
    )
    .await;
    Provider {
        org,
        owner,
        member,
        outsider,
    }
}

async fn listing_routes_per_role(app: TestApp) {
    let p = provider(&app).await;
    let body = listing_body(&p.org, "http://127.0.0.1:9/");
    let res = app
        .post("/v1/listings", Some(&p.member.access_token), body.clone())
        .await;
    assert_eq!(res.status(), 201);
    let listing: Value = res.json().await.unwrap();
    assert_eq!(listing["org_id"], p.org.as_str());
    assert_eq!(
        listing["engine"]["base_url"], "http://127.0.0.1:9",
        "members see the endpoint"
    );
    assert_eq!(
        listing["price"],
        json!({"amount_per_gpu_hour": 150, "currency": "EUR", "min_bid_per_gpu_hour": null})
    );
    assert_eq!(listing["verified"], false);

    assert_problem(
        app.post("/v1/listings", Some(&p.outsider.access_token), body.clone())
            .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        app.post("/v1/listings", None, body.clone()).await,
        401,
        "unauthenticated",
    )
    .await;
    for (field, value, named) in [
        (
            "hardware",
            json!({"gpu_model": "X", "gpu_count": 0, "vram_gb": 12, "cpu_model": "Y", "ram_gb": 1}),
            "hardware.gpu_count",
        ),
        (
            "price",
            json!({"amount_per_gpu_hour": -5, "currency": "EUR"}),
            "price.amount_per_gpu_hour",
        ),
        (
            "price",
            json!({"amount_per_gpu_hour": 5, "currency": "EURO"}),
            "price.currency",
        ),
        (
            "engine",
            json!({"base_url": "not a url", "model": "m"}),
            "engine.base_url",
        ),
        (
            "engine",
            json!({"base_url": "http://127.0.0.1:9", "model": "m", "name": "ollama"}),
            "engine.name",
        ),
        ("org_id", json!(uuid::Uuid::now_v7()), "org_id"),
    ] {
        let mut bad = body.clone();
        bad[field] = value;
        let problem = assert_problem(
            app.post("/v1/listings", Some(&p.owner.access_token), bad)
                .await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], named);
    }

    // Anyone reads a listing; the engine's address stays with its provider.
    let id = listing["id"].as_str().unwrap();
    let public: Value = app.get_json(&format!("/v1/listings/{id}"), None).await;
    assert_eq!(public["title"], "RTX 3060 (simulated)");
    assert!(public["engine"].get("base_url").is_none());
    // The engine it states is shown, changed, refused when unknown, and withdrawn by `null`.
    assert!(public["engine"].get("name").is_none(), "{public}");
    let path = format!("/v1/listings/{id}");
    let named: Value = app
        .patch(
            &path,
            Some(&p.owner.access_token),
            json!({"engine": {"name": "llamacpp"}}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(named["engine"]["name"], "llamacpp", "{named}");
    let problem = assert_problem(
        app.patch(
            &path,
            Some(&p.owner.access_token),
            json!({"engine": {"name": "LLAMACPP"}}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "engine.name");
    assert!(
        problem.to_string().contains("vllm, llamacpp, sglang, tgi"),
        "{problem}"
    );
    let public: Value = app.get_json(&path, None).await;
    assert_eq!(
        public["engine"]["name"], "llamacpp",
        "nothing stored was lost"
    );
    let unnamed: Value = app
        .patch(
            &path,
            Some(&p.owner.access_token),
            json!({"engine": {"name": null}}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert!(unnamed["engine"].get("name").is_none(), "{unnamed}");
    assert_problem(
        app.get(&format!("/v1/listings/{}", uuid::Uuid::now_v7()), None)
            .await,
        404,
        "not_found",
    )
    .await;
}

async fn verification_requests_per_role(app: TestApp) {
    let p = provider(&app).await;
    let listing: Value = app
        .post(
            "/v1/listings",
            Some(&p.owner.access_token),
            listing_body(&p.org, &start_engine("tiny")),
        )
        .await
        .json()
        .await
        .unwrap();
    let path = format!(
        "/v1/listings/{}/verifications",
        listing["id"].as_str().unwrap()
    );
    for who in [&p.owner, &p.member] {
        let res = app
            .post(&path, Some(&who.access_token), json!({"profile": "quick"}))
            .await;
        assert_eq!(res.status(), 202);
        let run: Value = res.json().await.unwrap();
        assert_eq!(run["status"], "queued");
        let fetched: Value = app
            .get_json(
                &format!("/v1/verifications/{}", run["id"].as_str().unwrap()),
                None,
            )
            .await;
        assert_eq!(fetched["id"], run["id"]);
    }
    assert_problem(
        app.post(
            &path,
            Some(&p.outsider.access_token),
            json!({"profile": "quick"}),
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        app.post(&path, None, json!({"profile": "quick"})).await,
        401,
        "unauthenticated",
    )
    .await;
    let problem = assert_problem(
        app.post(
            &path,
            Some(&p.owner.access_token),
            json!({"profile": "turbo"}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "profile");
    let unknown = format!("/v1/listings/{}/verifications", uuid::Uuid::now_v7());
    assert_problem(
        app.post(
            &unknown,
            Some(&p.owner.access_token),
            json!({"profile": "quick"}),
        )
        .await,
        404,
        "not_found",
    )
    .await;
}

/// Waits (up to 30 s) until a worker holds the run.
pub(crate) async fn wait_until_running(app: &TestApp, run: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let view: Value = app
            .get_json(&format!("/v1/verifications/{run}"), None)
            .await;
        if view["status"] == "running" {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the run never started: {view}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Follows a run's SSE stream to its end; returns every event as (kind, data).
pub(crate) async fn follow(app: &TestApp, run: &str) -> Vec<(String, Value)> {
    let res = app
        .client
        .get(app.url(&format!("/v1/verifications/{run}/events")))
        .timeout(Duration::from_secs(180))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let mut body = res.bytes_stream();
    let mut text = String::new();
    while let Some(chunk) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    text.split("\n\n")
        .filter(|block| block.starts_with("id: "))
        .map(|block| {
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(&format!("{name}: ")))
                    .unwrap_or_default()
                    .to_owned()
            };
            (
                field("event"),
                serde_json::from_str(&field("data")).unwrap(),
            )
        })
        .collect()
}

/// Requests a quick run of a listing on a simulated engine and checks everything a run
/// produces. Returns the report's id.
async fn verify_listing(app: &TestApp) -> String {
    // The engine wants an API key, as vLLM started with `--api-key` does: the worker must
    // present the one the listing stores.
    let mut profile = sim::Profile::load("tiny").unwrap();
    profile.api_key = Some("sk-engine-key".into());
    let engine = start_engine_with(profile);
    let p = provider(app).await;
    let mut body = listing_body(&p.org, &engine);
    body["engine"]["api_key"] = json!("sk-engine-key");
    let listing: Value = app
        .post("/v1/listings", Some(&p.member.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let listing_id = listing["id"].as_str().unwrap().to_owned();
    let run: Value = app
        .post(
            &format!("/v1/listings/{listing_id}/verifications"),
            Some(&p.member.access_token),
            json!({"profile": "quick"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let run_id = run["id"].as_str().unwrap().to_owned();
    let _workers = app.start_workers();

    // The live stream delivers the whole run: every cell, then the end.
    let events = follow(app, &run_id).await;
    let kinds: Vec<&str> = events.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"run_queued"));
    assert_eq!(kinds.last(), Some(&"run_finished"), "{kinds:?}");
    assert_eq!(
        kinds.iter().filter(|k| **k == "cell_finished").count(),
        6,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "prefill_finished").count(),
        1
    );
    // The plan comes first: the quick profile's six cells, all of which fit, and one prefill.
    let (_, planned) = events.iter().find(|(k, _)| k == "run_planned").unwrap();
    assert_eq!(
        planned,
        &json!({"prefill": 1, "decode": 6, "decode_to_run": 6})
    );
    assert!(
        kinds.iter().position(|k| *k == "run_planned")
            < kinds.iter().position(|k| *k == "cell_started")
    );
    let (_, finished) = events.last().unwrap();
    assert_eq!(finished["status"], "succeeded", "{finished}");
    let report_id = finished["report_id"].as_str().unwrap().to_owned();
    // Events are public: nothing in them names the worker's host.
    let (_, started) = events.iter().find(|(k, _)| k == "run_started").unwrap();
    assert!(started.get("worker").is_none(), "{started}");

    let run: Value = app
        .get_json(&format!("/v1/verifications/{run_id}"), None)
        .await;
    assert_eq!(run["status"], "succeeded");
    assert_eq!(run["report_id"], report_id.as_str());

    // The report verifies against the published keys, and names the listing.
    let report: Value = app
        .get_json(&format!("/v1/reports/{report_id}"), None)
        .await;
    assert_eq!(report["compliant"], true, "{}", report["summary"]);
    let keys: Vec<attest::PublishedKey> = app.get_json("/v1/signing-keys", None).await;
    let envelope: attest::Envelope = serde_json::from_value(report["envelope"].clone()).unwrap();
    let (statement, key_id) = attest::verify_statement(&envelope, &keys).unwrap();
    assert_eq!(key_id, report["key_id"].as_str().unwrap());
    assert_eq!(
        statement["subject"][0]["name"],
        format!("gpumarket:listing:{listing_id}")
    );
    let predicate = &statement["predicate"];
    assert_eq!(predicate["standard"], "standard/2");
    assert_eq!(predicate["verification"]["run_id"], run_id.as_str());
    // The quick profile's window is the server's `quick_measure_secs` (the tests' 1.5 s).
    assert_eq!(predicate["parameters"]["profile"], "quick");
    assert_eq!(predicate["parameters"]["measure_secs"], 1.5);
    assert_eq!(
        predicate["hardware"]["claimed"]["gpu_model"],
        "NVIDIA GeForce RTX 3060"
    );
    assert_eq!(predicate["decode"].as_array().unwrap().len(), 6);
    // The engine's facts are signed, its address is not.
    assert!(
        !statement.to_string().contains(&engine),
        "the signed statement names the engine's address"
    );
    assert!(
        predicate["engine"]["fingerprint"]
            .as_str()
            .is_some_and(|f| f.len() == 64),
        "{}",
        predicate["engine"]
    );

    // The listing carries the badge and headline figures.
    let listing: Value = app
        .get_json(&format!("/v1/listings/{listing_id}"), None)
        .await;
    assert_eq!(listing["verified"], true);
    assert_eq!(listing["verification_state"], "verified");
    assert!(
        listing["verification"]["expires_at"].is_string(),
        "{listing}"
    );
    assert_eq!(listing["verification"]["report_id"], report_id.as_str());
    assert_eq!(listing["engine"]["has_api_key"], true);
    assert!(!listing.to_string().contains("sk-engine-key"), "{listing}");
    let best = listing["verification"]["best_total_tok_s"]
        .as_f64()
        .unwrap();
    // tiny: 4 streams at 1000 / (8 + 4) tok/s each.
    assert!((best / 333.3 - 1.0).abs() < 0.05, "{best}");
    // What the verification cost, as its signed report states it.
    let cost = &listing["last_verification_cost"];
    // Compared as numbers: the signed statement is RFC 8785 JSON, where 19.0 is written 19.
    for field in ["wall_s", "gpu_s_estimate", "cells_run", "cells_skipped"] {
        assert_eq!(
            cost[field].as_f64(),
            predicate["cost"][field].as_f64(),
            "{field}: {listing}"
        );
    }
    assert_eq!(
        (cost["cells_run"].as_u64(), cost["cells_skipped"].as_u64()),
        (Some(6), Some(0))
    );
    let (wall, gpu) = (
        cost["wall_s"].as_f64().unwrap(),
        cost["gpu_s_estimate"].as_f64().unwrap(),
    );
    assert!(0.0 < gpu && gpu <= wall, "{cost}");
    let reports: Value = app
        .get_json(&format!("/v1/listings/{listing_id}/reports"), None)
        .await;
    assert_eq!(reports["items"].as_array().unwrap().len(), 1);

    // Exports.
    let csv = app
        .get(&format!("/v1/reports/{report_id}/matrix.csv"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(csv.starts_with("phase,context_tokens,concurrency,status,total_tok_s"));
    assert_eq!(csv.lines().count(), 1 + 6 + 1);
    let svg = app
        .get(&format!("/v1/reports/{report_id}/matrix.svg"), None)
        .await;
    assert_eq!(svg.headers()["content-type"], "image/svg+xml");
    let svg = svg.text().await.unwrap();
    assert!(
        svg.starts_with("<svg") && svg.matches("<rect").count() == 6,
        "{svg}"
    );

    // The organisation report, signed the same way.
    let org: Value = app
        .get_json(&format!("/v1/orgs/{}/report", p.org), None)
        .await;
    assert_eq!(
        org["report"]["counts"],
        json!({"listings": 1, "verified": 1})
    );
    let envelope: attest::Envelope = serde_json::from_value(org["envelope"].clone()).unwrap();
    attest::verify_statement(&envelope, &keys).unwrap();

    // The leaderboard, filtered and not.
    let board: Value = app.get_json("/v1/leaderboard", None).await;
    assert_eq!(board["items"][0]["gpu_model"], "NVIDIA GeForce RTX 3060");
    assert_eq!(board["items"][0]["report_id"], report_id.as_str());
    let board: Value = app
        .get_json("/v1/leaderboard?context=1024&concurrency=2", None)
        .await;
    assert_eq!(board["items"][0]["concurrency"], 2);
    assert_eq!(board["items"][0]["context_tokens"], 1024);
    let board: Value = app.get_json("/v1/leaderboard?context=99", None).await;
    assert!(board["items"].as_array().unwrap().is_empty());
    assert_problem(
        app.get("/v1/leaderboard?context=many", None).await,
        400,
        "invalid_parameter",
    )
    .await;

    // Search by the measured figure of one cell, as the report states it.
    let cell = predicate["decode"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["context_tokens"] == 1024 && c["concurrency"] == 2)
        .unwrap();
    let measured = cell["total_tok_s"].as_f64().unwrap();
    let search =
        |min: f64| format!("/v1/listings?context=1024&concurrency=2&min_total_tok_s={min}");
    let found: Value = app.get_json(&search(measured - 1.0), None).await;
    assert_eq!(found["items"][0]["id"], listing_id.as_str(), "{found}");
    let figures = &found["items"][0]["match"];
    assert!((figures["total_tok_s"].as_f64().unwrap() - measured).abs() < 1e-6);
    // 150 cents per GPU-hour, 1 GPU: 150 / (tok/s × 3600) per token, × 10⁶.
    let per_mtok = 150.0 / (measured * 3600.0) * 1e6;
    assert!((figures["price_per_mtok"].as_f64().unwrap() - per_mtok).abs() < 1e-6);
    // The hit is the listing as anyone reads it (its JSON is written once and kept with the
    // record search holds), with its badge's age counted at each search, not when written.
    let mut hit = found["items"][0].clone();
    hit.as_object_mut().unwrap().remove("match");
    let age = |l: &mut Value| l["verification"]["age_s"].take().as_i64().unwrap();
    let mut read: Value = app
        .get_json(&format!("/v1/listings/{listing_id}"), None)
        .await;
    let (hit_age, read_age) = (age(&mut hit), age(&mut read));
    assert_eq!(hit, read);
    assert!((0..=read_age).contains(&hit_age), "{hit_age} {read_age}");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let mut again: Value = app.get_json(&search(measured - 1.0), None).await;
    assert!(age(&mut again["items"][0]) > hit_age, "{again}");
    let found: Value = app.get_json(&search(measured + 1.0), None).await;
    assert!(found["items"].as_array().unwrap().is_empty(), "{found}");

    // A new price moves the price per token; new hardware withdraws the verification.
    let path = format!("/v1/listings/{listing_id}");
    let patched = app
        .call(
            reqwest::Method::PATCH,
            &path,
            Some(&p.member.access_token),
            Some(json!({"price": {"amount_per_gpu_hour": 300}})),
        )
        .await;
    assert_eq!(patched.status(), 200);
    let found: Value = app.get_json(&search(0.0), None).await;
    let doubled = found["items"][0]["match"]["price_per_mtok"]
        .as_f64()
        .unwrap();
    assert!((doubled - 2.0 * per_mtok).abs() < 1e-6, "{found}");
    // The edited listing is a new record, its JSON written again.
    assert_eq!(found["items"][0]["price"]["amount_per_gpu_hour"], 300);
    let patched: Value = app
        .call(
            reqwest::Method::PATCH,
            &path,
            Some(&p.member.access_token),
            Some(json!({"hardware": {"gpu_count": 2}})),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(patched["verified"], false, "{patched}");
    let found: Value = app.get_json(&search(0.0), None).await;
    assert!(found["items"].as_array().unwrap().is_empty(), "{found}");
    let found: Value = app.get_json("/v1/listings?verified=true", None).await;
    assert!(found["items"].as_array().unwrap().is_empty(), "{found}");
    report_id
}

async fn verified_end_to_end_in_process(app: TestApp) {
    let report = verify_listing(&app).await;
    cell_figures_are_filled_again_from_the_envelope(&app, report.parse().unwrap()).await;
}

/// A report stored before its cells kept the judging figures (as one signed earlier would
/// be: the columns empty, the report not marked) gets them back from its signed envelope
/// at start-up, once.
async fn cell_figures_are_filled_again_from_the_envelope(app: &TestApp, report: uuid::Uuid) {
    let db = app.app.db();
    let stored = db.cells_of_report(report).await.unwrap();
    let decode = || {
        stored.iter().filter(|c| {
            c.phase == domain::CellPhase::Decode && c.status == domain::CellStatus::Valid
        })
    };
    assert!(decode().count() > 0);
    assert!(
        decode().all(|c| c.ttft_ms_p99.is_some() && c.tokens_per_chunk == Some(1.0)),
        "{stored:?}"
    );
    app.execute(
        "UPDATE report_cells SET ttft_ms_p99 = NULL, ttft_samples = NULL, itl_ms_p99 = NULL, tokens_per_chunk = NULL",
    )
    .await;
    app.execute("UPDATE reports SET cell_figures_filled = false")
        .await;
    assert_eq!(app.app.fill_cell_figures().await.unwrap(), 1);
    assert_eq!(db.cells_of_report(report).await.unwrap(), stored);
    assert_eq!(app.app.fill_cell_figures().await.unwrap(), 0, "once");
}

/// The distributed shape: Redis loses the run's delivery before any worker reads it; the
/// reconciler dispatches it again and one worker reports it, once. What the run measured is
/// `verified_end_to_end_in_process`'s subject: this one runs beside other tests, so it judges
/// the run's life cycle, not its figures.
async fn a_delivery_redis_lost_is_dispatched_again_and_reported_once(app: TestApp) {
    let backend = app.app.db().backend();
    drop(app);
    let namespace = format!("test-{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::spawn_with(backend, |config| {
        config.redis.url = Some(SecretString::from(redis_url()));
        config.redis.namespace = namespace.clone();
        config.verification.reconcile_interval_secs = 1;
    })
    .await;
    assert!(app.app.dispatcher().is_redis());
    let engine = start_engine("tiny");
    let p = provider(&app).await;
    let listing_id = list(&app, &p, &engine).await;
    let run_id = request_run(&app, &p, &listing_id).await;
    app.app.redis().unwrap().drop_stream().await.unwrap();
    let _workers = app.start_workers();
    let events = tokio::time::timeout(Duration::from_secs(90), follow(&app, &run_id))
        .await
        .expect("the reconciler dispatched the lost run again");
    let (kind, finished) = events.last().unwrap();
    assert_eq!(kind, "run_finished");
    assert_eq!(finished["status"], "succeeded", "{finished}");
    let run: Value = app
        .get_json(&format!("/v1/verifications/{run_id}"), None)
        .await;
    assert_eq!(run["attempts"], 1, "one worker measured it: {run}");
    let reports: Value = app
        .get_json(&format!("/v1/listings/{listing_id}/reports"), None)
        .await;
    let items = reports["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{reports}");
    assert_eq!(items[0]["id"], run["report_id"]);
    let report: Value = app
        .get_json(
            &format!("/v1/reports/{}", items[0]["id"].as_str().unwrap()),
            None,
        )
        .await;
    let keys: Vec<attest::PublishedKey> = app.get_json("/v1/signing-keys", None).await;
    let envelope: attest::Envelope = serde_json::from_value(report["envelope"].clone()).unwrap();
    attest::verify_statement(&envelope, &keys).expect("the report is signed by a published key");
}

/// Lists a machine on `engine` for the provider; returns the listing's id.
pub(crate) async fn list(app: &TestApp, p: &Provider, engine: &str) -> String {
    let listing: Value = app
        .post(
            "/v1/listings",
            Some(&p.owner.access_token),
            listing_body(&p.org, engine),
        )
        .await
        .json()
        .await
        .unwrap();
    listing["id"].as_str().unwrap().to_owned()
}

/// Requests a quick verification of the listing as the provider's owner; returns the run's id.
pub(crate) async fn request_run(app: &TestApp, p: &Provider, listing: &str) -> String {
    let run: Value = app
        .post(
            &format!("/v1/listings/{listing}/verifications"),
            Some(&p.owner.access_token),
            json!({"profile": "quick"}),
        )
        .await
        .json()
        .await
        .unwrap();
    run["id"].as_str().unwrap().to_owned()
}

/// An engine that answered when its run was asked for and is gone when the run starts: the
/// run's preflight fails it (`preflight_failed`) and nothing is measured; the public see the
/// code, members the checks that failed, and the run's preflight is the listing's latest.
async fn an_engine_gone_by_the_run_s_start_fails_its_preflight(app: TestApp) {
    let p = provider(&app).await;
    let engine = crate::badges::SwappableEngine::start(&start_engine("tiny")).await;
    let listing_id = list(&app, &p, &engine.url).await;
    let run_id = request_run(&app, &p, &listing_id).await;
    engine.swap_to("http://127.0.0.1:9");
    let _workers = app.start_workers();
    let events = follow(&app, &run_id).await;
    let (kind, finished) = events.last().unwrap();
    assert_eq!(kind, "run_finished");
    assert_eq!(finished["status"], "failed");
    // The public stream and view carry the code; the detail is for the provider's members.
    assert_eq!(finished["reason"], "preflight_failed", "{finished}");
    assert!(
        !events.iter().any(|(kind, _)| kind == "cell_started"),
        "nothing was measured: {events:?}"
    );
    let run: Value = app
        .get_json(&format!("/v1/verifications/{run_id}"), None)
        .await;
    assert_eq!(run["status"], "failed");
    assert_eq!(run["failure_code"], "preflight_failed");
    assert!(run.get("failure_reason").is_none(), "{run}");
    let seen_by_member: Value = app
        .get_json(
            &format!("/v1/verifications/{run_id}"),
            Some(&p.owner.access_token),
        )
        .await;
    assert!(
        seen_by_member["failure_reason"]
            .as_str()
            .unwrap()
            .contains("engine_reachable"),
        "{seen_by_member}"
    );
    assert!(run["report_id"].is_null());
    let listing: Value = app
        .get_json(&format!("/v1/listings/{listing_id}"), None)
        .await;
    assert_eq!(listing["verified"], false);
    let latest: Value = app
        .get_json(
            &format!("/v1/listings/{listing_id}/preflight"),
            Some(&p.member.access_token),
        )
        .await;
    assert_eq!(
        (&latest["kind"], &latest["run_id"], &latest["passed"]),
        (&json!("run"), &json!(run_id), &json!(false))
    );
}

async fn a_stopping_worker_gives_its_run_back(app: TestApp) {
    let engine = start_engine("tiny");
    let p = provider(&app).await;
    let listing_id = list(&app, &p, &engine).await;
    let run_id: uuid::Uuid = request_run(&app, &p, &listing_id).await.parse().unwrap();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let worker = {
        let app = app.app.clone();
        tokio::spawn(async move {
            app.execute_run(
                run_id.into(),
                "test-worker",
                Duration::from_secs(30),
                stopped,
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.send(true).unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(30), worker)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Some(app::trust::verification::Outcome::Released));
    let run: Value = app
        .get_json(&format!("/v1/verifications/{run_id}"), None)
        .await;
    assert_eq!(run["status"], "queued", "{run}");
    assert_eq!(run["attempts"], 1);
    assert!(run["report_id"].is_null());
    // Released, so the next claim succeeds at once (no lease to wait out).
    let claimed = app
        .app
        .db()
        .claim_run(
            run_id,
            "next",
            chrono::Utc::now() + chrono::Duration::seconds(30),
            chrono::Utc::now(),
        )
        .await
        .unwrap();
    assert!(claimed.is_some());
}

async fn a_new_signing_key_retires_the_old_one_which_stays_published(app: TestApp) {
    let first: Vec<Value> = app.get_json("/v1/signing-keys", None).await;
    assert_eq!(first.len(), 1);
    assert!(first[0]["retired_at"].is_null());
    assert_eq!(first[0]["algorithm"], "ed25519");
    let old_note = app
        .get("/v1/log/checkpoint", None)
        .await
        .text()
        .await
        .unwrap();

    // Restart with a configured key: it signs from now on; the generated one is retired.
    let dir = tempfile::tempdir().unwrap();
    let key = attest::KeyPair::generate().unwrap();
    let file = dir.path().join("signing.pem");
    std::fs::write(&file, key.to_pkcs8_pem().unwrap()).unwrap();
    let mut config = crate::helpers::test_config(app.database_url());
    config.keys.signing_key_file = Some(file);
    config.reports.log_checkpoint_secs = 1;
    let rotated = app::App::build(config, false).await.unwrap();
    let keys: Vec<Value> = app.get_json("/v1/signing-keys", None).await;
    assert_eq!(keys.len(), 2);
    let old = keys
        .iter()
        .find(|k| k["key_id"] == first[0]["key_id"])
        .unwrap();
    let new = keys.iter().find(|k| k["key_id"] == key.key_id()).unwrap();
    assert!(old["retired_at"].is_string());
    assert!(new["retired_at"].is_null());

    // Checkpoints: the new key signs the next one; the old key, still listed with its note
    // verifier key, verifies those it signed.
    let verifier =
        |k: &Value| tlog::NoteVerifier::parse(k["log_verifier_key"].as_str().unwrap()).unwrap();
    tlog::open_note(&old_note, &[verifier(old)]).unwrap();
    assert!(tlog::open_note(&old_note, &[verifier(new)]).is_err());
    assert_eq!(
        rotated.log_verifier_key().unwrap(),
        new["log_verifier_key"].as_str().unwrap()
    );
    rotated
        .db()
        .append_log_leaf(store::NewLeaf {
            report_id: uuid::Uuid::now_v7(),
            kind: "verification".into(),
            leaf: b"leaf".to_vec(),
            private: false,
            created_at: chrono::Utc::now(),
        })
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let next = rotated.checkpoint_log().await.unwrap();
    assert_eq!(next.size, 1);
    tlog::open_note(&next.note, &[verifier(new)]).unwrap();
    assert!(tlog::open_note(&next.note, &[verifier(old)]).is_err());
}

/// The worker loop itself (`worker::run`): stopped while it measures, it gives the run back
/// and returns within seconds; the next worker is handed the run at once (not when the
/// reconciler would find it waiting) and reports it, once.
async fn a_stopped_worker_loop_hands_its_run_to_the_next(app: TestApp) {
    let engine = start_engine("tiny");
    let p = provider(&app).await;
    let listing_id = list(&app, &p, &engine).await;
    let run_id = request_run(&app, &p, &listing_id).await;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let first = tokio::spawn(worker::run(
        app.app.clone(),
        worker::worker_name(0),
        stopped,
    ));
    wait_until_running(&app, &run_id).await;
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), first)
        .await
        .expect("the worker loop stops within seconds of its shutdown")
        .unwrap();
    let run: Value = app
        .get_json(&format!("/v1/verifications/{run_id}"), None)
        .await;
    assert_eq!(
        (&run["status"], &run["attempts"]),
        (&json!("queued"), &json!(1)),
        "{run}"
    );
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let second = tokio::spawn(worker::run(
        app.app.clone(),
        worker::worker_name(1),
        stopped,
    ));
    let events = tokio::time::timeout(Duration::from_secs(60), follow(&app, &run_id))
        .await
        .expect("the next worker took the run over without the reconciler");
    assert_eq!(
        events.last().unwrap().1["status"],
        "succeeded",
        "{events:?}"
    );
    let run: Value = app
        .get_json(&format!("/v1/verifications/{run_id}"), None)
        .await;
    assert_eq!(run["attempts"], 2, "{run}");
    assert!(run["report_id"].is_string(), "{run}");
    let reports: Value = app
        .get_json(&format!("/v1/listings/{listing_id}/reports"), None)
        .await;
    assert_eq!(reports["items"].as_array().unwrap().len(), 1);
    stop.send(true).unwrap();
    second.await.unwrap();
}

async fn a_non_compliant_run_is_reported_with_its_reasons_and_does_not_verify(app: TestApp) {
    // An engine that does not stream running usage: tokens can only be counted per chunk.
    let mut profile = sim::Profile::load("tiny").unwrap();
    profile.continuous_usage = false;
    let engine = start_engine_with(profile);
    let p = provider(&app).await;
    let listing_id = list(&app, &p, &engine).await;
    let run_id = request_run(&app, &p, &listing_id).await;
    let _workers = app.start_workers();
    let events = follow(&app, &run_id).await;
    let (_, finished) = events.last().unwrap();
    assert_eq!(
        finished["status"], "succeeded",
        "a report is made: {finished}"
    );
    let report: Value = app
        .get_json(
            &format!("/v1/reports/{}", finished["report_id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(report["compliant"], false);
    let reasons = report["summary"]["reasons"].to_string();
    assert!(reasons.contains("continuous usage"), "{reasons}");
    let listing: Value = app
        .get_json(&format!("/v1/listings/{listing_id}"), None)
        .await;
    assert_eq!(
        listing["verified"], false,
        "a non-compliant report does not verify"
    );
    // It is not on the leaderboard either.
    let board: Value = app.get_json("/v1/leaderboard", None).await;
    assert!(board["items"].as_array().unwrap().is_empty());
}

async fn cancelling_a_run_per_role_stops_it_without_a_report(app: TestApp) {
    let engine = start_engine("tiny");
    let p = provider(&app).await;
    let listing_id = list(&app, &p, &engine).await;
    let run_id = request_run(&app, &p, &listing_id).await;
    // The worker's own outcome is awaited below: what it wrote is known, not guessed after a
    // sleep.
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let worker = {
        let app = app.app.clone();
        let run: uuid::Uuid = run_id.parse().unwrap();
        tokio::spawn(async move {
            app.execute_run(run.into(), "test-worker", Duration::from_secs(30), stopped)
                .await
        })
    };
    wait_until_running(&app, &run_id).await;
    let path = format!("/v1/verifications/{run_id}/cancel");
    assert_problem(
        app.call(
            reqwest::Method::POST,
            &path,
            Some(&p.outsider.access_token),
            None,
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        app.call(reqwest::Method::POST, &path, None, None).await,
        401,
        "unauthenticated",
    )
    .await;
    let res = app
        .call(
            reqwest::Method::POST,
            &path,
            Some(&p.member.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 200);
    let cancelled: Value = res.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    assert_problem(
        app.call(
            reqwest::Method::POST,
            &path,
            Some(&p.owner.access_token),
            None,
        )
        .await,
        409,
        "run_finished",
    )
    .await;

    let events = follow(&app, &run_id).await;
    assert_eq!(events.last().unwrap().1["status"], "cancelled");
    // The worker notices within its cancel poll (half a second), stops measuring and finds
    // the run no longer its own: nothing is written.
    let outcome = tokio::time::timeout(Duration::from_secs(10), worker)
        .await
        .expect("the worker stops within seconds of the cancel")
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Some(app::trust::verification::Outcome::LostLease));
    let run: Value = app
        .get_json(&format!("/v1/verifications/{run_id}"), None)
        .await;
    assert_eq!(run["status"], "cancelled");
    assert!(run["report_id"].is_null());
    let reports: Value = app
        .get_json(&format!("/v1/listings/{listing_id}/reports"), None)
        .await;
    assert!(reports["items"].as_array().unwrap().is_empty());
}
