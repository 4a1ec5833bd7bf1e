//! The transparency log (RFC 9162 hashing): its size, one row per leaf, every complete
//! subtree's hash (written once, never changed), signed checkpoints; and organisation reports
//! as stored signed snapshots. Existing reports are appended in creation order: a report's
//! leaf is its DSSE envelope as RFC 8785 canonical JSON, or — for an envelope signed before
//! engine addresses were left out of reports — the SHA-256 of that, marked private, so that
//! no engine address enters the log.

use sea_orm_migration::sea_orm::prelude::{DateTimeUtc, Uuid};
use sea_orm_migration::sea_orm::{ConnectionTrait, Statement};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(LogState::Table)
                    .col(integer(LogState::Id).primary_key())
                    .col(big_integer(LogState::Size))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(LogEntries::Table)
                    .col(big_integer(LogEntries::Idx).primary_key())
                    .col(uuid_uniq(LogEntries::ReportId))
                    .col(string(LogEntries::Kind))
                    .col(blob(LogEntries::Leaf))
                    .col(boolean(LogEntries::Private))
                    .col(timestamp_with_time_zone(LogEntries::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(LogHashes::Table)
                    .col(small_integer(LogHashes::Level))
                    .col(big_integer(LogHashes::Idx))
                    .col(blob(LogHashes::Hash))
                    .primary_key(Index::create().col(LogHashes::Level).col(LogHashes::Idx))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(LogCheckpoints::Table)
                    .col(big_integer(LogCheckpoints::Size).primary_key())
                    .col(blob(LogCheckpoints::Root))
                    .col(text(LogCheckpoints::Note))
                    .col(string(LogCheckpoints::KeyId))
                    .col(timestamp_with_time_zone(LogCheckpoints::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(OrgReports::Table)
                    .col(pk_uuid(OrgReports::Id))
                    .col(uuid(OrgReports::OrgId))
                    .col(big_integer(OrgReports::Sequence))
                    .col(string(OrgReports::ContentSha256))
                    .col(text(OrgReports::Report))
                    .col(text(OrgReports::Envelope))
                    .col(string(OrgReports::KeyId))
                    .col(timestamp_with_time_zone(OrgReports::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(OrgReports::Table, OrgReports::OrgId)
                            .to(Orgs::Table, Orgs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_org_reports_org_sequence")
                    .table(OrgReports::Table)
                    .col(OrgReports::OrgId)
                    .col(OrgReports::Sequence)
                    .unique()
                    .to_owned(),
            )
            .await?;
        backfill(manager).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            OrgReports::Table.into_iden(),
            LogCheckpoints::Table.into_iden(),
            LogHashes::Table.into_iden(),
            LogEntries::Table.into_iden(),
            LogState::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}

/// Appends every existing report, oldest first, and sets the log's size.
async fn backfill(manager: &SchemaManager<'_>) -> Result<(), DbErr> {
    let db = manager.get_connection();
    let rows = db
        .query_all_raw(Statement::from_string(
            manager.get_database_backend(),
            "SELECT id, kind, envelope, created_at FROM reports ORDER BY created_at, id",
        ))
        .await?;
    let mut stored = std::collections::HashMap::new();
    let mut size: i64 = 0;
    for row in rows {
        let id: Uuid = row.try_get("", "id")?;
        let kind: String = row.try_get("", "kind")?;
        let envelope: String = row.try_get("", "envelope")?;
        let created_at: DateTimeUtc = row.try_get("", "created_at")?;
        let envelope: serde_json::Value = serde_json::from_str(&envelope)
            .map_err(|e| DbErr::Migration(format!("report {id}: envelope is not JSON: {e}")))?;
        let (leaf, private) = attest::log_leaf(&envelope);
        let index = size as u64;
        let hashes = tlog::append(
            index,
            tlog::leaf_hash(&leaf),
            &mut tlog::Known::new(&stored),
        );
        for (node, hash) in hashes {
            stored.insert(node, hash);
            manager
                .exec_stmt(
                    Query::insert()
                        .into_table(LogHashes::Table)
                        .columns([LogHashes::Level, LogHashes::Idx, LogHashes::Hash])
                        .values([
                            i16::from(node.level).into(),
                            (node.index as i64).into(),
                            hash.to_vec().into(),
                        ])
                        .map_err(|e| DbErr::Migration(e.to_string()))?
                        .to_owned(),
                )
                .await?;
        }
        manager
            .exec_stmt(
                Query::insert()
                    .into_table(LogEntries::Table)
                    .columns([
                        LogEntries::Idx,
                        LogEntries::ReportId,
                        LogEntries::Kind,
                        LogEntries::Leaf,
                        LogEntries::Private,
                        LogEntries::CreatedAt,
                    ])
                    .values([
                        size.into(),
                        id.into(),
                        kind.into(),
                        leaf.into(),
                        private.into(),
                        created_at.into(),
                    ])
                    .map_err(|e| DbErr::Migration(e.to_string()))?
                    .to_owned(),
            )
            .await?;
        size += 1;
    }
    manager
        .exec_stmt(
            Query::insert()
                .into_table(LogState::Table)
                .columns([LogState::Id, LogState::Size])
                .values([1.into(), size.into()])
                .map_err(|e| DbErr::Migration(e.to_string()))?
                .to_owned(),
        )
        .await
}

#[derive(DeriveIden)]
enum LogState {
    Table,
    Id,
    Size,
}

#[derive(DeriveIden)]
enum LogEntries {
    Table,
    Idx,
    ReportId,
    Kind,
    Leaf,
    Private,
    CreatedAt,
}

#[derive(DeriveIden)]
enum LogHashes {
    Table,
    Level,
    Idx,
    Hash,
}

#[derive(DeriveIden)]
enum LogCheckpoints {
    Table,
    Size,
    Root,
    Note,
    KeyId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum OrgReports {
    Table,
    Id,
    OrgId,
    Sequence,
    ContentSha256,
    Report,
    Envelope,
    KeyId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Orgs {
    Table,
    Id,
}
