//! What a use case can refuse or fail with. No HTTP here; the API maps each variant.

use domain::ValidationError;
use store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Input broke a rule; names the field.
    #[error(transparent)]
    Validation(#[from] ValidationError),
    /// Input broke several rules; each names its field (a path such as
    /// `report.decode[3].total_tok_s`).
    #[error("{}", .0.iter().map(|(f, m)| format!("{f}: {m}")).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<(String, String)>),
    #[error("an account with this email already exists")]
    EmailTaken,
    /// The price is not the one the renter expected (or it changed while booking): what it
    /// is now.
    #[error("the price is now {} {} (minor units)", .0.minor(), .0.currency().code())]
    PriceChanged(domain::Money),
    /// It would take this month's spending past the person's budget: what is left of it.
    #[error(
        "this would exceed your budget this month: {} {} (minor units) are left",
        .0.minor(),
        .0.currency().code()
    )]
    BudgetExceeded(domain::Money),
    /// The organisation holds as many listings as it may; says how many.
    #[error("the organisation holds its {0} listings already: delist one first")]
    ListingQuotaReached(u32),
    /// The account has not confirmed its email address, which this needs.
    #[error(
        "confirm your email address first: follow the link mailed to it (POST /v1/auth/email/resend sends a new one)"
    )]
    EmailUnverified,
    #[error("email or password is wrong")]
    InvalidCredentials,
    /// A bearer token, refresh token or API key that does not prove anything; says why.
    #[error("{0}")]
    InvalidToken(&'static str),
    /// A credential of ours, but for another audience (the machine's access token on the
    /// gateway); says which credential the route takes.
    #[error("{0}")]
    WrongTokenAudience(&'static str),
    /// No credential where one is required.
    #[error("this needs a bearer token or an API key")]
    Unauthenticated,
    /// A request the gateway does not serve (it would be more than one sequence); names
    /// the field and why.
    #[error("{field}: {why}")]
    UnsupportedRequest {
        field: &'static str,
        why: &'static str,
    },
    /// What the booking asks for would show other renters' use of a shared machine.
    #[error("{0}")]
    SharedMachine(&'static str),
    /// Authenticated, but not allowed to do this; says what was needed.
    #[error("{0}")]
    Forbidden(String),
    /// An API key without the scope the route needs (or a person's key where only an
    /// organisation's key will do).
    #[error("{0}")]
    ScopeRequired(String),
    /// The named thing does not exist (or the caller may not know it does).
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("already a member of this organisation")]
    AlreadyMember,
    #[error("the organisation's last owner keeps that role; appoint another owner first")]
    LastOwner,
    /// The person is the only owner of an organisation (their account cannot go); says which.
    #[error("{0}")]
    SoleOwner(String),
    /// Bookings of the person have not ended (their account cannot go yet); says how many.
    #[error("{0}")]
    BookingsNotEnded(String),
    /// No set of offers meets the service-level objective for the users asked for; says
    /// what the offers serve.
    #[error("{0}")]
    SloUnmet(String),
    /// The machine does not have the GPUs free over the interval.
    #[error("the machine does not have that many GPUs free over the whole interval")]
    BookingConflict,
    /// The GPUs are held by a running interruptible booking through its notice: free from
    /// the earliest start named.
    #[error(
        "the GPUs are held by a running interruptible booking until its notice runs out: the earliest start that could hold is {0}"
    )]
    NoticeNeeded(chrono::DateTime<chrono::Utc>),
    /// The machine is in maintenance over part of the interval; says when.
    #[error("the machine is in maintenance {0}")]
    Maintenance(String),
    /// A maintenance window over bookings, without asking to cancel them; says which.
    #[error("{0}")]
    MaintenanceOverlaps(String),
    /// A maintenance window that cancelled bookings stands; says so.
    #[error("{0}")]
    MaintenanceKept(String),
    /// A webhook endpoint cannot be registered or changed now; says why (the owner's limit,
    /// a racing rotation).
    #[error("{0}")]
    WebhookConflict(String),
    /// The listing's agent reports other hardware than the listing claims; says what
    /// differs.
    #[error("{0}")]
    HardwareMismatch(String),
    /// A check of the listing's preflight failed: every check, each with its evidence and
    /// what to do.
    #[error("the listing's preflight failed: {}", domain::preflight::failures(.0))]
    PreflightFailed(Vec<domain::preflight::Check>),
    /// The account keeps as many SSH keys as it may; says how many.
    #[error("{0}")]
    SshKeyLimit(String),
    /// The account already keeps this SSH key; names it.
    #[error("{0}")]
    SshKeyExists(String),
    /// The listing has been delisted: it cannot be booked or edited.
    #[error("the listing has been delisted")]
    ListingDelisted,
    /// The interval is outside the listing's availability window; describes the window.
    #[error("the machine is only available {0}")]
    OutsideAvailability(String),
    /// The booking is not confirmed or running (pending payment, cancelled, ended); names
    /// its status.
    #[error("the booking is {0}, so it gives no access")]
    BookingNotActive(String),
    /// The booking's bid cannot be raised as it stands (displaced, over, unpaid, or a raise
    /// being paid); says why. Answered as `booking_not_active`.
    #[error("{0}")]
    BidNotRaisable(String),
    /// The booking's engine did not answer as its dialect does; says what it lacked (no
    /// detail of the engine's own is echoed).
    #[error("the machine's engine did not answer: {0}")]
    EngineFailed(&'static str),
    /// Payments are not configured (no Stripe key).
    #[error("payments are not configured on this server")]
    PaymentsNotConfigured,
    /// Payments are configured but the Pro plan's price is not (`stripe_pro_price_id`).
    #[error("the Pro plan is not offered on this server (no stripe_pro_price_id)")]
    BillingNotConfigured,
    /// The organisation already has a subscription; it manages it in the Billing Portal.
    #[error("the organisation already has a subscription; manage it through the billing portal")]
    AlreadySubscribed,
    /// What was asked needs a plan the organisation does not have; says what.
    #[error("{0}")]
    PlanRequired(String),
    /// The provider organisation cannot take payments yet.
    #[error(
        "the provider has not finished setting up payouts, so its machines cannot be booked yet"
    )]
    PayoutsNotEnabled,
    /// Stripe refused or did not answer; says what and what became of the booking.
    #[error("{0}")]
    PaymentProvider(String),
    /// A webhook delivery that is not signed right, is stale, or is not an event.
    #[error("{0}")]
    InvalidSignature(String),
    /// An idempotency key came back with a different request.
    #[error("this Idempotency-Key was already used for a different request")]
    IdempotencyKeyReused,
    /// The booking has ended or was cancelled; names its status.
    #[error("the booking can no longer be cancelled (it is {0})")]
    BookingNotCancellable(String),
    /// A run of the listing is under way that differs from what was asked; says how.
    #[error("{0}")]
    RunInProgress(String),
    /// The run has already finished; says how.
    #[error("the run has already finished ({0})")]
    RunFinished(String),
    /// A dependency the use case needs is down (readiness); names it.
    #[error("{0}")]
    Unavailable(String),
    /// Over a limit or a quota: `what` says which; try again after `retry_after_secs`.
    #[error("{what}")]
    RateLimited { what: String, retry_after_secs: u64 },
    /// The server's own configuration is unusable; says which setting.
    #[error("configuration: {0}")]
    Config(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Queue(#[from] queue::QueueError),
    /// A bug or an environment failure (e.g. the OS random source); the log gets the cause.
    #[error("internal error: {0}")]
    Internal(String),
}

impl AppError {
    /// Whether the account acting was erased while the request waited (a 401 for it, like
    /// any credential of an erased account).
    pub fn account_erased(&self) -> bool {
        matches!(self, Self::Store(StoreError::AccountErased))
    }

    /// Whether the database could not be reached (a 503 the client may retry).
    pub fn database_unavailable(&self) -> bool {
        matches!(self, Self::Store(e) if e.is_unavailable())
    }

    /// Whether signing is held (the log was restored behind a checkpoint it had published).
    pub fn signing_held(&self) -> bool {
        matches!(self, Self::Store(StoreError::SigningHeld { .. }))
    }
}
