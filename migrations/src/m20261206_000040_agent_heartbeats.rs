//! The provider's agent's heartbeats (issue 56): each listing keeps when its agent was last
//! heard, its version and the state of each booking's account as it last said, written when
//! that state changes or once a minute (the seconds between live in Redis or the process).
//! The comparison of the facts with the claim is no longer stored: it is made against the
//! listing as it claims now, each time it is read.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AgentHeartbeats {
    Table,
    ListingId,
    AgentVersion,
    Accounts,
    LastSeenAt,
}

#[derive(DeriveIden)]
enum ListingAgents {
    Table,
    Differences,
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
                    .table(AgentHeartbeats::Table)
                    .col(uuid(AgentHeartbeats::ListingId).primary_key())
                    .col(text(AgentHeartbeats::AgentVersion))
                    .col(text(AgentHeartbeats::Accounts))
                    .col(timestamp_with_time_zone(AgentHeartbeats::LastSeenAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(AgentHeartbeats::Table, AgentHeartbeats::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ListingAgents::Table)
                    .drop_column(ListingAgents::Differences)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ListingAgents::Table)
                    .add_column(text(ListingAgents::Differences).default("[]"))
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(AgentHeartbeats::Table).to_owned())
            .await
    }
}
