//! The search projection: a listing's headline figures and, in `listing_cells`, the valid
//! decode cells of its latest compliant report, priced per million tokens — written in the
//! report's transaction and refreshed when the price changes, so search never joins reports.

use chrono::{DateTime, Utc};
use domain::listing::price_per_mtok;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, RelationDef,
};
use uuid::Uuid;

use crate::StoreError;
use crate::entities::{listing_cells, listings, report_cells};
use crate::listings::listing_status;

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
    let cells: Vec<(i64, i64, f64)> = listing_cells::Entity::find()
        .filter(listing_cells::Column::ListingId.eq(id))
        .all(conn)
        .await?
        .into_iter()
        .map(|c| (c.context_tokens, c.concurrency, c.total_tok_s))
        .collect();
    write_cells(conn, id, cells).await
}

/// Replaces the listing's rows of the search projection with `cells`
/// (`(context_tokens, concurrency, total_tok_s)`), pricing each and the headline.
async fn write_cells(
    conn: &impl ConnectionTrait,
    id: Uuid,
    cells: Vec<(i64, i64, f64)>,
) -> Result<(), StoreError> {
    let Some(listing) = listings::Entity::find_by_id(id).one(conn).await? else {
        return Ok(());
    };
    let ppm = |tok_s: f64| price_per_mtok(listing.price_amount, listing.gpu_count, tok_s);
    // Only active listings are searched, so only they have rows.
    let cells = if listing.status == listing_status::ACTIVE {
        cells
    } else {
        Vec::new()
    };
    listings::Entity::update_many()
        .col_expr(
            listings::Column::HeadlinePricePerMtok,
            Expr::value(listing.headline_total_tok_s.and_then(ppm)),
        )
        .filter(listings::Column::Id.eq(id))
        .exec(conn)
        .await?;
    listing_cells::Entity::delete_many()
        .filter(listing_cells::Column::ListingId.eq(id))
        .exec(conn)
        .await?;
    let rows: Vec<listing_cells::ActiveModel> = cells
        .into_iter()
        .filter_map(|(context_tokens, concurrency, tok_s)| {
            Some(listing_cells::ActiveModel {
                listing_id: Set(id),
                context_tokens: Set(context_tokens),
                concurrency: Set(concurrency),
                gpu_model: Set(listing.gpu_model.clone()),
                price_amount: Set(listing.price_amount),
                total_tok_s: Set(tok_s),
                price_per_mtok: Set(ppm(tok_s)?),
            })
        })
        .collect();
    if !rows.is_empty() {
        listing_cells::Entity::insert_many(rows)
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
    measured: &crate::MeasuredClaim,
    report: Uuid,
    at: DateTime<Utc>,
    (total_tok_s, per_request_tok_s): (Option<f64>, Option<f64>),
    badge: crate::Badge,
) -> Result<bool, StoreError> {
    let updated = listings::Entity::update_many()
        .col_expr(
            listings::Column::VerificationState,
            Expr::value(crate::badge_state::VERIFIED),
        )
        .col_expr(
            listings::Column::VerificationExpiresAt,
            Expr::value(badge.expires_at),
        )
        .col_expr(
            listings::Column::NextSpotCheckAt,
            Expr::value(badge.next_spot_check_at),
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
    crate::badges::record_check(
        conn,
        listing,
        crate::check_kind::VERIFIED,
        (Some(report), None),
        None,
        at,
    )
    .await?;
    let cells = report_cells::Entity::find()
        .filter(report_cells::Column::ReportId.eq(report))
        .filter(report_cells::Column::Phase.eq("decode"))
        .filter(report_cells::Column::Status.eq("valid"))
        .all(conn)
        .await?
        .into_iter()
        .filter_map(|c| Some((c.context_tokens, c.concurrency, c.total_tok_s?)))
        .collect();
    write_cells(conn, listing, cells).await?;
    Ok(true)
}
