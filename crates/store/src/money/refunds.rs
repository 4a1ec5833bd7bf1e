//! How a refund of a booking is split across the PaymentIntents that paid it — its own and each
//! paid bid raise — decided once per refund (its idempotency key) under the booking's lock, so
//! that a retry, or another replica, repeats exactly the same requests; each part keeps the
//! payment provider's refund once made, so a retry asks for nothing it has.

use chrono::{DateTime, Utc};
use domain::ledger::{Refundable, split_refund};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

use crate::entities::{bid_raises, bookings, refund_parts};
use crate::status::raise_status;
use crate::{Db, StoreError};

/// One part of a refund: from `intent`, `amount`, and the provider's refund once made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundPart {
    pub intent: String,
    pub amount: i64,
    pub refund_id: Option<String>,
}

/// The parts decided for `key`, the latest paid intent first.
async fn decided(conn: &impl ConnectionTrait, key: &str) -> Result<Vec<RefundPart>, StoreError> {
    Ok(refund_parts::Entity::find()
        .filter(refund_parts::Column::RefundKey.eq(key))
        .order_by_asc(refund_parts::Column::CreatedAt)
        .all(conn)
        .await?
        .into_iter()
        .map(|p| RefundPart {
            intent: p.payment_intent_id,
            amount: p.amount,
            refund_id: p.refund_id,
        })
        .collect())
}

impl Db {
    /// The parts of refund `key` of `amount` from booking `booking`, the latest paid intent
    /// first. Decided the first time it is asked for, under the booking's lock (nothing for a
    /// booking without an intent); afterwards the same parts whatever was paid or refunded
    /// since. An error when the booking's intents have less left than `amount`.
    pub async fn refund_parts(
        &self,
        booking: Uuid,
        key: &str,
        amount: i64,
        now: DateTime<Utc>,
    ) -> Result<Vec<RefundPart>, StoreError> {
        let txn = self.write().await?;
        // Locked first: a caller racing this one with the same key waits, then finds its parts.
        let row = bookings::Entity::find_by_id(booking)
            .lock_exclusive()
            .one(&txn)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("refunded booking {booking} vanished")))?;
        let earlier = decided(&txn, key).await?;
        if !earlier.is_empty() {
            return Ok(earlier);
        }
        let Some(own) = row.payment_intent_id.clone() else {
            return Ok(Vec::new());
        };
        let raises: Vec<(String, i64)> = bid_raises::Entity::find()
            .select_only()
            .column(bid_raises::Column::PaymentIntentId)
            .column(bid_raises::Column::Amount)
            .filter(bid_raises::Column::BookingId.eq(booking))
            .filter(bid_raises::Column::Status.eq(raise_status::PAID))
            .filter(bid_raises::Column::PaymentIntentId.is_not_null())
            .order_by_asc(bid_raises::Column::PaidAt)
            .into_tuple()
            .all(&txn)
            .await?;
        let raised: i64 = raises.iter().map(|(_, a)| a).sum();
        let before: Vec<(String, i64)> = refund_parts::Entity::find()
            .select_only()
            .column(refund_parts::Column::PaymentIntentId)
            .column(refund_parts::Column::Amount)
            .filter(refund_parts::Column::BookingId.eq(booking))
            .into_tuple()
            .all(&txn)
            .await?;
        let refunded = |intent: &str| {
            before
                .iter()
                .filter(|(i, _)| i == intent)
                .map(|(_, a)| a)
                .sum::<i64>()
        };
        let intents: Vec<Refundable> = std::iter::once((own, row.price_amount - raised))
            .chain(raises)
            .map(|(intent, charged)| Refundable {
                refunded: refunded(&intent),
                intent,
                charged,
            })
            .collect();
        let parts = split_refund(amount, &intents).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "a refund of {amount} from booking {booking} is more than its payments have left"
            ))
        })?;
        for (n, (intent, part)) in parts.iter().enumerate() {
            let row = refund_parts::ActiveModel {
                refund_key: Set(key.to_owned()),
                payment_intent_id: Set(intent.clone()),
                booking_id: Set(booking),
                amount: Set(*part),
                refund_id: Set(None),
                // Ordered as decided, the latest paid first.
                created_at: Set(now + chrono::Duration::microseconds(n as i64)),
            };
            refund_parts::Entity::insert(row)
                .on_conflict(
                    OnConflict::columns([
                        refund_parts::Column::RefundKey,
                        refund_parts::Column::PaymentIntentId,
                    ])
                    .do_nothing()
                    .to_owned(),
                )
                .exec_without_returning(&txn)
                .await?;
        }
        // What is stored is what stands.
        let stored = decided(&txn, key).await?;
        txn.commit().await?;
        Ok(stored)
    }

    /// Records the payment provider's refund of part `intent` of refund `key`.
    pub async fn refund_part_made(
        &self,
        key: &str,
        intent: &str,
        refund_id: &str,
    ) -> Result<(), StoreError> {
        refund_parts::Entity::update_many()
            .col_expr(refund_parts::Column::RefundId, Expr::value(refund_id))
            .filter(refund_parts::Column::RefundKey.eq(key))
            .filter(refund_parts::Column::PaymentIntentId.eq(intent))
            .filter(refund_parts::Column::RefundId.is_null())
            .exec(self.conn())
            .await?;
        Ok(())
    }
}
