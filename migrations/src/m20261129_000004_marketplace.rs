//! The marketplace's listing fields (availability window, how renters reach the machine, the
//! engine's API key, delisting), the search projection of verified figures, and the indexes
//! search and the booking sweeper walk.
//!
//! `listing_cells` holds, per listing, the valid decode cells of its *latest compliant* report
//! with the price per million output tokens at that cell, so a search filtered or sorted by a
//! measured figure walks one index instead of joining every report.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// New nullable listing columns. SQLite alters one column per statement.
fn listing_columns() -> Vec<ColumnDef> {
    vec![
        timestamp_with_time_zone_null(Listings::AvailableFrom),
        timestamp_with_time_zone_null(Listings::AvailableUntil),
        string_null(Listings::AccessSshHost),
        integer_null(Listings::AccessSshPort),
        string_null(Listings::AccessSshUser),
        string_null(Listings::AccessHttpsUrl),
        string_null(Listings::EngineApiKey),
        double_null(Listings::HeadlinePricePerMtok),
        timestamp_with_time_zone_null(Listings::DelistedAt),
    ]
}

/// `(name, table, columns)` of every index this migration adds.
fn indexes() -> Vec<(&'static str, DynIden, Vec<DynIden>)> {
    let listings =
        |cols: Vec<Listings>| -> Vec<DynIden> { cols.into_iter().map(|c| c.into_iden()).collect() };
    vec![
        (
            "idx_listings_price",
            Listings::Table.into_iden(),
            listings(vec![Listings::Status, Listings::PriceAmount, Listings::Id]),
        ),
        (
            "idx_listings_model_price",
            Listings::Table.into_iden(),
            listings(vec![
                Listings::Status,
                Listings::GpuModel,
                Listings::PriceAmount,
                Listings::Id,
            ]),
        ),
        (
            "idx_listings_region_price",
            Listings::Table.into_iden(),
            listings(vec![
                Listings::Status,
                Listings::Region,
                Listings::PriceAmount,
                Listings::Id,
            ]),
        ),
        (
            "idx_listings_tok_s",
            Listings::Table.into_iden(),
            listings(vec![
                Listings::Status,
                Listings::HeadlineTotalTokS,
                Listings::Id,
            ]),
        ),
        (
            "idx_listings_price_per_mtok",
            Listings::Table.into_iden(),
            listings(vec![
                Listings::Status,
                Listings::HeadlinePricePerMtok,
                Listings::Id,
            ]),
        ),
        (
            "idx_listing_cells_tok_s",
            ListingCells::Table.into_iden(),
            vec![
                ListingCells::ContextTokens.into_iden(),
                ListingCells::Concurrency.into_iden(),
                ListingCells::TotalTokS.into_iden(),
                ListingCells::ListingId.into_iden(),
            ],
        ),
        (
            "idx_listing_cells_price_per_mtok",
            ListingCells::Table.into_iden(),
            vec![
                ListingCells::ContextTokens.into_iden(),
                ListingCells::Concurrency.into_iden(),
                ListingCells::PricePerMtok.into_iden(),
                ListingCells::ListingId.into_iden(),
            ],
        ),
        (
            "idx_bookings_status_ends",
            Bookings::Table.into_iden(),
            vec![Bookings::Status.into_iden(), Bookings::EndsAt.into_iden()],
        ),
        (
            "idx_bookings_renter",
            Bookings::Table.into_iden(),
            vec![Bookings::RenterId.into_iden(), Bookings::Id.into_iden()],
        ),
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
            .create_table(
                Table::create()
                    .table(ListingCells::Table)
                    .col(uuid(ListingCells::ListingId))
                    .col(big_integer(ListingCells::ContextTokens))
                    .col(big_integer(ListingCells::Concurrency))
                    .col(double(ListingCells::TotalTokS))
                    .col(double(ListingCells::PricePerMtok))
                    .primary_key(
                        Index::create()
                            .col(ListingCells::ListingId)
                            .col(ListingCells::ContextTokens)
                            .col(ListingCells::Concurrency),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ListingCells::Table, ListingCells::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        for (name, table, columns) in indexes() {
            let mut index = Index::create();
            index.name(name).table(table);
            for column in columns {
                index.col(column);
            }
            manager.create_index(index).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, _) in indexes() {
            if name.starts_with("idx_listing_cells") {
                continue; // dropped with the table
            }
            manager
                .drop_index(Index::drop().name(name).table(table).to_owned())
                .await?;
        }
        manager
            .drop_table(Table::drop().table(ListingCells::Table).to_owned())
            .await?;
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
    GpuModel,
    Region,
    Status,
    PriceAmount,
    HeadlineTotalTokS,
    AvailableFrom,
    AvailableUntil,
    AccessSshHost,
    AccessSshPort,
    AccessSshUser,
    AccessHttpsUrl,
    EngineApiKey,
    HeadlinePricePerMtok,
    DelistedAt,
}

#[derive(DeriveIden)]
enum ListingCells {
    Table,
    ListingId,
    ContextTokens,
    Concurrency,
    TotalTokS,
    PricePerMtok,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    Status,
    EndsAt,
    RenterId,
    Id,
}
