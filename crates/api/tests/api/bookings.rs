//! Bookings: capacity is never over-committed however many requests race; idempotent
//! replays; cancellation frees capacity; bookings are private; bad input is refused.

use chrono::{Duration, Utc};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Session, TestApp, assert_problem};

on_both_backends!(
    racing_requests_never_overbook,
    idempotent_replays_and_key_reuse,
    cancellation_frees_capacity_and_records_the_refund,
    bookings_are_private_and_bad_input_is_refused,
    a_yen_price_has_no_minor_unit,
    a_renter_holds_at_most_their_quota_without_payments,
    the_listing_page_books_its_first_free_hour,
    a_gateway_only_booking_ends_when_idle,
);

/// A provider with a 2-GPU machine at 150 cents per GPU-hour, and a renter.
async fn machine(app: &TestApp) -> (String, Session, Session) {
    priced_machine(app, json!({"amount_per_gpu_hour": 150, "currency": "USD"})).await
}

async fn priced_machine(app: &TestApp, price: Value) -> (String, Session, Session) {
    let provider = app.register("provider@example.com").await;
    let renter = app.register("renter@example.com").await;
    let org: Value = app
        .post(
            "/v1/orgs",
            Some(&provider.access_token),
            json!({"name": "P"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let listing: Value = app
        .post(
            "/v1/listings",
            Some(&provider.access_token),
            json!({
                "org_id": org["id"], "title": "2x GPU", "region": "eu",
                "hardware": {"gpu_model": "L4", "gpu_count": 2, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
                "price": price,
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            }),
        )
        .await
        .json()
        .await
        .unwrap();
    (listing["id"].as_str().unwrap().to_owned(), provider, renter)
}

fn interval(hours_from_now: i64, hours: i64) -> (String, String) {
    let start = (Utc::now() + Duration::hours(hours_from_now)).with_timezone(&Utc);
    let start = start - Duration::nanoseconds(i64::from(start.timestamp_subsec_nanos()));
    (
        (start).to_rfc3339(),
        (start + Duration::hours(hours)).to_rfc3339(),
    )
}

async fn book(app: &TestApp, who: &Session, key: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = app
        .client
        .post(app.url("/v1/bookings"))
        .bearer_auth(&who.access_token)
        .json(body);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    request.send().await.unwrap()
}

async fn racing_requests_never_overbook(app: TestApp) {
    let (listing, _, renter) = machine(&app).await;
    let (starts_at, ends_at) = interval(24, 4);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    let requests = (0..40).map(|i| {
        let key = format!("race-{i}");
        let (app, renter, body) = (&app, &renter, &body);
        async move { book(app, renter, Some(&key), body).await }
    });
    let responses = futures_util::future::join_all(requests).await;
    let mut created = 0;
    let mut conflicts = 0;
    for res in responses {
        match res.status().as_u16() {
            201 => created += 1,
            409 => {
                let problem: Value = res.json().await.unwrap();
                assert_eq!(problem["code"], "booking_conflict");
                conflicts += 1;
            }
            other => panic!("unexpected {other}: {}", res.text().await.unwrap()),
        }
    }
    assert_eq!((created, conflicts), (2, 38));
    // An interval that only touches the booked one is free.
    let (_, after) = interval(24, 4);
    let (later_end, _) = interval(30, 1);
    let body =
        json!({"listing_id": listing, "gpu_count": 2, "starts_at": after, "ends_at": later_end});
    assert_eq!(
        book(&app, &renter, Some("after"), &body).await.status(),
        201
    );
}

async fn idempotent_replays_and_key_reuse(app: TestApp) {
    let (listing, _, renter) = machine(&app).await;
    let (starts_at, ends_at) = interval(24, 4);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    let first = book(&app, &renter, Some("k-1"), &body).await;
    assert_eq!(first.status(), 201);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first: Value = first.json().await.unwrap();
    assert_eq!(
        first["status"], "confirmed",
        "no payment provider: confirmed at once"
    );
    assert_eq!(
        first["price"],
        json!({"amount": 600, "currency": "USD"}),
        "4 h x 1 GPU x 150"
    );
    assert_eq!(first["payment"]["provider"], "none");

    let again = book(&app, &renter, Some("k-1"), &body).await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["id"], first["id"]);

    let other =
        json!({"listing_id": listing, "gpu_count": 2, "starts_at": starts_at, "ends_at": ends_at});
    assert_problem(
        book(&app, &renter, Some("k-1"), &other).await,
        422,
        "idempotency_key_reused",
    )
    .await;
    let problem = assert_problem(
        book(&app, &renter, None, &body).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "Idempotency-Key");
    // Only one GPU was taken by all of that.
    let one_more =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    assert_eq!(
        book(&app, &renter, Some("k-2"), &one_more).await.status(),
        201
    );
}

async fn cancellation_frees_capacity_and_records_the_refund(app: TestApp) {
    let (listing, _, renter) = machine(&app).await;
    let (starts_at, ends_at) = interval(24, 4);
    let full =
        json!({"listing_id": listing, "gpu_count": 2, "starts_at": starts_at, "ends_at": ends_at});
    let booking: Value = book(&app, &renter, Some("a"), &full)
        .await
        .json()
        .await
        .unwrap();
    assert_problem(
        book(&app, &renter, Some("b"), &full).await,
        409,
        "booking_conflict",
    )
    .await;

    let path = format!("/v1/bookings/{}/cancel", booking["id"].as_str().unwrap());
    let res = app
        .call(Method::POST, &path, Some(&renter.access_token), None)
        .await;
    assert_eq!(res.status(), 200);
    let cancelled: Value = res.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(
        cancelled["refund"],
        json!({"amount": 1200, "currency": "USD"}),
        "full refund before the start"
    );
    assert_problem(
        app.call(Method::POST, &path, Some(&renter.access_token), None)
            .await,
        409,
        "booking_not_cancellable",
    )
    .await;

    assert_eq!(
        book(&app, &renter, Some("c"), &full).await.status(),
        201,
        "the capacity is free again"
    );
}

async fn bookings_are_private_and_bad_input_is_refused(app: TestApp) {
    let (listing, provider, renter) = machine(&app).await;
    let stranger = app.register("stranger@example.com").await;
    let (starts_at, ends_at) = interval(24, 4);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    let booking: Value = book(&app, &renter, Some("p"), &body)
        .await
        .json()
        .await
        .unwrap();
    let path = format!("/v1/bookings/{}", booking["id"].as_str().unwrap());
    assert_eq!(
        app.get(&path, Some(&renter.access_token)).await.status(),
        200
    );
    assert_eq!(
        app.get(&path, Some(&provider.access_token)).await.status(),
        200,
        "the provider reads it"
    );
    assert_problem(
        app.get(&path, Some(&stranger.access_token)).await,
        404,
        "not_found",
    )
    .await;
    assert_problem(app.get(&path, None).await, 401, "unauthenticated").await;
    let cancel = format!("{path}/cancel");
    assert_problem(
        app.call(Method::POST, &cancel, Some(&stranger.access_token), None)
            .await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.call(Method::POST, &cancel, Some(&provider.access_token), None)
            .await,
        404,
        "not_found",
    )
    .await;
    let res = app
        .client
        .post(app.url("/v1/bookings"))
        .header("Idempotency-Key", "x")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_problem(res, 401, "unauthenticated").await;

    let (past_start, past_end) = interval(-5, 1);
    for (bad, field) in [
        (
            json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": starts_at}),
            "ends_at",
        ),
        (
            json!({"listing_id": listing, "gpu_count": 1, "starts_at": ends_at, "ends_at": starts_at}),
            "ends_at",
        ),
        (
            json!({"listing_id": listing, "gpu_count": 1, "starts_at": past_start, "ends_at": past_end}),
            "starts_at",
        ),
        (
            json!({"listing_id": listing, "gpu_count": 0, "starts_at": starts_at, "ends_at": ends_at}),
            "gpu_count",
        ),
        (
            json!({"listing_id": listing, "gpu_count": 3, "starts_at": starts_at, "ends_at": ends_at}),
            "gpu_count",
        ),
        (
            json!({"listing_id": listing, "gpu_count": 1, "starts_at": "tomorrow", "ends_at": ends_at}),
            "starts_at",
        ),
    ] {
        let key = format!("bad-{field}-{}", bad);
        let problem = assert_problem(
            book(&app, &renter, Some(&key), &bad).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], field, "{bad}");
    }
    let unknown = json!({"listing_id": uuid::Uuid::now_v7(), "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    assert_problem(
        book(&app, &renter, Some("u"), &unknown).await,
        404,
        "not_found",
    )
    .await;
}

/// ISO 4217 gives the yen no minor unit: ¥1,500 per GPU-hour for 4 hours is ¥6,000 (stored
/// and answered as 6000, never scaled as if it had cents). An unknown currency is a 422
/// naming the field.
async fn a_yen_price_has_no_minor_unit(app: TestApp) {
    let (listing, provider, renter) = priced_machine(
        &app,
        json!({"amount_per_gpu_hour": 1500, "currency": "jpy"}),
    )
    .await;
    let (starts_at, ends_at) = interval(24, 4);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    let booked = book(&app, &renter, Some("yen"), &body).await;
    assert_eq!(booked.status(), 201);
    let booked: Value = booked.json().await.unwrap();
    assert_eq!(booked["price"], json!({"amount": 6000, "currency": "JPY"}));
    let problem = assert_problem(
        app.post(
            "/v1/listings",
            Some(&provider.access_token),
            json!({
                "org_id": "00000000-0000-0000-0000-000000000000", "title": "x", "region": "eu",
                "hardware": {"gpu_model": "L4", "gpu_count": 1, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
                "price": {"amount_per_gpu_hour": 100, "currency": "XYZ"},
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            }),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "price.currency");
}

/// With payments off (no hold, confirmed at once), one renter still holds at most
/// `max_open_bookings` bookings and `max_booked_gpu_hours` ahead, however many requests race.
async fn a_renter_holds_at_most_their_quota_without_payments(app: TestApp) {
    let (listing, _, renter) = machine(&app).await;
    let requests = (0..10).map(|i| {
        let (starts_at, ends_at) = interval(24 + i, 1);
        let body = json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
        let (app, renter) = (&app, &renter);
        async move { book(app, renter, Some(&format!("q-{i}")), &body).await }
    });
    let mut created = Vec::new();
    let mut limited = 0;
    for res in futures_util::future::join_all(requests).await {
        match res.status().as_u16() {
            201 => created.push(res.json::<Value>().await.unwrap()),
            429 => {
                let retry: u64 = res.headers()["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!((1..=3600).contains(&retry), "{retry}");
                let problem: Value = res.json().await.unwrap();
                assert_eq!(problem["code"], "rate_limited");
                assert!(
                    problem["detail"]
                        .as_str()
                        .unwrap()
                        .contains("max_open_bookings")
                );
                limited += 1;
            }
            other => panic!("unexpected {other}: {}", res.text().await.unwrap()),
        }
    }
    assert_eq!((created.len(), limited), (5, 5));
    assert!(created.iter().all(|b| b["status"] == "confirmed"));
    // Cancelling one makes room for one more.
    let cancelled = app
        .post(
            &format!("/v1/bookings/{}/cancel", created[0]["id"].as_str().unwrap()),
            Some(&renter.access_token),
            json!({}),
        )
        .await;
    assert_eq!(
        cancelled.status(),
        200,
        "{}",
        cancelled.text().await.unwrap()
    );
    let (starts_at, ends_at) = interval(40, 1);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    assert_eq!(
        book(&app, &renter, Some("q-after"), &body).await.status(),
        201
    );

    // GPU-hours: another renter. One booking beyond the whole quota is invalid; within it,
    // what is held ahead counts.
    let other = app.register("other@example.com").await;
    let (starts_at, ends_at) = interval(24, 169);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    assert_problem(
        book(&app, &other, Some("big"), &body).await,
        422,
        "validation_failed",
    )
    .await;
    let (starts_at, ends_at) = interval(200, 50);
    let body =
        json!({"listing_id": listing, "gpu_count": 2, "starts_at": starts_at, "ends_at": ends_at});
    assert_eq!(book(&app, &other, Some("h-1"), &body).await.status(), 201);
    let (starts_at, ends_at) = interval(260, 69);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    let res = book(&app, &other, Some("h-2"), &body).await;
    assert_eq!(res.status(), 429);
    let problem: Value = res.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("max_booked_gpu_hours"),
        "{problem}"
    );
    let (starts_at, ends_at) = interval(260, 68);
    let body =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": starts_at, "ends_at": ends_at});
    assert_eq!(
        book(&app, &other, Some("h-3"), &body).await.status(),
        201,
        "100 + 68 = 168 fits"
    );
}

/// A listing page's rent commands book what they say: the first whole hour with a GPU free
/// all through it, which a booking then gets (and the hour before it is full).
async fn the_listing_page_books_its_first_free_hour(app: TestApp) {
    use chrono::DurationRound;
    let (listing, _, renter) = machine(&app).await;
    let next_hour = (Utc::now() + Duration::hours(1))
        .duration_trunc(Duration::hours(1))
        .unwrap();
    let at = |hours: i64| (next_hour + Duration::hours(hours)).to_rfc3339();
    // Both GPUs for three hours from the next whole hour, then one of them for two more: the
    // first whole hour with a GPU free is three hours on (one GPU free, then both).
    for (key, gpus, from, until) in [("all", 2, 0, 3), ("one", 1, 3, 5)] {
        let body = json!({"listing_id": listing, "gpu_count": gpus, "starts_at": at(from), "ends_at": at(until)});
        assert_eq!(book(&app, &renter, Some(key), &body).await.status(), 201);
    }
    let page = app.get(&format!("/listings/{listing}"), None).await;
    assert_eq!(page.status(), 200);
    let page = page.text().await.unwrap();
    let start = page
        .split("data-start=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap();
    assert_eq!(
        chrono::DateTime::parse_from_rfc3339(start).unwrap(),
        next_hour + Duration::hours(3),
        "{page}"
    );
    // The commands name this server as the request reached it (public_url is left at its
    // default here): before, always http://127.0.0.1:8080.
    let here = app.url("").trim_end_matches('/').to_owned();
    let command =
        format!("gpumarket book {listing} --from {start} --hours 1 --gpus 1 --server {here}");
    assert!(page.contains(&command), "{page}");
    assert!(!page.contains("127.0.0.1:8080"), "{page}");
    assert!(
        page.contains(&format!("&#34;listing_id&#34;: &#34;{listing}&#34;")),
        "{page}"
    );
    let body = json!({"listing_id": listing, "gpu_count": 1, "starts_at": start, "ends_at": at(4)});
    assert_eq!(book(&app, &renter, Some("page"), &body).await.status(), 201);
    let earlier =
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": at(2), "ends_at": at(3)});
    assert_problem(
        book(&app, &renter, Some("earlier"), &earlier).await,
        409,
        "booking_conflict",
    )
    .await;
}

/// A gateway-only booking that asked to end when idle is cancelled as its renter would cancel
/// it (the unused share refunded, `booking.cancelled`) once no gateway request came for that
/// long; a request within it keeps another going; one with direct access cannot ask.
async fn a_gateway_only_booking_ends_when_idle(app: TestApp) {
    let (listing, _, renter) = machine(&app).await;
    let ask = |direct: bool, secs: i64| {
        let from = Utc::now() + Duration::seconds(2);
        json!({"listing_id": listing, "gpu_count": 1, "starts_at": from,
               "ends_at": from + Duration::hours(2), "direct_access": direct,
               "stop_when_idle_secs": secs})
    };
    for (body, why) in [
        (ask(true, 600), "with direct access"),
        (ask(false, 30), "under a minute"),
        (ask(false, 700_000), "over a week"),
    ] {
        let problem = assert_problem(
            book(&app, &renter, Some(why), &body).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(
            problem["errors"][0]["field"], "stop_when_idle_secs",
            "{why}: {problem}"
        );
    }
    let idle: Value = book(&app, &renter, Some("idle"), &ask(false, 60))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(idle["stop_when_idle_secs"], 60, "{idle}");
    let busy: Value = book(&app, &renter, Some("busy"), &ask(false, 60))
        .await
        .json()
        .await
        .unwrap();
    let id = |b: &Value| b["id"].as_str().unwrap().parse::<uuid::Uuid>().unwrap();
    // Not yet: neither has been idle for a minute since its start.
    assert_eq!(
        app.app
            .stop_idle_bookings(Utc::now() + Duration::seconds(30))
            .await
            .unwrap(),
        0
    );
    // Three minutes on, `busy` had a request finish 30 s before; `idle` none.
    let later = Utc::now() + Duration::minutes(3);
    let request = |finished: chrono::DateTime<Utc>| store::GatewayRequestRecord {
        id: uuid::Uuid::now_v7(),
        booking_id: id(&busy),
        endpoint: "/v1/completions".into(),
        started_at: finished - Duration::seconds(1),
        finished_at: finished,
        prompt_tokens: 12,
        output_tokens: 7,
        engine_output_tokens: Some(7),
        ttft_ms: Some(30.0),
        per_stream_tok_s: Some(50.0),
        concurrency: 1,
        outcome: "completed".into(),
        client_stall_ms: None,
        comparable: true,
        chunks: None,
        last_token_ms: None,
        engine_load: None,
        text_bytes: None,
        max_tokens: Some(16),
    };
    app.app
        .db()
        .insert_gateway_request(request(later - Duration::seconds(30)))
        .await
        .unwrap();
    assert_eq!(app.app.stop_idle_bookings(later).await.unwrap(), 1);
    let token = Some(renter.access_token.as_str());
    let stopped: Value = app
        .get_json(&format!("/v1/bookings/{}", id(&idle)), token)
        .await;
    assert_eq!(stopped["status"], "cancelled", "{stopped}");
    // Stopped about three minutes into two hours: the unused share back, as a cancellation then.
    let price = stopped["price"]["amount"].as_i64().unwrap();
    let refund = stopped["refund"]["amount"].as_i64().unwrap();
    assert!(
        refund < price && refund >= price * 117 / 120 - 1,
        "{stopped}"
    );
    let kept: Value = app
        .get_json(&format!("/v1/bookings/{}", id(&busy)), token)
        .await;
    assert_ne!(kept["status"], "cancelled", "{kept}");
    // Stopped once: a later sweep finds nothing more to do for it.
    assert_eq!(app.app.stop_idle_bookings(later).await.unwrap(), 0);
}
