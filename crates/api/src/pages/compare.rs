//! The comparison of reports: figures side by side and the throughput frontier.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;

use super::{
    Frame, error_page, format::context_label, format::number, format::rate, html, svg::frontier_svg,
};

struct ComparedRow {
    id: String,
    short: String,
    link: String,
    model: String,
    gpu: String,
    standard: String,
    compliant: bool,
}

struct FrontierFigure {
    context: i64,
    label: String,
    svg: String,
}

struct CellRow {
    context: String,
    concurrency: i64,
    values: Vec<String>,
    differs: bool,
}

#[derive(Template)]
#[template(path = "compare.html")]
struct ComparePage {
    frame: Frame,
    reports: Vec<ComparedRow>,
    figures: Vec<FrontierFigure>,
    cells: Vec<CellRow>,
    has_slo: bool,
}

#[derive(serde::Deserialize)]
struct CompareForm {
    reports: Option<String>,
    itl_p99_ms: Option<f64>,
}

pub(super) async fn compare_page(
    req: HttpRequest,
    app: web::Data<App>,
    viewer: crate::extract::MaybeAuth,
) -> HttpResponse {
    let form = web::Query::<CompareForm>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or(CompareForm {
            reports: None,
            itl_p99_ms: None,
        });
    let raw = form.reports.unwrap_or_default();
    let mut frame = Frame::new(&req, format!("/v1/compare?reports={raw}"));
    frame.title = frame.l.compare_title.to_owned();
    let Ok(ids) = crate::routes::reports::compare::report_ids(&raw) else {
        return error_page(&req, AppError::NotFound("report"));
    };
    let comparison = match app.compare(&ids, viewer.0).await {
        Ok(c) => c,
        Err(e) => return error_page(&req, e),
    };
    let slo_per_user = form
        .itl_p99_ms
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(|itl| 1000.0 / itl);
    let figures = comparison
        .contexts()
        .into_iter()
        .map(|context| {
            let series: Vec<Vec<(f64, f64)>> = (0..comparison.reports.len())
                .map(|r| comparison.frontier(r, context))
                .collect();
            FrontierFigure {
                context,
                label: context_label(context.max(0) as u64),
                svg: frontier_svg(&series, slo_per_user),
            }
        })
        .collect();
    let cells = comparison
        .cells
        .iter()
        .filter(|c| c.phase == domain::CellPhase::Decode)
        .map(|c| CellRow {
            context: context_label(c.context_tokens.max(0) as u64),
            concurrency: c.concurrency,
            values: (0..c.cells.len())
                .map(|r| {
                    let total = c.cells[r].as_ref().and_then(|x| x.total_tok_s);
                    match (total, c.ratio("total_tok_s", r)) {
                        (Some(t), Some(ratio)) if r > 0 => {
                            format!("{} (×{})", number(t, 1), number(ratio, 2))
                        }
                        (t, _) => rate(t),
                    }
                })
                .collect(),
            differs: c.differs.contains(&"total_tok_s"),
        })
        .collect();
    let reports = comparison
        .reports
        .iter()
        .map(|r| ComparedRow {
            id: r.id.to_string(),
            short: r.id.to_string()[..8].to_owned(),
            link: format!("/reports/{}", r.id),
            model: r.model.clone(),
            gpu: r.gpu_model.clone(),
            standard: r.standard.clone().unwrap_or_else(|| "—".to_owned()),
            compliant: r.compliant,
        })
        .collect();
    let lang = frame.lang;
    let page = ComparePage {
        frame,
        reports,
        figures,
        cells,
        has_slo: slo_per_user.is_some(),
    };
    html(StatusCode::OK, lang, page.render())
}
