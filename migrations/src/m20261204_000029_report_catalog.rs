//! Reports carry the catalog GPU and model their listing claimed when they were stored
//! (`catalog_gpu`, `catalog_model`), so the public list of reports filters by what each report
//! measured, not by what its listing claims now (a listing's catalog claim can be edited; the
//! edit withdraws its badge, and its earlier reports stay). Reports stored before this take
//! their listing's claim at the time of the migration: the best record there is.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one at a time.
        for column in [Reports::CatalogGpu, Reports::CatalogModel] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Reports::Table)
                        .add_column(text_null(column))
                        .to_owned(),
                )
                .await?;
        }
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE reports SET \
                 catalog_gpu = (SELECT catalog_gpu FROM listings WHERE listings.id = reports.listing_id), \
                 catalog_model = (SELECT catalog_model FROM listings WHERE listings.id = reports.listing_id)",
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_reports_catalog_model")
                    .table(Reports::Table)
                    .col(Reports::CatalogModel)
                    .col(Reports::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_reports_catalog_model")
                    .table(Reports::Table)
                    .to_owned(),
            )
            .await?;
        for column in [Reports::CatalogGpu, Reports::CatalogModel] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Reports::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden, Clone, Copy)]
enum Reports {
    Table,
    Id,
    CatalogGpu,
    CatalogModel,
}
