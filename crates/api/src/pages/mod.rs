//! The results site: server-rendered HTML over the same use cases as the JSON API. Templates
//! are compiled in (askama, escaped by default), no page needs JavaScript, every page links
//! the JSON it renders, and labels come in English or Traditional Chinese (`?lang=`, else
//! `Accept-Language`). Engines and submitters are hostile: everything they wrote reaches a
//! page only through the templates' escaping, and no page names an engine's address.

mod book;
mod calculator;
mod catalog;
mod compare;
mod email_link;
mod format;
mod history;
mod i18n;
mod index;
mod lists;
mod market;
mod org;
mod planner;
mod report;
mod report_page;
mod run;
mod svg;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{FromRequest, Handler, HttpRequest, HttpResponse, Responder, web};
use app::AppError;
use app::limits::RateClass;
use askama::Template;
use uuid::Uuid;

use i18n::{Labels, Lang};

/// A page of the site: its method and route, and the budget a request for it spends — the
/// site's counterpart of the API's `x-rate-class` (`None`: none, like `unlimited`). The
/// limiter reads these (`rate_classes`), so a page's class is declared where its route is.
pub struct Page {
    method: &'static str,
    path: &'static str,
    class: Option<RateClass>,
    route: actix_web::Route,
}

impl Page {
    /// A page answering `GET` (and `HEAD`) at `path`.
    pub fn get<F, Args>(path: &'static str, class: Option<RateClass>, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        Self {
            method: "GET",
            path,
            class,
            route: web::get().to(handler),
        }
    }

    /// A form's `POST` to `path`.
    pub fn post<F, Args>(path: &'static str, class: Option<RateClass>, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        Self {
            method: "POST",
            path,
            class,
            route: web::post().to(handler),
        }
    }
}

/// Every page of the site, with its stylesheet and icon.
fn pages() -> Vec<Page> {
    use RateClass::{Reads, Search, Writes};
    let mut pages = vec![
        Page::get("/", Some(Reads), index::index),
        Page::get("/reports/{id}", Some(Reads), report_page::report_page),
        Page::get("/runs/{id}", Some(Reads), run::run_page),
        Page::get("/models/{id}", Some(Reads), catalog::model_page),
        Page::get("/hardware/{gpu}", Some(Reads), catalog::hardware_page),
        Page::get("/calculator", Some(Reads), calculator::calculator_page),
        Page::get("/planner", Some(Search), planner::planner_page),
        Page::get("/compare", Some(Reads), compare::compare_page),
        Page::get("/market/history", Some(Search), history::history_page),
        Page::get("/confirm-email", Some(Reads), email_link::email_link_page),
        Page::post(
            "/confirm-email",
            Some(Writes),
            email_link::confirm_email_form,
        ),
        Page::get("/reset-password", Some(Reads), email_link::email_link_page),
        Page::post(
            "/reset-password",
            Some(Writes),
            email_link::reset_password_form,
        ),
        Page::get("/assets/site.css", None, stylesheet),
        Page::get("/assets/icon.svg", None, icon),
        Page::get("/favicon.ico", None, icon),
    ];
    pages.extend(book::pages());
    pages.extend(lists::pages());
    pages.extend(market::pages());
    pages.extend(org::pages());
    pages
}

/// Registers the pages and their stylesheet.
pub fn configure(cfg: &mut web::ServiceConfig) {
    for page in pages() {
        cfg.route(page.path, page.route);
    }
}

/// Each page's budget, by method and route, as the limiter looks it up.
pub fn rate_classes() -> Vec<((&'static str, &'static str), Option<RateClass>)> {
    pages()
        .into_iter()
        .map(|page| ((page.method, page.path), page.class))
        .collect()
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
