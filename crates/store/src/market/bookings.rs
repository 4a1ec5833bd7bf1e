//! Bookings, and the one place capacity is enforced: inside a transaction that first takes
//! the listing's write lock (an `UPDATE` of its row — a row lock on PostgreSQL, the database
//! write lock on SQLite), so racing bookings of one machine are decided one after another.

use crate::market::interruptible::DisplacedBooking;
use chrono::{DateTime, Utc};
use domain::booking::interruptible::Displaced;
use domain::booking::{Machine, Refusal, RenterOpen};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::capacity::{
    ListingHolding, booked, holding, holds_capacity, lock_listing, windows_over,
};
use crate::entities::{booking_guarantees, bookings, listings, users};
use crate::outbox::{booking_facts, emit};
use crate::status::{booking_status, may_become, move_to};
use crate::{BookingRecord, Db, StoreError, conflict_as};
use domain::BookingStatus;
use domain::webhook::Event;

/// What a cancel may do, as [`Db::claim_cancellation`] found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelClaim {
    /// This caller carries the cancellation out, refunding the recorded amount; `resumed`
    /// when an earlier attempt may already have reached the payment provider.
    Claimed { refund: i64, resumed: bool },
    /// Another caller is carrying it out right now.
    InProgress,
    /// The booking is no longer cancellable (cancelled, expired, completed) or gone.
    Finished,
    /// Its price changed (a bid raise was paid) since the refund was worked out: nothing
    /// recorded; work it out again.
    Repriced,
}

/// Takes the renter's lock and reads their bookings that hold capacity and have not ended:
/// what their quota is judged on. The renter is locked before any listing (always in this
/// order): the renter's lock serialises their bookings on every machine, so racing requests
/// cannot pass their quota together. A plan's bookings count as one (their GPUs summed over
/// their shared interval): a plan is one booking against the quota, its GPU-hours in full;
/// but each of its bookings awaiting payment counts as one awaiting payment.
pub(crate) async fn lock_renter(
    conn: &impl ConnectionTrait,
    renter: Uuid,
    now: DateTime<Utc>,
) -> Result<RenterOpen, StoreError> {
    let locked = users::Entity::update_many()
        .col_expr(users::Column::Email, Expr::col(users::Column::Email))
        .filter(users::Column::Id.eq(renter))
        .filter(users::Column::DeletedAt.is_null())
        .exec(conn)
        .await?;
    if locked.rows_affected == 0 {
        // Erased while this request waited (or never there): it books nothing.
        return Err(StoreError::AccountErased);
    }
    // (starts_at, ends_at, GPUs, plan, status, hold's expiry)
    type Open = (
        DateTime<Utc>,
        DateTime<Utc>,
        i32,
        Option<Uuid>,
        String,
        Option<DateTime<Utc>>,
    );
    let rows: Vec<Open> = bookings::Entity::find()
        .select_only()
        .column(bookings::Column::StartsAt)
        .column(bookings::Column::EndsAt)
        .column(bookings::Column::GpuCount)
        .column(bookings::Column::PlanId)
        .column(bookings::Column::Status)
        .column(bookings::Column::HoldExpiresAt)
        .filter(bookings::Column::RenterId.eq(renter))
        .filter(bookings::Column::EndsAt.gt(now))
        .filter(holds_capacity(now))
        .into_tuple()
        .all(conn)
        .await?;
    let mut open = RenterOpen {
        budget: crate::money::budgets::month_budget(conn, renter, now).await?,
        ..RenterOpen::default()
    };
    let mut plans: std::collections::HashMap<Uuid, usize> = Default::default();
    for (starts, ends, gpus, plan, status, hold) in rows {
        if status == booking_status::PENDING_PAYMENT {
            open.unpaid.extend(hold);
        }
        match plan.and_then(|p| plans.get(&p).copied()) {
            Some(at) => {
                let (s, e, g) = &mut open.bookings[at];
                (*s, *e, *g) = ((*s).min(starts), (*e).max(ends), *g + gpus);
            }
            None => {
                if let Some(plan) = plan {
                    plans.insert(plan, open.bookings.len());
                }
                open.bookings.push((starts, ends, gpus));
            }
        }
    }
    Ok(open)
}

/// Takes a listing's write lock and reads it with what decides a booking of it over
/// `[from, until)`: its status, window, GPUs and the bookings holding them.
pub(crate) async fn lock_machine(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    (from, until): (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
    renter_open: RenterOpen,
) -> Result<(listings::Model, Machine), BookingError> {
    if !lock_listing(conn, listing).await? {
        return Err(BookingError::NoListing);
    }
    let record = listings::Entity::find_by_id(listing)
        .one(conn)
        .await?
        .ok_or(BookingError::NoListing)?;
    let holding = booked(conn, &[listing], from, until, now)
        .await?
        .into_iter()
        .map(|(_, h)| h)
        .collect();
    let maintenance = windows_over(conn, &[listing], from, until)
        .await?
        .into_iter()
        .map(|(_, s, e)| (s, e))
        .collect();
    let machine = Machine {
        status: *record.status,
        window: (record.available_from, record.available_until),
        capacity: record.gpu_count,
        holding,
        renter_open,
        maintenance,
        price_per_gpu_hour: domain::Currency::parse("currency", &record.currency)
            .ok()
            .map(|currency| domain::Money::new(record.price_amount, currency)),
        min_bid_per_gpu_hour: domain::Currency::parse("currency", &record.currency)
            .ok()
            .zip(record.min_bid_per_gpu_hour)
            .map(|(currency, min)| domain::Money::new(min, currency)),
    };
    Ok((record, machine))
}

/// Inserts a booking its rules admitted, with the guarantee its listing gives now.
pub(crate) async fn insert_booking(
    conn: &impl ConnectionTrait,
    booking: BookingRecord,
    listing: &listings::Model,
) -> Result<(), BookingError> {
    // Direct access as the booking gets it: asked for, and given by the listing now (a listing
    // that gains SSH later gives none to bookings made before; the access answer follows
    // this flag).
    let mut booking = booking;
    booking.direct_access =
        crate::money::guarantees::reaches_directly(listing, booking.direct_access);
    // The listing's guarantee as it stands now is the booking's for good (or why it has none).
    let guarantee = crate::money::guarantees::guarantee_for(
        (booking.id, booking.direct_access, &booking.tier),
        listing,
    );
    booking.no_guarantee_reason = guarantee.as_ref().err().map(|why| (*why).to_owned());
    let confirmed = (booking.status == BookingStatus::Confirmed).then(|| booking.clone());
    use sea_orm::ActiveModelTrait;
    // Every column written, as given; what only a cancellation sets starts empty.
    let mut model = bookings::ActiveModel::from(booking).reset_all();
    model.cancelled_at = Set(None);
    model.refund_amount = Set(None);
    model.cancel_requested_at = Set(None);
    model.cancel_claimed_until = Set(None);
    bookings::Entity::insert(model)
        .exec_without_returning(conn)
        .await
        .map_err(|e| match conflict_as("idempotency key")(e) {
            StoreError::Conflict(_) => BookingError::KeyUsed,
            other => BookingError::Store(other),
        })?;
    if let Ok(guarantee) = guarantee {
        booking_guarantees::Entity::insert(guarantee)
            .exec_without_returning(conn)
            .await?;
    }
    if let Some(booking) = confirmed {
        let at = booking.created_at;
        emit(conn, &Event::BookingConfirmed(booking_facts(&booking)?), at).await?;
    }
    Ok(())
}

/// Why a booking was not made.
#[derive(Debug, thiserror::Error)]
pub enum BookingError {
    #[error("no such listing")]
    NoListing,
    /// The booking rules (`domain::booking::admit`) refused it.
    #[error(transparent)]
    Refused(#[from] domain::booking::Refusal),
    /// The renter already used this idempotency key (a racing retry): here is that booking.
    #[error("idempotency key already used")]
    KeyUsed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for BookingError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

impl Db {
    /// Inserts `booking` when, with it, the listing's GPUs are never over-committed at any
    /// instant: `rules` decide from the machine as read under its lock, and name the
    /// interruptible bookings it displaces (moved out of the way in the same transaction).
    /// Answers the booking made and the ids of those it displaced.
    pub async fn book(
        &self,
        booking: BookingRecord,
        now: DateTime<Utc>,
        rules: impl FnOnce(&Machine) -> Result<Vec<Displaced>, Refusal>,
    ) -> Result<(BookingRecord, Vec<DisplacedBooking>), BookingError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let renter_open = lock_renter(&txn, booking.renter_id, now).await?;
        let (listing, machine) = lock_machine(
            &txn,
            booking.listing_id,
            (booking.starts_at, booking.ends_at),
            now,
            renter_open,
        )
        .await?;
        let displaced = rules(&machine)?;
        let displaced = crate::market::interruptible::displace(&txn, &displaced, now).await?;
        let (id, renter, cost) = (booking.id, booking.renter_id, booking.price_amount);
        insert_booking(&txn, booking, &listing).await?;
        crate::money::budgets::alert_spending(
            &txn,
            renter,
            machine.renter_open.budget.as_ref(),
            cost,
            now,
        )
        .await?;
        txn.commit().await?;
        let booking = self.booking_by_id(id).await?.ok_or_else(|| {
            BookingError::Store(StoreError::Corrupt(format!("booking {id} vanished")))
        })?;
        Ok((booking, displaced))
    }

    pub async fn booking_by_id(&self, id: Uuid) -> Result<Option<BookingRecord>, StoreError> {
        Ok(bookings::Entity::find_by_id(id).one(self.conn()).await?)
    }

    /// The listing a booking is for, in one query of its own (so that it can be read at the
    /// same time as the booking).
    pub async fn listing_of_booking(
        &self,
        booking: Uuid,
    ) -> Result<Option<crate::ListingRecord>, StoreError> {
        Ok(listings::Entity::find()
            .filter(
                listings::Column::Id.in_subquery(
                    Query::select()
                        .column(bookings::Column::ListingId)
                        .from(bookings::Entity)
                        .and_where(bookings::Column::Id.eq(booking))
                        .to_owned(),
                ),
            )
            .one(self.conn())
            .await?)
    }

    pub async fn booking_by_key(
        &self,
        renter: Uuid,
        key: &str,
    ) -> Result<Option<BookingRecord>, StoreError> {
        Ok(bookings::Entity::find()
            .filter(bookings::Column::RenterId.eq(renter))
            .filter(bookings::Column::IdempotencyKey.eq(key))
            .one(self.conn())
            .await?)
    }

    /// Records a cancellation before any money moves, or finds the one recorded: the first
    /// call fixes `refund` (worked out on the price `priced_at`, which must still be the
    /// booking's); every call gets the recorded refund back, and the right to carry
    /// the cancellation out (talk to the payment provider) when nobody holds it — for
    /// `claim_for`, or until [`Db::release_cancellation`]. Concurrent and retried cancels so
    /// share one amount and one provider request at a time.
    pub async fn claim_cancellation(
        &self,
        id: Uuid,
        (refund, priced_at): (i64, i64),
        now: DateTime<Utc>,
        claim_for: chrono::Duration,
    ) -> Result<CancelClaim, StoreError> {
        let txn = self.write().await?;
        // Under the listing's lock, so that no capacity decision displacing this booking
        // (which would refund it too) runs on either side of the claim.
        crate::capacity::lock_listing_of(&txn, id).await?;
        let fresh = bookings::Entity::update_many()
            .col_expr(bookings::Column::CancelRequestedAt, Expr::value(now))
            .col_expr(bookings::Column::RefundAmount, Expr::value(refund))
            .filter(bookings::Column::Id.eq(id))
            .filter(bookings::Column::CancelRequestedAt.is_null())
            .filter(bookings::Column::PriceAmount.eq(priced_at))
            .filter(may_become(
                bookings::Column::Status,
                BookingStatus::Cancelled,
            ))
            .exec(&txn)
            .await?
            .rows_affected
            == 1;
        let claimed = bookings::Entity::update_many()
            .col_expr(
                bookings::Column::CancelClaimedUntil,
                Expr::value(now + claim_for),
            )
            .filter(bookings::Column::Id.eq(id))
            .filter(bookings::Column::CancelRequestedAt.is_not_null())
            .filter(may_become(
                bookings::Column::Status,
                BookingStatus::Cancelled,
            ))
            .filter(
                Condition::any()
                    .add(bookings::Column::CancelClaimedUntil.is_null())
                    .add(bookings::Column::CancelClaimedUntil.lt(now)),
            )
            .exec(&txn)
            .await?
            .rows_affected
            == 1;
        let booking = bookings::Entity::find_by_id(id).one(&txn).await?;
        txn.commit().await?;
        let Some(booking) = booking else {
            return Ok(CancelClaim::Finished);
        };
        if !claimed
            && booking.cancel_requested_at.is_none()
            && booking.price_amount != priced_at
            && booking.status.can_become(BookingStatus::Cancelled)
        {
            return Ok(CancelClaim::Repriced);
        }
        Ok(match (claimed, booking.refund_amount) {
            (true, Some(refund)) => CancelClaim::Claimed {
                refund,
                resumed: !fresh,
            },
            _ if booking.status.can_become(BookingStatus::Cancelled) => CancelClaim::InProgress,
            _ => CancelClaim::Finished,
        })
    }

    /// Gives up the claim on a cancellation (the provider failed): the next cancel may try
    /// again at once, with the same recorded refund.
    pub async fn release_cancellation(&self, id: Uuid) -> Result<(), StoreError> {
        bookings::Entity::update_many()
            .col_expr(
                bookings::Column::CancelClaimedUntil,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .filter(bookings::Column::Id.eq(id))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// Cancels a booking that still holds capacity, recording the refund due; `false` when
    /// it no longer could be cancelled.
    pub async fn cancel_booking(
        &self,
        id: Uuid,
        refund: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let cancelled = crate::capacity::cancel(&txn, id, refund, now).await?;
        txn.commit().await?;
        Ok(cancelled)
    }

    /// What holds the GPUs of `listings` over `[from, until)` at `now`: bookings that hold
    /// capacity, and maintenance windows (every GPU of their machine).
    pub async fn holding_bookings(
        &self,
        listings: &[Uuid],
        from: DateTime<Utc>,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Vec<ListingHolding>, StoreError> {
        holding(self.conn(), listings, from, until, now).await
    }

    /// A renter's bookings, newest first, after the booking `before` (exclusive).
    pub async fn bookings_of_renter(
        &self,
        renter: Uuid,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<BookingRecord>, StoreError> {
        self.bookings_where(bookings::Column::RenterId.eq(renter), before, limit)
            .await
    }

    /// A listing's bookings, newest first, after the booking `before` (exclusive).
    pub async fn bookings_of_listing(
        &self,
        listing: Uuid,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<BookingRecord>, StoreError> {
        self.bookings_where(bookings::Column::ListingId.eq(listing), before, limit)
            .await
    }

    /// A listing's bookings that give access over some of `[from, until)`: confirmed or
    /// active, overlapping it, soonest first.
    pub async fn bookings_with_access(
        &self,
        listing: Uuid,
        from: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<BookingRecord>, StoreError> {
        Ok(bookings::Entity::find()
            .filter(bookings::Column::ListingId.eq(listing))
            .filter(bookings::Column::Status.is_in(booking_status::GIVING_ACCESS))
            .filter(bookings::Column::StartsAt.lt(until))
            .filter(bookings::Column::EndsAt.gt(from))
            .order_by_asc(bookings::Column::StartsAt)
            .order_by_asc(bookings::Column::Id)
            .all(self.conn())
            .await?)
    }

    /// The listings where a renter has bookings giving access at or after `from`.
    pub async fn listings_with_access_of_renter(
        &self,
        renter: Uuid,
        from: DateTime<Utc>,
    ) -> Result<Vec<Uuid>, StoreError> {
        Ok(bookings::Entity::find()
            .select_only()
            .column(bookings::Column::ListingId)
            .distinct()
            .filter(bookings::Column::RenterId.eq(renter))
            .filter(bookings::Column::Status.is_in(booking_status::GIVING_ACCESS))
            .filter(bookings::Column::EndsAt.gt(from))
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    async fn bookings_where(
        &self,
        condition: sea_orm::sea_query::SimpleExpr,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<BookingRecord>, StoreError> {
        let mut select = bookings::Entity::find().filter(condition);
        if let Some(before) = before {
            select = select.filter(bookings::Column::Id.lt(before));
        }
        Ok(select
            .order_by_desc(bookings::Column::Id)
            .limit(limit)
            .all(self.conn())
            .await?)
    }

    /// Moves bookings along with the clock: holds past their expiry become `expired`,
    /// confirmed bookings that have started become `active`, and bookings that have ended
    /// become `completed` — but for one a maintenance window has yet to cancel with a full
    /// refund, which stays open until it is. Returns the bookings whose hold expired (their
    /// payments are to be released).
    pub async fn sweep_bookings(&self, now: DateTime<Utc>) -> Result<Sweep, StoreError> {
        let _search = self.search_touch();
        let expired: Vec<Uuid> = bookings::Entity::find()
            .select_only()
            .column(bookings::Column::Id)
            .filter(bookings::Column::Status.eq(booking_status::PENDING_PAYMENT))
            .filter(bookings::Column::HoldExpiresAt.lte(now))
            .into_tuple()
            .all(self.conn())
            .await?;
        let mut sweep = Sweep::default();
        if !expired.is_empty() {
            // One by one, each only if still pending: a payment may have confirmed it.
            for id in expired {
                let done = move_to(
                    bookings::Entity::update_many(),
                    bookings::Column::Status,
                    BookingStatus::Expired,
                )
                .filter(bookings::Column::Id.eq(id))
                .exec(self.conn())
                .await?;
                if done.rows_affected == 1 {
                    sweep.expired.push(id);
                }
            }
        }
        // Each move and its events in one transaction: the events exist exactly when the
        // moves do.
        let txn = self.write().await?;
        // Bookings the sweep finds ended before it saw them start: told as started too.
        let never_started: Vec<Uuid> = bookings::Entity::find()
            .select_only()
            .column(bookings::Column::Id)
            .filter(bookings::Column::Status.eq(booking_status::CONFIRMED))
            .filter(bookings::Column::EndsAt.lte(now))
            .into_tuple()
            .all(&txn)
            .await?;
        // A booking a maintenance window still owes its cancellation (its refund failed) stays
        // open past its end, so that the refund can still be made.
        let completed = move_to(
            bookings::Entity::update_many(),
            bookings::Column::Status,
            BookingStatus::Completed,
        )
        .filter(bookings::Column::EndsAt.lte(now))
        .filter(sea_orm::sea_query::ExprTrait::not(
            crate::market::maintenance_windows::owed_to_maintenance(),
        ))
        .exec_with_returning(&txn)
        .await?;
        for booking in &completed {
            let facts = booking_facts(booking)?;
            if never_started.contains(&booking.id) {
                let started = Event::BookingStarted(facts.clone());
                emit(&txn, &started, booking.starts_at).await?;
            }
            emit(&txn, &Event::BookingEnded(facts), booking.ends_at).await?;
        }
        let activated = move_to(
            bookings::Entity::update_many(),
            bookings::Column::Status,
            BookingStatus::Active,
        )
        .filter(bookings::Column::StartsAt.lte(now))
        .exec_with_returning(&txn)
        .await?;
        for booking in &activated {
            let started = Event::BookingStarted(booking_facts(booking)?);
            emit(&txn, &started, booking.starts_at).await?;
        }
        sweep.interrupted = crate::market::interruptible::end_interrupting(&txn, now).await?;
        txn.commit().await?;
        sweep.completed = completed.len() as u64;
        sweep.activated = activated.len() as u64;
        Ok(sweep)
    }
}

/// What one sweep changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sweep {
    pub expired: Vec<Uuid>,
    pub activated: u64,
    pub completed: u64,
    /// Interrupting bookings whose notice ran out.
    pub interrupted: u64,
}
