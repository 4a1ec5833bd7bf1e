use actix_web::{HttpResponse, get, web};
use app::App;
use app::trust::compare::Comparison;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, InvalidToken, NotFound, ValidationFailed};
use crate::extract::MaybeAuth;
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CompareQuery {
    /// Two or three report ids, comma-separated; the first is the one ratios are taken to.
    pub reports: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ComparedReportView {
    pub id: Uuid,
    pub listing_id: Uuid,
    pub compliant: bool,
    /// The standard the signed report follows (`standard/2`); `null` when its envelope is
    /// withheld or does not read as a report.
    pub standard: Option<String>,
    pub model: String,
    pub gpu_model: String,
}

/// A report's figures at one cell.
#[derive(Debug, Serialize, ToSchema)]
pub struct ComparedFiguresView {
    /// The standard's status of the cell in this report.
    pub status: &'static str,
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub prompt_tok_s: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AlignedCellView {
    /// `prefill` or `decode`.
    pub phase: &'static str,
    pub context_tokens: i64,
    pub concurrency: i64,
    /// Per report, in the order asked: its figures, or `null` when it has no such cell.
    pub reports: Vec<Option<ComparedFiguresView>>,
    /// Per figure: each report's value over the first report's (`null` where either lacks
    /// it).
    pub ratios: RatiosView,
    /// The figures that differ by more than 5 % between any two reports that carry them.
    pub differs: Vec<&'static str>,
}

/// Per report, its figure over the first report's.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatiosView {
    pub total_tok_s: Vec<Option<f64>>,
    pub per_request_tok_s: Vec<Option<f64>>,
    pub ttft_ms: Vec<Option<f64>>,
    pub prompt_tok_s: Vec<Option<f64>>,
}

/// One context's throughput–interactivity frontier of each report: its valid decode cells
/// as `[per-user tok/s, total tok/s]`, by concurrency.
#[derive(Debug, Serialize, ToSchema)]
pub struct FrontierView {
    pub context_tokens: i64,
    /// Per report, in the order asked.
    pub reports: Vec<Vec<[f64; 2]>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ComparisonView {
    pub reports: Vec<ComparedReportView>,
    /// Prefill entries first, then decode cells, by context and concurrency.
    pub cells: Vec<AlignedCellView>,
    pub frontiers: Vec<FrontierView>,
}

impl From<Comparison> for ComparisonView {
    fn from(c: Comparison) -> Self {
        let frontiers = c
            .contexts()
            .into_iter()
            .map(|context| FrontierView {
                context_tokens: context,
                reports: (0..c.reports.len())
                    .map(|r| {
                        c.frontier(r, context)
                            .into_iter()
                            .map(|(user, total)| [user, total])
                            .collect()
                    })
                    .collect(),
            })
            .collect();
        let cells = c
            .cells
            .iter()
            .map(|cell| AlignedCellView {
                phase: cell.phase.as_str(),
                context_tokens: cell.context_tokens,
                concurrency: cell.concurrency,
                reports: cell
                    .cells
                    .iter()
                    .map(|c| {
                        c.as_ref().map(|c| ComparedFiguresView {
                            status: c.status.as_str(),
                            total_tok_s: c.total_tok_s,
                            per_request_tok_s: c.per_request_tok_s,
                            ttft_ms: c.ttft_ms,
                            prompt_tok_s: c.prompt_tok_s,
                        })
                    })
                    .collect(),
                ratios: {
                    let of = |f: &str| (0..cell.cells.len()).map(|r| cell.ratio(f, r)).collect();
                    RatiosView {
                        total_tok_s: of("total_tok_s"),
                        per_request_tok_s: of("per_request_tok_s"),
                        ttft_ms: of("ttft_ms"),
                        prompt_tok_s: of("prompt_tok_s"),
                    }
                },
                differs: cell.differs.clone(),
            })
            .collect();
        Self {
            reports: c
                .reports
                .into_iter()
                .map(|r| ComparedReportView {
                    id: r.id.into(),
                    listing_id: r.listing_id.into(),
                    compliant: r.compliant,
                    standard: r.standard,
                    model: r.model,
                    gpu_model: r.gpu_model,
                })
                .collect(),
            cells,
            frontiers,
        }
    }
}

/// The report ids of `?reports=`, checked.
pub fn report_ids(raw: &str) -> Result<Vec<domain::ReportId>, ApiError> {
    raw.split(',')
        .map(|id| {
            id.trim()
                .parse::<Uuid>()
                .map(Into::into)
                .map_err(|_| ApiError::field("reports", "must be report ids separated by commas"))
        })
        .collect()
}

/// Two or three reports side by side, cell by cell: each report's figures, their ratios to the
/// first report's, which figures differ by more than 5 %, the standards they follow, and
/// each context's throughput–interactivity frontier. A private report is compared only by
/// those who may see it (to anyone else it does not exist).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "compare_reports",
    tag = "reports",
    params(CompareQuery),
    responses(
        (status = 200, description = "The reports aligned", body = ComparisonView),
        Problems<(InvalidToken, InvalidParameter, NotFound, ValidationFailed)>,
    )
)]
#[get("/compare")]
pub async fn compare(
    app: web::Data<App>,
    query: Query<CompareQuery>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let ids = report_ids(&query.reports)?;
    let comparison = app.compare(&ids, viewer).await?;
    Ok(HttpResponse::Ok().json(ComparisonView::from(comparison)))
}
