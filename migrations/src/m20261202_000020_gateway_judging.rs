//! What judging a guarantee needs, kept where it is read:
//! - per report cell, the figures of the standard's derived figures (`ttft_ms_p99`,
//!   `ttft_samples`, `itl_ms_p99`, `tokens_per_chunk`; prefill cells already keep their
//!   `prompt_tok_s`), filled for existing reports from their signed envelopes by a start-up
//!   job of the application (this migration reads no envelope), which marks each report it
//!   has read (`cell_figures_filled`);
//! - per gateway request, the token-bearing chunks the client received, when its last token
//!   arrived, and the most requests the engine itself said it ran meanwhile (a booking with
//!   direct access can load the engine around the gateway);
//! - per listing, when a credit last brought its spot check forward (at most once per
//!   `spot_check_every_secs`);
//! - the streams open through the gateway, shared by every API replica on PostgreSQL without
//!   Redis: leased rows, a crashed replica's expiring with their lease.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// SQLite adds one column per statement.
async fn add(
    manager: &SchemaManager<'_>,
    table: impl IntoIden,
    column: ColumnDef,
) -> Result<(), DbErr> {
    let mut column = column;
    manager
        .alter_table(
            Table::alter()
                .table(table)
                .add_column(&mut column)
                .to_owned(),
        )
        .await
}

async fn drop(
    manager: &SchemaManager<'_>,
    table: impl IntoIden,
    column: impl IntoIden,
) -> Result<(), DbErr> {
    manager
        .alter_table(Table::alter().table(table).drop_column(column).to_owned())
        .await
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add(
            manager,
            ReportCells::Table,
            double_null(ReportCells::TtftMsP99),
        )
        .await?;
        add(
            manager,
            ReportCells::Table,
            big_integer_null(ReportCells::TtftSamples),
        )
        .await?;
        add(
            manager,
            ReportCells::Table,
            double_null(ReportCells::ItlMsP99),
        )
        .await?;
        add(
            manager,
            ReportCells::Table,
            double_null(ReportCells::TokensPerChunk),
        )
        .await?;
        add(
            manager,
            Reports::Table,
            boolean(Reports::CellFiguresFilled)
                .default(false)
                .to_owned(),
        )
        .await?;
        add(
            manager,
            GatewayRequests::Table,
            big_integer_null(GatewayRequests::Chunks),
        )
        .await?;
        add(
            manager,
            GatewayRequests::Table,
            double_null(GatewayRequests::LastTokenMs),
        )
        .await?;
        add(
            manager,
            GatewayRequests::Table,
            integer_null(GatewayRequests::EngineLoad),
        )
        .await?;
        add(
            manager,
            Listings::Table,
            timestamp_with_time_zone_null(Listings::SpotCheckForwardedAt),
        )
        .await?;
        manager
            .create_table(
                Table::create()
                    .table(GatewayStreams::Table)
                    .col(pk_uuid(GatewayStreams::Id))
                    .col(uuid(GatewayStreams::BookingId))
                    .col(uuid(GatewayStreams::ListingId))
                    .col(timestamp_with_time_zone(GatewayStreams::ExpiresAt))
                    .col(integer(GatewayStreams::Peak))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("gateway_streams_by_listing")
                    .table(GatewayStreams::Table)
                    .col(GatewayStreams::ListingId)
                    .col(GatewayStreams::ExpiresAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(GatewayStreams::Table).to_owned())
            .await?;
        drop(manager, Listings::Table, Listings::SpotCheckForwardedAt).await?;
        drop(manager, GatewayRequests::Table, GatewayRequests::EngineLoad).await?;
        drop(
            manager,
            GatewayRequests::Table,
            GatewayRequests::LastTokenMs,
        )
        .await?;
        drop(manager, GatewayRequests::Table, GatewayRequests::Chunks).await?;
        drop(manager, Reports::Table, Reports::CellFiguresFilled).await?;
        drop(manager, ReportCells::Table, ReportCells::TokensPerChunk).await?;
        drop(manager, ReportCells::Table, ReportCells::ItlMsP99).await?;
        drop(manager, ReportCells::Table, ReportCells::TtftSamples).await?;
        drop(manager, ReportCells::Table, ReportCells::TtftMsP99).await
    }
}

#[derive(DeriveIden)]
enum ReportCells {
    Table,
    TtftMsP99,
    TtftSamples,
    ItlMsP99,
    TokensPerChunk,
}

#[derive(DeriveIden)]
enum Reports {
    Table,
    CellFiguresFilled,
}

#[derive(DeriveIden)]
enum GatewayRequests {
    Table,
    Chunks,
    LastTokenMs,
    EngineLoad,
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    SpotCheckForwardedAt,
}

#[derive(DeriveIden)]
enum GatewayStreams {
    Table,
    Id,
    BookingId,
    ListingId,
    ExpiresAt,
    Peak,
}
