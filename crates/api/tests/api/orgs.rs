//! Organisations: every route, allowed and refused, for each role.

use serde_json::{Value, json};

use crate::helpers::{Session, TestApp, assert_problem};

on_both_backends!(
    the_creator_is_the_owner,
    reading_an_org_per_role,
    adding_members_per_role,
    org_routes_refuse_bad_input,
    roles_change_and_members_leave_but_an_owner_remains,
    organisation_keys_act_within_their_scopes,
    the_directory_lists_providers_with_active_listings,
);

/// An organisation with an owner, an admin, a member, and an outsider.
struct Cast {
    org: String,
    owner: Session,
    admin: Session,
    member: Session,
    outsider: Session,
}

async fn cast(app: &TestApp) -> Cast {
    let owner = app.register("owner@example.com").await;
    let admin = app.register("admin@example.com").await;
    let member = app.register("member@example.com").await;
    let outsider = app.register("outsider@example.com").await;
    let org: Value = app
        .post(
            "/v1/orgs",
            Some(&owner.access_token),
            json!({"name": "Acme GPUs"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let org = org["id"].as_str().unwrap().to_owned();
    for (who, email, role) in [
        (&admin, "admin@example.com", "admin"),
        (&member, "member@example.com", "member"),
    ] {
        crate::helpers::join(app, &org, &owner.access_token, who, email, role).await;
    }
    Cast {
        org,
        owner,
        admin,
        member,
        outsider,
    }
}

async fn the_creator_is_the_owner(app: TestApp) {
    let ada = app.register("ada@example.com").await;
    let res = app
        .post("/v1/orgs", Some(&ada.access_token), json!({"name": "Acme"}))
        .await;
    assert_eq!(res.status(), 201);
    let org: Value = res.json().await.unwrap();
    assert_eq!(org["name"], "Acme");

    let mine: Value = app.get_json("/v1/orgs", Some(&ada.access_token)).await;
    assert_eq!(mine["items"][0]["id"], org["id"]);
    assert_eq!(mine["items"][0]["role"], "owner");

    let id = org["id"].as_str().unwrap();
    let details: Value = app
        .get_json(&format!("/v1/orgs/{id}"), Some(&ada.access_token))
        .await;
    assert_eq!(details["role"], "owner");
    assert_eq!(details["members"][0]["user_id"], ada.user_id.as_str());
    assert_eq!(details["members"][0]["role"], "owner");

    assert_problem(
        app.post("/v1/orgs", None, json!({"name": "x"})).await,
        401,
        "unauthenticated",
    )
    .await;
    assert_problem(app.get("/v1/orgs", None).await, 401, "unauthenticated").await;
}

async fn reading_an_org_per_role(app: TestApp) {
    let cast = cast(&app).await;
    let path = format!("/v1/orgs/{}", cast.org);
    for (who, role) in [
        (&cast.owner, "owner"),
        (&cast.admin, "admin"),
        (&cast.member, "member"),
    ] {
        let res = app.get(&path, Some(&who.access_token)).await;
        assert_eq!(res.status(), 200, "{role}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["role"], role);
        assert_eq!(body["members"].as_array().unwrap().len(), 3);
    }
    assert_problem(
        app.get(&path, Some(&cast.outsider.access_token)).await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(app.get(&path, None).await, 401, "unauthenticated").await;
    let unknown = format!("/v1/orgs/{}", uuid::Uuid::now_v7());
    assert_problem(
        app.get(&unknown, Some(&cast.owner.access_token)).await,
        404,
        "not_found",
    )
    .await;
    // The outsider's own list does not show it.
    let theirs: Value = app
        .get_json("/v1/orgs", Some(&cast.outsider.access_token))
        .await;
    assert!(theirs["items"].as_array().unwrap().is_empty());
}

async fn adding_members_per_role(app: TestApp) {
    let cast = cast(&app).await;
    let path = format!("/v1/orgs/{}/members", cast.org);
    let mut people = Vec::new();
    for email in ["new1@example.com", "new2@example.com", "new3@example.com"] {
        people.push(app.register(email).await);
    }
    let invite = |who: &Session, email: &str, role: &str| {
        let body = json!({"email": email, "role": role});
        let token = who.access_token.clone();
        let path = path.clone();
        let app = &app;
        async move { app.post(&path, Some(&token), body).await }
    };
    let accept = |invitation: Value, who: &Session| {
        let token = who.access_token.clone();
        let app = &app;
        async move {
            app.post(
                &format!(
                    "/v1/invitations/{}/accept",
                    invitation["token"].as_str().unwrap()
                ),
                Some(&token),
                json!({}),
            )
            .await
        }
    };

    // Owners invite anyone, owners included; nobody joins until they accept.
    let res = invite(&cast.owner, "new1@example.com", "owner").await;
    assert_eq!(res.status(), 201);
    let invitation: Value = res.json().await.unwrap();
    assert_eq!(invitation["role"], "owner");
    assert!(invitation["token"].as_str().unwrap().starts_with("gpmi_"));
    assert!(invitation["url"].as_str().unwrap().ends_with("/accept"));
    let count = || async {
        let details: Value = app
            .get_json(
                &format!("/v1/orgs/{}", cast.org),
                Some(&cast.member.access_token),
            )
            .await;
        details["members"].as_array().unwrap().len()
    };
    assert_eq!(count().await, 3, "not a member before accepting");
    // Only the invited account accepts; another gets "not found".
    assert_problem(
        accept(invitation.clone(), &people[1]).await,
        404,
        "not_found",
    )
    .await;
    let res = accept(invitation.clone(), &people[0]).await;
    assert_eq!(res.status(), 200);
    let joined: Value = res.json().await.unwrap();
    assert_eq!(joined["role"], "owner");
    assert_eq!(count().await, 4);
    // Single use.
    assert_problem(accept(invitation, &people[0]).await, 404, "not_found").await;

    // Admins invite members and admins, not owners.
    let res = invite(&cast.admin, "new2@example.com", "admin").await;
    assert_eq!(res.status(), 201);
    accept(res.json().await.unwrap(), &people[1]).await;
    assert_problem(
        invite(&cast.admin, "new3@example.com", "owner").await,
        403,
        "forbidden",
    )
    .await;
    // Members and outsiders invite nobody.
    for who in [&cast.member, &cast.outsider] {
        assert_problem(
            invite(who, "new3@example.com", "member").await,
            403,
            "forbidden",
        )
        .await;
    }
    let res = app
        .post(
            &path,
            None,
            json!({"email": "new3@example.com", "role": "member"}),
        )
        .await;
    assert_problem(res, 401, "unauthenticated").await;
    // An invitation for an address with no account is answered the same way.
    let res = invite(&cast.owner, "nobody-yet@example.com", "member").await;
    assert_eq!(res.status(), 201);

    // Already a member: 409 at acceptance, and the existing role is kept.
    let res = invite(&cast.owner, "member@example.com", "admin").await;
    assert_problem(
        accept(res.json().await.unwrap(), &cast.member).await,
        409,
        "already_member",
    )
    .await;
    let details: Value = app
        .get_json(
            &format!("/v1/orgs/{}", cast.org),
            Some(&cast.member.access_token),
        )
        .await;
    let member = details["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "member@example.com")
        .unwrap()
        .clone();
    assert_eq!(member["role"], "member");
}

async fn roles_change_and_members_leave_but_an_owner_remains(app: TestApp) {
    let cast = cast(&app).await;
    let member_id = cast.member.user_id.clone();
    let path = |user: &str| format!("/v1/orgs/{}/members/{user}", cast.org);
    let set = |who: &Session, user: String, role: &str| {
        let token = who.access_token.clone();
        let body = json!({"role": role});
        let app = &app;
        let path = path(&user);
        async move {
            app.call(reqwest::Method::PATCH, &path, Some(&token), Some(body))
                .await
        }
    };
    let remove = |who: &Session, user: String| {
        let token = who.access_token.clone();
        let app = &app;
        let path = path(&user);
        async move {
            app.call(reqwest::Method::DELETE, &path, Some(&token), None)
                .await
        }
    };
    // Admins promote members to admin; members change nothing; only owners touch owners.
    assert_problem(
        set(&cast.member, cast.admin.user_id.clone(), "member").await,
        403,
        "forbidden",
    )
    .await;
    let res = set(&cast.admin, member_id.clone(), "admin").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["role"], "admin");
    assert_problem(
        set(&cast.admin, cast.owner.user_id.clone(), "member").await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        set(&cast.admin, member_id.clone(), "owner").await,
        403,
        "forbidden",
    )
    .await;
    // The last owner keeps the role and cannot leave.
    assert_problem(
        set(&cast.owner, cast.owner.user_id.clone(), "admin").await,
        409,
        "last_owner",
    )
    .await;
    assert_problem(
        remove(&cast.owner, cast.owner.user_id.clone()).await,
        409,
        "last_owner",
    )
    .await;
    // With a second owner, the first may step down.
    assert_eq!(
        set(&cast.owner, cast.admin.user_id.clone(), "owner")
            .await
            .status(),
        200
    );
    assert_eq!(
        set(&cast.owner, cast.owner.user_id.clone(), "admin")
            .await
            .status(),
        200
    );
    // A member leaves; an outsider removes nobody.
    assert_problem(
        remove(&cast.outsider, member_id.clone()).await,
        403,
        "forbidden",
    )
    .await;
    assert_eq!(remove(&cast.member, member_id.clone()).await.status(), 204);
    assert_problem(
        app.get(
            &format!("/v1/orgs/{}", cast.org),
            Some(&cast.member.access_token),
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(remove(&cast.admin, member_id).await, 404, "not_found").await;
}

async fn organisation_keys_act_within_their_scopes(app: TestApp) {
    let cast = cast(&app).await;
    let keys = format!("/v1/orgs/{}/api-keys", cast.org);
    let mint = |scopes: Value| {
        let app = &app;
        let token = cast.admin.access_token.clone();
        let keys = keys.clone();
        async move {
            let res = app
                .post(
                    &keys,
                    Some(&token),
                    json!({"name": "machine", "scopes": scopes}),
                )
                .await;
            assert_eq!(res.status(), 201);
            res.json::<Value>().await.unwrap()["key"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    // Members cannot mint organisation keys; bad scopes are named.
    assert_problem(
        app.post(
            &keys,
            Some(&cast.member.access_token),
            json!({"name": "x", "scopes": ["read"]}),
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    let problem = assert_problem(
        app.post(
            &keys,
            Some(&cast.admin.access_token),
            json!({"name": "x", "scopes": ["root"]}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "scopes");

    let introspect = mint(json!(["access:introspect"])).await;
    // It introspects (an unknown token is simply not active)...
    let res = app
        .post(
            "/v1/access/introspect",
            Some(&introspect),
            json!({"token": "nonsense"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["active"], false);
    // ...and nothing else: reads, listings, keys, the organisation itself.
    for (method, path, body) in [
        ("GET", format!("/v1/orgs/{}", cast.org), None),
        ("GET", "/v1/me".to_owned(), None),
        (
            "POST",
            "/v1/api-keys".to_owned(),
            Some(json!({"name": "more"})),
        ),
        (
            "POST",
            keys.clone(),
            Some(json!({"name": "more", "scopes": ["read"]})),
        ),
        (
            "POST",
            "/v1/listings".to_owned(),
            Some(json!({
                "org_id": cast.org, "title": "t", "region": "eu",
                "hardware": {"gpu_model": "L4", "gpu_count": 1, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
                "price": {"amount_per_gpu_hour": 150, "currency": "USD"},
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            })),
        ),
    ] {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let res = app.call(method, &path, Some(&introspect), body).await;
        assert_problem(res, 403, "scope_required").await;
    }
    // A read key reads its organisation, not another's, and cannot write.
    let read = mint(json!(["read"])).await;
    assert_eq!(
        app.get(&format!("/v1/orgs/{}", cast.org), Some(&read))
            .await
            .status(),
        200
    );
    let other: Value = app
        .post(
            "/v1/orgs",
            Some(&cast.outsider.access_token),
            json!({"name": "Other"}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_problem(
        app.get(
            &format!("/v1/orgs/{}", other["id"].as_str().unwrap()),
            Some(&read),
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    // A person's own key cannot introspect any more: that takes an organisation key.
    let own: Value = app
        .post(
            "/v1/api-keys",
            Some(&cast.admin.access_token),
            json!({"name": "mine"}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_problem(
        app.post(
            "/v1/access/introspect",
            Some(own["key"].as_str().unwrap()),
            json!({"token": "x"}),
        )
        .await,
        403,
        "scope_required",
    )
    .await;
    // Listed with scopes, revoked at once.
    let listed: Value = app.get_json(&keys, Some(&cast.admin.access_token)).await;
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert!(
        items
            .iter()
            .any(|k| k["scopes"] == json!(["access:introspect"]))
    );
    let id = items
        .iter()
        .find(|k| k["scopes"] == json!(["read"]))
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = app
        .call(
            reqwest::Method::DELETE,
            &format!("{keys}/{id}"),
            Some(&cast.admin.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        app.get(&format!("/v1/orgs/{}", cast.org), Some(&read))
            .await,
        401,
        "invalid_token",
    )
    .await;
}

async fn org_routes_refuse_bad_input(app: TestApp) {
    let cast = cast(&app).await;
    let path = format!("/v1/orgs/{}/members", cast.org);
    let token = Some(cast.owner.access_token.as_str());

    let res = app
        .post(
            &path,
            token,
            json!({"email": "not an email", "role": "member"}),
        )
        .await;
    let problem = assert_problem(res, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "email");

    let res = app
        .post(
            &path,
            token,
            json!({"email": "new@example.com", "role": "root"}),
        )
        .await;
    let problem = assert_problem(res, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "role");

    let res = app.post("/v1/orgs", token, json!({"name": ""})).await;
    let problem = assert_problem(res, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "name");

    assert_problem(
        app.get("/v1/orgs/not-a-uuid", token).await,
        400,
        "invalid_parameter",
    )
    .await;
}

/// `GET /v1/organizations`: anyone may read it; it lists organisations with an active listing,
/// by name, with their counts, a page at a time; never one whose listings are all delisted,
/// nor one without listings.
async fn the_directory_lists_providers_with_active_listings(app: TestApp) {
    use crate::marketplace::{decode_cell, list, provider, verified_with};
    let zeta = provider(&app, "zeta@example.com").await;
    let alpha = provider(&app, "alpha@example.com").await;
    let gone = provider(&app, "gone@example.com").await;
    let _empty = provider(&app, "empty@example.com").await;
    for p in [&zeta, &alpha] {
        list(&app, p, json!({})).await;
    }
    let verified = list(&app, &zeta, json!({})).await;
    verified_with(&app, &verified, vec![decode_cell(1024, 1, 100.0)]).await;
    let delisted = list(&app, &gone, json!({})).await;
    let res = app
        .call(
            reqwest::Method::DELETE,
            &format!("/v1/listings/{delisted}"),
            Some(&gone.member.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);

    // By name: "org of alpha…" before "org of zeta…".
    let page: Value = app.get_json("/v1/organizations", None).await;
    let items = page["items"].as_array().unwrap();
    let ids: Vec<&str> = items.iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [alpha.org.as_str(), zeta.org.as_str()], "{page}");
    assert_eq!(items[0]["name"], "org of alpha@example.com");
    assert_eq!(
        (&items[0]["listings"], &items[0]["verified_listings"]),
        (&json!(1), &json!(0))
    );
    assert_eq!(
        (&items[1]["listings"], &items[1]["verified_listings"]),
        (&json!(2), &json!(1))
    );
    assert_eq!(items[1]["report"], format!("/v1/orgs/{}/report", zeta.org));
    assert!(page["next_cursor"].is_null());

    // A page at a time; a signed-in caller sees the same directory.
    let first: Value = app
        .get_json("/v1/organizations?limit=1", Some(&gone.member.access_token))
        .await;
    assert_eq!(first["items"][0]["id"], alpha.org.as_str());
    let cursor = first["next_cursor"].as_str().unwrap();
    let second: Value = app
        .get_json(&format!("/v1/organizations?limit=1&cursor={cursor}"), None)
        .await;
    assert_eq!(second["items"][0]["id"], zeta.org.as_str());

    assert_problem(
        app.get("/v1/organizations?limit=0", None).await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/v1/organizations?cursor=nope", None).await,
        400,
        "invalid_parameter",
    )
    .await;
}
