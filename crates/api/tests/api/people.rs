//! People's data on request: `GET /v1/me/export` holds every table that names a person (the
//! schema is read, and a table naming a person that the store does not list fails here), and
//! `DELETE /v1/me` erases the account — refused while its person is an organisation's only
//! owner or a booking of theirs has not ended — leaving their address and name nowhere in the
//! database while their bookings stay, their sessions and keys refused.

use chrono::{Duration, Utc};
use reqwest::Method;
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, Statement};
use serde_json::json;

use crate::helpers::{PASSWORD, TestApp, assert_problem, join, json_of};

on_backends!(a_person_exports_everything_held_and_erasure_leaves_them_nowhere);

/// Ada's address and the name registration gives her: what must be gone after her erasure.
const EMAIL: &str = "ada.lovelace.q7@example.com";
const NAME: &str = "ada.lovelace.q7";
const ED25519: &str = include_str!("data/ssh/ed25519.pub");

/// Columns whose name says they name a person.
fn names_a_person(column: &str) -> bool {
    column == "email"
        || column.ends_with("user_id")
        || column.ends_with("renter_id")
        || column.ends_with("_by")
        || column.starts_with("submitter")
        || column.starts_with("actor")
}

/// Every (table, column) of the schema but the migrations' own.
async fn schema(db: &DatabaseConnection) -> Vec<(String, String)> {
    let backend = db.get_database_backend();
    let sql = match backend {
        sea_orm::DbBackend::Postgres => {
            "SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns \
             WHERE table_schema = current_schema()"
        }
        _ => {
            "SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'"
        }
    };
    let rows = db
        .query_all_raw(Statement::from_string(backend, sql.to_owned()))
        .await
        .unwrap();
    let mut columns: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.try_get("", "t").unwrap(), r.try_get("", "c").unwrap()))
        .filter(|(t, _): &(String, String)| t != "seaql_migrations")
        .collect();
    columns.sort();
    columns
}

/// The (table, column) pairs holding any of `needles` anywhere in their text.
async fn holding(db: &DatabaseConnection, needles: &[&str]) -> Vec<(String, String)> {
    let backend = db.get_database_backend();
    let mut found = Vec::new();
    for (table, column) in schema(db).await {
        let any = needles
            .iter()
            .map(|n| format!("CAST(\"{column}\" AS TEXT) LIKE '%{n}%'"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let sql = format!("SELECT COUNT(*) AS n FROM \"{table}\" WHERE {any}");
        let row = db
            .query_one_raw(Statement::from_string(backend, sql))
            .await
            .unwrap()
            .unwrap();
        if row.try_get::<i64>("", "n").unwrap() > 0 {
            found.push((table, column));
        }
    }
    found
}

async fn a_person_exports_everything_held_and_erasure_leaves_them_nowhere(backend: store::Backend) {
    let app = TestApp::spawn_with(backend, |config| {
        config.webhooks.webhook_allow_private = true;
    })
    .await;
    let db = Database::connect(app.database_url()).await.unwrap();

    // The store lists every table the schema has that names a person.
    let listed: Vec<(&str, &str)> = store::PERSON_TABLES
        .iter()
        .flat_map(|(t, cs)| cs.iter().map(move |c| (*t, *c)))
        .collect();
    let unlisted: Vec<_> = schema(&db)
        .await
        .into_iter()
        .filter(|(t, c)| names_a_person(c) && !listed.contains(&(t.as_str(), c.as_str())))
        .collect();
    assert!(
        unlisted.is_empty(),
        "columns naming a person that export and erasure do not cover \
         (list them in store::PERSON_TABLES and decide their erasure): {unlisted:?}"
    );
    for (table, column) in &listed {
        let known = schema(&db).await;
        assert!(
            known.iter().any(|(t, c)| t == table && c == column),
            "store::PERSON_TABLES names {table}.{column}, which the schema does not have"
        );
    }

    let ada = app.register(EMAIL).await;
    let bob = app.register("bob@example.com").await;
    let token = Some(ada.access_token.as_str());
    // What she holds: an SSH key, her own API key, an organisation (hers alone) with a key
    // she made, a budget, her own webhook endpoint, a second sign-in, and a booking.
    assert_eq!(
        app.post(
            "/v1/me/ssh-keys",
            token,
            json!({"name": "laptop", "public_key": ED25519})
        )
        .await
        .status(),
        201
    );
    let own_key = json_of(
        app.post("/v1/api-keys", token, json!({"name": "ada script 9f"}))
            .await,
        201,
    )
    .await["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let org = json_of(
        app.post("/v1/orgs", token, json!({"name": "Ada GPUs"}))
            .await,
        201,
    )
    .await;
    let org_id = org["id"].as_str().unwrap().to_owned();
    let org_key = json_of(
        app.post(
            &format!("/v1/orgs/{org_id}/api-keys"),
            token,
            json!({"name": "machine", "scopes": ["read"]}),
        )
        .await,
        201,
    )
    .await["key"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        app.call(
            Method::PUT,
            "/v1/me/budget",
            token,
            Some(json!({"amount_per_month": 100000, "currency": "USD"}))
        )
        .await
        .status(),
        200
    );
    json_of(
        app.post(
            "/v1/webhook-endpoints",
            token,
            json!({"url": "http://127.0.0.1:9/ada", "events": ["*"]}),
        )
        .await,
        201,
    )
    .await;
    let login = json_of(
        app.post(
            "/v1/auth/login",
            None,
            json!({"email": EMAIL, "password": PASSWORD}),
        )
        .await,
        200,
    )
    .await;
    // Bob's organisation rents out a machine, and invites her (she has not answered).
    let b_org = json_of(
        app.post("/v1/orgs", Some(&bob.access_token), json!({"name": "B"}))
            .await,
        201,
    )
    .await;
    json_of(
        app.post(
            &format!("/v1/orgs/{}/invitations", b_org["id"].as_str().unwrap()),
            Some(&bob.access_token),
            json!({"email": EMAIL, "role": "member"}),
        )
        .await,
        201,
    )
    .await;
    let listing = json_of(
        app.post(
            "/v1/listings",
            Some(&bob.access_token),
            json!({
                "org_id": b_org["id"],
                "title": "2x GPU", "region": "eu",
                "hardware": {"gpu_model": "L4", "gpu_count": 2, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
                "price": {"amount_per_gpu_hour": 150, "currency": "USD"},
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            }),
        )
        .await,
        201,
    )
    .await;
    let start = Utc::now() + Duration::hours(24);
    let start = start - Duration::nanoseconds(i64::from(start.timestamp_subsec_nanos()));
    let booking = json_of(
        app.client
            .post(app.url("/v1/bookings"))
            .bearer_auth(&ada.access_token)
            .header("Idempotency-Key", "ada-1")
            .json(&json!({"listing_id": listing["id"], "gpu_count": 1,
                   "starts_at": start.to_rfc3339(), "ends_at": (start + Duration::hours(2)).to_rfc3339()}))
            .send()
            .await
            .unwrap(),
        201,
    )
    .await;
    let booking_id = booking["id"].as_str().unwrap().to_owned();

    // The export: with her session or her own key, never an organisation's key.
    assert_eq!(app.get("/v1/me/export", None).await.status(), 401);
    assert_eq!(app.get("/v1/me/export", Some(&org_key)).await.status(), 403);
    let res = app.get("/v1/me/export", Some(&own_key)).await;
    assert_eq!(res.headers()["cache-control"].to_str().unwrap(), "no-store");
    let export = json_of(res, 200).await;
    assert_eq!(export["user_id"], ada.user_id.as_str());
    let tables = export["tables"].as_object().unwrap();
    let names: Vec<&str> = tables.keys().map(String::as_str).collect();
    let mut expected: Vec<&str> = store::PERSON_TABLES.iter().map(|(t, _)| *t).collect();
    expected.sort_unstable();
    assert_eq!(names, expected, "one entry per table naming a person");
    let rows = |table: &str| tables[table].as_array().unwrap().clone();
    assert_eq!(rows("users")[0]["email"], EMAIL);
    assert_eq!(rows("users")[0]["name"], NAME);
    assert_eq!(rows("ssh_keys").len(), 1);
    assert_eq!(
        rows("api_keys").len(),
        2,
        "her own key and the one she made for the org"
    );
    assert_eq!(rows("memberships")[0]["role"], "owner");
    assert_eq!(rows("refresh_tokens").len(), 2, "two sessions");
    assert!(!rows("login_networks").is_empty());
    assert_eq!(rows("budgets").len(), 1);
    assert_eq!(rows("invitations")[0]["email"], EMAIL, "addressed to her");
    assert_eq!(rows("webhook_endpoints").len(), 1);
    assert_eq!(rows("bookings")[0]["id"], booking_id.as_str());
    assert_eq!(rows("bookings")[0]["status"], "confirmed");
    let text = export.to_string();
    for secret in [
        "password_hash",
        "token_hash",
        "key_hash",
        "\"secret\"",
        "argon2",
    ] {
        assert!(!text.contains(secret), "the export carries {secret}");
    }

    // What erasure must leave nowhere is found before it (the scan finds what it looks for).
    let before = holding(&db, &[EMAIL, NAME, "ada script 9f"]).await;
    for column in [
        ("users", "email"),
        ("users", "name"),
        ("api_keys", "name"),
        ("invitations", "email"),
    ] {
        let column = (column.0.to_owned(), column.1.to_owned());
        assert!(before.contains(&column), "{column:?} not in {before:?}");
    }

    // Erasure: a session only; refused while she is her organisation's only owner and while
    // her booking has not ended; nothing changes meanwhile.
    let erase = |bearer: String| {
        let app = &app;
        async move {
            app.call(Method::DELETE, "/v1/me", Some(&bearer), None)
                .await
        }
    };
    assert_eq!(
        app.call(Method::DELETE, "/v1/me", None, None)
            .await
            .status(),
        401
    );
    assert_problem(erase(own_key.clone()).await, 403, "forbidden").await;
    assert_problem(erase(ada.access_token.clone()).await, 409, "last_owner").await;
    join(
        &app,
        &org_id,
        &ada.access_token,
        &bob,
        "bob@example.com",
        "owner",
    )
    .await;
    let refused = assert_problem(
        erase(ada.access_token.clone()).await,
        409,
        "bookings_not_ended",
    )
    .await;
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("1 of your bookings"),
        "{refused}"
    );
    assert_eq!(
        app.get("/v1/me", token).await.status(),
        200,
        "nothing erased"
    );
    let cancel = format!("/v1/bookings/{booking_id}/cancel");
    assert_eq!(
        app.call(Method::POST, &cancel, token, None).await.status(),
        200
    );
    assert_eq!(erase(ada.access_token.clone()).await.status(), 204);

    // Every credential she had is refused; her address signs nobody in.
    for bearer in [
        &ada.access_token,
        &login["access_token"].as_str().unwrap().to_owned(),
        &own_key,
        &org_key,
    ] {
        assert_eq!(
            app.get("/v1/me/export", Some(bearer)).await.status(),
            401,
            "{bearer}"
        );
    }
    assert_eq!(
        app.post(
            "/v1/auth/refresh",
            None,
            json!({"refresh_token": ada.refresh_token})
        )
        .await
        .status(),
        401
    );
    assert_eq!(
        app.post(
            "/v1/auth/login",
            None,
            json!({"email": EMAIL, "password": PASSWORD})
        )
        .await
        .status(),
        401
    );
    assert_eq!(
        erase(ada.access_token.clone()).await.status(),
        401,
        "an erased account is erased once"
    );

    // Her address and name are nowhere; her booking stays, naming her account by id.
    let left = holding(&db, &[EMAIL, NAME, "ada script 9f", "laptop"]).await;
    assert!(left.is_empty(), "her data is still in {left:?}");
    let backend = db.get_database_backend();
    let kept = db
        .query_one_raw(Statement::from_string(
            backend,
            "SELECT COUNT(*) AS n FROM bookings".to_owned(),
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        kept.try_get::<i64>("", "n").unwrap(),
        1,
        "the booking is kept"
    );
    // Bob owns the organisation alone now; it lists him only.
    let details = json_of(
        app.get(&format!("/v1/orgs/{org_id}"), Some(&bob.access_token))
            .await,
        200,
    )
    .await;
    let members = details["members"].as_array().unwrap();
    assert_eq!(members.len(), 1, "{details}");
    assert_eq!(members[0]["user_id"], bob.user_id.as_str());
    // The address is free for a new account.
    assert_eq!(
        app.post(
            "/v1/auth/register",
            None,
            json!({"email": EMAIL, "password": PASSWORD, "name": "Ada"})
        )
        .await
        .status(),
        201
    );
    db.close().await.unwrap();
}
