//! A failed or cancelled run's failure *code*: the stable word public views show (the detail,
//! which may quote the engine, stays with the provider's members).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(VerificationRuns::Table)
                    .add_column(string_null(VerificationRuns::FailureCode))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(VerificationRuns::Table)
                    .drop_column(VerificationRuns::FailureCode)
                    .to_owned(),
            )
            .await
    }
}

#[derive(DeriveIden)]
enum VerificationRuns {
    Table,
    FailureCode,
}
