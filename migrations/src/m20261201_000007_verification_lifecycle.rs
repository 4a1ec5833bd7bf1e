//! Badges that mean "still true": a listing's verification state, when its badge expires and
//! when its next unannounced spot check is due; reports and runs of kind `spot_check` (with
//! the verification a spot check compares against); and each listing's history of checks,
//! renewals, expiries and demotions.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn listing_columns() -> Vec<ColumnDef> {
    vec![
        string_null(Listings::VerificationState),
        timestamp_with_time_zone_null(Listings::VerificationExpiresAt),
        timestamp_with_time_zone_null(Listings::NextSpotCheckAt),
    ]
}

fn run_columns() -> Vec<ColumnDef> {
    vec![
        string(VerificationRuns::Kind)
            .default("verification")
            .to_owned(),
        uuid_null(VerificationRuns::BaselineReportId),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite alters one column per statement.
        for column in listing_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(Listings::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        for column in run_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(VerificationRuns::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Reports::Table)
                    .add_column(string(Reports::Kind).default("verification"))
                    .to_owned(),
            )
            .await?;
        // Listings verified before badges had a state: verified (their expiry is set from
        // `verified_at` by the first upkeep).
        manager
            .exec_stmt(
                Query::update()
                    .table(Listings::Table)
                    .value(Listings::VerificationState, "verified")
                    .and_where(Expr::col(Listings::LatestReportId).is_not_null())
                    .to_owned(),
            )
            .await?;
        for (name, column) in [
            (
                "idx_listings_verification_expires_at",
                Listings::VerificationExpiresAt,
            ),
            ("idx_listings_next_spot_check_at", Listings::NextSpotCheckAt),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(Listings::Table)
                        .col(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(VerificationChecks::Table)
                    .col(pk_uuid(VerificationChecks::Id))
                    .col(uuid(VerificationChecks::ListingId))
                    .col(string(VerificationChecks::Kind))
                    .col(uuid_null(VerificationChecks::ReportId))
                    .col(uuid_null(VerificationChecks::BaselineReportId))
                    .col(text_null(VerificationChecks::Reason))
                    .col(timestamp_with_time_zone(VerificationChecks::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(VerificationChecks::Table, VerificationChecks::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_verification_checks_listing")
                    .table(VerificationChecks::Table)
                    .col(VerificationChecks::ListingId)
                    .col(VerificationChecks::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(VerificationChecks::Table).to_owned())
            .await?;
        for name in [
            "idx_listings_verification_expires_at",
            "idx_listings_next_spot_check_at",
        ] {
            manager
                .drop_index(Index::drop().name(name).table(Listings::Table).to_owned())
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Reports::Table)
                    .drop_column(Reports::Kind)
                    .to_owned(),
            )
            .await?;
        for column in run_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(VerificationRuns::Table)
                        .drop_column(column.get_column_name())
                        .to_owned(),
                )
                .await?;
        }
        for column in listing_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(Listings::Table)
                        .drop_column(column.get_column_name())
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    Id,
    LatestReportId,
    VerificationState,
    VerificationExpiresAt,
    NextSpotCheckAt,
}

#[derive(DeriveIden)]
enum VerificationRuns {
    Table,
    Kind,
    BaselineReportId,
}

#[derive(DeriveIden)]
enum Reports {
    Table,
    Kind,
}

#[derive(DeriveIden)]
enum VerificationChecks {
    Table,
    Id,
    ListingId,
    Kind,
    ReportId,
    BaselineReportId,
    Reason,
    CreatedAt,
}
