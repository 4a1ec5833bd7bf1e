//! The metered gateway against an engine written here, whose every byte is known: a stream
//! passes through unchanged (the usage the gateway asked for stripped again), usage is
//! metered from the engine's counters and capped, and only the booking's renter gets through,
//! only while the booking holds.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{SubsecRound, Utc};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::helpers::{Session, TestApp, assert_problem};

on_both_backends!(
    a_renter_streams_through_the_gateway_byte_for_byte_and_is_metered,
    only_the_renter_gets_through_and_only_while_the_booking_holds,
    an_engine_that_inflates_usage_is_capped_and_a_client_gone_is_metered_for_what_it_got,
    tokenize_and_version_keep_vllms_shapes_on_every_engine,
);

/// The engine's chat stream: the chunks, then (when asked) the usage, then `[DONE]`.
const CHUNKS: [&str; 4] = [
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"tiny","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"tiny","choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"tiny","choices":[{"index":0,"delta":{"content":"lo"},"logprobs":null,"finish_reason":null}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"tiny","choices":[{"index":0,"delta":{"content":"!"},"logprobs":null,"finish_reason":"length"}]}"#,
];
const PROMPT_TOKENS: u64 = 14;
const OUTPUT_TOKENS: u64 = 3;

#[derive(Clone, Default)]
pub(crate) struct Seen {
    pub(crate) bodies: Arc<Mutex<Vec<Value>>>,
    authorizations: Arc<Mutex<Vec<Option<String>>>>,
}

/// The engine's bytes for a request: `usage` on a stream when asked; `claimed` output tokens
/// in its usage (an honest engine claims what it sent).
fn stream_bytes(include_usage: bool, claimed: u64) -> Vec<u8> {
    let mut out = String::new();
    for chunk in CHUNKS {
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    if include_usage {
        out.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"tiny\",\"choices\":[],\"usage\":{{\"prompt_tokens\":{PROMPT_TOKENS},\"total_tokens\":{},\"completion_tokens\":{claimed}}}}}\n\n",
            PROMPT_TOKENS + claimed
        ));
    }
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

/// An engine on a free port. `claimed` is what its usage says it generated; a request
/// with `"slow": true` streams a chunk every 300 ms.
pub(crate) fn start_engine(seen: Seen, claimed: u64) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = actix_web::HttpServer::new(move || {
        let seen = seen.clone();
        actix_web::App::new()
            .app_data(web::Data::new(seen))
            .route("/v1/chat/completions", web::post().to(move |req: HttpRequest, body: web::Bytes, seen: web::Data<Seen>| async move {
                let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                seen.bodies.lock().unwrap().push(request.clone());
                seen.authorizations.lock().unwrap().push(
                    req.headers()
                        .get("authorization")
                        .map(|v| v.to_str().unwrap_or_default().to_owned()),
                );
                if request["stream"] != true {
                    return HttpResponse::Ok().json(json!({
                        "id": "chatcmpl-2", "object": "chat.completion", "model": "tiny",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello!"}, "finish_reason": "length"}],
                        "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": claimed, "total_tokens": PROMPT_TOKENS + claimed},
                    }));
                }
                let include = request["stream_options"]["include_usage"] == true;
                let bytes = stream_bytes(include, claimed);
                let pause = if request["slow"] == true { 300 } else { 5 };
                // Cut anywhere, not only at event ends: the gateway must cope.
                let pieces: Vec<web::Bytes> = bytes.chunks(37).map(web::Bytes::copy_from_slice).collect();
                let stream = futures_util::stream::iter(pieces).then(move |piece| async move {
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    Ok::<_, std::io::Error>(piece)
                });
                HttpResponse::Ok().content_type("text/event-stream").streaming(stream)
            }))
            .route("/v1/models", web::get().to(|| async {
                HttpResponse::Ok().json(json!({"object": "list", "data": [{"id": "tiny", "object": "model"}]}))
            }))
            .route("/version", web::get().to(|| async { HttpResponse::Ok().json(json!({"version": "0.32.0"})) }))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    url
}

pub(crate) struct Rental {
    pub(crate) booking: String,
    pub(crate) renter: Session,
    pub(crate) provider: Session,
}

/// A listing for `engine` (one GPU, its engine key `engine-key`) and a booking of it by a
/// renter, confirmed (no payments), from `starts_in` hours on.
pub(crate) async fn rent(app: &TestApp, engine: &str, starts_in: i64) -> Rental {
    rent_of(app, engine, starts_in, 1).await
}

/// [`rent`] of one GPU of a machine of `gpus`.
pub(crate) async fn rent_of(app: &TestApp, engine: &str, starts_in: i64, gpus: u32) -> Rental {
    // Each rental its own people, so one test may rent several machines.
    let n = uuid::Uuid::now_v7().simple().to_string();
    let provider = app.register(&format!("provider-{n}@example.com")).await;
    let renter = app.register(&format!("renter-{n}@example.com")).await;
    let org: Value = app
        .post(
            "/v1/orgs",
            Some(&provider.access_token),
            json!({"name": "P"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let mut body = crate::verification::listing_body(org["id"].as_str().unwrap(), engine);
    body["engine"]["api_key"] = json!("engine-key");
    body["hardware"]["gpu_count"] = json!(gpus);
    let listing: Value = app
        .post("/v1/listings", Some(&provider.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let booking = book(app, &renter, &listing["id"], starts_in).await;
    assert_eq!(booking["status"], "confirmed", "{booking}");
    Rental {
        booking: booking["id"].as_str().unwrap().to_owned(),
        renter,
        provider,
    }
}

pub(crate) fn chat(
    app: &TestApp,
    booking: &str,
    bearer: &str,
    body: Value,
) -> reqwest::RequestBuilder {
    app.client
        .post(app.url(&format!("/v1/gateway/{booking}/v1/chat/completions")))
        .bearer_auth(bearer)
        .json(&body)
}

async fn usage(app: &TestApp, r: &Rental) -> Value {
    app.get_json(
        &format!("/v1/bookings/{}/usage", r.booking),
        Some(&r.renter.access_token),
    )
    .await
}

async fn a_renter_streams_through_the_gateway_byte_for_byte_and_is_metered(app: TestApp) {
    let seen = Seen::default();
    let engine = start_engine(seen.clone(), OUTPUT_TOKENS);
    let r = rent(&app, &engine, 0).await;
    let token = r.renter.access_token.clone();
    let ask = json!({"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 16, "stream": true});

    // Not asking for usage: exactly the engine's bytes without the usage the gateway asked
    // for on the client's behalf.
    let res = chat(&app, &r.booking, &token, ask.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let got = res.bytes().await.unwrap();
    assert_eq!(got.as_ref(), stream_bytes(false, OUTPUT_TOKENS).as_slice());
    let sent = seen.bodies.lock().unwrap()[0].clone();
    assert_eq!(sent["stream_options"]["include_usage"], true, "{sent}");
    // The engine got its own key, never the renter's credential.
    assert_eq!(
        seen.authorizations.lock().unwrap()[0].as_deref(),
        Some("Bearer engine-key")
    );
    // Asking for usage: every byte the engine sent, usage included.
    let mut with_usage = ask.clone();
    with_usage["stream_options"] = json!({"include_usage": true});
    let got = chat(&app, &r.booking, &token, with_usage)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(got.as_ref(), stream_bytes(true, OUTPUT_TOKENS).as_slice());
    // An answer that does not stream comes back as the engine wrote it.
    let mut whole = ask.clone();
    whole["stream"] = json!(false);
    let res = chat(&app, &r.booking, &token, whole).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["usage"]["completion_tokens"], OUTPUT_TOKENS);
    // The models of the engine, unchanged.
    let models: Value = app
        .get_json(
            &format!("/v1/gateway/{}/v1/models", r.booking),
            Some(&token),
        )
        .await;
    assert_eq!(models["data"][0]["id"], "tiny");

    // Metered: the engine's counters, three requests, in one five-minute bucket (or two).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let u = usage(&app, &r).await;
    assert_eq!(u["totals"]["requests"], 3, "{u}");
    assert_eq!(u["totals"]["prompt_tokens"], 3 * PROMPT_TOKENS);
    assert_eq!(u["totals"]["output_tokens"], 3 * OUTPUT_TOKENS);
    let buckets = u["buckets"].as_array().unwrap();
    let requests: u64 = buckets
        .iter()
        .map(|b| b["requests"].as_u64().unwrap())
        .sum();
    assert_eq!(requests, 3);
    assert!(
        buckets
            .iter()
            .any(|b| b["ttft_ms_p50"].as_f64().is_some_and(|t| t > 0.0)),
        "{u}"
    );
    // The provider sees it too; someone else does not.
    let theirs = app
        .get(
            &format!("/v1/bookings/{}/usage", r.booking),
            Some(&r.provider.access_token),
        )
        .await;
    assert_eq!(theirs.status(), 200);
    let stranger = app.register("stranger@example.com").await;
    let res = app
        .get(
            &format!("/v1/bookings/{}/usage", r.booking),
            Some(&stranger.access_token),
        )
        .await;
    assert_eq!(res.status(), 404);
}

async fn only_the_renter_gets_through_and_only_while_the_booking_holds(app: TestApp) {
    let engine = start_engine(Seen::default(), OUTPUT_TOKENS);
    let now = rent(&app, &engine, 0).await;
    let ask = json!({"model": "tiny", "messages": [], "max_tokens": 4});
    let path = format!("/v1/gateway/{}/v1/chat/completions", now.booking);
    // No credential; someone else's; the provider's (it may read the booking, not use it).
    let res = app.post(&path, None, ask.clone()).await;
    assert_eq!(res.status(), 401);
    let stranger = app.register("stranger@example.com").await;
    assert_problem(
        app.post(&path, Some(&stranger.access_token), ask.clone())
            .await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.post(&path, Some(&now.provider.access_token), ask.clone())
            .await,
        404,
        "not_found",
    )
    .await;
    // Limits: max_tokens beyond the cap is named; a body that is not an object too.
    let problem = assert_problem(
        app.post(
            &path,
            Some(&now.renter.access_token),
            json!({"messages": [], "max_tokens": 1_000_000}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "max_tokens");
    // Every way to ask for more, or for several sequences, is named.
    for (body, field) in [
        (
            json!({"messages": [], "max_tokens": 16, "max_completion_tokens": 100_000}),
            "max_completion_tokens",
        ),
        (json!({"messages": [], "stream": "yes"}), "stream"),
    ] {
        let problem = assert_problem(
            app.post(&path, Some(&now.renter.access_token), body).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
    for (body, field) in [
        (json!({"messages": [], "n": 4}), "n"),
        (json!({"messages": [], "best_of": 2}), "best_of"),
        (
            json!({"messages": [], "use_beam_search": true}),
            "use_beam_search",
        ),
    ] {
        let problem = assert_problem(
            app.post(&path, Some(&now.renter.access_token), body).await,
            422,
            "unsupported_request",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
    // A booking not begun yet, with the renter's own token.
    let later = second_booking(&app, &now, 3).await;
    let later_path = format!("/v1/gateway/{later}/v1/chat/completions");
    assert_problem(
        app.post(&later_path, Some(&now.renter.access_token), ask.clone())
            .await,
        409,
        "booking_not_active",
    )
    .await;
    let res = app
        .post(
            &format!("/v1/bookings/{}/cancel", now.booking),
            Some(&now.renter.access_token),
            json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_problem(
        app.post(&path, Some(&now.renter.access_token), ask.clone())
            .await,
        409,
        "booking_not_active",
    )
    .await;
}

/// A booking of `listing` by `renter`, two hours from `starts_in` hours from now (no
/// payments: confirmed at once).
pub(crate) async fn book(
    app: &TestApp,
    renter: &Session,
    listing: &Value,
    starts_in: i64,
) -> Value {
    book_with(app, renter, listing, starts_in, json!({})).await
}

/// [`book`] with more fields of the request (`direct_access`, say).
pub(crate) async fn book_with(
    app: &TestApp,
    renter: &Session,
    listing: &Value,
    starts_in: i64,
    more: Value,
) -> Value {
    let starts = Utc::now().trunc_subsecs(0) + chrono::Duration::hours(starts_in);
    let mut body = json!({
        "listing_id": listing, "gpu_count": 1,
        "starts_at": starts, "ends_at": starts + chrono::Duration::hours(2),
    });
    body.as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    app.client
        .post(app.url("/v1/bookings"))
        .bearer_auth(&renter.access_token)
        .header("idempotency-key", uuid::Uuid::now_v7().to_string())
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The listing a rental booked.
pub(crate) async fn listing_of(app: &TestApp, r: &Rental) -> String {
    let booking: Value = app
        .get_json(
            &format!("/v1/bookings/{}", r.booking),
            Some(&r.renter.access_token),
        )
        .await;
    booking["listing_id"].as_str().unwrap().to_owned()
}

/// Another booking of the same listing by the same renter, `starts_in` hours from now.
async fn second_booking(app: &TestApp, r: &Rental, starts_in: i64) -> String {
    let first: Value = app
        .get_json(
            &format!("/v1/bookings/{}", r.booking),
            Some(&r.renter.access_token),
        )
        .await;
    let booking = book(app, &r.renter, &first["listing_id"], starts_in).await;
    booking["id"].as_str().unwrap().to_owned()
}

async fn an_engine_that_inflates_usage_is_capped_and_a_client_gone_is_metered_for_what_it_got(
    app: TestApp,
) {
    let engine = start_engine(Seen::default(), 10_000);
    let r = rent(&app, &engine, 0).await;
    let token = r.renter.access_token.clone();
    let ask = json!({"model": "tiny", "messages": [], "max_tokens": 16, "stream": true});
    let got = chat(&app, &r.booking, &token, ask.clone())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(!got.is_empty());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let u = usage(&app, &r).await;
    // Claimed 10,000; the text it sent ("Hello!", 6 bytes) bounds it, under max_tokens
    // (16) and the chunks it sent × 8.
    assert_eq!(
        u["totals"]["output_tokens"], 6,
        "capped at the bytes of text sent: {u}"
    );

    // A slow stream holds the booking's one stream (no report: a share of 1); a second is
    // refused; the client goes away after its first bytes and is metered for what it got.
    let mut slow = ask.clone();
    slow["slow"] = json!(true);
    let res = chat(&app, &r.booking, &token, slow).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let mut body = res.bytes_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(!first.is_empty());
    assert_problem(
        chat(&app, &r.booking, &token, ask.clone())
            .send()
            .await
            .unwrap(),
        429,
        "rate_limited",
    )
    .await;
    drop(body);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let u = loop {
        let u = usage(&app, &r).await;
        if u["totals"]["requests"] == 2 {
            break u;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the gone client was not metered: {u}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let gone = u["totals"]["output_tokens"].as_u64().unwrap() - 6;
    assert!(
        gone < OUTPUT_TOKENS,
        "metered {gone} of the {OUTPUT_TOKENS} it never got"
    );
    // Its slot came back.
    let res = chat(&app, &r.booking, &token, ask).send().await.unwrap();
    assert_eq!(res.status(), 200);
}

/// The gateway's `/tokenize` and `/version` answer in vLLM's shapes whatever the engine speaks
/// (the simulator in each dialect, the listing stating it): llama.cpp's and TGI's tokenizers
/// translated, SGLang's (vLLM's shape) passed through, each info endpoint's version.
async fn tokenize_and_version_keep_vllms_shapes_on_every_engine(app: TestApp) {
    for (dialect, name) in [
        (sim::Dialect::LlamaCpp, "llamacpp"),
        (sim::Dialect::Tgi, "tgi"),
        (sim::Dialect::Sglang, "sglang"),
    ] {
        let mut profile = sim::Profile::load("tiny").unwrap();
        profile.dialect = dialect;
        profile.api_key = Some("engine-key".into());
        let version = profile.engine_version.clone();
        let engine = crate::helpers::start_engine_with(profile);
        let r = rent(&app, &engine, 0).await;
        let listing = listing_of(&app, &r).await;
        let named = app
            .patch(
                &format!("/v1/listings/{listing}"),
                Some(&r.provider.access_token),
                json!({"engine": {"name": name}}),
            )
            .await;
        assert_eq!(named.status(), 200, "{name}");
        let gateway = |path: &str| app.url(&format!("/v1/gateway/{}{path}", r.booking));
        let tokenize = |body: Value| {
            app.client
                .post(gateway("/tokenize"))
                .bearer_auth(&r.renter.access_token)
                .json(&body)
                .send()
        };
        let answer = tokenize(json!({"model": "tiny", "prompt": "hello"}))
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{name}");
        let counted: Value = answer.json().await.unwrap();
        let tokens = counted["tokens"].as_array().unwrap();
        assert!(
            !tokens.is_empty() && tokens.iter().all(Value::is_u64),
            "{counted}"
        );
        assert_eq!(counted["count"], tokens.len(), "{name}: {counted}");
        let chat = tokenize(json!({"messages": [{"role": "user", "content": "hi"}]}))
            .await
            .unwrap();
        if dialect == sim::Dialect::Sglang {
            assert_eq!(
                chat.status(),
                200,
                "SGLang tokenizes chat messages as vLLM does"
            );
        } else {
            let problem = assert_problem(chat, 422, "validation_failed").await;
            assert_eq!(problem["errors"][0]["field"], "prompt", "{problem}");
        }
        let answer: Value = app
            .client
            .get(gateway("/version"))
            .bearer_auth(&r.renter.access_token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer, json!({"version": version}), "{name}");
    }
}
