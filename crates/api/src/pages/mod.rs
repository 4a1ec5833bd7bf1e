//! The results site: server-rendered HTML over the same use cases as the JSON API. Templates
//! are compiled in (askama, escaped by default), no page needs JavaScript, every page links
//! the JSON it renders, and labels come in English or Traditional Chinese (`?lang=`, else
//! `Accept-Language`). Engines and submitters are hostile: everything they wrote reaches a
//! page only through the templates' escaping, and no page names an engine's address.

mod book;
mod format;
mod i18n;
mod lists;
mod market;
mod org;
mod report;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;
use uuid::Uuid;

use format::{context_label, count, ms, number, rate};
use i18n::{Labels, Lang};
use report::{ReportBody, Rows};

/// Registers the pages and their stylesheet.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/reports/{id}", web::get().to(report_page))
        .route("/runs/{id}", web::get().to(run_page))
        .route("/models/{id}", web::get().to(model_page))
        .route("/hardware/{gpu}", web::get().to(hardware_page))
        .route("/calculator", web::get().to(calculator_page))
        .route("/planner", web::get().to(planner_page))
        .route("/compare", web::get().to(compare_page))
        .route("/confirm-email", web::get().to(email_link_page))
        .route("/confirm-email", web::post().to(confirm_email_form))
        .route("/reset-password", web::get().to(email_link_page))
        .route("/reset-password", web::post().to(reset_password_form))
        .route("/assets/site.css", web::get().to(stylesheet))
        .route("/assets/icon.svg", web::get().to(icon))
        .route("/favicon.ico", web::get().to(icon))
        .configure(book::configure)
        .configure(lists::configure)
        .configure(market::configure)
        .configure(org::configure);
}

/// No scripts, nothing from elsewhere, not framed, forms post only here.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
                   frame-ancestors 'none'; base-uri 'none'";

const STYLESHEET: &str = include_str!("../../templates/site.css");
const ICON: &str = include_str!("../../templates/icon.svg");

fn asset(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}

async fn stylesheet() -> HttpResponse {
    asset("text/css; charset=utf-8", STYLESHEET)
}

/// The site's icon (also at `/favicon.ico`, where browsers look unasked).
async fn icon() -> HttpResponse {
    asset("image/svg+xml", ICON)
}

/// What every page's frame needs: its language, title, the JSON it renders, and links that
/// keep a language chosen by `?lang=`.
pub struct Frame {
    pub l: &'static Labels,
    pub lang: &'static str,
    pub title: String,
    /// The JSON this page renders.
    pub json: String,
    pub to_en: String,
    pub to_zh: String,
    carry: Option<&'static str>,
    /// This page's path, which its navigation marks as the current page.
    path: String,
}

/// One item of the navigation.
pub struct NavItem {
    pub href: String,
    pub label: &'static str,
    /// Its place in the site, for tests: `getting-started`, `leaderboard`, ...
    pub key: &'static str,
    pub current: bool,
}

/// A label of [`Labels`], chosen.
type Label = fn(&Labels) -> &'static str;

/// The navigation, in the reference site's order (the capacity planner, which it lacks,
/// after the calculator): each item's key, path and label.
const NAV: [(&str, &str, Label); 14] = [
    ("getting-started", "/getting-started", |l| {
        l.nav_getting_started
    }),
    ("leaderboard", "/", |l| l.nav_leaderboard),
    ("calculator", "/calculator", |l| l.nav_calculator),
    ("planner", "/planner", |l| l.nav_planner),
    ("models", "/models", |l| l.nav_models),
    ("orgs", "/orgs", |l| l.nav_orgs),
    ("reports", "/reports", |l| l.nav_reports),
    ("runs", "/runs", |l| l.nav_runs),
    ("hardware", "/hardware", |l| l.nav_hardware),
    ("benchmarks", "/benchmarks", |l| l.nav_benchmarks),
    ("marketplace", "/marketplace", |l| l.nav_marketplace),
    ("rent", "/rent", |l| l.nav_rent),
    ("pro", "/pro", |l| l.nav_pro),
    ("api", "/docs/", |l| l.nav_api),
];

impl Frame {
    /// The frame of a page rendering `json`; its title is set once the page knows it.
    fn new(req: &HttpRequest, json: String) -> Self {
        let (lang, chosen) = Lang::of_request(req);
        // The same page in the other language: its query without `lang`, plus the new one.
        let rest: Vec<&str> = req
            .query_string()
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("lang="))
            .collect();
        let switch = |tag: &str| {
            let mut query = rest.clone();
            let pair = format!("lang={tag}");
            query.push(&pair);
            format!("{}?{}", req.path(), query.join("&"))
        };
        Self {
            l: lang.labels(),
            lang: lang.tag(),
            title: String::new(),
            json,
            to_en: switch(Lang::En.tag()),
            to_zh: switch(Lang::ZhHant.tag()),
            carry: chosen.then_some(lang.tag()),
            path: req.path().to_owned(),
        }
    }

    /// The navigation, in this page's language (the API's viewer has only English).
    pub fn nav(&self) -> Vec<NavItem> {
        NAV.iter()
            .map(|&(key, path, label)| NavItem {
                href: if key == "api" {
                    path.to_owned()
                } else {
                    self.link(path)
                },
                label: label(self.l),
                key,
                current: self.path == path,
            })
            .collect()
    }

    /// An address on this site, in this page's language when `?lang=` chose it (the
    /// parameter goes before any `#fragment`).
    pub fn link(&self, path: &str) -> String {
        let Some(tag) = self.carry else {
            return path.to_owned();
        };
        let (path, fragment) = path.split_once('#').map_or((path, ""), |(p, f)| (p, f));
        let joiner = if path.contains('?') { '&' } else { '?' };
        let fragment = if fragment.is_empty() {
            String::new()
        } else {
            format!("#{fragment}")
        };
        format!("{path}{joiner}lang={tag}{fragment}")
    }

    /// The language `?lang=` chose, which a form on the page carries on.
    pub fn chosen_lang(&self) -> Option<&'static str> {
        self.carry
    }

    /// Links to the catalog entries a report, run or listing names.
    fn catalog_links(&self, gpu: Option<&str>, model: Option<&str>) -> Vec<(String, String)> {
        let gpu = gpu.map(|g| (self.link(&format!("/hardware/{g}")), g.to_owned()));
        let model = model.map(|m| (self.link(&format!("/models/{m}")), m.to_owned()));
        gpu.into_iter().chain(model).collect()
    }
}

fn html(status: StatusCode, lang: &str, body: Result<String, askama::Error>) -> HttpResponse {
    match body {
        Ok(body) => HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .insert_header((header::CONTENT_LANGUAGE, lang))
            .insert_header((header::VARY, "Accept-Language"))
            .insert_header((
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CSP),
            ))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .insert_header((header::REFERRER_POLICY, "same-origin"))
            .body(body),
        Err(e) => {
            tracing::error!(error = %e, "a page failed to render");
            HttpResponse::InternalServerError().finish()
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    frame: Frame,
    message: &'static str,
}

/// A page for what went wrong: 404 for what does not exist (or is not shown), 500 otherwise
/// (logged, never described).
fn error_page(req: &HttpRequest, error: AppError) -> HttpResponse {
    let status = match error {
        AppError::NotFound(_) => StatusCode::NOT_FOUND,
        AppError::Invalid(_) | AppError::Validation(_) => StatusCode::NOT_FOUND,
        other => {
            tracing::error!(error = %other, path = req.path(), "a page failed");
            StatusCode::INTERNAL_SERVER_ERROR
        }
    };
    let mut frame = Frame::new(req, "/openapi.json".to_owned());
    frame.title = frame.l.not_found.to_owned();
    let page = ErrorPage {
        message: frame.l.not_found_text,
        frame,
    };
    let lang = page.frame.lang;
    html(status, lang, page.render())
}

fn uuid_of(raw: &str) -> Result<Uuid, AppError> {
    Uuid::parse_str(raw).map_err(|_| AppError::NotFound("page"))
}

/// Renders `build`'s page, or the error page.
async fn respond<T: Template>(
    req: &HttpRequest,
    build: impl Future<Output = Result<(T, &'static str), AppError>>,
) -> HttpResponse {
    match build.await {
        Ok((page, lang)) => html(StatusCode::OK, lang, page.render()),
        Err(e) => error_page(req, e),
    }
}

// ---- the leaderboard ------------------------------------------------------------------

/// A leaderboard row of either source: GPU, model, context, concurrency, total tok/s, per
/// request tok/s, and the page it comes from.
type BestCell = (String, String, i64, i64, f64, Option<f64>, String);

struct BoardRow {
    gpu: String,
    model: String,
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

async fn index(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
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
                |(gpu, model, context, concurrency, total, per_request, page)| BoardRow {
                    gpu,
                    model,
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

// ---- reports and community runs ---------------------------------------------------------

/// A report's place in the log, and its proof against the latest checkpoint.
struct LogBlock {
    leaf_index: u64,
    proof: Option<ProofBlock>,
}

struct ProofBlock {
    tree_size: u64,
    hashes: Vec<String>,
    checkpoint: String,
}

async fn log_block(
    app: &App,
    id: Uuid,
    index: Option<u64>,
    share: Option<&str>,
) -> Result<Option<LogBlock>, AppError> {
    let Some(leaf_index) = index else {
        return Ok(None);
    };
    let proof = match app.report_proof(id, None, None, share).await {
        Ok(app::log::ProofOutcome::Ready(p)) => Some(ProofBlock {
            tree_size: p.tree_size,
            hashes: p.inclusion_proof,
            checkpoint: p.checkpoint,
        }),
        // No checkpoint covers it yet (or none was signed yet).
        Ok(app::log::ProofOutcome::Pending { .. }) | Err(AppError::NotFound(_)) => None,
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

/// The claim's rows of the hardware block.
fn claimed_hardware(claim: &app::reports::ClaimedHardware, l: &'static Labels) -> Rows {
    let mut rows = Rows::new();
    rows.extend(claim.gpu_model.clone().map(|v| (l.gpu, v)));
    rows.extend(claim.gpu_count.map(|v| (l.gpu_count, v.to_string())));
    rows.extend(claim.vram_gb.map(|v| (l.vram, format!("{v} GB"))));
    rows.extend(claim.cpu_model.clone().map(|v| (l.cpu, v)));
    rows.extend(claim.ram_gb.map(|v| (l.ram, format!("{v} GB"))));
    rows.extend(claim.region.clone().map(|v| (l.region, v)));
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

async fn report_page(req: HttpRequest, app: web::Data<App>, id: web::Path<String>) -> HttpResponse {
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
                claimed_hardware(&signed.claimed, l),
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

#[derive(Template)]
#[template(path = "run.html")]
struct RunPage {
    frame: Frame,
    title: String,
    body: Option<ReportBody>,
    handle: String,
    submitted_at: String,
    launch_command: Option<String>,
    hardware_notes: Option<String>,
    catalog: Vec<(String, String)>,
    report_sha256: String,
    key_id: String,
    log: Option<LogBlock>,
    proof_json: String,
}

async fn run_page(req: HttpRequest, app: web::Data<App>, id: web::Path<String>) -> HttpResponse {
    respond(&req, async {
        let id = uuid_of(&id)?;
        let run = app.community_run(id).await?;
        let frame = Frame::new(&req, format!("/v1/runs/{id}"));
        let l = frame.l;
        let gpu = app
            .gpus()?
            .iter()
            .find(|g| run.catalog_gpu.as_deref() == Some(g.id.as_str()));
        let mut hardware = Rows::new();
        if let Some(gpu) = gpu {
            hardware.push((l.gpu, gpu.name.clone()));
            hardware.push((l.vram, format!("{} GB", number(gpu.vram_gb, 0))));
        }
        let body = serde_json::from_value::<app::reports::model::Report>(run.report.clone())
            .ok()
            .map(|r| ReportBody::of(&r, hardware, l));
        let catalog = frame.catalog_links(run.catalog_gpu.as_deref(), run.catalog_model.as_deref());
        let gpu_name = gpu.map_or("?", |g| g.name.as_str());
        let title = format!("{} {} {gpu_name}", run.model, l.on);
        let log = log_block(&app, id, run.log_index, None).await?;
        let mut frame = frame;
        frame.title = format!("{} · {title}", l.community_run);
        let lang = frame.lang;
        Ok((
            RunPage {
                frame,
                title,
                body,
                handle: run.submitter_handle,
                submitted_at: run.created_at.to_rfc3339(),
                launch_command: run.launch_command,
                hardware_notes: run.hardware_notes,
                catalog,
                report_sha256: run.report_sha256,
                key_id: run.receipt["signatures"][0]["keyid"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                log,
                proof_json: format!("/v1/reports/{id}/proof"),
            },
            lang,
        ))
    })
    .await
}

// ---- catalogs ---------------------------------------------------------------------------

/// A measured cell of a model or GPU page, verified or community.
struct ResultRow {
    /// The other catalog entry: the GPU on a model's page, the model on a GPU's.
    name: String,
    name_href: String,
    context_label: String,
    concurrency: i64,
    total: String,
    per_request: String,
    ttft: String,
    community: bool,
    href: String,
}

/// The verified cells, then community runs' valid cells (newest runs first); the name
/// column is the model on a GPU's page (`by_model`), else the GPU.
fn result_rows(frame: &Frame, measured: app::catalogs::Measured, by_model: bool) -> Vec<ResultRow> {
    let other = |gpu: &str, model: &str| {
        if by_model {
            (model.to_owned(), frame.link(&format!("/models/{model}")))
        } else {
            (gpu.to_owned(), frame.link(&format!("/hardware/{gpu}")))
        }
    };
    let mut rows: Vec<ResultRow> = measured
        .verified
        .into_iter()
        .map(|c| {
            let (name, name_href) = other(&c.catalog_gpu, &c.catalog_model);
            ResultRow {
                name,
                name_href,
                context_label: context_label(c.context_tokens.max(0) as u64),
                concurrency: c.concurrency,
                total: rate(c.total_tok_s),
                per_request: rate(c.per_request_tok_s),
                ttft: ms(c.ttft_ms, 0),
                community: false,
                href: frame.link(&format!("/reports/{}", c.report_id)),
            }
        })
        .collect();
    rows.extend(measured.community.into_iter().map(|c| {
        let (name, name_href) = other(&c.catalog_gpu, &c.catalog_model);
        ResultRow {
            name,
            name_href,
            context_label: context_label(c.cell.context_tokens),
            concurrency: c.cell.concurrency as i64,
            total: rate(c.cell.total_tok_s),
            per_request: rate(c.cell.per_request_tok_s),
            ttft: ms(c.cell.ttft_ms_median, 0),
            community: true,
            href: frame.link(&format!("/runs/{}", c.run_id)),
        }
    }));
    rows
}

/// A catalog entry's page: a model's (results by GPU) or a GPU's (results by model).
#[derive(Template)]
#[template(path = "catalog_entry.html")]
struct CatalogEntryPage {
    frame: Frame,
    id: String,
    name: String,
    source: String,
    facts: Rows,
    results: Vec<ResultRow>,
    /// A GPU's page: its results are by model.
    by_model: bool,
    other_column: &'static str,
}

async fn model_page(req: HttpRequest, app: web::Data<App>, id: web::Path<String>) -> HttpResponse {
    respond(&req, async {
        let (model, measured) = app.model(&id).await?;
        let mut frame = Frame::new(&req, format!("/v1/models/{}", model.id));
        let l = frame.l;
        let results = result_rows(&frame, measured, false);
        frame.title = model.name.clone();
        let facts = vec![
            (
                l.parameters,
                format!("{} {}", number(model.parameters_b, 1), l.billion),
            ),
            (l.weight_bits, number(model.weight_bits, 0)),
            (l.layers, model.layers.to_string()),
            (l.attention_layers, model.attention_layers.to_string()),
            (l.kv_heads, model.kv_heads.to_string()),
            (l.head_dim, model.head_dim.to_string()),
            (
                l.recurrent_state,
                format!("{} {}", number(model.recurrent_state_bytes, 0), l.bytes),
            ),
        ];
        let lang = frame.lang;
        Ok((
            CatalogEntryPage {
                frame,
                id: model.id,
                name: model.name,
                source: model.source,
                facts,
                results,
                by_model: false,
                other_column: l.gpu,
            },
            lang,
        ))
    })
    .await
}

async fn hardware_page(
    req: HttpRequest,
    app: web::Data<App>,
    id: web::Path<String>,
) -> HttpResponse {
    respond(&req, async {
        let (gpu, measured) = app.gpu(&id).await?;
        let mut frame = Frame::new(&req, format!("/v1/hardware/{}", gpu.id));
        let l = frame.l;
        let results = result_rows(&frame, measured, true);
        frame.title = gpu.name.clone();
        let facts = vec![
            (l.vendor, gpu.vendor.clone()),
            (l.vram, format!("{} GB", number(gpu.vram_gb, 0))),
            (
                l.memory_bandwidth,
                format!("{} GB/s", number(gpu.memory_bandwidth_gb_s, 0)),
            ),
            (l.fp16_tflops, number(gpu.fp16_tensor_tflops, 1)),
        ];
        let lang = frame.lang;
        Ok((
            CatalogEntryPage {
                frame,
                id: gpu.id,
                name: gpu.name,
                source: gpu.source,
                facts,
                results,
                by_model: true,
                other_column: l.model,
            },
            lang,
        ))
    })
    .await
}

// ---- the calculator ---------------------------------------------------------------------

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
struct ShareParam {
    share: Option<String>,
}

#[derive(serde::Deserialize)]
struct CalculatorForm {
    gpu: Option<String>,
    model: Option<String>,
    context: Option<String>,
    concurrency: Option<String>,
}

async fn calculator_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
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

// ---- the capacity planner -------------------------------------------------------------

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

async fn planner_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
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
        let params = app::planner::PlannerParams {
            model: Some(model.to_owned()),
            context: Some(context as i64),
            users: Some(users as i64),
            ttft_p99_ms: Some(ttft),
            itl_p99_ms: Some(itl),
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
                        let measured = matches!(r.source, app::planner::Source::Measured { .. });
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

// ---- reports compared -----------------------------------------------------------------

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

/// Daily uptime as a strip of bars, oldest first: each bar's height its share up, its class
/// how it fared (`full` at 99.9 % or more, `ok` at 99 %, `low` below, `none` unobserved),
/// the day and share also in `data-` attributes and a `<title>`. Numbers and dates only.
pub(crate) fn uptime_svg(days: &[(chrono::NaiveDate, Option<f64>)]) -> String {
    const BAR: f64 = 10.0;
    const GAP: f64 = 3.0;
    const H: f64 = 40.0;
    let width = days.len() as f64 * (BAR + GAP);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {H}\" role=\"img\">"
    );
    for (i, (day, share)) in days.iter().enumerate() {
        let x = i as f64 * (BAR + GAP);
        let (class, height, shown) = match share {
            None => ("none", 4.0, "–".to_owned()),
            Some(s) => (
                if *s >= 0.999 {
                    "full"
                } else if *s >= 0.99 {
                    "ok"
                } else {
                    "low"
                },
                (H * s).max(4.0),
                format!("{:.2} %", s * 100.0),
            ),
        };
        svg.push_str(&format!(
            "<rect class=\"day {class}\" data-date=\"{day}\" data-uptime=\"{}\" x=\"{x}\" y=\"{:.1}\" width=\"{BAR}\" height=\"{height:.1}\"><title>{day}: {shown}</title></rect>",
            share.map_or_else(String::new, |s| format!("{s:.6}")),
            H - height,
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// One context's frontier as SVG: per report a path through `(per-user tok/s, total tok/s)`
/// by concurrency (its points also in `data-points`, unscaled), and the stutter limit's line
/// (per-user speed 1000 ÷ `itl_p99_ms`) when given. Numbers only: nothing a report wrote.
pub(crate) fn frontier_svg(series: &[Vec<(f64, f64)>], slo_per_user: Option<f64>) -> String {
    const W: f64 = 480.0;
    const H: f64 = 300.0;
    const PAD: f64 = 40.0;
    let max_x = series
        .iter()
        .flatten()
        .map(|p| p.0)
        .chain(slo_per_user)
        .fold(1.0f64, f64::max)
        * 1.1;
    let max_y = series.iter().flatten().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
    let x = |v: f64| PAD + v / max_x * (W - 2.0 * PAD);
    let y = |v: f64| H - PAD - v / max_y * (H - 2.0 * PAD);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" role=\"img\">\
         <line class=\"axis\" x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>\
         <line class=\"axis\" x1=\"{PAD}\" y1=\"{PAD}\" x2=\"{PAD}\" y2=\"{b}\"/>\
         <text x=\"{r}\" y=\"{t}\" text-anchor=\"end\">{mx:.0}</text>\
         <text x=\"4\" y=\"{PAD}\">{my:.0}</text>",
        b = H - PAD,
        r = W - PAD,
        t = H - PAD / 3.0,
        mx = max_x,
        my = max_y,
    );
    for (n, points) in series.iter().enumerate() {
        let d: Vec<String> = points
            .iter()
            .enumerate()
            .map(|(i, &(u, t))| {
                format!("{}{:.1},{:.1}", if i == 0 { 'M' } else { 'L' }, x(u), y(t))
            })
            .collect();
        let raw: Vec<String> = points.iter().map(|(u, t)| format!("{u},{t}")).collect();
        svg.push_str(&format!(
            "<path class=\"series s{n}\" data-report=\"{n}\" data-points=\"{}\" d=\"{}\"/>",
            raw.join(" "),
            d.join(" ")
        ));
    }
    if let Some(limit) = slo_per_user {
        svg.push_str(&format!(
            "<line class=\"slo\" x1=\"{v:.1}\" y1=\"{PAD}\" x2=\"{v:.1}\" y2=\"{b}\"/>",
            v = x(limit),
            b = H - PAD
        ));
    }
    svg.push_str("</svg>");
    svg
}

async fn compare_page(
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

/// A page of a link mailed to an address: `/confirm-email` and `/reset-password`. Opening the
/// link only shows a form; the action is its POST, so a mail scanner that fetches links acts
/// on nothing.
#[derive(Template)]
#[template(path = "email_link.html")]
struct EmailLinkPage {
    frame: Frame,
    message: &'static str,
    show_form: bool,
    action: &'static str,
    token: String,
    asks_password: bool,
    button: &'static str,
}

#[derive(Debug, serde::Deserialize)]
struct LinkForm {
    token: String,
    password: Option<String>,
}

fn email_link(
    req: &HttpRequest,
    status: StatusCode,
    token: Option<String>,
    done: bool,
) -> HttpResponse {
    let reset = req.path() == "/reset-password";
    let mut frame = Frame::new(req, "/openapi.json".to_owned());
    let l = frame.l;
    frame.title = if reset {
        l.reset_password_title
    } else {
        l.confirm_email_title
    }
    .to_owned();
    let message = match (done, &token, reset) {
        (true, _, true) => l.reset_password_done,
        (true, _, false) => l.confirm_email_done,
        (false, None, _) => l.link_not_valid,
        (false, Some(_), true) => l.reset_password_text,
        (false, Some(_), false) => l.confirm_email_text,
    };
    let page = EmailLinkPage {
        message,
        show_form: !done && token.is_some(),
        action: if reset {
            "/reset-password"
        } else {
            "/confirm-email"
        },
        token: token.unwrap_or_default(),
        asks_password: reset,
        button: if reset {
            l.reset_password_button
        } else {
            l.confirm_email_button
        },
        frame,
    };
    let lang = page.frame.lang;
    let mut res = html(status, lang, page.render());
    // The token is in this page's address: no other site learns it from a Referer.
    res.headers_mut().insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    res
}

async fn email_link_page(req: HttpRequest) -> HttpResponse {
    let token =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("token").cloned())
            .filter(|t| !t.is_empty() && t.len() <= 128);
    email_link(&req, StatusCode::OK, token, false)
}

async fn confirm_email_form(
    req: HttpRequest,
    app: web::Data<App>,
    form: web::Form<LinkForm>,
) -> HttpResponse {
    match app.confirm_email(&form.token).await {
        Ok(_) => email_link(&req, StatusCode::OK, None, true),
        Err(AppError::NotFound(_)) => email_link(&req, StatusCode::NOT_FOUND, None, false),
        Err(e) => error_page(&req, e),
    }
}

async fn reset_password_form(
    req: HttpRequest,
    app: web::Data<App>,
    form: web::Form<LinkForm>,
) -> HttpResponse {
    let client = crate::extract::client_network(&req);
    let password = form.password.clone().unwrap_or_default();
    match app.reset_password(&form.token, &password, client).await {
        Ok(()) => email_link(&req, StatusCode::OK, None, true),
        Err(AppError::NotFound(_)) => email_link(&req, StatusCode::NOT_FOUND, None, false),
        // A password too short: the form again, with the same token.
        Err(AppError::Validation(_)) => email_link(
            &req,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some(form.token.clone()),
            false,
        ),
        Err(e) => error_page(&req, e),
    }
}
