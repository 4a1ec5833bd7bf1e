//! Performance-backed bookings: a listing may guarantee a fraction of its verified speed
//! (`guarantee_min_bp`, in basis points); a booking made while the listing is verified keeps
//! that guarantee and the report it refers to; the gateway records how long each request's
//! writes to the client stayed blocked (a slow reader is not the machine's fault) and whether
//! the request is comparable with the benchmark (no options that slow decoding); buckets that
//! under-delivered accrue credits, settled once when the booking is over.

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
                    .table(Listings::Table)
                    .add_column(integer_null(Listings::GuaranteeMinBp))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(GatewayRequests::Table)
                    .add_column(double_null(GatewayRequests::ClientStallMs))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(GatewayRequests::Table)
                    .add_column(boolean(GatewayRequests::Comparable).default(true))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(BookingGuarantees::Table)
                    .col(pk_uuid(BookingGuarantees::BookingId))
                    .col(integer(BookingGuarantees::MinBp))
                    .col(uuid(BookingGuarantees::ReportId))
                    .col(timestamp_with_time_zone_null(
                        BookingGuarantees::EvaluatedUntil,
                    ))
                    .col(big_integer(BookingGuarantees::CreditAmount).default(0))
                    .col(timestamp_with_time_zone_null(BookingGuarantees::SettledAt))
                    .col(big_integer_null(BookingGuarantees::SettledAmount))
                    .col(string_null(BookingGuarantees::RefundId))
                    .col(timestamp_with_time_zone_null(
                        BookingGuarantees::NextCheckAt,
                    ))
                    .foreign_key(
                        ForeignKey::create()
                            .from(BookingGuarantees::Table, BookingGuarantees::BookingId)
                            .to(Bookings::Table, Bookings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(BookingCredits::Table)
                    .col(uuid(BookingCredits::BookingId))
                    .col(timestamp_with_time_zone(BookingCredits::BucketStart))
                    .col(big_integer(BookingCredits::Amount))
                    .col(integer(BookingCredits::DeliveredBp))
                    .col(timestamp_with_time_zone(BookingCredits::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(BookingCredits::BookingId)
                            .col(BookingCredits::BucketStart),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(BookingCredits::Table, BookingCredits::BookingId)
                            .to(Bookings::Table, Bookings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(BookingCredits::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(BookingGuarantees::Table).to_owned())
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(GatewayRequests::Table)
                    .drop_column(GatewayRequests::Comparable)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(GatewayRequests::Table)
                    .drop_column(GatewayRequests::ClientStallMs)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .drop_column(Listings::GuaranteeMinBp)
                    .to_owned(),
            )
            .await
    }
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    GuaranteeMinBp,
}

#[derive(DeriveIden)]
enum GatewayRequests {
    Table,
    ClientStallMs,
    Comparable,
}

#[derive(DeriveIden)]
enum BookingGuarantees {
    Table,
    BookingId,
    MinBp,
    ReportId,
    EvaluatedUntil,
    CreditAmount,
    SettledAt,
    SettledAmount,
    RefundId,
    NextCheckAt,
}

#[derive(DeriveIden)]
enum BookingCredits {
    Table,
    BookingId,
    BucketStart,
    Amount,
    DeliveredBp,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    Id,
}
