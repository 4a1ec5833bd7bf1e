//! A bid raise's payment (its webhook): where the booking still holds its GPUs at a lower bid
//! at the price the raise was asked against, the raise holds, its charge in the ledger;
//! otherwise its money is given back in full, once.

use chrono::Utc;

use super::ledger::{ledger_rows, provider_failed};
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
        let request = payments::RefundRequest {
            payment_intent: intent.to_owned(),
            amount,
            booking_id: booking.id.to_string(),
            idempotency_key: format!("bid-raise-{}-late-payment-refund", late.id),
        };
        let refund = self
            .payment_provider()?
            .refund(&request)
            .await
            .map_err(|e| AppError::PaymentProvider(provider_failed(booking.id, &e)))?;
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
}
