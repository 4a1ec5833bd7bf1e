//! API keys: shown once, usable as a bearer credential, revocable, `last_used_at` kept.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem};

on_both_backends!(
    an_api_key_works_like_a_token_until_revoked,
    keys_belong_to_their_owner,
    api_key_routes_need_a_credential,
);

async fn an_api_key_works_like_a_token_until_revoked(app: TestApp) {
    let ada = app.register("ada@example.com").await;
    let res = app
        .post(
            "/v1/api-keys",
            Some(&ada.access_token),
            json!({"name": "  ci runner "}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    let key = created["key"].as_str().unwrap().to_owned();
    assert!(key.starts_with("gpm_"));
    assert_eq!(created["name"], "ci runner");

    // Listed without the secret, never used yet.
    let list: Value = app.get_json("/v1/api-keys", Some(&ada.access_token)).await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    assert!(list["items"][0].get("key").is_none());
    assert!(list["items"][0]["last_used_at"].is_null());
    assert!(!list.to_string().contains(&key));

    // The key is a credential; using it is recorded.
    let me: Value = app.get_json("/v1/me", Some(&key)).await;
    assert_eq!(me["id"], ada.user_id.as_str());
    let list: Value = app.get_json("/v1/api-keys", Some(&key)).await;
    assert!(list["items"][0]["last_used_at"].is_string());

    let id = created["id"].as_str().unwrap();
    let res = app
        .call(
            Method::DELETE,
            &format!("/v1/api-keys/{id}"),
            Some(&ada.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);
    let problem = assert_problem(app.get("/v1/me", Some(&key)).await, 401, "invalid_token").await;
    assert_eq!(problem["detail"], "the API key has been revoked");
    let list: Value = app.get_json("/v1/api-keys", Some(&ada.access_token)).await;
    assert!(list["items"].as_array().unwrap().is_empty());

    // Revoking twice: nothing to revoke.
    let res = app
        .call(
            Method::DELETE,
            &format!("/v1/api-keys/{id}"),
            Some(&ada.access_token),
            None,
        )
        .await;
    assert_problem(res, 404, "not_found").await;

    let made_up = format!("gpm_{}", "A".repeat(43));
    assert_problem(
        app.get("/v1/me", Some(&made_up)).await,
        401,
        "invalid_token",
    )
    .await;
}

async fn keys_belong_to_their_owner(app: TestApp) {
    let ada = app.register("ada@example.com").await;
    let bob = app.register("bob@example.com").await;
    let created: Value = app
        .post(
            "/v1/api-keys",
            Some(&ada.access_token),
            json!({"name": "ada's"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();

    let bobs: Value = app.get_json("/v1/api-keys", Some(&bob.access_token)).await;
    assert!(bobs["items"].as_array().unwrap().is_empty());
    let res = app
        .call(
            Method::DELETE,
            &format!("/v1/api-keys/{id}"),
            Some(&bob.access_token),
            None,
        )
        .await;
    assert_problem(res, 404, "not_found").await;
    // Still works for Ada.
    let key = created["key"].as_str().unwrap();
    assert_eq!(app.get("/v1/me", Some(key)).await.status(), 200);

    let res = app
        .call(
            Method::DELETE,
            "/v1/api-keys/not-a-uuid",
            Some(&ada.access_token),
            None,
        )
        .await;
    assert_problem(res, 400, "invalid_parameter").await;
    let res = app
        .post("/v1/api-keys", Some(&ada.access_token), json!({"name": ""}))
        .await;
    let problem = assert_problem(res, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "name");
}

async fn api_key_routes_need_a_credential(app: TestApp) {
    assert_problem(app.get("/v1/api-keys", None).await, 401, "unauthenticated").await;
    assert_problem(
        app.post("/v1/api-keys", None, json!({"name": "x"})).await,
        401,
        "unauthenticated",
    )
    .await;
    let res = app
        .call(
            Method::DELETE,
            &format!("/v1/api-keys/{}", uuid::Uuid::nil()),
            None,
            None,
        )
        .await;
    assert_problem(res, 401, "unauthenticated").await;
}
