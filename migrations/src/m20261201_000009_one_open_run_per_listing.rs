//! At most one queued or running verification per listing, enforced by the database: a
//! partial unique index (PostgreSQL and SQLite both have them). Duplicates already open are
//! cancelled first, keeping each listing's oldest.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const OPEN: &str = "status IN ('queued', 'running') AND kind = 'verification'";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared(&format!(
            "UPDATE verification_runs SET status = 'cancelled', failure_code = 'duplicate', \
             failure_reason = 'another run of this listing was already open', \
             lease_owner = NULL, lease_expires_at = NULL \
             WHERE {OPEN} AND created_at > (SELECT MIN(r.created_at) FROM verification_runs r \
             WHERE r.listing_id = verification_runs.listing_id \
             AND r.status IN ('queued', 'running') AND r.kind = 'verification')"
        ))
        .await?;
        db.execute_unprepared(&format!(
            "CREATE UNIQUE INDEX idx_runs_one_open_per_listing \
             ON verification_runs (listing_id) WHERE {OPEN}"
        ))
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX idx_runs_one_open_per_listing")
            .await?;
        Ok(())
    }
}
