//! The market's price history (issue 59): rolled-up rows written by the sweeper once a bucket
//! (an hour or a day, UTC) has closed, never recomputed per request. `market_history` holds one
//! row per bucket, GPU (a catalog GPU's id, or `*` for every listing) and currency: listings and
//! GPUs listed, GPU-hours booked, the listed price per GPU-hour's p10, median and p90, the
//! lowest bid that held (the clearing bid) and the median price per million tokens.
//! `market_history_buckets` marks each bucket rolled up, rows or none.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum MarketHistory {
    Table,
    Bucket,
    StartsAt,
    Gpu,
    Currency,
    Listings,
    GpusListed,
    GpuHoursBooked,
    PriceP10,
    PriceMedian,
    PriceP90,
    ClearingBid,
    PricePerMtokMedian,
}

#[derive(DeriveIden)]
enum MarketHistoryBuckets {
    Table,
    Bucket,
    StartsAt,
    RolledUpAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(MarketHistory::Table)
                    .col(string_len(MarketHistory::Bucket, 8))
                    .col(timestamp_with_time_zone(MarketHistory::StartsAt))
                    .col(string_len(MarketHistory::Gpu, 64))
                    .col(string_len(MarketHistory::Currency, 3))
                    .col(big_integer(MarketHistory::Listings))
                    .col(big_integer(MarketHistory::GpusListed))
                    .col(double(MarketHistory::GpuHoursBooked))
                    .col(big_integer(MarketHistory::PriceP10))
                    .col(big_integer(MarketHistory::PriceMedian))
                    .col(big_integer(MarketHistory::PriceP90))
                    .col(big_integer_null(MarketHistory::ClearingBid))
                    .col(double_null(MarketHistory::PricePerMtokMedian))
                    .primary_key(
                        Index::create()
                            .col(MarketHistory::Bucket)
                            .col(MarketHistory::Gpu)
                            .col(MarketHistory::Currency)
                            .col(MarketHistory::StartsAt),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MarketHistoryBuckets::Table)
                    .col(string_len(MarketHistoryBuckets::Bucket, 8))
                    .col(timestamp_with_time_zone(MarketHistoryBuckets::StartsAt))
                    .col(timestamp_with_time_zone(MarketHistoryBuckets::RolledUpAt))
                    .primary_key(
                        Index::create()
                            .col(MarketHistoryBuckets::Bucket)
                            .col(MarketHistoryBuckets::StartsAt),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(MarketHistoryBuckets::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(MarketHistory::Table).to_owned())
            .await
    }
}
