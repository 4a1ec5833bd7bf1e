//! What accounts and limits read:
//! - `login_networks`: the networks (an IPv4 address, or an IPv6 prefix) each account has
//!   signed in from, and when last; a network that signed in lately is never delayed by the
//!   cap on an account's failed logins, so a stranger's guessing cannot lock the owner out;
//! - an index on `refresh_tokens.revoked_at`, for the sessions ended lately that every
//!   replica reads at start and whenever it may have missed news;
//! - `report_shares.prefix`: a share link's first characters, so its makers can tell links
//!   apart when they list them (links made before have none).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(LoginNetworks::Table)
                    .col(uuid(LoginNetworks::UserId))
                    .col(string(LoginNetworks::Network))
                    .col(timestamp_with_time_zone(LoginNetworks::LastSuccessAt))
                    .primary_key(
                        Index::create()
                            .col(LoginNetworks::UserId)
                            .col(LoginNetworks::Network),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(LoginNetworks::Table, LoginNetworks::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_refresh_tokens_revoked_at")
                    .table(RefreshTokens::Table)
                    .col(RefreshTokens::RevokedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ReportShares::Table)
                    .add_column(string_null(ReportShares::Prefix))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ReportShares::Table)
                    .drop_column(ReportShares::Prefix)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_refresh_tokens_revoked_at")
                    .table(RefreshTokens::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(LoginNetworks::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum LoginNetworks {
    Table,
    UserId,
    Network,
    LastSuccessAt,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum ReportShares {
    Table,
    Prefix,
}

#[derive(DeriveIden)]
enum RefreshTokens {
    Table,
    RevokedAt,
}
