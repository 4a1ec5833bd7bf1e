//! What holds a machine's GPUs, below the bookings and maintenance windows that decide on
//! it: the listing's lock every capacity decision takes first, the bookings that hold
//! capacity, the windows that take the whole machine, and a booking's cancellation, which
//! gives its GPUs back (a renter's, or the payment provider's refund).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, Query, UnionType};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, QueryTrait,
    Select,
};
use uuid::Uuid;

use crate::StoreError;
use crate::entities::{bookings, listings, maintenance_windows};
use crate::outbox::{booking_facts, booking_money, emit};
use crate::status::move_to;
use domain::booking::{Holding, Tier};
use domain::webhook::{BookingCancelled, Event};
use domain::{BookingStatus, GpuHold};

/// What holds a listing's GPUs: the listing's id and the holding.
pub type ListingHolding = (Uuid, Holding);

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

/// Takes the write lock of `booking`'s listing (see [`lock_listing`]), for a change of the
/// booking that a capacity decision must not run on either side of; nothing for no booking.
pub(crate) async fn lock_listing_of(
    conn: &impl ConnectionTrait,
    booking: Uuid,
) -> Result<(), StoreError> {
    let listing: Option<Uuid> = bookings::Entity::find_by_id(booking)
        .select_only()
        .column(bookings::Column::ListingId)
        .into_tuple()
        .one(conn)
        .await?;
    if let Some(listing) = listing {
        lock_listing(conn, listing).await?;
    }
    Ok(())
}

/// The stored names of the booking statuses that hold GPUs as `hold` says.
pub(crate) fn statuses_holding(hold: GpuHold) -> Vec<&'static str> {
    BookingStatus::ALL
        .iter()
        .filter(|s| s.gpu_hold() == hold)
        .map(|s| s.as_str())
        .collect()
}

/// Bookings that hold capacity at `now`, as `domain::booking::holds_gpus` decides: confirmed
/// and active ones, pending ones until their hold expires.
pub(crate) fn holds_capacity(now: DateTime<Utc>) -> Condition {
    Condition::any()
        .add(bookings::Column::Status.is_in(statuses_holding(GpuHold::Always)))
        .add(
            Condition::all()
                .add(bookings::Column::Status.is_in(statuses_holding(GpuHold::UntilHoldExpires)))
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
) -> Result<Vec<ListingHolding>, StoreError> {
    use maintenance_windows::Column as W;
    let (w, l) = (maintenance_windows::Entity, listings::Entity);
    let mut windows = Query::select();
    windows
        .columns([
            (w, W::Id),
            (w, W::ListingId),
            (w, W::StartsAt),
            (w, W::EndsAt),
        ])
        .column((l, listings::Column::GpuCount))
        .expr(Expr::val(domain::booking::Tier::OnDemand.as_str()))
        .expr(Expr::val(Option::<i64>::None))
        .from(w)
        .inner_join(
            l,
            Expr::col((l, listings::Column::Id)).equals((w, W::ListingId)),
        )
        .and_where(Expr::col((w, W::ListingId)).is_in(listings.iter().copied()))
        .and_where(Expr::col((w, W::StartsAt)).lt(until))
        .and_where(Expr::col((w, W::EndsAt)).gt(from));
    // Which of the union's rows is a window: a literal column, the same on both backends.
    windows.expr(Expr::val(1i32));
    let mut booked = booked_select(listings, from, until, now)
        .expr(Expr::val(0i32))
        .into_query();
    booked.union(UnionType::All, windows);
    let rows = conn.query_all(&booked).await?;
    rows.iter()
        .map(|row| {
            let id: Uuid = row.try_get_by_index(0)?;
            let listing: Uuid = row.try_get_by_index(1)?;
            let span = (row.try_get_by_index(2)?, row.try_get_by_index(3)?);
            let gpus: i32 = row.try_get_by_index(4)?;
            let tier: String = row.try_get_by_index(5)?;
            let bid: Option<i64> = row.try_get_by_index(6)?;
            let window: i32 = row.try_get_by_index(7)?;
            Ok((
                listing,
                if window == 1 {
                    Holding::window(id, span, gpus)
                } else {
                    Holding::booking(id.into(), span, gpus).at(Tier::of(&tier, bid))
                },
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
) -> Result<Vec<ListingHolding>, StoreError> {
    let rows: Vec<BookedRow> = booked_select(listings, from, until, now)
        .into_tuple()
        .all(conn)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(id, listing, starts, ends, gpus, tier, bid)| {
            let holding = Holding::booking(id.into(), (starts, ends), gpus);
            (listing, holding.at(Tier::of(&tier, bid)))
        })
        .collect())
}

/// `(id, listing_id, starts_at, ends_at, gpu_count, tier, bid_per_gpu_hour)` of a booking
/// [`booked`] finds.
type BookedRow = (
    Uuid,
    Uuid,
    DateTime<Utc>,
    DateTime<Utc>,
    i32,
    String,
    Option<i64>,
);

/// The [`BookedRow`] columns of the bookings [`booked`] finds.
fn booked_select(
    listings: &[Uuid],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Select<bookings::Entity> {
    bookings::Entity::find()
        .select_only()
        .column(bookings::Column::Id)
        .column(bookings::Column::ListingId)
        .column(bookings::Column::StartsAt)
        .column(bookings::Column::EndsAt)
        .column(bookings::Column::GpuCount)
        // A booking whose cancellation is under way gives way to nothing: its refund is fixed,
        // and a displacement would refund it a second time.
        .expr(
            Expr::case(
                bookings::Column::CancelRequestedAt.is_not_null(),
                Tier::OnDemand.as_str(),
            )
            .finally(Expr::col(bookings::Column::Tier)),
        )
        .column(bookings::Column::BidPerGpuHour)
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

/// Cancels a booking that still holds capacity, recording the refund due; `false` when it
/// no longer could be cancelled.
pub(crate) async fn cancel(
    conn: &impl ConnectionTrait,
    id: Uuid,
    refund: i64,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let result = move_to(
        bookings::Entity::update_many(),
        bookings::Column::Status,
        BookingStatus::Cancelled,
    )
    .col_expr(bookings::Column::CancelledAt, Expr::value(now))
    .col_expr(bookings::Column::RefundAmount, Expr::value(refund))
    .filter(bookings::Column::Id.eq(id))
    .exec(conn)
    .await?;
    if result.rows_affected != 1 {
        return Ok(false);
    }
    if let Some(booking) = bookings::Entity::find_by_id(id).one(conn).await? {
        let event = Event::BookingCancelled(BookingCancelled {
            booking: booking_facts(&booking)?,
            refund: booking_money(&booking, refund)?,
        });
        emit(conn, &event, now).await?;
    }
    Ok(true)
}
