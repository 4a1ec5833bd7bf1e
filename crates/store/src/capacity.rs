//! What holds a machine's GPUs, below the bookings and maintenance windows that decide on
//! it: the listing's lock every capacity decision takes first, the bookings that hold
//! capacity, and the windows that take the whole machine.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use uuid::Uuid;

use crate::StoreError;
use crate::entities::{bookings, listings, maintenance_windows};
use crate::status::booking_status;

/// `(listing_id, starts_at, ends_at, gpu_count)` of a booking that holds capacity.
pub type Holding = (Uuid, DateTime<Utc>, DateTime<Utc>, i32);

/// Takes a listing's write lock (an `UPDATE` of its row that changes nothing); `false` when
/// there is no such listing. Everything that decides the machine's capacity takes it first.
pub(crate) async fn lock_listing(
    conn: &impl ConnectionTrait,
    listing: Uuid,
) -> Result<bool, StoreError> {
    let locked = listings::Entity::update_many()
        .col_expr(
            listings::Column::UpdatedAt,
            Expr::col(listings::Column::UpdatedAt),
        )
        .filter(listings::Column::Id.eq(listing))
        .exec(conn)
        .await?;
    Ok(locked.rows_affected == 1)
}

/// Bookings that hold capacity at `now`: pending ones until their hold expires, confirmed
/// and active ones.
pub(crate) fn holds_capacity(now: DateTime<Utc>) -> Condition {
    Condition::any()
        .add(bookings::Column::Status.is_in([booking_status::CONFIRMED, booking_status::ACTIVE]))
        .add(
            Condition::all()
                .add(bookings::Column::Status.eq(booking_status::PENDING_PAYMENT))
                .add(bookings::Column::HoldExpiresAt.gt(now)),
        )
}

/// What holds the GPUs of `listings` over `[from, until)` at `now`: bookings that hold
/// capacity, and maintenance windows (every GPU of their machine).
pub(crate) async fn holding(
    conn: &impl ConnectionTrait,
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Vec<Holding>, StoreError> {
    let mut held = booked(conn, listings, from, until, now).await?;
    held.extend(windows_holding(conn, listings, from, until).await?);
    Ok(held)
}

/// Bookings of `listings` that hold capacity at `now` and overlap `[from, until)`.
pub(crate) async fn booked(
    conn: &impl ConnectionTrait,
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Vec<Holding>, StoreError> {
    Ok(bookings::Entity::find()
        .select_only()
        .column(bookings::Column::ListingId)
        .column(bookings::Column::StartsAt)
        .column(bookings::Column::EndsAt)
        .column(bookings::Column::GpuCount)
        .filter(bookings::Column::ListingId.is_in(listings.iter().copied()))
        .filter(bookings::Column::StartsAt.lt(until))
        .filter(bookings::Column::EndsAt.gt(from))
        .filter(holds_capacity(now))
        .into_tuple()
        .all(conn)
        .await?)
}

/// Windows of `listings` that overlap `[from, until)`: `(listing, from, until)`.
pub(crate) async fn windows_over(
    conn: &impl ConnectionTrait,
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<(Uuid, DateTime<Utc>, DateTime<Utc>)>, StoreError> {
    use maintenance_windows::Column as W;
    Ok(maintenance_windows::Entity::find()
        .select_only()
        .column(W::ListingId)
        .column(W::StartsAt)
        .column(W::EndsAt)
        .filter(W::ListingId.is_in(listings.iter().copied()))
        .filter(W::StartsAt.lt(until))
        .filter(W::EndsAt.gt(from))
        .into_tuple()
        .all(conn)
        .await?)
}

/// The windows of `listings` over `[from, until)` as holdings of every GPU of their machine.
pub(crate) async fn windows_holding(
    conn: &impl ConnectionTrait,
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<Holding>, StoreError> {
    let windows = windows_over(conn, listings, from, until).await?;
    if windows.is_empty() {
        return Ok(Vec::new());
    }
    let gpus: std::collections::HashMap<Uuid, i32> = listings::Entity::find()
        .select_only()
        .column(listings::Column::Id)
        .column(listings::Column::GpuCount)
        .filter(listings::Column::Id.is_in(windows.iter().map(|w| w.0)))
        .into_tuple::<(Uuid, i32)>()
        .all(conn)
        .await?
        .into_iter()
        .collect();
    Ok(windows
        .into_iter()
        .map(|(listing, s, e)| (listing, s, e, gpus.get(&listing).copied().unwrap_or(0)))
        .collect())
}
