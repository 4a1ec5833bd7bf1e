//! What holds a machine's GPUs, below the bookings and maintenance windows that decide on
//! it: the listing's lock every capacity decision takes first, the bookings that hold
//! capacity, and the windows that take the whole machine.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, Query, UnionType};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, QueryTrait,
    Select,
};
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
/// capacity, and maintenance windows (every GPU of their machine) — in one round trip.
pub(crate) async fn holding(
    conn: &impl ConnectionTrait,
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Vec<Holding>, StoreError> {
    use maintenance_windows::Column as W;
    let (w, l) = (maintenance_windows::Entity, listings::Entity);
    let mut windows = Query::select();
    windows
        .columns([(w, W::ListingId), (w, W::StartsAt), (w, W::EndsAt)])
        .column((l, listings::Column::GpuCount))
        .from(w)
        .inner_join(
            l,
            Expr::col((l, listings::Column::Id)).equals((w, W::ListingId)),
        )
        .and_where(Expr::col((w, W::ListingId)).is_in(listings.iter().copied()))
        .and_where(Expr::col((w, W::StartsAt)).lt(until))
        .and_where(Expr::col((w, W::EndsAt)).gt(from));
    let mut booked = booked_select(listings, from, until, now).into_query();
    booked.union(UnionType::All, windows);
    let rows = conn.query_all(&booked).await?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get_by_index(0)?,
                row.try_get_by_index(1)?,
                row.try_get_by_index(2)?,
                row.try_get_by_index(3)?,
            ))
        })
        .collect()
}

/// Bookings of `listings` that hold capacity at `now` and overlap `[from, until)`.
pub(crate) async fn booked(
    conn: &impl ConnectionTrait,
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Vec<Holding>, StoreError> {
    Ok(booked_select(listings, from, until, now)
        .into_tuple()
        .all(conn)
        .await?)
}

/// The [`Holding`] columns of the bookings [`booked`] finds.
fn booked_select(
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Select<bookings::Entity> {
    bookings::Entity::find()
        .select_only()
        .column(bookings::Column::ListingId)
        .column(bookings::Column::StartsAt)
        .column(bookings::Column::EndsAt)
        .column(bookings::Column::GpuCount)
        .filter(bookings::Column::ListingId.is_in(listings.iter().copied()))
        .filter(bookings::Column::StartsAt.lt(until))
        .filter(bookings::Column::EndsAt.gt(from))
        .filter(holds_capacity(now))
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
