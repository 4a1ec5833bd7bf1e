//! Each part of a split refund keeps the payment provider's refund once made
//! (`refund_parts.refund_id`), so a retry asks for nothing it already has — Stripe's
//! idempotency keys last a day, a part made must hold for good.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RefundParts {
    Table,
    RefundId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(RefundParts::Table)
                    .add_column(string_len_null(RefundParts::RefundId, 255))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(RefundParts::Table)
                    .drop_column(RefundParts::RefundId)
                    .to_owned(),
            )
            .await
    }
}
