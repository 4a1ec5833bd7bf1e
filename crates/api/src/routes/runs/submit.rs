use actix_web::{HttpResponse, post, web};
use app::App;
use app::trust::community::Submission;
use serde::Deserialize;
use utoipa::ToSchema;

use super::CommunityRunView;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    EmailUnverified, Forbidden, InvalidToken, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};
use crate::views::CatalogView;

/// A report and what its submitter says about the run.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitRunRequest {
    /// The report as `gpumarket bench --out` writes it.
    #[schema(value_type = Object)]
    pub report: serde_json::Value,
    /// The GPU's and model's catalog ids, for the model and hardware pages.
    #[serde(default)]
    pub catalog: Option<CatalogView>,
    /// How the engine was started, as on the reference page.
    #[serde(default)]
    pub launch_command: Option<String>,
    #[serde(default)]
    pub hardware_notes: Option<String>,
}

/// Submit a report you measured (`gpumarket bench … --submit URL --submit-key KEY` does
/// this). The server checks its shape, units, each status against the standard's rules and
/// that totals agree with per-request figures and active requests, and refuses an
/// inconsistent one naming every field (`errors[].field`, e.g.
/// `report.decode[3].total_tok_s`). Stored with your handle, labelled `community`.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "submit_run", 
    tag = "runs",
    security(("bearer" = [])),
    request_body = SubmitRunRequest,
    responses(
        (status = 201, description = "Stored, with its signed receipt", body = CommunityRunView),
        Problems<(InvalidToken, Unauthenticated, EmailUnverified, Forbidden, ValidationFailed)>,
    )
)]
#[post("/runs")]
pub async fn submit(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<SubmitRunRequest>,
) -> Result<HttpResponse, ApiError> {
    let catalog = body.catalog.unwrap_or_default();
    let run = app
        .submit_run(
            caller,
            Submission {
                report: body.report,
                catalog_gpu: catalog.gpu,
                catalog_model: catalog.model,
                launch_command: body.launch_command,
                hardware_notes: body.hardware_notes,
            },
        )
        .await?;
    Ok(HttpResponse::Created().json(CommunityRunView::from(run)))
}
