//! The HTTP API of gpumarket: actix-web routes over the `app` use cases, problem+json
//! errors, request ids, Prometheus metrics, and the OpenAPI document generated from the
//! handlers themselves.

mod error;
mod extract;
mod json;
mod middleware;
mod pages;
mod rfc3339;
mod routes;
mod views;

use std::net::{SocketAddr, TcpListener};

use actix_web::dev::Server;
use actix_web::{HttpRequest, HttpResponse, web};
use app::App;
use utoipa::openapi::OpenApi as OpenApiDoc;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

pub use error::{ALL_CODES, ApiError, ErrorCode, Problem};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "gpumarket",
        description = "A marketplace for GPU machines whose performance is measured by the standard benchmark matrix and published as signed reports.",
        license(name = "Apache-2.0", identifier = "Apache-2.0")
    ),
    modifiers(&BearerAuth),
    // Every error response's body; the responses themselves come from the error table.
    components(schemas(Problem)),
    tags(
        (name = "accounts", description = "Registration, sessions, API keys"),
        (name = "organisations", description = "Providers and teams, their members and roles"),
        (name = "listings", description = "Machines for rent"),
        (name = "bookings", description = "Renting GPUs of a listing over an interval"),
        (name = "payments", description = "Stripe Connect onboarding, webhooks, earnings and spend"),
        (name = "verification", description = "Runs of the standard benchmark matrix against a listing's engine"),
        (name = "reports", description = "Signed reports, exports, organisation reports, the leaderboard, signing keys"),
        (name = "catalog", description = "GPUs and models with their verified figures, and the decode calculator"),
        (name = "runs", description = "Community runs: submitted reports, checked and labelled community, never verified"),
        (name = "log", description = "The transparency log: checkpoints, proofs, entries"),
        (name = "gateway", description = "One endpoint per booking: the rented engine, metered"),
        (name = "webhooks", description = "Endpoints told of events as they happen (Standard Webhooks), their deliveries and attempts"),
        (name = "operations", description = "Health, readiness and metrics"),
    )
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut OpenApiDoc) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                Http::builder()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A JWT access token from /v1/auth/login, or an API key (gpm_…)",
                    ))
                    .build(),
            ),
        );
    }
}

/// What every operation may answer besides its own, from the error table: 400 for a
/// malformed path or query, 429 `rate_limited` (request rates, quotas), 500 `internal`; for an
/// operation that takes input, a malformed, too large or non-JSON body and a rule broken; for
/// one that takes a credential, an API key without the scope it needs.
struct CommonResponses;

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut OpenApiDoc) {
        use error::code;
        use utoipa::openapi::RefOr;
        use utoipa::openapi::path::ParameterIn;
        let every = [code::INVALID_PARAMETER, code::RATE_LIMITED, code::INTERNAL];
        let with_input = [
            code::MALFORMED_JSON,
            code::VALIDATION_FAILED,
            code::PAYLOAD_TOO_LARGE,
            code::UNSUPPORTED_MEDIA_TYPE,
        ];
        let components = openapi.components.get_or_insert_with(Default::default);
        for code in ALL_CODES {
            components
                .examples
                .insert(code.code.to_owned(), RefOr::T(error::example_of(*code)));
        }
        for item in openapi.paths.paths.values_mut() {
            for operation in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                let has_input = operation.request_body.is_some()
                    || operation.parameters.as_ref().is_some_and(|params| {
                        params.iter().any(
                            |p| matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Query),
                        )
                    });
                // An organisation's API key on a route its scopes do not open.
                let signed_in = operation.security.as_ref().is_some_and(|s| !s.is_empty());
                let codes = every
                    .iter()
                    .chain(with_input.iter().filter(|_| has_input))
                    .chain([code::SCOPE_REQUIRED].iter().filter(|_| signed_in));
                for code in codes {
                    error::document(&mut operation.responses.responses, *code);
                }
            }
        }
    }
}

/// The OpenAPI document, collected from the registered handlers.
pub fn openapi() -> OpenApiDoc {
    let (_, mut doc) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes::configure)
        .split_for_parts();
    // After the routes: it documents every one of them.
    CommonResponses.modify(&mut doc);
    doc
}

/// The API's description, its viewer, and the viewer's own path (registered with the service
/// below, and limited by no budget).
const OPENAPI_PATH: &str = "/openapi.json";
const DOCS_PATH: &str = "/docs";
const DOCS_VIEWER: &str = "/docs/{_:.*}";

/// The routes outside the API's and the site's pages, which no budget limits: the API's
/// description and its viewer.
pub(crate) fn unmetered_routes()
-> [((&'static str, &'static str), Option<app::limits::RateClass>); 3] {
    [
        (("GET", OPENAPI_PATH), None),
        (("GET", DOCS_PATH), None),
        (("GET", DOCS_VIEWER), None),
    ]
}

/// The document as committed in `openapi/openapi.json`: pretty JSON with a final newline.
pub fn openapi_json() -> Result<String, serde_json::Error> {
    let mut json = openapi().to_pretty_json()?;
    json.push('\n');
    Ok(json)
}

/// A bound, not yet running, HTTP server. `build` binds (port 0 picks a free port, which
/// tests use); `run` serves until the process is told to stop.
pub struct Application {
    server: Server,
    addr: SocketAddr,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Application {
    pub fn build(app: App, workers: usize) -> std::io::Result<Self> {
        let listener = TcpListener::bind(&app.config().server.listen)?;
        let addr = listener.local_addr()?;
        let body_limit = extract::BodyLimit(app.config().server.max_body_bytes);
        let send_buffer = app.config().server.send_buffer_bytes;
        app.serve_search_from_memory();
        // Install the recorder before the first request, so no measurement is lost.
        middleware::prometheus();
        let data = web::Data::new(app);
        let server = actix_web::HttpServer::new(move || {
            let (service, _) = actix_web::App::new()
                .into_utoipa_app()
                .openapi(ApiDoc::openapi())
                .app_data(data.clone())
                .app_data(body_limit)
                .app_data(web::PathConfig::default().error_handler(|err, _| {
                    ApiError::new(error::code::INVALID_PARAMETER, format!("path: {err}")).into()
                }))
                .configure(routes::configure)
                .split_for_parts();
            service
                .service(SwaggerUi::new(DOCS_VIEWER).url(OPENAPI_PATH, openapi()))
                .route(DOCS_PATH, web::get().to(docs_redirect))
                .configure(pages::configure)
                .default_service(web::to(no_route))
                .wrap(actix_web::middleware::from_fn(middleware::rate_limit))
                .wrap(actix_web::middleware::from_fn(middleware::observe))
        })
        // Every answer's bytes leave as written: without TCP_NODELAY a streamed answer's first
        // small write waits for the client's delayed ACK (about 40 ms of added TTFT). The
        // kernel's send buffer is bounded (`send_buffer_bytes`): a client that stops reading
        // holds that much, not the megabytes autotuning grows to, and a gateway stream to it
        // shows as blocked (a slow reader) once it is that far behind.
        .on_connect(move |connection, _| {
            if let Some(tcp) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() {
                let _ = tcp.set_nodelay(true);
                if send_buffer > 0 {
                    let _ = socket2::SockRef::from(tcp).set_send_buffer_size(send_buffer);
                }
            }
        })
        .workers(workers.max(1))
        .shutdown_timeout(10)
        .listen(listener)?
        .run();
        Ok(Self { server, addr })
    }

    /// A worker's own small listener (`worker_listen`): `/healthz`, `/readyz` and
    /// `/metrics` only, on one thread. It takes no signals: the worker stops it after its
    /// drain (a run in progress handed back through the queue), so probes answer meanwhile.
    pub fn probes(app: App, listen: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind(listen)?;
        let addr = listener.local_addr()?;
        middleware::prometheus();
        let data = web::Data::new(app);
        let server = actix_web::HttpServer::new(move || {
            actix_web::App::new()
                .app_data(data.clone())
                .service(routes::health::healthz)
                .service(routes::health::readyz)
                .service(routes::health::metrics)
                .default_service(web::to(no_route))
        })
        .workers(1)
        .disable_signals()
        .shutdown_timeout(1)
        .listen(listener)?
        .run();
        Ok(Self { server, addr })
    }

    /// Stops serving: requests in flight finish (up to the shutdown timeout).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until stopped (SIGINT/SIGTERM, or the handle).
    pub async fn run(self) -> std::io::Result<()> {
        self.server.await
    }
}

async fn docs_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header(("location", "/docs/"))
        .finish()
}

/// Unknown paths and methods answer in problem+json like everything else.
async fn no_route(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::new(
        error::code::NOT_FOUND,
        format!("no route for {} {}", req.method(), req.path()),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// Every operation has its own `operationId`, in snake case, naming what it does (SDK
    /// generators name their methods by it, and refuse or silently merge duplicates).
    #[test]
    fn every_operation_has_an_id_of_its_own() {
        let doc: Value = serde_json::from_str(&super::openapi_json().unwrap()).unwrap();
        let mut seen = std::collections::BTreeMap::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let at = format!("{method} {path}");
                let id = operation["operationId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{at}: no operationId"));
                assert!(
                    !id.is_empty()
                        && id
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{at}: {id}"
                );
                if let Some(other) = seen.insert(id.to_owned(), at.clone()) {
                    panic!("{id} names both {other} and {at}");
                }
            }
        }
        assert_eq!(seen["list_bookings"], "get /v1/bookings");
        assert_eq!(seen["list_org_api_keys"], "get /v1/orgs/{id}/api-keys");
    }

    /// Every error response of the document comes from the error table: problem+json, one
    /// example per code (named by it, of the response's status), each named in the
    /// description; none is written by hand.
    #[test]
    fn problem_responses_are_generated_from_the_error_table() {
        let doc: Value = serde_json::from_str(&super::openapi_json().unwrap()).unwrap();
        let mut operations = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                operations += 1;
                let responses = operation["responses"].as_object().unwrap();
                assert!(responses.contains_key("429"), "{method} {path}: no 429");
                for (status, response) in responses {
                    if status.as_str() < "400" {
                        continue;
                    }
                    let at = format!("{method} {path} {status}");
                    let examples = response["content"]["application/problem+json"]["examples"]
                        .as_object()
                        .unwrap_or_else(|| panic!("{at}: not from the table: {response}"));
                    assert!(!examples.is_empty(), "{at}");
                    let description = response["description"].as_str().unwrap();
                    for (name, example) in examples {
                        assert_eq!(
                            example["$ref"],
                            format!("#/components/examples/{name}"),
                            "{at}"
                        );
                        let example = &doc["components"]["examples"][name];
                        let code = super::ALL_CODES
                            .iter()
                            .find(|c| c.code == name)
                            .unwrap_or_else(|| panic!("{at}: unknown code {name}"));
                        assert_eq!(code.status.to_string(), *status, "{at}: {name}");
                        assert_eq!(example["value"]["code"], *name, "{at}");
                        assert_eq!(example["value"]["status"], code.status, "{at}");
                        assert!(
                            description.contains(&format!("`{name}`: {}", code.title)),
                            "{at}: {description}"
                        );
                    }
                }
            }
        }
        assert!(operations > 50, "{operations} operations");
        // What the responses point at is in the document.
        assert!(doc["components"]["schemas"]["Problem"]["properties"]["code"].is_object());
        assert!(doc["components"]["schemas"]["FieldError"].is_object());
        // A route's own codes and the common ones share a status without losing either.
        let booking = &doc["paths"]["/v1/bookings"]["post"]["responses"];
        let conflicts = booking["409"]["content"]["application/problem+json"]["examples"]
            .as_object()
            .unwrap();
        for code in [
            "booking_conflict",
            "listing_delisted",
            "outside_availability",
        ] {
            assert!(conflicts.contains_key(code), "{code}");
        }
        let invalid = booking["422"]["content"]["application/problem+json"]["examples"]
            .as_object()
            .unwrap();
        assert!(invalid.contains_key("idempotency_key_reused"));
        assert!(invalid.contains_key("validation_failed"));
    }
}
