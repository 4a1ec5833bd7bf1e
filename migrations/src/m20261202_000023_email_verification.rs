//! Verified email addresses:
//! - `users.email_verified_at`: when the account proved it holds its address (a link mailed
//!   to it was used). Accounts that exist when this lands count as confirmed (at their
//!   creation): they were made when addresses were not checked, and locking them out now
//!   would take from people what they already use.
//! - `users.confirmation_required`: the account signed up while addresses had to be
//!   confirmed. Only such an account is held back until it confirms, and only its address,
//!   while unconfirmed, may be registered again; accounts made while confirmation was off
//!   keep working when it is turned on.
//! - `email_tokens`: the single-use links mailed to an address, kept as SHA-256 digests:
//!   `confirm` (with, when an unconfirmed address was registered again, the password hash
//!   and name the confirmer chose) and `reset` (a password reset).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .add_column(timestamp_with_time_zone_null(Users::EmailVerifiedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .add_column(boolean(Users::ConfirmationRequired).default(false))
                    .to_owned(),
            )
            .await?;
        manager
            .exec_stmt(
                Query::update()
                    .table(Users::Table)
                    .value(Users::EmailVerifiedAt, Expr::col(Users::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(EmailTokens::Table)
                    .col(pk_uuid(EmailTokens::Id))
                    .col(uuid(EmailTokens::UserId))
                    .col(string(EmailTokens::Purpose))
                    .col(string_uniq(EmailTokens::TokenHash))
                    .col(string(EmailTokens::Email))
                    .col(string_null(EmailTokens::PasswordHash))
                    .col(string_null(EmailTokens::Name))
                    .col(timestamp_with_time_zone(EmailTokens::CreatedAt))
                    .col(timestamp_with_time_zone(EmailTokens::ExpiresAt))
                    .col(timestamp_with_time_zone_null(EmailTokens::UsedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(EmailTokens::Table, EmailTokens::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_email_tokens_user")
                    .table(EmailTokens::Table)
                    .col(EmailTokens::UserId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(EmailTokens::Table).to_owned())
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .drop_column(Users::ConfirmationRequired)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .drop_column(Users::EmailVerifiedAt)
                    .to_owned(),
            )
            .await
    }
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    CreatedAt,
    EmailVerifiedAt,
    ConfirmationRequired,
}

#[derive(DeriveIden)]
enum EmailTokens {
    Table,
    Id,
    UserId,
    Purpose,
    TokenHash,
    Email,
    PasswordHash,
    Name,
    CreatedAt,
    ExpiresAt,
    UsedAt,
}
