//! The ledger's vocabulary: what kind of movement a row records, and how a refund's share of
//! the fee and of the provider's transfer is worked out. Amounts are signed: money in is
//! positive, money going back negative.

use std::fmt;
use std::str::FromStr;

use crate::Money;

/// What a ledger row records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LedgerKind {
    /// The renter paid (the whole charge).
    Charge,
    /// The platform's application fee out of a charge.
    Fee,
    /// The provider's share, transferred to its connected account.
    Transfer,
    /// Money back to the renter (negative).
    Refund,
    /// The fee given back with a refund (negative).
    FeeRefund,
    /// The transfer reversed with a refund (negative).
    TransferReversal,
    /// Payments `none`: the booking was confirmed and nothing was collected (amount 0).
    NotCollected,
    /// Payments `none`: a performance guarantee's credits, owed back but never collected
    /// (negative; with Stripe, credits are paid back as a refund).
    Credit,
}

impl LedgerKind {
    pub const ALL: [LedgerKind; 8] = [
        Self::Charge,
        Self::Fee,
        Self::Transfer,
        Self::Refund,
        Self::FeeRefund,
        Self::TransferReversal,
        Self::NotCollected,
        Self::Credit,
    ];

    /// The name as stored and shown.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Charge => "charge",
            Self::Fee => "fee",
            Self::Transfer => "transfer",
            Self::Refund => "refund",
            Self::FeeRefund => "fee_refund",
            Self::TransferReversal => "transfer_reversal",
            Self::NotCollected => "not_collected",
            Self::Credit => "credit",
        }
    }
}

/// A stored name that is no ledger kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a ledger kind")]
pub struct UnknownLedgerKind(pub String);

impl FromStr for LedgerKind {
    type Err = UnknownLedgerKind;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == raw)
            .ok_or_else(|| UnknownLedgerKind(raw.to_owned()))
    }
}

impl fmt::Display for LedgerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rows a charge of `amount`, of which the platform keeps `fee`, records: the charge, the
/// fee, and the provider's transfer (the rest).
pub fn charge_rows(amount: Money, fee: Money) -> [(LedgerKind, Money); 3] {
    [
        (LedgerKind::Charge, amount),
        (LedgerKind::Fee, fee),
        (
            LedgerKind::Transfer,
            amount.with_minor(amount.minor() - fee.minor()),
        ),
    ]
}

/// The rows of a refund of `refunded` out of a charge of `paid` with fee `fee`: the refund,
/// and the fee and transfer coming back in proportion to the charge (rounded down), all
/// negative.
pub fn refund_rows(paid: Money, fee: Money, refunded: Money) -> [(LedgerKind, Money); 3] {
    let transfer = paid.minor() - fee.minor();
    [
        (LedgerKind::Refund, refunded.with_minor(-refunded.minor())),
        (
            LedgerKind::FeeRefund,
            fee.with_minor(-fee.share(refunded.minor(), paid.minor()).minor()),
        ),
        (
            LedgerKind::TransferReversal,
            paid.with_minor(
                -paid
                    .with_minor(transfer)
                    .share(refunded.minor(), paid.minor())
                    .minor(),
            ),
        ),
    ]
}

/// How much of one PaymentIntent a refund may still take: what it charged less what refunds
/// already decided took of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refundable {
    pub intent: String,
    pub charged: i64,
    pub refunded: i64,
}

/// Splits a refund of `amount` across a booking's PaymentIntents, oldest first in `intents`
/// (the booking's own, then each paid bid raise): the latest paid is refunded first, each at
/// most what it has left. `None` when they have less left than `amount` together.
pub fn split_refund(amount: i64, intents: &[Refundable]) -> Option<Vec<(String, i64)>> {
    let mut owed = amount.max(0);
    let mut parts = Vec::new();
    for intent in intents.iter().rev() {
        let part = owed.min((intent.charged - intent.refunded).max(0));
        if part > 0 {
            parts.push((intent.intent.clone(), part));
            owed -= part;
        }
    }
    (owed == 0).then_some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Currency;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in LedgerKind::ALL {
            assert_eq!(kind.as_str().parse::<LedgerKind>().unwrap(), kind);
        }
        assert!("bonus".parse::<LedgerKind>().is_err());
    }

    #[test]
    fn a_refund_brings_fee_and_transfer_back_in_proportion() {
        let usd = |minor| Money::new(minor, Currency::Usd);
        let charge = charge_rows(usd(600), usd(60));
        assert_eq!(charge[2], (LedgerKind::Transfer, usd(540)));
        let back = refund_rows(usd(600), usd(60), usd(450));
        assert_eq!(back[0], (LedgerKind::Refund, usd(-450)));
        assert_eq!(back[1], (LedgerKind::FeeRefund, usd(-45)));
        assert_eq!(back[2], (LedgerKind::TransferReversal, usd(-405)));
        // Rounded down, never more back than was paid out.
        let odd = refund_rows(usd(7), usd(1), usd(1));
        assert_eq!((odd[1].1.minor(), odd[2].1.minor()), (0, 0));
    }

    #[test]
    fn a_refund_takes_the_latest_payment_first_and_never_more_than_it_left() {
        let of = |intent: &str, charged, refunded| Refundable {
            intent: intent.to_owned(),
            charged,
            refunded,
        };
        let intents = [of("pi_booking", 1_000, 0), of("pi_raise", 300, 100)];
        assert_eq!(
            split_refund(150, &intents),
            Some(vec![("pi_raise".to_owned(), 150)])
        );
        assert_eq!(
            split_refund(700, &intents),
            Some(vec![
                ("pi_raise".to_owned(), 200),
                ("pi_booking".to_owned(), 500)
            ])
        );
        assert_eq!(
            split_refund(1_200, &intents),
            Some(vec![
                ("pi_raise".to_owned(), 200),
                ("pi_booking".to_owned(), 1_000)
            ])
        );
        assert_eq!(split_refund(1_201, &intents), None);
        assert_eq!(split_refund(0, &intents), Some(vec![]));
    }
}
