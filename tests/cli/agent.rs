//! `gpumarket agent facts` on a machine whose `nvidia-smi` is a fake on `PATH` printing what a
//! real one printed (`crates/agent/testdata/nvidia-smi/`, each output's public source in its
//! README), and whose NVML is a stand-in library built from `crates/agent/testdata/nvml/`
//! (these machines have no NVIDIA driver): the GPUs read field by field, NVML first, the rest
//! from this machine, and a driver that does not answer reported, not guessed.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::gpumarket;

/// A fake `nvidia-smi` in `dir` that prints `fixture` and exits `code` when asked the agent's
/// query, and fails loudly on any other arguments.
pub(crate) fn fake_nvidia_smi(dir: &Path, fixture: &str, code: i32) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/agent/testdata/nvidia-smi")
        .join(fixture);
    let script = format!(
        "#!/bin/sh\n\
         [ \"$1\" = \"--query-gpu=index,uuid,name,memory.total,driver_version,pci.bus_id,power.limit,compute_cap\" ] \
         && [ \"$2\" = \"--format=csv,noheader,nounits\" ] || {{ echo \"unexpected arguments: $*\"; exit 2; }}\n\
         cat '{}'\nexit {code}\n",
        fixture.display()
    );
    let path = dir.join("nvidia-smi");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The stand-in NVML library, built into `dir`.
fn fake_nvml(dir: &Path) -> std::path::PathBuf {
    let lib = dir.join("libnvidia-ml.so.1");
    let built = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/agent/testdata/nvml/fake_nvml.c"))
        .arg("-lm")
        .status()
        .unwrap();
    assert!(built.success(), "cc could not build the stand-in NVML");
    lib
}

/// `agent facts` with the fake `nvidia-smi` first on `PATH` and NVML where `dir` says (none
/// unless [`fake_nvml`] built it there): its exit code and JSON.
fn facts(dir: &Path) -> (i32, Value) {
    facts_with(dir, &[])
}

fn facts_with(dir: &Path, env: &[(&str, &str)]) -> (i32, Value) {
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = gpumarket(dir)
        .args(["agent", "facts", "--state-dir"])
        .arg(dir.join("state"))
        .arg("--nvml-lib")
        .arg(dir.join("libnvidia-ml.so.1"))
        .env("PATH", path)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap_or(-1), json)
}

#[test]
fn agent_facts_reads_each_gpu_and_reports_a_driver_that_does_not_answer() {
    for (fixture, gpus, name, memory_mib) in [
        ("h100-sxm.csv", 1, "NVIDIA H100 80GB HBM3", 81559),
        ("a100-mig.csv", 1, "NVIDIA A100-SXM4-80GB", 81920),
        ("rtx3060.csv", 1, "NVIDIA GeForce RTX 3060", 12288),
        ("rtx4090.csv", 2, "NVIDIA GeForce RTX 4090", 24564),
    ] {
        let dir = tempfile::tempdir().unwrap();
        fake_nvidia_smi(dir.path(), fixture, 0);
        let (code, facts) = facts(dir.path());
        assert_eq!(code, 0, "{fixture}: {facts}");
        assert_eq!(facts["gpu_source"], "nvidia-smi");
        assert_eq!(facts["source"], "agent", "the machine's word");
        let listed = facts["gpus"].as_array().unwrap();
        assert_eq!(listed.len(), gpus, "{fixture}: {facts}");
        assert!(
            listed
                .iter()
                .all(|g| g["name"] == name && g["memory_total_mib"] == memory_mib),
            "{fixture}: {facts}"
        );
        // The rest is this machine's own.
        assert!(
            facts["cpu_cores"].as_u64().is_some_and(|c| c >= 1),
            "{facts}"
        );
        assert!(facts["ram_gb"].as_f64().is_some_and(|r| r > 0.0), "{facts}");
        assert!(facts["disk_free_gb"].as_f64().is_some(), "{facts}");
        assert!(
            facts["kernel"].as_str().is_some_and(|k| !k.is_empty()),
            "{facts}"
        );
    }
    let h100 = {
        let dir = tempfile::tempdir().unwrap();
        fake_nvidia_smi(dir.path(), "h100-sxm.csv", 0);
        facts(dir.path()).1
    };
    assert_eq!(
        h100["gpus"][0],
        serde_json::json!({
            "index": 0, "uuid": "GPU-00000000-0000-0000-0000-000000000000",
            "name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559,
            "driver_version": "590.48.01", "pci_bus_id": "00000000:00:09.0",
            "power_limit_w": 700.0, "compute_cap": "9.0",
        })
    );
    // A driver that is not loaded (exit 9) or does not match its library (exit 18): no GPU,
    // exit 1, and the tool's own words.
    for (fixture, code, said) in [
        (
            "driver-not-loaded.txt",
            9,
            "couldn't communicate with the NVIDIA driver",
        ),
        ("driver-mismatch.txt", 18, "Driver/library version mismatch"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        fake_nvidia_smi(dir.path(), fixture, code);
        let (exit, facts) = facts(dir.path());
        assert_eq!(exit, 1, "{facts}");
        assert_eq!(facts["gpu_source"], "none");
        assert!(facts["gpus"].as_array().unwrap().is_empty());
        let error = facts["gpu_error"].as_str().unwrap();
        assert!(
            error.contains(&format!("exit {code}")) && error.contains(said),
            "{error}"
        );
    }
    // Output that is not the query's: a clear error, never a guess.
    let dir = tempfile::tempdir().unwrap();
    fake_nvidia_smi(dir.path(), "README.md", 0);
    let (exit, facts) = facts(dir.path());
    assert_eq!(exit, 1);
    assert!(
        facts["gpu_error"]
            .as_str()
            .is_some_and(|e| e.contains("not what was asked")),
        "{facts}"
    );
}

#[test]
fn agent_facts_asks_nvml_first_and_nvidia_smi_when_nvml_fails() {
    let dir = tempfile::tempdir().unwrap();
    // nvidia-smi would say an RTX 3060: NVML's H100 is what is reported.
    fake_nvidia_smi(dir.path(), "rtx3060.csv", 0);
    fake_nvml(dir.path());
    let (code, facts) = facts(dir.path());
    assert_eq!((code, &facts["gpu_source"]), (0, &"nvml".into()), "{facts}");
    // The same H100 through NVML and through nvidia-smi: the same facts, field by field.
    assert_eq!(
        facts["gpus"],
        serde_json::json!([{
            "index": 0, "uuid": "GPU-00000000-0000-0000-0000-000000000000",
            "name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559,
            "driver_version": "590.48.01", "pci_bus_id": "00000000:00:09.0",
            "power_limit_w": 700.0, "compute_cap": "9.0",
        }])
    );
    let smi = {
        let other = tempfile::tempdir().unwrap();
        fake_nvidia_smi(other.path(), "h100-sxm.csv", 0);
        self::facts(other.path()).1
    };
    assert_eq!(smi["gpus"], facts["gpus"]);
    // Each GPU its own; a limit the GPU does not give is null, as nvidia-smi's `[N/A]`.
    let (_, two) = facts_with(
        dir.path(),
        &[("FAKE_NVML_GPUS", "2"), ("FAKE_NVML_POWER", "0")],
    );
    let gpus = two["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 2, "{two}");
    assert_eq!(gpus[1]["uuid"], "GPU-00000000-0000-0000-0000-000000000001");
    assert_eq!(gpus[1]["pci_bus_id"], "00000000:00:0A.0");
    assert!(gpus.iter().all(|g| g["power_limit_w"].is_null()), "{two}");
    // NVML whose driver is not loaded: nvidia-smi answers.
    let (code, fallen) = facts_with(dir.path(), &[("FAKE_NVML_INIT", "9")]);
    assert_eq!(code, 0, "{fallen}");
    assert_eq!(fallen["gpu_source"], "nvidia-smi");
    assert_eq!(fallen["gpus"][0]["name"], "NVIDIA GeForce RTX 3060");
    // Neither answers: both are said.
    fake_nvidia_smi(dir.path(), "driver-not-loaded.txt", 9);
    let (code, none) = facts_with(dir.path(), &[("FAKE_NVML_INIT", "9")]);
    assert_eq!((code, &none["gpu_source"]), (1, &"none".into()), "{none}");
    let error = none["gpu_error"].as_str().unwrap();
    assert!(
        error.contains("exit 9") && error.contains("NVIDIA driver is not loaded"),
        "{error}"
    );
}

/// `agent health` with NVML where `dir` says and `nvidia_smi` (a script's text) first on
/// `PATH`: its exit code and JSON.
fn health(dir: &Path, nvidia_smi: &str, env: &[(&str, &str)]) -> (i32, Value) {
    let path = dir.join("nvidia-smi");
    std::fs::write(&path, nvidia_smi).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = gpumarket(dir)
        .args(["agent", "health", "--nvml-lib"])
        .arg(dir.join("libnvidia-ml.so.1"))
        .env(
            "PATH",
            format!("{}:{}", dir.display(), std::env::var("PATH").unwrap()),
        )
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code().unwrap_or(-1), json)
}

/// Each GPU's health, as every heartbeat carries it: NVML's (a well GPU and an unwell one:
/// uncorrected ECC errors, thermal slowdown, persistence off, two processes), the same from
/// `nvidia-smi` when NVML fails, and nothing when neither answers.
#[test]
fn agent_health_reads_each_gpu_through_nvml_else_nvidia_smi() {
    let dir = tempfile::tempdir().unwrap();
    fake_nvml(dir.path());
    // In nvidia-smi's documented CSV (`nvidia-smi --help-query-gpu`): a bitmask for the
    // throttle reasons, Enabled/Disabled for persistence, one line per compute process.
    let smi = "#!/bin/sh\n\
        case \"$1\" in\n\
        --query-gpu=uuid,ecc.errors.uncorrected.volatile.total,clocks_throttle_reasons.active,persistence_mode) \
          printf 'GPU-0, 0, 0x0000000000000001, Enabled\\nGPU-1, 3, 0x0000000000000060, Disabled\\n' ;;\n\
        --query-compute-apps=gpu_uuid) printf 'GPU-1\\nGPU-1\\n' ;;\n\
        *) echo \"unexpected arguments: $*\"; exit 2 ;;\n\
        esac\n";
    let well = serde_json::json!({"uuid": "GPU-00000000-0000-0000-0000-000000000000",
        "ecc_errors_uncorrected": 0, "throttle_reasons": ["gpu_idle"],
        "persistence_mode": true, "compute_processes": 0});
    let unwell = |uuid: &str| {
        serde_json::json!({"uuid": uuid, "ecc_errors_uncorrected": 3,
        "throttle_reasons": ["sw_thermal_slowdown", "hw_thermal_slowdown"],
        "persistence_mode": false, "compute_processes": 2})
    };
    let (code, nvml) = health(
        dir.path(),
        smi,
        &[("FAKE_NVML_GPUS", "2"), ("FAKE_NVML_UNWELL", "1")],
    );
    assert_eq!(code, 0, "{nvml}");
    assert_eq!(
        nvml["gpus"],
        serde_json::json!([well, unwell("GPU-00000000-0000-0000-0000-000000000001")])
    );
    let (code, smi_read) = health(dir.path(), smi, &[("FAKE_NVML_INIT", "9")]);
    assert_eq!(code, 0, "{smi_read}");
    assert_eq!(smi_read["gpus"][1], unwell("GPU-1"));
    assert_eq!(smi_read["gpus"][0]["compute_processes"], 0);
    let (code, none) = health(
        dir.path(),
        "#!/bin/sh\necho 'NVIDIA-SMI has failed because it couldn'\\''t communicate with the NVIDIA driver.'\nexit 9\n",
        &[("FAKE_NVML_INIT", "9")],
    );
    assert_eq!((code, &none["gpus"]), (1, &Value::Null), "{none}");
}

/// The demo provider's access token, and a file in `dir` holding a new organisation key of
/// scope `agent` bound to the demo listing.
pub(crate) async fn agent_key(demo: &crate::Demo, dir: &Path) -> (String, std::path::PathBuf) {
    use crate::{http, send_json};
    let client = http();
    let api = format!("{}/v1", demo.base);
    let listing = demo.listing_url.rsplit('/').next().unwrap();
    let provider = send_json(client.post(format!("{api}/auth/login")).json(
        &serde_json::json!({"email": "demo@gpumarket.local", "password": "demo-password-not-secret"}),
    ))
    .await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed: Value = send_json(client.get(&demo.listing_url)).await;
    let org = listed["org_id"].as_str().unwrap();
    let minted: Value = send_json(
        client
            .post(format!("{api}/orgs/{org}/api-keys"))
            .bearer_auth(&provider)
            .json(&serde_json::json!({"name": "the machine", "scopes": ["agent"], "listing_ids": [listing]})),
    )
    .await;
    let key_file = dir.join("agent.key");
    std::fs::write(&key_file, minted["key"].as_str().unwrap()).unwrap();
    (provider, key_file)
}

/// Seconds of the wall clock since 1,700,000,000 at `t_ms` (the fakes' curves are in them).
fn curve_s(t_ms: f64) -> f64 {
    t_ms / 1000.0 - 1_700_000_000.0
}

/// The energy of a draw of `mean + swing · sin(2π t / period)` W over `[from, until]` s, J.
fn sine_energy((mean, swing, period): (f64, f64, f64), from: f64, until: f64) -> f64 {
    let w = std::f64::consts::TAU / period;
    mean * (until - from) + swing / w * ((w * from).cos() - (w * until).cos())
}

fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// `agent power` samples each GPU at 10 Hz through NVML (the stand-in draws a known sine and
/// counts its exact integral): each power reading is the curve's at its time, the energy
/// counter's difference is the curve's energy to 1 %, and a GPU without the counter uploads
/// none — the platform then integrates the power, to 1 % too.
#[test]
fn agent_power_samples_the_gpus_at_10_hz_with_nvml_s_energy_counter() {
    let dir = tempfile::tempdir().unwrap();
    let lib = fake_nvml(dir.path());
    let curve = (150.0, 50.0, 5.0);
    let power = |env: &[(&str, &str)]| -> Value {
        let output = gpumarket(dir.path())
            .args(["agent", "power", "--secs", "1.5", "--nvml-lib"])
            .arg(&lib)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let counted = power(&[]);
    assert_eq!(counted["source"], "nvml", "{counted}");
    let gpu = &counted["gpus"][0];
    assert_eq!(gpu["uuid"], "GPU-00000000-0000-0000-0000-000000000000");
    let (t, watts, counter) = (
        numbers(&gpu["t_ms"]),
        numbers(&gpu["power_w"]),
        numbers(&gpu["energy_mj"]),
    );
    assert!((10..=16).contains(&t.len()), "10 Hz over 1.5 s: {t:?}");
    for (t, w) in t.iter().zip(&watts) {
        let s = curve_s(*t);
        let expected = curve.0 + curve.1 * (std::f64::consts::TAU * s / curve.2).sin();
        assert!(
            (w - expected).abs() < 2.0,
            "{w} W at {s} s, the curve {expected}"
        );
    }
    let (first, last) = (curve_s(t[0]), curve_s(t[t.len() - 1]));
    let expected = sine_energy(curve, first, last);
    let counted_j = (counter[counter.len() - 1] - counter[0]) / 1000.0;
    assert!(
        (counted_j / expected - 1.0).abs() < 0.01,
        "{counted_j} J counted, {expected} J drawn"
    );
    assert_eq!(gpu["sm_clock_mhz"][0], 1980.0);
    assert_eq!(gpu["utilization_pct"][0], 97.0);

    let powered = power(&[("FAKE_NVML_ENERGY", "0")]);
    let gpu: domain::energy::GpuSamples =
        serde_json::from_value(powered["gpus"][0].clone()).unwrap();
    assert_eq!(gpu.energy_mj, None, "{powered}");
    let (from, until) = (gpu.t_ms[0] as f64, gpu.t_ms[gpu.t_ms.len() - 1] as f64);
    let integrated = gpu.energy_j(from, until).unwrap();
    let expected = sine_energy(curve, curve_s(from), curve_s(until));
    assert!(
        (integrated / expected - 1.0).abs() < 0.01,
        "{integrated} J integrated, {expected} J drawn"
    );
}

/// A fake `nvidia-smi` in `dir` for a machine with the RTX 3060 of `rtx3060.csv` whose draw is
/// `120 + 40 sin(2π t / 7)` W at t seconds of the wall clock: its facts, its health (the
/// engine's one process on it), and its samples every 100 ms under `--loop-ms`.
fn fake_nvidia_smi_drawing(dir: &Path) {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/agent/testdata/nvidia-smi/rtx3060.csv");
    let uuid = "GPU-00000000-0000-0000-0000-000000003060";
    let script = format!(
        r#"#!/bin/sh
case "$1" in
--query-gpu=index,uuid,name,memory.total,driver_version,pci.bus_id,power.limit,compute_cap) cat '{fixture}' ;;
--query-gpu=uuid,ecc.errors.uncorrected.volatile.total,clocks_throttle_reasons.active,persistence_mode) echo '{uuid}, 0, 0x0000000000000000, Enabled' ;;
--query-compute-apps=gpu_uuid) echo '{uuid}' ;;
--query-gpu=uuid,power.draw,clocks.sm,temperature.gpu,utilization.gpu)
  [ "$3" = "--loop-ms=100" ] || exit 2
  while :; do
    awk -v t="$(date +%s.%N)" 'BEGIN {{ s = t - 1700000000; x = s - 7 * int(s / 7); printf "{uuid}, %.2f, 1777, 58, 91\n", 120 + 40 * sin(2 * atan2(0, -1) * x / 7) }}'
    sleep 0.1
  done ;;
*) echo "unexpected arguments: $*"; exit 2 ;;
esac
"#,
        fixture = fixture.display(),
    );
    let path = dir.join("nvidia-smi");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Asks for a quick verification of `listing` and waits for its report: its id and signed
/// statement.
async fn verified_run(
    client: &reqwest::Client,
    api: &str,
    listing: &str,
    provider: &str,
    log: &dyn Fn() -> String,
) -> (String, Value) {
    use crate::send_json;
    let asked = client
        .post(format!("{api}/listings/{listing}/verifications"))
        .bearer_auth(provider)
        .json(&serde_json::json!({"profile": "quick"}))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 202, "{:?}", asked.text().await);
    let run: Value = asked.json().await.unwrap();
    let run_id = run["id"].as_str().unwrap().to_owned();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let report_id = loop {
        let run: Value = send_json(
            client
                .get(format!("{api}/verifications/{run_id}"))
                .bearer_auth(provider),
        )
        .await;
        match run["status"].as_str() {
            Some("succeeded") => break run["report_id"].as_str().unwrap().to_owned(),
            Some("failed") => panic!("the run failed: {run}\n{}", log()),
            _ => {}
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the run never ended: {run}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let stored: Value = send_json(client.get(format!("{api}/reports/{report_id}"))).await;
    let payload = crate::base64_decode(stored["envelope"]["payload"].as_str().unwrap());
    (report_id, serde_json::from_slice(&payload).unwrap())
}

/// The whole loop of energy per token: the agent samples its GPU all the time (a fake
/// `nvidia-smi` drawing a known sine), a verification runs, the worker asks for the run's
/// samples only once it measured, the agent uploads them, and every measured cell of the
/// signed report carries its mean power and energy per token — the curve's over the cell's
/// window, to 1 % — with the report's `energy` naming the GPU and its idle power. Search
/// sorts and filters by it.
#[tokio::test]
async fn the_agent_s_gpu_samples_give_each_cell_its_energy_per_token() {
    use crate::{Demo, SHORT_WINDOWS, http, send_json};
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let demo = Demo::start_with(root, SHORT_WINDOWS).await;
    let api = format!("{}/v1", demo.base);
    let listing = demo.listing_url.rsplit('/').next().unwrap().to_owned();
    let client = http();
    let (provider, key_file) = agent_key(&demo, root).await;
    let bin = root.join("bin");
    std::fs::create_dir(&bin).unwrap();
    fake_nvidia_smi_drawing(&bin);
    let _agent = crate::machine::Machine::agent(root, (&demo.base, &listing), &key_file, &[]);
    let log = || std::fs::read_to_string(root.join("agent.log")).unwrap_or_default();
    // Heard, and sampled for a while (the idle power is the 5 s before the run).
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let answer = client
            .get(format!("{api}/listings/{listing}/agent"))
            .bearer_auth(&provider)
            .send()
            .await
            .unwrap();
        if answer.status() == 200 {
            let body: Value = answer.json().await.unwrap();
            if body["presence"]["state"] == "online" {
                break;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the agent never beat
{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // The demo's own first run ends first, whatever it found; then runs are asked for until
    // one is compliant (on a loaded machine a cell may be client-bound, and search holds
    // compliant reports only). By then the agent has sampled well over the idle seconds.
    let reports_url = format!("{api}/listings/{listing}/reports");
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    while send_json(client.get(&reports_url)).await["items"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the demo's run never ended"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let mut attempts = 0;
    let (report_id, statement) = loop {
        attempts += 1;
        let (report_id, statement) = verified_run(&client, &api, &listing, &provider, &log).await;
        if statement["predicate"]["compliance"]["compliant"] == true || attempts == 2 {
            break (report_id, statement);
        }
    };
    assert_eq!(
        statement["predicate"]["compliance"]["compliant"], true,
        "two runs were not compliant: {}",
        statement["predicate"]["compliance"]
    );
    let report = &statement["predicate"];
    let uuid = "GPU-00000000-0000-0000-0000-000000003060";
    assert_eq!(
        report["energy"]["source"],
        "agent",
        "{report}
{}",
        log()
    );
    assert_eq!(report["energy"]["gpus"], serde_json::json!([uuid]));
    assert_eq!(report["energy"]["sampler"], "nvidia-smi");
    let curve = (120.0, 40.0, 7.0);
    let parse = |at: &Value| {
        chrono::DateTime::parse_from_rfc3339(at.as_str().unwrap())
            .unwrap()
            .timestamp_millis() as f64
    };
    // Idle: the 5 s before the run's preflight, which went out just before the harness
    // started (a fraction of a second shifts this mean by a few percent at most).
    let started = curve_s(parse(&report["started_at"]));
    let idle = report["energy"]["idle_power_w"].as_f64().unwrap();
    let expected_idle = sine_energy(curve, started - 5.0, started) / 5.0;
    assert!(
        (idle / expected_idle - 1.0).abs() < 0.08,
        "idle {idle} W, the curve's {expected_idle} W"
    );
    let mut measured = 0;
    for cell in report["decode"].as_array().unwrap() {
        if cell["measured_s"].is_null() {
            assert!(cell["energy_status"].is_null(), "{cell}");
            continue;
        }
        measured += 1;
        assert_eq!(cell["energy_status"], "ok", "{cell}");
        let from = curve_s(parse(&cell["window_started_at"]));
        let seconds = cell["measured_s"].as_f64().unwrap();
        let expected_w = sine_energy(curve, from, from + seconds) / seconds;
        let mean = cell["mean_power_w"].as_f64().unwrap();
        assert!(
            (mean / expected_w - 1.0).abs() < 0.01,
            "{mean} W measured, the curve drew {expected_w} W: {cell}"
        );
        let tokens = cell["output_tokens"].as_f64().unwrap();
        let per_token = cell["energy_j_per_token"].as_f64().unwrap();
        let expected = expected_w * seconds / tokens;
        assert!(
            (per_token / expected - 1.0).abs() < 0.01,
            "{per_token} J per token, the curve gives {expected}: {cell}"
        );
    }
    assert!(measured > 0, "{report}");

    // Search by it: the cheapest energy first, a ceiling below it leaves the listing out.
    let cell = report["decode"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "valid" && c["energy_status"] == "ok" && c["context_tokens"] != 0)
        .expect("a valid cell with its energy");
    let (context, concurrency, per_token) = (
        cell["context_tokens"].as_u64().unwrap(),
        cell["concurrency"].as_u64().unwrap(),
        cell["energy_j_per_token"].as_f64().unwrap(),
    );
    let search = |extra: String| {
        let url = format!(
            "{api}/listings?context={context}&concurrency={concurrency}&sort=j_per_token{extra}"
        );
        let client = client.clone();
        async move { send_json(client.get(url)).await }
    };
    let found = search(String::new()).await;
    assert_eq!(found["items"][0]["id"], listing.as_str(), "{found}");
    let within = search(format!("&max_j_per_token={}", per_token * 1.01)).await;
    assert_eq!(within["items"].as_array().unwrap().len(), 1, "{within}");
    let below = search(format!("&max_j_per_token={}", per_token * 0.99)).await;
    assert!(below["items"].as_array().unwrap().is_empty(), "{below}");

    // Offers at an objective every cell meets, least energy first: the load it serves is
    // the context's highest concurrency, with that cell's energy; a ceiling below leaves it out.
    let context = report["decode"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["context_tokens"].as_u64())
        .max()
        .unwrap();
    let offers = |extra: String| {
        let url = format!(
            "{api}/offers?model=nvidia-nemotron-nano-12b-v2-awq&context={context}&users=1\
             &ttft_p99_ms=600000&itl_p99_ms=600000&sort=j_per_token{extra}"
        );
        let client = client.clone();
        async move { send_json(client.get(url)).await }
    };
    let offered = offers(String::new()).await;
    let goodput = &offered["items"][0]["goodput"];
    let served = report["decode"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["context_tokens"] == goodput["context_tokens"] && c["concurrency"] == goodput["users"]
        })
        .unwrap_or_else(|| panic!("{offered}"));
    assert_eq!(
        goodput["energy_j_per_token"], served["energy_j_per_token"],
        "{offered}"
    );
    let ceiling = served["energy_j_per_token"].as_f64().unwrap() * 0.99;
    let none = offers(format!("&max_j_per_token={ceiling}")).await;
    assert!(none["items"].as_array().unwrap().is_empty(), "{none}");

    // The planner prices the measured power at an electricity price: the cell's energy per
    // token × its tok/s for an hour, and per million tokens.
    let planned: Value = send_json(client.get(format!(
        "{api}/planner?model=nvidia-nemotron-nano-12b-v2-awq&context={context}&users=1\
         &ttft_p99_ms=600000&itl_p99_ms=600000&electricity_per_mwh=20000"
    )))
    .await;
    let row = planned["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["gpu"]["id"] == "rtx-3060-12gb")
        .unwrap_or_else(|| panic!("{planned}"));
    assert_eq!(
        (&row["source"], &row["power_source"]),
        (&json!("measured"), &json!("agent")),
        "{row}"
    );
    let j = row["energy_j_per_token"].as_f64().unwrap();
    let per_mtok = row["energy_cost_per_mtok"].as_f64().unwrap();
    assert!(
        (per_mtok / (j * 1e6 / 3.6e9 * 20_000.0) - 1.0).abs() < 0.001,
        "{row}"
    );
    let per_hour = row["energy_cost_per_hour"].as_f64().unwrap();
    let watts = row["power_w"].as_f64().unwrap();
    assert!(
        (per_hour / (watts / 1e6 * 20_000.0) - 1.0).abs() < 0.001,
        "{row}"
    );

    // The report page shows the power strip, a bar per measured cell.
    let page = client
        .get(format!("{}/reports/{report_id}", demo.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"power-strip\""), "{page}");
    assert_eq!(page.matches("data-power-w=").count(), measured, "{page}");
    assert!(page.contains("source: agent"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_grants_and_ends_access_over_real_sshd() {
    use crate::machine::{
        Machine, SSH_OPTIONS, gpumarket_ssh, key_pair, machine_log, ssh, sshd_runs_here,
    };
    use crate::{Demo, SHORT_WINDOWS, free_port, http, send_json};

    if !sshd_runs_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let demo = Demo::start_with(root, SHORT_WINDOWS).await;
    let api = format!("{}/v1", demo.base);
    let listing = demo.listing_url.rsplit('/').next().unwrap().to_owned();
    let client = http();

    // The demo provider: the machine is reached over SSH on this test's sshd.
    let sshd_port = free_port();
    let (provider, key_file) = agent_key(&demo, root).await;
    let patched = client
        .patch(&demo.listing_url)
        .bearer_auth(&provider)
        .json(&serde_json::json!({"access": {"ssh": {"host": "127.0.0.1", "port": sshd_port, "user": "ubuntu"}}}))
        .send()
        .await
        .unwrap();
    assert!(patched.status().is_success(), "{:?}", patched.text().await);

    // The machine: an RTX 3060 as the listing claims (a fake nvidia-smi), sshd, the agent.
    let bin = root.join("bin");
    std::fs::create_dir(&bin).unwrap();
    fake_nvidia_smi(&bin, "rtx3060.csv", 0);
    for name in ["renter", "stranger"] {
        key_pair(root, name);
    }
    let _machine = Machine::with_sshd(root, sshd_port, (&demo.base, &listing), &key_file, &[]);
    let log = || machine_log(root);

    // The agent reports the machine; it matches the claim; the listing is verified.
    let agent_url = format!("{api}/listings/{listing}/agent");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let reported = loop {
        let answer = client
            .get(&agent_url)
            .bearer_auth(&provider)
            .send()
            .await
            .unwrap();
        if answer.status() == 200 {
            let body: Value = answer.json().await.unwrap();
            if !body["presence"].is_null() {
                break body;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the agent never reported\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert_eq!(reported["hardware"]["matches"], true, "{reported}");
    assert_eq!(reported["presence"]["state"], "online", "{reported}");
    demo.verified_listing().await;

    // A renter with a key books the whole machine from a few seconds on.
    let renter: Value = send_json(client.post(format!("{api}/auth/register")).json(
        &serde_json::json!({"email": "renter@example.com", "password": "a long renter password", "name": "R"}),
    ))
    .await;
    let renter = renter["access_token"].as_str().unwrap().to_owned();
    let added = client
        .post(format!("{api}/me/ssh-keys"))
        .bearer_auth(&renter)
        .json(&serde_json::json!({"name": "laptop", "public_key": std::fs::read_to_string(root.join("renter.pub")).unwrap()}))
        .send()
        .await
        .unwrap();
    assert_eq!(added.status(), 201, "{:?}", added.text().await);
    let starts = chrono::Utc::now() + chrono::Duration::seconds(6);
    let booking: Value = send_json(
        client
            .post(format!("{api}/bookings"))
            .bearer_auth(&renter)
            .header("Idempotency-Key", "agent-whole-life")
            .json(&serde_json::json!({
                "listing_id": listing, "gpu_count": 1,
                "starts_at": starts, "ends_at": starts + chrono::Duration::hours(1),
            })),
    )
    .await;
    let booking_id = booking["id"].as_str().unwrap().to_owned();
    assert_eq!(booking["status"], "confirmed", "{booking}");
    let account = format!("gm-{}", &booking_id.replace('-', "")[20..]);
    let access: Value = send_json(
        client
            .get(format!("{api}/bookings/{booking_id}/access"))
            .bearer_auth(&renter),
    )
    .await;
    assert_eq!(access["ssh"]["user"], account.as_str(), "{access}");
    assert_eq!(access["ssh"]["port"], sshd_port, "{access}");

    // Before the start: the account is made, but no key lets anyone in.
    let passwd = root.join("etc/passwd");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !std::fs::read_to_string(&passwd).unwrap().contains(&account) {
        assert!(
            std::time::Instant::now() < deadline,
            "no account {account}\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        chrono::Utc::now() < starts,
        "the test was too slow to try before the start"
    );
    let renter_key = root.join("renter");
    let (code, said) = ssh(sshd_port, &renter_key, &account, "true");
    assert_eq!(code, 255, "logged in before the start: {said}");

    // During the booking: the renter's key logs in and runs a command; another's does not.
    tokio::time::sleep(
        (starts - chrono::Utc::now()).to_std().unwrap_or_default() + Duration::from_millis(500),
    )
    .await;
    // `gpumarket ssh` logs in as the access says.
    let marker = format!("/tmp/gm-agent-test-{}", std::process::id());
    let out = gpumarket_ssh(
        root,
        (&demo.base, &renter),
        &booking_id,
        &renter_key,
        &format!("touch {marker} && id -un"),
    );
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim()
        ),
        (Some(0), account.as_str()),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        log()
    );
    assert!(Path::new(&marker).exists());
    let (code, said) = ssh(sshd_port, &root.join("stranger"), &account, "true");
    assert_eq!(code, 255, "another's key logged in: {said}");
    // A session left open.
    let mut open = std::process::Command::new("ssh")
        .args([
            "-i",
            renter_key.to_str().unwrap(),
            "-p",
            &sshd_port.to_string(),
        ])
        .args(SSH_OPTIONS)
        .arg(format!("{account}@127.0.0.1"))
        .arg("sleep 600")
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(
        open.try_wait().unwrap().is_none(),
        "the session ended at once"
    );

    // Cancelled: within 5 s no key lets anyone in; the open session ends within the grace;
    // the account, its home and its file in /tmp are gone.
    let cancelled = client
        .post(format!("{api}/bookings/{booking_id}/cancel"))
        .bearer_auth(&renter)
        .send()
        .await
        .unwrap();
    assert!(
        cancelled.status().is_success(),
        "{:?}",
        cancelled.text().await
    );
    let at = std::time::Instant::now();
    loop {
        let (code, _) = ssh(sshd_port, &renter_key, &account, "true");
        if code == 255 {
            break;
        }
        assert!(
            at.elapsed() < Duration::from_secs(5),
            "still let in 5 s after the cancellation\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while open.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the open session outlived the grace\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while std::fs::read_to_string(&passwd).unwrap().contains(&account) {
        assert!(
            std::time::Instant::now() < deadline,
            "the account outlived its booking\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(!Path::new(&marker).exists(), "its file in /tmp stayed");
    assert!(
        !root.join("home").join(&account).exists(),
        "its home stayed"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let beats: Value = send_json(client.get(&agent_url).bearer_auth(&provider)).await;
        if beats["presence"]["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["account"] == account.as_str() && a["state"] == "removed")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no heartbeat said it was removed: {beats}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    // A booking that runs to its end: let in during it, refused after, its account removed.
    let starts = chrono::Utc::now() + chrono::Duration::seconds(3);
    let ends = starts + chrono::Duration::seconds(5);
    let short: Value = send_json(
        client
            .post(format!("{api}/bookings"))
            .bearer_auth(&renter)
            .header("Idempotency-Key", "agent-to-the-end")
            .json(&serde_json::json!({
                "listing_id": listing, "gpu_count": 1, "starts_at": starts, "ends_at": ends,
            })),
    )
    .await;
    assert_eq!(short["status"], "confirmed", "{short}");
    let account = format!(
        "gm-{}",
        &short["id"].as_str().unwrap().replace('-', "")[20..]
    );
    tokio::time::sleep(
        (starts - chrono::Utc::now()).to_std().unwrap_or_default() + Duration::from_millis(500),
    )
    .await;
    let (code, said) = ssh(sshd_port, &renter_key, &account, "true");
    assert_eq!(code, 0, "not let in during the booking: {said}\n{}", log());
    tokio::time::sleep(
        (ends - chrono::Utc::now()).to_std().unwrap_or_default() + Duration::from_millis(200),
    )
    .await;
    let (code, said) = ssh(sshd_port, &renter_key, &account, "true");
    assert_eq!(code, 255, "let in after the end: {said}");
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while std::fs::read_to_string(&passwd).unwrap().contains(&account) {
        assert!(
            std::time::Instant::now() < deadline,
            "the account outlived its booking\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
