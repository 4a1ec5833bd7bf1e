//! Registration, login, refresh rotation, `/v1/me`, and secrets at rest.

use serde_json::{Value, json};

use crate::helpers::{PASSWORD, TestApp, assert_problem};

on_both_backends!(
    register_signs_in_and_me_answers,
    duplicate_email_is_409,
    malformed_input_names_the_field,
    login_checks_the_password,
    refresh_rotates_and_reuse_revokes_the_family,
    secrets_are_never_stored_in_the_clear,
    logout_ends_one_session_and_revoke_all_ends_every_one,
    a_password_change_needs_the_current_one_and_ends_the_other_sessions,
    racing_refreshes_of_one_token_leave_no_live_token,
);

async fn register_signs_in_and_me_answers(app: TestApp) {
    let res = app
        .post(
            "/v1/auth/register",
            None,
            json!({"email": " Ada@Example.com ", "password": PASSWORD, "name": "Ada"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["user"]["email"], "ada@example.com");
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 900);
    assert!(body["refresh_token"].as_str().unwrap().starts_with("gpmr_"));
    assert!(body.get("password").is_none() && body["user"].get("password_hash").is_none());

    let token = body["access_token"].as_str().unwrap();
    let me: Value = app.get_json("/v1/me", Some(token)).await;
    assert_eq!(me["id"], body["user"]["id"]);
    assert_eq!(me["email"], "ada@example.com");
    assert_eq!(me["name"], "Ada");

    assert_problem(app.get("/v1/me", None).await, 401, "unauthenticated").await;
}

async fn duplicate_email_is_409(app: TestApp) {
    app.register("ada@example.com").await;
    let res = app
        .post(
            "/v1/auth/register",
            None,
            json!({"email": "ADA@example.com", "password": PASSWORD, "name": "Other"}),
        )
        .await;
    assert_problem(res, 409, "email_taken").await;
}

async fn malformed_input_names_the_field(app: TestApp) {
    let cases = [
        (
            json!({"email": "nope", "password": PASSWORD, "name": "A"}),
            "email",
        ),
        (
            json!({"email": "a@example.com", "password": "short", "name": "A"}),
            "password",
        ),
        (
            json!({"email": "a@example.com", "password": PASSWORD, "name": "  "}),
            "name",
        ),
        (
            json!({"email": "a@example.com", "password": PASSWORD}),
            "name",
        ),
        (
            json!({"email": 7, "password": PASSWORD, "name": "A"}),
            "email",
        ),
        (
            json!({"email": "a@example.com", "password": PASSWORD, "name": "A", "admin": true}),
            "admin",
        ),
    ];
    for (body, field) in cases {
        let res = app.post("/v1/auth/register", None, body.clone()).await;
        let problem = assert_problem(res, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
    let res = app
        .client
        .post(app.url("/v1/auth/register"))
        .header("content-type", "application/json")
        .body("{\"email\": ")
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "malformed_json").await;
    // Nothing was stored by any of these.
    assert!(app.column("users", "email").await.is_empty());
}

async fn login_checks_the_password(app: TestApp) {
    app.register("ada@example.com").await;
    let res = app
        .post(
            "/v1/auth/login",
            None,
            json!({"email": "ada@example.com", "password": PASSWORD}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    let me = app
        .get("/v1/me", Some(body["access_token"].as_str().unwrap()))
        .await;
    assert_eq!(me.status(), 200);

    for (email, password) in [
        ("ada@example.com", "wrong password entirely"),
        ("nobody@example.com", PASSWORD),
    ] {
        let res = app
            .post(
                "/v1/auth/login",
                None,
                json!({"email": email, "password": password}),
            )
            .await;
        let problem = assert_problem(res, 401, "invalid_credentials").await;
        // The same answer for both, so accounts cannot be probed.
        assert_eq!(problem["detail"], "email or password is wrong");
    }
}

async fn refresh_rotates_and_reuse_revokes_the_family(app: TestApp) {
    let session = app.register("ada@example.com").await;
    let res = app
        .post(
            "/v1/auth/refresh",
            None,
            json!({"refresh_token": session.refresh_token}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let second: Value = res.json().await.unwrap();
    let second_refresh = second["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(second_refresh, session.refresh_token);
    assert_eq!(
        app.get("/v1/me", Some(second["access_token"].as_str().unwrap()))
            .await
            .status(),
        200
    );

    // The first token again: reuse. Refused, and its whole family is revoked ...
    let res = app
        .post(
            "/v1/auth/refresh",
            None,
            json!({"refresh_token": session.refresh_token}),
        )
        .await;
    assert_problem(res, 401, "invalid_token").await;
    // ... so the token rotation had issued stops working too.
    let res = app
        .post(
            "/v1/auth/refresh",
            None,
            json!({"refresh_token": second_refresh}),
        )
        .await;
    assert_problem(res, 401, "invalid_token").await;

    // A separate login is a separate family and is unaffected.
    let res = app
        .post(
            "/v1/auth/login",
            None,
            json!({"email": "ada@example.com", "password": PASSWORD}),
        )
        .await;
    let other: Value = res.json().await.unwrap();
    let res = app
        .post(
            "/v1/auth/refresh",
            None,
            json!({"refresh_token": other["refresh_token"]}),
        )
        .await;
    assert_eq!(res.status(), 200);

    let res = app
        .post(
            "/v1/auth/refresh",
            None,
            json!({"refresh_token": "gpmr_made-up"}),
        )
        .await;
    assert_problem(res, 401, "invalid_token").await;
}

async fn secrets_are_never_stored_in_the_clear(app: TestApp) {
    let session = app.register("ada@example.com").await;
    let key: Value = app
        .post(
            "/v1/api-keys",
            Some(&session.access_token),
            json!({"name": "ci"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let api_key = key["key"].as_str().unwrap();

    let hashes = app.column("users", "password_hash").await;
    assert_eq!(hashes.len(), 1);
    assert!(hashes[0].starts_with("$argon2id$"), "{}", hashes[0]);
    assert!(!hashes[0].contains(PASSWORD));

    let refresh = app.column("refresh_tokens", "token_hash").await;
    assert!(!refresh.iter().any(|h| h == &session.refresh_token));
    assert!(refresh.iter().all(|h| h.len() == 64), "SHA-256 hex");

    let keys = app.column("api_keys", "key_hash").await;
    assert_eq!(keys.len(), 1);
    assert_ne!(keys[0], api_key);
    assert_eq!(keys[0].len(), 64);
    // The shown prefix is a few characters, not the key.
    let prefixes = app.column("api_keys", "prefix").await;
    assert!(api_key.starts_with(&prefixes[0]) && prefixes[0].len() < 16);
}

async fn login(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    app.post(
        "/v1/auth/login",
        None,
        json!({"email": email, "password": password}),
    )
    .await
}

async fn refresh(app: &TestApp, token: &str) -> reqwest::Response {
    app.post("/v1/auth/refresh", None, json!({"refresh_token": token}))
        .await
}

async fn logout_ends_one_session_and_revoke_all_ends_every_one(app: TestApp) {
    let first = app.register("ada@example.com").await;
    let second: Value = login(&app, "ada@example.com", PASSWORD)
        .await
        .json()
        .await
        .unwrap();
    let res = app
        .post(
            "/v1/auth/logout",
            None,
            json!({"refresh_token": first.refresh_token}),
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        refresh(&app, &first.refresh_token).await,
        401,
        "invalid_token",
    )
    .await;
    // Its access token ends with it, at once; the other session's lives on.
    let problem = assert_problem(
        app.get("/v1/me", Some(&first.access_token)).await,
        401,
        "invalid_token",
    )
    .await;
    assert_eq!(problem["detail"], "the session has ended");
    let second_access = second["access_token"].as_str().unwrap();
    assert_eq!(app.get("/v1/me", Some(second_access)).await.status(), 200);
    // Logging out with a token nobody has is answered the same way.
    let res = app
        .post(
            "/v1/auth/logout",
            None,
            json!({"refresh_token": "gpmr_nothing"}),
        )
        .await;
    assert_eq!(res.status(), 204);
    // The other session lives on, and rotates.
    let res = refresh(&app, second["refresh_token"].as_str().unwrap()).await;
    assert_eq!(res.status(), 200);
    let rotated: Value = res.json().await.unwrap();

    // Sign out everywhere: needs a credential, then ends every session.
    assert_problem(
        app.post("/v1/auth/sessions/revoke-all", None, json!({}))
            .await,
        401,
        "unauthenticated",
    )
    .await;
    let res = app
        .post(
            "/v1/auth/sessions/revoke-all",
            Some(rotated["access_token"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let revoked: Value = res.json().await.unwrap();
    assert!(revoked["revoked"].as_u64().unwrap() >= 1, "{revoked}");
    assert_problem(
        refresh(&app, rotated["refresh_token"].as_str().unwrap()).await,
        401,
        "invalid_token",
    )
    .await;
    for token in [second_access, rotated["access_token"].as_str().unwrap()] {
        assert_problem(app.get("/v1/me", Some(token)).await, 401, "invalid_token").await;
    }
}

async fn a_password_change_needs_the_current_one_and_ends_the_other_sessions(app: TestApp) {
    let here = app.register("ada@example.com").await;
    let elsewhere: Value = login(&app, "ada@example.com", PASSWORD)
        .await
        .json()
        .await
        .unwrap();
    let change =
        |current: &str, new: &str| json!({"current_password": current, "new_password": new});
    assert_problem(
        app.post(
            "/v1/auth/password",
            None,
            change(PASSWORD, "a new long password"),
        )
        .await,
        401,
        "unauthenticated",
    )
    .await;
    assert_problem(
        app.post(
            "/v1/auth/password",
            Some(&here.access_token),
            change("not the password", "a new long password"),
        )
        .await,
        401,
        "invalid_credentials",
    )
    .await;
    let problem = assert_problem(
        app.post(
            "/v1/auth/password",
            Some(&here.access_token),
            change(PASSWORD, "short"),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "new_password");
    // An API key cannot change the password.
    let key: Value = app
        .post(
            "/v1/api-keys",
            Some(&here.access_token),
            json!({"name": "ci"}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_problem(
        app.post(
            "/v1/auth/password",
            Some(key["key"].as_str().unwrap()),
            change(PASSWORD, "a new long password"),
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    let res = app
        .post(
            "/v1/auth/password",
            Some(&here.access_token),
            change(PASSWORD, "a new long password"),
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        refresh(&app, elsewhere["refresh_token"].as_str().unwrap()).await,
        401,
        "invalid_token",
    )
    .await;
    // The other session's access token and the personal API key end too.
    for token in [
        elsewhere["access_token"].as_str().unwrap(),
        key["key"].as_str().unwrap(),
    ] {
        assert_problem(app.get("/v1/me", Some(token)).await, 401, "invalid_token").await;
    }
    assert_eq!(
        app.get("/v1/me", Some(&here.access_token)).await.status(),
        200
    );
    // Asked to, a change keeps the keys.
    let kept: Value = app
        .post(
            "/v1/api-keys",
            Some(&here.access_token),
            json!({"name": "kept"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let mut keep = change("a new long password", "another long password");
    keep["keep_api_keys"] = json!(true);
    let res = app
        .post("/v1/auth/password", Some(&here.access_token), keep)
        .await;
    assert_eq!(res.status(), 204);
    assert_eq!(
        app.get("/v1/me", Some(kept["key"].as_str().unwrap()))
            .await
            .status(),
        200
    );
    let back = change("another long password", "a new long password");
    let res = app
        .post("/v1/auth/password", Some(&here.access_token), back)
        .await;
    assert_eq!(res.status(), 204);
    assert_eq!(
        refresh(&app, &here.refresh_token).await.status(),
        200,
        "this session stays"
    );
    assert_problem(
        login(&app, "ada@example.com", PASSWORD).await,
        401,
        "invalid_credentials",
    )
    .await;
    // A failed sign-in waits a second before the next try (the back-off).
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(
        login(&app, "ada@example.com", "a new long password")
            .await
            .status(),
        200
    );
}

async fn racing_refreshes_of_one_token_leave_no_live_token(app: TestApp) {
    let session = app.register("ada@example.com").await;
    let racers = (0..8).map(|_| {
        let client = app.client.clone();
        let url = app.url("/v1/auth/refresh");
        let token = session.refresh_token.clone();
        tokio::spawn(async move {
            client
                .post(url)
                .json(&json!({"refresh_token": token}))
                .send()
                .await
                .unwrap()
        })
    });
    let mut issued = Vec::new();
    for racer in racers {
        let res = racer.await.unwrap();
        if res.status() == 200 {
            let pair: Value = res.json().await.unwrap();
            issued.push(pair["refresh_token"].as_str().unwrap().to_owned());
        }
    }
    assert!(
        issued.len() <= 1,
        "one refresh at most wins: {}",
        issued.len()
    );
    // The reuse revoked the family: whatever the winner got is no way back in.
    for token in issued {
        assert_problem(refresh(&app, &token).await, 401, "invalid_token").await;
    }
}
