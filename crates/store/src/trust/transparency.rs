//! The transparency log's storage: one row per leaf, every complete subtree's hash (written
//! once when the subtree completes, never changed), signed checkpoints. Appends are
//! serialised by the one row of `log_state`: PostgreSQL locks it until the appending
//! transaction ends; SQLite's transaction holds the database's write lock. An index is
//! therefore taken exactly once and never skipped: a transaction that rolls back gives its
//! index back with everything else it wrote.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveValue::Set,
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Statement,
    sea_query::{Expr, OnConflict},
};
use tlog::{Hash, Hashes, NodeId};
use uuid::Uuid;

use crate::entities::{log_checkpoints, log_entries, log_hashes, log_state};
use crate::{Db, StoreError};

/// A leaf to append, in the transaction that stores what it logs.
#[derive(Debug, Clone)]
pub struct NewLeaf {
    /// The logged report's id (a listing's report or an organisation report).
    pub report_id: Uuid,
    /// `verification`, `spot_check`, `organisation` or `community_receipt`.
    pub kind: String,
    /// The leaf's bytes: a canonical envelope, or the SHA-256 of one when `private`.
    pub leaf: Vec<u8>,
    pub private: bool,
    pub created_at: DateTime<Utc>,
}

/// A stored leaf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntryRecord {
    pub index: u64,
    pub report_id: Uuid,
    pub kind: String,
    pub leaf: Vec<u8>,
    pub private: bool,
    pub created_at: DateTime<Utc>,
}

impl From<log_entries::Model> for LogEntryRecord {
    fn from(m: log_entries::Model) -> Self {
        Self {
            index: m.idx as u64,
            report_id: m.report_id,
            kind: m.kind,
            leaf: m.leaf,
            private: m.private,
            created_at: m.created_at,
        }
    }
}

/// A signed checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointRecord {
    pub size: u64,
    pub root: Hash,
    /// The C2SP signed note.
    pub note: String,
    pub key_id: String,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<log_checkpoints::Model> for CheckpointRecord {
    type Error = StoreError;

    fn try_from(m: log_checkpoints::Model) -> Result<Self, StoreError> {
        Ok(Self {
            size: m.size as u64,
            root: to_hash(m.root)?,
            note: m.note,
            key_id: m.key_id,
            created_at: m.created_at,
        })
    }
}

/// The newest checkpoint a log had published, recorded by a restore whose log is smaller:
/// appends are refused while it is set; `accepted` once the rollback is (the next server to
/// start logs a signed rollback statement and clears it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFloor {
    pub size: u64,
    pub root: Hash,
    /// The published checkpoint's signed note.
    pub note: String,
    pub accepted: bool,
}

fn to_hash(bytes: Vec<u8>) -> Result<Hash, StoreError> {
    bytes
        .try_into()
        .map_err(|_| StoreError::Corrupt("a log hash is not 32 bytes".into()))
}

/// Appends `leaf` on `conn`, which must be a transaction; its index.
pub(crate) async fn append<C: ConnectionTrait>(conn: &C, leaf: NewLeaf) -> Result<u64, StoreError> {
    // A restored log behind its published checkpoint takes no leaf (it would fork).
    let row = conn
        .query_one_raw(Statement::from_string(
            conn.get_database_backend(),
            "UPDATE log_state SET size = size + 1 WHERE id = 1 AND floor_size IS NULL \
             RETURNING size",
        ))
        .await?;
    let Some(row) = row else {
        let state = log_state::Entity::find_by_id(1)
            .one(conn)
            .await?
            .ok_or_else(|| StoreError::Corrupt("the log has no state row".into()))?;
        return Err(StoreError::SigningHeld {
            size: state.size as u64,
            floor: state.floor_size.unwrap_or_default() as u64,
        });
    };
    let size: i64 = row.try_get("", "size")?;
    let index = (size - 1) as u64;
    let hash = tlog::leaf_hash(&leaf.leaf);
    let stored = with_hashes(conn, |h| tlog::append(index, hash, h)).await?;
    log_hashes::Entity::insert_many(stored.into_iter().map(|(node, hash)| {
        log_hashes::ActiveModel {
            level: Set(i16::from(node.level)),
            idx: Set(node.index as i64),
            hash: Set(hash.to_vec()),
        }
    }))
    .exec_without_returning(conn)
    .await?;
    log_entries::Entity::insert(log_entries::ActiveModel {
        idx: Set(index as i64),
        report_id: Set(leaf.report_id),
        kind: Set(leaf.kind),
        leaf: Set(leaf.leaf),
        private: Set(leaf.private),
        created_at: Set(leaf.created_at),
    })
    .exec_without_returning(conn)
    .await?;
    Ok(index)
}

/// Runs `f` over the stored hashes it reads (see [`tlog::with_stored`]).
async fn with_hashes<C: ConnectionTrait, T>(
    conn: &C,
    f: impl Fn(&mut dyn Hashes) -> T,
) -> Result<T, StoreError> {
    let mut recorder = tlog::Recorder::default();
    f(&mut recorder);
    let hashes = read_hashes(conn, &recorder.reads).await?;
    let mut known = tlog::Known::new(&hashes);
    let out = f(&mut known);
    match known.missing.first() {
        None => Ok(out),
        Some(node) => Err(StoreError::Corrupt(format!(
            "the log has no hash at level {} index {}",
            node.level, node.index
        ))),
    }
}

async fn read_hashes<C: ConnectionTrait>(
    conn: &C,
    nodes: &[NodeId],
) -> Result<HashMap<NodeId, Hash>, StoreError> {
    let mut hashes = HashMap::new();
    for chunk in nodes.chunks(64) {
        let any = chunk.iter().fold(Condition::any(), |any, node| {
            any.add(
                Condition::all()
                    .add(log_hashes::Column::Level.eq(i16::from(node.level)))
                    .add(log_hashes::Column::Idx.eq(node.index as i64)),
            )
        });
        for row in log_hashes::Entity::find().filter(any).all(conn).await? {
            let node = NodeId::new(row.level as u8, row.idx as u64);
            hashes.insert(node, to_hash(row.hash)?);
        }
    }
    Ok(hashes)
}

impl Db {
    /// Appends one leaf in a transaction of its own (tests and tools; reports append in the
    /// transaction that stores them).
    pub async fn append_log_leaf(&self, leaf: NewLeaf) -> Result<u64, StoreError> {
        let txn = self.write().await?;
        let index = append(&txn, leaf).await?;
        txn.commit().await?;
        Ok(index)
    }

    /// The number of leaves.
    pub async fn log_size(&self) -> Result<u64, StoreError> {
        let size: Option<i64> = crate::entities::log_state::Entity::find_by_id(1)
            .select_only()
            .column(crate::entities::log_state::Column::Size)
            .into_tuple()
            .one(self.conn())
            .await?;
        Ok(size.unwrap_or(0) as u64)
    }

    /// The leaf of a logged report.
    pub async fn log_entry_of(&self, report: Uuid) -> Result<Option<LogEntryRecord>, StoreError> {
        Ok(log_entries::Entity::find()
            .filter(log_entries::Column::ReportId.eq(report))
            .one(self.conn())
            .await?
            .map(LogEntryRecord::from))
    }

    /// The index of a logged report's leaf.
    pub async fn log_index_of(&self, report: Uuid) -> Result<Option<u64>, StoreError> {
        Ok(self.log_entry_of(report).await?.map(|e| e.index))
    }

    /// The leaf indexes of logged reports, by report id.
    pub async fn log_indexes_of(&self, reports: &[Uuid]) -> Result<HashMap<Uuid, u64>, StoreError> {
        if reports.is_empty() {
            return Ok(HashMap::new());
        }
        let rows: Vec<(Uuid, i64)> = log_entries::Entity::find()
            .select_only()
            .column(log_entries::Column::ReportId)
            .column(log_entries::Column::Idx)
            .filter(log_entries::Column::ReportId.is_in(reports.iter().copied()))
            .into_tuple()
            .all(self.conn())
            .await?;
        Ok(rows.into_iter().map(|(id, idx)| (id, idx as u64)).collect())
    }

    /// Leaves `[start, end)`, in order.
    pub async fn log_entries(
        &self,
        start: u64,
        end: u64,
    ) -> Result<Vec<LogEntryRecord>, StoreError> {
        Ok(log_entries::Entity::find()
            .filter(log_entries::Column::Idx.gte(start as i64))
            .filter(log_entries::Column::Idx.lt(end as i64))
            .order_by_asc(log_entries::Column::Idx)
            .all(self.conn())
            .await?
            .into_iter()
            .map(LogEntryRecord::from)
            .collect())
    }

    /// Runs `f` — a root or proof of `tlog` — over the stored hashes it needs.
    pub async fn over_log_hashes<T>(
        &self,
        f: impl Fn(&mut dyn Hashes) -> T,
    ) -> Result<T, StoreError> {
        with_hashes(self.conn(), f).await
    }

    pub async fn latest_checkpoint(&self) -> Result<Option<CheckpointRecord>, StoreError> {
        log_checkpoints::Entity::find()
            .order_by_desc(log_checkpoints::Column::Size)
            .one(self.conn())
            .await?
            .map(CheckpointRecord::try_from)
            .transpose()
    }

    pub async fn checkpoint_of_size(
        &self,
        size: u64,
    ) -> Result<Option<CheckpointRecord>, StoreError> {
        log_checkpoints::Entity::find_by_id(size as i64)
            .one(self.conn())
            .await?
            .map(CheckpointRecord::try_from)
            .transpose()
    }

    /// Stores a checkpoint; one for the same size already stored wins (replicas race).
    pub async fn insert_checkpoint(&self, checkpoint: CheckpointRecord) -> Result<(), StoreError> {
        log_checkpoints::Entity::insert(log_checkpoints::ActiveModel {
            size: Set(checkpoint.size as i64),
            root: Set(checkpoint.root.to_vec()),
            note: Set(checkpoint.note),
            key_id: Set(checkpoint.key_id),
            created_at: Set(checkpoint.created_at),
        })
        .on_conflict(
            OnConflict::column(log_checkpoints::Column::Size)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(self.conn())
        .await?;
        Ok(())
    }

    /// The floor a restore set, while set.
    pub async fn log_floor(&self) -> Result<Option<LogFloor>, StoreError> {
        let state = log_state::Entity::find_by_id(1)
            .one(self.conn())
            .await?
            .ok_or_else(|| StoreError::Corrupt("the log has no state row".into()))?;
        match (state.floor_size, state.floor_root, state.floor_note) {
            (Some(size), Some(root), Some(note)) => Ok(Some(LogFloor {
                size: size as u64,
                root: to_hash(root)?,
                note,
                accepted: state.floor_accepted,
            })),
            _ => Ok(None),
        }
    }

    /// Sets the floor (a restore, before any server serves the database).
    pub async fn set_log_floor(&self, floor: &LogFloor) -> Result<(), StoreError> {
        log_state::Entity::update_many()
            .col_expr(log_state::Column::FloorSize, Expr::value(floor.size as i64))
            .col_expr(
                log_state::Column::FloorRoot,
                Expr::value(floor.root.to_vec()),
            )
            .col_expr(
                log_state::Column::FloorNote,
                Expr::value(floor.note.clone()),
            )
            .col_expr(
                log_state::Column::FloorAccepted,
                Expr::value(floor.accepted),
            )
            .filter(log_state::Column::Id.eq(1))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// Clears an accepted `floor` and appends `statement` (the signed rollback statement) in
    /// one transaction: its index, or `None` when another server settled it first.
    pub async fn settle_log_floor(
        &self,
        floor: &LogFloor,
        statement: NewLeaf,
    ) -> Result<Option<u64>, StoreError> {
        let txn = self.write().await?;
        let cleared = log_state::Entity::update_many()
            .col_expr(
                log_state::Column::FloorSize,
                Expr::value(Option::<i64>::None),
            )
            .col_expr(
                log_state::Column::FloorRoot,
                Expr::value(Option::<Vec<u8>>::None),
            )
            .col_expr(
                log_state::Column::FloorNote,
                Expr::value(Option::<String>::None),
            )
            .col_expr(log_state::Column::FloorAccepted, Expr::value(false))
            .filter(log_state::Column::Id.eq(1))
            .filter(log_state::Column::FloorAccepted.eq(true))
            .filter(log_state::Column::FloorSize.eq(floor.size as i64))
            .exec(&txn)
            .await?;
        if cleared.rows_affected != 1 {
            return Ok(None);
        }
        let index = append(&txn, statement).await?;
        txn.commit().await?;
        Ok(Some(index))
    }

    /// Test support: overwrites a stored leaf's bytes (what a dishonest operator would do).
    #[cfg(feature = "testing")]
    pub async fn tamper_with_log_leaf(&self, index: u64, leaf: Vec<u8>) -> Result<(), StoreError> {
        log_entries::Entity::update_many()
            .col_expr(log_entries::Column::Leaf, Expr::value(leaf))
            .filter(log_entries::Column::Idx.eq(index as i64))
            .exec(self.conn())
            .await?;
        Ok(())
    }
}
