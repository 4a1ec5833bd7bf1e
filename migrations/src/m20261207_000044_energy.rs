//! Energy per token (issue 57): a run's GPU samples, asked of the listing's agent once the run
//! has measured (`requested_at`, the window `from_at`..`until_at`) and kept as the agent
//! uploaded them (`samples`, JSON text, at `received_at`); each report cell's energy per token
//! where it was plausible, and the search projection's, ordered by an index per cell.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RunTelemetry {
    Table,
    RunId,
    ListingId,
    FromAt,
    UntilAt,
    RequestedAt,
    ReceivedAt,
    Samples,
}

#[derive(DeriveIden)]
enum ReportCells {
    Table,
    EnergyJPerToken,
}

#[derive(DeriveIden)]
enum ListingCells {
    Table,
    ContextTokens,
    Concurrency,
    ListingId,
    EnergyJPerToken,
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
                    .table(RunTelemetry::Table)
                    .col(uuid(RunTelemetry::RunId).primary_key())
                    .col(uuid(RunTelemetry::ListingId))
                    .col(timestamp_with_time_zone(RunTelemetry::FromAt))
                    .col(timestamp_with_time_zone(RunTelemetry::UntilAt))
                    .col(timestamp_with_time_zone(RunTelemetry::RequestedAt))
                    .col(timestamp_with_time_zone_null(RunTelemetry::ReceivedAt))
                    .col(text_null(RunTelemetry::Samples))
                    .foreign_key(
                        ForeignKey::create()
                            .from(RunTelemetry::Table, RunTelemetry::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("run_telemetry_listing_requested")
                    .table(RunTelemetry::Table)
                    .col(RunTelemetry::ListingId)
                    .col(RunTelemetry::RequestedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ReportCells::Table)
                    .add_column(double_null(ReportCells::EnergyJPerToken))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ListingCells::Table)
                    .add_column(double_null(ListingCells::EnergyJPerToken))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_listing_cells_j_per_token")
                    .table(ListingCells::Table)
                    .col(ListingCells::ContextTokens)
                    .col(ListingCells::Concurrency)
                    .col(ListingCells::EnergyJPerToken)
                    .col(ListingCells::ListingId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_listing_cells_j_per_token")
                    .table(ListingCells::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ListingCells::Table)
                    .drop_column(ListingCells::EnergyJPerToken)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ReportCells::Table)
                    .drop_column(ReportCells::EnergyJPerToken)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(RunTelemetry::Table).to_owned())
            .await
    }
}
