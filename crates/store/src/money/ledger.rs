//! The ledger: rows only ever inserted, one per movement of money; recording a movement twice
//! (the same kind and Stripe object) is a no-op.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait};
use uuid::Uuid;

use crate::StoreError;
use crate::entities::ledger_entries;

pub type LedgerRecord = ledger_entries::Model;

/// A ledger row to record.
#[derive(Debug, Clone)]
pub struct NewLedgerEntry {
    pub booking_id: Uuid,
    pub org_id: Uuid,
    pub renter_id: Uuid,
    pub kind: domain::LedgerKind,
    pub amount: domain::Money,
    pub stripe_object_id: Option<String>,
}

/// Records `entries` on `conn` (inside the transaction that moved the money).
pub(crate) async fn insert_ledger(
    conn: &impl ConnectionTrait,
    entries: &[NewLedgerEntry],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    for e in entries {
        let row = ledger_entries::ActiveModel {
            id: Set(Uuid::now_v7()),
            booking_id: Set(e.booking_id),
            org_id: Set(e.org_id),
            renter_id: Set(e.renter_id),
            kind: Set(e.kind.as_str().to_owned()),
            amount: Set(e.amount.minor()),
            currency: Set(e.amount.currency().code().to_owned()),
            stripe_object_id: Set(e.stripe_object_id.clone()),
            created_at: Set(now),
        };
        ledger_entries::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([
                    ledger_entries::Column::Kind,
                    ledger_entries::Column::StripeObjectId,
                ])
                .do_nothing()
                .to_owned(),
            )
            .exec_without_returning(conn)
            .await?;
    }
    Ok(())
}
