//! `gpumarket agent facts` on a machine whose `nvidia-smi` is a fake on `PATH` printing what a
//! real one printed (`crates/agent/testdata/nvidia-smi/`, each output's public source in its
//! README): the GPUs read field by field, the rest from this machine, and a driver that does
//! not answer reported, not guessed.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use crate::gpumarket;

/// A fake `nvidia-smi` in `dir` that prints `fixture` and exits `code` when asked the agent's
/// query, and fails loudly on any other arguments.
fn fake_nvidia_smi(dir: &Path, fixture: &str, code: i32) {
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

/// `agent facts` with the fake first on `PATH`: its exit code and JSON.
fn facts(dir: &Path) -> (i32, Value) {
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = gpumarket(dir)
        .args(["agent", "facts", "--state-dir"])
        .arg(dir.join("state"))
        .env("PATH", path)
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
