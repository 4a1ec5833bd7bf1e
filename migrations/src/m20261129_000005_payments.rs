//! Payments: each provider organisation's Stripe Connect account, the payment state of
//! bookings, the ledger of money movements (immutable rows, each tied to its booking and its
//! Stripe object), and the webhook events already processed.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// New nullable booking columns. SQLite alters one column per statement.
fn booking_columns() -> Vec<ColumnDef> {
    vec![
        string_null(Bookings::PaymentProvider),
        string_null(Bookings::PaymentIntentId),
        string_null(Bookings::ClientSecret),
        big_integer_null(Bookings::PlatformFeeAmount),
        text_null(Bookings::PaymentError),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(PayoutAccounts::Table)
                    .col(pk_uuid(PayoutAccounts::OrgId))
                    .col(string_uniq(PayoutAccounts::StripeAccountId))
                    .col(boolean(PayoutAccounts::ChargesEnabled))
                    .col(boolean(PayoutAccounts::PayoutsEnabled))
                    .col(timestamp_with_time_zone(PayoutAccounts::CreatedAt))
                    .col(timestamp_with_time_zone(PayoutAccounts::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(PayoutAccounts::Table, PayoutAccounts::OrgId)
                            .to(Orgs::Table, Orgs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        for column in booking_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(Bookings::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_index(
                Index::create()
                    .name("idx_bookings_payment_intent")
                    .table(Bookings::Table)
                    .col(Bookings::PaymentIntentId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(LedgerEntries::Table)
                    .col(pk_uuid(LedgerEntries::Id))
                    .col(uuid(LedgerEntries::BookingId))
                    .col(uuid(LedgerEntries::OrgId))
                    .col(uuid(LedgerEntries::RenterId))
                    .col(string(LedgerEntries::Kind))
                    .col(big_integer(LedgerEntries::Amount))
                    .col(string_len(LedgerEntries::Currency, 3))
                    .col(string_null(LedgerEntries::StripeObjectId))
                    .col(timestamp_with_time_zone(LedgerEntries::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(LedgerEntries::Table, LedgerEntries::BookingId)
                            .to(Bookings::Table, Bookings::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // One row per kind of movement per Stripe object: recording twice is a no-op.
        manager
            .create_index(
                Index::create()
                    .name("idx_ledger_object")
                    .table(LedgerEntries::Table)
                    .col(LedgerEntries::Kind)
                    .col(LedgerEntries::StripeObjectId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        for (name, column) in [
            ("idx_ledger_booking", LedgerEntries::BookingId),
            ("idx_ledger_org", LedgerEntries::OrgId),
            ("idx_ledger_renter", LedgerEntries::RenterId),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(LedgerEntries::Table)
                        .col(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(StripeEvents::Table)
                    .col(string(StripeEvents::Id).primary_key())
                    .col(string(StripeEvents::Type))
                    .col(timestamp_with_time_zone(StripeEvents::ProcessedAt))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(StripeEvents::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(LedgerEntries::Table).to_owned())
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_bookings_payment_intent")
                    .table(Bookings::Table)
                    .to_owned(),
            )
            .await?;
        for column in booking_columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(Bookings::Table)
                        .drop_column(column.get_column_name())
                        .to_owned(),
                )
                .await?;
        }
        manager
            .drop_table(Table::drop().table(PayoutAccounts::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Orgs {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum PayoutAccounts {
    Table,
    OrgId,
    StripeAccountId,
    ChargesEnabled,
    PayoutsEnabled,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    Id,
    PaymentProvider,
    PaymentIntentId,
    ClientSecret,
    PlatformFeeAmount,
    PaymentError,
}

#[derive(DeriveIden)]
enum LedgerEntries {
    Table,
    Id,
    BookingId,
    OrgId,
    RenterId,
    Kind,
    Amount,
    Currency,
    StripeObjectId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum StripeEvents {
    Table,
    Id,
    Type,
    ProcessedAt,
}
