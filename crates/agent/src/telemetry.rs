//! The GPUs' telemetry: each GPU sampled all the time at 10 Hz into a ring buffer of the last
//! ten minutes — power draw, NVML's total-energy counter where the GPU has one, SM clock,
//! temperature and utilisation — through NVML on a thread of its own, else through one
//! long-running `nvidia-smi --loop-ms=100`. The server asks for a run's window only once the
//! run has measured (so a starting check is not visible here), and the agent uploads what the
//! ring holds of it. Each line `nvidia-smi` prints is bounded and checked like its other
//! output; a sample that does not parse is dropped, never guessed.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::energy::{GpuSamples, MAX_SAMPLES, RING_SECS, SAMPLE_EVERY_MS, Telemetry};

use crate::desired::Desired;
use crate::facts::GpuTools;
use crate::smi::{MAX_GPUS, clean};

/// The fields `nvidia-smi` is asked for each sample, in order.
pub const SAMPLE_FIELDS: [&str; 5] = [
    "uuid",
    "power.draw",
    "clocks.sm",
    "temperature.gpu",
    "utilization.gpu",
];
/// The longest line a sample may take.
const MAX_LINE: u64 = 512;
/// How long a failed sampler waits before it starts again.
const RESTART: Duration = Duration::from_secs(5);
/// How far around a window compute-process counts are looked for (health is read every 15 s).
const PROCESSES_AROUND_MS: i64 = 20_000;

/// One reading of one GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Milliseconds since the Unix epoch, this machine's clock.
    pub t_ms: i64,
    pub power_w: f64,
    pub energy_mj: Option<f64>,
    pub sm_clock_mhz: Option<f64>,
    pub temperature_c: Option<f64>,
    pub utilization_pct: Option<f64>,
}

/// The last ten minutes of each GPU's samples, and its compute-process counts as the health
/// readings saw them.
#[derive(Debug, Default)]
pub struct Ring {
    /// `nvml` or `nvidia-smi`: what the samples are read through now.
    source: &'static str,
    gpus: BTreeMap<String, VecDeque<Sample>>,
    processes: BTreeMap<String, VecDeque<(i64, u32)>>,
}

/// The ring, shared by the sampler, the health reader and the uploads.
pub type SharedRing = Arc<Mutex<Ring>>;

/// How many samples the ring keeps per GPU.
const CAPACITY: usize = (RING_SECS * 1000 / SAMPLE_EVERY_MS) as usize;

impl Ring {
    /// Keeps `sample` of GPU `uuid` (read through `source`), forgetting what is older than
    /// the ring's ten minutes; a GPU beyond the most one machine reports is not kept.
    pub fn push(&mut self, source: &'static str, uuid: &str, sample: Sample) {
        self.source = source;
        if !self.gpus.contains_key(uuid) && self.gpus.len() >= MAX_GPUS {
            return;
        }
        let samples = self.gpus.entry(uuid.to_owned()).or_default();
        // Times only move forward: a clock stepped back restarts the GPU's samples.
        if samples.back().is_some_and(|last| last.t_ms >= sample.t_ms) {
            samples.clear();
        }
        samples.push_back(sample);
        while samples.len() > CAPACITY {
            samples.pop_front();
        }
    }

    /// Notes that GPU `uuid` ran `count` compute processes at `t_ms`.
    pub fn note_processes(&mut self, uuid: &str, t_ms: i64, count: u32) {
        if !self.processes.contains_key(uuid) && self.processes.len() >= MAX_GPUS {
            return;
        }
        let seen = self.processes.entry(uuid.to_owned()).or_default();
        seen.push_back((t_ms, count));
        while seen
            .front()
            .is_some_and(|(t, _)| t_ms - t > (RING_SECS * 1000) as i64)
        {
            seen.pop_front();
        }
    }

    /// What the ring holds of `[from_ms, until_ms]` (this machine's clock), as an upload for
    /// `run_id`: at most [`MAX_SAMPLES`] per GPU (the latest), the energy counter only where
    /// every sample has it.
    pub fn window(&self, run_id: uuid::Uuid, from_ms: i64, until_ms: i64) -> Telemetry {
        let gpus = self
            .gpus
            .iter()
            .map(|(uuid, samples)| {
                let inside: Vec<&Sample> = samples
                    .iter()
                    .filter(|s| (from_ms..=until_ms).contains(&s.t_ms))
                    .collect();
                let inside = &inside[inside.len().saturating_sub(MAX_SAMPLES)..];
                let energy_mj: Option<Vec<f64>> = inside.iter().map(|s| s.energy_mj).collect();
                let compute_processes = self.processes.get(uuid).and_then(|seen| {
                    seen.iter()
                        .filter(|(t, _)| {
                            (from_ms - PROCESSES_AROUND_MS..=until_ms + PROCESSES_AROUND_MS)
                                .contains(t)
                        })
                        .map(|(_, n)| *n)
                        .max()
                });
                GpuSamples {
                    uuid: uuid.clone(),
                    t_ms: inside.iter().map(|s| s.t_ms).collect(),
                    power_w: inside.iter().map(|s| s.power_w).collect(),
                    energy_mj: energy_mj.filter(|e| !e.is_empty()),
                    sm_clock_mhz: inside.iter().map(|s| s.sm_clock_mhz).collect(),
                    temperature_c: inside.iter().map(|s| s.temperature_c).collect(),
                    utilization_pct: inside.iter().map(|s| s.utilization_pct).collect(),
                    compute_processes,
                }
            })
            .filter(|g| !g.t_ms.is_empty())
            .collect();
        Telemetry {
            run_id,
            source: self.source.to_owned(),
            gpus,
        }
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// One line of `nvidia-smi --query-gpu=<SAMPLE_FIELDS> --format=csv,noheader,nounits`: the
/// GPU's UUID and its reading (without a time). A GPU that does not give its power draw
/// (`[N/A]`) gives no sample.
pub fn parse_sample_line(line: &str) -> Result<(String, Sample), String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields.len() != SAMPLE_FIELDS.len() {
        return Err(format!(
            "{} fields where {} were asked",
            fields.len(),
            SAMPLE_FIELDS.len()
        ));
    }
    let uuid = clean(fields[0])?;
    if uuid.is_empty() || !uuid.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Err("a uuid that is not one".to_owned());
    }
    let number = |i: usize, max: f64| -> Result<Option<f64>, String> {
        let value = clean(fields[i])?;
        if value.starts_with('[') {
            return Ok(None);
        }
        let parsed: f64 = value
            .parse()
            .map_err(|_| format!("{} is not a number: {value:?}", SAMPLE_FIELDS[i]))?;
        if !parsed.is_finite() || !(0.0..=max).contains(&parsed) {
            return Err(format!("{} out of range: {parsed}", SAMPLE_FIELDS[i]));
        }
        Ok(Some(parsed))
    };
    let power_w = number(1, domain::energy::MAX_POWER_W)?
        .ok_or_else(|| "the GPU does not give its power draw".to_owned())?;
    Ok((
        uuid.to_owned(),
        Sample {
            t_ms: 0,
            power_w,
            energy_mj: None,
            sm_clock_mhz: number(2, 10_000.0)?,
            temperature_c: number(3, 200.0)?,
            utilization_pct: number(4, 100.0)?,
        },
    ))
}

/// Samples through one `nvidia-smi --loop-ms` for as long as it runs; why it stopped.
async fn sample_with_nvidia_smi(tool: &PathBuf, ring: &SharedRing) -> String {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let query = format!("--query-gpu={}", SAMPLE_FIELDS.join(","));
    let child = tokio::process::Command::new(tool)
        .args([
            query.as_str(),
            "--format=csv,noheader,nounits",
            &format!("--loop-ms={SAMPLE_EVERY_MS}"),
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return format!("{} could not start: {e}", tool.display()),
    };
    let Some(stdout) = child.stdout.take() else {
        return "no output".to_owned();
    };
    let mut reader = tokio::io::BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) => return format!("{} stopped", tool.display()),
            Err(e) => return format!("reading {}: {e}", tool.display()),
            Ok(_) if line.last() != Some(&b'\n') => {
                return format!(
                    "{} printed a line longer than {MAX_LINE} bytes",
                    tool.display()
                );
            }
            Ok(_) => {}
        }
        let t_ms = now_ms();
        match parse_sample_line(String::from_utf8_lossy(&line).trim_end()) {
            Ok((uuid, sample)) => ring.lock().unwrap_or_else(|e| e.into_inner()).push(
                "nvidia-smi",
                &uuid,
                Sample { t_ms, ..sample },
            ),
            Err(why) => tracing::debug!(why, "a sample line was dropped"),
        }
    }
}

/// Samples through NVML loaded from `lib` on a thread of its own, for ever; `Err` when NVML
/// does not load (then `nvidia-smi` samples). A call that hangs in the driver holds this one
/// thread, never the agent.
fn sample_with_nvml(lib: std::ffi::OsString, ring: SharedRing) -> Result<(), String> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("gpu-sampler".into())
        .spawn(move || {
            let nvml = match nvml_wrapper::Nvml::builder().lib_path(&lib).init() {
                Ok(nvml) => nvml,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return;
                }
            };
            let count = match nvml.device_count() {
                Ok(n) if n > 0 && n as usize <= MAX_GPUS => n,
                Ok(n) => {
                    let _ = ready_tx.send(Err(format!("{n} GPUs listed")));
                    return;
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            sample_for_ever(&nvml, count, &ring);
        })
        .map_err(|e| e.to_string())?;
    ready_rx
        .recv_timeout(Duration::from_secs(10))
        .map_err(|_| "NVML did not answer within 10 s".to_owned())?
}

/// Samples each of NVML's `count` GPUs every [`domain::energy::SAMPLE_EVERY_MS`] into
/// `ring`, for ever (on the sampler's own thread): power draw (mW → W), the total-energy
/// counter (mJ) where the GPU has one, SM clock, temperature and utilisation. A reading that
/// fails is skipped; a value out of its range drops the sample.
fn sample_for_ever(nvml: &nvml_wrapper::Nvml, count: u32, ring: &SharedRing) {
    use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
    let devices: Vec<_> = (0..count)
        .filter_map(|i| {
            let device = nvml.device_by_index(i).ok()?;
            let uuid = device.uuid().ok()?;
            crate::smi::clean(&uuid).ok()?;
            Some((device, uuid))
        })
        .collect();
    let mut counter = vec![true; devices.len()];
    let every = Duration::from_millis(SAMPLE_EVERY_MS);
    let mut next = std::time::Instant::now();
    loop {
        for (i, (device, uuid)) in devices.iter().enumerate() {
            let Ok(milliwatts) = device.power_usage() else {
                continue;
            };
            let energy_mj = if counter[i] {
                match device.total_energy_consumption() {
                    Ok(mj) => Some(mj as f64),
                    Err(nvml_wrapper::error::NvmlError::NotSupported) => {
                        counter[i] = false;
                        None
                    }
                    Err(_) => None,
                }
            } else {
                None
            };
            let sample = Sample {
                t_ms: chrono::Utc::now().timestamp_millis(),
                power_w: f64::from(milliwatts) / 1000.0,
                energy_mj,
                sm_clock_mhz: device.clock_info(Clock::SM).ok().map(f64::from),
                temperature_c: device
                    .temperature(TemperatureSensor::Gpu)
                    .ok()
                    .map(f64::from),
                utilization_pct: device.utilization_rates().ok().map(|u| f64::from(u.gpu)),
            };
            let in_range = sample.power_w <= domain::energy::MAX_POWER_W
                && sample.sm_clock_mhz.is_none_or(|c| c <= 10_000.0)
                && sample.temperature_c.is_none_or(|c| c <= 200.0)
                && sample.utilization_pct.is_none_or(|u| u <= 100.0);
            if in_range {
                ring.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push("nvml", uuid, sample);
            }
        }
        next += every;
        let now = std::time::Instant::now();
        match next.checked_duration_since(now) {
            Some(wait) => std::thread::sleep(wait),
            None => next = now,
        }
    }
}

/// Samples the GPUs for ever into `ring`: through NVML where it loads, else `nvidia-smi`
/// (started again whenever it stops).
pub async fn sample(tools: GpuTools, ring: SharedRing) {
    let nvml = {
        let (lib, ring) = (tools.nvml.clone(), ring.clone());
        tokio::task::spawn_blocking(move || sample_with_nvml(lib, ring)).await
    };
    match nvml {
        Ok(Ok(())) => return,
        Ok(Err(e)) => tracing::debug!(error = e, "NVML does not sample: nvidia-smi does"),
        Err(e) => tracing::debug!(error = %e, "NVML does not sample: nvidia-smi does"),
    }
    loop {
        let why = sample_with_nvidia_smi(&tools.nvidia_smi, &ring).await;
        tracing::debug!(why, "the GPU sampler stopped; it starts again");
        tokio::time::sleep(RESTART).await;
    }
}

/// Reads `secs` seconds of samples and answers them as an upload would carry them.
pub async fn read_for(tools: GpuTools, secs: f64) -> Telemetry {
    let ring = SharedRing::default();
    let from = now_ms();
    let sampler = tokio::spawn(sample(tools, ring.clone()));
    tokio::time::sleep(Duration::from_secs_f64(secs)).await;
    sampler.abort();
    let until = now_ms();
    let ring = ring.lock().unwrap_or_else(|e| e.into_inner());
    ring.window(uuid::Uuid::nil(), from, until)
}

/// What became of an upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uploaded {
    /// Kept (or kept already), or no longer asked for: done with this run.
    Done,
    /// The window has not ended here yet (by this machine's clock): try again later.
    NotYet,
}

/// Uploads what the ring holds of `wanted`'s window to `url` (the listing's
/// `agent/telemetry`), its times moved to this machine's clock by `offset_secs` (the server's
/// clock less this one's) and widened by a second each side.
pub async fn upload(
    http: &reqwest::Client,
    (url, key): (&str, &str),
    ring: &SharedRing,
    wanted: &crate::desired::WantedTelemetry,
    offset_secs: i64,
) -> Result<Uploaded, String> {
    let run_id: uuid::Uuid = wanted
        .run_id
        .parse()
        .map_err(|_| "a run id that is not one")?;
    let local = |at: chrono::DateTime<chrono::Utc>, margin: i64| {
        (at - chrono::Duration::seconds(offset_secs)).timestamp_millis() + margin
    };
    let (from, until) = (local(wanted.from, -1000), local(wanted.until, 1000));
    if now_ms() < until {
        return Ok(Uploaded::NotYet);
    }
    let body = ring
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .window(run_id, from, until);
    if body.gpus.is_empty() {
        // Nothing sampled (no GPU read here): nothing to say, and another agent of the
        // listing may have the samples.
        tracing::info!(run = %run_id, "no GPU samples of the run's window here");
        return Ok(Uploaded::Done);
    }
    let answer = http
        .post(url)
        .bearer_auth(key)
        .timeout(Duration::from_secs(60))
        .json(&body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    match answer.status().as_u16() {
        200..=299 | 404 => Ok(Uploaded::Done),
        status => Err(format!("the server answered {status}")),
    }
}

/// The runs whose samples are being uploaded or were, and how often each failed.
#[derive(Debug, Default)]
pub(crate) struct Uploads {
    done: std::collections::HashSet<String>,
    busy: std::collections::HashSet<String>,
    failures: HashMap<String, u32>,
}

/// The most times one run's upload is tried.
const MAX_UPLOAD_TRIES: u32 = 5;

/// Starts the uploads `desired` asks for that are neither done nor under way; each reports
/// back on `done` when it ends.
pub(crate) fn start_uploads(
    desired: &Desired,
    uploads: &mut Uploads,
    (http, url, key): (&reqwest::Client, &str, &str),
    ring: &SharedRing,
    offset_secs: i64,
    done: &tokio::sync::mpsc::UnboundedSender<(String, Result<Uploaded, String>)>,
) {
    for wanted in &desired.telemetry_wanted {
        let id = &wanted.run_id;
        if uploads.done.contains(id) || uploads.busy.contains(id) {
            continue;
        }
        uploads.busy.insert(id.clone());
        let (http, url, key, ring, wanted, done) = (
            http.clone(),
            url.to_owned(),
            key.to_owned(),
            ring.clone(),
            wanted.clone(),
            done.clone(),
        );
        tokio::spawn(async move {
            let outcome = upload(&http, (&url, &key), &ring, &wanted, offset_secs).await;
            let _ = done.send((wanted.run_id, outcome));
        });
    }
}

impl Uploads {
    /// What an upload's end says of its run.
    pub(crate) fn ended(&mut self, run: String, outcome: Result<Uploaded, String>) {
        self.busy.remove(&run);
        match outcome {
            Ok(Uploaded::Done) => {
                tracing::info!(run, "GPU samples uploaded");
                self.done.insert(run);
            }
            Ok(Uploaded::NotYet) => {}
            Err(e) => {
                let tries = self.failures.entry(run.clone()).or_default();
                *tries += 1;
                tracing::warn!(run, error = e, tries = *tries, "GPU samples not uploaded");
                if *tries >= MAX_UPLOAD_TRIES {
                    self.done.insert(run);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_lines_are_read_field_by_field() {
        let (uuid, sample) =
            parse_sample_line("GPU-a1b2c3d4-0000-0000-0000-000000000000, 312.45, 1980, 61, 97")
                .unwrap();
        assert_eq!(uuid, "GPU-a1b2c3d4-0000-0000-0000-000000000000");
        assert_eq!(sample.power_w, 312.45);
        assert_eq!(sample.sm_clock_mhz, Some(1980.0));
        assert_eq!(sample.temperature_c, Some(61.0));
        assert_eq!(sample.utilization_pct, Some(97.0));
        let partial = parse_sample_line("GPU-1, 80.10, [N/A], 40, [Not Supported]").unwrap();
        assert_eq!(
            (partial.1.sm_clock_mhz, partial.1.utilization_pct),
            (None, None)
        );
        for bad in [
            "GPU-1, [N/A], 1980, 61, 97",
            "GPU-1, 312.45, 1980, 61",
            "GPU-1, 9000, 1980, 61, 97",
            "GPU-1, -3, 1980, 61, 97",
            "GPU-1, 300, 1980, 61, 140",
            "GPU 1, 300, 1980, 61, 40",
            "GPU-1, lots, 1980, 61, 40",
        ] {
            assert!(parse_sample_line(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_ring_keeps_ten_minutes_and_answers_a_window() {
        let mut ring = Ring::default();
        let sample = |t_ms, power_w| Sample {
            t_ms,
            power_w,
            energy_mj: Some(t_ms as f64),
            sm_clock_mhz: None,
            temperature_c: None,
            utilization_pct: Some(50.0),
        };
        for i in 0..(CAPACITY as i64 + 100) {
            ring.push("nvml", "GPU-1", sample(i * 100, 100.0));
        }
        assert_eq!(ring.gpus["GPU-1"].len(), CAPACITY);
        ring.note_processes("GPU-1", 600_000, 2);
        let upload = ring.window(uuid::Uuid::nil(), 600_000, 601_000);
        assert_eq!(upload.source, "nvml");
        let gpu = &upload.gpus[0];
        assert_eq!(gpu.t_ms.len(), 11);
        assert_eq!(gpu.energy_mj.as_ref().map(Vec::len), Some(11));
        assert_eq!(gpu.compute_processes, Some(2));
        assert_eq!(upload.check(MAX_GPUS), Ok(()));
        // Older than ten minutes: gone. A clock stepped back starts the GPU again.
        assert!(ring.window(uuid::Uuid::nil(), 0, 5_000).gpus.is_empty());
        ring.push("nvml", "GPU-1", sample(1_000, 1.0));
        assert_eq!(ring.gpus["GPU-1"].len(), 1);
    }
}
