//! Preflight: a listing's checks before any engine time is spent, each with its evidence and
//! what to do. Members ask for one; a verification request runs the engine's checks and is
//! refused when one fails; a run repeats them at its start; the agent's checks read what the
//! machine's agent last said.

use std::time::{Duration, Instant};

use chrono::Utc;
use reqwest::Method;
use serde_json::{Value, json};
use store::Backend;

use crate::helpers::{TestApp, assert_problem, start_engine, start_engine_with};
use crate::verification::{list, provider};

on_both_backends!(
    a_broken_engine_fails_its_preflight_naming_the_check_and_no_run_starts,
    the_agents_checks_read_its_clock_and_its_gpus_health,
);
on_backends!(a_preflight_spends_the_verification_budget);

const ENGINE_CHECKS: [&str; 5] = [
    "engine_reachable",
    "model_served",
    "metrics_dialect",
    "completion",
    "kv_capacity",
];
const AGENT_CHECKS: [&str; 4] = [
    "agent_online",
    "hardware_match",
    "clock_offset",
    "gpu_health",
];

/// The check named `name` of a preflight.
fn check<'a>(preflight: &'a Value, name: &str) -> &'a Value {
    preflight["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("no {name} in {preflight}"))
}

fn states(preflight: &Value) -> Vec<(String, String)> {
    preflight["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_owned(),
                c["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

async fn preflight(app: &TestApp, listing: &str, token: &str) -> Value {
    let res = app
        .call(
            Method::POST,
            &format!("/v1/listings/{listing}/preflight?profile=quick"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// A healthy engine passes every engine check (the agent's are skipped: no agent); one that
/// is gone fails `engine_reachable` with what to do, within 10 s, and its verification is
/// refused before any run is queued; a model not served, another engine's metrics and a KV
/// cache too small for some cells are each named. Members only.
async fn a_broken_engine_fails_its_preflight_naming_the_check_and_no_run_starts(app: TestApp) {
    let p = provider(&app).await;
    let healthy = list(&app, &p, &start_engine("tiny")).await;
    let passed = preflight(&app, &healthy, &p.member.access_token).await;
    assert_eq!(passed["passed"], true, "{passed}");
    assert_eq!(passed["kind"], "asked");
    let expected: Vec<(String, String)> = ENGINE_CHECKS
        .iter()
        .map(|c| (c.to_string(), "pass".to_owned()))
        .chain(
            AGENT_CHECKS
                .iter()
                .map(|c| (c.to_string(), "skip".to_owned())),
        )
        .collect();
    assert_eq!(states(&passed), expected, "{passed}");
    assert!(
        check(&passed, "metrics_dialect")["evidence"]
            .as_str()
            .unwrap()
            .contains("vllm's dialect"),
        "{passed}"
    );
    assert!(
        check(&passed, "agent_online")["evidence"]
            .as_str()
            .unwrap()
            .contains("no agent"),
        "{passed}"
    );
    let latest: Value = app
        .get_json(
            &format!("/v1/listings/{healthy}/preflight"),
            Some(&p.member.access_token),
        )
        .await;
    assert_eq!(latest["id"], passed["id"]);

    // Per role: members run and read it; no one else.
    let path = format!("/v1/listings/{healthy}/preflight");
    assert_problem(
        app.call(Method::POST, &path, None, None).await,
        401,
        "unauthenticated",
    )
    .await;
    assert_problem(
        app.call(Method::POST, &path, Some(&p.outsider.access_token), None)
            .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        app.get(&path, Some(&p.outsider.access_token)).await,
        403,
        "forbidden",
    )
    .await;
    let reader: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", p.org),
            Some(&p.owner.access_token),
            json!({"name": "r", "scopes": ["read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let reader = reader["key"].as_str().unwrap();
    assert_problem(
        app.call(Method::POST, &path, Some(reader), None).await,
        403,
        "scope_required",
    )
    .await;
    assert_eq!(app.get(&path, Some(reader)).await.status(), 200);
    assert_problem(
        app.call(
            Method::POST,
            &format!("{path}?profile=huge"),
            Some(&p.member.access_token),
            None,
        )
        .await,
        422,
        "validation_failed",
    )
    .await;

    // Gone: engine_reachable fails with steps, the rest are skipped, within 10 s.
    let gone = list(&app, &p, "http://127.0.0.1:9").await;
    let started = Instant::now();
    let failed = preflight(&app, &gone, &p.member.access_token).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(failed["passed"], false);
    let reachable = check(&failed, "engine_reachable");
    assert_eq!(reachable["state"], "fail", "{failed}");
    assert!(!reachable["suggested_steps"].as_array().unwrap().is_empty());
    for later in &ENGINE_CHECKS[1..] {
        assert_eq!(check(&failed, later)["state"], "skip", "{failed}");
    }
    // Its verification is refused with the checks, and no run is queued.
    let refused = assert_problem(
        app.post(
            &format!("/v1/listings/{gone}/verifications"),
            Some(&p.member.access_token),
            json!({"profile": "quick"}),
        )
        .await,
        409,
        "preflight_failed",
    )
    .await;
    assert_eq!(check(&refused, "engine_reachable")["state"], "fail");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("engine_reachable"),
        "{refused}"
    );
    assert!(app.column("verification_runs", "status").await.is_empty());
    let latest: Value = app
        .get_json(
            &format!("/v1/listings/{gone}/preflight"),
            Some(&p.member.access_token),
        )
        .await;
    assert_eq!(
        (&latest["kind"], &latest["passed"]),
        (&json!("request"), &json!(false))
    );

    // A model it does not serve: model_served fails naming what it serves; no completion.
    let mut other_model = crate::verification::listing_body(&p.org, &start_engine("tiny"));
    other_model["engine"]["model"] = json!("llama-70b");
    let other_model: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), other_model)
        .await
        .json()
        .await
        .unwrap();
    let other = preflight(
        &app,
        other_model["id"].as_str().unwrap(),
        &p.member.access_token,
    )
    .await;
    let served = check(&other, "model_served");
    assert_eq!(served["state"], "fail", "{other}");
    assert!(
        served["evidence"].as_str().unwrap().contains("\"tiny\""),
        "{other}"
    );
    assert_eq!(check(&other, "completion")["state"], "skip");

    // Another engine stated than its metrics speak.
    let mut stated = crate::verification::listing_body(&p.org, &start_engine("tiny"));
    stated["engine"]["name"] = json!("llamacpp");
    let stated: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), stated)
        .await
        .json()
        .await
        .unwrap();
    let stated = preflight(&app, stated["id"].as_str().unwrap(), &p.member.access_token).await;
    let dialect = check(&stated, "metrics_dialect");
    assert_eq!(dialect["state"], "fail", "{stated}");
    assert!(
        dialect["evidence"]
            .as_str()
            .unwrap()
            .contains("states llamacpp"),
        "{stated}"
    );

    // A KV cache of 1,600 tokens holds the quick profile's cells up to 1,280 tokens: the two
    // above are named, and it warns; one of 160 holds none, and it fails.
    for (blocks, state, named) in [
        (100, "warn", "context 1024 × concurrency 4"),
        (10, "fail", "context 0 × concurrency 1"),
    ] {
        let mut profile = sim::Profile::load("tiny").unwrap();
        profile.num_gpu_blocks = blocks;
        let small = list(&app, &p, &start_engine_with(profile)).await;
        let small = preflight(&app, &small, &p.member.access_token).await;
        let kv = check(&small, "kv_capacity");
        assert_eq!(kv["state"], state, "{small}");
        let evidence = kv["evidence"].as_str().unwrap();
        assert!(evidence.contains(named), "{small}");
        assert!(
            evidence.contains(&format!("{} tokens", blocks * 16)),
            "{small}"
        );
        assert_eq!(small["passed"], state != "fail");
    }
}

/// The agent's checks: online and the hardware it reports as claimed, its clock within a
/// second of the server's or not, its GPUs' health as it read them (its silence is
/// `uptime`'s subject).
async fn the_agents_checks_read_its_clock_and_its_gpus_health(app: TestApp) {
    let p = provider(&app).await;
    let listing = list(&app, &p, &start_engine("tiny")).await;
    let key = crate::agents::reporting_agent(
        &app,
        (&p.org, &p.owner.access_token),
        &listing,
        crate::agents::facts("NVIDIA GeForce RTX 3060", 12288, 1),
    )
    .await;
    let agent = format!("/v1/listings/{listing}/agent");
    let healthy = json!({"uuid": "GPU-0", "ecc_errors_uncorrected": 0,
        "throttle_reasons": ["gpu_idle"], "persistence_mode": true, "compute_processes": 1});
    let beat = |offset_ms: i64, gpus: Value| {
        let (app, path, key) = (&app, format!("{agent}/heartbeat"), key.clone());
        async move {
            let sent_at = Utc::now() + chrono::Duration::milliseconds(offset_ms);
            let res = app
                .post(
                    &path,
                    Some(&key),
                    json!({"agent_version": "1.0.0", "accounts": [], "sent_at": sent_at, "gpus": gpus}),
                )
                .await;
            assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
        }
    };
    beat(120, json!([healthy])).await;
    let well = preflight(&app, &listing, &p.member.access_token).await;
    assert_eq!(well["passed"], true, "{well}");
    for name in AGENT_CHECKS {
        assert_eq!(check(&well, name)["state"], "pass", "{well}");
    }
    assert!(
        check(&well, "hardware_match")["evidence"]
            .as_str()
            .unwrap()
            .contains("not an attestation")
    );

    // Five seconds ahead, and a GPU with uncorrected ECC errors, held down by heat, without
    // persistence, beside another process: clock_offset and gpu_health fail, naming each.
    let unwell = json!({"uuid": "GPU-0", "ecc_errors_uncorrected": 3,
        "throttle_reasons": ["sw_thermal_slowdown", "hw_thermal_slowdown"],
        "persistence_mode": false, "compute_processes": 2});
    beat(5_000, json!([unwell])).await;
    let ill = preflight(&app, &listing, &p.member.access_token).await;
    assert_eq!(ill["passed"], false);
    let clock = check(&ill, "clock_offset");
    assert_eq!(clock["state"], "fail", "{ill}");
    assert!(
        clock["evidence"].as_str().unwrap().contains("ahead"),
        "{ill}"
    );
    let health = check(&ill, "gpu_health");
    assert_eq!(health["state"], "fail", "{ill}");
    let evidence = health["evidence"].as_str().unwrap();
    for said in [
        "3 uncorrected ECC errors",
        "hw_thermal_slowdown",
        "persistence mode off",
        "2 compute processes",
    ] {
        assert!(evidence.contains(said), "{said}: {ill}");
    }
    assert!(
        health["suggested_steps"].as_array().unwrap().len() >= 4,
        "{ill}"
    );
    // The engine's checks say nothing of it: a verification is not refused for the machine's
    // clock (the run's report will say what it measured).
    assert_eq!(check(&ill, "completion")["state"], "pass");

    // An agent that could read no GPU's health says so with an empty list: it fails.
    beat(0, json!([])).await;
    let unread = preflight(&app, &listing, &p.member.access_token).await;
    assert_eq!(check(&unread, "gpu_health")["state"], "fail", "{unread}");

    // A throttle reason no GPU gives is refused, by name.
    let res = app
        .post(
            &format!("{agent}/heartbeat"),
            Some(&key),
            json!({"agent_version": "1.0.0", "gpus": [{"uuid": "GPU-0", "ecc_errors_uncorrected": 0,
                "throttle_reasons": ["overclocked"], "persistence_mode": true, "compute_processes": 0}]}),
        )
        .await;
    let problem = assert_problem(res, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "gpus.throttle_reasons");
}

/// A member's preflight spends a verification of the organisation's day: two allowed, the
/// third preflight and then a verification are refused, naming the budget.
async fn a_preflight_spends_the_verification_budget(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.limits.verification_runs_per_org_per_day = 2;
    })
    .await;
    let p = provider(&app).await;
    let listing = list(&app, &p, &start_engine("tiny")).await;
    for _ in 0..2 {
        preflight(&app, &listing, &p.member.access_token).await;
    }
    let path = format!("/v1/listings/{listing}/preflight");
    let refused = assert_problem(
        app.call(Method::POST, &path, Some(&p.member.access_token), None)
            .await,
        429,
        "rate_limited",
    )
    .await;
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("verification_runs_per_org_per_day"),
        "{refused}"
    );
    assert_problem(
        app.post(
            &format!("/v1/listings/{listing}/verifications"),
            Some(&p.member.access_token),
            json!({"profile": "quick"}),
        )
        .await,
        429,
        "rate_limited",
    )
    .await;
}
