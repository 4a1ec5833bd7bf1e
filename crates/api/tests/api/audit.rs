//! An organisation's audit trail (`GET /v1/orgs/{id}/audit`): every change of its listings and
//! prices, keys, members, webhook endpoints and maintenance windows, with who made it, with
//! what and from which network, newest first in keyset pages; admins only; a refused change
//! leaves no row; a year's rows are kept; an erased person's rows lose their network.

use chrono::{Duration, Utc};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, join, json_of};

on_backends!(the_audit_trail_records_each_change_with_its_actor_and_network);

/// Every row of `org`'s trail as `token` reads it, `limit` a page.
async fn trail(app: &TestApp, org: &str, token: &str, limit: u64) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = json_of(
            app.get(
                &format!("/v1/orgs/{org}/audit?limit={limit}{cursor}"),
                Some(token),
            )
            .await,
            200,
        )
        .await;
        rows.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["next_cursor"].as_str() {
            Some(next) => cursor = format!("&cursor={next}"),
            None => return rows,
        }
    }
}

async fn the_audit_trail_records_each_change_with_its_actor_and_network(backend: store::Backend) {
    let app = TestApp::spawn_with(backend, |config| {
        config.webhooks.webhook_allow_private = true;
    })
    .await;
    let ada = app.register("ada@example.com").await;
    let bob = app.register("bob@example.com").await;
    let carol = app.register("carol@example.com").await;
    let token = Some(ada.access_token.as_str());
    let org = json_of(app.post("/v1/orgs", token, json!({"name": "P"})).await, 201).await;
    let org = org["id"].as_str().unwrap().to_owned();

    // The changes, each by Ada unless said.
    let listing = json_of(
        app.post(
            "/v1/listings",
            token,
            json!({
                "org_id": org, "title": "2x GPU", "region": "eu",
                "hardware": {"gpu_model": "L4", "gpu_count": 2, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
                "price": {"amount_per_gpu_hour": 150, "currency": "USD"},
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            }),
        )
        .await,
        201,
    )
    .await;
    let listing = listing["id"].as_str().unwrap().to_owned();
    json_of(
        app.patch(
            &format!("/v1/listings/{listing}"),
            token,
            json!({"title": "2x L4", "price": {"amount_per_gpu_hour": 200, "currency": "USD"}}),
        )
        .await,
        200,
    )
    .await;
    let key = json_of(
        app.post(
            &format!("/v1/orgs/{org}/api-keys"),
            token,
            json!({"name": "ci", "scopes": ["read"]}),
        )
        .await,
        201,
    )
    .await;
    let org_key = key["key"].as_str().unwrap().to_owned();
    let spare = json_of(
        app.post(
            &format!("/v1/orgs/{org}/api-keys"),
            token,
            json!({"name": "spare", "scopes": ["read"]}),
        )
        .await,
        201,
    )
    .await;
    let path = format!("/v1/orgs/{org}/api-keys/{}", spare["id"].as_str().unwrap());
    assert_eq!(
        app.call(Method::DELETE, &path, token, None).await.status(),
        204
    );
    join(
        &app,
        &org,
        &ada.access_token,
        &bob,
        "bob@example.com",
        "member",
    )
    .await;
    json_of(
        app.patch(
            &format!("/v1/orgs/{org}/members/{}", bob.user_id),
            token,
            json!({"role": "admin"}),
        )
        .await,
        200,
    )
    .await;
    let endpoint = json_of(
        app.post(
            &format!("/v1/orgs/{org}/webhook-endpoints"),
            token,
            json!({"url": "http://127.0.0.1:9/hook", "events": ["*"]}),
        )
        .await,
        201,
    )
    .await;
    let endpoint = format!(
        "/v1/orgs/{org}/webhook-endpoints/{}",
        endpoint["endpoint"]["id"].as_str().unwrap()
    );
    json_of(
        app.post(&format!("{endpoint}/rotate-secret"), token, json!({}))
            .await,
        200,
    )
    .await;
    assert_eq!(
        app.call(Method::DELETE, &endpoint, token, None)
            .await
            .status(),
        204
    );
    let from = Utc::now() + Duration::days(2);
    let window = json_of(
        app.post(
            &format!("/v1/listings/{listing}/maintenance"),
            token,
            json!({"from": from.to_rfc3339(), "until": (from + Duration::hours(1)).to_rfc3339(), "reason": "disks"}),
        )
        .await,
        201,
    )
    .await;
    let window_id = window["window"]["id"]
        .as_str()
        .or(window["id"].as_str())
        .unwrap()
        .to_owned();
    assert_eq!(
        app.call(
            Method::DELETE,
            &format!("/v1/listings/{listing}/maintenance/{window_id}"),
            token,
            None
        )
        .await
        .status(),
        204
    );
    // Refused changes leave no row: Ada, the only owner, cannot become a member.
    assert_problem(
        app.patch(
            &format!("/v1/orgs/{org}/members/{}", ada.user_id),
            token,
            json!({"role": "member"}),
        )
        .await,
        409,
        "last_owner",
    )
    .await;
    assert_eq!(
        app.call(
            Method::DELETE,
            &format!("/v1/listings/{listing}"),
            token,
            None
        )
        .await
        .status(),
        204
    );

    // Who may read it: admins, with a session; nobody else.
    let path = format!("/v1/orgs/{org}/audit");
    assert_eq!(app.get(&path, None).await.status(), 401);
    assert_problem(
        app.get(&path, Some(&carol.access_token)).await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(app.get(&path, Some(&org_key)).await, 403, "forbidden").await;
    assert_problem(
        app.get(&format!("{path}?limit=0"), token).await,
        422,
        "validation_failed",
    )
    .await;

    // Newest first, paged without a row twice; Bob (an admin now) reads the same.
    let rows = trail(&app, &org, &ada.access_token, 4).await;
    assert_eq!(rows, trail(&app, &org, &bob.access_token, 100).await);
    let actions: Vec<&str> = rows
        .iter()
        .rev()
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "listing.created",
            "listing.updated",
            "api_key.created",
            "api_key.created",
            "api_key.revoked",
            "member.invited",
            "member.joined",
            "member.role_changed",
            "webhook_endpoint.created",
            "webhook_endpoint.secret_rotated",
            "webhook_endpoint.deleted",
            "maintenance_window.created",
            "maintenance_window.deleted",
            "listing.delisted",
        ]
    );
    let by = |action: &str| -> Vec<Value> {
        rows.iter()
            .filter(|r| r["action"] == action)
            .cloned()
            .collect()
    };
    for row in &rows {
        assert_eq!(row["actor"]["network"], "127.0.0.1/32", "{row}");
        assert_eq!(row["actor"]["via"], "session", "{row}");
        let actor = if row["action"] == "member.joined" {
            &bob
        } else {
            &ada
        };
        assert_eq!(row["actor"]["user_id"], actor.user_id.as_str(), "{row}");
    }
    assert_eq!(by("member.joined")[0]["actor"]["name"], "bob");
    let updated = &by("listing.updated")[0];
    assert_eq!(updated["target_id"], listing.as_str());
    assert_eq!(updated["details"]["changed"], json!(["title", "price"]));
    assert_eq!(
        updated["details"]["price"],
        json!({"from": {"amount_per_gpu_hour": 150, "currency": "USD"},
               "to": {"amount_per_gpu_hour": 200, "currency": "USD"}})
    );
    assert_eq!(
        by("member.role_changed")[0]["details"],
        json!({"from": "member", "to": "admin"})
    );
    assert_eq!(
        by("member.invited")[0]["details"]["email"],
        "bob@example.com"
    );
    assert_eq!(by("api_key.revoked")[0]["target_id"], spare["id"]);
    assert_eq!(
        by("maintenance_window.created")[0]["target_id"],
        window_id.as_str()
    );
    assert_eq!(
        by("maintenance_window.created")[0]["details"]["listing_id"],
        listing.as_str()
    );
    assert!(
        !json!(rows).to_string().contains("whsec_"),
        "no secret in the trail"
    );
    assert_eq!(
        by("webhook_endpoint.created")[0]["details"]["origin"],
        "http://127.0.0.1:9",
        "where it sends, not the path that may carry a receiver's secret"
    );
    assert!(!json!(rows).to_string().contains("/hook"));

    // Bob erases his account: his rows keep his account's id, not his network or address.
    assert_eq!(
        app.call(Method::DELETE, "/v1/me", Some(&bob.access_token), None)
            .await
            .status(),
        204
    );
    let rows = trail(&app, &org, &ada.access_token, 100).await;
    let joined = rows
        .iter()
        .find(|r| r["action"] == "member.joined")
        .unwrap();
    assert_eq!(joined["actor"]["user_id"], bob.user_id.as_str());
    assert!(joined["actor"]["network"].is_null(), "{joined}");
    assert_eq!(joined["actor"]["name"], "erased account");
    assert!(
        !json!(rows).to_string().contains("bob@example.com"),
        "the invitation's row no longer names his address"
    );

    // A year's rows are kept, older ones pruned.
    app.execute(
        "UPDATE org_audit SET at = '2020-01-01T00:00:00+00:00' WHERE action = 'listing.created'",
    )
    .await;
    assert_eq!(app.app.prune_audit().await.unwrap(), 1);
    let rows = trail(&app, &org, &ada.access_token, 100).await;
    assert_eq!(rows.len(), 13);
    assert!(rows.iter().all(|r| r["action"] != "listing.created"));
}
