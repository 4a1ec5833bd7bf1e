//! What the machine says it is: its GPUs (through NVML where the driver's library is here,
//! else `nvidia-smi`), CPU, memory, disk, OS and kernel — `gpumarket agent facts` prints them
//! as JSON. Whatever a tool prints is bounded and checked before it is believed: a line that
//! does not have the fields asked for, a value that does not parse or is too long, too many
//! GPUs, is an error naming what it saw.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
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
const MAX_OUTPUT: usize = 64 * 1024;
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

/// The machine, as it reports itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineFacts {
    /// Where the GPUs were read from: `nvml`, `nvidia-smi`, or `none` when neither answered.
    pub gpu_source: &'static str,
    pub gpus: Vec<Gpu>,
    /// Why no GPU was read, when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_error: Option<String>,
    pub cpu_model: Option<String>,
    pub cpu_cores: Option<u32>,
    /// `MemTotal`, GiB.
    pub ram_gb: Option<f64>,
    /// Free space of the file system holding the agent's state, GiB.
    pub disk_free_gb: Option<f64>,
    /// `/etc/os-release`'s `PRETTY_NAME`.
    pub os: Option<String>,
    pub kernel: Option<String>,
    /// Always `agent`: these are the machine's word, not an attestation.
    pub source: &'static str,
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
fn clean(value: &str) -> Result<&str, String> {
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

/// `/proc/cpuinfo`'s first `model name`, and its processors.
pub fn parse_cpuinfo(text: &str) -> (Option<String>, Option<u32>) {
    let model = text
        .lines()
        .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
        .and_then(|(_, v)| clean(v).ok().map(str::to_owned));
    let cores = text.lines().filter(|l| l.starts_with("processor")).count();
    (model, u32::try_from(cores).ok().filter(|c| *c > 0))
}

/// `/proc/meminfo`'s `MemTotal`, GiB.
pub fn parse_meminfo(text: &str) -> Option<f64> {
    let kib: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(round2(kib / (1024.0 * 1024.0)))
}

/// `/etc/os-release`'s `PRETTY_NAME`.
pub fn parse_os_release(text: &str) -> Option<String> {
    let value = text.lines().find_map(|l| l.strip_prefix("PRETTY_NAME="))?;
    clean(value.trim_matches('"')).ok().map(str::to_owned)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn read(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.chars().take(MAX_OUTPUT).collect())
}

/// Free space of the file system holding `dir`, GiB.
fn disk_free_gb(dir: &Path) -> Option<f64> {
    let stat = rustix::fs::statvfs(dir).ok()?;
    Some(round2(
        (stat.f_bavail as f64) * (stat.f_frsize as f64) / (1024.0 * 1024.0 * 1024.0),
    ))
}

/// Where the GPUs are read from: NVML first, `nvidia-smi` when NVML is not there or fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuTools {
    /// The NVML library (`libnvidia-ml.so.1`: the dynamic loader finds the driver's).
    pub nvml: OsString,
    pub nvidia_smi: PathBuf,
}

impl Default for GpuTools {
    fn default() -> Self {
        Self {
            nvml: "libnvidia-ml.so.1".into(),
            nvidia_smi: "nvidia-smi".into(),
        }
    }
}

/// The GPUs as NVML says, else as `nvidia-smi` says: where they came from, or why neither
/// answered (both said, NVML's last).
async fn read_gpus(tools: &GpuTools) -> Result<(&'static str, Vec<Gpu>), String> {
    let nvml = match crate::nvml::gpus(&tools.nvml).await {
        Ok(gpus) => return Ok(("nvml", gpus)),
        Err(e) => e,
    };
    match gpus(&tools.nvidia_smi).await {
        Ok(gpus) => Ok(("nvidia-smi", gpus)),
        Err(e) => Err(format!("{e} (and {nvml})")),
    }
}

/// Everything the machine says of itself: GPUs through `tools`, the rest from `/proc`, `/etc`
/// and the file system of `state_dir`.
pub async fn read_facts(tools: &GpuTools, state_dir: &Path) -> MachineFacts {
    let (gpu_source, gpus, gpu_error) = match read_gpus(tools).await {
        Ok((source, gpus)) => (source, gpus, None),
        Err(e) => ("none", Vec::new(), Some(e)),
    };
    let (cpu_model, cpu_cores) = read("/proc/cpuinfo")
        .map(|t| parse_cpuinfo(&t))
        .unwrap_or_default();
    MachineFacts {
        gpu_source,
        gpus,
        gpu_error,
        cpu_model,
        cpu_cores,
        ram_gb: read("/proc/meminfo").and_then(|t| parse_meminfo(&t)),
        disk_free_gb: disk_free_gb(state_dir),
        os: read("/etc/os-release").and_then(|t| parse_os_release(&t)),
        kernel: read("/proc/sys/kernel/osrelease").and_then(|t| clean(&t).ok().map(str::to_owned)),
        source: "agent",
    }
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
    fn proc_and_etc_are_read() {
        let cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(
            parse_cpuinfo(cpuinfo),
            (Some("AMD EPYC 7B13".to_owned()), Some(2))
        );
        assert_eq!(
            parse_meminfo("MemTotal:       25165824 kB\nMemFree: 1 kB\n"),
            Some(24.0)
        );
        assert_eq!(
            parse_os_release(
                "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n"
            )
            .as_deref(),
            Some("Debian GNU/Linux 13 (trixie)")
        );
    }
}
