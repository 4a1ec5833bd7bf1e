//! Containers per booking (issue 58): what the agent's heartbeat says of each booking's
//! container (its GPUs by UUID and its state, JSON text, beside its accounts), and a
//! container's logs asked of its machine's agent by the booking's renter (`container_logs`: one
//! row per booking, the last request and the agent's answer). Absent on every row before.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AgentHeartbeats {
    Table,
    Containers,
}

#[derive(DeriveIden)]
enum ContainerLogs {
    Table,
    BookingId,
    ListingId,
    RequestId,
    Tail,
    RequestedAt,
    ReceivedAt,
    Text,
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
            .alter_table(
                Table::alter()
                    .table(AgentHeartbeats::Table)
                    .add_column(text_null(AgentHeartbeats::Containers))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ContainerLogs::Table)
                    .col(uuid(ContainerLogs::BookingId).primary_key())
                    .col(uuid(ContainerLogs::ListingId))
                    .col(uuid(ContainerLogs::RequestId))
                    .col(integer(ContainerLogs::Tail))
                    .col(timestamp_with_time_zone(ContainerLogs::RequestedAt))
                    .col(timestamp_with_time_zone_null(ContainerLogs::ReceivedAt))
                    .col(text_null(ContainerLogs::Text))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ContainerLogs::Table, ContainerLogs::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("container_logs_listing_requested")
                    .table(ContainerLogs::Table)
                    .col(ContainerLogs::ListingId)
                    .col(ContainerLogs::RequestedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ContainerLogs::Table).to_owned())
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(AgentHeartbeats::Table)
                    .drop_column(AgentHeartbeats::Containers)
                    .to_owned(),
            )
            .await
    }
}
