//! The metered gateway: one row per request a renter sends through
//! `/v1/gateway/{booking_id}/…` — what was metered (prompt and output tokens), what the engine
//! claimed, and what the gateway itself saw of the delivery (time to first token, per-stream
//! speed, streams open at once).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(GatewayRequests::Table)
                    .col(pk_uuid(GatewayRequests::Id))
                    .col(uuid(GatewayRequests::BookingId))
                    .col(string(GatewayRequests::Endpoint))
                    .col(timestamp_with_time_zone(GatewayRequests::StartedAt))
                    .col(timestamp_with_time_zone(GatewayRequests::FinishedAt))
                    .col(big_integer(GatewayRequests::PromptTokens))
                    .col(big_integer(GatewayRequests::OutputTokens))
                    .col(big_integer_null(GatewayRequests::EngineOutputTokens))
                    .col(double_null(GatewayRequests::TtftMs))
                    .col(double_null(GatewayRequests::PerStreamTokS))
                    .col(integer(GatewayRequests::Concurrency))
                    .col(string(GatewayRequests::Outcome))
                    .foreign_key(
                        ForeignKey::create()
                            .from(GatewayRequests::Table, GatewayRequests::BookingId)
                            .to(Bookings::Table, Bookings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_gateway_requests_booking")
                    .table(GatewayRequests::Table)
                    .col(GatewayRequests::BookingId)
                    .col(GatewayRequests::StartedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(GatewayRequests::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum GatewayRequests {
    Table,
    Id,
    BookingId,
    Endpoint,
    StartedAt,
    FinishedAt,
    PromptTokens,
    OutputTokens,
    EngineOutputTokens,
    TtftMs,
    PerStreamTokS,
    Concurrency,
    Outcome,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    Id,
}
