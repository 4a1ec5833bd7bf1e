//! Maintenance windows: intervals a provider takes a machine out of service. Every capacity
//! decision treats a window as a booking of the whole machine — availability, search over an
//! interval and offers read them through [`crate::capacity::holding`]; the booking
//! transaction reads them under the listing's lock and refuses with its own reason. A window
//! is added under the same lock, so a window and a booking never both take one interval.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, Query, SimpleExpr};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::capacity::{holds_capacity, lock_listing, windows_over};
use crate::entities::{booking_interruptions, bookings, ledger_entries, maintenance_windows};
use crate::money::ledger::{NewLedgerEntry, insert_ledger};

type BookingRecord = bookings::Model;
use crate::{Db, StoreError, WindowRecord};
use domain::webhook::{Event, MaintenanceAnnounced};

/// The part of a booking a window took, and what that gives back.
pub type InterruptionRecord = booking_interruptions::Model;

/// A booking a window interrupted, with what it is given back.
#[derive(Debug, Clone)]
pub struct Interrupted {
    pub booking: BookingRecord,
    pub interruption: InterruptionRecord,
}

/// A listing's windows that interrupted bookings over a stretch of time: a public figure.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct InterruptionFigures {
    /// Windows that interrupted at least one booking.
    pub windows: u64,
    /// Bookings interrupted.
    pub bookings: u64,
    /// GPU-hours of bookings the windows took.
    pub gpu_hours: f64,
}

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
    /// It interrupted (or, announced before interruptions existed, cancelled) bookings: it
    /// stands, so what it gave back stands too.
    TookBookings,
    /// It has begun: what it says of the machine's uptime stands.
    Begun,
    NotFound,
}

/// The ids of bookings a charge is recorded for (paid through the payment provider).
pub(crate) fn charged_bookings() -> sea_orm::sea_query::SelectStatement {
    Query::select()
        .column(ledger_entries::Column::BookingId)
        .from(ledger_entries::Entity)
        .and_where(Expr::col(ledger_entries::Column::Kind).eq(domain::LedgerKind::Charge.as_str()))
        .to_owned()
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
    /// with their count, each keeps its interval and is interrupted over the window — an
    /// [`InterruptionRecord`] with the share of its price the window takes (no earlier
    /// window's time twice), owed until [`Db::interruption_refunded`] records it given back.
    pub async fn add_maintenance_window(
        &self,
        mut window: WindowRecord,
        now: DateTime<Utc>,
        audit: Option<&crate::Audit>,
    ) -> Result<(WindowRecord, Vec<Interrupted>), WindowError> {
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
        let earlier = booking_interruptions::Entity::find()
            .filter(
                booking_interruptions::Column::BookingId.is_in(overlapping.iter().map(|b| b.id)),
            )
            .all(&txn)
            .await?;
        let mut interrupted = Vec::with_capacity(overlapping.len());
        for booking in overlapping {
            let taken: Vec<_> = earlier
                .iter()
                .filter(|i| i.booking_id == booking.id)
                .map(|i| (i.starts_at, i.ends_at))
                .collect();
            let Some(interruption) = interruption_of(&booking, &window, &taken, now)? else {
                continue;
            };
            interrupted.push(Interrupted {
                booking,
                interruption,
            });
        }
        window.cancelled_bookings = 0;
        window.interrupted_bookings = interrupted.len() as i64;
        use sea_orm::ActiveModelTrait;
        maintenance_windows::Entity::insert(
            maintenance_windows::ActiveModel::from(window.clone()).reset_all(),
        )
        .exec_without_returning(&txn)
        .await?;
        if !interrupted.is_empty() {
            booking_interruptions::Entity::insert_many(interrupted.iter().map(|i| {
                booking_interruptions::ActiveModel::from(i.interruption.clone()).reset_all()
            }))
            .exec_without_returning(&txn)
            .await?;
        }
        // The reason stays out: it is for the organisation's members.
        let event = Event::ListingMaintenance(MaintenanceAnnounced {
            listing_id: window.listing_id,
            window_id: window.id,
            from: window.starts_at,
            until: window.ends_at,
            interrupted_bookings: window.interrupted_bookings,
            cancelled_bookings: window.cancelled_bookings,
        });
        crate::outbox::emit(&txn, &event, now).await?;
        if let Some(audit) = audit {
            let details = serde_json::json!({
                "listing_id": window.listing_id,
                "starts_at": window.starts_at,
                "ends_at": window.ends_at,
                "interrupted_bookings": window.interrupted_bookings,
            });
            crate::identity::audit::record(&txn, Some(&audit.on(window.id, details))).await?;
        }
        txn.commit().await?;
        Ok((window, interrupted))
    }

    /// What windows took of `booking`, oldest first.
    pub async fn interruptions_of(
        &self,
        booking: Uuid,
    ) -> Result<Vec<InterruptionRecord>, StoreError> {
        use booking_interruptions::Column as I;
        Ok(booking_interruptions::Entity::find()
            .filter(I::BookingId.eq(booking))
            .order_by_asc(I::StartsAt)
            .order_by_asc(I::Id)
            .all(self.conn())
            .await?)
    }

    /// What windows took of `booking`'s price, owed or given back: minor units.
    pub async fn taken_by_windows(&self, booking: Uuid) -> Result<i64, StoreError> {
        Ok(self
            .interruptions_of(booking)
            .await?
            .iter()
            .map(|i| i.refund_amount)
            .sum())
    }

    /// Interruptions still owed to bookings that were paid (with the payment provider, a
    /// charge is recorded; without one, nothing was ever awaited), oldest first, at most
    /// `limit`. One of a booking never paid (its hold expired, or cancelled while waiting)
    /// is never owed: nothing was taken.
    pub async fn owed_interruptions(&self, limit: u64) -> Result<Vec<Interrupted>, StoreError> {
        use booking_interruptions::Column as I;
        let charged = charged_bookings();
        let paid = Query::select()
            .column(bookings::Column::Id)
            .from(bookings::Entity)
            .cond_where(
                sea_orm::Condition::any()
                    .add(Expr::col(bookings::Column::PaymentProvider).is_null())
                    .add(Expr::col(bookings::Column::Id).in_subquery(charged)),
            )
            .to_owned();
        let owed = booking_interruptions::Entity::find()
            .filter(I::RefundedAt.is_null())
            .filter(I::BookingId.in_subquery(paid))
            .order_by_asc(I::CreatedAt)
            .order_by_asc(I::Id)
            .limit(limit)
            .all(self.conn())
            .await?;
        let booked = bookings::Entity::find()
            .filter(bookings::Column::Id.is_in(owed.iter().map(|i| i.booking_id)))
            .all(self.conn())
            .await?;
        Ok(owed
            .into_iter()
            .filter_map(|interruption| {
                let booking = booked.iter().find(|b| b.id == interruption.booking_id)?;
                Some(Interrupted {
                    booking: booking.clone(),
                    interruption,
                })
            })
            .collect())
    }

    /// Records an interruption given back — by `refund_id` with the payment provider, with
    /// its ledger rows — once: `false` when it already was.
    pub async fn interruption_refunded(
        &self,
        id: Uuid,
        refund_id: Option<&str>,
        ledger: &[NewLedgerEntry],
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        use booking_interruptions::Column as I;
        let txn = self.write().await?;
        let marked = booking_interruptions::Entity::update_many()
            .col_expr(I::RefundedAt, Expr::value(now))
            .col_expr(I::RefundId, Expr::value(refund_id.map(str::to_owned)))
            .filter(I::Id.eq(id))
            .filter(I::RefundedAt.is_null())
            .exec(&txn)
            .await?;
        if marked.rows_affected != 1 {
            return Ok(false);
        }
        insert_ledger(&txn, ledger, now).await?;
        txn.commit().await?;
        Ok(true)
    }

    /// What windows of `listing` announced in `[from, until)` took of bookings (whether or
    /// not they have begun: announcing one is what interrupts).
    pub async fn interruption_figures(
        &self,
        listing: Uuid,
        from: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<InterruptionFigures, StoreError> {
        use booking_interruptions::Column as I;
        let rows = booking_interruptions::Entity::find()
            .filter(I::ListingId.eq(listing))
            .filter(I::CreatedAt.gte(from))
            .filter(I::CreatedAt.lt(until))
            .all(self.conn())
            .await?;
        let mut windows: Vec<Uuid> = rows.iter().map(|r| r.window_id).collect();
        windows.sort_unstable();
        windows.dedup();
        let gpu_seconds = rows.iter().fold(0.0, |sum, r| {
            sum + f64::from(r.gpu_count) * (r.ends_at - r.starts_at).num_seconds() as f64
        });
        Ok(InterruptionFigures {
            windows: windows.len() as u64,
            bookings: rows.len() as u64,
            gpu_hours: gpu_seconds / 3600.0,
        })
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
        audit: Option<&crate::Audit>,
    ) -> Result<WindowDeleted, StoreError> {
        let _search = self.search_touch();
        use maintenance_windows::Column as W;
        let txn = self.write().await?;
        let deleted = maintenance_windows::Entity::delete_many()
            .filter(W::Id.eq(id))
            .filter(W::ListingId.eq(listing))
            .filter(W::CancelledBookings.eq(0))
            .filter(W::InterruptedBookings.eq(0))
            .filter(W::StartsAt.gt(now))
            .exec(&txn)
            .await?;
        if deleted.rows_affected == 1 {
            crate::identity::audit::record(&txn, audit).await?;
            txn.commit().await?;
            return Ok(WindowDeleted::Deleted);
        }
        txn.commit().await?;
        let found = maintenance_windows::Entity::find_by_id(id)
            .filter(W::ListingId.eq(listing))
            .one(self.conn())
            .await?;
        Ok(match found {
            None => WindowDeleted::NotFound,
            Some(w) if w.cancelled_bookings > 0 || w.interrupted_bookings > 0 => {
                WindowDeleted::TookBookings
            }
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

/// What `window` takes of `booking`, whose earlier windows took `taken`: `None` when nothing.
fn interruption_of(
    booking: &BookingRecord,
    window: &WindowRecord,
    taken: &[(DateTime<Utc>, DateTime<Utc>)],
    now: DateTime<Utc>,
) -> Result<Option<InterruptionRecord>, StoreError> {
    let corrupt =
        |e: &dyn std::fmt::Display| StoreError::Corrupt(format!("booking {}: {e}", booking.id));
    let currency: domain::Currency = booking
        .currency
        .parse()
        .map_err(|_| corrupt(&format!("unknown currency {:?}", booking.currency)))?;
    let paid = domain::Money::new(booking.price_amount, currency);
    // Checked as of its start: a stored booking may have begun. Its share is of the interval
    // it was booked (and paid) for; a displaced one's notice ends its access at `ends_at`, and
    // its displacement gave back the rest.
    let booked_until = booking.booked_ends_at.unwrap_or(booking.ends_at);
    let interval =
        domain::booking::Interval::new(booking.starts_at, booked_until, booking.starts_at)
            .map_err(|e| corrupt(&e))?;
    let window_span = (window.starts_at, Ord::min(window.ends_at, booking.ends_at));
    Ok(
        domain::booking::interruption(paid, &interval, window_span, taken).map(|i| {
            InterruptionRecord {
                id: Uuid::now_v7(),
                booking_id: booking.id,
                window_id: window.id,
                listing_id: booking.listing_id,
                starts_at: i.from,
                ends_at: i.until,
                seconds: i.seconds,
                gpu_count: booking.gpu_count,
                refund_amount: i.refund.minor(),
                refunded_at: None,
                refund_id: None,
                created_at: now,
            }
        }),
    )
}
