//! Bid raises paid through Stripe (issue 59): `bid_raises` holds each raise of an
//! interruptible booking's bid that is charged as a PaymentIntent of its own for the difference
//! (pending until its payment webhook, then paid and in force; expired, cancelled, failed or
//! refunded otherwise). `refund_parts` records, once per refund and intent, how a refund of a
//! booking paid by several intents is split across them (the latest paid first), so a retry
//! repeats the same requests.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum BidRaises {
    Table,
    Id,
    BookingId,
    RenterId,
    FromBid,
    BidPerGpuHour,
    PriceAmount,
    Amount,
    PlatformFeeAmount,
    Currency,
    Status,
    PaymentIntentId,
    ClientSecret,
    PaymentError,
    HoldExpiresAt,
    CreatedAt,
    PaidAt,
}

#[derive(DeriveIden)]
enum RefundParts {
    Table,
    RefundKey,
    PaymentIntentId,
    BookingId,
    Amount,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(BidRaises::Table)
                    .col(uuid(BidRaises::Id).primary_key())
                    .col(uuid(BidRaises::BookingId))
                    .col(uuid(BidRaises::RenterId))
                    .col(big_integer(BidRaises::FromBid))
                    .col(big_integer(BidRaises::BidPerGpuHour))
                    .col(big_integer(BidRaises::PriceAmount))
                    .col(big_integer(BidRaises::Amount))
                    .col(big_integer(BidRaises::PlatformFeeAmount))
                    .col(string_len(BidRaises::Currency, 3))
                    .col(string_len(BidRaises::Status, 24))
                    .col(string_len_null(BidRaises::PaymentIntentId, 255))
                    .col(text_null(BidRaises::ClientSecret))
                    .col(text_null(BidRaises::PaymentError))
                    .col(timestamp_with_time_zone(BidRaises::HoldExpiresAt))
                    .col(timestamp_with_time_zone(BidRaises::CreatedAt))
                    .col(timestamp_with_time_zone_null(BidRaises::PaidAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("bid_raises_booking")
                    .table(BidRaises::Table)
                    .col(BidRaises::BookingId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("bid_raises_intent")
                    .table(BidRaises::Table)
                    .col(BidRaises::PaymentIntentId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("bid_raises_renter_status")
                    .table(BidRaises::Table)
                    .col(BidRaises::RenterId)
                    .col(BidRaises::Status)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(RefundParts::Table)
                    .col(string_len(RefundParts::RefundKey, 200))
                    .col(string_len(RefundParts::PaymentIntentId, 255))
                    .col(uuid(RefundParts::BookingId))
                    .col(big_integer(RefundParts::Amount))
                    .col(timestamp_with_time_zone(RefundParts::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(RefundParts::RefundKey)
                            .col(RefundParts::PaymentIntentId),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("refund_parts_booking")
                    .table(RefundParts::Table)
                    .col(RefundParts::BookingId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(RefundParts::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(BidRaises::Table).to_owned())
            .await
    }
}
