//! `gpumarket gateway-bench`: what the metered gateway adds. A simulated engine and a
//! `gpumarket serve` run as child processes; a renter books the engine's listing; the harness
//! measures one stream, in rounds that alternate the engine itself and the same engine
//! through `/v1/gateway/{booking}` (the renter's personal API key as its key). Printed: TTFT and
//! inter-token gaps (median, p99) each way and what the gateway adds, and the server
//! process's CPU per 1,000 tokens it passed (its CPU while the harness ran directly, idle
//! work, subtracted).

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct GatewayBenchArgs {
    /// Rounds of (direct, through the gateway).
    #[arg(long, default_value_t = 2)]
    rounds: u32,
    /// Seconds each measurement window lasts.
    #[arg(long, default_value_t = 10.0)]
    measure_secs: f64,
    /// The simulated engine's profile.
    #[arg(long, default_value = "tiny")]
    profile: String,
    /// Count the gateway's streams in this Redis (as replicas do) instead of in the process.
    #[arg(long)]
    redis_url: Option<String>,
}

/// A child process killed when dropped.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// This binary, with none of the caller's `GPUMARKET_*` settings.
fn ourselves(dir: &Path) -> anyhow::Result<Command> {
    let mut command = Command::new(std::env::current_exe()?);
    for (name, _) in std::env::vars() {
        if name.starts_with("GPUMARKET_") {
            command.env_remove(name);
        }
    }
    command
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    Ok(command)
}

async fn wait_up(client: &reqwest::Client, url: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.get(url).send().await.is_err() {
        if Instant::now() > deadline {
            bail!("{url} did not come up");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

/// The CPU seconds a process has used (user + system), from `/proc`.
fn cpu_secs(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => Ok((user + system) / 100.0),
        _ => bail!("cannot read the CPU time of process {pid}"),
    }
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    bearer: Option<&str>,
    body: Value,
) -> anyhow::Result<Value> {
    let mut request = client.post(url).json(&body);
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    let response = request.send().await?;
    let status = response.status();
    let answer: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        bail!("POST {url}: {status} {answer}");
    }
    Ok(answer)
}

/// One stream's figures from a run of the harness.
#[derive(Debug, Clone, Copy, Default)]
struct Figures {
    ttft_ms: f64,
    itl_p50_ms: f64,
    itl_p99_ms: f64,
    tok_s: f64,
}

async fn measure(base: &str, api_key: Option<&str>, measure_secs: f64) -> anyhow::Result<Figures> {
    let mut params = bench::params::profile("quick").context("the quick profile")?;
    params.contexts = vec![0];
    params.concurrency = vec![1];
    params.prefill_contexts = Vec::new();
    params.measure_secs = measure_secs;
    params.window_rule = bench::params::WindowRule::Fixed;
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let report = bench::run(
        bench::Options {
            base_url: base.to_owned(),
            model: None,
            api_key: api_key.map(|key| key.to_owned().into()),
            params,
            outbound: outbound::Policy::permissive(),
            require_dialect: false,
            expect_engine: None,
        },
        None,
        stopped,
    )
    .await
    .with_context(|| format!("the harness against {base}"))?;
    let cell = report
        .decode
        .first()
        .context("the harness measured no cell")?;
    let figure = |v: Option<f64>, what: &str| v.with_context(|| format!("no {what} in {cell:?}"));
    Ok(Figures {
        ttft_ms: figure(cell.ttft_ms_median, "TTFT")?,
        itl_p50_ms: figure(cell.itl_ms_p50, "ITL p50")?,
        itl_p99_ms: figure(cell.itl_ms_p99, "ITL p99")?,
        tok_s: figure(cell.per_request_tok_s, "tok/s")?,
    })
}

fn mean(values: &[Figures], pick: fn(&Figures) -> f64) -> f64 {
    values.iter().map(pick).sum::<f64>() / values.len().max(1) as f64
}

pub async fn gateway_bench(args: GatewayBenchArgs) -> anyhow::Result<std::process::ExitCode> {
    outbound::install_crypto_provider();
    let dir = tempfile::tempdir()?;
    let client = reqwest::Client::new();
    let (engine_port, api_port) = (free_port()?, free_port()?);
    let engine = format!("http://127.0.0.1:{engine_port}");
    let api = format!("http://127.0.0.1:{api_port}");
    let _sim = Kid(ourselves(dir.path())?
        .args(["sim", "--profile", &args.profile, "--listen"])
        .arg(format!("127.0.0.1:{engine_port}"))
        .spawn()?);
    let mut serve = ourselves(dir.path())?;
    serve
        .arg("serve")
        .env("GPUMARKET_LISTEN", format!("127.0.0.1:{api_port}"))
        .env("GPUMARKET_PUBLIC_URL", &api)
        .env("GPUMARKET_ENGINE_ALLOW_PRIVATE", "true")
        .env("GPUMARKET_RATE_LIMITS", "false");
    if let Some(redis) = &args.redis_url {
        serve.env("GPUMARKET_REDIS_URL", redis).env(
            "GPUMARKET_REDIS_NAMESPACE",
            format!("gateway-bench-{api_port}"),
        );
    }
    let server = Kid(serve.spawn()?);
    wait_up(&client, &format!("{engine}/health")).await?;
    wait_up(&client, &format!("{api}/healthz")).await?;

    // A provider lists the engine; a renter books it from now on.
    let password = "correct horse battery staple";
    let provider = post(
        &client,
        &format!("{api}/v1/auth/register"),
        None,
        json!({"email": "p@example.com", "password": password, "name": "Provider"}),
    )
    .await?;
    let provider = provider["access_token"]
        .as_str()
        .context("no token")?
        .to_owned();
    let org = post(
        &client,
        &format!("{api}/v1/orgs"),
        Some(&provider),
        json!({"name": "Bench"}),
    )
    .await?;
    let listing = post(
        &client,
        &format!("{api}/v1/listings"),
        Some(&provider),
        json!({
            "org_id": org["id"], "title": "simulated", "region": "local",
            "hardware": {"gpu_model": "simulated", "gpu_count": 1, "vram_gb": 12, "cpu_model": "x", "ram_gb": 32},
            "price": {"amount_per_gpu_hour": 100, "currency": "USD"},
            "engine": {"base_url": engine, "model": args.profile},
        }),
    )
    .await?;
    let renter = post(
        &client,
        &format!("{api}/v1/auth/register"),
        None,
        json!({"email": "r@example.com", "password": password, "name": "Renter"}),
    )
    .await?;
    let renter = renter["access_token"]
        .as_str()
        .context("no token")?
        .to_owned();
    let starts = chrono::Utc::now();
    let booking: Value = client
        .post(format!("{api}/v1/bookings"))
        .bearer_auth(&renter)
        .header("idempotency-key", uuid_like())
        .json(&json!({
            "listing_id": listing["id"], "gpu_count": 1,
            "starts_at": starts, "ends_at": starts + chrono::Duration::hours(2),
        }))
        .send()
        .await?
        .json()
        .await?;
    let booking_id = booking["id"].as_str().context("no booking")?.to_owned();
    // The renter's own personal key: the gateway takes the renter's credential, never the
    // machine's access token.
    let key = post(
        &client,
        &format!("{api}/v1/api-keys"),
        Some(&renter),
        json!({"name": "gateway-bench"}),
    )
    .await?;
    let token = key["key"].as_str().context("no API key")?.to_owned();
    let gateway = format!("{api}/v1/gateway/{booking_id}");

    let pid = server.0.id();
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    let (mut idle_cpu, mut idle_secs, mut gateway_cpu) = (0.0, 0.0, 0.0);
    for round in 1..=args.rounds {
        let (cpu, at) = (cpu_secs(pid)?, Instant::now());
        direct.push(measure(&engine, None, args.measure_secs).await?);
        idle_cpu += cpu_secs(pid)? - cpu;
        idle_secs += at.elapsed().as_secs_f64();
        let (cpu, at) = (cpu_secs(pid)?, Instant::now());
        through.push(measure(&gateway, Some(&token), args.measure_secs).await?);
        let busy = cpu_secs(pid)? - cpu;
        let secs = at.elapsed().as_secs_f64();
        gateway_cpu += (busy - idle_cpu / idle_secs.max(1e-9) * secs).max(0.0);
        println!("round {round} of {} measured", args.rounds);
    }
    let usage: Value = client
        .get(format!("{api}/v1/bookings/{booking_id}/usage"))
        .bearer_auth(&renter)
        .send()
        .await?
        .json()
        .await?;
    let tokens = usage["totals"]["output_tokens"].as_f64().unwrap_or(0.0);
    println!(
        "\none stream, {} rounds of {:.0} s windows ({} profile, streams counted {}), the engine itself vs through the gateway:",
        args.rounds,
        args.measure_secs,
        args.profile,
        if args.redis_url.is_some() {
            "in Redis"
        } else {
            "in the process"
        }
    );
    for (what, pick) in [
        (
            "TTFT median (ms)",
            (|f: &Figures| f.ttft_ms) as fn(&Figures) -> f64,
        ),
        ("inter-token gap p50 (ms)", |f: &Figures| f.itl_p50_ms),
        ("inter-token gap p99 (ms)", |f: &Figures| f.itl_p99_ms),
        ("per-stream tok/s", |f: &Figures| f.tok_s),
    ] {
        let (d, g) = (mean(&direct, pick), mean(&through, pick));
        println!(
            "  {what:<26} direct {d:>9.3}   gateway {g:>9.3}   added {:>+8.3}",
            g - d
        );
    }
    println!(
        "  gateway CPU: {:.1} ms per 1,000 tokens ({tokens:.0} tokens metered, idle work subtracted)",
        if tokens > 0.0 {
            gateway_cpu * 1000.0 / tokens * 1000.0
        } else {
            0.0
        }
    );
    drop(server);
    Ok(std::process::ExitCode::SUCCESS)
}

/// A fresh idempotency key.
fn uuid_like() -> String {
    format!(
        "gateway-bench-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    )
}
