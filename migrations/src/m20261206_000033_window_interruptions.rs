//! A maintenance window never cancels a booking whole (issue 53, item 10): a booking it
//! overlaps keeps its interval, loses access over the window, and is given back the share of
//! its price the window takes.
//!
//! - `maintenance_windows.interrupted_bookings`: how many bookings announcing the window
//!   interrupted (`cancelled_bookings` stays for windows announced before: 0 for new ones).
//! - `booking_interruptions`: one row per booking a window interrupted — the part of the
//!   booking the window takes (`[starts_at, ends_at)`), the seconds of it no earlier window
//!   of the booking took (`seconds`), what that share of the price gives back
//!   (`refund_amount`, minor units of the booking's currency), and once given back, when and
//!   by which refund (`refunded_at`, `refund_id`; `NULL` while owed: a booking awaiting its
//!   payment is refunded once it is paid, by the sweep).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum MaintenanceWindows {
    Table,
    InterruptedBookings,
}

#[derive(DeriveIden)]
enum BookingInterruptions {
    Table,
    Id,
    BookingId,
    WindowId,
    ListingId,
    StartsAt,
    EndsAt,
    Seconds,
    GpuCount,
    RefundAmount,
    RefundedAt,
    RefundId,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(MaintenanceWindows::Table)
                    .add_column(big_integer(MaintenanceWindows::InterruptedBookings).default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(BookingInterruptions::Table)
                    .col(pk_uuid(BookingInterruptions::Id))
                    .col(uuid(BookingInterruptions::BookingId))
                    .col(uuid(BookingInterruptions::WindowId))
                    .col(uuid(BookingInterruptions::ListingId))
                    .col(timestamp_with_time_zone(BookingInterruptions::StartsAt))
                    .col(timestamp_with_time_zone(BookingInterruptions::EndsAt))
                    .col(big_integer(BookingInterruptions::Seconds))
                    .col(integer(BookingInterruptions::GpuCount))
                    .col(big_integer(BookingInterruptions::RefundAmount))
                    .col(timestamp_with_time_zone_null(
                        BookingInterruptions::RefundedAt,
                    ))
                    .col(string_null(BookingInterruptions::RefundId))
                    .col(timestamp_with_time_zone(BookingInterruptions::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_booking_interruptions_booking_window")
                    .table(BookingInterruptions::Table)
                    .col(BookingInterruptions::BookingId)
                    .col(BookingInterruptions::WindowId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_booking_interruptions_listing")
                    .table(BookingInterruptions::Table)
                    .col(BookingInterruptions::ListingId)
                    .col(BookingInterruptions::StartsAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(BookingInterruptions::Table).to_owned())
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(MaintenanceWindows::Table)
                    .drop_column(MaintenanceWindows::InterruptedBookings)
                    .to_owned(),
            )
            .await
    }
}
