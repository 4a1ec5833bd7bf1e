//! Every engine the standard reads runs the whole loop — a verification, its badge, search by
//! engine, a renter's stream through the gateway — against the simulator speaking its
//! dialect (metrics, info endpoints, tokenizer and streams, each written from the engine's
//! source). vLLM's loop is `verified_end_to_end_in_process`'s; llama.cpp's also runs against
//! the real server (`tests/cli/real_llamacpp.rs`).

use serde_json::{Value, json};

use crate::helpers::{TestApp, start_engine_with};
use crate::verification::{follow, listing_body, provider};

measured_on!(
    sqlite = Sqlite;
    llamacpp_runs_the_whole_loop,
    sglang_runs_the_whole_loop,
    tgi_runs_the_whole_loop,
);

async fn llamacpp_runs_the_whole_loop(app: TestApp) {
    whole_loop(app, sim::Dialect::LlamaCpp, "llamacpp").await;
}

async fn sglang_runs_the_whole_loop(app: TestApp) {
    whole_loop(app, sim::Dialect::Sglang, "sglang").await;
}

async fn tgi_runs_the_whole_loop(app: TestApp) {
    whole_loop(app, sim::Dialect::Tgi, "tgi").await;
}

async fn whole_loop(app: TestApp, dialect: sim::Dialect, name: &str) {
    let mut profile = sim::Profile::load("tiny").unwrap();
    profile.dialect = dialect;
    profile.api_key = Some("engine-key".into());
    let engine = start_engine_with(profile);
    let p = provider(&app).await;
    let mut body = listing_body(&p.org, &engine);
    body["engine"]["api_key"] = json!("engine-key");
    body["engine"]["name"] = json!(name);
    let listing: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let listing_id = listing["id"].as_str().unwrap().to_owned();

    // A verification measures it by its dialect's rules and earns the badge.
    let run: Value = app
        .post(
            &format!("/v1/listings/{listing_id}/verifications"),
            Some(&p.owner.access_token),
            json!({"profile": "quick"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let run_id = run["id"].as_str().unwrap().to_owned();
    let _workers = app.start_workers();
    let events = follow(&app, &run_id).await;
    let (kind, finished) = events.last().unwrap();
    assert_eq!(kind, "run_finished", "{name}: {events:?}");
    assert_eq!(finished["status"], "succeeded", "{name}: {finished}");
    let report_id = finished["report_id"].as_str().unwrap().to_owned();
    let report: Value = app
        .get_json(&format!("/v1/reports/{report_id}"), None)
        .await;
    assert_eq!(report["compliant"], true, "{name}: {}", report["summary"]);
    let envelope: attest::Envelope = serde_json::from_value(report["envelope"].clone()).unwrap();
    let keys: Vec<attest::PublishedKey> = app.get_json("/v1/signing-keys", None).await;
    let (statement, _) = attest::verify_statement(&envelope, &keys).unwrap();
    let predicate = &statement["predicate"];
    assert_eq!(predicate["engine"]["name"], name, "{}", predicate["engine"]);
    assert_eq!(predicate["standard"], "standard/2");
    let decode = predicate["decode"].as_array().unwrap();
    assert_eq!(decode.len(), 6, "{name}");
    for cell in decode {
        assert_eq!(cell["status"], "valid", "{name}: {cell}");
        // tiny: 1000 / (8 + C) tok/s per stream, C streams.
        let c = cell["concurrency"].as_f64().unwrap();
        let expected = 1000.0 * c / (8.0 + c);
        let total = cell["total_tok_s"].as_f64().unwrap();
        assert!(
            (total / expected - 1.0).abs() < 0.15,
            "{name}: {total} tok/s at {c} streams, the engine makes {expected:.1}"
        );
    }
    let listing: Value = app
        .get_json(&format!("/v1/listings/{listing_id}"), None)
        .await;
    assert_eq!(
        listing["verification_state"], "verified",
        "{name}: {listing}"
    );

    // Found by its engine, and by no other.
    let found: Value = app
        .get_json(&format!("/v1/listings?engine={name}"), None)
        .await;
    assert_eq!(
        found["items"][0]["id"],
        listing_id.as_str(),
        "{name}: {found}"
    );
    let other = if name == "vllm" { "tgi" } else { "vllm" };
    let found: Value = app
        .get_json(&format!("/v1/listings?engine={other}"), None)
        .await;
    assert!(found["items"].as_array().unwrap().is_empty(), "{found}");

    // A renter streams through the gateway, metered by the engine's own usage.
    let renter = app.register(&format!("renter-{name}@example.com")).await;
    let booking = crate::gateway::book(&app, &renter, &json!(listing_id), 0).await;
    assert_eq!(booking["status"], "confirmed", "{booking}");
    let booking = booking["id"].as_str().unwrap().to_owned();
    let streamed = crate::gateway::chat(
        &app,
        &booking,
        &renter.access_token,
        json!({"model": "tiny", "messages": [{"role": "user", "content": "hello"}],
               "max_tokens": 8, "stream": true}),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(streamed.status(), 200, "{name}");
    let text = streamed.text().await.unwrap();
    assert!(text.trim_end().ends_with("data: [DONE]"), "{name}: {text}");
    assert!(
        !text.contains("\"choices\":[]"),
        "{name}: the usage the gateway asked for is not passed on: {text}"
    );
    // The gateway records the request once the stream has ended, after the client has its
    // last byte: asked until it is there (seen: not yet, right after `[DONE]`).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let usage = loop {
        let usage: Value = app
            .get_json(
                &format!("/v1/bookings/{booking}/usage"),
                Some(&renter.access_token),
            )
            .await;
        if usage["totals"]["requests"] != 0 || std::time::Instant::now() > deadline {
            break usage;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(usage["totals"]["requests"], 1, "{name}: {usage}");
    assert_eq!(usage["totals"]["output_tokens"], 8, "{name}: {usage}");
}
