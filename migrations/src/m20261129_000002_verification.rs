//! Listings (the fields verification needs; the marketplace extends them), verification runs
//! with leases, signed reports (one per run at most) with their per-cell figures as rows,
//! the events of each run, and the published signing keys.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Listings::Table)
                    .col(pk_uuid(Listings::Id))
                    .col(uuid(Listings::OrgId))
                    .col(string(Listings::Title))
                    .col(string(Listings::GpuModel))
                    .col(integer(Listings::GpuCount))
                    .col(integer(Listings::VramGb))
                    .col(string(Listings::CpuModel))
                    .col(integer(Listings::RamGb))
                    .col(string(Listings::Region))
                    .col(big_integer(Listings::PriceAmount))
                    .col(string_len(Listings::Currency, 3))
                    .col(string(Listings::EngineBaseUrl))
                    .col(string(Listings::EngineModel))
                    .col(string(Listings::Status))
                    .col(uuid_null(Listings::LatestReportId))
                    .col(timestamp_with_time_zone_null(Listings::VerifiedAt))
                    .col(double_null(Listings::HeadlineTotalTokS))
                    .col(double_null(Listings::HeadlinePerRequestTokS))
                    .col(timestamp_with_time_zone(Listings::CreatedAt))
                    .col(timestamp_with_time_zone(Listings::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Listings::Table, Listings::OrgId)
                            .to(Orgs::Table, Orgs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_listings_org")
                    .table(Listings::Table)
                    .col(Listings::OrgId)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(VerificationRuns::Table)
                    .col(pk_uuid(VerificationRuns::Id))
                    .col(uuid(VerificationRuns::ListingId))
                    .col(uuid(VerificationRuns::OrgId))
                    .col(uuid(VerificationRuns::RequestedBy))
                    .col(string(VerificationRuns::Profile))
                    .col(string(VerificationRuns::Status))
                    .col(integer(VerificationRuns::Attempts))
                    .col(string_null(VerificationRuns::LeaseOwner))
                    .col(timestamp_with_time_zone_null(
                        VerificationRuns::LeaseExpiresAt,
                    ))
                    .col(text_null(VerificationRuns::FailureReason))
                    .col(uuid_null(VerificationRuns::ReportId))
                    .col(timestamp_with_time_zone(VerificationRuns::CreatedAt))
                    .col(timestamp_with_time_zone_null(VerificationRuns::StartedAt))
                    .col(timestamp_with_time_zone_null(VerificationRuns::FinishedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(VerificationRuns::Table, VerificationRuns::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_runs_status")
                    .table(VerificationRuns::Table)
                    .col(VerificationRuns::Status)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Reports::Table)
                    .col(pk_uuid(Reports::Id))
                    // At most one report per run: attaching twice is a conflict, not a copy.
                    .col(uuid_uniq(Reports::RunId))
                    .col(uuid(Reports::ListingId))
                    .col(uuid(Reports::OrgId))
                    .col(boolean(Reports::Compliant))
                    .col(string(Reports::KeyId))
                    .col(text(Reports::Envelope))
                    .col(text(Reports::Summary))
                    .col(timestamp_with_time_zone(Reports::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Reports::Table, Reports::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_reports_listing")
                    .table(Reports::Table)
                    .col(Reports::ListingId)
                    .col(Reports::CreatedAt)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ReportCells::Table)
                    .col(uuid(ReportCells::ReportId))
                    .col(string(ReportCells::Phase))
                    .col(big_integer(ReportCells::ContextTokens))
                    .col(big_integer(ReportCells::Concurrency))
                    .col(string(ReportCells::Status))
                    .col(double_null(ReportCells::TotalTokS))
                    .col(double_null(ReportCells::PerRequestTokS))
                    .col(double_null(ReportCells::TtftMs))
                    .col(double_null(ReportCells::TbtMs))
                    .col(double_null(ReportCells::PromptTokS))
                    .primary_key(
                        Index::create()
                            .col(ReportCells::ReportId)
                            .col(ReportCells::Phase)
                            .col(ReportCells::ContextTokens)
                            .col(ReportCells::Concurrency),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ReportCells::Table, ReportCells::ReportId)
                            .to(Reports::Table, Reports::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_report_cells_lookup")
                    .table(ReportCells::Table)
                    .col(ReportCells::Phase)
                    .col(ReportCells::ContextTokens)
                    .col(ReportCells::Concurrency)
                    .col(ReportCells::TotalTokS)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(RunEvents::Table)
                    .col(uuid(RunEvents::RunId))
                    .col(integer(RunEvents::Seq))
                    .col(string(RunEvents::Kind))
                    .col(text(RunEvents::Data))
                    .col(timestamp_with_time_zone(RunEvents::CreatedAt))
                    .primary_key(Index::create().col(RunEvents::RunId).col(RunEvents::Seq))
                    .foreign_key(
                        ForeignKey::create()
                            .from(RunEvents::Table, RunEvents::RunId)
                            .to(VerificationRuns::Table, VerificationRuns::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(SigningKeys::Table)
                    .col(string(SigningKeys::KeyId).primary_key())
                    .col(string(SigningKeys::PublicKey))
                    .col(timestamp_with_time_zone(SigningKeys::CreatedAt))
                    .col(timestamp_with_time_zone_null(SigningKeys::RetiredAt))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            SigningKeys::Table.into_iden(),
            RunEvents::Table.into_iden(),
            ReportCells::Table.into_iden(),
            Reports::Table.into_iden(),
            VerificationRuns::Table.into_iden(),
            Listings::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Orgs {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    Id,
    OrgId,
    Title,
    GpuModel,
    GpuCount,
    VramGb,
    CpuModel,
    RamGb,
    Region,
    PriceAmount,
    Currency,
    EngineBaseUrl,
    EngineModel,
    Status,
    LatestReportId,
    VerifiedAt,
    HeadlineTotalTokS,
    HeadlinePerRequestTokS,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum VerificationRuns {
    Table,
    Id,
    ListingId,
    OrgId,
    RequestedBy,
    Profile,
    Status,
    Attempts,
    LeaseOwner,
    LeaseExpiresAt,
    FailureReason,
    ReportId,
    CreatedAt,
    StartedAt,
    FinishedAt,
}

#[derive(DeriveIden)]
enum Reports {
    Table,
    Id,
    RunId,
    ListingId,
    OrgId,
    Compliant,
    KeyId,
    Envelope,
    Summary,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ReportCells {
    Table,
    ReportId,
    Phase,
    ContextTokens,
    Concurrency,
    Status,
    TotalTokS,
    PerRequestTokS,
    TtftMs,
    TbtMs,
    PromptTokS,
}

#[derive(DeriveIden)]
enum RunEvents {
    Table,
    RunId,
    Seq,
    Kind,
    Data,
    CreatedAt,
}

#[derive(DeriveIden)]
enum SigningKeys {
    Table,
    KeyId,
    PublicKey,
    CreatedAt,
    RetiredAt,
}
