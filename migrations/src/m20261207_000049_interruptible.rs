//! The interruptible tier (issue 59). A listing may take interruptible bookings from a minimum
//! bid (`listings.min_bid_per_gpu_hour`, minor units; absent: none). A booking holds at a tier
//! (`bookings.tier`, `on_demand` on every row before) and, interruptible, at a bid
//! (`bid_per_gpu_hour`); `amount_per_gpu_hour` records the price per GPU-hour in force (the
//! listing's, or the bid; absent on rows before). One displaced is recorded when (`interrupted_at`); one displaced after
//! its start keeps its GPUs through a notice, its `ends_at` moved to the notice's end and the
//! end it was booked for kept (`booked_ends_at`); its refund (`refund_amount`) is given back
//! once (`interruption_refunded_at`, with the payment provider's `interruption_refund_id`).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Listings {
    Table,
    MinBidPerGpuHour,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    Tier,
    BidPerGpuHour,
    AmountPerGpuHour,
    InterruptedAt,
    BookedEndsAt,
    InterruptionRefundedAt,
    InterruptionRefundId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .add_column(big_integer_null(Listings::MinBidPerGpuHour))
                    .to_owned(),
            )
            .await?;
        // One column per statement: SQLite alters one at a time.
        let columns = [
            string_len(Bookings::Tier, 16)
                .default("on_demand")
                .to_owned(),
            big_integer_null(Bookings::BidPerGpuHour),
            big_integer_null(Bookings::AmountPerGpuHour),
            timestamp_with_time_zone_null(Bookings::InterruptedAt),
            timestamp_with_time_zone_null(Bookings::BookedEndsAt),
            timestamp_with_time_zone_null(Bookings::InterruptionRefundedAt),
            string_null(Bookings::InterruptionRefundId),
        ];
        for mut column in columns {
            manager
                .alter_table(
                    Table::alter()
                        .table(Bookings::Table)
                        .add_column(&mut column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            Bookings::Tier,
            Bookings::BidPerGpuHour,
            Bookings::AmountPerGpuHour,
            Bookings::InterruptedAt,
            Bookings::BookedEndsAt,
            Bookings::InterruptionRefundedAt,
            Bookings::InterruptionRefundId,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Bookings::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .drop_column(Listings::MinBidPerGpuHour)
                    .to_owned(),
            )
            .await
    }
}
