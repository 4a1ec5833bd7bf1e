//! Webhooks survive a crash: `gpumarket serve` SIGKILLed right after an event's transaction
//! committed (the answer to the request that made it) delivers the event once restarted —
//! the outbox is written with the change — at most twice under one `webhook-id`, each
//! delivery verified by the `standardwebhooks` package.

use std::time::Duration;

use serde_json::{Value, json};
use store::Backend;
use store::tools::testing::TestDatabase;

use crate::{Server, gpumarket, http};

#[path = "../webhooks/receiver.rs"]
pub(crate) mod receiver;
use receiver::Receiver;

async fn post(base: &str, path: &str, token: Option<&str>, body: Value) -> Value {
    let mut request = http().post(format!("{base}{path}")).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let res = request.send().await.unwrap();
    assert!(res.status().is_success(), "{path}: {}", res.status());
    res.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_committed_before_a_crash_is_delivered_after_the_restart() {
    let database = TestDatabase::new(Backend::Postgres).await.unwrap();
    let receiver = Receiver::start(0);
    let dir = tempfile::tempdir().unwrap();
    let serve = || {
        let mut command = gpumarket(dir.path());
        command
            .env("GPUMARKET_DATABASE_URL", database.url())
            .env("GPUMARKET_WEBHOOK_ALLOW_PRIVATE", "true")
            .env("GPUMARKET_WEBHOOK_RETRY_SCHEDULE_SECS", "1,1")
            // An attempt cut by the kill is claimed again 5 s after its timeout.
            .env("GPUMARKET_WEBHOOK_TIMEOUT_MS", "1000")
            .env("GPUMARKET_ENGINE_ALLOW_PRIVATE", "true");
        Server::start(command)
    };
    let mut server = serve();
    server.wait_until_up().await;
    let base = server.base.clone();
    let user = post(
        &base,
        "/v1/auth/register",
        None,
        json!({"email": "p@example.com", "password": "correct horse battery staple", "name": "p"}),
    )
    .await;
    let token = user["access_token"].as_str().unwrap().to_owned();
    let org = post(&base, "/v1/orgs", Some(&token), json!({"name": "P"})).await;
    let org = org["id"].as_str().unwrap();
    let endpoint = post(
        &base,
        &format!("/v1/orgs/{org}/webhook-endpoints"),
        Some(&token),
        json!({"url": receiver.url("org"), "events": ["listing.maintenance"]}),
    )
    .await;
    receiver.set_secret("org", endpoint["secret"].as_str().unwrap());
    let listing = post(
        &base,
        "/v1/listings",
        Some(&token),
        json!({
            "org_id": org, "title": "machine", "region": "eu",
            "hardware": {"gpu_model": "L4", "gpu_count": 1, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
            "price": {"amount_per_gpu_hour": 150, "currency": "USD"},
            "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
        }),
    )
    .await;
    let listing = listing["id"].as_str().unwrap();
    let from = chrono::Utc::now() + chrono::Duration::days(2);
    let window = post(
        &base,
        &format!("/v1/listings/{listing}/maintenance"),
        Some(&token),
        json!({"from": from, "until": from + chrono::Duration::hours(1), "reason": "r"}),
    )
    .await;
    // The transaction committed (it answered): killed at once, before its worker's next
    // look for events (every second by default).
    drop(server);
    let sent_before = receiver.received().len();
    let db = store::Db::connect(database.url()).await.unwrap();
    let outbox = db
        .webhook_events_of_kind("listing.maintenance")
        .await
        .unwrap();
    assert_eq!(outbox.len(), 1, "the event was committed with the window");

    let mut server = serve();
    server.wait_until_up().await;
    let got = receiver
        .delivered("org", "listing.maintenance", Duration::from_secs(30))
        .await;
    assert!(
        (1..=2).contains(&got.len()),
        "at most twice under one id: {got:?}"
    );
    assert!(
        got.iter()
            .all(|r| r["verified"] == true && r["id"] == got[0]["id"])
    );
    assert_eq!(
        got[0]["payload"]["data"]["window_id"], window["window"]["id"],
        "{got:?}"
    );
    assert!(
        sent_before <= 1,
        "{sent_before} deliveries before the restart"
    );
    server.stop();
}
