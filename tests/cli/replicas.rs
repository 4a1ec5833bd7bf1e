//! Two `gpumarket serve` processes sharing a PostgreSQL and a Redis of the test's own count a booking's gateway
//! streams once: a booking with a share of two streams opens one through each, and a third
//! is refused by either; each stream is recorded at the load of both; a session ended on one
//! is refused by the other within a second; with Redis killed while streams are open, no
//! stream is admitted uncounted and the open ones end cleanly, each recorded once;
//! a listing edited through one is found with its new price through the other (search from
//! memory, kept current by the change feed) within a second.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use store::Db;
use store::tools::testing::{decode_cell, verified_report};

use crate::{Server, Sim, free_port, http};

/// A Redis server of this test's own, so that it can be stopped.
pub(crate) struct OwnRedis(Child);

impl OwnRedis {
    pub(crate) fn start(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
            ])
            .args(["--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (the tests' Redis) runs");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self(child)
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends a slow chat stream through `base`'s gateway; the response once headers arrived.
async fn stream(base: &str, booking: &str, token: &str) -> reqwest::Response {
    http()
        .post(format!("{base}/v1/gateway/{booking}/v1/chat/completions"))
        .bearer_auth(token)
        .json(&json!({"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 24, "stream": true}))
        .send()
        .await
        .unwrap()
}

async fn code_of(res: reqwest::Response) -> (u16, String) {
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    (status, body["code"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_api_processes_count_a_bookings_streams_once() {
    let database = crate::faults::OwnPostgres::start();
    let redis_port = free_port();
    let redis = OwnRedis::start(redis_port);
    // A slow engine: some 6 tokens a second, so a stream lasts seconds.
    let engine = Sim::start("tiny", 0.05).await;
    let dir = tempfile::tempdir().unwrap();
    let replica = || {
        let mut command = crate::faults::distributed(dir.path(), &database.url(), redis_port);
        command.env("GPUMARKET_RATE_LIMITS", "false");
        command
    };
    let (mut a, mut b) = (Server::start(replica()), Server::start(replica()));
    a.wait_until_up().await;
    b.wait_until_up().await;

    let client = http();
    let post = |path: &str, token: Option<&str>, body: Value| {
        let mut request = client.post(format!("{}{path}", a.base)).json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let register = |email: &str| {
        post(
            "/v1/auth/register",
            None,
            json!({"email": email, "password": "correct horse battery", "name": "x"}),
        )
    };
    let provider = register("p@example.com").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let org = post("/v1/orgs", Some(&provider), json!({"name": "P"})).await;
    let listing = post("/v1/listings", Some(&provider), json!({
        "org_id": org["id"], "title": "tiny", "region": "local",
        "hardware": {"gpu_model": "Sim", "gpu_count": 1, "vram_gb": 1, "cpu_model": "x", "ram_gb": 1},
        "price": {"amount_per_gpu_hour": 10, "currency": "USD"},
        "engine": {"base_url": engine.base, "model": "tiny"},
    }))
    .await;
    // Its report ran two streams at once: a booking of the machine gets a share of two.
    let db = Db::connect(&database.url()).await.unwrap();
    let cells = vec![decode_cell(0, 1, 6.0), decode_cell(0, 2, 12.0)];
    verified_report(&db, listing["id"].as_str().unwrap().parse().unwrap(), cells)
        .await
        .unwrap();
    // Search from memory: B finds the listing A created and the report written behind both
    // (the change feed), then its new price within a second of A's edit.
    let listing_id = listing["id"].as_str().unwrap().to_owned();
    let price_on_b = || async {
        let (_, page) = b.get("/v1/listings?gpu_model=Sim&verified=true").await;
        page["items"]
            .as_array()
            .and_then(|items| items.iter().find(|hit| hit["id"] == listing_id.as_str()))
            .map(|hit| hit["price"]["amount_per_gpu_hour"].clone())
    };
    let deadline = Instant::now() + Duration::from_secs(1);
    while price_on_b().await != Some(json!(10)) {
        assert!(
            Instant::now() < deadline,
            "B did not find the verified listing within 1 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let edited = client
        .patch(format!("{}/v1/listings/{listing_id}", a.base))
        .bearer_auth(&provider)
        .json(&json!({"price": {"amount_per_gpu_hour": 25, "currency": "USD"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(edited.status(), 200);
    let edited_at = Instant::now();
    while price_on_b().await != Some(json!(25)) {
        assert!(
            edited_at.elapsed() < Duration::from_secs(1),
            "B still found the old price after a second"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let renter = register("r@example.com").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let starts = chrono::Utc::now();
    let booking: Value = client
        .post(format!("{}/v1/bookings", a.base))
        .bearer_auth(&renter)
        .header("idempotency-key", "two-replicas")
        .json(&json!({
            "listing_id": listing["id"], "gpu_count": 1,
            "starts_at": starts, "ends_at": starts + chrono::Duration::hours(1),
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(booking["status"], "confirmed", "{booking}");
    let booking = booking["id"].as_str().unwrap().to_owned();

    // One stream through each process, each holding its place while it streams.
    let mut open = Vec::new();
    for server in [&a, &b] {
        let mut res = stream(&server.base, &booking, &renter).await;
        assert_eq!(res.status(), 200);
        assert!(!res.chunk().await.unwrap().unwrap().is_empty());
        open.push(res);
    }
    for server in [&a, &b] {
        let refused = code_of(stream(&server.base, &booking, &renter).await).await;
        assert_eq!(refused, (429, "rate_limited".to_owned()));
    }
    for mut res in open {
        while res.chunk().await.unwrap().is_some() {}
    }
    // Both were served while two streams were open to the machine.
    let id: uuid::Uuid = booking.parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let loads = loop {
        let rows = db
            .gateway_requests_of(id, starts - chrono::Duration::hours(1), 10)
            .await
            .unwrap();
        if rows.len() == 2 || Instant::now() > deadline {
            break rows.iter().map(|r| r.concurrency).collect::<Vec<_>>();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(loads, vec![2, 2]);

    // A session ended on one replica is refused on the other within a second.
    let signed_in: Value = post(
        "/v1/auth/login",
        None,
        json!({"email": "r@example.com", "password": "correct horse battery"}),
    )
    .await;
    let access = signed_in["access_token"].as_str().unwrap();
    let me = |server: &Server| {
        client
            .get(format!("{}/v1/me", server.base))
            .bearer_auth(access)
            .send()
    };
    assert_eq!(me(&b).await.unwrap().status(), 200);
    let out = client
        .post(format!("{}/v1/auth/logout", a.base))
        .json(&json!({"refresh_token": signed_in["refresh_token"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 204);
    let ended = Instant::now();
    while me(&b).await.unwrap().status() != 401 {
        assert!(
            ended.elapsed() < Duration::from_secs(1),
            "still accepted after a second"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Redis killed while a stream is open through each: neither process admits a stream it
    // cannot count, the open ones end cleanly, and each stream is recorded once.
    let mut open = Vec::new();
    for server in [&a, &b] {
        let mut res = stream(&server.base, &booking, &renter).await;
        assert_eq!(res.status(), 200);
        let first = res.chunk().await.unwrap().unwrap();
        open.push((res, String::from_utf8_lossy(&first).into_owned()));
    }
    drop(redis);
    for server in [&a, &b] {
        let res = stream(&server.base, &booking, &renter).await;
        assert_eq!(res.headers()["retry-after"], "1");
        assert_eq!(code_of(res).await, (503, "not_ready".to_owned()));
    }
    for (mut res, mut text) in open {
        while let Some(chunk) = res.chunk().await.unwrap() {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        assert!(text.trim_end().ends_with("data: [DONE]"), "{text}");
    }
    assert_eq!(recorded_once(&db, id, starts, 4).await, 4);
    // Planted: a stream recorded twice is seen.
    let mut twice = db
        .gateway_requests_of(id, starts - chrono::Duration::hours(1), 1)
        .await
        .unwrap()
        .remove(0);
    twice.id = uuid::Uuid::now_v7();
    db.insert_gateway_request(twice).await.unwrap();
    assert_eq!(recorded_once(&db, id, starts, 4).await, 5);
    drop(engine);
}

/// The streams recorded for the booking, once `expected` are (or 10 s passed), and again a
/// second later: a stream recorded twice shows as more.
async fn recorded_once(
    db: &Db,
    booking: uuid::Uuid,
    starts: chrono::DateTime<chrono::Utc>,
    expected: usize,
) -> usize {
    let count = || async {
        db.gateway_requests_of(booking, starts - chrono::Duration::hours(1), 100)
            .await
            .unwrap()
            .len()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while count().await < expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    count().await
}
