//! `gpumarket search-bench`: loads a synthetic marketplace (100,000 listings by default,
//! 70 % with reports and their decode cells, bookings on a fifth) and measures search
//! latency over real HTTP under concurrent load, per kind of query.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use app::operations::database::{CELLS, GPU_MODELS, REGIONS, Rng};
use chrono::Utc;
use secrecy::SecretString;

#[derive(Debug, clap::Args)]
pub struct SearchBenchArgs {
    /// The database to load and search (`postgres://…` or `sqlite://…`). Default: a new
    /// SQLite file in a temporary directory.
    #[arg(long)]
    database_url: Option<String>,
    /// Listings the database should hold; only the missing ones are loaded.
    #[arg(long, default_value_t = 100_000)]
    listings: u64,
    /// Clients searching at once.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// How long to measure, after a 3-second warm-up.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Every search asks the database (`[database] search_in_memory = false`), for comparison.
    #[arg(long)]
    search_from_database: bool,
}

/// The kinds of search the load mixes, in equal shares.
const KINDS: &[&str] = &[
    "browse by price",
    "model + max price",
    "region, verified",
    "fastest, min VRAM",
    "cell tok/s floor by $/Mtok",
    "cell fastest of a model",
    "free GPUs over an interval",
    "second page (cursor)",
];

fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A query of `kind` with parameters drawn like a user's.
fn query(kind: usize, rng: &mut Rng) -> String {
    let model = GPU_MODELS[rng.below(GPU_MODELS.len() as u64) as usize];
    let (context, concurrency) = CELLS[rng.below(CELLS.len() as u64) as usize];
    match kind {
        0 | 7 => String::new(),
        1 => format!(
            "gpu_model={}&max_price={}",
            encode(model.0),
            100 + rng.below(600)
        ),
        2 => format!(
            "region={}&verified=true",
            REGIONS[rng.below(REGIONS.len() as u64) as usize]
        ),
        3 => format!(
            "sort=tok_s&min_vram_gb={}",
            [12, 24, 48, 80][rng.below(4) as usize]
        ),
        4 => format!(
            "context={context}&concurrency={concurrency}&min_total_tok_s={}&sort=price_per_mtok",
            10 + rng.below(500)
        ),
        5 => format!(
            "context={context}&concurrency={concurrency}&sort=tok_s&gpu_model={}",
            encode(model.0)
        ),
        _ => {
            let from = Utc::now() + chrono::Duration::hours(1 + rng.below(24 * 14) as i64);
            let until = from + chrono::Duration::hours(1 + rng.below(48) as i64);
            format!(
                "available_from={}&available_until={}&gpu_count={}&sort=price",
                encode(&from.to_rfc3339()),
                encode(&until.to_rfc3339()),
                [1, 2, 4][rng.below(3) as usize]
            )
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1000.0
}

struct Sample {
    kind: usize,
    micros: u64,
    items: usize,
    ok: bool,
}

/// The kind of a `/healthz` sample: the same clients' ceiling on the same server.
const HEALTH: usize = usize::MAX;

async fn client(
    base: String,
    seed: u64,
    (warm_until, deadline): (Instant, Instant),
    health: bool,
) -> Vec<Sample> {
    let http = reqwest::Client::new();
    let mut rng = Rng::new(seed);
    let mut samples = Vec::new();
    let mut kind = rng.below(KINDS.len() as u64) as usize;
    while Instant::now() < deadline {
        kind = if health {
            HEALTH
        } else {
            (kind + 1) % KINDS.len()
        };
        let mut url = if health {
            format!("{base}/healthz")
        } else {
            format!("{base}/v1/listings?{}", query(kind, &mut rng))
        };
        if kind == 7 {
            // The second page: first ask for the first, unmeasured.
            let first: serde_json::Value = match http.get(&url).send().await {
                Ok(res) => res.json().await.unwrap_or_default(),
                Err(_) => serde_json::Value::Null,
            };
            if let Some(cursor) = first["next_cursor"].as_str() {
                url = format!("{url}&cursor={cursor}");
            }
        }
        let started = Instant::now();
        let result = http.get(&url).send().await;
        let (ok, items) = match result {
            Ok(res) if res.status().is_success() => {
                let body: serde_json::Value = res.json().await.unwrap_or_default();
                (true, body["items"].as_array().map_or(0, Vec::len))
            }
            _ => (false, 0),
        };
        let micros = started.elapsed().as_micros() as u64;
        if started >= warm_until {
            samples.push(Sample {
                kind,
                micros,
                items,
                ok,
            });
        }
    }
    samples
}

pub async fn search_bench(args: SearchBenchArgs) -> anyhow::Result<ExitCode> {
    outbound::install_crypto_provider();
    let dir = tempfile::tempdir().context("a temporary directory")?;
    let url = match &args.database_url {
        Some(url) => url.clone(),
        None => format!("sqlite://{}/search-bench.db", dir.path().display()),
    };
    println!("preparing {} synthetic listings …", args.listings);
    let started = Instant::now();
    let market = app::operations::database::synthetic_marketplace(&url, args.listings, args.seed)
        .await
        .context("loading the synthetic marketplace")?;
    if market.loaded_listings > 0 {
        println!(
            "loaded {} listings ({} verified, {} cells, {} bookings) in {:.1} s",
            market.loaded_listings,
            market.loaded_verified,
            market.loaded_cells,
            market.loaded_bookings,
            started.elapsed().as_secs_f64()
        );
    }
    let backend = market.backend;

    let mut config = app::Config::default();
    config.server.listen = "127.0.0.1:0".to_owned();
    config.database.url = Some(SecretString::from(url.clone()));
    config.database.search_in_memory = !args.search_from_database;
    config.verification.worker_in_process = Some(false);
    // The benchmark's clients are one address firing as fast as they can.
    config.limits.rate_limits = false;
    let key = bench_secrets_key()?;
    config.keys.secrets_key_file = Some(key.clone());
    let app = app::App::build(config, false).await;
    // Read once the app is built: the file need not outlive it.
    let _ = std::fs::remove_file(&key);
    let app = app?;
    let rss_before = resident_bytes();
    let loading = Instant::now();
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let server = api::Application::build(app.clone(), workers)?;
    let base = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    while app.search_memory_state() == app::MemoryState::Loading {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    match app.search_memory_state() {
        app::MemoryState::Serving { listings } => {
            let grown = resident_bytes().saturating_sub(rss_before);
            println!(
                "search in memory: {listings} listings loaded in {:.1} s; the process grew by {:.0} MB ({:.2} KB per listing)",
                loading.elapsed().as_secs_f64(),
                grown as f64 / 1e6,
                grown as f64 / 1e3 / listings.max(1) as f64
            );
        }
        state => println!("search from the database ({state:?})"),
    }

    println!(
        "searching with {} clients for {} s on {:?} ({} listings) …",
        args.concurrency, args.seconds, backend, args.listings
    );
    let searched = load(&base, &args, false).await?;
    let (searches, failed) = report(searched, args.seconds);
    // What a replica holds once searches have passed over the listings: each hit's listing
    // is kept as JSON with its record, written the first time a search finds it.
    let grown = resident_bytes().saturating_sub(rss_before);
    println!(
        "after searching, the process is {:.0} MB larger than before loading ({:.2} KB per listing)",
        grown as f64 / 1e6,
        grown as f64 / 1e3 / args.listings.max(1) as f64
    );
    println!("\nthe same clients on /healthz for {} s …", args.seconds);
    let (health, _) = report(load(&base, &args, true).await?, args.seconds);
    println!(
        "\nsearch / healthz: {:.2} of the requests per second (p99 {:.2} ms against {:.2} ms)",
        searches.0 / health.0.max(1e-9),
        searches.1,
        health.1
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The samples of `args.concurrency` clients over `args.seconds` after a 3-second warm-up.
async fn load(base: &str, args: &SearchBenchArgs, health: bool) -> anyhow::Result<Vec<Sample>> {
    let warm_until = Instant::now() + Duration::from_secs(3);
    let deadline = warm_until + Duration::from_secs(args.seconds);
    let clients: Vec<_> = (0..args.concurrency)
        .map(|i| {
            tokio::spawn(client(
                base.to_owned(),
                args.seed.wrapping_mul(1000).wrapping_add(i as u64),
                (warm_until, deadline),
                health,
            ))
        })
        .collect();
    let mut samples = Vec::new();
    for c in clients {
        samples.extend(c.await?);
    }
    Ok(samples)
}

/// Prints the samples' table by kind; `((requests/s, p99 ms), failures)`.
fn report(samples: Vec<Sample>, seconds: u64) -> ((f64, f64), usize) {
    let mut by_kind: BTreeMap<usize, (Vec<u64>, usize, usize)> = BTreeMap::new();
    let mut all = Vec::new();
    let mut failed = 0;
    for s in samples {
        if !s.ok {
            failed += 1;
            continue;
        }
        let entry = by_kind.entry(s.kind).or_default();
        entry.0.push(s.micros);
        entry.1 += s.items;
        entry.2 += 1;
        all.push(s.micros);
    }
    println!(
        "\n{:<30} {:>8} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "query", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms", "items"
    );
    for (kind, (mut micros, items, n)) in by_kind {
        micros.sort_unstable();
        println!(
            "{:<30} {:>8} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>7.1}",
            KINDS.get(kind).copied().unwrap_or("/healthz"),
            n,
            percentile(&micros, 50.0),
            percentile(&micros, 95.0),
            percentile(&micros, 99.0),
            percentile(&micros, 100.0),
            items as f64 / n.max(1) as f64
        );
    }
    all.sort_unstable();
    println!(
        "{:<30} {:>8} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
        "all",
        all.len(),
        percentile(&all, 50.0),
        percentile(&all, 95.0),
        percentile(&all, 99.0),
        percentile(&all, 100.0),
    );
    let per_second = all.len() as f64 / seconds as f64;
    println!("\n{per_second:.0} requests/s, {failed} failed");
    ((per_second, percentile(&all, 99.0)), failed)
}

/// The process's resident memory, from `/proc/self/statm` (0 where there is none).
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// A throwaway key for secrets at rest (PostgreSQL requires one), in the temporary folder.
fn bench_secrets_key() -> std::io::Result<std::path::PathBuf> {
    let path =
        std::env::temp_dir().join(format!("gpumarket-search-bench-{}.key", std::process::id()));
    // The benchmark's database is thrown away with it; the key protects nothing real.
    std::fs::write(&path, "be".repeat(32))?;
    Ok(path)
}
