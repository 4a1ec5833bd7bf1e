//! A listing's catalog entries: the ids of its GPU (`GET /v1/hardware`) and model
//! (`GET /v1/models`), optional. With both, verification checks figures against physics.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite adds one column per statement.
        for column in [Listings::CatalogGpu, Listings::CatalogModel] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Listings::Table)
                        .add_column(string_null(column))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Listings::CatalogGpu, Listings::CatalogModel] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Listings::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    CatalogGpu,
    CatalogModel,
}
