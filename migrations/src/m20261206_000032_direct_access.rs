//! Who a guarantee covers, and how the gateway counts load (issue 53, rule 1):
//! - per booking, whether it asked for direct access to the machine (`direct_access`, true
//!   unless waived: a booking that reaches the engine around the gateway is not guaranteed,
//!   and a bucket overlapping one is not judged), and why it has no guarantee when it has
//!   none (`no_guarantee_reason`). Bookings made before get `direct_access` true (they were
//!   given the listing's SSH and HTTPS access) and, without a guarantee, the reason their
//!   listing's state gives now: `listing_offers_none` when it offers none, else
//!   `listing_not_verified`;
//! - per open gateway stream, the engine it goes to (`machine`, a key of the engine's origin):
//!   streams are counted per engine, across every listing that names it.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// SQLite adds one column per statement.
async fn add(manager: &SchemaManager<'_>, table: Alias, column: ColumnDef) -> Result<(), DbErr> {
    manager
        .alter_table(Table::alter().table(table).add_column(column).to_owned())
        .await
}

async fn drop(manager: &SchemaManager<'_>, table: Alias, column: &str) -> Result<(), DbErr> {
    manager
        .alter_table(
            Table::alter()
                .table(table)
                .drop_column(Alias::new(column))
                .to_owned(),
        )
        .await
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let bookings = || Alias::new("bookings");
        add(
            manager,
            bookings(),
            boolean(Alias::new("direct_access"))
                .default(true)
                .to_owned(),
        )
        .await?;
        add(
            manager,
            bookings(),
            string_null(Alias::new("no_guarantee_reason")),
        )
        .await?;
        add(
            manager,
            Alias::new("gateway_streams"),
            uuid_null(Alias::new("machine")),
        )
        .await?;
        manager
            .create_index(
                Index::create()
                    .name("gateway_streams_by_machine")
                    .table(Alias::new("gateway_streams"))
                    .col(Alias::new("machine"))
                    .col(Alias::new("expires_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE bookings SET no_guarantee_reason = CASE \
                   WHEN (SELECT l.guarantee_min_bp FROM listings l WHERE l.id = bookings.listing_id) IS NULL \
                   THEN 'listing_offers_none' ELSE 'listing_not_verified' END \
                 WHERE id NOT IN (SELECT booking_id FROM booking_guarantees)",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("gateway_streams_by_machine")
                    .table(Alias::new("gateway_streams"))
                    .to_owned(),
            )
            .await?;
        drop(manager, Alias::new("gateway_streams"), "machine").await?;
        drop(manager, Alias::new("bookings"), "no_guarantee_reason").await?;
        drop(manager, Alias::new("bookings"), "direct_access").await
    }
}
