//! The provider's agent: an organisation key of scope `agent`, bound to listings, reports
//! what each machine says it is; the organisation reads it back compared with the listing's
//! claim. Per role: who may bind, report and read — and what an agent's key may not do.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem};
use crate::verification::{list, provider};

on_both_backends!(an_agents_key_reports_its_machine_and_nothing_else);
on_both_backends!(an_agent_long_polls_its_machine_s_desired_state_and_beats);
on_both_backends!(an_agent_uploads_a_run_s_gpu_samples_only_once_asked);

/// What `gpumarket agent facts` prints for `gpus` GPUs of `name` and `mib` MiB.
pub(crate) fn facts(name: &str, mib: u64, gpus: usize) -> Value {
    let gpus: Vec<Value> = (0..gpus)
        .map(|i| {
            json!({"index": i, "uuid": format!("GPU-{i}"), "name": name,
                   "memory_total_mib": mib, "driver_version": "580.95.05",
                   "pci_bus_id": format!("00000000:0{i}:00.0"), "power_limit_w": 170.0,
                   "compute_cap": "8.6"})
        })
        .collect();
    json!({"gpu_source": "nvidia-smi", "gpus": gpus, "cpu_model": "AMD EPYC 7B13",
           "cpu_cores": 2, "ram_gb": 23.4, "disk_free_gb": 40.2,
           "os": "Debian GNU/Linux 13 (trixie)", "kernel": "6.12.0", "source": "agent"})
}

/// An agent key of organisation `org` bound to `listing`, minted with `token`, whose
/// machine has reported `facts` (answered 200).
pub(crate) async fn reporting_agent(
    app: &TestApp,
    (org, token): (&str, &str),
    listing: &str,
    facts: Value,
) -> String {
    let created: Value = app
        .post(
            &format!("/v1/orgs/{org}/api-keys"),
            Some(token),
            json!({"name": "box", "scopes": ["agent"], "listing_ids": [listing]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let key = created["key"].as_str().unwrap().to_owned();
    let res = app
        .call(
            Method::PUT,
            &format!("/v1/listings/{listing}/agent/facts"),
            Some(&key),
            Some(facts),
        )
        .await;
    assert_eq!(res.status(), 200);
    key
}

async fn an_agents_key_reports_its_machine_and_nothing_else(app: TestApp) {
    let p = provider(&app).await;
    // Claims one RTX 3060 of 12 GB (`listing_body`), on an engine that answers (a
    // verification's preflight asks it).
    let listing = list(&app, &p, &crate::helpers::start_engine("tiny")).await;
    let other_listing = list(&app, &p, "http://127.0.0.1:9").await;
    let keys = format!("/v1/orgs/{}/api-keys", p.org);
    let mint = |body: Value| {
        let app = &app;
        let (keys, token) = (keys.clone(), p.owner.access_token.clone());
        async move { app.post(&keys, Some(&token), body).await }
    };

    // Binding: an agent's key names its organisation's listings, and is nothing else.
    for (body, field) in [
        (json!({"name": "a", "scopes": ["agent"]}), "listing_ids"),
        (
            json!({"name": "a", "scopes": ["agent", "read"], "listing_ids": [listing]}),
            "scopes",
        ),
        (
            json!({"name": "a", "scopes": ["read"], "listing_ids": [listing]}),
            "listing_ids",
        ),
        (
            json!({"name": "a", "scopes": ["agent"], "listing_ids": [uuid::Uuid::now_v7()]}),
            "listing_ids",
        ),
    ] {
        let problem = assert_problem(mint(body.clone()).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}: {problem}");
    }
    let member_keys = app
        .post(
            &keys,
            Some(&p.member.access_token),
            json!({"name": "a", "scopes": ["agent"], "listing_ids": [listing]}),
        )
        .await;
    assert_problem(member_keys, 403, "forbidden").await;
    let created: Value =
        mint(json!({"name": "box 1", "scopes": ["agent"], "listing_ids": [listing]}))
            .await
            .json()
            .await
            .unwrap();
    assert_eq!(created["scopes"], json!(["agent"]));
    assert_eq!(created["listing_ids"], json!([listing]));
    let agent = created["key"].as_str().unwrap().to_owned();
    let reader: Value = mint(json!({"name": "r", "scopes": ["read"]}))
        .await
        .json()
        .await
        .unwrap();
    let reader = reader["key"].as_str().unwrap().to_owned();

    let put = |token: Option<String>, id: &str, body: Value| {
        let app = &app;
        let path = format!("/v1/listings/{id}/agent/facts");
        async move {
            app.call(Method::PUT, &path, token.as_deref(), Some(body))
                .await
        }
    };
    let rtx = facts("NVIDIA GeForce RTX 3060", 12288, 1);
    // Who reports: the agent's key bound to the listing, no one else.
    assert_problem(
        put(None, &listing, rtx.clone()).await,
        401,
        "unauthenticated",
    )
    .await;
    assert_problem(
        put(Some(p.owner.access_token.clone()), &listing, rtx.clone()).await,
        403,
        "scope_required",
    )
    .await;
    assert_problem(
        put(Some(reader.clone()), &listing, rtx.clone()).await,
        403,
        "scope_required",
    )
    .await;
    assert_problem(
        put(Some(agent.clone()), &other_listing, rtx.clone()).await,
        403,
        "forbidden",
    )
    .await;
    // Nothing reported yet.
    let path = format!("/v1/listings/{listing}/agent");
    assert_problem(
        app.get(&path, Some(&p.owner.access_token)).await,
        404,
        "not_found",
    )
    .await;

    // The machine matches its claim: nvidia-smi's name through the catalog, 12288 MiB.
    let res = put(Some(agent.clone()), &listing, rtx.clone()).await;
    assert_eq!(res.status(), 200);
    let kept: Value = res.json().await.unwrap();
    assert_eq!(kept["source"], "agent");
    assert_eq!(
        kept["hardware"],
        json!({"matches": true, "differences": []})
    );
    assert_eq!(kept["facts"]["gpus"][0]["name"], "NVIDIA GeForce RTX 3060");
    assert!(kept["facts"].get("gpu_source").is_none(), "{kept}");
    // Confirmed by the agent: the listing says so to anyone, and search finds it by it.
    let confirmed = |id: String| {
        let app = &app;
        async move {
            let listing: Value = app.get_json(&format!("/v1/listings/{id}"), None).await;
            let found: Value = app
                .get_json("/v1/listings?hardware_confirmed=true&limit=100", None)
                .await;
            let searched = found["items"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l["id"] == id.as_str());
            assert_eq!(listing["hardware_confirmed"], searched, "{listing} {found}");
            searched
        }
    };
    assert!(confirmed(listing.clone()).await);
    assert!(!confirmed(other_listing.clone()).await);
    // Read back by the organisation's members (and a key with the read scope), nobody else.
    let read: Value = app.get_json(&path, Some(&p.member.access_token)).await;
    assert_eq!(read["hardware"]["matches"], true);
    assert_eq!(read["facts"]["kernel"], "6.12.0");
    assert_eq!(app.get(&path, Some(&reader)).await.status(), 200);
    assert_problem(
        app.get(&path, Some(&p.outsider.access_token)).await,
        403,
        "forbidden",
    )
    .await;
    assert_problem(app.get(&path, None).await, 401, "unauthenticated").await;
    assert_problem(app.get(&path, Some(&agent)).await, 403, "scope_required").await;

    // Other hardware: two H100s where one RTX 3060 is claimed — every difference named.
    let h100 = facts("NVIDIA H100 80GB HBM3", 81559, 2);
    let differs: Value = put(Some(agent.clone()), &listing, h100)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(differs["hardware"]["matches"], false);
    assert!(!confirmed(listing.clone()).await);
    let differences = differs["hardware"]["differences"].as_array().unwrap();
    assert_eq!(differences.len(), 3, "{differs}");
    assert!(
        differences[0]
            .as_str()
            .unwrap()
            .contains("claims 1 GPUs, the agent reports 2")
    );

    // Hostile facts are refused naming the field, and what was kept stays.
    let mut hostile = rtx.clone();
    hostile["gpus"][0]["name"] = json!("RTX\u{7} 3060");
    let problem = assert_problem(
        put(Some(agent.clone()), &listing, hostile).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "gpus.name", "{problem}");
    let many = facts("NVIDIA GeForce RTX 3060", 12288, 65);
    let problem = assert_problem(
        put(Some(agent.clone()), &listing, many).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "gpus");
    let read: Value = app.get_json(&path, Some(&p.owner.access_token)).await;
    assert_eq!(read["facts"]["gpus"].as_array().unwrap().len(), 2, "{read}");

    // A machine whose agent reports other hardware is neither verified nor booked: 409
    // `hardware_mismatch`, naming what differs; once the agent reports the claimed machine,
    // both are open again.
    let runs = format!("/v1/listings/{listing}/verifications");
    let verify = || {
        app.post(
            &runs,
            Some(&p.owner.access_token),
            json!({"profile": "quick"}),
        )
    };
    let renter = app.register("renter@example.com").await;
    let listing_json = json!(listing);
    let book = || crate::gateway::book(&app, &renter, &listing_json, 1);
    let problem = assert_problem(verify().await, 409, "hardware_mismatch").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("reports 2"),
        "{problem}"
    );
    // A renter is refused too, and is not shown the machine's words.
    let refused = book().await;
    assert_eq!(refused["code"], "hardware_mismatch", "{refused}");
    assert!(!refused.to_string().contains("H100"), "{refused}");
    // The claim edited to what the machine says: judged against the last report at once,
    // no new report needed.
    let path_listing = format!("/v1/listings/{listing}");
    let edit = |hardware: Value| {
        let app = &app;
        let (path, token) = (path_listing.clone(), p.owner.access_token.clone());
        async move {
            app.call(
                Method::PATCH,
                &path,
                Some(&token),
                Some(json!({"hardware": hardware})),
            )
            .await
        }
    };
    let edited = edit(
        json!({"gpu_model": "NVIDIA H100 SXM 80GB", "gpu_count": 2, "vram_gb": 80,
                             "cpu_model": "Xeon", "ram_gb": 32}),
    )
    .await;
    assert_eq!(edited.status(), 200, "{}", edited.text().await.unwrap());
    let read: Value = app.get_json(&path, Some(&p.owner.access_token)).await;
    assert_eq!(read["hardware"]["matches"], true, "{read}");
    assert!(
        confirmed(listing.clone()).await,
        "the edited claim is confirmed at once"
    );
    // And back to the RTX 3060 it does not hold: refused again, without a new report.
    let edited = edit(
        json!({"gpu_model": "NVIDIA GeForce RTX 3060", "gpu_count": 1, "vram_gb": 12,
                             "cpu_model": "Xeon", "ram_gb": 32}),
    )
    .await;
    assert_eq!(edited.status(), 200);
    assert_problem(verify().await, 409, "hardware_mismatch").await;
    // The agent reports the claimed machine: open again.
    assert_eq!(
        put(Some(agent.clone()), &listing, rtx.clone())
            .await
            .status(),
        200
    );
    assert_eq!(book().await["status"], "confirmed");
    assert_eq!(verify().await.status(), 202);
    // A report made while the agent confirms the claim says so beside its signature; one of
    // a listing without an agent is as claimed.
    for id in [&listing, &other_listing] {
        let cells = vec![crate::marketplace::decode_cell(8192, 1, 100.0)];
        crate::marketplace::verified_with(&app, id, cells).await;
    }
    for (id, confirmed) in [(&listing, true), (&other_listing, false)] {
        let reports: Value = app
            .get_json(&format!("/v1/listings/{id}/reports"), None)
            .await;
        assert_eq!(
            reports["items"][0]["hardware_confirmed"], confirmed,
            "{reports}"
        );
    }
    // A report without a GPU (the driver did not answer) says nothing: refused, last kept.
    let problem = assert_problem(
        put(Some(agent.clone()), &listing, facts("x", 0, 0)).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "gpus");

    // An agent's key does nothing else: not the organisation's keys, listings or a person's.
    assert_problem(app.get(&keys, Some(&agent)).await, 403, "scope_required").await;
    let mut body = crate::verification::listing_body(&p.org, "http://127.0.0.1:9");
    body["title"] = json!("made by an agent");
    assert_problem(
        app.post("/v1/listings", Some(&agent), body).await,
        403,
        "scope_required",
    )
    .await;
    assert_problem(
        app.get("/v1/me/ssh-keys", Some(&agent)).await,
        403,
        "scope_required",
    )
    .await;
    assert_problem(
        app.post(
            &format!("/v1/listings/{listing}/verifications"),
            Some(&agent),
            json!({"profile": "quick"}),
        )
        .await,
        403,
        "scope_required",
    )
    .await;
}

async fn an_agent_long_polls_its_machine_s_desired_state_and_beats(app: TestApp) {
    let p = provider(&app).await;
    let listing = list(&app, &p, "http://127.0.0.1:9").await;
    let other_listing = list(&app, &p, "http://127.0.0.1:9").await;
    let keys = format!("/v1/orgs/{}/api-keys", p.org);
    let mint = |body: Value| {
        let app = &app;
        let (keys, token) = (keys.clone(), p.owner.access_token.clone());
        async move {
            let created: Value = app
                .post(&keys, Some(&token), body)
                .await
                .json()
                .await
                .unwrap();
            created["key"].as_str().unwrap().to_owned()
        }
    };
    let agent = mint(json!({"name": "box", "scopes": ["agent"], "listing_ids": [listing]})).await;
    let reader = mint(json!({"name": "r", "scopes": ["read"]})).await;
    let desired = format!("/v1/listings/{listing}/agent/desired");

    // Only the listing's agent reads what its machine must grant.
    assert_problem(app.get(&desired, None).await, 401, "unauthenticated").await;
    for token in [&p.owner.access_token, &reader] {
        assert_problem(app.get(&desired, Some(token)).await, 403, "scope_required").await;
    }
    assert_problem(
        app.get(
            &format!("/v1/listings/{other_listing}/agent/desired"),
            Some(&agent),
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    let problem = assert_problem(
        app.get(&format!("{desired}?wait=31"), Some(&agent)).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "wait");
    let empty: Value = app.get_json(&desired, Some(&agent)).await;
    assert_eq!(empty["bookings"], json!([]), "{empty}");
    let version = empty["version"].as_str().unwrap().to_owned();

    // A long-poll at the same version waits; a booking of the whole machine wakes it at once,
    // with its account, its renter's keys and when its access ends.
    // Reached over SSH: a booking of the whole machine gets its own account there.
    let patched = app
        .call(
            Method::PATCH,
            &format!("/v1/listings/{listing}"),
            Some(&p.owner.access_token),
            Some(json!({"access": {"ssh": {"host": "203.0.113.7", "port": 22, "user": "ubuntu"}}})),
        )
        .await;
    assert_eq!(patched.status(), 200);
    let renter = app.register("renter@example.com").await;
    let public_key = include_str!("data/ssh/ed25519.pub").trim();
    let added = app
        .post(
            "/v1/me/ssh-keys",
            Some(&renter.access_token),
            json!({"name": "laptop", "public_key": public_key}),
        )
        .await;
    assert_eq!(added.status(), 201);
    let poll = {
        let (app, path, agent) = (
            &app,
            format!("{desired}?wait=20&version={version}"),
            agent.clone(),
        );
        async move {
            let started = std::time::Instant::now();
            let answer: Value = app.get_json(&path, Some(&agent)).await;
            (answer, started.elapsed())
        }
    };
    let booking = async {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        crate::gateway::book(&app, &renter, &json!(listing), 0).await
    };
    let ((woken, waited), booking) = tokio::join!(poll, booking);
    assert_eq!(booking["status"], "confirmed", "{booking}");
    assert!(
        waited < std::time::Duration::from_secs(10),
        "woken after {waited:?}"
    );
    let id = booking["id"].as_str().unwrap();
    let account = format!("gm-{}", &id.replace('-', "")[20..]);
    assert_ne!(woken["version"], version.as_str());
    let entry = &woken["bookings"][0];
    assert_eq!(entry["booking_id"], id, "{woken}");
    assert_eq!(entry["account"], account.as_str());
    assert_eq!(entry["access_until"], booking["ends_at"]);
    let kept_key: Vec<&str> = public_key.split(' ').take(2).collect();
    assert_eq!(
        entry["ssh_keys"],
        json!([kept_key.join(" ")]),
        "only `algorithm base64`"
    );
    // Nothing else of the renter reaches the machine.
    assert!(!woken.to_string().contains("renter@example.com"), "{woken}");
    // Without an agent's report, the renter's access names the listing's user; with one,
    // the booking's account.
    let access_path = format!("/v1/bookings/{id}/access");
    let access: Value = app.get_json(&access_path, Some(&renter.access_token)).await;
    assert_eq!(access["ssh"]["user"], "ubuntu", "{access}");

    // Heartbeats: bounded and checked; the organisation sees the agent online.
    let beat = format!("/v1/listings/{listing}/agent/heartbeat");
    for (body, field) in [
        (
            json!({"agent_version": "x y", "accounts": []}),
            "agent_version",
        ),
        (
            json!({"agent_version": "0.1.0", "accounts": [{"booking_id": id, "account": "root", "state": "ready"}]}),
            "accounts.account",
        ),
        (
            json!({"agent_version": "0.1.0", "containers": [{"booking_id": id, "gpus": ["GPU-0"], "state": "hijacked"}]}),
            "containers.state",
        ),
        (
            json!({"agent_version": "0.1.0", "containers": [{"booking_id": id, "gpus": ["GPU 0\n"], "state": "running"}]}),
            "containers.gpus",
        ),
    ] {
        let problem = assert_problem(
            app.post(&beat, Some(&agent), body).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
    assert_problem(
        app.post(&beat, Some(&reader), json!({"agent_version": "0.1.0"}))
            .await,
        403,
        "scope_required",
    )
    .await;
    let heard = app
        .post(
            &beat,
            Some(&agent),
            json!({"agent_version": "0.1.0", "accounts": [{"booking_id": id, "account": account, "state": "ready"}]}),
        )
        .await;
    assert_eq!(heard.status(), 200);
    let facts_path = format!("/v1/listings/{listing}/agent/facts");
    let reported = app
        .call(
            Method::PUT,
            &facts_path,
            Some(&agent),
            Some(facts("NVIDIA GeForce RTX 3060", 12288, 1)),
        )
        .await;
    assert_eq!(reported.status(), 200);
    let access: Value = app.get_json(&access_path, Some(&renter.access_token)).await;
    assert_eq!(access["ssh"]["user"], account.as_str(), "{access}");
    let read: Value = app
        .get_json(
            &format!("/v1/listings/{listing}/agent"),
            Some(&p.member.access_token),
        )
        .await;
    assert_eq!(read["presence"]["state"], "online", "{read}");
    assert_eq!(read["presence"]["agent_version"], "0.1.0");
    assert_eq!(read["presence"]["accounts"][0]["state"], "ready");

    // Cancelled: the next answer no longer has it.
    let version = woken["version"].as_str().unwrap();
    let poll = {
        let (app, path, agent) = (
            &app,
            format!("{desired}?wait=20&version={version}"),
            agent.clone(),
        );
        async move { app.get_json::<Value>(&path, Some(&agent)).await }
    };
    let cancel = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        app.post(
            &format!("/v1/bookings/{id}/cancel"),
            Some(&renter.access_token),
            json!({}),
        )
        .await
    };
    let (after, cancelled) = tokio::join!(poll, cancel);
    assert!(cancelled.status().is_success());
    assert_eq!(after["bookings"], json!([]), "{after}");
}

/// One GPU's samples, `n` of them from `t0` every 100 ms at `watts`.
fn samples(uuid: &str, t0: i64, n: i64, watts: f64) -> Value {
    let t: Vec<i64> = (0..n).map(|i| t0 + i * 100).collect();
    json!({"uuid": uuid, "t_ms": t, "power_w": vec![watts; n as usize],
           "sm_clock_mhz": vec![1777.0; n as usize], "temperature_c": vec![58.0; n as usize],
           "utilization_pct": vec![91.0; n as usize], "compute_processes": 1})
}

/// A run's GPU samples: the desired state names the run only once the worker asks for them
/// (after the run measured); the listing's agent uploads them once (a repeat changes
/// nothing) and then the state no longer asks. Per role: none 401, a person or a read key
/// 403 `scope_required`, another listing's agent 403; a run not asked for 404; samples out of
/// their bounds, or of a GPU the agent never reported, 422 naming the field.
async fn an_agent_uploads_a_run_s_gpu_samples_only_once_asked(app: TestApp) {
    let p = provider(&app).await;
    let listing = list(&app, &p, "http://127.0.0.1:9").await;
    let other_listing = list(&app, &p, "http://127.0.0.1:9").await;
    let owner = (p.org.as_str(), p.owner.access_token.as_str());
    let agent = reporting_agent(
        &app,
        owner,
        &listing,
        facts("NVIDIA GeForce RTX 3060", 12288, 1),
    )
    .await;
    let other = reporting_agent(
        &app,
        owner,
        &other_listing,
        facts("NVIDIA GeForce RTX 3060", 12288, 1),
    )
    .await;
    let reader: Value = app
        .post(
            &format!("/v1/orgs/{}/api-keys", p.org),
            Some(&p.owner.access_token),
            json!({"name": "r", "scopes": ["read"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let reader = reader["key"].as_str().unwrap().to_owned();
    let desired = format!("/v1/listings/{listing}/agent/desired");
    let url = format!("/v1/listings/{listing}/agent/telemetry");
    let run = uuid::Uuid::now_v7();
    let now = chrono::Utc::now();
    let t0 = now.timestamp_millis() - 5_000;
    let upload = json!({"run_id": run, "source": "nvidia-smi",
                        "gpus": [samples("GPU-0", t0, 40, 120.0)]});

    // Nothing asked: the state names no run, and an upload finds nothing to fill.
    let state: Value = app.get_json(&desired, Some(&agent)).await;
    assert_eq!(state["telemetry_wanted"], json!([]), "{state}");
    assert_problem(
        app.post(&url, Some(&agent), upload.clone()).await,
        404,
        "not_found",
    )
    .await;

    // The worker asks once the run measured: the state names it, with its window.
    let listing_id: uuid::Uuid = listing.parse().unwrap();
    let window = (now - chrono::Duration::seconds(6), now);
    app.app
        .db()
        .request_telemetry(run, listing_id, window, now)
        .await
        .unwrap();
    let state: Value = app.get_json(&desired, Some(&agent)).await;
    assert_eq!(
        state["telemetry_wanted"][0]["run_id"],
        run.to_string(),
        "{state}"
    );

    // Per role.
    assert_problem(
        app.post(&url, None, upload.clone()).await,
        401,
        "unauthenticated",
    )
    .await;
    for token in [&p.owner.access_token, &reader] {
        assert_problem(
            app.post(&url, Some(token), upload.clone()).await,
            403,
            "scope_required",
        )
        .await;
    }
    assert_problem(
        app.post(&url, Some(&other), upload.clone()).await,
        403,
        "forbidden",
    )
    .await;

    // Bounded and checked: each problem names its field; nothing is kept.
    let mut broken = upload.clone();
    broken["gpus"][0]["power_w"][3] = json!(9000.0);
    let problem = assert_problem(
        app.post(&url, Some(&agent), broken).await,
        422,
        "validation_failed",
    )
    .await;
    assert!(
        problem["detail"].as_str().unwrap().contains("power_w"),
        "{problem}"
    );
    let mut backwards = upload.clone();
    backwards["gpus"][0]["t_ms"][5] = json!(t0);
    let problem = assert_problem(
        app.post(&url, Some(&agent), backwards).await,
        422,
        "validation_failed",
    )
    .await;
    assert!(
        problem["detail"].as_str().unwrap().contains("t_ms"),
        "{problem}"
    );
    let stranger =
        json!({"run_id": run, "source": "nvidia-smi", "gpus": [samples("GPU-7", t0, 40, 120.0)]});
    let problem = assert_problem(
        app.post(&url, Some(&agent), stranger).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "gpus", "{problem}");
    let mut unknown = upload.clone();
    unknown["watts"] = json!(1);
    assert_problem(
        app.post(&url, Some(&agent), unknown).await,
        422,
        "validation_failed",
    )
    .await;
    assert!(
        app.app
            .db()
            .telemetry_of(run)
            .await
            .unwrap()
            .unwrap()
            .samples
            .is_none()
    );

    // Kept once; a repeat (a lost answer) changes nothing; the state no longer asks.
    let kept = app.post(&url, Some(&agent), upload.clone()).await;
    assert_eq!(kept.status(), 204, "{:?}", kept.text().await);
    let mut again = upload.clone();
    again["gpus"][0]["power_w"][0] = json!(999.0);
    assert_eq!(app.post(&url, Some(&agent), again).await.status(), 204);
    let stored = app.app.db().telemetry_of(run).await.unwrap().unwrap();
    let stored: Value = serde_json::from_str(&stored.samples.unwrap()).unwrap();
    assert_eq!(stored["gpus"][0]["power_w"][0], 120.0);
    let state: Value = app.get_json(&desired, Some(&agent)).await;
    assert_eq!(state["telemetry_wanted"], json!([]), "{state}");

    // Kept 30 days: the listing's next request takes older samples away.
    let old = uuid::Uuid::now_v7();
    let long_ago = now - chrono::Duration::days(31);
    let db = app.app.db();
    db.request_telemetry(old, listing_id, (long_ago, long_ago), long_ago)
        .await
        .unwrap();
    db.request_telemetry(uuid::Uuid::now_v7(), listing_id, window, now)
        .await
        .unwrap();
    assert!(db.telemetry_of(old).await.unwrap().is_none());
    assert!(db.telemetry_of(run).await.unwrap().is_some());
}
