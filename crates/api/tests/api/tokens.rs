//! Access tokens the server must refuse, each with 401 problem+json.

use app::identity::tokens::TokenKeys;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{Duration, Utc};
use serde_json::Value;

use crate::helpers::{JWT_SECRET, TestApp, assert_problem};

on_both_backends!(
    alg_none_is_refused,
    a_changed_payload_is_refused,
    an_expired_token_is_refused,
    a_token_signed_with_another_key_is_refused,
    malformed_authorization_is_refused,
);

fn parts(token: &str) -> (String, Value, String) {
    let mut it = token.split('.');
    let header = it.next().unwrap().to_owned();
    let payload =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(it.next().unwrap()).unwrap()).unwrap();
    (header, payload, it.next().unwrap().to_owned())
}

fn encode(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).unwrap())
}

async fn alg_none_is_refused(app: TestApp) {
    let session = app.register("ada@example.com").await;
    assert_eq!(
        app.get("/v1/me", Some(&session.access_token))
            .await
            .status(),
        200
    );
    let (_, payload, _) = parts(&session.access_token);
    let header = encode(&serde_json::json!({"alg": "none", "typ": "JWT"}));
    for token in [
        format!("{header}.{}.", encode(&payload)),
        format!("{header}.{}", encode(&payload)),
    ] {
        assert_problem(app.get("/v1/me", Some(&token)).await, 401, "invalid_token").await;
    }
}

async fn a_changed_payload_is_refused(app: TestApp) {
    let ada = app.register("ada@example.com").await;
    let bob = app.register("bob@example.com").await;
    let (header, mut payload, signature) = parts(&ada.access_token);
    payload["sub"] = Value::String(bob.user_id.clone());
    let forged = format!("{header}.{}.{signature}", encode(&payload));
    let problem =
        assert_problem(app.get("/v1/me", Some(&forged)).await, 401, "invalid_token").await;
    assert!(problem["detail"].as_str().unwrap().contains("signature"));

    let (header, mut payload, signature) = parts(&ada.access_token);
    payload["exp"] = Value::from(payload["exp"].as_i64().unwrap() + 86_400);
    let extended = format!("{header}.{}.{signature}", encode(&payload));
    assert_problem(
        app.get("/v1/me", Some(&extended)).await,
        401,
        "invalid_token",
    )
    .await;
}

async fn an_expired_token_is_refused(app: TestApp) {
    let session = app.register("ada@example.com").await;
    let keys = TokenKeys::from_secret(JWT_SECRET.as_bytes(), 900).unwrap();
    let user = session.user_id.parse().unwrap();
    let fresh = keys.issue(user, uuid::Uuid::now_v7(), Utc::now()).unwrap();
    assert_eq!(app.get("/v1/me", Some(&fresh)).await.status(), 200);
    let expired = keys
        .issue(
            user,
            uuid::Uuid::now_v7(),
            Utc::now() - Duration::minutes(20),
        )
        .unwrap();
    let problem = assert_problem(
        app.get("/v1/me", Some(&expired)).await,
        401,
        "invalid_token",
    )
    .await;
    assert_eq!(problem["detail"], "the access token has expired");
}

async fn a_token_signed_with_another_key_is_refused(app: TestApp) {
    let session = app.register("ada@example.com").await;
    let keys = TokenKeys::from_secret(b"some-other-server-some-other-server", 900).unwrap();
    let token = keys
        .issue(
            session.user_id.parse().unwrap(),
            uuid::Uuid::now_v7(),
            Utc::now(),
        )
        .unwrap();
    assert_problem(app.get("/v1/me", Some(&token)).await, 401, "invalid_token").await;
}

async fn malformed_authorization_is_refused(app: TestApp) {
    let session = app.register("ada@example.com").await;
    for header in [
        format!("Basic {}", session.access_token),
        "Bearer".to_owned(),
        "Bearer not.a.jwt".to_owned(),
        session.access_token.clone(),
    ] {
        let res = app
            .client
            .get(app.url("/v1/me"))
            .header("authorization", header.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 401, "{header}");
        assert_eq!(res.headers()["www-authenticate"], "Bearer");
    }
}
