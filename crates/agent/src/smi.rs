//! One GPU's facts, and reading them through `nvidia-smi` (`--query-gpu`, CSV). Whatever it
//! prints is bounded and checked before it is believed: a line that does not have the fields
//! asked for, a value that does not parse or is too long, too many GPUs, is an error naming
//! what it saw. What NVML reads is held to the same rules ([`checked`]).

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

/// The fields asked of `nvidia-smi`, in order.
pub const QUERY_FIELDS: [&str; 8] = [
    "index",
    "uuid",
    "name",
    "memory.total",
    "driver_version",
    "pci.bus_id",
    "power.limit",
    "compute_cap",
];

/// The most GPUs one machine reports.
pub const MAX_GPUS: usize = 64;
/// The longest value read from a tool.
const MAX_FIELD: usize = 128;
/// The most a tool may print before it is not read.
pub(crate) const MAX_OUTPUT: usize = 64 * 1024;
/// How long a tool may take.
const TOOL_TIMEOUT: Duration = Duration::from_secs(10);

/// One GPU, as NVML or `nvidia-smi` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gpu {
    pub index: u32,
    pub uuid: String,
    pub name: String,
    /// `memory.total`, MiB.
    pub memory_total_mib: u64,
    pub driver_version: String,
    pub pci_bus_id: String,
    /// `power.limit`, W; `None` where the GPU does not say (`[N/A]`).
    pub power_limit_w: Option<f64>,
    /// `compute_cap` (`9.0`); `None` where the driver does not say.
    pub compute_cap: Option<String>,
}

/// What went wrong reading a tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FactsError {
    #[error("{tool} was not found")]
    Missing { tool: String },
    #[error("{tool} failed ({}): {said}", code.map_or_else(|| "no exit code".to_owned(), |c| format!("exit {c}")))]
    Failed {
        tool: String,
        code: Option<i32>,
        said: String,
    },
    #[error("NVML ({library}) failed: {said}")]
    Nvml { library: String, said: String },
    #[error("{tool} did not answer within {secs} s")]
    TimedOut { tool: String, secs: u64 },
    #[error("{tool}'s output is not what was asked: {why}")]
    Unparseable { tool: String, why: String },
}

/// A value a tool printed, trimmed, printable and bounded.
pub(crate) fn clean(value: &str) -> Result<&str, String> {
    let value = value.trim();
    if value.chars().count() > MAX_FIELD {
        return Err(format!("a value is longer than {MAX_FIELD} characters"));
    }
    if value.chars().any(char::is_control) {
        return Err("a value holds control characters".to_owned());
    }
    Ok(value)
}

/// `[N/A]`, `[Not Supported]` and the like: a value the GPU does not give.
fn unavailable(value: &str) -> bool {
    value.starts_with('[') && value.ends_with(']')
}

/// The first line of what a tool said, clipped, for an error.
fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut clipped: String = line.chars().filter(|c| !c.is_control()).take(200).collect();
    if line.chars().count() > 200 {
        clipped.push('…');
    }
    clipped
}

/// A GPU read through NVML, held to what `nvidia-smi`'s values are held to: every text
/// present, bounded and printable.
pub(crate) fn checked(gpu: Gpu) -> Result<Gpu, String> {
    for (field, value) in [
        ("uuid", &gpu.uuid),
        ("name", &gpu.name),
        ("driver_version", &gpu.driver_version),
        ("pci.bus_id", &gpu.pci_bus_id),
    ] {
        if clean(value)?.is_empty() {
            return Err(format!("{field} is missing"));
        }
    }
    Ok(gpu)
}

/// Parses `nvidia-smi --query-gpu=<QUERY_FIELDS> --format=csv,noheader,nounits`.
pub fn parse_query_gpu(output: &str) -> Result<Vec<Gpu>, String> {
    let mut gpus = Vec::new();
    for line in output.lines().filter(|l| !l.trim().is_empty()) {
        if gpus.len() == MAX_GPUS {
            return Err(format!("more than {MAX_GPUS} GPUs"));
        }
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != QUERY_FIELDS.len() {
            return Err(format!(
                "a line of {} fields where {} were asked: {:?}",
                fields.len(),
                QUERY_FIELDS.len(),
                first_line(line)
            ));
        }
        let f: Vec<&str> = fields.into_iter().map(clean).collect::<Result<_, _>>()?;
        let required = |i: usize| -> Result<&str, String> {
            if f[i].is_empty() || unavailable(f[i]) {
                Err(format!("{} is missing ({:?})", QUERY_FIELDS[i], f[i]))
            } else {
                Ok(f[i])
            }
        };
        let number = |i: usize| -> Result<u64, String> {
            required(i)?
                .parse()
                .map_err(|_| format!("{} is not a whole number: {:?}", QUERY_FIELDS[i], f[i]))
        };
        let index = u32::try_from(number(0)?).map_err(|_| "index is too large".to_owned())?;
        let power_limit_w = match f[6] {
            v if unavailable(v) || v.is_empty() => None,
            v => Some(
                v.parse::<f64>()
                    .ok()
                    .filter(|w| w.is_finite() && *w >= 0.0)
                    .ok_or_else(|| format!("power.limit is not a number of watts: {v:?}"))?,
            ),
        };
        let compute_cap = match f[7] {
            v if unavailable(v) || v.is_empty() => None,
            v if v.split('.').count() == 2
                && v.split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())) =>
            {
                Some(v.to_owned())
            }
            v => return Err(format!("compute_cap is not major.minor: {v:?}")),
        };
        gpus.push(Gpu {
            index,
            uuid: required(1)?.to_owned(),
            name: required(2)?.to_owned(),
            memory_total_mib: number(3)?,
            driver_version: required(4)?.to_owned(),
            pci_bus_id: required(5)?.to_owned(),
            power_limit_w,
            compute_cap,
        });
    }
    if gpus.is_empty() {
        return Err("no GPU listed".to_owned());
    }
    Ok(gpus)
}

/// Runs `tool args…` within the timeout; its standard output when it exits 0.
async fn run_tool(tool: &Path, args: &[&str]) -> Result<String, FactsError> {
    let name = tool.display().to_string();
    let child = tokio::process::Command::new(tool)
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = match tokio::time::timeout(TOOL_TIMEOUT, child).await {
        Err(_) => {
            return Err(FactsError::TimedOut {
                tool: name,
                secs: TOOL_TIMEOUT.as_secs(),
            });
        }
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(FactsError::Missing { tool: name });
        }
        Ok(Err(e)) => {
            return Err(FactsError::Failed {
                tool: name,
                code: None,
                said: e.to_string(),
            });
        }
        Ok(Ok(output)) => output,
    };
    let stdout =
        String::from_utf8_lossy(&output.stdout[..output.stdout.len().min(MAX_OUTPUT)]).into_owned();
    if !output.status.success() {
        // nvidia-smi prints its failures on standard output (a driver not loaded: exit 9;
        // NVML's version mismatch: exit 18).
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = first_line(if stdout.trim().is_empty() {
            &stderr
        } else {
            &stdout
        });
        return Err(FactsError::Failed {
            tool: name,
            code: output.status.code(),
            said,
        });
    }
    Ok(stdout)
}

/// The GPUs `nvidia_smi` reports.
pub async fn gpus(nvidia_smi: &Path) -> Result<Vec<Gpu>, FactsError> {
    let query = format!("--query-gpu={}", QUERY_FIELDS.join(","));
    let output = run_tool(nvidia_smi, &[&query, "--format=csv,noheader,nounits"]).await?;
    parse_query_gpu(&output).map_err(|why| FactsError::Unparseable {
        tool: nvidia_smi.display().to_string(),
        why,
    })
}

/// The health fields asked of `nvidia-smi`, in order.
pub const HEALTH_FIELDS: [&str; 4] = [
    "uuid",
    "ecc.errors.uncorrected.volatile.total",
    "clocks_throttle_reasons.active",
    "persistence_mode",
];

/// The throttle reasons by their bit (NVML's `nvmlClocksThrottleReason*`, the bitmask
/// `nvidia-smi` prints as `clocks_throttle_reasons.active`).
const THROTTLE_REASONS: [(u64, &str); 9] = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
];

/// The names of the reasons set in `bits` (bits of no known reason are left out).
pub fn throttle_reasons(bits: u64) -> Vec<&'static str> {
    THROTTLE_REASONS
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| *name)
        .collect()
}

/// One GPU's health: what would make a measurement of it wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuHealth {
    pub uuid: String,
    /// Uncorrected ECC errors since the driver loaded (`None`: no ECC on this GPU).
    pub ecc_errors_uncorrected: Option<u64>,
    /// Why its clocks are held down now.
    pub throttle_reasons: Vec<&'static str>,
    pub persistence_mode: Option<bool>,
    /// Compute processes running on it.
    pub compute_processes: Option<u32>,
}

/// Parses `nvidia-smi --query-gpu=<HEALTH_FIELDS> --format=csv,noheader,nounits` and
/// `--query-compute-apps=gpu_uuid --format=csv,noheader` (one line per process).
pub fn parse_health(gpus: &str, apps: &str) -> Result<Vec<GpuHealth>, String> {
    let mut health = Vec::new();
    for (n, line) in gpus.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        if n >= MAX_GPUS {
            return Err(format!("more than {MAX_GPUS} GPUs"));
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [uuid, ecc, reasons, persistence] = fields[..] else {
            return Err(format!(
                "a line has {} fields, not the {} asked for: {}",
                fields.len(),
                HEALTH_FIELDS.len(),
                first_line(line)
            ));
        };
        let uuid = clean(uuid)?;
        if uuid.is_empty() || unavailable(uuid) {
            return Err("a GPU has no uuid".to_owned());
        }
        let ecc_errors_uncorrected = match clean(ecc)? {
            v if unavailable(v) => None,
            v => Some(v.parse::<u64>().map_err(|_| {
                format!(
                    "ecc.errors.uncorrected.volatile.total is not a count: {}",
                    first_line(v)
                )
            })?),
        };
        let throttle_reasons = match clean(reasons)? {
            v if unavailable(v) => Vec::new(),
            v => throttle_reasons(u64::from_str_radix(v.trim_start_matches("0x"), 16).map_err(
                |_| {
                    format!(
                        "clocks_throttle_reasons.active is not a bitmask: {}",
                        first_line(v)
                    )
                },
            )?),
        };
        let persistence_mode = match clean(persistence)? {
            "Enabled" => Some(true),
            "Disabled" => Some(false),
            v if unavailable(v) => None,
            v => return Err(format!("persistence_mode is {}", first_line(v))),
        };
        health.push(GpuHealth {
            uuid: uuid.to_owned(),
            ecc_errors_uncorrected,
            throttle_reasons,
            persistence_mode,
            compute_processes: None,
        });
    }
    for line in apps.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(gpu) = health.iter_mut().find(|g| g.uuid == line) {
            let n = gpu.compute_processes.unwrap_or(0);
            gpu.compute_processes = Some(n.saturating_add(1));
        }
    }
    for gpu in &mut health {
        gpu.compute_processes.get_or_insert(0);
    }
    Ok(health)
}

/// Each GPU's health as `nvidia_smi` says.
pub async fn health(nvidia_smi: &Path) -> Result<Vec<GpuHealth>, FactsError> {
    let query = format!("--query-gpu={}", HEALTH_FIELDS.join(","));
    let gpus = run_tool(nvidia_smi, &[&query, "--format=csv,noheader,nounits"]).await?;
    let apps = run_tool(
        nvidia_smi,
        &["--query-compute-apps=gpu_uuid", "--format=csv,noheader"],
    )
    .await?;
    parse_health(&gpus, &apps).map_err(|why| FactsError::Unparseable {
        tool: nvidia_smi.display().to_string(),
        why,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/testdata/nvidia-smi/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn real_outputs_are_read_field_by_field() {
        let h100 = parse_query_gpu(&fixture("h100-sxm.csv")).unwrap();
        assert_eq!(
            h100,
            [Gpu {
                index: 0,
                uuid: "GPU-00000000-0000-0000-0000-000000000000".into(),
                name: "NVIDIA H100 80GB HBM3".into(),
                memory_total_mib: 81559,
                driver_version: "590.48.01".into(),
                pci_bus_id: "00000000:00:09.0".into(),
                power_limit_w: Some(700.0),
                compute_cap: Some("9.0".into()),
            }]
        );
        let a100 = parse_query_gpu(&fixture("a100-mig.csv")).unwrap();
        assert_eq!(
            (a100.len(), a100[0].name.as_str(), a100[0].memory_total_mib),
            (1, "NVIDIA A100-SXM4-80GB", 81920),
            "MIG on: the parent GPU's row, the whole card's memory"
        );
        let rtx3060 = parse_query_gpu(&fixture("rtx3060.csv")).unwrap();
        assert_eq!(rtx3060[0].pci_bus_id, "00000001:01:00.0");
        assert_eq!(rtx3060[0].power_limit_w, Some(170.0));
        let rtx4090 = parse_query_gpu(&fixture("rtx4090.csv")).unwrap();
        assert_eq!(rtx4090.iter().map(|g| g.index).collect::<Vec<_>>(), [0, 1]);
        assert!(rtx4090.iter().all(|g| g.memory_total_mib == 24564));
    }

    #[test]
    fn what_a_gpu_does_not_give_is_none_and_anything_else_odd_is_an_error() {
        let line = "0, GPU-1, NVIDIA T4, 15360, 535.1, 00000000:00:04.0, [N/A], [N/A]\n";
        let gpu = &parse_query_gpu(line).unwrap()[0];
        assert_eq!(
            (gpu.power_limit_w, gpu.compute_cap.as_deref()),
            (None, None)
        );
        for (text, why) in [
            ("", "no GPU listed"),
            ("0, GPU-1, NVIDIA T4, 15360\n", "4 fields where 8"),
            (
                "0, GPU-1, NVIDIA T4, lots, 535.1, 0:4.0, 70.00, 7.5\n",
                "memory.total is not a whole number",
            ),
            (
                "0, [N/A], NVIDIA T4, 15360, 535.1, 0:4.0, 70.00, 7.5\n",
                "uuid is missing",
            ),
            (
                "0, GPU-1, NVIDIA T4, 15360, 535.1, 0:4.0, -5, 7.5\n",
                "power.limit is not a number",
            ),
            (
                "0, GPU-1, NVIDIA T4, 15360, 535.1, 0:4.0, 70.00, seven\n",
                "compute_cap is not major.minor",
            ),
            (&fixture("driver-not-loaded.txt"), "1 fields where 8"),
        ] {
            let error = parse_query_gpu(text).unwrap_err();
            assert!(error.contains(why), "{text:?}: {error}");
        }
        let long = format!(
            "0, GPU-1, {}, 15360, 535.1, 0:4.0, 70.00, 7.5\n",
            "N".repeat(200)
        );
        assert!(parse_query_gpu(&long).unwrap_err().contains("longer than"));
        let many: String = (0..65)
            .map(|i| format!("{i}, GPU-{i}, NVIDIA T4, 15360, 535.1, 0:{i}.0, 70.00, 7.5\n"))
            .collect();
        assert!(parse_query_gpu(&many).unwrap_err().contains("more than 64"));
    }

    #[test]
    fn health_is_read_field_by_field_and_processes_counted_per_gpu() {
        let gpus = "GPU-a, 0, 0x0000000000000001, Enabled\nGPU-b, 2, 0x0000000000000060, Disabled\nGPU-c, [N/A], [N/A], [N/A]\n";
        let apps = "GPU-b\nGPU-b\nGPU-a\nGPU-gone\n";
        let health = parse_health(gpus, apps).unwrap();
        assert_eq!(
            health[0],
            GpuHealth {
                uuid: "GPU-a".into(),
                ecc_errors_uncorrected: Some(0),
                throttle_reasons: vec!["gpu_idle"],
                persistence_mode: Some(true),
                compute_processes: Some(1),
            }
        );
        assert_eq!(health[1].ecc_errors_uncorrected, Some(2));
        assert_eq!(
            health[1].throttle_reasons,
            ["sw_thermal_slowdown", "hw_thermal_slowdown"]
        );
        assert_eq!(health[1].compute_processes, Some(2));
        assert_eq!(
            (health[2].ecc_errors_uncorrected, health[2].persistence_mode),
            (None, None)
        );
        assert_eq!(health[2].compute_processes, Some(0));
        for (bad, why) in [
            ("GPU-a, 0, 0x1\n", "fields"),
            ("GPU-a, lots, 0x1, Enabled\n", "not a count"),
            ("GPU-a, 0, zz, Enabled\n", "not a bitmask"),
            ("GPU-a, 0, 0x1, Maybe\n", "persistence_mode"),
        ] {
            let error = parse_health(bad, "").unwrap_err();
            assert!(error.contains(why), "{bad:?}: {error}");
        }
    }
}
