//! `gpumarket login` and `logout`: a profile's server and credential.

use std::io::{BufRead, IsTerminal};

use client::{ClientInfo, Inner, types};

use super::session::{Profile, Refreshed, Store};
use super::{Failure, Global, failure, output, server_of};

#[derive(Debug, clap::Args)]
pub struct LoginArgs {
    #[command(flatten)]
    global: Global,
    /// Sign in with an API key (`gpumarket` keeps the key) instead of email and password.
    #[arg(long)]
    api_key: Option<String>,
    /// The account's email (asked when missing).
    #[arg(long)]
    email: Option<String>,
    /// Read the password from stdin's first line instead of asking for it.
    #[arg(long)]
    password_stdin: bool,
}

#[derive(Debug, clap::Args)]
pub struct LogoutArgs {
    #[command(flatten)]
    global: Global,
}

/// Signs in and stores the profile: with an API key (checked with `GET /v1/me` first), or
/// with email and password (`POST /v1/auth/login`; the session's refresh token is kept).
pub async fn login(args: LoginArgs) -> Result<(), Failure> {
    let global = &args.global;
    if global.curl {
        return Err(Failure::usage(
            "login --curl would print a password or a key: sign in without --curl",
        ));
    }
    let store = Store::locate()?;
    let server = server_of(global, &store)?
        .ok_or_else(|| Failure::usage("name the server: gpumarket login --server URL"))?;
    let http =
        client::http_client().map_err(|e| Failure::Io(format!("building the HTTP client: {e}")))?;
    let ctx = |token: Option<String>| {
        client::Client::new_with_client(&server, http.clone(), Inner::default().with_token(token))
    };
    let profile = if let Some(key) = args.api_key.clone().or_else(|| global.token.clone()) {
        let client = ctx(Some(key.clone()));
        let me = call(&client, client.get_me().send().await)?;
        Profile {
            server: Some(server.clone()),
            api_key: Some(key),
            email: Some(me.email),
            ..Profile::default()
        }
    } else {
        let email = match args.email.clone() {
            Some(email) => email,
            None => prompt("email: ")?,
        };
        let password = if args.password_stdin {
            read_line()?
        } else if std::io::stdin().is_terminal() {
            rpassword::prompt_password("password: ")
                .map_err(|e| Failure::Io(format!("reading the password: {e}")))?
        } else {
            return Err(Failure::usage(
                "no terminal to ask the password on: pass --password-stdin",
            ));
        };
        let client = ctx(None);
        let body = types::LoginRequest {
            email: email.clone(),
            password,
        };
        let pair = call(&client, client.login().body(body).send().await)?;
        Profile {
            server: Some(server.clone()),
            refresh_token: Some(pair.refresh_token),
            access_token: Some(pair.access_token),
            access_expires_at: Some(
                chrono::Utc::now() + chrono::Duration::seconds(pair.expires_in),
            ),
            email: Some(email),
            ..Profile::default()
        }
    };
    let who = profile.email.clone().unwrap_or_default();
    store.save(&global.profile, profile)?;
    if !global.json {
        let _ = output::text(&format!(
            "signed in to {server} as {who} (profile `{}`, {})\n",
            global.profile,
            store.path().display()
        ));
    }
    Ok(())
}

/// Forgets the profile's credential; a session is also ended on the server.
pub async fn logout(args: LogoutArgs) -> Result<(), Failure> {
    let store = Store::locate()?;
    if let Some(profile) = store.profile(&args.global.profile)?
        && let (Some(server), Some(refresh_token)) = (&profile.server, &profile.refresh_token)
        && let Ok(http) = client::http_client()
    {
        let client = client::Client::new_with_client(server, http, Inner::default());
        // The server ends the session; a server out of reach does not keep the file's copy.
        let _ = client
            .logout()
            .body(types::LogoutRequest {
                refresh_token: refresh_token.clone(),
            })
            .send()
            .await;
    }
    let had = store.remove(&args.global.profile)?;
    let _ = output::text(&if had {
        format!("signed out of profile `{}`\n", args.global.profile)
    } else {
        format!("profile `{}` was not signed in\n", args.global.profile)
    });
    Ok(())
}

/// A new pair for `refresh_token` (`POST /v1/auth/refresh`); a refused one means signing in
/// again.
pub async fn refresh(client: client::Client, refresh_token: String) -> Result<Refreshed, Failure> {
    let result = client
        .refresh_session()
        .body(types::RefreshRequest { refresh_token })
        .send()
        .await;
    match result {
        Ok(pair) => {
            let pair = pair.into_inner();
            Ok(Refreshed {
                access_token: pair.access_token,
                refresh_token: pair.refresh_token,
                expires_in: pair.expires_in,
            })
        }
        Err(client::Error::CommunicationError(e)) => {
            Err(Failure::Unreachable(format!("{}: {e}", client.baseurl())))
        }
        Err(_) => Err(Failure::NotSignedIn(
            "the session has ended: run `gpumarket login` again".into(),
        )),
    }
}

/// A login step's value, or its failure.
fn call<T, E>(
    client: &client::Client,
    result: Result<client::ResponseValue<T>, client::Error<E>>,
) -> Result<T, Failure> {
    result
        .map(client::ResponseValue::into_inner)
        .map_err(|error| failure(client, error))
}

fn prompt(label: &str) -> Result<String, Failure> {
    let _ = output::text(label);
    read_line()
}

fn read_line() -> Result<String, Failure> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Failure::Io(format!("stdin: {e}")))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}
