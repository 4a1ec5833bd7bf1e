//! Reports side by side: the same cells of two or three reports aligned, the ratio of each
//! figure to the first report's, which figures differ by more than 5 %, and the standards the
//! reports follow. Visibility is the reports' own: a private report the viewer may not see
//! does not exist for them.

use domain::{CellPhase, CellStatus, ValidationError};

use crate::trust::reports::ReportCell;
use crate::{App, AppError, Caller};

/// Two figures differ when the larger exceeds the smaller by more than this share.
pub const DIFFERS_BY: f64 = 0.05;

/// The figures compared, by name.
pub const FIGURES: [&str; 4] = [
    "total_tok_s",
    "per_request_tok_s",
    "ttft_ms",
    "prompt_tok_s",
];

/// A report compared: what it measured and under which standard.
#[derive(Debug, Clone)]
pub struct ComparedReport {
    pub id: domain::ReportId,
    pub listing_id: domain::ListingId,
    pub compliant: bool,
    /// The standard the signed report follows (`standard/2`), when it reads as a report.
    pub standard: Option<String>,
    pub model: String,
    pub gpu_model: String,
}

/// One cell, in every report that has it.
#[derive(Debug, Clone)]
pub struct AlignedCell {
    pub phase: CellPhase,
    pub context_tokens: i64,
    pub concurrency: i64,
    /// Per report, in the order asked: its cell, when it has one.
    pub cells: Vec<Option<ReportCell>>,
    /// The figures (of [`FIGURES`]) that differ by more than [`DIFFERS_BY`] between any two
    /// reports that carry them.
    pub differs: Vec<&'static str>,
}

impl AlignedCell {
    /// A report's figure over the first report's, when both carry it.
    pub fn ratio(&self, figure: &str, report: usize) -> Option<f64> {
        let first = figure_of(self.cells.first()?.as_ref()?, figure)?;
        let this = figure_of(self.cells.get(report)?.as_ref()?, figure)?;
        (first != 0.0).then(|| this / first)
    }
}

fn figure_of(cell: &ReportCell, figure: &str) -> Option<f64> {
    match figure {
        "total_tok_s" => cell.total_tok_s,
        "per_request_tok_s" => cell.per_request_tok_s,
        "ttft_ms" => cell.ttft_ms,
        "prompt_tok_s" => cell.prompt_tok_s,
        _ => None,
    }
}

#[derive(Debug, Clone)]
pub struct Comparison {
    pub reports: Vec<ComparedReport>,
    /// Prefill entries first, then decode cells, by context and concurrency.
    pub cells: Vec<AlignedCell>,
}

impl Comparison {
    /// A report's decode frontier at `context`: `(per-user tok/s, total tok/s)` of each
    /// valid cell, by concurrency.
    pub fn frontier(&self, report: usize, context: i64) -> Vec<(f64, f64)> {
        self.cells
            .iter()
            .filter(|c| c.phase == CellPhase::Decode && c.context_tokens == context)
            .filter_map(|c| c.cells.get(report)?.as_ref())
            .filter(|c| c.status == CellStatus::Valid)
            .filter_map(|c| Some((c.per_request_tok_s?, c.total_tok_s?)))
            .collect()
    }

    /// The decode contexts any report measured, ascending.
    pub fn contexts(&self) -> Vec<i64> {
        let mut contexts: Vec<i64> = self
            .cells
            .iter()
            .filter(|c| c.phase == CellPhase::Decode)
            .map(|c| c.context_tokens)
            .collect();
        contexts.dedup();
        contexts
    }
}

impl App {
    /// Aligns two or three reports cell by cell, as `viewer` may see them.
    pub async fn compare(
        &self,
        ids: &[domain::ReportId],
        viewer: Option<Caller>,
    ) -> Result<Comparison, AppError> {
        if !(2..=3).contains(&ids.len()) {
            return Err(ValidationError::new("reports", "name two or three reports").into());
        }
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(ValidationError::new("reports", "names one report twice").into());
            }
        }
        let mut reports = Vec::with_capacity(ids.len());
        let mut cells_of = Vec::with_capacity(ids.len());
        for &id in ids {
            let stored = self.report(id, viewer).await?;
            cells_of.push(self.report_cells(id, viewer, None).await?);
            let standard = stored
                .predicate()
                .and_then(|p| p.report)
                .map(|r| r.standard);
            reports.push(ComparedReport {
                id,
                listing_id: stored.listing_id,
                compliant: stored.compliant,
                standard,
                model: stored.summary.model,
                gpu_model: stored.summary.gpu_model,
            });
        }
        let mut keys: Vec<(u8, i64, i64)> = cells_of
            .iter()
            .flatten()
            .map(|c| (phase_order(c.phase), c.context_tokens, c.concurrency))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let cells = keys
            .into_iter()
            .map(|(phase, context, concurrency)| {
                let cells: Vec<Option<ReportCell>> = cells_of
                    .iter()
                    .map(|cells| {
                        cells
                            .iter()
                            .find(|c| {
                                phase_order(c.phase) == phase
                                    && c.context_tokens == context
                                    && c.concurrency == concurrency
                            })
                            .cloned()
                    })
                    .collect();
                let differs = FIGURES
                    .into_iter()
                    .filter(|figure| {
                        let values: Vec<f64> = cells
                            .iter()
                            .flatten()
                            .filter_map(|c| figure_of(c, figure))
                            .collect();
                        let (low, high) = values
                            .iter()
                            .fold((f64::INFINITY, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
                        values.len() >= 2 && low > 0.0 && high / low - 1.0 > DIFFERS_BY
                    })
                    .collect();
                AlignedCell {
                    phase: if phase == 0 {
                        CellPhase::Prefill
                    } else {
                        CellPhase::Decode
                    },
                    context_tokens: context,
                    concurrency,
                    cells,
                    differs,
                }
            })
            .collect();
        Ok(Comparison { reports, cells })
    }
}

fn phase_order(phase: CellPhase) -> u8 {
    match phase {
        CellPhase::Prefill => 0,
        CellPhase::Decode => 1,
    }
}
