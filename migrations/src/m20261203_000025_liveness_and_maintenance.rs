//! Whether machines stay up, and when their providers take them down on purpose:
//! - `listings` gains its liveness as last observed (`liveness_state` `up`/`down`, since
//!   when), when its engine is next probed (`probe_due_at`: claiming a probe moves it a
//!   period ahead, so several workers never probe one machine twice in a period), and its
//!   `reliability` (the 30-day uptime, for search to filter and sort on).
//! - `liveness_spans`: the observed timeline, one row per stretch of one state (`up` true
//!   or false) from the probe that first saw it to the last one that confirmed it.
//! - `maintenance_windows`: intervals a provider takes a machine out of service, with when
//!   they were announced (`created_at`), and how many bookings announcing them cancelled.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The listing's new columns. SQLite alters one column per statement.
fn listing_columns() -> Vec<ColumnDef> {
    vec![
        string_null(Listings::LivenessState),
        timestamp_with_time_zone_null(Listings::LivenessSince),
        timestamp_with_time_zone_null(Listings::ProbeDueAt),
        double_null(Listings::Reliability),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
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
        manager
            .create_index(
                Index::create()
                    .name("idx_listings_reliability")
                    .table(Listings::Table)
                    .col(Listings::Reliability)
                    .col(Listings::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_listings_probe_due")
                    .table(Listings::Table)
                    .col(Listings::ProbeDueAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(LivenessSpans::Table)
                    .col(pk_uuid(LivenessSpans::Id))
                    .col(uuid(LivenessSpans::ListingId))
                    .col(boolean(LivenessSpans::Up))
                    .col(timestamp_with_time_zone(LivenessSpans::StartedAt))
                    .col(timestamp_with_time_zone(LivenessSpans::EndedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(LivenessSpans::Table, LivenessSpans::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_liveness_spans_listing")
                    .table(LivenessSpans::Table)
                    .col(LivenessSpans::ListingId)
                    .col(LivenessSpans::StartedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MaintenanceWindows::Table)
                    .col(pk_uuid(MaintenanceWindows::Id))
                    .col(uuid(MaintenanceWindows::ListingId))
                    .col(timestamp_with_time_zone(MaintenanceWindows::StartsAt))
                    .col(timestamp_with_time_zone(MaintenanceWindows::EndsAt))
                    .col(string(MaintenanceWindows::Reason))
                    .col(uuid(MaintenanceWindows::CreatedBy))
                    .col(timestamp_with_time_zone(MaintenanceWindows::CreatedAt))
                    .col(boolean(MaintenanceWindows::CancelOverlapping))
                    .col(big_integer(MaintenanceWindows::CancelledBookings).default(0))
                    .foreign_key(
                        ForeignKey::create()
                            .from(MaintenanceWindows::Table, MaintenanceWindows::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_maintenance_windows_listing")
                    .table(MaintenanceWindows::Table)
                    .col(MaintenanceWindows::ListingId)
                    .col(MaintenanceWindows::EndsAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(MaintenanceWindows::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(LivenessSpans::Table).to_owned())
            .await?;
        for index in ["idx_listings_probe_due", "idx_listings_reliability"] {
            manager
                .drop_index(Index::drop().name(index).table(Listings::Table).to_owned())
                .await?;
        }
        for column in [
            Listings::Reliability,
            Listings::ProbeDueAt,
            Listings::LivenessSince,
            Listings::LivenessState,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Listings::Table)
                        .drop_column(column)
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
    LivenessState,
    LivenessSince,
    ProbeDueAt,
    Reliability,
}

#[derive(DeriveIden)]
enum LivenessSpans {
    Table,
    Id,
    ListingId,
    Up,
    StartedAt,
    EndedAt,
}

#[derive(DeriveIden)]
enum MaintenanceWindows {
    Table,
    Id,
    ListingId,
    StartsAt,
    EndsAt,
    Reason,
    CreatedBy,
    CreatedAt,
    CancelOverlapping,
    CancelledBookings,
}
