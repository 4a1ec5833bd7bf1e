//! The harness against a real vLLM 0.32 server (the PyPI CPU build and a tiny random Llama,
//! made by `scripts/vllm/setup` into a cache outside the clone), beside vLLM's own
//! `vllm bench serve`. The server is pinned to core 0 and every client to core 1, as
//! `shared/design/real-vllm.md` measured; the starved case puts the harness on the server's
//! core at the lowest priority.
//!
//! One test, so the server starts once (about two minutes). `scripts/check` runs it on its
//! own after the rest of the suite, so nothing else competes for the cores.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::engines::{
    Load, RealEngine, alternate_with_vllm, cell, figure, in_turn, vllm_bench_serve,
};

const MAX_NUM_SEQS: u64 = 16;
const MAX_MODEL_LEN: u64 = 1024;
const MAX_OUTPUT: u64 = 512;

/// The cache with vLLM and the tiny model, installed on first use.
fn vllm_cache() -> PathBuf {
    super::engines::setup("scripts/vllm/setup")
}

/// `gpumarket bench` at this tier's lengths (512 out, 5 s windows).
fn bench(dir: &Path, base: &str, cores: &str, starved: bool, extra: &[&str]) -> Value {
    let lengths = ["--max-output", "512", "--measure-secs", "5"];
    super::engines::bench(dir, base, cores, starved, &[&lengths[..], extra].concat())
}

/// A blocking step of the test: runs child processes against the server (its directory and
/// base URL) and returns what they measured.
type Step = Box<dyn FnOnce(&Path, &str) -> Value + Send>;

/// What is wrong with a matrix report measured under the cost rules (the profile's
/// defaults) on this server; empty when nothing is. Every check is one a correct harness
/// passes on a quiet machine; some also depend on the engine's pace (a minute in which the
/// tiny engine on its one core runs slow), so a matrix with problems is measured again.
fn matrix_problems(report: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    check(
        report["parameters"]["window_rule"] == "adaptive",
        "window rule".into(),
    );
    check(report["standard"] == "standard/2", "standard".into());
    check(
        report["engine"]["version"] == "0.32.0",
        "engine version".into(),
    );
    check(
        report["engine"]["max_model_len"] == MAX_MODEL_LEN,
        "max_model_len".into(),
    );
    check(
        report["compliance"]["compliant"] == true,
        format!("not compliant: {}", report["compliance"]),
    );
    for context in [0, 256] {
        for concurrency in [1, 4, 32] {
            let c = cell(report, context, concurrency);
            let label = format!("{context} x {concurrency}: {c}");
            let f = |key: &str| c[key].as_f64().unwrap_or(f64::NAN);
            if concurrency <= MAX_NUM_SEQS {
                check(c["status"] == "valid", format!("not valid: {label}"));
                // Every stream ran: the server's count of running requests shows them all.
                check(
                    f("avg_active_requests") > 0.9 * concurrency as f64,
                    format!("streams not all running: {label}"),
                );
            } else {
                check(
                    c["status"] == "requests_queued",
                    format!("not requests_queued: {label}"),
                );
                check(
                    c["reasons"]
                        .to_string()
                        .contains(&format!("at most {MAX_NUM_SEQS} of {concurrency}")),
                    format!("reason: {label}"),
                );
                // Measured in the normal window, within seconds of saturation.
                check(f("readiness_s") <= 10.0, format!("readiness: {label}"));
                check(
                    (f("avg_active_requests") - MAX_NUM_SEQS as f64).abs() < 1.0,
                    format!("running at saturation: {label}"),
                );
            }
            // An adaptive window: at least a third of its 5 s, at most all of it; the
            // precision reached is recorded.
            let measured = f("measured_s");
            check(
                (5.0 / 3.0 - 0.1..=5.5).contains(&measured),
                format!("window length: {label}"),
            );
            check(
                measured > 4.5 || f("window_half_width_pct") <= 1.0,
                format!("window precision: {label}"),
            );
            // TBT as the page defines it, and TTFT only of requests on an idle slot.
            check(
                (f("tbt_ms_median") - 1000.0 / f("per_request_tok_s")).abs() < 1e-6,
                format!("TBT: {label}"),
            );
            check(
                c["ttft_samples"].as_u64().unwrap_or(0) >= concurrency.min(MAX_NUM_SEQS),
                format!("TTFT samples: {label}"),
            );
            check(f("ttft_ms_median") < 1000.0, format!("TTFT: {label}"));
            // The server's token counter and the client's count agree over the same interval.
            check(
                (f("server_generation_tokens") / f("client_generation_tokens") - 1.0).abs() < 0.05,
                format!("token cross-check: {label}"),
            );
        }
    }
    // 768 + 512 output tokens do not fit the model's 1024.
    for concurrency in [1, 4, 32] {
        let over = cell(report, 768, concurrency);
        check(
            over["status"] == "over_capacity"
                && over["reasons"].to_string().contains("max_model_len 1024"),
            format!("over capacity: {over}"),
        );
    }
    // Prefill of 256 came from the decode warm-up: one request, no prompt of its own.
    let prefill = &report["prefill"][0];
    check(
        prefill["status"] == "valid" && prefill["repeats"].as_array().map(Vec::len) == Some(1),
        format!("prefill from the warm-up: {prefill}"),
    );
    problems
}

/// Whether a cell measured under the cost rules (`new`) agrees with the cells measured under
/// the old procedure around it (`olds`): the same status as one of them with its full fixed
/// window, and each throughput figure within this tier's tolerance of the range those span
/// (25 % beyond the lowest and the highest: the tiny engine on one core drifts by up to a
/// third between minutes, so a figure between its neighbours' is the engine's drift).
fn cells_agree(olds: &[Value], new: &Value) -> bool {
    let comparable: Vec<&Value> = olds
        .iter()
        .filter(|old| {
            old["status"] == new["status"]
                && old["measured_s"]
                    .as_f64()
                    .is_some_and(|s| (s - 5.0).abs() < 0.5)
        })
        .collect();
    !comparable.is_empty()
        && ["total_tok_s", "per_request_tok_s"].iter().all(|key| {
            let values: Vec<f64> = comparable.iter().filter_map(|c| c[key].as_f64()).collect();
            let (lo, hi) = values.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| {
                (lo.min(*v), hi.max(*v))
            });
            new[key]
                .as_f64()
                .is_some_and(|v| values.len() == comparable.len() && 0.75 * lo < v && v < 1.25 * hi)
        })
}

/// The median of `values` (the mean of the middle two of an even count).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a real vLLM (scripts/vllm/setup installs it once, ~6 GB, outside the clone); scripts/check runs it alone"]
async fn real_vllm_is_measured_correctly_in_every_cell() {
    let cache = vllm_cache();
    let dir = tempfile::tempdir().unwrap();
    let vllm = RealEngine::start(
        "vLLM",
        "scripts/vllm/serve",
        &[],
        &[("VLLM_CORES", "0")],
        dir.path(),
        Duration::from_secs(600),
    )
    .await;
    let base = vllm.base.clone();

    // The liveness probe (a one-token completion of the served model) finds the engine up;
    // a model it does not serve is an error answer, so down.
    outbound::install_crypto_provider();
    let client = reqwest::Client::new();
    let probe = |model: &'static str| {
        let (client, base) = (client.clone(), base.clone());
        async move {
            app::trust::completion::probe_engine(
                &client,
                (&base, model),
                None,
                Duration::from_secs(30),
                outbound::Policy::permissive(),
            )
            .await
        }
    };
    assert!(probe("tiny").await, "the probe finds vLLM up");
    assert!(!probe("no-such-model").await);

    // Preflight's engine checks against real vLLM: its models, its metrics in vLLM's dialect,
    // a one-token completion, and its KV cache read from `cache_config_info` against the quick
    // profile's cells (those past its max_model_len named, if any); a model it does not serve
    // is named, and no completion is asked of it.
    let preflight = |model: &'static str| {
        let (client, base) = (client.clone(), base.clone());
        async move {
            use app::trust::preflight::{EngineTarget, Patience, engine_checks_at};
            let target = EngineTarget {
                base_url: &base,
                model,
                stated: Some("vllm"),
                key: None,
            };
            let checks = engine_checks_at(
                target,
                &bench::params::quick(),
                Patience::REQUEST,
                (&client, outbound::Policy::permissive()),
            )
            .await
            .unwrap();
            serde_json::to_value(checks).unwrap()
        }
    };
    let checks = preflight("tiny").await;
    let state = |checks: &Value, name: &str| {
        checks
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .map(|c| {
                (
                    c["state"].as_str().unwrap().to_owned(),
                    c["evidence"].to_string(),
                )
            })
            .unwrap()
    };
    for name in [
        "engine_reachable",
        "model_served",
        "metrics_dialect",
        "completion",
    ] {
        assert_eq!(state(&checks, name).0, "pass", "{name}: {checks}");
    }
    let (kv, evidence) = state(&checks, "kv_capacity");
    assert!(kv == "pass" || kv == "warn", "{checks}");
    assert!(evidence.contains("a KV cache of"), "{checks}");
    let unserved = preflight("no-such-model").await;
    assert_eq!(state(&unserved, "model_served").0, "fail", "{unserved}");
    assert!(
        state(&unserved, "model_served").1.contains("tiny"),
        "{unserved}"
    );
    assert_eq!(state(&unserved, "completion").0, "skip", "{unserved}");
    let run = |step: Step| {
        let (dir, base) = (dir.path().to_owned(), base.clone());
        async move {
            tokio::task::spawn_blocking(move || step(&dir, &base))
                .await
                .unwrap()
        }
    };

    // The matrix, the harness on the core the server does not use: under the cost rules
    // (the profile's defaults), then under the old procedure, back to back. Checks that a
    // correct harness passes fail again on the next attempt; a minute in which the engine
    // or this shared machine stalls does not repeat (seen: the client's own lag past its
    // 5 ms at 32 streams once in several runs), so a matrix with problems is measured again,
    // five attempts at most (a CI run once met three in a row whose client lag crossed 5 ms
    // while the engine itself ran at a third of its pace: the host was busy for minutes),
    // each on fresh prompts (the engine's prefix cache holds the
    // earlier ones, and a warm-up prefill on a cached prompt is rightly not cold).
    const MATRIX: [&str; 6] = [
        "--contexts",
        "0,256,768",
        "--concurrency",
        "1,4,32",
        "--prefill-contexts",
        "256",
    ];
    let mut attempt = 0;
    let (report, fixed) = loop {
        attempt += 1;
        let pair = run(Box::new(move |dir, base| {
            let seed = (6999 + attempt).to_string();
            let matrix = [&MATRIX[..], &["--seed", &seed]].concat();
            let report = bench(dir, base, "1", false, &matrix);
            let old = ["--prefill-mode", "repeats", "--window-rule", "fixed"];
            let fixed = bench(dir, base, "1", false, &[&matrix[..], &old].concat());
            serde_json::json!([report, fixed])
        }))
        .await;
        let (report, fixed) = (pair[0].clone(), pair[1].clone());
        let problems = matrix_problems(&report);
        if problems.is_empty() {
            break (report, fixed);
        }
        println!("matrix attempt {attempt}: {problems:#?}");
        assert!(
            attempt < 5,
            "five matrices, each with problems; the last: {problems:#?}"
        );
    };
    assert_eq!(fixed["parameters"]["window_rule"], "fixed");

    // The cost rules against the old procedure, cell by cell: the same statuses, and
    // figures within this tier's tolerance. A pair that disagrees is measured again, old,
    // new, old back to back, and the new figure must agree with an old one beside it (the
    // engine drifts between minutes: seen 139 vs 185 and 103 vs 133 tok/s in one cell, both
    // full windows, and twice in a row); three brackets that all disagree fail.
    for (context, concurrency) in [(0, 1), (0, 4), (0, 32), (256, 1), (256, 4), (256, 32)] {
        let mut olds = vec![cell(&fixed, context, concurrency).clone()];
        let mut new = cell(&report, context, concurrency).clone();
        let mut bracket = 0;
        while !cells_agree(&olds, &new) {
            assert!(
                bracket < 3,
                "{context} x {concurrency}: disagree in every bracket: fixed {olds:?}, cost rules {new}"
            );
            bracket += 1;
            println!(
                "{context} x {concurrency}: bracket {bracket} after fixed {olds:?}, cost rules {new}"
            );
            let measured = run(Box::new(move |dir, base| {
                let (p, c) = (context.to_string(), concurrency.to_string());
                let one = [
                    "--contexts",
                    &p,
                    "--concurrency",
                    &c,
                    "--prefill-contexts",
                    "",
                ];
                let old = [&one[..], &["--window-rule", "fixed"]].concat();
                let measure = |args: &[&str]| {
                    cell(&bench(dir, base, "1", false, args), context, concurrency).clone()
                };
                let before = measure(&old);
                let new = measure(&one);
                serde_json::json!([before, measure(&old), new])
            }))
            .await;
            olds = vec![measured[0].clone(), measured[1].clone()];
            new = measured[2].clone();
        }
    }
    // The prefill: three cold requests against the one of the warm-up, with the same status.
    // One request on this CPU engine can take 60 % longer than the next by the server's own
    // histogram (seen 22 vs 13 ms at 256 tokens), and a repeat is skipped (the entry invalid)
    // when the server is still busy with the cell before it (a CI run's engine stalled so), so
    // a pair that disagrees is measured again, both procedures back to back on the 256 context
    // alone, on fresh prompts; three disagreements fail.
    let (mut a, mut b) = (fixed["prefill"][0].clone(), report["prefill"][0].clone());
    let agree = |a: &Value, b: &Value| {
        let rate = |e: &Value| e["prompt_tok_s"].as_f64();
        a["status"] == "valid"
            && b["status"] == "valid"
            && a["repeats"].as_array().map(Vec::len) == Some(3)
            && rate(a)
                .zip(rate(b))
                .is_some_and(|(a, b)| (b / a - 1.0).abs() < 0.25)
    };
    let mut attempt = 0;
    while !agree(&a, &b) {
        assert!(attempt < 2, "prefill disagrees three times: {a} {b}");
        attempt += 1;
        println!("prefill attempt {attempt} after {a} {b}");
        let pair = run(Box::new(move |dir, base| {
            let one = [
                "--contexts",
                "256",
                "--concurrency",
                "1",
                "--prefill-contexts",
                "256",
            ];
            let old = ["--prefill-mode", "repeats", "--window-rule", "fixed"];
            let (s1, s2) = (
                (7100 + 2 * attempt).to_string(),
                (7101 + 2 * attempt).to_string(),
            );
            let a = bench(
                dir,
                base,
                "1",
                false,
                &[&one[..], &old, &["--seed", &s1]].concat(),
            );
            let b = bench(
                dir,
                base,
                "1",
                false,
                &[&one[..], &["--seed", &s2]].concat(),
            );
            serde_json::json!([a["prefill"][0], b["prefill"][0]])
        }))
        .await;
        (a, b) = (pair[0].clone(), pair[1].clone());
    }
    // This CPU engine's rate jitters by 2–4 % between thirtieths of a window, so adaptive
    // windows mostly run their whole length here; the saving shows on steady engines (the
    // simulated GPU's test and scripts/cost-comparison). Every report states its cost.
    for r in [&fixed, &report] {
        let (wall, gpu) = (
            figure(&r["cost"], "wall_s"),
            figure(&r["cost"], "gpu_s_estimate"),
        );
        assert!(0.0 < gpu && gpu <= wall, "{}", r["cost"]);
        println!(
            "{} / {}: {wall:.1} s wall, {gpu:.1} s server time",
            r["parameters"]["prefill_mode"], r["parameters"]["window_rule"]
        );
    }

    // vLLM's own client on the same server, the same lengths: within 25 % (the measurements page's
    // benchmark shows the closer agreement; speeds belong in benchmarks, not tests). The
    // engine's pace on this shared machine swings by a fifth and more from one ten-second
    // run to the next (seen at 4 streams: ours 639, theirs 828, ours 810, theirs 619 tok/s),
    // so the two are measured back to back in alternating order, and the medians of the
    // rounds so far must agree; five rounds at most. A real disagreement stays.
    for concurrency in [1, 4] {
        let cache = cache.clone();
        alternate_with_vllm(concurrency, 0.25, 5, move |round| {
            let cache = cache.clone();
            async move {
                run(Box::new(move |dir, base| {
                    let c = concurrency.to_string();
                    let one = [
                        "--contexts",
                        "256",
                        "--concurrency",
                        &c,
                        "--prefill-contexts",
                        "",
                    ];
                    let ours =
                        || cell(&bench(dir, base, "1", false, &one), 256, concurrency).clone();
                    let theirs = || {
                        vllm_bench_serve(
                            &cache,
                            &cache.join("model"),
                            dir,
                            base,
                            Load {
                                concurrency,
                                prefix: 0,
                                input: 256,
                                output: MAX_OUTPUT,
                                prompts: concurrency * 4,
                            },
                        )
                    };
                    in_turn(round, ours, theirs)
                }))
                .await
            }
        })
        .await;
    }
    // Starved: the harness on the server's own core at the lowest priority. Its own lag
    // shows, and it blames itself, never the server.
    let starved = run(Box::new(|dir, base| {
        let one = [
            "--contexts",
            "0",
            "--concurrency",
            "16",
            "--prefill-contexts",
            "",
        ];
        bench(dir, base, "0", true, &one)
    }))
    .await;
    let c = cell(&starved, 0, 16);
    assert_eq!(c["status"], "client_bound", "{c}");
    let reasons = c["reasons"].to_string();
    assert!(
        reasons.contains("timer lag") || reasons.contains("of a core"),
        "{reasons}"
    );
    assert_eq!(starved["compliance"]["compliant"], false);
    drop(vllm);
}
