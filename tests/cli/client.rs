//! The command line as a person drives it, against a live `serve --demo`: signing in (an API
//! key, and email and password into a second profile), searching with the query language,
//! booking twice under one idempotency key, waiting for a state, cancelling, listing a machine
//! and following its verification to the report, and verifying that report offline. `--json`
//! prints the API's bytes; `--curl`'s commands, run by a shell, get the same bytes.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::{Demo, SHORT_WINDOWS, gpumarket, http, stderr};

/// `gpumarket ARGS` with its credentials in `config` (as `$XDG_CONFIG_HOME`), on a blocking
/// thread.
async fn cli(dir: &Path, args: &[&str]) -> Output {
    cli_with(dir, args, None).await
}

async fn cli_with(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut command = gpumarket(dir);
    command
        .args(args)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("NO_COLOR", "1");
    let stdin = stdin.map(str::to_owned);
    tokio::task::spawn_blocking(move || {
        command.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        if let Some(text) = stdin {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[track_caller]
fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        output.status.code(),
        stdout(output),
        stderr(output)
    );
    stdout(output)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_rents_lists_and_verifies_against_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let demo = Demo::start_with(dir, SHORT_WINDOWS).await;
    let base = demo.base.clone();
    let listing = demo.listing_url.rsplit('/').next().unwrap().to_owned();

    // Nobody is signed in yet: 67.
    let nobody = cli(dir, &["bookings", "list", "--server", &base]).await;
    assert_eq!(nobody.status.code(), Some(67), "{}", stderr(&nobody));
    assert!(
        stderr(&nobody).contains("gpumarket login"),
        "{}",
        stderr(&nobody)
    );

    // A renter with an API key signs in with it; the file is theirs alone.
    let client = http();
    let key = crate::new_api_key(&base, "cli@example.com", "CLI").await;
    let login = ok(&cli(dir, &["login", "--server", &base, "--api-key", &key]).await);
    assert!(login.contains("cli@example.com"), "{login}");
    let config = dir.join("config/gpumarket/config.toml");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&config).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(std::fs::read_to_string(&config).unwrap().contains(&key));

    // The renter's SSH keys: added from a .pub file (fingerprinted as ssh-keygen prints it),
    // listed, refused when too weak (naming the field), deleted.
    let keys = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/api/tests/api/data/ssh");
    let add = |file: &str| {
        let path = keys.join(file).display().to_string();
        async move { cli(dir, &["ssh-keys", "add", &path, "--name", "laptop"]).await }
    };
    let added = ok(&add("ed25519.pub").await);
    assert!(
        added.contains("SHA256:+GdOPhZheVUoyqeXJaju41F73YJP4CW1J1LG+Srwaog"),
        "{added}"
    );
    let id = added
        .lines()
        .find_map(|l| l.trim().strip_prefix("id"))
        .map(|rest| rest.trim().trim_start_matches(':').trim().to_owned())
        .unwrap();
    assert!(ok(&cli(dir, &["ssh-keys", "list"]).await).contains(&id));
    let weak = add("rsa2048.pub").await;
    assert!(!weak.status.success());
    assert!(stderr(&weak).contains("public_key"), "{}", stderr(&weak));
    ok(&cli(dir, &["ssh-keys", "delete", &id]).await);
    assert!(!ok(&cli(dir, &["ssh-keys", "list"]).await).contains(&id));

    // Search with the query language: the demo's listing, by its catalog GPU, price and region.
    let found = ok(&cli(
        dir,
        &["search", "gpu=rtx-3060-12gb price<=100 usd region=local"],
    )
    .await);
    assert!(found.contains(&listing), "{found}");
    let none = ok(&cli(dir, &["search", "gpu=h100-sxm-80gb region=local"]).await);
    assert!(!none.contains(&listing), "{none}");
    // The issue's own query runs (the demo's machine is not in eu-west: no hits).
    let elsewhere = ok(&cli(
        dir,
        &[
            "search",
            "gpu=rtx-3060-12gb price<=0.40 usd tok_s@16k/4>=100 verified region=eu-west",
        ],
    )
    .await);
    assert!(!elsewhere.contains(&listing), "{elsewhere}");
    // The measured terms become the API's parameters, as --curl shows without sending.
    let plan = ok(&cli(
        dir,
        &[
            "search",
            "gpu=rtx-3060-12gb price<=0.40 usd tok_s@16k/4>=100 verified",
            "--curl",
        ],
    )
    .await);
    for part in [
        "gpu=rtx-3060-12gb",
        "max_price=40",
        "currency=USD",
        "min_total_tok_s=100",
        "context=16384",
        "concurrency=4",
        "verified=true",
    ] {
        assert!(plan.contains(part), "{part} in {plan}");
    }
    // Malformed queries: 64, naming the term.
    for (query, term) in [
        ("gpu=rtx-3060-12gb tok_s@16q/4>=100", "tok_s@16q/4>=100"),
        ("price<=0.40", "price<=0.40"),
        ("verified speed>=3", "speed>=3"),
    ] {
        let bad = cli(dir, &["search", query]).await;
        assert_eq!(bad.status.code(), Some(64), "{query}: {}", stderr(&bad));
        assert!(stderr(&bad).contains(term), "{query}: {}", stderr(&bad));
    }
    // An unknown GPU is the server's 422, exit 1 with its code.
    let unknown = cli(dir, &["search", "gpu=no-such-gpu"]).await;
    assert_eq!(unknown.status.code(), Some(1), "{}", stderr(&unknown));
    assert!(
        stderr(&unknown).contains("422 validation_failed"),
        "{}",
        stderr(&unknown)
    );

    // Offers at an objective: its terms become /v1/offers's parameters (as --curl shows); an
    // objective nothing meets lists no plan, and booking it is the server's 409 (exit 1); a
    // missing limit is a usage error (64).
    let asked = ok(&cli(
        dir,
        &[
            "offers",
            "model=nvidia-nemotron-nano-12b-v2-awq context=1k users=4 ttft<=3s itl<=100ms price<=1.00 usd",
            "--curl",
        ],
    )
    .await);
    for part in [
        "model=nvidia-nemotron-nano-12b-v2-awq",
        "context=1024",
        "users=4",
        "ttft_p99_ms=3000",
        "itl_p99_ms=100",
        "max_price_per_hour=100",
        "currency=USD",
    ] {
        assert!(asked.contains(part), "{part} in {asked}");
    }
    let impossible = "model=nvidia-nemotron-nano-12b-v2-awq context=1k users=1 ttft<=1ms itl<=1ms";
    let nothing = ok(&cli(dir, &["offers", &format!("{impossible} failing")]).await);
    assert!(nothing.contains("no plan"), "{nothing}");
    let from = (chrono::Utc::now() + chrono::Duration::hours(30))
        .format("%Y-%m-%dT%H:00:00Z")
        .to_string();
    let unmet = cli(
        dir,
        &[
            "offers", "book", impossible, "--from", &from, "--hours", "1",
        ],
    )
    .await;
    assert_eq!(unmet.status.code(), Some(1), "{}", stderr(&unmet));
    assert!(
        stderr(&unmet).contains("409 slo_unmet"),
        "{}",
        stderr(&unmet)
    );
    let partial = cli(dir, &["offers", "model=m context=1k users=1 ttft<=2s"]).await;
    assert_eq!(partial.status.code(), Some(64), "{}", stderr(&partial));
    assert!(
        stderr(&partial).contains("itl<=100ms"),
        "{}",
        stderr(&partial)
    );

    // Book twice with one key: one booking.
    let from = (chrono::Utc::now() + chrono::Duration::hours(2))
        .format("%Y-%m-%dT%H:00:00Z")
        .to_string();
    // A monthly budget of one cent refuses the booking (exit 1, its code), and shows where it
    // stands; removed, the booking is made.
    let set = ok(&cli(
        dir,
        &[
            "budget",
            "set",
            "--amount-per-month",
            "1",
            "--currency",
            "usd",
        ],
    )
    .await);
    assert!(set.contains("0.01 USD a month"), "{set}");
    let capped = cli(
        dir,
        &["book", &listing, "--from", &from, "--hours", "2", "--quiet"],
    )
    .await;
    assert_eq!(capped.status.code(), Some(1), "{}", stderr(&capped));
    assert!(
        stderr(&capped).contains("409 budget_exceeded"),
        "{}",
        stderr(&capped)
    );
    let shown = ok(&cli(dir, &["budget", "show"]).await);
    assert!(
        shown
            .lines()
            .any(|l| l.contains("left") && l.contains("0.01 USD")),
        "{shown}"
    );
    ok(&cli(dir, &["budget", "remove"]).await);
    let gone = cli(dir, &["budget", "show"]).await;
    assert_eq!(gone.status.code(), Some(1), "{}", stderr(&gone));
    let book = [
        "book",
        &listing,
        "--from",
        &from,
        "--hours",
        "2",
        "--idempotency-key",
        "cli-booking-1",
        "--quiet",
    ];
    let first = ok(&cli(dir, &book).await).trim().to_owned();
    let second = ok(&cli(dir, &book).await).trim().to_owned();
    assert_eq!(first, second);
    let booking = first;
    let mine: Value =
        serde_json::from_str(&ok(&cli(dir, &["bookings", "list", "--json"]).await)).unwrap();
    assert_eq!(mine["items"].as_array().unwrap().len(), 1, "{mine}");
    ok(&cli(
        dir,
        &[
            "bookings",
            "wait",
            &booking,
            "--until",
            "confirmed",
            "--timeout",
            "30",
        ],
    )
    .await);
    // How to reach the machine: its token for the interval, and the gateway with one's own
    // credential.
    let access = ok(&cli(dir, &["access", &booking]).await);
    assert!(
        access.contains("token") && access.contains("/v1/gateway/"),
        "{access}"
    );
    let usage = ok(&cli(dir, &["bookings", "usage", &booking]).await);
    assert!(usage.contains("output tokens"), "{usage}");
    // Still confirmed a second later: a wait for the booking's end times out (75).
    let late = cli(
        dir,
        &[
            "bookings",
            "wait",
            &booking,
            "--until",
            "completed",
            "--timeout",
            "1",
        ],
    )
    .await;
    assert_eq!(late.status.code(), Some(75), "{}", stderr(&late));

    // --json is the API's body byte for byte; --curl's command, run by a shell, gets it too.
    let api = client
        .get(format!("{base}/v1/bookings/{booking}"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let json = cli(dir, &["bookings", "show", &booking, "--json"]).await;
    ok(&json);
    assert_eq!(json.stdout.strip_suffix(b"\n").unwrap(), &api[..]);
    let curl = ok(&cli(dir, &["bookings", "show", &booking, "--curl"]).await);
    assert_eq!(curl.lines().count(), 1, "{curl}");
    assert!(!curl.contains(&key), "the key is never printed: {curl}");
    let shell = Command::new("bash")
        .args(["-c", &curl])
        .env("GPUMARKET_TOKEN", &key)
        .output()
        .unwrap();
    assert_eq!(&shell.stdout[..], &api[..], "{}", stderr(&shell));

    // Cancel; a wait for a state it can no longer reach ends at once (1).
    let cancelled = ok(&cli(dir, &["bookings", "cancel", &booking]).await);
    assert!(cancelled.contains("cancelled"), "{cancelled}");
    let never = cli(
        dir,
        &[
            "bookings",
            "wait",
            &booking,
            "--until",
            "active",
            "--timeout",
            "30",
        ],
    )
    .await;
    assert_eq!(never.status.code(), Some(1), "{}", stderr(&never));

    // The demo's machine takes bids from 0.20: quoted, then booked interruptibly at 0.25; an
    // on-demand quote over it would displace it, an equal bid would not hold.
    let later = (chrono::Utc::now() + chrono::Duration::hours(50))
        .format("%Y-%m-%dT%H:00:00Z")
        .to_string();
    let interruptible = ["--interruptible", "--bid", "25"];
    let window = ["--from", later.as_str(), "--hours", "2"];
    let quoted = ok(&cli(
        dir,
        &[&["quote", &listing][..], &window, &interruptible].concat(),
    )
    .await);
    assert!(
        quoted
            .lines()
            .any(|l| l.contains("holds now") && l.contains("yes")),
        "{quoted}"
    );
    assert!(quoted.contains("0.50 USD"), "two hours at 0.25: {quoted}");
    let bid = ok(&cli(
        dir,
        &[&["book", &listing, "--quiet"][..], &window, &interruptible].concat(),
    )
    .await)
    .trim()
    .to_owned();
    let shown = ok(&cli(dir, &["bookings", "show", &bid]).await);
    assert!(
        shown.contains("interruptible") && shown.contains("0.25 USD per GPU-hour"),
        "{shown}"
    );
    let over = ok(&cli(dir, &[&["quote", &listing][..], &window].concat()).await);
    assert!(over.contains("1 booking(s), 1 GPU(s)"), "{over}");
    let outbid = ok(&cli(
        dir,
        &[&["quote", &listing][..], &window, &interruptible].concat(),
    )
    .await);
    assert!(
        outbid
            .lines()
            .any(|l| l.contains("holds now") && l.contains("no"))
            && outbid
                .lines()
                .any(|l| l.contains("bid that holds now") && l.contains("0.26 USD")),
        "{outbid}"
    );
    // Raised to 0.30 (never lowered): the booking holds at it.
    let raised = ok(&cli(dir, &["bid", &bid, "30"]).await);
    assert!(raised.contains("0.30 USD per GPU-hour"), "{raised}");
    let lower = cli(dir, &["bid", &bid, "20"]).await;
    assert_eq!(lower.status.code(), Some(1), "{}", stderr(&lower));
    assert!(stderr(&lower).contains("422"), "{}", stderr(&lower));
    ok(&cli(dir, &["bookings", "cancel", &bid]).await);
    // The market's history: no closed hour with the demo's listings in it yet (unless the
    // hour turned since it started); an unknown GPU is the server's 422.
    let history = ok(&cli(dir, &["market", "history", "--bucket", "hour"]).await);
    assert!(
        history.contains("no closed bucket") || history.contains("clearing bid"),
        "{history}"
    );
    let unknown = cli(dir, &["market", "history", "--gpu", "no-such-gpu"]).await;
    assert_eq!(unknown.status.code(), Some(1), "{}", stderr(&unknown));
    assert!(stderr(&unknown).contains("422"), "{}", stderr(&unknown));

    // The demo's provider signs in with email and password, into a profile of its own, lists
    // a machine (the demo's engine) and follows its verification to the report.
    let provider = ok(&cli_with(
        dir,
        &[
            "login",
            "--server",
            &base,
            "--profile",
            "provider",
            "--email",
            "demo@gpumarket.local",
            "--password-stdin",
        ],
        Some("demo-password-not-secret\n"),
    )
    .await);
    assert!(provider.contains("demo@gpumarket.local"), "{provider}");
    let demo_listing: Value = client
        .get(&demo.listing_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let org = demo_listing["org_id"].as_str().unwrap();
    let file = dir.join("listing.toml");
    std::fs::write(
        &file,
        format!(
            r#"org_id = "{org}"
title = "Listed from the command line"
region = "local"
hardware = {{ gpu_model = "NVIDIA GeForce RTX 3060", gpu_count = 1, vram_gb = 12, cpu_model = "Xeon", ram_gb = 32 }}
price = {{ amount_per_gpu_hour = 35, currency = "USD" }}
engine = {{ base_url = "http://{engine}", model = "{model}" }}
"#,
            engine = demo.engine,
            model = demo_listing["engine"]["model"].as_str().unwrap_or("bench"),
        ),
    )
    .unwrap();
    fn as_provider<'a>(args: &[&'a str]) -> Vec<&'a str> {
        [args, &["--profile", "provider"]].concat()
    }
    let create = as_provider(&[
        "listings",
        "create",
        "--file",
        file.to_str().unwrap(),
        "--quiet",
    ]);
    let mine = ok(&cli(dir, &create).await).trim().to_owned();
    mine.parse::<uuid::Uuid>().unwrap();

    // Two commands at once with an expired access token: one refresh, both signed in (a
    // second refresh with the spent token would end the session).
    let text = std::fs::read_to_string(&config).unwrap();
    let expired = text
        .lines()
        .map(|l| {
            if l.starts_with("access_expires_at") {
                "access_expires_at = \"2000-01-01T00:00:00Z\"".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&config, expired).unwrap();
    let list = as_provider(&["show", &mine]);
    let (a, b) = tokio::join!(cli(dir, &list), cli(dir, &list));
    ok(&a);
    ok(&b);
    let verify = as_provider(&["listings", "verify", &mine, "--follow"]);
    let followed = ok(&cli(dir, &verify).await);
    let report = followed
        .split("report ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no report in {followed}"))
        .to_owned();

    let shown = ok(&cli(dir, &["reports", "show", &report]).await);
    assert!(
        shown.contains("signed by") && shown.contains(&mine),
        "{shown}"
    );
    ok(&cli(dir, &as_provider(&["earnings", org])).await);
    // Maintenance a week ahead, listed, read in the uptime, and deleted.
    let from = (chrono::Utc::now() + chrono::Duration::days(7))
        .format("%Y-%m-%dT02:00:00Z")
        .to_string();
    let until = (chrono::Utc::now() + chrono::Duration::days(7))
        .format("%Y-%m-%dT06:00:00Z")
        .to_string();
    let announced = ok(&cli(
        dir,
        &as_provider(&[
            "listings",
            "maintenance",
            &mine,
            "--from",
            &from,
            "--until",
            &until,
            "--reason",
            "PSU swap",
        ]),
    )
    .await);
    assert!(announced.contains("announced in time"), "{announced}");
    let window = announced.split_whitespace().nth(1).unwrap().to_owned();
    let windows = ok(&cli(dir, &as_provider(&["listings", "windows", &mine])).await);
    assert!(
        windows.contains(&window) && windows.contains("PSU swap"),
        "{windows}"
    );
    let uptime = ok(&cli(dir, &["listings", "uptime", &mine]).await);
    assert!(
        uptime.contains("reliability") && uptime.contains("maintenance  1"),
        "{uptime}"
    );
    ok(&cli(
        dir,
        &as_provider(&["listings", "unschedule", &mine, &window]),
    )
    .await);
    // Edit the listing (a JSON patch file), then delist it: no longer found.
    let patch = dir.join("patch.json");
    std::fs::write(&patch, r#"{"title": "Renamed from the command line"}"#).unwrap();
    let edited = ok(&cli(
        dir,
        &as_provider(&["listings", "edit", &mine, "--file", patch.to_str().unwrap()]),
    )
    .await);
    assert!(edited.contains("Renamed from the command line"), "{edited}");
    ok(&cli(dir, &as_provider(&["listings", "delist", &mine])).await);
    let gone = ok(&cli(dir, &["show", &mine]).await);
    assert!(gone.contains("delisted"), "{gone}");
    // A community run: the report `gpumarket bench` wrote (recorded), with its catalog pair.
    let recorded =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/api/tests/api/data/community-run.json");
    let run = ok(&cli(
        dir,
        &[
            "runs",
            "submit",
            recorded.to_str().unwrap(),
            "--gpu",
            "rtx-3060-12gb",
            "--model",
            "nvidia-nemotron-nano-12b-v2-awq",
        ],
    )
    .await);
    assert!(run.contains("community"), "{run}");
    // The leaderboard's --json is the API's body.
    let board = cli(dir, &["leaderboard", "--json"]).await;
    ok(&board);
    let api = client
        .get(format!("{base}/v1/leaderboard"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(board.stdout.strip_suffix(b"\n").unwrap(), &api[..]);

    // The report, saved as the server sent it and verified offline against its keys.
    ok(&cli(dir, &["reports", "get", &report, "-o", "report.json"]).await);
    let checked = ok(&cli(dir, &["reports", "verify", "report.json"]).await);
    assert!(checked.contains("verified"), "{checked}");
    let fetches = ok(&cli(dir, &["reports", "verify", "report.json", "--curl"]).await);
    assert_eq!(
        fetches.trim(),
        format!("curl -sS '{base}/v1/signing-keys'"),
        "{fetches}"
    );
    let mut tampered: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let sig = tampered["envelope"]["signatures"][0]["sig"]
        .as_str()
        .unwrap()
        .to_owned();
    let flipped = if sig.starts_with('A') { "B" } else { "A" };
    tampered["envelope"]["signatures"][0]["sig"] = json!(format!("{flipped}{}", &sig[1..]));
    std::fs::write(dir.join("forged.json"), tampered.to_string()).unwrap();
    let forged = cli(dir, &["reports", "verify", "forged.json"]).await;
    assert_eq!(forged.status.code(), Some(1), "{}", stderr(&forged));

    // A server out of reach: 69. A usage error: 64.
    let away = cli(dir, &["leaderboard", "--server", "http://127.0.0.1:9"]).await;
    assert_eq!(away.status.code(), Some(69), "{}", stderr(&away));
    let usage = cli(dir, &["book", &listing, "--hours", "2"]).await;
    assert_eq!(usage.status.code(), Some(64), "{}", stderr(&usage));
    let refused = cli(dir, &["login", "--server", &base, "--curl"]).await;
    assert_eq!(refused.status.code(), Some(64), "{}", stderr(&refused));
    ok(&cli(dir, &["completions", "bash"]).await);

    // A server newer than the command line: it says so, and carries on. It is another
    // server than the profile's: the profile's key is not sent there (before, it was).
    let newer = newer_server(dir);
    let warned = cli(dir, &["leaderboard", "--server", &newer.0]).await;
    ok(&warned);
    assert!(
        stderr(&warned).contains("newer than this command line"),
        "{}",
        stderr(&warned)
    );
    assert!(
        stderr(&warned).contains("its credential is never sent to"),
        "{}",
        stderr(&warned)
    );
    let seen = || std::fs::read_to_string(dir.join("authorization.txt")).unwrap();
    assert_eq!(seen(), "None", "no credential for another server");
    // A command that needs one says why, and sends nothing; --token is sent as given.
    let refused = cli(dir, &["bookings", "list", "--server", &newer.0]).await;
    assert_eq!(refused.status.code(), Some(67), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--token"), "{}", stderr(&refused));
    assert_eq!(seen(), "None");
    let explicit = cli(
        dir,
        &["leaderboard", "--server", &newer.0, "--token", "gmk_given"],
    )
    .await;
    ok(&explicit);
    assert_eq!(seen(), "Bearer gmk_given");
    // The same server spelled with a trailing slash is the profile's own.
    ok(&cli(dir, &["bookings", "list", "--server", &format!("{base}/")]).await);
}

/// A stand-in server of version 99.0.0 that answers every request with an empty page and
/// writes the `Authorization` header it last got (`None` without one) to
/// `dir/authorization.txt`.
fn newer_server(dir: &Path) -> (String, KillOnDrop) {
    let port = crate::free_port();
    let seen = dir.join("authorization.txt");
    let script = format!(
        r#"
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open({seen:?}, "w").write(str(self.headers.get("authorization")))
        body = b'{{"items":[]}}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("x-gpumarket-version", "99.0.0")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", {port}), H).serve_forever()
"#
    );
    let child = Command::new("python3")
        .args(["-c", &script])
        .spawn()
        .unwrap();
    let address = format!("127.0.0.1:{port}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the stand-in did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    (format!("http://{address}"), KillOnDrop(child))
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
