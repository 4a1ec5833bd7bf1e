//! A restored log's floor: `gpumarket restore --checkpoint` records the newest checkpoint the
//! log had published before the backup was restored. While the restored log is smaller, every
//! append (and every checkpoint) is refused — the log would fork — until the rollback is
//! accepted (`floor_accepted`), when the next server to start logs a signed rollback statement
//! and clears the floor.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum LogState {
    Table,
    FloorSize,
    FloorRoot,
    FloorNote,
    FloorAccepted,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite alters one column per statement.
        for column in [
            big_integer_null(LogState::FloorSize),
            blob_null(LogState::FloorRoot),
            text_null(LogState::FloorNote),
            boolean(LogState::FloorAccepted).default(false).to_owned(),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(LogState::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            LogState::FloorAccepted,
            LogState::FloorNote,
            LogState::FloorRoot,
            LogState::FloorSize,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(LogState::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
