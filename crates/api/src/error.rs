//! Errors as `application/problem+json` (RFC 9457), from one table of stable codes.
//!
//! A code, once published, keeps its meaning and status; new situations get new codes.
//! The mapping from [`AppError`] names every variant, so a new variant forces a decision.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use app::AppError;
use serde::Serialize;
use utoipa::ToSchema;

/// One row of the table: a stable code, its HTTP status and its title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    pub code: &'static str,
    pub status: u16,
    pub title: &'static str,
}

macro_rules! codes {
    ($($name:ident / $type:ident = ($code:literal, $status:literal, $title:literal);)*) => {
        /// Every error code the API answers with.
        pub mod code {
            use super::ErrorCode;
            $(pub const $name: ErrorCode = ErrorCode { code: $code, status: $status, title: $title };)*
        }
        /// Every code as a type, for a route's documented responses:
        /// `responses((status = 200, …), Problems<(NotFound, Forbidden)>)`.
        pub mod problem {
            $(
                #[doc = $title]
                // Codes every operation may answer are added by code, not named by a route.
                #[allow(dead_code)]
                pub struct $type;
                impl super::Code for $type {
                    const CODE: super::ErrorCode = super::code::$name;
                }
            )*
        }
        /// The whole table, for documentation and for the test that keeps codes unique.
        pub const ALL_CODES: &[ErrorCode] = &[$(code::$name),*];
    };
}

codes! {
    MALFORMED_JSON / MalformedJson = ("malformed_json", 400, "The body is not valid JSON");
    INVALID_PARAMETER / InvalidParameter = ("invalid_parameter", 400, "A path or query parameter is malformed");
    UNAUTHENTICATED / Unauthenticated = ("unauthenticated", 401, "Authentication is required");
    INVALID_TOKEN / InvalidToken = ("invalid_token", 401, "The credential is not valid");
    INVALID_CREDENTIALS / InvalidCredentials = ("invalid_credentials", 401, "Email or password is wrong");
    WRONG_TOKEN_AUDIENCE / WrongTokenAudience = ("wrong_token_audience", 401, "The credential is not meant for this route");
    UNSUPPORTED_REQUEST / UnsupportedRequest = ("unsupported_request", 422, "The gateway does not serve this request");
    SHARED_MACHINE / SharedMachine = ("shared_machine", 403, "The booking shares the machine with others");
    FORBIDDEN / Forbidden = ("forbidden", 403, "Not allowed");
    SCOPE_REQUIRED / ScopeRequired = ("scope_required", 403, "The API key lacks the scope this needs");
    NOT_FOUND / NotFound = ("not_found", 404, "Not found");
    METHOD_NOT_ALLOWED / MethodNotAllowed = ("method_not_allowed", 405, "Method not allowed");
    EMAIL_TAKEN / EmailTaken = ("email_taken", 409, "The email is taken");
    PRICE_CHANGED / PriceChanged = ("price_changed", 409, "The price is not the one expected");
    BUDGET_EXCEEDED / BudgetExceeded = ("budget_exceeded", 409, "This would exceed the monthly budget");
    LISTING_QUOTA_REACHED / ListingQuotaReached = ("listing_quota_reached", 409, "The organisation holds as many listings as it may");
    ALREADY_MEMBER / AlreadyMember = ("already_member", 409, "Already a member");
    LAST_OWNER / LastOwner = ("last_owner", 409, "The organisation needs an owner");
    BOOKINGS_NOT_ENDED / BookingsNotEnded = ("bookings_not_ended", 409, "Bookings of the account have not ended");
    RUN_FINISHED / RunFinished = ("run_finished", 409, "The run has already finished");
    RUN_IN_PROGRESS / RunInProgress = ("run_in_progress", 409, "Another run of the listing is under way");
    BOOKING_CONFLICT / BookingConflict = ("booking_conflict", 409, "The capacity is taken");
    SLO_UNMET / SloUnmet = ("slo_unmet", 409, "No set of offers meets the objective");
    BOOKING_NOT_CANCELLABLE / BookingNotCancellable = ("booking_not_cancellable", 409, "The booking cannot be cancelled");
    INVALID_SIGNATURE / InvalidSignature = ("invalid_signature", 400, "The webhook signature does not verify");
    PAYMENTS_NOT_CONFIGURED / PaymentsNotConfigured = ("payments_not_configured", 409, "Payments are not configured");
    PAYOUTS_NOT_ENABLED / PayoutsNotEnabled = ("payouts_not_enabled", 409, "The provider cannot take payments yet");
    ALREADY_SUBSCRIBED / AlreadySubscribed = ("already_subscribed", 409, "The organisation already has a subscription");
    PLAN_REQUIRED / PlanRequired = ("plan_required", 403, "This needs a plan the organisation does not have");
    EMAIL_UNVERIFIED / EmailUnverified = ("email_unverified", 403, "The account has not confirmed its email address");
    PAYMENT_PROVIDER_ERROR / PaymentProviderError = ("payment_provider_error", 502, "The payment provider failed");
    ENGINE_UNAVAILABLE / EngineUnavailable = ("engine_unavailable", 502, "The machine's engine did not answer");
    LISTING_DELISTED / ListingDelisted = ("listing_delisted", 409, "The listing has been delisted");
    MAINTENANCE / Maintenance = ("maintenance", 409, "The machine is in maintenance then");
    MAINTENANCE_OVERLAPS_BOOKINGS / MaintenanceOverlapsBookings = ("maintenance_overlaps_bookings", 409, "Bookings hold the machine over the window");
    MAINTENANCE_WINDOW_KEPT / MaintenanceWindowKept = ("maintenance_window_kept", 409, "The window cancelled bookings, so it stands");
    WEBHOOK_ENDPOINT_CONFLICT / WebhookEndpointConflict = ("webhook_endpoint_conflict", 409, "The webhook endpoint cannot be registered or changed now");
    SSH_KEY_LIMIT / SshKeyLimit = ("ssh_key_limit", 409, "The account keeps as many SSH keys as it may");
    HARDWARE_MISMATCH / HardwareMismatch = ("hardware_mismatch", 409, "The listing's agent reports other hardware than the listing claims");
    PREFLIGHT_FAILED / PreflightFailed = ("preflight_failed", 409, "A check of the listing's preflight failed");
    SSH_KEY_EXISTS / SshKeyExists = ("ssh_key_exists", 409, "The account already keeps this SSH key");
    OUTSIDE_AVAILABILITY / OutsideAvailability = ("outside_availability", 409, "The machine is not available then");
    BOOKING_NOT_ACTIVE / BookingNotActive = ("booking_not_active", 409, "The booking gives no access now");
    IDEMPOTENCY_KEY_REUSED / IdempotencyKeyReused = ("idempotency_key_reused", 422, "The Idempotency-Key was used for another request");
    PAYLOAD_TOO_LARGE / PayloadTooLarge = ("payload_too_large", 413, "The body is too large");
    RATE_LIMITED / RateLimited = ("rate_limited", 429, "Too many requests");
    UNSUPPORTED_MEDIA_TYPE / UnsupportedMediaType = ("unsupported_media_type", 415, "The body must be JSON");
    VALIDATION_FAILED / ValidationFailed = ("validation_failed", 422, "The request is not valid");
    INTERNAL / Internal = ("internal", 500, "Internal server error");
    NOT_READY / NotReady = ("not_ready", 503, "A dependency is unavailable");
    SIGNING_HELD / SigningHeld = ("signing_held", 503, "The log was restored behind a checkpoint it had published: nothing is signed until the rollback is accepted");
}

/// A code of the table, as a type ([`problem`]).
pub trait Code {
    const CODE: ErrorCode;
}

/// The codes a route may answer with: one code type or a tuple of them.
pub trait Codes {
    fn codes() -> Vec<ErrorCode>;
}

impl<C: Code> Codes for C {
    fn codes() -> Vec<ErrorCode> {
        vec![C::CODE]
    }
}

macro_rules! tuple_codes {
    ($($t:ident),+) => {
        impl<$($t: Code),+> Codes for ($($t,)+) {
            fn codes() -> Vec<ErrorCode> {
                vec![$($t::CODE),+]
            }
        }
    };
}
tuple_codes!(A);
tuple_codes!(A, B);
tuple_codes!(A, B, C);
tuple_codes!(A, B, C, D);
tuple_codes!(A, B, C, D, E);
tuple_codes!(A, B, C, D, E, F);
tuple_codes!(A, B, C, D, E, F, G);
tuple_codes!(A, B, C, D, E, F, G, H);
tuple_codes!(A, B, C, D, E, F, G, H, I);
tuple_codes!(A, B, C, D, E, F, G, H, I, J);
tuple_codes!(A, B, C, D, E, F, G, H, I, J, K);
tuple_codes!(A, B, C, D, E, F, G, H, I, J, K, L);
tuple_codes!(A, B, C, D, E, F, G, H, I, J, K, L, M);
tuple_codes!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
tuple_codes!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);

/// A route's problem responses in the OpenAPI document, generated from the table: one
/// response per status, its description naming each code and its title, and one example
/// body per code (named by the code).
pub struct Problems<T>(std::marker::PhantomData<T>);

impl<T: Codes> utoipa::IntoResponses for Problems<T> {
    fn responses()
    -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::Response>> {
        let mut responses = std::collections::BTreeMap::new();
        for code in T::codes() {
            document(&mut responses, code);
        }
        responses
    }
}

/// The example body of `code`, kept once in the document's `components.examples` under the
/// code's name.
pub(crate) fn example_of(code: ErrorCode) -> utoipa::openapi::example::Example {
    utoipa::openapi::example::ExampleBuilder::new()
        .summary(code.title)
        .value(Some(serde_json::json!({
            "type": format!("{PROBLEM_TYPE}{}", code.code),
            "title": code.title,
            "status": code.status,
            "detail": code.title,
            "code": code.code,
        })))
        .build()
}

fn example_ref(code: ErrorCode) -> utoipa::openapi::RefOr<utoipa::openapi::example::Example> {
    utoipa::openapi::RefOr::Ref(utoipa::openapi::Ref::new(format!(
        "#/components/examples/{}",
        code.code
    )))
}

fn description_line(code: ErrorCode) -> String {
    format!("`{}`: {}", code.code, code.title)
}

/// Adds `code` to `responses`: a new response for its status, or, where the status is
/// documented already, its line in the description and its example (once).
pub(crate) fn document(
    responses: &mut std::collections::BTreeMap<
        String,
        utoipa::openapi::RefOr<utoipa::openapi::Response>,
    >,
    code: ErrorCode,
) {
    use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
    let status = code.status.to_string();
    if let Some(RefOr::T(response)) = responses.get_mut(&status)
        && let Some(RefOr::T(content)) = response.content.get_mut(PROBLEM_JSON)
    {
        if !content.examples.contains_key(code.code) {
            content
                .examples
                .insert(code.code.to_owned(), example_ref(code));
            response.description = format!("{}; {}", response.description, description_line(code));
        }
        return;
    }
    let mut content = ContentBuilder::new()
        .schema(Some(RefOr::Ref(Ref::from_schema_name("Problem"))))
        .build();
    content
        .examples
        .insert(code.code.to_owned(), example_ref(code));
    responses.insert(
        status,
        RefOr::T(
            ResponseBuilder::new()
                .description(description_line(code))
                .content(PROBLEM_JSON, content)
                .build(),
        ),
    );
}

const PROBLEM_JSON: &str = "application/problem+json";

/// Each problem's `type` is this followed by its code.
const PROBLEM_TYPE: &str = "urn:gpumarket:problem:";

/// A field that failed validation and why.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldError {
    /// The field's path in the request (`email`, `hardware.gpu_count`).
    pub field: String,
    pub message: String,
}

/// The body of every error response.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the problem type: `urn:gpumarket:problem:<code>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// The stable code; match on this, not on the text.
    pub code: String,
    /// Present on validation errors: each offending field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// Present on `price_changed`: the price now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<crate::views::MoneyView>,
    /// Present on `preflight_failed`: every check, the failed ones with what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<crate::views::PreflightCheckView>>,
    /// Present on `budget_exceeded`: what is left of the budget this month.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left: Option<crate::views::MoneyView>,
    /// Present on a `booking_conflict` that a later start would avoid: the earliest start
    /// that could hold (a running interruptible booking keeps its GPUs through its notice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest_starts_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// An error on its way to becoming a problem+json response.
#[derive(Debug, Clone)]
pub struct ApiError {
    code: ErrorCode,
    detail: String,
    errors: Vec<FieldError>,
    /// Seconds to wait before trying again (`Retry-After`).
    retry_after: Option<u64>,
    /// What a few problems carry beside the usual members (boxed: most carry none).
    extra: Option<Box<Extra>>,
}

/// Members of a few problems only.
#[derive(Debug, Clone, Default)]
struct Extra {
    /// The price now (`price_changed`).
    price: Option<app::Money>,
    /// What is left of the budget this month (`budget_exceeded`).
    left: Option<app::Money>,
    /// The preflight's checks (`preflight_failed`).
    checks: Option<Vec<app::trust::preflight::Check>>,
    /// The earliest start that could hold (`booking_conflict` through a notice).
    earliest_starts_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl ApiError {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self {
            code,
            detail: detail.into(),
            errors: Vec::new(),
            retry_after: None,
            extra: None,
        }
    }

    /// 429 `rate_limited`, to be tried again after `seconds`.
    pub fn rate_limited(detail: impl Into<String>, seconds: u64) -> Self {
        Self {
            retry_after: Some(seconds.max(1)),
            ..Self::new(code::RATE_LIMITED, detail)
        }
    }

    /// A 422 naming the field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        let message = message.into();
        Self {
            code: code::VALIDATION_FAILED,
            detail: format!("{field}: {message}"),
            errors: vec![FieldError { field, message }],
            retry_after: None,
            extra: None,
        }
    }

    /// A 422 naming every field that broke a rule.
    pub fn fields(fields: Vec<(String, String)>) -> Self {
        let errors: Vec<FieldError> = fields
            .into_iter()
            .map(|(field, message)| FieldError { field, message })
            .collect();
        Self {
            code: code::VALIDATION_FAILED,
            detail: errors
                .iter()
                .map(|e| format!("{}: {}", e.field, e.message))
                .collect::<Vec<_>>()
                .join("; "),
            errors,
            retry_after: None,
            extra: None,
        }
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn problem(&self) -> Problem {
        Problem {
            type_uri: format!("{PROBLEM_TYPE}{}", self.code.code),
            title: self.code.title.to_owned(),
            status: self.code.status,
            detail: self.detail.clone(),
            code: self.code.code.to_owned(),
            errors: self.errors.clone(),
            price: self
                .extra
                .as_ref()
                .and_then(|e| e.price)
                .map(crate::views::MoneyView::from),
            left: self
                .extra
                .as_ref()
                .and_then(|e| e.left)
                .map(crate::views::MoneyView::from),
            earliest_starts_at: self.extra.as_ref().and_then(|e| e.earliest_starts_at),
            checks: self
                .extra
                .as_ref()
                .and_then(|e| e.checks.clone())
                .map(|checks| {
                    checks
                        .into_iter()
                        .map(crate::views::PreflightCheckView::from)
                        .collect()
                }),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.code, self.detail)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.code.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        if self.code.status == 401 {
            response.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
        }
        if let Some(seconds) = self.retry_after {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        response.body(serde_json::to_string(&self.problem()).unwrap_or_default())
    }
}

impl From<AppError> for ApiError {
    fn from(err: AppError) -> Self {
        match err {
            AppError::Validation(v) => Self::field(v.field, v.message),
            AppError::Invalid(fields) => Self::fields(fields),
            AppError::EmailTaken => Self::new(code::EMAIL_TAKEN, err.to_string()),
            AppError::BudgetExceeded(left) => Self {
                extra: Some(Box::new(Extra {
                    left: Some(left),
                    ..Extra::default()
                })),
                ..Self::new(code::BUDGET_EXCEEDED, err.to_string())
            },
            AppError::PriceChanged(now) => Self {
                extra: Some(Box::new(Extra {
                    price: Some(now),
                    ..Extra::default()
                })),
                ..Self::new(code::PRICE_CHANGED, err.to_string())
            },
            AppError::PreflightFailed(checks) => Self {
                detail: format!(
                    "the listing's preflight failed, so no run was queued: {}",
                    app::trust::preflight::failures(&checks)
                ),
                extra: Some(Box::new(Extra {
                    checks: Some(checks),
                    ..Extra::default()
                })),
                ..Self::new(code::PREFLIGHT_FAILED, "")
            },
            AppError::ListingQuotaReached(_) => {
                Self::new(code::LISTING_QUOTA_REACHED, err.to_string())
            }
            AppError::EmailUnverified => Self::new(code::EMAIL_UNVERIFIED, err.to_string()),
            AppError::InvalidCredentials => Self::new(code::INVALID_CREDENTIALS, err.to_string()),
            AppError::InvalidToken(why) => Self::new(code::INVALID_TOKEN, why),
            AppError::WrongTokenAudience(why) => Self::new(code::WRONG_TOKEN_AUDIENCE, why),
            AppError::Unauthenticated => Self::new(code::UNAUTHENTICATED, err.to_string()),
            AppError::Forbidden(why) => Self::new(code::FORBIDDEN, why),
            AppError::UnsupportedRequest { field, why } => {
                let mut error = Self::field(field, why);
                error.code = code::UNSUPPORTED_REQUEST;
                error
            }
            AppError::SharedMachine(why) => Self::new(code::SHARED_MACHINE, why),
            AppError::ScopeRequired(why) => Self::new(code::SCOPE_REQUIRED, why),
            AppError::NotFound(_) => Self::new(code::NOT_FOUND, err.to_string()),
            AppError::AlreadyMember => Self::new(code::ALREADY_MEMBER, err.to_string()),
            AppError::LastOwner => Self::new(code::LAST_OWNER, err.to_string()),
            AppError::SoleOwner(why) => Self::new(code::LAST_OWNER, why),
            AppError::BookingsNotEnded(why) => Self::new(code::BOOKINGS_NOT_ENDED, why),
            AppError::RunFinished(_) => Self::new(code::RUN_FINISHED, err.to_string()),
            AppError::RunInProgress(_) => Self::new(code::RUN_IN_PROGRESS, err.to_string()),
            AppError::BookingConflict => Self::new(code::BOOKING_CONFLICT, err.to_string()),
            AppError::NoticeNeeded(earliest) => Self {
                extra: Some(Box::new(Extra {
                    earliest_starts_at: Some(earliest),
                    ..Extra::default()
                })),
                ..Self::new(code::BOOKING_CONFLICT, err.to_string())
            },
            AppError::SloUnmet(why) => Self::new(code::SLO_UNMET, why),
            AppError::BookingNotCancellable(_) => {
                Self::new(code::BOOKING_NOT_CANCELLABLE, err.to_string())
            }
            AppError::PaymentsNotConfigured => {
                Self::new(code::PAYMENTS_NOT_CONFIGURED, err.to_string())
            }
            AppError::PayoutsNotEnabled => Self::new(code::PAYOUTS_NOT_ENABLED, err.to_string()),
            AppError::BillingNotConfigured => {
                Self::new(code::PAYMENTS_NOT_CONFIGURED, err.to_string())
            }
            AppError::AlreadySubscribed => Self::new(code::ALREADY_SUBSCRIBED, err.to_string()),
            AppError::PlanRequired(why) => Self::new(code::PLAN_REQUIRED, why),
            AppError::PaymentProvider(_) => {
                Self::new(code::PAYMENT_PROVIDER_ERROR, err.to_string())
            }
            AppError::InvalidSignature(_) => Self::new(code::INVALID_SIGNATURE, err.to_string()),
            AppError::ListingDelisted => Self::new(code::LISTING_DELISTED, err.to_string()),
            AppError::Maintenance(_) => Self::new(code::MAINTENANCE, err.to_string()),
            AppError::MaintenanceOverlaps(why) => {
                Self::new(code::MAINTENANCE_OVERLAPS_BOOKINGS, why)
            }
            AppError::MaintenanceKept(why) => Self::new(code::MAINTENANCE_WINDOW_KEPT, why),
            AppError::WebhookConflict(why) => Self::new(code::WEBHOOK_ENDPOINT_CONFLICT, why),
            AppError::SshKeyLimit(why) => Self::new(code::SSH_KEY_LIMIT, why),
            AppError::HardwareMismatch(why) => Self::new(code::HARDWARE_MISMATCH, why),
            AppError::SshKeyExists(why) => Self::new(code::SSH_KEY_EXISTS, why),
            AppError::OutsideAvailability(_) => {
                Self::new(code::OUTSIDE_AVAILABILITY, err.to_string())
            }
            AppError::BookingNotActive(_) | AppError::BidNotRaisable(_) => {
                Self::new(code::BOOKING_NOT_ACTIVE, err.to_string())
            }
            AppError::EngineFailed(_) => Self::new(code::ENGINE_UNAVAILABLE, err.to_string()),
            AppError::IdempotencyKeyReused => {
                Self::new(code::IDEMPOTENCY_KEY_REUSED, err.to_string())
            }
            AppError::Unavailable(what) => Self {
                retry_after: Some(1),
                ..Self::new(code::NOT_READY, what)
            },
            AppError::RateLimited {
                what,
                retry_after_secs,
            } => Self::rate_limited(what, retry_after_secs),
            AppError::Store(_) if err.account_erased() => {
                Self::new(code::INVALID_TOKEN, err.to_string())
            }
            AppError::Store(_) if err.database_unavailable() => {
                tracing::warn!(error = %err, "the database could not be reached");
                Self {
                    retry_after: Some(1),
                    ..Self::new(
                        code::NOT_READY,
                        "the database cannot be reached just now; try again (with the same \
                         Idempotency-Key, a retry never books twice)",
                    )
                }
            }
            AppError::Store(_) if err.signing_held() => {
                Self::new(code::SIGNING_HELD, err.to_string())
            }
            AppError::Config(_)
            | AppError::Store(_)
            | AppError::Queue(_)
            | AppError::Internal(_) => internal(&err),
        }
    }
}

/// A 500 that tells the client nothing internal; the log gets the whole cause chain.
pub fn internal(err: &(dyn std::error::Error + 'static)) -> ApiError {
    let mut chain = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        chain.push_str(": ");
        chain.push_str(&cause.to_string());
        source = cause.source();
    }
    tracing::error!(error = %chain, "request failed");
    ApiError::new(
        code::INTERNAL,
        "something went wrong on our side; the request id in the x-request-id header helps us find it",
    )
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn codes_are_unique_and_statuses_are_errors() {
        let mut seen = HashSet::new();
        for code in ALL_CODES {
            assert!(seen.insert(code.code), "duplicate code {}", code.code);
            assert!((400..600).contains(&code.status), "{}", code.code);
            assert!(StatusCode::from_u16(code.status).is_ok());
        }
    }

    #[test]
    fn validation_errors_name_the_field() {
        let problem = ApiError::from(AppError::Validation(domain::ValidationError::new(
            "email",
            "must not be empty",
        )))
        .problem();
        assert_eq!(problem.status, 422);
        assert_eq!(problem.code, "validation_failed");
        assert_eq!(problem.errors[0].field, "email");
    }

    #[test]
    fn internal_errors_say_nothing_internal() {
        let problem = ApiError::from(AppError::Internal("db password is hunter2".into())).problem();
        assert_eq!(problem.status, 500);
        assert!(!problem.detail.contains("hunter2"));
    }
}
