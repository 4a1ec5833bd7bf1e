//! Membership by consent: invitations (a single-use token, kept as its SHA-256, for one
//! email and role, until it expires). Organisation API keys: an API key may belong to an
//! organisation, with scopes (`access:introspect`, `listings:write`, `verifications:write`,
//! `read`); a key without an organisation is a person's own, as before.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn key_columns() -> Vec<ColumnDef> {
    vec![uuid_null(ApiKeys::OrgId), string_null(ApiKeys::Scopes)]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Invitations::Table)
                    .col(pk_uuid(Invitations::Id))
                    .col(uuid(Invitations::OrgId))
                    .col(string(Invitations::Email))
                    .col(string(Invitations::Role))
                    .col(string_uniq(Invitations::TokenHash))
                    .col(uuid(Invitations::InvitedBy))
                    .col(timestamp_with_time_zone(Invitations::CreatedAt))
                    .col(timestamp_with_time_zone(Invitations::ExpiresAt))
                    .col(timestamp_with_time_zone_null(Invitations::AcceptedAt))
                    .col(uuid_null(Invitations::AcceptedBy))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Invitations::Table, Invitations::OrgId)
                            .to(Orgs::Table, Orgs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_invitations_org")
                    .table(Invitations::Table)
                    .col(Invitations::OrgId)
                    .to_owned(),
            )
            .await?;
        // SQLite alters one column per statement.
        for column in key_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(ApiKeys::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in key_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(ApiKeys::Table)
                        .drop_column(column.get_column_name())
                        .to_owned(),
                )
                .await?;
        }
        manager
            .drop_table(Table::drop().table(Invitations::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Invitations {
    Table,
    Id,
    OrgId,
    Email,
    Role,
    TokenHash,
    InvitedBy,
    CreatedAt,
    ExpiresAt,
    AcceptedAt,
    AcceptedBy,
}

#[derive(DeriveIden)]
enum Orgs {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum ApiKeys {
    Table,
    OrgId,
    Scopes,
}
