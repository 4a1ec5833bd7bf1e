//! What offers at a service-level objective are computed from, and plans booked together.
//!
//! Offers read the search projection only (`listing_cells` and `listing_prefill`: the valid
//! cells of each active listing's latest compliant report), never reports. A plan's bookings
//! are made in one transaction, all or none: the renter locked first, then each listing in
//! id order, each re-checked under its lock (the search that chose it may be stale).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use domain::booking::interruptible::Displaced;
use domain::booking::{Machine, Refusal, RenterOpen};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ActiveModelTrait, ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::BookingRecord;
use crate::entities::{booking_plans, bookings, listing_cells, listing_prefill, listings};
use crate::market::bookings::{BookingError, insert_booking, lock_machine, lock_renter};
use crate::market::interruptible::DisplacedBooking;
use crate::status::listing_status;
use crate::trust::projection::ProjectedCell;
use crate::{Db, ListingRecord, StoreError, conflict_as};

/// Which listings may make offers.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferQuery {
    /// The model they serve: listings of this catalog model, or whose engine serves a model
    /// of this name.
    pub catalog_model: Option<String>,
    pub served_model: String,
    /// Only decode cells of at least this context are read.
    pub min_context: i64,
    /// Prices in this currency only (`None`: any).
    pub currency: Option<String>,
    /// The whole machine's price per hour (minor units), at most.
    pub max_price_per_hour: Option<i64>,
    /// The 30-day uptime at least this; listings never observed are left out.
    pub min_reliability: Option<f64>,
    /// The listing's availability window must cover `[from, until)`.
    pub window: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// The engine its verified report measured (`None`: any).
    pub engine: Option<String>,
}

/// A verified, active listing with its projected figures at contexts of at least the query's.
#[derive(Debug, Clone)]
pub struct OfferCandidate {
    pub listing: ListingRecord,
    pub cells: Vec<ProjectedCell>,
    /// `(context_tokens, prompt tok/s)` of every valid prefill cell.
    pub prefill: Vec<(i64, f64)>,
}

/// A plan as stored: what its idempotency key stands for.
pub type PlanRecord = booking_plans::Model;

/// Why a plan was not booked.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// These listings can no longer take their booking (booked meanwhile, delisted, out of
    /// their window, gone): nothing was booked.
    #[error("listings taken meanwhile: {0:?}")]
    Taken(Vec<Uuid>),
    /// The renter's quota refused the plan: nothing was booked.
    #[error(transparent)]
    Refused(Refusal),
    /// The renter already used this idempotency key (a racing retry).
    #[error("idempotency key already used")]
    KeyUsed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for PlanError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

/// How many listings one read of the projection asks for by id.
const IDS_PER_QUERY: usize = 500;

impl Db {
    /// Every active, verified listing that may make an offer for `query`, with its figures.
    pub async fn offer_candidates(
        &self,
        query: &OfferQuery,
    ) -> Result<Vec<OfferCandidate>, StoreError> {
        use listings::Column as L;
        let serves = match &query.catalog_model {
            Some(id) => Condition::any()
                .add(L::CatalogModel.eq(id.as_str()))
                .add(L::EngineModel.eq(query.served_model.as_str())),
            None => Condition::all().add(L::EngineModel.eq(query.served_model.as_str())),
        };
        let mut select = listings::Entity::find()
            .filter(L::Status.eq(listing_status::ACTIVE))
            .filter(L::LatestReportId.is_not_null())
            .filter(serves);
        if let Some(currency) = &query.currency {
            select = select.filter(L::Currency.eq(currency.as_str()));
        }
        if let Some(max) = query.max_price_per_hour {
            select = select.filter(
                Expr::col((listings::Entity, L::PriceAmount))
                    .mul(Expr::col((listings::Entity, L::GpuCount)))
                    .lte(max),
            );
        }
        if let Some(min) = query.min_reliability {
            select = select.filter(L::Reliability.gte(min));
        }
        if let Some((from, until)) = query.window {
            select = select.filter(crate::market::listings::covers_window(from, until));
        }
        if let Some(engine) = &query.engine {
            select = select.filter(L::MeasuredEngine.eq(engine.as_str()));
        }
        let found = select.order_by_asc(L::Id).all(self.conn()).await?;
        let mut candidates = Vec::with_capacity(found.len());
        for chunk in found.chunks(IDS_PER_QUERY) {
            let ids: Vec<Uuid> = chunk.iter().map(|l| l.id).collect();
            let mut cells: HashMap<Uuid, Vec<ProjectedCell>> = HashMap::new();
            for c in listing_cells::Entity::find()
                .filter(listing_cells::Column::ListingId.is_in(ids.iter().copied()))
                .filter(listing_cells::Column::ContextTokens.gte(query.min_context))
                .all(self.conn())
                .await?
            {
                cells.entry(c.listing_id).or_default().push(c.into());
            }
            let mut prefill: HashMap<Uuid, Vec<(i64, f64)>> = HashMap::new();
            for p in listing_prefill::Entity::find()
                .filter(listing_prefill::Column::ListingId.is_in(ids.iter().copied()))
                .all(self.conn())
                .await?
            {
                prefill
                    .entry(p.listing_id)
                    .or_default()
                    .push((p.context_tokens, p.prompt_tok_s));
            }
            for listing in chunk {
                candidates.push(OfferCandidate {
                    cells: cells.remove(&listing.id).unwrap_or_default(),
                    prefill: prefill.remove(&listing.id).unwrap_or_default(),
                    listing: listing.clone(),
                });
            }
        }
        Ok(candidates)
    }

    pub async fn plan_by_key(
        &self,
        renter: Uuid,
        key: &str,
    ) -> Result<Option<PlanRecord>, StoreError> {
        Ok(booking_plans::Entity::find()
            .filter(booking_plans::Column::RenterId.eq(renter))
            .filter(booking_plans::Column::IdempotencyKey.eq(key))
            .one(self.conn())
            .await?)
    }

    /// Bookings that still hold capacity in a plan one of whose bookings expired unpaid: a
    /// plan is all or none, so these are to be released (what was paid refunded).
    pub async fn plan_bookings_to_release(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<BookingRecord>, StoreError> {
        let broken = sea_orm::sea_query::Query::select()
            .column(bookings::Column::PlanId)
            .from(bookings::Entity)
            .and_where(bookings::Column::Status.eq(crate::booking_status::EXPIRED))
            .and_where(bookings::Column::PlanId.is_not_null())
            .to_owned();
        Ok(bookings::Entity::find()
            .filter(bookings::Column::PlanId.in_subquery(broken))
            .filter(crate::capacity::holds_capacity(now))
            .order_by_asc(bookings::Column::Id)
            .all(self.conn())
            .await?)
    }

    /// The bookings of a plan, by listing id.
    pub async fn bookings_of_plan(&self, plan: Uuid) -> Result<Vec<BookingRecord>, StoreError> {
        Ok(bookings::Entity::find()
            .filter(bookings::Column::PlanId.eq(plan))
            .order_by_asc(bookings::Column::ListingId)
            .all(self.conn())
            .await?)
    }

    /// Books `plan`'s `bookings` (one per listing, each with `plan_id` set) in one
    /// transaction, all or none. `quota` judges the plan as one booking of all its GPUs
    /// against the renter's open bookings; `admit` each machine, locked in listing-id order,
    /// naming the interruptible bookings it displaces (moved out of the way in the same
    /// transaction). Every listing that refuses is named in [`PlanError::Taken`]. Answers the
    /// plan's bookings and those displaced.
    pub async fn book_plan(
        &self,
        plan: PlanRecord,
        mut bookings: Vec<BookingRecord>,
        now: DateTime<Utc>,
        quota: impl FnOnce(&RenterOpen) -> Result<(), Refusal>,
        admit: impl Fn(&Machine, &BookingRecord) -> Result<Vec<Displaced>, Refusal>,
    ) -> Result<(Vec<BookingRecord>, Vec<DisplacedBooking>), PlanError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let renter_open = lock_renter(&txn, plan.renter_id, now).await?;
        quota(&renter_open).map_err(PlanError::Refused)?;
        bookings.sort_by_key(|b| b.listing_id);
        let mut taken = Vec::new();
        let mut admitted = Vec::with_capacity(bookings.len());
        let mut displacing = Vec::new();
        for booking in bookings {
            let span = (booking.starts_at, booking.ends_at);
            match lock_machine(&txn, booking.listing_id, span, now, RenterOpen::default()).await {
                Ok((listing, machine)) => match admit(&machine, &booking) {
                    Ok(displaced) => {
                        displacing.extend(displaced);
                        admitted.push((booking, listing));
                    }
                    Err(_) => taken.push(booking.listing_id),
                },
                Err(BookingError::NoListing) => taken.push(booking.listing_id),
                Err(e) => return Err(as_plan_error(e)),
            }
        }
        if !taken.is_empty() {
            return Err(PlanError::Taken(taken));
        }
        let (id, renter) = (plan.id, plan.renter_id);
        booking_plans::Entity::insert(booking_plans::ActiveModel::from(plan).reset_all())
            .exec_without_returning(&txn)
            .await
            .map_err(|e| match conflict_as("idempotency key")(e) {
                StoreError::Conflict(_) => PlanError::KeyUsed,
                other => PlanError::Store(other),
            })?;
        let displaced = crate::market::interruptible::displace(&txn, &displacing, now).await?;
        let cost: i64 = admitted.iter().map(|(b, _)| b.price_amount).sum();
        for (booking, listing) in admitted {
            insert_booking(&txn, booking, &listing)
                .await
                .map_err(as_plan_error)?;
        }
        crate::money::budgets::alert_spending(&txn, renter, renter_open.budget.as_ref(), cost, now)
            .await?;
        txn.commit().await?;
        Ok((self.bookings_of_plan(id).await?, displaced))
    }
}

fn as_plan_error(e: BookingError) -> PlanError {
    match e {
        BookingError::KeyUsed => PlanError::KeyUsed,
        BookingError::Refused(refusal) => PlanError::Refused(refusal),
        BookingError::NoListing => PlanError::Store(StoreError::Corrupt("listing vanished".into())),
        BookingError::Store(e) => PlanError::Store(e),
    }
}
