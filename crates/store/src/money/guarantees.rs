//! Performance guarantees of bookings: the report each holds the gateway's delivery to, the
//! credits of buckets that under-delivered, settled once; and the spot check a credit brings
//! forward.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict, Query};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{booking_credits, booking_guarantees, bookings, listings};
use crate::{Db, StoreError};
use domain::webhook::{BookingCredited, Event};

pub type GuaranteeRecord = booking_guarantees::Model;
pub type CreditRecord = booking_credits::Model;

/// Why a booking has no performance guarantee.
pub mod no_guarantee {
    /// The listing offered none when it was booked.
    pub const LISTING_OFFERS_NONE: &str = "listing_offers_none";
    /// The listing offered one but was not verified: no report to hold the delivery to.
    pub const LISTING_NOT_VERIFIED: &str = "listing_not_verified";
    /// The booking reaches the machine directly (SSH or an HTTPS URL): it can load the
    /// engine around the gateway, which judges only what it sees.
    pub const DIRECT_ACCESS: &str = "direct_access";
    /// An interruptible booking: its access may end early, displaced.
    pub const INTERRUPTIBLE: &str = "interruptible";
}

/// Whether a booking of `listing` that asked `direct_access` reaches the machine directly:
/// the listing gives SSH or an HTTPS URL, and the booking did not waive them.
pub(crate) fn reaches_directly(listing: &crate::ListingRecord, direct_access: bool) -> bool {
    direct_access && (listing.access_ssh_host.is_some() || listing.access_https_url.is_some())
}

/// A listing's guarantee as a booking made now takes it — the listing offers one and is
/// verified (so there is a report to hold the delivery to), and the booking does not reach
/// the machine around the gateway — or why it gets none ([`no_guarantee`]).
pub(crate) fn guarantee_for(
    (booking, direct_access, tier): (Uuid, bool, &str),
    listing: &crate::ListingRecord,
) -> Result<booking_guarantees::ActiveModel, &'static str> {
    if tier != domain::booking::Tier::OnDemand.as_str() {
        return Err(no_guarantee::INTERRUPTIBLE);
    }
    let min_bp = listing
        .guarantee_min_bp
        .ok_or(no_guarantee::LISTING_OFFERS_NONE)?;
    let report = listing
        .latest_report_id
        .ok_or(no_guarantee::LISTING_NOT_VERIFIED)?;
    if listing.verification_state.map(|s| s.0) != Some(domain::BadgeState::Verified) {
        return Err(no_guarantee::LISTING_NOT_VERIFIED);
    }
    if reaches_directly(listing, direct_access) {
        return Err(no_guarantee::DIRECT_ACCESS);
    }
    Ok(booking_guarantees::ActiveModel {
        booking_id: Set(booking),
        min_bp: Set(min_bp),
        report_id: Set(report),
        evaluated_until: Set(None),
        credit_amount: Set(0),
        settled_at: Set(None),
        settled_amount: Set(None),
        refund_id: Set(None),
        next_check_at: Set(None),
    })
}

impl Db {
    /// When bookings of `listings` (every listing naming one engine) that were given direct
    /// access held them, over `[from, until)`: each one's `[starts_at, ends_at)`, cut at its
    /// cancellation. Bookings confirmed, active, completed or cancelled after they were paid
    /// count (one waiting for its payment, or cancelled before it was paid, was never given
    /// access).
    pub async fn direct_access_between(
        &self,
        listings: &[Uuid],
        from: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<(DateTime<Utc>, DateTime<Utc>)>, StoreError> {
        use crate::booking_status as status;
        let charged = Query::select()
            .column(crate::entities::ledger_entries::Column::BookingId)
            .from(crate::entities::ledger_entries::Entity)
            .and_where(
                Expr::col(crate::entities::ledger_entries::Column::Kind)
                    .eq(domain::LedgerKind::Charge.as_str()),
            )
            .to_owned();
        let rows = bookings::Entity::find()
            .filter(bookings::Column::ListingId.is_in(listings.iter().copied()))
            .filter(bookings::Column::DirectAccess.eq(true))
            .filter(bookings::Column::Status.is_in([
                status::CONFIRMED,
                status::ACTIVE,
                status::COMPLETED,
                status::CANCELLED,
            ]))
            .filter(
                sea_orm::Condition::any()
                    .add(bookings::Column::Status.ne(status::CANCELLED))
                    .add(bookings::Column::PaymentProvider.is_null())
                    .add(bookings::Column::Id.in_subquery(charged)),
            )
            .filter(bookings::Column::StartsAt.lt(until))
            .filter(bookings::Column::EndsAt.gt(from))
            .all(self.conn())
            .await?;
        Ok(rows
            .into_iter()
            .map(|b| {
                let end = b
                    .cancelled_at
                    .map_or(b.ends_at, |at| Ord::min(at, b.ends_at));
                (b.starts_at, end)
            })
            .filter(|(start, end)| start < end && *end > from)
            .collect())
    }

    /// Listings whose engine address mentions `host`, with their engine addresses: the
    /// candidates for "the same engine" (the caller compares origins).
    pub async fn listings_with_engine_host(
        &self,
        host: &str,
    ) -> Result<Vec<(Uuid, String)>, StoreError> {
        Ok(listings::Entity::find()
            .select_only()
            .column(listings::Column::Id)
            .column(listings::Column::EngineBaseUrl)
            .filter(listings::Column::EngineBaseUrl.contains(host))
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    pub async fn guarantee_of(&self, booking: Uuid) -> Result<Option<GuaranteeRecord>, StoreError> {
        Ok(booking_guarantees::Entity::find_by_id(booking)
            .one(self.conn())
            .await?)
    }

    /// A booking's credits, oldest bucket first.
    pub async fn credits_of(&self, booking: Uuid) -> Result<Vec<CreditRecord>, StoreError> {
        Ok(booking_credits::Entity::find()
            .filter(booking_credits::Column::BookingId.eq(booking))
            .order_by_asc(booking_credits::Column::BucketStart)
            .all(self.conn())
            .await?)
    }

    /// Guarantees not settled yet and due a look (`next_check_at` passed or never set), with
    /// their bookings, for bookings that have started (at most `limit`, longest due first).
    pub async fn open_guarantees(
        &self,
        now: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<(GuaranteeRecord, bookings::Model)>, StoreError> {
        let started = Query::select()
            .column(bookings::Column::Id)
            .from(bookings::Entity)
            .and_where(bookings::Column::StartsAt.lte(now))
            .to_owned();
        let open = booking_guarantees::Entity::find()
            .filter(booking_guarantees::Column::SettledAt.is_null())
            .filter(booking_guarantees::Column::BookingId.in_subquery(started))
            .filter(
                Condition::any()
                    .add(booking_guarantees::Column::NextCheckAt.is_null())
                    .add(booking_guarantees::Column::NextCheckAt.lte(now)),
            )
            // Never looked at first (NULLs sort first on SQLite, last on PostgreSQL).
            .order_by_desc(booking_guarantees::Column::NextCheckAt.is_null())
            .order_by_asc(booking_guarantees::Column::NextCheckAt)
            .limit(limit)
            .all(self.conn())
            .await?;
        let ids: Vec<Uuid> = open.iter().map(|g| g.booking_id).collect();
        let bookings = bookings::Entity::find()
            .filter(bookings::Column::Id.is_in(ids))
            .all(self.conn())
            .await?;
        Ok(open
            .into_iter()
            .filter_map(|g| {
                let booking = bookings.iter().find(|b| b.id == g.booking_id)?.clone();
                Some((g, booking))
            })
            .collect())
    }

    /// Records that a guarantee's buckets before `until` were judged, with the `credits`
    /// they earned — only if nobody judged them since `from` was read (several replicas may
    /// judge). Returns whether this call recorded them.
    pub async fn record_judgement(
        &self,
        booking: Uuid,
        from: Option<DateTime<Utc>>,
        until: DateTime<Utc>,
        credits: &[CreditRecord],
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let total: i64 = credits.iter().map(|c| c.amount).sum();
        let mut update = booking_guarantees::Entity::update_many()
            .col_expr(
                booking_guarantees::Column::EvaluatedUntil,
                Expr::value(until),
            )
            .col_expr(
                booking_guarantees::Column::CreditAmount,
                Expr::col(booking_guarantees::Column::CreditAmount).add(total),
            )
            .filter(booking_guarantees::Column::BookingId.eq(booking))
            .filter(booking_guarantees::Column::SettledAt.is_null());
        update = match from {
            Some(from) => update.filter(booking_guarantees::Column::EvaluatedUntil.eq(from)),
            None => update.filter(booking_guarantees::Column::EvaluatedUntil.is_null()),
        };
        if update.exec(&txn).await?.rows_affected == 0 {
            return Ok(false);
        }
        for credit in credits {
            // A bucket credited already (its length was configured differently then) keeps
            // its first credit.
            booking_credits::Entity::insert(credit.clone().into_active_model())
                .on_conflict(
                    OnConflict::columns([
                        booking_credits::Column::BookingId,
                        booking_credits::Column::BucketStart,
                    ])
                    .do_nothing()
                    .to_owned(),
                )
                .exec_without_returning(&txn)
                .await?;
        }
        txn.commit().await?;
        Ok(true)
    }

    /// Settles a guarantee once: `amount` given back (by `refund_id` when money moved), with
    /// its ledger rows. `false` when it was settled already.
    pub async fn settle_guarantee(
        &self,
        booking: Uuid,
        amount: i64,
        refund_id: Option<String>,
        ledger: &[crate::NewLedgerEntry],
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let settled = booking_guarantees::Entity::update_many()
            .col_expr(booking_guarantees::Column::SettledAt, Expr::value(now))
            .col_expr(
                booking_guarantees::Column::SettledAmount,
                Expr::value(amount),
            )
            .col_expr(booking_guarantees::Column::RefundId, Expr::value(refund_id))
            .filter(booking_guarantees::Column::BookingId.eq(booking))
            .filter(booking_guarantees::Column::SettledAt.is_null())
            .exec(&txn)
            .await?
            .rows_affected
            == 1;
        if settled {
            crate::money::ledger::insert_ledger(&txn, ledger, now).await?;
        }
        if settled
            && amount > 0
            && let Some(record) = bookings::Entity::find_by_id(booking).one(&txn).await?
        {
            let event = Event::BookingCredited(BookingCredited {
                booking: crate::outbox::booking_facts(&record)?,
                credit: crate::outbox::booking_money(&record, amount)?,
            });
            crate::outbox::emit(&txn, &event, now).await?;
        }
        txn.commit().await?;
        Ok(settled)
    }

    /// When the upkeep next looks at a guarantee.
    pub async fn check_guarantee_at(
        &self,
        booking: Uuid,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        booking_guarantees::Entity::update_many()
            .col_expr(booking_guarantees::Column::NextCheckAt, Expr::value(at))
            .filter(booking_guarantees::Column::BookingId.eq(booking))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// Brings a verified listing's next spot check forward to `now` (a booking found it
    /// under-delivering). Nothing when a check is under way or already due.
    pub async fn spot_check_now(
        &self,
        listing: Uuid,
        now: DateTime<Utc>,
        at_most_every: chrono::Duration,
    ) -> Result<bool, StoreError> {
        Ok(listings::Entity::update_many()
            .col_expr(listings::Column::NextSpotCheckAt, Expr::value(now))
            .col_expr(listings::Column::SpotCheckForwardedAt, Expr::value(now))
            .filter(listings::Column::Id.eq(listing))
            .filter(listings::Column::VerificationState.eq(crate::badge_state::VERIFIED))
            .filter(listings::Column::NextSpotCheckAt.gt(now))
            .filter(
                Condition::any()
                    .add(listings::Column::SpotCheckForwardedAt.is_null())
                    .add(listings::Column::SpotCheckForwardedAt.lte(now - at_most_every)),
            )
            .exec(self.conn())
            .await?
            .rows_affected
            == 1)
    }
}
