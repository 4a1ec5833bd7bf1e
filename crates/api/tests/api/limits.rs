//! Limits and quotas: one open verification per listing, runs per organisation per day,
//! live event streams per client, and password hashing that a login flood cannot turn into
//! unbounded memory.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use store::Backend;

use crate::helpers::{PASSWORD, TestApp, assert_problem};

on_backends!(
    failed_logins_back_off_per_account_and_network,
    strangers_guessing_cannot_lock_the_owner_out,
    addresses_of_one_ipv6_network_share_one_budget,
);
use crate::verification::{list, provider, request_run};

/// Thirty racing requests to verify one listing make one run, and all thirty are told its id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_verification_requests_for_one_listing_make_one_run() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let app = TestApp::spawn(backend).await;
        let p = provider(&app).await;
        let listing = list(&app, &p, &crate::helpers::start_engine("tiny")).await;
        let path = format!("/v1/listings/{listing}/verifications");
        let requests = (0..30).map(|_| {
            let client = app.client.clone();
            let url = app.url(&path);
            let token = p.owner.access_token.clone();
            tokio::spawn(async move {
                let res = client
                    .post(url)
                    .bearer_auth(token)
                    .json(&json!({"profile": "quick"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), StatusCode::ACCEPTED);
                res.json::<Value>().await.unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
        });
        let mut ids = Vec::new();
        for request in requests {
            ids.push(request.await.unwrap());
        }
        ids.dedup();
        assert_eq!(ids.len(), 1, "{backend:?}: {ids:?}");
        assert_eq!(
            app.column("verification_runs", "status").await,
            vec!["queued"],
            "{backend:?}"
        );
    }
}

/// An organisation's runs per day are capped, however many of its listings ask at once; the
/// answer says when to come back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_organisation_runs_out_of_daily_verification_runs() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let app = TestApp::spawn_with(backend, |c| {
            c.limits.verification_runs_per_org_per_day = 2;
        })
        .await;
        let p = provider(&app).await;
        let engine = crate::helpers::start_engine("tiny");
        let mut listings = Vec::new();
        for _ in 0..8 {
            listings.push(list(&app, &p, &engine).await);
        }
        // Eight listings of one organisation ask at once: two runs, six refusals.
        let requests = listings.iter().map(|listing| {
            let request = app
                .client
                .post(app.url(&format!("/v1/listings/{listing}/verifications")))
                .bearer_auth(&p.owner.access_token)
                .json(&json!({"profile": "quick"}));
            tokio::spawn(async move { request.send().await.unwrap() })
        });
        let mut refusals = Vec::new();
        let mut accepted = 0;
        for request in requests {
            let res = request.await.unwrap();
            match res.status() {
                StatusCode::ACCEPTED => accepted += 1,
                _ => refusals.push(res),
            }
        }
        assert_eq!((accepted, refusals.len()), (2, 6), "{backend:?}");
        assert_eq!(app.column("verification_runs", "status").await.len(), 2);
        for res in refusals {
            let retry_after: u64 = res.headers()["retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(
                retry_after > 23 * 3600 && retry_after <= 24 * 3600,
                "{retry_after}"
            );
            let problem = assert_problem(res, 429, "rate_limited").await;
            assert!(
                problem["detail"]
                    .as_str()
                    .unwrap()
                    .contains("verification_runs_per_org_per_day"),
                "{problem}"
            );
        }
    }
}

/// Two hundred live event streams from one address: twenty are served, the rest refused; a
/// closed one gives its place back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_beyond_the_per_client_cap_are_refused() {
    let app =
        TestApp::spawn_with(Backend::Sqlite, |c| c.limits.event_streams_per_client = 20).await;
    let p = provider(&app).await;
    let listing = list(&app, &p, &crate::helpers::start_engine("tiny")).await;
    let run = request_run(&app, &p, &listing).await;
    let path = format!("/v1/verifications/{run}/events");
    let mut open = Vec::new();
    let mut refused = 0;
    for _ in 0..200 {
        let res = app
            .client
            .get(app.url(&path))
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .unwrap();
        if res.status() == StatusCode::OK {
            open.push(res);
        } else {
            assert_eq!(res.headers()["retry-after"], "5");
            assert_problem(res, 429, "rate_limited").await;
            refused += 1;
        }
    }
    assert_eq!((open.len(), refused), (20, 180));
    drop(open.pop());
    // The server notices the closed connection when it next writes to it (a keep-alive or
    // an event); a new stream is taken as soon as the place is free.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let res = app.client.get(app.url(&path)).send().await.unwrap();
        if res.status() == StatusCode::OK {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no place came free");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The process's peak resident memory, in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024.0
}

/// Five hundred logins at once wait their turn for the password hasher instead of each
/// taking its 19 MiB: the server stays under 500 MB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_flood_keeps_memory_bounded() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    app.register("flood@example.com").await;
    let logins = (0..500).map(|n| {
        let client = app.client.clone();
        let url = app.url("/v1/auth/login");
        tokio::spawn(async move {
            let password = if n % 2 == 0 {
                PASSWORD
            } else {
                "wrong password here"
            };
            client
                .post(url)
                .timeout(Duration::from_secs(120))
                .json(&json!({"email": "flood@example.com", "password": password}))
                .send()
                .await
                .map(|r| r.status())
        })
    });
    let mut answered = 0;
    for login in logins {
        if let Ok(Ok(status)) = login.await {
            assert!(status.is_success() || status.is_client_error(), "{status}");
            answered += 1;
        }
    }
    assert_eq!(answered, 500);
    let peak = peak_rss_mb();
    assert!(peak < 500.0, "the process peaked at {peak:.0} MB");
}

/// A client behind the test's trusted proxy (127.0.0.1), at `from`.
fn login_from<'a>(
    app: &'a TestApp,
    email: &'a str,
    password: &'a str,
    from: &'a str,
) -> impl std::future::Future<Output = reqwest::Response> + 'a {
    let request = app
        .client
        .post(app.url("/v1/auth/login"))
        .header("x-forwarded-for", from)
        .json(&json!({"email": email, "password": password}));
    async move { request.send().await.unwrap() }
}

fn retry_after(res: &reqwest::Response) -> u64 {
    res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Failed logins of one account from one network back off: each failure doubles the wait
/// (1 s, 2 s, …), answered 429 with `Retry-After` before the password is looked at; a
/// success ends it; other networks are not held back.
async fn failed_logins_back_off_per_account_and_network(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_auth_per_minute = 1000;
        c.server.trusted_proxies = "127.0.0.1".to_owned();
    })
    .await;
    app.register("ada@example.com").await;
    let ada = "ada@example.com";
    let wrong = "wrong password 123";
    let here = "203.0.113.1";
    assert_eq!(login_from(&app, ada, wrong, here).await.status(), 401);
    // At once again: even the right password waits its second.
    let res = login_from(&app, ada, PASSWORD, here).await;
    assert_eq!(retry_after(&res), 1);
    assert_problem(res, 429, "rate_limited").await;
    // Another network is not held back.
    assert_eq!(
        login_from(&app, ada, PASSWORD, "198.51.100.7")
            .await
            .status(),
        200
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(login_from(&app, ada, wrong, here).await.status(), 401);
    let res = login_from(&app, ada, wrong, here).await;
    assert_eq!(res.status(), 429);
    assert_eq!(
        retry_after(&res),
        2,
        "the second failure waits twice as long"
    );
    tokio::time::sleep(Duration::from_millis(2100)).await;
    // A success ends the back-off.
    assert_eq!(login_from(&app, ada, PASSWORD, here).await.status(), 200);
    assert_eq!(login_from(&app, ada, wrong, here).await.status(), 401);
    assert_eq!(retry_after(&login_from(&app, ada, wrong, here).await), 1);
}

/// Thirty networks guessing one account's password meet the account's cap, while the
/// owner's network, which signed in before, still signs in.
async fn strangers_guessing_cannot_lock_the_owner_out(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_auth_per_minute = 1000;
        c.limits.login_failures_per_account_per_hour = 20;
        c.server.trusted_proxies = "127.0.0.1".to_owned();
    })
    .await;
    app.register("ada@example.com").await;
    let ada = "ada@example.com";
    let home = "2001:db8:aaaa:1::10";
    assert_eq!(login_from(&app, ada, PASSWORD, home).await.status(), 200);
    let mut statuses = Vec::new();
    for n in 0..30 {
        let stranger = format!("198.51.100.{n}");
        statuses.push(
            login_from(&app, ada, "guess guess guess", &stranger)
                .await
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses[..20], [401; 20], "{statuses:?}");
    assert_eq!(statuses[20..], [429; 10], "{statuses:?}");
    // A stranger with the right password is held back too...
    assert_eq!(
        login_from(&app, ada, PASSWORD, "192.0.2.99").await.status(),
        429
    );
    // ...the owner, from another address of their home /64, is not.
    assert_eq!(
        login_from(&app, ada, PASSWORD, "2001:db8:aaaa:1::77")
            .await
            .status(),
        200
    );
}

/// Every address of one IPv6 /64 spends one budget; the next /64 has its own.
async fn addresses_of_one_ipv6_network_share_one_budget(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_reads_per_minute = 50;
        c.server.trusted_proxies = "127.0.0.1".to_owned();
    })
    .await;
    let mut ok = 0;
    let started = std::time::Instant::now();
    for n in 1..=200u32 {
        let res = app
            .client
            .get(app.url("/v1/signing-keys"))
            .header("x-forwarded-for", format!("2001:db8:1:2:{n:x}::{n:x}"))
            .send()
            .await
            .unwrap();
        match res.status().as_u16() {
            200 => ok += 1,
            429 => {}
            other => panic!("{other}"),
        }
    }
    // One budget: a burst of 50, refilled at 50 a minute while the requests are sent (a
    // loaded machine takes seconds over them).
    let refilled = (started.elapsed().as_secs_f64() * 50.0 / 60.0).ceil() as u32;
    assert!(
        (50..=50 + refilled).contains(&ok),
        "200 addresses of one /64, one budget of 50 (+{refilled} refilled): {ok} answered"
    );
    let res = app
        .client
        .get(app.url("/v1/signing-keys"))
        .header("x-forwarded-for", "2001:db8:1:3::1")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "another /64");
}

/// The site's pages spend the read budget, those that search the search budget (as much as
/// the API's search: one budget for both); health, metrics, docs and assets spend none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_spend_the_read_budget() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_reads_per_minute = 3;
        c.limits.rate_limit_search_per_minute = 4;
    })
    .await;
    let mut statuses = Vec::new();
    for path in ["/", "/?source=community", "/", "/"] {
        statuses.push(app.get(path, None).await.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 429]);
    let mut searched = Vec::new();
    // Encoded paths are the same pages and the same budget.
    for path in [
        "/marketplace",
        "/v1/l%69stings",
        "/m%61rketplace?sort=tok_s",
        "/pl%61nner",
        "/marketplace",
    ] {
        let res = app.get(path, None).await;
        searched.push(res.status().as_u16());
        assert!(
            res.headers()["ratelimit-policy"]
                .to_str()
                .unwrap()
                .starts_with("\"search\";q=4;"),
            "{path}"
        );
    }
    assert_eq!(searched, [200, 200, 200, 200, 429]);
    for path in [
        "/healthz",
        "/readyz",
        "/metrics",
        "/assets/site.css",
        "/openapi.json",
    ] {
        assert_eq!(app.get(path, None).await.status(), 200, "{path}");
    }
}

/// Two API replicas on one Redis spend one budget: five reads a minute means five in all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_on_one_redis_share_one_budget() {
    let namespace = format!("ratetest-{}", uuid::Uuid::new_v4().simple());
    let replica = |namespace: String| async move {
        TestApp::spawn_with(Backend::Sqlite, move |c| {
            c.limits.rate_limits = true;
            c.limits.rate_limit_reads_per_minute = 5;
            c.redis.url = Some(crate::helpers::redis_url().into());
            c.redis.namespace = namespace;
        })
        .await
    };
    let a = replica(namespace.clone()).await;
    let b = replica(namespace).await;
    let mut statuses = Vec::new();
    for n in 0..8 {
        let app = if n % 2 == 0 { &a } else { &b };
        let res = app.get("/v1/signing-keys", None).await;
        if res.status() == 200 {
            assert_eq!(res.headers()["ratelimit-policy"], "\"reads\";q=5;w=60");
        }
        statuses.push(res.status().as_u16());
    }
    assert_eq!(statuses, vec![200, 200, 200, 200, 200, 429, 429, 429]);
    let res = a.get("/v1/signing-keys", None).await;
    assert!(res.headers()["ratelimit"].to_str().unwrap().contains("r=0"));
    assert!(res.headers().contains_key("retry-after"));
}

/// Every operation documents its 429.
#[test]
fn every_route_documents_rate_limited() {
    let doc: Value = serde_json::from_str(&api::openapi_json().unwrap()).unwrap();
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            operations += 1;
            assert!(
                operation["responses"].get("429").is_some(),
                "{method} {path} does not document 429"
            );
        }
    }
    assert!(operations > 40, "{operations}");
}

/// Inventing credentials buys no budget: past four credentials' worth, the client address
/// itself is limited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn made_up_credentials_do_not_escape_the_address_ceiling() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_search_per_minute = 2;
    })
    .await;
    let mut statuses = Vec::new();
    for n in 0..10 {
        let res = app
            .client
            .get(app.url("/v1/listings"))
            .bearer_auth(format!("gpm_made_up_{n}"))
            .send()
            .await
            .unwrap();
        statuses.push(res.status().as_u16());
    }
    assert_eq!(statuses[..8], [200; 8], "{statuses:?}");
    assert_eq!(statuses[8..], [429, 429], "{statuses:?}");
}

/// The API keys this process has looked up in the database.
async fn key_lookups(app: &TestApp) -> u64 {
    let text = app.get("/metrics", None).await.text().await.unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("gpumarket_api_key_lookups_total "))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// A made-up API key costs no database read: a mistyped one fails its checksum, one looked
/// up and missing is remembered, and a flood of fresh ones spends the address's budget
/// before any is read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn made_up_api_keys_cost_at_most_the_address_budget() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_reads_per_minute = 25;
        c.limits.rate_limit_writes_per_minute = 25;
    })
    .await;
    let ada = app.register("ada@example.com").await;
    let key: Value = app
        .post(
            "/v1/api-keys",
            Some(&ada.access_token),
            json!({"name": "script"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let key = key["key"].as_str().unwrap().to_owned();
    assert_eq!(key.len(), "gpm_".len() + 43 + 6, "{key}");
    assert_eq!(app.get("/v1/me", Some(&key)).await.status(), 200);
    let before = key_lookups(&app).await;
    assert!(before >= 1);
    // One character changed: refused from its checksum, nothing read.
    let mut typo = key.clone().into_bytes();
    typo[8] = if typo[8] == b'a' { b'b' } else { b'a' };
    let typo = String::from_utf8(typo).unwrap();
    assert_problem(app.get("/v1/me", Some(&typo)).await, 401, "invalid_token").await;
    assert_eq!(key_lookups(&app).await, before);
    // A key of the old shape (no checksum) is read once, then remembered as missing.
    let old_shape = format!("gpm_{}", "A".repeat(43));
    for _ in 0..3 {
        assert_problem(
            app.get("/v1/me", Some(&old_shape)).await,
            401,
            "invalid_token",
        )
        .await;
    }
    assert_eq!(key_lookups(&app).await, before + 1);
    // 10,000 fresh ones from one address: at most its budget (4 credentials' worth) is read.
    let mut statuses = std::collections::BTreeMap::new();
    let started = std::time::Instant::now();
    for n in 0..10_000 {
        let junk = format!("gpm_{:0>43}", n);
        *statuses
            .entry(app.get("/v1/me", Some(&junk)).await.status().as_u16())
            .or_insert(0) += 1;
    }
    let read = key_lookups(&app).await - before - 1;
    // The budget: a burst of 100 (four credentials of 25 a minute), refilled at 100 a minute.
    let budget = 100 + (started.elapsed().as_secs_f64() * 100.0 / 60.0).ceil() as u64;
    assert!(
        read <= budget,
        "{read} lookups, budget {budget}; {statuses:?}"
    );
    assert!(statuses[&429] >= 10_000 - budget, "{statuses:?}");
}

/// An organisation key stops working when the admin who made it leaves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_former_admins_organisation_keys_stop_working() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let p = provider(&app).await;
    // The member becomes an admin, makes a key, then leaves.
    let res = app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/orgs/{}/members/{}", p.org, p.member.user_id),
            Some(&p.owner.access_token),
            Some(json!({"role": "admin"})),
        )
        .await;
    assert_eq!(res.status(), 200);
    let key: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", p.org),
            Some(&p.member.access_token),
            json!({"name": "machine", "scopes": ["read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let key = key["key"].as_str().unwrap().to_owned();
    assert_eq!(
        app.get(&format!("/v1/orgs/{}", p.org), Some(&key))
            .await
            .status(),
        200
    );
    // A key lists no organisations of the person who made it.
    assert_problem(app.get("/v1/orgs", Some(&key)).await, 403, "scope_required").await;
    let res = app
        .call(
            reqwest::Method::DELETE,
            &format!("/v1/orgs/{}/members/{}", p.org, p.member.user_id),
            Some(&p.member.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        app.get(&format!("/v1/orgs/{}", p.org), Some(&key)).await,
        401,
        "invalid_token",
    )
    .await;
}

/// An organisation holds at most `max_listings_per_org` listings that are not delisted: six
/// racing creations under a quota of three make three (before, all six were made);
/// delisting one makes room for one more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_organisation_holds_at_most_its_listing_quota() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let app = TestApp::spawn_with(backend, |c| c.limits.max_listings_per_org = 3).await;
        let p = provider(&app).await;
        let body = crate::verification::listing_body(&p.org, "http://127.0.0.1:9");
        let creations = (0..6).map(|_| {
            let request = app
                .client
                .post(app.url("/v1/listings"))
                .bearer_auth(&p.owner.access_token)
                .json(&body);
            tokio::spawn(async move { request.send().await.unwrap() })
        });
        let mut made = Vec::new();
        let mut refused = 0;
        for creation in creations {
            let res = creation.await.unwrap();
            if res.status() == StatusCode::CREATED {
                let listing: Value = res.json().await.unwrap();
                made.push(listing["id"].as_str().unwrap().to_owned());
            } else {
                let problem = assert_problem(res, 409, "listing_quota_reached").await;
                assert!(
                    problem["detail"].as_str().unwrap().contains('3'),
                    "{problem}"
                );
                refused += 1;
            }
        }
        assert_eq!((made.len(), refused), (3, 3), "{backend:?}");
        let res = app
            .call(
                reqwest::Method::DELETE,
                &format!("/v1/listings/{}", made[0]),
                Some(&p.owner.access_token),
                None,
            )
            .await;
        assert!(res.status().is_success(), "{}", res.status());
        let again = app
            .post("/v1/listings", Some(&p.owner.access_token), body.clone())
            .await;
        assert_eq!(again.status(), StatusCode::CREATED, "{backend:?}");
    }
}
