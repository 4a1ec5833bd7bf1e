//! Bookings: GPUs of a listing over an interval, with the price fixed at booking time and
//! the idempotency key the request came with.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Bookings::Table)
                    .col(pk_uuid(Bookings::Id))
                    .col(uuid(Bookings::ListingId))
                    .col(uuid(Bookings::RenterId))
                    .col(integer(Bookings::GpuCount))
                    .col(timestamp_with_time_zone(Bookings::StartsAt))
                    .col(timestamp_with_time_zone(Bookings::EndsAt))
                    .col(string(Bookings::Status))
                    .col(big_integer(Bookings::PriceAmount))
                    .col(string_len(Bookings::Currency, 3))
                    .col(string(Bookings::IdempotencyKey))
                    .col(string(Bookings::RequestHash))
                    .col(timestamp_with_time_zone_null(Bookings::HoldExpiresAt))
                    .col(timestamp_with_time_zone_null(Bookings::CancelledAt))
                    .col(big_integer_null(Bookings::RefundAmount))
                    .col(timestamp_with_time_zone(Bookings::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Bookings::Table, Bookings::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(Bookings::Table, Bookings::RenterId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_bookings_idempotency")
                    .table(Bookings::Table)
                    .col(Bookings::RenterId)
                    .col(Bookings::IdempotencyKey)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_bookings_listing_interval")
                    .table(Bookings::Table)
                    .col(Bookings::ListingId)
                    .col(Bookings::StartsAt)
                    .col(Bookings::EndsAt)
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Bookings::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    Id,
    ListingId,
    RenterId,
    GpuCount,
    StartsAt,
    EndsAt,
    Status,
    PriceAmount,
    Currency,
    IdempotencyKey,
    RequestHash,
    HoldExpiresAt,
    CancelledAt,
    RefundAmount,
    CreatedAt,
}
