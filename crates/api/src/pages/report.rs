//! A report laid out like the reference page: the title and run line, the hardware, engine
//! and run blocks, the prefill table, the decode matrix (rows are contexts, columns are
//! simultaneous requests) and every measurement. One layout for verified reports and
//! community runs; figures are formatted here, once, so the template only places them.

use app::trust::reports::model::{
    DecodeCell, PrefillEntry, PrefillMode, Report, Status, WindowRule,
};

use std::collections::HashMap;

use super::format::{context_label, count, ms, number, rate};

/// Most cells a decode matrix shows (the standard's is 5 × 8).
const MAX_MATRIX_CELLS: usize = 32 * 32;
use super::i18n::Labels;

/// A block of label/value rows (hardware, engine, run).
pub type Rows = Vec<(&'static str, String)>;

/// What the report template shows of one report.
#[derive(Debug)]
pub struct ReportBody {
    /// "vllm · 0.32.0 · 3 contexts (0–16K) × 4 concurrency levels (1–32) · prefill at 8K".
    pub run_line: String,
    pub hardware: Rows,
    pub engine: Rows,
    pub run: Rows,
    pub prefill: Vec<PrefillRow>,
    pub levels: Vec<u64>,
    pub matrix: Vec<MatrixRow>,
    pub measurements: Vec<MeasurementRow>,
    /// The GPU power strip, when the report carries energy figures.
    pub power: Option<PowerBlock>,
    pub compliant: bool,
    pub partial: bool,
    /// Reasons of non-compliance, as the report states them.
    pub reasons: Vec<String>,
}

/// The decode cells' GPU power: a strip of bars, and each cell's figures.
#[derive(Debug)]
pub struct PowerBlock {
    pub svg: String,
    /// "1 GPU · 64.2 W idle before the run", from the report's `energy`.
    pub note: String,
    pub rows: Vec<PowerRow>,
}

#[derive(Debug)]
pub struct PowerRow {
    pub context_label: String,
    pub concurrency: u64,
    pub watts: String,
    pub j_per_token: String,
    pub status: &'static str,
    pub status_words: &'static str,
}

#[derive(Debug)]
pub struct PrefillRow {
    pub context: u64,
    pub context_label: String,
    pub status: &'static str,
    pub status_words: &'static str,
    pub rate: String,
    pub ttft: String,
}

#[derive(Debug)]
pub struct MatrixRow {
    pub context: u64,
    pub context_label: String,
    /// One per level; `None` where the run has no such cell (a partial run).
    pub cells: Vec<Option<MatrixCell>>,
}

/// One cell of the decode matrix. `status` is the report's name for it (`valid`, ...), the
/// class the colours key on; `total` is empty when the cell has no figure.
#[derive(Debug)]
pub struct MatrixCell {
    pub context: u64,
    pub concurrency: u64,
    pub status: &'static str,
    pub status_words: &'static str,
    /// Shown beside the figure unless the cell is valid.
    pub flagged: bool,
    pub total: String,
    pub ttft: String,
}

#[derive(Debug)]
pub struct MeasurementRow {
    pub phase: &'static str,
    pub context_label: String,
    pub concurrency: u64,
    pub status: &'static str,
    pub status_words: &'static str,
    pub total: String,
    pub per_request: String,
    pub ttft: String,
    pub tbt: String,
    pub active: String,
    pub completed: String,
    pub output: String,
    pub measured_for: String,
}

/// The report's name of a status (the JSON's), and the page's words for it.
pub fn status_names(status: Status, l: &Labels) -> (&'static str, &'static str) {
    match status {
        Status::Valid => ("valid", l.status_valid),
        Status::RequestsQueued => ("requests_queued", l.status_requests_queued),
        Status::OverCapacity => ("over_capacity", l.status_over_capacity),
        Status::Invalid => ("invalid", l.status_invalid),
        Status::ClientBound => ("client_bound", l.status_client_bound),
    }
}

/// Contexts or levels in ascending order, each once.
fn distinct(values: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut out: Vec<u64> = values.collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn span(values: &[u64], label: fn(u64) -> String) -> String {
    match (values.first(), values.last()) {
        (Some(a), Some(b)) if a != b => format!("{}–{}", label(*a), label(*b)),
        (Some(a), _) => label(*a),
        _ => String::new(),
    }
}

/// A figure the cell has only when it ran (valid, queued, client bound with figures).
fn has_figures(status: Status) -> bool {
    !matches!(status, Status::OverCapacity | Status::Invalid)
}

impl ReportBody {
    /// `hardware` holds the blocks' first rows (the claim, or the catalog GPU of a community
    /// run); the rest comes from the report itself.
    pub fn of(report: &Report, hardware: Rows, l: &'static Labels) -> Self {
        let contexts = distinct(report.decode.iter().map(|c| c.context_tokens));
        let levels = distinct(report.decode.iter().map(|c| c.concurrency));
        let prefill_contexts: Vec<String> = report
            .prefill
            .iter()
            .map(|e| context_label(e.context_tokens))
            .collect();
        let mut run_line = vec![report.engine.name.clone()];
        run_line.extend(report.engine.version.clone());
        run_line.push(format!(
            "{} {} ({}) × {} {} ({})",
            contexts.len(),
            l.contexts,
            span(&contexts, context_label),
            levels.len(),
            l.concurrency_levels,
            span(&levels, |n| n.to_string()),
        ));
        if !prefill_contexts.is_empty() {
            run_line.push(format!("{} {}", l.prefill_at, prefill_contexts.join(", ")));
        }
        let engine = &report.engine;
        let mut engine_rows: Rows = vec![(l.engine, engine.name.clone())];
        engine_rows.extend(engine.version.clone().map(|v| (l.version, v)));
        engine_rows.push((l.served_model, engine.model.clone()));
        engine_rows.extend(
            engine
                .max_model_len
                .map(|n| (l.max_model_len, format!("{} {}", count(n), l.tokens))),
        );
        engine_rows.extend(
            engine
                .kv_cache_tokens
                .map(|n| (l.kv_cache_tokens, format!("{} {}", count(n), l.tokens))),
        );
        engine_rows.extend(engine.fingerprint.clone().map(|f| (l.fingerprint, f)));
        let p = &report.parameters;
        let mut run: Rows = vec![
            (l.standard, report.standard.clone()),
            (
                l.harness,
                format!("{} v{}", report.harness.name, report.harness.version),
            ),
            (l.profile, p.profile.clone()),
            (
                l.decode_test,
                match p.window_rule {
                    WindowRule::Fixed => l.fixed_duration,
                    WindowRule::Adaptive => l.adaptive_window,
                }
                .to_owned(),
            ),
            (
                l.prefill_mode,
                match p.prefill_mode {
                    PrefillMode::Warmup => l.prefill_from_warmup,
                    PrefillMode::Repeats => l.prefill_repeats,
                }
                .to_owned(),
            ),
            (
                l.time_per_measurement,
                format!("{} s", number(p.measure_secs, 0)),
            ),
            (
                l.max_output,
                format!("{} {}", count(p.max_output), l.tokens),
            ),
            (l.started, report.started_at.clone()),
            (l.finished, report.finished_at.clone()),
        ];
        if let Some(cost) = &report.cost {
            run.push((
                l.cost,
                format!(
                    "{} {}, {} {}; {} {}, {} {}",
                    number(cost.wall_s, 1),
                    l.wall_s,
                    number(cost.gpu_s_estimate, 1),
                    l.server_s,
                    cost.cells_run,
                    l.cells_run,
                    cost.cells_skipped,
                    l.cells_skipped
                ),
            ));
        }
        // A matrix of more cells than any standard run has (a hostile report's scattered
        // cells) is left out; every measurement is still in the table below.
        let matrix = if contexts.len() * levels.len() <= MAX_MATRIX_CELLS {
            let by_cell: HashMap<(u64, u64), &DecodeCell> = report
                .decode
                .iter()
                .map(|c| ((c.context_tokens, c.concurrency), c))
                .collect();
            contexts
                .iter()
                .map(|&context| MatrixRow {
                    context,
                    context_label: context_label(context),
                    cells: levels
                        .iter()
                        .map(|&level| by_cell.get(&(context, level)).map(|c| matrix_cell(c, l)))
                        .collect(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let power = power_block(report, l);
        let mut measurements: Vec<MeasurementRow> =
            report.prefill.iter().map(|e| prefill_row(e, l)).collect();
        measurements.extend(report.decode.iter().map(|c| decode_row(c, l)));
        Self {
            run_line: run_line.join(" · "),
            hardware,
            engine: engine_rows,
            run,
            prefill: report
                .prefill
                .iter()
                .map(|e| {
                    let (status, status_words) = status_names(e.status, l);
                    let shown = e.status == Status::Valid;
                    PrefillRow {
                        context: e.context_tokens,
                        context_label: context_label(e.context_tokens),
                        status,
                        status_words,
                        rate: if shown {
                            rate(e.prompt_tok_s)
                        } else {
                            String::new()
                        },
                        ttft: if shown {
                            ms(e.ttft_ms, 0)
                        } else {
                            String::new()
                        },
                    }
                })
                .collect(),
            levels,
            matrix,
            measurements,
            power,
            compliant: report.compliance.compliant,
            partial: report.partial,
            reasons: report.compliance.reasons.clone(),
        }
    }
}

/// The power strip of a report whose cells carry energy figures; `None` otherwise.
fn power_block(report: &Report, l: &'static Labels) -> Option<PowerBlock> {
    let cells: Vec<&DecodeCell> = report
        .decode
        .iter()
        .filter(|c| c.energy_status.is_some())
        .collect();
    if cells.is_empty() {
        return None;
    }
    let status = |c: &DecodeCell| match c.energy_status.as_deref() {
        Some("ok") => ("ok", l.energy_ok),
        Some("implausible_power") => ("implausible_power", l.energy_implausible),
        _ => ("unavailable", l.energy_unavailable),
    };
    let strip: Vec<super::svg::PowerBar<'_>> = cells
        .iter()
        .map(|c| super::svg::PowerBar {
            context: c.context_tokens,
            concurrency: c.concurrency,
            watts: c.mean_power_w,
            per_token: c.energy_j_per_token,
            status: status(c).0,
        })
        .collect();
    let mut note = Vec::new();
    if let Some(energy) = &report.energy {
        note.push(format!("{} GPU", energy.gpus.len()));
        if let Some(idle) = energy.idle_power_w {
            note.push(format!("{} W {}", number(idle, 1), l.idle_power));
        }
    }
    Some(PowerBlock {
        svg: super::svg::power_svg(&strip),
        note: note.join(" · "),
        rows: cells
            .iter()
            .map(|c| {
                let (status, status_words) = status(c);
                PowerRow {
                    context_label: context_label(c.context_tokens),
                    concurrency: c.concurrency,
                    watts: c
                        .mean_power_w
                        .map_or_else(|| "—".into(), |w| format!("{} W", number(w, 1))),
                    j_per_token: c
                        .energy_j_per_token
                        .map_or_else(|| "—".into(), |j| format!("{} J", number(j, 4))),
                    status,
                    status_words,
                }
            })
            .collect(),
    })
}

fn matrix_cell(c: &DecodeCell, l: &Labels) -> MatrixCell {
    let (status, status_words) = status_names(c.status, l);
    let figures = has_figures(c.status);
    MatrixCell {
        context: c.context_tokens,
        concurrency: c.concurrency,
        status,
        status_words,
        flagged: c.status != Status::Valid,
        total: if figures {
            rate(c.total_tok_s)
        } else {
            String::new()
        },
        ttft: if figures {
            ms(c.ttft_ms_median, 0)
        } else {
            String::new()
        },
    }
}

fn prefill_row(e: &PrefillEntry, l: &'static Labels) -> MeasurementRow {
    let (status, status_words) = status_names(e.status, l);
    let dash = || "—".to_owned();
    // As in the prefill table: figures only of a valid measurement.
    let valid = e.status == Status::Valid;
    MeasurementRow {
        phase: l.prefill,
        context_label: context_label(e.context_tokens),
        concurrency: e.concurrency,
        status,
        status_words,
        total: if valid { rate(e.prompt_tok_s) } else { dash() },
        per_request: dash(),
        ttft: if valid { ms(e.ttft_ms, 0) } else { dash() },
        tbt: dash(),
        active: dash(),
        completed: if e.repeats.is_empty() {
            dash()
        } else {
            count(e.repeats.len() as u64)
        },
        output: dash(),
        measured_for: dash(),
    }
}

fn decode_row(c: &DecodeCell, l: &'static Labels) -> MeasurementRow {
    let (status, status_words) = status_names(c.status, l);
    let figures = has_figures(c.status);
    let shown = |text: String| if figures { text } else { "—".to_owned() };
    MeasurementRow {
        phase: l.sustained_decode,
        context_label: context_label(c.context_tokens),
        concurrency: c.concurrency,
        status,
        status_words,
        total: shown(rate(c.total_tok_s)),
        per_request: shown(rate(c.per_request_tok_s)),
        ttft: shown(ms(c.ttft_ms_median, 0)),
        tbt: shown(ms(c.tbt_ms_median, 1)),
        active: shown(
            c.avg_active_requests
                .map_or_else(|| "—".into(), |a| number(a, 2)),
        ),
        completed: shown(c.completed_requests.map_or_else(|| "—".into(), count)),
        output: shown(c.output_tokens.map_or_else(|| "—".into(), count)),
        measured_for: shown(
            c.measured_s
                .map_or_else(|| "—".into(), |s| format!("{} s", number(s, 1))),
        ),
    }
}
