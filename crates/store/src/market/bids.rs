//! Raising an interruptible booking's bid: under the renter's lock (their budget judges the
//! difference) and the listing's (so no displacement decides on half of it).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use crate::entities::bookings;
use crate::{BookingRecord, Db, StoreError};

/// Why a bid was not raised.
#[derive(Debug, thiserror::Error)]
pub enum RaiseError {
    /// The booking no longer holds its GPUs at a bid (displaced, cancelled, over) or its bid
    /// is not below the new one any more: as it stands now.
    #[error("the booking's bid cannot be raised as it stands")]
    Stale(Box<BookingRecord>),
    /// The renter's budget refuses what the raise costs.
    #[error(transparent)]
    Refused(#[from] domain::booking::Refusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for RaiseError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

impl Db {
    /// Raises an interruptible booking's bid to `bid`, repricing it at `price` (where nothing
    /// is collected): under the renter's lock (their budget judges the difference with
    /// `within_budget`) and the listing's (so no displacement decides on half of it), only
    /// while the booking still holds its GPUs at a lower bid.
    pub async fn raise_bid(
        &self,
        booking: &BookingRecord,
        (bid, price): (i64, i64),
        now: DateTime<Utc>,
        within_budget: impl FnOnce(&domain::booking::RenterOpen) -> Result<(), domain::booking::Refusal>,
    ) -> Result<BookingRecord, RaiseError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let open = crate::market::bookings::lock_renter(&txn, booking.renter_id, now).await?;
        crate::capacity::lock_listing(&txn, booking.listing_id).await?;
        let current = bookings::Entity::find_by_id(booking.id)
            .one(&txn)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("booking {} vanished", booking.id)))?;
        let below = matches!(
            domain::booking::Tier::of(&current.tier, current.bid_per_gpu_hour),
            domain::booking::Tier::Interruptible { bid: held } if held < bid
        );
        let raisable = below
            && current.interrupted_at.is_none()
            && current.status.holds_capacity()
            && current.ends_at > now;
        if !raisable {
            return Err(RaiseError::Stale(Box::new(current)));
        }
        let cost = price - current.price_amount;
        within_budget(&open)?;
        bookings::Entity::update_many()
            .col_expr(bookings::Column::BidPerGpuHour, Expr::value(bid))
            .col_expr(bookings::Column::AmountPerGpuHour, Expr::value(bid))
            .col_expr(bookings::Column::PriceAmount, Expr::value(price))
            .filter(bookings::Column::Id.eq(booking.id))
            .exec(&txn)
            .await?;
        crate::money::budgets::alert_spending(
            &txn,
            booking.renter_id,
            open.budget.as_ref(),
            cost,
            now,
        )
        .await?;
        txn.commit().await?;
        Ok(bookings::Entity::find_by_id(booking.id)
            .one(self.conn())
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("booking {} vanished", booking.id)))?)
    }
}
