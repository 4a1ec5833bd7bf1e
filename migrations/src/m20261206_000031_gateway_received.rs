//! What the guarantee's judging reads of a gateway request, beside its chunks: the bytes of
//! text the client received (a token is at least a byte, so an engine splitting its chunks
//! or inflating its usage is believed no further than the text it sent) and the
//! `max_tokens` the engine was sent. Rows recorded before keep `NULL`: judging leaves out
//! the bounds it lacks.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite adds one column per statement.
        for column in [GatewayRequests::TextBytes, GatewayRequests::MaxTokens] {
            manager
                .alter_table(
                    Table::alter()
                        .table(GatewayRequests::Table)
                        .add_column(big_integer_null(column))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [GatewayRequests::MaxTokens, GatewayRequests::TextBytes] {
            manager
                .alter_table(
                    Table::alter()
                        .table(GatewayRequests::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden, Clone, Copy)]
enum GatewayRequests {
    Table,
    TextBytes,
    MaxTokens,
}
