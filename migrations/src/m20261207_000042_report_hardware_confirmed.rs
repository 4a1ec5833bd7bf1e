//! Whether a report's machine was confirmed by its agent when the report was made (issue 56):
//! `reports.hardware_confirmed`, copied from `listings.hardware_confirmed` as the report is
//! stored. It is the machine's word, beside the signed report, not in it. Reports made before
//! it are `false`: their hardware is as claimed.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Reports {
    Table,
    HardwareConfirmed,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Reports::Table)
                    .add_column(boolean(Reports::HardwareConfirmed).default(false))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Reports::Table)
                    .drop_column(Reports::HardwareConfirmed)
                    .to_owned(),
            )
            .await
    }
}
