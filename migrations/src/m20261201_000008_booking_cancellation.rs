//! A cancellation recorded before any money moves: when it was asked for (its refund is fixed
//! then, in `refund_amount`), and until when one caller holds the right to talk to the payment
//! provider about it. Concurrent and retried cancels reuse the one recorded amount.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn columns() -> Vec<ColumnDef> {
    vec![
        timestamp_with_time_zone_null(Bookings::CancelRequestedAt),
        timestamp_with_time_zone_null(Bookings::CancelClaimedUntil),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite alters one column per statement.
        for column in columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(Bookings::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(Bookings::Table)
                        .drop_column(column.get_column_name())
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    CancelRequestedAt,
    CancelClaimedUntil,
}
