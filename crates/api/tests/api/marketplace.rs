//! The marketplace around bookings: editing and delisting listings, search by hardware,
//! price, free capacity and measured performance with cursor pages, availability over time,
//! and access to what was rented (per-booking tokens and their introspection).

use chrono::{DateTime, Duration, SubsecRound, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{Session, TestApp, assert_problem};

on_both_backends!(
    listings_are_edited_and_delisted_by_their_org_only,
    search_filters_and_sorts_with_cursor_pages,
    search_by_free_capacity_and_availability_over_time,
    access_tokens_work_only_for_their_booking_and_its_provider,
    providers_and_renters_list_their_bookings,
    public_reports_are_listed_newest_first_by_what_they_measured,
);

pub(crate) struct Provider {
    pub(crate) org: String,
    pub(crate) member: Session,
}

pub(crate) async fn provider(app: &TestApp, email: &str) -> Provider {
    let member = app.register(email).await;
    let org: Value = app
        .post(
            "/v1/orgs",
            Some(&member.access_token),
            json!({"name": format!("org of {email}")}),
        )
        .await
        .json()
        .await
        .unwrap();
    Provider {
        org: org["id"].as_str().unwrap().to_owned(),
        member,
    }
}

/// A listing body; `extra` fields replace the defaults.
fn listing_body(org: &str, extra: Value) -> Value {
    let mut body = json!({
        "org_id": org, "title": "machine", "region": "eu",
        "hardware": {"gpu_model": "L4", "gpu_count": 2, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
        "price": {"amount_per_gpu_hour": 150, "currency": "USD"},
        "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
        "access": {"ssh": {"host": "gpu1.example.com", "port": 2222, "user": "renter"}},
    });
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    body
}

pub(crate) async fn list(app: &TestApp, p: &Provider, extra: Value) -> String {
    let res = app
        .post(
            "/v1/listings",
            Some(&p.member.access_token),
            listing_body(&p.org, extra),
        )
        .await;
    assert_eq!(res.status(), 201);
    let listing: Value = res.json().await.unwrap();
    listing["id"].as_str().unwrap().to_owned()
}

/// Gives a listing a compliant report whose valid decode cells measured `cells`
/// (`(context, concurrency, total_tok_s)`), as the verification worker would store it.
async fn verified(app: &TestApp, listing: &str, cells: &[(i64, i64, f64)]) {
    let cells = cells
        .iter()
        .map(|&(context, concurrency, tok_s)| decode_cell(context, concurrency, tok_s))
        .collect();
    verified_with(app, listing, cells).await;
}

pub(crate) use store::tools::testing::decode_cell;

/// Gives a listing a compliant report of these cells (decode and prefill, any figures).
pub(crate) async fn verified_with(app: &TestApp, listing: &str, cells: Vec<store::CellRecord>) {
    let db = app.app.db();
    store::tools::testing::verified_report(db, listing.parse().unwrap(), cells)
        .await
        .unwrap();
}

fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{page}"))
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every id a search yields, following its cursor `limit` at a time.
async fn all_pages(app: &TestApp, query: &str, limit: u64) -> Vec<String> {
    let mut found = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..20 {
        let mut path = format!("/v1/listings?{query}&limit={limit}");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let page: Value = app.get_json(&path, None).await;
        let items = ids(&page);
        assert!(items.len() as u64 <= limit);
        found.extend(items);
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return found,
        }
    }
    panic!("the pages never ended");
}

pub(crate) fn at(hours_from_now: i64) -> DateTime<Utc> {
    (Utc::now() + Duration::hours(hours_from_now)).trunc_subsecs(0)
}

async fn book(
    app: &TestApp,
    who: &Session,
    listing: &str,
    gpus: i64,
    span: (DateTime<Utc>, DateTime<Utc>),
) -> reqwest::Response {
    app.client
        .post(app.url("/v1/bookings"))
        .bearer_auth(&who.access_token)
        .header("Idempotency-Key", Uuid::new_v4().to_string())
        .json(&json!({"listing_id": listing, "gpu_count": gpus, "starts_at": span.0, "ends_at": span.1}))
        .send()
        .await
        .unwrap()
}

async fn listings_are_edited_and_delisted_by_their_org_only(app: TestApp) {
    let p = provider(&app, "provider@example.com").await;
    let other = provider(&app, "other@example.com").await;
    let renter = app.register("renter@example.com").await;
    let listing = list(
        &app,
        &p,
        json!({"engine": {"base_url": "http://127.0.0.1:9", "model": "m", "api_key": "sk-engine-secret"}}),
    )
    .await;
    let path = format!("/v1/listings/{listing}");

    // Public view: no engine address, no key, no access details — only the methods.
    let public: Value = app.get_json(&path, None).await;
    assert_eq!(public["engine"]["has_api_key"], true);
    assert!(public["engine"].get("base_url").is_none());
    assert_eq!(public["access"], json!({"methods": ["ssh"]}));
    assert!(!public.to_string().contains("sk-engine-secret"));

    let until = at(24 * 30);
    let change = json!({"title": "renamed", "availability": {"until": until}});
    for (who, status, code) in [
        (None, 401, "unauthenticated"),
        (Some(&renter.access_token), 403, "forbidden"),
        (Some(&other.member.access_token), 403, "forbidden"),
    ] {
        assert_problem(
            app.call(
                Method::PATCH,
                &path,
                who.map(String::as_str),
                Some(change.clone()),
            )
            .await,
            status,
            code,
        )
        .await;
        assert_problem(
            app.call(Method::DELETE, &path, who.map(String::as_str), None)
                .await,
            status,
            code,
        )
        .await;
    }
    let res = app
        .call(
            Method::PATCH,
            &path,
            Some(&p.member.access_token),
            Some(change),
        )
        .await;
    assert_eq!(res.status(), 200);
    let edited: Value = res.json().await.unwrap();
    assert_eq!(edited["title"], "renamed");
    assert_eq!(edited["availability"]["until"], json!(until));
    assert_eq!(
        edited["access"]["ssh"]["port"], 2222,
        "members see the details"
    );
    assert!(!edited.to_string().contains("sk-engine-secret"));
    assert_eq!(edited["hardware"]["gpu_count"], 2, "untouched fields stay");

    // Bad edits name the field and change nothing.
    for (bad, field) in [
        (
            json!({"price": {"amount_per_gpu_hour": 0}}),
            "price.amount_per_gpu_hour",
        ),
        (json!({"price": {"currency": "XXX"}}), "price.currency"),
        (json!({"hardware": {"gpu_count": 0}}), "hardware.gpu_count"),
        (
            json!({"access": {"https_url": "http://plain.example"}}),
            "access.https_url",
        ),
        (
            json!({"availability": {"from": at(48), "until": at(24)}}),
            "availability.until",
        ),
    ] {
        let problem = assert_problem(
            app.call(
                Method::PATCH,
                &path,
                Some(&p.member.access_token),
                Some(bad.clone()),
            )
            .await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], field, "{bad}");
    }
    assert_problem(
        app.call(
            Method::PATCH,
            &path,
            Some(&p.member.access_token),
            Some(json!({"colour": "red"})),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    let unchanged: Value = app.get_json(&path, None).await;
    assert_eq!(unchanged["price"]["amount_per_gpu_hour"], 150);

    // Outside the window is refused; so is a delisted machine.
    let late = book(&app, &renter, &listing, 1, (at(24 * 31), at(24 * 31 + 1))).await;
    assert_problem(late, 409, "outside_availability").await;
    let res = app
        .call(Method::DELETE, &path, Some(&p.member.access_token), None)
        .await;
    assert_eq!(res.status(), 204);
    let gone: Value = app.get_json(&path, None).await;
    assert_eq!(gone["status"], "delisted");
    assert_problem(
        book(&app, &renter, &listing, 1, (at(24), at(25))).await,
        409,
        "listing_delisted",
    )
    .await;
    assert_problem(
        app.call(
            Method::PATCH,
            &path,
            Some(&p.member.access_token),
            Some(json!({"title": "back"})),
        )
        .await,
        409,
        "listing_delisted",
    )
    .await;
    let search: Value = app.get_json("/v1/listings", None).await;
    assert!(ids(&search).is_empty(), "delisted listings are not found");
    let missing = format!("/v1/listings/{}", Uuid::now_v7());
    assert_problem(
        app.call(Method::DELETE, &missing, Some(&p.member.access_token), None)
            .await,
        404,
        "not_found",
    )
    .await;
}

async fn search_filters_and_sorts_with_cursor_pages(app: TestApp) {
    let p = provider(&app, "provider@example.com").await;
    let hw = |model: &str, gpus: i64, vram: i64| json!({"gpu_model": model, "gpu_count": gpus, "vram_gb": vram, "cpu_model": "x", "ram_gb": 64});
    let price = |amount: i64| json!({"amount_per_gpu_hour": amount, "currency": "USD"});
    // a: cheap L4, slow. b: H100, fast. c: L4 in the US, unverified. d: H100 x2, fastest
    // overall but dear per token. e: A100, mid.
    let a = list(
        &app,
        &p,
        json!({"hardware": hw("L4", 1, 24), "price": price(100)}),
    )
    .await;
    let a = a.as_str();
    let b = list(
        &app,
        &p,
        json!({"hardware": hw("H100", 1, 80), "price": price(400)}),
    )
    .await;
    let b = b.as_str();
    let c = list(
        &app,
        &p,
        json!({"hardware": hw("L4", 1, 24), "price": price(120), "region": "us"}),
    )
    .await;
    let c = c.as_str();
    let d = list(
        &app,
        &p,
        json!({"hardware": hw("H100", 2, 80), "price": price(400)}),
    )
    .await;
    let d = d.as_str();
    let e = list(
        &app,
        &p,
        json!({"hardware": hw("A100", 1, 40), "price": price(250)}),
    )
    .await;
    let e = e.as_str();
    verified(&app, a, &[(1024, 1, 40.0), (1024, 8, 200.0)]).await;
    verified(&app, b, &[(1024, 1, 120.0), (1024, 8, 900.0)]).await;
    verified(&app, d, &[(1024, 1, 125.0), (1024, 8, 1000.0)]).await;
    verified(&app, e, &[(1024, 1, 80.0), (1024, 8, 700.0)]).await;

    let search = |q: &'static str| {
        let app = &app;
        async move {
            ids(&app
                .get_json::<Value>(&format!("/v1/listings?{q}"), None)
                .await)
        }
    };
    // Price, cheapest first, ties by id; every listing.
    assert_eq!(search("").await, [a, c, e, b, d]);
    assert_eq!(search("gpu_model=L4").await, [a, c]);
    assert_eq!(search("min_vram_gb=40").await, [e, b, d]);
    assert_eq!(search("max_price=250").await, [a, c, e]);
    assert_eq!(search("region=us").await, [c]);
    assert_eq!(search("verified=true").await, [a, e, b, d]);
    assert_eq!(search("gpu_count=2").await, [d]);
    assert_eq!(search("currency=eur").await, Vec::<String>::new());
    // By the engine the verified report measured (vLLM's here): unverified ones left out.
    assert_eq!(search("engine=vllm").await, [a, e, b, d]);
    assert_eq!(search("engine=llamacpp").await, Vec::<String>::new());
    // Measured: the best cell, or one cell.
    assert_eq!(search("sort=tok_s").await, [d, b, e, a]);
    assert_eq!(search("min_total_tok_s=800").await, [b, d]);
    assert_eq!(
        search("context=1024&concurrency=1&min_total_tok_s=100&sort=tok_s").await,
        [d, b]
    );
    assert_eq!(
        search("context=1024&concurrency=8&sort=price").await,
        [a, e, b, d]
    );
    // Per million tokens at concurrency 8: a 100/200=0.5, e 250/700=0.357, b 400/900=0.444,
    // d 800/1000=0.8 (two GPUs) — the fastest machine is the dearest per token.
    assert_eq!(
        search("context=1024&concurrency=8&sort=price_per_mtok").await,
        [e, b, a, d]
    );
    let page: Value = app
        .get_json(
            "/v1/listings?context=1024&concurrency=8&sort=price_per_mtok&limit=1",
            None,
        )
        .await;
    let ppm = page["items"][0]["match"]["price_per_mtok"]
        .as_f64()
        .unwrap();
    assert!(
        (ppm - 250.0 / (700.0 * 3600.0) * 1e6).abs() < 1e-9,
        "{page}"
    );
    assert_eq!(page["items"][0]["match"]["total_tok_s"], 700.0);
    assert_eq!(
        search("context=4096&concurrency=8").await,
        Vec::<String>::new()
    );

    // Cursor pages walk the same order without gaps or repeats, for every sort.
    for (query, expected) in [
        ("sort=price", vec![a, c, e, b, d]),
        ("sort=tok_s", vec![d, b, e, a]),
        (
            "context=1024&concurrency=8&sort=price_per_mtok",
            vec![e, b, a, d],
        ),
    ] {
        for limit in [1, 2, 3] {
            assert_eq!(
                all_pages(&app, query, limit).await,
                expected,
                "{query} by {limit}"
            );
        }
    }

    // Bad searches name the parameter.
    for (query, field) in [
        ("sort=fastest", "sort"),
        ("context=1024", "concurrency"),
        ("concurrency=8", "context"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("min_total_tok_s=-1", "min_total_tok_s"),
        ("cursor=nonsense", "cursor"),
        ("gpu_count=0", "gpu_count"),
        ("available_from=2030-01-01T00:00:00Z", "available_until"),
        ("engine=ollama", "engine"),
        // Energy per token is a cell's figure.
        ("sort=j_per_token", "context"),
        ("max_j_per_token=1.5", "context"),
        (
            "context=1024&concurrency=8&max_j_per_token=-1",
            "max_j_per_token",
        ),
    ] {
        let problem = assert_problem(
            app.get(&format!("/v1/listings?{query}"), None).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], field, "{query}");
    }
    let price_cursor: Value = app.get_json("/v1/listings?limit=1", None).await;
    let problem = assert_problem(
        app.get(
            &format!(
                "/v1/listings?sort=tok_s&cursor={}",
                price_cursor["next_cursor"].as_str().unwrap()
            ),
            None,
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "cursor");
    // A malformed parameter is named.
    let problem = assert_problem(
        app.get("/v1/listings?min_vram_gb=lots", None).await,
        400,
        "invalid_parameter",
    )
    .await;
    assert_eq!(
        problem["detail"], "query: min_vram_gb: invalid digit found in string",
        "{problem}"
    );
}

async fn search_by_free_capacity_and_availability_over_time(app: TestApp) {
    // One clock reading for the whole test: hours from it never drift across a second.
    let base = at(0);
    let at = |hours: i64| base + Duration::hours(hours);
    let p = provider(&app, "provider@example.com").await;
    let renter = app.register("renter@example.com").await;
    let busy = list(&app, &p, json!({})).await;
    let busy = busy.as_str();
    let free = list(
        &app,
        &p,
        json!({"price": {"amount_per_gpu_hour": 200, "currency": "USD"}}),
    )
    .await;
    let free = free.as_str();
    let windowed = list(
        &app,
        &p,
        json!({"price": {"amount_per_gpu_hour": 300, "currency": "USD"}, "availability": {"from": at(100), "until": at(200)}}),
    )
    .await;
    let windowed = windowed.as_str();
    // busy: one GPU over [24, 28), both over [26, 27).
    assert_eq!(
        book(&app, &renter, busy, 1, (at(24), at(28)))
            .await
            .status(),
        201
    );
    assert_eq!(
        book(&app, &renter, busy, 1, (at(26), at(27)))
            .await
            .status(),
        201
    );

    let window = |from: i64, until: i64, gpus: i64| {
        format!(
            "/v1/listings?available_from={}&available_until={}&gpu_count={gpus}",
            at(from).to_rfc3339().replace('+', "%2B"),
            at(until).to_rfc3339().replace('+', "%2B"),
        )
    };
    let search = |path: String| {
        let app = &app;
        async move { ids(&app.get_json::<Value>(&path, None).await) }
    };
    assert_eq!(
        search(window(24, 26, 1)).await,
        [busy, free],
        "one GPU is free"
    );
    assert_eq!(search(window(24, 26, 2)).await, [free], "not two");
    assert_eq!(search(window(26, 27, 1)).await, [free], "both taken");
    assert_eq!(
        search(window(28, 30, 2)).await,
        [busy, free],
        "touching is free"
    );
    assert_eq!(
        search(window(120, 130, 2)).await,
        [busy, free, windowed],
        "inside the window"
    );
    assert_eq!(
        search(window(190, 210, 1)).await,
        [busy, free],
        "past its end"
    );
    // Paging through a filtered search still walks every match once.
    let mut seen = Vec::new();
    let mut path = format!("{}&limit=1", window(24, 26, 1));
    loop {
        let page: Value = app.get_json(&path, None).await;
        seen.extend(ids(&page));
        match page["next_cursor"].as_str() {
            Some(c) => path = format!("{}&limit=1&cursor={c}", window(24, 26, 1)),
            None => break,
        }
    }
    assert_eq!(seen, [busy, free]);

    // Availability over time, as segments.
    let path = format!(
        "/v1/listings/{busy}/availability?from={}&to={}",
        at(23).to_rfc3339().replace('+', "%2B"),
        at(29).to_rfc3339().replace('+', "%2B")
    );
    let availability: Value = app.get_json(&path, None).await;
    assert_eq!(availability["gpu_count"], 2);
    let segments: Vec<(DateTime<Utc>, DateTime<Utc>, i64)> = availability["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["from"].as_str().unwrap().parse().unwrap(),
                s["to"].as_str().unwrap().parse().unwrap(),
                s["free_gpus"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        segments,
        [
            (at(23), at(24), 2),
            (at(24), at(26), 1),
            (at(26), at(27), 0),
            (at(27), at(28), 1),
            (at(28), at(29), 2)
        ]
    );
    let path = format!(
        "/v1/listings/{windowed}/availability?from={}&to={}",
        at(90).to_rfc3339().replace('+', "%2B"),
        at(110).to_rfc3339().replace('+', "%2B")
    );
    let availability: Value = app.get_json(&path, None).await;
    assert_eq!(
        availability["segments"][0]["free_gpus"], 0,
        "before the window"
    );
    assert_eq!(availability["segments"][1]["free_gpus"], 2);
    let reversed = format!(
        "/v1/listings/{busy}/availability?from={}&to={}",
        at(29).to_rfc3339().replace('+', "%2B"),
        at(23).to_rfc3339().replace('+', "%2B")
    );
    let problem = assert_problem(app.get(&reversed, None).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "to");
    assert_problem(
        app.get(&format!("/v1/listings/{busy}/availability"), None)
            .await,
        400,
        "invalid_parameter",
    )
    .await;
    let unknown = format!(
        "/v1/listings/{}/availability?from={}&to={}",
        Uuid::now_v7(),
        at(1).to_rfc3339().replace('+', "%2B"),
        at(2).to_rfc3339().replace('+', "%2B")
    );
    assert_problem(app.get(&unknown, None).await, 404, "not_found").await;
}

/// The organisation key a provider puts on its machines: `access:introspect` only.
async fn machine_key(app: &TestApp, p: &Provider) -> String {
    let key: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", p.org),
            Some(&p.member.access_token),
            json!({"name": "machine", "scopes": ["access:introspect"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    key["key"].as_str().unwrap().to_owned()
}

async fn introspect(app: &TestApp, key: &str, token: &str) -> reqwest::Response {
    app.post("/v1/access/introspect", Some(key), json!({"token": token}))
        .await
}

async fn access_tokens_work_only_for_their_booking_and_its_provider(app: TestApp) {
    let p = provider(&app, "provider@example.com").await;
    let other = provider(&app, "other@example.com").await;
    let renter = app.register("renter@example.com").await;
    let listing = list(
        &app,
        &p,
        json!({"access": {"ssh": {"host": "gpu1.example.com", "port": 2222, "user": "renter"}, "https_url": "https://gpu1.example.com/v1"}}),
    )
    .await;
    let provider_key = machine_key(&app, &p).await;
    let other_key = machine_key(&app, &other).await;

    // One booking running now, one tomorrow.
    let now = Utc::now().trunc_subsecs(0);
    let running: Value = book(&app, &renter, &listing, 1, (now, now + Duration::hours(2)))
        .await
        .json()
        .await
        .unwrap();
    let later: Value = book(&app, &renter, &listing, 1, (at(24), at(26)))
        .await
        .json()
        .await
        .unwrap();
    let access_path = |b: &Value| format!("/v1/bookings/{}/access", b["id"].as_str().unwrap());

    let res = app
        .get(&access_path(&running), Some(&renter.access_token))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-store");
    let grant: Value = res.json().await.unwrap();
    assert_eq!(
        grant["ssh"],
        json!({"host": "gpu1.example.com", "port": 2222, "user": "renter"})
    );
    assert_eq!(grant["https_url"], "https://gpu1.example.com/v1");
    assert_eq!(grant["valid_from"], running["starts_at"]);
    assert_eq!(grant["valid_until"], running["ends_at"]);
    let token = grant["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("gmb_"));

    // Only the renter gets access.
    let stranger = app.register("stranger@example.com").await;
    assert_problem(
        app.get(&access_path(&running), Some(&p.member.access_token))
            .await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        app.get(&access_path(&running), Some(&stranger.access_token))
            .await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.get(&access_path(&running), None).await,
        401,
        "unauthenticated",
    )
    .await;

    // The provider's key sees it active, with what was booked.
    let res = introspect(&app, &provider_key, &token).await;
    assert_eq!(res.status(), 200);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["active"], true, "{answer}");
    assert_eq!(answer["booking_id"], running["id"]);
    assert_eq!(answer["listing_id"], listing.as_str());
    assert_eq!(answer["gpu_count"], 1);
    assert_eq!(answer["sub"], renter.user_id.as_str());
    let ends: DateTime<Utc> = running["ends_at"].as_str().unwrap().parse().unwrap();
    assert_eq!(answer["exp"], ends.timestamp());

    // To another organisation's key the token is simply not active (a refusal would tell
    // it the token is valid somewhere); a person's access token or own key is refused.
    let answer: Value = introspect(&app, &other_key, &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer, json!({"active": false}));
    assert_problem(
        introspect(&app, &p.member.access_token, &token).await,
        403,
        "scope_required",
    )
    .await;
    assert_problem(
        app.post("/v1/access/introspect", None, json!({"token": token}))
            .await,
        401,
        "unauthenticated",
    )
    .await;
    // A token is not an API credential, and an API credential is not a token.
    assert_problem(app.get("/v1/me", Some(&token)).await, 401, "invalid_token").await;
    for fake in [
        renter.access_token.clone(),
        "gmb_x.y.z".into(),
        format!("{token}x"),
        String::new(),
    ] {
        let answer: Value = introspect(&app, &provider_key, &fake)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(answer, json!({"active": false}), "{fake}");
    }

    // Tomorrow's booking: a token now, but not active before its start.
    let early: Value = app
        .get_json(&access_path(&later), Some(&renter.access_token))
        .await;
    let answer: Value = introspect(&app, &provider_key, early["token"].as_str().unwrap())
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer, json!({"active": false}));

    // Cancelling revokes every token of the booking.
    let cancel = format!("/v1/bookings/{}/cancel", running["id"].as_str().unwrap());
    assert_eq!(
        app.call(Method::POST, &cancel, Some(&renter.access_token), None)
            .await
            .status(),
        200
    );
    let answer: Value = introspect(&app, &provider_key, &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer, json!({"active": false}));
    assert_problem(
        app.get(&access_path(&running), Some(&renter.access_token))
            .await,
        409,
        "booking_not_active",
    )
    .await;

    // The sweeper moves a started booking to active and keeps its tokens good.
    let started: Value = book(&app, &renter, &listing, 1, (now, now + Duration::hours(1)))
        .await
        .json()
        .await
        .unwrap();
    app.app.sweep_bookings().await.unwrap();
    let path = format!("/v1/bookings/{}", started["id"].as_str().unwrap());
    let seen: Value = app.get_json(&path, Some(&renter.access_token)).await;
    assert_eq!(seen["status"], "active");
    let grant: Value = app
        .get_json(&access_path(&started), Some(&renter.access_token))
        .await;
    let answer: Value = introspect(&app, &provider_key, grant["token"].as_str().unwrap())
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer["active"], true);
}

async fn providers_and_renters_list_their_bookings(app: TestApp) {
    let p = provider(&app, "provider@example.com").await;
    let other = provider(&app, "other@example.com").await;
    let renter = app.register("renter@example.com").await;
    let second = app.register("second@example.com").await;
    let listing = list(&app, &p, json!({})).await;
    let mut mine = Vec::new();
    for hour in [24, 26, 28] {
        let booked: Value = book(&app, &renter, &listing, 1, (at(hour), at(hour + 1)))
            .await
            .json()
            .await
            .unwrap();
        mine.push(booked["id"].as_str().unwrap().to_owned());
    }
    let theirs: Value = book(&app, &second, &listing, 1, (at(24), at(25)))
        .await
        .json()
        .await
        .unwrap();
    mine.reverse(); // newest first

    let page: Value = app
        .get_json("/v1/bookings?limit=2", Some(&renter.access_token))
        .await;
    assert_eq!(ids(&page), mine[..2]);
    let next = page["next_cursor"].as_str().unwrap();
    let page: Value = app
        .get_json(
            &format!("/v1/bookings?limit=2&cursor={next}"),
            Some(&renter.access_token),
        )
        .await;
    assert_eq!(ids(&page), mine[2..]);
    assert!(page["next_cursor"].is_null());
    let page: Value = app
        .get_json("/v1/bookings", Some(&second.access_token))
        .await;
    assert_eq!(ids(&page), [theirs["id"].as_str().unwrap()]);
    assert_problem(app.get("/v1/bookings", None).await, 401, "unauthenticated").await;

    let path = format!("/v1/listings/{listing}/bookings");
    let page: Value = app.get_json(&path, Some(&p.member.access_token)).await;
    assert_eq!(
        ids(&page).len(),
        4,
        "the provider sees every booking of its listing"
    );
    assert_problem(
        app.get(&path, Some(&renter.access_token)).await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(
        app.get(&path, Some(&other.member.access_token)).await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(app.get(&path, None).await, 401, "unauthenticated").await;
}

/// `GET /v1/reports`: anyone reads every public report, newest first, a page at a time,
/// filtered by the catalog GPU and model its listing claimed when the report was made (an
/// edit of the claim later does not move it) and by kind.
async fn public_reports_are_listed_newest_first_by_what_they_measured(app: TestApp) {
    const MODEL: &str = "nvidia-nemotron-nano-12b-v2-awq";
    let p = provider(&app, "reports@example.com").await;
    let claimed = list(
        &app,
        &p,
        json!({"catalog": {"gpu": "rtx-3060-12gb", "model": MODEL}}),
    )
    .await;
    let plain = list(&app, &p, json!({})).await;
    let db = app.app.db();
    let mut made = Vec::new();
    for listing in [&claimed, &claimed, &plain] {
        let cells = vec![decode_cell(1024, 1, 100.0)];
        let id = store::tools::testing::verified_report(db, listing.parse().unwrap(), cells)
            .await
            .unwrap();
        made.push(id.to_string());
    }
    let mut newest_first = made.clone();
    newest_first.sort_unstable_by(|a, b| b.cmp(a));
    let reports = |query: &'static str| {
        let app = &app;
        async move {
            let page: Value = app.get_json(&format!("/v1/reports{query}"), None).await;
            ids(&page)
        }
    };
    assert_eq!(reports("").await, newest_first);
    assert_eq!(reports("?kind=verification").await, newest_first);
    assert!(reports("?kind=spot_check").await.is_empty());
    let of_claim: Vec<String> = newest_first
        .iter()
        .filter(|id| **id != made[2])
        .cloned()
        .collect();
    assert_eq!(reports("?gpu=rtx-3060-12gb").await, of_claim);
    assert_eq!(
        reports("?model=nvidia-nemotron-nano-12b-v2-awq").await,
        of_claim
    );
    assert!(reports("?gpu=h100-sxm-80gb").await.is_empty());

    // Another claim later: the reports keep the one they measured.
    let res = app
        .call(
            Method::PATCH,
            &format!("/v1/listings/{claimed}"),
            Some(&p.member.access_token),
            Some(json!({"catalog": {"gpu": "h100-sxm-80gb", "model": MODEL}})),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(reports("?gpu=rtx-3060-12gb").await, of_claim);
    assert!(reports("?gpu=h100-sxm-80gb").await.is_empty());

    // A page at a time, signed in or not.
    let first: Value = app
        .get_json("/v1/reports?limit=2", Some(&p.member.access_token))
        .await;
    assert_eq!(ids(&first), newest_first[..2]);
    let cursor = first["next_cursor"].as_str().unwrap();
    let second: Value = app
        .get_json(&format!("/v1/reports?limit=2&cursor={cursor}"), None)
        .await;
    assert_eq!(ids(&second), newest_first[2..]);
    assert!(second["next_cursor"].is_null());

    assert_problem(
        app.get("/v1/reports?kind=nope", None).await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/v1/reports?limit=101", None).await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/v1/reports?cursor=x", None).await,
        400,
        "invalid_parameter",
    )
    .await;
}
