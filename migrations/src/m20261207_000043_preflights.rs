//! Preflights (issue 57): each listing's checks before verification, one row per preflight
//! (a member's, a verification request's, a run's start), its checks as JSON text. A member's
//! counts in the organisation's daily verification budget, so the rows are kept, not
//! replaced; a run's row names its run, so a spot check's is shown only once the check ends.
//! The agent's heartbeat gains what the agent checks read: its clock's offset from the
//! server's, and each GPU's health.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Preflights {
    Table,
    Id,
    ListingId,
    OrgId,
    RunId,
    Kind,
    Passed,
    Checks,
    CreatedAt,
    FinishedAt,
}

#[derive(DeriveIden)]
enum AgentHeartbeats {
    Table,
    ClockOffsetMs,
    GpuHealth,
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Preflights::Table)
                    .col(uuid(Preflights::Id).primary_key())
                    .col(uuid(Preflights::ListingId))
                    .col(uuid(Preflights::OrgId))
                    .col(uuid_null(Preflights::RunId))
                    .col(text(Preflights::Kind))
                    .col(boolean(Preflights::Passed))
                    .col(text(Preflights::Checks))
                    .col(timestamp_with_time_zone(Preflights::CreatedAt))
                    .col(timestamp_with_time_zone_null(Preflights::FinishedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Preflights::Table, Preflights::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("preflights_listing_created")
                    .table(Preflights::Table)
                    .col(Preflights::ListingId)
                    .col(Preflights::CreatedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("preflights_org_created")
                    .table(Preflights::Table)
                    .col(Preflights::OrgId)
                    .col(Preflights::CreatedAt)
                    .to_owned(),
            )
            .await?;
        // SQLite adds one column per statement.
        manager
            .alter_table(
                Table::alter()
                    .table(AgentHeartbeats::Table)
                    .add_column(big_integer_null(AgentHeartbeats::ClockOffsetMs))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(AgentHeartbeats::Table)
                    .add_column(text_null(AgentHeartbeats::GpuHealth))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [AgentHeartbeats::GpuHealth, AgentHeartbeats::ClockOffsetMs] {
            manager
                .alter_table(
                    Table::alter()
                        .table(AgentHeartbeats::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .drop_table(Table::drop().table(Preflights::Table).to_owned())
            .await
    }
}
