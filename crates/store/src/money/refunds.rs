//! How a refund of a booking is split across the PaymentIntents that paid it — its own and each
//! paid bid raise — decided once per refund (its idempotency key) under the booking's lock, so
//! that a retry, or another replica, repeats exactly the same requests.

use chrono::{DateTime, Utc};
use domain::ledger::{Refundable, split_refund};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::{bid_raises, bookings, refund_parts};
use crate::{Db, StoreError};

impl Db {
    /// The parts of refund `key` of `amount` from booking `booking`: `(intent, amount)`, the
    /// latest paid intent first. Decided the first time it is asked for (nothing decided for a
    /// booking without an intent); afterwards the same parts whatever was paid or refunded
    /// since. An error when the booking's intents have less left than `amount`.
    pub async fn refund_parts(
        &self,
        booking: Uuid,
        key: &str,
        amount: i64,
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let txn = self.write().await?;
        let decided = |rows: Vec<refund_parts::Model>| {
            let mut parts: Vec<_> = rows
                .into_iter()
                .map(|p| (p.created_at, p.payment_intent_id, p.amount))
                .collect();
            parts.sort();
            parts
                .into_iter()
                .map(|(_, i, a)| (i, a))
                .collect::<Vec<_>>()
        };
        let earlier = refund_parts::Entity::find()
            .filter(refund_parts::Column::RefundKey.eq(key))
            .all(&txn)
            .await?;
        if !earlier.is_empty() {
            return Ok(decided(earlier));
        }
        let row = bookings::Entity::find_by_id(booking)
            .lock_exclusive()
            .one(&txn)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("refunded booking {booking} vanished")))?;
        let Some(own) = row.payment_intent_id.clone() else {
            return Ok(Vec::new());
        };
        let raises: Vec<(String, i64)> = bid_raises::Entity::find()
            .select_only()
            .column(bid_raises::Column::PaymentIntentId)
            .column(bid_raises::Column::Amount)
            .filter(bid_raises::Column::BookingId.eq(booking))
            .filter(bid_raises::Column::Status.eq(crate::status::raise_status::PAID))
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
        txn.commit().await?;
        Ok(parts)
    }
}
