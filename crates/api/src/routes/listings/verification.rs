use actix_web::{HttpResponse, get, web};
use app::App;
use app::trust::spot_checks::ListingVerification;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;

/// One entry of a listing's verification history.
#[derive(Debug, Serialize, ToSchema)]
pub struct VerificationCheckView {
    /// `verified`, `spot_check_passed`, `spot_check_inconclusive`, `demoted`, `expired` or
    /// `withdrawn`.
    pub kind: String,
    /// The report the entry is about: the verification, or the spot check's own report.
    pub report_id: Option<Uuid>,
    /// The verification a spot check compared against, or the badge that ended.
    pub baseline_report_id: Option<Uuid>,
    pub reason: Option<String>,
    pub at: DateTime<Utc>,
}

/// A listing's badge: its state, when it was given and when it ends, and its history.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListingVerificationView {
    /// `unverified`, `verified`, `expired` or `demoted`.
    pub state: &'static str,
    pub report_id: Option<Uuid>,
    pub verified_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub history: Vec<VerificationCheckView>,
}

impl From<ListingVerification> for ListingVerificationView {
    fn from(v: ListingVerification) -> Self {
        Self {
            state: v.state.as_str(),
            report_id: v.report_id.map(Into::into),
            verified_at: v.verified_at,
            expires_at: v.expires_at,
            history: v
                .history
                .into_iter()
                .map(|c| VerificationCheckView {
                    kind: c.kind,
                    report_id: c.report_id.map(Into::into),
                    baseline_report_id: c.baseline_report_id.map(Into::into),
                    reason: c.reason,
                    at: c.at,
                })
                .collect(),
        }
    }
}

/// A listing's verification state, `verified_at`, `expires_at` and the history of its
/// verifications, spot checks, expiries and demotions. Members of its organisation may.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_listing_verification", 
    tag = "verification",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 200, description = "The badge and its history", body = ListingVerificationView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/listings/{id}/verification")]
pub async fn verification(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let badge = app
        .listing_verification(caller, id.into_inner().into())
        .await?;
    Ok(HttpResponse::Ok().json(ListingVerificationView::from(badge)))
}
