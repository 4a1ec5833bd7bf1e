//! Payments: providers' Connect accounts, the payment state of bookings, the ledger (rows
//! only ever inserted; recording a movement twice is a no-op) and processed webhook events.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::entities::{bookings, ledger_entries, payout_accounts, stripe_events};
use crate::money::ledger::{LedgerRecord, NewLedgerEntry, insert_ledger};
use crate::status::move_to;
use crate::{Db, StoreError};
use domain::BookingStatus;
use domain::webhook::Event;

pub type PayoutAccountRecord = payout_accounts::Model;

impl Db {
    pub async fn payout_account(
        &self,
        org: Uuid,
    ) -> Result<Option<PayoutAccountRecord>, StoreError> {
        Ok(payout_accounts::Entity::find_by_id(org)
            .one(self.conn())
            .await?)
    }

    /// Records an organisation's connected account unless it has one; returns the one kept.
    pub async fn keep_payout_account(
        &self,
        org: Uuid,
        stripe_account_id: &str,
        (charges_enabled, payouts_enabled): (bool, bool),
        now: DateTime<Utc>,
    ) -> Result<PayoutAccountRecord, StoreError> {
        let row = payout_accounts::ActiveModel {
            org_id: Set(org),
            stripe_account_id: Set(stripe_account_id.to_owned()),
            charges_enabled: Set(charges_enabled),
            payouts_enabled: Set(payouts_enabled),
            created_at: Set(now),
            updated_at: Set(now),
        };
        payout_accounts::Entity::insert(row)
            .on_conflict(
                OnConflict::column(payout_accounts::Column::OrgId)
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(self.conn())
            .await?;
        self.payout_account(org)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("payout account of {org} vanished")))
    }

    /// Updates what Stripe says an account may do; `false` when no organisation has it.
    pub async fn update_payout_account(
        &self,
        stripe_account_id: &str,
        (charges_enabled, payouts_enabled): (bool, bool),
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let result = payout_accounts::Entity::update_many()
            .col_expr(
                payout_accounts::Column::ChargesEnabled,
                Expr::value(charges_enabled),
            )
            .col_expr(
                payout_accounts::Column::PayoutsEnabled,
                Expr::value(payouts_enabled),
            )
            .col_expr(payout_accounts::Column::UpdatedAt, Expr::value(now))
            .filter(payout_accounts::Column::StripeAccountId.eq(stripe_account_id))
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected > 0)
    }

    /// Attaches the PaymentIntent created for a pending booking.
    pub async fn attach_payment_intent(
        &self,
        booking: Uuid,
        intent: &str,
        client_secret: Option<&str>,
    ) -> Result<(), StoreError> {
        bookings::Entity::update_many()
            .col_expr(bookings::Column::PaymentIntentId, Expr::value(intent))
            .col_expr(bookings::Column::ClientSecret, Expr::value(client_secret))
            .filter(bookings::Column::Id.eq(booking))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// Records why a payment step failed; with `release`, a booking still waiting for its
    /// payment is let go (`expired`), freeing its GPUs. Returns whether it was released.
    pub async fn payment_failed(
        &self,
        booking: Uuid,
        error: &str,
        release: bool,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        bookings::Entity::update_many()
            .col_expr(bookings::Column::PaymentError, Expr::value(error))
            .filter(bookings::Column::Id.eq(booking))
            .exec(self.conn())
            .await?;
        if !release {
            return Ok(false);
        }
        let result = move_to(
            bookings::Entity::update_many(),
            bookings::Column::Status,
            BookingStatus::Expired,
        )
        .filter(bookings::Column::Id.eq(booking))
        .exec(self.conn())
        .await?;
        Ok(result.rows_affected == 1)
    }

    pub async fn booking_by_intent(
        &self,
        intent: &str,
    ) -> Result<Option<crate::BookingRecord>, StoreError> {
        Ok(bookings::Entity::find()
            .filter(bookings::Column::PaymentIntentId.eq(intent))
            .one(self.conn())
            .await?)
    }

    /// Confirms a booking waiting for its payment and records the money, in one
    /// transaction. `false` (and nothing recorded) when it was not waiting any more.
    pub async fn confirm_paid(
        &self,
        booking: Uuid,
        ledger: &[NewLedgerEntry],
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let result = move_to(
            bookings::Entity::update_many(),
            bookings::Column::Status,
            BookingStatus::Confirmed,
        )
        .col_expr(
            bookings::Column::HoldExpiresAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        // A cancellation recorded while it was unpaid refunded nothing; paid now, a
        // cancel must work its refund out afresh.
        .col_expr(
            bookings::Column::CancelRequestedAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(
            bookings::Column::RefundAmount,
            Expr::value(Option::<i64>::None),
        )
        .filter(bookings::Column::Id.eq(booking))
        .exec(&txn)
        .await?;
        if result.rows_affected == 0 {
            return Ok(false);
        }
        insert_ledger(&txn, ledger, now).await?;
        if let Some(record) = bookings::Entity::find_by_id(booking).one(&txn).await? {
            let event = Event::BookingConfirmed(crate::outbox::booking_facts(&record)?);
            crate::outbox::emit(&txn, &event, now).await?;
        }
        txn.commit().await?;
        Ok(true)
    }

    /// Records money movements (each kind once per Stripe object).
    pub async fn record_ledger(
        &self,
        entries: &[NewLedgerEntry],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let txn = self.write().await?;
        insert_ledger(&txn, entries, now).await?;
        txn.commit().await?;
        Ok(())
    }

    pub async fn ledger_of_org(&self, org: Uuid) -> Result<Vec<LedgerRecord>, StoreError> {
        Ok(ledger_entries::Entity::find()
            .filter(ledger_entries::Column::OrgId.eq(org))
            .order_by_asc(ledger_entries::Column::CreatedAt)
            .order_by_asc(ledger_entries::Column::Id)
            .all(self.conn())
            .await?)
    }

    pub async fn ledger_of_renter(&self, renter: Uuid) -> Result<Vec<LedgerRecord>, StoreError> {
        Ok(ledger_entries::Entity::find()
            .filter(ledger_entries::Column::RenterId.eq(renter))
            .order_by_asc(ledger_entries::Column::CreatedAt)
            .order_by_asc(ledger_entries::Column::Id)
            .all(self.conn())
            .await?)
    }

    pub async fn ledger_of_booking(&self, booking: Uuid) -> Result<Vec<LedgerRecord>, StoreError> {
        Ok(ledger_entries::Entity::find()
            .filter(ledger_entries::Column::BookingId.eq(booking))
            .order_by_asc(ledger_entries::Column::CreatedAt)
            .order_by_asc(ledger_entries::Column::Id)
            .all(self.conn())
            .await?)
    }

    pub async fn event_processed(&self, id: &str) -> Result<bool, StoreError> {
        Ok(stripe_events::Entity::find_by_id(id.to_owned())
            .one(self.conn())
            .await?
            .is_some())
    }

    /// Marks an event processed; `false` when it already was.
    pub async fn mark_event_processed(
        &self,
        id: &str,
        kind: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let row = stripe_events::ActiveModel {
            id: Set(id.to_owned()),
            kind: Set(kind.to_owned()),
            processed_at: Set(now),
        };
        let inserted = stripe_events::Entity::insert(row)
            .on_conflict(
                OnConflict::column(stripe_events::Column::Id)
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(self.conn())
            .await?;
        Ok(inserted > 0)
    }

    /// Cancels a booking that still holds capacity, records the refund due and the money
    /// moved back, in one transaction; `false` when it could no longer be cancelled.
    pub async fn cancel_booking_with_ledger(
        &self,
        id: Uuid,
        refund: i64,
        ledger: &[NewLedgerEntry],
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        if !crate::capacity::cancel(&txn, id, refund, now).await? {
            return Ok(false);
        }
        insert_ledger(&txn, ledger, now).await?;
        txn.commit().await?;
        Ok(true)
    }
}
