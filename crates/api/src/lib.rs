//! The HTTP API of gpumarket: actix-web routes over the `app` use cases, problem+json
//! errors, request ids, Prometheus metrics, and the OpenAPI document generated from the
//! handlers themselves.

mod error;
mod extract;
mod middleware;
mod pages;
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

/// What every operation may answer besides its own: 400 for a malformed path, query or
/// body, 413 and 415 for bodies, and 429 `rate_limited` (request rates, quotas).
struct CommonResponses;

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut OpenApiDoc) {
        use utoipa::openapi::{ContentBuilder, RefOr, Response, ResponseBuilder};
        let problem = |description: &str| -> Response {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/problem+json",
                    ContentBuilder::new()
                        .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                            "Problem",
                        ))))
                        .build(),
                )
                .build()
        };
        let common = [
            (
                "400",
                problem(
                    "A malformed path or query parameter (`invalid_parameter`) or body (`malformed_json`)",
                ),
                false,
            ),
            (
                "422",
                problem("A field or parameter breaks a rule (`validation_failed`, naming it)"),
                true,
            ),
            (
                "413",
                problem("The body is too large (`payload_too_large`)"),
                true,
            ),
            (
                "415",
                problem("The body is not JSON (`unsupported_media_type`)"),
                true,
            ),
            (
                "429",
                problem(
                    "Over a rate limit or a quota (`rate_limited`): try again after `Retry-After` \
                     seconds; `RateLimit-Policy` and `RateLimit` describe the budget",
                ),
                false,
            ),
        ];
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
                        params.iter().any(|p| {
                            matches!(
                                p,
                                RefOr::T(p) if p.parameter_in == utoipa::openapi::path::ParameterIn::Query
                            )
                        })
                    });
                for (status, response, for_bodies) in &common {
                    if *for_bodies && !has_input {
                        continue;
                    }
                    operation
                        .responses
                        .responses
                        .entry((*status).to_owned())
                        .or_insert_with(|| RefOr::T(response.clone()));
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
                .app_data(web::QueryConfig::default().error_handler(|err, _| {
                    ApiError::new(error::code::INVALID_PARAMETER, format!("query: {err}")).into()
                }))
                .configure(routes::configure)
                .split_for_parts();
            service
                .service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", openapi()))
                .route("/docs", web::get().to(docs_redirect))
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
