//! Pro through Stripe Billing, against the local server that speaks Stripe's wire format:
//! one Customer per organisation however many checkouts race, the plan following the
//! subscription as Stripe holds it (re-read on every event, so duplicated and reordered events
//! end in Stripe's state), limits that rise at once, the grace of an overdue payment, and
//! forged events that change nothing.

use futures_util::future::join_all;
use serde_json::{Value, json};
use store::Backend;
use uuid::Uuid;

use std::time::{Duration, Instant};

use crate::helpers::{assert_problem, start_engine};
use crate::payments::{Market, deliver, deliver_signed, event, market_configured};

on_backends!(
    checkout_makes_one_customer_and_the_plan_follows_stripe,
    events_in_any_order_end_in_the_state_stripe_holds,
    an_overdue_payment_keeps_pro_for_the_grace_period_only,
);
measured_on_backend!(postgres = Postgres; a_private_report_is_seen_by_members_and_share_links_only);

const PRICE: &str = "price_pro_monthly";

async fn market(backend: Backend, adjust: impl FnOnce(&mut app::Config)) -> Market {
    market_configured(backend, |c| {
        c.payments.stripe_pro_price_id = Some(PRICE.to_owned());
        adjust(c);
    })
    .await
}

async fn billing(m: &Market) -> Value {
    let path = format!("/v1/orgs/{}/billing", m.org);
    m.app.get_json(&path, Some(&m.admin.access_token)).await
}

/// Checks out and completes the session at Stripe: the session and subscription objects.
async fn subscribe(m: &Market, status: &str) -> (Value, Value) {
    let path = format!("/v1/orgs/{}/billing/checkout", m.org);
    let res = m
        .app
        .post(&path, Some(&m.admin.access_token), json!({}))
        .await;
    assert_eq!(res.status(), 200);
    let url: Value = res.json().await.unwrap();
    let session = url["url"].as_str().unwrap().rsplit('/').next().unwrap();
    m.stripe.complete_checkout(session, status).unwrap()
}

/// The reads budget a credential gets (its `RateLimit-Policy`).
async fn budget(m: &Market, credential: &str) -> String {
    let res = m.app.get("/v1/signing-keys", Some(credential)).await;
    res.headers()["ratelimit-policy"]
        .to_str()
        .unwrap()
        .to_owned()
}

/// The `/pro` page's plans as JSON: per plan, its `limits` (as the billing API names them)
/// and its `rates` (requests a minute per rate class).
async fn plans_page(m: &Market) -> Value {
    let res = m.app.get("/pro", None).await;
    assert_eq!(res.status(), 200);
    let page = res.text().await.unwrap();
    let mut plans = json!({});
    for cell in page.split("<td").skip(1) {
        let tag = &cell[..cell.find('>').unwrap()];
        let attr = |name: &str| {
            let rest = tag.split(&format!("{name}=\"")).nth(1)?;
            Some(rest[..rest.find('"')?].to_owned())
        };
        let Some(plan) = attr("data-plan") else {
            continue;
        };
        if let (Some(field), Some(value)) = (attr("data-field"), attr("data-value")) {
            plans[&plan]["limits"][&field] = serde_json::from_str(&value).unwrap();
        }
        if let Some(class) = attr("data-class") {
            let text = &cell[cell.find('>').unwrap() + 1..cell.find("</td>").unwrap()];
            plans[&plan]["rates"][&class] = json!(text.parse::<u64>().unwrap());
        }
    }
    plans
}

fn evt(kind: &str, object: &Value) -> String {
    event(
        &format!("evt_{}", Uuid::new_v4().simple()),
        kind,
        object.clone(),
    )
}

async fn checkout_makes_one_customer_and_the_plan_follows_stripe(backend: Backend) {
    let m = market(backend, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_reads_per_minute = 5;
    })
    .await;
    let checkout = format!("/v1/orgs/{}/billing/checkout", m.org);
    // Who may: admins check out and open the portal; members read; others nothing.
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
    for (who, status, code) in [
        (Some(member.access_token.as_str()), 403, "forbidden"),
        (Some(m.renter.access_token.as_str()), 403, "forbidden"),
        (None, 401, "unauthenticated"),
    ] {
        assert_problem(m.app.post(&checkout, who, json!({})).await, status, code).await;
        let portal = format!("/v1/orgs/{}/billing/portal", m.org);
        assert_problem(m.app.post(&portal, who, json!({})).await, status, code).await;
    }
    let read = format!("/v1/orgs/{}/billing", m.org);
    let free: Value = m.app.get_json(&read, Some(&member.access_token)).await;
    assert_eq!(free["plan"], "free");
    assert_eq!(free["limits"]["private_reports"], false);
    // The plans page: the limits the billing API reports for each plan, and the request
    // budgets enforced (5 reads a minute here, 25 on Pro).
    let plans = plans_page(&m).await;
    assert_eq!(plans["free"]["limits"], free["limits"], "{plans}");
    assert_eq!(plans["free"]["rates"]["reads"], 5, "{plans}");
    assert_eq!(plans["pro"]["rates"]["reads"], 25, "{plans}");
    assert_problem(
        m.app.get(&read, Some(&m.renter.access_token)).await,
        403,
        "forbidden",
    )
    .await;

    // Eight checkouts at once, one of them meeting Stripe's 409 for a twin in flight: one
    // Customer, every answer a Checkout Session for the configured price.
    m.stripe.fail_next(
        "/v1/customers",
        409,
        "There is currently another in-progress request using this Idempotent Key.",
    );
    let answers = join_all((0..8).map(|_| {
        m.app
            .post(&checkout, Some(&m.admin.access_token), json!({}))
    }))
    .await;
    let mut session_ids = Vec::new();
    for res in answers {
        assert_eq!(res.status(), 200);
        let body: Value = res.json().await.unwrap();
        let url = body["url"].as_str().unwrap();
        assert!(url.starts_with("https://checkout.stripe.com/"), "{url}");
        session_ids.push(url.rsplit('/').next().unwrap().to_owned());
    }
    assert_eq!(m.stripe.customers().len(), 1, "{:?}", m.stripe.customers());
    let sessions = m.stripe.requests_to("POST", "/v1/checkout/sessions");
    let sent = &sessions[0];
    assert_eq!(sent.field("mode"), Some("subscription"));
    assert_eq!(sent.field("line_items[0][price]"), Some(PRICE));
    assert_eq!(sent.field("client_reference_id"), Some(m.org.as_str()));
    assert_eq!(
        sent.field("customer"),
        m.stripe.customers()[0]["id"].as_str()
    );

    // A request budget of 5 a minute on the free plan, for a person's token and for the
    // organisation's key alike.
    let org_key: Value = m
        .app
        .post(
            &format!("/v1/orgs/{}/api-keys", m.org),
            Some(&m.admin.access_token),
            json!({"name": "machine", "scopes": ["read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let org_key = org_key["key"].as_str().unwrap().to_owned();
    for who in [member.access_token.clone(), org_key.clone()] {
        assert_eq!(budget(&m, &who).await, "\"reads\";q=5;w=60");
    }

    // Stripe completes the checkout; a signed `customer.subscription.updated` makes the
    // organisation Pro, and its limits rise at once.
    let (_, subscription) = m
        .stripe
        .complete_checkout(&session_ids[0], "active")
        .unwrap();
    deliver_signed(&m.app, &evt("customer.subscription.updated", &subscription)).await;
    let pro = billing(&m).await;
    assert_eq!(pro["plan"], "pro", "{pro}");
    assert_eq!(pro["status"], "active");
    assert!(pro["current_period_end"].is_string());
    assert_eq!(pro["limits"]["private_reports"], true);
    assert_eq!(plans["pro"]["limits"], pro["limits"], "{plans}");
    for who in [member.access_token.clone(), org_key.clone()] {
        assert_eq!(budget(&m, &who).await, "\"reads\";q=25;w=60");
    }
    // Subscribed: another checkout is refused; the portal opens.
    assert_problem(
        m.app
            .post(&checkout, Some(&m.admin.access_token), json!({}))
            .await,
        409,
        "already_subscribed",
    )
    .await;
    let portal: Value = m
        .app
        .post(
            &format!("/v1/orgs/{}/billing/portal", m.org),
            Some(&m.admin.access_token),
            json!({}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert!(
        portal["url"]
            .as_str()
            .unwrap()
            .starts_with("https://billing.stripe.com/")
    );

    // A forged event (wrong signature, or none) changes nothing.
    let id = subscription["id"].as_str().unwrap();
    let canceled = m.stripe.set_subscription(id, "canceled", false).unwrap();
    let forged = evt("customer.subscription.deleted", &canceled);
    let res = deliver(&m.app, &forged, Some("t=1,v1=00")).await;
    assert_eq!(res.status(), 400);
    let res = deliver(&m.app, &forged, None).await;
    assert_eq!(res.status(), 400);
    assert_eq!(billing(&m).await["plan"], "pro");
    // The real one: back to free, nothing deleted.
    deliver_signed(&m.app, &forged).await;
    let back = billing(&m).await;
    assert_eq!(back["plan"], "free", "{back}");
    assert_eq!(back["status"], "canceled");
    assert_eq!(
        m.app
            .column("org_billing", "stripe_customer_id")
            .await
            .len(),
        1
    );
}

async fn events_in_any_order_end_in_the_state_stripe_holds(backend: Backend) {
    let m = market(backend, |_| {}).await;
    let (session, subscription) = subscribe(&m, "active").await;
    let id = subscription["id"].as_str().unwrap().to_owned();
    let created = evt("customer.subscription.created", &subscription);
    let completed = evt("checkout.session.completed", &session);
    // Stripe moves on: the customer cancels at the period's end, then it is deleted. The
    // events arrive late, reordered and duplicated; each is acted on as Stripe holds the
    // subscription now.
    let updated = evt(
        "customer.subscription.updated",
        &m.stripe.set_subscription(&id, "active", true).unwrap(),
    );
    deliver_signed(&m.app, &updated).await;
    let now = billing(&m).await;
    assert_eq!(
        (now["plan"].clone(), now["cancel_at_period_end"].clone()),
        (json!("pro"), json!(true))
    );
    let deleted = evt(
        "customer.subscription.deleted",
        &m.stripe.set_subscription(&id, "canceled", false).unwrap(),
    );
    for payload in [&deleted, &created, &completed, &updated, &created, &deleted] {
        deliver_signed(&m.app, payload).await;
    }
    let end = billing(&m).await;
    assert_eq!(end["plan"], "free", "{end}");
    assert_eq!(end["status"], "canceled");

    // A new subscription; a late event of the old one does not undo it.
    let (_, second) = subscribe(&m, "active").await;
    deliver_signed(&m.app, &evt("customer.subscription.created", &second)).await;
    assert_eq!(billing(&m).await["plan"], "pro");
    // (A fresh delivery of it: a redelivered event id would not even be looked at.)
    deliver_signed(
        &m.app,
        &evt(
            "customer.subscription.deleted",
            &m.stripe.set_subscription(&id, "canceled", false).unwrap(),
        ),
    )
    .await;
    let kept = billing(&m).await;
    assert_eq!(kept["plan"], "pro", "{kept}");
    // A second subscription of the same customer, to another price (another product): it
    // buys nothing, and ending it changes nothing.
    let customer = second["customer"].as_str().unwrap();
    let other = m
        .stripe
        .create_subscription(customer, "price_something_else", "active");
    deliver_signed(&m.app, &evt("customer.subscription.created", &other)).await;
    let other_id = other["id"].as_str().unwrap();
    let other = m
        .stripe
        .set_subscription(other_id, "canceled", false)
        .unwrap();
    deliver_signed(&m.app, &evt("customer.subscription.deleted", &other)).await;
    let still = billing(&m).await;
    assert_eq!(still["plan"], "pro", "{still}");
    assert_eq!(still["status"], "active");
    // Two Pro subscriptions (a second checkout raced the first): while either is active the
    // organisation is Pro, whichever event comes last.
    let twin = m.stripe.create_subscription(customer, PRICE, "active");
    let twin_id = twin["id"].as_str().unwrap();
    let ended = m
        .stripe
        .set_subscription(twin_id, "canceled", false)
        .unwrap();
    deliver_signed(&m.app, &evt("customer.subscription.deleted", &ended)).await;
    assert_eq!(billing(&m).await["plan"], "pro");
    // An invoice names its subscription under `parent`: paid, it changes nothing here.
    let invoice = json!({
        "id": "in_1", "object": "invoice", "customer": second["customer"],
        "parent": {
            "type": "subscription_details", "quote_details": null,
            "subscription_details": {"metadata": {}, "subscription": second["id"]},
        },
    });
    deliver_signed(&m.app, &evt("invoice.paid", &invoice)).await;
    assert_eq!(billing(&m).await["plan"], "pro");
}

async fn an_overdue_payment_keeps_pro_for_the_grace_period_only(backend: Backend) {
    // No grace: overdue is free at once; with grace it stays Pro until it ends.
    for (grace, plan) in [(0, "free"), (3600, "pro")] {
        let m = market(backend, |c| c.payments.billing_grace_secs = grace).await;
        let (_, subscription) = subscribe(&m, "active").await;
        let id = subscription["id"].as_str().unwrap();
        deliver_signed(&m.app, &evt("customer.subscription.created", &subscription)).await;
        assert_eq!(billing(&m).await["plan"], "pro");
        let invoice = json!({
            "id": "in_2", "object": "invoice", "customer": subscription["customer"],
            "subscription": id,
        });
        m.stripe.set_subscription(id, "past_due", false).unwrap();
        deliver_signed(&m.app, &evt("invoice.payment_failed", &invoice)).await;
        let overdue = billing(&m).await;
        assert_eq!(overdue["status"], "past_due");
        assert_eq!(overdue["plan"], plan, "grace {grace}: {overdue}");
        assert!(overdue["grace_ends_at"].is_string());
        // Stripe retries the payment; another failure does not restart the grace.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        deliver_signed(&m.app, &evt("invoice.payment_failed", &invoice)).await;
        let again = billing(&m).await;
        assert_eq!(again["grace_ends_at"], overdue["grace_ends_at"], "{again}");
        // Paid after all: Pro again, no grace pending.
        m.stripe.set_subscription(id, "active", false).unwrap();
        deliver_signed(&m.app, &evt("invoice.paid", &invoice)).await;
        let paid = billing(&m).await;
        assert_eq!(paid["plan"], "pro");
        assert!(paid["grace_ends_at"].is_null());
    }
}

/// Asks for a verification of `listing` as the market's admin with `visibility`.
async fn request(m: &Market, listing: &str, visibility: &str) -> reqwest::Response {
    m.app
        .post(
            &format!("/v1/listings/{listing}/verifications"),
            Some(&m.admin.access_token),
            json!({"profile": "quick", "visibility": visibility}),
        )
        .await
}

/// The run once finished, as its organisation sees it.
async fn finished(m: &Market, run: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let view: Value = m
            .app
            .get_json(
                &format!("/v1/verifications/{run}"),
                Some(&m.admin.access_token),
            )
            .await;
        if view["finished_at"].is_string() {
            return view;
        }
        assert!(Instant::now() < deadline, "the run did not finish: {view}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn a_private_report_is_seen_by_members_and_share_links_only(backend: Backend) {
    // Free listings are spot-checked once in a thousand days here, Pro's once a day.
    let m = market(backend, |c| {
        c.verification.spot_check_every_secs = 1000 * 24 * 3600;
        c.pro.spot_check_every_secs = 24 * 3600;
    })
    .await;
    let _workers = m.app.start_workers();
    let engine = start_engine("tiny");
    let listing: Value = m
        .app
        .post(
            "/v1/listings",
            Some(&m.admin.access_token),
            crate::verification::listing_body(&m.org, &engine),
        )
        .await
        .json()
        .await
        .unwrap();
    let listing = listing["id"].as_str().unwrap().to_owned();
    // Free: no private reports; a visibility that is neither is named.
    assert_problem(request(&m, &listing, "private").await, 403, "plan_required").await;
    let problem = assert_problem(
        request(&m, &listing, "secret").await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "visibility");

    let (_, subscription) = subscribe(&m, "active").await;
    deliver_signed(&m.app, &evt("customer.subscription.created", &subscription)).await;
    // A public run under way is not handed out as the private one asked for (nor the
    // reverse): 409 until it ends.
    let public: Value = request(&m, &listing, "public").await.json().await.unwrap();
    assert_problem(
        request(&m, &listing, "private").await,
        409,
        "run_in_progress",
    )
    .await;
    let public_done = finished(&m, public["id"].as_str().unwrap()).await;
    assert_eq!(public_done["status"], "succeeded", "{public_done}");
    let public_report = public_done["report_id"].as_str().unwrap().to_owned();
    let before: Value = m
        .app
        .get_json(&format!("/v1/listings/{listing}"), None)
        .await;
    assert_eq!(before["verified"], true, "{before}");
    // Its first spot check falls in Pro's period (a free one in a thousand days'); the
    // moment stays unannounced, so it is read from the database.
    let db = store::Db::connect(m.app.database_url()).await.unwrap();
    let stored = db
        .listing_by_id(listing.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let next = stored.next_spot_check_at.unwrap();
    let verified_at = stored.verified_at.unwrap();
    assert!(
        next <= verified_at + chrono::Duration::days(1),
        "{next} after {verified_at}"
    );
    db.close().await.unwrap();
    let res = request(&m, &listing, "private").await;
    assert_eq!(res.status(), 202);
    let run: Value = res.json().await.unwrap();
    assert_eq!(run["visibility"], "private");
    let run_id = run["id"].as_str().unwrap().to_owned();
    let done = finished(&m, &run_id).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let report = done["report_id"].as_str().unwrap().to_owned();

    // Members see it; nobody else knows it exists, on any route that could show it.
    let mine: Value = m
        .app
        .get_json(
            &format!("/v1/reports/{report}"),
            Some(&m.admin.access_token),
        )
        .await;
    assert_eq!(mine["visibility"], "private");
    let hidden = [
        format!("/v1/reports/{report}"),
        format!("/v1/reports/{report}/matrix.csv"),
        format!("/v1/reports/{report}/matrix.svg"),
        format!("/v1/reports/{report}/proof"),
        format!("/v1/verifications/{run_id}"),
        format!("/v1/verifications/{run_id}/events"),
    ];
    for path in &hidden {
        for who in [None, Some(m.renter.access_token.as_str())] {
            let res = m.app.get(path, who).await;
            assert_eq!(res.status(), 404, "{path} as {who:?}");
        }
    }
    let page = m.app.get(&format!("/reports/{report}"), None).await;
    assert_eq!(page.status(), 404);
    let theirs: Value = m
        .app
        .get_json(&format!("/v1/listings/{listing}/reports"), None)
        .await;
    let ids: Vec<&Value> = theirs["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&json!(public_report)], "{theirs}");
    // Nor in the public list of reports, whoever asks.
    for who in [None, Some(m.admin.access_token.as_str())] {
        let all: Value = m.app.get_json("/v1/reports", who).await;
        let ids: Vec<&Value> = all["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r["id"])
            .collect();
        assert!(ids.contains(&&json!(public_report)), "{all}");
        assert!(!ids.contains(&&json!(report)), "{all}");
    }
    let ours: Value = m
        .app
        .get_json(
            &format!("/v1/listings/{listing}/reports"),
            Some(&m.admin.access_token),
        )
        .await;
    assert_eq!(ours["items"][0]["id"], report.as_str());
    // The badge, headline and cost stay the public run's; no figure of it in search, the
    // leaderboard or the organisation's report.
    let shown: Value = m
        .app
        .get_json(&format!("/v1/listings/{listing}"), None)
        .await;
    let badge = |listing: &Value| {
        let mut badge = listing["verification"].clone();
        badge["age_s"] = Value::Null;
        badge
    };
    assert_eq!(badge(&shown), badge(&before), "{shown}");
    assert_eq!(
        shown["last_verification_cost"],
        before["last_verification_cost"]
    );
    assert!(!shown.to_string().contains(&report), "{shown}");
    let search: Value = m.app.get_json("/v1/listings", None).await;
    assert!(!search.to_string().contains(&report), "{search}");
    let board: Value = m.app.get_json("/v1/leaderboard", None).await;
    assert!(board.to_string().contains(&public_report), "{board}");
    // Each row names the engine its report measured: the simulator speaks vLLM's dialect.
    assert_eq!(board["items"][0]["engine"], "vllm", "{board}");
    assert!(!board.to_string().contains(&report), "{board}");
    let org_report: Value = m
        .app
        .get_json(&format!("/v1/orgs/{}/report", m.org), None)
        .await;
    assert!(!org_report.to_string().contains(&report), "{org_report}");
    // Nor on the site's pages that list reports or show the organisation.
    for path in ["/reports".to_owned(), format!("/orgs/{}", m.org)] {
        for who in [None, Some(m.admin.access_token.as_str())] {
            let res = m.app.get(&path, who).await;
            assert_eq!(res.status(), 200, "{path}");
            let page = res.text().await.unwrap();
            assert!(page.contains(&public_report), "{path}: {page}");
            assert!(!page.contains(&report), "{path}: {page}");
        }
    }
    // The log holds it as a digest: its existence and order, nothing else.
    let entries: Value = m.app.get_json("/v1/log/entries?start=0", None).await;
    assert!(!entries.to_string().contains(&report), "{entries}");
    let index = mine["log"]["leaf_index"].as_u64().unwrap() as usize;
    let leaf = &entries["items"][index];
    assert_eq!(leaf["private"], true, "{leaf}");
    assert!(leaf["report_id"].is_null(), "{leaf}");
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(leaf["leaf"].as_str().unwrap())
        .unwrap();
    // The digest of the envelope the members see: anyone holding it can check it is logged.
    let (expected, private) = attest::log_leaf(&mine["envelope"]);
    assert!(private);
    assert_eq!(bytes, expected);

    // A share link opens it, for anyone holding it, until revoked.
    let share_path = format!("/v1/reports/{report}/share");
    assert_problem(
        m.app
            .post(&share_path, Some(&m.renter.access_token), json!({}))
            .await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        m.app
            .post(
                &share_path,
                Some(&m.admin.access_token),
                json!({"expires_in_secs": 10}),
            )
            .await,
        422,
        "validation_failed",
    )
    .await;
    let res = m
        .app
        .post(&share_path, Some(&m.admin.access_token), json!({}))
        .await;
    assert_eq!(res.status(), 201);
    let link: Value = res.json().await.unwrap();
    let token = link["token"].as_str().unwrap().to_owned();
    assert!(
        link["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/reports/{report}?share={token}"))
    );
    for path in [
        format!("/v1/reports/{report}?share={token}"),
        format!("/v1/reports/{report}/matrix.csv?share={token}"),
        format!("/v1/reports/{report}/proof?share={token}"),
        format!("/reports/{report}?share={token}"),
    ] {
        let res = m.app.get(&path, None).await;
        assert!(
            res.status() == 200 || res.status() == 202,
            "{path}: {}",
            res.status()
        );
    }
    let wrong = m
        .app
        .get(&format!("/v1/reports/{report}?share=gms_wrong"), None)
        .await;
    assert_eq!(wrong.status(), 404);
    let res = m
        .app
        .call(
            reqwest::Method::DELETE,
            &format!("{share_path}/{token}"),
            Some(&m.admin.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);
    let revoked = m
        .app
        .get(&format!("/v1/reports/{report}?share={token}"), None)
        .await;
    assert_eq!(revoked.status(), 404);

    // Links are listed (never their tokens) and revoked by id; a member's links end when
    // they leave.
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
    let make = |who: &str| {
        let (app, path, who) = (&m.app, share_path.clone(), who.to_owned());
        async move {
            app.post(&path, Some(&who), json!({}))
                .await
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let theirs = make(&member.access_token).await;
    let ours = make(&m.admin.access_token).await;
    assert_problem(
        m.app.get(&share_path, Some(&m.renter.access_token)).await,
        404,
        "not_found",
    )
    .await;
    let listed: Value = m
        .app
        .get_json(&share_path, Some(&m.admin.access_token))
        .await;
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "the revoked link is not listed: {listed}");
    assert_eq!(items[0]["id"], ours["id"]);
    assert_eq!(items[1]["created_by"], member.user_id.as_str());
    let prefix = items[1]["prefix"].as_str().unwrap();
    assert!(theirs["token"].as_str().unwrap().starts_with(prefix) && prefix.len() == 12);
    assert!(
        !listed
            .to_string()
            .contains(theirs["token"].as_str().unwrap())
    );
    let opens = |link: &Value| {
        let path = format!(
            "/v1/reports/{report}?share={}",
            link["token"].as_str().unwrap()
        );
        let app = &m.app;
        async move { app.get(&path, None).await.status().as_u16() }
    };
    assert_eq!((opens(&ours).await, opens(&theirs).await), (200, 200));
    let by_id = format!("{share_path}/{}", ours["id"].as_str().unwrap());
    let res = m
        .app
        .call(
            reqwest::Method::DELETE,
            &by_id,
            Some(&m.admin.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_eq!(opens(&ours).await, 404);
    let res = m
        .app
        .call(
            reqwest::Method::DELETE,
            &by_id,
            Some(&m.admin.access_token),
            None,
        )
        .await;
    assert_problem(res, 404, "not_found").await;
    let removed = m
        .app
        .call(
            reqwest::Method::DELETE,
            &format!("/v1/orgs/{}/members/{}", m.org, member.user_id),
            Some(&m.admin.access_token),
            None,
        )
        .await;
    assert_eq!(removed.status(), 204);
    assert_eq!(
        opens(&theirs).await,
        404,
        "a removed member's link ends with them"
    );

    // Back to free: the report stays private and the organisation's; new ones are public.
    let id = subscription["id"].as_str().unwrap();
    let canceled = m.stripe.set_subscription(id, "canceled", false).unwrap();
    deliver_signed(&m.app, &evt("customer.subscription.deleted", &canceled)).await;
    assert_problem(request(&m, &listing, "private").await, 403, "plan_required").await;
    let still = m
        .app
        .get(
            &format!("/v1/reports/{report}"),
            Some(&m.admin.access_token),
        )
        .await;
    assert_eq!(still.status(), 200);
    assert_eq!(
        m.app
            .get(&format!("/v1/reports/{report}"), None)
            .await
            .status(),
        404
    );
}
