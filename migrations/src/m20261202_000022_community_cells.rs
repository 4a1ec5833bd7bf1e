//! The community figures as a maintained aggregate: one row per valid decode cell of each
//! community run that is not withdrawn, written with the run (and deleted when it is
//! withdrawn), with the run's catalog ids and the cell itself (its JSON), so the community
//! board and the catalogs' pages are queries over small rows, never a parse of stored reports
//! per request. Existing runs' cells are copied here from their stored reports (`decode[]`: a
//! cell counts when its `status` is `valid` and it has a `total_tok_s`).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::prelude::Uuid;
use sea_orm_migration::sea_orm::{ConnectionTrait, Statement};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(CommunityCells::Table)
                    .col(uuid(CommunityCells::RunId))
                    .col(integer(CommunityCells::Position))
                    .col(string_null(CommunityCells::CatalogGpu))
                    .col(string_null(CommunityCells::CatalogModel))
                    .col(string(CommunityCells::Model))
                    .col(big_integer(CommunityCells::ContextTokens))
                    .col(big_integer(CommunityCells::Concurrency))
                    .col(double(CommunityCells::TotalTokS))
                    .col(double_null(CommunityCells::PerRequestTokS))
                    .col(text(CommunityCells::Cell))
                    .primary_key(
                        Index::create()
                            .col(CommunityCells::RunId)
                            .col(CommunityCells::Position),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(CommunityCells::Table, CommunityCells::RunId)
                            .to(CommunityRuns::Table, CommunityRuns::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_community_cells_board")
                    .table(CommunityCells::Table)
                    .col(CommunityCells::CatalogGpu)
                    .col(CommunityCells::Model)
                    .col(CommunityCells::TotalTokS)
                    // All the board reads: it is answered from the index alone.
                    .col(CommunityCells::RunId)
                    .col(CommunityCells::Position)
                    .col(CommunityCells::ContextTokens)
                    .col(CommunityCells::Concurrency)
                    .col(CommunityCells::PerRequestTokS)
                    .col(CommunityCells::CatalogModel)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_community_cells_catalog")
                    .table(CommunityCells::Table)
                    .col(CommunityCells::CatalogGpu)
                    .col(CommunityCells::CatalogModel)
                    // Newest runs first: a page reads its rows, not the whole table.
                    .col(CommunityCells::RunId)
                    .col(CommunityCells::Position)
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        let backend = manager.get_database_backend();
        let rows = db
            .query_all_raw(Statement::from_string(
                backend,
                "SELECT id, catalog_gpu, catalog_model, model, report FROM community_runs \
                 WHERE withdrawn_at IS NULL",
            ))
            .await?;
        for row in rows {
            let id: Uuid = row.try_get("", "id")?;
            let gpu: Option<String> = row.try_get("", "catalog_gpu")?;
            let catalog_model: Option<String> = row.try_get("", "catalog_model")?;
            let model: String = row.try_get("", "model")?;
            let report: String = row.try_get("", "report")?;
            let Ok(report) = serde_json::from_str::<serde_json::Value>(&report) else {
                continue;
            };
            let cells = report["decode"].as_array().cloned().unwrap_or_default();
            for (position, cell) in cells.iter().enumerate() {
                let (Some(total), Some(context), Some(concurrency)) = (
                    cell["total_tok_s"].as_f64(),
                    cell["context_tokens"].as_i64(),
                    cell["concurrency"].as_i64(),
                ) else {
                    continue;
                };
                if cell["status"] != "valid" {
                    continue;
                }
                let insert = Query::insert()
                    .into_table(CommunityCells::Table)
                    .columns([
                        CommunityCells::RunId,
                        CommunityCells::Position,
                        CommunityCells::CatalogGpu,
                        CommunityCells::CatalogModel,
                        CommunityCells::Model,
                        CommunityCells::ContextTokens,
                        CommunityCells::Concurrency,
                        CommunityCells::TotalTokS,
                        CommunityCells::PerRequestTokS,
                        CommunityCells::Cell,
                    ])
                    .values_panic([
                        id.into(),
                        (position as i32).into(),
                        gpu.clone().into(),
                        catalog_model.clone().into(),
                        model.clone().into(),
                        context.into(),
                        concurrency.into(),
                        total.into(),
                        cell["per_request_tok_s"].as_f64().into(),
                        cell.to_string().into(),
                    ])
                    .to_owned();
                manager.exec_stmt(insert).await?;
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(CommunityCells::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum CommunityCells {
    Table,
    RunId,
    Position,
    CatalogGpu,
    CatalogModel,
    Model,
    ContextTokens,
    Concurrency,
    TotalTokS,
    PerRequestTokS,
    Cell,
}

#[derive(DeriveIden)]
enum CommunityRuns {
    Table,
    Id,
}
