//! `/market/history`: the market's price history as `GET /v1/market/history` answers it (the
//! same query, the same rows), drawn server-side — the median listed price per GPU-hour with
//! its p10–p90 band and the clearing bid — and tabled with every figure.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::App;
use app::market::history::HistoryPoint;
use askama::Template;

use super::format::number;
use super::{Frame, html};
use crate::routes::market::{HistoryParams, HistoryView};

/// One bucket as the table shows it.
struct Row {
    start: String,
    listings: i64,
    gpus_listed: i64,
    gpu_hours_booked: f64,
    gpu_hours_shown: String,
    p10: i64,
    median: i64,
    p90: i64,
    clearing_bid: Option<i64>,
    price_per_mtok_median: Option<f64>,
}

#[derive(Template)]
#[template(path = "history.html")]
struct HistoryPage {
    frame: Frame,
    gpu: String,
    bucket: &'static str,
    currency: String,
    svg: String,
    rows: Vec<Row>,
}

pub(super) async fn history_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    let params = match web::Query::<HistoryParams>::from_query(req.query_string()) {
        Ok(q) => q.into_inner(),
        Err(e) => {
            let bad = domain::ValidationError::new("query", e.to_string());
            return super::error_page(&req, bad.into());
        }
    };
    let history = match app.market_history(params.into()).await {
        Ok(history) => history,
        Err(e) => return super::error_page(&req, e),
    };
    let svg = history_svg(&history.items);
    let rows = history
        .items
        .iter()
        .map(|p| Row {
            start: p.start.to_rfc3339(),
            listings: p.listings,
            gpus_listed: p.gpus_listed,
            gpu_hours_booked: p.gpu_hours_booked,
            gpu_hours_shown: number(p.gpu_hours_booked, 2),
            p10: p.price_p10.minor(),
            median: p.price_median.minor(),
            p90: p.price_p90.minor(),
            clearing_bid: p.clearing_bid.map(|b| b.minor()),
            price_per_mtok_median: p.price_per_mtok_median,
        })
        .collect();
    let view = HistoryView::from(history);
    let json = match req.query_string() {
        "" => "/v1/market/history".to_owned(),
        query => format!("/v1/market/history?{query}"),
    };
    let mut frame = Frame::new(&req, json);
    frame.title = frame.l.history_title.to_owned();
    let lang = frame.lang;
    let page = HistoryPage {
        frame,
        gpu: view.gpu,
        bucket: view.bucket,
        currency: view.currency,
        svg,
        rows,
    };
    html(StatusCode::OK, lang, page.render())
}

/// The median listed price per GPU-hour as a line over its p10–p90 band, each bucket a point
/// (`data-start`, `data-median`, `data-p10`, `data-p90`) and its clearing bid a mark
/// (`data-clearing-bid`). Numbers and dates only.
fn history_svg(points: &[HistoryPoint]) -> String {
    const W: f64 = 560.0;
    const H: f64 = 160.0;
    let top = points
        .iter()
        .map(|p| p.price_p90.minor())
        .chain(
            points
                .iter()
                .filter_map(|p| p.clearing_bid.map(|b| b.minor())),
        )
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let n = points.len().max(1) as f64;
    let x = |i: usize| {
        if n > 1.0 {
            i as f64 / (n - 1.0) * W
        } else {
            W / 2.0
        }
    };
    let y = |minor: i64| H - minor as f64 / top * (H - 10.0);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" role=\"img\" id=\"history-chart\">"
    );
    if !points.is_empty() {
        let upper: Vec<String> = points
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.price_p90.minor())))
            .collect();
        let lower: Vec<String> = points
            .iter()
            .enumerate()
            .rev()
            .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.price_p10.minor())))
            .collect();
        svg.push_str(&format!(
            "<polygon class=\"band\" points=\"{} {}\"/>",
            upper.join(" "),
            lower.join(" ")
        ));
        let line: Vec<String> = points
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.price_median.minor())))
            .collect();
        svg.push_str(&format!(
            "<polyline class=\"median\" fill=\"none\" points=\"{}\"/>",
            line.join(" ")
        ));
    }
    for (i, p) in points.iter().enumerate() {
        let start = p.start.to_rfc3339();
        svg.push_str(&format!(
            "<circle class=\"point\" data-start=\"{start}\" data-median=\"{}\" data-p10=\"{}\" data-p90=\"{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>{start}: {}</title></circle>",
            p.price_median.minor(),
            p.price_p10.minor(),
            p.price_p90.minor(),
            x(i),
            y(p.price_median.minor()),
            p.price_median.minor(),
        ));
        if let Some(bid) = p.clearing_bid {
            svg.push_str(&format!(
                "<rect class=\"clearing\" data-start=\"{start}\" data-clearing-bid=\"{}\" x=\"{:.1}\" y=\"{:.1}\" width=\"6\" height=\"2\"/>",
                bid.minor(),
                x(i) - 3.0,
                y(bid.minor()) - 1.0,
            ));
        }
    }
    svg.push_str("</svg>");
    svg
}
