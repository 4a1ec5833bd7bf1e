//! Signed uptime statements: once a period (a UTC day by default) per listing with
//! observations in it, an in-toto statement of its up and down intervals and maintenance,
//! signed like reports and logged. One per listing and period (`period_start`).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(UptimeStatements::Table)
                    .col(pk_uuid(UptimeStatements::Id))
                    .col(uuid(UptimeStatements::ListingId))
                    .col(timestamp_with_time_zone(UptimeStatements::PeriodStart))
                    .col(timestamp_with_time_zone(UptimeStatements::PeriodEnd))
                    .col(double_null(UptimeStatements::Uptime))
                    .col(text(UptimeStatements::Envelope))
                    .col(timestamp_with_time_zone(UptimeStatements::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(UptimeStatements::Table, UptimeStatements::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_uptime_statements_period")
                    .table(UptimeStatements::Table)
                    .col(UptimeStatements::ListingId)
                    .col(UptimeStatements::PeriodStart)
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(UptimeStatements::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum UptimeStatements {
    Table,
    Id,
    ListingId,
    PeriodStart,
    PeriodEnd,
    Uptime,
    Envelope,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    Id,
}
