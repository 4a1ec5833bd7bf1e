//! Webhooks: endpoints registered by users and organisations, the outbox of events (written
//! in the transaction of the change it tells of, so a crash between the commit and the send
//! loses nothing), one delivery per endpoint and event, and every attempt with its answer.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(WebhookEndpoints::Table)
                    .col(pk_uuid(WebhookEndpoints::Id))
                    .col(uuid_null(WebhookEndpoints::OwnerUserId))
                    .col(uuid_null(WebhookEndpoints::OwnerOrgId))
                    .col(text(WebhookEndpoints::Url))
                    // The event types, space-separated.
                    .col(text(WebhookEndpoints::Events))
                    // Sealed like every secret at rest.
                    .col(text(WebhookEndpoints::Secret))
                    .col(text_null(WebhookEndpoints::PreviousSecret))
                    .col(timestamp_with_time_zone_null(
                        WebhookEndpoints::PreviousSecretUntil,
                    ))
                    .col(boolean(WebhookEndpoints::Enabled))
                    .col(timestamp_with_time_zone_null(
                        WebhookEndpoints::FailingSince,
                    ))
                    .col(timestamp_with_time_zone_null(WebhookEndpoints::DisabledAt))
                    .col(text_null(WebhookEndpoints::DisabledReason))
                    .col(uuid(WebhookEndpoints::CreatedBy))
                    .col(timestamp_with_time_zone(WebhookEndpoints::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookEndpoints::Table, WebhookEndpoints::OwnerUserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookEndpoints::Table, WebhookEndpoints::OwnerOrgId)
                            .to(Orgs::Table, Orgs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        for (name, column) in [
            ("idx_webhook_endpoints_user", WebhookEndpoints::OwnerUserId),
            ("idx_webhook_endpoints_org", WebhookEndpoints::OwnerOrgId),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(WebhookEndpoints::Table)
                        .col(column)
                        .to_owned(),
                )
                .await?;
        }
        // No foreign keys: writing an event must never fail the change it tells of.
        manager
            .create_table(
                Table::create()
                    .table(WebhookEvents::Table)
                    .col(pk_uuid(WebhookEvents::Id))
                    .col(text(WebhookEvents::Kind))
                    .col(uuid_null(WebhookEvents::RenterId))
                    .col(uuid_null(WebhookEvents::OrgId))
                    // A test event's one endpoint.
                    .col(uuid_null(WebhookEvents::EndpointId))
                    .col(text(WebhookEvents::Data))
                    .col(timestamp_with_time_zone(WebhookEvents::OccurredAt))
                    .col(boolean(WebhookEvents::FannedOut))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_events_fan_out")
                    .table(WebhookEvents::Table)
                    .col(WebhookEvents::FannedOut)
                    .col(WebhookEvents::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_events_occurred")
                    .table(WebhookEvents::Table)
                    .col(WebhookEvents::OccurredAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(WebhookDeliveries::Table)
                    .col(pk_uuid(WebhookDeliveries::Id))
                    .col(uuid(WebhookDeliveries::EndpointId))
                    .col(uuid(WebhookDeliveries::EventId))
                    .col(text(WebhookDeliveries::Status))
                    .col(integer(WebhookDeliveries::Attempts))
                    .col(timestamp_with_time_zone_null(
                        WebhookDeliveries::NextAttemptAt,
                    ))
                    .col(timestamp_with_time_zone(WebhookDeliveries::CreatedAt))
                    .col(timestamp_with_time_zone_null(
                        WebhookDeliveries::DeliveredAt,
                    ))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookDeliveries::Table, WebhookDeliveries::EndpointId)
                            .to(WebhookEndpoints::Table, WebhookEndpoints::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookDeliveries::Table, WebhookDeliveries::EventId)
                            .to(WebhookEvents::Table, WebhookEvents::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_once")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::EndpointId)
                    .col(WebhookDeliveries::EventId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_due")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::NextAttemptAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(WebhookAttempts::Table)
                    .col(pk_uuid(WebhookAttempts::Id))
                    .col(uuid(WebhookAttempts::DeliveryId))
                    .col(timestamp_with_time_zone(WebhookAttempts::AttemptedAt))
                    .col(integer_null(WebhookAttempts::StatusCode))
                    // The start of the receiver's answer, bounded.
                    .col(text_null(WebhookAttempts::Answer))
                    .col(text_null(WebhookAttempts::Error))
                    .col(big_integer(WebhookAttempts::DurationMs))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookAttempts::Table, WebhookAttempts::DeliveryId)
                            .to(WebhookDeliveries::Table, WebhookDeliveries::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_attempts_delivery")
                    .table(WebhookAttempts::Table)
                    .col(WebhookAttempts::DeliveryId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            WebhookAttempts::Table.into_iden(),
            WebhookDeliveries::Table.into_iden(),
            WebhookEvents::Table.into_iden(),
            WebhookEndpoints::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum WebhookEndpoints {
    Table,
    Id,
    OwnerUserId,
    OwnerOrgId,
    Url,
    Events,
    Secret,
    PreviousSecret,
    PreviousSecretUntil,
    Enabled,
    FailingSince,
    DisabledAt,
    DisabledReason,
    CreatedBy,
    CreatedAt,
}

#[derive(DeriveIden)]
enum WebhookEvents {
    Table,
    Id,
    Kind,
    RenterId,
    OrgId,
    EndpointId,
    Data,
    OccurredAt,
    FannedOut,
}

#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    Id,
    EndpointId,
    EventId,
    Status,
    Attempts,
    NextAttemptAt,
    CreatedAt,
    DeliveredAt,
}

#[derive(DeriveIden)]
enum WebhookAttempts {
    Table,
    Id,
    DeliveryId,
    AttemptedAt,
    StatusCode,
    Answer,
    Error,
    DurationMs,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Orgs {
    Table,
    Id,
}
