//! The calculator: decode throughput estimated from the measured cells.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;

use super::{
    Frame, catalog::ResultRow, catalog::result_rows, error_page, format::count, format::number,
    html,
};

struct Estimate {
    per_stream: String,
    total: String,
    max_concurrency: String,
    physical_limit: String,
    memory_bound: bool,
    measured: Vec<ResultRow>,
    json: String,
}

#[derive(Template)]
#[template(path = "calculator.html")]
struct CalculatorPage {
    frame: Frame,
    gpus: Vec<(String, String, bool)>,
    models: Vec<(String, String, bool)>,
    context: i64,
    concurrency: i64,
    estimate: Option<Estimate>,
    /// Why it could not calculate: the fields and what is wrong with them.
    problems: Vec<String>,
    efficiency: String,
}

#[derive(serde::Deserialize)]
pub(super) struct ShareParam {
    pub(super) share: Option<String>,
}

#[derive(serde::Deserialize)]
struct CalculatorForm {
    gpu: Option<String>,
    model: Option<String>,
    context: Option<String>,
    concurrency: Option<String>,
}

pub(super) async fn calculator_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    let form = web::Query::<CalculatorForm>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or(CalculatorForm {
            gpu: None,
            model: None,
            context: None,
            concurrency: None,
        });
    let mut status = StatusCode::OK;
    // Until it has a pair to calculate, the page renders the catalogs' GPUs and models.
    let mut frame = Frame::new(&req, "/v1/hardware".to_owned());
    frame.title = frame.l.calculator_title.to_owned();
    let mut problems = Vec::new();
    let frame_l = frame.l;
    let mut whole = |field: &str, raw: &Option<String>, default: i64| match raw.as_deref() {
        None | Some("") => default,
        Some(text) => text.trim().parse().unwrap_or_else(|_| {
            problems.push(format!("{field}: {}", frame_l.not_a_whole_number));
            default
        }),
    };
    let context = whole("context", &form.context, 0);
    let concurrency = whole("concurrency", &form.concurrency, 1);
    let pick = |chosen: &Option<String>, id: &str| chosen.as_deref() == Some(id);
    let (Ok(gpus), Ok(models)) = (app.gpus(), app.models()) else {
        return error_page(&req, AppError::Internal("the catalogs did not load".into()));
    };
    let gpus = gpus
        .iter()
        .map(|g| (g.id.clone(), g.name.clone(), pick(&form.gpu, &g.id)))
        .collect();
    let models = models
        .iter()
        .map(|m| (m.id.clone(), m.name.clone(), pick(&form.model, &m.id)))
        .collect();
    let mut estimate = None;
    if let (Some(gpu), Some(model)) = (&form.gpu, &form.model)
        && problems.is_empty()
    {
        match app.decode_estimate(gpu, model, context, concurrency).await {
            Ok(e) => {
                let query = format!(
                    "gpu={}&model={}&context={context}&concurrency={concurrency}",
                    e.gpu.id, e.model.id
                );
                let measured = result_rows(&frame, e.measured, false);
                frame.json = format!("/v1/calculator/decode?{query}");
                estimate = Some(Estimate {
                    per_stream: number(e.predicted.per_stream_tok_s, 1),
                    total: number(e.predicted.total_tok_s, 1),
                    max_concurrency: count(e.max_concurrency),
                    physical_limit: number(e.physical_limit_total_tok_s, 1),
                    memory_bound: e.predicted.memory_bound,
                    measured,
                    json: frame.json.clone(),
                });
            }
            Err(AppError::Validation(e)) => problems.push(format!("{}: {}", e.field, e.message)),
            Err(AppError::Invalid(errors)) => problems.extend(
                errors
                    .into_iter()
                    .map(|(field, message)| format!("{field}: {message}")),
            ),
            Err(e) => return error_page(&req, e),
        }
    }
    if !problems.is_empty() {
        status = StatusCode::UNPROCESSABLE_ENTITY;
    }
    let lang = frame.lang;
    let page = CalculatorPage {
        frame,
        gpus,
        models,
        context,
        concurrency,
        estimate,
        problems,
        efficiency: number(catalog::EFFICIENCY, 2),
    };
    html(status, lang, page.render())
}
