//! The home page: the leaderboard and the best measured cells.

use actix_web::{HttpRequest, HttpResponse, web};
use app::App;
use askama::Template;

use super::{Frame, format::context_label, format::number, format::rate, respond};

/// A leaderboard row of either source: GPU, model, context, concurrency, total tok/s, per
/// request tok/s, and the page it comes from.
type BestCell = (
    String,
    String,
    Option<String>,
    i64,
    i64,
    f64,
    Option<f64>,
    String,
);

struct BoardRow {
    gpu: String,
    model: String,
    /// The engine measured; a dash where no report names one.
    engine: String,
    context_label: String,
    concurrency: i64,
    total: String,
    per_request: String,
    href: String,
}

#[derive(Template)]
#[template(path = "index.html")]
struct IndexPage {
    frame: Frame,
    community: bool,
    rows: Vec<BoardRow>,
}

pub(super) async fn index(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    let community =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .is_some_and(|q| q.get("source").is_some_and(|s| s == "community"));
    respond(&req, async {
        let source = if community { "community" } else { "verified" };
        let frame = Frame::new(&req, format!("/v1/leaderboard?source={source}"));
        let raw: Vec<BestCell> = if community {
            app.community_leaderboard(None, None)
                .await?
                .into_iter()
                .map(|r| {
                    let page = format!("/runs/{}", r.run_id);
                    (
                        r.gpu_model,
                        r.model,
                        r.engine,
                        r.context_tokens,
                        r.concurrency,
                        r.total_tok_s,
                        r.per_request_tok_s,
                        page,
                    )
                })
                .collect()
        } else {
            app.leaderboard(None, None)
                .await?
                .into_iter()
                .map(|r| {
                    let page = format!("/reports/{}", uuid::Uuid::from(r.report_id));
                    (
                        r.gpu_model,
                        r.model,
                        r.engine,
                        r.context_tokens,
                        r.concurrency,
                        r.total_tok_s,
                        r.per_request_tok_s,
                        page,
                    )
                })
                .collect()
        };
        let rows = raw
            .into_iter()
            .map(
                |(gpu, model, engine, context, concurrency, total, per_request, page)| BoardRow {
                    gpu,
                    model,
                    engine: engine.unwrap_or_else(|| "—".to_owned()),
                    context_label: context_label(context.max(0) as u64),
                    concurrency,
                    total: number(total, 1),
                    per_request: rate(per_request),
                    href: frame.link(&page),
                },
            )
            .collect();
        let mut frame = frame;
        frame.title = frame.l.leaderboard_title.to_owned();
        let lang = frame.lang;
        Ok((
            IndexPage {
                frame,
                community,
                rows,
            },
            lang,
        ))
    })
    .await
}
