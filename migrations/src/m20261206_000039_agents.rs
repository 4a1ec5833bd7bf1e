//! The provider's agent (issue 56): an organisation's key of scope `agent` is bound to
//! listings (`api_key_listings`), and each listing keeps what its agent last reported of the
//! machine (`listing_agents`: the facts as JSON, when, and how they differ from the listing's
//! claim — an empty list when they match). Both go with their key or listing.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ApiKeyListings {
    Table,
    KeyId,
    ListingId,
}

#[derive(DeriveIden)]
enum ListingAgents {
    Table,
    ListingId,
    Facts,
    ReportedAt,
    Differences,
}

#[derive(DeriveIden)]
enum ApiKeys {
    Table,
    Id,
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
                    .table(ApiKeyListings::Table)
                    .col(uuid(ApiKeyListings::KeyId))
                    .col(uuid(ApiKeyListings::ListingId))
                    .primary_key(
                        Index::create()
                            .col(ApiKeyListings::KeyId)
                            .col(ApiKeyListings::ListingId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ApiKeyListings::Table, ApiKeyListings::KeyId)
                            .to(ApiKeys::Table, ApiKeys::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ApiKeyListings::Table, ApiKeyListings::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ListingAgents::Table)
                    .col(uuid(ListingAgents::ListingId).primary_key())
                    .col(text(ListingAgents::Facts))
                    .col(timestamp_with_time_zone(ListingAgents::ReportedAt))
                    .col(text(ListingAgents::Differences))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ListingAgents::Table, ListingAgents::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ListingAgents::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(ApiKeyListings::Table).to_owned())
            .await
    }
}
