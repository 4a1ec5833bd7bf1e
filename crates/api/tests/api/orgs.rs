//! Organisations: every route, allowed and refused, for each role.

use serde_json::{Value, json};

use crate::helpers::{Session, TestApp, assert_problem};

on_both_backends!(
    the_creator_is_the_owner,
    reading_an_org_per_role,
    adding_members_per_role,
    org_routes_refuse_bad_input,
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
    for (who, role) in [
        ("admin@example.com", "admin"),
        ("member@example.com", "member"),
    ] {
        let res = app
            .post(
                &format!("/v1/orgs/{org}/members"),
                Some(&owner.access_token),
                json!({"email": who, "role": role}),
            )
            .await;
        assert_eq!(res.status(), 201, "adding {who}");
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
    for email in [
        "new1@example.com",
        "new2@example.com",
        "new3@example.com",
        "new4@example.com",
    ] {
        app.register(email).await;
    }
    let add = |who: &Session, email: &str, role: &str| {
        let body = json!({"email": email, "role": role});
        let token = who.access_token.clone();
        let path = path.clone();
        let app = &app;
        async move { app.post(&path, Some(&token), body).await }
    };

    // Owners appoint anyone, owners included.
    let res = add(&cast.owner, "new1@example.com", "owner").await;
    assert_eq!(res.status(), 201);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["role"], "owner");
    // Admins appoint members and admins, not owners.
    assert_eq!(
        add(&cast.admin, "new2@example.com", "admin").await.status(),
        201
    );
    assert_eq!(
        add(&cast.admin, "new3@example.com", "member")
            .await
            .status(),
        201
    );
    assert_problem(
        add(&cast.admin, "new4@example.com", "owner").await,
        403,
        "forbidden",
    )
    .await;
    // Members and outsiders appoint nobody.
    assert_problem(
        add(&cast.member, "new4@example.com", "member").await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        add(&cast.outsider, "new4@example.com", "member").await,
        403,
        "forbidden",
    )
    .await;
    let res = app
        .post(
            &path,
            None,
            json!({"email": "new4@example.com", "role": "member"}),
        )
        .await;
    assert_problem(res, 401, "unauthenticated").await;

    // Already a member: 409, and the existing role is kept.
    assert_problem(
        add(&cast.owner, "member@example.com", "admin").await,
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
    let members = details["members"].as_array().unwrap();
    assert_eq!(members.len(), 6);
    let member = members
        .iter()
        .find(|m| m["email"] == "member@example.com")
        .unwrap();
    assert_eq!(member["role"], "member");
}

async fn org_routes_refuse_bad_input(app: TestApp) {
    let cast = cast(&app).await;
    let path = format!("/v1/orgs/{}/members", cast.org);
    let token = Some(cast.owner.access_token.as_str());

    let res = app
        .post(
            &path,
            token,
            json!({"email": "nobody@example.com", "role": "member"}),
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
