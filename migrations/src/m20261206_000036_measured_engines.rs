//! The engine a listing's verification measured (issue 55): `listings.measured_engine`, the
//! `engine.name` of its latest verified report, kept beside the headline figures (and cleared
//! with them), for search and offers to filter by (`engine=`); indexed. `NULL` while
//! unverified, and for badges granted before engines were named.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Listings {
    Table,
    MeasuredEngine,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .add_column(string_null(Listings::MeasuredEngine))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_listings_measured_engine")
                    .table(Listings::Table)
                    .col(Listings::MeasuredEngine)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_listings_measured_engine")
                    .table(Listings::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .drop_column(Listings::MeasuredEngine)
                    .to_owned(),
            )
            .await
    }
}
