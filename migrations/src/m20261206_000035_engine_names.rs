//! The engine a listing states it runs (issue 55): `listings.engine_name`, one of the
//! standard's dialects (`vllm`, `llamacpp`, `sglang`, `tgi`); `NULL` when it states none. A
//! verification of an engine that speaks another dialect is refused.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Listings {
    Table,
    EngineName,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .add_column(string_null(Listings::EngineName))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .drop_column(Listings::EngineName)
                    .to_owned(),
            )
            .await
    }
}
