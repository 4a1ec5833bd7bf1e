//! Payments through the real Stripe client crate, pointed at a local server that speaks
//! Stripe's wire format and records what it received: onboarding, destination charges,
//! signed webhooks (signed here in Rust and by Stripe's own Python library), refunds with
//! reversals, the ledger, and what Stripe failing leaves behind.

use std::process::{Command, Stdio};
use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};
use payments::testing::FakeStripe;
use reqwest::Method;
use serde_json::{Value, json};
use store::Backend;
use uuid::Uuid;

use crate::helpers::{Session, TestApp, assert_problem};

pub(crate) const WEBHOOK_SECRET: &str = "whsec_test_gpumarket";

on_backends!(
    onboarding_creates_one_account_and_payouts_gate_bookings,
    a_booking_is_charged_and_only_a_fresh_signed_webhook_confirms_it,
    cancellation_sends_one_refund_with_the_reversals,
    stripe_failing_leaves_clear_states,
    failed_payments_and_expired_holds_release_the_gpus,
    racing_cancels_of_a_started_booking_make_one_refund,
    a_cancel_retried_after_a_stripe_timeout_makes_one_refund,
    webhooks_that_do_not_match_the_booking_confirm_nothing,
    a_renter_has_a_bounded_number_of_unpaid_bookings,
    maintenance_interrupts_paid_bookings_and_gives_back_their_share,
);

pub(crate) struct Market {
    pub(crate) app: TestApp,
    pub(crate) stripe: FakeStripe,
    pub(crate) admin: Session,
    pub(crate) renter: Session,
    pub(crate) org: String,
    pub(crate) listing: String,
}

async fn market(backend: Backend) -> Market {
    market_with(backend, 1000).await
}

/// A market whose calls to Stripe time out after `stripe_timeout_ms`.
pub(crate) async fn market_with(backend: Backend, stripe_timeout_ms: u64) -> Market {
    market_configured(backend, |c| {
        c.payments.stripe_timeout_ms = stripe_timeout_ms
    })
    .await
}

/// A market whose configuration `adjust` changes last.
pub(crate) async fn market_configured(
    backend: Backend,
    adjust: impl FnOnce(&mut app::Config),
) -> Market {
    let stripe = FakeStripe::start().unwrap();
    let base = stripe.base_url().to_owned();
    let app = TestApp::spawn_with(backend, |c| {
        c.payments.stripe_secret_key = Some("sk_test_gpumarket".to_owned().into());
        c.payments.stripe_api_base = Some(base);
        c.payments.stripe_webhook_secret = Some(WEBHOOK_SECRET.to_owned().into());
        c.payments.stripe_timeout_ms = 1000;
        c.payments.platform_fee_bps = 1000;
        adjust(c);
    })
    .await;
    let admin = app.register("admin@example.com").await;
    let renter = app.register("renter@example.com").await;
    let org: Value = app
        .post("/v1/orgs", Some(&admin.access_token), json!({"name": "P"}))
        .await
        .json()
        .await
        .unwrap();
    let org = org["id"].as_str().unwrap().to_owned();
    let listing: Value = app
        .post(
            "/v1/listings",
            Some(&admin.access_token),
            json!({
                "org_id": org, "title": "L4", "region": "eu",
                "hardware": {"gpu_model": "L4", "gpu_count": 1, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
                "price": {"amount_per_gpu_hour": 150, "currency": "USD"},
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            }),
        )
        .await
        .json()
        .await
        .unwrap();
    Market {
        app,
        stripe,
        admin,
        renter,
        listing: listing["id"].as_str().unwrap().to_owned(),
        org,
    }
}

/// Signs `payload` as Stripe does, with Stripe's official Python library.
fn python_signature(payload: &str, timestamp: i64) -> String {
    let python = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut child = Command::new(&python)
        .args([
            "-c",
            "import sys, stripe; print(stripe.WebhookSignature.generate_signature_header(sys.stdin.read(), sys.argv[1], int(sys.argv[2])), end='')",
            WEBHOOK_SECRET,
            &timestamp.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("a Python interpreter (GPUMARKET_TEST_PYTHON)");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "Stripe's Python library is needed in {python} (scripts/check sets GPUMARKET_TEST_PYTHON to an environment with it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A charge's list of refunds, each a whole refund object.
fn refund_list(refunds: &[(Value, i64)]) -> Value {
    let data: Vec<Value> = refunds
        .iter()
        .map(|(id, amount)| {
            payments::testing::object("refund", json!({"id": id, "amount": amount}))
        })
        .collect();
    json!({"object": "list", "url": "/v1/refunds", "has_more": false, "data": data})
}

/// A whole Stripe event: `object`'s fields over Stripe's fixture of that object.
pub(crate) fn event(id: &str, kind: &str, object: Value) -> String {
    payments::testing::event(id, kind, object)
}

pub(crate) async fn deliver(
    app: &TestApp,
    payload: &str,
    signature: Option<&str>,
) -> reqwest::Response {
    let mut request = app
        .client
        .post(app.url("/v1/webhooks/stripe"))
        .header("content-type", "application/json")
        .body(payload.to_owned());
    if let Some(signature) = signature {
        request = request.header("Stripe-Signature", signature);
    }
    request.send().await.unwrap()
}

/// Delivers a correctly signed event (signed in Rust).
pub(crate) async fn deliver_signed(app: &TestApp, payload: &str) -> Value {
    let signature = payments::testing::sign(payload, WEBHOOK_SECRET, Utc::now().timestamp());
    let res = deliver(app, payload, Some(&signature)).await;
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "{body}: {payload}");
    body
}

pub(crate) async fn enable_payouts(m: &Market) -> String {
    enable_payouts_of(&m.app, &m.org, &m.admin).await
}

/// Payouts enabled for `org`: its Connect account onboarded (by its admin) and enabled, as
/// Stripe says in a signed `account.updated`. Returns the account's id.
pub(crate) async fn enable_payouts_of(app: &TestApp, org: &str, admin: &Session) -> String {
    let res = app
        .post(
            &format!("/v1/orgs/{org}/payouts/onboarding"),
            Some(&admin.access_token),
            json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let payouts: Value = res.json().await.unwrap();
    let account = payouts["account_id"].as_str().unwrap().to_owned();
    let updated = event(
        &format!("evt_account_{}", Uuid::new_v4().simple()),
        "account.updated",
        json!({"id": account, "object": "account", "charges_enabled": true, "payouts_enabled": true}),
    );
    deliver_signed(app, &updated).await;
    account
}

fn hours_from_now(h: i64) -> DateTime<Utc> {
    (Utc::now() + chrono::Duration::hours(h)).trunc_subsecs(0)
}

async fn book(m: &Market, hours: (i64, i64)) -> reqwest::Response {
    m.app
        .client
        .post(m.app.url("/v1/bookings"))
        .bearer_auth(&m.renter.access_token)
        .header("Idempotency-Key", Uuid::new_v4().to_string())
        .json(&json!({
            "listing_id": m.listing, "gpu_count": 1,
            "starts_at": hours_from_now(hours.0), "ends_at": hours_from_now(hours.1),
        }))
        .send()
        .await
        .unwrap()
}

pub(crate) fn intent_object(booking: &Value, status: &str) -> Value {
    json!({
        "id": booking["payment"]["payment_intent_id"], "object": "payment_intent",
        "amount": booking["price"]["amount"], "currency": "usd", "status": status,
        "application_fee_amount": booking["payment"]["platform_fee"],
        "metadata": {"booking_id": booking["id"]},
        "last_payment_error": if status == "requires_payment_method" { json!({"type": "card_error", "message": "Your card was declined."}) } else { Value::Null },
    })
}

/// The PaymentIntent of `booking`'s latest bid raise as Stripe's webhook carries it.
pub(crate) fn raise_intent(booking: &Value, status: &str) -> Value {
    let raise = &booking["bid_raise"];
    json!({
        "id": raise["payment"]["payment_intent_id"], "object": "payment_intent",
        "amount": raise["payment"]["amount"], "currency": "usd", "status": status,
        "application_fee_amount": raise["payment"]["platform_fee"],
        "metadata": {"booking_id": booking["id"]},
    })
}

async fn booking(m: &Market, id: &Value) -> Value {
    m.app
        .get_json(
            &format!("/v1/bookings/{}", id.as_str().unwrap()),
            Some(&m.renter.access_token),
        )
        .await
}

pub(crate) fn kinds_and_amounts(statement: &Value) -> Vec<(String, i64)> {
    statement["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_owned(),
                e["amount"].as_i64().unwrap(),
            )
        })
        .collect()
}

async fn onboarding_creates_one_account_and_payouts_gate_bookings(backend: Backend) {
    let m = market(backend).await;
    let path = format!("/v1/orgs/{}/payouts/onboarding", m.org);
    // Before onboarding, its machines cannot be booked.
    assert_problem(book(&m, (24, 28)).await, 409, "payouts_not_enabled").await;

    let member = m.app.register("member@example.com").await;
    crate::helpers::join(
        &m.app,
        &m.org,
        &m.admin.access_token,
        &member,
        "member@example.com",
        "member",
    )
    .await;
    assert_problem(
        m.app
            .post(&path, Some(&member.access_token), json!({}))
            .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        m.app
            .post(&path, Some(&m.renter.access_token), json!({}))
            .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        m.app.post(&path, None, json!({})).await,
        401,
        "unauthenticated",
    )
    .await;

    // Called again and again, and at once: one account. Stripe's 409 for a twin request
    // still in flight is waited out.
    m.stripe.fail_next(
        "/v1/accounts",
        409,
        "There is currently another in-progress request using this Idempotent Key.",
    );
    let sequential = [
        m.app
            .post(&path, Some(&m.admin.access_token), json!({}))
            .await,
        m.app
            .post(&path, Some(&m.admin.access_token), json!({}))
            .await,
    ];
    let concurrent = futures_util::future::join_all(
        (0..4).map(|_| m.app.post(&path, Some(&m.admin.access_token), json!({}))),
    )
    .await;
    let mut accounts = Vec::new();
    for res in sequential.into_iter().chain(concurrent) {
        assert_eq!(res.status(), 200);
        let body: Value = res.json().await.unwrap();
        assert!(
            body["url"]
                .as_str()
                .unwrap()
                .starts_with("https://connect.stripe.com/")
        );
        assert_eq!(body["charges_enabled"], false);
        accounts.push(body["account_id"].as_str().unwrap().to_owned());
    }
    accounts.dedup();
    assert_eq!(accounts.len(), 1, "{accounts:?}");
    let creations = m.stripe.requests_to("POST", "/v1/accounts");
    assert!(!creations.is_empty());
    let keys: std::collections::HashSet<_> = creations
        .iter()
        .map(|r| r.idempotency_key.clone())
        .collect();
    assert_eq!(
        keys.len(),
        1,
        "every creation carries the organisation's one key"
    );
    assert_eq!(creations[0].field("type"), Some("express"));
    assert_eq!(creations[0].field("metadata[org_id]"), Some(m.org.as_str()));
    assert_eq!(
        m.app.column("payout_accounts", "stripe_account_id").await,
        [accounts[0].clone()]
    );
    let links = m.stripe.requests_to("POST", "/v1/account_links");
    assert!(
        links
            .iter()
            .all(|r| r.field("account") == Some(accounts[0].as_str()))
    );
    assert!(
        links
            .iter()
            .all(|r| r.field("type") == Some("account_onboarding"))
    );

    // account.updated keeps the flags current; then the machine can be booked.
    let status: Value = m
        .app
        .get_json(
            &format!("/v1/orgs/{}/payouts", m.org),
            Some(&member.access_token),
        )
        .await;
    assert_eq!(status["payouts_enabled"], false);
    let payouts_path = format!("/v1/orgs/{}/payouts", m.org);
    assert_problem(
        m.app.get(&payouts_path, Some(&m.renter.access_token)).await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(m.app.get(&payouts_path, None).await, 401, "unauthenticated").await;
    let earnings_path = format!("/v1/orgs/{}/earnings", m.org);
    // Earnings are for owners and admins: a member lists machines but does not read the money.
    for outsider in [&m.renter, &member] {
        assert_problem(
            m.app
                .get(&earnings_path, Some(&outsider.access_token))
                .await,
            403,
            "forbidden",
        )
        .await;
    }
    assert_problem(
        m.app.get(&earnings_path, None).await,
        401,
        "unauthenticated",
    )
    .await;
    enable_payouts(&m).await;
    let status: Value = m
        .app
        .get_json(
            &format!("/v1/orgs/{}/payouts", m.org),
            Some(&member.access_token),
        )
        .await;
    assert_eq!(
        (
            status["charges_enabled"].clone(),
            status["payouts_enabled"].clone()
        ),
        (json!(true), json!(true))
    );
    assert_eq!(book(&m, (24, 28)).await.status(), 201);

    // Without Stripe configured, onboarding says so.
    let plain = TestApp::spawn(backend).await;
    let owner = plain.register("o@example.com").await;
    let org: Value = plain
        .post("/v1/orgs", Some(&owner.access_token), json!({"name": "Q"}))
        .await
        .json()
        .await
        .unwrap();
    assert_problem(
        plain
            .post(
                &format!(
                    "/v1/orgs/{}/payouts/onboarding",
                    org["id"].as_str().unwrap()
                ),
                Some(&owner.access_token),
                json!({}),
            )
            .await,
        409,
        "payments_not_configured",
    )
    .await;
}

async fn a_booking_is_charged_and_only_a_fresh_signed_webhook_confirms_it(backend: Backend) {
    let m = market(backend).await;
    let account = enable_payouts(&m).await;
    // 4 hours, 1 GPU, 150 cents per GPU-hour, 10 % fee.
    let res = book(&m, (24, 28)).await;
    assert_eq!(res.status(), 201);
    let booked: Value = res.json().await.unwrap();
    assert_eq!(booked["status"], "pending_payment");
    assert_eq!(booked["payment"]["provider"], "stripe");
    assert_eq!(booked["payment"]["amount"], 600);
    assert_eq!(booked["payment"]["platform_fee"], 60);
    assert!(
        booked["payment"]["client_secret"]
            .as_str()
            .unwrap()
            .contains("_secret_")
    );

    let intents = m.stripe.requests_to("POST", "/v1/payment_intents");
    assert_eq!(intents.len(), 1);
    let sent = &intents[0];
    assert_eq!(sent.field("amount"), Some("600"));
    assert_eq!(sent.field("currency"), Some("usd"));
    assert_eq!(sent.field("application_fee_amount"), Some("60"));
    assert_eq!(
        sent.field("transfer_data[destination]"),
        Some(account.as_str())
    );
    assert_eq!(sent.field("metadata[booking_id]"), booked["id"].as_str());
    assert_eq!(
        sent.idempotency_key.as_deref(),
        Some(format!("booking-{}-payment-intent", booked["id"].as_str().unwrap()).as_str())
    );
    assert_eq!(
        sent.authorization.as_deref(),
        Some("Bearer sk_test_gpumarket")
    );
    assert!(sent.stripe_version.is_some());

    let succeeded = event(
        "evt_paid_1",
        "payment_intent.succeeded",
        intent_object(&booked, "succeeded"),
    );
    let now = Utc::now().timestamp();
    // Forged, stale, unsigned, or for another payload: 400, and nothing changes.
    let forged = payments::testing::sign(&succeeded, "whsec_someone_else", now);
    let stale = python_signature(&succeeded, now - 301);
    let other = python_signature(
        &event("evt_other", "payment_intent.succeeded", json!({})),
        now,
    );
    for signature in [
        Some(forged.as_str()),
        Some(stale.as_str()),
        Some(other.as_str()),
        None,
        Some("t=x,v1=zz"),
    ] {
        assert_problem(
            deliver(&m.app, &succeeded, signature).await,
            400,
            "invalid_signature",
        )
        .await;
    }
    assert_eq!(
        booking(&m, &booked["id"]).await["status"],
        "pending_payment"
    );

    // Signed by Stripe's own library, fresh: confirmed, and the money recorded.
    let signature = python_signature(&succeeded, now);
    let res = deliver(&m.app, &succeeded, Some(&signature)).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["outcome"], "processed");
    let confirmed = booking(&m, &booked["id"]).await;
    assert_eq!(confirmed["status"], "confirmed");
    assert!(
        confirmed["payment"]["client_secret"].is_null(),
        "no longer needed, no longer shown"
    );

    // A replay (same event id) changes nothing.
    let res = deliver(&m.app, &succeeded, Some(&signature)).await;
    assert_eq!(res.json::<Value>().await.unwrap()["outcome"], "duplicate");
    let earnings: Value = m
        .app
        .get_json(
            &format!("/v1/orgs/{}/earnings", m.org),
            Some(&m.admin.access_token),
        )
        .await;
    assert_eq!(
        kinds_and_amounts(&earnings),
        [
            ("charge".to_owned(), 600),
            ("fee".to_owned(), 60),
            ("transfer".to_owned(), 540)
        ]
    );
    assert_eq!(
        earnings["totals"],
        json!([{"currency": "USD", "amount": 540}])
    );
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    assert_eq!(spend["totals"], json!([{"currency": "USD", "amount": 600}]));
    assert_problem(
        m.app
            .get(
                &format!("/v1/orgs/{}/earnings", m.org),
                Some(&m.renter.access_token),
            )
            .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        m.app.get("/v1/me/spend", None).await,
        401,
        "unauthenticated",
    )
    .await;
    // A payment_failed arriving late does not undo a payment that succeeded.
    let late = event(
        "evt_failed_late",
        "payment_intent.payment_failed",
        intent_object(&booked, "requires_payment_method"),
    );
    deliver_signed(&m.app, &late).await;
    assert_eq!(booking(&m, &booked["id"]).await["status"], "confirmed");
}

async fn cancellation_sends_one_refund_with_the_reversals(backend: Backend) {
    let m = market(backend).await;
    enable_payouts(&m).await;
    let booked: Value = book(&m, (24, 28)).await.json().await.unwrap();
    deliver_signed(
        &m.app,
        &event(
            "evt_paid_2",
            "payment_intent.succeeded",
            intent_object(&booked, "succeeded"),
        ),
    )
    .await;
    let cancel = format!("/v1/bookings/{}/cancel", booked["id"].as_str().unwrap());
    let res = m
        .app
        .call(Method::POST, &cancel, Some(&m.renter.access_token), None)
        .await;
    assert_eq!(res.status(), 200);
    let cancelled: Value = res.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(
        cancelled["refund"]["amount"], 600,
        "before the start: all of it"
    );

    let refunds = m.stripe.requests_to("POST", "/v1/refunds");
    assert_eq!(refunds.len(), 1, "one refund");
    let r = &refunds[0];
    assert_eq!(
        r.field("payment_intent"),
        booked["payment"]["payment_intent_id"].as_str()
    );
    assert_eq!(r.field("amount"), Some("600"));
    assert_eq!(r.field("reverse_transfer"), Some("true"));
    assert_eq!(r.field("refund_application_fee"), Some("true"));
    assert!(r.idempotency_key.is_some());
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    assert_eq!(spend["totals"], json!([{"currency": "USD", "amount": 0}]));
    let earnings: Value = m
        .app
        .get_json(
            &format!("/v1/orgs/{}/earnings", m.org),
            Some(&m.admin.access_token),
        )
        .await;
    assert_eq!(
        earnings["totals"],
        json!([{"currency": "USD", "amount": 0}])
    );
    assert!(kinds_and_amounts(&earnings).contains(&("transfer_reversal".to_owned(), -540)));
    assert!(kinds_and_amounts(&earnings).contains(&("fee_refund".to_owned(), -60)));

    // Stripe's charge.refunded for the same refund records nothing twice.
    let rows_before = kinds_and_amounts(&earnings).len();
    let refund_id = earnings["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "refund")
        .unwrap()["stripe_object_id"]
        .clone();
    let charge = json!({
        "id": "ch_1", "object": "charge", "amount": 600, "amount_refunded": 600,
        "payment_intent": booked["payment"]["payment_intent_id"], "refunded": true,
        "refunds": refund_list(&[(refund_id, 600)]),
    });
    deliver_signed(&m.app, &event("evt_refunded", "charge.refunded", charge)).await;
    let earnings: Value = m
        .app
        .get_json(
            &format!("/v1/orgs/{}/earnings", m.org),
            Some(&m.admin.access_token),
        )
        .await;
    assert_eq!(kinds_and_amounts(&earnings).len(), rows_before);
    // A refund made elsewhere (the dashboard) is recorded from charge.refunded.
    let other: Value = book(&m, (30, 34)).await.json().await.unwrap();
    deliver_signed(
        &m.app,
        &event(
            "evt_paid_other",
            "payment_intent.succeeded",
            intent_object(&other, "succeeded"),
        ),
    )
    .await;
    let charge = json!({
        "id": "ch_2", "object": "charge", "amount": 600, "amount_refunded": 150,
        "payment_intent": other["payment"]["payment_intent_id"], "refunded": false,
        "refunds": refund_list(&[(json!("re_dashboard"), 150)]),
    });
    deliver_signed(&m.app, &event("evt_refunded_2", "charge.refunded", charge)).await;
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    assert_eq!(
        spend["totals"],
        json!([{"currency": "USD", "amount": 450}]),
        "600 paid, 150 back"
    );
    let earnings: Value = m
        .app
        .get_json(
            &format!("/v1/orgs/{}/earnings", m.org),
            Some(&m.admin.access_token),
        )
        .await;
    // The provider's share of 150 is 90 % of it.
    assert!(kinds_and_amounts(&earnings).contains(&("transfer_reversal".to_owned(), -135)));
    assert_problem(
        m.app
            .call(Method::POST, &cancel, Some(&m.renter.access_token), None)
            .await,
        409,
        "booking_not_cancellable",
    )
    .await;
    assert_eq!(
        m.stripe.requests_to("POST", "/v1/refunds").len(),
        1,
        "still one refund"
    );
}

async fn stripe_failing_leaves_clear_states(backend: Backend) {
    let m = market(backend).await;
    enable_payouts(&m).await;
    // Stripe answers 5xx, then 4xx, then not in time: each booking is released with the
    // error recorded, and the GPU stays bookable.
    m.stripe.fail_next(
        "/v1/payment_intents",
        500,
        "Something went wrong on Stripe's end.",
    );
    m.stripe
        .fail_next("/v1/payment_intents", 400, "Invalid destination account.");
    m.stripe
        .delay_next("/v1/payment_intents", Duration::from_secs(3));
    for expected in ["HTTP 500", "HTTP 400", "no answer within"] {
        let problem = assert_problem(book(&m, (24, 28)).await, 502, "payment_provider_error").await;
        assert!(
            problem["detail"].as_str().unwrap().contains(expected),
            "{problem}"
        );
    }
    let mine: Value = m
        .app
        .get_json("/v1/bookings", Some(&m.renter.access_token))
        .await;
    let items = mine["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    for b in items {
        assert_eq!(b["status"], "expired", "{b}");
        assert!(
            b["payment"]["error"]
                .as_str()
                .unwrap()
                .contains("payment provider"),
            "{b}"
        );
    }
    let booked: Value = book(&m, (24, 28)).await.json().await.unwrap();
    assert_eq!(
        booked["status"], "pending_payment",
        "the GPU was free again"
    );

    // A refund Stripe refuses leaves the booking confirmed, with the error; a retry works.
    deliver_signed(
        &m.app,
        &event(
            "evt_paid_3",
            "payment_intent.succeeded",
            intent_object(&booked, "succeeded"),
        ),
    )
    .await;
    m.stripe.fail_next("/v1/refunds", 503, "Stripe is down.");
    let cancel = format!("/v1/bookings/{}/cancel", booked["id"].as_str().unwrap());
    assert_problem(
        m.app
            .call(Method::POST, &cancel, Some(&m.renter.access_token), None)
            .await,
        502,
        "payment_provider_error",
    )
    .await;
    let after = booking(&m, &booked["id"]).await;
    assert_eq!(after["status"], "confirmed");
    assert!(
        after["payment"]["error"].as_str().unwrap().contains("503"),
        "{after}"
    );
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    assert_eq!(
        spend["totals"],
        json!([{"currency": "USD", "amount": 600}]),
        "no refund recorded"
    );
    let res = m
        .app
        .call(Method::POST, &cancel, Some(&m.renter.access_token), None)
        .await;
    assert_eq!(res.status(), 200);
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    assert_eq!(spend["totals"], json!([{"currency": "USD", "amount": 0}]));
}

async fn failed_payments_and_expired_holds_release_the_gpus(backend: Backend) {
    let m = market(backend).await;
    enable_payouts(&m).await;
    // payment_failed releases the booking and cancels its PaymentIntent.
    let first: Value = book(&m, (24, 28)).await.json().await.unwrap();
    assert_problem(book(&m, (24, 28)).await, 409, "booking_conflict").await;
    deliver_signed(
        &m.app,
        &event(
            "evt_failed_1",
            "payment_intent.payment_failed",
            intent_object(&first, "requires_payment_method"),
        ),
    )
    .await;
    let failed = booking(&m, &first["id"]).await;
    assert_eq!(failed["status"], "expired");
    assert!(
        failed["payment"]["error"]
            .as_str()
            .unwrap()
            .contains("declined"),
        "{failed}"
    );
    let intent = first["payment"]["payment_intent_id"].as_str().unwrap();
    assert_eq!(
        m.stripe
            .requests_to("POST", &format!("/v1/payment_intents/{intent}/cancel"))
            .len(),
        1
    );
    // ... and a success arriving after that is refunded in full.
    deliver_signed(
        &m.app,
        &event(
            "evt_paid_late",
            "payment_intent.succeeded",
            intent_object(&first, "succeeded"),
        ),
    )
    .await;
    let refunds = m.stripe.requests_to("POST", "/v1/refunds");
    assert_eq!(refunds.len(), 1);
    assert_eq!(refunds[0].field("amount"), Some("600"));

    // A hold that runs out is released by the sweeper, its PaymentIntent cancelled.
    let second: Value = book(&m, (24, 28)).await.json().await.unwrap();
    assert_eq!(second["status"], "pending_payment");
    m.app
        .app
        .db()
        .set_hold_expiry(
            second["id"].as_str().unwrap().parse().unwrap(),
            Utc::now() - chrono::Duration::seconds(1),
        )
        .await
        .unwrap();
    let sweep = m.app.app.sweep_bookings().await.unwrap();
    assert_eq!(sweep.expired, 1);
    assert_eq!(booking(&m, &second["id"]).await["status"], "expired");
    let intent = second["payment"]["payment_intent_id"].as_str().unwrap();
    assert_eq!(
        m.stripe
            .requests_to("POST", &format!("/v1/payment_intents/{intent}/cancel"))
            .len(),
        1
    );
    assert_eq!(book(&m, (24, 28)).await.status(), 201, "free again");
}

/// A paid booking of a listing at $3,600 an hour (a dollar a second), starting in a second
/// and lasting ten minutes: once started, its refund changes every second.
pub(crate) async fn paid_booking_starting_now(m: &Market) -> Value {
    let listing: Value = m
        .app
        .post(
            "/v1/listings",
            Some(&m.admin.access_token),
            json!({
                "org_id": m.org, "title": "H100", "region": "eu",
                "hardware": {"gpu_model": "H100", "gpu_count": 1, "vram_gb": 80, "cpu_model": "x", "ram_gb": 64},
                "price": {"amount_per_gpu_hour": 360_000, "currency": "USD"},
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            }),
        )
        .await
        .json()
        .await
        .unwrap();
    let starts = (Utc::now() + chrono::Duration::seconds(1)).trunc_subsecs(0);
    let booked: Value = m
        .app
        .client
        .post(m.app.url("/v1/bookings"))
        .bearer_auth(&m.renter.access_token)
        .header("Idempotency-Key", Uuid::new_v4().to_string())
        .json(&json!({
            "listing_id": listing["id"], "gpu_count": 1,
            "starts_at": starts, "ends_at": starts + chrono::Duration::minutes(10),
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(booked["price"]["amount"], 60_000, "{booked}");
    deliver_signed(
        &m.app,
        &event(
            &format!("evt_paid_{}", Uuid::new_v4().simple()),
            "payment_intent.succeeded",
            intent_object(&booked, "succeeded"),
        ),
    )
    .await;
    booked
}

/// The ledger's refund rows of the renter.
async fn refund_rows(m: &Market) -> Vec<i64> {
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    kinds_and_amounts(&spend)
        .into_iter()
        .filter(|(kind, _)| kind == "refund")
        .map(|(_, amount)| amount)
        .collect()
}

/// Two cancels 1.05 s apart across a second boundary of a started booking, while Stripe takes
/// two seconds per refund: one refund request, one amount, both callers told it is cancelled.
async fn racing_cancels_of_a_started_booking_make_one_refund(backend: Backend) {
    let m = market_with(backend, 5000).await;
    enable_payouts(&m).await;
    let booked = paid_booking_starting_now(&m).await;
    tokio::time::sleep(Duration::from_millis(2500)).await; // it has started
    m.stripe.delay_next("/v1/refunds", Duration::from_secs(2));
    let cancel = format!("/v1/bookings/{}/cancel", booked["id"].as_str().unwrap());
    let first = {
        let client = m.app.client.clone();
        let url = m.app.url(&cancel);
        let token = m.renter.access_token.clone();
        tokio::spawn(async move { client.post(url).bearer_auth(token).send().await.unwrap() })
    };
    tokio::time::sleep(Duration::from_millis(1050)).await;
    let second = m
        .app
        .call(Method::POST, &cancel, Some(&m.renter.access_token), None)
        .await;
    let first = first.await.unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(second.status(), 200, "the second waited for the first");
    let first: Value = first.json().await.unwrap();
    let second: Value = second.json().await.unwrap();
    assert_eq!(first["status"], "cancelled");
    assert_eq!(second["status"], "cancelled");
    assert_eq!(first["refund"], second["refund"], "one amount");
    let refund = first["refund"]["amount"].as_i64().unwrap();
    assert!(refund < 60_000 && refund > 55_000, "{refund}");
    let requests = m.stripe.requests_to("POST", "/v1/refunds");
    assert_eq!(requests.len(), 1, "one refund request");
    assert_eq!(
        requests[0].field("amount"),
        Some(refund.to_string().as_str())
    );
    assert_eq!(refund_rows(&m).await, vec![-refund]);
}

/// A cancel whose refund times out (Stripe made it, the answer was lost) leaves the booking
/// as it was (public status unchanged); the retried cancel finds the refund at Stripe instead
/// of asking again: one refund request, one refund, one ledger row. A retry while Stripe
/// still works on the first finds nothing yet and sends the very same request (one key, one
/// amount), which Stripe refuses while in flight; the next retry finds the refund.
async fn a_cancel_retried_after_a_stripe_timeout_makes_one_refund(backend: Backend) {
    let m = market_with(backend, 1000).await;
    enable_payouts(&m).await;
    let booked = paid_booking_starting_now(&m).await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    m.stripe.delay_next("/v1/refunds", Duration::from_secs(2));
    let cancel = format!("/v1/bookings/{}/cancel", booked["id"].as_str().unwrap());
    let post = |path: String| {
        let app = &m.app;
        let token = m.renter.access_token.clone();
        async move { app.call(Method::POST, &path, Some(&token), None).await }
    };
    assert_problem(post(cancel.clone()).await, 502, "payment_provider_error").await;
    let meanwhile = booking(&m, &booked["id"]).await;
    assert_eq!(meanwhile["status"], "confirmed", "{meanwhile}");
    assert!(meanwhile["refund"].is_null(), "{meanwhile}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let res = post(cancel).await;
    assert_eq!(res.status(), 200);
    let cancelled: Value = res.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    let refund = cancelled["refund"]["amount"].as_i64().unwrap();
    let requests = m.stripe.requests_to("POST", "/v1/refunds");
    assert_eq!(requests.len(), 1, "one refund request");
    assert_eq!(
        requests[0].field("amount"),
        Some(refund.to_string().as_str())
    );
    assert_eq!(
        m.stripe.requests_to("GET", "/v1/refunds").len(),
        1,
        "the retry looked first"
    );
    assert_eq!(refund_rows(&m).await, vec![-refund]);

    // Retried while Stripe still works on the first request.
    let second = paid_booking_starting_now(&m).await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    m.stripe.delay_next("/v1/refunds", Duration::from_secs(3));
    let cancel = format!("/v1/bookings/{}/cancel", second["id"].as_str().unwrap());
    assert_problem(post(cancel.clone()).await, 502, "payment_provider_error").await;
    assert_problem(post(cancel.clone()).await, 502, "payment_provider_error").await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(post(cancel).await.status(), 200);
    let key = format!("booking-{}-cancel-refund", second["id"].as_str().unwrap());
    let posts: Vec<_> = m
        .stripe
        .requests_to("POST", "/v1/refunds")
        .into_iter()
        .filter(|r| r.idempotency_key.as_deref() == Some(key.as_str()))
        .collect();
    assert_eq!(
        posts.len(),
        2,
        "the first, and the retry made while it was in flight"
    );
    assert_eq!(posts[0].form, posts[1].form, "the same request");
    assert_eq!(refund_rows(&m).await.len(), 2, "one refund per booking");
}

/// `payment_intent.succeeded` for another amount, currency or intent confirms nothing.
async fn webhooks_that_do_not_match_the_booking_confirm_nothing(backend: Backend) {
    let m = market(backend).await;
    enable_payouts(&m).await;
    let booked: Value = book(&m, (24, 28)).await.json().await.unwrap();
    for (n, tamper) in [
        json!({"amount": 1}),
        json!({"currency": "eur"}),
        json!({"id": "pi_someone_else"}),
    ]
    .into_iter()
    .enumerate()
    {
        let mut object = intent_object(&booked, "succeeded");
        for (key, value) in tamper.as_object().unwrap() {
            object[key] = value.clone();
        }
        let outcome = deliver_signed(
            &m.app,
            &event(
                &format!("evt_tampered_{n}"),
                "payment_intent.succeeded",
                object,
            ),
        )
        .await;
        assert_eq!(outcome["outcome"], "ignored", "{tamper}");
        let now = booking(&m, &booked["id"]).await;
        assert_eq!(now["status"], "pending_payment", "{tamper}: {now}");
    }
    // A type Stripe's crate does not know yet (Stripe adds types): acknowledged, never a 400
    // that Stripe would retry for days.
    let unknown = deliver_signed(
        &m.app,
        &event(
            "evt_unknown_type",
            "future_product.thing.created",
            json!({"id": "thing_1", "object": "future_thing"}),
        ),
    )
    .await;
    assert_eq!(unknown["outcome"], "ignored");
    // The provider's members do not see the renter's client secret.
    let as_provider: Value = m
        .app
        .get_json(
            &format!("/v1/bookings/{}", booked["id"].as_str().unwrap()),
            Some(&m.admin.access_token),
        )
        .await;
    assert!(
        as_provider["payment"]["client_secret"].is_null(),
        "{as_provider}"
    );
    let as_renter = booking(&m, &booked["id"]).await;
    assert!(as_renter["payment"]["client_secret"].is_string());
}

/// Bookings waiting for their payment hold GPUs: a renter may have
/// `pending_bookings_per_renter` of them; paying one makes room.
async fn a_renter_has_a_bounded_number_of_unpaid_bookings(backend: Backend) {
    let m = market_configured(backend, |c| c.limits.pending_bookings_per_renter = 2).await;
    enable_payouts(&m).await;
    let first: Value = book(&m, (24, 25)).await.json().await.unwrap();
    assert_eq!(book(&m, (26, 27)).await.status(), 201);
    let res = book(&m, (28, 29)).await;
    assert!(res.headers().contains_key("retry-after"));
    let problem = assert_problem(res, 429, "rate_limited").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("pending_bookings_per_renter"),
        "{problem}"
    );
    deliver_signed(
        &m.app,
        &event(
            "evt_paid_quota",
            "payment_intent.succeeded",
            intent_object(&first, "succeeded"),
        ),
    )
    .await;
    assert_eq!(book(&m, (28, 29)).await.status(), 201);
}

/// A provider's maintenance window over paid bookings — one not started, one running — and
/// an unpaid one: with `cancel_overlapping`, each is interrupted, never cancelled: it keeps
/// its interval and is given back, through Stripe, the share of its price the window takes
/// (transfer and fee in proportion); the unpaid one once it is paid. A later cancellation
/// gives back the unused time the window did not take, so nothing is refunded twice.
async fn maintenance_interrupts_paid_bookings_and_gives_back_their_share(backend: Backend) {
    let m = market(backend).await;
    enable_payouts(&m).await;
    let ahead: Value = book(&m, (24, 28)).await.json().await.unwrap();
    deliver_signed(
        &m.app,
        &event(
            "evt_paid_ahead",
            "payment_intent.succeeded",
            intent_object(&ahead, "succeeded"),
        ),
    )
    .await;
    let unpaid: Value = book(&m, (29, 30)).await.json().await.unwrap();
    assert_eq!(unpaid["status"], "pending_payment");
    let running = paid_booking_starting_now(&m).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    m.app.app.sweep_bookings().await.unwrap();
    assert_eq!(booking(&m, &running["id"]).await["status"], "active");

    let at = |v: &Value| v.as_str().unwrap().parse::<DateTime<Utc>>().unwrap();
    let until = at(&unpaid["ends_at"]);
    let window = |from: DateTime<Utc>, cancel: bool| {
        json!({"from": from, "until": until,
               "reason": "PSU swap", "cancel_overlapping": cancel})
    };
    let last_hour = at(&ahead["ends_at"]) - chrono::Duration::hours(1);
    let post = |listing: &str, body: Value| {
        let path = format!("/v1/listings/{listing}/maintenance");
        let token = m.admin.access_token.clone();
        let app = &m.app;
        async move { app.post(&path, Some(&token), body).await }
    };
    // Without asking, the bookings refuse the window; nothing moves.
    let refused = assert_problem(
        post(&m.listing, window(last_hour, false)).await,
        409,
        "maintenance_overlaps_bookings",
    )
    .await;
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains(ahead["id"].as_str().unwrap())
    );
    assert!(m.stripe.requests_to("POST", "/v1/refunds").is_empty());

    // Hours 27–30: the last of the four hours of the one ahead, all of the unpaid one.
    let res = post(&m.listing, window(last_hour, true)).await;
    assert_eq!(res.status(), 201);
    let announced: Value = res.json().await.unwrap();
    let ids = |field: &str| {
        let mut ids: Vec<String> = announced[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        ids.sort_unstable();
        ids
    };
    let mut both = vec![
        ahead["id"].as_str().unwrap().to_owned(),
        unpaid["id"].as_str().unwrap().to_owned(),
    ];
    both.sort_unstable();
    assert_eq!(ids("interrupted_booking_ids"), both, "{announced}");
    assert_eq!(
        ids("refund_pending_ids"),
        [unpaid["id"].as_str().unwrap()],
        "the unpaid one is given back its share once paid"
    );
    assert!(ids("cancelled_booking_ids").is_empty());
    assert_eq!(announced["window"]["interrupted_bookings"], 2);
    assert_eq!(announced["window"]["cancelled_bookings"], 0);
    let after = booking(&m, &ahead["id"]).await;
    assert_eq!(after["status"], "confirmed", "never cancelled: {after}");
    assert_eq!(after["ends_at"], ahead["ends_at"], "it keeps its interval");
    let taken = &after["interruptions"][0];
    assert_eq!(taken["refund"]["amount"], 150, "one of four hours: {after}");
    assert!(taken["refunded_at"].is_string());
    let refunds = m.stripe.requests_to("POST", "/v1/refunds");
    assert_eq!(refunds.len(), 1, "the unpaid one is not refunded yet");
    assert_eq!(refunds[0].field("amount"), Some("150"));
    assert_eq!(refunds[0].field("reverse_transfer"), Some("true"));
    assert_eq!(refunds[0].field("refund_application_fee"), Some("true"));
    let earnings: Value = m
        .app
        .get_json(
            &format!("/v1/orgs/{}/earnings", m.org),
            Some(&m.admin.access_token),
        )
        .await;
    assert!(kinds_and_amounts(&earnings).contains(&("transfer_reversal".to_owned(), -135)));
    assert!(kinds_and_amounts(&earnings).contains(&("fee_refund".to_owned(), -15)));

    // Paid afterwards, the unpaid one is given back its share by the sweep, once.
    let pending = booking(&m, &unpaid["id"]).await;
    assert_eq!(pending["status"], "pending_payment");
    assert!(
        pending["interruptions"][0]["refunded_at"].is_null(),
        "{pending}"
    );
    deliver_signed(
        &m.app,
        &event(
            "evt_paid_unpaid",
            "payment_intent.succeeded",
            intent_object(&unpaid, "succeeded"),
        ),
    )
    .await;
    let sweep = m.app.app.sweep_bookings().await.unwrap();
    assert_eq!(sweep.interruptions_given_back, 1);
    let paid = booking(&m, &unpaid["id"]).await;
    assert_eq!(paid["status"], "confirmed");
    assert_eq!(
        paid["interruptions"][0]["refund"]["amount"], 150,
        "all of it: {paid}"
    );
    assert!(paid["interruptions"][0]["refunded_at"].is_string());
    let refunds = m.stripe.requests_to("POST", "/v1/refunds");
    assert_eq!(refunds.len(), 2);
    assert_eq!(refunds[1].field("amount"), Some("150"));

    // Cancelled before it starts, the one ahead gets back the three hours the window did not
    // take: 600 paid, 600 given back in all.
    let res = m
        .app
        .call(
            Method::POST,
            &format!("/v1/bookings/{}/cancel", ahead["id"].as_str().unwrap()),
            Some(&m.renter.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 200);
    let cancelled: Value = res.json().await.unwrap();
    assert_eq!(cancelled["refund"]["amount"], 450, "{cancelled}");
    assert_eq!(
        m.stripe.requests_to("POST", "/v1/refunds")[2].field("amount"),
        Some("450")
    );

    // The running booking on the other machine: interrupted from the window's start to its
    // end, given back that share although it has begun.
    let res = post(
        running["listing_id"].as_str().unwrap(),
        window(Utc::now() + chrono::Duration::minutes(1), true),
    )
    .await;
    assert_eq!(res.status(), 201);
    let after = booking(&m, &running["id"]).await;
    assert_eq!(after["status"], "active");
    let taken = &after["interruptions"][0];
    let seconds = |from: &Value, until: &Value| (at(until) - at(from)).num_seconds();
    assert_eq!(taken["until"], running["ends_at"]);
    let share = 60_000 * seconds(&taken["from"], &taken["until"])
        / seconds(&running["starts_at"], &running["ends_at"]);
    assert!(share > 40_000, "most of its ten minutes: {after}");
    // Answers show whole seconds; the stored instants have fractions, so the share is known
    // here to within one second's (100).
    let given = taken["refund"]["amount"].as_i64().unwrap();
    assert!((given - share).abs() <= 100, "{given} vs {share}: {after}");
    assert_eq!(
        refund_rows(&m).await.iter().sum::<i64>(),
        -(150 + 150 + 450 + given)
    );

    // The window stands: it cannot be deleted, and its interval cannot be booked.
    let delete = format!(
        "/v1/listings/{}/maintenance/{}",
        m.listing,
        announced["window"]["id"].as_str().unwrap()
    );
    assert_problem(
        m.app
            .call(Method::DELETE, &delete, Some(&m.admin.access_token), None)
            .await,
        409,
        "maintenance_window_kept",
    )
    .await;
    assert_problem(book(&m, (27, 28)).await, 409, "maintenance").await;
    // A second sweep finds nothing left to give back or cancel.
    let sweep = m.app.app.sweep_bookings().await.unwrap();
    assert_eq!(
        (sweep.maintenance_cancelled, sweep.interruptions_given_back),
        (0, 0)
    );
    assert_eq!(m.stripe.requests_to("POST", "/v1/refunds").len(), 4);
}
