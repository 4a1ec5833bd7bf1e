//! Webhook delivery that one receiver cannot hold up for everyone (issue 53, item 12):
//!
//! - `webhook_deliveries.claimed_until`: while a worker is sending it (its claim's lease),
//!   so that sends in flight are counted per endpoint and per owner from the database, by
//!   every worker; `NULL` once the attempt is recorded (or never claimed).
//! - `webhook_deliveries.manual`: a test event's delivery, or one sent again by hand: claimed
//!   on its own budget, before any backlog.
//! - `webhook_endpoints.timeout_streak`: attempts in a row that got no answer in time; each
//!   halves the next attempt's timeout (down to a floor), an answer resets it.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    ClaimedUntil,
    Manual,
}

#[derive(DeriveIden)]
enum WebhookEndpoints {
    Table,
    TimeoutStreak,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite adds one column per statement.
        for column in [
            timestamp_with_time_zone_null(WebhookDeliveries::ClaimedUntil),
            boolean(WebhookDeliveries::Manual).default(false).to_owned(),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(WebhookDeliveries::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(WebhookEndpoints::Table)
                    .add_column(integer(WebhookEndpoints::TimeoutStreak).default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_claimed_until")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::ClaimedUntil)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_webhook_deliveries_claimed_until")
                    .table(WebhookDeliveries::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(WebhookEndpoints::Table)
                    .drop_column(WebhookEndpoints::TimeoutStreak)
                    .to_owned(),
            )
            .await?;
        for column in [WebhookDeliveries::Manual, WebhookDeliveries::ClaimedUntil] {
            manager
                .alter_table(
                    Table::alter()
                        .table(WebhookDeliveries::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
