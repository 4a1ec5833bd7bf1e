//! Badges that mean "still true": edits during a run, expiry, unannounced spot checks that
//! renew or demote, what renters see, and the engine key and address on the way.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use chrono::Utc;
use serde_json::{Value, json};
use store::Backend;
use uuid::Uuid;

use crate::helpers::{TestApp, start_engine};
use crate::verification::{follow, list, listing_body, provider, request_run};

/// A TCP proxy whose upstream can be swapped: the provider replacing what answers at the
/// listed address. Every new connection goes to the current upstream.
pub(crate) struct SwappableEngine {
    pub(crate) url: String,
    upstream: Arc<Mutex<SocketAddr>>,
}

impl SwappableEngine {
    pub(crate) async fn start(upstream: &str) -> Self {
        let upstream = Arc::new(Mutex::new(address_of(upstream)));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let target = Arc::clone(&upstream);
        tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                let to = *target.lock().unwrap();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Self { url, upstream }
    }

    pub(crate) fn swap_to(&self, upstream: &str) {
        *self.upstream.lock().unwrap() = address_of(upstream);
    }
}

fn address_of(url: &str) -> SocketAddr {
    url.trim_start_matches("http://").parse().unwrap()
}

/// Books one GPU of `listing` for an hour, starting in an hour.
async fn book_an_hour(app: &TestApp, token: &str, listing: &str) -> reqwest::Response {
    let starts = Utc::now() + chrono::Duration::hours(1);
    app.client
        .post(app.url("/v1/bookings"))
        .bearer_auth(token)
        .header("idempotency-key", Uuid::now_v7().to_string())
        .json(&json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts, "ends_at": starts + chrono::Duration::hours(1)}))
        .send()
        .await
        .unwrap()
}

/// A simulated engine of `profile` running `time_scale` times as fast as the profile says.
fn start_engine_at(profile: &str, time_scale: f64) -> String {
    let server = sim::serve(
        sim::Profile::load(profile).unwrap(),
        "127.0.0.1:0",
        time_scale,
    )
    .unwrap();
    let url = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    url
}

pub(crate) async fn badge_of(app: &TestApp, listing: &str, token: &str) -> Value {
    app.get_json(&format!("/v1/listings/{listing}/verification"), Some(token))
        .await
}

/// Waits until the listing's badge history has an entry of `kind`; returns the badge. A check
/// judged inconclusive instead (the measuring client was starved: the next one comes within
/// the hour) fails the test at once, so that its retry comes sooner.
pub(crate) async fn wait_for_check(app: &TestApp, listing: &str, token: &str, kind: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(150);
    loop {
        let badge = badge_of(app, listing, token).await;
        let history = badge["history"].as_array().unwrap();
        if history.iter().any(|c| c["kind"] == kind) {
            return badge;
        }
        assert!(
            kind == "spot_check_inconclusive"
                || !history
                    .iter()
                    .any(|c| c["kind"] == "spot_check_inconclusive"),
            "the spot check was inconclusive (this machine starved the measuring client), not {kind}: {badge}"
        );
        assert!(Instant::now() < deadline, "no {kind} in {badge}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// What the tiny profile's engine measures at one stream, in tok/s (1000·c/(8+c) at c = 1):
/// 111.1 at its own speed, 55.6 at half of it.
const TINY_ONE_STREAM_TOK_S: f64 = 1000.0 / 9.0;

/// Verifies `listing` with a stored compliant report of one decode cell (no context, one
/// stream) at `tok_s`, as the worker would, without measuring (the spot checks are these
/// tests' subject), and brings its first spot check forward to now. Returns its badge.
async fn verified_at(app: &TestApp, owner: &str, listing: &str, tok_s: f64) -> Value {
    crate::marketplace::verified_with(
        app,
        listing,
        vec![crate::marketplace::decode_cell(0, 1, tok_s)],
    )
    .await;
    let id: Uuid = listing.parse().unwrap();
    let now = Utc::now();
    assert!(
        app.app
            .db()
            .spot_check_now(id, now, chrono::Duration::days(1))
            .await
            .unwrap()
    );
    let verified = badge_of(app, listing, owner).await;
    assert_eq!(verified["state"], "verified", "{verified}");
    verified
}

/// One listing, verified on an engine that is later swapped for one at half the speed: the
/// first spot check confirms the unchanged engine and renews the badge; a later one finds the
/// slower engine and demotes the listing; its renter sees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spot_checks_renew_an_unchanged_engine_and_demote_a_swapped_one() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.verification.reconcile_interval_secs = 1;
        c.verification.spot_check_every_secs = 2;
    })
    .await;
    let fast = start_engine_at("tiny", 1.0);
    let engine = SwappableEngine::start(&fast).await;
    let p = provider(&app).await;
    let listing = list(&app, &p, &engine.url).await;
    // Verified at 0.9 of what the engine measures: a check passes at its own speed (the floor
    // is 85 % of the verified figure) and fails at half of it.
    let verified = verified_at(
        &app,
        &p.owner.access_token,
        &listing,
        0.9 * TINY_ONE_STREAM_TOK_S,
    )
    .await;
    let _workers = app.start_workers();
    let first_expiry = verified["expires_at"].as_str().unwrap().to_owned();

    // A renter books it.
    let renter = app.register("renter@example.com").await;
    let booking: Value = book_an_hour(&app, &renter.access_token, &listing)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        booking["listing_verification_state"], "verified",
        "{booking}"
    );

    // Unchanged: the spot check passes and the badge lasts longer.
    let renewed = wait_for_check(&app, &listing, &p.owner.access_token, "spot_check_passed").await;
    assert_eq!(renewed["state"], "verified");
    assert!(
        renewed["expires_at"].as_str().unwrap() > first_expiry.as_str(),
        "{renewed}"
    );
    let passed = renewed["history"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "spot_check_passed")
        .unwrap()
        .clone();
    assert_eq!(passed["baseline_report_id"], verified["report_id"]);
    let spot_report: Value = app
        .get_json(
            &format!("/v1/reports/{}", passed["report_id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(spot_report["kind"], "spot_check");
    let spot_checks: Value = app
        .get_json(
            &format!("/v1/listings/{listing}/reports?kind=spot_check"),
            None,
        )
        .await;
    assert!(!spot_checks["items"].as_array().unwrap().is_empty());
    let listing_now: Value = app.get_json(&format!("/v1/listings/{listing}"), None).await;
    assert_eq!(
        listing_now["verification"]["report_id"], verified["report_id"],
        "a spot check never becomes the headline"
    );

    // Swapped for an engine at half the speed: demoted.
    let slow = start_engine_at("tiny", 0.5);
    engine.swap_to(&slow);
    let demoted = wait_for_check(&app, &listing, &p.owner.access_token, "demoted").await;
    assert_eq!(demoted["state"], "demoted", "{demoted}");
    let entry = demoted["history"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "demoted")
        .unwrap()
        .clone();
    assert!(
        entry["reason"]
            .as_str()
            .unwrap()
            .contains("of the verified"),
        "{entry}"
    );
    assert_eq!(entry["baseline_report_id"], verified["report_id"]);
    assert!(entry["report_id"].is_string(), "both reports are named");
    let public: Value = app.get_json(&format!("/v1/listings/{listing}"), None).await;
    assert_eq!(public["verified"], false);
    assert_eq!(public["verification_state"], "demoted");
    let found: Value = app.get_json("/v1/listings?verified=true", None).await;
    assert!(
        !found["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["id"] == listing.as_str()),
        "a demoted listing is no longer found as verified"
    );
    let board: Value = app.get_json("/v1/leaderboard", None).await;
    assert!(
        !board["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["listing_id"] == listing.as_str()),
        "a demoted listing's figures leave the leaderboard: {board}"
    );
    let seen: Value = app
        .get_json(
            &format!("/v1/bookings/{}", booking["id"].as_str().unwrap()),
            Some(&renter.access_token),
        )
        .await;
    assert_eq!(seen["listing_verification_state"], "demoted", "{seen}");
}

/// A worker that dies after storing a spot check's report but before judging it: the next
/// worker to take the run judges it from the stored report, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spot_check_whose_worker_died_before_its_verdict_is_judged_by_the_next() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let engine = start_engine("tiny");
    let p = provider(&app).await;
    let listing = list(&app, &p, &engine).await;
    let lease = Duration::from_secs(30);
    let (_stop, running) = tokio::sync::watch::channel(false);
    let execute = |run: Uuid, worker: &'static str| {
        let (app, running) = (app.app.clone(), running.clone());
        async move {
            app.execute_run(run.into(), worker, lease, running)
                .await
                .unwrap()
        }
    };
    // Verified well below what the engine measures, so the check passes with a margin.
    let verified_badge = verified_at(
        &app,
        &p.owner.access_token,
        &listing,
        0.5 * TINY_ONE_STREAM_TOK_S,
    )
    .await;

    // The spot check is due: the platform queues it and a worker runs it to its verdict.
    let now = Utc::now();
    let listing_id: Uuid = listing.parse().unwrap();
    let day = chrono::Duration::days(1);
    app.app.verification_upkeep().await.unwrap();
    let queued = app
        .app
        .db()
        .runs_needing_dispatch(now + chrono::Duration::hours(1), now)
        .await
        .unwrap();
    let [spot_check] = queued[..] else {
        panic!("one spot check queued: {queued:?}")
    };
    execute(spot_check, "w1").await;
    let passed = |badge: &Value| {
        badge["history"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] == "spot_check_passed")
            .count()
    };
    assert_eq!(
        passed(&badge_of(&app, &listing, &p.owner.access_token).await),
        1
    );
    // The next check is scheduled again; a credit the same day does not bring it forward
    // (a renter cannot make the platform re-measure a machine at will), a day later it does.
    let db = app.app.db();
    assert!(
        !db.spot_check_now(listing_id, Utc::now(), day)
            .await
            .unwrap()
    );
    let tomorrow = Utc::now() + day;
    assert!(db.spot_check_now(listing_id, tomorrow, day).await.unwrap());

    // What a worker dying between the report and the verdict leaves: the report stored, no
    // verdict, the run still running on a lease that ran out.
    app.execute("DELETE FROM verification_checks WHERE kind = 'spot_check_passed'")
        .await;
    app.execute(
        "UPDATE verification_runs SET status = 'running', lease_owner = 'w1', \
         lease_expires_at = '2000-01-01 00:00:00+00:00', finished_at = NULL \
         WHERE kind = 'spot_check'",
    )
    .await;
    assert_eq!(
        passed(&badge_of(&app, &listing, &p.owner.access_token).await),
        0
    );
    let outcome = execute(spot_check, "w2").await;
    assert!(
        matches!(
            outcome,
            Some(app::trust::verification::Outcome::Reported(_))
        ),
        "{outcome:?}"
    );
    let judged = badge_of(&app, &listing, &p.owner.access_token).await;
    assert_eq!(passed(&judged), 1, "{judged}");
    assert_eq!(judged["state"], "verified");
    // Taken again, it is not judged twice.
    app.execute(
        "UPDATE verification_runs SET status = 'running', lease_owner = 'w2', \
         lease_expires_at = '2000-01-01 00:00:00+00:00' WHERE kind = 'spot_check'",
    )
    .await;
    execute(spot_check, "w3").await;
    assert_eq!(
        passed(&badge_of(&app, &listing, &p.owner.access_token).await),
        1
    );

    // Had the checker been starved (its cell client bound), the check would have found
    // nothing either way: neither renewed nor demoted, and checked again within the hour.
    app.execute("DELETE FROM verification_checks WHERE kind = 'spot_check_passed'")
        .await;
    app.execute(
        "UPDATE report_cells SET status = 'client_bound' WHERE report_id IN \
         (SELECT id FROM reports WHERE kind = 'spot_check')",
    )
    .await;
    app.execute(
        "UPDATE verification_runs SET status = 'running', lease_owner = 'w3', \
         lease_expires_at = '2000-01-01 00:00:00+00:00' WHERE kind = 'spot_check'",
    )
    .await;
    let before = db.listing_by_id(listing_id).await.unwrap().unwrap();
    let badge_before = badge_of(&app, &listing, &p.owner.access_token).await;
    execute(spot_check, "w4").await;
    let judged = badge_of(&app, &listing, &p.owner.access_token).await;
    assert_eq!(judged["state"], "verified", "{judged}");
    assert_eq!(
        judged["expires_at"], badge_before["expires_at"],
        "not renewed"
    );
    let entry = judged["history"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "spot_check_inconclusive")
        .unwrap_or_else(|| panic!("{judged}"))
        .clone();
    assert!(
        entry["reason"]
            .as_str()
            .unwrap()
            .contains("limited decode 0 x 1 (client bound)"),
        "{entry}"
    );
    assert_eq!(entry["baseline_report_id"], verified_badge["report_id"]);
    let after = db.listing_by_id(listing_id).await.unwrap().unwrap();
    let next = after.next_spot_check_at.unwrap();
    assert!(next <= Utc::now() + chrono::Duration::hours(1), "{next}");
    assert_ne!(after.next_spot_check_at, before.next_spot_check_at);
}

/// A run measuring a listing whose hardware is edited meanwhile is cancelled: its figures
/// describe another machine and give no badge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_edited_during_its_run_gets_no_badge_from_it() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let _workers = app.start_workers();
    let engine = start_engine("tiny");
    let p = provider(&app).await;
    let listing = list(&app, &p, &engine).await;
    let run = request_run(&app, &p, &listing).await;
    crate::verification::wait_until_running(&app, &run).await;
    let res = app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/listings/{listing}"),
            Some(&p.owner.access_token),
            Some(json!({"hardware": {"gpu_count": 2}})),
        )
        .await;
    assert_eq!(res.status(), 200);
    let (_, finished) = follow(&app, &run).await.pop().unwrap();
    assert_eq!(finished["status"], "cancelled", "{finished}");
    assert_eq!(finished["reason"], "listing_changed");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let view: Value = app
        .get_json(&format!("/v1/verifications/{run}"), None)
        .await;
    assert_eq!(view["failure_code"], "listing_changed");
    assert!(view["report_id"].is_null());
    let now: Value = app.get_json(&format!("/v1/listings/{listing}"), None).await;
    assert_eq!(now["verified"], false);
    let reports: Value = app
        .get_json(&format!("/v1/listings/{listing}/reports"), None)
        .await;
    assert!(reports["items"].as_array().unwrap().is_empty());
}

/// Stores a compliant report for `listing` as the worker would, with a badge ending at
/// `expires_at`; returns its id. `envelope` is stored as given.
pub(crate) async fn badge_report(
    app: &TestApp,
    listing: &str,
    envelope: &Value,
    expires_at: chrono::DateTime<Utc>,
) -> Uuid {
    let db = app.app.db();
    let record = db
        .listing_by_id(listing.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let id = Uuid::now_v7();
    db.insert_report(store::NewReport {
        id,
        run_id: Uuid::now_v7(),
        listing_id: record.id,
        org_id: record.org_id,
        compliant: true,
        key_id: "test".into(),
        envelope: envelope.to_string(),
        summary: "{}".into(),
        created_at: Utc::now(),
        cells: vec![store::CellRecord {
            report_id: id,
            ..crate::marketplace::decode_cell(0, 1, 100.0)
        }],
        headline: (Some(100.0), Some(100.0)),
        engine: Some("vllm".into()),
        measured: store::MeasuredClaim::of(&record),
        kind: "verification".into(),
        badge: Some(store::Badge {
            expires_at,
            next_spot_check_at: Utc::now() + chrono::Duration::days(7),
        }),
        cost: None,
        log_leaf: attest::log_leaf(envelope).0,
        log_private: attest::log_leaf(envelope).1,
        visibility: "public".to_owned(),
    })
    .await
    .unwrap();
    id
}

/// A badge nobody renews expires: the listing leaves the `verified` filter and the measured
/// sorts, stays bookable, and its history says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_badge_leaves_verified_search_and_the_listing_stays_bookable() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.verification.reconcile_interval_secs = 1
    })
    .await;
    let p = provider(&app).await;
    let listing = list(&app, &p, "http://127.0.0.1:9").await;
    badge_report(
        &app,
        &listing,
        &json!({}),
        Utc::now() + chrono::Duration::seconds(2),
    )
    .await;
    let found = |sort: &'static str| {
        let app = &app;
        async move {
            let page: Value = app
                .get_json(&format!("/v1/listings?verified=true&sort={sort}"), None)
                .await;
            page["items"].as_array().unwrap().len()
        }
    };
    assert_eq!(found("tok_s").await, 1);
    let _workers = app.start_workers();
    let badge = wait_for_check(&app, &listing, &p.owner.access_token, "expired").await;
    assert_eq!(badge["state"], "expired");
    assert_eq!(found("tok_s").await, 0);
    assert_eq!(found("price").await, 0);
    let all: Value = app.get_json("/v1/listings", None).await;
    assert_eq!(all["items"].as_array().unwrap().len(), 1, "still listed");
    let public: Value = app.get_json(&format!("/v1/listings/{listing}"), None).await;
    assert_eq!(public["verification_state"], "expired");
    assert_eq!(public["verified"], false);
    let renter = app.register("renter@example.com").await;
    let res = book_an_hour(&app, &renter.access_token, &listing).await;
    assert_eq!(res.status(), 201, "an expired badge does not stop bookings");
    // The verification route is for the provider's members.
    let res = app
        .get(
            &format!("/v1/listings/{listing}/verification"),
            Some(&p.outsider.access_token),
        )
        .await;
    assert_eq!(res.status(), 403);
    let res = app
        .get(&format!("/v1/listings/{listing}/verification"), None)
        .await;
    assert_eq!(res.status(), 401);
}

/// A report signed before addresses were left out names the engine: only the listing's
/// organisation is shown its envelope.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_envelope_with_an_engine_address_is_withheld_from_the_public() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let p = provider(&app).await;
    let listing = list(&app, &p, "http://127.0.0.1:9").await;
    let statement = json!({"predicate": {"engine": {"base_url": "http://10.1.2.3:8000"}}});
    let payload = base64::engine::general_purpose::STANDARD.encode(statement.to_string());
    let envelope = json!({"payloadType": "application/vnd.in-toto+json", "payload": payload, "signatures": []});
    let report = badge_report(
        &app,
        &listing,
        &envelope,
        Utc::now() + chrono::Duration::days(30),
    )
    .await;
    let public: Value = app.get_json(&format!("/v1/reports/{report}"), None).await;
    assert!(public["envelope"].is_null());
    assert_eq!(public["envelope_withheld"], true);
    assert!(!public.to_string().contains("10.1.2.3"));
    let outsider: Value = app
        .get_json(
            &format!("/v1/reports/{report}"),
            Some(&p.outsider.access_token),
        )
        .await;
    assert!(outsider["envelope"].is_null());
    let listed: Value = app
        .get_json(&format!("/v1/listings/{listing}/reports"), None)
        .await;
    assert!(listed["items"][0]["envelope"].is_null());
    let member: Value = app
        .get_json(
            &format!("/v1/reports/{report}"),
            Some(&p.member.access_token),
        )
        .await;
    assert_eq!(member["envelope"], envelope);
    assert!(member.get("envelope_withheld").is_none());
}

/// The stored engine key goes with the engine's origin: a base URL elsewhere without a new
/// key drops it; a new path at the same origin keeps it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_engine_origin_without_a_key_drops_the_stored_key() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let p = provider(&app).await;
    let mut body = listing_body(&p.org, "http://127.0.0.1:9");
    body["engine"]["api_key"] = json!("sk-secret");
    let created: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["engine"]["has_api_key"], true);
    let patch = |url: &'static str| {
        let app = &app;
        let token = p.owner.access_token.clone();
        async move {
            let res = app
                .call(
                    reqwest::Method::PATCH,
                    &format!("/v1/listings/{id}"),
                    Some(&token),
                    Some(json!({"engine": {"base_url": url}})),
                )
                .await;
            assert_eq!(res.status(), 200);
            res.json::<Value>().await.unwrap()
        }
    };
    let same_origin = patch("http://127.0.0.1:9/v2").await;
    assert_eq!(same_origin["engine"]["has_api_key"], true);
    let elsewhere = patch("http://127.0.0.2:9").await;
    assert_eq!(elsewhere["engine"]["has_api_key"], false);
}

/// A listing's reports come a page at a time, newest first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listings_reports_come_a_page_at_a_time() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let p = provider(&app).await;
    let listing = list(&app, &p, "http://127.0.0.1:9").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let expires = Utc::now() + chrono::Duration::days(30);
        ids.push(
            badge_report(&app, &listing, &json!({}), expires)
                .await
                .to_string(),
        );
    }
    let path = format!("/v1/listings/{listing}/reports?limit=2");
    let first: Value = app.get_json(&path, None).await;
    let page: Vec<&str> = first["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(page, vec![ids[2].as_str(), ids[1].as_str()]);
    let cursor = first["next_cursor"].as_str().unwrap();
    let second: Value = app.get_json(&format!("{path}&cursor={cursor}"), None).await;
    assert_eq!(second["items"].as_array().unwrap().len(), 1);
    assert_eq!(second["items"][0]["id"], ids[0].as_str());
    assert!(second["next_cursor"].is_null());
    crate::helpers::assert_problem(
        app.get(&format!("/v1/listings/{listing}/reports?limit=0"), None)
            .await,
        422,
        "validation_failed",
    )
    .await;
}

/// A spot check is never refused: an engine gone by its start fails the check's preflight,
/// which demotes the listing. A run's preflight is shown only once its run ended, so a spot
/// check's never announces it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spot_check_whose_preflight_fails_demotes_and_is_shown_once_it_ended() {
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.verification.reconcile_interval_secs = 1;
        c.verification.spot_check_every_secs = 2;
    })
    .await;
    let engine = SwappableEngine::start(&start_engine("tiny")).await;
    let p = provider(&app).await;
    let listing = list(&app, &p, &engine.url).await;
    let preflight = format!("/v1/listings/{listing}/preflight");

    // An open run's preflight is not shown; once the run ended, it is.
    let run = request_run(&app, &p, &listing).await;
    let asked: Value = app.get_json(&preflight, Some(&p.owner.access_token)).await;
    assert_eq!(asked["kind"], "request", "{asked}");
    let now = Utc::now();
    app.app
        .db()
        .insert_preflight(store::PreflightRecord {
            id: Uuid::now_v7(),
            listing_id: listing.parse().unwrap(),
            org_id: p.org.parse().unwrap(),
            run_id: Some(run.parse().unwrap()),
            kind: "run".to_owned(),
            passed: true,
            checks: "[]".to_owned(),
            created_at: now,
            finished_at: Some(now),
        })
        .await
        .unwrap();
    let while_open: Value = app.get_json(&preflight, Some(&p.owner.access_token)).await;
    assert_eq!(while_open["id"], asked["id"], "{while_open}");
    let cancelled = app
        .post(
            &format!("/v1/verifications/{run}/cancel"),
            Some(&p.owner.access_token),
            json!({}),
        )
        .await;
    assert!(cancelled.status().is_success());
    let ended: Value = app.get_json(&preflight, Some(&p.owner.access_token)).await;
    assert_eq!(
        (&ended["kind"], &ended["run_id"]),
        (&json!("run"), &json!(run))
    );

    // Verified; the engine is gone when its spot check starts: demoted, for its preflight.
    verified_at(
        &app,
        &p.owner.access_token,
        &listing,
        0.9 * TINY_ONE_STREAM_TOK_S,
    )
    .await;
    engine.swap_to("http://127.0.0.1:9");
    let _workers = app.start_workers();
    let demoted = wait_for_check(&app, &listing, &p.owner.access_token, "demoted").await;
    let entry = demoted["history"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "demoted")
        .unwrap()
        .clone();
    assert!(
        entry["reason"]
            .as_str()
            .unwrap()
            .contains("preflight_failed"),
        "{entry}"
    );
    let latest: Value = app.get_json(&preflight, Some(&p.owner.access_token)).await;
    assert_eq!(latest["kind"], "run", "{latest}");
    assert_eq!(latest["passed"], false, "{latest}");
    assert!(
        latest["run_id"] != json!(run),
        "the spot check's own: {latest}"
    );
}
