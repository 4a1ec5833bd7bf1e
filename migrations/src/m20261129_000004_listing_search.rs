//! The marketplace's listing fields (availability window, how renters reach the machine, the
//! engine's API key, delisting), the search projection of verified figures, and the indexes
//! search and the booking sweeper walk.
//!
//! `listing_cells` holds, per *active* listing, the valid decode cells of its latest compliant
//! report with the price per million output tokens at that cell, and the listing's GPU model
//! and price (so every order a cell search asks for is one of its indexes): a search filtered
//! or sorted by a measured figure walks one index instead of joining every report.

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

/// `(name, table, columns)` of every index this migration adds: one per order search walks,
/// with and without an exact GPU model (the commonest filter) in front.
fn indexes() -> Vec<(&'static str, DynIden, Vec<DynIden>)> {
    use ListingCells as C;
    use Listings as L;
    let listing = |name, cols: Vec<Listings>| {
        let cols = cols.into_iter().map(IntoIden::into_iden).collect();
        (name, L::Table.into_iden(), cols)
    };
    // Cell indexes end with the tok/s, so a tok/s floor is checked on the index alone.
    let cell = |name, cols: Vec<ListingCells>| {
        let covers = !cols.iter().any(|c| matches!(c, C::TotalTokS));
        let mut all = vec![C::ContextTokens.into_iden(), C::Concurrency.into_iden()];
        all.extend(cols.into_iter().map(IntoIden::into_iden));
        all.push(C::ListingId.into_iden());
        if covers {
            all.push(C::TotalTokS.into_iden());
        }
        (name, C::Table.into_iden(), all)
    };
    vec![
        listing("idx_listings_price", vec![L::Status, L::PriceAmount, L::Id]),
        listing(
            "idx_listings_model_price",
            vec![L::Status, L::GpuModel, L::PriceAmount, L::Id],
        ),
        listing(
            "idx_listings_region_price",
            vec![L::Status, L::Region, L::PriceAmount, L::Id],
        ),
        listing(
            "idx_listings_tok_s",
            vec![L::Status, L::HeadlineTotalTokS, L::Id],
        ),
        listing(
            "idx_listings_model_tok_s",
            vec![L::Status, L::GpuModel, L::HeadlineTotalTokS, L::Id],
        ),
        listing(
            "idx_listings_price_per_mtok",
            vec![L::Status, L::HeadlinePricePerMtok, L::Id],
        ),
        listing(
            "idx_listings_model_price_per_mtok",
            vec![L::Status, L::GpuModel, L::HeadlinePricePerMtok, L::Id],
        ),
        cell("idx_listing_cells_price", vec![C::PriceAmount]),
        cell("idx_listing_cells_tok_s", vec![C::TotalTokS]),
        cell("idx_listing_cells_price_per_mtok", vec![C::PricePerMtok]),
        cell(
            "idx_listing_cells_model_price",
            vec![C::GpuModel, C::PriceAmount],
        ),
        cell(
            "idx_listing_cells_model_tok_s",
            vec![C::GpuModel, C::TotalTokS],
        ),
        cell(
            "idx_listing_cells_model_price_per_mtok",
            vec![C::GpuModel, C::PricePerMtok],
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
                    .col(string(ListingCells::GpuModel))
                    .col(big_integer(ListingCells::PriceAmount))
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
    GpuModel,
    PriceAmount,
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
