//! The site's index pages: `/models`, `/hardware`, `/reports`, `/runs` and `/orgs`, each a
//! table whose rows link to their pages. The three that page read their API's query (the
//! same fields, the same checks, the same cursor) and list what it lists, so a page and its
//! JSON never disagree.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;
use serde::de::DeserializeOwned;

use app::limits::RateClass;

use super::Page;
use super::format::number;
use super::i18n::Labels;
use super::{Frame, Label, error_page, html};
use crate::views::cursor_after;

/// The index pages.
pub fn pages() -> Vec<Page> {
    let reads = Some(RateClass::Reads);
    vec![
        Page::get("/models", reads, models_page),
        Page::get("/hardware", reads, hardware_page),
        Page::get("/reports", reads, reports_page),
        Page::get("/runs", reads, runs_page),
        Page::get("/orgs", reads, orgs_page),
    ]
}

/// A filter of a list's form: a choice among `options` (value, words, chosen), with "any"
/// first when `any`, or a text field holding `value`.
pub struct Filter {
    pub name: &'static str,
    pub label: &'static str,
    pub options: Option<Vec<(String, String, bool)>>,
    pub any: bool,
    pub value: String,
}

impl Filter {
    /// A choice among `choices` (value, words), `chosen` selected.
    pub fn choice(
        name: &'static str,
        label: &'static str,
        choices: impl IntoIterator<Item = (String, String)>,
        chosen: Option<&str>,
    ) -> Self {
        Self {
            name,
            label,
            options: Some(
                choices
                    .into_iter()
                    .map(|(value, words)| {
                        let selected = chosen == Some(value.as_str());
                        (value, words, selected)
                    })
                    .collect(),
            ),
            any: true,
            value: String::new(),
        }
    }

    /// A text field.
    pub fn text(name: &'static str, label: &'static str, value: Option<String>) -> Self {
        Self {
            name,
            label,
            options: None,
            any: false,
            value: value.unwrap_or_default(),
        }
    }
}

/// A table cell: its words, where it links, its class.
pub struct Cell {
    pub text: String,
    pub href: Option<String>,
    pub class: &'static str,
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            href: None,
            class: "",
        }
    }

    pub fn link(text: impl Into<String>, href: String) -> Self {
        Self {
            href: Some(href),
            ..Self::text(text)
        }
    }

    pub fn class(mut self, class: &'static str) -> Self {
        self.class = class;
        self
    }
}

/// A row: the id of what it lists (`data-id`) and its cells.
pub struct Row {
    pub id: String,
    pub cells: Vec<Cell>,
}

/// An index page: a title, a text, a form of filters, a table and the next page.
#[derive(Template)]
#[template(path = "list.html")]
pub struct ListPage {
    pub frame: Frame,
    pub text: &'static str,
    /// Where the form goes (this page).
    pub action: &'static str,
    pub filters: Vec<Filter>,
    pub button: &'static str,
    pub problems: Vec<String>,
    pub columns: Vec<&'static str>,
    pub rows: Vec<Row>,
    pub empty: &'static str,
    pub next: Option<String>,
    /// Its query could not be read (its API answers 400 to it).
    pub malformed: bool,
}

impl ListPage {
    pub fn new(frame: Frame, action: &'static str, text: &'static str) -> Self {
        let l = frame.l;
        Self {
            frame,
            text,
            action,
            filters: Vec::new(),
            button: l.filter,
            problems: Vec::new(),
            columns: Vec::new(),
            rows: Vec::new(),
            empty: l.nothing_yet,
            next: None,
            malformed: false,
        }
    }

    /// The page: as its API answers the same query, 400 when it could not be read, 422
    /// when it was refused (the problems listed), else 200.
    pub fn respond(mut self) -> HttpResponse {
        let status = if self.problems.is_empty() {
            StatusCode::OK
        } else {
            // Its API refuses the same query: there is no JSON to link.
            self.frame.json.clear();
            if self.malformed {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::UNPROCESSABLE_ENTITY
            }
        };
        let lang = self.frame.lang;
        html(status, lang, self.render())
    }

    /// The page with `found`'s items in its table and a link to the page after its cursor,
    /// or refusing the query `found` failed on.
    pub fn show<T>(
        mut self,
        req: &HttpRequest,
        found: Result<(Vec<T>, Option<String>), AppError>,
        filters: &str,
        row: impl Fn(&Frame, T) -> Row,
    ) -> HttpResponse {
        let (items, cursor) = match found {
            Ok(found) => found,
            Err(e) => return self.refused(req, e),
        };
        self.next = next_page(&self.frame, self.action, filters, cursor);
        self.rows = items
            .into_iter()
            .map(|item| row(&self.frame, item))
            .collect();
        self.respond()
    }

    /// A refusal of the query: 422 with why, for the form (a 5xx is the error page).
    pub fn refused(mut self, req: &HttpRequest, error: AppError) -> HttpResponse {
        match error {
            AppError::Validation(e) => self.problems.push(format!("{}: {}", e.field, e.message)),
            AppError::Invalid(errors) => self.problems.extend(
                errors
                    .into_iter()
                    .map(|(field, message)| format!("{field}: {message}")),
            ),
            other => return error_page(req, other),
        }
        self.respond()
    }
}

/// The query of a page as its API reads it (`T`), and its filters (for the next page's and
/// the JSON's address): the page's `lang`, its cursor and the form's empty fields left out.
/// A query its API would refuse is [`AppError::Invalid`], naming the field.
fn page_query<T: DeserializeOwned>(req: &HttpRequest) -> (Result<T, AppError>, String) {
    let pairs: Vec<&str> = req
        .query_string()
        .split('&')
        .filter(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            !key.is_empty() && key != "lang" && !value.is_empty()
        })
        .collect();
    let filters: Vec<&str> = pairs
        .iter()
        .copied()
        .filter(|pair| !pair.starts_with("cursor="))
        .collect();
    let parsed = crate::extract::parse_query(&pairs.join("&")).map_err(|problem| {
        let field = problem.field.unwrap_or_else(|| "query".to_owned());
        AppError::Invalid(vec![(field, problem.message)])
    });
    (parsed, filters.join("&"))
}

/// A paged list page framed for `api`'s JSON with the query's filters, and that query.
pub fn paged<Q: DeserializeOwned>(
    req: &HttpRequest,
    api: &str,
    action: &'static str,
    title: Label,
    text: Label,
) -> (ListPage, Result<Q, AppError>, String) {
    let (parsed, filters) = page_query::<Q>(req);
    let json = if parsed.is_ok() {
        json_of(api, &filters)
    } else {
        String::new()
    };
    let mut page = framed(req, json, action, title, text);
    page.malformed = parsed.is_err();
    (page, parsed, filters)
}

/// The next page's address: this page's filters and the cursor.
fn next_page(frame: &Frame, path: &str, filters: &str, cursor: Option<String>) -> Option<String> {
    cursor.map(|c| {
        let joiner = if filters.is_empty() { "" } else { "&" };
        frame.link(&format!("{path}?{filters}{joiner}cursor={c}"))
    })
}

/// The JSON a list page renders: its API's path with the page's filters (no cursor: the
/// first page).
fn json_of(api: &str, filters: &str) -> String {
    if filters.is_empty() {
        api.to_owned()
    } else {
        format!("{api}?{filters}")
    }
}

/// The filters by catalog model and GPU (`model`, `gpu`), the chosen ones selected.
fn catalog_filters(
    app: &App,
    l: &'static Labels,
    model: Option<&str>,
    gpu: Option<&str>,
) -> Result<Vec<Filter>, AppError> {
    let models = app.models()?.iter().map(|m| (m.id.clone(), m.name.clone()));
    let gpus = app.gpus()?.iter().map(|g| (g.id.clone(), g.name.clone()));
    Ok(vec![
        Filter::choice("model", l.model, models, model),
        Filter::choice("gpu", l.gpu, gpus, gpu),
    ])
}

/// A time as the pages print it: UTC, to the second.
pub fn when(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// The first 8 characters of an id, as a link's words.
fn short(id: &str) -> String {
    id.chars().take(8).collect()
}

/// An index page framed for `json`, titled and introduced in its language.
fn framed(
    req: &HttpRequest,
    json: String,
    action: &'static str,
    title: Label,
    text: Label,
) -> ListPage {
    let mut frame = Frame::new(req, json);
    frame.title = title(frame.l).to_owned();
    let l = frame.l;
    ListPage::new(frame, action, text(l))
}

/// A catalog's index page: its `columns` and `rows` (all of them: catalogs are short).
fn catalog_page(
    req: &HttpRequest,
    (api, action): (&str, &'static str),
    (title, text): (Label, Label),
    columns: impl FnOnce(&'static Labels) -> Vec<&'static str>,
    rows: impl FnOnce(&Frame) -> Result<Vec<Row>, AppError>,
) -> HttpResponse {
    let mut page = framed(req, api.to_owned(), action, title, text);
    page.columns = columns(page.frame.l);
    match rows(&page.frame) {
        Ok(rows) => page.rows = rows,
        Err(e) => return error_page(req, e),
    }
    page.respond()
}

async fn models_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    catalog_page(
        &req,
        ("/v1/models", "/models"),
        (|l| l.nav_models, |l| l.models_text),
        |l| vec![l.model, l.parameters, l.weight_bits, l.layers, l.kv_heads],
        |frame| {
            let l = frame.l;
            Ok(app
                .models()?
                .iter()
                .map(|m| Row {
                    id: m.id.clone(),
                    cells: vec![
                        Cell::link(&m.name, frame.link(&format!("/models/{}", m.id))),
                        Cell::text(format!("{} {}", number(m.parameters_b, 1), l.billion))
                            .class("num"),
                        Cell::text(number(m.weight_bits, 0)).class("num"),
                        Cell::text(m.layers.to_string()).class("num"),
                        Cell::text(m.kv_heads.to_string()).class("num"),
                    ],
                })
                .collect())
        },
    )
}

async fn hardware_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    catalog_page(
        &req,
        ("/v1/hardware", "/hardware"),
        (|l| l.nav_hardware, |l| l.hardware_text),
        |l| vec![l.gpu, l.vendor, l.vram, l.memory_bandwidth, l.fp16_tflops],
        |frame| {
            Ok(app
                .gpus()?
                .iter()
                .map(|g| Row {
                    id: g.id.clone(),
                    cells: vec![
                        Cell::link(&g.name, frame.link(&format!("/hardware/{}", g.id))),
                        Cell::text(&g.vendor),
                        Cell::text(format!("{} GB", number(g.vram_gb, 0))).class("num"),
                        Cell::text(format!("{} GB/s", number(g.memory_bandwidth_gb_s, 0)))
                            .class("num"),
                        Cell::text(number(g.fp16_tensor_tflops, 1)).class("num"),
                    ],
                })
                .collect())
        },
    )
}

async fn reports_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    use crate::routes::reports::list::PublicReportsQuery;
    let (mut page, parsed, filters) = paged::<PublicReportsQuery>(
        &req,
        "/v1/reports",
        "/reports",
        |l| l.nav_reports,
        |l| l.reports_text,
    );
    let l = page.frame.l;
    let query = parsed.as_ref().ok();
    let (model, gpu) = (
        query.and_then(|q| q.model.as_deref()),
        query.and_then(|q| q.gpu.as_deref()),
    );
    page.filters = match catalog_filters(&app, l, model, gpu) {
        Ok(filters) => filters,
        Err(e) => return error_page(&req, e),
    };
    let kinds = [
        ("verification".to_owned(), l.kind_verification.to_owned()),
        ("spot_check".to_owned(), l.spot_check.to_owned()),
    ];
    let kind = query.and_then(|q| q.kind.as_deref());
    page.filters
        .push(Filter::choice("kind", l.kind, kinds, kind));
    page.columns = vec![l.report, l.model, l.gpu, l.kind, l.standard, l.published];
    let fetched = async {
        let query = parsed?;
        let limit = app::market::listings::page_limit(query.limit)?;
        let reports = app.public_reports(query.filters(), limit).await?;
        let cursor = cursor_after(&reports, limit, |r| r.id.to_string());
        Ok::<_, AppError>((reports, cursor))
    };
    page.show(&req, fetched.await, &filters, |frame, r| {
        let id = r.id.to_string();
        let (kind, verdict, class) = (
            if r.kind == "spot_check" {
                l.spot_check
            } else {
                l.kind_verification
            },
            if r.compliant {
                l.compliant
            } else {
                l.not_compliant
            },
            if r.compliant {
                "compliance ok"
            } else {
                "compliance bad"
            },
        );
        Row {
            cells: vec![
                Cell::link(short(&id), frame.link(&format!("/reports/{id}"))),
                Cell::text(r.summary.model),
                Cell::text(r.summary.gpu_model),
                Cell::text(kind),
                Cell::text(verdict).class(class),
                Cell::text(when(r.created_at)),
            ],
            id,
        }
    })
}

async fn runs_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    use crate::routes::runs::list::RunsQuery;
    let (mut page, parsed, filters) =
        paged::<RunsQuery>(&req, "/v1/runs", "/runs", |l| l.nav_runs, |l| l.runs_text);
    let l = page.frame.l;
    let query = parsed.as_ref().ok();
    let (model, gpu) = (
        query.and_then(|q| q.model.as_deref()),
        query.and_then(|q| q.gpu.as_deref()),
    );
    page.filters = match catalog_filters(&app, l, model, gpu) {
        Ok(filters) => filters,
        Err(e) => return error_page(&req, e),
    };
    page.columns = vec![l.run, l.model, l.gpu, l.submitted_by, l.submitted];
    let fetched = async {
        let query = parsed?;
        let limit = app::market::listings::page_limit(query.limit)?;
        let (gpu, model) = (query.gpu.as_deref(), query.model.as_deref());
        let runs = app.community_runs(gpu, model, query.cursor, limit).await?;
        let cursor = cursor_after(&runs, limit, |r| r.id.to_string());
        Ok::<_, AppError>((runs, cursor))
    };
    page.show(&req, fetched.await, &filters, |frame, r| {
        let id = r.id.to_string();
        let gpu = match r.catalog_gpu {
            Some(gpu) => Cell::link(&gpu, frame.link(&format!("/hardware/{gpu}"))),
            None => Cell::text("—"),
        };
        Row {
            cells: vec![
                Cell::link(short(&id), frame.link(&format!("/runs/{id}"))),
                Cell::text(r.model),
                gpu,
                Cell::text(format!("@{}", r.submitter_handle)),
                Cell::text(when(r.created_at)),
            ],
            id,
        }
    })
}

async fn orgs_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    use crate::routes::orgs::directory::DirectoryQuery;
    let (mut page, parsed, filters) = paged::<DirectoryQuery>(
        &req,
        "/v1/organizations",
        "/orgs",
        |l| l.nav_orgs,
        |l| l.orgs_text,
    );
    let l = page.frame.l;
    page.columns = vec![l.name, l.listings, l.verified_listings];
    let fetched = async {
        let query = parsed?;
        let limit = app::market::listings::page_limit(query.limit)?;
        let orgs = app
            .public_orgs(query.cursor.map(domain::OrgId::from_uuid), limit)
            .await?;
        let cursor = cursor_after(&orgs, limit, |o| o.org.id.as_uuid().to_string());
        Ok::<_, AppError>((orgs, cursor))
    };
    page.show(&req, fetched.await, &filters, |frame, o| {
        let id = o.org.id.as_uuid().to_string();
        Row {
            cells: vec![
                Cell::link(o.org.name, frame.link(&format!("/orgs/{id}"))),
                Cell::text(o.listings.to_string()).class("num"),
                Cell::text(o.verified_listings.to_string()).class("num"),
            ],
            id,
        }
    })
}
