//! Pro: an organisation's plan as Stripe Billing holds it. One row per organisation that
//! ever started a checkout: its Stripe Customer (created once), its current subscription and
//! that subscription's state as last read from Stripe (never from an event's copy), and since
//! when a payment is overdue (for the grace period).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(OrgBilling::Table)
                    .col(pk_uuid(OrgBilling::OrgId))
                    .col(string_uniq(OrgBilling::StripeCustomerId))
                    .col(string_null(OrgBilling::SubscriptionId))
                    .col(string_null(OrgBilling::SubscriptionStatus))
                    .col(timestamp_with_time_zone_null(OrgBilling::CurrentPeriodEnd))
                    .col(boolean(OrgBilling::CancelAtPeriodEnd).default(false))
                    .col(timestamp_with_time_zone_null(OrgBilling::PastDueSince))
                    .col(timestamp_with_time_zone(OrgBilling::CreatedAt))
                    .col(timestamp_with_time_zone(OrgBilling::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(OrgBilling::Table, OrgBilling::OrgId)
                            .to(Orgs::Table, Orgs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(OrgBilling::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum OrgBilling {
    Table,
    OrgId,
    StripeCustomerId,
    SubscriptionId,
    SubscriptionStatus,
    CurrentPeriodEnd,
    CancelAtPeriodEnd,
    PastDueSince,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Orgs {
    Table,
    Id,
}
