//! The command line's client side: what renters, providers and readers of reports do with a
//! gpumarket server, through the typed client generated from the committed OpenAPI document
//! (`crates/client`).
//!
//! Every client command takes `--server`, `--token` and `--profile` (else `GPUMARKET_URL`,
//! `GPUMARKET_TOKEN`, `GPUMARKET_PROFILE`, the stored profile; [`session`]; a profile's
//! credential goes only to the server it was made for: naming another server sends none
//! unless `--token` is given), `--json` (the
//! API's response body as it came) and `--curl` (the calls it would make, as curl commands, and
//! nothing sent). Exit codes: 0 ok, 1 the API answered an error (its problem `code` on stderr),
//! 64 usage (a malformed query included), 67 not signed in, 69 server unreachable, 74 a local
//! file unreadable or unwritable, 75 `wait` timed out. `reports verify` keeps `verify`'s.

pub mod budget;
pub mod login;
pub mod market;
pub mod offers;
mod output;
pub mod provider;
pub mod quote;
pub mod renter;
pub mod reports;
mod session;
pub mod ssh_keys;

use std::path::Path;
use std::process::ExitCode;

use client::{ClientInfo, DRY_RUN, Error, Inner, ResponseValue};

pub use budget::BudgetArgs;
pub use login::{LoginArgs, LogoutArgs};
pub use market::MarketArgs;
pub use offers::OffersArgs;
pub use provider::{EarningsArgs, ListingsArgs};
pub use quote::QuoteArgs;
pub use renter::{AccessArgs, BidArgs, BookArgs, BookingsArgs, SearchArgs, ShowArgs, SshArgs};
pub use reports::{LeaderboardArgs, ReportsArgs, RunsArgs};
pub use ssh_keys::SshKeysArgs;

use output::Style;
use session::{DEFAULT_SERVER, Store};

/// What every client command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct Global {
    /// The server's base URL [default: the profile's, else http://127.0.0.1:8080].
    #[arg(long, global = true, env = "GPUMARKET_URL")]
    pub server: Option<String>,
    /// A bearer credential (an access token or an API key) instead of the profile's.
    #[arg(long, global = true, env = "GPUMARKET_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The stored profile to use (`gpumarket login --profile NAME` stores one).
    #[arg(long, global = true, env = "GPUMARKET_PROFILE", default_value = session::DEFAULT_PROFILE)]
    pub profile: String,
    /// Print the API's response body exactly as it came (one body per line when a command
    /// follows several pages), and nothing else on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print the curl command(s) the command would send, in order, and send nothing. The
    /// credential is written as `$GPUMARKET_TOKEN`.
    #[arg(long, global = true)]
    pub curl: bool,
}

/// Why a client command failed, and its exit code.
#[derive(Debug)]
pub enum Failure {
    /// The API answered with an error: its status, problem code and detail.
    Api {
        status: u16,
        code: String,
        detail: String,
    },
    /// What the command waited for ended otherwise (a booking cancelled, a run failed): a code
    /// and why.
    Ended {
        code: String,
        detail: String,
    },
    Usage(String),
    NotSignedIn(String),
    Unreachable(String),
    Io(String),
    TimedOut(String),
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Self {
        Self::Usage(message.into())
    }

    pub fn io(path: &Path, error: std::io::Error) -> Self {
        Self::Io(format!("{}: {error}", path.display()))
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Api { .. } | Failure::Ended { .. } => 1,
            Failure::Usage(_) => 64,
            Failure::NotSignedIn(_) => 67,
            Failure::Unreachable(_) => 69,
            Failure::Io(_) => 74,
            Failure::TimedOut(_) => 75,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Api {
                status,
                code,
                detail,
            } => write!(f, "the server answered {status} {code}: {detail}"),
            Failure::Ended { code, detail } => write!(f, "{code}: {detail}"),
            Failure::Usage(m) => write!(f, "{m}"),
            Failure::NotSignedIn(m) => write!(f, "not signed in: {m}"),
            Failure::Unreachable(m) => write!(f, "the server is unreachable: {m}"),
            Failure::Io(m) => write!(f, "{m}"),
            Failure::TimedOut(m) => write!(f, "timed out: {m}"),
        }
    }
}

/// Runs a client command on its own runtime and turns its outcome into an exit code, the
/// failure on stderr.
pub fn run<F>(command: F) -> ExitCode
where
    F: std::future::Future<Output = Result<(), Failure>>,
{
    match block_on(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => report(failure),
    }
}

/// [`run`] for a command with exit codes of its own (`reports verify` keeps `verify`'s).
pub fn run_with_code<F>(command: F) -> ExitCode
where
    F: std::future::Future<Output = Result<ExitCode, Failure>>,
{
    block_on(command).unwrap_or_else(report)
}

fn block_on<T>(
    command: impl std::future::Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Io(format!("starting the async runtime: {e}")))?
        .block_on(command)
}

fn report(failure: Failure) -> ExitCode {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("error: {failure}");
    }
    ExitCode::from(failure.exit_code())
}

/// A client command's connection: the server, the credential and the typed client.
pub struct Ctx {
    global: Global,
    server: String,
    client: client::Client,
    style: Style,
}

/// Whether a command needs a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    Required,
    /// Sent when there is one (a member sees more of a listing, say).
    Optional,
}

impl Ctx {
    pub async fn new(global: &Global, auth: Auth) -> Result<Self, Failure> {
        let store = Store::locate()?;
        let server = server_of(global, &store)?.unwrap_or_else(|| DEFAULT_SERVER.to_owned());
        let http = client::http_client()
            .map_err(|e| Failure::Io(format!("building the HTTP client: {e}")))?;
        let token = if global.curl {
            // The curl commands name $GPUMARKET_TOKEN instead of any credential.
            (auth == Auth::Required || global.token.is_some()).then(|| "$GPUMARKET_TOKEN".into())
        } else if let Some(token) = &global.token {
            Some(token.clone())
        } else if let Some(made_for) = withheld_from(&store, global, &server)? {
            // A stored credential goes only to the server its profile was made for.
            let why = format!(
                "the profile `{}` was made for {made_for}; its credential is never sent to {server}",
                global.profile
            );
            if auth == Auth::Required {
                return Err(Failure::NotSignedIn(format!(
                    "{why}: pass --token (or set GPUMARKET_TOKEN), or run `gpumarket login --server {server} --profile NAME` and use that profile"
                )));
            }
            #[allow(clippy::print_stderr)]
            {
                eprintln!("note: {why}; sending none");
            }
            None
        } else {
            let refresher =
                client::Client::new_with_client(&server, http.clone(), Inner::default());
            store
                .bearer(&global.profile, |refresh_token| {
                    login::refresh(refresher, refresh_token)
                })
                .await?
        };
        if token.is_none() && auth == Auth::Required {
            return Err(Failure::NotSignedIn(format!(
                "run `gpumarket login --server {server}` (or pass --token, or set GPUMARKET_TOKEN)"
            )));
        }
        let inner = Inner::default().with_token(token).dry_run(global.curl);
        Ok(Self {
            global: global.clone(),
            client: client::Client::new_with_client(&server, http, inner),
            server,
            style: Style::detect(),
        })
    }

    /// A call's outcome: its value, `None` in a dry run (the call was recorded), or the
    /// failure. With `--json` the body is printed as it came, whatever the outcome.
    pub fn outcome<T, E>(
        &self,
        result: Result<ResponseValue<T>, Error<E>>,
    ) -> Result<Option<T>, Failure> {
        self.print_json_body();
        match result {
            Ok(value) => Ok(Some(value.into_inner())),
            Err(Error::Custom(message)) if message == DRY_RUN => Ok(None),
            Err(error) => Err(failure(&self.client, error)),
        }
    }

    /// Sends a call that books under `key`, trying again (with the same key) twice while the
    /// server cannot be reached; when it gives up, says how to find out without booking twice.
    pub async fn booking_call<T, E, Fut>(
        &self,
        key: &str,
        what: &str,
        mut call: impl FnMut() -> Fut,
    ) -> Result<Option<T>, Failure>
    where
        Fut: std::future::Future<Output = Result<ResponseValue<T>, Error<E>>>,
    {
        let mut tries = 0;
        loop {
            tries += 1;
            match self.outcome(call().await) {
                Err(Failure::Unreachable(_)) if tries < 3 => {
                    tokio::time::sleep(std::time::Duration::from_secs(tries)).await;
                }
                Err(Failure::Unreachable(why)) => {
                    return Err(Failure::Unreachable(format!(
                        "{why}; the {what} may have been made: run the same command with --idempotency-key {key} to find out without booking twice"
                    )));
                }
                other => return other,
            }
        }
    }

    fn print_json_body(&self) {
        if !self.global.json {
            return;
        }
        if let Some(raw) = self.client.inner().last() {
            let _ = output::raw(&raw.body);
            if !raw.body.ends_with(b"\n") {
                let _ = output::raw(b"\n");
            }
        }
    }

    /// Whether output is for people (neither `--json` nor `--curl`).
    pub fn human(&self) -> bool {
        !self.global.json && !self.global.curl
    }

    /// Prints `text` for people; nothing with `--json` or `--curl`.
    pub fn say(&self, text: &str) -> Result<(), Failure> {
        if self.human() {
            output::text(text).map_err(|e| Failure::Io(format!("stdout: {e}")))?;
        }
        Ok(())
    }

    /// Ends a command: prints the recorded calls of a dry run, and warns when the server is
    /// newer than this command line.
    pub fn finish(self) -> Result<(), Failure> {
        if self.global.curl {
            let lines: String = self
                .client
                .inner()
                .recorded()
                .into_iter()
                .map(|line| line + "\n")
                .collect();
            output::text(&lines).map_err(|e| Failure::Io(format!("stdout: {e}")))?;
        }
        if let Some(server) = self.client.inner().server_version()
            && newer(&server, env!("CARGO_PKG_VERSION"))
        {
            #[allow(clippy::print_stderr)]
            {
                eprintln!(
                    "warning: the server runs gpumarket {server}, newer than this command line ({}): update it for the newest commands and fields",
                    env!("CARGO_PKG_VERSION")
                );
            }
        }
        Ok(())
    }
}

/// The server a command talks to: `--server` (or `GPUMARKET_URL`), else the profile's; checked
/// to be a URL, without a trailing slash. `None` when neither names one.
pub fn server_of(global: &Global, store: &Store) -> Result<Option<String>, Failure> {
    let Some(server) = global
        .server
        .clone()
        .or(store.profile(&global.profile)?.and_then(|p| p.server))
    else {
        return Ok(None);
    };
    let server = server.trim_end_matches('/').to_owned();
    reqwest::Url::parse(&server)
        .map_err(|e| Failure::usage(format!("--server {server}: not a URL ({e})")))?;
    Ok(Some(server))
}

/// The server the profile in use was made for, when it is another than `server` (so its
/// credential must not be sent there); `None` when there is no such profile or it is the
/// same server (scheme, host and port, and path, compared as URLs).
fn withheld_from(store: &Store, global: &Global, server: &str) -> Result<Option<String>, Failure> {
    let Some(profile) = store.profile(&global.profile)? else {
        return Ok(None);
    };
    let made_for = profile
        .server
        .unwrap_or_else(|| DEFAULT_SERVER.to_owned())
        .trim_end_matches('/')
        .to_owned();
    let same = match (reqwest::Url::parse(&made_for), reqwest::Url::parse(server)) {
        (Ok(a), Ok(b)) => {
            a.scheme() == b.scheme()
                && a.host_str() == b.host_str()
                && a.port_or_known_default() == b.port_or_known_default()
                && a.path().trim_end_matches('/') == b.path().trim_end_matches('/')
        }
        _ => made_for == server,
    };
    Ok((!same).then_some(made_for))
}

/// Why a call of `client` failed: the server out of reach, a request the client refused to
/// build, or the problem the server answered (read from the response's bytes).
pub fn failure<E>(client: &client::Client, error: Error<E>) -> Failure {
    match error {
        Error::CommunicationError(e) => Failure::Unreachable(format!("{}: {e}", client.baseurl())),
        Error::InvalidRequest(m) => Failure::usage(m),
        _ => {
            let Some(raw) = client.inner().last() else {
                return Failure::Unreachable(format!("{}: no response", client.baseurl()));
            };
            let problem: serde_json::Value = serde_json::from_slice(&raw.body).unwrap_or_default();
            let text = |key: &str| problem[key].as_str().map(str::to_owned);
            Failure::Api {
                status: raw.status,
                code: text("code").unwrap_or_else(|| "unknown".into()),
                detail: text("detail").or_else(|| text("title")).unwrap_or_else(|| {
                    String::from_utf8_lossy(&raw.body)
                        .chars()
                        .take(300)
                        .collect()
                }),
            }
        }
    }
}

/// Whether version `a` is newer than `b` (dotted numbers; a pre-release suffix ignored).
fn newer(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> {
        v.split(['-', '+'])
            .next()
            .unwrap_or("")
            .split('.')
            .map(|n| n.parse().unwrap_or(0))
            .collect()
    };
    parts(a) > parts(b)
}

/// Parses an id argument as a UUID (64 naming it otherwise).
pub fn uuid(what: &str, raw: &str) -> Result<uuid::Uuid, Failure> {
    raw.parse()
        .map_err(|_| Failure::usage(format!("{what} `{raw}` is not an id (a UUID)")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_their_numbers() {
        assert!(newer("0.2.0", "0.1.9"));
        assert!(newer("0.10.0", "0.9.0"));
        assert!(!newer("0.1.0", "0.1.0"));
        assert!(!newer("0.1.0-rc.1", "0.1.0"));
    }
}
