//! The start-up job that fills the judging figures of report cells stored before they were
//! columns (`ttft_ms_p99`, `ttft_samples`, `itl_ms_p99`, `tokens_per_chunk`), from each
//! report's own signed envelope. Idempotent: a report is marked once read, and reading it
//! again writes the same figures; any number of replicas may run it at once.

use store::CellFigures;

use crate::{App, AppError};

/// Reports read per batch.
const BATCH: u64 = 100;

/// The figures a stored envelope's report states per decode cell; none when the envelope
/// does not parse as a harness report (it is then marked read all the same).
fn figures_of(envelope: &str) -> Vec<CellFigures> {
    let predicate = serde_json::from_str::<attest::Envelope>(envelope)
        .ok()
        .and_then(|envelope| super::predicate_of(&envelope));
    let Some(report) = predicate.and_then(|p| serde_json::from_value::<bench::Report>(p).ok())
    else {
        return Vec::new();
    };
    report
        .decode
        .iter()
        .map(|c| CellFigures {
            phase: domain::CellPhase::Decode,
            context_tokens: i64::try_from(c.context_tokens).unwrap_or(i64::MAX),
            concurrency: i64::try_from(c.concurrency).unwrap_or(i64::MAX),
            ttft_ms_p99: c.ttft_ms_p99,
            ttft_samples: c.ttft_samples.and_then(|n| i64::try_from(n).ok()),
            itl_ms_p99: c.itl_ms_p99,
            tokens_per_chunk: c.tokens_per_chunk,
        })
        .collect()
}

impl App {
    /// Fills every report not yet read; returns how many were.
    pub async fn fill_cell_figures(&self) -> Result<u64, AppError> {
        let mut filled = 0;
        loop {
            let batch = self.db().reports_to_fill(BATCH).await?;
            if batch.is_empty() {
                return Ok(filled);
            }
            for (report, envelope) in batch {
                self.db()
                    .fill_cell_figures(report, &figures_of(&envelope))
                    .await?;
                filled += 1;
            }
        }
    }
}
