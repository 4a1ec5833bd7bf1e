//! A typed client of the gpumarket API, generated at build time from the committed OpenAPI
//! document (`openapi/openapi.json`, which CI checks against the server) by progenitor; and the
//! search query language of `gpumarket search` ([`query`]).
//!
//! Every call goes through this crate's hooks ([`Inner`]), which:
//! - add the caller's credential (`Authorization: Bearer …`) when one is set;
//! - keep the last response's status and body bytes as the server sent them ([`Raw`]), so a
//!   command line can print them unchanged;
//! - in a dry run, record each call as a curl command instead of sending it
//!   ([`Error::Custom`] with [`DRY_RUN`] ends the call);
//! - keep the server's version (`x-gpumarket-version`) for a client to compare with its own.
//!
//! ```no_run
//! # async fn f() -> Result<(), Box<dyn std::error::Error>> {
//! let client = client::Client::new_with_client(
//!     "http://127.0.0.1:8080",
//!     client::http_client()?,
//!     client::Inner::default(),
//! );
//! let page = client.search_listings().verified(true).send().await?;
//! for hit in &page.items {
//!     println!("{} {}", hit.id, hit.title);
//! }
//! # Ok(()) }
//! ```

pub mod objective;
pub mod openapi30;
pub mod query;

use std::sync::{Arc, Mutex};

use progenitor_client::{ClientHooks, OperationInfo};

#[allow(
    clippy::all,
    clippy::pedantic,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations,
    unused_imports,
    irrefutable_let_patterns,
    mismatched_lifetime_syntaxes,
    rustdoc::all
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/generated.rs"));
}

pub use generated::*;
pub use progenitor_client::{Error, ResponseValue};

/// The message of the [`Error::Custom`] that ends a call in a dry run.
pub const DRY_RUN: &str = "dry run: the call was recorded, not sent";

/// The header every response of the server carries its version in.
pub const VERSION_HEADER: &str = "x-gpumarket-version";

/// A response as the server sent it.
#[derive(Debug, Clone)]
pub struct Raw {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: bytes::Bytes,
}

/// What the hooks need: the credential, the mode, and what the last call left (shared by the
/// client's clones).
#[derive(Debug, Default, Clone)]
pub struct Inner {
    token: Option<String>,
    dry_run: bool,
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    last: Option<Raw>,
    recorded: Vec<String>,
    server_version: Option<String>,
}

impl Inner {
    /// Calls with `token` (a JWT access token or an API key) as the bearer credential.
    pub fn with_token(mut self, token: Option<String>) -> Self {
        self.token = token;
        self
    }

    /// Records each call as a curl command instead of sending it.
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The last response, as sent.
    pub fn last(&self) -> Option<Raw> {
        self.state().last.clone()
    }

    /// The calls a dry run recorded, as curl commands, in order.
    pub fn recorded(&self) -> Vec<String> {
        self.state().recorded.clone()
    }

    /// The server's version, as its last response gave it.
    pub fn server_version(&self) -> Option<String> {
        self.state().server_version.clone()
    }
}

/// The reqwest client the generated calls use: rustls with ring (the workspace's one TLS
/// stack; the provider is installed for the process), a connect timeout, and no overall
/// timeout (an event stream lasts as long as its run).
pub fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(10))
        .user_agent(concat!("gpumarket-client/", env!("CARGO_PKG_VERSION")))
        .build()
}

impl ClientHooks<Inner> for Client {
    async fn pre<E>(
        &self,
        request: &mut reqwest::Request,
        _info: &OperationInfo,
    ) -> Result<(), Error<E>> {
        let inner = self.inner();
        if let Some(token) = &inner.token {
            let value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| Error::InvalidRequest("the token is not a header value".into()))?;
            request
                .headers_mut()
                .insert(reqwest::header::AUTHORIZATION, value);
        }
        if inner.dry_run {
            inner.state().recorded.push(curl(request));
            return Err(Error::Custom(DRY_RUN.into()));
        }
        Ok(())
    }

    async fn exec(
        &self,
        request: reqwest::Request,
        _info: &OperationInfo,
    ) -> reqwest::Result<reqwest::Response> {
        let response = self.client().execute(request).await?;
        let version = response
            .headers()
            .get(VERSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let streaming = content_type
            .as_deref()
            .is_some_and(|t| t.starts_with("text/event-stream"));
        {
            let mut state = self.inner().state();
            if version.is_some() {
                state.server_version = version;
            }
            if streaming {
                state.last = None;
            }
        }
        // An event stream is read as it comes, by its caller: its bytes are not kept.
        if streaming {
            return Ok(response);
        }
        let status = response.status();
        let http_version = response.version();
        let headers = response.headers().clone();
        let body = response.bytes().await?;
        self.inner().state().last = Some(Raw {
            status: status.as_u16(),
            content_type,
            body: body.clone(),
        });
        let mut rebuilt = http::Response::new(body);
        *rebuilt.status_mut() = status;
        *rebuilt.version_mut() = http_version;
        *rebuilt.headers_mut() = headers;
        Ok(reqwest::Response::from(rebuilt))
    }
}

/// `request` as a curl command a POSIX shell runs as is; the credential is printed as the
/// environment variable `$GPUMARKET_TOKEN`, never its value.
pub fn curl(request: &reqwest::Request) -> String {
    let mut parts = vec!["curl".to_owned(), "-sS".to_owned()];
    if request.method() != reqwest::Method::GET {
        parts.push("-X".into());
        parts.push(request.method().as_str().into());
    }
    for (name, value) in request.headers() {
        if name == reqwest::header::AUTHORIZATION {
            parts.push("-H".into());
            parts.push("\"Authorization: Bearer $GPUMARKET_TOKEN\"".into());
            continue;
        }
        parts.push("-H".into());
        parts.push(shell_quote(&format!(
            "{}: {}",
            name,
            String::from_utf8_lossy(value.as_bytes())
        )));
    }
    if let Some(body) = request.body().and_then(|b| b.as_bytes()) {
        parts.push("--data-binary".into());
        parts.push(shell_quote(&String::from_utf8_lossy(body)));
    }
    parts.push(shell_quote(request.url().as_str()));
    parts.join(" ")
}

/// `text` in single quotes, each `'` written as `'\''`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_prints_as_a_curl_command_without_its_credential() {
        let client = http_client().unwrap();
        let request = client
            .post("http://127.0.0.1:8080/v1/bookings?x=1")
            .bearer_auth("secret-token")
            .header("idempotency-key", "it's-mine")
            .header("content-type", "application/json")
            .body(r#"{"a":"b"}"#)
            .build()
            .unwrap();
        let line = curl(&request);
        assert!(!line.contains("secret-token"), "{line}");
        assert_eq!(
            line,
            r#"curl -sS -X POST -H "Authorization: Bearer $GPUMARKET_TOKEN" -H 'idempotency-key: it'\''s-mine' -H 'content-type: application/json' --data-binary '{"a":"b"}' 'http://127.0.0.1:8080/v1/bookings?x=1'"#
        );
    }
}
