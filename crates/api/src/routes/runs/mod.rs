//! Community runs ("matrix runs"): reports anyone signed in submits, checked against the
//! standard, labelled `community` and never `verified`; the server signs a receipt of who
//! submitted what and when, not the figures.

pub mod get;
pub mod list;
pub mod submit;
pub mod withdraw;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::views::{CatalogView, LogPositionView};

/// Who submitted a run.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubmitterView {
    pub handle: String,
}

/// A community run.
#[derive(Debug, Serialize, ToSchema)]
pub struct CommunityRunView {
    pub id: Uuid,
    /// Always `community`: measured by its submitter, not verified by the platform.
    pub label: &'static str,
    pub submitter: SubmitterView,
    pub catalog: CatalogView,
    /// The model the engine served.
    pub model: String,
    /// The report as submitted, without any engine address.
    #[schema(value_type = Object)]
    pub report: serde_json::Value,
    /// SHA-256 (hex) of the report as RFC 8785 JSON: the receipt's subject digest.
    pub report_sha256: String,
    pub launch_command: Option<String>,
    pub hardware_notes: Option<String>,
    /// The platform's signed receipt (DSSE envelope): who submitted what, when.
    #[schema(value_type = Object)]
    pub receipt: serde_json::Value,
    pub created_at: DateTime<Utc>,
    /// The receipt's place in the transparency log.
    pub log: Option<LogPositionView>,
}

impl From<app::trust::community::CommunityRun> for CommunityRunView {
    fn from(r: app::trust::community::CommunityRun) -> Self {
        Self {
            id: r.id,
            label: "community",
            submitter: SubmitterView {
                handle: r.submitter_handle,
            },
            catalog: CatalogView {
                gpu: r.catalog_gpu,
                model: r.catalog_model,
            },
            model: r.model,
            report: r.report,
            report_sha256: r.report_sha256,
            launch_command: r.launch_command,
            hardware_notes: r.hardware_notes,
            receipt: r.receipt,
            created_at: r.created_at,
            log: LogPositionView::of(r.log_index),
        }
    }
}
