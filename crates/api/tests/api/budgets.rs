//! Budgets (issue 59): a person's monthly cap refuses the booking that would exceed it (409
//! `budget_exceeded` saying what is left), racing bookings cannot pass it together, a refund
//! makes room again, and `budget.warning` and `budget.exhausted` reach the person's own
//! endpoint once a month each.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Session, TestApp, assert_problem};
use crate::marketplace::{list, provider};
use crate::webhooks::{Dispatcher, deliveries, deliveries_retried_until, quick, quick_receiver};

on_backends!(
    a_budget_refuses_what_would_exceed_it_and_alerts_once,
    with_stripe_a_budget_counts_held_charged_and_refunded_money,
);
on_both_backends!(racing_bookings_cannot_pass_a_budget_together);

/// A booking of one GPU for `hours` hours starting `from_hours` from now (150 cents an hour).
async fn book(
    app: &TestApp,
    renter: &Session,
    listing: &str,
    (from_hours, hours): (i64, i64),
    key: &str,
) -> reqwest::Response {
    let from = chrono::Utc::now() + chrono::Duration::hours(from_hours);
    app.client
        .post(app.url("/v1/bookings"))
        .bearer_auth(&renter.access_token)
        .header("Idempotency-Key", key)
        .json(&json!({
            "listing_id": listing, "gpu_count": 1,
            "starts_at": from, "ends_at": from + chrono::Duration::hours(hours),
        }))
        .send()
        .await
        .unwrap()
}

async fn put_budget(app: &TestApp, who: Option<&str>, body: Value) -> reqwest::Response {
    app.call(Method::PUT, "/v1/me/budget", who, Some(body))
        .await
}

async fn a_budget_refuses_what_would_exceed_it_and_alerts_once(backend: store::Backend) {
    let app = TestApp::spawn_with(backend, quick).await;
    let _dispatch = Dispatcher::start(&app);
    let (receiver, _) = quick_receiver().await;
    let p = provider(&app, "provider@example.com").await;
    let listing = list(&app, &p, json!({})).await;
    let renter = app.register("renter@example.com").await;
    let token = Some(renter.access_token.as_str());

    // None yet; bad input is refused naming the field; nobody without a credential.
    assert_problem(app.get("/v1/me/budget", token).await, 404, "not_found").await;
    for (body, field) in [
        (
            json!({"amount_per_month": -1, "currency": "USD"}),
            "amount_per_month",
        ),
        (
            json!({"amount_per_month": 100, "currency": "XXX"}),
            "currency",
        ),
    ] {
        let problem = assert_problem(
            put_budget(&app, token, body).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
    let nobody = put_budget(
        &app,
        None,
        json!({"amount_per_month": 1, "currency": "USD"}),
    )
    .await;
    assert_eq!(nobody.status(), 401);
    assert_eq!(app.get("/v1/me/budget", None).await.status(), 401);
    // An organisation's key has no budget of its own: 403 either way.
    let org_key: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", p.org),
            Some(&p.member.access_token),
            json!({"name": "machine", "scopes": ["read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let org_key = org_key["key"].as_str().unwrap();
    assert_eq!(app.get("/v1/me/budget", Some(org_key)).await.status(), 403);
    let put = put_budget(
        &app,
        Some(org_key),
        json!({"amount_per_month": 1, "currency": "USD"}),
    );
    assert_eq!(put.await.status(), 403);

    // The renter's own endpoint hears of its budget.
    let endpoint: Value = app
        .post(
            "/v1/webhook-endpoints",
            token,
            json!({"url": receiver, "events": ["budget.warning", "budget.exhausted"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let endpoint = format!(
        "/v1/webhook-endpoints/{}",
        endpoint["endpoint"]["id"]
            .as_str()
            .unwrap_or_else(|| endpoint["id"].as_str().unwrap())
    );

    // 10.00 USD a month.
    let set = put_budget(
        &app,
        token,
        json!({"amount_per_month": 1000, "currency": "usd"}),
    )
    .await;
    assert_eq!(set.status(), 200);
    let set: Value = set.json().await.unwrap();
    assert_eq!(
        (
            &set["amount_per_month"],
            &set["currency"],
            &set["spent"],
            &set["left"]
        ),
        (&json!(1000), &json!("USD"), &json!(0), &json!(1000)),
        "{set}"
    );
    assert_eq!(set["month"], chrono::Utc::now().format("%Y-%m").to_string());

    // 4 h (6.00), then 2 h (3.00): 9.00 spent, past 80 %.
    let first = book(&app, &renter, &listing, (24, 4), "first").await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.unwrap();
    assert_eq!(
        book(&app, &renter, &listing, (30, 2), "second")
            .await
            .status(),
        201
    );
    let standing: Value = app.get_json("/v1/me/budget", token).await;
    assert_eq!(
        (&standing["spent"], &standing["left"]),
        (&json!(900), &json!(100)),
        "{standing}"
    );

    // 1 h more (1.50) would exceed it: refused, saying what is left; nothing stored.
    let refused = assert_problem(
        book(&app, &renter, &listing, (40, 1), "third").await,
        409,
        "budget_exceeded",
    )
    .await;
    assert_eq!(
        refused["left"],
        json!({"amount": 100, "currency": "USD"}),
        "{refused}"
    );
    assert_problem(
        book(&app, &renter, &listing, (40, 1), "fourth").await,
        409,
        "budget_exceeded",
    )
    .await;
    let mine: Value = app.get_json("/v1/bookings", token).await;
    assert_eq!(mine["items"].as_array().map(Vec::len), Some(2), "{mine}");

    // Each alert once this month, whatever was refused twice.
    deliveries_retried_until(&app, &endpoint, &renter.access_token, "budget.warning").await;
    let exhausted =
        deliveries_retried_until(&app, &endpoint, &renter.access_token, "budget.exhausted").await;
    assert_eq!(exhausted["status"], "delivered");
    let sent = deliveries(&app, &endpoint, &renter.access_token).await;
    for kind in ["budget.warning", "budget.exhausted"] {
        assert_eq!(
            sent.iter().filter(|d| d["type"] == kind).count(),
            1,
            "{sent:?}"
        );
    }

    // The first cancelled before its start (all of it back): room again.
    let cancelled = app
        .post(
            &format!("/v1/bookings/{}/cancel", first["id"].as_str().unwrap()),
            token,
            json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), 200);
    let standing: Value = app.get_json("/v1/me/budget", token).await;
    assert_eq!(
        (&standing["spent"], &standing["left"]),
        (&json!(300), &json!(700)),
        "{standing}"
    );
    assert_eq!(
        book(&app, &renter, &listing, (40, 1), "fifth")
            .await
            .status(),
        201
    );

    // A listing in another currency cannot be judged against it: refused while it stands.
    let euros = list(
        &app,
        &p,
        json!({"price": {"amount_per_gpu_hour": 1, "currency": "EUR"}}),
    )
    .await;
    let refused = assert_problem(
        book(&app, &renter, &euros, (50, 1), "euros").await,
        409,
        "budget_exceeded",
    )
    .await;
    assert_eq!(refused["left"]["currency"], "USD", "{refused}");

    // Removed: no cap.
    let removed = app.call(Method::DELETE, "/v1/me/budget", token, None).await;
    assert_eq!(removed.status(), 204);
    assert_eq!(
        book(&app, &renter, &listing, (60, 4), "uncapped")
            .await
            .status(),
        201
    );
    assert_problem(
        app.call(Method::DELETE, "/v1/me/budget", token, None).await,
        404,
        "not_found",
    )
    .await;
}

/// Two bookings that each fit what is left, but not together, race: one is made, the other
/// refused — the budget is read under the renter's lock with their bookings.
async fn racing_bookings_cannot_pass_a_budget_together(app: TestApp) {
    let p = provider(&app, "provider@example.com").await;
    let listing = list(&app, &p, json!({})).await;
    let renter = app.register("renter@example.com").await;
    let token = Some(renter.access_token.as_str());
    // 10.00: room for one 4 h booking (6.00), not two.
    assert_eq!(
        put_budget(
            &app,
            token,
            json!({"amount_per_month": 1000, "currency": "USD"})
        )
        .await
        .status(),
        200
    );
    let racing = (0..6).map(|i| {
        let (app, renter, listing) = (&app, &renter, &listing);
        async move { book(app, renter, listing, (24 + 5 * i, 4), &format!("race-{i}")).await }
    });
    let answers = futures_util::future::join_all(racing).await;
    let mut statuses: Vec<u16> = answers.iter().map(|a| a.status().as_u16()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409, 409, 409, 409, 409]);
    let standing: Value = app.get_json("/v1/me/budget", token).await;
    assert_eq!(
        (&standing["spent"], &standing["left"]),
        (&json!(600), &json!(400)),
        "{standing}"
    );
}

/// With Stripe: a booking waiting for its payment counts at its price, the same once charged
/// (never twice), and its refund gives the room back.
async fn with_stripe_a_budget_counts_held_charged_and_refunded_money(backend: store::Backend) {
    use crate::payments::{
        deliver_signed, enable_payouts_of, event, intent_object, market_configured,
    };
    let m = market_configured(backend, |_| {}).await;
    enable_payouts_of(&m.app, &m.org, &m.admin).await;
    let token = Some(m.renter.access_token.as_str());
    let spent = async || {
        let standing: Value = m.app.get_json("/v1/me/budget", token).await;
        (
            standing["spent"].as_i64().unwrap(),
            standing["left"].as_i64().unwrap(),
        )
    };
    assert_eq!(
        put_budget(
            &m.app,
            token,
            json!({"amount_per_month": 1000, "currency": "USD"})
        )
        .await
        .status(),
        200
    );
    // Held for its payment: 6.00.
    let booked = book(&m.app, &m.renter, &m.listing, (24, 4), "held").await;
    assert_eq!(booked.status(), 201);
    let booked: Value = booked.json().await.unwrap();
    assert_eq!(booked["status"], "pending_payment");
    assert_eq!(spent().await, (600, 400));
    // Paid: charged once, the same 6.00.
    deliver_signed(
        &m.app,
        &event(
            "evt_budget_paid",
            "payment_intent.succeeded",
            intent_object(&booked, "succeeded"),
        ),
    )
    .await;
    let paid: Value = m
        .app
        .get_json(
            &format!("/v1/bookings/{}", booked["id"].as_str().unwrap()),
            token,
        )
        .await;
    assert_eq!(paid["status"], "confirmed");
    assert_eq!(spent().await, (600, 400));
    let refused = assert_problem(
        book(&m.app, &m.renter, &m.listing, (40, 4), "over").await,
        409,
        "budget_exceeded",
    )
    .await;
    assert_eq!(refused["left"]["amount"], 400, "{refused}");
    // Cancelled before its start: refunded in full, room again.
    let cancelled = m
        .app
        .call(
            Method::POST,
            &format!("/v1/bookings/{}/cancel", booked["id"].as_str().unwrap()),
            token,
            None,
        )
        .await;
    assert_eq!(cancelled.status(), 200);
    assert_eq!(spent().await, (0, 1000));
    assert_eq!(
        book(&m.app, &m.renter, &m.listing, (40, 4), "again")
            .await
            .status(),
        201
    );
}
