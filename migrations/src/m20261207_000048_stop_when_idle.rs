//! Bookings that end when idle (issue 59): `bookings.stop_when_idle_secs`, the seconds without a
//! gateway request after which a gateway-only booking is cancelled as its renter would cancel
//! it. Absent (no such stop) on every row before.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Bookings {
    Table,
    StopWhenIdleSecs,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Bookings::Table)
                    .add_column(integer_null(Bookings::StopWhenIdleSecs))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Bookings::Table)
                    .drop_column(Bookings::StopWhenIdleSecs)
                    .to_owned(),
            )
            .await
    }
}
