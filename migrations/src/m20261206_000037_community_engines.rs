//! The engine a community run measured (issue 55): `community_cells.engine_name`, the
//! `engine.name` of the submitted report when it names an engine the standard knows (`vllm`,
//! `llamacpp`, `sglang`, `tgi`), else `NULL`; the community board's rows are per GPU, model
//! and engine, as the verified board's are. Existing cells get it from their run's stored
//! report. The board's covering index (000022's `idx_community_cells_board`) is replaced by one
//! that holds the engine too, so the board is still answered from the index alone: read from
//! the table, past each cell's JSON, 40 boards at once took the server from under 300 MB to
//! 420 MB (`the_community_board_stays_small_with_500_large_runs`). The names are copied here,
//! not imported: a migration reads as it landed.

use sea_orm_migration::sea_orm::ConnectionTrait;
use sea_orm_migration::sea_orm::prelude::Uuid;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum CommunityCells {
    Table,
    RunId,
    EngineName,
    CatalogGpu,
    CatalogModel,
    Model,
    TotalTokS,
    Position,
    ContextTokens,
    Concurrency,
    PerRequestTokS,
}

/// The board's covering index: `engine` beside 000022's columns when `with_engine`.
fn board_index(name: &str, with_engine: bool) -> IndexCreateStatement {
    let mut index = Index::create();
    index
        .name(name)
        .table(CommunityCells::Table)
        .col(CommunityCells::CatalogGpu)
        .col(CommunityCells::Model);
    if with_engine {
        index.col(CommunityCells::EngineName);
    }
    index
        .col(CommunityCells::TotalTokS)
        .col(CommunityCells::RunId)
        .col(CommunityCells::Position)
        .col(CommunityCells::ContextTokens)
        .col(CommunityCells::Concurrency)
        .col(CommunityCells::PerRequestTokS)
        .col(CommunityCells::CatalogModel)
        .to_owned()
}

#[derive(DeriveIden)]
enum CommunityRuns {
    Table,
    Id,
    Report,
    WithdrawnAt,
}

/// Runs read at once.
const PAGE: u64 = 100;

const OLD_BOARD_INDEX: &str = "idx_community_cells_board";
const BOARD_INDEX: &str = "idx_community_cells_board_engines";

/// The engine names a report may carry, as they were when this migration landed.
const ENGINE_NAMES: [&str; 4] = ["vllm", "llamacpp", "sglang", "tgi"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(CommunityCells::Table)
                    .add_column(string_null(CommunityCells::EngineName))
                    .to_owned(),
            )
            .await?;
        // The runs a hundred at a time, by id: a report is up to 128 KiB, and the table holds
        // every community run there is.
        let db = manager.get_connection();
        let backend = manager.get_database_backend();
        let mut after: Option<Uuid> = None;
        loop {
            let mut page = Query::select();
            page.columns([CommunityRuns::Id, CommunityRuns::Report])
                .from(CommunityRuns::Table)
                .and_where(Expr::col(CommunityRuns::WithdrawnAt).is_null())
                .order_by(CommunityRuns::Id, Order::Asc)
                .limit(PAGE);
            if let Some(after) = after {
                page.and_where(Expr::col(CommunityRuns::Id).gt(after));
            }
            let rows = db.query_all_raw(backend.build(&page)).await?;
            let Some(last) = rows.last() else {
                break;
            };
            after = Some(last.try_get("", "id")?);
            for row in &rows {
                let id: Uuid = row.try_get("", "id")?;
                let report: String = row.try_get("", "report")?;
                let Ok(report) = serde_json::from_str::<serde_json::Value>(&report) else {
                    continue;
                };
                let Some(name) = report["engine"]["name"]
                    .as_str()
                    .filter(|name| ENGINE_NAMES.contains(name))
                else {
                    continue;
                };
                let update = Query::update()
                    .table(CommunityCells::Table)
                    .value(CommunityCells::EngineName, name)
                    .and_where(Expr::col(CommunityCells::RunId).eq(id))
                    .to_owned();
                manager.exec_stmt(update).await?;
            }
        }
        manager
            .drop_index(
                Index::drop()
                    .name(OLD_BOARD_INDEX)
                    .table(CommunityCells::Table)
                    .to_owned(),
            )
            .await?;
        manager.create_index(board_index(BOARD_INDEX, true)).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name(BOARD_INDEX)
                    .table(CommunityCells::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(board_index(OLD_BOARD_INDEX, false))
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(CommunityCells::Table)
                    .drop_column(CommunityCells::EngineName)
                    .to_owned(),
            )
            .await
    }
}
