//! The planner: the offers that meet a workload, cheapest first.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;

use super::{Frame, error_page, format::count, format::number, format::rate, html};

struct PlannerRowCells {
    gpu_id: String,
    gpu_name: String,
    gpu_link: String,
    gpu_count: i32,
    source: &'static str,
    measured: bool,
    users: String,
    machines: String,
    ttft: String,
    stutter: String,
    per_stream: String,
    total: String,
}

#[derive(Template)]
#[template(path = "planner.html")]
struct PlannerPage {
    frame: Frame,
    models: Vec<(String, String, bool)>,
    context: String,
    users: String,
    ttft: String,
    itl: String,
    rows: Vec<PlannerRowCells>,
    problems: Vec<String>,
}

#[derive(serde::Deserialize)]
struct PlannerForm {
    model: Option<String>,
    context: Option<String>,
    users: Option<String>,
    ttft_p99_ms: Option<String>,
    itl_p99_ms: Option<String>,
}

pub(super) async fn planner_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    let form = web::Query::<PlannerForm>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or(PlannerForm {
            model: None,
            context: None,
            users: None,
            ttft_p99_ms: None,
            itl_p99_ms: None,
        });
    let mut frame = Frame::new(&req, "/v1/models".to_owned());
    frame.title = frame.l.planner_title.to_owned();
    let Ok(models) = app.models() else {
        return error_page(&req, AppError::Internal("the catalogs did not load".into()));
    };
    let models = models
        .iter()
        .map(|m| {
            (
                m.id.clone(),
                m.name.clone(),
                form.model.as_deref() == Some(&m.id),
            )
        })
        .collect();
    let mut problems = Vec::new();
    let l = frame.l;
    let mut read = |field: &str, raw: &Option<String>, default: f64| match raw.as_deref() {
        None | Some("") => default,
        Some(text) => text.trim().parse::<f64>().unwrap_or_else(|_| {
            problems.push(format!("{field}: {}", l.not_a_number));
            default
        }),
    };
    let context = read("context", &form.context, 8192.0);
    let users = read("users", &form.users, 50.0);
    let ttft = read("ttft_p99_ms", &form.ttft_p99_ms, 2000.0);
    let itl = read("itl_p99_ms", &form.itl_p99_ms, 100.0);
    let mut rows = Vec::new();
    let mut status = StatusCode::OK;
    if let Some(model) = form.model.as_deref().filter(|m| !m.is_empty())
        && problems.is_empty()
    {
        let params = app::market::planner::PlannerParams {
            model: Some(model.to_owned()),
            context: Some(context as i64),
            users: Some(users as i64),
            ttft_p99_ms: Some(ttft),
            itl_p99_ms: Some(itl),
            electricity_per_mwh: None,
        };
        match app.planner(params).await {
            Ok(planner) => {
                frame.json = format!(
                    "/v1/planner?model={}&context={}&users={}&ttft_p99_ms={}&itl_p99_ms={}",
                    planner.model.id,
                    planner.context,
                    planner.users,
                    planner.ttft_p99_ms,
                    planner.itl_p99_ms
                );
                rows = planner
                    .rows
                    .into_iter()
                    .map(|r| {
                        let measured =
                            matches!(r.source, app::market::planner::Source::Measured { .. });
                        PlannerRowCells {
                            gpu_link: format!("/hardware/{}", r.gpu.id),
                            gpu_id: r.gpu.id,
                            gpu_name: r.gpu.name,
                            gpu_count: r.gpu_count,
                            source: if measured { "measured" } else { "predicted" },
                            measured,
                            users: count(r.users),
                            machines: r.machines_needed.map_or_else(|| "—".to_owned(), count),
                            ttft: r.ttft_ms.map_or_else(|| "—".to_owned(), |v| number(v, 0)),
                            stutter: r
                                .stutter_ms
                                .map_or_else(|| "—".to_owned(), |v| number(v, 1)),
                            per_stream: rate(r.per_stream_tok_s),
                            total: number(r.total_tok_s, 1),
                        }
                    })
                    .collect();
            }
            Err(AppError::Validation(e)) => problems.push(format!("{}: {}", e.field, e.message)),
            Err(e) => return error_page(&req, e),
        }
    }
    if !problems.is_empty() {
        status = StatusCode::UNPROCESSABLE_ENTITY;
    }
    let lang = frame.lang;
    let page = PlannerPage {
        frame,
        models,
        context: number(context, 0).replace(',', ""),
        users: number(users, 0).replace(',', ""),
        ttft: ttft.to_string(),
        itl: itl.to_string(),
        rows,
        problems,
    };
    html(status, lang, page.render())
}
