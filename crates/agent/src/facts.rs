//! What the machine says it is: its GPUs (through NVML where the driver's library is here,
//! else `nvidia-smi`), CPU, memory, disk, OS and kernel — `gpumarket agent facts` prints them
//! as JSON.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::smi::{Gpu, MAX_OUTPUT, clean};

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
    match crate::smi::gpus(&tools.nvidia_smi).await {
        Ok(gpus) => Ok(("nvidia-smi", gpus)),
        Err(e) => Err(format!("{e} (and {nvml})")),
    }
}

/// Each GPU's health as NVML says, else as `nvidia-smi` says; `None` when neither answers
/// (the heartbeat then says nothing of it).
pub async fn read_health(tools: &GpuTools) -> Option<Vec<crate::smi::GpuHealth>> {
    let nvml = match crate::nvml::health(&tools.nvml).await {
        Ok(health) => return Some(health),
        Err(e) => e,
    };
    match crate::smi::health(&tools.nvidia_smi).await {
        Ok(health) => Some(health),
        Err(e) => {
            tracing::debug!(error = %e, nvml = %nvml, "no GPU health was read");
            None
        }
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
