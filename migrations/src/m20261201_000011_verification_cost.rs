//! What a listing's last verification cost the provider (standard, "Cost"): the report's
//! `cost` object as JSON, kept on the listing so that listings and search show it without
//! reading reports.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .add_column(text_null(Listings::LastVerificationCost))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .drop_column(Listings::LastVerificationCost)
                    .to_owned(),
            )
            .await
    }
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    LastVerificationCost,
}
