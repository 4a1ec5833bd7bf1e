//! Maintenance windows: intervals a provider takes a machine out of service. Every capacity
//! decision treats a window as a booking of the whole machine — availability, search over an
//! interval and offers read them through [`crate::capacity::holding`]; the booking
//! transaction reads them under the listing's lock and refuses with its own reason. A window
//! is added under the same lock, so a window and a booking never both take one interval.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, Query, SimpleExpr};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::capacity::{holds_capacity, lock_listing, windows_over};
use crate::entities::{bookings, maintenance_windows};

type BookingRecord = bookings::Model;
use crate::{Db, StoreError};

pub type WindowRecord = maintenance_windows::Model;

/// Why a window was not added.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("no such listing")]
    NoListing,
    /// Bookings hold the machine over the window, and cancelling them was not asked for.
    #[error("bookings overlap the window")]
    Overlaps(Vec<Uuid>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for WindowError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

/// What deleting a window did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowDeleted {
    Deleted,
    /// It cancelled bookings: it stands, so its interval cannot be let again.
    CancelledBookings,
    /// It has begun: what it says of the machine's uptime stands.
    Begun,
    NotFound,
}

/// Whether a `bookings` row is one a maintenance window cancels: the window cancels what it
/// overlaps, overlaps the booking, and was announced after the booking was made. Until such a
/// booking is cancelled (with a full refund), the sweep finds it again
/// ([`Db::bookings_in_maintenance`]), and it is not completed at its end.
pub(crate) fn owed_to_maintenance() -> SimpleExpr {
    use maintenance_windows::Column as W;
    let window = |column: W| Expr::col((maintenance_windows::Entity, column));
    let booking = |column: bookings::Column| Expr::col((bookings::Entity, column));
    Expr::exists(
        Query::select()
            .expr(Expr::val(1))
            .from(maintenance_windows::Entity)
            .and_where(window(W::ListingId).eq(booking(bookings::Column::ListingId)))
            .and_where(window(W::CancelledBookings).gt(0))
            .and_where(window(W::StartsAt).lt(booking(bookings::Column::EndsAt)))
            .and_where(window(W::EndsAt).gt(booking(bookings::Column::StartsAt)))
            .and_where(window(W::CreatedAt).gt(booking(bookings::Column::CreatedAt)))
            .to_owned(),
    )
}

impl Db {
    /// Adds `window` under its listing's lock. Bookings that hold the machine over it refuse
    /// it ([`WindowError::Overlaps`]) unless `window.cancel_overlapping`: then it is added
    /// with their count, and they are returned, to be cancelled with a full refund (until
    /// they are, [`Db::bookings_in_maintenance`] finds them).
    pub async fn add_maintenance_window(
        &self,
        mut window: WindowRecord,
        now: DateTime<Utc>,
    ) -> Result<(WindowRecord, Vec<BookingRecord>), WindowError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        if !lock_listing(&txn, window.listing_id).await? {
            return Err(WindowError::NoListing);
        }
        let overlapping = bookings::Entity::find()
            .filter(bookings::Column::ListingId.eq(window.listing_id))
            .filter(bookings::Column::StartsAt.lt(window.ends_at))
            .filter(bookings::Column::EndsAt.gt(window.starts_at))
            .filter(holds_capacity(now))
            .order_by_asc(bookings::Column::Id)
            .all(&txn)
            .await?;
        if !overlapping.is_empty() && !window.cancel_overlapping {
            return Err(WindowError::Overlaps(
                overlapping.iter().map(|b| b.id).collect(),
            ));
        }
        window.cancelled_bookings = overlapping.len() as i64;
        use sea_orm::ActiveModelTrait;
        maintenance_windows::Entity::insert(
            maintenance_windows::ActiveModel::from(window.clone()).reset_all(),
        )
        .exec_without_returning(&txn)
        .await?;
        // The reason stays out: it is for the organisation's members.
        crate::webhooks::emit_listing(
            &txn,
            domain::webhook::EventKind::ListingMaintenance,
            window.listing_id,
            serde_json::json!({
                "window_id": window.id,
                "from": window.starts_at,
                "until": window.ends_at,
                "cancelled_bookings": window.cancelled_bookings,
            }),
            now,
        )
        .await?;
        txn.commit().await?;
        Ok((window, overlapping))
    }

    /// Which of `listings` are inside a maintenance window at `at`.
    pub async fn in_maintenance(
        &self,
        listings: &[Uuid],
        at: DateTime<Utc>,
    ) -> Result<Vec<Uuid>, StoreError> {
        let at_end = at + chrono::Duration::milliseconds(1);
        Ok(windows_over(self.conn(), listings, at, at_end)
            .await?
            .into_iter()
            .map(|(listing, _, _)| listing)
            .collect())
    }

    /// A listing's windows that end after `after`, soonest first.
    pub async fn maintenance_windows(
        &self,
        listing: Uuid,
        after: DateTime<Utc>,
    ) -> Result<Vec<WindowRecord>, StoreError> {
        use maintenance_windows::Column as W;
        Ok(maintenance_windows::Entity::find()
            .filter(W::ListingId.eq(listing))
            .filter(W::EndsAt.gt(after))
            .order_by_asc(W::StartsAt)
            .order_by_asc(W::Id)
            .all(self.conn())
            .await?)
    }

    /// Deletes a window that cancelled no booking and has not begun at `now`.
    pub async fn delete_maintenance_window(
        &self,
        listing: Uuid,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<WindowDeleted, StoreError> {
        let _search = self.search_touch();
        use maintenance_windows::Column as W;
        let deleted = maintenance_windows::Entity::delete_many()
            .filter(W::Id.eq(id))
            .filter(W::ListingId.eq(listing))
            .filter(W::CancelledBookings.eq(0))
            .filter(W::StartsAt.gt(now))
            .exec(self.conn())
            .await?;
        if deleted.rows_affected == 1 {
            return Ok(WindowDeleted::Deleted);
        }
        let found = maintenance_windows::Entity::find_by_id(id)
            .filter(W::ListingId.eq(listing))
            .one(self.conn())
            .await?;
        Ok(match found {
            None => WindowDeleted::NotFound,
            Some(w) if w.cancelled_bookings > 0 => WindowDeleted::CancelledBookings,
            Some(_) => WindowDeleted::Begun,
        })
    }

    /// Bookings a window that cancels what it overlaps has not cancelled yet (their first
    /// cancellation failed): made before the window, overlapping it, and still able to be
    /// cancelled — whether or not the window or the booking has ended since (the refund is
    /// owed all the same). Nothing else can overlap a window: each is refused under the
    /// listing's lock while the other stands.
    pub async fn bookings_in_maintenance(&self) -> Result<Vec<BookingRecord>, StoreError> {
        Ok(bookings::Entity::find()
            .filter(owed_to_maintenance())
            .filter(crate::status::may_become(
                bookings::Column::Status,
                domain::BookingStatus::Cancelled,
            ))
            .order_by_asc(bookings::Column::Id)
            .all(self.conn())
            .await?)
    }
}
