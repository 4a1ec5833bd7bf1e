//! Email verification and password reset through a real SMTP server (Python's aiosmtpd, a
//! separate process): the mail arrives, its link works once; an unconfirmed account reads
//! but does not act; a squatter who registers an address first cannot keep it from the
//! person who holds its mailbox (a second registration is `email_taken`; a password reset
//! takes the account over); a confirmation link only confirms; a password reset answers
//! alike whether the account exists.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use store::Backend;

use crate::helpers::{PASSWORD, TestApp, assert_problem};

on_backends!(
    a_confirmation_mail_arrives_and_its_link_works_once,
    a_squatter_cannot_keep_an_address_from_the_person_who_holds_its_mailbox,
    a_confirmation_link_only_confirms,
    a_password_is_reset_through_the_mailed_link,
    a_stranger_asking_for_resets_never_blocks_the_owners_mail_nor_a_reset,
);

/// An SMTP server of the test's own that keeps every message in a maildir.
pub(crate) struct SmtpSink {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl SmtpSink {
    pub(crate) fn start() -> Self {
        let python = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(&python)
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(dir.path().join("mail"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{python} -m aiosmtpd (scripts/check installs it): {e}"));
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "aiosmtpd did not start: is it installed in {python}?"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { child, port, dir }
    }

    pub(crate) fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    fn mail_dir(&self) -> PathBuf {
        self.dir.path().join("mail").join("new")
    }

    /// Every message received so far, as text.
    pub(crate) fn messages(&self) -> Vec<String> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(self.mail_dir())
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        paths.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
        paths
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect()
    }

    /// Waits for the `n`th message (1-based) and returns it.
    pub(crate) async fn nth(&self, n: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(message) = self.messages().into_iter().nth(n - 1) {
                return message;
            }
            assert!(Instant::now() < deadline, "no message {n} arrived");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A quoted-printable body decoded (RFC 2045: soft line breaks, `=XX` bytes); what is not
/// an escape stays as it is.
fn quoted_printable(text: &str) -> String {
    let unfolded = text.replace("=\r\n", "").replace("=\n", "");
    let bytes = unfolded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = (bytes[i] == b'=')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The token of the link of `path` in a message.
fn token_in(message: &str, path: &str) -> String {
    let unfolded = quoted_printable(message);
    let start = unfolded
        .find(&format!("{path}?token="))
        .unwrap_or_else(|| panic!("no {path} link in {message}"))
        + path.len()
        + "?token=".len();
    unfolded[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

fn recipients(message: &str) -> Option<&str> {
    message.lines().find_map(|l| l.strip_prefix("To: "))
}

async fn mailing_app(backend: Backend, smtp: &SmtpSink) -> TestApp {
    mailing_app_with(backend, smtp, |_| {}).await
}

async fn mailing_app_with(
    backend: Backend,
    smtp: &SmtpSink,
    adjust: impl FnOnce(&mut app::Config),
) -> TestApp {
    let url = smtp.url();
    TestApp::spawn_with(backend, move |c| {
        c.mail.smtp_url = Some(url.into());
        c.server.public_url = "https://market.example".to_owned();
        adjust(c);
    })
    .await
}

async fn register(app: &TestApp, email: &str, password: &str, name: &str) -> reqwest::Response {
    app.post(
        "/v1/auth/register",
        None,
        json!({"email": email, "password": password, "name": name}),
    )
    .await
}

async fn a_confirmation_mail_arrives_and_its_link_works_once(backend: Backend) {
    let smtp = SmtpSink::start();
    let app = mailing_app(backend, &smtp).await;
    let res = register(&app, "ada@example.com", PASSWORD, "Ada").await;
    assert_eq!(res.status(), 201);
    let ada: Value = res.json().await.unwrap();
    let token = ada["access_token"].as_str().unwrap().to_owned();
    assert!(ada["user"]["email_verified_at"].is_null(), "{ada}");
    let mail = smtp.nth(1).await;
    assert_eq!(recipients(&mail), Some("ada@example.com"));
    assert!(
        quoted_printable(&mail).contains("https://market.example/confirm-email?token="),
        "{mail}"
    );
    let link = token_in(&mail, "/confirm-email");

    // Unconfirmed: reads, but does not act.
    assert_eq!(app.get("/v1/me", Some(&token)).await.status(), 200);
    let problem = assert_problem(
        app.post("/v1/orgs", Some(&token), json!({"name": "Ada's"}))
            .await,
        403,
        "email_unverified",
    )
    .await;
    assert!(problem["detail"].as_str().unwrap().contains("resend"));
    let run = app
        .post("/v1/runs", Some(&token), json!({"report": {}}))
        .await;
    assert_problem(run, 403, "email_unverified").await;
    // Another link on request; the page shows a form and confirms nothing by being opened.
    let res = app
        .post("/v1/auth/email/resend", Some(&token), json!({}))
        .await;
    assert_eq!(res.status(), 204);
    let again = token_in(&smtp.nth(2).await, "/confirm-email");
    assert_ne!(again, link);
    let page = app.get(&format!("/confirm-email?token={link}"), None).await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["referrer-policy"], "no-referrer");
    let page = page.text().await.unwrap();
    assert!(
        page.contains("<form method=\"post\" action=\"/confirm-email\">"),
        "{page}"
    );
    let me: Value = app.get_json("/v1/me", Some(&token)).await;
    assert!(me["email_verified_at"].is_null());

    // Confirmed through the page's form; the link works once.
    let res = app
        .client
        .post(app.url("/confirm-email"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={link}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // A confirmation only confirms: Ada's session goes on, now confirmed.
    let me: Value = app.get_json("/v1/me", Some(&token)).await;
    assert!(me["email_verified_at"].is_string(), "{me}");
    for used in [&link, &again] {
        assert_problem(
            app.post("/v1/auth/email/confirm", None, json!({"token": used}))
                .await,
            404,
            "not_found",
        )
        .await;
    }
    let res = app
        .post("/v1/orgs", Some(&token), json!({"name": "Ada's"}))
        .await;
    assert_eq!(res.status(), 201);
    // Nothing holds the token but the mail: the database keeps its digest.
    let hashes = app.column("email_tokens", "token_hash").await;
    assert!(hashes.iter().all(|h| h.len() == 64 && !h.contains(&link)));
}

async fn a_squatter_cannot_keep_an_address_from_the_person_who_holds_its_mailbox(backend: Backend) {
    let smtp = SmtpSink::start();
    let app = mailing_app(backend, &smtp).await;
    let res = register(
        &app,
        "cfo@victim.example",
        "squatter password 1",
        "Squatter",
    )
    .await;
    assert_eq!(res.status(), 201);
    let squatter: Value = res.json().await.unwrap();
    let squatter_token = squatter["access_token"].as_str().unwrap().to_owned();
    let squatters_link = token_in(&smtp.nth(1).await, "/confirm-email");
    // An unconfirmed account makes no key that would outlive its sessions.
    assert_problem(
        app.post(
            "/v1/api-keys",
            Some(&squatter_token),
            json!({"name": "kept"}),
        )
        .await,
        403,
        "email_unverified",
    )
    .await;
    // The real person registers the same address: taken, with no session and no change to
    // the account (before, this second registration got a session and mailed a link that
    // gave whoever used it the account with the newest registrant's password).
    let problem = assert_problem(
        register(
            &app,
            "cfo@victim.example",
            "the real cfo password",
            "Real CFO",
        )
        .await,
        409,
        "email_taken",
    )
    .await;
    assert!(problem.get("access_token").is_none());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        smtp.messages().len(),
        1,
        "no mail for a second registration"
    );
    // The mailbox's holder takes the account over with a password reset: the address is
    // confirmed, the squatter's session ends, only the new password opens it.
    let res = app
        .post(
            "/v1/auth/password-reset",
            None,
            json!({"email": "cfo@victim.example"}),
        )
        .await;
    assert_eq!(res.status(), 202);
    let reset = token_in(&smtp.nth(2).await, "/reset-password");
    let res = app
        .post(
            "/v1/auth/password-reset/confirm",
            None,
            json!({"token": reset, "password": "the real cfo password"}),
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        app.get("/v1/me", Some(&squatter_token)).await,
        401,
        "invalid_token",
    )
    .await;
    let login = |password: &'static str| {
        app.post(
            "/v1/auth/login",
            None,
            json!({"email": "cfo@victim.example", "password": password}),
        )
    };
    let owner: Value = login("the real cfo password").await.json().await.unwrap();
    assert_eq!(login("squatter password 1").await.status(), 401);
    let me: Value = app.get_json("/v1/me", owner["access_token"].as_str()).await;
    assert!(me["email_verified_at"].is_string(), "{me}");
    // The squatter's confirmation link confirms nothing more.
    assert_problem(
        app.post(
            "/v1/auth/email/confirm",
            None,
            json!({"token": squatters_link}),
        )
        .await,
        404,
        "not_found",
    )
    .await;
    // A confirmed address is held.
    assert_problem(
        register(&app, "cfo@victim.example", "another password 12", "X").await,
        409,
        "email_taken",
    )
    .await;
}

async fn a_confirmation_link_only_confirms(backend: Backend) {
    let smtp = SmtpSink::start();
    let app = mailing_app(backend, &smtp).await;
    let res = register(&app, "lin@example.com", "lin's own password", "Lin").await;
    let lin: Value = res.json().await.unwrap();
    let session = lin["access_token"].as_str().unwrap().to_owned();
    let link = token_in(&smtp.nth(1).await, "/confirm-email");
    let confirmed: Value = app
        .post("/v1/auth/email/confirm", None, json!({"token": link}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(confirmed["name"], "Lin");
    assert!(confirmed["email_verified_at"].is_string());
    // The session from before goes on (before, every session ended), and the password is
    // the one registered.
    let me: Value = app.get_json("/v1/me", Some(&session)).await;
    assert!(me["email_verified_at"].is_string(), "{me}");
    let res = app
        .post(
            "/v1/auth/login",
            None,
            json!({"email": "lin@example.com", "password": "lin's own password"}),
        )
        .await;
    assert_eq!(res.status(), 200);
}

async fn a_password_is_reset_through_the_mailed_link(backend: Backend) {
    let smtp = SmtpSink::start();
    let app = mailing_app_with(backend, &smtp, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_auth_per_minute = 1000;
        c.mail.reset_mails_per_address_per_hour = 3;
    })
    .await;
    let res = register(&app, "ada@example.com", PASSWORD, "Ada").await;
    let ada: Value = res.json().await.unwrap();
    let old_session = ada["access_token"].as_str().unwrap().to_owned();
    let _confirmation = smtp.nth(1).await;
    // The same answer for an address with no account, and no mail for it.
    for email in ["nobody@example.com", "ada@example.com"] {
        let res = app
            .post("/v1/auth/password-reset", None, json!({"email": email}))
            .await;
        assert_eq!(res.status(), 202);
        assert!(res.text().await.unwrap().is_empty());
    }
    let mail = smtp.nth(2).await;
    assert_eq!(recipients(&mail), Some("ada@example.com"));
    let token = token_in(&mail, "/reset-password");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        smtp.messages().len(),
        2,
        "nothing mailed for an unknown address"
    );
    let problem = assert_problem(
        app.post(
            "/v1/auth/password-reset/confirm",
            None,
            json!({"token": token, "password": "short"}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "password");
    let res = app
        .post(
            "/v1/auth/password-reset/confirm",
            None,
            json!({"token": token, "password": "a brand new password"}),
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(
        app.post(
            "/v1/auth/password-reset/confirm",
            None,
            json!({"token": token, "password": "yet another password"}),
        )
        .await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.get("/v1/me", Some(&old_session)).await,
        401,
        "invalid_token",
    )
    .await;
    let res = app
        .post(
            "/v1/auth/login",
            None,
            json!({"email": "ada@example.com", "password": "a brand new password"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let me: Value = app
        .get_json(
            "/v1/me",
            Some(
                res.json::<Value>().await.unwrap()["access_token"]
                    .as_str()
                    .unwrap(),
            ),
        )
        .await;
    assert!(
        me["email_verified_at"].is_string(),
        "the reset proved the mailbox"
    );
    // Nobody floods a mailbox through us: the third reset of the hour was the last (its own
    // budget: the confirmation mail does not count).
    for _ in 0..3 {
        let res = app
            .post(
                "/v1/auth/password-reset",
                None,
                json!({"email": "ada@example.com"}),
            )
            .await;
        assert_eq!(res.status(), 202);
    }
    smtp.nth(4).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(smtp.messages().len(), 4, "reset_mails_per_address_per_hour");
}

/// Anonymous reset requests spend a budget of their own: a stranger asking for resets of an
/// address uses up none of the mail its signed-in owner asks for; and strangers' failed
/// sign-ins, however many, never stop a reset from reaching the owner and working.
async fn a_stranger_asking_for_resets_never_blocks_the_owners_mail_nor_a_reset(backend: Backend) {
    let smtp = SmtpSink::start();
    let app = mailing_app_with(backend, &smtp, |c| {
        c.limits.rate_limits = true;
        c.limits.rate_limit_auth_per_minute = 1000;
        c.limits.login_failures_per_account_per_hour = 3;
        c.mail.mails_per_address_per_hour = 3;
        c.mail.reset_mails_per_address_per_hour = 2;
    })
    .await;
    let res = register(&app, "bo@example.com", PASSWORD, "Bo").await;
    let bo: Value = res.json().await.unwrap();
    let session = bo["access_token"].as_str().unwrap().to_owned();
    smtp.nth(1).await;
    // A stranger asks for five resets: two are mailed (the reset budget), no more.
    for _ in 0..5 {
        let res = app
            .post(
                "/v1/auth/password-reset",
                None,
                json!({"email": "bo@example.com"}),
            )
            .await;
        assert_eq!(res.status(), 202);
    }
    let reset = token_in(&smtp.nth(3).await, "/reset-password");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(smtp.messages().len(), 3, "reset_mails_per_address_per_hour");
    // The owner, signed in, still gets the confirmation link it asks for (before, one
    // budget: the stranger's resets had used it up).
    let res = app
        .post("/v1/auth/email/resend", Some(&session), json!({}))
        .await;
    assert_eq!(res.status(), 204);
    token_in(&smtp.nth(4).await, "/confirm-email");
    // Strangers lock the account's sign-ins out...
    for _ in 0..5 {
        app.post(
            "/v1/auth/login",
            None,
            json!({"email": "bo@example.com", "password": "a wrong guess"}),
        )
        .await;
    }
    let login = || {
        app.post(
            "/v1/auth/login",
            None,
            json!({"email": "bo@example.com", "password": "bo's new password"}),
        )
    };
    assert_eq!(login().await.status(), 429);
    // ...and the reset mailed to the owner works all the same, and signs it in from here.
    let res = app
        .post(
            "/v1/auth/password-reset/confirm",
            None,
            json!({"token": reset, "password": "bo's new password"}),
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_eq!(login().await.status(), 200);
}
