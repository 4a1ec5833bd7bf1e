//! Raising an interruptible booking's bid (`PATCH /v1/bookings/{id}`): never lowered, the whole
//! booking repriced at it, decided by the store under the renter's and the listing's locks.

use chrono::Utc;
use domain::booking::{self, Interval, interruptible};

use crate::{App, AppError};

impl App {
    /// Raises the caller's interruptible booking's bid to `bid` (never lowers it): the whole
    /// booking repriced at it, the difference judged by the renter's budget, from now on
    /// displaced only by an on-demand booking or a bid above it. Where nothing is collected it
    /// holds at once; a booking paid through the payment provider cannot be raised yet.
    pub async fn raise_bid(
        &self,
        caller: crate::Caller,
        id: domain::BookingId,
        bid: i64,
    ) -> Result<crate::market::bookings::Booking, AppError> {
        let field =
            |why: String| AppError::from(domain::ValidationError::new("bid_per_gpu_hour", why));
        let booking = self
            .db()
            .booking_by_id(id.as_uuid())
            .await?
            .filter(|b| b.renter_id == caller.user_id.as_uuid())
            .ok_or(AppError::NotFound("booking"))?;
        let held = match booking::Tier::of(&booking.tier, booking.bid_per_gpu_hour) {
            booking::Tier::Interruptible { bid } => bid,
            booking::Tier::OnDemand => {
                return Err(field("an on-demand booking has no bid to raise".to_owned()));
            }
        };
        if bid <= held || bid > interruptible::MAX_BID {
            return Err(field(format!(
                "must be above the bid in force ({held}) and at most {}: a bid is never lowered",
                interruptible::MAX_BID
            )));
        }
        if booking.payment_provider.is_some() {
            return Err(field(
                "raising the bid of a booking paid through the payment provider is not available yet; book again at the higher bid".to_owned(),
            ));
        }
        let per_gpu_hour = crate::stored_money(bid, &booking.currency)?;
        let interval = Interval::new(booking.starts_at, booking.ends_at, booking.starts_at)
            .map_err(|e| AppError::Internal(format!("stored booking {}: {e}", booking.id)))?;
        let price = booking::price(per_gpu_hour, booking.gpu_count, &interval);
        let cost = price.with_minor(price.minor() - booking.price_amount);
        let now = Utc::now();
        let raised = self
            .db()
            .raise_bid(&booking, (bid, price.minor()), now, |open| {
                booking::within_budget(open, cost)
            })
            .await;
        let raised = match raised {
            Ok(raised) => raised,
            Err(store::RaiseError::Stale(now)) => {
                return Err(AppError::BookingNotActive(format!(
                    "{}: only a booking holding its GPUs at a lower bid can be raised",
                    *now.status
                )));
            }
            Err(store::RaiseError::Refused(refusal)) => {
                self.note_budget_refusal(booking.renter_id, &refusal, now)
                    .await;
                return Err(crate::market::bookings::refusal_error(refusal, now));
            }
            Err(store::RaiseError::Store(e)) => return Err(e.into()),
        };
        tracing::info!(booking = %booking.id, from = held, to = bid, "a bid was raised");
        self.one_booking(raised).await
    }
}
