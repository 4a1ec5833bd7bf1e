//! Accounts, credentials, organisations and memberships, and the server's own secrets.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Users::Table)
                    .col(pk_uuid(Users::Id))
                    .col(string_uniq(Users::Email))
                    .col(string(Users::Name))
                    .col(string(Users::PasswordHash))
                    .col(timestamp_with_time_zone(Users::CreatedAt))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(RefreshTokens::Table)
                    .col(pk_uuid(RefreshTokens::Id))
                    .col(uuid(RefreshTokens::UserId))
                    .col(uuid(RefreshTokens::FamilyId))
                    .col(string_uniq(RefreshTokens::TokenHash))
                    .col(timestamp_with_time_zone(RefreshTokens::CreatedAt))
                    .col(timestamp_with_time_zone(RefreshTokens::ExpiresAt))
                    .col(timestamp_with_time_zone_null(RefreshTokens::UsedAt))
                    .col(timestamp_with_time_zone_null(RefreshTokens::RevokedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(RefreshTokens::Table, RefreshTokens::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_refresh_tokens_family")
                    .table(RefreshTokens::Table)
                    .col(RefreshTokens::FamilyId)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ApiKeys::Table)
                    .col(pk_uuid(ApiKeys::Id))
                    .col(uuid(ApiKeys::UserId))
                    .col(string(ApiKeys::Name))
                    .col(string(ApiKeys::Prefix))
                    .col(string_uniq(ApiKeys::KeyHash))
                    .col(timestamp_with_time_zone(ApiKeys::CreatedAt))
                    .col(timestamp_with_time_zone_null(ApiKeys::LastUsedAt))
                    .col(timestamp_with_time_zone_null(ApiKeys::RevokedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ApiKeys::Table, ApiKeys::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_api_keys_user")
                    .table(ApiKeys::Table)
                    .col(ApiKeys::UserId)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Orgs::Table)
                    .col(pk_uuid(Orgs::Id))
                    .col(string(Orgs::Name))
                    .col(timestamp_with_time_zone(Orgs::CreatedAt))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Memberships::Table)
                    .col(uuid(Memberships::OrgId))
                    .col(uuid(Memberships::UserId))
                    .col(string(Memberships::Role))
                    .col(timestamp_with_time_zone(Memberships::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(Memberships::OrgId)
                            .col(Memberships::UserId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(Memberships::Table, Memberships::OrgId)
                            .to(Orgs::Table, Orgs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(Memberships::Table, Memberships::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_memberships_user")
                    .table(Memberships::Table)
                    .col(Memberships::UserId)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ServerSecrets::Table)
                    .col(string(ServerSecrets::Name).primary_key())
                    .col(string(ServerSecrets::Value))
                    .col(timestamp_with_time_zone(ServerSecrets::CreatedAt))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            ServerSecrets::Table.into_iden(),
            Memberships::Table.into_iden(),
            Orgs::Table.into_iden(),
            ApiKeys::Table.into_iden(),
            RefreshTokens::Table.into_iden(),
            Users::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    Email,
    Name,
    PasswordHash,
    CreatedAt,
}

#[derive(DeriveIden)]
enum RefreshTokens {
    Table,
    Id,
    UserId,
    FamilyId,
    TokenHash,
    CreatedAt,
    ExpiresAt,
    UsedAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum ApiKeys {
    Table,
    Id,
    UserId,
    Name,
    Prefix,
    KeyHash,
    CreatedAt,
    LastUsedAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum Orgs {
    Table,
    Id,
    Name,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Memberships {
    Table,
    OrgId,
    UserId,
    Role,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ServerSecrets {
    Table,
    Name,
    Value,
    CreatedAt,
}
