//! A booking's money as ledger rows: what it cost and the fee, the rows of a Stripe movement,
//! and a refund's rows (the fee and the transfer back in proportion).

use payments::PaymentError;
use store::{BookingRecord, NewLedgerEntry};
use uuid::Uuid;

use domain::{LedgerKind, Money};

use crate::AppError;

/// What a booking cost and the platform's fee out of it, as stored with the booking.
pub(crate) fn paid_and_fee(booking: &BookingRecord) -> Result<(Money, Money), AppError> {
    let paid = crate::stored_money(booking.price_amount, &booking.currency)?;
    Ok((
        paid,
        paid.with_minor(booking.platform_fee_amount.unwrap_or_default()),
    ))
}

/// The ledger rows of `booking` (provider `org`) for movements by Stripe object `object`.
pub(crate) fn ledger_rows(
    booking: &BookingRecord,
    org: Uuid,
    object: &str,
    movements: impl IntoIterator<Item = (LedgerKind, Money)>,
) -> Vec<NewLedgerEntry> {
    movements
        .into_iter()
        .map(|(kind, amount)| NewLedgerEntry {
            booking_id: booking.id,
            org_id: org,
            renter_id: booking.renter_id,
            kind,
            amount,
            stripe_object_id: Some(object.to_owned()),
        })
        .collect()
}

/// A payment provider's failure as it is recorded on the booking.
pub(crate) fn provider_failed(booking: Uuid, e: &PaymentError) -> String {
    format!("payment provider: {e} (booking {booking})")
}

/// The rows of a refund `refund_id` of `refunded` minor units: the fee and the transfer
/// come back in proportion to the charge.
pub(crate) fn refund_rows(
    booking: &BookingRecord,
    org: Uuid,
    refund_id: &str,
    refunded: i64,
) -> Result<Vec<NewLedgerEntry>, AppError> {
    let (paid, fee) = paid_and_fee(booking)?;
    Ok(ledger_rows(
        booking,
        org,
        refund_id,
        domain::ledger::refund_rows(paid, fee, paid.with_minor(refunded)),
    ))
}
