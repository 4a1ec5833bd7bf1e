//! `TestApp`: a running server, an HTTP client, and direct access to its database.

use std::time::Duration;

use app::{App, Config};
use reqwest::{Method, Response, StatusCode};
use sea_orm::{ConnectionTrait, Database, Statement};
use secrecy::SecretString;
use serde_json::{Value, json};
use store::Backend;
use store::tools::testing::TestDatabase;

/// The JWT key of test servers, so tests can mint tokens the server must refuse.
pub const JWT_SECRET: &str = "test-secret-test-secret-test-secret-0123";
pub const PASSWORD: &str = "correct horse battery staple";

/// Generates, for each named `async fn(TestApp)`, a module with one test per backend.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name($crate::helpers::TestApp::spawn(store::Backend::Sqlite).await).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name($crate::helpers::TestApp::spawn(store::Backend::Postgres).await).await;
                }
            }
        )*
    };
}

/// Generates, for each named `async fn(Backend)` (a test that builds its own app), a
/// module with one test per backend.
macro_rules! on_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name(store::Backend::Sqlite).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name(store::Backend::Postgres).await;
                }
            }
        )*
    };
}

/// Generates, for each named `async fn(TestApp)` that measures an engine (a verification, a
/// spot check, the gateway's buckets), one test on the named backend (`postgres = Postgres`):
/// the scenario's backend-specific parts (claims, leases, one report per run, the log's
/// indexes) are raced on both backends in `store/tests` and in the short tests here, and
/// measuring twice only doubles the suite. The embedded shape's scenarios run on SQLite, the
/// distributed shape's (Redis, replicas) on PostgreSQL.
macro_rules! measured_on {
    ($test:ident = $backend:ident; $($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    super::$name($crate::helpers::TestApp::spawn(store::Backend::$backend).await).await;
                }
            }
        )*
    };
}

/// [`measured_on`] for an `async fn(Backend)` that builds its own app.
macro_rules! measured_on_backend {
    ($test:ident = $backend:ident; $($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    super::$name(store::Backend::$backend).await;
                }
            }
        )*
    };
}

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub app: App,
    database: TestDatabase,
}

pub fn test_config(database_url: &str) -> Config {
    let mut config = Config::default();
    config.server.listen = "127.0.0.1:0".to_owned();
    config.database.url = Some(SecretString::from(database_url.to_owned()));
    config.keys.jwt_secret = Some(SecretString::from(JWT_SECRET.to_owned()));
    config.keys.secrets_key_file = Some(secrets_key_file());
    // The tests' engines are simulators on this machine.
    config.verification.engine_allow_private = true;
    // Tests fire requests far faster than people do; the limits tests turn them on.
    config.limits.rate_limits = false;
    // Organisation reports follow every change at once (the period has its own test).
    config.reports.org_report_min_secs = 0;
    // The tiny engine's figures are exact: half the quick profile's window measures them as
    // well, and halves every verification's time in the suite.
    config.verification.quick_measure_secs = 1.5;
    config
}

/// The tests' key for secrets at rest (the same in every test: PostgreSQL requires one): one
/// file for every test, written whole under a unique name and renamed into place, so no test
/// (process or thread) reads another's half-written file.
pub fn secrets_key_file() -> std::path::PathBuf {
    let path = std::env::temp_dir().join("gpumarket-api-tests-secrets.key");
    let key = format!("{SECRETS_KEY}\n");
    if std::fs::read_to_string(&path).ok() != Some(key.clone()) {
        let mut partial = tempfile::NamedTempFile::new_in(std::env::temp_dir()).unwrap();
        std::io::Write::write_all(&mut partial, key.as_bytes()).unwrap();
        partial.persist(&path).unwrap();
    }
    path
}

pub const SECRETS_KEY: &str = "5ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2";

/// Sends the server's warnings (or what `RUST_LOG` asks for) to the test's captured output,
/// so a failing test shows what went wrong inside the server.
fn log_warnings() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_test_writer()
        .try_init();
}

/// The Redis tests use: `TEST_REDIS_URL`, default the standard local port.
pub fn redis_url() -> String {
    std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

impl TestApp {
    pub async fn spawn(backend: Backend) -> Self {
        Self::spawn_with(backend, |_| {}).await
    }

    /// A server whose configuration `adjust` changes first.
    pub async fn spawn_with(backend: Backend, adjust: impl FnOnce(&mut Config)) -> Self {
        log_warnings();
        let database = TestDatabase::new(backend)
            .await
            .unwrap_or_else(|e| panic!("a test database on {backend:?}: {e}"));
        let mut config = test_config(database.url());
        adjust(&mut config);
        let app = App::build(config, false).await.expect("the application");
        let server = api::Application::build(app.clone(), 1).expect("binding port 0");
        let base = format!("http://{}", server.local_addr());
        tokio::spawn(server.run());
        // Ready as a replica is: search is in memory (an empty database loads in a moment; at
        // idle priority beside other work, in seconds).
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while app.db().search_memory_state() == store::MemoryState::Loading {
            assert!(
                std::time::Instant::now() < deadline,
                "search did not load into memory within 30 s"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        outbound::install_crypto_provider();
        Self {
            base,
            // Idle connections are dropped before the server's 5 s keep-alive closes them: a
            // request on a connection the server is closing fails (IncompleteMessage).
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .pool_idle_timeout(Duration::from_secs(2))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            app,
            database,
        }
    }

    pub fn database_url(&self) -> &str {
        self.database.url()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request with an optional bearer credential and JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
    ) -> Response {
        let mut request = self.client.request(method, self.url(path));
        if let Some(bearer) = bearer {
            request = request.bearer_auth(bearer);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send().await.expect("the server answers")
    }

    pub async fn get(&self, path: &str, bearer: Option<&str>) -> Response {
        self.call(Method::GET, path, bearer, None).await
    }

    /// GET and parse the JSON answer.
    pub async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        bearer: Option<&str>,
    ) -> T {
        self.get(path, bearer)
            .await
            .json()
            .await
            .expect("a JSON answer")
    }

    pub async fn post(&self, path: &str, bearer: Option<&str>, body: Value) -> Response {
        self.call(Method::POST, path, bearer, Some(body)).await
    }

    pub async fn patch(&self, path: &str, bearer: Option<&str>, body: Value) -> Response {
        self.call(Method::PATCH, path, bearer, Some(body)).await
    }

    /// Registers `email` and returns its access token.
    pub async fn register(&self, email: &str) -> Session {
        let res = self
            .post(
                "/v1/auth/register",
                None,
                json!({"email": email, "password": PASSWORD, "name": email.split('@').next().unwrap()}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::CREATED, "registering {email}");
        let body: Value = res.json().await.unwrap();
        Session {
            user_id: body["user"]["id"].as_str().unwrap().to_owned(),
            access_token: body["access_token"].as_str().unwrap().to_owned(),
            refresh_token: body["refresh_token"].as_str().unwrap().to_owned(),
        }
    }

    /// Runs one SQL statement straight on the database (what a crash would leave behind).
    pub async fn execute(&self, sql: &str) {
        let db = Database::connect(self.database.url()).await.unwrap();
        let backend = db.get_database_backend();
        db.execute_raw(Statement::from_string(backend, sql.to_owned()))
            .await
            .unwrap();
        db.close().await.unwrap();
    }

    /// Every value of one column, read straight from the database.
    pub async fn column(&self, table: &str, column: &str) -> Vec<String> {
        let db = Database::connect(self.database.url()).await.unwrap();
        let backend = db.get_database_backend();
        let rows = db
            .query_all_raw(Statement::from_string(
                backend,
                format!("SELECT {column} AS v FROM {table}"),
            ))
            .await
            .unwrap();
        let values = rows
            .iter()
            .map(|row| row.try_get::<String>("", "v").unwrap())
            .collect();
        db.close().await.unwrap();
        values
    }
}

/// An in-process worker and reconciler; stopped (gracefully) when dropped.
pub struct Workers {
    stop: tokio::sync::watch::Sender<bool>,
}

impl Drop for Workers {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

impl TestApp {
    /// Starts one verification worker and the reconciler against this app.
    pub fn start_workers(&self) -> Workers {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        tokio::spawn(worker::run(
            self.app.clone(),
            worker::worker_name(0),
            stopped.clone(),
        ));
        tokio::spawn(worker::reconcile(self.app.clone(), stopped));
        Workers { stop }
    }
}

/// A simulated engine in this process; returns its base URL.
pub fn start_engine(profile: &str) -> String {
    start_engine_with(sim::Profile::load(profile).unwrap())
}

pub fn start_engine_with(profile: sim::Profile) -> String {
    let server = sim::serve(profile, "127.0.0.1:0", 1.0).unwrap();
    let url = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    url
}

/// A signed-in user.
#[derive(Debug, Clone)]
pub struct Session {
    pub user_id: String,
    pub access_token: String,
    pub refresh_token: String,
}

/// Invites `who` into `org` with `role` (as the holder of `inviter`) and accepts as them.
pub async fn join(app: &TestApp, org: &str, inviter: &str, who: &Session, email: &str, role: &str) {
    let res = app
        .post(
            &format!("/v1/orgs/{org}/invitations"),
            Some(inviter),
            json!({"email": email, "role": role}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED, "inviting {email}");
    let invitation: Value = res.json().await.unwrap();
    let res = app
        .post(
            &format!(
                "/v1/invitations/{}/accept",
                invitation["token"].as_str().unwrap()
            ),
            Some(&who.access_token),
            json!({}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK, "{email} accepting");
}

/// Asserts an answer's status, showing its body when it differs; returns the body.
pub async fn json_of(res: reqwest::Response, status: u16) -> Value {
    let got = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    assert_eq!(got, status, "{body}");
    body
}

/// Asserts a problem+json answer with `status` and `code`; returns the body.
pub async fn assert_problem(res: Response, status: u16, code: &str) -> Value {
    assert_eq!(res.status().as_u16(), status, "status");
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(content_type, "application/problem+json");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status);
    assert_eq!(body["type"], format!("urn:gpumarket:problem:{code}"));
    body
}

/// A peer that accepts connections and never answers (holding each open): its URL, and how
/// many connections it accepted.
pub async fn silent_peer() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = std::sync::Arc::clone(&accepted);
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            held.push(socket);
        }
    });
    (url, accepted)
}
