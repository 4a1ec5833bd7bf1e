//! Renters' SSH public keys (issue 56): each account keeps at most ten, each once (unique by
//! its SHA-256 fingerprint within the account), kept as `algorithm base64` without the
//! comment it came with. The provider's agent installs them for the renter's bookings. They go
//! with their account.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SshKeys {
    Table,
    Id,
    UserId,
    Name,
    PublicKey,
    Fingerprint,
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
                    .table(SshKeys::Table)
                    .col(uuid(SshKeys::Id).primary_key())
                    .col(uuid(SshKeys::UserId))
                    .col(string(SshKeys::Name))
                    .col(text(SshKeys::PublicKey))
                    .col(string(SshKeys::Fingerprint))
                    .col(timestamp_with_time_zone(SshKeys::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(SshKeys::Table, SshKeys::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_ssh_keys_user_fingerprint")
                    .table(SshKeys::Table)
                    .col(SshKeys::UserId)
                    .col(SshKeys::Fingerprint)
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(SshKeys::Table).to_owned())
            .await
    }
}
