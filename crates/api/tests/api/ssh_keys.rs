//! A renter's SSH public keys: kept per person (a session or their own API key, never an
//! organisation's key: 403 `scope_required`), parsed and fingerprinted as OpenSSH does, at most ten and each once,
//! and deleted only by their owner.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem};

on_both_backends!(ssh_keys_are_a_persons_checked_limited_and_deleted_by_their_owner);

/// Keys `ssh-keygen` (OpenSSH 9) made, with the fingerprints it printed.
const ED25519: &str = include_str!("data/ssh/ed25519.pub");
const ECDSA: &str = include_str!("data/ssh/ecdsa.pub");
const RSA_3072: &str = include_str!("data/ssh/rsa3072.pub");
const RSA_2048: &str = include_str!("data/ssh/rsa2048.pub");

async fn ssh_keys_are_a_persons_checked_limited_and_deleted_by_their_owner(app: TestApp) {
    let ada = app.register("ada@example.com").await;
    let bob = app.register("bob@example.com").await;
    let add = |token: Option<String>, name: &str, key: &str| {
        let app = &app;
        let body = json!({"name": name, "public_key": key});
        async move { app.post("/v1/me/ssh-keys", token.as_deref(), body).await }
    };
    let ada_token = Some(ada.access_token.clone());

    // Nobody signed in: 401; an organisation's key: 403.
    assert_problem(add(None, "laptop", ED25519).await, 401, "unauthenticated").await;
    let org: Value = app
        .post("/v1/orgs", Some(&ada.access_token), json!({"name": "P"}))
        .await
        .json()
        .await
        .unwrap();
    let org_key: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", org["id"].as_str().unwrap()),
            Some(&ada.access_token),
            json!({"name": "machine", "scopes": ["read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let org_key = org_key["key"].as_str().unwrap().to_owned();
    assert_problem(
        add(Some(org_key.clone()), "laptop", ED25519).await,
        403,
        "scope_required",
    )
    .await;
    assert_problem(
        app.get("/v1/me/ssh-keys", Some(&org_key)).await,
        403,
        "scope_required",
    )
    .await;

    // Ada's session adds ed25519 and ECDSA; her own API key adds RSA 3072.
    let res = add(ada_token.clone(), "laptop", ED25519).await;
    assert_eq!(res.status(), 201);
    let laptop: Value = res.json().await.unwrap();
    assert_eq!(
        laptop["fingerprint"],
        "SHA256:+GdOPhZheVUoyqeXJaju41F73YJP4CW1J1LG+Srwaog"
    );
    let mut fields = ED25519.split_whitespace();
    let bare = format!("{} {}", fields.next().unwrap(), fields.next().unwrap());
    assert_eq!(
        laptop["public_key"],
        bare.as_str(),
        "kept without its comment"
    );
    assert!(!laptop.to_string().contains("ada@laptop"), "{laptop}");
    assert_eq!(add(ada_token.clone(), "desk", ECDSA).await.status(), 201);
    let api_key: Value = app
        .post(
            "/v1/api-keys",
            Some(&ada.access_token),
            json!({"name": "scripts"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let api_key = api_key["key"].as_str().unwrap().to_owned();
    let res = add(Some(api_key.clone()), "server", RSA_3072).await;
    assert_eq!(res.status(), 201);

    // Refused, naming the field, and nothing stored: a short RSA key, garbage, a duplicate.
    let problem = assert_problem(
        add(ada_token.clone(), "old", RSA_2048).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "public_key", "{problem}");
    assert!(problem.to_string().contains("2048 bits"), "{problem}");
    let problem = assert_problem(
        add(ada_token.clone(), "x", "ssh-ed25519 AAAA").await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "public_key");
    let problem = assert_problem(
        add(ada_token.clone(), "", ED25519).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "name");
    let problem = assert_problem(
        add(ada_token.clone(), "again", ED25519).await,
        409,
        "ssh_key_exists",
    )
    .await;
    assert!(problem.to_string().contains("laptop"), "{problem}");

    // Listed, oldest first, to their owner only.
    let mine: Value = app
        .get_json("/v1/me/ssh-keys", Some(&ada.access_token))
        .await;
    let names: Vec<&str> = mine["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["laptop", "desk", "server"]);
    let theirs: Value = app
        .get_json("/v1/me/ssh-keys", Some(&bob.access_token))
        .await;
    assert!(theirs["items"].as_array().unwrap().is_empty(), "{theirs}");
    // Bob may keep the same key (the limit and the duplicate are per account).
    assert_eq!(
        add(Some(bob.access_token.clone()), "shared", ED25519)
            .await
            .status(),
        201
    );

    // Ten at most: seven more fit, the eleventh is refused.
    for n in 0..7 {
        let key = generated_key(n);
        let res = add(ada_token.clone(), &format!("k{n}"), &key).await;
        assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());
    }
    assert_problem(
        add(ada_token.clone(), "eleventh", &generated_key(7)).await,
        409,
        "ssh_key_limit",
    )
    .await;

    // Deleted by their owner only: Bob's attempt is 404, Ada's frees a place.
    let id = laptop["id"].as_str().unwrap();
    let path = format!("/v1/me/ssh-keys/{id}");
    assert_problem(
        app.call(Method::DELETE, &path, Some(&bob.access_token), None)
            .await,
        404,
        "not_found",
    )
    .await;
    let res = app
        .call(Method::DELETE, &path, Some(&ada.access_token), None)
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        app.call(Method::DELETE, &path, Some(&ada.access_token), None)
            .await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(
        add(ada_token.clone(), "eleventh", &generated_key(7))
            .await
            .status(),
        201
    );
}

/// A distinct, valid ed25519 public key: the test key with another 32-byte point. Any 32
/// bytes parse as an ed25519 public key line (the point is not checked), which is all a
/// limit needs.
fn generated_key(n: u8) -> String {
    use base64::Engine as _;
    let mut blob = Vec::new();
    let algorithm = b"ssh-ed25519";
    blob.extend_from_slice(&(algorithm.len() as u32).to_be_bytes());
    blob.extend_from_slice(algorithm);
    blob.extend_from_slice(&32u32.to_be_bytes());
    blob.extend_from_slice(&[n + 1; 32]);
    format!(
        "ssh-ed25519 {}",
        base64::engine::general_purpose::STANDARD.encode(blob)
    )
}
