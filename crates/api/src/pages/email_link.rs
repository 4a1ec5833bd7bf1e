//! The pages behind emailed links: confirming an address and resetting a password.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;

use super::{Frame, error_page, html};

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
pub(super) struct LinkForm {
    token: String,
    password: Option<String>,
}

pub(super) fn email_link(
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

pub(super) async fn email_link_page(req: HttpRequest) -> HttpResponse {
    let token =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("token").cloned())
            .filter(|t| !t.is_empty() && t.len() <= 128);
    email_link(&req, StatusCode::OK, token, false)
}

pub(super) async fn confirm_email_form(
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

pub(super) async fn reset_password_form(
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
