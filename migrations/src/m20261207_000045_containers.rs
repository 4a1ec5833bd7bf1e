//! Containers per booking (issue 58): what a listing offers to bookings that ask for a
//! container (`access_containers`: its allowed images and each GPU's share of CPU and memory,
//! JSON text), and what a booking asks to run (`container`: image, command, environment,
//! JSON text). Both absent on every row before.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Listings {
    Table,
    AccessContainers,
}

#[derive(DeriveIden)]
enum Bookings {
    Table,
    Container,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .add_column(text_null(Listings::AccessContainers))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Bookings::Table)
                    .add_column(text_null(Bookings::Container))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Bookings::Table)
                    .drop_column(Bookings::Container)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Listings::Table)
                    .drop_column(Listings::AccessContainers)
                    .to_owned(),
            )
            .await
    }
}
