//! Runs as stored: the record and its insertion (inside a caller's transaction or not).

use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait};

use crate::entities::{listings, runs};
use crate::{StoreError, conflict_as};

pub type RunRecord = runs::Model;

/// Inserts a run on `conn` (a transaction, or the pool).
pub(crate) async fn insert_run_in(
    conn: &impl ConnectionTrait,
    run: RunRecord,
) -> Result<(), StoreError> {
    let model = runs::ActiveModel {
        id: Set(run.id),
        listing_id: Set(run.listing_id),
        org_id: Set(run.org_id),
        requested_by: Set(run.requested_by),
        profile: Set(run.profile),
        status: Set(run.status),
        attempts: Set(run.attempts),
        lease_owner: Set(run.lease_owner),
        lease_expires_at: Set(run.lease_expires_at),
        failure_reason: Set(run.failure_reason),
        failure_code: Set(run.failure_code),
        report_id: Set(run.report_id),
        created_at: Set(run.created_at),
        started_at: Set(run.started_at),
        finished_at: Set(run.finished_at),
        kind: Set(run.kind),
        baseline_report_id: Set(run.baseline_report_id),
        visibility: Set(run.visibility),
    };
    runs::Entity::insert(model)
        .exec_without_returning(conn)
        .await
        .map_err(conflict_as("open run"))?;
    Ok(())
}

/// What a listing claims and a run measures: hardware and engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasuredClaim {
    pub gpu_model: String,
    pub gpu_count: i32,
    pub vram_gb: i32,
    pub cpu_model: String,
    pub ram_gb: i32,
    pub engine_base_url: String,
    pub engine_model: String,
    /// The catalog GPU and model claimed (kept with the report, for the public list's
    /// filters).
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
}

impl MeasuredClaim {
    pub fn of(listing: &listings::Model) -> Self {
        Self {
            gpu_model: listing.gpu_model.clone(),
            gpu_count: listing.gpu_count,
            vram_gb: listing.vram_gb,
            cpu_model: listing.cpu_model.clone(),
            ram_gb: listing.ram_gb,
            engine_base_url: listing.engine_base_url.clone(),
            engine_model: listing.engine_model.clone(),
            catalog_gpu: listing.catalog_gpu.clone(),
            catalog_model: listing.catalog_model.clone(),
        }
    }
}
