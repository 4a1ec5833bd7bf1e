//! Budgets (issue 59): a person's monthly spending cap (`budgets`: one row per person, its
//! amount in minor units and its currency), and the alerts already sent for a month
//! (`budget_alerts`: one row per person, calendar month `YYYY-MM` and kind, so each is sent once).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Budgets {
    Table,
    UserId,
    AmountPerMonth,
    Currency,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum BudgetAlerts {
    Table,
    UserId,
    Month,
    Kind,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Budgets::Table)
                    .col(uuid(Budgets::UserId).primary_key())
                    .col(big_integer(Budgets::AmountPerMonth))
                    .col(string_len(Budgets::Currency, 3))
                    .col(timestamp_with_time_zone(Budgets::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Budgets::Table, Budgets::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(BudgetAlerts::Table)
                    .col(uuid(BudgetAlerts::UserId))
                    .col(string_len(BudgetAlerts::Month, 7))
                    .col(string_len(BudgetAlerts::Kind, 16))
                    .col(timestamp_with_time_zone(BudgetAlerts::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(BudgetAlerts::UserId)
                            .col(BudgetAlerts::Month)
                            .col(BudgetAlerts::Kind),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(BudgetAlerts::Table, BudgetAlerts::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(BudgetAlerts::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Budgets::Table).to_owned())
            .await
    }
}
