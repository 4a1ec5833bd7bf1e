//! Community runs ("matrix runs"): reports anyone signed in submits, checked against the
//! standard and stored with their submitter, never verified; the server signs a receipt of
//! who submitted what and when (logged in the transparency log), not the figures.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(CommunityRuns::Table)
                    .col(pk_uuid(CommunityRuns::Id))
                    .col(uuid(CommunityRuns::SubmitterId))
                    .col(string(CommunityRuns::SubmitterHandle))
                    .col(string_null(CommunityRuns::CatalogGpu))
                    .col(string_null(CommunityRuns::CatalogModel))
                    .col(string(CommunityRuns::Model))
                    .col(text(CommunityRuns::Report))
                    .col(string(CommunityRuns::ReportSha256))
                    .col(text_null(CommunityRuns::LaunchCommand))
                    .col(text_null(CommunityRuns::HardwareNotes))
                    .col(text(CommunityRuns::Receipt))
                    .col(timestamp_with_time_zone(CommunityRuns::CreatedAt))
                    .col(timestamp_with_time_zone_null(CommunityRuns::WithdrawnAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(CommunityRuns::Table, CommunityRuns::SubmitterId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_community_runs_catalog")
                    .table(CommunityRuns::Table)
                    .col(CommunityRuns::CatalogModel)
                    .col(CommunityRuns::CatalogGpu)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(CommunityRuns::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum CommunityRuns {
    Table,
    Id,
    SubmitterId,
    SubmitterHandle,
    CatalogGpu,
    CatalogModel,
    Model,
    Report,
    ReportSha256,
    LaunchCommand,
    HardwareNotes,
    Receipt,
    CreatedAt,
    WithdrawnAt,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}
