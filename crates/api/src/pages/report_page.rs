//! A verified report's page, with its transparency-log inclusion and where it was reached.

use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;
use uuid::Uuid;

use super::{
    Frame, calculator::ShareParam, i18n::Labels, report::ReportBody, report::Rows, respond, uuid_of,
};

/// A report's place in the log, and its proof against the latest checkpoint.
pub(super) struct LogBlock {
    pub(super) leaf_index: u64,
    pub(super) proof: Option<ProofBlock>,
}

pub(super) struct ProofBlock {
    pub(super) tree_size: u64,
    pub(super) hashes: Vec<String>,
    pub(super) checkpoint: String,
}

pub(super) async fn log_block(
    app: &App,
    id: Uuid,
    index: Option<u64>,
    share: Option<&str>,
) -> Result<Option<LogBlock>, AppError> {
    let Some(leaf_index) = index else {
        return Ok(None);
    };
    let proof = match app.report_proof(id, None, None, share).await {
        Ok(app::trust::transparency::ProofOutcome::Ready(p)) => Some(ProofBlock {
            tree_size: p.tree_size,
            hashes: p.inclusion_proof,
            checkpoint: p.checkpoint,
        }),
        // No checkpoint covers it yet (or none was signed yet).
        Ok(app::trust::transparency::ProofOutcome::Pending { .. }) | Err(AppError::NotFound(_)) => {
            None
        }
        Err(e) => return Err(e),
    };
    Ok(Some(LogBlock { leaf_index, proof }))
}

#[derive(Template)]
#[template(path = "report.html")]
struct ReportPage {
    frame: Frame,
    id: Uuid,
    title: String,
    /// `None` when the envelope is withheld or its report cannot be read.
    body: Option<ReportBody>,
    listing_href: String,
    catalog: Vec<(String, String)>,
    kind: String,
    compliant: bool,
    /// Shown to its organisation and share links only.
    private: bool,
    key_id: String,
    signed_at: String,
    signature: String,
    log: Option<LogBlock>,
    proof_json: String,
    /// This site's address, for the verify command.
    public: String,
    /// `?share=…` when a share link opened the page, for its downloads.
    with_share: String,
}

/// The claim's rows of the hardware block, and whether the machine's agent confirmed it when
/// the report was made (beside the signed report, not in it).
fn claimed_hardware(
    claim: &app::trust::reports::ClaimedHardware,
    confirmed: bool,
    l: &'static Labels,
) -> Rows {
    let mut rows = Rows::new();
    rows.extend(claim.gpu_model.clone().map(|v| (l.gpu, v)));
    rows.extend(claim.gpu_count.map(|v| (l.gpu_count, v.to_string())));
    rows.extend(claim.vram_gb.map(|v| (l.vram, format!("{v} GB"))));
    rows.extend(claim.cpu_model.clone().map(|v| (l.cpu, v)));
    rows.extend(claim.ram_gb.map(|v| (l.ram, format!("{v} GB"))));
    rows.extend(claim.region.clone().map(|v| (l.region, v)));
    let word = if confirmed {
        l.hardware_confirmed
    } else {
        l.hardware_claimed
    };
    rows.push((l.hardware_word, word.to_owned()));
    rows
}

/// This server as the reader reached it, for the commands a page shows: the configured
/// `public_url`; when it was left at its default, the scheme and `Host` the request came
/// with (a plain host name or address, with its port) — so a page read at
/// `https://gpu.example.org` never shows commands for `127.0.0.1:8080`.
pub(super) fn reached(app: &App, req: &HttpRequest) -> String {
    let configured = app.config().server.public_url.trim_end_matches('/');
    if configured != app::config::ServerSettings::default().public_url {
        return configured.to_owned();
    }
    let host = req
        .headers()
        .get(actix_web::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        });
    let scheme = match req.connection_info().scheme() {
        "https" => "https",
        _ => "http",
    };
    host.map_or_else(|| configured.to_owned(), |h| format!("{scheme}://{h}"))
}

pub(super) async fn report_page(
    req: HttpRequest,
    app: web::Data<App>,
    id: web::Path<String>,
) -> HttpResponse {
    // A private report's share link opens its page too (and its JSON, exports and proof).
    let share = web::Query::<ShareParam>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.into_inner().share)
        .filter(|t| {
            t.len() <= 128
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b))
        });
    respond(&req, async {
        let id = uuid_of(&id)?;
        let stored = app.report_for(id.into(), None, share.as_deref()).await?;
        let with_share = share
            .as_deref()
            .map_or_else(String::new, |t| format!("?share={t}"));
        let frame = Frame::new(&req, format!("/v1/reports/{id}{with_share}"));
        let l = frame.l;
        let body = stored.predicate().and_then(|signed| {
            let report = signed.report?;
            Some(ReportBody::of(
                &report,
                claimed_hardware(&signed.claimed, stored.hardware_confirmed, l),
                l,
            ))
        });
        let model = &stored.summary.model;
        let gpu = &stored.summary.gpu_model;
        let listing = app.listing(stored.listing_id).await.ok();
        let catalog = listing.as_ref().map_or_else(Vec::new, |listing| {
            frame.catalog_links(
                listing.catalog_gpu.as_deref(),
                listing.catalog_model.as_deref(),
            )
        });
        let signature = stored.signature().unwrap_or_default().to_owned();
        let log = log_block(&app, id, stored.log_index, share.as_deref()).await?;
        let mut frame = frame;
        let title = format!("{model} {} {gpu}", l.on);
        frame.title = format!("{} · {title}", l.speed_test_matrix);
        let lang = frame.lang;
        Ok((
            ReportPage {
                listing_href: frame.link(&format!("/listings/{}", Uuid::from(stored.listing_id))),
                frame,
                id,
                title,
                body,
                catalog,
                kind: stored.kind,
                compliant: stored.compliant,
                private: stored.visibility == "private",
                key_id: stored.key_id,
                signed_at: stored.created_at.to_rfc3339(),
                signature,
                log,
                proof_json: format!("/v1/reports/{id}/proof{with_share}"),
                public: reached(&app, &req),
                with_share,
            },
            lang,
        ))
    })
    .await
}
