//! What a listing shows of its verification: its badge state, its headline figures and, in
//! `listing_cells` and `listing_prefill` (the search projection), the valid decode cells of
//! its latest compliant report, priced per million tokens, and its prefill rates — written in the report's transaction, withdrawn with
//! the badge, refreshed when the price changes, so search never joins reports — and the
//! entries of its verification history.

use chrono::{DateTime, Utc};
use domain::money::price_per_mtok;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    RelationDef, UpdateMany,
};
use uuid::Uuid;

use crate::StoreError;
use crate::entities::{
    listing_cells, listing_prefill, listings, report_cells, verification_checks,
};

pub use crate::status::badge_state;

/// The kinds of entries in a listing's verification history.
pub mod check_kind {
    /// A verification report gave the badge.
    pub const VERIFIED: &str = "verified";
    /// A spot check confirmed the badge and renewed it.
    pub const SPOT_CHECK_PASSED: &str = "spot_check_passed";
    /// A spot check found the machine no longer as verified: badge withdrawn.
    pub const DEMOTED: &str = "demoted";
    /// A spot check found nothing either way (the platform's client was starved): the badge
    /// is neither renewed nor withdrawn, and the next check comes soon.
    pub const SPOT_CHECK_INCONCLUSIVE: &str = "spot_check_inconclusive";
    /// The badge reached its expiry without a renewal.
    pub const EXPIRED: &str = "expired";
    /// The listing's hardware or engine was edited.
    pub const WITHDRAWN: &str = "withdrawn";
}

pub type CheckRecord = verification_checks::Model;

/// How long a badge given now lasts, and when its first spot check is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Badge {
    pub expires_at: DateTime<Utc>,
    pub next_spot_check_at: DateTime<Utc>,
}

impl Badge {
    /// `update` setting a listing's badge: its expiry and next spot check.
    pub(crate) fn set_on(
        self,
        update: UpdateMany<listings::Entity>,
    ) -> UpdateMany<listings::Entity> {
        update
            .col_expr(
                listings::Column::VerificationExpiresAt,
                Expr::value(self.expires_at),
            )
            .col_expr(
                listings::Column::NextSpotCheckAt,
                Expr::value(self.next_spot_check_at),
            )
    }
}

/// One entry of a listing's history.
pub(crate) async fn record_check(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    kind: &str,
    (report, baseline): (Option<Uuid>, Option<Uuid>),
    reason: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    verification_checks::Entity::insert(verification_checks::ActiveModel {
        id: Set(Uuid::now_v7()),
        listing_id: Set(listing),
        kind: Set(kind.to_owned()),
        report_id: Set(report),
        baseline_report_id: Set(baseline),
        reason: Set(reason.map(str::to_owned)),
        created_at: Set(now),
    })
    .exec_without_returning(conn)
    .await?;
    Ok(())
}

/// Drops a listing's verification: its latest report, headline and search figures; leaves
/// `state` (`None`: unverified) and no spot check scheduled. `Some(listing)` only matches
/// while its latest report is `only_if` (when given), so a renewal and a withdrawal cannot
/// both win. `false` when nothing matched.
pub(crate) async fn withdraw(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    only_if: Option<Uuid>,
    state: Option<&str>,
) -> Result<bool, StoreError> {
    withdraw_where(conn, listing, only_if, state, Condition::all()).await
}

/// [`withdraw`], only while the listing also meets `and`.
pub(crate) async fn withdraw_where(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    only_if: Option<Uuid>,
    state: Option<&str>,
    and: Condition,
) -> Result<bool, StoreError> {
    let mut update = listings::Entity::update_many()
        .col_expr(
            listings::Column::LatestReportId,
            Expr::value(Option::<Uuid>::None),
        )
        .col_expr(
            listings::Column::VerifiedAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(
            listings::Column::HeadlineTotalTokS,
            Expr::value(Option::<f64>::None),
        )
        .col_expr(
            listings::Column::HeadlinePerRequestTokS,
            Expr::value(Option::<f64>::None),
        )
        .col_expr(
            listings::Column::HeadlinePricePerMtok,
            Expr::value(Option::<f64>::None),
        )
        .col_expr(
            listings::Column::MeasuredEngine,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            listings::Column::VerificationState,
            Expr::value(state.map(str::to_owned)),
        )
        .col_expr(
            listings::Column::NextSpotCheckAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .filter(listings::Column::Id.eq(listing))
        .filter(and);
    if let Some(report) = only_if {
        update = update.filter(listings::Column::LatestReportId.eq(report));
    }
    if update.exec(conn).await?.rows_affected == 0 {
        return Ok(false);
    }
    clear(conn, listing).await?;
    Ok(true)
}

/// Removes a listing's rows of the search projection (decode cells and prefill rates).
pub(crate) async fn clear(conn: &impl ConnectionTrait, listing: Uuid) -> Result<(), StoreError> {
    listing_cells::Entity::delete_many()
        .filter(listing_cells::Column::ListingId.eq(listing))
        .exec(conn)
        .await?;
    listing_prefill::Entity::delete_many()
        .filter(listing_prefill::Column::ListingId.eq(listing))
        .exec(conn)
        .await?;
    Ok(())
}

/// A valid decode cell of the search projection: what goodput at an SLO is judged on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProjectedCell {
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub ttft_ms_p99: Option<f64>,
    pub ttft_samples: Option<i64>,
    pub itl_ms_p99: Option<f64>,
    pub energy_j_per_token: Option<f64>,
}

impl From<listing_cells::Model> for ProjectedCell {
    fn from(c: listing_cells::Model) -> Self {
        Self {
            context_tokens: c.context_tokens,
            concurrency: c.concurrency,
            total_tok_s: c.total_tok_s,
            ttft_ms_p99: c.ttft_ms_p99,
            ttft_samples: c.ttft_samples,
            itl_ms_p99: c.itl_ms_p99,
            energy_j_per_token: c.energy_j_per_token,
        }
    }
}

/// The join from a listing to its rows of the search projection.
pub(crate) fn cells_of_listing() -> RelationDef {
    let to_listing: RelationDef = listing_cells::Entity::belongs_to(listings::Entity)
        .from(listing_cells::Column::ListingId)
        .to(listings::Column::Id)
        .into();
    to_listing.rev()
}

/// Recomputes the price-per-million-tokens figures of a listing from its price and its
/// measured tok/s (after a price change or a new report).
pub(crate) async fn refresh_prices(
    conn: &impl ConnectionTrait,
    id: Uuid,
) -> Result<(), StoreError> {
    let cells: Vec<ProjectedCell> = listing_cells::Entity::find()
        .filter(listing_cells::Column::ListingId.eq(id))
        .all(conn)
        .await?
        .into_iter()
        .map(ProjectedCell::from)
        .collect();
    let prefill = listing_prefill::Entity::find()
        .filter(listing_prefill::Column::ListingId.eq(id))
        .all(conn)
        .await?;
    write_cells(conn, id, cells, prefill).await
}

/// Replaces the listing's rows of the search projection with `cells` and `prefill`, pricing
/// each cell and the headline.
async fn write_cells(
    conn: &impl ConnectionTrait,
    id: Uuid,
    cells: Vec<ProjectedCell>,
    prefill: Vec<listing_prefill::Model>,
) -> Result<(), StoreError> {
    let Some(listing) = listings::Entity::find_by_id(id).one(conn).await? else {
        return Ok(());
    };
    let currency = domain::Currency::parse("currency", &listing.currency)
        .map_err(|e| StoreError::Corrupt(format!("listing {id}: {e}")))?;
    let per_hour = domain::Money::new(listing.price_amount, currency);
    let ppm = |tok_s: f64| price_per_mtok(per_hour.times(i64::from(listing.gpu_count)), tok_s);
    // Only active listings are searched, so only they have rows.
    let (cells, prefill) = if listing.status == domain::ListingStatus::Active {
        (cells, prefill)
    } else {
        Default::default()
    };
    listings::Entity::update_many()
        .col_expr(
            listings::Column::HeadlinePricePerMtok,
            Expr::value(listing.headline_total_tok_s.and_then(ppm)),
        )
        .filter(listings::Column::Id.eq(id))
        .exec(conn)
        .await?;
    clear(conn, id).await?;
    let rows: Vec<listing_cells::ActiveModel> = cells
        .into_iter()
        .filter_map(|c| {
            Some(listing_cells::ActiveModel {
                listing_id: Set(id),
                context_tokens: Set(c.context_tokens),
                concurrency: Set(c.concurrency),
                gpu_model: Set(listing.gpu_model.clone()),
                price_amount: Set(listing.price_amount),
                total_tok_s: Set(c.total_tok_s),
                price_per_mtok: Set(ppm(c.total_tok_s)?),
                ttft_ms_p99: Set(c.ttft_ms_p99),
                ttft_samples: Set(c.ttft_samples),
                itl_ms_p99: Set(c.itl_ms_p99),
                energy_j_per_token: Set(c.energy_j_per_token),
            })
        })
        .collect();
    if !rows.is_empty() {
        listing_cells::Entity::insert_many(rows)
            .exec_without_returning(conn)
            .await?;
    }
    let rates: Vec<listing_prefill::ActiveModel> = prefill
        .into_iter()
        .map(|p| listing_prefill::ActiveModel {
            listing_id: Set(id),
            context_tokens: Set(p.context_tokens),
            prompt_tok_s: Set(p.prompt_tok_s),
        })
        .collect();
    if !rates.is_empty() {
        listing_prefill::Entity::insert_many(rates)
            .exec_without_returning(conn)
            .await?;
    }
    Ok(())
}

/// Makes `report` the listing's verification — its headline on the listing, its valid decode
/// cells in the search projection, its badge — if the listing still claims what the run
/// measured (compared in the same statement, so an edit racing the report wins); `false`
/// when it does not. Runs inside the report's transaction.
pub(crate) async fn set_verification(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    measured: &crate::trust::runs::MeasuredClaim,
    report: Uuid,
    at: DateTime<Utc>,
    (total_tok_s, per_request_tok_s): (Option<f64>, Option<f64>),
    badge: crate::Badge,
) -> Result<bool, StoreError> {
    let updated = badge
        .set_on(listings::Entity::update_many())
        .col_expr(
            listings::Column::VerificationState,
            Expr::value(badge_state::VERIFIED),
        )
        .col_expr(listings::Column::LatestReportId, Expr::value(report))
        .col_expr(listings::Column::VerifiedAt, Expr::value(at))
        .col_expr(
            listings::Column::HeadlineTotalTokS,
            Expr::value(total_tok_s),
        )
        .col_expr(
            listings::Column::HeadlinePerRequestTokS,
            Expr::value(per_request_tok_s),
        )
        .filter(listings::Column::Id.eq(listing))
        .filter(listings::Column::GpuModel.eq(measured.gpu_model.as_str()))
        .filter(listings::Column::GpuCount.eq(measured.gpu_count))
        .filter(listings::Column::VramGb.eq(measured.vram_gb))
        .filter(listings::Column::CpuModel.eq(measured.cpu_model.as_str()))
        .filter(listings::Column::RamGb.eq(measured.ram_gb))
        .filter(listings::Column::EngineBaseUrl.eq(measured.engine_base_url.as_str()))
        .filter(listings::Column::EngineModel.eq(measured.engine_model.as_str()))
        .exec(conn)
        .await?;
    if updated.rows_affected == 0 {
        return Ok(false);
    }
    record_check(
        conn,
        listing,
        check_kind::VERIFIED,
        (Some(report), None),
        None,
        at,
    )
    .await?;
    let valid = report_cells::Entity::find()
        .filter(report_cells::Column::ReportId.eq(report))
        .filter(report_cells::Column::Status.eq(domain::CellStatus::Valid.as_str()))
        .all(conn)
        .await?;
    let phase = |c: &report_cells::Model, phase: domain::CellPhase| c.phase == phase.as_str();
    let cells = valid
        .iter()
        .filter(|c| phase(c, domain::CellPhase::Decode))
        .filter_map(|c| {
            Some(ProjectedCell {
                context_tokens: c.context_tokens,
                concurrency: c.concurrency,
                total_tok_s: c.total_tok_s?,
                ttft_ms_p99: c.ttft_ms_p99,
                ttft_samples: c.ttft_samples,
                itl_ms_p99: c.itl_ms_p99,
                energy_j_per_token: c.energy_j_per_token,
            })
        })
        .collect();
    let prefill = valid
        .iter()
        .filter(|c| phase(c, domain::CellPhase::Prefill))
        .filter_map(|c| {
            Some(listing_prefill::Model {
                listing_id: listing,
                context_tokens: c.context_tokens,
                prompt_tok_s: c.prompt_tok_s.filter(|&r| r > 0.0)?,
            })
        })
        .collect();
    write_cells(conn, listing, cells, prefill).await?;
    Ok(true)
}
