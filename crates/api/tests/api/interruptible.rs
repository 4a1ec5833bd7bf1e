//! The interruptible tier (issue 59): an on-demand booking displaces the lowest bid (ties: the
//! latest made), a started one with its notice (`interrupting`, then `interrupted` at the
//! notice's end, the rest refunded pro rata), an unstarted one at once and in full; a higher
//! bid displaces a lower one, an equal bid nothing; what a request needs before the notice
//! runs out is 409 `booking_conflict` naming the earliest start; bad tiers and bids are 422.

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use crate::helpers::{Session, TestApp, assert_problem};
use crate::marketplace::{list, provider};
use crate::webhooks::{Dispatcher, deliveries_retried_until, quick, quick_receiver};

on_backends!(
    an_on_demand_booking_displaces_the_lowest_bid_with_notice_and_refund,
    a_higher_bid_displaces_a_lower_one_and_an_unstarted_one_goes_at_once,
    with_stripe_a_displaced_booking_is_refunded_once_through_the_ledger,
    the_history_shows_the_clearing_bid_and_leaves_a_provider_s_own_bookings_out,
    a_bid_is_raised_never_lowered_and_the_budget_judges_the_difference,
    with_stripe_a_raise_holds_from_its_payment_and_refunds_split_across_intents,
);

/// Two seconds of notice, webhooks quick.
fn short_notice(config: &mut app::Config) {
    quick(config);
    config.payments.interrupt_notice_secs = 2;
}

/// A listing of `gpus` GPUs at 2.00 an hour taking bids from 0.50.
async fn bidding_listing(app: &TestApp, gpus: i64) -> String {
    let p = provider(app, "provider@example.com").await;
    list(
        app,
        &p,
        json!({
            "hardware": {"gpu_model": "L4", "gpu_count": gpus, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
            "price": {"amount_per_gpu_hour": 200, "currency": "USD", "min_bid_per_gpu_hour": 50},
        }),
    )
    .await
}

/// Books one GPU over `[from, from + 1 h)`, interruptible at `bid` (on demand: `None`).
async fn book(
    app: &TestApp,
    renter: &Session,
    listing: &str,
    from: DateTime<Utc>,
    bid: Option<i64>,
    key: &str,
) -> reqwest::Response {
    let mut body = json!({
        "listing_id": listing, "gpu_count": 1,
        "starts_at": from, "ends_at": from + Duration::hours(1),
    });
    if let Some(bid) = bid {
        body["tier"] = json!("interruptible");
        body["bid_per_gpu_hour"] = json!(bid);
    }
    app.client
        .post(app.url("/v1/bookings"))
        .bearer_auth(&renter.access_token)
        .header("Idempotency-Key", key)
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// `GET /v1/quote` of one GPU over `[from, from + 1 h)`, at `bid` (on demand: `None`).
async fn quote(app: &TestApp, listing: &str, from: DateTime<Utc>, bid: Option<i64>) -> Value {
    let mut url = reqwest::Url::parse(&app.url("/v1/quote")).unwrap();
    url.query_pairs_mut()
        .append_pair("listing_id", listing)
        .append_pair("gpu_count", "1")
        .append_pair("starts_at", &from.to_rfc3339())
        .append_pair("ends_at", &(from + Duration::hours(1)).to_rfc3339());
    if let Some(bid) = bid {
        url.query_pairs_mut()
            .append_pair("tier", "interruptible")
            .append_pair("bid_per_gpu_hour", &bid.to_string());
    }
    let answer = app.client.get(url).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    answer.json().await.unwrap()
}

async fn booked(response: reqwest::Response) -> Value {
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    body
}

async fn booking(app: &TestApp, renter: &Session, id: &Value) -> Value {
    app.get_json(
        &format!("/v1/bookings/{}", id.as_str().unwrap()),
        Some(&renter.access_token),
    )
    .await
}

fn at(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

/// `demand` books the market's listing on demand from ten seconds on, displacing the renter's
/// started `bid` with notice: the bid as it is then (`interrupting`), and its refund.
async fn displace_from_soon(
    m: &crate::payments::Market,
    demand: &Session,
    bid: &Value,
    key: &str,
) -> (Value, i64) {
    let from = Utc::now() + Duration::seconds(10);
    booked(book(&m.app, demand, &m.listing, from, None, key).await).await;
    let displaced = booking(&m.app, &m.renter, &bid["id"]).await;
    assert_eq!(displaced["status"], "interrupting", "{displaced}");
    let refund = displaced["displacement"]["refund"]["amount"]
        .as_i64()
        .unwrap();
    (displaced, refund)
}

/// A market through Stripe's wire format (payouts enabled, two seconds of notice) whose 1.50 an
/// hour listing takes bids from 0.50.
async fn stripe_bidding_market(backend: store::Backend) -> crate::payments::Market {
    use crate::payments::{enable_payouts_of, market_configured};
    let m = market_configured(backend, |c| c.payments.interrupt_notice_secs = 2).await;
    enable_payouts_of(&m.app, &m.org, &m.admin).await;
    let bids = m
        .app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/listings/{}", m.listing),
            Some(&m.admin.access_token),
            Some(json!({"price": {"min_bid_per_gpu_hour": 50}})),
        )
        .await;
    assert_eq!(bids.status(), 200);
    m
}

async fn an_on_demand_booking_displaces_the_lowest_bid_with_notice_and_refund(
    backend: store::Backend,
) {
    let app = TestApp::spawn_with(backend, short_notice).await;
    let _dispatch = Dispatcher::start(&app);
    let (receiver, _) = quick_receiver().await;
    let listing = bidding_listing(&app, 2).await;
    let (low, high, demand) = (
        app.register("low@example.com").await,
        app.register("high@example.com").await,
        app.register("demand@example.com").await,
    );
    let endpoint: Value = app
        .post(
            "/v1/webhook-endpoints",
            Some(&low.access_token),
            json!({"url": receiver, "events": ["booking.interrupting", "booking.interrupted"]}),
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

    // Bad tiers and bids are refused naming the field; nothing is booked.
    let now = Utc::now();
    for (body, field) in [
        (json!({"tier": "interruptible"}), "bid_per_gpu_hour"),
        (
            json!({"tier": "interruptible", "bid_per_gpu_hour": 49}),
            "bid_per_gpu_hour",
        ),
        (json!({"bid_per_gpu_hour": 70}), "bid_per_gpu_hour"),
        (json!({"tier": "spot", "bid_per_gpu_hour": 70}), "tier"),
    ] {
        let mut request = json!({
            "listing_id": listing, "gpu_count": 1,
            "starts_at": now + Duration::hours(1), "ends_at": now + Duration::hours(2),
        });
        for (k, v) in body.as_object().unwrap() {
            request[k] = v.clone();
        }
        let refused = app
            .client
            .post(app.url("/v1/bookings"))
            .bearer_auth(&low.access_token)
            .header("Idempotency-Key", format!("bad-{field}-{request}"))
            .json(&request)
            .send()
            .await
            .unwrap();
        let problem = assert_problem(refused, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }

    // Both GPUs taken by bids from now: 0.60 (made first) and 0.80, each 1 h.
    let now = Utc::now();
    let low_booking = booked(book(&app, &low, &listing, now, Some(60), "low").await).await;
    let high_booking = booked(book(&app, &high, &listing, now, Some(80), "high").await).await;
    assert_eq!(
        (
            &low_booking["tier"],
            &low_booking["bid_per_gpu_hour"],
            &low_booking["amount_per_gpu_hour"],
            &low_booking["price"]["amount"],
            &low_booking["no_guarantee_reason"],
        ),
        (
            &json!("interruptible"),
            &json!(60),
            &json!(60),
            &json!(60),
            &json!("interruptible")
        ),
        "{low_booking}"
    );
    // GPUs like the low bid's (its own not counted): one is free, so the minimum holds.
    let shown = booking(&app, &low, &low_booking["id"]).await;
    assert_eq!(shown["min_bid_per_gpu_hour_now"], 50, "{shown}");

    // On demand from now: the low bid has started, so its GPU is free only after the notice
    // — as the quote predicts.
    let predicted = quote(&app, &listing, Utc::now(), None).await;
    assert_eq!(
        (&predicted["holds"], &predicted["refusal"]["code"]),
        (&json!(false), &json!("booking_conflict")),
        "{predicted}"
    );
    assert!(
        predicted["refusal"]["earliest_starts_at"].is_string(),
        "{predicted}"
    );
    let later = quote(&app, &listing, Utc::now() + Duration::seconds(10), None).await;
    assert_eq!(
        (&later["holds"], &later["displaces"], &later["total"]),
        (
            &json!(true),
            &json!({"bookings": 1, "gpus": 1}),
            &json!({"amount": 200, "currency": "USD"})
        ),
        "{later}"
    );
    let refused = assert_problem(
        book(&app, &demand, &listing, Utc::now(), None, "too-soon").await,
        409,
        "booking_conflict",
    )
    .await;
    let earliest = at(&refused["earliest_starts_at"]);
    assert!(
        earliest > Utc::now() && earliest <= Utc::now() + Duration::seconds(2),
        "{refused}"
    );
    let untouched = booking(&app, &low, &low_booking["id"]).await;
    assert!(untouched["displacement"].is_null(), "{untouched}");

    // From the notice's end: the lowest bid is displaced with its notice, the higher stays.
    let displacing_at = Utc::now() + Duration::seconds(10);
    let on_demand =
        booked(book(&app, &demand, &listing, displacing_at, None, "demand").await).await;
    assert_eq!(
        (
            &on_demand["tier"],
            &on_demand["amount_per_gpu_hour"],
            &on_demand["bid_per_gpu_hour"]
        ),
        (&json!("on_demand"), &json!(200), &Value::Null),
        "{on_demand}"
    );
    let displaced = booking(&app, &low, &low_booking["id"]).await;
    assert_eq!(displaced["status"], "interrupting", "{displaced}");
    let access_until = at(&displaced["access_until"]);
    assert_eq!(
        displaced["access_until"], displaced["ends_at"],
        "{displaced}"
    );
    let booked_until = at(&low_booking["ends_at"]);
    assert_eq!(
        at(&displaced["displacement"]["booked_ends_at"]),
        booked_until
    );
    assert!(access_until <= displacing_at, "{displaced}");
    assert!(
        access_until > at(&displaced["displacement"]["at"]),
        "it gets its notice: {displaced}"
    );
    // The part after the access ends, pro rata of 0.60 over the hour, rounded down.
    let starts = at(&low_booking["starts_at"]);
    let unused = (booked_until - access_until).num_seconds();
    let whole = (booked_until - starts).num_seconds();
    assert_eq!(
        displaced["displacement"]["refund"],
        json!({"amount": 60 * unused / whole, "currency": "USD"}),
        "{displaced}"
    );
    assert!(
        displaced["displacement"]["refunded_at"].is_string(),
        "{displaced}"
    );
    let kept = booking(&app, &high, &high_booking["id"]).await;
    assert!(kept["displacement"].is_null(), "{kept}");
    assert!(
        kept["status"] == "confirmed" || kept["status"] == "active",
        "{kept}"
    );

    // It still has access until the notice runs out; then the sweep ends it.
    let told =
        deliveries_retried_until(&app, &endpoint, &low.access_token, "booking.interrupting").await;
    assert_eq!(told["status"], "delivered");
    tokio::time::sleep((access_until - Utc::now()).to_std().unwrap_or_default()).await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let swept = app.app.sweep_bookings().await.unwrap();
    assert_eq!(swept.interrupted, 1, "{swept:?}");
    let ended = booking(&app, &low, &low_booking["id"]).await;
    assert_eq!(ended["status"], "interrupted", "{ended}");
    deliveries_retried_until(&app, &endpoint, &low.access_token, "booking.interrupted").await;
    let access = app
        .get(
            &format!(
                "/v1/bookings/{}/access",
                low_booking["id"].as_str().unwrap()
            ),
            Some(&low.access_token),
        )
        .await;
    assert_eq!(access.status(), 409);
}

async fn a_higher_bid_displaces_a_lower_one_and_an_unstarted_one_goes_at_once(
    backend: store::Backend,
) {
    let app = TestApp::spawn_with(backend, short_notice).await;
    let listing = bidding_listing(&app, 1).await;
    let (first, second, third) = (
        app.register("first@example.com").await,
        app.register("second@example.com").await,
        app.register("third@example.com").await,
    );
    let tomorrow = Utc::now() + Duration::days(1);
    let earlier = booked(book(&app, &first, &listing, tomorrow, Some(60), "a").await).await;
    // The only GPU is held at 0.60: an equal bid displaces nothing; 0.61 does — as the quotes
    // predict, naming the bid that would hold.
    let equal = quote(&app, &listing, tomorrow, Some(60)).await;
    assert_eq!(
        (
            &equal["holds"],
            &equal["min_bid_per_gpu_hour_now"],
            &equal["refusal"]["code"]
        ),
        (&json!(false), &json!(61), &json!("booking_conflict")),
        "{equal}"
    );
    let higher_quote = quote(&app, &listing, tomorrow, Some(61)).await;
    assert_eq!(
        (
            &higher_quote["holds"],
            &higher_quote["displaces"],
            &higher_quote["total"],
            &higher_quote["tier"],
            &higher_quote["bid_per_gpu_hour"]
        ),
        (
            &json!(true),
            &json!({"bookings": 1, "gpus": 1}),
            &json!({"amount": 61, "currency": "USD"}),
            &json!("interruptible"),
            &json!(61)
        ),
        "{higher_quote}"
    );
    // A quote has no side effect.
    let shown = booking(&app, &first, &earlier["id"]).await;
    assert_eq!(shown["status"], "confirmed", "{shown}");
    assert_problem(
        book(&app, &second, &listing, tomorrow, Some(60), "equal").await,
        409,
        "booking_conflict",
    )
    .await;
    let shown = booking(&app, &second, &earlier["id"]).await;
    assert!(shown["displacement"].is_null(), "{shown}");
    let higher = booked(book(&app, &second, &listing, tomorrow, Some(61), "higher").await).await;
    let gone = booking(&app, &first, &earlier["id"]).await;
    assert_eq!(
        gone["status"], "interrupted",
        "not started: at once: {gone}"
    );
    assert_eq!(gone["ends_at"], earlier["ends_at"], "{gone}");
    assert_eq!(
        gone["displacement"]["refund"],
        json!({"amount": 60, "currency": "USD"}),
        "refunded in full: {gone}"
    );
    assert!(gone["displacement"]["booked_ends_at"].is_null(), "{gone}");
    // What would hold now for GPUs like the displaced one's: one above the 0.61 that holds.
    let higher_shown = booking(&app, &second, &higher["id"]).await;
    assert_eq!(
        higher_shown["min_bid_per_gpu_hour_now"], 50,
        "its own GPUs: {higher_shown}"
    );
    // Availability and search count the GPU held at a bid as free for on demand, and say so.
    let hour = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    // Inside the booking's hour (whole seconds).
    let (from, until) = (
        hour(tomorrow + Duration::seconds(1)),
        hour(tomorrow + Duration::minutes(59)),
    );
    let mut url =
        reqwest::Url::parse(&app.url(&format!("/v1/listings/{listing}/availability"))).unwrap();
    url.query_pairs_mut()
        .append_pair("from", &from)
        .append_pair("to", &until);
    let available: Value = app
        .client
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            &available["segments"][0]["free_gpus"],
            &available["segments"][0]["interruptible_gpus"]
        ),
        (&json!(1), &json!(1)),
        "{available}"
    );
    let mut url = reqwest::Url::parse(&app.url("/v1/listings")).unwrap();
    url.query_pairs_mut()
        .append_pair("available_from", &from)
        .append_pair("available_until", &until)
        .append_pair("gpu_count", "1");
    let found: Value = app
        .client
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        found["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["id"] == json!(listing)),
        "{found}"
    );
    // An on-demand booking displaces the bid in turn.
    booked(book(&app, &third, &listing, tomorrow, None, "demand").await).await;
    let gone = booking(&app, &second, &higher["id"]).await;
    assert_eq!(gone["status"], "interrupted", "{gone}");
    // Nothing is left to displace: a further request conflicts.
    assert_problem(
        book(&app, &first, &listing, tomorrow, Some(500), "outbid").await,
        409,
        "booking_conflict",
    )
    .await;
    // A listing that takes no bids refuses an interruptible booking, naming the tier.
    let p = provider(&app, "other@example.com").await;
    let fixed = list(&app, &p, json!({})).await;
    let problem = assert_problem(
        book(&app, &first, &fixed, tomorrow, Some(500), "fixed").await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "tier", "{problem}");
}

/// With Stripe: a paid, started bid displaced is refunded the part after its notice — one
/// refund request under one key, the ledger's refund rows matching it, made once however often
/// the sweep looks; an unpaid one displaced has its PaymentIntent cancelled and nothing refunded.
async fn with_stripe_a_displaced_booking_is_refunded_once_through_the_ledger(
    backend: store::Backend,
) {
    use crate::payments::{deliver_signed, event, intent_object};
    let m = stripe_bidding_market(backend).await;
    let other = m.app.register("other@example.com").await;
    let demand = m.app.register("demand@example.com").await;

    // A bid of 1.00 from now, paid; another of 0.60 tomorrow, left unpaid.
    let paid =
        booked(book(&m.app, &m.renter, &m.listing, Utc::now(), Some(100), "paid").await).await;
    assert_eq!(paid["status"], "pending_payment", "{paid}");
    deliver_signed(
        &m.app,
        &event(
            "evt_bid_paid",
            "payment_intent.succeeded",
            intent_object(&paid, "succeeded"),
        ),
    )
    .await;
    let tomorrow = Utc::now() + Duration::days(1);
    let unpaid = booked(book(&m.app, &other, &m.listing, tomorrow, Some(60), "unpaid").await).await;

    // On demand tomorrow: the unpaid bid goes at once, its PaymentIntent cancelled.
    booked(
        book(
            &m.app,
            &demand,
            &m.listing,
            tomorrow,
            None,
            "demand-tomorrow",
        )
        .await,
    )
    .await;
    let gone = booking(&m.app, &other, &unpaid["id"]).await;
    assert_eq!(gone["status"], "interrupted", "{gone}");
    assert_eq!(gone["displacement"]["refund"]["amount"], 0, "{gone}");
    let intent = unpaid["payment"]["payment_intent_id"].as_str().unwrap();
    assert_eq!(
        m.stripe
            .requests_to("POST", &format!("/v1/payment_intents/{intent}/cancel"))
            .len(),
        1
    );

    // On demand from the notice's end: the paid bid is refunded the rest, once.
    let (displaced, refund) = displace_from_soon(&m, &demand, &paid, "demand-now").await;
    assert!(refund > 90 && refund < 100, "most of the hour: {displaced}");
    assert!(
        displaced["displacement"]["refunded_at"].is_string(),
        "{displaced}"
    );
    let refunds = m.stripe.requests_to("POST", "/v1/refunds");
    assert_eq!(refunds.len(), 1, "{refunds:?}");
    assert_eq!(
        refunds[0].field("amount"),
        Some(refund.to_string().as_str())
    );
    assert_eq!(
        refunds[0].idempotency_key.as_deref(),
        Some(
            format!(
                "booking-{}-interruption-refund",
                paid["id"].as_str().unwrap()
            )
            .as_str()
        )
    );
    let sweep = m.app.app.sweep_bookings().await.unwrap();
    assert_eq!(sweep.displacements_given_back, 0, "{sweep:?}");
    assert_eq!(m.stripe.requests_to("POST", "/v1/refunds").len(), 1);
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    let refunded: i64 = crate::payments::kinds_and_amounts(&spend)
        .into_iter()
        .filter(|(kind, _)| kind == "refund")
        .map(|(_, amount)| amount)
        .sum();
    assert_eq!(refunded, -refund, "{spend}");
}

/// The market's history: once the hour has closed the sweeper rolls it up — listings and
/// prices of the L4s and of every listing, GPU-hours booked, and the clearing bid (the lowest
/// that held), a provider's own member's bid left out; rolled up once, never recomputed.
async fn the_history_shows_the_clearing_bid_and_leaves_a_provider_s_own_bookings_out(
    backend: store::Backend,
) {
    let app = TestApp::spawn_with(backend, short_notice).await;
    let p = provider(&app, "provider@example.com").await;
    let l4 = |gpus: i64, price: i64| {
        json!({
            "hardware": {"gpu_model": "L4", "gpu_count": gpus, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
            "price": {"amount_per_gpu_hour": price, "currency": "USD", "min_bid_per_gpu_hour": 50},
        })
    };
    let cheap = list(&app, &p, l4(2, 200)).await;
    let dear = list(&app, &p, l4(1, 300)).await;
    let other = list(
        &app,
        &p,
        json!({"hardware": {"gpu_model": "H100", "gpu_count": 1, "vram_gb": 80, "cpu_model": "x", "ram_gb": 64},
               "price": {"amount_per_gpu_hour": 900, "currency": "USD"}}),
    )
    .await;
    let renter = app.register("renter@example.com").await;
    // Within this hour: a bid of 0.60 and an on-demand booking by the renter, and a bid of
    // 0.55 by the provider's own member on their own machine.
    let now = Utc::now();
    let hour = domain::market::Bucket::Hour.start_of(now);
    let end = hour + Duration::hours(1);
    let minutes = |n| Duration::minutes(n);
    let book_for = async |who: &Session, listing: &str, bid: Option<i64>, key: &str| {
        // The later one starts after the others.
        let from = if key == "later" {
            now + minutes(6)
        } else {
            now
        };
        let mut body = json!({
            "listing_id": listing, "gpu_count": 1,
            "starts_at": from, "ends_at": from + minutes(5),
        });
        if let Some(bid) = bid {
            body["tier"] = json!("interruptible");
            body["bid_per_gpu_hour"] = json!(bid);
        }
        let made = app
            .client
            .post(app.url("/v1/bookings"))
            .bearer_auth(&who.access_token)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
            .await
            .unwrap();
        booked(made).await
    };
    let bid = book_for(&renter, &cheap, Some(60), "bid").await;
    let on_demand = book_for(&renter, &dear, None, "on-demand").await;
    book_for(&p.member, &cheap, Some(55), "own").await;
    book_for(&renter, &other, None, "h100").await;
    let held = |b: &Value| {
        let (from, until) = (at(&b["starts_at"]).max(hour), at(&b["ends_at"]).min(end));
        (until - from).num_seconds().max(0) as f64 / 3600.0
    };
    let l4_hours = held(&bid) + held(&on_demand);

    // Not closed yet: nothing. Closed (the sweeper an hour on): rolled up, newest first.
    let history = |gpu: &'static str| {
        let app = &app;
        async move {
            let mut url = reqwest::Url::parse(&app.url("/v1/market/history")).unwrap();
            url.query_pairs_mut()
                .append_pair("bucket", "hour")
                .append_pair("gpu", gpu)
                .append_pair("from", &hour.to_rfc3339())
                .append_pair("until", &end.to_rfc3339());
            let answer = app.client.get(url).send().await.unwrap();
            let status = answer.status();
            let body: Value = answer.json().await.unwrap();
            assert_eq!(status, 200, "{body}");
            body
        }
    };
    assert_eq!(history("L4").await["items"], json!([]));
    let rolled = app.app.roll_up_market(end + minutes(1)).await.unwrap();
    assert_eq!(rolled, 4, "the closed hour and three before it");
    let shown = history("L4").await;
    assert_eq!(shown["gpu"], "l4-24gb", "{shown}");
    let item = &shown["items"][0];
    assert_eq!(at(&item["start"]), hour, "{shown}");
    assert_eq!(
        (
            &item["listings"],
            &item["gpus_listed"],
            &item["price_per_gpu_hour"],
            &item["clearing_bid_per_gpu_hour"]
        ),
        (
            &json!(2),
            &json!(3),
            &json!({"p10": 200, "median": 200, "p90": 300, "currency": "USD"}),
            &json!(60)
        ),
        "the own member's 0.55 is left out: {shown}"
    );
    let booked_hours = item["gpu_hours_booked"].as_f64().unwrap();
    assert!(
        (booked_hours - l4_hours).abs() < 0.001,
        "{booked_hours} vs {l4_hours}"
    );
    let all = history("*").await;
    assert_eq!(
        (
            &all["items"][0]["listings"],
            &all["items"][0]["price_per_gpu_hour"]["p90"]
        ),
        (&json!(3), &json!(900)),
        "{all}"
    );

    // Final once written: a later booking and another sweep change nothing.
    book_for(&renter, &dear, Some(70), "later").await;
    // (The next sweep goes on with older buckets, never this one.)
    app.app.roll_up_market(end + minutes(1)).await.unwrap();
    assert_eq!(history("L4").await, shown);

    // Bad input names the field.
    for (query, field) in [("gpu=no-such-gpu", "gpu"), ("bucket=week", "bucket")] {
        let answer = app
            .client
            .get(app.url(&format!("/v1/market/history?{query}")))
            .send()
            .await
            .unwrap();
        let problem = assert_problem(answer, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
}

/// `PATCH /v1/bookings/{id}`: a bid raised holds against what would have displaced it, is
/// never lowered, costs the difference (which the budget judges), and is the renter's alone.
async fn a_bid_is_raised_never_lowered_and_the_budget_judges_the_difference(
    backend: store::Backend,
) {
    let app = TestApp::spawn_with(backend, short_notice).await;
    let listing = bidding_listing(&app, 1).await;
    let (mine, other, demand) = (
        app.register("mine@example.com").await,
        app.register("other@example.com").await,
        app.register("demand@example.com").await,
    );
    let tomorrow = Utc::now() + Duration::days(1);
    let held = booked(book(&app, &mine, &listing, tomorrow, Some(60), "mine").await).await;
    let path = format!("/v1/bookings/{}", held["id"].as_str().unwrap());
    let raise = |who: Option<&Session>, bid: i64| {
        let (app, path) = (&app, &path);
        let token = who.map(|s| s.access_token.clone());
        async move {
            app.call(
                reqwest::Method::PATCH,
                path,
                token.as_deref(),
                Some(json!({"bid_per_gpu_hour": bid})),
            )
            .await
        }
    };
    // Only its renter; never lower.
    assert_eq!(raise(None, 80).await.status(), 401);
    assert_eq!(raise(Some(&other), 80).await.status(), 404);
    let lower = assert_problem(raise(Some(&mine), 60).await, 422, "validation_failed").await;
    assert_eq!(lower["errors"][0]["field"], "bid_per_gpu_hour", "{lower}");
    // Raised to 0.80: repriced, and a bid of 0.70 no longer displaces it.
    let raised = raise(Some(&mine), 80).await;
    assert_eq!(raised.status(), 200);
    let raised: Value = raised.json().await.unwrap();
    assert_eq!(
        (
            &raised["bid_per_gpu_hour"],
            &raised["amount_per_gpu_hour"],
            &raised["price"]["amount"]
        ),
        (&json!(80), &json!(80), &json!(80)),
        "{raised}"
    );
    assert_problem(
        book(&app, &other, &listing, tomorrow, Some(70), "outbid").await,
        409,
        "booking_conflict",
    )
    .await;
    assert_eq!(
        quote(&app, &listing, tomorrow, Some(70)).await["min_bid_per_gpu_hour_now"],
        81
    );
    // The budget judges the difference: 1.00 a month, 0.80 spent; to 1.50 would cost 0.70 more.
    let budget = app
        .call(
            reqwest::Method::PUT,
            "/v1/me/budget",
            Some(&mine.access_token),
            Some(json!({"amount_per_month": 100, "currency": "USD"})),
        )
        .await;
    assert_eq!(budget.status(), 200);
    let refused = assert_problem(raise(Some(&mine), 150).await, 409, "budget_exceeded").await;
    assert_eq!(refused["left"]["amount"], 20, "{refused}");
    assert_eq!(
        booking(&app, &mine, &held["id"]).await["bid_per_gpu_hour"],
        80
    );
    // An on-demand booking has no bid; a displaced one can no longer be raised.
    let fixed = booked(book(&app, &demand, &listing, tomorrow, None, "demand").await).await;
    assert_eq!(
        booking(&app, &mine, &held["id"]).await["status"],
        "interrupted"
    );
    assert_problem(raise(Some(&mine), 90).await, 409, "booking_not_active").await;
    let on_demand = app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/bookings/{}", fixed["id"].as_str().unwrap()),
            Some(&demand.access_token),
            Some(json!({"bid_per_gpu_hour": 500})),
        )
        .await;
    assert_problem(on_demand, 422, "validation_failed").await;
}

/// With Stripe, `PATCH` charges the difference as a PaymentIntent of its own: the old bid
/// holds until Stripe reports it paid (a later raise replaces one still unpaid, its intent
/// cancelled), then the booking is repriced with the raise's charge in the ledger; a refund is
/// split across the booking's intents, the raise's first, none above what it charged; a raise
/// waiting when its booking is cancelled is withdrawn, and refunded in full if paid all the same.
async fn with_stripe_a_raise_holds_from_its_payment_and_refunds_split_across_intents(
    backend: store::Backend,
) {
    use crate::payments::{deliver_signed, event, intent_object, raise_intent};
    let m = stripe_bidding_market(backend).await;
    let demand = m.app.register("demand@example.com").await;
    let held =
        booked(book(&m.app, &m.renter, &m.listing, Utc::now(), Some(60), "held").await).await;
    let path = format!("/v1/bookings/{}", held["id"].as_str().unwrap());
    let raise = |bid: i64| {
        let (app, path, token) = (&m.app, &path, m.renter.access_token.clone());
        async move {
            app.call(
                reqwest::Method::PATCH,
                path,
                Some(&token),
                Some(json!({"bid_per_gpu_hour": bid})),
            )
            .await
        }
    };
    // Not paid yet: nothing to raise.
    assert_problem(raise(90).await, 409, "booking_not_active").await;
    deliver_signed(
        &m.app,
        &event(
            "evt_held_paid",
            "payment_intent.succeeded",
            intent_object(&held, "succeeded"),
        ),
    )
    .await;

    // A budget counts a raise waiting for its payment, as it counts a held booking.
    let budget = m
        .app
        .call(
            reqwest::Method::PUT,
            "/v1/me/budget",
            Some(&m.renter.access_token),
            Some(json!({"amount_per_month": 100_000, "currency": "USD"})),
        )
        .await;
    assert_eq!(budget.status(), 200);
    let spent = || async {
        let budget: Value = m
            .app
            .get_json("/v1/me/budget", Some(&m.renter.access_token))
            .await;
        budget["spent"].clone()
    };
    assert_eq!(spent().await, 60);
    // Raised to 0.90, then to 1.00 before paying: the first raise's intent is cancelled.
    let first: Value = raise(90).await.json().await.unwrap();
    assert_eq!(first["bid_raise"]["status"], "pending_payment", "{first}");
    let first_intent = first["bid_raise"]["payment"]["payment_intent_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = raise(100).await;
    assert_eq!(second.status(), 200);
    let second: Value = second.json().await.unwrap();
    assert_eq!(
        (
            &second["bid_per_gpu_hour"],
            &second["price"]["amount"],
            &second["bid_raise"]["bid_per_gpu_hour"],
            &second["bid_raise"]["status"],
            &second["bid_raise"]["payment"]["amount"],
            &second["bid_raise"]["payment"]["platform_fee"],
        ),
        (
            &json!(60),
            &json!(60),
            &json!(100),
            &json!("pending_payment"),
            &json!(40),
            &json!(4)
        ),
        "the old bid holds until the raise is paid: {second}"
    );
    assert_eq!(
        spent().await,
        100,
        "the booking and the raise waiting, not the one replaced"
    );
    assert!(
        second["bid_raise"]["payment"]["client_secret"].is_string(),
        "{second}"
    );
    // The provider sees the raise, never what pays for it.
    let seen: Value = m.app.get_json(&path, Some(&m.admin.access_token)).await;
    assert_eq!(seen["bid_raise"]["status"], "pending_payment", "{seen}");
    assert!(
        seen["bid_raise"]["payment"]["client_secret"].is_null(),
        "{seen}"
    );
    let listed: Value = m
        .app
        .get_json(
            &format!("/v1/listings/{}/bookings", m.listing),
            Some(&m.admin.access_token),
        )
        .await;
    assert!(
        listed["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["bid_raise"].is_null()
                || b["bid_raise"]["payment"]["client_secret"].is_null()),
        "{listed}"
    );
    assert_eq!(
        m.stripe
            .requests_to(
                "POST",
                &format!("/v1/payment_intents/{first_intent}/cancel")
            )
            .len(),
        1
    );
    let charged = m.stripe.requests_to("POST", "/v1/payment_intents");
    let charge = charged.last().unwrap();
    assert_eq!(
        (
            charge.field("amount"),
            charge.field("application_fee_amount")
        ),
        (Some("40"), Some("4"))
    );
    // The first raise's intent paid anyway (it was cancelled): given back whole, changing nothing.
    let stale = raise_intent(&first, "succeeded");
    deliver_signed(
        &m.app,
        &event("evt_first_raise_paid", "payment_intent.succeeded", stale),
    )
    .await;
    let now = booking(&m.app, &m.renter, &held["id"]).await;
    assert_eq!(now["bid_per_gpu_hour"], 60, "{now}");

    // Paid, told twice at once under two event ids: it holds once, and is not given back.
    let told = |id: &str| {
        event(
            id,
            "payment_intent.succeeded",
            raise_intent(&second, "succeeded"),
        )
    };
    let (once, twice) = (told("evt_raise_paid"), told("evt_raise_paid_again"));
    futures_util::future::join(
        deliver_signed(&m.app, &once),
        deliver_signed(&m.app, &twice),
    )
    .await;
    let now = booking(&m.app, &m.renter, &held["id"]).await;
    assert_eq!(
        (
            &now["bid_per_gpu_hour"],
            &now["amount_per_gpu_hour"],
            &now["price"]["amount"],
            &now["payment"]["platform_fee"],
            &now["bid_raise"]["status"],
        ),
        (
            &json!(100),
            &json!(100),
            &json!(100),
            &json!(10),
            &json!("paid")
        ),
        "{now}"
    );
    assert!(
        now["bid_raise"]["payment"]["client_secret"].is_null(),
        "{now}"
    );
    // A bid of 0.95 no longer displaces it.
    assert_problem(
        book(
            &m.app,
            &demand,
            &m.listing,
            Utc::now() + Duration::seconds(10),
            Some(95),
            "outbid",
        )
        .await,
        409,
        "booking_conflict",
    )
    .await;

    // Displaced by an on-demand booking: the refund comes from the raise first, then the rest
    // — which Stripe refuses the first time: the sweep makes it, asking nothing of the raise's
    // part again.
    m.stripe
        .delay_next("/v1/refunds", std::time::Duration::from_millis(1));
    m.stripe.fail_next("/v1/refunds", 500, "try again");
    let (displaced, refund) = displace_from_soon(&m, &demand, &held, "demand").await;
    assert!(
        refund > 90 && refund < 100,
        "most of the hour at 1.00: {displaced}"
    );
    assert!(
        displaced["displacement"]["refunded_at"].is_null(),
        "{displaced}"
    );
    let sweep = m.app.app.sweep_bookings().await.unwrap();
    assert_eq!(sweep.displacements_given_back, 1, "{sweep:?}");
    let raise_intent_id = second["bid_raise"]["payment"]["payment_intent_id"]
        .as_str()
        .unwrap();
    let refunds = m.stripe.requests_to("POST", "/v1/refunds");
    let of = |intent: &str| {
        refunds
            .iter()
            .filter(|r| r.field("payment_intent") == Some(intent))
            .map(|r| r.field("amount").unwrap().parse::<i64>().unwrap())
            .collect::<Vec<_>>()
    };
    let own = held["payment"]["payment_intent_id"].as_str().unwrap();
    assert_eq!(of(raise_intent_id), vec![40], "{refunds:?}");
    assert_eq!(
        of(own),
        vec![refund - 40, refund - 40],
        "refused, then made: {refunds:?}"
    );
    assert_eq!(
        of(&first_intent).len(),
        1,
        "the stale raise given back: {refunds:?}"
    );
    let ledger: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    let sum = |kind: &str| -> i64 {
        crate::payments::kinds_and_amounts(&ledger)
            .into_iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, a)| a)
            .sum()
    };
    assert_eq!(sum("charge"), 60 + 40 + 30, "{ledger}");
    assert_eq!(sum("refund"), -(refund + 30), "{ledger}");
    // The sweep makes no refund twice.
    m.app.app.sweep_bookings().await.unwrap();
    assert_eq!(
        m.stripe.requests_to("POST", "/v1/refunds").len(),
        refunds.len()
    );

    // A raise paid after its booking was cancelled is given back in full.
    let later = Utc::now() + Duration::days(1);
    let other = booked(book(&m.app, &m.renter, &m.listing, later, Some(60), "later").await).await;
    deliver_signed(
        &m.app,
        &event(
            "evt_later_paid",
            "payment_intent.succeeded",
            intent_object(&other, "succeeded"),
        ),
    )
    .await;
    let pending: Value = m
        .app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/bookings/{}", other["id"].as_str().unwrap()),
            Some(&m.renter.access_token),
            Some(json!({"bid_per_gpu_hour": 70})),
        )
        .await
        .json()
        .await
        .unwrap();
    let cancelled = m
        .app
        .post(
            &format!("/v1/bookings/{}/cancel", other["id"].as_str().unwrap()),
            Some(&m.renter.access_token),
            json!({}),
        )
        .await;
    assert!(cancelled.status().is_success(), "{}", cancelled.status());
    // Its raise waiting for payment is withdrawn with it: the PaymentIntent cancelled.
    let late = pending["bid_raise"]["payment"]["payment_intent_id"]
        .as_str()
        .unwrap();
    let withdrawn = booking(&m.app, &m.renter, &other["id"]).await;
    assert_eq!(withdrawn["bid_raise"]["status"], "cancelled", "{withdrawn}");
    assert_eq!(
        m.stripe
            .requests_to("POST", &format!("/v1/payment_intents/{late}/cancel"))
            .len(),
        1
    );
    // Paid all the same (as a payment racing the cancel would be): given back whole.
    deliver_signed(
        &m.app,
        &event(
            "evt_late_raise",
            "payment_intent.succeeded",
            raise_intent(&pending, "succeeded"),
        ),
    )
    .await;
    let gone = booking(&m.app, &m.renter, &other["id"]).await;
    assert_eq!(
        (
            &gone["status"],
            &gone["price"]["amount"],
            &gone["bid_raise"]["status"]
        ),
        (&json!("cancelled"), &json!(60), &json!("refunded")),
        "{gone}"
    );
    let refunds = m.stripe.requests_to("POST", "/v1/refunds");
    let whole: Vec<_> = refunds
        .iter()
        .filter(|r| r.field("payment_intent") == Some(late))
        .map(|r| r.field("amount"))
        .collect();
    assert_eq!(whole, vec![Some("10")], "{refunds:?}");
}
