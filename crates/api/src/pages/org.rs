//! `/orgs/{id}`: an organisation's signed report as a page — its listings with their badges
//! and figures as the snapshot signed them, the signature and the snapshot's leaf in the
//! transparency log. The snapshot holds public data only (a private report never becomes a
//! listing's report), and the page shows nothing else.

use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;
use serde::Deserialize;
use uuid::Uuid;

use app::limits::RateClass;

use super::Page;
use super::format::rate;
use super::lists::when;
use super::report_page::{LogBlock, log_block};
use super::{Frame, respond, uuid_of};

/// An organisation's page.
pub fn pages() -> Vec<Page> {
    vec![Page::get("/orgs/{id}", Some(RateClass::Reads), org_page)]
}

/// What the page reads of a snapshot (`org_report_content`'s shape).
#[derive(Deserialize)]
struct Snapshot {
    org: Named,
    listings: Vec<Fleet>,
    generated_at: Option<String>,
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

#[derive(Deserialize)]
struct Fleet {
    listing_id: Uuid,
    title: String,
    gpu_model: String,
    gpu_count: i64,
    verified: bool,
    latest_report_id: Option<Uuid>,
    verified_at: Option<String>,
    headline: Headline,
}

#[derive(Deserialize)]
struct Headline {
    best_total_tok_s: Option<f64>,
    single_stream_tok_s: Option<f64>,
}

struct FleetRow {
    id: Uuid,
    title: String,
    href: String,
    gpu: String,
    verified: bool,
    verified_at: String,
    best_total: String,
    single_stream: String,
    report_href: Option<String>,
}

#[derive(Template)]
#[template(path = "org.html")]
struct OrgPage {
    frame: Frame,
    name: String,
    report_id: Uuid,
    generated_at: String,
    listings: Vec<FleetRow>,
    verified: usize,
    key_id: String,
    signature: String,
    log: Option<LogBlock>,
    proof_json: String,
}

async fn org_page(req: HttpRequest, app: web::Data<App>, id: web::Path<String>) -> HttpResponse {
    respond(&req, async {
        let id = uuid_of(&id)?;
        let report = app.org_report(domain::OrgId::from_uuid(id)).await?;
        let snapshot: Snapshot = serde_json::from_value(report.report.clone())
            .map_err(|e| AppError::Internal(format!("an organisation report: {e}")))?;
        let mut frame = Frame::new(&req, format!("/v1/orgs/{id}/report"));
        frame.title = snapshot.org.name.clone();
        let listings: Vec<FleetRow> = snapshot
            .listings
            .into_iter()
            .map(|f| FleetRow {
                href: frame.link(&format!("/listings/{}", f.listing_id)),
                id: f.listing_id,
                title: f.title,
                gpu: format!("{} × {}", f.gpu_count, f.gpu_model),
                verified: f.verified,
                verified_at: f.verified_at.unwrap_or_else(|| "—".to_owned()),
                best_total: rate(f.headline.best_total_tok_s),
                single_stream: rate(f.headline.single_stream_tok_s),
                report_href: f
                    .latest_report_id
                    .map(|r| frame.link(&format!("/reports/{r}"))),
            })
            .collect();
        let log = log_block(&app, report.id, report.log_index, None).await?;
        let lang = frame.lang;
        Ok((
            OrgPage {
                name: snapshot.org.name,
                report_id: report.id,
                generated_at: snapshot
                    .generated_at
                    .unwrap_or_else(|| when(report.created_at)),
                verified: listings.iter().filter(|l| l.verified).count(),
                listings,
                key_id: report.envelope["signatures"][0]["keyid"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                signature: report.envelope["signatures"][0]["sig"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                log,
                proof_json: format!("/v1/reports/{}/proof", report.id),
                frame,
            },
            lang,
        ))
    })
    .await
}
