//! An organisation's audit trail: who changed its listings and prices, keys, members, webhook
//! endpoints and maintenance windows, when and from which network — each row written in the
//! change's own transaction, kept a year.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum OrgAudit {
    Table,
    Id,
    OrgId,
    ActorId,
    Via,
    Network,
    Action,
    TargetId,
    Details,
    At,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(OrgAudit::Table)
                    .col(uuid(OrgAudit::Id).primary_key())
                    .col(uuid(OrgAudit::OrgId))
                    .col(uuid(OrgAudit::ActorId))
                    .col(string_len(OrgAudit::Via, 24))
                    .col(string_len_null(OrgAudit::Network, 64))
                    .col(string_len(OrgAudit::Action, 48))
                    .col(string_len_null(OrgAudit::TargetId, 64))
                    .col(text(OrgAudit::Details))
                    .col(timestamp_with_time_zone(OrgAudit::At))
                    .to_owned(),
            )
            .await?;
        // An organisation's page, newest first (ids are time-ordered).
        manager
            .create_index(
                Index::create()
                    .name("org_audit_org")
                    .table(OrgAudit::Table)
                    .col(OrgAudit::OrgId)
                    .col(OrgAudit::Id)
                    .to_owned(),
            )
            .await?;
        // A person's rows (their export, their erasure).
        manager
            .create_index(
                Index::create()
                    .name("org_audit_actor")
                    .table(OrgAudit::Table)
                    .col(OrgAudit::ActorId)
                    .to_owned(),
            )
            .await?;
        // The year's pruning.
        manager
            .create_index(
                Index::create()
                    .name("org_audit_at")
                    .table(OrgAudit::Table)
                    .col(OrgAudit::At)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(OrgAudit::Table).to_owned())
            .await
    }
}
