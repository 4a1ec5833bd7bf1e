//! Search by a service-level objective, and plans booked together:
//! - `listing_cells` (the search projection) gains each decode cell's TTFT p99, its sample
//!   count and the inter-token gap p99, and `listing_prefill` holds the valid prefill rates
//!   of the same report: what goodput at an SLO is computed from, so offers never read
//!   reports. Existing projections are filled from their listings' latest reports at once.
//! - `booking_plans`: a set of bookings made together (all or none) under one idempotency
//!   key of its renter, with the users it serves and its price per hour when booked;
//!   `bookings.plan_id` ties a booking to its plan.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The projection's new figures. SQLite alters one column per statement.
fn cell_columns() -> Vec<ColumnDef> {
    vec![
        double_null(ListingCells::TtftMsP99),
        big_integer_null(ListingCells::TtftSamples),
        double_null(ListingCells::ItlMsP99),
    ]
}

/// Fills the new columns and `listing_prefill` from each listing's latest report. Plain SQL
/// both backends read the same way: the projection holds rows of active listings only.
const BACKFILL: [&str; 2] = [
    "UPDATE listing_cells SET
        ttft_ms_p99 = (SELECT rc.ttft_ms_p99 FROM report_cells rc JOIN listings l
            ON rc.report_id = l.latest_report_id
            WHERE l.id = listing_cells.listing_id AND rc.phase = 'decode'
              AND rc.context_tokens = listing_cells.context_tokens
              AND rc.concurrency = listing_cells.concurrency),
        ttft_samples = (SELECT rc.ttft_samples FROM report_cells rc JOIN listings l
            ON rc.report_id = l.latest_report_id
            WHERE l.id = listing_cells.listing_id AND rc.phase = 'decode'
              AND rc.context_tokens = listing_cells.context_tokens
              AND rc.concurrency = listing_cells.concurrency),
        itl_ms_p99 = (SELECT rc.itl_ms_p99 FROM report_cells rc JOIN listings l
            ON rc.report_id = l.latest_report_id
            WHERE l.id = listing_cells.listing_id AND rc.phase = 'decode'
              AND rc.context_tokens = listing_cells.context_tokens
              AND rc.concurrency = listing_cells.concurrency)",
    "INSERT INTO listing_prefill (listing_id, context_tokens, prompt_tok_s)
        SELECT l.id, rc.context_tokens, rc.prompt_tok_s
        FROM listings l JOIN report_cells rc ON rc.report_id = l.latest_report_id
        WHERE l.status = 'active' AND rc.phase = 'prefill' AND rc.status = 'valid'
          AND rc.prompt_tok_s IS NOT NULL AND rc.prompt_tok_s > 0",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in cell_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(ListingCells::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(ListingPrefill::Table)
                    .col(uuid(ListingPrefill::ListingId))
                    .col(big_integer(ListingPrefill::ContextTokens))
                    .col(double(ListingPrefill::PromptTokS))
                    .primary_key(
                        Index::create()
                            .col(ListingPrefill::ListingId)
                            .col(ListingPrefill::ContextTokens),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ListingPrefill::Table, ListingPrefill::ListingId)
                            .to(Listings::Table, Listings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        for statement in BACKFILL {
            db.execute_unprepared(statement).await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(BookingPlans::Table)
                    .col(pk_uuid(BookingPlans::Id))
                    .col(uuid(BookingPlans::RenterId))
                    .col(string(BookingPlans::IdempotencyKey))
                    .col(string(BookingPlans::RequestHash))
                    .col(big_integer(BookingPlans::Users))
                    .col(big_integer(BookingPlans::PriceAmount))
                    .col(string(BookingPlans::Currency))
                    .col(timestamp_with_time_zone(BookingPlans::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(BookingPlans::Table, BookingPlans::RenterId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_booking_plans_key")
                    .table(BookingPlans::Table)
                    .col(BookingPlans::RenterId)
                    .col(BookingPlans::IdempotencyKey)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Bookings::Table)
                    .add_column(uuid_null(Bookings::PlanId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_bookings_plan")
                    .table(Bookings::Table)
                    .col(Bookings::PlanId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_bookings_plan")
                    .table(Bookings::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Bookings::Table)
                    .drop_column(Bookings::PlanId)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(BookingPlans::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(ListingPrefill::Table).to_owned())
            .await?;
        for column in [
            ListingCells::ItlMsP99,
            ListingCells::TtftSamples,
            ListingCells::TtftMsP99,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(ListingCells::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum ListingCells {
    Table,
    TtftMsP99,
    TtftSamples,
    ItlMsP99,
}

#[derive(DeriveIden)]
enum ListingPrefill {
    Table,
    ListingId,
    ContextTokens,
    PromptTokS,
}

#[derive(DeriveIden)]
enum Listings {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum BookingPlans {
    Table,
    Id,
    RenterId,
    IdempotencyKey,
    RequestHash,
    Users,
    PriceAmount,
    Currency,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    PlanId,
}
