//! GPU energy per token: the samples a provider's agent uploads after a run (each GPU's power
//! draw, and NVML's total-energy counter where the GPU has one), checked before they are
//! believed, and the figures a report cell gets from them — the energy its GPUs drew over the
//! cell's measuring window, per generated token, judged plausible against the GPU's power
//! limit and board power. What the agent uploads is the machine's word (`source: agent`).
//!
//! It is GPU energy only: not the CPU, fans or power-supply losses.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// How long the agent keeps samples: 10 minutes.
pub const RING_SECS: u64 = 600;
/// How often it samples: 10 Hz.
pub const SAMPLE_EVERY_MS: u64 = 100;
/// The most samples one GPU's upload holds (10 minutes at 10 Hz, and some slack).
pub const MAX_SAMPLES: usize = 6_100;
/// No GPU draws this much: a value above it is not a reading.
pub const MAX_POWER_W: f64 = 5_000.0;
/// A window's ends may lie this far beyond the samples (the nearest sample's power held).
const EDGE_MS: f64 = 500.0;
/// Samples further apart than this inside a window leave it unmeasured.
const MAX_GAP_MS: f64 = 2_000.0;
/// Above the agent-reported power limit by more than this fraction is implausible.
pub const OVER_LIMIT: f64 = 1.05;
/// Above the catalog's board power by this factor is implausible.
pub const OVER_BOARD: f64 = 1.5;
/// Below this fraction of the board power while tokens flow is implausible.
pub const UNDER_BOARD: f64 = 0.05;

/// One GPU's samples, in columns (one entry per sample in each), times by the agent's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSamples {
    pub uuid: String,
    /// When each sample was read, milliseconds since the Unix epoch, strictly increasing.
    pub t_ms: Vec<i64>,
    /// Power draw, W.
    pub power_w: Vec<f64>,
    /// NVML's total-energy counter (mJ since the driver loaded), where the GPU has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_mj: Option<Vec<f64>>,
    /// SM clock, MHz (`null` where not read).
    #[serde(default)]
    pub sm_clock_mhz: Vec<Option<f64>>,
    /// Temperature, °C.
    #[serde(default)]
    pub temperature_c: Vec<Option<f64>>,
    /// Utilisation, percent.
    #[serde(default)]
    pub utilization_pct: Vec<Option<f64>>,
    /// The most compute processes seen on it over the samples (`null`: not known).
    #[serde(default)]
    pub compute_processes: Option<u32>,
}

/// What an agent uploads for a run: its GPUs' samples around the windows asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Telemetry {
    pub run_id: Uuid,
    /// `nvml` or `nvidia-smi`: what the samples were read through.
    pub source: String,
    pub gpus: Vec<GpuSamples>,
}

/// The sources an agent samples through.
pub const SOURCES: [&str; 2] = ["nvml", "nvidia-smi"];

impl Telemetry {
    /// Checks an upload: a known source, at most `max_gpus` distinct GPUs, each with equal
    /// columns of at most [`MAX_SAMPLES`], strictly increasing times, and every value finite
    /// and in its range. The error names what is wrong.
    pub fn check(&self, max_gpus: usize) -> Result<(), String> {
        if !SOURCES.contains(&self.source.as_str()) {
            return Err(format!("source must be one of {}", SOURCES.join(", ")));
        }
        if self.gpus.len() > max_gpus {
            return Err(format!("more than {max_gpus} GPUs"));
        }
        let mut seen = std::collections::HashSet::new();
        for (i, gpu) in self.gpus.iter().enumerate() {
            gpu.check().map_err(|why| format!("gpus[{i}]: {why}"))?;
            if !seen.insert(gpu.uuid.as_str()) {
                return Err(format!("gpus[{i}]: uuid appears twice"));
            }
        }
        Ok(())
    }
}

fn in_range(values: impl IntoIterator<Item = f64>, max: f64) -> bool {
    values
        .into_iter()
        .all(|v| v.is_finite() && (0.0..=max).contains(&v))
}

impl GpuSamples {
    fn check(&self) -> Result<(), String> {
        if !crate::agent::valid_gpu_uuid(&self.uuid) {
            return Err("uuid is not a GPU's (letters, digits and '-', at most 64)".into());
        }
        let n = self.t_ms.len();
        if n > MAX_SAMPLES {
            return Err(format!("more than {MAX_SAMPLES} samples"));
        }
        let same = |len: usize| len == n;
        let optional_ok = |column: &[Option<f64>], max: f64| {
            (column.is_empty() || same(column.len()))
                && in_range(column.iter().flatten().copied(), max)
        };
        if !same(self.power_w.len()) {
            return Err("power_w must have one value per sample".into());
        }
        if !self.t_ms.windows(2).all(|w| w[0] < w[1]) {
            return Err("t_ms must increase strictly".into());
        }
        if !in_range(self.power_w.iter().copied(), MAX_POWER_W) {
            return Err(format!("power_w must be within 0 and {MAX_POWER_W} W"));
        }
        if let Some(energy) = &self.energy_mj
            && (!same(energy.len()) || !in_range(energy.iter().copied(), f64::MAX))
        {
            return Err("energy_mj must have one non-negative value per sample".into());
        }
        if !optional_ok(&self.sm_clock_mhz, 10_000.0) {
            return Err("sm_clock_mhz must have one value per sample, within 0 and 10000".into());
        }
        if !optional_ok(&self.temperature_c, 200.0) {
            return Err("temperature_c must have one value per sample, within 0 and 200".into());
        }
        if !optional_ok(&self.utilization_pct, 100.0) {
            return Err("utilization_pct must have one value per sample, within 0 and 100".into());
        }
        Ok(())
    }

    /// Whether the samples cover `[from, until]` (ms, the agent's clock): its ends within
    /// [`EDGE_MS`] of a sample and no gap longer than [`MAX_GAP_MS`] inside it.
    fn covers(&self, from: f64, until: f64) -> bool {
        let (Some(&first), Some(&last)) = (self.t_ms.first(), self.t_ms.last()) else {
            return false;
        };
        if first as f64 > from + EDGE_MS || (last as f64) < until - EDGE_MS {
            return false;
        }
        self.t_ms
            .windows(2)
            .filter(|w| (w[1] as f64) > from && (w[0] as f64) < until)
            .all(|w| ((w[1] - w[0]) as f64) <= MAX_GAP_MS)
    }

    /// The energy drawn over `[from, until]` (ms, the agent's clock), J: from the energy
    /// counter where it has one that never goes back, else the power draw integrated (linear
    /// between samples; beyond the first or last sample its power held). `None` when the
    /// samples do not cover the window.
    pub fn energy_j(&self, from: f64, until: f64) -> Option<f64> {
        if until <= from || !self.covers(from, until) {
            return None;
        }
        if let Some(counter) = &self.energy_mj
            && counter.windows(2).all(|w| w[0] <= w[1])
        {
            let at = |x: f64| self.counter_at(counter, x);
            return Some((at(until) - at(from)) / 1000.0);
        }
        Some(self.integral_to(until) - self.integral_to(from))
    }

    /// The counter (mJ) at `x`: interpolated between samples, extended by the power held.
    fn counter_at(&self, counter: &[f64], x: f64) -> f64 {
        let t = &self.t_ms;
        let (first, last) = (t[0] as f64, t[t.len() - 1] as f64);
        if x <= first {
            return counter[0] - self.power_w[0] * (first - x);
        }
        if x >= last {
            return counter[t.len() - 1] + self.power_w[t.len() - 1] * (x - last);
        }
        let i = t.partition_point(|&s| (s as f64) <= x) - 1;
        let (t0, t1) = (t[i] as f64, t[i + 1] as f64);
        counter[i] + (counter[i + 1] - counter[i]) * (x - t0) / (t1 - t0)
    }

    /// ∫ power dt from the first sample (less the held edge) to `x`, J.
    fn integral_to(&self, x: f64) -> f64 {
        let (t, p) = (&self.t_ms, &self.power_w);
        let first = t[0] as f64;
        // Everything is measured from a point before any window: the first sample less the edge.
        let origin = first - EDGE_MS;
        let mut joules = p[0] * (x.min(first) - origin).max(0.0) / 1000.0;
        for i in 1..t.len() {
            let (t0, t1) = (t[i - 1] as f64, t[i] as f64);
            if x <= t0 {
                return joules;
            }
            let end = x.min(t1);
            let p_end = p[i - 1] + (p[i] - p[i - 1]) * (end - t0) / (t1 - t0);
            joules += (p[i - 1] + p_end) / 2.0 * (end - t0) / 1000.0;
        }
        let last = t[t.len() - 1] as f64;
        joules + p[t.len() - 1] * (x - last).max(0.0) / 1000.0
    }
}

/// Whether a cell's energy figure can be believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnergyStatus {
    Ok,
    /// A GPU drew more than its power limit or board allows, or almost nothing while tokens
    /// flowed: the samples are not believed, and no energy per token is given.
    ImplausiblePower,
    /// No samples covered the window (no agent, nothing uploaded, or a gap).
    Unavailable,
}

impl EnergyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::ImplausiblePower => "implausible_power",
            Self::Unavailable => "unavailable",
        }
    }
}

/// A decode cell's energy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellEnergy {
    /// The GPUs' mean power over the window, summed over them, W.
    pub mean_power_w: Option<f64>,
    /// Their energy over the window ÷ the window's generated tokens, J (only when `ok`).
    pub energy_j_per_token: Option<f64>,
    pub status: EnergyStatus,
}

impl CellEnergy {
    pub const UNAVAILABLE: Self = Self {
        mean_power_w: None,
        energy_j_per_token: None,
        status: EnergyStatus::Unavailable,
    };
}

/// What a GPU's power is judged against: the limit its agent reported, and its board power
/// from the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PowerBounds {
    pub power_limit_w: Option<f64>,
    pub board_power_w: Option<f64>,
}

impl PowerBounds {
    /// Whether a mean draw of `watts` is implausible for this GPU (`busy`: tokens flowed).
    pub fn implausible(&self, watts: f64, busy: bool) -> bool {
        let over_limit = self.power_limit_w.is_some_and(|l| watts > l * OVER_LIMIT);
        let over_board = self.board_power_w.is_some_and(|b| watts > b * OVER_BOARD);
        let under = busy && self.board_power_w.is_some_and(|b| watts < b * UNDER_BOARD);
        over_limit || over_board || under
    }
}

/// The GPUs an engine's energy is counted over: those that ran a compute process while
/// sampled; when none is known to have (a driver that hides processes), every GPU uploaded —
/// counting too many GPUs can only raise the figure, never flatter it.
pub fn engine_gpus(telemetry: &Telemetry) -> Vec<&GpuSamples> {
    let busy: Vec<&GpuSamples> = telemetry
        .gpus
        .iter()
        .filter(|g| g.compute_processes.is_some_and(|n| n > 0))
        .collect();
    if busy.is_empty() {
        telemetry.gpus.iter().collect()
    } else {
        busy
    }
}

/// A decode cell's energy over `[from, until]` (ms, the agent's clock) in which `tokens`
/// were generated, from `gpus` each judged by `bounds(uuid)`.
pub fn cell_energy(
    gpus: &[&GpuSamples],
    (from, until): (f64, f64),
    tokens: u64,
    bounds: impl Fn(&str) -> PowerBounds,
) -> CellEnergy {
    if gpus.is_empty() || until <= from {
        return CellEnergy::UNAVAILABLE;
    }
    let seconds = (until - from) / 1000.0;
    let mut joules = 0.0;
    let mut implausible = false;
    for gpu in gpus {
        let Some(energy) = gpu.energy_j(from, until) else {
            return CellEnergy::UNAVAILABLE;
        };
        implausible |= bounds(&gpu.uuid).implausible(energy / seconds, tokens > 0);
        joules += energy;
    }
    let status = if implausible {
        EnergyStatus::ImplausiblePower
    } else {
        EnergyStatus::Ok
    };
    CellEnergy {
        mean_power_w: Some(round_sig(joules / seconds, 5)),
        energy_j_per_token: (status == EnergyStatus::Ok && tokens > 0)
            .then(|| round_sig(joules / tokens as f64, 5)),
        status,
    }
}

/// The GPUs' summed mean power over `[from, until]` (ms, the agent's clock), W; `None` when
/// any GPU's samples do not cover it.
pub fn mean_power_w(gpus: &[&GpuSamples], (from, until): (f64, f64)) -> Option<f64> {
    if gpus.is_empty() || until <= from {
        return None;
    }
    let joules: Option<f64> = gpus.iter().map(|g| g.energy_j(from, until)).sum();
    Some(round_sig(joules? / ((until - from) / 1000.0), 5))
}

/// An electricity price as asked (`electricity_per_mwh`, minor units per MWh): 1 to 10⁸.
pub fn electricity_price(raw: Option<i64>) -> Result<Option<i64>, crate::ValidationError> {
    match raw {
        Some(price) if !(1..=100_000_000).contains(&price) => Err(crate::ValidationError::new(
            "electricity_per_mwh",
            "must be a price in minor units per MWh, from 1 to 100000000",
        )),
        other => Ok(other),
    }
}

/// Joules in a megawatt-hour.
const J_PER_MWH: f64 = 3.6e9;

/// What drawing `power_w` for an hour costs at `per_mwh` (minor units per MWh), minor units.
pub fn energy_cost_per_hour(power_w: f64, per_mwh: i64) -> f64 {
    round_sig(power_w * 3600.0 / J_PER_MWH * per_mwh as f64, 4)
}

/// What a million tokens at `j_per_token` cost at `per_mwh` (minor units per MWh), minor
/// units.
pub fn energy_cost_per_mtok(j_per_token: f64, per_mwh: i64) -> f64 {
    round_sig(j_per_token * 1e6 / J_PER_MWH * per_mwh as f64, 4)
}

/// `x` to `digits` significant digits.
pub fn round_sig(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GPU sampled every 100 ms from `t0` for `n` samples at `power(t)`.
    fn sampled(n: usize, power: impl Fn(f64) -> f64, counter: bool) -> GpuSamples {
        let t_ms: Vec<i64> = (0..n as i64).map(|i| 1_000_000 + i * 100).collect();
        let power_w: Vec<f64> = t_ms.iter().map(|&t| power(t as f64)).collect();
        let energy_mj = counter.then(|| {
            // The exact integral of a linear draw, in mJ: W × ms.
            let mut e = 5.0e9;
            let mut out = vec![e];
            for w in t_ms.windows(2) {
                e += (power(w[0] as f64) + power(w[1] as f64)) / 2.0 * (w[1] - w[0]) as f64;
                out.push(e);
            }
            out
        });
        GpuSamples {
            uuid: "GPU-0".into(),
            t_ms,
            power_w,
            energy_mj,
            sm_clock_mhz: Vec::new(),
            temperature_c: Vec::new(),
            utilization_pct: Vec::new(),
            compute_processes: Some(1),
        }
    }

    #[test]
    fn energy_is_the_counter_s_difference_else_the_power_integrated() {
        let ramp = |t: f64| 100.0 + (t - 1_000_000.0) / 100.0; // +1 W per sample
        for counter in [false, true] {
            let gpu = sampled(101, ramp, counter);
            // From 1 s to 6 s after the first sample: the mean draw is ramp at 3.5 s = 135 W.
            let (from, until) = (1_001_000.0, 1_006_000.0);
            let joules = gpu.energy_j(from, until).unwrap();
            assert!((joules - 135.0 * 5.0).abs() < 1e-6, "{counter}: {joules}");
            // Between samples, and past the last by less than the edge: the last power held.
            let past = gpu.energy_j(1_009_950.0, 1_010_300.0).unwrap();
            assert!((past - 0.35 * 200.0).abs() < 0.3, "{counter}: {past}");
        }
    }

    #[test]
    fn a_window_the_samples_do_not_cover_has_no_energy() {
        let gpu = sampled(50, |_| 200.0, false);
        assert_eq!(gpu.energy_j(1_000_000.0 - 600.0, 1_001_000.0), None);
        assert_eq!(gpu.energy_j(1_004_000.0, 1_004_900.0 + 600.0), None);
        let mut gappy = gpu.clone();
        gappy.t_ms.drain(10..35);
        gappy.power_w.drain(10..35);
        assert_eq!(gappy.energy_j(1_000_500.0, 1_004_000.0), None);
        assert!(gappy.energy_j(1_003_600.0, 1_004_500.0).is_some());
    }

    #[test]
    fn implausible_draws_are_named_and_give_no_energy_per_token() {
        let gpu = sampled(100, |_| 300.0, false);
        let window = (1_001_000.0, 1_005_000.0);
        let bounds = |limit, board| {
            move |_: &str| PowerBounds {
                power_limit_w: limit,
                board_power_w: board,
            }
        };
        let ok = cell_energy(&[&gpu], window, 1_000, bounds(Some(350.0), Some(350.0)));
        assert_eq!(ok.status, EnergyStatus::Ok);
        assert_eq!(ok.mean_power_w, Some(300.0));
        assert_eq!(ok.energy_j_per_token, Some(1.2));
        // Over the limit × 1.05, over the board × 1.5, under 5 % of the board while busy.
        for (limit, board) in [
            (Some(280.0), None),
            (None, Some(190.0)),
            (None, Some(7_000.0)),
        ] {
            let judged = cell_energy(&[&gpu], window, 1_000, bounds(limit, board));
            assert_eq!(
                judged.status,
                EnergyStatus::ImplausiblePower,
                "{limit:?} {board:?}"
            );
            assert_eq!(judged.energy_j_per_token, None);
            assert_eq!(judged.mean_power_w, Some(300.0));
        }
        // Under 5 % with no tokens flowing is an idle GPU, not a lie.
        let idle = cell_energy(&[&gpu], window, 0, bounds(None, Some(7_000.0)));
        assert_eq!(idle.status, EnergyStatus::Ok);
        let two = cell_energy(&[&gpu, &gpu], window, 1_000, bounds(None, None));
        assert_eq!(two.mean_power_w, Some(600.0));
        assert_eq!(two.energy_j_per_token, Some(2.4));
    }

    #[test]
    fn uploads_are_checked_before_they_are_believed() {
        let good = Telemetry {
            run_id: Uuid::nil(),
            source: "nvidia-smi".into(),
            gpus: vec![sampled(10, |_| 100.0, true)],
        };
        assert_eq!(good.check(8), Ok(()));
        let broken = |edit: &dyn Fn(&mut Telemetry)| {
            let mut t = good.clone();
            edit(&mut t);
            t.check(8).unwrap_err()
        };
        assert!(broken(&|t| t.source = "ipmi".into()).contains("source"));
        assert!(broken(&|t| t.gpus[0].power_w[3] = f64::NAN).contains("power_w"));
        assert!(broken(&|t| t.gpus[0].power_w[3] = 9_000.0).contains("power_w"));
        assert!(broken(&|t| t.gpus[0].power_w.pop().map(drop).unwrap()).contains("power_w"));
        assert!(broken(&|t| t.gpus[0].t_ms[4] = t.gpus[0].t_ms[3]).contains("t_ms"));
        assert!(broken(&|t| t.gpus[0].uuid = "GPU 0\n".into()).contains("uuid"));
        assert!(broken(&|t| t.gpus.push(t.gpus[0].clone())).contains("twice"));
        assert!(
            broken(&|t| t.gpus[0].utilization_pct = vec![Some(140.0); 10]).contains("utilization")
        );
        assert!(broken(&|t| t.gpus[0].energy_mj = Some(vec![1.0])).contains("energy_mj"));
        assert_eq!(good.check(0).unwrap_err(), "more than 0 GPUs");
    }

    #[test]
    fn the_engine_s_gpus_are_those_with_processes_else_all() {
        let mut t = Telemetry {
            run_id: Uuid::nil(),
            source: "nvml".into(),
            gpus: vec![sampled(3, |_| 1.0, false), sampled(3, |_| 1.0, false)],
        };
        t.gpus[1].uuid = "GPU-1".into();
        t.gpus[1].compute_processes = Some(0);
        assert_eq!(engine_gpus(&t).len(), 1);
        t.gpus[0].compute_processes = None;
        assert_eq!(engine_gpus(&t).len(), 2);
        assert_eq!(round_sig(0.000_123_456, 3), 0.000_123);
        assert_eq!(round_sig(123_456.0, 2), 120_000.0);
    }

    #[test]
    fn energy_is_priced_per_hour_and_per_million_tokens() {
        // 700 W for an hour is 0.7 MWh... of a thousandth: 0.0007 MWh at 15,000 cents/MWh.
        assert_eq!(energy_cost_per_hour(700.0, 15_000), 10.5);
        // 0.36 J a token: a million tokens are 0.1 kWh, 0.0001 MWh.
        assert_eq!(energy_cost_per_mtok(0.36, 15_000), 1.5);
    }
}
