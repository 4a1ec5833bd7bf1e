//! Private verification reports (Pro): a run and its report are `public` or `private`; a
//! private report is shown to its organisation's members and to holders of a share link
//! (kept as the SHA-256 of its token, with an expiry, revocable).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite adds one column per statement.
        manager
            .alter_table(
                Table::alter()
                    .table(VerificationRuns::Table)
                    .add_column(string(VerificationRuns::Visibility).default("public"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Reports::Table)
                    .add_column(string(Reports::Visibility).default("public"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ReportShares::Table)
                    .col(pk_uuid(ReportShares::Id))
                    .col(uuid(ReportShares::ReportId))
                    .col(string_uniq(ReportShares::TokenHash))
                    .col(uuid(ReportShares::CreatedBy))
                    .col(timestamp_with_time_zone(ReportShares::CreatedAt))
                    .col(timestamp_with_time_zone(ReportShares::ExpiresAt))
                    .col(timestamp_with_time_zone_null(ReportShares::RevokedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ReportShares::Table, ReportShares::ReportId)
                            .to(Reports::Table, Reports::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_report_shares_report")
                    .table(ReportShares::Table)
                    .col(ReportShares::ReportId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ReportShares::Table).to_owned())
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Reports::Table)
                    .drop_column(Reports::Visibility)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(VerificationRuns::Table)
                    .drop_column(VerificationRuns::Visibility)
                    .to_owned(),
            )
            .await
    }
}

#[derive(DeriveIden)]
enum VerificationRuns {
    Table,
    Visibility,
}

#[derive(DeriveIden)]
enum Reports {
    Table,
    Id,
    Visibility,
}

#[derive(DeriveIden)]
enum ReportShares {
    Table,
    Id,
    ReportId,
    TokenHash,
    CreatedBy,
    CreatedAt,
    ExpiresAt,
    RevokedAt,
}
