//! A bid raise's payment (its webhook): where the booking still holds its GPUs at a lower bid
//! at the price the raise was asked against, the raise holds, its charge in the ledger;
//! otherwise its money is given back in full, once. And a raise waiting for its payment ended:
//! replaced, expired, or withdrawn because its booking ended.

use chrono::Utc;

use super::ledger::ledger_rows;
use crate::{App, AppError};

impl App {
    /// A raise's payment arrived (its webhook): where the booking still holds its GPUs at a
    /// lower bid at the price the raise was asked against, the raise holds from now, its
    /// charge in the ledger; otherwise the money is given back in full, once.
    pub(crate) async fn raise_paid(
        &self,
        raise: &store::BidRaiseRecord,
        intent: &str,
        (amount, fee): (i64, i64),
    ) -> Result<(), AppError> {
        let booking = self
            .db()
            .booking_by_id(raise.booking_id)
            .await?
            .ok_or(AppError::NotFound("booking"))?;
        let listing = self.listing_record(booking.listing_id).await?;
        let money = crate::stored_money(amount, &raise.currency)?;
        let charged = domain::ledger::charge_rows(money, money.with_minor(fee));
        let now = Utc::now();
        let paid = self
            .db()
            .raise_paid(
                raise.id,
                |repriced| ledger_rows(repriced, listing.org_id, intent, charged),
                now,
            )
            .await?;
        let late = match paid {
            store::RaisePaid::Applied(_) => {
                tracing::info!(booking = %booking.id, raise = %raise.id, bid = raise.bid_per_gpu_hour, "a bid raise was paid and holds");
                return Ok(());
            }
            store::RaisePaid::Done => return Ok(()),
            store::RaisePaid::Late(late) => late,
        };
        let key = format!("bid-raise-{}-late-payment-refund", late.id);
        let refund = self.refund_whole(booking.id, intent, amount, key).await?;
        let mut rows = ledger_rows(&booking, listing.org_id, intent, charged);
        rows.extend(ledger_rows(
            &booking,
            listing.org_id,
            &refund.id,
            domain::ledger::refund_rows(
                money,
                money.with_minor(fee),
                money.with_minor(refund.amount),
            ),
        ));
        self.db().raise_refunded(late.id, &rows, now).await?;
        tracing::warn!(booking = %booking.id, raise = %late.id, "a bid raise paid once it could no longer hold was refunded in full");
        Ok(())
    }

    /// Ends a raise waiting for its payment as `status` with its PaymentIntent cancelled; a
    /// PaymentIntent that cannot be cancelled (it is being paid) leaves it to its webhook.
    pub(crate) async fn cancel_raise(
        &self,
        raise: &store::BidRaiseRecord,
        status: &'static str,
    ) -> Result<(), AppError> {
        if let Some(intent) = &raise.payment_intent_id {
            let key = format!("bid-raise-{}-cancel", raise.id);
            if let Err(e) = self.payment_provider()?.cancel_intent(intent, &key).await {
                tracing::warn!(raise = %raise.id, error = %e, "cancelling a bid raise's PaymentIntent failed");
                return Err(AppError::BidNotRaisable(format!(
                    "an earlier raise of this booking's bid (to {}) could not be withdrawn: it may be being paid; try again once it is",
                    raise.bid_per_gpu_hour
                )));
            }
        }
        self.db().end_raise(raise.id, status, None).await?;
        Ok(())
    }

    /// Withdraws a raise of `booking` still waiting for its payment once the booking was
    /// cancelled or displaced: its PaymentIntent cancelled, so it can no longer be paid (one
    /// paid all the same is refunded whole; one that cannot be cancelled now is expired by the
    /// sweep).
    pub(crate) async fn withdraw_raise(&self, booking: uuid::Uuid) {
        if self.payments().is_none() {
            return;
        }
        match self.db().latest_raise_of(booking).await {
            Ok(Some(raise)) if raise.status == store::raise_status::PENDING_PAYMENT => {
                if let Err(e) = self
                    .cancel_raise(&raise, store::raise_status::CANCELLED)
                    .await
                {
                    tracing::warn!(%booking, raise = %raise.id, error = %e, "withdrawing a bid raise failed; its hold's end expires it");
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(%booking, error = %e, "a booking's bid raises could not be read")
            }
        }
    }
}
