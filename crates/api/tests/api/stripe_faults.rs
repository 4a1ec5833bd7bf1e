//! Stripe failing half its calls and answering the rest slowly (some only after the caller
//! gave up: done at Stripe, the answer lost) while paid bookings are cancelled at once through
//! two API replicas (each its own pools and memory, one database), each cancel retried until
//! it is answered: refunds, with their transfer reversals, converge exactly once.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use store::Backend;

use crate::payments::{enable_payouts, market_with, paid_booking_starting_now};

on_backends!(refunds_converge_once_while_stripe_fails_half_its_calls);

/// A cancelled booking as its cancel answered: its PaymentIntent, its id and the refund.
struct Cancelled {
    intent: String,
    booking: String,
    refund: i64,
}

/// The invariant: each cancelled booking's payment is refunded at Stripe exactly once, by the
/// amount its cancel answered and reversing the provider's transfer, and the ledger holds one
/// refund row of that amount for it. Every violation, named.
fn refund_violations(
    cancelled: &[Cancelled],
    stripe: &[Value],
    ledger: &BTreeMap<String, Vec<i64>>,
) -> Vec<String> {
    let mut found = Vec::new();
    for c in cancelled {
        let made: Vec<&Value> = stripe
            .iter()
            .filter(|r| r["payment_intent"] == c.intent.as_str())
            .collect();
        match made.as_slice() {
            [one] if one["amount"] == c.refund => {}
            [one] => found.push(format!(
                "{}: refunded {} at Stripe, answered {}",
                c.booking, one["amount"], c.refund
            )),
            many => found.push(format!("{}: {} refunds at Stripe", c.booking, many.len())),
        }
        let rows = ledger.get(&c.booking).cloned().unwrap_or_default();
        if rows != [-c.refund] {
            found.push(format!(
                "{}: ledger refunds {rows:?}, answered {}",
                c.booking, c.refund
            ));
        }
    }
    found
}

async fn refunds_converge_once_while_stripe_fails_half_its_calls(backend: Backend) {
    let m = market_with(backend, 1000).await;
    enable_payouts(&m).await;
    let mut booked = Vec::new();
    // As many as a renter may hold open (max_open_bookings).
    for _ in 0..5 {
        booked.push(paid_booking_starting_now(&m).await);
    }
    tokio::time::sleep(Duration::from_millis(2500)).await; // they have started
    m.stripe
        .fail_half("/v1/refunds", Duration::from_millis(300));
    // A second replica: the same configuration, its own application.
    let second = app::App::build(m.app.app.config().clone(), false)
        .await
        .unwrap();
    let server = api::Application::build(second, 1).unwrap();
    let bases = [m.app.url(""), format!("http://{}", server.local_addr())];
    tokio::spawn(server.run());

    let cancels = booked.iter().enumerate().map(|(i, b)| {
        let path = format!("/v1/bookings/{}/cancel", b["id"].as_str().unwrap());
        let (client, token, bases) = (&m.app.client, m.renter.access_token.clone(), &bases);
        async move {
            // Each retry through the other replica.
            for attempt in 0..40 {
                let res = client
                    .request(Method::POST, format!("{}{path}", bases[(i + attempt) % 2]))
                    .bearer_auth(&token)
                    .send()
                    .await
                    .unwrap();
                match res.status().as_u16() {
                    200 => return res.json::<Value>().await.unwrap(),
                    // Stripe failed or was slow: nothing changed; asked again.
                    502 => tokio::time::sleep(Duration::from_millis(300)).await,
                    other => panic!("cancel answered {other}: {}", res.text().await.unwrap()),
                }
            }
            panic!("{path} never converged")
        }
    });
    let answers = futures_util::future::join_all(cancels).await;
    let cancelled: Vec<Cancelled> = booked
        .iter()
        .zip(&answers)
        .map(|(b, answer)| {
            assert_eq!(answer["status"], "cancelled", "{answer}");
            Cancelled {
                intent: b["payment"]["payment_intent_id"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
                booking: b["id"].as_str().unwrap().to_owned(),
                refund: answer["refund"]["amount"].as_i64().unwrap(),
            }
        })
        .collect();
    let posts = m.stripe.requests_to("POST", "/v1/refunds");
    println!(
        "{} refund requests and {} lookups for {} cancels",
        posts.len(),
        m.stripe.requests_to("GET", "/v1/refunds").len(),
        cancelled.len()
    );
    assert!(
        posts.len() > cancelled.len(),
        "Stripe failed none of them: {} refund requests",
        posts.len()
    );
    assert!(
        posts
            .iter()
            .all(|r| r.field("reverse_transfer") == Some("true")),
        "every refund reverses the provider's transfer"
    );
    let spend: Value = m
        .app
        .get_json("/v1/me/spend", Some(&m.renter.access_token))
        .await;
    let mut ledger = BTreeMap::<String, Vec<i64>>::new();
    for entry in spend["entries"].as_array().unwrap() {
        if entry["kind"] == "refund" {
            ledger
                .entry(entry["booking_id"].as_str().unwrap().to_owned())
                .or_default()
                .push(entry["amount"].as_i64().unwrap());
        }
    }
    let stripe = m.stripe.refunds();
    assert_eq!(
        refund_violations(&cancelled, &stripe, &ledger),
        Vec::<String>::new()
    );

    // Planted: a second refund at Stripe, and a ledger row twice, are seen.
    let mut twice = stripe.clone();
    twice.push(stripe[0].clone());
    let mut doubled = ledger.clone();
    if let Some(rows) = doubled.values_mut().next() {
        rows.push(rows[0]);
    }
    let found = refund_violations(&cancelled, &twice, &doubled);
    assert_eq!(found.len(), 2, "{found:?}");
}
